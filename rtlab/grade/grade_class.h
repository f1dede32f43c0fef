/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_class: a teacher's class, graded in parallel.
 *
 * DIR holds one folder per student. A student's code for a lab is in
 * DIR/<student>/<lab>/ (the learner's working copy, as `rtlab lab start`
 * lays it out), or in DIR/<student>/ itself when one exercise is graded (a
 * repository per assignment, as GitHub Classroom makes them). A
 * results.json there joins the grade as its "results" part.
 *
 * Each (student, lab) is one job: a forked process of its own with a box
 * uid of its own when rtlab is root (its slot's), so that one student's
 * fork bomb cannot use up another's processes; without root each run gets
 * its own user namespace, whose process count is its own. At most `jobs`
 * run at once; checks marked timing take a lock exclusively, ordinary ones
 * share it, so a timing check never runs next to another job's checks. The
 * check program of each exercise is built once, before the jobs start.
 * A job hands its grade back as rtlab.grade/1 JSON; a job that dies or
 * overruns becomes a grade with an error, never the grader's end.
 */
#ifndef RTLAB_GRADE_GRADE_CLASS_H
#define RTLAB_GRADE_GRADE_CLASS_H

#include <jansson.h>

#include "grade/grade_exercise.h"

#define GRADE_CLASS_MAX_STUDENTS 10000
#define GRADE_JOB_WALL_S 1800u		/* the most one job may take */

struct grade_class_opts {
	const char *dir;		/* one folder per student */
	const char *lab;		/* only this lab's exercise; NULL: every lab with one */
	const char *exercise;		/* or this exercise folder (overrides lab) */
	const char *student;		/* only this student's folder (a re-grade); NULL: all */
	unsigned int jobs;		/* at most this many jobs at once (>= 1) */
	bool allow_unisolated;		/* grade even where runs cannot be isolated */
	struct grade_opts base;		/* runner, tmpdir, ns; slot: the first of jobs slots
					 * (grade_slot_base()); timing_fd is set here */
};

/**
 * grade_class_run - grade every student's work
 * @grades: on success, a new JSON array of rtlab.grade/1 objects, by
 *          student then lab (each with "student")
 * @wall_s: how long it took
 *
 * Returns 0, or a negative errno with @cause when the class could not be
 * graded at all (no such folder, no exercise, an exercise whose check
 * program does not compile).
 */
int grade_class_run(const struct grade_class_opts *o, json_t **grades, double *wall_s,
		    char **cause);

#endif
