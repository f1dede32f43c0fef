/*
 * check_latency: the checks of the latency lab's exercise (exercise.json),
 * one cmocka test per check. Each runs the subject (subject.c linked with
 * the learner's probe_loop.c) through the harness and judges what it
 * printed and what the kernel reported; nothing here trusts the subject to
 * judge itself.
 *
 * The loop is judged on a simulated clock (subject.c's shim: time moves
 * only when the loop sleeps, each wake-up comes a known 2..400 us late), so
 * the verdicts do not depend on how loaded the machine is: a relative sleep,
 * a plan that drifts or a wrong latency shows in the recorded timeline the
 * same way every time. One short run on the real clock checks the same
 * rules where the machine's timing cannot change the verdict (every wake-up
 * on the grid, none before its time, latencies as read). Memory locking is
 * judged from VmLck as the kernel reports it while the subject is stopped.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memmem, strndup */
#endif
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rtlab_check.h"

#define NS_PER_SEC 1000000000LL
#define PREFAULT_KB 512		/* probe_loop.h: PROBE_PREFAULT_STACK */
#define MEMLOCK_KB 8192		/* RLIMIT_MEMLOCK asked for: Debian's default */

/* ---- Running the subject --------------------------------------------------- */

/*
 * Run the subject with @argv (and @input on stdin); on success @r holds
 * the run. A run that did not finish normally fails the check, with how
 * it ended as the reason.
 */
static void run_subject(const char *const *argv, const char *input, unsigned int memlock_kb,
			bool expect_stop, struct rtlab_run *r)
{
	struct rtlab_run_opts o = {
		.argv = argv,
		.stdin_data = input,
		.stdin_len = input ? strlen(input) : 0,
		.memlock_kb = memlock_kb,
	};

	memset(r, 0, sizeof(*r));
	if (rtlab_run_subject(&o, r)) {
		rtlab_check_reason("the subject could not be run: %s", r->reason);
		rtlab_run_fini(r);
		fail();
	}
	if (!rtlab_run_ok(r)) {
		rtlab_check_reason("`subject %s` did not finish normally: %s%s", argv[0], r->reason,
				   r->out_cut ? " (it printed too much: is the loop running away?)"
					      : "");
		rtlab_run_fini(r);
		fail();
	}
	if (expect_stop && !r->nstops) {
		rtlab_check_reason("`subject %s` never reached the point where the kernel is "
				   "asked (it printed \"%.60s\")", argv[0], r->out);
		rtlab_run_fini(r);
		fail();
	}
}

/* The subject's own lines: after its last "begin" (NULL: it never began). */
static const char *subject_lines(const struct rtlab_run *r)
{
	const char *p = rtlab_run_last(r, "begin\n");

	return p ? p + 6 : NULL;
}

/* The first line of @out starting with @tag and a space, or NULL. */
static const char *find_line(const char *out, const char *tag)
{
	size_t n = strlen(tag);

	for (const char *p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, tag, n) && p[n] == ' ')
			return p + n + 1;
	return NULL;
}

/* ---- The loop's timeline ---------------------------------------------------- */

struct sleep_rec {
	char kind;		/* A R N U S E (subject.c) */
	int clk;
	long long target;	/* ns since the base; 'E': seconds asked */
	long long woke;		/* 'E': nanoseconds asked */
	long long read;
	bool has_read;
};

struct loop_run {
	const char *what;	/* "10,000 periods of 1 ms" */
	long long period;
	size_t loops;
	bool ran;
	char failed[512];	/* the run itself failed: the reason */
	int rc;
	bool runaway;
	char runaway_what[160];
	struct sleep_rec *rec;
	size_t nrec;
	long long *lat;
	bool *lat_set;
	size_t nlat;
	unsigned long long reads, wrong_clock;
};

static const char *kind_name(char kind)
{
	switch (kind) {
	case 'A': return "clock_nanosleep() with TIMER_ABSTIME";
	case 'R': return "clock_nanosleep() without TIMER_ABSTIME, a relative sleep";
	case 'N': return "nanosleep(), a relative sleep";
	case 'U': return "usleep(), a relative sleep";
	case 'S': return "sleep(), a relative sleep";
	default: return "a refused sleep";
	}
}

static const char *clock_name(int clk)
{
	switch (clk) {
	case CLOCK_REALTIME: return "CLOCK_REALTIME";
	case CLOCK_MONOTONIC: return "CLOCK_MONOTONIC";
	case CLOCK_PROCESS_CPUTIME_ID: return "CLOCK_PROCESS_CPUTIME_ID";
	case CLOCK_THREAD_CPUTIME_ID: return "CLOCK_THREAD_CPUTIME_ID";
	case CLOCK_MONOTONIC_RAW: return "CLOCK_MONOTONIC_RAW";
	case CLOCK_BOOTTIME: return "CLOCK_BOOTTIME";
	default: return "another clock";
	}
}

/* One "P ..." line; false when it does not parse. */
static bool parse_rec(const char *s, struct sleep_rec *r)
{
	char kind, tail[32];
	long long a, b;
	int clk, n;

	memset(r, 0, sizeof(*r));
	if (sscanf(s, "%c %d %n", &kind, &clk, &n) != 2 || !strchr("ARNUSE", kind))
		return false;
	s += n;
	r->kind = kind;
	r->clk = clk;
	if (kind == 'E') {
		if (sscanf(s, "%lld.%lld - -", &a, &b) != 2)
			return false;
		r->target = a;
		r->woke = b;
		return true;
	}
	if (sscanf(s, "%lld %lld %31s", &a, &b, tail) != 3)
		return false;
	r->target = a;
	r->woke = b;
	if (strcmp(tail, "-")) {
		char *end;

		errno = 0;
		r->read = strtoll(tail, &end, 10);
		if (errno || *end)
			return false;
		r->has_read = true;
	}
	return true;
}

/* Parse the subject's loop output into @lr; false with lr->failed set. */
static bool parse_loop(const char *out, struct loop_run *lr)
{
	size_t cap = lr->loops + 64, lineno = 0;
	bool have_rc = false, have_reads = false;

	lr->rec = calloc(cap, sizeof(*lr->rec));
	lr->lat = calloc(lr->loops, sizeof(*lr->lat));
	lr->lat_set = calloc(lr->loops, sizeof(*lr->lat_set));
	if (!lr->rec || !lr->lat || !lr->lat_set) {
		snprintf(lr->failed, sizeof(lr->failed), "the check program ran out of memory");
		return false;
	}
	for (const char *p = out; *p; ) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[160];

		lineno++;
		if (len >= sizeof(line))
			len = sizeof(line) - 1;	/* a learner's own print: skipped below */
		memcpy(line, p, len);
		line[len] = '\0';
		p += len + (nl ? 1 : 0);
		if (nl == NULL && !*p && len == 0)
			break;
		if (!strncmp(line, "P ", 2)) {
			if (lr->nrec >= cap || !parse_rec(line + 2, &lr->rec[lr->nrec]))
				goto bad;
			lr->nrec++;
		} else if (!strncmp(line, "L ", 2)) {
			if (lr->nlat >= lr->loops)
				goto bad;
			if (strcmp(line + 2, "-")) {
				if (sscanf(line + 2, "%lld", &lr->lat[lr->nlat]) != 1)
					goto bad;
				lr->lat_set[lr->nlat] = true;
			}
			lr->nlat++;
		} else if (!strncmp(line, "rc ", 3)) {
			if (sscanf(line + 3, "%d", &lr->rc) != 1)
				goto bad;
			have_rc = true;
		} else if (!strncmp(line, "runaway ", 8)) {
			lr->runaway = true;
			snprintf(lr->runaway_what, sizeof(lr->runaway_what), "%s", line + 8);
		} else if (!strncmp(line, "reads ", 6)) {
			if (sscanf(line + 6, "%llu wrong-clock %llu", &lr->reads,
				   &lr->wrong_clock) != 2)
				goto bad;
			have_reads = true;
		}
		/* Anything else is the learner's own output: not ours to judge. */
		continue;
bad:
		snprintf(lr->failed, sizeof(lr->failed),
			 "the subject's output line %zu does not read as expected: \"%.60s\"",
			 lineno, line);
		return false;
	}
	if (lr->runaway) {
		snprintf(lr->failed, sizeof(lr->failed),
			 "the loop made far more %s than %zu wake-ups need, and was stopped "
			 "(is it waiting by reading the clock in a loop instead of sleeping?)",
			 lr->runaway_what, lr->loops);
		return false;
	}
	if (!have_rc || !have_reads || lr->nlat != lr->loops) {
		snprintf(lr->failed, sizeof(lr->failed),
			 "the subject's output is incomplete (%zu of %zu latencies, %s)", lr->nlat,
			 lr->loops, have_rc ? "a return value" : "no return value");
		return false;
	}
	return true;
}

static const char *errno_name(int e)
{
	switch (e) {
	case ENOSYS: return "ENOSYS: not written yet?";
	case EINVAL: return "EINVAL";
	case EFAULT: return "EFAULT";
	case EPERM: return "EPERM";
	case ENOMEM: return "ENOMEM";
	case EAGAIN: return "EAGAIN";
	case EINTR: return "EINTR";
	default: return "an errno";
	}
}

/* ---- One run of the subject for every check but the memory ones ----------- */

struct add_case {
	long long sec, nsec, add;
};

static const struct add_case add_cases[] = {
	{ 0, 0, 1000000 },
	{ 5, 999000000, 1000000 },		/* exactly one second: carries */
	{ 5, 999000001, 1000000 },		/* just over */
	{ 5, 998999999, 1000000 },		/* just under */
	{ 259200, 999600000, 1000000 },
	{ 7, 500000000, 1700000000 },		/* a period over a second */
	{ 7, 999999999, 2999999999 },		/* carries three seconds */
	{ 1, 0, 0 },
	{ 100, 123456789, 10000000000 },	/* ten seconds exactly */
	{ 2147483000, 999999999, 1 },		/* past 2^31 seconds: time_t is 64-bit */
};

struct diff_case {
	long long as, an, bs, bn;
};

static const struct diff_case diff_cases[] = {
	{ 10, 500, 10, 200 },
	{ 11, 100, 10, 999999900 },		/* a borrow across the second */
	{ 10, 200, 10, 500 },			/* negative: woke before the plan */
	{ 10, 999999900, 11, 100 },		/* negative across the second */
	{ 259203, 1, 259200, 999600000 },
	{ 5, 0, 5, 0 },
	{ 4000000000, 5, 3999999999, 999999999 },	/* seconds beyond 32 bits */
	{ 100, 0, 0, 0 },			/* 1e11 ns: needs 64 bits */
};

/* The two loops on the simulated clock, and the one on the real clock. */
static struct loop_run fake_short = {
	.what = "10,000 periods of 1 ms", .period = 1000000, .loops = 10000,
};
static struct loop_run fake_long = {
	.what = "30 periods of 1.7 s", .period = 1700000000, .loops = 30,
};
static struct loop_run real_run = {
	.what = "100 periods of 1 ms on the real clock", .period = 1000000, .loops = 100,
};

/*
 * Where each simulated loop starts: 3 days and 999.6 ms, then 1 day and
 * 999,999,999 ns, so the first period already carries into tv_sec, and a
 * plan kept in floating-point seconds loses nanoseconds.
 */
static const char loop_commands[] =
	"fake 1000000 10000 7 259200 999600000\n"
	"fake 1700000000 30 11 86400 999999999\n"
	"real 1000000 100\n";

/* The run, kept for the program's life; why it did not finish, if it did not. */
static struct rtlab_run all_run;
static const char *all_lines;	/* the subject's own lines in all_run.out */
static bool all_ran;
static size_t all_ndiff_syn, all_ndiff;	/* "diff" commands: synthetic, in all */
static char all_why[400];

/*
 * The recorded timeline (checks/data/timeline.txt, "PS PN WS WN" per
 * wake-up) as "diff" commands (woke - planned) appended to @in at *len.
 */
static char *add_timeline(char *in, size_t *len, size_t *n)
{
	FILE *f = fopen(rtlab_check_data("timeline.txt"), "r");
	char line[128];

	*n = 0;
	if (!f)
		return in;
	while (in && fgets(line, sizeof(line), f)) {
		long long ps, pn, ws, wn;
		char *nin;

		if (line[0] == '#' || sscanf(line, "%lld %lld %lld %lld", &ps, &pn, &ws, &wn) != 4)
			continue;
		nin = realloc(in, *len + 128);
		if (!nin) {
			free(in);
			in = NULL;
			break;
		}
		in = nin;
		*len += (size_t)sprintf(in + *len, "diff %lld %lld %lld %lld\n", ws, wn, ps, pn);
		(*n)++;
	}
	fclose(f);
	return in;
}

/* Parse loop @k's lines ("run K" up to "run K+1") of the run into @lr. */
static void loop_parse(struct loop_run *lr, size_t k)
{
	char tag[32];
	const char *p, *next;
	char *part;

	lr->ran = true;
	snprintf(tag, sizeof(tag), "run %zu\n", k);
	p = all_lines ? rtlab_run_last(&all_run, tag) : NULL;
	if (!p) {
		snprintf(lr->failed, sizeof(lr->failed), "%s", all_why[0] ? all_why :
			 "the subject never started this loop");
		return;
	}
	p += strlen(tag);
	snprintf(tag, sizeof(tag), "run %zu\n", k + 1);
	next = strstr(p, tag);
	if (!next && all_why[0] && k < 3) {
		snprintf(lr->failed, sizeof(lr->failed), "%s", all_why);
		return;
	}
	part = strndup(p, next ? (size_t)(next - p) : strlen(p));
	if (!part) {
		snprintf(lr->failed, sizeof(lr->failed), "the check program ran out of memory");
		return;
	}
	if (parse_loop(part, lr) && all_why[0] && !next)
		snprintf(lr->failed, sizeof(lr->failed), "%s", all_why);
	free(part);
	/* A refused sleep ends the loop early: the judges name that sleep. */
	if (!lr->failed[0] && lr->rc && !(lr->nrec && lr->rec[lr->nrec - 1].kind == 'E'))
		snprintf(lr->failed, sizeof(lr->failed), "probe_loop_run() returned %d (%s)",
			 lr->rc, errno_name(-lr->rc));
}

/*
 * Run the subject once with every command: the additions, the differences
 * (synthetic, then the recorded timeline), then the three loops. The order
 * keeps what most likely crashes (the loop) last; what came before a crash
 * is still judged.
 */
static void all_get(void)
{
	const char *argv[] = { "run", NULL };
	struct rtlab_run_opts o = { .argv = argv };
	size_t len = 0, nt = 0, n_add = sizeof(add_cases) / sizeof(add_cases[0]);
	size_t n_diff = sizeof(diff_cases) / sizeof(diff_cases[0]);
	char *in;

	if (all_ran)
		return;
	all_ran = true;
	in = malloc((n_add + n_diff) * 96 + 1);
	if (!in) {
		snprintf(all_why, sizeof(all_why), "the check program ran out of memory");
		return;
	}
	for (size_t i = 0; i < n_add; i++)
		len += (size_t)sprintf(in + len, "add %lld %lld %lld\n", add_cases[i].sec,
				       add_cases[i].nsec, add_cases[i].add);
	for (size_t i = 0; i < n_diff; i++)
		len += (size_t)sprintf(in + len, "diff %lld %lld %lld %lld\n", diff_cases[i].as,
				       diff_cases[i].an, diff_cases[i].bs, diff_cases[i].bn);
	in = add_timeline(in, &len, &nt);
	if (in) {
		char *nin = realloc(in, len + sizeof(loop_commands));

		if (!nin)
			free(in);
		in = nin;
	}
	if (!in || nt < 100) {
		free(in);
		snprintf(all_why, sizeof(all_why), "checks/data/timeline.txt is missing or short "
			 "(a broken installation)");
		return;
	}
	memcpy(in + len, loop_commands, sizeof(loop_commands));
	len += sizeof(loop_commands) - 1;
	all_ndiff_syn = n_diff;
	all_ndiff = n_diff + nt;
	o.stdin_data = in;
	o.stdin_len = len;
	if (rtlab_run_subject(&o, &all_run))
		snprintf(all_why, sizeof(all_why), "the subject could not be run: %s",
			 all_run.reason);
	else if (!rtlab_run_ok(&all_run))
		snprintf(all_why, sizeof(all_why), "the subject did not finish normally: %s%s",
			 all_run.reason, all_run.out_cut ? " (it printed too much: is the loop "
			 "running away?)" : "");
	free(in);
	all_lines = all_run.out ? subject_lines(&all_run) : NULL;
	loop_parse(&fake_short, 1);
	loop_parse(&fake_long, 2);
	loop_parse(&real_run, 3);
}

static struct loop_run *loop_get(struct loop_run *lr)
{
	all_get();
	return lr;
}

/* Fail the check when the run could not be judged at all. */
static void loop_need(const struct loop_run *lr)
{
	if (lr->failed[0])
		rtlab_fail("%s: %s", lr->what, lr->failed);
}

/* ---- The judges: NULL when fine, else the reason in @why -------------------- */

/* One sleep per wake-up asked for. */
static const char *judge_count(const struct loop_run *lr, char *why, size_t len)
{
	if (lr->nrec == lr->loops)
		return NULL;
	snprintf(why, len, "%s: the loop slept %zu times for %zu wake-ups", lr->what, lr->nrec,
		 lr->loops);
	return why;
}

static const char *judge_sleeps_absolute(const struct loop_run *lr, char *why, size_t len)
{
	for (size_t i = 0; i < lr->nrec; i++) {
		const struct sleep_rec *r = &lr->rec[i];

		if (r->kind == 'E') {
			snprintf(why, len, "%s: sleep %zu was refused with EINVAL: it asked for "
				 "%lld s and %lld ns, and tv_nsec must be below 1,000,000,000",
				 lr->what, i + 1, r->target, r->woke);
			return why;
		}
		if (r->kind != 'A') {
			long long after = i ? r->target - lr->rec[i - 1].woke : r->target;

			snprintf(why, len, "%s: sleep %zu was %s: it ended %lld ns after the "
				 "previous wake-up (or the start), so every late wake-up pushes all "
				 "later ones back",
				 lr->what, i + 1, kind_name(r->kind), after);
			return why;
		}
		if (r->clk != CLOCK_MONOTONIC) {
			snprintf(why, len, "%s: sleep %zu was on %s, not on the clock the loop "
				 "was given (CLOCK_MONOTONIC)", lr->what, i + 1,
				 clock_name(r->clk));
			return why;
		}
	}
	return judge_count(lr, why, len);
}

static const char *judge_grid(const struct loop_run *lr, bool exact_start, char *why,
			      size_t len)
{
	long long first;

	if (!lr->nrec) {
		snprintf(why, len, "%s: the loop never slept", lr->what);
		return why;
	}
	for (size_t i = 0; i < lr->nrec; i++) {
		if (lr->rec[i].kind == 'E') {
			snprintf(why, len, "%s: sleep %zu was refused (tv_nsec %lld is not below "
				 "1,000,000,000), so no plan can be judged", lr->what, i + 1,
				 lr->rec[i].woke);
			return why;
		}
	}
	first = lr->rec[0].target;
	if (exact_start && first != lr->period) {
		snprintf(why, len, "%s: the first wake-up was planned %lld ns after the start, "
			 "not one period (%lld ns) after it", lr->what, first, lr->period);
		return why;
	}
	for (size_t i = 1; i < lr->nrec; i++) {
		long long want = first + (long long)i * lr->period;
		long long step = lr->rec[i].target - lr->rec[i - 1].target;

		if (lr->rec[i].target == want)
			continue;
		snprintf(why, len, "%s: wake-up %zu was planned %lld ns after wake-up %zu, not "
			 "one period (%lld ns); by the last wake-up the plan is %+lld ns off "
			 "the grid start + k periods", lr->what, i + 1, step, i, lr->period,
			 lr->rec[lr->nrec - 1].target -
			 (first + (long long)(lr->nrec - 1) * lr->period));
		return why;
	}
	return judge_count(lr, why, len);
}

static const char *judge_latencies(const struct loop_run *lr, char *why, size_t len)
{
	size_t n = lr->nrec < lr->loops ? lr->nrec : lr->loops;

	for (size_t i = 0; i < n; i++) {
		const struct sleep_rec *r = &lr->rec[i];

		if (r->kind == 'E') {
			snprintf(why, len, "%s: sleep %zu was refused with EINVAL (tv_nsec %lld is "
				 "not below 1,000,000,000)", lr->what, i + 1, r->woke);
			return why;
		}
		if (!r->has_read) {
			snprintf(why, len, "%s: the loop did not read the clock after sleep %zu "
				 "returned", lr->what, i + 1);
			return why;
		}
		if (!lr->lat_set[i]) {
			snprintf(why, len, "%s: latency_ns[%zu] was never written", lr->what, i);
			return why;
		}
		if (lr->lat[i] != r->read - r->target) {
			snprintf(why, len, "%s: wake-up %zu was planned at start + %lld ns and the "
				 "clock read after it said start + %lld ns, a latency of %lld ns; "
				 "the loop recorded %lld ns", lr->what, i + 1, r->target, r->read,
				 r->read - r->target, lr->lat[i]);
			return why;
		}
	}
	if (lr->nrec != lr->loops) {
		snprintf(why, len, "%s: the loop slept %zu times for %zu wake-ups, so its "
			 "latencies cannot be matched to its wake-ups", lr->what, lr->nrec,
			 lr->loops);
		return why;
	}
	return NULL;
}

/* ---- The checks ------------------------------------------------------------ */

/* The "TAG ..." result after @p, or NULL; the reason names the subject's end. */
static const char *next_result(const char *p, const char *tag)
{
	return p ? find_line(p, tag) : NULL;
}

static void timespec_add(void **state)
{
	size_t n = sizeof(add_cases) / sizeof(add_cases[0]);
	const char *p;

	(void)state;
	all_get();
	p = all_lines;
	for (size_t i = 0; i < n; i++) {
		const struct add_case *c = &add_cases[i];
		long long total = c->nsec + c->add;
		long long ws = c->sec + total / NS_PER_SEC, wn = total % NS_PER_SEC, sec, ns;

		p = next_result(p, "add");
		if (!p || sscanf(p, "%lld %lld", &sec, &ns) != 2)
			rtlab_fail("no result for adding %lld ns to {%lld s, %lld ns}%s%s", c->add,
				   c->sec, c->nsec, all_why[0] ? ": " : "", all_why);
		if (sec != ws || ns != wn)
			rtlab_fail("adding %lld ns to {%lld s, %lld ns} gave {%lld s, %lld ns}, "
				   "expected {%lld s, %lld ns}%s", c->add, c->sec, c->nsec, sec, ns,
				   ws, wn, ns >= NS_PER_SEC ? ": tv_nsec is not below one second"
				   : ns < 0 ? ": tv_nsec is negative" : "");
	}
}

static void latency_diff(void **state)
{
	size_t n = sizeof(diff_cases) / sizeof(diff_cases[0]);
	FILE *f;
	char line[128];
	const char *p;
	size_t i = 0;

	(void)state;
	all_get();
	if (!all_ndiff)
		rtlab_fail("%s", all_why);
	p = all_lines;
	f = fopen(rtlab_check_data("timeline.txt"), "r");
	if (!f)
		rtlab_fail("checks/data/timeline.txt cannot be read (a broken installation)");
	for (; i < all_ndiff; i++) {
		const char *what = i < n ? "synthetic case" : "recorded wake-up";
		size_t no = i < n ? i + 1 : i + 1 - n;
		long long as, an, bs, bn, got, want;

		if (i < n) {
			as = diff_cases[i].as;
			an = diff_cases[i].an;
			bs = diff_cases[i].bs;
			bn = diff_cases[i].bn;
		} else {
			/* "PS PN WS WN": the subject computed woke - planned */
			do {
				if (!fgets(line, sizeof(line), f))
					line[0] = '\0';
			} while (line[0] == '#');
			if (sscanf(line, "%lld %lld %lld %lld", &bs, &bn, &as, &an) != 4)
				break;
		}
		want = (as - bs) * NS_PER_SEC + (an - bn);
		p = next_result(p, "diff");
		if (!p || sscanf(p, "%lld", &got) != 1) {
			fclose(f);
			rtlab_fail("%s %zu: no result%s%s", what, no, all_why[0] ? ": " : "",
				   all_why);
		}
		if (got != want) {
			fclose(f);
			rtlab_fail("%s %zu: {%lld s, %lld ns} - {%lld s, %lld ns} gave %lld ns, "
				   "expected %lld ns", what, no, as, an, bs, bn, got, want);
		}
	}
	fclose(f);
}

typedef const char *(*loop_judge)(const struct loop_run *lr, char *why, size_t len);

/* Judge both runs on the simulated clock with @judge. */
static void judge_fake_runs(loop_judge judge)
{
	struct loop_run *runs[] = { loop_get(&fake_short), loop_get(&fake_long) };
	char why[512];

	for (size_t i = 0; i < 2; i++) {
		loop_need(runs[i]);
		if (judge(runs[i], why, sizeof(why)))
			rtlab_fail("%s", why);
	}
}

static const char *judge_grid_from_start(const struct loop_run *lr, char *why, size_t len)
{
	return judge_grid(lr, true, why, len);
}

static void absolute_sleep(void **state)
{
	(void)state;
	judge_fake_runs(judge_sleeps_absolute);
}

static void no_drift(void **state)
{
	(void)state;
	judge_fake_runs(judge_grid_from_start);
}

static void latency_timeline(void **state)
{
	(void)state;
	judge_fake_runs(judge_latencies);
}

static void real_clock(void **state)
{
	struct loop_run *lr = loop_get(&real_run);
	char why[512];

	(void)state;
	loop_need(lr);
	if (judge_sleeps_absolute(lr, why, sizeof(why)) ||
	    judge_grid(lr, false, why, sizeof(why)) || judge_latencies(lr, why, sizeof(why)))
		rtlab_fail("%s", why);
	if (lr->rec[0].target <= 0)
		rtlab_fail("%s: the first wake-up was planned before the loop started",
			   lr->what);
	for (size_t i = 0; i < lr->nrec; i++)
		if (lr->rec[i].woke < lr->rec[i].target)
			rtlab_fail("%s: sleep %zu returned %lld ns before its planned time",
				   lr->what, i + 1, lr->rec[i].target - lr->rec[i].woke);
}

/* "prepare R" of a memory run. */
static int prepare_rc(const struct rtlab_run *r)
{
	const char *p = subject_lines(r) ? find_line(subject_lines(r), "prepare") : NULL;
	int rc;

	if (!p || sscanf(p, "%d", &rc) != 1)
		return INT_MIN;
	return rc;
}

/* VmLck of one memory run of the subject; the learner's return value in *rc. */
static long memory_run(const char *mode, int *rc, bool *map_ok)
{
	const char *argv[] = { mode, NULL };
	struct rtlab_run r;
	const char *map;
	long kb;

	run_subject(argv, NULL, MEMLOCK_KB, true, &r);
	*rc = prepare_rc(&r);
	map = subject_lines(&r) ? find_line(subject_lines(&r), "map") : NULL;
	if (map_ok)
		*map_ok = map && !strncmp(map, "ok", 2);
	kb = r.vmlck_kb;
	rtlab_run_fini(&r);
	if (*rc == INT_MIN)
		rtlab_fail("`subject %s`: probe_memory_prepare() did not return", mode);
	if (kb < 0)
		rtlab_fail("`subject %s`: the kernel's VmLck could not be read", mode);
	return kb;
}

static void memory_locked(void **state)
{
	long base, now, later;
	bool map_ok;
	int rc;

	(void)state;
	base = memory_run("lock-base", &rc, NULL);
	if (rc || base <= 0)
		rtlab_fail("the subject could not lock its own memory (%d, VmLck %ld kB): the "
			   "grader cannot judge locking here", rc, base);
	now = memory_run("lock-now", &rc, NULL);
	if (rc)
		rtlab_fail("probe_memory_prepare() returned %d (%s) with RLIMIT_MEMLOCK at "
			   "%d KiB, where the same process can lock its memory", rc,
			   errno_name(-rc), MEMLOCK_KB);
	if (now < base - 128)
		rtlab_fail("after probe_memory_prepare() the kernel reports VmLck %ld kB; with "
			   "everything mapped at that moment locked it is at least %ld kB: what is "
			   "mapped now is not locked", now, base);
	later = memory_run("lock-later", &rc, &map_ok);
	if (!map_ok)
		rtlab_fail("2 MiB could not be mapped after probe_memory_prepare()");
	if (later - now < 2048 - 128)
		rtlab_fail("2 MiB mapped after probe_memory_prepare() added %ld kB to VmLck, "
			   "not 2048: memory mapped later (the stack as it grows, buffers) is "
			   "not locked", later - now);
}

static void stack_prefault(void **state)
{
	const char *base_argv[] = { "stack-base", NULL }, *argv[] = { "stack", NULL };
	struct rtlab_run r;
	long base, kb;

	(void)state;
	run_subject(base_argv, NULL, MEMLOCK_KB, true, &r);
	base = r.vmlck_kb;
	rtlab_run_fini(&r);
	if (base <= 0)
		rtlab_fail("the subject could not lock its memory (VmLck %ld kB): the grader "
			   "cannot judge the stack here", base);
	run_subject(argv, NULL, MEMLOCK_KB, true, &r);
	kb = r.vmlck_kb;
	rtlab_run_fini(&r);
	/*
	 * The process starts with about 132 kB of stack; touching 512 KiB below
	 * it grows the (locked) stack by about 380 kB more than the baseline.
	 */
	if (kb - base < PREFAULT_KB - 132 - 32)
		rtlab_fail("probe_memory_prepare() grew the locked stack by %ld kB; touching "
			   "PROBE_PREFAULT_STACK (%d KiB) grows it by about %d kB", kb - base,
			   PREFAULT_KB, PREFAULT_KB - 132);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(timespec_add),
		cmocka_unit_test(latency_diff),
		cmocka_unit_test(absolute_sleep),
		cmocka_unit_test(no_drift),
		cmocka_unit_test(latency_timeline),
		cmocka_unit_test(real_clock),
		cmocka_unit_test(memory_locked),
		cmocka_unit_test(stack_prefault),
	};

	return rtlab_check_main("latency", tests, sizeof(tests) / sizeof(tests[0]));
}
