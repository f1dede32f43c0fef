/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_hypervisor: the trusted checks of the hypervisor exercise, one
 * cmocka test per check of exercise.json (the C name's '_' is the id's
 * '-'). Each runs the subject (subject.c linked with the learner's
 * hv_boost.c) on one of the three scenarios for three model seeds of one
 * simulated second and judges the counts it prints: the guest's RT jobs
 * must all meet their 1 ms deadline (the "deadlines" checks), no host task
 * may wait for its CPU longer than the starvation bound (the "host"
 * checks), and no vCPU may run boosted past its budget unless its guest
 * holds the lock (rt-hint-budget, over all three scenarios). The checks
 * of a scenario judge one run of it. A policy that returns an error or
 * boosts nothing cannot pass the deadline checks; one that boosts
 * everything cannot pass the host and budget checks.
 *
 * Inputs a learner cannot have. This file is installed where a learner
 * can read it, so fixed seeds and limits would let a policy tuned to them
 * (or to the 50 ms and 500 ms of the lab's own scenarios) pass. Each
 * grading run draws a seed (getrandom(); RTLAB_CHECK_SEED, in decimal in
 * the check program's environment, repeats a run), every failure reason
 * names it, and each scenario draws from it and its name (so a check run
 * alone sees what it sees in a full run) its three model seeds, its
 * budget's window (100 .. 500 ms), the budget (15 .. 25 % of the window)
 * and the starvation bound (15 .. 25 ms): the reference policy met 500
 * such draws of each scenario when this was written, and the mutants of
 * ../mutants fail their checks under them (the bound below 26 ms catches
 * a watchdog hard-coded at 25 ms, the budget below 500 ms one hard-coded
 * at the lab's). The model is deterministic, so a seed gives the same
 * verdicts anywhere, whatever the machine's load: the subject counts
 * simulated microseconds, never the clock.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "rtlab_check.h"

#define SEEDS 3
#define DURATION_US 1000000ull
#define JOBS_MIN 900ull		/* of 1000 releases a second: dropped ones are missed too */

/* ---- The run's seed (labs/common/rtlab_check.h) ------------------------------------- */

/* The short names used below; a failure's reason names the seed. */
#define rng_for rtlab_rng_named
#define rng_below rtlab_rng_below
#define why rtlab_check_seed_reason

/* ---- Runs of the subject ------------------------------------------------------------- */

/* What a scenario gets in this grading run. */
struct draw {
	unsigned long long seed[SEEDS];		/* the model's */
	unsigned int window_us, budget_us, bound_us;
};

static void draw_for(const char *scenario, struct draw *d)
{
	struct rtlab_rng x = rng_for(scenario);

	for (int i = 0; i < SEEDS; i++)
		d->seed[i] = rng_below(&x, 1000000000);
	d->window_us = 1000 * (100 + (unsigned int)rng_below(&x, 401));
	d->budget_us = d->window_us / 1000 * (150 + (unsigned int)rng_below(&x, 101));
	d->bound_us = 15000 + (unsigned int)rng_below(&x, 10001);
}

struct counts {
	unsigned long long jobs, misses, resp_max, host_wait_max, starved, errors, boosted, over;
};

/*
 * What a scenario's run gave, kept for the other checks that judge it (its
 * "deadlines" and "host" checks and rt-hint-budget read the same counts):
 * the subject runs once per scenario, not once per check.
 */
struct outcome {
	const char *scenario;
	bool ok;			/* else reason says how the run ended */
	char reason[320];
	struct draw d;
	struct counts c[SEEDS];
};

static struct outcome outcomes[3];

static const struct outcome *seen(const char *scenario)
{
	for (size_t i = 0; i < sizeof(outcomes) / sizeof(outcomes[0]); i++)
		if (outcomes[i].scenario && !strcmp(outcomes[i].scenario, scenario))
			return &outcomes[i];
	return NULL;
}

static const struct outcome *remember(const char *scenario, bool ok, const char *reason,
				      const struct draw *d, const struct counts c[SEEDS])
{
	for (size_t i = 0; i < sizeof(outcomes) / sizeof(outcomes[0]); i++) {
		struct outcome *o = &outcomes[i];

		if (o->scenario)
			continue;
		o->scenario = scenario;
		o->ok = ok;
		snprintf(o->reason, sizeof(o->reason), "%s", reason);
		o->d = *d;
		if (ok)
			memcpy(o->c, c, sizeof(o->c));
		return o;
	}
	return NULL;
}

/* Fail the current check with what kept @scenario's run from giving counts. */
static void run_failed(const char *scenario, struct draw *d, const char *reason)
{
	remember(scenario, false, reason, d, NULL);
	why("%s", reason);
	fail();
}

/* Run @scenario for its SEEDS model seeds (or recall that run). */
static const struct outcome *run(const char *scenario)
{
	const struct outcome *known = seen(scenario);
	struct counts c[SEEDS];
	char script[512], why_not[320];
	size_t len = 0;
	struct rtlab_run_opts o = { 0 };
	struct rtlab_run r = { 0 };
	struct draw d;
	const char *p;

	if (known) {
		if (!known->ok) {
			why("%s", known->reason);
			fail();
		}
		return known;
	}
	draw_for(scenario, &d);
	for (int i = 0; i < SEEDS; i++)
		len += (size_t)snprintf(script + len, sizeof(script) - len,
					"run %s %llu %llu %u %u %u\n", scenario, d.seed[i],
					DURATION_US, d.budget_us, d.window_us, d.bound_us);
	o.stdin_data = script;
	o.stdin_len = len;
	if (rtlab_run_subject(&o, &r))
		rtlab_fail("the subject could not be run: %s", r.reason);
	if (!rtlab_run_ok(&r)) {
		snprintf(why_not, sizeof(why_not), "%s: the subject did not finish normally: %s",
			 scenario, r.reason);
		rtlab_run_fini(&r);
		run_failed(scenario, &d, why_not);
	}
	p = r.out;
	for (int i = 0; i < SEEDS; i++) {
		int n = 0;

		if (sscanf(p, "%llu %llu %llu %llu %llu %llu %llu %llu%n", &c[i].jobs,
			   &c[i].misses, &c[i].resp_max, &c[i].host_wait_max, &c[i].starved,
			   &c[i].errors, &c[i].boosted, &c[i].over, &n) != 8) {
			snprintf(why_not, sizeof(why_not), "%s: the subject's answer %d is not "
				 "eight numbers", scenario, i + 1);
			rtlab_run_fini(&r);
			run_failed(scenario, &d, why_not);
		}
		p += n;
	}
	rtlab_run_fini(&r);
	return remember(scenario, true, "", &d, c);
}

/* ---- The checks ---------------------------------------------------------------------- */

static void deadlines(const char *scenario)
{
	const struct outcome *o = run(scenario);

	for (int i = 0; i < SEEDS; i++) {
		const struct counts *c = &o->c[i];

		if (c->errors) {
			why("%s: hv_boost() returned an error %llu times: every thread stayed at "
			    "its base priority", scenario, c->errors);
			fail();
		}
		if (c->misses || c->jobs < JOBS_MIN) {
			why("%s, model seed %llu: %llu of %llu RT jobs missed the 1 ms deadline "
			    "(%llu finished, the longest took %llu us)", scenario, o->d.seed[i],
			    c->misses, c->jobs, c->jobs, c->resp_max);
			fail();
		}
	}
}

static void host(const char *scenario)
{
	const struct outcome *o = run(scenario);

	for (int i = 0; i < SEEDS; i++) {
		const struct counts *c = &o->c[i];

		if (c->starved || c->host_wait_max > o->d.bound_us) {
			why("%s, model seed %llu: a host task waited %llu us for its CPU, past the "
			    "bound of %u us (bound_us; %llu waits that long)", scenario,
			    o->d.seed[i], c->host_wait_max, o->d.bound_us, c->starved);
			fail();
		}
	}
}

static void lock_holder_deadlines(void **state)
{
	(void)state;
	deadlines("lock-holder");
}

static void lock_holder_host(void **state)
{
	(void)state;
	host("lock-holder");
}

static void io_inversion_deadlines(void **state)
{
	(void)state;
	deadlines("io-inversion");
}

static void io_inversion_host(void **state)
{
	(void)state;
	host("io-inversion");
}

static void pv_load_deadlines(void **state)
{
	(void)state;
	deadlines("pv-load");
}

static void pv_load_host(void **state)
{
	(void)state;
	host("pv-load");
}

/*
 * No vCPU runs boosted once its boosted_us has reached budget_us, unless its
 * guest holds the lock (the subject's audit counts the rest). pv-load's
 * greedy vCPU 1 spends its budget in every window; the others rarely do.
 */
static void rt_hint_budget(void **state)
{
	static const char *const scenarios[] = { "lock-holder", "io-inversion", "pv-load" };

	(void)state;
	for (size_t k = 0; k < sizeof(scenarios) / sizeof(scenarios[0]); k++) {
		const struct outcome *o = run(scenarios[k]);

		for (int i = 0; i < SEEDS; i++) {
			if (!o->c[i].over)
				continue;
			why("%s, model seed %llu: vCPUs ran boosted %llu us past their budget "
			    "(budget_us %u per window_us %u) while their guest held no lock",
			    scenarios[k], o->d.seed[i], o->c[i].over, o->d.budget_us,
			    o->d.window_us);
			fail();
		}
	}
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(lock_holder_deadlines),
		cmocka_unit_test(lock_holder_host),
		cmocka_unit_test(io_inversion_deadlines),
		cmocka_unit_test(io_inversion_host),
		cmocka_unit_test(pv_load_deadlines),
		cmocka_unit_test(pv_load_host),
		cmocka_unit_test(rt_hint_budget),
	};

	(void)rtlab_check_seed();
	return rtlab_check_main("hypervisor", tests, sizeof(tests) / sizeof(tests[0]));
}
