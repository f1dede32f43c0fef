/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_ftrace: the checks of the ftrace lab's exercise (exercise.json), one
 * cmocka test per check. Each feeds traces with known answers (checks/data,
 * README.md there) to the subject (subject.c linked with the learner's
 * latency_trace.c and wake_match.c) through the harness, and compares what
 * it printed with the answers: lt-answers.txt for the latency traces, one
 * wm-NAME.answer per event trace. The answers were read from the same
 * traces by a second implementation (tests/cli/lib/exercise_ftrace_answers.py),
 * and make check holds the two together.
 *
 * checks/ is installed where a learner can read it, so no trace goes to the
 * subject as it is in data/: a seed chosen when the program starts
 * (getrandom(); RTLAB_CHECK_SEED fixes it, and every failure names it)
 * transforms each one, and its answer alike. A latency trace gets its time
 * stamps scaled and shifted (the delay marks recomputed), its tasks and pids
 * renumbered, its function names the suffixes compilers give clones
 * (".isra.0"), and "#" lines that move every line number; an event trace
 * gets its times scaled and shifted, its pids renumbered, the followed
 * task renamed, and other tasks' events on another CPU in between. One
 * latency trace is made from the seed alone, with two equally wide gaps.
 * A submission that recognises the files' text, or their numbers, has
 * nothing to recognise.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memmem */
#endif
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "rtlab_check.h"

#define NAME_MAX_LEN 64		/* ftrace_exercise.h: LT_NAME_MAX */
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
/* How the reason for a trace after the one the subject ended on starts. */
#define NEVER_GOT "the subject never got to this trace: it ended on an earlier one"

/* ---- The seed of this run (labs/common/rtlab_check.h) ----------------------------- */

/* The short names used below. */
#define rng_for rtlab_rng_for
#define rng_next rtlab_rng_next
#define rng_range rtlab_rng_range
#define seed_reason rtlab_check_seed_reason
#undef rtlab_fail
#define rtlab_fail(...) rtlab_fail_seeded(__VA_ARGS__)

/* ---- Text buffers ------------------------------------------------------------ */

/* A growing text; oom once an allocation failed (the text is then incomplete). */
struct sbuf {
	char *p;
	size_t len, cap;
	bool oom;
};

static void sb_put(struct sbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *np;

		while (b->len + n + 1 > cap)
			cap *= 2;
		np = realloc(b->p, cap);
		if (!np) {
			b->oom = true;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void sb_str(struct sbuf *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

static void __attribute__((format(printf, 2, 3))) sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		sb_put(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* @s right-aligned in @width columns (wider when it does not fit). */
static void sb_right(struct sbuf *b, const char *s, size_t width)
{
	for (size_t n = strlen(s); n < width; n++)
		sb_put(b, " ", 1);
	sb_str(b, s);
}

/* The whole of a fixture, NUL-terminated (*len without it); NULL when unreadable. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct sbuf b = { 0 };
	char chunk[4096];
	size_t got;

	*len = 0;
	if (!f)
		return NULL;
	sb_put(&b, "", 0);
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		sb_put(&b, chunk, got);
	fclose(f);
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	*len = b.len;
	return b.p;
}

/* ---- Tasks, renamed and renumbered -------------------------------------------- */

/* Names a task may have: digits, '/', ':' and '-' in them, as real ones do. */
static const char *const task_names[] = {
	"rtlab-probe", "cyclictest", "irq/24-eth0", "kworker/1:2", "ksoftirqd/0", "rcuc/1",
	"migration/0", "ktimers/1", "stress-ng-cpu", "rt-app", "sleep", "bash", "irq/9-acpi",
	"kworker/u8:3", "timerlat/0", "jbd2/sda1-8",
};

/* A pid's new pid and name; pid 0 (the idle task) keeps both. */
struct task_map {
	struct {
		int old, new;
		const char *name;
	} t[128];
	size_t n;
	struct rtlab_rng g;
};

static int task_new(struct task_map *m, int old, const char **name)
{
	*name = NULL;
	if (old <= 0)
		return old;
	for (size_t i = 0; i < m->n; i++) {
		if (m->t[i].old == old) {
			*name = m->t[i].name;
			return m->t[i].new;
		}
	}
	if (m->n == N_OF(m->t))
		return old;
	m->t[m->n].old = old;
	m->t[m->n].new = (int)rng_range(&m->g, 2, 32767);
	for (size_t i = 0; i < m->n; i++)	/* new pids stay distinct */
		if (m->t[i].new == m->t[m->n].new)
			m->t[m->n].new = 32768 + (int)m->n;
	m->t[m->n].name = task_names[rng_next(&m->g) % N_OF(task_names)];
	*name = m->t[m->n].name;
	return m->t[m->n++].new;
}

/*
 * "comm-pid" at @s (@n bytes) as "name-pid" of the task's new self: the
 * name cut to @cut characters (the latency format prints 8; 0: whole).
 * False when it is no "comm-pid" or the idle task's.
 */
static bool task_token(struct task_map *m, const char *s, size_t n, size_t cut, char *out,
		       size_t out_len)
{
	size_t dash = n;
	const char *name;
	char num[16];
	int pid;

	while (dash > 0 && isdigit((unsigned char)s[dash - 1]))
		dash--;
	if (dash == n || dash < 2 || s[dash - 1] != '-' || n - dash >= sizeof(num))
		return false;
	memcpy(num, s + dash, n - dash);
	num[n - dash] = '\0';
	pid = atoi(num);
	if (pid <= 0)
		return false;
	pid = task_new(m, pid, &name);
	snprintf(out, out_len, "%.*s-%d", (int)(cut ? cut : strlen(name)), name, pid);
	return true;
}

/* ---- Latency traces, transformed ---------------------------------------------- */

/*
 * How a latency trace is changed: every time stamp t becomes scale * t +
 * shift (the gaps scale, the widest stays the widest), the header's latency
 * is scaled, extra "#" lines come after the first line, each function name
 * gets a suffix of its own (or none) and the tasks new names and pids.
 */
struct lt_xform {
	long scale, shift;
	unsigned int extra;
	uint64_t salt;
	struct task_map tasks;
};

static void lt_xform_init(struct lt_xform *x, uint64_t salt)
{
	struct rtlab_rng g = rng_for(salt);

	memset(x, 0, sizeof(*x));
	x->scale = (long)rng_range(&g, 1, 4);
	x->shift = (long)rng_range(&g, x->scale == 1 ? 1 : 0, 1999);
	x->extra = (unsigned int)rng_range(&g, 1, 9);
	x->salt = rng_next(&g);
	x->tasks.g = rng_for(salt ^ 0x7a5c);
}

/* The suffixes GCC gives the clones and parts of a function. */
static const char *const fn_suffixes[] = {
	"", "", ".isra.0", ".constprop.0", ".part.0", ".cold", ".constprop.1", ".isra.1",
};

/*
 * @name (@n bytes) with its suffix, into @out (@out_len bytes). A name
 * longer than lt_parse() keeps gets the suffix beyond what it keeps, so an
 * answer (NAME_MAX_LEN) is the same whichever of the two was renamed.
 */
static void fn_rename(const struct lt_xform *x, const char *name, size_t n, char *out,
		      size_t out_len)
{
	uint64_t h = 1469598103934665603ull ^ x->salt;

	for (size_t i = 0; i < n && i < NAME_MAX_LEN - 1; i++)
		h = (h ^ (unsigned char)name[i]) * 1099511628211ull;
	h ^= h >> 29;
	snprintf(out, out_len, "%.*s%s", (int)n, name, fn_suffixes[h % N_OF(fn_suffixes)]);
}

/* An answer's name, cut as lt_parse() cuts it: "-" (none) stays. */
static void fn_rename_answer(const struct lt_xform *x, char *name)
{
	char out[NAME_MAX_LEN];

	if (!strcmp(name, "-"))
		return;
	fn_rename(x, name, strlen(name), out, sizeof(out));
	strcpy(name, out);
}

/* Copy @s..@end to @b, renaming the word that starts at @s (up to white space). */
static const char *put_renamed(struct sbuf *b, const struct lt_xform *x, const char *s,
			       const char *end)
{
	const char *w = s;
	char out[512];

	while (w < end && !isspace((unsigned char)*w))
		w++;
	if (w == s || w - s > 400) {
		sb_put(b, s, (size_t)(w - s));
		return w;
	}
	fn_rename(x, s, (size_t)(w - s), out, sizeof(out));
	sb_str(b, out);
	return w;
}

/*
 * An entry line's time stamp: the first "<digits>us<mark>:" whose digits
 * follow white space or start the line (lt_parse()'s rule, and the second
 * reading's). *d and *us point at the digits and at "us".
 */
static bool lt_stamp(const char *line, const char *end, const char **d, const char **us)
{
	for (const char *p = line; p + 4 <= end; p++) {
		const char *q = p;

		if (p[0] != 'u' || p[1] != 's' || p[3] != ':' || p == line ||
		    !isdigit((unsigned char)p[-1]))
			continue;
		while (q > line && isdigit((unsigned char)q[-1]))
			q--;
		if (q > line && !isspace((unsigned char)q[-1]))
			continue;
		*d = q;
		*us = p;
		return true;
	}
	return false;
}

/* The delay mark of a gap of @us microseconds, as the kernel prints it. */
static char lt_mark(long us)
{
	static const struct { long over; char c; } marks[] = {
		{ 1000000, '$' }, { 100000, '@' }, { 10000, '*' }, { 1000, '#' }, { 100, '!' },
		{ 10, '+' },
	};

	for (size_t i = 0; i < N_OF(marks); i++)
		if (us > marks[i].over)
			return marks[i].c;
	return ' ';
}

/*
 * @s in place of [@from, @to), right-aligned so the columns stay, with a
 * blank before it when the old field had one (wider when it must be).
 */
static void put_field(struct sbuf *b, const char *from, const char *to, const char *s)
{
	size_t width = (size_t)(to - from), n = strlen(s);

	if (n < width || (n == width && *from != ' '))
		sb_right(b, s, width);
	else {
		if (*from == ' ')
			sb_put(b, " ", 1);
		sb_str(b, s);
	}
}

/* @p moved back over the blanks before it, not before @floor. */
static const char *blanks_before(const char *floor, const char *p)
{
	while (p > floor && p[-1] == ' ')
		p--;
	return p;
}

/*
 * The text of a wakeup tracer's scheduler entry, "  185:120:R   + [000]
 * 19: 98:R rcuc/0", with both pids renumbered and the woken task renamed.
 * False (nothing written) when the text is not one.
 */
static bool lt_sched_text(struct sbuf *b, struct lt_xform *x, const char *t, const char *end)
{
	const char *p = t, *n1, *n1e, *br, *n2, *n2e, *comm, *name;
	char num[16];
	int pid;

	while (p < end && *p == ' ')
		p++;
	for (n1 = p; p < end && isdigit((unsigned char)*p); p++)
		;
	n1e = p;
	if (n1e == n1 || p >= end || *p != ':')
		return false;
	br = memchr(p, ']', (size_t)(end - p));
	if (!br)
		return false;
	for (p = br + 1; p < end && *p == ' '; p++)
		;
	for (n2 = p; p < end && isdigit((unsigned char)*p); p++)
		;
	n2e = p;
	if (n2e == n2 || p >= end || *p != ':')
		return false;
	for (comm = end; comm > n2e && comm[-1] != ' '; comm--)
		;
	if (comm == n2e || n1e - n1 >= 10 || n2e - n2 >= 10)
		return false;
	snprintf(num, sizeof(num), "%d", task_new(&x->tasks, atoi(n1), &name));
	put_field(b, t, n1e, num);
	sb_put(b, n1e, (size_t)(blanks_before(n1e, n2) - n1e));
	pid = task_new(&x->tasks, atoi(n2), &name);
	snprintf(num, sizeof(num), "%d", pid);
	put_field(b, blanks_before(n1e, n2), n2e, num);
	sb_put(b, n2e, (size_t)(comm - n2e));
	if (name)
		sb_str(b, name);
	else
		sb_put(b, comm, (size_t)(end - comm));
	return true;
}

/*
 * @line up to @d, its first word (the task, "comm-pid") renamed and
 * renumbered: the name right-aligned up to where the old '-' was, as the
 * kernel prints it, and what follows in its old column.
 */
static void lt_task_prefix(struct sbuf *b, struct lt_xform *x, const char *line, const char *d)
{
	const char *tok = line, *tok_end, *next;
	char task[96];

	while (tok < d && *tok == ' ')
		tok++;
	for (tok_end = tok; tok_end < d && *tok_end != ' '; tok_end++)
		;
	for (next = tok_end; next < d && *next == ' '; next++)
		;
	if (next < d && task_token(&x->tasks, tok, (size_t)(tok_end - tok), 8, task,
				   sizeof(task))) {
		const char *dash = tok_end;
		size_t col = (size_t)(next - line), before = b->len;

		/* the name ends where the old one ended, at its '-' */
		while (dash > tok && dash[-1] != '-')
			dash--;
		for (size_t n = (size_t)(strrchr(task, '-') - task); n < (size_t)(dash - 1 - line);
		     n++)
			sb_put(b, " ", 1);
		sb_str(b, task);
		do
			sb_put(b, " ", 1);
		while (b->len - before < col);
		sb_put(b, next, (size_t)(d - next));
	} else {
		sb_put(b, line, (size_t)(d - line));
	}
}

/* One entry line: its task, its time stamp @t (new), its mark @mark, its text. */
static void lt_entry(struct sbuf *b, struct lt_xform *x, const char *line, const char *end,
		     const char *d, const char *us, long t, char mark)
{
	const char *text, *arrow;
	char num[24];

	lt_task_prefix(b, x, line, d);
	/* The time stamp where the old one was, right-aligned. */
	snprintf(num, sizeof(num), "%ld", t);
	if (strlen(num) <= (size_t)(us - d))
		sb_right(b, num, (size_t)(us - d));
	else {
		/* eat the blanks before it that the wider number needs, keeping one */
		size_t need = strlen(num) - (size_t)(us - d);

		while (need-- && b->len > 1 && b->p[b->len - 1] == ' ' && b->p[b->len - 2] == ' ')
			b->p[--b->len] = '\0';
		sb_str(b, num);
	}
	sb_put(b, "us", 2);
	sb_put(b, &mark, 1);
	sb_put(b, ":", 1);
	text = us + 4;
	if (text < end && *text == ' ')
		sb_put(b, text++, 1);
	if (text < end && (isalpha((unsigned char)*text) || *text == '_')) {
		/* "f <-c": both names renamed */
		text = put_renamed(b, x, text, end);
		arrow = memmem(text, (size_t)(end - text), " <-", 3);
		if (arrow) {
			sb_put(b, text, (size_t)(arrow + 3 - text));
			text = put_renamed(b, x, arrow + 3, end);
		}
		sb_put(b, text, (size_t)(end - text));
	} else if (!lt_sched_text(b, x, text, end)) {
		sb_put(b, text, (size_t)(end - text));
	}
}

/* A header line: the latency scaled, started/ended renamed, the task renumbered. */
static void lt_header_line(struct sbuf *b, struct lt_xform *x, const char *line, const char *end)
{
	static const char *const names[] = { "=> started at:", "=> ended at:" };
	const char *p;
	char task[96];

	p = memmem(line, (size_t)(end - line), "# latency:", 10);
	if (p) {
		char *e;
		long v;

		for (p += 10; p < end && *p == ' '; p++)
			;
		v = strtol(p, &e, 10);
		if (e > p && e <= end) {
			sb_put(b, line, (size_t)(p - line));
			sb_printf(b, "%ld", v * x->scale);
			sb_put(b, e, (size_t)(end - e));
			return;
		}
	}
	for (size_t i = 0; i < N_OF(names); i++) {
		p = memmem(line, (size_t)(end - line), names[i], strlen(names[i]));
		if (!p)
			continue;
		for (p += strlen(names[i]); p < end && *p == ' '; p++)
			;
		sb_put(b, line, (size_t)(p - line));
		p = put_renamed(b, x, p, end);
		sb_put(b, p, (size_t)(end - p));
		return;
	}
	p = memmem(line, (size_t)(end - line), "| task: ", 8);
	if (p) {
		const char *t = p + 8, *te = t;

		while (te < end && *te != ' ')
			te++;
		if (task_token(&x->tasks, t, (size_t)(te - t), 0, task, sizeof(task))) {
			sb_put(b, line, (size_t)(t - line));
			sb_str(b, task);
			sb_put(b, te, (size_t)(end - te));
			return;
		}
	}
	sb_put(b, line, (size_t)(end - line));
}

/*
 * @text (@len bytes, a latency trace) transformed by @x, into @b. The text
 * keeps its shape: a last line without its newline stays without one.
 */
static void lt_transform(struct lt_xform *x, const char *text, size_t len, struct sbuf *b)
{
	const char *end = text + len, *p;
	long *stamps = NULL;
	size_t nent = 0, cap = 0, k = 0, lineno = 0;

	sb_put(b, "", 0);
	/* First the entries' time stamps: each mark describes the gap to the next. */
	for (p = text; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end, *d, *us;

		if (*p != '#' && lt_stamp(p, le, &d, &us)) {
			if (nent == cap) {
				long *ns = realloc(stamps, (cap = cap ? cap * 2 : 256) * sizeof(*ns));

				if (!ns) {
					b->oom = true;
					free(stamps);
					return;
				}
				stamps = ns;
			}
			stamps[nent++] = strtol(d, NULL, 10) * x->scale + x->shift;
		}
		p = nl ? nl + 1 : end;
	}
	for (p = text; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end, *d, *us;

		lineno++;
		if (*p == '#') {
			lt_header_line(b, x, p, le);
		} else if (lt_stamp(p, le, &d, &us)) {
			char mark = us[2];

			if (x->scale != 1 && k + 1 < nent)
				mark = lt_mark(stamps[k + 1] - stamps[k]);
			lt_entry(b, x, p, le, d, us, stamps[k], mark);
			k++;
		} else if (!strncmp(p, " => ", 4) && le - p > 4) {
			sb_put(b, p, 4);
			p = put_renamed(b, x, p + 4, le);
			sb_put(b, p, (size_t)(le - p));
		} else {
			lt_task_prefix(b, x, p, le);	/* a line cut off: its task still */
		}
		if (nl)
			sb_put(b, "\n", 1);
		if (lineno == 1 && nl && *text == '#')
			for (unsigned int i = 0; i < x->extra; i++)
				sb_put(b, "#\n", 2);
		p = nl ? nl + 1 : end;
	}
	free(stamps);
}

/* ---- A latency trace made from the seed alone ---------------------------------- */

static const char *const gen_funcs[] = {
	"local_clock", "ktime_get", "update_curr", "_raw_spin_lock", "_raw_spin_unlock",
	"rcu_note_context_switch", "__hrtimer_run_queues", "hrtimer_interrupt", "irq_enter_rcu",
	"irq_exit_rcu", "handle_irq_event", "do_idle", "tick_sched_timer", "__schedule",
	"try_to_wake_up", "enqueue_task_rt", "pick_next_task_fair", "rtlab_inject_busy",
	"rtlab_inject_irqsoff_section", "preempt_count_sub", "preempt_count_add",
	"__rcu_read_lock", "migrate_disable", "sched_clock_cpu", "native_sched_clock",
	"read_tsc", "__do_softirq", "run_timer_softirq", "call_timer_fn", "lock_hrtimer_base",
};

static const char *const gen_tracers[] = {
	"irqsoff", "preemptoff", "preemptirqsoff", "wakeup", "wakeup_rt", "wakeup_dl",
};

static const char gen_legend[] =
	"#                    _------=> CPU#            \n"
	"#                   / _-----=> irqs-off/BH-disabled\n"
	"#                  | / _----=> need-resched    \n"
	"#                  || / _---=> hardirq/softirq \n"
	"#                  ||| / _--=> preempt-depth   \n"
	"#                  |||| / _-=> migrate-disable \n"
	"#                  ||||| /     delay           \n"
	"#  cmd     pid     |||||| time  |   caller     \n"
	"#     \\   /        ||||||  \\    |    /       \n";

/* A name of the pool other than @not (NULL: any). */
static const char *gen_func(struct rtlab_rng *g, const char *not)
{
	const char *f;

	do
		f = gen_funcs[rng_next(g) % N_OF(gen_funcs)];
	while (not && !strcmp(f, not));
	return f;
}

/*
 * A trace of a latency tracer with 10 to 60 entries, its widest gap twice
 * (the first is the answer), and around the first one one of four cases:
 * two calls from the same caller (the cause is the caller), from different
 * ones (the function before the gap), a call without a caller, or no call
 * at all (a stack trace or a scheduler line: no cause). Into @b; its
 * answer, in lt-answers.txt's words, into @answer.
 */
static void lt_generate(struct sbuf *b, char *answer, size_t answer_len)
{
	struct rtlab_rng g = rng_for(11);
	const char *tracer = gen_tracers[rng_next(&g) % N_OF(gen_tracers)];
	bool wakeup = !strncmp(tracer, "wakeup", 6);
	int n = (int)rng_range(&g, 10, 60), gi = (int)rng_range(&g, 1, n - 4);
	int gj = (int)rng_range(&g, gi + 1, n - 2), how = (int)rng_range(&g, 0, 3);
	long wide = (long)rng_range(&g, 60, 3000), small = (long)rng_range(&g, 3, 50);
	long t[64], first = (long)rng_range(&g, 0, 2);
	int pid = (int)rng_range(&g, 2, 32767), cpu = (int)rng_range(&g, 0, 3);
	const char *comm = task_names[rng_next(&g) % N_OF(task_names)];
	const char *caller = gen_func(&g, NULL), *f_i = gen_func(&g, caller), *cause = "-";
	const char *started = gen_func(&g, NULL), *ended = gen_func(&g, NULL);
	static const char *const flags[] = { "d....", "d..1.", "dN.2.", "d.h1.", "dNh2." };
	unsigned int line = 0, gap_line = 0;
	long latency;

	t[0] = first;
	for (int k = 0; k + 1 < n; k++)
		t[k + 1] = t[k] + (k == gi || k == gj ? wide : (long)rng_range(&g, 0, small));
	latency = t[n - 1] - t[0] + (long)rng_range(&g, 0, 3);
	sb_printf(b, "# tracer: %s\n#\n# %s latency trace v1.1.5 on 6.12.%d-rtlab\n"
		  "# --------------------------------------------------------------------\n",
		  tracer, tracer, (int)rng_range(&g, 1, 199));
	sb_printf(b, "# latency: %ld us, #%d/%d, CPU#%d | (M:preempt_rt VP:0, KP:0, SP:0 HP:0 "
		  "#P:4)\n", latency, n, n, cpu);
	sb_printf(b, "#    -----------------\n#    | task: %s-%d (uid:0 nice:0 policy:%d "
		  "rt_prio:%d)\n#    -----------------\n", comm, pid, wakeup ? 1 : 0,
		  wakeup ? (int)rng_range(&g, 1, 99) : 0);
	line = 8;
	if (!wakeup) {
		sb_printf(b, "#  => started at: %s\n#  => ended at:   %s\n", started, ended);
		line += 2;
	}
	sb_str(b, "#\n#\n");
	sb_str(b, gen_legend);
	line += 2 + 9;
	for (int k = 0; k < n; k++) {
		char text[160];
		int stack = 0;

		if (k == gi) {
			gap_line = line + 1;
			if (how == 0 || how == 1) {
				snprintf(text, sizeof(text), "%s <-%s", f_i, caller);
				cause = how == 0 ? caller : f_i;
			} else if (how == 2) {
				snprintf(text, sizeof(text), "%s", f_i);
				cause = f_i;
			} else {
				snprintf(text, sizeof(text), "<stack trace>");
				stack = (int)rng_range(&g, 2, 5);
			}
		} else if (k == gi + 1 && how == 0) {
			snprintf(text, sizeof(text), "%s <-%s", gen_func(&g, NULL), caller);
		} else if (k == gi + 1 && how == 1) {
			snprintf(text, sizeof(text), "%s <-%s", gen_func(&g, NULL),
				 gen_func(&g, caller));
		} else if (k == 0 && wakeup) {
			snprintf(text, sizeof(text), "%8d:120:R   + [%03d] %8d: %2d:R %s",
				 (int)rng_range(&g, 2, 32767), cpu, pid,
				 (int)rng_range(&g, 0, 98), comm);
		} else if (rng_next(&g) % 8 == 0) {
			snprintf(text, sizeof(text), "<stack trace>");
			stack = (int)rng_range(&g, 2, 5);
		} else {
			snprintf(text, sizeof(text), "%s <-%s", gen_func(&g, NULL),
				 gen_func(&g, NULL));
		}
		sb_printf(b, "%8.8s-%-7d %3d%s %4ldus%c: %s\n", comm, pid, cpu,
			  flags[rng_next(&g) % N_OF(flags)], t[k],
			  k + 1 < n ? lt_mark(t[k + 1] - t[k]) : ' ', text);
		line++;
		for (int s = 0; s < stack; s++, line++)
			sb_printf(b, " => %s\n", gen_func(&g, NULL));
	}
	snprintf(answer, answer_len, "rc 0 tracer %s latency %ld started %s ended %s entries %d "
		 "gap %u %ld cause %s", tracer, latency, wakeup ? "-" : started,
		 wakeup ? "-" : ended, n, gap_line, wide, cause);
}

/* ---- Event traces, transformed ------------------------------------------------- */

/*
 * How an event trace is changed: each time stamp t (in us) becomes base +
 * (t - t0) * num / den, rounded down (num >= den: the order stays, equal
 * stays equal), every pid p > 0 becomes 1 + ((p - 1) ^ xor) (below 32769),
 * the followed task gets another name, and now and then an event of
 * another task on CPU 0 comes in between (pids 40000 and up: never one of
 * the trace's).
 */
struct wm_xform {
	long long base, t0, num, den;
	int xor, pid;
	char comm[64];
	const char *name;
	struct rtlab_rng g;
	struct {
		int pid;
		const char *name;
	} noise[3];
};

static void wm_xform_init(struct wm_xform *x, uint64_t salt, int pid)
{
	memset(x, 0, sizeof(*x));
	x->g = rng_for(salt);
	x->base = rng_range(&x->g, 100, 9999999) * 1000000 + rng_range(&x->g, 0, 999999);
	x->den = 16;
	x->num = rng_range(&x->g, 16, 48);
	x->xor = (int)rng_range(&x->g, 1, 16383);
	x->pid = pid;
	x->name = task_names[rng_next(&x->g) % N_OF(task_names)];
	x->t0 = -1;
	for (size_t i = 0; i < N_OF(x->noise); i++) {
		x->noise[i].pid = (int)rng_range(&x->g, 40000, 99999);
		x->noise[i].name = task_names[rng_next(&x->g) % N_OF(task_names)];
	}
}

static long long wm_time(const struct wm_xform *x, long long us)
{
	return x->base + (us - x->t0) * x->num / x->den;
}

static int wm_pid(const struct wm_xform *x, int pid)
{
	return pid > 0 ? 1 + ((pid - 1) ^ x->xor) : pid;
}

/* An event line's time stamp "SECS.USECS" before ": sched_" at @ev, in us; -1: none. */
static long long wm_stamp(const char *line, const char *ev, const char **from)
{
	const char *dot = ev, *p;
	long long us;

	while (dot > line && isdigit((unsigned char)dot[-1]))
		dot--;
	if (ev - dot != 6 || dot == line || dot[-1] != '.')
		return -1;
	for (p = dot - 1; p > line && isdigit((unsigned char)p[-1]); p--)
		;
	if (p == dot - 1)
		return -1;
	us = strtoll(p, NULL, 10) * 1000000 + strtoll(dot, NULL, 10);
	*from = p;
	return us;
}

/* A value of "key=value" fields: the followed task's name and every pid, changed. */
static void wm_fields(struct sbuf *b, const struct wm_xform *x, const char *p, const char *end)
{
	while (p < end) {
		const char *te = memchr(p, ' ', (size_t)(end - p)), *eq;

		te = te ? te : end;
		eq = memchr(p, '=', (size_t)(te - p));
		if (eq && (!strncmp(p, "pid=", 4) || !strncmp(p, "prev_pid=", 9) ||
			   !strncmp(p, "next_pid=", 9))) {
			sb_put(b, p, (size_t)(eq + 1 - p));
			sb_printf(b, "%d", wm_pid(x, atoi(eq + 1)));
		} else if (eq && (!strncmp(p, "comm=", 5) || !strncmp(p, "prev_comm=", 10) ||
				  !strncmp(p, "next_comm=", 10)) && x->comm[0] &&
			   (size_t)(te - eq - 1) == strlen(x->comm) &&
			   !memcmp(eq + 1, x->comm, strlen(x->comm))) {
			sb_put(b, p, (size_t)(eq + 1 - p));
			sb_str(b, x->name);
		} else {
			sb_put(b, p, (size_t)(te - p));
		}
		if (te < end)
			sb_put(b, " ", 1);
		p = te + 1;
	}
}

static void wm_noise(struct sbuf *b, struct wm_xform *x, long long us)
{
	int a = (int)(rng_next(&x->g) % N_OF(x->noise)), c = (a + 1) % (int)N_OF(x->noise);

	sb_printf(b, "%16s-%-7d [000] d..2. %lld.%06lld: ", x->noise[a].name, x->noise[a].pid,
		  us / 1000000, us % 1000000);
	switch (rng_next(&x->g) % 3) {
	case 0:
		sb_printf(b, "sched_waking: comm=%s pid=%d prio=120 target_cpu=000\n",
			  x->noise[c].name, x->noise[c].pid);
		break;
	case 1:
		sb_printf(b, "sched_wakeup: comm=%s pid=%d prio=120 target_cpu=000\n",
			  x->noise[c].name, x->noise[c].pid);
		break;
	default:
		sb_printf(b, "sched_switch: prev_comm=%s prev_pid=%d prev_prio=120 prev_state=S "
			  "==> next_comm=%s next_pid=%d next_prio=120\n", x->noise[a].name,
			  x->noise[a].pid, x->noise[c].name, x->noise[c].pid);
		break;
	}
}

/*
 * The task column of the event line @p..@le, "comm-pid" after blanks:
 * *tok and *te are where it starts and ends, *dash its last '-'. Returns the
 * pid, or -1 when the column is no "comm-pid".
 */
static int wm_task(const char *p, const char *le, const char **tok, const char **dash,
		   const char **te)
{
	const char *d;

	for (*tok = p; *tok < le && **tok == ' '; (*tok)++)
		;
	for (*te = *tok; *te < le && **te != ' '; (*te)++)
		;
	for (d = *te; d > *tok && isdigit((unsigned char)d[-1]); d--)
		;
	if (d == *te || d < *tok + 2 || d[-1] != '-')
		return -1;
	*dash = d - 1;
	return atoi(d);
}

/* @text (NUL-terminated, an event trace) transformed by @x, into @b. */
static void wm_transform(struct wm_xform *x, const char *text, struct sbuf *b)
{
	const char *end = text + strlen(text), *p, *ev, *from;
	long long *stamps = NULL, us;
	size_t n = 0, cap = 0, k = 0;

	sb_put(b, "", 0);
	for (p = text; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;

		ev = *p == '#' ? NULL : memmem(p, (size_t)(le - p), ": sched_", 8);
		if (ev && (us = wm_stamp(p, ev, &from)) >= 0) {
			const char *tok, *dash, *te;

			if (n == cap) {
				long long *ns = realloc(stamps, (cap = cap ? cap * 2 : 1024) *
							sizeof(*ns));

				if (!ns) {
					b->oom = true;
					free(stamps);
					return;
				}
				stamps = ns;
			}
			if (x->t0 < 0)
				x->t0 = us;
			stamps[n++] = wm_time(x, us);
			/* the followed task's name, from its "comm-pid" */
			if (wm_task(p, le, &tok, &dash, &te) == x->pid)
				snprintf(x->comm, sizeof(x->comm), "%.*s", (int)(dash - tok), tok);
		}
		p = nl ? nl + 1 : end;
	}
	for (p = text; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		const char *tok, *dash, *te, *colon;
		char num[40];
		int pid;

		ev = *p == '#' ? NULL : memmem(p, (size_t)(le - p), ": sched_", 8);
		if (!ev || wm_stamp(p, ev, &from) < 0) {
			sb_put(b, p, (size_t)(le - p));
			if (nl)
				sb_put(b, "\n", 1);
			p = nl ? nl + 1 : end;
			continue;
		}
		/* the task, "comm-pid": the name right-aligned up to the old '-' */
		pid = wm_task(p, le, &tok, &dash, &te);
		if (pid >= 0) {
			const char *name = pid == x->pid ? x->name : tok;
			size_t len = pid == x->pid ? strlen(x->name) : (size_t)(dash - tok);

			for (size_t c = len; c < (size_t)(dash - p); c++)
				sb_put(b, " ", 1);
			sb_put(b, name, len);
			sb_printf(b, "-%d", wm_pid(x, pid));
			/* the pid was printed %-7d: what follows stays in its column */
			for (int c = snprintf(num, sizeof(num), "%d", wm_pid(x, pid));
			     c < te - dash - 1; c++)
				sb_put(b, " ", 1);
		} else {
			sb_put(b, p, (size_t)(te - p));
		}
		sb_put(b, te, (size_t)(blanks_before(te, from) - te));
		snprintf(num, sizeof(num), "%lld.%06lld", stamps[k] / 1000000, stamps[k] % 1000000);
		put_field(b, blanks_before(te, from), ev, num);
		/* ": sched_xxx: " and the fields */
		colon = memchr(ev + 2, ':', (size_t)(le - ev - 2));
		colon = colon ? colon + 1 : le;
		if (colon < le && *colon == ' ')
			colon++;
		sb_put(b, ev, (size_t)(colon - ev));
		wm_fields(b, x, colon, le);
		if (nl)
			sb_put(b, "\n", 1);
		/* another task's event, on another CPU, before the next of ours */
		if (rng_next(&x->g) % 6 == 0)
			wm_noise(b, x, k + 1 < n ? stamps[k] + (long long)(rng_next(&x->g) %
					(uint64_t)(stamps[k + 1] - stamps[k] + 1)) : stamps[k]);
		k++;
		p = nl ? nl + 1 : end;
	}
	free(stamps);
}

/* ---- The latency traces --------------------------------------------------- */

/* What lt_parse() found in one trace: the subject's lines or the answer's. */
struct lt_result {
	int rc;
	char tracer[NAME_MAX_LEN], started[NAME_MAX_LEN], ended[NAME_MAX_LEN];
	char cause[NAME_MAX_LEN];
	long latency;
	unsigned int entries, gap_line;
	long gap_us;
};

struct lt_case {
	const char *file;	/* in checks/data; NULL: made from the seed */
	const char *what;	/* for a person */
	bool ran;
	char failed[512];	/* the subject's run could not be judged: why */
	char label[96];		/* the file, and what was done to it */
	struct sbuf text;	/* what the subject was given */
	struct lt_result got, want;
};

/* Sections with known answers; the last one is made from the seed. */
static struct lt_case lt_cases[] = {
	{ .file = "lt-irqsoff.txt", .what = "irqsoff, lab kernel 6.12" },
	{ .file = "lt-irqsoff-ftrace.txt", .what = "irqsoff with function tracing, 6.12" },
	{ .file = "lt-preemptoff.txt", .what = "preemptoff, lab kernel 6.12" },
	{ .file = "lt-preemptoff-ftrace.txt", .what = "preemptoff with function tracing, 6.12" },
	{ .file = "lt-preemptirqsoff.txt", .what = "preemptirqsoff, lab kernel 6.12" },
	{ .file = "lt-preemptirqsoff-ftrace.txt",
	  .what = "preemptirqsoff with function tracing, 6.12" },
	{ .file = "lt-wakeup_rt.txt", .what = "wakeup_rt, lab kernel 6.12" },
	{ .file = "lt-wakeup_dl.txt", .what = "wakeup_dl, lab kernel 6.12" },
	{ .file = "lt-rt61-wakeup.txt", .what = "wakeup, Debian rt kernel 6.1" },
	{ .file = "lt-constructed-preemptoff-4x.txt", .what = "preemptoff in a 4.19 layout" },
	{ .file = "lt-constructed-preemptirqsoff-rt.txt",
	  .what = "preemptirqsoff in the old PREEMPT_RT layout" },
	{ .file = "lt-constructed-wakeup-ftrace.txt", .what = "wakeup with function tracing" },
	{ .file = NULL, .what = "a trace made from the seed, its widest gap twice (the first "
	  "counts)" },
};

#define N_LT_FILES (N_OF(lt_cases) - 1)	/* the cases read from checks/data */

static struct lt_case lt_none[] = {
	{ .file = "lt-timerlat.txt", .what = "a timerlat trace (no latency header)" },
	{ .file = "lt-tracer-only.txt", .what = "a trace that names its tracer and nothing else" },
	{ .file = "lt-empty.txt", .what = "an empty trace" },
	{ .file = "wm-plain.txt", .what = "a trace of scheduler events" },
};

/* The last one is one of lt_cases cut right after its last entry, before the newline. */
static struct lt_case lt_cut[] = {
	{ .file = "lt-truncated-ftrace.txt",
	  .what = "an irqsoff trace cut off in the middle of an entry's time stamp" },
	{ .file = "lt-truncated-header.txt", .what = "a wakeup_rt trace cut off after its header" },
	{ .file = NULL, .what = "a trace cut off right after its last entry, without a newline" },
};

static void copy_word(char *dst, const char *src)
{
	size_t n = strcspn(src, " \n");

	if (n >= NAME_MAX_LEN)
		n = NAME_MAX_LEN - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* "key value" lines (the subject's), or "key value key value ..." (an answer). */
static bool lt_read(const char *s, struct lt_result *r, bool one_line)
{
	int seen = 0;

	memset(r, 0, sizeof(*r));
	while (*s && *s != '\n') {
		char key[16];
		int n;

		if (sscanf(s, "%15s %n", key, &n) != 1)
			return false;
		if (!strcmp(key, "file"))
			break;	/* the next trace's lines */
		s += n;
		if (!strcmp(key, "rc"))
			seen += sscanf(s, "%d", &r->rc);
		else if (!strcmp(key, "tracer"))
			copy_word(r->tracer, s), seen++;
		else if (!strcmp(key, "latency"))
			seen += sscanf(s, "%ld", &r->latency);
		else if (!strcmp(key, "started"))
			copy_word(r->started, s), seen++;
		else if (!strcmp(key, "ended"))
			copy_word(r->ended, s), seen++;
		else if (!strcmp(key, "entries"))
			seen += sscanf(s, "%u", &r->entries);
		else if (!strcmp(key, "gap"))
			seen += sscanf(s, "%u %ld", &r->gap_line, &r->gap_us) == 2;
		else if (!strcmp(key, "cause"))
			copy_word(r->cause, s), seen++;
		/* past the value(s) of this key */
		s += strcspn(s, " \n");
		if (!strcmp(key, "gap") && *s == ' ')
			s += 1 + strcspn(s + 1, " \n");
		if (*s == ' ')
			s++;
		else if (*s == '\n' && !one_line)
			s++;
		else if (*s == '\n')
			break;
	}
	return seen == 8;
}

/* The answer for @file from lt-answers.txt. */
static bool lt_answer(const char *file, struct lt_result *want)
{
	FILE *f = fopen(rtlab_check_data("lt-answers.txt"), "r");
	char line[1024];
	size_t n = strlen(file);
	bool ok = false;

	if (!f)
		return false;
	while (!ok && fgets(line, sizeof(line), f))
		if (!strncmp(line, file, n) && line[n] == ' ')
			ok = lt_read(line + n + 1, want, true);
	fclose(f);
	return ok;
}

/* An answer of a trace changed by @x, changed alike. */
static void lt_xform_answer(const struct lt_xform *x, struct lt_result *w)
{
	w->latency *= x->scale;
	w->gap_us *= x->scale;
	if (w->gap_line)
		w->gap_line += x->extra;
	fn_rename_answer(x, w->started);
	fn_rename_answer(x, w->ended);
	fn_rename_answer(x, w->cause);
}

/*
 * Case @c's trace and answer: its fixture changed by a transformation of
 * its own (@salt), or the trace made from the seed. False with c->failed.
 */
static bool lt_prepare(struct lt_case *c, uint64_t salt)
{
	struct lt_xform x;
	size_t len;
	char *text;

	if (!c->file) {
		char answer[512];

		lt_generate(&c->text, answer, sizeof(answer));
		snprintf(c->label, sizeof(c->label), "made from the seed");
		if (!lt_read(answer, &c->want, true))
			snprintf(c->failed, sizeof(c->failed), "the check program made a trace it "
				 "cannot read the answer of (a bug of the grader)");
		return !c->failed[0] && !c->text.oom;
	}
	snprintf(c->label, sizeof(c->label), "%s, transformed", c->file);
	text = slurp(rtlab_check_data(c->file), &len);
	if (!text) {
		snprintf(c->failed, sizeof(c->failed), "checks/data/%s cannot be read (a broken "
			 "installation)", c->file);
		return false;
	}
	if (!strncmp(c->file, "wm-", 3)) {
		/* an event trace: changed as the event traces are */
		struct wm_xform w;

		wm_xform_init(&w, salt, 1);
		wm_transform(&w, text, &c->text);
		c->want.rc = -ENOENT;
	} else {
		if (!lt_answer(c->file, &c->want))
			snprintf(c->failed, sizeof(c->failed), "checks/data/lt-answers.txt has no "
				 "answer for it (a broken installation)");
		lt_xform_init(&x, salt);
		if (text[0] != '#' || !memchr(text, '\n', len))
			x.extra = 0;	/* lt_transform() adds the "#" lines after a first one */
		if (len) {
			lt_transform(&x, text, len, &c->text);
			lt_xform_answer(&x, &c->want);
		} else {
			sb_put(&c->text, "", 0);	/* the empty trace stays empty */
			snprintf(c->label, sizeof(c->label), "%s", c->file);
		}
	}
	free(text);
	if (c->text.oom)
		snprintf(c->failed, sizeof(c->failed), "the check program ran out of memory");
	return !c->failed[0];
}

/*
 * The last cut case: @from's trace up to the end of its last entry line,
 * without the newline. Every entry and header line is still there, so the
 * answer is @from's.
 */
static bool lt_prepare_cut(struct lt_case *c, const struct lt_case *from)
{
	const char *t = from->text.p, *end = t + from->text.len, *cut = NULL;

	snprintf(c->label, sizeof(c->label), "%s, cut after its last entry",
		 from->file ? from->file : "the trace made from the seed");
	if (from->failed[0] || !t) {
		snprintf(c->failed, sizeof(c->failed), "%s", from->failed);
		return false;
	}
	for (const char *p = t; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end, *d, *us;

		if (*p != '#' && lt_stamp(p, le, &d, &us))
			cut = le;
		p = nl ? nl + 1 : end;
	}
	if (!cut) {
		snprintf(c->failed, sizeof(c->failed), "%s has no entry (a bug of the grader)",
			 c->label);
		return false;
	}
	sb_put(&c->text, t, (size_t)(cut - t));
	c->want = from->want;
	return !c->text.oom;
}

static void all_run(void);

/* Case @c's result from its @section of the run (NULL: none; @why: the run's end). */
static void lt_take(struct lt_case *c, const char *section, const char *why)
{
	c->ran = true;
	if (c->failed[0])
		return;
	if (!section)
		snprintf(c->failed, sizeof(c->failed), "%s%s",
			 strncmp(why, NEVER_GOT, strlen(NEVER_GOT)) ? "lt_parse() did not return: "
			 : "", why[0] ? why : "the subject printed no result for this trace");
	else if (strncmp(section, "rc ", 3) || !lt_read(section, &c->got, false))
		snprintf(c->failed, sizeof(c->failed), "the subject's output does not read as "
			 "expected: \"%.80s\"", section);
}

static void lt_need(const struct lt_case *c)
{
	if (c->failed[0])
		rtlab_fail("%s (%s): %s", c->what, c->label, c->failed);
	if (c->got.rc != c->want.rc)
		rtlab_fail("%s (%s): lt_parse() returned %d, expected %d%s", c->what, c->label,
			   c->got.rc, c->want.rc,
			   c->got.rc == -ENOSYS ? " (ENOSYS: not written yet?)" : "");
}

/* A string field: "-" is how both sides write "". */
static void lt_same(const struct lt_case *c, const char *field, const char *got,
		    const char *want)
{
	if (strcmp(got, want))
		rtlab_fail("%s (%s): %s is \"%s\", expected \"%s\"", c->what, c->label, field,
			   strcmp(got, "-") ? got : "", strcmp(want, "-") ? want : "");
}

static void lt_header(const struct lt_case *c)
{
	lt_same(c, "the tracer", c->got.tracer, c->want.tracer);
	if (c->got.latency != c->want.latency)
		rtlab_fail("%s (%s): the latency is %ld us, expected %ld us", c->what, c->label,
			   c->got.latency, c->want.latency);
	lt_same(c, "\"started at\"", c->got.started, c->want.started);
	lt_same(c, "\"ended at\"", c->got.ended, c->want.ended);
}

static void lt_gap(const struct lt_case *c)
{
	if (c->got.entries != c->want.entries)
		rtlab_fail("%s (%s): %u entry lines found, expected %u", c->what, c->label,
			   c->got.entries, c->want.entries);
	if (c->got.gap_line != c->want.gap_line || c->got.gap_us != c->want.gap_us)
		rtlab_fail("%s (%s): the widest gap found is %ld us after the entry on line %u; "
			   "expected %ld us after line %u", c->what, c->label, c->got.gap_us,
			   c->got.gap_line, c->want.gap_us, c->want.gap_line);
}

static void lt_cause(const struct lt_case *c)
{
	/* A cause after the wrong gap is the gap's failure, not the cause's. */
	if (c->got.gap_line != c->want.gap_line)
		rtlab_fail("%s (%s): the cause belongs to the widest gap, and that was not found "
			   "(check widest-gap)", c->what, c->label);
	lt_same(c, "the cause", c->got.cause, c->want.cause);
}

static void lt_header_gap(const struct lt_case *c)
{
	lt_header(c);
	lt_gap(c);
}

static void lt_everything(const struct lt_case *c)
{
	lt_header(c);
	lt_gap(c);
	lt_same(c, "the cause", c->got.cause, c->want.cause);
}

/* Judge each of @cases with @judge (NULL: the return value only). */
static void lt_each(struct lt_case *cases, size_t n, void (*judge)(const struct lt_case *c))
{
	all_run();
	for (size_t i = 0; i < n; i++) {
		lt_need(&cases[i]);
		if (judge)
			judge(&cases[i]);
	}
}

static void header(void **state)
{
	(void)state;
	lt_each(lt_cases, N_OF(lt_cases), lt_header);
}

static void widest_gap(void **state)
{
	(void)state;
	lt_each(lt_cases, N_OF(lt_cases), lt_gap);
}

static void cause(void **state)
{
	(void)state;
	lt_each(lt_cases, N_OF(lt_cases), lt_cause);
}

/* -ENOENT without a section, and only then: 0 for every trace that has one. */
static void no_section(void **state)
{
	(void)state;
	lt_each(lt_none, N_OF(lt_none), NULL);
	for (size_t i = 0; i < N_OF(lt_cases); i++) {
		const struct lt_case *c = &lt_cases[i];

		if (!c->failed[0] && c->got.rc != 0)
			rtlab_fail("%s (%s) has a section, and lt_parse() returned %d: -ENOENT is "
				   "for a trace without a \"# latency:\" line only", c->what,
				   c->label, c->got.rc);
	}
}

/*
 * The cut traces: everything of the two cut in the middle of a line; of
 * the one cut after its last entry, what a parser that drops a last line
 * without its newline gets wrong (its cause is the cause check's).
 */
static void truncated(void **state)
{
	(void)state;
	lt_each(lt_cut, N_OF(lt_cut) - 1, lt_everything);
	lt_each(lt_cut + N_OF(lt_cut) - 1, 1, lt_header_gap);
}

/* ---- The event traces ----------------------------------------------------- */

struct wm_result {
	int pid;
	long long counts[3];	/* matched, unmatched switches, pending */
	size_t nwake;
	unsigned long long (*wake)[3];	/* wake, run, latency */
};

struct wm_case {
	const char *name;	/* wm-NAME.txt and wm-NAME.answer */
	const char *what;
	long max;		/* room for this many wake-ups; -1: enough */
	bool ran;
	char failed[512];
	int rc;
	size_t events;
	struct sbuf text;	/* what the subject was given */
	struct wm_result got, want;
};

/* wake-match: 0..2 (and wm_room), wake-preempted: 3, wake-both-events: 4..5. */
static struct wm_case wm_all[] = {
	{ .name = "plain", .what = "a periodic task, other tasks' events on another CPU",
	  .max = -1 },
	{ .name = "busy", .what = "a periodic task among every task on its CPU", .max = -1 },
	{ .name = "plain-cut", .what = "a trace that ends inside a wake-up", .max = -1 },
	{ .name = "hog", .what = "a task that computes and is preempted by others", .max = -1 },
	{ .name = "both", .what = "sched_waking and sched_wakeup for every wake-up", .max = -1 },
	{ .name = "wakeup-only", .what = "sched_wakeup only", .max = -1 },
};

/*
 * wm-plain.txt with room for 1 to 20 wake-ups: all of them counted, the
 * first written. In a run of its own: code that writes past the room ends
 * with SIGSEGV, and must not take the other traces with it.
 */
static struct wm_case wm_room = {
	.name = "plain", .what = "a periodic task, with room for a few of its wake-ups only",
};

/* Parse "pid"/"counts"/"wake" lines; false when a line does not read. */
static bool wm_read(const char *s, struct wm_result *r, size_t max_wake)
{
	r->wake = calloc(max_wake ? max_wake : 1, sizeof(*r->wake));
	if (!r->wake)
		return false;
	for (const char *p = s; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, "file ", 5))
			break;	/* the next trace's lines */
		if (!strncmp(p, "pid ", 4)) {
			if (sscanf(p + 4, "%d", &r->pid) != 1)
				return false;
		} else if (!strncmp(p, "counts ", 7)) {
			if (sscanf(p + 7, "%lld %lld %lld", &r->counts[0], &r->counts[1],
				   &r->counts[2]) != 3)
				return false;
		} else if (!strncmp(p, "wake ", 5)) {
			long long lat;

			if (r->nwake >= max_wake)
				return false;
			if (sscanf(p + 5, "%llu %llu %lld", &r->wake[r->nwake][0],
				   &r->wake[r->nwake][1], &lat) != 3)
				return false;
			r->wake[r->nwake++][2] = (unsigned long long)lat;
		}
	}
	return true;
}

/*
 * Case @c's trace, transformed (@salt), and its answer changed alike; false
 * with c->failed set.
 */
static bool wm_prepare(struct wm_case *c, uint64_t salt)
{
	char file[64], *answer, *text;
	struct wm_xform x;
	size_t len;

	snprintf(file, sizeof(file), "wm-%s.answer", c->name);
	answer = slurp(rtlab_check_data(file), &len);
	if (!answer || !wm_read(answer, &c->want, 100000) || c->want.pid <= 0) {
		free(answer);
		snprintf(c->failed, sizeof(c->failed), "checks/data/%s is missing or broken (a "
			 "broken installation)", file);
		return false;
	}
	free(answer);
	snprintf(file, sizeof(file), "wm-%s.txt", c->name);
	text = slurp(rtlab_check_data(file), &len);
	if (!text) {
		snprintf(c->failed, sizeof(c->failed), "checks/data/%s cannot be read (a broken "
			 "installation)", file);
		return false;
	}
	wm_xform_init(&x, salt, c->want.pid);
	wm_transform(&x, text, &c->text);
	free(text);
	if (c->text.oom) {
		snprintf(c->failed, sizeof(c->failed), "the check program ran out of memory");
		return false;
	}
	if (c->max == 0) {
		struct rtlab_rng g = rng_for(salt ^ 0x3a3a);

		c->max = (long)rng_range(&g, 1, 20);
	}
	c->want.pid = wm_pid(&x, c->want.pid);
	for (size_t i = 0; i < c->want.nwake; i++) {
		c->want.wake[i][0] = (unsigned long long)wm_time(&x, (long long)(c->want.wake[i][0] /
								   1000)) * 1000;
		c->want.wake[i][1] = (unsigned long long)wm_time(&x, (long long)(c->want.wake[i][1] /
								   1000)) * 1000;
		c->want.wake[i][2] = c->want.wake[i][1] - c->want.wake[i][0];
	}
	if (c->max >= 0 && c->want.nwake > (size_t)c->max)
		c->want.nwake = (size_t)c->max;	/* only these are written */
	return true;
}

/* Case @c's result from its @section of the run (NULL: none; @why: the run's end). */
static void wm_take(struct wm_case *c, const char *section, const char *why)
{
	const char *rc;

	c->ran = true;
	if (c->failed[0])
		return;
	if (!section) {
		snprintf(c->failed, sizeof(c->failed), "%s%s",
			 strncmp(why, NEVER_GOT, strlen(NEVER_GOT)) ? "wm_match() did not return: "
			 : "", why[0] ? why : "the subject printed no result for this trace");
		return;
	}
	rc = strstr(section, "rc ");
	if (sscanf(section, "events %zu", &c->events) != 1 || !rc ||
	    sscanf(rc + 3, "%d", &c->rc) != 1 || !wm_read(rc, &c->got, c->events + 1))
		snprintf(c->failed, sizeof(c->failed), "the subject's output does not read as "
			 "expected: \"%.80s\"", section);
}

/* ---- Running the subject on every trace ------------------------------------- */

#define N_ALL (N_OF(lt_cases) + N_OF(wm_all) + N_OF(lt_none) + N_OF(lt_cut))	/* in one run */

/* One trace for the subject: "KIND NAME PID LEN [MAX]", then the text. */
struct frame {
	const char *kind;
	char name[32];		/* "file NAME" in the output: a number, nothing to recognise */
	int pid;
	long max;
	const struct sbuf *text;
};

/*
 * Run `subject run` on the @n traces of @f. On return, sections[i] points
 * at the subject's lines for trace i in r->out ("file NAME" excluded), or is
 * NULL when it never got there; why says what went wrong for those, and
 * *stopped is the trace it ended on (-1: none, or it ended normally).
 */
static bool run_framed(const struct frame *f, size_t n, struct rtlab_run *r,
		       const char **sections, char *why, size_t why_len, long *stopped)
{
	const char *argv[] = { "run", NULL };
	struct rtlab_run_opts o = { .argv = argv };
	struct sbuf in = { 0 };
	const char *pos;
	long last = -1;

	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < n; i++) {
		sections[i] = NULL;
		if (f[i].max >= 0)
			sb_printf(&in, "%s %s %d %zu %ld\n", f[i].kind, f[i].name, f[i].pid,
				  f[i].text->len, f[i].max);
		else
			sb_printf(&in, "%s %s %d %zu\n", f[i].kind, f[i].name, f[i].pid,
				  f[i].text->len);
		sb_put(&in, f[i].text->p ? f[i].text->p : "", f[i].text->len);
	}
	if (in.oom) {
		free(in.p);
		snprintf(why, why_len, "the check program ran out of memory");
		return false;
	}
	o.stdin_data = in.p;
	o.stdin_len = in.len;
	if (rtlab_run_subject(&o, r)) {
		snprintf(why, why_len, "the subject could not be run: %s", r->reason);
		free(in.p);
		return false;
	}
	free(in.p);
	/* In order, after the subject's "begin". */
	pos = rtlab_run_last(r, "begin\n");
	for (size_t i = 0; pos && i < n; i++) {
		char tag[64];
		const char *p;

		snprintf(tag, sizeof(tag), "file %s\n", f[i].name);
		p = memmem(pos, (size_t)(r->out + r->out_len - pos), tag, strlen(tag));
		if (p) {
			sections[i] = p + strlen(tag);
			pos = sections[i];
			last = (long)i;
		}
	}
	*stopped = -1;
	if (!rtlab_run_ok(r)) {
		/* The trace it was on when it stopped is the last one it named. */
		if (last >= 0) {
			sections[last] = NULL;
			*stopped = last;
		}
		snprintf(why, why_len, "the subject ended: %s%s%s", r->reason,
			 r->signal != SIGSEGV || last < 0 ? "" : !strcmp(f[last].kind, "lt") ?
			 " (reading past the end of the text? It is not NUL-terminated: stop at "
			 "text + len)" : " (writing past the end of out[]? It has room for @max "
			 "wake-ups: count the others without writing them)",
			 r->out_cut ? " (it printed too much)" : "");
	}
	return true;
}

/* What the @i-th trace of the run is, for a person. */
static const char *lt_label_of(size_t i)
{
	static char label[160];

	if (i < N_OF(lt_cases))
		return lt_cases[i].label;
	i -= N_OF(lt_cases);
	if (i < N_OF(wm_all)) {
		snprintf(label, sizeof(label), "wm-%s.txt, transformed, to wm_match()",
			 wm_all[i].name);
		return label;
	}
	i -= N_OF(wm_all);
	if (i < N_OF(lt_none))
		return lt_none[i].label;
	return lt_cut[i - N_OF(lt_none)].label;
}

/*
 * One run of the subject for every check: the latency traces with a section,
 * the event traces, those without a section, the cut ones (what most likely
 * crashes, last: what came before a crash is still judged). Each trace is
 * transformed with a salt of its own.
 */
static void all_run(void)
{
	static bool ran;
	struct frame f[N_ALL];
	const char *sections[N_ALL];
	char why[400] = "", *whys[N_ALL], before[480];
	struct rtlab_run r;
	struct rtlab_rng g;
	long stopped = -1;
	size_t n = 0;
	struct frame room;

	if (ran)
		return;
	ran = true;
	for (size_t i = 0; i < N_OF(lt_cases); i++)
		lt_prepare(&lt_cases[i], 100 + i);
	for (size_t i = 0; i < N_OF(wm_all); i++)
		wm_prepare(&wm_all[i], 200 + i);
	wm_prepare(&wm_room, 250);
	for (size_t i = 0; i < N_OF(lt_none); i++)
		lt_prepare(&lt_none[i], 300 + i);
	for (size_t i = 0; i + 1 < N_OF(lt_cut); i++)
		lt_prepare(&lt_cut[i], 400 + i);
	g = rng_for(500);
	lt_prepare_cut(&lt_cut[N_OF(lt_cut) - 1], &lt_cases[rng_next(&g) % N_LT_FILES]);

	for (size_t i = 0; i < N_OF(lt_cases); i++, n++)
		f[n] = (struct frame){ "lt", "", 0, -1, &lt_cases[i].text };
	for (size_t i = 0; i < N_OF(wm_all); i++, n++)
		f[n] = (struct frame){ "wm", "", wm_all[i].want.pid > 0 ? wm_all[i].want.pid : 1,
				       wm_all[i].max, &wm_all[i].text };
	for (size_t i = 0; i < N_OF(lt_none); i++, n++)
		f[n] = (struct frame){ "lt", "", 0, -1, &lt_none[i].text };
	for (size_t i = 0; i < N_OF(lt_cut); i++, n++)
		f[n] = (struct frame){ "lt", "", 0, -1, &lt_cut[i].text };
	for (size_t i = 0; i < n; i++)
		snprintf(f[i].name, sizeof(f[i].name), "%s-%zu", f[i].kind, i + 1);

	if (!run_framed(f, n, &r, sections, why, sizeof(why), &stopped))
		for (size_t i = 0; i < n; i++)
			sections[i] = NULL;
	/* The trace the subject ended on says how; those after it, where. */
	snprintf(before, sizeof(before), "%s (%s): %s", NEVER_GOT,
		 stopped < 0 ? "" : lt_label_of((size_t)stopped), why);
	for (size_t i = 0; i < n; i++)
		whys[i] = stopped >= 0 && (long)i > stopped ? before : why;
	n = 0;
	for (size_t i = 0; i < N_OF(lt_cases); i++, n++)
		lt_take(&lt_cases[i], sections[n], whys[n]);
	for (size_t i = 0; i < N_OF(wm_all); i++, n++)
		wm_take(&wm_all[i], sections[n], whys[n]);
	for (size_t i = 0; i < N_OF(lt_none); i++, n++)
		lt_take(&lt_none[i], sections[n], whys[n]);
	for (size_t i = 0; i < N_OF(lt_cut); i++, n++)
		lt_take(&lt_cut[i], sections[n], whys[n]);
	rtlab_run_fini(&r);

	room = (struct frame){ "wm", "wm-1", wm_room.want.pid > 0 ? wm_room.want.pid : 1,
			       wm_room.max, &wm_room.text };
	why[0] = '\0';
	if (!run_framed(&room, 1, &r, sections, why, sizeof(why), &stopped))
		sections[0] = NULL;
	wm_take(&wm_room, sections[0], why);
	rtlab_run_fini(&r);
}

static void wm_judge(struct wm_case *c)
{
	const struct wm_result *g = &c->got, *w = &c->want;
	char what[160];
	size_t n;

	if (c->max >= 0)
		snprintf(what, sizeof(what), "%s (wm-%s.txt, transformed; room for %ld)", c->what,
			 c->name, c->max);
	else
		snprintf(what, sizeof(what), "%s (wm-%s.txt, transformed)", c->what, c->name);
	if (c->failed[0])
		rtlab_fail("%s: %s", what, c->failed);
	if (c->rc)
		rtlab_fail("%s: wm_match() returned %d%s", what, c->rc,
			   c->rc == -ENOSYS ? " (ENOSYS: not written yet?)" : "");
	n = g->nwake < w->nwake ? g->nwake : w->nwake;
	for (size_t i = 0; i < n; i++) {
		if (!memcmp(g->wake[i], w->wake[i], sizeof(g->wake[i])))
			continue;
		rtlab_fail("%s, following pid %d: wake-up %zu should run from the waking at %llu "
			   "ns to the switch at %llu ns (%lld ns); yours runs from %llu to %llu "
			   "(%lld ns)", what, w->pid, i + 1, w->wake[i][0], w->wake[i][1],
			   (long long)w->wake[i][2], g->wake[i][0], g->wake[i][1],
			   (long long)g->wake[i][2]);
	}
	if (g->counts[0] != w->counts[0] || g->nwake != w->nwake)
		rtlab_fail("%s, following pid %d: %lld wake-ups found (%zu written), expected "
			   "%lld (%zu written); the first %zu agree", what, w->pid, g->counts[0],
			   g->nwake, w->counts[0], w->nwake, n);
	if (g->counts[1] != w->counts[1])
		rtlab_fail("%s: %lld unmatched switches counted, expected %lld", what,
			   g->counts[1], w->counts[1]);
	if (g->counts[2] != w->counts[2])
		rtlab_fail("%s: pending is %lld, expected %lld", what, g->counts[2], w->counts[2]);
}

static void wake_match(void **state)
{
	(void)state;
	all_run();
	for (size_t i = 0; i < 3; i++)
		wm_judge(&wm_all[i]);
	wm_judge(&wm_room);
}

static void wake_preempted(void **state)
{
	(void)state;
	all_run();
	wm_judge(&wm_all[3]);
}

static void wake_both_events(void **state)
{
	(void)state;
	all_run();
	for (size_t i = 4; i < 6; i++)
		wm_judge(&wm_all[i]);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(header),
		cmocka_unit_test(widest_gap),
		cmocka_unit_test(cause),
		cmocka_unit_test(no_section),
		cmocka_unit_test(truncated),
		cmocka_unit_test(wake_match),
		cmocka_unit_test(wake_preempted),
		cmocka_unit_test(wake_both_events),
	};

	(void)rtlab_check_seed();
	return rtlab_check_main("ftrace", tests, sizeof(tests) / sizeof(tests[0]));
}
