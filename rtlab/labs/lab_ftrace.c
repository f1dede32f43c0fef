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
 * instance during the run) and rtla timerlat hist (briefly, after the run)
 * and records agreement or the exact reason they could not run; it never
 * fails the lab.
 *
 * Host changes: the instances are created through the undo journal and
 * removed at the end; top-level tracer knobs go through trace_ctl, which
 * journals them and puts them back. Stale rtlab instances of killed runs
 * are swept at the start.
 */
#include "lab_ftrace.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "core/rt_buf.h"
#include "core/rt_child.h"
#include "core/rt_env.h"
#include "core/rt_err.h"
#include "core/rt_file.h"
#include "core/rt_hist.h"
#include "core/rt_journal.h"
#include "core/rt_log.h"
#include "core/rt_probe.h"
#include "core/rt_progress.h"
#include "core/rt_result.h"
#include "core/rt_text.h"
#include "core/rt_which.h"
#include "trace/trace_ctl.h"
#include "trace/trace_events.h"
#include "trace/trace_hog.h"
#include "trace/trace_latency.h"

#define POLL_MS 100u
#define HIST_US 10000u			/* both histograms: 1 us buckets up to 10 ms */
#define TID_WAIT_MS 1000u
#define RTLA_DURATION_S 2u
#define XC_TIMEOUT_MS 15000u
#define HOG_PRIO_ABOVE 5		/* the user-space hog runs this far above the probe */

const char *const ftrace_questions[] = { "cause", "function", "tracer", NULL };

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double us(double ns)
{
	return round(ns / 10.0) / 100.0;
}

static const struct ftrace_params *params_of(const struct lab_ctx *ctx,
					     struct ftrace_params *defaults)
{
	if (ctx->params)
		return ctx->params;
	ftrace_params_init(defaults);
	if (ctx->duration_ms)
		defaults->duration_ms = ctx->duration_ms;
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

/* ---- Child processes of the cross-check ------------------------------------------------ */

/* Start @argv with stdout to @out and stderr to @err (files, created); NULL with errno set. */
static struct rt_child *xc_spawn(char *const argv[], const char *out, const char *err)
{
	struct rt_child_opts o = { .argv = argv, .in = RT_CHILD_NULL, .out = RT_CHILD_FILE,
				   .out_path = out, .err = RT_CHILD_FILE, .err_path = err };

	return rt_child_start(&o, NULL);
}

/* Wait for @c at most @timeout_ms, then kill its group; its exit status, or -1. Frees @c. */
static int xc_wait(struct rt_child *c, unsigned int timeout_ms)
{
	struct rt_child_result res;
	int status = -1;

	if (rt_child_wait(c, timeout_ms, &res) == 0 && res.end == RT_CHILD_EXITED)
		status = res.code;
	rt_child_result_fini(&res);
	rt_child_free(c);
	return status;
}

/* The first line of @path (at most 200 bytes), or "" ; the caller frees. */
static char *first_line(const char *path)
{
	char *text = NULL, *nl;

	if (rt_file_read(path, 1 << 16, &text, NULL))
		return strdup("");
	nl = strchr(text, '\n');
	while (nl && nl == text) {	/* skip leading empty lines */
		memmove(text, text + 1, strlen(text));
		nl = strchr(text, '\n');
	}
	if (nl)
		*nl = '\0';
	if (strlen(text) > 200)
		text[200] = '\0';
	return text;
}

struct xc_tc {
	bool tried;
	char *reason;			/* owned: why it gave nothing, or NULL */
	struct rt_child *child;		/* the recorder, while it runs */
	char inst[64];
	bool inst_made;
	char dir[64];			/* temp dir for its files */
	char dat[96], out[96], err[96];
};

static void xc_tc_set_reason(struct xc_tc *x, const char *fmt, const char *arg)
{
	free(x->reason);
	if (asprintf(&x->reason, fmt, arg) < 0)
		x->reason = NULL;
}

/*
 * Wait (at most XC_TIMEOUT_MS) until trace-cmd has switched its events on, so
 * that both recordings cover the same wake-ups: under emulation it needs
 * seconds to start, and the count ratio would only measure that.
 */
static void xc_tc_wait_ready(struct xc_tc *x)
{
	struct tracefs_instance *ti = tracefs_instance_alloc(NULL, x->inst);

	for (unsigned int waited = 0; ti && waited < XC_TIMEOUT_MS; waited += 20) {
		char *on = tracefs_instance_file_read(ti, "events/sched/sched_switch/enable", NULL);
		bool ready = on && on[0] == '1';

		free(on);
		if (ready)
			break;
		if (rt_child_wait(x->child, 0, NULL) == 0) {
			/* It ended before recording anything: its first complaint is the reason. */
			char *line = first_line(x->err);

			xc_tc_set_reason(x, "trace-cmd record failed: %s", *line ? line :
					 "it exited before recording");
			free(line);
			rt_child_free(x->child);
			x->child = NULL;
			break;
		}
		sleep_ms(20);
	}
	tracefs_instance_free(ti);
}

/* Start `trace-cmd record` on the two events of @tid in its own instance. */
static void xc_tc_start(struct xc_tc *x, struct rt_journal *j, pid_t tid)
{
	char *path = rt_which("trace-cmd"), *cause = NULL;
	char f1[48], f2[80];

	memset(x, 0, sizeof(*x));
	x->tried = true;
	if (!path) {
		xc_tc_set_reason(x, "%s", "trace-cmd is not installed (Debian package trace-cmd)");
		return;
	}
	free(path);
	snprintf(x->dir, sizeof(x->dir), "/tmp/rtlab-ftrace-xc-XXXXXX");
	if (!mkdtemp(x->dir)) {
		xc_tc_set_reason(x, "no temporary directory for trace-cmd: %s", strerror(errno));
		return;
	}
	snprintf(x->dat, sizeof(x->dat), "%s/trace.dat", x->dir);
	snprintf(x->out, sizeof(x->out), "%s/out", x->dir);
	snprintf(x->err, sizeof(x->err), "%s/err", x->dir);
	/* Ours through the journal, so a killed run's copy is removed like the others. */
	snprintf(x->inst, sizeof(x->inst), "rtlab-ftracexc-%d", (int)getpid());
	if (rt_journal_create_instance(j, x->inst, &cause)) {
		xc_tc_set_reason(x, "cannot create an instance for trace-cmd: %s",
				 cause ? cause : "unknown error");
		free(cause);
		return;
	}
	x->inst_made = true;
	snprintf(f1, sizeof(f1), "pid==%d", (int)tid);
	snprintf(f2, sizeof(f2), "next_pid==%d || prev_pid==%d", (int)tid, (int)tid);
	{
		char *argv[] = { "trace-cmd", "record", "-q", "-B", x->inst, "-C", "mono",
				 "-e", "sched:sched_waking", "-f", f1, "-e",
				 "sched:sched_switch", "-f", f2, "-o", x->dat, NULL };

		x->child = xc_spawn(argv, x->out, x->err);
	}
	if (!x->child) {
		xc_tc_set_reason(x, "cannot start trace-cmd: %s", strerror(errno));
		return;
	}
	xc_tc_wait_ready(x);
}

static void xc_rm_dir(const char *dir)
{
	const char *names[] = { "trace.dat", "out", "err", "report", "rerr", "rtla", "rtla.err" };
	char p[160];

	if (!dir[0])
		return;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		unlink(p);
	}
	/* trace-cmd leaves per-CPU temp files next to the output while it records. */
	for (int cpu = 0; cpu < 1024; cpu++) {
		snprintf(p, sizeof(p), "%s/trace.dat.cpu%d", dir, cpu);
		if (unlink(p) && errno == ENOENT && cpu > 64)
			break;
	}
	rmdir(dir);
}

/* Stop the recorder, read its report into a matcher, remove the instance and files. */
static void xc_tc_finish(struct xc_tc *x, pid_t tid, struct trace_wake_stats *st,
			 struct trace_wake_calc **calcp)
{
	struct tracefs_instance *ti;
	int status;

	if (x->child) {
		rt_child_signal(x->child, SIGINT);
		status = xc_wait(x->child, XC_TIMEOUT_MS);
		x->child = NULL;
		if (status != 0) {
			char *line = first_line(x->err);

			xc_tc_set_reason(x, "trace-cmd record failed: %s", *line ? line :
					 "no message (killed or exit status non-zero)");
			free(line);
		} else {
			char rep[96], rerr[96], *text = NULL;
			char *argv[] = { "trace-cmd", "report", "-i", x->dat, NULL };
			struct rt_child *child;

			snprintf(rep, sizeof(rep), "%s/report", x->dir);
			snprintf(rerr, sizeof(rerr), "%s/rerr", x->dir);
			child = xc_spawn(argv, rep, rerr);
			status = child ? xc_wait(child, XC_TIMEOUT_MS) : -1;
			if (status != 0 || rt_file_read(rep, 256u << 20, &text, NULL)) {
				xc_tc_set_reason(x, "%s", "trace-cmd report failed on the recording");
			} else {
				*calcp = trace_wake_calc_new(&tid, 1, HIST_US);
				if (*calcp) {
					ftrace_tc_report_feed(text, *calcp);
					trace_wake_calc_stats(*calcp, st);
				}
			}
			free(text);
		}
	}
	if (x->inst_made) {
		ti = tracefs_instance_alloc(NULL, x->inst);
		if (ti && tracefs_instance_exists(x->inst))
			tracefs_instance_destroy(ti);
		tracefs_instance_free(ti);
		x->inst_made = false;
	}
	xc_rm_dir(x->dir);
	x->dir[0] = '\0';
}

/* rtla timerlat hist for a moment on @cpu, after the run. Fills @o. */
static int xc_rtla(json_t *o, int cpu, const char *tmpdir_hint)
{
	struct trace_tracer_info info[TRACE_CTL_NTRACERS];
	struct ftrace_rtla_stats st;
	char *path = rt_which("rtla"), dir[64], out[96], err[96], dur[16], cpus[16];
	char *text = NULL, *reason = NULL;
	bool timerlat = false;
	struct rt_child *child;
	int status, ret = 0;

	(void)tmpdir_hint;
	dir[0] = '\0';
	if (!path) {
		reason = strdup("rtla is not installed (Debian package rtla)");
		goto out;
	}
	free(path);
	if (trace_ctl_probe_tracers(info, NULL, NULL) == 0)
		for (size_t i = 0; i < TRACE_CTL_NTRACERS; i++)
			if (!strcmp(info[i].name, "timerlat"))
				timerlat = info[i].present;
	if (!timerlat) {
		reason = strdup("rtla timerlat needs the timerlat tracer (CONFIG_TIMERLAT_TRACER), "
				"which this kernel lacks; the bundled rt and lab kernels have it "
				"(classroom VM)");
		goto out;
	}
	snprintf(dir, sizeof(dir), "/tmp/rtlab-ftrace-rtla-XXXXXX");
	if (!mkdtemp(dir)) {
		dir[0] = '\0';
		reason = strdup("no temporary directory for rtla");
		goto out;
	}
	snprintf(out, sizeof(out), "%s/rtla", dir);
	snprintf(err, sizeof(err), "%s/rtla.err", dir);
	snprintf(dur, sizeof(dur), "%us", RTLA_DURATION_S);
	snprintf(cpus, sizeof(cpus), "%d", cpu);
	{
		char *argv[] = { "rtla", "timerlat", "hist", "-d", dur, "-c", cpus, NULL };

		child = xc_spawn(argv, out, err);
	}
	status = child ? xc_wait(child, XC_TIMEOUT_MS) : -1;
	if (status != 0) {
		char *line = first_line(err);

		if (asprintf(&reason, "rtla timerlat hist failed: %s", *line ? line :
			     "killed or exit status non-zero") < 0)
			reason = NULL;
		free(line);
		goto out;
	}
	if (rt_file_read(out, 1 << 20, &text, NULL) || ftrace_rtla_parse(text, &st)) {
		reason = strdup("rtla timerlat hist printed no summary rtlab could read");
		goto out;
	}
	ret = json_object_set_new(o, "ran", json_true()) ||
	      json_object_set_new(o, "duration_s", json_integer(RTLA_DURATION_S)) ||
	      json_object_set_new(o, "thread_count", json_integer((json_int_t)st.count)) ||
	      json_object_set_new(o, "thread_avg_us", json_real(st.avg_us)) ||
	      json_object_set_new(o, "thread_max_us", json_integer((json_int_t)st.max_us)) ? -ENOMEM
											       : 0;
out:
	if (reason)
		ret = json_object_set_new(o, "ran", json_false()) ||
		      json_object_set_new(o, "reason", json_string(reason)) ? -ENOMEM : 0;
	free(reason);
	free(text);
	if (dir[0]) {
		unlink(out);
		unlink(err);
		rmdir(dir);
	}
	return ret;
}

/* ---- The module injector thread ------------------------------------------------------- */

struct inj_thread {
	pthread_t th;
	bool started;
	volatile int stop;
	int cpu;
	char path[128];
	unsigned int burst_us, period_us;
	struct trace_ctl *ctl;		/* borrowed: tracer mode's tracer, else NULL */
	uint64_t done, refused;
	int last_err;
};

/* One section: the module runs it inside the write. */
static void inj_plant(struct inj_thread *t, const char *val, size_t len)
{
	int fd = open(t->path, O_WRONLY | O_CLOEXEC);

	if (fd >= 0 && write(fd, val, len) == (ssize_t)len) {
		t->done++;
	} else {
		t->refused++;
		t->last_err = errno;
	}
	if (fd >= 0)
		close(fd);
}

static void *inj_main(void *arg)
{
	struct inj_thread *t = arg;
	cpu_set_t set;
	char val[16];
	int len = snprintf(val, sizeof(val), "%u", t->burst_us);

	/* On the probe's CPU, so the section delays it; our thread, gone with the run. */
	CPU_ZERO(&set);
	CPU_SET(t->cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	while (!t->stop) {
		inj_plant(t, val, (size_t)len);
		for (unsigned int w = 0; w < t->period_us / 1000 && !t->stop; w += 10)
			sleep_ms(10);
	}
	/*
	 * Tracer mode: one more section, and the tracer stops as soon as it is
	 * over (the run's thread waits in pthread_join meanwhile), so the traced
	 * time ends on a planted section rather than on up to a period of
	 * whatever else ran. Under emulation that can be a host stall of a vCPU
	 * with its interrupts off, milliseconds long, which would otherwise fill
	 * a thresholded trace.
	 */
	if (t->ctl) {
		inj_plant(t, val, (size_t)len);
		trace_ctl_stop(t->ctl, NULL);
	}
	return NULL;
}

/* ---- The busy companion ------------------------------------------------------------- */

/*
 * A SCHED_OTHER, nice 19 busy loop pinned to the probe's CPU. On the host
 * these machines run, a switch from the idle task to the probe is not
 * recorded by sched_switch, so a probe woken on an idle CPU gives a waking
 * with no switch-in; with this companion every wake-up is a preemption of
 * it, which is recorded. The FIFO probe preempts it at once; a SCHED_OTHER
 * probe shares the CPU with it (the document says which). It dies with us.
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

/* ---- Recording helpers ---------------------------------------------------------------- */

struct dist {
	uint64_t count;
	double min_us, avg_us, max_us;
	double p50_us, p90_us, p99_us;
	double p99_resolution_us;	/* width of the bucket p99 came from */
};

static void dist_of(const struct rt_hist *h, struct dist *d)
{
	struct rt_hist_summary s;
	struct rt_hist_pct pc;

	memset(d, 0, sizeof(*d));
	rt_hist_summarize(h, &s);
	d->count = s.count;
	d->min_us = us((double)s.min_ns);
	d->avg_us = us(s.avg_ns);
	d->max_us = us((double)s.max_ns);
	if (rt_hist_percentile(h, RT_HIST_P50, &pc) == 0)
		d->p50_us = (double)pc.value_us;
	if (rt_hist_percentile(h, RT_HIST_P90, &pc) == 0)
		d->p90_us = (double)pc.value_us;
	if (rt_hist_percentile(h, RT_HIST_P99, &pc) == 0) {
		d->p99_us = (double)pc.value_us;
		d->p99_resolution_us = (double)pc.resolution_us;
	}
}

static json_t *dist_json(const struct dist *d)
{
	return json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "count",
			 (json_int_t)d->count, "min_us", d->min_us, "avg_us", d->avg_us, "max_us",
			 d->max_us, "p50_us", d->p50_us, "p90_us", d->p90_us, "p99_us", d->p99_us,
			 "p99_resolution_us", d->p99_resolution_us);
}


static json_t *pair(double probe, double events)
{
	return json_pack("{s:f, s:f, s:f}", "probe_us", probe, "events_us", events, "diff_us",
			 round((probe - events) * 100) / 100);
}

/* extra.agreement: how the two views of the same wake-ups compare. */
static json_t *agreement_json(const struct dist *p, const struct dist *e)
{
	double ratio = p->count ? (double)e->count / (double)p->count : 0;
	bool below = e->p50_us <= p->p50_us + 1;
	char verdict[256];

	snprintf(verdict, sizeof(verdict), "%s: the events matched %.1f %% of the probe's "
		 "wake-ups and their median is %s the probe's (%.0f vs %.0f us)",
		 ratio >= 0.9 && ratio <= 1.1 && below ? "agree" : "disagree", ratio * 100,
		 below ? "at or below" : "above", e->p50_us, p->p50_us);
	return json_pack("{s:s, s:f, s:o, s:o, s:o, s:o, s:b, s:s}", "method",
			 "distribution: the same thread's wake-ups seen from the probe "
			 "(planned time to clock read) and from sched_waking to sched_switch",
			 "count_ratio", round(ratio * 1000) / 1000, "p50", pair(p->p50_us, e->p50_us), "p90",
			 pair(p->p90_us, e->p90_us), "p99", pair(p->p99_us, e->p99_us), "max",
			 pair(p->max_us, e->max_us), "events_median_at_or_below_probe", below,
			 "verdict", verdict);
}

static json_t *tracer_json(const struct trace_latency *t, const char *tracer, bool top,
			   const struct ftrace_params *p, unsigned long long max_lat, bool have_max)
{
	json_t *o = json_object(), *lines = json_array();
	size_t n = t && t->nentries < FTRACE_MAX_TRACE_LINES ? t->nentries : FTRACE_MAX_TRACE_LINES;

	if (!o || !lines)
		goto out_nomem;
	for (size_t i = 0; t && i < n; i++) {
		const struct trace_lat_entry *e = &t->entries[i];
		json_t *l = json_pack("{s:i, s:s, s:i, s:i, s:s, s:b, s:b, s:s, s:i, s:f, s:s#, "
				      "s:s, s:s, s:s}", "line", (int)e->line, "comm",
				      e->comm ? e->comm : "", "pid", e->pid, "cpu", e->cpu, "flags",
				      e->flags.raw, "irqs_off", e->flags.irqs_off, "need_resched",
				      e->flags.need_resched, "context",
				      trace_lat_ctx_name(e->flags.ctx), "preempt_depth",
				      e->flags.preempt_depth, "time_us", us((double)e->time_ns),
				      "mark", &e->mark, e->mark ? 1 : 0, "function",
				      e->function ? e->function : "", "caller",
				      e->caller ? e->caller : "", "text", e->text ? e->text : "");

		if (!l || json_array_append_new(lines, l))
			goto out_nomem;
	}
	if (json_object_set_new(o, "name", json_string(tracer)) ||
	    json_object_set_new(o, "top_level", json_boolean(top)) ||
	    json_object_set_new(o, "function_trace", json_boolean(p->function_trace)) ||
	    json_object_set_new(o, "threshold_us", json_integer(p->threshold_us)) ||
	    json_object_set_new(o, "max_latency_us", have_max ? json_integer((json_int_t)max_lat) :
				json_null()) ||
	    json_object_set_new(o, "parsed", json_boolean(t != NULL)))
		goto out_nomem;
	if (t && (json_object_set_new(o, "latency_us", t->have_latency ?
				      json_integer((json_int_t)t->latency_us) : json_null()) ||
		  json_object_set_new(o, "task", t->have_task ?
				      json_pack("{s:s, s:i, s:i}", "comm", t->task_comm ?
						t->task_comm : "", "pid", t->task_pid, "rt_prio",
						t->task_rt_prio) : json_null()) ||
		  json_object_set_new(o, "started_at", t->started_at ?
				      json_string(t->started_at) : json_null()) ||
		  json_object_set_new(o, "ended_at", t->ended_at ? json_string(t->ended_at) :
				      json_null()) ||
		  json_object_set_new(o, "entries_count", json_integer((json_int_t)t->nentries)) ||
		  json_object_set_new(o, "problems_count",
				      json_integer((json_int_t)t->nproblems_total))))
		goto out_nomem;
	if (json_object_set_new(o, "lines", lines))
		goto out_nomem_o;
	return o;

out_nomem:
	json_decref(lines);
out_nomem_o:
	json_decref(o);
	return NULL;
}

/* Written diagnoses from the progress file into "answers". */
static void copy_answers(struct lab_ctx *ctx, struct rt_result *res)
{
	for (const char *const *q = ftrace_questions; *q; q++) {
		char *text = NULL, *cause = NULL;
		int ret = lab_answer_get(ctx->progress_path, "ftrace", *q, &text, &cause);

		if (ret == 0 && text && *text)
			rt_result_set_answer_str(res, *q, text);
		else if (ret && ret != -ENOENT)
			rt_log(RT_LOG_WARN, "ftrace: answer %s not read: %s", *q,
			       cause ? cause : strerror(-ret));
		free(text);
		free(cause);
	}
}

/* ---- The run -------------------------------------------------------------------------- */

struct ft_run {
	const struct ftrace_params *p;
	struct rt_result *res;			/* owned until handed over */
	struct rt_probe *probe;
	struct rt_hist *phist;			/* probe samples */
	struct trace_events *ev;
	struct trace_ctl *ctl;
	struct trace_hog *hog;
	struct inj_thread inj;
	struct xc_tc tc;
	struct ftrace_hunt_truth truth;
	enum ftrace_injector injector;
	uint64_t seed;
	char tracer[FTRACE_TRACER_MAX];
	int cpu;
	int policy, prio;
	char *rt_refused;			/* owned */
	pid_t tid;
	struct rt_child *busy;			/* owned: the busy companion, or NULL */
	bool interrupted;
	double measured_s;
	json_t *extra_hunt;			/* owned */
};

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
		sleep_ms(5);
	}
	return rt_err(cause, -ETIMEDOUT, "the probe thread did not start within %u ms",
		      TID_WAIT_MS);
}

static int start_hunt(struct ft_run *r, char **cause)
{
	char probe_path[160];

	snprintf(probe_path, sizeof(probe_path), "%s/irqsoff_us", FTRACE_INJECT_DIR);
	r->injector = access(probe_path, W_OK) == 0 ? FTRACE_INJ_MODULE : FTRACE_INJ_USER;
	ftrace_hunt_pick(r->seed, r->injector, &r->truth);
	if (r->injector == FTRACE_INJ_MODULE) {
		struct inj_thread *t = &r->inj;

		t->cpu = r->cpu;
		t->burst_us = r->truth.burst_us;
		t->period_us = r->truth.period_us;
		t->ctl = r->ctl;
		snprintf(t->path, sizeof(t->path), "%s/%s", FTRACE_INJECT_DIR,
			 r->truth.inject_file);
		if (pthread_create(&t->th, NULL, inj_main, t))
			return rt_err(cause, -EAGAIN, "cannot start the injector thread");
		t->started = true;
		return 0;
	}
	{
		struct trace_hog_params hp = {
			.kind = (enum trace_hog_kind)r->truth.hog_kind,
			.cpu = r->cpu,
			.prio = (r->policy == SCHED_OTHER ? 1 : r->prio) + HOG_PRIO_ABOVE,
			.burst_us = r->truth.burst_us,
			.period_us = r->truth.period_us,
		};

		r->hog = trace_hog_start(&hp, cause);
		if (!r->hog)
			return errno ? -errno : -EIO;
	}
	return 0;
}

static void stop_hunt(struct ft_run *r)
{
	struct trace_hog_stats hs;
	uint64_t planted = 0, refused = 0;

	if (r->inj.started) {
		r->inj.stop = 1;
		pthread_join(r->inj.th, NULL);
		r->inj.started = false;
		planted = r->inj.done;
		refused = r->inj.refused;
	}
	if (r->hog) {
		trace_hog_stop(r->hog, &hs);
		r->hog = NULL;
		planted = hs.events;
	}
	if (!r->p->hunt)
		return;
	{
		char sum[24];
		json_t *tr = json_array();

		for (const char *const *t = r->truth.tracers; tr && t && *t; t++)
			json_array_append_new(tr, json_string(*t));
		ftrace_hunt_checksum(r->seed, &r->truth, sum, sizeof(sum));
		json_decref(r->extra_hunt);
		r->extra_hunt = json_pack("{s:s, s:s, s:i, s:i, s:I, s:I, s:{s:s, s:s, s:o}, s:s, "
					  "s:s}", "seed", "", "injector",
					  ftrace_injector_name(r->injector), "burst_us",
					  (int)r->truth.burst_us, "period_us",
					  (int)r->truth.period_us, "planted_count",
					  (json_int_t)planted, "refused_count", (json_int_t)refused,
					  "truth", "kind", r->truth.kind, "function",
					  r->truth.function, "tracers", tr ? tr : json_array(),
					  "checksum", sum, "note",
					  "the hidden cause: `rtlab lab report` does not print it. "
					  "Reading it here spoils the hunt (honour system)");
		if (r->extra_hunt) {
			char seed[24];

			snprintf(seed, sizeof(seed), "%llu", (unsigned long long)r->seed);
			json_object_set_new(r->extra_hunt, "seed", json_string(seed));
		}
	}
}

static void run_cleanup(struct ft_run *r)
{
	stop_hunt(r);
	if (r->tc.child || r->tc.inst_made || r->tc.dir[0]) {
		struct trace_wake_stats st;
		struct trace_wake_calc *c = NULL;

		xc_tc_finish(&r->tc, r->tid, &st, &c);
		trace_wake_calc_free(c);
	}
	rt_probe_free(r->probe);
	r->probe = NULL;
	busy_stop(r->busy);
	r->busy = 0;
	trace_events_destroy(r->ev);
	r->ev = NULL;
	trace_ctl_destroy(r->ctl);
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
	char seed[24];
	int ret;

	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)r->seed);
	ret = rt_result_set_param_str(res, "mode", p->mode == FTRACE_MODE_TRACER ? "tracer" :
				      "events");
	ret = ret ? ret : rt_result_set_param_str(res, "tracer", r->tracer[0] ? r->tracer :
						  "none");
	ret = ret ? ret : rt_result_set_param_num(res, "threshold_us", p->threshold_us);
	ret = ret ? ret : rt_result_set_param_bool(res, "function_trace", p->function_trace);
	ret = ret ? ret : rt_result_set_param_bool(res, "hunt", p->hunt);
	ret = ret ? ret : rt_result_set_param_str(res, "seed", p->hunt ? seed : "none");
	ret = ret ? ret : rt_result_set_param_num(res, "duration_s", p->duration_ms / 1000.0);
	ret = ret ? ret : rt_result_set_param_num(res, "interval_us", FTRACE_INTERVAL_US);
	ret = ret ? ret : rt_result_set_param_bool(res, "cross_check", p->cross_check);
	ret = ret ? ret : rt_result_set_param_bool(res, "busy_cpu", p->busy);
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
	if (r->p->hunt && (ret = start_hunt(r, cause)))
		return ret;
	hists[0] = r->phist;
	t0 = now_s();
	while (now_s() - t0 < r->p->duration_ms / 1000.0) {
		unsigned int pct;
		char what[96];

		if (lab_ctx_stopped(ctx)) {
			r->interrupted = true;
			break;
		}
		sleep_ms(POLL_MS);
		rt_probe_poll(r->probe, hists, sink);
		ret = trace_events_poll(r->ev, cause);
		if (ret < 0)
			return ret;
		pct = (unsigned int)fmin(100, (now_s() - t0) * 100000.0 / r->p->duration_ms);
		if (pct / 20 != last_pct / 20 || last_pct == 101) {
			snprintf(what, sizeof(what), "ftrace: %s, %.1f s of %.1f s%s",
				 r->p->mode == FTRACE_MODE_TRACER ? r->tracer : "events",
				 now_s() - t0, r->p->duration_ms / 1000.0,
				 r->p->hunt ? ", a cause is planted" : "");
			rt_sink_progress(sink, pct, what);
			last_pct = pct;
		}
		live_update(ctx, r, FTRACE_LIVE_MEASURING, pct, now_s() - t0);
	}
	/* With the module, its thread plants a last section and stops the tracer itself. */
	stop_hunt(r);
	if (r->ctl)
		trace_ctl_stop(r->ctl, NULL);
	ret = trace_events_stop(r->ev, cause);
	rt_probe_stop(r->probe);
	busy_stop(r->busy);
	r->busy = 0;
	r->measured_s = now_s() - t0;
	while (rt_probe_poll(r->probe, hists, sink) > 0)
		;
	if (!ret)
		ret = trace_events_poll(r->ev, cause) < 0 ? -EIO : 0;
	live_update(ctx, r, FTRACE_LIVE_RECORDING, r->interrupted ? 0 : 100, r->measured_s);
	return ret;
}

static int record(struct lab_ctx *ctx, struct ft_run *r, json_t *extra)
{
	const struct trace_wake_calc *calc = trace_events_calc(r->ev);
	struct trace_wake_stats ws;
	struct rt_probe_thread_stats ps;
	struct dist pd, ed;
	json_t *o;
	int ret = 0;

	(void)ctx;
	trace_wake_calc_stats(calc, &ws);
	rt_probe_stats(r->probe, 0, &ps);
	dist_of(r->phist, &pd);
	dist_of(trace_wake_calc_hist(calc), &ed);

	o = dist_json(&pd);
	if (!o || json_object_set_new(o, "tid", json_integer(r->tid)) ||
	    json_object_set_new(o, "cpu", json_integer(r->cpu)) ||
	    json_object_set_new(o, "policy", json_string(r->policy == SCHED_OTHER ? "other" :
							 "fifo")) ||
	    json_object_set_new(o, "priority", json_integer(r->prio)) ||
	    json_object_set_new(o, "rt_refused", r->rt_refused ? json_string(r->rt_refused) :
				json_null()) ||
	    json_object_set_new(o, "dropped_count", json_integer((json_int_t)ps.drops)) ||
	    json_object_set_new(o, "overruns_count", json_integer((json_int_t)ps.overruns)) ||
	    json_object_set_new(extra, "probe", o))
		return -ENOMEM;

	o = dist_json(&ed);
	if (!o || json_object_set_new(o, "instance",
				      json_string(trace_events_instance_name(r->ev))) ||
	    json_object_set_new(o, "matched_count", json_integer((json_int_t)ws.matched)) ||
	    json_object_set_new(o, "unmatched_wakings_count",
				json_integer((json_int_t)ws.unmatched_wakings)) ||
	    json_object_set_new(o, "pending_wakings_count",
				json_integer((json_int_t)ws.pending_wakings)) ||
	    json_object_set_new(o, "unmatched_switches_count",
				json_integer((json_int_t)ws.unmatched_switches)) ||
	    json_object_set_new(o, "migrated_count", json_integer((json_int_t)ws.migrated)) ||
	    json_object_set_new(o, "lost_count", json_integer((json_int_t)ws.lost_events)) ||
	    json_object_set_new(o, "worst", json_pack("{s:I, s:I, s:f, s:i, s:i}",
				"t_waking_ns", (json_int_t)ws.max.t_waking_ns, "t_switch_ns",
				(json_int_t)ws.max.t_switch_ns, "latency_us",
				us((double)ws.max.latency_ns), "waking_cpu", ws.max.waking_cpu,
				"run_cpu", ws.max.run_cpu)) ||
	    json_object_set_new(extra, "events", o))
		return -ENOMEM;
	if (json_object_set_new(extra, "agreement", agreement_json(&pd, &ed)))
		return -ENOMEM;

	ret = rt_result_set_summary(r->res, "probe_samples_count", (double)pd.count);
	ret = ret ? ret : rt_result_set_summary(r->res, "probe_p50_us", pd.p50_us);
	ret = ret ? ret : rt_result_set_summary(r->res, "probe_p99_us", pd.p99_us);
	ret = ret ? ret : rt_result_set_summary(r->res, "probe_p99_resolution_us",
						pd.p99_resolution_us);
	ret = ret ? ret : rt_result_set_summary(r->res, "probe_max_us", pd.max_us);
	ret = ret ? ret : rt_result_set_summary(r->res, "events_matched_count", (double)ws.matched);
	ret = ret ? ret : rt_result_set_summary(r->res, "events_p50_us", ed.p50_us);
	ret = ret ? ret : rt_result_set_summary(r->res, "events_p99_us", ed.p99_us);
	ret = ret ? ret : rt_result_set_summary(r->res, "events_p99_resolution_us",
						ed.p99_resolution_us);
	ret = ret ? ret : rt_result_set_summary(r->res, "events_max_us", ed.max_us);
	ret = ret ? ret : rt_result_set_summary(r->res, "lost_count", (double)ws.lost_events);
	ret = ret ? ret : rt_result_set_summary(r->res, "agreement_count_ratio",
						pd.count ? round((double)ws.matched * 1000 /
								 (double)pd.count) / 1000 : 0);
	ret = ret ? ret : rt_result_set_summary(r->res, "agreement_p50_diff_us",
						pd.p50_us - ed.p50_us);
	ret = ret ? ret : rt_result_set_summary(r->res, "agreement_p99_diff_us",
						pd.p99_us - ed.p99_us);
	ret = ret ? ret : rt_result_add_rt_hist(r->res, "probe", r->phist);
	ret = ret ? ret : rt_result_add_rt_hist(r->res, "events", trace_wake_calc_hist(calc));
	return ret;
}

/*
 * extra.tracer.trace_text: the trace file as the kernel wrote it, for the
 * viewer (`rtlab trace view`), cut at a line end after FTRACE_MAX_TRACE_TEXT
 * bytes (trace_text_truncated says so). NULL @text stores null.
 */
static int set_trace_text(json_t *o, const char *text, size_t len)
{
	json_t *js = NULL;
	char *clean;
	bool cut = false;

	if (text && len > FTRACE_MAX_TRACE_TEXT) {
		len = FTRACE_MAX_TRACE_TEXT;
		while (len > 0 && text[len - 1] != '\n')
			len--;
		cut = true;
	}
	if (text) {
		js = json_stringn(text, len);
		if (!js) {
			/* Not UTF-8 (a task name can hold any byte): keep it readable as ASCII. */
			clean = malloc(len + 1);
			if (!clean)
				return -ENOMEM;
			for (size_t i = 0; i < len; i++)
				clean[i] = (text[i] & 0x80) || !text[i] ? '?' : text[i];
			js = json_stringn(clean, len);
			free(clean);
			if (!js)
				return -ENOMEM;
		}
	}
	if (json_object_set_new(o, "trace_text", js ? js : json_null()) ||
	    json_object_set_new(o, "trace_text_truncated", json_boolean(cut)))
		return -ENOMEM;
	return 0;
}

static int record_tracer(struct ft_run *r, json_t *extra)
{
	struct trace_latency *t = NULL;
	unsigned long long max_lat = 0;
	bool have_max;
	char *text, *cause = NULL;
	size_t len = 0;
	json_t *o;

	have_max = trace_ctl_max_latency(r->ctl, &max_lat, NULL) == 0;
	text = trace_ctl_read_trace(r->ctl, &len, &cause);
	if (!text) {
		rt_result_add_note(r->res, "the tracer's trace could not be read");
		rt_log(RT_LOG_WARN, "ftrace: %s", cause ? cause : "trace not read");
	} else if (trace_latency_parse(text, len, "trace", &t, NULL) || !t->have_latency) {
		/*
		 * The lab kernel, with rtlab's screen busy on its serial console,
		 * has been seen to record a maximum and leave `trace` with its
		 * first line only (labs/ftrace/README.md): say so with the figure.
		 */
		if (have_max && max_lat) {
			char note[160];

			snprintf(note, sizeof(note), "the tracer recorded %llu us "
				 "(tracing_max_latency), but its trace held no latency header "
				 "when read", max_lat);
			rt_result_add_note(r->res, note);
		} else {
			rt_result_add_note(r->res, "the tracer's trace held nothing rtlab could "
					   "parse (no latency above the threshold?)");
		}
	}
	free(cause);
	o = tracer_json(t, r->tracer, trace_ctl_is_top_level(r->ctl), r->p, max_lat, have_max);
	if (!o || set_trace_text(o, text, len) || json_object_set_new(extra, "tracer", o)) {
		free(text);
		trace_latency_free(t);
		return -ENOMEM;
	}
	free(text);
	if (t && t->have_latency)
		rt_result_set_summary(r->res, "tracer_latency_us", (double)t->latency_us);
	trace_latency_free(t);
	return 0;
}

static int record_xc(struct ft_run *r, json_t *extra)
{
	json_t *xc = json_object(), *tc = json_object(), *rtla = json_object();
	int ret = -ENOMEM;

	if (!xc || !tc || !rtla)
		goto out;
	if (!r->p->cross_check) {
		json_decref(tc);
		json_decref(rtla);
		tc = rtla = NULL;
		if (json_object_set_new(xc, "skipped", json_string("--no-cross-check")))
			goto out;
	} else {
		struct trace_wake_stats st;
		struct trace_wake_calc *c = NULL;

		xc_tc_finish(&r->tc, r->tid, &st, &c);
		if (c) {
			struct dist d;
			const struct trace_wake_calc *ours = trace_events_calc(r->ev);
			struct trace_wake_stats os;

			trace_wake_calc_stats(ours, &os);
			dist_of(trace_wake_calc_hist(c), &d);
			if (json_object_set_new(tc, "ran", json_true()) ||
			    json_object_set_new(tc, "matched_count",
						json_integer((json_int_t)st.matched)) ||
			    json_object_set_new(tc, "p50_us", json_real(d.p50_us)) ||
			    json_object_set_new(tc, "max_us", json_real(d.max_us)) ||
			    json_object_set_new(tc, "count_ratio_to_rtlab", json_real(
						os.matched ? round((double)st.matched * 1000 /
								   (double)os.matched) / 1000 : 0))) {
				trace_wake_calc_free(c);
				goto out;
			}
			trace_wake_calc_free(c);
		} else if (json_object_set_new(tc, "ran", json_false()) ||
			   json_object_set_new(tc, "reason", json_string(r->tc.reason ?
					       r->tc.reason : "unknown"))) {
			goto out;
		}
		if (xc_rtla(rtla, r->cpu, NULL))
			goto out;
		if (json_object_set_new(xc, "trace_cmd", tc)) {
			tc = NULL;
			goto out;
		}
		tc = NULL;
		if (json_object_set_new(xc, "rtla", rtla)) {
			rtla = NULL;
			goto out;
		}
		rtla = NULL;
	}
	ret = json_object_set_new(extra, "cross_check", xc) ? -ENOMEM : 0;
	xc = NULL;
out:
	json_decref(xc);
	json_decref(tc);
	json_decref(rtla);
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
	r.seed = r.p->seed_set ? r.p->seed : ctx->seed;
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
			rt_log(RT_LOG_WARN, "ftrace: no busy companion (%s): wake-ups from an idle "
			       "CPU may not be matched", strerror(errno));
			rt_result_add_note(r.res, "the busy companion could not be started: wake-ups "
					   "from an idle CPU may not be matched");
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
	if (r.p->cross_check)
		xc_tc_start(&r.tc, ctx->journal, r.tid);

	ret = measure(ctx, sink, &r, &cause);
	if (ret)
		goto out_log;
	rt_sink_progress(sink, 100, "ftrace: measured; reading the traces");

	extra = rt_result_extra(r.res);
	if (!extra) {
		ret = -ENOMEM;
		goto out;
	}
	ret = record(ctx, &r, extra);
	if (!ret && r.ctl)
		ret = record_tracer(&r, extra);
	if (!ret)
		ret = record_xc(&r, extra);
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
	if (ret)
		goto out;
	if (r.interrupted)
		rt_result_add_note(r.res, "interrupted (SIGINT, SIGTERM or SIGHUP): the document "
				   "holds what was measured until then");
	copy_answers(ctx, r.res);
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

/* ---- Description and text report ---------------------------------------------------- */

static int ft_describe(struct rt_buf *md)
{
	return rt_buf_puts(md, "# Hunting latencies with ftrace\n\n"
			   "Measure one thread's wake-ups with the latency probe and with the "
			   "scheduler's own events at the same time, run a latency tracer where "
			   "the kernel has one, and find the cause rtlab planted (--hunt). "
			   "Handout: labs/ftrace/README.md.\n");
}

static double jnum(json_t *o, const char *k)
{
	return json_number_value(json_object_get(o, k));
}

static const char *jstr(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

/* The text never shows extra.hunt.truth: the learner is hunting for it. */
static int ft_text(const struct lab_result *lr, struct rt_buf *out)
{
	json_t *doc = rt_result_json(lr->res), *extra = json_object_get(doc, "extra");
	json_t *pr = json_object_get(extra, "probe"), *ev = json_object_get(extra, "events");
	json_t *ag = json_object_get(extra, "agreement"), *tr = json_object_get(extra, "tracer");
	json_t *xc = json_object_get(extra, "cross_check"), *hunt = json_object_get(extra, "hunt");
	json_t *n;
	size_t i;
	int ret = 0;

	ret |= rt_text_printf(out, "probe  (%s prio %d, CPU %d, tid %d): %lld wake-ups, p50 %.0f us, "
			     "p99 %.0f us, max %.2f us\n", jstr(pr, "policy"),
			     (int)jnum(pr, "priority"), (int)jnum(pr, "cpu"), (int)jnum(pr, "tid"),
			     (long long)jnum(pr, "count"), jnum(pr, "p50_us"), jnum(pr, "p99_us"),
			     jnum(pr, "max_us"));
	ret |= rt_text_printf(out, "events (sched_waking -> sched_switch): %lld matched, p50 %.0f "
			     "us, p99 %.0f us, max %.2f us; unmatched wakings %lld, lost %lld\n",
			     (long long)jnum(ev, "matched_count"), jnum(ev, "p50_us"),
			     jnum(ev, "p99_us"), jnum(ev, "max_us"),
			     (long long)jnum(ev, "unmatched_wakings_count"),
			     (long long)jnum(ev, "lost_count"));
	ret |= rt_text_printf(out, "agreement: %s\n", jstr(ag, "verdict"));
	if (tr) {
		char lat[32] = "?";
		json_t *l;

		if (json_is_number(json_object_get(tr, "latency_us")))
			snprintf(lat, sizeof(lat), "%lld", (long long)jnum(tr, "latency_us"));
		ret |= rt_text_printf(out, "\ntracer %s%s: latency %s us, started at %s, ended at "
				     "%s\n", jstr(tr, "name"), json_is_true(json_object_get(tr,
				     "top_level")) ? " (top level)" : "", lat,
				     jstr(tr, "started_at"), jstr(tr, "ended_at"));
		json_array_foreach(json_object_get(tr, "lines"), i, l) {
			if (i >= 20) {
				ret |= rt_text_printf(out, "  ... (%zu lines in the document)\n",
						     json_array_size(json_object_get(tr, "lines")));
				break;
			}
			ret |= rt_text_printf(out, "  %-16.16s %3d %-6s %s%s%s %9.2f us %s %s%s%s\n",
					     jstr(l, "comm"), (int)jnum(l, "cpu"), jstr(l, "flags"),
					     json_is_true(json_object_get(l, "irqs_off")) ? "irqs-off " : "",
					     json_is_true(json_object_get(l, "need_resched")) ?
					     "need-resched " : "", jstr(l, "context"),
					     jnum(l, "time_us"), jstr(l, "mark"), jstr(l, "function"),
					     *jstr(l, "caller") ? " <- " : "", jstr(l, "caller"));
		}
	}
	if (hunt)
		ret |= rt_text_printf(out, "\nhunt: seed %s, %s injector, %lld sections planted. "
				     "Diagnose with `rtlab lab answer ftrace cause|function|tracer "
				     "NAME`, then run the same hunt again and `rtlab grade` it\n",
				     jstr(hunt, "seed"), jstr(hunt, "injector"),
				     (long long)jnum(hunt, "planted_count"));
	if (xc) {
		json_t *tc = json_object_get(xc, "trace_cmd"), *rt = json_object_get(xc, "rtla");

		if (json_object_get(xc, "skipped"))
			ret |= rt_buf_puts(out, "\ncross-check: skipped\n");
		if (tc)
			ret |= json_is_true(json_object_get(tc, "ran")) ?
				rt_text_printf(out, "\ncross-check trace-cmd: %lld matched, p50 %.0f "
					      "us, max %.2f us\n",
					      (long long)jnum(tc, "matched_count"), jnum(tc, "p50_us"),
					      jnum(tc, "max_us")) :
				rt_text_printf(out, "\ncross-check trace-cmd: not run: %s\n",
					      jstr(tc, "reason"));
		if (rt)
			ret |= json_is_true(json_object_get(rt, "ran")) ?
				rt_text_printf(out, "cross-check rtla timerlat: thread avg %.1f us, "
					      "max %lld us over %lld samples\n",
					      jnum(rt, "thread_avg_us"),
					      (long long)jnum(rt, "thread_max_us"),
					      (long long)jnum(rt, "thread_count")) :
				rt_text_printf(out, "cross-check rtla: not run: %s\n",
					      jstr(rt, "reason"));
	}
	json_array_foreach(json_object_get(doc, "notes"), i, n) {
		if (i == 0)
			ret |= rt_buf_puts(out, "\n");
		ret |= rt_text_printf(out, "note: %s\n", json_string_value(n));
	}
	return ret ? -ENOMEM : 0;
}

static int ft_parse_params(int argc, char **argv, void **params, char **cause)
{
	struct ftrace_params *p = malloc(sizeof(*p));
	int ret;

	*params = NULL;
	if (!p)
		return rt_err(cause, -ENOMEM, "out of memory");
	ret = ftrace_params_parse(argc, argv, p, cause);
	if (ret) {
		free(p);
		return ret;
	}
	*params = p;
	return 0;
}

static void ft_free_params(void *params)
{
	free(params);
}

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
	.describe = ft_describe,
	.check_capabilities = ft_check_caps,
	.run = ft_run,
	.grade = ftrace_grade,
	.parse_params = ft_parse_params,
	.free_params = ft_free_params,
	.text = ft_text,
	.questions = ftrace_questions,
};
