/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for trace_explain: loading traces (with their origin: a
 * results document, cut or not), the line index, and the words for
 * headers, flag blocks, delay marks and entries, on the fixtures in
 * tests/data/traces and on small inline traces.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "trace/trace_explain.h"

static char *fixture_text(const char *name, size_t *len)
{
	const char *srcdir = getenv("SRCDIR");
	char path[512], *text = NULL, *cause = NULL;

	snprintf(path, sizeof(path), "%s/tests/data/traces/%s", srcdir ? srcdir : ".", name);
	assert_int_equal(trace_explain_read_file(path, &text, len, &cause), 0);
	assert_null(cause);
	return text;
}

static struct trace_explain *load_fixture(const char *name)
{
	struct trace_explain *x = NULL;
	char *cause = NULL;
	size_t len;
	char *text = fixture_text(name, &len);

	assert_int_equal(trace_explain_load(text, len, name, &x, &cause), 0);
	assert_null(cause);
	free(text);
	return x;
}

static char *header_of(const struct trace_explain *x)
{
	struct rt_buf b = RT_BUF_INIT;

	assert_int_equal(trace_explain_header(x, &b), 0);
	return rt_buf_take(&b);
}

static void test_header_irqsoff(void **state)
{
	struct trace_explain *x = load_fixture("irqsoff.txt");
	char *h = header_of(x);

	(void)state;
	assert_non_null(strstr(h, "Tracer irqsoff: the longest time hard interrupts stayed "
				  "disabled on one CPU.\n"));
	assert_non_null(strstr(h, "Worst latency 512 us on CPU 1; task sh-142 (pid 142, "
				  "SCHED_OTHER, nice 0).\n"));
	assert_non_null(strstr(h, "Started at rtlab_inject_irqsoff, ended at "
				  "rtlab_inject_irqsoff.\n"));
	assert_non_null(strstr(h, "Shown 6 of 6 entries; kernel 6.12.22-rtlab, model "
				  "preempt_rt, 2 CPUs.\n"));
	assert_non_null(strstr(h, "1 delay mark; the widest, '!' (> 100 us), is on line 23 "
				  "(rtlab_inject_busy_wait).\n"));
	assert_null(strstr(h, "could not be read"));
	assert_false(x->from_results);
	assert_int_equal(x->nmarks, 1);
	free(h);
	trace_explain_free(x);
}

static void test_header_wakeup_rt(void **state)
{
	struct trace_explain *x = load_fixture("wakeup_rt.txt");
	char *h = header_of(x);

	(void)state;
	/* The woken task, its rt_prio and the kernel priority the lines print. */
	assert_non_null(strstr(h, "woken task sleep-2389 (pid 2389, SCHED_FIFO, rt_prio 5 = "
				  "kernel prio 94)"));
	assert_non_null(strstr(h, "real-time task"));
	assert_null(strstr(h, "Started at"));	/* wake-up traces have no such lines */
	free(h);
	trace_explain_free(x);
}

/* timerlat has no latency header: the worst activation per context is read from the lines. */
static void test_header_timerlat(void **state)
{
	static const char text[] =
		"# tracer: timerlat\n"
		"#\n"
		"           <...>-213     [000] d..h1..     9.541248: #1     context    irq "
		"timer_latency     91238 ns\n"
		"           <...>-212     [000] .......     9.541382: #1     context thread "
		"timer_latency    261249 ns\n"
		"           <...>-213     [001] d..h...     9.543240: #2     context    irq "
		"timer_latency    118002 ns\n"
		"           <...>-212     [001] .......     9.543353: #2     context thread "
		"timer_latency    233280 ns\n";
	struct trace_explain *x = NULL;
	char *cause = NULL, *h;

	(void)state;
	assert_int_equal(trace_explain_load(text, sizeof(text) - 1, "tl.txt", &x, &cause), 0);
	h = header_of(x);
	assert_non_null(strstr(h, "Tracer timerlat: how late"));
	assert_non_null(strstr(h, "Worst latency 261 us in thread context (line 4, CPU 0); "
				  "the worst in irq context was 118 us."));
	free(h);
	trace_explain_free(x);
}

static void test_lines_and_lookup(void **state)
{
	struct trace_explain *x = load_fixture("irqsoff.txt");
	const struct trace_lat_entry *e;
	const char *s;
	size_t len;

	(void)state;
	assert_int_equal(x->nlines, 34);
	s = trace_explain_line(x, 1, &len);
	assert_int_equal(len, strlen("# tracer: irqsoff"));
	assert_memory_equal(s, "# tracer: irqsoff", len);
	s = trace_explain_line(x, 34, &len);
	assert_non_null(strstr(s, "entry_SYSCALL_64_after_hwframe"));
	assert_null(trace_explain_line(x, 35, &len));
	assert_null(trace_explain_line(x, 0, &len));
	e = trace_explain_entry_at(x, 23);
	assert_non_null(e);
	assert_string_equal(e->function, "rtlab_inject_busy_wait");
	assert_int_equal(e->mark, '!');
	assert_null(trace_explain_entry_at(x, 1));	/* header */
	assert_null(trace_explain_entry_at(x, 28));	/* a stack frame */
	assert_ptr_equal(&x->trace->entries[x->worst_mark], e);
	trace_explain_free(x);
}

static void test_flags_words(void **state)
{
	struct trace_lat_flags f;
	struct rt_buf b = RT_BUF_INIT;

	(void)state;
	assert_int_equal(trace_lat_decode_flags("dNh1.", 5, NULL, 0, &f), 0);
	assert_int_equal(trace_explain_flags(&f, false, &b), 0);
	assert_string_equal(rt_buf_str(&b), "irqs off, need-resched, hardirq, preempt depth 1");
	rt_buf_reset(&b);
	assert_int_equal(trace_explain_flags(&f, true, &b), 0);
	assert_string_equal(rt_buf_str(&b), "hard irqs disabled; reschedule pending (need-resched "
			    "flag and preempt bit); in hardirq; preemption disabled (preempt depth "
			    "1); may migrate");
	rt_buf_reset(&b);

	/* Nothing set reads as the normal state, not as an empty string. */
	assert_int_equal(trace_lat_decode_flags("....", 4, NULL, 0, &f), 0);
	assert_int_equal(trace_explain_flags(&f, false, &b), 0);
	assert_string_equal(rt_buf_str(&b), "irqs on, preemptible");
	rt_buf_reset(&b);

	assert_int_equal(trace_lat_decode_flags(".ns2", 4, NULL, 0, &f), 0);
	assert_int_equal(trace_explain_flags(&f, false, &b), 0);
	assert_string_equal(rt_buf_str(&b), "need-resched (flag only), softirq, preempt depth 2");
	rt_buf_reset(&b);

	assert_int_equal(trace_lat_decode_flags("Dp.3", 4, NULL, 0, &f), 0);
	assert_int_equal(trace_explain_flags(&f, false, &b), 0);
	assert_string_equal(rt_buf_str(&b), "irqs off, BH off, need-resched (preempt bit only), "
			    "preempt depth 3");
	rt_buf_reset(&b);

	/* A block the decoder could not fully read says so. */
	assert_int_not_equal(trace_lat_decode_flags("d?.1", 4, NULL, 0, &f), 0);
	assert_int_equal(trace_explain_flags(&f, false, &b), 0);
	assert_non_null(strstr(rt_buf_str(&b), "not understood"));
	rt_buf_fini(&b);
}

static void test_gap_and_names(void **state)
{
	char buf[24];

	(void)state;
	assert_string_equal(trace_explain_gap('+', buf, sizeof(buf)), "> 10 us");
	assert_string_equal(trace_explain_gap('!', buf, sizeof(buf)), "> 100 us");
	assert_string_equal(trace_explain_gap('#', buf, sizeof(buf)), "> 1000 us");
	assert_string_equal(trace_explain_gap('*', buf, sizeof(buf)), "> 10 ms");
	assert_string_equal(trace_explain_gap('@', buf, sizeof(buf)), "> 100 ms");
	assert_string_equal(trace_explain_gap('$', buf, sizeof(buf)), "> 1 s");
	assert_string_equal(trace_explain_gap(' ', buf, sizeof(buf)), "");
	assert_string_equal(trace_explain_gap('x', buf, sizeof(buf)), "");
	assert_string_equal(trace_explain_policy(1), "SCHED_FIFO");
	assert_string_equal(trace_explain_policy(6), "SCHED_DEADLINE");
	assert_null(trace_explain_policy(42));
	assert_non_null(trace_explain_measures("preemptoff"));
	assert_null(trace_explain_measures("no-such-tracer"));
	assert_null(trace_explain_measures(NULL));
	assert_true(trace_explain_is_wakeup("wakeup_dl"));
	assert_false(trace_explain_is_wakeup("irqsoff"));
}

static void test_entry_words(void **state)
{
	struct trace_explain *x = load_fixture("wakeup_rt.txt");
	struct rt_buf b = RT_BUF_INIT;

	(void)state;
	/* A scheduler line in words. */
	assert_int_equal(trace_explain_entry(x, trace_explain_entry_at(x, 21), &b), 0);
	assert_non_null(strstr(rt_buf_str(&b), "<idle>-0 on CPU 2 at +28 us: switch on CPU 2: "
			       "now runs sleep-2389 (kernel prio 94 = rt_prio 5, runnable)"));
	assert_non_null(strstr(rt_buf_str(&b), "flags \"d..2\": hard irqs disabled"));
	rt_buf_reset(&b);
	/* A delay mark. */
	assert_int_equal(trace_explain_entry(x, trace_explain_entry_at(x, 19), &b), 0);
	assert_non_null(strstr(rt_buf_str(&b), "delay mark '+': the next entry came > 10 us "
			       "later\n"));
	rt_buf_reset(&b);
	/* The stack trace lists its frames, innermost first. */
	assert_int_equal(trace_explain_entry(x, trace_explain_entry_at(x, 22), &b), 0);
	assert_non_null(strstr(rt_buf_str(&b), "2 frames, innermost first"));
	assert_non_null(strstr(rt_buf_str(&b),
			       "  frame 1: __schedule\n  frame 2: schedule_idle\n"));
	rt_buf_fini(&b);
	trace_explain_free(x);
}

static void test_problems_and_normal_format(void **state)
{
	static const char text[] =
		"  bash-1234  [001] d..1. 100.000500: do_thing <-caller\n"
		"this line is nothing\n"
		"\tbash-1234  [001] ..... 100.250000: other <-caller\r\n";
	struct trace_explain *x = NULL;
	struct rt_buf b = RT_BUF_INIT;
	const struct trace_lat_problem *p;
	char *cause = NULL, *h;

	(void)state;
	assert_int_equal(trace_explain_load(text, sizeof(text) - 1, "n.txt", &x, &cause), 0);
	assert_int_equal(x->trace->nentries, 2);
	p = trace_explain_problem_at(x, 2);
	assert_non_null(p);
	assert_non_null(strstr(p->what, "n.txt:2:"));
	h = header_of(x);
	assert_non_null(strstr(h, "No '# tracer:' line"));
	assert_non_null(strstr(h, "1 line could not be read; the first: n.txt:2:"));
	free(h);
	/* Absolute time in seconds, not "+N us". */
	assert_int_equal(trace_explain_time(x, &x->trace->entries[0], &b), 0);
	assert_string_equal(rt_buf_str(&b), "100.000500 s");
	/* Tabs and CRs draw as blanks: no control byte reaches the screen. */
	for (size_t i = 0; i < x->len; i++)
		assert_true(x->text[i] == '\n' || (unsigned char)x->text[i] >= 0x20);
	rt_buf_fini(&b);
	trace_explain_free(x);
}

/* A trace the caller took out of a results document says so, and whether it was cut. */
static void test_load_src(void **state)
{
	struct trace_explain *x = NULL;
	char *cause = NULL, *h;
	size_t len;
	char *trace = fixture_text("irqsoff.txt", &len);
	struct trace_explain_src src = { .text = trace, .len = len, .name = "r.json",
					 .from_results = true, .truncated = true };

	(void)state;
	assert_int_equal(trace_explain_load_src(&src, &x, &cause), 0);
	assert_true(x->from_results);
	assert_true(x->truncated);
	assert_string_equal(x->name, "r.json");
	assert_int_equal(x->nlines, 34);
	assert_non_null(trace_explain_entry_at(x, 23));
	h = header_of(x);
	assert_non_null(strstr(h, "cut this trace"));
	free(h);
	trace_explain_free(x);

	/* Plain loading says nothing about an origin, and no name means "trace". */
	assert_int_equal(trace_explain_load(trace, len, NULL, &x, &cause), 0);
	assert_false(x->from_results);
	assert_false(x->truncated);
	assert_string_equal(x->name, "trace");
	h = header_of(x);
	assert_null(strstr(h, "cut this trace"));
	free(h);
	trace_explain_free(x);

	/* A results document is no trace to this module: the lab takes the trace out first. */
	assert_int_equal(trace_explain_load("{\"schema\": 1}", 13, "d.json", &x, &cause),
			 -EINVAL);
	assert_null(x);
	assert_non_null(strstr(cause, "d.json:1:"));
	free(cause);
	free(trace);
}

/*
 * Where the trace was taken changes the header: an interrupt's section of
 * 5311 us captured under TCG is called the emulator's, the planted section
 * never is (tests/data/traces/hunt/).
 */
static void test_header_emulator(void **state)
{
	size_t len;
	char *cause = NULL, *h;
	char *text = fixture_text("hunt/irqsoff/irqsoff-th0-emulator.txt", &len);
	char *real = NULL;
	struct trace_explain *x = NULL;
	struct trace_explain_src src = { .text = text, .len = len, .name = "hunt.json",
					 .from_results = true, .env = TRACE_EMU_TCG };

	(void)state;
	assert_int_equal(trace_explain_load_src(&src, &x, &cause), 0);
	assert_true(x->emu.likely);
	assert_int_equal(x->env, TRACE_EMU_TCG);
	h = header_of(x);
	/* After where the section started, before the entries' count. */
	assert_non_null(strstr(h, "Started at irqentry_enter"));
	assert_non_null(strstr(h, "\nLikely the emulator's: this run was under QEMU's TCG"));
	assert_true(strstr(h, "Likely the emulator's") > strstr(h, "Started at"));
	assert_true(strstr(h, "Likely the emulator's") < strstr(h, "Shown 4 of 4"));
	assert_non_null(strstr(h, "really had interrupts off for 5311 us"));
	free(h);
	trace_explain_free(x);

	/* A raw file: nobody knows where it was taken, so the claim is conditional. */
	assert_int_equal(trace_explain_load(text, len, "trace", &x, &cause), 0);
	assert_int_equal(x->env, TRACE_EMU_UNKNOWN);
	h = header_of(x);
	assert_non_null(strstr(h, "If this trace was taken under emulation"));
	free(h);
	trace_explain_free(x);

	/* Bare metal: no claim. */
	src.env = TRACE_EMU_HOST;
	assert_int_equal(trace_explain_load_src(&src, &x, &cause), 0);
	h = header_of(x);
	assert_null(strstr(h, "emulat"));
	free(h);
	trace_explain_free(x);

	/* The planted section under TCG: a real cause. */
	free(text);
	real = fixture_text("hunt/irqsoff/irqsoff.txt", &len);
	src.text = real;
	src.len = len;
	src.env = TRACE_EMU_TCG;
	assert_int_equal(trace_explain_load_src(&src, &x, &cause), 0);
	assert_false(x->emu.likely);
	h = header_of(x);
	assert_null(strstr(h, "emulator"));
	assert_non_null(strstr(h, "Started at rtlab_inject_irqsoff_section"));
	free(h);
	trace_explain_free(x);
	free(real);
}

static void test_not_a_trace(void **state)
{
	struct trace_explain *x = NULL;
	char *cause = NULL, *text = NULL;
	size_t len;

	(void)state;
	assert_int_equal(trace_explain_load("hello\nworld\n", 12, "t.txt", &x, &cause), -EINVAL);
	assert_null(x);
	assert_non_null(strstr(cause, "t.txt:1:"));
	free(cause);
	cause = NULL;
	assert_int_equal(trace_explain_read_file("/nonexistent/trace", &text, &len, &cause),
			 -ENOENT);
	assert_non_null(strstr(cause, "/nonexistent/trace: cannot read it"));
	free(cause);
	cause = NULL;
	assert_int_equal(trace_explain_read_file("/", &text, &len, &cause), -EISDIR);
	assert_null(text);
	free(cause);
}

/* Every fixture loads and every entry can be put into words. */
static void test_all_fixtures(void **state)
{
	static const char *const names[] = {
		"irqsoff.txt", "preemptoff.txt", "preemptirqsoff.txt", "wakeup.txt",
		"wakeup_rt.txt", "wakeup_dl.txt",
	};
	struct rt_buf b = RT_BUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct trace_explain *x = load_fixture(names[i]);
		char *h = header_of(x);

		assert_non_null(strstr(h, "Worst latency"));
		for (size_t k = 0; k < x->trace->nentries; k++) {
			rt_buf_reset(&b);
			assert_int_equal(trace_explain_entry(x, &x->trace->entries[k], &b), 0);
			assert_true(b.len > 0);
			assert_ptr_equal(trace_explain_entry_at(x, x->trace->entries[k].line),
					 &x->trace->entries[k]);
		}
		free(h);
		trace_explain_free(x);
	}
	rt_buf_fini(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_irqsoff),
		cmocka_unit_test(test_header_wakeup_rt),
		cmocka_unit_test(test_header_timerlat),
		cmocka_unit_test(test_lines_and_lookup),
		cmocka_unit_test(test_flags_words),
		cmocka_unit_test(test_gap_and_names),
		cmocka_unit_test(test_entry_words),
		cmocka_unit_test(test_problems_and_normal_format),
		cmocka_unit_test(test_load_src),
		cmocka_unit_test(test_header_emulator),
		cmocka_unit_test(test_not_a_trace),
		cmocka_unit_test(test_all_fixtures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
