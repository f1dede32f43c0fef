/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for the Node Order Protocol model (rtlab/sim/sim_nop.c) and its
 * scenario check. The input is read as little-endian numbers (missing bytes
 * are zero):
 *
 *   mode (1)   bit 7 set: the lesson's scenario (bit 0: TDMA) with the
 *              input's faults; otherwise a scenario built from the input,
 *              every field mapped into its valid range, or taken raw when
 *              bit 0 is set (mostly refused). Bit 1: a monitor that answers
 *              with verdicts read from the input instead of the reference
 *   seed (8), steps (2, at most MAX_STEPS frames), chunk (2)
 *   then the scenario's fields, 4 bytes each (8 for the duration), then
 *   the number of faults (1) and each fault (time 4, kind 1, node 1), then
 *   the monitor's bytes
 *
 * A refused scenario must come with a cause. An accepted one is run in one
 * call and in chunks, which must agree exactly, and the counters must keep
 * the model's invariants: no more detections than injections, and with
 * the reference monitor correct nodes never break the order and (NOP) no
 * correct node is ever blamed.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "sim/sim.h"
#include "sim/sim_nop.h"

#define MAX_STEPS 20000u
#define MAX_FAULTS 16u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t field(struct reader *r, bool raw, uint32_t lo, uint32_t hi)
{
	uint32_t v = (uint32_t)take(r, 4);

	if (raw)
		return v;
	return hi <= lo ? lo : lo + v % (hi - lo + 1);
}

/* The input's monitor: verdicts from its bytes, cycled (a static is fine: one thread). */
static const uint8_t *mon_bytes;
static size_t mon_n, mon_i;

static void monitor_input(void *priv, const struct sim_nop_obs *o, struct sim_nop_verdict *v)
{
	(void)priv;
	(void)o;
	if (!mon_n)
		return;
	v->kind = mon_bytes[mon_i++ % mon_n] % SIM_NOP_NKINDS;
	v->node = mon_bytes[mon_i++ % mon_n];	/* past the nodes now and then: refused */
}

static void check_counts(const struct sim_nop_scenario *sc, const uint64_t *v)
{
	if (v[SIM_NOP_C_DATA_FRAMES] + v[SIM_NOP_C_EMPTY_FRAMES] > v[SIM_NOP_C_FRAMES])
		abort();
	if (v[SIM_NOP_C_DATA_TIME] > v[SIM_NOP_C_BUSY_TIME])
		abort();
	if (v[SIM_NOP_C_DETECTED] > v[SIM_NOP_C_INJECTED])
		abort();
	if (v[SIM_NOP_C_DETECT_LATE] > v[SIM_NOP_C_DETECTED])
		abort();
	if (v[SIM_NOP_C_DETECTED] &&
	    v[SIM_NOP_C_DETECT_SUM] > v[SIM_NOP_C_DETECTED] * v[SIM_NOP_C_DETECT_MAX])
		abort();
	if (!v[SIM_NOP_C_DETECTED] && (v[SIM_NOP_C_DETECT_SUM] || v[SIM_NOP_C_DETECT_MAX]))
		abort();
	if (sc->monitor)
		return;		/* a monitor of the input's may blame anyone */
	if (v[SIM_NOP_C_ORDER])
		abort();	/* correct nodes keep the order, whatever the faulty ones do */
	if (sc->protocol == SIM_NOP_PROTO_NOP && v[SIM_NOP_C_FALSE_POS])
		abort();	/* the reference monitor blames no correct node */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader r = { data, size };
	struct sim_nop_fault faults[MAX_FAULTS];
	struct sim_nop_scenario sc;
	unsigned int mode = (unsigned int)take(&r, 1), nf;
	uint64_t seed = take(&r, 8), steps = take(&r, 2) % (MAX_STEPS + 1);
	uint64_t chunk = 1 + take(&r, 2) % 5000, done = 0;
	bool raw = mode & 1;
	struct sim *a = NULL, *b = NULL;
	char *cause = NULL;
	int ret;

	memset(&sc, 0, sizeof(sc));
	if (mode & 0x80) {
		sim_nop_lesson(&sc, mode & 1 ? SIM_NOP_PROTO_TDMA : SIM_NOP_PROTO_NOP);
	} else {
		sc.protocol = field(&r, raw, 0, SIM_NOP_NPROTOS - 1);
		sc.nodes = field(&r, raw, 2, 16);
		sc.bit_ns = field(&r, raw, 1, 1000);
		sc.gap_bits = field(&r, raw, 1, 200);
		sc.jitter_bits = field(&r, raw, 0, 200);
		sc.frame_max = field(&r, raw, SIM_NOP_FRAME_MIN + 1, 200);
		sc.load_pct = field(&r, raw, 0, 100);
		sc.data_min = field(&r, raw, SIM_NOP_FRAME_MIN + 1, sc.frame_max);
		for (uint32_t i = 0; i < sc.nodes && i < SIM_NOP_NODES_MAX; i++) {
			uint32_t f = field(&r, raw, 0, sc.frame_max);

			sc.frame_bytes[i] = (uint16_t)(raw || f > SIM_NOP_FRAME_MIN ? f : 0);
		}
		sc.late_bits = field(&r, raw, 1, 2000);
		sc.guard_bits = field(&r, raw, 2, 400);
		sc.sync_cycles = field(&r, raw, 1, 100);
		sc.drift_ppm = field(&r, raw, 0, 200);
		sc.drift_fault_ppm = field(&r, raw, 0, 200000);
		sc.duration_ns = raw ? take(&r, 8) : 1000 + take(&r, 8) % 20000000ull;
	}
	nf = (unsigned int)take(&r, 1) % (MAX_FAULTS + 1);
	for (unsigned int i = 0; i < nf; i++) {
		uint64_t t = take(&r, 4);
		uint32_t kind = (uint32_t)take(&r, 1), node = (uint32_t)take(&r, 1);

		faults[i] = (struct sim_nop_fault){
			raw ? t : t % (sc.duration_ns + 1),
			raw ? kind : 1 + kind % (SIM_NOP_NKINDS - 1),
			raw ? node : node % sc.nodes };
	}
	if (!raw)	/* the model wants them in time order */
		for (unsigned int i = 1; i < nf; i++)
			for (unsigned int j = i; j && faults[j].time_ns < faults[j - 1].time_ns;
			     j--) {
				struct sim_nop_fault t = faults[j];

				faults[j] = faults[j - 1];
				faults[j - 1] = t;
			}
	sc.faults = nf ? faults : NULL;
	sc.nfaults = nf;
	if (mode & 2) {
		sc.monitor = monitor_input;
		mon_bytes = r.p;
		mon_n = r.n;
	}
	mon_i = 0;
	ret = sim_new(&sim_nop_model, &sc, seed, &a, &cause);
	if (ret) {
		if (!cause)
			abort();
		free(cause);
		return 0;
	}
	if (sim_new(&sim_nop_model, &sc, seed, &b, &cause))
		abort();
	mon_i = 0;
	steps = sim_run(a, steps, NULL);
	mon_i = 0;
	while (done < steps) {
		uint64_t k = chunk < steps - done ? chunk : steps - done, got = sim_run(b, k, NULL);

		if (!got)
			abort();	/* b ended before a did the same steps */
		done += got;
	}
	if (!sim_counters_equal(sim_counters(a), sim_counters(b)))
		abort();
	check_counts(&sc, sim_counters(a)->v);
	sim_free(a);
	sim_free(b);
	return 0;
}
