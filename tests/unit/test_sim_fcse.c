/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the FCSE model (rtlab/sim/sim_fcse.c) and its trace
 * readers (sim_fcse_trace.c): the translation; hand-computed hit and miss
 * sequences of each replacement policy, write-back and write-allocate;
 * the PID allocator of each mode (the 95th and 96th process, PID 0 last,
 * PIDs shared past the limit); each mode's flush rules; the golden
 * orderings of the presets; every refusal of check(); the three formats.
 *
 * Where the golden numbers come from: the orderings and the refusals are
 * the and doc/references.md 4.3-4.4; the cache sequences are computed by
 * hand below each test; the pinned counters of the mixed presets are the
 * model's own output for seed 1, kept after the orderings and the hand
 * sequences passed, so that a change in behaviour shows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"
#include "sim/sim_fcse.h"
#include "sim/sim_fcse_trace.h"

#define MB (1u << 20)

static struct sim *new_sim(const struct sim_fcse_scenario *sc, uint64_t seed)
{
	struct sim *s = NULL;
	char *cause = NULL;

	if (sim_new(&sim_fcse_model, sc, seed, &s, &cause))
		fail_msg("sim_new: %s", cause);
	return s;
}

static uint64_t cnt(const struct sim *s, const char *name)
{
	uint64_t v = 0;

	assert_int_equal(sim_counters_get(sim_counters(s), name, &v), 0);
	return v;
}

/* A single process replaying @rec once on one 4 KB, 4-way cache pair, no RT task. */
static void single_sc(struct sim_fcse_scenario *sc, struct sim_fcse_proc *p, const uint32_t *rec,
		      uint64_t n, enum sim_fcse_repl repl, bool wa)
{
	assert_int_equal(sim_fcse_workload("small", SIM_FCSE_MODE_FLUSH, sc), 0);
	*p = (struct sim_fcse_proc){ .name = "t", .count = 1, .trace = rec, .trace_len = n,
				     .trace_once = true };
	sc->icache = sc->dcache = (struct sim_fcse_cache_geom){ 4096, 4 };
	sc->repl = repl;
	sc->write_allocate = wa;
	sc->procs = p;
	sc->nprocs = 1;
	sc->ticks = 0;
}

/* Lines 1 KB apart share set 0 of a 4 KB, 4-way cache (32 sets of 32 bytes). */
#define SET0(k) ((uint32_t)(k) * 1024u)
#define R(a) sim_fcse_rec(a, 4, SIM_FCSE_READ)
#define W(a) sim_fcse_rec(a, 4, SIM_FCSE_WRITE)

static uint64_t d_misses(const uint32_t *rec, uint64_t n, enum sim_fcse_repl repl, bool wa,
			 uint64_t *wb)
{
	struct sim_fcse_scenario sc;
	struct sim_fcse_proc p;
	struct sim *s;
	uint64_t m;

	single_sc(&sc, &p, rec, n, repl, wa);
	s = new_sim(&sc, 1);
	assert_int_equal(sim_run(s, SIM_STEPS_ALL, NULL), n);
	assert_true(sim_done(s));
	m = cnt(s, "d_misses_count");
	if (wb)
		*wb = cnt(s, "writebacks_count");
	sim_free(s);
	return m;
}

/* ---- Translation ------------------------------------------------------------------ */

static void test_mva(void **state)
{
	(void)state;
	/* doc/references.md 4.2's worked example. */
	assert_int_equal(sim_fcse_mva(0x00008000, 5), 0x0A008000);
	assert_int_equal(sim_fcse_mva(0x40000000, 5), 0x40000000);
	/* The edges: the last byte below 32 MB moves, 32 MB itself does not. */
	assert_int_equal(sim_fcse_mva(32 * MB - 1, 1), 64 * MB - 1);
	assert_int_equal(sim_fcse_mva(32 * MB - 1, 94), 95 * 32 * MB - 1);
	assert_int_equal(sim_fcse_mva(32 * MB, 1), 32 * MB);
	assert_int_equal(sim_fcse_mva(32 * MB, 94), 32 * MB);
	/* PID 0 is the flat mapping. */
	assert_int_equal(sim_fcse_mva(0, 0), 0);
	assert_int_equal(sim_fcse_mva(32 * MB - 1, 0), 32 * MB - 1);
	/* 127 is the last slot: the top 32 MB. */
	assert_int_equal(sim_fcse_mva(0x1234, 127), 0xFE001234u);
	/* The MVA of a low VA is VA | PID << 25. */
	for (uint32_t pid = 0; pid < 128; pid++)
		assert_int_equal(sim_fcse_mva(0x00ABCDEF, pid), 0x00ABCDEFu | pid << 25);
}

static void test_rec(void **state)
{
	(void)state;
	assert_int_equal(sim_fcse_rec(0x1000, 4, SIM_FCSE_READ), 0x1001);
	assert_int_equal(sim_fcse_rec(0x101c, 4, SIM_FCSE_WRITE), 0x1002);
	/* 0x101e + 4 bytes reaches 0x1021: the next line too. */
	assert_int_equal(sim_fcse_rec(0x101e, 4, SIM_FCSE_FETCH), 0x1000 | SIM_FCSE_REC_STRADDLE);
	assert_int_equal(sim_fcse_rec(0x1000, 32, SIM_FCSE_FETCH), 0x1000);
	assert_int_equal(sim_fcse_rec(0x1001, 32, SIM_FCSE_FETCH), 0x1000 | SIM_FCSE_REC_STRADDLE);
	/* No wrap past 4 GB. */
	assert_int_equal(sim_fcse_rec(0xfffffffe, 4, SIM_FCSE_READ), 0xffffffe1);
}

/* ---- Caches: hand-computed sequences ---------------------------------------------- */

/*
 * A B C D A E B, all in set 0 of 4 ways.
 *  LRU: A B C D miss (cold), A hits (now MRU: order A D C B), E misses and
 *       evicts B, B misses and evicts C: 6 misses.
 *  RR:  A B C D fill ways 0..3, A hits, E takes way 0 (the counter wrapped)
 *       and evicts A, B hits: 5 misses.
 */
static void test_cache_lru_rr(void **state)
{
	const uint32_t seq[] = { R(SET0(0)), R(SET0(1)), R(SET0(2)), R(SET0(3)), R(SET0(0)),
				 R(SET0(4)), R(SET0(1)) };

	(void)state;
	assert_int_equal(d_misses(seq, 7, SIM_FCSE_REPL_LRU, true, NULL), 6);
	assert_int_equal(d_misses(seq, 7, SIM_FCSE_REPL_RR, true, NULL), 5);
}

/*
 * LRU keeps the most recently used: A B C D, then A B C D again hits all,
 * then E evicts A (the LRU), then A misses and evicts B: 4 + 0 + 1 + 1.
 * With A touched before E, E evicts B instead and A hits.
 */
static void test_cache_lru_order(void **state)
{
	const uint32_t a[] = { R(SET0(0)), R(SET0(1)), R(SET0(2)), R(SET0(3)), R(SET0(0)),
			       R(SET0(1)), R(SET0(2)), R(SET0(3)), R(SET0(4)), R(SET0(0)) };
	const uint32_t b[] = { R(SET0(0)), R(SET0(1)), R(SET0(2)), R(SET0(3)), R(SET0(0)),
			       R(SET0(4)), R(SET0(0)) };

	(void)state;
	assert_int_equal(d_misses(a, 10, SIM_FCSE_REPL_LRU, true, NULL), 6);
	assert_int_equal(d_misses(b, 7, SIM_FCSE_REPL_LRU, true, NULL), 5);
	/* Other sets do not interfere: 5 lines of set 1 are 5 cold misses and no more. */
	{
		const uint32_t c[] = { R(32), R(32 + 1024), R(SET0(0)), R(32), R(32 + 1024) };

		assert_int_equal(d_misses(c, 5, SIM_FCSE_REPL_LRU, true, NULL), 3);
	}
}

/*
 * Random replacement: 8 lines cycled through a 4-way set. Every access
 * after the first four misses with LRU (the classic cycle), fewer with
 * random, and never fewer than the 8 cold misses.
 */
static void test_cache_random(void **state)
{
	uint32_t seq[800];

	(void)state;
	for (unsigned int i = 0; i < 800; i++)
		seq[i] = R(SET0(i % 8));
	assert_int_equal(d_misses(seq, 800, SIM_FCSE_REPL_LRU, true, NULL), 800);
	{
		uint64_t m = d_misses(seq, 800, SIM_FCSE_REPL_RANDOM, true, NULL);

		assert_true(m >= 8 && m < 800);
	}
}

/*
 * Write-back: W(A) fills A dirty; B C D E fill the set, E evicts A (LRU):
 * one write-back. Without write-allocate, W(A) misses and goes to the
 * write buffer, so the R(A) after it misses again; nothing is dirty.
 */
static void test_cache_write(void **state)
{
	const uint32_t seq[] = { W(SET0(0)), R(SET0(1)), R(SET0(2)), R(SET0(3)), R(SET0(4)) };
	const uint32_t wr[] = { W(SET0(0)), R(SET0(0)), R(SET0(0)) };
	uint64_t wb;

	(void)state;
	assert_int_equal(d_misses(seq, 5, SIM_FCSE_REPL_LRU, true, &wb), 5);
	assert_int_equal(wb, 1);
	assert_int_equal(d_misses(seq, 5, SIM_FCSE_REPL_LRU, false, &wb), 5);
	assert_int_equal(wb, 0);
	assert_int_equal(d_misses(wr, 3, SIM_FCSE_REPL_LRU, true, NULL), 1);
	assert_int_equal(d_misses(wr, 3, SIM_FCSE_REPL_LRU, false, NULL), 2);
	/* A write hit dirties the line: R(A) W(A), then four others evict it. */
	{
		const uint32_t hw[] = { R(SET0(0)), W(SET0(0)), R(SET0(1)), R(SET0(2)),
					R(SET0(3)), R(SET0(4)) };

		assert_int_equal(d_misses(hw, 6, SIM_FCSE_REPL_LRU, false, &wb), 5);
		assert_int_equal(wb, 1);
	}
}

/*
 * A straddling access touches two lines: a miss if either misses,
 * counted once (as cachegrind counts it), but two fills.
 */
static void test_cache_straddle(void **state)
{
	const uint32_t seq[] = { sim_fcse_rec(0x101e, 4, SIM_FCSE_READ),
				 sim_fcse_rec(0x1024, 4, SIM_FCSE_READ) };
	struct sim_fcse_scenario sc;
	struct sim_fcse_proc p;
	struct sim *s;

	(void)state;
	single_sc(&sc, &p, seq, 2, SIM_FCSE_REPL_LRU, true);
	s = new_sim(&sc, 1);
	sim_run(s, SIM_STEPS_ALL, NULL);
	assert_int_equal(cnt(s, "d_misses_count"), 1);
	assert_int_equal(cnt(s, "fills_count"), 2);
	assert_int_equal(cnt(s, "straddles_count"), 1);
	sim_free(s);
}

/* Fetches go to the I cache, reads and writes to the D cache: separate. */
static void test_cache_split(void **state)
{
	const uint32_t seq[] = { sim_fcse_rec(0x8000, 4, SIM_FCSE_FETCH), R(0x8000),
				 sim_fcse_rec(0x8004, 4, SIM_FCSE_FETCH), R(0x8004) };
	struct sim_fcse_scenario sc;
	struct sim_fcse_proc p;
	struct sim *s;

	(void)state;
	single_sc(&sc, &p, seq, 4, SIM_FCSE_REPL_LRU, true);
	s = new_sim(&sc, 1);
	sim_run(s, SIM_STEPS_ALL, NULL);
	assert_int_equal(cnt(s, "i_accesses_count"), 2);
	assert_int_equal(cnt(s, "i_misses_count"), 1);
	assert_int_equal(cnt(s, "d_accesses_count"), 2);
	assert_int_equal(cnt(s, "d_misses_count"), 1);
	/* Every access is translated, hits too (ARM926EJ-S TRM): one page, one walk. */
	assert_int_equal(cnt(s, "tlb_lookups_count"), 4);
	assert_int_equal(cnt(s, "tlb_misses_count"), 1);
	sim_free(s);
}

/* ---- The allocator of each mode ------------------------------------------------- */

static struct sim *run_procs(enum sim_fcse_mode mode, uint32_t count, bool high)
{
	static const uint32_t low[] = { 0x8001 }, hi[] = { 0x40000001 };
	static struct sim_fcse_proc kind;	/* borrowed by the model until sim_free() */
	struct sim_fcse_proc *p = &kind;
	struct sim_fcse_scenario sc;
	struct sim *s;

	assert_int_equal(sim_fcse_workload("small", mode, &sc), 0);
	*p = (struct sim_fcse_proc){ .name = "p", .count = count, .trace = high ? hi : low,
				     .trace_len = 1 };
	sc.procs = p;
	sc.nprocs = 1;
	sc.ticks = 4;
	s = new_sim(&sc, 1);
	sim_run(s, 1000, NULL);
	return s;
}

static uint32_t pid_of(const struct sim *s, uint32_t i)
{
	struct sim_fcse_proc_info pi;

	assert_true(sim_fcse_proc_get(sim_state(s), i, &pi));
	return pi.pid;
}

/* Guaranteed: PIDs 1..94, then 0, then the 96th fork fails with EAGAIN. */
static void test_alloc_guaranteed(void **state)
{
	struct sim *s = run_procs(SIM_FCSE_MODE_GUARANTEED, 96, false);
	struct sim_fcse_proc_info pi;

	(void)state;
	assert_int_equal(sim_fcse_nr_pids(sim_state(s)), 95);
	for (uint32_t i = 0; i < 94; i++)
		assert_int_equal(pid_of(s, i), i + 1);
	/* The 95th process gets PID 0, handed out last. */
	assert_int_equal(pid_of(s, 94), 0);
	assert_true(sim_fcse_proc_get(sim_state(s), 95, &pi));
	assert_int_equal(pi.refused, -EAGAIN);
	assert_int_equal(pi.pid, SIM_FCSE_NONE);
	assert_int_equal(cnt(s, "refused_fork_count"), 1);
	assert_int_equal(cnt(s, "refused_count"), 1);
	assert_int_equal(cnt(s, "processes_count"), 95);
	sim_free(s);

	/* Exactly 95: nobody refused. */
	s = run_procs(SIM_FCSE_MODE_GUARANTEED, 95, false);
	assert_int_equal(cnt(s, "refused_count"), 0);
	sim_free(s);
}

/* Guaranteed: a process with memory above 32 MB dies with ENOMEM; its PID is free again. */
static void test_alloc_guaranteed_enomem(void **state)
{
	struct sim *s = run_procs(SIM_FCSE_MODE_GUARANTEED, 3, true);
	struct sim_fcse_proc_info pi;

	(void)state;
	assert_int_equal(cnt(s, "refused_mmap_count"), 3);
	assert_true(sim_fcse_proc_get(sim_state(s), 0, &pi));
	assert_int_equal(pi.refused, -ENOMEM);
	sim_free(s);
}

/* Best effort: past 95, PIDs are reused round-robin from 1. */
static void test_alloc_best_effort(void **state)
{
	struct sim *s = run_procs(SIM_FCSE_MODE_BEST_EFFORT, 98, false);

	(void)state;
	assert_int_equal(pid_of(s, 94), 0);
	assert_int_equal(pid_of(s, 95), 1);
	assert_int_equal(pid_of(s, 96), 2);
	assert_int_equal(pid_of(s, 97), 3);
	assert_int_equal(cnt(s, "refused_count"), 0);
	assert_int_equal(cnt(s, "shared_pids_count"), 3);
	sim_free(s);

	/* Flush mode has no PIDs: everyone runs flat, nobody refused. */
	s = run_procs(SIM_FCSE_MODE_FLUSH, 130, true);
	assert_int_equal(pid_of(s, 129), 0);
	assert_int_equal(cnt(s, "refused_count"), 0);
	sim_free(s);
}

/* A 2G/2G split leaves 63 PIDs. */
static void test_alloc_task_size(void **state)
{
	static const uint32_t low[] = { 0x8001 };
	struct sim_fcse_proc p = { .name = "p", .count = 64, .trace = low, .trace_len = 1 };
	struct sim_fcse_scenario sc;
	struct sim *s;

	(void)state;
	sim_fcse_workload("small", SIM_FCSE_MODE_GUARANTEED, &sc);
	sc.procs = &p;
	sc.nprocs = 1;
	sc.task_size = 0x7F000000;
	s = new_sim(&sc, 1);
	sim_run(s, 10, NULL);
	assert_int_equal(sim_fcse_nr_pids(sim_state(s)), 63);
	assert_int_equal(cnt(s, "refused_fork_count"), 1);
	sim_free(s);
}

/* ---- Flush rules ----------------------------------------------------------------- */

static struct sim *run_preset(const char *name, uint64_t seed, struct sim_events *ev)
{
	const struct sim_preset *pre = sim_preset_find(&sim_fcse_model, name);
	struct sim *s;

	assert_non_null(pre);
	s = new_sim(pre->scenario, seed);
	sim_run(s, SIM_STEPS_ALL, ev);
	assert_true(sim_done(s));
	return s;
}

static void test_flush_mode_every_switch(void **state)
{
	struct sim *s = run_preset("mixed-flush", 1, NULL);

	(void)state;
	assert_true(cnt(s, "switches_count") > 90);
	assert_int_equal(cnt(s, "flushes_count"), cnt(s, "switches_count"));
	assert_int_equal(cnt(s, "tlb_flushes_count"), cnt(s, "switches_count"));
	sim_free(s);
}

/* Every flush is counted under exactly one reason, in every mode and workload. */
static void test_flush_reasons_add_up(void **state)
{
	static const char *const presets[] = {
		"mixed-flush", "mixed-guaranteed", "mixed-best-effort", "many-best-effort",
	};
	static const char *const why[] = {
		"flush_no_fcse_count", "flush_no_prev_count", "flush_reused_pid_count",
		"flush_next_large_count", "flush_prev_large_count", "flush_prev_shared_count",
		"flush_relocate_count",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++) {
		struct sim *s = run_preset(presets[i], 1, NULL);
		uint64_t sum = 0;

		for (size_t w = 0; w < sizeof(why) / sizeof(why[0]); w++)
			sum += cnt(s, why[w]);
		assert_int_equal(sum, cnt(s, "flushes_count"));
		if (i == 0)
			assert_int_equal(cnt(s, "flush_no_fcse_count"), cnt(s, "switches_count"));
		if (i == 2)	/* shm and big are why best effort flushes */
			assert_true(cnt(s, "flush_prev_shared_count") > 0 &&
				    cnt(s, "flush_next_large_count") > 0);
		sim_free(s);
	}
}

static void test_guaranteed_never_flushes(void **state)
{
	struct sim *s = run_preset("mixed-guaranteed", 1, NULL);

	(void)state;
	assert_int_equal(cnt(s, "flushes_count"), 0);
	/* The patch's switch_mm loads new page tables: the TLB goes. */
	assert_int_equal(cnt(s, "tlb_flushes_count"), cnt(s, "switches_count"));
	sim_free(s);
}

/*
 * Best effort, mixed workload (processes: 0 rt, 1-3 small, 4 shm, 5 big):
 * every flush has one of the patch's reasons, and the two processes that
 * cause them do: shm as prev (dirty shared pages), big as next or prev
 * (pages above 32 MB), big once moved to PID 0.
 */
static void test_best_effort_rules(void **state)
{
	struct sim_events ev;
	struct sim *s;
	unsigned int why[SIM_FCSE_NWHY] = { 0 };
	uint32_t last_prev = SIM_FCSE_NONE;
	bool reloc = false;

	(void)state;
	assert_int_equal(sim_events_init(&ev, 1u << 16), 0);
	s = run_preset("mixed-best-effort", 1, &ev);
	assert_int_equal(ev.lost, 0);
	for (size_t i = 0; i < ev.count; i++) {
		const struct sim_event *e = sim_events_peek(&ev, i);

		if (e->type == SIM_FCSE_EV_FLUSH) {
			assert_true(e->a < SIM_FCSE_NWHY);
			why[e->a]++;
			/* A switch's flush comes just before its switch event. */
			if (e->a != SIM_FCSE_WHY_RELOCATE) {
				const struct sim_event *sw = sim_events_peek(&ev, i + 1);

				assert_non_null(sw);
				assert_int_equal(sw->type, SIM_FCSE_EV_SWITCH);
				if (e->a == SIM_FCSE_WHY_PREV_SHARED)
					assert_int_equal(sw->a, 4);
				if (e->a == SIM_FCSE_WHY_NEXT_LARGE)
					assert_int_equal(sw->who, 5);
				if (e->a == SIM_FCSE_WHY_PREV_LARGE)
					assert_int_equal(sw->a, 5);
			}
		}
		if (e->type == SIM_FCSE_EV_RELOCATE) {
			assert_int_equal(e->who, 5);
			reloc = true;
		}
		/* Every switch away from shm flushes. */
		if (e->type == SIM_FCSE_EV_SWITCH) {
			const struct sim_event *prev = i ? sim_events_peek(&ev, i - 1) : NULL;

			if (e->a == 4)
				assert_true(prev && prev->type == SIM_FCSE_EV_FLUSH);
			last_prev = (uint32_t)e->a;
		}
	}
	(void)last_prev;
	assert_true(reloc);
	assert_int_equal(cnt(s, "relocations_count"), 1);
	assert_int_equal(why[SIM_FCSE_WHY_NO_FCSE], 0);
	assert_int_equal(why[SIM_FCSE_WHY_NO_PREV], 1);
	assert_true(why[SIM_FCSE_WHY_PREV_SHARED] > 0);
	assert_true(why[SIM_FCSE_WHY_NEXT_LARGE] > 0);
	assert_true(why[SIM_FCSE_WHY_PREV_LARGE] > 0);
	assert_int_equal(why[SIM_FCSE_WHY_RELOCATE], 1);
	sim_events_fini(&ev);
	sim_free(s);
}

/* Best effort past 95 processes: a reused PID whose lines may be cached flushes. */
static void test_best_effort_reused_pid(void **state)
{
	struct sim_events ev;
	struct sim *s;
	unsigned int reused = 0;

	(void)state;
	assert_int_equal(sim_events_init(&ev, 1u << 16), 0);
	s = run_preset("many-best-effort", 1, &ev);
	for (size_t i = 0; i < ev.count; i++) {
		const struct sim_event *e = sim_events_peek(&ev, i);

		if (e->type == SIM_FCSE_EV_FLUSH) {
			assert_int_equal(e->a == SIM_FCSE_WHY_NO_PREV ||
					 e->a == SIM_FCSE_WHY_REUSED_PID, 1);
			reused += e->a == SIM_FCSE_WHY_REUSED_PID;
		}
	}
	assert_true(reused > 0);
	assert_int_equal(cnt(s, "flushes_count"), reused + 1);
	assert_int_equal(cnt(s, "shared_pids_count"), 121 - 95);
	sim_events_fini(&ev);
	sim_free(s);
}

/* ---- Golden scenarios ---------------------------------------------------------------- */

static double lat_avg(const char *preset)
{
	struct sim *s = run_preset(preset, 1, NULL);
	double v = (double)cnt(s, "latency_sum_ns") / (double)cnt(s, "releases_count");

	sim_free(s);
	return v;
}

/* Mixed: flush > best-effort > guaranteed, by clear margins. */
static void test_golden_mixed(void **state)
{
	double f = lat_avg("mixed-flush"), g = lat_avg("mixed-guaranteed");
	double b = lat_avg("mixed-best-effort");

	(void)state;
	assert_true(f > 1.2 * b);
	assert_true(b > 1.2 * g);
}

/* Working sets that do not fit: FCSE saves less than 10 %. */
static void test_golden_thrash(void **state)
{
	double f = lat_avg("thrash-flush"), g = lat_avg("thrash-guaranteed");
	double b = lat_avg("thrash-best-effort");

	(void)state;
	assert_true(fabs(f - g) < 0.1 * f);
	assert_true(fabs(f - b) < 0.1 * f);
}

/* Small: best effort has nothing to flush for, so it is guaranteed mode. */
static void test_golden_small(void **state)
{
	double f = lat_avg("small-flush"), g = lat_avg("small-guaranteed");
	double b = lat_avg("small-best-effort");

	(void)state;
	assert_true(f > 2 * g);
	assert_true(fabs(b - g) < 0.05 * g);
}

/* The pinned counters of seed 1 (see the top of the file). */
static void test_golden_pinned(void **state)
{
	static const struct {
		const char *preset;
		uint64_t accesses, flushes, refused;
	} golden[] = {
		{ "mixed-flush", 8193300, 99, 0 },
		{ "mixed-guaranteed", 9233676, 0, 1 },
		{ "mixed-best-effort", 8648596, 30, 0 },
		{ "many-guaranteed", 0, 0, 26 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(golden) / sizeof(golden[0]); i++) {
		struct sim *s = run_preset(golden[i].preset, 1, NULL);

		if (golden[i].accesses)
			assert_int_equal(cnt(s, "accesses_count"), golden[i].accesses);
		assert_int_equal(cnt(s, "flushes_count"), golden[i].flushes);
		assert_int_equal(cnt(s, "refused_count"), golden[i].refused);
		sim_free(s);
	}
}

/* Chunked, with events or not: the same counters; the RT latency histogram counts every release. */
static void test_chunks_and_hist(void **state)
{
	const struct sim_preset *pre = sim_preset_find(&sim_fcse_model, "mixed-best-effort");
	struct sim *a = new_sim(pre->scenario, 7), *b = new_sim(pre->scenario, 7);
	struct sim_events ev;

	(void)state;
	assert_int_equal(sim_events_init(&ev, 128), 0);
	sim_run(a, SIM_STEPS_ALL, NULL);
	while (!sim_done(b))
		sim_run(b, 12345, &ev);
	assert_true(sim_counters_equal(sim_counters(a), sim_counters(b)));
	assert_int_equal(cnt(a, "releases_count") + cnt(a, "warmups_count"), 49);
	assert_true(cnt(a, "latency_max_ns") >= cnt(a, "latency_sum_ns") / cnt(a, "releases_count"));
	sim_events_fini(&ev);
	sim_free(a);
	sim_free(b);
}

/*
 * TLB lockdown: the RT task's pages locked into the lockdown entries
 * survive the flush at every switch, so flush mode walks the page tables
 * less.
 */
static void test_tlb_lockdown(void **state)
{
	struct sim_fcse_scenario sc;
	struct sim *a, *b;

	(void)state;
	sim_fcse_workload("small", SIM_FCSE_MODE_FLUSH, &sc);
	sc.ticks = 10;
	a = new_sim(&sc, 1);
	sc.tlb_lockdown = 8;
	b = new_sim(&sc, 1);
	sim_run(a, SIM_STEPS_ALL, NULL);
	sim_run(b, SIM_STEPS_ALL, NULL);
	assert_true(cnt(b, "tlb_misses_count") < cnt(a, "tlb_misses_count"));
	sim_free(a);
	sim_free(b);
}

/*
 * Every access is translated (ARM926EJ-S TRM, the MMU chapter), hits too:
 * in guaranteed mode a process whose one line stays cached across switches
 * walks its page again after each switch's TLB flush. The model used to
 * look the TLB up only on a fill, so such a process walked once in all.
 */
static void test_hits_walk_after_tlb_flush(void **state)
{
	const uint32_t one_line[] = { R(SET0(1)) };
	struct sim_fcse_scenario sc;
	struct sim_fcse_proc procs[2];
	struct sim *s;

	(void)state;
	sim_fcse_workload("small", SIM_FCSE_MODE_GUARANTEED, &sc);
	procs[0] = sc.procs[0];		/* the RT task */
	procs[1] = (struct sim_fcse_proc){ .name = "one", .count = 1, .trace = one_line,
					   .trace_len = 1 };
	sc.procs = procs;
	sc.nprocs = 2;
	sc.ticks = 20;
	s = new_sim(&sc, 1);
	sim_run(s, SIM_STEPS_ALL, NULL);
	assert_true(cnt(s, "switches_count") >= 10);
	assert_int_equal(cnt(s, "tlb_flushes_count"), cnt(s, "switches_count"));
	assert_int_equal(cnt(s, "flushes_count"), 0);		/* the line stays cached */
	/* "one" walks its page after each switch to it: about half the switches. */
	assert_true(cnt(s, "tlb_misses_count") >= cnt(s, "switches_count") / 2);
	assert_int_equal(cnt(s, "tlb_lookups_count"), cnt(s, "accesses_count"));
	sim_free(s);
}

/* ---- check() ------------------------------------------------------------------------- */

static void refused(const struct sim_fcse_scenario *sc, const char *want)
{
	char *cause = NULL;

	if (sim_fcse_model.check(sc, &cause) != -EINVAL || !cause)
		fail_msg("a scenario that should be refused for \"%s\" was not", want);
	if (!strstr(cause, want))
		fail_msg("cause \"%s\" does not say \"%s\"", cause, want);
	free(cause);
}

static void test_check(void **state)
{
	struct sim_fcse_scenario base, sc;
	struct sim_fcse_proc kinds[SIM_FCSE_KINDS_MAX];
	char *cause = NULL;

	(void)state;
	sim_fcse_workload("mixed", SIM_FCSE_MODE_FLUSH, &base);
	assert_int_equal(sim_fcse_model.check(&base, &cause), 0);
	memcpy(kinds, base.procs, base.nprocs * sizeof(kinds[0]));
	sc = base; sc.mode = 3; refused(&sc, "mode");
	sc = base; sc.icache.size_bytes = 3000; refused(&sc, "icache.size_bytes");
	sc = base; sc.dcache.size_bytes = 256 << 10; refused(&sc, "dcache.size_bytes");
	sc = base; sc.dcache.ways = 3; refused(&sc, "dcache.ways");
	sc = base; sc.icache.ways = 128; refused(&sc, "icache.ways");
	sc = base; sc.repl = 9; refused(&sc, "repl");
	sc = base; sc.tlb_entries = 48; refused(&sc, "tlb_entries");
	sc = base; sc.tlb_lockdown = 9; refused(&sc, "tlb_lockdown");
	sc = base; sc.task_size = 1 << 20; refused(&sc, "task_size");
	sc = base; sc.costs.cpu_mhz = 0; refused(&sc, "cpu_mhz");
	sc = base; sc.costs.hit_cycles = 0; refused(&sc, "hit_cycles");
	sc = base; sc.tick_us = 1; refused(&sc, "tick_us");
	sc = base; sc.rt_period_ticks = 0; refused(&sc, "rt_period_ticks");
	sc = base; sc.hist_bound_us = 0; refused(&sc, "hist_bound_us");
	sc = base; sc.nprocs = 0; refused(&sc, "nprocs");
	sc = base; sc.ticks = 0; refused(&sc, "ticks 0");
	sc = base; sc.rt_accesses = 0; refused(&sc, "rt_accesses");
	sc = base; sc.rt_warmup = 5000; refused(&sc, "rt_warmup");
	sc = base; sc.procs = kinds;
	kinds[1].name = "Bad"; refused(&sc, "procs[1].name");
	memcpy(kinds, base.procs, base.nprocs * sizeof(kinds[0])); kinds[1].count = 0; refused(&sc, "count");
	memcpy(kinds, base.procs, base.nprocs * sizeof(kinds[0])); kinds[1].flags = SIM_FCSE_RT;
	refused(&sc, "one RT task");
	memcpy(kinds, base.procs, base.nprocs * sizeof(kinds[0])); kinds[1].text_bytes = 2; refused(&sc, "text_bytes");
	memcpy(kinds, base.procs, base.nprocs * sizeof(kinds[0])); kinds[1].data_pct = 101; refused(&sc, "data_pct");
	memcpy(kinds, base.procs, base.nprocs * sizeof(kinds[0])); kinds[1].stride_bytes = 3;
	refused(&sc, "stride_bytes");
	memcpy(kinds, base.procs, base.nprocs * sizeof(kinds[0])); kinds[1].flags = 64; refused(&sc, "flags");
	memcpy(kinds, base.procs, base.nprocs * sizeof(kinds[0])); kinds[1].text_base = 0xffffff00;
	refused(&sc, "past 4 GB");
	memcpy(kinds, base.procs, base.nprocs * sizeof(kinds[0])); kinds[1].count = SIM_FCSE_PROCS_MAX;
	refused(&sc, "processes in all");
}

/* ---- Trace readers ------------------------------------------------------------------ */

static void parse_ok(const char *text, int fmt, struct sim_fcse_trace *t)
{
	char *cause = NULL;

	assert_int_equal(sim_fcse_trace_detect(text, strlen(text)), fmt);
	if (sim_fcse_trace_parse(text, strlen(text), fmt, t, &cause))
		fail_msg("%s", cause);
}

static void test_trace_lackey(void **state)
{
	static const char text[] =
		"==123== Lackey, an example Valgrind tool\n"
		"I  04000e30,3\n"
		" S 1ffefffd68,8\n"
		" L 04029e70,8\n"
		" M 0402a1f0,4\n"
		"I  0400101e,4\n"
		"==123== \n";
	struct sim_fcse_trace t;

	(void)state;
	parse_ok(text, SIM_FCSE_TRACE_LACKEY, &t);
	assert_int_equal(t.n, 5);
	assert_int_equal(t.skipped, 2);
	/* Regions in the order first touched: 0x040 -> 0, 0x1ffeff -> 1 MB, 0x040 again. */
	assert_int_equal(t.regions, 2);
	assert_int_equal(t.rec[0], sim_fcse_rec(0x0e30, 3, SIM_FCSE_FETCH));
	assert_int_equal(t.rec[1], sim_fcse_rec(MB | 0xffd68, 8, SIM_FCSE_WRITE));
	assert_int_equal(t.rec[2], sim_fcse_rec(0x29e70, 8, SIM_FCSE_READ));
	assert_int_equal(t.rec[3], sim_fcse_rec(0x2a1f0, 4, SIM_FCSE_WRITE));
	assert_true(t.rec[4] & SIM_FCSE_REC_STRADDLE);
	assert_false(t.high);
	sim_fcse_trace_fini(&t);
}

static void test_trace_din(void **state)
{
	static const char text[] = "# a comment\n2 0x8000\n0 1000\n1 2000\n3 0\n4 0\n2 801e\n";
	struct sim_fcse_trace t;
	char *cause = NULL;

	(void)state;
	parse_ok(text, SIM_FCSE_TRACE_DIN, &t);
	assert_int_equal(t.n, 4);
	assert_int_equal(t.skipped, 3);
	assert_int_equal(t.rec[0], sim_fcse_rec(0x8000, 4, SIM_FCSE_FETCH));
	assert_int_equal(t.rec[1], sim_fcse_rec(0x1000, 4, SIM_FCSE_READ));
	assert_int_equal(t.rec[2], sim_fcse_rec(0x2000, 4, SIM_FCSE_WRITE));
	assert_true(t.rec[3] & SIM_FCSE_REC_STRADDLE);
	sim_fcse_trace_fini(&t);
	assert_int_equal(sim_fcse_trace_parse("2 8000\n9 1\n", 11, SIM_FCSE_TRACE_DIN, &t,
					      &cause), -EINVAL);
	assert_non_null(strstr(cause, "line 2"));
	free(cause);
	sim_fcse_trace_fini(&t);
	cause = NULL;
	assert_int_equal(sim_fcse_trace_parse("3 0\n", 4, SIM_FCSE_TRACE_DIN, &t, &cause),
			 -EINVAL);
	free(cause);
	sim_fcse_trace_fini(&t);
	assert_int_equal(sim_fcse_trace_detect("hello\n", 6), -EINVAL);
	assert_int_equal(sim_fcse_trace_detect("", 0), -EINVAL);
}

/* More than 32 regions: the rest go above 1 GB, and the process is large. */
static void test_trace_regions(void **state)
{
	char text[40 * 32];
	size_t len = 0;
	struct sim_fcse_trace t;

	(void)state;
	for (unsigned int i = 0; i < 34; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "0 %x\n", i << 24);
	parse_ok(text, SIM_FCSE_TRACE_DIN, &t);
	assert_int_equal(t.regions, 34);
	assert_int_equal(t.rec[31] & ~31u, 31 * MB);
	assert_int_equal(t.rec[32] & ~31u, 0x40000000u);
	assert_true(t.high);
	sim_fcse_trace_fini(&t);
}

static void test_trace_binary(void **state)
{
	uint8_t buf[SIM_FCSE_TRACE_HDR + 12] __attribute__((aligned(8)));
	struct sim_fcse_trace t;
	char *cause = NULL;

	(void)state;
	sim_fcse_trace_header(buf, 3);
	sim_fcse_trace_put(buf + 16, sim_fcse_rec(0x8000, 4, SIM_FCSE_FETCH));
	sim_fcse_trace_put(buf + 20, sim_fcse_rec(0x40000000, 4, SIM_FCSE_READ));
	sim_fcse_trace_put(buf + 24, sim_fcse_rec(0x1000, 4, SIM_FCSE_WRITE));
	assert_int_equal(sim_fcse_trace_detect((char *)buf, sizeof(buf)), SIM_FCSE_TRACE_BIN);
	assert_int_equal(sim_fcse_trace_parse((char *)buf, sizeof(buf), SIM_FCSE_TRACE_BIN, &t,
					      &cause), 0);
	assert_int_equal(t.n, 3);
	assert_int_equal(t.rec[2], 0x1002);
	assert_true(t.high);
	sim_fcse_trace_fini(&t);
	/* A reserved bit, a wrong count, a short file. */
	buf[16] |= 3;
	assert_int_equal(sim_fcse_trace_parse((char *)buf, sizeof(buf), SIM_FCSE_TRACE_BIN, &t,
					      &cause), -EINVAL);
	free(cause);
	cause = NULL;
	sim_fcse_trace_fini(&t);
	buf[16] &= ~3;
	sim_fcse_trace_header(buf, 4);
	assert_int_equal(sim_fcse_trace_parse((char *)buf, sizeof(buf), SIM_FCSE_TRACE_BIN, &t,
					      &cause), -EINVAL);
	free(cause);
	cause = NULL;
	sim_fcse_trace_fini(&t);
	assert_int_equal(sim_fcse_trace_parse((char *)buf, 10, SIM_FCSE_TRACE_BIN, &t, &cause),
			 -EINVAL);
	free(cause);
	sim_fcse_trace_fini(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mva),
		cmocka_unit_test(test_rec),
		cmocka_unit_test(test_cache_lru_rr),
		cmocka_unit_test(test_cache_lru_order),
		cmocka_unit_test(test_cache_random),
		cmocka_unit_test(test_cache_write),
		cmocka_unit_test(test_cache_straddle),
		cmocka_unit_test(test_cache_split),
		cmocka_unit_test(test_alloc_guaranteed),
		cmocka_unit_test(test_alloc_guaranteed_enomem),
		cmocka_unit_test(test_alloc_best_effort),
		cmocka_unit_test(test_alloc_task_size),
		cmocka_unit_test(test_flush_mode_every_switch),
		cmocka_unit_test(test_guaranteed_never_flushes),
		cmocka_unit_test(test_best_effort_rules),
		cmocka_unit_test(test_best_effort_reused_pid),
		cmocka_unit_test(test_golden_mixed),
		cmocka_unit_test(test_golden_thrash),
		cmocka_unit_test(test_golden_small),
		cmocka_unit_test(test_golden_pinned),
		cmocka_unit_test(test_chunks_and_hist),
		cmocka_unit_test(test_tlb_lockdown),
		cmocka_unit_test(test_hits_walk_after_tlb_flush),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_trace_lackey),
		cmocka_unit_test(test_flush_reasons_add_up),
		cmocka_unit_test(test_trace_din),
		cmocka_unit_test(test_trace_regions),
		cmocka_unit_test(test_trace_binary),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
