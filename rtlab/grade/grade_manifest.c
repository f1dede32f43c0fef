/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_manifest: reading checks/exercise.json (rtlab.exercise/1).
 *
 * A walk over the object's members: each known key has a reader, anything
 * else is refused with its name. Messages name the file and the field
 * ("exercise.json: checks[2].points: must be an integer 1..100") so an
 * exercise author can fix the manifest without reading this code.
 */
#include "grade_manifest.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_err.h"
#include "core/rt_file.h"
#include "core/rt_json.h"
#include "core/rt_keys.h"

/* ---- Small readers ----------------------------------------------------- */

static int want_string(json_t *v, const char *name, const char *field, size_t max,
		       char **out, char **cause)
{
	const char *s = json_string_value(v);

	if (!json_is_string(v) || !*s)
		return rt_err(cause, -EINVAL, "%s: %s: must be a non-empty string", name, field);
	if (strlen(s) != json_string_length(v) || strlen(s) > max)
		return rt_err(cause, -EINVAL, "%s: %s: longer than %zu bytes or holds a NUL",
			      name, field, max);
	*out = strdup(s);
	return *out ? 0 : -ENOMEM;
}

bool grade_file_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (!n || n > 64)
		return false;
	if (!((name[0] >= 'A' && name[0] <= 'Z') || (name[0] >= 'a' && name[0] <= 'z') ||
	      (name[0] >= '0' && name[0] <= '9') || name[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!((name[i] >= 'A' && name[i] <= 'Z') || (name[i] >= 'a' && name[i] <= 'z') ||
		      (name[i] >= '0' && name[i] <= '9') || strchr("_.-", name[i])))
			return false;
	return true;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcmp(s + n - m, suffix);
}

/* A file name, and for kind 'c', 'h' or 'a' (either) the suffix it must have. */
static int want_file(json_t *v, const char *name, const char *field, char kind, char **out,
		     char **cause)
{
	int ret = want_string(v, name, field, 64, out, cause);

	if (ret)
		return ret;
	if (!grade_file_name_ok(*out) ||
	    (kind == 'c' && !ends_with(*out, ".c")) || (kind == 'h' && !ends_with(*out, ".h")) ||
	    (kind == 'a' && !ends_with(*out, ".c") && !ends_with(*out, ".h"))) {
		ret = rt_err(cause, -EINVAL, "%s: %s: \"%s\" is not a bare file name ending in %s",
			     name, field, *out, kind == 'c' ? ".c" : kind == 'h' ? ".h" :
			     ".c or .h");
		free(*out);
		*out = NULL;
	}
	return ret;
}

/*
 * A compiler or linker flag of the manifest: one word starting with '-',
 * and none that names a path or changes which programs or files the
 * compiler uses (the job folder is all it should see).
 */
static bool flag_ok(const char *f)
{
	static const char *const refused[] = { "-o", "-B", "-specs", "-wrapper", "-fplugin",
		"-I", "-L", "-iquote", "-isystem", "-idirafter", "-include", "-imacros",
		"--sysroot", "-isysroot", "-T", "-Wl,-T", "-save-temps", "-M", NULL };
	size_t n = strlen(f);

	if (n < 2 || n > 64 || f[0] != '-' || strchr(f, '/') || strchr(f, '@'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (f[i] <= ' ' || f[i] > '~')
			return false;
	for (size_t i = 0; refused[i]; i++)
		if (!strncmp(f, refused[i], strlen(refused[i])))
			return false;
	return true;
}

/* A list of files (kind as want_file) or of flags (kind 'f'). */
static int want_list(json_t *v, const char *name, const char *field, char kind, size_t max,
		     struct grade_strv *out, char **cause)
{
	char sub[64];
	size_t i;
	json_t *e;
	int ret;

	if (!json_is_array(v) || json_array_size(v) > max)
		return rt_err(cause, -EINVAL, "%s: %s: must be an array of at most %zu strings",
			      name, field, max);
	out->v = calloc(json_array_size(v) + 1, sizeof(*out->v));
	if (!out->v)
		return -ENOMEM;
	json_array_foreach(v, i, e) {
		snprintf(sub, sizeof(sub), "%s[%zu]", field, i);
		if (kind == 'f') {
			ret = want_string(e, name, sub, 64, &out->v[i], cause);
			if (!ret && !flag_ok(out->v[i]))
				ret = rt_err(cause, -EINVAL, "%s: %s: \"%s\" is not a flag the "
					     "harness passes (one word starting with '-', no path, "
					     "no -o/-I/-L/-B/-specs/@file)", name, sub, out->v[i]);
		} else {
			ret = want_file(e, name, sub, kind, &out->v[i], cause);
		}
		if (ret)
			return ret;
		out->n = i + 1;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(out->v[j], out->v[i]) && kind != 'f')
				return rt_err(cause, -EINVAL, "%s: %s: \"%s\" is named twice", name,
					      sub, out->v[i]);
	}
	return 0;
}

static int want_uint(json_t *v, const char *name, const char *field, unsigned int min,
		     unsigned int max, unsigned int *out, char **cause)
{
	json_int_t i = json_integer_value(v);

	if (!json_is_integer(v) || i < min || i > max)
		return rt_err(cause, -EINVAL, "%s: %s: must be an integer %u..%u", name, field,
			      min, max);
	*out = (unsigned int)i;
	return 0;
}

/* ---- Declared keys ------------------------------------------------------- */

/*
 * The manifest's keys, declared once: the reader below takes the known
 * keys, the limits' ranges and what is required from these tables, and
 * `rtlab schema rtlab.exercise/1` prints the JSON Schema made of them.
 */
#define FILE_PATTERN	"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$"
#define ID_PATTERN	"^[a-z0-9]([a-z0-9-]{0,46}[a-z0-9])?$"

static const struct rt_key limit_keys[] = {
	RT_KEY("wall_s", RT_T_INTEGER, "s", "wall clock per run (default 10)", false, .min = 1,
	       .max = 600),
	RT_KEY("cpu_s", RT_T_INTEGER, "s", "CPU time per run (default: wall_s)", false, .min = 1,
	       .max = 600),
	RT_KEY("mem_mb", RT_T_INTEGER, NULL, "address space in MB (default 256)", false,
	       .min = 16, .max = 16384),
	RT_KEY("fsize_mb", RT_T_INTEGER, NULL, "largest file in MB (default 16)", false,
	       .min = 1, .max = 4096),
	RT_KEY("nproc", RT_T_INTEGER, "count", "processes (default 16)", false, .min = 1,
	       .max = 1024),
	RT_KEY("output_kb", RT_T_INTEGER, NULL, "stdout kept, in KiB (default 1024)", false,
	       .min = 1, .max = 65536),
	RT_KEY("memlock_kb", RT_T_INTEGER, NULL,
	       "the RLIMIT_MEMLOCK the checks ask for, in KiB (default 65536)", false, .min = 64,
	       .max = 1024 * 1024),
	RT_KEY_END,
};
static const struct rt_keys limits_table = { .keys = limit_keys };

static const char *const need_names[] = { "sched_fifo", "mlock", "root", NULL };
static const struct rt_key check_keys[] = {
	RT_KEY("id", RT_T_STRING, NULL, "the check's id, 1..48 of [a-z0-9-]", true,
	       .pattern = ID_PATTERN),
	RT_KEY("points", RT_T_INTEGER, NULL, "its weight, 1..100", true, .min = 1, .max = 100),
	RT_KEY("hint", RT_T_STRING, NULL, "what to look at when it fails", true),
	RT_KEY("title", RT_T_STRING, NULL, "one line", false),
	RT_KEY("needs", RT_T_ARRAY, NULL,
	       "what the check needs of the grader (`sched_fifo`, `mlock`, `root`), each once",
	       false, .items = RT_T_STRING, .values = need_names),
	RT_KEY("timing", RT_T_BOOL, NULL, "the check measures time (run again when it fails)",
	       false),
	RT_KEY_END,
};
static const struct rt_keys check_table = { .keys = check_keys };

static const struct rt_key weight_keys[] = {
	RT_KEY("code", RT_T_INTEGER, "pct", "the exercise's code", true, .min = 0, .max = 100),
	RT_KEY("results", RT_T_INTEGER, "pct", "the lab's results document", true, .min = 0,
	       .max = 100),
	RT_KEY("quiz", RT_T_INTEGER, "pct", "the lesson's quiz", true, .min = 0, .max = 100),
	RT_KEY_END,
};
static const struct rt_keys weights_table = { .keys = weight_keys };

static const struct rt_key manifest_keys[] = {
	RT_KEY("schema", RT_T_STRING, NULL, "`rtlab.exercise/1`", true),
	RT_KEY("lab", RT_T_STRING, NULL, "the folder's name: a lab, or any `[a-z0-9-]` name",
	       true, .pattern = ID_PATTERN),
	RT_KEY("title", RT_T_STRING, NULL, "one line", true),
	RT_KEY("sources", RT_T_ARRAY, NULL,
	       "1 to 16 file names ending in `.c` or `.h`: the learner's files", true,
	       .items = RT_T_STRING),
	RT_KEY("headers", RT_T_ARRAY, NULL, "trusted headers from `checks/`", false,
	       .items = RT_T_STRING),
	RT_KEY("subject", RT_T_STRING, NULL, "the driver's `.c` in `checks/`", true,
	       .pattern = FILE_PATTERN),
	RT_KEY("program", RT_T_STRING, NULL, "the check program's `.c` in `checks/`", true,
	       .pattern = FILE_PATTERN),
	RT_KEY("program_sources", RT_T_ARRAY, NULL,
	       "more trusted `.c` files linked into the check program", false,
	       .items = RT_T_STRING),
	RT_KEY("cflags", RT_T_ARRAY, NULL, "extra compiler flags for the subject", false,
	       .items = RT_T_STRING),
	RT_KEY("ldflags", RT_T_ARRAY, NULL, "libraries for the subject", false,
	       .items = RT_T_STRING),
	RT_KEY("program_ldflags", RT_T_ARRAY, NULL, "libraries for the check program", false,
	       .items = RT_T_STRING),
	RT_KEY("limits", RT_T_OBJECT, NULL, "per run of the subject", false,
	       .of = &limits_table),
	RT_KEY("weights", RT_T_OBJECT, NULL,
	       "each part's share of a whole lab's grade, adding up to 100", false,
	       .of = &weights_table),
	RT_KEY("checks", RT_T_ARRAY, NULL, "1 to 64 checks, in the order they are reported",
	       true, .of = &check_table),
	RT_KEY_END,
};
static const struct rt_keys manifest_table = { .keys = manifest_keys };

json_t *grade_manifest_schema(void)
{
	return rt_keys_document(GRADE_EXERCISE_SCHEMA, "rtlab exercise manifest (checks/exercise.json)",
				&manifest_table, 0);
}

void grade_limits_default(struct grade_limits *l)
{
	*l = (struct grade_limits){ .wall_s = 10, .cpu_s = 10, .mem_mb = 256, .fsize_mb = 16,
				    .nproc = 16, .output_kb = 1024, .memlock_kb = 65536 };
}

static int read_limits(json_t *v, const char *name, struct grade_limits *l, char **cause)
{
	bool cpu_given = false;
	const char *key;
	json_t *e;
	int ret;

	if (!json_is_object(v))
		return rt_err(cause, -EINVAL, "%s: limits: must be an object", name);
	json_object_foreach(v, key, e) {
		/* In the order of limit_keys[]. */
		unsigned int *const slot[] = { &l->wall_s, &l->cpu_s, &l->mem_mb, &l->fsize_mb,
					       &l->nproc, &l->output_kb, &l->memlock_kb };
		const struct rt_key *k = rt_keys_find(&limits_table, key);
		char field[48];

		if (!k)
			return rt_err(cause, -EINVAL, "%s: limits.%s: not a field of %s (wall_s, "
				      "cpu_s, mem_mb, fsize_mb, nproc, output_kb, memlock_kb)", name,
				      key, GRADE_EXERCISE_SCHEMA);
		snprintf(field, sizeof(field), "limits.%s", key);
		ret = want_uint(e, name, field, (unsigned int)k->min, (unsigned int)k->max,
				slot[k - limit_keys], cause);
		if (ret)
			return ret;
		cpu_given |= slot[k - limit_keys] == &l->cpu_s;
	}
	if (!cpu_given)
		l->cpu_s = l->wall_s;
	return 0;
}

const char *grade_need_name(unsigned int need)
{
	switch (need) {
	case GRADE_NEED_SCHED_FIFO:
		return "sched_fifo";
	case GRADE_NEED_MLOCK:
		return "mlock";
	case GRADE_NEED_ROOT:
		return "root";
	}
	return NULL;
}

static bool id_ok(const char *id)
{
	size_t n = strlen(id);

	if (!n || n > GRADE_ID_MAX || id[0] == '-' || id[n - 1] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((id[i] >= 'a' && id[i] <= 'z') || (id[i] >= '0' && id[i] <= '9') ||
		      id[i] == '-'))
			return false;
	return true;
}

static int read_check(json_t *v, const char *name, size_t idx, struct grade_mcheck *c,
		      char **cause)
{
	char field[96];
	const char *key;
	json_t *e, *w;
	size_t i;
	int ret;

	if (!json_is_object(v))
		return rt_err(cause, -EINVAL, "%s: checks[%zu]: must be an object", name, idx);
	json_object_foreach(v, key, e) {
		snprintf(field, sizeof(field), "checks[%zu].%s", idx, key);
		if (!strcmp(key, "id")) {
			ret = want_string(e, name, field, GRADE_ID_MAX, &c->id, cause);
			if (!ret && !id_ok(c->id))
				ret = rt_err(cause, -EINVAL, "%s: %s: \"%s\" is not 1..%d of "
					     "[a-z0-9-]", name, field, c->id, GRADE_ID_MAX);
		} else if (!strcmp(key, "points")) {
			ret = want_uint(e, name, field, 1, 100, &c->points, cause);
		} else if (!strcmp(key, "hint")) {
			ret = want_string(e, name, field, 1024, &c->hint, cause);
		} else if (!strcmp(key, "title")) {
			ret = want_string(e, name, field, 200, &c->title, cause);
		} else if (!strcmp(key, "timing")) {
			ret = json_is_boolean(e) ? 0 : rt_err(cause, -EINVAL, "%s: %s: must be "
							      "true or false", name, field);
			c->timing = json_is_true(e);
		} else if (!strcmp(key, "needs")) {
			ret = json_is_array(e) ? 0 : rt_err(cause, -EINVAL, "%s: %s: must be an "
							    "array", name, field);
			json_array_foreach(e, i, w) {
				const char *s = json_string_value(w);
				unsigned int bit = 0;

				for (unsigned int b = 1; b <= GRADE_NEED_ROOT && s; b <<= 1)
					if (!strcmp(s, grade_need_name(b)))
						bit = b;
				if (!bit || (c->needs & bit))
					return rt_err(cause, -EINVAL, "%s: %s[%zu]: must be one of "
						      "\"sched_fifo\", \"mlock\", \"root\", once",
						      name, field, i);
				c->needs |= bit;
			}
		} else {
			ret = rt_err(cause, -EINVAL, "%s: %s: not a field of a check (id, points, "
				     "hint, title, needs, timing)", name, field);
		}
		if (ret)
			return ret;
	}
	if (!c->id || !c->points || !c->hint)
		return rt_err(cause, -EINVAL, "%s: checks[%zu]: needs id, points and hint", name,
			      idx);
	return 0;
}

static int read_checks(json_t *v, const char *name, struct grade_manifest *m, char **cause)
{
	size_t i;
	json_t *e;
	int ret;

	if (!json_is_array(v) || !json_array_size(v) || json_array_size(v) > GRADE_MAX_CHECKS)
		return rt_err(cause, -EINVAL, "%s: checks: must be an array of 1..%d checks", name,
			      GRADE_MAX_CHECKS);
	m->checks = calloc(json_array_size(v), sizeof(*m->checks));
	if (!m->checks)
		return -ENOMEM;
	json_array_foreach(v, i, e) {
		m->nchecks = i + 1;
		ret = read_check(e, name, i, &m->checks[i], cause);
		if (ret)
			return ret;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(m->checks[j].id, m->checks[i].id))
				return rt_err(cause, -EINVAL, "%s: checks[%zu].id: \"%s\" is used "
					      "twice", name, i, m->checks[i].id);
	}
	return 0;
}

/* ---- Weights --------------------------------------------------------------- */

const char *grade_part_name(enum grade_part p)
{
	static const char *const names[] = { "code", "results", "quiz" };

	return (unsigned int)p < 3 ? names[p] : "?";
}

static int read_weights(json_t *v, const char *name, struct grade_manifest *m, char **cause)
{
	unsigned int sum = 0, seen = 0;
	const char *key;
	json_t *e;
	int ret;

	if (!json_is_object(v))
		return rt_err(cause, -EINVAL, "%s: weights: must be an object {\"code\": N, "
			      "\"results\": N, \"quiz\": N}", name);
	json_object_foreach(v, key, e) {
		char field[32];
		int p = -1;

		for (int i = 0; i < 3; i++)
			if (!strcmp(key, grade_part_name((enum grade_part)i)))
				p = i;
		if (p < 0)
			return rt_err(cause, -EINVAL, "%s: weights.%s: not a part (code, results, "
				      "quiz)", name, key);
		snprintf(field, sizeof(field), "weights.%s", key);
		ret = want_uint(e, name, field, 0, 100, &m->weights[p], cause);
		if (ret)
			return ret;
		sum += m->weights[p];
		seen |= 1u << p;
	}
	if (seen != 7 || sum != 100)
		return rt_err(cause, -EINVAL, "%s: weights: code, results and quiz must each be "
			      "given and add up to 100 (they add up to %u)", name, sum);
	m->weights_given = true;
	return 0;
}

/* ---- The manifest -------------------------------------------------------- */

static int read_member(const char *key, json_t *v, const char *name, struct grade_manifest *m,
		       char **cause)
{
	if (!strcmp(key, "schema"))
		return json_is_string(v) && !strcmp(json_string_value(v), GRADE_EXERCISE_SCHEMA) ?
		       0 : rt_err(cause, -EINVAL, "%s: schema: must be \"%s\"", name,
				  GRADE_EXERCISE_SCHEMA);
	if (!strcmp(key, "lab")) {
		int ret = want_string(v, name, "lab", GRADE_ID_MAX, &m->lab, cause);

		return !ret && !id_ok(m->lab) ? rt_err(cause, -EINVAL, "%s: lab: \"%s\" is not a "
						      "lab name ([a-z0-9-])", name, m->lab) : ret;
	}
	if (!strcmp(key, "title"))
		return want_string(v, name, "title", 200, &m->title, cause);
	if (!strcmp(key, "sources"))
		return want_list(v, name, "sources", 'a', GRADE_MAX_SOURCES, &m->sources, cause);
	if (!strcmp(key, "headers"))
		return want_list(v, name, "headers", 'h', GRADE_MAX_FILES, &m->headers, cause);
	if (!strcmp(key, "subject"))
		return want_file(v, name, "subject", 'c', &m->subject, cause);
	if (!strcmp(key, "program"))
		return want_file(v, name, "program", 'c', &m->program, cause);
	if (!strcmp(key, "program_sources"))
		return want_list(v, name, "program_sources", 'c', GRADE_MAX_FILES,
				 &m->program_sources, cause);
	if (!strcmp(key, "cflags"))
		return want_list(v, name, "cflags", 'f', GRADE_MAX_FLAGS, &m->cflags, cause);
	if (!strcmp(key, "ldflags"))
		return want_list(v, name, "ldflags", 'f', GRADE_MAX_FLAGS, &m->ldflags, cause);
	if (!strcmp(key, "program_ldflags"))
		return want_list(v, name, "program_ldflags", 'f', GRADE_MAX_FLAGS,
				 &m->program_ldflags, cause);
	if (!strcmp(key, "limits"))
		return read_limits(v, name, &m->limits, cause);
	if (!strcmp(key, "checks"))
		return read_checks(v, name, m, cause);
	if (!strcmp(key, "weights"))
		return read_weights(v, name, m, cause);
	return rt_err(cause, -EINVAL, "%s: \"%s\" is not a field of %s (doc/exercises.md)", name,
		      key, GRADE_EXERCISE_SCHEMA);
}

/* Names the learner writes must not be the trusted files' (those would win silently). */
static int check_names(const struct grade_manifest *m, const char *name, char **cause)
{
	const char *trusted[GRADE_MAX_FILES * 2 + 2];
	size_t n = 0;

	trusted[n++] = m->subject;
	trusted[n++] = m->program;
	for (size_t i = 0; i < m->headers.n; i++)
		trusted[n++] = m->headers.v[i];
	for (size_t i = 0; i < m->program_sources.n; i++)
		trusted[n++] = m->program_sources.v[i];
	for (size_t i = 0; i < m->sources.n; i++)
		for (size_t j = 0; j < n; j++)
			if (!strcmp(m->sources.v[i], trusted[j]))
				return rt_err(cause, -EINVAL, "%s: sources: \"%s\" is also a "
					      "trusted file of checks/", name, trusted[j]);
	for (size_t i = 0; i < m->sources.n; i++)
		if (ends_with(m->sources.v[i], ".c"))
			return 0;
	return rt_err(cause, -EINVAL, "%s: sources: names no .c file", name);
}

int grade_manifest_parse(const char *text, size_t len, const char *name,
			 struct grade_manifest *m, char **cause)
{
	json_t *doc = NULL, *v;
	const char *key;
	int ret;

	memset(m, 0, sizeof(*m));
	grade_limits_default(&m->limits);
	m->weights[GRADE_PART_CODE] = 100;
	if (!name)
		name = "exercise.json";
	ret = rt_json_load(text, len, name, &doc, cause);
	if (ret)
		return ret;
	if (!json_is_object(doc)) {
		ret = rt_err(cause, -EINVAL, "%s: not a JSON object", name);
		goto out;
	}
	if (!json_is_string(json_object_get(doc, "schema"))) {
		ret = rt_err(cause, -EINVAL, "%s: schema: missing (\"%s\")", name,
			     GRADE_EXERCISE_SCHEMA);
		goto out;
	}
	json_object_foreach(doc, key, v) {
		ret = read_member(key, v, name, m, cause);
		if (ret)
			goto out;
	}
	if (!m->lab || !m->title || !m->sources.n || !m->subject || !m->program || !m->nchecks) {
		ret = rt_err(cause, -EINVAL, "%s: needs lab, title, sources, subject, program and "
			     "checks (doc/exercises.md)", name);
		goto out;
	}
	ret = check_names(m, name, cause);
out:
	json_decref(doc);
	if (ret)
		grade_manifest_fini(m);
	return ret;
}

int grade_manifest_load(const char *path, struct grade_manifest *m, char **cause)
{
	char *text = NULL;
	size_t len = 0;
	int ret;

	memset(m, 0, sizeof(*m));
	ret = rt_file_load(path, 0, GRADE_MANIFEST_MAX, &text, &len, cause);
	if (ret)
		return ret;
	ret = grade_manifest_parse(text, len, path, m, cause);
	free(text);
	return ret;
}

static void strv_fini(struct grade_strv *s)
{
	for (size_t i = 0; s->v && s->v[i]; i++)	/* NULL-terminated, also when cut short */
		free(s->v[i]);
	free(s->v);
}

void grade_manifest_fini(struct grade_manifest *m)
{
	if (!m)
		return;
	free(m->lab);
	free(m->title);
	free(m->subject);
	free(m->program);
	strv_fini(&m->sources);
	strv_fini(&m->headers);
	strv_fini(&m->program_sources);
	strv_fini(&m->cflags);
	strv_fini(&m->ldflags);
	strv_fini(&m->program_ldflags);
	for (size_t i = 0; m->checks && i < m->nchecks; i++) {
		free(m->checks[i].id);
		free(m->checks[i].title);
		free(m->checks[i].hint);
	}
	free(m->checks);
	memset(m, 0, sizeof(*m));
}

const struct grade_mcheck *grade_manifest_check(const struct grade_manifest *m, const char *id)
{
	for (size_t i = 0; i < m->nchecks; i++) {
		const char *a = m->checks[i].id, *b = id;

		while (*a && (*a == *b || (*a == '-' && *b == '_'))) {
			a++;
			b++;
		}
		if (!*a && !*b)
			return &m->checks[i];
	}
	return NULL;
}

unsigned int grade_manifest_points(const struct grade_manifest *m)
{
	unsigned int sum = 0;

	for (size_t i = 0; i < m->nchecks; i++)
		sum += m->checks[i].points;
	return sum;
}
