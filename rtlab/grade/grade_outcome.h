/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_outcome: the grade of one learner for one lab, and its JSON.
 *
 * An outcome gathers up to three parts into one struct grade_report whose
 * checks carry their part: "code" (the exercise's checks, with the
 * manifest's points, grade_exercise.c), "results" (the lab's grade of a
 * results document, a point a check) and "quiz" (the lab lesson's scored
 * quiz questions as last answered, a point each). Every front end prints
 * an outcome from its JSON, schema rtlab.grade/1 (doc/cli-json.md), so the
 * text, TAP, JUnit and CSV forms and the class mode, whose jobs hand their
 * outcomes over as JSON, can never disagree.
 */
#ifndef RTLAB_GRADE_GRADE_OUTCOME_H
#define RTLAB_GRADE_GRADE_OUTCOME_H

#include <stdbool.h>

#include <jansson.h>

#include "grade/grade_manifest.h"
#include "labs/lab.h"

#define GRADE_SCHEMA "rtlab.grade/1"

struct grade_outcome {
	char *lab;		/* owned */
	char *title;		/* owned; the exercise's title, or NULL */
	char *student;		/* owned; class mode: the student's folder name, else NULL */
	char *work;		/* owned; the folder whose code was graded, or NULL */
	char *result;		/* owned; the results document graded, or NULL */
	char *tier;		/* owned; that document's tier, or NULL */
	bool code;		/* the code part was graded */
	bool build_ok;		/* its subject compiled */
	char *build_log;	/* owned; the compiler's messages (capped), or NULL */
	char *sandbox;		/* owned; what the sandbox gave the runs, or NULL */
	bool unisolated;	/* the runs could reach the grader: a submission could forge
				 * this grade (grade_sandbox_isolated()) */
	char *error;		/* owned; why nothing could be graded, or NULL */
	char *notes;		/* owned; for the teacher, one a line (a retried job, a timing
				 * pass run again, a link not followed), or NULL */
	struct grade_report rep;
	double wall_s;		/* how long grading took */
	/*
	 * A whole lab's grade (`rtlab grade LAB`, class mode): each part
	 * counts by its weight (the exercise manifest's, percent), a part not
	 * handed in counts 0 and says "missing"; with nothing handed in at
	 * all the grade is "not handed in", with no score. Otherwise (--work,
	 * a document alone) the score is the points of what was asked.
	 */
	bool weighted;
	unsigned int weights[3];	/* GRADE_PART_* (grade/grade_manifest.h) */
	bool absent;		/* class mode: nothing of the lab was handed in (no folder,
				 * an empty one): "not handed in" even when not weighted */
	char *results_sha256;	/* owned; class mode: the handed-in results document's digest */
	char *code_print;	/* owned; class mode: the code's digest after normalising
				 * whitespace, comments and names (grade_class.c) */
};

/* grade_outcome_weigh - make @o a whole lab's grade with @weights (see weighted). */
void grade_outcome_weigh(struct grade_outcome *o, const unsigned int weights[3]);

void grade_outcome_fini(struct grade_outcome *o);

/* grade_outcome_note - add a line to @o's notes (printf-style). 0 or -ENOMEM. */
int grade_outcome_note(struct grade_outcome *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * grade_outcome_add_document - grade a results document and add its checks
 * @path: the document (rtlab.result/2 or /1); its lab must be @o->lab, or
 *        becomes it when @o->lab is NULL
 *
 * The lab's own grade() decides; each of its checks becomes part "results"
 * with one point. A document whose checksum (doc/results.md) does not match
 * its content fails a check "checksum" (edited by hand). Returns 0 or a
 * negative errno with @cause (unreadable, invalid, another lab, no grader).
 */
int grade_outcome_add_document(struct grade_outcome *o, const char *path, char **cause);

/**
 * grade_outcome_add_quiz - add the lab lesson's quiz as part "quiz"
 * @progress: the progress file; NULL: the default
 *
 * One check per scored question of the lab's lesson (quiz-<id>), passed
 * when its last answer was right. Adds nothing for a lab without a lesson
 * or a lesson without scored questions. Returns 0 or a negative errno with
 * @cause.
 */
int grade_outcome_add_quiz(struct grade_outcome *o, const char *progress, char **cause);

/*
 * grade_outcome_add_part - append @part's checks of @rep to @o (copies);
 * @hints, when not NULL, are kept only with failed checks. 0 or -ENOMEM.
 */
int grade_outcome_add_part(struct grade_outcome *o, const struct grade_report *rep,
			   const char *part);

/**
 * grade_outcome_json - @o as an rtlab.grade/1 object
 *
 * Returns a new reference, or NULL on allocation failure.
 */
json_t *grade_outcome_json(const struct grade_outcome *o);

/* An rtlab.grade/1 object for a job that could not be graded at all: @error says why. */
json_t *grade_outcome_json_error(const char *lab, const char *student, const char *error);

/*
 * grade_schema - the JSON Schema (2020-12) of rtlab.grade/1, made from the
 * keys grade_keys.c declares. A new object, or NULL with errno ENOMEM.
 */
json_t *grade_schema(void);

/* ---- Reading grades (grade_keys.c) ---------------------------------------------- */

/* The grades of a JSON array of rtlab.grade/1 grades; borrowed. */
size_t grade_list_count(const json_t *grades);
const json_t *grade_list_at(const json_t *grades, size_t i);
/* A grade's student (--class), or NULL. */
const char *grade_student(const json_t *g);
/* The grade could not be made at all (it holds an "error"). */
bool grade_failed_to_grade(const json_t *g);
/* The grades array of a class document ("kind": "class"), borrowed; NULL if @doc is none. */
json_t *grade_class_grades(const json_t *doc);

#endif
