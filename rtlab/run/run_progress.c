/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * run_progress: what a run's document takes from outside the lab: the
 * learner's predictions (predict questions in the lessons, answered in the
 * progress file), the written answers to the handout's questions, and the
 * lab's views of its own outcome.
 *
 * This is the same for every lab, so no lab does it: a predict question
 * names a lab, a scenario and a metric (lessons/FORMAT.md), and the lab's
 * document has that scenario's figures in extra.scenarios, an array of
 * objects each with a "name". A lab whose scenarios a question names plugs
 * in without code.
 */
#include "run.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_log.h"
#include "core/rt_progress.h"
#include "core/rt_result.h"
#include "report/report.h"
#include "lesson/lesson_predict.h"
#include "lesson/quiz.h"

/* @v as a `when` value reads it (quiz_when_next()); false: not a scalar or array of them. */
static bool when_text(json_t *v, char *buf, size_t size)
{
	size_t i, len = 0;
	json_t *e;

	buf[0] = '\0';
	if (json_is_string(v))
		return (size_t)snprintf(buf, size, "%s", json_string_value(v)) < size;
	if (json_is_boolean(v))
		return (size_t)snprintf(buf, size, "%s", json_is_true(v) ? "true" : "false") < size;
	if (json_is_number(v))
		return (size_t)snprintf(buf, size, "%.15g", json_number_value(v)) < size;
	if (!json_is_array(v))
		return false;
	json_array_foreach(v, i, e) {
		char one[128];

		if (json_is_array(e) || !when_text(e, one, sizeof(one)) ||
		    (len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? " " : "", one)) >=
		    size)
			return false;
	}
	return true;
}

/*
 * Is @res the run @q means? A question's `when` names the run's params and
 * env it is about (lesson 09's crash at 1 ms, lesson 02's 100 us spike
 * deadline); a run of the same scenario made otherwise is not compared.
 * False with @why saying what differs.
 */
static bool when_holds(const struct rt_result *res, const struct lesson_predict_q *q,
		       char *why, size_t size)
{
	struct quiz_when_cond c;
	const char *w = q->when;
	int r;

	while (w && (r = quiz_when_next(&w, &c)) > 0) {
		json_t *obj = !strcmp(c.section, "scenario") ? rt_result_scenario(res, q->scenario) :
			      json_object_get(rt_result_json(res), c.section);
		json_t *v = json_object_get(obj, c.key);
		char have[128];
		double a, b;
		bool same;

		if (!v || !when_text(v, have, sizeof(have))) {
			snprintf(why, size, "not the run it means: %s.%s=%s (this run: none)",
				 c.section, c.key, c.value);
			return false;
		}
		same = !strcmp(have, c.value) ||
		       (json_is_number(v) && !quiz_parse_number(c.value, &b) &&
			fabs((a = json_number_value(v)) - b) <= 1e-9 * fmax(1.0, fabs(b)));
		if (!same) {
			snprintf(why, size, "not the run it means: %s.%s=%s (this run: %s)",
				 c.section, c.key, c.value, have);
			return false;
		}
	}
	return true;
}

/* One predict question's line in extra.predictions, and its answer key. */
static int add_prediction(struct rt_result *res, const struct rt_progress *prog,
			  const struct lesson_predict_q *q)
{
	struct rt_progress_prediction pr;
	char key[RT_RESULT_MAX_KEY + 1], why[400];
	struct rt_result_prediction p = {
		.answer_key = key, .lesson = q->lesson, .id = q->id, .scenario = q->scenario,
		.metric = q->metric, .unit = q->unit ? q->unit : "", .predicted = NAN,
	};
	bool have;
	int ret;

	have = prog && rt_progress_prediction_get(prog, q->lesson, q->id, &pr) == 0;
	if (have)
		p.predicted = pr.value;
	snprintf(key, sizeof(key), "predict.%s.%s", q->lesson, q->id);
	p.measured = rt_result_scenario_num(res, q->scenario, q->metric);
	if (q->when && !isnan(p.measured) && !when_holds(res, q, why, sizeof(why))) {
		p.measured = NAN;
		p.other_run = why;
	}
	ret = rt_result_add_prediction(res, &p);
	if (ret)
		return ret;
	return have ? rt_result_set_answer_num(res, key, pr.value) : 0;
}

/* Every predict question about @lab in the lessons into extra.predictions. */
static int add_predictions(struct rt_result *res, const char *lab,
			   const struct rt_progress *prog)
{
	struct lesson_predict_q *qs = NULL;
	char *cause = NULL;
	size_t n = 0;
	int ret = 0;

	if (lesson_predict_list(lab, &qs, &n, &cause) < 0) {
		free(cause);
		return rt_result_add_note(res, "the lessons were not found: the predict "
					  "questions could not be listed");
	}
	for (size_t i = 0; !ret && i < n; i++)
		if (qs[i].scenario && qs[i].metric)
			ret = add_prediction(res, prog, &qs[i]);
	lesson_predict_list_free(qs, n);
	return ret;
}

/* The handout's written answers, kept in the progress file as labs.<lab>.answers.<id>. */
static int add_answers(struct rt_result *res, const struct lab_ops *lab,
		       const struct rt_progress *prog)
{
	int ret = 0;

	for (const char *const *q = lab->questions; q && *q && !ret; q++) {
		const char *text = lab_answer_text(prog, lab->name, *q);

		if (text)
			ret = rt_result_set_answer_str(res, *q, text);
	}
	return ret;
}

int run_copy_progress(struct rt_result *res, const struct lab_ops *lab,
		      const char *progress_path)
{
	struct rt_progress *prog = NULL;
	char *cause = NULL;
	int ret;

	ret = rt_result_reset_predictions(res);
	if (ret)
		return ret;
	if (rt_progress_load(progress_path, &prog, &cause) < 0) {
		rt_log(RT_LOG_WARN, "%s: progress not read, predictions and answers not copied: "
		       "%s", lab->name, cause ? cause : "unknown error");
		free(cause);
		prog = NULL;
		ret = rt_result_add_note(res, "the progress file could not be read: predictions "
					 "and written answers were not copied");
		if (ret)
			goto out;
	}
	ret = add_predictions(res, lab->name, prog);
	if (!ret && prog)
		ret = add_answers(res, lab, prog);
out:
	rt_progress_free(prog);
	return ret;
}

int run_add_views(struct rt_result *res, const struct lab_ops *lab, char **cause)
{
	json_t *views, *v;
	size_t i;
	int ret;

	if (rt_result_saved_views(res))
		return 0;
	ret = report_views(res, lab, &views, cause);
	json_array_foreach(views, i, v) {
		if (ret)
			break;
		ret = rt_result_add_view(res, json_incref(v), cause);
	}
	json_decref(views);
	/* All or none: a document with some of its views would be drawn without the rest. */
	if (ret)
		json_object_del(rt_result_json(res), "views");
	return ret;
}
