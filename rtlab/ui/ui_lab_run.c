/*
 * ui_lab_run: the run lifecycle every live lab screen shares.
 *
 * Threads: the UI thread only draws and takes keys. A run is one worker
 * thread that calls lab->run() with no sink (the screen reads the lab's live
 * model instead of progress lines), exactly what `rtlab lab run` does. It
 * stores the run's return value, then sets done with release order; the UI
 * thread reads done with acquire order each loop turn, and only then looks
 * at res and joins the worker, so res is never read while the lab writes it.
 *
 * The worker is created with SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGWINCH
 * blocked, and the threads the lab starts inherit that mask: the signals
 * then reach the UI thread, whose handlers set a flag the loop polls. The
 * undo journal is opened after those handlers are installed, so it passes
 * a stop on to them rather than exiting.
 *
 * Where the document goes is settled before the run starts, with
 * lab_save_open() as the CLI does: a results directory that cannot be
 * written stops the run before it measures. A run that left a document is
 * saved at once with lab_save_commit() (a fallback place when the results
 * directory failed meanwhile, which the status line names) and recorded in
 * the progress file with lab_record_progress(); an interrupted run is saved
 * too, as partial, also when a signal (SIGHUP: the terminal closed) ended
 * the UI.
 */
#include "ui_lab_run.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curses.h>

#include "core/rt_journal.h"
#include "core/rt_log.h"
#include "core/rt_result.h"
#include "core/rt_sink.h"

#define KEY_ESC 27
#define STOP_POLL_NS (10 * 1000000L)

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
	char *cause = NULL;
	int ret;

	lab_result_fini(&r->res);
	free(r->saved_path);
	r->saved_path = NULL;
	r->saved_elsewhere = false;
	memset(&r->ctx, 0, sizeof(r->ctx));
	r->ctx.tier = doctor_tier_name(dlab->tier);
	r->ctx.degraded = dlab->degraded;
	r->ctx.degraded_why = dlab->degraded ? dlab->reason : NULL;
	r->ctx.env = &rep->env;
	r->ctx.params = params;
	r->ctx.stop = &r->stop;
	r->ctx.seed = seed;
	r->ctx.live = live;
	ret = r->lab->check_capabilities ? r->lab->check_capabilities(&r->ctx, &cause) : 0;
	if (ret)
		ui_lab_run_say(r, true, "%s", cause ? cause : strerror(-ret));
	free(cause);
	return ret;
}

/* ---- The worker -------------------------------------------------------------------- */

static void *worker_main(void *arg)
{
	struct ui_lab_run *r = arg;
	/* No progress lines: the screen reads the live model instead. */
	struct rt_sink sink = { 0 };

	r->run_ret = r->lab->run(&r->ctx, &sink, &r->res);
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static bool worker_done(const struct ui_lab_run *r)
{
	return __atomic_load_n(&r->done, __ATOMIC_ACQUIRE) != 0;
}

int ui_lab_run_start(struct ui_lab_run *r, bool need_journal)
{
	sigset_t block, old;
	char *cause = NULL;
	int ret;

	r->stop = 0;
	r->done = 0;
	r->close_after_stop = false;
	/* Before measuring: an unwritable results directory is found now, not after the run. */
	lab_save_fini(&r->save);
	ret = lab_save_open(&r->save, r->lab->name, NULL, &cause);
	if (ret) {
		ui_lab_run_say(r, true, "no run: %s", cause ? cause : strerror(-ret));
		rt_log(RT_LOG_ERR, "%s: no run: %s", r->lab->name, cause ? cause : strerror(-ret));
		free(cause);
		return ret;
	}
	/* The UI's signal handlers are installed, so the journal passes stops on to them. */
	r->journal = rt_journal_open(NULL, &cause);
	if (!r->journal) {
		ret = errno ? -errno : -EIO;
		if (need_journal) {
			ui_lab_run_say(r, true, "no undo journal, so no run: %s", cause ? cause :
				       "unknown error");
			free(cause);
			lab_save_fini(&r->save);
			return ret;
		}
		rt_log(RT_LOG_WARN, "no undo journal (%s); this run changes nothing that "
		       "outlives it, so it goes on", cause ? cause : "unknown error");
		free(cause);
	}
	r->ctx.journal = r->journal;
	/* The worker and the threads it starts leave the stop signals to this thread. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	sigaddset(&block, SIGWINCH);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	ret = pthread_create(&r->worker, NULL, worker_main, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		ui_lab_run_say(r, true, "cannot start the run: %s", strerror(ret));
		rt_journal_close(r->journal);
		r->journal = NULL;
		lab_save_fini(&r->save);
		return -ret;
	}
	r->worker_started = true;
	r->state = UI_LAB_RUNNING;
	return 0;
}

/* ---- The end of a run ------------------------------------------------------------- */

int ui_lab_run_save(struct ui_lab_run *r, bool record)
{
	char *cause = NULL;
	int ret;

	if (!r->res.res)
		return -ENODATA;
	if (r->saved_path) {
		/* Saved once: the same file again (answers added), which is this run's own. */
		ret = rt_result_write(r->res.res, r->saved_path, &cause);
	} else {
		/* Never saved (the run's save failed): a new default place. */
		ret = r->save.tmp ? 0 : lab_save_open(&r->save, r->lab->name, NULL, &cause);
		if (!ret)
			ret = lab_save_commit(&r->save, r->res.res, &cause);
	}
	if (ret) {
		ui_lab_run_say(r, true, "not saved: %s", cause ? cause : strerror(-ret));
		rt_log(RT_LOG_ERR, "%s: results not saved: %s", r->lab->name,
		       cause ? cause : strerror(-ret));
		free(cause);
		lab_save_fini(&r->save);
		return ret;
	}
	if (!r->saved_path) {
		r->saved_elsewhere = r->save.missed != NULL;
		if (r->save.missed)
			rt_log(RT_LOG_WARN, "%s: %s; results saved instead to %s", r->lab->name,
			       r->save.missed, r->save.path);
		r->saved_path = r->save.path;
		r->save.path = NULL;
		lab_save_fini(&r->save);
	}
	if (record)
		lab_record_progress(r->lab->name, r->res.interrupted ? "interrupted" : "done",
				    r->saved_path);
	return 0;
}

/* The worker has returned: join it, close the journal, let the screen look, save. */
static void finish(struct ui_lab_run *r)
{
	const char *partial;
	int ret;

	pthread_join(r->worker, NULL);
	r->worker_started = false;
	if (r->journal) {
		rt_journal_close(r->journal);
		r->journal = NULL;
	}
	ret = r->run_ret || !r->res.res ? (r->run_ret < 0 ? r->run_ret : -EIO) : 0;
	r->ops->ended(r->owner, ret);
	if (ret) {
		lab_save_fini(&r->save);
		r->state = UI_LAB_SETUP;
		return;
	}
	if (ui_lab_run_save(r, true) == 0) {
		partial = r->res.interrupted ? " (stopped early: partial)" : "";
		ui_lab_run_say(r, r->saved_elsewhere, "results saved %sto %s%s",
			       r->saved_elsewhere ? "(results directory failed) " : "",
			       r->saved_path, partial);
		rt_log(RT_LOG_INFO, "%s: results saved to %s%s", r->lab->name, r->saved_path,
		       partial);
	}
	r->state = UI_LAB_DONE;
}

bool ui_lab_run_busy(const struct ui_lab_run *r)
{
	return r->state == UI_LAB_RUNNING || r->state == UI_LAB_STOPPING;
}

enum ui_lab_action ui_lab_run_tick(struct ui_lab_run *r)
{
	bool close;

	if (!ui_lab_run_busy(r) || !worker_done(r))
		return UI_LAB_NONE;
	close = r->close_after_stop;
	finish(r);
	return close ? UI_LAB_CLOSE : UI_LAB_NONE;
}

void ui_lab_run_fini(struct ui_lab_run *r)
{
	if (r->worker_started) {
		r->stop = 1;
		while (!worker_done(r)) {
			struct timespec ts = { 0, STOP_POLL_NS };

			nanosleep(&ts, NULL);
		}
		finish(r);
	}
	lab_result_fini(&r->res);
	lab_save_fini(&r->save);
	free(r->saved_path);
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
		r->stop = 1;
		r->close_after_stop = true;
		r->state = UI_LAB_STOPPING;
		ui_lab_run_say(r, false, "%s", r->ops->stopping);
		return true;
	case UI_LAB_STOPPING:
		return true;
	case UI_LAB_DONE:
		if (!enter)
			break;
		r->state = UI_LAB_SETUP;
		r->message[0] = '\0';
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
