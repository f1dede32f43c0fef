/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit and stress tests of the cookie lab on real threads
 * (rtlab/labs/lab_cookie*.c): Jain's index on known shares; every table
 * protocol run to a cookie budget (no clock decides anything) with the
 * exact tally's identity, the correct ones losing and duplicating
 * nothing and the uni-directional plate's shares equal to within one;
 * the lab's run, document, views and grade; the options; as root, the
 * priority protocols under the watchdog, leaving no thread of the
 * process at an RT policy. The broken protocol's brokenness is shown
 * deterministically by the replay (test_sim_cookie.c), not here: real
 * threads may or may not race in a given run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/rt_env.h"
#include "core/rt_hist.h"
#include "core/rt_result.h"
#include "labs/lab.h"
#include "labs/lab_cookie.h"

static void test_jain(void **state)
{
	const uint64_t equal[4] = { 5, 5, 5, 5 }, one[4] = { 8, 0, 0, 0 }, half[2] = { 1, 3 };
	const uint64_t zero[3] = { 0 };

	(void)state;
	assert_true(fabs(cookie_jain(equal, 4) - 1.0) < 1e-12);
	assert_true(fabs(cookie_jain(one, 4) - 0.25) < 1e-12);
	assert_true(fabs(cookie_jain(half, 2) - 0.8) < 1e-12);
	assert_true(cookie_jain(zero, 3) == 0.0);
}

static void table(enum cookie_protocol p, unsigned int diners, uint64_t cookies,
		  struct cookie_table_result *r)
{
	struct cookie_table_opts o = { .protocol = p, .diners = diners, .cookies = cookies };
	char *cause = NULL;

	assert_int_equal(cookie_table_run(&o, r, &cause), 0);
	assert_null(cause);
	/* The tally's identity, for any protocol: each cookie eaten, lost or left. */
	assert_int_equal(r->produced + r->duplicated, r->consumed + r->lost + r->left);
	assert_int_equal(r->produced, cookies);
	assert_true(r->left <= 1);
}

static void test_correct_protocols(void **state)
{
	static const enum cookie_protocol ps[] = { COOKIE_UNI, COOKIE_TICKET, COOKIE_GREEDY };
	struct cookie_table_result r;
	uint64_t sum;

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		table(ps[i], 4, ps[i] == COOKIE_GREEDY ? 100000 : 4001, &r);
		assert_int_equal(r.lost, 0);
		assert_int_equal(r.duplicated, 0);
		sum = 0;
		for (unsigned int d = 0; d < 4; d++)
			sum += r.eaten[d];
		assert_int_equal(sum, r.consumed);
		assert_true(rt_hist_count(r.handover) > 0);
		if (ps[i] == COOKIE_UNI) {
			/* Seat order: everyone ate the same, give or take the last round. */
			for (unsigned int d = 0; d < 4; d++)
				assert_true(r.eaten[d] + 1 >= r.consumed / 4 &&
					    r.eaten[d] <= r.consumed / 4 + 1);
			assert_true(r.fairness > 0.999);
			assert_int_equal(r.handovers, r.consumed);
		}
		cookie_table_result_fini(&r);
	}
}

/* Stress: many diners, the broken plate too; the counts must add up whatever happened. */
static void test_stress(void **state)
{
	struct cookie_table_result r;

	(void)state;
	table(COOKIE_BROKEN, 8, 2000000, &r);
	cookie_table_result_fini(&r);
	table(COOKIE_UNI, 16, 3000, &r);
	assert_int_equal(r.lost + r.duplicated, 0);
	cookie_table_result_fini(&r);
	table(COOKIE_GREEDY, 12, 100000, &r);
	assert_int_equal(r.lost + r.duplicated, 0);
	cookie_table_result_fini(&r);
}

static void test_refusals(void **state)
{
	struct cookie_table_opts o = { .protocol = COOKIE_PRIO_PLAIN, .diners = 4, .cookies = 10 };
	struct cookie_table_result r;
	char *cause = NULL;

	(void)state;
	assert_int_equal(cookie_table_run(&o, &r, &cause), -EINVAL);
	assert_non_null(strstr(cause, "priority-plain"));
	free(cause);
	cause = NULL;
	o.protocol = COOKIE_UNI;
	o.diners = 1;
	assert_int_equal(cookie_table_run(&o, &r, &cause), -EINVAL);
	free(cause);
}

static int parse(struct lab_args *a, char **cause, int argc, ...)
{
	char *argv[16] = { "cookie" };
	va_list ap;

	va_start(ap, argc);
	for (int i = 0; i < argc; i++)
		argv[i + 1] = va_arg(ap, char *);
	va_end(ap);
	return lab_args_parse(lab_find("cookie"), argc + 1, argv, a, cause);
}

static void test_options(void **state)
{
	const struct lab_ops *lab = lab_find("cookie");
	struct lab_args a = { 0 };
	struct cookie_params *p;
	char *cause = NULL;

	(void)state;
	assert_int_equal(lab_opts_table_check(lab, &cause), 0);
	assert_int_equal(parse(&a, &cause, 6, "--protocol", "greedy", "--diners", "6",
			       "--duration", "250ms"), 0);
	p = a.params;
	assert_int_equal(p->protocol, COOKIE_GREEDY);
	assert_true(p->protocol_given);
	assert_int_equal(p->diners, 6);
	assert_int_equal(p->duration_ms, 250);
	lab_args_fini(lab, &a);
	assert_int_equal(parse(&a, &cause, 2, "--protocol", "polite"), -EINVAL);
	assert_non_null(strstr(cause, "polite"));
	free(cause);
	cause = NULL;
	lab_args_fini(lab, &a);
	assert_int_equal(parse(&a, &cause, 2, "--diners", "1"), -EINVAL);
	free(cause);
	lab_args_fini(lab, &a);
}

/* The lab's run of one protocol: document, views, grade. */
static void test_lab_run(void **state)
{
	const struct lab_ops *lab = lab_find("cookie");
	struct cookie_params p = { .protocol = COOKIE_UNI, .protocol_given = true, .diners = 4,
				   .duration_ms = 60000, .cookies = 2001 };
	struct rt_env env = { 0 };
	struct lab_ctx ctx = { .tier = "host", .env = &env, .params = &p, .seed = 1 };
	struct lab_result r = { 0 };
	struct grade_report rep = { 0 };
	json_t *views = json_array(), *sum;
	char *cause = NULL;
	static const char *const keys[] = {
		"produced_count", "consumed_count", "lost_count", "duplicated_count",
		"fairness_jain_ratio", "throughput_hz", NULL,
	};

	(void)state;
	assert_int_equal(lab->run(&ctx, NULL, &r), 0);
	assert_false(r.interrupted);
	sum = json_object_get(rt_result_json(r.res), "summary");
	for (int i = 0; keys[i]; i++)
		assert_true(json_is_number(json_object_get(sum, keys[i])));
	assert_true(json_number_value(json_object_get(sum, "produced_count")) == 2001);
	assert_true(json_number_value(json_object_get(sum, "lost_count")) == 0);
	assert_true(rt_result_scenario_num(r.res, "uni-directional", "fairness_jain_ratio") > 0.99);
	assert_true(rt_result_scenario_num(r.res, "replay-broken", "lost_count") == 1);
	assert_true(rt_result_scenario_num(r.res, "replay-uni", "lost_count") == 0);
	assert_string_equal(json_string_value(json_object_get(rt_result_scenario(r.res,
			    "replay-broken"), "schedule")), "0101");
	assert_int_equal(lab->views(r.res, views, &cause), 0);
	assert_int_equal(json_array_size(views), 2);
	json_decref(views);
	{
		struct rt_result_opts ro = { .labs = lab_names() };

		if (rt_result_validate(rt_result_json(r.res), &ro, &cause))
			fail_msg("%s", cause);
	}
	assert_int_equal(lab->grade(&r, &rep), 0);
	assert_int_equal(rep.nchecks, 4);
	assert_int_equal(rep.nskipped, 1);	/* no priority protocols in this run */
	assert_true(rep.score == 100.0);
	grade_report_fini(&rep);
	lab_result_fini(&r);
}

/* Threads of this process at SCHED_FIFO or SCHED_RR. */
static int rt_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		int pol;

		if (e->d_name[0] == '.')
			continue;
		pol = sched_getscheduler(atoi(e->d_name));
		if (pol == SCHED_FIFO || pol == SCHED_RR)
			n++;
	}
	closedir(d);
	return n;
}

static void test_priority(void **state)
{
	struct cookie_prio_opts o = { .protocol = COOKIE_PRIO_TICKET, .duration_ns = 10000000000ull,
				      .cpu = -1, .watchdog_ns = 50000000, .hold_ns = 300000,
				      .burst_ns = 3000000 };
	struct cookie_prio_result r;
	char *cause = NULL;

	(void)state;
	if (cookie_prio_can(&cause)) {
		/* Not allowed here: the refusal names what is missing. */
		assert_non_null(strstr(cause, "SCHED_FIFO"));
		assert_non_null(strstr(cause, "root"));
		free(cause);
		assert_int_equal(cookie_prio_run(&o, &r, &cause), -EPERM);
		free(cause);
		skip();
	}
	/*
	 * The ticket lock: the run ends when the watchdog fires (the high diner
	 * meets the plate held within a few of its 2 ms periods), long before
	 * the 10 s the run would last otherwise.
	 */
	assert_int_equal(cookie_prio_run(&o, &r, &cause), 0);
	assert_true(r.watchdog_fired);
	assert_true(r.watchdog_after_ns >= o.watchdog_ns);
	assert_true(r.wait_max_ns >= o.watchdog_ns);
	assert_int_equal(rt_threads(), 0);
	cookie_prio_result_fini(&r);
	/* Inheritance and the plain mutex: they end at their time, nothing left RT. */
	o.protocol = COOKIE_PRIO_INHERIT;
	o.duration_ns = 60000000;
	assert_int_equal(cookie_prio_run(&o, &r, &cause), 0);
	assert_false(r.watchdog_fired);
	assert_true(r.high_waits > 0);
	assert_int_equal(rt_threads(), 0);
	cookie_prio_result_fini(&r);
	o.protocol = COOKIE_PRIO_PLAIN;
	assert_int_equal(cookie_prio_run(&o, &r, &cause), 0);
	assert_int_equal(rt_threads(), 0);
	cookie_prio_result_fini(&r);
	o.protocol = COOKIE_UNI;
	assert_int_equal(cookie_prio_run(&o, &r, &cause), -EINVAL);
	free(cause);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jain),
		cmocka_unit_test(test_correct_protocols),
		cmocka_unit_test(test_stress),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_lab_run),
		cmocka_unit_test(test_priority),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
