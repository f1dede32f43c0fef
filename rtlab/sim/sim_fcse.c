/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_fcse: the FCSE model (see sim_fcse.h for what it models). Its parts,
 * in the order of sim_example.c:
 *
 *   1. tables: counters, events, histograms, the workloads and presets;
 *   2. check(): every rule on the scenario, each refusal with its reason;
 *   3. init()/fini(): streams generated, processes forked (PIDs given or
 *      refused), caches and TLB allocated;
 *   4. the pieces: cache lookups, the TLB, flushes, the switch and its
 *      flush rules, the tick scheduler;
 *   5. run(): the hot loop, written once and instantiated with and
 *      without events;
 *   6. accessors for a screen, and the ops.
 *
 * The flush rules of best-effort mode follow arch/arm/kernel/fcse.c of the
 * I-pipe patch as doc/references.md 4.4 reads it: a switch flushes when next's PID
 * was last used by another mm whose lines may still be cached (its bit in
 * the "cache dirty" map), when next or prev has pages above 32 MB, when
 * prev has dirty shared writable pages, or when there is no prev. PIDs are
 * handed out lowest first from 1, PID 0 last; past the limit, round-robin.
 * A process that first touches memory above 32 MB is moved to PID 0 after
 * a full flush.
 */
#include "sim_fcse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_err.h"
#include "core/rt_hist.h"
#include "sim_rng.h"

#define FC_INVALID 0xffffffffu	/* a cache or TLB entry that holds nothing */
#define FC_NONE SIM_FCSE_NONE

/* ---- Tables ------------------------------------------------------------------ */

const char *const sim_fcse_mode_names[SIM_FCSE_NMODES] = {
	[SIM_FCSE_MODE_FLUSH] = "flush",
	[SIM_FCSE_MODE_GUARANTEED] = "guaranteed",
	[SIM_FCSE_MODE_BEST_EFFORT] = "best-effort",
};

const char *const sim_fcse_repl_names[SIM_FCSE_NREPL] = {
	[SIM_FCSE_REPL_RR] = "rr",
	[SIM_FCSE_REPL_RANDOM] = "random",
	[SIM_FCSE_REPL_LRU] = "lru",
};

const char *const sim_fcse_why_names[SIM_FCSE_NWHY] = {
	[SIM_FCSE_WHY_NO_FCSE] = "no-fcse",
	[SIM_FCSE_WHY_NO_PREV] = "no-prev",
	[SIM_FCSE_WHY_REUSED_PID] = "reused-pid",
	[SIM_FCSE_WHY_NEXT_LARGE] = "next-large",
	[SIM_FCSE_WHY_PREV_LARGE] = "prev-large",
	[SIM_FCSE_WHY_PREV_SHARED] = "prev-shared-dirty",
	[SIM_FCSE_WHY_RELOCATE] = "relocate-to-pid0",
};

_Static_assert(SIM_FCSE_NCOUNTERS == SIM_FCSE_C_FLUSH_WHY + SIM_FCSE_NWHY,
	      "one flush counter per reason");

static const struct sim_counter_desc fc_counters[SIM_FCSE_NCOUNTERS] = {
	[SIM_FCSE_C_ACCESSES] = { "accesses_count", SIM_COUNTER_SUM, "memory accesses simulated" },
	[SIM_FCSE_C_I_ACCESSES] = { "i_accesses_count", SIM_COUNTER_SUM, "instruction fetches" },
	[SIM_FCSE_C_I_MISSES] = { "i_misses_count", SIM_COUNTER_SUM,
				  "instruction fetches that missed the I cache (a fetch "
				  "straddling two lines counts once)" },
	[SIM_FCSE_C_D_ACCESSES] = { "d_accesses_count", SIM_COUNTER_SUM, "data reads and writes" },
	[SIM_FCSE_C_D_MISSES] = { "d_misses_count", SIM_COUNTER_SUM,
				  "data accesses that missed the D cache" },
	[SIM_FCSE_C_FILLS] = { "fills_count", SIM_COUNTER_SUM, "lines fetched from memory" },
	[SIM_FCSE_C_WRITEBACKS] = { "writebacks_count", SIM_COUNTER_SUM,
				    "dirty lines written back when evicted" },
	[SIM_FCSE_C_STRADDLES] = { "straddles_count", SIM_COUNTER_SUM,
				   "accesses that touched two lines" },
	[SIM_FCSE_C_TLB_LOOKUPS] = { "tlb_lookups_count", SIM_COUNTER_SUM,
				     "TLB lookups (on line fills and write misses)" },
	[SIM_FCSE_C_TLB_MISSES] = { "tlb_misses_count", SIM_COUNTER_SUM,
				    "TLB misses: page-table walks" },
	[SIM_FCSE_C_SWITCHES] = { "switches_count", SIM_COUNTER_SUM,
				  "context switches between address spaces" },
	[SIM_FCSE_C_SWITCH_SUM] = { "switch_sum_ns", SIM_COUNTER_SUM,
				    "the switches' direct cost added up (path, flush, TLB)" },
	[SIM_FCSE_C_SWITCH_MAX] = { "switch_max_ns", SIM_COUNTER_MAX,
				    "the dearest switch" },
	[SIM_FCSE_C_FLUSHES] = { "flushes_count", SIM_COUNTER_SUM,
				 "full clean+invalidate of both caches" },
	[SIM_FCSE_C_FLUSH_WHY + SIM_FCSE_WHY_NO_FCSE] = {
		"flush_no_fcse_count", SIM_COUNTER_SUM, "flushes at a switch without FCSE" },
	[SIM_FCSE_C_FLUSH_WHY + SIM_FCSE_WHY_NO_PREV] = {
		"flush_no_prev_count", SIM_COUNTER_SUM,
		"best effort: flushes at the first switch (nothing known of the caches)" },
	[SIM_FCSE_C_FLUSH_WHY + SIM_FCSE_WHY_REUSED_PID] = {
		"flush_reused_pid_count", SIM_COUNTER_SUM,
		"best effort: flushes because the next process's PID holds another's lines" },
	[SIM_FCSE_C_FLUSH_WHY + SIM_FCSE_WHY_NEXT_LARGE] = {
		"flush_next_large_count", SIM_COUNTER_SUM,
		"best effort: flushes because the next process has pages above 32 MB" },
	[SIM_FCSE_C_FLUSH_WHY + SIM_FCSE_WHY_PREV_LARGE] = {
		"flush_prev_large_count", SIM_COUNTER_SUM,
		"best effort: flushes because the previous process has pages above 32 MB" },
	[SIM_FCSE_C_FLUSH_WHY + SIM_FCSE_WHY_PREV_SHARED] = {
		"flush_prev_shared_count", SIM_COUNTER_SUM,
		"best effort: flushes because the previous process dirtied shared pages" },
	[SIM_FCSE_C_FLUSH_WHY + SIM_FCSE_WHY_RELOCATE] = {
		"flush_relocate_count", SIM_COUNTER_SUM,
		"best effort: flushes when a process grew past 32 MB and moved to PID 0" },
	[SIM_FCSE_C_FLUSH_WRITEBACKS] = { "flush_writebacks_count", SIM_COUNTER_SUM,
					  "dirty lines the flushes wrote back" },
	[SIM_FCSE_C_TLB_FLUSHES] = { "tlb_flushes_count", SIM_COUNTER_SUM,
				     "TLB invalidations" },
	[SIM_FCSE_C_REFUSED] = { "refused_count", SIM_COUNTER_SUM,
				 "processes refused: fork (EAGAIN) or mapping (ENOMEM)" },
	[SIM_FCSE_C_REFUSED_FORK] = { "refused_fork_count", SIM_COUNTER_SUM,
				      "forks refused with EAGAIN: no PID left (guaranteed)" },
	[SIM_FCSE_C_REFUSED_MMAP] = { "refused_mmap_count", SIM_COUNTER_SUM,
				      "processes whose mapping above 32 MB failed with ENOMEM "
				      "(guaranteed)" },
	[SIM_FCSE_C_PROCESSES] = { "processes_count", SIM_COUNTER_SUM, "processes that ran" },
	[SIM_FCSE_C_SHARED_PIDS] = { "shared_pids_count", SIM_COUNTER_SUM,
				     "processes given a PID another one holds (best effort)" },
	[SIM_FCSE_C_RELOCATIONS] = { "relocations_count", SIM_COUNTER_SUM,
				     "processes moved to PID 0 on growing past 32 MB" },
	[SIM_FCSE_C_RELEASES] = { "releases_count", SIM_COUNTER_SUM, "RT jobs completed" },
	[SIM_FCSE_C_WARMUPS] = { "warmups_count", SIM_COUNTER_SUM,
				 "RT jobs run before the measured ones (rt_warmup)" },
	[SIM_FCSE_C_OVERRUNS] = { "overruns_count", SIM_COUNTER_SUM,
				  "RT releases skipped: the previous job was still running" },
	[SIM_FCSE_C_LATENCY_SUM] = { "latency_sum_ns", SIM_COUNTER_SUM,
				     "RT latencies added up (release to the end of the job)" },
	[SIM_FCSE_C_LATENCY_MAX] = { "latency_max_ns", SIM_COUNTER_MAX,
				     "the longest RT latency" },
	[SIM_FCSE_C_TIME] = { "time_ns", SIM_COUNTER_MAX, "simulated time" },
};

static const struct sim_event_desc fc_events[SIM_FCSE_NEVENTS] = {
	[SIM_FCSE_EV_FORK] = { "fork", "process", "pid", NULL },
	[SIM_FCSE_EV_REFUSE] = { "refuse", "process", "errno", NULL },
	[SIM_FCSE_EV_SWITCH] = { "switch", "process", "prev", "cost_ns" },
	[SIM_FCSE_EV_FLUSH] = { "flush", "process", "why", "dirty_lines" },
	[SIM_FCSE_EV_RELOCATE] = { "relocate", "process", "old_pid", NULL },
	[SIM_FCSE_EV_RELEASE] = { "release", "process", "job", NULL },
	[SIM_FCSE_EV_DONE] = { "done", "process", "job", "latency_ns" },
};

static const char *const fc_hists[SIM_FCSE_NHISTS] = {
	[SIM_FCSE_HIST_LATENCY] = "latency",
};

/* ---- Workloads -------------------------------------------------------------------- */

/* The RT task: 6 KB of code, 6 KB of data it walks three times a job. */
#define FC_RT_PROC { .name = "rt", .flags = SIM_FCSE_RT, .count = 1, \
	.text_base = 0x8000, .text_bytes = 6 << 10, .data_base = 0x100000, \
	.data_bytes = 6 << 10, .stride_bytes = 32, .data_pct = 40, .write_pct = 30 }
/* A small background process: 2 KB of code, 2 KB of data. */
#define FC_SMALL_PROC(n, c) { .name = n, .count = c, .text_base = 0x8000, \
	.text_bytes = 2 << 10, .data_base = 0x200000, .data_bytes = 2 << 10, \
	.stride_bytes = 32, .data_pct = 40, .write_pct = 30 }

static const struct sim_fcse_proc wl_small[] = {
	FC_RT_PROC,
	FC_SMALL_PROC("small", 4),
};

static const struct sim_fcse_proc wl_mixed[] = {
	FC_RT_PROC,
	FC_SMALL_PROC("small", 3),
	{ .name = "shm", .flags = SIM_FCSE_SHARED_DIRTY, .count = 1, .text_base = 0x8000,
	  .text_bytes = 2 << 10, .data_base = 0x300000, .data_bytes = 2 << 10,
	  .stride_bytes = 32, .data_pct = 40, .write_pct = 50 },
	{ .name = "big", .count = 1, .text_base = 0x8000, .text_bytes = 4 << 10,
	  .data_base = 0x40000000, .data_bytes = 8 << 10, .stride_bytes = 32,
	  .data_pct = 40, .write_pct = 30 },
};

static const struct sim_fcse_proc wl_thrash[] = {
	FC_RT_PROC,
	{ .name = "hog", .count = 4, .text_base = 0x8000, .text_bytes = 24 << 10,
	  .data_base = 0x200000, .data_bytes = 48 << 10, .stride_bytes = 0,
	  .data_pct = 50, .write_pct = 5 },
};

static const struct sim_fcse_proc wl_many[] = {
	FC_RT_PROC,
	FC_SMALL_PROC("small", 120),
};

struct fc_workload {
	const char *name;
	const char *summary;
	const struct sim_fcse_proc *procs;
	uint32_t nprocs;
	uint32_t tick_us, ticks;	/* the presets' scheduler */
};

/* The presets' horizon: 50 ticks of 1 ms; "many" needs its 120 processes to take turns. */
#define FC_TICK_US 1000u
#define FC_TICKS 50u
#define FC_MANY_TICK_US 250u
#define FC_MANY_TICKS 250u

#define WL(n, s, t, tu, tn) { n, s, t, sizeof(t) / sizeof(t[0]), tu, tn }
static const struct fc_workload fc_workloads[] = {
	WL("mixed", "the RT task, 3 small processes, one with dirty shared memory, one above "
	   "32 MB", wl_mixed, FC_TICK_US, FC_TICKS),
	WL("small", "the RT task and 4 small processes: everything fits in the caches",
	   wl_small, FC_TICK_US, FC_TICKS),
	WL("thrash", "the RT task and 4 processes whose working sets do not fit anyway",
	   wl_thrash, FC_TICK_US, FC_TICKS),
	WL("many", "the RT task and 120 small processes: more than 95", wl_many,
	   FC_MANY_TICK_US, FC_MANY_TICKS),
};
#define FC_NWORKLOADS (sizeof(fc_workloads) / sizeof(fc_workloads[0]))

const char *const sim_fcse_workloads[] = { "mixed", "small", "thrash", "many", NULL };

void sim_fcse_costs_default(struct sim_fcse_costs *c)
{
	*c = (struct sim_fcse_costs){
		.cpu_mhz = 200, .hit_cycles = 1, .fill_cycles = 36, .writeback_cycles = 36,
		.write_buffer_cycles = 2, .tlb_refill_cycles = 30, .switch_cycles = 1000,
		.flush_cycles = 200, .flush_line_cycles = 0, .tlb_flush_cycles = 10,
	};
}

int sim_fcse_cpu_preset(const char *name, struct sim_fcse_scenario *sc)
{
	if (!strcmp(name, "arm926")) {
		sc->icache = (struct sim_fcse_cache_geom){ 16 << 10, 4 };
		sc->dcache = (struct sim_fcse_cache_geom){ 16 << 10, 4 };
		sc->repl = SIM_FCSE_REPL_RANDOM;
		sc->write_allocate = false;
		sc->tlb_entries = 64;
		sc->tlb_ways = 2;
		sc->tlb_lockdown = 0;
		sc->costs.flush_line_cycles = 0;
		return 0;
	}
	if (!strcmp(name, "arm920t")) {
		sc->icache = (struct sim_fcse_cache_geom){ 16 << 10, 64 };
		sc->dcache = (struct sim_fcse_cache_geom){ 16 << 10, 64 };
		sc->repl = SIM_FCSE_REPL_RR;
		sc->write_allocate = false;
		sc->tlb_entries = 64;
		sc->tlb_ways = 64;
		sc->tlb_lockdown = 0;
		sc->costs.flush_line_cycles = 1;
		return 0;
	}
	return -ENOENT;
}

int sim_fcse_mode_find(const char *name)
{
	for (int i = 0; i < SIM_FCSE_NMODES; i++)
		if (!strcmp(name, sim_fcse_mode_names[i]))
			return i;
	return -1;
}

static const struct fc_workload *workload_find(const char *name)
{
	for (size_t i = 0; i < FC_NWORKLOADS; i++)
		if (!strcmp(fc_workloads[i].name, name))
			return &fc_workloads[i];
	return NULL;
}

const char *sim_fcse_workload_summary(const char *name)
{
	const struct fc_workload *w = workload_find(name);

	return w ? w->summary : NULL;
}

int sim_fcse_workload(const char *name, enum sim_fcse_mode mode, struct sim_fcse_scenario *sc)
{
	const struct fc_workload *w = workload_find(name);

	if (!w)
		return -ENOENT;
	memset(sc, 0, sizeof(*sc));
	sc->mode = mode;
	sim_fcse_costs_default(&sc->costs);
	sim_fcse_cpu_preset("arm926", sc);
	sc->tlb_flush = true;
	sc->task_size = SIM_FCSE_TASK_SIZE_3G1G;
	sc->tick_us = w->tick_us;
	sc->ticks = w->ticks;
	sc->rt_period_ticks = 1;
	sc->rt_accesses = 4000;
	sc->rt_warmup = 1;
	sc->hist_bound_us = 2000;
	sc->procs = w->procs;
	sc->nprocs = w->nprocs;
	return 0;
}

/* The presets: every workload in every mode, static so that they can be borrowed. */
#define FC_PRESET(w, m, tu, tn) { .mode = m, .icache = { 16 << 10, 4 }, .dcache = { 16 << 10, 4 }, \
	.repl = SIM_FCSE_REPL_RANDOM, .write_allocate = false, .tlb_entries = 64, \
	.tlb_ways = 2, .tlb_flush = true, .task_size = SIM_FCSE_TASK_SIZE_3G1G, \
	.costs = { .cpu_mhz = 200, .hit_cycles = 1, .fill_cycles = 36, \
		   .writeback_cycles = 36, .write_buffer_cycles = 2, .tlb_refill_cycles = 30, \
		   .switch_cycles = 1000, .flush_cycles = 200, .tlb_flush_cycles = 10 }, \
	.tick_us = tu, .ticks = tn, .rt_period_ticks = 1, .rt_accesses = 4000, .rt_warmup = 1, \
	.hist_bound_us = 2000, .procs = w, .nprocs = sizeof(w) / sizeof(w[0]) }
#define FC_PRESETS3(w, tu, tn) \
	FC_PRESET(w, SIM_FCSE_MODE_FLUSH, tu, tn), FC_PRESET(w, SIM_FCSE_MODE_GUARANTEED, tu, tn), \
	FC_PRESET(w, SIM_FCSE_MODE_BEST_EFFORT, tu, tn)

static const struct sim_fcse_scenario fc_preset_sc[] = {
	FC_PRESETS3(wl_mixed, FC_TICK_US, FC_TICKS), FC_PRESETS3(wl_small, FC_TICK_US, FC_TICKS),
	FC_PRESETS3(wl_thrash, FC_TICK_US, FC_TICKS),
	FC_PRESETS3(wl_many, FC_MANY_TICK_US, FC_MANY_TICKS),
};

#define FC_P(n, s, i) { n, s, &fc_preset_sc[i] }
static const struct sim_preset fc_presets[] = {
	FC_P("mixed-flush", "mixed workload, no FCSE: flush at every switch", 0),
	FC_P("mixed-guaranteed", "mixed workload, FCSE guaranteed: the large process refused", 1),
	FC_P("mixed-best-effort", "mixed workload, FCSE best effort: flushes around two processes",
	     2),
	FC_P("small-flush", "small workload, no FCSE", 3),
	FC_P("small-guaranteed", "small workload, FCSE guaranteed", 4),
	FC_P("small-best-effort", "small workload, FCSE best effort: nothing to flush for", 5),
	FC_P("thrash-flush", "working sets too big, no FCSE", 6),
	FC_P("thrash-guaranteed", "working sets too big, FCSE guaranteed: no help", 7),
	FC_P("thrash-best-effort", "working sets too big, FCSE best effort: no help", 8),
	FC_P("many-flush", "121 processes, no FCSE", 9),
	FC_P("many-guaranteed", "121 processes, FCSE guaranteed: 26 forks refused", 10),
	FC_P("many-best-effort", "121 processes, FCSE best effort: PIDs shared", 11),
};

/* ---- Scenario check ------------------------------------------------------------ */

static bool pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

static int check_name(const char *name, uint32_t k, char **cause)
{
	size_t n = name ? strlen(name) : 0;

	if (n < 1 || n > 15)
		return rt_err(cause, -EINVAL, "procs[%u].name must be 1..15 characters", k);
	for (size_t i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') ||
		      name[i] == '-'))
			return rt_err(cause, -EINVAL, "procs[%u].name \"%s\": only a-z, 0-9 and -",
				      k, name);
	return 0;
}

static int check_proc(const struct sim_fcse_scenario *sc, uint32_t k, uint32_t *total,
		      uint32_t *rts, bool *looping, char **cause)
{
	const struct sim_fcse_proc *p = &sc->procs[k];
	int ret = check_name(p->name, k, cause);

	if (ret)
		return ret;
	if (p->flags & ~(SIM_FCSE_RT | SIM_FCSE_SHARED_DIRTY))
		return rt_err(cause, -EINVAL, "procs[%u].flags: unknown bits", k);
	if (p->count < 1 || p->count > SIM_FCSE_PROCS_MAX - *total)
		return rt_err(cause, -EINVAL, "procs[%u].count: 1 .. %u processes in all", k,
			      SIM_FCSE_PROCS_MAX);
	*total += p->count;
	if (p->flags & SIM_FCSE_RT) {
		if (p->count != 1 || ++*rts > 1)
			return rt_err(cause, -EINVAL, "procs[%u]: one RT task at most, count 1", k);
		if (p->trace && p->trace_once)
			return rt_err(cause, -EINVAL, "procs[%u]: the RT task's trace must loop", k);
	}
	if (p->trace) {
		if (p->trace_len < 1 || p->trace_len > (UINT64_C(1) << 40))
			return rt_err(cause, -EINVAL, "procs[%u].trace_len: 1 .. 2^40 records", k);
		if (!p->trace_once)
			*looping = true;
		return 0;
	}
	*looping = true;
	if (p->text_bytes < 4 || p->text_bytes > (4u << 20) || p->text_bytes % 4 ||
	    p->text_base % 4)
		return rt_err(cause, -EINVAL, "procs[%u]: text_bytes 4 .. 4 MB, text word aligned",
			      k);
	if (p->data_bytes > (16u << 20) || p->data_bytes % 4 || p->data_base % 4)
		return rt_err(cause, -EINVAL, "procs[%u]: data_bytes 0 .. 16 MB, word aligned", k);
	if ((uint64_t)p->text_base + p->text_bytes > UINT32_MAX + UINT64_C(1) ||
	    (uint64_t)p->data_base + p->data_bytes > UINT32_MAX + UINT64_C(1))
		return rt_err(cause, -EINVAL, "procs[%u]: text or data past 4 GB", k);
	if (p->data_pct > 100 || p->write_pct > 100)
		return rt_err(cause, -EINVAL, "procs[%u]: data_pct and write_pct are 0 .. 100", k);
	if (p->stride_bytes % 4 || p->stride_bytes > p->data_bytes)
		return rt_err(cause, -EINVAL,
			      "procs[%u].stride_bytes: a multiple of 4, at most data_bytes", k);
	if (p->data_pct && !p->data_bytes)
		return rt_err(cause, -EINVAL, "procs[%u]: data_pct without data_bytes", k);
	return 0;
}

static int check_geom(const struct sim_fcse_cache_geom *g, const char *which, char **cause)
{
	if (!pow2(g->size_bytes) || g->size_bytes < SIM_FCSE_CACHE_MIN ||
	    g->size_bytes > SIM_FCSE_CACHE_MAX)
		return rt_err(cause, -EINVAL, "%s.size_bytes %u: a power of two, 4 KB .. 128 KB",
			      which, g->size_bytes);
	if (!pow2(g->ways) || g->ways > SIM_FCSE_WAYS_MAX ||
	    g->ways > g->size_bytes / SIM_FCSE_LINE_BYTES)
		return rt_err(cause, -EINVAL, "%s.ways %u: a power of two, 1 .. %u", which, g->ways,
			      SIM_FCSE_WAYS_MAX);
	return 0;
}

static int fc_check(const void *scenario, char **cause)
{
	const struct sim_fcse_scenario *sc = scenario;
	const struct sim_fcse_costs *c = &sc->costs;
	uint32_t total = 0, rts = 0;
	bool looping = false;
	int ret;

	if ((unsigned int)sc->mode >= SIM_FCSE_NMODES)
		return rt_err(cause, -EINVAL, "mode %u: flush, guaranteed or best-effort",
			      (unsigned int)sc->mode);
	ret = check_geom(&sc->icache, "icache", cause);
	if (!ret)
		ret = check_geom(&sc->dcache, "dcache", cause);
	if (ret)
		return ret;
	if ((unsigned int)sc->repl >= SIM_FCSE_NREPL)
		return rt_err(cause, -EINVAL, "repl %u: rr, random or lru", (unsigned int)sc->repl);
	if (!pow2(sc->tlb_entries) || sc->tlb_entries < 2 || sc->tlb_entries > SIM_FCSE_TLB_MAX ||
	    !pow2(sc->tlb_ways) || sc->tlb_ways > sc->tlb_entries)
		return rt_err(cause, -EINVAL, "tlb_entries (2 .. %u) and tlb_ways (1 .. entries) "
			      "are powers of two", SIM_FCSE_TLB_MAX);
	if (sc->tlb_lockdown > SIM_FCSE_TLB_LOCKDOWN_MAX)
		return rt_err(cause, -EINVAL, "tlb_lockdown %u: 0 .. %u", sc->tlb_lockdown,
			      SIM_FCSE_TLB_LOCKDOWN_MAX);
	if (sc->task_size < SIM_FCSE_SLOT_BYTES)
		return rt_err(cause, -EINVAL, "task_size 0x%x: at least one 32 MB slot",
			      sc->task_size);
	if (c->cpu_mhz < 1 || c->cpu_mhz > 2000)
		return rt_err(cause, -EINVAL, "costs.cpu_mhz %u: 1 .. 2000", c->cpu_mhz);
	if (c->hit_cycles < 1 || c->hit_cycles > 1000 || c->fill_cycles > 100000 ||
	    c->writeback_cycles > 100000 || c->write_buffer_cycles > 100000 ||
	    c->tlb_refill_cycles > 100000 || c->switch_cycles > 10000000 ||
	    c->flush_cycles > 10000000 || c->flush_line_cycles > 1000 ||
	    c->tlb_flush_cycles > 100000)
		return rt_err(cause, -EINVAL, "costs: hit_cycles 1 .. 1000, the others at most "
			      "100000 (switch and flush 10^7, per line 1000)");
	if (sc->tick_us < 10 || sc->tick_us > 100000)
		return rt_err(cause, -EINVAL, "tick_us %u: 10 .. 100000", sc->tick_us);
	if (sc->ticks > 10000000)
		return rt_err(cause, -EINVAL, "ticks %u: at most 10^7", sc->ticks);
	if (sc->rt_period_ticks < 1 || sc->rt_period_ticks > 100000)
		return rt_err(cause, -EINVAL, "rt_period_ticks %u: 1 .. 100000", sc->rt_period_ticks);
	if (sc->hist_bound_us < 1 || sc->hist_bound_us > SIM_FCSE_HIST_MAX_US)
		return rt_err(cause, -EINVAL, "hist_bound_us %u: 1 .. %u", sc->hist_bound_us,
			      SIM_FCSE_HIST_MAX_US);
	if (!sc->procs || sc->nprocs < 1 || sc->nprocs > SIM_FCSE_KINDS_MAX)
		return rt_err(cause, -EINVAL, "nprocs %u: 1 .. %u kinds of process", sc->nprocs,
			      SIM_FCSE_KINDS_MAX);
	for (uint32_t k = 0; k < sc->nprocs; k++) {
		ret = check_proc(sc, k, &total, &rts, &looping, cause);
		if (ret)
			return ret;
	}
	if (rts && (sc->rt_accesses < 1 || sc->rt_accesses > 100000000))
		return rt_err(cause, -EINVAL, "rt_accesses %u: 1 .. 10^8", sc->rt_accesses);
	if (sc->rt_warmup > 1000)
		return rt_err(cause, -EINVAL, "rt_warmup %u: 0 .. 1000", sc->rt_warmup);
	if (!sc->ticks && (looping || rts))
		return rt_err(cause, -EINVAL, "ticks 0 (until the traces end) needs every process "
			      "to run a trace once, and no RT task");
	return 0;
}

/* ---- State ------------------------------------------------------------------------ */

struct fc_cache {
	uint32_t *tag;		/* sets x ways: line << 1 | dirty, or FC_INVALID */
	uint16_t *owner;	/* the process that filled each entry */
	uint8_t *rr;		/* per set: the round-robin victim */
	uint32_t sets_mask, ways, ways_shift;
	uint32_t last_line;	/* the line hit or filled last (MRU of its set), or FC_INVALID */
	uint32_t last_idx;	/* its entry */
};

struct fc_proc {
	const uint32_t *s;	/* the kind's stream */
	uint64_t len, pos;
	uint32_t kind;
	uint32_t pid;		/* FCSE PID (0 in FLUSH mode); FC_NONE when refused */
	uint32_t pidbits;	/* pid << 25 */
	int refused;		/* 0 or -EAGAIN / -ENOMEM */
	bool once, rt, shared_dirty, has_high, large, exited;
};

struct fc_state {
	struct sim_fcse_scenario sc;	/* a copy; sc.procs still borrowed */
	uint32_t *gen[SIM_FCSE_KINDS_MAX];	/* owned: synthetic streams */
	struct fc_proc *p;		/* owned */
	uint32_t np;
	struct fc_cache c[2];		/* [0] I, [1] D */
	uint32_t *tlb;			/* main TLB pages, or FC_INVALID */
	uint8_t *tlb_rr;
	uint32_t tlb_sets_mask, tlb_ways;
	uint32_t lock[SIM_FCSE_TLB_LOCKDOWN_MAX];	/* lockdown pages (never flushed) */
	uint32_t nlock;
	/*
	 * Every access is translated (the MMU checks each one, hit or miss:
	 * ARM926EJ-S TRM, the MMU chapter). The page each stream (I, D) found
	 * last, while the TLB has not changed since (tlb_gen), is found again
	 * at no cost without a search.
	 */
	uint32_t tlb_gen;
	uint32_t seen_page[2], seen_gen[2];
	struct sim_rng rng;		/* random replacement */
	uint32_t nr_pids;
	/* FCSE PID bookkeeping, as the kernel patch keeps it. */
	uint32_t pid_count[SIM_FCSE_SLOTS];	/* processes holding each PID */
	uint32_t pid_user[SIM_FCSE_SLOTS];	/* the process that last ran with it, or FC_NONE */
	uint8_t pid_dirty[SIM_FCSE_SLOTS];	/* its lines may be in the caches */
	uint32_t random_pid;		/* best effort: the round-robin past the limit */
	/* The scheduler. Time is in CPU cycles. */
	uint64_t time, tick_cycles, next_tick;
	uint32_t tick_no;
	uint32_t cur;			/* running, or FC_NONE */
	uint32_t mm;			/* whose address space is loaded, or FC_NONE */
	uint32_t rr_next;		/* where the background rotation looks next */
	uint32_t rt;			/* the RT process, or FC_NONE */
	bool rt_running;
	uint64_t rt_left, rt_release, job;
	bool started, ended;
	uint64_t n[SIM_FCSE_NCOUNTERS];	/* the totals; copied into the counters after a run */
	struct rt_hist *hist;
};

static uint64_t fc_ns(const struct fc_state *st, uint64_t cycles)
{
	return cycles * 1000 / st->sc.costs.cpu_mhz;
}

static void cache_free(struct fc_cache *c)
{
	free(c->tag);
	free(c->owner);
	free(c->rr);
	memset(c, 0, sizeof(*c));
}

static void fc_fini(void *state)
{
	struct fc_state *st = state;

	for (uint32_t k = 0; k < SIM_FCSE_KINDS_MAX; k++) {
		free(st->gen[k]);
		st->gen[k] = NULL;
	}
	free(st->p);
	st->p = NULL;
	cache_free(&st->c[0]);
	cache_free(&st->c[1]);
	free(st->tlb);
	free(st->tlb_rr);
	st->tlb = NULL;
	st->tlb_rr = NULL;
	rt_hist_free(st->hist);
	st->hist = NULL;
}

static int cache_init(struct fc_cache *c, const struct sim_fcse_cache_geom *g)
{
	uint32_t lines = g->size_bytes / SIM_FCSE_LINE_BYTES, sets = lines / g->ways;

	c->tag = malloc(lines * sizeof(*c->tag));
	c->owner = calloc(lines, sizeof(*c->owner));
	c->rr = calloc(sets, 1);
	if (!c->tag || !c->owner || !c->rr)
		return -ENOMEM;
	memset(c->tag, 0xff, lines * sizeof(*c->tag));
	c->sets_mask = sets - 1;
	c->ways = g->ways;
	c->ways_shift = (uint32_t)__builtin_ctz(g->ways);
	c->last_line = FC_INVALID;
	c->last_idx = 0;
	return 0;
}

/* A synthetic kind's loop: see struct sim_fcse_proc. */
static int gen_stream(const struct sim_fcse_proc *p, uint64_t seed, uint32_t k, uint32_t **out,
		      uint64_t *len)
{
	uint32_t instrs = p->text_bytes / 4, off = 0, *s;
	struct sim_rng r;
	uint64_t n = 0;

	s = malloc((size_t)instrs * 2 * sizeof(*s));
	if (!s)
		return -ENOMEM;
	sim_rng_seed_stream(&r, seed, k);
	for (uint32_t i = 0; i < instrs; i++) {
		s[n++] = sim_fcse_rec(p->text_base + 4 * i, 4, SIM_FCSE_FETCH);
		if (p->data_pct && sim_rng_below(&r, 100) < p->data_pct) {
			uint32_t at;
			enum sim_fcse_kind kind;

			if (p->stride_bytes) {
				at = off;
				off += p->stride_bytes;
				if (off >= p->data_bytes)
					off -= p->data_bytes;
			} else {
				at = 4 * (uint32_t)sim_rng_below(&r, p->data_bytes / 4);
			}
			kind = sim_rng_below(&r, 100) < p->write_pct ? SIM_FCSE_WRITE : SIM_FCSE_READ;
			s[n++] = sim_fcse_rec(p->data_base + at, 4, kind);
		}
	}
	*out = s;
	*len = n;
	return 0;
}

static bool stream_has_high(const uint32_t *s, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (s[i] >= SIM_FCSE_SLOT_BYTES)
			return true;
	return false;
}

/* The first free PID from 1, then 0; or FC_NONE. */
static uint32_t pid_find_free(const struct fc_state *st)
{
	for (uint32_t pid = 1; pid < st->nr_pids; pid++)
		if (!st->pid_count[pid])
			return pid;
	return st->pid_count[0] ? FC_NONE : 0;
}

/* fork(): a PID for process @i, or its refusal. */
static void fc_fork(struct fc_state *st, uint32_t i)
{
	struct fc_proc *p = &st->p[i];
	uint32_t pid;

	if (st->sc.mode == SIM_FCSE_MODE_FLUSH) {
		p->pid = 0;
		return;
	}
	pid = pid_find_free(st);
	if (pid == FC_NONE) {
		if (st->sc.mode == SIM_FCSE_MODE_GUARANTEED) {
			p->refused = -EAGAIN;
			p->pid = FC_NONE;
			return;
		}
		if (++st->random_pid >= st->nr_pids)
			st->random_pid = 0;
		pid = st->random_pid;
	}
	if (st->sc.mode == SIM_FCSE_MODE_GUARANTEED && p->has_high) {
		/* The fork worked, the mapping above 32 MB fails: the process dies. */
		p->refused = -ENOMEM;
		p->pid = FC_NONE;
		return;
	}
	p->pid = pid;
	p->pidbits = pid << SIM_FCSE_PID_SHIFT;
	st->pid_count[pid]++;
}

/* The RT task's first pages into the lockdown entries. */
static void lock_rt_pages(struct fc_state *st)
{
	const struct fc_proc *p;

	if (st->rt == FC_NONE || !st->sc.tlb_lockdown)
		return;
	p = &st->p[st->rt];
	if (p->refused)
		return;
	for (uint64_t i = 0; i < p->len && st->nlock < st->sc.tlb_lockdown; i++) {
		uint32_t page = sim_fcse_mva(p->s[i], p->pid) >> SIM_FCSE_PAGE_SHIFT;
		bool seen = false;

		for (uint32_t j = 0; j < st->nlock; j++)
			seen |= st->lock[j] == page;
		if (!seen)
			st->lock[st->nlock++] = page;
	}
}

static int fc_init(void *state, const void *scenario, uint64_t seed, char **cause)
{
	struct fc_state *st = state;
	const struct sim_fcse_scenario *sc = scenario;
	uint32_t i = 0;
	int ret;

	st->sc = *sc;
	st->rt = FC_NONE;
	st->cur = FC_NONE;
	st->mm = FC_NONE;
	st->nr_pids = sc->task_size >> SIM_FCSE_PID_SHIFT;
	for (uint32_t pid = 0; pid < SIM_FCSE_SLOTS; pid++)
		st->pid_user[pid] = FC_NONE;
	sim_rng_seed(&st->rng, seed);
	for (uint32_t k = 0; k < sc->nprocs; k++)
		st->np += sc->procs[k].count;
	st->p = calloc(st->np, sizeof(*st->p));
	st->hist = rt_hist_new(sc->hist_bound_us, 0);
	if (!st->p || !st->hist)
		goto out_nomem;
	for (uint32_t k = 0; k < sc->nprocs; k++) {
		const struct sim_fcse_proc *kp = &sc->procs[k];
		const uint32_t *s = kp->trace;
		uint64_t len = kp->trace_len;
		bool high;

		if (!s) {
			ret = gen_stream(kp, seed, k, &st->gen[k], &len);
			if (ret)
				goto out_nomem;
			s = st->gen[k];
		}
		high = stream_has_high(s, len);
		for (uint32_t j = 0; j < kp->count; j++, i++) {
			struct fc_proc *p = &st->p[i];

			p->s = s;
			p->len = len;
			p->kind = k;
			p->once = kp->trace && kp->trace_once;
			p->rt = kp->flags & SIM_FCSE_RT;
			p->shared_dirty = kp->flags & SIM_FCSE_SHARED_DIRTY;
			p->has_high = high;
			/* Flush mode has no PIDs to move; its large processes are just large. */
			p->large = high && sc->mode == SIM_FCSE_MODE_FLUSH;
			if (p->rt)
				st->rt = i;
			fc_fork(st, i);
		}
	}
	if (cache_init(&st->c[0], &sc->icache) || cache_init(&st->c[1], &sc->dcache))
		goto out_nomem;
	st->tlb_ways = sc->tlb_ways;
	st->tlb_sets_mask = sc->tlb_entries / sc->tlb_ways - 1;
	st->tlb = malloc(sc->tlb_entries * sizeof(*st->tlb));
	st->tlb_rr = calloc(sc->tlb_entries / sc->tlb_ways, 1);
	if (!st->tlb || !st->tlb_rr)
		goto out_nomem;
	memset(st->tlb, 0xff, sc->tlb_entries * sizeof(*st->tlb));
	st->seen_page[0] = st->seen_page[1] = FC_INVALID;
	lock_rt_pages(st);
	st->tick_cycles = (uint64_t)sc->tick_us * sc->costs.cpu_mhz;
	st->next_tick = st->tick_cycles;
	return 0;

out_nomem:
	fc_fini(st);
	return rt_err(cause, -ENOMEM, "no memory for the caches, streams or %u processes", st->np);
}

static const struct rt_hist *fc_hist(const void *state, unsigned int i)
{
	const struct fc_state *st = state;

	(void)i;
	return st->hist;
}

/* ---- TLB, caches, flushes ------------------------------------------------------------ */

/* Search the TLB for @mva's page (the caller counts the lookup); the cycles a miss costs. */
static uint32_t tlb_lookup(struct fc_state *st, uint32_t mva)
{
	uint32_t page = mva >> SIM_FCSE_PAGE_SHIFT, base, set;

	for (uint32_t j = 0; j < st->nlock; j++)
		if (st->lock[j] == page)
			return 0;
	set = page & st->tlb_sets_mask;
	base = set * st->tlb_ways;
	for (uint32_t w = 0; w < st->tlb_ways; w++)
		if (st->tlb[base + w] == page)
			return 0;
	st->n[SIM_FCSE_C_TLB_MISSES]++;
	st->tlb_gen++;		/* an entry replaced: a stream's last page may be gone */
	st->tlb[base + st->tlb_rr[set]] = page;
	st->tlb_rr[set] = (uint8_t)((st->tlb_rr[set] + 1) & (st->tlb_ways - 1));
	return st->sc.costs.tlb_refill_cycles;
}

/*
 * Translate @mva for stream @d (0 instructions, 1 data) when it is not the
 * page that stream found last with the TLB unchanged since; the cycles a
 * page-table walk costs on a miss. A cache hit pays it too: after a
 * switch's TLB flush, the lines FCSE kept still need their pages walked.
 */
static __attribute__((noinline)) uint32_t fc_translate(struct fc_state *st, uint32_t mva,
						       uint32_t d)
{
	uint32_t cycles = tlb_lookup(st, mva);

	st->seen_page[d] = mva >> SIM_FCSE_PAGE_SHIFT;
	st->seen_gen[d] = st->tlb_gen;
	return cycles;
}

/*
 * One line of one cache: hit, or fill it (evicting a victim, written back
 * when dirty), or for a write miss without write-allocate, a write into
 * the write buffer. Adds the cycles beyond hit_cycles to *cycles; returns
 * true on a miss.
 */
static bool cache_ref(struct fc_state *st, struct fc_cache *c, uint32_t line, uint32_t is_write,
		      uint32_t who, uint64_t *cycles)
{
	const struct sim_fcse_costs *co = &st->sc.costs;
	uint32_t base = (line & c->sets_mask) << c->ways_shift, way, victim;
	uint32_t *t = c->tag + base;
	uint16_t *o = c->owner + base;

	for (way = 0; way < c->ways; way++)
		if (t[way] >> 1 == line)
			break;
	if (way < c->ways) {
		if (st->sc.repl == SIM_FCSE_REPL_LRU && way) {
			uint32_t e = t[way];
			uint16_t who0 = o[way];

			memmove(t + 1, t, way * sizeof(*t));
			memmove(o + 1, o, way * sizeof(*o));
			t[0] = e;
			o[0] = who0;
			way = 0;
		}
		t[way] |= is_write;
		c->last_line = line;
		c->last_idx = base + way;
		return false;
	}
	if (is_write && !st->sc.write_allocate) {
		*cycles += co->write_buffer_cycles;
		return true;
	}
	switch (st->sc.repl) {
	case SIM_FCSE_REPL_LRU:
		victim = c->ways - 1;
		break;
	case SIM_FCSE_REPL_RANDOM:
		victim = (uint32_t)sim_rng_below(&st->rng, c->ways);
		break;
	default:
		victim = c->rr[line & c->sets_mask];
		c->rr[line & c->sets_mask] = (uint8_t)((victim + 1) & (c->ways - 1));
		break;
	}
	if (t[victim] != FC_INVALID && (t[victim] & 1)) {
		st->n[SIM_FCSE_C_WRITEBACKS]++;
		*cycles += co->writeback_cycles;
	}
	if (st->sc.repl == SIM_FCSE_REPL_LRU) {
		memmove(t + 1, t, victim * sizeof(*t));
		memmove(o + 1, o, victim * sizeof(*o));
		victim = 0;
	}
	t[victim] = line << 1 | is_write;
	o[victim] = (uint16_t)who;
	st->n[SIM_FCSE_C_FILLS]++;
	*cycles += co->fill_cycles;
	c->last_line = line;
	c->last_idx = base + victim;
	return true;
}

/* The slow path of one access: a line not the cache's last one, or two lines. */
static __attribute__((noinline)) uint64_t
fc_access_slow(struct fc_state *st, uint32_t rec, uint32_t mva, uint32_t who)
{
	uint32_t kind = rec & 3, line = mva >> SIM_FCSE_LINE_SHIFT, is_write = kind >> 1;
	struct fc_cache *c = &st->c[(kind + 1) >> 1];
	uint64_t cycles = 0;
	bool miss = cache_ref(st, c, line, is_write, who, &cycles);

	if (rec & SIM_FCSE_REC_STRADDLE) {
		st->n[SIM_FCSE_C_STRADDLES]++;
		/* The second line on the next page is a second translation. */
		if (((line + 1) << SIM_FCSE_LINE_SHIFT) >> SIM_FCSE_PAGE_SHIFT !=
		    mva >> SIM_FCSE_PAGE_SHIFT) {
			st->n[SIM_FCSE_C_TLB_LOOKUPS]++;
			cycles += fc_translate(st, (line + 1) << SIM_FCSE_LINE_SHIFT,
					       (kind + 1) >> 1);
		}
		miss |= cache_ref(st, c, line + 1, is_write, who, &cycles);
	}
	if (miss)
		st->n[kind ? SIM_FCSE_C_D_MISSES : SIM_FCSE_C_I_MISSES]++;
	return cycles;
}

/* Invalidate the TLB but its lockdown entries. */
static uint64_t tlb_flush(struct fc_state *st)
{
	memset(st->tlb, 0xff, (st->tlb_sets_mask + 1) * st->tlb_ways * sizeof(*st->tlb));
	st->tlb_gen++;
	st->n[SIM_FCSE_C_TLB_FLUSHES]++;
	return st->sc.costs.tlb_flush_cycles;
}

/*
 * Clean and invalidate both caches, as the switch of a VIVT core does:
 * every dirty D line written back, every line of both caches invalid.
 * Returns the cycles; *dirty gets the lines written back.
 */
static uint64_t cache_flush_all(struct fc_state *st, uint64_t *dirty)
{
	const struct sim_fcse_costs *co = &st->sc.costs;
	uint64_t lines = 0, wb = 0;

	for (int k = 0; k < 2; k++) {
		struct fc_cache *c = &st->c[k];
		uint32_t n = (c->sets_mask + 1) << c->ways_shift;

		for (uint32_t i = 0; i < n; i++)
			wb += c->tag[i] != FC_INVALID && (c->tag[i] & 1);
		memset(c->tag, 0xff, n * sizeof(*c->tag));
		c->last_line = FC_INVALID;
		lines += n;
	}
	st->n[SIM_FCSE_C_FLUSHES]++;
	st->n[SIM_FCSE_C_FLUSH_WRITEBACKS] += wb;
	memset(st->pid_dirty, 0, sizeof(st->pid_dirty));
	*dirty = wb;
	return co->flush_cycles + lines * co->flush_line_cycles + wb * co->writeback_cycles;
}

/* The flush rule of best-effort mode for a switch @prev -> @next (both may be FC_NONE). */
static int be_flush_why(struct fc_state *st, uint32_t prev, uint32_t next)
{
	int why = -1;

	if (next != FC_NONE) {
		const struct fc_proc *n = &st->p[next];

		if (st->pid_user[n->pid] != next) {
			if (st->pid_user[n->pid] != FC_NONE && st->pid_dirty[n->pid])
				why = SIM_FCSE_WHY_REUSED_PID;
			st->pid_user[n->pid] = next;
		}
		if (why < 0 && n->large)
			why = SIM_FCSE_WHY_NEXT_LARGE;
	}
	if (why < 0 && prev == FC_NONE)
		why = SIM_FCSE_WHY_NO_PREV;
	if (why < 0 && st->p[prev].shared_dirty)
		why = SIM_FCSE_WHY_PREV_SHARED;
	if (why < 0 && st->p[prev].large)
		why = SIM_FCSE_WHY_PREV_LARGE;
	return why;
}

/* switch_mm from the address space loaded (st->mm, maybe none yet) to process @next. */
static __attribute__((noinline)) void fc_switch(struct fc_state *st, uint32_t next,
						 struct sim_events *ev)
{
	const uint32_t prev = st->mm;
	uint64_t cycles = st->sc.costs.switch_cycles, dirty = 0, ns;
	int why = -1;

	switch (st->sc.mode) {
	case SIM_FCSE_MODE_FLUSH:
		why = SIM_FCSE_WHY_NO_FCSE;
		break;
	case SIM_FCSE_MODE_BEST_EFFORT:
		why = be_flush_why(st, prev, next);
		break;
	default:
		break;
	}
	if (why >= 0) {
		cycles += cache_flush_all(st, &dirty);
		st->n[SIM_FCSE_C_FLUSH_WHY + why]++;
	}
	/* A new page table: the TLB has no address-space tags (tlb_flush off: an experiment). */
	if (st->sc.mode == SIM_FCSE_MODE_FLUSH || st->sc.tlb_flush || why >= 0)
		cycles += tlb_flush(st);
	if (st->sc.mode != SIM_FCSE_MODE_FLUSH)
		st->pid_dirty[st->p[next].pid] = 1;
	st->cur = next;
	st->mm = next;
	st->time += cycles;
	ns = fc_ns(st, cycles);
	st->n[SIM_FCSE_C_SWITCHES]++;
	st->n[SIM_FCSE_C_SWITCH_SUM] += ns;
	if (ns > st->n[SIM_FCSE_C_SWITCH_MAX])
		st->n[SIM_FCSE_C_SWITCH_MAX] = ns;
	if (ev) {
		uint64_t t = fc_ns(st, st->time);

		if (why >= 0)
			sim_events_push(ev, t, SIM_FCSE_EV_FLUSH, next, (uint64_t)why, dirty);
		sim_events_push(ev, t, SIM_FCSE_EV_SWITCH, next, prev, ns);
	}
}

/* Best effort: @i touched memory above 32 MB for the first time. */
static __attribute__((noinline)) void fc_relocate(struct fc_state *st, uint32_t i,
						   struct sim_events *ev)
{
	struct fc_proc *p = &st->p[i];
	uint32_t old = p->pid;
	uint64_t dirty = 0, cycles;

	cycles = cache_flush_all(st, &dirty) + tlb_flush(st);
	st->n[SIM_FCSE_C_FLUSH_WHY + SIM_FCSE_WHY_RELOCATE]++;
	st->pid_count[old]--;
	if (st->pid_user[old] == i)
		st->pid_user[old] = FC_NONE;
	p->pid = 0;
	p->pidbits = 0;
	p->large = true;
	st->pid_count[0]++;
	st->pid_user[0] = i;
	st->pid_dirty[0] = 1;
	st->time += cycles;
	st->n[SIM_FCSE_C_RELOCATIONS]++;
	if (ev) {
		uint64_t t = fc_ns(st, st->time);

		sim_events_push(ev, t, SIM_FCSE_EV_FLUSH, i, SIM_FCSE_WHY_RELOCATE, dirty);
		sim_events_push(ev, t, SIM_FCSE_EV_RELOCATE, i, old, 0);
	}
}

/* The next background process to run after the rotation point, or FC_NONE. */
static uint32_t next_background(struct fc_state *st)
{
	for (uint32_t k = 0; k < st->np; k++) {
		uint32_t i = (st->rr_next + k) % st->np;
		const struct fc_proc *p = &st->p[i];

		if (!p->rt && !p->refused && !p->exited) {
			st->rr_next = (i + 1) % st->np;
			return i;
		}
	}
	return FC_NONE;
}

/*
 * Run @next, or nothing (FC_NONE). Going idle keeps the address space
 * loaded (a kernel thread borrows it, as Linux's lazy TLB does), so
 * coming back to the same process switches nothing.
 */
static void switch_to(struct fc_state *st, uint32_t next, struct sim_events *ev)
{
	if (next == FC_NONE || next == st->mm)
		st->cur = next;
	else
		fc_switch(st, next, ev);
}

/* The first run: the forks' outcome in the counters and events, the first switch. */
static __attribute__((noinline)) void fc_start(struct fc_state *st, struct sim_events *ev)
{
	for (uint32_t i = 0; i < st->np; i++) {
		const struct fc_proc *p = &st->p[i];

		if (p->refused) {
			st->n[SIM_FCSE_C_REFUSED]++;
			st->n[p->refused == -EAGAIN ? SIM_FCSE_C_REFUSED_FORK :
			      SIM_FCSE_C_REFUSED_MMAP]++;
		} else {
			st->n[SIM_FCSE_C_PROCESSES]++;
			if (st->sc.mode == SIM_FCSE_MODE_BEST_EFFORT) {
				bool shared = false;

				for (uint32_t j = 0; j < i && !shared; j++)
					shared = !st->p[j].refused && st->p[j].pid == p->pid;
				st->n[SIM_FCSE_C_SHARED_PIDS] += shared;
			}
		}
		if (ev)
			sim_events_push(ev, 0, p->refused ? SIM_FCSE_EV_REFUSE : SIM_FCSE_EV_FORK, i,
					p->refused ? (uint64_t)-p->refused : p->pid, 0);
	}
	st->started = true;
	switch_to(st, next_background(st), ev);
}

/* A tick: the horizon, a release of the RT task, or the background's turn. */
static __attribute__((noinline)) void fc_tick(struct fc_state *st, struct sim_events *ev)
{
	uint64_t at = st->next_tick;

	st->tick_no++;
	st->next_tick += st->tick_cycles;
	if (st->sc.ticks && st->tick_no >= st->sc.ticks) {
		st->ended = true;
		return;
	}
	if (st->rt != FC_NONE && !st->p[st->rt].refused &&
	    st->tick_no % st->sc.rt_period_ticks == 0) {
		if (st->rt_running) {
			st->n[SIM_FCSE_C_OVERRUNS]++;
			return;
		}
		st->rt_running = true;
		st->rt_left = st->sc.rt_accesses;
		st->rt_release = at;
		st->p[st->rt].pos = 0;
		if (ev)
			sim_events_push(ev, fc_ns(st, at), SIM_FCSE_EV_RELEASE, st->rt, st->job, 0);
		switch_to(st, st->rt, ev);
		return;
	}
	if (!st->rt_running)
		switch_to(st, next_background(st), ev);
}

/* The RT job's last access is done. */
static __attribute__((noinline)) void fc_rt_done(struct fc_state *st, struct sim_events *ev)
{
	uint64_t lat = fc_ns(st, st->time - st->rt_release);

	st->rt_running = false;
	if (st->job < st->sc.rt_warmup) {
		/* A warm-up job: its cold start is not what the lab compares. */
		st->n[SIM_FCSE_C_WARMUPS]++;
		st->job++;
		switch_to(st, next_background(st), ev);
		return;
	}
	st->n[SIM_FCSE_C_RELEASES]++;
	st->n[SIM_FCSE_C_LATENCY_SUM] += lat;
	if (lat > st->n[SIM_FCSE_C_LATENCY_MAX])
		st->n[SIM_FCSE_C_LATENCY_MAX] = lat;
	rt_hist_add(st->hist, &(struct rt_sample){ .seq = st->job, .latency_ns = (int64_t)lat });
	if (ev)
		sim_events_push(ev, fc_ns(st, st->time), SIM_FCSE_EV_DONE, st->rt, st->job, lat);
	st->job++;
	switch_to(st, next_background(st), ev);
}

/* A trace_once process reached its end: it exits. */
static __attribute__((noinline)) void fc_exit(struct fc_state *st, struct sim_events *ev)
{
	bool any = false;

	st->p[st->cur].exited = true;
	switch_to(st, next_background(st), ev);
	for (uint32_t i = 0; i < st->np && !any; i++)
		any = !st->p[i].refused && !st->p[i].exited;
	if (!any && !st->sc.ticks)
		st->ended = true;
}

/* ---- Run ------------------------------------------------------------------------------- */

/*
 * Up to @n accesses of the running process @i, until the next tick or a
 * first access above 32 MB that needs a relocation (*trap). The hot loop:
 * the last line of each cache is checked inline, every other case goes to
 * fc_access_slow().
 */
static inline __attribute__((always_inline)) uint64_t
fc_burst(struct fc_state *st, uint32_t i, uint64_t n, bool *trap)
{
	struct fc_proc *p = &st->p[i];
	const uint32_t *s = p->s + p->pos;
	const uint32_t pidbits = p->pidbits, hit = st->sc.costs.hit_cycles;
	const bool trap_high = st->sc.mode == SIM_FCSE_MODE_BEST_EFFORT && !p->large;
	const uint64_t next = st->next_tick;
	/* The ways the inline hit check may look at: all, or LRU's head only. */
	const uint32_t lru_ways = st->sc.repl == SIM_FCSE_REPL_LRU ? 1 : SIM_FCSE_WAYS_MAX;
	uint64_t time = st->time, daccs = 0, k;

	for (k = 0; k < n && time < next; k++) {
		uint32_t rec = s[k], va = rec & ~(SIM_FCSE_LINE_BYTES - 1), mva, kind = rec & 3;
		struct fc_cache *c = &st->c[(kind + 1) >> 1];

		if (__builtin_expect(va < SIM_FCSE_SLOT_BYTES, 1)) {
			mva = va | pidbits;
		} else {
			if (trap_high) {
				*trap = true;
				break;
			}
			mva = va;
		}
		time += hit;
		daccs += (kind + 1) >> 1;
		if (__builtin_expect(mva >> SIM_FCSE_PAGE_SHIFT != st->seen_page[(kind + 1) >> 1] ||
				     st->seen_gen[(kind + 1) >> 1] != st->tlb_gen, 0))
			time += fc_translate(st, mva, (kind + 1) >> 1);
		if (__builtin_expect(!(rec & SIM_FCSE_REC_STRADDLE), 1)) {
			const uint32_t line = mva >> SIM_FCSE_LINE_SHIFT;
			uint32_t base, w;

			if (line == c->last_line) {
				c->tag[c->last_idx] |= kind >> 1;
				continue;
			}
			/* A hit elsewhere in the set; LRU only at its head (else it reorders). */
			base = (line & c->sets_mask) << c->ways_shift;
			for (w = 0; w < lru_ways && w < c->ways; w++) {
				if (c->tag[base + w] >> 1 == line) {
					c->tag[base + w] |= kind >> 1;
					c->last_line = line;
					c->last_idx = base + w;
					break;
				}
			}
			if (w < lru_ways && w < c->ways)
				continue;
		}
		time += fc_access_slow(st, rec, mva, i);
	}
	st->time = time;
	p->pos += k;
	st->n[SIM_FCSE_C_ACCESSES] += k;
	st->n[SIM_FCSE_C_TLB_LOOKUPS] += k;	/* every access is translated */
	st->n[SIM_FCSE_C_D_ACCESSES] += daccs;
	st->n[SIM_FCSE_C_I_ACCESSES] += k - daccs;
	return k;
}

static inline __attribute__((always_inline)) uint64_t
fc_loop(struct fc_state *st, uint64_t steps, struct sim_events *ev)
{
	uint64_t done = 0;

	if (!st->started && !st->ended && steps)
		fc_start(st, ev);
	while (done < steps && !st->ended) {
		struct fc_proc *p;
		uint64_t n;
		bool trap = false;

		if (st->time >= st->next_tick) {
			fc_tick(st, ev);
			continue;
		}
		if (st->cur == FC_NONE) {
			st->time = st->next_tick;	/* idle until the next tick */
			continue;
		}
		p = &st->p[st->cur];
		n = steps - done;
		if (p->rt && st->rt_left < n)
			n = st->rt_left;
		if (p->len - p->pos < n)
			n = p->len - p->pos;
		n = fc_burst(st, st->cur, n, &trap);
		done += n;
		if (p->rt && st->rt_running)
			st->rt_left -= n;
		if (trap)
			fc_relocate(st, st->cur, ev);
		if (p->pos == p->len) {
			p->pos = 0;
			if (p->once) {
				p->pos = p->len;
				fc_exit(st, ev);
				continue;
			}
		}
		if (p->rt && st->rt_running && !st->rt_left)
			fc_rt_done(st, ev);
	}
	return done;
}

static uint64_t fc_run(void *state, uint64_t steps, struct sim_counters *c,
		       struct sim_events *ev)
{
	struct fc_state *st = state;
	uint64_t done = ev ? fc_loop(st, steps, ev) : fc_loop(st, steps, NULL);

	st->n[SIM_FCSE_C_TIME] = fc_ns(st, st->time);
	memcpy(c->v, st->n, sizeof(st->n));
	return done;
}

/* ---- Accessors ------------------------------------------------------------------------ */

uint32_t sim_fcse_nprocs(const void *state)
{
	return ((const struct fc_state *)state)->np;
}

bool sim_fcse_proc_get(const void *state, uint32_t i, struct sim_fcse_proc_info *out)
{
	const struct fc_state *st = state;
	const struct fc_proc *p;

	if (i >= st->np)
		return false;
	p = &st->p[i];
	*out = (struct sim_fcse_proc_info){
		.kind = p->kind, .pid = p->pid, .refused = p->refused, .large = p->large,
		.rt = p->rt, .exited = p->exited,
	};
	return true;
}

uint32_t sim_fcse_current(const void *state)
{
	return ((const struct fc_state *)state)->cur;
}

uint32_t sim_fcse_cache_lines(const void *state, bool dcache)
{
	const struct fc_cache *c = &((const struct fc_state *)state)->c[dcache];

	return (c->sets_mask + 1) << c->ways_shift;
}

uint32_t sim_fcse_cache_owner(const void *state, bool dcache, uint32_t i)
{
	const struct fc_cache *c = &((const struct fc_state *)state)->c[dcache];

	if (i >= sim_fcse_cache_lines(state, dcache) || c->tag[i] == FC_INVALID)
		return FC_NONE;
	return c->owner[i];
}

enum sim_fcse_mode sim_fcse_state_mode(const void *state)
{
	return ((const struct fc_state *)state)->sc.mode;
}

uint32_t sim_fcse_nr_pids(const void *state)
{
	return ((const struct fc_state *)state)->nr_pids;
}

/* ---- The model ---------------------------------------------------------------------- */

const struct sim_model_ops sim_fcse_model = {
	.name = "fcse",
	.title = "ARMv5 VIVT caches and TLB under context switches, with and without FCSE",
	.step_unit = "access",
	.time_unit = "ns",
	.state_size = sizeof(struct fc_state),
	.scenario_size = sizeof(struct sim_fcse_scenario),
	.counters = fc_counters,
	.ncounters = SIM_FCSE_NCOUNTERS,
	.events = fc_events,
	.nevents = SIM_FCSE_NEVENTS,
	.hists = fc_hists,
	.nhists = SIM_FCSE_NHISTS,
	.presets = fc_presets,
	.npresets = sizeof(fc_presets) / sizeof(fc_presets[0]),
	.check = fc_check,
	.init = fc_init,
	.run = fc_run,
	.hist = fc_hist,
	.fini = fc_fini,
};
