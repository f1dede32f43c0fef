/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for the example model (rtlab/sim/sim_example.c) and the
 * contract around it. The input is read as little-endian numbers (missing
 * bytes are zero):
 *
 *   mode (1)   bit 7 set: preset (mode % npresets) with jobs from the input;
 *              otherwise a scenario from the input, every field mapped into
 *              its valid range, or taken raw when bit 0 is set (mostly refused)
 *   seed (8), steps (2, at most MAX_STEPS), chunk (2), ring capacity (1)
 *   then the scenario's fields, 8 bytes each
 *
 * A refused scenario must come with a cause. An accepted one is run three
 * ways (counters only in one call, with events in chunks through a small
 * ring, and through sim_run_chunked()), which must agree exactly, and the
 * counters, histograms and events must satisfy the model's invariants.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_hist.h"
#include "fuzz_input.h"
#include "sim/sim.h"
#include "sim/sim_example.h"

/* Steps per input: a step may walk up to 2048 background segments. */
#define MAX_STEPS 600u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A value in [lo, hi] from 8 input bytes, or the raw bytes. */
static uint64_t field(struct reader *r, bool raw, uint64_t lo, uint64_t hi)
{
	uint64_t v = take(r, 8);

	if (raw || hi <= lo)
		return raw ? v : lo;
	return lo + v % (hi - lo + 1);
}

static void scenario_from(struct reader *r, unsigned int mode, struct sim_example_scenario *sc)
{
	bool raw = mode & 1;

	sc->period_ns = field(r, raw, SIM_EXAMPLE_PERIOD_MIN_NS, 2000000);
	sc->deadline_ns = field(r, raw, 1, sc->period_ns);
	sc->exec_ns = field(r, raw, 1, sc->period_ns);
	sc->section_min_ns = field(r, raw, 1 + sc->period_ns / 256, sc->period_ns);
	sc->section_max_ns = field(r, raw, sc->section_min_ns, sc->period_ns);
	sc->gap_min_ns = field(r, raw, 1, 10000000);
	sc->gap_max_ns = field(r, raw, sc->gap_min_ns, sc->gap_min_ns + 10000000);
	sc->jobs = field(r, raw, 0, 3 * MAX_STEPS);
	sc->hist_bound_us = (uint32_t)field(r, raw, 1, 3000);
}

static void check_hists_equal(const struct sim *a, const struct sim *b)
{
	for (unsigned int i = 0; i < SIM_EXAMPLE_NHISTS; i++) {
		const struct rt_hist *x = sim_hist(a, i), *y = sim_hist(b, i);
		struct rt_hist_summary sx, sy;

		rt_hist_summarize(x, &sx);
		rt_hist_summarize(y, &sy);
		if (sx.count != sy.count || sx.overflow != sy.overflow || sx.max_ns != sy.max_ns ||
		    sx.min_ns != sy.min_ns)
			abort();
		for (unsigned int k = 0; k < rt_hist_nbuckets(x); k++)
			if (rt_hist_bucket(x, k) != rt_hist_bucket(y, k))
				abort();
	}
}

static void check_invariants(const struct sim *s, const struct sim_example_scenario *sc,
			     uint64_t steps)
{
	const uint64_t *v = sim_counters(s)->v;
	uint64_t rel = v[SIM_EXAMPLE_RELEASES], bound;
	struct rt_hist_summary hs;

	if (rel != sim_steps(s) || rel > steps || (sc->jobs && rel > sc->jobs))
		abort();
	if (rel < steps && !sim_done(s))
		abort();
	if (v[SIM_EXAMPLE_MISSES] > rel || v[SIM_EXAMPLE_DELAYED] > rel ||
	    v[SIM_EXAMPLE_BLOCKED] > v[SIM_EXAMPLE_DELAYED])
		abort();
	if (v[SIM_EXAMPLE_DELAY_MAX] > v[SIM_EXAMPLE_DELAY_SUM])
		abort();
	if (__builtin_mul_overflow(rel, v[SIM_EXAMPLE_DELAY_MAX], &bound) ||
	    v[SIM_EXAMPLE_DELAY_SUM] > bound)
		abort();
	if ((v[SIM_EXAMPLE_DELAY_MAX] > 0) != (v[SIM_EXAMPLE_DELAYED] > 0))
		abort();
	/* Every job runs exec_ns, so the worst response is the worst delay plus that. */
	if (rel && v[SIM_EXAMPLE_RESPONSE_MAX] != v[SIM_EXAMPLE_DELAY_MAX] + sc->exec_ns)
		abort();
	/* No miss is possible when even the worst job met the deadline. */
	if ((v[SIM_EXAMPLE_RESPONSE_MAX] > sc->deadline_ns) != (v[SIM_EXAMPLE_MISSES] > 0))
		abort();
	/* Only a section the background entered can block a job. */
	if (v[SIM_EXAMPLE_BLOCKED] > v[SIM_EXAMPLE_SECTIONS])
		abort();
	rt_hist_summarize(sim_hist(s, SIM_EXAMPLE_HIST_DELAY), &hs);
	if (hs.count != rel || (rel && (uint64_t)hs.max_ns != v[SIM_EXAMPLE_DELAY_MAX]))
		abort();
	rt_hist_summarize(sim_hist(s, SIM_EXAMPLE_HIST_RESPONSE), &hs);
	if (hs.count != rel || (rel && (uint64_t)hs.max_ns != v[SIM_EXAMPLE_RESPONSE_MAX]))
		abort();
}

/* Drain the ring; every event pushed is popped (*popped) or lost. */
static void check_events(struct sim_events *ev, size_t cap, uint64_t *popped)
{
	uint64_t next;
	struct sim_event e;
	char line[160];

	if (ev->count > cap || ev->pushed != *popped + ev->count + ev->lost)
		abort();
	next = ev->pushed - ev->count;	/* the oldest event kept */
	while (sim_events_pop(ev, &e)) {
		(*popped)++;
		if (e.seq != next++ || e.type >= SIM_EXAMPLE_NEVENTS || e.who != 0)
			abort();
		if (sim_event_format(&sim_example_model, &e, line, sizeof(line)) <= 0)
			abort();
	}
	if (next != ev->pushed)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader r = { data, size };
	struct sim_example_scenario sc;
	struct sim *one = NULL, *evs = NULL, *chunked = NULL;
	struct sim_events ev = { 0 };
	unsigned int mode = (unsigned int)take(&r, 1);
	uint64_t seed = take(&r, 8), steps = take(&r, 2) % (MAX_STEPS + 1);
	uint64_t chunk = take(&r, 2) % 3000 + 1, left, popped = 0;
	size_t cap = (size_t)take(&r, 1) + 1;
	char *cause = NULL;
	int ret;

	memset(&sc, 0, sizeof(sc));
	if (mode & 0x80) {
		unsigned int n;
		const struct sim_preset *p = sim_example_presets(&n);

		sc = *(const struct sim_example_scenario *)p[mode % n].scenario;
		sc.jobs = take(&r, 2);
	} else {
		scenario_from(&r, mode, &sc);
	}

	ret = sim_new(&sim_example_model, &sc, seed, &one, &cause);
	if (ret) {
		/* Every refusal says why, and the model's check agrees. */
		if (!cause || one || sim_example_model.check(&sc, NULL) != ret)
			abort();
		free(cause);
		return 0;
	}
	if (cause || sim_new(&sim_example_model, &sc, seed, &evs, NULL) ||
	    sim_new(&sim_example_model, &sc, seed, &chunked, NULL) ||
	    sim_events_init(&ev, cap))
		abort();

	sim_run(one, steps, NULL);
	for (left = steps; left > 0; ) {
		uint64_t k = left < chunk ? left : chunk, got = sim_run(evs, k, &ev);

		if (got > k)
			abort();
		check_events(&ev, cap, &popped);
		if (got < k)
			break;
		left -= k;
	}
	if (sim_run_chunked(chunked, steps, chunk, NULL, NULL, NULL))
		abort();

	if (!sim_counters_equal(sim_counters(one), sim_counters(evs)) ||
	    !sim_counters_equal(sim_counters(one), sim_counters(chunked)) ||
	    sim_steps(one) != sim_steps(evs) || sim_steps(one) != sim_steps(chunked) ||
	    sim_done(one) != sim_done(evs) || sim_done(one) != sim_done(chunked))
		abort();
	check_hists_equal(one, evs);
	check_hists_equal(one, chunked);
	check_invariants(one, &sc, steps);

	sim_events_fini(&ev);
	sim_free(one);
	sim_free(evs);
	sim_free(chunked);
	return 0;
}
