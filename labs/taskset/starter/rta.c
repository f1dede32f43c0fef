/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rta.c: your response-time analysis and Liu and Layland's bound
 * (labs/taskset/README.md, "Exercise").
 *
 * rta.h says what each function must do. `rtlab lab start taskset` copies
 * this file alone to your work folder: the header stays with the lab's
 * checks, in labs/taskset/checks/ of rtlab's sources, or
 * PREFIX/share/rtlab/labs/taskset/checks/ once installed; the grader
 * compiles your file with that copy and ignores one of your own. Replace
 * the bodies marked TODO, then run `rtlab grade taskset` (or `rtlab grade
 * taskset --work DIR`): each check that fails says what it expected and
 * gives a hint.
 */
#include <math.h>

#include "rta.h"

int rta_response(const struct rta_task *ts, unsigned int i, unsigned long long b,
		 unsigned long long *r)
{
	/*
	 * TODO: start from c_i + b + the sum of the higher tasks' c, then
	 * iterate R = c_i + b + sum ceil(R / t_j) c_j until R stops changing
	 * (return 1) or passes the deadline (return 0). This adds up the
	 * execution times once, which is only a first guess.
	 */
	unsigned long long sum = ts[i].c + b;

	for (unsigned int j = 0; j < i; j++)
		sum += ts[j].c;
	*r = sum;
	return sum <= ts[i].d;
}

double rta_ll_bound(unsigned int n)
{
	/* TODO: n (2^(1/n) - 1). */
	(void)n;
	return 1.0;
}
