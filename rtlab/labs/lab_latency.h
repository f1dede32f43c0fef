/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_latency: the latency lab's scenarios, options, live model and grade.
 *
 * The lab measures wake-up latency the way cyclictest does (rt_probe) in a
 * chosen set of named scenarios, each a documented configuration of policy,
 * priority, memory locking, pinning and background load (rt_load). Explicit
 * cyclictest-like options (--policy, --priority, --interval, --threads,
 * --cpus, --mlock, --load, --duration, ...) override the scenarios' fields,
 * or, given without --scenario, describe one scenario called "custom".
 *
 * Everything here is exposed for three readers: the CLI (through lab_ops),
 * the unit tests and fuzz target (the parsers and the grade), and the
 * ncurses screen (the live model, which the run keeps current and a UI
 * thread may snapshot at any time).
 */
#ifndef RTLAB_LABS_LAB_LATENCY_H
#define RTLAB_LABS_LAB_LATENCY_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "labs/lab.h"

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6	/* <linux/sched.h>; glibc's <sched.h> may lack it */
#endif

#define LATENCY_MAX_SCENARIOS 24u
#define LATENCY_MAX_THREADS 64u
#define LATENCY_MAX_CPUS 1024u
#define LATENCY_NAME_MAX 32u
#define LATENCY_LOAD_MAX 128u

#define LATENCY_DEFAULT_DURATION_MS 15000u	/* per scenario: 15,000 samples at 1 ms */
#define LATENCY_DEFAULT_INTERVAL_US 1000u
#define LATENCY_DEFAULT_DISTANCE_US 500u	/* as cyclictest -d */
#define LATENCY_DEFAULT_PRIORITY 90
#define LATENCY_DEFAULT_DL_RUNTIME_US 200u	/* --dl-runtime: 20 % of the default period */
#define LATENCY_DEFAULT_HIST_MAX_US 2000u
#define LATENCY_MAX_DURATION_MS (86400u * 1000u)
#define LATENCY_MAX_HIST_US 100000u
#define LATENCY_DEFAULT_REPEATS 5u	/* throughput: runs of each workload */
#define LATENCY_MAX_REPEATS 100u
#define LATENCY_MIN_TPUT_RUN_MS 100u	/* throughput: shortest run of one workload */
#define LATENCY_MAX_SLACK_NS 1000000000ull	/* --timer-slack: at most 1 s */
#define LATENCY_ALLOC_KIB 256u		/* the -alloc scenarios: 64 pages, above malloc's mmap threshold */
#define LATENCY_MAX_ALLOC_KIB 65536u	/* --alloc: at most 64 MiB a cycle */
/* Grading: each required scenario needs at least this many samples. */
#define LATENCY_GRADE_MIN_SAMPLES 10000u

/*
 * The kernel-side scenarios (lesson 16): what the rtlab_inject module does beside
 * the probe. Each needs the module's debugfs file named in lab_latency_kside.c.
 */
enum latency_kside {
	LATENCY_KSIDE_NONE,
	LATENCY_KSIDE_IRQ_THREAD,	/* irq_thread_us: the threaded interrupt's thread */
	LATENCY_KSIDE_HARDIRQ,		/* hardirq_us: a handler without a thread */
	LATENCY_KSIDE_LOCK_RAW,		/* raw_spinlock_us */
	LATENCY_KSIDE_LOCK_SLEEPING,	/* spinlock_us */
};

/* A named scenario as documented in the handout. */
struct latency_scenario {
	const char *name;
	const char *summary;		/* one sentence: what it shows */
	int policy;			/* SCHED_OTHER, SCHED_FIFO or SCHED_DEADLINE */
	int priority;
	bool mlock;
	bool pinned;			/* thread i on CPU i (or on --cpus) */
	const char *load;		/* rt_load names, or NULL for an idle machine */
	bool needs_preempt_rt;		/* refuse to run on a kernel that is not PREEMPT_RT */
	uint64_t timer_slack_ns;	/* the probe's PR_SET_TIMERSLACK; 0: the kernel's default */
	bool throughput;		/* no probe: the lab_latency_work workloads, counted (ops/s) */
	unsigned int alloc_kib;		/* fresh memory mapped and touched every cycle; 0 none */
	enum latency_kside kside;	/* what rtlab_inject does beside the probe */
	int irq_priority;		/* SCHED_FIFO priority of irq/N-rtlab_inject; 0 leave it */
	bool spinner;			/* a SCHED_FIFO 99 thread spins in bursts (Myth 7) */
};

/* The scenario table, in teaching order, and its length. */
extern const struct latency_scenario latency_scenarios[];
extern const size_t latency_nscenarios;

/* The scenario called @name, or NULL. */
const struct latency_scenario *latency_scenario_find(const char *name);

/* One scenario as it will run: the table entry with the options applied. */
struct latency_plan {
	char name[LATENCY_NAME_MAX];
	int policy;
	int priority;
	bool mlock;
	bool pinned;
	bool needs_preempt_rt;
	char load[LATENCY_LOAD_MAX];	/* "" for none */
	uint64_t timer_slack_ns;	/* 0: the kernel's default (50 us for SCHED_OTHER) */
	bool throughput;		/* the throughput workloads instead of the probe */
	unsigned int alloc_kib;		/* rt_probe_config.alloc_bytes / 1024; 0 none */
	enum latency_kside kside;
	int irq_priority;
	bool spinner;
};

/* The parsed options of one `rtlab lab run latency`. */
struct latency_params {
	struct latency_plan plan[LATENCY_MAX_SCENARIOS];
	unsigned int nplans;
	unsigned int duration_ms;	/* per scenario */
	unsigned int interval_us;
	unsigned int distance_us;
	unsigned int threads;
	unsigned int hist_max_us;
	unsigned int repeats;		/* throughput: runs of each workload, interleaved */
	unsigned int dl_runtime_us;	/* SCHED_DEADLINE's reservation (--dl-*) */
	unsigned int dl_deadline_us;	/* 0: the period */
	unsigned int dl_period_us;	/* 0: each thread's interval */
	unsigned int cpus[LATENCY_MAX_CPUS];	/* --cpus, in the order given */
	unsigned int ncpus;			/* 0: no --cpus */
	bool dma_latency;
	unsigned int spike_us;		/* 0 = off */
	unsigned int trace_marker_us;	/* 0 = off */
	bool custom;			/* no --scenario: one "custom" plan from the options */
	/*
	 * The options as given, which latency_params_finish() applies to the
	 * plans; the run reads the plans only.
	 */
	bool scenarios_given;		/* --scenario: plan[] holds the named ones */
	int opt_policy;			/* --policy: 0 other, 1 fifo, 2 rr, 3 deadline; -1 not given */
	unsigned int opt_priority;	/* --priority; 0 not given */
	bool opt_mlock;			/* --mlock */
	bool opt_load_given;		/* --load */
	char opt_load[LATENCY_LOAD_MAX];	/* its generators, "" for none */
	uint64_t opt_timer_slack_ns;	/* --timer-slack; 0 not given */
	unsigned int opt_alloc_kib;	/* --alloc; 0 not given */
	int preempt;			/* --preempt: index in rt_preempt_models[]; -1 not given */
	/*
	 * Where /proc and /sys are: "" on the live system; a fixture tree
	 * in the unit tests (not an option).
	 */
	const char *sys_root;
};

/* latency_params_init - the defaults: idle-other, load-other, idle-fifo, load-fifo. */
void latency_params_init(struct latency_params *p);

/* The option table (lab_latency.options) and the rules it cannot express. */
extern const struct lab_option latency_options[];
extern const char latency_options_note[];

/**
 * latency_params_finish - apply the rules that span options
 * @p: defaults plus the options, as the table stored them
 *
 * Without --scenario, --policy/--priority/--mlock/--load make one "custom"
 * plan; then they override every plan, and --cpus pins them. Refuses
 * --priority with SCHED_OTHER or SCHED_DEADLINE, a deadline reservation
 * that is not runtime <= deadline <= period, --dl-* options without a
 * deadline plan, an interval below 50 us with a real-time
 * policy and a longest interval above 1 s. Pure. Returns 0 or -EINVAL.
 */
int latency_params_finish(struct latency_params *p, char **cause);

/**
 * latency_params_parse - parse the lab's options into @p (for the TUI and tests)
 * @argc, @argv: argv[0] is the lab name; options may be "--opt VALUE" or "--opt=VALUE"
 * @p: filled from latency_params_init() plus the options
 * @cause: on failure, what is wrong (caller frees)
 *
 * lab_args_parse() on latency_options without --seed, --json and --help,
 * and without the check that --cpus are online. Pure: no I/O and no
 * globals. Returns 0 or -EINVAL.
 */
int latency_params_parse(int argc, char **argv, struct latency_params *p, char **cause);

/**
 * latency_params_check_cpus - refuse --cpus naming a CPU that is not online
 * @p: parsed options
 * @usable: the online CPUs, passed in so that the check stays pure
 * @cause: on failure "--cpus: CPU 5 is not online here (the online CPUs are
 *         0-1)"; several are named as a list
 *
 * Returns 0 (also when --cpus was not given) or -EINVAL.
 */
int latency_params_check_cpus(const struct latency_params *p, const cpu_set_t *usable,
			      char **cause);

/**
 * latency_format_cpus - @set as a CPU list, "0-3,6"
 * @buf: receives the list, "" for an empty set; cut at a whole entry when
 *       @size is too small
 */
void latency_format_cpus(const cpu_set_t *set, char *buf, size_t size);

/**
 * latency_share_pct - @part of @whole in percent, to 0.001 %
 *
 * The spikes_pct of a --spike run: wake-ups later than --spike among all
 * measured ones. 0 when @whole is 0. Pure.
 */
double latency_share_pct(uint64_t part, uint64_t whole);

/* "other", "fifo", "rr", "deadline" for a SCHED_* policy. */
const char *latency_policy_name(int policy);

/**
 * latency_pct_text - a percentile as a person reads it
 * @value_us: the percentile (a bucket's upper edge)
 * @resolution_us: that bucket's width; 1 or less prints no resolution
 * @beyond: an rtlab.result/1 document's "above_bound": @value_us is only the
 *          histogram bound the percentile lies beyond
 * @compact: for a table column: "12", "2368+-64", ">2000"; otherwise
 *           "12 us", "2368 us (resolution 64 us)", "beyond 2000 us"
 *
 * Numbers are limited to +-1e15, as the results validator limits them.
 */
void latency_pct_text(char *buf, size_t size, double value_us, double resolution_us,
		      bool beyond, bool compact);

/* ---- Live model for a screen -------------------------------------------------- */

/* One measuring thread as a screen shows it. */
struct latency_live_thread {
	int tid;
	uint64_t samples;
	uint64_t drops;
	int64_t cur_ns;			/* the last sample */
	int64_t min_ns;
	int64_t max_ns;
	double avg_ns;
	uint64_t p99_us;
	uint64_t p99_resolution_us;	/* 1 within the 1 us buckets */
	bool p99_meaningful;		/* 100 samples beyond it (rt_hist_needed()) */
};

/* A consistent copy of the model; the histogram is the current scenario's (all threads). */
struct latency_live_snap {
	char scenario[LATENCY_NAME_MAX];
	unsigned int index;		/* of the current scenario, 0-based */
	unsigned int nscenarios;
	unsigned int pct;		/* progress of the current scenario */
	const char *policy;		/* "other"/"fifo"/"rr", as actually used */
	bool running;
	unsigned int nthreads;
	struct latency_live_thread threads[LATENCY_MAX_THREADS];
	unsigned int nbuckets;		/* 1 us buckets in @counts */
	uint64_t *counts;		/* caller's array of @cap entries, or NULL */
	size_t cap;
	uint64_t overflow;
	/* throughput: no threads, no histogram; what runs and the last figure */
	bool throughput;
	char activity[128];
};

/*
 * The model a run keeps current (lab_ctx.live). Fields are private to
 * lab_latency.c; a reader uses latency_live_snapshot().
 */
struct latency_live {
	pthread_mutex_t lock;
	struct latency_live_snap snap;	/* counts points into hist below */
	uint64_t *hist;			/* owned */
	size_t hist_cap;
	unsigned int skip;		/* 1 + index of the scenario to end early; 0 = none */
};

/* latency_live_init - an empty model; 0 or -ENOMEM. Release with latency_live_fini(). */
int latency_live_init(struct latency_live *m);
void latency_live_fini(struct latency_live *m);

/**
 * latency_live_snapshot - copy the model into @out
 *
 * @out->counts/cap are the caller's (counts beyond cap are not copied);
 * everything else is overwritten. Safe from any thread while a run updates
 * the model.
 */
void latency_live_snapshot(struct latency_live *m, struct latency_live_snap *out);

/**
 * latency_live_skip - end the scenario now being measured early
 *
 * The run records what that scenario measured so far (with "skipped": true)
 * and goes on with the next one. It applies to the scenario current at the
 * call only, so a late request never skips the following scenario. Safe
 * from any thread.
 */
void latency_live_skip(struct latency_live *m);

/* ---- The lab ---------------------------------------------------------------- */

extern const struct lab_ops lab_latency;

/* The handout's written questions, NULL-terminated ("Q1" ...). */
extern const char *const latency_questions[];

/*
 * latency_grade - the lab's grade (also lab_latency.grade): a pure function
 * of the document. See labs/latency/README.md, "What is graded".
 */
int latency_grade(const struct lab_result *res, struct grade_report *rep);

/* The scenarios latency_grade() needs that @res lacks (also lab_latency.grade_lacks). */
int latency_grade_lacks(const struct rt_result *res, struct rt_buf *missing);

#endif
