/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lesson_labs: which labs exist, as lesson/ is told by whoever sits above it.
 *
 * Lessons name labs in two places: rtlab:lab/<name> links and the `lab:`
 * key of predict questions (lessons/FORMAT.md). Both must be checked, but
 * lesson/ sits below labs/ (a latency run reads the lessons' predict
 * questions), so it cannot include labs/lab.h to ask lab_find(). Instead the
 * program hands it a lookup function once at start (rtlab's main() wraps
 * lab_find()), the way the doctor is handed its KVM boot probe.
 *
 * Without a lookup nothing is accepted on trust: every lab name is reported
 * as not checked ("no list of labs was given"), a problem in the lesson like
 * an unknown lab, so a library user who forgot the call sees why instead of
 * a lesson that passes lint with a misspelled lab.
 */
#ifndef RTLAB_LESSON_LESSON_LABS_H
#define RTLAB_LESSON_LESSON_LABS_H

#include <stdbool.h>

/**
 * lesson_lab_lookup_fn - is there a lab called @name?
 * @name: as written in the lesson, NUL-terminated
 * @planned: when the lab exists, set to whether it is only planned (may be NULL)
 *
 * Returns true when the lab exists. Called from any thread that parses a
 * lesson, so it must not keep state of its own.
 */
typedef bool (*lesson_lab_lookup_fn)(const char *name, bool *planned);

/**
 * lesson_labs_set - tell lesson/ how to look labs up
 * @fn: the lookup; NULL forgets it
 *
 * Call it once at start, before any lesson or quiz is parsed.
 */
void lesson_labs_set(lesson_lab_lookup_fn fn);

/**
 * lesson_labs_find - look a lab up through the function given to lesson_labs_set()
 * @planned: set when the lab exists (may be NULL)
 *
 * Returns 0 when the lab exists, -ENOENT when it does not, -ENODATA when no
 * lookup was given (see above).
 */
int lesson_labs_find(const char *name, bool *planned);

#endif
