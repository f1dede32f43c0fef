/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the NOP/TDMA model (rtlab/sim/sim_nop.c) and its frame
 * format (sim_nop_frame.c): lesson 09's arithmetic reproduced by a run
 * (one NOP round of 205 us, one TDMA cycle of 480 us, 175 us of data);
 * each fault kind under both protocols with its detection time computed
 * by hand; membership (exclusion, rejoin, repair); a learner's monitor
 * as the hook; property tests over many seeds (no correct node ever sends
 * out of turn, every injected fault detected within the computed bound,
 * no false positive, 10,000 fault-free rounds with jitter); every refusal
 * of check(); the frame encoder and decoder.
 *
 * Where the numbers come from: the lesson's round and cycle are the
 * lesson's own arithmetic; the detection times are worked out in the
 * comment above each test from the model's rules (sim_nop.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"
#include "sim/sim_nop.h"
#include "sim/sim_nop_frame.h"
#include "sim/sim_rng.h"

#define US 1000ull

static struct sim *new_sim(const struct sim_nop_scenario *sc, uint64_t seed)
{
	struct sim *s = NULL;
	char *cause = NULL;

	if (sim_new(&sim_nop_model, sc, seed, &s, &cause))
		fail_msg("sim_new: %s", cause);
	return s;
}

static uint64_t cnt(const struct sim *s, const char *name)
{
	uint64_t v = 0;

	assert_int_equal(sim_counters_get(sim_counters(s), name, &v), 0);
	return v;
}

/* Run @sc to its end; the caller frees. */
static struct sim *run(const struct sim_nop_scenario *sc, uint64_t seed)
{
	struct sim *s = new_sim(sc, seed);

	sim_run(s, SIM_STEPS_ALL, NULL);
	assert_true(sim_done(s) || sim_steps(s) > 0);
	return s;
}

/* The lesson's round: 5 + 30, 5 + 100, 5 + 10, 5 + 45 = 205 us; 175 us of it data. */
static void test_lesson_nop(void **state)
{
	struct sim_nop_scenario sc;
	struct sim *s;

	(void)state;
	sim_nop_lesson(&sc, SIM_NOP_PROTO_NOP);
	sc.duration_ns = 205 * US;
	s = run(&sc, 1);
	assert_int_equal(cnt(s, "frames_count"), 4);
	assert_int_equal(cnt(s, "data_frames_count"), 3);
	assert_int_equal(cnt(s, "empty_frames_count"), 1);
	assert_int_equal(cnt(s, "time_ns"), 205 * US);
	assert_int_equal(cnt(s, "data_time_ns"), 175 * US);
	assert_int_equal(cnt(s, "busy_time_ns"), 185 * US);
	assert_int_equal(cnt(s, "rounds_count"), 1);
	assert_int_equal(cnt(s, "round_max_ns"), 205 * US);
	/* T_to = 100 + 5 us; the bound without faults (4 + 1) x 105 us. */
	assert_int_equal(cnt(s, "timeout_ns"), 105 * US);
	assert_int_equal(cnt(s, "detection_bound_ns"), 525 * US);
	sim_free(s);

	/* The default: 100 rounds, every one 205 us, every node waiting 205 us for its next turn. */
	sim_nop_lesson(&sc, SIM_NOP_PROTO_NOP);
	s = run(&sc, 1);
	assert_int_equal(cnt(s, "rounds_count"), 100);
	assert_int_equal(cnt(s, "data_time_ns"), 100 * 175 * US);
	assert_int_equal(cnt(s, "access_max_ns"), 205 * US);
	assert_int_equal(cnt(s, "access_jitter_max_ns"), 0);
	assert_int_equal(cnt(s, "faults_injected_count"), 0);
	assert_int_equal(cnt(s, "false_positives_count"), 0);
	sim_free(s);

	/* Every node with a full 100 us frame: 4 x (5 + 100) = 420 us. */
	sim_nop_lesson(&sc, SIM_NOP_PROTO_NOP);
	for (int i = 0; i < 4; i++)
		sc.frame_bytes[i] = 100;
	sc.duration_ns = 420 * US;
	s = run(&sc, 1);
	assert_int_equal(cnt(s, "round_max_ns"), 420 * US);
	sim_free(s);
}

/* The lesson's TDMA cycle: 4 slots of 100 + 20 us = 480 us, the same 175 us of data. */
static void test_lesson_tdma(void **state)
{
	struct sim_nop_scenario sc;
	struct sim *s;

	(void)state;
	sim_nop_lesson(&sc, SIM_NOP_PROTO_TDMA);
	sc.duration_ns = 480 * US;
	s = run(&sc, 1);
	assert_int_equal(cnt(s, "time_ns"), 480 * US);
	assert_int_equal(cnt(s, "data_time_ns"), 175 * US);
	assert_int_equal(cnt(s, "rounds_count"), 1);
	assert_int_equal(cnt(s, "round_max_ns"), 480 * US);
	assert_int_equal(cnt(s, "timeout_ns"), 20 * US);
	sim_free(s);
}

/* One fault on the lesson's bus; returns the run for more checks. */
static struct sim *one_fault(enum sim_nop_protocol p, enum sim_nop_fault_kind k, uint32_t node,
			     uint64_t t, struct sim_nop_fault *f, struct sim_nop_scenario *sc)
{
	struct sim *s;

	sim_nop_lesson(sc, p);
	*f = (struct sim_nop_fault){ t, k, node };
	sc->faults = f;
	sc->nfaults = 1;
	s = run(sc, 7);
	assert_int_equal(cnt(s, "faults_injected_count"), 1);
	assert_int_equal(cnt(s, "faults_detected_count"), 1);
	assert_int_equal(cnt(s, "false_positives_count"), 0);
	assert_int_equal(cnt(s, "detections_over_bound_count"), 0);
	assert_int_equal(cnt(s, "order_violations_count"), 0);
	assert_true(cnt(s, "detection_max_ns") <= cnt(s, "detection_bound_ns"));
	return s;
}

/*
 * NOP, every fault injected at 0 on the lesson's bus (bound (4 + 1 + 2) x 105 = 735 us):
 *  crash 1:   node 1's turn begins at 35 us, silence to 35 + 105 = 140 us;
 *  skip 2:    node 2's turn begins at 140 us, silence to 245 us;
 *  corrupt 3: its frame 160 .. 205 us fails its CRC at 205 us;
 *  late 0:    5 + 50 us late, so 55 .. 85 us; starts after the 5 us gap: 85 us;
 *  babble 2:  sends 2.5 us after t = 0 (half a gap, before node 0), 100 us: 102.5 us;
 *  dup 1:     node 1 sends 40 .. 140 us, the impostor with its id 142.5 .. 242.5 us.
 */
static void test_faults_nop(void **state)
{
	static const struct { enum sim_nop_fault_kind k; uint32_t node; uint64_t ns; } c[] = {
		{ SIM_NOP_F_CRASH, 1, 140 * US },  { SIM_NOP_F_SKIP, 2, 245 * US },
		{ SIM_NOP_F_CORRUPT, 3, 205 * US }, { SIM_NOP_F_LATE, 0, 85 * US },
		{ SIM_NOP_F_BABBLE, 2, 102500 },   { SIM_NOP_F_DUP, 1, 242500 },
	};
	struct sim_nop_scenario sc;
	struct sim_nop_fault f;

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct sim *s = one_fault(SIM_NOP_PROTO_NOP, c[i].k, c[i].node, 0, &f, &sc);

		assert_int_equal(cnt(s, "detection_bound_ns"), 735 * US);
		if (cnt(s, "detection_max_ns") != c[i].ns)
			fail_msg("%s: detected after %llu ns, expected %llu",
				 sim_nop_fault_names[c[i].k],
				 (unsigned long long)cnt(s, "detection_max_ns"),
				 (unsigned long long)c[i].ns);
		assert_int_equal(cnt(s, "exclusions_count"), 1);
		/* Transient faults and the impostor's victim rejoin; a crash or a babbler do not. */
		assert_int_equal(cnt(s, "rejoins_count"),
				 c[i].k == SIM_NOP_F_CRASH || c[i].k == SIM_NOP_F_BABBLE ? 0 : 1);
		sim_free(s);
	}
}

/* After a crash the round shrinks to 30 + 10 + 45 + 3 x 5 = 100 us; a repair brings node 1 back. */
static void test_membership(void **state)
{
	struct sim_nop_scenario sc;
	struct sim_nop_fault f[2] = { { 0, SIM_NOP_F_CRASH, 1 }, { 10000 * US, SIM_NOP_F_REPAIR, 1 } };
	struct sim_events ev;
	struct sim_event e;
	struct sim *s;
	uint64_t last_round = 0;
	bool joined = false;

	(void)state;
	sim_nop_lesson(&sc, SIM_NOP_PROTO_NOP);
	sc.faults = f;
	sc.nfaults = 1;
	sc.duration_ns = 5000 * US;
	assert_int_equal(sim_events_init(&ev, 1 << 16), 0);
	s = new_sim(&sc, 3);
	sim_run(s, SIM_STEPS_ALL, &ev);
	assert_int_equal(ev.lost, 0);
	while (sim_events_pop(&ev, &e))
		if (e.type == SIM_NOP_EV_ROUND)
			last_round = e.b;
	assert_int_equal(last_round, 100 * US);
	assert_int_equal(sim_nop_members(sim_state(s)), 0xd);
	sim_free(s);

	sc.nfaults = 2;
	sc.duration_ns = 11000 * US;
	sim_events_clear(&ev);
	s = new_sim(&sc, 3);
	sim_run(s, SIM_STEPS_ALL, &ev);
	while (sim_events_pop(&ev, &e)) {
		if (e.type == SIM_NOP_EV_JOIN && e.who == 1)
			joined = true;
		if (e.type == SIM_NOP_EV_ROUND)
			last_round = e.b;
	}
	assert_true(joined);
	assert_int_equal(last_round, 205 * US);
	assert_int_equal(sim_nop_members(sim_state(s)), 0xf);
	assert_int_equal(cnt(s, "rejoins_count"), 1);
	assert_int_equal(cnt(s, "false_positives_count"), 0);
	sim_free(s);
	sim_events_fini(&ev);
}

/* TDMA: each kind detected within (4 + 2 + 1) cycles of 480 us. */
static void test_faults_tdma(void **state)
{
	static const enum sim_nop_fault_kind k[] = {
		SIM_NOP_F_CRASH, SIM_NOP_F_SKIP, SIM_NOP_F_CORRUPT, SIM_NOP_F_LATE,
		SIM_NOP_F_BABBLE, SIM_NOP_F_DUP, SIM_NOP_F_DRIFT,
	};
	struct sim_nop_scenario sc;
	struct sim_nop_fault f;

	(void)state;
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		struct sim *s = one_fault(SIM_NOP_PROTO_TDMA, k[i], 2, 1000 * US, &f, &sc);

		assert_int_equal(cnt(s, "detection_bound_ns"), 7 * 480 * US);
		sim_free(s);
	}
}

/* A monitor that never says anything misses a crash; one that blames everyone is all false positives. */
static void mon_blind(void *priv, const struct sim_nop_obs *o, struct sim_nop_verdict *v)
{
	(void)o;
	(*(unsigned int *)priv)++;
	v->kind = SIM_NOP_F_NONE;
}

static void mon_paranoid(void *priv, const struct sim_nop_obs *o, struct sim_nop_verdict *v)
{
	(void)priv;
	if (o->frame && o->member) {
		v->kind = SIM_NOP_F_BABBLE;
		v->node = o->src;
	}
}

static void test_hook(void **state)
{
	struct sim_nop_scenario sc;
	struct sim_nop_fault f = { 0, SIM_NOP_F_CRASH, 1 };
	unsigned int calls = 0;
	struct sim *s;

	(void)state;
	sim_nop_lesson(&sc, SIM_NOP_PROTO_NOP);
	sc.faults = &f;
	sc.nfaults = 1;
	sc.monitor = mon_blind;
	sc.monitor_priv = &calls;
	s = run(&sc, 1);
	assert_int_equal(cnt(s, "faults_detected_count"), 0);
	assert_true(cnt(s, "silent_turns_count") > 50);
	assert_int_equal(calls, cnt(s, "frames_count") + cnt(s, "silent_turns_count"));
	sim_free(s);

	sc.nfaults = 0;
	sc.monitor = mon_paranoid;
	s = run(&sc, 1);
	assert_true(cnt(s, "false_positives_count") > 10);
	assert_int_equal(cnt(s, "order_violations_count"), 0);
	sim_free(s);
}

/* Random faults on a random bus; the run lasts until every fault had its bound. */
static void random_scenario(struct sim_nop_scenario *sc, struct sim_nop_fault *f,
			    struct sim_rng *r, enum sim_nop_protocol p)
{
	static const enum sim_nop_fault_kind kinds[] = {
		SIM_NOP_F_CRASH, SIM_NOP_F_BABBLE, SIM_NOP_F_SKIP, SIM_NOP_F_CORRUPT,
		SIM_NOP_F_LATE, SIM_NOP_F_DUP, SIM_NOP_F_DRIFT,
	};
	uint64_t t = 0;

	sim_nop_lesson(sc, p);
	sc->nodes = (uint32_t)sim_rng_range(r, 4, 12);
	sc->load_pct = (uint32_t)sim_rng_range(r, 0, 100);
	sc->data_min = 11;
	sc->jitter_bits = p == SIM_NOP_PROTO_NOP ? (uint32_t)sim_rng_range(r, 0, 200) : 0;
	sc->late_bits = sc->jitter_bits + (uint32_t)sim_rng_range(r, 100, 1200);
	sc->sync_cycles = 8;
	sc->nfaults = (uint32_t)sim_rng_range(r, 1, 3);
	for (uint32_t i = 0; i < sc->nfaults; i++) {
		unsigned int nk = p == SIM_NOP_PROTO_NOP ? 6 : 7;

		t += sim_rng_range(r, 0, 3000 * US);
		f[i] = (struct sim_nop_fault){ t, kinds[sim_rng_below(r, nk)],
					       (uint32_t)sim_rng_below(r, sc->nodes) };
		/* A drift on the first nodes would never leave its window: see check(). */
		if (f[i].kind == SIM_NOP_F_DRIFT)
			f[i].node = sc->nodes - 1;
	}
	sc->faults = f;
	sc->duration_ns = t + sim_nop_bound_ns(sc) + 1000 * US;
}

static void property(enum sim_nop_protocol p, unsigned int seeds)
{
	struct sim_nop_fault f[4];
	struct sim_nop_scenario sc;
	uint64_t injected = 0, detected_sum = 0;
	struct sim_rng r;

	sim_rng_seed(&r, 2009 + p);
	for (unsigned int seed = 0; seed < seeds; seed++) {
		char *cause = NULL;
		struct sim *s;

		random_scenario(&sc, f, &r, p);
		if (sim_nop_model.check(&sc, &cause))
			fail_msg("seed %u: %s", seed, cause);
		s = run(&sc, seed);
		if (cnt(s, "order_violations_count") || cnt(s, "false_positives_count") ||
		    cnt(s, "detections_over_bound_count") ||
		    cnt(s, "faults_detected_count") != cnt(s, "faults_injected_count"))
			fail_msg("%s seed %u: %u nodes, %u faults (first %s@%llu:%u): injected "
				 "%llu detected %llu, false %llu, over bound %llu (max %llu, "
				 "bound %llu), order %llu", sim_nop_protocol_names[p], seed,
				 sc.nodes, sc.nfaults, sim_nop_fault_names[f[0].kind],
				 (unsigned long long)f[0].time_ns, f[0].node,
				 (unsigned long long)cnt(s, "faults_injected_count"),
				 (unsigned long long)cnt(s, "faults_detected_count"),
				 (unsigned long long)cnt(s, "false_positives_count"),
				 (unsigned long long)cnt(s, "detections_over_bound_count"),
				 (unsigned long long)cnt(s, "detection_max_ns"),
				 (unsigned long long)cnt(s, "detection_bound_ns"),
				 (unsigned long long)cnt(s, "order_violations_count"));
		injected += cnt(s, "faults_injected_count");
		detected_sum += cnt(s, "detection_sum_ns");
		sim_free(s);
	}
	/* The faults mostly hit members (a few hit a node already out): the test tests something. */
	assert_true(injected > seeds * 3 / 2);
	assert_true(detected_sum > 0);
}

static void test_property_nop(void **state)
{
	(void)state;
	property(SIM_NOP_PROTO_NOP, 2000);
}

static void test_property_tdma(void **state)
{
	(void)state;
	property(SIM_NOP_PROTO_TDMA, 1000);
}

/* 10,000 fault-free rounds of a busy bus with jitter: not one verdict. */
static void test_fault_free(void **state)
{
	for (int p = 0; p < SIM_NOP_NPROTOS; p++) {
		const struct sim_preset *pre = sim_preset_find(&sim_nop_model,
							      p ? "busy-tdma" : "busy-nop");
		struct sim_nop_scenario sc = *(const struct sim_nop_scenario *)pre->scenario;
		struct sim *s;

		(void)state;
		sc.duration_ns = 10000ull * 8 * 120 * US;	/* >= 10,000 rounds either way */
		s = run(&sc, 42);
		assert_true(cnt(s, "rounds_count") >= 10000);
		assert_int_equal(cnt(s, "false_positives_count"), 0);
		assert_int_equal(cnt(s, "exclusions_count"), 0);
		assert_int_equal(cnt(s, "order_violations_count"), 0);
		sim_free(s);
	}
}

static void refuse(const struct sim_nop_scenario *sc, int err, const char *what)
{
	char *cause = NULL;

	assert_int_equal(sim_nop_model.check(sc, &cause), err);
	if (!cause || !strstr(cause, what))
		fail_msg("cause '%s' does not mention '%s'", cause ? cause : "(none)", what);
	free(cause);
}

static void test_check(void **state)
{
	struct sim_nop_scenario sc;
	struct sim_nop_fault f[2];

	(void)state;
#define BAD(stmt, err, what) do { sim_nop_lesson(&sc, SIM_NOP_PROTO_NOP); stmt; \
		refuse(&sc, err, what); } while (0)
	BAD(sc.protocol = 2, -EINVAL, "protocol");
	BAD(sc.nodes = 1, -EINVAL, "nodes");
	BAD(sc.nodes = 65, -EINVAL, "nodes");
	BAD(sc.bit_ns = 0, -EINVAL, "bit_ns");
	BAD(sc.gap_bits = 0, -EINVAL, "gap_bits");
	BAD(sc.frame_max = 10, -EINVAL, "frame_max");
	BAD(sc.load_pct = 101, -EINVAL, "load_pct");
	BAD((sc.load_pct = 50, sc.data_min = 5), -EINVAL, "data_min");
	BAD(sc.frame_bytes[1] = 5, -EINVAL, "frame_bytes[1]");
	BAD(sc.frame_bytes[1] = 101, -EINVAL, "frame_bytes[1]");
	BAD((sc.jitter_bits = 500), -EINVAL, "jitter");
	BAD(sc.guard_bits = 1, -EINVAL, "guard_bits");
	BAD(sc.sync_cycles = 0, -EINVAL, "sync_cycles");
	BAD(sc.duration_ns = 0, -EINVAL, "duration_ns");
	BAD((sc.protocol = SIM_NOP_PROTO_TDMA, sc.drift_ppm = 20000), -ERANGE, "resync");
	BAD((sc.protocol = SIM_NOP_PROTO_TDMA, sc.late_bits = 10), -EINVAL, "guard band");
	BAD((f[0] = (struct sim_nop_fault){ 0, SIM_NOP_F_DRIFT, 1 }, sc.faults = f,
	     sc.nfaults = 1), -EINVAL, "NOP keeps no clock");
	BAD((f[0] = (struct sim_nop_fault){ 0, SIM_NOP_F_DRIFT, 0 }, sc.faults = f,
	     sc.protocol = SIM_NOP_PROTO_TDMA, sc.sync_cycles = 1, sc.nfaults = 1), -ERANGE,
	    "harmless");
	BAD((f[0] = (struct sim_nop_fault){ 0, 99, 1 }, sc.faults = f, sc.nfaults = 1), -EINVAL,
	    "unknown kind");
	BAD((f[0] = (struct sim_nop_fault){ 0, SIM_NOP_F_CRASH, 4 }, sc.faults = f,
	     sc.nfaults = 1), -EINVAL, "nodes are 0 .. 3");
	BAD((f[0] = (struct sim_nop_fault){ 9, SIM_NOP_F_CRASH, 1 },
	     f[1] = (struct sim_nop_fault){ 2, SIM_NOP_F_CRASH, 2 }, sc.faults = f,
	     sc.nfaults = 2), -EINVAL, "time order");
	BAD((sc.faults = NULL, sc.nfaults = 1), -EINVAL, "faults");
#undef BAD
	assert_int_equal(sim_nop_fault_find("babble"), SIM_NOP_F_BABBLE);
	assert_int_equal(sim_nop_fault_find("none"), -1);
	assert_int_equal(sim_nop_fault_find("x"), -1);
}

static void test_frame(void **state)
{
	static const uint8_t payload[20] = "twenty bytes of data";
	struct sim_nop_frame f = { SIM_NOP_T_DATA, 3, SIM_NOP_ANNOUNCE_NONE, 7, 20, payload }, g;
	uint8_t buf[64];
	char *cause = NULL;
	int n;

	(void)state;
	assert_int_equal(sim_nop_crc32((const uint8_t *)"123456789", 9), 0xcbf43926u);
	n = sim_nop_frame_encode(&f, buf, sizeof(buf));
	assert_int_equal(n, 30);	/* 30 bytes: node 0's 30 us frame of the lesson */
	memset(buf + n, 0, sizeof(buf) - (size_t)n);	/* Ethernet's padding */
	assert_int_equal(sim_nop_frame_decode(buf, sizeof(buf), &g, &cause), 30);
	assert_int_equal(g.type, SIM_NOP_T_DATA);
	assert_int_equal(g.src, 3);
	assert_int_equal(g.announce, SIM_NOP_ANNOUNCE_NONE);
	assert_int_equal(g.seq, 7);
	assert_int_equal(g.len, 20);
	assert_memory_equal(g.payload, payload, 20);
	buf[10] ^= 4;
	assert_int_equal(sim_nop_frame_decode(buf, 30, &g, &cause), -EBADMSG);
	free(cause);
	cause = NULL;
	buf[10] ^= 4;
	assert_int_equal(sim_nop_frame_decode(buf, 29, &g, &cause), -EINVAL);
	free(cause);
	cause = NULL;
	assert_int_equal(sim_nop_frame_encode(&f, buf, 29), -ENOSPC);
	f.src = 64;
	assert_int_equal(sim_nop_frame_encode(&f, buf, sizeof(buf)), -EINVAL);
	f = (struct sim_nop_frame){ SIM_NOP_T_EMPTY, 2, 1, 0, 0, NULL };
	assert_int_equal(sim_nop_frame_encode(&f, buf, sizeof(buf)), 10);
	assert_int_equal(sim_nop_frame_decode(buf, 10, &g, &cause), 10);
	assert_int_equal(g.announce, 1);
	buf[0] = 0x21;
	assert_int_equal(sim_nop_frame_decode(buf, 10, &g, &cause), -EINVAL);
	free(cause);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lesson_nop),
		cmocka_unit_test(test_lesson_tdma),
		cmocka_unit_test(test_faults_nop),
		cmocka_unit_test(test_membership),
		cmocka_unit_test(test_faults_tdma),
		cmocka_unit_test(test_hook),
		cmocka_unit_test(test_property_nop),
		cmocka_unit_test(test_property_tdma),
		cmocka_unit_test(test_fault_free),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_frame),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
