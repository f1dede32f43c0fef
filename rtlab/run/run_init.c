/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * run_init: the one place that tells the lower layers of the library what
 * only the upper ones know. The layers are (doc/architecture.md)
 * core < trace, lesson, sim, qemu < labs < doctor < vm, grade < run, and a
 * lower layer never includes a higher one: where it needs to know
 * something from above, it offers a slot and rtlab_init() fills it.
 */
#include "run.h"

#include "labs/lab.h"
#include "lesson/lesson_labs.h"

/* lesson_lab_lookup_fn over the lab registry: lessons may link and quiz any lab in it. */
static bool registry_lookup(const char *name, bool *planned)
{
	const struct lab_ops *lab = lab_find(name);

	*planned = lab && lab->state == LAB_STATE_PLANNED;
	return lab != NULL;
}

void rtlab_init(void)
{
	/* Lessons name labs (links, predict questions), which only labs/ knows. */
	lesson_labs_set(registry_lookup);
}
