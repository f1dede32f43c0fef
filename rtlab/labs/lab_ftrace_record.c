/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_ftrace_record: what one run of the ftrace lab measured, put into its
 * results document.
 *
 * extra.probe and extra.events hold the two distributions of the same
 * thread's wake-ups (the probe's, and sched_waking to sched_switch),
 * extra.agreement how they compare, and in tracer mode extra.tracer the
 * tracer's settings, its parsed trace (at most FTRACE_MAX_TRACE_LINES
 * entries) and the raw text for the viewer. The summary carries the
 * headline figures and the two histograms the full distributions.
 */
#include "lab_ftrace_int.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_hist.h"
#include "core/rt_log.h"
#include "core/rt_probe.h"
#include "core/rt_result.h"
#include "labs/lab_ftrace_doc.h"
#include "trace/trace_ctl.h"
#include "trace/trace_events.h"
#include "trace/trace_latency.h"

void ftrace_dist_of(const struct rt_hist *h, struct dist *d)
{
	struct rt_hist_summary s;
	struct rt_hist_pct pc;

	memset(d, 0, sizeof(*d));
	rt_hist_summarize(h, &s);
	d->count = s.count;
	d->min_us = us((double)s.min_ns);
	d->avg_us = us(s.avg_ns);
	d->max_us = us((double)s.max_ns);
	if (rt_hist_percentile(h, RT_HIST_P50, &pc) == 0)
		d->p50_us = (double)pc.value_us;
	if (rt_hist_percentile(h, RT_HIST_P90, &pc) == 0)
		d->p90_us = (double)pc.value_us;
	if (rt_hist_percentile(h, RT_HIST_P99, &pc) == 0) {
		d->p99_us = (double)pc.value_us;
		d->p99_resolution_us = (double)pc.resolution_us;
	}
}

static json_t *dist_json(const struct dist *d)
{
	return json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "count",
			 (json_int_t)d->count, "min_us", d->min_us, "avg_us", d->avg_us, "max_us",
			 d->max_us, "p50_us", d->p50_us, "p90_us", d->p90_us, "p99_us", d->p99_us,
			 "p99_resolution_us", d->p99_resolution_us);
}


static json_t *pair(double probe, double events)
{
	return json_pack("{s:f, s:f, s:f}", "probe_us", probe, "events_us", events, "diff_us",
			 round((probe - events) * 100) / 100);
}

/* extra.agreement: how the two views of the same wake-ups compare. */
static json_t *agreement_json(const struct dist *p, const struct dist *e)
{
	double ratio = p->count ? (double)e->count / (double)p->count : 0;
	bool below = e->p50_us <= p->p50_us + 1;
	char verdict[256];

	snprintf(verdict, sizeof(verdict), "%s: the events matched %.1f %% of the probe's "
		 "wake-ups and their median is %s the probe's (%.0f vs %.0f us)",
		 ratio >= 0.9 && ratio <= 1.1 && below ? "agree" : "disagree", ratio * 100,
		 below ? "at or below" : "above", e->p50_us, p->p50_us);
	return json_pack("{s:s, s:f, s:o, s:o, s:o, s:o, s:b, s:s}", "method",
			 "distribution: the same thread's wake-ups seen from the probe "
			 "(planned time to clock read) and from sched_waking to sched_switch",
			 "count_ratio", round(ratio * 1000) / 1000, "p50", pair(p->p50_us, e->p50_us), "p90",
			 pair(p->p90_us, e->p90_us), "p99", pair(p->p99_us, e->p99_us), "max",
			 pair(p->max_us, e->max_us), "events_median_at_or_below_probe", below,
			 "verdict", verdict);
}

static json_t *tracer_json(const struct trace_latency *t, const char *tracer, bool top,
			   const struct ftrace_params *p, unsigned long long max_lat, bool have_max)
{
	json_t *o = json_object(), *lines = json_array();
	size_t n = t && t->nentries < FTRACE_MAX_TRACE_LINES ? t->nentries : FTRACE_MAX_TRACE_LINES;

	if (!o || !lines)
		goto out_nomem;
	for (size_t i = 0; t && i < n; i++) {
		const struct trace_lat_entry *e = &t->entries[i];
		json_t *l = json_pack("{s:i, s:s, s:i, s:i, s:s, s:b, s:b, s:s, s:i, s:f, s:s#, "
				      "s:s, s:s, s:s}", "line", (int)e->line, "comm",
				      e->comm ? e->comm : "", "pid", e->pid, "cpu", e->cpu, "flags",
				      e->flags.raw, "irqs_off", e->flags.irqs_off, "need_resched",
				      e->flags.need_resched, "context",
				      trace_lat_ctx_name(e->flags.ctx), "preempt_depth",
				      e->flags.preempt_depth, "time_us", us((double)e->time_ns),
				      "mark", &e->mark, e->mark ? 1 : 0, "function",
				      e->function ? e->function : "", "caller",
				      e->caller ? e->caller : "", "text", e->text ? e->text : "");

		if (!l || json_array_append_new(lines, l))
			goto out_nomem;
	}
	if (json_object_set_new(o, "name", json_string(tracer)) ||
	    json_object_set_new(o, "top_level", json_boolean(top)) ||
	    json_object_set_new(o, "function_trace", json_boolean(p->function_trace)) ||
	    json_object_set_new(o, "threshold_us", json_integer(p->threshold_us)) ||
	    json_object_set_new(o, "max_latency_us", have_max ? json_integer((json_int_t)max_lat) :
				json_null()) ||
	    json_object_set_new(o, "parsed", json_boolean(t != NULL)))
		goto out_nomem;
	if (t && (json_object_set_new(o, "latency_us", t->have_latency ?
				      json_integer((json_int_t)t->latency_us) : json_null()) ||
		  json_object_set_new(o, "task", t->have_task ?
				      json_pack("{s:s, s:i, s:i}", "comm", t->task_comm ?
						t->task_comm : "", "pid", t->task_pid, "rt_prio",
						t->task_rt_prio) : json_null()) ||
		  json_object_set_new(o, "started_at", t->started_at ?
				      json_string(t->started_at) : json_null()) ||
		  json_object_set_new(o, "ended_at", t->ended_at ? json_string(t->ended_at) :
				      json_null()) ||
		  json_object_set_new(o, "entries_count", json_integer((json_int_t)t->nentries)) ||
		  json_object_set_new(o, "problems_count",
				      json_integer((json_int_t)t->nproblems_total))))
		goto out_nomem;
	if (json_object_set_new(o, "lines", lines))
		goto out_nomem_o;
	return o;

out_nomem:
	json_decref(lines);
out_nomem_o:
	json_decref(o);
	return NULL;
}

int ftrace_record(struct lab_ctx *ctx, struct ft_run *r, json_t *extra)
{
	const struct trace_wake_calc *calc = trace_events_calc(r->ev);
	struct trace_wake_stats ws;
	struct rt_probe_thread_stats ps;
	struct dist pd, ed;
	json_t *o;
	int ret = 0;

	(void)ctx;
	trace_wake_calc_stats(calc, &ws);
	rt_probe_stats(r->probe, 0, &ps);
	ftrace_dist_of(r->phist, &pd);
	ftrace_dist_of(trace_wake_calc_hist(calc), &ed);

	o = dist_json(&pd);
	if (!o || json_object_set_new(o, "tid", json_integer(r->tid)) ||
	    json_object_set_new(o, "cpu", json_integer(r->cpu)) ||
	    json_object_set_new(o, "policy", json_string(r->policy == SCHED_OTHER ? "other" :
							 "fifo")) ||
	    json_object_set_new(o, "priority", json_integer(r->prio)) ||
	    json_object_set_new(o, "rt_refused", r->rt_refused ? json_string(r->rt_refused) :
				json_null()) ||
	    json_object_set_new(o, "dropped_count", json_integer((json_int_t)ps.drops)) ||
	    json_object_set_new(o, "overruns_count", json_integer((json_int_t)ps.overruns)) ||
	    json_object_set_new(extra, "probe", o))
		return -ENOMEM;

	o = dist_json(&ed);
	if (!o || json_object_set_new(o, "instance",
				      json_string(trace_events_instance_name(r->ev))) ||
	    json_object_set_new(o, "matched_count", json_integer((json_int_t)ws.matched)) ||
	    json_object_set_new(o, "unmatched_wakings_count",
				json_integer((json_int_t)ws.unmatched_wakings)) ||
	    json_object_set_new(o, "woken_running_count",
				json_integer((json_int_t)ws.woken_running)) ||
	    json_object_set_new(o, "missed_switch_ins_count",
				json_integer((json_int_t)ws.missed_switch_ins)) ||
	    json_object_set_new(o, "pending_wakings_count",
				json_integer((json_int_t)ws.pending_wakings)) ||
	    json_object_set_new(o, "unmatched_switches_count",
				json_integer((json_int_t)ws.unmatched_switches)) ||
	    json_object_set_new(o, "migrated_count", json_integer((json_int_t)ws.migrated)) ||
	    json_object_set_new(o, "lost_count", json_integer((json_int_t)ws.lost_events)) ||
	    json_object_set_new(o, "worst", json_pack("{s:I, s:I, s:f, s:i, s:i}",
				"t_waking_ns", (json_int_t)ws.max.t_waking_ns, "t_switch_ns",
				(json_int_t)ws.max.t_switch_ns, "latency_us",
				us((double)ws.max.latency_ns), "waking_cpu", ws.max.waking_cpu,
				"run_cpu", ws.max.run_cpu)) ||
	    json_object_set_new(extra, "events", o))
		return -ENOMEM;
	if (json_object_set_new(extra, "agreement", agreement_json(&pd, &ed)))
		return -ENOMEM;

	ret = rt_result_set_summary(r->res, "probe_samples_count", (double)pd.count);
	ret = ret ? ret : rt_result_set_summary(r->res, "probe_p50_us", pd.p50_us);
	ret = ret ? ret : rt_result_set_summary(r->res, "probe_p99_us", pd.p99_us);
	ret = ret ? ret : rt_result_set_summary(r->res, "probe_p99_resolution_us",
						pd.p99_resolution_us);
	ret = ret ? ret : rt_result_set_summary(r->res, "probe_max_us", pd.max_us);
	ret = ret ? ret : rt_result_set_summary(r->res, "events_matched_count", (double)ws.matched);
	ret = ret ? ret : rt_result_set_summary(r->res, "events_p50_us", ed.p50_us);
	ret = ret ? ret : rt_result_set_summary(r->res, "events_p99_us", ed.p99_us);
	ret = ret ? ret : rt_result_set_summary(r->res, "events_p99_resolution_us",
						ed.p99_resolution_us);
	ret = ret ? ret : rt_result_set_summary(r->res, "events_max_us", ed.max_us);
	ret = ret ? ret : rt_result_set_summary(r->res, "lost_count", (double)ws.lost_events);
	ret = ret ? ret : rt_result_set_summary(r->res, "agreement_count_ratio",
						pd.count ? round((double)ws.matched * 1000 /
								 (double)pd.count) / 1000 : 0);
	ret = ret ? ret : rt_result_set_summary(r->res, "agreement_p50_diff_us",
						pd.p50_us - ed.p50_us);
	ret = ret ? ret : rt_result_set_summary(r->res, "agreement_p99_diff_us",
						pd.p99_us - ed.p99_us);
	ret = ret ? ret : rt_result_add_rt_hist(r->res, "probe", r->phist);
	ret = ret ? ret : rt_result_add_rt_hist(r->res, "events", trace_wake_calc_hist(calc));
	return ret;
}

/*
 * extra.tracer.trace_text: the trace file as the kernel wrote it, for the
 * viewer (`rtlab trace view`), cut at a line end after FTRACE_MAX_TRACE_TEXT
 * bytes (trace_text_truncated says so). NULL @text stores null.
 */
static int set_trace_text(json_t *o, const char *text, size_t len)
{
	json_t *js = NULL;
	char *clean;
	bool cut = false;

	if (text && len > FTRACE_MAX_TRACE_TEXT) {
		len = FTRACE_MAX_TRACE_TEXT;
		while (len > 0 && text[len - 1] != '\n')
			len--;
		cut = true;
	}
	if (text) {
		js = json_stringn(text, len);
		if (!js) {
			/* Not UTF-8 (a task name can hold any byte): keep it readable as ASCII. */
			clean = malloc(len + 1);
			if (!clean)
				return -ENOMEM;
			for (size_t i = 0; i < len; i++)
				clean[i] = (text[i] & 0x80) || !text[i] ? '?' : text[i];
			js = json_stringn(clean, len);
			free(clean);
			if (!js)
				return -ENOMEM;
		}
	}
	if (json_object_set_new(o, "trace_text", js ? js : json_null()) ||
	    json_object_set_new(o, "trace_text_truncated", json_boolean(cut)))
		return -ENOMEM;
	return 0;
}

int ftrace_record_tracer(struct ft_run *r, json_t *extra)
{
	struct trace_latency *t = NULL;
	unsigned long long max_lat = 0;
	bool have_max;
	char *text, *cause = NULL;
	size_t len = 0;
	json_t *o;

	have_max = trace_ctl_max_latency(r->ctl, &max_lat, NULL) == 0;
	text = trace_ctl_read_trace(r->ctl, &len, &cause);
	if (!text) {
		rt_result_add_note(r->res, "the tracer's trace could not be read");
		rt_log(RT_LOG_WARN, "ftrace: %s", cause ? cause : "trace not read");
	} else if (trace_latency_parse(text, len, "trace", &t, NULL) || !t->have_latency) {
		/*
		 * A maximum recorded and `trace` holding its first line only:
		 * seen in the lab kernel while trace-cmd recorded in another
		 * instance, which tracer mode no longer starts (issue 11,
		 * labs/ftrace/README.md). Should it come back: say so with the
		 * figure.
		 */
		if (have_max && max_lat) {
			char note[160];

			snprintf(note, sizeof(note), "the tracer recorded %llu us "
				 "(tracing_max_latency), but its trace held no latency header "
				 "when read", max_lat);
			rt_result_add_note(r->res, note);
		} else {
			rt_result_add_note(r->res, "the tracer's trace held nothing rtlab could "
					   "parse (no latency above the threshold?)");
		}
	}
	free(cause);
	o = tracer_json(t, r->tracer, trace_ctl_is_top_level(r->ctl), r->p, max_lat, have_max);
	if (!o || set_trace_text(o, text, len) || json_object_set_new(extra, "tracer", o)) {
		free(text);
		trace_latency_free(t);
		return -ENOMEM;
	}
	free(text);
	if (t && t->have_latency)
		rt_result_set_summary(r->res, "tracer_latency_us", (double)t->latency_us);
	trace_latency_free(t);
	return 0;
}

/*
 * Every run is a scenario of ftrace_scenarios[]: event mode always is, and
 * tracer mode runs only the latency tracers, each of which has its own.
 */
const struct ftrace_scenario *ftrace_run_scenario(const struct ft_run *r)
{
	const struct ftrace_scenario *s = ftrace_scenario_of(r->p->mode, r->tracer, r->p->hunt);

	return s ? s : ftrace_scenario_of(FTRACE_MODE_EVENTS, NULL, r->p->hunt);
}

int ftrace_record_scenario(struct ft_run *r, json_t *extra)
{
	const struct ftrace_scenario *sc = ftrace_run_scenario(r);
	json_t *summary = json_object_get(rt_result_json(r->res), "summary");
	json_t *o, *list;

	o = json_pack("{s:s, s:s, s:b, s:O}", "name", sc->name, "summary", sc->summary,
		      "interrupted", r->interrupted, "measured_s",
		      json_object_get(extra, "measured_s"));
	if (!o || json_object_update(o, summary)) {
		json_decref(o);
		return -ENOMEM;
	}
	list = json_pack("[o]", o);
	if (!list || json_object_set_new(extra, "scenarios", list))
		return -ENOMEM;
	return 0;
}
