/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_lab_ftrace: the ftrace lab's live screen, opened with Enter on the lab
 * in the menu. A setup panel (event or tracer mode, which latency tracers
 * this kernel has and where to get the missing ones, tracing_thresh,
 * function-trace, the hunt and its seed, the duration, and whether the lab
 * can run live here at all), the live run (progress, the probe's and the
 * events' wake-up counts and worst case so far), and the summary (both
 * distributions, their agreement, the tracer's latency, the notes, where
 * the document went). From the summary, v opens the trace viewer on this
 * run's document and d the diagnosis form of a hunt, which stores the
 * answers as `rtlab lab answer ftrace` does and shows the lab's grade.
 *
 * The screen never measures: lab_ftrace.run() runs on a worker thread, as
 * `rtlab lab run ftrace` runs it, and keeps a struct ftrace_live current;
 * the screen copies it when it draws.
 */
#ifndef RTLAB_UI_UI_LAB_FTRACE_H
#define RTLAB_UI_UI_LAB_FTRACE_H

#include <stdbool.h>
#include <stdint.h>

#include <curses.h>

#include "doctor/doctor.h"
#include "labs/lab.h"
#include "labs/lab_ftrace.h"
#include "ui_help.h"
#include "ui_lab_run.h"

struct ui_trace_view;

#define UI_FTRACE_MAX_KINDS 16u
#define UI_FTRACE_SEED_MAX 21u		/* 20 digits hold any 64-bit seed */
#define UI_FTRACE_FUNC_MAX 96u

enum ui_ftrace_field {
	UI_FTRACE_FIELD_CAUSE,
	UI_FTRACE_FIELD_FUNCTION,
	UI_FTRACE_FIELD_TRACER,
	UI_FTRACE_NFIELDS,
};

/* The diagnosis form of a hunt: the three answers the grader compares. */
struct ui_ftrace_form {
	bool open;
	enum ui_ftrace_field field;	/* the one keys go to */
	unsigned int kind;		/* index into the screen's kinds */
	char function[UI_FTRACE_FUNC_MAX];
	unsigned int tracer;		/* 0 = "events", else 1 + index into offer.tracers */
};

struct ui_lab_ftrace {
	/* The run's lifecycle, its saved path and the status message; run.lab is lab_ftrace. */
	struct ui_lab_run run;

	/* Setup */
	unsigned int cursor;		/* a row of the settings */
	enum ftrace_mode mode;
	struct ftrace_offer offer;	/* the latency tracers, from the doctor's report */
	int tracer;			/* the chosen one (index into offer.tracers), -1 = none */
	unsigned int threshold_us;
	bool function_trace;
	bool hunt;
	char seed[UI_FTRACE_SEED_MAX];	/* typed by the learner; "" = random */
	unsigned int duration_ms;
	struct doctor_report doctor;	/* owned; probed once at init */
	bool have_doctor;
	const struct doctor_lab *dlab;	/* borrowed from doctor */
	struct ftrace_hunt_cause kinds[UI_FTRACE_MAX_KINDS];	/* what the lab can plant */
	unsigned int nkinds;

	/* What the run's ctx borrows: the options and the live model. */
	struct ftrace_params params;
	struct ftrace_live live;
	bool live_ok;
	struct ftrace_live_snap snap;	/* the last copy */
	bool seed_typed;		/* the run's seed came from the learner, so it may show */

	/* Summary */
	struct ui_trace_view *viewer;	/* owned while open */
	struct ui_ftrace_form form;
	struct grade_report grade;	/* owned: the grade of this run with the answers */
	bool graded;
};

/**
 * ui_lab_ftrace_init - the setup panel for @lab (lab_ftrace)
 *
 * Probes the machine once (the doctor without side effects: the tracers
 * come from its report). Returns 0 or a negative errno; release with
 * ui_lab_ftrace_fini() in either case, which also stops a run that is on.
 */
int ui_lab_ftrace_init(struct ui_lab_ftrace *s, const struct lab_ops *lab);

/* Stop a run that is on (instances removed, journal replayed), save it, free all. */
void ui_lab_ftrace_fini(struct ui_lab_ftrace *s);

/* Draw the screen into the @h x @cols area at (@y, @x). */
void ui_lab_ftrace_draw(struct ui_lab_ftrace *s, WINDOW *win, int y, int x, int h, int cols);

/* React to @key. */
enum ui_lab_action ui_lab_ftrace_key(struct ui_lab_ftrace *s, int key);

/* The help topic for '?': the trace viewer's keys while it is open, else this screen's. */
const struct ui_help_line *ui_lab_ftrace_help(const struct ui_lab_ftrace *s);

#endif
