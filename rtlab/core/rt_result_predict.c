/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_result_predict: the learner's predictions in a results document
 * (extra.predictions), one entry per predict question of the lessons about
 * the lab: what the learner guessed, what the run measured, and whether the
 * run is the one the question means. The run session writes them and the
 * renderers and the grade read them, all through these functions; the keys
 * are declared in rt_result_keys.c.
 */
#include "rt_result.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

static json_t *predictions(const struct rt_result *res)
{
	json_t *p = json_object_get(json_object_get(rt_result_json(res), "extra"),
				    "predictions");

	return json_is_array(p) ? p : NULL;
}

int rt_result_reset_predictions(struct rt_result *res)
{
	json_t *extra = rt_result_extra(res);

	return extra && !json_object_set_new(extra, "predictions", json_array()) ? 0 : -ENOMEM;
}

size_t rt_result_prediction_count(const struct rt_result *res)
{
	return json_array_size(predictions(res));
}

static double number_or_nan(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *text(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

int rt_result_prediction(const struct rt_result *res, size_t i,
			 struct rt_result_prediction *out)
{
	json_t *p = json_array_get(predictions(res), i);

	if (!json_is_object(p))
		return -ENOENT;
	*out = (struct rt_result_prediction){
		.answer_key = text(p, "answer_key"),
		.lesson = text(p, "lesson"),
		.id = text(p, "id"),
		.scenario = text(p, "scenario"),
		.metric = text(p, "metric"),
		.unit = text(p, "unit"),
		.other_run = json_string_value(json_object_get(p, "other_run")),
		.predicted = number_or_nan(json_object_get(p, "predicted")),
		.measured = number_or_nan(json_object_get(p, "measured")),
	};
	return 0;
}

static json_t *number_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

int rt_result_add_prediction(struct rt_result *res, const struct rt_result_prediction *p)
{
	json_t *o, *arr = predictions(res);

	if (!arr) {
		if (rt_result_reset_predictions(res))
			return -ENOMEM;
		arr = predictions(res);
	}
	o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o}", "answer_key",
		      p->answer_key ? p->answer_key : "", "lesson", p->lesson ? p->lesson : "",
		      "id", p->id ? p->id : "", "scenario", p->scenario ? p->scenario : "",
		      "metric", p->metric ? p->metric : "", "unit", p->unit ? p->unit : "",
		      "predicted", number_or_null(p->predicted),
		      "measured", number_or_null(p->measured));
	if (!o)
		return -ENOMEM;
	if (p->other_run && json_object_set_new(o, "other_run", json_string(p->other_run))) {
		json_decref(o);
		return -ENOMEM;
	}
	return json_array_append_new(arr, o) ? -ENOMEM : 0;
}
