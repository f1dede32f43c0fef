/*
 * rtlab_check_standin: the harness side of a check program (rtlab_check.h)
 * for `make exercise-fcse` while the grading harness is not on main. It
 * starts the subject named by $RTLAB_CHECK_SUBJECT itself, with no sandbox
 * (the reference and the starter are ours), feeds it its stdin, keeps at
 * most 64 KiB of its stdout, and kills it after the wall-clock limit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rtlab_check.h"

#define OUT_MAX (64u << 10)

static void say_end(struct rtlab_run *r, int status)
{
	if (r->timed_out) {
		snprintf(r->reason, sizeof(r->reason), "timed out");
	} else if (WIFEXITED(status)) {
		r->exit_code = WEXITSTATUS(status);
		snprintf(r->reason, sizeof(r->reason), "exited with %d", r->exit_code);
	} else if (WIFSIGNALED(status)) {
		r->signal = WTERMSIG(status);
		snprintf(r->reason, sizeof(r->reason), "killed by signal %d", r->signal);
	}
}

int rtlab_run_subject(const struct rtlab_run_opts *o, struct rtlab_run *r)
{
	const char *subject = getenv("RTLAB_CHECK_SUBJECT");
	unsigned int wall = o->wall_s ? o->wall_s : 10;
	char *argv[34] = { (char *)subject };
	int in[2], out[2], status = 0;
	struct timespec t0, t1;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->exit_code = -1;
	r->vmlck_kb = -1;
	r->policy = r->rtprio = -1;
	r->out = calloc(1, OUT_MAX + 1);
	r->err = calloc(1, 1);
	if (!subject || !r->out || !r->err) {
		snprintf(r->reason, sizeof(r->reason), "no subject (set RTLAB_CHECK_SUBJECT)");
		return -EINVAL;
	}
	for (int i = 0; o->argv && o->argv[i] && i < 32; i++)
		argv[i + 1] = (char *)o->argv[i];
	if (pipe(in) || pipe(out))
		return -errno;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int fd = o->stdin_path ? open(o->stdin_path, O_RDONLY) : in[0];

		dup2(fd, 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execv(subject, argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	signal(SIGPIPE, SIG_IGN);
	if (o->stdin_data && o->stdin_len &&
	    write(in[1], o->stdin_data, o->stdin_len) != (ssize_t)o->stdin_len)
		snprintf(r->reason, sizeof(r->reason), "the subject did not read its stdin");
	close(in[1]);
	for (;;) {
		struct pollfd p = { .fd = out[0], .events = POLLIN };
		char sink[4096];
		ssize_t n;

		if (poll(&p, 1, (int)wall * 1000) <= 0) {
			r->timed_out = true;
			break;
		}
		if (r->out_len < OUT_MAX)
			n = read(out[0], r->out + r->out_len, OUT_MAX - r->out_len);
		else
			n = read(out[0], sink, sizeof(sink));
		if (n <= 0)
			break;
		if (r->out_len < OUT_MAX)
			r->out_len += (size_t)n;
		else
			r->out_cut = true;
	}
	close(out[0]);
	if (r->timed_out)
		kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	say_end(r, status);
	return 0;
}

bool rtlab_run_ok(const struct rtlab_run *r)
{
	return r->exit_code == 0 && !r->out_cut && !r->timed_out;
}

void rtlab_run_fini(struct rtlab_run *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

bool rtlab_check_can(const char *need)
{
	(void)need;
	return false;
}

const char *rtlab_check_data(const char *name)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s/%s", getenv("RTLAB_CHECK_DATA") ?: "data", name);
	return path;
}

void rtlab_check_reason(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

int rtlab_check_main(const char *group, const struct CMUnitTest *tests, size_t n)
{
	return _cmocka_run_group_tests(group, tests, n, NULL, NULL);
}
