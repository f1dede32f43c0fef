/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for trace_ctl on the host's real tracefs (root; skipped with a
 * reason otherwise): the tracer table against available_tracers; a missing
 * latency tracer refused with its kernel option; the function tracer run in
 * a private instance and its trace read; top-level knobs journalled and put
 * back by destroy and by the journal; a SIGKILLed child's top-level change
 * undone by rt_journal_recover(); a dead process's rtlab instance removed by
 * the stale sweep. Teardown checks the top-level state is as before.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tracefs.h>

#include "core/rt_file.h"
#include "core/rt_journal.h"
#include "core/rt_time.h"
#include "trace/trace_ctl.h"
#include "trace/trace_latency.h"
#include "trace_state.h"

/* A bound on waits, against a hang only. */
#define HANG_MS 60000

#define skip_because(why) do { print_message("[  SKIP    ] %s\n", why); skip(); } while (0)

static int setup(void **state)
{
	return trace_state_setup(state);
}

static int teardown(void **state)
{
	return trace_state_teardown(state);
}

static char *top_file(const char *name)
{
	char *path = tracefs_get_tracing_file(name), *v = NULL;

	assert_non_null(path);
	assert_int_equal(rt_file_read(path, 1 << 20, &v, NULL), 0);
	tracefs_put_tracing_file(path);
	return v;
}

static void test_table(void **state)
{
	const struct trace_tracer_info *i = trace_ctl_tracer_lookup("irqsoff");

	(void)state;
	assert_non_null(i);
	assert_string_equal(i->config, "CONFIG_IRQSOFF_TRACER");
	assert_string_equal(trace_ctl_bundled_str(i->bundled), "lab");
	i = trace_ctl_tracer_lookup("timerlat");
	assert_string_equal(trace_ctl_bundled_str(i->bundled), "rt, lab");
	assert_string_equal(trace_ctl_tracer_lookup("preemptoff")->config, "CONFIG_PREEMPT_TRACER");
	assert_string_equal(trace_ctl_tracer_lookup("wakeup_dl")->config, "CONFIG_SCHED_TRACER");
	assert_null(trace_ctl_tracer_lookup("blk"));
	assert_null(trace_ctl_tracer_lookup(NULL));
	assert_string_equal(trace_ctl_bundled_str(0), "none");
}

static void test_probe(void **state)
{
	struct trace_state *ts = *state;
	struct trace_tracer_info info[TRACE_CTL_NTRACERS];
	char **avail = NULL, *text, word[64];

	if (!ts->live)
		skip_because(ts->why);
	assert_int_equal(trace_ctl_probe_tracers(info, &avail, NULL), 0);
	text = top_file("available_tracers");
	for (size_t i = 0; i < TRACE_CTL_NTRACERS; i++) {
		char padded[512];

		snprintf(padded, sizeof(padded), " %s ", text);
		padded[strcspn(padded, "\n")] = ' ';
		snprintf(word, sizeof(word), " %s ", info[i].name);
		assert_int_equal(info[i].present, strstr(padded, word) != NULL);
		print_message("%-15s %-8s %s (bundled: %s)\n", info[i].name,
			      info[i].present ? "present" : "missing", info[i].config,
			      trace_ctl_bundled_str(info[i].bundled));
	}
	assert_true(tracefs_list_size(avail) >= 1);
	tracefs_list_free(avail);
	free(text);
}

static void test_missing_tracer(void **state)
{
	struct trace_state *ts = *state;
	struct trace_tracer_info info[TRACE_CTL_NTRACERS];
	char *cause = NULL;

	if (!ts->live)
		skip_because(ts->why);
	assert_int_equal(trace_ctl_probe_tracers(info, NULL, NULL), 0);
	if (info[0].present)
		skip_because("this kernel has irqsoff");
	assert_null(trace_ctl_new(ts->j, "ctltest", "irqsoff", 0, &cause));
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(cause, "CONFIG_IRQSOFF_TRACER"));
	assert_non_null(strstr(cause, "lab"));
	free(cause);
	cause = NULL;
	assert_null(trace_ctl_new(ts->j, "ctltest", "no/such", 0, &cause));
	assert_int_equal(errno, EINVAL);
	free(cause);
}

static void test_function_in_instance(void **state)
{
	struct trace_state *ts = *state;
	struct trace_latency *t = NULL;
	struct trace_ctl *c;
	char *cause = NULL, *text, *name, hdr[64];
	const char *tracer = "function";
	unsigned long long max = 1;
	unsigned int rounds;
	uint64_t deadline;
	int ret;
	size_t len;

	if (!ts->live)
		skip_because(ts->why);
	if (!tracefs_tracer_available(NULL, "function"))
		skip_because("no function tracer");
	c = trace_ctl_new(ts->j, "ctltest", "function", 0, &cause);
	if (!c && errno == EPERM) {
		/* This host lists function but refuses to select it: run nop privately. */
		print_message("function refused (%s); using nop in the instance\n", cause);
		free(cause);
		cause = NULL;
		tracer = "nop";
		c = trace_ctl_new(ts->j, "ctltest", "nop", 0, &cause);
	}
	if (!c)
		fail_msg("trace_ctl_new: %s", cause);
	assert_false(trace_ctl_is_top_level(c));
	name = strdup(trace_ctl_instance_name(c));
	assert_true(tracefs_instance_exists(name));
	assert_string_equal(trace_ctl_tracer(c), tracer);
	ret = trace_ctl_set_function_trace(c, true, &cause);
	/* Instances have options/function-trace only while a function-based tracer runs. */
	assert_true(ret == 0 || (ret == -ENOENT && !strcmp(tracer, "nop")));
	free(cause);
	cause = NULL;
	assert_int_equal(trace_ctl_set_thresh(c, 0, &cause), 0);
	if (tracefs_file_exists(NULL, "tracing_max_latency")) {
		assert_int_equal(trace_ctl_reset_max_latency(c, &cause), 0);
		assert_int_equal(trace_ctl_max_latency(c, &max, &cause), 0);
		assert_int_equal(max, 0);
	} else {
		/* No latency tracer in the kernel: no max-latency file at all. */
		assert_int_equal(trace_ctl_reset_max_latency(c, &cause), -ENOENT);
		free(cause);
		cause = NULL;
		assert_int_equal(trace_ctl_max_latency(c, &max, &cause), -ENOENT);
		free(cause);
		cause = NULL;
	}
	/*
	 * Trace in rounds of 20 ms until the function tracer has recorded
	 * something (our own sleep enters the kernel): a loaded machine may
	 * need more rounds, so wait for the entries, not for a fixed time. nop
	 * records nothing, and one round shows that.
	 */
	snprintf(hdr, sizeof(hdr), "# tracer: %s\n", tracer);
	deadline = rt_time_deadline_ms(HANG_MS);
	for (rounds = 1;; rounds++) {
		assert_int_equal(trace_ctl_start(c, &cause), 0);
		rt_time_sleep_ms(20, NULL);
		assert_int_equal(trace_ctl_stop(c, &cause), 0);
		text = trace_ctl_read_trace(c, &len, &cause);
		assert_non_null(text);
		assert_non_null(strstr(text, hdr));
		/* The function tracer's normal format goes through the same parser. */
		assert_int_equal(trace_latency_parse(text, len, "live", &t, &cause), 0);
		assert_string_equal(t->tracer, tracer);
		if (strcmp(tracer, "function") || t->nentries > 0 || rt_time_passed(deadline))
			break;
		trace_latency_free(t);
		free(text);
	}
	print_message("%s tracer, %u round(s) of 20 ms in %s: %zu entries, %zu lines not read\n",
		      tracer, rounds, name, t->nentries, t->nproblems_total);
	if (!strcmp(tracer, "function"))
		assert_true(t->nentries > 0);
	trace_latency_free(t);
	free(text);
	assert_int_equal(trace_ctl_destroy(c), 0);
	assert_int_equal(trace_ctl_destroy(c), 0);	/* a second destroy does nothing */
	trace_ctl_free(c);
	assert_false(tracefs_instance_exists(name));
	free(name);
	free(cause);
}

static void test_top_level_restored(void **state)
{
	struct trace_state *ts = *state;
	struct trace_ctl *c;
	char *cause = NULL, *before, *v;
	size_t n0 = rt_journal_count(ts->j);

	if (!ts->live)
		skip_because(ts->why);
	before = top_file("tracing_thresh");
	c = trace_ctl_new(ts->j, "ctltest", "nop", TRACE_CTL_TOP_LEVEL, &cause);
	if (!c)
		fail_msg("trace_ctl_new: %s", cause);
	assert_true(trace_ctl_is_top_level(c));
	assert_null(trace_ctl_instance_name(c));
	assert_int_equal(trace_ctl_set_thresh(c, 4321, &cause), 0);
	assert_int_equal(trace_ctl_set_thresh(c, 1234, &cause), 0);
	v = top_file("tracing_thresh");
	assert_string_equal(v, "1234\n");
	free(v);
	assert_true(rt_journal_count(ts->j) >= n0 + 3);	/* tracing_on, current_tracer, thresh */
	assert_int_equal(trace_ctl_destroy(c), 0);
	assert_int_equal(trace_ctl_destroy(c), 0);	/* a second destroy does nothing */
	trace_ctl_free(c);
	v = top_file("tracing_thresh");
	assert_string_equal(v, before);
	free(v);
	free(before);
	free(cause);
}

/* A child changes a top-level knob through its journal and is killed. */
static void test_sigkill_top_level(void **state)
{
	struct trace_state *ts = *state;
	unsigned int restored = 0;
	char *before, *v, ok = 0;
	int fds[2];
	pid_t kid;

	if (!ts->live)
		skip_because(ts->why);
	before = top_file("tracing_thresh");
	assert_int_equal(pipe(fds), 0);
	kid = fork();
	assert_true(kid >= 0);
	if (kid == 0) {
		struct rt_journal *j = rt_journal_open(ts->jdir, NULL);
		struct trace_ctl *c = j ? trace_ctl_new(j, "kill", "nop", TRACE_CTL_TOP_LEVEL,
						       NULL) : NULL;
		char r = c && trace_ctl_set_thresh(c, 777, NULL) == 0;

		if (write(fds[1], &r, 1) < 0)
			_exit(2);
		pause();
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &ok, 1), 1);
	close(fds[0]);
	assert_int_equal(ok, 1);
	v = top_file("tracing_thresh");
	assert_string_equal(v, "777\n");
	free(v);
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	assert_int_equal(rt_journal_recover(ts->jdir, &restored, NULL), 0);
	assert_int_equal(restored, 1);
	v = top_file("tracing_thresh");
	assert_string_equal(v, before);
	free(v);
	free(before);
}

static void test_stale_sweep(void **state)
{
	struct trace_state *ts = *state;
	struct tracefs_instance *inst;
	char name[64], live[64];
	unsigned int removed = 0;
	pid_t dead;

	if (!ts->live)
		skip_because(ts->why);
	dead = fork();
	assert_true(dead >= 0);
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);		/* its pid is now free */
	snprintf(name, sizeof(name), "rtlab-ctltest-%d", (int)dead);
	snprintf(live, sizeof(live), "rtlab-ctltest-%d", (int)getppid());
	inst = tracefs_instance_create(name);
	assert_non_null(inst);
	tracefs_instance_free(inst);
	inst = tracefs_instance_create(live);
	assert_non_null(inst);
	assert_int_equal(trace_ctl_sweep_stale(&removed, NULL), 0);
	assert_true(removed >= 1);
	assert_false(tracefs_instance_exists(name));
	assert_true(tracefs_instance_exists(live));	/* its owner is alive */
	assert_int_equal(tracefs_instance_destroy(inst), 0);
	tracefs_instance_free(inst);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test_setup_teardown(test_probe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_tracer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_function_in_instance, setup, teardown),
		cmocka_unit_test_setup_teardown(test_top_level_restored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sigkill_top_level, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_sweep, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
