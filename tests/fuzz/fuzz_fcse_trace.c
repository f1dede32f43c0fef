/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for the FCSE model's trace readers (rtlab/sim/sim_fcse_trace.c)
 * and the model replaying what they read (rtlab/sim/sim_fcse.c).
 *
 * The first input byte picks the reader (0 binary, 1 din, 2 lackey, else
 * the detected format) and the cache geometry, replacement and mode; the
 * rest is the file. A refusal must come with a cause (ASan sees that
 * sim_fcse_trace_fini() then frees everything). A trace that parses must hold only valid records, and is
 * replayed by a small scenario (the trace as a looping process next to
 * the RT task, a few ticks) three ways: counters only in one call, with
 * events in uneven chunks, through sim_run_chunked(); all three must agree
 * and the counters must keep their invariants.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"
#include "sim/sim_fcse.h"
#include "sim/sim_fcse_trace.h"

#define MAX_STEPS 20000u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_invariants(const struct sim *s)
{
	const uint64_t *v = sim_counters(s)->v;

	if (v[SIM_FCSE_C_ACCESSES] != sim_steps(s) ||
	    v[SIM_FCSE_C_ACCESSES] != v[SIM_FCSE_C_I_ACCESSES] + v[SIM_FCSE_C_D_ACCESSES] ||
	    v[SIM_FCSE_C_I_MISSES] > v[SIM_FCSE_C_I_ACCESSES] ||
	    v[SIM_FCSE_C_D_MISSES] > v[SIM_FCSE_C_D_ACCESSES] ||
	    v[SIM_FCSE_C_TLB_MISSES] > v[SIM_FCSE_C_TLB_LOOKUPS] ||
	    v[SIM_FCSE_C_FILLS] > v[SIM_FCSE_C_I_MISSES] + v[SIM_FCSE_C_D_MISSES] +
				  v[SIM_FCSE_C_STRADDLES] ||
	    v[SIM_FCSE_C_SWITCH_MAX] > v[SIM_FCSE_C_SWITCH_SUM] ||
	    v[SIM_FCSE_C_LATENCY_MAX] > v[SIM_FCSE_C_LATENCY_SUM] ||
	    v[SIM_FCSE_C_REFUSED] != v[SIM_FCSE_C_REFUSED_FORK] + v[SIM_FCSE_C_REFUSED_MMAP])
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_fcse_trace t;
	struct sim_fcse_scenario sc;
	struct sim_fcse_proc kinds[2];
	struct sim *one = NULL, *evs = NULL, *chunked = NULL;
	struct sim_events ev = { 0 };
	const char *text = (const char *)data + 1;
	size_t len = size ? size - 1 : 0;
	unsigned int sel = size ? data[0] : 0;
	char *copy, *cause = NULL;
	int fmt, ret;

	if (!size)
		return 0;
	/* The binary reader may use its input in place: give it an aligned copy. */
	copy = malloc(len + 1);
	if (!copy)
		return 0;
	memcpy(copy, text, len);
	fmt = (sel & 3) == 3 ? sim_fcse_trace_detect(copy, len) : (int)(sel & 3);
	if (fmt < 0) {
		free(copy);
		return 0;
	}
	ret = sim_fcse_trace_parse(copy, len, fmt, &t, &cause);
	if (ret) {
		if (!cause)
			abort();
		free(cause);
		sim_fcse_trace_fini(&t);
		free(copy);
		return 0;
	}
	if (cause || !t.n)
		abort();
	for (uint64_t i = 0; i < t.n; i++)
		if ((t.rec[i] & 3) == 3 || (t.rec[i] & 0x18u))
			abort();

	sim_fcse_workload("small", (enum sim_fcse_mode)(sel >> 2) % SIM_FCSE_NMODES, &sc);
	kinds[0] = sc.procs[0];
	kinds[1] = (struct sim_fcse_proc){ .name = "fuzz", .count = 1 + (sel >> 4) % 3,
					   .trace = t.rec, .trace_len = t.n };
	sc.procs = kinds;
	sc.nprocs = 2;
	sc.ticks = 3;
	sc.tick_us = 20;
	sc.rt_accesses = 50;
	sc.repl = (enum sim_fcse_repl)((sel >> 6) % SIM_FCSE_NREPL);
	sc.write_allocate = sel & 0x20;
	if (sel & 0x40)
		sc.icache = sc.dcache = (struct sim_fcse_cache_geom){ 4096, 64 };
	if (sim_new(&sim_fcse_model, &sc, sel, &one, NULL) ||
	    sim_new(&sim_fcse_model, &sc, sel, &evs, NULL) ||
	    sim_new(&sim_fcse_model, &sc, sel, &chunked, NULL) || sim_events_init(&ev, 7))
		abort();
	sim_run(one, MAX_STEPS, NULL);
	for (uint64_t left = sim_steps(one), k = 1; left > 0; k = k * 3 + 1) {
		uint64_t n = k < left ? k : left;

		if (sim_run(evs, n, &ev) != n)
			abort();
		left -= n;
		if (ev.pushed != ev.count + ev.lost)
			abort();
	}
	if (sim_run_chunked(chunked, sim_steps(one), 333, NULL, NULL, NULL))
		abort();
	if (sim_done(one)) {
		sim_run(evs, 1, &ev);
		sim_run(chunked, 1, NULL);
	}
	if (!sim_counters_equal(sim_counters(one), sim_counters(evs)) ||
	    !sim_counters_equal(sim_counters(one), sim_counters(chunked)) ||
	    sim_steps(one) != sim_steps(evs) || sim_done(one) != sim_done(evs))
		abort();
	check_invariants(one);
	sim_events_fini(&ev);
	sim_free(one);
	sim_free(evs);
	sim_free(chunked);
	sim_fcse_trace_fini(&t);
	free(copy);
	return 0;
}
