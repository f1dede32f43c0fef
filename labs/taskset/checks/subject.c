/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * subject.c: the untrusted driver of the task-set exercise. Linked with
 * the learner's rta.c, it reads requests on stdin, one a line, and answers
 * each on stdout with one line:
 *
 *   ll N                      the bound for N tasks, "%.12f"
 *   rta B N C T D C T D ...   N tasks, highest first; the last is analysed
 *                             with blocking B: "meets R" or "misses R"
 *
 * check_taskset.c judges what it printed; nothing here decides a verdict.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rta.h"

#define MAX_TASKS 16

int main(void)
{
	char line[1024];

	while (fgets(line, sizeof(line), stdin)) {
		struct rta_task ts[MAX_TASKS];
		unsigned long long b, r = 0;
		unsigned int n;
		char *p = line, *end;
		int ok = 1;

		if (sscanf(line, "ll %u", &n) == 1) {
			printf("%.12f\n", rta_ll_bound(n));
			fflush(stdout);
			continue;
		}
		if (strncmp(line, "rta ", 4)) {
			puts("?");
			fflush(stdout);
			continue;
		}
		p += 4;
		b = strtoull(p, &end, 10);
		n = (unsigned int)strtoul(end, &end, 10);
		if (n < 1 || n > MAX_TASKS)
			ok = 0;
		for (unsigned int k = 0; ok && k < n; k++) {
			ts[k].c = strtoull(end, &end, 10);
			ts[k].t = strtoull(end, &end, 10);
			ts[k].d = strtoull(end, &end, 10);
		}
		if (!ok)
			puts("?");
		else if (rta_response(ts, n - 1, b, &r))
			printf("meets %llu\n", r);
		else
			printf("misses %llu\n", r);
		fflush(stdout);
	}
	return 0;
}
