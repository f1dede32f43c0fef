/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_latency_int: what lab_latency.c (the probe scenarios, the live model,
 * the views) shares with lab_latency_tput.c (the throughput scenario), and
 * nothing else includes.
 */
#ifndef RTLAB_LABS_LAB_LATENCY_INT_H
#define RTLAB_LABS_LAB_LATENCY_INT_H

#include <jansson.h>
#include <stdbool.h>

#include "labs/lab_latency_work.h"
#include "lab_latency.h"

struct rt_sink;

/* A column of a view: its name, title and unit ("" for none). */
struct latency_col {
	const char *name, *title, *unit;
};

/* A view object with these columns and no rows, or NULL without memory. */
json_t *latency_view_new(const char *name, const char *title, const struct latency_col *c,
			 size_t n);

/* True when a screen asked to end scenario @index early (latency_live_skip()). */
bool latency_skip_requested(struct lab_ctx *ctx, unsigned int index);

/*
 * The live model while a scenario without a probe runs: its name, place,
 * progress and a line saying what it does (@activity); no threads, no
 * histogram.
 */
void latency_live_activity(struct lab_ctx *ctx, const char *name, unsigned int index,
			   unsigned int nscen, unsigned int pct, bool running,
			   const char *activity);

/* One throughput scenario as measured: every run of every workload. */
struct latency_tput {
	const struct latency_plan *plan;	/* borrowed */
	unsigned int repeats;
	unsigned int run_ms;			/* each run's length */
	int cpu;				/* where every run ran; -1 unpinned */
	unsigned int runs[LATENCY_WORK_NKINDS];	/* completed runs per workload */
	double ops_s[LATENCY_WORK_NKINDS][LATENCY_MAX_REPEATS];
	double measured_s;
	bool interrupted;
	bool skipped;
};

/**
 * latency_tput_run - measure a throughput scenario
 * @index: the scenario's place in the run, for the live model and skip
 * @t: filled (the caller's storage)
 *
 * Runs every workload --repeats times, interleaved (msg, pipe, fork, cpu,
 * msg, ...), each for duration / (repeats * workloads), all on one CPU:
 * the first of --cpus, else the last this process may use. A stop ends it
 * (t->interrupted), a skip request after the current run (t->skipped); a
 * run cut short is not kept. Returns 0 or a negative errno with @cause.
 */
int latency_tput_run(struct lab_ctx *ctx, const struct latency_params *p,
		     const struct latency_plan *plan, unsigned int index,
		     const struct rt_sink *sink, struct latency_tput *t, char **cause);

/* latency_tput_record - @t as an object appended to @scens (extra.scenarios). 0 or -ENOMEM. */
int latency_tput_record(json_t *scens, const struct latency_params *p,
			const struct latency_tput *t);

/* True when extra.scenarios entry @s is a throughput scenario. */
bool latency_tput_is(json_t *s);

/**
 * latency_tput_view - the view "throughput" of @scens' throughput scenarios
 * @views: appended to; nothing when there is none
 *
 * Returns 0 or -ENOMEM.
 */
int latency_tput_view(json_t *scens, json_t *views);

#endif
