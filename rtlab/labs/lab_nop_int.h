/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_nop_int: what the nop lab's files share inside labs/: the figures
 * computed from the model's counters and the real medium's run.
 */
#ifndef RTLAB_LABS_LAB_NOP_INT_H
#define RTLAB_LABS_LAB_NOP_INT_H

#include <jansson.h>

#include "lab.h"
#include "lab_nop.h"

/* nop_figures - utilisation_pct, detection_max_us... from @c into @o. 0 or -ENOMEM. */
int nop_figures(json_t *o, const struct sim_counters *c);

/**
 * nop_netns_run - the run of --medium netns (lab_nop_netns.c)
 *
 * Node processes in network namespaces of their own, joined through a
 * bridge in a "bus" namespace; root only. Fills @out like the lab's run().
 */
int nop_netns_run(struct lab_ctx *ctx, const struct rt_sink *sink, const struct nop_params *p,
		  struct lab_result *out);

#endif /* RTLAB_LABS_LAB_NOP_INT_H */
