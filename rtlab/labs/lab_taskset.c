/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_taskset: "Will my task set meet its deadlines?" (lesson 15,
 * labs/taskset/README.md). Each scenario is a set of periodic tasks with
 * rate-monotonic priorities; the lab computes every task's worst-case
 * response time by response-time analysis (lab_taskset_rta.c) and the
 * set's utilisation against Liu and Layland's bound, then runs the set as
 * SCHED_FIFO threads pinned to one CPU (lab_taskset_run.c) and puts the
 * measured worst response beside the computed one.
 *
 * The five scenarios are fixed (lessons' predict questions name them):
 * ll-above and rta-miss without a lock, and one set sharing a lock between
 * its highest and lowest task under each protocol (lock-plain,
 * lock-inherit, lock-ceiling). --tasks runs a set of the learner's own as
 * the scenario "custom", with --lock.
 */
#include "lab.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_env.h"
#include "core/rt_err.h"
#include "core/rt_json.h"
#include "core/rt_keys.h"
#include "core/rt_log.h"
#include "core/rt_result.h"
#include "core/rt_sink.h"
#include "lab_taskset.h"

#define TASKSET_CPU_LAST UINT_MAX
#define DURATION_MS_DEFAULT 1000u

/* ---- The scenarios ----------------------------------------------------------------- */

struct preset {
	const char *name, *summary;
	struct taskset_spec spec;
};

#define TASK(t, c) { .period_us = (t) * 1000u, .wcet_us = (c) * 1000u }
/* High and low share the lock; low is released 0.2 ms early, so it holds it at t0. */
#define LOCK_SET(l) { .n = 3, .lock = (l), .t = {					\
	{ .period_us = 10000, .wcet_us = 2000, .cs_us = 500 },				\
	{ .period_us = 20000, .wcet_us = 7000 },					\
	{ .period_us = 50000, .wcet_us = 5000, .cs_us = 3000, .offset_us = -200 } } }

static const struct preset presets[] = {
	{ "ll-above", "utilisation 83 %, above the Liu & Layland bound; RTA proves it "
	  "schedulable", { .n = 3, .t = { TASK(8, 2), TASK(12, 4), TASK(24, 6) } } },
	{ "rta-miss", "utilisation 90 %; RTA proves the lowest task unschedulable",
	  { .n = 3, .t = { TASK(8, 2), TASK(10, 4), TASK(12, 3) } } },
	{ "lock-plain", "high and low share a plain mutex; a medium task runs while high "
	  "waits", LOCK_SET(TASKSET_LOCK_PLAIN) },
	{ "lock-inherit", "the same set with a PTHREAD_PRIO_INHERIT mutex",
	  LOCK_SET(TASKSET_LOCK_INHERIT) },
	{ "lock-ceiling", "the same set with a PTHREAD_PRIO_PROTECT mutex, ceiling = high's "
	  "priority", LOCK_SET(TASKSET_LOCK_CEILING) },
};
#define NPRESETS (sizeof(presets) / sizeof(presets[0]))

/* ---- Options ------------------------------------------------------------------------ */

struct taskset_params {
	unsigned int scenarios;		/* bit i: presets[i] */
	bool scenarios_given;
	bool tasks_given;
	struct taskset_spec custom;	/* --tasks, with --lock */
	int lock;			/* enum taskset_lock */
	unsigned int duration_ms;	/* per scenario */
	unsigned int cpu;		/* TASKSET_CPU_LAST: the last online CPU */
};

static void params_default(void *params)
{
	struct taskset_params *p = params;

	memset(p, 0, sizeof(*p));
	p->scenarios = (1u << NPRESETS) - 1;
	p->duration_ms = DURATION_MS_DEFAULT;
	p->cpu = TASKSET_CPU_LAST;
}

static int set_scenarios(void *params, const char *value, char **cause)
{
	struct taskset_params *p = params;
	const char *names[NPRESETS + 1] = { NULL };
	uint32_t mask;
	int ret;

	for (size_t i = 0; i < NPRESETS; i++)
		names[i] = presets[i].name;
	ret = lab_opts_names("--scenario", "scenario", value, names, false, &mask, cause);
	p->scenarios = mask;
	p->scenarios_given = !ret;
	return ret;
}

static int set_tasks(void *params, const char *value, char **cause)
{
	struct taskset_params *p = params;

	p->tasks_given = true;
	return taskset_parse(value, &p->custom, cause);
}

static int params_check(void *params, char **cause)
{
	struct taskset_params *p = params;

	if (p->tasks_given && p->scenarios_given)
		return rt_err(cause, -EINVAL, "--tasks runs a set of your own: give it or "
			      "--scenario, not both");
	if (!p->tasks_given && p->lock != TASKSET_LOCK_NONE)
		return rt_err(cause, -EINVAL, "--lock goes with --tasks (the lock-* scenarios "
			      "set their own)");
	if (!p->tasks_given)
		return 0;
	p->custom.lock = p->lock;
	return taskset_check(&p->custom, cause);
}

#define P(f) LAB_OPT_AT(struct taskset_params, f)
static const struct lab_option taskset_options[] = {
	{ .name = "scenario", .kind = LAB_OPT_STRING, .metavar = "S[,S]", .set = set_scenarios,
	  .help = "Run these scenarios: ll-above, rta-miss, lock-plain, lock-inherit, "
		  "lock-ceiling.", .defval = "all five" },
	{ .name = "tasks", .kind = LAB_OPT_STRING, .metavar = "T:C[:CS],...", .set = set_tasks,
	  .help = "Run your own set instead, as the scenario custom: each task's period T and "
		  "execution time C in milliseconds (decimals allowed), and for the two tasks "
		  "that share the lock the time CS they hold it (at the start of each job). "
		  "Priorities are rate monotonic; at most 8 tasks, periods 1 ms to 1 s, "
		  "utilisation at most 90 %." },
	{ .name = "lock", .kind = LAB_OPT_ENUM, P(lock), .values = taskset_lock_names,
	  .help = "The lock of a --tasks set: none, plain (PTHREAD_PRIO_NONE), inherit "
		  "(PTHREAD_PRIO_INHERIT) or ceiling (PTHREAD_PRIO_PROTECT, the ceiling the "
		  "highest user's priority).", .defval = "none" },
	{ .name = "duration", .kind = LAB_OPT_DURATION, .metavar = "D", P(duration_ms),
	  .min = 100000000ull, .max = 600000000000ull, .unit_ns = 1000000,
	  .help = "How long each scenario releases jobs (100ms .. 10m).", .defval = "1s" },
	{ .name = "cpu", .kind = LAB_OPT_UINT, .metavar = "N", P(cpu), .max = CPU_SETSIZE - 1,
	  .help = "The CPU every task is pinned to.", .defval = "the last online CPU" },
	{ .name = NULL },
};
#undef P

static int taskset_check_caps(struct lab_ctx *ctx, char **cause)
{
	const struct taskset_params *p = ctx->params;

	return taskset_can(p && p->tasks_given ? p->custom.n : 3, cause);
}

/* ---- Figures ------------------------------------------------------------------------ */

static const char *const verdict_names[] = { "meets", "misses", "unbounded" };

static double us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

/* One task's row of figures: its parameters, the analysis, the measurement. */
static json_t *task_json(const struct taskset_spec *s, unsigned int i,
			 const struct taskset_measured *m)
{
	uint64_t r, b;
	enum taskset_verdict v = taskset_analyse(s, i, &r, &b);
	json_t *o = json_pack("{s:I, s:I, s:I, s:i, s:I, s:s, s:I, s:f, s:f, s:I}",
			      "period_us", (json_int_t)s->t[i].period_us,
			      "wcet_us", (json_int_t)s->t[i].wcet_us,
			      "cs_us", (json_int_t)s->t[i].cs_us,
			      "priority", taskset_prio(s->n, i),
			      "blocking_us", (json_int_t)b,
			      "rta", verdict_names[v],
			      "jobs_count", (json_int_t)m->jobs,
			      "response_max_us", us(m->resp_max_ns),
			      "response_avg_us", m->jobs ? us(m->resp_sum_ns) / (double)m->jobs : 0.0,
			      "misses_count", (json_int_t)m->misses);

	if (o && v != TASKSET_UNBOUNDED &&
	    json_object_set_new(o, "rta_response_us", json_integer((json_int_t)r))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The scenario's figures: the set's, the worst over its tasks, and each task's. */
static json_t *scenario_json(const char *name, const char *summary,
			     const struct taskset_spec *s, const struct taskset_measured *m,
			     int cpu, bool interrupted)
{
	json_t *tasks = json_array(), *o;
	uint64_t jobs = 0, misses = 0;
	double over = 0;
	bool all_meet = true;
	int lock_user = -1;

	if (!tasks)
		return NULL;
	for (unsigned int i = 0; i < s->n; i++) {
		uint64_t r;
		enum taskset_verdict v = taskset_analyse(s, i, &r, NULL);

		if (json_array_append_new(tasks, task_json(s, i, &m[i]))) {
			json_decref(tasks);
			return NULL;
		}
		jobs += m[i].jobs;
		misses += m[i].misses;
		all_meet = all_meet && v == TASKSET_MEETS;
		if (v == TASKSET_MEETS && r && 100.0 * us(m[i].resp_max_ns) / (double)r > over)
			over = 100.0 * us(m[i].resp_max_ns) / (double)r;
		if (lock_user < 0 && s->lock != TASKSET_LOCK_NONE && s->t[i].cs_us)
			lock_user = (int)i;
	}
	o = json_pack("{s:s, s:s, s:s, s:f, s:f, s:b, s:I, s:I, s:f, s:f, s:i, s:b, s:o}",
		      "name", name, "summary", summary, "lock", taskset_lock_names[s->lock],
		      "utilisation_pct", 100.0 * taskset_utilisation(s),
		      "ll_bound_pct", 100.0 * taskset_ll_bound(s->n),
		      "rta_schedulable", all_meet,
		      "jobs_count", (json_int_t)jobs, "misses_count", (json_int_t)misses,
		      "worst_over_bound_pct", over,
		      "lowest_response_max_us", us(m[s->n - 1].resp_max_ns),
		      "cpu_count", cpu, "interrupted", interrupted, "tasks", tasks);
	if (o && lock_user >= 0 &&
	    json_object_set_new(o, "lock_user_response_max_us",
				json_real(us(m[lock_user].resp_max_ns)))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* On a host, how far the machine's noise moved the measured above the computed. */
static int noise_note(struct rt_result *res, json_t *scens)
{
	double worst = 0;
	const char *where = NULL;
	char note[320];
	json_t *sc;
	size_t i;

	json_array_foreach(scens, i, sc) {
		double v = rt_json_num(sc, "worst_over_bound_pct");

		if (v > worst) {
			worst = v;
			where = json_string_value(json_object_get(sc, "name"));
		}
	}
	if (!where)
		return 0;
	if (worst > 100.0)
		snprintf(note, sizeof(note), "on this machine (real time) its noise moved a "
			 "measured worst response above the computed one, by %.1f %% at most "
			 "(scenario %s): the analysis covers the tasks, not the interrupts and "
			 "kernel threads that also ran on the CPU", worst - 100.0, where);
	else
		snprintf(note, sizeof(note), "on this machine (real time) every measured worst "
			 "response stayed within its computed bound: at most %.1f %% of it "
			 "(scenario %s)", worst, where);
	return rt_result_add_note(res, note);
}

/* ---- The run --------------------------------------------------------------------- */

static int run_one(struct lab_ctx *ctx, const struct taskset_params *p, const char *name,
		   const char *summary, const struct taskset_spec *s, json_t *scens,
		   char **cause)
{
	struct taskset_measured m[TASKSET_MAX];
	struct taskset_live *live = ctx->live;
	struct taskset_run_opts o = {
		.duration_ns = (uint64_t)p->duration_ms * 1000000ull,
		.cpu = p->cpu == TASKSET_CPU_LAST ? -1 : (int)p->cpu,
		.journal = ctx->journal, .stop = ctx->stop, .live = live,
	};
	int cpu = 0, ret;

	memset(m, 0, sizeof(m));
	if (live) {
		memset(live->jobs, 0, sizeof(live->jobs));
		memset(live->misses, 0, sizeof(live->misses));
		memset(live->resp_max_ns, 0, sizeof(live->resp_max_ns));
		for (unsigned int i = 0; i < s->n; i++)
			live->period_us[i] = s->t[i].period_us;
		__atomic_store_n(&live->n, s->n, __ATOMIC_RELAXED);
		snprintf(live->scenario, sizeof(live->scenario), "%s", name);
	}
	ret = taskset_run(s, &o, m, &cpu, cause);
	if (ret)
		return ret;
	return json_array_append_new(scens, scenario_json(name, summary, s, m, cpu,
							  lab_ctx_stopped(ctx))) ? -ENOMEM : 0;
}

static int taskset_run_lab(struct lab_ctx *ctx, const struct rt_sink *sink,
			   struct lab_result *out)
{
	struct taskset_params defaults;
	const struct taskset_params *p = ctx->params;
	struct rt_result *res = NULL;
	json_t *scens = json_array();
	char *cause = NULL, what[96];
	uint64_t jobs = 0, misses = 0;
	unsigned int nruns = 0, done = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!p) {
		params_default(&defaults);
		p = &defaults;
	}
	for (size_t i = 0; i < NPRESETS; i++)
		nruns += p->tasks_given ? 0 : (p->scenarios >> i) & 1u;
	nruns += p->tasks_given;
	res = rt_result_new("taskset", ctx->tier ? ctx->tier : "host", ctx->env);
	if (!res || !scens) {
		ret = -ENOMEM;
		goto out;
	}
	ret = lab_seed_record(res, ctx->seed) ?:
	      rt_result_set_param_num(res, "duration_ms", p->duration_ms) ?:
	      rt_result_set_param_str(res, "lock", taskset_lock_names[p->lock]);
	if (!ret && p->tasks_given) {
		snprintf(what, sizeof(what), "custom: %u tasks", p->custom.n);
		rt_sink_progress(sink, 0, what);
		ret = run_one(ctx, p, "custom", "a set given with --tasks", &p->custom, scens,
			      &cause);
		done++;
	}
	for (size_t i = 0; !ret && !p->tasks_given && i < NPRESETS; i++) {
		if (!((p->scenarios >> i) & 1u) || lab_ctx_stopped(ctx))
			continue;
		snprintf(what, sizeof(what), "%s: %u ms", presets[i].name, p->duration_ms);
		rt_sink_progress(sink, done * 100 / nruns, what);
		ret = run_one(ctx, p, presets[i].name, presets[i].summary, &presets[i].spec,
			      scens, &cause);
		done++;
	}
	if (ret)
		goto out;
	out->interrupted = done < nruns || lab_ctx_stopped(ctx);
	for (size_t i = 0; i < json_array_size(scens); i++) {
		jobs += (uint64_t)rt_json_num(json_array_get(scens, i), "jobs_count");
		misses += (uint64_t)rt_json_num(json_array_get(scens, i), "misses_count");
	}
	ret = rt_result_set_summary(res, "jobs_count", (double)jobs) ?:
	      rt_result_set_summary(res, "misses_count", (double)misses) ?:
	      rt_result_add_note(res, "each job spins 97 % of its C on the thread's CPU-time "
				 "clock (CLOCK_THREAD_CPUTIME_ID); the other 3 % is left for "
				 "the kernel's work for the job (wake-up, switches)");
	if (!ret && !(ctx->env && ctx->env->virtual_time))
		ret = noise_note(res, scens);
out:
	return lab_result_finish(out, res, scens, ret, cause, "taskset",
				 "interrupted: the scenarios run until then are kept");
}

/* ---- Views and grade -------------------------------------------------------------- */

/* A task's computed R as a cell: microseconds, or why there is none. */
static json_t *rta_cell(const json_t *t)
{
	const char *v = json_string_value(json_object_get(t, "rta"));

	if (v && !strcmp(v, "meets"))
		return json_real(rt_json_num(t, "rta_response_us") / 1000.0);
	return json_string(v ? v : "");
}

static int taskset_views(const struct rt_result *res, json_t *views, char **cause)
{
	json_t *rows = json_array(), *sets = json_array(), *s, *t;
	size_t i, k;

	(void)cause;
	if (!rows || !sets)
		goto nomem;
	json_array_foreach(rt_result_scenarios(res), i, s) {
		const char *name = json_string_value(json_object_get(s, "name")) ?: "";

		if (json_array_append_new(sets, json_pack("[s, s, f, f, s, f, f]", name,
				json_string_value(json_object_get(s, "lock")) ?: "",
				rt_json_num(s, "utilisation_pct"), rt_json_num(s, "ll_bound_pct"),
				json_is_true(json_object_get(s, "rta_schedulable")) ? "yes" : "no",
				rt_json_num(s, "misses_count"),
				rt_json_num(s, "worst_over_bound_pct"))))
			goto nomem;
		json_array_foreach(json_object_get(s, "tasks"), k, t) {
			if (json_array_append_new(rows, json_pack("[s, i, f, f, f, f, o, f, f, f]",
					name, (int)k + 1, rt_json_num(t, "period_us") / 1000.0,
					rt_json_num(t, "wcet_us") / 1000.0, rt_json_num(t, "priority"),
					rt_json_num(t, "blocking_us") / 1000.0, rta_cell(t),
					rt_json_num(t, "response_max_us") / 1000.0,
					rt_json_num(t, "misses_count"), rt_json_num(t, "jobs_count"))))
				goto nomem;
		}
	}
	/* Units in the titles, not the columns: both tables fit 80 columns. */
	if (json_array_append_new(views, json_pack(
		"{s:s, s:s, s:[{s:s}, {s:s}, {s:s, s:s}, {s:s, s:s}, {s:s, s:s}, {s:s}, "
		"{s:s, s:s}], s:o}", "name", "sets", "title",
		"Task sets: utilisation (%) against Liu & Layland, RTA's verdict", "columns",
		"name", "scenario", "name", "lock", "name", "U", "title", "U %",
		"name", "ll_bound", "title", "LL %", "name", "rta_ok", "title", "RTA ok",
		"name", "misses", "name", "worst_over_bound", "title", "max/R %",
		"rows", sets)))
		goto nomem_rows;
	sets = NULL;
	return json_array_append_new(views, json_pack(
		"{s:s, s:s, s:[{s:s}, {s:s, s:s}, {s:s}, {s:s}, {s:s}, {s:s}, "
		"{s:s}, {s:s}, {s:s}, {s:s}], s:o}",
		"name", "tasks", "title", "Each task (ms): computed worst response R (RTA) against "
		"the measured max", "columns", "name", "scenario", "name", "task", "title", "#",
		"name", "T", "name", "C", "name", "prio", "name", "B", "name", "R",
		"name", "max", "name", "misses", "name", "jobs", "rows", rows)) ? -ENOMEM : 0;
nomem:
	json_decref(sets);
nomem_rows:
	json_decref(rows);
	return -ENOMEM;
}

static int taskset_grade_lacks(const struct rt_result *res, struct rt_buf *missing)
{
	static const char *const needs[] = {
		"ll-above", "rta-miss", "lock-plain", "lock-inherit", "lock-ceiling", NULL,
	};

	return lab_lacks_scenarios(res, needs, missing);
}

static int add(struct grade_report *rep, const char *name, bool pass, const char *detail)
{
	struct grade_check c = { .name = (char *)name, .max_points = 1,
				 .status = pass ? GRADE_PASS : GRADE_FAIL, .detail = (char *)detail };

	return grade_report_append(rep, &c);
}

/*
 * What a whole run shows: the set above the Liu & Layland bound meets every
 * deadline, the one RTA rejects misses, and with a lock the high task's
 * worst response is bounded under inheritance and the ceiling (no misses)
 * and longer under the plain mutex than under either.
 */
static int taskset_grade(const struct lab_result *r, struct grade_report *rep)
{
	const struct rt_result *res = r->res;
	json_t *ll = rt_result_scenario(res, "ll-above"), *miss = rt_result_scenario(res, "rta-miss");
	json_t *plain = rt_result_scenario(res, "lock-plain");
	json_t *pi = rt_result_scenario(res, "lock-inherit");
	json_t *pc = rt_result_scenario(res, "lock-ceiling");
	double hp = rt_json_num(plain, "lock_user_response_max_us");
	int ret;

	ret = add(rep, "ll-above-meets", ll && rt_json_num(ll, "jobs_count") > 0 &&
		  rt_json_num(ll, "misses_count") == 0,
		  "ll-above (utilisation above the Liu & Layland bound, schedulable by RTA) "
		  "missed no deadline");
	if (!ret)
		ret = add(rep, "rta-miss-misses", miss && rt_json_num(miss, "misses_count") > 0,
			  "rta-miss (RTA: the lowest task cannot make it) missed deadlines");
	if (!ret)
		ret = add(rep, "protocols-bound-blocking", pi && pc &&
			  rt_json_num(pi, "jobs_count") > 0 && rt_json_num(pc, "jobs_count") > 0 &&
			  rt_json_num(pi, "misses_count") == 0 && rt_json_num(pc, "misses_count") == 0,
			  "with inheritance and with the ceiling every task met its deadlines");
	if (!ret)
		ret = add(rep, "plain-inverts", plain && pi && pc &&
			  hp > rt_json_num(pi, "lock_user_response_max_us") &&
			  hp > rt_json_num(pc, "lock_user_response_max_us"),
			  "with the plain mutex the high task's worst response was longer than "
			  "with inheritance or the ceiling");
	return ret;
}

static bool taskset_scenario(size_t i, struct lab_scenario *out)
{
	if (i >= NPRESETS)
		return false;
	out->name = presets[i].name;
	out->summary = presets[i].summary;
	return true;
}

/* ---- Declared keys ---------------------------------------------------------------- */

static const char *const rta_words[] = { "meets", "misses", "unbounded", NULL };

static const struct rt_key taskset_params_keys[] = {
	RT_RESULT_SEED_KEY,
	RT_KEY("duration_ms", RT_T_INTEGER, "ms", "how long each scenario releases jobs", false),
	RT_KEY("lock", RT_T_STRING, NULL, "the lock of a --tasks set", false,
	       .values = taskset_lock_names),
	RT_KEY_END,
};
static const struct rt_keys taskset_params_table = { .keys = taskset_params_keys };

static const struct rt_key task_keys[] = {
	RT_KEY("period_us", RT_T_INTEGER, "us", "its period T, also its deadline", true),
	RT_KEY("wcet_us", RT_T_INTEGER, "us", "its execution time C as the analysis takes it",
	       true),
	RT_KEY("cs_us", RT_T_INTEGER, "us", "its time in the lock per job; 0: no lock", true),
	RT_KEY("priority", RT_T_INTEGER, NULL, "its SCHED_FIFO priority (rate monotonic)", true),
	RT_KEY("blocking_us", RT_T_INTEGER, "us", "the blocking term B of its analysis", true),
	RT_KEY("rta", RT_T_STRING, NULL, "the analysis' verdict", true, .values = rta_words),
	RT_KEY("rta_response_us", RT_T_INTEGER, "us", "the computed worst response R; with "
	       "misses, the first iterate past the deadline; absent when unbounded", false),
	RT_KEY("jobs_count", RT_T_INTEGER, "count", "jobs that ran", true),
	RT_KEY("response_max_us", RT_T_NUMBER, "us", "the measured worst response", true),
	RT_KEY("response_avg_us", RT_T_NUMBER, "us", "the mean response", true),
	RT_KEY("misses_count", RT_T_INTEGER, "count", "jobs that ended past their deadline",
	       true),
	RT_KEY_END,
};
static const struct rt_keys task_table = { .keys = task_keys };

static const struct rt_key taskset_scenario_keys[] = {
	RT_RESULT_SCENARIO_NAME_KEYS,
	RT_KEY("lock", RT_T_STRING, NULL, "the shared lock's protocol", true,
	       .values = taskset_lock_names),
	RT_KEY("utilisation_pct", RT_T_NUMBER, "pct", "sum of C / T", true),
	RT_KEY("ll_bound_pct", RT_T_NUMBER, "pct", "Liu & Layland's bound n (2^(1/n) - 1)",
	       true),
	RT_KEY("rta_schedulable", RT_T_BOOL, NULL, "RTA proves every task meets its deadline",
	       true),
	RT_KEY("jobs_count", RT_T_INTEGER, "count", "jobs of every task", true),
	RT_KEY("misses_count", RT_T_INTEGER, "count", "deadlines missed by any task", true),
	RT_KEY("worst_over_bound_pct", RT_T_NUMBER, "pct", "the largest measured worst "
	       "response over its computed R, among tasks RTA bounds (100: at the bound)", true),
	RT_KEY("lowest_response_max_us", RT_T_NUMBER, "us", "the lowest-priority task's "
	       "measured worst response", true),
	RT_KEY("lock_user_response_max_us", RT_T_NUMBER, "us", "the highest lock user's "
	       "measured worst response; absent without a lock", false),
	RT_KEY("cpu_count", RT_T_INTEGER, "count", "the CPU the tasks were pinned to", true),
	RT_KEY("interrupted", RT_T_BOOL, NULL, "the run was stopped during the scenario", true),
	RT_KEY("tasks", RT_T_ARRAY, NULL, "each task, highest priority first", true,
	       .of = &task_table),
	RT_KEY_END,
};
static const struct rt_keys taskset_scenario_table = { .keys = taskset_scenario_keys };

static const char *const taskset_questions[] = { "ll-sufficient", "plain-vs-ceiling", NULL };

const struct lab_ops lab_taskset = {
	.name = "taskset",
	.title = "Will my task set meet its deadlines?",
	.summary = "Periodic SCHED_FIFO tasks on one CPU: each task's worst response computed "
		   "by response-time analysis beside the measured one, the Liu & Layland "
		   "bound, and a shared lock plain, inheriting or with a priority ceiling.",
	.lesson = 15,
	.state = LAB_STATE_READY,
	.needs = LAB_NEED_RT_PRIO,
	.vm_live = true,
	.check_capabilities = taskset_check_caps,
	.run = taskset_run_lab,
	.views = taskset_views,
	.grade = taskset_grade,
	.grade_lacks = taskset_grade_lacks,
	.scenario = taskset_scenario,
	.questions = taskset_questions,
	.options = taskset_options,
	.options_note = "The tasks are SCHED_FIFO threads (root or CAP_SYS_NICE) pinned to "
			"one CPU and released together (the critical instant); a job spins "
			"97 % of its C on its thread's CPU-time clock. The seed changes "
			"nothing.",
	.params_size = sizeof(struct taskset_params),
	.params_init = params_default,
	.params_check = params_check,
	.params_keys = &taskset_params_table,
	.scenario_keys = &taskset_scenario_table,
};
