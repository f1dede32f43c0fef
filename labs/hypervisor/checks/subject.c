/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * subject.c: the untrusted driver of the hypervisor exercise. Linked with
 * the learner's hv_boost.c, it runs the model of sim_hv_model.h with that
 * policy, one run per request on stdin:
 *
 *   run SCENARIO SEED DURATION_US [BUDGET_US WINDOW_US BOUND_US]
 *
 * where SCENARIO is lock-holder, io-inversion or pv-load (the last three
 * replace the scenario's budget, its window and the starvation bound),
 * and answers each with one line of the run's counts:
 *
 *   JOBS MISSES RESPONSE_MAX_US HOST_WAIT_MAX_US STARVED POLICY_ERRORS BOOSTED_US OVER_US
 *
 * or "?" for a request it does not understand. OVER_US is the time vCPUs
 * ran boosted past their budget without holding the guest's lock (see
 * audit_boost()). check_hypervisor.c judges the numbers; nothing here
 * decides a verdict.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hv_boost.h"
#include "sim_hv_model.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
static const struct {
	const char *name;
	struct hv_scenario sc;
} scenarios[] = {
	{ "lock-holder", { HV_SCENARIO_LOCK_HOLDER } },
	{ "io-inversion", { HV_SCENARIO_IO_INVERSION } },
	{ "pv-load", { HV_SCENARIO_PV_LOAD } },
};
#pragma GCC diagnostic pop

static struct hv_state state;

/*
 * The budget's audit. The model only measures a thread's boosted time; the
 * policy has to keep an RT-hint boost within budget_us itself, and a lock
 * holder's boost is exempt (hv_boost.h). So: the vCPUs the policy's last
 * answer boosted although their boosted_us had reached budget_us and their
 * guest held no lock; main() counts the microseconds they then ran boosted.
 */
static bool over[HV_MAX_THREADS];

static int audit_boost(const struct hv_policy_view *v, uint8_t prio[HV_MAX_THREADS])
{
	int ret = hv_boost(v, prio);

	for (uint32_t i = 0; i < v->nthreads && i < HV_MAX_THREADS; i++)
		over[i] = ret >= 0 && v->t[i].kind == HV_VCPU && !v->t[i].hint_lock &&
			  prio[i] > v->t[i].base_prio && v->t[i].boosted_us >= v->budget_us;
	return ret;
}

int main(void)
{
	char line[256], name[64];

	while (fgets(line, sizeof(line), stdin)) {
		unsigned long long seed, dur, over_us = 0;
		unsigned int budget, window, bound;
		const struct hv_scenario *sc = NULL;
		struct hv_scenario run = { 0 };
		int n;

		n = sscanf(line, "run %63s %llu %llu %u %u %u", name, &seed, &dur, &budget,
			   &window, &bound);
		if (n == 3 || n == 6)
			for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
				if (!strcmp(name, scenarios[i].name))
					sc = &scenarios[i].sc;
		if (sc) {
			run = *sc;
			run.duration_us = dur;
			if (n == 6) {
				run.budget_us = budget;
				run.window_us = window;
				run.bound_us = bound;
			}
		}
		if (!sc || dur < 1000 || dur > 10000000 || hv_scenario_check(&run)) {
			puts("?");
			fflush(stdout);
			continue;
		}
		hv_init(&state, &run, seed, audit_boost);
		while (state.now < run.duration_us) {
			memset(over, 0, sizeof(over));
			hv_step(&state);
			for (uint32_t i = 0; i < state.nthreads; i++)
				if (over[i] && hv_running(&state, i) &&
				    state.t[i].prio > state.t[i].base_prio)
					over_us++;
		}
		hv_finish(&state);
		printf("%llu %llu %llu %llu %llu %llu %llu %llu\n",
		       (unsigned long long)state.c.jobs, (unsigned long long)state.c.misses,
		       (unsigned long long)state.c.response_max_us,
		       (unsigned long long)state.c.host_wait_max_us,
		       (unsigned long long)state.c.starved,
		       (unsigned long long)state.c.policy_errors,
		       (unsigned long long)state.c.boosted_us, over_us);
		fflush(stdout);
	}
	return 0;
}
