/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_lab_run: what every live lab screen does alike around one run of its
 * lab. A screen (ui_lab_latency, ui_lab_ftrace) embeds a struct ui_lab_run
 * and keeps only what is its own: the setup panel, the live model and how
 * it is drawn, the summary.
 *
 * The run is a small state machine shared by all those screens: the setup
 * panel, the run on a worker thread that calls lab->run() (as `rtlab lab
 * run` does), the stop asked with q, and the summary. This module starts
 * the worker (the undo journal opened first, the stop signals blocked so
 * that they reach the UI loop), notices when it returned, joins it, closes
 * the journal, saves the results document to the default path and records
 * it in the progress file, as the CLI does. It also holds the screen's
 * one-line status message, and reads the keys that mean the same on every
 * lab screen: Enter and r, ? and q.
 *
 * The screen tells the module what is its own through struct
 * ui_lab_run_ops: how to start a run (the screen checks its settings and
 * prepares the lab_ctx, then calls ui_lab_run_start()) and what to do once
 * the worker has been joined (the last look at the live model, and why a
 * failed run failed).
 */
#ifndef RTLAB_UI_UI_LAB_RUN_H
#define RTLAB_UI_UI_LAB_RUN_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "doctor/doctor.h"
#include "labs/lab.h"
#include "run/run.h"

struct rt_journal;

enum ui_lab_state {
	UI_LAB_SETUP,		/* choosing the settings of a run */
	UI_LAB_RUNNING,		/* the worker runs the lab; the screen draws the model */
	UI_LAB_STOPPING,	/* q was pressed: waiting for the worker to wind down */
	UI_LAB_DONE,		/* the summary of the finished run */
};

enum ui_lab_action {
	UI_LAB_NONE,
	UI_LAB_CLOSE,		/* back to the menu */
	UI_LAB_HELP,		/* show the help overlay for this screen */
};

/* What a screen adds to the shared run; static, one per screen. */
struct ui_lab_run_ops {
	/*
	 * Enter or r on the setup panel: check the settings, fill the ctx
	 * (ui_lab_run_prepare()) and call ui_lab_run_start(), or say why not.
	 */
	void (*start)(void *owner);
	/*
	 * The worker has been joined and the journal closed. @ret is 0 when the
	 * run left a document (which ui_lab_run then saves), else a negative
	 * errno: the screen says why the run failed.
	 */
	void (*ended)(void *owner, int ret);
	const char *stopping;	/* the status message when q stops a run */
};

struct ui_lab_run {
	const struct lab_ops *lab;		/* borrowed */
	const struct ui_lab_run_ops *ops;	/* borrowed, static */
	void *owner;				/* borrowed: the screen, passed to ops */
	enum ui_lab_state state;

	/* The run itself: the library's session, as `rtlab lab run` uses it. */
	struct run_session session;
	bool prepared;				/* session holds a run (init succeeded) */
	bool close_after_stop;			/* q while running: close once stopped */
	bool leave_unsaved;			/* q on an unsaved summary was warned about */

	const char *saved_path;			/* borrowed from session: where it went, or NULL */
	bool saved_elsewhere;			/* a fallback place: the results dir failed */
	char message[256];			/* one line of feedback for the status row */
	bool message_warn;
	unsigned long log_serial;		/* ui_log_serial() when the run started */
};

/*
 * ui_lab_run_failed - say on the status row why the run failed: the error
 * the lab logged during the run (its cause: a missing image, a file that
 * is no trace...), else @ret's text and where $RTLAB_LOG keeps the log.
 */
void ui_lab_run_failed(struct ui_lab_run *r, int ret);

/**
 * ui_lab_run_init - an idle run (the setup panel) of @lab for a screen
 * @r: the caller's storage, embedded in the screen
 * @lab: the lab; borrowed, it outlives @r
 * @ops: the screen's part; static
 * @owner: the screen, passed to @ops; it outlives @r
 *
 * Release with ui_lab_run_fini().
 */
void ui_lab_run_init(struct ui_lab_run *r, const struct lab_ops *lab,
		     const struct ui_lab_run_ops *ops, void *owner);

/**
 * ui_lab_run_fini - stop a run that is on, finish it, free what @r owns
 *
 * A run still on is stopped (its stop flag set, as q does) and waited for,
 * then finished as ui_lab_run_tick() finishes it: @ops->ended runs and the
 * document is saved. Call it before freeing what @ops->ended and the lab's
 * ctx use (the live model, the doctor's report). @r is zeroed.
 */
void ui_lab_run_fini(struct ui_lab_run *r);

/**
 * ui_lab_run_probe - measure the machine for a run of @lab, as the CLI's run does
 * @lab: the lab
 * @rep: the caller's storage; filled when this returns true, then release
 *       it with doctor_report_fini()
 * @dlab: set to @lab's verdict inside @rep (borrowed from it), or NULL
 *
 * Nothing is mounted or created. Returns true when the machine was probed;
 * otherwise the reason is logged and @rep holds nothing to release.
 */
bool ui_lab_run_probe(const struct lab_ops *lab, struct doctor_report *rep,
		      const struct doctor_lab **dlab);

/**
 * ui_lab_run_prepare - fill the ctx of the next run and ask the lab about it
 * @r: an idle run
 * @rep: the doctor's report (its env is recorded); borrowed until the run ended
 * @dlab: the lab's verdict in @rep, whose tier is not DOCTOR_TIER_NONE
 * @params: the lab's parsed options; borrowed until the run ended
 * @live: the lab's live model, or NULL; borrowed until the run ended
 * @seed: the run's seed
 *
 * The last run's document is freed, and where it was saved forgotten; then
 * the lab's check_capabilities() is asked about the filled r->ctx. Returns
 * 0, or its negative errno after putting its reason on the status line.
 */
int ui_lab_run_prepare(struct ui_lab_run *r, const struct doctor_report *rep,
		       const struct doctor_lab *dlab, void *params, void *live, uint64_t seed);

/**
 * ui_lab_run_start - settle where the document goes, open the undo journal
 * and start the worker on r->ctx
 * @r: a prepared run
 * @need_journal: refuse to run without a journal (a lab that writes to the
 *                host); otherwise a run without one only logs a warning
 *
 * The worker, and the threads the lab starts, block the stop signals, so
 * they reach the UI loop, which should make the screen stop the run.
 * A results directory that cannot be written refuses the run here, before
 * it measures (lab_save_open()). Returns 0 with the state UI_LAB_RUNNING,
 * or a negative errno after saying why on the status line (the state is
 * unchanged).
 */
int ui_lab_run_start(struct ui_lab_run *r, bool need_journal);

/**
 * ui_lab_run_tick - notice a run that ended: join, save, record progress
 *
 * Call once per loop turn, also while the terminal is too small to draw.
 * A run that left a document is saved (ui_lab_run_save()) and the state
 * becomes UI_LAB_DONE; a failed one goes back to UI_LAB_SETUP. Returns
 * UI_LAB_CLOSE when a stop asked with q has completed.
 */
enum ui_lab_action ui_lab_run_tick(struct ui_lab_run *r);

/* True while a run is on: the caller then redraws about ten times a second. */
bool ui_lab_run_busy(const struct ui_lab_run *r);

/**
 * ui_lab_run_key - the keys that mean the same on every lab screen
 * @r: the screen's run
 * @key: the key
 * @act: set to what the screen returns for @key when it was taken
 *
 * On the setup panel Enter and r start a run (@ops->start); on the summary
 * they go back to the setup panel. While a run is on, q and Esc stop it and
 * close the screen once it stopped; while it stops, every key is taken and
 * ignored. Otherwise ? asks for help and q and Esc close the screen. Returns
 * true when @key was taken, false when it is the screen's to read.
 */
bool ui_lab_run_key(struct ui_lab_run *r, int key, enum ui_lab_action *act);

/**
 * ui_lab_run_save - write the document to the default results path
 * @r: a run whose document exists
 * @record: also note the run in the learner's progress file
 *
 * The first save commits what ui_lab_run_start() opened (lab_save_commit():
 * a fresh name, or a fallback place, never another run's file). Once saved,
 * the document goes to the same file again, not to a copy.
 * Returns 0 (r->saved_path says where), or a negative errno after saying
 * why on the status line; -ENODATA when there is no document.
 */
int ui_lab_run_save(struct ui_lab_run *r, bool record);

/* The last run's document, or NULL (none yet, or a run is on). */
struct rt_result *ui_lab_run_result(const struct ui_lab_run *r);

/* True when the last run was stopped early: its document is partial. */
bool ui_lab_run_interrupted(const struct ui_lab_run *r);

/* Set the status message, a warning when @warn; it stays until replaced or cleared. */
void ui_lab_run_say(struct ui_lab_run *r, bool warn, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
