/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_sim_hypervisor: the hypervisor model (sim/sim_hv_model.h, sim/sim_hypervisor.c).
 *
 * Golden runs pin every named scenario's outcome for seed 1 over 500
 * simulated ms, so a change of the model shows up as a changed table (update
 * it on purpose, with the reason in the commit). Story tests say what the
 * scenarios are for whatever the seed: the exercise's three scenarios fail
 * without a boost policy and pass with the reference one; property tests
 * run the reference policy over random seeds and assert that no host task
 * ever waits past the bound and no deadline is missed. Unit tests of the
 * scheduler's pieces: FIFO preemption, the fair class, the lock's hand-off
 * and a policy's error path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"
#include "sim/sim_hypervisor.h"

#define GOLDEN_US 500000u

static struct sim_hypervisor_scenario preset(const char *name)
{
	const struct sim_preset *p = sim_preset_find(&sim_hypervisor_model, name);

	assert_non_null(p);
	return *(const struct sim_hypervisor_scenario *)p->scenario;
}

/* Run @sc to its end with @seed; the counters into @v. */
static void run(const struct sim_hypervisor_scenario *sc, uint64_t seed,
		uint64_t v[SIM_HV_NCOUNTERS])
{
	struct sim *s = NULL;
	char *cause = NULL;

	assert_int_equal(sim_new(&sim_hypervisor_model, sc, seed, &s, &cause), 0);
	sim_run(s, SIM_STEPS_ALL, NULL);
	assert_true(sim_done(s));
	memcpy(v, sim_counters(s)->v, SIM_HV_NCOUNTERS * sizeof(*v));
	sim_free(s);
}

static const struct golden {
	const char *name;
	uint64_t jobs, misses, resp_max, spin, lhp, host_wait_max, starved;
} golden[] = {
	{ "host", 500, 0, 400, 0, 0, 200, 0 },
	{ "guest-idle", 500, 0, 278, 669, 2, 0, 0 },
	{ "guest-load", 500, 0, 885, 537, 10, 2214, 0 },
	{ "vcpu-fifo", 458, 37, 2826, 517, 0, 2362, 0 },
	{ "guest-prio-low", 93, 93, 8206, 85, 0, 0, 0 },
	{ "io-low", 458, 34, 2719, 410, 0, 2421, 0 },
	{ "rt-host", 460, 36, 2305, 584, 0, 2480, 0 },
	{ "pv-hint", 500, 0, 771, 570, 10, 2243, 0 },
	{ "lock-holder", 500, 0, 762, 6246, 11, 2802, 0 },
	{ "io-inversion", 500, 0, 647, 1361, 23, 26763, 0 },
	{ "pv-load", 500, 0, 758, 543, 5, 7796, 0 },
	{ "io-throttled", 3, 0, 413, 6, 0, 500000, 2 },
};

static void test_golden(void **state)
{
	uint64_t v[SIM_HV_NCOUNTERS];

	(void)state;
	assert_int_equal(sim_hypervisor_model.npresets, sizeof(golden) / sizeof(golden[0]));
	for (size_t i = 0; i < sizeof(golden) / sizeof(golden[0]); i++) {
		const struct golden *g = &golden[i];
		struct sim_hypervisor_scenario sc = preset(g->name);

		sc.hv.duration_us = GOLDEN_US;
		run(&sc, 1, v);
		print_message("%s\n", g->name);
		assert_int_equal(v[SIM_HV_C_TIME], GOLDEN_US);
		assert_int_equal(v[SIM_HV_C_JOBS], g->jobs);
		assert_int_equal(v[SIM_HV_C_MISSES], g->misses);
		assert_int_equal(v[SIM_HV_C_RESP_MAX], g->resp_max);
		assert_int_equal(v[SIM_HV_C_SPIN], g->spin);
		assert_int_equal(v[SIM_HV_C_LHP], g->lhp);
		assert_int_equal(v[SIM_HV_C_HOST_WAIT_MAX], g->host_wait_max);
		assert_int_equal(v[SIM_HV_C_STARVED], g->starved);
		assert_int_equal(v[SIM_HV_C_POLICY_ERR], 0);
	}
}

/* Same seed, same run; a chunked run equals a whole one (the contract, here by hand). */
static void test_deterministic(void **state)
{
	struct sim_hypervisor_scenario sc = preset("pv-load");
	struct sim *a = NULL, *b = NULL;
	char *cause = NULL;

	(void)state;
	sc.hv.duration_us = 100000;
	assert_int_equal(sim_new(&sim_hypervisor_model, &sc, 9, &a, &cause), 0);
	assert_int_equal(sim_new(&sim_hypervisor_model, &sc, 9, &b, &cause), 0);
	sim_run(a, SIM_STEPS_ALL, NULL);
	assert_int_equal(sim_run_chunked(b, SIM_STEPS_ALL, 777, NULL, NULL, NULL), 0);
	assert_true(sim_counters_equal(sim_counters(a), sim_counters(b)));
	assert_int_equal(sim_run(a, 10, NULL), 0);
	sim_free(a);
	sim_free(b);
}

/*
 * The exercise's scenarios without a policy: lock-holder preemption and the
 * greedy guest's load miss deadlines; the I/O inversion also starves the
 * host. With the reference policy: nothing missed, nothing starved.
 */
static void test_exercise_story(void **state)
{
	uint64_t v[SIM_HV_NCOUNTERS];

	(void)state;
	for (size_t i = 0; sim_hypervisor_exercise_scenarios[i]; i++) {
		struct sim_hypervisor_scenario sc = preset(sim_hypervisor_exercise_scenarios[i]);

		sc.hv.duration_us = 300000;
		assert_ptr_equal(sc.policy, sim_hypervisor_policy_reference);
		run(&sc, 5, v);
		assert_int_equal(v[SIM_HV_C_MISSES], 0);
		assert_int_equal(v[SIM_HV_C_STARVED], 0);
		assert_true(v[SIM_HV_C_BOOSTED] > 0);
		sc.policy = NULL;
		run(&sc, 5, v);
		assert_true(v[SIM_HV_C_MISSES] > 0 || v[SIM_HV_C_JOBS] < 10);
	}
	run(&(struct sim_hypervisor_scenario){ .hv = preset("io-inversion").hv }, 5, v);
	assert_true(v[SIM_HV_C_STARVED] > 0);
	assert_true(v[SIM_HV_C_HOST_WAIT_MAX] > preset("io-inversion").hv.bound_us);
	/* Lock-holder preemption is what hurts there: the spinning shows it. */
	{
		struct sim_hypervisor_scenario sc = preset("lock-holder");
		uint64_t w[SIM_HV_NCOUNTERS];

		sc.hv.duration_us = 300000;
		run(&sc, 5, v);
		sc.policy = NULL;
		run(&sc, 5, w);
		assert_true(w[SIM_HV_C_LHP] > v[SIM_HV_C_LHP]);
		assert_true(w[SIM_HV_C_SPIN] > 2 * v[SIM_HV_C_SPIN]);
	}
}

/* The reference policy over random seeds: the bound and the deadlines hold. */
static void test_property_reference(void **state)
{
	struct sim_rng r;
	uint64_t v[SIM_HV_NCOUNTERS];

	(void)state;
	sim_rng_seed(&r, 2026);
	for (int k = 0; k < 8; k++) {
		uint64_t seed = sim_rng_next(&r);

		for (size_t i = 0; sim_hypervisor_exercise_scenarios[i]; i++) {
			struct sim_hypervisor_scenario sc = preset(sim_hypervisor_exercise_scenarios[i]);

			sc.hv.duration_us = 200000;
			run(&sc, seed, v);
			if (v[SIM_HV_C_STARVED] || v[SIM_HV_C_MISSES])
				print_message("seed %llu %s: starved %llu missed %llu\n",
					      (unsigned long long)seed, sim_hypervisor_exercise_scenarios[i],
					      (unsigned long long)v[SIM_HV_C_STARVED],
					      (unsigned long long)v[SIM_HV_C_MISSES]);
			assert_int_equal(v[SIM_HV_C_STARVED], 0);
			assert_true(v[SIM_HV_C_HOST_WAIT_MAX] <= sc.hv.bound_us);
			assert_int_equal(v[SIM_HV_C_MISSES], 0);
			assert_true(v[SIM_HV_C_JOBS] >= 195);
		}
	}
}

/* The 95 % throttle bounds the I/O hazard: the host gets its 50 ms each second. */
static void test_throttle(void **state)
{
	struct sim_hypervisor_scenario sc = preset("io-throttled");
	uint64_t v[SIM_HV_NCOUNTERS];

	(void)state;
	sc.hv.duration_us = 2000000;
	run(&sc, 3, v);
	assert_true(v[SIM_HV_C_THROTTLED] >= 2 * 50000 - 2);
	assert_true(v[SIM_HV_C_HOST_WAIT_MAX] <= 1000000);
	assert_true(v[SIM_HV_C_IO] > 1);
}

/* The host scenario: one FIFO thread over batch tasks waits at most a non-preemptible section. */
static void test_fifo_over_batch(void **state)
{
	struct sim_hypervisor_scenario sc = preset("host");
	uint64_t v[SIM_HV_NCOUNTERS];

	(void)state;
	sc.hv.duration_us = 100000;
	sc.hv.np_max_us = 0;
	run(&sc, 1, v);
	assert_int_equal(v[SIM_HV_C_RESP_MAX], sc.hv.rt_work_us);
	sc.hv.np_max_us = 50;
	run(&sc, 1, v);
	assert_true(v[SIM_HV_C_RESP_MAX] > sc.hv.rt_work_us);
	assert_true(v[SIM_HV_C_RESP_MAX] <= sc.hv.rt_work_us + 50 + 1);
}

/* Two batch tasks and nothing else share a CPU evenly in the fair class. */
static void test_fair_share(void **state)
{
	struct sim_hypervisor_scenario sc = preset("guest-idle");
	uint64_t v[SIM_HV_NCOUNTERS];

	(void)state;
	sc.hv.ncpus = 1;
	sc.hv.io_cpu = 0;
	sc.hv.nhost = 2;
	sc.hv.duration_us = 60000;
	run(&sc, 1, v);
	/* A batch task waits at most the other's slice plus the guest's share. */
	assert_true(v[SIM_HV_C_HOST_WAIT_MAX] >= sc.hv.fair_slice_us);
	assert_true(v[SIM_HV_C_HOST_WAIT_MAX] < 3 * sc.hv.fair_slice_us);
	assert_int_equal(v[SIM_HV_C_STARVED], 0);
}

static int policy_fails(const struct hv_policy_view *v, uint8_t prio[HV_MAX_THREADS])
{
	(void)v;
	(void)prio;
	return -ENOSYS;
}

static int policy_all_fifo(const struct hv_policy_view *v, uint8_t prio[HV_MAX_THREADS])
{
	for (uint32_t i = 0; i < v->nthreads; i++)
		prio[i] = v->t[i].kind == HV_VCPU ? 99 : v->t[i].base_prio;
	return 0;
}

/* A failing policy leaves the base priorities; a greedy one starves the host. */
static void test_policies(void **state)
{
	struct sim_hypervisor_scenario sc = preset("pv-load");
	uint64_t v[SIM_HV_NCOUNTERS];

	(void)state;
	sc.hv.duration_us = 200000;
	sc.policy = policy_fails;
	run(&sc, 1, v);
	assert_int_equal(v[SIM_HV_C_POLICY_ERR], 200000);
	assert_int_equal(v[SIM_HV_C_BOOSTED], 0);
	sc = preset("io-inversion");
	sc.hv.duration_us = 200000;
	sc.policy = policy_all_fifo;
	run(&sc, 1, v);
	assert_true(v[SIM_HV_C_STARVED] > 0);
	assert_true(v[SIM_HV_C_HOST_WAIT_MAX] > sc.hv.bound_us);
}

static void test_check(void **state)
{
	struct sim_hypervisor_scenario sc = preset("guest-load");
	struct sim *s = NULL;
	char *cause = NULL;

	(void)state;
	sc.hv.ncpus = 3;
	assert_int_equal(sim_new(&sim_hypervisor_model, &sc, 1, &s, &cause), -EINVAL);
	assert_non_null(strstr(cause, "ncpus"));
	free(cause);
	cause = NULL;
	sc = preset("guest-load");
	sc.hv.rt_work_us = 2000;
	assert_int_equal(sim_new(&sim_hypervisor_model, &sc, 1, &s, &cause), -EINVAL);
	free(cause);
	cause = NULL;
	sc = preset("guest-load");
	sc.hv.wake_gran_us = sc.hv.fair_slice_us + 1;
	assert_int_equal(sim_new(&sim_hypervisor_model, &sc, 1, &s, &cause), -EINVAL);
	free(cause);
	assert_non_null(sim_hypervisor_scenario_summary("pv-hint"));
	assert_null(sim_hypervisor_scenario_summary("nope"));
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_exercise_story),
		cmocka_unit_test(test_property_reference),
		cmocka_unit_test(test_throttle),
		cmocka_unit_test(test_fifo_over_batch),
		cmocka_unit_test(test_fair_share),
		cmocka_unit_test(test_policies),
		cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
