/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_lab_fcse: the FCSE lab's screen. Setup: which modes and which
 * workload (m, w), Enter runs them. While the simulation runs, the picture
 * the lab keeps current (struct fcse_live): the 4 GB modified address
 * space as 128 slots of 32 MB (which PID holds which slot, the slots of
 * the kernel, slot 95 under the module area), both caches' lines coloured
 * by the PID that filled them, the counters so far; m switches to the next
 * mode (the lab starts a new simulation in it). The summary is the
 * document's views. It fits 80x24; everything says SIMULATED.
 *
 * The live form (l in the setup: --live) boots the FCSE kernel in QEMU once per mode and
 * shows, per mode as it finishes, the kernel's switches, flushes done and avoided and
 * refusals beside the model's for the same processes and switches, the PIDs each gave
 * and the fork limit; times stay the model's (QEMU models no cache), and it says so.
 */
#include "ui_lab_screen.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/rt_result.h"
#include "doctor/doctor.h"
#include "labs/lab.h"
#include "labs/lab_fcse.h"
#include "ui_frame.h"
#include "ui_views.h"

/* The setup's choice of modes: all three, or one. */
static const char *const mode_choice[] = { "all", "flush", "guaranteed", "best-effort" };
#define NCHOICE 4
static const char *const workloads[] = { "mixed", "small", "thrash", "many" };
#define NWORKLOADS 4

struct ui_lab_fcse {
	struct ui_lab_run run;
	struct doctor_report doctor;
	const struct doctor_lab *dlab;
	bool have_doctor;
	struct fcse_params params;
	int choice;			/* index into mode_choice */
	int workload;			/* index into workloads */
	bool live_on;			/* the live form: the FCSE kernel too (--live) */
	struct fcse_live live;		/* the lab writes it under live.lock */
	struct fcse_live snap;		/* what the last draw copied */
	struct ui_views views;
	const struct rt_result *views_of;
};

/* A PID's look: a glyph and a colour. Ten roles with distinct colours. */
static const enum ui_role pid_roles[] = {
	UI_ROLE_READY, UI_ROLE_NUMBER, UI_ROLE_COMING, UI_ROLE_PROBLEM, UI_ROLE_LINK,
	UI_ROLE_QUOTE, UI_ROLE_H3, UI_ROLE_QUIZ, UI_ROLE_H1, UI_ROLE_SECTION,
};
static const char glyphs[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

static void put_cell(WINDOW *win, int y, int x, char c, enum ui_role role)
{
	char s[2] = { c, 0 };

	ui_frame_put(win, y, x, s, 1, role);
}

/* The key a cell is coloured by: the PID, or the process where there are none. */
static unsigned int cell_key(const struct fcse_live *l, uint16_t proc)
{
	if (proc >= l->nprocs)
		return 0;
	if (l->mode == SIM_FCSE_MODE_FLUSH || l->proc_pid[proc] == 255)
		return proc;
	return l->proc_pid[proc];
}

static void put_key(WINDOW *win, int y, int x, unsigned int k)
{
	put_cell(win, y, x, k < sizeof(glyphs) - 1 ? glyphs[k] : '+',
		 pid_roles[k % (sizeof(pid_roles) / sizeof(pid_roles[0]))]);
}

/* ---- Runs ------------------------------------------------------------------------- */

static void start_run(void *owner)
{
	struct ui_lab_fcse *s = owner;

	if (!s->have_doctor || !s->dlab || s->dlab->tier == DOCTOR_TIER_NONE) {
		ui_lab_run_say(&s->run, true, "the lab cannot run here: %s",
			       s->dlab && s->dlab->reason ? s->dlab->reason :
			       "the machine could not be probed");
		return;
	}
	fcse_params_init(&s->params);
	s->params.modes = s->choice ? 1u << (s->choice - 1) : (1u << SIM_FCSE_NMODES) - 1;
	s->params.workload = s->workload;
	s->params.workload_given = true;
	s->params.ticks = 1000;		/* a few seconds a mode: time to watch, and to press m */
	s->params.live = s->live_on;
	pthread_mutex_lock(&s->live.lock);
	s->live.mode = -1;
	s->live.kernel = false;
	memset(s->live.km, 0, sizeof(s->live.km));
	s->live.nprocs = 0;
	s->live.icells = s->live.dcells = 0;
	pthread_mutex_unlock(&s->live.lock);
	__atomic_store_n(&s->live.mode_req, -1, __ATOMIC_RELAXED);
	memset(&s->snap, 0, sizeof(s->snap));
	s->snap.mode = -1;
	if (ui_lab_run_prepare(&s->run, &s->doctor, s->dlab, &s->params, &s->live,
			       (uint64_t)time(NULL)))
		return;
	if (ui_lab_run_start(&s->run, false) == 0)
		ui_lab_run_say(&s->run, false, s->live_on ? "booting the FCSE kernel once per mode "
			       "(a few seconds each)" : "simulating: m switches to the next mode");
}

static void run_ended(void *owner, int ret)
{
	struct ui_lab_fcse *s = owner;

	if (ret)
		ui_lab_run_failed(&s->run, ret);
}

static const struct ui_lab_run_ops run_ops = {
	.start = start_run,
	.ended = run_ended,
	.stopping = "stopping: the simulation saves what it has",
};

static int ui_lab_fcse_init(struct ui_lab_fcse *s, const struct lab_ops *lab)
{
	if (pthread_mutex_init(&s->live.lock, NULL))
		return -ENOMEM;
	s->live.lock_ready = true;
	s->live.mode = -1;
	s->live.mode_req = -1;
	ui_lab_run_init(&s->run, lab, &run_ops, s);
	s->have_doctor = ui_lab_run_probe(lab, &s->doctor, &s->dlab);
	return 0;
}

/* ---- Drawing ---------------------------------------------------------------------------- */

static void status_line(struct ui_lab_fcse *s, WINDOW *win, int y, int x, int cols)
{
	if (s->run.message[0])
		ui_frame_put(win, y, x + 1, s->run.message, cols - 2,
			     s->run.message_warn ? UI_ROLE_WARN : UI_ROLE_DIM);
}

static void title(struct ui_lab_fcse *s, WINDOW *win, int y, int x, int cols, const char *what)
{
	char line[160];

	snprintf(line, sizeof(line), "%s: %s%s%s", s->run.lab->title,
		 s->live_on ? "LIVE kernel + model" : "SIMULATED", what ? " - " : "",
		 what ? what : "");
	ui_frame_bar(win, y, x, cols, UI_ROLE_TITLE);
	ui_frame_put(win, y, x + 1, line, cols - 2, UI_ROLE_TITLE);
}

static void draw_setup(struct ui_lab_fcse *s, WINDOW *win, int y, int x, int h, int cols)
{
	static const char *const keys[] = {
		"Enter", "run", "m", "mode", "w", "workload", "l", "live", "?", "help", "q", "back",
	};
	int row = y + 2;
	char line[256];

	title(s, win, y, x, cols, NULL);
	ui_frame_put(win, row++, x + 1, "An ARMv5 core's VIVT caches under context switches, "
		     "simulated:", cols - 2, UI_ROLE_NORMAL);
	ui_frame_put(win, row++, x + 1, "flush at every switch, or FCSE guaranteed, or FCSE "
		     "best effort.", cols - 2, UI_ROLE_NORMAL);
	row++;
	snprintf(line, sizeof(line), "Modes     %s", mode_choice[s->choice]);
	ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_LABEL);
	snprintf(line, sizeof(line), "Workload  %s", workloads[s->workload]);
	ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_LABEL);
	ui_frame_put(win, row++, x + 11, sim_fcse_workload_summary(workloads[s->workload]),
		     cols - 12, UI_ROLE_DIM);
	snprintf(line, sizeof(line), "Live      %s", s->live_on ? "on: the FCSE kernel in QEMU "
		 "too (make vm-arm, qemu-system-arm)" : "off: the model alone");
	ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_LABEL);
	row++;
	if (s->live_on)
		snprintf(line, sizeof(line), "Here: the ARM kernel's counts (QEMU, one boot a "
			 "mode) beside the model's; times are the model's.");
	else
		snprintf(line, sizeof(line), "Here: %s. No ARMv5 core is needed: it is a model.",
			 s->dlab ? doctor_tier_name(s->dlab->tier) : "not probed");
	ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_NORMAL);
	if (row < y + h - 3)
		ui_frame_put(win, row++, x + 1, "rtlab lab run fcse --help: traces, caches, "
			     "ticks and the other options.", cols - 2, UI_ROLE_DIM);
	status_line(s, win, y + h - 2, x, cols);
	ui_frame_footer(win, y + h - 1, x, cols, keys, sizeof(keys) / sizeof(keys[0]));
}

/* 128 slots of 32 MB in rows of 64: the PID holding each, the kernel's, slot 95. */
static int draw_slots(const struct fcse_live *l, WINDOW *win, int row, int x, int cols)
{
	int per = cols - 12 >= 64 ? 64 : 32;

	ui_frame_put(win, row++, x + 1, "4 GB of MVAs, 128 slots of 32 MB (K kernel, m "
		     "modules, . free):", cols - 2, UI_ROLE_LABEL);
	for (int r = 0; r < (int)SIM_FCSE_SLOTS / per; r++) {
		char lab[16];

		snprintf(lab, sizeof(lab), "%08x", (unsigned int)(r * per) << SIM_FCSE_PID_SHIFT);
		ui_frame_put(win, row, x + 1, lab, 9, UI_ROLE_DIM);
		for (int c = 0; c < per; c++) {
			unsigned int slot = (unsigned int)(r * per + c);

			if (l->mode == SIM_FCSE_MODE_FLUSH && slot == 0 && l->nprocs)
				put_cell(win, row, x + 11 + c, '*', UI_ROLE_READY);
			else if (l->mode != SIM_FCSE_MODE_FLUSH && l->slot_count[slot])
				put_key(win, row, x + 11 + c, slot);
			else if (slot > 95 || (l->nr_pids && slot >= l->nr_pids && slot != 95))
				put_cell(win, row, x + 11 + c, 'K', UI_ROLE_DIM);
			else if (slot == 95)
				put_cell(win, row, x + 11 + c, 'm', UI_ROLE_DIM);
			else
				put_cell(win, row, x + 11 + c, '.', UI_ROLE_DIM);
		}
		row++;
	}
	return row;
}

/* A cache's cells in @rows rows of 64: the PID (or process) whose access filled them. */
static int draw_cache(const struct fcse_live *l, bool d, WINDOW *win, int row, int x, int cols,
		      int rows)
{
	const uint16_t *cell = d ? l->dcell : l->icell;
	uint32_t n = d ? l->dcells : l->icells;
	int per = cols - 12 >= 64 ? 64 : 32;
	uint32_t shown = (uint32_t)(per * rows);
	char lab[64];

	snprintf(lab, sizeof(lab), "%s cache, %u cells, by %s:", d ? "D" : "I", n,
		 l->mode == SIM_FCSE_MODE_FLUSH ? "process (no PIDs)" : "PID");
	ui_frame_put(win, row++, x + 1, lab, cols - 2, UI_ROLE_LABEL);
	for (int r = 0; r < rows; r++, row++) {
		for (int c = 0; c < per; c++) {
			/* Screen cell k shows cells [k n / shown, (k + 1) n / shown): the first filled. */
			uint32_t k = (uint32_t)(r * per + c), i = k * n / shown;
			uint32_t end = (k + 1) * n / shown, who = 0xffff;

			if (i >= n)
				break;
			for (end = end > i ? end : i + 1; i < end && who == 0xffff; i++)
				who = cell[i];
			if (who == 0xffff)
				put_cell(win, row, x + 11 + c, '.', UI_ROLE_DIM);
			else
				put_key(win, row, x + 11 + c, cell_key(l, (uint16_t)who));
		}
	}
	return row;
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

/* Up to @cols characters of PIDs ("-" refused) after @label. */
static void pid_line(WINDOW *win, int row, int x, int cols, const char *label,
		     const int16_t *pid, uint32_t n)
{
	char line[512];
	int len = snprintf(line, sizeof(line), "%s", label);

	for (uint32_t i = 0; i < n && len < (int)sizeof(line) - 8 && len < cols; i++)
		len += pid[i] < 0 ? snprintf(line + len, sizeof(line) - (size_t)len, " -") :
		       snprintf(line + len, sizeof(line) - (size_t)len, " %d", pid[i]);
	ui_frame_put(win, row, x + 1, line, cols - 2, UI_ROLE_NORMAL);
}

/* The live form: per mode the kernel's counts beside the model's, the PIDs, the limit. */
static void draw_live(struct ui_lab_fcse *s, WINDOW *win, int y, int x, int h, int cols)
{
	static const char *const keys[] = { "q", "stop" };
	const struct fcse_live *l = &s->snap;
	const struct fcse_live_kmode *last = NULL;
	int row = y + 1;
	char line[256];

	title(s, win, y, x, cols, "running");
	snprintf(line, sizeof(line), "FCSE kernel (QEMU versatilepb) beside the model, workload "
		 "%s, %u switches", workloads[s->workload], s->params.switches);
	ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_NORMAL);
	row++;
	ui_frame_put(win, row++, x + 1, "mode         kernel: switches flushes avoided  "
		     "model: flushes avoided", cols - 2, UI_ROLE_LABEL);
	for (int m = 0; m < SIM_FCSE_NMODES; m++) {
		const struct fcse_live_kmode *k = &l->km[m];

		if (!(s->params.modes & (1u << m)))
			continue;
		if (k->done) {
			snprintf(line, sizeof(line), "%-12s %16llu %7llu %7llu  %14llu %7llu",
				 sim_fcse_mode_names[m], (unsigned long long)k->k_switches,
				 (unsigned long long)k->k_flushes, (unsigned long long)k->k_avoided,
				 (unsigned long long)k->m_flushes,
				 (unsigned long long)(k->m_switches - k->m_flushes));
			last = k;
		} else {
			snprintf(line, sizeof(line), "%-12s %s", sim_fcse_mode_names[m],
				 k->state[0] ? k->state : "waiting");
		}
		ui_frame_put(win, row++, x + 1, line, cols - 2,
			     k->done ? UI_ROLE_NUMBER : UI_ROLE_DIM);
	}
	row++;
	if (last) {
		snprintf(line, sizeof(line), "%s: refused by the kernel %u fork, %u mmap; "
			 "by the model %u fork, %u mmap", sim_fcse_mode_names[last - l->km],
			 last->k_refused_fork, last->k_refused_mmap, last->m_refused_fork,
			 last->m_refused_mmap);
		ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_NORMAL);
		pid_line(win, row++, x, cols, "PIDs, kernel:", last->k_pid, last->nprocs);
		pid_line(win, row++, x, cols, "PIDs, model: ", last->m_pid, last->nprocs);
		snprintf(line, sizeof(line), "Fork until refused: %u forked, errno %s, %d PIDs in "
			 "use then", last->limit_forked, last->limit_errno, last->limit_in_use);
		ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_NORMAL);
	}
	if (row < y + h - 3)
		ui_frame_put(win, y + h - 3, x + 1, "Times: the model's (QEMU models no cache). "
			     "Kernel PIDs: init, sh, parent too.", cols - 2,
			     UI_ROLE_DIM);
	status_line(s, win, y + h - 2, x, cols);
	ui_frame_footer(win, y + h - 1, x, cols, keys, sizeof(keys) / sizeof(keys[0]));
}

static void draw_running(struct ui_lab_fcse *s, WINDOW *win, int y, int x, int h, int cols)
{
	static const char *const keys[] = { "m", "next mode", "q", "stop" };
	const struct fcse_live *l = &s->snap;
	int row = y + 1, crow = h >= 24 ? 3 : h >= 20 ? 2 : 0;
	char line[256];

	pthread_mutex_lock(&s->live.lock);
	s->snap = s->live;
	pthread_mutex_unlock(&s->live.lock);
	if (s->params.live) {
		draw_live(s, win, y, x, h, cols);
		return;
	}
	title(s, win, y, x, cols, "running");
	snprintf(line, sizeof(line), "Mode %-11s workload %-7s  %.1f simulated ms",
		 l->mode >= 0 ? sim_fcse_mode_names[l->mode] : "starting", l->workload,
		 (double)l->time_ns / 1e6);
	ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_NORMAL);
	row = draw_slots(l, win, row, x, cols);
	if (crow) {
		row = draw_cache(l, false, win, row, x, cols, crow);
		row = draw_cache(l, true, win, row, x, cols, crow);
	}
	snprintf(line, sizeof(line), "accesses %.1f M  switches %llu  flushes %llu  refused %llu",
		 (double)l->accesses / 1e6, (unsigned long long)l->switches,
		 (unsigned long long)l->flushes, (unsigned long long)l->refused);
	ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_NORMAL);
	snprintf(line, sizeof(line), "RT latency avg %.1f us max %.1f us (%llu jobs)  switch "
		 "avg %.1f us", l->releases ? (double)l->latency_sum_ns / 1e3 /
		 (double)l->releases : 0.0, (double)l->latency_max_ns / 1e3,
		 (unsigned long long)l->releases, l->switches ? (double)l->switch_sum_ns / 1e3 /
		 (double)l->switches : 0.0);
	ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_NORMAL);
	snprintf(line, sizeof(line), "I miss %.2f %%  D miss %.2f %%   SIMULATED: a model, not "
		 "this machine", pct(l->i_misses, l->i_accesses), pct(l->d_misses, l->d_accesses));
	if (row < y + h - 2)
		ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_DIM);
	status_line(s, win, y + h - 2, x, cols);
	ui_frame_footer(win, y + h - 1, x, cols, keys, sizeof(keys) / sizeof(keys[0]));
}

static void draw_done(struct ui_lab_fcse *s, WINDOW *win, int y, int x, int h, int cols)
{
	static const char *const keys[] = {
		"r", "new run", "arrows", "scroll", "?", "help", "q", "back",
	};
	const struct rt_result *res = ui_lab_run_result(&s->run);
	int row = y + 2, bottom = y + h - 3;
	char line[512];

	title(s, win, y, x, cols, ui_lab_run_interrupted(&s->run) ? "stopped early" : "done");
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

static void ui_lab_fcse_draw(struct ui_lab_fcse *s, WINDOW *win, int y, int x, int h, int cols)
{
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

/* ---- Keys, help, the end ----------------------------------------------------------- */

static enum ui_lab_action ui_lab_fcse_key(struct ui_lab_fcse *s, int key)
{
	enum ui_lab_action act;

	if (ui_lab_run_key(&s->run, key, &act))
		return act;
	switch (s->run.state) {
	case UI_LAB_SETUP:
		if (key == 'm')
			s->choice = (s->choice + 1) % NCHOICE;
		else if (key == 'w')
			s->workload = (s->workload + 1) % NWORKLOADS;
		else if (key == 'l')
			s->live_on = !s->live_on;
		break;
	case UI_LAB_RUNNING:
		if (key == 'm' && !s->params.live) {
			int now = s->snap.mode < 0 ? 0 : s->snap.mode;
			int next = (now + 1) % SIM_FCSE_NMODES;

			__atomic_store_n(&s->live.mode_req, next, __ATOMIC_RELAXED);
			ui_lab_run_say(&s->run, false, "switching to %s: a new simulation",
				       sim_fcse_mode_names[next]);
		}
		break;
	case UI_LAB_STOPPING:
		break;
	case UI_LAB_DONE:
		ui_views_key(&s->views, key);
		break;
	}
	return UI_LAB_NONE;
}

static const struct ui_help_line fcse_help[] = {
	{ NULL, "FCSE lab (a simulation): setup" },
	{ "m", "modes: all three, or flush, guaranteed or best-effort alone" },
	{ "w", "workload: mixed, small, thrash or many" },
	{ "l", "live: boot the FCSE kernel in QEMU too, its counts beside the model's" },
	{ "Enter, r", "run" },
	{ NULL, "While it runs" },
	{ "m", "switch to the next mode: a new simulation in it (not live)" },
	{ "q, Esc", "stop, save what was simulated, back" },
	{ NULL, "Summary" },
	{ "arrows, PgUp/PgDn", "scroll the tables" },
	{ "r, Enter", "back to the setup" },
	{ NULL, NULL },
};

static const struct ui_help_line *ui_lab_fcse_help(struct ui_lab_fcse *s)
{
	(void)s;
	return fcse_help;
}

static void ui_lab_fcse_fini(struct ui_lab_fcse *s)
{
	ui_lab_run_fini(&s->run);
	if (s->have_doctor)
		doctor_report_fini(&s->doctor);
	ui_views_fini(&s->views);
	if (s->live.lock_ready)
		pthread_mutex_destroy(&s->live.lock);
	memset(s, 0, sizeof(*s));
}

UI_LAB_SCREEN(fcse, struct ui_lab_fcse);
