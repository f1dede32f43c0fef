/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_nop: the NOP and TDMA model (see sim_nop.h for what it models and
 * which parts are the paper's idea and which are ours). Its parts, in the
 * order of sim_example.c:
 *
 *   1. tables: names, counters, events, histograms, presets;
 *   2. the bound and check(): every rule on the scenario, each refusal
 *      with its reason;
 *   3. init()/fini();
 *   4. the pieces shared by both protocols: faults in force, verdicts and
 *      membership, the workload, per-frame figures;
 *   5. one NOP bus event, one TDMA slot, and run() with and without events;
 *   6. accessors and the ops.
 *
 * Membership is a 64-bit mask, the order is the ids' order, so the next
 * member is found with one mask and one count of trailing zeros. Faults
 * are flags in masks too; with none in force a NOP event is a handful of
 * branches, a random draw and the monitor.
 */
#include "sim_nop.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_err.h"
#include "core/rt_hist.h"
#include "sim_rng.h"

#define NONE SIM_NOP_NONE
#define BIT(n) (1ull << (n))

/* ---- Tables ------------------------------------------------------------------ */

const char *const sim_nop_protocol_names[SIM_NOP_NPROTOS] = {
	[SIM_NOP_PROTO_NOP] = "nop",
	[SIM_NOP_PROTO_TDMA] = "tdma",
};

const char *const sim_nop_fault_names[SIM_NOP_NKINDS] = {
	[SIM_NOP_F_NONE] = "none",
	[SIM_NOP_F_CRASH] = "crash",
	[SIM_NOP_F_BABBLE] = "babble",
	[SIM_NOP_F_SKIP] = "skip",
	[SIM_NOP_F_CORRUPT] = "corrupt",
	[SIM_NOP_F_LATE] = "late",
	[SIM_NOP_F_DUP] = "dup",
	[SIM_NOP_F_DRIFT] = "drift",
	[SIM_NOP_F_REPAIR] = "repair",
};

int sim_nop_fault_find(const char *name)
{
	for (int i = SIM_NOP_F_CRASH; i < SIM_NOP_NKINDS; i++)
		if (!strcmp(name, sim_nop_fault_names[i]))
			return i;
	return -1;
}

static const struct sim_counter_desc nop_counters[SIM_NOP_NCOUNTERS] = {
	[SIM_NOP_C_FRAMES] = { "frames_count", SIM_COUNTER_SUM, "frames on the bus" },
	[SIM_NOP_C_DATA_FRAMES] = { "data_frames_count", SIM_COUNTER_SUM,
				    "frames with data delivered" },
	[SIM_NOP_C_EMPTY_FRAMES] = { "empty_frames_count", SIM_COUNTER_SUM,
				     "\"nothing to send\" and join frames" },
	[SIM_NOP_C_SILENT_TURNS] = { "silent_turns_count", SIM_COUNTER_SUM,
				     "turns (NOP) or slots (TDMA) of a member that stayed silent" },
	[SIM_NOP_C_ROUNDS] = { "rounds_count", SIM_COUNTER_SUM, "rounds (NOP) or cycles (TDMA)" },
	[SIM_NOP_C_DATA_TIME] = { "data_time_ns", SIM_COUNTER_SUM,
				  "bus time carrying data frames that arrived" },
	[SIM_NOP_C_BUSY_TIME] = { "busy_time_ns", SIM_COUNTER_SUM, "bus time carrying any frame" },
	[SIM_NOP_C_DATA_BYTES] = { "payload_bytes", SIM_COUNTER_SUM, "payload delivered" },
	[SIM_NOP_C_TIME] = { "time_ns", SIM_COUNTER_MAX, "simulated time" },
	[SIM_NOP_C_INJECTED] = { "faults_injected_count", SIM_COUNTER_SUM,
				 "faults injected on a member" },
	[SIM_NOP_C_IGNORED] = { "faults_ignored_count", SIM_COUNTER_SUM,
				"faults of the list that hit a node already out or crashed" },
	[SIM_NOP_C_DETECTED] = { "faults_detected_count", SIM_COUNTER_SUM,
				 "injected faults a verdict named the node of" },
	[SIM_NOP_C_FALSE_POS] = { "false_positives_count", SIM_COUNTER_SUM,
				  "verdicts against a node with no fault" },
	[SIM_NOP_C_DETECT_SUM] = { "detection_sum_ns", SIM_COUNTER_SUM,
				   "detection latencies added up (injection to verdict)" },
	[SIM_NOP_C_DETECT_MAX] = { "detection_max_ns", SIM_COUNTER_MAX,
				   "the longest detection latency" },
	[SIM_NOP_C_DETECT_LATE] = { "detections_over_bound_count", SIM_COUNTER_SUM,
				    "detections later than the computed bound" },
	[SIM_NOP_C_BOUND] = { "detection_bound_ns", SIM_COUNTER_MAX,
			      "the worst-case detection time computed from the configuration" },
	[SIM_NOP_C_TIMEOUT] = { "timeout_ns", SIM_COUNTER_MAX,
				"NOP: T_to, silence after a turn began; TDMA: the start window" },
	[SIM_NOP_C_AGREE_MAX] = { "agreement_max_ns", SIM_COUNTER_MAX,
				  "a verdict to the end of the next member's frame, which announces it" },
	[SIM_NOP_C_EXCLUSIONS] = { "exclusions_count", SIM_COUNTER_SUM,
				   "nodes dropped from the membership" },
	[SIM_NOP_C_REJOINS] = { "rejoins_count", SIM_COUNTER_SUM, "nodes that rejoined" },
	[SIM_NOP_C_ORDER] = { "order_violations_count", SIM_COUNTER_SUM,
			      "frames a correct node sent out of its turn (must stay 0)" },
	[SIM_NOP_C_COLLISIONS] = { "collisions_count", SIM_COUNTER_SUM,
				   "frames lost to another frame on the bus" },
	[SIM_NOP_C_ACCESS_MAX] = { "access_max_ns", SIM_COUNTER_MAX,
				   "the longest time between two starts of one node" },
	[SIM_NOP_C_JITTER_MAX] = { "access_jitter_max_ns", SIM_COUNTER_MAX,
				   "the widest spread (max - min) of that time, worst node" },
	[SIM_NOP_C_ROUND_MAX] = { "round_max_ns", SIM_COUNTER_MAX,
				  "the longest round (NOP) or cycle (TDMA)" },
};

static const struct sim_event_desc nop_events[SIM_NOP_NEVENTS] = {
	[SIM_NOP_EV_FRAME] = { "frame", "node", "length_ns", "flags" },
	[SIM_NOP_EV_SILENT] = { "silent", "node", "timeout_ns", NULL },
	[SIM_NOP_EV_INJECT] = { "inject", "node", "kind", NULL },
	[SIM_NOP_EV_DETECT] = { "detect", "node", "kind", "latency_ns" },
	[SIM_NOP_EV_FALSE] = { "false-positive", "node", "kind", NULL },
	[SIM_NOP_EV_JOIN] = { "join", "node", NULL, NULL },
	[SIM_NOP_EV_ROUND] = { "round", NULL, "round", "length_ns" },
	[SIM_NOP_EV_REPAIR] = { "repair", "node", NULL, NULL },
	[SIM_NOP_EV_LOST] = { "not-injected", "node", "kind", "out_since_ns" },
};

static const char *const nop_hists[SIM_NOP_NHISTS] = {
	[SIM_NOP_HIST_DETECT] = "detection",
	[SIM_NOP_HIST_ACCESS] = "access",
};

void sim_nop_lesson(struct sim_nop_scenario *sc, enum sim_nop_protocol protocol)
{
	memset(sc, 0, sizeof(*sc));
	sc->protocol = protocol;
	sc->nodes = 4;
	sc->bit_ns = 125;		/* 8 Mbit/s: one byte a microsecond */
	sc->gap_bits = 40;		/* 5 us */
	sc->jitter_bits = 0;
	sc->frame_max = 100;		/* 100 us */
	sc->frame_bytes[0] = 30;
	sc->frame_bytes[1] = 100;
	sc->frame_bytes[2] = 0;		/* nothing to send: the 10 us empty frame */
	sc->frame_bytes[3] = 45;
	sc->late_bits = 400;		/* 50 us */
	sc->guard_bits = 160;		/* 20 us */
	sc->sync_cycles = 4;
	sc->drift_ppm = 50;
	sc->drift_fault_ppm = 20000;
	sc->duration_ns = 100ull * 205000;	/* 100 NOP rounds */
}

/*
 * The presets: a random load of 8 nodes with jitter, without and with a
 * fault of every kind. (The lesson's example has no randomness at all, so
 * it is sim_nop_lesson(), not a preset: a preset must change with the seed.)
 */
#define BUSY(p, f, nf) { .protocol = p, .nodes = 8, .bit_ns = 125, .gap_bits = 40, \
	.jitter_bits = 16, .frame_max = 100, .load_pct = 60, .data_min = 20, \
	.late_bits = 400, .guard_bits = 160, .sync_cycles = 4, .drift_ppm = 50, \
	.drift_fault_ppm = 20000, .duration_ns = 100000000ull, .faults = f, .nfaults = nf }

static const struct sim_nop_fault nop_faults_nop[] = {
	{ 10000000, SIM_NOP_F_CRASH, 1 }, { 20000000, SIM_NOP_F_BABBLE, 2 },
	{ 30000000, SIM_NOP_F_SKIP, 3 }, { 40000000, SIM_NOP_F_CORRUPT, 4 },
	{ 50000000, SIM_NOP_F_LATE, 5 }, { 60000000, SIM_NOP_F_DUP, 6 },
	{ 70000000, SIM_NOP_F_REPAIR, 1 },
};
static const struct sim_nop_fault nop_faults_tdma[] = {
	{ 10000000, SIM_NOP_F_CRASH, 1 }, { 20000000, SIM_NOP_F_BABBLE, 2 },
	{ 30000000, SIM_NOP_F_SKIP, 3 }, { 40000000, SIM_NOP_F_CORRUPT, 4 },
	{ 50000000, SIM_NOP_F_LATE, 5 }, { 60000000, SIM_NOP_F_DUP, 6 },
	{ 65000000, SIM_NOP_F_DRIFT, 7 }, { 70000000, SIM_NOP_F_REPAIR, 1 },
};
#define NF(a) (sizeof(a) / sizeof(a[0]))

static const struct sim_nop_scenario nop_busy_nop = BUSY(SIM_NOP_PROTO_NOP, NULL, 0);
static const struct sim_nop_scenario nop_busy_tdma = BUSY(SIM_NOP_PROTO_TDMA, NULL, 0);
static const struct sim_nop_scenario nop_faulty_nop =
	BUSY(SIM_NOP_PROTO_NOP, nop_faults_nop, NF(nop_faults_nop));
static const struct sim_nop_scenario nop_faulty_tdma =
	BUSY(SIM_NOP_PROTO_TDMA, nop_faults_tdma, NF(nop_faults_tdma));

static const struct sim_preset nop_presets[] = {
	{ "busy-nop", "8 nodes, data in 60% of turns, 2 us of jitter, NOP", &nop_busy_nop },
	{ "busy-tdma", "the same load in TDMA slots of 100 + 20 us", &nop_busy_tdma },
	{ "faults-nop", "busy-nop with a fault of every kind, one every 10 ms",
	  &nop_faulty_nop },
	{ "faults-tdma", "busy-tdma with a fault of every kind and a drift", &nop_faulty_tdma },
};

/* ---- The bound and the check ------------------------------------------------------ */

static uint64_t frame_ns(const struct sim_nop_scenario *sc, uint32_t bytes)
{
	return (uint64_t)bytes * 8 * sc->bit_ns;
}

static uint64_t gap_max_ns(const struct sim_nop_scenario *sc)
{
	return (uint64_t)(sc->gap_bits + sc->jitter_bits) * sc->bit_ns;
}

static uint64_t slot_ns(const struct sim_nop_scenario *sc)
{
	return frame_ns(sc, sc->frame_max) + (uint64_t)sc->guard_bits * sc->bit_ns;
}

uint64_t sim_nop_timeout_ns(const struct sim_nop_scenario *sc)
{
	if (sc->protocol == SIM_NOP_PROTO_TDMA)
		return (uint64_t)sc->guard_bits * sc->bit_ns;
	return frame_ns(sc, sc->frame_max) + gap_max_ns(sc);
}

uint64_t sim_nop_bound_ns(const struct sim_nop_scenario *sc)
{
	if (sc->protocol == SIM_NOP_PROTO_TDMA)
		return ((uint64_t)sc->sync_cycles + 2 + sc->nfaults) * sc->nodes * slot_ns(sc);
	return ((uint64_t)sc->nodes + 1 + 2ull * sc->nfaults) * sim_nop_timeout_ns(sc);
}

/* The largest clock offset node @n reaches at @ppm between two resynchronisations. */
static uint64_t drift_reach_ns(const struct sim_nop_scenario *sc, uint32_t n, uint32_t ppm)
{
	uint64_t since = ((uint64_t)sc->sync_cycles - 1) * sc->nodes * slot_ns(sc) +
			 (uint64_t)n * slot_ns(sc);

	return since * ppm / 1000000;
}

static int nop_check(const void *scenario, char **cause)
{
	const struct sim_nop_scenario *sc = scenario;
	uint64_t half = (uint64_t)sc->guard_bits * sc->bit_ns / 2;

	if (sc->protocol >= SIM_NOP_NPROTOS)
		return rt_err(cause, -EINVAL, "protocol %u is neither nop (0) nor tdma (1)",
			      sc->protocol);
	if (sc->nodes < 2 || sc->nodes > SIM_NOP_NODES_MAX)
		return rt_err(cause, -EINVAL, "nodes %u is outside 2 .. %u", sc->nodes,
			      SIM_NOP_NODES_MAX);
	if (sc->bit_ns < 1 || sc->bit_ns > 1000000)
		return rt_err(cause, -EINVAL, "bit_ns %u is outside 1 .. 1000000", sc->bit_ns);
	if (sc->gap_bits < 1 || sc->gap_bits > 1000000 || sc->jitter_bits > 1000000)
		return rt_err(cause, -EINVAL,
			      "gap_bits must be 1 .. 1000000 and jitter_bits at most 1000000");
	if (sc->frame_max <= SIM_NOP_FRAME_MIN || sc->frame_max > SIM_NOP_FRAME_MAX)
		return rt_err(cause, -EINVAL, "frame_max %u is outside %u .. %u bytes",
			      sc->frame_max, SIM_NOP_FRAME_MIN + 1, SIM_NOP_FRAME_MAX);
	if (sc->load_pct > 100)
		return rt_err(cause, -EINVAL, "load_pct %u is above 100", sc->load_pct);
	if (sc->load_pct && (sc->data_min <= SIM_NOP_FRAME_MIN || sc->data_min > sc->frame_max))
		return rt_err(cause, -EINVAL, "data_min %u is outside %u .. frame_max",
			      sc->data_min, SIM_NOP_FRAME_MIN + 1);
	for (uint32_t i = 0; !sc->load_pct && i < sc->nodes; i++)
		if (sc->frame_bytes[i] &&
		    (sc->frame_bytes[i] <= SIM_NOP_FRAME_MIN || sc->frame_bytes[i] > sc->frame_max))
			return rt_err(cause, -EINVAL,
				      "frame_bytes[%u] %u is neither 0 (nothing to send) nor "
				      "%u .. frame_max", i, sc->frame_bytes[i],
				      SIM_NOP_FRAME_MIN + 1);
	if (sc->late_bits < 1 || sc->late_bits > 10000000)
		return rt_err(cause, -EINVAL, "late_bits %u is outside 1 .. 10000000",
			      sc->late_bits);
	if (sc->protocol == SIM_NOP_PROTO_NOP && sc->late_bits <= sc->jitter_bits)
		return rt_err(cause, -EINVAL, "late_bits %u is within the jitter (%u bits): a "
			      "late frame would be on time", sc->late_bits, sc->jitter_bits);
	if (sc->guard_bits < 2 || sc->guard_bits > 1000000)
		return rt_err(cause, -EINVAL, "guard_bits %u is outside 2 .. 1000000",
			      sc->guard_bits);
	if (sc->protocol == SIM_NOP_PROTO_TDMA &&
	    (uint64_t)sc->late_bits * sc->bit_ns <= half)
		return rt_err(cause, -EINVAL, "late_bits %u is within half the guard band: a "
			      "late frame would start in its window", sc->late_bits);
	if (sc->sync_cycles < 1 || sc->sync_cycles > 1000)
		return rt_err(cause, -EINVAL, "sync_cycles %u is outside 1 .. 1000",
			      sc->sync_cycles);
	if (sc->drift_ppm > 100000 || sc->drift_fault_ppm > 500000)
		return rt_err(cause, -EINVAL, "drift_ppm is at most 100000, drift_fault_ppm at "
			      "most 500000");
	if (sc->protocol == SIM_NOP_PROTO_TDMA &&
	    drift_reach_ns(sc, sc->nodes - 1, sc->drift_ppm) >= half)
		return rt_err(cause, -ERANGE, "a drift of %u ppm leaves the guard band between "
			      "two resynchronisations without any fault: resync more often "
			      "(sync_cycles) or widen guard_bits", sc->drift_ppm);
	if (sc->duration_ns < 1 || sc->duration_ns > SIM_NOP_DURATION_MAX)
		return rt_err(cause, -EINVAL, "duration_ns is outside 1 .. %llu",
			      (unsigned long long)SIM_NOP_DURATION_MAX);
	if (sc->nfaults > SIM_NOP_FAULTS_MAX || (sc->nfaults && !sc->faults))
		return rt_err(cause, -EINVAL, "at most %u faults, in an array",
			      SIM_NOP_FAULTS_MAX);
	for (uint32_t i = 0; i < sc->nfaults; i++) {
		const struct sim_nop_fault *f = &sc->faults[i];

		if (f->kind <= SIM_NOP_F_NONE || f->kind >= SIM_NOP_NKINDS)
			return rt_err(cause, -EINVAL, "fault %u: unknown kind %u", i, f->kind);
		if (f->node >= sc->nodes)
			return rt_err(cause, -EINVAL, "fault %u: node %u, but nodes are 0 .. %u",
				      i, f->node, sc->nodes - 1);
		if (i && f->time_ns < sc->faults[i - 1].time_ns)
			return rt_err(cause, -EINVAL, "fault %u: the faults must be in time order",
				      i);
		if (f->kind == SIM_NOP_F_DRIFT && sc->protocol != SIM_NOP_PROTO_TDMA)
			return rt_err(cause, -EINVAL, "fault %u: drift: NOP keeps no clock that "
				      "could drift (use it with TDMA)", i);
		if (f->kind == SIM_NOP_F_DRIFT &&
		    drift_reach_ns(sc, f->node, sc->drift_fault_ppm) <= half + 1000)
			return rt_err(cause, -ERANGE, "fault %u: a drift of %u ppm on node %u "
				      "never leaves its window between two resynchronisations: "
				      "harmless (raise drift_fault_ppm or sync_cycles)", i,
				      sc->drift_fault_ppm, f->node);
	}
	return 0;
}

/* ---- State ------------------------------------------------------------------ */

struct nop_state {
	struct sim_nop_scenario sc;	/* a copy; faults stay borrowed */
	struct sim_rng rng;
	uint64_t bit, gap, jitter, frame_max, gap_max, tmo, bound, late, guard, slot, cycle;
	uint64_t t_end;			/* NOP: the end of the last turn; TDMA: next slot's start */
	uint32_t last_pos;		/* whose turn ended last (NOP) */
	uint32_t prev_src;		/* who sent the last frame, NONE after silence */
	bool prev_own;			/* that frame was its own turn's */
	bool dead;			/* no member and no one to rejoin: the bus is idle */
	uint64_t members, crashed, babblers, impostors, rejoin, skip, corrupt, late_m;
	uint32_t next_fault;
	uint64_t pend_time[SIM_NOP_NODES_MAX];
	uint32_t pend_n[SIM_NOP_NODES_MAX];
	uint64_t crash_ns[SIM_NOP_NODES_MAX], excl_ns[SIM_NOP_NODES_MAX];	/* for LOST events */
	uint64_t last_start[SIM_NOP_NODES_MAX];
	uint64_t acc_min[SIM_NOP_NODES_MAX], acc_max[SIM_NOP_NODES_MAX];
	int32_t drift[SIM_NOP_NODES_MAX];	/* TDMA: ppm */
	uint64_t round_start, rounds;
	uint64_t agree_from;		/* a verdict not announced yet, or UINT64_MAX */
	uint64_t slot_idx, last_sync;	/* TDMA */
	struct rt_hist *hist[SIM_NOP_NHISTS];
};

static void nop_fini(void *state)
{
	struct nop_state *st = state;

	for (unsigned int i = 0; i < SIM_NOP_NHISTS; i++) {
		rt_hist_free(st->hist[i]);
		st->hist[i] = NULL;
	}
}

static uint32_t us_buckets(uint64_t ns)
{
	uint64_t us = ns / 1000 + 2;

	return us > 100000 ? 100000 : (uint32_t)us;
}

static int nop_init(void *state, const void *scenario, uint64_t seed, char **cause)
{
	struct nop_state *st = state;
	const struct sim_nop_scenario *sc = scenario;

	st->sc = *sc;
	st->bit = sc->bit_ns;
	st->gap = (uint64_t)sc->gap_bits * sc->bit_ns;
	st->jitter = sc->jitter_bits;
	st->frame_max = frame_ns(sc, sc->frame_max);
	st->gap_max = gap_max_ns(sc);
	st->tmo = sim_nop_timeout_ns(sc);
	st->bound = sim_nop_bound_ns(sc);
	st->late = (uint64_t)sc->late_bits * sc->bit_ns;
	st->guard = (uint64_t)sc->guard_bits * sc->bit_ns;
	st->slot = slot_ns(sc);
	st->cycle = st->slot * sc->nodes;
	st->members = sc->nodes == 64 ? ~0ull : BIT(sc->nodes) - 1;
	st->last_pos = sc->nodes - 1;
	st->prev_src = NONE;
	st->agree_from = UINT64_MAX;
	sim_rng_seed(&st->rng, seed);
	for (uint32_t i = 0; i < sc->nodes; i++) {
		st->pend_time[i] = UINT64_MAX;
		st->last_start[i] = UINT64_MAX;
		st->acc_min[i] = UINT64_MAX;
		if (sc->protocol == SIM_NOP_PROTO_TDMA && sc->drift_ppm)
			st->drift[i] = (int32_t)sim_rng_range(&st->rng, 0, 2ull * sc->drift_ppm) -
				       (int32_t)sc->drift_ppm;
	}
	st->hist[SIM_NOP_HIST_DETECT] = rt_hist_new(us_buckets(st->bound), 0);
	st->hist[SIM_NOP_HIST_ACCESS] =
		rt_hist_new(us_buckets(sc->protocol == SIM_NOP_PROTO_TDMA ? 2 * st->cycle :
				       (uint64_t)(sc->nodes + 2) * st->tmo), 0);
	if (!st->hist[0] || !st->hist[1]) {
		nop_fini(st);
		return rt_err(cause, -ENOMEM, "no memory for the histograms");
	}
	return 0;
}

static const struct rt_hist *nop_hist(const void *state, unsigned int i)
{
	const struct nop_state *st = state;

	return st->hist[i];
}

/* ---- Shared pieces ------------------------------------------------------------------ */

/* Apply the faults of the list due at or before @now. */
static void faults_apply(struct nop_state *st, uint64_t now, struct sim_counters *c,
			 struct sim_events *ev)
{
	while (st->next_fault < st->sc.nfaults && st->sc.faults[st->next_fault].time_ns <= now) {
		const struct sim_nop_fault *f = &st->sc.faults[st->next_fault++];
		uint64_t b = BIT(f->node);

		if (f->kind == SIM_NOP_F_REPAIR) {
			if (ev)
				sim_events_push(ev, f->time_ns, SIM_NOP_EV_REPAIR, f->node, 0, 0);
			st->crashed &= ~b;
			st->babblers &= ~b;
			st->impostors &= ~b;
			if (st->sc.protocol == SIM_NOP_PROTO_TDMA)
				st->drift[f->node] = 0;
			if (!(st->members & b))
				st->rejoin |= b;
			st->dead = false;
			continue;
		}
		if (!(st->members & b) || (st->crashed & b)) {
			bool crashed = st->crashed & b;

			c->v[SIM_NOP_C_IGNORED]++;
			/* Said, not silent: a node that is down cannot get another fault. */
			if (ev)
				sim_events_push(ev, f->time_ns, SIM_NOP_EV_LOST, f->node,
						f->kind | (crashed ? SIM_NOP_EVA_CRASHED : 0),
						crashed ? st->crash_ns[f->node] : st->excl_ns[f->node]);
			continue;
		}
		c->v[SIM_NOP_C_INJECTED]++;
		if (!st->pend_n[f->node])
			st->pend_time[f->node] = f->time_ns;
		st->pend_n[f->node]++;
		if (ev)
			sim_events_push(ev, f->time_ns, SIM_NOP_EV_INJECT, f->node, f->kind, 0);
		switch (f->kind) {
		case SIM_NOP_F_CRASH: st->crashed |= b; st->crash_ns[f->node] = f->time_ns; break;
		case SIM_NOP_F_BABBLE: st->babblers |= b; break;
		case SIM_NOP_F_SKIP: st->skip |= b; break;
		case SIM_NOP_F_CORRUPT: st->corrupt |= b; break;
		case SIM_NOP_F_LATE: st->late_m |= b; break;
		case SIM_NOP_F_DUP: st->impostors |= b; break;
		case SIM_NOP_F_DRIFT: st->drift[f->node] = (int32_t)st->sc.drift_fault_ppm; break;
		default: break;
		}
	}
}

/*
 * A verdict at @now: the node is dropped from the membership (every
 * correct node saw the same and decides the same), its pending faults are
 * detected, or the verdict was a false positive. A node whose fault was
 * transient (or that had none) may rejoin; a crashed one after a repair;
 * a babbler and an impostor are silenced (a bus guardian's job in a real
 * network: our model's assumption).
 */
static void verdict_apply(struct nop_state *st, uint64_t now, const struct sim_nop_verdict *v,
			  struct sim_counters *c, struct sim_events *ev)
{
	uint32_t n = v->node;
	uint64_t b;

	if (v->kind == SIM_NOP_F_NONE || n >= st->sc.nodes)
		return;
	b = BIT(n);
	if (st->pend_n[n]) {
		uint64_t lat = now - st->pend_time[n];

		c->v[SIM_NOP_C_DETECTED] += st->pend_n[n];
		c->v[SIM_NOP_C_DETECT_SUM] += lat * st->pend_n[n];
		sim_counter_max(c, SIM_NOP_C_DETECT_MAX, lat);
		if (lat > st->bound)
			c->v[SIM_NOP_C_DETECT_LATE] += st->pend_n[n];
		rt_hist_add(st->hist[SIM_NOP_HIST_DETECT],
			    &(struct rt_sample){ .seq = c->v[SIM_NOP_C_DETECTED],
						 .latency_ns = (int64_t)lat });
		if (ev)
			sim_events_push(ev, now, SIM_NOP_EV_DETECT, n, v->kind, lat);
		st->pend_n[n] = 0;
		st->pend_time[n] = UINT64_MAX;
	} else if (st->members & b) {
		c->v[SIM_NOP_C_FALSE_POS]++;
		if (ev)
			sim_events_push(ev, now, SIM_NOP_EV_FALSE, n, v->kind, 0);
	} else {
		return;		/* a verdict on a node already out changes nothing */
	}
	if (st->members & b) {
		st->members &= ~b;
		st->excl_ns[n] = now;
		c->v[SIM_NOP_C_EXCLUSIONS]++;
	}
	st->last_start[n] = UINT64_MAX;	/* its wait restarts when it is back */
	st->skip &= ~b;
	st->corrupt &= ~b;
	st->late_m &= ~b;
	if (st->babblers & b) {
		st->babblers &= ~b;
		st->crashed |= b;	/* silenced until a repair */
		st->crash_ns[n] = now;
	}
	st->impostors &= ~b;
	if (!(st->crashed & b))
		st->rejoin |= b;
	if (st->sc.protocol == SIM_NOP_PROTO_TDMA)
		st->drift[n] = 0;
	if (st->agree_from == UINT64_MAX)
		st->agree_from = now;
}

/* A node's frame this turn, in bytes: its fixed size or a draw. */
static inline uint32_t workload_bytes(struct nop_state *st, uint32_t n)
{
	if (!st->sc.load_pct)
		return st->sc.frame_bytes[n] ? st->sc.frame_bytes[n] : SIM_NOP_FRAME_MIN;
	if (sim_rng_below(&st->rng, 100) < st->sc.load_pct)
		return (uint32_t)sim_rng_range(&st->rng, st->sc.data_min, st->sc.frame_max);
	return SIM_NOP_FRAME_MIN;
}

/* Figures of a frame node @n sent in its own turn or slot, from @start for @len ns. */
static inline void own_frame(struct nop_state *st, uint32_t n, uint64_t start, uint64_t len,
			     uint32_t bytes, bool ok, struct sim_counters *c)
{
	uint64_t prev = st->last_start[n];

	if (ok) {
		if (bytes > SIM_NOP_FRAME_MIN) {
			c->v[SIM_NOP_C_DATA_FRAMES]++;
			c->v[SIM_NOP_C_DATA_TIME] += len;
			c->v[SIM_NOP_C_DATA_BYTES] += bytes - SIM_NOP_FRAME_MIN;
		} else {
			c->v[SIM_NOP_C_EMPTY_FRAMES]++;
		}
		if (st->agree_from != UINT64_MAX) {
			sim_counter_max(c, SIM_NOP_C_AGREE_MAX, start + len - st->agree_from);
			st->agree_from = UINT64_MAX;
		}
	}
	st->last_start[n] = start;
	if (prev != UINT64_MAX) {
		uint64_t acc = start - prev;

		if (acc < st->acc_min[n])
			st->acc_min[n] = acc;
		if (acc > st->acc_max[n])
			st->acc_max[n] = acc;
		sim_counter_max(c, SIM_NOP_C_ACCESS_MAX, acc);
		sim_counter_max(c, SIM_NOP_C_JITTER_MAX, st->acc_max[n] - st->acc_min[n]);
		rt_hist_add(st->hist[SIM_NOP_HIST_ACCESS],
			    &(struct rt_sample){ .seq = c->v[SIM_NOP_C_FRAMES],
						 .latency_ns = (int64_t)acc });
	}
}

/* The next member after @pos in the order, or NONE. */
static inline uint32_t next_member(uint64_t members, uint32_t pos)
{
	uint64_t after = pos >= 63 ? 0 : members & ~(BIT(pos + 1) - 1);

	if (after)
		return (uint32_t)__builtin_ctzll(after);
	return members ? (uint32_t)__builtin_ctzll(members) : NONE;
}

/* A node of @mask in the cyclic interval (from, to), exclusive, the first in order, or NONE. */
static uint32_t first_between(uint64_t mask, uint32_t from, uint32_t to, uint32_t nodes)
{
	for (uint32_t i = 1; i < nodes; i++) {
		uint32_t n = (from + i) % nodes;

		if (n == to)
			break;
		if (mask & BIT(n))
			return n;
	}
	return NONE;
}

/* A turn of @pos ended at st->t_end: count a round when the order wraps. */
static inline void turn_done(struct nop_state *st, uint32_t pos, struct sim_counters *c,
			     struct sim_events *ev)
{
	uint32_t next = next_member(st->members | st->rejoin, pos);

	st->last_pos = pos;
	if (next == NONE || next <= pos) {
		uint64_t len = st->t_end - st->round_start;

		c->v[SIM_NOP_C_ROUNDS]++;
		sim_counter_max(c, SIM_NOP_C_ROUND_MAX, len);
		if (ev)
			sim_events_push(ev, st->t_end, SIM_NOP_EV_ROUND, 0, c->v[SIM_NOP_C_ROUNDS],
					len);
		st->round_start = st->t_end;
	}
}

/* ---- NOP: one bus event ------------------------------------------------------------- */

static inline void nop_event(struct nop_state *st, struct sim_counters *c, struct sim_events *ev,
			     const bool with_ev)
{
	const uint64_t t0 = st->t_end;
	struct sim_nop_obs o;
	struct sim_nop_verdict v = { SIM_NOP_F_NONE, NONE };
	uint32_t e, src = NONE, type = SIM_NOP_T_EMPTY, bytes = 0;
	uint64_t start = UINT64_MAX, gap;
	bool own = false, ok = true;

	if (st->next_fault < st->sc.nfaults && st->sc.faults[st->next_fault].time_ns <= t0)
		faults_apply(st, t0, c, with_ev ? ev : NULL);
	e = next_member(st->members, st->last_pos);
	if (e == NONE && !st->rejoin) {
		/* Nobody left to send: idle until the next fault of the list (a repair?). */
		if (st->next_fault < st->sc.nfaults)
			st->t_end = st->sc.faults[st->next_fault].time_ns;
		else
			st->dead = true;
		return;
	}
	gap = st->gap;
	if (st->jitter)
		gap += sim_rng_below(&st->rng, st->jitter + 1) * st->bit;

	/* Whose frame starts first: a rejoining node in its place, the member, a foreigner. */
	if (st->rejoin && (src = first_between(st->rejoin, st->last_pos,
					       e == NONE ? st->last_pos : e,
					       st->sc.nodes)) != NONE &&
	    !(st->crashed & BIT(src))) {
		start = t0 + gap;
		type = SIM_NOP_T_JOIN;
		bytes = SIM_NOP_FRAME_MIN;
		own = true;
	} else if (e == NONE) {
		/* Only a rejoining node that is not in this stretch: wait a silent turn. */
		src = NONE;
	} else if (!((st->crashed | st->skip) & BIT(e))) {
		src = e;
		start = t0 + gap + ((st->late_m & BIT(e)) ? st->late : 0);
		bytes = workload_bytes(st, e);
		type = bytes > SIM_NOP_FRAME_MIN ? SIM_NOP_T_DATA : SIM_NOP_T_EMPTY;
		ok = !(st->corrupt & BIT(e));
		own = true;
	} else {
		src = NONE;
	}
	if (st->babblers | st->impostors) {
		uint64_t bab = st->babblers & st->members & ~(e == NONE ? 0 : BIT(e));
		uint64_t fs = UINT64_MAX;
		uint32_t fsrc = NONE;

		if (bab) {
			fsrc = (uint32_t)__builtin_ctzll(bab);
			fs = t0 + (st->gap / 2 > st->bit ? st->gap / 2 : st->bit);
		}
		/* An impostor answers its twin's frame as if it were its predecessor's. */
		if (st->prev_own && st->prev_src != NONE && st->prev_src != e &&
		    (st->impostors & st->members & BIT(st->prev_src)) &&
		    (fsrc == NONE || st->prev_src < fsrc)) {
			fsrc = st->prev_src;
			fs = t0 + (st->gap / 2 > st->bit ? st->gap / 2 : st->bit);
		}
		if (fsrc != NONE && fs < start) {
			src = fsrc;
			start = fs;
			bytes = st->sc.frame_max;
			type = SIM_NOP_T_DATA;
			ok = true;
			own = false;
		}
	}

	o.turn_start_ns = t0;
	o.expected = e;
	o.prev_src = st->prev_src;
	o.gap_max_ns = st->gap_max;
	o.timeout_ns = st->tmo;
	if (src == NONE || start >= t0 + st->tmo) {
		/* Silence: nobody started within T_to; a late starter gives up its turn. */
		o.now_ns = t0 + st->tmo;
		o.frame = false;
		o.crc_ok = true;
		o.member = true;
		o.src = NONE;
		o.type = SIM_NOP_T_EMPTY;
		o.start_ns = o.end_ns = o.now_ns;
		if (st->sc.monitor)
			st->sc.monitor(st->sc.monitor_priv, &o, &v);
		else
			sim_nop_monitor_ref(NULL, &o, &v);
		c->v[SIM_NOP_C_SILENT_TURNS]++;
		if (with_ev)
			sim_events_push(ev, t0, SIM_NOP_EV_SILENT, e, st->tmo, 0);
		st->t_end = o.now_ns;
		if (e != NONE) {
			st->skip &= ~BIT(e);
			st->late_m &= ~BIT(e);
		}
		verdict_apply(st, o.now_ns, &v, c, with_ev ? ev : NULL);
		st->prev_src = NONE;
		st->prev_own = false;
		turn_done(st, e == NONE ? st->last_pos : e, c, with_ev ? ev : NULL);
		return;
	}

	{
		uint64_t len = frame_ns(&st->sc, bytes);
		uint64_t fault_free = ~(st->crashed | st->babblers | st->impostors | st->skip |
					st->corrupt | st->late_m);

		o.now_ns = start + len;
		o.frame = true;
		o.crc_ok = ok;
		o.member = (st->members & BIT(src)) != 0;
		o.src = src;
		o.type = type;
		o.start_ns = start;
		o.end_ns = start + len;
		if (st->sc.monitor)
			st->sc.monitor(st->sc.monitor_priv, &o, &v);
		else
			sim_nop_monitor_ref(NULL, &o, &v);
		c->v[SIM_NOP_C_FRAMES]++;
		c->v[SIM_NOP_C_BUSY_TIME] += len;
		if (src != e && type != SIM_NOP_T_JOIN && (fault_free & BIT(src)) &&
		    !st->pend_n[src])
			c->v[SIM_NOP_C_ORDER]++;
		if (with_ev)
			sim_events_push(ev, start, SIM_NOP_EV_FRAME, src, len,
					type | (ok ? 0 : SIM_NOP_EVB_BAD) |
					(own ? 0 : SIM_NOP_EVB_FOREIGN));
		st->t_end = start + len;
		if (own)
			own_frame(st, src, start, len, bytes, ok, c);
		if (src == e) {
			st->corrupt &= ~BIT(e);
			st->late_m &= ~BIT(e);
		}
		verdict_apply(st, o.now_ns, &v, c, with_ev ? ev : NULL);
		if (type == SIM_NOP_T_JOIN && (st->rejoin & BIT(src)) &&
		    !(v.kind != SIM_NOP_F_NONE && v.node == src)) {
			st->rejoin &= ~BIT(src);
			st->members |= BIT(src);
			c->v[SIM_NOP_C_REJOINS]++;
			if (with_ev)
				sim_events_push(ev, o.now_ns, SIM_NOP_EV_JOIN, src, 0, 0);
		}
		st->prev_src = src;
		st->prev_own = own;
		if (own)
			turn_done(st, src, c, with_ev ? ev : NULL);
	}
}

/* ---- TDMA: one slot ------------------------------------------------------------------ */

static inline void tdma_slot(struct nop_state *st, struct sim_counters *c, struct sim_events *ev,
			     const bool with_ev)
{
	const uint32_t n = st->sc.nodes;
	const uint32_t o = (uint32_t)(st->slot_idx % n);
	const uint64_t s0 = st->t_end, win_end = s0 + st->guard;
	const uint64_t b = BIT(o);
	struct sim_nop_verdict v = { SIM_NOP_F_NONE, NONE };
	uint64_t bab, now = win_end;

	if (o == 0 && (st->slot_idx / n) % st->sc.sync_cycles == 0)
		st->last_sync = s0;
	if (st->next_fault < st->sc.nfaults && st->sc.faults[st->next_fault].time_ns <= s0)
		faults_apply(st, s0, c, with_ev ? ev : NULL);
	bab = st->babblers & st->members & ~b;

	if (!(st->members & b)) {
		if ((st->rejoin & b) && !(st->crashed & b)) {
			uint64_t start = s0 + st->guard / 2, len = frame_ns(&st->sc,
									    SIM_NOP_FRAME_MIN);

			st->rejoin &= ~b;
			st->members |= b;
			c->v[SIM_NOP_C_REJOINS]++;
			c->v[SIM_NOP_C_FRAMES]++;
			c->v[SIM_NOP_C_BUSY_TIME] += len;
			own_frame(st, o, start, len, SIM_NOP_FRAME_MIN, true, c);
			if (with_ev) {
				sim_events_push(ev, start, SIM_NOP_EV_FRAME, o, len,
						SIM_NOP_T_JOIN);
				sim_events_push(ev, start + len, SIM_NOP_EV_JOIN, o, 0, 0);
			}
		}
	} else if ((st->crashed | st->skip) & b) {
		c->v[SIM_NOP_C_SILENT_TURNS]++;
		if (with_ev)
			sim_events_push(ev, s0, SIM_NOP_EV_SILENT, o, st->guard, 0);
		st->skip &= ~b;
		v = (struct sim_nop_verdict){ SIM_NOP_F_CRASH, o };
	} else {
		int64_t off = (int64_t)(s0 - st->last_sync) * st->drift[o] / 1000000;
		int64_t start = (int64_t)(s0 + st->guard / 2) + off +
				((st->late_m & b) ? (int64_t)st->late : 0);
		uint32_t bytes = workload_bytes(st, o);
		uint64_t len = frame_ns(&st->sc, bytes);
		bool ok = !(st->corrupt & b), clash = (st->impostors & b) != 0;

		st->late_m &= ~b;
		st->corrupt &= ~b;
		if (start < (int64_t)s0 || start > (int64_t)win_end) {
			/* Outside its window: seen at the window's edge, not taken. */
			now = start < (int64_t)s0 ? s0 : win_end;
			v = (struct sim_nop_verdict){ SIM_NOP_F_LATE, o };
		} else if (bab) {
			/* A babbler sends at the slot's start: both frames are lost. */
			uint32_t bb = (uint32_t)__builtin_ctzll(bab);

			now = s0 + st->frame_max;
			c->v[SIM_NOP_C_COLLISIONS] += 2;
			c->v[SIM_NOP_C_FRAMES] += 2;
			c->v[SIM_NOP_C_BUSY_TIME] += st->frame_max;
			if (with_ev)
				sim_events_push(ev, s0, SIM_NOP_EV_FRAME, bb, st->frame_max,
						SIM_NOP_T_DATA | SIM_NOP_EVB_BAD |
						SIM_NOP_EVB_FOREIGN);
			own_frame(st, o, (uint64_t)start, len, bytes, false, c);
			v = (struct sim_nop_verdict){ SIM_NOP_F_BABBLE, bb };
		} else {
			if (clash) {
				c->v[SIM_NOP_C_COLLISIONS] += 2;
				ok = false;
			}
			now = (uint64_t)start + len;
			c->v[SIM_NOP_C_FRAMES]++;
			c->v[SIM_NOP_C_BUSY_TIME] += len;
			if (with_ev)
				sim_events_push(ev, (uint64_t)start, SIM_NOP_EV_FRAME, o, len,
						(bytes > SIM_NOP_FRAME_MIN ? SIM_NOP_T_DATA :
						 SIM_NOP_T_EMPTY) | (ok ? 0 : SIM_NOP_EVB_BAD));
			own_frame(st, o, (uint64_t)start, len, bytes, ok, c);
			if (!ok)
				v = (struct sim_nop_verdict){ SIM_NOP_F_CORRUPT, o };
		}
	}
	verdict_apply(st, now, &v, c, with_ev ? ev : NULL);
	st->slot_idx++;
	st->t_end = s0 + st->slot;
	if (o == n - 1) {
		c->v[SIM_NOP_C_ROUNDS]++;
		sim_counter_max(c, SIM_NOP_C_ROUND_MAX, st->cycle);
		if (with_ev)
			sim_events_push(ev, st->t_end, SIM_NOP_EV_ROUND, 0, c->v[SIM_NOP_C_ROUNDS],
					st->cycle);
	}
}

/* ---- Run --------------------------------------------------------------------------- */

static inline __attribute__((always_inline)) uint64_t
nop_loop(struct nop_state *st, uint64_t steps, struct sim_counters *c, struct sim_events *ev,
	 const bool with_ev)
{
	const uint64_t end = st->sc.duration_ns;
	const bool tdma = st->sc.protocol == SIM_NOP_PROTO_TDMA;
	uint64_t done = 0;

	c->v[SIM_NOP_C_BOUND] = st->bound;
	c->v[SIM_NOP_C_TIMEOUT] = st->tmo;
	for (; done < steps && st->t_end < end && !st->dead; done++) {
		if (tdma)
			tdma_slot(st, c, ev, with_ev);
		else
			nop_event(st, c, ev, with_ev);
	}
	if (st->dead && st->t_end < end && done < steps) {
		/*
		 * Nobody left: the bus stays idle to the end, one step of its own
		 * (taken in the next call when this one has none left, so that
		 * a run in chunks counts the same steps as a run in one call).
		 */
		st->t_end = end;
		done++;
	}
	sim_counter_max(c, SIM_NOP_C_TIME, st->t_end);
	return done;
}

static uint64_t nop_run(void *state, uint64_t steps, struct sim_counters *c,
			struct sim_events *ev)
{
	if (ev)
		return nop_loop(state, steps, c, ev, true);
	return nop_loop(state, steps, c, NULL, false);
}

/* ---- The monitor, accessors and the model ------------------------------------------ */

void sim_nop_monitor_ref(void *priv, const struct sim_nop_obs *o, struct sim_nop_verdict *v)
{
	(void)priv;
	v->kind = SIM_NOP_F_NONE;
	v->node = SIM_NOP_NONE;
	if (!o->frame) {
		if (o->expected != SIM_NOP_NONE)
			*v = (struct sim_nop_verdict){ SIM_NOP_F_CRASH, o->expected };
	} else if (!o->crc_ok) {
		*v = (struct sim_nop_verdict){ SIM_NOP_F_CORRUPT, o->expected };
	} else if (o->type == SIM_NOP_T_JOIN && !o->member) {
		return;
	} else if (o->src != o->expected) {
		/* Its own id again right after its frame: a second node with that id. */
		*v = (struct sim_nop_verdict){ o->src == o->prev_src ? SIM_NOP_F_DUP :
					       SIM_NOP_F_BABBLE, o->src };
	} else if (o->start_ns > o->turn_start_ns + o->gap_max_ns) {
		*v = (struct sim_nop_verdict){ SIM_NOP_F_LATE, o->src };
	}
}

uint64_t sim_nop_members(const void *state)
{
	return ((const struct nop_state *)state)->members;
}

uint32_t sim_nop_expected(const void *state)
{
	const struct nop_state *st = state;

	if (st->sc.protocol == SIM_NOP_PROTO_TDMA)
		return (uint32_t)(st->slot_idx % st->sc.nodes);
	return next_member(st->members, st->last_pos);
}

const struct sim_model_ops sim_nop_model = {
	.name = "nop",
	.title = "Node Order Protocol and TDMA on a shared bus",
	.step_unit = "frame",
	.time_unit = "ns",
	.state_size = sizeof(struct nop_state),
	.scenario_size = sizeof(struct sim_nop_scenario),
	.counters = nop_counters,
	.ncounters = SIM_NOP_NCOUNTERS,
	.events = nop_events,
	.nevents = SIM_NOP_NEVENTS,
	.hists = nop_hists,
	.nhists = SIM_NOP_NHISTS,
	.presets = nop_presets,
	.npresets = sizeof(nop_presets) / sizeof(nop_presets[0]),
	.check = nop_check,
	.init = nop_init,
	.run = nop_run,
	.hist = nop_hist,
	.fini = nop_fini,
};
