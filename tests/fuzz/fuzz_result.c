/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_result: rt_result_parse() (JSON syntax, size limits, the validator)
 * on arbitrary bytes. Whatever it accepts (rtlab.result/2, or /1 converted)
 * must render with rt_result_to_string() as /2, read back to an equal
 * document, give its canonical text, and answer every getter (percentiles
 * of every histogram included) without trouble; anything else is a bug, so
 * it aborts. It is read with a list of labs, as the front ends read, and
 * read back without one, as the writer checks: what passes the list passes
 * the syntax check.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const lab_list[] = { "latency", "ftrace", "hypervisor", "fcse", "nop",
					"cookie", NULL };
static const struct rt_result_opts known = { lab_list };

static void touch_getters(const struct rt_result *res)
{
	const char *key, *s;
	json_t *v;
	double d;
	bool b;

	if (!rt_result_lab(res) || !rt_result_tier(res) || !rt_result_created(res))
		abort();
	if (rt_result_simulated(res) != (strcmp(rt_result_tier(res), "simulation") == 0))
		abort();
	json_object_foreach(json_object_get(rt_result_json(res), "summary"), key, v)
		if (rt_result_summary_get(res, key, &d) != 0)
			abort();
	json_object_foreach(json_object_get(rt_result_json(res), "params"), key, v) {
		rt_result_param_num(res, key, &d);
		rt_result_param_str(res, key, &s);
		rt_result_param_bool(res, key, &b);
	}
	json_object_foreach(json_object_get(rt_result_json(res), "answers"), key, v)
		if (rt_result_answer_num(res, key, &d) && rt_result_answer_str(res, key, &s))
			abort();
	for (size_t i = 0; i < rt_result_hist_count(res); i++) {
		struct rt_result_hist h;
		size_t at;

		if (rt_result_hist_get(res, i, &h))
			abort();
		if (!h.nbuckets || !(h.bucket_width > 0))
			abort();
		if (rt_result_hist_find(res, h.name, &at) || at != i)
			abort();
		for (unsigned int q = 1; q < 1000000; q += 99999) {
			double pv, r;
			int ret = rt_result_hist_percentile(&h, q, &pv, &r);

			if ((ret && ret != -ENODATA && ret != -ERANGE) || !isfinite(pv) || r < 0)
				abort();
		}
		rt_result_hist_fini(&h);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rt_result *res = NULL, *again = NULL;
	char *cause = NULL, *text;

	if (rt_result_parse((const char *)data, size, "fuzz", &known, &res, &cause)) {
		if (!cause || res)
			abort();
		free(cause);
		return 0;
	}
	touch_getters(res);
	if (rt_result_version(res) != 1 && rt_result_version(res) != 2)
		abort();
	text = rt_result_canonical_text(res, NULL);
	if (!text || strstr(text, "\n  \"integrity\": {"))
		abort();
	free(text);
	text = rt_result_to_string(res, NULL);
	if (!text || !strstr(text, "\"schema\": \"" RT_RESULT_SCHEMA "\""))
		abort();
	if (rt_result_parse(text, strlen(text), "again", NULL, &again, NULL))
		abort();
	if (!json_equal(rt_result_json(res), rt_result_json(again)))
		abort();
	free(text);
	rt_result_free(again);
	rt_result_free(res);
	return 0;
}
