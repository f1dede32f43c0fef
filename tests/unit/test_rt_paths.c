/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for rt_paths: XDG state dir rules and data dir lookup. */
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

#include "core/rt_paths.h"

static char tmpdir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(tmpdir, "/tmp/rtlab-test-paths-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_xdg_state_home(void **state)
{
	char expect[128];
	struct stat st;
	char *dir, *file;

	(void)state;
	setenv("XDG_STATE_HOME", tmpdir, 1);
	dir = rt_paths_state_dir();
	assert_non_null(dir);
	snprintf(expect, sizeof(expect), "%s/rtlab", tmpdir);
	assert_string_equal(dir, expect);
	assert_int_equal(stat(dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	file = rt_paths_state_file("progress.json");
	snprintf(expect, sizeof(expect), "%s/rtlab/progress.json", tmpdir);
	assert_string_equal(file, expect);
	free(dir);
	free(file);
}

static void test_home_default(void **state)
{
	char expect[128];
	char *dir;

	(void)state;
	unsetenv("XDG_STATE_HOME");
	setenv("HOME", tmpdir, 1);
	dir = rt_paths_state_dir();
	snprintf(expect, sizeof(expect), "%s/.local/state/rtlab", tmpdir);
	assert_non_null(dir);
	assert_string_equal(dir, expect);
	free(dir);

	/* A relative XDG_STATE_HOME is invalid per the spec and is ignored. */
	setenv("XDG_STATE_HOME", "relative/dir", 1);
	dir = rt_paths_state_dir();
	assert_string_equal(dir, expect);
	free(dir);
}

static void test_no_home(void **state)
{
	(void)state;
	unsetenv("XDG_STATE_HOME");
	unsetenv("HOME");
	errno = 0;
	assert_null(rt_paths_state_dir());
	assert_int_equal(errno, ENOENT);
}

static void test_data_dir(void **state)
{
	char *dir;

	(void)state;
	setenv("RTLAB_DATADIR", "/opt/rtlab-data", 1);
	dir = rt_paths_data_dir();
	assert_string_equal(dir, "/opt/rtlab-data");
	free(dir);
	unsetenv("RTLAB_DATADIR");
	/* Tests run from the build tree, so the source tree's data is found. */
	dir = rt_paths_data_dir();
	assert_non_null(dir);
	{
		char probe[4200];
		struct stat st;

		snprintf(probe, sizeof(probe), "%s/lessons", dir);
		assert_int_equal(stat(probe, &st), 0);
	}
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xdg_state_home),
		cmocka_unit_test(test_home_default),
		cmocka_unit_test(test_no_home),
		cmocka_unit_test(test_data_dir),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
