/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_exercise: grading a learner's code against a lab's checks
 * (doc/exercises.md is the contract).
 *
 * An exercise is a folder holding checks/ (the manifest, the subject, the
 * check program, data/), normally labs/<lab> of the data dir. Grading one
 * work folder: the learner's sources and the trusted files go into a box
 * (grade_sandbox.h), the subject is compiled inside the sandbox, the check
 * program outside it from trusted files only, and the check program runs
 * the subject through `rtlab grade --run-subject` (the runner) as often as
 * its checks want. Its TAP output gives one verdict per check
 * (grade_tap.h); the manifest gives the points and hints.
 *
 * For the classroom VM, which has no compiler, an exercise can be built
 * on the host into a folder (grade_exercise_build()): bin/subject (static),
 * bin/check (with the cmocka library beside it) and a copy of checks/
 * without the sources. Opened as an exercise, such a folder is graded
 * without compiling anything.
 */
#ifndef RTLAB_GRADE_GRADE_EXERCISE_H
#define RTLAB_GRADE_GRADE_EXERCISE_H

#include <stdbool.h>

#include "grade/grade_manifest.h"
#include "grade/grade_outcome.h"
#include "grade/grade_sandbox.h"

#define GRADE_SOURCE_MAX (1u << 20)	/* bytes of one learner file */
#define GRADE_BUILD_LOG_MAX (16u * 1024)	/* bytes of compiler messages kept */

struct grade_exercise {
	char *dir;		/* owned; absolute: the exercise's folder */
	char *checks;		/* owned; dir/checks */
	char *data;		/* owned; dir/checks/data */
	char *common;		/* owned; the folder holding rtlab_check.h and .c */
	char *bin;		/* owned; dir/bin of a prebuilt exercise, else NULL */
	struct grade_manifest m;
};

/* How to grade. Zero is not a default: start from grade_opts_init(). */
struct grade_opts {
	const char *runner;	/* the rtlab binary the check program calls (absolute) */
	const char *tmpdir;	/* where boxes go; NULL: $TMPDIR or /tmp */
	unsigned int slot;	/* parallel jobs have distinct slots (the box's uid): from
				 * grade_slot_base(), plus the job's number in class mode */
	unsigned int ns;	/* GRADE_NS_* to try */
	const char *program;	/* a check program already built for this exercise, or NULL */
	int program_fd;		/* class mode: a sealed copy of it (grade_program_seal()),
				 * made before any job ran, executed instead; -1: none */
	const char *subject_obj;	/* class mode: the trusted subject source compiled once
					 * (grade_subject_obj_build()), linked with each
					 * learner's code in the box; NULL: compiled there */
	int timing_fd;		/* class mode: a lock file, shared by builds and ordinary
				 * checks, exclusive for timing ones; -1: none */
	bool keep;		/* keep the box (debugging) */
};

/**
 * grade_program_seal - a sealed in-memory copy of the check program @path
 *
 * What the check runs are executed from: nothing a graded run does to the
 * file (in a folder of the grader's uid) changes the program that judges
 * it or, in class mode, another student. Returns a close-on-exec
 * descriptor, or a negative errno with @cause.
 */
int grade_program_seal(const char *path, char **cause);

/* grade_opts_init - the defaults: every namespace, no timing lock, this process's slot. */
void grade_opts_init(struct grade_opts *o);

/*
 * grade_slot_base - the first slot of this process: (pid mod 8000) * 256, so
 * that graders running at once on one machine (two learners as root, two
 * classes) use distinct box uids, GRADE_UID_BASE + 1 + slot, for up to 256 jobs.
 */
unsigned int grade_slot_base(void);

/**
 * grade_exercise_open - read the exercise in folder @dir
 * @ex: the caller's storage; release with grade_exercise_fini()
 *
 * Returns 0, -ENOENT (no checks/exercise.json) or another negative errno
 * with @cause (an invalid manifest).
 */
int grade_exercise_open(struct grade_exercise *ex, const char *dir, char **cause);

/* grade_exercise_find - the exercise of lab @lab: labs/<lab> of the data dir. */
int grade_exercise_find(struct grade_exercise *ex, const char *lab, char **cause);

/* True when lab @lab has an exercise (labs/<lab>/checks/exercise.json in the data dir). */
bool grade_exercise_exists(const char *lab);

void grade_exercise_fini(struct grade_exercise *ex);

/**
 * grade_exercise_lint - check that the files the manifest names exist
 *
 * In checks/ (subject, program, headers, program sources) and, where the
 * folders exist, in starter/ and reference/ (the sources). Returns 0 or
 * -ENOENT with @cause naming the first missing file.
 */
int grade_exercise_lint(const struct grade_exercise *ex, char **cause);

/**
 * grade_program_build - compile @ex's check program (trusted files only)
 * @path: the program to write
 * @portable: for another machine with the same C library (the VM): the
 *            cmocka library is copied next to @path and found there
 * @log: the compiler's messages (caller frees; may be NULL)
 *
 * Returns 0, or a negative errno with @cause (no compiler, it failed).
 */
int grade_program_build(const struct grade_exercise *ex, const char *path, bool portable,
			char **log, char **cause);

/**
 * grade_exercise_run - grade the code in @work against @ex
 * @work: the learner's folder holding the manifest's sources
 * @out: filled: lab, title, work, build, sandbox, the "code" checks
 *       (appended to what @out holds); release with grade_outcome_fini()
 *
 * A submission that does not compile, crashes, hangs or floods is a graded
 * outcome with failed checks, not an error. Returns 0, or a negative errno
 * with @cause when grading itself could not happen (no box, the exercise's
 * own check program does not compile, no runner).
 */
int grade_exercise_run(const struct grade_exercise *ex, const char *work,
		       const struct grade_opts *o, struct grade_outcome *out, char **cause);

/**
 * grade_exercise_build - build @work's subject and the check program for another machine
 * @outdir: created if missing: bin/subject (static), bin/check, checks/
 *          (the manifest and data/ only); open it with grade_exercise_open()
 *          there to grade without a compiler
 * @log: the subject's compiler messages (caller frees; may be NULL)
 *
 * Returns 0, -ENOEXEC when the learner's code does not compile (@log says
 * why), or another negative errno with @cause.
 */
int grade_exercise_build(const struct grade_exercise *ex, const char *work, const char *outdir,
			 const struct grade_opts *o, char **log, char **cause);

/**
 * grade_subject_obj_build - compile the exercise's trusted subject source (checks/) alone
 * @path: the object file to write
 *
 * It depends on trusted files only, so a class compiles it once, outside the
 * sandbox, instead of once per learner inside it (grade_opts.subject_obj).
 * Returns 0, or a negative errno with @cause.
 */
int grade_subject_obj_build(const struct grade_exercise *ex, const char *path, char **cause);

/**
 * grade_subject_run - one run of a box's subject: `rtlab grade --run-subject`
 * @sb: from RTLAB_CHECK_SANDBOX (grade_sandbox_parse())
 * @stdin_path: the file given as stdin, or NULL
 * @wall_s: 0, or this run's wall-clock limit (at most 600 s)
 * @rtprio, @memlock_kb: asked for; cut to what the box may grant
 * @args: the subject's arguments, NULL-terminated
 *
 * Returns 0 with @res filled, or a negative errno with @cause.
 */
int grade_subject_run(const struct grade_sandbox *sb, const char *stdin_path,
		      unsigned int wall_s, unsigned int rtprio, unsigned int memlock_kb,
		      const char *const *args, struct grade_run_res *res, char **cause);

#endif
