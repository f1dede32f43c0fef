/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_handin: a lab's hand-in as a ustar archive, written and read back
 * (see the header; doc/handin.md is the format).
 *
 * The writer is the ustar subset we need: regular files with a bare name of
 * at most 100 bytes, in 512-byte blocks, ended by two zero blocks. The
 * reader is written for hostile input: every field is parsed with its
 * length, every offset checked against the archive's end before use, every
 * count and size capped, and the whole archive is judged before a file is
 * created, so a refusal leaves nothing behind. What it writes goes through
 * openat() on descriptors of the destination with O_CREAT|O_EXCL|O_NOFOLLOW:
 * no name, link or race can put a byte outside it.
 */
#include "grade_handin.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/rt_err.h"
#include "core/rt_file.h"
#include "core/rt_json.h"
#include "core/rt_keys.h"
#include "core/rt_progress.h"
#include "core/rt_version.h"
#include "grade/grade_exercise.h"
#include "grade/grade_manifest.h"
#include "grade/grade_sandbox.h"
#include "grade/grade_work.h"
#include "labs/lab.h"

#define BLOCK 512u
#define NAME_LEN 100u		/* ustar's name field */
#define PREFIX_LEN 155u		/* ustar's prefix field (POSIX magic only) */
#define MTIME_MAX 077777777777LL	/* 11 octal digits */
#define CLASS_MAX_TARS 32u	/* hand-ins of one student */
#define SHOWN_MAX 120u		/* bytes of a name quoted in a message */
#define CLASS_MAX_TARS_ALL 100000u	/* hand-ins of one class */

/* ustar header offsets. */
#define H_NAME 0
#define H_MODE 100
#define H_UID 108
#define H_GID 116
#define H_SIZE 124
#define H_MTIME 136
#define H_CHKSUM 148
#define H_TYPE 156
#define H_LINK 157
#define H_MAGIC 257
#define H_VERSION 263
#define H_PREFIX 345

/* ---- Paths ----------------------------------------------------------------------------------- */

/*
 * A path a hand-in may hold: "progress.json", or "<lab>/<bare name>" with
 * the name as an exercise manifest allows (grade_file_name_ok(): no '/', no
 * leading '.', at most 64 bytes of [A-Za-z0-9_.-]).
 */
static bool path_ok(const char *lab, const char *path)
{
	size_t n = strlen(lab);

	if (!strcmp(path, GRADE_HANDIN_PROGRESS))
		return true;
	return !strncmp(path, lab, n) && path[n] == '/' && grade_file_name_ok(path + n + 1);
}

/* @s (@len bytes, any content) quoted for a message: printable ASCII, the rest as \xNN. */
static void shown(char *out, size_t size, const char *s, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 8 < size; i++) {
		unsigned char c = (unsigned char)s[i];

		if (o >= SHOWN_MAX) {
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
		if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'')
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
	}
	out[o] = '\0';
}

static int now_rfc3339(char **out)
{
	struct tm tm;
	time_t t = time(NULL);
	char buf[32];

	if (!gmtime_r(&t, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return -EINVAL;
	*out = strdup(buf);
	return *out ? 0 : -ENOMEM;
}

/* "YYYY-MM-DDTHH:MM:SSZ": what the writer puts in "created" (and compares as a string). */
static bool rfc3339_ok(const char *s)
{
	static const char form[] = "dddd-dd-ddTdd:dd:ddZ";

	if (strlen(s) != sizeof(form) - 1)
		return false;
	for (size_t i = 0; form[i]; i++)
		if (form[i] == 'd' ? !(s[i] >= '0' && s[i] <= '9') : s[i] != form[i])
			return false;
	return true;
}

/* ---- Making a hand-in ------------------------------------------------------------------------ */

int grade_handin_init(struct grade_handin *h, const char *lab)
{
	memset(h, 0, sizeof(*h));
	if (!lab || !lab_find(lab))
		return -ENOENT;
	h->lab = strdup(lab);
	if (!h->lab || now_rfc3339(&h->created)) {
		grade_handin_fini(h);
		return -ENOMEM;
	}
	return 0;
}

void grade_handin_fini(struct grade_handin *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->nfiles; i++) {
		free(h->files[i].path);
		free(h->files[i].from);
		free(h->files[i].data);
	}
	free(h->files);
	for (size_t i = 0; i < h->nmissing; i++)
		free(h->missing[i]);
	free(h->missing);
	free(h->lab);
	free(h->created);
	free(h->work);
	free(h->results_why);
	memset(h, 0, sizeof(*h));
}

int grade_handin_add(struct grade_handin *h, const char *path, const void *data, size_t len,
		     long long mtime, char **cause)
{
	struct grade_handin_file *v, *f;
	size_t total = len;

	if (!path_ok(h->lab, path))
		return rt_err(cause, -EINVAL, "'%s' is not a path a hand-in of %s may hold", path,
			      h->lab);
	for (size_t i = 0; i < h->nfiles; i++) {
		if (!strcmp(h->files[i].path, path))
			return rt_err(cause, -EINVAL, "%s: in the hand-in twice", path);
		total += h->files[i].size;
	}
	if (len > GRADE_HANDIN_FILE_MAX)
		return rt_err(cause, -EFBIG, "%s: %zu bytes, over the %u a hand-in file may have",
			      path, len, GRADE_HANDIN_FILE_MAX);
	if (total > GRADE_HANDIN_TOTAL_MAX - GRADE_HANDIN_MANIFEST_MAX)
		return rt_err(cause, -EFBIG, "%s: the hand-in would be larger than %u bytes", path,
			      GRADE_HANDIN_TOTAL_MAX - GRADE_HANDIN_MANIFEST_MAX);
	if (h->nfiles + 1 >= GRADE_HANDIN_MAX_ENTRIES)
		return rt_err(cause, -E2BIG, "%s: more than %u files", path,
			      GRADE_HANDIN_MAX_ENTRIES - 1);
	v = realloc(h->files, (h->nfiles + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	h->files = v;
	f = &v[h->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	f->data = malloc(len ? len : 1);
	if (!f->path || !f->data) {
		free(f->path);
		free(f->data);
		return -ENOMEM;
	}
	memcpy(f->data, data, len);
	f->size = len;
	f->mtime = mtime < 0 ? 0 : mtime > MTIME_MAX ? MTIME_MAX : mtime;
	rt_sha256_hex(data, len, f->sha256);
	h->nfiles++;
	return 0;
}

static int missing(struct grade_handin *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int missing(struct grade_handin *h, const char *fmt, ...)
{
	char **v, *line = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	v = realloc(h->missing, (h->nmissing + 1) * sizeof(*v));
	if (!v) {
		free(line);
		return -ENOMEM;
	}
	h->missing = v;
	v[h->nmissing++] = line;
	return 0;
}

/*
 * Read @path for packing: a regular file of at most GRADE_HANDIN_FILE_MAX
 * bytes (RT_FILE_NOFOLLOW in @flags: not a link). 0, or a negative errno
 * with @why (caller frees).
 */
static int read_packed(const char *path, unsigned int flags, char **data, size_t *len,
		       long long *mtime, char **why)
{
	struct stat st;
	size_t got = 0;
	char *buf = NULL;
	int fd, ret = 0;

	*data = NULL;
	fd = rt_file_open_read(path, flags, GRADE_HANDIN_FILE_MAX, why);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st)) {
		ret = rt_err(why, -errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	buf = malloc(GRADE_HANDIN_FILE_MAX + 1);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	for (;;) {
		ssize_t r = read(fd, buf + got, GRADE_HANDIN_FILE_MAX + 1 - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = rt_err(why, -errno, "%s: %s", path, strerror(errno));
			goto out;
		}
		if (!r)
			break;
		got += (size_t)r;
		if (got > GRADE_HANDIN_FILE_MAX) {
			ret = rt_err(why, -EFBIG, "%s: larger than %u bytes", path,
				     GRADE_HANDIN_FILE_MAX);
			goto out;
		}
	}
	*data = buf;
	buf = NULL;
	*len = got;
	*mtime = (long long)st.st_mtim.tv_sec;
out:
	free(buf);
	close(fd);
	return ret;
}

/* Say in @h->missing why @path (@what) is not packed as @inside. 0 or -ENOMEM. */
static int not_packed(struct grade_handin *h, const char *inside, const char *path,
		      const char *what, int err, const char *why)
{
	if (err == -ELOOP)
		return missing(h, "%s: %s is a symbolic link: not packed (hand in the file itself)",
			       inside, path);
	if (err == -EFBIG)
		return missing(h, "%s: %s is larger than the %u bytes a hand-in file may have: "
			       "not packed", inside, what, GRADE_HANDIN_FILE_MAX);
	return missing(h, "%s: %s: not packed", inside, why ? why : strerror(-err));
}

/* Pack @path as @inside, or say in @h->missing why not. 1 packed, 0 not, -ENOMEM. */
static int pack(struct grade_handin *h, const char *path, unsigned int flags,
		const char *inside, const char *what)
{
	char *data = NULL, *why = NULL;
	long long mtime = 0;
	size_t len = 0;
	int ret;

	ret = read_packed(path, flags, &data, &len, &mtime, &why);
	if (!ret)
		ret = grade_handin_add(h, inside, data, len, mtime, &why);
	if (!ret && !(h->files[h->nfiles - 1].from = strdup(path)))
		ret = -ENOMEM;
	free(data);
	if (ret && ret != -ENOMEM)
		ret = not_packed(h, inside, path, what, ret, why);
	else if (!ret)
		ret = 1;
	free(why);
	return ret;
}

/* The exercise's sources from the working copy. */
static int collect_code(struct grade_handin *h, char **cause)
{
	struct grade_exercise ex;
	struct stat st;
	size_t packed = 0;
	int ret;

	ret = grade_exercise_find(&ex, h->lab, cause);
	if (ret)
		return ret;
	h->work = grade_work_dir(h->lab);
	if (!h->work) {
		ret = rt_err(cause, -errno, "no working copy of %s: %s", h->lab, strerror(errno));
		goto out;
	}
	if (lstat(h->work, &st) || !S_ISDIR(st.st_mode)) {
		ret = missing(h, "no working copy of %s's exercise (%s): run `rtlab lab start %s` "
			      "first and write the code there", h->lab, h->work, h->lab);
		goto out;
	}
	for (size_t i = 0; i < ex.m.sources.n && !ret; i++) {
		char *path = NULL, *inside = NULL;

		if (asprintf(&path, "%s/%s", h->work, ex.m.sources.v[i]) < 0)
			path = NULL;
		if (asprintf(&inside, "%s/%s", h->lab, ex.m.sources.v[i]) < 0)
			inside = NULL;
		if (!path || !inside)
			ret = -ENOMEM;
		else if (access(path, F_OK) && errno == ENOENT)
			ret = missing(h, "%s: not in the working copy %s (`rtlab lab reset %s` "
				      "starts afresh)", inside, h->work, h->lab);
		else if ((ret = pack(h, path, RT_FILE_NOFOLLOW, inside, "the source")) > 0)
			packed++;
		ret = ret < 0 ? ret : 0;
		free(path);
		free(inside);
	}
	h->code = !ret && packed == ex.m.sources.n;
out:
	grade_exercise_fini(&ex);
	return ret;
}

/* The progress file, and the results document `rtlab grade LAB` would grade (lab_pick). */
static int collect_state(struct grade_handin *h, char **cause)
{
	char *ppath = rt_progress_default_path(), *text = NULL, *why = NULL, *res = NULL;
	struct rt_progress *p = NULL;
	struct lab_pick pick = { 0 };
	char inside[128];
	long long mtime = 0;
	size_t len = 0;
	int ret, r;

	if (!ppath)
		return rt_err(cause, -errno, "no state folder: %s", strerror(errno));
	r = read_packed(ppath, RT_FILE_NOFOLLOW, &text, &len, &mtime, &why);
	if (!r && rt_progress_parse(text, len, ppath, &p, &why))
		p = NULL;
	ret = r == -ENOMEM ? r : lab_pick_learner(lab_find(h->lab), &pick);
	if (ret)
		goto out;
	res = pick.path;
	h->results_why = pick.why;
	pick.path = pick.why = NULL;

	/* The document `rtlab grade LAB` grades; one the learner named (--json) is followed. */
	snprintf(inside, sizeof(inside), "%s/%s", h->lab, GRADE_HANDIN_RESULTS);
	if (!res)
		ret = missing(h, "no results document yet: run `rtlab lab run %s` first", h->lab);
	else if ((ret = pack(h, res, 0, inside, "the results document")) > 0)
		h->results = true;
	if (ret < 0)
		goto out;

	if (r == -ENOENT)
		ret = missing(h, "no progress file yet (%s): no quiz answers in the hand-in", ppath);
	else if (r)
		ret = not_packed(h, GRADE_HANDIN_PROGRESS, ppath, "the progress file", r, why);
	else if (!p)
		ret = missing(h, "%s: %s is not valid (%s): not packed", GRADE_HANDIN_PROGRESS,
			      ppath, why ? why : "?");
	else if ((ret = pack(h, ppath, RT_FILE_NOFOLLOW, GRADE_HANDIN_PROGRESS,
			     "the progress file")) > 0)
		h->progress = true;
	ret = ret < 0 ? ret : 0;
out:
	free(why);
	free(text);
	free(res);
	free(ppath);
	rt_progress_free(p);
	return ret;
}

int grade_handin_collect(struct grade_handin *h, const char *lab, char **cause)
{
	int ret = grade_handin_init(h, lab);

	if (ret == -ENOENT)
		return rt_err(cause, ret, "no lab called '%s' (see `rtlab lab list`)", lab);
	if (ret)
		return ret;
	h->exercise = grade_exercise_exists(lab);
	if (h->exercise) {
		ret = collect_code(h, cause);
		if (ret)
			return ret;
	}
	return collect_state(h, cause);
}

/* rtlab.handin/1, the hand-in's manifest, declared once for `rtlab schema` (doc/handin.md). */
static const struct rt_key handin_file_keys[] = {
	RT_KEY("path", RT_T_STRING, NULL, "the file's path in the archive", true),
	RT_KEY("size", RT_T_INTEGER, "bytes", "its size", true),
	RT_KEY("sha256", RT_T_STRING, NULL, "its SHA-256", true, .pattern = "^[0-9a-f]{64}$"),
	RT_KEY_END,
};
static const struct rt_keys handin_file_table = { .keys = handin_file_keys };
static const struct rt_key handin_keys[] = {
	RT_KEY("schema", RT_T_STRING, NULL, "`rtlab.handin/1`", true),
	RT_KEY("lab", RT_T_STRING, NULL, "the lab handed in", true),
	RT_KEY("rtlab_version", RT_T_STRING, NULL, "the rtlab that packed it", true),
	RT_KEY("created", RT_T_STRING, NULL, "RFC 3339 UTC time it was packed", true),
	RT_KEY("files", RT_T_ARRAY, NULL, "every file in the archive", true,
	       .of = &handin_file_table),
	RT_KEY_END,
};
static const struct rt_keys handin_table = { .keys = handin_keys };

json_t *grade_handin_schema(void)
{
	return rt_keys_document(GRADE_HANDIN_SCHEMA, "rtlab hand-in manifest", &handin_table, 0);
}

json_t *grade_handin_manifest(const struct grade_handin *h)
{
	json_t *files = json_array(), *m;

	for (size_t i = 0; files && i < h->nfiles; i++) {
		const struct grade_handin_file *f = &h->files[i];

		if (json_array_append_new(files, json_pack("{s:s, s:I, s:s}", "path", f->path,
							   "size", (json_int_t)f->size,
							   "sha256", f->sha256))) {
			json_decref(files);
			return NULL;
		}
	}
	if (!files)
		return NULL;
	m = json_pack("{s:s, s:s, s:s, s:s, s:o}", "schema", GRADE_HANDIN_SCHEMA, "lab", h->lab,
		      "rtlab_version", RT_VERSION, "created", h->created, "files", files);
	return m;
}

/* ---- Writing the archive --------------------------------------------------------------------- */

/* @v in @width - 1 octal digits and a NUL, as ustar's numeric fields are. */
static void octal(unsigned char *field, size_t width, unsigned long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%0*llo", (int)(width - 1), v);
	memcpy(field, buf, width - 1);
	field[width - 1] = '\0';
}

static unsigned int header_sum(const unsigned char *h)
{
	unsigned int sum = 0;

	for (size_t i = 0; i < BLOCK; i++)
		sum += (i >= H_CHKSUM && i < H_CHKSUM + 8) ? ' ' : h[i];
	return sum;
}

static int tar_entry(struct rt_buf *out, const char *path, const void *data, size_t len,
		     long long mtime, char **cause)
{
	static const unsigned char zeros[BLOCK];
	unsigned char h[BLOCK] = { 0 };
	size_t n = strlen(path);

	if (n > NAME_LEN)
		return rt_err(cause, -ENAMETOOLONG, "%s: a name longer than %u bytes", path,
			      NAME_LEN);
	memcpy(h + H_NAME, path, n);
	octal(h + H_MODE, 8, 0644);
	octal(h + H_UID, 8, 0);
	octal(h + H_GID, 8, 0);
	octal(h + H_SIZE, 12, len);
	octal(h + H_MTIME, 12, (unsigned long long)mtime);
	h[H_TYPE] = '0';
	memcpy(h + H_MAGIC, "ustar", 6);	/* its NUL too */
	memcpy(h + H_VERSION, "00", 2);
	snprintf((char *)h + H_CHKSUM, 8, "%06o", header_sum(h));
	h[H_CHKSUM + 7] = ' ';
	if (rt_buf_append(out, h, BLOCK) || rt_buf_append(out, data, len) ||
	    rt_buf_append(out, zeros, (BLOCK - len % BLOCK) % BLOCK))
		return -ENOMEM;
	return 0;
}

int grade_handin_tar(const struct grade_handin *h, struct rt_buf *out, char **cause)
{
	static const unsigned char zeros[2 * BLOCK];
	json_t *m = grade_handin_manifest(h);
	char *text = m ? rt_json_dumps(m, NULL) : NULL;
	long long newest = 0;
	size_t before = out->len;
	int ret;

	json_decref(m);
	if (!text)
		return -ENOMEM;
	for (size_t i = 0; i < h->nfiles; i++)
		newest = h->files[i].mtime > newest ? h->files[i].mtime : newest;
	ret = tar_entry(out, GRADE_HANDIN_MANIFEST, text, strlen(text), newest, cause);
	for (size_t i = 0; i < h->nfiles && !ret; i++)
		ret = tar_entry(out, h->files[i].path, h->files[i].data, h->files[i].size,
				h->files[i].mtime, cause);
	if (!ret && rt_buf_append(out, zeros, sizeof(zeros)))
		ret = -ENOMEM;
	free(text);
	if (ret) {
		out->len = before;
		if (out->data)
			out->data[before] = '\0';
	}
	return ret;
}

int grade_handin_save(const struct grade_handin *h, const char *path, bool replace,
		      char **cause)
{
	struct rt_buf b = RT_BUF_INIT;
	char *tmp = NULL;
	int fd = -1, ret;

	ret = grade_handin_tar(h, &b, cause);
	if (ret)
		goto out;
	if (replace) {
		ret = rt_file_write_atomic(path, b.data, b.len, 0644, cause);
		goto out;
	}
	/* Never replacing: a file of our own next to it, renamed without replacing. */
	if (asprintf(&tmp, "%s.%d.tmp", path, (int)getpid()) < 0) {
		tmp = NULL;
		ret = -ENOMEM;
		goto out;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = rt_err(cause, -errno, "%s: %s", tmp, strerror(errno));
		free(tmp);
		tmp = NULL;
		goto out;
	}
	ret = rt_write_all(fd, b.data, b.len);
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (ret) {
		ret = rt_err(cause, ret, "%s: %s", tmp, strerror(-ret));
		goto out;
	}
	ret = rt_file_rename_noreplace(tmp, path);
	if (ret == -EEXIST)
		ret = rt_err(cause, ret, "%s: exists; not replaced", path);
	else if (ret)
		ret = rt_err(cause, ret, "%s: %s", path, strerror(-ret));
	if (!ret) {
		free(tmp);
		tmp = NULL;
		rt_fsync_parent(path);
	}
out:
	if (tmp)
		unlink(tmp);
	free(tmp);
	rt_buf_fini(&b);
	return ret;
}

/* ---- Reading an archive ---------------------------------------------------------------------- */

/* A file the manifest lists. */
struct listed {
	char *path;		/* owned */
	size_t size;
	char sha256[RT_SHA256_HEX];
	size_t off;		/* its data in the archive, once seen */
	long long mtime;
	bool seen;
};

/* An archive being judged. */
struct hin {
	const char *what;		/* borrowed: its name in messages */
	const unsigned char *data;	/* borrowed: the whole archive */
	size_t len;
	char *lab;			/* owned, from the manifest */
	char *created;			/* owned */
	struct listed files[GRADE_HANDIN_MAX_ENTRIES];
	size_t nfiles;
};

static void hin_fini(struct hin *a)
{
	for (size_t i = 0; i < a->nfiles; i++)
		free(a->files[i].path);
	free(a->lab);
	free(a->created);
}

static int refuse(const struct hin *a, char **cause, const char *name, size_t nlen,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* "WHAT: entry 'NAME': MESSAGE: refused" (without the entry when @name is NULL). -EINVAL. */
static int refuse(const struct hin *a, char **cause, const char *name, size_t nlen,
		  const char *fmt, ...)
{
	char q[4 * SHOWN_MAX + 16], *msg = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return rt_err(cause, -EINVAL, "%s: refused", a->what);
	if (name) {
		shown(q, sizeof(q), name, nlen);
		rt_err(cause, -EINVAL, "%s: entry '%s': %s: refused", a->what, q, msg);
	} else {
		rt_err(cause, -EINVAL, "%s: %s: refused", a->what, msg);
	}
	free(msg);
	return -EINVAL;
}

/*
 * An octal field: optional leading spaces, digits 0-7, then NULs or spaces
 * to its end. -1 for anything else (base-256 too: -2), or a value over @max.
 */
static long long parse_octal(const unsigned char *f, size_t width, unsigned long long max)
{
	unsigned long long v = 0;
	size_t i = 0;
	bool digits = false;

	if (f[0] & 0x80)
		return -2;
	while (i < width && f[i] == ' ')
		i++;
	for (; i < width && f[i] >= '0' && f[i] <= '7'; i++) {
		v = v * 8 + (unsigned long long)(f[i] - '0');
		digits = true;
		if (v > max)
			return -1;
	}
	for (; i < width; i++)
		if (f[i] != '\0' && f[i] != ' ')
			return -1;
	return digits ? (long long)v : -1;
}

static bool all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static const char *type_refused(unsigned char t)
{
	switch (t) {
	case '1': return "a hard link";
	case '2': return "a symbolic link";
	case '3': return "a character device";
	case '4': return "a block device";
	case '6': return "a FIFO";
	case '7': return "a contiguous file (not a plain file)";
	case 'x': return "a pax extended header (not understood)";
	case 'g': return "a pax global header (not understood)";
	case 'L': return "a GNU long-name header (not understood)";
	case 'K': return "a GNU long-link header (not understood)";
	default:
		return t >= 'A' && t <= 'Z' ? "a vendor extension header (not understood)" :
		       "an entry of an unknown type";
	}
}

static bool hex64(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return i == 64;
}

static bool printable(const char *s, size_t max)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			return false;
	return i && i <= max;
}

/* The manifest's text (the first entry), strictly: known fields only, every one checked. */
static int parse_manifest(struct hin *a, const unsigned char *text, size_t len, char **cause)
{
	static const char *const fields[] = { "schema", "lab", "rtlab_version", "created",
					      "files", NULL };
	json_t *m = NULL, *v, *files;
	const char *key;
	char *why = NULL;
	int ret = 0;
	size_t i;

	if (rt_json_load((const char *)text, len, GRADE_HANDIN_MANIFEST, &m, &why)) {
		ret = refuse(a, cause, NULL, 0, "the manifest is not JSON (%s)", why ? why : "?");
		goto out;
	}
	if (!json_is_object(m)) {
		ret = refuse(a, cause, NULL, 0, "the manifest is not a JSON object");
		goto out;
	}
	json_object_foreach(m, key, v) {
		for (i = 0; fields[i] && strcmp(fields[i], key); i++)
			;
		if (!fields[i]) {
			char q[4 * SHOWN_MAX + 16];

			shown(q, sizeof(q), key, strlen(key));
			ret = refuse(a, cause, NULL, 0, "the manifest has an unknown field '%s'", q);
			goto out;
		}
	}
	v = json_object_get(m, "schema");
	if (!json_is_string(v) || strcmp(json_string_value(v), GRADE_HANDIN_SCHEMA)) {
		ret = refuse(a, cause, NULL, 0, "the manifest's schema is not %s",
			     GRADE_HANDIN_SCHEMA);
		goto out;
	}
	v = json_object_get(m, "lab");
	if (!json_is_string(v) || !printable(json_string_value(v), 64)) {
		ret = refuse(a, cause, NULL, 0, "the manifest names no lab");
		goto out;
	}
	if (!lab_find(json_string_value(v))) {
		ret = refuse(a, cause, NULL, 0, "the manifest's lab '%s' is not a lab of this rtlab",
			     json_string_value(v));
		goto out;
	}
	a->lab = strdup(json_string_value(v));
	v = json_object_get(m, "rtlab_version");
	if (!json_is_string(v) || !printable(json_string_value(v), 64)) {
		ret = refuse(a, cause, NULL, 0, "the manifest's rtlab_version is missing or not "
			     "a version");
		goto out;
	}
	v = json_object_get(m, "created");
	if (!json_is_string(v) || !rfc3339_ok(json_string_value(v))) {
		ret = refuse(a, cause, NULL, 0, "the manifest's created is missing or not "
			     "YYYY-MM-DDTHH:MM:SSZ");
		goto out;
	}
	a->created = strdup(json_string_value(v));
	if (!a->lab || !a->created) {
		ret = -ENOMEM;
		goto out;
	}
	files = json_object_get(m, "files");
	if (!json_is_array(files) || json_array_size(files) >= GRADE_HANDIN_MAX_ENTRIES) {
		ret = refuse(a, cause, NULL, 0, "the manifest's files are missing, not a list or "
			     "more than %u", GRADE_HANDIN_MAX_ENTRIES - 1);
		goto out;
	}
	json_array_foreach(files, i, v) {
		json_t *p = json_object_get(v, "path"), *s = json_object_get(v, "size"),
		       *h = json_object_get(v, "sha256");
		struct listed *f = &a->files[a->nfiles];
		const char *path = json_string_value(p);

		if (!json_is_object(v) || json_object_size(v) != 3 || !json_is_string(p) ||
		    !json_is_integer(s) || !json_is_string(h)) {
			ret = refuse(a, cause, NULL, 0, "the manifest's files[%zu] is not {path, "
				     "size, sha256} (no other field)", i);
			goto out;
		}
		if (!path_ok(a->lab, path)) {
			char q[4 * SHOWN_MAX + 16];

			shown(q, sizeof(q), path, strlen(path));
			ret = refuse(a, cause, NULL, 0, "the manifest lists '%s', not a path a "
				     "hand-in of %s may hold", q, a->lab);
			goto out;
		}
		for (size_t k = 0; k < a->nfiles; k++)
			if (!strcmp(a->files[k].path, path)) {
				ret = refuse(a, cause, NULL, 0, "the manifest lists '%s' twice",
					     path);
				goto out;
			}
		if (json_integer_value(s) < 0 ||
		    json_integer_value(s) > (json_int_t)GRADE_HANDIN_FILE_MAX) {
			ret = refuse(a, cause, NULL, 0, "the manifest's size of '%s' is not "
				     "0..%u", path, GRADE_HANDIN_FILE_MAX);
			goto out;
		}
		if (!hex64(json_string_value(h))) {
			ret = refuse(a, cause, NULL, 0, "the manifest's sha256 of '%s' is not 64 "
				     "lower-case hex digits", path);
			goto out;
		}
		f->path = strdup(path);
		if (!f->path) {
			ret = -ENOMEM;
			goto out;
		}
		f->size = (size_t)json_integer_value(s);
		memcpy(f->sha256, json_string_value(h), RT_SHA256_HEX);
		a->nfiles++;
	}
out:
	free(why);
	json_decref(m);
	return ret;
}

/*
 * Judge the whole archive in memory: every header, the manifest, every
 * file's size and digest. 0 when it may be unpacked, else -EINVAL or
 * -EFBIG with @cause.
 */
static int judge(struct hin *a, char **cause)
{
	unsigned int entries = 0;
	size_t off = 0, total = 0;
	bool manifest = false, lab_dir = false;
	int ret;

	for (;;) {
		const unsigned char *h = a->data + off;
		char name[PREFIX_LEN + 1 + NAME_LEN + 1];
		size_t nlen, plen = 0, size, k;
		long long sum, v;
		bool posix;

		if (a->len - off < BLOCK)
			return refuse(a, cause, NULL, 0, "truncated: %s", off == a->len ?
				      "no end-of-archive block" : "it ends inside a header");
		if (all_zero(h, BLOCK))
			break;
		if (++entries > GRADE_HANDIN_MAX_ENTRIES)
			return refuse(a, cause, NULL, 0, "more than %u entries",
				      GRADE_HANDIN_MAX_ENTRIES);
		/* The name first, so that every message can say which entry. */
		nlen = strnlen((const char *)h + H_NAME, NAME_LEN);
		posix = !memcmp(h + H_MAGIC, "ustar\0" "00", 8);
		if (posix)
			plen = strnlen((const char *)h + H_PREFIX, PREFIX_LEN);
		if (plen) {
			memcpy(name, h + H_PREFIX, plen);
			name[plen] = '/';
			memcpy(name + plen + 1, h + H_NAME, nlen);
			nlen += plen + 1;
		} else {
			memcpy(name, h + H_NAME, nlen);
		}
		name[nlen] = '\0';
		/* The unsigned sum; an old tar's signed one is accepted too. */
		sum = parse_octal(h + H_CHKSUM, 8, 255u * BLOCK);
		if (sum < 0 || sum != (long long)header_sum(h)) {
			long long sv = 0;

			for (k = 0; k < BLOCK; k++)
				sv += (k >= H_CHKSUM && k < H_CHKSUM + 8) ? ' ' :
				      (signed char)h[k];
			if (sum < 0 || sum != sv)
				return refuse(a, cause, name, nlen, "its header checksum does not "
					      "match (a damaged or forged header)");
		}
		if (!posix && memcmp(h + H_MAGIC, "ustar  \0", 8))
			return refuse(a, cause, name, nlen, "not a ustar header");
		if (!nlen)
			return refuse(a, cause, name, nlen, "an empty name");
		for (k = 0; k < nlen; k++)
			if ((unsigned char)name[k] < 0x20 || (unsigned char)name[k] >= 0x7f)
				return refuse(a, cause, name, nlen, "a name that is not printable "
					      "ASCII");
		if (name[0] == '/')
			return refuse(a, cause, name, nlen, "an absolute path");
		for (const char *c = name; c; c = strchr(c, '/'), c = c ? c + 1 : NULL)
			if (!strncmp(c, "..", 2) && (c[2] == '/' || !c[2]))
				return refuse(a, cause, name, nlen, "a path outside the hand-in");
		if (h[H_TYPE] != '0' && h[H_TYPE] != '\0' && h[H_TYPE] != '5') {
			char target[4 * SHOWN_MAX + 16];

			if (h[H_TYPE] != '1' && h[H_TYPE] != '2')
				return refuse(a, cause, name, nlen, "%s", type_refused(h[H_TYPE]));
			shown(target, sizeof(target), (const char *)h + H_LINK,
			      strnlen((const char *)h + H_LINK, NAME_LEN));
			return refuse(a, cause, name, nlen, "%s (to '%s')",
				      type_refused(h[H_TYPE]), target);
		}
		v = parse_octal(h + H_SIZE, 12, (unsigned long long)INT64_MAX);
		if (v == -2)
			return refuse(a, cause, name, nlen, "a size in base-256 (over 8 GiB)");
		if (v < 0)
			return refuse(a, cause, name, nlen, "a size field that is not octal");
		if ((unsigned long long)v > GRADE_HANDIN_FILE_MAX)
			return refuse(a, cause, name, nlen, "%lld bytes, over the %u a hand-in file "
				      "may have", v, GRADE_HANDIN_FILE_MAX);
		size = (size_t)v;
		total += size;
		if (total > GRADE_HANDIN_TOTAL_MAX) {
			refuse(a, cause, name, nlen, "the files total over %u bytes",
			       GRADE_HANDIN_TOTAL_MAX);
			return -EFBIG;
		}
		if (a->len - off - BLOCK < size)
			return refuse(a, cause, name, nlen, "truncated: the archive ends inside its "
				      "%zu bytes", size);
		if (!manifest) {
			if (h[H_TYPE] == '5' || strcmp(name, GRADE_HANDIN_MANIFEST))
				return refuse(a, cause, NULL, 0, "no manifest: the first entry is "
					      "'%s', not %s", name, GRADE_HANDIN_MANIFEST);
			if (size > GRADE_HANDIN_MANIFEST_MAX)
				return refuse(a, cause, name, nlen, "a manifest over %u bytes",
					      GRADE_HANDIN_MANIFEST_MAX);
			ret = parse_manifest(a, h + BLOCK, size, cause);
			if (ret)
				return ret;
			manifest = true;
		} else if (h[H_TYPE] == '5') {
			size_t n = strlen(a->lab);

			if (strncmp(name, a->lab, n) || (name[n] && strcmp(name + n, "/")))
				return refuse(a, cause, name, nlen, "a folder other than '%s/'",
					      a->lab);
			if (lab_dir)
				return refuse(a, cause, name, nlen, "the folder twice");
			if (size)
				return refuse(a, cause, name, nlen, "a folder with data");
			lab_dir = true;
		} else {
			struct listed *f = NULL;
			char digest[RT_SHA256_HEX];

			for (k = 0; k < a->nfiles && !f; k++)
				if (!strcmp(a->files[k].path, name))
					f = &a->files[k];
			if (!f)
				return refuse(a, cause, name, nlen, "not listed in the manifest");
			if (f->seen)
				return refuse(a, cause, name, nlen, "in the archive twice");
			if (f->size != size)
				return refuse(a, cause, name, nlen, "%zu bytes where the manifest says "
					      "%zu", size, f->size);
			rt_sha256_hex(h + BLOCK, size, digest);
			if (strcmp(digest, f->sha256))
				return refuse(a, cause, name, nlen, "its SHA-256 does not match the "
					      "manifest's (changed after packing)");
			f->seen = true;
			f->off = off + BLOCK;
			v = parse_octal(h + H_MTIME, 12, (unsigned long long)MTIME_MAX);
			f->mtime = v < 0 ? 0 : v;
		}
		off += BLOCK + (size + BLOCK - 1) / BLOCK * BLOCK;
		if (off > a->len)
			return refuse(a, cause, NULL, 0, "truncated: the archive ends inside the "
				      "padding of '%s'", name);
	}
	if (!manifest)
		return refuse(a, cause, NULL, 0, "no manifest: an empty archive");
	if (!all_zero(a->data + off, a->len - off))
		return refuse(a, cause, NULL, 0, "data after the end of the archive");
	for (size_t k = 0; k < a->nfiles; k++)
		if (!a->files[k].seen)
			return refuse(a, cause, a->files[k].path, strlen(a->files[k].path),
				      "listed in the manifest but not in the archive (truncated?)");
	return 0;
}

/* ---- Unpacking ------------------------------------------------------------------------------- */

static int write_one(int dirfd, const char *base, const unsigned char *data, size_t len,
		     long long mtime)
{
	struct timespec ts[2] = { { .tv_sec = (time_t)mtime }, { .tv_sec = (time_t)mtime } };
	int fd, ret;

	fd = openat(dirfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ret = rt_write_all(fd, data, len);
	if (!ret && futimens(fd, ts))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

/*
 * Write @a's files under @dest. Everything written is removed again when a
 * write fails, so the destination is as it was. 0 or a negative errno with
 * @cause.
 */
static int unpack_files(const struct hin *a, const char *dest, char **cause)
{
	bool made[GRADE_HANDIN_MAX_ENTRIES] = { false }, lab_made = false;
	int dfd, lfd = -1, ret = 0;
	size_t i;

	dfd = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return rt_err(cause, -errno, "%s: %s", dest, strerror(errno));
	for (i = 0; i < a->nfiles && !ret; i++) {
		const struct listed *f = &a->files[i];
		const char *slash = strchr(f->path, '/');
		int at = dfd;

		if (slash && lfd < 0) {
			if (!mkdirat(dfd, a->lab, 0755))
				lab_made = true;
			else if (errno != EEXIST)
				ret = -errno;
			lfd = ret ? -1 : openat(dfd, a->lab, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
						O_CLOEXEC);
			if (!ret && lfd < 0)
				ret = -errno;
			if (ret) {
				ret = rt_err(cause, ret, "%s/%s: %s", dest, a->lab, strerror(-ret));
				break;
			}
		}
		if (slash)
			at = lfd;
		ret = write_one(at, slash ? slash + 1 : f->path, a->data + f->off, f->size,
				f->mtime);
		if (ret)
			ret = rt_err(cause, ret, "%s/%s: %s", dest, f->path, strerror(-ret));
		else
			made[i] = true;
	}
	if (ret) {
		for (i = 0; i < a->nfiles; i++) {
			const char *slash = strchr(a->files[i].path, '/');

			if (made[i])
				unlinkat(slash ? lfd : dfd, slash ? slash + 1 : a->files[i].path, 0);
		}
		if (lab_made)
			unlinkat(dfd, a->lab, AT_REMOVEDIR);
	}
	if (lfd >= 0)
		close(lfd);
	close(dfd);
	return ret;
}

/* Read the archive @path (a link followed only with @follow) into memory. */
static int load_tar(const char *path, const char *what, bool follow, unsigned char **data,
		    size_t *len, char **cause)
{
	char *text = NULL, *why = NULL;
	int ret;

	ret = rt_file_load(path, follow ? 0 : RT_FILE_NOFOLLOW, GRADE_HANDIN_TAR_MAX, &text, len,
			   &why);
	if (ret == -EFBIG)
		ret = rt_err(cause, ret, "%s: larger than any hand-in (%u bytes): refused", what,
			     GRADE_HANDIN_TAR_MAX);
	else if (ret == -ELOOP)
		ret = rt_err(cause, ret, "%s: a symbolic link: not followed", what);
	else if (ret)
		ret = rt_err(cause, ret, "%s", why ? why : strerror(-ret));
	free(why);
	*data = (unsigned char *)text;
	return ret;
}

/* What unpack() found, for class mode. */
struct unpacked {
	char *lab;		/* owned */
	char *created;		/* owned */
	bool write_failed;	/* the destination failed, not the archive */
};

static int unpack(const char *path, const char *what, bool follow, const char *dest,
		  struct unpacked *u, char **cause)
{
	struct hin a = { .what = what };
	unsigned char *data = NULL;
	int ret;

	memset(u, 0, sizeof(*u));
	ret = load_tar(path, what, follow, &data, &a.len, cause);
	if (ret)
		goto out;
	a.data = data;
	ret = judge(&a, cause);
	if (ret)
		goto out;
	ret = unpack_files(&a, dest, cause);
	if (ret) {
		u->write_failed = true;
		goto out;
	}
	u->lab = a.lab;
	u->created = a.created;
	a.lab = a.created = NULL;
out:
	hin_fini(&a);
	free(data);
	return ret;
}

int grade_handin_unpack(const char *tar_path, const char *dest_dir, char **lab_out,
			char **cause)
{
	struct unpacked u;
	int ret = unpack(tar_path, tar_path, true, dest_dir, &u, cause);

	if (!ret && lab_out) {
		*lab_out = u.lab;
		u.lab = NULL;
	}
	free(u.lab);
	free(u.created);
	return ret;
}

/* ---- A folder of hand-ins -------------------------------------------------------------------- */

struct tarref {
	char *student;		/* owned */
	char *path;		/* owned */
	char *shown;		/* owned: relative to the class folder */
	bool follow;		/* a link may be followed (the teacher's, at the top) */
};

struct kept {
	char *lab;		/* owned; NULL: the progress file */
	char *created;		/* owned */
	const char *shown;	/* borrowed from the tarref */
};

struct scan {
	struct tarref *v;
	size_t n, cap;
	struct rt_buf notes;	/* reported only when the folder holds any tar */
};

static bool has_tar_suffix(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && !strcmp(name + n - 4, ".tar");
}

/* A student's name from a file name: no '/', not hidden, no control character. */
static bool student_ok(const char *s)
{
	if (!*s || *s == '.' || strlen(s) > 255)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f || *s == '/')
			return false;
	return true;
}

static int note(struct scan *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int note(struct scan *s, const char *fmt, ...)
{
	char *line = NULL;
	va_list ap;
	int n, ret;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	ret = rt_buf_printf(&s->notes, "%s\n", line);
	free(line);
	return ret;
}

static int add_tar(struct scan *s, const char *student, const char *path, const char *shown_as,
		   bool follow)
{
	struct tarref *t;

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;

		t = realloc(s->v, cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		s->v = t;
		s->cap = cap;
	}
	t = &s->v[s->n];
	t->student = strdup(student);
	t->path = strdup(path);
	t->shown = strdup(shown_as);
	t->follow = follow;
	if (!t->student || !t->path || !t->shown) {
		free(t->student);
		free(t->path);
		free(t->shown);
		return -ENOMEM;
	}
	s->n++;
	return 0;
}

/* A student's folder: its *.tar files, or a note that it is a plain folder. */
static int scan_student(struct scan *s, const char *dir, const char *student)
{
	struct dirent **names = NULL;
	char *sdir = NULL;
	size_t tars = 0;
	int count, ret = 0;

	if (asprintf(&sdir, "%s/%s", dir, student) < 0)
		return -ENOMEM;
	count = scandir(sdir, &names, NULL, alphasort);
	if (count < 0) {
		ret = note(s, "%s/: %s: ignored", student, strerror(errno));
		free(sdir);
		return ret;
	}
	for (int i = 0; i < count; i++) {
		const char *n = names[i]->d_name;
		char *p = NULL, *rel = NULL;
		struct stat st;

		if (ret || n[0] == '.' || !has_tar_suffix(n))
			goto next;
		if (asprintf(&p, "%s/%s", sdir, n) < 0 || asprintf(&rel, "%s/%s", student, n) < 0) {
			ret = -ENOMEM;
			goto next;
		}
		if (lstat(p, &st))
			ret = note(s, "%s: %s: ignored", rel, strerror(errno));
		else if (S_ISLNK(st.st_mode))
			ret = note(s, "%s: a symbolic link inside a student's folder: not followed",
				   rel);
		else if (!S_ISREG(st.st_mode))
			ret = note(s, "%s: %s, not a hand-in: ignored", rel, rt_file_kind(st.st_mode));
		else if (tars >= CLASS_MAX_TARS)
			ret = note(s, "%s: more than %u hand-ins of one student: ignored", rel,
				   CLASS_MAX_TARS);
		else if (!(ret = add_tar(s, student, p, rel, false)))
			tars++;
next:
		free(p);
		free(rel);
		free(names[i]);
	}
	free(names);
	if (!ret && !tars)
		ret = note(s, "%s/: a plain folder next to hand-in tars: ignored (when the "
			   "class comes as tars, every student must)", student);
	free(sdir);
	return ret;
}

static int scan_class(struct scan *s, const char *dir, char **cause)
{
	struct dirent **names = NULL;
	int count, ret = 0;

	count = scandir(dir, &names, NULL, alphasort);
	if (count < 0)
		return rt_err(cause, -errno, "%s: %s", dir, strerror(errno));
	for (int i = 0; i < count; i++) {
		const char *n = names[i]->d_name;
		char *p = NULL, *student = NULL;
		struct stat st;

		if (ret || n[0] == '.' || s->n >= (size_t)CLASS_MAX_TARS_ALL)
			goto next;
		if (asprintf(&p, "%s/%s", dir, n) < 0) {
			ret = -ENOMEM;
			goto next;
		}
		/* At the top a link is the teacher's (as class mode follows it). */
		if (stat(p, &st))
			goto next;
		if (S_ISREG(st.st_mode) && has_tar_suffix(n)) {
			student = strndup(n, strlen(n) - 4);
			if (!student)
				ret = -ENOMEM;
			else if (!student_ok(student))
				ret = note(s, "%s: not a name a student can have: ignored", n);
			else
				ret = add_tar(s, student, p, n, true);
		} else if (S_ISDIR(st.st_mode)) {
			ret = student_ok(n) ? scan_student(s, dir, n) :
			      note(s, "%s/: not a name a student can have: ignored", n);
		}
next:
		free(student);
		free(p);
		free(names[i]);
	}
	free(names);
	return ret;
}

static int by_student(const void *x, const void *y)
{
	const struct tarref *a = x, *b = y;
	int c = strcmp(a->student, b->student);

	return c ? c : strcmp(a->shown, b->shown);
}

/*
 * Move @name (a lab's folder, or the progress file when @lab is NULL) of the
 * stage to the student's folder, keeping the newer of two. -errno on a
 * file-system failure.
 */
static int keep_newer(struct kept **kept, size_t *nkept, const char *stage, const char *sdir,
		      const char *lab, const struct unpacked *u, const char *shown_as,
		      struct rt_buf *report)
{
	const char *name = lab ? lab : GRADE_HANDIN_PROGRESS;
	char *from = NULL, *to = NULL;
	struct kept *k = NULL, *v;
	struct stat st;
	int ret = 0;

	if (asprintf(&from, "%s/%s", stage, name) < 0 || asprintf(&to, "%s/%s", sdir, name) < 0) {
		ret = -ENOMEM;
		goto out;
	}
	if (lstat(from, &st))
		goto out;	/* not in this hand-in */
	for (size_t i = 0; i < *nkept && !k; i++)
		if ((!lab && !(*kept)[i].lab) || (lab && (*kept)[i].lab &&
						  !strcmp((*kept)[i].lab, lab)))
			k = &(*kept)[i];
	if (k && strcmp(u->created, k->created) <= 0) {
		if (lab)
			ret = rt_buf_printf(report, "%s: an older hand-in of %s than %s: ignored\n",
					    shown_as, lab, k->shown);
		goto out;
	}
	if (k) {
		if (lab)
			ret = rt_buf_printf(report, "%s: an older hand-in of %s than %s: ignored\n",
					    k->shown, lab, shown_as);
		if (!ret)
			ret = grade_rm_rf(to);
		if (ret)
			goto out;
	} else {
		v = realloc(*kept, (*nkept + 1) * sizeof(*v));
		if (!v) {
			ret = -ENOMEM;
			goto out;
		}
		*kept = v;
		k = &v[(*nkept)++];
		memset(k, 0, sizeof(*k));
		if (lab && !(k->lab = strdup(lab))) {
			ret = -ENOMEM;
			goto out;
		}
	}
	free(k->created);
	k->created = strdup(u->created);
	k->shown = shown_as;
	if (!k->created)
		ret = -ENOMEM;
	else if (rename(from, to))
		ret = -errno;
out:
	free(from);
	free(to);
	return ret;
}

static void kept_free(struct kept *k, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(k[i].lab);
		free(k[i].created);
	}
	free(k);
}

/* Unpack one student's hand-ins, @t[0..n), into @out/<student>. */
static int class_student(const char *out, const struct tarref *t, size_t n,
			 struct rt_buf *report, char **cause)
{
	struct kept *kept = NULL;
	size_t nkept = 0;
	char *sdir = NULL, *stage = NULL;
	int ret = 0;

	if (asprintf(&sdir, "%s/%s", out, t[0].student) < 0 ||
	    asprintf(&stage, "%s/.stage", out) < 0) {
		ret = -ENOMEM;
		goto out;
	}
	if (mkdir(sdir, 0755)) {
		ret = rt_err(cause, -errno, "%s: %s", sdir, strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < n && !ret; i++) {
		struct unpacked u;
		char *why = NULL;

		if (mkdir(stage, 0700)) {
			ret = rt_err(cause, -errno, "%s: %s", stage, strerror(errno));
			break;
		}
		ret = unpack(t[i].path, t[i].shown, t[i].follow, stage, &u, &why);
		if (ret == -ENOMEM || (ret && u.write_failed)) {
			rt_err(cause, ret, "%s", why ? why : strerror(-ret));
		} else if (ret) {
			ret = rt_buf_printf(report, "%s\n", why ? why : strerror(-ret));
		} else {
			ret = keep_newer(&kept, &nkept, stage, sdir, u.lab, &u, t[i].shown, report);
			if (!ret)
				ret = keep_newer(&kept, &nkept, stage, sdir, NULL, &u, t[i].shown,
						 report);
			if (ret)
				rt_err(cause, ret, "%s: %s", sdir, strerror(-ret));
		}
		free(why);
		free(u.lab);
		free(u.created);
		if (grade_rm_rf(stage) && !ret)
			ret = rt_err(cause, -ENOTEMPTY, "%s: cannot be removed", stage);
	}
out:
	kept_free(kept, nkept);
	free(sdir);
	free(stage);
	return ret;
}

int grade_handin_class_dir(const char *dir, char **out_dir, char **report, char **cause)
{
	struct scan s = { .notes = RT_BUF_INIT };
	struct rt_buf rep = RT_BUF_INIT;
	const char *tmpdir = getenv("TMPDIR");
	char *out = NULL;
	int ret;

	*out_dir = NULL;
	*report = NULL;
	ret = scan_class(&s, dir, cause);
	if (ret || !s.n)
		goto out;
	if (!tmpdir || !*tmpdir)
		tmpdir = "/tmp";
	if (asprintf(&out, "%s/rtlab-handin.%d.XXXXXX", tmpdir, (int)getpid()) < 0) {
		out = NULL;
		ret = -ENOMEM;
		goto out;
	}
	if (!mkdtemp(out)) {
		ret = rt_err(cause, -errno, "%s: cannot make a folder: %s", out, strerror(errno));
		free(out);
		out = NULL;
		goto out;
	}
	ret = rt_buf_append(&rep, s.notes.data ? s.notes.data : "", s.notes.len);
	qsort(s.v, s.n, sizeof(*s.v), by_student);
	for (size_t i = 0, j; i < s.n && !ret; i = j) {
		for (j = i + 1; j < s.n && !strcmp(s.v[j].student, s.v[i].student); j++)
			;
		ret = class_student(out, &s.v[i], j - i, &rep, cause);
	}
	if (ret) {
		grade_rm_rf(out);
		free(out);
		out = NULL;
		goto out;
	}
	*out_dir = out;
	if (rep.len)
		*report = rt_buf_take(&rep);
out:
	if (ret == -ENOMEM)
		rt_err(cause, ret, "out of memory while unpacking the hand-ins of %s", dir);
	for (size_t i = 0; i < s.n; i++) {
		free(s.v[i].student);
		free(s.v[i].path);
		free(s.v[i].shown);
	}
	free(s.v);
	rt_buf_fini(&s.notes);
	rt_buf_fini(&rep);
	return ret;
}
