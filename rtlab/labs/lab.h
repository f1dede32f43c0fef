/*
 * lab: how a lab plugs into rtlab.
 *
 * Each lab is one `const struct lab_ops` in rtlab/labs/lab_<name>.c (or, for a
 * lab whose engine has not landed yet, a descriptor in registry.c) plus one
 * line in lab_table[]. The descriptor says what the lab needs from the
 * machine to run live; `rtlab doctor` measures the machine and decides the
 * tier per lab from these needs, so no lab decides its tier by assumption.
 *
 * A run goes through three general types: struct lab_ctx (what the front
 * end decided: tier, parameters, duration, stop flag, journal, progress
 * file), struct lab_result (the one results document a run produces) and
 * struct grade_report (the named checks a grade found passed or failed).
 * run() measures and fills the result; grade() is a pure function of the
 * result; text() turns a result into the table a person reads. None of them
 * prints.
 */
#ifndef RTLAB_LABS_LAB_H
#define RTLAB_LABS_LAB_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rt_buf;
struct rt_env;
struct rt_journal;
struct rt_result;
struct rt_sink;

/* What a lab may need from the host. Measured by rtlab doctor. */
enum lab_need {
	LAB_NEED_RT_PRIO = 1u << 0,	/* SCHED_FIFO/RR: root or CAP_SYS_NICE, RT runtime > 0 */
	LAB_NEED_TRACE_EVENTS = 1u << 1, /* tracefs mounted and writable, sched_waking/sched_switch */
	LAB_NEED_LAT_TRACERS = 1u << 2,	/* irqsoff, preemptoff, wakeup_rt in available_tracers */
	LAB_NEED_QEMU = 1u << 3,	/* qemu-system-x86_64 runs */
	LAB_NEED_KVM = 1u << 4,		/* a KVM guest actually runs (probed) */
	LAB_NEED_NETNS = 1u << 5,	/* CAP_NET_ADMIN and network namespaces work */
	LAB_NEED_PREEMPT_RT = 1u << 6,	/* the running kernel is PREEMPT_RT */
};
#define LAB_NEED_COUNT 7

enum lab_state {
	LAB_STATE_PLANNED,	/* described, engine not written yet */
	LAB_STATE_READY,	/* run() works */
};

/*
 * What the front end decided for one run. Everything is borrowed from the
 * caller and outlives the run.
 */
struct lab_ctx {
	const char *tier;		/* "host", "vm" or "simulation", from doctor_eval_lab() */
	bool degraded;			/* host tier with some wants missing (doctor) */
	const char *degraded_why;	/* what is missing, for the notes; may be NULL */
	const struct rt_env *env;	/* measured facts; recorded in the result */
	void *params;			/* from the lab's parse_params(), or NULL for defaults */
	unsigned int duration_ms;	/* the lab's own unit of time (the lab says which); 0 = default */
	uint64_t seed;			/* for simulations and randomised scenarios */
	volatile sig_atomic_t *stop;	/* set (non-zero) by SIGINT/SIGTERM/SIGHUP; may be NULL */
	struct rt_journal *journal;	/* every host change goes through it; may be NULL */
	const char *progress_path;	/* progress file; NULL = the default */
	void *live;			/* a lab-specific live model the run keeps current, or NULL */
};

/* The outcome of one run: the results document and how the run ended. */
struct lab_result {
	struct rt_result *res;		/* owned; NULL until run() builds it */
	bool interrupted;		/* stopped early by ctx->stop; res holds what was measured */
};

/* One named check of a grade. */
struct grade_check {
	char *name;			/* owned; short stable id, e.g. "scenario-load-fifo" */
	bool passed;
	char *detail;			/* owned; a sentence a person can act on */
};

/* What grade() found. Build with grade_report_add(); release with grade_report_fini(). */
struct grade_report {
	struct grade_check *checks;	/* owned, in the order they were made */
	size_t nchecks;
	size_t npassed;
	double score;			/* 0..100: the share of checks passed */
};

struct lab_ops {
	const char *name;	/* stable id for CLI and JSON, e.g. "latency" */
	const char *title;	/* one line for menus */
	const char *summary;	/* one or two sentences for menus and doctor */
	int lesson;		/* number of the lesson that teaches it, 0 if none */
	enum lab_state state;
	unsigned int issue;	/* tracker issue that builds it, while planned */
	unsigned int needs;	/* LAB_NEED_* required for the host tier */
	unsigned int wants;	/* LAB_NEED_* that make the host tier better; missing ones degrade it */
	bool vm_live;		/* runs live inside the classroom VM */
	bool sim;		/* has a simulated form */
	bool sim_only;		/* the hardware it is about is absent everywhere (ARMv5) */
	int (*describe)(struct rt_buf *md);
	int (*check_capabilities)(struct lab_ctx *ctx, char **cause);
	int (*run)(struct lab_ctx *ctx, const struct rt_sink *sink, struct lab_result *res);
	int (*grade)(const struct lab_result *res, struct grade_report *rep);
	/*
	 * Optional. parse_params() turns the lab's own command-line options
	 * (argv[0] is the lab name) into *params for lab_ctx; 0, or -EINVAL
	 * with a cause for a usage error; the params are released with
	 * free_params(). text() appends the human summary of a result (the
	 * final table of `rtlab lab run`). questions lists the ids of the
	 * handout's written questions (NULL-terminated), which
	 * `rtlab lab answer` stores in the progress file.
	 */
	int (*parse_params)(int argc, char **argv, void **params, char **cause);
	void (*free_params)(void *params);
	int (*text)(const struct lab_result *res, struct rt_buf *out);
	const char *const *questions;
};

/* NULL-terminated, in teaching order. */
extern const struct lab_ops *const lab_table[];

/* The lab called @name, or NULL. */
const struct lab_ops *lab_find(const char *name);

/*
 * The names of lab_table[], NULL-terminated, in its order: what core is told
 * when it must know which labs exist (struct rt_result_opts).
 */
const char *const *lab_names(void);

/* "planned" or "ready" */
const char *lab_state_name(enum lab_state state);

/* ---- Results and grades (lab_common.c) ------------------------------------ */

/* lab_result_fini - free what @r owns; @r is zeroed and may be reused. */
void lab_result_fini(struct lab_result *r);

/* lab_ctx_stopped - true when the front end asked the run to stop. */
bool lab_ctx_stopped(const struct lab_ctx *ctx);

/**
 * grade_report_add - append a check to @rep and update the score
 * @name: short stable id, copied
 * @passed: the verdict
 * @fmt: printf-style detail for a person, copied
 *
 * Returns 0 or -ENOMEM (the report is unchanged on failure).
 */
int grade_report_add(struct grade_report *rep, const char *name, bool passed,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* grade_report_fini - free the checks; @rep is zeroed. */
void grade_report_fini(struct grade_report *rep);

/* grade_report_passed - true when there is at least one check and all passed. */
bool grade_report_passed(const struct grade_report *rep);

/* ---- Written answers (kept in the progress file) --------------------------- */

/**
 * lab_answer_set - record the learner's written answer to question @qid of @lab
 * @path: progress file; NULL means the default
 * @text: the answer, 1..RT_PROGRESS_MAX_TEXT bytes; "" removes it
 *
 * Stored as labs.<lab>.answers.<qid> = { "text", "time" } through
 * rt_progress_update(), so a TUI running at the same time loses nothing.
 * The next run of the lab copies the answers into its results document.
 * Returns 0 or a negative errno with @cause set.
 */
int lab_answer_set(const char *path, const char *lab, const char *qid, const char *text,
		   char **cause);

/**
 * lab_answer_get - the recorded answer to @qid of @lab
 * @out: on success, a copy the caller frees
 *
 * Returns 0, -ENOENT (none recorded) or another negative errno with @cause.
 */
int lab_answer_get(const char *path, const char *lab, const char *qid, char **out,
		   char **cause);

/* ---- Saving a run's results document (lab_common.c) ------------------------ */

/*
 * Where one run's results document goes. The front ends (`rtlab lab run`
 * and the TUI's lab screens) save through this and only this, so a
 * measurement is never lost:
 *
 *   lab_save_open()    before measuring: the temporary file is created in
 *                      the directory the document will go to, so a place
 *                      that cannot be written is found before the run;
 *   lab_save_commit()  after the run: the document is written to that file
 *                      and given its name. A default name never replaces a
 *                      file (a second run in the same second gets "-2",
 *                      "-3"...); a file the user named (--json FILE) is
 *                      replaced, as a shell redirection would. When this
 *                      step fails late (the directory vanished, the disk is
 *                      full) the document goes to the state directory's
 *                      results/, else to $TMPDIR or /tmp, and @missed says
 *                      why it is not where it was asked to go;
 *   lab_save_fini()    frees, and removes the temporary file of a run that
 *                      left no document.
 */
struct lab_save {
	const char *lab;	/* borrowed: the lab's name, the default name's prefix */
	char *target;		/* owned: the file the user named, or NULL for the default */
	char *dir;		/* owned: the results directory, for a default name */
	char *tmp;		/* owned: the temporary file, between open and commit */
	int fd;			/* open on tmp while tmp is set */
	char *path;		/* owned: where the document went, after a commit */
	char *missed;		/* owned: why it did not go where asked (a fallback took it) */
};

/**
 * lab_save_open - settle where @lab's document goes, before the run measures
 * @s: the caller's storage; released with lab_save_fini()
 * @lab: the lab's name; borrowed, it outlives @s
 * @target: the file the user named, or NULL for
 *          "<state dir>/results/<lab>-<UTC time>[-N].json"
 *
 * Creates the results directory (default) and a temporary file beside the
 * target. A @target that exists and is not a regular file is refused.
 * Returns 0, or a negative errno with @cause naming the path and why.
 */
int lab_save_open(struct lab_save *s, const char *lab, const char *target, char **cause);

/**
 * lab_save_commit - write @res where lab_save_open() settled, or to a fallback
 * @s: an open save
 * @res: the document; validated here
 *
 * Returns 0 when the document is saved: s->path says where, and s->missed
 * is set when that is a fallback. Otherwise a negative errno with @cause
 * (the document was invalid, or no place at all could be written).
 */
int lab_save_commit(struct lab_save *s, const struct rt_result *res, char **cause);

/*
 * lab_save_fini - remove the temporary file of a save never committed, and
 * free; @s is zeroed. A zeroed @s (never opened) is fine too.
 */
void lab_save_fini(struct lab_save *s);

/**
 * lab_record_progress - note in the learner's progress that @lab ran
 * @status: e.g. "done" or "interrupted"
 * @result: the results document written (stored as an absolute path)
 *
 * Uses rt_progress_update, so a second rtlab never loses the update. A
 * failure is logged (the run itself succeeded) and returned.
 */
int lab_record_progress(const char *lab, const char *status, const char *result);

#endif
