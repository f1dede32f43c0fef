/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lesson_labs: one slot, written once at start and read by every parse. A
 * plain pointer is enough: it is set before any thread that parses lessons
 * is started.
 */
#include "lesson_labs.h"

#include <errno.h>
#include <stddef.h>

static lesson_lab_lookup_fn lab_lookup;

void lesson_labs_set(lesson_lab_lookup_fn fn)
{
	lab_lookup = fn;
}

int lesson_labs_find(const char *name, bool *planned)
{
	bool p = false;

	if (!lab_lookup)
		return -ENODATA;
	if (!name || !lab_lookup(name, &p))
		return -ENOENT;
	if (planned)
		*planned = p;
	return 0;
}
