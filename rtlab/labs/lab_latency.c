/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_latency: the latency lab's engine glue. For each chosen scenario it
 * starts the scenario's background load, lets it settle, runs the
 * cyclictest-style probe (rt_probe) for the scenario's duration while a
 * non-RT loop drains the sample rings into per-thread histograms and keeps
 * a live model current for a screen, then stops the load and records what
 * was measured in the one results document of the run.
 *
 * Degrading, never failing silently:
 *   - an RT policy the kernel refuses (not root, no CAP_SYS_NICE) is
 *     measured as SCHED_OTHER; a warning goes to the log and a note and
 *     the scenario's "policy"/"rt_refused" fields record it, so the grade
 *     can tell;
 *   - a refused mlockall is measured without it, likewise recorded;
 *   - a /dev/cpu_dma_latency or trace_marker that cannot be opened is
 *     skipped with a warning and a note.
 * The one refusal is load-fifo-rt on a kernel that is not PREEMPT_RT: its
 * whole point is that kernel, so check_capabilities() says what is missing
 * and how to get it, and run() returns -ENOTSUP.
 *
 * Host changes: the measuring threads are created with their policy and
 * affinity (they die with the run), and the cpu_dma_latency request is tied
 * to the open file (the kernel drops it when the fd is closed, including
 * when the process dies). Neither outlives the process, so neither needs
 * an undo-journal entry. The one change that would outlive it, --preempt
 * (a PREEMPT_DYNAMIC kernel's model in debugfs sched/preempt), goes
 * through ctx->journal: it is switched before the first scenario and back
 * after the last, and a stop, a crash or a kill in between is undone by
 * the journal (a run without one refuses --preempt).
 *
 * Interruption: when ctx->stop is set the probe and the load are stopped,
 * the scenario in progress is recorded with what it measured and
 * "interrupted": true, later scenarios are not run, and the document says
 * so in a note, in params.interrupted and in extra.interrupted. A screen
 * may instead end only the current scenario (latency_live_skip()): it is
 * recorded with "skipped": true and a note, and the run goes on.
 */
#include "lab_latency.h"
#include "lab_latency_int.h"
#include "lab_latency_kside.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/rt_buf.h"
#include "core/rt_env.h"
#include "core/rt_err.h"
#include "core/rt_file.h"
#include "core/rt_hist.h"
#include "core/rt_json.h"
#include "core/rt_load.h"
#include "core/rt_log.h"
#include "core/rt_parse.h"
#include "core/rt_preempt.h"
#include "core/rt_probe.h"
#include "core/rt_progress.h"
#include "core/rt_result.h"
#include "core/rt_text.h"
#include "core/rt_time.h"
#include "core/rt_keys.h"
#include "labs/lab_latency_work.h"

#define POLL_MS 100u			/* consumer cadence: a ring holds 8 s at 1 kHz */
#define SETTLE_MS 500u			/* load start-up before measuring */
#define OVERFLOW_RECS 1000u		/* overflow cycle numbers kept per thread */
#define DMA_PATH "/dev/cpu_dma_latency"

const char *const latency_questions[] = { "Q1", "Q2", "Q3", "Q4", "Q5", NULL };

/* ---- Live model -------------------------------------------------------------- */

int latency_live_init(struct latency_live *m)
{
	memset(m, 0, sizeof(*m));
	if (pthread_mutex_init(&m->lock, NULL))
		return -ENOMEM;
	m->snap.policy = "other";
	return 0;
}

void latency_live_fini(struct latency_live *m)
{
	if (!m)
		return;
	pthread_mutex_destroy(&m->lock);
	free(m->hist);
	memset(m, 0, sizeof(*m));
}

void latency_live_snapshot(struct latency_live *m, struct latency_live_snap *out)
{
	uint64_t *counts = out->counts;
	size_t cap = out->cap;

	pthread_mutex_lock(&m->lock);
	*out = m->snap;
	out->counts = counts;
	out->cap = cap;
	if (counts && m->hist) {
		size_t n = m->snap.nbuckets < cap ? m->snap.nbuckets : cap;

		memcpy(counts, m->hist, n * sizeof(*counts));
	}
	pthread_mutex_unlock(&m->lock);
}

void latency_live_skip(struct latency_live *m)
{
	pthread_mutex_lock(&m->lock);
	m->skip = m->snap.index + 1;
	pthread_mutex_unlock(&m->lock);
}

bool latency_skip_requested(struct lab_ctx *ctx, unsigned int index)
{
	struct latency_live *m = ctx->live;
	bool skip;

	if (!m)
		return false;
	pthread_mutex_lock(&m->lock);
	skip = m->skip == index + 1;
	pthread_mutex_unlock(&m->lock);
	return skip;
}

/* ---- One scenario's measurement --------------------------------------------------- */

struct scen_run {
	const struct latency_plan *plan;
	unsigned int nthreads;
	struct rt_hist *hist[LATENCY_MAX_THREADS];	/* owned, per thread */
	struct rt_hist *merged;				/* owned, all threads */
	struct rt_probe_thread_stats st[LATENCY_MAX_THREADS];
	int64_t last_ns[LATENCY_MAX_THREADS];
	int cpu[LATENCY_MAX_THREADS];			/* -1: not pinned */
	char housekeeping[64];				/* CPUs our other threads used; "" */
	int policy, priority;				/* as used */
	bool mlock;					/* as used */
	char *rt_refused;				/* owned: why, or NULL */
	char *mlock_refused;				/* owned: why, or NULL */
	bool interrupted;
	bool skipped;					/* ended early on request */
	double measured_s;
	double cpu_s;					/* process CPU time while measuring */
	long peak_rss_kb;				/* this process's peak RSS so far */
	struct latency_kside_run kside;			/* rtlab_inject beside the probe */
	const struct rt_sink *outer;			/* borrowed */
};

static void scen_sample(void *priv, const struct rt_sample *s)
{
	struct scen_run *r = priv;

	if (s->thread < LATENCY_MAX_THREADS)
		r->last_ns[s->thread] = s->latency_ns;
	rt_hist_add(r->merged, s);
	rt_sink_sample(r->outer, s);
}

static void scen_fini(struct scen_run *r)
{
	for (unsigned int i = 0; i < LATENCY_MAX_THREADS; i++)
		rt_hist_free(r->hist[i]);
	rt_hist_free(r->merged);
	free(r->rt_refused);
	free(r->mlock_refused);
	memset(r, 0, sizeof(*r));
}

/* CPU time (user + system) of this process so far, all threads, in seconds. */
static double cpu_now_s(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static void live_update(struct lab_ctx *ctx, const struct scen_run *r, unsigned int index,
			unsigned int nscen, unsigned int pct, bool running)
{
	struct latency_live *m = ctx->live;
	unsigned int nb;

	if (!m)
		return;
	nb = rt_hist_nbuckets(r->merged);
	pthread_mutex_lock(&m->lock);
	if (m->hist_cap < nb) {
		uint64_t *h = realloc(m->hist, nb * sizeof(*h));

		if (h) {
			m->hist = h;
			m->hist_cap = nb;
		}
	}
	snprintf(m->snap.scenario, sizeof(m->snap.scenario), "%s", r->plan->name);
	m->snap.index = index;
	m->snap.nscenarios = nscen;
	m->snap.pct = pct;
	m->snap.policy = latency_policy_name(r->policy);
	m->snap.running = running;
	m->snap.nthreads = r->nthreads;
	for (unsigned int t = 0; t < r->nthreads; t++) {
		struct latency_live_thread *lt = &m->snap.threads[t];
		struct rt_hist_summary s;
		struct rt_hist_pct pc;

		rt_hist_summarize(r->hist[t], &s);
		lt->tid = r->st[t].tid;
		lt->samples = s.count;
		lt->drops = r->st[t].drops;
		lt->cur_ns = r->last_ns[t];
		lt->min_ns = s.min_ns;
		lt->max_ns = s.max_ns;
		lt->avg_ns = s.avg_ns;
		if (rt_hist_percentile(r->hist[t], RT_HIST_P99, &pc) == 0) {
			lt->p99_us = pc.value_us;
			lt->p99_resolution_us = pc.resolution_us;
			lt->p99_meaningful = pc.meaningful;
		}
	}
	if (m->hist_cap >= nb) {
		for (unsigned int i = 0; i < nb; i++)
			m->hist[i] = rt_hist_bucket(r->merged, i);
		m->snap.nbuckets = nb;
	}
	m->snap.overflow = rt_hist_overflow(r->merged);
	m->snap.throughput = false;
	m->snap.activity[0] = '\0';
	pthread_mutex_unlock(&m->lock);
}

void latency_live_activity(struct lab_ctx *ctx, const char *name, unsigned int index,
			   unsigned int nscen, unsigned int pct, bool running,
			   const char *activity)
{
	struct latency_live *m = ctx->live;

	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	snprintf(m->snap.scenario, sizeof(m->snap.scenario), "%s", name);
	m->snap.index = index;
	m->snap.nscenarios = nscen;
	m->snap.pct = pct;
	m->snap.policy = "other";
	m->snap.running = running;
	m->snap.nthreads = 0;
	m->snap.nbuckets = 0;
	m->snap.overflow = 0;
	m->snap.throughput = true;
	snprintf(m->snap.activity, sizeof(m->snap.activity), "%s", activity);
	pthread_mutex_unlock(&m->lock);
}

/* The CPUs this process may run on, in order; at least one entry. */
static unsigned int allowed_cpus(unsigned int *out, unsigned int max)
{
	cpu_set_t set;
	unsigned int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (unsigned int c = 0; c < CPU_SETSIZE && n < max; c++)
			if (CPU_ISSET(c, &set))
				out[n++] = c;
	if (n == 0)
		out[n++] = 0;
	return n;
}

/*
 * Housekeeping CPUs. While a pinned scenario measures, every other thread of
 * this process (the loop that drains the rings, a screen drawing the live
 * model) is moved to the allowed CPUs that measure nothing. On a kernel
 * without full preemption a thread inside a long system call (a terminal
 * write, say) cannot be preempted even by SCHED_FIFO 90, so on the
 * measuring CPU it would sit in front of the probe's wake-ups; the screen
 * would then measure itself. The threads get their old masks back after
 * the scenario. Threads of other processes (the load, a terminal emulator)
 * are not ours to move.
 */
#define HK_MAX_THREADS 64

struct housekeeping {
	unsigned int n;
	pid_t tid[HK_MAX_THREADS];
	cpu_set_t old[HK_MAX_THREADS];
	char cpus[64];			/* the CPU list used, "" when nothing was moved */
};

static void housekeeping_move(struct housekeeping *hk, const int *measuring, unsigned int nm)
{
	cpu_set_t set;
	struct dirent *de;
	DIR *dir;

	memset(hk, 0, sizeof(*hk));
	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (unsigned int t = 0; t < nm; t++)
		if (measuring[t] >= 0)
			CPU_CLR(measuring[t], &set);
	if (CPU_COUNT(&set) == 0)
		return;		/* one CPU: nowhere to go */
	dir = opendir("/proc/self/task");
	if (!dir)
		return;
	while ((de = readdir(dir)) && hk->n < HK_MAX_THREADS) {
		pid_t tid = (pid_t)atoi(de->d_name);

		if (tid <= 0 || sched_getaffinity(tid, sizeof(hk->old[hk->n]), &hk->old[hk->n]))
			continue;
		if (sched_setaffinity(tid, sizeof(set), &set) == 0)
			hk->tid[hk->n++] = tid;
	}
	closedir(dir);
	if (hk->n)
		latency_format_cpus(&set, hk->cpus, sizeof(hk->cpus));
}

static void housekeeping_restore(struct housekeeping *hk)
{
	/* A thread that ended meanwhile gives ESRCH: nothing to restore. */
	for (unsigned int i = 0; i < hk->n; i++)
		(void)sched_setaffinity(hk->tid[i], sizeof(hk->old[i]), &hk->old[i]);
	hk->n = 0;
}

/*
 * Start the probe, degrading step by step: without mlockall if that was
 * refused, then as SCHED_OTHER if the RT policy was refused. Each step down
 * is recorded in @r with the reason.
 */
static int start_probe(struct rt_probe_config *cfg, struct scen_run *r, struct rt_probe **pp,
		       char **cause)
{
	char *why = NULL;
	int ret;

	ret = rt_probe_start(cfg, pp, &why);
	if ((ret == -EPERM || ret == -ENOMEM) && cfg->mlock) {
		cfg->mlock = false;
		free(r->mlock_refused);
		r->mlock_refused = why;
		why = NULL;
		ret = rt_probe_start(cfg, pp, &why);
		if (ret == 0)
			goto out_ok;
		/* Not (only) mlock: put it back and look at the policy. */
		cfg->mlock = true;
	}
	if (ret == -EPERM && cfg->policy != SCHED_OTHER) {
		r->rt_refused = why;
		why = NULL;
		cfg->policy = SCHED_OTHER;
		cfg->priority = 0;
		ret = rt_probe_start(cfg, pp, &why);
		if ((ret == -EPERM || ret == -ENOMEM) && cfg->mlock) {
			cfg->mlock = false;
			ret = rt_probe_start(cfg, pp, &why);
		} else if (ret == 0 && cfg->mlock) {
			/* mlock works after all: the first refusal was the policy. */
			free(r->mlock_refused);
			r->mlock_refused = NULL;
		}
	}
	if (ret) {
		ret = rt_err(cause, ret, "could not start the probe: %s",
			     why ? why : strerror(-ret));
		free(why);
		return ret;
	}
out_ok:
	free(why);
	r->policy = cfg->policy;
	r->priority = cfg->priority;
	r->mlock = cfg->mlock;
	return 0;
}

static int run_scenario(struct lab_ctx *ctx, const struct latency_params *p,
			const struct latency_plan *plan, unsigned int index,
			const struct rt_sink *sink, int trace_fd, struct scen_run *r, char **cause)
{
	struct rt_sink inner = { .sample = scen_sample, .priv = r };
	struct rt_probe_config cfg;
	struct rt_probe *probe = NULL;
	struct rt_load *load = NULL;
	struct housekeeping hk = { .n = 0 };
	cpu_set_t *sets = NULL;
	unsigned int allowed[LATENCY_MAX_CPUS], nallowed, last_pct = 101;
	sigset_t block, old;
	double t0, c0;
	char what[96];
	int ret = 0;

	memset(r, 0, sizeof(*r));
	r->plan = plan;
	r->outer = sink;
	r->nthreads = p->threads;
	r->policy = plan->policy;
	r->priority = plan->priority;
	r->merged = rt_hist_new(p->hist_max_us, OVERFLOW_RECS);
	if (!r->merged)
		return rt_err(cause, -ENOMEM, "out of memory for the histograms");
	for (unsigned int t = 0; t < r->nthreads; t++) {
		r->hist[t] = rt_hist_new(p->hist_max_us, OVERFLOW_RECS);
		if (!r->hist[t])
			return rt_err(cause, -ENOMEM, "out of memory for the histograms");
		r->cpu[t] = -1;
	}

	snprintf(what, sizeof(what), "%s: starting", plan->name);
	rt_sink_progress(sink, 0, what);
	/* Load first: fork() after mlockall would fault every shared page back in. */
	if (plan->load[0]) {
		load = rt_load_start(plan->load, p->duration_ms / 1000 + 60, cause);
		if (!load)
			return errno ? -errno : -EIO;
		for (unsigned int waited = 0; waited < SETTLE_MS && !lab_ctx_stopped(ctx);
		     waited += POLL_MS)
			rt_time_sleep_ms(POLL_MS, ctx->stop);	/* the stop flag ends it early */
	}
	if (lab_ctx_stopped(ctx)) {
		r->interrupted = true;
		goto out_load;
	}
	ret = latency_kside_start(ctx, &r->kside, plan, p->sys_root, cause);
	if (ret)
		goto out_load;

	rt_probe_config_init(&cfg);
	cfg.nthreads = p->threads;
	cfg.policy = plan->policy;
	cfg.priority = plan->policy == SCHED_OTHER ? 0 : plan->priority;
	cfg.interval_us = p->interval_us;
	cfg.distance_us = p->distance_us;
	cfg.duration_ms = p->duration_ms;
	cfg.mlock = plan->mlock;
	cfg.timer_slack_ns = plan->timer_slack_ns;
	cfg.alloc_bytes = (size_t)plan->alloc_kib * 1024;
	cfg.spike_ns = (uint64_t)p->spike_us * 1000;
	cfg.dl_runtime_ns = (uint64_t)p->dl_runtime_us * 1000;
	cfg.dl_deadline_ns = (uint64_t)p->dl_deadline_us * 1000;
	cfg.dl_period_ns = (uint64_t)p->dl_period_us * 1000;
	if (trace_fd >= 0 && p->trace_marker_us) {
		cfg.trace_ns = (uint64_t)p->trace_marker_us * 1000;
		cfg.trace_fd = trace_fd;
	}
	if (plan->pinned) {
		sets = calloc(p->threads, sizeof(*sets));
		if (!sets) {
			ret = rt_err(cause, -ENOMEM, "out of memory");
			goto out_load;
		}
		nallowed = allowed_cpus(allowed, LATENCY_MAX_CPUS);
		for (unsigned int t = 0; t < p->threads; t++) {
			unsigned int c = p->ncpus ? p->cpus[t % p->ncpus] : allowed[t % nallowed];

			CPU_ZERO(&sets[t]);
			CPU_SET(c, &sets[t]);
			r->cpu[t] = (int)c;
		}
		cfg.cpus = sets;
	}

	/* Before the probe starts: its threads are the only ones left on their CPUs. */
	if (plan->pinned)
		housekeeping_move(&hk, r->cpu, p->threads);
	snprintf(r->housekeeping, sizeof(r->housekeeping), "%s", hk.cpus);

	/* Measuring threads inherit this mask: stop signals go to the non-RT side. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	ret = start_probe(&cfg, r, &probe, cause);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		goto out_load;

	t0 = rt_time_now_s();
	c0 = cpu_now_s();
	while (!rt_probe_finished(probe)) {
		unsigned int pct;

		if (lab_ctx_stopped(ctx)) {
			r->interrupted = true;
			break;
		}
		if (latency_skip_requested(ctx, index)) {
			r->skipped = true;
			break;
		}
		rt_time_sleep_ms(POLL_MS, ctx->stop);	/* the stop flag ends it early */
		rt_probe_poll(probe, r->hist, &inner);
		for (unsigned int t = 0; t < r->nthreads; t++)
			rt_probe_stats(probe, t, &r->st[t]);
		pct = (unsigned int)fmin(100.0, (rt_time_now_s() - t0) * 100000.0 / p->duration_ms);
		live_update(ctx, r, index, p->nplans, pct, true);
		if (pct / 10 != last_pct / 10 || last_pct == 101) {
			snprintf(what, sizeof(what), "%s: %s, %.1f s of %.1f s", plan->name,
				 latency_policy_name(r->policy), rt_time_now_s() - t0,
				 p->duration_ms / 1000.0);
			rt_sink_progress(sink, pct, what);
			last_pct = pct;
		}
	}
	rt_probe_stop(probe);
	while (rt_probe_poll(probe, r->hist, &inner) > 0)
		;
	r->measured_s = rt_time_now_s() - t0;
	r->cpu_s = cpu_now_s() - c0;
	{
		struct rusage ru;

		/* Our own peak, not our children's (the load, the doctor's probes). */
		r->peak_rss_kb = getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
	}
	for (unsigned int t = 0; t < r->nthreads; t++)
		rt_probe_stats(probe, t, &r->st[t]);
	live_update(ctx, r, index, p->nplans, r->interrupted ? 0 : 100, false);
	snprintf(what, sizeof(what), "%s: %s", plan->name, r->interrupted ? "interrupted" :
		 r->skipped ? "skipped" : "done");
	rt_sink_progress(sink, 100, what);

out_load:
	latency_kside_stop(&r->kside);
	rt_probe_free(probe);
	housekeeping_restore(&hk);
	free(sets);
	if (load && rt_load_stop(load) == -ETIMEDOUT)
		rt_log(RT_LOG_WARN, "%s: a load generator did not stop in time and was killed",
		       plan->name);
	rt_load_free(load);
	return ret;
}

/* ---- Recording ----------------------------------------------------------------- */

static double us(double ns)
{
	return round(ns / 10.0) / 100.0;	/* microseconds with two decimals */
}

static int add_summary(json_t *obj, const struct rt_hist *h)
{
	struct rt_hist_summary s;

	rt_hist_summarize(h, &s);
	if (json_object_set_new(obj, "samples_count", json_integer((json_int_t)s.count)) ||
	    json_object_set_new(obj, "overflow_count", json_integer((json_int_t)s.overflow)) ||
	    json_object_set_new(obj, "min_us", json_real(us((double)s.min_ns))) ||
	    json_object_set_new(obj, "avg_us", json_real(us(s.avg_ns))) ||
	    json_object_set_new(obj, "max_us", json_real(us((double)s.max_ns))))
		return -ENOMEM;
	return rt_result_put_percentiles(obj, h);
}

static json_t *overflow_cycles(const struct rt_hist *h)
{
	const struct rt_sample *recs;
	json_t *a = json_array();
	size_t n;

	recs = rt_hist_overflow_recs(h, &n);
	for (size_t i = 0; a && i < n; i++)
		if (json_array_append_new(a, json_integer((json_int_t)recs[i].seq))) {
			json_decref(a);
			return NULL;
		}
	return a;
}

/*
 * The fresh memory of a -alloc scenario, per cycle over all threads: where
 * the time went (the mmap, the first writes) and how many page faults each
 * took. A scenario without it has none of these figures.
 */
static int add_alloc(json_t *o, const struct scen_run *r)
{
	struct rt_probe_alloc_stats a = { 0 };
	double n;

	for (unsigned int t = 0; t < r->nthreads; t++) {
		const struct rt_probe_alloc_stats *s = &r->st[t].alloc;

		a.cycles += s->cycles;
		a.failed += s->failed;
		a.alloc_ns += s->alloc_ns;
		a.touch_ns += s->touch_ns;
		a.alloc_faults += s->alloc_faults;
		a.touch_faults += s->touch_faults;
		a.alloc_max_ns = s->alloc_max_ns > a.alloc_max_ns ? s->alloc_max_ns : a.alloc_max_ns;
		a.touch_max_ns = s->touch_max_ns > a.touch_max_ns ? s->touch_max_ns : a.touch_max_ns;
	}
	n = a.cycles ? (double)a.cycles : 1;
	return json_object_set_new(o, "alloc_bytes", json_integer((json_int_t)r->plan->alloc_kib *
								 1024)) ||
	       json_object_set_new(o, "alloc_cycles_count", json_integer((json_int_t)a.cycles)) ||
	       json_object_set_new(o, "alloc_failed_count", json_integer((json_int_t)a.failed)) ||
	       json_object_set_new(o, "alloc_avg_us", json_real(us((double)a.alloc_ns / n))) ||
	       json_object_set_new(o, "alloc_max_us", json_real(us((double)a.alloc_max_ns))) ||
	       json_object_set_new(o, "touch_avg_us", json_real(us((double)a.touch_ns / n))) ||
	       json_object_set_new(o, "touch_max_us", json_real(us((double)a.touch_max_ns))) ||
	       json_object_set_new(o, "alloc_faults_avg_count",
				   json_real(round((double)a.alloc_faults * 100 / n) / 100)) ||
	       json_object_set_new(o, "touch_faults_avg_count",
				   json_real(round((double)a.touch_faults * 100 / n) / 100)) ? -ENOMEM : 0;
}

/* A deadline plan's reservation as asked: 0 means "each thread's interval". */
static int add_dl(json_t *o, const struct latency_params *p)
{
	unsigned int period = p->dl_period_us, deadline = p->dl_deadline_us;

	return json_object_set_new(o, "dl_runtime_us", json_integer(p->dl_runtime_us)) ||
	       json_object_set_new(o, "dl_deadline_us", deadline ? json_integer(deadline) :
				   period ? json_integer(period) : json_string("interval")) ||
	       json_object_set_new(o, "dl_period_us", period ? json_integer(period) :
				   json_string("interval")) ? -ENOMEM : 0;
}

static int record_scenario(struct rt_result *res, json_t *scens, const struct latency_params *p,
			   struct scen_run *r)
{
	const struct latency_plan *pl = r->plan;
	const struct latency_scenario *sc = latency_scenario_find(pl->name);
	json_t *o, *threads;
	uint64_t drops = 0, overruns = 0, spikes = 0, markers = 0, loops = 0;
	int ret = -ENOMEM;

	o = json_object();
	threads = json_array();
	if (!o || !threads)
		goto out;
	for (unsigned int t = 0; t < r->nthreads; t++) {
		json_t *th = json_pack("{s:i, s:i, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
				       "s:f}", "index", (int)t, "tid", r->st[t].tid,
				       "cpu", r->cpu[t],
				       "interval_us", (json_int_t)r->st[t].interval_us,
				       "timer_slack_ns", (json_int_t)r->st[t].timer_slack_ns,
				       "loops_count", (json_int_t)r->st[t].loops,
				       "dropped_count", (json_int_t)r->st[t].drops,
				       "overruns_count", (json_int_t)r->st[t].overruns,
				       "spikes_count", (json_int_t)r->st[t].spikes,
				       "markers_count", (json_int_t)r->st[t].markers,
				       "marker_errors_count", (json_int_t)r->st[t].marker_errors,
				       "last_us", us((double)r->last_ns[t]));

		if (!th || json_array_append_new(threads, th) || add_summary(th, r->hist[t]) ||
		    json_object_set_new(th, "overflow_cycles", overflow_cycles(r->hist[t])))
			goto out;
		drops += r->st[t].drops;
		overruns += r->st[t].overruns;
		spikes += r->st[t].spikes;
		markers += r->st[t].markers;
		loops += r->st[t].loops;
	}
	if (json_object_set_new(o, "name", json_string(pl->name)) ||
	    json_object_set_new(o, "kind", json_string("latency")) ||
	    json_object_set_new(o, "summary", json_string(sc ? sc->summary :
				"options given on the command line")) ||
	    json_object_set_new(o, "policy_requested", json_string(latency_policy_name(pl->policy))) ||
	    json_object_set_new(o, "policy", json_string(latency_policy_name(r->policy))) ||
	    json_object_set_new(o, "priority", json_integer(r->priority)) ||
	    json_object_set_new(o, "mlock_requested", json_boolean(pl->mlock)) ||
	    json_object_set_new(o, "mlock", json_boolean(r->mlock)) ||
	    json_object_set_new(o, "pinned", json_boolean(pl->pinned)) ||
	    json_object_set_new(o, "housekeeping_cpus", r->housekeeping[0] ?
				json_string(r->housekeeping) : json_null()) ||
	    json_object_set_new(o, "load", json_string(pl->load[0] ? pl->load : "none")) ||
	    json_object_set_new(o, "timer_slack_requested_ns", pl->timer_slack_ns ?
				json_integer((json_int_t)pl->timer_slack_ns) : json_null()) ||
	    json_object_set_new(o, "timer_slack_ns", r->nthreads ?
				json_integer((json_int_t)r->st[0].timer_slack_ns) : json_null()) ||
	    json_object_set_new(o, "rt_refused", r->rt_refused ? json_string(r->rt_refused) :
				json_null()) ||
	    json_object_set_new(o, "mlock_refused", r->mlock_refused ?
				json_string(r->mlock_refused) : json_null()) ||
	    json_object_set_new(o, "interrupted", json_boolean(r->interrupted)) ||
	    json_object_set_new(o, "skipped", json_boolean(r->skipped)) ||
	    json_object_set_new(o, "cpu_s", json_real(round(r->cpu_s * 1e6) / 1e6)) ||
	    json_object_set_new(o, "peak_rss_kb", json_integer(r->peak_rss_kb)) ||
	    json_object_set_new(o, "planned_s", json_real(p->duration_ms / 1000.0)) ||
	    json_object_set_new(o, "measured_s", json_real(round(r->measured_s * 1000) / 1000)) ||
	    json_object_set_new(o, "dropped_count", json_integer((json_int_t)drops)) ||
	    json_object_set_new(o, "overruns_count", json_integer((json_int_t)overruns)) ||
	    json_object_set_new(o, "spikes_count", json_integer((json_int_t)spikes)) ||
	    json_object_set_new(o, "markers_count", json_integer((json_int_t)markers)) ||
	    (p->spike_us && json_object_set_new(o, "spikes_pct",
						json_real(latency_share_pct(spikes, loops)))) ||
	    (pl->policy == SCHED_DEADLINE && add_dl(o, p)) ||
	    (pl->alloc_kib && add_alloc(o, r)) ||
	    latency_kside_record(o, &r->kside) ||
	    add_summary(o, r->merged))
		goto out;
	{
		/* _set_new takes the reference even when it fails. */
		int err = json_object_set_new(o, "threads", threads);

		threads = NULL;
		if (err)
			goto out;
	}
	if (json_array_append(scens, o))
		goto out;
	ret = rt_result_add_rt_hist(res, pl->name, r->merged);
out:
	json_decref(threads);
	json_decref(o);
	return ret;
}

/* ---- Host knobs held during the run ------------------------------------------- */

/* Hold cpu_dma_latency at 0: the request lives as long as the fd. */
static int dma_open(struct rt_result *res, int32_t *before)
{
	int32_t zero = 0;
	int fd;

	*before = -1;
	fd = open(DMA_PATH, O_RDONLY);
	if (fd >= 0) {
		if (read(fd, before, sizeof(*before)) != (ssize_t)sizeof(*before))
			*before = -1;
		close(fd);
	}
	fd = open(DMA_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0 || write(fd, &zero, sizeof(zero)) != (ssize_t)sizeof(zero)) {
		int err = errno;

		rt_log(RT_LOG_WARN, "--dma-latency: could not hold %s at 0 (%s; it needs root): "
		       "measuring without it", DMA_PATH, strerror(err));
		rt_result_add_note(res, "--dma-latency was asked for but " DMA_PATH " could "
				   "not be opened for writing (needs root): measured without it");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static int trace_marker_open(struct rt_result *res)
{
	static const char *const paths[] = { "/sys/kernel/tracing/trace_marker",
					     "/sys/kernel/debug/tracing/trace_marker" };
	int fd = -1;

	for (size_t i = 0; fd < 0 && i < sizeof(paths) / sizeof(paths[0]); i++)
		fd = open(paths[i], O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		rt_log(RT_LOG_WARN, "--trace-marker: tracefs trace_marker cannot be opened (%s; "
		       "needs root and a mounted tracefs): no markers written", strerror(errno));
		rt_result_add_note(res, "--trace-marker was asked for but trace_marker could not "
				   "be opened: no markers were written");
	}
	return fd;
}

/* ---- The lab operations ---------------------------------------------------------- */

static const struct latency_params *params_of(const struct lab_ctx *ctx,
					      struct latency_params *defaults)
{
	if (ctx->params)
		return ctx->params;
	latency_params_init(defaults);
	return defaults;
}

/* --preempt MODEL can be switched to here: read-only, before anything runs. */
static int preempt_check(const struct lab_ctx *ctx, const struct latency_params *p,
			 char **cause)
{
	const char *want = rt_preempt_models[p->preempt];
	struct rt_preempt_state st;
	char *why = NULL;
	int ret;

	ret = rt_preempt_read(p->sys_root, ctx->env && ctx->env->preempt_dynamic, &st, &why);
	if (!ret && !(st.offered & (1u << p->preempt)))
		ret = rt_err(&why, -EINVAL, "%s does not offer the model %s", RT_PREEMPT_FILE,
			     want);
	if (ret) {
		ret = rt_err(cause, ret == -ENOMEM ? ret : -ENOTSUP, "--preempt %s: the preemption "
			     "model cannot be switched here: %s", want, why ? why : strerror(-ret));
		free(why);
	}
	return ret;
}

static int lat_check_caps(struct lab_ctx *ctx, char **cause)
{
	struct latency_params defaults;
	const struct latency_params *p = params_of(ctx, &defaults);

	if (p->preempt >= 0) {
		int ret = preempt_check(ctx, p, cause);

		if (ret)
			return ret;
	}

	for (unsigned int i = 0; i < p->nplans; i++) {
		int ret = latency_kside_check(&p->plan[i], p->sys_root, cause);

		if (ret)
			return ret;
	}
	for (unsigned int i = 0; i < p->nplans; i++)
		if (p->plan[i].needs_preempt_rt && !(ctx->env && ctx->env->realtime))
			return rt_err(cause, -ENOTSUP,
				      "scenario %s needs a PREEMPT_RT kernel, and this one is not "
				      "(%s, preemption model %s, from %s). Boot one: on Debian "
				      "`apt-get install linux-image-rt-amd64` and choose it at boot, "
				      "or use the classroom VM's rt kernel (see the README); the other "
				      "scenarios run on this kernel", p->plan[i].name,
				      ctx->env && ctx->env->kernel_release ? ctx->env->kernel_release :
				      "unknown kernel",
				      ctx->env && ctx->env->preempt_model ? ctx->env->preempt_model :
				      "unknown",
				      ctx->env && ctx->env->preempt_source ? ctx->env->preempt_source :
				      "unknown source");
	return 0;
}

static int set_params(struct rt_result *res, const struct latency_params *p)
{
	json_t *names = json_array(), *cpus = json_array();
	int ret = 0;

	for (unsigned int i = 0; names && i < p->nplans; i++)
		if (json_array_append_new(names, json_string(p->plan[i].name)))
			ret = -ENOMEM;
	for (unsigned int i = 0; cpus && i < p->ncpus; i++)
		if (json_array_append_new(cpus, json_integer(p->cpus[i])))
			ret = -ENOMEM;
	if (!names || !cpus || ret) {
		json_decref(names);
		json_decref(cpus);
		return -ENOMEM;
	}
	/* Each call takes its value's reference, also on failure. */
	ret = rt_result_set_param_json(res, "scenarios", names);
	if (ret)
		json_decref(cpus);
	ret = ret ? ret : rt_result_set_param_json(res, "cpus", cpus);
	ret = ret ? ret : rt_result_set_param_num(res, "duration_s", p->duration_ms / 1000.0);
	ret = ret ? ret : rt_result_set_param_num(res, "interval_us", p->interval_us);
	ret = ret ? ret : rt_result_set_param_num(res, "distance_us", p->distance_us);
	ret = ret ? ret : rt_result_set_param_num(res, "threads", p->threads);
	ret = ret ? ret : rt_result_set_param_num(res, "hist_max_us", p->hist_max_us);
	ret = ret ? ret : rt_result_set_param_bool(res, "dma_latency", p->dma_latency);
	ret = ret ? ret : rt_result_set_param_num(res, "spike_us", p->spike_us);
	ret = ret ? ret : rt_result_set_param_num(res, "trace_marker_us", p->trace_marker_us);
	ret = ret ? ret : rt_result_set_param_str(res, "clock", "monotonic");
	return ret;
}

/* The throughput scenario @i of the run: measured, noted and recorded. */
static int run_throughput(struct lab_ctx *ctx, struct rt_result *res, json_t *scens,
			  const struct latency_params *p, unsigned int i,
			  const struct rt_sink *sink, unsigned int *done, struct lab_result *out)
{
	struct latency_tput t;
	char *cause = NULL;
	int ret;

	ret = latency_tput_run(ctx, p, &p->plan[i], i, sink, &t, &cause);
	if (ret) {
		rt_log(RT_LOG_ERR, "latency: scenario %s: %s", p->plan[i].name,
		       cause ? cause : strerror(-ret));
		free(cause);
		return ret;
	}
	if (t.skipped) {
		char note[160];

		snprintf(note, sizeof(note), "%s: ended early on request after %.1f s of %.1f s",
			 p->plan[i].name, t.measured_s, p->duration_ms / 1000.0);
		rt_result_add_note(res, note);
	}
	if (t.interrupted)
		out->interrupted = true;
	for (unsigned int k = 0; k < LATENCY_WORK_NKINDS; k++)
		if (t.runs[k]) {
			(*done)++;
			return latency_tput_record(scens, p, &t);
		}
	return 0;		/* stopped before any run ended: nothing to record */
}

static int set_summary(struct rt_result *res, const struct rt_hist *all, uint64_t drops,
		       uint64_t overruns, unsigned int nscen, const struct latency_params *p,
		       uint64_t spikes, uint64_t loops)
{
	struct rt_hist_summary s;
	struct rt_hist_pct pc;
	int ret;

	rt_hist_summarize(all, &s);
	ret = rt_result_set_summary(res, "min_us", us((double)s.min_ns));
	ret = ret ? ret : rt_result_set_summary(res, "avg_us", us(s.avg_ns));
	ret = ret ? ret : rt_result_set_summary(res, "max_us", us((double)s.max_ns));
	if (rt_hist_percentile(all, RT_HIST_P99, &pc) != 0) {
		pc.value_us = 0;
		pc.resolution_us = 1;
	}
	ret = ret ? ret : rt_result_set_summary(res, "p99_us", (double)pc.value_us);
	ret = ret ? ret : rt_result_set_summary(res, "p99_resolution_us",
						(double)pc.resolution_us);
	ret = ret ? ret : rt_result_set_summary(res, "samples_count", (double)s.count);
	ret = ret ? ret : rt_result_set_summary(res, "dropped_count", (double)drops);
	ret = ret ? ret : rt_result_set_summary(res, "overruns_count", (double)overruns);
	ret = ret ? ret : rt_result_set_summary(res, "overflow_count", (double)s.overflow);
	ret = ret ? ret : rt_result_set_summary(res, "scenarios_count", nscen);
	if (p->spike_us)
		ret = ret ? ret : rt_result_set_summary(res, "spikes_pct",
							latency_share_pct(spikes, loops));
	if (!ret && pc.resolution_us > 1) {
		char note[200];

		snprintf(note, sizeof(note), "the overall p99 (%llu us) lies above the 1 us buckets "
			 "(%u us): it is known to %llu us (raise --hist-max for 1 us)",
			 (unsigned long long)pc.value_us, rt_hist_nbuckets(all),
			 (unsigned long long)pc.resolution_us);
		ret = rt_result_add_note(res, note);
	}
	return ret;
}

/*
 * --preempt: switch to the model asked for through the journal; *@before
 * receives the model in force until now (NULL when nothing was written,
 * the model being already in force).
 */
static int preempt_set(struct lab_ctx *ctx, const struct latency_params *p,
		       const char **before)
{
	const char *want = rt_preempt_models[p->preempt];
	struct rt_preempt_state st;
	char *why = NULL;
	int ret;

	*before = NULL;
	if (!ctx->journal) {
		rt_log(RT_LOG_ERR, "--preempt %s: no undo journal, so the preemption model is not "
		       "switched (nothing could put it back after a crash)", want);
		return -EPERM;
	}
	ret = rt_preempt_switch(ctx->journal, p->sys_root, ctx->env && ctx->env->preempt_dynamic,
				want, &st, &why);
	if (ret) {
		rt_log(RT_LOG_ERR, "--preempt %s: %s", want, why ? why : strerror(-ret));
		free(why);
		return ret == -ENOMEM ? ret : -ENOTSUP;
	}
	if (st.current != want)
		*before = st.current;
	rt_log(RT_LOG_INFO, "preemption model: %s%s%s", want, *before ? ", was " : " already",
	       *before ? *before : "");
	return 0;
}

/* Put the model in force before --preempt back; the journal retries on failure. */
static void preempt_restore(struct lab_ctx *ctx, const struct latency_params *p,
			    const char *before, struct rt_result *res)
{
	char *why = NULL;
	char note[512];
	int ret;

	ret = rt_preempt_put_back(ctx->journal, p->sys_root, before, &why);
	if (ret)
		snprintf(note, sizeof(note), "--preempt: switching the preemption model back to %s "
			 "failed (%s); the undo journal tries again when rtlab ends", before,
			 why ? why : strerror(-ret));
	else
		snprintf(note, sizeof(note), "the preemption model was switched from %s to %s "
			 "(debugfs sched/preempt) for the scenarios, and back to %s after them",
			 before, rt_preempt_models[p->preempt], before);
	if (ret)
		rt_log(RT_LOG_WARN, "%s", note);
	if (res)
		rt_result_add_note(res, note);
	free(why);
}

static int lat_run(struct lab_ctx *ctx, const struct rt_sink *sink, struct lab_result *out)
{
	struct latency_params defaults;
	const struct latency_params *p = params_of(ctx, &defaults);
	struct rt_result *res = NULL;
	struct rt_hist *all = NULL;
	json_t *extra, *scens = NULL;
	uint64_t drops = 0, overruns = 0, spikes = 0, loops = 0;
	unsigned int done = 0;
	int dma_fd = -1, trace_fd = -1, ret;
	int32_t dma_before = -1;
	char *cause = NULL;
	const char *preempt_before = NULL;	/* static; set while the model is switched */
	struct rt_env env;

	memset(out, 0, sizeof(*out));
	ret = lat_check_caps(ctx, &cause);
	if (ret) {
		rt_log(RT_LOG_ERR, "%s", cause);
		free(cause);
		return ret;
	}
	if (p->preempt >= 0) {
		ret = preempt_set(ctx, p, &preempt_before);
		if (ret)
			return ret;
	}
	/* The document records the model the scenarios ran under. */
	if (ctx->env) {
		env = *ctx->env;	/* borrowed strings */
		if (p->preempt >= 0) {
			env.preempt_model = (char *)rt_preempt_models[p->preempt];
			env.preempt_source = (char *)RT_PREEMPT_FILE " (--preempt)";
		}
	}
	res = rt_result_new("latency", ctx->tier ? ctx->tier : "host", ctx->env ? &env : NULL);
	all = rt_hist_new(p->hist_max_us, 0);
	scens = json_array();
	if (!res || !all || !scens) {
		ret = -ENOMEM;
		goto out_free;
	}
	ret = set_params(res, p);
	ret = ret ? ret : lab_seed_record(res, ctx->seed);
	if (!ret && p->preempt >= 0)
		ret = rt_result_set_param_str(res, "preempt_model", rt_preempt_models[p->preempt]);
	if (!ret && preempt_before)
		ret = rt_result_set_param_str(res, "preempt_model_before", preempt_before);
	if (ret)
		goto out_free;
	/* In virtual time the host's scheduling is not in the figures (RUN_VIRTUAL_TIME_NOTE). */
	if (ctx->env && ctx->env->in_vm && !ctx->env->virtual_time) {
		char note[256];

		snprintf(note, sizeof(note), "measured inside a virtual machine (%s): the "
			 "hypervisor's own scheduling adds to every latency; compare runs on this "
			 "machine with each other, not with bare metal",
			 ctx->env->vm_type ? ctx->env->vm_type : "unknown type");
		rt_result_add_note(res, note);
	}
	if (ctx->degraded && ctx->degraded_why)
		rt_result_add_note(res, ctx->degraded_why);
	if (p->dma_latency) {
		dma_fd = dma_open(res, &dma_before);
		if (dma_fd >= 0) {
			char note[200];

			snprintf(note, sizeof(note), "/dev/cpu_dma_latency held at 0 us during the "
				 "run (it was %d us before): deep C-states were off, which lowers "
				 "latency but is not how the machine normally runs", (int)dma_before);
			rt_result_add_note(res, note);
		}
	}
	if (p->trace_marker_us)
		trace_fd = trace_marker_open(res);

	for (unsigned int i = 0; i < p->nplans; i++) {
		struct scen_run r;

		if (lab_ctx_stopped(ctx)) {
			out->interrupted = true;
			break;
		}
		if (p->plan[i].throughput) {
			ret = run_throughput(ctx, res, scens, p, i, sink, &done, out);
			if (ret)
				goto out_free;
			continue;
		}
		ret = run_scenario(ctx, p, &p->plan[i], i, sink, trace_fd, &r, &cause);
		if (ret) {
			rt_log(RT_LOG_ERR, "latency: scenario %s: %s", p->plan[i].name,
			       cause ? cause : strerror(-ret));
			free(cause);
			scen_fini(&r);
			goto out_free;
		}
		if (r.rt_refused) {
			char note[512];

			snprintf(note, sizeof(note), "%s: measured as SCHED_OTHER, not SCHED_%s: %s",
				 r.plan->name, r.plan->policy == SCHED_RR ? "RR" :
				 r.plan->policy == SCHED_DEADLINE ? "DEADLINE" : "FIFO",
				 r.rt_refused);
			rt_log(RT_LOG_WARN, "%s", note);
			rt_result_add_note(res, note);
		}
		if (r.mlock_refused) {
			char note[512];

			snprintf(note, sizeof(note), "%s: measured without mlockall: %s",
				 r.plan->name, r.mlock_refused);
			rt_log(RT_LOG_WARN, "%s", note);
			rt_result_add_note(res, note);
		}
		if (r.skipped) {
			char note[160];

			snprintf(note, sizeof(note), "%s: ended early on request after %.1f s of "
				 "%.1f s", r.plan->name, r.measured_s, p->duration_ms / 1000.0);
			rt_result_add_note(res, note);
		}
		if (!(r.interrupted && rt_hist_count(r.merged) == 0)) {
			ret = record_scenario(res, scens, p, &r);
			if (!ret)
				ret = rt_hist_merge(all, r.merged);
			for (unsigned int t = 0; t < r.nthreads; t++) {
				drops += r.st[t].drops;
				overruns += r.st[t].overruns;
				spikes += r.st[t].spikes;
				loops += r.st[t].loops;
			}
			done++;
		}
		if (r.interrupted)
			out->interrupted = true;
		scen_fini(&r);
		if (ret)
			goto out_free;
	}
	if (dma_fd >= 0) {
		close(dma_fd);
		dma_fd = -1;
	}
	if (preempt_before) {
		preempt_restore(ctx, p, preempt_before, res);
		preempt_before = NULL;
	}
	if (out->interrupted)
		rt_result_add_note(res, "interrupted (SIGINT, SIGTERM or SIGHUP): the document "
				   "holds what was measured until then");
	ret = rt_result_set_param_bool(res, "interrupted", out->interrupted);
	ret = ret ? ret : set_summary(res, all, drops, overruns, done, p, spikes, loops);
	ret = ret ? ret : rt_result_set_scenarios(res, scens);
	extra = rt_result_extra(res);
	if (!ret && (!extra || json_object_set_new(extra, "interrupted",
						   json_boolean(out->interrupted))))
		ret = -ENOMEM;
	if (ret)
		goto out_free;
	out->res = res;
	res = NULL;

out_free:
	if (preempt_before)
		preempt_restore(ctx, p, preempt_before, NULL);
	if (dma_fd >= 0)
		close(dma_fd);
	if (trace_fd >= 0)
		close(trace_fd);
	json_decref(scens);
	rt_hist_free(all);
	rt_result_free(res);
	return ret;
}

/* ---- Description and text report ---------------------------------------------- */

/* @d limited to +-1e15 (extra is free-form: the validator checks reals, not meanings). */
static double pct_clamp(double d)
{
	if (!(d > -1e15))
		return d != d ? 0 : -1e15;
	return d < 1e15 ? d : 1e15;
}

void latency_pct_text(char *buf, size_t size, double value_us, double resolution_us,
		      bool beyond, bool compact)
{
	long long v = llround(pct_clamp(value_us)), r = llround(pct_clamp(resolution_us));

	if (beyond)
		snprintf(buf, size, compact ? ">%lld" : "beyond %lld us", v);
	else if (r > 1)
		snprintf(buf, size, compact ? "%lld+-%lld" : "%lld us (resolution %lld us)", v, r);
	else
		snprintf(buf, size, compact ? "%lld" : "%lld us", v);
}

/* p99 of a scenario or thread object: /2 has a resolution, /1 may say "above_bound". */
static void p99_text(json_t *o, char *buf, size_t size, bool compact)
{
	json_t *res = json_object_get(o, "p99_resolution_us");

	latency_pct_text(buf, size, rt_json_num(o, "p99_us"), json_is_number(res) ?
			 json_number_value(res) : 1,
			 json_is_true(json_object_get(o, "p99_above_bound")), compact);
}

static json_t *columns(const struct latency_col *c, size_t n)
{
	json_t *cols = json_array();

	for (size_t i = 0; cols && i < n; i++) {
		json_t *o = json_pack("{s:s, s:s}", "name", c[i].name, "title", c[i].title);

		if (!o || (*c[i].unit && json_object_set_new(o, "unit", json_string(c[i].unit))) ||
		    json_array_append_new(cols, o)) {
			json_decref(o);
			json_decref(cols);
			return NULL;
		}
	}
	return cols;
}

json_t *latency_view_new(const char *name, const char *title, const struct latency_col *c,
			 size_t n)
{
	json_t *cols = columns(c, n);

	return cols ? json_pack("{s:s, s:s, s:o, s:[]}", "name", name, "title", title,
				"columns", cols, "rows") : NULL;
}

/* What matters first comes first: an 80-column screen shows up to "max". */
static const struct latency_col scen_cols[] = {
	{ "scenario", "scenario", "" }, { "status", "status", "" }, { "policy", "policy", "" },
	{ "samples", "samples", "" }, { "min", "min", "us" }, { "avg", "avg", "us" },
	{ "p99", "p99", "us" }, { "max", "max", "us" },
	{ "dropped", "dropped (ring full)", "" }, { "overruns", "overruns (>1 period late)", "" },
	{ "priority", "prio", "" }, { "mlock", "mlock", "" },
	{ "pinned", "pinned", "" }, { "load", "load", "" },
	{ "slack", "timer slack", "ns" }, { "measured", "time", "s" },
};

static const struct latency_col thread_cols[] = {
	{ "scenario", "scenario", "" }, { "thread", "T", "" }, { "tid", "tid", "" },
	{ "priority", "P", "" }, { "interval", "I", "us" }, { "samples", "C", "" },
	{ "min", "Min", "us" }, { "last", "Act", "us" }, { "avg", "Avg", "us" },
	{ "max", "Max", "us" }, { "p99", "p99", "us" },
};

static const struct latency_col pct_cols[] = {
	{ "scenario", "scenario", "" }, { "p50", "p50", "us" }, { "p90", "p90", "us" },
	{ "p99", "p99", "us" }, { "p99.9", "p99.9", "us" }, { "p99.99", "p99.99", "us" },
	{ "overflows", "beyond 1 us buckets", "" },
};

static const struct latency_col alloc_cols[] = {
	{ "scenario", "scenario", "" }, { "mlock", "mlock", "" }, { "size", "size", "bytes" },
	{ "cycles", "cycles", "" }, { "alloc_avg", "mmap avg", "us" },
	{ "alloc_max", "mmap max", "us" }, { "touch_avg", "touch avg", "us" },
	{ "touch_max", "touch max", "us" }, { "alloc_faults", "faults in mmap per cycle", "" },
	{ "touch_faults", "faults in touch per cycle", "" },
};

#define NCOLS(c) (sizeof(c) / sizeof((c)[0]))

/*
 * The view "fresh-memory" of the scenarios that allocate every cycle
 * (load-fifo-alloc, -mlock, --alloc): where their time and page faults
 * went. Nothing when no scenario did. Returns 0 or -ENOMEM.
 */
static int alloc_view(json_t *scens, json_t *views)
{
	json_t *v = latency_view_new("fresh-memory", "Fresh memory every cycle: time and page "
				     "faults in mmap and in the first writes", alloc_cols,
				     NCOLS(alloc_cols));
	json_t *s;
	size_t i;
	int ret = 0;

	if (!v)
		return -ENOMEM;
	json_array_foreach(scens, i, s) {
		if (!json_is_number(json_object_get(s, "alloc_bytes")))
			continue;
		ret |= rt_result_view_add_row(v, json_pack(
			"[s, b, I, I, f, f, f, f, f, f]", rt_json_text(s, "name"),
			json_is_true(json_object_get(s, "mlock")),
			(json_int_t)pct_clamp(rt_json_num(s, "alloc_bytes")),
			(json_int_t)pct_clamp(rt_json_num(s, "alloc_cycles_count")),
			pct_clamp(rt_json_num(s, "alloc_avg_us")), pct_clamp(rt_json_num(s, "alloc_max_us")),
			pct_clamp(rt_json_num(s, "touch_avg_us")), pct_clamp(rt_json_num(s, "touch_max_us")),
			pct_clamp(rt_json_num(s, "alloc_faults_avg_count")),
			pct_clamp(rt_json_num(s, "touch_faults_avg_count"))));
	}
	if (!ret && rt_result_view_nrows(v))
		ret = json_array_append(views, v);
	json_decref(v);
	return ret ? -ENOMEM : 0;
}

/*
 * One percentile of extra.scenarios[].percentiles as a cell: its value,
 * its resolution when a bucket wider than 1 us gave it, "beyond N" above an
 * rtlab.result/1 histogram, and RT_HIST_FEW_MARK when it rests on too few
 * to mean much (fewer than 100 samples beyond it, rt_hist_needed()).
 */
static json_t *pct_cell(json_t *p)
{
	json_t *v = json_object_get(p, "value_us"), *r = json_object_get(p, "resolution_us");
	char buf[96];

	if (!json_is_number(v))
		return json_null();
	latency_pct_text(buf, sizeof(buf), json_number_value(v), json_is_number(r) ?
			 json_number_value(r) : 1, json_is_true(json_object_get(p, "above_bound")),
			 true);
	if (!json_is_true(json_object_get(p, "meaningful")))
		strncat(buf, " " RT_HIST_FEW_MARK, sizeof(buf) - strlen(buf) - 1);
	return json_string(buf);
}

/* The measuring threads' timer slack as read back; null in a document from before it. */
static json_t *slack_cell(json_t *s)
{
	json_t *v = json_object_get(s, "timer_slack_ns");

	return json_is_integer(v) ? json_integer((json_int_t)pct_clamp(rt_json_num(s,
						"timer_slack_ns"))) : json_null();
}

/* The policy a scenario ran under, flagged when the real-time one was refused. */
static void policy_text(json_t *s, char *buf, size_t size)
{
	const char *pol = rt_json_text(s, "policy");

	snprintf(buf, size, "%s%s", pol, strcmp(pol, rt_json_text(s, "policy_requested")) ?
		 " (RT refused)" : "");
}

/*
 * The latency lab's views: one row per scenario (all threads merged) and
 * one per measuring thread, the numbers cyclictest prints.
 */
static int lat_views(const struct rt_result *res, json_t *views, char **cause)
{
	json_t *scens = rt_result_scenarios(res), *s, *t;
	json_t *sv = latency_view_new("scenarios", "Scenarios (all threads merged)", scen_cols,
				      NCOLS(scen_cols));
	json_t *tv = latency_view_new("threads", "Threads (cyclictest's columns)", thread_cols,
				      NCOLS(thread_cols));
	json_t *pv = latency_view_new("percentiles", "Percentiles per scenario (a value with +- "
				      "comes from a bucket that wide)", pct_cols,
				      NCOLS(pct_cols));
	char p99[64], pol[64];
	size_t i, k, ntput = 0;
	int ret = 0;

	(void)cause;
	if (!sv || !tv || !pv) {
		ret = -ENOMEM;
		goto out;
	}
	json_array_foreach(scens, i, s) {
		if (latency_tput_is(s)) {
			ntput++;
			continue;	/* no latency: its own view */
		}
		p99_text(s, p99, sizeof(p99), true);
		policy_text(s, pol, sizeof(pol));
		ret |= rt_result_view_add_row(sv, json_pack(
			"[s, s, s, I, f, f, s, f, I, I, i, b, b, s, o, f]", rt_json_text(s, "name"),
			json_is_true(json_object_get(s, "interrupted")) ? "interrupted" :
			json_is_true(json_object_get(s, "skipped")) ? "ended early" : "complete",
			pol, (json_int_t)pct_clamp(rt_json_num(s, "samples_count")),
			pct_clamp(rt_json_num(s, "min_us")), pct_clamp(rt_json_num(s, "avg_us")), p99,
			pct_clamp(rt_json_num(s, "max_us")),
			(json_int_t)pct_clamp(rt_json_num(s, "dropped_count")),
			(json_int_t)pct_clamp(rt_json_num(s, "overruns_count")),
			(int)rt_json_num(s, "priority"), json_is_true(json_object_get(s, "mlock")),
			json_is_true(json_object_get(s, "pinned")), rt_json_text(s, "load"),
			slack_cell(s), pct_clamp(rt_json_num(s, "measured_s"))));
		t = json_object_get(s, "percentiles");
		ret |= rt_result_view_add_row(pv, json_pack(
			"[s, o, o, o, o, o, I]", rt_json_text(s, "name"),
			pct_cell(json_object_get(t, "p50")), pct_cell(json_object_get(t, "p90")),
			pct_cell(json_object_get(t, "p99")), pct_cell(json_object_get(t, "p99.9")),
			pct_cell(json_object_get(t, "p99.99")),
			(json_int_t)pct_clamp(rt_json_num(s, "overflow_count"))));
		json_array_foreach(json_object_get(s, "threads"), k, t) {
			p99_text(t, p99, sizeof(p99), true);
			ret |= rt_result_view_add_row(tv, json_pack(
				"[s, i, i, i, I, I, f, f, f, f, s]", rt_json_text(s, "name"),
				(int)rt_json_num(t, "index"), (int)rt_json_num(t, "tid"),
				(int)rt_json_num(s, "priority"),
				(json_int_t)pct_clamp(rt_json_num(t, "interval_us")),
				(json_int_t)pct_clamp(rt_json_num(t, "samples_count")),
				pct_clamp(rt_json_num(t, "min_us")), pct_clamp(rt_json_num(t, "last_us")),
				pct_clamp(rt_json_num(t, "avg_us")), pct_clamp(rt_json_num(t, "max_us")), p99));
		}
	}
	if (ret) {
		ret = -ENOMEM;
		goto out;
	}
	/* A run of throughput alone has no latency to show. */
	if ((rt_result_view_nrows(sv) || !ntput) &&
	    (json_array_append(views, sv) || json_array_append(views, pv) ||
	     json_array_append(views, tv)))
		ret = -ENOMEM;
	if (!ret)
		ret = alloc_view(scens, views);
	if (!ret)
		ret = latency_kside_view(scens, views);
	if (!ret)
		ret = latency_tput_view(scens, views);
out:
	json_decref(sv);
	json_decref(pv);
	json_decref(tv);
	return ret;
}

/*
 * The online CPUs (/sys/devices/system/cpu/online, "0-1"), else the ones
 * this process may run on. Not the affinity mask first: a run under
 * `taskset` may still pin its probe to any online CPU.
 */
static int online_cpus(cpu_set_t *set)
{
	static unsigned int cpus[LATENCY_MAX_CPUS];
	unsigned int n = 0;
	char *text = NULL;
	size_t len = 0;
	int ret;

	CPU_ZERO(set);
	ret = rt_file_read("/sys/devices/system/cpu/online", 4096, &text, &len);
	if (!ret) {
		while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
			text[--len] = '\0';
		ret = rt_parse_cpus("cpu/online", text, LATENCY_MAX_CPUS, cpus, LATENCY_MAX_CPUS,
				    &n, NULL);
		free(text);
	}
	if (!ret) {
		for (unsigned int i = 0; i < n; i++)
			CPU_SET(cpus[i], set);
		return 0;
	}
	return sched_getaffinity(0, sizeof(*set), set) ? -errno : 0;
}

static void lat_params_init(void *params)
{
	latency_params_init(params);
}

static int lat_params_check(void *params, char **cause)
{
	struct latency_params *p = params;
	cpu_set_t usable;
	int ret = latency_params_finish(p, cause);

	/* A CPU this process cannot use is a usage error now, not a failed run later. */
	if (!ret && p->ncpus && online_cpus(&usable) == 0)
		ret = latency_params_check_cpus(p, &usable, cause);
	return ret;
}

static bool lat_scenario(size_t i, struct lab_scenario *out)
{
	if (i >= latency_nscenarios)
		return false;
	out->name = latency_scenarios[i].name;
	out->summary = latency_scenarios[i].summary;
	return true;
}

/* ---- Declared keys ---------------------------------------------------------------- */

/*
 * Its document's own keys (lab_ops.params_keys, .scenario_keys): what every
 * kind of run writes is declared; a thread's and a
 * percentile's objects, and the figures of options, may hold more.
 */
static const struct rt_key latency_param = RT_KEY(NULL, RT_T_SCALAR | RT_T_ARRAY, NULL,
						      "a parameter of an option", false,
						      .items = RT_T_SCALAR);
static const struct rt_key latency_params_keys[] = {
	RT_RESULT_SEED_KEY,
	RT_KEY("scenarios", RT_T_ARRAY, NULL, "the scenarios run, in order", false,
	       .items = RT_T_STRING),
	RT_KEY("duration_s", RT_T_INTEGER, "s", "each scenario's duration", false),
	RT_KEY("interval_us", RT_T_INTEGER, "us", "the timer's period", false),
	RT_KEY("distance_us", RT_T_INTEGER, "us", "added to the period of each further thread",
	       false),
	RT_KEY("threads", RT_T_INTEGER, "count", "measuring threads", false),
	RT_KEY("cpus", RT_T_ARRAY, NULL, "the CPUs they are pinned to", false,
	       .items = RT_T_INTEGER),
	RT_KEY("clock", RT_T_STRING, NULL, "the clock slept on", false),
	RT_KEY("hist_max_us", RT_T_INTEGER, "us", "the histogram's linear bound", false),
	RT_KEY("spike_us", RT_T_INTEGER, "us", "a sample above this is a spike", false),
	RT_KEY("trace_marker_us", RT_T_INTEGER, "us", "a sample above this is marked in the trace",
	       false),
	RT_KEY("dma_latency", RT_T_BOOL, NULL, "/dev/cpu_dma_latency was held at 0", false),
	RT_KEY("interrupted", RT_T_BOOL, NULL, "the run was stopped", false),
	RT_KEY("preempt_model", RT_T_STRING, NULL, "the preemption model switched to (--preempt)",
	       false),
	RT_KEY_END,
};
static const struct rt_keys latency_params_table = { .keys = latency_params_keys,
						     .others = &latency_param };
static const struct rt_key latency_any = RT_KEY(NULL, 0, NULL, "a figure of an option", false);
static const struct rt_key latency_scenario_keys[] = {
	RT_RESULT_SCENARIO_NAME_KEYS,
	RT_KEY("kind", RT_T_STRING, NULL, "`latency` or a throughput workload", false),
	RT_KEY("load", RT_T_STRING, NULL, "the load beside the measurement", false),
	RT_KEY("policy", RT_T_STRING, NULL, "the scheduling policy measured", false),
	RT_KEY("priority", RT_T_INTEGER, NULL, "its priority", false),
	RT_KEY("samples_count", RT_T_INTEGER, "count", "wake-ups measured", false),
	RT_KEY("min_us", RT_T_NUMBER, "us", "smallest latency", false),
	RT_KEY("avg_us", RT_T_NUMBER, "us", "mean latency", false),
	RT_KEY("max_us", RT_T_NUMBER, "us", "worst latency", false),
	RT_KEY("p99_us", RT_T_NUMBER, "us", "99th percentile", false),
	RT_KEY("p99_resolution_us", RT_T_NUMBER, "us", "its resolution", false),
	RT_KEY("percentiles", RT_T_OBJECT, NULL, "each percentile with its resolution", false),
	RT_KEY("threads", RT_T_ARRAY, NULL, "each thread's figures", false),
	RT_KEY("overflow_count", RT_T_INTEGER, "count", "samples beyond the histogram", false),
	RT_KEY("overruns_count", RT_T_INTEGER, "count", "periods missed whole", false),
	RT_KEY("dropped_count", RT_T_INTEGER, "count", "samples lost on the way", false),
	RT_KEY("spikes_count", RT_T_INTEGER, "count", "samples above --spike", false),
	RT_KEY("interrupted", RT_T_BOOL, NULL, "the scenario was stopped", false),
	RT_KEY("skipped", RT_T_BOOL, NULL, "the scenario could not run here", false),
	RT_KEY("alloc_bytes", RT_T_INTEGER, "bytes", "fresh memory taken per cycle", false),
	RT_KEY("alloc_avg_us", RT_T_NUMBER, "us", "mean time to take it", false),
	RT_KEY("alloc_max_us", RT_T_NUMBER, "us", "worst time to take it", false),
	RT_KEY("touch_avg_us", RT_T_NUMBER, "us", "mean time to touch it", false),
	RT_KEY("touch_max_us", RT_T_NUMBER, "us", "worst time to touch it", false),
	RT_KEY("kside", RT_T_STRING, NULL, "what rtlab_inject did beside the probe (lesson 16)",
	       false),
	RT_KEY("inject_section_us", RT_T_INTEGER, "us", "each section's length", false),
	RT_KEY("inject_sections_count", RT_T_INTEGER, "count", "sections run", false),
	RT_KEY("inject_refused_count", RT_T_INTEGER, "count", "requests the module refused",
	       false),
	RT_KEY("irq_thread_priority", RT_T_INTEGER, NULL, "SCHED_FIFO priority of irq/N-rtlab_inject",
	       false),
	RT_KEY("irq_thread_delay_max_us", RT_T_NUMBER, "us",
	       "longest wait from the interrupt to its thread", false),
	RT_KEY("irq_thread_delay_avg_us", RT_T_NUMBER, "us", "mean wait", false),
	RT_KEY_END,
};
static const struct rt_keys latency_scenario_table = { .keys = latency_scenario_keys,
						       .others = &latency_any };

const struct lab_ops lab_latency = {
	.name = "latency",
	.title = "Timer and scheduling latency",
	.summary = "Measure wake-up latency like cyclictest, idle and under load, "
		   "with and without real-time tuning.",
	.lesson = 3,
	.state = LAB_STATE_READY,
	.issue = 4,
	.wants = LAB_NEED_RT_PRIO | LAB_NEED_PREEMPT_RT,
	.vm_live = true,
	.check_capabilities = lat_check_caps,
	.run = lat_run,
	.grade = latency_grade,
	.grade_lacks = latency_grade_lacks,
	.views = lat_views,
	.scenario = lat_scenario,
	.questions = latency_questions,
	.options = latency_options,
	.options_note = latency_options_note,
	.params_size = sizeof(struct latency_params),
	.params_init = lat_params_init,
	.params_check = lat_params_check,
	.params_keys = &latency_params_table,
	.scenario_keys = &latency_scenario_table,
};
