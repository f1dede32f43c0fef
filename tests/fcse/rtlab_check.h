/*
 * rtlab_check.h (stand-in): the interface a check program has from the
 * grading harness, as the harness's doc/exercises.md defines it
 * (labs/common/rtlab_check.h there). The FCSE exercise's check program is
 * written against it; until the harness is on main, `make exercise-fcse`
 * compiles it with this header and tests/fcse/rtlab_check_standin.c. Once
 * the harness lands, both go and the harness's own files take over.
 */
#ifndef RTLAB_CHECK_H
#define RTLAB_CHECK_H

#include <stdbool.h>
#include <stddef.h>

struct CMUnitTest;

struct rtlab_run_opts {
	const char *const *argv;	/* arguments after the program name; NULL: none */
	const char *stdin_path;		/* a file given as the subject's stdin */
	const char *stdin_data;		/* or these bytes (stdin_len of them); neither: empty */
	size_t stdin_len;
	unsigned int wall_s;		/* 0: the default, 10 s */
	unsigned int rtprio;		/* not granted by the stand-in */
	unsigned int memlock_kb;	/* not granted by the stand-in */
};

struct rtlab_run {
	char *out;
	size_t out_len;
	bool out_cut;
	char *err;
	size_t err_len;
	bool err_cut;
	int exit_code;		/* the exit status, or -1 when it did not exit */
	int signal;		/* the signal that ended it, or 0 */
	bool timed_out;
	bool cpu_limit;
	bool fsize_limit;
	char reason[256];	/* how it ended, for a person */
	unsigned int nstops;
	long vmlck_kb;
	int policy;
	int rtprio;
	double wall_s;
};

int rtlab_run_subject(const struct rtlab_run_opts *o, struct rtlab_run *r);
bool rtlab_run_ok(const struct rtlab_run *r);
void rtlab_run_fini(struct rtlab_run *r);
bool rtlab_check_can(const char *need);
const char *rtlab_check_data(const char *name);
void rtlab_check_reason(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define rtlab_fail(...) do { rtlab_check_reason(__VA_ARGS__); fail(); } while (0)
int rtlab_check_main(const char *group, const struct CMUnitTest *tests, size_t n);

#endif
