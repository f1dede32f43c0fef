/*
 * subject.c: the toy exercise's driver. `subject sum|max` reads numbers
 * from stdin (at most 1,000,000) and prints "sum N", "max N" or
 * "max error E"; `subject lock` calls toy_lock(), prints "lock R", stops
 * itself so the runner can see what the kernel locked, then exits.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toy.h"

#define MAX_NUMBERS 1000000

int main(int argc, char **argv)
{
	static long v[MAX_NUMBERS];
	size_t n = 0;
	long out = 0;
	int ret;

	if (argc != 2)
		return 2;
	if (!strcmp(argv[1], "lock")) {
		printf("lock %d\n", toy_lock());
		fflush(stdout);
		raise(SIGSTOP);
		return 0;
	}
	while (n < MAX_NUMBERS && scanf("%ld", &v[n]) == 1)
		n++;
	if (!strcmp(argv[1], "sum")) {
		printf("sum %ld\n", toy_sum(v, n));
	} else if (!strcmp(argv[1], "max")) {
		ret = toy_max(v, n, &out);
		if (ret)
			printf("max error %d\n", ret);
		else
			printf("max %ld\n", out);
	} else {
		return 2;
	}
	return 0;
}
