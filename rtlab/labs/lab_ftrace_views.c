/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_ftrace_views: what a person reads of an ftrace run, built from its
 * results document only (struct ftrace_doc, lab_ftrace_doc.c), so that a
 * saved file shows the same as the run that wrote it.
 *
 * views() describes the outcome as tables of rtlab.result/2 (doc/ftrace.md
 * lists them): the run and its scenario, the wake-ups seen two ways, how
 * the two compare, the tracer and the start of its trace, the hunt and the
 * cross-check. The CLI, the TUI and the HTML report draw them. text() is
 * the CLI's summary of before the views, kept word for word until the
 * front ends draw the views instead.
 *
 * Neither ever shows the hunt's truth (extra.hunt.truth): the learner is
 * hunting for it. The hunt's table carries the seed in a column of its own,
 * so a screen that hides a seed the learner did not type can leave it out.
 */
#include "lab_ftrace_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_err.h"
#include "core/rt_result.h"
#include "core/rt_text.h"
#include "labs/lab_ftrace_doc.h"
#include "trace/trace_emu.h"
#include "trace/trace_explain.h"
#include "trace/trace_latency.h"

/* Entries of the tracer's trace that the text and the trace view show. */
#define SHOWN_LINES 20u

/* ---- Text -------------------------------------------------------------------------- */

/* ---- Views --------------------------------------------------------------------------- */

static json_t *num_or_null(bool have, double v)
{
	return have ? json_real(v) : json_null();
}

/*
 * @s as a JSON string of at most @max bytes, cut at a character boundary:
 * a document's strings (a reason, a task name) have no length limit, a
 * view's cells and titles have one.
 */
static json_t *str_max(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n > max) {
		n = max;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	return json_stringn(s, n);
}

static json_t *cell_str(const char *s)
{
	return str_max(s, RT_RESULT_MAX_CELL);
}

/* A function name from the trace's header, or no value ("-") where it gave none. */
static json_t *name_or_null(const char *s)
{
	return s && *s ? cell_str(s) : json_null();
}

/*
 * What the tracer's row means when a field is empty, so that a learner is
 * never left with blanks: why no entries, why no start or end function.
 */
static const char *tracer_reading(const struct ftrace_doc_tracer *t)
{
	bool wakeup = t->name && !strncmp(t->name, "wakeup", 6);

	if (!t->entries_count && t->threshold_us)
		return "no entries: no section crossed tracing_thresh, so the tracer kept none; "
		       "lower --threshold or run longer";
	if (!t->entries_count && !t->have_latency)
		return "no entries: the tracer recorded nothing in this run (its buffer was "
		       "empty when read); run it again, longer";
	if (!t->entries_count)
		return "no entries kept: the header has the worst latency, but the buffer "
		       "held no functions (function trace off, or it was reset)";
	if (wakeup && !(t->started_at && *t->started_at))
		return "a wakeup tracer times one wake-up to its switch-in, so it names no "
		       "started/ended function; read the trace for what ran in between";
	if (!(t->started_at && *t->started_at) || !(t->ended_at && *t->ended_at))
		return "the trace's header gave no start or end function";
	return "the section began and ended where the header says; the trace shows what "
	       "ran inside it";
}

/*
 * A view under construction: columns are added first, then rows of exactly
 * as many cells. Every helper is a no-op once something failed (v->err), so
 * a builder checks once at the end.
 */
struct view {
	json_t *o;		/* owned until handed to the array */
	bool err;
};

static void view_begin(struct view *v, const char *name, const char *title)
{
	json_t *t = str_max(title, 256);

	v->o = rt_result_view_new(name, json_string_value(t));
	json_decref(t);
	v->err = !v->o;
}

static void view_col(struct view *v, const char *name, const char *title, const char *unit)
{
	if (!v->err && rt_result_view_add_column(v->o, name, title, unit))
		v->err = true;
}

/* Append a row; @row's reference is taken (NULL from a failed json_pack marks the error). */
static void view_row(struct view *v, json_t *row)
{
	if (v->err) {
		json_decref(row);
		return;
	}
	if (rt_result_view_add_row(v->o, row))
		v->err = true;
}

/* Hand the view to @views; 0 or -ENOMEM. */
static int view_end(struct view *v, json_t *views)
{
	int ret = v->err || json_array_append_new(views, v->o) ? -ENOMEM : 0;

	if (v->err)
		json_decref(v->o);
	v->o = NULL;
	return ret;
}

static int view_run(const struct ftrace_doc *d, json_t *views)
{
	const struct ftrace_doc_probe *p = &d->probe;
	struct view v;
	char probe[160], measured[48];

	snprintf(probe, sizeof(probe), "SCHED_%s prio %d on CPU %d, thread %d",
		 !strcmp(p->policy, "other") ? "OTHER" : "FIFO", p->priority, p->cpu, p->tid);
	snprintf(measured, sizeof(measured), "%.1f s%s", d->measured_s,
		 d->interrupted ? ", interrupted" : "");
	view_begin(&v, "run", "The run");
	view_col(&v, "item", NULL, NULL);
	view_col(&v, "value", NULL, NULL);
	view_row(&v, json_pack("[s, o]", "scenario", cell_str(d->scenario)));
	view_row(&v, json_pack("[s, s]", "mode", d->mode == FTRACE_MODE_TRACER ?
			       "tracer: a latency tracer too, and its trace" :
			       "events: sched_waking -> sched_switch"));
	view_row(&v, json_pack("[s, s]", "probe", probe));
	view_row(&v, json_pack("[s, s]", "measured", measured));
	if (d->agreement.present) {
		char matched[96];

		snprintf(matched, sizeof(matched), "%.1f %% of the probe's wake-ups",
			 d->agreement.count_ratio * 100);
		view_row(&v, json_pack("[s, s]", "events matched", matched));
		view_row(&v, json_pack("[s, o]", "agreement", cell_str(d->agreement.verdict)));
	}
	return view_end(&v, views);
}

static int view_wakeups(const struct ftrace_doc *d, json_t *views)
{
	const struct ftrace_doc_dist *p = &d->probe.d, *e = &d->events.d;
	struct view v;

	view_begin(&v, "wakeups", "Wake-ups seen two ways");
	view_col(&v, "source", "seen by", NULL);
	view_col(&v, "count", "wake-ups", "count");
	view_col(&v, "p50", "p50", "us");
	view_col(&v, "p99", "p99", "us");
	view_col(&v, "max", "max", "us");
	view_col(&v, "unmatched", "unmatched wakings", "count");
	view_col(&v, "lost", "lost events", "count");
	view_col(&v, "woken_running", "woken while running", "count");
	view_col(&v, "missed", "switch-in not recorded", "count");
	view_row(&v, json_pack("[s, I, f, f, f, n, n, n, n]", "probe (clock_nanosleep)",
			       (json_int_t)p->count, p->p50_us, p->p99_us, p->max_us));
	view_row(&v, json_pack("[s, I, f, f, f, I, I, I, I]",
			       "events (sched_waking -> sched_switch)",
			       (json_int_t)e->count, e->p50_us, e->p99_us, e->max_us,
			       (json_int_t)d->events.unmatched_wakings,
			       (json_int_t)d->events.lost,
			       (json_int_t)d->events.woken_running,
			       (json_int_t)d->events.missed_switch_ins));
	return view_end(&v, views);
}

static int view_agreement(const struct ftrace_doc_agreement *a, json_t *views)
{
	const struct ftrace_doc_pair *pairs[] = { &a->p50, &a->p90, &a->p99, &a->max };
	static const char *const names[] = { "p50", "p90", "p99", "max" };
	struct view v;

	view_begin(&v, "agreement", "The probe and the events compared");
	view_col(&v, "figure", NULL, NULL);
	view_col(&v, "probe", "probe", "us");
	view_col(&v, "events", "events", "us");
	view_col(&v, "diff", "probe - events", "us");
	for (size_t i = 0; i < 4; i++)
		view_row(&v, json_pack("[s, f, f, f]", names[i], pairs[i]->probe_us,
				       pairs[i]->events_us, pairs[i]->diff_us));
	return view_end(&v, views);
}

/*
 * The first of SHOWN_LINES entries to show: a window around the widest gap
 * between two consecutive entries, which is what a latency trace is about
 * (the first entries are often microseconds apart and say nothing). @gap_us
 * and @gap_at get that gap and the entry after it.
 */
static size_t widest_gap_window(const struct rt_result *res, size_t n, double *gap_us,
				size_t *gap_at)
{
	struct ftrace_doc_line l;
	double prev = 0, widest = -1;
	size_t at = 0, first;

	for (size_t i = 0; i < n && ftrace_doc_trace_line(res, i, &l) == 0; i++) {
		if (i && l.time_us - prev > widest) {
			widest = l.time_us - prev;
			at = i;
		}
		prev = l.time_us;
	}
	*gap_us = widest > 0 ? widest : 0;
	*gap_at = at;
	if (n <= SHOWN_LINES)
		return 0;
	/* A few entries before the gap, the rest after it: what led in, what it held. */
	first = at > SHOWN_LINES / 4 ? at - SHOWN_LINES / 4 : 0;
	return first + SHOWN_LINES > n ? n - SHOWN_LINES : first;
}

/*
 * "likely the emulator's: ..." when the kept trace's worst section is
 * (trace_emu), in @buf; NULL when it is not or the trace cannot be read.
 */
static const char *emulator_reading(const struct rt_result *res, char *buf, size_t size)
{
	struct trace_explain_src src;
	struct trace_latency *lat = NULL;
	struct trace_emu_verdict ev;
	struct rt_buf b = RT_BUF_INIT;
	enum trace_emu_env env = lab_trace_env(res);
	const char *ret = NULL;

	if (ftrace_doc_trace(res, "document", &src, NULL) ||
	    trace_latency_parse(src.text, src.len, "document", &lat, NULL))
		return NULL;
	trace_emu_judge(lat, env, &ev);
	if (ev.likely && !trace_emu_sentence(&ev, env, false, &b) && b.len) {
		snprintf(buf, size, "%.*s; `rtlab trace explain FILE` says what to do", (int)b.len - 1,
			 rt_buf_str(&b));
		ret = buf;
	}
	rt_buf_fini(&b);
	trace_latency_free(lat);
	return ret;
}

static int view_tracer(const struct rt_result *res, const struct ftrace_doc_tracer *t,
		       json_t *views)
{
	struct ftrace_doc_line l;
	size_t first, gap_at;
	double gap_us;
	struct view v;
	char title[512], emu[RT_RESULT_MAX_CELL];
	const char *reading = emulator_reading(res, emu, sizeof(emu));
	int ret;

	snprintf(title, sizeof(title), "The %s tracer", t->name);
	view_begin(&v, "tracer", title);
	view_col(&v, "tracer", NULL, NULL);
	view_col(&v, "where", NULL, NULL);
	view_col(&v, "latency", "worst latency", "us");
	view_col(&v, "threshold", "tracing_thresh", "us");
	view_col(&v, "function_trace", "function trace", NULL);
	view_col(&v, "started_at", "started at", NULL);
	view_col(&v, "ended_at", "ended at", NULL);
	view_col(&v, "entries", "entries", "count");
	view_col(&v, "reading", "what this says", NULL);
	view_row(&v, json_pack("[o, s, o, I, b, o, o, I, s]", cell_str(t->name),
			       t->top_level ? "top level" : "an instance",
			       num_or_null(t->have_latency, (double)t->latency_us),
			       (json_int_t)t->threshold_us, t->function_trace,
			       name_or_null(t->started_at), name_or_null(t->ended_at),
			       (json_int_t)t->entries_count, reading ? reading : tracer_reading(t)));
	ret = view_end(&v, views);
	if (ret || !t->nlines)
		return ret;

	first = widest_gap_window(res, t->nlines, &gap_us, &gap_at);
	if (t->nlines > SHOWN_LINES)
		snprintf(title, sizeof(title), "Its trace: entries %zu-%zu of %zu, around the "
			 "widest gap (%.0f us before entry %zu); all of them: rtlab trace view "
			 "FILE, key w", first + 1, first + SHOWN_LINES, t->nlines, gap_us,
			 gap_at + 1);
	else
		snprintf(title, sizeof(title), "Its trace: %zu entr%s", t->nlines,
			 t->nlines == 1 ? "y" : "ies");
	view_begin(&v, "trace", title);
	view_col(&v, "comm", "task", NULL);
	view_col(&v, "cpu", "CPU", NULL);
	view_col(&v, "flags", NULL, NULL);
	view_col(&v, "state", NULL, NULL);
	view_col(&v, "time", "time", "us");
	view_col(&v, "mark", NULL, NULL);
	view_col(&v, "function", NULL, NULL);
	view_col(&v, "caller", NULL, NULL);
	for (size_t i = first; i < first + SHOWN_LINES && ftrace_doc_trace_line(res, i, &l) == 0;
	     i++) {
		char state[RT_RESULT_MAX_CELL + 64];

		snprintf(state, sizeof(state), "%s%s%s", l.irqs_off ? "irqs-off " : "",
			 l.need_resched ? "need-resched " : "", l.context);
		view_row(&v, json_pack("[o, i, o, o, f, o, o, o]", cell_str(l.comm), l.cpu,
				       cell_str(l.flags), cell_str(state), l.time_us,
				       cell_str(l.mark), cell_str(l.function),
				       cell_str(l.caller)));
	}
	return view_end(&v, views);
}

static int view_hunt(const struct ftrace_doc_hunt *h, json_t *views)
{
	struct view v;

	view_begin(&v, "hunt", "The hunt: a cause was planted (which is for you to find)");
	view_col(&v, "seed", NULL, NULL);
	view_col(&v, "injector", NULL, NULL);
	view_col(&v, "planted", "sections planted", "count");
	view_col(&v, "burst", "each up to", "us");
	view_row(&v, json_pack("[o, o, I, I]", cell_str(h->seed), cell_str(h->injector),
			       (json_int_t)h->planted, (json_int_t)h->burst_us));
	return view_end(&v, views);
}

static json_t *tool_row(const char *name, const struct ftrace_doc_tool *t, bool rtla)
{
	if (!t->ran)
		return json_pack("[s, b, n, n, n, n, o]", name, 0, cell_str(t->reason));
	if (rtla)
		return json_pack("[s, b, I, n, f, f, s]", name, 1, (json_int_t)t->count,
				 t->avg_us, t->max_us, "");
	return json_pack("[s, b, I, f, n, f, s]", name, 1, (json_int_t)t->count, t->p50_us,
			 t->max_us, "");
}

static int view_check(const struct ftrace_doc_check *c, json_t *views)
{
	struct view v;

	view_begin(&v, "cross_check", "Cross-check with trace-cmd and rtla timerlat");
	view_col(&v, "tool", NULL, NULL);
	view_col(&v, "ran", NULL, NULL);
	view_col(&v, "count", "wake-ups", "count");
	view_col(&v, "p50", "p50", "us");
	view_col(&v, "avg", "avg", "us");
	view_col(&v, "max", "max", "us");
	view_col(&v, "reason", "why not", NULL);
	if (c->skipped)
		view_row(&v, json_pack("[s, b, n, n, n, n, s]", "trace-cmd and rtla", 0,
				       "skipped: --no-cross-check"));
	if (c->trace_cmd.present)
		view_row(&v, tool_row("trace-cmd", &c->trace_cmd, false));
	if (c->rtla.present)
		view_row(&v, tool_row("rtla timerlat", &c->rtla, true));
	return view_end(&v, views);
}

int ftrace_views(const struct rt_result *res, json_t *views, char **cause)
{
	struct ftrace_doc d;
	int ret;

	if (ftrace_doc_read(res, &d))
		return rt_err(cause, -EINVAL, "not a results document of the ftrace lab");
	ret = view_run(&d, views);
	ret = ret ? ret : view_wakeups(&d, views);
	if (!ret && d.agreement.present)
		ret = view_agreement(&d.agreement, views);
	if (!ret && d.tracer.present)
		ret = view_tracer(res, &d.tracer, views);
	if (!ret && d.hunt.present)
		ret = view_hunt(&d.hunt, views);
	if (!ret && d.check.present)
		ret = view_check(&d.check, views);
	return ret ? rt_err(cause, ret, "out of memory") : 0;
}
