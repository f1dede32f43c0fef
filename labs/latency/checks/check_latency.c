/* SPDX-License-Identifier: GPL-2.0-or-later */
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
 * same way every time. One simulated loop has its sleeps interrupted now
 * and then (EINTR), and a read of another clock returns a time decades
 * away, as CLOCK_REALTIME would. One short run on the real clock checks the same
 * rules where the machine's timing cannot change the verdict (every wake-up
 * on the grid, none before its time, latencies as read). Memory locking is
 * judged from VmLck as the kernel reports it while the subject is stopped.
 *
 * Every input is drawn from a seed chosen when the program starts (the
 * additions and differences, the recorded timeline's offset, where and how
 * late the simulated clock runs): checks/ is installed where a learner can
 * read it, so nothing a submission could have looked up there may decide a
 * verdict. RTLAB_CHECK_SEED fixes the seed; every failure names it.
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
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "rtlab_check.h"

#define NS_PER_SEC 1000000000LL
#define PREFAULT_KB 512		/* probe_loop.h: PROBE_PREFAULT_STACK */
#define MEMLOCK_KB 8192		/* RLIMIT_MEMLOCK asked for: Debian's default */

/* ---- The seed of this run (labs/common/rtlab_check.h) ----------------------------- */

/* The short names used below. */
#define rng_for rtlab_rng_for
#define rng_next rtlab_rng_next
#define rng_range rtlab_rng_range
#define seed_reason rtlab_check_seed_reason
#undef rtlab_fail
#define rtlab_fail(...) rtlab_fail_seeded(__VA_ARGS__)

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
		seed_reason("the subject could not be run: %s", r->reason);
		rtlab_run_fini(r);
		fail();
	}
	if (!rtlab_run_ok(r)) {
		seed_reason("`subject %s` did not finish normally: %s%s", argv[0], r->reason,
			    r->out_cut ? " (it printed too much: is the loop running away?)" : "");
		rtlab_run_fini(r);
		fail();
	}
	if (expect_stop && !r->nstops) {
		seed_reason("`subject %s` never reached the point where the kernel is asked (it "
			    "printed \"%.60s\")", argv[0], r->out);
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
	char what[96];		/* "10,000 periods of 1 ms" */
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
	case 'a': return "clock_nanosleep() with TIMER_ABSTIME, interrupted";
	case 'r': return "clock_nanosleep() without TIMER_ABSTIME (a relative sleep), interrupted";
	case 'n': return "nanosleep() (a relative sleep), interrupted";
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
	if (sscanf(s, "%c %d %n", &kind, &clk, &n) != 2 || !strchr("ARNUSEarn", kind))
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
	size_t cap = 2 * lr->loops + 64, lineno = 0;	/* interrupted sleeps too */
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
	case EINTR: return "EINTR: an interrupted sleep is no failure, sleep again until the "
			   "same planned time";
	default: return "an errno";
	}
}

/* ---- One run of the subject for every check but the memory ones ----------- */

struct add_case {
	long long sec, nsec, add;
};

/*
 * The additions, drawn from the seed, each keeping what it tests: the
 * exact carry, one nanosecond either side of it, periods of one to three
 * seconds, whole seconds, seconds beyond 2^31 (time_t is 64-bit).
 */
#define N_ADD 14
static struct add_case add_cases[N_ADD];

static void make_add_cases(void)
{
	struct rtlab_rng g = rng_for(1);
	long long base = rng_range(&g, 1, 900000), a = rng_range(&g, 2, NS_PER_SEC - 2);
	long long ms = rng_range(&g, 1, 999) * 1000000;
	struct add_case *c = add_cases;

	*c++ = (struct add_case){ base, rng_range(&g, 0, NS_PER_SEC - ms - 1), ms };
	*c++ = (struct add_case){ base + 1, NS_PER_SEC - ms, ms };	/* exactly one second */
	*c++ = (struct add_case){ base + 2, NS_PER_SEC - a, a };	/* the same, any length */
	*c++ = (struct add_case){ base + 3, NS_PER_SEC - a + 1, a };	/* just over */
	*c++ = (struct add_case){ base + 4, NS_PER_SEC - a - 1, a };	/* just under */
	*c++ = (struct add_case){ rng_range(&g, 86400, 9999999), rng_range(&g, 0, NS_PER_SEC - 1),
				  rng_range(&g, 1, NS_PER_SEC - 1) };
	/* a period over a second, and one that carries three seconds */
	*c++ = (struct add_case){ base + 5, rng_range(&g, 0, NS_PER_SEC - 1),
				  rng_range(&g, NS_PER_SEC + 1, 2 * NS_PER_SEC - 1) };
	*c++ = (struct add_case){ base + 6, NS_PER_SEC - 1 - rng_range(&g, 0, 999),
				  3 * NS_PER_SEC - 1 - rng_range(&g, 0, 999) };
	*c++ = (struct add_case){ base + 7, rng_range(&g, 0, NS_PER_SEC - 1), 0 };
	*c++ = (struct add_case){ base + 8, rng_range(&g, 0, NS_PER_SEC - 1),
				  rng_range(&g, 2, 10) * NS_PER_SEC };	/* whole seconds */
	*c++ = (struct add_case){ 2147483647 - rng_range(&g, 0, 3), NS_PER_SEC - rng_range(&g, 1, 9),
				  rng_range(&g, 10, 999999) };		/* across 2^31 s */
	for (; c < add_cases + N_ADD; c++)
		*c = (struct add_case){ rng_range(&g, 0, 99999999), rng_range(&g, 0, NS_PER_SEC - 1),
					rng_range(&g, 0, 5 * NS_PER_SEC) };
}

struct diff_case {
	long long as, an, bs, bn;
	bool recorded;		/* from checks/data/timeline.txt */
};

#define N_DIFF_SYN 12
static struct diff_case *diff_cases;	/* N_DIFF_SYN synthetic, then the recorded */
static size_t n_diff;

/* The synthetic differences from the seed: borrows, signs, 64-bit values. */
static void make_diff_cases(struct diff_case *d)
{
	struct rtlab_rng g = rng_for(2);
	long long s = rng_range(&g, 1, 900000), lo = rng_range(&g, 0, 499999999);
	long long hi = rng_range(&g, 500000000, NS_PER_SEC - 1);

	d[0] = (struct diff_case){ s, hi, s, lo };			/* the same second */
	d[1] = (struct diff_case){ s + 1, lo, s, hi };			/* a borrow */
	d[2] = (struct diff_case){ s, lo, s, hi };			/* woke before the plan */
	d[3] = (struct diff_case){ s, hi, s + 1, lo };			/* negative, borrowing */
	d[4] = (struct diff_case){ s + rng_range(&g, 2, 400000), lo, s, hi };
	d[5] = (struct diff_case){ s, lo, s, lo };
	d[6] = (struct diff_case){ 4000000000LL + s, lo, 3999999999LL + s, hi };
	d[7] = (struct diff_case){ s + rng_range(&g, 5, 99999), hi, s, hi };	/* > 2^32 ns */
	d[8] = (struct diff_case){ s, hi, s + rng_range(&g, 5, 99999), lo };	/* far negative */
	for (size_t i = 9; i < N_DIFF_SYN; i++)
		d[i] = (struct diff_case){ rng_range(&g, 0, 99999999), rng_range(&g, 0, NS_PER_SEC - 1),
					   rng_range(&g, 0, 99999999),
					   rng_range(&g, 0, NS_PER_SEC - 1) };
}

/*
 * The synthetic differences, then the recorded timeline (checks/data/
 * timeline.txt, "PS PN WS WN" per wake-up: the subject computes woke -
 * planned). The timeline is moved in time by an offset from the seed, so
 * its numbers are not the file's; each difference stays what was measured.
 * False when the file cannot be read.
 */
static bool make_diffs(void)
{
	FILE *f = fopen(rtlab_check_data("timeline.txt"), "r");
	struct rtlab_rng g = rng_for(3);
	long long off_s = rng_range(&g, 1, 99999999), off_ns = rng_range(&g, 0, NS_PER_SEC - 1);
	size_t cap = N_DIFF_SYN + 4096;
	char line[128];

	diff_cases = calloc(cap, sizeof(*diff_cases));
	if (!f || !diff_cases) {
		if (f)
			fclose(f);
		return false;
	}
	make_diff_cases(diff_cases);
	n_diff = N_DIFF_SYN;
	while (n_diff < cap && fgets(line, sizeof(line), f)) {
		long long ps, pn, ws, wn;

		if (line[0] == '#' || sscanf(line, "%lld %lld %lld %lld", &ps, &pn, &ws, &wn) != 4)
			continue;
		pn += off_ns;
		wn += off_ns;
		diff_cases[n_diff++] = (struct diff_case){
			.as = ws + off_s + wn / NS_PER_SEC, .an = wn % NS_PER_SEC,
			.bs = ps + off_s + pn / NS_PER_SEC, .bn = pn % NS_PER_SEC, .recorded = true,
		};
	}
	fclose(f);
	return n_diff >= N_DIFF_SYN + 100;
}

/* The loops on the simulated clock, one of them with interrupted sleeps, and the real one. */
static struct loop_run fake_short = { .period = 1000000, .loops = 10000 };
static struct loop_run fake_long = { .loops = 30 };
static struct loop_run fake_intr = { .period = 1000000, .loops = 2000 };
static struct loop_run real_run = {
	.what = "100 periods of 1 ms on the real clock", .period = 1000000, .loops = 100,
};

#define INTR_ONE_IN 8	/* about one sleep in 8 of fake_intr is interrupted */

/*
 * The loop commands. Each simulated loop starts a seeded number of days in,
 * less than one period before a whole second, so the first period already
 * carries into tv_sec; the long loop's period (1.1 to 2.9 s) and how late
 * each wake-up comes are seeded too.
 */
static int loop_commands(char *buf, size_t len)
{
	struct rtlab_rng g = rng_for(4);
	struct loop_run *fake[] = { &fake_short, &fake_long, &fake_intr };
	size_t n = 0;

	fake_long.period = rng_range(&g, 1100, 2900) * 1000000 + rng_range(&g, 1, 999999);
	snprintf(fake_short.what, sizeof(fake_short.what), "10,000 periods of 1 ms");
	snprintf(fake_long.what, sizeof(fake_long.what), "30 periods of %lld ns",
		 fake_long.period);
	snprintf(fake_intr.what, sizeof(fake_intr.what), "2,000 periods of 1 ms, some of "
		 "the sleeps interrupted by a signal (EINTR)");
	for (size_t i = 0; i < 3; i++) {
		long long t0s = rng_range(&g, 86400, 99 * 86400);
		long long t0n = NS_PER_SEC - rng_range(&g, 1, fake[i]->period % NS_PER_SEC ?
						    fake[i]->period % NS_PER_SEC : NS_PER_SEC - 1);

		n += (size_t)snprintf(buf + n, len - n, "fake %lld %zu %llu %lld %lld %d\n",
				      fake[i]->period, fake[i]->loops,
				      (unsigned long long)(rng_next(&g) >> 1), t0s, t0n,
				      fake[i] == &fake_intr ? INTR_ONE_IN : 0);
	}
	n += (size_t)snprintf(buf + n, len - n, "real %lld %zu\n", real_run.period,
			      real_run.loops);
	return (int)n;
}

/* The run, kept for the program's life; why it did not finish, if it did not. */
static struct rtlab_run all_run;
static const char *all_lines;	/* the subject's own lines in all_run.out */
static bool all_ran;
static char all_why[400];

#define N_LOOPS 4	/* fake_short, fake_long, fake_intr, real_run */

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
	if (!next && all_why[0] && k < N_LOOPS) {
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
 * (synthetic, then the recorded timeline), then the loops. The order keeps
 * what most likely crashes (the loop) last; what came before a crash is
 * still judged.
 */
static void all_get(void)
{
	const char *argv[] = { "run", NULL };
	struct rtlab_run_opts o = { .argv = argv };
	size_t len = 0, cap;
	char *in;

	if (all_ran)
		return;
	all_ran = true;
	make_add_cases();
	if (!make_diffs()) {
		snprintf(all_why, sizeof(all_why), "checks/data/timeline.txt is missing or short "
			 "(a broken installation)");
		return;
	}
	cap = (N_ADD + n_diff) * 96 + 1024;
	in = malloc(cap);
	if (!in) {
		snprintf(all_why, sizeof(all_why), "the check program ran out of memory");
		return;
	}
	for (size_t i = 0; i < N_ADD; i++)
		len += (size_t)snprintf(in + len, cap - len, "add %lld %lld %lld\n",
					add_cases[i].sec, add_cases[i].nsec, add_cases[i].add);
	for (size_t i = 0; i < n_diff; i++)
		len += (size_t)snprintf(in + len, cap - len, "diff %lld %lld %lld %lld\n",
					diff_cases[i].as, diff_cases[i].an, diff_cases[i].bs,
					diff_cases[i].bn);
	len += (size_t)loop_commands(in + len, cap - len);
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
	loop_parse(&fake_intr, 3);
	loop_parse(&real_run, 4);
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

/* Every sleep absolute, on the loop's clock, to a valid time. */
static const char *judge_sleep_kinds(const struct loop_run *lr, char *why, size_t len)
{
	for (size_t i = 0; i < lr->nrec; i++) {
		const struct sleep_rec *r = &lr->rec[i];

		if (r->kind == 'E') {
			snprintf(why, len, "%s: sleep %zu was refused with EINVAL: it asked for "
				 "%lld s and %lld ns, and tv_nsec must be below 1,000,000,000",
				 lr->what, i + 1, r->target, r->woke);
			return why;
		}
		if (r->kind != 'A' && r->kind != 'a') {
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
	return NULL;
}

static const char *judge_sleeps_absolute(const struct loop_run *lr, char *why, size_t len)
{
	if (judge_sleep_kinds(lr, why, len))
		return why;
	return judge_count(lr, why, len);
}

/*
 * The loop whose sleeps a signal interrupts now and then: each interrupted
 * sleep is followed by one until the same planned time, and one sleep per
 * wake-up reaches its time.
 */
static const char *judge_resumed(const struct loop_run *lr, char *why, size_t len)
{
	size_t done = 0, cut = 0;

	if (judge_sleep_kinds(lr, why, len))
		return why;
	for (size_t i = 0; i < lr->nrec; i++) {
		const struct sleep_rec *r = &lr->rec[i];

		if (r->kind == 'A') {
			done++;
			continue;
		}
		cut++;
		if (i + 1 < lr->nrec && lr->rec[i + 1].target == r->target)
			continue;
		snprintf(why, len, "%s: sleep %zu was interrupted (EINTR) %lld ns before its "
			 "planned time, and the loop %s: sleep again until the same planned time",
			 lr->what, i + 1, r->target - r->woke, i + 1 < lr->nrec ?
			 "next slept until another time" : "never slept again");
		return why;
	}
	if (!cut)
		snprintf(why, len, "%s: no sleep was interrupted, so the loop cannot be judged "
			 "(a broken subject)", lr->what);
	else if (done != lr->loops)
		snprintf(why, len, "%s: %zu sleeps reached their planned time for %zu wake-ups",
			 lr->what, done, lr->loops);
	else
		return NULL;
	return why;
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

	if (lr->wrong_clock) {
		snprintf(why, len, "%s: %llu of the loop's %llu clock reads were of another clock "
			 "than the one it was given (CLOCK_MONOTONIC): the planned times and the "
			 "times read must come from the same clock", lr->what, lr->wrong_clock,
			 lr->reads);
		return why;
	}

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
	const char *p;

	(void)state;
	all_get();
	if (!n_diff)
		rtlab_fail("%s", all_why);
	p = all_lines;
	for (size_t i = 0; i < n_diff; i++) {
		const struct diff_case *c = &diff_cases[i];
		const char *what = c->recorded ? "recorded wake-up" : "synthetic case";
		size_t no = c->recorded ? i + 1 - N_DIFF_SYN : i + 1;
		long long got, want = (c->as - c->bs) * NS_PER_SEC + (c->an - c->bn);

		p = next_result(p, "diff");
		if (!p || sscanf(p, "%lld", &got) != 1)
			rtlab_fail("%s %zu: no result%s%s", what, no, all_why[0] ? ": " : "",
				   all_why);
		if (got != want)
			rtlab_fail("%s %zu: {%lld s, %lld ns} - {%lld s, %lld ns} gave %lld ns, "
				   "expected %lld ns", what, no, c->as, c->an, c->bs, c->bn, got,
				   want);
	}
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
	struct loop_run *lr;
	char why[512];

	(void)state;
	judge_fake_runs(judge_sleeps_absolute);
	lr = loop_get(&fake_intr);
	loop_need(lr);
	if (judge_resumed(lr, why, sizeof(why)))
		rtlab_fail("%s", why);
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
	/*
	 * The loop reads the clock after the subject noted the start, so its
	 * first plan lies at least one period after it, however loaded the
	 * machine is.
	 */
	if (lr->rec[0].target < lr->period)
		rtlab_fail("%s: the first wake-up was planned %lld ns after the loop was "
			   "called, less than one period (%lld ns): plan it one period after "
			   "the clock was read", lr->what, lr->rec[0].target, lr->period);
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

	(void)rtlab_check_seed();
	return rtlab_check_main("latency", tests, sizeof(tests) / sizeof(tests[0]));
}
