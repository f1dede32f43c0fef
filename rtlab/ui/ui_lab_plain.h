/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_lab_plain: the plain lab screen (setup panel, running panel, the
 * views as summary), usable as it is for a ready lab without a screen of
 * its own, or as the base of a small screen that only adds a live picture:
 * embed struct ui_lab_plain first in the screen's state, set @live,
 * @reset_live and @draw_live in init, and use the ui_lab_plain_* functions
 * in the screen's ops (ui_lab_example.c does).
 */
#ifndef RTLAB_UI_UI_LAB_PLAIN_H
#define RTLAB_UI_UI_LAB_PLAIN_H

#include <stdint.h>
#include <time.h>

#include "doctor/doctor.h"
#include "ui_lab_screen.h"
#include "ui_views.h"

struct ui_lab_plain {
	struct ui_lab_run run;
	struct doctor_report doctor;
	const struct doctor_lab *dlab;	/* the lab's verdict in doctor */
	bool have_doctor;
	uint64_t seed;			/* of the run on or last run */
	struct timespec started;	/* when the run started (monotonic) */
	struct ui_views views;		/* the summary */
	const struct rt_result *views_of;

	/* Optional, for a screen built on this one. */
	void *params;			/* the next run's params (borrowed), or NULL for the
					 * lab's defaults */
	void *live;			/* the lab's live model, passed to the run */
	void (*reset_live)(struct ui_lab_plain *s);	/* before each run */
	/* Draw @live in the running panel's @h x @cols area at (@y, @x). */
	void (*draw_live)(struct ui_lab_plain *s, WINDOW *win, int y, int x, int h, int cols);
};

int ui_lab_plain_init(void *screen, const struct lab_ops *lab);
void ui_lab_plain_draw(void *screen, WINDOW *win, int y, int x, int h, int cols);
enum ui_lab_action ui_lab_plain_key(void *screen, int key);
struct ui_lab_run *ui_lab_plain_run(void *screen);
const struct ui_help_line *ui_lab_plain_help(void *screen);
void ui_lab_plain_fini(void *screen);

#endif
