/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab: how a lab plugs into rtlab.
 *
 * Each lab is one `const struct lab_ops` in rtlab/labs/lab_<name>.c (or, for a
 * lab whose engine has not landed yet, a descriptor in registry.c) plus one
 * X(name) line in registry.c (doc/architecture.md has the whole recipe).
 * The descriptor says what the lab needs from the
 * machine to run live; `rtlab doctor` measures the machine and decides the
 * tier per lab from these needs, so no lab decides its tier by assumption.
 *
 * A run goes through three general types: struct lab_ctx (what the run
 * session decided: tier, parameters, seed, stop flag, journal, progress
 * file), struct lab_result (the one results document a run produces) and
 * struct grade_report (lab_grade_report.h: the named checks a grade found).
 * run() measures and fills the result; grade() is a pure function of the
 * result; views() turns a result into the tables a person reads, which
 * every front end draws. None of them prints. The run itself (doctor,
 * journal, signals, saving, predictions) is rtlab/run/'s, not the lab's.
 */
#ifndef RTLAB_LABS_LAB_H
#define RTLAB_LABS_LAB_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lab_grade_report.h"
#include "trace/trace_emu.h"

struct json_t;
struct lab_option;
struct rt_buf;
struct rt_env;
struct rt_journal;
struct rt_keys;
struct rt_progress;
struct rt_result;
struct rt_sink;
struct sim_model_ops;
struct trace_explain;
struct trace_explain_src;

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
	void *params;			/* from lab_args_parse(), or NULL for defaults */
	uint64_t seed;			/* for simulations and randomised scenarios; the lab
					 * records it (lab_seed_record()) */
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

/* One named scenario of a lab: its figures go in extra.scenarios under @name. */
struct lab_scenario {
	const char *name;	/* [a-z0-9-], stable: predict questions name it */
	const char *summary;	/* one line: what it shows */
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
	/*
	 * The sim/ model its simulated form runs, or NULL. The model's
	 * contract tests (tests/unit/test_sim.c) and `make bench-sim` find
	 * every model here (lab_model_next()), so a new model needs no table.
	 */
	const struct sim_model_ops *model;
	int (*check_capabilities)(struct lab_ctx *ctx, char **cause);
	int (*run)(struct lab_ctx *ctx, const struct rt_sink *sink, struct lab_result *res);
	int (*grade)(const struct lab_result *res, struct grade_report *rep);
	/*
	 * Optional: what grade() needs that @res lacks, so that `rtlab grade
	 * LAB` and `rtlab handin` take the newest document that can be graded
	 * whole (lab_pick_graded()): each missing scenario (or mode, or run) is
	 * appended to @missing as ", name". Returns how many are missing, or a
	 * negative errno. Without it every document of the lab qualifies.
	 */
	int (*grade_lacks)(const struct rt_result *res, struct rt_buf *missing);
	/*
	 * Optional. questions lists the ids of the handout's written questions
	 * (NULL-terminated), which `rtlab lab answer` stores in the progress
	 * file and the run session copies into the document. scenario() fills
	 * @out with the lab's scenario @i and returns true, or returns false
	 * past the last: the names extra.scenarios uses and predict questions
	 * name, listed by `rtlab lab run LAB --help` and rtlab(1).
	 */
	const char *const *questions;
	bool (*scenario)(size_t i, struct lab_scenario *out);
	/*
	 * Optional: the kernel trace a results document of this lab holds, for
	 * the trace viewer and `rtlab trace explain` (lab_trace_load()): @src
	 * gets the text (borrowed from @res); 0, or -EINVAL with a cause a
	 * person can act on (this run recorded none, and how to get one).
	 */
	int (*trace)(const struct rt_result *res, const char *name,
		     struct trace_explain_src *src, char **cause);
	/*
	 * views() appends to @views (a JSON array) the tables a person reads,
	 * built from a valid results document of this lab (also an older one
	 * without "views"): each is a view object of rtlab.result/2,
	 * {"name","title","columns":[{"name","title"?,"unit"?}...],
	 * "rows":[[cell...]...]} (check_view in rtlab/core/rt_result.c). The
	 * CLI text, the TUI summary and the HTML report draw these. Returns 0
	 * or a negative errno with @cause.
	 */
	int (*views)(const struct rt_result *res, struct json_t *views, char **cause);
	/* Options and their params: see "Options" below (lab_opts.c). All optional. */
	const struct lab_option *options;	/* ends with an entry whose name is NULL */
	const char *options_note;	/* a paragraph after the options in --help and rtlab(1) */
	size_t params_size;		/* bytes of the params block; 0: the lab takes no params */
	void (*params_init)(void *params);		/* the defaults; NULL: all zero */
	/* After the options: derive and refuse what spans several; 0 or -EINVAL, a cause */
	int (*params_check)(void *params, char **cause);
	void (*free_params)(void *params);	/* what the params own, not the block */
	/*
	 * Optional: the keys of its documents' params and of each entry of
	 * extra.scenarios (rt_keys.h; each table complete: RT_RESULT_SEED_KEY,
	 * RT_RESULT_SCENARIO_NAME_KEYS). `rtlab schema rtlab.result/2` adds
	 * them to the schema as "if lab is NAME then ..." clauses.
	 */
	const struct rt_keys *params_keys;
	const struct rt_keys *scenario_keys;
};

/* ---- Declared keys (lab_keys.c) ---------------------------------------------- */

/*
 * lab_scenario_keys_new - the keys of each of @lab's extra.scenarios: its
 * scenario_keys, then (for a lab on a sim/ model) every counter of the
 * model's table, an integer in the unit its name ends in.
 *
 * Returns a table to release with lab_scenario_keys_free(), or NULL when
 * the lab declares none (errno unchanged) or on ENOMEM.
 */
const struct rt_keys *lab_scenario_keys_new(const struct lab_ops *lab);
void lab_scenario_keys_free(const struct rt_keys *t);

/* ---- Options (lab_opts.c) ---------------------------------------------------- */

/*
 * A lab's options are a table of struct lab_option in its lab_ops. The one
 * parser, lab_args_parse(), reads `rtlab lab run LAB [OPTIONS]` by it into
 * a params block the lab defines (params_size, params_init), then calls
 * params_check() for what spans several options; `--help` and the LAB
 * OPTIONS section of rtlab(1) are printed from the same table. --seed N,
 * --json FILE and --help are the same for every lab and are never in a
 * table.
 *
 * A value is stored at an offset in the params (LAB_OPT_AT), typed by the
 * kind, or for a string handed to a set() callback when the option does
 * more than store (a repeatable list). An option given twice keeps the
 * last value, except through set().
 */
enum lab_opt_kind {
	LAB_OPT_FLAG,		/* no value: a bool, set to true (false with .off) */
	LAB_OPT_UINT,		/* unsigned int in min..max */
	LAB_OPT_U64,		/* uint64_t in min..max */
	LAB_OPT_DURATION,	/* "10s", "500ms", "2m", a bare number of seconds: min..max
				 * nanoseconds, stored as an unsigned int count of unit_ns */
	LAB_OPT_CPUS,		/* a CPU list "0,2-3" into an unsigned int array, each CPU
				 * below max; how many goes to the unsigned int at count_offset */
	LAB_OPT_ENUM,		/* one of values[]: its index, stored as an int */
	LAB_OPT_STRING,		/* copied into a char array (refused when too long), or set() */
	LAB_OPT_DECIMAL,	/* a double in dmin..dmax */
};

struct lab_option {
	const char *name;	/* the long name without "--": lower case, digits and '-' */
	char short_name;	/* "-x", or 0 */
	enum lab_opt_kind kind;
	const char *metavar;	/* the value in help, "US"; NULL: from the kind ("a|b" for ENUM) */
	const char *help;	/* sentences for --help and rtlab(1); no newline */
	const char *defval;	/* the default as help shows it, or NULL */
	size_t offset;		/* where the value goes in the params (LAB_OPT_AT) */
	size_t size;		/* the size of that field, checked against the kind */
	uint64_t min, max;	/* UINT, U64, DURATION (ns); CPUS: max bounds the CPU numbers */
	uint64_t unit_ns;	/* DURATION: the unit the field counts (1000000: milliseconds) */
	double dmin, dmax;	/* DECIMAL */
	const char *const *values;	/* ENUM: the accepted words, NULL-terminated */
	size_t count_offset;	/* CPUS: the unsigned int receiving how many CPUs */
	bool off;		/* FLAG: store false, for a --no-X option */
	/* STRING: takes the value instead of a copy; 0 or a negative errno with a cause */
	int (*set)(void *params, const char *value, char **cause);
};

/* The field @field of params type @type, for a struct lab_option initializer. */
#define LAB_OPT_AT(type, field) \
	.offset = offsetof(type, field), .size = sizeof(((type *)0)->field)

/* What `rtlab lab run LAB ...` asked for. Release with lab_args_fini(). */
struct lab_args {
	void *params;		/* owned: the lab's params block; NULL if it takes none */
	uint64_t seed;		/* --seed N, else one from the clock (lab_seed_from_clock()) */
	bool seed_given;	/* --seed was given */
	const char *json_path;	/* --json FILE; borrowed from argv; NULL: the default place */
	bool help;		/* --help or -h: parsing stopped there, nothing was checked */
};

/**
 * lab_args_parse - read a lab's command line by its option table
 * @lab: the lab; its options, params_size, params_init and params_check
 * @argc, @argv: argv[0] is the lab's name; "--opt VALUE", "--opt=VALUE",
 *               "-x VALUE" for an option with a short name
 * @a: filled (the caller's storage); release with lab_args_fini(), also on failure
 * @cause: on failure, what is wrong, naming the option (caller frees)
 *
 * The params block is allocated and defaulted, every option applied in
 * order, then params_check() runs. Returns 0, -EINVAL for a usage error or
 * -ENOMEM, with @cause set.
 */
int lab_args_parse(const struct lab_ops *lab, int argc, char **argv, struct lab_args *a,
		   char **cause);

/* lab_args_fini - free_params(), then the block; @a is zeroed. */
void lab_args_fini(const struct lab_ops *lab, struct lab_args *a);

/**
 * lab_opts_names - read a comma-separated list of names as a bit set
 * @opt:	the option, as messages name it ("--mode")
 * @noun:	what a name is ("mode"), for "no mode called 'x'"
 * @value:	the option's value, e.g. "flush,guaranteed"
 * @names:	the names, NULL-terminated; name i is bit i of *@mask (at most 32)
 * @all:	true when the word "all" names every one of them
 *
 * Returns 0 with *@mask set, or -EINVAL with @cause naming the stray word
 * and every name there is (an empty list is one).
 */
int lab_opts_names(const char *opt, const char *noun, const char *value,
		   const char *const *names, bool all, uint32_t *mask, char **cause);

/**
 * lab_opts_apply - apply @argv's options to @params by @opts only
 * @a: receives --seed, --json and --help; NULL refuses them as unknown
 *
 * The step of lab_args_parse() between params_init() and params_check(),
 * for a typed parser kept for the TUI (latency_params_parse()). Returns 0
 * or -EINVAL with @cause.
 */
int lab_opts_apply(const struct lab_option *opts, int argc, char **argv, void *params,
		   struct lab_args *a, char **cause);

/**
 * lab_opts_help - the text of `rtlab lab run LAB --help`
 * @out: appended to: usage, the lab's options with their defaults, its
 *       note, then the options of every lab
 *
 * Returns 0 or -ENOMEM.
 */
int lab_opts_help(const struct lab_ops *lab, struct rt_buf *out);

/**
 * lab_opts_man - the LAB OPTIONS section of rtlab(1), in roff
 * @out: appended to: ".SH LAB OPTIONS", the options of every lab, then one
 *       subsection per ready lab of lab_table[]
 *
 * `make man` puts it into doc/rtlab.1; a CLI test fails when the page
 * differs. Returns 0 or -ENOMEM.
 */
int lab_opts_man(struct rt_buf *out);

/**
 * lab_opts_table_check - refuse a malformed option table
 *
 * Names (unique, not seed, json or help), kinds against field sizes,
 * ranges, enum words, help text. The unit tests run it on every lab.
 * Returns 0 or -EINVAL with @cause naming the option.
 */
int lab_opts_table_check(const struct lab_ops *lab, char **cause);

/* lab_seed_from_clock - a seed for a run not given one: the time in ns mixed with the pid. */
uint64_t lab_seed_from_clock(void);

/**
 * lab_seed_record - note the run's seed in its document as params.seed
 *
 * A string of decimal digits, since a seed may exceed what a JSON number
 * holds exactly. Every lab calls it, so any run can be repeated.
 * Returns 0 or a negative errno.
 */
int lab_seed_record(struct rt_result *res, uint64_t seed);

/* ---- The lab table (registry.c) ------------------------------------------------ */

/* NULL-terminated, in teaching order. */
extern const struct lab_ops *const lab_table[];

/* The lab called @name, or NULL. */
const struct lab_ops *lab_find(const char *name);

/*
 * The models of lab_table[], each once, in its order: @i starts at 0 and
 * is advanced; NULL after the last. lab_model_find() looks one up by name.
 */
const struct sim_model_ops *lab_model_next(size_t *i);
const struct sim_model_ops *lab_model_find(const char *name);

/*
 * The names of lab_table[], NULL-terminated, in its order: what core is told
 * when it must know which labs exist (struct rt_result_opts).
 */
const char *const *lab_names(void);

/* ---- Which document is graded (lab_pick.c) -------------------------------------- */

/* The document lab_pick_graded() chose, and why, in a sentence a learner reads. */
struct lab_pick {
	char *path;	/* owned; the document to grade, or NULL when the lab has none */
	char *why;	/* owned; which file and why, or what no document holds */
	bool whole;	/* it holds everything the lab's grade needs */
};

/**
 * lab_pick_graded - the results document of @lab that `rtlab grade LAB` grades
 * @dir: the learner's results folder (state dir's results/); may not exist
 * @named: NULL-terminated list of further documents (the last one the
 *          progress file recorded for @lab and those written with --json
 *          FILE), or NULL; files that vanished or hold another lab are passed over
 *
 * Of the documents of @lab in @dir (regular files, links not followed) and
 * @named (followed), each file counted once, the newest by its "created" time that holds every scenario the
 * lab's grade needs (lab_ops.grade_lacks); when none does, the newest, with
 * @out->whole false and @out->why naming what it lacks. Documents that do
 * not parse or are of another lab are passed over. Returns 0 (with
 * @out->path NULL when there is none) or -ENOMEM; free with lab_pick_fini().
 */
int lab_pick_graded(const struct lab_ops *lab, const char *dir, const char *const *named,
		    struct lab_pick *out);
void lab_pick_fini(struct lab_pick *p);

/*
 * lab_pick_learner - lab_pick_graded() over this learner's state: the
 * results folder of rtlab's state directory, the document the progress
 * file last recorded for @lab and the ones it remembers as written with
 * --json FILE (rt_progress_lab_add_document()). Returns 0 or -ENOMEM.
 */
int lab_pick_learner(const struct lab_ops *lab, struct lab_pick *out);

/* For grade_lacks(): appends ", name" for each of @names (NULL-terminated) not in @res. */
int lab_lacks_scenarios(const struct rt_result *res, const char *const *names,
			struct rt_buf *missing);

/* "planned" or "ready" */
const char *lab_state_name(enum lab_state state);

/**
 * lab_trace_load - a kernel trace from a raw trace file or a results document
 * @text, @len: the file's bytes; a document (starting with '{') is validated
 *              first, then its lab's trace() finds the trace in it
 * @name: what messages call the input (a file name), or NULL for "trace"
 * @out: on success, the loaded trace; free with trace_explain_free()
 *
 * Returns 0 or a negative errno with @cause: not a trace, an invalid
 * document, or a document whose lab keeps no trace (or not for that run).
 */
int lab_trace_load(const char *text, size_t len, const char *name,
		   struct trace_explain **out, char **cause);

/*
 * lab_trace_env - where the run of @res was measured, for trace_emu: bare
 * metal, a VM with hardware virtualisation, QEMU's TCG, or unknown (from its
 * env.in_vm and env.vm_type).
 */
enum trace_emu_env lab_trace_env(const struct rt_result *res);

/* ---- Results (lab_result.c); grades are lab_grade_report.h's ----------------- */

/* lab_result_fini - free what @r owns; @r is zeroed and may be reused. */
void lab_result_fini(struct lab_result *r);

/**
 * lab_result_finish - the end of a run that measured scenarios
 * @out:	where a document that is complete goes (out->interrupted already set)
 * @res:	the run's document, taken: handed to @out->res, or freed; NULL
 *		when the run put its document in @out itself (nothing to finish)
 * @scens:	the scenarios' array, taken (set in @res unless @ret is an error)
 * @ret:	0, or the run's error so far
 * @cause:	what the error was, taken (may be NULL)
 * @lab:	the lab's name, for the log line an error gets
 * @stopped:	the note an interrupted run's document carries
 *
 * Every lab's run ends the same way: a note when it was interrupted, the
 * scenarios set, the document handed over, and an error logged with its
 * cause. Returns @ret, or the error of those steps.
 */
int lab_result_finish(struct lab_result *out, struct rt_result *res, struct json_t *scens,
		      int ret, char *cause, const char *lab, const char *stopped);

/* lab_ctx_stopped - true when the front end asked the run to stop. */
bool lab_ctx_stopped(const struct lab_ctx *ctx);


/* ---- Written answers, kept in the progress file (lab_answers.c) ------------ */

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

/* The answer to @qid of @lab in a loaded progress @p (borrowed), or NULL when none. */
const char *lab_answer_text(const struct rt_progress *p, const char *lab, const char *qid);

/**
 * lab_answer_get - the recorded answer to @qid of @lab
 * @out: on success, a copy the caller frees
 *
 * Returns 0, -ENOENT (none recorded) or another negative errno with @cause.
 */
int lab_answer_get(const char *path, const char *lab, const char *qid, char **out,
		   char **cause);

/* ---- Saving a run's results document (lab_save.c) --------------------------- */

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
 * @named: it went where the learner said (--json FILE), not to the results
 *         folder: it is also added to the lab's remembered documents, which
 *         lab_pick_learner() looks at
 *
 * Uses rt_progress_update, so a second rtlab never loses the update. A
 * failure is logged (the run itself succeeded) and returned.
 */
int lab_record_progress(const char *lab, const char *status, const char *result, bool named);

#endif
