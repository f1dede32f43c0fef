/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for rt_progress: save/load keeps everything (also fields this
 * version does not know); a truncated, garbled or mistyped file is moved
 * aside with a warning naming the file and the line or field, never
 * overwritten and never a crash; concurrent writers through
 * rt_progress_update() neither tear the file nor lose updates; the state
 * directory follows XDG_STATE_HOME / HOME and is created when missing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/rt_buf.h"
#include "core/rt_file.h"
#include "core/rt_log.h"
#include "core/rt_progress.h"

struct fixture {
	char dir[64];
	char state[96];		/* $XDG_STATE_HOME, not created */
	char path[160];		/* <dir>/p/progress.json */
	struct rt_buf log;	/* warnings captured from rt_log */
	unsigned int warnings;
};

static void capture(void *priv, enum rt_log_level level, const char *msg)
{
	struct fixture *f = priv;

	if (level == RT_LOG_WARN)
		f->warnings++;
	rt_buf_printf(&f->log, "%s\n", msg);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	strcpy(f->dir, "/tmp/rtlab-test-progress-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->state, sizeof(f->state), "%s/xdg-state", f->dir);
	snprintf(f->path, sizeof(f->path), "%s/p/progress.json", f->dir);
	if (rt_mkdir_p(f->path, 0700) || rmdir(f->path))	/* creates <dir>/p */
		return -1;
	setenv("XDG_STATE_HOME", f->state, 1);
	rt_buf_init(&f->log);
	rt_log_set_sink(capture, f);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	rt_log_set_sink(NULL, NULL);
	rt_buf_fini(&f->log);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

/* Entries of @dir whose name starts with @prefix; remove them if @remove. */
static int count_prefixed(const char *dir, const char *prefix, bool remove)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
			continue;
		n++;
		if (remove) {
			char p[512];

			snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
			assert_int_equal(unlink(p), 0);
		}
	}
	closedir(d);
	return n;
}

/* The one "progress.json.corrupt-*" file in @dir: its contents, then it is removed. */
static char *take_corrupt(const char *dir, size_t *len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *data = NULL;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		char p[512];

		if (strncmp(e->d_name, "progress.json.corrupt-", 22) != 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		assert_int_equal(rt_file_read(p, 1 << 20, &data, len), 0);
		assert_int_equal(unlink(p), 0);
		n++;
	}
	closedir(d);
	assert_int_equal(n, 1);
	return data;
}

static void write_file(const char *path, const char *data, size_t len)
{
	assert_int_equal(rt_file_write_atomic(path, data, len, 0600, NULL), 0);
}

static struct rt_progress *filled(const char *path)
{
	struct rt_progress *p = rt_progress_new(path);

	assert_non_null(p);
	assert_int_equal(rt_progress_lesson_set_read(p, "03-latency", true), 0);
	assert_int_equal(rt_progress_lesson_set_position(p, "03-latency", 142), 0);
	assert_int_equal(rt_progress_lesson_set_position(p, "06-ftrace", 7), 0);
	assert_int_equal(rt_progress_quiz_record(p, "03-latency", "q1", "b", 0), 0);
	assert_int_equal(rt_progress_quiz_record(p, "03-latency", "q1", "c", 1), 0);
	assert_int_equal(rt_progress_quiz_record(p, "03-latency", "q2", "p99 < 50 us", 0.5), 0);
	assert_int_equal(rt_progress_prediction_set(p, "03-latency", "p99-load", 250, "us"), 0);
	assert_int_equal(rt_progress_lab_set(p, "latency", "done", "/tmp/r/latency.json"), 0);
	return p;
}

static void check_filled(const struct rt_progress *p)
{
	struct rt_progress_quiz q;
	struct rt_progress_prediction pr;
	struct rt_progress_lab lab;
	double total = 0;

	assert_true(rt_progress_lesson_read(p, "03-latency"));
	assert_false(rt_progress_lesson_read(p, "06-ftrace"));
	assert_false(rt_progress_lesson_read(p, "99-none"));
	assert_int_equal(rt_progress_lesson_position(p, "03-latency"), 142);
	assert_int_equal(rt_progress_lesson_position(p, "06-ftrace"), 7);
	assert_int_equal(rt_progress_lesson_position(p, "99-none"), 0);
	assert_int_equal(rt_progress_quiz_get(p, "03-latency", "q1", &q), 0);
	assert_string_equal(q.answer, "c");
	assert_true(q.score == 1);
	assert_int_equal(q.attempts, 2);
	assert_non_null(q.time);
	assert_int_equal(rt_progress_quiz_get(p, "03-latency", "q9", &q), -ENOENT);
	assert_int_equal(rt_progress_quiz_get(p, "99-none", "q1", &q), -ENOENT);
	assert_int_equal(rt_progress_quiz_count(p, "03-latency", &total), 2);
	assert_true(total == 1.5);
	assert_int_equal(rt_progress_prediction_get(p, "03-latency", "p99-load", &pr), 0);
	assert_true(pr.value == 250);
	assert_string_equal(pr.unit, "us");
	assert_int_equal(rt_progress_prediction_count(p, "03-latency"), 1);
	assert_int_equal(rt_progress_lab_get(p, "latency", &lab), 0);
	assert_string_equal(lab.status, "done");
	assert_string_equal(lab.result, "/tmp/r/latency.json");
	assert_int_equal(rt_progress_lab_get(p, "nop", &lab), -ENOENT);
}

static int collect(const char *lesson, void *priv)
{
	rt_buf_printf(priv, "%s;", lesson);
	return 0;
}

static void test_roundtrip(void **state)
{
	struct fixture *f = *state;
	struct rt_progress *p = filled(f->path), *q = NULL;
	struct rt_buf names = RT_BUF_INIT;
	char *cause = NULL, *text = NULL;
	struct stat st;

	check_filled(p);
	assert_int_equal(rt_progress_save(p, &cause), 0);
	assert_int_equal(stat(f->path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(rt_progress_load(f->path, &q, &cause), 0);
	assert_null(cause);
	check_filled(q);
	assert_string_equal(rt_progress_path(q), f->path);
	assert_true(json_equal(rt_progress_json(p), rt_progress_json(q)));
	assert_int_equal(rt_progress_foreach_lesson(q, collect, &names), 0);
	assert_string_equal(rt_buf_str(&names), "03-latency;06-ftrace;");
	assert_int_equal(rt_file_read(f->path, 1 << 20, &text, NULL), 0);
	assert_true(strncmp(text, "{\n  \"schema\": \"rtlab.progress/1\",", 33) == 0);
	assert_int_equal(f->warnings, 0);

	/* Reset forgets one lesson only. */
	assert_int_equal(rt_progress_reset_lesson(q, "03-latency"), 0);
	assert_false(rt_progress_lesson_read(q, "03-latency"));
	assert_int_equal(rt_progress_quiz_count(q, "03-latency", NULL), 0);
	assert_int_equal(rt_progress_prediction_count(q, "03-latency"), 0);
	assert_int_equal(rt_progress_lesson_position(q, "06-ftrace"), 7);
	assert_int_equal(rt_progress_reset_lesson(q, "never-seen"), 0);

	/* A lab update without a result path keeps the previous path. */
	{
		struct rt_progress_lab lab;

		assert_int_equal(rt_progress_lab_set(q, "latency", "passed", NULL), 0);
		assert_int_equal(rt_progress_lab_get(q, "latency", &lab), 0);
		assert_string_equal(lab.status, "passed");
		assert_string_equal(lab.result, "/tmp/r/latency.json");
	}
	rt_buf_fini(&names);
	free(text);
	rt_progress_free(p);
	rt_progress_free(q);
	rt_progress_free(NULL);
}

static void test_setters_refuse(void **state)
{
	struct fixture *f = *state;
	struct rt_progress *p = rt_progress_new(f->path);
	char longid[RT_PROGRESS_MAX_ID + 2];
	char *cause = NULL;

	assert_non_null(p);
	memset(longid, 'x', sizeof(longid) - 1);
	longid[sizeof(longid) - 1] = '\0';
	assert_int_equal(rt_progress_lesson_set_read(p, "", true), -EINVAL);
	assert_int_equal(rt_progress_lesson_set_read(p, NULL, true), -EINVAL);
	assert_int_equal(rt_progress_lesson_set_read(p, longid, true), -EINVAL);
	assert_int_equal(rt_progress_lesson_set_read(p, "a\nb", true), -EINVAL);
	assert_int_equal(rt_progress_quiz_record(p, "l", "q", "a", NAN), -EINVAL);
	assert_int_equal(rt_progress_quiz_record(p, "l", "q", NULL, 1), -EINVAL);
	assert_int_equal(rt_progress_quiz_record(p, "l", "q", "\xc3\x28", 1), -EINVAL);
	assert_int_equal(rt_progress_prediction_set(p, "l", "q", INFINITY, "us"), -EINVAL);
	assert_int_equal(rt_progress_lab_set(p, "latency", "Done!", NULL), -EINVAL);
	assert_int_equal(rt_progress_lab_set(p, "latency", "done", ""), -EINVAL);
	rt_progress_free(p);

	/* Parsed progress is not bound to a file, so saving it is refused. */
	assert_int_equal(rt_progress_parse("{\"schema\": \"rtlab.progress/1\"}", 30, "x", &p,
					   NULL), 0);
	assert_null(rt_progress_path(p));
	assert_int_equal(rt_progress_save(p, &cause), -EINVAL);
	assert_non_null(cause);
	free(cause);
	rt_progress_free(p);
}

/*
 * The documents written with --json FILE: the last RT_PROGRESS_MAX_DOCS of a
 * lab, oldest first, one entry per path, kept across a save and a load.
 */
static void test_lab_documents(void **state)
{
	struct fixture *f = *state;
	struct rt_progress *p = rt_progress_new(f->path);
	struct rt_progress_lab lab;
	char name[32];

	assert_non_null(p);
	assert_int_equal(rt_progress_lab_add_document(p, "cookie", "/w/c0.json"), -ENOENT);
	assert_int_equal(rt_progress_lab_set(p, "cookie", "done", NULL), 0);
	for (unsigned int i = 1; i <= RT_PROGRESS_MAX_DOCS + 3; i++) {
		snprintf(name, sizeof(name), "/w/c%u.json", i);
		assert_int_equal(rt_progress_lab_add_document(p, "cookie", name), 0);
	}
	/* Written again: it moves to the end, not in twice. */
	assert_int_equal(rt_progress_lab_add_document(p, "cookie", "/w/c10.json"), 0);
	assert_int_equal(rt_progress_lab_add_document(p, "cookie", ""), -EINVAL);
	assert_int_equal(rt_progress_save(p, NULL), 0);
	rt_progress_free(p);
	assert_int_equal(rt_progress_load(f->path, &p, NULL), 0);
	assert_int_equal(rt_progress_lab_get(p, "cookie", &lab), 0);
	assert_int_equal(lab.ndocuments, RT_PROGRESS_MAX_DOCS);
	assert_string_equal(lab.documents[0], "/w/c4.json");
	assert_string_equal(lab.documents[RT_PROGRESS_MAX_DOCS - 2], "/w/c23.json");
	assert_string_equal(lab.documents[RT_PROGRESS_MAX_DOCS - 1], "/w/c10.json");
	assert_null(lab.result);
	assert_int_equal(rt_progress_lab_get(p, "nop", &lab), -ENOENT);
	assert_int_equal(f->warnings, 0);
	rt_progress_free(p);
}

/* Fields this version does not know survive a load/change/save cycle. */
static void test_unknown_fields_kept(void **state)
{
	static const char text[] =
		"{\"schema\": \"rtlab.progress/1\", \"future\": {\"x\": [1, 2]},\n"
		" \"lessons\": {\"01-intro\": {\"read\": true, \"bookmark\": \"sec-2\"}}}\n";
	struct fixture *f = *state;
	struct rt_progress *p = NULL;
	json_t *doc;

	write_file(f->path, text, strlen(text));
	assert_int_equal(rt_progress_load(f->path, &p, NULL), 0);
	assert_true(rt_progress_lesson_read(p, "01-intro"));
	assert_int_equal(rt_progress_lesson_set_position(p, "01-intro", 3), 0);
	assert_int_equal(rt_progress_save(p, NULL), 0);
	rt_progress_free(p);
	assert_int_equal(rt_progress_load(f->path, &p, NULL), 0);
	doc = rt_progress_json(p);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(
		json_object_get(doc, "future"), "x"), 1)), 2);
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(
		doc, "lessons"), "01-intro"), "bookmark")), "sec-2");
	assert_int_equal(rt_progress_lesson_position(p, "01-intro"), 3);
	assert_int_equal(f->warnings, 0);
	rt_progress_free(p);
}

static void test_missing_file_is_empty(void **state)
{
	struct fixture *f = *state;
	struct rt_progress *p = NULL;
	char *cause = NULL;

	assert_int_equal(rt_progress_load(f->path, &p, &cause), 0);
	assert_non_null(p);
	assert_null(cause);
	assert_false(rt_progress_lesson_read(p, "03-latency"));
	assert_int_equal(access(f->path, F_OK), -1);
	assert_int_equal(f->warnings, 0);
	rt_progress_free(p);
}

static void trim(char *s, size_t *len)
{
	while (*len && strchr(" \n\t\r", s[*len - 1]))
		s[--*len] = '\0';
}

/* The line jansson reports for an error at the end of @len bytes of @s. */
static int lines_in(const char *s, size_t len)
{
	int n = 1;

	for (size_t i = 0; i < len; i++)
		n += s[i] == '\n';
	return n;
}

/* Cut a valid file at every length: each cut is moved aside intact and warned about. */
static void test_truncated_moved_aside(void **state)
{
	struct fixture *f = *state;
	struct rt_progress *p = filled(f->path), *q;
	char dir[160], *full, *trimmed;
	size_t len, tlen;

	assert_int_equal(rt_progress_save(p, NULL), 0);
	rt_progress_free(p);
	assert_int_equal(rt_file_read(f->path, 1 << 20, &full, &len), 0);
	trimmed = strdup(full);
	tlen = len;
	trim(trimmed, &tlen);
	snprintf(dir, sizeof(dir), "%s/p", f->dir);

	for (size_t cut = 0; cut < len; cut++) {
		unsigned int before = f->warnings;
		char *aside, line[32];
		size_t alen;

		write_file(f->path, full, cut);
		rt_buf_reset(&f->log);
		q = NULL;
		assert_int_equal(rt_progress_load(f->path, &q, NULL), 0);
		assert_non_null(q);
		if (cut >= tlen) {
			/* Only trailing white space was cut: still the whole document. */
			check_filled(q);
			assert_int_equal(f->warnings, before);
			rt_progress_free(q);
			continue;
		}
		assert_false(rt_progress_lesson_read(q, "03-latency"));
		assert_int_equal(f->warnings, before + 1);
		/* The warning names the file and, for a syntax error, the line. */
		assert_non_null(strstr(rt_buf_str(&f->log), f->path));
		snprintf(line, sizeof(line), "progress.json:%d:", lines_in(full, cut));
		if (!strstr(rt_buf_str(&f->log), line))
			fail_msg("cut %zu: log \"%s\" lacks \"%s\"", cut, rt_buf_str(&f->log), line);
		assert_non_null(strstr(rt_buf_str(&f->log), "moved it to"));
		assert_int_equal(access(f->path, F_OK), -1);
		aside = take_corrupt(dir, &alen);
		assert_int_equal(alen, cut);
		assert_memory_equal(aside, full, cut);
		free(aside);
		/* The empty progress saves over nothing of the learner's. */
		assert_int_equal(rt_progress_save(q, NULL), 0);
		rt_progress_free(q);
	}
	free(trimmed);
	free(full);
}

struct bad_file {
	const char *text;
	const char *names;	/* what the warning must mention */
};

static void test_corrupt_moved_aside(void **state)
{
	static const struct bad_file bad[] = {
		{ "\x00\x01\x02garbage\xff", "progress.json:1:" },
		{ "{\"schema\": \"rtlab.progress/1\",\n \"lessons\": {,}}", "progress.json:2:" },
		{ "[1, 2, 3]", "document: must be a JSON object" },
		{ "{\"lessons\": {}}", "schema: missing" },
		{ "{\"schema\": \"rtlab.progress/2\"}", "schema: unsupported \"rtlab.progress/2\"" },
		{ "{\"schema\": \"rtlab.progress/1\", \"lessons\": {\"03\": {\"read\": \"yes\"}}}",
		  "lessons.03.read: must be true or false" },
		{ "{\"schema\": \"rtlab.progress/1\", \"lessons\": {\"03\": {\"position\": -4}}}",
		  "lessons.03.position: must be a non-negative integer" },
		{ "{\"schema\": \"rtlab.progress/1\", \"lessons\": {\"a b\": {\"quiz\": "
		  "{\"q1\": {\"score\": \"full\"}}}}}",
		  "lessons[\"a b\"].quiz.q1.score: must be a number" },
		{ "{\"schema\": \"rtlab.progress/1\", \"lessons\": {\"03\": {\"predictions\": "
		  "{\"p\": {\"unit\": \"us\"}}}}}", "lessons.03.predictions.p.value: missing" },
		{ "{\"schema\": \"rtlab.progress/1\", \"labs\": {\"nop\": {\"status\": 3}}}",
		  "labs.nop.status: must be a string" },
		{ "{\"schema\": \"rtlab.progress/1\", \"labs\": []}", "labs: must be an object" },
		{ "{\"schema\": \"rtlab.progress/1\", \"labs\": {\"nop\": {\"status\": \"done\", "
		  "\"documents\": [\"a\", 3]}}}", "labs.nop.documents: item 1 must be a string" },
		{ "{\"schema\": \"rtlab.progress/1\", \"schema\": \"rtlab.progress/1\"}",
		  "duplicate object key" },
	};
	struct fixture *f = *state;
	char dir[160];

	snprintf(dir, sizeof(dir), "%s/p", f->dir);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *text = bad[i].text;
		size_t len = i == 0 ? 11 : strlen(text), alen;
		struct rt_progress *p = NULL;
		char *aside;

		write_file(f->path, text, len);
		rt_buf_reset(&f->log);
		assert_int_equal(rt_progress_load(f->path, &p, NULL), 0);
		assert_non_null(p);
		if (!strstr(rt_buf_str(&f->log), bad[i].names))
			fail_msg("case %zu: log \"%s\" lacks \"%s\"", i, rt_buf_str(&f->log),
				 bad[i].names);
		assert_non_null(strstr(rt_buf_str(&f->log), f->path));
		aside = take_corrupt(dir, &alen);
		assert_int_equal(alen, len);
		assert_memory_equal(aside, text, len);
		free(aside);
		rt_progress_free(p);
	}

	/* Two corrupt files in the same second get distinct names. */
	for (int i = 0; i < 3; i++) {
		struct rt_progress *p = NULL;

		write_file(f->path, "{", 1);
		assert_int_equal(rt_progress_load(f->path, &p, NULL), 0);
		rt_progress_free(p);
	}
	assert_true(count_prefixed(dir, "progress.json.corrupt-", true) == 3);
}

/* A file that cannot be read is an error, and nothing is moved or written. */
static void test_unreadable_is_error(void **state)
{
	struct fixture *f = *state;
	struct rt_progress *p = (void *)1;
	char dir[160], *cause = NULL;

	assert_int_equal(mkdir(f->path, 0700), 0);	/* a directory where the file should be */
	assert_int_equal(rt_progress_load(f->path, &p, &cause), -EISDIR);
	assert_null(p);
	assert_non_null(strstr(cause, f->path));
	free(cause);
	snprintf(dir, sizeof(dir), "%s/p", f->dir);
	assert_int_equal(count_prefixed(dir, "progress.json.corrupt-", false), 0);
	assert_int_equal(rmdir(f->path), 0);
}

/* ---- Concurrency --------------------------------------------------------- */

#define WRITERS	4
#define ROUNDS	50

struct bump {
	int child;
	int round;
};

static int bump(struct rt_progress *p, void *priv)
{
	const struct bump *b = priv;
	char lesson[32], qid[32];
	int ret;

	snprintf(lesson, sizeof(lesson), "child-%d", b->child);
	snprintf(qid, sizeof(qid), "c%d-r%d", b->child, b->round);
	ret = rt_progress_lesson_set_position(p, lesson,
					      rt_progress_lesson_position(p, lesson) + 1);
	if (!ret)
		ret = rt_progress_prediction_set(p, "shared", qid, b->round, "count");
	return ret;
}

static void test_concurrent_updates(void **state)
{
	struct fixture *f = *state;
	struct rt_progress *p = NULL;
	pid_t pids[WRITERS];
	unsigned int reads = 0, parsed = 0;
	int running = WRITERS;

	for (int w = 0; w < WRITERS; w++) {
		pids[w] = fork();
		assert_true(pids[w] >= 0);
		if (pids[w] == 0) {
			for (int r = 0; r < ROUNDS; r++) {
				struct bump b = { w, r };

				if (rt_progress_update(f->path, bump, &b, NULL))
					_exit(1);
			}
			_exit(0);
		}
	}
	while (running) {
		char *text = NULL, *cause = NULL;
		size_t len;
		int ret, status;

		ret = rt_file_read(f->path, RT_PROGRESS_MAX_FILE, &text, &len);
		reads++;
		if (ret != -ENOENT) {
			assert_int_equal(ret, 0);
			ret = rt_progress_parse(text, len, "snapshot", &p, &cause);
			if (ret)
				fail_msg("torn read: %s", cause);
			rt_progress_free(p);
			parsed++;
			free(text);
		}
		for (int w = 0; w < WRITERS; w++) {
			if (pids[w] > 0 && waitpid(pids[w], &status, WNOHANG) == pids[w]) {
				assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
				pids[w] = 0;
				running--;
			}
		}
	}
	assert_true(parsed > 0);
	assert_int_equal(rt_progress_load(f->path, &p, NULL), 0);
	for (int w = 0; w < WRITERS; w++) {
		char lesson[32];

		snprintf(lesson, sizeof(lesson), "child-%d", w);
		assert_int_equal(rt_progress_lesson_position(p, lesson), ROUNDS);
	}
	assert_int_equal(rt_progress_prediction_count(p, "shared"), WRITERS * ROUNDS);
	assert_int_equal(f->warnings, 0);
	rt_progress_free(p);
	print_message("%u reads, %u parsed while writing\n", reads, parsed);
}

static int refuse(struct rt_progress *p, void *priv)
{
	(void)priv;
	rt_progress_lesson_set_read(p, "03-latency", true);
	return -ECANCELED;
}

static int mark_read(struct rt_progress *p, void *priv)
{
	return rt_progress_lesson_set_read(p, priv, true);
}

static void test_update_refused_keeps_file(void **state)
{
	struct fixture *f = *state;
	struct rt_progress *p = NULL;

	assert_int_equal(rt_progress_update(f->path, mark_read, "01-intro", NULL), 0);
	assert_int_equal(rt_progress_update(f->path, refuse, NULL, NULL), -ECANCELED);
	assert_int_equal(rt_progress_load(f->path, &p, NULL), 0);
	assert_true(rt_progress_lesson_read(p, "01-intro"));
	assert_false(rt_progress_lesson_read(p, "03-latency"));
	rt_progress_free(p);

	/* A corrupt file met by an update is moved aside too, then updated afresh. */
	write_file(f->path, "{\"schema\":", 10);
	assert_int_equal(rt_progress_update(f->path, mark_read, "02-next", NULL), 0);
	assert_int_equal(f->warnings, 1);
	assert_int_equal(rt_progress_load(f->path, &p, NULL), 0);
	assert_true(rt_progress_lesson_read(p, "02-next"));
	assert_false(rt_progress_lesson_read(p, "01-intro"));
	rt_progress_free(p);
}

/* ---- Where the file lives ------------------------------------------------ */

static void test_state_dir_from_env(void **state)
{
	struct fixture *f = *state;
	char want[256], home[128];
	struct rt_progress *p = NULL;
	char *path;
	struct stat st;

	/* XDG_STATE_HOME (absent directory): created on demand, mode 0700. */
	assert_int_equal(stat(f->state, &st), -1);
	path = rt_progress_default_path();
	assert_non_null(path);
	snprintf(want, sizeof(want), "%s/rtlab/progress.json", f->state);
	assert_string_equal(path, want);
	free(path);
	snprintf(want, sizeof(want), "%s/rtlab", f->state);
	assert_int_equal(stat(want, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);

	/* NULL path means the default, for load, update and save. */
	assert_int_equal(rt_progress_update(NULL, mark_read, "05-irq", NULL), 0);
	assert_int_equal(rt_progress_load(NULL, &p, NULL), 0);
	assert_true(rt_progress_lesson_read(p, "05-irq"));
	snprintf(want, sizeof(want), "%s/rtlab/progress.json", f->state);
	assert_string_equal(rt_progress_path(p), want);
	rt_progress_free(p);

	/* Without XDG_STATE_HOME (or with a relative one): ~/.local/state/rtlab. */
	snprintf(home, sizeof(home), "%s/home", f->dir);
	setenv("HOME", home, 1);
	setenv("XDG_STATE_HOME", "relative/dir", 1);
	path = rt_progress_default_path();
	assert_non_null(path);
	snprintf(want, sizeof(want), "%s/.local/state/rtlab/progress.json", home);
	assert_string_equal(path, want);
	free(path);
	unsetenv("XDG_STATE_HOME");
	path = rt_progress_default_path();
	assert_string_equal(path, want);
	free(path);

	/* Neither: no place to keep progress, and the caller is told why. */
	unsetenv("HOME");
	errno = 0;
	assert_null(rt_progress_default_path());
	assert_int_equal(errno, ENOENT);
	{
		char *cause = NULL;

		assert_int_equal(rt_progress_load(NULL, &p, &cause), -ENOENT);
		assert_non_null(cause);
		free(cause);
	}
}

/* Saving to a path whose directory does not exist yet creates it. */
static void test_save_creates_dir(void **state)
{
	struct fixture *f = *state;
	struct rt_progress *p;
	char path[256];

	snprintf(path, sizeof(path), "%s/a/b/c/progress.json", f->dir);
	p = rt_progress_new(path);
	assert_non_null(p);
	assert_int_equal(rt_progress_lesson_set_read(p, "x", true), 0);
	assert_int_equal(rt_progress_save(p, NULL), 0);
	assert_int_equal(access(path, R_OK), 0);
	rt_progress_free(p);
	snprintf(path, sizeof(path), "%s/d/e/progress.json", f->dir);
	assert_int_equal(rt_progress_update(path, mark_read, "y", NULL), 0);
	assert_int_equal(access(path, R_OK), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_setters_refuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_fields_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lab_documents, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_file_is_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated_moved_aside, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_moved_aside, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable_is_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_updates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_update_refused_keeps_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_dir_from_env, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_creates_dir, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
