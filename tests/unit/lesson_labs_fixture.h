/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lesson_labs_fixture: tests and fuzz targets that parse lessons or quiz
 * blocks naming labs give lesson/ the real lab registry, as rtlab's main()
 * does, so "latency" is known, "cookie" is planned and "nosuch" is not.
 * Call fixture_lesson_labs_init() first thing in main(). The lessons of
 * tests/data/predict also name two labs that exist only there, "alpha"
 * (ready) and "beta" (planned): fixture_lesson_labs_init_fake() adds them.
 */
#ifndef RTLAB_TESTS_LESSON_LABS_FIXTURE_H
#define RTLAB_TESTS_LESSON_LABS_FIXTURE_H

#include <stdbool.h>
#include <string.h>

#include "labs/lab.h"
#include "lesson/lesson_labs.h"

static inline bool fixture_lab_lookup(const char *name, bool *planned)
{
	const struct lab_ops *lab = lab_find(name);

	if (lab)
		*planned = lab->state == LAB_STATE_PLANNED;
	return lab != NULL;
}

static inline void fixture_lesson_labs_init(void)
{
	lesson_labs_set(fixture_lab_lookup);
}

static inline bool fixture_lab_lookup_fake(const char *name, bool *planned)
{
	if (!strcmp(name, "alpha") || !strcmp(name, "beta")) {
		*planned = name[0] == 'b';
		return true;
	}
	return fixture_lab_lookup(name, planned);
}

static inline void fixture_lesson_labs_init_fake(void)
{
	lesson_labs_set(fixture_lab_lookup_fake);
}

#endif
