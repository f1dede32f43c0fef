/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_result_keys: the keys of rtlab.result/2 (and /1) declared once. The
 * writer's layout (rt_result_write.c) puts them in this order, the
 * validator (rt_result_check.c) refuses a key these tables do not know in
 * the document's version, and `rtlab schema rtlab.result/2` prints the JSON
 * Schema made from them (doc/schema/). Each lab adds its own params and
 * scenario figures on top (lab_ops.keys, rt_result_schema()).
 */
#include "rt_result.h"

#include <errno.h>
#include <string.h>

#include "rt_keys.h"
#include "rt_result-int.h"

const char *const rt_result_tiers[] = { "host", "vm", "simulation", NULL };
const char *const rt_result_units[] = { "us", "ns", "ms", "s", "count", "pct", "ratio",
					"hz", "bytes", NULL };
const char *const rt_result_preempt_models[] = { "none", "voluntary", "full", "lazy", "rt",
						 "unknown", NULL };
const char *const rt_result_times[] = { "real", "virtual", NULL };

/* A parameter, answer, histogram, view or column name. */
#define NAME_PATTERN	"^[A-Za-z0-9_.-]{1,64}$"
/* A summary key: lower case, ending in its unit (rt_result_units). */
#define SUMMARY_PATTERN	"^(?=.{1,64}$)[a-z][a-z0-9_]*_(us|ns|ms|s|count|pct|ratio|hz|bytes)$"
#define TIME_PATTERN	"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?Z$"

static const struct rt_key env_keys[] = {
	RT_KEY("kernel_release", RT_T_STRING, NULL, "`uname -r`", true),
	RT_KEY("kernel_version", RT_T_STRING, NULL, "`uname -v`, e.g. `\"#1 SMP PREEMPT_RT ...\"`",
	  true),
	RT_KEY("machine", RT_T_STRING, NULL, "`uname -m`", true),
	RT_KEY("preempt_model", RT_T_STRING, NULL, "the kernel's preemption model", true,
	  .values = rt_result_preempt_models),
	RT_KEY("preempt_source", RT_T_STRING, NULL,
	  "where `preempt_model` came from, e.g. `\"uname -v\"`", false),
	RT_KEY("realtime", RT_T_BOOL, NULL, "a PREEMPT_RT kernel", true),
	RT_KEY("in_vm", RT_T_BOOL, NULL, "running inside a virtual machine", true),
	RT_KEY("vm_type", RT_T_STRING | RT_T_NULL, NULL,
	  "e.g. `\"KVM\"`, `\"QEMU TCG\"`; null exactly when `in_vm` is false", true),
	RT_KEY("cpus", RT_T_INTEGER, "count", "online CPUs (0 .. 65536)", true,
	  .min = 0, .max = RT_RESULT_MAX_CPUS),
	RT_KEY("root", RT_T_BOOL, NULL, "the run had effective uid 0", true),
	RT_KEY("time", RT_T_STRING, NULL,
	  "`virtual`: measured in the classroom VM's virtual time; absent or `real`: real time",
	  false, .values = rt_result_times),
	RT_KEY_END,
};

static const struct rt_keys env_table = { .keys = env_keys };

static const struct rt_key no_keys[] = { RT_KEY_END };

static const struct rt_key scalar_param =
	RT_KEY(NULL, RT_T_SCALAR | RT_T_ARRAY, NULL,
	       "a string, a finite number, a boolean, or an array of those", false,
	       .items = RT_T_SCALAR);
static const struct rt_keys params_table = {
	.keys = no_keys, .others = &scalar_param, .others_pattern = NAME_PATTERN,
};

static const struct rt_key summary_value =
	RT_KEY(NULL, RT_T_NUMBER, NULL, "a finite number in the unit its key ends in", false,
	       .min = -RT_RESULT_MAX_MAGNITUDE, .max = RT_RESULT_MAX_MAGNITUDE);
static const struct rt_keys summary_table = {
	.keys = no_keys, .others = &summary_value, .others_pattern = SUMMARY_PATTERN,
};

static const struct rt_key hist_keys[] = {
	RT_KEY("name", RT_T_STRING, NULL, "unique within the document, e.g. `\"cpu0\"`", true,
	  .pattern = NAME_PATTERN),
	RT_KEY("unit", RT_T_STRING, NULL, "the unit of the bucket edges", true,
	  .values = rt_result_units),
	RT_KEY("bucket_width", RT_T_NUMBER, NULL, "width of every bucket (0 < width <= 1e6)", true),
	RT_KEY("first_bucket", RT_T_NUMBER, NULL, "lower edge of `counts[0]` (+-1e9)", true,
	  .min = -RT_RESULT_MAX_FIRST, .max = RT_RESULT_MAX_FIRST),
	RT_KEY("counts", RT_T_ARRAY, "count", "samples per bucket: 1 to 1,000,000 buckets", true,
	  .items = RT_T_INTEGER),
	RT_KEY("overflow_count", RT_T_INTEGER, "count",
	  "samples at or beyond the upper edge of the last bucket", true),
	RT_KEY("overflow_buckets", RT_T_ARRAY, NULL,
	  "`[lower, upper, count]` of each occupied bucket beyond the linear ones, ascending",
	  false, .since = 2, .items = RT_T_ARRAY),
	RT_KEY("overflow_cycles", RT_T_ARRAY, "count",
	  "cycle numbers of (some of) the overflowing samples", false, .items = RT_T_INTEGER),
	RT_KEY_END,
};

const struct rt_keys rt_result_hist_keys = { .keys = hist_keys };

static const struct rt_key column_keys[] = {
	RT_KEY("name", RT_T_STRING, NULL, "unique in the view", true, .pattern = NAME_PATTERN),
	RT_KEY("title", RT_T_STRING, NULL, "1..128 bytes; the name is shown without one", false),
	RT_KEY("unit", RT_T_STRING, NULL, "the unit of the column's numbers", false,
	  .values = rt_result_units),
	RT_KEY_END,
};

const struct rt_keys rt_result_column_keys = { .keys = column_keys };

static const struct rt_key view_keys[] = {
	RT_KEY("name", RT_T_STRING, NULL, "unique among the views", true, .pattern = NAME_PATTERN),
	RT_KEY("title", RT_T_STRING, NULL, "1..256 bytes, the table's heading", true),
	RT_KEY("columns", RT_T_ARRAY, NULL, "1 to 64 columns", true,
	  .of = &rt_result_column_keys),
	RT_KEY("rows", RT_T_ARRAY, NULL,
	  "at most 10,000 rows of one cell per column: a string, a number, a boolean or null",
	  true, .items = RT_T_ARRAY),
	RT_KEY_END,
};

const struct rt_keys rt_result_view_keys = { .keys = view_keys };

static const struct rt_key integrity_keys[] = {
	RT_KEY("algorithm", RT_T_STRING, NULL, "`sha256` is the one defined now", true,
	  .pattern = "^[a-z0-9-]{1,32}$"),
	RT_KEY("value", RT_T_STRING, NULL, "the digest of the canonical text in lower-case hex", true,
	  .pattern = "^[0-9a-f]{16,128}$"),
	RT_KEY_END,
};

const struct rt_keys rt_result_integrity_keys = { .keys = integrity_keys };

static const struct rt_key answer_value =
	RT_KEY(NULL, RT_T_STRING | RT_T_NUMBER, NULL, "the learner's answer: a string or a number",
	       false);
static const struct rt_keys answers_table = {
	.keys = no_keys, .others = &answer_value, .others_pattern = NAME_PATTERN,
};

static const struct rt_key any_figure =
	RT_KEY(NULL, 0, NULL, "the scenario's figures, each under a key that ends in its unit",
	       false);
static const struct rt_key scenario_keys[] = {
	RT_KEY("name", RT_T_STRING, NULL, "the scenario's name, a slug of `a-z 0-9 -`", true,
	  .pattern = "^[a-z0-9-]+$"),
	RT_KEY("summary", RT_T_STRING, NULL, "one sentence for people", false),
	RT_KEY_END,
};

const struct rt_keys rt_result_scenario_keys = {
	.keys = scenario_keys, .others = &any_figure,
};

static const struct rt_key prediction_keys[] = {
	RT_KEY("answer_key", RT_T_STRING, NULL, "`predict.<lesson>.<id>`, its key in `answers`",
	  true),
	RT_KEY("lesson", RT_T_STRING, NULL, "the lesson the question is in", true),
	RT_KEY("id", RT_T_STRING, NULL, "the question's id in its lesson", true),
	RT_KEY("scenario", RT_T_STRING, NULL, "the scenario it asks about", true),
	RT_KEY("metric", RT_T_STRING, NULL, "the scenario's figure it asks about", true),
	RT_KEY("unit", RT_T_STRING, NULL, "the figure's unit, empty for none", true),
	RT_KEY("predicted", RT_T_NUMBER | RT_T_NULL, NULL, "the learner's guess; null: none yet",
	  true),
	RT_KEY("measured", RT_T_NUMBER | RT_T_NULL, NULL,
	  "the run's figure; null: not measured, or not the run the question means", true),
	RT_KEY("other_run", RT_T_STRING, NULL,
	  "why this run is not the one the question means (its `when:` does not hold)", false),
	RT_KEY_END,
};

static const struct rt_keys prediction_table = { .keys = prediction_keys };

static const struct rt_key extra_keys[] = {
	RT_KEY("scenarios", RT_T_ARRAY, NULL, "the lab's named scenarios and their figures", false,
	  .of = &rt_result_scenario_keys),
	RT_KEY("predictions", RT_T_ARRAY, NULL,
	  "the learner's predictions about this lab, from the lessons", false,
	  .of = &prediction_table),
	RT_KEY_END,
};
static const struct rt_key any_extra = RT_KEY(NULL, 0, NULL, "lab-specific detail", false);
static const struct rt_keys extra_table = { .keys = extra_keys, .others = &any_extra };

static const struct rt_key top_keys[] = {
	RT_KEY("schema", RT_T_STRING, NULL, "`rtlab.result/2` (a reader also accepts `rtlab.result/1`)",
	  true),
	RT_KEY("lab", RT_T_STRING, NULL, "a lab name from the lab table (`rtlab lab list`)", true,
	  .pattern = "^[a-z][a-z0-9-]{0,63}$"),
	RT_KEY("tier", RT_T_STRING, NULL, "where the run happened", true, .values = rt_result_tiers),
	RT_KEY("simulated", RT_T_BOOL, NULL, "true exactly when `tier` is `simulation`", true),
	RT_KEY("created", RT_T_STRING, NULL, "RFC 3339 time in UTC, ending in `Z`", true,
	  .pattern = TIME_PATTERN),
	RT_KEY("rtlab_version", RT_T_STRING, NULL, "the rtlab release that wrote the file", true),
	RT_KEY("env", RT_T_OBJECT, NULL, "the system the run happened on", true, .of = &env_table),
	RT_KEY("params", RT_T_OBJECT, NULL, "the lab's parameters", true, .of = &params_table),
	RT_KEY("summary", RT_T_OBJECT, NULL, "named numbers, each key ending in its unit", true,
	  .of = &summary_table),
	RT_KEY("histograms", RT_T_ARRAY, NULL, "zero to 256 histograms", true,
	  .of = &rt_result_hist_keys),
	RT_KEY("answers", RT_T_OBJECT, NULL, "the learner's answers, by question id", true,
	  .of = &answers_table),
	RT_KEY("notes", RT_T_ARRAY, NULL, "remarks for the reader, at most 1000", false,
	  .items = RT_T_STRING),
	RT_KEY("views", RT_T_ARRAY, NULL, "tables for people, at most 32", false, .since = 2,
	  .of = &rt_result_view_keys),
	RT_KEY("extra", RT_T_OBJECT, NULL, "lab-specific detail, nested at most 32 levels", false,
	  .of = &extra_table),
	RT_KEY("integrity", RT_T_OBJECT, NULL, "a digest of the rest of the document", false,
	  .since = 2, .of = &rt_result_integrity_keys),
	RT_KEY_END,
};

const struct rt_keys rt_result_top_keys = { .keys = top_keys };
const struct rt_keys rt_result_env_keys = { .keys = env_keys };

/* The schema of @lab's own keys: its params and its scenarios' figures. */
static json_t *lab_clause(const struct rt_result_lab_keys *lab)
{
	json_t *then = json_pack("{s:{}}", "properties"), *props, *v;

	if (!then)
		return NULL;
	props = json_object_get(then, "properties");
	if (lab->params) {
		v = rt_keys_schema(lab->params, 0);
		if (!v || json_object_set_new(props, "params", v))
			goto fail;
	}
	if (lab->scenario) {
		v = json_pack("{s:{s:{s:s, s:o}}}", "properties", "scenarios", "type", "array",
			      "items", rt_keys_schema(lab->scenario, 0));
		if (!v || json_object_set_new(props, "extra", v))
			goto fail;
	}
	return json_pack("{s:{s:{s:{s:s}}}, s:o}", "if", "properties", "lab", "const",
			 lab->lab, "then", then);
fail:
	json_decref(then);
	return NULL;
}

json_t *rt_result_schema(unsigned int version, const struct rt_result_lab_keys *labs,
			 size_t nlabs)
{
	const char *name = version == 1 ? RT_RESULT_SCHEMA_V1 : RT_RESULT_SCHEMA;
	json_t *doc = rt_keys_document(name, "rtlab results document (one lab run)",
				       &rt_result_top_keys, version);
	json_t *all = json_array();

	for (size_t i = 0; doc && all && i < nlabs; i++)
		if (labs[i].params || labs[i].scenario)
			if (json_array_append_new(all, lab_clause(&labs[i])))
				goto fail;
	if (!doc || !all)
		goto fail;
	if (json_array_size(all) && json_object_set_new(doc, "allOf", all))
		goto fail_doc;
	if (!json_array_size(all))
		json_decref(all);
	return doc;
fail:
	json_decref(all);
fail_doc:
	json_decref(doc);
	errno = ENOMEM;
	return NULL;
}
