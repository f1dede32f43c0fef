/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_ftrace_int: what the four files of the ftrace lab's run share, and
 * nothing else includes. lab_ftrace.c holds the lab's ops and the run
 * (probe, events, tracer, measuring loop); lab_ftrace_check.c the
 * cross-check with trace-cmd and rtla; lab_ftrace_hunt.c the planting of
 * the hunt's cause; lab_ftrace_record.c turns what was measured into the
 * results document, and lab_ftrace_views.c that document into what a
 * person reads. One struct ft_run is the state of one run; each file
 * reads and fills its own part of it.
 */
#ifndef RTLAB_LABS_LAB_FTRACE_INT_H
#define RTLAB_LABS_LAB_FTRACE_INT_H

#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "core/rt_time.h"
#include "lab_ftrace.h"

struct lab_ctx;
struct lab_result;
struct rt_buf;
struct ftrace_scenario;
struct rt_hist;
struct rt_journal;
struct rt_probe;
struct rt_result;
struct trace_ctl;
struct trace_events;
struct trace_hog;
struct trace_wake_calc;
struct trace_wake_stats;

#define HIST_US 10000u			/* both histograms: 1 us buckets up to 10 ms */

/* Nanoseconds as microseconds with two decimals. */
static inline double us(double ns)
{
	return round(ns / 10.0) / 100.0;
}

/* ---- The cross-check (lab_ftrace_check.c) ---------------------------------------------- */

struct xc_tc {
	bool tried;
	char *reason;			/* owned: why it gave nothing, or NULL */
	struct rt_child *child;		/* the recorder, while it runs */
	char inst[64];
	bool inst_made;
	char dir[64];			/* temp dir for its files */
	char dat[96], out[96], err[96];
};

/* Start `trace-cmd record` on the two events of @tid in its own instance (x->reason if not). */
void ftrace_xc_tc_start(struct xc_tc *x, struct rt_journal *j, pid_t tid);

/*
 * Tracer mode: trace-cmd is not started, and the document says why. While
 * it recorded (in its own instance), the lab kernel's latency tracer went on
 * raising tracing_max_latency but its trace read back empty, in most runs
 * under a busy serial console (issue 11, labs/ftrace/README.md).
 */
void ftrace_xc_tc_skip_tracer(struct xc_tc *x);

/*
 * Stop the recorder, read its report into a new matcher *@calcp (NULL when
 * there is none; the caller frees it) with its figures in @st, and remove
 * the instance and the files.
 */
void ftrace_xc_tc_finish(struct xc_tc *x, pid_t tid, struct trace_wake_stats *st,
			 struct trace_wake_calc **calcp);

struct ft_run;

/* extra.cross_check: trace-cmd's and rtla's figures, or why they did not run. */
int ftrace_record_xc(struct ft_run *r, json_t *extra);

/* ---- The hunt's injector (lab_ftrace_hunt.c) -------------------------------------------- */

struct inj_thread {
	pthread_t th;
	bool started;
	volatile int stop;
	int cpu;
	char path[128];
	unsigned int burst_us, period_us;
	struct trace_ctl *ctl;		/* borrowed: tracer mode's tracer, else NULL */
	unsigned int final_thresh_us;	/* tracing_thresh for the last section; 0 = as set */
	uint64_t done, refused;
	int last_err;
};

/* ---- One run (lab_ftrace.c) ------------------------------------------------------------- */

struct ft_run {
	const struct ftrace_params *p;
	struct rt_result *res;			/* owned until handed over */
	struct rt_probe *probe;
	struct rt_hist *phist;			/* probe samples */
	struct trace_events *ev;
	struct trace_ctl *ctl;
	struct trace_hog *hog;
	struct inj_thread inj;
	struct xc_tc tc;
	struct ftrace_hunt_truth truth;
	enum ftrace_injector injector;
	uint64_t seed;
	char tracer[FTRACE_TRACER_MAX];
	int cpu;
	int policy, prio;
	char *rt_refused;			/* owned */
	pid_t tid;
	struct rt_child *busy;			/* owned: the busy companion, or NULL */
	bool interrupted;
	double measured_s;
	json_t *extra_hunt;			/* owned */
};

/* Plant the seed's cause on the probe's CPU: the module's thread, else a trace_hog. */
int ftrace_hunt_start(struct ft_run *r, char **cause);

/* Stop planting; with --hunt, r->extra_hunt gets the truth and the counts. */
void ftrace_hunt_stop(struct ft_run *r);

/* ---- The document (lab_ftrace_record.c) --------------------------------------------------- */

struct dist {
	uint64_t count;
	double min_us, avg_us, max_us;
	double p50_us, p90_us, p99_us;
	double p99_resolution_us;	/* width of the bucket p99 came from */
};

/* The figures of @h, in microseconds. */
void ftrace_dist_of(const struct rt_hist *h, struct dist *d);

/* extra.probe, extra.events, extra.agreement, the summary and both histograms. */
int ftrace_record(struct lab_ctx *ctx, struct ft_run *r, json_t *extra);

/* extra.tracer: the tracer's settings, its parsed trace and the raw text (tracer mode). */
int ftrace_record_tracer(struct ft_run *r, json_t *extra);

/* The named scenario this run is (lab_ftrace_doc.h). */
const struct ftrace_scenario *ftrace_run_scenario(const struct ft_run *r);

/*
 * extra.scenarios: the run's one scenario, {"name", "summary"} and every
 * figure of the document's summary, as the latency lab records each of its
 * scenarios. Called last, when the summary is complete.
 */
int ftrace_record_scenario(struct ft_run *r, json_t *extra);

/* ---- What a person reads (lab_ftrace_views.c) -------------------------------------------- */

/* The lab's views(): the run's tables, from its document only. */
int ftrace_views(const struct rt_result *res, json_t *views, char **cause);

#endif
