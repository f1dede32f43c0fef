/*
 * Unit tests for rt_file: atomic replacement leaves no temporary files,
 * failures leave the target untouched, reads handle size-0 proc files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/rt_err.h"
#include "core/rt_file.h"

struct fixture {
	char dir[64];
	char path[128];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	strcpy(f->dir, "/tmp/rtlab-test-file-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/target", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void test_write_read_roundtrip(void **state)
{
	struct fixture *f = *state;
	const char bin[] = { 'x', 0, '\n', (char)0x80 };
	char *data = NULL;
	size_t len = 0;
	struct stat st;

	assert_int_equal(rt_file_write_atomic(f->path, "first\n", 6, 0600, NULL), 0);
	assert_int_equal(rt_file_write_atomic(f->path, bin, sizeof(bin), 0644, NULL), 0);
	assert_int_equal(rt_file_read(f->path, 1024, &data, &len), 0);
	assert_int_equal(len, sizeof(bin));
	assert_memory_equal(data, bin, sizeof(bin));
	assert_int_equal(data[len], 0);
	free(data);
	assert_int_equal(stat(f->path, &st), 0);
	assert_int_equal(count_entries(f->dir), 1);
}

static void test_write_empty(void **state)
{
	struct fixture *f = *state;
	char *data = NULL;
	size_t len = 99;

	assert_int_equal(rt_file_write_atomic(f->path, "", 0, 0600, NULL), 0);
	assert_int_equal(rt_file_read(f->path, 10, &data, &len), 0);
	assert_int_equal(len, 0);
	assert_string_equal(data, "");
	free(data);
}

static void test_write_failure_names_file(void **state)
{
	struct fixture *f = *state;
	char bad[192];
	char *cause = NULL;
	int ret;

	snprintf(bad, sizeof(bad), "%s/no/such/dir/file", f->dir);
	ret = rt_file_write_atomic(bad, "x", 1, 0600, &cause);
	assert_int_equal(ret, -ENOENT);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "no/such/dir/file"));
	free(cause);
	assert_int_equal(count_entries(f->dir), 0);
}

static void test_read_limits(void **state)
{
	struct fixture *f = *state;
	char big[10000];
	char *data = NULL;

	memset(big, 'a', sizeof(big));
	assert_int_equal(rt_file_write_atomic(f->path, big, sizeof(big), 0600, NULL), 0);
	assert_int_equal(rt_file_read(f->path, 9999, &data, NULL), -EFBIG);
	assert_null(data);
	assert_int_equal(rt_file_read(f->path, 10000, &data, NULL), 0);
	free(data);
	assert_int_equal(rt_file_read("/nonexistent/rtlab", 10, &data, NULL), -ENOENT);
}

static void test_read_procfs(void **state)
{
	char *data = NULL;
	size_t len = 0;

	(void)state;
	/* procfs reports size 0; the reader must still get the contents. */
	assert_int_equal(rt_file_read("/proc/self/status", 1 << 20, &data, &len), 0);
	assert_true(len > 0);
	assert_non_null(strstr(data, "Pid:"));
	free(data);
}

static void test_mkdir_p(void **state)
{
	struct fixture *f = *state;
	char deep[192];
	struct stat st;

	snprintf(deep, sizeof(deep), "%s/a/b/c", f->dir);
	assert_int_equal(rt_mkdir_p(deep, 0700), 0);
	assert_int_equal(rt_mkdir_p(deep, 0700), 0);
	assert_int_equal(stat(deep, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(rt_file_write_atomic(f->path, "x", 1, 0600, NULL), 0);
	assert_int_equal(rt_mkdir_p(f->path, 0700), -ENOTDIR);
	assert_int_equal(rt_mkdir_p("", 0700), -EINVAL);
}

/* Many processes replacing one file: every read sees one complete version. */
static void test_concurrent_writers_never_tear(void **state)
{
	struct fixture *f = *state;
	enum { WRITERS = 4, ROUNDS = 200, SIZE = 8192 };
	pid_t pids[WRITERS];

	assert_int_equal(rt_file_write_atomic(f->path, "", 0, 0600, NULL), 0);
	for (int w = 0; w < WRITERS; w++) {
		pids[w] = fork();
		assert_true(pids[w] >= 0);
		if (pids[w] == 0) {
			char buf[SIZE];

			memset(buf, 'A' + w, sizeof(buf));
			for (int r = 0; r < ROUNDS; r++)
				if (rt_file_write_atomic(f->path, buf, sizeof(buf), 0600, NULL))
					_exit(1);
			_exit(0);
		}
	}
	for (int r = 0; r < 400; r++) {
		char *data = NULL;
		size_t len = 0;

		assert_int_equal(rt_file_read(f->path, SIZE, &data, &len), 0);
		if (len) {
			assert_int_equal(len, SIZE);
			for (size_t i = 1; i < len; i++)
				assert_int_equal(data[i], data[0]);
		}
		free(data);
	}
	for (int w = 0; w < WRITERS; w++) {
		int status;

		assert_int_equal(waitpid(pids[w], &status, 0), pids[w]);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	assert_int_equal(count_entries(f->dir), 1);
}

static void test_rt_err_keeps_first(void **state)
{
	char *cause = NULL;

	(void)state;
	assert_int_equal(rt_err(&cause, -EIO, "inner %d", 1), -EIO);
	assert_int_equal(rt_err(&cause, -EPERM, "outer"), -EPERM);
	assert_string_equal(cause, "inner 1");
	free(cause);
	assert_int_equal(rt_err(NULL, -EINVAL, "ignored"), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_write_read_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_failure_names_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_limits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_procfs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mkdir_p, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_writers_never_tear, setup, teardown),
		cmocka_unit_test(test_rt_err_keeps_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
