/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_ftrace_doc: the ftrace lab's results document read through types,
 * so that nothing outside the lab walks its "extra" object by string: the
 * lab's screen reads struct ftrace_doc, the trace viewer and `rtlab trace
 * explain` get the tracer's trace with ftrace_doc_trace(), and the text
 * report and the views (lab_ftrace_views.c) are built from the same reads.
 *
 * It also names the lab's scenarios: every run is one scenario, named by
 * its mode, its tracer and whether a cause was planted ("events",
 * "events-hunt", "tracer-irqsoff", "tracer-wakeup-rt-hunt", ...). The run
 * records it in extra.scenarios[0] with the summary's figures, in the shape
 * the latency lab uses, so that a lesson's predict question can name an
 * ftrace scenario and a summary metric (lessons/FORMAT.md, doc/ftrace.md).
 *
 * Every read takes a document that passed rt_result's validator and never
 * fails on a missing or mistyped field: what is absent reads as 0, false or
 * "" and the struct's `present` flags say which parts were there. So an
 * older document (no "views", no extra.scenarios) reads as well as a new
 * one. Strings are borrowed from the document: they live until it changes
 * or is freed.
 */
#ifndef RTLAB_LABS_LAB_FTRACE_DOC_H
#define RTLAB_LABS_LAB_FTRACE_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "labs/lab_ftrace.h"

struct rt_result;
struct trace_explain;
struct trace_explain_src;

/* ---- Scenarios ------------------------------------------------------------------ */

/* One named scenario: a mode, a latency tracer (tracer mode) and the hunt. */
struct ftrace_scenario {
	const char *name;		/* static slug, e.g. "tracer-wakeup-rt" */
	enum ftrace_mode mode;
	const char *tracer;		/* static; NULL in event mode */
	bool hunt;
	const char *summary;		/* static; one line for people */
};

/* All scenarios, in teaching order: events, events-hunt, then per tracer. */
extern const struct ftrace_scenario ftrace_scenarios[];
extern const size_t ftrace_nscenarios;

/* The scenario called @name, or NULL. */
const struct ftrace_scenario *ftrace_scenario_find(const char *name);

/**
 * ftrace_scenario_of - the scenario a run with these settings is
 * @mode: the run's mode
 * @tracer: the latency tracer tracer mode runs (ignored in event mode)
 * @hunt: a cause is planted
 *
 * Returns the scenario, or NULL for a tracer that is not a latency tracer.
 */
const struct ftrace_scenario *ftrace_scenario_of(enum ftrace_mode mode, const char *tracer,
						 bool hunt);

/* ---- Reading a document ------------------------------------------------------------- */

/* One distribution of wake-up latencies (extra.probe, extra.events). */
struct ftrace_doc_dist {
	bool present;
	uint64_t count;			/* probe: wake-ups; events: matched wake-ups */
	double min_us, avg_us, max_us;
	double p50_us, p90_us, p99_us;
	double p99_resolution_us;
};

struct ftrace_doc_probe {
	struct ftrace_doc_dist d;
	const char *policy;		/* "fifo" or "other" */
	int priority, cpu, tid;
	const char *rt_refused;		/* why SCHED_FIFO was refused, or "" */
	uint64_t dropped, overruns;
};

struct ftrace_doc_events {
	struct ftrace_doc_dist d;	/* d.count is matched_count */
	uint64_t unmatched_wakings, pending_wakings, unmatched_switches, migrated, lost;
	uint64_t woken_running, missed_switch_ins;	/* 0 in documents before they existed */
	const char *instance;
};

/* One figure seen both ways (extra.agreement.p50 ...). */
struct ftrace_doc_pair {
	double probe_us, events_us, diff_us;
};

struct ftrace_doc_agreement {
	bool present;
	const char *verdict;		/* "agree: ..." or "disagree: ..." */
	double count_ratio;
	bool median_at_or_below;
	struct ftrace_doc_pair p50, p90, p99, max;
};

struct ftrace_doc_tracer {
	bool present;			/* tracer mode */
	const char *name;
	bool top_level;			/* at the top level, not in an instance */
	bool function_trace;
	unsigned int threshold_us;
	bool parsed;			/* its trace was parsed */
	bool have_latency;
	uint64_t latency_us;		/* from the trace's header */
	bool have_max_latency;
	uint64_t max_latency_us;	/* tracing_max_latency */
	const char *started_at, *ended_at;
	uint64_t entries_count;		/* entries the trace held */
	size_t nlines;			/* of them kept in the document (ftrace_doc_trace_line()) */
	bool have_text;			/* extra.tracer.trace_text is there */
	bool text_truncated;
};

/* One entry of the tracer's parsed trace (extra.tracer.lines[i]). */
struct ftrace_doc_line {
	unsigned int line;		/* in the trace text */
	const char *comm;
	int pid, cpu;
	const char *flags;		/* the raw flag columns */
	bool irqs_off, need_resched;
	const char *context;		/* "normal", "hardirq", ... */
	int preempt_depth;
	double time_us;
	const char *mark;		/* the delay mark, "" for none */
	const char *function, *caller, *text;
};

/* What a hunt planted, without the truth (the learner is hunting for it). */
struct ftrace_doc_hunt {
	bool present;
	const char *seed;		/* decimal, as the document holds it */
	const char *injector;		/* "module" or "user" */
	uint64_t planted, refused;
	unsigned int burst_us, period_us;
};

/* One reference tool of the cross-check. */
struct ftrace_doc_tool {
	bool present;
	bool ran;
	const char *reason;		/* why it did not run, or "" */
	uint64_t count;			/* trace-cmd: matched wake-ups; rtla: thread samples */
	double p50_us;			/* trace-cmd */
	double avg_us;			/* rtla: the thread's average */
	double max_us;
	double count_ratio;		/* trace-cmd: its matched count over ours */
	unsigned int duration_s;	/* rtla */
};

struct ftrace_doc_check {
	bool present;
	bool skipped;			/* --no-cross-check */
	struct ftrace_doc_tool trace_cmd, rtla;
};

/* The whole outcome of one run. */
struct ftrace_doc {
	enum ftrace_mode mode;
	const char *scenario;		/* the scenario's name (also for older documents) */
	bool interrupted;
	double measured_s;
	struct ftrace_doc_probe probe;
	struct ftrace_doc_events events;
	struct ftrace_doc_agreement agreement;
	struct ftrace_doc_tracer tracer;
	struct ftrace_doc_hunt hunt;
	struct ftrace_doc_check check;
};

/**
 * ftrace_doc_read - read a results document of the ftrace lab
 * @res: a validated document (rt_result_parse() or a run's)
 * @out: filled; its strings are borrowed from @res
 *
 * The scenario is extra.scenarios[0].name when the document has one, else
 * the one its params and extra describe. Returns 0, or -EINVAL when @res is
 * NULL or another lab's (@out then reads as empty: zeros, and "" strings).
 */
int ftrace_doc_read(const struct rt_result *res, struct ftrace_doc *out);

/**
 * ftrace_doc_trace_line - entry @i of the tracer's parsed trace
 *
 * Returns 0, or -ENOENT when there is no such entry (event mode, or @i
 * past the lines the document kept).
 */
int ftrace_doc_trace_line(const struct rt_result *res, size_t i, struct ftrace_doc_line *out);

/**
 * ftrace_doc_scenario_num - a figure of the run's scenario (extra.scenarios)
 * @scenario: the scenario's name, e.g. "events"
 * @metric: a summary key, e.g. "events_p99_us"
 * @out: the figure
 *
 * What a prediction is compared with. Returns 0, or -ENOENT when the
 * document does not hold that scenario or that figure.
 */
int ftrace_doc_scenario_num(const struct rt_result *res, const char *scenario, const char *metric,
			    double *out);

/* ---- The tracer's trace, for the viewer and `rtlab trace explain` ---------------------- */

/**
 * ftrace_doc_trace - where the tracer's trace of a run is
 * @res: a validated results document of any lab
 * @name: what messages call the input (a file name)
 * @src: on success, the trace: text borrowed from @res, name @name,
 *       from_results and truncated set
 * @cause: on failure, why there is no trace and how to record one
 *
 * Returns 0, or -EINVAL: another lab's document, an event-mode run, a run
 * whose trace could not be read.
 */
int ftrace_doc_trace(const struct rt_result *res, const char *name,
		     struct trace_explain_src *src, char **cause);

#endif
