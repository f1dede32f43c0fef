/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report_hist: the text histogram of `cyclictest -h US -q`, so a learner
 * can put rtlab's numbers next to cyclictest's with the same tools. The
 * layout was checked against rt-tests' cyclictest on Debian 12: the bucket
 * number as "%06d", the first column after a space and the others after
 * tabs, counters zero-padded, overflow cycles listed per thread with the
 * rest summarised as "# NNNNN others". Columns here are histograms (for
 * the latency lab: one per scenario, all threads merged), not threads.
 */
#include "report.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_result.h"

#define MAX_COLS 256
#define CYCLES_SHOWN 10
/*
 * Rows times columns: cyclictest prints every row of every column, so the
 * text grows with their product. 4M cells are about 30 MB of text (the
 * latency lab's largest run, 16 scenarios of 100,000 us, is 1.6M).
 */
#define MAX_CELLS 4000000u

/*
 * Figure @key of scenario @name in whole us, limited to 0 .. 1e15 whatever
 * the document says; @fallback when the scenario has no such number.
 */
static unsigned long long stat_us(const struct rt_result *res, const char *name,
				  const char *key, double fallback)
{
	double d = rt_result_scenario_num(res, name, key);

	if (isnan(d))
		d = fallback;

	if (!(d > 0))
		return 0;
	return d < 1e15 ? (unsigned long long)llround(d) : 1000000000000000ull;
}

int report_cyclictest_hist(const struct rt_result *res, struct rt_buf *out)
{
	struct rt_result_hist *h = NULL;
	size_t n = 0, nh = rt_result_hist_count(res), rows = 0;
	int ret = 0;

	h = calloc(nh ? nh : 1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < nh && n < MAX_COLS; i++) {
		ret = rt_result_hist_get(res, i, &h[n]);
		if (ret == -ENOMEM)
			goto out;
		ret = 0;
		if (!h[n].unit)
			continue;	/* not a histogram: a document nobody validated */
		if (strcmp(h[n].unit, "us") || h[n].bucket_width != 1 || h[n].first_bucket != 0) {
			rt_result_hist_fini(&h[n]);
			continue;
		}
		if (h[n].nbuckets > rows)
			rows = h[n].nbuckets;
		n++;
	}
	if (n == 0) {
		ret = -ENODATA;
		goto out;
	}
	if (rows > MAX_CELLS / n) {
		ret = -E2BIG;
		goto out;
	}
	/* cyclictest's first line is a comment too; here it names the columns. */
	ret |= rt_buf_puts(out, "# Columns:");
	for (size_t c = 0; c < n; c++)
		ret |= rt_buf_printf(out, " %s", h[c].name);
	/* cyclictest numbers its columns as threads; say what each one is here. */
	for (size_t c = 0; c < n; c++)
		ret |= rt_buf_printf(out, "\n# Thread %zu is %s", c, h[c].name);
	ret |= rt_buf_puts(out, "\n# Histogram\n");
	for (size_t r = 0; r < rows; r++) {
		ret |= rt_buf_printf(out, "%06zu", r);
		for (size_t c = 0; c < n; c++)
			ret |= rt_buf_printf(out, c ? "\t%06llu" : " %06llu", (unsigned long long)
					     (r < h[c].nbuckets ? h[c].counts[r] : 0));
		ret |= rt_buf_puts(out, "\n");
	}
	{
		static const char *const label[] = { "# Min Latencies:", "# Avg Latencies:",
						     "# Max Latencies:" };
		static const char *const key[] = { "min_us", "avg_us", "max_us" };

		ret |= rt_buf_puts(out, "# Total:");
		for (size_t c = 0; c < n; c++) {
			unsigned long long total = 0;

			for (size_t r = 0; r < h[c].nbuckets; r++)
				total += h[c].counts[r];
			ret |= rt_buf_printf(out, " %09llu", total);
		}
		ret |= rt_buf_puts(out, "\n");
		for (size_t k = 0; k < 3; k++) {
			ret |= rt_buf_puts(out, label[k]);
			for (size_t c = 0; c < n; c++) {
				double fb = 0, sum = 0, cnt = 0;
				size_t first = SIZE_MAX, last = 0;

				/* Without lab detail, estimate from the buckets (lower edges). */
				for (size_t r = 0; r < h[c].nbuckets; r++)
					if (h[c].counts[r]) {
						if (first == SIZE_MAX)
							first = r;
						last = r;
						sum += (double)r * (double)h[c].counts[r];
						cnt += (double)h[c].counts[r];
					}
				if (k == 0)
					fb = first == SIZE_MAX ? 0 : (double)first;
				else if (k == 1)
					fb = cnt ? sum / cnt : 0;
				else
					fb = h[c].overflow_count ? (double)h[c].nbuckets : (double)last;
				ret |= rt_buf_printf(out, " %05llu", stat_us(res, h[c].name, key[k], fb));
			}
			ret |= rt_buf_puts(out, "\n");
		}
	}
	ret |= rt_buf_puts(out, "# Histogram Overflows:");
	for (size_t c = 0; c < n; c++)
		ret |= rt_buf_printf(out, " %05llu", (unsigned long long)h[c].overflow_count);
	ret |= rt_buf_puts(out, "\n# Histogram Overflow at cycle number:\n");
	for (size_t c = 0; c < n; c++) {
		size_t shown = h[c].n_overflow_cycles < CYCLES_SHOWN ? h[c].n_overflow_cycles :
								       CYCLES_SHOWN;

		ret |= rt_buf_printf(out, "# Thread %zu:", c);
		for (size_t i = 0; i < shown; i++)
			ret |= rt_buf_printf(out, " %05llu",
					     (unsigned long long)h[c].overflow_cycles[i]);
		if (h[c].overflow_count > shown)
			ret |= rt_buf_printf(out, " # %05llu others",
					     (unsigned long long)(h[c].overflow_count - shown));
		ret |= rt_buf_puts(out, "\n");
	}
	ret = ret ? -ENOMEM : 0;
out:
	for (size_t c = 0; c < n; c++)
		rt_result_hist_fini(&h[c]);
	free(h);
	return ret;
}
