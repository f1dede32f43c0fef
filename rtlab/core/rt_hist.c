/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_hist: 1 us latency buckets, log buckets above them, exact
 * min/max/average, overflow records and bucket-based percentiles.
 *
 * The log buckets are numbered as in HDR histograms, on whole microseconds
 * v: below 2 * SUB, bucket v (1 us wide); above, with e the highest set bit
 * of v and shift = e - SUB_BITS, bucket shift * SUB + (v >> shift), which is
 * 2^shift us wide. The numbering is continuous, so the overflow region of a
 * histogram is the range of numbers from that of its bound to that of 10 s
 * minus 1 us; its first bucket is cut to start at the bound and its last to
 * end at 10 s. Finding a bucket is a count-leading-zeros and a shift.
 *
 * The sum of all latencies is kept as a 128-bit two's-complement pair of
 * 64-bit words, so the average stays exact however long a run lasts (a
 * plain int64 would wrap after about 9e18 ns of summed latency) without
 * relying on a compiler's __int128.
 */
#include "rt_hist.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct rt_hist {
	unsigned int nbuckets;
	unsigned int max_recs;
	unsigned int log_first;		/* log bucket number of the bound */
	unsigned int nlog;		/* overflow buckets, the one beyond 10 s included */
	uint64_t *buckets;		/* owned, nbuckets entries */
	uint64_t *log;			/* owned, nlog entries */
	struct rt_sample *recs;		/* owned, max_recs entries */
	size_t nrecs;
	uint64_t count;
	uint64_t overflow;
	int64_t min_ns;
	int64_t max_ns;
	uint64_t sum_lo;		/* low word of the 128-bit sum */
	int64_t sum_hi;			/* high word, carries the sign */
};

const unsigned int rt_hist_std_ppm[RT_HIST_NSTD] = {
	RT_HIST_P50, RT_HIST_P90, RT_HIST_P99, RT_HIST_P999, RT_HIST_P9999,
};

const char *const rt_hist_std_name[RT_HIST_NSTD] = {
	"p50", "p90", "p99", "p99.9", "p99.99",
};

/* ---- Log buckets ----------------------------------------------------------- */

/* Number of the log bucket holding @v us. */
static unsigned int log_index(uint64_t v)
{
	unsigned int shift;

	if (v < 2 * RT_HIST_SUB)
		return (unsigned int)v;
	shift = 63u - (unsigned int)__builtin_clzll(v) - RT_HIST_SUB_BITS;
	return shift * RT_HIST_SUB + (unsigned int)(v >> shift);
}

/* Lower edge in us of log bucket @i; bucket i ends where bucket i + 1 starts. */
static uint64_t log_lower(unsigned int i)
{
	unsigned int shift;

	if (i < 2 * RT_HIST_SUB)
		return i;
	shift = i / RT_HIST_SUB - 1;
	return (uint64_t)(i % RT_HIST_SUB + RT_HIST_SUB) << shift;
}

/* Overflow buckets for a bound of @nbuckets us: its number to 10 s - 1 us, plus one. */
static unsigned int log_count(unsigned int nbuckets)
{
	return log_index(RT_HIST_TOP_US - 1) - log_index(nbuckets) + 2;
}

/* ---- Life cycle ---------------------------------------------------------- */

size_t rt_hist_size(unsigned int nbuckets, unsigned int max_overflow_recs)
{
	return sizeof(struct rt_hist) + (size_t)nbuckets * sizeof(uint64_t) +
	       (size_t)log_count(nbuckets) * sizeof(uint64_t) +
	       (size_t)max_overflow_recs * sizeof(struct rt_sample);
}

struct rt_hist *rt_hist_new(unsigned int nbuckets, unsigned int max_overflow_recs)
{
	struct rt_hist *h = NULL;

	if (nbuckets == 0 || nbuckets > RT_HIST_MAX_BUCKETS ||
	    max_overflow_recs > RT_HIST_MAX_OVERFLOW_RECS) {
		errno = EINVAL;
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		goto out_nomem;
	h->buckets = calloc(nbuckets, sizeof(*h->buckets));
	if (!h->buckets)
		goto out_nomem;
	h->log_first = log_index(nbuckets);
	h->nlog = log_count(nbuckets);
	h->log = calloc(h->nlog, sizeof(*h->log));
	if (!h->log)
		goto out_nomem;
	if (max_overflow_recs) {
		h->recs = calloc(max_overflow_recs, sizeof(*h->recs));
		if (!h->recs)
			goto out_nomem;
	}
	h->nbuckets = nbuckets;
	h->max_recs = max_overflow_recs;
	return h;

out_nomem:
	rt_hist_free(h);
	errno = ENOMEM;
	return NULL;
}

void rt_hist_free(struct rt_hist *h)
{
	if (!h)
		return;
	free(h->buckets);
	free(h->log);
	free(h->recs);
	free(h);
}

void rt_hist_reset(struct rt_hist *h)
{
	memset(h->buckets, 0, h->nbuckets * sizeof(*h->buckets));
	memset(h->log, 0, h->nlog * sizeof(*h->log));
	h->nrecs = 0;
	h->count = 0;
	h->overflow = 0;
	h->min_ns = 0;
	h->max_ns = 0;
	h->sum_lo = 0;
	h->sum_hi = 0;
}

/* ---- Adding -------------------------------------------------------------- */

/* Add a sign-extended 64-bit value to the 128-bit sum. */
static void sum_add(uint64_t *lo, int64_t *hi, uint64_t add_lo, int64_t add_hi)
{
	uint64_t old = *lo;

	*lo += add_lo;
	*hi = (int64_t)((uint64_t)*hi + (uint64_t)add_hi + (*lo < old));
}

void rt_hist_add(struct rt_hist *h, const struct rt_sample *s)
{
	int64_t ns = s->latency_ns;
	uint64_t idx;

	if (h->count == 0 || ns < h->min_ns)
		h->min_ns = ns;
	if (h->count == 0 || ns > h->max_ns)
		h->max_ns = ns;
	h->count++;
	sum_add(&h->sum_lo, &h->sum_hi, (uint64_t)ns, ns < 0 ? -1 : 0);

	idx = ns < 0 ? 0 : (uint64_t)ns / 1000;
	if (idx < h->nbuckets) {
		h->buckets[idx]++;
		return;
	}
	h->overflow++;
	if (idx < RT_HIST_TOP_US)
		h->log[log_index(idx) - h->log_first]++;
	else
		h->log[h->nlog - 1]++;
	if (h->nrecs < h->max_recs)
		h->recs[h->nrecs++] = *s;
}

/* ---- Merging ------------------------------------------------------------- */

static int rec_cmp(const void *a, const void *b)
{
	const struct rt_sample *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return 0;
}

int rt_hist_merge(struct rt_hist *dst, const struct rt_hist *src)
{
	struct rt_sample *all = NULL;
	size_t n;
	unsigned int i;

	if (dst->nbuckets != src->nbuckets)
		return -EINVAL;
	if (src->count == 0)
		return 0;

	/* Overflow records first: the only step that can fail. */
	n = dst->nrecs + src->nrecs;
	if (src->nrecs && dst->max_recs) {
		all = malloc(n * sizeof(*all));
		if (!all)
			return -ENOMEM;
		memcpy(all, dst->recs, dst->nrecs * sizeof(*all));
		memcpy(all + dst->nrecs, src->recs, src->nrecs * sizeof(*all));
		qsort(all, n, sizeof(*all), rec_cmp);
		if (n > dst->max_recs)
			n = dst->max_recs;
		memcpy(dst->recs, all, n * sizeof(*all));
		dst->nrecs = n;
		free(all);
	}

	for (i = 0; i < dst->nbuckets; i++)
		dst->buckets[i] += src->buckets[i];
	for (i = 0; i < dst->nlog; i++)	/* same bound, same region */
		dst->log[i] += src->log[i];
	if (dst->count == 0 || src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	if (dst->count == 0 || src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
	dst->count += src->count;
	dst->overflow += src->overflow;
	sum_add(&dst->sum_lo, &dst->sum_hi, src->sum_lo, src->sum_hi);
	return 0;
}

/* ---- Reading ------------------------------------------------------------- */

uint64_t rt_hist_needed(unsigned int q_ppm)
{
	uint64_t beyond;

	if (q_ppm >= RT_HIST_PPM)
		return UINT64_MAX;
	/* ceil(RT_HIST_BEYOND / (1 - q)) with q = q_ppm / 1e6, in integers. */
	beyond = RT_HIST_PPM - q_ppm;
	return ((uint64_t)RT_HIST_BEYOND * RT_HIST_PPM + beyond - 1) / beyond;
}

int rt_hist_percentile(const struct rt_hist *h, unsigned int q_ppm, struct rt_hist_pct *out)
{
	uint64_t want, cum = 0;
	unsigned int i;

	if (q_ppm == 0 || q_ppm >= RT_HIST_PPM)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->q_ppm = q_ppm;
	out->needed = rt_hist_needed(q_ppm);
	if (h->count == 0)
		return -ENODATA;
	out->meaningful = h->count >= out->needed;

	/*
	 * Samples that must be <= the answer: ceil(count * q). The product
	 * stays below 2^64 for any count under 1.8e13, far beyond a run.
	 */
	want = (h->count * q_ppm + RT_HIST_PPM - 1) / RT_HIST_PPM;
	for (i = 0; i < h->nbuckets; i++) {
		cum += h->buckets[i];
		if (cum >= want) {
			out->value_us = (uint64_t)i + 1;
			out->resolution_us = 1;
			return 0;
		}
	}
	/* Every sample is in a bucket, so the walk ends by the last one. */
	for (i = 0; i < h->nlog; i++) {
		cum += h->log[i];
		if (cum >= want || i == h->nlog - 1) {
			struct rt_hist_range r;
			uint64_t cap = (uint64_t)h->max_ns / 1000 + 1;	/* max_ns >= the bound */

			/* No sample exceeds the maximum: a tighter edge where it cuts the bucket. */
			rt_hist_overflow_bucket(h, i, &r);
			if (cap > r.lower_us && cap < r.upper_us)
				r.upper_us = cap;
			out->value_us = r.upper_us;
			out->resolution_us = r.upper_us - r.lower_us;
			return 0;
		}
	}
	return 0;
}

void rt_hist_summarize(const struct rt_hist *h, struct rt_hist_summary *out)
{
	memset(out, 0, sizeof(*out));
	out->count = h->count;
	out->overflow = h->overflow;
	out->bound_us = h->nbuckets;
	if (!h->count)
		return;
	out->min_ns = h->min_ns;
	out->max_ns = h->max_ns;
	/* The sum fits in an int64 unless the high word is more than sign extension. */
	if (h->sum_hi == ((int64_t)h->sum_lo < 0 ? -1 : 0))
		out->avg_ns = (double)(int64_t)h->sum_lo / (double)h->count;
	else
		out->avg_ns = ((double)h->sum_hi * 18446744073709551616.0 +
			       (double)h->sum_lo) / (double)h->count;
}

unsigned int rt_hist_nbuckets(const struct rt_hist *h)
{
	return h->nbuckets;
}

uint64_t rt_hist_bucket(const struct rt_hist *h, unsigned int i)
{
	return i < h->nbuckets ? h->buckets[i] : 0;
}

uint64_t rt_hist_count(const struct rt_hist *h)
{
	return h->count;
}

uint64_t rt_hist_overflow(const struct rt_hist *h)
{
	return h->overflow;
}

unsigned int rt_hist_overflow_nbuckets(const struct rt_hist *h)
{
	return h->nlog;
}

int rt_hist_overflow_bucket(const struct rt_hist *h, unsigned int i, struct rt_hist_range *out)
{
	if (i >= h->nlog)
		return -ENOENT;
	out->count = h->log[i];
	if (i == h->nlog - 1) {
		/* Beyond 10 s: up to the exact maximum. */
		out->lower_us = RT_HIST_TOP_US;
		out->upper_us = RT_HIST_TOP_US + 1;
		if (h->count && h->max_ns >= (int64_t)RT_HIST_TOP_US * 1000)
			out->upper_us = (uint64_t)h->max_ns / 1000 + 1;
		return 0;
	}
	out->lower_us = log_lower(h->log_first + i);
	out->upper_us = log_lower(h->log_first + i + 1);
	if (out->lower_us < h->nbuckets)
		out->lower_us = h->nbuckets;
	if (out->upper_us > RT_HIST_TOP_US)
		out->upper_us = RT_HIST_TOP_US;
	return 0;
}

const struct rt_sample *rt_hist_overflow_recs(const struct rt_hist *h, size_t *n)
{
	*n = h->nrecs;
	return h->recs;
}
