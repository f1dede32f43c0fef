/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_keys: a lab's declared keys for the schema of its documents. A lab
 * declares its params and its own scenario keys (lab_ops.params_keys,
 * .scenario_keys); a lab run on a sim/ model also writes every counter of
 * the model's table in each scenario (sim_counters_to_json()), so those are
 * declared by the model once and added here: each an integer in the unit
 * its name ends in, meaning the counter's help.
 */
#include "lab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_keys.h"
#include "sim/sim.h"

const struct rt_keys *lab_scenario_keys_new(const struct lab_ops *lab)
{
	const struct rt_keys *own = lab->scenario_keys;
	unsigned int nown = rt_keys_count(own), n = nown;
	const struct sim_model_ops *m = lab->model;
	struct rt_keys *t;
	struct rt_key *k;

	if (m)
		n += m->ncounters;
	if (!own && !m)
		return NULL;
	t = calloc(1, sizeof(*t) + (n + 1) * sizeof(*k));
	if (!t)
		return NULL;
	k = (struct rt_key *)(t + 1);
	t->keys = k;
	t->others = own ? own->others : NULL;
	t->others_pattern = own ? own->others_pattern : NULL;
	if (nown)
		memcpy(k, own->keys, nown * sizeof(*k));
	n = nown;
	for (unsigned int i = 0; m && i < m->ncounters; i++) {
		const char *name = m->counters[i].name;
		const char *unit = strrchr(name, '_');

		if (rt_keys_find(own, name))
			continue;
		k[n++] = (struct rt_key)RT_KEY(name, RT_T_INTEGER, unit ? unit + 1 : NULL,
					       m->counters[i].help, false);
	}
	return t;
}

void lab_scenario_keys_free(const struct rt_keys *t)
{
	free((void *)t);
}
