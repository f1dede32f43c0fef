/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_report: the SVG, HTML and cyclictest writers on what the result
 * parser accepts, and on what it would refuse. Each input is tried twice:
 *
 *   - through rt_result_parse(): a document that passes the validator must
 *     draw without trouble;
 *   - behind the validator's back: the input's "histograms", "summary",
 *     "extra" and "notes" members replace those of a valid document through
 *     rt_result_json(), as a caller changing the borrowed document may do.
 *     The writers must still finish with bounded output (they clip and count
 *     instead of trusting the numbers).
 *
 * Output larger than a bound proportional to the input aborts, so a writer
 * that makes megabytes out of a few numbers is found as well as a crash; a
 * writer that never ends is found by libFuzzer's -timeout (and by the unit
 * test's alarm for the known cases).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_env.h"
#include "core/rt_result.h"
#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Draw @res three ways; abort on an error other than "nothing to draw" or output out of bounds. */
static void draw(const struct rt_result *res, size_t insize)
{
	struct rt_buf b = RT_BUF_INIT;
	size_t nh = rt_result_hist_count(res);
	int ret;

	ret = report_svg(res, true, &b);
	if (ret && ret != -ENODATA)
		abort();
	/* Frame, ticks and legend, plus at most 1601 points of about 14 bytes per histogram. */
	if (b.len > 16384 + nh * (1601 * 14 + 256))
		abort();
	rt_buf_reset(&b);
	if (report_html(res, &b))
		abort();
	if (b.len > 16384 + nh * (1601 * 14 + 256) + 128 * insize)
		abort();
	rt_buf_reset(&b);
	ret = report_cyclictest_hist(res, &b);
	if (ret && ret != -ENODATA && ret != -E2BIG)
		abort();
	rt_buf_fini(&b);
}

/* Replace members of a valid document by the input's, unchecked. */
static void draw_unchecked(const char *text, size_t size)
{
	static const char *const members[] = { "histograms", "summary", "extra", "notes", NULL };
	struct rt_env env = { .cpus = 1 };
	struct rt_result *res;
	json_t *in;

	in = json_loadb(text, size, JSON_REJECT_DUPLICATES, NULL);
	if (!json_is_object(in)) {
		json_decref(in);
		return;
	}
	res = rt_result_new("latency", "host", &env);
	if (!res)
		abort();
	for (const char *const *m = members; *m; m++) {
		json_t *v = json_object_get(in, *m);

		if (v)
			json_object_set(rt_result_json(res), *m, v);
	}
	draw(res, size);
	rt_result_free(res);
	json_decref(in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rt_result *res = NULL;
	char *cause = NULL;

	if (size > (1u << 20))
		return 0;
	if (rt_result_parse((const char *)data, size, "fuzz", NULL, &res, &cause) == 0) {
		draw(res, size);
		rt_result_free(res);
	}
	free(cause);
	draw_unchecked((const char *)data, size);
	return 0;
}
