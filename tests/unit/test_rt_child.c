/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for rt_child, with real programs (sh, cat, ls, sleep): both
 * streams are captured past the pipe buffer size whichever the child fills
 * first, and the cap keeps the child from blocking; the deadline kills the
 * child's whole process group, a grandchild included (the test is the
 * grandchild's subreaper, so it sees how it died); exit codes and signals
 * are told apart, and the child gets default signal handling whatever the
 * caller blocked; a program that cannot be started is an error of its own;
 * no descriptor of the caller leaks into the child but those it keeps;
 * stdin comes from /dev/null, a descriptor or a file; the start-and-wait-
 * later form is stopped by SIGTERM, or SIGKILL after its grace when the
 * child ignores SIGTERM. Every test ends with no child of ours left, not
 * even a zombie.
 *
 * Every test runs twice: with the pidfd and, through a wrapped
 * pidfd_open() that fails with ENOSYS, with the fallback that looks with
 * waitid() in short steps. Every wait for a child that ends by itself has
 * a deadline that only catches a hang (HANG_MS): a loaded machine makes
 * the tests slower, never failing. The deadlines under test are short, and
 * a run they end is told from one that waited for its child by the end
 * (RT_CHILD_TIMEOUT, SIGKILL), not by a clock.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/rt_child.h"
#include "core/rt_file.h"
#include "core/rt_time.h"

/* A bound on waits for children that end by themselves, against a hang only. */
#define HANG_MS 60000

/* ---- pidfd_open(), wrapped at link time (LDFLAGS_test_rt_child) ------------------- */

static bool no_pidfd;
static unsigned int pidfd_calls;

int __real_pidfd_open(pid_t pid, unsigned int flags);
int __wrap_pidfd_open(pid_t pid, unsigned int flags);

int __wrap_pidfd_open(pid_t pid, unsigned int flags)
{
	pidfd_calls++;
	if (no_pidfd) {
		errno = ENOSYS;
		return -1;
	}
	return __real_pidfd_open(pid, flags);
}

static int group_pidfd(void **state)
{
	(void)state;
	no_pidfd = false;
	pidfd_calls = 0;
	return 0;
}

static int group_fallback(void **state)
{
	(void)state;
	no_pidfd = true;
	pidfd_calls = 0;
	return 0;
}

/* ---- Helpers -------------------------------------------------------------------- */

/* Children of this process still in the process table (zombies included). */
static int count_children(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		char path[300], *text = NULL, *close_paren;
		int ppid;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		if (rt_file_read(path, 4096, &text, NULL))
			continue;
		close_paren = strrchr(text, ')');
		if (close_paren && sscanf(close_paren + 1, " %*c %d", &ppid) == 1 &&
		    ppid == getpid())
			n++;
		free(text);
	}
	closedir(d);
	return n;
}

static int teardown(void **state)
{
	(void)state;
	/* The wrapper is called on every start: each group really runs its mode. */
	assert_true(pidfd_calls > 0);
	assert_int_equal(count_children(), 0);
	return 0;
}

static int setup(void **state)
{
	(void)state;
	pidfd_calls = 0;
	return 0;
}

/* Run sh -c @script with both streams captured. */
static void run_sh(const char *script, unsigned int timeout_ms, struct rt_child_result *res)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };
	struct rt_child_opts o = {
		.argv = argv, .in = RT_CHILD_NULL, .out = RT_CHILD_CAPTURE,
		.err = RT_CHILD_CAPTURE,
	};

	assert_int_equal(rt_child_run(&o, timeout_ms, res, NULL), 0);
}

static bool all_bytes(const char *s, size_t len, char ch)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] != ch)
			return false;
	return true;
}

/* ---- Capture ---------------------------------------------------------------------- */

static void test_capture_both_streams(void **state)
{
	/* 300 kB each, more than a pipe holds; one order fills stderr while we could wait on stdout. */
	static const char *scripts[] = {
		"head -c 300000 /dev/zero | tr '\\0' a; head -c 300000 /dev/zero | tr '\\0' b >&2",
		"head -c 300000 /dev/zero | tr '\\0' b >&2; head -c 300000 /dev/zero | tr '\\0' a",
	};
	char *argv[] = { "sh", "-c", NULL, NULL };
	struct rt_child_opts o = {
		.argv = argv, .in = RT_CHILD_NULL, .out = RT_CHILD_CAPTURE,
		.err = RT_CHILD_CAPTURE, .capture_max = 1 << 20,
	};
	struct rt_child_result res;

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		argv[2] = (char *)scripts[i];
		assert_int_equal(rt_child_run(&o, HANG_MS, &res, NULL), 0);
		assert_int_equal(res.end, RT_CHILD_EXITED);
		assert_int_equal(res.code, 0);
		assert_int_equal(res.out_len, 300000);
		assert_int_equal(res.err_len, 300000);
		assert_true(all_bytes(res.out, res.out_len, 'a'));
		assert_true(all_bytes(res.err, res.err_len, 'b'));
		assert_false(res.out_cut || res.err_cut);
		assert_int_equal(res.out[res.out_len], '\0');
		rt_child_result_fini(&res);
	}
}

static void test_capture_cap_and_merge(void **state)
{
	char *big[] = { "sh", "-c", "head -c 200000 /dev/zero | tr '\\0' a; exit 4", NULL };
	char *both[] = { "sh", "-c", "echo hello; echo oops >&2", NULL };
	struct rt_child_opts o = {
		.argv = big, .out = RT_CHILD_CAPTURE, .err = RT_CHILD_NULL, .capture_max = 1000,
	};
	struct rt_child_result res;

	(void)state;
	/* Past the cap the rest is read and dropped: the child is not blocked. */
	assert_int_equal(rt_child_run(&o, HANG_MS, &res, NULL), 0);
	assert_int_equal(res.end, RT_CHILD_EXITED);
	assert_int_equal(res.code, 4);
	assert_int_equal(res.out_len, 1000);
	assert_true(res.out_cut);
	assert_true(all_bytes(res.out, res.out_len, 'a'));
	/* stderr not captured: "", not NULL */
	assert_non_null(res.err);
	assert_int_equal(res.err_len, 0);
	rt_child_result_fini(&res);

	o = (struct rt_child_opts){ .argv = both, .out = RT_CHILD_CAPTURE,
				    .err = RT_CHILD_TO_STDOUT };
	assert_int_equal(rt_child_run(&o, HANG_MS, &res, NULL), 0);
	assert_string_equal(res.out, "hello\noops\n");
	assert_string_equal(res.err, "");
	rt_child_result_fini(&res);
}

/* ---- Deadline --------------------------------------------------------------------- */

static int sleep_forever(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return 0;
}

/* Wait (at most HANG_MS) for orphan @pid, which came to us as its subreaper; its wait status. */
static int reap_orphan(pid_t pid)
{
	uint64_t deadline = rt_time_deadline_ms(HANG_MS);
	int status = 0;
	pid_t r;

	while ((r = waitpid(pid, &status, WNOHANG)) == 0 && !rt_time_passed(deadline))
		rt_time_sleep_ms(5, NULL);
	assert_int_equal(r, pid);
	return status;
}

static void test_deadline_kills_group(void **state)
{
	struct rt_child_result res;
	uint64_t t0;
	int gpid = 0, status;
	char *argv[] = { "sh", "-c", "sleep 100 & echo $!; wait", NULL };
	struct rt_child_opts o = { .argv = argv, .out = RT_CHILD_CAPTURE };

	(void)state;
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);

	t0 = rt_time_now_ns();
	assert_int_equal(rt_child_run(&o, 300, &res, NULL), 0);
	assert_int_equal(res.end, RT_CHILD_TIMEOUT);
	assert_int_equal(res.code, SIGTERM);
	assert_false(res.unreaped);
	assert_true(rt_time_now_ns() - t0 < HANG_MS * RT_TIME_NS_PER_MS);
	assert_int_equal(sscanf(res.out, "%d", &gpid), 1);
	assert_true(gpid > 0);
	/* The grandchild `sleep 100` died of a signal sent to the group, and is gone. */
	status = reap_orphan(gpid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(kill(gpid, 0), -1);
	assert_int_equal(errno, ESRCH);
	assert_int_equal(kill(res.pid, 0), -1);
	rt_child_result_fini(&res);

	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);

	/* A function child: the same deadline. */
	o = (struct rt_child_opts){ .fn = sleep_forever, .out = RT_CHILD_CAPTURE };
	t0 = rt_time_now_ns();
	assert_int_equal(rt_child_run(&o, 200, &res, NULL), 0);
	assert_int_equal(res.end, RT_CHILD_TIMEOUT);
	assert_true(rt_time_now_ns() - t0 < HANG_MS * RT_TIME_NS_PER_MS);
	assert_int_equal(kill(res.pid, 0), -1);
	assert_int_equal(errno, ESRCH);
	assert_string_equal(res.out, "");
	rt_child_result_fini(&res);
}

/* ---- Ends ------------------------------------------------------------------------- */

static int exit_seven(void *arg)
{
	const char *msg = arg;

	if (write(1, msg, strlen(msg)) < 0)
		return 1;
	return 7;
}

static int raise_usr2(void *arg)
{
	(void)arg;
	raise(SIGUSR2);
	return 0;
}

static void on_signal(int sig)
{
	(void)sig;
}

static void test_exit_and_signal(void **state)
{
	struct rt_child_opts o = { .fn = exit_seven, .arg = "from fn\n", .out = RT_CHILD_CAPTURE };
	struct sigaction sa = { .sa_handler = on_signal }, old_term;
	sigset_t usr1, old_mask;
	struct rt_child_result res;

	(void)state;
	run_sh("exit 3", HANG_MS, &res);
	assert_int_equal(res.end, RT_CHILD_EXITED);
	assert_int_equal(res.code, 3);
	rt_child_result_fini(&res);

	assert_int_equal(rt_child_run(&o, HANG_MS, &res, NULL), 0);
	assert_int_equal(res.end, RT_CHILD_EXITED);
	assert_int_equal(res.code, 7);
	assert_string_equal(res.out, "from fn\n");
	rt_child_result_fini(&res);

	o.fn = raise_usr2;
	assert_int_equal(rt_child_run(&o, HANG_MS, &res, NULL), 0);
	assert_int_equal(res.end, RT_CHILD_SIGNALED);
	assert_int_equal(res.code, SIGUSR2);
	rt_child_result_fini(&res);

	/* The caller blocks SIGUSR1 and catches SIGTERM: the child has neither. */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &old_mask);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, &old_term);
	run_sh("kill -USR1 $$; exit 0", HANG_MS, &res);
	assert_int_equal(res.end, RT_CHILD_SIGNALED);
	assert_int_equal(res.code, SIGUSR1);
	rt_child_result_fini(&res);
	run_sh("kill -TERM $$; exit 0", HANG_MS, &res);
	assert_int_equal(res.end, RT_CHILD_SIGNALED);
	assert_int_equal(res.code, SIGTERM);
	rt_child_result_fini(&res);
	sigaction(SIGTERM, &old_term, NULL);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
}

static void test_exec_failure(void **state)
{
	char *missing[] = { "rtlab-no-such-program-here", NULL };
	char *nopath[] = { "/nonexistent/rtlab-no-such-program", NULL };
	char *notexe[] = { "passwd", NULL };
	struct rt_child_opts o = { .argv = missing, .out = RT_CHILD_CAPTURE };
	struct rt_child_result res;
	char *cause = NULL;

	(void)state;
	assert_int_equal(rt_child_run(&o, HANG_MS, &res, &cause), -ENOENT);
	assert_non_null(strstr(cause, "cannot run rtlab-no-such-program-here"));
	assert_null(res.out);
	rt_child_result_fini(&res);
	free(cause);
	cause = NULL;

	/* A path is handed to execve(): the child reports its errno. */
	o.argv = nopath;
	assert_int_equal(rt_child_run(&o, HANG_MS, &res, &cause), -ENOENT);
	assert_non_null(strstr(cause, "No such file"));
	free(cause);
	cause = NULL;

	o.argv = notexe;
	o.path = "/etc/passwd";
	errno = 0;
	assert_null(rt_child_start(&o, &cause));
	assert_int_equal(errno, EACCES);
	assert_non_null(strstr(cause, "cannot run passwd"));
	free(cause);
	cause = NULL;

	/* Bad options are refused before anything starts. */
	o = (struct rt_child_opts){ .out = RT_CHILD_CAPTURE };
	assert_int_equal(rt_child_run(&o, HANG_MS, &res, NULL), -EINVAL);
	o = (struct rt_child_opts){ .argv = missing, .fn = exit_seven };
	assert_int_equal(rt_child_run(&o, HANG_MS, &res, NULL), -EINVAL);
	o = (struct rt_child_opts){ .fn = exit_seven, .out = RT_CHILD_FILE };
	assert_int_equal(rt_child_run(&o, HANG_MS, &res, NULL), -EINVAL);
	/* The failed starts were reaped (teardown counts our children). */
}

/* ---- Descriptors ------------------------------------------------------------------ */

/* The descriptor numbers sh lists for itself, as a bit set (numbers < 64). */
static uint64_t child_fds(const int *keep, unsigned int nkeep, const char *script)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };
	struct rt_child_opts o = {
		.argv = argv, .in = RT_CHILD_NULL, .out = RT_CHILD_CAPTURE,
		.err = RT_CHILD_NULL, .keep_fds = keep, .nkeep = nkeep,
	};
	struct rt_child_result res;
	uint64_t set = 0;

	assert_int_equal(rt_child_run(&o, HANG_MS, &res, NULL), 0);
	assert_int_equal(res.end, RT_CHILD_EXITED);
	for (char *p = res.out; *p;) {
		char *end;
		long fd = strtol(p, &end, 10);

		assert_true(end > p && fd >= 0 && fd < 64);
		set |= 1ull << fd;
		p = end + strspn(end, "\n");
	}
	rt_child_result_fini(&res);
	return set;
}

static void test_no_fd_leak(void **state)
{
	int leak = open("/dev/null", O_RDONLY);	/* no O_CLOEXEC: a leak if not closed */
	int p[2];

	(void)state;
	assert_true(leak >= 3);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(child_fds(NULL, 0, "ls /proc/$$/fd"), 0x7);	/* 0, 1 and 2 only */
	close(leak);
	close(p[0]);
	close(p[1]);
}

static void test_keep_fd(void **state)
{
	int p[2], leak = open("/dev/null", O_RDONLY);
	char script[96], buf[16] = "";
	struct rt_child_opts o = { .in = RT_CHILD_NULL, .out = RT_CHILD_CAPTURE };
	char *argv[] = { "sh", "-c", script, NULL };
	struct rt_child_result res;
	uint64_t set;

	(void)state;
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	snprintf(script, sizeof(script), "ls /proc/$$/fd; echo kept >&%d", p[1]);
	set = child_fds(&p[1], 1, script);
	assert_int_equal(set, 0x7 | 1ull << p[1]);
	assert_int_equal(read(p[0], buf, sizeof(buf) - 1), 5);
	assert_string_equal(buf, "kept\n");

	/* Below 3, or not open: refused. */
	o.argv = argv;
	o.keep_fds = (int[]){ 2 };
	o.nkeep = 1;
	assert_int_equal(rt_child_run(&o, HANG_MS, &res, NULL), -EBADF);
	o.keep_fds = (int[]){ 1000 };
	assert_int_equal(rt_child_run(&o, HANG_MS, &res, NULL), -EBADF);
	close(leak);
	close(p[0]);
	close(p[1]);
}

static void test_stdin(void **state)
{
	char *cat[] = { "cat", NULL };
	struct rt_child_opts o = { .argv = cat, .in = RT_CHILD_NULL, .out = RT_CHILD_CAPTURE };
	struct rt_child_result res;
	char path[] = "/tmp/rtlab-test-child-XXXXXX";
	int p[2], fd;

	(void)state;
	assert_int_equal(rt_child_run(&o, HANG_MS, &res, NULL), 0);
	assert_int_equal(res.end, RT_CHILD_EXITED);
	assert_int_equal(res.code, 0);
	assert_string_equal(res.out, "");
	rt_child_result_fini(&res);

	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], "from a pipe\n", 12), 12);
	close(p[1]);
	o.in = RT_CHILD_FD;
	o.in_fd = p[0];
	assert_int_equal(rt_child_run(&o, HANG_MS, &res, NULL), 0);
	assert_string_equal(res.out, "from a pipe\n");
	rt_child_result_fini(&res);
	close(p[0]);

	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "from a file\n", 12), 12);
	close(fd);
	o.in = RT_CHILD_FILE;
	o.in_path = path;
	assert_int_equal(rt_child_run(&o, HANG_MS, &res, NULL), 0);
	assert_string_equal(res.out, "from a file\n");
	rt_child_result_fini(&res);

	/* Standard output to a file, created anew. */
	o = (struct rt_child_opts){ .argv = (char *[]){ "sh", "-c", "echo to a file", NULL },
				    .out = RT_CHILD_FILE, .out_path = path };
	assert_int_equal(rt_child_run(&o, HANG_MS, &res, NULL), 0);
	assert_string_equal(res.out, "");
	rt_child_result_fini(&res);
	{
		char *text = NULL;

		assert_int_equal(rt_file_read(path, 4096, &text, NULL), 0);
		assert_string_equal(text, "to a file\n");
		free(text);
	}
	unlink(path);
}

/* ---- Start now, wait later -------------------------------------------------------- */

/* Read what @fd gives within HANG_MS, up to a newline; the length. */
static ssize_t read_line(int fd, char *buf, size_t size)
{
	uint64_t deadline = rt_time_deadline_ms(HANG_MS);
	size_t len = 0;

	while (len + 1 < size && !rt_time_passed(deadline)) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, rt_time_left_ms(deadline)) <= 0)
			continue;
		n = read(fd, buf + len, 1);
		if (n <= 0)
			break;
		len++;
		if (buf[len - 1] == '\n')
			break;
	}
	buf[len] = '\0';
	return (ssize_t)len;
}

static void test_start_wait_stop(void **state)
{
	char *sleeper[] = { "sleep", "100", NULL };
	char *stubborn[] = { "sh", "-c", "trap '' TERM; echo ready; sleep 100", NULL };
	char *quick[] = { "sh", "-c", "sleep 0.1; echo done; exit 5", NULL };
	struct rt_child_opts o = { .argv = sleeper, .in = RT_CHILD_NULL };
	struct rt_child_result res;
	struct rt_child *c;
	char line[32];
	uint64_t t0;
	int p[2];
	pid_t pid;

	(void)state;
	c = rt_child_start(&o, NULL);
	assert_non_null(c);
	pid = rt_child_pid(c);
	assert_true(pid > 0);
	assert_int_equal(getpgid(pid), pid);	/* a group of its own */
	assert_int_equal(rt_child_wait(c, 0, &res), -ETIMEDOUT);
	assert_int_equal(res.end, RT_CHILD_RUNNING);
	assert_null(res.out);
	assert_int_equal(rt_child_wait(c, 50, NULL), -ETIMEDOUT);
	assert_int_equal(rt_child_signal(c, 0), 0);
	assert_int_equal(rt_child_stop(c, SIGTERM, 2000, &res), 0);
	assert_int_equal(res.end, RT_CHILD_SIGNALED);
	assert_int_equal(res.code, SIGTERM);
	rt_child_result_fini(&res);
	assert_int_equal(rt_child_signal(c, SIGTERM), -ESRCH);
	assert_int_equal(kill(pid, 0), -1);
	/* Waiting on an ended child gives the same end again. */
	assert_int_equal(rt_child_wait(c, 0, &res), 0);
	assert_int_equal(res.end, RT_CHILD_SIGNALED);
	assert_string_equal(res.out, "");
	rt_child_result_fini(&res);
	rt_child_free(c);

	/* SIGTERM ignored: SIGKILL after the grace period. */
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	o.argv = stubborn;
	o.out = RT_CHILD_FD;
	o.out_fd = p[1];
	c = rt_child_start(&o, NULL);
	assert_non_null(c);
	close(p[1]);
	/* Until it has set its trap, SIGTERM would still end it. */
	assert_true(read_line(p[0], line, sizeof(line)) > 0);
	assert_string_equal(line, "ready\n");
	t0 = rt_time_now_ns();
	assert_int_equal(rt_child_stop(c, SIGTERM, 200, &res), 0);
	assert_true(rt_time_now_ns() - t0 >= 200 * RT_TIME_NS_PER_MS);
	assert_true(rt_time_now_ns() - t0 < HANG_MS * RT_TIME_NS_PER_MS);
	assert_int_equal(res.end, RT_CHILD_SIGNALED);
	assert_int_equal(res.code, SIGKILL);
	rt_child_result_fini(&res);
	rt_child_free(c);
	close(p[0]);

	/* Waiting without a limit. */
	o.argv = quick;
	o.out = RT_CHILD_CAPTURE;
	c = rt_child_start(&o, NULL);
	assert_non_null(c);
	assert_int_equal(rt_child_wait(c, RT_CHILD_FOREVER, &res), 0);
	assert_int_equal(res.end, RT_CHILD_EXITED);
	assert_int_equal(res.code, 5);
	assert_string_equal(res.out, "done\n");
	rt_child_result_fini(&res);
	rt_child_free(c);

	/* Freed while running: killed and reaped. */
	o.argv = sleeper;
	o.flags = RT_CHILD_SAME_PGRP;
	c = rt_child_start(&o, NULL);
	assert_non_null(c);
	pid = rt_child_pid(c);
	assert_int_equal(getpgid(pid), getpgrp());
	rt_child_free(c);
	assert_int_equal(kill(pid, 0), -1);
	rt_child_free(NULL);
}

/* A function child that dies with the thread that started it. */
static void *start_in_thread(void *arg)
{
	struct rt_child_opts o = { .fn = sleep_forever, .flags = RT_CHILD_DIE_WITH_PARENT };

	*(struct rt_child **)arg = rt_child_start(&o, NULL);
	return NULL;
}

static void test_die_with_parent(void **state)
{
	struct rt_child_result res;
	struct rt_child *c = NULL;
	pthread_t th;

	(void)state;
	assert_int_equal(pthread_create(&th, NULL, start_in_thread, &c), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_non_null(c);
	assert_int_equal(rt_child_wait(c, HANG_MS, &res), 0);
	assert_int_equal(res.end, RT_CHILD_SIGNALED);
	assert_int_equal(res.code, SIGKILL);
	rt_child_result_fini(&res);
	rt_child_free(c);
}

/* An environment of the caller's choosing replaces the caller's; none keeps it. */
static void test_envp(void **state)
{
	char *argv[] = { "sh", "-c", "printf '%s|%s' \"$RTLAB_T_ENV\" \"${HOME-unset}\"", NULL };
	char *env[] = { "RTLAB_T_ENV=given", "PATH=/usr/bin:/bin", NULL };
	struct rt_child_opts o = { .argv = argv, .envp = env, .in = RT_CHILD_NULL,
				   .out = RT_CHILD_CAPTURE, .err = RT_CHILD_NULL };
	struct rt_child_result res;

	(void)state;
	assert_int_equal(setenv("RTLAB_T_ENV", "caller", 1), 0);
	assert_int_equal(rt_child_run(&o, HANG_MS, &res, NULL), 0);
	assert_string_equal(res.out, "given|unset");
	rt_child_result_fini(&res);
	o.envp = NULL;
	assert_int_equal(rt_child_run(&o, HANG_MS, &res, NULL), 0);
	assert_non_null(strstr(res.out, "caller|"));
	rt_child_result_fini(&res);
	unsetenv("RTLAB_T_ENV");
}

#define CHILD_TESTS                                                                    \
	cmocka_unit_test_setup_teardown(test_capture_both_streams, setup, teardown),     \
	cmocka_unit_test_setup_teardown(test_capture_cap_and_merge, setup, teardown),    \
	cmocka_unit_test_setup_teardown(test_deadline_kills_group, setup, teardown),     \
	cmocka_unit_test_setup_teardown(test_exit_and_signal, setup, teardown),          \
	cmocka_unit_test_setup_teardown(test_exec_failure, setup, teardown),             \
	cmocka_unit_test_setup_teardown(test_no_fd_leak, setup, teardown),               \
	cmocka_unit_test_setup_teardown(test_keep_fd, setup, teardown),                  \
	cmocka_unit_test_setup_teardown(test_stdin, setup, teardown),                    \
	cmocka_unit_test_setup_teardown(test_start_wait_stop, setup, teardown),          \
	cmocka_unit_test_setup_teardown(test_die_with_parent, setup, teardown),         \
	cmocka_unit_test_setup_teardown(test_envp, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = { CHILD_TESTS };
	int failed;

	failed = cmocka_run_group_tests_name("pidfd", tests, group_pidfd, NULL);
	failed += cmocka_run_group_tests_name("no pidfd", tests, group_fallback, NULL);
	return failed ? 1 : 0;
}
