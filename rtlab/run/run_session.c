/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * run_session: the one run lifecycle behind `rtlab lab run` and the TUI's
 * lab screens (run.h says the steps and their order).
 *
 * Two orderings are load-bearing and live only here:
 *
 *  - the stop signals' handlers are installed before the undo journal is
 *    opened: rt_journal_open() remembers the handlers it finds and passes a
 *    stop on to them, so a stop requested during the run reaches the lab's
 *    poll instead of ending the process;
 *  - the document's place is settled (lab_save_open()) before anything is
 *    measured, so a results directory that cannot be written costs the
 *    learner nothing.
 *
 * Threads (run_session_start()): the worker stores run()'s return value,
 * then sets done with release order; run_session_done() reads it with
 * acquire order, and only after that does anyone look at the result, so the
 * document is never read while the lab writes it.
 */
#include "run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/rt_err.h"
#include "core/rt_journal.h"
#include "core/rt_log.h"
#include "core/rt_result.h"
#include "core/rt_time.h"
#include "core/rt_sink.h"

#define STOP_POLL_MS 10u

int run_session_init(struct run_session *s, const struct run_opts *o, char **cause)
{
	const struct lab_ops *lab = o->lab;
	struct doctor_opts dopts;
	int ret;

	memset(s, 0, sizeof(*s));
	s->lab = lab;
	s->opts = *o;
	s->step = RUN_STEP_LAB;
	if (lab->state != LAB_STATE_READY || !lab->run) {
		if (lab->issue)
			return rt_err(cause, -ENOSYS, "the %s lab is planned and not available "
				      "yet (it is being built in issue #%u); `rtlab lab list` "
				      "shows which labs run", lab->name, lab->issue);
		return rt_err(cause, -ENOSYS, "the %s lab is planned and not available yet; "
			      "`rtlab lab list` shows which labs run", lab->name);
	}
	s->step = RUN_STEP_DOCTOR;
	if (o->doctor) {
		for (size_t i = 0; i < o->doctor->nlabs; i++)
			if (o->doctor->labs[i].lab == lab)
				s->dlab = &o->doctor->labs[i];
	} else {
		/* Measured facts, nothing mounted or created, only the probes this lab needs. */
		doctor_opts_quick(&dopts, lab);
		ret = doctor_probe(&s->doctor, &dopts, cause);
		if (ret)
			return ret;
		s->own_doctor = true;
		for (size_t i = 0; i < s->doctor.nlabs; i++)
			if (s->doctor.labs[i].lab == lab)
				s->dlab = &s->doctor.labs[i];
	}
	if (!s->dlab || s->dlab->tier == DOCTOR_TIER_NONE)
		return rt_err(cause, -EOPNOTSUPP, "the %s lab cannot run here: %s", lab->name,
			      s->dlab && s->dlab->reason ? s->dlab->reason :
			      "the doctor found no tier");

	s->ctx.env = o->doctor ? &o->doctor->env : &s->doctor.env;
	/* Measured live inside the classroom VM: the document says so (doc/results.md). */
	s->ctx.tier = s->dlab->tier == DOCTOR_TIER_HOST && s->ctx.env->classroom_vm ?
		      doctor_tier_name(DOCTOR_TIER_VM) : doctor_tier_name(s->dlab->tier);
	s->ctx.degraded = s->dlab->degraded;
	s->ctx.degraded_why = s->dlab->degraded ? s->dlab->reason : NULL;
	s->ctx.params = o->params;
	s->ctx.seed = o->seed;
	s->ctx.stop = &s->stop;
	s->ctx.progress_path = o->progress_path;
	s->ctx.live = o->live;
	s->step = RUN_STEP_CAPS;
	if (lab->check_capabilities) {
		ret = lab->check_capabilities(&s->ctx, cause);
		if (ret)
			return ret;
	}
	/* Before measuring: a place that cannot be written fails now, not after the run. */
	s->step = RUN_STEP_SAVE;
	ret = lab_save_open(&s->save, lab->name, o->json_path, cause);
	if (!ret)
		s->step = RUN_STEP_READY;
	return ret;
}

/* The journal of a run; without one the run goes on only if it does not need one. */
static int journal_open(struct run_session *s, char **cause)
{
	char *why = NULL;

	s->journal = rt_journal_open(NULL, &why);
	s->ctx.journal = s->journal;
	if (s->journal)
		return 0;
	if (s->opts.need_journal) {
		int ret = rt_err(cause, -EIO, "no undo journal, so no run: %s",
				 why ? why : "unknown error");

		free(why);
		return ret;
	}
	rt_log(RT_LOG_WARN, "no undo journal (%s); this run changes nothing that outlives it, "
	       "so it goes on", why ? why : "unknown error");
	free(why);
	return 0;
}

static void journal_close(struct run_session *s)
{
	if (s->journal) {
		rt_journal_close(s->journal);
		s->journal = NULL;
		s->ctx.journal = NULL;
	}
}

/* What a finished run() left: 0 with a document, else why not. */
static int run_outcome(const struct run_session *s)
{
	if (s->run_ret)
		return s->run_ret < 0 ? s->run_ret : -EIO;
	return s->res.res ? 0 : -EIO;
}

/* ---- On the calling thread -------------------------------------------------------- */

/* The run exec() is on; a signal handler has nothing else to reach it by. */
static struct run_session *volatile exec_session;

static void on_stop(int sig)
{
	struct run_session *s = exec_session;

	if (s) {
		s->stop_signal = sig;
		s->stop = sig;
	}
}

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NSTOP_SIGNALS (sizeof(stop_signals) / sizeof(stop_signals[0]))

int run_session_exec(struct run_session *s, char **cause)
{
	static const struct rt_sink no_sink;
	struct sigaction sa, old[NSTOP_SIGNALS];
	int ret;

	exec_session = s;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSTOP_SIGNALS; i++)
		sigaction(stop_signals[i], &sa, &old[i]);
	/* After our handlers: the journal passes stop requests on to them. */
	ret = journal_open(s, cause);
	if (!ret) {
		s->run_ret = s->lab->run(&s->ctx, s->opts.sink ? s->opts.sink : &no_sink,
					 &s->res);
		__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
		journal_close(s);
		ret = run_outcome(s);
		if (ret)
			rt_err(cause, ret, "the %s lab failed (%s)", s->lab->name,
			       strerror(-ret));
	}
	for (size_t i = 0; i < NSTOP_SIGNALS; i++)
		sigaction(stop_signals[i], &old[i], NULL);
	exec_session = NULL;
	return ret;
}

/* ---- On a worker thread ------------------------------------------------------------ */

static void *worker_main(void *arg)
{
	struct run_session *s = arg;
	/* No progress lines: the front end reads the lab's live model instead. */
	struct rt_sink sink = { 0 };

	s->run_ret = s->lab->run(&s->ctx, &sink, &s->res);
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

int run_session_start(struct run_session *s, char **cause)
{
	sigset_t block, old;
	int ret;

	s->stop = 0;
	s->done = 0;
	ret = journal_open(s, cause);
	if (ret)
		return ret;
	/* The worker and the threads it starts leave the stop signals to the caller's thread. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	sigaddset(&block, SIGWINCH);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	ret = pthread_create(&s->worker, NULL, worker_main, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		journal_close(s);
		return rt_err(cause, -ret, "cannot start the run: %s", strerror(ret));
	}
	s->worker_started = true;
	return 0;
}

bool run_session_done(const struct run_session *s)
{
	return __atomic_load_n(&s->done, __ATOMIC_ACQUIRE) != 0;
}

void run_session_stop(struct run_session *s)
{
	s->stop = 1;
}

int run_session_join(struct run_session *s)
{
	if (s->worker_started) {
		pthread_join(s->worker, NULL);
		s->worker_started = false;
	}
	journal_close(s);
	return run_outcome(s);
}

/* ---- The document ------------------------------------------------------------------ */

int run_session_save(struct run_session *s, bool record, char **cause)
{
	char *why = NULL;
	int ret;

	if (!s->res.res)
		return rt_err(cause, -ENODATA, "the run left no document");
	if (s->path) {
		/* Saved once: the same file again, which is this run's own. */
		return rt_result_write(s->res.res, s->path, cause);
	}
	ret = run_copy_progress(s->res.res, s->lab, s->opts.progress_path);
	if (!ret && s->ctx.env->virtual_time && !rt_result_simulated(s->res.res))
		ret = rt_result_add_note(s->res.res, RUN_VIRTUAL_TIME_NOTE);
	if (ret)
		return rt_err(cause, ret, "out of memory");
	/* A lab that cannot describe its outcome costs the tables, never the measurement. */
	ret = run_add_views(s->res.res, s->lab, &why);
	if (ret) {
		rt_log(RT_LOG_ERR, "%s: the lab's views were not added: %s", s->lab->name,
		       why ? why : strerror(-ret));
		ret = rt_result_add_note(s->res.res, "the lab's tables (views) could not be "
					 "added to this document; `rtlab lab report` makes them "
					 "again from the rest");
		free(why);
		if (ret)
			return rt_err(cause, ret, "out of memory");
	}
	/* A run whose save failed gets a new default place, never another run's file. */
	if (!ret && !s->save.tmp)
		ret = lab_save_open(&s->save, s->lab->name, s->opts.json_path, cause);
	if (!ret)
		ret = lab_save_commit(&s->save, s->res.res, cause);
	if (ret) {
		lab_save_fini(&s->save);
		return ret;
	}
	s->path = s->save.path;
	s->save.path = NULL;
	s->missed = s->save.missed;
	s->save.missed = NULL;
	lab_save_fini(&s->save);
	if (record && !s->recorded) {
		lab_record_progress(s->lab->name, s->res.interrupted ? "interrupted" : "done",
				    s->path, s->opts.json_path != NULL);
		s->recorded = true;
	}
	return 0;
}

struct rt_result *run_session_result(const struct run_session *s)
{
	return run_session_done(s) && !s->worker_started ? s->res.res : NULL;
}

bool run_session_interrupted(const struct run_session *s)
{
	return s->res.interrupted;
}

void run_session_fini(struct run_session *s)
{
	if (s->worker_started) {
		run_session_stop(s);
		while (!run_session_done(s))
			rt_time_sleep_ms(STOP_POLL_MS, NULL);
		run_session_join(s);
	}
	journal_close(s);
	lab_result_fini(&s->res);
	lab_save_fini(&s->save);
	if (s->own_doctor)
		doctor_report_fini(&s->doctor);
	free(s->path);
	free(s->missed);
	memset(s, 0, sizeof(*s));
}
