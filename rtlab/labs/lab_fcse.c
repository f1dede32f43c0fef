/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_fcse: the FCSE lab (lesson 08). It simulates an ARMv5 core's VIVT
 * caches and TLB (sim/sim_fcse.c) under a workload, once per mode (flush
 * on every switch, FCSE guaranteed, FCSE best effort), and compares the
 * context switches' cost, the RT task's latency, the miss ratios, the
 * flushes and the processes refused. No ARMv5 hardware is at hand, so it
 * is a simulation everywhere (sim_only) and says so in every document,
 * view and note; labs/fcse/README.md says which numbers are the paper's
 * and which are ours.
 *
 * A document's named scenarios are "<workload>-<mode>" ("mixed-flush"),
 * with every counter of the model and the lab's figures (switch_avg_us,
 * latency_avg_us, the miss ratios...), so that lesson 08's predict
 * question can name one. The summary holds those figures for the first
 * mode simulated (in the order flush, guaranteed, best-effort), each
 * mode's under its prefix (guaranteed_latency_avg_us) and the two ratios
 * the paper speaks of (guaranteed_vs_flush_ratio, best_effort_vs_flush_ratio).
 */
#include "lab.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_err.h"
#include "core/rt_hist.h"
#include "core/rt_json.h"
#include "core/rt_log.h"
#include "core/rt_result.h"
#include "core/rt_sink.h"
#include "core/rt_keys.h"
#include "lab_fcse.h"
#include "lab_fcse_live.h"
#include "sim/sim.h"

#define CHUNK_STEPS (1u << 20)	/* accesses between two looks at the stop flag: ~5 ms */
#define FCSE_TICKS_DEFAULT 200u
#define FCSE_SWITCHES_DEFAULT 1000u

static const char *const cpu_names[] = { "arm926", "arm920t", NULL };
static const char *const repl_words[] = { "cpu", "rr", "random", "lru", NULL };
static const char *const workload_words[] = { "mixed", "small", "thrash", "many", "trace", NULL };
/* Prefixes of the per-mode summary keys. */
static const char *const mode_keys[SIM_FCSE_NMODES] = { "flush", "guaranteed", "best_effort" };

/* ---- Options -------------------------------------------------------------------- */

void fcse_params_init(struct fcse_params *p)
{
	memset(p, 0, sizeof(*p));
	p->modes = (1u << SIM_FCSE_NMODES) - 1;
	p->tlb_flush = true;
	p->ticks = FCSE_TICKS_DEFAULT;
	p->switches = FCSE_SWITCHES_DEFAULT;
}

static void params_default(void *params)
{
	fcse_params_init(params);
}

static int set_modes(void *params, const char *value, char **cause)
{
	/* the modes' names, and "off": the word for flush, which a learner may type */
	static const char *const names[] = { "flush", "guaranteed", "best-effort", "off", NULL };
	struct fcse_params *p = params;
	uint32_t mask;
	int ret;

	_Static_assert(SIM_FCSE_MODE_FLUSH == 0 && SIM_FCSE_MODE_GUARANTEED == 1 &&
		       SIM_FCSE_MODE_BEST_EFFORT == 2 && SIM_FCSE_NMODES == 3,
		       "set_modes' names follow enum sim_fcse_mode");
	ret = lab_opts_names("--mode", "mode", value, names, true, &mask, cause);
	p->modes = (mask & 7u) | (mask >> 3 & 1u);
	return ret;
}

static int set_trace(void *params, const char *value, char **cause)
{
	struct fcse_params *p = params;

	if (p->ntraces >= FCSE_MAX_TRACES)
		return rt_err(cause, -EINVAL, "--trace: at most %u traces", FCSE_MAX_TRACES);
	if (!*value)
		return rt_err(cause, -EINVAL, "--trace: name a file");
	p->traces[p->ntraces] = strdup(value);
	if (!p->traces[p->ntraces])
		return rt_err(cause, -ENOMEM, "out of memory");
	p->ntraces++;
	return 0;
}

static int set_workload(void *params, const char *value, char **cause)
{
	struct fcse_params *p = params;

	for (int i = 0; workload_words[i]; i++) {
		if (!strcmp(value, workload_words[i])) {
			p->workload = i;
			p->workload_given = true;
			return 0;
		}
	}
	return rt_err(cause, -EINVAL, "--workload: no workload called '%s' (mixed, small, "
		      "thrash, many or trace)", value);
}

static int params_check(void *params, char **cause)
{
	struct fcse_params *p = params;

	if (p->ntraces && !p->workload_given)
		p->workload = FCSE_WORKLOAD_TRACE;
	if (p->workload == FCSE_WORKLOAD_TRACE && !p->ntraces)
		return rt_err(cause, -EINVAL, "--workload trace needs at least one --trace FILE");
	if (p->ntraces && p->workload != FCSE_WORKLOAD_TRACE)
		return rt_err(cause, -EINVAL, "--trace runs the trace workload, not %s",
			      workload_words[p->workload]);
	if (p->live && p->workload == FCSE_WORKLOAD_TRACE)
		return rt_err(cause, -EINVAL, "--live runs the named workloads as processes "
			      "(mixed, small, thrash, many), not a --trace");
	return 0;
}

static void params_free(void *params)
{
	struct fcse_params *p = params;

	for (unsigned int i = 0; i < p->ntraces; i++)
		free(p->traces[i]);
	p->ntraces = 0;
}

#define P(f) LAB_OPT_AT(struct fcse_params, f)
static const struct lab_option fcse_options[] = {
	{ .name = "mode", .kind = LAB_OPT_STRING, .metavar = "M[,M]", .set = set_modes,
	  .help = "Simulate these modes: flush (no FCSE: clean and invalidate the caches and "
		  "the TLB at every switch; off is a synonym), guaranteed (FCSE, at most 95 "
		  "processes below 32 MB, no cache flush), best-effort (FCSE, PIDs shared past "
		  "95, a flush only when a switch needs one), or all. With --live, boot the "
		  "FCSE kernel in each.",
	  .defval = "all" },
	{ .name = "workload", .kind = LAB_OPT_STRING, .metavar = "NAME", .set = set_workload,
	  .help = "The processes: mixed (the RT task, 3 small ones, one dirtying shared "
		  "memory, one above 32 MB), small (everything fits in the caches), thrash "
		  "(working sets that do not fit anyway), many (120 small ones), trace (one "
		  "process per --trace).",
	  .defval = "mixed" },
	{ .name = "live", .kind = LAB_OPT_FLAG, P(live),
	  .help = "Run the workload on the FCSE kernel too: boot the ARM image (make vm-arm; "
		  "qemu-system-arm) once per mode, run its processes for real and set the "
		  "kernel's counters (PIDs, refusals, flushes done and avoided) beside the "
		  "model's for the same processes and switches. Times stay the model's: QEMU "
		  "models no cache." },
	{ .name = "switches", .kind = LAB_OPT_UINT, .metavar = "N", P(switches), .min = 10,
	  .max = 100000,
	  .help = "--live: the switches between the processes measured (a token passed round "
		  "them, after a warm-up round).",
	  .defval = "1000" },
	{ .name = "processes", .kind = LAB_OPT_UINT, .metavar = "N", P(processes),
	  .min = 0, .max = 500,
	  .help = "Background processes of the workload's main kind (0: the workload's "
		  "own number); with --trace, small ones added to the traces.",
	  .defval = "0" },
	{ .name = "trace", .kind = LAB_OPT_STRING, .metavar = "FILE", .set = set_trace,
	  .help = "A background process replaying FILE, a Dinero din trace, valgrind "
		  "lackey --trace-mem=yes output or our binary format (build/fcse-trace "
		  "convert); may be given up to 8 times." },
	{ .name = "cpu", .kind = LAB_OPT_ENUM, .values = cpu_names, P(cpu),
	  .help = "The core's caches and TLB: arm926 (16+16 KB, 4-way, random replacement) "
		  "or arm920t (16+16 KB, 64-way, round-robin).",
	  .defval = "arm926" },
	{ .name = "replacement", .kind = LAB_OPT_ENUM, .values = repl_words, P(repl),
	  .help = "Cache replacement: the core's (cpu), rr, random or lru.",
	  .defval = "cpu" },
	{ .name = "write-allocate", .kind = LAB_OPT_FLAG, P(write_allocate),
	  .help = "A data write that misses fills the line (both cores allocate on reads only)." },
	{ .name = "no-tlb-flush", .kind = LAB_OPT_FLAG, .off = true, P(tlb_flush),
	  .help = "In the FCSE modes, keep the TLB at a switch (the patch's switch_mm "
		  "invalidates it, since the page tables change: an experiment)." },
	{ .name = "tlb-lock", .kind = LAB_OPT_UINT, .metavar = "N", P(tlb_lock), .min = 0,
	  .max = 8,
	  .help = "Lock the RT task's first N pages into the TLB's lockdown entries (the "
		  "ARM926 has 8), which no switch invalidates.",
	  .defval = "0" },
	{ .name = "ticks", .kind = LAB_OPT_UINT, .metavar = "N", P(ticks), .min = 2,
	  .max = 100000,
	  .help = "Scheduler ticks of 1 ms to simulate per mode (250 us for many); the RT "
		  "task is released every tick.",
	  .defval = "200" },
	{ .name = "icache-kb", .kind = LAB_OPT_UINT, .metavar = "KB", P(icache_kb), .min = 0,
	  .max = 128, .help = "I cache size, 4 .. 128, a power of two (0: the core's).",
	  .defval = "0" },
	{ .name = "dcache-kb", .kind = LAB_OPT_UINT, .metavar = "KB", P(dcache_kb), .min = 0,
	  .max = 128, .help = "D cache size, 4 .. 128, a power of two (0: the core's).",
	  .defval = "0" },
	{ .name = "ways", .kind = LAB_OPT_UINT, .metavar = "N", P(ways), .min = 0, .max = 64,
	  .help = "Associativity of both caches, a power of two (0: the core's).",
	  .defval = "0" },
	{ .name = NULL },
};
#undef P

/* ---- The scenario -------------------------------------------------------------------- */

/* What a run sets up once for all its modes. */
struct fcse_setup {
	struct sim_fcse_scenario sc;
	struct sim_fcse_proc kinds[SIM_FCSE_KINDS_MAX];
	struct fcse_trace_file files[FCSE_MAX_TRACES];
	unsigned int nfiles;
	const char *workload;
};

static void setup_fini(struct fcse_setup *s)
{
	for (unsigned int i = 0; i < s->nfiles; i++)
		fcse_trace_file_fini(&s->files[i]);
	s->nfiles = 0;
}

/* The trace workload: the RT task, one process per file, maybe small ones. */
static int setup_traces(struct fcse_setup *s, const struct fcse_params *p, char **cause)
{
	struct sim_fcse_scenario small;
	uint32_t n = 1;
	int ret;

	sim_fcse_workload("small", SIM_FCSE_MODE_FLUSH, &small);
	s->kinds[0] = small.procs[0];	/* the RT task */
	for (unsigned int i = 0; i < p->ntraces; i++, n++) {
		static const char *const names[FCSE_MAX_TRACES] = {
			"trace1", "trace2", "trace3", "trace4", "trace5", "trace6", "trace7",
			"trace8",
		};

		ret = fcse_trace_file_load(p->traces[i], &s->files[i], cause);
		s->nfiles = i + 1;
		if (ret)
			return ret;
		s->kinds[n] = (struct sim_fcse_proc){ .name = names[i], .count = 1,
			.trace = s->files[i].t.rec, .trace_len = s->files[i].t.n };
	}
	if (p->processes) {
		s->kinds[n] = small.procs[1];
		s->kinds[n++].count = p->processes;
	}
	s->sc.procs = s->kinds;
	s->sc.nprocs = n;
	return 0;
}

static int setup_init(struct fcse_setup *s, const struct fcse_params *p, char **cause)
{
	struct sim_fcse_scenario *sc = &s->sc;
	const char *wl = p->workload == FCSE_WORKLOAD_TRACE ? "small" :
			 sim_fcse_workloads[p->workload];
	int ret;

	memset(s, 0, sizeof(*s));
	s->workload = workload_words[p->workload];
	sim_fcse_workload(wl, SIM_FCSE_MODE_FLUSH, sc);
	if (p->workload == FCSE_WORKLOAD_TRACE) {
		ret = setup_traces(s, p, cause);
		if (ret)
			return ret;
	} else {
		memcpy(s->kinds, sc->procs, sc->nprocs * sizeof(*s->kinds));
		/* The main background kind is the one after the RT task. */
		if (p->processes)
			s->kinds[1].count = p->processes;
		sc->procs = s->kinds;
	}
	sim_fcse_cpu_preset(cpu_names[p->cpu], sc);
	if (p->repl)
		sc->repl = (enum sim_fcse_repl)(p->repl - 1);
	sc->write_allocate = p->write_allocate;
	sc->tlb_flush = p->tlb_flush;
	sc->tlb_lockdown = p->tlb_lock;
	if (p->icache_kb)
		sc->icache.size_bytes = p->icache_kb << 10;
	if (p->dcache_kb)
		sc->dcache.size_bytes = p->dcache_kb << 10;
	if (p->ways)
		sc->icache.ways = sc->dcache.ways = p->ways;
	sc->ticks = p->ticks;
	/* The model's check gives the learner its reason for a refusal. */
	return sim_fcse_model.check(sc, cause);
}

/* ---- The run ----------------------------------------------------------------------- */

struct fcse_poll {
	struct lab_ctx *ctx;
	const struct rt_sink *sink;
	char name[48];
	uint64_t ticks;
	unsigned int last_pct;	/* progress is said every 10 % */
	bool stopped;
	int switch_to;		/* a screen asked for this mode, or -1 */
};

static void live_publish(struct fcse_live *live, struct sim *s, int mode)
{
	const void *st = sim_state(s);
	const uint64_t *v = sim_counters(s)->v;
	uint32_t np = sim_fcse_nprocs(st);

	pthread_mutex_lock(&live->lock);
	live->mode = mode;
	live->accesses = v[SIM_FCSE_C_ACCESSES];
	live->switches = v[SIM_FCSE_C_SWITCHES];
	live->switch_sum_ns = v[SIM_FCSE_C_SWITCH_SUM];
	live->flushes = v[SIM_FCSE_C_FLUSHES];
	live->refused = v[SIM_FCSE_C_REFUSED];
	live->releases = v[SIM_FCSE_C_RELEASES];
	live->latency_sum_ns = v[SIM_FCSE_C_LATENCY_SUM];
	live->latency_max_ns = v[SIM_FCSE_C_LATENCY_MAX];
	live->i_accesses = v[SIM_FCSE_C_I_ACCESSES];
	live->i_misses = v[SIM_FCSE_C_I_MISSES];
	live->d_accesses = v[SIM_FCSE_C_D_ACCESSES];
	live->d_misses = v[SIM_FCSE_C_D_MISSES];
	live->time_ns = v[SIM_FCSE_C_TIME];
	live->nprocs = np;
	live->nr_pids = sim_fcse_nr_pids(st);
	live->cur = sim_fcse_current(st);
	for (uint32_t i = 0; i < SIM_FCSE_SLOTS; i++) {
		live->slot_proc[i] = 0xffff;
		live->slot_count[i] = 0;
	}
	for (uint32_t i = 0; i < np; i++) {
		struct sim_fcse_proc_info pi;

		sim_fcse_proc_get(st, i, &pi);
		live->proc_pid[i] = pi.refused || pi.exited ? 255 : (uint8_t)pi.pid;
		if (pi.refused || pi.exited)
			continue;
		if (live->slot_proc[pi.pid] == 0xffff)
			live->slot_proc[pi.pid] = (uint16_t)i;
		live->slot_count[pi.pid]++;
	}
	for (int d = 0; d < 2; d++) {
		uint32_t lines = sim_fcse_cache_lines(st, d), per = lines / FCSE_LIVE_CELLS;
		uint16_t *cell = d ? live->dcell : live->icell;
		uint32_t n = per ? FCSE_LIVE_CELLS : lines;

		per = per ? per : 1;
		for (uint32_t c = 0; c < n; c++) {
			uint32_t who = SIM_FCSE_NONE;

			for (uint32_t l = c * per; l < (c + 1) * per && who == SIM_FCSE_NONE; l++)
				who = sim_fcse_cache_owner(st, d, l);
			cell[c] = who == SIM_FCSE_NONE ? 0xffff : (uint16_t)who;
		}
		if (d)
			live->dcells = n;
		else
			live->icells = n;
	}
	pthread_mutex_unlock(&live->lock);
}

static int fcse_poll(void *priv, struct sim *s)
{
	struct fcse_poll *p = priv;
	struct fcse_live *live = p->ctx->live;
	uint64_t t = sim_counters(s)->v[SIM_FCSE_C_TIME];
	uint64_t horizon = p->ticks * 1000000;
	unsigned int pct;
	char what[96];

	if (live) {
		int req = __atomic_exchange_n(&live->mode_req, -1, __ATOMIC_RELAXED);

		live_publish(live, s, sim_fcse_state_mode(sim_state(s)));
		if (req >= 0 && req < SIM_FCSE_NMODES &&
		    req != (int)sim_fcse_state_mode(sim_state(s))) {
			p->switch_to = req;
			return 1;
		}
	}
	pct = horizon ? (unsigned int)(t * 100 / horizon) : 0;
	if (pct >= p->last_pct + 10 || (sim_done(s) && pct != p->last_pct)) {
		p->last_pct = pct;
		snprintf(what, sizeof(what), "%s: %.0f of %.0f simulated ms", p->name,
			 (double)t / 1e6, (double)horizon / 1e6);
		rt_sink_progress(p->sink, pct, what);
	}
	if (lab_ctx_stopped(p->ctx)) {
		p->stopped = true;
		return 1;
	}
	return 0;
}

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0.0;
}

/* The lab's figures from a mode's counters and histogram, into @o. */
static int add_figures(json_t *o, const struct sim_counters *c, const struct rt_hist *h)
{
	const uint64_t *v = c->v;
	struct rt_hist_pct pct;
	double p99 = 0;

	if (rt_hist_percentile(h, 990000, &pct) == 0)
		p99 = pct.value_us;
	return json_object_set_new(o, "switch_avg_us", json_real(ratio(v[SIM_FCSE_C_SWITCH_SUM],
						v[SIM_FCSE_C_SWITCHES]) / 1000.0)) ||
	       json_object_set_new(o, "switch_max_us",
				   json_real((double)v[SIM_FCSE_C_SWITCH_MAX] / 1000.0)) ||
	       json_object_set_new(o, "latency_avg_us",
				   json_real(ratio(v[SIM_FCSE_C_LATENCY_SUM],
						   v[SIM_FCSE_C_RELEASES]) / 1000.0)) ||
	       json_object_set_new(o, "latency_max_us",
				   json_real((double)v[SIM_FCSE_C_LATENCY_MAX] / 1000.0)) ||
	       json_object_set_new(o, "latency_p99_us", json_real(p99)) ||
	       json_object_set_new(o, "i_miss_ratio",
				   json_real(ratio(v[SIM_FCSE_C_I_MISSES],
						   v[SIM_FCSE_C_I_ACCESSES]))) ||
	       json_object_set_new(o, "d_miss_ratio",
				   json_real(ratio(v[SIM_FCSE_C_D_MISSES],
						   v[SIM_FCSE_C_D_ACCESSES]))) ||
	       json_object_set_new(o, "tlb_miss_ratio",
				   json_real(ratio(v[SIM_FCSE_C_TLB_MISSES],
						   v[SIM_FCSE_C_TLB_LOOKUPS]))) ? -ENOMEM : 0;
}

/*
 * One mode: run the model to its horizon, then its figures as a scenario
 * object into *@out and its latency histogram into *@hist (replacing an
 * earlier run's). *@switch_to is set when a screen asked for another mode
 * meanwhile.
 */
static int run_mode(struct lab_ctx *ctx, const struct rt_sink *sink, struct fcse_setup *su,
		    enum sim_fcse_mode mode, struct rt_hist **hist, json_t **out, bool *stopped,
		    int *switch_to, char **cause)
{
	struct fcse_poll poll = { .ctx = ctx, .sink = sink, .switch_to = -1 };
	struct fcse_live *live = ctx->live;
	struct sim *s = NULL;
	struct rt_hist *h = NULL;
	const char *summary;
	json_t *o;
	int ret;

	su->sc.mode = mode;
	snprintf(poll.name, sizeof(poll.name), "%s-%s", su->workload, sim_fcse_mode_names[mode]);
	poll.ticks = (uint64_t)su->sc.ticks * su->sc.tick_us / 1000;
	if (live) {
		pthread_mutex_lock(&live->lock);
		snprintf(live->workload, sizeof(live->workload), "%s", su->workload);
		pthread_mutex_unlock(&live->lock);
	}
	ret = sim_new(&sim_fcse_model, &su->sc, ctx->seed, &s, cause);
	if (ret)
		return ret;
	ret = sim_run_chunked(s, SIM_STEPS_ALL, CHUNK_STEPS, NULL, fcse_poll, &poll);
	if (ret && !poll.stopped && poll.switch_to < 0)
		goto out;
	*stopped = poll.stopped;
	*switch_to = poll.switch_to;
	summary = sim_fcse_workload_summary(su->workload) ?:
		  "the RT task and one process per --trace file";
	o = json_pack("{s:s, s:s, s:s, s:s, s:b}", "name", poll.name, "summary", summary,
		      "mode", sim_fcse_mode_names[mode], "workload", su->workload,
		      "interrupted", !sim_done(s));
	ret = o ? sim_counters_to_json(sim_counters(s), o) : -ENOMEM;
	if (!ret)
		ret = add_figures(o, sim_counters(s), sim_hist(s, SIM_FCSE_HIST_LATENCY));
	if (!ret) {
		h = rt_hist_new(su->sc.hist_bound_us, 0);
		ret = h ? rt_hist_merge(h, sim_hist(s, SIM_FCSE_HIST_LATENCY)) : -ENOMEM;
	}
	if (ret) {
		rt_hist_free(h);
		json_decref(o);
		goto out;
	}
	rt_hist_free(*hist);
	*hist = h;
	*out = o;
out:
	sim_free(s);
	return ret;
}

/* The summary: the first mode's figures plain, every mode's with its prefix. */
static int set_summary(struct rt_result *res, json_t *const per_mode[SIM_FCSE_NMODES])
{
	static const char *const plain[] = {
		"switch_avg_us", "switch_max_us", "flushes_count", "refused_count", "i_miss_ratio",
		"d_miss_ratio", "tlb_miss_ratio", "latency_avg_us", "latency_max_us", NULL,
	};
	static const char *const prefixed[] = {
		"switch_avg_us", "latency_avg_us", "latency_max_us", "flushes_count",
		"refused_count", NULL,
	};
	json_t *first = NULL;
	char key[96];
	int ret = 0;

	for (int m = 0; m < SIM_FCSE_NMODES; m++) {
		if (!per_mode[m])
			continue;
		if (!first)
			first = per_mode[m];
		for (int k = 0; !ret && prefixed[k]; k++) {
			snprintf(key, sizeof(key), "%s_%s", mode_keys[m], prefixed[k]);
			ret = rt_result_set_summary(res, key, rt_json_num(per_mode[m], prefixed[k]));
		}
	}
	for (int k = 0; !ret && first && plain[k]; k++)
		ret = rt_result_set_summary(res, plain[k], rt_json_num(first, plain[k]));
	if (!ret && per_mode[SIM_FCSE_MODE_FLUSH]) {
		double f = rt_json_num(per_mode[SIM_FCSE_MODE_FLUSH], "latency_avg_us");

		if (f > 0 && per_mode[SIM_FCSE_MODE_GUARANTEED])
			ret = rt_result_set_summary(res, "guaranteed_vs_flush_ratio",
				rt_json_num(per_mode[SIM_FCSE_MODE_GUARANTEED], "latency_avg_us") / f);
		if (!ret && f > 0 && per_mode[SIM_FCSE_MODE_BEST_EFFORT])
			ret = rt_result_set_summary(res, "best_effort_vs_flush_ratio",
				rt_json_num(per_mode[SIM_FCSE_MODE_BEST_EFFORT], "latency_avg_us") / f);
	}
	return ret;
}

static int record_params(struct rt_result *res, const struct fcse_params *p,
			 const struct fcse_setup *su)
{
	const struct sim_fcse_scenario *sc = &su->sc;
	json_t *modes = json_array(), *traces = json_array();
	int ret;

	if (!modes || !traces) {
		json_decref(modes);
		json_decref(traces);
		return -ENOMEM;
	}
	for (int m = 0; m < SIM_FCSE_NMODES; m++)
		if (p->modes & (1u << m))
			json_array_append_new(modes, json_string(sim_fcse_mode_names[m]));
	for (unsigned int i = 0; i < p->ntraces; i++)
		json_array_append_new(traces, json_string(p->traces[i]));
	ret = rt_result_set_param_json(res, "modes", modes) ?:
	      rt_result_set_param_json(res, "traces", traces) ?:
	      rt_result_set_param_str(res, "workload", su->workload) ?:
	      rt_result_set_param_str(res, "cpu", cpu_names[p->cpu]) ?:
	      rt_result_set_param_str(res, "replacement", sim_fcse_repl_names[sc->repl]) ?:
	      rt_result_set_param_bool(res, "write_allocate", sc->write_allocate) ?:
	      rt_result_set_param_bool(res, "tlb_flush", sc->tlb_flush) ?:
	      rt_result_set_param_num(res, "icache_bytes", sc->icache.size_bytes) ?:
	      rt_result_set_param_num(res, "dcache_bytes", sc->dcache.size_bytes) ?:
	      rt_result_set_param_num(res, "ways", sc->icache.ways) ?:
	      rt_result_set_param_num(res, "tlb_entries", sc->tlb_entries) ?:
	      rt_result_set_param_num(res, "tlb_lock", sc->tlb_lockdown) ?:
	      rt_result_set_param_num(res, "ticks", sc->ticks) ?:
	      rt_result_set_param_num(res, "tick_us", sc->tick_us) ?:
	      rt_result_set_param_num(res, "rt_accesses", sc->rt_accesses) ?:
	      rt_result_set_param_num(res, "cpu_mhz", sc->costs.cpu_mhz) ?:
	      rt_result_set_param_num(res, "fill_ns",
				      sc->costs.fill_cycles * 1000.0 / sc->costs.cpu_mhz) ?:
	      rt_result_set_param_num(res, "writeback_ns",
				      sc->costs.writeback_cycles * 1000.0 / sc->costs.cpu_mhz) ?:
	      rt_result_set_param_num(res, "tlb_refill_ns",
				      sc->costs.tlb_refill_cycles * 1000.0 / sc->costs.cpu_mhz) ?:
	      rt_result_set_param_num(res, "switch_path_ns",
				      sc->costs.switch_cycles * 1000.0 / sc->costs.cpu_mhz) ?:
	      rt_result_set_param_num(res, "nr_pids", sc->task_size >> SIM_FCSE_PID_SHIFT);
	return ret;
}

/* The next mode to simulate: one a screen asked for, else the next one not done. */
static int next_mode(unsigned int modes, unsigned int done, int *req)
{
	if (*req >= 0) {
		int m = *req;

		*req = -1;
		return m;
	}
	for (int m = 0; m < SIM_FCSE_NMODES; m++)
		if ((modes & (1u << m)) && !(done & (1u << m)))
			return m;
	return -1;
}

static int fcse_run(struct lab_ctx *ctx, const struct rt_sink *sink, struct lab_result *out)
{
	struct fcse_params defaults;
	const struct fcse_params *p = ctx->params;
	struct fcse_setup *su = calloc(1, sizeof(*su));
	json_t *per_mode[SIM_FCSE_NMODES] = { NULL }, *scens = json_array();
	struct rt_hist *hist[SIM_FCSE_NMODES] = { NULL };
	struct rt_result *res = NULL;
	unsigned int done = 0;
	char *cause = NULL;
	int ret, req = -1, m;

	memset(out, 0, sizeof(*out));
	if (!p) {
		fcse_params_init(&defaults);
		p = &defaults;
	}
	if (p->live) {
		free(su);
		json_decref(scens);
		return lab_fcse_live_run(ctx, sink, p, out);
	}
	if (!su || !scens) {
		ret = -ENOMEM;
		goto out;
	}
	ret = setup_init(su, p, &cause);
	if (ret)
		goto out;
	res = rt_result_new("fcse", "simulation", ctx->env);
	if (!res) {
		ret = -ENOMEM;
		goto out;
	}
	ret = lab_seed_record(res, ctx->seed) ?: record_params(res, p, su);
	while (!ret && !out->interrupted && (m = next_mode(p->modes, done, &req)) >= 0) {
		json_t *o = NULL;

		ret = run_mode(ctx, sink, su, (enum sim_fcse_mode)m, &hist[m], &o,
			       &out->interrupted, &req, &cause);
		if (ret)
			break;
		json_decref(per_mode[m]);
		per_mode[m] = o;
		done |= 1u << m;
	}
	if (ret)
		goto out;
	for (m = 0; !ret && m < SIM_FCSE_NMODES; m++) {
		char hname[64];

		if (!per_mode[m])
			continue;
		if (json_array_append(scens, per_mode[m]))
			ret = -ENOMEM;
		snprintf(hname, sizeof(hname), "%s.latency",
			 json_string_value(json_object_get(per_mode[m], "name")));
		ret = ret ?: rt_result_add_rt_hist(res, hname, hist[m]);
	}
	ret = ret ?: set_summary(res, per_mode) ?:
	      rt_result_add_note(res, "SIMULATED: a model of an ARMv5 core's VIVT caches and "
				 "TLB (sim/sim_fcse.c), not a measurement of this machine; its "
				 "costs are the back-of-envelope of doc/references.md 4.5 (a line fill "
				 "180 ns at 200 MHz)") ?:
	      rt_result_add_note(res, "the paper's figures (LWN summary, unverified): "
				 "guaranteed mode about halved the average latency, best effort "
				 "cut it by about a quarter; guaranteed_vs_flush_ratio and "
				 "best_effort_vs_flush_ratio are this simulation's");
	if (!ret && p->ntraces) {
		char *n = NULL;

		/* "ran 5" for --trace F --processes 3 surprised a learner: say who they are. */
		if (asprintf(&n, "processes: the RT task, %u replaying --trace, %u small ones "
			     "(--processes): %u in all", p->ntraces, p->processes,
			     1 + p->ntraces + p->processes) < 0)
			ret = -ENOMEM;
		else
			ret = rt_result_add_note(res, n);
		free(n);
	}
out:
	for (m = 0; m < SIM_FCSE_NMODES; m++) {
		json_decref(per_mode[m]);
		rt_hist_free(hist[m]);
	}
	if (su)
		setup_fini(su);
	free(su);
	return lab_result_finish(out, res, scens, ret, cause, "fcse",
				 "interrupted: the document holds the accesses simulated until "
				 "then");
}

/* ---- Views, grade, scenarios --------------------------------------------------------- */

/* The model's flush reasons (flush_<key>_count), as the "flushes" view explains them. */
static const struct {
	const char *key, *why;
} fcse_flush_reasons[] = {
	{ "flush_no_fcse_count", "no FCSE: every switch between address spaces flushes" },
	{ "flush_no_prev_count", "the first switch: nothing is known of the caches yet" },
	{ "flush_reused_pid_count", "the next process's PID holds another process's lines" },
	{ "flush_next_large_count", "the next process has pages above 32 MB" },
	{ "flush_prev_large_count", "the previous process has pages above 32 MB" },
	{ "flush_prev_shared_count", "the previous process dirtied shared writable pages" },
	{ "flush_relocate_count", "a process grew past 32 MB and moved to PID 0" },
};

/* Which switches flushed and why, per mode: a row per reason the model counted. */
static int fcse_flush_view(const struct rt_result *res, json_t *views)
{
	json_t *rows = json_array(), *s;
	bool have = false;
	size_t i;

	if (!rows)
		return -ENOMEM;
	json_array_foreach(rt_result_scenarios(res), i, s) {
		const char *name = json_string_value(json_object_get(s, "name")) ?: "";
		double sw = rt_json_num(s, "switches_count"), all = 0;

		for (size_t r = 0; r < sizeof(fcse_flush_reasons) / sizeof(fcse_flush_reasons[0]);
		     r++) {
			json_t *v = json_object_get(s, fcse_flush_reasons[r].key);
			double n = json_number_value(v);

			have = have || v;
			all += n;
			if (n > 0 && json_array_append_new(rows, json_pack("[s, f, f, f, s]", name,
					sw, n, sw > 0 ? 100.0 * n / sw : 0.0,
					fcse_flush_reasons[r].why)))
				goto nomem;
		}
		if (all == 0 && json_array_append_new(rows, json_pack("[s, f, f, f, s]", name, sw,
				0.0, 0.0, "no flush: every switch kept the caches")))
			goto nomem;
	}
	if (!have) {
		json_decref(rows);	/* an older document: the reasons were not counted */
		return 0;
	}
	return json_array_append_new(views, json_pack(
		"{s:s, s:s, s:[{s:s}, {s:s}, {s:s}, {s:s, s:s, s:s}, {s:s}], s:o}",
		"name", "flushes", "title", "SIMULATED: which switches flushed the caches, and why",
		"columns", "name", "scenario", "name", "switches", "name", "flushes",
		"name", "share", "title", "of switches", "unit", "pct", "name", "why",
		"rows", rows)) ? -ENOMEM : 0;
nomem:
	json_decref(rows);
	return -ENOMEM;
}

static int fcse_views(const struct rt_result *res, json_t *views, char **cause)
{
	json_t *rows = json_array(), *prow = json_array(), *paper = json_array(), *s;
	json_t *sum = json_object_get(rt_result_json(res), "summary");
	double g = json_number_value(json_object_get(sum, "guaranteed_vs_flush_ratio"));
	double b = json_number_value(json_object_get(sum, "best_effort_vs_flush_ratio"));
	size_t i;

	(void)cause;
	if (fcse_live_doc(res)) {
		json_decref(rows);
		json_decref(prow);
		json_decref(paper);
		return fcse_live_views(res, views);
	}
	if (!rows || !prow || !paper)
		goto out_nomem;
	json_array_foreach(rt_result_scenarios(res), i, s) {
		const char *name = json_string_value(json_object_get(s, "name")) ?: "";

		if (json_array_append_new(rows, json_pack("[s, f, f, f, f, f, f, f, f]", name,
				rt_json_num(s, "latency_avg_us"), rt_json_num(s, "latency_max_us"),
				rt_json_num(s, "switch_avg_us"), rt_json_num(s, "switch_max_us"),
				rt_json_num(s, "flushes_count"), 100.0 * rt_json_num(s, "i_miss_ratio"),
				100.0 * rt_json_num(s, "d_miss_ratio"), rt_json_num(s, "refused_count"))) ||
		    json_array_append_new(prow, json_pack("[s, f, f, f, f, f]", name,
				rt_json_num(s, "processes_count"), rt_json_num(s, "refused_fork_count"),
				rt_json_num(s, "refused_mmap_count"), rt_json_num(s, "shared_pids_count"),
				rt_json_num(s, "relocations_count"))))
			goto out_nomem;
	}
	if (json_object_get(sum, "guaranteed_vs_flush_ratio") &&
	    json_array_append_new(paper, json_pack("[s, f, f]", "guaranteed / flush", 0.5, g)))
		goto out_nomem;
	if (json_object_get(sum, "best_effort_vs_flush_ratio") &&
	    json_array_append_new(paper, json_pack("[s, f, f]", "best-effort / flush", 0.75, b)))
		goto out_nomem;
	if (json_array_append_new(views, json_pack(
		"{s:s, s:s, s:[{s:s}, {s:s, s:s, s:s}, {s:s, s:s, s:s}, {s:s, s:s, s:s}, "
		"{s:s, s:s, s:s}, {s:s}, {s:s, s:s, s:s}, {s:s, s:s, s:s}, {s:s}], s:o}",
		"name", "modes", "title", "SIMULATED ARMv5 VIVT caches per mode (a model, not "
		"this machine)", "columns", "name", "scenario",
		"name", "latency_avg", "title", "RT latency avg", "unit", "us",
		"name", "latency_max", "title", "RT latency max", "unit", "us",
		"name", "switch_avg", "title", "switch avg", "unit", "us",
		"name", "switch_max", "title", "switch max", "unit", "us",
		"name", "flushes",
		"name", "i_miss", "title", "I miss", "unit", "pct",
		"name", "d_miss", "title", "D miss", "unit", "pct",
		"name", "refused", "rows", rows)))
		goto out_nomem_views;
	rows = NULL;
	if (json_array_append_new(views, json_pack(
		"{s:s, s:s, s:[{s:s}, {s:s, s:s}, {s:s, s:s}, {s:s, s:s}, {s:s, s:s}, {s:s, s:s}], "
		"s:o}", "name", "processes", "title", "SIMULATED processes and PIDs per mode",
		"columns", "name", "scenario", "name", "ran", "title", "ran (RT task too)",
		"name", "refused_fork",
		"title", "fork EAGAIN", "name", "refused_mmap", "title", "mmap ENOMEM",
		"name", "shared_pids", "title", "PID shared", "name", "relocated",
		"title", "moved to PID 0", "rows", prow)))
		goto out_nomem_views;
	prow = NULL;
	if (fcse_flush_view(res, views))
		goto out_nomem;
	if (json_array_size(paper)) {
		if (json_array_append_new(views, json_pack(
			"{s:s, s:s, s:[{s:s}, {s:s, s:s}, {s:s, s:s}], s:o}", "name", "paper",
			"title", "Average RT latency against flush: the paper (LWN, unverified) and "
			"this simulation", "columns", "name", "ratio", "name", "paper",
			"unit", "ratio", "name", "simulated", "unit", "ratio", "rows", paper)))
			goto out_nomem_views;
	} else {
		json_decref(paper);
	}
	return 0;

out_nomem:
	json_decref(rows);
	json_decref(prow);
	json_decref(paper);
	return -ENOMEM;
out_nomem_views:
	json_decref(rows);
	json_decref(prow);
	return -ENOMEM;
}

/* The grade compares the three modes of one workload: each mode missing is named. */
static int fcse_grade_lacks(const struct rt_result *res, struct rt_buf *missing)
{
	json_t *s;
	unsigned int modes = 0;
	size_t i;
	int n = 0;

	json_array_foreach(rt_result_scenarios(res), i, s) {
		int m = sim_fcse_mode_find(json_string_value(json_object_get(s, "mode")) ?: "");

		if (m >= 0)
			modes |= 1u << m;
	}
	for (int m = 0; m < SIM_FCSE_NMODES; m++) {
		if (modes & (1u << m))
			continue;
		if (rt_buf_printf(missing, ", the %s mode (--mode all)", sim_fcse_mode_names[m]))
			return -ENOMEM;
		n++;
	}
	return n;
}

/*
 * What the document of a finished lab shows: the three modes of one
 * workload, guaranteed mode never flushing, the flush mode flushing at
 * every switch, and the handout's two questions answered.
 */
static int fcse_grade(const struct lab_result *r, struct grade_report *rep)
{
	json_t *scens = rt_result_scenarios(r->res), *s;
	unsigned int modes = 0;
	bool g_ok = true, f_ok = true;
	size_t i;
	int ret;

	json_array_foreach(scens, i, s) {
		int m = sim_fcse_mode_find(json_string_value(json_object_get(s, "mode")) ?: "");

		if (m < 0)
			continue;
		modes |= 1u << m;
		if (m == SIM_FCSE_MODE_GUARANTEED && rt_json_num(s, "flushes_count") != 0)
			g_ok = false;
		if (m == SIM_FCSE_MODE_FLUSH &&
		    rt_json_num(s, "flushes_count") != rt_json_num(s, "switches_count"))
			f_ok = false;
	}
	ret = grade_report_add(rep, "three-modes", modes == 7,
			       "the document should hold the flush, guaranteed and best-effort "
			       "runs of one workload (rtlab lab run fcse --mode all)");
	if (!ret)
		ret = grade_report_add(rep, "guaranteed-never-flushes", g_ok && (modes & 2),
				       "guaranteed mode flushes no cache at a switch");
	if (!ret)
		ret = grade_report_add(rep, "flush-every-switch", f_ok && (modes & 1),
				       "without FCSE every switch between address spaces flushes");
	if (!ret)
		ret = grade_report_review(rep, "why-best-effort-flushes", rt_result_answer_text(r->res, "why-best-effort-flushes"),
					  "fcse");
	if (!ret)
		ret = grade_report_review(rep, "when-fcse-no-help", rt_result_answer_text(r->res, "when-fcse-no-help"), "fcse");
	return ret;
}

static bool fcse_scenario(size_t i, struct lab_scenario *out)
{
	static const char *const summaries[] = {
		"mixed workload, no FCSE: every switch flushes",
		"mixed workload, FCSE guaranteed: no flush, the process above 32 MB refused",
		"mixed workload, FCSE best effort: flushes around two of the processes",
		"everything fits, no FCSE",
		"everything fits, FCSE guaranteed",
		"everything fits, FCSE best effort: nothing to flush for",
		"working sets too big, no FCSE",
		"working sets too big, FCSE guaranteed: little help",
		"working sets too big, FCSE best effort: little help",
		"121 processes, no FCSE",
		"121 processes, FCSE guaranteed: 26 forks refused",
		"121 processes, FCSE best effort: PIDs shared",
	};

	/* --live: each workload in each mode on the FCSE kernel, beside the model. */
	static const char *const live[][2] = {
		{ "live-mixed-flush", "--live, mixed, on the kernel: every switch flushes" },
		{ "live-mixed-guaranteed", "--live, mixed, on the kernel: no switch flushes, "
		  "the mapping above 32 MB refused" },
		{ "live-mixed-best-effort", "--live, mixed, on the kernel: flushes around two "
		  "of the processes" },
		{ "live-small-flush", "--live, small, on the kernel: every switch flushes" },
		{ "live-small-guaranteed", "--live, small, on the kernel: no switch flushes" },
		{ "live-small-best-effort", "--live, small, on the kernel: nothing to flush for" },
		{ "live-thrash-flush", "--live, thrash, on the kernel: every switch flushes" },
		{ "live-thrash-guaranteed", "--live, thrash, on the kernel: no switch flushes" },
		{ "live-thrash-best-effort", "--live, thrash, on the kernel, best effort" },
		{ "live-many-flush", "--live, many, on the kernel: every switch flushes" },
		{ "live-many-guaranteed", "--live, many, on the kernel: the forks past 95 "
		  "address spaces refused" },
		{ "live-many-best-effort", "--live, many, on the kernel: PIDs shared" },
	};

	if (i >= sim_fcse_model.npresets) {
		i -= sim_fcse_model.npresets;
		if (i >= sizeof(live) / sizeof(live[0]))
			return false;
		out->name = live[i][0];
		out->summary = live[i][1];
		return true;
	}
	out->name = sim_fcse_model.presets[i].name;
	out->summary = summaries[i];
	return true;
}

/* ---- The descriptor --------------------------------------------------------------- */

static const char *const fcse_questions[] = {
	"why-best-effort-flushes", "when-fcse-no-help", NULL,
};

/* ---- Declared keys ---------------------------------------------------------------- */

/*
 * Its document's own keys (lab_ops.params_keys, .scenario_keys; the model's
 * counters follow). The params not required are newer than some documents
 * rtlab still reads (tests/data/results/fcse-simulation.json).
 */
static const struct rt_key fcse_params_keys[] = {
	RT_RESULT_SEED_KEY,
	RT_KEY("modes", RT_T_ARRAY, NULL, "the FCSE modes run, in order", true,
	       .items = RT_T_STRING),
	RT_KEY("traces", RT_T_ARRAY, NULL, "the address traces replayed (--trace)", false,
	       .items = RT_T_STRING),
	RT_KEY("workload", RT_T_STRING, NULL, "the workload the processes run", false),
	RT_KEY("cpu", RT_T_STRING, NULL, "the ARMv5 core modelled", true),
	RT_KEY("replacement", RT_T_STRING, NULL, "the caches' replacement policy", false),
	RT_KEY("write_allocate", RT_T_BOOL, NULL, "a write miss fills a line", false),
	RT_KEY("tlb_flush", RT_T_BOOL, NULL, "a context switch flushes the TLB", false),
	RT_KEY("icache_bytes", RT_T_INTEGER, "bytes", "instruction cache size", false),
	RT_KEY("dcache_bytes", RT_T_INTEGER, "bytes", "data cache size", false),
	RT_KEY("ways", RT_T_INTEGER, "count", "cache associativity", false),
	RT_KEY("tlb_entries", RT_T_INTEGER, "count", "TLB entries", false),
	RT_KEY("tlb_lock", RT_T_INTEGER, "count", "TLB entries locked down", false),
	RT_KEY("ticks", RT_T_INTEGER, "count", "scheduler ticks simulated", true),
	RT_KEY("tick_us", RT_T_INTEGER, "us", "the tick period", false),
	RT_KEY("rt_accesses", RT_T_INTEGER, "count", "the real-time task's accesses per release",
	       false),
	RT_KEY("cpu_mhz", RT_T_INTEGER, NULL, "the core's clock in MHz", false),
	RT_KEY("fill_ns", RT_T_INTEGER, "ns", "cost of a line fill", false),
	RT_KEY("writeback_ns", RT_T_INTEGER, "ns", "cost of a line write-back", false),
	RT_KEY("tlb_refill_ns", RT_T_INTEGER, "ns", "cost of a TLB refill", false),
	RT_KEY("switch_path_ns", RT_T_INTEGER, "ns", "the switch path's own cost", false),
	RT_KEY("nr_pids", RT_T_INTEGER, "count", "FCSE process slots", false),
	RT_KEY("live", RT_T_BOOL, NULL, "--live: the FCSE kernel ran the workload too", false),
	RT_KEY("kernel", RT_T_STRING, NULL, "--live: the image booted (fcse)", false),
	RT_KEY("switches", RT_T_INTEGER, "count", "--live: the ring's switches measured", false),
	RT_KEY("processes", RT_T_INTEGER, "count", "background processes asked (0: the "
	       "workload's)", false),
	RT_KEY_END,
};
static const struct rt_keys fcse_params_table = { .keys = fcse_params_keys };
static const struct rt_key fcse_scenario_keys[] = {
	RT_RESULT_SCENARIO_NAME_KEYS,
	RT_KEY("mode", RT_T_STRING, NULL, "the FCSE mode of this scenario", true),
	RT_KEY("workload", RT_T_STRING, NULL, "the workload", true),
	RT_KEY("interrupted", RT_T_BOOL, NULL, "the run was stopped before the scenario's end",
	       true),
	RT_KEY("switch_avg_us", RT_T_NUMBER, "us", "mean context-switch cost", true),
	RT_KEY("switch_max_us", RT_T_NUMBER, "us", "worst context-switch cost", false),
	RT_KEY("latency_avg_us", RT_T_NUMBER, "us", "the real-time task's mean latency (not "
	       "in a live scenario: its ring has no RT task)", false),
	RT_KEY("latency_max_us", RT_T_NUMBER, "us", "its worst latency", false),
	RT_KEY("latency_p99_us", RT_T_NUMBER, "us", "its 99th percentile", false),
	RT_KEY("i_miss_ratio", RT_T_NUMBER, "ratio", "instruction cache misses per access", false),
	RT_KEY("d_miss_ratio", RT_T_NUMBER, "ratio", "data cache misses per access", false),
	RT_KEY("tlb_miss_ratio", RT_T_NUMBER, "ratio", "TLB misses per lookup", false),
	FCSE_LIVE_SCENARIO_KEYS,
	RT_KEY_END,
};
static const struct rt_keys fcse_scenario_table = { .keys = fcse_scenario_keys };

const struct lab_ops lab_fcse = {
	.name = "fcse",
	.title = "ARM FCSE: VIVT caches under context switches",
	.summary = "Simulate an ARMv5 VIVT cache and compare flush-on-switch with the "
		   "guaranteed and best-effort FCSE modes.",
	.lesson = 8,
	.state = LAB_STATE_READY,
	.sim = true,
	.sim_only = true,
	.run = fcse_run,
	.views = fcse_views,
	.model = &sim_fcse_model,
	.grade = fcse_grade,
	.grade_lacks = fcse_grade_lacks,
	.scenario = fcse_scenario,
	.questions = fcse_questions,
	.options = fcse_options,
	.options_note = "A simulation: no ARMv5 core is needed or used. The seed (--seed) "
			"decides the synthetic programs' data accesses and the random "
			"replacement; the same seed and options give the same document. "
			"Scenarios are named WORKLOAD-MODE. With --live the FCSE kernel "
			"(the ARM image, make vm-arm) runs the workload's processes under "
			"qemu-system-arm too, the model beside it over the same switches: "
			"scenarios live-WORKLOAD-MODE, tier vm, times still the model's.",
	.params_size = sizeof(struct fcse_params),
	.params_init = params_default,
	.params_check = params_check,
	.free_params = params_free,
	.params_keys = &fcse_params_table,
	.scenario_keys = &fcse_scenario_table,
};
