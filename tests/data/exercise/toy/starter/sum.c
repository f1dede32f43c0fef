/*
 * sum.c: your part of the toy exercise. Write the three functions toy.h
 * declares; `rtlab grade --exercise tests/data/exercise/toy --work DIR`
 * tells you which of them work.
 */
#include "toy.h"

#include <errno.h>

long toy_sum(const long *v, size_t n)
{
	(void)v;
	(void)n;
	return -ENOSYS;		/* not written yet */
}

int toy_max(const long *v, size_t n, long *out)
{
	(void)v;
	(void)n;
	(void)out;
	return -ENOSYS;		/* not written yet */
}

int toy_lock(void)
{
	return -ENOSYS;		/* not written yet */
}
