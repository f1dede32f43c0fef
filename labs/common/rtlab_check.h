/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rtlab_check: what a lab's check program needs from the grading harness.
 *
 * A check program (labs/<lab>/checks/check_<lab>.c) is a cmocka program,
 * one test per check of the lab's exercise.json. It never links the
 * learner's code: it runs the compiled subject (checks/subject.c linked
 * with the learner's sources) through rtlab_run_subject(), which asks the
 * rtlab that started the program (`rtlab grade --run-subject`) to run it in
 * a fresh sandbox, and it judges what the subject printed and how it ended.
 * The harness reads the verdicts from the program's TAP output, which the
 * subject cannot reach. doc/exercises.md is the whole contract.
 *
 * The harness compiles rtlab_check.c into every check program and adds
 * -I labs/common; include <cmocka.h> (with its prerequisites) first.
 */
#ifndef RTLAB_CHECK_H
#define RTLAB_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct CMUnitTest;

/* How to run the subject once. Zero is a sensible default for every field. */
struct rtlab_run_opts {
	const char *const *argv;	/* arguments after the program's name, NULL-terminated;
					 * NULL: none */
	const char *stdin_path;		/* a file given as the subject's stdin (a fixture) */
	const char *stdin_data;		/* or these bytes, stdin_len of them; neither: empty */
	size_t stdin_len;
	unsigned int wall_s;		/* wall-clock limit; 0: the manifest's */
	unsigned int rtprio;		/* RLIMIT_RTPRIO for the subject (SCHED_FIFO up to it);
					 * honoured when rtlab_check_can("sched_fifo") */
	unsigned int memlock_kb;	/* RLIMIT_MEMLOCK for the subject (mlockall);
					 * honoured when rtlab_check_can("mlock") */
};

/* What one run of the subject did. Release with rtlab_run_fini(). */
struct rtlab_run {
	char *out;		/* stdout, NUL-terminated (may hold NULs: use out_len) */
	size_t out_len;
	bool out_cut;		/* it wrote more than the manifest's output_kb: the rest is lost */
	char *err;		/* stderr, NUL-terminated, at most 64 KiB kept */
	size_t err_len;
	bool err_cut;
	int exit_code;		/* its exit status, or -1 when it did not exit */
	int signal;		/* the signal that ended it, or 0 */
	bool timed_out;		/* killed at the wall-clock limit */
	bool cpu_limit;		/* ended by the CPU limit */
	bool fsize_limit;	/* hit the file size limit */
	char reason[256];	/* how it ended, for a person ("exited with 0", "killed by
				 * SIGSEGV (segmentation fault)", "timed out after 10 s") */
	unsigned int nstops;	/* times it stopped itself with raise(SIGSTOP) */
	long vmlck_kb;		/* at the last stop: VmLck from /proc/PID/status; -1: no stop */
	int policy;		/* at the last stop: sched_getscheduler() (SCHED_FIFO...); -1 */
	int rtprio;		/* at the last stop: its RT priority; -1 */
	double wall_s;		/* how long it ran */
};

/**
 * rtlab_run_subject - run the compiled subject once, in a fresh sandbox
 * @o: the request (NULL: no arguments, empty stdin)
 * @r: filled in when 0 is returned; release with rtlab_run_fini()
 *
 * Returns 0 when the subject ran, however it ended (see @r), or a negative
 * errno when the runner could not (not started by rtlab grade, no memory):
 * then @r->reason says why and the test should fail.
 */
int rtlab_run_subject(const struct rtlab_run_opts *o, struct rtlab_run *r);

/* rtlab_run_ok - true when the run exited 0, in time, with nothing cut. */
bool rtlab_run_ok(const struct rtlab_run *r);

/*
 * rtlab_run_last - the last @needle in @r's output, which may hold NUL bytes (the
 * learner's code prints into the same stream as the subject); NULL when there is none.
 */
const char *rtlab_run_last(const struct rtlab_run *r, const char *needle);

/* rtlab_run_fini - free what @r owns; @r is zeroed. */
void rtlab_run_fini(struct rtlab_run *r);

/* rtlab_check_can - true when the harness grants @need: "sched_fifo", "mlock" or "root". */
bool rtlab_check_can(const char *need);

/*
 * rtlab_check_data - the path of checks/data/@name, for a fixture; a static
 * buffer overwritten by the next call. The subject never sees data/.
 */
const char *rtlab_check_data(const char *name);

/*
 * rtlab_check_reason - the sentence the learner reads when the current
 * check fails next (what was expected, what came); printf-style.
 */
void rtlab_check_reason(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* rtlab_fail - fail the current check with a reason (printf-style). */
#define rtlab_fail(...) do { rtlab_check_reason(__VA_ARGS__); fail(); } while (0)

/* ---- Inputs from a seed ----------------------------------------------------------------
 *
 * A learner can read the installed checks before handing in: a check whose
 * inputs are fixed can be answered by a table. Checks draw their inputs
 * from the run's seed instead, and name it when they fail.
 */

/*
 * rtlab_check_seed - this run's seed: RTLAB_CHECK_SEED when it is a number
 * (a teacher repeating a failure), else one from getrandom(), chosen once.
 */
uint64_t rtlab_check_seed(void);

/* A stream of numbers (splitmix64), one per use: the same seed and salt, the same numbers. */
struct rtlab_rng {
	uint64_t s;
};

/* rtlab_rng_for - the stream of @salt under this run's seed. */
struct rtlab_rng rtlab_rng_for(uint64_t salt);

/* rtlab_rng_next - the stream's next 64 bits. */
uint64_t rtlab_rng_next(struct rtlab_rng *g);

/* rtlab_rng_named - the stream of @what (a check's or scenario's name) under this run's seed. */
struct rtlab_rng rtlab_rng_named(const char *what);

/* rtlab_rng_range - a number in [@lo, @hi]. */
long long rtlab_rng_range(struct rtlab_rng *g, long long lo, long long hi);

/* rtlab_rng_below - a number in [0, @n) (0 when @n is 0; the modulo's bias is negligible). */
uint64_t rtlab_rng_below(struct rtlab_rng *g, uint64_t n);

/*
 * rtlab_check_seed_reason - rtlab_check_reason() followed by the seed that
 * made the inputs ("(inputs from seed N; RTLAB_CHECK_SEED=N gives the
 * same)"), the text cut so that the harness never cuts off the seed.
 */
void rtlab_check_seed_reason(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* rtlab_fail_seeded - fail the current check with a reason and the seed. */
#define rtlab_fail_seeded(...) do { rtlab_check_seed_reason(__VA_ARGS__); fail(); } while (0)

/**
 * rtlab_check_main - run the checks the harness asked for
 * @group: the group's name (the lab's)
 * @tests, @n: every check of the exercise, in the manifest's order
 *
 * Runs those named in RTLAB_CHECK_ONLY (all when it is unset), with cmocka's
 * TAP output. Returns what main() should.
 */
int rtlab_check_main(const char *group, const struct CMUnitTest *tests, size_t n);

#endif
