/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_latency: parse the `trace` file of a latency tracer.
 *
 * The input is split into lines. Lines starting with '#' are the header and
 * the column legend; every other non-blank line is an entry, a " => "
 * stack line, or a problem. An entry is found by its time token (digits and
 * "us", then an optional delay mark, then ':'); what precedes it must read
 * as "comm-pid CPUflags", what follows is the function and its caller. The
 * comm can hold spaces and dashes, so the pid is the digits after the last
 * dash. Every string in the result is a private copy, so the input can be
 * freed at once.
 */
#include "trace_latency.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_err.h"

struct tl_parser {
	struct trace_latency *t;
	const char *name;
	unsigned int lineno;
	enum trace_lat_col cols[TRACE_LAT_MAX_COLUMNS];
	size_t ncols;
	bool legend_closed;	/* an entry was read since the last legend line */
	size_t cap_entries;
	size_t cap_stack;
	size_t cap_problems;
	int err;		/* sticky -ENOMEM */
};

/* ---- Small string helpers ---- */

static const char *tl_skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* Copy [s, e) without surrounding blanks. */
static char *tl_dup_trim(const char *s, const char *e)
{
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	return strndup(s, (size_t)(e - s));
}

/* Parse an unsigned decimal at *p, advancing it. false if no digit. */
static bool tl_uint(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (!isdigit((unsigned char)*s))
		return false;
	while (isdigit((unsigned char)*s)) {
		unsigned int d = (unsigned int)(*s - '0');

		x = x > (UINT64_MAX - d) / 10 ? UINT64_MAX : x * 10 + d;
		s++;
	}
	*v = x;
	*p = s;
	return true;
}

/* A signed int (clamped to int range). */
static bool tl_int(const char **p, int *v)
{
	const char *s = *p;
	bool neg = false;
	uint64_t x;

	if (*s == '-') {
		neg = true;
		s++;
	}
	if (!tl_uint(&s, &x))
		return false;
	if (x > INT_MAX)
		x = INT_MAX;
	*v = neg ? -(int)x : (int)x;
	*p = s;
	return true;
}

static int tl_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* ---- Result building ---- */

static void tl_problem(struct tl_parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void tl_problem(struct tl_parser *p, const char *fmt, ...)
{
	struct trace_latency *t = p->t;
	char *msg = NULL, *what = NULL;
	va_list ap;

	t->nproblems_total++;
	if (p->err || t->nproblems >= TRACE_LAT_MAX_PROBLEMS)
		return;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg || asprintf(&what, "%s:%u: %s", p->name, p->lineno, msg) < 0) {
		free(msg);
		p->err = -ENOMEM;
		return;
	}
	free(msg);
	if (t->nproblems == p->cap_problems) {
		size_t cap = p->cap_problems ? p->cap_problems * 2 : 8;
		struct trace_lat_problem *v = realloc(t->problems, cap * sizeof(*v));

		if (!v) {
			free(what);
			p->err = -ENOMEM;
			return;
		}
		t->problems = v;
		p->cap_problems = cap;
	}
	t->problems[t->nproblems].line = p->lineno;
	t->problems[t->nproblems].what = what;
	t->nproblems++;
}

/* Replace *dst with a trimmed copy of [s, e); records -ENOMEM. */
static void tl_set(struct tl_parser *p, char **dst, const char *s, const char *e)
{
	char *v = tl_dup_trim(s, e);

	if (!v) {
		p->err = -ENOMEM;
		return;
	}
	free(*dst);
	*dst = v;
}

static void tl_add_stack(struct tl_parser *p, const char *fn)
{
	struct trace_latency *t = p->t;
	char *v;

	if (t->nstack == p->cap_stack) {
		size_t cap = p->cap_stack ? p->cap_stack * 2 : 16;
		char **s = realloc(t->stack, cap * sizeof(*s));

		if (!s) {
			p->err = -ENOMEM;
			return;
		}
		t->stack = s;
		p->cap_stack = cap;
	}
	v = tl_dup_trim(fn, fn + strlen(fn));
	if (!v) {
		p->err = -ENOMEM;
		return;
	}
	t->stack[t->nstack++] = v;
}

static void tl_entry_fini(struct trace_lat_entry *e)
{
	free(e->comm);
	free(e->function);
	free(e->caller);
	free(e->text);
}

/* ---- Flags and marks ---- */

uint64_t trace_lat_mark_min_us(char mark)
{
	switch (mark) {
	case '$':
		return 1000000;
	case '@':
		return 100000;
	case '*':
		return 10000;
	case '#':
		return 1000;
	case '!':
		return 100;
	case '+':
		return 10;
	case ' ':
		return 0;
	default:
		return UINT64_MAX;
	}
}

const char *trace_lat_ctx_name(enum trace_lat_ctx ctx)
{
	switch (ctx) {
	case TRACE_LAT_CTX_NORMAL:
		return "normal";
	case TRACE_LAT_CTX_SOFTIRQ:
		return "softirq";
	case TRACE_LAT_CTX_HARDIRQ:
		return "hardirq";
	case TRACE_LAT_CTX_HARDIRQ_IN_SOFTIRQ:
		return "hardirq in softirq";
	case TRACE_LAT_CTX_NMI:
		return "NMI";
	case TRACE_LAT_CTX_NMI_IN_HARDIRQ:
		return "NMI in hardirq";
	default:
		return "unknown";
	}
}

/* Column layouts by flag count, for traces without a legend. */
static const enum trace_lat_col tl_cols3[] = {
	TRACE_LAT_COL_IRQS, TRACE_LAT_COL_RESCHED, TRACE_LAT_COL_CTX,
};
static const enum trace_lat_col tl_cols4[] = {
	TRACE_LAT_COL_IRQS, TRACE_LAT_COL_RESCHED, TRACE_LAT_COL_CTX, TRACE_LAT_COL_PREEMPT,
};
static const enum trace_lat_col tl_cols5[] = {
	TRACE_LAT_COL_IRQS, TRACE_LAT_COL_RESCHED, TRACE_LAT_COL_CTX, TRACE_LAT_COL_PREEMPT,
	TRACE_LAT_COL_MIGRATE,
};
/* PREEMPT_RT patch sets of the 4.x/5.x era. */
static const enum trace_lat_col tl_cols7[] = {
	TRACE_LAT_COL_IRQS, TRACE_LAT_COL_RESCHED, TRACE_LAT_COL_RESCHED_LAZY,
	TRACE_LAT_COL_CTX, TRACE_LAT_COL_PREEMPT, TRACE_LAT_COL_PREEMPT_LAZY,
	TRACE_LAT_COL_MIGRATE,
};

static bool tl_decode_one(enum trace_lat_col col, char c, struct trace_lat_flags *f)
{
	int h;

	switch (col) {
	case TRACE_LAT_COL_IRQS:
		switch (c) {
		case 'd': f->irqs_off = true; return true;
		case 'D': f->irqs_off = true; f->bh_off = true; return true;
		case 'b': f->bh_off = true; return true;
		case 'X': f->irqs_unsupported = true; return true;
		case '.': return true;
		}
		return false;
	case TRACE_LAT_COL_RESCHED:
		switch (c) {
		case 'N': f->need_resched = f->preempt_resched = true; return true;
		case 'n': f->need_resched = true; return true;
		case 'p': f->preempt_resched = true; return true;
		case 'B': f->need_resched = f->preempt_resched = f->lazy_resched = true;
			return true;
		case 'L': f->preempt_resched = f->lazy_resched = true; return true;
		case 'b': f->need_resched = f->lazy_resched = true; return true;
		case 'l': f->lazy_resched = true; return true;
		case '.': return true;
		}
		return false;
	case TRACE_LAT_COL_RESCHED_LAZY:
		if (c == 'L' || c == 'l')
			f->lazy_resched = true;
		return c == 'L' || c == 'l' || c == '.';
	case TRACE_LAT_COL_CTX:
		switch (c) {
		case '.': f->ctx = TRACE_LAT_CTX_NORMAL; return true;
		case 's': f->ctx = TRACE_LAT_CTX_SOFTIRQ; return true;
		case 'h': f->ctx = TRACE_LAT_CTX_HARDIRQ; return true;
		case 'H': f->ctx = TRACE_LAT_CTX_HARDIRQ_IN_SOFTIRQ; return true;
		case 'z': f->ctx = TRACE_LAT_CTX_NMI; return true;
		case 'Z': f->ctx = TRACE_LAT_CTX_NMI_IN_HARDIRQ; return true;
		}
		return false;
	case TRACE_LAT_COL_PREEMPT:
	case TRACE_LAT_COL_PREEMPT_LAZY:
	case TRACE_LAT_COL_MIGRATE:
		h = c == '.' ? 0 : tl_hex(c);
		if (h < 0)
			return false;
		if (col == TRACE_LAT_COL_PREEMPT)
			f->preempt_depth = h;
		else if (col == TRACE_LAT_COL_PREEMPT_LAZY)
			f->preempt_lazy_depth = h;
		else
			f->migrate_disable = h;
		return true;
	default:
		return true;
	}
}

int trace_lat_decode_flags(const char *raw, size_t len, const enum trace_lat_col *cols,
			   size_t ncols, struct trace_lat_flags *out)
{
	bool ok = true;

	memset(out, 0, sizeof(*out));
	out->preempt_depth = out->preempt_lazy_depth = out->migrate_disable = -1;
	out->ctx = TRACE_LAT_CTX_UNKNOWN;
	if (len >= sizeof(out->raw))
		len = sizeof(out->raw) - 1;
	memcpy(out->raw, raw, len);
	out->raw[len] = '\0';

	if (!cols || !ncols) {
		switch (len) {
		case 3:
			cols = tl_cols3, ncols = 3;
			break;
		case 4:
			cols = tl_cols4, ncols = 4;
			break;
		case 5:
			cols = tl_cols5, ncols = 5;
			break;
		case 7:
			cols = tl_cols7, ncols = 7;
			break;
		default:
			/* Unknown layout: read what the common columns say, report it. */
			cols = tl_cols5, ncols = len < 5 ? len : 5;
			ok = false;
		}
	}
	if (ncols != len)
		ok = false;
	for (size_t i = 0; i < len && i < ncols; i++)
		if (!tl_decode_one(cols[i], raw[i], out))
			ok = false;
	out->known = ok;
	return ok ? 0 : -EINVAL;
}

/* ---- Header ---- */

static enum trace_lat_col tl_col_from_name(const char *s)
{
	if (!strncmp(s, "irqs-off", 8))
		return TRACE_LAT_COL_IRQS;
	if (!strncmp(s, "need-resched-lazy", 17) || !strncmp(s, "need-resched_lazy", 17))
		return TRACE_LAT_COL_RESCHED_LAZY;
	if (!strncmp(s, "need-resched", 12))
		return TRACE_LAT_COL_RESCHED;
	if (!strncmp(s, "hardirq/softirq", 15))
		return TRACE_LAT_COL_CTX;
	if (!strncmp(s, "preempt-lazy-depth", 18))
		return TRACE_LAT_COL_PREEMPT_LAZY;
	if (!strncmp(s, "preempt-depth", 13))
		return TRACE_LAT_COL_PREEMPT;
	if (!strncmp(s, "migrate-disable", 15) || !strncmp(s, "migrate-disabl", 14))
		return TRACE_LAT_COL_MIGRATE;
	return TRACE_LAT_COL_OTHER;
}

/* "# latency: 187 us, #7/7, CPU#1 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:2)" */
static void tl_latency_line(struct tl_parser *p, const char *s)
{
	struct trace_latency *t = p->t;
	const char *q;
	uint64_t v, w;

	q = tl_skip_ws(s);
	if (!tl_uint(&q, &v)) {
		tl_problem(p, "no number after 'latency:'");
		return;
	}
	t->latency_us = v;
	t->have_latency = true;
	q = strchr(q, '#');
	if (q) {
		q++;
		if (tl_uint(&q, &v) && *q == '/' && (q++, tl_uint(&q, &w))) {
			t->shown = v > UINT_MAX ? UINT_MAX : (unsigned int)v;
			t->total = w > UINT_MAX ? UINT_MAX : (unsigned int)w;
		} else {
			tl_problem(p, "entry counts are not '#shown/total'");
		}
	}
	q = strstr(s, "CPU#");
	if (q) {
		q += 4;
		if (tl_uint(&q, &v) && v < INT_MAX)
			t->cpu = (int)v;
	}
	q = strstr(s, "M:");
	if (q) {
		const char *e;

		q += 2;
		e = q + strcspn(q, " ,)");
		tl_set(p, &t->preempt_model, q, e);
	}
	q = strstr(s, "#P:");
	if (q) {
		q += 3;
		if (tl_uint(&q, &v) && v < INT_MAX)
			t->nr_cpus = (int)v;
	}
}

/* "task: comm-pid (uid:0 nice:0 policy:1 rt_prio:99)" */
static void tl_task_line(struct tl_parser *p, const char *s)
{
	struct trace_latency *t = p->t;
	const char *open, *dash, *q;
	static const char *const keys[] = { "uid:", "nice:", "policy:", "rt_prio:" };
	int *vals[] = { &t->task_uid, &t->task_nice, &t->task_policy, &t->task_rt_prio };
	uint64_t pid;

	s = tl_skip_ws(s);
	open = strstr(s, " (");
	if (!open)
		open = s + strlen(s);
	for (q = open; q > s && q[-1] != '-'; q--)
		;
	dash = q > s ? q - 1 : NULL;
	if (!dash || dash == s || !tl_uint(&q, &pid) || q != open || pid > INT_MAX) {
		tl_problem(p, "task is not 'comm-pid'");
		return;
	}
	tl_set(p, &t->task_comm, s, dash);
	t->task_pid = (int)pid;
	t->have_task = true;
	for (size_t i = 0; i < 4; i++) {
		q = strstr(open, keys[i]);
		if (!q)
			continue;
		q += strlen(keys[i]);
		if (!tl_int(&q, vals[i]))
			tl_problem(p, "bad value after '%s'", keys[i]);
	}
}

static void tl_header(struct tl_parser *p, const char *line)
{
	struct trace_latency *t = p->t;
	const char *s = tl_skip_ws(line + 1), *q;

	if (!strncmp(s, "tracer:", 7)) {
		tl_set(p, &t->tracer, s + 7, s + strlen(s));
	} else if ((q = strstr(s, " latency trace v")) != NULL) {
		const char *v = q + 16, *e = v + strcspn(v, " ");

		tl_set(p, &t->format_version, v, e);
		q = strstr(e, " on ");
		if (q)
			tl_set(p, &t->kernel, q + 4, q + strlen(q));
	} else if (!strncmp(s, "latency:", 8)) {
		tl_latency_line(p, s + 8);
	} else if ((q = strstr(s, "task: ")) != NULL && (s[0] == '|' || s == q)) {
		tl_task_line(p, q + 6);
	} else if (!strncmp(s, "=> started at:", 14)) {
		tl_set(p, &t->started_at, s + 14, s + strlen(s));
	} else if (!strncmp(s, "=> ended at:", 12)) {
		tl_set(p, &t->ended_at, s + 12, s + strlen(s));
	} else if ((q = strstr(s, "-=> ")) != NULL) {
		q = tl_skip_ws(q + 4);
		if (!strncmp(q, "CPU#", 4))
			return;
		if (p->legend_closed) {
			p->ncols = 0;
			p->legend_closed = false;
		}
		if (p->ncols < TRACE_LAT_MAX_COLUMNS)
			p->cols[p->ncols++] = tl_col_from_name(q);
		t->ncolumns = (unsigned int)p->ncols;
		if (p->cols[p->ncols - 1] == TRACE_LAT_COL_MIGRATE)
			t->has_migrate_column = true;
	}
	/* Anything else in a comment (rulers, column titles) carries nothing. */
}

/* ---- Entries ---- */

/*
 * Does a time token start at s? Latency format: "123us" then an optional
 * mark then ':'. Fills the time, the mark and where the text starts.
 */
static bool tl_lat_time(const char *s, int64_t *ns, char *mark, const char **rest)
{
	const char *q = s;
	uint64_t us, frac = 0, scale = 1000;

	if (!tl_uint(&q, &us))
		return false;
	if (*q == '.') {
		q++;
		if (!isdigit((unsigned char)*q))
			return false;
		/* Fractions of a microsecond: keep nanoseconds, drop the rest. */
		while (isdigit((unsigned char)*q)) {
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(*q - '0') * scale;
			}
			q++;
		}
	}
	if (q[0] != 'u' || q[1] != 's')
		return false;
	q += 2;
	if (*q == ':') {
		*mark = ' ';
	} else if (trace_lat_mark_min_us(*q) != UINT64_MAX && q[1] == ':') {
		*mark = *q;
		q++;
	} else {
		return false;
	}
	if (us > (uint64_t)INT64_MAX / 1000 - 1)
		us = (uint64_t)INT64_MAX / 1000 - 1;
	*ns = (int64_t)(us * 1000 + frac);
	*rest = q + 1;
	return true;
}

/* Normal format time: "1234.567890:" seconds. */
static bool tl_abs_time(const char *s, int64_t *ns, const char **rest)
{
	const char *q = s;
	uint64_t sec, frac = 0, scale = 1000000000;

	if (!tl_uint(&q, &sec) || *q != '.')
		return false;
	q++;
	if (!isdigit((unsigned char)*q))
		return false;
	while (isdigit((unsigned char)*q)) {
		if (scale > 1) {
			scale /= 10;
			frac += (uint64_t)(*q - '0') * scale;
		}
		q++;
	}
	if (*q != ':')
		return false;
	if (sec > (uint64_t)INT64_MAX / 1000000000 - 1)
		sec = (uint64_t)INT64_MAX / 1000000000 - 1;
	*ns = (int64_t)(sec * 1000000000 + frac);
	*rest = q + 1;
	return true;
}

/* Split "   comm-pid" (trailing blanks allowed) into its parts. */
static bool tl_comm_pid(const char *s, const char *e, const char **cs, const char **ce, int *pid)
{
	const char *q, *digits;
	uint64_t v;

	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	for (q = e; q > s && isdigit((unsigned char)q[-1]); q--)
		;
	if (q == e || q == s || q[-1] != '-')
		return false;
	digits = q;
	if (!tl_uint(&q, &v) || q != e || v > INT_MAX)
		return false;
	*cs = s;
	*ce = digits - 1;
	*pid = (int)v;
	return true;
}

static void tl_fill_text(struct tl_parser *p, struct trace_lat_entry *e, const char *rest)
{
	const char *s = tl_skip_ws(rest), *arrow;
	size_t n = strlen(s);

	e->text = tl_dup_trim(s, s + n);
	if (!e->text) {
		p->err = -ENOMEM;
		return;
	}
	if (!strcmp(e->text, "<stack trace>")) {
		e->kind = TRACE_LAT_STACK;
	} else if ((arrow = strstr(s, " <-")) != NULL) {
		e->kind = TRACE_LAT_FUNC;
		e->function = tl_dup_trim(s, arrow);
		e->caller = tl_dup_trim(arrow + 3, s + n);
		if (!e->function || !e->caller)
			p->err = -ENOMEM;
	} else if (strstr(s, "==>") || strstr(s, " + [") || strstr(s, "+ [")) {
		e->kind = TRACE_LAT_SCHED;
	} else {
		e->kind = TRACE_LAT_TEXT;
	}
}

/*
 * Decode a flag block by the legend when it has as many columns as the block
 * has characters, else by the count. Some headers are fixed text that does not
 * follow the kernel's flags: 6.12's timerlat header still lists the lazy
 * columns of the old PREEMPT_RT patch set above five-character blocks.
 */
static int tl_decode(const struct tl_parser *p, const char *s, size_t len,
		     struct trace_lat_flags *out)
{
	if (p->ncols && len == p->ncols)
		return trace_lat_decode_flags(s, len, p->cols, p->ncols, out);
	return trace_lat_decode_flags(s, len, NULL, 0, out);
}

/* Try "comm-pid CPUflags TIMEus<mark>: text" with the time token at @tm. */
static bool tl_try_latency(struct tl_parser *p, const char *line, const char *tm,
			   struct trace_lat_entry *e)
{
	const char *rest, *fe, *fs, *q, *cs, *ce;
	uint64_t cpu;
	char mark;

	if (!tl_lat_time(tm, &e->time_ns, &mark, &rest))
		return false;
	/* The flag token is the last word before the time. */
	fe = tm;
	while (fe > line && (fe[-1] == ' ' || fe[-1] == '\t'))
		fe--;
	if (fe == tm)
		return false;
	fs = fe;
	while (fs > line && fs[-1] != ' ' && fs[-1] != '\t')
		fs--;
	q = fs;
	if (!tl_uint(&q, &cpu) || q == fe || cpu > INT_MAX)
		return false;
	if (!tl_comm_pid(line, fs, &cs, &ce, &e->pid))
		return false;
	e->cpu = (int)cpu;
	e->mark = mark;
	e->mark_min_us = trace_lat_mark_min_us(mark);
	if (tl_decode(p, q, (size_t)(fe - q), &e->flags))
		tl_problem(p, "flags '%.*s' do not match the columns", (int)(fe - q), q);
	e->comm = strndup(cs, (size_t)(ce - cs));
	if (!e->comm)
		p->err = -ENOMEM;
	tl_fill_text(p, e, rest);
	return true;
}

/* Try "comm-pid [CPU] flags SECS.FRAC: text" (the normal format). */
static bool tl_try_normal(struct tl_parser *p, const char *line, struct trace_lat_entry *e)
{
	const char *b = line, *q, *rest, *cs, *ce, *fs, *fe;
	uint64_t cpu;

	while ((b = strstr(b, " [")) != NULL) {
		q = b + 2;
		if (tl_uint(&q, &cpu) && *q == ']' && cpu <= INT_MAX &&
		    tl_comm_pid(line, b, &cs, &ce, &e->pid))
			break;
		b++;
	}
	if (!b)
		return false;
	q = tl_skip_ws(q + 1);
	fs = q;
	if (!tl_abs_time(q, &e->time_ns, &rest)) {
		fe = fs + strcspn(fs, " \t");
		q = tl_skip_ws(fe);
		if (fe == fs || !tl_abs_time(q, &e->time_ns, &rest))
			return false;
		if (tl_decode(p, fs, (size_t)(fe - fs), &e->flags))
			tl_problem(p, "flags '%.*s' do not match the columns", (int)(fe - fs), fs);
	} else {
		trace_lat_decode_flags("", 0, NULL, 0, &e->flags);
	}
	e->cpu = (int)cpu;
	e->mark = ' ';
	e->mark_min_us = 0;
	e->comm = strndup(cs, (size_t)(ce - cs));
	if (!e->comm)
		p->err = -ENOMEM;
	tl_fill_text(p, e, rest);
	return true;
}

static void tl_entry(struct tl_parser *p, const char *line)
{
	struct trace_latency *t = p->t;
	struct trace_lat_entry e;
	const char *s = tl_skip_ws(line);
	bool ok = false;

	if (!strncmp(s, "=>", 2)) {
		struct trace_lat_entry *last = t->nentries ? &t->entries[t->nentries - 1] : NULL;
		bool follows = last && last->kind == TRACE_LAT_STACK &&
			       last->stack_first + last->stack_count == t->nstack;

		tl_add_stack(p, s + 2);
		if (follows && !p->err)
			last->stack_count++;
		return;
	}
	memset(&e, 0, sizeof(e));
	/* Each digit that starts a word may begin the time token. */
	for (const char *q = s; *q && !ok; q++) {
		if (isdigit((unsigned char)*q) && q > s && (q[-1] == ' ' || q[-1] == '\t')) {
			ok = tl_try_latency(p, s, q, &e);
			if (!ok) {
				tl_entry_fini(&e);
				memset(&e, 0, sizeof(e));
			}
		}
	}
	if (!ok) {
		ok = tl_try_normal(p, s, &e);
		if (!ok) {
			tl_entry_fini(&e);
			tl_problem(p, "not an entry: '%.40s%s'", s, strlen(s) > 40 ? "..." : "");
			return;
		}
	}
	e.line = p->lineno;
	e.stack_first = t->nstack;
	if (p->err) {
		tl_entry_fini(&e);
		return;
	}
	if (t->nentries == p->cap_entries) {
		size_t cap = p->cap_entries ? p->cap_entries * 2 : 32;
		struct trace_lat_entry *v = realloc(t->entries, cap * sizeof(*v));

		if (!v) {
			tl_entry_fini(&e);
			p->err = -ENOMEM;
			return;
		}
		t->entries = v;
		p->cap_entries = cap;
	}
	t->entries[t->nentries++] = e;
	p->legend_closed = true;
}

/* ---- Export ---- */

void trace_latency_free(struct trace_latency *t)
{
	if (!t)
		return;
	free(t->tracer);
	free(t->kernel);
	free(t->format_version);
	free(t->preempt_model);
	free(t->task_comm);
	free(t->started_at);
	free(t->ended_at);
	for (size_t i = 0; i < t->nentries; i++)
		tl_entry_fini(&t->entries[i]);
	free(t->entries);
	for (size_t i = 0; i < t->nstack; i++)
		free(t->stack[i]);
	free(t->stack);
	for (size_t i = 0; i < t->nproblems; i++)
		free(t->problems[i].what);
	free(t->problems);
	free(t);
}

int trace_latency_parse(const char *text, size_t len, const char *name,
			struct trace_latency **out, char **cause)
{
	struct tl_parser p;
	struct trace_latency *t;
	size_t pos = 0;
	int ret = 0;

	*out = NULL;
	memset(&p, 0, sizeof(p));
	p.name = name ? name : "trace";
	t = calloc(1, sizeof(*t));
	if (!t)
		return rt_err(cause, -ENOMEM, "out of memory");
	t->cpu = -1;
	t->nr_cpus = -1;
	p.t = t;

	while (pos < len && !p.err) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		char *line = strndup(text + pos, n);	/* stops at a NUL byte too */
		size_t l;

		pos += n + 1;
		p.lineno++;
		if (!line) {
			p.err = -ENOMEM;
			break;
		}
		l = strlen(line);
		while (l && (line[l - 1] == '\r' || line[l - 1] == ' ' || line[l - 1] == '\t'))
			line[--l] = '\0';
		if (line[0] == '#')
			tl_header(&p, line);
		else if (*tl_skip_ws(line))
			tl_entry(&p, line);
		free(line);
	}
	if (p.err) {
		ret = rt_err(cause, p.err, "out of memory");
		goto out_free;
	}
	if (!t->tracer && !t->have_latency && !t->nentries) {
		ret = rt_err(cause, -EINVAL, "%s:1: not a latency trace (no '# tracer:' header, "
			     "no latency line and no entries)", p.name);
		goto out_free;
	}
	*out = t;
	return 0;

out_free:
	trace_latency_free(t);
	return ret;
}
