/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_book: the LMS gradebook, students' feedback and a re-grade's
 * merge (see the header).
 */
#include "grade_book.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_err.h"
#include "core/rt_file.h"
#include "core/rt_json.h"
#include "core/rt_keys.h"
#include "grade/grade_format.h"

/* ---- The course file -------------------------------------------------------------------- */

static bool is_date(const char *s)
{
	int y, m, d, n = 0;

	return strlen(s) == 10 && sscanf(s, "%4d-%2d-%2d%n", &y, &m, &d, &n) == 3 && n == 10 &&
	       s[4] == '-' && s[7] == '-' && m >= 1 && m <= 12 && d >= 1 && d <= 31;
}

/* ---- Course files --------------------------------------------------------------------- */

/*
 * rtlab.course/1's keys, declared once for `rtlab schema` (doc/grading.md);
 * other keys are the teacher's and are left alone.
 */
static const struct rt_key course_lab_keys[] = {
	RT_KEY("lab", RT_T_STRING, NULL, "the lab's name", true, .pattern = "^.{1,63}$"),
	RT_KEY("weight", RT_T_NUMBER, NULL, "its weight in the course total (default 1), > 0",
	       false, .min = 0, .max = 1e6),
	RT_KEY("due", RT_T_STRING, NULL, "the due date, YYYY-MM-DD", false,
	       .pattern = "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"),
	RT_KEY_END,
};
static const struct rt_key course_other = RT_KEY(NULL, 0, NULL, "the teacher's, not read",
						 false);
static const struct rt_keys course_lab_table = { .keys = course_lab_keys,
						 .others = &course_other };
static const struct rt_key course_keys[] = {
	RT_KEY("schema", RT_T_STRING, NULL, "`rtlab.course/1`", true),
	RT_KEY("title", RT_T_STRING, NULL, "the course's name (the slides' title slide)", false),
	RT_KEY("teacher", RT_T_STRING, NULL, "for the title slide", false),
	RT_KEY("date", RT_T_STRING, NULL, "for the title slide", false),
	RT_KEY("licence", RT_T_STRING, NULL, "for the title slide", false),
	RT_KEY("labs", RT_T_ARRAY, NULL, "1 to 64 labs that count, each once", true,
	       .of = &course_lab_table),
	RT_KEY_END,
};
static const struct rt_keys course_table = { .keys = course_keys, .others = &course_other };

json_t *grade_course_schema(void)
{
	return rt_keys_document(GRADE_COURSE_SCHEMA, "rtlab course file (--course FILE)",
				&course_table, 0);
}

int grade_course_titles(const json_t *doc, struct grade_course_titles *t, const char **bad)
{
	static const char *const keys[] = { "title", "teacher", "date", "licence" };
	const char **slot[] = { &t->title, &t->teacher, &t->date, &t->licence };

	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		json_t *v = json_object_get(doc, keys[k]);

		if (v && !json_is_string(v)) {
			*bad = keys[k];
			return -EINVAL;
		}
		*slot[k] = json_string_value(v);
	}
	return 0;
}

int grade_course_load(const char *path, struct grade_course *c, char **cause)
{
	char *text = NULL;
	size_t len = 0, i;
	json_t *doc = NULL, *labs, *l;
	int ret;

	memset(c, 0, sizeof(*c));
	ret = rt_file_read(path, 1u << 20, &text, &len);
	if (ret)
		return rt_err(cause, ret, "%s: %s", path, strerror(-ret));
	ret = rt_json_load(text, len, path, &doc, cause);
	free(text);
	if (ret)
		return ret;
	labs = json_object_get(doc, "labs");
	if (!rt_json_str(doc, "schema") || strcmp(rt_json_str(doc, "schema"), GRADE_COURSE_SCHEMA) ||
	    !json_is_array(labs) || !json_array_size(labs) ||
	    json_array_size(labs) > GRADE_COURSE_MAX_LABS) {
		json_decref(doc);
		return rt_err(cause, -EINVAL, "%s: not a course file (\"schema\": \"%s\" and "
			      "\"labs\": 1 to %d of {\"lab\", \"weight\", \"due\"})", path,
			      GRADE_COURSE_SCHEMA, GRADE_COURSE_MAX_LABS);
	}
	json_array_foreach(labs, i, l) {
		struct grade_course_lab *cl = &c->v[i];
		const json_t *w = json_object_get(l, "weight");
		const char *name = rt_json_str(l, "lab"), *due = rt_json_str(l, "due");

		if (!name || !*name || strlen(name) >= sizeof(cl->lab) ||
		    (w && (!json_is_number(w) || json_number_value(w) <= 0 ||
			   json_number_value(w) > 1e6)) ||
		    (json_object_get(l, "due") && (!due || !is_date(due)))) {
			json_decref(doc);
			return rt_err(cause, -EINVAL, "%s: lab %zu: needs \"lab\" (a name), and may "
				      "have \"weight\" (a number > 0) and \"due\" (YYYY-MM-DD)",
				      path, i + 1);
		}
		for (size_t k = 0; k < i; k++)
			if (!strcmp(c->v[k].lab, name)) {
				ret = rt_err(cause, -EINVAL, "%s: lab '%s' twice", path, name);
				json_decref(doc);	/* after: @name is the document's */
				return ret;
			}
		snprintf(cl->lab, sizeof(cl->lab), "%s", name);
		cl->weight = w ? json_number_value(w) : 1;
		snprintf(cl->due, sizeof(cl->due), "%s", due ? due : "");
	}
	c->n = json_array_size(labs);
	json_decref(doc);
	return 0;
}

/* ---- The LMS gradebook ------------------------------------------------------------------ */

/* @g's score, or < 0 when it has none (not handed in, not graded). */
static double score_of(const json_t *g)
{
	if (!g || rt_json_str(g, "error") || json_is_false(json_object_get(g, "handed_in")) ||
	    !json_is_number(json_object_get(g, "score_pct")))
		return -1;
	return json_number_value(json_object_get(g, "score_pct"));
}

static const json_t *find_grade(const json_t *grades, const char *student, const char *lab)
{
	size_t i;
	json_t *g;

	json_array_foreach(grades, i, g)
		if (rt_json_str(g, "student") && rt_json_str(g, "lab") &&
		    !strcmp(rt_json_str(g, "student"), student) && !strcmp(rt_json_str(g, "lab"), lab))
			return g;
	return NULL;
}

/* The labs of the book: the course's, else every lab graded, in order of appearance. */
static int book_labs(const json_t *grades, const struct grade_course *course,
		     struct grade_course *labs)
{
	size_t i;
	json_t *g;

	if (course) {
		*labs = *course;
		return 0;
	}
	memset(labs, 0, sizeof(*labs));
	json_array_foreach(grades, i, g) {
		const char *lab = rt_json_str(g, "lab");
		bool seen = false;

		for (size_t k = 0; lab && k < labs->n && !seen; k++)
			seen = !strcmp(labs->v[k].lab, lab);
		if (!lab || seen || strlen(lab) >= sizeof(labs->v[0].lab))
			continue;
		if (labs->n == GRADE_COURSE_MAX_LABS)
			return -E2BIG;
		snprintf(labs->v[labs->n].lab, sizeof(labs->v[0].lab), "%s", lab);
		labs->v[labs->n++].weight = 1;
	}
	return 0;
}

/* Whether @student is already a row (their first grade comes before @upto). */
static bool student_seen(const json_t *grades, size_t upto, const char *student)
{
	for (size_t k = 0; k < upto; k++)
		if (rt_json_str(json_array_get(grades, k), "student") &&
		    !strcmp(rt_json_str(json_array_get(grades, k), "student"), student))
			return true;
	return false;
}

int grade_book_lms(const json_t *grades, const struct grade_course *course, const char *today,
		   bool bom, struct rt_buf *out)
{
	struct grade_course *labs = malloc(sizeof(*labs));
	size_t i;
	json_t *g;
	int ret = labs ? book_labs(grades, course, labs) : -ENOMEM;

	if (!ret && bom)
		ret = rt_buf_puts(out, "\xef\xbb\xbf");
	if (!ret)
		ret = grade_format_csv_text(out, "student", false);
	for (size_t k = 0; !ret && k < labs->n; k++)
		ret = grade_format_csv_text(out, labs->v[k].lab, false);
	if (!ret)
		ret = grade_format_csv_text(out, "course_total", true);
	json_array_foreach(grades, i, g) {
		const char *student = rt_json_str(g, "student");
		double sum = 0, wsum = 0;

		if (ret)
			break;
		if (!student || student_seen(grades, i, student))
			continue;
		ret = grade_format_csv_text(out, student, false);
		for (size_t k = 0; !ret && k < labs->n; k++) {
			const struct grade_course_lab *cl = &labs->v[k];
			const json_t *lg = find_grade(grades, student, cl->lab);
			double s = score_of(lg);
			bool graded_absent = lg && !rt_json_str(lg, "error");

			if (s >= 0) {
				sum += cl->weight * s;
				wsum += cl->weight;
				ret = rt_buf_printf(out, "%g,", s);
				continue;
			}
			/* Not handed in, and due: 0 in the total (the cell stays blank). */
			if (course && graded_absent && cl->due[0] && today && strcmp(today, cl->due) > 0)
				wsum += cl->weight;
			ret = rt_buf_puts(out, ",");
		}
		if (!ret && wsum > 0)
			ret = rt_buf_printf(out, "%.1f\r\n", sum / wsum);
		else if (!ret)
			ret = rt_buf_puts(out, "\r\n");
	}
	free(labs);
	return ret;
}

/* ---- Feedback ---------------------------------------------------------------------------- */

/* @g without the teacher's paths, for a student's eyes. */
static json_t *for_student(const json_t *g)
{
	json_t *c = json_deep_copy(g);

	if (c) {
		json_object_del(c, "work");
		json_object_del(c, "file");
		json_object_del(c, "sandbox");
		json_object_del(c, "results_sha256");
		json_object_del(c, "code_print");
		json_object_del(c, "code_is_starter");
	}
	return c;
}

int grade_book_feedback_text(const json_t *grades, const char *student, struct rt_buf *out)
{
	size_t i;
	json_t *g;
	int ret = rt_buf_printf(out, "Feedback for %s\n", student);

	json_array_foreach(grades, i, g) {
		json_t *c;

		if (ret)
			break;
		if (!rt_json_str(g, "student") || strcmp(rt_json_str(g, "student"), student))
			continue;
		c = for_student(g);
		ret = c ? rt_buf_printf(out, "\n== %s ==\n",
					rt_json_str(g, "lab") ? rt_json_str(g, "lab") : "?") : -ENOMEM;
		if (!ret)
			ret = grade_format_text(c, false, out);
		json_decref(c);
	}
	return ret;
}

static int html(struct rt_buf *out, const char *s)
{
	int ret = 0;

	for (; s && *s && !ret; s++) {
		switch (*s) {
		case '<': ret = rt_buf_puts(out, "&lt;"); break;
		case '>': ret = rt_buf_puts(out, "&gt;"); break;
		case '&': ret = rt_buf_puts(out, "&amp;"); break;
		case '"': ret = rt_buf_puts(out, "&quot;"); break;
		case '\'': ret = rt_buf_puts(out, "&#39;"); break;
		default: ret = rt_buf_append(out, s, 1);
		}
	}
	return ret;
}

/* Each text of the NULL-ended @v as a table cell, escaped. */
static int cells(struct rt_buf *out, const char *const *v)
{
	int ret = 0;

	for (; *v && !ret; v++) {
		ret = rt_buf_puts(out, "<td>");
		if (!ret)
			ret = html(out, *v);
		if (!ret)
			ret = rt_buf_puts(out, "</td>");
	}
	return ret;
}

/*
 * The HTML letter: the text letter's lines, each escaped, in a <pre>, with
 * a table of the checks per lab above it. Every text comes from JSON that
 * holds what students wrote: nothing is written unescaped.
 */
int grade_book_feedback_html(const json_t *grades, const char *student, struct rt_buf *out)
{
	struct rt_buf text = RT_BUF_INIT;
	size_t i, k;
	json_t *g, *c;
	int ret = rt_buf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
			      "<title>Feedback for ");

	if (!ret)
		ret = html(out, student);
	if (!ret)
		ret = rt_buf_puts(out, "</title><style>body{font-family:sans-serif;max-width:60em;"
				  "margin:1em auto}td,th{border:1px solid #999;padding:.2em .5em;"
				  "vertical-align:top}table{border-collapse:collapse}.pass{color:#070}"
				  ".fail{color:#a00}</style></head><body>\n<h1>Feedback for ");
	if (!ret)
		ret = html(out, student);
	if (!ret)
		ret = rt_buf_puts(out, "</h1>\n");
	json_array_foreach(grades, i, g) {
		if (ret)
			break;
		if (!rt_json_str(g, "student") || strcmp(rt_json_str(g, "student"), student))
			continue;
		ret = rt_buf_puts(out, "<h2>");
		if (!ret)
			ret = html(out, rt_json_str(g, "lab"));
		if (!ret)
			ret = rt_buf_puts(out, "</h2>\n<table><tr><th>check</th><th>part</th>"
					  "<th>result</th><th>points</th><th>reason</th><th>hint</th>"
					  "</tr>\n");
		json_array_foreach(json_object_get(g, "checks"), k, c) {
			const char *st = rt_json_str(c, "status") ? rt_json_str(c, "status") : "?";

			if (ret)
				break;
			ret = rt_buf_printf(out, "<tr class=\"%s\">", !strcmp(st, "pass") ?
					    "pass" : !strcmp(st, "fail") ? "fail" : "other");
			if (!ret)
				ret = cells(out, (const char *const[]){ rt_json_str(c, "id") ?: "",
							 rt_json_str(c, "part") ?: "", st, NULL });
			if (!ret)
				ret = rt_buf_printf(out, "<td>%g/%g</td>",
						    json_number_value(json_object_get(c, "points")),
						    json_number_value(json_object_get(c, "max_points")));
			if (!ret)
				ret = cells(out, (const char *const[]){ rt_json_str(c, "reason") ?: "",
							 rt_json_str(c, "hint") ?: "", NULL });
			if (!ret)
				ret = rt_buf_puts(out, "</tr>\n");
		}
		if (!ret)
			ret = rt_buf_puts(out, "</table>\n");
	}
	if (!ret)
		ret = grade_book_feedback_text(grades, student, &text);
	if (!ret)
		ret = rt_buf_puts(out, "<h2>In full</h2>\n<pre>");
	if (!ret)
		ret = html(out, rt_buf_str(&text));
	if (!ret)
		ret = rt_buf_puts(out, "</pre>\n</body></html>\n");
	rt_buf_fini(&text);
	return ret;
}

/* ---- A re-grade's merge ------------------------------------------------------------------ */

json_t *grade_book_merge(const json_t *old, const json_t *fresh, const char *student)
{
	json_t *out = json_array(), *g;
	bool placed = false;
	size_t i;

	json_array_foreach(old, i, g) {
		const char *s = rt_json_str(g, "student");

		if (!out)
			break;
		if (!placed && (!s || strcmp(s, student) >= 0)) {
			if (json_array_extend(out, (json_t *)fresh))
				goto fail;
			placed = true;
		}
		if (s && !strcmp(s, student))
			continue;
		if (json_array_append(out, g))
			goto fail;
	}
	if (out && !placed && json_array_extend(out, (json_t *)fresh))
		goto fail;
	return out;

fail:
	json_decref(out);
	return NULL;
}
