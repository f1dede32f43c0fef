/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exercise_latency_live: a learner's probe loop (labs/latency, the
 * exercise's probe_loop.c) measuring for real, for bench/exercise-latency.
 * It takes SCHED_FIFO at the given priority, pins itself to one CPU, calls
 * probe_memory_prepare() and probe_loop_run() on CLOCK_MONOTONIC, and prints
 * "samples p50_us p99_us max_us" by the rule the latency lab's histograms use
 * (1 us buckets; a percentile is the smallest bucket upper edge that covers
 * its share of the samples), so its figures compare with rtlab's own probe.
 *
 * Usage: exercise_latency_live CPU PRIORITY INTERVAL_US LOOPS
 * Not sandboxed: it runs the learner's code as the caller (a teacher's
 * benchmark, not a grader).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_loop.h"

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* The smallest 1 us bucket upper edge covering @q of the sorted samples. */
static long long pct_us(const long long *v, size_t n, double q)
{
	size_t k = (size_t)(q * (double)n + 0.999999);

	if (k < 1)
		k = 1;
	return (v[k - 1] < 0 ? 0 : v[k - 1] / 1000) + 1;
}

int main(int argc, char **argv)
{
	struct sched_param sp = { 0 };
	cpu_set_t set;
	long long *lat;
	size_t loops;
	int cpu, ret;

	if (argc != 5) {
		fprintf(stderr, "usage: %s CPU PRIORITY INTERVAL_US LOOPS\n", argv[0]);
		return 2;
	}
	cpu = atoi(argv[1]);
	sp.sched_priority = atoi(argv[2]);
	loops = strtoul(argv[4], NULL, 10);
	lat = calloc(loops ? loops : 1, sizeof(*lat));
	if (!lat || !loops)
		return 2;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		fprintf(stderr, "warning: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		fprintf(stderr, "warning: SCHED_FIFO %d refused: %s\n", sp.sched_priority,
			strerror(errno));
	ret = probe_memory_prepare();
	if (ret)
		fprintf(stderr, "warning: probe_memory_prepare() returned %d\n", ret);
	ret = probe_loop_run(CLOCK_MONOTONIC, atoll(argv[3]) * 1000, loops, lat);
	if (ret) {
		fprintf(stderr, "probe_loop_run() returned %d\n", ret);
		return 1;
	}
	qsort(lat, loops, sizeof(*lat), cmp_ll);
	printf("%zu %lld %lld %lld\n", loops, pct_us(lat, loops, 0.5), pct_us(lat, loops, 0.99),
	       lat[loops - 1] / 1000);
	free(lat);
	return 0;
}
