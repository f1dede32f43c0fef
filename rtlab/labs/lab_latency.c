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
 * an undo-journal entry; ctx->journal stays untouched.
 *
 * Interruption: when ctx->stop is set the probe and the load are stopped,
 * the scenario in progress is recorded with what it measured and
 * "interrupted": true, later scenarios are not run, and the document says
 * so in a note, in params.interrupted and in extra.interrupted. A screen
 * may instead end only the current scenario (latency_live_skip()): it is
 * recorded with "skipped": true and a note, and the run goes on.
 */
#include "lab_latency.h"

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
#include <time.h>
#include <unistd.h>

#include "core/rt_buf.h"
#include "core/rt_env.h"
#include "core/rt_err.h"
#include "core/rt_file.h"
#include "core/rt_hist.h"
#include "core/rt_load.h"
#include "core/rt_log.h"
#include "core/rt_probe.h"
#include "core/rt_progress.h"
#include "core/rt_result.h"
#include "core/rt_text.h"
#include "lesson/lesson_doc.h"
#include "lesson/lesson_index.h"

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

/* True when a screen asked to end scenario @index early (latency_live_skip()). */
static bool skip_requested(struct lab_ctx *ctx, unsigned int index)
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

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);	/* a signal ends it early, which is what we want */
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

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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
		}
	}
	if (m->hist_cap >= nb) {
		for (unsigned int i = 0; i < nb; i++)
			m->hist[i] = rt_hist_bucket(r->merged, i);
		m->snap.nbuckets = nb;
	}
	m->snap.overflow = rt_hist_overflow(r->merged);
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
			sleep_ms(POLL_MS);
	}
	if (lab_ctx_stopped(ctx)) {
		r->interrupted = true;
		goto out_load;
	}

	rt_probe_config_init(&cfg);
	cfg.nthreads = p->threads;
	cfg.policy = plan->policy;
	cfg.priority = plan->policy == SCHED_OTHER ? 0 : plan->priority;
	cfg.interval_us = p->interval_us;
	cfg.distance_us = p->distance_us;
	cfg.duration_ms = p->duration_ms;
	cfg.mlock = plan->mlock;
	cfg.spike_ns = (uint64_t)p->spike_us * 1000;
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

	t0 = now_s();
	c0 = cpu_now_s();
	while (!rt_probe_finished(probe)) {
		unsigned int pct;

		if (lab_ctx_stopped(ctx)) {
			r->interrupted = true;
			break;
		}
		if (skip_requested(ctx, index)) {
			r->skipped = true;
			break;
		}
		sleep_ms(POLL_MS);
		rt_probe_poll(probe, r->hist, &inner);
		for (unsigned int t = 0; t < r->nthreads; t++)
			rt_probe_stats(probe, t, &r->st[t]);
		pct = (unsigned int)fmin(100.0, (now_s() - t0) * 100000.0 / p->duration_ms);
		live_update(ctx, r, index, p->nplans, pct, true);
		if (pct / 10 != last_pct / 10 || last_pct == 101) {
			snprintf(what, sizeof(what), "%s: %s, %.1f s of %.1f s", plan->name,
				 latency_policy_name(r->policy), now_s() - t0,
				 p->duration_ms / 1000.0);
			rt_sink_progress(sink, pct, what);
			last_pct = pct;
		}
	}
	rt_probe_stop(probe);
	while (rt_probe_poll(probe, r->hist, &inner) > 0)
		;
	r->measured_s = now_s() - t0;
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

static int record_scenario(struct rt_result *res, json_t *scens, const struct latency_params *p,
			   struct scen_run *r)
{
	const struct latency_plan *pl = r->plan;
	const struct latency_scenario *sc = latency_scenario_find(pl->name);
	json_t *o, *threads;
	uint64_t drops = 0, overruns = 0, spikes = 0, markers = 0;
	int ret = -ENOMEM;

	o = json_object();
	threads = json_array();
	if (!o || !threads)
		goto out;
	for (unsigned int t = 0; t < r->nthreads; t++) {
		json_t *th = json_pack("{s:i, s:i, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f}",
				       "index", (int)t, "tid", r->st[t].tid, "cpu", r->cpu[t],
				       "interval_us", (json_int_t)r->st[t].interval_us,
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
	}
	if (json_object_set_new(o, "name", json_string(pl->name)) ||
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

/* Number @key of scenario @name in extra.scenarios, or NAN. */
static double scenario_num(json_t *scens, const char *name, const char *key)
{
	size_t i;
	json_t *s;

	json_array_foreach(scens, i, s)
		if (json_is_string(json_object_get(s, "name")) &&
		    !strcmp(json_string_value(json_object_get(s, "name")), name)) {
			json_t *v = json_object_get(s, key);

			return json_is_number(v) ? json_number_value(v) : NAN;
		}
	return NAN;
}

/*
 * Copy the learner's predictions for this lab (predict questions with
 * lab: latency in the lessons) and written answers from the progress file.
 */
static int copy_progress(struct lab_ctx *ctx, struct rt_result *res, json_t *extra,
			 json_t *scens)
{
	struct lesson_index *idx = NULL;
	struct rt_progress *prog = NULL;
	json_t *preds = json_array();
	char *cause = NULL;
	int ret = 0;

	if (!preds)
		return -ENOMEM;
	if (rt_progress_load(ctx->progress_path, &prog, &cause) < 0) {
		rt_log(RT_LOG_WARN, "latency: progress not read, predictions and answers not "
		       "copied: %s", cause ? cause : "unknown error");
		rt_result_add_note(res, "the progress file could not be read: predictions and "
				   "written answers were not copied");
		free(cause);
		cause = NULL;
		prog = NULL;
	}
	idx = lesson_index_load(&cause);
	if (!idx) {
		rt_result_add_note(res, "the lessons were not found: the predict questions "
				   "could not be listed");
		free(cause);
		cause = NULL;
	}
	for (size_t e = 0; idx && e < idx->count; e++) {
		const struct lesson_entry *le = &idx->entries[e];
		struct lesson_doc *doc = NULL;
		char lesson[8];

		if (le->glossary || !le->number)
			continue;
		if (lesson_doc_load(le->path, &doc, &cause)) {
			free(cause);
			cause = NULL;
			continue;
		}
		snprintf(lesson, sizeof(lesson), "%02u", le->number);
		for (size_t q = 0; q < doc->nquizzes; q++) {
			const struct quiz *qz = doc->quizzes[q];
			struct rt_progress_prediction pr;
			double measured;
			char key[RT_RESULT_MAX_KEY + 1];
			json_t *o;
			bool have;

			if (qz->kind != QUIZ_PREDICT || !qz->lab || strcmp(qz->lab, "latency"))
				continue;
			have = prog && rt_progress_prediction_get(prog, lesson, qz->id, &pr) == 0;
			snprintf(key, sizeof(key), "predict.%s.%s", lesson, qz->id);
			measured = scenario_num(scens, qz->scenario, qz->metric);
			o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "answer_key", key,
				      "lesson", lesson, "id", qz->id, "scenario", qz->scenario,
				      "metric", qz->metric, "unit", qz->unit ? qz->unit : "");
			if (!o || json_object_set_new(o, "predicted", have ? json_real(pr.value) :
						      json_null()) ||
			    json_object_set_new(o, "measured", isnan(measured) ? json_null() :
						json_real(measured)) ||
			    json_array_append_new(preds, o)) {
				ret = -ENOMEM;
				lesson_doc_free(doc);
				goto out;
			}
			if (have && rt_result_set_answer_num(res, key, pr.value))
				ret = -ENOMEM;
		}
		lesson_doc_free(doc);
	}
	for (const char *const *q = latency_questions; *q && !ret; q++) {
		json_t *a = prog ? json_object_get(json_object_get(json_object_get(
			json_object_get(rt_progress_json(prog), "labs"), "latency"), "answers"),
			*q) : NULL;
		const char *text = json_string_value(json_object_get(a, "text"));

		if (text && *text)
			ret = rt_result_set_answer_str(res, *q, text);
	}
	if (!ret && json_object_set_new(extra, "predictions", preds))
		ret = -ENOMEM;
	preds = NULL;
out:
	json_decref(preds);
	lesson_index_free(idx);
	rt_progress_free(prog);
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
	if (ctx->duration_ms)
		defaults->duration_ms = ctx->duration_ms;
	return defaults;
}

static int lat_check_caps(struct lab_ctx *ctx, char **cause)
{
	struct latency_params defaults;
	const struct latency_params *p = params_of(ctx, &defaults);

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
	ret = rt_result_set_param_json(res, "scenarios", names);
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

static int set_summary(struct rt_result *res, const struct rt_hist *all, uint64_t drops,
		       uint64_t overruns, unsigned int nscen)
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

static int lat_run(struct lab_ctx *ctx, const struct rt_sink *sink, struct lab_result *out)
{
	struct latency_params defaults;
	const struct latency_params *p = params_of(ctx, &defaults);
	struct rt_result *res = NULL;
	struct rt_hist *all = NULL;
	json_t *extra, *scens = NULL;
	uint64_t drops = 0, overruns = 0;
	unsigned int done = 0;
	int dma_fd = -1, trace_fd = -1, ret;
	int32_t dma_before = -1;
	char *cause = NULL;

	memset(out, 0, sizeof(*out));
	ret = lat_check_caps(ctx, &cause);
	if (ret) {
		rt_log(RT_LOG_ERR, "%s", cause);
		free(cause);
		return ret;
	}
	res = rt_result_new("latency", ctx->tier ? ctx->tier : "host", ctx->env);
	all = rt_hist_new(p->hist_max_us, 0);
	scens = json_array();
	if (!res || !all || !scens) {
		ret = -ENOMEM;
		goto out_free;
	}
	ret = set_params(res, p);
	if (ret)
		goto out_free;
	if (ctx->env && ctx->env->in_vm) {
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
				 r.plan->name, r.plan->policy == SCHED_RR ? "RR" : "FIFO",
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
	if (out->interrupted)
		rt_result_add_note(res, "interrupted (SIGINT, SIGTERM or SIGHUP): the document "
				   "holds what was measured until then");
	ret = rt_result_set_param_bool(res, "interrupted", out->interrupted);
	ret = ret ? ret : set_summary(res, all, drops, overruns, done);
	extra = rt_result_extra(res);
	if (!ret && !extra)
		ret = -ENOMEM;
	if (!ret)
		ret = copy_progress(ctx, res, extra, scens);
	if (!ret && (json_object_set(extra, "scenarios", scens) ||
		     json_object_set_new(extra, "interrupted", json_boolean(out->interrupted))))
		ret = -ENOMEM;
	if (ret)
		goto out_free;
	out->res = res;
	res = NULL;

out_free:
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

static int lat_describe(struct rt_buf *md)
{
	int ret = rt_buf_puts(md, "# Timer and scheduling latency\n\n"
			      "Measure how late a periodic thread wakes up, the way cyclictest "
			      "does, in named scenarios. Handout: labs/latency/README.md.\n\n"
			      "## Scenarios\n\n");

	for (size_t i = 0; !ret && i < latency_nscenarios; i++)
		ret = rt_buf_printf(md, "- `%s`: %s.\n", latency_scenarios[i].name,
				    latency_scenarios[i].summary);
	return ret;
}

static const char *jstr(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

static double jnum(json_t *o, const char *k)
{
	return json_number_value(json_object_get(o, k));
}

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

	latency_pct_text(buf, size, jnum(o, "p99_us"), json_is_number(res) ?
			 json_number_value(res) : 1,
			 json_is_true(json_object_get(o, "p99_above_bound")), compact);
}

static int lat_text(const struct lab_result *lr, struct rt_buf *out)
{
	json_t *doc = rt_result_json(lr->res);
	json_t *extra = json_object_get(doc, "extra");
	json_t *scens = json_object_get(extra, "scenarios"), *s, *t, *pr;
	char p99[64];
	size_t i, k;
	int ret = 0;

	json_array_foreach(scens, i, s) {
		const char *pol = jstr(s, "policy");

		ret |= rt_text_printf(out, "%s: %s%s prio %d, mlock %s, %s, load %s, %.1f s%s\n",
				     jstr(s, "name"), pol,
				     strcmp(pol, jstr(s, "policy_requested")) ? " (RT refused)" : "",
				     (int)jnum(s, "priority"),
				     json_is_true(json_object_get(s, "mlock")) ? "yes" : "no",
				     json_is_true(json_object_get(s, "pinned")) ? "pinned" :
				     "not pinned", jstr(s, "load"), jnum(s, "measured_s"),
				     json_is_true(json_object_get(s, "interrupted")) ?
				     ", interrupted" : "");
		json_array_foreach(json_object_get(s, "threads"), k, t) {
			p99_text(t, p99, sizeof(p99), true);
			ret |= rt_text_printf(out, "T:%2d (%5d) P:%2d I:%lld C:%7lld Min:%7.0f "
					     "Act:%5.0f Avg:%5.0f Max:%8.0f p99:%s\n",
					     (int)jnum(t, "index"), (int)jnum(t, "tid"),
					     (int)jnum(s, "priority"),
					     (long long)jnum(t, "interval_us"),
					     (long long)jnum(t, "samples_count"), jnum(t, "min_us"),
					     jnum(t, "last_us"), jnum(t, "avg_us"), jnum(t, "max_us"),
					     p99);
		}
		p99_text(s, p99, sizeof(p99), false);
		ret |= rt_text_printf(out, "  all threads: samples %lld, min %.2f us, avg %.2f us, "
				     "p99 %s, max %.2f us, dropped %lld, overruns %lld\n\n",
				     (long long)jnum(s, "samples_count"), jnum(s, "min_us"),
				     jnum(s, "avg_us"), p99, jnum(s, "max_us"),
				     (long long)jnum(s, "dropped_count"),
				     (long long)jnum(s, "overruns_count"));
	}
	json_array_foreach(json_object_get(extra, "predictions"), i, pr) {
		json_t *pv = json_object_get(pr, "predicted"), *mv = json_object_get(pr, "measured");

		if (i == 0)
			ret |= rt_buf_puts(out, "Predictions (from the lessons) vs measurement:\n");
		ret |= rt_text_printf(out, "  lesson %s %s: %s %s: ", jstr(pr, "lesson"),
				     jstr(pr, "id"), jstr(pr, "scenario"), jstr(pr, "metric"));
		if (json_is_number(pv))
			ret |= rt_text_printf(out, "predicted %g %s", json_number_value(pv),
					     jstr(pr, "unit"));
		else
			ret |= rt_buf_puts(out, "no prediction recorded");
		if (json_is_number(mv))
			ret |= rt_text_printf(out, ", measured %g %s\n", json_number_value(mv),
					     jstr(pr, "unit"));
		else
			ret |= rt_buf_puts(out, ", scenario not run\n");
	}
	json_array_foreach(json_object_get(doc, "notes"), i, t) {
		if (i == 0)
			ret |= rt_buf_puts(out, "\n");
		ret |= rt_text_printf(out, "note: %s\n", json_string_value(t));
	}
	return ret ? -ENOMEM : 0;
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
		ret = latency_parse_cpus(text, cpus, LATENCY_MAX_CPUS, &n);
		free(text);
	}
	if (!ret) {
		for (unsigned int i = 0; i < n; i++)
			CPU_SET(cpus[i], set);
		return 0;
	}
	return sched_getaffinity(0, sizeof(*set), set) ? -errno : 0;
}

static int lat_parse_params(int argc, char **argv, void **params, char **cause)
{
	struct latency_params *p = malloc(sizeof(*p));
	cpu_set_t usable;
	int ret;

	*params = NULL;
	if (!p)
		return rt_err(cause, -ENOMEM, "out of memory");
	ret = latency_params_parse(argc, argv, p, cause);
	/* A CPU this process cannot use is a usage error now, not a failed run later. */
	if (!ret && p->ncpus && online_cpus(&usable) == 0)
		ret = latency_params_check_cpus(p, &usable, cause);
	if (ret) {
		free(p);
		return ret;
	}
	*params = p;
	return 0;
}

static void lat_free_params(void *params)
{
	free(params);
}

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
	.describe = lat_describe,
	.check_capabilities = lat_check_caps,
	.run = lat_run,
	.grade = latency_grade,
	.parse_params = lat_parse_params,
	.free_params = lat_free_params,
	.text = lat_text,
	.questions = latency_questions,
};
