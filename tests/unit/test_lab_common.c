/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for lab_common's saving of a run's results document: a default
 * name never replaces a file (also where RENAME_NOREPLACE is missing: the
 * link() fallback, reached by wrapping renameat2), a named file is replaced,
 * an unwritable place fails at open, a late failure lands in the state
 * directory or $TMPDIR, and no temporary file is left behind.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/rt_env.h"
#include "core/rt_file.h"
#include "core/rt_result.h"
#include "labs/lab.h"

/* ---- renameat2 without RENAME_NOREPLACE (-Wl,--wrap=renameat2) ------------- */

static bool renameat2_unsupported;
static unsigned int renameat2_calls;

int __real_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
		     unsigned int flags);
int __wrap_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
		     unsigned int flags);

int __wrap_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
		     unsigned int flags)
{
	renameat2_calls++;
	if (renameat2_unsupported) {
		errno = EINVAL;	/* what a filesystem without the flag says */
		return -1;
	}
	return __real_renameat2(olddirfd, oldpath, newdirfd, newpath, flags);
}

/* ---- Fixture ----------------------------------------------------------------- */

struct fixture {
	char dir[64];
	char results[128];	/* <dir>/state/rtlab/results */
	char tmpdir[128];	/* <dir>/tmp, as $TMPDIR */
	struct rt_result *res;
};

static int setup(void **state)
{
	static const struct rt_env env = { 0 };
	struct fixture *f = calloc(1, sizeof(*f));
	char state_dir[96];

	if (!f)
		return -1;
	strcpy(f->dir, "/tmp/rtlab-test-save-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(state_dir, sizeof(state_dir), "%s/state", f->dir);
	snprintf(f->results, sizeof(f->results), "%s/rtlab/results", state_dir);
	snprintf(f->tmpdir, sizeof(f->tmpdir), "%s/tmp", f->dir);
	if (mkdir(f->tmpdir, 0700) < 0)
		return -1;
	setenv("XDG_STATE_HOME", state_dir, 1);
	setenv("TMPDIR", f->tmpdir, 1);
	f->res = rt_result_new("latency", "simulation", &env);
	if (!f->res)
		return -1;
	renameat2_unsupported = false;
	renameat2_calls = 0;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	rt_result_free(f->res);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

/* Entries of @dir whose name contains @part (NULL: all). */
static int count_entries(const char *dir, const char *part)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    (!part || strstr(e->d_name, part)))
			n++;
	closedir(d);
	return n;
}

static void assert_valid_document(const char *path)
{
	struct rt_result *back = NULL;
	char *cause = NULL;

	assert_int_equal(rt_result_read(path, NULL, &back, &cause), 0);
	assert_string_equal(rt_result_lab(back), "latency");
	rt_result_free(back);
}

static void write_text(const char *path, const char *text)
{
	assert_int_equal(rt_file_write_atomic(path, text, strlen(text), 0644, NULL), 0);
}

/* Take every default name of the next @secs seconds, so that a commit must pick "-2". */
static void take_default_names(const struct fixture *f, int secs)
{
	time_t now = time(NULL);

	assert_int_equal(rt_mkdir_p(f->results, 0700), 0);
	for (int i = 0; i <= secs; i++) {
		char stamp[32], path[256];
		time_t t = now + i;
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
		snprintf(path, sizeof(path), "%s/latency-%s.json", f->results, stamp);
		write_text(path, "taken");
	}
}

/* ---- Tests ------------------------------------------------------------------- */

static void check_default_never_replaces(struct fixture *f)
{
	struct lab_save a, b;
	char *cause = NULL;
	size_t len;

	take_default_names(f, 5);
	/* Both open before either commits: two runs started in the same second. */
	assert_int_equal(lab_save_open(&a, "latency", NULL, &cause), 0);
	assert_int_equal(lab_save_open(&b, "latency", NULL, &cause), 0);
	assert_int_equal(count_entries(f->results, ".tmp."), 2);
	assert_int_equal(lab_save_commit(&a, f->res, &cause), 0);
	assert_int_equal(lab_save_commit(&b, f->res, &cause), 0);
	assert_null(cause);
	assert_null(a.missed);
	assert_null(b.missed);
	assert_string_not_equal(a.path, b.path);
	assert_true(strncmp(a.path, f->results, strlen(f->results)) == 0);
	len = strlen(a.path);
	assert_string_equal(a.path + len - 7, "-2.json");
	assert_string_equal(b.path + strlen(b.path) - 7, "-3.json");
	assert_valid_document(a.path);
	assert_valid_document(b.path);
	/* The six taken names plus the two new documents, and no temporary file. */
	assert_int_equal(count_entries(f->results, NULL), 8);
	assert_int_equal(count_entries(f->results, ".tmp."), 0);
	lab_save_fini(&a);
	lab_save_fini(&b);
}

static void test_default_never_replaces(void **state)
{
	check_default_never_replaces(*state);
	assert_true(renameat2_calls > 0);
}

/* Where RENAME_NOREPLACE is missing (EINVAL), link() refuses to replace instead. */
static void test_default_never_replaces_by_link(void **state)
{
	renameat2_unsupported = true;
	check_default_never_replaces(*state);
	assert_true(renameat2_calls > 0);
}

static void test_named_target_replaced(void **state)
{
	struct fixture *f = *state;
	struct lab_save s;
	char target[160], *cause = NULL;

	snprintf(target, sizeof(target), "%s/mine.json", f->dir);
	write_text(target, "old");
	assert_int_equal(lab_save_open(&s, "latency", target, &cause), 0);
	assert_int_equal(lab_save_commit(&s, f->res, &cause), 0);
	assert_string_equal(s.path, target);
	assert_null(s.missed);
	assert_valid_document(target);
	/* Only the target and the fixture's state and tmp directories remain. */
	assert_int_equal(count_entries(f->dir, ".tmp."), 0);
	lab_save_fini(&s);
}

static void test_open_refuses_early(void **state)
{
	struct fixture *f = *state;
	struct lab_save s;
	char target[160], *cause = NULL;

	snprintf(target, sizeof(target), "%s/missing/out.json", f->dir);
	assert_int_equal(lab_save_open(&s, "latency", target, &cause), -ENOENT);
	assert_non_null(strstr(cause, target));
	assert_non_null(strstr(cause, "No such file or directory"));
	free(cause);
	cause = NULL;
	assert_null(s.tmp);
	lab_save_fini(&s);

	/* A directory (or a device) is never replaced by a document. */
	assert_int_equal(lab_save_open(&s, "latency", f->tmpdir, &cause), -EINVAL);
	assert_non_null(strstr(cause, "not a regular file"));
	free(cause);
	cause = NULL;
	assert_int_equal(lab_save_open(&s, "latency", "/dev/null", &cause), -EINVAL);
	free(cause);
	cause = NULL;

	/* The state directory's results/ cannot be made: a file is in its way. */
	assert_int_equal(rt_mkdir_p(f->results, 0700), 0);
	assert_int_equal(rmdir(f->results), 0);
	write_text(f->results, "in the way");
	assert_int_equal(lab_save_open(&s, "latency", NULL, &cause), -ENOTDIR);
	assert_non_null(strstr(cause, "cannot make the results directory"));
	free(cause);
}

/* The directory of a named target vanished while the run measured. */
static void test_late_failure_goes_to_state(void **state)
{
	struct fixture *f = *state;
	struct lab_save s;
	char sub[160], target[192], *cause = NULL;

	snprintf(sub, sizeof(sub), "%s/late", f->dir);
	snprintf(target, sizeof(target), "%s/out.json", sub);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(lab_save_open(&s, "latency", target, &cause), 0);
	assert_int_equal(unlink(s.tmp), 0);
	assert_int_equal(rmdir(sub), 0);
	assert_int_equal(lab_save_commit(&s, f->res, &cause), 0);
	assert_null(cause);
	assert_non_null(s.missed);
	assert_non_null(strstr(s.missed, target));
	assert_non_null(strstr(s.missed, "No such file or directory"));
	assert_true(strncmp(s.path, f->results, strlen(f->results)) == 0);
	assert_valid_document(s.path);
	lab_save_fini(&s);
}

/* The results directory vanished: $TMPDIR, readable by the owner only. */
static void test_late_failure_goes_to_tmpdir(void **state)
{
	struct fixture *f = *state;
	struct lab_save s;
	char *cause = NULL, cmd[320];
	struct stat st;

	assert_int_equal(lab_save_open(&s, "latency", NULL, &cause), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->results);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(lab_save_commit(&s, f->res, &cause), 0);
	assert_non_null(s.missed);
	assert_true(strncmp(s.path, f->tmpdir, strlen(f->tmpdir)) == 0);
	assert_non_null(strstr(s.path, "/rtlab-latency-"));
	assert_int_equal(stat(s.path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_valid_document(s.path);
	lab_save_fini(&s);
}

/* No place at all: an error that says what failed where. */
static void test_nowhere(void **state)
{
	struct fixture *f = *state;
	struct lab_save s;
	char *cause = NULL, cmd[320];

	assert_int_equal(lab_save_open(&s, "latency", NULL, &cause), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", f->results, f->tmpdir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(lab_save_commit(&s, f->res, &cause), -ENOENT);
	assert_non_null(strstr(cause, "the results document was not saved"));
	assert_non_null(strstr(cause, f->tmpdir));
	assert_null(s.path);
	free(cause);
	lab_save_fini(&s);
}

/* A run that left no document, or an invalid one: the temporary file goes. */
static void test_fini_removes_tmp(void **state)
{
	struct fixture *f = *state;
	struct lab_save s, zero;
	char *cause = NULL;

	memset(&zero, 0, sizeof(zero));
	lab_save_fini(&zero);
	assert_int_equal(lab_save_open(&s, "latency", NULL, &cause), 0);
	assert_int_equal(count_entries(f->results, ".tmp."), 1);
	lab_save_fini(&s);
	assert_int_equal(count_entries(f->results, NULL), 0);

	assert_int_equal(lab_save_open(&s, "latency", NULL, &cause), 0);
	assert_int_equal(json_object_set_new(rt_result_json(f->res), "bogus", json_true()), 0);
	assert_int_equal(lab_save_commit(&s, f->res, &cause), -EINVAL);
	assert_non_null(strstr(cause, "bogus"));
	free(cause);
	lab_save_fini(&s);
	assert_int_equal(count_entries(f->results, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_default_never_replaces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_never_replaces_by_link, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_named_target_replaced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_refuses_early, setup, teardown),
		cmocka_unit_test_setup_teardown(test_late_failure_goes_to_state, setup, teardown),
		cmocka_unit_test_setup_teardown(test_late_failure_goes_to_tmpdir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nowhere, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fini_removes_tmp, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
