/*
 * check_hypervisor: the trusted checks of the hypervisor exercise, one
 * cmocka test per check of exercise.json (the C name's '_' is the id's
 * '-'). Each runs the subject (subject.c linked with the learner's
 * hv_boost.c) on one of the three scenarios for three seeds of one
 * simulated second and judges the counts it prints: the guest's RT jobs
 * must all meet their 1 ms deadline (the "deadlines" checks), and no host
 * task may wait for its CPU longer than the 50 ms bound (the "host"
 * checks). The two checks of a scenario judge one run of it. A policy that returns an error or boosts nothing cannot pass
 * the deadline checks; one that boosts everything cannot pass the host
 * checks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtlab_check.h"

#define SEEDS 3
#define DURATION_US 1000000ull
#define BOUND_US 50000ull
#define JOBS_MIN 900ull		/* of 1000 releases a second: dropped ones are missed too */

struct counts {
	unsigned long long jobs, misses, resp_max, host_wait_max, starved, errors, boosted;
};

/*
 * What a scenario's run gave, kept for the second check that judges it (its
 * "deadlines" and "host" checks read the same counts): the subject runs
 * once per scenario, not once per check.
 */
struct outcome {
	const char *scenario;
	bool ok;			/* else reason says how the run ended */
	char reason[320];
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

static void remember(const char *scenario, bool ok, const char *reason,
		     const struct counts c[SEEDS])
{
	for (size_t i = 0; i < sizeof(outcomes) / sizeof(outcomes[0]); i++) {
		struct outcome *o = &outcomes[i];

		if (o->scenario)
			continue;
		o->scenario = scenario;
		o->ok = ok;
		snprintf(o->reason, sizeof(o->reason), "%s", reason);
		if (ok)
			memcpy(o->c, c, sizeof(o->c));
		return;
	}
}

/* Run @scenario for SEEDS seeds (or recall that run); their counts into @c. */
static void run(const char *scenario, struct counts c[SEEDS])
{
	const struct outcome *known = seen(scenario);
	static const unsigned long long seeds[SEEDS] = { 1, 77, 20261204 };
	char script[256];
	size_t len = 0;
	struct rtlab_run_opts o = { 0 };
	struct rtlab_run r = { 0 };
	const char *p;

	if (known) {
		if (!known->ok) {
			rtlab_check_reason("%s", known->reason);
			fail();
		}
		memcpy(c, known->c, sizeof(known->c));
		return;
	}
	for (int i = 0; i < SEEDS; i++)
		len += (size_t)snprintf(script + len, sizeof(script) - len, "run %s %llu %llu\n",
					scenario, seeds[i], DURATION_US);
	o.stdin_data = script;
	o.stdin_len = len;
	if (rtlab_run_subject(&o, &r))
		rtlab_fail("the subject could not be run: %s", r.reason);
	if (!rtlab_run_ok(&r)) {
		char why[320];

		snprintf(why, sizeof(why), "%s: the subject did not finish normally: %s",
			 scenario, r.reason);
		remember(scenario, false, why, NULL);
		rtlab_check_reason("%s", why);
		rtlab_run_fini(&r);
		fail();
	}
	p = r.out;
	for (int i = 0; i < SEEDS; i++) {
		int n = 0;

		if (sscanf(p, "%llu %llu %llu %llu %llu %llu %llu%n", &c[i].jobs, &c[i].misses,
			   &c[i].resp_max, &c[i].host_wait_max, &c[i].starved, &c[i].errors,
			   &c[i].boosted, &n) != 7) {
			char why[320];

			snprintf(why, sizeof(why), "%s: the subject's answer %d is not seven "
				 "numbers", scenario, i + 1);
			remember(scenario, false, why, NULL);
			rtlab_check_reason("%s", why);
			rtlab_run_fini(&r);
			fail();
		}
		p += n;
	}
	rtlab_run_fini(&r);
	remember(scenario, true, "", c);
}

static void deadlines(const char *scenario)
{
	struct counts c[SEEDS];

	run(scenario, c);
	for (int i = 0; i < SEEDS; i++) {
		if (c[i].errors) {
			rtlab_check_reason("%s: hv_boost() returned an error %llu times: every "
					   "thread stayed at its base priority", scenario,
					   c[i].errors);
			fail();
		}
		if (c[i].misses || c[i].jobs < JOBS_MIN) {
			rtlab_check_reason("%s, seed %d: %llu of %llu RT jobs missed the 1 ms "
					   "deadline (%llu finished, the longest took %llu us)",
					   scenario, i + 1, c[i].misses, c[i].jobs, c[i].jobs,
					   c[i].resp_max);
			fail();
		}
	}
}

static void host(const char *scenario)
{
	struct counts c[SEEDS];

	run(scenario, c);
	for (int i = 0; i < SEEDS; i++) {
		if (c[i].starved || c[i].host_wait_max > BOUND_US) {
			rtlab_check_reason("%s, seed %d: a host task waited %llu us for its CPU, "
					   "past the %llu us bound (%llu times)", scenario, i + 1,
					   c[i].host_wait_max, BOUND_US, c[i].starved);
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

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(lock_holder_deadlines),
		cmocka_unit_test(lock_holder_host),
		cmocka_unit_test(io_inversion_deadlines),
		cmocka_unit_test(io_inversion_host),
		cmocka_unit_test(pv_load_deadlines),
		cmocka_unit_test(pv_load_host),
	};

	return rtlab_check_main("hypervisor", tests, sizeof(tests) / sizeof(tests[0]));
}
