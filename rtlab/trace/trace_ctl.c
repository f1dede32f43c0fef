/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_ctl: run one tracer, privately where the kernel allows it.
 *
 * Whether a tracer may run in an instance is not something to guess per
 * kernel version: the instance's own available_tracers lists exactly the
 * tracers that allow instances, so we create the instance first and look.
 * At the top level every knob is journalled before it is written, and its
 * original bytes are also kept here so that trace_ctl_destroy() can put
 * them back without waiting for the journal to close (the process may go
 * on to run other labs).
 *
 * The "bundled" facts in the tracer table come from DESIGN.md: the rt
 * kernel was measured to offer timerlat, osnoise, hwlat, wakeup, wakeup_rt,
 * wakeup_dl and function_graph (function_graph needs the function tracer,
 * so it has that too); the lab kernel offers all eleven. The stock kernel
 * has not been measured, so no tracer claims it.
 */
#include "trace_ctl.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "core/rt_err.h"
#include "core/rt_file.h"
#include "core/rt_journal.h"
#include "core/rt_log.h"

#define TC_MAX_KNOBS 8
#define TC_KNOB_MAX 4096	/* knob values are a few bytes */

struct tc_knob {
	char *path;		/* owned; absolute */
	char *orig;		/* owned; the bytes before our first write */
	size_t orig_len;
};

struct trace_ctl {
	struct rt_journal *j;		/* borrowed */
	struct tracefs_instance *inst;	/* owned; NULL at the top level */
	char *inst_name;		/* owned */
	char *tracer;			/* owned */
	struct tc_knob knobs[TC_MAX_KNOBS];	/* top level only, in write order */
	size_t nknobs;
	bool destroyed;			/* trace_ctl_destroy() has undone the changes */
};

#define RT_LAB (TRACE_KERNEL_RT | TRACE_KERNEL_LAB)

static const struct trace_tracer_info tc_tracers[TRACE_CTL_NTRACERS] = {
	{ "irqsoff", TRACE_TRACER_OFF, true, "CONFIG_IRQSOFF_TRACER", TRACE_KERNEL_LAB, false },
	{ "preemptoff", TRACE_TRACER_OFF, true, "CONFIG_PREEMPT_TRACER", TRACE_KERNEL_LAB, false },
	{ "preemptirqsoff", TRACE_TRACER_OFF, true,
	  "CONFIG_IRQSOFF_TRACER and CONFIG_PREEMPT_TRACER", TRACE_KERNEL_LAB, false },
	{ "wakeup", TRACE_TRACER_WAKEUP, true, "CONFIG_SCHED_TRACER", RT_LAB, false },
	{ "wakeup_rt", TRACE_TRACER_WAKEUP, true, "CONFIG_SCHED_TRACER", RT_LAB, false },
	{ "wakeup_dl", TRACE_TRACER_WAKEUP, true, "CONFIG_SCHED_TRACER", RT_LAB, false },
	{ "timerlat", TRACE_TRACER_MEASURE, false, "CONFIG_TIMERLAT_TRACER", RT_LAB, false },
	{ "osnoise", TRACE_TRACER_MEASURE, false, "CONFIG_OSNOISE_TRACER", RT_LAB, false },
	{ "hwlat", TRACE_TRACER_MEASURE, false, "CONFIG_HWLAT_TRACER", RT_LAB, false },
	{ "function", TRACE_TRACER_FUNCTION, false, "CONFIG_FUNCTION_TRACER", RT_LAB, false },
	{ "function_graph", TRACE_TRACER_FUNCTION, false, "CONFIG_FUNCTION_GRAPH_TRACER",
	  RT_LAB, false },
};

/* ---- Tracer facts ---- */

const struct trace_tracer_info *trace_ctl_tracer_lookup(const char *name)
{
	for (size_t i = 0; name && i < TRACE_CTL_NTRACERS; i++)
		if (!strcmp(tc_tracers[i].name, name))
			return &tc_tracers[i];
	return NULL;
}

const char *trace_ctl_bundled_str(unsigned int bundled)
{
	static const char *const names[8] = {
		"none", "stock", "rt", "stock, rt", "lab", "stock, lab", "rt, lab",
		"stock, rt, lab",
	};

	return names[bundled & 7u];
}

static bool tc_list_has(char **list, const char *name)
{
	for (size_t i = 0; list && list[i]; i++)
		if (!strcmp(list[i], name))
			return true;
	return false;
}

/* Split a tracefs "a b c\n" list into a tracefs list. */
static char **tc_split_words(const char *s)
{
	char **list = NULL, *copy = strdup(s ? s : ""), *save = NULL, *w;

	if (!copy)
		return NULL;
	for (w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		char **l = tracefs_list_add(list, w);

		if (!l) {
			tracefs_list_free(list);
			list = NULL;
			break;
		}
		list = l;
	}
	free(copy);
	return list;
}

int trace_ctl_probe_tracers(struct trace_tracer_info out[TRACE_CTL_NTRACERS],
			    char ***available, char **cause)
{
	char **list = NULL, *text;

	if (available)
		*available = NULL;
	if (!tracefs_tracing_dir())
		return rt_err(cause, -ENODEV, "tracefs is not mounted");
	text = tracefs_instance_file_read(NULL, "available_tracers", NULL);
	if (!text)
		return rt_err(cause, errno ? -errno : -EIO, "cannot read available_tracers: %s",
			      strerror(errno ? errno : EIO));
	list = tc_split_words(text);
	free(text);
	for (size_t i = 0; i < TRACE_CTL_NTRACERS; i++) {
		out[i] = tc_tracers[i];
		out[i].present = tc_list_has(list, out[i].name);
	}
	if (available)
		*available = list;
	else
		tracefs_list_free(list);
	return 0;
}

/* ---- Stale instances ---- */

/* The pid at the end of "rtlab-...-<pid>", or -1. */
static pid_t tc_instance_pid(const char *name)
{
	const char *dash = strrchr(name, '-');
	char *end;
	long v;

	if (strncmp(name, "rtlab-", 6) || !dash || !dash[1])
		return -1;
	errno = 0;
	v = strtol(dash + 1, &end, 10);
	if (errno || *end || v <= 0 || v > 0x3fffffff)
		return -1;
	return (pid_t)v;
}

int trace_ctl_sweep_stale(unsigned int *removed, char **cause)
{
	char **names;
	unsigned int n = 0;
	int ret = 0;

	if (removed)
		*removed = 0;
	if (!tracefs_tracing_dir())
		return rt_err(cause, -ENODEV, "tracefs is not mounted");
	/* No regex here: libtracefs 1.6 leaks the compiled one (seen with LeakSanitizer). */
	errno = 0;
	names = tracefs_instances(NULL);
	if (!names)
		return 0;	/* no instances at all (or none matching) */
	for (size_t i = 0; names[i]; i++) {
		pid_t pid = tc_instance_pid(names[i]);
		struct tracefs_instance *inst;

		if (pid <= 0 || pid == getpid())
			continue;
		if (kill(pid, 0) == 0 || errno != ESRCH)
			continue;	/* alive (or not ours to judge) */
		inst = tracefs_instance_alloc(NULL, names[i]);
		if (!inst || tracefs_instance_destroy(inst) < 0) {
			int err = errno ? -errno : -EIO;

			rt_log(RT_LOG_WARN, "trace: cannot remove stale instance %s: %s",
			       names[i], strerror(-err));
			if (!ret)
				ret = rt_err(cause, err, "cannot remove stale tracefs instance %s: %s",
					     names[i], strerror(-err));
		} else {
			rt_log(RT_LOG_INFO, "trace: removed stale instance %s (pid %d is gone)",
			       names[i], (int)pid);
			n++;
		}
		tracefs_instance_free(inst);
	}
	tracefs_list_free(names);
	if (removed)
		*removed = n;
	return ret;
}

/* ---- Knobs ---- */

static int tc_tracefs_err(struct trace_ctl *c, const char *file, const char *value, int err,
			  char **cause)
{
	char *why = tracefs_error_last(c->inst);

	if (why && *why)
		rt_err(cause, err, "cannot write '%s' to %s%s%s: %s (tracefs: %s)", value,
		       c->inst_name ? c->inst_name : "", c->inst_name ? "/" : "", file,
		       strerror(-err), why);
	else
		rt_err(cause, err, "cannot write '%s' to %s%s%s: %s", value,
		       c->inst_name ? c->inst_name : "", c->inst_name ? "/" : "", file,
		       strerror(-err));
	free(why);
	return err;
}

/* Remember a top-level knob's bytes before our first write to it. */
static int tc_save_knob(struct trace_ctl *c, const char *path, char **cause)
{
	struct tc_knob *k;
	int ret;

	for (size_t i = 0; i < c->nknobs; i++)
		if (!strcmp(c->knobs[i].path, path))
			return 0;
	if (c->nknobs == TC_MAX_KNOBS)
		return rt_err(cause, -ENOSPC, "too many top-level knobs");
	k = &c->knobs[c->nknobs];
	ret = rt_file_read(path, TC_KNOB_MAX, &k->orig, &k->orig_len);
	if (ret)
		return rt_err(cause, ret, "cannot read %s: %s", path, strerror(-ret));
	k->path = strdup(path);
	if (!k->path) {
		free(k->orig);
		k->orig = NULL;
		return rt_err(cause, -ENOMEM, "out of memory");
	}
	c->nknobs++;
	return 0;
}

static int tc_write(struct trace_ctl *c, const char *file, const char *value, char **cause)
{
	char *path;
	int ret;

	/* tracing_thresh and friends are global: an instance has no copy of its own. */
	if (c->inst && tracefs_file_exists(c->inst, file)) {
		if (tracefs_instance_file_write(c->inst, file, value) < 0)
			return tc_tracefs_err(c, file, value, errno ? -errno : -EIO, cause);
		return 0;
	}
	path = tracefs_get_tracing_file(file);
	if (!path)
		return rt_err(cause, -ENOMEM, "no path for %s", file);
	ret = tc_save_knob(c, path, cause);
	if (!ret)
		ret = rt_journal_write_file(c->j, path, value, strlen(value), cause);
	tracefs_put_tracing_file(path);
	return ret;
}

static char *tc_read(struct trace_ctl *c, const char *file, size_t *len, char **cause)
{
	int size = 0;
	char *s;

	errno = 0;
	s = tracefs_instance_file_read(c->inst && tracefs_file_exists(c->inst, file) ? c->inst :
				       NULL, file, &size);
	if (!s) {
		int err = errno ? errno : EIO;

		rt_err(cause, -err, "cannot read %s: %s", file, strerror(err));
		errno = err;
		return NULL;
	}
	if (len)
		*len = size > 0 ? (size_t)size : 0;
	return s;
}

/* ---- Export ---- */

bool trace_ctl_is_top_level(const struct trace_ctl *c)
{
	return !c->inst;
}

const char *trace_ctl_instance_name(const struct trace_ctl *c)
{
	return c->inst_name;
}

const char *trace_ctl_tracer(const struct trace_ctl *c)
{
	return c->tracer;
}

/* Make the private instance; keep it only if @tracer may run in it. */
static int tc_try_instance(struct trace_ctl *c, const char *lab, bool *usable, char **cause)
{
	char *avail = NULL, **list = NULL;
	int ret;

	*usable = false;
	if (lab ? asprintf(&c->inst_name, "rtlab-%s-%d", lab, (int)getpid()) < 0 :
		  asprintf(&c->inst_name, "rtlab-%d", (int)getpid()) < 0) {
		c->inst_name = NULL;
		return rt_err(cause, -ENOMEM, "out of memory");
	}
	ret = rt_journal_create_instance(c->j, c->inst_name, cause);
	if (ret)
		goto out_name;
	c->inst = tracefs_instance_alloc(NULL, c->inst_name);
	if (!c->inst) {
		ret = rt_err(cause, -ENOMEM, "cannot open instance %s", c->inst_name);
		goto out_name;
	}
	avail = tracefs_instance_file_read(c->inst, "available_tracers", NULL);
	list = tc_split_words(avail);
	*usable = tc_list_has(list, c->tracer);
	tracefs_list_free(list);
	free(avail);
	if (*usable)
		return 0;
	rt_log(RT_LOG_INFO, "trace: %s cannot run in an instance here; using the top level",
	       c->tracer);
	if (tracefs_instance_destroy(c->inst) < 0)
		rt_log(RT_LOG_WARN, "trace: cannot remove instance %s: %s", c->inst_name,
		       strerror(errno));
	tracefs_instance_free(c->inst);
	c->inst = NULL;
out_name:
	free(c->inst_name);
	c->inst_name = NULL;
	return ret;
}

struct trace_ctl *trace_ctl_new(struct rt_journal *j, const char *lab, const char *tracer,
				unsigned int flags, char **cause)
{
	struct trace_ctl *c = NULL;
	char **avail = NULL, *cur = NULL;
	struct trace_tracer_info info[TRACE_CTL_NTRACERS];
	bool usable = false;
	int ret;

	if (!j || !tracer || !*tracer || strpbrk(tracer, " \t\n/")) {
		ret = rt_err(cause, -EINVAL, "bad tracer name or no journal");
		goto out_err;
	}
	ret = trace_ctl_probe_tracers(info, &avail, cause);
	if (ret)
		goto out_err;
	if (!tc_list_has(avail, tracer)) {
		const struct trace_tracer_info *t = trace_ctl_tracer_lookup(tracer);

		if (t)
			ret = rt_err(cause, -ENOENT, "tracer %s is not in this kernel: it needs %s "
				     "(bundled kernels that have it: %s)", tracer, t->config,
				     trace_ctl_bundled_str(t->bundled));
		else
			ret = rt_err(cause, -ENOENT, "tracer %s is not in this kernel", tracer);
		goto out_err;
	}
	/* Stale instances are only a nuisance: a failure here is logged, not fatal. */
	if (trace_ctl_sweep_stale(NULL, NULL))
		rt_log(RT_LOG_WARN, "trace: could not remove every stale instance");

	c = calloc(1, sizeof(*c));
	if (!c) {
		ret = rt_err(cause, -ENOMEM, "out of memory");
		goto out_err;
	}
	c->j = j;
	c->tracer = strdup(tracer);
	if (!c->tracer) {
		ret = rt_err(cause, -ENOMEM, "out of memory");
		goto out_err;
	}
	if (!(flags & TRACE_CTL_TOP_LEVEL)) {
		ret = tc_try_instance(c, lab, &usable, cause);
		if (ret)
			goto out_err;
	}
	if (!c->inst) {
		/* Someone else's tracer at the top level: do not fight over it. */
		cur = tc_read(c, "current_tracer", NULL, cause);
		if (!cur) {
			ret = -errno;
			goto out_err;
		}
		cur[strcspn(cur, "\n")] = '\0';
		if (strcmp(cur, "nop") && strcmp(cur, tracer)) {
			ret = rt_err(cause, -EBUSY, "the top-level tracer is already %s: someone "
				     "else is tracing", cur);
			goto out_err;
		}
	}
	ret = tc_write(c, "tracing_on", "0", cause);
	if (!ret && (flags & TRACE_CTL_NO_FUNCTION_TRACE))
		ret = tc_write(c, "options/function-trace", "0", cause);
	if (!ret)
		ret = tc_write(c, "current_tracer", tracer, cause);
	if (ret)
		goto out_err;
	free(cur);
	tracefs_list_free(avail);
	return c;

out_err:
	trace_ctl_destroy(c);
	trace_ctl_free(c);
	free(cur);
	tracefs_list_free(avail);
	errno = -ret;
	return NULL;
}

int trace_ctl_set_function_trace(struct trace_ctl *c, bool on, char **cause)
{
	return tc_write(c, "options/function-trace", on ? "1" : "0", cause);
}

int trace_ctl_set_thresh(struct trace_ctl *c, unsigned long long us, char **cause)
{
	char v[32];

	snprintf(v, sizeof(v), "%llu", us);
	return tc_write(c, "tracing_thresh", v, cause);
}

int trace_ctl_reset_max_latency(struct trace_ctl *c, char **cause)
{
	return tc_write(c, "tracing_max_latency", "0", cause);
}

int trace_ctl_max_latency(struct trace_ctl *c, unsigned long long *us, char **cause)
{
	char *s = tc_read(c, "tracing_max_latency", NULL, cause), *end;
	int ret = 0;

	if (!s)
		return -errno;
	errno = 0;
	*us = strtoull(s, &end, 10);
	if (errno || end == s)
		ret = rt_err(cause, -EPROTO, "tracing_max_latency is not a number: '%.20s'", s);
	free(s);
	return ret;
}

int trace_ctl_start(struct trace_ctl *c, char **cause)
{
	return tc_write(c, "tracing_on", "1", cause);
}

/*
 * A threshold no section reaches (1000 s): a latency tracer then keeps the
 * trace it has. Measured in the lab kernel (6.12): one running in an instance
 * checks the top level's tracing_on, not the instance's, so after its own is
 * 0 it goes on measuring, and a longer section (the cleanup's munmap with a
 * stalled vCPU under TCG) replaced the trace that was meant to be read.
 */
#define TC_FREEZE_THRESH_US "1000000000"

int trace_ctl_stop(struct trace_ctl *c, char **cause)
{
	const struct trace_tracer_info *ti = trace_ctl_tracer_lookup(c->tracer);
	int ret = tc_write(c, "tracing_on", "0", cause);

	if (!ret && ti && ti->latency_format)
		ret = tc_write(c, "tracing_thresh", TC_FREEZE_THRESH_US, cause);
	return ret;
}

char *trace_ctl_read_trace(struct trace_ctl *c, size_t *len, char **cause)
{
	return tc_read(c, "trace", len, cause);
}

int trace_ctl_destroy(struct trace_ctl *c)
{
	int ret = 0;

	if (!c)
		return 0;
	if (c->inst && !c->destroyed) {
		tracefs_instance_file_write(c->inst, "tracing_on", "0");
		tracefs_instance_file_write(c->inst, "current_tracer", "nop");
		if (tracefs_instance_destroy(c->inst) < 0) {
			ret = errno ? -errno : -EIO;
			rt_log(RT_LOG_ERR, "trace: cannot remove instance %s: %s (the journal "
			       "will retry)", c->inst_name, strerror(-ret));
		}
	}
	/* Top level: original bytes back, newest change first. */
	for (size_t i = c->destroyed ? 0 : c->nknobs; i-- > 0;) {
		struct tc_knob *k = &c->knobs[i];
		int fd = open(k->path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		int rc = fd < 0 ? -errno : rt_write_all(fd, k->orig, k->orig_len);

		if (fd >= 0)
			close(fd);
		if (rc) {
			rt_log(RT_LOG_ERR, "trace: cannot restore %s: %s (the journal will retry)",
			       k->path, strerror(-rc));
			if (!ret)
				ret = rc;
		}
	}
	c->destroyed = true;
	return ret;
}

void trace_ctl_free(struct trace_ctl *c)
{
	if (!c)
		return;
	if (c->inst)
		tracefs_instance_free(c->inst);
	for (size_t i = 0; i < c->nknobs; i++) {
		free(c->knobs[i].path);
		free(c->knobs[i].orig);
	}
	free(c->inst_name);
	free(c->tracer);
	free(c);
}
