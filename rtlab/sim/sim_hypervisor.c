/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_hypervisor: the hypervisor model (sim_hv_model.h) in the simulator contract:
 * its counters by name, the RT response histogram, and the named scenarios.
 *
 * The scenarios (presets), all on two host CPUs with the vCPU threads
 * pinned one per CPU, a guest RT task of 200 us every 1 ms with a 1 ms
 * deadline, and a 50 ms starvation bound:
 *
 *   lesson 07's steps: host, guest-idle, guest-load, vcpu-fifo, io-low,
 *   rt-host, pv-hint, and guest-prio-low (guest-idle with the RT task below
 *   a guest batch task inside the guest: the guest-side priority step, with
 *   host idle and vCPUs fair as in the live part, so that nothing on the
 *   host side is mixed in);
 *   the exercise's three: lock-holder, io-inversion, pv-load (the boost
 *   policy is the learner's; the presets carry the reference);
 *   and io-throttled: io-inversion without a policy but with the 95 % RT
 *   throttle, the kernel's own bound on the hazard.
 */
#include "sim_hypervisor.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_err.h"
#include "core/rt_hist.h"
#include "core/rt_sink.h"

static const struct sim_counter_desc hv_counters[SIM_HV_NCOUNTERS] = {
	{ "time_us", SIM_COUNTER_SUM, "simulated time" },
	{ "jobs_count", SIM_COUNTER_SUM, "guest RT jobs finished" },
	{ "misses_count", SIM_COUNTER_SUM, "of those, later than their deadline" },
	{ "response_sum_us", SIM_COUNTER_SUM, "their response times added up" },
	{ "response_max_us", SIM_COUNTER_MAX, "the longest response time" },
	{ "overruns_count", SIM_COUNTER_SUM, "releases dropped while the previous job still ran" },
	{ "spin_wasted_us", SIM_COUNTER_SUM, "vCPU time spent spinning on the guest lock" },
	{ "lock_holder_preempted_count", SIM_COUNTER_SUM,
	  "vCPU threads preempted while their guest held the lock" },
	{ "lock_waiter_preempted_count", SIM_COUNTER_SUM,
	  "vCPU threads preempted while spinning on the lock" },
	{ "lock_granted_idle_count", SIM_COUNTER_SUM,
	  "the lock handed to a waiter whose vCPU was not running" },
	{ "io_requests_count", SIM_COUNTER_SUM, "I/O requests the RT task waited for" },
	{ "io_wait_max_us", SIM_COUNTER_MAX, "the longest I/O wait, request to completion" },
	{ "host_wait_max_us", SIM_COUNTER_MAX,
	  "the longest time a ready host task waited for its CPU" },
	{ "starved_count", SIM_COUNTER_SUM, "host waits longer than the bound" },
	{ "boosted_us", SIM_COUNTER_SUM, "thread time run above base priority" },
	{ "throttled_us", SIM_COUNTER_SUM, "CPU time the RT throttle held FIFO threads off" },
	{ "vcpu_run_us", SIM_COUNTER_SUM, "CPU time of the vCPU threads" },
	{ "host_run_us", SIM_COUNTER_SUM, "CPU time of the host batch tasks" },
	{ "policy_errors_count", SIM_COUNTER_SUM, "boost policy calls that returned an error" },
};

static const char *const hv_hists[SIM_HV_NHISTS] = { "response" };

/* Each preset names what it changes after HV_SCENARIO_BASE: a later initialiser wins. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
#define S(n, ...) static const struct sim_hypervisor_scenario sc_##n = { .hv = { __VA_ARGS__ }
S(host, HV_SCENARIO_BASE, .nvcpus = 1, .vcpu_prio = 90, .nhost = 2, .hk_busy_pct = 0,
  .rt_lock_us = 0, .rt_io_every = 0) };
S(guest_idle, HV_SCENARIO_BASE, .nhost = 0) };
S(guest_load, HV_SCENARIO_BASE, .nhost = 2) };
S(vcpu_fifo, HV_SCENARIO_BASE, .nhost = 2, .vcpu_prio = 10) };
S(guest_prio_low, HV_SCENARIO_BASE, .nhost = 0, .guest_rt_low = true) };
S(io_low, HV_SCENARIO_BASE, .nhost = 2, .vcpu_prio = 10, .io_prio = 5) };
S(rt_host, HV_SCENARIO_BASE, .nhost = 2, .vcpu_prio = 10, .io_prio = 5, .np_max_us = 15) };
S(pv_hint, HV_SCENARIO_BASE, .nhost = 2, .pv = true), .policy = sim_hypervisor_policy_reference };
S(lock_holder, HV_SCENARIO_LOCK_HOLDER), .policy = sim_hypervisor_policy_reference };
S(io_inversion, HV_SCENARIO_IO_INVERSION), .policy = sim_hypervisor_policy_reference };
S(pv_load, HV_SCENARIO_PV_LOAD), .policy = sim_hypervisor_policy_reference };
S(io_throttled, HV_SCENARIO_BASE, .nhost = 2, .vcpu_prio = 10, .hk_busy_pct = 100,
  .rt_io_every = 3, .throttle = true) };
#undef S
#pragma GCC diagnostic pop

static const struct sim_preset hv_presets[] = {
	{ "host", "the RT task as a FIFO thread on the host itself, batch load beside it",
	  &sc_host },
	{ "guest-idle", "the RT task in the guest, vCPUs in the fair class, host idle",
	  &sc_guest_idle },
	{ "guest-load", "the same with a batch task on each host CPU", &sc_guest_load },
	{ "vcpu-fifo", "vCPU threads SCHED_FIFO 10 on the host; the I/O thread fair",
	  &sc_vcpu_fifo },
	{ "guest-prio-low", "guest-idle, but the RT task below a guest batch task in the guest",
	  &sc_guest_prio_low },
	{ "io-low", "vcpu-fifo with the I/O thread FIFO 5: below the vCPUs, above host batch",
	  &sc_io_low },
	{ "rt-host", "io-low on a PREEMPT_RT host: non-preemptible sections of 15 us, not 200",
	  &sc_rt_host },
	{ "pv-hint", "vCPUs fair; the guest's hints boost them within a budget (reference "
	  "policy)", &sc_pv_hint },
	{ "lock-holder", "exercise: a busy vCPU takes the lock often among batch load",
	  &sc_lock_holder },
	{ "io-inversion", "exercise: FIFO vCPUs, one always busy, beside the fair I/O thread",
	  &sc_io_inversion },
	{ "pv-load", "exercise: two batch tasks per CPU, a guest that claims the RT hint always",
	  &sc_pv_load },
	{ "io-throttled", "io-inversion with no policy, bounded by the 95 % RT throttle",
	  &sc_io_throttled },
};

const char *const sim_hypervisor_exercise_scenarios[] = {
	"lock-holder", "io-inversion", "pv-load", NULL,
};

const char *sim_hypervisor_scenario_summary(const char *name)
{
	const struct sim_preset *p = sim_preset_find(&sim_hypervisor_model, name);

	return p ? p->summary : NULL;
}

struct hv_sim_state {
	struct hv_state hv;
	struct rt_hist *hist;	/* owned */
	bool finished;
};

static int hv_check(const void *scenario, char **cause)
{
	const struct sim_hypervisor_scenario *sc = scenario;
	const char *why = hv_scenario_check(&sc->hv);

	return why ? rt_err(cause, -EINVAL, "hypervisor model: %s", why) : 0;
}

static void hv_record(void *priv, uint64_t us)
{
	struct hv_sim_state *st = priv;

	rt_hist_add(st->hist, &(struct rt_sample){ .seq = st->hv.c.jobs,
						   .latency_ns = (int64_t)(us * 1000) });
}

static int hv_sim_init(void *state, const void *scenario, uint64_t seed, char **cause)
{
	const struct sim_hypervisor_scenario *sc = scenario;
	struct hv_sim_state *st = state;

	hv_init(&st->hv, &sc->hv, seed, sc->policy);
	st->hist = rt_hist_new(SIM_HV_HIST_US, 0);
	if (!st->hist)
		return rt_err(cause, -ENOMEM, "no memory for the response histogram");
	st->hv.on_response = hv_record;
	st->hv.priv = st;
	return 0;
}

/* Copy the model's counts into @c, which holds this instance's counters only. */
static void hv_counts_store(const struct hv_counts *k, struct sim_counters *c)
{
	const uint64_t v[SIM_HV_NCOUNTERS] = {
		k->time_us, k->jobs, k->misses, k->response_sum_us, k->response_max_us,
		k->overruns, k->spin_us, k->lhp, k->lwp, k->lock_grants_idle, k->io_requests,
		k->io_wait_max_us, k->host_wait_max_us, k->starved, k->boosted_us,
		k->throttled_us, k->vcpu_run_us, k->host_run_us, k->policy_errors,
	};

	for (unsigned int i = 0; i < SIM_HV_NCOUNTERS; i++) {
		if (hv_counters[i].kind == SIM_COUNTER_MAX)
			sim_counter_max(c, i, v[i]);
		else
			c->v[i] = v[i];
	}
}

static uint64_t hv_sim_run(void *state, uint64_t steps, struct sim_counters *c,
			   struct sim_events *ev)
{
	struct hv_sim_state *st = state;
	uint64_t done = 0;

	(void)ev;
	while (done < steps && st->hv.now < st->hv.sc.duration_us) {
		hv_step(&st->hv);
		done++;
	}
	if (st->hv.now >= st->hv.sc.duration_us && !st->finished) {
		hv_finish(&st->hv);
		st->finished = true;
	}
	hv_counts_store(&st->hv.c, c);
	return done;
}

static const struct rt_hist *hv_sim_hist(const void *state, unsigned int i)
{
	const struct hv_sim_state *st = state;

	return i == SIM_HV_HIST_RESPONSE ? st->hist : NULL;
}

static void hv_sim_fini(void *state)
{
	struct hv_sim_state *st = state;

	rt_hist_free(st->hist);
	st->hist = NULL;
}

const struct sim_model_ops sim_hypervisor_model = {
	.name = "hypervisor",
	.title = "a host scheduler carrying a real-time guest: vCPU, I/O and batch threads",
	.step_unit = "microsecond",
	.time_unit = "us",
	.state_size = sizeof(struct hv_sim_state),
	.scenario_size = sizeof(struct sim_hypervisor_scenario),
	.counters = hv_counters,
	.ncounters = SIM_HV_NCOUNTERS,
	.hists = hv_hists,
	.nhists = SIM_HV_NHISTS,
	.presets = hv_presets,
	.npresets = sizeof(hv_presets) / sizeof(hv_presets[0]),
	.check = hv_check,
	.init = hv_sim_init,
	.run = hv_sim_run,
	.hist = hv_sim_hist,
	.fini = hv_sim_fini,
};
