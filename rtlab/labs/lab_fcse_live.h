/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_fcse_live: the FCSE lab's live part (`rtlab lab run fcse --live`, issue 34). It boots
 * the ARM image's FCSE kernel (`fcse`: Linux 6.12 with our FCSE port on QEMU's versatilepb)
 * once per mode through the QEMU room, runs rtlab-fcse-work there (vm/arm/fcse-work.c: the
 * workload's processes, a token passed round them for a fixed number of switches, then
 * forks until one is refused), parses what it prints, and runs the model (sim/sim_fcse.c)
 * over the same processes and the same number of switches, so that the document sets the
 * kernel's counters beside the model's. QEMU models no cache: every time in the document is
 * the model's.
 */
#ifndef RTLAB_LABS_LAB_FCSE_LIVE_H
#define RTLAB_LABS_LAB_FCSE_LIVE_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "core/rt_keys.h"
#include "lab_fcse.h"

struct lab_ctx;
struct rt_result;
struct lab_result;
struct rt_sink;

/* /proc/fcse's numbers, in the contract's order (after "mode"). */
enum fcse_work_key {
	FCSE_WK_PID_REGISTER, FCSE_WK_PID_MM, FCSE_WK_PIDS_TOTAL, FCSE_WK_PIDS_IN_USE,
	FCSE_WK_SWITCHES, FCSE_WK_FLUSHES, FCSE_WK_FLUSHES_AVOIDED, FCSE_WK_FORKS_REFUSED,
	FCSE_WK_MAPPINGS_REFUSED, FCSE_WK_RELOCATIONS,
	FCSE_WK_NKEYS
};
extern const char *const fcse_work_key_names[FCSE_WK_NKEYS];

/* One reading of /proc/fcse: the numbers it had (bit per enum fcse_work_key in @have). */
struct fcse_work_snap {
	long long v[FCSE_WK_NKEYS];
	unsigned int have;
};

#define FCSE_WORK_PROCS_MAX 512u

struct fcse_work_proc {
	char kind[16];		/* rt, small, shm, big, hog */
	char stage[8];		/* ok (ran the ring), fork or mmap (refused there) */
	char err[16];		/* "0", EAGAIN, ENOMEM... */
	long long fcse_pid;	/* pid_mm as the process read it, -1 unknown */
};

/* What one rtlab-fcse-work output holds (its header documents the keys). */
struct fcse_work_out {
	bool have_ring, have_limit;	/* a "command=ring" / "command=limit" part was seen */
	bool ring_ok, limit_ok;		/* ... and it ended with status=ok */
	char mode[32];			/* fcse_mode: the kernel's mode, "none" */
	char missing[256];		/* fcse_missing: the contract's keys it lacks */
	char sched[8];			/* fifo or other */
	char workload[16];
	char error[160];		/* the first error=, or "" */
	unsigned int nprocs, ring, warmup, switches;
	struct fcse_work_proc *procs;	/* owned, @nprocs */
	struct fcse_work_snap base, before, after, delta;	/* the ring's */
	unsigned int limit_max, limit_forked;
	char limit_errno[16];
	struct fcse_work_snap limit_base, limit_at;
};

/**
 * fcse_work_parse - read rtlab-fcse-work's key=value lines from @text (NUL-terminated)
 * @out: zeroed and filled; release with fcse_work_out_fini(), also after a failure
 *
 * Lines it does not know are ignored (a newer program's); a number that is not one, a
 * process index out of order or a part without its status fail with -EPROTO and @cause
 * naming the line. Returns 0, -EPROTO or -ENOMEM.
 */
int fcse_work_parse(const char *text, struct fcse_work_out *out, char **cause);
void fcse_work_out_fini(struct fcse_work_out *out);

/* What the model gives for the same processes and switches (fcse_live_model()). */
struct fcse_live_model {
	uint64_t switches, flushes, switch_sum_ns;	/* over the measured switches */
	uint64_t refused_fork, refused_mmap, relocations, processes;
	uint32_t nprocs;
	int pid[FCSE_WORK_PROCS_MAX];	/* FCSE PID per process, -1 refused */
};

/**
 * fcse_live_model - the model over rtlab-fcse-work's schedule
 * @workload: one of sim_fcse_workloads; @processes: the count of its second kind, 0 = its own
 * @switches: the passes measured after a warm-up round of one pass per process
 *
 * The workload's processes with the RT task made an ordinary one (the ring has no RT
 * task), one tick each in fork order: the model's round-robin is the ring. Returns 0 or a
 * negative errno with @cause.
 */
int fcse_live_model(const char *workload, unsigned int processes, enum sim_fcse_mode mode,
		    unsigned int switches, uint64_t seed, struct fcse_live_model *m, char **cause);

/* Is @res a live document (params.live)? */
bool fcse_live_doc(const struct rt_result *res);

/* The live document's views: the kernel's counts beside the model's, the fork limit. */
int fcse_live_views(const struct rt_result *res, json_t *views);

/* A live scenario's keys beyond the simulator's (its counters are the model's). */
#define FCSE_LIVE_SCENARIO_KEYS \
	RT_KEY("live", RT_T_BOOL, NULL, "the FCSE kernel ran this scenario's processes", false), \
	RT_KEY("kernel_release", RT_T_STRING, NULL, "the FCSE kernel's uname -r", false), \
	RT_KEY("kernel_sched", RT_T_STRING, NULL, "the ring's policy in the guest: fifo, or " \
	       "other when SCHED_FIFO was refused", false), \
	RT_KEY("kernel_lacks", RT_T_STRING, NULL, "/proc/fcse keys this kernel lacks, " \
	       "comma-separated", false), \
	RT_KEY("kernel_pids", RT_T_ARRAY, NULL, "the FCSE PID the kernel gave each process, " \
	       "in fork order (-1: refused)", false, .items = RT_T_INTEGER), \
	RT_KEY("model_pids", RT_T_ARRAY, NULL, "the PID the model gave each (-1: refused)", \
	       false, .items = RT_T_INTEGER), \
	RT_KEY("model_flushes_avoided_count", RT_T_INTEGER, "count", "the model's switches " \
	       "without a flush", false), \
	RT_KEY("kernel_processes_count", RT_T_INTEGER, "count", "processes that ran the ring", \
	       false), \
	RT_KEY("kernel_refused_fork_count", RT_T_INTEGER, "count", "forks that failed", false), \
	RT_KEY("kernel_refused_mmap_count", RT_T_INTEGER, "count", "processes whose mapping " \
	       "above 32 MB failed", false), \
	RT_KEY("kernel_switches_count", RT_T_INTEGER, "count", "/proc/fcse switches over " \
	       "the measured passes", false), \
	RT_KEY("kernel_flushes_count", RT_T_INTEGER, "count", "/proc/fcse flushes over them", \
	       false), \
	RT_KEY("kernel_flushes_avoided_count", RT_T_INTEGER, "count", "/proc/fcse " \
	       "flushes_avoided over them", false), \
	RT_KEY("kernel_pids_total_count", RT_T_INTEGER, "count", "/proc/fcse pids_total", \
	       false), \
	RT_KEY("kernel_base_pids_in_use_count", RT_T_INTEGER, "count", "PIDs in use before " \
	       "the workload forked (init, the shell, rtlab-fcse-work)", false), \
	RT_KEY("kernel_pids_in_use_count", RT_T_INTEGER, "count", "PIDs in use during the " \
	       "ring", false), \
	RT_KEY("kernel_forks_refused_count", RT_T_INTEGER, "count", "/proc/fcse " \
	       "forks_refused over the workload", false), \
	RT_KEY("kernel_mappings_refused_count", RT_T_INTEGER, "count", "/proc/fcse " \
	       "mappings_refused over the workload", false), \
	RT_KEY("kernel_relocations_count", RT_T_INTEGER, "count", "/proc/fcse relocations " \
	       "over the workload", false), \
	RT_KEY("flushes_agree", RT_T_BOOL, NULL, "the kernel's switches and flushes equal " \
	       "the model's", false), \
	RT_KEY("kernel_limit_forked_count", RT_T_INTEGER, "count", "the fork limit: " \
	       "children that ran before a fork failed", false), \
	RT_KEY("kernel_limit_errno", RT_T_STRING, NULL, "the failing fork's errno (0: none " \
	       "failed)", false), \
	RT_KEY("kernel_limit_pids_in_use_count", RT_T_INTEGER, "count", "pids_in_use at " \
	       "that fork", false), \
	RT_KEY("kernel_limit_base_pids_in_use_count", RT_T_INTEGER, "count", "pids_in_use " \
	       "before the fork limit's first fork", false)

/**
 * lab_fcse_live_run - the whole live run (fcse_params.live) into @out
 *
 * Says precisely what is missing (qemu-system-arm, the fcse image) with -ENOENT before
 * booting anything. Ends as every lab's run does (lab_result_finish(): an error is logged
 * with its cause). Returns 0 or a negative errno.
 */
int lab_fcse_live_run(struct lab_ctx *ctx, const struct rt_sink *sink,
		      const struct fcse_params *p, struct lab_result *out);

#endif
