/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_format: grades (rtlab.grade/1 objects, grade_outcome_json()) as
 * the text a person reads, TAP for prove and CI systems, JUnit XML for
 * GitLab CI and GitHub Classroom reporters, a gradebook CSV and a class
 * summary table.
 *
 * Every form reads only the JSON, so a grade made in this process and one
 * handed over by a class-mode job print alike. Text fields from documents,
 * compilers and check programs, and students' folder names (any bytes), are
 * escaped for the terminal (rt_text), for TAP (a '#' in a name is "\#", not
 * a directive), for XML (the JUnit form keeps only characters XML 1.0
 * allows) or for a spreadsheet (see grade_format_csv()).
 */
#ifndef RTLAB_GRADE_GRADE_FORMAT_H
#define RTLAB_GRADE_GRADE_FORMAT_H

#include <stdbool.h>

#include <jansson.h>

#include "core/rt_buf.h"

enum grade_format {
	GRADE_FORMAT_TEXT,
	GRADE_FORMAT_TAP,
	GRADE_FORMAT_JUNIT,
	GRADE_FORMAT_JSON,
	GRADE_FORMAT_CSV,
};

/* The format called @name ("text", "tap", "junit", "json", "csv"): 0 or -EINVAL. */
int grade_format_parse(const char *name, enum grade_format *out);

/**
 * grade_format_text - one grade as the text `rtlab grade` prints
 * @g: an rtlab.grade/1 object
 * @verbose: the build log and the sandbox too
 *
 * Returns 0 or -ENOMEM.
 */
int grade_format_text(const json_t *g, bool verbose, struct rt_buf *out);

/*
 * The grades of the array @grades in one form. A check is named
 * "<student>/<lab>/<id>" when the grade has a student, else "<lab>/<id>".
 * The JUnit form is valid against the Jenkins/Ant JUnit structure
 * (tests/data/junit/junit.xsd). Each returns 0 or -ENOMEM.
 */
int grade_format_tap(const json_t *grades, struct rt_buf *out);
int grade_format_junit(const json_t *grades, struct rt_buf *out);

/*
 * grade_format_csv - a gradebook: one row per student and lab, "student,
 * lab,score_pct,points,max_points,passed,failed,skipped,build,error",
 * rows ended by CRLF (RFC 4180). The six numbers are unquoted numbers.
 * A text cell is safe to open in a spreadsheet (OWASP's CSV injection
 * advice): control characters, bidi controls, U+FFFE, U+FFFF and bytes
 * that are not UTF-8 become U+FFFD; a cell starting with '=', '+', '-', '@', TAB or CR (after
 * any spaces) gets a "'" in front; a cell with that "'", a ',', '"' or ';'
 * is quoted, its '"' doubled.
 */
int grade_format_csv(const json_t *grades, struct rt_buf *out);

/* One text cell of a gradebook, made safe as above, then ',' or (@last) CRLF. */
int grade_format_csv_text(struct rt_buf *out, const char *s, bool last);

/* grade_format_summary - a table, one line per student and lab, then the class average. */
int grade_format_summary(const json_t *grades, struct rt_buf *out);

/**
 * grade_format_class_json - the class document: {"schema": "rtlab.grade/1",
 * "kind": "class", "dir", "jobs", "wall_s", "grades": [...]}
 *
 * Takes a reference to @grades. Returns a new object or NULL.
 */
json_t *grade_format_class_json(json_t *grades, const char *dir, unsigned int jobs,
				double wall_s);

#endif
