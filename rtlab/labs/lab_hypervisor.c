/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_hypervisor: the hypervisor lab (lesson 07). Its model part runs the host
 * scheduler model of sim/sim_hypervisor.c (vCPU threads carrying a real-time guest,
 * QEMU's I/O thread, host batch tasks; lock-holder preemption, the I/O
 * inversion, paravirtual boost hints) over named scenarios: lesson 07's
 * steps (host, guest-idle, guest-load, vcpu-fifo, guest-prio-low, io-low,
 * rt-host, pv-hint), the exercise's three (lock-holder, io-inversion,
 * pv-load) and io-throttled. Each scenario's figures go in
 * extra.scenarios under its name (avg_us, p99_us, max_us of the guest RT
 * task's response, its deadline misses, the spin wasted, the longest host
 * wait against the bound, and every counter of the model), so lesson 07's
 * predict questions bind; the document's tier is "simulation".
 *
 * The live part (--live: a QEMU guest whose vCPU and I/O threads' host
 * priorities change between scenarios) is lab_hypervisor_live.c's, which boots
 * the guest through the QEMU room; its scenarios are hypervisor_live_scenarios[]
 * below, its document's tier "host" (or "vm"), and the views and the grade
 * here read both kinds of document.
 */
#include "lab.h"

#include <errno.h>
#include <jansson.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_err.h"
#include "core/rt_hist.h"
#include "core/rt_json.h"
#include "core/rt_log.h"
#include "core/rt_parse.h"
#include "core/rt_result.h"
#include "core/rt_sink.h"
#include "core/rt_keys.h"
#include "lab_hypervisor.h"
#include "lab_hypervisor_live.h"
#include "lab_hypervisor_stream.h"
#include "sim/sim.h"

#define CHUNK_STEPS 100000u	/* 100 simulated ms between looks at the stop flag */
#define MS_NS 1000000ull

static const char *const policy_words[] = { "reference", "none", NULL };
static const char *const kernel_words[] = { "rt", "lab", "stock", NULL };
static const char *const accel_words[] = { "auto", "kvm", "tcg", NULL };

/* ---- The live part's scenarios ----------------------------------------------------- */

#define GUEST_RT .guest_policy = SCHED_FIFO, .guest_prio = 80
#define DISK HV_LOAD_DISK
#define BATCH HV_LOAD_BATCH

const struct hypervisor_live_scenario hypervisor_live_scenarios[] = {
	{ "host", "the probe at SCHED_FIFO 80 on the host itself, host load beside it",
	  .on_host = true, .host_load = true },
	{ "guest-idle", "the probe (FIFO 80) in the guest writing to its disk; vCPU and QEMU "
	  "threads SCHED_OTHER; host idle", GUEST_RT, .guest_load = DISK },
	{ "guest-load", "guest-idle with the host loaded (a busy loop on every CPU)",
	  .host_load = true, GUEST_RT, .guest_load = DISK },
	{ "vcpu-fifo", "guest-load with the vCPU at SCHED_FIFO, pinned to the last CPU with "
	  "QEMU's main loop and I/O thread (SCHED_OTHER)", .host_load = true,
	  .vcpu_policy = SCHED_FIFO, .pin = true, GUEST_RT, .guest_load = DISK },
	{ "io-low", "vcpu-fifo with QEMU's main loop and I/O thread at SCHED_FIFO 5: below "
	  "the vCPU, above the host load", .host_load = true, .vcpu_policy = SCHED_FIFO,
	  .pin = true, .io_policy = SCHED_FIFO, .io_prio = 5, GUEST_RT, .guest_load = DISK },
	{ "rt-host", "io-low on a PREEMPT_RT host kernel", .host_load = true,
	  .vcpu_policy = SCHED_FIFO, .pin = true, .io_policy = SCHED_FIFO, .io_prio = 5,
	  GUEST_RT, .guest_load = DISK, .needs_preempt_rt = true },
	{ "guest-prio-low", "the guest busy (a batch loop) and the probe at SCHED_OTHER "
	  "inside it; host idle, vCPU SCHED_OTHER", .guest_policy = SCHED_OTHER,
	  .guest_load = BATCH },
	{ "guest-prio-high", "guest-prio-low with the probe at SCHED_FIFO 80 inside the "
	  "guest: the guest-side priority step", GUEST_RT, .guest_load = BATCH },
	{ "fifo-stall", "the hazard: vcpu-fifo with the guest busy and writing to its disk; "
	  "the FIFO vCPU starves QEMU's own threads until the watchdog steps in",
	  .host_load = true, .vcpu_policy = SCHED_FIFO, .pin = true, GUEST_RT,
	  .guest_load = BATCH | DISK, .watchdog = true },
	{ "io-high", "fifo-stall with QEMU's main loop and I/O thread at SCHED_FIFO one above "
	  "the vCPU: the threads that serve the guest never wait for it", .host_load = true,
	  .vcpu_policy = SCHED_FIFO, .pin = true, .io_policy = SCHED_FIFO, .io_above = true,
	  GUEST_RT, .guest_load = BATCH | DISK, .watchdog = true },
	{ "pv-hint", "the paravirtual boost hint: the model's only",
	  .model_only = "the paravirtual hint needs a guest and a host that speak it, which "
	  "neither kernel here does: run it in the model (rtlab lab run hypervisor --model "
	  "--scenario pv-hint)" },
};
const unsigned int hypervisor_live_nscenarios =
	sizeof(hypervisor_live_scenarios) / sizeof(hypervisor_live_scenarios[0]);

/* ---- Options -------------------------------------------------------------------- */

void hypervisor_params_init(struct hypervisor_params *p)
{
	memset(p, 0, sizeof(*p));
	p->vcpu_prio = 10;
}

static void params_default(void *params)
{
	hypervisor_params_init(params);
}

static int find_scenario(const char *name)
{
	for (unsigned int i = 0; i < sim_hypervisor_model.npresets; i++)
		if (!strcmp(sim_hypervisor_model.presets[i].name, name))
			return (int)i;
	return -1;
}

static int find_live(const char *name)
{
	for (unsigned int i = 0; i < hypervisor_live_nscenarios; i++)
		if (!strcmp(hypervisor_live_scenarios[i].name, name))
			return (int)i;
	return -1;
}

static int set_halt_poll(void *params, const char *value, char **cause)
{
	struct hypervisor_params *p = params;

	p->halt_poll_set = true;
	return rt_parse_uint("--halt-poll-ns", value, 0, 10000000, &p->halt_poll_ns, cause);
}

static int set_fair_share(void *params, const char *value, char **cause)
{
	struct hypervisor_params *p = params;

	p->fair_share_set = true;
	/* At most 950: FIFO threads keep 50 ms a second (rtlab's own probe among them). */
	return rt_parse_uint("--fair-share-ms", value, 0, 950, &p->fair_share_ms, cause);
}

/* The names are kept as given: which part's table they index is known only at the end. */
static int set_scenarios(void *params, const char *value, char **cause)
{
	struct hypervisor_params *p = params;
	char buf[256], *save = NULL, *w;

	if (strlen(value) >= sizeof(buf) || !*value)
		return rt_err(cause, -EINVAL, "--scenario: expected NAME[,NAME]");
	strcpy(buf, value);
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (find_scenario(w) < 0 && find_live(w) < 0)
			return rt_err(cause, -EINVAL, "--scenario: no scenario called \"%.40s\" "
				      "(see `rtlab lab run hypervisor --help`)", w);
		for (unsigned int k = 0; k < p->nnames; k++)
			if (!strcmp(p->names[k], w))
				return rt_err(cause, -EINVAL, "--scenario: \"%s\" named twice", w);
		if (p->nnames >= HV_MAX_SCENARIOS)
			return rt_err(cause, -EINVAL, "at most %u scenarios per run",
				      HV_MAX_SCENARIOS);
		snprintf(p->names[p->nnames++], HV_NAME_MAX + 1, "%s", w);
	}
	return 0;
}

static int params_check(void *params, char **cause)
{
	struct hypervisor_params *p = params;

	if (p->live && p->model)
		return rt_err(cause, -EINVAL, "--live and --model: choose one");
	if (!p->live && p->halt_poll_set)
		return rt_err(cause, -EINVAL, "--halt-poll-ns is a knob of the live part (--live)");
	if (!p->live && p->fair_share_set)
		return rt_err(cause, -EINVAL, "--fair-share-ms is a knob of the live part (--live)");
	p->nscen = 0;
	for (unsigned int k = 0; k < p->nnames; k++) {
		int i = p->live ? find_live(p->names[k]) : find_scenario(p->names[k]);

		if (i < 0)
			return rt_err(cause, -EINVAL, "--scenario %s: %s", p->names[k], p->live ?
				      "a scenario of the model only (the live part's: host, "
				      "guest-idle, guest-load, vcpu-fifo, io-low, rt-host, "
				      "guest-prio-low, guest-prio-high, fifo-stall, io-high, pv-hint)" :
				      "a scenario of the live part only (--live)");
		p->scen[p->nscen++] = (unsigned int)i;
	}
	if (!p->duration_ms)
		p->duration_ms = p->live ? 5000 : 2000;
	if (p->live && p->duration_ms % 1000)
		return rt_err(cause, -EINVAL, "--duration with --live: whole seconds (the guest's "
			      "probe reports per second)");
	return 0;
}

#define P(f) LAB_OPT_AT(struct hypervisor_params, f)
static const struct lab_option hv_options[] = {
	{ .name = "model", .kind = LAB_OPT_FLAG, P(model),
	  .help = "Run the model of the host scheduler (the default; a simulation, the same "
		  "on every machine for one seed)." },
	{ .name = "live", .kind = LAB_OPT_FLAG, P(live),
	  .help = "Boot the classroom VM as the guest in QEMU and measure its latency while "
		  "rtlab changes the host priorities of QEMU's vCPU, main loop and I/O "
		  "threads (root; the VM's images: rtlab vm build)." },
	{ .name = "scenario", .kind = LAB_OPT_STRING, .metavar = "S[,S]", .set = set_scenarios,
	  .help = "Run these scenarios, in this order; repeatable. Lesson 07's steps: host, "
		  "guest-idle, guest-load, vcpu-fifo, guest-prio-low, io-low, rt-host, "
		  "pv-hint; the model's exercise: lock-holder, io-inversion, pv-load; and "
		  "io-throttled; the live part's own: guest-prio-high, fifo-stall and io-high.",
	  .defval = "all" },
	{ .name = "duration", .kind = LAB_OPT_DURATION, .metavar = "D", P(duration_ms),
	  .min = 10 * MS_NS, .max = 600000 * MS_NS, .unit_ns = MS_NS,
	  .help = "Time per scenario: simulated in the model (2s, 500ms, 1m; at most 10m), "
		  "measured in whole seconds with --live.", .defval = "2s, live 5s" },
	{ .name = "kernel", .kind = LAB_OPT_ENUM, .values = kernel_words, P(kernel),
	  .help = "--live: the guest's kernel, the classroom VM's rt (Debian PREEMPT_RT), "
		  "lab (6.12 PREEMPT_RT) or stock.", .defval = "rt" },
	{ .name = "accel", .kind = LAB_OPT_ENUM, .values = accel_words, P(accel),
	  .help = "--live: KVM where a Linux guest boots under it (auto), or kvm, or tcg "
		  "(emulated CPU: compare scenarios with each other, not with bare metal).",
	  .defval = "auto" },
	{ .name = "vcpu-prio", .kind = LAB_OPT_UINT, P(vcpu_prio), .min = 6, .max = 97,
	  .help = "--live: the SCHED_FIFO priority of the vCPU thread in the scenarios that "
		  "raise it (QEMU's threads go at 5 in io-low, one above it in io-high; "
		  "rtlab's own watchdog runs at 99).",
	  .defval = "10" },
	{ .name = "fair-share-ms", .kind = LAB_OPT_STRING, .metavar = "MS", .set = set_fair_share,
	  .help = "--live: RT throttling for the run, through the undo journal: the "
		  "milliseconds of every second that fair threads (QEMU's main loop among "
		  "them) keep beside FIFO ones. On 6.12 and later each CPU's fair server "
		  "runtime (debugfs sched/fair_server), before that sched_rt_runtime_us "
		  "(1000 - MS) ms; 0 turns throttling off (only the watchdog is left); at most "
		  "950." },
	{ .name = "halt-poll-ns", .kind = LAB_OPT_STRING, .metavar = "NS", .set = set_halt_poll,
	  .help = "--live under KVM: set KVM's halt_poll_ns (how long a halted vCPU polls "
		  "before it sleeps) for the run, through the undo journal." },
	{ .name = "policy", .kind = LAB_OPT_ENUM, .values = policy_words, P(policy),
	  .help = "The host's boost policy in the scenarios with paravirtual hints (pv-hint "
		  "and the exercise's): reference (labs/hypervisor/reference) or none (the "
		  "hints are ignored: what the exercise starts from).",
	  .defval = "reference" },
	{ .name = NULL },
};
#undef P

/* ---- The run ----------------------------------------------------------------------- */

struct hv_poll {
	struct lab_ctx *ctx;
	const struct rt_sink *sink;
	const char *name;
	uint64_t horizon_us;
	unsigned int done, total;	/* scenarios, for the progress */
	unsigned int last_pct;		/* progress is said every 5 % of the run, +1 */
	bool stopped;
};

static void live_publish(struct hypervisor_live *live, const uint64_t *v)
{
	__atomic_store_n(&live->time_us, v[SIM_HV_C_TIME], __ATOMIC_RELAXED);
	__atomic_store_n(&live->jobs, v[SIM_HV_C_JOBS], __ATOMIC_RELAXED);
	__atomic_store_n(&live->misses, v[SIM_HV_C_MISSES], __ATOMIC_RELAXED);
	__atomic_store_n(&live->resp_max_us, v[SIM_HV_C_RESP_MAX], __ATOMIC_RELAXED);
	__atomic_store_n(&live->host_wait_max_us, v[SIM_HV_C_HOST_WAIT_MAX], __ATOMIC_RELAXED);
	__atomic_store_n(&live->starved, v[SIM_HV_C_STARVED], __ATOMIC_RELAXED);
	__atomic_store_n(&live->boosted_us, v[SIM_HV_C_BOOSTED], __ATOMIC_RELAXED);
}

static int hv_poll(void *priv, struct sim *s)
{
	struct hv_poll *p = priv;
	uint64_t t = sim_counters(s)->v[SIM_HV_C_TIME];

	if (p->ctx->live)
		live_publish(p->ctx->live, sim_counters(s)->v);
	unsigned int pct = (unsigned int)((p->done * 100ull + t * 100 / p->horizon_us) /
					  p->total);
	char what[96];

	if (!p->last_pct || pct >= p->last_pct + 4 || (sim_done(s) && pct + 1 != p->last_pct)) {
		p->last_pct = pct + 1;
		snprintf(what, sizeof(what), "%s: %.1f of %.1f simulated s", p->name,
			 (double)t / 1e6, (double)p->horizon_us / 1e6);
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

/* One scenario: run it, its figures into a new scenario object, its histogram into @res. */
static int run_scenario(struct lab_ctx *ctx, const struct rt_sink *sink, struct hv_poll *poll,
			unsigned int idx, const struct hypervisor_params *p, struct rt_result *res,
			json_t *scens, char **cause)
{
	const struct sim_preset *pr = &sim_hypervisor_model.presets[idx];
	struct sim_hypervisor_scenario sc = *(const struct sim_hypervisor_scenario *)pr->scenario;
	struct rt_hist_pct pct;
	const uint64_t *v;
	struct sim *s = NULL;
	struct rt_hist *h = NULL;
	char hname[64];
	double p99 = 0;
	json_t *o;
	int ret;

	sc.hv.duration_us = (uint64_t)p->duration_ms * 1000;
	if (p->policy == HV_POLICY_NONE)
		sc.policy = NULL;
	poll->name = pr->name;
	poll->sink = sink;
	poll->horizon_us = sc.hv.duration_us;
	if (ctx->live) {
		struct hypervisor_live *live = ctx->live;
		const uint64_t zero[SIM_HV_NCOUNTERS] = { 0 };

		live_publish(live, zero);
		snprintf(live->scenario, sizeof(live->scenario), "%s", pr->name);
		live->index = poll->done + 1;
		live->total = poll->total;
		live->bound_us = sc.hv.bound_us;
	}
	ret = sim_new(&sim_hypervisor_model, &sc, ctx->seed, &s, cause);
	if (ret)
		return ret;
	ret = sim_run_chunked(s, SIM_STEPS_ALL, CHUNK_STEPS, NULL, hv_poll, poll);
	if (ret && !poll->stopped)
		goto out;
	ret = 0;
	v = sim_counters(s)->v;
	if (rt_hist_percentile(sim_hist(s, SIM_HV_HIST_RESPONSE), 990000, &pct) == 0)
		p99 = pct.value_us;
	/* The bucket's upper edge can pass the maximum by its last microsecond: no sample does. */
	if (p99 > (double)v[SIM_HV_C_RESP_MAX])
		p99 = (double)v[SIM_HV_C_RESP_MAX];
	o = json_pack("{s:s, s:s, s:s, s:s, s:b, s:b, s:f, s:f, s:I, s:I, s:b}",
		      "name", pr->name, "summary", pr->summary, "kind", "model",
		      "policy", !sc.hv.pv ? "no hints" : sc.policy ? "reference" : "none",
		      "pv", sc.hv.pv, "interrupted", !sim_done(s),
		      "avg_us", ratio(v[SIM_HV_C_RESP_SUM], v[SIM_HV_C_JOBS]), "p99_us", p99,
		      "max_us", (json_int_t)v[SIM_HV_C_RESP_MAX],
		      "bound_us", (json_int_t)sc.hv.bound_us,
		      "within_bound", v[SIM_HV_C_STARVED] == 0);
	if (!o || sim_counters_to_json(sim_counters(s), o) || json_array_append_new(scens, o)) {
		ret = -ENOMEM;
		goto out;
	}
	snprintf(hname, sizeof(hname), "%s.response", pr->name);
	h = rt_hist_new(SIM_HV_HIST_US, 0);
	ret = h ? rt_hist_merge(h, sim_hist(s, SIM_HV_HIST_RESPONSE)) : -ENOMEM;
	ret = ret ?: rt_result_add_rt_hist(res, hname, h);
out:
	rt_hist_free(h);
	sim_free(s);
	return ret;
}

/* The summary: each scenario's max, misses and longest host wait under its name. */
static int set_summary(struct rt_result *res, json_t *scens)
{
	json_t *o;
	size_t i;
	int ret = 0;

	json_array_foreach(scens, i, o) {
		char key[96], base[48];
		const char *name = json_string_value(json_object_get(o, "name"));

		snprintf(base, sizeof(base), "%s", name);
		for (char *c = base; *c; c++)
			if (*c == '-')
				*c = '_';
		snprintf(key, sizeof(key), "%s_max_us", base);
		ret = ret ?: rt_result_set_summary(res, key,
				json_number_value(json_object_get(o, "max_us")));
		snprintf(key, sizeof(key), "%s_misses_count", base);
		ret = ret ?: rt_result_set_summary(res, key,
				json_number_value(json_object_get(o, "misses_count")));
		snprintf(key, sizeof(key), "%s_host_wait_max_us", base);
		ret = ret ?: rt_result_set_summary(res, key,
				json_number_value(json_object_get(o, "host_wait_max_us")));
	}
	return ret;
}

static int record_params(struct rt_result *res, const struct hypervisor_params *p)
{
	const struct hv_scenario base = { HV_SCENARIO_BASE };

	return rt_result_set_param_str(res, "mode", "model") ?:
	       rt_result_set_param_num(res, "duration_ms", p->duration_ms) ?:
	       rt_result_set_param_str(res, "policy", policy_words[p->policy]) ?:
	       rt_result_set_param_num(res, "bound_us", base.bound_us) ?:
	       rt_result_set_param_num(res, "budget_us", base.budget_us) ?:
	       rt_result_set_param_num(res, "window_us", base.window_us) ?:
	       rt_result_set_param_num(res, "rt_period_us", base.rt_period_us) ?:
	       rt_result_set_param_num(res, "rt_work_us", base.rt_work_us) ?:
	       rt_result_set_param_num(res, "rt_deadline_us", base.rt_deadline_us) ?:
	       rt_result_set_param_num(res, "fair_slice_us", base.fair_slice_us) ?:
	       rt_result_set_param_num(res, "np_max_us", base.np_max_us);
}

static int hv_run(struct lab_ctx *ctx, const struct rt_sink *sink, struct lab_result *out)
{
	struct hypervisor_params defaults;
	const struct hypervisor_params *p = ctx->params;
	struct hv_poll poll = { .ctx = ctx };
	struct rt_result *res = NULL;
	json_t *scens = json_array();
	char *cause = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!p) {
		hypervisor_params_init(&defaults);
		params_check(&defaults, NULL);	/* the defaults always pass: it settles them */
		p = &defaults;
	}
	if (p->live) {
		bool interrupted = false;

		ret = lab_hypervisor_live_run(ctx, sink, p, &out->res, &interrupted, &cause);
		out->interrupted = interrupted;
		goto out;
	}
	res = rt_result_new("hypervisor", "simulation", ctx->env);
	if (!scens || !res) {
		ret = -ENOMEM;
		goto out;
	}
	poll.total = p->nscen ? p->nscen : sim_hypervisor_model.npresets;
	ret = lab_seed_record(res, ctx->seed) ?: record_params(res, p);
	for (poll.done = 0; !ret && poll.done < poll.total && !poll.stopped; poll.done++) {
		unsigned int idx = p->nscen ? p->scen[poll.done] : poll.done;

		ret = run_scenario(ctx, sink, &poll, idx, p, res, scens, &cause);
	}
	out->interrupted = poll.stopped;
	ret = ret ?: set_summary(res, scens) ?:
	      rt_result_add_note(res, "SIMULATED: a model of a host scheduler carrying a "
				 "real-time guest (sim/sim_hv_model.h), not a measurement of "
				 "this machine; one simulated microsecond a step, the same "
				 "document for the same seed everywhere") ?:
	      rt_result_add_note(res, "host starvation bound: no host task may wait for its "
				 "CPU longer than bound_us (50 ms: the lab's choice; the fair "
				 "server guarantees running time, it does not cap a wait); "
				 "within_bound says whether a scenario kept it") ?:
	      rt_result_add_note(res, "Kiszka's own figures (doc/references.md 3) were not "
				 "found: compare these scenarios with each other, not with his "
				 "paper") ?:
	      rt_result_add_note(res, "the same steps measured on this machine, a QEMU guest "
				 "whose host threads rtlab reprioritises: rtlab lab run "
				 "hypervisor --live");
out:
	return lab_result_finish(out, res, scens, ret, cause, "hypervisor",
				 "interrupted: the last scenario holds the time simulated "
				 "until then");
}

/* ---- Views, grade, scenarios --------------------------------------------------------- */

static bool is_live_doc(const struct rt_result *res)
{
	const char *mode = NULL;

	return rt_result_param_str(res, "mode", &mode) == 0 && mode && !strcmp(mode, "live");
}

/*
 * The live document's two tables: the figures per scenario (a scenario
 * that could not run here says why in place of them), and the knobs each
 * one set, as read back from /proc.
 */
static int hypervisor_live_views(const struct rt_result *res, json_t *views)
{
	json_t *rows = json_array(), *knobs = json_array(), *s;
	const char *accel = NULL;
	char title[200];
	size_t i;

	if (!rows || !knobs)
		goto out_nomem;
	json_array_foreach(rt_result_scenarios(res), i, s) {
		const char *name = rt_json_text(s, "name");
		json_t *row;

		if (!json_is_true(json_object_get(s, "available")))
			row = json_pack("[s, s, s, s, s, s]", name, "-", "-", "-", "-",
					"not here (notes)");
		else
			row = json_pack("[s, f, f, f, f, s]", name, rt_json_num(s, "samples_count"),
					rt_json_num(s, "avg_us"), rt_json_num(s, "p99_us"), rt_json_num(s, "max_us"),
					json_is_true(json_object_get(s, "watchdog_fired")) ? "watchdog" :
					json_is_true(json_object_get(s, "verified")) ? "verified" :
					"NOT as asked");
		if (json_array_append_new(rows, row))
			goto out_nomem;
		if (json_is_true(json_object_get(s, "available"))) {
			json_t *pin = json_object_get(s, "pinned_cpu");
			char v[48], q[48];

			snprintf(v, sizeof(v), "%s", rt_json_text(s, "vcpu"));
			snprintf(q, sizeof(q), "%s", rt_json_text(s, "qemu_threads"));
			if (json_is_integer(pin)) {
				snprintf(v + strlen(v), sizeof(v) - strlen(v), " cpu%d",
					 (int)json_integer_value(pin));
				snprintf(q + strlen(q), sizeof(q) - strlen(q), " cpu%d",
					 (int)json_integer_value(pin));
			}
			if (json_array_append_new(knobs, json_pack("[s, s, s, s, s, s]", name,
					json_is_true(json_object_get(s, "host_load")) ? "cpu" : "-",
					v, q, rt_json_text(s, "guest_probe"), rt_json_text(s, "guest_load"))))
				goto out_nomem;
		}
	}
	rt_result_param_str(res, "accel", &accel);
	snprintf(title, sizeof(title), "Guest latency, measured (%s)",
		 !accel ? "no guest in this run" : !strcmp(accel, "tcg") ? "TCG: emulated CPU, "
		 "compare scenarios, not bare metal" : "KVM");
	if (json_array_append_new(views, json_pack(
		"{s:s, s:s, s:[{s:s}, {s:s}, {s:s, s:s, s:s}, {s:s, s:s, s:s}, {s:s, s:s, s:s}, "
		"{s:s}], s:o}", "name", "live", "title", title,
		"columns", "name", "scenario", "name", "samples",
		"name", "avg", "title", "avg", "unit", "us",
		"name", "p99", "title", "p99", "unit", "us",
		"name", "max", "title", "max", "unit", "us",
		"name", "note", "rows", rows)))
		goto out_nomem_knobs;
	if (json_array_append_new(views, json_pack(
		"{s:s, s:s, s:[{s:s}, {s:s, s:s}, {s:s, s:s}, {s:s, s:s}, {s:s, s:s}, {s:s, s:s}], s:o}",
		"name", "knobs", "title", "What each scenario set: host load, QEMU's threads "
		"(read back from /proc), the guest", "columns", "name", "scenario",
		"name", "load", "title", "load", "name", "vcpu", "title", "vCPU",
		"name", "qemu", "title", "QEMU io", "name", "probe", "title", "probe",
		"name", "guest", "title", "guest",
		"rows", knobs)))
		return -ENOMEM;
	return 0;

out_nomem:
	json_decref(rows);
out_nomem_knobs:
	json_decref(knobs);
	return -ENOMEM;
}

static int hv_views(const struct rt_result *res, json_t *views, char **cause)
{
	json_t *rows, *lock, *s;

	if (is_live_doc(res))
		return hypervisor_live_views(res, views);
	rows = json_array();
	lock = json_array();
	size_t i;

	(void)cause;
	if (!rows || !lock)
		goto out_nomem;
	json_array_foreach(rt_result_scenarios(res), i, s) {
		const char *name = json_string_value(json_object_get(s, "name")) ?: "";
		bool none = rt_json_num(s, "jobs_count") == 0;	/* every job dropped: no response */

		if (json_array_append_new(rows, json_pack("[s, f, o, o, o, f, f, f, s]", name,
				rt_json_num(s, "jobs_count"),
				none ? json_null() : json_real(rt_json_num(s, "avg_us")),
				none ? json_null() : json_real(rt_json_num(s, "p99_us")),
				none ? json_null() : json_real(rt_json_num(s, "max_us")),
				rt_json_num(s, "misses_count"), rt_json_num(s, "overruns_count"),
				rt_json_num(s, "host_wait_max_us") / 1000.0,
				json_is_true(json_object_get(s, "within_bound")) ? "yes" : "NO")) ||
		    json_array_append_new(lock, json_pack("[s, f, f, f, f, f, f]", name,
				rt_json_num(s, "spin_wasted_us"), rt_json_num(s, "lock_holder_preempted_count"),
				rt_json_num(s, "lock_waiter_preempted_count"),
				rt_json_num(s, "io_wait_max_us"), rt_json_num(s, "boosted_us") / 1000.0,
				rt_json_num(s, "throttled_us") / 1000.0)))
			goto out_nomem;
	}
	if (json_array_append_new(views, json_pack(
		"{s:s, s:s, s:[{s:s}, {s:s, s:s}, {s:s, s:s, s:s}, {s:s, s:s, s:s}, "
		"{s:s, s:s, s:s}, {s:s, s:s}, {s:s, s:s}, {s:s, s:s, s:s}, {s:s, s:s}], s:o}",
		"name", "scenarios", "title", "SIMULATED guest RT task (200 us every 1 ms, 1 ms "
		"deadline) and host starvation per scenario (a model, not this machine)",
		"columns", "name", "scenario", "name", "finished", "title", "jobs done",
		"name", "avg", "title", "response avg", "unit", "us",
		"name", "p99", "title", "p99", "unit", "us",
		"name", "max", "title", "max", "unit", "us",
		"name", "misses", "title", "missed",
		"name", "overruns", "title", "dropped",
		"name", "host_wait", "title", "host wait max", "unit", "ms",
		"name", "bound", "title", "within 50 ms", "rows", rows)))
		goto out_nomem_lock;
	if (json_array_append_new(views, json_pack(
		"{s:s, s:s, s:[{s:s}, {s:s, s:s, s:s}, {s:s, s:s}, {s:s, s:s}, {s:s, s:s, s:s}, "
		"{s:s, s:s, s:s}, {s:s, s:s, s:s}], s:o}",
		"name", "mechanisms", "title", "SIMULATED spinlock, I/O and boost figures per "
		"scenario", "columns", "name", "scenario",
		"name", "spin", "title", "spin wasted", "unit", "us",
		"name", "lhp", "title", "holder preempted",
		"name", "lwp", "title", "waiter preempted",
		"name", "io_wait", "title", "I/O wait max", "unit", "us",
		"name", "boosted", "title", "boosted", "unit", "ms",
		"name", "throttled", "title", "throttled", "unit", "ms", "rows", lock)))
		goto out_nomem;
	return 0;

out_nomem:
	json_decref(rows);
	json_decref(lock);
	return -ENOMEM;
out_nomem_lock:
	json_decref(lock);
	return -ENOMEM;
}

/*
 * What a finished document shows: lesson 07's steps were run, and the
 * exercise's three scenarios met every deadline within the host bound
 * (with the reference policy, or a learner's through the exercise), and
 * the handout's questions are answered.
 */
/*
 * A live document: lesson 07's steps measured (each with samples and its
 * knobs read back as asked), the hazard seen, and the handout's questions.
 */
static const char *const hypervisor_live_steps[] = {
	"guest-idle", "guest-load", "vcpu-fifo", "io-low", NULL,
};
static const char *const hv_model_steps[] = {
	"guest-idle", "guest-load", "vcpu-fifo", "io-low", "pv-hint", NULL,
};

static int hypervisor_live_grade(const struct lab_result *r, struct grade_report *rep)
{
	const char *const *steps = hypervisor_live_steps;
	static const char *const questions[] = { "why-vcpu-fifo-trap", "why-fifo-stall", NULL };
	int ret = 0;

	for (int i = 0; !ret && steps[i]; i++) {
		json_t *s = rt_result_scenario(r->res, steps[i]);
		char check[64];

		snprintf(check, sizeof(check), "live-%s", steps[i]);
		ret = grade_report_add(rep, check, s && rt_json_num(s, "samples_count") > 0 &&
				       json_is_true(json_object_get(s, "verified")),
				       "%s measured in the guest, with the host threads' policies "
				       "read back as the scenario asked (rtlab lab run hypervisor "
				       "--live)", steps[i]);
	}
	if (!ret) {
		json_t *s = rt_result_scenario(r->res, "fifo-stall");

		ret = grade_report_add(rep, "live-fifo-stall", s && rt_json_num(s, "samples_count") > 0,
				       "fifo-stall measured: the hazard of a FIFO vCPU that "
				       "QEMU's own threads must serve");
	}
	for (int i = 0; !ret && questions[i]; i++)
		ret = grade_report_review(rep, questions[i], rt_result_answer_text(r->res, questions[i]), "hypervisor");
	return ret;
}

/* A live document needs its steps and the hazard; a model's, its steps and the exercise's. */
static int hv_grade_lacks(const struct rt_result *res, struct rt_buf *missing)
{
	static const char *const live_more[] = { "fifo-stall", NULL };
	int a, b;

	if (is_live_doc(res)) {
		a = lab_lacks_scenarios(res, hypervisor_live_steps, missing);
		b = lab_lacks_scenarios(res, live_more, missing);
	} else {
		a = lab_lacks_scenarios(res, hv_model_steps, missing);
		b = lab_lacks_scenarios(res, sim_hypervisor_exercise_scenarios, missing);
	}
	return a < 0 || b < 0 ? -ENOMEM : a + b;
}

static int hv_grade(const struct lab_result *r, struct grade_report *rep)
{
	const char *const *steps = hv_model_steps;
	bool have = true;
	int ret = 0;

	if (is_live_doc(r->res))
		return hypervisor_live_grade(r, rep);
	for (int i = 0; steps[i]; i++)
		have = have && rt_result_scenario(r->res, steps[i]);
	ret = grade_report_add(rep, "lesson-steps", have,
			       "the document should hold lesson 07's steps guest-idle, "
			       "guest-load, vcpu-fifo, io-low and pv-hint (rtlab lab run "
			       "hypervisor)");
	for (int i = 0; !ret && sim_hypervisor_exercise_scenarios[i]; i++) {
		const char *name = sim_hypervisor_exercise_scenarios[i];
		json_t *s = rt_result_scenario(r->res, name);
		char check[64];

		snprintf(check, sizeof(check), "%s-met", name);
		/* A dropped period (the last job still running) is a miss too. */
		ret = grade_report_add(rep, check, s && rt_json_num(s, "misses_count") == 0 &&
				       rt_json_num(s, "overruns_count") == 0 &&
				       json_is_true(json_object_get(s, "within_bound")) &&
				       rt_json_num(s, "jobs_count") > 0, "%s: every RT job within its "
				       "deadline, none dropped, and no host task waiting past "
				       "the bound", name);
	}
	if (!ret)
		ret = grade_report_review(rep, "why-vcpu-fifo-trap", rt_result_answer_text(r->res, "why-vcpu-fifo-trap"),
					  "hypervisor");
	if (!ret)
		ret = grade_report_review(rep, "what-budget-bounds", rt_result_answer_text(r->res, "what-budget-bounds"),
					  "hypervisor");
	return ret;
}

/* The model's scenarios, then the live part's that the model has not (guest-prio-high, ...). */
static bool hv_scenario(size_t i, struct lab_scenario *out)
{
	if (i < sim_hypervisor_model.npresets) {
		out->name = sim_hypervisor_model.presets[i].name;
		out->summary = sim_hypervisor_model.presets[i].summary;
		return true;
	}
	i -= sim_hypervisor_model.npresets;
	for (unsigned int k = 0; k < hypervisor_live_nscenarios; k++) {
		if (find_scenario(hypervisor_live_scenarios[k].name) >= 0)
			continue;
		if (i-- == 0) {
			out->name = hypervisor_live_scenarios[k].name;
			out->summary = hypervisor_live_scenarios[k].summary;
			return true;
		}
	}
	return false;
}

/* ---- The descriptor --------------------------------------------------------------- */

static const char *const hv_questions[] = {
	"why-vcpu-fifo-trap", "what-budget-bounds", "why-fifo-stall", NULL,
};

/* ---- Declared keys ---------------------------------------------------------------- */

/*
 * Its document's own keys (lab_ops.params_keys, .scenario_keys): what every
 * kind of run writes is declared; the live part's scenarios
 * may hold more.
 */
static const struct rt_key hypervisor_param = RT_KEY(NULL, RT_T_SCALAR | RT_T_ARRAY, NULL,
							 "a parameter of the live part", false,
							 .items = RT_T_SCALAR);
static const struct rt_key hypervisor_params_keys[] = {
	RT_RESULT_SEED_KEY,
	RT_KEY("mode", RT_T_STRING, NULL, "simulated or live", false),
	RT_KEY("policy", RT_T_STRING, NULL, "the host's scheduling policy for the vCPU", false),
	RT_KEY("duration_ms", RT_T_INTEGER, "ms", "time simulated", false),
	RT_KEY("rt_period_us", RT_T_INTEGER, "us", "the guest's real-time task's period", false),
	RT_KEY("rt_work_us", RT_T_INTEGER, "us", "its work per period", false),
	RT_KEY("rt_deadline_us", RT_T_INTEGER, "us", "its deadline", false),
	RT_KEY("budget_us", RT_T_INTEGER, "us", "the vCPU's budget", false),
	RT_KEY("window_us", RT_T_INTEGER, "us", "the budget's window", false),
	RT_KEY("fair_slice_us", RT_T_INTEGER, "us", "the fair scheduler's slice", false),
	RT_KEY("np_max_us", RT_T_INTEGER, "us", "longest non-preemptible section", false),
	RT_KEY("bound_us", RT_T_INTEGER, "us", "the latency bound claimed", false),
	RT_KEY_END,
};
static const struct rt_keys hypervisor_params_table = { .keys = hypervisor_params_keys,
							.others = &hypervisor_param };
static const struct rt_key hypervisor_any = RT_KEY(NULL, 0, NULL, "a figure of the live part",
						   false);
static const struct rt_key hypervisor_scenario_keys[] = {
	RT_RESULT_SCENARIO_NAME_KEYS,
	RT_KEY("kind", RT_T_STRING, NULL, "what the scenario shows", false),
	RT_KEY("policy", RT_T_STRING, NULL, "the host's policy in it", false),
	RT_KEY("pv", RT_T_BOOL, NULL, "paravirtual locks", false),
	RT_KEY("interrupted", RT_T_BOOL, NULL, "the run was stopped before its end", false),
	RT_KEY("samples_count", RT_T_INTEGER, "count", "the live part's probe samples", false),
	RT_KEY("avg_us", RT_T_NUMBER, "us", "mean response", false),
	RT_KEY("p99_us", RT_T_NUMBER, "us", "99th percentile response", false),
	RT_KEY("max_us", RT_T_NUMBER, "us", "worst response", false),
	RT_KEY("bound_us", RT_T_NUMBER, "us", "the bound it is held to", false),
	RT_KEY("within_bound", RT_T_BOOL, NULL, "the worst response is within the bound", false),
	RT_KEY_END,
};
static const struct rt_keys hypervisor_scenario_table = { .keys = hypervisor_scenario_keys,
							  .others = &hypervisor_any };

const struct lab_ops lab_hypervisor = {
	.name = "hypervisor",
	.title = "Linux as a real-time hypervisor",
	.summary = "A QEMU guest's latency as the host's vCPU and I/O thread priorities "
		   "change (--live), and a model of lock-holder preemption and paravirtual "
		   "boost hints.",
	.lesson = 7,
	.state = LAB_STATE_READY,
	/* The live part's needs: the doctor names them; the model runs everywhere. */
	.needs = LAB_NEED_QEMU | LAB_NEED_RT_PRIO,
	.wants = LAB_NEED_KVM,
	.sim = true,
	.run = hv_run,
	.views = hv_views,
	.model = &sim_hypervisor_model,
	.grade = hv_grade,
	.grade_lacks = hv_grade_lacks,
	.scenario = hv_scenario,
	.questions = hv_questions,
	.options = hv_options,
	.options_note = "The model part is a simulation (sim/sim_hv_model.h): the seed "
			"(--seed) decides the guest's bursts, lock gaps, I/O and the host's "
			"non-preemptible sections; the same seed and options give the same "
			"document. The live part (--live) boots the classroom VM (one vCPU) "
			"in QEMU with a QMP socket, runs the probe inside it (rtlab vm stream "
			"--serve) and, between scenarios, sets the policy, priority and CPU of "
			"QEMU's vCPU, main loop and I/O threads (found through QMP, checked in "
			"/proc) through the undo journal; a watchdog puts the vCPU back in the "
			"fair class when QEMU's main loop starves. Under TCG the CPU is emulated: compare the "
			"scenarios with each other, not with bare metal.",
	.params_size = sizeof(struct hypervisor_params),
	.params_init = params_default,
	.params_check = params_check,
	.params_keys = &hypervisor_params_table,
	.scenario_keys = &hypervisor_scenario_table,
};
