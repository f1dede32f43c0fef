/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ftrace_exercise.h: what you write for the ftrace lab's exercise, the two
 * readings of a trace that lesson 06 teaches by hand.
 *
 * latency_trace.c, lt_parse(): the `trace` file a latency tracer (irqsoff,
 * preemptoff, preemptirqsoff, wakeup, wakeup_rt, wakeup_dl) left, turned
 * into its worst section: the tracer, the latency, where the section
 * started and ended, and where the time went (the widest gap between two
 * entries, and the function the CPU was in during it).
 *
 * wake_match.c, wm_match(): event mode. Scheduler events of one task, in
 * time order, turned into its wake-ups: each from the moment the kernel
 * decided to wake it (sched_waking, or sched_wakeup where a trace has no
 * sched_waking) to the moment it got a CPU (sched_switch to it).
 *
 * This header is the checks' copy: the grader uses it, not yours, so do not
 * change it (add helpers as static functions in your .c files).
 */
#ifndef FTRACE_EXERCISE_H
#define FTRACE_EXERCISE_H

#include <stddef.h>

/* ---- The worst section of a latency trace (latency_trace.c) ---- */

#define LT_NAME_MAX 64	/* longer names are cut to LT_NAME_MAX - 1 characters */

struct lt_worst {
	char tracer[LT_NAME_MAX];	/* from "# tracer: irqsoff"; "" without one */
	long latency_us;		/* from "# latency: 530 us, #4/4, CPU#0 | ..." */
	char started_at[LT_NAME_MAX];	/* from "#  => started at: f"; "" without one */
	char ended_at[LT_NAME_MAX];	/* from "#  => ended at:   f"; "" without one */
	unsigned int entries;		/* how many entry lines the trace has */
	unsigned int gap_line;		/* the line (1 = the first line of the text) of
					 * the entry before the widest gap; 0 with fewer
					 * than two entries */
	long gap_us;			/* that gap: the next entry's time stamp minus
					 * this one's; 0 when gap_line is 0 */
	char cause[LT_NAME_MAX];	/* the function the time went in (below); "" */
};

/**
 * lt_parse - the worst section of a latency tracer's trace
 * @text: the trace as the kernel wrote it; not NUL-terminated, and it may
 *        end in the middle of a line (a truncated copy)
 * @len: its length in bytes
 * @out: filled in (the caller's storage)
 *
 * Header lines start with '#'. An entry line is any other line with a time
 * stamp: a number directly followed by "us", one delay-mark character and
 * a colon, as in "      sh-94        0d....    1us!: rtlab_inject_busy
 * <-rtlab_inject_irqsoff_section". What follows the colon (and a space)
 * is the entry's text. Lines of a stack trace (" => function") and the
 * legend are not entries; a line cut off before its colon is not either.
 *
 * The widest gap is the largest difference between the time stamps of two
 * consecutive entries (the first of equal ones). The cause:
 *   - when the entry before the gap is not a function call (its text does
 *     not start with a letter or '_': a scheduler line, "<stack trace>",
 *     a number), there is none: "";
 *   - when the entries on both sides of the gap are calls from the same
 *     caller ("f <-c" and "g <-c"), the time went in that caller, c (with
 *     function tracing on, a busy loop shows as many short calls);
 *   - otherwise it is the function of the entry before the gap (the name
 *     before " <-").
 *
 * Returns 0, or -ENOENT when the text holds no latency section (no
 * "# latency:" line), or -EINVAL when @text or @out is NULL.
 */
int lt_parse(const char *text, size_t len, struct lt_worst *out);

/* ---- Wake-ups from scheduler events (wake_match.c) ---- */

enum wm_kind {
	WM_WAKING,	/* sched_waking: the kernel decided to wake .pid */
	WM_WAKEUP,	/* sched_wakeup: .pid was put on a run queue */
	WM_SWITCH,	/* sched_switch: .prev_pid left the CPU, .pid got it */
};

struct wm_event {
	enum wm_kind kind;
	unsigned long long ts_ns;	/* time stamp, nanoseconds */
	int cpu;			/* the CPU that recorded the event */
	int pid;			/* WAKING/WAKEUP: the woken task; SWITCH: next_pid */
	int prev_pid;			/* SWITCH: prev_pid; 0 otherwise */
};

/* One wake-up of the task. */
struct wm_wakeup {
	unsigned long long wake_ns;	/* the sched_waking (or sched_wakeup) */
	unsigned long long run_ns;	/* the sched_switch to the task */
	long long latency_ns;		/* run_ns - wake_ns */
};

struct wm_counts {
	size_t matched;			/* wake-ups found (all, even beyond @max) */
	size_t unmatched_switches;	/* switches to the task that ended no wake-up */
	size_t pending;			/* 1 when the trace ends inside a wake-up, else 0 */
};

/**
 * wm_match - the wake-ups of task @pid
 * @ev, @n: the events, in time order (of every task: the trace's)
 * @pid: the task to follow (> 0)
 * @out: room for @max wake-ups, written in order
 * @max: how many fit in @out
 * @counts: filled in
 *
 * A wake-up of @pid starts at its first sched_waking, or sched_wakeup
 * when no wake-up has started, and ends at the next sched_switch whose
 * next task is @pid: latency = switch time - waking time. Three things
 * are not wake-ups:
 *   - a switch to @pid with no wake-up started: the task had been
 *     preempted, was never asleep, and merely got the CPU back (count it
 *     in unmatched_switches);
 *   - a second waking (or the sched_wakeup that follows a sched_waking)
 *     while a wake-up has started: the same wake-up, which started at the
 *     first;
 *   - a waking that finds @pid still on the CPU: a switch away from @pid
 *     (prev_pid == @pid) ends any wake-up started before it, unmatched.
 *
 * Returns 0, or -EINVAL when @counts is NULL, @pid <= 0, or @ev (with @n > 0)
 * or @out (with @max > 0) is NULL.
 */
int wm_match(const struct wm_event *ev, size_t n, int pid, struct wm_wakeup *out, size_t max,
	     struct wm_counts *counts);

#endif
