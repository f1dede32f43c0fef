/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_lab_run: the run lifecycle every live lab screen shares, as a thin
 * state machine over the library's run session (rtlab/run/run.h), which
 * `rtlab lab run` uses too: the setup panel, the run on the session's worker
 * thread, the stop asked with q, and the summary.
 *
 * The session does the work and keeps its rules: the doctor's verdict and
 * the lab's capability check, the document's place settled before anything
 * is measured (an unwritable results directory refuses the run on the
 * setup panel), the undo journal opened after the UI's signal handlers (so
 * it passes a stop on to them), the worker with the stop signals blocked
 * (so they reach the UI thread), and the save: views, predictions and
 * answers copied, the document committed (a fallback place when the results
 * directory failed meanwhile, which the status line names) and the run
 * recorded in the progress file. An interrupted run is saved too, as
 * partial, also when a signal (SIGHUP: the terminal closed) ended the UI.
 */
#include "ui_lab_run.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curses.h>

#include "core/rt_log.h"
#include "core/rt_result.h"
#include "core/rt_time.h"
#include "ui_log.h"

#define KEY_ESC 27
#define STOP_POLL_MS 10u

void ui_lab_run_say(struct ui_lab_run *r, bool warn, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->message, sizeof(r->message), fmt, ap);
	va_end(ap);
	r->message_warn = warn;
}

void ui_lab_run_init(struct ui_lab_run *r, const struct lab_ops *lab,
		     const struct ui_lab_run_ops *ops, void *owner)
{
	memset(r, 0, sizeof(*r));
	r->lab = lab;
	r->ops = ops;
	r->owner = owner;
	r->state = UI_LAB_SETUP;
}

bool ui_lab_run_probe(const struct lab_ops *lab, struct doctor_report *rep,
		      const struct doctor_lab **dlab)
{
	struct doctor_opts o;
	char *cause = NULL;
	bool ok = false;

	*dlab = NULL;
	/* As the CLI's run: measured facts, but nothing mounted or created. */
	doctor_opts_quick(&o, lab);
	if (doctor_probe(rep, &o, &cause) == 0) {
		ok = true;
		for (size_t i = 0; i < rep->nlabs; i++)
			if (rep->labs[i].lab == lab)
				*dlab = &rep->labs[i];
	} else {
		rt_log(RT_LOG_WARN, "%s: %s", lab->name, cause ? cause :
		       "the machine was not probed");
	}
	free(cause);
	return ok;
}

int ui_lab_run_prepare(struct ui_lab_run *r, const struct doctor_report *rep,
		       const struct doctor_lab *dlab, void *params, void *live, uint64_t seed)
{
	struct run_opts o = {
		.lab = r->lab,
		.params = params,
		.seed = seed,
		.live = live,
		.doctor = rep,
	};
	char *cause = NULL;
	int ret;

	(void)dlab;	/* the session finds the lab's verdict in @rep */
	run_session_fini(&r->session);
	r->prepared = false;
	r->saved_path = NULL;
	r->saved_elsewhere = false;
	ret = run_session_init(&r->session, &o, &cause);
	if (ret) {
		if (r->session.step == RUN_STEP_SAVE) {
			ui_lab_run_say(r, true, "no run: %s", cause ? cause : strerror(-ret));
			rt_log(RT_LOG_ERR, "%s: no run: %s", r->lab->name,
			       cause ? cause : strerror(-ret));
		} else {
			ui_lab_run_say(r, true, "%s", cause ? cause : strerror(-ret));
		}
		free(cause);
		run_session_fini(&r->session);
		return ret;
	}
	r->prepared = true;
	return 0;
}

int ui_lab_run_start(struct ui_lab_run *r, bool need_journal)
{
	char *cause = NULL;
	int ret;

	if (!r->prepared)
		return -EINVAL;
	r->close_after_stop = false;
	r->session.opts.need_journal = need_journal;
	r->log_serial = ui_log_serial();
	/* The UI's signal handlers are installed, so the journal passes stops on to them. */
	ret = run_session_start(&r->session, &cause);
	if (ret) {
		ui_lab_run_say(r, true, "%s", cause ? cause : strerror(-ret));
		free(cause);
		run_session_fini(&r->session);
		r->prepared = false;
		return ret;
	}
	r->state = UI_LAB_RUNNING;
	return 0;
}

/* ---- The end of a run ------------------------------------------------------------- */

struct rt_result *ui_lab_run_result(const struct ui_lab_run *r)
{
	return r->prepared ? run_session_result(&r->session) : NULL;
}

bool ui_lab_run_interrupted(const struct ui_lab_run *r)
{
	return r->prepared && run_session_interrupted(&r->session);
}

int ui_lab_run_save(struct ui_lab_run *r, bool record)
{
	char *cause = NULL;
	int ret;

	if (!ui_lab_run_result(r))
		return -ENODATA;
	ret = run_session_save(&r->session, record, &cause);
	if (ret) {
		ui_lab_run_say(r, true, "not saved: %s", cause ? cause : strerror(-ret));
		rt_log(RT_LOG_ERR, "%s: results not saved: %s", r->lab->name,
		       cause ? cause : strerror(-ret));
		free(cause);
		return ret;
	}
	if (!r->saved_path) {
		r->saved_path = r->session.path;
		r->saved_elsewhere = r->session.missed != NULL;
		if (r->session.missed)
			rt_log(RT_LOG_WARN, "%s: %s; results saved instead to %s", r->lab->name,
			       r->session.missed, r->session.path);
	}
	return 0;
}

/* The worker has returned: join it (the journal closes), let the screen look, save. */
static void finish(struct ui_lab_run *r)
{
	const char *partial;
	int ret;

	ret = run_session_join(&r->session);
	r->ops->ended(r->owner, ret);
	if (ret) {
		r->state = UI_LAB_SETUP;
		return;
	}
	if (ui_lab_run_save(r, true) == 0) {
		partial = ui_lab_run_interrupted(r) ? " (stopped early: partial)" : "";
		ui_lab_run_say(r, r->saved_elsewhere, "results saved %sto %s%s",
			       r->saved_elsewhere ? "(results directory failed) " : "",
			       r->saved_path, partial);
		rt_log(RT_LOG_INFO, "%s: results saved to %s%s", r->lab->name, r->saved_path,
		       partial);
	}
	r->state = UI_LAB_DONE;
}

void ui_lab_run_failed(struct ui_lab_run *r, int ret)
{
	const char *log = getenv("RTLAB_LOG");
	enum rt_log_level level;
	char why[200];

	/* "the log has the details" named no log: the lab's own cause is the detail. */
	if (ui_log_serial() != r->log_serial && ui_log_last(why, sizeof(why), &level) &&
	    level == RT_LOG_ERR)
		ui_lab_run_say(r, true, "the run failed: %s", why);
	else
		ui_lab_run_say(r, true, "the run failed (%s)%s%s", strerror(-ret),
			       log && *log ? "; the log is in " : "", log && *log ? log : "");
}

bool ui_lab_run_busy(const struct ui_lab_run *r)
{
	return r->state == UI_LAB_RUNNING || r->state == UI_LAB_STOPPING;
}

enum ui_lab_action ui_lab_run_tick(struct ui_lab_run *r)
{
	bool close;

	if (!ui_lab_run_busy(r) || !run_session_done(&r->session))
		return UI_LAB_NONE;
	close = r->close_after_stop;
	finish(r);
	return close ? UI_LAB_CLOSE : UI_LAB_NONE;
}

void ui_lab_run_fini(struct ui_lab_run *r)
{
	if (r->session.worker_started) {
		run_session_stop(&r->session);
		while (!run_session_done(&r->session))
			rt_time_sleep_ms(STOP_POLL_MS, NULL);
		finish(r);
	}
	run_session_fini(&r->session);
	memset(r, 0, sizeof(*r));
}

/* ---- Keys -------------------------------------------------------------------------- */

bool ui_lab_run_key(struct ui_lab_run *r, int key, enum ui_lab_action *act)
{
	bool enter = key == '\n' || key == '\r' || key == KEY_ENTER || key == 'r';
	bool quit = key == 'q' || key == KEY_ESC;

	*act = UI_LAB_NONE;
	switch (r->state) {
	case UI_LAB_SETUP:
		if (!enter)
			break;
		r->ops->start(r->owner);
		return true;
	case UI_LAB_RUNNING:
		if (!quit)
			break;
		run_session_stop(&r->session);
		r->close_after_stop = true;
		r->state = UI_LAB_STOPPING;
		ui_lab_run_say(r, false, "%s", r->ops->stopping);
		return true;
	case UI_LAB_STOPPING:
		return true;
	case UI_LAB_DONE:
		/* Leaving drops a document that could not be saved: say so once first. */
		if (quit && ui_lab_run_result(r) && !r->saved_path && !r->leave_unsaved) {
			r->leave_unsaved = true;
			ui_lab_run_say(r, true, "these results are NOT saved: q again leaves "
				       "without them");
			return true;
		}
		if (!enter)
			break;
		r->state = UI_LAB_SETUP;
		r->message[0] = '\0';
		r->leave_unsaved = false;
		return true;
	}
	if (key == '?')
		*act = UI_LAB_HELP;
	else if (quit)
		*act = UI_LAB_CLOSE;
	else
		return false;
	return true;
}
