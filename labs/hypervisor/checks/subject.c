/*
 * subject.c: the untrusted driver of the hypervisor exercise. Linked with
 * the learner's hv_boost.c, it runs the model of sim_hv_model.h with that
 * policy, one run per request on stdin:
 *
 *   run SCENARIO SEED DURATION_US
 *
 * where SCENARIO is lock-holder, io-inversion or pv-load, and answers each
 * with one line of the run's counts:
 *
 *   jobs MISSES RESPONSE_MAX_US HOST_WAIT_MAX_US STARVED POLICY_ERRORS BOOSTED_US
 *
 * or "?" for a request it does not understand. check_hypervisor.c judges
 * the numbers; nothing here decides a verdict.
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

int main(void)
{
	char line[256], name[64];

	while (fgets(line, sizeof(line), stdin)) {
		unsigned long long seed, dur;
		const struct hv_scenario *sc = NULL;
		struct hv_scenario run;

		if (sscanf(line, "run %63s %llu %llu", name, &seed, &dur) == 3)
			for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
				if (!strcmp(name, scenarios[i].name))
					sc = &scenarios[i].sc;
		if (!sc || dur < 1000 || dur > 10000000) {
			puts("?");
			fflush(stdout);
			continue;
		}
		run = *sc;
		run.duration_us = dur;
		hv_init(&state, &run, seed, hv_boost);
		while (state.now < run.duration_us)
			hv_step(&state);
		hv_finish(&state);
		printf("%llu %llu %llu %llu %llu %llu %llu\n",
		       (unsigned long long)state.c.jobs, (unsigned long long)state.c.misses,
		       (unsigned long long)state.c.response_max_us,
		       (unsigned long long)state.c.host_wait_max_us,
		       (unsigned long long)state.c.starved,
		       (unsigned long long)state.c.policy_errors,
		       (unsigned long long)state.c.boosted_us);
		fflush(stdout);
	}
	return 0;
}
