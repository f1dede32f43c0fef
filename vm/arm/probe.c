/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rtlab-probe: what the ARM classroom image runs to say which kernel it is on and how
 * long a few basic things take there.
 *
 * Built static with the cross compiler (arm-linux-gnueabi-gcc) by vm/build.sh and put
 * into the fcse image as /usr/bin/rtlab-probe; it builds for the host too (tests). One
 * "key=value" line each, in this order:
 *   sysname, release, machine     uname(2)
 *   cpu                           the "model name" or "Processor" line of /proc/cpuinfo
 *   fcse                          the first line of /proc/fcse, or "none"
 *   clock_res_ns                  clock_getres(CLOCK_MONOTONIC)
 *   getppid_ns                    one system call, the mean of N
 *   pipe_roundtrip_ns             a byte to a child and back over two pipes: two switches
 *                                 between address spaces, the mean of N
 *   uptime_s                      the first field of /proc/uptime when the probe ran
 * The times are the guest's clock: under QEMU's virtual time, instructions at 1 ns each.
 *
 *   rtlab-probe [N]               N rounds (default 1000, 1..1000000)
 * Exits 0, or 1 with a message on stderr.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long probe_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The value of the first line of @path that starts with one of @keys, after its colon. */
static void probe_print_line(const char *name, const char *path, const char *const *keys,
			     const char *fallback)
{
	char line[256];
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ':');

		for (const char *const *k = keys; *k; k++) {
			if (strncmp(line, *k, strlen(*k)) || !v)
				continue;
			v++;
			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = '\0';
			printf("%s=%s\n", name, v);
			fclose(f);
			return;
		}
	}
	if (f)
		fclose(f);
	printf("%s=%s\n", name, fallback);
}

/* The first line of @path, or its first word with @word. */
static void probe_print_first(const char *name, const char *path, int word, const char *fallback)
{
	char line[256];
	FILE *f = fopen(path, "r");

	if (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, word ? " \t\n" : "\n")] = '\0';
		printf("%s=%s\n", name, line);
	} else {
		printf("%s=%s\n", name, fallback);
	}
	if (f)
		fclose(f);
}

/* Mean nanoseconds of a byte's round trip to a child over two pipes; -1 on failure. */
static long long probe_pipe_roundtrip(unsigned int n)
{
	int to[2], from[2], status;
	long long t0, t1;
	char c = 'x';
	pid_t pid;

	if (pipe(to) < 0 || pipe(from) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(to[1]);
		close(from[0]);
		while (read(to[0], &c, 1) == 1)
			if (write(from[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(to[0]);
	close(from[1]);
	t0 = probe_now_ns();
	for (unsigned int i = 0; i < n; i++)
		if (write(to[1], &c, 1) != 1 || read(from[0], &c, 1) != 1)
			break;
	t1 = probe_now_ns();
	close(to[1]);
	close(from[0]);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return (t1 - t0) / n;
}

int main(int argc, char **argv)
{
	static const char *const cpu_keys[] = { "model name", "Processor", NULL };
	unsigned long n = 1000;
	struct timespec res;
	struct utsname u;
	long long t0, rt;
	char *end;

	if (argc > 2 || (argc == 2 && (n = strtoul(argv[1], &end, 10), *end || !n ||
					n > 1000000))) {
		fprintf(stderr, "usage: rtlab-probe [ROUNDS 1..1000000]\n");
		return 1;
	}
	if (uname(&u) < 0 || clock_getres(CLOCK_MONOTONIC, &res) < 0) {
		fprintf(stderr, "rtlab-probe: %s\n", strerror(errno));
		return 1;
	}
	printf("sysname=%s\nrelease=%s\nmachine=%s\n", u.sysname, u.release, u.machine);
	probe_print_line("cpu", "/proc/cpuinfo", cpu_keys, "unknown");
	probe_print_first("fcse", "/proc/fcse", 0, "none");
	printf("clock_res_ns=%ld\n", res.tv_sec * 1000000000L + res.tv_nsec);

	t0 = probe_now_ns();
	for (unsigned long i = 0; i < n; i++)
		getppid();
	printf("getppid_ns=%lld\n", (probe_now_ns() - t0) / (long long)n);

	rt = probe_pipe_roundtrip((unsigned int)n);
	if (rt < 0) {
		fprintf(stderr, "rtlab-probe: the pipe round trip failed: %s\n", strerror(errno));
		return 1;
	}
	printf("pipe_roundtrip_ns=%lld\n", rt);
	probe_print_first("uptime_s", "/proc/uptime", 1, "unknown");
	return fflush(stdout) == 0 ? 0 : 1;
}
