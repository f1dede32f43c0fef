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

/* hv_params_init - the defaults: the model, every scenario, 2 s each, the reference policy */
void hv_params_init(struct hv_params *p);

/*
 * lab_hv_live_unavailable - why the live part does not run (a static
 * sentence): "not available here: ..." (the document's and the screen's wording)
 */
const char *lab_hv_live_unavailable(void);

#endif /* RTLAB_LABS_LAB_HV_H */
