/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * registry: the list of labs. A lab is rtlab/labs/lab_<name>.c, which
 * defines `const struct lab_ops lab_<name>`, plus one X(name) line in LABS
 * below, in the menu's order. A lab whose engine has not landed is
 * described here with its needs and marked planned, so the menu, the README
 * table and the doctor can say what it will need without pretending it
 * runs; when its engine lands, its descriptor moves to its own file and its
 * line stays.
 */
#include "lab.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "sim/sim.h"

/*
 * Every lab, in the menu's order (teaching order; the contributors' example
 * last). A ready lab's descriptor is in its own file, a planned one's below.
 */
#define LABS(X) \
	X(latency) \
	X(ftrace) \
	X(hypervisor) \
	X(fcse) \
	X(nop) \
	X(cookie) \
	X(taskset) \
	X(example)

#define LAB_DECLARE(name) extern const struct lab_ops lab_##name;
#define LAB_ENTRY(name) &lab_##name,

LABS(LAB_DECLARE)

const struct lab_ops *const lab_table[] = {
	LABS(LAB_ENTRY)
	NULL,
};

const struct lab_ops *lab_find(const char *name)
{
	for (const struct lab_ops *const *l = lab_table; *l; l++)
		if (strcmp((*l)->name, name) == 0)
			return *l;
	return NULL;
}

const struct sim_model_ops *lab_model_next(size_t *i)
{
	for (; lab_table[*i]; (*i)++) {
		const struct sim_model_ops *m = lab_table[*i]->model;
		bool seen = false;

		for (size_t k = 0; m && k < *i; k++)
			seen = seen || lab_table[k]->model == m;
		if (m && !seen) {
			(*i)++;
			return m;
		}
	}
	return NULL;
}

const struct sim_model_ops *lab_model_find(const char *name)
{
	const struct sim_model_ops *m;
	size_t i = 0;

	while ((m = lab_model_next(&i)))
		if (strcmp(m->name, name) == 0)
			return m;
	return NULL;
}

static const char *lab_name_list[sizeof(lab_table) / sizeof(lab_table[0])];
static pthread_once_t lab_names_once = PTHREAD_ONCE_INIT;

static void lab_names_fill(void)
{
	for (size_t i = 0; lab_table[i]; i++)
		lab_name_list[i] = lab_table[i]->name;
}

const char *const *lab_names(void)
{
	pthread_once(&lab_names_once, lab_names_fill);
	return lab_name_list;
}

const char *lab_state_name(enum lab_state state)
{
	return state == LAB_STATE_READY ? "ready" : "planned";
}
