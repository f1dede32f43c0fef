/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * run: one run of one lab, from the options a front end parsed to the
 * results document on disk. `rtlab lab run` and the TUI's lab screens both
 * go through this and only this, so a run behaves the same whichever front
 * end started it.
 *
 * A session goes through these steps, in this order:
 *
 *   run_session_init()   the lab is ready; the doctor measures the machine
 *                        (only the probes this lab's needs call for) and
 *                        gives the tier; the lab's context is filled and the
 *                        lab checks its capabilities; the place the document
 *                        will go is settled (a place that cannot be written
 *                        fails here, before anything is measured);
 *   run_session_exec()   the run, on the calling thread (the CLI): the stop
 *                        signals' handlers are installed first, then the undo
 *                        journal is opened (it passes a stop on to those
 *                        handlers instead of exiting), the lab runs, the
 *                        journal is closed, the handlers are restored;
 *   run_session_start()  or the run on a worker thread (the TUI), whose stop
 *                        signals are blocked so they reach the UI thread;
 *                        run_session_done() polls it, run_session_join()
 *                        ends it;
 *   run_session_save()   the lab's views, the learner's predictions and
 *                        written answers are copied into the document, which
 *                        is written where init settled (or to a fallback
 *                        place, which @missed names), and the run is recorded
 *                        in the progress file;
 *   run_session_fini()   frees; a run still on is stopped and joined first.
 *
 * The session never prints: what went wrong is a negative errno and a cause
 * a person can act on; the front end says it its own way.
 */
#ifndef RTLAB_RUN_RUN_H
#define RTLAB_RUN_RUN_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "doctor/doctor.h"
#include "labs/lab.h"

struct rt_journal;
struct rt_result;
struct rt_sink;

/* What the front end asks of a run. Everything is borrowed and outlives the session. */
struct run_opts {
	const struct lab_ops *lab;
	void *params;			/* the lab's parsed options, or NULL for its defaults */
	uint64_t seed;			/* recorded in the document */
	const char *json_path;		/* where the document goes; NULL: the state dir's results/ */
	const char *progress_path;	/* the progress file; NULL: the default */
	void *live;			/* the lab's live model, or NULL */
	/*
	 * The doctor's report to run on, with @lab's verdict in it; NULL: the
	 * session probes the machine itself (doctor_opts_quick()).
	 */
	const struct doctor_report *doctor;
	bool need_journal;		/* refuse to run without an undo journal */
	const struct rt_sink *sink;	/* progress for run_session_exec(); NULL: none */
};

/* How far run_session_init() got: the step it failed at, or RUN_STEP_READY. */
enum run_step {
	RUN_STEP_LAB,			/* the lab is only planned */
	RUN_STEP_DOCTOR,		/* the machine could not be probed, or has no tier */
	RUN_STEP_CAPS,			/* the lab's check_capabilities() said no */
	RUN_STEP_SAVE,			/* the document's place cannot be written */
	RUN_STEP_READY,
};

struct run_session {
	const struct lab_ops *lab;	/* borrowed */
	struct run_opts opts;
	enum run_step step;		/* where init stopped */
	struct doctor_report doctor;	/* owned when own_doctor */
	bool own_doctor;
	const struct doctor_lab *dlab;	/* the lab's verdict in the report */
	struct lab_ctx ctx;
	struct lab_result res;		/* owned; the worker's until done */
	struct rt_journal *journal;	/* owned while the run is on */
	struct lab_save save;
	volatile sig_atomic_t stop;	/* the run's stop flag (ctx.stop) */
	int stop_signal;		/* the signal that stopped an exec(), or 0 */
	int run_ret;			/* what lab->run() returned */

	pthread_t worker;
	bool worker_started;
	int done;			/* set (release) once run() returned */

	char *path;			/* owned: where the document went, once saved */
	char *missed;			/* owned: why not where asked (a fallback took it) */
	bool recorded;			/* the progress file has the run */
};

/**
 * run_session_init - get everything ready for one run of @o->lab
 * @s: the caller's storage; release with run_session_fini() also on failure
 * @o: the run's options, copied (what they point to is borrowed)
 * @cause: on failure, why, for a person
 *
 * Returns 0, or a negative errno: -ENOSYS for a lab that is only planned,
 * -EOPNOTSUPP when the doctor finds no tier for it here, the lab's own
 * error from check_capabilities(), or the error of settling the document's
 * place (lab_save_open()).
 */
int run_session_init(struct run_session *s, const struct run_opts *o, char **cause);

/**
 * run_session_exec - run the lab on this thread
 *
 * SIGINT, SIGTERM and SIGHUP set the run's stop flag while it runs (and
 * s->stop_signal says which came). The undo journal is opened after those
 * handlers, so it passes stops on; without a journal the run goes on with a
 * warning in the log unless the options asked for one. Returns 0 when the
 * run left a document (maybe interrupted), else a negative errno with @cause.
 */
int run_session_exec(struct run_session *s, char **cause);

/**
 * run_session_start - open the undo journal and run the lab on a worker thread
 *
 * The caller's stop-signal handlers must already be installed; the worker
 * and the threads the lab starts block SIGINT, SIGTERM, SIGHUP, SIGQUIT and
 * SIGWINCH. Poll with run_session_done(), end with run_session_join().
 * Returns 0 or a negative errno with @cause (nothing is running then).
 */
int run_session_start(struct run_session *s, char **cause);

/* run_session_done - true once the worker's lab->run() returned (acquire). */
bool run_session_done(const struct run_session *s);

/* run_session_stop - ask the run to stop (the flag the lab polls). */
void run_session_stop(struct run_session *s);

/**
 * run_session_join - wait for the worker, close the journal
 *
 * Returns 0 when the run left a document, else a negative errno.
 */
int run_session_join(struct run_session *s);

/**
 * run_session_save - write the run's document and record the run
 * @record: also note the run in the learner's progress file (once)
 *
 * The first save adds the lab's views, the learner's predictions about the
 * lab's scenarios and the written answers to the handout's questions, then
 * commits where run_session_init() settled (s->path; s->missed when that is
 * a fallback place). A later save writes the same file again. Returns 0, or
 * a negative errno with @cause; -ENODATA when the run left no document.
 */
int run_session_save(struct run_session *s, bool record, char **cause);

/* The run's document, or NULL before a run left one. */
struct rt_result *run_session_result(const struct run_session *s);

/* True when the run was stopped early: the document holds what was measured. */
bool run_session_interrupted(const struct run_session *s);

/* run_session_fini - stop and join a run still on, free; @s is zeroed. */
void run_session_fini(struct run_session *s);

/**
 * run_copy_progress - the learner's predictions and written answers into @res
 * @res: a lab's results document, whose extra.scenarios have the figures
 * @lab: the lab (its name keys the predict questions, its questions the answers)
 * @progress_path: the progress file, NULL for the default
 *
 * Adds extra.predictions: one {"answer_key", "lesson", "id", "scenario",
 * "metric", "unit", "predicted", "measured"} per predict question of the
 * lessons about @lab (lessons/FORMAT.md), "measured" read from the
 * scenario's figure of that name; and the answers "predict.<lesson>.<id>"
 * and the handout's written answers. A progress file or lessons that cannot
 * be read become notes in the document, not errors. Returns 0 or -ENOMEM.
 */
int run_copy_progress(struct rt_result *res, const struct lab_ops *lab,
		      const char *progress_path);

/**
 * run_add_views - the lab's views into @res (rtlab.result/2 "views")
 *
 * Returns 0 (also for a lab without views) or a negative errno with @cause.
 */
int run_add_views(struct rt_result *res, const struct lab_ops *lab, char **cause);

/**
 * rtlab_init - tell the lower layers what only the upper ones know
 *
 * Which labs exist (for lessons' lab links and quizzes, and the results
 * validator) and how the doctor proves KVM (a boot probe in vm/). Call once
 * before anything else of the library; idempotent.
 */
void rtlab_init(void);

/*
 * The note every measured document of a virtual-time guest carries (env.time
 * "virtual"), and what its screens say: what such figures can and cannot show.
 */
#define RUN_VIRTUAL_TIME_NOTE "VIRTUAL TIME: measured on the classroom VM's virtual clock " \
	"(QEMU counts the guest's instructions, 1 ns each, one vCPU): the figures show the " \
	"kernel's own code paths (preemption model, non-preemptible sections, page faults, " \
	"SCHED_DEADLINE), the same from run to run whatever the host's load; not caches, " \
	"SMIs or other CPUs (doc/vm.md)"

#endif
