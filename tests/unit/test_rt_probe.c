/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for rt_probe: real threads on the real clock, on a machine that
 * may be loaded. So nothing here asserts how fast anything happens: counts
 * are checked against what the probe promises whatever the load (a run by
 * duration plans duration / interval wake-ups and only overruns skip any;
 * samples + drops == loops), latency values only by their sign, and every
 * wait has a deadline that only catches a hang (HANG_MS). Threads whose
 * attributes are inspected run until stopped, so they cannot be gone by
 * then. Covered: sample counts and consecutive cycle numbers, counted drops
 * with a tiny ring, loop counts and per-thread intervals, trace marker lines,
 * affinity, the timer slack each thread sets, SCHED_FIFO as root and -EPERM
 * with a clear cause for an unprivileged user, and config checks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/rt_hist.h"
#include "core/rt_probe.h"
#include "core/rt_time.h"

#define MAX_T 4
/*
 * A bound on every wait, against a hang only: what the waits wait for takes
 * milliseconds on an idle machine and may take seconds on a loaded one.
 */
#define HANG_MS 60000

struct seqcheck {
	uint64_t next[MAX_T];	/* the seq expected next, per thread */
	uint64_t count[MAX_T];
	unsigned int not_consecutive;
	unsigned int not_increasing;
	unsigned int bad_thread;
	int64_t min_ns;
	bool any;
};

static void seq_sample(void *priv, const struct rt_sample *s)
{
	struct seqcheck *c = priv;

	if (s->thread >= MAX_T) {
		c->bad_thread++;
		return;
	}
	if (c->count[s->thread] && s->seq < c->next[s->thread])
		c->not_increasing++;
	if (s->seq != c->next[s->thread])
		c->not_consecutive++;
	c->next[s->thread] = s->seq + 1;
	c->count[s->thread]++;
	if (!c->any || s->latency_ns < c->min_ns)
		c->min_ns = s->latency_ns;
	c->any = true;
}

/* Poll every @every_ms until all threads are done (or HANG_MS), then stop and drain. */
static void run_to_end(struct rt_probe *p, struct rt_hist **h, const struct rt_sink *sink,
		       unsigned int every_ms)
{
	uint64_t deadline = rt_time_deadline_ms(HANG_MS);

	while (!rt_probe_finished(p) && !rt_time_passed(deadline)) {
		rt_time_sleep_ms(every_ms, NULL);
		assert_true(rt_probe_poll(p, h, sink) >= 0);
	}
	assert_true(rt_probe_finished(p));
	assert_int_equal(rt_probe_stop(p), 0);
	assert_int_equal(rt_probe_stop(p), 0);
	while (rt_probe_poll(p, h, sink) > 0)
		;
}

static int start_ok(const struct rt_probe_config *cfg, struct rt_probe **p)
{
	char *cause = NULL;
	int ret = rt_probe_start(cfg, p, &cause);

	if (ret)
		print_error("rt_probe_start: %d: %s\n", ret, cause ? cause : "(no cause)");
	free(cause);
	return ret;
}

static void test_two_threads_other(void **state)
{
	struct rt_probe_config cfg;
	struct rt_probe *p = NULL;
	struct rt_hist *h[2];
	struct seqcheck c = { 0 };
	struct rt_sink sink = { .sample = seq_sample, .priv = &c };
	unsigned int i;

	(void)state;
	rt_probe_config_init(&cfg);
	cfg.nthreads = 2;
	cfg.interval_us = 1000;
	cfg.duration_ms = 500;
	cfg.ring_size = 4096;
	for (i = 0; i < 2; i++) {
		h[i] = rt_hist_new(10000, 16);
		assert_non_null(h[i]);
	}
	assert_int_equal(start_ok(&cfg, &p), 0);
	assert_int_equal(rt_probe_nthreads(p), 2);
	run_to_end(p, h, &sink, 20);

	assert_int_equal(c.bad_thread, 0);
	assert_int_equal(c.not_consecutive, 0);
	assert_true(c.any);
	assert_true(c.min_ns > 0);
	for (i = 0; i < 2; i++) {
		struct rt_probe_thread_stats st;
		struct rt_hist_summary sum;

		assert_int_equal(rt_probe_stats(p, i, &st), 0);
		/*
		 * 500 ms at 1 ms plans 500 wake-ups. A wake-up more than one interval
		 * late is an overrun and skips the planned wake-ups it missed, at least
		 * two; any other late wake-up skips none. So: exactly 500 without
		 * overruns, and loops + 2 * overruns <= 502 with them (the last one
		 * may skip past the end). How many overruns a loaded machine causes
		 * is not asserted.
		 */
		print_message("thread %u: %llu loops, %llu overruns\n", i,
			      (unsigned long long)st.loops, (unsigned long long)st.overruns);
		assert_true(st.loops >= 1);
		assert_true(st.loops + 2 * st.overruns <= 502);
		if (st.overruns == 0)
			assert_int_equal(st.loops, 500);
		/* The ring holds 4095 samples, more than the run can make: none is dropped. */
		assert_int_equal(st.drops, 0);
		assert_int_equal(st.samples, st.loops);
		assert_int_equal(c.count[i], st.loops);
		assert_int_equal(c.next[i], st.loops);
		assert_int_equal(st.interval_us, 1000);
		assert_true(st.finished);
		assert_true(st.tid > 0);
		rt_hist_summarize(h[i], &sum);
		assert_int_equal(sum.count, st.loops);
		assert_true(sum.min_ns > 0);
		assert_true(sum.max_ns >= sum.min_ns);
		assert_int_equal(sum.max_ns, st.max_ns);
	}
	assert_int_equal(rt_probe_stats(p, 2, &(struct rt_probe_thread_stats){ 0 }), -EINVAL);
	rt_probe_free(p);
	for (i = 0; i < 2; i++)
		rt_hist_free(h[i]);
}

/* Wait until thread @i has made at least @loops wake-ups. */
static void wait_loops(struct rt_probe *p, unsigned int i, uint64_t loops)
{
	struct rt_probe_thread_stats st = { 0 };
	uint64_t deadline = rt_time_deadline_ms(HANG_MS);

	for (;;) {
		assert_int_equal(rt_probe_stats(p, i, &st), 0);
		if (st.loops >= loops || rt_time_passed(deadline))
			break;
		rt_time_sleep_ms(1, NULL);
	}
	assert_true(st.loops >= loops);
}

static void test_tiny_ring_counts_drops(void **state)
{
	struct rt_probe_config cfg;
	struct rt_probe *p = NULL;
	struct seqcheck c = { 0 };
	struct rt_sink sink = { .sample = seq_sample, .priv = &c };
	struct rt_probe_thread_stats st;

	(void)state;
	rt_probe_config_init(&cfg);
	cfg.interval_us = 1000;
	cfg.loops = 200;
	cfg.ring_size = 4;	/* three usable slots */
	assert_int_equal(start_ok(&cfg, &p), 0);
	/*
	 * Read nothing until ten wake-ups were made: the ring keeps seq 0..2,
	 * and 3..9 are dropped whatever the timing. Then a consumer far slower
	 * than the producer.
	 */
	wait_loops(p, 0, 10);
	run_to_end(p, NULL, &sink, 50);

	assert_int_equal(rt_probe_stats(p, 0, &st), 0);
	assert_int_equal(st.loops, 200);
	assert_true(st.drops >= 7);
	assert_int_equal(st.samples + st.drops, st.loops);
	assert_int_equal(c.count[0], st.samples);
	/* Drops leave gaps in seq (3 never arrives) but never reorder. */
	assert_true(c.not_consecutive > 0);
	assert_int_equal(c.not_increasing, 0);
	rt_probe_free(p);
}

static void test_loops_and_distance(void **state)
{
	struct rt_probe_config cfg;
	struct rt_probe *p = NULL;
	struct rt_probe_thread_stats st;
	struct seqcheck c = { 0 };
	struct rt_sink sink = { .sample = seq_sample, .priv = &c };
	unsigned int i;

	(void)state;
	rt_probe_config_init(&cfg);
	cfg.nthreads = 3;
	cfg.interval_us = 500;
	cfg.distance_us = 250;
	cfg.loops = 20;
	cfg.clock = CLOCK_REALTIME;
	assert_int_equal(start_ok(&cfg, &p), 0);
	run_to_end(p, NULL, &sink, 10);
	for (i = 0; i < 3; i++) {
		assert_int_equal(rt_probe_stats(p, i, &st), 0);
		assert_int_equal(st.interval_us, 500 + 250 * i);
		assert_int_equal(st.loops, 20);
		assert_int_equal(st.samples, 20);
		assert_int_equal(c.count[i], 20);
	}
	assert_int_equal(c.not_consecutive, 0);
	rt_probe_free(p);
}

/* Each thread sets the timer slack it is given before its loop, and reports it. */
static void test_timer_slack(void **state)
{
	struct rt_probe_config cfg;
	struct rt_probe *p = NULL;
	struct rt_probe_thread_stats st;
	long inherited = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);

	(void)state;
	assert_true(inherited > 1);
	rt_probe_config_init(&cfg);
	cfg.nthreads = 2;
	cfg.loops = 5;
	cfg.timer_slack_ns = 1;
	assert_int_equal(start_ok(&cfg, &p), 0);
	run_to_end(p, NULL, NULL, 10);
	for (unsigned int i = 0; i < 2; i++) {
		assert_int_equal(rt_probe_stats(p, i, &st), 0);
		assert_int_equal(st.timer_slack_ns, 1);
	}
	rt_probe_free(p);

	/* 0: the thread keeps what it inherits, and this thread's is untouched. */
	cfg.timer_slack_ns = 0;
	assert_int_equal(start_ok(&cfg, &p), 0);
	run_to_end(p, NULL, NULL, 10);
	assert_int_equal(rt_probe_stats(p, 0, &st), 0);
	assert_int_equal(st.timer_slack_ns, (uint64_t)inherited);
	assert_int_equal(prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0), inherited);
	rt_probe_free(p);
}

static void test_trace_marker_and_spikes(void **state)
{
	struct rt_probe_config cfg;
	struct rt_probe *p = NULL;
	struct rt_probe_thread_stats st;
	char buf[8192];
	ssize_t n;
	int fds[2], lines = 0, devnull;
	char *q;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	rt_probe_config_init(&cfg);
	cfg.interval_us = 1000;
	cfg.loops = 20;
	/* Every real wake-up is later than 1 ns, so every cycle writes a line. */
	cfg.trace_ns = 1;
	cfg.spike_ns = 1;
	cfg.trace_fd = fds[1];
	assert_int_equal(start_ok(&cfg, &p), 0);
	run_to_end(p, NULL, NULL, 10);
	assert_int_equal(rt_probe_stats(p, 0, &st), 0);
	assert_int_equal(st.markers, 20);
	assert_int_equal(st.marker_errors, 0);
	assert_int_equal(st.spikes, 20);
	rt_probe_free(p);

	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = 0;
	close(fds[0]);
	assert_memory_equal(buf, "rtlab-probe T:0 C:0 latency ", 28);
	for (q = buf; (q = strchr(q, '\n')); q++)
		lines++;
	assert_int_equal(lines, 20);
	assert_non_null(strstr(buf, "\nrtlab-probe T:0 C:19 latency "));
	assert_non_null(strstr(buf, " ns > 1 ns\n"));

	/* A marker fd that cannot be written: counted, never fatal. */
	devnull = open("/dev/null", O_RDONLY);
	assert_true(devnull >= 0);
	cfg.trace_fd = devnull;
	cfg.spike_ns = 0;
	cfg.loops = 5;
	assert_int_equal(start_ok(&cfg, &p), 0);
	run_to_end(p, NULL, NULL, 10);
	assert_int_equal(rt_probe_stats(p, 0, &st), 0);
	assert_int_equal(st.marker_errors, 5);
	assert_int_equal(st.markers, 0);
	assert_int_equal(st.spikes, 0);
	assert_int_equal(st.samples, 5);
	rt_probe_free(p);
	close(devnull);
}

/* Wait until thread @i has reported its tid. */
static int wait_tid(struct rt_probe *p, unsigned int i)
{
	struct rt_probe_thread_stats st = { 0 };
	uint64_t deadline = rt_time_deadline_ms(HANG_MS);

	for (;;) {
		assert_int_equal(rt_probe_stats(p, i, &st), 0);
		if (st.tid || rt_time_passed(deadline))
			break;
		rt_time_sleep_ms(1, NULL);
	}
	return st.tid;
}

static void test_affinity(void **state)
{
	struct rt_probe_config cfg;
	struct rt_probe *p = NULL;
	cpu_set_t want[2], got;
	int cpu = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0;
	pid_t tid;

	(void)state;
	CPU_ZERO(&want[0]);
	CPU_SET(cpu, &want[0]);
	CPU_ZERO(&want[1]);	/* empty: thread 1 keeps the default affinity */
	rt_probe_config_init(&cfg);
	cfg.nthreads = 2;
	cfg.cpus = want;
	/* No loops or duration: the threads run until rt_probe_free(), so their tids stay valid. */
	assert_int_equal(start_ok(&cfg, &p), 0);
	tid = wait_tid(p, 0);
	assert_true(tid > 0);
	assert_int_equal(sched_getaffinity(tid, sizeof(got), &got), 0);
	assert_true(CPU_EQUAL(&got, &want[0]));
	tid = wait_tid(p, 1);
	assert_int_equal(sched_getaffinity(tid, sizeof(got), &got), 0);
	assert_true(CPU_COUNT(&got) >= 1);
	rt_probe_free(p);
}

static void test_fifo_as_root(void **state)
{
	struct rt_probe_config cfg;
	struct rt_probe *p = NULL;
	struct rt_probe_thread_stats st;
	struct sched_param sp;
	pid_t tid;

	(void)state;
	if (geteuid() != 0) {
		print_message("SKIP: SCHED_FIFO needs root for this test\n");
		skip();
	}
	rt_probe_config_init(&cfg);
	cfg.policy = SCHED_FIFO;
	cfg.priority = 10;
	cfg.mlock = true;
	cfg.interval_us = 1000;
	/* Until stopped, so that the thread is still there to be asked. */
	assert_int_equal(start_ok(&cfg, &p), 0);
	tid = wait_tid(p, 0);
	assert_true(tid > 0);
	/* The thread runs with the policy it was created with. */
	assert_int_equal(sched_getscheduler(tid), SCHED_FIFO);
	assert_int_equal(sched_getparam(tid, &sp), 0);
	assert_int_equal(sp.sched_priority, 10);
	rt_probe_free(p);

	/* A run by loops makes exactly that many. */
	cfg.loops = 150;
	assert_int_equal(start_ok(&cfg, &p), 0);
	run_to_end(p, NULL, NULL, 10);
	assert_int_equal(rt_probe_stats(p, 0, &st), 0);
	assert_int_equal(st.loops, 150);
	assert_int_equal(st.samples, 150);
	rt_probe_free(p);

	/* Short RT intervals only when explicitly allowed. */
	cfg.interval_us = 20;
	cfg.loops = 10;
	cfg.mlock = false;
	cfg.allow_short_interval = true;
	assert_int_equal(start_ok(&cfg, &p), 0);
	run_to_end(p, NULL, NULL, 5);
	rt_probe_free(p);
}

/*
 * SCHED_DEADLINE: the thread sets its own reservation before its first
 * sample; too much bandwidth is refused by admission control (-EBUSY), and
 * nothing is left running.
 */
static void test_deadline_as_root(void **state)
{
	struct rt_probe_config cfg;
	struct rt_probe *p = NULL;
	struct rt_probe_thread_stats st;
	char *cause = NULL;
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	pid_t tid;

	(void)state;
	if (geteuid() != 0) {
		print_message("SKIP: SCHED_DEADLINE needs root for this test\n");
		skip();
	}
	rt_probe_config_init(&cfg);
	cfg.policy = SCHED_DEADLINE;
	cfg.dl_runtime_ns = 200000;
	cfg.interval_us = 1000;
	assert_int_equal(start_ok(&cfg, &p), 0);
	tid = wait_tid(p, 0);
	assert_true(tid > 0);
	assert_int_equal(sched_getscheduler(tid), SCHED_DEADLINE);
	rt_probe_free(p);

	cfg.loops = 50;
	assert_int_equal(start_ok(&cfg, &p), 0);
	run_to_end(p, NULL, NULL, 10);
	assert_int_equal(rt_probe_stats(p, 0, &st), 0);
	assert_int_equal(st.loops, 50);
	rt_probe_free(p);

	/* One CPU's worth more than the CPUs have: admission control says no. */
	assert_true(ncpus > 0 && ncpus < (long)RT_PROBE_MAX_THREADS);
	cfg.nthreads = (unsigned int)ncpus + 1;
	cfg.distance_us = 0;
	cfg.dl_runtime_ns = 1000000;
	p = NULL;
	assert_int_equal(rt_probe_start(&cfg, &p, &cause), -EBUSY);
	assert_null(p);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "admission control"));
	free(cause);
}

/*
 * In a child that drops to nobody (uid/gid 65534) with no RTPRIO allowance,
 * SCHED_FIFO must fail with -EPERM and a cause naming CAP_SYS_NICE.
 * Exit codes: 0 ok, 1 setup failed, 2 wrong return, 3 wrong cause.
 */
static int eperm_child(void)
{
	struct rlimit rl = { 0, 0 };
	struct rt_probe_config cfg;
	struct rt_probe *p = NULL;
	char *cause = NULL;
	int ret;

	if (setrlimit(RLIMIT_RTPRIO, &rl) || setgroups(0, NULL) ||
	    setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
		return 1;
	rt_probe_config_init(&cfg);
	cfg.policy = SCHED_FIFO;
	cfg.priority = 10;
	cfg.loops = 5;
	ret = rt_probe_start(&cfg, &p, &cause);
	if (ret != -EPERM || p) {
		rt_probe_free(p);
		return 2;
	}
	if (!cause || !strstr(cause, "CAP_SYS_NICE") || !strstr(cause, "RLIMIT_RTPRIO"))
		return 3;
	free(cause);
	cause = NULL;

	/* SCHED_DEADLINE likewise, and RLIMIT_RTPRIO would not help. */
	cfg.policy = SCHED_DEADLINE;
	cfg.priority = 0;
	cfg.dl_runtime_ns = 100000;
	ret = rt_probe_start(&cfg, &p, &cause);
	if (ret != -EPERM || p) {
		rt_probe_free(p);
		return 5;
	}
	if (!cause || !strstr(cause, "CAP_SYS_NICE") || !strstr(cause, "SCHED_DEADLINE"))
		return 6;
	free(cause);

	/* The fallback the lab takes works for the same user. */
	cfg.policy = SCHED_OTHER;
	cfg.priority = 0;
	if (rt_probe_start(&cfg, &p, NULL) != 0)
		return 4;
	rt_probe_free(p);
	return 0;
}

static void test_fifo_eperm_unprivileged(void **state)
{
	pid_t pid;
	int status;

	(void)state;
	if (geteuid() != 0) {
		print_message("SKIP: dropping to uid 65534 needs root\n");
		skip();
	}
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(eperm_child());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void expect_einval(const struct rt_probe_config *cfg, const char *needle)
{
	struct rt_probe *p = (struct rt_probe *)1;
	char *cause = NULL;

	assert_int_equal(rt_probe_start(cfg, &p, &cause), -EINVAL);
	assert_null(p);
	assert_non_null(cause);
	if (!strstr(cause, needle))
		fail_msg("cause '%s' lacks '%s'", cause, needle);
	free(cause);
}

/*
 * Fresh memory every cycle: without mlock the pages fault in when first
 * written; after mlockall(MCL_FUTURE) mmap populates them, so the faults
 * move into the allocation and the writes take none.
 */
static void test_fresh_memory(void **state)
{
	struct rt_probe_config cfg;
	struct rt_probe *p = NULL;
	struct rt_probe_thread_stats st;
	char *cause = NULL;
	int ret;

	(void)state;
	rt_probe_config_init(&cfg);
	cfg.interval_us = 500;
	cfg.loops = 20;
	cfg.alloc_bytes = 64 * 1024;		/* 16 pages of 4 KiB */
	assert_int_equal(start_ok(&cfg, &p), 0);
	run_to_end(p, NULL, NULL, 10);
	assert_int_equal(rt_probe_stats(p, 0, &st), 0);
	assert_int_equal(st.alloc.cycles, 20);
	assert_int_equal(st.alloc.failed, 0);
	assert_true(st.alloc.touch_faults >= 20 * 16);
	assert_true(st.alloc.alloc_faults < 20);
	assert_true(st.alloc.touch_ns > 0 && st.alloc.touch_max_ns <= st.alloc.touch_ns);
	assert_true(st.alloc.alloc_max_ns <= st.alloc.alloc_ns);
	rt_probe_free(p);
	p = NULL;
	cfg.alloc_bytes = RT_PROBE_MAX_ALLOC_BYTES + 1;
	expect_einval(&cfg, "fresh memory");
	cfg.alloc_bytes = 64 * 1024;

#ifdef __SANITIZE_ADDRESS__
	/* ASan's mlockall() does nothing (its shadow memory is too big to lock). */
	print_message("SKIP: under ASan mlockall is a no-op\n");
	skip();
#endif
	cfg.mlock = true;
	ret = rt_probe_start(&cfg, &p, &cause);
	free(cause);
	if (ret == -EPERM || ret == -ENOMEM) {
		print_message("SKIP: mlockall refused here (needs CAP_IPC_LOCK or RLIMIT_MEMLOCK)\n");
		skip();
	}
	assert_int_equal(ret, 0);
	run_to_end(p, NULL, NULL, 10);
	assert_int_equal(rt_probe_stats(p, 0, &st), 0);
	assert_int_equal(st.alloc.cycles, 20);
	assert_true(st.alloc.alloc_faults >= 20 * 16);
	assert_int_equal(st.alloc.touch_faults, 0);
	rt_probe_free(p);
}

static void test_bad_config(void **state)
{
	struct rt_probe_config cfg;

	(void)state;
	rt_probe_config_init(&cfg);
	cfg.nthreads = 0;
	expect_einval(&cfg, "thread count");

	rt_probe_config_init(&cfg);
	cfg.policy = SCHED_FIFO;
	cfg.priority = 10;
	cfg.interval_us = 20;
	expect_einval(&cfg, "starve");
	cfg.priority = 0;
	cfg.interval_us = 1000;
	expect_einval(&cfg, "priority 0 is outside");

	rt_probe_config_init(&cfg);
	cfg.priority = 5;
	expect_einval(&cfg, "SCHED_OTHER takes priority 0");

	rt_probe_config_init(&cfg);
	cfg.policy = SCHED_DEADLINE;
	cfg.dl_runtime_ns = 100;
	expect_einval(&cfg, "below the kernel's minimum");
	cfg.dl_runtime_ns = 2000000;
	expect_einval(&cfg, "runtime <= deadline <= period");
	cfg.dl_runtime_ns = 100000;
	cfg.dl_deadline_ns = 3000000;
	cfg.dl_period_ns = 2000000;
	expect_einval(&cfg, "runtime <= deadline <= period");
	cfg.dl_deadline_ns = 0;
	cfg.priority = 3;
	expect_einval(&cfg, "SCHED_DEADLINE takes priority 0");
	cfg.priority = 0;
	cfg.interval_us = 20;
	cfg.dl_period_ns = 0;
	cfg.dl_runtime_ns = 10000;
	expect_einval(&cfg, "starve");

	rt_probe_config_init(&cfg);
	cfg.policy = 42;
	expect_einval(&cfg, "not SCHED_OTHER");

	rt_probe_config_init(&cfg);
	cfg.ring_size = 6;
	expect_einval(&cfg, "power of two");

	rt_probe_config_init(&cfg);
	cfg.clock = CLOCK_BOOTTIME;
	expect_einval(&cfg, "CLOCK_MONOTONIC");

	rt_probe_config_init(&cfg);
	cfg.trace_ns = 100000;
	expect_einval(&cfg, "trace fd");

	rt_probe_config_init(&cfg);
	cfg.interval_us = 0;
	expect_einval(&cfg, "at least 1 us");

	rt_probe_config_init(&cfg);
	cfg.timer_slack_ns = RT_PROBE_MAX_SLACK_NS + 1;
	expect_einval(&cfg, "timer slack");

	rt_probe_config_init(&cfg);
	cfg.nthreads = 3;
	cfg.interval_us = 999000;
	cfg.distance_us = 1000;
	expect_einval(&cfg, "longest thread interval");

	rt_probe_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_threads_other),
		cmocka_unit_test(test_tiny_ring_counts_drops),
		cmocka_unit_test(test_loops_and_distance),
		cmocka_unit_test(test_timer_slack),
		cmocka_unit_test(test_trace_marker_and_spikes),
		cmocka_unit_test(test_affinity),
		cmocka_unit_test(test_fifo_as_root),
		cmocka_unit_test(test_deadline_as_root),
		cmocka_unit_test(test_fifo_eperm_unprivileged),
		cmocka_unit_test(test_fresh_memory),
		cmocka_unit_test(test_bad_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
