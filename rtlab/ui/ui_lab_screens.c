/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_lab_screens: the list of lab screens. A new lab's screen is one line
 * in UI_LAB_SCREENS below (and its file, rtlab/ui/ui_lab_<name>.c, which
 * defines ui_lab_<name>_screen); nothing else in the UI names a lab.
 */
#include "ui_lab_screen.h"

#include <string.h>

#include "labs/lab.h"

/* One X(name) per lab screen, in no particular order. */
#define UI_LAB_SCREENS(X) \
	X(latency) \
	X(ftrace) \
	X(fcse) \
	X(hypervisor) \
	X(nop) \
	X(cookie) \
	X(taskset) \
	X(example)

#define UI_LAB_SCREEN_DECLARE(name) extern const struct ui_lab_screen_ops ui_lab_##name##_screen;
#define UI_LAB_SCREEN_ENTRY(name) &ui_lab_##name##_screen,

UI_LAB_SCREENS(UI_LAB_SCREEN_DECLARE)

const struct ui_lab_screen_ops *const ui_lab_screens[] = {
	UI_LAB_SCREENS(UI_LAB_SCREEN_ENTRY)
	NULL,
};

const struct ui_lab_screen_ops *ui_lab_screen_find(const struct lab_ops *lab)
{
	for (const struct ui_lab_screen_ops *const *s = ui_lab_screens; *s; s++)
		if (!strcmp((*s)->lab, lab->name))
			return *s;
	return lab->state == LAB_STATE_READY && lab->run ? &ui_lab_plain_screen : NULL;
}
