/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_example: a small lab that shows a contributor every part of a lab,
 * over the example simulator (rtlab/sim/sim_example.c): a periodic task on
 * one CPU whose start is delayed by non-preemptible sections of background
 * work. Read it with doc/architecture.md ("The recipe for a new lab").
 *
 * What every lab has, in the order it appears here:
 *
 *  - options: a table (struct lab_option) that `rtlab lab run example`
 *    parses, `--help` lists and the man page shows; --seed is every lab's;
 *  - named scenarios (here the model's presets), each one's figures in
 *    extra.scenarios, so a predict question in a lesson can name
 *    `lab: example`, a scenario and a metric without code;
 *  - run(): the work, polling the stop flag between chunks and keeping a
 *    live model current for a screen; it fills an rtlab.result/2 document
 *    and never prints;
 *  - views(): the tables a person reads, built from a document of this lab;
 *  - grade(): named checks, a pure function of the document.
 *
 * It is a simulation everywhere (sim_only): the document's tier says
 * "simulation", and every front end labels it so.
 */
#include "lab.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_err.h"
#include "core/rt_json.h"
#include "core/rt_log.h"
#include "core/rt_result.h"
#include "core/rt_sink.h"
#include "core/rt_keys.h"
#include "lab_example.h"
#include "sim/sim.h"
#include "sim/sim_example.h"

#define CHUNK_STEPS 20000u	/* jobs between two looks at the stop flag */

/* ---- Options -------------------------------------------------------------------- */

void example_params_init(struct example_params *p)
{
	memset(p, 0, sizeof(*p));
	p->scenarios = (1u << sim_example_model.npresets) - 1;
}

/* --scenario NAME[,NAME...]: which of the model's presets to run. */
int example_parse_scenarios(const char *list, unsigned int *mask, char **cause)
{
	char buf[256], *save = NULL, *name;

	if (strlen(list) >= sizeof(buf))
		return rt_err(cause, -EINVAL, "--scenario: the list is too long");
	strcpy(buf, list);
	*mask = 0;
	for (name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		unsigned int i;

		for (i = 0; i < sim_example_model.npresets; i++)
			if (!strcmp(name, sim_example_model.presets[i].name))
				break;
		if (i == sim_example_model.npresets)
			return rt_err(cause, -EINVAL, "--scenario: no scenario called '%s' "
				      "(quiet, busy or overloaded)", name);
		*mask |= 1u << i;
	}
	return *mask ? 0 : rt_err(cause, -EINVAL, "--scenario: name at least one scenario");
}

static int set_scenarios(void *params, const char *value, char **cause)
{
	struct example_params *p = params;

	return example_parse_scenarios(value, &p->scenarios, cause);
}

static void example_params_default(void *params)
{
	example_params_init(params);
}

static const struct lab_option example_options[] = {
	{ .name = "scenario", .kind = LAB_OPT_STRING, .metavar = "S[,S]", .set = set_scenarios,
	  .help = "Simulate these scenarios: quiet (the background work never outlasts the "
		  "slack), busy (sometimes does), overloaded (often does).",
	  .defval = "quiet,busy,overloaded" },
	{ .name = NULL },
};

/* ---- The run --------------------------------------------------------------------- */

/* What the poll between chunks needs. */
struct example_poll {
	struct lab_ctx *ctx;
	const struct rt_sink *sink;
	const char *name;
	uint64_t jobs;
	bool stopped;
};

static int example_poll(void *priv, struct sim *s)
{
	struct example_poll *p = priv;
	struct example_live *live = p->ctx->live;
	const struct sim_counters *c = sim_counters(s);
	char what[96];

	if (live) {
		__atomic_store_n(&live->jobs, c->v[SIM_EXAMPLE_RELEASES], __ATOMIC_RELAXED);
		__atomic_store_n(&live->misses, c->v[SIM_EXAMPLE_MISSES], __ATOMIC_RELAXED);
	}
	snprintf(what, sizeof(what), "%s: %llu of %llu jobs", p->name,
		 (unsigned long long)sim_steps(s), (unsigned long long)p->jobs);
	rt_sink_progress(p->sink, p->jobs ? (unsigned int)(sim_steps(s) * 100 / p->jobs) : 0,
			 what);
	if (lab_ctx_stopped(p->ctx)) {
		p->stopped = true;
		return 1;
	}
	return 0;
}

/* One scenario: run the model, then its figures into @scens and its histograms. */
static int run_scenario(struct lab_ctx *ctx, const struct rt_sink *sink,
			const struct sim_preset *pre, struct rt_result *res, json_t *scens,
			bool *stopped, char **cause)
{
	const struct sim_example_scenario *sc = pre->scenario;
	struct example_poll poll = { ctx, sink, pre->name, sc->jobs, false };
	struct example_live *live = ctx->live;
	struct sim *s = NULL;
	char hname[64];
	json_t *o;
	int ret;

	if (live)
		snprintf(live->scenario, sizeof(live->scenario), "%s", pre->name);
	ret = sim_new(&sim_example_model, sc, ctx->seed, &s, cause);
	if (ret)
		return ret;
	ret = sim_run_chunked(s, SIM_STEPS_ALL, CHUNK_STEPS, NULL, example_poll, &poll);
	if (ret && !poll.stopped)
		goto out;
	*stopped = poll.stopped;
	o = json_pack("{s:s, s:s, s:b}", "name", pre->name, "summary", pre->summary,
		      "interrupted", poll.stopped);
	ret = o ? sim_counters_to_json(sim_counters(s), o) : -ENOMEM;
	if (!ret && json_array_append(scens, o))
		ret = -ENOMEM;
	json_decref(o);
	for (unsigned int h = 0; !ret && h < SIM_EXAMPLE_NHISTS; h++) {
		snprintf(hname, sizeof(hname), "%s.%s", pre->name, sim_example_model.hists[h]);
		ret = rt_result_add_rt_hist(res, hname, sim_hist(s, h));
	}
out:
	sim_free(s);
	return ret;
}

static int example_run(struct lab_ctx *ctx, const struct rt_sink *sink, struct lab_result *out)
{
	struct example_params defaults;
	const struct example_params *p = ctx->params;
	struct rt_result *res;
	json_t *scens = json_array();
	char *cause = NULL;
	uint64_t misses = 0, jobs = 0, v;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (!p) {
		example_params_init(&defaults);
		p = &defaults;
	}
	res = rt_result_new("example", "simulation", ctx->env);
	if (!res || !scens) {
		ret = -ENOMEM;
		goto out;
	}
	ret = lab_seed_record(res, ctx->seed);
	for (unsigned int i = 0; !ret && i < sim_example_model.npresets; i++) {
		if (!(p->scenarios & (1u << i)))
			continue;
		if (out->interrupted)
			break;
		ret = run_scenario(ctx, sink, &sim_example_model.presets[i], res, scens,
				   &out->interrupted, &cause);
	}
	if (ret) {
		rt_log(RT_LOG_ERR, "example: %s", cause ? cause : strerror(-ret));
		goto out;
	}
	for (size_t i = 0; i < json_array_size(scens); i++) {
		json_t *s = json_array_get(scens, i);

		v = (uint64_t)json_integer_value(json_object_get(s, "misses_count"));
		misses += v;
		jobs += (uint64_t)json_integer_value(json_object_get(s, "releases_count"));
	}
	ret = rt_result_set_summary(res, "jobs_count", (double)jobs) ?:
	      rt_result_set_summary(res, "misses_count", (double)misses) ?:
	      rt_result_add_note(res, "SIMULATED: a model of one periodic task and its "
				 "background work, not a measurement of this machine");
	if (!ret && out->interrupted)
		ret = rt_result_add_note(res, "interrupted: the document holds the jobs "
					 "simulated until then");
	if (!ret)
		ret = rt_result_set_scenarios(res, scens);
	if (!ret) {
		out->res = res;
		res = NULL;
	}
out:
	free(cause);
	json_decref(scens);
	rt_result_free(res);
	return ret;
}

/* ---- Views and grade -------------------------------------------------------------- */

static int example_views(const struct rt_result *res, json_t *views, char **cause)
{
	json_t *rows = json_array(), *s;
	size_t i;

	(void)cause;
	if (!rows)
		return -ENOMEM;
	json_array_foreach(rt_result_scenarios(res), i, s) {
		double jobs = rt_json_num(s, "releases_count");

		if (json_array_append_new(rows, json_pack("[s, f, f, f, f, f, f]",
				json_string_value(json_object_get(s, "name")) ?: "", jobs,
				rt_json_num(s, "misses_count"), jobs > 0 ? 100.0 *
				rt_json_num(s, "misses_count") / jobs : 0.0,
				jobs > 0 ? rt_json_num(s, "delay_sum_ns") / jobs / 1000.0 : 0.0,
				rt_json_num(s, "delay_max_ns") / 1000.0,
				rt_json_num(s, "response_max_ns") / 1000.0))) {
			json_decref(rows);
			return -ENOMEM;
		}
	}
	return json_array_append_new(views, json_pack(
		"{s:s, s:s, s:[{s:s}, {s:s}, {s:s}, {s:s, s:s, s:s}, {s:s, s:s, s:s}, "
		"{s:s, s:s, s:s}, {s:s, s:s, s:s}], s:o}", "name", "scenarios", "title",
		"Simulated scenarios (a model, not this machine)", "columns",
		"name", "scenario", "name", "jobs", "name", "misses",
		"name", "miss_pct", "title", "misses", "unit", "pct",
		"name", "delay_mean", "title", "mean delay", "unit", "us",
		"name", "delay_max", "title", "max delay", "unit", "us",
		"name", "response_max", "title", "max response", "unit", "us",
		"rows", rows)) ? -ENOMEM : 0;
}

static int example_grade_lacks(const struct rt_result *res, struct rt_buf *missing)
{
	static const char *const needs[] = { "quiet", "busy", "overloaded", NULL };

	return lab_lacks_scenarios(res, needs, missing);
}

/* The quiet scenario must meet every deadline; more background must miss more. */
static int example_grade(const struct lab_result *r, struct grade_report *rep)
{
	double quiet = rt_result_scenario_num(r->res, "quiet", "misses_count");
	double busy = rt_result_scenario_num(r->res, "busy", "misses_count");
	double over = rt_result_scenario_num(r->res, "overloaded", "misses_count");
	int ret;

	ret = grade_report_add(rep, "quiet-meets-deadlines", quiet == 0,
			       "the quiet scenario missed %g deadlines (expected none)", quiet);
	if (!ret)
		ret = grade_report_add(rep, "more-work-more-misses", busy < over,
				       "busy missed %g, overloaded %g: more background work "
				       "should miss more", busy, over);
	return ret;
}

static bool example_scenario(size_t i, struct lab_scenario *out)
{
	if (i >= sim_example_model.npresets)
		return false;
	out->name = sim_example_model.presets[i].name;
	out->summary = sim_example_model.presets[i].summary;
	return true;
}

/* ---- The descriptor --------------------------------------------------------------- */

static const char *const example_questions[] = { "why-misses", NULL };

/* ---- Declared keys ---------------------------------------------------------------- */

/* Its document's own keys (lab_ops.params_keys, .scenario_keys; the model's counters follow). */
static const struct rt_key example_params_keys[] = { RT_RESULT_SEED_KEY, RT_KEY_END };
static const struct rt_keys example_params_table = { .keys = example_params_keys };
static const struct rt_key example_scenario_keys[] = {
	RT_RESULT_SCENARIO_NAME_KEYS,
	RT_KEY("interrupted", RT_T_BOOL, NULL, "the run was stopped before the scenario's end",
	       true),
	RT_KEY_END,
};
static const struct rt_keys example_scenario_table = { .keys = example_scenario_keys };

const struct lab_ops lab_example = {
	.name = "example",
	.title = "Deadline misses from non-preemptible sections (example)",
	.summary = "A worked example for contributors: a simulated periodic task delayed by "
		   "non-preemptible background sections, in three scenarios.",
	.lesson = 0,
	.state = LAB_STATE_READY,
	.sim = true,
	.sim_only = true,
	.run = example_run,
	.views = example_views,
	.scenario = example_scenario,
	.model = &sim_example_model,
	.grade = example_grade,
	.grade_lacks = example_grade_lacks,
	.options = example_options,
	.options_note = "The seed (--seed) decides where the background work's sections fall; "
			"the same seed gives the same document.",
	.params_size = sizeof(struct example_params),
	.params_init = example_params_default,
	.questions = example_questions,
	.params_keys = &example_params_table,
	.scenario_keys = &example_scenario_table,
};
