/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_explain: the words for a latency trace, and the loading that both
 * the viewer and `rtlab trace explain` need (the text copied, lines
 * indexed, parsed once). Taking a trace out of a results document is the
 * lab's business (lab_ftrace_doc.c), so this file knows no lab.
 *
 * The sentences are built from the parsed model only, never from guesses:
 * a fact the header does not carry (no task line, no "started at") is left
 * out rather than invented. The meanings of the tracers, flag columns and
 * delay marks follow the kernel's ftrace documentation as summarised in
 * doc/references.md section 2; the wording is ours.
 */
#include "trace_explain.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_err.h"
#include "core/rt_file.h"

/* ---- Loading ---- */

/* A copy of @text that draws safely: tabs and CRs become blanks, other controls '?'. */
static char *te_clean_copy(const char *text, size_t len)
{
	char *c = malloc(len + 1);

	if (!c)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)text[i];

		/* A CR (CRLF files) is blank, like a tab; other controls show as '?'. */
		c[i] = ch == '\t' || ch == '\r' ? ' ' : (ch < 0x20 && ch != '\n') || ch == 0x7f ?
		       '?' : (char)ch;
	}
	c[len] = '\0';
	return c;
}

static int te_index_lines(struct trace_explain *x)
{
	size_t n = 1;

	for (size_t i = 0; i < x->len; i++)
		n += x->text[i] == '\n';
	x->line_start = malloc(n * sizeof(*x->line_start));
	if (!x->line_start)
		return -ENOMEM;
	x->line_start[0] = 0;
	x->nlines = 1;
	for (size_t i = 0; i < x->len; i++)
		if (x->text[i] == '\n' && i + 1 < x->len)
			x->line_start[x->nlines++] = i + 1;
	if (!x->len)
		x->nlines = 0;
	return 0;
}

static void te_find_marks(struct trace_explain *x)
{
	const struct trace_latency *t = x->trace;
	uint64_t widest = 0;

	for (size_t i = 0; i < t->nentries; i++) {
		uint64_t g = t->entries[i].mark_min_us;

		if (!g || g == UINT64_MAX)
			continue;
		if (!x->nmarks || g > widest) {
			widest = g;
			x->worst_mark = i;
		}
		x->nmarks++;
	}
}

int trace_explain_load_src(const struct trace_explain_src *src, struct trace_explain **out,
			   char **cause)
{
	const char *name = src->name ? src->name : "trace";
	struct trace_explain *x;
	int ret;

	*out = NULL;
	x = calloc(1, sizeof(*x));
	if (!x)
		return rt_err(cause, -ENOMEM, "out of memory");
	x->name = strdup(name);
	if (!x->name) {
		ret = rt_err(cause, -ENOMEM, "out of memory");
		goto out_free;
	}
	x->from_results = src->from_results;
	x->truncated = src->truncated;
	ret = trace_latency_parse(src->text, src->len, name, &x->trace, cause);
	if (ret)
		goto out_free;
	x->text = te_clean_copy(src->text, src->len);
	x->len = src->len;
	if (!x->text || te_index_lines(x)) {
		ret = rt_err(cause, -ENOMEM, "out of memory");
		goto out_free;
	}
	te_find_marks(x);
	x->env = src->env;
	trace_emu_judge(x->trace, x->env, &x->emu);
	*out = x;
	return 0;

out_free:
	trace_explain_free(x);
	return ret;
}

int trace_explain_load(const char *text, size_t len, const char *name,
		       struct trace_explain **out, char **cause)
{
	struct trace_explain_src src = { .text = text, .len = len, .name = name };

	return trace_explain_load_src(&src, out, cause);
}

int trace_explain_read_file(const char *path, char **text, size_t *len, char **cause)
{
	char *why = NULL;
	int ret;

	*text = NULL;
	*len = 0;
	ret = rt_file_load(path, 0, TRACE_EXPLAIN_MAX_FILE, text, len, &why);
	if (ret == -EISDIR)
		rt_err(cause, ret, "%s: is a directory, not a trace file", path);
	else if (ret == -EINVAL)
		rt_err(cause, ret, "%s", why ? why : strerror(-ret));
	else if (ret == -EFBIG)
		rt_err(cause, ret, "%s: larger than %u MiB, too big to be a trace to read; "
		       "explain a part of it (e.g. the first 100000 lines: head -n 100000 FILE "
		       ">part.txt)", path, TRACE_EXPLAIN_MAX_FILE >> 20);
	else if (ret)
		rt_err(cause, ret, "%s: cannot read it: %s", path, strerror(-ret));
	free(why);
	return ret;
}

void trace_explain_free(struct trace_explain *x)
{
	if (!x)
		return;
	free(x->name);
	free(x->text);
	free(x->line_start);
	trace_latency_free(x->trace);
	free(x);
}

const char *trace_explain_line(const struct trace_explain *x, unsigned int lineno, size_t *len)
{
	const char *s, *nl;

	if (!lineno || lineno > x->nlines)
		return NULL;
	s = x->text + x->line_start[lineno - 1];
	nl = memchr(s, '\n', x->len - (size_t)(s - x->text));
	*len = nl ? (size_t)(nl - s) : x->len - (size_t)(s - x->text);
	return s;
}

const struct trace_lat_entry *trace_explain_entry_at(const struct trace_explain *x,
						     unsigned int lineno)
{
	size_t lo = 0, hi = x->trace->nentries;

	/* Entries are in line order. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		unsigned int l = x->trace->entries[mid].line;

		if (l == lineno)
			return &x->trace->entries[mid];
		if (l < lineno)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct trace_lat_problem *trace_explain_problem_at(const struct trace_explain *x,
							 unsigned int lineno)
{
	for (size_t i = 0; i < x->trace->nproblems; i++)
		if (x->trace->problems[i].line == lineno)
			return &x->trace->problems[i];
	return NULL;
}

/* ---- Words ---- */

const char *trace_explain_measures(const char *tracer)
{
	static const struct {
		const char *name;
		const char *what;
	} tab[] = {
		{ "irqsoff", "the longest time hard interrupts stayed disabled on one CPU" },
		{ "preemptoff", "the longest time preemption stayed disabled on one CPU "
		  "(interrupts could still arrive)" },
		{ "preemptirqsoff", "the longest time a CPU could not schedule: interrupts or "
		  "preemption (or both) disabled" },
		{ "wakeup", "the longest time from waking the highest-priority task until it "
		  "ran (any task)" },
		{ "wakeup_rt", "the longest time from waking a real-time task until it ran" },
		{ "wakeup_dl", "the longest time from waking a SCHED_DEADLINE task until it ran" },
		{ "timerlat", "how late a periodic timer's interrupt handler (irq) and then the "
		  "tracer's own thread (thread) ran after the timer was due, per activation" },
		{ "osnoise", "time stolen from a busy-looping thread by interrupts, softirqs, other "
		  "threads and the hardware (noise)" },
		{ "hwlat", "gaps the hardware or firmware took from a CPU with interrupts off "
		  "(SMIs and the like)" },
		{ "function", "no latency: it records every kernel function called" },
		{ "function_graph", "no latency: it records kernel function entries and exits" },
		{ "nop", "nothing: no tracer was active" },
	};

	for (size_t i = 0; tracer && i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(tab[i].name, tracer))
			return tab[i].what;
	return NULL;
}

const char *trace_explain_policy(int policy)
{
	switch (policy) {
	case 0:
		return "SCHED_OTHER";
	case 1:
		return "SCHED_FIFO";
	case 2:
		return "SCHED_RR";
	case 3:
		return "SCHED_BATCH";
	case 5:
		return "SCHED_IDLE";
	case 6:
		return "SCHED_DEADLINE";
	default:
		return NULL;
	}
}

bool trace_explain_is_wakeup(const char *tracer)
{
	return tracer && !strncmp(tracer, "wakeup", 6);
}

char *trace_explain_gap(char mark, char *buf, size_t size)
{
	uint64_t us = trace_lat_mark_min_us(mark);

	if (!size)
		return buf;
	buf[0] = '\0';
	if (!us || us == UINT64_MAX)
		return buf;
	if (us >= 1000000)
		snprintf(buf, size, "> %llu s", (unsigned long long)(us / 1000000));
	else if (us >= 10000)
		snprintf(buf, size, "> %llu ms", (unsigned long long)(us / 1000));
	else
		snprintf(buf, size, "> %llu us", (unsigned long long)us);
	return buf;
}

/* ", SCHED_FIFO, rt_prio 5 = kernel prio 94" and the like. */
static int te_task_sched(struct rt_buf *out, int policy, int rt_prio, int nice)
{
	const char *pol = trace_explain_policy(policy);
	int ret = pol ? rt_buf_printf(out, ", %s", pol) : rt_buf_printf(out, ", policy %d",
									  policy);

	if (ret)
		return ret;
	if (policy == 1 || policy == 2)
		return rt_buf_printf(out, ", rt_prio %d = kernel prio %d", rt_prio, 99 - rt_prio);
	if (policy == 6)
		return 0;
	return rt_buf_printf(out, ", nice %d", nice);
}

static int te_marks_sentence(const struct trace_explain *x, struct rt_buf *out)
{
	const struct trace_lat_entry *w;
	char gap[24];

	if (!x->trace->nentries)
		return 0;
	if (!x->nmarks)
		return rt_buf_puts(out, "No delay marks: no gap between two entries was above "
				   "10 us.\n");
	w = &x->trace->entries[x->worst_mark];
	return rt_buf_printf(out, "%zu delay mark%s; the widest, '%c' (%s), is on line %u%s%s%s.\n",
			     x->nmarks, x->nmarks == 1 ? "" : "s", w->mark,
			     trace_explain_gap(w->mark, gap, sizeof(gap)), w->line,
			     w->function ? " (" : "", w->function ? w->function : "",
			     w->function ? ")" : "");
}

/*
 * timerlat writes no latency header: each activation is an entry whose text
 * is "#ID context irq|thread timer_latency N ns". The worst of each context
 * is what a learner wants first.
 */
static int te_timerlat_sentence(const struct trace_latency *t, struct rt_buf *out)
{
	unsigned long long worst[2] = { 0, 0 };
	size_t at[2] = { 0, 0 };
	bool seen[2] = { false, false };

	for (size_t i = 0; i < t->nentries; i++) {
		const struct trace_lat_entry *e = &t->entries[i];
		unsigned long long ns;
		unsigned int id;
		char ctx[16];
		int k;

		if (!e->text || sscanf(e->text, "#%u context %15s timer_latency %llu ns", &id, ctx,
				       &ns) != 3)
			continue;
		k = !strcmp(ctx, "thread") ? 1 : !strcmp(ctx, "irq") ? 0 : -1;
		if (k < 0 || (seen[k] && ns <= worst[k]))
			continue;
		seen[k] = true;
		worst[k] = ns;
		at[k] = i;
	}
	if (!seen[0] && !seen[1])
		return 0;
	if (seen[1]) {
		int ret = rt_buf_printf(out, "Worst latency %llu us in thread context (line %u, "
					"CPU %d)", (worst[1] + 500) / 1000, t->entries[at[1]].line,
					t->entries[at[1]].cpu);

		if (!ret && seen[0])
			ret = rt_buf_printf(out, "; the worst in irq context was %llu us",
					    (worst[0] + 500) / 1000);
		return ret ? ret : rt_buf_puts(out, ".\n");
	}
	return rt_buf_printf(out, "Worst latency %llu us in irq context (line %u, CPU %d).\n",
			     (worst[0] + 500) / 1000, t->entries[at[0]].line, t->entries[at[0]].cpu);
}

int trace_explain_header(const struct trace_explain *x, struct rt_buf *out)
{
	const struct trace_latency *t = x->trace;
	const char *what = trace_explain_measures(t->tracer);
	bool wake = trace_explain_is_wakeup(t->tracer);
	int ret = 0;

	if (t->tracer && what)
		ret = rt_buf_printf(out, "Tracer %s: %s.\n", t->tracer, what);
	else if (t->tracer)
		ret = rt_buf_printf(out, "Tracer %s (rtlab has no explanation for this tracer).\n",
				    t->tracer);
	else
		ret = rt_buf_puts(out, "No '# tracer:' line: trace entries without a latency "
				  "header.\n");
	if (!ret && t->have_latency) {
		ret = rt_buf_printf(out, "Worst latency %llu us",
				    (unsigned long long)t->latency_us);
		if (!ret && t->cpu >= 0)
			ret = rt_buf_printf(out, " on CPU %d", t->cpu);
		if (!ret && t->have_task) {
			ret = rt_buf_printf(out, "; %s %s-%d (pid %d", wake ? "woken task" : "task",
					    t->task_comm ? t->task_comm : "?", t->task_pid,
					    t->task_pid);
			ret = ret ? ret : te_task_sched(out, t->task_policy, t->task_rt_prio,
							t->task_nice);
			ret = ret ? ret : rt_buf_puts(out, ")");
		}
		ret = ret ? ret : rt_buf_puts(out, ".\n");
	} else if (!ret && t->tracer && !strcmp(t->tracer, "timerlat")) {
		ret = te_timerlat_sentence(t, out);
	} else if (!ret && t->have_task) {
		ret = rt_buf_printf(out, "Task %s-%d (pid %d", t->task_comm ? t->task_comm : "?",
				    t->task_pid, t->task_pid);
		ret = ret ? ret : te_task_sched(out, t->task_policy, t->task_rt_prio, t->task_nice);
		ret = ret ? ret : rt_buf_puts(out, ").\n");
	}
	if (!ret && (t->started_at || t->ended_at))
		ret = rt_buf_printf(out, "Started at %s, ended at %s.\n",
				    t->started_at ? t->started_at : "(not given)",
				    t->ended_at ? t->ended_at : "(not given)");
	ret = ret ? ret : trace_emu_sentence(&x->emu, x->env, true, out);
	if (!ret && t->have_latency) {
		ret = rt_buf_printf(out, "Shown %u of %u entries", t->shown, t->total);
		if (!ret && t->kernel)
			ret = rt_buf_printf(out, "; kernel %s", t->kernel);
		if (!ret && t->preempt_model)
			ret = rt_buf_printf(out, ", model %s", t->preempt_model);
		if (!ret && t->nr_cpus >= 0)
			ret = rt_buf_printf(out, ", %d CPU%s", t->nr_cpus,
					    t->nr_cpus == 1 ? "" : "s");
		ret = ret ? ret : rt_buf_puts(out, ".\n");
	} else if (!ret) {
		ret = rt_buf_printf(out, "%zu entr%s in the file.\n", t->nentries,
				    t->nentries == 1 ? "y" : "ies");
	}
	ret = ret ? ret : te_marks_sentence(x, out);
	if (!ret && x->truncated)
		ret = rt_buf_puts(out, "The results document cut this trace (it keeps at most "
				  "512 KiB): its end is missing.\n");
	if (!ret && t->nproblems_total)
		ret = rt_buf_printf(out, "%zu line%s could not be read; the first: %s\n",
				    t->nproblems_total, t->nproblems_total == 1 ? "" : "s",
				    t->nproblems ? t->problems[0].what : "(not kept)");
	return ret;
}

/* Append @s, with ", " before it unless it is the first item. */
static int te_item(struct rt_buf *out, bool *first, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int te_item(struct rt_buf *out, bool *first, const char *fmt, ...)
{
	char buf[96];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!*first && rt_buf_puts(out, ", "))
		return -ENOMEM;
	*first = false;
	return rt_buf_puts(out, buf);
}

static const char *te_resched_short(const struct trace_lat_flags *f)
{
	if (f->need_resched && f->preempt_resched)
		return "need-resched";
	if (f->need_resched)
		return "need-resched (flag only)";
	if (f->preempt_resched)
		return "need-resched (preempt bit only)";
	return NULL;
}

static int te_flags_short(const struct trace_lat_flags *f, struct rt_buf *out)
{
	const char *r = te_resched_short(f);
	bool first = true;
	int ret = 0;

	if (f->irqs_off)
		ret = te_item(out, &first, f->bh_off ? "irqs off, BH off" : "irqs off");
	else if (f->bh_off)
		ret = te_item(out, &first, "BH off");
	else if (f->irqs_unsupported)
		ret = te_item(out, &first, "irqs unknown");
	if (!ret && r)
		ret = te_item(out, &first, "%s", r);
	if (!ret && f->lazy_resched)
		ret = te_item(out, &first, "lazy resched");
	if (!ret && f->ctx != TRACE_LAT_CTX_NORMAL && f->ctx != TRACE_LAT_CTX_UNKNOWN)
		ret = te_item(out, &first, "%s", trace_lat_ctx_name(f->ctx));
	if (!ret && f->preempt_depth > 0)
		ret = te_item(out, &first, "preempt depth %d", f->preempt_depth);
	if (!ret && f->preempt_lazy_depth > 0)
		ret = te_item(out, &first, "lazy preempt depth %d", f->preempt_lazy_depth);
	if (!ret && f->migrate_disable > 0)
		ret = te_item(out, &first, "migrate off (%d)", f->migrate_disable);
	if (!ret && first && f->raw[0])
		ret = te_item(out, &first, "irqs on, preemptible");
	if (!ret && first)
		ret = te_item(out, &first, "no flags");
	if (!ret && !f->known)
		ret = rt_buf_puts(out, " (some columns not understood)");
	return ret;
}

static int te_flags_full(const struct trace_lat_flags *f, struct rt_buf *out)
{
	const char *r;
	int ret;

	if (!f->raw[0])
		return rt_buf_puts(out, "this line carries no flag columns");
	ret = rt_buf_puts(out, f->irqs_off && f->bh_off ? "hard irqs and bottom halves disabled" :
			  f->irqs_off ? "hard irqs disabled" :
			  f->bh_off ? "irqs on, bottom halves disabled" :
			  f->irqs_unsupported ? "irq state not reported on this architecture" :
			  "irqs enabled");
	if (ret)
		return ret;
	if (f->need_resched && f->preempt_resched)
		r = "; reschedule pending (need-resched flag and preempt bit)";
	else if (f->need_resched)
		r = "; reschedule pending (need-resched flag only)";
	else if (f->preempt_resched)
		r = "; reschedule pending (preempt bit only)";
	else
		r = "; no reschedule pending";
	ret = rt_buf_puts(out, r);
	if (!ret && f->lazy_resched)
		ret = rt_buf_puts(out, ", lazy reschedule requested");
	if (!ret && f->ctx == TRACE_LAT_CTX_NORMAL)
		ret = rt_buf_puts(out, "; task context");
	else if (!ret && f->ctx != TRACE_LAT_CTX_UNKNOWN)
		ret = rt_buf_printf(out, "; in %s", trace_lat_ctx_name(f->ctx));
	/* Depth 0 alone does not make the code preemptible: irqs off (or an irq context) also stop it. */
	if (!ret && f->preempt_depth == 0)
		ret = rt_buf_puts(out, f->irqs_off || (f->ctx != TRACE_LAT_CTX_NORMAL &&
						       f->ctx != TRACE_LAT_CTX_UNKNOWN) ?
				  "; preempt count 0, yet not preemptible here (see above)" :
				  "; preemptible (preempt count 0)");
	else if (!ret && f->preempt_depth > 0)
		ret = rt_buf_printf(out, "; preemption disabled (preempt depth %d)",
				    f->preempt_depth);
	if (!ret && f->preempt_lazy_depth >= 0)
		ret = rt_buf_printf(out, "; lazy preempt depth %d", f->preempt_lazy_depth);
	if (!ret && f->migrate_disable == 0)
		ret = rt_buf_puts(out, "; may migrate");
	else if (!ret && f->migrate_disable > 0)
		ret = rt_buf_printf(out, "; migration disabled (depth %d)", f->migrate_disable);
	if (!ret && !f->known)
		ret = rt_buf_puts(out, "; some columns were not understood");
	return ret;
}

int trace_explain_flags(const struct trace_lat_flags *f, bool full, struct rt_buf *out)
{
	return full ? te_flags_full(f, out) : te_flags_short(f, out);
}

/* A normal-format entry has "[CPU]" before its flags; a latency entry does not. */
static bool te_is_normal_format(const struct trace_explain *x, const struct trace_lat_entry *e)
{
	const char *s, *end, *q;
	size_t len;

	s = trace_explain_line(x, e->line, &len);
	if (!s)
		return false;
	end = memchr(s, ':', len);
	if (!end)
		end = s + len;
	for (const char *p = s; p + 2 < end; p++) {
		if (p[0] != ' ' || p[1] != '[')
			continue;
		for (q = p + 2; q < end && *q >= '0' && *q <= '9'; q++)
			;
		if (q > p + 2 && q < end && *q == ']')
			return true;
	}
	return false;
}

int trace_explain_time(const struct trace_explain *x, const struct trace_lat_entry *e,
		       struct rt_buf *out)
{
	int64_t ns = e->time_ns;

	if (te_is_normal_format(x, e))
		return rt_buf_printf(out, "%lld.%06lld s", (long long)(ns / 1000000000),
				     (long long)((ns % 1000000000) / 1000));
	return rt_buf_printf(out, "+%lld us", (long long)(ns / 1000));
}

static const char *te_state(char c)
{
	switch (c) {
	case 'R':
		return "runnable";
	case 'S':
		return "sleeping";
	case 'D':
		return "in uninterruptible sleep";
	case 'T':
	case 't':
		return "stopped";
	case 'I':
		return "idle";
	case 'X':
	case 'Z':
		return "exiting";
	default:
		return "state unknown";
	}
}

static int te_prio(struct rt_buf *out, int prio)
{
	if (prio < 0)
		return rt_buf_printf(out, "kernel prio %d = deadline", prio);
	if (prio < 100)
		return rt_buf_printf(out, "kernel prio %d = rt_prio %d", prio, 99 - prio);
	if (prio < 140)
		return rt_buf_printf(out, "kernel prio %d = nice %d", prio, prio - 120);
	return rt_buf_printf(out, "kernel prio %d", prio);
}

/*
 * A wake-up tracer's scheduler line, "PID:PRIO:S   + [CPU] PID: PRIO:S COMM"
 * (a wake-up) or "... ==> ..." (a switch). Returns 1 when it was not in that
 * shape (nothing appended), else 0 or -ENOMEM.
 */
static int te_sched_words(const char *s, struct rt_buf *out)
{
	int pid1, prio1, cpu, pid2, prio2, n = 0;
	char st1, st2, op[4];
	int ret;

	if (sscanf(s, "%d:%d:%c %3s [%d] %d: %d:%c %n", &pid1, &prio1, &st1, op, &cpu, &pid2,
		   &prio2, &st2, &n) != 8 || !n || (strcmp(op, "+") && strcmp(op, "==>")))
		return 1;
	if (!strcmp(op, "+"))
		ret = rt_buf_printf(out, "wake-up: %s-%d (", s[n] ? s + n : "?", pid2);
	else
		ret = rt_buf_printf(out, "switch on CPU %d: now runs %s-%d (", cpu,
				    s[n] ? s + n : "?", pid2);
	ret = ret ? ret : te_prio(out, prio2);
	ret = ret ? ret : rt_buf_printf(out, ", %s)", te_state(st2));
	if (!ret && !strcmp(op, "+"))
		ret = rt_buf_printf(out, " on CPU %d, woken by pid %d (", cpu, pid1);
	else if (!ret)
		ret = rt_buf_printf(out, ", after pid %d (", pid1);
	ret = ret ? ret : te_prio(out, prio1);
	return ret ? ret : rt_buf_printf(out, ", %s)\n", te_state(st1));
}

int trace_explain_entry(const struct trace_explain *x, const struct trace_lat_entry *e,
			struct rt_buf *out)
{
	const struct trace_latency *t = x->trace;
	char gap[24];
	int ret;

	ret = rt_buf_printf(out, "%s-%d on CPU %d at ", e->comm ? e->comm : "?", e->pid, e->cpu);
	ret = ret ? ret : trace_explain_time(x, e, out);
	if (ret)
		return ret;
	switch (e->kind) {
	case TRACE_LAT_FUNC:
		ret = rt_buf_printf(out, ": in %s, called from %s\n", e->function, e->caller);
		break;
	case TRACE_LAT_SCHED:
		ret = rt_buf_puts(out, ": ");
		if (!ret)
			ret = te_sched_words(e->text, out);
		if (ret == 1)
			ret = rt_buf_printf(out, "scheduler event %s\n", e->text);
		break;
	case TRACE_LAT_STACK:
		ret = rt_buf_printf(out, ": the stack when the trace ended, %zu frame%s, "
				    "innermost first (below)\n", e->stack_count,
				    e->stack_count == 1 ? "" : "s");
		break;
	case TRACE_LAT_TEXT:
		ret = rt_buf_printf(out, ": %s\n", e->text ? e->text : "");
		break;
	}
	if (!ret && e->flags.raw[0]) {
		ret = rt_buf_printf(out, "flags \"%s\": ", e->flags.raw);
		ret = ret ? ret : te_flags_full(&e->flags, out);
		ret = ret ? ret : rt_buf_puts(out, "\n");
	}
	if (!ret && e->mark_min_us && e->mark_min_us != UINT64_MAX)
		ret = rt_buf_printf(out, "delay mark '%c': the next entry came %s later\n", e->mark,
				    trace_explain_gap(e->mark, gap, sizeof(gap)));
	for (size_t i = 0; !ret && e->kind == TRACE_LAT_STACK && i < e->stack_count; i++)
		ret = rt_buf_printf(out, "  frame %zu: %s\n", i + 1, t->stack[e->stack_first + i]);
	return ret;
}
