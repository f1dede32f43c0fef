/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for rt_journal: values come back byte for byte after a normal
 * close, an exit, SIGINT and SIGTERM (the child's own handler) and SIGKILL
 * (recovery by the next process); stale journals are sorted into live,
 * earlier boot, corrupt and dead; and, as root, real scheduling attributes,
 * a real tracefs instance and a real network namespace are undone.
 *
 * The trust rules: as root the default directory is /run/rtlab whatever
 * the environment says; a directory that is group/other writable, another
 * user's or a symlink is not read; a FIFO, device, symlink, directory or
 * another user's file named like a journal is left exactly as it is (and a
 * FIFO does not hang recovery); an entry naming a path outside its kind's
 * rules (a canary file, a canary directory) is refused at parse, record and
 * replay time, symlinks on the way included.
 *
 * Knobs are stand-in files in a temp dir that rt_journal_test_allow() opens
 * to file entries; canaries live in another temp dir that it does not.
 * Children never call cmocka: they report over a pipe or their exit status
 * and the parent asserts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/rt_buf.h"
#include "core/rt_file.h"
#include "core/rt_journal-int.h"
#include "core/rt_journal.h"
#include "core/rt_log.h"

struct fixture {
	char dir[64];		/* journal dir */
	char knobs[64];		/* stand-in knob files */
	char canary[64];	/* files no journal may touch */
	pid_t kids[8];		/* children still to reap if a test fails midway */
	size_t nkids;
};

static struct fixture *current;

struct knob {
	const char *name;
	const char *old;
	size_t old_len;
	const char *new;
	size_t new_len;
	char path[128];
};

static char long_old[3000];

/* Binary bytes, an empty file, no trailing newline, a long value. */
static struct knob knobs_tpl[] = {
	{ "binary", "\0\x01\xff\n\"\\x7f q", 11, "new\n", 4, "" },
	{ "empty", "", 0, "1\n", 2, "" },
	{ "nonl", "performance", 11, "powersave\n", 10, "" },
	{ "long", long_old, sizeof(long_old), "0", 1, "" },
};
#define NKNOBS (sizeof(knobs_tpl) / sizeof(knobs_tpl[0]))

/* cmocka 1.1 has no skip message of its own. */
#define skip_because(why) do { print_message("[  SKIP    ] %s\n", why); skip(); } while (0)

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	strcpy(f->dir, "/tmp/rtlab-test-journal-XXXXXX");
	strcpy(f->knobs, "/tmp/rtlab-test-knobs-XXXXXX");
	strcpy(f->canary, "/tmp/rtlab-test-canary-XXXXXX");
	if (!mkdtemp(f->dir) || !mkdtemp(f->knobs) || !mkdtemp(f->canary))
		return -1;
	if (rt_journal_test_allow(f->knobs))
		return -1;
	for (size_t i = 0; i < sizeof(long_old); i++)
		long_old[i] = (char)(i * 7 + 3);
	current = f;
	*state = f;
	return 0;
}

/*
 * fork() for tests: the child dies with the test process, and the fixture
 * remembers it so that a failed assertion does not leave it running.
 */
static pid_t spawn(void)
{
	pid_t parent = getpid(), pid;

	assert_true(current->nkids < sizeof(current->kids) / sizeof(current->kids[0]));
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(99);
		return 0;
	}
	current->kids[current->nkids++] = pid;
	return pid;
}

/* waitpid() for a spawn()ed child, which then is no longer ours to kill. */
static pid_t wait_kid(pid_t pid, int *status)
{
	pid_t ret = waitpid(pid, status, 0);

	for (size_t i = 0; i < current->nkids; i++) {
		if (current->kids[i] == pid) {
			current->kids[i] = current->kids[--current->nkids];
			break;
		}
	}
	return ret;
}

/* Undo what a test that failed midway may have left: children, instance, netns. */
static void cleanup_leftovers(struct fixture *f)
{
	char path[128];

	for (size_t i = 0; i < f->nkids; i++) {
		kill(f->kids[i], SIGKILL);
		waitpid(f->kids[i], NULL, 0);
	}
	snprintf(path, sizeof(path), "/sys/kernel/tracing/instances/rtlab-test-%d", (int)getpid());
	rmdir(path);
	snprintf(path, sizeof(path), "/run/netns/rtlab-test-%d", (int)getpid());
	umount2(path, MNT_DETACH);
	unlink(path);
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[256];

	cleanup_leftovers(f);
	current = NULL;
	rt_journal_test_allow(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s' '%s'", f->dir, f->knobs, f->canary);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static void put_file(const char *path, const char *data, size_t len)
{
	assert_int_equal(rt_file_write_atomic(path, data, len, 0644, NULL), 0);
}

static void assert_file(const char *path, const char *data, size_t len)
{
	char *got = NULL;
	size_t n = 0;

	assert_int_equal(rt_file_read(path, 1 << 20, &got, &n), 0);
	assert_int_equal(n, len);
	assert_memory_equal(got, data, len);
	free(got);
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static void make_knobs(const struct fixture *f, struct knob *k)
{
	memcpy(k, knobs_tpl, sizeof(knobs_tpl));
	for (size_t i = 0; i < NKNOBS; i++) {
		snprintf(k[i].path, sizeof(k[i].path), "%s/%s", f->knobs, k[i].name);
		put_file(k[i].path, k[i].old, k[i].old_len);
	}
}

static void assert_knobs_old(const struct knob *k)
{
	for (size_t i = 0; i < NKNOBS; i++)
		assert_file(k[i].path, k[i].old, k[i].old_len);
}

static void assert_knobs_new(const struct knob *k)
{
	for (size_t i = 0; i < NKNOBS; i++)
		assert_file(k[i].path, k[i].new, k[i].new_len);
}

static void journal_of(const struct fixture *f, pid_t pid, char *out, size_t size)
{
	snprintf(out, size, "%s/%d.journal", f->dir, (int)pid);
}

/* ---- In-process ----------------------------------------------------------- */

static void test_write_close_restores(void **state)
{
	struct fixture *f = *state;
	struct knob k[NKNOBS];
	struct rt_journal *j, *j2;
	char jpath[128], *text = NULL, *cause = NULL;
	size_t len;

	make_knobs(f, k);
	journal_of(f, getpid(), jpath, sizeof(jpath));
	j = rt_journal_open(f->dir, &cause);
	assert_non_null(j);
	assert_null(cause);
	/* Nothing changed yet: nothing on disk. */
	assert_false(exists(jpath));
	assert_int_equal(rt_journal_count(j), 0);

	for (size_t i = 0; i < NKNOBS; i++)
		assert_int_equal(rt_journal_write_file(j, k[i].path, k[i].new, k[i].new_len,
						       NULL), 0);
	assert_int_equal(rt_journal_count(j), NKNOBS);
	assert_knobs_new(k);
	assert_int_equal(rt_file_read(jpath, 1 << 20, &text, &len), 0);
	assert_true(len > strlen(RT_JOURNAL_MAGIC));
	assert_memory_equal(text, RT_JOURNAL_MAGIC "\n", strlen(RT_JOURNAL_MAGIC) + 1);
	free(text);

	/* The same path twice: reverse replay still ends at the first old value. */
	assert_int_equal(rt_journal_write_file(j, k[0].path, "third", 5, NULL), 0);

	/* A second open shares the journal; only the last close replays. */
	j2 = rt_journal_open(f->dir, NULL);
	assert_ptr_equal(j, j2);
	assert_int_equal(rt_journal_close(j2), 0);
	assert_file(k[0].path, "third", 5);
	assert_true(exists(jpath));

	assert_int_equal(rt_journal_close(j), 0);
	assert_knobs_old(k);
	assert_false(exists(jpath));
	assert_int_equal(rt_journal_close(NULL), 0);
}

static void test_write_errors(void **state)
{
	struct fixture *f = *state;
	struct rt_journal *j;
	char missing[160], *cause = NULL;

	snprintf(missing, sizeof(missing), "%s/no-such-knob", f->knobs);
	j = rt_journal_open(f->dir, NULL);
	assert_non_null(j);
	assert_int_equal(rt_journal_write_file(j, missing, "1", 1, &cause), -ENOENT);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "no-such-knob"));
	assert_non_null(strstr(cause, strerror(ENOENT)));
	free(cause);
	cause = NULL;
	assert_int_equal(rt_journal_count(j), 0);
	assert_int_equal(rt_journal_create_instance(j, "../x", &cause), -EINVAL);
	free(cause);
	cause = NULL;
	assert_int_equal(rt_journal_set_sched(j, 0, SCHED_FIFO, 0, &cause), -EINVAL);
	free(cause);
	assert_int_equal(rt_journal_count(j), 0);
	assert_int_equal(rt_journal_close(j), 0);
}

#define NOBODY 65534

/* In a child: become nobody (uid and gid 65534, no groups). 0 or -1. */
static int become_nobody(void)
{
	if (setgroups(0, NULL) < 0 || setresgid(NOBODY, NOBODY, NOBODY) < 0 ||
	    setresuid(NOBODY, NOBODY, NOBODY) < 0)
		return -1;
	return 0;
}

/* The default directory as a non-root user: RTLAB_JOURNAL_DIR, else the state dir. 0 if right. */
static int check_user_default_dir(const struct fixture *f)
{
	char want[128], *d;
	int bad = 0;

	setenv("RTLAB_JOURNAL_DIR", f->dir, 1);
	d = rt_journal_default_dir();
	bad |= !d || strcmp(d, f->dir);
	free(d);
	unsetenv("RTLAB_JOURNAL_DIR");
	setenv("XDG_STATE_HOME", f->knobs, 1);
	d = rt_journal_default_dir();
	snprintf(want, sizeof(want), "%s/rtlab/journal", f->knobs);
	bad |= !d || strcmp(d, want);
	free(d);
	return bad ? -1 : 0;
}

static void test_default_dir(void **state)
{
	struct fixture *f = *state;
	char *old = getenv("RTLAB_JOURNAL_DIR") ? strdup(getenv("RTLAB_JOURNAL_DIR")) : NULL;
	char *oldx = getenv("XDG_STATE_HOME") ? strdup(getenv("XDG_STATE_HOME")) : NULL;
	char *oldh = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	int status;
	char *d;
	pid_t pid;

	if (geteuid() == 0) {
		/* Root: nothing in the environment moves the journals. */
		setenv("RTLAB_JOURNAL_DIR", f->dir, 1);
		setenv("XDG_STATE_HOME", f->knobs, 1);
		setenv("HOME", f->knobs, 1);
		d = rt_journal_default_dir();
		assert_non_null(d);
		assert_string_equal(d, RT_JOURNAL_ROOT_DIR);
		free(d);
		/* Another user: its own variables decide (its XDG dir must be its own). */
		assert_int_equal(chown(f->knobs, NOBODY, NOBODY), 0);
		pid = spawn();
		if (pid == 0)
			_exit(become_nobody() || check_user_default_dir(f) ? 1 : 0);
		assert_int_equal(wait_kid(pid, &status), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
		assert_int_equal(chown(f->knobs, 0, 0), 0);
	} else {
		assert_int_equal(check_user_default_dir(f), 0);
	}

	if (old)
		setenv("RTLAB_JOURNAL_DIR", old, 1);
	else
		unsetenv("RTLAB_JOURNAL_DIR");
	if (oldx)
		setenv("XDG_STATE_HOME", oldx, 1);
	else
		unsetenv("XDG_STATE_HOME");
	if (oldh)
		setenv("HOME", oldh, 1);
	free(old);
	free(oldx);
	free(oldh);
}

/* ---- Children --------------------------------------------------------------- */

enum child_end {
	CHILD_WAIT,	/* block until killed */
	CHILD_EXIT,	/* exit(0): the atexit hook replays */
	CHILD_ABORT,	/* abort(): a fatal signal */
	CHILD_GRACEFUL,	/* own SIGINT handler: on SIGINT, report the knobs, then exit(0) */
};

static volatile sig_atomic_t child_stop;

static void child_on_sigint(int sig)
{
	(void)sig;
	child_stop = 1;
}

/* Open a journal, change the knobs, say 'k' on @fd, then wait or exit. */
static void child_change_knobs(const char *dir, const struct knob *k, int fd,
			       enum child_end end)
{
	struct rt_journal *j;

	signal(SIGINT, end == CHILD_GRACEFUL ? child_on_sigint : SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	j = rt_journal_open(dir, NULL);
	if (!j)
		_exit(10);
	for (size_t i = 0; i < NKNOBS; i++)
		if (rt_journal_write_file(j, k[i].path, k[i].new, k[i].new_len, NULL))
			_exit(11);
	/*
	 * A graceful child blocks SIGINT before saying 'k': the parent sends it as soon as it reads 'k', and a
	 * signal arriving between the flag test and pause() would be lost and the child would
	 * wait for ever. sigsuspend() unblocks and waits in one step.
	 */
	sigset_t block, wait_mask;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigprocmask(end == CHILD_GRACEFUL ? SIG_BLOCK : SIG_UNBLOCK, &block, &wait_mask);
	sigdelset(&wait_mask, SIGINT);
	if (write(fd, "k", 1) != 1)
		_exit(12);
	if (end == CHILD_EXIT)
		exit(0);
	if (end == CHILD_GRACEFUL) {
		char *data = NULL;
		size_t len = 0;
		bool still_new;

		while (!child_stop)
			sigsuspend(&wait_mask);
		/* The host must not be restored under a run that is still winding down. */
		still_new = rt_file_read(k[0].path, 1 << 20, &data, &len) == 0 &&
			    len == k[0].new_len && memcmp(data, k[0].new, len) == 0;
		free(data);
		if (write(fd, still_new ? "n" : "o", 1) != 1)
			_exit(13);
		exit(0);
	}
	if (end == CHILD_ABORT) {
		struct rlimit none = { 0, 0 };

		setrlimit(RLIMIT_CORE, &none);	/* no core file in the source tree */
		abort();
	}
	for (;;)
		pause();
}

static pid_t start_knob_child(const struct fixture *f, const struct knob *k,
			      enum child_end end)
{
	int fds[2];
	pid_t pid;
	char c = 0;

	assert_int_equal(pipe(fds), 0);
	pid = spawn();
	if (pid == 0) {
		close(fds[0]);
		child_change_knobs(f->dir, k, fds[1], end);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 1);
	assert_int_equal(c, 'k');
	close(fds[0]);
	return pid;
}

static void test_sigkill_then_recover(void **state)
{
	struct fixture *f = *state;
	struct knob k[NKNOBS];
	struct rt_journal_stale *st = NULL;
	unsigned int restored = 99;
	char jpath[128], *cause = NULL;
	size_t n = 0;
	pid_t pid;
	int status;

	make_knobs(f, k);
	pid = start_knob_child(f, k, CHILD_WAIT);
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(wait_kid(pid, &status), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);

	journal_of(f, pid, jpath, sizeof(jpath));
	assert_knobs_new(k);
	assert_true(exists(jpath));

	assert_int_equal(rt_journal_scan(f->dir, &st, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_string_equal(st[0].path, jpath);
	assert_int_equal(st[0].pid, pid);
	assert_int_equal(st[0].entries, NKNOBS);
	assert_false(st[0].other_boot);
	assert_false(st[0].corrupt);
	rt_journal_stale_free(st, n);

	assert_int_equal(rt_journal_recover(f->dir, &restored, &cause), 0);
	assert_null(cause);
	assert_int_equal(restored, 1);
	assert_knobs_old(k);
	assert_false(exists(jpath));

	/* Nothing left: a second recovery is a no-op. */
	put_file(k[0].path, "untouched", 9);
	assert_int_equal(rt_journal_recover(f->dir, &restored, NULL), 0);
	assert_int_equal(restored, 0);
	assert_file(k[0].path, "untouched", 9);
}

static void check_signal_restores(const struct fixture *f, int sig)
{
	struct knob k[NKNOBS];
	char jpath[128];
	pid_t pid;
	int status;

	make_knobs(f, k);
	pid = start_knob_child(f, k, sig == SIGABRT ? CHILD_ABORT : CHILD_WAIT);
	journal_of(f, pid, jpath, sizeof(jpath));
	if (sig != SIGABRT) {
		assert_true(exists(jpath));
		assert_int_equal(kill(pid, sig), 0);
	}
	assert_int_equal(wait_kid(pid, &status), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), sig);
	assert_knobs_old(k);
	assert_false(exists(jpath));
}

static void test_sigint_restores(void **state)
{
	check_signal_restores(*state, SIGINT);
}

static void test_sigterm_restores(void **state)
{
	check_signal_restores(*state, SIGTERM);
}

static void test_abort_restores(void **state)
{
	check_signal_restores(*state, SIGABRT);
}

/*
 * An application with its own SIGINT handler (the UI, a lab) gets the signal
 * and winds down; the journal replays at its normal exit, not under it.
 */
static void test_app_sigint_handler_is_honoured(void **state)
{
	struct fixture *f = *state;
	struct knob k[NKNOBS];
	int fds[2], status;
	char c = 0;
	pid_t pid;

	make_knobs(f, k);
	assert_int_equal(pipe(fds), 0);
	pid = spawn();
	if (pid == 0) {
		close(fds[0]);
		child_change_knobs(f->dir, k, fds[1], CHILD_GRACEFUL);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 1);
	assert_int_equal(c, 'k');
	assert_int_equal(kill(pid, SIGINT), 0);
	assert_int_equal(read(fds[0], &c, 1), 1);
	close(fds[0]);
	assert_int_equal(c, 'n');
	assert_int_equal(wait_kid(pid, &status), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_knobs_old(k);
}

static void test_exit_restores(void **state)
{
	struct fixture *f = *state;
	struct knob k[NKNOBS];
	char jpath[128];
	pid_t pid;
	int status;

	make_knobs(f, k);
	pid = start_knob_child(f, k, CHILD_EXIT);
	assert_int_equal(wait_kid(pid, &status), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_knobs_old(k);
	journal_of(f, pid, jpath, sizeof(jpath));
	assert_false(exists(jpath));
}

/* A forked child inherits the journal's memory, but must never replay it. */
static void test_fork_does_not_replay(void **state)
{
	struct fixture *f = *state;
	struct knob k[NKNOBS];
	struct rt_journal *j;
	pid_t pid;
	int status;

	make_knobs(f, k);
	j = rt_journal_open(f->dir, NULL);
	assert_non_null(j);
	assert_int_equal(rt_journal_write_file(j, k[1].path, k[1].new, k[1].new_len, NULL), 0);
	pid = spawn();
	if (pid == 0)
		exit(0);
	assert_int_equal(wait_kid(pid, &status), pid);
	assert_true(WIFEXITED(status));
	pid = spawn();
	if (pid == 0) {
		signal(SIGTERM, SIG_DFL);
		raise(SIGTERM);
		_exit(3);
	}
	assert_int_equal(wait_kid(pid, &status), pid);
	assert_true(WIFSIGNALED(status));
	assert_file(k[1].path, k[1].new, k[1].new_len);
	assert_int_equal(rt_journal_close(j), 0);
	assert_file(k[1].path, k[1].old, k[1].old_len);
}

/* ---- Stale journals -------------------------------------------------------- */

static void read_boot_id(char *out, size_t size)
{
	char *data = NULL;
	size_t len = 0;

	assert_int_equal(rt_file_read("/proc/sys/kernel/random/boot_id", 256, &data, &len), 0);
	while (len && (data[len - 1] == '\n' || data[len - 1] == ' '))
		len--;
	assert_true(len < size);
	memcpy(out, data, len);
	out[len] = '\0';
	free(data);
}

static void put_journal(const struct fixture *f, const char *name, const char *text)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	put_file(path, text, strlen(text));
}

static const struct rt_journal_stale *find_stale(const struct rt_journal_stale *v, size_t n,
						  pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].pid == pid)
			return &v[i];
	return NULL;
}

static void test_stale_journals(void **state)
{
	struct fixture *f = *state;
	char boot[80], text[1024], a[128], b[128], c[128], d[128], path[160];
	unsigned long long self_start, init_start;
	struct rt_journal_stale *st = NULL;
	const struct rt_journal_stale *s;
	unsigned int restored = 0;
	size_t n = 0;
	pid_t other = getppid();

	read_boot_id(boot, sizeof(boot));
	assert_int_equal(rt_journal_proc_start(getpid(), &self_start), 0);
	assert_int_equal(rt_journal_proc_start(1, &init_start), 0);
	snprintf(a, sizeof(a), "%s/a", f->knobs);
	snprintf(b, sizeof(b), "%s/b", f->knobs);
	snprintf(c, sizeof(c), "%s/c", f->knobs);
	snprintf(d, sizeof(d), "%s/d", f->knobs);
	put_file(a, "a-now", 5);
	put_file(b, "b-now", 5);
	put_file(c, "c-now", 5);
	put_file(d, "d-now", 5);

	/* Live: this very process, with its real start time. */
	snprintf(text, sizeof(text),
		 RT_JOURNAL_MAGIC "\nboot %s\npid %d %llu\nfile \"%s\" \"a-old\"\n",
		 boot, (int)getpid(), self_start, a);
	snprintf(path, sizeof(path), "%d.journal", (int)getpid());
	put_journal(f, path, text);
	/* Another boot. */
	snprintf(text, sizeof(text),
		 RT_JOURNAL_MAGIC "\nboot 00000000-0000-0000-0000-000000000000\n"
		 "pid %d 1\nfile \"%s\" \"b-old\"\n", (int)other, b);
	snprintf(path, sizeof(path), "%d.journal", (int)other);
	put_journal(f, path, text);
	/* Dead: pid 1 exists, but with another start time, so it is a recycled pid. */
	snprintf(text, sizeof(text), RT_JOURNAL_MAGIC "\nboot %s\npid 1 %llu\n"
		 "file \"%s\" \"c-old\\x0a\"\nfile \"%s\" \"d-old\"\n", boot, init_start + 1000,
		 c, d);
	put_journal(f, "1.journal", text);
	/* Corrupt: garbage, and a file cut short. */
	put_journal(f, "999999997.journal", "hello\n");
	snprintf(text, sizeof(text), RT_JOURNAL_MAGIC "\nboot %s\npid 999999998 5\nfile \"/x\" \"y",
		 boot);
	put_journal(f, "999999998.journal", text);
	/* Not a journal name: ignored. */
	put_journal(f, "notes.txt", "hello\n");

	assert_int_equal(rt_journal_scan(f->dir, &st, &n, NULL), 0);
	assert_int_equal(n, 4);
	assert_null(find_stale(st, n, getpid()));
	s = find_stale(st, n, other);
	assert_non_null(s);
	assert_true(s->other_boot);
	assert_false(s->corrupt);
	assert_int_equal(s->entries, 1);
	s = find_stale(st, n, 1);
	assert_non_null(s);
	assert_false(s->other_boot);
	assert_false(s->corrupt);
	assert_int_equal(s->entries, 2);
	s = find_stale(st, n, 999999997);
	assert_non_null(s);
	assert_true(s->corrupt);
	assert_int_equal(s->entries, 0);
	s = find_stale(st, n, 999999998);
	assert_non_null(s);
	assert_true(s->corrupt);
	rt_journal_stale_free(st, n);

	assert_int_equal(rt_journal_recover(f->dir, &restored, NULL), 0);
	assert_int_equal(restored, 1);
	assert_file(a, "a-now", 5);		/* live: untouched */
	assert_file(b, "b-now", 5);		/* other boot: not replayed */
	assert_file(c, "c-old\n", 6);		/* dead: replayed */
	assert_file(d, "d-old", 5);
	snprintf(path, sizeof(path), "%s/%d.journal", f->dir, (int)getpid());
	assert_true(exists(path));
	snprintf(path, sizeof(path), "%s/%d.journal", f->dir, (int)other);
	assert_false(exists(path));
	snprintf(path, sizeof(path), "%s/1.journal", f->dir);
	assert_false(exists(path));
	snprintf(path, sizeof(path), "%s/999999997.journal", f->dir);
	assert_false(exists(path));
	snprintf(path, sizeof(path), "%s/999999997.journal.corrupt", f->dir);
	assert_true(exists(path));
	snprintf(path, sizeof(path), "%s/999999998.journal.corrupt", f->dir);
	assert_true(exists(path));
	snprintf(path, sizeof(path), "%s/notes.txt", f->dir);
	assert_true(exists(path));

	/* Only the live one is left, and scan does not list it. */
	assert_int_equal(rt_journal_scan(f->dir, &st, &n, NULL), 0);
	assert_int_equal(n, 0);
	rt_journal_stale_free(st, n);
	/* A missing directory is empty. */
	snprintf(path, sizeof(path), "%s/none", f->dir);
	assert_int_equal(rt_journal_scan(path, &st, &n, NULL), 0);
	assert_int_equal(n, 0);
	rt_journal_stale_free(st, n);
	assert_int_equal(rt_journal_recover(path, &restored, NULL), 0);
	assert_int_equal(restored, 0);
}

/* ---- Trust: directories, odd files, path rules ------------------------------- */

static pid_t start_sleeper(void)
{
	pid_t pid = spawn();

	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

static void reap(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	wait_kid(pid, &status);
}

/* Log messages, collected while a test looks at what the journal says. */
static struct rt_buf logged = RT_BUF_INIT;

static void log_collect(void *priv, enum rt_log_level level, const char *msg)
{
	(void)priv;
	(void)level;
	rt_buf_printf(&logged, "%s\n", msg);
}

static void logs_start(void)
{
	rt_buf_fini(&logged);
	rt_log_set_sink(log_collect, NULL);
}

/* Everything logged since logs_start(); the caller frees it. */
static char *logs_take(void)
{
	char *s;

	rt_log_set_sink(NULL, NULL);
	s = rt_buf_take(&logged);
	return s ? s : strdup("");
}

/* "<dir>/<pid>.journal" of a dead process @pid with @entries after the header. */
static void plant(const char *dir, pid_t pid, const char *entries)
{
	char boot[80], path[256], *text = NULL;

	read_boot_id(boot, sizeof(boot));
	assert_true(asprintf(&text, RT_JOURNAL_MAGIC "\nboot %s\npid %d 1\n%s", boot, (int)pid,
			     entries) > 0);
	snprintf(path, sizeof(path), "%s/%d.journal", dir, (int)pid);
	put_file(path, text, strlen(text));
	free(text);
}

/*
 * A stand-in knob "<knobs>/knob" holding "untouched", and in @entry a file
 * entry (with its newline) that would write @what to it.
 */
static void knob_and_entry(const struct fixture *f, char *knob, size_t ksize, char *entry,
			   size_t esize, const char *what)
{
	snprintf(knob, ksize, "%s/knob", f->knobs);
	put_file(knob, "untouched", 9);
	snprintf(entry, esize, "file \"%s\" \"%s\"\n", knob, what);
}

static bool is_type(const char *path, mode_t type)
{
	struct stat st;

	return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == type;
}

/* No "*.corrupt" in @dir: nothing was moved aside. */
static bool none_corrupt(const char *dir)
{
	struct dirent *de;
	bool none = true;
	DIR *d = opendir(dir);

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strstr(de->d_name, ".corrupt"))
			none = false;
	closedir(d);
	return none;
}

/*
 * A directory others can write, another user's directory, or a symlink: its
 * journals are neither listed nor replayed nor renamed, and nothing is
 * written there.
 */
static void test_untrusted_dirs(void **state)
{
	struct fixture *f = *state;
	char knob[128], open_dir[128], theirs[128], link[128], entry[256], jpath[192];
	const char *dirs[3] = { open_dir, theirs, link };
	const char *expect[3] = { "0777", "uid 65534", "symbolic link" };
	struct rt_journal_stale *st = NULL;
	unsigned int restored = 9;
	size_t n = 9;

	knob_and_entry(f, knob, sizeof(knob), entry, sizeof(entry), "written by a planted journal");
	snprintf(open_dir, sizeof(open_dir), "%s/open", f->dir);
	snprintf(theirs, sizeof(theirs), "%s/theirs", f->dir);
	snprintf(link, sizeof(link), "%s/link", f->dir);
	assert_int_equal(mkdir(open_dir, 0700), 0);
	assert_int_equal(mkdir(theirs, 0700), 0);
	assert_int_equal(symlink(f->dir, link), 0);
	plant(open_dir, 999999001, entry);
	assert_int_equal(chmod(open_dir, 0777), 0);
	plant(theirs, 999999002, entry);
	plant(f->dir, 999999003, entry);	/* reached through the symlink */
	if (geteuid() == 0)
		assert_int_equal(chown(theirs, NOBODY, NOBODY), 0);

	for (int i = 0; i < 3; i++) {
		char *cause = NULL;
		struct rt_journal *j;

		if (i == 1 && geteuid() != 0)
			continue;	/* cannot give a directory away */
		assert_int_equal(rt_journal_recover(dirs[i], &restored, &cause), -EPERM);
		assert_non_null(cause);
		if (!strstr(cause, dirs[i]) || !strstr(cause, expect[i]))
			fail_msg("cause '%s' should name %s and '%s'", cause, dirs[i], expect[i]);
		free(cause);
		cause = NULL;
		assert_int_equal(restored, 0);
		assert_int_equal(rt_journal_scan(dirs[i], &st, &n, &cause), -EPERM);
		assert_non_null(cause);
		free(cause);
		cause = NULL;
		assert_int_equal(n, 0);
		j = rt_journal_open(dirs[i], &cause);
		assert_null(j);
		assert_int_equal(errno, EPERM);
		assert_non_null(cause);
		free(cause);
	}
	assert_file(knob, "untouched", 9);
	snprintf(jpath, sizeof(jpath), "%s/999999001.journal", open_dir);
	assert_true(is_type(jpath, S_IFREG));
	snprintf(jpath, sizeof(jpath), "%s/999999002.journal", theirs);
	assert_true(is_type(jpath, S_IFREG));
	assert_true(none_corrupt(open_dir));
	assert_true(none_corrupt(theirs));
	assert_true(none_corrupt(f->dir));
	assert_int_equal(chmod(open_dir, 0700), 0);
}

/*
 * A FIFO, a symlink, a directory, a device and another user's journal named
 * like journals: recovery neither hangs nor reads, replays or renames them,
 * and says what each is.
 */
static void test_odd_files(void **state)
{
	struct fixture *f = *state;
	char knob[128], real[128], path[192], entry[256], *cause = NULL, *log;
	struct rt_journal_stale *st = NULL;
	unsigned int restored = 9;
	size_t n = 9;

	knob_and_entry(f, knob, sizeof(knob), entry, sizeof(entry), "written through an odd file");
	snprintf(path, sizeof(path), "%s/999999011.journal", f->dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	/* A valid journal elsewhere, reached only by following the symlink. */
	plant(f->knobs, 999999012, entry);
	snprintf(real, sizeof(real), "%s/999999012.journal", f->knobs);
	snprintf(path, sizeof(path), "%s/999999012.journal", f->dir);
	assert_int_equal(symlink(real, path), 0);
	snprintf(path, sizeof(path), "%s/999999013.journal", f->dir);
	assert_int_equal(mkdir(path, 0700), 0);
	if (geteuid() == 0) {
		snprintf(path, sizeof(path), "%s/999999014.journal", f->dir);
		assert_int_equal(mknod(path, S_IFCHR | 0600, makedev(1, 3)), 0);
		plant(f->dir, 999999015, entry);
		snprintf(path, sizeof(path), "%s/999999015.journal", f->dir);
		assert_int_equal(chown(path, NOBODY, NOBODY), 0);
	}

	/* A FIFO that recovery opened for reading would block here: die instead. */
	alarm(10);
	logs_start();
	assert_int_equal(rt_journal_scan(f->dir, &st, &n, NULL), 0);
	assert_int_equal(n, 0);
	rt_journal_stale_free(st, n);
	assert_int_equal(rt_journal_recover(f->dir, &restored, &cause), -EPERM);
	log = logs_take();
	alarm(0);
	assert_int_equal(restored, 0);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "999999011.journal is a FIFO"));
	assert_non_null(strstr(cause, "more"));
	free(cause);
	cause = NULL;
	if (!strstr(log, "999999011.journal is a FIFO, not a regular file") ||
	    !strstr(log, "999999012.journal is a symbolic link") ||
	    !strstr(log, "999999013.journal is a directory") ||
	    (geteuid() == 0 && (!strstr(log, "999999014.journal is a character device") ||
				!strstr(log, "999999015.journal belongs to nobody (uid 65534)"))))
		fail_msg("the log does not say what each odd file is:\n%s", log);
	free(log);

	assert_file(knob, "untouched", 9);
	snprintf(path, sizeof(path), "%s/999999011.journal", f->dir);
	assert_true(is_type(path, S_IFIFO));
	snprintf(path, sizeof(path), "%s/999999012.journal", f->dir);
	assert_true(is_type(path, S_IFLNK));
	assert_true(is_type(real, S_IFREG));
	snprintf(path, sizeof(path), "%s/999999013.journal", f->dir);
	assert_true(is_type(path, S_IFDIR));
	if (geteuid() == 0) {
		snprintf(path, sizeof(path), "%s/999999014.journal", f->dir);
		assert_true(is_type(path, S_IFCHR));
		snprintf(path, sizeof(path), "%s/999999015.journal", f->dir);
		assert_true(is_type(path, S_IFREG));
	}
	assert_true(none_corrupt(f->dir));

	/* Our own journal file may sit on a FIFO's name: it replaces it, without reading. */
	snprintf(path, sizeof(path), "%s/%d.journal", f->dir, (int)getpid());
	assert_int_equal(mkfifo(path, 0600), 0);
	alarm(10);
	{
		struct rt_journal *j = rt_journal_open(f->dir, NULL);

		assert_non_null(j);
		assert_int_equal(rt_journal_write_file(j, knob, "1", 1, NULL), 0);
		assert_true(is_type(path, S_IFREG));
		assert_int_equal(rt_journal_close(j), 0);
	}
	alarm(0);
	assert_false(exists(path));
	assert_file(knob, "untouched", 9);

	/* Another user's file with our name is theirs: no journal here rather than replace it. */
	if (geteuid() == 0) {
		struct rt_journal *j;

		put_file(path, "theirs\n", 7);
		assert_int_equal(chown(path, NOBODY, NOBODY), 0);
		j = rt_journal_open(f->dir, &cause);
		assert_null(j);
		assert_int_equal(errno, EEXIST);
		assert_non_null(strstr(cause, "belongs to nobody (uid 65534)"));
		free(cause);
		assert_file(path, "theirs\n", 7);
		assert_true(none_corrupt(f->dir));
	}
}

/*
 * Entries that name what their kind may not touch: a canary file written,
 * a canary file unlinked as a "netns", a canary directory removed as an
 * "instance", paths with "..", and symlinks inside an allowed directory.
 * Each is skipped and reported; the allowed entry in the same journal is
 * still restored.
 */
static void test_rejected_entries(void **state)
{
	struct fixture *f = *state;
	char cfile[128], cns[128], cdir[128], ok[128], link[128], sub[128], jpath[192];
	char *entries = NULL;
	struct rt_journal_doc doc;
	const struct rt_journal_entry *e;
	unsigned int restored = 0;
	char *text, *log, *cause = NULL;
	size_t len, nrejected = 0, hits = 0;
	const char *base = strrchr(f->canary, '/') + 1;

	snprintf(cfile, sizeof(cfile), "%s/file", f->canary);
	snprintf(cns, sizeof(cns), "%s/ns", f->canary);
	snprintf(cdir, sizeof(cdir), "%s/dir", f->canary);
	snprintf(ok, sizeof(ok), "%s/ok", f->knobs);
	snprintf(link, sizeof(link), "%s/link", f->knobs);
	snprintf(sub, sizeof(sub), "%s/sub", f->knobs);
	put_file(cfile, "canary", 6);
	put_file(cns, "", 0);
	assert_int_equal(mkdir(cdir, 0700), 0);
	put_file(ok, "now", 3);
	assert_int_equal(symlink(cfile, link), 0);
	assert_int_equal(symlink(f->canary, sub), 0);
	assert_true(asprintf(&entries,
			     "file \"%s\" \"old\"\n"
			     "file \"%s\" \"pwned\"\n"
			     "file \"%s/../%s/file\" \"pwned\"\n"
			     "file \"%s/link\" \"pwned\"\n"
			     "file \"%s/sub/file\" \"pwned\"\n"
			     "netns \"%s\"\n"
			     "netns \"/run/netns/../..%s\"\n"
			     "instance \"%s\"\n"
			     "instance \"/sys/kernel/tracing/instances/../../../..%s\"\n",
			     ok, cfile, f->knobs, base, f->knobs, f->knobs, cns, cns, cdir,
			     cdir) > 0);
	plant(f->dir, 999999021, entries);

	/* The parser already marks what no rule allows; symlinks show only on the way. */
	snprintf(jpath, sizeof(jpath), "%s/999999021.journal", f->dir);
	assert_int_equal(rt_file_read(jpath, 1 << 20, &text, &len), 0);
	assert_int_equal(rt_journal_parse(text, len, &doc, NULL, NULL), 0);
	free(text);
	for (e = doc.oldest; e; e = e->newer)
		nrejected += e->rejected != NULL;
	assert_int_equal(nrejected, 6);
	assert_null(doc.oldest->rejected);			/* the allowed knob */
	assert_null(doc.oldest->newer->newer->newer->rejected);	/* link: under the test root */
	rt_journal_doc_fini(&doc);

	logs_start();
	assert_int_equal(rt_journal_recover(f->dir, &restored, &cause), 0);
	log = logs_take();
	assert_null(cause);
	assert_int_equal(restored, 1);
	assert_file(ok, "old", 3);
	assert_file(cfile, "canary", 6);
	assert_true(is_type(cns, S_IFREG));
	assert_true(is_type(cdir, S_IFDIR));
	assert_true(is_type(link, S_IFLNK));
	for (const char *p = log; (p = strstr(p, "refused to restore")); p++)
		hits++;
	if (hits != 8)
		fail_msg("want 8 refusals in the log, got %zu:\n%s", hits, log);
	if (!strstr(log, "not a knob the journal may restore") ||
	    !strstr(log, "symbolic link") || !strstr(log, "not canonical") ||
	    !strstr(log, "not a network namespace file") ||
	    !strstr(log, "not an rtlab tracefs instance"))
		fail_msg("the log does not say why:\n%s", log);
	free(log);
	free(entries);
}

/* Replay checks again, whatever the entry's parse said (a journal in memory). */
static void test_replay_rechecks(void **state)
{
	struct fixture *f = *state;
	char cfile[128], cdir[128], link[128];
	struct rt_journal_entry e;

	snprintf(cfile, sizeof(cfile), "%s/file", f->canary);
	snprintf(cdir, sizeof(cdir), "%s/dir", f->canary);
	snprintf(link, sizeof(link), "%s/link", f->knobs);
	put_file(cfile, "canary", 6);
	assert_int_equal(mkdir(cdir, 0700), 0);
	assert_int_equal(symlink(cfile, link), 0);

	memset(&e, 0, sizeof(e));
	e.kind = RT_JOURNAL_FILE;
	e.old = (char *)"pwned";
	e.old_len = 5;
	e.path = cfile;
	rt_journal_entry_replay(&e);
	assert_int_equal(e.outcome, RT_JOURNAL_REJECTED);
	assert_non_null(e.rejected);
	e.path = link;
	rt_journal_entry_replay(&e);
	assert_int_equal(e.outcome, RT_JOURNAL_REJECTED);
	assert_non_null(strstr(e.rejected, "symbolic link"));
	assert_file(cfile, "canary", 6);

	memset(&e, 0, sizeof(e));
	e.kind = RT_JOURNAL_INSTANCE;
	e.path = cdir;
	rt_journal_entry_replay(&e);
	assert_int_equal(e.outcome, RT_JOURNAL_REJECTED);
	e.kind = RT_JOURNAL_NETNS;
	e.path = cfile;
	rt_journal_entry_replay(&e);
	assert_int_equal(e.outcome, RT_JOURNAL_REJECTED);
	assert_true(is_type(cdir, S_IFDIR));
	assert_file(cfile, "canary", 6);
}

/* A change the journal could not undo is refused before it is made. */
static void test_write_refused(void **state)
{
	struct fixture *f = *state;
	char cfile[128], link[128], fifo[128], *cause = NULL;
	struct rt_journal *j;
	int ret;

	snprintf(cfile, sizeof(cfile), "%s/file", f->canary);
	snprintf(link, sizeof(link), "%s/link", f->knobs);
	snprintf(fifo, sizeof(fifo), "%s/fifo", f->knobs);
	put_file(cfile, "canary", 6);
	assert_int_equal(symlink(cfile, link), 0);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	j = rt_journal_open(f->dir, NULL);
	assert_non_null(j);
	assert_int_equal(rt_journal_write_file(j, cfile, "x", 1, &cause), -EPERM);
	assert_non_null(strstr(cause, "may not change it"));
	free(cause);
	cause = NULL;
	/* realpath resolves the link to the canary, which is not allowed. */
	assert_int_equal(rt_journal_write_file(j, link, "x", 1, &cause), -EPERM);
	free(cause);
	cause = NULL;
	alarm(10);
	assert_int_equal(rt_journal_write_file(j, fifo, "x", 1, &cause), -EPERM);
	alarm(0);
	assert_non_null(strstr(cause, "not a regular file"));
	free(cause);
	cause = NULL;
	/* -ENODEV only where tracefs is not there at all. */
	ret = rt_journal_create_instance(j, "not-rtlab", &cause);
	if (ret != -EPERM && ret != -ENODEV)
		fail_msg("create_instance(not-rtlab): %d (%s)", ret, cause);
	free(cause);
	assert_int_equal(rt_journal_count(j), 0);
	assert_int_equal(rt_journal_close(j), 0);
	assert_file(cfile, "canary", 6);
}

/*
 * As another user: a journal of root's in that user's own directory is
 * left alone, not renamed, and the warning names root and how to restore;
 * a directory of root's is not trusted. Runs as nobody in a child.
 */
static int nobody_checks(const struct fixture *f, const char *udir, const char *rootj)
{
	char aside[256], *cause = NULL, *log;
	unsigned int restored = 9;
	struct stat st;

	if (become_nobody())
		return 10;
	logs_start();
	if (rt_journal_recover(udir, &restored, &cause) != -EPERM || restored != 0)
		return 11;
	log = logs_take();
	if (!cause || !strstr(cause, "belongs to root (uid 0)") ||
	    !strstr(cause, "sudo rtlab doctor --restore"))
		return 12;
	free(cause);
	cause = NULL;
	free(log);
	if (lstat(rootj, &st) < 0 || st.st_uid != 0)
		return 13;
	snprintf(aside, sizeof(aside), "%s.corrupt", rootj);
	if (lstat(aside, &st) == 0)
		return 14;
	/* f->dir is root's: not this user's to trust. */
	if (rt_journal_recover(f->dir, &restored, &cause) != -EPERM || !cause ||
	    !strstr(cause, "owned by root (uid 0)"))
		return 15;
	free(cause);
	return 0;
}

static void test_foreign_as_user(void **state)
{
	struct fixture *f = *state;
	char udir[128], knob[128], rootj[192], entry[256];
	int status;
	pid_t pid;

	if (geteuid() != 0) {
		skip_because("needs root to act as two users");
		return;
	}
	snprintf(udir, sizeof(udir), "%s/user", f->dir);
	knob_and_entry(f, knob, sizeof(knob), entry, sizeof(entry), "x");
	assert_int_equal(mkdir(udir, 0700), 0);
	plant(udir, 999999031, entry);
	snprintf(rootj, sizeof(rootj), "%s/999999031.journal", udir);
	assert_int_equal(chmod(rootj, 0600), 0);
	assert_int_equal(chown(udir, NOBODY, NOBODY), 0);
	/* nobody must reach udir through f->dir. */
	assert_int_equal(chmod(f->dir, 0711), 0);
	pid = spawn();
	if (pid == 0)
		_exit(nobody_checks(f, udir, rootj));
	assert_int_equal(wait_kid(pid, &status), pid);
	assert_int_equal(chmod(f->dir, 0700), 0);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status))
		fail_msg("check %d failed as nobody", WEXITSTATUS(status));
	assert_true(is_type(rootj, S_IFREG));
	assert_true(none_corrupt(udir));
	assert_file(knob, "untouched", 9);
}

/* A thread entry acts only while the thread's start time is the recorded one. */
static void test_thread_start_time(void **state)
{
	struct fixture *f = *state;
	struct sched_param sp = { 0 };
	unsigned long long start;
	unsigned int restored = 0;
	char entry[128];
	pid_t victim;

	victim = start_sleeper();
	assert_int_equal(sched_setscheduler(victim, SCHED_BATCH, &sp), 0);
	assert_int_equal(rt_journal_proc_start(victim, &start), 0);
	snprintf(entry, sizeof(entry), "sched %d %llu other 0\n", (int)victim, start + 7);
	plant(f->dir, 999999041, entry);
	assert_int_equal(rt_journal_recover(f->dir, &restored, NULL), 0);
	assert_int_equal(restored, 1);
	assert_int_equal(sched_getscheduler(victim), SCHED_BATCH);
	snprintf(entry, sizeof(entry), "sched %d %llu other 0\n", (int)victim, start);
	plant(f->dir, 999999042, entry);
	assert_int_equal(rt_journal_recover(f->dir, &restored, NULL), 0);
	assert_int_equal(sched_getscheduler(victim), SCHED_OTHER);
	reap(victim);
}

/* ---- Parser ----------------------------------------------------------------- */

static void test_parse_format_roundtrip(void **state)
{
	static const char text[] =
		RT_JOURNAL_MAGIC "\n"
		"boot 25dcdd0f-e7f5-46c0-a244-c7572cebbd23\n"
		"pid 42 1234\n"
		"file \"/sys/a b\" \"\\x00\\x22\\x5c ok\\x0a\"\n"
		"sched 43 99 fifo 10 reset-on-fork\n"
		"affinity 43 99 0-2,5,7-8\n"
		"instance \"/sys/kernel/tracing/instances/rtlab-x\"\n"
		"netns \"/run/netns/rtlab-x\"\n";
	struct rt_journal_doc doc, again;
	struct rt_buf b = RT_BUF_INIT;
	const struct rt_journal_entry *e;
	char *cause = NULL;
	size_t line = 0;

	(void)state;
	assert_int_equal(rt_journal_parse(text, strlen(text), &doc, &line, &cause), 0);
	assert_null(cause);
	assert_int_equal(doc.pid, 42);
	assert_int_equal(doc.start, 1234);
	assert_int_equal(doc.n, 5);
	e = doc.oldest;
	assert_int_equal(e->kind, RT_JOURNAL_FILE);
	assert_string_equal(e->path, "/sys/a b");
	/* Parsed and kept, but no rule lets a file entry write it. */
	assert_non_null(e->rejected);
	assert_null(e->newer->rejected);
	assert_null(doc.newest->older->rejected);	/* an rtlab instance */
	assert_null(doc.newest->rejected);		/* a /run/netns file */
	assert_int_equal(e->old_len, 7);
	assert_memory_equal(e->old, "\0\"\\ ok\n", 7);
	e = e->newer;
	assert_int_equal(e->kind, RT_JOURNAL_SCHED);
	assert_int_equal(e->policy, SCHED_FIFO);
	assert_int_equal(e->prio, 10);
	assert_true(e->reset_on_fork);
	e = e->newer;
	assert_int_equal(e->kind, RT_JOURNAL_AFFINITY);
	assert_int_equal(CPU_COUNT(&e->cpus), 6);
	assert_true(CPU_ISSET(8, &e->cpus));
	assert_false(CPU_ISSET(3, &e->cpus));
	assert_int_equal(doc.newest->kind, RT_JOURNAL_NETNS);

	/* What we write is exactly what we read. */
	assert_int_equal(rt_journal_format(&doc, &b), 0);
	assert_string_equal(rt_buf_str(&b), text);
	assert_int_equal(rt_journal_parse(b.data, b.len, &again, NULL, NULL), 0);
	assert_int_equal(again.n, 5);
	rt_journal_doc_fini(&again);
	rt_buf_fini(&b);
	rt_journal_doc_fini(&doc);
}

/*
 * The fuzz corpus holds one journal whose every entry the rules must reject
 * and one whose every entry they must accept (tests/fuzz/corpus/journal/).
 */
static void test_corpus_verdicts(void **state)
{
	static const struct {
		const char *name;
		bool rejected;
		size_t n;
	} files[] = {
		{ "rejected-paths.journal", true, 20 },
		{ "allowed-paths.journal", false, 8 },
	};
	const char *srcdir = getenv("SRCDIR");

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct rt_journal_doc doc;
		char path[512], *text = NULL;
		size_t len = 0;

		snprintf(path, sizeof(path), "%s/tests/fuzz/corpus/journal/%s",
			 srcdir ? srcdir : ".", files[i].name);
		if (access(path, R_OK) != 0) {
			print_message("%s not found: run from the source tree or set SRCDIR\n", path);
			skip();
		}
		assert_int_equal(rt_file_read(path, 1 << 20, &text, &len), 0);
		assert_int_equal(rt_journal_parse(text, len, &doc, NULL, NULL), 0);
		free(text);
		assert_int_equal(doc.n, files[i].n);
		for (const struct rt_journal_entry *e = doc.oldest; e; e = e->newer)
			if (!e->rejected != !files[i].rejected)
				fail_msg("%s: %s is %s", files[i].name, e->path ? e->path : "?",
					 e->rejected ? e->rejected : "accepted");
		rt_journal_doc_fini(&doc);
	}
}

static void test_parse_rejects(void **state)
{
	static const struct {
		const char *text;
		size_t line;
	} bad[] = {
		{ "", 1 },
		{ "rtlab-journal 2\n", 1 },
		{ RT_JOURNAL_MAGIC "\n", 2 },
		{ RT_JOURNAL_MAGIC "\nboot xyz\npid 1 1\n", 2 },
		{ RT_JOURNAL_MAGIC "\nboot ab\npid 0 1\n", 3 },
		{ RT_JOURNAL_MAGIC "\nboot ab\npid 1 1 \n", 3 },
		{ RT_JOURNAL_MAGIC "\nboot ab\npid 1 99999999999999999999999\n", 3 },
		{ RT_JOURNAL_MAGIC "\nboot ab\npid 1 1\nfile \"rel\" \"\"\n", 4 },
		{ RT_JOURNAL_MAGIC "\nboot ab\npid 1 1\nfile \"/a\\x00b\" \"\"\n", 4 },
		{ RT_JOURNAL_MAGIC "\nboot ab\npid 1 1\nfile \"/a\" \"\\q\"\n", 4 },
		{ RT_JOURNAL_MAGIC "\nboot ab\npid 1 1\nfile \"/a\" \"\t\"\n", 4 },
		{ RT_JOURNAL_MAGIC "\nboot ab\npid 1 1\nsched 5 1 fifo 0\n", 4 },
		{ RT_JOURNAL_MAGIC "\nboot ab\npid 1 1\nsched 5 1 other 3\n", 4 },
		{ RT_JOURNAL_MAGIC "\nboot ab\npid 1 1\nsched 5 1 deadline 0\n", 4 },
		{ RT_JOURNAL_MAGIC "\nboot ab\npid 1 1\naffinity 5 1 3-1\n", 4 },
		{ RT_JOURNAL_MAGIC "\nboot ab\npid 1 1\naffinity 5 1 1024\n", 4 },
		{ RT_JOURNAL_MAGIC "\nboot ab\npid 1 1\naffinity 5 1 \n", 4 },
		{ RT_JOURNAL_MAGIC "\nboot ab\npid 1 1\nnetns \"/run/netns/x\"\nbogus\n", 5 },
		{ RT_JOURNAL_MAGIC "\nboot ab\npid 1 1\nnetns \"/run/netns/x\"", 4 },
	};
	struct rt_journal_doc doc;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *cause = NULL;
		size_t line = 0;

		assert_int_equal(rt_journal_parse(bad[i].text, strlen(bad[i].text), &doc, &line,
						  &cause), -EINVAL);
		assert_non_null(cause);
		if (line != bad[i].line)
			fail_msg("case %zu: line %zu, want %zu (%s)", i, line, bad[i].line, cause);
		assert_null(doc.newest);
		free(cause);
	}
}

/* ---- Root: scheduling, tracefs, netns ------------------------------------------ */

static int first_allowed_cpu(const cpu_set_t *set)
{
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, set))
			return c;
	return -1;
}

static void test_sched_real(void **state)
{
	struct fixture *f = *state;
	cpu_set_t orig, one, now;
	struct sched_param sp;
	struct rt_journal *j;
	unsigned int restored = 0;
	char text[512];
	pid_t victim, pid;
	int fds[2], status, cpu;
	char c = 0;

	if (geteuid() != 0) {
		skip_because("needs root for SCHED_FIFO");
		return;
	}
	victim = start_sleeper();
	assert_int_equal(sched_getaffinity(victim, sizeof(orig), &orig), 0);
	cpu = first_allowed_cpu(&orig);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);

	/* Journalling child: FIFO 10 and one CPU for the victim, then SIGKILL. */
	assert_int_equal(pipe(fds), 0);
	pid = spawn();
	if (pid == 0) {
		close(fds[0]);
		j = rt_journal_open(f->dir, NULL);
		if (!j || rt_journal_set_sched(j, victim, SCHED_FIFO, 10, NULL) ||
		    rt_journal_set_affinity(j, victim, &one, NULL))
			_exit(1);
		if (write(fds[1], "k", 1) != 1)
			_exit(2);
		for (;;)
			pause();
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 1);
	close(fds[0]);
	assert_int_equal(sched_getscheduler(victim), SCHED_FIFO);
	assert_int_equal(sched_getparam(victim, &sp), 0);
	assert_int_equal(sp.sched_priority, 10);
	assert_int_equal(sched_getaffinity(victim, sizeof(now), &now), 0);
	assert_true(CPU_EQUAL(&now, &one));
	kill(pid, SIGKILL);
	assert_int_equal(wait_kid(pid, &status), pid);

	assert_int_equal(rt_journal_recover(f->dir, &restored, NULL), 0);
	assert_int_equal(restored, 1);
	assert_int_equal(sched_getscheduler(victim), SCHED_OTHER);
	assert_int_equal(sched_getaffinity(victim, sizeof(now), &now), 0);
	assert_true(CPU_EQUAL(&now, &orig));

	/* Recycled tid: same tid, another start time. The entry must be skipped. */
	sp.sched_priority = 5;
	assert_int_equal(sched_setscheduler(victim, SCHED_FIFO, &sp), 0);
	assert_int_equal(sched_setaffinity(victim, sizeof(one), &one), 0);
	{
		char boot[80];
		unsigned long long init_start, vstart;

		read_boot_id(boot, sizeof(boot));
		assert_int_equal(rt_journal_proc_start(1, &init_start), 0);
		assert_int_equal(rt_journal_proc_start(victim, &vstart), 0);
		snprintf(text, sizeof(text), RT_JOURNAL_MAGIC "\nboot %s\npid 1 %llu\n"
			 "sched %d %llu other 0\naffinity %d %llu 0-%d\n", boot, init_start + 1,
			 (int)victim, vstart + 7, (int)victim, vstart + 7, CPU_SETSIZE - 1);
	}
	put_journal(f, "1.journal", text);
	assert_int_equal(rt_journal_recover(f->dir, &restored, NULL), 0);
	assert_int_equal(restored, 1);
	assert_int_equal(sched_getscheduler(victim), SCHED_FIFO);
	assert_int_equal(sched_getaffinity(victim, sizeof(now), &now), 0);
	assert_true(CPU_EQUAL(&now, &one));

	/* In-process: the calling thread, restored by close. */
	j = rt_journal_open(f->dir, NULL);
	assert_non_null(j);
	assert_int_equal(rt_journal_set_sched(j, 0, SCHED_RR, 1, NULL), 0);
	assert_int_equal(sched_getscheduler(0), SCHED_RR);
	assert_int_equal(rt_journal_close(j), 0);
	assert_int_equal(sched_getscheduler(0), SCHED_OTHER);

	reap(victim);
}

#define TRACEFS_INSTANCES "/sys/kernel/tracing/instances"

static void test_tracefs_instance_real(void **state)
{
	struct fixture *f = *state;
	char name[64], dir[160], other[160], *cause = NULL;
	unsigned int restored = 0;
	struct rt_journal *j;
	struct stat st;
	int fds[2], status;
	pid_t pid;
	char c = 0;

	if (geteuid() != 0) {
		skip_because("needs root to create tracefs instances");
		return;
	}
	if (stat(TRACEFS_INSTANCES, &st) < 0 && !exists("/sys/kernel/tracing/trace"))
		mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL);
	if (stat(TRACEFS_INSTANCES, &st) < 0) {
		skip_because("tracefs is not mounted at /sys/kernel/tracing");
		return;
	}
	snprintf(name, sizeof(name), "rtlab-test-%d", (int)getpid());
	snprintf(dir, sizeof(dir), "%s/%s", TRACEFS_INSTANCES, name);
	rmdir(dir);
	/*
	 * An instance that is not ours must survive every undo below. Tests running beside
	 * this one create and remove instances of their own, so watch one we made for the
	 * purpose rather than compare listings of the whole directory.
	 */
	snprintf(other, sizeof(other), "%s/rtlab-test-other-%d", TRACEFS_INSTANCES, (int)getpid());
	rmdir(other);
	assert_int_equal(mkdir(other, 0755), 0);

	assert_int_equal(pipe(fds), 0);
	pid = spawn();
	if (pid == 0) {
		close(fds[0]);
		j = rt_journal_open(f->dir, NULL);
		if (!j || rt_journal_create_instance(j, name, NULL))
			_exit(1);
		if (write(fds[1], "k", 1) != 1)
			_exit(2);
		for (;;)
			pause();
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 1);
	close(fds[0]);
	assert_true(exists(dir));
	kill(pid, SIGKILL);
	assert_int_equal(wait_kid(pid, &status), pid);
	assert_true(exists(dir));
	assert_int_equal(rt_journal_recover(f->dir, &restored, NULL), 0);
	assert_int_equal(restored, 1);
	assert_false(exists(dir));

	/* In-process, and an existing instance is refused without an entry. */
	j = rt_journal_open(f->dir, NULL);
	assert_non_null(j);
	assert_int_equal(rt_journal_create_instance(j, name, NULL), 0);
	assert_true(exists(dir));
	assert_int_equal(rt_journal_create_instance(j, name, &cause), -EEXIST);
	assert_non_null(cause);
	free(cause);
	assert_int_equal(rt_journal_count(j), 1);
	assert_int_equal(rt_journal_close(j), 0);
	assert_false(exists(dir));

	assert_true(exists(other));
	assert_int_equal(rmdir(other), 0);
}

/* Is @name in `ip netns list`? */
static bool ip_netns_lists(const char *name)
{
	FILE *p = popen("ip netns list 2>/dev/null", "r");
	char line[256];
	bool found = false;

	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, " \n")] = '\0';
		if (!strcmp(line, name))
			found = true;
	}
	pclose(p);
	return found;
}

static void test_netns_real(void **state)
{
	struct fixture *f = *state;
	char name[64], path[160];
	unsigned int restored = 0;
	struct rt_journal *j;
	int fds[2], status;
	pid_t pid;
	char c = 0;

	if (geteuid() != 0) {
		skip_because("needs root to create network namespaces");
		return;
	}
	snprintf(name, sizeof(name), "rtlab-test-%d", (int)getpid());
	snprintf(path, sizeof(path), "/run/netns/%s", name);

	assert_int_equal(pipe(fds), 0);
	pid = spawn();
	if (pid == 0) {
		close(fds[0]);
		j = rt_journal_open(f->dir, NULL);
		if (!j || rt_journal_create_netns(j, name, NULL))
			_exit(1);
		if (write(fds[1], "k", 1) != 1)
			_exit(2);
		for (;;)
			pause();
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 1);
	close(fds[0]);
	assert_true(exists(path));
	assert_true(ip_netns_lists(name));
	kill(pid, SIGKILL);
	assert_int_equal(wait_kid(pid, &status), pid);
	assert_true(ip_netns_lists(name));
	assert_int_equal(rt_journal_recover(f->dir, &restored, NULL), 0);
	assert_int_equal(restored, 1);
	assert_false(exists(path));
	assert_false(ip_netns_lists(name));

	/* In-process: create, refuse a duplicate, close deletes. */
	j = rt_journal_open(f->dir, NULL);
	assert_non_null(j);
	assert_int_equal(rt_journal_create_netns(j, name, NULL), 0);
	assert_true(ip_netns_lists(name));
	assert_int_equal(rt_journal_create_netns(j, name, NULL), -EEXIST);
	assert_int_equal(rt_journal_count(j), 1);
	assert_int_equal(rt_journal_close(j), 0);
	assert_false(exists(path));
	assert_false(ip_netns_lists(name));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_write_close_restores, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sigkill_then_recover, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sigint_restores, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sigterm_restores, setup, teardown),
		cmocka_unit_test_setup_teardown(test_abort_restores, setup, teardown),
		cmocka_unit_test_setup_teardown(test_app_sigint_handler_is_honoured, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exit_restores, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fork_does_not_replay, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_journals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_untrusted_dirs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_odd_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejected_entries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_rechecks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_as_user, setup, teardown),
		cmocka_unit_test_setup_teardown(test_thread_start_time, setup, teardown),
		cmocka_unit_test(test_parse_format_roundtrip),
		cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_corpus_verdicts),
		cmocka_unit_test_setup_teardown(test_sched_real, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tracefs_instance_real, setup, teardown),
		cmocka_unit_test_setup_teardown(test_netns_real, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
