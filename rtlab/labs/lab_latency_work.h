/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_latency_work: the latency lab's throughput workloads, which count what
 * they get done, for comparing kernels (a stock against a PREEMPT_RT kernel).
 *
 * A real-time kernel pays for its bounded latency where the kernel itself
 * works: system calls that take locks (most spinning locks sleep on
 * PREEMPT_RT), wake-ups and context switches, interrupts run as threads,
 * creating and tearing down processes. A loop that only computes in user
 * space hardly enters the kernel and should run at the same speed on both.
 * So the workloads are:
 *
 *   msg   hackbench-style message passing: groups of sender and receiver
 *         threads, each sender writing 100-byte messages to every receiver
 *         of its group through AF_UNIX stream sockets (hackbench -T with
 *         sockets); counts messages received;
 *   pipe  two threads passing one byte back and forth through two pipes:
 *         every round trip is two wake-ups and two context switches;
 *         counts round trips;
 *   fork  fork(), the child _exit()s at once, the parent waits for it;
 *         counts processes;
 *   cpu   a user-space loop of integer arithmetic, the control: counts
 *         iterations.
 *
 * Each call runs one workload for a time and returns operations per second
 * measured from its start to its deadline; callers repeat and interleave
 * them, because one run on a shared machine proves little.
 * latency_work_stats() gives the median and spread of such repeats.
 *
 * Workers are threads of the calling process (fork: its children), run as
 * SCHED_OTHER with the caller's affinity or on one CPU, with SIGINT, SIGTERM
 * and SIGHUP blocked so stop signals go to the caller's other threads.
 * Nothing outlives a call.
 */
#ifndef RTLAB_LABS_LAB_LATENCY_WORK_H
#define RTLAB_LABS_LAB_LATENCY_WORK_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum latency_work_kind {
	LATENCY_WORK_MSG,
	LATENCY_WORK_PIPE,
	LATENCY_WORK_FORK,
	LATENCY_WORK_CPU,
	LATENCY_WORK_NKINDS,
};

/* Sizes of the msg workload (hackbench's defaults are 10 groups of 20 and 20). */
#define LATENCY_WORK_MSG_GROUPS 2u
#define LATENCY_WORK_MSG_SENDERS 5u		/* per group */
#define LATENCY_WORK_MSG_RECEIVERS 5u	/* per group */
#define LATENCY_WORK_MSG_BYTES 100u		/* one message, as hackbench's */
#define LATENCY_WORK_MIN_MS 10u		/* shortest run */
#define LATENCY_WORK_MAX_MS 3600000u		/* longest run: an hour */

/* What a workload is, for tables and documents. */
struct latency_work_info {
	const char *name;	/* "msg", "pipe", "fork", "cpu" */
	const char *unit;	/* what one operation is, plural: "messages" */
	const char *what;	/* one sentence */
	bool kernel;		/* dominated by the kernel (system calls, locks, wake-ups) */
};

/* latency_work_info - the description of workload @kind, or NULL beyond LATENCY_WORK_NKINDS */
const struct latency_work_info *latency_work_info(unsigned int kind);

/* latency_work_find - the workload called @name, or -1 */
int latency_work_find(const char *name);

/* One run of a workload. */
struct latency_work_run {
	uint64_t ops;		/* operations completed between start and deadline */
	double elapsed_s;	/* from the start to when they were counted */
	double ops_per_s;	/* ops / elapsed_s */
	bool stopped;		/* *stop ended it before its deadline */
};

/**
 * latency_work_run - run workload @kind for @duration_ms and count its operations
 * @kind: one of enum latency_work_kind
 * @duration_ms: LATENCY_WORK_MIN_MS .. LATENCY_WORK_MAX_MS
 * @cpu: run the caller, its workers and its children on this CPU only (the
 *       caller's mask is put back afterwards); -1 leaves the mask alone.
 *       On one CPU no wake-up crosses CPUs, which a virtual machine makes
 *       expensive (an inter-processor interrupt, a halted vCPU to wake)
 * @stop: NULL, or a flag a signal handler sets: the run ends within about
 *        100 ms and reports what it counted until then (out->stopped)
 * @out: the caller's storage
 * @cause: on failure, what went wrong (caller frees)
 *
 * Returns 0; -EINVAL for a bad @kind, @duration_ms or @cpu; a negative errno when
 * a thread, a socket, a pipe or a child process could not be made (nothing
 * is left running then).
 */
int latency_work_run(unsigned int kind, unsigned int duration_ms, int cpu,
		const volatile sig_atomic_t *stop, struct latency_work_run *out, char **cause);

/* Summary of repeated runs. */
struct latency_work_stats {
	size_t n;
	double median, min, max, mean;
	double cv_pct;		/* sample standard deviation / mean, in percent; 0 below 2 runs */
	double range_pct;	/* (max - min) / median, in percent */
};

/**
 * latency_work_stats - median, extremes, mean and spread of @n values
 * @v: the values (not changed); n may be 0 (everything is 0 then)
 *
 * Pure. The median of an even count is the mean of the middle two.
 */
void latency_work_stats(const double *v, size_t n, struct latency_work_stats *out);

#endif
