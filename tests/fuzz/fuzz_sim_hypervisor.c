/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for the hypervisor model (rtlab/sim/sim_hv_model.h through
 * sim_hypervisor.c). The input is read as little-endian numbers (missing bytes are
 * zero):
 *
 *   mode (1)   bit 7 set: preset (mode % npresets); otherwise a scenario
 *              built from the input, every field mapped into its valid
 *              range, or taken raw when bit 0 is set (mostly refused).
 *              Bits 1-2 choose the policy: none, the reference, or one that
 *              answers with priorities read from the input (bit 3: and fails
 *              now and then)
 *   seed (8), steps (2, at most MAX_STEPS), chunk (2)
 *   then the scenario's fields, 4 bytes each, then the policy's bytes
 *
 * A refused scenario must come with a cause. An accepted one is run in one
 * call and in chunks, which must agree exactly, and the counters must keep
 * the model's invariants.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "sim/sim.h"
#include "sim/sim_hypervisor.h"

#define MAX_STEPS 20000u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t field(struct reader *r, bool raw, uint32_t lo, uint32_t hi)
{
	uint32_t v = (uint32_t)take(r, 4);

	if (raw)
		return v;
	return hi <= lo ? lo : lo + v % (hi - lo + 1);
}

/* The input's policy: its bytes, cycled, as priorities (a static is fine: one thread). */
static const uint8_t *pol_bytes;
static size_t pol_n, pol_i;
static bool pol_fails;

static int policy_input(const struct hv_policy_view *v, uint8_t prio[HV_MAX_THREADS])
{
	if (!pol_n)
		return 0;
	for (uint32_t i = 0; i < v->nthreads; i++) {
		prio[i] = pol_bytes[pol_i++ % pol_n];
		/* Above 98 is clamped by the model: feed those too. */
	}
	return pol_fails && (pol_bytes[pol_i % pol_n] & 1) ? -1 : 0;
}

static void check_counts(const struct sim_hypervisor_scenario *sc, const uint64_t *v,
			 uint64_t steps)
{
	if (v[SIM_HV_C_TIME] != steps)
		abort();
	if (v[SIM_HV_C_MISSES] > v[SIM_HV_C_JOBS])
		abort();
	if (v[SIM_HV_C_RESP_MAX] > steps + 1 || v[SIM_HV_C_HOST_WAIT_MAX] > steps)
		abort();
	if (v[SIM_HV_C_JOBS] && v[SIM_HV_C_RESP_SUM] > v[SIM_HV_C_JOBS] * v[SIM_HV_C_RESP_MAX])
		abort();
	if (v[SIM_HV_C_STARVED] && v[SIM_HV_C_HOST_WAIT_MAX] <= sc->hv.bound_us)
		abort();
	/* At most one thread runs per CPU per step. */
	if (v[SIM_HV_C_VCPU_RUN] + v[SIM_HV_C_HOST_RUN] > steps * sc->hv.ncpus)
		abort();
	if (!sc->hv.pv || !sc->policy) {
		if (v[SIM_HV_C_BOOSTED] || v[SIM_HV_C_POLICY_ERR])
			abort();
	}
	if (!sc->hv.throttle && v[SIM_HV_C_THROTTLED])
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader r = { data, size };
	struct sim_hypervisor_scenario sc;
	unsigned int mode = (unsigned int)take(&r, 1);
	uint64_t seed = take(&r, 8), steps = take(&r, 2) % (MAX_STEPS + 1);
	uint64_t chunk = 1 + take(&r, 2) % 5000, done = 0;
	bool raw = mode & 1;
	struct sim *a = NULL, *b = NULL;
	char *cause = NULL;
	int ret;

	memset(&sc, 0, sizeof(sc));
	if (mode & 0x80) {
		sc = *(const struct sim_hypervisor_scenario *)
			sim_hypervisor_model.presets[mode % sim_hypervisor_model.npresets].scenario;
	} else {
		struct hv_scenario *h = &sc.hv;

		h->ncpus = field(&r, raw, 1, 2);
		h->nvcpus = field(&r, raw, 1, 2);
		h->nhost = field(&r, raw, 0, 4);
		h->vcpu_prio = field(&r, raw, 0, 98);
		h->io_prio = field(&r, raw, 0, 98);
		h->io_cpu = field(&r, raw, 0, h->ncpus - 1);
		h->rt_period_us = field(&r, raw, 100, 5000);
		h->rt_work_us = field(&r, raw, 2, h->rt_period_us / 2);
		h->rt_deadline_us = field(&r, raw, 1, 10000);
		h->rt_lock_us = field(&r, raw, 0, h->rt_period_us - h->rt_work_us);
		h->rt_io_every = field(&r, raw, 0, 8);
		h->io_service_us = field(&r, raw, 1, 500);
		h->hk_busy_pct = field(&r, raw, 0, 100);
		h->hk_lock_us = field(&r, raw, 0, 500);
		h->hk_lock_gap_us = field(&r, raw, 1, 2000);
		h->guest_rt_low = field(&r, raw, 0, 1);
		h->guest_slice_us = field(&r, raw, 1, 5000);
		h->fair_slice_us = field(&r, raw, 100, 5000);
		h->wake_gran_us = field(&r, raw, 0, h->fair_slice_us);
		h->np_max_us = field(&r, raw, 0, 1000);
		h->throttle = field(&r, raw, 0, 1);
		h->rt_window_us = field(&r, raw, 1000, 20000);
		h->rt_runtime_us = field(&r, raw, 0, h->rt_window_us);
		h->pv = field(&r, raw, 0, 1);
		h->hint_greedy = field(&r, raw, 0, 1);
		h->window_us = field(&r, raw, 1000, 20000);
		h->budget_us = field(&r, raw, 0, h->window_us);
		h->bound_us = field(&r, raw, 1000, 20000);
		h->duration_us = field(&r, raw, 1000, MAX_STEPS);
		switch ((mode >> 1) & 3) {
		case 1:
			sc.policy = sim_hypervisor_policy_reference;
			break;
		case 2:
		case 3:
			sc.policy = policy_input;
			break;
		default:
			break;
		}
	}
	pol_bytes = r.p;
	pol_n = r.n;
	pol_i = 0;
	pol_fails = mode & 8;
	ret = sim_new(&sim_hypervisor_model, &sc, seed, &a, &cause);
	if (ret) {
		if (!cause)
			abort();
		free(cause);
		return 0;
	}
	pol_i = 0;
	if (sim_new(&sim_hypervisor_model, &sc, seed, &b, &cause))
		abort();
	steps = steps < sc.hv.duration_us ? steps : sc.hv.duration_us;
	if (sim_run(a, steps, NULL) != steps)
		abort();
	pol_i = 0;
	while (done < steps) {
		uint64_t k = chunk < steps - done ? chunk : steps - done;

		if (sim_run(b, k, NULL) != k)
			abort();
		done += k;
	}
	if (!sim_counters_equal(sim_counters(a), sim_counters(b)))
		abort();
	check_counts(&sc, sim_counters(a)->v, steps);
	sim_free(a);
	sim_free(b);
	return 0;
}
