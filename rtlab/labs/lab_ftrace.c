/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_ftrace: the ftrace lab's engine glue.
 *
 * One run measures one thread's wake-ups twice at once: the latency probe
 * (rt_probe, one thread pinned to the last allowed CPU, SCHED_FIFO below
 * the injector's kthread, else SCHED_OTHER with a note) says how late
 * clock_nanosleep() returned, and the scheduler events (trace_events, in a
 * private instance filtered to that thread) say how long the thread waited
 * between sched_waking and its sched_switch. The two spans differ by the
 * timer interrupt's own delay and the return to user space, so the events'
 * figures sit at or below the probe's; the document records both
 * distributions and the comparison (extra.agreement).
 *
 * Tracer mode also selects a latency tracer (trace_ctl: an instance where
 * the kernel allows it, else the top level through the undo journal), sets
 * options/function-trace and tracing_thresh, resets tracing_max_latency,
 * traces for the run and parses the `trace` file (trace_latency) into
 * extra.tracer. A kernel without that tracer gets a refusal naming the
 * kernel option and the bundled kernel that has it.
 *
 * The hunt (--hunt) plants a cause chosen from the seed (ftrace_hunt_pick):
 * through the rtlab_inject module's debugfs files when they exist (a
 * non-RT thread pinned to the probe's CPU writes the section length a few
 * times a second), else with a trace_hog child at a FIFO priority above the
 * probe on its CPU. The truth goes to extra.hunt, which the text report
 * never prints.
 *
 * The cross-check tries trace-cmd (recording the same two events in its own
 * instance during the run; event mode only: beside a latency tracer it
 * emptied that tracer's trace) and rtla timerlat hist (briefly, after the
 * run) and records agreement or the exact reason they could not run; it
 * never fails the lab.
 *
 * Host changes: the instances are created through the undo journal and
 * removed at the end; top-level tracer knobs go through trace_ctl, which
 * journals them and puts them back. Stale rtlab instances of killed runs
 * are swept at the start.
 *
 * This file holds the lab's ops and the run itself (probe, events, tracer,
 * the measuring loop); the cross-check is in lab_ftrace_check.c, the
 * planting of the hunt's cause in lab_ftrace_hunt.c and the recording of
 * the document in lab_ftrace_record.c (their shared state: lab_ftrace_int.h).
 */
#include "lab_ftrace_int.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tracefs.h>

#include "core/rt_buf.h"
#include "core/rt_child.h"
#include "core/rt_env.h"
#include "core/rt_err.h"
#include "core/rt_hist.h"
#include "core/rt_log.h"
#include "core/rt_probe.h"
#include "core/rt_result.h"
#include "core/rt_text.h"
#include "core/rt_keys.h"
#include "labs/lab_ftrace_doc.h"
#include "trace/trace_ctl.h"
#include "trace/trace_events.h"

#define POLL_MS 100u
#define TID_WAIT_MS 1000u

/*
 * The hunt's diagnosis (graded), then the handout's written question of
 * step 2: which median grows without the busy loop, and why (kept for the
 * teacher, not graded by rtlab). It replaces "no-busy", which asked why
 * matching drops without the loop: it does not (doc/ftrace.md).
 */
const char *const ftrace_questions[] = { "cause", "function", "tracer", "idle-median", NULL };

static const struct ftrace_params *params_of(const struct lab_ctx *ctx,
					     struct ftrace_params *defaults)
{
	if (ctx->params)
		return ctx->params;
	ftrace_params_init(defaults);
	return defaults;
}

/* ---- Live model ------------------------------------------------------------------- */

int ftrace_live_init(struct ftrace_live *m)
{
	memset(m, 0, sizeof(*m));
	return pthread_mutex_init(&m->lock, NULL) ? -ENOMEM : 0;
}

void ftrace_live_fini(struct ftrace_live *m)
{
	if (!m)
		return;
	pthread_mutex_destroy(&m->lock);
	memset(m, 0, sizeof(*m));
}

void ftrace_live_snapshot(struct ftrace_live *m, struct ftrace_live_snap *out)
{
	pthread_mutex_lock(&m->lock);
	*out = m->snap;
	pthread_mutex_unlock(&m->lock);
}

/* ---- Capabilities ------------------------------------------------------------------ */

static int refuse_tracer(const struct lab_ctx *ctx, const char *tracer, char **cause)
{
	const struct trace_tracer_info *ti = trace_ctl_tracer_lookup(tracer);

	return rt_err(cause, -ENOTSUP, "tracer mode: the %s tracer is not in this kernel (%s): "
		      "it needs %s, which the bundled %s kernel has. Run tracer mode in the "
		      "classroom VM (`rtlab vm`, see kernel-patches/README.md); event mode "
		      "(--mode events) works on this kernel", tracer,
		      ctx->env && ctx->env->kernel_release ? ctx->env->kernel_release :
		      "unknown kernel", ti ? ti->config : "its tracer option",
		      ti ? trace_ctl_bundled_str(ti->bundled) : "lab");
}

/* The tracer tracer mode will run: the asked one, or the first latency tracer present. */
static int pick_tracer(const struct lab_ctx *ctx, const struct ftrace_params *p, char *out,
		       size_t size, char **cause)
{
	struct trace_tracer_info info[TRACE_CTL_NTRACERS];
	int ret = trace_ctl_probe_tracers(info, NULL, cause);

	if (ret)
		return ret;
	for (size_t i = 0; i < TRACE_CTL_NTRACERS; i++) {
		if (!ftrace_is_latency_tracer(info[i].name))
			continue;
		if (p->tracer[0] ? !strcmp(p->tracer, info[i].name) && info[i].present :
		    info[i].present) {
			snprintf(out, size, "%s", info[i].name);
			return 0;
		}
	}
	return refuse_tracer(ctx, p->tracer[0] ? p->tracer : "irqsoff", cause);
}

/*
 * tracefs is root's (mode 0700 on current kernels): without it every step of
 * a run fails with a bare "Permission denied". Say so before the run starts,
 * in the words `rtlab doctor` uses.
 */
static int tracefs_access(char **cause)
{
	const char *dir = tracefs_tracing_dir(), *what;
	char path[PATH_MAX];
	int err;

	if (!dir)
		return rt_err(cause, -ENOENT, "ftrace: tracefs is not mounted, and mounting it "
			      "needs root: run with sudo (or in the classroom VM, `rtlab vm run`)");
	snprintf(path, sizeof(path), "%s/instances", dir);
	what = dir;
	err = access(dir, R_OK | X_OK) ? errno : 0;
	if (!err) {
		what = path;
		err = access(path, W_OK | X_OK) ? errno : 0;
	}
	if (err != EACCES && err != EPERM && err != EROFS)
		return 0;	/* allowed, or not a question of rights: the run says what */
	return rt_err(cause, -EPERM, "ftrace: tracefs needs root: %s: %s. Run with sudo: tracefs "
		      "is readable and writable only by root (or use the classroom VM, `rtlab vm "
		      "run`)", what, strerror(err));
}

static int ft_check_caps(struct lab_ctx *ctx, char **cause)
{
	struct ftrace_params defaults;
	const struct ftrace_params *p = params_of(ctx, &defaults);
	char tracer[FTRACE_TRACER_MAX];
	int ret;

	ret = tracefs_access(cause);
	if (ret)
		return ret;
	if (p->mode == FTRACE_MODE_TRACER)
		return pick_tracer(ctx, p, tracer, sizeof(tracer), cause);
	return 0;
}

/* ---- The busy companion ------------------------------------------------------------- */

/*
 * A SCHED_OTHER, nice 19 busy loop pinned to the probe's CPU, so that the
 * CPU is never idle when the probe's timer fires: every wake-up preempts
 * the loop instead of waking an idle CPU, and the probe does not pay for
 * leaving the idle state (--no-busy shows that cost: the handout's step 2).
 * It makes no difference to which wake-ups the events match (measured on
 * the host and the VM's three kernels, doc/ftrace.md). The FIFO probe
 * preempts it at once; a SCHED_OTHER probe shares the CPU with it (the
 * document says which). It dies with us.
 */
static int busy_main(void *arg)
{
	cpu_set_t set;
	struct sched_param sp = { .sched_priority = 0 };

	CPU_ZERO(&set);
	CPU_SET((int)(intptr_t)arg, &set);
	sched_setaffinity(0, sizeof(set), &set);
	sched_setscheduler(0, SCHED_OTHER, &sp);
	if (nice(19) < 0)
		(void)0;	/* still busy, just less polite */
	for (;;)
		__asm__ __volatile__("" ::: "memory");
	return 0;
}

/* The companion, or NULL with errno set. */
static struct rt_child *busy_start(int cpu)
{
	struct rt_child_opts o = { .fn = busy_main, .arg = (void *)(intptr_t)cpu,
				   .flags = RT_CHILD_DIE_WITH_PARENT };

	return rt_child_start(&o, NULL);
}

static void busy_stop(struct rt_child *c)
{
	rt_child_free(c);
}

/* ---- The run -------------------------------------------------------------------------- */

static int last_cpu(void)
{
	cpu_set_t set;
	int cpu = 0;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set))
				cpu = c;
	return cpu;
}

static int start_probe(struct ft_run *r, char **cause)
{
	struct rt_probe_config cfg;
	cpu_set_t set;
	sigset_t block, old;
	char *why = NULL;
	int ret;

	rt_probe_config_init(&cfg);
	CPU_ZERO(&set);
	CPU_SET(r->cpu, &set);
	cfg.nthreads = 1;
	cfg.cpus = &set;
	cfg.policy = SCHED_FIFO;
	cfg.priority = FTRACE_PROBE_PRIO;
	cfg.interval_us = FTRACE_INTERVAL_US;
	/* Stop signals go to the non-RT side. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	ret = rt_probe_start(&cfg, &r->probe, &why);
	if (ret == -EPERM) {
		r->rt_refused = why;
		why = NULL;
		cfg.policy = SCHED_OTHER;
		cfg.priority = 0;
		ret = rt_probe_start(&cfg, &r->probe, &why);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		ret = rt_err(cause, ret, "could not start the probe: %s",
			     why ? why : strerror(-ret));
		free(why);
		return ret;
	}
	free(why);
	r->policy = cfg.policy;
	r->prio = cfg.priority;
	for (unsigned int w = 0; w < TID_WAIT_MS; w += 5) {
		struct rt_probe_thread_stats st;

		rt_probe_stats(r->probe, 0, &st);
		if (st.tid > 0) {
			r->tid = st.tid;
			return 0;
		}
		rt_time_sleep_ms(5, NULL);
	}
	return rt_err(cause, -ETIMEDOUT, "the probe thread did not start within %u ms",
		      TID_WAIT_MS);
}

static void run_cleanup(struct ft_run *r)
{
	ftrace_hunt_stop(r);
	if (r->tc.child || r->tc.inst_made || r->tc.dir[0]) {
		struct trace_wake_stats st;
		struct trace_wake_calc *c = NULL;

		ftrace_xc_tc_finish(&r->tc, r->tid, &st, &c);
		trace_wake_calc_free(c);
	}
	rt_probe_free(r->probe);
	r->probe = NULL;
	busy_stop(r->busy);
	r->busy = 0;
	trace_events_destroy(r->ev);
	r->ev = NULL;
	trace_ctl_destroy(r->ctl);
	trace_ctl_free(r->ctl);
	r->ctl = NULL;
	rt_hist_free(r->phist);
	r->phist = NULL;
	free(r->rt_refused);
	free(r->tc.reason);
	json_decref(r->extra_hunt);
	rt_result_free(r->res);
	memset(r, 0, sizeof(*r));
}

static int set_params(struct ft_run *r)
{
	const struct ftrace_params *p = r->p;
	struct rt_result *res = r->res;
	int ret;

	ret = rt_result_set_param_str(res, "mode", p->mode == FTRACE_MODE_TRACER ? "tracer" :
				      "events");
	ret = ret ? ret : rt_result_set_param_str(res, "tracer", r->tracer[0] ? r->tracer :
						  "none");
	ret = ret ? ret : rt_result_set_param_num(res, "threshold_us", p->threshold_us);
	ret = ret ? ret : rt_result_set_param_bool(res, "function_trace", p->function_trace);
	ret = ret ? ret : rt_result_set_param_bool(res, "hunt", p->hunt);
	ret = ret ? ret : lab_seed_record(res, r->seed);
	ret = ret ? ret : rt_result_set_param_num(res, "duration_s", p->duration_ms / 1000.0);
	ret = ret ? ret : rt_result_set_param_num(res, "interval_us", FTRACE_INTERVAL_US);
	ret = ret ? ret : rt_result_set_param_bool(res, "cross_check", p->cross_check);
	ret = ret ? ret : rt_result_set_param_bool(res, "busy_cpu", p->busy);
	ret = ret ? ret : rt_result_set_param_str(res, "scenario", ftrace_run_scenario(r)->name);
	return ret;
}

/* Bring ctx->live (a struct ftrace_live, if any) up to date with what @r measured so far. */
static void live_update(struct lab_ctx *ctx, const struct ft_run *r, enum ftrace_live_phase phase,
			unsigned int pct, double elapsed_s)
{
	struct ftrace_live *m = ctx->live;
	struct rt_hist_summary ps = { 0 };
	struct trace_wake_stats ws;

	if (!m)
		return;
	memset(&ws, 0, sizeof(ws));
	if (r->phist)
		rt_hist_summarize(r->phist, &ps);
	if (r->ev)
		trace_wake_calc_stats(trace_events_calc(r->ev), &ws);
	pthread_mutex_lock(&m->lock);
	m->snap.phase = phase;
	m->snap.pct = pct;
	m->snap.elapsed_s = elapsed_s;
	m->snap.total_s = r->p->duration_ms / 1000.0;
	m->snap.probe_count = ps.count;
	m->snap.probe_max_us = us((double)ps.max_ns);
	m->snap.events_matched = ws.matched;
	m->snap.events_max_us = us((double)ws.max_ns);
	m->snap.lost_events = ws.lost_events;
	m->snap.hunt = r->p->hunt;
	snprintf(m->snap.tracer, sizeof(m->snap.tracer), "%s", r->tracer);
	pthread_mutex_unlock(&m->lock);
}

/* Measure: events (and tracer) on, hunt planted, probe polled, until the end or a stop. */
static int measure(struct lab_ctx *ctx, const struct rt_sink *sink, struct ft_run *r,
		   char **cause)
{
	struct rt_hist *hists[1];
	unsigned int last_pct = 101;
	double t0;
	int ret;

	ret = trace_events_start(r->ev, cause);
	if (ret)
		return ret;
	if (r->ctl && (ret = trace_ctl_start(r->ctl, cause)))
		return ret;
	/* The probe ran while the instance was set up: drop those samples. */
	while (rt_probe_poll(r->probe, NULL, NULL) > 0)
		;
	if (r->p->hunt && (ret = ftrace_hunt_start(r, cause)))
		return ret;
	hists[0] = r->phist;
	t0 = rt_time_now_s();
	while (rt_time_now_s() - t0 < r->p->duration_ms / 1000.0) {
		unsigned int pct;
		char what[96];

		if (lab_ctx_stopped(ctx)) {
			r->interrupted = true;
			break;
		}
		rt_time_sleep_ms(POLL_MS, NULL);
		rt_probe_poll(r->probe, hists, sink);
		ret = trace_events_poll(r->ev, cause);
		if (ret < 0)
			return ret;
		pct = (unsigned int)fmin(100, (rt_time_now_s() - t0) * 100000.0 / r->p->duration_ms);
		if (pct / 20 != last_pct / 20 || last_pct == 101) {
			snprintf(what, sizeof(what), "ftrace: %s, %.1f s of %.1f s%s",
				 r->p->mode == FTRACE_MODE_TRACER ? r->tracer : "events",
				 rt_time_now_s() - t0, r->p->duration_ms / 1000.0,
				 r->p->hunt ? ", a cause is planted" : "");
			rt_sink_progress(sink, pct, what);
			last_pct = pct;
		}
		live_update(ctx, r, FTRACE_LIVE_MEASURING, pct, rt_time_now_s() - t0);
	}
	/* With the module, its thread plants a last section and stops the tracer itself. */
	ftrace_hunt_stop(r);
	if (r->ctl)
		trace_ctl_stop(r->ctl, NULL);
	ret = trace_events_stop(r->ev, cause);
	rt_probe_stop(r->probe);
	busy_stop(r->busy);
	r->busy = 0;
	r->measured_s = rt_time_now_s() - t0;
	while (rt_probe_poll(r->probe, hists, sink) > 0)
		;
	if (!ret)
		ret = trace_events_poll(r->ev, cause) < 0 ? -EIO : 0;
	live_update(ctx, r, FTRACE_LIVE_RECORDING, r->interrupted ? 0 : 100, r->measured_s);
	return ret;
}

static int ft_run(struct lab_ctx *ctx, const struct rt_sink *sink, struct lab_result *out)
{
	struct ftrace_params defaults;
	struct ft_run r;
	struct trace_events_opts eo;
	unsigned int swept = 0;
	char *cause = NULL;
	json_t *extra;
	int ret;

	memset(out, 0, sizeof(*out));
	memset(&r, 0, sizeof(r));
	r.p = params_of(ctx, &defaults);
	r.seed = ctx->seed;
	r.cpu = last_cpu();
	if (!ctx->journal) {
		rt_log(RT_LOG_ERR, "ftrace: the lab changes tracefs and needs the undo journal, "
		       "which could not be opened");
		return -EPERM;
	}
	if (r.p->mode == FTRACE_MODE_TRACER) {
		ret = pick_tracer(ctx, r.p, r.tracer, sizeof(r.tracer), &cause);
		if (ret)
			goto out_log;
	}
	ret = trace_ctl_sweep_stale(&swept, &cause);
	if (ret)
		goto out_log;
	if (swept)
		rt_log(RT_LOG_INFO, "ftrace: removed %u stale rtlab instance(s) of killed runs",
		       swept);

	r.res = rt_result_new("ftrace", ctx->tier ? ctx->tier : "host", ctx->env);
	r.phist = rt_hist_new(HIST_US, 0);
	if (!r.res || !r.phist) {
		ret = -ENOMEM;
		goto out;
	}
	ret = set_params(&r);
	if (ret)
		goto out;
	if (swept) {
		char note[128];

		snprintf(note, sizeof(note), "removed %u stale rtlab tracefs instance(s) left by "
			 "killed runs", swept);
		rt_result_add_note(r.res, note);
	}
	if (ctx->degraded && ctx->degraded_why)
		rt_result_add_note(r.res, ctx->degraded_why);

	if (r.p->busy) {
		r.busy = busy_start(r.cpu);
		if (!r.busy) {
			rt_log(RT_LOG_WARN, "ftrace: no busy companion (%s): the probe's CPU may "
			       "be idle when it wakes", strerror(errno));
			rt_result_add_note(r.res, "the busy companion could not be started: the "
					   "probe's CPU may have been idle when it woke");
			r.busy = 0;
		}
	}
	rt_sink_progress(sink, 0, "ftrace: starting the probe");
	live_update(ctx, &r, FTRACE_LIVE_SETUP, 0, 0);
	ret = start_probe(&r, &cause);
	if (ret)
		goto out_log;
	if (r.rt_refused) {
		char note[512];

		snprintf(note, sizeof(note), "the probe ran as SCHED_OTHER, not SCHED_FIFO %d: %s",
			 FTRACE_PROBE_PRIO, r.rt_refused);
		rt_log(RT_LOG_WARN, "%s", note);
		rt_result_add_note(r.res, note);
	}
	memset(&eo, 0, sizeof(eo));
	eo.pids = &r.tid;
	eo.npids = 1;
	eo.hist_us = HIST_US;
	r.ev = trace_events_new(ctx->journal, "ftrace", &eo, &cause);
	if (!r.ev) {
		ret = errno ? -errno : -EIO;
		goto out_log;
	}
	if (r.p->mode == FTRACE_MODE_TRACER) {
		/* Its own instance name: the events' instance is already "rtlab-ftrace-<pid>". */
		r.ctl = trace_ctl_new(ctx->journal, "ftracetr", r.tracer, r.p->function_trace ? 0 :
				      TRACE_CTL_NO_FUNCTION_TRACE, &cause);
		if (!r.ctl) {
			ret = errno ? -errno : -EIO;
			goto out_log;
		}
		ret = trace_ctl_set_function_trace(r.ctl, r.p->function_trace, &cause);
		ret = ret ? ret : trace_ctl_set_thresh(r.ctl, r.p->threshold_us, &cause);
		ret = ret ? ret : trace_ctl_reset_max_latency(r.ctl, &cause);
		if (ret)
			goto out_log;
	}
	if (r.p->cross_check && r.p->mode == FTRACE_MODE_TRACER)
		ftrace_xc_tc_skip_tracer(&r.tc);
	else if (r.p->cross_check)
		ftrace_xc_tc_start(&r.tc, ctx->journal, r.tid);

	ret = measure(ctx, sink, &r, &cause);
	if (ret)
		goto out_log;
	rt_sink_progress(sink, 100, "ftrace: measured; reading the traces");

	extra = rt_result_extra(r.res);
	if (!extra) {
		ret = -ENOMEM;
		goto out;
	}
	ret = ftrace_record(ctx, &r, extra);
	if (!ret && r.ctl)
		ret = ftrace_record_tracer(&r, extra);
	if (!ret)
		ret = ftrace_record_xc(&r, extra);
	if (!ret && r.extra_hunt) {
		ret = json_object_set_new(extra, "hunt", r.extra_hunt) ? -ENOMEM : 0;
		r.extra_hunt = NULL;
	}
	if (!ret && (json_object_set_new(extra, "mode", json_string(r.p->mode ==
						FTRACE_MODE_TRACER ? "tracer" : "events")) ||
		     json_object_set_new(extra, "interrupted", json_boolean(r.interrupted)) ||
		     json_object_set_new(extra, "measured_s",
					 json_real(round(r.measured_s * 1000) / 1000))))
		ret = -ENOMEM;
	if (!ret)
		ret = ftrace_record_scenario(&r, extra);
	if (ret)
		goto out;
	if (r.interrupted)
		rt_result_add_note(r.res, "interrupted (SIGINT, SIGTERM or SIGHUP): the document "
				   "holds what was measured until then");
	out->interrupted = r.interrupted;
	out->res = r.res;
	r.res = NULL;
	goto out;

out_log:
	rt_log(RT_LOG_ERR, "ftrace: %s", cause ? cause : strerror(-ret));
out:
	free(cause);
	run_cleanup(&r);
	return ret;
}

/* ---- Description and options ---------------------------------------------------- */

static void ft_params_init(void *params)
{
	ftrace_params_init(params);
}

static int ft_params_check(void *params, char **cause)
{
	return ftrace_params_check(params, cause);
}

static bool ft_scenario(size_t i, struct lab_scenario *out)
{
	if (i >= ftrace_nscenarios)
		return false;
	out->name = ftrace_scenarios[i].name;
	out->summary = ftrace_scenarios[i].summary;
	return true;
}

/* ---- Declared keys ---------------------------------------------------------------- */

/*
 * Its document's own keys (lab_ops.params_keys, .scenario_keys): what every
 * kind of run writes is declared; a scenario holds every
 * figure of the document's summary, which depend on the mode.
 */
static const struct rt_key ftrace_params_keys[] = {
	RT_RESULT_SEED_KEY,
	RT_KEY("mode", RT_T_STRING, NULL, "`events` or `tracer`", false),
	RT_KEY("tracer", RT_T_STRING, NULL, "the latency tracer (tracer mode)", false),
	RT_KEY("hunt", RT_T_BOOL, NULL, "a latency was planted to hunt", false),
	RT_KEY("scenario", RT_T_STRING, NULL, "the scenario's name", false),
	RT_KEY("duration_s", RT_T_INTEGER, "s", "how long it traced", false),
	RT_KEY("interval_us", RT_T_INTEGER, "us", "the probe's period", false),
	RT_KEY("threshold_us", RT_T_INTEGER, "us", "the tracer's threshold", false),
	RT_KEY("busy_cpu", RT_T_BOOL, NULL, "a busy loop ran beside it", false),
	RT_KEY("cross_check", RT_T_BOOL, NULL, "the probe measured beside the events", false),
	RT_KEY("function_trace", RT_T_BOOL, NULL, "the tracer recorded functions", false),
	RT_KEY_END,
};
static const struct rt_key ftrace_param = RT_KEY(NULL, RT_T_SCALAR | RT_T_ARRAY, NULL,
						     "a parameter of a mode", false,
						     .items = RT_T_SCALAR);
static const struct rt_keys ftrace_params_table = { .keys = ftrace_params_keys,
						    .others = &ftrace_param };
static const struct rt_key ftrace_figure = RT_KEY(NULL, RT_T_NUMBER | RT_T_BOOL, NULL,
						      "a figure of the summary", false);
static const struct rt_key ftrace_scenario_keys[] = {
	RT_RESULT_SCENARIO_NAME_KEYS,
	RT_KEY("interrupted", RT_T_BOOL, NULL, "the run was stopped", false),
	RT_KEY_END,
};
static const struct rt_keys ftrace_scenario_table = { .keys = ftrace_scenario_keys,
						      .others = &ftrace_figure };

const struct lab_ops lab_ftrace = {
	.name = "ftrace",
	.title = "Hunting latencies with ftrace",
	.summary = "Drive the irqsoff, preemptoff, wakeup and timerlat tracers through "
		   "libtracefs to find where a latency comes from.",
	.lesson = 6,
	.state = LAB_STATE_READY,
	.issue = 5,
	.needs = LAB_NEED_TRACE_EVENTS,
	.wants = LAB_NEED_LAT_TRACERS | LAB_NEED_RT_PRIO,
	.vm_live = true,
	.check_capabilities = ft_check_caps,
	.run = ft_run,
	.grade = ftrace_grade,
	.grade_lacks = ftrace_grade_lacks,
	.questions = ftrace_questions,
	.views = ftrace_views,
	.scenario = ft_scenario,
	.trace = ftrace_doc_trace,
	.options = ftrace_options,
	.options_note = ftrace_options_note,
	.params_size = sizeof(struct ftrace_params),
	.params_init = ft_params_init,
	.params_check = ft_params_check,
	.params_keys = &ftrace_params_table,
	.scenario_keys = &ftrace_scenario_table,
};
