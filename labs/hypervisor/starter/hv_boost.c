/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hv_boost.c: your host boost policy for the hypervisor model. Read
 * hv_boost.h, then the opening comment of sim_hv_model.h (struct
 * hv_policy_view: what the host sees of each thread), then replace the
 * body marked TODO. Both headers stay with the lab's checks, not in your
 * work folder: labs/hypervisor/checks/ of rtlab's sources, or
 * PREFIX/share/rtlab/labs/hypervisor/checks/ once installed (PREFIX is
 * /usr/local by default); `rtlab lab start hypervisor` says where.
 * `rtlab grade hypervisor --work DIR` checks it on three scenarios, with a
 * starvation bound, a budget and its window drawn for each grading run:
 * read them from v, hard-code none.
 */
#include <errno.h>
#include <stdint.h>

#include "hv_boost.h"

int hv_boost(const struct hv_policy_view *v, uint8_t prio[HV_MAX_THREADS])
{
	/*
	 * TODO: set prio[i] for each of the v->nthreads threads: who may be
	 * boosted (the guest's hints), by how much, within what budget, and
	 * what keeps a waiting host task from starving past v->bound_us?
	 */
	(void)v;
	(void)prio;
	return -ENOSYS;
}
