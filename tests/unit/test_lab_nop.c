/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the nop lab (rtlab/labs/lab_nop.c): its options (--fault
 * KIND@TIME[:NODE] and its units, the default fault replaced by the first
 * --fault, "none", refusals naming what is wrong, the real medium's
 * limits), the scenario it builds for the model (the lesson's frames
 * repeated, drift only for TDMA, faults sorted), a run's document (the
 * issue's summary keys, the lesson's round, TDMA's under "tdma_"), its
 * views and its grade.
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
#include "labs/lab_nop.h"

static int parse(struct lab_args *a, char **cause, int argc, ...)
{
	char *argv[16] = { "nop" };
	va_list ap;

	va_start(ap, argc);
	for (int i = 0; i < argc; i++)
		argv[i + 1] = va_arg(ap, char *);
	va_end(ap);
	return lab_args_parse(lab_find("nop"), argc + 1, argv, a, cause);
}

static void refused(const char *what, int argc, ...)
{
	char *argv[16] = { "nop" }, *cause = NULL;
	struct lab_args a = { 0 };
	va_list ap;

	va_start(ap, argc);
	for (int i = 0; i < argc; i++)
		argv[i + 1] = va_arg(ap, char *);
	va_end(ap);
	assert_int_equal(lab_args_parse(lab_find("nop"), argc + 1, argv, &a, &cause), -EINVAL);
	if (!cause || !strstr(cause, what))
		fail_msg("cause '%s' does not say '%s'", cause ? cause : "(none)", what);
	free(cause);
	lab_args_fini(lab_find("nop"), &a);
}

static void test_options(void **state)
{
	struct lab_args a = { 0 };
	const struct nop_params *p;
	char *cause = NULL;

	(void)state;
	assert_int_equal(lab_opts_table_check(lab_find("nop"), &cause), 0);
	assert_int_equal(parse(&a, &cause, 0), 0);
	p = a.params;
	assert_int_equal(p->nodes, 4);
	assert_int_equal(p->protocol, NOP_SEL_BOTH);
	assert_int_equal(p->nfaults, 1);	/* the default crash@1ms:1 */
	assert_int_equal(p->faults[0].kind, SIM_NOP_F_CRASH);
	assert_int_equal(p->faults[0].time_ns, 1000000);
	lab_args_fini(lab_find("nop"), &a);

	assert_int_equal(parse(&a, &cause, 6, "--fault", "babble@250us:2", "--fault", "late@2.5ms",
			       "--fault", "skip@1s:3"), 0);
	p = a.params;
	assert_int_equal(p->nfaults, 3);
	assert_int_equal(p->faults[0].kind, SIM_NOP_F_BABBLE);
	assert_int_equal(p->faults[0].time_ns, 250000);
	assert_int_equal(p->faults[0].node, 2);
	assert_int_equal(p->faults[1].time_ns, 2500000);
	assert_int_equal(p->faults[1].node, 1);	/* the default node */
	assert_int_equal(p->faults[2].time_ns, 1000000000);
	lab_args_fini(lab_find("nop"), &a);

	assert_int_equal(parse(&a, &cause, 2, "--fault", "none"), 0);
	assert_int_equal(((const struct nop_params *)a.params)->nfaults, 0);
	lab_args_fini(lab_find("nop"), &a);

	refused("no fault called 'fire'", 2, "--fault", "fire@1ms");
	refused("not KIND@TIME", 2, "--fault", "crash");
	refused("is not a time", 2, "--fault", "crash@soon");
	refused("node 9, but --nodes 4", 2, "--fault", "crash@1ms:9");
	refused("NOP keeps no clock", 4, "--protocol", "nop", "--fault", "drift@1ms:3");
	refused("not on the real medium", 4, "--medium", "netns", "--fault", "repair@1ms:1");
	refused("at most 16 nodes", 4, "--medium", "netns", "--load", "50");
}

static void test_scenario(void **state)
{
	struct nop_params p;
	struct sim_nop_scenario sc;
	struct sim_nop_fault fl[SIM_NOP_FAULTS_MAX];

	(void)state;
	nop_params_init(&p);
	p.nodes = 6;
	p.nfaults = 3;
	p.faults[0] = (struct sim_nop_fault){ 5000000, SIM_NOP_F_CRASH, 1 };
	p.faults[1] = (struct sim_nop_fault){ 1000000, SIM_NOP_F_DRIFT, 5 };
	p.faults[2] = (struct sim_nop_fault){ 2000000, SIM_NOP_F_LATE, 2 };
	nop_scenario(&p, SIM_NOP_PROTO_NOP, &sc, fl);
	assert_int_equal(sc.frame_bytes[4], 30);	/* the lesson's frames, repeated */
	assert_int_equal(sc.frame_bytes[5], 100);
	assert_int_equal(sc.nfaults, 2);		/* no drift under NOP */
	assert_int_equal(sc.faults[0].kind, SIM_NOP_F_LATE);	/* sorted */
	nop_scenario(&p, SIM_NOP_PROTO_TDMA, &sc, fl);
	assert_int_equal(sc.nfaults, 3);
	assert_int_equal(sc.faults[0].kind, SIM_NOP_F_DRIFT);
}

static double summary(const struct rt_result *res, const char *key)
{
	json_t *v = json_object_get(json_object_get(rt_result_json(res), "summary"), key);

	if (!json_is_number(v))
		fail_msg("summary.%s missing", key);
	return json_number_value(v);
}

static void test_run(void **state)
{
	static const char *const keys[] = {
		"faults_injected_count", "faults_detected_count", "false_positives_count",
		"detection_max_us", "detection_bound_us", "utilisation_pct",
		"tdma_utilisation_pct", "tdma_detection_max_us",
	};
	const struct lab_ops *lab = lab_find("nop");
	struct rt_env env = { 0 };
	struct lab_ctx ctx = { .tier = "simulation", .env = &env, .seed = 5 };
	struct lab_result r = { 0 };
	struct grade_report rep = { 0 };
	json_t *views = json_array();
	char *cause = NULL;

	(void)state;
	assert_int_equal(lab->run(&ctx, NULL, &r), 0);
	assert_non_null(r.res);
	assert_true(rt_result_simulated(r.res));
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		summary(r.res, keys[i]);
	/* The lesson's bus, node 1 crashing at 1 ms: found at 1165 us, 165 us later. */
	assert_true(summary(r.res, "detection_max_us") == 165);
	assert_true(summary(r.res, "round_max_us") == 205);
	assert_true(rt_result_scenario_num(r.res, "tdma", "round_max_us") == 480);
	assert_int_equal(lab->views(r.res, views, &cause), 0);
	assert_int_equal(json_array_size(views), 2);	/* protocols, faults */
	assert_string_equal(json_string_value(json_object_get(json_array_get(views, 0), "name")),
			    "protocols");
	assert_int_equal(lab->grade(&r, &rep), 0);
	assert_true(grade_report_passed(&rep));
	assert_int_equal(rep.nchecks, 7);
	grade_report_fini(&rep);
	json_decref(views);
	lab_result_fini(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_scenario),
		cmocka_unit_test(test_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
