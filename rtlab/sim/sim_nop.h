/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_nop: N nodes sharing one broadcast medium, either by the Node Order
 * Protocol (NOP: a fixed order of turns, each node sending when its
 * predecessor's frame has ended) or by TDMA (static slots of the longest
 * frame plus a guard band, clocks that drift and resynchronise), with the
 * faults of lesson 09 injected at given times, for the nop lab.
 *
 * The idea of a node order replacing a global clock is the paper's
 * (doc/references.md 5.1); everything concrete here is OUR model (5.2 there,
 * labs/nop/README.md): the frame format, the gap, the timeout, the
 * monitor's rules, membership by exclusion and rejoin by a join frame, and
 * the detection bound. The paper's own frame format, timeouts and bound
 * were not found.
 *
 * The medium is a bus of a nominal bit rate (bit_ns per bit): every time
 * is a whole number of bit times, every frame a whole number of bytes
 * (sim_nop_frame.h has the format: a 6-byte header, the payload, a CRC-32).
 * At the default 8 Mbit/s a byte takes 1 us, so the lesson's 10 us
 * "nothing to send" frame is a frame without payload.
 *
 * NOP, our model: the members take turns in id order. The turn of node e
 * begins when the previous frame ends (t_end); e starts after a gap of
 * gap_bits plus up to jitter_bits of processing jitter. Everybody hears
 * everything, so every correct node runs the same monitor over the same
 * frames and reaches the same verdict (membership agreement on a
 * broadcast medium); the node whose turn is next announces it in its
 * frame header. If nothing starts within the timeout T_to = frame_max +
 * gap_max after t_end, e is declared silent and its successor takes the
 * turn. A timed-out turn thus costs exactly as much as a turn with a
 * longest frame. An excluded node that recovers sends a join frame in its
 * old place in the order (before the next member's turn) and is a member
 * again.
 *
 * TDMA, for comparison: a cycle of N slots of (frame_max + guard); the
 * owner sends at its slot start + guard / 2 by its own clock, whose
 * offset grows with its drift and is reset every sync_cycles cycles (the
 * synchronisation piggybacks on the frames: no slot is spent on it). A
 * frame must start within the slot's first guard band; nothing by then is
 * a silent node. The TDMA monitor is built in.
 *
 * A step is one bus event: a frame, a silent turn or slot. The run ends at
 * duration_ns of simulated time.
 */
#ifndef RTLAB_SIM_SIM_NOP_H
#define RTLAB_SIM_SIM_NOP_H

#include <stdbool.h>
#include <stdint.h>

#include "sim.h"

#define SIM_NOP_NODES_MAX 64u
#define SIM_NOP_FAULTS_MAX 256u
#define SIM_NOP_BYTES_MIN 6u		/* the header; + the 4-byte CRC = 10 */
#define SIM_NOP_FRAME_MIN 10u		/* the smallest frame: header and CRC */
#define SIM_NOP_FRAME_MAX 1500u
#define SIM_NOP_DURATION_MAX (3600ull * 1000000000ull)	/* an hour of bus time */
#define SIM_NOP_NONE 0xffffffffu	/* "no node" */

enum sim_nop_protocol {
	SIM_NOP_PROTO_NOP,
	SIM_NOP_PROTO_TDMA,
	SIM_NOP_NPROTOS
};
extern const char *const sim_nop_protocol_names[SIM_NOP_NPROTOS];

/*
 * The faults, as --fault KIND@TIME[:NODE] spells them. repair is not a
 * fault: it ends a crash or a babbler's or impostor's fault, so that the
 * node can rejoin.
 */
enum sim_nop_fault_kind {
	SIM_NOP_F_NONE,		/* a verdict of "nothing wrong" */
	SIM_NOP_F_CRASH,	/* the node stops sending (until a repair) */
	SIM_NOP_F_BABBLE,	/* it sends out of turn, after every frame */
	SIM_NOP_F_SKIP,		/* it stays silent for its next turn */
	SIM_NOP_F_CORRUPT,	/* its next frame has a bad CRC */
	SIM_NOP_F_LATE,		/* its next frame starts late_bits late */
	SIM_NOP_F_DUP,		/* a second node claims its id */
	SIM_NOP_F_DRIFT,	/* TDMA: its clock drifts by drift_fault_ppm */
	SIM_NOP_F_REPAIR,	/* not a fault: the node recovers */
	SIM_NOP_NKINDS
};
extern const char *const sim_nop_fault_names[SIM_NOP_NKINDS];

/* sim_nop_fault_find - the kind called @name, or -1 */
int sim_nop_fault_find(const char *name);

struct sim_nop_fault {
	uint64_t time_ns;	/* when it is injected, simulated time */
	uint32_t kind;		/* enum sim_nop_fault_kind, not NONE */
	uint32_t node;		/* < nodes */
};

/* Frame types (sim_nop_frame.h encodes them). */
enum sim_nop_frame_type {
	SIM_NOP_T_EMPTY,	/* "nothing to send": header and CRC */
	SIM_NOP_T_DATA,
	SIM_NOP_T_JOIN,		/* an excluded node asks to rejoin, in its old place */
	SIM_NOP_NTYPES
};

/*
 * What a monitor sees of one bus event, and what it answers. Every
 * correct node sees the same, so one monitor stands for all of them.
 * Called at the end of each frame and at the end of a silent turn.
 */
struct sim_nop_obs {
	uint64_t now_ns;	/* the frame's end, or the timeout's expiry */
	uint64_t turn_start_ns;	/* the previous frame's end: @expected's turn began */
	uint32_t expected;	/* the member whose turn it is */
	uint32_t prev_src;	/* who sent the previous frame, or SIM_NOP_NONE */
	bool frame;		/* a frame was heard; false: silence until now_ns */
	bool crc_ok;		/* its CRC was right */
	bool member;		/* its source is a member */
	uint32_t src;		/* its source id */
	uint32_t type;		/* enum sim_nop_frame_type */
	uint64_t start_ns, end_ns;
	uint64_t gap_max_ns;	/* gap + jitter: the latest a correct node starts */
	uint64_t timeout_ns;	/* T_to: silence this long after turn_start is a fault */
};

struct sim_nop_verdict {
	uint32_t kind;		/* SIM_NOP_F_NONE, or the fault found */
	uint32_t node;		/* the node blamed */
};

/*
 * A monitor: fill @v from @o. Returns nothing; @v comes zeroed (no fault).
 * A learner's monitor is this hook in the scenario.
 */
typedef void (*sim_nop_monitor_fn)(void *priv, const struct sim_nop_obs *o,
				   struct sim_nop_verdict *v);

/**
 * sim_nop_monitor_ref - the built-in NOP monitor (our rules)
 *
 * Silence: the expected node is silent. A bad CRC: the expected node sent a
 * corrupted frame. A join frame from a non-member: fine (the model checks
 * its place). Another source than the expected one: a duplicated id when
 * it also sent the previous frame, else babbling. A start after turn_start +
 * gap_max: a late frame. @priv is unused.
 */
void sim_nop_monitor_ref(void *priv, const struct sim_nop_obs *o, struct sim_nop_verdict *v);

struct sim_nop_scenario {
	uint32_t protocol;		/* enum sim_nop_protocol */
	uint32_t nodes;			/* 2 .. SIM_NOP_NODES_MAX */
	uint32_t bit_ns;		/* one bit time: 125 (8 Mbit/s), 1 .. 1000000 */
	uint32_t gap_bits;		/* NOP: processing gap before a frame, >= 1 */
	uint32_t jitter_bits;		/* NOP: up to this much more, uniform */
	uint32_t frame_max;		/* bytes, the longest frame, SIM_NOP_FRAME_MIN .. MAX */
	/*
	 * The workload. load_pct 0: every node sends frame_bytes[i] every
	 * turn (0: nothing to send, the empty frame); else a node has data
	 * with probability load_pct percent, of data_min .. frame_max bytes.
	 */
	uint32_t load_pct;		/* 0 .. 100 */
	uint32_t data_min;		/* bytes, > SIM_NOP_FRAME_MIN .. frame_max */
	uint16_t frame_bytes[SIM_NOP_NODES_MAX];	/* 0 or SIM_NOP_FRAME_MIN+1 .. frame_max */
	uint32_t late_bits;		/* a late frame's extra delay, >= 1 */
	uint32_t guard_bits;		/* TDMA guard band per slot, >= 2 */
	uint32_t sync_cycles;		/* TDMA: clocks resynchronised every so many cycles, >= 1 */
	uint32_t drift_ppm;		/* TDMA: normal drift, each clock in +-drift_ppm */
	uint32_t drift_fault_ppm;	/* TDMA: a drift fault's rate; must leave the window */
	uint64_t duration_ns;		/* simulated time, 1 .. SIM_NOP_DURATION_MAX */
	const struct sim_nop_fault *faults;	/* borrowed, sorted by time */
	uint32_t nfaults;		/* 0 .. SIM_NOP_FAULTS_MAX */
	sim_nop_monitor_fn monitor;	/* NOP's monitor, NULL: sim_nop_monitor_ref */
	void *monitor_priv;
};

/* Counters, in this order. */
enum sim_nop_counter {
	SIM_NOP_C_FRAMES,		/* frames_count */
	SIM_NOP_C_DATA_FRAMES,		/* data_frames_count */
	SIM_NOP_C_EMPTY_FRAMES,		/* empty_frames_count */
	SIM_NOP_C_SILENT_TURNS,		/* silent_turns_count */
	SIM_NOP_C_ROUNDS,		/* rounds_count */
	SIM_NOP_C_DATA_TIME,		/* data_time_ns: time carrying data frames */
	SIM_NOP_C_BUSY_TIME,		/* busy_time_ns: time carrying any frame */
	SIM_NOP_C_DATA_BYTES,		/* payload_bytes */
	SIM_NOP_C_TIME,			/* time_ns */
	SIM_NOP_C_INJECTED,		/* faults_injected_count */
	SIM_NOP_C_IGNORED,		/* faults_ignored_count: on a node already out */
	SIM_NOP_C_DETECTED,		/* faults_detected_count */
	SIM_NOP_C_FALSE_POS,		/* false_positives_count */
	SIM_NOP_C_DETECT_SUM,		/* detection_sum_ns */
	SIM_NOP_C_DETECT_MAX,		/* detection_max_ns */
	SIM_NOP_C_DETECT_LATE,		/* detections_over_bound_count */
	SIM_NOP_C_BOUND,		/* detection_bound_ns */
	SIM_NOP_C_TIMEOUT,		/* timeout_ns: T_to (NOP) or the slot's window (TDMA) */
	SIM_NOP_C_AGREE_MAX,		/* agreement_max_ns: verdict to the announcing frame's end */
	SIM_NOP_C_EXCLUSIONS,		/* exclusions_count */
	SIM_NOP_C_REJOINS,		/* rejoins_count */
	SIM_NOP_C_ORDER,		/* order_violations_count: by correct nodes */
	SIM_NOP_C_COLLISIONS,		/* collisions_count (TDMA) */
	SIM_NOP_C_ACCESS_MAX,		/* access_max_ns: longest wait between a node's starts */
	SIM_NOP_C_JITTER_MAX,		/* access_jitter_max_ns: max - min of that wait, worst node */
	SIM_NOP_C_ROUND_MAX,		/* round_max_ns: the longest round or cycle */
	SIM_NOP_NCOUNTERS
};

enum sim_nop_event {
	SIM_NOP_EV_FRAME,	/* time = start, who = src, a = length_ns, b = type | bad<<4 | foreign<<5 */
	SIM_NOP_EV_SILENT,	/* time = turn start, who = expected, a = timeout_ns */
	SIM_NOP_EV_INJECT,	/* who = node, a = kind */
	SIM_NOP_EV_DETECT,	/* who = node, a = kind, b = latency_ns (0 for a false positive) */
	SIM_NOP_EV_FALSE,	/* a verdict on a correct node: who = node, a = kind */
	SIM_NOP_EV_JOIN,	/* who = node: a member again */
	SIM_NOP_EV_ROUND,	/* who = 0, a = round, b = its length_ns */
	SIM_NOP_EV_REPAIR,	/* who = node: a repair took effect */
	SIM_NOP_EV_LOST,	/* a fault not injected: who = node, a = kind | SIM_NOP_EVA_CRASHED
				 * (the node had crashed; else it was out of the membership),
				 * b = when it crashed or was excluded, ns */
	SIM_NOP_NEVENTS
};
#define SIM_NOP_EVB_BAD 16u		/* SIM_NOP_EV_FRAME's b: bad CRC or collision */
#define SIM_NOP_EVB_FOREIGN 32u		/* out of turn (babbler, impostor) */
#define SIM_NOP_EVA_CRASHED 0x100u	/* SIM_NOP_EV_LOST's a: the node had crashed */

enum sim_nop_hist {
	SIM_NOP_HIST_DETECT,	/* detection latency, per detected fault */
	SIM_NOP_HIST_ACCESS,	/* a node's wait between two of its starts, per frame */
	SIM_NOP_NHISTS
};

extern const struct sim_model_ops sim_nop_model;

/**
 * sim_nop_lesson - lesson 09's worked example into @sc
 * @protocol: NOP or TDMA
 *
 * 4 nodes at 8 Mbit/s (1 us a byte) sending 30, 100, nothing and 45 us
 * every turn; a 10 us empty frame; a 5 us gap and no jitter; frames of at
 * most 100 us; TDMA slots of 100 + 20 us. One NOP round is 205 us, one
 * TDMA cycle 480 us. Lasts 100 rounds of NOP; no faults.
 */
void sim_nop_lesson(struct sim_nop_scenario *sc, enum sim_nop_protocol protocol);

/**
 * sim_nop_bound_ns - the worst-case detection time of @sc's faults
 *
 * NOP: a turn lasts at most turn_max = frame_max + gap_max = T_to (a
 * silent turn included). A fault injected at t is in force at the node's
 * next turn, at most one round of N turns after the turn going on at t;
 * it is seen by the end of that turn. Each fault of the list can lengthen
 * the rounds before it by at most two turns (a babbler's or impostor's
 * frame, a late frame, a rejoin). So (N + 1 + 2F) x turn_max.
 * TDMA: a slot's fault is seen by the end of its slot, at most two cycles
 * on; a drift leaves its window within a resync period: (sync_cycles + 2)
 * cycles. Both are what the tests and the lab's grade hold detections to.
 */
uint64_t sim_nop_bound_ns(const struct sim_nop_scenario *sc);

/* sim_nop_timeout_ns - T_to (NOP: frame_max + gap_max) or the start window (TDMA: guard) */
uint64_t sim_nop_timeout_ns(const struct sim_nop_scenario *sc);

/* What a screen draws, read between chunks (sim_state()). */
/* The members now, bit i for node i. */
uint64_t sim_nop_members(const void *state);
/* The node whose turn or slot is next. */
uint32_t sim_nop_expected(const void *state);

#endif /* RTLAB_SIM_SIM_NOP_H */
