/*
 * toy: the API of the harness's test exercise. The learner writes sum.c:
 * the sum and the largest of an array of numbers, and locking the
 * process's memory.
 */
#ifndef TOY_H
#define TOY_H

#include <stddef.h>

/* The sum of v[0..n-1]; 0 for n == 0. */
long toy_sum(const long *v, size_t n);

/* The largest of v[0..n-1] in *out: 0, or -EINVAL when n == 0. */
int toy_max(const long *v, size_t n, long *out);

/* Lock all of the process's memory, now and later: 0 or -errno. */
int toy_lock(void);

#endif
