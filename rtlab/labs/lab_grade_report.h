/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_grade_report: the grading types every lab's grade() fills and the
 * grader (rtlab/grade/) weighs and renders: a report of named checks, each
 * passed, failed, skipped or left to the teacher, with points. They sit
 * with the labs, below the grader, because a lab's grade is a pure
 * function of its results document and the labs are a lower room
 * (doc/architecture.md). Built by lab_grade_report.c.
 */
#ifndef RTLAB_LABS_LAB_GRADE_REPORT_H
#define RTLAB_LABS_LAB_GRADE_REPORT_H

#include <stdbool.h>
#include <stddef.h>

/* How a check of a grade ended. */
enum grade_status {
	GRADE_FAIL,		/* counted, earned nothing */
	GRADE_PASS,		/* counted, earned its points */
	GRADE_SKIP,		/* not counted: the grader could not run it (the detail says why) */
	GRADE_REVIEW,		/* not counted: for the teacher to read (a written answer) */
};

/* One named check of a grade. */
struct grade_check {
	char *name;			/* owned; short stable id, e.g. "scenario-load-fifo" */
	bool passed;			/* status == GRADE_PASS */
	char *detail;			/* owned; a sentence a person can act on (the reason) */
	enum grade_status status;
	double max_points;		/* its weight: 1 from grade_report_add() */
	double points;			/* earned: max_points when passed, else 0 */
	char *hint;			/* owned; what to look at when it fails, or NULL */
	char *part;			/* owned; which part of a grade it belongs to ("code",
					 * "results", "quiz"), or NULL */
};

/*
 * What grade() found. Build with grade_report_add() (one point a check) or
 * grade_report_append() (points, a skip, a hint); release with
 * grade_report_fini(). score is the share of the points of the checks that
 * were not skipped, so with one point a check it is the share passed.
 */
struct grade_report {
	struct grade_check *checks;	/* owned, in the order they were made */
	size_t nchecks;
	size_t npassed;
	size_t nskipped;
	size_t nreview;			/* checks left to the teacher (GRADE_REVIEW) */
	double points;			/* earned, over the checks not skipped */
	double max_points;		/* possible, over the checks not skipped */
	double score;			/* 0..100: points / max_points */
};

/**
 * grade_report_add - append a check to @rep and update the score
 * @name: short stable id, copied
 * @passed: the verdict
 * @fmt: printf-style detail for a person, copied
 *
 * Returns 0 or -ENOMEM (the report is unchanged on failure).
 */
int grade_report_add(struct grade_report *rep, const char *name, bool passed,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/**
 * grade_report_review - a written answer, left to the teacher
 * @name: the question's id (the check's name)
 * @answer: the learner's text, or NULL when there is none
 * @lab: for the way to answer, in the detail
 *
 * No automatic points either way: a written answer is read by a person,
 * never scored for being there ("x" would earn as much as an essay). The
 * check is GRADE_REVIEW with the answer (cut to 300 bytes) in its detail;
 * a missing answer is GRADE_FAIL for no points ("not answered" and how to
 * answer): nothing to read, and the lab is not passed yet. Returns 0 or
 * -ENOMEM.
 */
int grade_report_review(struct grade_report *rep, const char *name, const char *answer,
			const char *lab);

/**
 * grade_report_append - append a copy of @c to @rep and update the score
 * @c: name (required), status, max_points (> 0), detail, hint and part
 *     (each may be NULL) are copied; passed and points are derived
 *
 * Returns 0, -EINVAL (no name, negative points) or -ENOMEM (the report is
 * unchanged on failure).
 */
int grade_report_append(struct grade_report *rep, const struct grade_check *c);

/* grade_report_fini - free the checks; @rep is zeroed. */
void grade_report_fini(struct grade_report *rep);

/*
 * grade_report_passed - true when at least one check was not skipped and
 * none failed.
 */
bool grade_report_passed(const struct grade_report *rep);

#endif
