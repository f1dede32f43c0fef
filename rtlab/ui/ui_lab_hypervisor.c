/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_lab_hypervisor: the hypervisor lab's screen: the plain screen (ui_lab_plain.h)
 * plus a live picture of the model while it runs, from struct hypervisor_live:
 * which scenario, the guest RT task's jobs, misses and worst response, and
 * the host's longest wait against the starvation bound, labelled as a
 * simulation; or, for the live part (hypervisor_live.is_live), the guest probe's
 * figures as they stream in, the knobs the scenario set and the watchdog.
 */
#include "ui_lab_plain.h"

#include <stdio.h>
#include <string.h>

#include "labs/lab_hypervisor.h"
#include "ui_frame.h"

struct ui_lab_hypervisor {
	struct ui_lab_plain plain;	/* first: the ops get this screen as a plain one */
	struct hypervisor_live live;
	struct hypervisor_params params;	/* the live part's, while 'l' started it */
};

static void reset_live(struct ui_lab_plain *p)
{
	struct ui_lab_hypervisor *s = (struct ui_lab_hypervisor *)p;

	memset(&s->live, 0, sizeof(s->live));
}

#define LOAD(f) __atomic_load_n(&s->live.f, __ATOMIC_RELAXED)

/* The live part: the guest probe's figures as its stream arrives, and the host's knobs. */
static void draw_measured(struct ui_lab_hypervisor *s, WINDOW *win, int y, int x, int h, int cols)
{
	bool starved = LOAD(starved);
	char line[200];

	if (!s->live.index) {
		ui_frame_put(win, y, x + 1, s->live.knobs[0] ? s->live.knobs : "starting",
			     cols - 2, UI_ROLE_NORMAL);
		return;
	}
	snprintf(line, sizeof(line), "Scenario %-15s %u of %u   %llu s measured   %s",
		 s->live.scenario, s->live.index, s->live.total,
		 (unsigned long long)(LOAD(time_us) / 1000000u), s->live.accel);
	ui_frame_put(win, y, x + 1, line, cols - 2, UI_ROLE_NORMAL);
	/* The "host" scenario runs the probe on this machine, beside no guest. */
	snprintf(line, sizeof(line), "%s %7llu samples  avg %5llu us  last second max %6llu  "
		 "max %6llu us", strcmp(s->live.scenario, "host") ? "Guest" : "Host probe",
		 (unsigned long long)LOAD(jobs), (unsigned long long)LOAD(avg_us),
		 (unsigned long long)LOAD(last_max_us), (unsigned long long)LOAD(resp_max_us));
	ui_frame_put(win, y + 1, x + 1, line, cols - 2, UI_ROLE_NORMAL);
	ui_frame_put(win, y + 2, x + 1, s->live.knobs, cols - 2,
		     starved ? UI_ROLE_PROBLEM : UI_ROLE_NORMAL);
	if (h < 4)
		return;
	snprintf(line, sizeof(line), "QEMU main loop: longest wait for its CPU %llu ms in %u s",
		 (unsigned long long)(LOAD(host_wait_max_us) / 1000), HV_WATCH_WINDOW_MS / 1000);
	ui_frame_put(win, y + 3, x + 1, line, cols - 2, UI_ROLE_DIM);
	if (h >= 5 && starved)
		ui_frame_put(win, y + 4, x + 1, "The FIFO vCPU kept QEMU's own threads off its CPU: "
			     "the guest's timers and disk stalled, so rtlab put it back", cols - 2,
			     UI_ROLE_WARN);
}

static void draw_live(struct ui_lab_plain *p, WINDOW *win, int y, int x, int h, int cols)
{
	struct ui_lab_hypervisor *s = (struct ui_lab_hypervisor *)p;

	if (s->live.is_live) {
		draw_measured(s, win, y, x, h, cols);
		return;
	}
	uint64_t jobs = LOAD(jobs), misses = LOAD(misses), wait = LOAD(host_wait_max_us);
	uint32_t bound = s->live.bound_us;
	char line[200];

	snprintf(line, sizeof(line), "Scenario %-15s %u of %u   %.2f simulated s",
		 s->live.scenario, s->live.index, s->live.total, (double)LOAD(time_us) / 1e6);
	ui_frame_put(win, y, x + 1, line, cols - 2, UI_ROLE_NORMAL);
	snprintf(line, sizeof(line), "Guest RT task  jobs %8llu   missed %6llu   worst %7llu us",
		 (unsigned long long)jobs, (unsigned long long)misses,
		 (unsigned long long)LOAD(resp_max_us));
	ui_frame_put(win, y + 1, x + 1, line, cols - 2, UI_ROLE_NORMAL);
	snprintf(line, sizeof(line), "Host           longest wait %8.1f ms of %u ms   %s",
		 (double)wait / 1000.0, bound / 1000, LOAD(starved) ? "STARVED" : "within bound");
	ui_frame_put(win, y + 2, x + 1, line, cols - 2,
		     LOAD(starved) ? UI_ROLE_PROBLEM : UI_ROLE_NORMAL);
	if (h < 5)
		return;
	ui_frame_put(win, y + 3, x + 1, "SIMULATED: a model of the host scheduler, not this "
		     "machine", cols - 2, UI_ROLE_DIM);
	ui_frame_put(win, y + 4, x + 1, "The live part measures this machine: rtlab lab run "
		     "hypervisor --live", cols - 2, UI_ROLE_DIM);
}

/* Enter runs the model (the lab's defaults); l runs the live part, every scenario, 5 s each. */
static enum ui_lab_action hv_key(void *screen, int key)
{
	struct ui_lab_hypervisor *s = screen;

	if (s->plain.run.state == UI_LAB_SETUP && (key == 'l' || key == 'L')) {
		hypervisor_params_init(&s->params);
		s->params.live = true;
		s->params.duration_ms = 5000;
		s->plain.params = &s->params;
		return ui_lab_plain_key(screen, '\n');
	}
	if (s->plain.run.state == UI_LAB_SETUP)
		s->plain.params = NULL;	/* any other key that starts a run starts the model */
	return ui_lab_plain_key(screen, key);
}

static void hv_draw(void *screen, WINDOW *win, int y, int x, int h, int cols)
{
	struct ui_lab_hypervisor *s = screen;

	ui_lab_plain_draw(screen, win, y, x, h, cols);
	if (s->plain.run.state == UI_LAB_SETUP && h > 8)
		ui_frame_put(win, y + h - 4, x + 1, "l runs the live part: the classroom VM in "
			     "QEMU (root, about a minute)",
			     cols - 2, UI_ROLE_NORMAL);
}

static const struct ui_help_line hv_help[] = {
	{ NULL, "The hypervisor lab" },
	{ "Enter, r", "run the model (a simulation); on the summary: back to setup" },
	{ "l", "run the live part: a QEMU guest, every scenario for 5 s (root)" },
	{ "q, Esc", "while running: stop it and save what was measured; else back" },
	{ "arrows, PgUp/PgDn", "summary: scroll the tables" },
	{ NULL, NULL },
};

static const struct ui_help_line *hv_help_lines(void *screen)
{
	(void)screen;
	return hv_help;
}

static int hv_screen_init(void *screen, const struct lab_ops *lab)
{
	struct ui_lab_hypervisor *s = screen;

	s->plain.live = &s->live;
	s->plain.reset_live = reset_live;
	s->plain.draw_live = draw_live;
	return ui_lab_plain_init(screen, lab);
}

const struct ui_lab_screen_ops ui_lab_hypervisor_screen = {
	.lab = "hypervisor",
	.size = sizeof(struct ui_lab_hypervisor),
	.init = hv_screen_init,
	.draw = hv_draw,
	.key = hv_key,
	.run = ui_lab_plain_run,
	.help = hv_help_lines,
	.fini = ui_lab_plain_fini,
};
