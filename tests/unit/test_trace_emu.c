/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_trace_emu: the verdict "likely the emulator's" over traces captured
 * in the lab kernel under TCG (tests/data/traces/hunt/README.md): an
 * emulator-made section (interrupt entry, 5311 us), a planted one (the
 * injector's irqs-off section), with and without function trace, a wake-up
 * tracer's stall before a tracepoint; how the environment changes the words;
 * and two made-up traces for the limits (too short, a delay loop).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_file.h"
#include "trace/trace_emu.h"
#include "trace/trace_latency.h"

static struct trace_latency *load_text(const char *text, size_t len, const char *name)
{
	struct trace_latency *t = NULL;
	char *cause = NULL;
	int ret = trace_latency_parse(text, len, name, &t, &cause);

	if (ret)
		print_message("%s\n", cause);
	assert_int_equal(ret, 0);
	free(cause);
	return t;
}

static struct trace_latency *load(const char *name)
{
	const char *srcdir = getenv("SRCDIR");
	char path[512], *text = NULL;
	struct trace_latency *t;
	size_t len;

	snprintf(path, sizeof(path), "%s/tests/data/traces/hunt/%s", srcdir ? srcdir : ".", name);
	assert_int_equal(rt_file_read(path, 1 << 20, &text, &len), 0);
	t = load_text(text, len, name);
	free(text);
	return t;
}

/* The verdict's sentence (long or short form) as a string the caller frees. */
static char *words(const struct trace_emu_verdict *v, enum trace_emu_env env, bool long_form)
{
	struct rt_buf b = RT_BUF_INIT;
	char *s;

	assert_int_equal(trace_emu_sentence(v, env, long_form, &b), 0);
	s = strdup(rt_buf_str(&b));
	rt_buf_fini(&b);
	assert_non_null(s);
	return s;
}

static void test_env(void **state)
{
	(void)state;
	assert_int_equal(trace_emu_env_from_vm(false, NULL), TRACE_EMU_HOST);
	assert_int_equal(trace_emu_env_from_vm(true, "QEMU TCG"), TRACE_EMU_TCG);
	assert_int_equal(trace_emu_env_from_vm(true, "KVM"), TRACE_EMU_HWVIRT);
	/* DMI says QEMU: TCG or KVM, nobody knows. */
	assert_int_equal(trace_emu_env_from_vm(true, "QEMU"), TRACE_EMU_UNKNOWN);
	assert_int_equal(trace_emu_env_from_vm(true, NULL), TRACE_EMU_UNKNOWN);
	assert_string_equal(trace_emu_short_path("irqentry_enter"), "interrupt entry and exit");
	assert_non_null(trace_emu_short_path("__traceiter_sched_switch"));
	assert_null(trace_emu_short_path("rtlab_inject_busy"));
	assert_null(trace_emu_short_path(NULL));
}

/* An interrupt's entry to exit, 5311 us, kept by a hunt run with irqsoff and no threshold. */
static void test_emulator_made(void **state)
{
	struct trace_latency *t = load("irqsoff/irqsoff-th0-emulator.txt");
	struct trace_emu_verdict v;
	char *s;

	(void)state;
	trace_emu_judge(t, TRACE_EMU_TCG, &v);
	assert_true(v.likely);
	assert_false(v.wake);
	assert_string_equal(v.where, "irqentry_enter");
	assert_string_equal(v.path, "interrupt entry and exit");
	assert_int_equal(v.latency_us, 5311);
	/* Four entries: the whole section is one gap, nothing more to say about a stall. */
	assert_null(v.stall_after);
	s = words(&v, TRACE_EMU_TCG, true);
	assert_non_null(strstr(s, "Likely the emulator's"));
	assert_non_null(strstr(s, "under QEMU's TCG emulation"));
	assert_non_null(strstr(s, "irqentry_enter (interrupt entry and exit)"));
	/* Why it still matters, and what to do. */
	assert_non_null(strstr(s, "really had interrupts off for 5311 us"));
	assert_non_null(strstr(s, "says what to do"));
	assert_int_equal(s[strlen(s) - 1], '\n');
	free(s);
	s = words(&v, TRACE_EMU_TCG, false);
	assert_non_null(strstr(s, "likely the emulator's: it started in irqentry_enter"));
	assert_ptr_equal(strchr(s, '\n'), s + strlen(s) - 1);
	free(s);

	/* The same trace elsewhere: no claim on bare metal, a conditional one from a raw file. */
	trace_emu_judge(t, TRACE_EMU_HOST, &v);
	assert_false(v.likely);
	s = words(&v, TRACE_EMU_HOST, true);
	assert_string_equal(s, "");
	free(s);
	trace_emu_judge(t, TRACE_EMU_UNKNOWN, &v);
	assert_true(v.likely);
	s = words(&v, TRACE_EMU_UNKNOWN, true);
	assert_non_null(strstr(s, "If this trace was taken under emulation"));
	free(s);
	trace_emu_judge(t, TRACE_EMU_HWVIRT, &v);
	s = words(&v, TRACE_EMU_HWVIRT, true);
	assert_non_null(strstr(s, "Possibly the host's"));
	assert_non_null(strstr(s, "the time is the host's"));
	free(s);
	trace_latency_free(t);
}

/* The planted irqs-off section, 933 us: a real cause, whatever the environment. */
static void test_real_cause(void **state)
{
	const char *const real[] = { "irqsoff/irqsoff.txt", "irqsoff/irqsoff-ftrace.txt",
				     "preemptoff/preemptoff.txt", "preemptoff/preemptirqsoff.txt" };
	struct trace_emu_verdict v;

	(void)state;
	for (size_t i = 0; i < sizeof(real) / sizeof(real[0]); i++) {
		struct trace_latency *t = load(real[i]);
		char *s;

		trace_emu_judge(t, TRACE_EMU_TCG, &v);
		assert_false(v.likely);
		assert_true(v.latency_us >= 900);
		s = words(&v, TRACE_EMU_TCG, true);
		assert_string_equal(s, "");
		free(s);
		trace_latency_free(t);
	}
}

/* With function trace: the CPU stood still for 4077 us after lapic_next_event. */
static void test_stall(void **state)
{
	struct trace_latency *t = load("irqsoff/irqsoff-ftrace-emulator.txt");
	struct trace_emu_verdict v;
	char *s;

	(void)state;
	trace_emu_judge(t, TRACE_EMU_TCG, &v);
	assert_true(v.likely);
	assert_string_equal(v.where, "irqentry_enter");
	assert_string_equal(v.stall_after, "lapic_next_event");
	assert_int_equal(v.stall_us, 4077);
	s = words(&v, TRACE_EMU_TCG, true);
	assert_non_null(strstr(s, "stood still for 4077 us after lapic_next_event (line"));
	free(s);
	trace_latency_free(t);
}

/* wakeup_rt: the RT probe woken above the running task waited in the way to the switch. */
static void test_wakeup(void **state)
{
	struct trace_latency *t = load("fifo_kthread/wakeup_rt-emulator.txt");
	struct trace_emu_verdict v;
	char *s;

	(void)state;
	trace_emu_judge(t, TRACE_EMU_TCG, &v);
	assert_true(v.likely);
	assert_true(v.wake);
	assert_string_equal(v.where, "__traceiter_sched_switch");
	assert_non_null(strstr(v.path, "tracepoint"));
	s = words(&v, TRACE_EMU_TCG, true);
	assert_non_null(strstr(s, "the woken task had the higher priority"));
	assert_non_null(strstr(s, "kept the woken task waiting for 304 us"));
	assert_non_null(strstr(s, "at __traceiter_sched_switch"));
	free(s);
	trace_latency_free(t);

	/* Woken inside the planted preempt-off section: the wait may be the section's. */
	t = load("preemptoff/wakeup-stack.txt");
	trace_emu_judge(t, TRACE_EMU_TCG, &v);
	assert_true(v.wake);
	assert_false(v.likely);
	trace_latency_free(t);
}

/* Made-up limits: a section under TRACE_EMU_MIN_US, and one in a delay loop. */
static void test_limits(void **state)
{
	static const char head[] =
		"# tracer: irqsoff\n"
		"#\n"
		"# irqsoff latency trace v1.1.5 on 6.12.0\n"
		"# --------------------------------------------------------------------\n"
		"# latency: %u us, #3/3, CPU#0 | (M:preempt_rt VP:0, KP:0, SP:0 HP:0 #P:1)\n"
		"#    -----------------\n"
		"#    | task: sh-1 (uid:0 nice:0 policy:0 rt_prio:0)\n"
		"#    -----------------\n"
		"#  => started at: irqentry_enter\n"
		"#  => ended at:   irqentry_exit\n"
		"#\n"
		"      sh-1       0d....    0us!: irqentry_enter\n"
		"      sh-1       0d....    1us!: %s <-foo\n"
		"      sh-1       0d.... %4uus : irqentry_exit\n";
	char text[2048];
	struct trace_latency *t;
	struct trace_emu_verdict v;

	(void)state;
	snprintf(text, sizeof(text), head, 40u, "bar", 40u);
	t = load_text(text, strlen(text), "short");
	trace_emu_judge(t, TRACE_EMU_TCG, &v);
	assert_false(v.likely);
	trace_latency_free(t);

	snprintf(text, sizeof(text), head, 900u, "bar", 900u);
	t = load_text(text, strlen(text), "plain");
	trace_emu_judge(t, TRACE_EMU_TCG, &v);
	assert_true(v.likely);
	trace_latency_free(t);

	snprintf(text, sizeof(text), head, 900u, "__const_udelay", 900u);
	t = load_text(text, strlen(text), "delay");
	trace_emu_judge(t, TRACE_EMU_TCG, &v);
	assert_false(v.likely);
	trace_latency_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_emulator_made),
		cmocka_unit_test(test_real_cause),
		cmocka_unit_test(test_stall),
		cmocka_unit_test(test_wakeup),
		cmocka_unit_test(test_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
