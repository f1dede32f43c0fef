/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_hypervisor: the hypervisor lab's model (lesson 07) in the simulator contract
 * of sim.h. The model itself is sim_hv_model.h (a host scheduler carrying
 * a real-time guest, self-contained so that the exercise's subject can
 * compile it too); this wraps it: counters by name, the RT jobs' response
 * time histogram, the named scenarios of lesson 07 and of the exercise,
 * and the reference boost policy.
 *
 * A step is one simulated microsecond. The scenario is struct
 * sim_hypervisor_scenario: the model's struct hv_scenario plus the boost policy
 * (borrowed: the reference, a learner's, or NULL for none).
 */
#ifndef RTLAB_SIM_SIM_HV_H
#define RTLAB_SIM_SIM_HV_H

#include <stdint.h>

#include "sim.h"
#include "sim_hv_model.h"

/* Buckets of 1 us of the response histogram: responses above go to its overflow. */
#define SIM_HV_HIST_US 20000u

struct sim_hypervisor_scenario {
	struct hv_scenario hv;
	hv_policy_fn policy;	/* called when hv.pv; NULL: never boost */
};

/* Counters, in this order. */
enum sim_hypervisor_counter {
	SIM_HV_C_TIME,		/* time_us */
	SIM_HV_C_JOBS,		/* jobs_count */
	SIM_HV_C_MISSES,	/* misses_count */
	SIM_HV_C_RESP_SUM,	/* response_sum_us */
	SIM_HV_C_RESP_MAX,	/* response_max_us */
	SIM_HV_C_OVERRUNS,	/* overruns_count */
	SIM_HV_C_SPIN,		/* spin_wasted_us */
	SIM_HV_C_LHP,		/* lock_holder_preempted_count */
	SIM_HV_C_LWP,		/* lock_waiter_preempted_count */
	SIM_HV_C_GRANTS_IDLE,	/* lock_granted_idle_count */
	SIM_HV_C_IO,		/* io_requests_count */
	SIM_HV_C_IO_WAIT_MAX,	/* io_wait_max_us */
	SIM_HV_C_HOST_WAIT_MAX,	/* host_wait_max_us */
	SIM_HV_C_STARVED,	/* starved_count */
	SIM_HV_C_BOOSTED,	/* boosted_us */
	SIM_HV_C_THROTTLED,	/* throttled_us */
	SIM_HV_C_VCPU_RUN,	/* vcpu_run_us */
	SIM_HV_C_HOST_RUN,	/* host_run_us */
	SIM_HV_C_POLICY_ERR,	/* policy_errors_count */
	SIM_HV_NCOUNTERS
};

enum { SIM_HV_HIST_RESPONSE, SIM_HV_NHISTS };

/* The model: its presets are the scenarios named in lesson 07 and the exercise. */
extern const struct sim_model_ops sim_hypervisor_model;

/*
 * The three scenarios the exercise is checked on (lock-holder, io-inversion,
 * pv-load), in that order, NULL-terminated.
 */
extern const char *const sim_hypervisor_exercise_scenarios[];

/**
 * sim_hypervisor_policy_reference - the reference boost policy (labs/hypervisor/reference)
 *
 * Boosts a vCPU whose guest holds the lock or has an RT job, within the
 * budget; raises the I/O thread while a vCPU waits for it; and drops every
 * boost and FIFO vCPU of a CPU to the fair class while a host task there
 * has waited half the starvation bound. See hv_boost.c for the reasons.
 */
int sim_hypervisor_policy_reference(const struct hv_policy_view *v, uint8_t prio[HV_MAX_THREADS]);

/**
 * sim_hypervisor_scenario_summary - the one-line summary of preset @name, or NULL
 */
const char *sim_hypervisor_scenario_summary(const char *name);

#endif /* RTLAB_SIM_SIM_HV_H */
