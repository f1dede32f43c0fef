/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for rt_which: a program is found in $PATH and, when $PATH
 * lacks them, in the system directories, but by rt_which_in() only in the
 * directories it is given or in $PATH (a default one when it is unset); a
 * name with a '/' is only checked; a directory, a file without the execute
 * bit, a relative $PATH entry and a missing name all give ENOENT.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/rt_which.h"

struct fx {
	char dir[64];		/* holds prog (executable), data (not), sub/ (a directory) */
	char *old_path;
	char *old_cwd;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char path[128];
	FILE *fp;

	if (!f)
		return -1;
	strcpy(f->dir, "/tmp/rtlab-test-which-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(path, sizeof(path), "%s/prog", f->dir);
	fp = fopen(path, "w");
	if (!fp || fputs("#!/bin/sh\n", fp) < 0 || fclose(fp) || chmod(path, 0755))
		return -1;
	snprintf(path, sizeof(path), "%s/data", f->dir);
	fp = fopen(path, "w");
	if (!fp || fclose(fp))
		return -1;
	snprintf(path, sizeof(path), "%s/sub", f->dir);
	if (mkdir(path, 0755))
		return -1;
	f->old_path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	f->old_cwd = getcwd(NULL, 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char path[128];

	if (f->old_path)
		setenv("PATH", f->old_path, 1);
	if (f->old_cwd && chdir(f->old_cwd))
		return -1;
	snprintf(path, sizeof(path), "%s/prog", f->dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/data", f->dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sub", f->dir);
	rmdir(path);
	rmdir(f->dir);
	free(f->old_path);
	free(f->old_cwd);
	free(f);
	return 0;
}

static void assert_missing(const char *prog)
{
	errno = 0;
	assert_null(rt_which(prog));
	assert_int_equal(errno, ENOENT);
}

static void assert_missing_in(const char *prog, const char *dirs)
{
	char *p;

	errno = 0;
	p = rt_which_in(prog, dirs);
	assert_null(p);
	assert_int_equal(errno, ENOENT);
}

static void test_found(void **state)
{
	struct fx *f = *state;
	char want[128], *p;

	snprintf(want, sizeof(want), "%s/prog", f->dir);
	setenv("PATH", f->dir, 1);
	p = rt_which("prog");
	assert_non_null(p);
	assert_string_equal(p, want);
	free(p);
	/* Not in $PATH, but in the system directories searched after it. */
	p = rt_which("sh");
	assert_non_null(p);
	assert_int_equal(access(p, X_OK), 0);
	free(p);
	/* A path is checked, not searched. */
	p = rt_which(want);
	assert_non_null(p);
	assert_string_equal(p, want);
	free(p);
}

static void test_which_in(void **state)
{
	struct fx *f = *state;
	char want[128], *p;

	snprintf(want, sizeof(want), "%s/prog", f->dir);
	setenv("PATH", f->dir, 1);
	p = rt_which_in("prog", NULL);
	assert_non_null(p);
	assert_string_equal(p, want);
	free(p);
	/* $PATH only, as execvp() searches: the system directories are not added. */
	assert_missing_in("sh", NULL);
	assert_missing_in("prog", "/nonexistent-rtlab:relative");
	/* Given directories win over $PATH. */
	setenv("PATH", "/nonexistent-rtlab", 1);
	p = rt_which_in("prog", f->dir);
	assert_non_null(p);
	assert_string_equal(p, want);
	free(p);
	/* $PATH unset: the usual directories. */
	unsetenv("PATH");
	p = rt_which_in("sh", NULL);
	assert_non_null(p);
	assert_int_equal(access(p, X_OK), 0);
	free(p);
}

static void test_missing(void **state)
{
	struct fx *f = *state;
	char path[128];

	setenv("PATH", f->dir, 1);
	assert_missing("rtlab-no-such-program-here");
	assert_missing("data");		/* not executable */
	assert_missing("sub");		/* a directory */
	assert_missing("");
	assert_missing(NULL);
	snprintf(path, sizeof(path), "%s/data", f->dir);
	assert_missing(path);
	/* A relative entry would depend on the current directory: skipped. */
	assert_int_equal(chdir(f->dir), 0);
	setenv("PATH", ".", 1);
	assert_missing("prog");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_found, setup, teardown),
		cmocka_unit_test_setup_teardown(test_which_in, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
