/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_ftrace_check: the ftrace lab's cross-check with the reference tools.
 *
 * While the run measures, trace-cmd records the same two scheduler events
 * of the probe's thread in an instance of its own (created through the
 * undo journal, so a killed run's copy is swept like the others); after
 * the run its report is fed to a wake-up matcher of our own, and rtla
 * timerlat hist runs for a moment on the probe's CPU. extra.cross_check
 * records their figures, or the exact reason each could not run: the
 * cross-check never fails the lab. rtla's maximum thread latency also goes
 * into the summary (rtla_thread_max_us), for predict questions. The parsers of both tools' output are
 * pure and live in lab_ftrace_opts.c.
 */
#include "lab_ftrace_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tracefs.h>

#include "core/rt_child.h"
#include "core/rt_file.h"
#include "core/rt_journal.h"
#include "core/rt_result.h"
#include "core/rt_which.h"
#include "trace/trace_ctl.h"
#include "trace/trace_events.h"

#define RTLA_DURATION_S 2u
#define XC_TIMEOUT_MS 15000u

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
		rt_time_sleep_ms(20, NULL);
	}
	tracefs_instance_free(ti);
}

void ftrace_xc_tc_start(struct xc_tc *x, struct rt_journal *j, pid_t tid)
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

void ftrace_xc_tc_skip_tracer(struct xc_tc *x)
{
	memset(x, 0, sizeof(*x));
	x->tried = true;
	xc_tc_set_reason(x, "%s", "not run in tracer mode: while trace-cmd records, the latency "
			 "tracer's trace can read back empty (the lab kernel, measured); run event "
			 "mode for the trace-cmd cross-check");
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

void ftrace_xc_tc_finish(struct xc_tc *x, pid_t tid, struct trace_wake_stats *st,
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
					trace_wake_calc_feed_text(*calcp, text);
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

int ftrace_record_xc(struct ft_run *r, json_t *extra)
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

		ftrace_xc_tc_finish(&r->tc, r->tid, &st, &c);
		if (c) {
			struct dist d;
			const struct trace_wake_calc *ours = trace_events_calc(r->ev);
			struct trace_wake_stats os;

			trace_wake_calc_stats(ours, &os);
			ftrace_dist_of(trace_wake_calc_hist(c), &d);
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
		/* rtla's worst thread latency is a figure a prediction can name. */
		if (json_is_true(json_object_get(rtla, "ran")) &&
		    rt_result_set_summary(r->res, "rtla_thread_max_us", json_number_value(
						  json_object_get(rtla, "thread_max_us"))))
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
