/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_progress: the progress is one jansson document. Setters change it in
 * place; fields we do not know survive a load/save cycle untouched, so an
 * older rtlab does not strip what a newer one recorded.
 *
 * Locking: writers hold an flock on "<path>.lock" for the whole
 * read-modify-write; readers need no lock because saves are atomic renames.
 * The one thing a reader may do to the file, moving a corrupt one aside, is
 * done under the lock after reading the file again, so a reader can never
 * move aside a good file that a writer has just put in place.
 */
#include "rt_progress.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rt_buf.h"
#include "rt_err.h"
#include "rt_file.h"
#include "rt_json.h"
#include "rt_keys.h"
#include "rt_log.h"
#include "rt_paths.h"
#include "rt_result.h"

struct rt_progress {
	json_t *doc;	/* owned */
	char *path;	/* owned; NULL when not bound to a file */
};

#define MAX_UNIT	32u
#define MAX_STATUS	32u
#define EXACT_INT_LIMIT	9007199254740992.0	/* 2^53 */

/* ---- Checking ---------------------------------------------------------- */

static bool id_valid(const char *id)
{
	size_t n = 0;

	if (!id)
		return false;
	for (const unsigned char *p = (const unsigned char *)id; *p; p++, n++)
		if (*p < 0x20 || *p == 0x7f)
			return false;
	return n >= 1 && n <= RT_PROGRESS_MAX_ID;
}

static bool status_valid(const char *s)
{
	size_t n = 0;

	if (!s)
		return false;
	for (; *s; s++, n++)
		if (!((*s >= 'a' && *s <= 'z') || *s == '-'))
			return false;
	return n >= 1 && n <= MAX_STATUS;
}

/* "lessons", "lessons.03-latency", "lessons[\"a b\"]": plain ids get a dot. */
static void path_add(char *buf, size_t size, const char *key)
{
	size_t used = strlen(buf);
	bool plain = *key != '\0';

	for (const char *k = key; *k; k++)
		if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') ||
		      (*k >= '0' && *k <= '9') || *k == '_' || *k == '-'))
			plain = false;
	if (plain)
		snprintf(buf + used, size - used, "%s%.64s", used ? "." : "", key);
	else
		snprintf(buf + used, size - used, "[\"%.64s\"]", key);
}

__attribute__((format(printf, 3, 4)))
static int bad(char **cause, const char *path, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	rt_err(cause, -EINVAL, "%s: %s", path, msg ? msg : "invalid");
	free(msg);
	return -EINVAL;
}

/* ---- Declared keys ----------------------------------------------------- */

/*
 * The document's keys, declared once: the checks below walk these tables,
 * and `rtlab schema rtlab.progress/1` prints the JSON Schema made of them.
 * Keys a table does not declare are kept as they are (a newer rtlab's), so
 * every object allows others; a map (lesson id -> state) is an object whose
 * "others" have keys of their own.
 */
#define ID_PATTERN	"^[^\\u0000-\\u001f\\u007f]{1,128}$"
#define TIME_PATTERN	"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?Z$"

static const struct rt_key kept = RT_KEY(NULL, 0, NULL, "kept as it is", false);
static const struct rt_key no_keys[] = { RT_KEY_END };

static const struct rt_key quiz_keys[] = {
	RT_KEY("answer", RT_T_STRING, NULL, "the last answer in canonical form", false),
	RT_KEY("score", RT_T_NUMBER, NULL, "1 right, 0 wrong", false),
	RT_KEY("attempts", RT_T_INTEGER, "count", "answers given", false, .min = 0,
	       .max = 9007199254740992.0),
	RT_KEY("time", RT_T_STRING, NULL, "RFC 3339 UTC time of the last answer", false),
	RT_KEY_END,
};
static const struct rt_keys quiz_table = { .keys = quiz_keys, .others = &kept };
static const struct rt_key quiz_entry = RT_KEY(NULL, RT_T_OBJECT, NULL, "a question's answer",
					       false, .of = &quiz_table);
static const struct rt_keys quiz_map = { .keys = no_keys, .others = &quiz_entry,
					 .others_pattern = ID_PATTERN };

static const struct rt_key prediction_keys[] = {
	RT_KEY("value", RT_T_NUMBER, NULL, "the predicted number", true),
	RT_KEY("unit", RT_T_STRING, NULL, "its unit", false),
	RT_KEY("time", RT_T_STRING, NULL, "RFC 3339 UTC time it was saved", false),
	RT_KEY_END,
};
static const struct rt_keys prediction_table = { .keys = prediction_keys, .others = &kept };
static const struct rt_key prediction_entry =
	RT_KEY(NULL, RT_T_OBJECT, NULL, "a predict question's prediction", false,
	       .of = &prediction_table);
static const struct rt_keys prediction_map = { .keys = no_keys, .others = &prediction_entry,
					       .others_pattern = ID_PATTERN };

static const struct rt_key lesson_keys[] = {
	RT_KEY("read", RT_T_BOOL, NULL, "the learner finished the lesson", false),
	RT_KEY("position", RT_T_INTEGER, NULL, "first line shown when the lesson was left",
	       false, .min = 0, .max = 9007199254740992.0),
	RT_KEY("quiz", RT_T_OBJECT, NULL, "question id -> answer", false, .of = &quiz_map),
	RT_KEY("predictions", RT_T_OBJECT, NULL, "question id -> prediction", false,
	       .of = &prediction_map),
	RT_KEY_END,
};
static const struct rt_keys lesson_table = { .keys = lesson_keys, .others = &kept };
static const struct rt_key lesson_entry = RT_KEY(NULL, RT_T_OBJECT, NULL, "a lesson's state",
						 false, .of = &lesson_table);
static const struct rt_keys lesson_map = { .keys = no_keys, .others = &lesson_entry,
					   .others_pattern = ID_PATTERN };

static const struct rt_key answer_keys[] = {
	RT_KEY("text", RT_T_STRING, NULL, "the answer as the learner wrote it", true),
	RT_KEY("time", RT_T_STRING, NULL, "RFC 3339 UTC time it was saved", false),
	RT_KEY_END,
};
static const struct rt_keys answer_table = { .keys = answer_keys, .others = &kept };
static const struct rt_key answer_entry = RT_KEY(NULL, RT_T_OBJECT, NULL, "a written answer",
						 false, .of = &answer_table);
static const struct rt_keys answer_map = { .keys = no_keys, .others = &answer_entry,
					   .others_pattern = ID_PATTERN };

static const struct rt_key lab_keys[] = {
	RT_KEY("status", RT_T_STRING, NULL, "`started`, `done`, `passed`, `failed`...", true),
	RT_KEY("result", RT_T_STRING, NULL, "path of the last results document", false),
	RT_KEY("time", RT_T_STRING, NULL, "RFC 3339 UTC time of the record", false),
	RT_KEY("documents", RT_T_ARRAY, NULL,
	       "the last documents written with --json FILE, oldest first", false,
	       .items = RT_T_STRING),
	RT_KEY("answers", RT_T_OBJECT, NULL, "question id -> the learner's written answer",
	       false, .of = &answer_map),
	RT_KEY_END,
};
static const struct rt_keys lab_table = { .keys = lab_keys, .others = &kept };
static const struct rt_key lab_entry = RT_KEY(NULL, RT_T_OBJECT, NULL, "a lab's record", false,
					      .of = &lab_table);
static const struct rt_keys lab_map = { .keys = no_keys, .others = &lab_entry,
					.others_pattern = ID_PATTERN };

static const struct rt_key top_keys[] = {
	RT_KEY("schema", RT_T_STRING, NULL, "`rtlab.progress/1`", true),
	RT_KEY("lessons", RT_T_OBJECT, NULL, "lesson id -> lesson state", false,
	       .of = &lesson_map),
	RT_KEY("labs", RT_T_OBJECT, NULL, "lab name -> the lab's record", false, .of = &lab_map),
	RT_KEY("updated", RT_T_STRING, NULL, "RFC 3339 UTC time of the last save", false,
	       .pattern = TIME_PATTERN),
	RT_KEY_END,
};
static const struct rt_keys top_table = { .keys = top_keys, .others = &kept };

json_t *rt_progress_schema(void)
{
	return rt_keys_document(RT_PROGRESS_SCHEMA, "rtlab learner's progress", &top_table, 0);
}

/* ---- Checking ---------------------------------------------------------- */

static int check_fields(char **cause, const char *path, const json_t *obj,
			const struct rt_keys *t);

/* @v, found at @path, holds what @k declares. */
static int check_value(char **cause, const char *path, const json_t *v, const struct rt_key *k)
{
	if ((k->type & RT_T_STRING) && !json_is_string(v))
		return bad(cause, path, "must be a string");
	if ((k->type & RT_T_NUMBER) && !json_is_number(v))
		return bad(cause, path, "must be a number");
	if ((k->type & RT_T_INTEGER) && (!json_is_integer(v) || json_integer_value(v) < 0))
		return bad(cause, path, "must be a non-negative integer");
	if ((k->type & RT_T_BOOL) && !json_is_boolean(v))
		return bad(cause, path, "must be true or false");
	if (k->type & RT_T_OBJECT) {
		if (!json_is_object(v))
			return bad(cause, path, "must be an object");
		return check_fields(cause, path, v, k->of);
	}
	if (k->type & RT_T_ARRAY) {	/* of strings: the only arrays it has */
		const json_t *e;
		size_t i;

		if (!json_is_array(v))
			return bad(cause, path, "must be an array of strings");
		json_array_foreach(v, i, e)
			if (!json_is_string(e))
				return bad(cause, path, "item %zu must be a string", i);
	}
	return 0;
}

/* The keys @t declares in @obj, and each entry of a map (@t->others with keys). */
static int check_fields(char **cause, const char *path, const json_t *obj,
			const struct rt_keys *t)
{
	char at[512];
	const char *id;
	json_t *v;
	int ret;

	for (const struct rt_key *k = t->keys; k->key; k++) {
		v = json_object_get(obj, k->key);
		snprintf(at, sizeof(at), "%s", path);
		path_add(at, sizeof(at), k->key);
		if (!v && k->required)
			return bad(cause, at, "missing");
		ret = v ? check_value(cause, at, v, k) : 0;
		if (ret)
			return ret;
	}
	if (!t->others || !t->others->of)
		return 0;
	json_object_foreach((json_t *)obj, id, v) {
		snprintf(at, sizeof(at), "%s", path);
		path_add(at, sizeof(at), id);
		if (!id_valid(id))
			return bad(cause, at, "id must be 1..%u bytes without control characters",
				   RT_PROGRESS_MAX_ID);
		ret = check_value(cause, at, v, t->others);
		if (ret)
			return ret;
	}
	return 0;
}

/* Is @doc a progress document this rtlab can use? 0 or -EINVAL with "FIELD: why". */
static int progress_check(const json_t *doc, char **cause)
{
	const char *schema;

	if (!json_is_object(doc))
		return bad(cause, "document", "must be a JSON object");
	schema = json_string_value(json_object_get(doc, "schema"));
	if (!schema)
		return bad(cause, "schema", "missing or not a string");
	if (strcmp(schema, RT_PROGRESS_SCHEMA) != 0)
		return bad(cause, "schema", "unsupported \"%.64s\" (this rtlab reads %s)", schema,
			   RT_PROGRESS_SCHEMA);
	return check_fields(cause, "", doc, &top_table);
}

/* ---- Documents --------------------------------------------------------- */

static struct rt_progress *progress_alloc(json_t *doc, const char *path)
{
	struct rt_progress *p = calloc(1, sizeof(*p));

	if (!p)
		goto out_nomem;
	if (path) {
		p->path = strdup(path);
		if (!p->path)
			goto out_nomem;
	}
	if (!doc) {
		doc = json_object();
		if (!doc || json_object_set_new(doc, "schema", json_string(RT_PROGRESS_SCHEMA))) {
			json_decref(doc);
			goto out_nomem;
		}
	}
	p->doc = doc;
	return p;

out_nomem:
	if (p)
		free(p->path);
	free(p);
	errno = ENOMEM;
	return NULL;
}

char *rt_progress_default_path(void)
{
	return rt_paths_state_file(RT_PROGRESS_FILE);
}

struct rt_progress *rt_progress_new(const char *path)
{
	struct rt_progress *p;
	char *def = NULL;

	if (!path) {
		def = rt_progress_default_path();
		if (!def)
			return NULL;
		path = def;
	}
	p = progress_alloc(NULL, path);
	free(def);
	return p;
}

void rt_progress_free(struct rt_progress *p)
{
	if (!p)
		return;
	json_decref(p->doc);
	free(p->path);
	free(p);
}

const char *rt_progress_path(const struct rt_progress *p)
{
	return p->path;
}

json_t *rt_progress_json(const struct rt_progress *p)
{
	return p->doc;
}

int rt_progress_parse(const char *text, size_t len, const char *name,
		      struct rt_progress **out, char **cause)
{
	char *why = NULL;
	json_t *doc;
	int ret;

	*out = NULL;
	if (!name)
		name = "(progress)";
	if (len > RT_PROGRESS_MAX_FILE)
		return rt_err(cause, -EFBIG, "%s: larger than %u MiB", name,
			      RT_PROGRESS_MAX_FILE >> 20);
	ret = rt_json_load(text, len, name, &doc, cause);
	if (ret)
		return ret;
	ret = progress_check(doc, &why);
	if (ret) {
		rt_err(cause, ret, "%s: %s", name, why ? why : "invalid progress");
		free(why);
		json_decref(doc);
		return ret;
	}
	*out = progress_alloc(doc, NULL);
	if (!*out) {
		json_decref(doc);
		return rt_err(cause, -ENOMEM, "%s: out of memory", name);
	}
	return 0;
}

char *rt_progress_to_string(const struct rt_progress *p)
{
	struct rt_buf b = RT_BUF_INIT;
	int ret;

	ret = rt_json_write(&b, p->doc, NULL);
	if (!ret)
		ret = rt_buf_puts(&b, "\n");
	if (ret) {
		rt_buf_fini(&b);
		errno = -ret;
		return NULL;
	}
	return rt_buf_take(&b);
}

/* ---- Files ------------------------------------------------------------- */

static int mkdir_parent(const char *path)
{
	char *copy = strdup(path);
	int ret;

	if (!copy)
		return -ENOMEM;
	ret = rt_mkdir_p(dirname(copy), 0700);
	free(copy);
	return ret;
}

/* Open and exclusively lock "<path>.lock". Returns the fd or a negative errno. */
static int lock_take(const char *path, char **cause)
{
	char *lock = NULL;
	int fd, ret;

	if (asprintf(&lock, "%s.lock", path) < 0)
		return rt_err(cause, -ENOMEM, "%s: out of memory", path);
	ret = mkdir_parent(lock);
	if (ret) {
		rt_err(cause, ret, "%s: cannot create its directory: %s", path, strerror(-ret));
		goto out_free;
	}
	/* State-dir file: no link followed, no FIFO or device locked (rt_file.h). */
	fd = rt_file_open_read(lock, RT_FILE_NOFOLLOW | RT_FILE_CREATE, 0, cause);
	if (fd < 0) {
		ret = fd;
		goto out_free;
	}
	while (flock(fd, LOCK_EX) < 0) {
		if (errno == EINTR)
			continue;
		ret = rt_err(cause, -errno, "%s: cannot lock: %s", lock, strerror(errno));
		close(fd);
		goto out_free;
	}
	ret = fd;
out_free:
	free(lock);
	return ret;
}

/*
 * Rename @path to "<path>.corrupt-<UTC time>[-N]" without replacing anything
 * already there. Returns the new name (caller frees) or NULL with errno set.
 */
static char *move_aside(const char *path)
{
	char stamp[32], *dest = NULL;
	time_t now = time(NULL);
	struct tm tm;

	if (!gmtime_r(&now, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm))
		snprintf(stamp, sizeof(stamp), "%lld", (long long)now);
	for (unsigned int n = 1; n < 1000; n++) {
		int r;

		r = n == 1 ? asprintf(&dest, "%s.corrupt-%s", path, stamp)
			   : asprintf(&dest, "%s.corrupt-%s-%u", path, stamp, n);
		if (r < 0) {
			errno = ENOMEM;
			return NULL;
		}
		r = rt_file_rename_noreplace(path, dest);
		if (r == 0)
			return dest;
		if (r != -EEXIST) {
			free(dest);
			errno = -r;
			return NULL;
		}
		free(dest);
		dest = NULL;
	}
	errno = EEXIST;
	return NULL;
}

/*
 * Read @path into a progress. @locked says whether we hold the lock: a
 * corrupt file found without it is read again under it before it is moved.
 */
static int progress_load(const char *path, bool locked, struct rt_progress **out, char **cause)
{
	char *text = NULL, *why = NULL, *aside = NULL;
	size_t len = 0;
	int ret, fd;

	*out = NULL;
	ret = rt_file_load(path, RT_FILE_NOFOLLOW, RT_PROGRESS_MAX_FILE, &text, &len, &why);
	if (ret == -ENOENT) {
		free(why);
		why = NULL;
		goto out_empty;
	}
	if (ret == -EFBIG) {
		/* Corrupt: moved aside below. */
	} else if (ret) {
		/* Not a regular file, a link, unreadable: never moved, never replaced. */
		rt_err(cause, ret, "%s", why ? why : strerror(-ret));
		free(why);
		return ret;
	} else {
		ret = rt_progress_parse(text, len, path, out, &why);
		free(text);
		if (ret == 0) {
			(*out)->path = strdup(path);
			if ((*out)->path)
				return 0;
			rt_progress_free(*out);
			*out = NULL;
			ret = -ENOMEM;
		}
		if (ret == -ENOMEM) {
			free(why);
			return rt_err(cause, ret, "%s: out of memory", path);
		}
	}

	/* Corrupt. */
	if (!locked) {
		free(why);
		fd = lock_take(path, cause);
		if (fd < 0)
			return fd;
		ret = progress_load(path, true, out, cause);
		close(fd);
		return ret;
	}
	aside = move_aside(path);
	if (!aside) {
		ret = -errno;
		rt_err(cause, ret, "%s; cannot move it aside: %s", why ? why : path,
		       strerror(-ret));
		free(why);
		return ret;
	}
	rt_log(RT_LOG_WARN, "%s; moved it to %s and started with empty progress",
	       why ? why : path, aside);
	free(why);
	free(aside);
out_empty:
	*out = progress_alloc(NULL, path);
	if (!*out)
		return rt_err(cause, -ENOMEM, "%s: out of memory", path);
	return 0;
}

int rt_progress_load(const char *path, struct rt_progress **out, char **cause)
{
	char *def = NULL;
	int ret;

	*out = NULL;
	if (!path) {
		def = rt_progress_default_path();
		if (!def)
			return rt_err(cause, -errno, "cannot find the state directory: %s",
				      strerror(errno));
		path = def;
	}
	ret = progress_load(path, false, out, cause);
	free(def);
	return ret;
}

int rt_progress_save(struct rt_progress *p, char **cause)
{
	char stamp[32];
	int ret;

	if (!p->path)
		return rt_err(cause, -EINVAL, "progress not bound to a file");
	if (rt_result_format_time(time(NULL), stamp, sizeof(stamp)) == 0 &&
	    json_object_set_new(p->doc, "updated", json_string(stamp)))
		return rt_err(cause, -ENOMEM, "%s: out of memory", p->path);
	ret = mkdir_parent(p->path);
	if (ret)
		return rt_err(cause, ret, "%s: cannot create its directory: %s", p->path,
			      strerror(-ret));
	/* Members in the order they were set or read: the learner's file, kept as it is. */
	return rt_json_save(p->path, p->doc, NULL, 0600, cause);
}

int rt_progress_update(const char *path, int (*fn)(struct rt_progress *p, void *priv),
		       void *priv, char **cause)
{
	struct rt_progress *p = NULL;
	char *def = NULL;
	int fd, ret;

	if (!path) {
		def = rt_progress_default_path();
		if (!def)
			return rt_err(cause, -errno, "cannot find the state directory: %s",
				      strerror(errno));
		path = def;
	}
	fd = lock_take(path, cause);
	if (fd < 0) {
		ret = fd;
		goto out_free;
	}
	ret = progress_load(path, true, &p, cause);
	if (ret)
		goto out_unlock;
	ret = fn(p, priv);
	if (ret)
		goto out_unlock;
	ret = rt_progress_save(p, cause);
out_unlock:
	rt_progress_free(p);
	close(fd);
out_free:
	free(def);
	return ret;
}

/* ---- Entries ----------------------------------------------------------- */

/* Member @key of @parent as an object, created (or replacing a non-object) if @create. */
static json_t *child(json_t *parent, const char *key, bool create)
{
	json_t *o = json_object_get(parent, key);

	if (json_is_object(o) || !create)
		return json_is_object(o) ? o : NULL;
	o = json_object();
	if (!o || json_object_set_new(parent, key, o))
		return NULL;
	return o;
}

static json_t *lesson_get(const struct rt_progress *p, const char *lesson)
{
	return lesson ? child(child(p->doc, "lessons", false), lesson, false) : NULL;
}

static json_t *lesson_make(struct rt_progress *p, const char *lesson)
{
	return child(child(p->doc, "lessons", true), lesson, true);
}

static json_t *num_new(double v)
{
	if (v == floor(v) && fabs(v) <= EXACT_INT_LIMIT)
		return json_integer((json_int_t)v);
	return json_real(v);
}

static json_t *now_stamp(void)
{
	char stamp[32];

	if (rt_result_format_time(time(NULL), stamp, sizeof(stamp)))
		return json_null();
	return json_string(stamp);
}

/* Set @key of @o to @v (stolen); 0 or -ENOMEM. */
static int put(json_t *o, const char *key, json_t *v)
{
	return json_object_set_new(o, key, v) ? -ENOMEM : 0;
}

/* json_string() also fails on invalid UTF-8, which is the caller's mistake. */
static int put_text(json_t *o, const char *key, const char *s)
{
	json_t *v = json_string(s);

	if (!v)
		return errno == ENOMEM ? -ENOMEM : -EINVAL;
	return put(o, key, v);
}

int rt_progress_lesson_set_read(struct rt_progress *p, const char *lesson, bool read)
{
	json_t *l;

	if (!id_valid(lesson))
		return -EINVAL;
	l = lesson_make(p, lesson);
	return l ? put(l, "read", json_boolean(read)) : -ENOMEM;
}

bool rt_progress_lesson_read(const struct rt_progress *p, const char *lesson)
{
	return json_is_true(json_object_get(lesson_get(p, lesson), "read"));
}

int rt_progress_lesson_set_position(struct rt_progress *p, const char *lesson,
				    unsigned long line)
{
	json_t *l;

	if (!id_valid(lesson) || line > (unsigned long)INT64_MAX)
		return -EINVAL;
	l = lesson_make(p, lesson);
	return l ? put(l, "position", json_integer((json_int_t)line)) : -ENOMEM;
}

unsigned long rt_progress_lesson_position(const struct rt_progress *p, const char *lesson)
{
	json_t *v = json_object_get(lesson_get(p, lesson), "position");

	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return 0;
	return (unsigned long)json_integer_value(v);
}

int rt_progress_reset_lesson(struct rt_progress *p, const char *lesson)
{
	json_t *lessons = child(p->doc, "lessons", false);

	if (!id_valid(lesson))
		return -EINVAL;
	if (lessons)
		json_object_del(lessons, lesson);
	return 0;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * @fn on each key of the object @o, in byte order when @sorted, else in the
 * order they were recorded; stops at a non-zero return.
 */
static int foreach_key(json_t *o, bool sorted, int (*fn)(const char *key, void *priv),
		       void *priv)
{
	size_t n = json_object_size(o), k = 0;
	const char **names;
	const char *key;
	json_t *v;
	int ret = 0;

	if (!n)
		return 0;
	names = malloc(n * sizeof(*names));
	if (!names)
		return -ENOMEM;
	json_object_foreach(o, key, v)
		names[k++] = key;
	if (sorted)
		qsort(names, k, sizeof(*names), by_string);
	for (size_t i = 0; i < k && !ret; i++)
		ret = fn(names[i], priv);
	free(names);
	return ret;
}

int rt_progress_foreach_quiz(const struct rt_progress *p, const char *lesson,
			     int (*fn)(const char *qid, void *priv), void *priv)
{
	return foreach_key(child(lesson_get(p, lesson), "quiz", false), false, fn, priv);
}

int rt_progress_foreach_prediction(const struct rt_progress *p, const char *lesson,
				   int (*fn)(const char *qid, void *priv), void *priv)
{
	return foreach_key(child(lesson_get(p, lesson), "predictions", false), false, fn,
			   priv);
}

int rt_progress_foreach_lab(const struct rt_progress *p,
			    int (*fn)(const char *lab, void *priv), void *priv)
{
	return foreach_key(child(p->doc, "labs", false), false, fn, priv);
}

int rt_progress_foreach_lesson(const struct rt_progress *p,
			       int (*fn)(const char *lesson, void *priv), void *priv)
{
	return foreach_key(child(p->doc, "lessons", false), true, fn, priv);
}

int rt_progress_quiz_record(struct rt_progress *p, const char *lesson, const char *qid,
			    const char *answer, double score)
{
	json_t *q, *old;
	json_int_t attempts = 0;
	int ret;

	if (!id_valid(lesson) || !id_valid(qid) || !answer ||
	    strlen(answer) > RT_PROGRESS_MAX_TEXT || !isfinite(score))
		return -EINVAL;
	q = child(child(lesson_make(p, lesson), "quiz", true), qid, true);
	if (!q)
		return -ENOMEM;
	old = json_object_get(q, "attempts");
	if (json_is_integer(old) && json_integer_value(old) > 0 &&
	    json_integer_value(old) < INT64_MAX)
		attempts = json_integer_value(old);
	ret = put_text(q, "answer", answer);
	if (!ret)
		ret = put(q, "score", num_new(score));
	if (!ret)
		ret = put(q, "attempts", json_integer(attempts + 1));
	if (!ret)
		ret = put(q, "time", now_stamp());
	return ret;
}

int rt_progress_quiz_get(const struct rt_progress *p, const char *lesson, const char *qid,
			 struct rt_progress_quiz *out)
{
	json_t *q = qid ? child(child(lesson_get(p, lesson), "quiz", false), qid, false) : NULL;
	json_t *a;

	if (!q)
		return -ENOENT;
	memset(out, 0, sizeof(*out));
	out->answer = json_string_value(json_object_get(q, "answer"));
	if (!out->answer)
		out->answer = "";
	out->score = json_number_value(json_object_get(q, "score"));
	a = json_object_get(q, "attempts");
	if (json_is_integer(a) && json_integer_value(a) > 0)
		out->attempts = json_integer_value(a) > (json_int_t)UINT_MAX
				? UINT_MAX : (unsigned int)json_integer_value(a);
	out->time = json_string_value(json_object_get(q, "time"));
	return 0;
}

size_t rt_progress_quiz_count(const struct rt_progress *p, const char *lesson, double *total)
{
	json_t *quiz = child(lesson_get(p, lesson), "quiz", false), *v;
	const char *key;
	double sum = 0;

	json_object_foreach(quiz, key, v)
		sum += json_number_value(json_object_get(v, "score"));
	if (total)
		*total = sum;
	return json_object_size(quiz);
}

int rt_progress_prediction_set(struct rt_progress *p, const char *lesson, const char *qid,
			       double value, const char *unit)
{
	json_t *pr;
	int ret;

	if (!id_valid(lesson) || !id_valid(qid) || !isfinite(value) || !unit ||
	    strlen(unit) > MAX_UNIT)
		return -EINVAL;
	pr = child(child(lesson_make(p, lesson), "predictions", true), qid, true);
	if (!pr)
		return -ENOMEM;
	ret = put(pr, "value", num_new(value));
	if (!ret)
		ret = put_text(pr, "unit", unit);
	if (!ret)
		ret = put(pr, "time", now_stamp());
	return ret;
}

int rt_progress_prediction_get(const struct rt_progress *p, const char *lesson,
			       const char *qid, struct rt_progress_prediction *out)
{
	json_t *pr = qid ? child(child(lesson_get(p, lesson), "predictions", false), qid, false)
			 : NULL;

	if (!pr || !json_is_number(json_object_get(pr, "value")))
		return -ENOENT;
	out->value = json_number_value(json_object_get(pr, "value"));
	out->unit = json_string_value(json_object_get(pr, "unit"));
	if (!out->unit)
		out->unit = "";
	out->time = json_string_value(json_object_get(pr, "time"));
	return 0;
}

size_t rt_progress_prediction_count(const struct rt_progress *p, const char *lesson)
{
	return json_object_size(child(lesson_get(p, lesson), "predictions", false));
}

int rt_progress_lab_set(struct rt_progress *p, const char *lab, const char *status,
			const char *result)
{
	json_t *l;
	int ret;

	if (!id_valid(lab) || !status_valid(status) ||
	    (result && (!*result || strlen(result) > RT_PROGRESS_MAX_TEXT)))
		return -EINVAL;
	l = child(child(p->doc, "labs", true), lab, true);
	if (!l)
		return -ENOMEM;
	ret = put_text(l, "status", status);
	if (!ret && result)
		ret = put_text(l, "result", result);
	if (!ret)
		ret = put(l, "time", now_stamp());
	return ret;
}

int rt_progress_lab_get(const struct rt_progress *p, const char *lab,
			struct rt_progress_lab *out)
{
	json_t *l = lab ? child(child(p->doc, "labs", false), lab, false) : NULL, *docs;

	if (!l)
		return -ENOENT;
	out->status = json_string_value(json_object_get(l, "status"));
	if (!out->status)
		out->status = "";
	out->result = json_string_value(json_object_get(l, "result"));
	out->time = json_string_value(json_object_get(l, "time"));
	docs = json_object_get(l, "documents");
	out->ndocuments = 0;
	/* A hand-edited list longer than the cap: its newest entries are the ones kept. */
	for (size_t i = json_array_size(docs) > RT_PROGRESS_MAX_DOCS ?
			json_array_size(docs) - RT_PROGRESS_MAX_DOCS : 0;
	     i < json_array_size(docs); i++)
		out->documents[out->ndocuments++] = json_string_value(json_array_get(docs, i));
	return 0;
}

int rt_progress_lab_answer_set(struct rt_progress *p, const char *lab, const char *qid,
			       const char *text)
{
	json_t *l, *answers, *a;

	if (!id_valid(lab) || !id_valid(qid) || strlen(text) > RT_PROGRESS_MAX_TEXT)
		return -EINVAL;
	l = child(child(p->doc, "labs", false), lab, false);
	if (!l) {
		/* A lab entry needs a status; answering means the lab was started. */
		if (rt_progress_lab_set(p, lab, "started", NULL))
			return -ENOMEM;
		l = child(child(p->doc, "labs", false), lab, false);
	}
	answers = child(l, "answers", true);
	if (!answers)
		return -ENOMEM;
	if (!*text) {
		json_object_del(answers, qid);
		return 0;
	}
	a = json_object();
	if (!a || json_object_set_new(answers, qid, a))
		return -ENOMEM;
	return put_text(a, "text", text) ?: put(a, "time", now_stamp());
}

const char *rt_progress_lab_answer(const struct rt_progress *p, const char *lab,
				   const char *qid)
{
	json_t *l = lab ? child(child(p->doc, "labs", false), lab, false) : NULL;
	json_t *a = qid ? child(child(l, "answers", false), qid, false) : NULL;
	const char *text = json_string_value(json_object_get(a, "text"));

	return text && *text ? text : NULL;
}

int rt_progress_lab_add_document(struct rt_progress *p, const char *lab, const char *path)
{
	json_t *l, *docs, *v;

	if (!id_valid(lab) || !path || !*path || strlen(path) > RT_PROGRESS_MAX_TEXT)
		return -EINVAL;
	/* A lab's entry needs a status, which only rt_progress_lab_set() gives. */
	l = child(child(p->doc, "labs", false), lab, false);
	if (!l)
		return -ENOENT;
	docs = json_object_get(l, "documents");
	if (!json_is_array(docs)) {
		docs = json_array();
		if (!docs || json_object_set_new(l, "documents", docs))
			return -ENOMEM;
	}
	for (size_t i = json_array_size(docs); i-- > 0;)
		if (!strcmp(json_string_value(json_array_get(docs, i)) ?: "", path))
			json_array_remove(docs, i);
	v = json_string(path);
	if (!v)
		return errno == ENOMEM ? -ENOMEM : -EINVAL;
	if (json_array_append_new(docs, v))
		return -ENOMEM;
	while (json_array_size(docs) > RT_PROGRESS_MAX_DOCS)
		json_array_remove(docs, 0);
	return 0;
}
