/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_latency_kside: the latency lab's kernel-side scenarios (lesson 16).
 *
 * Beside the probe, the rtlab_inject module runs a 2 ms section 8 times a
 * second: in the thread of a real threaded interrupt (irq/N-rtlab_inject,
 * whose SCHED_FIFO priority the scenario sets above or below the probe's),
 * in a handler registered without a thread, or under a raw_spinlock_t or a
 * spinlock_t taken by a SCHED_OTHER thread. fifo99-spinner (Myth 7) adds a
 * SCHED_FIFO 99 thread that spins 20 ms of every 125 ms, and asks for the
 * interrupt 1 ms into each burst,, and records how long the interrupt's thread waited.
 *
 * Host changes go through the journal: the interrupt thread's priority, and
 * for the spinner the RT throttle (sched_rt_runtime_us) and the fair server,
 * switched on only when they are off; all are put back after the scenario.
 */
#ifndef RTLAB_LABS_LAB_LATENCY_KSIDE_H
#define RTLAB_LABS_LAB_LATENCY_KSIDE_H

#include <jansson.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "labs/lab.h"
#include "lab_latency.h"

/* Where the module's debugfs files are, below the system root. */
#define LATENCY_KSIDE_DIR "/sys/kernel/debug/rtlab_inject"
#define LATENCY_KSIDE_SECTION_US 2000u		/* irq, hardirq and lock sections */
#define LATENCY_KSIDE_SPINNER_SECTION_US 100u	/* the interrupt's work under the spinner */
#define LATENCY_KSIDE_PERIOD_MS 125u		/* 8 a second: below the module's 10 */
#define LATENCY_KSIDE_BURST_MS 20u		/* the FIFO 99 spinner: spins this long */
#define LATENCY_KSIDE_BURST_PERIOD_MS 125u	/* of every this many: 8 interrupts a second */
#define LATENCY_KSIDE_SPINNER_PRIORITY 99

/* The module's file for @k ("irq_thread_us", ...), NULL for LATENCY_KSIDE_NONE. */
const char *latency_kside_file(enum latency_kside k);

/**
 * latency_kside_check - can plan @pl run here?
 * @root: the system root ("" live; a fixture tree in the tests)
 * @cause: when not, what is missing and how to get it
 *
 * Returns 0 (also for a plan without a kernel side) or -ENOTSUP.
 */
int latency_kside_check(const struct latency_plan *pl, const char *root, char **cause);

/* One kernel-side activity as it runs and as it is recorded. */
struct latency_kside_run {
	const struct latency_plan *plan;	/* borrowed */
	int fd;					/* the module's file; -1 */
	char stats_path[128];
	pthread_t writer, spinner;
	bool writer_up, spinner_up;
	bool running;				/* started: stop has work to do */
	atomic_bool stop;
	sem_t burst;				/* the spinner's request for an interrupt */
	pid_t irq_tid;				/* irq/N-rtlab_inject; 0 unknown */
	int irq_old_policy, irq_old_priority;	/* to put back */
	bool irq_changed;
	int irq_priority;			/* as measured; -1 unknown */
	char throttle[96];			/* what the spinner found and did; "" */
	char throttle_path[2][160];		/* knobs switched on, to put back */
	char throttle_old[2][32];
	/* written by the writer thread, read after it was joined */
	uint64_t sections, refused, delays;
	uint64_t delay_max_ns, delay_sum_ns;
	int write_errno;			/* the first unexpected write error; 0 */
};

/**
 * latency_kside_start - start the kernel side of @r->plan beside the probe
 * @r: the caller's storage, filled
 *
 * Sets the interrupt thread's priority, guards the machine against the
 * spinner (see the file comment), starts the spinner and the writer. Does
 * nothing for a plan without a kernel side. Returns 0 or a negative errno
 * with @cause; latency_kside_stop() cleans up either way.
 */
int latency_kside_start(struct lab_ctx *ctx, struct latency_kside_run *r,
			const struct latency_plan *pl, const char *root, char **cause);

/* latency_kside_stop - stop the threads, put back what was changed. Idempotent. */
void latency_kside_stop(struct latency_kside_run *r);

/* latency_kside_record - the kernel side's figures into the scenario object @o. */
int latency_kside_record(json_t *o, const struct latency_kside_run *r);

/**
 * latency_kside_view - the view "kernel-side" of @scens' kernel-side scenarios
 * @views: appended to; nothing when there is none
 *
 * Returns 0 or -ENOMEM.
 */
int latency_kside_view(json_t *scens, json_t *views);

#endif
