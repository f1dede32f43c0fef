/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_ftrace_grade: what the hunt's grader accepts, as a table a test and a
 * teacher can read. One row per (planted cause, tracer) whose output can
 * show that cause on the lab kernel, with the functions of the planted code
 * that output can name. The grade itself is ftrace_grade() (lab_ftrace.h).
 */
#ifndef RTLAB_LABS_LAB_FTRACE_GRADE_H
#define RTLAB_LABS_LAB_FTRACE_GRADE_H

#include <stdbool.h>
#include <stddef.h>

/* One (cause, tracer) a learner can find the cause with. All strings are static. */
struct ftrace_hunt_sight {
	const char *kind;		/* the planted cause, as `answer cause` takes it */
	const char *tracer;		/* as `answer tracer` takes it ("events" = event mode);
					 * NULL: tools outside ftrace (ps, perf), which can
					 * name a function but are no tracer answer */
	const char *const *functions;	/* NULL-terminated: the planted code's functions this
					 * output can name; empty when it shows only the delay */
	const char *where;		/* where in the output, for the grader's messages */
};

/**
 * ftrace_hunt_sights - the table
 * @n: set to its number of rows
 *
 * Returns the rows, static. The comment above the table in
 * lab_ftrace_grade.c says how each row was measured.
 */
const struct ftrace_hunt_sight *ftrace_hunt_sights(size_t *n);

/**
 * ftrace_hunt_function_ok - would `answer function @answer` pass for @kind?
 *
 * The answer is compared loosely: case, blanks, a trailing "()", a stack
 * line's "=> " and a "+0x1c/0x40" offset or " [module]" do not matter.
 */
bool ftrace_hunt_function_ok(const char *kind, const char *answer);

/* ftrace_hunt_tracer_ok - would `answer tracer @answer` pass for @kind? */
bool ftrace_hunt_tracer_ok(const char *kind, const char *answer);

#endif
