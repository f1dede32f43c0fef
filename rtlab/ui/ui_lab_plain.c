/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_lab_plain: the screen of a ready lab that has no screen of its own.
 * It knows nothing of the lab but its descriptor: the setup panel says what
 * the lab is, where it runs here (the doctor's verdict) and that it runs
 * with its default settings and a seed from the clock; the running panel
 * shows how long it has been running; the summary is the lab's views, the
 * same tables `rtlab lab run` prints. A lab gets a screen of its own (a
 * live picture, settings to change) with a file ui_lab_<name>.c and a line
 * in ui_lab_screens[]; until then, it still runs from the menu.
 */
#include "ui_lab_plain.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/rt_result.h"
#include "doctor/doctor.h"
#include "labs/lab.h"
#include "ui_frame.h"
#include "ui_text.h"
#include "ui_views.h"

static void start_run(void *owner)
{
	struct ui_lab_plain *s = owner;

	if (!s->have_doctor || !s->dlab || s->dlab->tier == DOCTOR_TIER_NONE) {
		ui_lab_run_say(&s->run, true, "the lab cannot run here: %s",
			       s->dlab && s->dlab->reason ? s->dlab->reason :
			       "the machine could not be probed");
		return;
	}
	s->seed = (uint64_t)time(NULL);
	if (s->reset_live)
		s->reset_live(s);
	if (ui_lab_run_prepare(&s->run, &s->doctor, s->dlab, s->params, s->live, s->seed))
		return;
	clock_gettime(CLOCK_MONOTONIC, &s->started);
	if (ui_lab_run_start(&s->run, true) == 0)
		ui_lab_run_say(&s->run, false, "running with %s settings, seed %llu",
			       s->params ? "the screen's" : "the lab's default",
			       (unsigned long long)s->seed);
}

static void run_ended(void *owner, int ret)
{
	struct ui_lab_plain *s = owner;

	if (ret)
		ui_lab_run_failed(&s->run, ret);
}

static const struct ui_lab_run_ops run_ops = {
	.start = start_run,
	.ended = run_ended,
	.stopping = "stopping: waiting for the lab to wind down",
};

int ui_lab_plain_init(void *screen, const struct lab_ops *lab)
{
	struct ui_lab_plain *s = screen;

	ui_lab_run_init(&s->run, lab, &run_ops, s);
	s->have_doctor = ui_lab_run_probe(lab, &s->doctor, &s->dlab);
	return 0;
}

static void status_line(struct ui_lab_plain *s, WINDOW *win, int y, int x, int cols)
{
	if (s->run.message[0])
		ui_frame_put(win, y, x + 1, s->run.message, cols - 2,
			     s->run.message_warn ? UI_ROLE_WARN : UI_ROLE_DIM);
}

/* @text wrapped at @cols - 2 from row @row, at most up to @bottom; the row after it. */
static int put_wrapped(WINDOW *win, int row, int bottom, int x, const char *text, int cols,
		       enum ui_role role)
{
	size_t len, next;

	while (*text && row < bottom) {
		char line[512];

		len = ui_text_wrap(text, cols - 2, &next);
		snprintf(line, sizeof(line), "%.*s", (int)len, text);
		ui_frame_put(win, row++, x + 1, line, cols - 2, role);
		if (!next)
			break;
		text += next;
	}
	return row;
}

static void draw_setup(struct ui_lab_plain *s, WINDOW *win, int y, int x, int h, int cols)
{
	static const char *const keys[] = { "Enter", "run", "?", "help", "q", "back" };
	const struct lab_ops *lab = s->run.lab;
	int row = y + 2;
	char line[512];

	row = put_wrapped(win, row, y + h - 2, x, lab->summary, cols, UI_ROLE_NORMAL);
	row++;
	if (s->dlab)
		snprintf(line, sizeof(line), "Here: %s%s. %s", doctor_tier_name(s->dlab->tier),
			 s->dlab->degraded ? " (degraded)" : "",
			 s->dlab->reason ? s->dlab->reason : "");
	else
		snprintf(line, sizeof(line), "Here: the machine could not be probed");
	row = put_wrapped(win, row, y + h - 2, x, line, cols, s->dlab &&
			  s->dlab->tier != DOCTOR_TIER_NONE ? UI_ROLE_NORMAL : UI_ROLE_WARN);
	row++;
	put_wrapped(win, row, y + h - 2, x, "Enter runs the lab with its default settings and "
		    "a seed from the clock; `rtlab lab run` takes its options.", cols, UI_ROLE_DIM);
	status_line(s, win, y + h - 2, x, cols);
	ui_frame_footer(win, y + h - 1, x, cols, keys, sizeof(keys) / sizeof(keys[0]));
}

static void draw_running(struct ui_lab_plain *s, WINDOW *win, int y, int x, int h, int cols)
{
	static const char *const keys[] = { "q", "stop" };
	struct timespec now;
	char line[128];

	clock_gettime(CLOCK_MONOTONIC, &now);
	snprintf(line, sizeof(line), "%s for %.1f s (seed %llu)",
		 s->run.state == UI_LAB_STOPPING ? "Stopping after running" : "Running",
		 (double)(now.tv_sec - s->started.tv_sec) +
		 (double)(now.tv_nsec - s->started.tv_nsec) / 1e9,
		 (unsigned long long)s->seed);
	ui_frame_put(win, y + 2, x + 1, line, cols - 2, UI_ROLE_NORMAL);
	if (s->draw_live && h > 6)
		s->draw_live(s, win, y + 4, x, h - 6, cols);
	status_line(s, win, y + h - 2, x, cols);
	ui_frame_footer(win, y + h - 1, x, cols, keys, sizeof(keys) / sizeof(keys[0]));
}

static void draw_done(struct ui_lab_plain *s, WINDOW *win, int y, int x, int h, int cols)
{
	static const char *const keys[] = {
		"r", "new run", "arrows", "scroll", "?", "help", "q", "back",
	};
	const struct rt_result *res = ui_lab_run_result(&s->run);
	int row = y + 2, bottom = y + h - 3;
	char line[512];

	if (s->views_of != res) {
		if (ui_views_load(&s->views, res))
			ui_lab_run_say(&s->run, true, "out of memory for the summary");
		s->views_of = res;
	}
	if (bottom - row > 0)
		ui_views_draw(&s->views, win, row, x, bottom - row, cols);
	snprintf(line, sizeof(line), "Results document: %s", s->run.saved_path ?
		 s->run.saved_path : "not saved");
	ui_frame_put(win, bottom, x + 1, line, cols - 2,
		     s->run.saved_path ? UI_ROLE_NORMAL : UI_ROLE_WARN);
	status_line(s, win, y + h - 2, x, cols);
	ui_frame_footer(win, y + h - 1, x, cols, keys, sizeof(keys) / sizeof(keys[0]));
}

void ui_lab_plain_draw(void *screen, WINDOW *win, int y, int x, int h, int cols)
{
	struct ui_lab_plain *s = screen;
	char title[256];

	snprintf(title, sizeof(title), "%s%s", s->run.lab->title,
		 s->run.lab->sim_only ? ": SIMULATED" : "");
	ui_frame_bar(win, y, x, cols, UI_ROLE_TITLE);
	ui_frame_put(win, y, x + 1, title, cols - 2, UI_ROLE_TITLE);
	if (s->run.state != UI_LAB_DONE)
		s->views_of = NULL;
	switch (s->run.state) {
	case UI_LAB_SETUP:
		draw_setup(s, win, y, x, h, cols);
		break;
	case UI_LAB_RUNNING:
	case UI_LAB_STOPPING:
		draw_running(s, win, y, x, h, cols);
		break;
	case UI_LAB_DONE:
		draw_done(s, win, y, x, h, cols);
		break;
	}
}

enum ui_lab_action ui_lab_plain_key(void *screen, int key)
{
	struct ui_lab_plain *s = screen;
	enum ui_lab_action act;

	if (ui_lab_run_key(&s->run, key, &act))
		return act;
	if (s->run.state == UI_LAB_DONE)
		ui_views_key(&s->views, key);
	return UI_LAB_NONE;
}

struct ui_lab_run *ui_lab_plain_run(void *screen)
{
	return &((struct ui_lab_plain *)screen)->run;
}

static const struct ui_help_line plain_help[] = {
	{ NULL, "A lab screen" },
	{ "Enter, r", "run the lab with its defaults; on the summary: back to setup" },
	{ "q, Esc", "while running: stop it and save what was measured; else back" },
	{ "arrows, PgUp/PgDn", "summary: scroll the tables" },
	{ NULL, NULL },
};

const struct ui_help_line *ui_lab_plain_help(void *screen)
{
	(void)screen;
	return plain_help;
}

void ui_lab_plain_fini(void *screen)
{
	struct ui_lab_plain *s = screen;

	ui_lab_run_fini(&s->run);
	if (s->have_doctor)
		doctor_report_fini(&s->doctor);
	ui_views_fini(&s->views);
	memset(s, 0, sizeof(*s));
}

const struct ui_lab_screen_ops ui_lab_plain_screen = {
	.lab = "",
	.size = sizeof(struct ui_lab_plain),
	.init = ui_lab_plain_init,
	.draw = ui_lab_plain_draw,
	.key = ui_lab_plain_key,
	.run = ui_lab_plain_run,
	.help = ui_lab_plain_help,
	.fini = ui_lab_plain_fini,
};
