/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_outcome: one learner's grade for one lab (see the header): the
 * results-document and quiz parts, and the rtlab.grade/1 JSON every front
 * end prints from.
 */
#include "grade_outcome.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_err.h"
#include "core/rt_progress.h"
#include "core/rt_result.h"
#include "core/rt_text.h"
#include "lesson/lesson_doc.h"
#include "lesson/lesson_index.h"
#include "lesson/quiz.h"
#include "lesson/quiz_input.h"

void grade_outcome_fini(struct grade_outcome *o)
{
	if (!o)
		return;
	free(o->lab);
	free(o->title);
	free(o->student);
	free(o->work);
	free(o->result);
	free(o->tier);
	free(o->build_log);
	free(o->sandbox);
	free(o->error);
	free(o->notes);
	free(o->results_sha256);
	free(o->code_print);
	grade_report_fini(&o->rep);
	memset(o, 0, sizeof(*o));
}

int grade_outcome_note(struct grade_outcome *o, const char *fmt, ...)
{
	char *line = NULL, *all = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	for (char *p = line; *p; p++)
		if (*p == '\n')
			*p = ' ';
	n = asprintf(&all, "%s%s%s", o->notes ? o->notes : "", o->notes ? "\n" : "", line);
	free(line);
	if (n < 0)
		return -ENOMEM;
	free(o->notes);
	o->notes = all;
	return 0;
}

int grade_outcome_add_part(struct grade_outcome *o, const struct grade_report *rep,
			   const char *part)
{
	for (size_t i = 0; i < rep->nchecks; i++) {
		struct grade_check c = rep->checks[i];
		int ret;

		c.part = (char *)part;
		ret = grade_report_append(&o->rep, &c);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- The results document ------------------------------------------------------- */

int grade_outcome_add_document(struct grade_outcome *o, const char *path, char **cause)
{
	struct grade_report rep = { 0 };
	struct lab_result lr = { 0 };
	const struct lab_ops *lab;
	char *why = NULL;
	int ret, seal;

	ret = rt_result_read(path, &(struct rt_result_opts){ lab_names() }, &lr.res, cause);
	if (ret)
		return ret;
	lab = lab_find(rt_result_lab(lr.res));
	if (o->lab && strcmp(o->lab, rt_result_lab(lr.res))) {
		ret = rt_err(cause, -EINVAL, "%s is a results document of the %s lab, not of %s",
			     path, rt_result_lab(lr.res), o->lab);
		goto out;
	}
	if (!lab || !lab->grade) {
		ret = rt_err(cause, -ENOTSUP, "the %s lab has no grader yet (it is %s)",
			     rt_result_lab(lr.res), lab ? lab_state_name(lab->state) : "unknown");
		goto out;
	}
	if (!o->lab && !(o->lab = strdup(lab->name))) {
		ret = -ENOMEM;
		goto out;
	}
	ret = lab->grade(&lr, &rep);
	if (ret) {
		ret = rt_err(cause, ret, "%s could not be graded (%s)", path, strerror(-ret));
		goto out;
	}
	seal = rt_result_integrity_verify(lr.res, &why);
	if (seal == -ENOMEM) {
		ret = -ENOMEM;
		goto out;
	}
	ret = grade_report_append(&o->rep, &(struct grade_check){ .name = "integrity",
		.status = seal ? GRADE_FAIL : GRADE_PASS, .max_points = 1, .part = "results",
		.detail = seal ? why : "the document is as rtlab wrote it",
		.hint = seal ? "grade the document rtlab saved, as it is: run the lab again "
			       "rather than editing a measurement" : NULL });
	for (size_t i = 0; !ret && i < rep.nchecks; i++) {
		struct grade_check c = rep.checks[i];
		char *d = NULL;

		/* An edited document's checks are not counted, whatever they say. */
		if (seal && asprintf(&d, "not counted, the document failed its checksum (%s)",
				     c.detail) < 0) {
			ret = -ENOMEM;
			break;
		}
		if (seal) {
			c.status = GRADE_FAIL;
			c.detail = d;
		}
		c.part = "results";
		ret = grade_report_append(&o->rep, &c);
		free(d);
	}
	if (ret)
		goto out;
	free(o->result);
	free(o->tier);
	o->result = strdup(path);
	o->tier = strdup(rt_result_tier(lr.res));
	ret = o->result && o->tier ? 0 : -ENOMEM;
out:
	free(why);
	grade_report_fini(&rep);
	lab_result_fini(&lr);
	return ret;
}

/* ---- The quiz ------------------------------------------------------------------------ */

/* @text, a stored answer, is right for @q by the lesson's own key. */
static bool answer_right(const struct quiz *q, const char *text)
{
	struct quiz_input in;
	struct quiz_verdict v;

	if (quiz_input_parse(q, text, &in, NULL))
		return false;
	return !quiz_check_answer(q, &in.answer, &v) && v.correct;
}

int grade_outcome_add_quiz(struct grade_outcome *o, const char *progress, char **cause)
{
	const struct lab_ops *lab = o->lab ? lab_find(o->lab) : NULL;
	const struct lesson_entry *e;
	struct lesson_index *idx = NULL;
	struct lesson_doc *doc = NULL;
	struct rt_progress *p = NULL;
	char id[16];
	int ret = 0;

	if (!lab || lab->lesson <= 0)
		return 0;
	idx = lesson_index_load(cause);
	if (!idx)
		return -errno;
	e = lesson_index_find(idx, (unsigned int)lab->lesson);
	if (!e || e->problem)
		goto out;
	ret = lesson_doc_load(e->path, &doc, cause);
	if (ret)
		goto out;
	ret = rt_progress_load(progress, &p, cause);
	if (ret)
		goto out;
	snprintf(id, sizeof(id), "%02d", lab->lesson);
	/* A whole lab's grade: a quiz never touched is a part not handed in ("missing"). */
	if (o->weighted) {
		bool any = false;

		for (size_t i = 0; i < doc->nquizzes; i++) {
			struct rt_progress_quiz rq;

			any |= doc->quizzes[i]->kind != QUIZ_PREDICT &&
			       !rt_progress_quiz_get(p, id, doc->quizzes[i]->id, &rq);
		}
		if (!any)
			goto out;
	}
	for (size_t i = 0; !ret && i < doc->nquizzes; i++) {
		const struct quiz *q = doc->quizzes[i];
		struct rt_progress_quiz rq;
		char *name = NULL, *detail = NULL, *hint = NULL;
		bool have, right;

		if (q->kind == QUIZ_PREDICT)
			continue;
		have = !rt_progress_quiz_get(p, id, q->id, &rq);
		/*
		 * Scored again from the stored answer against the lesson's key: the
		 * stored score is the learner's file, and a file can be edited.
		 */
		right = have && rq.answer && answer_right(q, rq.answer);
		if (asprintf(&name, "quiz-%s", q->id) < 0)
			name = NULL;
		if (asprintf(&detail, !have ? "not answered yet" : right ?
			     "answered right (%u attempt%s)" : "the last answer is not right "
			     "(%u attempt%s)", have ? rq.attempts : 0,
			     have && rq.attempts == 1 ? "" : "s") < 0)
			detail = NULL;
		if (asprintf(&hint, "reread lesson %s and answer it again: rtlab quiz %s", id, id) < 0)
			hint = NULL;
		ret = name && detail && hint ? grade_report_append(&o->rep, &(struct grade_check){
			.name = name, .status = right ? GRADE_PASS : GRADE_FAIL, .max_points = 1,
			.detail = detail, .hint = right ? NULL : hint, .part = "quiz" }) : -ENOMEM;
		free(name);
		free(detail);
		free(hint);
	}
out:
	rt_progress_free(p);
	lesson_doc_free(doc);
	lesson_index_free(idx);
	return ret;
}

/* ---- JSON -------------------------------------------------------------------------- */

/* @s as a JSON string, its bytes escaped when they are not valid UTF-8; null for NULL. */
static json_t *str_or_null(const char *s)
{
	struct rt_buf b;
	json_t *j;

	if (!s)
		return json_null();
	j = json_string(s);
	if (j)
		return j;
	rt_buf_init(&b);
	if (!rt_text_escape(&b, s, strlen(s), RT_TEXT_KEEP_NL) && !rt_buf_puts(&b, ""))
		j = json_string(rt_buf_str(&b));
	rt_buf_fini(&b);
	return j;
}

static double round1(double v)
{
	return round(v * 10.0) / 10.0;
}

static const char *status_name(enum grade_status s)
{
	return s == GRADE_PASS ? "pass" : s == GRADE_SKIP ? "skip" : s == GRADE_REVIEW ? "review" :
	       "fail";
}

void grade_outcome_weigh(struct grade_outcome *o, const unsigned int weights[3])
{
	o->weighted = true;
	memcpy(o->weights, weights, sizeof(o->weights));
}

/* The score of a part: its points over its possible points, or -1 when nothing counted. */
static double part_score(const json_t *p)
{
	double max = json_real_value(json_object_get(p, "max_points"));

	return p && max > 0 ? 100.0 * json_real_value(json_object_get(p, "points")) / max : -1;
}

/*
 * A whole lab's score from @parts (each given "weight", "score_pct" and
 * "missing"): the weighted mean over the parts with a weight whose checks
 * counted; a missing part counts 0. *handed_in: some part was there.
 */
static double weigh(const struct grade_outcome *o, json_t *parts, bool *handed_in)
{
	double sum = 0, wsum = 0;

	*handed_in = false;
	for (int i = 0; i < 3; i++) {
		const char *name = grade_part_name((enum grade_part)i);
		json_t *p = json_object_get(parts, name);
		double s = part_score(p);

		*handed_in |= p != NULL;
		if (!o->weights[i] && !p)
			continue;
		if (!p) {
			p = json_pack("{s:f, s:f}", "points", 0.0, "max_points", 0.0);
			if (!p || json_object_set_new(parts, name, p))
				continue;
		}
		json_object_set_new(p, "weight", json_integer(o->weights[i]));
		json_object_set_new(p, "missing", json_boolean(!json_object_get(p, "present")));
		json_object_del(p, "present");
		if (json_is_true(json_object_get(p, "missing"))) {
			json_object_set_new(p, "score_pct", json_real(0));
			wsum += o->weights[i];
			continue;
		}
		json_object_set_new(p, "score_pct", s < 0 ? json_null() : json_real(round(s * 10) / 10));
		if (s >= 0) {
			sum += o->weights[i] * s;
			wsum += o->weights[i];
		}
	}
	return wsum > 0 ? sum / wsum : 0;
}

static json_t *parts_json(const struct grade_report *rep)
{
	json_t *parts = json_object();

	for (size_t i = 0; parts && i < rep->nchecks; i++) {
		const struct grade_check *c = &rep->checks[i];
		const char *name = c->part ? c->part : "results";
		json_t *p = json_object_get(parts, name);

		if (!p) {
			p = json_pack("{s:f, s:f, s:b}", "points", 0.0, "max_points", 0.0,
				      "present", 1);
			if (!p || json_object_set_new(parts, name, p)) {
				json_decref(parts);
				return NULL;
			}
		}
		if (c->status == GRADE_SKIP || c->status == GRADE_REVIEW)
			continue;
		json_object_set_new(p, "points", json_real(json_real_value(json_object_get(p,
			"points")) + c->points));
		json_object_set_new(p, "max_points", json_real(json_real_value(json_object_get(p,
			"max_points")) + c->max_points));
	}
	return parts;
}

static json_t *checks_json(const struct grade_report *rep)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < rep->nchecks; i++) {
		const struct grade_check *c = &rep->checks[i];
		json_t *j = json_pack("{s:o, s:o, s:s, s:s, s:b, s:f, s:f, s:o, s:o, s:o}",
				      "id", str_or_null(c->name), "name", str_or_null(c->name),
				      "part", c->part ? c->part : "results", "status",
				      status_name(c->status), "passed", c->passed, "points",
				      c->points, "max_points", c->max_points, "reason",
				      str_or_null(c->detail), "detail", str_or_null(c->detail), "hint",
				      str_or_null(c->status == GRADE_FAIL ? c->hint : NULL));

		if (!j || json_array_append_new(a, j)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

json_t *grade_outcome_json(const struct grade_outcome *o)
{
	const struct grade_report *r = &o->rep;
	json_t *doc, *checks = checks_json(r), *parts = parts_json(r), *p;
	size_t failed = r->nchecks - r->npassed - r->nskipped - r->nreview;
	bool handed_in = true, missing = false;
	double score = r->score;
	const char *key;

	if (!checks || !parts) {
		json_decref(checks);
		json_decref(parts);
		return NULL;
	}
	if (o->weighted) {
		score = weigh(o, parts, &handed_in);
		json_object_foreach(parts, key, p)
			missing |= json_is_true(json_object_get(p, "missing"));
	} else {
		json_object_foreach(parts, key, p)
			json_object_del(p, "present");
	}
	doc = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:f, s:f, s:f, s:f, s:I, s:I, "
			"s:I, s:f, s:o, s:o}",
			"schema", GRADE_SCHEMA, "lab", str_or_null(o->lab), "title",
			str_or_null(o->title), "student", str_or_null(o->student), "work",
			str_or_null(o->work), "file", str_or_null(o->result), "tier",
			str_or_null(o->tier), "passed", !o->error && handed_in && !missing &&
			grade_report_passed(r),
			"score_pct", round1(score), "score", round1(score), "points",
			r->points, "max_points", r->max_points, "checks_passed",
			(json_int_t)r->npassed, "checks_failed", (json_int_t)failed,
			"checks_skipped", (json_int_t)r->nskipped, "wall_s",
			round(o->wall_s * 1000.0) / 1000.0, "parts", parts, "checks", checks);
	if (!doc)
		return NULL;
	if (o->code && json_object_set_new(doc, "build", json_pack("{s:b, s:o}", "ok",
					   o->build_ok, "log", str_or_null(o->build_log ?
									    o->build_log : ""))))
		goto out_nomem;
	if (o->sandbox && json_object_set_new(doc, "sandbox", str_or_null(o->sandbox)))
		goto out_nomem;
	if (o->sandbox && json_object_set_new(doc, "isolated", json_boolean(!o->unisolated)))
		goto out_nomem;
	if (o->error && json_object_set_new(doc, "error", str_or_null(o->error)))
		goto out_nomem;
	if (json_object_set_new(doc, "checks_review", json_integer((json_int_t)r->nreview)))
		goto out_nomem;
	if (o->weighted && (json_object_set_new(doc, "weights", json_pack("{s:i, s:i, s:i}",
				"code", o->weights[0], "results", o->weights[1], "quiz",
				o->weights[2])) ||
			    json_object_set_new(doc, "handed_in", json_boolean(handed_in))))
		goto out_nomem;
	if (o->absent && (json_object_set_new(doc, "handed_in", json_boolean(false)) ||
			  json_object_set_new(doc, "passed", json_false())))
		goto out_nomem;
	if ((o->results_sha256 && json_object_set_new(doc, "results_sha256",
						      json_string(o->results_sha256))) ||
	    (o->code_print && json_object_set_new(doc, "code_print", json_string(o->code_print))))
		goto out_nomem;
	/* Nothing handed in: no score at all (blank in a gradebook), not 0. */
	if (((o->weighted && !handed_in) || o->absent) && !o->error &&
	    (json_object_set_new(doc, "score_pct", json_null()) ||
	     json_object_set_new(doc, "score", json_null())))
		goto out_nomem;
	if (o->notes) {
		json_t *notes = json_array();
		char *copy = strdup(o->notes), *save = NULL;

		for (char *l = copy ? strtok_r(copy, "\n", &save) : NULL; l;
		     l = strtok_r(NULL, "\n", &save))
			json_array_append_new(notes, json_string(l));
		free(copy);
		if (!notes || json_object_set_new(doc, "notes", notes))
			goto out_nomem;
	}
	return doc;

out_nomem:
	json_decref(doc);
	return NULL;
}

json_t *grade_outcome_json_error(const char *lab, const char *student, const char *error)
{
	struct grade_outcome o = { .lab = (char *)lab, .student = (char *)student,
				   .error = (char *)error };

	return grade_outcome_json(&o);
}
