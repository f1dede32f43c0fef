/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rta.h: the task-set lab's exercise, what you implement in rta.c. This
 * header is the checks' own copy: yours is not used.
 *
 * 1. Response-time analysis. Tasks ts[0] .. ts[i] are periodic, on one
 *    processor, with fixed priorities: ts[0] the highest, ts[i] the task
 *    analysed. Each has an execution time c, a period t and a deadline d
 *    (at most t). A lower task may block ts[i] for at most b (the blocking
 *    term of a shared lock; 0 without one). ts[i]'s worst-case response
 *    time R is the smallest fixed point of
 *
 *        R = c_i + b + sum over j < i of ceil(R / t_j) * c_j
 *
 *    found by iterating from R0 = c_i + b + sum over j < i of c_j. Stop at
 *    the fixed point (R <= d: return 1 with *r = R; R equal to d meets its
 *    deadline) or as soon as an iterate (R0 included) is above d (return 0
 *    with *r = that iterate). Every value is a whole number of time units.
 *
 * 2. Liu and Layland's utilisation bound for n tasks under rate-monotonic
 *    priorities: n (2^(1/n) - 1); 1 for n = 1.
 */
#ifndef RTA_H
#define RTA_H

struct rta_task {
	unsigned long long c;	/* execution time (worst case) */
	unsigned long long t;	/* period */
	unsigned long long d;	/* relative deadline, 1 .. t */
};

/* rta_response - 1: ts[i] meets its deadline, *r = R; 0: it may miss, *r = the iterate past d */
int rta_response(const struct rta_task *ts, unsigned int i, unsigned long long b,
		 unsigned long long *r);

/* rta_ll_bound - n (2^(1/n) - 1) */
double rta_ll_bound(unsigned int n);

#endif
