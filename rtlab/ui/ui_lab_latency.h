/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_lab_latency: the latency lab's live screen, opened with Enter on the
 * lab in the menu. Three states: a setup panel (which scenarios, how long,
 * whether real-time policies are permitted here, the learner's predictions),
 * the live run (per-thread table, a log-scale latency plot, a progress bar
 * per scenario) and the summary (prediction against measurement, where the
 * results document went).
 *
 * The screen never measures. The lab runs on a worker thread of its own
 * (which starts the measuring threads, as `rtlab lab run` does) and keeps
 * the lab's live model current; the screen copies that model with
 * latency_live_snapshot() when it draws, about ten times a second.
 */
#ifndef RTLAB_UI_UI_LAB_LATENCY_H
#define RTLAB_UI_UI_LAB_LATENCY_H

#include <stdbool.h>
#include <stdint.h>

#include <curses.h>

#include "doctor/doctor.h"
#include "labs/lab.h"
#include "labs/lab_latency.h"
#include "ui_help.h"
#include "ui_lab_run.h"
#include "ui_views.h"

#define UI_LAB_MAX_PREDICTIONS 16u
#define UI_LAB_PLOT_BUCKETS (LATENCY_MAX_HIST_US + 1u)

/* A predict question of the lessons that concerns this lab, and the learner's answer. */
struct ui_lab_prediction {
	char lesson[8];			/* "03", as lesson_predict_q has it */
	char id[48];
	char scenario[LATENCY_NAME_MAX];
	char metric[24];
	char unit[12];
	bool have;			/* the learner answered it */
	double value;
};

struct ui_lab_latency {
	/* The run's lifecycle and the status message; run.lab is lab_latency. */
	struct ui_lab_run run;

	/* Setup */
	bool chosen[LATENCY_MAX_SCENARIOS];
	unsigned int cursor;		/* row in latency_scenarios */
	unsigned int duration_ms;	/* per scenario */
	struct doctor_report doctor;	/* owned; measured facts, probed once at init */
	bool have_doctor;
	const struct doctor_lab *dlab;	/* borrowed from doctor */
	struct ui_lab_prediction preds[UI_LAB_MAX_PREDICTIONS];
	unsigned int npreds;

	/* What the run's ctx borrows: the options and the live model. */
	struct latency_params params;
	struct latency_live live;
	bool live_ok;

	/* What the screen shows */
	struct latency_live_snap snap;	/* the last copy; frozen while paused */
	uint64_t *counts;		/* owned; snap.counts points here */
	bool paused;
	unsigned int last_index;	/* for the per-scenario progress bars */
	unsigned int last_pct[LATENCY_MAX_SCENARIOS];
	char *html_path;		/* owned: the HTML report written by w */
	struct ui_views views;		/* the summary: the document's views */
	const struct rt_result *views_of;	/* the document views holds, or NULL */
};

/**
 * ui_lab_latency_init - the setup panel for @lab (lab_latency)
 *
 * Probes the machine once (the doctor without side effects) and reads the
 * learner's predictions from the lessons and the progress file. Returns 0
 * or a negative errno. Release with ui_lab_latency_fini(), which also
 * stops a run that is still on.
 */
int ui_lab_latency_init(struct ui_lab_latency *s, const struct lab_ops *lab);

/* Stop a run that is on (journal replayed, load stopped), save what it measured, free all. */
void ui_lab_latency_fini(struct ui_lab_latency *s);

/* Draw the screen into the @h x @cols area at (@y, @x). */
void ui_lab_latency_draw(struct ui_lab_latency *s, WINDOW *win, int y, int x, int h, int cols);

/* React to @key. */
enum ui_lab_action ui_lab_latency_key(struct ui_lab_latency *s, int key);

/* The keys of this screen, for the help overlay. */
const struct ui_help_line *ui_lab_latency_help(const struct ui_lab_latency *s);

#endif
