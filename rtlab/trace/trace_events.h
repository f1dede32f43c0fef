/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_events: wake-up latency from scheduler events, for kernels without
 * the wakeup tracers (the host these machines run offers only function,
 * blk and nop).
 *
 * In a private instance "rtlab-<lab>-<pid>" it enables sched/sched_waking
 * and sched/sched_switch, filtered in the kernel to the threads of interest
 * (wakings of them, switches to and from them; optionally irq/softirq
 * events, unfiltered, for context), on the CLOCK_MONOTONIC trace clock. The
 * raw events are read through libtracefs and fed, in time order, to a
 * matcher:
 *
 *   a sched_waking of P at t1, then the first sched_switch with
 *   next_pid == P at t2: wake-up latency t2 - t1.
 *
 * What else can happen to a waking, each counted on its own:
 *  - P is woken while it is still on its CPU (it had set itself to sleep
 *    but not yet switched out; the waker is P itself, an interrupt on its
 *    CPU, or P was last seen switched in): P never waits, nothing to match
 *    (woken while running);
 *  - P is next seen switching *out* with the waking still pending: it ran,
 *    but its switch-in was not recorded (missed switch-in). The waking is
 *    dropped, so it can never pair with a later, unrelated switch-in. On
 *    the host these labs were written on this happens when the task P
 *    replaces is one of the machine's own agent threads, whose task-context
 *    events that kernel does not record (doc/ftrace.md);
 *  - a second waking with no switch of P in between replaces the first
 *    (unmatched waking: events were lost or filtered);
 *  - a switch to P with no waking pending (P had been preempted, not
 *    asleep) is an unmatched switch.
 * The matcher is a pure function of the events, so it is tested and reused
 * without tracefs (trace_wake_calc_*), on captured `trace` files too
 * (trace_wake_calc_feed_text, tests/data/traces/events/).
 *
 * This measures from the moment the kernel decided to wake P to the moment
 * P got a CPU. It does not include the interrupt latency before the waking
 * (the timer firing late), nor the return to user space after the switch;
 * doc/ftrace.md compares it with the wakeup tracers.
 */
#ifndef RTLAB_TRACE_TRACE_EVENTS_H
#define RTLAB_TRACE_TRACE_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct rt_hist;
struct rt_journal;

/* ---- The matcher ---- */

struct trace_wake_calc;

/* One matched wake-up. */
struct trace_wakeup {
	pid_t pid;
	int waking_cpu;		/* the CPU the waking named as target */
	int run_cpu;		/* the CPU that switched to it */
	uint64_t t_waking_ns;	/* trace clock */
	uint64_t t_switch_ns;
	int64_t latency_ns;
};

struct trace_wake_stats {
	uint64_t matched;
	uint64_t unmatched_wakings;	/* replaced by a later waking, no switch between */
	uint64_t woken_running;		/* the thread was still on its CPU: nothing to wait for */
	uint64_t missed_switch_ins;	/* it switched out next: its switch-in was not recorded */
	uint64_t pending_wakings;	/* wakings still waiting for their switch */
	uint64_t unmatched_switches;	/* switch-ins of a watched pid without a waking */
	uint64_t migrated;		/* matched, but run on another CPU than the target */
	uint64_t out_of_order;		/* a switch earlier than its waking: dropped */
	uint64_t lost_events;		/* the ring buffer overflowed (at least this many) */
	int64_t min_ns;			/* 0 when nothing matched */
	int64_t max_ns;
	double avg_ns;
	struct trace_wakeup max;	/* the worst wake-up, with its timestamps */
};

/* Most records kept in the list; the histogram and stats count all. */
#define TRACE_WAKE_MAX_RECORDS (1u << 20)

/**
 * trace_wake_calc_new - a matcher for @npids threads
 * @pids: thread ids to watch (copied); @npids 0 means every pid
 * @hist_us: histogram bound in microseconds (1 us buckets, 1..RT_HIST_MAX_BUCKETS)
 *
 * Returns the matcher or NULL with errno set. Free with trace_wake_calc_free().
 */
struct trace_wake_calc *trace_wake_calc_new(const pid_t *pids, size_t npids, unsigned int hist_us);
void trace_wake_calc_free(struct trace_wake_calc *c);

/*
 * Feed events in time order. Timestamps are nanoseconds of one clock.
 * @waker: the task that was current where the waking was recorded (the
 * event's common_pid), -1 when unknown. @prev_blocked: the task leaving
 * was asleep (prev_state other than R or R+).
 */
void trace_wake_calc_waking(struct trace_wake_calc *c, uint64_t ts, pid_t waker, pid_t pid,
			    int target_cpu);
void trace_wake_calc_switch(struct trace_wake_calc *c, uint64_t ts, int cpu, pid_t prev_pid,
			    bool prev_blocked, pid_t next_pid);

/*
 * The ring buffer lost @n events here: what the matcher knew about every
 * thread may be stale, so each pending waking is dropped (as unmatched)
 * and every thread's place (on or off a CPU) is forgotten.
 */
void trace_wake_calc_lost(struct trace_wake_calc *c, uint64_t n);

/**
 * trace_wake_calc_feed_text - feed a text trace to the matcher
 * @c: the matcher (it decides which pids count)
 * @text: the text, NUL-terminated: a tracefs `trace` file or `trace-cmd
 *        report` output ("comm-pid [cpu] [flags] secs: name: fields")
 *
 * Reads the sched_waking and sched_switch lines, and "CPU:N [LOST M
 * EVENTS]" (`trace`) or "[M EVENTS DROPPED]" (trace-cmd) as losses; other
 * lines are skipped. Lines must already be in time order (both tools merge
 * the CPUs). Returns the number of events fed.
 */
size_t trace_wake_calc_feed_text(struct trace_wake_calc *c, const char *text);

/* Stats so far (the caller's storage). */
void trace_wake_calc_stats(const struct trace_wake_calc *c, struct trace_wake_stats *out);

/* The matched wake-ups in order; pointer valid until the next feed or free. */
const struct trace_wakeup *trace_wake_calc_records(const struct trace_wake_calc *c, size_t *n);

/* The latency histogram (borrowed; sample thread = index of the pid in @pids). */
const struct rt_hist *trace_wake_calc_hist(const struct trace_wake_calc *c);

/* ---- The tracefs side ---- */

struct trace_events;

#define TRACE_EVENTS_IRQ	0x1u	/* also irq_handler_entry/exit, softirq_entry/exit */

struct trace_events_opts {
	const pid_t *pids;	/* threads to watch (copied); NULL/0: all (noisy) */
	size_t npids;		/* at most TRACE_EVENTS_MAX_PIDS */
	unsigned int flags;	/* TRACE_EVENTS_* */
	unsigned int buffer_kb;	/* per-CPU ring buffer; 0 means 2048 */
	unsigned int hist_us;	/* histogram bound; 0 means 10000 (10 ms) */
};

#define TRACE_EVENTS_MAX_PIDS 64

/**
 * trace_events_new - a private instance set up for wake-up latency
 * @j: the undo journal (borrowed; the instance is created through it)
 * @lab: instance name part, "rtlab-<lab>-<pid>"; NULL gives "rtlab-<pid>"
 * @opts: what to watch
 * @cause: on failure, why
 *
 * Sweeps stale rtlab instances, creates the instance, enables and filters
 * the events, with tracing off. Returns the object or NULL with errno set
 * (ENOENT: the kernel lacks sched_waking or sched_switch). Undo and free
 * with trace_events_destroy().
 */
struct trace_events *trace_events_new(struct rt_journal *j, const char *lab,
				      const struct trace_events_opts *opts, char **cause);

int trace_events_start(struct trace_events *ev, char **cause);
int trace_events_stop(struct trace_events *ev, char **cause);

/**
 * trace_events_poll - read what the ring buffer holds and match it
 *
 * Consumes the buffered events. Call it while tracing (every 100 ms or so
 * keeps a 2 MB buffer from overflowing at tens of thousands of events per
 * second) and once more after trace_events_stop(). Events are put in time
 * order within one poll; a pair split across two polls still matches.
 * Returns the number of events read, or a negative errno.
 */
int trace_events_poll(struct trace_events *ev, char **cause);

/* The matcher with everything polled so far (borrowed). */
const struct trace_wake_calc *trace_events_calc(const struct trace_events *ev);

/* The instance name (valid until destroy). */
const char *trace_events_instance_name(const struct trace_events *ev);

/* Counts of the irq/softirq events seen (TRACE_EVENTS_IRQ). */
uint64_t trace_events_irq_count(const struct trace_events *ev);

/**
 * trace_events_destroy - disable the events, remove the instance, free @ev
 * NULL does nothing. Returns 0 or a negative errno (the journal retries).
 */
int trace_events_destroy(struct trace_events *ev);

#endif
