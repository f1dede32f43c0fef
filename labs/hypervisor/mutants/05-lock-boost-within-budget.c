/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mutant: the lock holder's boost stops when its budget is spent */
/* replaces: hv_boost.c */
/* caught-by: pv-load-deadlines */
/*
 * hv_boost.c: the reference boost policy of the hypervisor exercise.
 *
 * Four rules, in this order of precedence:
 *
 *  1. A vCPU whose guest holds the spinlock runs boosted, whatever else
 *     holds: its sections are short (tens of microseconds) and the other
 *     vCPU may be spinning on them, so preempting it wastes the most.
 *  2. The watchdog: when a host task (batch or I/O thread) has waited half
 *     the starvation bound for its CPU, every other vCPU on that CPU drops
 *     to the fair class, boosted or FIFO by base, until the task has run:
 *     no host wait then reaches the bound (rule 1 adds at most one
 *     critical section).
 *  3. Priority inheritance across the two schedulers: while a vCPU waits
 *     for I/O, the I/O thread runs above every vCPU, so a busy FIFO vCPU on
 *     its CPU cannot starve the request the RT task waits for.
 *  4. The RT hint: a vCPU whose guest has an RT job is boosted above the
 *     batch tasks while it has budget left in the window, so the job does
 *     not wait for a fair slice. The budget stops a guest that claims the
 *     hint all the time from keeping the boost.
 */
#include <stdbool.h>
#include <stdint.h>

#include "hv_boost.h"

#define VCPU_BOOST 20	/* above batch tasks (fair) and FIFO vCPUs at 10 */
#define IO_BOOST 30	/* above every boosted vCPU */

int hv_boost(const struct hv_policy_view *v, uint8_t prio[HV_MAX_THREADS])
{
	bool starving[HV_MAX_CPUS] = { false }, io_wanted = false;
	uint32_t i;

	for (i = 0; i < v->nthreads; i++) {
		const struct hv_policy_thread *t = &v->t[i];

		if (t->kind != HV_VCPU && t->ready_wait_us >= v->bound_us / 2)
			starving[t->cpu] = true;
		if (t->kind == HV_VCPU && t->hint_io)
			io_wanted = true;
	}
	for (i = 0; i < v->nthreads; i++) {
		const struct hv_policy_thread *t = &v->t[i];

		prio[i] = t->base_prio;
		if (t->kind == HV_IO && io_wanted && prio[i] < IO_BOOST)
			prio[i] = IO_BOOST;
		if (t->kind != HV_VCPU)
			continue;
		if (t->hint_lock && t->boosted_us < v->budget_us) {
			if (prio[i] < VCPU_BOOST)
				prio[i] = VCPU_BOOST;
		} else if (starving[t->cpu]) {
			prio[i] = 0;
		} else if (t->hint_rt && t->boosted_us < v->budget_us && prio[i] < VCPU_BOOST) {
			prio[i] = VCPU_BOOST;
		}
	}
	return 0;
}
