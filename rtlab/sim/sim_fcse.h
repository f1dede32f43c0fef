/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_fcse: an ARMv5 core's virtually indexed, virtually tagged (VIVT)
 * caches and TLB under Linux's context switches, with and without the
 * Fast Context Switch Extension (FCSE), for the fcse lab (lesson 08).
 *
 * What it models (doc/sim.md has the contract; labs/fcse/README.md the
 * facts and which numbers are the paper's and which are ours):
 *
 *  - separate I and D caches of 32-byte lines, 4 KB .. 128 KB, 1 .. 64
 *    ways, round-robin, random or LRU replacement; the D cache is
 *    write-back with dirty lines, write-allocate on or off. Lines are
 *    tagged by the modified virtual address (MVA), never by a physical one;
 *  - a TLB of 4 KB pages (ARM926: 64 entries, 2-way, plus up to 8 lockdown
 *    entries that no flush removes), looked up on a line fill or a write
 *    that misses: a VIVT hit needs no translation;
 *  - processes with their own address spaces and the FCSE translation
 *    (sim_fcse_mva(): PID in bits 31:25; a VA below 32 MB becomes
 *    VA + PID x 32 MB, any other VA is unchanged);
 *  - three modes: FLUSH (no FCSE: clean and invalidate both caches and the
 *    TLB at every switch between address spaces), GUARANTEED (at most
 *    task_size / 32 MB processes, 95 with the 3G/1G split: the next fork
 *    fails with EAGAIN, a mapping above 32 MB with ENOMEM; the caches are
 *    never flushed at a switch) and BEST_EFFORT (PIDs reused round-robin
 *    past the limit; a full flush only when a switch needs one, by the
 *    rules of the kernel patch, see sim_fcse.c);
 *  - a tick scheduler: background processes take turns, one per tick; an
 *    RT task released every rt_period_ticks preempts them. The RT task's
 *    latency is the time from its release (the tick) to the end of its
 *    first rt_accesses accesses, so the switch, any flush and the refill
 *    that follows all count;
 *  - a cost model in CPU cycles (sim_fcse_costs), turned into ns with the
 *    clock rate. The defaults put a line fill at 180 ns, so refilling
 *    16 KB + 16 KB takes about 184 us: the back-of-envelope of
 *    doc/references.md 4.5, not a measurement of a board.
 *
 * A step is one memory access of the trace being replayed. Workloads are
 * access streams: synthetic ones (a code loop with strided or random data
 * accesses) are generated in init() from the seed; traces (Dinero din,
 * valgrind lackey, or this model's binary format, sim_fcse_trace.h) are
 * read by the lab and lent to the model.
 */
#ifndef RTLAB_SIM_SIM_FCSE_H
#define RTLAB_SIM_SIM_FCSE_H

#include <stdbool.h>
#include <stdint.h>

#include "sim.h"

/* The FCSE's fixed geometry: 7 PID bits at 31:25, so 128 slots of 32 MB. */
#define SIM_FCSE_PID_SHIFT 25u
#define SIM_FCSE_SLOT_BYTES (1u << SIM_FCSE_PID_SHIFT)
#define SIM_FCSE_SLOTS 128u
/* ARM Linux's TASK_SIZE with the usual 3G/1G split: PAGE_OFFSET - 16 MB. */
#define SIM_FCSE_TASK_SIZE_3G1G 0xBF000000u

#define SIM_FCSE_LINE_SHIFT 5u		/* 32-byte lines */
#define SIM_FCSE_LINE_BYTES (1u << SIM_FCSE_LINE_SHIFT)
#define SIM_FCSE_PAGE_SHIFT 12u		/* 4 KB pages */
#define SIM_FCSE_CACHE_MIN (4u << 10)
#define SIM_FCSE_CACHE_MAX (128u << 10)
#define SIM_FCSE_WAYS_MAX 64u
#define SIM_FCSE_TLB_MAX 256u		/* main TLB entries */
#define SIM_FCSE_TLB_LOCKDOWN_MAX 8u
#define SIM_FCSE_PROCS_MAX 512u		/* processes, every kind's count added up */
#define SIM_FCSE_KINDS_MAX 16u
#define SIM_FCSE_HIST_MAX_US 100000u

/*
 * One access record, the unit of every stream and of the binary trace
 * format: bits 31:5 the line's address (VA), bit 2 set when the access
 * also touches the next line (it straddles), bits 1:0 the kind. Bits 4:3
 * are zero. What the model needs of an access and nothing more.
 */
enum sim_fcse_kind {
	SIM_FCSE_FETCH = 0,	/* instruction fetch: the I cache */
	SIM_FCSE_READ = 1,	/* data read: the D cache */
	SIM_FCSE_WRITE = 2,	/* data write (or read-modify-write): the D cache */
};
#define SIM_FCSE_REC_STRADDLE 4u
#define SIM_FCSE_REC_RESERVED 0x1bu	/* kind 3 and bits 4:3: never set in a valid record */

/* sim_fcse_rec - the record of an access of @size bytes (>= 1) at @va */
static inline uint32_t sim_fcse_rec(uint32_t va, unsigned int size, enum sim_fcse_kind kind)
{
	uint32_t last = va + (size ? size - 1 : 0);
	bool straddle = (last >> SIM_FCSE_LINE_SHIFT) != (va >> SIM_FCSE_LINE_SHIFT) &&
			last > va;

	return (va & ~(SIM_FCSE_LINE_BYTES - 1)) | (straddle ? SIM_FCSE_REC_STRADDLE : 0) |
	       (uint32_t)kind;
}

/**
 * sim_fcse_mva - the FCSE translation of @va for FCSE PID @pid (0..127)
 *
 * A VA below 32 MB (bits 31:25 all zero) is relocated into slot @pid:
 * VA + PID x 32 MB, which is VA | PID << 25; any other VA is unchanged.
 * PID 0 is the flat mapping.
 */
static inline uint32_t sim_fcse_mva(uint32_t va, unsigned int pid)
{
	return va < SIM_FCSE_SLOT_BYTES ? va | (uint32_t)(pid & 127u) << SIM_FCSE_PID_SHIFT : va;
}

enum sim_fcse_mode {
	SIM_FCSE_MODE_FLUSH,		/* no FCSE: flush caches and TLB at every switch */
	SIM_FCSE_MODE_GUARANTEED,	/* FCSE, <= task_size / 32 MB processes, no cache flush */
	SIM_FCSE_MODE_BEST_EFFORT,	/* FCSE, PIDs shared past the limit, flush when needed */
	SIM_FCSE_NMODES
};

enum sim_fcse_repl {
	SIM_FCSE_REPL_RR,	/* round-robin: a victim counter per set */
	SIM_FCSE_REPL_RANDOM,	/* a way drawn from the seed */
	SIM_FCSE_REPL_LRU,	/* least recently used (not an ARM9 option: for the validation) */
	SIM_FCSE_NREPL
};

/* The names of the modes and replacements, as options and documents spell them. */
extern const char *const sim_fcse_mode_names[SIM_FCSE_NMODES];
extern const char *const sim_fcse_repl_names[SIM_FCSE_NREPL];

struct sim_fcse_cache_geom {
	uint32_t size_bytes;	/* power of two, SIM_FCSE_CACHE_MIN .. SIM_FCSE_CACHE_MAX */
	uint32_t ways;		/* power of two, 1 .. SIM_FCSE_WAYS_MAX */
};

/*
 * Costs in CPU cycles. Every access costs hit_cycles; the others add to
 * that. Defaults (sim_fcse_costs_default()): 200 MHz; a line fill or a
 * dirty line's write-back 36 cycles (180 ns, doc/references.md 4.5's 150-200 ns);
 * a TLB refill 30 (two SDRAM reads of the page walk); the switch's own
 * path 1000 (5 us); a flush's fixed part 200.
 */
struct sim_fcse_costs {
	uint32_t cpu_mhz;		/* 1 .. 2000 */
	uint32_t hit_cycles;		/* every access */
	uint32_t fill_cycles;		/* a line fetched from memory */
	uint32_t writeback_cycles;	/* a dirty line written back (eviction or flush) */
	uint32_t write_buffer_cycles;	/* a write miss without write-allocate */
	uint32_t tlb_refill_cycles;	/* a page-table walk */
	uint32_t switch_cycles;		/* the context switch's own path, every switch */
	uint32_t flush_cycles;		/* clean+invalidate both caches: the fixed part */
	uint32_t flush_line_cycles;	/* and per line of the caches (an index loop) */
	uint32_t tlb_flush_cycles;	/* invalidating the TLB */
};

/* Flags of a process kind. */
#define SIM_FCSE_RT 1u			/* the RT task: at most one, count 1 */
#define SIM_FCSE_SHARED_DIRTY 2u	/* has shared writable pages it dirties */

/*
 * A kind of process: @count processes running the same program (the
 * same access stream, each from its own position). Either a trace lent
 * by the lab (@trace, @trace_len records) or a synthetic loop generated
 * in init(): @text_bytes of straight-line code from @text_base, with a
 * data access after an instruction with probability @data_pct percent, to
 * @data_base + an offset that walks @data_bytes by @stride_bytes (or is
 * drawn at random when @stride_bytes is 0), a write with probability
 * @write_pct percent. A VA at or above 32 MB anywhere in the stream makes
 * the process "large".
 */
struct sim_fcse_proc {
	const char *name;		/* [a-z0-9-], 1..15 characters */
	uint32_t flags;			/* SIM_FCSE_RT, SIM_FCSE_SHARED_DIRTY */
	uint32_t count;			/* processes of this kind, >= 1 */
	const uint32_t *trace;		/* borrowed records, or NULL for a synthetic loop */
	uint64_t trace_len;		/* records in @trace, >= 1 */
	bool trace_once;		/* the process exits at its trace's end (else it loops) */
	uint32_t text_base, text_bytes;	/* synthetic: code, 4 .. 16 MB, word aligned */
	uint32_t data_base, data_bytes;	/* synthetic: data, 0 .. 16 MB */
	uint32_t stride_bytes;		/* 0: random offsets */
	uint32_t data_pct, write_pct;	/* 0 .. 100 */
};

struct sim_fcse_scenario {
	enum sim_fcse_mode mode;
	struct sim_fcse_cache_geom icache, dcache;
	enum sim_fcse_repl repl;
	bool write_allocate;		/* D cache: a write miss fills the line */
	uint32_t tlb_entries;		/* power of two, 2 .. SIM_FCSE_TLB_MAX */
	uint32_t tlb_ways;		/* power of two, 1 .. tlb_entries */
	uint32_t tlb_lockdown;		/* lockdown entries, 0 .. 8, locked with the RT task's pages */
	bool tlb_flush;			/* FCSE modes: invalidate the TLB at a switch (FLUSH always does) */
	uint32_t task_size;		/* user space size: PIDs = task_size / 32 MB, 1 .. 128 */
	struct sim_fcse_costs costs;
	uint32_t tick_us;		/* scheduler tick, 10 .. 100000 us */
	uint32_t ticks;			/* the horizon; 0: until every trace_once process ended */
	uint32_t rt_period_ticks;	/* the RT task's release every so many ticks, >= 1 */
	uint32_t rt_accesses;		/* its job: the accesses whose end ends its latency */
	uint32_t rt_warmup;		/* first jobs not measured (their cold start), 0 .. 1000 */
	uint32_t hist_bound_us;		/* 1 us buckets of the latency histogram */
	const struct sim_fcse_proc *procs;	/* borrowed: kinds, in fork order */
	uint32_t nprocs;		/* 1 .. SIM_FCSE_KINDS_MAX */
};

/* Counters, in this order. */
enum sim_fcse_counter {
	SIM_FCSE_C_ACCESSES,		/* accesses_count */
	SIM_FCSE_C_I_ACCESSES,		/* i_accesses_count */
	SIM_FCSE_C_I_MISSES,		/* i_misses_count */
	SIM_FCSE_C_D_ACCESSES,		/* d_accesses_count */
	SIM_FCSE_C_D_MISSES,		/* d_misses_count */
	SIM_FCSE_C_FILLS,		/* fills_count */
	SIM_FCSE_C_WRITEBACKS,		/* writebacks_count */
	SIM_FCSE_C_STRADDLES,		/* straddles_count */
	SIM_FCSE_C_TLB_LOOKUPS,		/* tlb_lookups_count */
	SIM_FCSE_C_TLB_MISSES,		/* tlb_misses_count */
	SIM_FCSE_C_SWITCHES,		/* switches_count */
	SIM_FCSE_C_SWITCH_SUM,		/* switch_sum_ns */
	SIM_FCSE_C_SWITCH_MAX,		/* switch_max_ns */
	SIM_FCSE_C_FLUSHES,		/* flushes_count */
	SIM_FCSE_C_FLUSH_WRITEBACKS,	/* flush_writebacks_count */
	SIM_FCSE_C_TLB_FLUSHES,		/* tlb_flushes_count */
	SIM_FCSE_C_REFUSED,		/* refused_count */
	SIM_FCSE_C_REFUSED_FORK,	/* refused_fork_count: EAGAIN */
	SIM_FCSE_C_REFUSED_MMAP,	/* refused_mmap_count: ENOMEM */
	SIM_FCSE_C_PROCESSES,		/* processes_count: forked and run */
	SIM_FCSE_C_SHARED_PIDS,		/* shared_pids_count: best effort, PIDs given twice */
	SIM_FCSE_C_RELOCATIONS,		/* relocations_count: moved to PID 0 */
	SIM_FCSE_C_RELEASES,		/* releases_count */
	SIM_FCSE_C_WARMUPS,		/* warmups_count */
	SIM_FCSE_C_OVERRUNS,		/* overruns_count */
	SIM_FCSE_C_LATENCY_SUM,		/* latency_sum_ns */
	SIM_FCSE_C_LATENCY_MAX,		/* latency_max_ns */
	SIM_FCSE_C_TIME,		/* time_ns: simulated time so far */
	/* Flushes by their reason, SIM_FCSE_C_FLUSH_WHY + enum sim_fcse_why: flush_<why>_count */
	SIM_FCSE_C_FLUSH_WHY,
	SIM_FCSE_NCOUNTERS = SIM_FCSE_C_FLUSH_WHY + 7
};

/* Event types. */
enum sim_fcse_event {
	SIM_FCSE_EV_FORK,	/* who = process, a = pid */
	SIM_FCSE_EV_REFUSE,	/* who = process, a = errno (EAGAIN, ENOMEM) */
	SIM_FCSE_EV_SWITCH,	/* who = next process, a = prev (SIM_FCSE_NONE at the start), b = cost_ns */
	SIM_FCSE_EV_FLUSH,	/* who = process switched to, a = why (sim_fcse_why), b = dirty lines */
	SIM_FCSE_EV_RELOCATE,	/* who = process, a = old pid; it now has pid 0 */
	SIM_FCSE_EV_RELEASE,	/* who = RT process, a = job */
	SIM_FCSE_EV_DONE,	/* who = RT process, a = job, b = latency_ns */
	SIM_FCSE_NEVENTS
};

#define SIM_FCSE_NONE 0xffffffffu	/* "no process" in events and accessors */

/* Why a full flush happened (SIM_FCSE_EV_FLUSH's a). */
enum sim_fcse_why {
	SIM_FCSE_WHY_NO_FCSE,		/* FLUSH mode: every switch */
	SIM_FCSE_WHY_NO_PREV,		/* best effort: the first switch */
	SIM_FCSE_WHY_REUSED_PID,	/* best effort: next's PID has another mm's lines */
	SIM_FCSE_WHY_NEXT_LARGE,	/* best effort: next has pages above 32 MB */
	SIM_FCSE_WHY_PREV_LARGE,	/* best effort: prev has pages above 32 MB */
	SIM_FCSE_WHY_PREV_SHARED,	/* best effort: prev dirtied shared writable pages */
	SIM_FCSE_WHY_RELOCATE,		/* best effort: a process grew past 32 MB */
	SIM_FCSE_NWHY
};
extern const char *const sim_fcse_why_names[SIM_FCSE_NWHY];

enum sim_fcse_hist {
	SIM_FCSE_HIST_LATENCY,	/* the RT task's latency, per release */
	SIM_FCSE_NHISTS
};

extern const struct sim_model_ops sim_fcse_model;

/**
 * sim_fcse_costs_default - the calibration of doc/references.md 4.5 (see struct sim_fcse_costs)
 */
void sim_fcse_costs_default(struct sim_fcse_costs *c);

/**
 * sim_fcse_cpu_preset - a core's caches and TLB into @sc
 * @name: "arm926" (ARM926EJ-S: 16 KB + 16 KB, 4-way, random replacement,
 *        read-allocate, TLB 64 entries 2-way + 8 lockdown) or "arm920t"
 *        (16 KB + 16 KB, 64-way, round-robin, TLB 64 + 64 fully
 *        associative, modelled as one of 64 ways: the board of the Xenomai
 *        measurements)
 *
 * Returns 0 or -ENOENT. The other fields of @sc are left alone.
 */
int sim_fcse_cpu_preset(const char *name, struct sim_fcse_scenario *sc);

/* sim_fcse_mode_find - @name's mode, or -1 */
int sim_fcse_mode_find(const char *name);

/*
 * The workloads of the presets and of the lab, by name: "small", "mixed",
 * "thrash", "many". sim_fcse_workload() fills @sc (whose procs it points
 * into static tables) with the ARM926 defaults, the workload and @mode;
 * -ENOENT for another name. A preset is "<workload>-<mode>".
 */
int sim_fcse_workload(const char *name, enum sim_fcse_mode mode, struct sim_fcse_scenario *sc);
extern const char *const sim_fcse_workloads[];	/* NULL-terminated */
/* A workload's one-line summary, or NULL for an unknown name. */
const char *sim_fcse_workload_summary(const char *name);

/* ---- What a screen draws: read between chunks (sim_state()) -------------------- */

struct sim_fcse_proc_info {
	uint32_t kind;		/* index into the scenario's procs */
	uint32_t pid;		/* FCSE PID now; SIM_FCSE_NONE when refused */
	int refused;		/* 0, or the negative errno of its fork or mapping */
	bool large;		/* has pages above 32 MB (best effort: moved to PID 0) */
	bool rt;
	bool exited;		/* a trace_once process that reached its end */
};

/* The number of processes (every kind's count). */
uint32_t sim_fcse_nprocs(const void *state);
/* Process @i (< sim_fcse_nprocs()); false past the end. */
bool sim_fcse_proc_get(const void *state, uint32_t i, struct sim_fcse_proc_info *out);
/* The process running now, or SIM_FCSE_NONE. */
uint32_t sim_fcse_current(const void *state);
/* Lines of the I (@dcache false) or D cache. */
uint32_t sim_fcse_cache_lines(const void *state, bool dcache);
/*
 * The process whose access filled line @i (set-major: line = set * ways +
 * way) of a cache, or SIM_FCSE_NONE when the line is invalid.
 */
uint32_t sim_fcse_cache_owner(const void *state, bool dcache, uint32_t i);
/* The mode the state simulates. */
enum sim_fcse_mode sim_fcse_state_mode(const void *state);
/* The user-space PIDs: task_size / 32 MB. */
uint32_t sim_fcse_nr_pids(const void *state);

#endif /* RTLAB_SIM_SIM_FCSE_H */
