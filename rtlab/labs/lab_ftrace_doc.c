/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_ftrace_doc: the one place that reads the ftrace lab's results
 * document by its keys (besides the grade, which checks the hunt's truth),
 * and the table of the lab's named scenarios.
 *
 * The reads follow what lab_ftrace_record.c, lab_ftrace_check.c and
 * lab_ftrace_hunt.c write (doc/ftrace.md lists the fields). They are
 * lenient on purpose: a document is validated before it gets here, and
 * inside "extra" the validator checks no shape, so a field that is missing
 * or of another type reads as zero, false or "" rather than failing the
 * screen or the report that asked (and a number beyond the validator's
 * range for reals, 1e15, reads as zero too, so whatever is built from a
 * read stays inside the schema).
 */
#include "lab_ftrace_doc.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "core/rt_err.h"
#include "core/rt_json.h"
#include "core/rt_result.h"
#include "trace/trace_explain.h"

#define TRACER_MODE_HINT \
	"to record one, run 'rtlab lab run ftrace --mode tracer --json FILE' on a kernel " \
	"with latency tracers, e.g. in the classroom VM ('rtlab vm run --kernel lab')"

/* ---- Scenarios ------------------------------------------------------------------ */

#define TRACER_SCENARIOS(slug, tracer, what)						\
	{ "tracer-" slug, FTRACE_MODE_TRACER, tracer, false,				\
	  "tracer mode with " tracer ": the wake-ups seen both ways and " what },	\
	{ "tracer-" slug "-hunt", FTRACE_MODE_TRACER, tracer, true,			\
	  "tracer mode with " tracer " and a hidden cause planted on the probe's CPU: " what }

const struct ftrace_scenario ftrace_scenarios[] = {
	{ "events", FTRACE_MODE_EVENTS, NULL, false,
	  "event mode: one thread's wake-ups seen by the probe and by sched_waking -> "
	  "sched_switch, on any kernel" },
	{ "events-hunt", FTRACE_MODE_EVENTS, NULL, true,
	  "event mode with a hidden cause planted on the probe's CPU" },
	TRACER_SCENARIOS("irqsoff", "irqsoff", "the longest section with interrupts off"),
	TRACER_SCENARIOS("preemptoff", "preemptoff", "the longest section with preemption off"),
	TRACER_SCENARIOS("preemptirqsoff", "preemptirqsoff",
			 "the longest section with interrupts or preemption off"),
	TRACER_SCENARIOS("wakeup", "wakeup", "the longest wake-up of the highest-priority task"),
	TRACER_SCENARIOS("wakeup-rt", "wakeup_rt", "the longest wake-up of a real-time task"),
	TRACER_SCENARIOS("wakeup-dl", "wakeup_dl",
			 "the longest wake-up of a SCHED_DEADLINE task"),
};

const size_t ftrace_nscenarios = sizeof(ftrace_scenarios) / sizeof(ftrace_scenarios[0]);

const struct ftrace_scenario *ftrace_scenario_find(const char *name)
{
	for (size_t i = 0; name && i < ftrace_nscenarios; i++)
		if (!strcmp(ftrace_scenarios[i].name, name))
			return &ftrace_scenarios[i];
	return NULL;
}

const struct ftrace_scenario *ftrace_scenario_of(enum ftrace_mode mode, const char *tracer,
						 bool hunt)
{
	for (size_t i = 0; i < ftrace_nscenarios; i++) {
		const struct ftrace_scenario *s = &ftrace_scenarios[i];

		if (s->mode != mode || s->hunt != hunt)
			continue;
		if (mode == FTRACE_MODE_EVENTS || (tracer && !strcmp(s->tracer, tracer)))
			return s;
	}
	return NULL;
}

/* ---- Reading ---------------------------------------------------------------------- */

static json_t *jget(json_t *o, const char *k)
{
	return json_object_get(o, k);
}

/* A count: negative, absent or out of range reads as 0. */
static uint64_t jcount(json_t *o, const char *k)
{
	double v = rt_json_num_within(o, k, RT_RESULT_MAX_MAGNITUDE);

	return v > 0 ? (uint64_t)v : 0;
}

/* A count that fits an unsigned int (a threshold, a duration), clamped. */
static unsigned int juint(json_t *o, const char *k)
{
	uint64_t v = jcount(o, k);

	return v > UINT_MAX ? UINT_MAX : (unsigned int)v;
}

/* A small integer (CPU, priority, pid), clamped to int. */
static int jint(json_t *o, const char *k)
{
	double v = rt_json_num_within(o, k, RT_RESULT_MAX_MAGNITUDE);

	return v < INT_MIN ? INT_MIN : v > INT_MAX ? INT_MAX : (int)v;
}

static bool jtrue(json_t *o, const char *k)
{
	return json_is_true(json_object_get(o, k));
}

static json_t *extra_of(const struct rt_result *res)
{
	return jget(rt_result_json(res), "extra");
}

static bool is_ftrace(const struct rt_result *res)
{
	const char *lab = res ? rt_result_lab(res) : NULL;

	return lab && !strcmp(lab, "ftrace");
}

static void read_dist(json_t *o, const char *count_key, struct ftrace_doc_dist *d)
{
	d->present = json_is_object(o);
	d->count = jcount(o, count_key);
	d->min_us = rt_json_num_within(o, "min_us", RT_RESULT_MAX_MAGNITUDE);
	d->avg_us = rt_json_num_within(o, "avg_us", RT_RESULT_MAX_MAGNITUDE);
	d->max_us = rt_json_num_within(o, "max_us", RT_RESULT_MAX_MAGNITUDE);
	d->p50_us = rt_json_num_within(o, "p50_us", RT_RESULT_MAX_MAGNITUDE);
	d->p90_us = rt_json_num_within(o, "p90_us", RT_RESULT_MAX_MAGNITUDE);
	d->p99_us = rt_json_num_within(o, "p99_us", RT_RESULT_MAX_MAGNITUDE);
	d->p99_resolution_us = rt_json_num_within(o, "p99_resolution_us", RT_RESULT_MAX_MAGNITUDE);
}

static void read_pair(json_t *o, struct ftrace_doc_pair *p)
{
	p->probe_us = rt_json_num_within(o, "probe_us", RT_RESULT_MAX_MAGNITUDE);
	p->events_us = rt_json_num_within(o, "events_us", RT_RESULT_MAX_MAGNITUDE);
	p->diff_us = rt_json_num_within(o, "diff_us", RT_RESULT_MAX_MAGNITUDE);
}

static void read_tracer(json_t *o, struct ftrace_doc_tracer *t)
{
	t->present = json_is_object(o);
	t->name = rt_json_text(o, "name");
	t->top_level = jtrue(o, "top_level");
	t->function_trace = jtrue(o, "function_trace");
	t->threshold_us = juint(o, "threshold_us");
	t->parsed = jtrue(o, "parsed");
	t->have_latency = json_is_number(jget(o, "latency_us"));
	t->latency_us = jcount(o, "latency_us");
	t->have_max_latency = json_is_number(jget(o, "max_latency_us"));
	t->max_latency_us = jcount(o, "max_latency_us");
	t->started_at = rt_json_text(o, "started_at");
	t->ended_at = rt_json_text(o, "ended_at");
	t->entries_count = jcount(o, "entries_count");
	t->nlines = json_array_size(jget(o, "lines"));
	t->have_text = json_is_string(jget(o, "trace_text"));
	t->text_truncated = jtrue(o, "trace_text_truncated");
}

static void read_tool(json_t *o, struct ftrace_doc_tool *t)
{
	t->present = json_is_object(o);
	t->ran = jtrue(o, "ran");
	t->reason = rt_json_text(o, "reason");
	if (json_is_number(jget(o, "thread_count"))) {	/* rtla */
		t->count = jcount(o, "thread_count");
		t->avg_us = rt_json_num_within(o, "thread_avg_us", RT_RESULT_MAX_MAGNITUDE);
		t->max_us = rt_json_num_within(o, "thread_max_us", RT_RESULT_MAX_MAGNITUDE);
		t->duration_s = juint(o, "duration_s");
	} else {					/* trace-cmd */
		t->count = jcount(o, "matched_count");
		t->p50_us = rt_json_num_within(o, "p50_us", RT_RESULT_MAX_MAGNITUDE);
		t->max_us = rt_json_num_within(o, "max_us", RT_RESULT_MAX_MAGNITUDE);
		t->count_ratio = rt_json_num_within(o, "count_ratio_to_rtlab", RT_RESULT_MAX_MAGNITUDE);
	}
}

/* The scenario the document's settings describe, for documents older than extra.scenarios. */
static const char *scenario_from_params(const struct rt_result *res, enum ftrace_mode mode)
{
	const struct ftrace_scenario *s;
	const char *tracer = NULL;
	bool hunt = false;

	rt_result_param_str(res, "tracer", &tracer);
	rt_result_param_bool(res, "hunt", &hunt);
	s = ftrace_scenario_of(mode, tracer, hunt);
	return s ? s->name : "";
}

int ftrace_doc_read(const struct rt_result *res, struct ftrace_doc *out)
{
	bool ours = is_ftrace(res);
	json_t *extra, *o, *sc;
	const char *mode;

	/* Another lab's document (or none) reads as empty, strings "" too, for a caller that draws it. */
	memset(out, 0, sizeof(*out));
	extra = ours ? extra_of(res) : NULL;
	mode = rt_json_text(extra, "mode");
	if (!*mode && ours)
		rt_result_param_str(res, "mode", &mode);
	out->mode = mode && !strcmp(mode, "tracer") ? FTRACE_MODE_TRACER : FTRACE_MODE_EVENTS;
	out->interrupted = jtrue(extra, "interrupted");
	out->measured_s = rt_json_num_within(extra, "measured_s", RT_RESULT_MAX_MAGNITUDE);

	o = jget(extra, "probe");
	read_dist(o, "count", &out->probe.d);
	out->probe.policy = rt_json_text(o, "policy");
	out->probe.priority = jint(o, "priority");
	out->probe.cpu = jint(o, "cpu");
	out->probe.tid = jint(o, "tid");
	out->probe.rt_refused = rt_json_text(o, "rt_refused");
	out->probe.dropped = jcount(o, "dropped_count");
	out->probe.overruns = jcount(o, "overruns_count");

	o = jget(extra, "events");
	read_dist(o, "matched_count", &out->events.d);
	out->events.unmatched_wakings = jcount(o, "unmatched_wakings_count");
	out->events.pending_wakings = jcount(o, "pending_wakings_count");
	out->events.unmatched_switches = jcount(o, "unmatched_switches_count");
	out->events.woken_running = jcount(o, "woken_running_count");
	out->events.missed_switch_ins = jcount(o, "missed_switch_ins_count");
	out->events.migrated = jcount(o, "migrated_count");
	out->events.lost = jcount(o, "lost_count");
	out->events.instance = rt_json_text(o, "instance");

	o = jget(extra, "agreement");
	out->agreement.present = json_is_object(o);
	out->agreement.verdict = rt_json_text(o, "verdict");
	out->agreement.count_ratio = rt_json_num_within(o, "count_ratio", RT_RESULT_MAX_MAGNITUDE);
	out->agreement.median_at_or_below = jtrue(o, "events_median_at_or_below_probe");
	read_pair(jget(o, "p50"), &out->agreement.p50);
	read_pair(jget(o, "p90"), &out->agreement.p90);
	read_pair(jget(o, "p99"), &out->agreement.p99);
	read_pair(jget(o, "max"), &out->agreement.max);

	read_tracer(jget(extra, "tracer"), &out->tracer);

	o = jget(extra, "hunt");
	out->hunt.present = json_is_object(o);
	out->hunt.seed = rt_json_text(o, "seed");
	out->hunt.injector = rt_json_text(o, "injector");
	out->hunt.planted = jcount(o, "planted_count");
	out->hunt.refused = jcount(o, "refused_count");
	out->hunt.burst_us = juint(o, "burst_us");
	out->hunt.period_us = juint(o, "period_us");

	o = jget(extra, "cross_check");
	out->check.present = json_is_object(o);
	out->check.skipped = jget(o, "skipped") != NULL;
	read_tool(jget(o, "trace_cmd"), &out->check.trace_cmd);
	read_tool(jget(o, "rtla"), &out->check.rtla);

	sc = json_array_get(jget(extra, "scenarios"), 0);
	out->scenario = json_is_string(jget(sc, "name")) ? rt_json_text(sc, "name") :
			ours ? scenario_from_params(res, out->mode) : "";
	return ours ? 0 : -EINVAL;
}

int ftrace_doc_trace_line(const struct rt_result *res, size_t i, struct ftrace_doc_line *out)
{
	json_t *l = is_ftrace(res) ? json_array_get(jget(jget(extra_of(res), "tracer"), "lines"),
						    i) : NULL;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(l))
		return -ENOENT;
	out->line = juint(l, "line");
	out->comm = rt_json_text(l, "comm");
	out->pid = jint(l, "pid");
	out->cpu = jint(l, "cpu");
	out->flags = rt_json_text(l, "flags");
	out->irqs_off = jtrue(l, "irqs_off");
	out->need_resched = jtrue(l, "need_resched");
	out->context = rt_json_text(l, "context");
	out->preempt_depth = jint(l, "preempt_depth");
	out->time_us = rt_json_num_within(l, "time_us", RT_RESULT_MAX_MAGNITUDE);
	out->mark = rt_json_text(l, "mark");
	out->function = rt_json_text(l, "function");
	out->caller = rt_json_text(l, "caller");
	out->text = rt_json_text(l, "text");
	return 0;
}

int ftrace_doc_scenario_num(const struct rt_result *res, const char *scenario, const char *metric,
			    double *out)
{
	json_t *s, *v;
	size_t i;

	if (!is_ftrace(res))
		return -ENOENT;
	json_array_foreach(jget(extra_of(res), "scenarios"), i, s) {
		if (strcmp(rt_json_text(s, "name"), scenario))
			continue;
		v = jget(s, metric);
		if (!json_is_number(v))
			return -ENOENT;
		*out = json_number_value(v);
		return 0;
	}
	return -ENOENT;
}

/* ---- The tracer's trace ----------------------------------------------------------- */

int ftrace_doc_trace(const struct rt_result *res, const char *name,
		     struct trace_explain_src *src, char **cause)
{
	const char *lab = rt_result_lab(res);
	json_t *extra = extra_of(res), *tracer, *tt, *mode;

	memset(src, 0, sizeof(*src));
	if (!is_ftrace(res))
		return rt_err(cause, -EINVAL, "%s: results of the %s lab, which records no "
			      "tracer trace; only the ftrace lab does (" TRACER_MODE_HINT ")",
			      name, lab ? lab : "unnamed");
	mode = jget(extra, "mode");
	tracer = jget(extra, "tracer");
	tt = jget(tracer, "trace_text");
	if (json_is_string(mode) && !strcmp(json_string_value(mode), "events") && !tt)
		return rt_err(cause, -EINVAL, "%s: an event-mode run of the ftrace lab: it "
			      "measured wake-ups from sched events and holds no tracer trace; "
			      TRACER_MODE_HINT, name);
	if (!json_is_object(tracer))
		return rt_err(cause, -EINVAL, "%s: this ftrace results document has no "
			      "extra.tracer, so it holds no tracer trace; " TRACER_MODE_HINT,
			      name);
	if (!json_is_string(tt))
		return rt_err(cause, -EINVAL, "%s: the tracer's trace could not be read during "
			      "that run (extra.tracer.trace_text is %s); run it again, as root",
			      name, tt ? "not text" : "missing");
	src->text = json_string_value(tt);
	src->len = json_string_length(tt);
	src->name = name;
	src->from_results = true;
	src->truncated = jtrue(tracer, "trace_text_truncated");
	return 0;
}

