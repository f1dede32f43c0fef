/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_probe: the measuring threads of the latency lab, in the manner of
 * cyclictest.
 *
 * Each thread sleeps until an absolute wake-up time on the chosen clock
 * (clock_nanosleep with TIMER_ABSTIME), reads the clock as soon as it runs
 * again, and records how late it woke: latency = now - planned. The planned
 * time then moves on by the thread's interval, which is interval_us plus
 * i * distance_us for thread i (cyclictest -i and -d), so threads do not all
 * wake at the same instant.
 *
 * Samples leave the measuring thread through its own single-producer,
 * single-consumer ring (Concurrency Kit ck_ring). A non-RT consumer drains
 * the rings with rt_probe_poll() into histograms and an optional sink. The
 * measuring loop never blocks on the consumer: when a ring is full the
 * sample is dropped and counted, so after a final poll
 * samples + drops == loops for every thread.
 *
 * Safety: the loop has no busy wait. Every cycle consumes one interval of
 * planned time, and a thread more than one interval behind moves its plan
 * past "now" instead of catching up in a burst, so a SCHED_FIFO/RR thread
 * runs at most about one cycle (a few microseconds) per interval and
 * sleeps the rest: it cannot spin. Intervals under
 * RT_PROBE_MIN_RT_INTERVAL_US are refused for RT policies unless the caller
 * sets allow_short_interval; the kernel's last line of defence is RT
 * throttling (sched_rt_runtime_us, before 6.12) or the fair server (6.12
 * and later: waiting SCHED_OTHER tasks get 50 ms in every second).
 *
 * If a load generator (rt_load) is to run at the same time, start it
 * before the probe: fork() shares the parent's pages copy-on-write, and the
 * first write to each shared page afterwards is a page fault in the parent.
 */
#ifndef RTLAB_CORE_RT_PROBE_H
#define RTLAB_CORE_RT_PROBE_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "rt_hist.h"
#include "rt_sink.h"

#define RT_PROBE_MAX_THREADS 256u
#define RT_PROBE_MIN_RT_INTERVAL_US 50u
#define RT_PROBE_MAX_INTERVAL_US 1000000u	/* stop reacts within one interval */
#define RT_PROBE_DEFAULT_RING 8192u		/* slots per thread; one is never used */
#define RT_PROBE_MAX_RING (1u << 20)
#define RT_PROBE_MAX_SLACK_NS 1000000000ull	/* timer_slack_ns: at most 1 s */
#define RT_PROBE_MIN_DL_RUNTIME_NS 1024ull	/* the kernel's smallest SCHED_DEADLINE runtime */
#define RT_PROBE_MAX_ALLOC_BYTES (64u << 20)	/* alloc_bytes: at most 64 MiB a cycle */

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif

struct rt_probe;

struct rt_probe_config {
	unsigned int nthreads;		/* 1 .. RT_PROBE_MAX_THREADS */
	/*
	 * borrowed: nthreads CPU sets, or NULL to leave affinity alone; an
	 * empty set leaves that one thread alone.
	 */
	const cpu_set_t *cpus;
	int policy;			/* SCHED_OTHER, SCHED_FIFO, SCHED_RR or SCHED_DEADLINE */
	int priority;			/* 1..99 for FIFO/RR, 0 for OTHER and DEADLINE */
	/*
	 * SCHED_DEADLINE only: each thread's reservation (sched_setattr). A
	 * zero period is the thread's own interval, a zero deadline the
	 * period; runtime <= deadline <= period must hold.
	 */
	uint64_t dl_runtime_ns;
	uint64_t dl_deadline_ns;
	uint64_t dl_period_ns;
	unsigned int interval_us;	/* base interval (cyclictest -i) */
	unsigned int distance_us;	/* added per thread index (cyclictest -d) */
	clockid_t clock;		/* CLOCK_MONOTONIC (default) or CLOCK_REALTIME */
	unsigned int duration_ms;	/* per thread run time; 0 = until stopped or loops */
	uint64_t loops;			/* per thread cycle count; 0 = until stopped or duration */
	bool mlock;			/* mlockall(MCL_CURRENT | MCL_FUTURE) and prefault */
	bool allow_short_interval;	/* permit RT intervals below the minimum */
	uint64_t spike_ns;		/* count latencies above this; 0 = off */
	uint64_t trace_ns;		/* write a marker line above this; 0 = off */
	int trace_fd;			/* borrowed, e.g. tracefs trace_marker; -1 = none */
	unsigned int ring_size;		/* power of two >= 4; 0 = RT_PROBE_DEFAULT_RING */
	/*
	 * Each thread's timer slack (prctl PR_SET_TIMERSLACK) in ns, set before
	 * its loop; 0 leaves the one it inherits (50 us unless changed). The
	 * kernel applies no slack to SCHED_FIFO/RR sleeps whatever it is.
	 */
	uint64_t timer_slack_ns;
	/*
	 * Fresh memory every cycle, 0 = none: after each sample the thread
	 * maps this many bytes of anonymous memory, writes one byte in every
	 * page, and unmaps it, timing the mmap and the writes apart and
	 * counting the minor faults of each (getrusage RUSAGE_THREAD). Without
	 * mlock the pages fault in when first written; with mlock
	 * (MCL_FUTURE) mmap populates them, so the faults, and their time,
	 * move into the allocation. Below 2 MiB no huge page can back it.
	 */
	size_t alloc_bytes;
};

/* What the cycles' fresh memory cost one thread (rt_probe_config.alloc_bytes). */
struct rt_probe_alloc_stats {
	uint64_t cycles;	/* cycles that mapped, touched and unmapped */
	uint64_t failed;	/* cycles whose mmap failed */
	uint64_t alloc_ns;	/* time in mmap, all cycles */
	uint64_t alloc_max_ns;
	uint64_t touch_ns;	/* time writing the pages, all cycles */
	uint64_t touch_max_ns;
	uint64_t alloc_faults;	/* minor faults inside mmap, all cycles */
	uint64_t touch_faults;	/* minor faults while writing the pages */
};

struct rt_probe_thread_stats {
	uint64_t loops;		/* wake-ups measured */
	uint64_t samples;	/* samples taken off the ring by rt_probe_poll() */
	uint64_t drops;		/* samples lost because the ring was full */
	uint64_t overruns;	/* times the plan fell more than one interval behind */
	uint64_t spikes;	/* latencies above spike_ns */
	uint64_t markers;	/* trace marker lines written */
	uint64_t marker_errors;	/* trace marker writes that failed */
	int64_t max_ns;		/* largest latency seen, dropped samples included */
	unsigned int interval_us;	/* this thread's interval */
	uint64_t timer_slack_ns;	/* PR_GET_TIMERSLACK in the thread before its loop */
	int tid;		/* kernel thread id, 0 before the thread ran */
	bool finished;		/* the thread left its loop (limit reached or stopped) */
	struct rt_probe_alloc_stats alloc;	/* all zero without alloc_bytes */
};

/* rt_probe_config_init - defaults: 1 thread, SCHED_OTHER, 1000 us, MONOTONIC, no limit */
void rt_probe_config_init(struct rt_probe_config *cfg);

/**
 * rt_probe_start - check @cfg, prepare everything and start the threads
 * @cfg: read only; cfg->cpus is copied
 * @probep: on success the running probe, which the caller releases with rt_probe_free()
 * @cause: on failure, what went wrong in words (caller frees)
 *
 * With cfg->mlock, locks all memory and prefaults before any thread runs.
 * Policy, priority and affinity are set through pthread attributes, so a
 * thread starts measuring already configured. SCHED_DEADLINE has no
 * pthread attribute: each thread calls sched_setattr() before its loop and
 * the call waits until every thread has, so a refusal still fails the start.
 *
 * Returns 0; -EINVAL for a bad config; -EPERM when the RT policy is not
 * permitted (the cause names what is missing: root or CAP_SYS_NICE, or
 * RLIMIT_RTPRIO), so the caller can fall back to SCHED_OTHER and say so;
 * -EBUSY when the kernel's admission control refused a SCHED_DEADLINE
 * reservation (the cause gives the bandwidth asked and the limit);
 * -EPERM or -ENOMEM when mlockall is refused (the cause names CAP_IPC_LOCK
 * and RLIMIT_MEMLOCK); other negative errnos from the system.
 * On failure nothing is left running and *probep is NULL.
 */
int rt_probe_start(const struct rt_probe_config *cfg, struct rt_probe **probep, char **cause);

/**
 * rt_probe_poll - drain the rings (the consumer side)
 * @p: the probe
 * @hists: NULL, or an array of nthreads histograms (entries may be NULL)
 *         that receive each thread's samples
 * @sink: NULL, or a sink whose sample callback sees every sample
 *
 * Takes at most one ring's worth per thread per call, so it returns even
 * when the producers are fast. Must be called from one thread at a time;
 * that thread may be an ordinary SCHED_OTHER thread. Returns the number of
 * samples taken (>= 0).
 */
int rt_probe_poll(struct rt_probe *p, struct rt_hist **hists, const struct rt_sink *sink);

/* rt_probe_finished - true when every thread has left its loop (duration or loops reached) */
bool rt_probe_finished(const struct rt_probe *p);

/**
 * rt_probe_stop - ask the threads to stop and wait for them
 *
 * Returns within about one interval. Samples still in the rings stay there
 * for a last rt_probe_poll(). Calling it again does nothing. Returns 0.
 */
int rt_probe_stop(struct rt_probe *p);

/**
 * rt_probe_stats - counters of thread @i
 * @out: the caller's storage
 *
 * Safe while the threads run (each counter is read atomically; together
 * they are a snapshot only after rt_probe_stop()). Returns 0 or -EINVAL.
 */
int rt_probe_stats(const struct rt_probe *p, unsigned int i, struct rt_probe_thread_stats *out);

/* rt_probe_nthreads - how many measuring threads @p has */
unsigned int rt_probe_nthreads(const struct rt_probe *p);

/**
 * rt_probe_free - stop @p if needed, undo its mlockall and release it
 * NULL does nothing.
 */
void rt_probe_free(struct rt_probe *p);

#endif
