/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_latency_opts: the latency lab's scenario table, its option table
 * (read by lab_opts.c, which also prints --help and the man page from it)
 * and the rules that span options. Pure (no I/O, no globals, no getopt
 * state), so the unit tests and the fuzz target call it with any argv.
 *
 * Rules, in the order they are applied (latency_params_finish()):
 *   1. --scenario S (repeatable, or "a,b") picks named scenarios; without
 *      any, the default set is idle-other, load-other, idle-fifo, load-fifo
 *      (the four the lessons' predict questions name);
 *   2. without --scenario, any of --policy, --priority, --mlock, --load,
 *      --timer-slack, --alloc makes one scenario called "custom" instead
 *      (cyclictest-like: OTHER, idle, no mlock, then the options);
 *   3. the explicit options then override every chosen scenario but
 *      throughput (which runs no probe): --policy (a bare --priority means
 *      fifo, as cyclictest -p), --priority, --mlock, --load, --timer-slack,
 *      --alloc, and --cpus (which pins every scenario's threads);
 *   4. throughput needs at least LATENCY_MIN_TPUT_RUN_MS per run: --duration
 *      is shared by --repeats runs of each of its four workloads.
 */
#include "lab_latency.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_err.h"
#include "core/rt_load.h"
#include "core/rt_parse.h"
#include "core/rt_preempt.h"
#include "labs/lab_latency_work.h"

#define DEFAULT_LOAD "cpu,msg"

#define FIFO SCHED_FIFO, .priority = LATENCY_DEFAULT_PRIORITY

const struct latency_scenario latency_scenarios[] = {
	{ .name = "idle-other", .summary = "SCHED_OTHER on an idle machine: the everyday "
	  "baseline, timer slack included", .policy = SCHED_OTHER },
	{ .name = "idle-other-noslack", .summary = "idle-other with the probe's timer slack at "
	  "1 ns (PR_SET_TIMERSLACK) instead of 50 us: SCHED_OTHER against idle-fifo without "
	  "the slack", .policy = SCHED_OTHER, .timer_slack_ns = 1 },
	{ .name = "load-other", .summary = "SCHED_OTHER while CPU hogs and a message storm keep "
	  "every CPU busy: the probe shares the CPU fairly, and its tail shows it",
	  .policy = SCHED_OTHER, .load = DEFAULT_LOAD },
	{ .name = "load-other-noslack", .summary = "load-other with the timer slack at 1 ns: "
	  "what is left of SCHED_OTHER's lateness under load without the slack",
	  .policy = SCHED_OTHER, .load = DEFAULT_LOAD, .timer_slack_ns = 1 },
	{ .name = "idle-fifo", .summary = "SCHED_FIFO priority 90 on an idle machine: no slack, "
	  "no competition; what is left is the kernel and the hardware", .policy = FIFO },
	{ .name = "load-fifo", .summary = "SCHED_FIFO priority 90 under the same load as "
	  "load-other: the load can no longer hold the probe off the CPU", .policy = FIFO,
	  .load = DEFAULT_LOAD },
	{ .name = "load-fifo-mlock", .summary = "load-fifo plus mlockall and a prefaulted stack: "
	  "no page fault can hit the measuring loop", .policy = FIFO, .mlock = true,
	  .load = DEFAULT_LOAD },
	{ .name = "load-fifo-mlock-pinned", .summary = "load-fifo-mlock with every measuring "
	  "thread pinned to one CPU (thread i on CPU i): no migrations, and rtlab's other "
	  "threads kept off those CPUs", .policy = FIFO, .mlock = true, .pinned = true,
	  .load = DEFAULT_LOAD },
	{ .name = "load-fifo-rt", .summary = "load-fifo-mlock-pinned on a PREEMPT_RT kernel; "
	  "refuses to run on any other kernel", .policy = FIFO, .mlock = true, .pinned = true,
	  .load = DEFAULT_LOAD, .needs_preempt_rt = true },
	{ .name = "idle-deadline", .summary = "SCHED_DEADLINE on an idle machine: a reservation "
	  "of --dl-runtime every interval (the period) instead of a priority",
	  .policy = SCHED_DEADLINE },
	{ .name = "load-deadline", .summary = "SCHED_DEADLINE under the same load as load-fifo: "
	  "the earliest deadline runs first, and the load's tasks wait as they do for FIFO",
	  .policy = SCHED_DEADLINE, .load = DEFAULT_LOAD },
	{ .name = "load-fifo-faults", .summary = "the deliberately bad one: SCHED_FIFO without "
	  "mlockall while a load maps, touches and unmaps memory (page-fault pressure) next to "
	  "CPU hogs", .policy = FIFO, .load = "pagefault,cpu" },
	{ .name = "load-fifo-alloc", .summary = "load-fifo whose loop maps, touches and unmaps "
	  "256 KiB of fresh memory every cycle, without mlockall: each page faults in when first "
	  "written, and the scenario times the mmap and the touch apart", .policy = FIFO,
	  .load = DEFAULT_LOAD, .alloc_kib = LATENCY_ALLOC_KIB },
	{ .name = "load-fifo-alloc-mlock", .summary = "load-fifo-alloc after mlockall(MCL_CURRENT "
	  "| MCL_FUTURE): the lock does not remove the faults of fresh memory, it moves them "
	  "into mmap, which populates every page before it returns", .policy = FIFO,
	  .mlock = true, .load = DEFAULT_LOAD, .alloc_kib = LATENCY_ALLOC_KIB },
	{ .name = "irqthread-above", .summary = "idle-fifo while a real interrupt's thread "
	  "(irq/N-rtlab_inject, from the rtlab_inject module) runs a 2 ms handler 8 times a "
	  "second at SCHED_FIFO 95, above the probe", .policy = FIFO,
	  .kside = LATENCY_KSIDE_IRQ_THREAD, .irq_priority = 95 },
	{ .name = "irqthread-below", .summary = "irqthread-above with the interrupt's thread at "
	  "SCHED_FIFO 80, below the probe: on PREEMPT_RT the probe preempts the handler",
	  .policy = FIFO, .kside = LATENCY_KSIDE_IRQ_THREAD, .irq_priority = 80 },
	{ .name = "hardirq", .summary = "idle-fifo while an interrupt handler registered without "
	  "a thread runs 2 ms 8 times a second: in hard-irq context on stock, forced into a "
	  "thread at SCHED_FIFO 50 on PREEMPT_RT", .policy = FIFO,
	  .kside = LATENCY_KSIDE_HARDIRQ },
	{ .name = "lock-raw", .summary = "idle-fifo while a SCHED_OTHER thread holds a "
	  "raw_spinlock_t (interrupts off) for 2 ms 8 times a second", .policy = FIFO,
	  .kside = LATENCY_KSIDE_LOCK_RAW },
	{ .name = "lock-sleeping", .summary = "lock-raw with a spinlock_t: the same on stock, "
	  "a preemptible lock with interrupts on under PREEMPT_RT", .policy = FIFO,
	  .kside = LATENCY_KSIDE_LOCK_SLEEPING },
	{ .name = "fifo99-spinner", .summary = "Myth 7: a SCHED_FIFO 99 thread spins 20 ms of "
	  "every 125 ms while interrupts arrive; their thread (SCHED_FIFO 50) waits for the "
	  "spinner, and so does the probe", .policy = FIFO,
	  .kside = LATENCY_KSIDE_IRQ_THREAD, .spinner = true },
	{ .name = "throughput", .summary = "no latency probe: how much work the kernel gets "
	  "done per second (messages, pipe round trips, forks, and a CPU loop as the control), "
	  "each run --repeats times, interleaved, on one CPU; compare it on two kernels",
	  .policy = SCHED_OTHER, .throughput = true },
};

#undef FIFO

const size_t latency_nscenarios = sizeof(latency_scenarios) / sizeof(latency_scenarios[0]);

static const char *const default_set[] = { "idle-other", "load-other", "idle-fifo",
					   "load-fifo" };

const struct latency_scenario *latency_scenario_find(const char *name)
{
	for (size_t i = 0; i < latency_nscenarios; i++)
		if (strcmp(latency_scenarios[i].name, name) == 0)
			return &latency_scenarios[i];
	return NULL;
}

const char *latency_policy_name(int policy)
{
	switch (policy) {
	case SCHED_FIFO:
		return "fifo";
	case SCHED_RR:
		return "rr";
	case SCHED_DEADLINE:
		return "deadline";
	default:
		return "other";
	}
}

double latency_share_pct(uint64_t part, uint64_t whole)
{
	if (!whole)
		return 0;
	return round((double)part * 100000.0 / (double)whole) / 1000.0;
}

static void plan_from(struct latency_plan *pl, const struct latency_scenario *s)
{
	memset(pl, 0, sizeof(*pl));
	snprintf(pl->name, sizeof(pl->name), "%s", s->name);
	pl->policy = s->policy;
	pl->priority = s->priority;
	pl->mlock = s->mlock;
	pl->pinned = s->pinned;
	pl->needs_preempt_rt = s->needs_preempt_rt;
	snprintf(pl->load, sizeof(pl->load), "%s", s->load ? s->load : "");
	pl->timer_slack_ns = s->timer_slack_ns;
	pl->throughput = s->throughput;
	pl->alloc_kib = s->alloc_kib;
	pl->kside = s->kside;
	pl->irq_priority = s->irq_priority;
	pl->spinner = s->spinner;
}

void latency_params_init(struct latency_params *p)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < sizeof(default_set) / sizeof(default_set[0]); i++)
		plan_from(&p->plan[p->nplans++], latency_scenario_find(default_set[i]));
	p->duration_ms = LATENCY_DEFAULT_DURATION_MS;
	p->interval_us = LATENCY_DEFAULT_INTERVAL_US;
	p->distance_us = LATENCY_DEFAULT_DISTANCE_US;
	p->threads = 1;
	p->preempt = -1;
	p->sys_root = "";
	p->hist_max_us = LATENCY_DEFAULT_HIST_MAX_US;
	p->repeats = LATENCY_DEFAULT_REPEATS;
	p->opt_policy = -1;
	p->dl_runtime_us = LATENCY_DEFAULT_DL_RUNTIME_US;
}

/* ---- The options' own checks ---------------------------------------------------- */

/* Every comma-separated name must be a known generator, each once; "none" is "". */
static int parse_load(const char *s, char *out, size_t size, char **cause)
{
	char buf[LATENCY_LOAD_MAX];
	char *save = NULL, *tok;
	size_t n = 0;
	const char *seen[16];

	if (strcmp(s, "none") == 0) {
		out[0] = '\0';
		return 0;
	}
	if (strlen(s) >= sizeof(buf) || strlen(s) >= size || !*s)
		return rt_err(cause, -EINVAL, "--load: expected NAME[,NAME] or none, at most %zu "
			      "characters", sizeof(buf) - 1);
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!rt_load_describe(tok))
			return rt_err(cause, -EINVAL, "--load: unknown load \"%.40s\" (known: %s, "
				      "or none)", tok, rt_load_names());
		for (size_t k = 0; k < n; k++)
			if (strcmp(seen[k], tok) == 0)
				return rt_err(cause, -EINVAL, "--load: \"%.40s\" named twice", tok);
		if (n >= sizeof(seen) / sizeof(seen[0]))
			return rt_err(cause, -EINVAL, "--load: too many loads");
		seen[n++] = tok;
	}
	if (n == 0 || s[0] == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
		return rt_err(cause, -EINVAL, "--load: empty name in \"%.60s\"", s);
	strcpy(out, s);
	return 0;
}

/* ---- CPU lists ----------------------------------------------------------------- */

void latency_format_cpus(const cpu_set_t *set, char *buf, size_t size)
{
	size_t len = 0;

	if (!size)
		return;
	buf[0] = '\0';
	for (unsigned int c = 0; c < CPU_SETSIZE && len + 1 < size; c++) {
		unsigned int e = c;
		int w;

		if (!CPU_ISSET(c, set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		w = e == c ? snprintf(buf + len, size - len, "%s%u", len ? "," : "", c) :
			     snprintf(buf + len, size - len, "%s%u-%u", len ? "," : "", c, e);
		if (w < 0 || (size_t)w >= size - len) {
			buf[len] = '\0';
			return;
		}
		len += (size_t)w;
		c = e;
	}
}

int latency_params_check_cpus(const struct latency_params *p, const cpu_set_t *usable,
			      char **cause)
{
	char bad[64], ok[64];
	cpu_set_t missing;

	CPU_ZERO(&missing);
	for (unsigned int i = 0; i < p->ncpus; i++)
		if (p->cpus[i] >= CPU_SETSIZE || !CPU_ISSET(p->cpus[i], usable))
			CPU_SET(p->cpus[i] < CPU_SETSIZE ? p->cpus[i] : CPU_SETSIZE - 1, &missing);
	if (!CPU_COUNT(&missing))
		return 0;
	latency_format_cpus(&missing, bad, sizeof(bad));
	latency_format_cpus(usable, ok, sizeof(ok));
	return rt_err(cause, -EINVAL, "--cpus: CPU%s %s %s not online here (the online CPUs are "
		      "%s)", CPU_COUNT(&missing) > 1 ? "s" : "", bad,
		      CPU_COUNT(&missing) > 1 ? "are" : "is", ok[0] ? ok : "none");
}

/* ---- The option table ------------------------------------------------------------ */

/* --scenario: repeatable; the first one replaces the default set. */
static int set_scenarios(void *params, const char *list, char **cause)
{
	struct latency_params *p = params;
	char buf[256];
	char *save = NULL, *tok;

	if (strlen(list) >= sizeof(buf) || !*list || list[0] == ',' ||
	    list[strlen(list) - 1] == ',' || strstr(list, ",,"))
		return rt_err(cause, -EINVAL, "--scenario: expected NAME[,NAME], got \"%.60s\"",
			      list);
	strcpy(buf, list);
	if (!p->scenarios_given) {
		p->nplans = 0;
		p->scenarios_given = true;
	}
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct latency_scenario *s = latency_scenario_find(tok);

		if (!s)
			return rt_err(cause, -EINVAL, "--scenario: unknown scenario \"%.40s\" (see "
				      "`rtlab lab run latency --help`)", tok);
		for (unsigned int k = 0; k < p->nplans; k++)
			if (strcmp(p->plan[k].name, tok) == 0)
				return rt_err(cause, -EINVAL, "--scenario: \"%s\" named twice", tok);
		if (p->nplans >= LATENCY_MAX_SCENARIOS)
			return rt_err(cause, -EINVAL, "at most %u scenarios per run",
				      LATENCY_MAX_SCENARIOS);
		plan_from(&p->plan[p->nplans++], s);
	}
	return 0;
}

/* --load: checked now, applied by latency_params_finish(). */
static int set_load(void *params, const char *value, char **cause)
{
	struct latency_params *p = params;
	int ret = parse_load(value, p->opt_load, sizeof(p->opt_load), cause);

	if (!ret)
		p->opt_load_given = true;
	return ret;
}

/* --policy's words; their index in policy_values is what the option stores. */
static const char *const policy_words[] = { "other", "fifo", "rr", "deadline", NULL };
static const int policy_values[] = { SCHED_OTHER, SCHED_FIFO, SCHED_RR, SCHED_DEADLINE };

#define MS RT_PARSE_NS_PER_MS
#define AT(field) LAB_OPT_AT(struct latency_params, field)

const struct lab_option latency_options[] = {
	{ .name = "scenario", .kind = LAB_OPT_STRING, .metavar = "S[,S]", .set = set_scenarios,
	  .help = "Run these scenarios, in this order; repeatable. The scenarios: idle-other, "
		  "idle-other-noslack, load-other, load-other-noslack, idle-fifo, load-fifo, "
		  "load-fifo-mlock, load-fifo-mlock-pinned, load-fifo-rt (PREEMPT_RT kernels "
		  "only), idle-deadline, load-deadline (SCHED_DEADLINE), load-fifo-faults (the deliberately bad one), "
		  "load-fifo-alloc and load-fifo-alloc-mlock (fresh memory every cycle, without and "
		  "with mlockall: where the page faults go), irqthread-above, irqthread-below, "
		  "hardirq, lock-raw, lock-sleeping and fifo99-spinner (the kernel side, with "
		  "the rtlab_inject module), throughput (work per second instead of latency).",
	  .defval = "idle-other,load-other,idle-fifo,load-fifo" },
	{ .name = "duration", .kind = LAB_OPT_DURATION, .metavar = "D", AT(duration_ms),
	  .min = MS, .max = LATENCY_MAX_DURATION_MS * MS, .unit_ns = MS,
	  .help = "How long each scenario measures: 10s, 2m, 500ms, 1h, or a number of "
		  "seconds; at most 1d. The grade wants 10,000 samples per scenario: at the "
		  "default 1 ms interval that is 10 s of wake-ups plus start-up, so give "
		  "at least 12s (the default leaves room).", .defval = "15s" },
	{ .name = "policy", .kind = LAB_OPT_ENUM, .values = policy_words, AT(opt_policy),
	  .help = "The scheduling policy of the measuring threads; deadline is SCHED_DEADLINE "
		  "with the --dl-* reservation.",
	  .defval = "the scenario's" },
	{ .name = "priority", .kind = LAB_OPT_UINT, .metavar = "N", AT(opt_priority), .min = 1,
	  .max = 99, .help = "Their real-time priority, for fifo or rr; a --priority without "
		  "--policy means fifo, as cyclictest -p does.", .defval = "90" },
	{ .name = "dl-runtime", .kind = LAB_OPT_UINT, .metavar = "US", AT(dl_runtime_us),
	  .min = 2, .max = 1000000, .help = "SCHED_DEADLINE: the CPU time each thread may use "
		  "in every period, in microseconds (sched_setattr's runtime).",
	  .defval = "200" },
	{ .name = "dl-deadline", .kind = LAB_OPT_UINT, .metavar = "US", AT(dl_deadline_us),
	  .min = 2, .max = 1000000, .help = "SCHED_DEADLINE: by when after each period's start "
		  "the runtime must be served, in microseconds; runtime <= deadline <= period.",
	  .defval = "the period" },
	{ .name = "dl-period", .kind = LAB_OPT_UINT, .metavar = "US", AT(dl_period_us),
	  .min = 2, .max = 1000000, .help = "SCHED_DEADLINE: the reservation's period in "
		  "microseconds.", .defval = "each thread's interval" },
	{ .name = "interval", .kind = LAB_OPT_UINT, .metavar = "US", AT(interval_us), .min = 1,
	  .max = 1000000, .help = "The first thread's wake-up interval in microseconds; at "
		  "least 50 with a real-time policy.", .defval = "1000" },
	{ .name = "distance", .kind = LAB_OPT_UINT, .metavar = "US", AT(distance_us),
	  .max = 1000000, .help = "How much longer each further thread's interval is, in "
		  "microseconds (cyclictest -d).", .defval = "500" },
	{ .name = "threads", .kind = LAB_OPT_UINT, .metavar = "N", AT(threads), .min = 1,
	  .max = LATENCY_MAX_THREADS, .help = "Measuring threads, at most 64.", .defval = "1" },
	{ .name = "cpus", .kind = LAB_OPT_CPUS, .metavar = "LIST", AT(cpus),
	  .count_offset = offsetof(struct latency_params, ncpus), .max = LATENCY_MAX_CPUS,
	  .help = "Pin the measuring threads to these CPUs, e.g. 1 or 0,2-3 (thread i on the "
		  "i-th CPU); each CPU must be online, which is checked before the run.",
	  .defval = "not pinned" },
	{ .name = "mlock", .kind = LAB_OPT_FLAG, AT(opt_mlock),
	  .help = "mlockall() and a prefaulted stack, so that no page fault hits the measuring "
		  "loop." },
	{ .name = "alloc", .kind = LAB_OPT_UINT, .metavar = "KIB", AT(opt_alloc_kib), .min = 4,
	  .max = LATENCY_MAX_ALLOC_KIB, .help = "Each cycle, after its wake-up is measured, map "
		  "KIB kibibytes of fresh memory, write every page and unmap it, timing the mmap "
		  "and the writes apart and counting their page faults.",
	  .defval = "the scenario's: 256 in the -alloc ones, else none" },
	{ .name = "load", .kind = LAB_OPT_STRING, .metavar = "L[,L]|none", .set = set_load,
	  .help = "Background load while measuring, any of cpu, mem, io, msg, fork, pagefault, "
		  "stress-cpu, stress-io (the last two need stress-ng), or none.",
	  .defval = "the scenario's" },
	{ .name = "hist-max", .kind = LAB_OPT_UINT, .metavar = "US", AT(hist_max_us), .min = 1,
	  .max = LATENCY_MAX_HIST_US, .help = "The histogram has 1 us buckets below US; a "
		  "slower wake-up counts as an overflow.", .defval = "2000" },
	{ .name = "timer-slack", .kind = LAB_OPT_U64, .metavar = "NS", AT(opt_timer_slack_ns),
	  .min = 1, .max = LATENCY_MAX_SLACK_NS, .help = "The measuring threads' timer slack "
		  "in nanoseconds (prctl PR_SET_TIMERSLACK): how much later than planned the "
		  "kernel may wake a SCHED_OTHER sleeper so that wake-ups batch; 1 is as good as "
		  "none. Real-time policies get no slack anyway.",
	  .defval = "the scenario's: the kernel's 50000, or 1 in the -noslack ones" },
	{ .name = "repeats", .kind = LAB_OPT_UINT, .metavar = "N", AT(repeats), .min = 1,
	  .max = LATENCY_MAX_REPEATS, .help = "The throughput scenario runs each of its four "
		  "workloads N times, interleaved, in its --duration: the spread of the N runs "
		  "says how much a difference between two kernels may be noise.",
	  .defval = "5" },
	{ .name = "preempt", .kind = LAB_OPT_ENUM, .values = rt_preempt_models, AT(preempt),
	  .help = "Switch this kernel's preemption model for the run, and back afterwards "
		  "(root, a PREEMPT_DYNAMIC kernel and debugfs's sched/preempt; `rtlab doctor` "
		  "says whether it can be switched here): the same kernel and hardware under "
		  "each model.", .defval = "the model in force" },
	{ .name = "dma-latency", .kind = LAB_OPT_FLAG, AT(dma_latency),
	  .help = "Hold /dev/cpu_dma_latency at 0 while measuring, so that no CPU sleeps "
		  "deeply." },
	{ .name = "spike", .kind = LAB_OPT_UINT, .metavar = "US", AT(spike_us), .min = 1,
	  .max = 1000000, .help = "Count the wake-ups later than US as spikes.",
	  .defval = "off" },
	{ .name = "trace-marker", .kind = LAB_OPT_UINT, .metavar = "US", AT(trace_marker_us),
	  .min = 1, .max = 1000000, .help = "Write a line to tracefs's trace_marker for each "
		  "wake-up later than US, to find it in a trace.", .defval = "off" },
	{ .name = NULL },
};

#undef AT
#undef MS

const char latency_options_note[] =
	"Without --scenario, --policy, --priority, --mlock, --load, --timer-slack and --alloc "
	"describe one scenario called custom (SCHED_OTHER on an idle machine without mlock, then these "
	"options); with --scenario they override every chosen scenario's settings except "
	"throughput's, which measures no latency (its threads run as SCHED_OTHER on one CPU, "
	"the first of --cpus or the last this process may use, without a load). Not root: "
	"real-time policies are measured as SCHED_OTHER, and the document and a warning say "
	"so. See labs/latency/README.md.";

/* ---- Rules across options ----------------------------------------------------------- */

/* The reservation of every thread: runtime <= deadline <= period, the period each interval. */
static int check_dl(const struct latency_params *p, char **cause)
{
	unsigned int period = p->dl_period_us ? p->dl_period_us : p->interval_us;
	unsigned int deadline = p->dl_deadline_us ? p->dl_deadline_us : period;

	if (p->dl_runtime_us > deadline || deadline > period)
		return rt_err(cause, -EINVAL, "SCHED_DEADLINE needs --dl-runtime <= --dl-deadline "
			      "<= --dl-period, here %u, %u and %u us (the period defaults to the "
			      "--interval, the deadline to the period)", p->dl_runtime_us,
			      deadline, period);
	return 0;
}

int latency_params_finish(struct latency_params *p, char **cause)
{
	bool policy = p->opt_policy >= 0, priority = p->opt_priority != 0, dl = false;
	int ret;

	if (!p->scenarios_given && (policy || priority || p->opt_mlock || p->opt_load_given ||
				    p->opt_timer_slack_ns || p->opt_alloc_kib)) {
		struct latency_plan *pl = &p->plan[0];

		memset(pl, 0, sizeof(*pl));
		snprintf(pl->name, sizeof(pl->name), "custom");
		pl->policy = SCHED_OTHER;
		p->nplans = 1;
		p->custom = true;
	}
	for (unsigned int i = 0; i < p->nplans; i++) {
		struct latency_plan *pl = &p->plan[i];

		if (pl->throughput) {
			unsigned int runs = p->repeats * LATENCY_WORK_NKINDS;

			/* Work per second: the probe's options do not apply. */
			if (p->duration_ms / runs < LATENCY_MIN_TPUT_RUN_MS)
				return rt_err(cause, -EINVAL, "--duration %u ms is too short for "
					      "throughput with --repeats %u: each of its %u runs "
					      "would last %u ms, and a run needs at least %u ms "
					      "(give --duration %us or more, or fewer --repeats)",
					      p->duration_ms, p->repeats, runs,
					      p->duration_ms / runs,
					      LATENCY_MIN_TPUT_RUN_MS,
					      (runs * LATENCY_MIN_TPUT_RUN_MS + 999) / 1000);
			if (p->duration_ms / runs > LATENCY_WORK_MAX_MS)
				return rt_err(cause, -EINVAL, "throughput runs last at most %u s: "
					      "give more --repeats for --duration %u s",
					      LATENCY_WORK_MAX_MS / 1000, p->duration_ms / 1000);
			continue;
		}
		if (policy) {
			pl->policy = policy_values[p->opt_policy];
			if (pl->policy == SCHED_OTHER || pl->policy == SCHED_DEADLINE)
				pl->priority = 0;
			else if (pl->priority == 0)
				pl->priority = LATENCY_DEFAULT_PRIORITY;
		} else if (priority && pl->policy == SCHED_OTHER) {
			pl->policy = SCHED_FIFO;	/* cyclictest -p N means SCHED_FIFO */
		}
		if (priority) {
			if (pl->policy == SCHED_OTHER)
				return rt_err(cause, -EINVAL, "--priority needs --policy fifo or rr "
					      "(SCHED_OTHER has no real-time priority)");
			if (pl->policy == SCHED_DEADLINE)
				return rt_err(cause, -EINVAL, "--priority does not apply to "
					      "SCHED_DEADLINE (%s): its deadlines order it, and "
					      "--dl-runtime, --dl-deadline and --dl-period describe it",
					      pl->name);
			pl->priority = (int)p->opt_priority;
		}
		if (p->opt_mlock)
			pl->mlock = true;
		if (p->opt_load_given)
			snprintf(pl->load, sizeof(pl->load), "%s", p->opt_load);
		if (p->opt_timer_slack_ns)
			pl->timer_slack_ns = p->opt_timer_slack_ns;
		if (p->opt_alloc_kib)
			pl->alloc_kib = p->opt_alloc_kib;
		if (p->ncpus)
			pl->pinned = true;
		if (pl->policy == SCHED_DEADLINE) {
			dl = true;
			ret = check_dl(p, cause);
			if (ret)
				return ret;
		}
		if (pl->policy != SCHED_OTHER && p->interval_us < 50)
			return rt_err(cause, -EINVAL, "--interval %u us is below the 50 us minimum "
				      "for a real-time policy (it could starve the machine)",
				      p->interval_us);
	}
	if (!dl && (p->dl_deadline_us || p->dl_period_us ||
		    p->dl_runtime_us != LATENCY_DEFAULT_DL_RUNTIME_US))
		return rt_err(cause, -EINVAL, "--dl-runtime, --dl-deadline and --dl-period need "
			      "--policy deadline or a *-deadline scenario");
	if ((unsigned long long)p->interval_us +
	    (unsigned long long)p->distance_us * (p->threads - 1) > 1000000)
		return rt_err(cause, -EINVAL, "the longest thread interval (--interval + "
			      "--distance x (threads - 1)) must stay within 1 s");
	return 0;
}

int latency_params_parse(int argc, char **argv, struct latency_params *p, char **cause)
{
	int ret;

	latency_params_init(p);
	ret = lab_opts_apply(latency_options, argc, argv, p, NULL, cause);
	return ret ? ret : latency_params_finish(p, cause);
}
