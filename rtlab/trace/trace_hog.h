/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_hog: the user-space stand-in for the latency injector module, for
 * hosts where rtlab_inject is not loaded. It can only hurt a measuring
 * thread the way any process can, so there is less to find than with the
 * module, but the ftrace hunt works everywhere.
 *
 * A hog is a child process that repeats one kind of event:
 *   - TRACE_HOG_FIFO_SPIN: a SCHED_FIFO busy loop of N us at a priority
 *     above the probe's, on the probe's CPU (trace_hog_fifo_spin);
 *   - TRACE_HOG_FAULT_STORM: touching fresh anonymous pages for N us, one
 *     page fault each (trace_hog_fault_storm);
 *   - TRACE_HOG_SYSCALL_BURST: cheap system calls back to back for N us
 *     (trace_hog_syscall_burst).
 * Each kind runs inside its own named function, so a function or stack
 * trace of the hog names it.
 *
 * Bounds, so that no lab can hang a machine: an event lasts at most
 * TRACE_HOG_MAX_BURST_US, events start at least TRACE_HOG_MIN_PERIOD_US
 * apart and at least ten times their length apart (at most a 10 % duty
 * cycle), the child dies with its parent (PR_SET_PDEATHSIG), and the
 * kernel's RT throttling stays the last line of defence. Nothing on the
 * host changes: the scheduling policy belongs to the child, which ends.
 */
#ifndef RTLAB_TRACE_TRACE_HOG_H
#define RTLAB_TRACE_TRACE_HOG_H

#include <stdint.h>
#include <sys/types.h>

#define TRACE_HOG_MAX_BURST_US 10000u
#define TRACE_HOG_MIN_PERIOD_US 20000u

enum trace_hog_kind {
	TRACE_HOG_FIFO_SPIN,
	TRACE_HOG_FAULT_STORM,
	TRACE_HOG_SYSCALL_BURST,
};

struct trace_hog_params {
	enum trace_hog_kind kind;
	int cpu;		/* pin to this CPU; -1: anywhere */
	int prio;		/* SCHED_FIFO priority 1..98; 0: SCHED_OTHER (FIFO_SPIN needs > 0) */
	unsigned int burst_us;	/* length of one event; clamped to TRACE_HOG_MAX_BURST_US */
	unsigned int period_us;	/* start to start; raised to the bounds above */
	unsigned int count;	/* events to run; 0: until stopped */
};

/* What the child has done so far (read from shared memory). */
struct trace_hog_stats {
	uint64_t events;	/* completed events */
	uint64_t work;		/* spins, pages touched or system calls, in total */
	uint64_t busy_ns;	/* total time inside events */
	uint64_t max_event_ns;	/* the longest event */
	uint64_t last_start_ns;	/* CLOCK_MONOTONIC start of the newest event */
	int setup_err;		/* 0, or the negative errno the child met setting up */
};

struct trace_hog;

/* The name of the function that runs @kind's events ("trace_hog_fifo_spin" ...). */
const char *trace_hog_function(enum trace_hog_kind kind);

/**
 * trace_hog_start - fork the hog
 * @p: what to run; burst and period are clamped as documented above
 * @cause: on failure, why
 *
 * Returns the hog or NULL with errno set (EINVAL for bad parameters; EPERM
 * when SCHED_FIFO is not allowed shows up as setup_err after a short wait,
 * in which case the call fails too). Stop it with trace_hog_stop().
 */
struct trace_hog *trace_hog_start(const struct trace_hog_params *p, char **cause);

/* The child's pid. */
pid_t trace_hog_pid(const struct trace_hog *h);

/* The parameters in force after clamping. */
const struct trace_hog_params *trace_hog_params(const struct trace_hog *h);

/* Snapshot of the child's counters (the caller's storage). */
void trace_hog_stats(const struct trace_hog *h, struct trace_hog_stats *out);

/**
 * trace_hog_wait - wait until the child has run @count events or exited
 * @timeout_ms: give up after this long
 * Returns 0, or -ETIMEDOUT.
 */
int trace_hog_wait(struct trace_hog *h, unsigned int timeout_ms);

/**
 * trace_hog_stop - end the child (SIGTERM, then SIGKILL), reap it, free @h
 * @final: if not NULL, the counters at the end
 * NULL does nothing. Returns 0 or a negative errno.
 */
int trace_hog_stop(struct trace_hog *h, struct trace_hog_stats *final);

#endif
