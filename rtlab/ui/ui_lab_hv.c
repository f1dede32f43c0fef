/*
 * ui_lab_hv: the hypervisor lab's screen: the plain screen (ui_lab_plain.h)
 * plus a live picture of the model while it runs, from struct hv_live:
 * which scenario, the guest RT task's jobs, misses and worst response, and
 * the host's longest wait against the starvation bound. Labelled as a
 * simulation, with the live part's "not available here" beside it.
 */
#include "ui_lab_plain.h"

#include <stdio.h>
#include <string.h>

#include "labs/lab_hv.h"
#include "ui_frame.h"

struct ui_lab_hv {
	struct ui_lab_plain plain;	/* first: the ops get this screen as a plain one */
	struct hv_live live;
};

static void reset_live(struct ui_lab_plain *p)
{
	struct ui_lab_hv *s = (struct ui_lab_hv *)p;

	memset(&s->live, 0, sizeof(s->live));
}

#define LOAD(f) __atomic_load_n(&s->live.f, __ATOMIC_RELAXED)

static void draw_live(struct ui_lab_plain *p, WINDOW *win, int y, int x, int h, int cols)
{
	struct ui_lab_hv *s = (struct ui_lab_hv *)p;
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
	ui_frame_put(win, y + 4, x + 1, "Live QEMU part: not available here (see the handout)",
		     cols - 2, UI_ROLE_DIM);
}

static int hv_screen_init(void *screen, const struct lab_ops *lab)
{
	struct ui_lab_hv *s = screen;

	s->plain.live = &s->live;
	s->plain.reset_live = reset_live;
	s->plain.draw_live = draw_live;
	return ui_lab_plain_init(screen, lab);
}

const struct ui_lab_screen_ops ui_lab_hypervisor_screen = {
	.lab = "hypervisor",
	.size = sizeof(struct ui_lab_hv),
	.init = hv_screen_init,
	.draw = ui_lab_plain_draw,
	.key = ui_lab_plain_key,
	.run = ui_lab_plain_run,
	.help = ui_lab_plain_help,
	.fini = ui_lab_plain_fini,
};
