/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_book: what a class's grades become for the people who use them:
 * the gradebook an LMS imports (one row per student, a column per lab and
 * the course total), each student's feedback (text and HTML, nothing of
 * another student's), and a re-graded student's grades merged into the
 * class document of an earlier run (rtlab grade --student).
 *
 * Like grade_format, everything here reads only rtlab.grade/1 JSON.
 *
 * A course file (--course FILE, doc/grading.md) says which labs count,
 * with what weight and when each is due:
 *   {"schema": "rtlab.course/1", "title": "...",
 *    "labs": [{"lab": "nop", "weight": 2, "due": "2026-11-30"}, ...]}
 */
#ifndef RTLAB_GRADE_GRADE_BOOK_H
#define RTLAB_GRADE_GRADE_BOOK_H

#include <stdbool.h>

#include <jansson.h>

#include "core/rt_buf.h"

#define GRADE_COURSE_SCHEMA "rtlab.course/1"
#define GRADE_COURSE_MAX_LABS 64

struct grade_course_lab {
	char lab[64];
	double weight;		/* > 0 */
	char due[11];		/* YYYY-MM-DD, or "" */
};

struct grade_course {
	size_t n;
	struct grade_course_lab v[GRADE_COURSE_MAX_LABS];
};

/*
 * The title slide's lines a course file may hold besides its labs (`rtlab
 * slides export --course FILE`): each a string, or NULL when absent;
 * borrowed from the document. Other keys are not looked at.
 */
struct grade_course_titles {
	const char *title;
	const char *teacher;
	const char *date;
	const char *licence;
};

/* Fill @t from course document @doc: 0, or -EINVAL with the key that is not a string in *@bad. */
int grade_course_titles(const json_t *doc, struct grade_course_titles *t, const char **bad);

/* The JSON Schema (2020-12) of rtlab.course/1 from its declared keys; NULL: ENOMEM. */
json_t *grade_course_schema(void);

/* grade_course_load - read a course file. 0, or a negative errno with @cause. */
int grade_course_load(const char *path, struct grade_course *c, char **cause);

/**
 * grade_book_lms - the LMS gradebook: "student,<lab>...,course_total", one
 * row per student, CRLF rows, text cells as grade_format_csv() makes them
 * @course: the labs and their weights, or NULL (the labs graded, weighed
 *          equally)
 * @today: "YYYY-MM-DD", the day that decides which labs are past due
 * @bom: start with UTF-8's byte-order mark
 *
 * A lab's cell is its score, blank when it was not handed in or not
 * graded. The course total is the weighted mean over the labs with a
 * score and, with a course file, the labs past due that were not handed
 * in (as 0); blank when no lab counts. Returns 0 or -ENOMEM.
 */
int grade_book_lms(const json_t *grades, const struct grade_course *course, const char *today,
		   bool bom, struct rt_buf *out);

/*
 * grade_book_feedback_text, _html - @student's grades (each check, its
 * points, reason and hint, the weights, what was missing) as a letter
 * they can be sent; the HTML escapes every text. The teacher's paths
 * (work, file) and hints about other students are left out. 0 or -ENOMEM.
 */
int grade_book_feedback_text(const json_t *grades, const char *student, struct rt_buf *out);
int grade_book_feedback_html(const json_t *grades, const char *student, struct rt_buf *out);

/**
 * grade_book_merge - an earlier class's grades with @student's replaced
 * @old: the "grades" array of an earlier class document (not changed)
 * @fresh: @student's new grades
 *
 * The other students' grades are kept as they were, in their order; the
 * new ones take the place of the old (or the place their name sorts to).
 * Returns a new array or NULL.
 */
json_t *grade_book_merge(const json_t *old, const json_t *fresh, const char *student);

#endif
