/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_events: scheduler events in a private instance, matched into
 * wake-up latencies.
 *
 * The matcher keeps one slot per watched pid in an open-addressing table
 * (the "every pid" mode can meet thousands). Events from different CPUs
 * come out of the per-CPU ring buffers separately, so each poll gathers its
 * batch, sorts it by timestamp and only then feeds the matcher. The trace
 * clock is "mono", so timestamps are CLOCK_MONOTONIC nanoseconds and can be
 * laid next to the probe's own samples.
 */
#include "trace_events.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "core/rt_err.h"
#include "core/rt_hist.h"
#include "core/rt_journal.h"
#include "core/rt_log.h"
#include "trace/trace_ctl.h"

/* ---- The matcher ---- */

/* Where a watched thread was last seen. */
enum twc_where { TWC_UNKNOWN, TWC_ON_CPU, TWC_OFF_CPU };

struct twc_slot {
	pid_t pid;		/* -1: empty */
	bool pending;		/* a waking waits for its switch-in */
	bool pending_on_cpu;	/* ... and it came while the thread was on its CPU */
	enum twc_where where;
	int cpu;
	uint64_t t;
	unsigned int idx;	/* index in the watched list (histogram thread) */
};

struct trace_wake_calc {
	pid_t *pids;		/* owned; NULL: every pid */
	size_t npids;
	struct twc_slot *slots;	/* owned */
	size_t nslots;		/* a power of two */
	size_t used;
	struct rt_hist *hist;	/* owned */
	struct trace_wakeup *recs;	/* owned */
	size_t nrecs;
	size_t caprecs;
	struct trace_wake_stats st;
	double sum_ns;
};

static size_t twc_hash(pid_t pid, size_t n)
{
	return ((size_t)(unsigned int)pid * 2654435761u) & (n - 1);
}

static struct twc_slot *twc_find(struct trace_wake_calc *c, pid_t pid, bool add)
{
	size_t i = twc_hash(pid, c->nslots);

	while (c->slots[i].pid != -1) {
		if (c->slots[i].pid == pid)
			return &c->slots[i];
		i = (i + 1) & (c->nslots - 1);
	}
	if (!add)
		return NULL;
	if ((c->used + 1) * 2 > c->nslots) {
		/* Grow and rehash; on failure the event is dropped (counted as lost). */
		size_t n = c->nslots * 2;
		struct twc_slot *s = malloc(n * sizeof(*s));

		if (!s)
			return NULL;
		for (size_t k = 0; k < n; k++)
			s[k].pid = -1;
		for (size_t k = 0; k < c->nslots; k++) {
			size_t j;

			if (c->slots[k].pid == -1)
				continue;
			j = twc_hash(c->slots[k].pid, n);
			while (s[j].pid != -1)
				j = (j + 1) & (n - 1);
			s[j] = c->slots[k];
		}
		free(c->slots);
		c->slots = s;
		c->nslots = n;
		return twc_find(c, pid, true);
	}
	memset(&c->slots[i], 0, sizeof(c->slots[i]));
	c->slots[i].pid = pid;
	c->used++;
	return &c->slots[i];
}

struct trace_wake_calc *trace_wake_calc_new(const pid_t *pids, size_t npids, unsigned int hist_us)
{
	struct trace_wake_calc *c = calloc(1, sizeof(*c));
	int err = ENOMEM;

	if (!c)
		goto out_err;
	c->nslots = 64;
	while (c->nslots < npids * 4)
		c->nslots *= 2;
	c->slots = malloc(c->nslots * sizeof(*c->slots));
	c->hist = rt_hist_new(hist_us, 64);
	if (!c->slots || !c->hist) {
		err = c->hist ? ENOMEM : errno;
		goto out_err;
	}
	for (size_t i = 0; i < c->nslots; i++)
		c->slots[i].pid = -1;
	if (npids) {
		c->pids = malloc(npids * sizeof(*pids));
		if (!c->pids)
			goto out_err;
		memcpy(c->pids, pids, npids * sizeof(*pids));
		c->npids = npids;
		for (size_t i = 0; i < npids; i++) {
			struct twc_slot *s = twc_find(c, pids[i], true);

			if (!s)
				goto out_err;
			s->idx = (unsigned int)i;
		}
	}
	return c;

out_err:
	trace_wake_calc_free(c);
	errno = err;
	return NULL;
}

void trace_wake_calc_free(struct trace_wake_calc *c)
{
	if (!c)
		return;
	free(c->pids);
	free(c->slots);
	rt_hist_free(c->hist);
	free(c->recs);
	free(c);
}

/* The slot of a pid we watch, or NULL. */
static struct twc_slot *twc_watched(struct trace_wake_calc *c, pid_t pid)
{
	if (pid <= 0)
		return NULL;	/* the idle task is never woken */
	return twc_find(c, pid, c->npids == 0);
}

/* A pending waking that will never see its switch-in, counted by why. */
static void twc_drop(struct twc_slot *s, uint64_t *why)
{
	if (!s->pending)
		return;
	s->pending = false;
	(*why)++;
}

void trace_wake_calc_waking(struct trace_wake_calc *c, uint64_t ts, pid_t waker, pid_t pid,
			    int target_cpu)
{
	struct twc_slot *s = twc_watched(c, pid);

	if (!s)
		return;
	if (waker == pid) {
		/*
		 * Woken in its own context (an interrupt on its CPU before it
		 * switched out): it never left the CPU. A waking still pending
		 * from before means it got the CPU without a recorded switch-in.
		 */
		twc_drop(s, s->pending_on_cpu ? &c->st.woken_running : &c->st.missed_switch_ins);
		c->st.woken_running++;
		s->where = TWC_ON_CPU;
		return;
	}
	/* The earlier waking came while it was on its CPU, and it never left: it ran on. */
	twc_drop(s, s->pending_on_cpu ? &c->st.woken_running : &c->st.unmatched_wakings);
	s->pending = true;
	s->pending_on_cpu = s->where == TWC_ON_CPU;
	s->t = ts;
	s->cpu = target_cpu;
}

static void twc_record(struct trace_wake_calc *c, const struct trace_wakeup *w, unsigned int idx)
{
	struct rt_sample smp = { .thread = idx, .seq = c->st.matched, .latency_ns = w->latency_ns };

	rt_hist_add(c->hist, &smp);
	if (!c->st.matched || w->latency_ns < c->st.min_ns)
		c->st.min_ns = w->latency_ns;
	if (!c->st.matched || w->latency_ns > c->st.max_ns) {
		c->st.max_ns = w->latency_ns;
		c->st.max = *w;
	}
	c->st.matched++;
	c->sum_ns += (double)w->latency_ns;
	if (w->run_cpu != w->waking_cpu)
		c->st.migrated++;
	if (c->nrecs == c->caprecs && c->caprecs < TRACE_WAKE_MAX_RECORDS) {
		size_t cap = c->caprecs ? c->caprecs * 2 : 1024;
		struct trace_wakeup *r = realloc(c->recs, cap * sizeof(*r));

		if (r) {
			c->recs = r;
			c->caprecs = cap;
		}
	}
	if (c->nrecs < c->caprecs)
		c->recs[c->nrecs++] = *w;
}

/* The watched thread @prev leaves a CPU. */
static void twc_switch_out(struct trace_wake_calc *c, pid_t prev, bool blocked)
{
	struct twc_slot *s = twc_watched(c, prev);

	if (!s)
		return;
	s->where = TWC_OFF_CPU;
	if (!s->pending)
		return;
	if (!s->pending_on_cpu) {
		/* Woken off the CPU, now leaving one: its switch-in was not recorded. */
		twc_drop(s, &c->st.missed_switch_ins);
	} else if (!blocked) {
		/* Woken before it blocked: it ran on and is now preempted, not waiting. */
		twc_drop(s, &c->st.woken_running);
	} else {
		/* Woken on its way out: it blocked anyway and waits for its switch-in. */
		s->pending_on_cpu = false;
	}
}

void trace_wake_calc_switch(struct trace_wake_calc *c, uint64_t ts, int cpu, pid_t prev_pid,
			    bool prev_blocked, pid_t next_pid)
{
	struct twc_slot *s;
	struct trace_wakeup w;

	twc_switch_out(c, prev_pid, prev_blocked);
	s = twc_watched(c, next_pid);
	if (!s)
		return;
	s->where = TWC_ON_CPU;
	if (!s->pending) {
		c->st.unmatched_switches++;
		return;
	}
	s->pending = false;
	if (ts < s->t) {
		c->st.out_of_order++;
		return;
	}
	w.pid = next_pid;
	w.waking_cpu = s->cpu;
	w.run_cpu = cpu;
	w.t_waking_ns = s->t;
	w.t_switch_ns = ts;
	w.latency_ns = (int64_t)(ts - s->t);
	twc_record(c, &w, s->idx);
}

void trace_wake_calc_lost(struct trace_wake_calc *c, uint64_t n)
{
	c->st.lost_events += n;
	for (size_t i = 0; i < c->nslots; i++) {
		struct twc_slot *s = &c->slots[i];

		if (s->pid == -1)
			continue;
		twc_drop(s, &c->st.unmatched_wakings);
		s->where = TWC_UNKNOWN;
	}
}

void trace_wake_calc_stats(const struct trace_wake_calc *c, struct trace_wake_stats *out)
{
	*out = c->st;
	out->pending_wakings = 0;
	for (size_t i = 0; i < c->nslots; i++)
		if (c->slots[i].pid != -1 && c->slots[i].pending)
			out->pending_wakings++;
	out->avg_ns = c->st.matched ? c->sum_ns / (double)c->st.matched : 0.0;
}

const struct trace_wakeup *trace_wake_calc_records(const struct trace_wake_calc *c, size_t *n)
{
	*n = c->nrecs;
	return c->recs;
}

const struct rt_hist *trace_wake_calc_hist(const struct trace_wake_calc *c)
{
	return c->hist;
}

/* ---- Text traces ---- */

/* The integer after " key=" (or key= at the start) in @s, or -1. */
static long twc_field_num(const char *s, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = strstr(s, key); p; p = strstr(p + 1, key))
		if ((p == s || p[-1] == ' ') && p[kl] == '=')
			return strtol(p + kl + 1, NULL, 10);
	return -1;
}

/* prev_state= names a sleep (S, D, I, ...), not R or R+. */
static bool twc_field_blocked(const char *s)
{
	for (const char *p = strstr(s, "prev_state="); p; p = strstr(p + 1, "prev_state="))
		if (p == s || p[-1] == ' ')
			return p[11] != 'R' && p[11] != ' ' && p[11] != '\0';
	return false;
}

/* "sec.frac:" at @p (frac of any length) in nanoseconds; @end after the colon. */
static bool twc_parse_ts(const char *p, uint64_t *ts, const char **end)
{
	unsigned long long sec = 0, frac = 0;
	size_t digits = 0;
	const char *q = p;

	if (*q < '0' || *q > '9')
		return false;
	for (; *q >= '0' && *q <= '9'; q++)
		sec = sec * 10 + (unsigned long long)(*q - '0');
	if (*q++ != '.')
		return false;
	for (; *q >= '0' && *q <= '9'; q++)
		if (digits++ < 9)
			frac = frac * 10 + (unsigned long long)(*q - '0');
	if (!digits || *q != ':' || sec > UINT64_MAX / 1000000000ull - 1)
		return false;
	for (size_t d = digits; d < 9; d++)
		frac *= 10;
	*ts = sec * 1000000000ull + frac;
	*end = q + 1;
	return true;
}

/*
 * "comm-pid [cpu] [flags] sec.frac: event..." (comm may hold spaces,
 * dashes and brackets): the current pid, the CPU, the time and where the
 * event's name starts. False when the line is not an event.
 */
static bool twc_parse_line(const char *line, pid_t *cur, int *cpu, uint64_t *ts,
			   const char **ev)
{
	for (const char *br = strstr(line, " ["); br; br = strstr(br + 1, " [")) {
		const char *p = br + 2, *dash;
		char *e;
		long n = strtol(p, &e, 10);

		if (e == p || *e != ']' || n < 0 || n > 65535)
			continue;
		p = e + 1;
		while (*p == ' ')
			p++;
		if (!twc_parse_ts(p, ts, ev)) {
			/* The flags column ("d..2.") of a tracefs `trace` file. */
			while (*p && *p != ' ')
				p++;
			while (*p == ' ')
				p++;
			if (!twc_parse_ts(p, ts, ev))
				continue;
		}
		*cpu = (int)n;
		*cur = -1;
		for (dash = br; dash > line && dash[-1] == ' '; dash--)
			;
		for (const char *d = dash; d > line; d--)
			if (d[-1] == '-') {
				n = strtol(d, &e, 10);
				if (e != d && e == dash && n >= 0)
					*cur = (pid_t)n;
				break;
			}
		while (**ev == ' ')
			(*ev)++;
		return true;
	}
	return false;
}

/* A ring-buffer loss line: "CPU:1 [LOST 12 EVENTS]" or "CPU:1 [12 EVENTS DROPPED]". */
static bool twc_parse_lost(const char *line, uint64_t *n)
{
	const char *p = strstr(line, "CPU:");
	const char *b = p ? strchr(p, '[') : NULL;

	if (!b)
		return false;
	if (!strncmp(b + 1, "LOST ", 5) && strstr(b, " EVENTS]")) {
		*n = strtoull(b + 6, NULL, 10);
		return true;
	}
	if (strstr(b, " EVENTS DROPPED]")) {
		*n = strtoull(b + 1, NULL, 10);
		return true;
	}
	return false;
}

size_t trace_wake_calc_feed_text(struct trace_wake_calc *c, const char *text)
{
	size_t fed = 0;

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n'), *start = line, *ev, *f;
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[1024];
		uint64_t ts, lost;
		pid_t cur;
		int cpu;

		line = nl ? nl + 1 : NULL;
		if (len >= sizeof(buf))
			continue;
		memcpy(buf, start, len);
		buf[len] = '\0';
		if (buf[0] == '#')
			continue;
		if (twc_parse_lost(buf, &lost)) {
			trace_wake_calc_lost(c, lost ? lost : 1);
			continue;
		}
		if (!twc_parse_line(buf, &cur, &cpu, &ts, &ev))
			continue;
		f = strchr(ev, ':');
		if (!f)
			continue;
		if (!strncmp(ev, "sched_waking:", 13)) {
			long pid = twc_field_num(f, "pid"), tcpu = twc_field_num(f, "target_cpu");

			if (pid > 0) {
				trace_wake_calc_waking(c, ts, cur, (pid_t)pid, (int)tcpu);
				fed++;
			}
		} else if (!strncmp(ev, "sched_switch:", 13)) {
			const char *arrow = strstr(f, "==>");
			long prev = twc_field_num(f, "prev_pid"), next = twc_field_num(f, "next_pid");

			if (prev >= 0 && next >= 0 && arrow) {
				trace_wake_calc_switch(c, ts, cpu, (pid_t)prev, twc_field_blocked(f),
						       (pid_t)next);
				fed++;
			}
		}
	}
	return fed;
}

/* ---- The tracefs side ---- */

/* In this order at one instant: a loss first, a waking before its switch. */
enum te_kind { TE_LOST, TE_WAKING, TE_SWITCH };

struct te_event {
	uint64_t ts;
	int cpu;
	enum te_kind kind;
	int cur;		/* the task current where it was recorded */
	int a;			/* waking: pid; switch: prev_pid; lost: how many */
	int b;			/* waking: target_cpu; switch: next_pid */
	bool blocked;		/* switch: prev_state was a sleep */
};

struct trace_events {
	struct rt_journal *j;		/* borrowed */
	struct tracefs_instance *inst;	/* owned */
	char *name;			/* owned */
	struct tep_handle *tep;		/* owned */
	struct trace_wake_calc *calc;	/* owned */
	unsigned int flags;
	int waking_id, switch_id;
	struct tep_format_field *f_pid, *f_target, *f_prev, *f_next, *f_state;	/* borrowed */
	struct te_event *batch;		/* owned; one poll's events */
	size_t nbatch, capbatch;
	uint64_t irq_events;
	int err;			/* sticky -ENOMEM inside a poll */
};

static const char *const te_irq_events[][2] = {
	{ "irq", "irq_handler_entry" }, { "irq", "irq_handler_exit" },
	{ "irq", "softirq_entry" }, { "irq", "softirq_exit" },
};

static int te_tracefs_err(struct trace_events *ev, const char *what, char **cause)
{
	int err = errno ? -errno : -EIO;
	char *why = tracefs_error_last(ev->inst);

	if (why && *why)
		rt_err(cause, err, "%s in %s: %s (tracefs: %s)", what, ev->name, strerror(-err),
		       why);
	else
		rt_err(cause, err, "%s in %s: %s", what, ev->name, strerror(-err));
	free(why);
	return err;
}

/* "next_pid==1||prev_pid==1||next_pid==2||prev_pid==2" for the watched pids and fields. */
static char *te_filter(const char *const *fields, const pid_t *pids, size_t n)
{
	size_t cap = n * 64 + 1, len = 0;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	s[0] = '\0';
	for (size_t i = 0; i < n; i++)
		for (const char *const *f = fields; *f; f++)
			len += (size_t)snprintf(s + len, cap - len, "%s%s==%d", len ? "||" : "",
						*f, (int)pids[i]);
	return s;
}

static int te_enable(struct trace_events *ev, const char *sys, const char *event,
		     const char *filter, char **cause)
{
	char what[128];

	if (filter && tracefs_event_file_write(ev->inst, sys, event, "filter", filter) < 0) {
		snprintf(what, sizeof(what), "cannot set the filter of %s/%s", sys, event);
		return te_tracefs_err(ev, what, cause);
	}
	if (tracefs_event_enable(ev->inst, sys, event) < 0) {
		snprintf(what, sizeof(what), "cannot enable %s/%s", sys, event);
		return te_tracefs_err(ev, what, cause);
	}
	return 0;
}

static int te_setup_tep(struct trace_events *ev, char **cause)
{
	static const char *const systems[] = { "sched", "irq", NULL };
	struct tep_event *w, *s;

	ev->tep = tracefs_local_events_system(NULL, systems);
	if (!ev->tep)
		return rt_err(cause, errno ? -errno : -EIO, "cannot load the event formats");
	w = tep_find_event_by_name(ev->tep, "sched", "sched_waking");
	s = tep_find_event_by_name(ev->tep, "sched", "sched_switch");
	if (!w || !s)
		return rt_err(cause, -ENOENT, "this kernel has no sched/%s event",
			      w ? "sched_switch" : "sched_waking");
	ev->waking_id = w->id;
	ev->switch_id = s->id;
	ev->f_pid = tep_find_field(w, "pid");
	ev->f_target = tep_find_field(w, "target_cpu");
	ev->f_prev = tep_find_field(s, "prev_pid");
	ev->f_next = tep_find_field(s, "next_pid");
	ev->f_state = tep_find_field(s, "prev_state");
	if (!ev->f_pid || !ev->f_target || !ev->f_prev || !ev->f_next || !ev->f_state)
		return rt_err(cause, -EPROTO, "the sched event formats lack the pid fields");
	return 0;
}

struct trace_events *trace_events_new(struct rt_journal *j, const char *lab,
				      const struct trace_events_opts *opts, char **cause)
{
	struct trace_events *ev = NULL;
	char *fw = NULL, *fs = NULL, kb[32];
	int ret;

	if (!j || !opts || opts->npids > TRACE_EVENTS_MAX_PIDS || (opts->npids && !opts->pids)) {
		ret = rt_err(cause, -EINVAL, "bad event-mode options");
		goto out_err;
	}
	for (size_t i = 0; i < opts->npids; i++)
		if (opts->pids[i] <= 0) {
			ret = rt_err(cause, -EINVAL, "bad pid %d", (int)opts->pids[i]);
			goto out_err;
		}
	if (!tracefs_tracing_dir()) {
		ret = rt_err(cause, -ENODEV, "tracefs is not mounted");
		goto out_err;
	}
	if (trace_ctl_sweep_stale(NULL, NULL))
		rt_log(RT_LOG_WARN, "trace: could not remove every stale instance");
	ev = calloc(1, sizeof(*ev));
	if (!ev) {
		ret = rt_err(cause, -ENOMEM, "out of memory");
		goto out_err;
	}
	ev->j = j;
	ev->flags = opts->flags;
	ev->calc = trace_wake_calc_new(opts->pids, opts->npids,
				       opts->hist_us ? opts->hist_us : 10000);
	if (!ev->calc) {
		ret = rt_err(cause, -errno, "cannot allocate the matcher: %s", strerror(errno));
		goto out_err;
	}
	ret = te_setup_tep(ev, cause);
	if (ret)
		goto out_err;
	if ((lab ? asprintf(&ev->name, "rtlab-%s-%d", lab, (int)getpid()) :
		   asprintf(&ev->name, "rtlab-%d", (int)getpid())) < 0) {
		ev->name = NULL;
		ret = rt_err(cause, -ENOMEM, "out of memory");
		goto out_err;
	}
	ret = rt_journal_create_instance(j, ev->name, cause);
	if (ret) {
		free(ev->name);
		ev->name = NULL;
		goto out_err;
	}
	ev->inst = tracefs_instance_alloc(NULL, ev->name);
	if (!ev->inst) {
		ret = rt_err(cause, -ENOMEM, "cannot open instance %s", ev->name);
		goto out_err;
	}
	if (tracefs_instance_file_write(ev->inst, "tracing_on", "0") < 0) {
		ret = te_tracefs_err(ev, "cannot stop tracing", cause);
		goto out_err;
	}
	if (tracefs_instance_file_write(ev->inst, "trace_clock", "mono") < 0)
		rt_log(RT_LOG_WARN, "trace: no mono trace clock in %s; timestamps use the "
		       "default clock", ev->name);
	snprintf(kb, sizeof(kb), "%u", opts->buffer_kb ? opts->buffer_kb : 2048);
	if (tracefs_instance_file_write(ev->inst, "buffer_size_kb", kb) < 0) {
		ret = te_tracefs_err(ev, "cannot size the buffer", cause);
		goto out_err;
	}
	if (opts->npids) {
		static const char *const waking[] = { "pid", NULL };
		static const char *const sw[] = { "next_pid", "prev_pid", NULL };

		/* Switches from the threads too: the matcher tells a missed switch-in by them. */
		fw = te_filter(waking, opts->pids, opts->npids);
		fs = te_filter(sw, opts->pids, opts->npids);
		if (!fw || !fs) {
			ret = rt_err(cause, -ENOMEM, "out of memory");
			goto out_err;
		}
	}
	ret = te_enable(ev, "sched", "sched_waking", fw, cause);
	if (!ret)
		ret = te_enable(ev, "sched", "sched_switch", fs, cause);
	for (size_t i = 0; !ret && (ev->flags & TRACE_EVENTS_IRQ) &&
	     i < sizeof(te_irq_events) / sizeof(te_irq_events[0]); i++)
		ret = te_enable(ev, te_irq_events[i][0], te_irq_events[i][1], NULL, cause);
	if (ret)
		goto out_err;
	free(fw);
	free(fs);
	return ev;

out_err:
	trace_events_destroy(ev);
	free(fw);
	free(fs);
	errno = -ret;
	return NULL;
}

int trace_events_start(struct trace_events *ev, char **cause)
{
	if (tracefs_trace_on(ev->inst) < 0)
		return te_tracefs_err(ev, "cannot start tracing", cause);
	return 0;
}

int trace_events_stop(struct trace_events *ev, char **cause)
{
	if (tracefs_trace_off(ev->inst) < 0)
		return te_tracefs_err(ev, "cannot stop tracing", cause);
	return 0;
}

/* A new slot at the end of the batch, or NULL (ev->err set). */
static struct te_event *te_batch_add(struct trace_events *ev)
{
	if (ev->nbatch == ev->capbatch) {
		size_t cap = ev->capbatch ? ev->capbatch * 2 : 4096;
		struct te_event *v = realloc(ev->batch, cap * sizeof(*v));

		if (!v) {
			ev->err = -ENOMEM;
			return NULL;
		}
		ev->batch = v;
		ev->capbatch = cap;
	}
	memset(&ev->batch[ev->nbatch], 0, sizeof(ev->batch[0]));
	return &ev->batch[ev->nbatch++];
}

static int te_callback(struct tep_event *event, struct tep_record *rec, int cpu, void *priv)
{
	struct trace_events *ev = priv;
	unsigned long long a, b, state = 0;
	struct te_event *e;

	if (rec->missed_events) {
		/* Lost before this record on this CPU: the matcher forgets at that point. */
		e = te_batch_add(ev);
		if (!e)
			return 1;	/* stop iterating */
		e->ts = rec->ts;
		e->cpu = cpu;
		e->kind = TE_LOST;
		e->a = rec->missed_events > 0 && rec->missed_events < 0x7fffffff ?
		       (int)rec->missed_events : 1;
	}
	if (event->id == ev->waking_id) {
		if (tep_read_number_field(ev->f_pid, rec->data, &a) ||
		    tep_read_number_field(ev->f_target, rec->data, &b))
			return 0;
	} else if (event->id == ev->switch_id) {
		if (tep_read_number_field(ev->f_prev, rec->data, &a) ||
		    tep_read_number_field(ev->f_next, rec->data, &b) ||
		    tep_read_number_field(ev->f_state, rec->data, &state))
			return 0;
	} else {
		ev->irq_events++;
		return 0;
	}
	e = te_batch_add(ev);
	if (!e)
		return 1;
	e->ts = rec->ts;
	e->cpu = cpu;
	e->kind = event->id == ev->waking_id ? TE_WAKING : TE_SWITCH;
	e->cur = tep_data_pid(ev->tep, rec);
	e->a = (int)a;
	e->b = (int)b;
	/* The task-state bits below the preemption mark (TASK_REPORT_MAX, 0x100). */
	e->blocked = (state & 0xff) != 0;
	return 0;
}

static int te_cmp(const void *pa, const void *pb)
{
	const struct te_event *a = pa, *b = pb;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	/* Same instant: a loss first, then the waking, so a zero latency still matches. */
	return (int)a->kind - (int)b->kind;
}

int trace_events_poll(struct trace_events *ev, char **cause)
{
	int ret, n;

	ev->nbatch = 0;
	ev->err = 0;
	ret = tracefs_iterate_raw_events(ev->tep, ev->inst, NULL, 0, te_callback, ev);
	if (ev->err)
		return rt_err(cause, ev->err, "out of memory while reading events");
	if (ret < 0)
		return te_tracefs_err(ev, "cannot read the events", cause);
	qsort(ev->batch, ev->nbatch, sizeof(*ev->batch), te_cmp);
	for (size_t i = 0; i < ev->nbatch; i++) {
		const struct te_event *e = &ev->batch[i];

		if (e->kind == TE_LOST)
			trace_wake_calc_lost(ev->calc, (uint64_t)e->a);
		else if (e->kind == TE_WAKING)
			trace_wake_calc_waking(ev->calc, e->ts, e->cur, e->a, e->b);
		else
			trace_wake_calc_switch(ev->calc, e->ts, e->cpu, e->a, e->blocked, e->b);
	}
	n = ev->nbatch > 0x7fffffff ? 0x7fffffff : (int)ev->nbatch;
	return n;
}

const struct trace_wake_calc *trace_events_calc(const struct trace_events *ev)
{
	return ev->calc;
}

const char *trace_events_instance_name(const struct trace_events *ev)
{
	return ev->name;
}

uint64_t trace_events_irq_count(const struct trace_events *ev)
{
	return ev->irq_events;
}

int trace_events_destroy(struct trace_events *ev)
{
	int ret = 0;

	if (!ev)
		return 0;
	if (ev->inst) {
		tracefs_trace_off(ev->inst);
		/* Disabling first keeps rmdir from racing new events. */
		tracefs_event_disable(ev->inst, NULL, NULL);
		if (tracefs_instance_destroy(ev->inst) < 0) {
			ret = errno ? -errno : -EIO;
			rt_log(RT_LOG_ERR, "trace: cannot remove instance %s: %s (the journal "
			       "will retry)", ev->name, strerror(-ret));
		}
		tracefs_instance_free(ev->inst);
	}
	tep_free(ev->tep);
	trace_wake_calc_free(ev->calc);
	free(ev->batch);
	free(ev->name);
	free(ev);
	return ret;
}
