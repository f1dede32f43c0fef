/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_work: the learner's working copy of a lab's exercise.
 *
 * `rtlab lab start LAB` copies the starter files (the manifest's sources,
 * from labs/<lab>/starter) to <state dir>/work/<lab>, where the learner
 * edits them and `rtlab grade LAB` finds them; `rtlab lab reset LAB` puts
 * the old copy aside as <lab>.bak-<UTC time> and starts afresh.
 */
#ifndef RTLAB_GRADE_GRADE_WORK_H
#define RTLAB_GRADE_GRADE_WORK_H

#include <stdbool.h>

/* <state dir>/work/@lab (not created). Caller frees; NULL with errno set. */
char *grade_work_dir(const char *lab);

/**
 * grade_work_start - make the learner's working copy of @lab's starter
 * @path: where it is (caller frees)
 * @created: false when it existed already (left as it was)
 *
 * Returns 0, or a negative errno with @cause (the lab has no exercise, the
 * state dir cannot be written).
 */
int grade_work_start(const char *lab, char **path, bool *created, char **cause);

/**
 * grade_work_reset - put the working copy aside and copy the starter again
 * @backup: where the old copy went, or NULL when there was none (caller frees)
 *
 * Returns 0 or a negative errno with @cause.
 */
int grade_work_reset(const char *lab, char **path, char **backup, char **cause);

#endif
