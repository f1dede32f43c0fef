/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_lab_ftrace: the ftrace lab's pure parts: option parsing, the hunt's
 * seeded choice, checksum and list of causes, what tracer mode can run from
 * the tracers a probe found, the rtla parser (trace-cmd report is read by
 * the matcher: test_trace_events_text), and the grade on hand-built
 * documents (each check made to pass and to fail).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_env.h"
#include "core/rt_result.h"
#include "labs/lab.h"
#include "labs/lab_ftrace.h"
#include "labs/lab_ftrace_doc.h"

/* ---- Options ----------------------------------------------------------------------- */

/* What the last parse() said of --seed. */
static uint64_t parsed_seed;
static bool parsed_seed_given;

static int parse(struct ftrace_params *p, char **cause, ...)
{
	char *argv[32] = { "ftrace" };
	int argc = 1;
	va_list ap;
	char *a;

	va_start(ap, cause);
	while ((a = va_arg(ap, char *)) && argc < 31)
		argv[argc++] = a;
	va_end(ap);
	parsed_seed = 0;
	return ftrace_params_parse(argc, argv, p, &parsed_seed, &parsed_seed_given, cause);
}

static void test_params_defaults(void **state)
{
	struct ftrace_params p;
	char *cause = NULL;

	(void)state;
	assert_int_equal(parse(&p, &cause, NULL), 0);
	assert_int_equal(p.mode, FTRACE_MODE_EVENTS);
	assert_int_equal(p.duration_ms, FTRACE_DEFAULT_DURATION_MS);
	assert_false(p.hunt);
	assert_true(p.cross_check);
	assert_true(p.function_trace);
	assert_true(p.busy);
}

static void test_params_good(void **state)
{
	struct ftrace_params p;
	char *cause = NULL;

	(void)state;
	assert_int_equal(parse(&p, &cause, "--tracer", "wakeup_rt", "--threshold=150",
			       "--hunt", "--seed", "18446744073709551615", "--duration", "3s",
			       "--no-cross-check", "--no-function-trace", "--no-busy", NULL), 0);
	assert_int_equal(p.mode, FTRACE_MODE_TRACER);	/* --tracer implies it */
	assert_string_equal(p.tracer, "wakeup_rt");
	assert_int_equal(p.threshold_us, 150);
	assert_true(p.hunt && parsed_seed_given);
	assert_true(parsed_seed == UINT64_MAX);
	assert_int_equal(p.duration_ms, 3000);
	assert_false(p.cross_check);
	assert_false(p.function_trace);
	assert_false(p.busy);
	assert_int_equal(parse(&p, &cause, "--mode=tracer", NULL), 0);
	assert_int_equal(p.mode, FTRACE_MODE_TRACER);
	assert_string_equal(p.tracer, "");
	/* --seed is every lab's now: no --hunt needed. */
	assert_int_equal(parse(&p, &cause, "--seed", "7", NULL), 0);
	assert_true(parsed_seed_given && parsed_seed == 7 && !p.hunt);
	assert_int_equal(parse(&p, &cause, NULL), 0);
	assert_false(parsed_seed_given);
	assert_true(parsed_seed == 0);	/* left as it was */
}

static void test_params_bad(void **state)
{
	static const char *const bad[][4] = {
		{ "--mode", "both" }, { "--tracer", "function" }, { "--tracer", "nop" },
		{ "--threshold", "-1" }, { "--threshold", "10000001" }, { "--seed", "-7" },
		{ "--hunt", "--seed", "x" }, { "--duration", "0s" }, { "--duration", "11m" },
		{ "--bogus" }, { "--hunt=1" }, { "--no-busy=0" }, { "--duration" }, { "stray" },
		{ "--mode", "events", "--tracer", "irqsoff" },
	};
	struct ftrace_params p;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[6] = { "ftrace" }, *cause = NULL;
		int argc = 1;

		for (size_t k = 0; k < 4 && bad[i][k]; k++)
			argv[argc++] = (char *)bad[i][k];
		assert_int_equal(ftrace_params_parse(argc, argv, &p, &parsed_seed, &parsed_seed_given, &cause), -EINVAL);
		assert_non_null(cause);
		free(cause);
	}
}

/* ---- The hunt ---------------------------------------------------------------------- */

static void test_hunt_deterministic(void **state)
{
	bool seen_user[3] = { false }, seen_mod[4] = { false };

	(void)state;
	for (uint64_t seed = 0; seed < 200; seed++) {
		struct ftrace_hunt_truth a, b;
		char s1[24], s2[24];

		ftrace_hunt_pick(seed, FTRACE_INJ_USER, &a);
		ftrace_hunt_pick(seed, FTRACE_INJ_USER, &b);
		assert_memory_equal(&a, &b, sizeof(a));
		assert_int_equal(a.injector, FTRACE_INJ_USER);
		assert_null(a.inject_file);
		assert_true(a.hog_kind >= 0 && a.hog_kind < 3);
		assert_true(a.burst_us >= 500 && a.burst_us <= 2000);
		assert_true(a.period_us >= 10 * a.burst_us);
		seen_user[a.hog_kind] = true;
		ftrace_hunt_checksum(seed, &a, s1, sizeof(s1));
		ftrace_hunt_checksum(seed, &b, s2, sizeof(s2));
		assert_string_equal(s1, s2);
		assert_int_equal(strlen(s1), 16);
		ftrace_hunt_checksum(seed + 1, &a, s2, sizeof(s2));
		assert_string_not_equal(s1, s2);

		ftrace_hunt_pick(seed, FTRACE_INJ_MODULE, &a);
		assert_non_null(a.inject_file);
		assert_true(a.burst_us >= 300 && a.burst_us <= 1000);
		assert_true(a.period_us >= 100000);	/* the module allows 10 a second */
		assert_non_null(strstr(a.function, "rtlab_inject_"));
		for (int k = 0; k < 4; k++) {
			static const char *const files[] = { "irqsoff_us", "preemptoff_us",
							     "softirq_us", "fifo_spin_us" };

			if (!strcmp(a.inject_file, files[k]))
				seen_mod[k] = true;
		}
	}
	for (int k = 0; k < 3; k++)
		assert_true(seen_user[k]);
	for (int k = 0; k < 4; k++)
		assert_true(seen_mod[k]);
	assert_int_equal(ftrace_injector_from_name("module"), FTRACE_INJ_MODULE);
	assert_int_equal(ftrace_injector_from_name("user"), FTRACE_INJ_USER);
	assert_int_equal(ftrace_injector_from_name("kernel"), -1);
}

/*
 * The list of causes is exactly what the seeds plant: every cause a thousand
 * seeds pick is listed under its injector, and every listed one is picked.
 */
static void test_hunt_causes(void **state)
{
	struct ftrace_hunt_cause c[16];
	bool picked[16] = { false };
	size_t n;

	(void)state;
	n = ftrace_hunt_causes(c, 16);
	assert_int_equal(n, 7);		/* three user-space hogs, four module sections */
	for (size_t i = 0; i < n; i++) {
		/* The hog's first, then the module's, each by name. */
		if (i > 0 && c[i].injector == c[i - 1].injector)
			assert_true(strcmp(c[i - 1].kind, c[i].kind) < 0);
		if (i > 0)
			assert_false(c[i - 1].injector == FTRACE_INJ_MODULE &&
				     c[i].injector == FTRACE_INJ_USER);
	}
	assert_int_equal(c[0].injector, FTRACE_INJ_USER);
	assert_string_equal(c[0].kind, "fault_storm");
	assert_int_equal(c[n - 1].injector, FTRACE_INJ_MODULE);
	for (int inj = 0; inj < 2; inj++) {
		for (uint64_t seed = 0; seed < 1024; seed++) {
			struct ftrace_hunt_truth t;
			size_t i;

			ftrace_hunt_pick(seed, (enum ftrace_injector)inj, &t);
			for (i = 0; i < n; i++)
				if (!strcmp(c[i].kind, t.kind))
					break;
			assert_true(i < n);
			assert_int_equal(c[i].injector, t.injector);
			picked[i] = true;
		}
	}
	for (size_t i = 0; i < n; i++)
		assert_true(picked[i]);
	/* A short array gets the first ones; the count is still all of them. */
	memset(c, 0, sizeof(c));
	assert_int_equal(ftrace_hunt_causes(c, 2), 7);
	assert_non_null(c[1].kind);
	assert_null(c[2].kind);
	assert_int_equal(ftrace_hunt_causes(NULL, 0), 7);
}

/* What tracer mode can run, from the names a probe read in available_tracers. */
static void test_offer(void **state)
{
	char *avail[] = { "blk", "wakeup_rt", "function", "nop", "preemptoff" };
	struct ftrace_offer o;

	(void)state;
	ftrace_offer_fill(&o, true, avail, 5);
	assert_true(o.known);
	assert_int_equal(o.ntracers, FTRACE_NLAT_TRACERS);
	for (unsigned int i = 0; i < o.ntracers; i++) {
		assert_true(ftrace_is_latency_tracer(o.tracers[i].name));
		assert_non_null(strstr(o.tracers[i].config, "CONFIG_"));
		assert_int_equal(o.tracers[i].present, !strcmp(o.tracers[i].name, "wakeup_rt") ||
				 !strcmp(o.tracers[i].name, "preemptoff"));
	}
	assert_string_equal(o.tracers[0].name, "irqsoff");
	assert_string_equal(o.tracers[1].name, "preemptoff");
	assert_int_equal(ftrace_offer_first(&o), 1);

	/* No latency tracer: tracer mode cannot run; the kernel options are still there. */
	ftrace_offer_fill(&o, true, avail, 1);
	assert_int_equal(ftrace_offer_first(&o), -1);
	assert_string_equal(o.tracers[0].config, "CONFIG_IRQSOFF_TRACER");

	/* Unreadable: every tracer listed, none present, whatever the list says. */
	ftrace_offer_fill(&o, false, avail, 5);
	assert_false(o.known);
	assert_int_equal(o.ntracers, FTRACE_NLAT_TRACERS);
	assert_int_equal(ftrace_offer_first(&o), -1);
	ftrace_offer_fill(&o, true, NULL, 0);
	assert_true(o.known);
	assert_int_equal(ftrace_offer_first(&o), -1);
}

/* ---- Cross-check parsers ------------------------------------------------------------ */

static void test_rtla_parse(void **state)
{
	const char *out =
		"# RTLA timerlat histogram\n# Time unit is microseconds (us)\n"
		"Index   IRQ-000   Thr-000   IRQ-001   Thr-001\n"
		"2             5         0         3         0\n"
		"over:         0         0         0         0\n"
		"count:     1000      1000      3000      3000\n"
		"min:          1         3         1         2\n"
		"avg:          2         4         2         8\n"
		"max:          9        40        11        25\n"
		"ALL:        IRQ       Thr       Usr\n"
		"max:         11       999         -\n";
	struct ftrace_rtla_stats st;

	(void)state;
	assert_int_equal(ftrace_rtla_parse(out, &st), 0);
	assert_int_equal(st.ncpus, 2);
	assert_int_equal(st.count, 4000);
	assert_int_equal(st.max_us, 40);	/* not the ALL section's */
	assert_true(st.avg_us > 6.99 && st.avg_us < 7.01);
	assert_int_equal(ftrace_rtla_parse("Tracer timerlat not found!\n", &st), -EINVAL);
	/* A row printed twice replaces, never adds (found by fuzz_ftrace_xc). */
	assert_int_equal(ftrace_rtla_parse("Index Thr-000\ncount: 10\ncount: 10\navg: 3\n"
					   "max: 9\n", &st), 0);
	assert_int_equal(st.ncpus, 1);
	assert_int_equal(st.count, 10);
	/* A column without its max does not count; an average above the max is refused. */
	assert_int_equal(ftrace_rtla_parse("Index Thr-000 Thr-001\ncount: 10 5\navg: 3 4\n"
					   "max: 9 !\n", &st), 0);
	assert_int_equal(st.ncpus, 1);
	assert_int_equal(st.count, 10);
	assert_int_equal(ftrace_rtla_parse("Index Thr-000\ncount: 10\navg: 30\nmax: 9\n", &st),
			 -EINVAL);
	assert_int_equal(ftrace_rtla_parse("Index Thr-000\ncount: nan\navg: 3\nmax: 9\n", &st),
			 -EINVAL);
	assert_int_equal(ftrace_rtla_parse("", &st), -EINVAL);
}

/* ---- Grading ------------------------------------------------------------------------ */

struct gdoc {
	const char *tier;
	long probe;
	long matched;
	bool agreement;
	bool interrupted;
	bool hunt;
	uint64_t seed;
	const char *tamper;		/* "kind", "checksum" or NULL */
	const char *cause, *function, *tracer;
};

static struct rt_result *build(const struct gdoc *g)
{
	struct rt_env env = { .kernel_release = "6.1.0", .kernel_version = "#1 SMP",
			      .machine = "x86_64", .preempt_model = "full",
			      .preempt_source = "test", .cpus = 2 };
	struct rt_result *res = rt_result_new("ftrace", g->tier, &env);
	json_t *extra = rt_result_extra(res);

	assert_non_null(extra);
	assert_int_equal(rt_result_set_param_bool(res, "hunt", g->hunt), 0);
	json_object_set_new(extra, "events", json_pack("{s:I}", "matched_count",
						       (json_int_t)g->matched));
	json_object_set_new(extra, "probe", json_pack("{s:I}", "count", (json_int_t)g->probe));
	if (g->agreement)
		json_object_set_new(extra, "agreement", json_pack("{s:f, s:{s:f}}", "count_ratio",
								  0.98, "p50", "diff_us", 40.0));
	json_object_set_new(extra, "interrupted", json_boolean(g->interrupted));
	if (g->hunt) {
		struct ftrace_hunt_truth t;
		char sum[24], seed[24];
		json_t *tr = json_array();

		ftrace_hunt_pick(g->seed, FTRACE_INJ_USER, &t);
		for (const char *const *x = t.tracers; *x; x++)
			json_array_append_new(tr, json_string(*x));
		ftrace_hunt_checksum(g->seed, &t, sum, sizeof(sum));
		snprintf(seed, sizeof(seed), "%llu", (unsigned long long)g->seed);
		if (g->tamper && !strcmp(g->tamper, "checksum"))
			sum[0] = sum[0] == '0' ? '1' : '0';
		json_object_set_new(extra, "hunt", json_pack("{s:s, s:s, s:{s:s, s:s, s:o}, s:s}",
			"seed", seed, "injector", "user", "truth", "kind",
			g->tamper && !strcmp(g->tamper, "kind") ? "irqsoff" : t.kind,
			"function", t.function, "tracers", tr, "checksum", sum));
	}
	if (g->cause)
		rt_result_set_answer_str(res, "cause", g->cause);
	if (g->function)
		rt_result_set_answer_str(res, "function", g->function);
	if (g->tracer)
		rt_result_set_answer_str(res, "tracer", g->tracer);
	return res;
}

static const struct grade_check *find_check(const struct grade_report *rep, const char *name)
{
	for (size_t i = 0; i < rep->nchecks; i++)
		if (!strcmp(rep->checks[i].name, name))
			return &rep->checks[i];
	fail_msg("no check %s", name);
	return NULL;
}

static void grade(const struct gdoc *g, struct grade_report *rep)
{
	struct lab_result lr = { .res = build(g) };

	memset(rep, 0, sizeof(*rep));
	assert_int_equal(ftrace_grade(&lr, rep), 0);
	/* It survives a write and a read: the validator accepts the document. */
	{
		char *text = rt_result_to_string(lr.res, NULL);

		assert_non_null(text);
		free(text);
	}
	lab_result_fini(&lr);
}

static struct gdoc good(uint64_t seed)
{
	struct ftrace_hunt_truth t;
	struct gdoc g = { .tier = "host", .probe = 3000, .matched = 60, .agreement = true, .hunt = true,
			  .seed = seed };

	ftrace_hunt_pick(seed, FTRACE_INJ_USER, &t);
	g.cause = t.kind;
	g.function = t.function;
	g.tracer = "events";
	return g;
}

static void test_grade_pass(void **state)
{
	struct grade_report rep;
	struct gdoc g = good(7);
	struct ftrace_hunt_truth t;
	char fn[80];

	(void)state;
	grade(&g, &rep);
	assert_int_equal(rep.nchecks, 7);
	assert_true(grade_report_passed(&rep));
	grade_report_fini(&rep);

	/* Answers are compared loosely: case, dashes, "()", "event mode". */
	ftrace_hunt_pick(7, FTRACE_INJ_USER, &t);
	snprintf(fn, sizeof(fn), " %s() ", t.function);
	g.function = fn;
	g.tracer = "Event Mode";
	g.cause = !strcmp(t.kind, "fifo_spin") ? "FIFO-spin" : !strcmp(t.kind, "fault_storm") ?
		  "fault storm" : "Syscall-Burst";
	grade(&g, &rep);
	assert_true(grade_report_passed(&rep));
	grade_report_fini(&rep);
}

static void test_grade_fail_each(void **state)
{
	struct grade_report rep;
	struct gdoc g;
	struct ftrace_hunt_truth t;

	(void)state;
	ftrace_hunt_pick(11, FTRACE_INJ_USER, &t);

	g = good(11);
	g.tier = "simulation";
	grade(&g, &rep);
	assert_false(find_check(&rep, "run")->passed);
	assert_true(find_check(&rep, "cause")->passed);
	grade_report_fini(&rep);

	g = good(11);
	g.probe = FTRACE_GRADE_MIN_WAKEUPS - 1;
	grade(&g, &rep);
	assert_false(find_check(&rep, "run")->passed);
	grade_report_fini(&rep);

	g = good(11);
	g.matched = 0;
	grade(&g, &rep);
	assert_false(find_check(&rep, "run")->passed);
	grade_report_fini(&rep);

	g = good(11);
	g.agreement = false;
	grade(&g, &rep);
	assert_false(find_check(&rep, "agreement")->passed);
	assert_true(find_check(&rep, "run")->passed);
	grade_report_fini(&rep);

	g = good(11);
	g.interrupted = true;
	grade(&g, &rep);
	assert_false(find_check(&rep, "complete")->passed);
	grade_report_fini(&rep);

	g = good(11);
	g.cause = !strcmp(t.kind, "fifo_spin") ? "fault_storm" : "fifo_spin";
	grade(&g, &rep);
	assert_false(find_check(&rep, "cause")->passed);
	assert_true(find_check(&rep, "function")->passed);
	assert_false(grade_report_passed(&rep));
	grade_report_fini(&rep);

	g = good(11);
	g.function = "main";
	grade(&g, &rep);
	assert_false(find_check(&rep, "function")->passed);
	grade_report_fini(&rep);

	g = good(11);
	g.tracer = "irqsoff";
	grade(&g, &rep);
	assert_false(find_check(&rep, "tracer")->passed);
	grade_report_fini(&rep);

	g = good(11);
	g.cause = NULL;
	grade(&g, &rep);
	assert_false(find_check(&rep, "cause")->passed);
	assert_non_null(strstr(find_check(&rep, "cause")->detail, "lab answer ftrace cause"));
	grade_report_fini(&rep);

	/* No hunt: the diagnosis cannot be right. */
	g = good(11);
	g.hunt = false;
	grade(&g, &rep);
	assert_false(find_check(&rep, "hunt")->passed);
	assert_false(find_check(&rep, "cause")->passed);
	assert_true(find_check(&rep, "run")->passed);
	grade_report_fini(&rep);

	/* An edited truth or checksum is caught. */
	g = good(11);
	g.tamper = "kind";
	g.cause = "irqsoff";
	grade(&g, &rep);
	assert_false(find_check(&rep, "hunt")->passed);
	assert_false(find_check(&rep, "cause")->passed);
	grade_report_fini(&rep);
	g = good(11);
	g.tamper = "checksum";
	grade(&g, &rep);
	assert_false(find_check(&rep, "hunt")->passed);
	grade_report_fini(&rep);
}

static void test_registry(void **state)
{
	const struct lab_ops *l = lab_find("ftrace");
	struct lab_scenario sc;

	(void)state;
	assert_ptr_equal(l, &lab_ftrace);
	assert_int_equal(l->state, LAB_STATE_READY);
	assert_non_null(l->run);
	assert_ptr_equal(l->grade, ftrace_grade);
	assert_string_equal(l->questions[0], "cause");
	assert_string_equal(l->questions[1], "function");
	assert_string_equal(l->questions[2], "tracer");
	assert_string_equal(l->questions[3], "idle-median");
	assert_null(l->questions[4]);
	assert_ptr_equal(l->views, lab_ftrace.views);
	assert_non_null(l->views);
	assert_non_null(l->scenario);
	assert_true(l->scenario(0, &sc));
	assert_string_equal(sc.name, "events");
	assert_false(l->scenario(ftrace_nscenarios, &sc));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params_defaults),
		cmocka_unit_test(test_params_good),
		cmocka_unit_test(test_params_bad),
		cmocka_unit_test(test_hunt_deterministic),
		cmocka_unit_test(test_hunt_causes),
		cmocka_unit_test(test_offer),
		cmocka_unit_test(test_rtla_parse),
		cmocka_unit_test(test_grade_pass),
		cmocka_unit_test(test_grade_fail_each),
		cmocka_unit_test(test_registry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
