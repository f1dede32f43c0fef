/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hv_boost.h: the hypervisor lab's exercise, what you implement in
 * hv_boost.c. This header is the checks' own copy: yours is not used.
 *
 * You write the host's boost policy for the model of sim_hv_model.h (read
 * its opening comment: the threads, the guest, the hints). The host calls
 * hv_boost() every simulated microsecond with what it sees of each host
 * thread (struct hv_policy_view); you set prio[i] for each of them: 0 for
 * the fair class, 1 .. 98 for SCHED_FIFO at that priority. Returning a
 * negative errno leaves every thread at its base priority.
 *
 * Your policy is checked on three scenarios (labs/hypervisor/README.md):
 * the guest's RT jobs must meet their deadlines, and no host task (a batch
 * task or the I/O thread) may wait for its CPU longer than v->bound_us.
 *
 * The budget: a thread's boosted time (run above its base priority, for
 * whatever reason) in the current window of v->window_us is in
 * boosted_us. Boost a vCPU for its RT hint only while its boosted_us is
 * below v->budget_us. The lock holder's boost is exempt: a vCPU whose
 * guest holds the spinlock stays boosted past its budget, since its
 * sections are short and the other vCPU may be spinning on them; so is
 * the I/O thread's, which runs only while a request waits. The checks
 * count the time a vCPU runs boosted with its budget spent and no lock
 * held: it must be none.
 *
 * Read the limits from @v: each grading run draws its own bound, budget
 * and window (the lab's scenarios use 50 ms, and 500 ms of every second).
 */
#ifndef HV_BOOST_H
#define HV_BOOST_H

#include <stdint.h>

#include "sim_hv_model.h"

int hv_boost(const struct hv_policy_view *v, uint8_t prio[HV_MAX_THREADS]);

#endif
