/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_ftrace: the ftrace lab's options, the hunt's hidden cause, the
 * cross-check parsers and the grade.
 *
 * A run measures the latency probe's wake-ups twice at the same time: from
 * inside (rt_probe: how late clock_nanosleep returned) and from the kernel's
 * scheduler events (trace_events: sched_waking to sched_switch of the same
 * thread), and records both distributions and how well they agree. Tracer
 * mode also runs one latency tracer (trace_ctl) and parses its trace
 * (trace_latency). The hunt plants a cause chosen from a seed: with the
 * rtlab_inject module through its debugfs files, else with a user-space hog
 * (trace_hog). The learner names the cause, the function and the tracer
 * with `rtlab lab answer ftrace ...`, and the grade compares.
 *
 * Everything declared here is pure (no I/O, no clock, no globals) so that
 * the unit tests call it directly; the run itself is in lab_ftrace.c and
 * the files beside it (lab_ftrace_int.h says which does what). The
 * exception is the live model, which a run keeps current for a screen.
 * What a screen or a report reads of a finished run's document is in
 * lab_ftrace_doc.h.
 */
#ifndef RTLAB_LABS_LAB_FTRACE_H
#define RTLAB_LABS_LAB_FTRACE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "labs/lab.h"
#include "trace/trace_ctl.h"

#define FTRACE_DEFAULT_DURATION_MS 5000u
#define FTRACE_MAX_DURATION_MS 600000u		/* 10 min */
#define FTRACE_MAX_THRESHOLD_US 10000000u	/* 10 s */
#define FTRACE_TRACER_MAX 32u
#define FTRACE_INTERVAL_US 1000u		/* the probe's period */
/* SCHED_FIFO priority of the probe: below the module's kthread (50), so it can delay it */
#define FTRACE_PROBE_PRIO 40
/*
 * Grading: the probe needs at least this many wake-ups (1 s at 1 ms) and the
 * events must have matched some. Not a count of matched events: a kernel may
 * leave some switch-ins out (the host these machines run does for switches
 * out of its agent's threads, doc/ftrace.md), and under emulation the probe
 * is often woken while still on its CPU, which no switch follows.
 */
#define FTRACE_GRADE_MIN_WAKEUPS 1000u
/* Entries of a parsed latency trace copied into the document. */
#define FTRACE_MAX_TRACE_LINES 200u
/* Bytes of the raw trace text kept in the document (extra.tracer.trace_text). */
#define FTRACE_MAX_TRACE_TEXT (512u * 1024u)

/* Where the debugfs files of the rtlab_inject module live. */
#define FTRACE_INJECT_DIR "/sys/kernel/debug/rtlab_inject"

enum ftrace_mode {
	FTRACE_MODE_EVENTS,	/* sched events only: works on every kernel */
	FTRACE_MODE_TRACER,	/* also a latency tracer (irqsoff ...) */
};

/* The parsed options of one `rtlab lab run ftrace`. */
struct ftrace_params {
	enum ftrace_mode mode;
	char tracer[FTRACE_TRACER_MAX];	/* tracer mode; "" = the first latency tracer present */
	unsigned int threshold_us;	/* tracing_thresh; 0 = keep the worst case only */
	bool function_trace;		/* options/function-trace (tracer mode) */
	bool hunt;			/* its cause is chosen by the run's seed, lab_ctx.seed */
	unsigned int duration_ms;
	bool cross_check;		/* try rtla / trace-cmd */
	bool busy;			/* a nice-19 busy loop on the probe's CPU (lab_ftrace.c) */
	/* The options as given, which ftrace_params_check() applies. */
	int opt_mode;			/* --mode: enum ftrace_mode; -1 not given */
	int opt_tracer;			/* --tracer: index of the tracer's name; -1 not given */
};

/* ftrace_params_init - the defaults: event mode, 5 s, no hunt, cross-check on. */
void ftrace_params_init(struct ftrace_params *p);

/* The option table (lab_ftrace.options) and its note for --help and rtlab(1). */
extern const struct lab_option ftrace_options[];
extern const char ftrace_options_note[];

/**
 * ftrace_params_check - the rules across options (lab_ftrace.params_check)
 *
 * --tracer names the tracer and implies tracer mode; with --mode events it
 * is refused. Pure. Returns 0 or -EINVAL with @cause.
 */
int ftrace_params_check(struct ftrace_params *p, char **cause);

/**
 * ftrace_params_parse - parse the lab's options into @p (for the TUI and tests)
 * @argc, @argv: argv[0] is the lab name; "--opt VALUE" or "--opt=VALUE"
 * @p: filled from ftrace_params_init() plus the options
 * @seed: set to --seed N when given, else left as it is (the run's seed
 *        goes to lab_ctx.seed through the run session, not into @p)
 * @seed_given: set to whether --seed was given
 * @cause: on failure, what is wrong (caller frees)
 *
 * The options of ftrace_options and --seed N, then ftrace_params_check().
 * Pure. Returns 0 or -EINVAL.
 */
int ftrace_params_parse(int argc, char **argv, struct ftrace_params *p, uint64_t *seed,
			bool *seed_given, char **cause);

/* True for the six latency tracers tracer mode can run. */
bool ftrace_is_latency_tracer(const char *name);

#define FTRACE_NLAT_TRACERS 6u

/*
 * What tracer mode can run on a machine: the six latency tracers, each with
 * the kernel option and the bundled kernels that have it, and whether this
 * machine's kernel offers it. Event mode needs tracefs and the two sched
 * events only, which is what the doctor's tier for the lab says.
 */
struct ftrace_offer {
	bool known;			/* available_tracers was read: `present` is measured */
	unsigned int ntracers;
	struct trace_tracer_info tracers[FTRACE_NLAT_TRACERS];	/* in trace_ctl's order */
};

/**
 * ftrace_offer_fill - which latency tracers tracer mode can run, from what a probe read
 * @o: filled (the caller's storage)
 * @known: available_tracers could be read (the doctor's tracefs.accessible)
 * @available: the names in it (the doctor's tracefs.tracers); ignored unless @known
 * @navailable: their number
 *
 * Pure: it reads no file, so a screen can tell what the lab can run from
 * the doctor's report alone. Without @known every tracer is listed, none
 * present.
 */
void ftrace_offer_fill(struct ftrace_offer *o, bool known, char *const *available,
		       size_t navailable);

/* ftrace_offer_first - index of the first tracer present, or -1 when tracer mode cannot run. */
int ftrace_offer_first(const struct ftrace_offer *o);

/* ---- The hunt ------------------------------------------------------------------ */

enum ftrace_injector {
	FTRACE_INJ_USER,	/* trace_hog child processes */
	FTRACE_INJ_MODULE,	/* the rtlab_inject kernel module */
};

/* The hidden cause of one hunt. All strings are static. */
struct ftrace_hunt_truth {
	enum ftrace_injector injector;
	const char *kind;		/* "irqsoff", "fifo_spin", ... (what `answer cause` takes) */
	const char *function;		/* the function the section runs in */
	const char *const *tracers;	/* NULL-terminated: tracers that show it ("events" = event mode) */
	const char *inject_file;	/* module: the debugfs file; user: NULL */
	int hog_kind;			/* user: enum trace_hog_kind; module: -1 */
	unsigned int burst_us;		/* length of one planted section */
	unsigned int period_us;		/* start to start */
};

/**
 * ftrace_hunt_pick - the cause a seed plants
 * @seed: any value; the same seed and injector always give the same cause
 * @inj: which injector is available
 * @out: filled (the caller's storage)
 */
void ftrace_hunt_pick(uint64_t seed, enum ftrace_injector inj, struct ftrace_hunt_truth *out);

/* A cause a hunt can plant: what `rtlab lab answer ftrace cause` is compared with. */
struct ftrace_hunt_cause {
	const char *kind;		/* static, e.g. "fifo_spin" */
	enum ftrace_injector injector;	/* the injector that plants it */
};

/**
 * ftrace_hunt_causes - every cause ftrace_hunt_pick() can plant
 * @out: receives at most @max causes: the user-space hog's first, then the
 *       module's, each by name; a kind both injectors plant is listed once,
 *       under the user-space hog
 * @max: room in @out
 *
 * Returns the number of causes, which may be more than @max (then only @max
 * were written).
 */
size_t ftrace_hunt_causes(struct ftrace_hunt_cause *out, size_t max);

/* "module" or "user"; ftrace_injector_from_name() returns -1 for anything else. */
const char *ftrace_injector_name(enum ftrace_injector inj);
int ftrace_injector_from_name(const char *name);

/**
 * ftrace_hunt_checksum - the check value stored next to the truth
 * @buf: receives 16 hex digits and a NUL (at least 17 bytes)
 *
 * FNV-1a over the seed, injector, kind, function and tracers. It detects an
 * edited truth; it is no secret, since the learner owns the file (the hunt
 * is an honour system, see labs/ftrace/README.md).
 */
void ftrace_hunt_checksum(uint64_t seed, const struct ftrace_hunt_truth *t, char *buf,
			  size_t size);

/* ---- The cross-check parsers --------------------------------------------------- */

/* What `rtla timerlat hist` printed, over its thread (Thr-) columns. */
struct ftrace_rtla_stats {
	unsigned int ncpus;	/* Thr columns read */
	uint64_t count;
	double avg_us;		/* weighted by count */
	uint64_t max_us;
};

/**
 * ftrace_rtla_parse - read the summary rows of `rtla timerlat hist` output
 * @text: its stdout, NUL-terminated
 *
 * Returns 0, or -EINVAL when no Thr column with count/avg/max rows was found.
 */
int ftrace_rtla_parse(const char *text, struct ftrace_rtla_stats *out);

/* ---- Live model for a screen ---------------------------------------------------- */

/* Where a run is; a screen shows it while the figures are still zero. */
enum ftrace_live_phase {
	FTRACE_LIVE_IDLE,		/* not started */
	FTRACE_LIVE_SETUP,		/* probe, instances, tracer being set up */
	FTRACE_LIVE_MEASURING,
	FTRACE_LIVE_RECORDING,		/* measured: reading the traces, cross-check */
};

/* A consistent copy of the model: the figures so far, as the run polls them. */
struct ftrace_live_snap {
	enum ftrace_live_phase phase;
	unsigned int pct;		/* of the measuring time */
	double elapsed_s;		/* measuring time so far */
	double total_s;			/* the duration asked for */
	uint64_t probe_count;		/* the probe's wake-ups */
	double probe_max_us;
	uint64_t events_matched;	/* wake-ups matched from sched_waking/sched_switch */
	double events_max_us;
	uint64_t lost_events;
	bool hunt;			/* a cause is planted (never which) */
	char tracer[FTRACE_TRACER_MAX];	/* tracer mode: the tracer running; "" in event mode */
};

/*
 * The model a run keeps current when lab_ctx.live points at one, as the
 * latency lab's latency_live. Fields are private to lab_ftrace.c; a reader
 * uses ftrace_live_snapshot(). The run updates it about ten times a second
 * from its own (non-RT) thread, so the probe never waits for a screen.
 */
struct ftrace_live {
	pthread_mutex_t lock;
	struct ftrace_live_snap snap;
};

/* ftrace_live_init - an empty model; 0 or -ENOMEM. Release with ftrace_live_fini(). */
int ftrace_live_init(struct ftrace_live *m);
void ftrace_live_fini(struct ftrace_live *m);

/* ftrace_live_snapshot - copy the model into @out; safe from any thread during a run. */
void ftrace_live_snapshot(struct ftrace_live *m, struct ftrace_live_snap *out);

/* ---- The lab ------------------------------------------------------------------- */

extern const struct lab_ops lab_ftrace;

/* The diagnosis ids of `rtlab lab answer ftrace ID TEXT`, NULL-terminated. */
extern const char *const ftrace_questions[];

/* ftrace_grade - the lab's grade; a pure function of the document (see the handout). */
int ftrace_grade(const struct lab_result *res, struct grade_report *rep);

/* What ftrace_grade() needs that @res lacks: a live run with a planted cause (--hunt). */
int ftrace_grade_lacks(const struct rt_result *res, struct rt_buf *missing);

#endif
