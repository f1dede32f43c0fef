/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rtlab-fcse-pids: the FCSE kernel's PID allocator at work, for the FCSE exercise's
 * kernel-pids check (labs/fcse/checks/check_fcse.c), which replays the same forks and
 * exits on a learner's allocator and compares PID for PID.
 *
 * Built static with the cross compiler by vm/build.sh into the fcse image as
 * /usr/bin/rtlab-fcse-pids; it builds for the host too (tests/cli/fcse_pids.t), where
 * --proc names a file to read in place of /proc/fcse. Meant for fcse=guaranteed.
 *
 * The pattern, each child a fork() that reads the FCSE PID of its address space
 * (pid_mm of /proc/fcse), reports it on a pipe and waits, holding its address space,
 * until the parent ends it (SIGKILL, then waitpid):
 *   fork 5 children (#1..#5); end #2 and #4; fork 3 more (#6..#8);
 *   with --seed N (N > 0): 4 rounds, each ending 1 to 3 children and forking 1 to 3,
 *   chosen from N;
 *   fork until fork() fails (at most pids_total + 8 children running, 136 without the
 *   key);
 *   then end every child.
 *
 * Output, one "key=value" line each (the pattern's events in the order they happened):
 *   mode=M                       /proc/fcse's mode
 *   pids_total=N                 PIDs the allocator has
 *   pids_in_use_before=N         address spaces holding a PID before the first fork
 *                                (this program, its shell, init...)
 *   self_pid_mm=N                this program's own PID
 *   forks_refused_before=N       the kernel's counter before the pattern
 *   fork=K pid_mm=P              child #K got PID P
 *   exit=K pid_mm=P pids_in_use=N   child #K ended (and waited for); N after it
 *   refused=K errno=E name=NAME  the fork of child #K failed with errno E
 *   refused=none forks=N running=M   no fork failed up to the cap (not guaranteed mode?)
 *   pids_in_use_at_refusal=N     read right after the failed fork
 *   forks_refused_delta=N        the kernel's counter after the pattern minus before
 *   missing=KEY[,KEY...]         the keys /proc/fcse lacks (a kernel without the FCSE
 *                                allocator: patch 0001 alone)
 *   done=1                       the pattern ran to its end
 * A value the kernel does not give is printed as "missing" (pids_in_use=missing).
 *
 *   rtlab-fcse-pids [--proc PATH] [--seed N]
 * Exits 0 when the pattern ran, 1 with a message on stderr when it could not.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define FP_CAP_UNKNOWN 136	/* children running at most when pids_total is missing */
#define FP_MAX 200		/* children forked in all, ended ones included */
#define FP_ROUNDS 4

static const char *fp_proc = "/proc/fcse";

/* The value of key @key in /proc/fcse as a number, or -1 when absent (@text: as text). */
static long fp_read(const char *key, char *text, size_t size)
{
	char line[128];
	size_t n = strlen(key);
	FILE *f = fopen(fp_proc, "r");
	long v = -1;

	if (text && size)
		text[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, n) || line[n] != ' ')
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (text)
			snprintf(text, size, "%s", line + n + 1);
		v = strtol(line + n + 1, NULL, 10);
		break;
	}
	if (f)
		fclose(f);
	return v;
}

/* Print "@key=VALUE" (or "missing") and note a missing key in @missing. */
static long fp_print(const char *name, const char *key, char *missing, size_t size)
{
	long v = fp_read(key, NULL, 0);

	if (v < 0) {
		printf("%s=missing\n", name);
		if (missing && !strstr(missing, key))
			snprintf(missing + strlen(missing), size - strlen(missing), "%s%s",
				 missing[0] ? "," : "", key);
	} else {
		printf("%s=%ld\n", name, v);
	}
	return v;
}

struct fp_child {
	pid_t pid;		/* 0: not forked or ended */
	long pid_mm;
};

static struct fp_child fp_kids[FP_MAX + 1];	/* #1..#FP_MAX */
static unsigned int fp_nkids;
static int fp_report[2];

/*
 * Fork child #(fp_nkids + 1): it reports its PID and waits. 1 when it runs, 0 when
 * fork() failed (errno kept), -1 when the report did not come.
 */
static int fp_fork(void)
{
	unsigned int k = fp_nkids + 1;
	long mm = -1;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 0;
	if (pid == 0) {
		mm = fp_read("pid_mm", NULL, 0);
		if (write(fp_report[1], &mm, sizeof(mm)) != (ssize_t)sizeof(mm))
			_exit(1);
		for (;;)
			pause();
	}
	fp_nkids = k;
	fp_kids[k].pid = pid;
	if (read(fp_report[0], &mm, sizeof(mm)) != (ssize_t)sizeof(mm))
		return -1;
	fp_kids[k].pid_mm = mm;
	if (mm < 0)
		printf("fork=%u pid_mm=missing\n", k);
	else
		printf("fork=%u pid_mm=%ld\n", k, mm);
	return 1;
}

/* End child #@k and wait for it: its address space is gone when this returns. */
static int fp_end(unsigned int k, int quiet)
{
	struct fp_child *c = &fp_kids[k];
	char in_use[32];

	if (!c->pid)
		return 0;
	kill(c->pid, SIGKILL);
	if (waitpid(c->pid, NULL, 0) < 0)
		return -1;
	c->pid = 0;
	if (quiet)
		return 0;
	fp_read("pids_in_use", in_use, sizeof(in_use));
	printf("exit=%u pid_mm=%ld pids_in_use=%s\n", k, c->pid_mm,
	       in_use[0] ? in_use : "missing");
	return 0;
}

static void fp_end_all(void)
{
	for (unsigned int k = 1; k <= fp_nkids; k++)
		fp_end(k, 1);
}

/* A number from the seed's stream (xorshift64: small, the same everywhere). */
static unsigned long long fp_rng;

static unsigned int fp_rand(unsigned int n)
{
	fp_rng ^= fp_rng << 13;
	fp_rng ^= fp_rng >> 7;
	fp_rng ^= fp_rng << 17;
	return (unsigned int)(fp_rng % n);
}

/* The @i-th (from 0) child still running, or 0. */
static unsigned int fp_alive(unsigned int i)
{
	for (unsigned int k = 1; k <= fp_nkids; k++)
		if (fp_kids[k].pid && !i--)
			return k;
	return 0;
}

static unsigned int fp_nalive(void)
{
	unsigned int n = 0;

	for (unsigned int k = 1; k <= fp_nkids; k++)
		n += fp_kids[k].pid != 0;
	return n;
}

static int fp_fail(const char *what)
{
	fprintf(stderr, "rtlab-fcse-pids: %s: %s\n", what, strerror(errno));
	fp_end_all();
	return 1;
}

int main(int argc, char **argv)
{
	char mode[32], missing[128] = "";
	unsigned long long seed = 0;
	long total, refused0, refused1;
	unsigned int cap;
	int r = 1, i;

	for (i = 1; i < argc; i++) {
		char *end = NULL;

		if (!strcmp(argv[i], "--proc") && i + 1 < argc) {
			fp_proc = argv[++i];
		} else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			errno = 0;
			seed = strtoull(argv[++i], &end, 10);
			if (errno || *end)
				break;
		} else {
			break;
		}
	}
	if (i < argc) {
		fprintf(stderr, "usage: rtlab-fcse-pids [--proc PATH] [--seed N]\n");
		return 1;
	}
	if (fp_read("mode", mode, sizeof(mode)) < 0 && !mode[0]) {
		fprintf(stderr, "rtlab-fcse-pids: %s: no mode line (not an FCSE kernel?)\n",
			fp_proc);
		return 1;
	}
	if (pipe(fp_report) < 0)
		return fp_fail("pipe");
	printf("mode=%s\n", mode);
	total = fp_print("pids_total", "pids_total", missing, sizeof(missing));
	fp_print("pids_in_use_before", "pids_in_use", missing, sizeof(missing));
	fp_print("self_pid_mm", "pid_mm", missing, sizeof(missing));
	refused0 = fp_print("forks_refused_before", "forks_refused", missing, sizeof(missing));
	cap = total > 0 && total + 8 <= FP_CAP_UNKNOWN ? (unsigned int)total + 8 : FP_CAP_UNKNOWN;

	/* The fixed part: 5 forks, #2 and #4 end, 3 forks. */
	for (i = 0; i < 5 && (r = fp_fork()) == 1; i++)
		;
	if (r == 1 && !fp_end(2, 0) && !fp_end(4, 0))
		for (i = 0; i < 3 && (r = fp_fork()) == 1; i++)
			;
	/* The seed's rounds: a few exits, a few forks. */
	fp_rng = seed * 0x9e3779b97f4a7c15ULL | 1;
	for (unsigned int round = 0; seed && r == 1 && round < FP_ROUNDS; round++) {
		unsigned int ends = 1 + fp_rand(3), forks = 1 + fp_rand(3);

		for (unsigned int e = 0; e < ends && fp_nalive(); e++)
			if (fp_end(fp_alive(fp_rand(fp_nalive())), 0) < 0)
				return fp_fail("waitpid");
		for (unsigned int f = 0; f < forks && (r = fp_fork()) == 1; f++)
			;
	}
	/* Fork until refused. */
	while (r == 1 && fp_nalive() < cap && fp_nkids < FP_MAX)
		r = fp_fork();
	if (r < 0)
		return fp_fail("a child's report");
	if (r == 0) {
		int e = errno;
		char in_use[32];

		fp_read("pids_in_use", in_use, sizeof(in_use));
		printf("refused=%u errno=%d name=%s\n", fp_nkids + 1, e,
		       e == EAGAIN ? "EAGAIN" : e == ENOMEM ? "ENOMEM" : "other");
		printf("pids_in_use_at_refusal=%s\n", in_use[0] ? in_use : "missing");
	} else {
		printf("refused=none forks=%u running=%u\n", fp_nkids, fp_nalive());
	}
	refused1 = fp_read("forks_refused", NULL, 0);
	if (refused0 >= 0 && refused1 >= 0)
		printf("forks_refused_delta=%ld\n", refused1 - refused0);
	else
		printf("forks_refused_delta=missing\n");
	fp_end_all();
	if (missing[0]) {
		printf("missing=%s\n", missing);
		fprintf(stderr, "rtlab-fcse-pids: %s lacks %s (a kernel without the FCSE allocator of "
			"kernel-patches/arm-fcse)\n", fp_proc, missing);
	}
	printf("done=1\n");
	return fflush(stdout) == 0 ? 0 : 1;
}
