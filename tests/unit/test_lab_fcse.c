/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the FCSE lab (rtlab/labs/lab_fcse.c): its options, a run
 * of each mode into an rtlab.result/2 document labelled as a simulation
 * with the summary keys the issue asks for, its views, its grade, a run
 * over a trace file, and the loader of trace files (lab_fcse_trace.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/rt_env.h"
#include "core/rt_result.h"
#include "labs/lab.h"
#include "labs/lab_fcse.h"

static int parse(struct lab_args *a, char **cause, int argc, ...)
{
	char *argv[16] = { "fcse" };
	va_list ap;

	va_start(ap, argc);
	for (int i = 0; i < argc; i++)
		argv[i + 1] = va_arg(ap, char *);
	va_end(ap);
	return lab_args_parse(lab_find("fcse"), argc + 1, argv, a, cause);
}

static void test_options(void **state)
{
	const struct lab_ops *lab = lab_find("fcse");
	struct lab_args a;
	struct fcse_params *p;
	char *cause = NULL;

	(void)state;
	assert_non_null(lab);
	assert_int_equal(lab->state, LAB_STATE_READY);
	assert_true(lab->sim_only);
	assert_int_equal(lab_opts_table_check(lab, &cause), 0);
	assert_int_equal(parse(&a, &cause, 0), 0);
	p = a.params;
	assert_int_equal(p->modes, 7);
	assert_int_equal(p->workload, 0);
	assert_int_equal(p->ticks, 200);
	assert_true(p->tlb_flush);
	lab_args_fini(lab, &a);

	assert_int_equal(parse(&a, &cause, 6, "--mode", "guaranteed,flush", "--workload", "thrash",
			       "--no-tlb-flush", "--write-allocate"), 0);
	p = a.params;
	assert_int_equal(p->modes, 3);
	assert_int_equal(p->workload, 2);
	assert_false(p->tlb_flush);
	assert_true(p->write_allocate);
	lab_args_fini(lab, &a);

	/* --trace alone selects the trace workload; a trace workload needs a trace. */
	assert_int_equal(parse(&a, &cause, 2, "--trace", "x.din"), 0);
	assert_int_equal(((struct fcse_params *)a.params)->workload, FCSE_WORKLOAD_TRACE);
	lab_args_fini(lab, &a);
	assert_int_equal(parse(&a, &cause, 2, "--workload", "trace"), -EINVAL);
	assert_non_null(strstr(cause, "--trace FILE"));
	free(cause);
	cause = NULL;
	lab_args_fini(lab, &a);
	assert_int_equal(parse(&a, &cause, 2, "--mode", "fast"), -EINVAL);
	assert_non_null(strstr(cause, "no mode called 'fast'"));
	free(cause);
	cause = NULL;
	lab_args_fini(lab, &a);
	assert_int_equal(parse(&a, &cause, 4, "--trace", "a", "--workload", "small"), -EINVAL);
	free(cause);
	lab_args_fini(lab, &a);
}

static struct rt_result *run(struct fcse_params *p, uint64_t seed)
{
	struct rt_env env = { 0 };
	struct lab_ctx ctx = { .tier = "simulation", .env = &env, .params = p, .seed = seed };
	struct lab_result r = { 0 };
	const struct lab_ops *lab = lab_find("fcse");

	assert_int_equal(lab->run(&ctx, NULL, &r), 0);
	assert_non_null(r.res);
	assert_false(r.interrupted);
	return r.res;
}

static double summary(const struct rt_result *res, const char *key)
{
	json_t *v = json_object_get(json_object_get(rt_result_json(res), "summary"), key);

	if (!json_is_number(v))
		fail_msg("summary.%s missing", key);
	return json_number_value(v);
}

static void test_run_all_modes(void **state)
{
	static const char *const keys[] = {
		"switch_avg_us", "switch_max_us", "flushes_count", "refused_count", "i_miss_ratio",
		"d_miss_ratio", "tlb_miss_ratio", "latency_avg_us", "latency_max_us",
		"guaranteed_vs_flush_ratio", "best_effort_vs_flush_ratio",
		"guaranteed_latency_avg_us", NULL,
	};
	struct fcse_params p;
	struct rt_result *res;
	const struct lab_ops *lab = lab_find("fcse");
	struct lab_result lr = { 0 };
	struct grade_report rep = { 0 };
	json_t *views = json_array(), *j;
	char *cause = NULL;

	(void)state;
	fcse_params_init(&p);
	p.ticks = 30;
	res = run(&p, 5);
	j = rt_result_json(res);
	assert_string_equal(json_string_value(json_object_get(j, "tier")), "simulation");
	assert_true(json_is_true(json_object_get(j, "simulated")));
	for (int i = 0; keys[i]; i++)
		summary(res, keys[i]);
	/* The plain keys are the flush mode's, the first simulated. */
	assert_true(summary(res, "latency_avg_us") == summary(res, "flush_latency_avg_us"));
	assert_true(summary(res, "guaranteed_vs_flush_ratio") < 0.6);
	assert_true(summary(res, "best_effort_vs_flush_ratio") < 0.95);
	assert_true(summary(res, "best_effort_vs_flush_ratio") >
		    summary(res, "guaranteed_vs_flush_ratio"));
	assert_int_equal(json_array_size(rt_result_scenarios(res)), 3);
	assert_true(rt_result_scenario_num(res, "mixed-guaranteed", "refused_count") == 1);
	assert_true(rt_result_scenario_num(res, "mixed-guaranteed", "flushes_count") == 0);
	assert_true(rt_result_scenario_num(res, "mixed-best-effort", "latency_avg_us") > 0);
	assert_int_equal(rt_result_hist_count(res), 3);

	assert_int_equal(lab->views(res, views, &cause), 0);
	assert_int_equal(json_array_size(views), 4);	/* modes, processes, flushes, paper */
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(views, 0),
								   "title")), "SIMULATED"));
	assert_string_equal(json_string_value(json_object_get(json_array_get(views, 2), "name")),
			    "flushes");
	json_decref(views);

	/* Two of five checks before the answers: the modes ran, the rules held. */
	lr.res = res;
	assert_int_equal(lab->grade(&lr, &rep), 0);
	assert_int_equal(rep.nchecks, 5);
	assert_int_equal(rep.npassed, 3);
	grade_report_fini(&rep);
	rt_result_free(res);
}

static void test_run_one_mode_same_seed(void **state)
{
	struct fcse_params p;
	struct rt_result *a, *b;

	(void)state;
	fcse_params_init(&p);
	p.ticks = 20;
	p.modes = 1u << SIM_FCSE_MODE_GUARANTEED;
	p.workload = 3;	/* many */
	a = run(&p, 9);
	b = run(&p, 9);
	assert_true(summary(a, "refused_count") == 26);
	assert_true(summary(a, "latency_avg_us") == summary(b, "latency_avg_us"));
	assert_true(summary(a, "d_miss_ratio") == summary(b, "d_miss_ratio"));
	assert_null(json_object_get(json_object_get(rt_result_json(a), "summary"),
				    "guaranteed_vs_flush_ratio"));
	rt_result_free(a);
	rt_result_free(b);
}

static void test_trace_file(void **state)
{
	char path[] = "/tmp/test-lab-fcse-XXXXXX";
	static const char din[] = "2 8000\n0 100000\n1 100020\n2 8004\n2 8008\n";
	struct fcse_trace_file f;
	struct fcse_params p;
	struct rt_result *res;
	char *cause = NULL;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, din, sizeof(din) - 1), (ssize_t)(sizeof(din) - 1));
	close(fd);
	assert_int_equal(fcse_trace_file_load(path, &f, &cause), 0);
	assert_int_equal(f.fmt, SIM_FCSE_TRACE_DIN);
	assert_int_equal(f.t.n, 5);
	fcse_trace_file_fini(&f);

	fcse_params_init(&p);
	p.ticks = 10;
	p.modes = 1;
	p.workload = FCSE_WORKLOAD_TRACE;
	p.traces[0] = path;
	p.ntraces = 1;
	res = run(&p, 1);
	assert_non_null(rt_result_scenario(res, "trace-flush"));
	rt_result_free(res);
	unlink(path);

	assert_int_equal(fcse_trace_file_load("/nonexistent/trace", &f, &cause), -ENOENT);
	assert_non_null(strstr(cause, "/nonexistent/trace"));
	free(cause);
	fcse_trace_file_fini(&f);
}

static void test_scenarios(void **state)
{
	const struct lab_ops *lab = lab_find("fcse");
	struct lab_scenario sc;
	size_t n = 0;

	(void)state;
	while (lab->scenario(n, &sc)) {
		assert_non_null(sc.summary);
		n++;
	}
	/* the model's twelve presets, then each of them live on the kernel */
	assert_int_equal(n, 24);
	assert_true(lab->scenario(1, &sc));
	assert_string_equal(sc.name, "mixed-guaranteed");
	for (size_t i = 0; i < 12; i++) {
		struct lab_scenario live;
		char want[64];

		assert_true(lab->scenario(i, &sc));
		assert_true(lab->scenario(12 + i, &live));
		snprintf(want, sizeof(want), "live-%s", sc.name);
		assert_string_equal(live.name, want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_run_all_modes),
		cmocka_unit_test(test_run_one_mode_same_seed),
		cmocka_unit_test(test_trace_file),
		cmocka_unit_test(test_scenarios),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
