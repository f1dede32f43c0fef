/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mutant: the task counted among its own interferers (j <= i) */
/* replaces: rta.c */
/* caught-by: single-task,worked-example,random-sets */
/*
 * rta.c: the reference solution of the task-set lab's exercise (teachers
 * only; see ../checks/rta.h for the task). ../mutants/ holds copies of it
 * with one mistake each that the checks must catch (scripts/grade-mutants).
 */
#include <math.h>

#include "rta.h"

int rta_response(const struct rta_task *ts, unsigned int i, unsigned long long b,
		 unsigned long long *r)
{
	unsigned long long own = ts[i].c + b, cur = own;

	for (unsigned int j = 0; j <= i; j++)
		cur += ts[j].c;
	for (;;) {
		unsigned long long next = own;

		*r = cur;
		if (cur > ts[i].d)
			return 0;
		/* ceil(cur / t) jobs of each higher task are released in [0, cur). */
		for (unsigned int j = 0; j <= i; j++)
			next += (cur + ts[j].t - 1) / ts[j].t * ts[j].c;
		if (next == cur)
			return 1;
		cur = next;
	}
}

double rta_ll_bound(unsigned int n)
{
	return n <= 1 ? 1.0 : n * (pow(2.0, 1.0 / n) - 1.0);
}
