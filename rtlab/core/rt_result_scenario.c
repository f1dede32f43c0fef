/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_result_scenario: the typed way into a results document's named
 * scenarios (extra.scenarios), the one part of "extra" every lab shares.
 * The document may come from anywhere, so every step checks its type.
 */
#include "rt_result.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

json_t *rt_result_scenarios(const struct rt_result *res)
{
	json_t *scens = json_object_get(json_object_get(rt_result_json(res), "extra"),
					"scenarios");

	return json_is_array(scens) ? scens : NULL;
}

int rt_result_set_scenarios(struct rt_result *res, json_t *scens)
{
	json_t *extra;

	if (!json_is_array(scens))
		return -EINVAL;
	extra = rt_result_extra(res);
	return extra && !json_object_set(extra, "scenarios", scens) ? 0 : -ENOMEM;
}

json_t *rt_result_scenario(const struct rt_result *res, const char *name)
{
	json_t *s;
	size_t i;

	json_array_foreach(rt_result_scenarios(res), i, s) {
		const char *n = json_string_value(json_object_get(s, "name"));

		if (n && name && !strcmp(n, name))
			return s;
	}
	return NULL;
}

double rt_result_scenario_num(const struct rt_result *res, const char *name, const char *key)
{
	json_t *v = json_object_get(rt_result_scenario(res, name), key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

size_t rt_result_scenario_count(const struct rt_result *res)
{
	return json_array_size(rt_result_scenarios(res));
}
