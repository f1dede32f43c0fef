/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_lab_taskset: the task-set lab's screen, the plain screen
 * (ui_lab_plain.h) with a live table of the scenario running: each task's
 * period, jobs so far, deadlines missed and worst response, which the
 * threads keep current (struct taskset_live). The computed bounds beside
 * the measured ones are in the summary views after the run.
 */
#include "ui_lab_plain.h"

#include <stdio.h>
#include <string.h>

#include "labs/lab_taskset.h"
#include "ui_frame.h"

struct ui_lab_taskset {
	struct ui_lab_plain plain;	/* first: the ops get this screen as a plain one */
	struct taskset_live live;
};

static void reset_live(struct ui_lab_plain *p)
{
	struct ui_lab_taskset *s = (struct ui_lab_taskset *)p;

	memset(&s->live, 0, sizeof(s->live));
}

static void draw_live(struct ui_lab_plain *p, WINDOW *win, int y, int x, int h, int cols)
{
	struct ui_lab_taskset *s = (struct ui_lab_taskset *)p;
	unsigned int n = __atomic_load_n(&s->live.n, __ATOMIC_RELAXED);
	char line[160];
	int row = 0;

	if (n > TASKSET_MAX)
		n = TASKSET_MAX;
	snprintf(line, sizeof(line), "Scenario %-14s task  period    jobs  missed  worst "
		 "response", s->live.scenario);
	ui_frame_put(win, y + row++, x + 1, line, cols - 2, UI_ROLE_DIM);
	for (unsigned int i = 0; i < n && row < h; i++, row++) {
		uint64_t jobs = __atomic_load_n(&s->live.jobs[i], __ATOMIC_RELAXED);
		uint64_t miss = __atomic_load_n(&s->live.misses[i], __ATOMIC_RELAXED);
		uint64_t worst = __atomic_load_n(&s->live.resp_max_ns[i], __ATOMIC_RELAXED);

		snprintf(line, sizeof(line), "%23u  %6.1f ms %6llu  %6llu  %8.2f ms", i + 1,
			 s->live.period_us[i] / 1000.0, (unsigned long long)jobs,
			 (unsigned long long)miss, (double)worst / 1e6);
		ui_frame_put(win, y + row, x + 1, line, cols - 2,
			     miss ? UI_ROLE_PROBLEM : UI_ROLE_NORMAL);
	}
}

static int taskset_init(void *screen, const struct lab_ops *lab)
{
	struct ui_lab_taskset *s = screen;

	s->plain.live = &s->live;
	s->plain.reset_live = reset_live;
	s->plain.draw_live = draw_live;
	return ui_lab_plain_init(screen, lab);
}

const struct ui_lab_screen_ops ui_lab_taskset_screen = {
	.lab = "taskset",
	.size = sizeof(struct ui_lab_taskset),
	.init = taskset_init,
	.draw = ui_lab_plain_draw,
	.key = ui_lab_plain_key,
	.run = ui_lab_plain_run,
	.help = ui_lab_plain_help,
	.fini = ui_lab_plain_fini,
};
