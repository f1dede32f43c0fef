/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for rt_file: atomic replacement leaves no temporary files,
 * failures leave the target untouched, reads handle size-0 proc files,
 * reads by name refuse (never hang on) FIFOs, devices and directories and
 * follow links only where allowed, the line reader stays bounded, and the
 * temporary files of killed writers go while a live writer's stay, and a
 * load beneath a folder never leaves it.
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
#include <fcntl.h>
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

/*
 * A FIFO with no writer would block open() forever: it must be refused at
 * once, and say what it is. The alarm turns a hang into a failure.
 */
static void test_read_refuses_fifo(void **state)
{
	struct fixture *f = *state;
	char *data = NULL, *cause = NULL;
	int fd;

	assert_int_equal(mkfifo(f->path, 0600), 0);
	alarm(10);
	assert_int_equal(rt_file_load(f->path, 0, 1024, &data, NULL, &cause), -EINVAL);
	assert_null(data);
	assert_non_null(cause);
	assert_non_null(strstr(cause, f->path));
	assert_non_null(strstr(cause, "is a FIFO, not a regular file"));
	free(cause);
	cause = NULL;
	assert_int_equal(rt_file_read(f->path, 1024, &data, NULL), -EINVAL);
	fd = rt_file_open_read(f->path, RT_FILE_NOFOLLOW, 0, &cause);
	assert_int_equal(fd, -EINVAL);
	free(cause);
	alarm(0);
}

static void test_read_refuses_devices_and_dirs(void **state)
{
	struct fixture *f = *state;
	char *data = NULL, *cause = NULL;

	(void)f;
	alarm(10);
	assert_int_equal(rt_file_load("/dev/zero", 0, 1024, &data, NULL, &cause), -EINVAL);
	assert_non_null(strstr(cause, "/dev/zero: is a character device, not a regular file"));
	free(cause);
	cause = NULL;
	assert_int_equal(rt_file_load(f->dir, 0, 1024, &data, NULL, &cause), -EISDIR);
	assert_non_null(strstr(cause, "is a directory, not a regular file"));
	free(cause);
	cause = NULL;
	assert_int_equal(rt_file_load("/nonexistent/rtlab", 0, 10, &data, NULL, &cause), -ENOENT);
	assert_string_equal(cause, "/nonexistent/rtlab: cannot read: No such file or directory");
	free(cause);
	alarm(0);
	assert_string_equal(rt_file_kind(S_IFSOCK), "a socket");
	assert_string_equal(rt_file_kind(S_IFBLK), "a block device");
}

/* The size is capped before a byte is read; the descriptor is blocking. */
static void test_open_read_cap_and_flags(void **state)
{
	struct fixture *f = *state;
	char *cause = NULL;
	int fd;

	assert_int_equal(rt_file_write_atomic(f->path, "0123456789", 10, 0600, NULL), 0);
	assert_int_equal(rt_file_open_read(f->path, 0, 9, &cause), -EFBIG);
	assert_non_null(strstr(cause, "larger than 9 bytes"));
	free(cause);
	cause = NULL;
	fd = rt_file_open_read(f->path, 0, 10, &cause);
	assert_true(fd >= 0);
	assert_null(cause);
	assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
}

/* Links: followed by default (a path a person named), refused under NOFOLLOW. */
static void test_open_read_links(void **state)
{
	struct fixture *f = *state;
	char link[192], lock[192], *cause = NULL, *data = NULL;
	struct stat st;
	int fd;

	assert_int_equal(rt_file_write_atomic(f->path, "x", 1, 0600, NULL), 0);
	snprintf(link, sizeof(link), "%s/link", f->dir);
	assert_int_equal(symlink(f->path, link), 0);
	assert_int_equal(rt_file_load(link, 0, 10, &data, NULL, NULL), 0);
	assert_string_equal(data, "x");
	free(data);
	assert_int_equal(rt_file_open_read(link, RT_FILE_NOFOLLOW, 10, &cause), -ELOOP);
	assert_non_null(strstr(cause, "is a symbolic link"));
	free(cause);
	cause = NULL;

	/* A lock is created when missing, never through a link, never as a FIFO. */
	snprintf(lock, sizeof(lock), "%s/new.lock", f->dir);
	fd = rt_file_open_read(lock, RT_FILE_NOFOLLOW | RT_FILE_CREATE, 0, NULL);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(stat(lock, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	snprintf(lock, sizeof(lock), "%s/dangling.lock", f->dir);
	snprintf(link, sizeof(link), "%s/not-there", f->dir);
	assert_int_equal(symlink(link, lock), 0);
	assert_int_equal(rt_file_open_read(lock, RT_FILE_NOFOLLOW | RT_FILE_CREATE, 0, NULL),
			 -ELOOP);
	assert_int_equal(lstat(link, &st), -1);
}

/* A FIFO, directory or device as the target is refused, never replaced. */
static void test_write_refuses_special_target(void **state)
{
	struct fixture *f = *state;
	char link[192], *cause = NULL;
	struct stat st;

	assert_int_equal(mkfifo(f->path, 0600), 0);
	alarm(10);
	assert_int_equal(rt_file_write_atomic(f->path, "x", 1, 0600, &cause), -EINVAL);
	alarm(0);
	assert_non_null(strstr(cause, "is a FIFO, not a regular file; not replaced"));
	free(cause);
	assert_int_equal(lstat(f->path, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(count_entries(f->dir), 1);
	assert_int_equal(unlink(f->path), 0);
	assert_int_equal(mkdir(f->path, 0700), 0);
	assert_int_equal(rt_file_write_atomic(f->path, "x", 1, 0600, NULL), -EISDIR);
	assert_int_equal(rmdir(f->path), 0);

	/* A link is replaced by the new file: its target is never written. */
	snprintf(link, sizeof(link), "%s/other", f->dir);
	assert_int_equal(rt_file_write_atomic(link, "keep", 4, 0600, NULL), 0);
	assert_int_equal(symlink(link, f->path), 0);
	assert_int_equal(rt_file_write_atomic(f->path, "new", 3, 0600, NULL), 0);
	assert_int_equal(lstat(f->path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(stat(link, &st), 0);
	assert_int_equal(st.st_size, 4);
}

static FILE *input_of(const char *bytes, size_t len)
{
	FILE *in = fmemopen((void *)bytes, len, "r");

	assert_non_null(in);
	return in;
}

static void test_getline(void **state)
{
	static const char text[] = "ab\r\n\nlonger than eight\nx\0y\nlast";
	struct rt_buf line = RT_BUF_INIT;
	size_t budget = 1000;
	FILE *in = input_of(text, sizeof(text) - 1);

	(void)state;
	assert_int_equal(rt_file_getline(in, &line, 8, &budget), 2);
	assert_string_equal(rt_buf_str(&line), "ab");
	assert_int_equal(rt_file_getline(in, &line, 8, &budget), 0);
	assert_int_equal(rt_file_getline(in, &line, 8, &budget), -E2BIG);
	assert_int_equal(line.len, 0);
	assert_int_equal(rt_file_getline(in, &line, 8, &budget), -EILSEQ);
	assert_int_equal(rt_file_getline(in, &line, 8, &budget), 4);
	assert_string_equal(rt_buf_str(&line), "last");
	assert_int_equal(rt_file_getline(in, &line, 8, &budget), -ENODATA);
	assert_int_equal(budget, 1000 - (sizeof(text) - 1));
	fclose(in);
	rt_buf_fini(&line);
}

/* Endless input without a newline: memory stays at the cap, the budget ends it. */
static void test_getline_endless(void **state)
{
	struct rt_buf line = RT_BUF_INIT;
	size_t budget = 1 << 20;
	FILE *zero = fopen("/dev/zero", "r");

	(void)state;
	assert_non_null(zero);
	alarm(10);
	assert_int_equal(rt_file_getline(zero, &line, 256, &budget), -EFBIG);
	alarm(0);
	assert_int_equal(budget, 0);
	assert_true(line.cap <= 512);
	assert_int_equal(rt_file_getline(zero, &line, 256, &budget), -EFBIG);
	fclose(zero);
	rt_buf_fini(&line);
}

/* A pid that existed and is gone: a child that has exited and been reaped. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return pid;
}

static void touch(const char *dir, const char *fmt, long pid)
{
	char name[256], path[512];
	int fd;

	snprintf(name, sizeof(name), fmt, pid);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
}

static bool exists(const char *dir, const char *fmt, long pid)
{
	char name[256], path[512];

	snprintf(name, sizeof(name), fmt, pid);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

static void test_sweep_dead_temps(void **state)
{
	struct fixture *f = *state;
	long dead = dead_pid(), live = getppid(), self = getpid();

	touch(f->dir, "target.tmp.%ld.0", dead);
	touch(f->dir, "target.tmp.%ld.7", live);
	touch(f->dir, "target.tmp.%ld.1", self);
	touch(f->dir, "other.tmp.%ld.0", dead);
	touch(f->dir, "target.tmp.%ld.0.bak", dead);
	touch(f->dir, "target.tmp.%ldx.0", dead);

	/* The write of "target" removes only the dead writer's file of "target". */
	assert_int_equal(rt_file_write_atomic(f->path, "x", 1, 0644, NULL), 0);
	assert_false(exists(f->dir, "target.tmp.%ld.0", dead));
	assert_true(exists(f->dir, "target.tmp.%ld.7", live));
	assert_true(exists(f->dir, "target.tmp.%ld.1", self));
	assert_true(exists(f->dir, "other.tmp.%ld.0", dead));
	assert_true(exists(f->dir, "target.tmp.%ld.0.bak", dead));
	assert_true(exists(f->dir, "target.tmp.%ldx.0", dead));

	/* A whole directory: every dead writer's, still no live one's. */
	assert_int_equal(rt_file_sweep_temps(f->dir, true), 1);
	assert_false(exists(f->dir, "other.tmp.%ld.0", dead));
	assert_true(exists(f->dir, "target.tmp.%ld.7", live));
	assert_true(exists(f->dir, "target.tmp.%ld.1", self));
	assert_int_equal(rt_file_sweep_temps("/nonexistent-rtlab-dir", true), -ENOENT);
}

static void test_load_beneath(void **state)
{
	struct fixture *f = *state;
	char p[256], *data = NULL, *cause = NULL;

	snprintf(p, sizeof(p), "%s/in", f->dir);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/in/sub", f->dir);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/in/sub/a", f->dir);
	assert_int_equal(rt_file_write_atomic(p, "a", 1, 0644, NULL), 0);
	assert_int_equal(rt_file_write_atomic(f->path, "out", 3, 0644, NULL), 0);
	snprintf(p, sizeof(p), "%s/in/link", f->dir);
	assert_int_equal(symlink(f->path, p), 0);
	snprintf(p, sizeof(p), "%s/in/up", f->dir);
	assert_int_equal(symlink(f->dir, p), 0);
	snprintf(p, sizeof(p), "%s/in", f->dir);

	assert_int_equal(rt_file_load_beneath(p, "sub/a", 16, &data, NULL, NULL), 0);
	assert_string_equal(data, "a");
	free(data);
	assert_int_equal(rt_file_load_beneath(p, "../target", 16, &data, NULL, NULL), -EINVAL);
	assert_int_equal(rt_file_load_beneath(p, "sub/../../target", 16, &data, NULL, NULL),
			 -EINVAL);
	assert_int_equal(rt_file_load_beneath(p, f->path, 16, &data, NULL, NULL), -EINVAL);
	assert_int_equal(rt_file_load_beneath(p, "link", 16, &data, NULL, &cause), -ELOOP);
	/* The message names the relative path only, never the folder. */
	assert_non_null(strstr(cause, "link: "));
	assert_null(strstr(cause, f->dir));
	free(cause);
	assert_int_equal(rt_file_load_beneath(p, "up/target", 16, &data, NULL, NULL), -ELOOP);
	assert_int_equal(rt_file_load_beneath(p, "sub", 16, &data, NULL, NULL), -EISDIR);
	assert_null(data);
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
		cmocka_unit_test_setup_teardown(test_read_refuses_fifo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_refuses_devices_and_dirs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_read_cap_and_flags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_read_links, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_refuses_special_target, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sweep_dead_temps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_beneath, setup, teardown),
		cmocka_unit_test(test_getline),
		cmocka_unit_test(test_getline_endless),
		cmocka_unit_test(test_rt_err_keeps_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
