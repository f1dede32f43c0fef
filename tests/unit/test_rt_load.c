/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for rt_load: every generator really starts processes that do
 * work, stops within its bound, and leaves no process (looked up in /proc
 * by parent and process group) and no temp file behind; the hard time
 * limit ends a generator nobody stops; a caller that exits or is killed
 * takes its load with it; bad names are refused with the list of good ones.
 *
 * The machine running these may be loaded, so no assertion says how fast
 * anything happens beyond what rt_load itself promises (see each), and every
 * wait is for the effect itself (processes in the group, CPU time, a file)
 * with a deadline that only catches a hang (HANG_MS). Loads that must stay
 * up while a test looks at them get a time limit far beyond that deadline.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/rt_load.h"
#include "core/rt_time.h"

/*
 * A bound on every wait, against a hang only: what the waits wait for takes
 * milliseconds on an idle machine and may take seconds on a loaded one.
 */
#define HANG_MS 60000
/* The limit for loads a test stops itself: they must outlive any wait. */
#define LONG_LIMIT_S (3 * HANG_MS / 1000)

struct fixture {
	char tmp[64];		/* $TMPDIR for the generators */
	struct rt_load *load;	/* a test's load, freed by teardown when a check failed */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	strcpy(f->tmp, "/tmp/rtlab-test-load-XXXXXX");
	if (!mkdtemp(f->tmp))
		return -1;
	setenv("TMPDIR", f->tmp, 1);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	int ret;

	/* A failed check left its load running: stop it before the next test counts processes. */
	rt_load_free(f->load);
	ret = rmdir(f->tmp);	/* fails if a generator left anything */

	unsetenv("TMPDIR");
	free(f);
	return ret;
}

struct pscan {
	pid_t ppid;		/* count processes with this parent (0: ignore) */
	pid_t pgrp;		/* count processes in this group (0: ignore) */
	bool skip_zombies;
	unsigned int count;
	unsigned long long ticks;	/* utime + stime of the counted processes */
};

/* Walk /proc once and count the processes that match @s. */
static void scan_proc(struct pscan *s)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	assert_non_null(d);
	s->count = 0;
	s->ticks = 0;
	while ((e = readdir(d))) {
		char path[300], buf[1024], state, *p;
		int ppid, pgrp;
		unsigned long long ut, st;
		FILE *fp;
		size_t n;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		fp = fopen(path, "r");
		if (!fp)
			continue;
		n = fread(buf, 1, sizeof(buf) - 1, fp);
		fclose(fp);
		buf[n] = 0;
		/* The command name may hold spaces and parentheses: skip to the last ')'. */
		p = strrchr(buf, ')');
		if (!p || sscanf(p + 1, " %c %d %d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
				 &state, &ppid, &pgrp, &ut, &st) != 5)
			continue;
		if (s->skip_zombies && (state == 'Z' || state == 'X'))
			continue;
		if ((s->ppid && ppid == s->ppid) || (s->pgrp && pgrp == s->pgrp)) {
			s->count++;
			s->ticks += ut + st;
		}
	}
	closedir(d);
}

static unsigned int my_children(void)
{
	struct pscan s = { .ppid = getpid() };

	scan_proc(&s);
	return s.count;
}

static unsigned int group_count(pid_t pgrp, unsigned long long *ticks, bool skip_zombies)
{
	struct pscan s = { .pgrp = pgrp, .skip_zombies = skip_zombies };

	scan_proc(&s);
	if (ticks)
		*ticks = s.ticks;
	return s.count;
}

static unsigned int dir_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	unsigned int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* Start one generator, check that it works, stop it and check that nothing is left. */
static void run_one(struct fixture *f, const char *name, unsigned int min_procs)
{
	struct rt_load *l;
	char *cause = NULL;
	unsigned long long ticks = 0;
	bool io = !strcmp(name, "io");
	unsigned int procs = 0;
	char dir[256] = "";
	struct stat st;
	pid_t leader;
	uint64_t deadline;

	l = rt_load_start(name, LONG_LIMIT_S, &cause);
	if (!l)
		fail_msg("rt_load_start(%s): %s", name, cause ? cause : strerror(errno));
	f->load = l;
	assert_int_equal(rt_load_count(l), 1);
	assert_string_equal(rt_load_name(l, 0), name);
	leader = rt_load_pid(l, 0);
	assert_true(leader > 0);
	if (rt_load_dir(l, 0))
		snprintf(dir, sizeof(dir), "%s", rt_load_dir(l, 0));

	/* The workers show up in the leader's group and burn CPU (the io one writes). */
	deadline = rt_time_deadline_ms(HANG_MS);
	for (;;) {
		procs = group_count(leader, &ticks, true);
		if ((procs >= min_procs && (io || ticks > 0)) || rt_time_passed(deadline))
			break;
		rt_time_sleep_ms(50, NULL);
	}
	if (procs < min_procs)
		fail_msg("%s: %u processes, expected at least %u", name, procs, min_procs);
	if (!io && ticks == 0)
		fail_msg("%s: its processes used no CPU time", name);
	assert_int_equal(rt_load_alive(l), 1);
	if (io) {
		char file[300];

		assert_true(dir[0] != 0);
		assert_int_equal(strncmp(dir, f->tmp, strlen(f->tmp)), 0);
		snprintf(file, sizeof(file), "%s/load.dat", dir);
		deadline = rt_time_deadline_ms(HANG_MS);
		while (!(stat(file, &st) == 0 && st.st_size > 0) && !rt_time_passed(deadline))
			rt_time_sleep_ms(50, NULL);
		assert_int_equal(stat(file, &st), 0);
		assert_true(st.st_size > 0);
	}

	/*
	 * 0 says the leader ended by itself; a leader stop had to kill (one that
	 * could not run for 30 s) gives -ETIMEDOUT. The test adds no clock.
	 */
	assert_int_equal(rt_load_stop(l), 0);
	assert_int_equal(rt_load_stop(l), 0);
	assert_int_equal(rt_load_alive(l), 0);
	assert_int_equal(rt_load_pid(l, 0), 0);
	/* The leader reaped its whole tree, zombies included, before it went. */
	assert_int_equal(group_count(leader, NULL, false), 0);
	assert_int_equal(my_children(), 0);
	if (dir[0])
		assert_int_not_equal(stat(dir, &st), 0);
	assert_int_equal(dir_entries(f->tmp), 0);
	f->load = NULL;
	rt_load_free(l);
}

static void test_cpu(void **state)
{
	cpu_set_t set;
	int n = 1;

	/* A busy loop on every CPU we may use (our affinity, as taskset sets it), and the leader. */
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		n = CPU_COUNT(&set);
	run_one(*state, "cpu", 1 + (unsigned int)n);
}

static void test_mem(void **state)
{
	run_one(*state, "mem", 2);
}

static void test_io(void **state)
{
	run_one(*state, "io", 2);
}

static void test_msg(void **state)
{
	/* At least two pairs plus the leader. */
	run_one(*state, "msg", 5);
}

static void test_fork(void **state)
{
	run_one(*state, "fork", 2);
}

static void test_pagefault(void **state)
{
	run_one(*state, "pagefault", 2);
}

static void test_several_and_hard_limit(void **state)
{
	struct fixture *f = *state;
	struct rt_load *l;
	char *cause = NULL;
	pid_t leaders[3];
	unsigned int i, alive;
	uint64_t t0 = rt_time_now_ms(), dt;

	l = rt_load_start("cpu,fork,io", 1, &cause);
	if (!l)
		fail_msg("rt_load_start: %s", cause);
	f->load = l;
	assert_int_equal(rt_load_count(l), 3);
	for (i = 0; i < 3; i++)
		leaders[i] = rt_load_pid(l, i);
	assert_non_null(rt_load_dir(l, 2));
	assert_null(rt_load_dir(l, 0));
	assert_null(rt_load_name(l, 3));
	/*
	 * Each leader's deadline is 1 s after its own start, which is after t0:
	 * seen before t0 + 1 s, all three must be up. A test stalled past that
	 * by the machine cannot tell, and says so.
	 */
	alive = rt_load_alive(l);
	if (rt_time_now_ms() - t0 < 1000)
		assert_int_equal(alive, 3);
	else
		print_message("stalled past the 1 s limit before looking: %u of 3 alive\n", alive);

	/*
	 * Nobody calls stop: the one-second limit ends them all. Not before it
	 * (the deadline is measured from after t0); how long after depends on
	 * the machine, so no upper bound but the hang deadline.
	 */
	while (rt_load_alive(l) && rt_time_now_ms() - t0 < HANG_MS)
		rt_time_sleep_ms(20, NULL);
	dt = rt_time_now_ms() - t0;
	assert_int_equal(rt_load_alive(l), 0);
	if (dt < 1000)
		fail_msg("limit of 1 s ended the load after %lld ms", (long long)dt);
	for (i = 0; i < 3; i++)
		assert_int_equal(group_count(leaders[i], NULL, false), 0);
	assert_int_equal(my_children(), 0);
	/* The leader removed its own temp dir on the way out. */
	assert_int_equal(dir_entries(f->tmp), 0);
	/* 0: each leader ended by its deadline, none by its backstop alarm or by us. */
	assert_int_equal(rt_load_stop(l), 0);
	f->load = NULL;
	rt_load_free(l);
}

struct stall {
	pid_t pid;
	unsigned int ms;
};

static void *continue_later(void *arg)
{
	const struct stall *st = arg;

	rt_time_sleep_ms(st->ms, NULL);
	kill(st->pid, SIGCONT);
	return NULL;
}

/*
 * A leader that gets no CPU for a while, as on a loaded machine, is waited
 * for, not killed: stopped for 4 s (longer than stop used to allow) while
 * rt_load_stop() runs, it still ends by itself and reaps its whole tree.
 */
static void test_stop_waits_for_slow_leader(void **state)
{
	struct fixture *f = *state;
	struct stall st = { .ms = 4000 };
	char *cause = NULL;
	pthread_t t;
	pid_t leader;
	unsigned int n;
	uint64_t deadline;

	f->load = rt_load_start("cpu", LONG_LIMIT_S, &cause);
	if (!f->load)
		fail_msg("rt_load_start: %s", cause);
	leader = rt_load_pid(f->load, 0);
	deadline = rt_time_deadline_ms(HANG_MS);
	while ((n = group_count(leader, NULL, true)) < 2 && !rt_time_passed(deadline))
		rt_time_sleep_ms(20, NULL);
	assert_true(n >= 2);
	assert_int_equal(kill(leader, SIGSTOP), 0);
	st.pid = leader;
	assert_int_equal(pthread_create(&t, NULL, continue_later, &st), 0);
	assert_int_equal(rt_load_stop(f->load), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(group_count(leader, NULL, false), 0);
	assert_int_equal(my_children(), 0);
	rt_load_free(f->load);
	f->load = NULL;
}

/*
 * A caller that ends takes its load along: by exit() (atexit hook) or by
 * SIGKILL (the lifeline). @how: 0 exit, 1 killed.
 */
static void caller_dies(int how)
{
	int up[2], down[2];
	pid_t child, leaders[2] = { 0, 0 }, leader;
	int status, i;
	unsigned int n = 0;
	uint64_t deadline;

	assert_int_equal(pipe(up), 0);
	assert_int_equal(pipe(down), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct rt_load *l;
		char go;

		close(up[0]);
		close(down[1]);
		l = rt_load_start("cpu,msg", LONG_LIMIT_S, NULL);
		if (!l)
			_exit(2);
		leaders[0] = rt_load_pid(l, 0);
		leaders[1] = rt_load_pid(l, 1);
		if (write(up[1], leaders, sizeof(leaders)) != sizeof(leaders))
			_exit(3);
		/* Wait for the parent to have seen the load running. */
		if (read(down[0], &go, 1) != 1)
			_exit(4);
		if (how == 0)
			exit(0);	/* no rt_load_stop: the atexit hook must do it */
		pause();
		_exit(5);
	}
	close(up[1]);
	close(down[0]);
	assert_int_equal(read(up[0], leaders, sizeof(leaders)), sizeof(leaders));
	close(up[0]);
	assert_true(leaders[0] > 0);
	assert_true(leaders[1] > 0);
	leader = leaders[1];	/* msg: leader, four or more workers */
	deadline = rt_time_deadline_ms(HANG_MS);
	while ((n = group_count(leader, NULL, true)) < 3 && !rt_time_passed(deadline))
		rt_time_sleep_ms(20, NULL);
	if (n < 3)
		fail_msg("the load of the caller has %u processes, expected 3 or more", n);
	/* Only a living child may be told to go on: a dead one's pipe raises SIGPIPE. */
	if (how == 1)
		kill(child, SIGKILL);
	else
		assert_int_equal(write(down[1], "x", 1), 1);
	close(down[1]);
	assert_int_equal(waitpid(child, &status, 0), child);
	if (how == 0) {
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
		/* The atexit hook reaped everything before the caller was gone. */
		for (i = 0; i < 2; i++)
			assert_int_equal(group_count(leaders[i], NULL, false), 0);
		return;
	}
	assert_true(WIFSIGNALED(status));
	/*
	 * Killed: the orphaned leaders come to us (we are a subreaper for this
	 * test), see their lifelines close, end their trees and exit.
	 */
	for (i = 0; i < 2; i++) {
		assert_int_equal(waitpid(leaders[i], &status, 0), leaders[i]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
		assert_int_equal(group_count(leaders[i], NULL, false), 0);
	}
}

static void test_caller_exit(void **state)
{
	(void)state;
	caller_dies(0);
	assert_int_equal(my_children(), 0);
}

static void test_caller_killed(void **state)
{
	(void)state;
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	caller_dies(1);
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
	assert_int_equal(my_children(), 0);
}

static void expect_einval(const char *names, unsigned int seconds, const char *needle)
{
	char *cause = NULL;

	errno = 0;
	assert_null(rt_load_start(names, seconds, &cause));
	assert_int_equal(errno, EINVAL);
	assert_non_null(cause);
	if (!strstr(cause, needle))
		fail_msg("cause '%s' lacks '%s'", cause, needle);
	free(cause);
}

static void test_bad_names(void **state)
{
	char *cause = NULL;
	const char *p;
	char name[32];

	(void)state;
	expect_einval("cpu,bogus", 5, "unknown load \"bogus\"");
	expect_einval("cpu,bogus", 5, rt_load_names());
	expect_einval("", 5, "valid loads");
	expect_einval("cpu,", 5, "unknown load \"\"");
	expect_einval("io,io", 5, "named twice");
	expect_einval("cpu", 0, "time limit");
	expect_einval("cpu", RT_LOAD_MAX_SECONDS + 1, "time limit");
	assert_int_equal(my_children(), 0);

	/* Every listed name has a description; unknown ones have none. */
	for (p = rt_load_names(); *p;) {
		size_t len = strcspn(p, ",");

		assert_true(len < sizeof(name));
		memcpy(name, p, len);
		name[len] = 0;
		assert_non_null(rt_load_describe(name));
		p += len;
		p += strspn(p, ", ");
	}
	assert_null(rt_load_describe("bogus"));
	assert_null(rt_load_describe(NULL));

	/* stress-* without stress-ng on PATH: ENOENT, saying what to install. */
	{
		char *path = strdup(getenv("PATH") ? getenv("PATH") : "");

		setenv("PATH", "/nonexistent-rtlab", 1);
		errno = 0;
		assert_null(rt_load_start("cpu,stress-cpu", 5, &cause));
		assert_int_equal(errno, ENOENT);
		assert_non_null(strstr(cause, "stress-ng"));
		free(cause);
		setenv("PATH", path, 1);
		free(path);
	}
	assert_int_equal(my_children(), 0);
}

static void test_stress_ng(void **state)
{
	struct fixture *f = *state;
	struct rt_load *l;
	char *cause = NULL;
	pid_t leaders[2];
	unsigned int i, n;
	uint64_t deadline;

	if (system("command -v stress-ng >/dev/null 2>&1") != 0) {
		print_message("SKIP: stress-ng is not installed (optional)\n");
		skip();
	}
	l = rt_load_start("stress-cpu,stress-io", LONG_LIMIT_S, &cause);
	if (!l)
		fail_msg("rt_load_start: %s", cause);
	f->load = l;
	for (i = 0; i < 2; i++)
		leaders[i] = rt_load_pid(l, i);
	/* The leader, stress-ng and at least one stressor in each group. */
	for (i = 0; i < 2; i++) {
		deadline = rt_time_deadline_ms(HANG_MS);
		while ((n = group_count(leaders[i], NULL, true)) < 3 && !rt_time_passed(deadline))
			rt_time_sleep_ms(20, NULL);
		if (n < 3)
			fail_msg("stress load %u has %u processes, expected 3 or more", i, n);
	}
	assert_int_equal(rt_load_alive(l), 2);
	assert_int_equal(rt_load_stop(l), 0);
	for (i = 0; i < 2; i++)
		assert_int_equal(group_count(leaders[i], NULL, false), 0);
	assert_int_equal(my_children(), 0);
	assert_int_equal(dir_entries(f->tmp), 0);
	f->load = NULL;
	rt_load_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cpu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mem, setup, teardown),
		cmocka_unit_test_setup_teardown(test_io, setup, teardown),
		cmocka_unit_test_setup_teardown(test_msg, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fork, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pagefault, setup, teardown),
		cmocka_unit_test_setup_teardown(test_several_and_hard_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_waits_for_slow_leader, setup, teardown),
		cmocka_unit_test_setup_teardown(test_caller_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_caller_killed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stress_ng, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
