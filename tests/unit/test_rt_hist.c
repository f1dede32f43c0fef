/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for rt_hist: percentiles on known distributions, the overflow
 * region above the 1 us buckets (exact percentiles and resolutions for
 * samples beyond the bound), exact min/avg/max, merge equals one big
 * histogram, the sample counts that make a percentile meaningful, the memory
 * bound, and that adding a sample never allocates (malloc, calloc and
 * realloc are wrapped at link time: LDFLAGS_test_rt_hist in the Makefile).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_hist.h"

/* ---- Allocation counter (-Wl,--wrap) -------------------------------------- */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);

static bool counting;
static unsigned int allocations;

void *__wrap_malloc(size_t n)
{
	allocations += counting;
	return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
	allocations += counting;
	return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
	allocations += counting;
	return __real_realloc(p, n);
}

static void add_ns(struct rt_hist *h, unsigned int thread, uint64_t seq, int64_t ns)
{
	struct rt_sample s = { .thread = thread, .seq = seq, .latency_ns = ns };

	rt_hist_add(h, &s);
}

/* Percentile @q_ppm of @h; fails the test unless it has a value. */
static struct rt_hist_pct pct(const struct rt_hist *h, unsigned int q_ppm)
{
	struct rt_hist_pct p;

	assert_int_equal(rt_hist_percentile(h, q_ppm, &p), 0);
	assert_int_equal(p.q_ppm, q_ppm);
	return p;
}

static void test_uniform(void **state)
{
	struct rt_hist *h = rt_hist_new(2000, 4);
	struct rt_hist_summary sum;
	unsigned int i;

	(void)state;
	assert_non_null(h);
	/* One sample in the middle of every bucket 0..999 us. */
	for (i = 0; i < 1000; i++)
		add_ns(h, 0, i, (int64_t)i * 1000 + 500);
	assert_int_equal(pct(h, RT_HIST_P50).value_us, 500);
	assert_int_equal(pct(h, RT_HIST_P90).value_us, 900);
	assert_int_equal(pct(h, RT_HIST_P99).value_us, 990);
	assert_int_equal(pct(h, RT_HIST_P999).value_us, 999);
	assert_int_equal(pct(h, RT_HIST_P9999).value_us, 1000);
	assert_int_equal(pct(h, RT_HIST_P99).resolution_us, 1);
	/* 1,000 samples: 100 beyond p90, 10 beyond p99: enough for p90 only. */
	assert_true(pct(h, RT_HIST_P90).meaningful);
	assert_false(pct(h, RT_HIST_P99).meaningful);
	assert_false(pct(h, RT_HIST_P999).meaningful);

	rt_hist_summarize(h, &sum);
	assert_int_equal(sum.count, 1000);
	assert_int_equal(sum.overflow, 0);
	assert_int_equal(sum.bound_us, 2000);
	assert_int_equal(sum.min_ns, 500);
	assert_int_equal(sum.max_ns, 999500);
	assert_true(fabs(sum.avg_ns - 500000.0) < 1e-6);
	for (i = 0; i < 1000; i++)
		assert_int_equal(rt_hist_bucket(h, i), 1);
	assert_int_equal(rt_hist_bucket(h, 1000), 0);
	assert_int_equal(rt_hist_bucket(h, 5000), 0);
	rt_hist_free(h);
}

static void test_all_same(void **state)
{
	struct rt_hist *h = rt_hist_new(100, 0);
	struct rt_hist_summary sum;
	unsigned int i;

	(void)state;
	assert_non_null(h);
	for (i = 0; i < 10000; i++)
		add_ns(h, 0, i, 42700);
	for (i = 0; i < RT_HIST_NSTD; i++) {
		struct rt_hist_pct p = pct(h, rt_hist_std_ppm[i]);

		assert_int_equal(p.value_us, 43);
		assert_int_equal(p.resolution_us, 1);
	}
	rt_hist_summarize(h, &sum);
	assert_int_equal(sum.min_ns, 42700);
	assert_int_equal(sum.max_ns, 42700);
	assert_true(sum.avg_ns == 42700.0);
	assert_int_equal(rt_hist_bucket(h, 42), 10000);
	rt_hist_free(h);
}

static void test_single_sample(void **state)
{
	struct rt_hist *h = rt_hist_new(10, 1);
	unsigned int i;

	(void)state;
	assert_non_null(h);
	add_ns(h, 3, 7, 5);
	for (i = 0; i < RT_HIST_NSTD; i++) {
		struct rt_hist_pct p = pct(h, rt_hist_std_ppm[i]);

		assert_int_equal(p.value_us, 1);
		assert_int_equal(p.resolution_us, 1);
		assert_false(p.meaningful);
	}
	assert_int_equal(rt_hist_count(h), 1);
	rt_hist_free(h);
}

static void test_overflow_tail(void **state)
{
	struct rt_hist *h = rt_hist_new(100, 8);
	const struct rt_sample *recs;
	struct rt_hist_pct p;
	size_t n, i;
	uint64_t seq = 0;

	(void)state;
	assert_non_null(h);
	/* 900 samples at 10.2 us, then every tenth sample above the 100 us bound. */
	for (i = 0; i < 1000; i++, seq++)
		add_ns(h, 1, seq, i % 10 == 9 ? 500000 + (int64_t)i : 10200);
	assert_int_equal(rt_hist_overflow(h), 100);
	assert_int_equal(rt_hist_count(h), 1000);

	assert_int_equal(pct(h, RT_HIST_P50).value_us, 11);
	/* Exactly 90 % are <= 11 us, so p90 is in the 1 us buckets. */
	p = pct(h, RT_HIST_P90);
	assert_int_equal(p.resolution_us, 1);
	assert_int_equal(p.value_us, 11);
	/*
	 * p99 lands in the overflow region: 500 us is in [496, 504), 8 us wide,
	 * and no sample reached 501 us (the maximum is 500.999 us): [496, 501).
	 */
	p = pct(h, RT_HIST_P99);
	assert_int_equal(p.value_us, 501);
	assert_int_equal(p.resolution_us, 5);
	p = pct(h, RT_HIST_P9999);
	assert_int_equal(p.value_us, 501);
	assert_int_equal(p.resolution_us, 5);

	/* Only the first eight overflows are kept, with their cycle numbers. */
	recs = rt_hist_overflow_recs(h, &n);
	assert_int_equal(n, 8);
	for (i = 0; i < n; i++) {
		assert_int_equal(recs[i].seq, i * 10 + 9);
		assert_int_equal(recs[i].thread, 1);
		assert_int_equal(recs[i].latency_ns, 500000 + (int64_t)(i * 10 + 9));
	}
	/* The bound itself is an overflow: buckets are [i, i + 1) us. */
	rt_hist_reset(h);
	add_ns(h, 0, 0, 99999);
	add_ns(h, 0, 1, 100000);
	assert_int_equal(rt_hist_bucket(h, 99), 1);
	assert_int_equal(rt_hist_overflow(h), 1);
	rt_hist_free(h);
}

static void test_exact_min_avg_max(void **state)
{
	struct rt_hist *h = rt_hist_new(10, 0);
	struct rt_hist_summary sum;

	(void)state;
	assert_non_null(h);
	rt_hist_summarize(h, &sum);
	assert_int_equal(sum.count, 0);
	assert_true(sum.avg_ns == 0.0);

	add_ns(h, 0, 0, 1500);
	add_ns(h, 0, 1, 2500);
	add_ns(h, 0, 2, 3001);
	rt_hist_summarize(h, &sum);
	assert_int_equal(sum.min_ns, 1500);
	assert_int_equal(sum.max_ns, 3001);
	assert_true(fabs(sum.avg_ns - 7001.0 / 3.0) < 1e-9);

	/* A stepped CLOCK_REALTIME can give negatives: exact in min/avg, bucket 0. */
	add_ns(h, 0, 3, -7001);
	rt_hist_summarize(h, &sum);
	assert_int_equal(sum.min_ns, -7001);
	assert_true(sum.avg_ns == 0.0);
	assert_int_equal(rt_hist_bucket(h, 0), 1);

	/* A sum far past INT64_MAX still averages exactly. */
	rt_hist_reset(h);
	add_ns(h, 0, 0, INT64_MAX);
	add_ns(h, 0, 1, INT64_MAX);
	add_ns(h, 0, 2, INT64_MAX - 2);
	rt_hist_summarize(h, &sum);
	assert_int_equal(sum.overflow, 3);
	assert_true(fabs(sum.avg_ns / (double)INT64_MAX - 1.0) < 1e-12);
	/* ...and so does one far below INT64_MIN. */
	rt_hist_reset(h);
	add_ns(h, 0, 0, INT64_MIN);
	add_ns(h, 0, 1, INT64_MIN);
	rt_hist_summarize(h, &sum);
	assert_true(sum.avg_ns == (double)INT64_MIN);
	assert_int_equal(sum.min_ns, INT64_MIN);
	rt_hist_free(h);
}

/* A small deterministic generator, so the test needs no seed handling. */
static uint64_t lcg(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return *x >> 33;
}

static void test_merge_equals_single(void **state)
{
	struct rt_hist *part[3], *all, *merged;
	struct rt_hist_summary a, m;
	const struct rt_sample *ra, *rm;
	size_t na, nm;
	uint64_t x = 12345;
	unsigned int t, i;

	(void)state;
	all = rt_hist_new(500, 1000);
	merged = rt_hist_new(500, 1000);
	assert_non_null(all);
	assert_non_null(merged);
	for (t = 0; t < 3; t++) {
		part[t] = rt_hist_new(500, 1000);
		assert_non_null(part[t]);
		for (i = 0; i < 20000; i++) {
			/* Mostly 0..300 us, a long tail up to 2 ms, a few negatives. */
			int64_t ns = (int64_t)(lcg(&x) % 300000);

			if (lcg(&x) % 50 == 0)
				ns = (int64_t)(lcg(&x) % 2000000);
			if (lcg(&x) % 1000 == 0)
				ns = -(int64_t)(lcg(&x) % 5000);
			add_ns(part[t], t, i, ns);
			add_ns(all, t, i, ns);
		}
	}
	for (t = 0; t < 3; t++)
		assert_int_equal(rt_hist_merge(merged, part[t]), 0);

	for (i = 0; i < 500; i++)
		assert_int_equal(rt_hist_bucket(merged, i), rt_hist_bucket(all, i));
	assert_int_equal(rt_hist_overflow_nbuckets(merged), rt_hist_overflow_nbuckets(all));
	for (i = 0; i < rt_hist_overflow_nbuckets(all); i++) {
		struct rt_hist_range ra_, rm_;

		assert_int_equal(rt_hist_overflow_bucket(all, i, &ra_), 0);
		assert_int_equal(rt_hist_overflow_bucket(merged, i, &rm_), 0);
		assert_memory_equal(&ra_, &rm_, sizeof(ra_));
	}
	rt_hist_summarize(all, &a);
	rt_hist_summarize(merged, &m);
	assert_int_equal(m.count, 60000);
	assert_int_equal(m.count, a.count);
	assert_int_equal(m.overflow, a.overflow);
	assert_true(m.overflow > 0);
	assert_int_equal(m.min_ns, a.min_ns);
	assert_int_equal(m.max_ns, a.max_ns);
	assert_true(m.avg_ns == a.avg_ns);
	for (i = 0; i < RT_HIST_NSTD; i++) {
		struct rt_hist_pct pa = pct(all, rt_hist_std_ppm[i]);
		struct rt_hist_pct pm = pct(merged, rt_hist_std_ppm[i]);

		assert_int_equal(pm.value_us, pa.value_us);
		assert_int_equal(pm.resolution_us, pa.resolution_us);
		assert_int_equal(pm.meaningful, pa.meaningful);
	}

	/*
	 * Fewer than 1000 overflows in all: both keep every record. The merged
	 * list is sorted by (seq, thread); the single one is in arrival order.
	 */
	ra = rt_hist_overflow_recs(all, &na);
	rm = rt_hist_overflow_recs(merged, &nm);
	assert_int_equal(na, a.overflow);
	assert_int_equal(nm, na);
	for (i = 0; i < nm; i++) {
		size_t j;
		bool found = false;

		if (i > 0)
			assert_true(rm[i - 1].seq < rm[i].seq ||
				    (rm[i - 1].seq == rm[i].seq && rm[i - 1].thread < rm[i].thread));
		for (j = 0; j < na && !found; j++)
			found = ra[j].seq == rm[i].seq && ra[j].thread == rm[i].thread &&
				ra[j].latency_ns == rm[i].latency_ns;
		assert_true(found);
	}

	/* Merging an empty histogram changes nothing. */
	rt_hist_reset(part[0]);
	assert_int_equal(rt_hist_merge(merged, part[0]), 0);
	assert_int_equal(rt_hist_count(merged), 60000);

	for (t = 0; t < 3; t++)
		rt_hist_free(part[t]);
	rt_hist_free(all);
	rt_hist_free(merged);
}

static void test_merge_keeps_earliest_overflows(void **state)
{
	struct rt_hist *a = rt_hist_new(10, 3), *b = rt_hist_new(10, 3);
	struct rt_hist *c = rt_hist_new(11, 3);
	const struct rt_sample *r;
	size_t n;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	add_ns(a, 0, 5, 50000);
	add_ns(a, 0, 8, 50000);
	add_ns(a, 0, 9, 50000);
	add_ns(b, 1, 2, 60000);
	add_ns(b, 1, 8, 60000);
	assert_int_equal(rt_hist_merge(a, b), 0);
	r = rt_hist_overflow_recs(a, &n);
	assert_int_equal(n, 3);
	assert_int_equal(r[0].seq, 2);
	assert_int_equal(r[0].thread, 1);
	assert_int_equal(r[1].seq, 5);
	assert_int_equal(r[2].seq, 8);
	assert_int_equal(r[2].thread, 0);
	assert_int_equal(rt_hist_overflow(a), 5);

	/* Different bounds cannot be merged. */
	assert_int_equal(rt_hist_merge(c, a), -EINVAL);
	assert_int_equal(rt_hist_count(c), 0);
	rt_hist_free(a);
	rt_hist_free(b);
	rt_hist_free(c);
}

static void test_meaningful_boundaries(void **state)
{
	struct rt_hist *h = rt_hist_new(100, 0);
	unsigned int i;

	(void)state;
	/* Lesson 03's rule: at least 100 samples beyond the percentile. */
	assert_int_equal(rt_hist_needed(RT_HIST_P50), 200);
	assert_int_equal(rt_hist_needed(RT_HIST_P90), 1000);
	assert_int_equal(rt_hist_needed(RT_HIST_P99), 10000);
	assert_int_equal(rt_hist_needed(RT_HIST_P999), 100000);
	assert_int_equal(rt_hist_needed(RT_HIST_P9999), 1000000);
	/* ceil(): 100 / (1 - 0.3) = 142.9 -> 143. */
	assert_int_equal(rt_hist_needed(300000), 143);
	assert_int_equal(rt_hist_needed(RT_HIST_PPM), UINT64_MAX);

	assert_non_null(h);
	for (i = 0; i < 9999; i++)
		add_ns(h, 0, i, 3000);
	assert_false(pct(h, RT_HIST_P99).meaningful);	/* 99.99 beyond it */
	add_ns(h, 0, i++, 3000);
	assert_true(pct(h, RT_HIST_P99).meaningful);	/* 100 beyond it */
	assert_false(pct(h, RT_HIST_P999).meaningful);
	assert_int_equal(pct(h, RT_HIST_P999).needed, 100000);
	for (; i < 99999; i++)
		add_ns(h, 0, i, 3000);
	assert_false(pct(h, RT_HIST_P999).meaningful);
	add_ns(h, 0, i, 3000);
	assert_int_equal(rt_hist_count(h), 100000);
	assert_true(pct(h, RT_HIST_P999).meaningful);
	assert_false(pct(h, RT_HIST_P9999).meaningful);
	assert_int_equal(pct(h, RT_HIST_P9999).needed, 1000000);
	rt_hist_free(h);
}

static void test_bad_arguments(void **state)
{
	struct rt_hist *h;
	struct rt_hist_pct p;

	(void)state;
	errno = 0;
	assert_null(rt_hist_new(0, 0));
	assert_int_equal(errno, EINVAL);
	assert_null(rt_hist_new(RT_HIST_MAX_BUCKETS + 1, 0));
	assert_null(rt_hist_new(10, RT_HIST_MAX_OVERFLOW_RECS + 1));
	rt_hist_free(NULL);

	h = rt_hist_new(10, 0);
	assert_non_null(h);
	assert_int_equal(rt_hist_nbuckets(h), 10);
	/* Empty: no value, but the caller still learns how many samples are needed. */
	assert_int_equal(rt_hist_percentile(h, RT_HIST_P99, &p), -ENODATA);
	assert_int_equal(p.needed, 10000);
	add_ns(h, 0, 0, 1000);
	assert_int_equal(rt_hist_percentile(h, 0, &p), -EINVAL);
	assert_int_equal(rt_hist_percentile(h, RT_HIST_PPM, &p), -EINVAL);
	assert_string_equal(rt_hist_std_name[4], "p99.99");
	rt_hist_free(h);
}

/* Percentile @q_ppm of @h is @value us with a resolution of @res us. */
static void assert_pct(const struct rt_hist *h, unsigned int q_ppm, uint64_t value, uint64_t res)
{
	struct rt_hist_pct p = pct(h, q_ppm);

	if (p.value_us != value || p.resolution_us != res)
		fail_msg("q %u ppm: %llu us (resolution %llu), wanted %llu (resolution %llu)",
			 q_ppm, (unsigned long long)p.value_us,
			 (unsigned long long)p.resolution_us, (unsigned long long)value,
			 (unsigned long long)res);
}

/*
 * Samples beyond the 2000 us bound of the latency lab's default: every
 * percentile is a number, with the width of its bucket as the resolution.
 */
static void test_overflow_region_percentiles(void **state)
{
	struct rt_hist *h = rt_hist_new(2000, 0);
	uint64_t seq = 0;
	unsigned int i;

	(void)state;
	assert_non_null(h);
	for (i = 0; i < 990; i++)
		add_ns(h, 0, seq++, 10500);
	for (i = 0; i < 5; i++)
		add_ns(h, 0, seq++, 2001000);	/* [2000, 2016): the first bucket, cut at the bound */
	for (i = 0; i < 4; i++)
		add_ns(h, 0, seq++, 2347000);	/* [2304, 2368): 64 us at 2^11 us */
	add_ns(h, 0, seq++, 12500000000);	/* 12.5 s: beyond 10 s, up to the maximum */
	assert_int_equal(rt_hist_overflow(h), 10);	/* as cyclictest counts them */

	assert_pct(h, RT_HIST_P99, 11, 1);
	assert_pct(h, 995000, 2016, 16);
	assert_pct(h, RT_HIST_P999, 2368, 64);
	assert_pct(h, RT_HIST_P9999, 12500001, 2500001);
	/* Where the maximum cuts a bucket, the value stops at it: [2304, 2348). */
	rt_hist_reset(h);
	for (i = 0; i < 99; i++)
		add_ns(h, 0, i, 10500);
	add_ns(h, 0, 99, 2347000);
	assert_pct(h, RT_HIST_P999, 2348, 44);

	/* Just below 10 s: the last log bucket, cut to end at 10 s. */
	rt_hist_reset(h);
	add_ns(h, 0, 0, 9999999999);
	assert_pct(h, RT_HIST_P50, 10000000, 10000000 - 9961472);
	/* At 10 s: beyond; the bucket ends at the maximum + 1 us. */
	rt_hist_reset(h);
	add_ns(h, 0, 0, 10000000000);
	assert_pct(h, RT_HIST_P50, 10000001, 1);
	rt_hist_free(h);

	/* A small bound: below 64 us the log buckets are 1 us wide too. */
	h = rt_hist_new(10, 0);
	assert_non_null(h);
	add_ns(h, 0, 0, 20400);
	assert_pct(h, RT_HIST_P50, 21, 1);
	add_ns(h, 0, 1, 101500);
	assert_pct(h, RT_HIST_P99, 102, 2);
	rt_hist_free(h);
}

/* The overflow buckets adjoin from the bound to 10 s and beyond, each at most 1/32 of its edge. */
static void test_overflow_region_shape(void **state)
{
	static const unsigned int bounds[] = { 1, 10, 63, 64, 65, 100, 2000, 2048, 100000,
					       RT_HIST_MAX_BUCKETS };
	uint64_t x = 99;

	(void)state;
	for (size_t k = 0; k < sizeof(bounds) / sizeof(bounds[0]); k++) {
		struct rt_hist *h = rt_hist_new(bounds[k], 0);
		struct rt_hist_range r, prev = { 0, 0, 0 };
		unsigned int nb;
		uint64_t sum = 0;

		assert_non_null(h);
		for (unsigned int i = 0; i < 5000; i++)
			add_ns(h, 0, i, (int64_t)(lcg(&x) % 12000000) * 1000);
		nb = rt_hist_overflow_nbuckets(h);
		assert_true(nb >= 2 && nb <= RT_HIST_MAX_LOG_BUCKETS);
		for (unsigned int i = 0; i < nb; i++) {
			assert_int_equal(rt_hist_overflow_bucket(h, i, &r), 0);
			assert_true(r.upper_us > r.lower_us);
			if (i == 0)
				assert_int_equal(r.lower_us, bounds[k]);
			else
				assert_int_equal(r.lower_us, prev.upper_us);
			if (i + 2 == nb)
				assert_int_equal(r.upper_us, RT_HIST_TOP_US);
			if (i + 1 < nb && r.lower_us >= 64)
				assert_true((r.upper_us - r.lower_us) * RT_HIST_SUB <= r.lower_us);
			sum += r.count;
			prev = r;
		}
		assert_int_equal(r.lower_us, RT_HIST_TOP_US);
		assert_int_equal(sum, rt_hist_overflow(h));
		assert_int_equal(rt_hist_overflow_bucket(h, nb, &r), -ENOENT);
		rt_hist_free(h);
	}
}

/* Memory is fixed at creation and small: the figures doc/results.md and rt_hist.h state. */
static void test_memory_bound(void **state)
{
	struct rt_hist *h;

	(void)state;
	h = rt_hist_new(1, 0);
	assert_non_null(h);
	assert_int_equal(rt_hist_overflow_nbuckets(h), RT_HIST_MAX_LOG_BUCKETS);
	rt_hist_free(h);
	h = rt_hist_new(2000, 0);
	assert_non_null(h);
	assert_int_equal(rt_hist_overflow_nbuckets(h), 394);
	rt_hist_free(h);
	assert_true(RT_HIST_MAX_LOG_BUCKETS * sizeof(uint64_t) < 5000);
	/* The latency lab's default: 2000 us and 1000 overflow records per thread. */
	assert_true(rt_hist_size(2000, 0) < 2000 * 8 + 394 * 8 + 256);
	assert_int_equal(rt_hist_size(2000, 1000) - rt_hist_size(2000, 0),
			 1000 * sizeof(struct rt_sample));
}

/* The consumer's per-sample work never allocates, in any region. */
static void test_add_does_not_allocate(void **state)
{
	struct rt_hist *h = rt_hist_new(2000, 16);
	struct rt_hist_pct p;
	struct rt_hist_summary sum;
	uint64_t x = 7;

	(void)state;
	assert_non_null(h);
	counting = true;
	allocations = 0;
	for (unsigned int i = 0; i < 200000; i++) {
		int64_t ns = (int64_t)(lcg(&x) % 3000000);

		if (i % 1000 == 0)
			ns = (int64_t)(lcg(&x) % 20000000) * 1000;	/* up to 20 s */
		add_ns(h, 0, i, i % 777 == 0 ? -ns : ns);
	}
	assert_int_equal(rt_hist_percentile(h, RT_HIST_P9999, &p), 0);
	rt_hist_summarize(h, &sum);
	counting = false;
	assert_int_equal(allocations, 0);
	assert_true(rt_hist_overflow(h) > 0);
	/* The counter works: creating a histogram allocates. */
	counting = true;
	rt_hist_free(rt_hist_new(10, 0));
	counting = false;
	assert_true(allocations > 0);
	rt_hist_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uniform),
		cmocka_unit_test(test_all_same),
		cmocka_unit_test(test_single_sample),
		cmocka_unit_test(test_overflow_tail),
		cmocka_unit_test(test_exact_min_avg_max),
		cmocka_unit_test(test_merge_equals_single),
		cmocka_unit_test(test_merge_keeps_earliest_overflows),
		cmocka_unit_test(test_meaningful_boundaries),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_overflow_region_percentiles),
		cmocka_unit_test(test_overflow_region_shape),
		cmocka_unit_test(test_memory_bound),
		cmocka_unit_test(test_add_does_not_allocate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
