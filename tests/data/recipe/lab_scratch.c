/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_scratch: the smallest lab the recipe of doc/architecture.md allows,
 * for tests/cli/recipe.t, which copies the tree, drops this file into
 * rtlab/labs/, adds X(scratch) to LABS and nothing else, and checks that
 * the lab reaches every front end. It counts to its seed's last digit.
 */
#include "lab.h"

#include <errno.h>
#include <jansson.h>

#include "core/rt_result.h"

static int scratch_run(struct lab_ctx *ctx, const struct rt_sink *sink, struct lab_result *out)
{
	json_t *scens = json_array();
	int ret;

	(void)sink;
	out->res = rt_result_new("scratch", "simulation", ctx->env);
	if (!out->res || !scens ||
	    json_array_append_new(scens, json_pack("{s:s, s:s, s:I}", "name", "count",
						   "summary", "counts to the seed's last digit",
						   "steps_count", (json_int_t)(ctx->seed % 10)))) {
		json_decref(scens);
		return -ENOMEM;
	}
	ret = rt_result_set_scenarios(out->res, scens);
	json_decref(scens);
	return ret ?: lab_seed_record(out->res, ctx->seed) ?:
	       rt_result_add_note(out->res, "SIMULATED: a scratch lab of the recipe's test");
}

static int scratch_views(const struct rt_result *res, json_t *views, char **cause)
{
	json_t *s = rt_result_scenario(res, "count");

	(void)cause;
	return json_array_append_new(views, json_pack(
		"{s:s, s:s, s:[{s:s}, {s:s}], s:[[s, I]]}", "name", "counted",
		"title", "Scratch lab: what was counted", "columns", "name", "scenario",
		"name", "steps", "rows", "count",
		json_integer_value(json_object_get(s, "steps_count")))) ? -ENOMEM : 0;
}

static int scratch_grade(const struct lab_result *r, struct grade_report *rep)
{
	return grade_report_add(rep, "counted", rt_result_scenario(r->res, "count") != NULL,
				"the count scenario ran");
}

static bool scratch_scenario(size_t i, struct lab_scenario *out)
{
	if (i)
		return false;
	out->name = "count";
	out->summary = "counts to the seed's last digit";
	return true;
}

const struct lab_ops lab_scratch = {
	.name = "scratch",
	.title = "A scratch lab of the recipe",
	.summary = "Counts to its seed's last digit: the recipe's test lab.",
	.state = LAB_STATE_READY,
	.sim = true,
	.sim_only = true,
	.run = scratch_run,
	.views = scratch_views,
	.grade = scratch_grade,
	.scenario = scratch_scenario,
};
