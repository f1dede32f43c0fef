/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the wake-up matcher's text input and its verdicts, with no
 * tracefs: trace_wake_calc_feed_text() on hand-made lines of both layouts
 * (a tracefs `trace` file with its flags column, `trace-cmd report`
 * without), odd task names and loss lines; the matcher's handling of a
 * thread woken while still on its CPU, of a switch-in the kernel did not
 * record, of a waking that races the switch-out, and of lost events; and
 * the raw `trace` files captured on the host and in the classroom VM's three
 * kernels (tests/data/traces/events/README.md), each fed whole and checked
 * against the counts read from the same file by hand: every switch out of
 * the idle task is recorded on every kernel, and the only switches missing
 * on the host are those out of its agent's threads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_events.h"

static struct trace_wake_stats stats_of(const struct trace_wake_calc *c)
{
	struct trace_wake_stats st;

	trace_wake_calc_stats(c, &st);
	return st;
}

/* @text fed to a matcher watching pid 42, which must take @events events: its stats. */
static struct trace_wake_stats feed42(const char *text, size_t events)
{
	pid_t pid = 42;
	struct trace_wake_calc *c = trace_wake_calc_new(&pid, 1, 1000);
	struct trace_wake_stats st;

	assert_non_null(c);
	assert_int_equal(trace_wake_calc_feed_text(c, text), events);
	st = stats_of(c);
	trace_wake_calc_free(c);
	return st;
}

/* ---- Text input ---- */

static void test_text_layouts(void **state)
{
	const char *text =
		"# tracer: nop\n"
		"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
		/* tracefs `trace`: flags column, six decimals */
		"          <idle>-0       [001] d.h3.   100.000100: sched_waking: comm=probe pid=42 prio=59 target_cpu=001\n"
		"          <idle>-0       [001] d..2.   100.000112: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=probe next_pid=42 next_prio=59\n"
		"           probe-42      [001] d..2.   100.000200: sched_switch: prev_comm=probe prev_pid=42 prev_prio=59 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n"
		/* trace-cmd report: no flags, a task name with spaces, brackets and a dash */
		"   my [odd] comm-7     [000]  100.001100: sched_waking:  comm=probe pid=42 prio=59 target_cpu=001\n"
		"          <idle>-0     [001]  100.001130: sched_switch:  prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=probe next_pid=42 next_prio=59\n"
		/* nanoseconds (trace-cmd -t) */
		"           <...>-9     [000]  100.002000000: sched_waking:  comm=probe pid=42 prio=59 target_cpu=001\n"
		"garbage line\n"
		"  x-1 [0] 12: sched_waking: comm=probe pid=42\n"
		"           probe-42    [001]  100.002000500: sched_switch:  prev_comm=probe prev_pid=42 prev_prio=59 prev_state=R+ ==> next_comm=x next_pid=9 next_prio=120\n";
	struct trace_wake_stats st = feed42(text, 7);

	(void)state;
	assert_int_equal(st.matched, 2);
	assert_int_equal(st.min_ns, 12000);
	assert_int_equal(st.max_ns, 30000);
	/* The last waking came while probe was on its CPU and it never blocked. */
	assert_int_equal(st.woken_running, 1);
	assert_int_equal(st.pending_wakings, 0);
	assert_int_equal(st.missed_switch_ins, 0);
}

static void test_text_waker_and_losses(void **state)
{
	const char *text =
		/* woken by an interrupt in its own context: it never left the CPU */
		"           probe-42      [001] d.h2.   5.000100: sched_waking: comm=probe pid=42 prio=59 target_cpu=001\n"
		"           probe-42      [001] d..2.   5.000300: sched_switch: prev_comm=probe prev_pid=42 prev_prio=59 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n"
		"          <idle>-0       [001] d.h2.   5.001000: sched_waking: comm=probe pid=42 prio=59 target_cpu=001\n"
		"CPU:1 [LOST 17 EVENTS]\n"
		/* the pending waking is forgotten: this switch-in matches nothing */
		"          <idle>-0       [001] d..2.   5.001500: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=probe next_pid=42 next_prio=59\n"
		"CPU:0 [3 EVENTS DROPPED]\n";
	struct trace_wake_stats st = feed42(text, 4);

	(void)state;
	assert_int_equal(st.woken_running, 1);
	assert_int_equal(st.lost_events, 20);
	assert_int_equal(st.unmatched_wakings, 1);
	assert_int_equal(st.unmatched_switches, 1);
	assert_int_equal(st.matched, 0);
}

/* ---- The matcher's verdicts ---- */

static void test_calc_missed_switch_in(void **state)
{
	pid_t pid = 42;
	struct trace_wake_calc *c = trace_wake_calc_new(&pid, 1, 1000);
	struct trace_wake_stats st;

	(void)state;
	assert_non_null(c);
	/* Woken off its CPU; the switch to it is missing; it runs and blocks. */
	trace_wake_calc_switch(c, 100, 1, 42, true, 0);
	trace_wake_calc_waking(c, 1000, 77, 42, 1);
	trace_wake_calc_switch(c, 1200, 1, 42, true, 77);
	/* Then preempted and switched back in: never paired with that old waking. */
	trace_wake_calc_waking(c, 2000, 0, 42, 1);
	trace_wake_calc_switch(c, 2100, 1, 0, false, 42);
	trace_wake_calc_switch(c, 2500, 1, 42, false, 99);
	trace_wake_calc_switch(c, 9000, 1, 99, true, 42);
	/* Missed again, and this time found by a waking in its own context. */
	trace_wake_calc_switch(c, 9500, 1, 42, true, 0);
	trace_wake_calc_waking(c, 10000, 0, 42, 1);
	trace_wake_calc_waking(c, 11000, 42, 42, 1);
	st = stats_of(c);
	assert_int_equal(st.matched, 1);
	assert_int_equal(st.max_ns, 100);
	assert_int_equal(st.missed_switch_ins, 2);
	assert_int_equal(st.woken_running, 1);
	assert_int_equal(st.unmatched_switches, 1);
	assert_int_equal(st.unmatched_wakings, 0);
	assert_int_equal(st.pending_wakings, 0);
	trace_wake_calc_free(c);
}

static void test_calc_woken_on_cpu(void **state)
{
	pid_t pid = 42;
	struct trace_wake_calc *c = trace_wake_calc_new(&pid, 1, 1000);
	struct trace_wake_stats st;

	(void)state;
	assert_non_null(c);
	/* Woken from another CPU on its way out; it blocks anyway: a real wait. */
	trace_wake_calc_switch(c, 100, 1, 0, false, 42);
	trace_wake_calc_waking(c, 1000, 5, 42, 1);
	trace_wake_calc_switch(c, 1010, 1, 42, true, 0);
	trace_wake_calc_switch(c, 1500, 1, 0, false, 42);
	/* Woken before it blocked: it ran on; its later preemption is no wait. */
	trace_wake_calc_waking(c, 2000, 5, 42, 1);
	trace_wake_calc_switch(c, 2500, 1, 42, false, 99);
	trace_wake_calc_switch(c, 4000, 1, 99, true, 42);
	/* Woken twice on its CPU without leaving it: the first ran on, the second waits. */
	trace_wake_calc_waking(c, 5000, 5, 42, 1);
	trace_wake_calc_waking(c, 6000, 5, 42, 1);
	st = stats_of(c);
	assert_int_equal(st.matched, 1);
	assert_int_equal(st.max_ns, 500);
	assert_int_equal(st.woken_running, 2);
	assert_int_equal(st.pending_wakings, 1);
	/* The first switch-in (nothing known before it) and the one after the preemption. */
	assert_int_equal(st.unmatched_switches, 2);
	assert_int_equal(st.missed_switch_ins, 0);
	assert_int_equal(st.unmatched_wakings, 0);
	trace_wake_calc_free(c);
}

static void test_calc_lost_forgets(void **state)
{
	pid_t pids[] = { 42, 43 };
	struct trace_wake_calc *c = trace_wake_calc_new(pids, 2, 1000);
	struct trace_wake_stats st;

	(void)state;
	assert_non_null(c);
	trace_wake_calc_switch(c, 100, 0, 0, false, 42);
	trace_wake_calc_waking(c, 200, 0, 43, 1);
	trace_wake_calc_lost(c, 5);
	/* 42's place is forgotten: a waking now is not "woken while running". */
	trace_wake_calc_waking(c, 300, 0, 42, 0);
	trace_wake_calc_switch(c, 400, 0, 0, false, 42);
	trace_wake_calc_switch(c, 500, 1, 0, false, 43);
	st = stats_of(c);
	assert_int_equal(st.lost_events, 5);
	assert_int_equal(st.unmatched_wakings, 1);
	assert_int_equal(st.matched, 1);
	assert_int_equal(st.max_ns, 100);
	assert_int_equal(st.woken_running, 0);
	/* 42's first switch-in, and 43's: its waking was dropped with the loss. */
	assert_int_equal(st.unmatched_switches, 2);
	trace_wake_calc_free(c);
}

/* ---- The captured traces ---- */

static char *slurp(const char *name)
{
	const char *srcdir = getenv("SRCDIR");
	char path[512];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/tests/data/traces/events/%s", srcdir ? srcdir : ".",
		 name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s", path);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/*
 * Each CPU's switches as a chain: a switch's prev_pid should be the pid the
 * previous switch on that CPU went to. A break means switches were not
 * recorded; it is counted by the task the chain had reached.
 */
struct chain {
	unsigned int switches, idle_outs, breaks, breaks_after_idle, breaks_after_agent;
};

static struct chain chain_of(const char *text, const char *agent_comm)
{
	struct chain ch = { 0 };
	int last[8];
	char last_comm[8][32];

	for (int i = 0; i < 8; i++)
		last[i] = -1;
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *br = strstr(l, "] "), *sw = strstr(l, ": sched_switch: ");
		const char *nl = strchr(l, '\n'), *nc;
		int cpu, prev, next;

		if (*l == '#' || !br || !sw || (nl && sw > nl))
			continue;
		while (br > l && br[-1] != '[')
			br--;
		if (sscanf(br, "%d]", &cpu) != 1 || cpu < 0 || cpu >= 8)
			continue;
		if (!strstr(sw, "prev_pid=") || !strstr(sw, "next_pid=") || !(nc = strstr(sw, "next_comm=")))
			continue;
		prev = atoi(strstr(sw, "prev_pid=") + 9);
		next = atoi(strstr(sw, "next_pid=") + 9);
		ch.switches++;
		if (last[cpu] >= 0) {
			if (last[cpu] == prev) {
				ch.idle_outs += prev == 0;
			} else {
				ch.breaks++;
				ch.breaks_after_idle += last[cpu] == 0;
				ch.breaks_after_agent += agent_comm &&
							 !strcmp(last_comm[cpu], agent_comm);
			}
		}
		last[cpu] = next;
		sscanf(nc + 10, "%31s", last_comm[cpu]);
	}
	return ch;
}

struct captured {
	const char *file;
	pid_t probe;
	unsigned int fed, matched, woken_running, missed, pending, unmatched_switches;
	unsigned int max_us;
	/* the switch chains */
	unsigned int idle_outs, breaks;
};

/*
 * Counted by hand in each file (README.md there): the host's breaks all
 * follow a switch into "tokio-rt-worker", a thread of the machine's own
 * agent whose task-context events that kernel does not record.
 */
static const struct captured captured[] = {
	{ "host-6.18-nobusy.trace", 15609, 716, 181, 2, 5, 0, 0, 2341, 218, 6 },
	{ "host-6.18-busy.trace", 16301, 556, 26, 0, 4, 0, 0, 21, 0, 5 },
	{ "stock-6.1.trace", 161, 298, 66, 5, 0, 0, 0, 3198, 85, 0 },
	{ "rt-6.1.trace", 178, 319, 66, 2, 0, 0, 0, 2342, 87, 0 },
	{ "lab-6.12.trace", 114, 295, 65, 1, 0, 0, 0, 411, 92, 0 },
};

static void test_captured(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(captured) / sizeof(captured[0]); i++) {
		const struct captured *w = &captured[i];
		char *text = slurp(w->file);
		struct trace_wake_calc *c = trace_wake_calc_new(&w->probe, 1, 10000);
		struct trace_wake_stats st;
		struct chain ch = chain_of(text, "tokio-rt-worker");
		size_t fed;

		assert_non_null(c);
		fed = trace_wake_calc_feed_text(c, text);
		st = stats_of(c);
		print_message("%s: fed %zu, matched %llu, woken while running %llu, missed "
			      "switch-ins %llu, max %.0f us; %u switches, %u out of idle, %u "
			      "breaks (%u after idle, %u after the agent)\n", w->file, fed,
			      (unsigned long long)st.matched,
			      (unsigned long long)st.woken_running,
			      (unsigned long long)st.missed_switch_ins, st.max_ns / 1e3,
			      ch.switches, ch.idle_outs, ch.breaks, ch.breaks_after_idle,
			      ch.breaks_after_agent);
		assert_int_equal(fed, w->fed);
		assert_int_equal(st.matched, w->matched);
		assert_int_equal(st.woken_running, w->woken_running);
		assert_int_equal(st.missed_switch_ins, w->missed);
		assert_int_equal(st.pending_wakings, w->pending);
		assert_int_equal(st.unmatched_switches, w->unmatched_switches);
		assert_int_equal(st.unmatched_wakings, 0);
		assert_int_equal(st.lost_events, 0);
		assert_int_equal(st.out_of_order, 0);
		assert_int_equal((unsigned int)(st.max_ns / 1000), w->max_us);
		assert_int_equal(ch.idle_outs, w->idle_outs);
		assert_int_equal(ch.breaks, w->breaks);
		/* On no kernel is a switch out of idle missing ... */
		assert_int_equal(ch.breaks_after_idle, 0);
		/* ... and on the host every missing one is out of the agent's thread. */
		assert_int_equal(ch.breaks_after_agent, ch.breaks);
		trace_wake_calc_free(c);
		free(text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_layouts),
		cmocka_unit_test(test_text_waker_and_losses),
		cmocka_unit_test(test_calc_missed_switch_in),
		cmocka_unit_test(test_calc_woken_on_cpu),
		cmocka_unit_test(test_calc_lost_forgets),
		cmocka_unit_test(test_captured),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
