/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for trace_events: the matcher on hand-made event sequences
 * (matches, replaced wakings, switches without a waking, out-of-order and
 * migrated pairs, the every-pid table growing); and, as root on the host's
 * real tracefs, a private instance made and removed, a thread that sleeps
 * 1 ms a thousand times giving at least a thousand matched wake-ups, and a
 * SIGKILLed child's instance removed by journal recovery. Every test leaves
 * the top-level tracing state as it found it (checked in teardown).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "core/rt_hist.h"
#include "core/rt_journal.h"
#include "trace/trace_ctl.h"
#include "trace/trace_events.h"
#include "trace_state.h"

#define skip_because(why) do { print_message("[  SKIP    ] %s\n", why); skip(); } while (0)

static int setup(void **state)
{
	return trace_state_setup(state);
}

static int teardown(void **state)
{
	return trace_state_teardown(state);
}

/* ---- The matcher, no tracefs ---- */

static void test_calc_matching(void **state)
{
	pid_t pids[] = { 100, 200 };
	struct trace_wake_calc *c = trace_wake_calc_new(pids, 2, 1000);
	struct trace_wake_stats st;
	const struct trace_wakeup *r;
	size_t n;

	(void)state;
	assert_non_null(c);
	trace_wake_calc_waking(c, 1000, 0, 100, 1);
	trace_wake_calc_switch(c, 1500, 1, 5, false, 100);	/* 500 ns */
	trace_wake_calc_switch(c, 1600, 1, 100, true, 0);
	trace_wake_calc_waking(c, 2000, 0, 300, 0);		/* not watched */
	trace_wake_calc_switch(c, 2100, 0, 5, false, 300);
	trace_wake_calc_switch(c, 2200, 0, 5, false, 200);	/* no waking: unmatched */
	trace_wake_calc_switch(c, 2300, 0, 200, true, 0);
	trace_wake_calc_waking(c, 3000, 0, 200, 0);
	trace_wake_calc_waking(c, 3100, 0, 200, 0);		/* replaces: one unmatched */
	trace_wake_calc_switch(c, 9100, 1, 5, false, 200);	/* 6000 ns, migrated */
	trace_wake_calc_switch(c, 9200, 1, 200, true, 0);
	trace_wake_calc_waking(c, 10000, 0, 100, 0);
	trace_wake_calc_switch(c, 10000, 0, 0, false, 100);	/* zero latency */
	trace_wake_calc_switch(c, 10100, 0, 100, true, 0);
	trace_wake_calc_lost(c, 3);
	trace_wake_calc_waking(c, 20000, 0, 100, 0);		/* left pending */
	trace_wake_calc_stats(c, &st);
	assert_int_equal(st.matched, 3);
	assert_int_equal(st.unmatched_wakings, 1);
	assert_int_equal(st.unmatched_switches, 1);
	assert_int_equal(st.pending_wakings, 1);
	assert_int_equal(st.migrated, 1);
	assert_int_equal(st.lost_events, 3);
	assert_int_equal(st.min_ns, 0);
	assert_int_equal(st.max_ns, 6000);
	assert_int_equal(st.max.pid, 200);
	assert_int_equal(st.max.t_waking_ns, 3100);
	assert_int_equal(st.max.t_switch_ns, 9100);
	assert_int_equal(st.max.waking_cpu, 0);
	assert_int_equal(st.max.run_cpu, 1);
	assert_true(st.avg_ns > 2166.0 && st.avg_ns < 2167.0);
	r = trace_wake_calc_records(c, &n);
	assert_int_equal(n, 3);
	assert_int_equal(r[0].latency_ns, 500);
	assert_int_equal(rt_hist_count(trace_wake_calc_hist(c)), 3);
	assert_int_equal(rt_hist_bucket(trace_wake_calc_hist(c), 0), 2);
	assert_int_equal(rt_hist_bucket(trace_wake_calc_hist(c), 6), 1);

	/* A switch stamped before its waking (clock skew) is dropped, not negative. */
	trace_wake_calc_switch(c, 19000, 0, 0, false, 100);
	trace_wake_calc_stats(c, &st);
	assert_int_equal(st.out_of_order, 1);
	assert_int_equal(st.matched, 3);
	trace_wake_calc_free(c);
	trace_wake_calc_free(NULL);
}

static void test_calc_every_pid(void **state)
{
	struct trace_wake_calc *c = trace_wake_calc_new(NULL, 0, 100);
	struct trace_wake_stats st;

	(void)state;
	assert_non_null(c);
	for (int p = 1; p <= 5000; p++)
		trace_wake_calc_waking(c, (uint64_t)p * 10, 0, p, 0);
	for (int p = 1; p <= 5000; p++)
		trace_wake_calc_switch(c, (uint64_t)p * 10 + 100000, 0, 0, false, p);
	trace_wake_calc_switch(c, 900000, 0, 1, true, 0);	/* to idle: ignored */
	trace_wake_calc_stats(c, &st);
	assert_int_equal(st.matched, 5000);
	assert_int_equal(st.unmatched_switches, 0);
	assert_int_equal(st.pending_wakings, 0);
	assert_int_equal(st.min_ns, 100000);
	assert_int_equal(st.max_ns, 100000);
	trace_wake_calc_free(c);
}

/* ---- The host's tracefs ---- */

static void test_instance_create_destroy(void **state)
{
	struct trace_state *ts = *state;
	struct trace_events_opts o = { 0 };
	struct trace_events *ev;
	pid_t me = getpid();
	struct tracefs_instance *inst;
	char *cause = NULL, *name, *filter, want[32];

	if (!ts->live)
		skip_because(ts->why);
	o.pids = &me;
	o.npids = 1;
	ev = trace_events_new(ts->j, "evtest", &o, &cause);
	if (!ev)
		fail_msg("trace_events_new: %s", cause);
	name = strdup(trace_events_instance_name(ev));
	assert_true(tracefs_instance_exists(name));
	inst = tracefs_instance_alloc(NULL, name);
	assert_int_equal(tracefs_event_is_enabled(inst, "sched", "sched_switch"),
			 TRACEFS_ALL_ENABLED);
	assert_int_equal(tracefs_event_is_enabled(inst, "sched", "sched_waking"),
			 TRACEFS_ALL_ENABLED);
	filter = tracefs_event_file_read(inst, "sched", "sched_switch", "filter", NULL);
	assert_non_null(filter);
	snprintf(want, sizeof(want), "next_pid==%d", (int)me);
	assert_non_null(strstr(filter, want));
	free(filter);
	tracefs_instance_free(inst);
	assert_int_equal(trace_events_destroy(ev), 0);
	assert_false(tracefs_instance_exists(name));
	free(name);
	free(cause);
}

struct sleeper {
	pthread_barrier_t go;
	pid_t tid;
	unsigned int loops;
	unsigned int calls;	/* clock_nanosleep calls made */
	long slept;		/* voluntary context switches meanwhile */
	volatile int done;
};

/* Start @fn pinned to @cpu. */
static void start_pinned(pthread_t *th, int cpu, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	assert_int_equal(pthread_attr_init(&attr), 0);
	assert_int_equal(pthread_attr_setaffinity_np(&attr, sizeof(set), &set), 0);
	assert_int_equal(pthread_create(th, &attr, fn, arg), 0);
	pthread_attr_destroy(&attr);
}

static void *sleeper_main(void *arg)
{
	struct sleeper *s = arg;
	struct timespec ms = { 0, 1000000 };
	struct rusage ru;
	long start;

	s->tid = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&s->go);	/* tid published */
	pthread_barrier_wait(&s->go);	/* tracing on */
	/*
	 * A timer can fire while the thread is still on its way out of the
	 * CPU: it is woken without ever having slept, and no switch follows.
	 * So count real sleeps (voluntary context switches), not calls.
	 */
	getrusage(RUSAGE_THREAD, &ru);
	start = ru.ru_nvcsw;
	for (unsigned int i = 0; i < s->loops * 5; i++) {
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ms, NULL);
		getrusage(RUSAGE_THREAD, &ru);
		s->calls = i + 1;
		if (ru.ru_nvcsw - start >= (long)s->loops)
			break;
	}
	s->slept = ru.ru_nvcsw - start;
	s->done = 1;
	return NULL;
}

/*
 * @live_poll: drain the buffer every 50 ms while tracing (as a long lab run
 * must) instead of once after the stop. The thread's CPU is left idle
 * between its sleeps. On the host these tests were written on, a few
 * switch-ins are not recorded (the task they replace is one of the
 * machine's agent threads, doc/ftrace.md); the matcher counts each as a
 * missed switch-in when the thread switches out, so every real sleep is
 * accounted for as matched or missed.
 */
static void run_sleeper(void **state, bool live_poll)
{
	struct trace_state *ts = *state;
	struct trace_events_opts o = { 0 };
	struct trace_events *ev;
	struct trace_wake_stats st;
	/* A few spare sleeps: live polling may lose a handful of events (below). */
	struct sleeper s = { .loops = 1010 };
	cpu_set_t allowed;
	int cpu = 0;
	const struct trace_wakeup *r;
	struct rt_hist_pct p99, p50;
	struct timespec tick = { 0, 50000000 };
	pthread_t th;
	char *cause = NULL;
	size_t n;
	int polled = 0;

	if (!ts->live)
		skip_because(ts->why);
	assert_int_equal(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
	while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &allowed))
		cpu++;
	assert_int_equal(pthread_barrier_init(&s.go, NULL, 2), 0);
	start_pinned(&th, cpu, sleeper_main, &s);
	pthread_barrier_wait(&s.go);
	o.pids = &s.tid;
	o.npids = 1;
	ev = trace_events_new(ts->j, "evtest", &o, &cause);
	if (!ev)
		fail_msg("trace_events_new: %s", cause);
	assert_int_equal(trace_events_start(ev, &cause), 0);
	pthread_barrier_wait(&s.go);
	while (!s.done) {
		nanosleep(&tick, NULL);
		if (!live_poll)
			continue;
		assert_true(trace_events_poll(ev, &cause) >= 0);
		polled++;
	}
	pthread_join(th, NULL);
	assert_int_equal(trace_events_stop(ev, &cause), 0);
	assert_true(trace_events_poll(ev, &cause) >= 0);

	trace_wake_calc_stats(trace_events_calc(ev), &st);
	r = trace_wake_calc_records(trace_events_calc(ev), &n);
	assert_int_equal(rt_hist_percentile(trace_wake_calc_hist(trace_events_calc(ev)),
					    RT_HIST_P50, &p50), 0);
	assert_int_equal(rt_hist_percentile(trace_wake_calc_hist(trace_events_calc(ev)),
					    RT_HIST_P99, &p99), 0);
	print_message("%u calls of a 1 ms sleep, %ld real sleeps\n", s.calls, s.slept);
	print_message("event mode (%d polls): matched %llu, woken while running %llu, missed "
		      "switch-ins %llu, unmatched wakings %llu, unmatched switches %llu, pending "
		      "%llu, migrated %llu, lost %llu\n", polled, (unsigned long long)st.matched,
		      (unsigned long long)st.woken_running,
		      (unsigned long long)st.missed_switch_ins,
		      (unsigned long long)st.unmatched_wakings,
		      (unsigned long long)st.unmatched_switches,
		      (unsigned long long)st.pending_wakings, (unsigned long long)st.migrated,
		      (unsigned long long)st.lost_events);
	print_message("wake-up latency: min %.1f us, avg %.1f us, p50 <= %llu us, p99 <= %llu us, "
		      "max %.1f us (waking at %llu ns, switch at %llu ns, CPU %d)\n",
		      st.min_ns / 1e3, st.avg_ns / 1e3, (unsigned long long)p50.value_us,
		      (unsigned long long)p99.value_us, st.max_ns / 1e3,
		      (unsigned long long)st.max.t_waking_ns,
		      (unsigned long long)st.max.t_switch_ns, st.max.run_cpu);
	/*
	 * Every real sleep shows up as a waking, and every waking is followed
	 * by its switch-in or found missing it when the thread switches out:
	 * matched plus missed is at least 1000 of the 1010 sleeps (the first
	 * and last can fall outside the trace). No loss, no replaced waking.
	 */
	assert_true(st.matched + st.woken_running + st.missed_switch_ins + st.unmatched_wakings +
		    st.pending_wakings >= 1010);
	assert_true(st.matched + st.missed_switch_ins >= 1000);
	assert_true(st.matched >= 900);
	assert_int_equal(st.unmatched_wakings, 0);
	assert_int_equal(st.lost_events, 0);
	assert_int_equal(n, st.matched);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(r[i].pid, s.tid);
		assert_true(r[i].latency_ns >= 0);
		assert_true(r[i].t_switch_ns >= r[i].t_waking_ns);
		if (i)
			assert_true(r[i].t_waking_ns > r[i - 1].t_switch_ns);
	}
	/* Sleeps were 1 ms apart, so consecutive wake-ups are at least that far apart. */
	assert_true(r[n - 1].t_waking_ns - r[0].t_waking_ns >= (uint64_t)(n - 1) * 1000000u);
	assert_int_equal(trace_events_destroy(ev), 0);
	pthread_barrier_destroy(&s.go);
	free(cause);
}

static void test_thousand_wakeups(void **state)
{
	run_sleeper(state, false);
}

static void test_wakeups_live_poll(void **state)
{
	run_sleeper(state, true);
}

/* A child makes its instance through its own journal, says so, and is killed. */
static void test_sigkill_recovered(void **state)
{
	struct trace_state *ts = *state;
	int fds[2];
	char name[64] = "";
	pid_t kid;
	unsigned int restored = 0;
	char *cause = NULL;

	if (!ts->live)
		skip_because(ts->why);
	assert_int_equal(pipe(fds), 0);
	kid = fork();
	assert_true(kid >= 0);
	if (kid == 0) {
		struct trace_events_opts o = { 0 };
		struct rt_journal *j = rt_journal_open(ts->jdir, NULL);
		struct trace_events *ev = j ? trace_events_new(j, "killme", &o, NULL) : NULL;
		const char *nm = ev ? trace_events_instance_name(ev) : "";

		if (write(fds[1], nm, strlen(nm) + 1) < 0)
			_exit(2);
		pause();
		_exit(0);
	}
	close(fds[1]);
	assert_true(read(fds[0], name, sizeof(name) - 1) > 0);
	close(fds[0]);
	assert_true(name[0] != '\0');
	assert_true(tracefs_instance_exists(name));
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	assert_true(tracefs_instance_exists(name));	/* nothing ran at the kill */
	assert_int_equal(rt_journal_recover(ts->jdir, &restored, &cause), 0);
	assert_int_equal(restored, 1);
	assert_false(tracefs_instance_exists(name));
	free(cause);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calc_matching),
		cmocka_unit_test(test_calc_every_pid),
		cmocka_unit_test_setup_teardown(test_instance_create_destroy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_thousand_wakeups, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wakeups_live_poll, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sigkill_recovered, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
