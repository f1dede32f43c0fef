/*
 * lab_hv: the hypervisor lab's params (lab_hv.c), shared with its screen
 * (ui/ui_lab_hv.c) and its tests.
 */
#ifndef RTLAB_LABS_LAB_HV_H
#define RTLAB_LABS_LAB_HV_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/sim_hv.h"

/* At most this many scenarios (the model's presets) per run. */
#define HV_MAX_SCENARIOS 16u

enum hv_policy_choice { HV_POLICY_REFERENCE, HV_POLICY_NONE };

struct hv_params {
	bool live;			/* --live: the QEMU guest (not built yet) */
	bool model;			/* --model: the model (the default) */
	unsigned int nscen;		/* 0: every scenario of the model */
	unsigned int scen[HV_MAX_SCENARIOS];	/* indices into sim_hv_model.presets */
	unsigned int duration_ms;	/* simulated time per scenario */
	int policy;			/* enum hv_policy_choice, for the pv scenarios */
};

/*
 * What the lab keeps current for a screen between chunks of the model
 * (ctx->live): the scenario running and its counters so far. The numbers
 * are written with relaxed atomics, the name before the scenario starts.
 */
struct hv_live {
	char scenario[33];
	unsigned int index, total;	/* the scenario's place in the run, from 1 */
	uint64_t time_us, jobs, misses, resp_max_us, host_wait_max_us, starved, boosted_us;
	uint32_t bound_us;
};

/* hv_params_init - the defaults: the model, every scenario, 2 s each, the reference policy */
void hv_params_init(struct hv_params *p);

/*
 * lab_hv_live_unavailable - why the live part does not run (a static
 * sentence): "not available here: ..." (the document's and the screen's wording)
 */
const char *lab_hv_live_unavailable(void);

#endif /* RTLAB_LABS_LAB_HV_H */
