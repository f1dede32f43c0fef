/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_fcse: the FCSE lab (lesson 08) over the sim/sim_fcse model: its
 * parameters, the live picture a screen draws while it runs, and the
 * loader of trace files that the lab and tools/fcse-trace share.
 */
#ifndef RTLAB_LABS_LAB_FCSE_H
#define RTLAB_LABS_LAB_FCSE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/sim_fcse.h"
#include "sim/sim_fcse_trace.h"

#define FCSE_MAX_TRACES 8u
#define FCSE_WORKLOAD_TRACE 4	/* after the model's four workloads */

struct fcse_params {
	unsigned int modes;		/* bit per enum sim_fcse_mode; 0: all three */
	int workload;			/* index into sim_fcse_workloads, or FCSE_WORKLOAD_TRACE */
	bool workload_given;
	unsigned int processes;		/* background processes; 0: the workload's */
	char *traces[FCSE_MAX_TRACES];	/* owned: --trace FILE, each a background process */
	unsigned int ntraces;
	int cpu;			/* 0 arm926, 1 arm920t */
	int repl;			/* 0 the core's, else 1 + enum sim_fcse_repl */
	bool write_allocate;
	bool tlb_flush;			/* FCSE modes invalidate the TLB at a switch */
	unsigned int tlb_lock;		/* lockdown entries holding the RT task's pages, 0..8 */
	unsigned int ticks;		/* scheduler ticks to simulate per mode */
	unsigned int icache_kb, dcache_kb, ways;	/* 0: the core's */
	bool live;			/* --live: the FCSE kernel in QEMU (lab_fcse_live.h) */
	unsigned int switches;		/* --live: the ring's switches measured */
};

/* How many cells of a cache the live picture keeps (a cell: one or more lines). */
#define FCSE_LIVE_CELLS 512u

/* The processes whose PIDs the live form keeps (kernel's and model's). */
#define FCSE_LIVE_PIDS 128u

/* One mode of a live run (--live): the kernel's counts beside the model's. */
struct fcse_live_kmode {
	char state[16];			/* "", booting, done */
	bool done;
	uint64_t k_switches, k_flushes, k_avoided;	/* the kernel's, over the ring */
	uint64_t m_switches, m_flushes;			/* the model's, same ring */
	uint32_t k_refused_fork, k_refused_mmap, m_refused_fork, m_refused_mmap;
	uint32_t nprocs;				/* in k_pid and m_pid */
	int16_t k_pid[FCSE_LIVE_PIDS], m_pid[FCSE_LIVE_PIDS];	/* -1 refused */
	uint32_t limit_forked;		/* the fork limit: children that ran, */
	int limit_in_use;		/* pids_in_use at the refusal (-1 unknown), */
	char limit_errno[16];		/* and fork's errno ("0": none) */
};

/*
 * What the run keeps current between chunks for a screen. The run writes
 * it under @lock; a screen copies it under @lock. @mode_req is the one
 * field a screen writes (atomically): the mode to simulate next (-1: none),
 * which stops the mode being simulated and starts that one.
 */
struct fcse_live {
	pthread_mutex_t lock;
	bool lock_ready;		/* the screen initialised @lock */
	int mode_req;
	int mode;			/* simulating now, -1 before the first */
	char workload[16];
	uint64_t accesses, switches, flushes, refused, releases;
	uint64_t latency_sum_ns, latency_max_ns, switch_sum_ns;
	uint64_t i_accesses, i_misses, d_accesses, d_misses;
	uint64_t time_ns;
	uint32_t nprocs, nr_pids, cur;
	uint8_t proc_pid[SIM_FCSE_PROCS_MAX];	/* 0..127, 255 refused */
	uint16_t slot_proc[SIM_FCSE_SLOTS];	/* a process holding each PID, or 0xffff */
	uint16_t slot_count[SIM_FCSE_SLOTS];	/* how many hold it */
	uint16_t icell[FCSE_LIVE_CELLS], dcell[FCSE_LIVE_CELLS];	/* owner, 0xffff empty */
	uint32_t icells, dcells;	/* cells in use */
	bool kernel;			/* a live run (--live): @km, not the cache picture */
	struct fcse_live_kmode km[SIM_FCSE_NMODES];
};

/* The defaults: all three modes, the mixed workload on an ARM926, 200 ticks. */
void fcse_params_init(struct fcse_params *p);

/* A trace file in memory, its format detected and its records read. */
struct fcse_trace_file {
	char *data;			/* the file: mapped (binary) or read (text) */
	size_t len;
	bool mapped;
	int fmt;			/* enum sim_fcse_trace_fmt */
	struct sim_fcse_trace t;	/* may point into @data */
};

/**
 * fcse_trace_file_load - read @path, detect its format and parse it
 * @f: filled; release with fcse_trace_file_fini() (also after a failure)
 *
 * A binary trace is mapped and used in place; a text one is read and
 * parsed into records. Returns 0 or a negative errno with @cause naming
 * the file.
 */
int fcse_trace_file_load(const char *path, struct fcse_trace_file *f, char **cause);
void fcse_trace_file_fini(struct fcse_trace_file *f);

#endif
