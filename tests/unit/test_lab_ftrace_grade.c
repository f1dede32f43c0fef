/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_lab_ftrace_grade: the hunt's grader against the traces captured in
 * the lab kernel (tests/data/traces/hunt/, MANIFEST and README). For every
 * planted cause: each planted function a trace of it names is accepted, with
 * the tracer that wrote it; the writer's entry point and the short kernel
 * code of an emulator-made section are rejected, saying why and what would
 * be accepted, never naming an accepted function; and a whole document with
 * the answers a learner copies from such a trace (a stack line, an offset,
 * "irqsoff tracer") passes ftrace_grade().
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_env.h"
#include "core/rt_file.h"
#include "core/rt_result.h"
#include "labs/lab.h"
#include "labs/lab_ftrace.h"
#include "labs/lab_ftrace_grade.h"
#include "trace/trace_emu.h"
#include "trace/trace_latency.h"

/* The seeds the fixtures were made with (README.md). */
static const struct {
	const char *kind;
	enum ftrace_injector inj;
	uint64_t seed;
} seeds[] = {
	{ "irqsoff", FTRACE_INJ_MODULE, 9 },
	{ "preemptoff", FTRACE_INJ_MODULE, 1 },
	{ "softirq", FTRACE_INJ_MODULE, 8 },
	{ "fifo_kthread", FTRACE_INJ_MODULE, 0 },
	{ "fifo_spin", FTRACE_INJ_USER, 3 },
	{ "fault_storm", FTRACE_INJ_USER, 0 },
	{ "syscall_burst", FTRACE_INJ_USER, 1 },
};

static char *fixture(const char *name, size_t *len)
{
	const char *srcdir = getenv("SRCDIR");
	char path[512], *text = NULL;

	snprintf(path, sizeof(path), "%s/tests/data/traces/hunt/%s", srcdir ? srcdir : ".", name);
	assert_int_equal(rt_file_read(path, 1 << 20, &text, len), 0);
	return text;
}

/* ---- A document to grade ------------------------------------------------------------- */

struct answers {
	const char *cause, *function, *tracer;
};

static struct rt_result *build(const char *kind, const struct answers *a)
{
	struct rt_env env = { .kernel_release = "6.12.118-rtlab", .kernel_version = "#1 SMP "
			      "PREEMPT_RT", .machine = "x86_64", .preempt_model = "rt",
			      .preempt_source = "uname -v", .in_vm = true, .vm_type = "QEMU TCG",
			      .cpus = 1, .root = true };
	struct rt_result *res = rt_result_new("ftrace", "vm", &env);
	json_t *extra = rt_result_extra(res), *tr = json_array();
	struct ftrace_hunt_truth t;
	char sum[24], seed[24];
	size_t i;

	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]) && strcmp(seeds[i].kind, kind); i++)
		;
	assert_true(i < sizeof(seeds) / sizeof(seeds[0]));
	ftrace_hunt_pick(seeds[i].seed, seeds[i].inj, &t);
	assert_string_equal(t.kind, kind);
	assert_int_equal(rt_result_set_param_bool(res, "hunt", true), 0);
	json_object_set_new(extra, "events", json_pack("{s:I}", "matched_count", (json_int_t)3000));
	json_object_set_new(extra, "probe", json_pack("{s:I}", "count", (json_int_t)3050));
	json_object_set_new(extra, "agreement", json_pack("{s:f, s:{s:f}}", "count_ratio", 0.99,
							  "p50", "diff_us", 110.0));
	json_object_set_new(extra, "interrupted", json_false());
	for (const char *const *x = t.tracers; *x; x++)
		json_array_append_new(tr, json_string(*x));
	ftrace_hunt_checksum(seeds[i].seed, &t, sum, sizeof(sum));
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)seeds[i].seed);
	json_object_set_new(extra, "hunt", json_pack("{s:s, s:s, s:{s:s, s:s, s:o}, s:s}",
		"seed", seed, "injector", ftrace_injector_name(seeds[i].inj), "truth", "kind",
		t.kind, "function", t.function, "tracers", tr, "checksum", sum));
	if (a->cause)
		rt_result_set_answer_str(res, "cause", a->cause);
	if (a->function)
		rt_result_set_answer_str(res, "function", a->function);
	if (a->tracer)
		rt_result_set_answer_str(res, "tracer", a->tracer);
	return res;
}

static const struct grade_check *check_of(const struct grade_report *rep, const char *name)
{
	for (size_t i = 0; i < rep->nchecks; i++)
		if (!strcmp(rep->checks[i].name, name))
			return &rep->checks[i];
	fail_msg("no check %s", name);
	return NULL;
}

static void grade(const char *kind, const struct answers *a, struct grade_report *rep)
{
	struct lab_result lr = { .res = build(kind, a) };
	char *text = rt_result_to_string(lr.res, NULL);

	assert_non_null(text);
	free(text);
	memset(rep, 0, sizeof(*rep));
	assert_int_equal(ftrace_grade(&lr, rep), 0);
	lab_result_fini(&lr);
}

/* No accepted function of @kind in @msg: a rejection never gives the answer away. */
static void assert_no_answer(const char *kind, const char *msg)
{
	size_t n;
	const struct ftrace_hunt_sight *s = ftrace_hunt_sights(&n);

	for (size_t i = 0; i < n; i++) {
		if (strcmp(s[i].kind, kind))
			continue;
		for (const char *const *f = s[i].functions; *f; f++)
			if (strstr(msg, *f))
				fail_msg("a rejection for %s names %s: %s", kind, *f, msg);
	}
}

/* ---- The table ---------------------------------------------------------------------- */

static const struct {
	const char *kind;
	bool tracer;		/* a tracer answer, else a function */
	const char *answer;
	bool ok;
} answers[] = {
	{ "fifo_kthread", false, " => rtlab_inject_spin_thread", true },
	{ "fifo_kthread", false, "rtlab_inject_busy+0x1c/0x27", true },
	{ "irqsoff", false, "<-rtlab_inject_irqsoff_section", true },
	{ "preemptoff", false, "RTLAB_INJECT_BUSY()", true },
	{ "softirq", false, "rtlab_inject_busy [rtlab_inject]", true },
	{ "softirq", false, "rtlab_inject_write", false },
	{ "irqsoff", false, "rtlab_inject_preemptoff_section", false },
	{ "irqsoff", false, "", false },
	{ NULL, false, "rtlab_inject_busy", false },
	{ "fifo_kthread", true, "irqsoff tracer", true },
	{ "preemptoff", true, "Event Mode", true },
	{ "irqsoff", true, "wakeup-rt", true },
	{ "fifo_kthread", true, "wakeup_rt", false },
	{ "softirq", true, "preemptoff", false },
	{ "irqsoff", true, "events", false },
};

static void test_table(void **state)
{
	struct ftrace_hunt_cause causes[16];
	size_t n, nc = ftrace_hunt_causes(causes, 16);
	const struct ftrace_hunt_sight *s = ftrace_hunt_sights(&n);

	(void)state;
	assert_true(n > 0);
	/* Every row is a cause the hunt plants, and every cause has a tracer and a function. */
	for (size_t i = 0; i < n; i++) {
		bool known = false;

		for (size_t c = 0; c < nc; c++)
			known |= !strcmp(causes[c].kind, s[i].kind);
		assert_true(known);
		assert_non_null(s[i].where);
	}
	for (size_t c = 0; c < nc; c++) {
		bool tracer = false, function = false;

		for (size_t i = 0; i < n; i++) {
			if (strcmp(s[i].kind, causes[c].kind))
				continue;
			tracer |= s[i].tracer != NULL;
			function |= s[i].functions[0] != NULL;
		}
		assert_true(tracer && function);
	}
	/* The truth's own function is always accepted, for every seed. */
	for (uint64_t seed = 0; seed < 64; seed++) {
		for (int inj = 0; inj < 2; inj++) {
			struct ftrace_hunt_truth t;

			ftrace_hunt_pick(seed, (enum ftrace_injector)inj, &t);
			assert_true(ftrace_hunt_function_ok(t.kind, t.function));
		}
	}
	/* Functions copied the way a trace prints them; tracers as a learner writes them. */
	for (size_t i = 0; i < sizeof(answers) / sizeof(answers[0]); i++) {
		bool ok = answers[i].tracer ? ftrace_hunt_tracer_ok(answers[i].kind, answers[i].answer) :
			  ftrace_hunt_function_ok(answers[i].kind, answers[i].answer);

		if (ok != answers[i].ok)
			fail_msg("%s %s \"%s\": %s", answers[i].kind, answers[i].tracer ? "tracer" :
				 "function", answers[i].answer, ok ? "accepted" : "rejected");
	}
}

/* ---- The captured traces ---------------------------------------------------------- */

/* The planted functions @text names ("rtlab_inject_*" and "trace_hog_*", not a "comm-pid"). */
static size_t planted_names(const char *text, char names[][64], size_t max)
{
	size_t n = 0;

	for (const char *p = text; *p; p++) {
		size_t len = 0;
		bool seen = false;

		if ((p != text && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) ||
		    (strncmp(p, "rtlab_inject_", 13) && strncmp(p, "trace_hog_", 10)))
			continue;
		while (isalnum((unsigned char)p[len]) || p[len] == '_')
			len++;
		if (p[len] == '-' && isdigit((unsigned char)p[len + 1]))
			continue;	/* a task: comm-pid */
		for (size_t i = 0; i < n && !seen; i++)
			seen = strlen(names[i]) == len && !strncmp(names[i], p, len);
		if (!seen && n < max && len < 64) {
			memcpy(names[n], p, len);
			names[n++][len] = '\0';
		}
		p += len - 1;
	}
	return n;
}

static bool is_writer(const char *kind, const char *name)
{
	return !strcmp(name, "rtlab_inject_write") &&
	       (!strcmp(kind, "softirq") || !strcmp(kind, "fifo_kthread"));
}

/* One MANIFEST line's checks; returns how many planted names it had. */
static size_t check_fixture(const char *file, const char *kind, const char *tracer,
			    const char *class)
{
	char names[16][64];
	size_t len, n, accepted = 0;
	char *text = fixture(file, &len);
	struct grade_report rep;

	n = planted_names(text, names, 16);
	for (size_t i = 0; i < n; i++) {
		bool ok = ftrace_hunt_function_ok(kind, names[i]);

		if (is_writer(kind, names[i]) ? ok : !ok)
			fail_msg("%s: %s is %s for %s", file, names[i], ok ? "accepted" :
				 "rejected", kind);
		accepted += ok;
	}
	if (!strcmp(class, "names")) {
		if (!accepted)
			fail_msg("%s names no function of %s", file, kind);
		if (!ftrace_hunt_tracer_ok(kind, tracer))
			fail_msg("%s: tracer %s rejected for %s", file, tracer, kind);
	} else if (!strcmp(class, "task")) {
		assert_non_null(strstr(text, "task: rtlab_inject_sp-"));
		assert_int_equal(accepted, 0);
		assert_true(ftrace_hunt_tracer_ok(kind, tracer));
	} else if (!strcmp(class, "writer")) {
		struct answers a = { kind, "rtlab_inject_write", tracer };

		assert_int_equal(n, 1);
		assert_false(ftrace_hunt_tracer_ok(kind, tracer));
		grade(kind, &a, &rep);
		assert_false(check_of(&rep, "function")->passed);
		assert_non_null(strstr(check_of(&rep, "function")->detail, "entry point"));
		assert_false(check_of(&rep, "tracer")->passed);
		assert_no_answer(kind, check_of(&rep, "function")->detail);
		assert_no_answer(kind, check_of(&rep, "tracer")->detail);
		grade_report_fini(&rep);
	} else {
		struct trace_latency *t = NULL;
		struct trace_emu_verdict v;
		struct answers a = { kind, NULL, tracer };

		assert_string_equal(class, "emulator");
		assert_int_equal(accepted, 0);
		assert_int_equal(trace_latency_parse(text, len, file, &t, NULL), 0);
		trace_emu_judge(t, TRACE_EMU_TCG, &v);
		if (!v.likely)
			fail_msg("%s: not judged the emulator's", file);
		/* A learner who answers where that section was: told why not, and what then. */
		a.function = v.where;
		grade(kind, &a, &rep);
		assert_false(check_of(&rep, "function")->passed);
		assert_non_null(strstr(check_of(&rep, "function")->detail, "emulator"));
		assert_non_null(strstr(check_of(&rep, "function")->detail, "Accepted:"));
		assert_no_answer(kind, check_of(&rep, "function")->detail);
		assert_no_answer(kind, check_of(&rep, "tracer")->detail);
		grade_report_fini(&rep);
		trace_latency_free(t);
	}
	free(text);
	return n;
}

static void test_fixtures(void **state)
{
	size_t len, lines = 0, per_kind[sizeof(seeds) / sizeof(seeds[0])] = { 0 };
	char *text = fixture("MANIFEST", &len), *save = NULL;

	(void)state;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char file[128], kind[32], tracer[32], class[16], how[16];

		if (l[0] == '#')
			continue;
		assert_int_equal(sscanf(l, "%127s %31s %31s %15s %15s", file, kind, tracer, class,
					how), 5);
		check_fixture(file, kind, tracer, class);
		for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++)
			per_kind[i] += !strcmp(seeds[i].kind, kind);
		lines++;
	}
	free(text);
	assert_true(lines >= 30);
	/* Every cause has captured traces. */
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++)
		if (!per_kind[i])
			fail_msg("no captured trace of %s", seeds[i].kind);
}

/* ---- Whole documents, answered as a learner copies from the trace ----------------- */

static void pass(const char *kind, const char *function, const char *tracer)
{
	struct answers a = { kind, function, tracer };
	struct grade_report rep;

	grade(kind, &a, &rep);
	for (size_t i = 0; i < rep.nchecks; i++)
		if (!rep.checks[i].passed)
			fail_msg("%s, %s, %s: %s failed: %s", kind, function, tracer,
				 rep.checks[i].name, rep.checks[i].detail);
	grade_report_fini(&rep);
}

static void test_learner_answers(void **state)
{
	(void)state;
	/* The learner: the irqsoff tracer's stack over the FIFO thread. */
	pass("fifo_kthread", "rtlab_inject_spin_thread", "irqsoff");
	pass("fifo_kthread", "rtlab_inject_busy", "irqsoff");
	pass("fifo_kthread", " => rtlab_inject_busy", "preemptirqsoff");
	pass("fifo_kthread", "rtlab_inject_fifo_spin_section", "events");
	pass("fifo_kthread", "rtlab_inject_spin_thread", "preemptoff");
	pass("irqsoff", "rtlab_inject_irqsoff_section", "irqsoff tracer");
	pass("irqsoff", "rtlab_inject_write", "preemptoff");
	pass("irqsoff", "rtlab_inject_busy()", "function_graph");
	pass("preemptoff", "rtlab_inject_preemptoff_section+0x13/0x34", "wakeup");
	pass("preemptoff", "rtlab_inject_busy", "Events");
	pass("softirq", "rtlab_inject_softirq_section", "irqsoff");
	pass("softirq", "rtlab_inject_busy", "function");
	pass("fifo_spin", "trace_hog_fifo_spin", "event mode");
	pass("fault_storm", "trace_hog_fault_storm()", "events");
	pass("syscall_burst", "trace_hog_syscall_burst", "events");
}

/* Wrong answers: each says why and what is accepted, and never names an accepted function. */
static void reject_as(const char *kind, const char *cause, const char *function,
		      const char *tracer, const char *check, const char *why)
{
	struct answers a = { cause, function, tracer };
	struct grade_report rep;
	const struct grade_check *c;

	grade(kind, &a, &rep);
	c = check_of(&rep, check);
	if (c->passed)
		fail_msg("%s, %s, %s: %s passed", kind, function, tracer, check);
	if (!strstr(c->detail, why))
		fail_msg("%s: \"%s\" does not say \"%s\"", check, c->detail, why);
	assert_no_answer(kind, c->detail);
	grade_report_fini(&rep);
}

static void reject(const char *kind, const char *function, const char *tracer,
		   const char *check, const char *why)
{
	reject_as(kind, kind, function, tracer, check, why);
}

static void test_rejections(void **state)
{
	(void)state;
	reject("irqsoff", "rtlab_inject_preemptoff_section", "irqsoff", "function",
	       "another cause");
	reject("irqsoff", "irqentry_enter", "irqsoff", "function", "interrupt entry and exit");
	reject("irqsoff", "__traceiter_sched_switch", "wakeup_rt", "function", "tracepoint");
	reject("irqsoff", "trace_hog_fifo_spin", "irqsoff", "function", "other injector");
	reject("fifo_kthread", "rtlab_inject_spin", "irqsoff", "function", "task's name");
	reject("fifo_kthread", "rtlab_inject_write", "irqsoff", "function", "entry point");
	reject("fifo_kthread", "kthread", "irqsoff", "function", "innermost rtlab_ function");
	reject("softirq", "main", "irqsoff", "function", "not a function of the planted code");
	reject("fifo_spin", "rtlab_inject_busy", "events", "function", "perf top");
	reject("fifo_spin", "rtlab_inject_write", "events", "function", "other injector");
	reject("fifo_spin", "main", "events", "function", "No kernel tracer");
	reject("fifo_kthread", "rtlab_inject_busy", "wakeup_rt", "tracer",
	       "the longest time from waking a real-time task");
	reject("irqsoff", "rtlab_inject_busy", "events", "tracer", "sched_waking");
	reject("softirq", "rtlab_inject_busy", "preemptoff", "tracer", "Accepted:");
	reject("softirq", "rtlab_inject_busy", "ftrace", "tracer", "no tracer rtlab knows");
	reject("fault_storm", "trace_hog_fault_storm", "wakeup", "tracer", "measured runs");
	reject_as("preemptoff", "irqsoff", "rtlab_inject_busy", "irqsoff", "cause",
		  "interrupts off");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_learner_answers),
		cmocka_unit_test(test_rejections),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
