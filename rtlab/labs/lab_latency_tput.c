/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_latency_tput: the latency lab's throughput scenario. It runs no
 * probe: it measures how much work the kernel gets done per second in the
 * workloads of lab_latency_work (message passing, pipe round trips, forks, and a
 * user-space loop as the control), each --repeats times, interleaved so
 * that a slow patch of the machine spreads over all of them, and records
 * every run with the median and spread per workload.
 *
 * It exists for lesson 04's myth 1: a PREEMPT_RT kernel bounds latency and
 * pays for it in throughput where the kernel works (sleeping locks,
 * threaded interrupts, more context switches), not in code that only
 * computes. One document holds one kernel's figures; the comparison is the
 * same scenario's table from the other kernel, with the spreads saying how
 * much of a difference is noise.
 */
#include "lab_latency_int.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "core/rt_json.h"
#include "core/rt_result.h"
#include "core/rt_sink.h"
#include "core/rt_time.h"

/* The first --cpus, else the last CPU this process may use (CPU 0 takes more interrupts). */
static int tput_cpu(const struct latency_params *p)
{
	cpu_set_t set;

	if (p->ncpus)
		return (int)p->cpus[0];
	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (int c = CPU_SETSIZE - 1; c >= 0; c--)
		if (CPU_ISSET(c, &set))
			return c;
	return -1;
}

int latency_tput_run(struct lab_ctx *ctx, const struct latency_params *p,
		     const struct latency_plan *plan, unsigned int index,
		     const struct rt_sink *sink, struct latency_tput *t, char **cause)
{
	unsigned int total, done = 0;
	double t0 = rt_time_now_s(), last[LATENCY_WORK_NKINDS] = { 0 };
	char what[128];

	memset(t, 0, sizeof(*t));
	t->plan = plan;
	t->cpu = tput_cpu(p);
	t->repeats = p->repeats < LATENCY_MAX_REPEATS ? p->repeats : LATENCY_MAX_REPEATS;
	total = t->repeats * LATENCY_WORK_NKINDS;
	t->run_ms = total ? p->duration_ms / total : 0;
	for (unsigned int r = 0; r < t->repeats; r++) {
		for (unsigned int k = 0; k < LATENCY_WORK_NKINDS; k++) {
			const struct latency_work_info *info = latency_work_info(k);
			struct latency_work_run run;
			unsigned int pct = done * 100 / total;
			int ret;

			if (lab_ctx_stopped(ctx)) {
				t->interrupted = true;
				goto out;
			}
			if (latency_skip_requested(ctx, index)) {
				t->skipped = true;
				goto out;
			}
			if (last[k] > 0)
				snprintf(what, sizeof(what), "%s: %s, run %u of %u (the last: %.0f "
					 "%s/s)", plan->name, info->name, r + 1, t->repeats,
					 last[k], info->unit);
			else
				snprintf(what, sizeof(what), "%s: %s, run %u of %u", plan->name,
					 info->name, r + 1, t->repeats);
			latency_live_activity(ctx, plan->name, index, p->nplans, pct, true, what);
			rt_sink_progress(sink, pct, what);
			ret = latency_work_run(k, t->run_ms, t->cpu, ctx->stop, &run, cause);
			if (ret)
				return ret;
			if (run.stopped) {
				t->interrupted = true;	/* a cut run is not kept */
				goto out;
			}
			t->ops_s[k][t->runs[k]++] = run.ops_per_s;
			last[k] = run.ops_per_s;
			done++;
		}
	}
out:
	t->measured_s = rt_time_now_s() - t0;
	snprintf(what, sizeof(what), "%s: %s", plan->name, t->interrupted ? "interrupted" :
		 t->skipped ? "skipped" : "done");
	latency_live_activity(ctx, plan->name, index, p->nplans, t->interrupted ? 0 : 100, false,
			      what);
	rt_sink_progress(sink, 100, what);
	return 0;
}

/* @v rounded to @digits decimals. */
static double round_to(double v, int digits)
{
	double f = pow(10, digits);

	return round(v * f) / f;
}

/* One workload's runs and their statistics; NULL without memory. */
static json_t *workload_json(const struct latency_tput *t, unsigned int k)
{
	const struct latency_work_info *info = latency_work_info(k);
	struct latency_work_stats st;
	json_t *o, *runs = json_array();

	latency_work_stats(t->ops_s[k], t->runs[k], &st);
	for (unsigned int r = 0; runs && r < t->runs[k]; r++)
		if (json_array_append_new(runs, json_real(round_to(t->ops_s[k][r], 1)))) {
			json_decref(runs);
			return NULL;
		}
	if (!runs)
		return NULL;
	o = json_pack("{s:s, s:s, s:s, s:b, s:i, s:o, s:f, s:f, s:f, s:f, s:f, s:f}",
		      "name", info->name, "unit", info->unit, "what", info->what,
		      "kernel", info->kernel, "runs_count", (int)t->runs[k], "ops_per_s", runs,
		      "median_per_s", round_to(st.median, 1), "min_per_s", round_to(st.min, 1),
		      "max_per_s", round_to(st.max, 1), "mean_per_s", round_to(st.mean, 1),
		      "cv_pct", round_to(st.cv_pct, 2), "range_pct", round_to(st.range_pct, 2));
	return o;
}

int latency_tput_record(json_t *scens, const struct latency_params *p,
			const struct latency_tput *t)
{
	const struct latency_scenario *sc = latency_scenario_find(t->plan->name);
	json_t *o, *wl = json_array();
	int ret = -ENOMEM;

	o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:b, s:b, s:i, s:s, s:i, s:i, s:b, s:b, "
		      "s:f, s:f}", "name", t->plan->name,
		      "summary", sc ? sc->summary : "work per second",
		      "kind", "throughput", "policy", "other", "policy_requested", "other",
		      "priority", 0, "mlock", false, "pinned", t->cpu >= 0, "cpu", t->cpu,
		      "load", "none",
		      "repeats", (int)t->repeats, "run_ms", (int)t->run_ms,
		      "interrupted", t->interrupted, "skipped", t->skipped,
		      "planned_s", p->duration_ms / 1000.0,
		      "measured_s", round_to(t->measured_s, 3));
	if (!o || !wl)
		goto out;
	for (unsigned int k = 0; k < LATENCY_WORK_NKINDS; k++) {
		json_t *w = workload_json(t, k);
		char key[48];

		if (!w || json_array_append_new(wl, w))
			goto out;
		/* The medians as the scenario's figures, for predict questions: msg_per_s. */
		snprintf(key, sizeof(key), "%s_per_s", latency_work_info(k)->name);
		if (t->runs[k] && json_object_set(o, key, json_object_get(w, "median_per_s")))
			goto out;
	}
	if (json_object_set(o, "workloads", wl) || json_array_append(scens, o))
		goto out;
	ret = 0;
out:
	json_decref(wl);
	json_decref(o);
	return ret;
}

bool latency_tput_is(json_t *s)
{
	const char *kind = json_string_value(json_object_get(s, "kind"));

	return kind && !strcmp(kind, "throughput");
}

static const struct latency_col tput_cols[] = {
	{ "scenario", "scenario", "" }, { "workload", "workload", "" },
	{ "unit", "counts", "" }, { "runs", "runs", "" }, { "median", "median/s", "" },
	{ "min", "min/s", "" }, { "max", "max/s", "" }, { "cv", "sd/mean", "pct" },
	{ "kernel", "in the kernel", "" },
};

int latency_tput_view(json_t *scens, json_t *views)
{
	json_t *v = NULL, *s, *w;
	size_t i, k;
	int ret = 0;

	json_array_foreach(scens, i, s) {
		if (!latency_tput_is(s))
			continue;
		if (!v) {
			v = latency_view_new("throughput", "Throughput: work per second, median of "
					     "the runs (compare with the same table from another "
					     "kernel; a difference within the spreads is noise)",
					     tput_cols, sizeof(tput_cols) / sizeof(tput_cols[0]));
			if (!v)
				return -ENOMEM;
		}
		json_array_foreach(json_object_get(s, "workloads"), k, w) {
			const double lim = 1e15;	/* as the validator limits reals */

			ret |= rt_result_view_add_row(v, json_pack(
				"[s, s, s, I, I, I, I, f, s]",
				rt_json_text(s, "name"), rt_json_text(w, "name"), rt_json_text(w, "unit"),
				(json_int_t)rt_json_num_clamp(w, "runs_count", lim),
				(json_int_t)llround(rt_json_num_clamp(w, "median_per_s", lim)),
				(json_int_t)llround(rt_json_num_clamp(w, "min_per_s", lim)),
				(json_int_t)llround(rt_json_num_clamp(w, "max_per_s", lim)),
				rt_json_num_clamp(w, "cv_pct", lim),
				rt_json_true(w, "kernel") ? "yes" : "no (control)"));
		}
	}
	if (v && (ret || json_array_append(views, v)))
		ret = -ENOMEM;
	json_decref(v);
	return ret;
}
