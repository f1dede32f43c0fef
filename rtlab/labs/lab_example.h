/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_example: the worked example of a lab over a simulator (see
 * lab_example.c). Its parameters and its live model, which a screen reads
 * while the lab runs.
 */
#ifndef RTLAB_LABS_LAB_EXAMPLE_H
#define RTLAB_LABS_LAB_EXAMPLE_H

#include <stdint.h>

struct example_params {
	unsigned int scenarios;		/* bit i: run the model's preset i */
};

/* Kept current between chunks by the run; read with relaxed atomic loads. */
struct example_live {
	char scenario[32];		/* the scenario being simulated */
	uint64_t jobs;			/* jobs simulated so far in it */
	uint64_t misses;		/* deadlines missed so far in it */
};

/* Every scenario. */
void example_params_init(struct example_params *p);

/* @list "quiet,busy" into @mask; 0 or -EINVAL with @cause. */
int example_parse_scenarios(const char *list, unsigned int *mask, char **cause);

#endif
