/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_lab_example: the example lab's screen, the smallest screen that adds
 * something of its own: the plain screen (ui_lab_plain.h) plus a live
 * picture of the simulation, the jobs simulated and the deadlines missed
 * so far, which the lab keeps current between chunks (struct example_live).
 */
#include "ui_lab_plain.h"

#include <stdio.h>
#include <string.h>

#include "labs/lab_example.h"
#include "ui_frame.h"

struct ui_lab_example {
	struct ui_lab_plain plain;	/* first: the ops get this screen as a plain one */
	struct example_live live;
};

static void reset_live(struct ui_lab_plain *p)
{
	struct ui_lab_example *s = (struct ui_lab_example *)p;

	memset(&s->live, 0, sizeof(s->live));
}

static void draw_live(struct ui_lab_plain *p, WINDOW *win, int y, int x, int h, int cols)
{
	struct ui_lab_example *s = (struct ui_lab_example *)p;
	uint64_t jobs = __atomic_load_n(&s->live.jobs, __ATOMIC_RELAXED);
	uint64_t misses = __atomic_load_n(&s->live.misses, __ATOMIC_RELAXED);
	char line[160];

	(void)h;
	snprintf(line, sizeof(line), "Scenario %-12s jobs %9llu   deadlines missed %7llu "
		 "(%.2f %%)", s->live.scenario, (unsigned long long)jobs,
		 (unsigned long long)misses, jobs ? 100.0 * (double)misses / (double)jobs : 0.0);
	ui_frame_put(win, y, x + 1, line, cols - 2, UI_ROLE_NORMAL);
	ui_frame_put(win, y + 1, x + 1, "SIMULATED: a model of one periodic task, not this "
		     "machine", cols - 2, UI_ROLE_DIM);
}

static int example_init(void *screen, const struct lab_ops *lab)
{
	struct ui_lab_example *s = screen;

	s->plain.live = &s->live;
	s->plain.reset_live = reset_live;
	s->plain.draw_live = draw_live;
	return ui_lab_plain_init(screen, lab);
}

const struct ui_lab_screen_ops ui_lab_example_screen = {
	.lab = "example",
	.size = sizeof(struct ui_lab_example),
	.init = example_init,
	.draw = ui_lab_plain_draw,
	.key = ui_lab_plain_key,
	.run = ui_lab_plain_run,
	.help = ui_lab_plain_help,
	.fini = ui_lab_plain_fini,
};
