/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_hist: the latency histogram of one measuring thread (or of all of them,
 * after a merge).
 *
 * Two regions, both fixed at creation:
 *
 *   linear    1 us buckets: bucket i counts samples with i us <= latency <
 *             (i + 1) us, for i in 0 .. nbuckets - 1, so latencies below the
 *             bound of nbuckets us are counted exactly (cyclictest -h and the
 *             OSADL plots use the same 1 us bins);
 *   overflow  above the bound, log-spaced buckets in the manner of HDR
 *             histograms: RT_HIST_SUB buckets per power of two, so a bucket
 *             is never wider than 1/32 of its lower edge (about 3 %), up to
 *             RT_HIST_TOP_US (10 s). The first one starts at the bound, the
 *             last one ends at 10 s; one more counts what lies beyond 10 s
 *             and ends at the exact maximum.
 *
 * A sample at or above the bound is an overflow, as cyclictest counts it: the
 * overflow count is unchanged by the region; the first few (a bounded array
 * fixed at creation) are kept with their thread and cycle number so a
 * learner can find them in a trace. A negative latency (possible with
 * CLOCK_REALTIME when the clock is stepped) is counted in bucket 0; min, max
 * and the average always use the exact nanosecond values.
 *
 * Percentiles come from the buckets, not from the raw samples: the
 * q-percentile is the smallest bucket upper edge such that at least a
 * fraction q of all samples are below it; in the overflow region, the exact
 * maximum (rounded up to the next whole us) when that is lower. Every sample
 * of a bucket is below that edge, so the reported value is an upper bound on
 * the true quantile that is at most the bucket's width too high: the
 * resolution, reported with it (1 us in the linear region, e.g. 64 us at
 * 2.3 ms). Every percentile is a number.
 *
 * Memory: 8 bytes per linear bucket, 8 per overflow bucket (at most
 * RT_HIST_MAX_LOG_BUCKETS, under 5 KB; 394 buckets, 3.1 KB, for the
 * default bound of 2000 us) and one struct rt_sample per kept overflow
 * record; rt_hist_size() gives the total.
 *
 * rt_hist_add() is O(1), allocates nothing and takes no lock: it is meant
 * for the single consumer that drains the sample rings. A histogram is not
 * safe for concurrent use; the other functions may run in O(nbuckets).
 */
#ifndef RTLAB_CORE_RT_HIST_H
#define RTLAB_CORE_RT_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rt_sink.h"

/* Upper limit for nbuckets: one second at 1 us per bucket (8 MB of counters). */
#define RT_HIST_MAX_BUCKETS 1000000u
/* Upper limit for the number of overflow records kept. */
#define RT_HIST_MAX_OVERFLOW_RECS 100000u

/* The overflow region: RT_HIST_SUB log buckets per power of two up to RT_HIST_TOP_US. */
#define RT_HIST_SUB_BITS 5u
#define RT_HIST_SUB (1u << RT_HIST_SUB_BITS)
#define RT_HIST_TOP_US 10000000u	/* 10 s */
/* Samples beyond a percentile before it is meaningful (rt_hist_needed()). */
#define RT_HIST_BEYOND 100u
/*
 * What a table writes after a percentile that is not meaningful; a screen
 * may draw such a cell dimmed (ui_views does).
 */
#define RT_HIST_FEW_MARK "(few samples)"
/* Most overflow buckets a histogram has (a bound of 1 us), the one beyond 10 s included. */
#define RT_HIST_MAX_LOG_BUCKETS 615u

/* Quantiles in parts per million, so the arithmetic is exact. */
#define RT_HIST_PPM 1000000u
#define RT_HIST_P50 500000u
#define RT_HIST_P90 900000u
#define RT_HIST_P99 990000u
#define RT_HIST_P999 999000u
#define RT_HIST_P9999 999900u

/* The standard set of percentiles a result reports, and their names. */
#define RT_HIST_NSTD 5
extern const unsigned int rt_hist_std_ppm[RT_HIST_NSTD];
extern const char *const rt_hist_std_name[RT_HIST_NSTD];	/* "p50" .. "p99.99" */

struct rt_hist;

struct rt_hist_pct {
	unsigned int q_ppm;	/* the quantile asked for */
	uint64_t value_us;	/* upper edge of the bucket the quantile lies in */
	uint64_t resolution_us;	/* that bucket's width: the value is at most this much high */
	bool meaningful;	/* enough samples for this quantile, see rt_hist_needed() */
	uint64_t needed;	/* samples needed to be meaningful */
};

/* One bucket of the overflow region: [lower_us, upper_us) holds count samples. */
struct rt_hist_range {
	uint64_t lower_us;
	uint64_t upper_us;
	uint64_t count;
};

struct rt_hist_summary {
	uint64_t count;		/* all samples, overflows included */
	uint64_t overflow;	/* samples >= bound_us */
	uint64_t bound_us;	/* nbuckets */
	int64_t min_ns;		/* exact; 0 when count is 0 */
	int64_t max_ns;		/* exact; 0 when count is 0 */
	double avg_ns;		/* exact sum / count; 0 when count is 0 */
};

/**
 * rt_hist_new - allocate an empty latency histogram
 * @nbuckets: number of 1 us buckets (1 .. RT_HIST_MAX_BUCKETS); the bound is nbuckets us
 * @max_overflow_recs: how many overflowing samples to keep (0 .. RT_HIST_MAX_OVERFLOW_RECS)
 *
 * All memory is allocated here, so rt_hist_add() never allocates.
 * Returns the histogram, or NULL with errno set (EINVAL, ENOMEM).
 * Release it with rt_hist_free().
 */
struct rt_hist *rt_hist_new(unsigned int nbuckets, unsigned int max_overflow_recs);

/**
 * rt_hist_size - bytes rt_hist_new() allocates for these sizes
 *
 * The histogram's whole memory: it never grows after creation.
 */
size_t rt_hist_size(unsigned int nbuckets, unsigned int max_overflow_recs);

/* rt_hist_free - release @h; NULL does nothing. */
void rt_hist_free(struct rt_hist *h);

/* rt_hist_reset - forget all samples; sizes are kept. */
void rt_hist_reset(struct rt_hist *h);

/**
 * rt_hist_add - count one sample
 * @h: the histogram
 * @s: the sample; its latency_ns picks the bucket, thread and seq are kept for overflows
 *
 * O(1), allocation-free, lock-free. Not thread-safe: one consumer per histogram.
 */
void rt_hist_add(struct rt_hist *h, const struct rt_sample *s);

/**
 * rt_hist_merge - add every sample of @src to @dst
 * @dst: the histogram that grows
 * @src: read only
 *
 * Both must have the same number of buckets. Counts, min, max and the sum
 * combine exactly, so the result equals adding all samples to one histogram.
 * Of the overflow records, @dst keeps the ones with the lowest seq (ties by
 * thread) up to its capacity: the earliest overflows of each thread.
 * Returns 0 or -EINVAL (bucket counts differ).
 */
int rt_hist_merge(struct rt_hist *dst, const struct rt_hist *src);

/**
 * rt_hist_needed - samples a percentile needs to be meaningful
 * @q_ppm: the quantile in parts per million, below RT_HIST_PPM
 *
 * ceil(RT_HIST_BEYOND / (1 - q)), the rule of lesson 03 and the glossary:
 * at least 100 samples beyond the percentile. The estimate of the
 * q-percentile is decided by the samples beyond it; with fewer, one more or
 * one fewer outlier moves it visibly, and with a handful it is an anecdote.
 * So p99 needs 10,000 samples and p99.99 needs 1,000,000.
 */
uint64_t rt_hist_needed(unsigned int q_ppm);

/**
 * rt_hist_percentile - a percentile from the buckets
 * @h: the histogram
 * @q_ppm: the quantile in parts per million, 1 .. RT_HIST_PPM - 1
 * @out: filled on success (the caller's storage)
 *
 * See the file comment for the definition: out->value_us is the upper edge
 * of a bucket and out->resolution_us its width (1 in the linear region).
 * Returns 0, -EINVAL for a bad @q_ppm, or -ENODATA when @h is empty
 * (out->needed is still set).
 */
int rt_hist_percentile(const struct rt_hist *h, unsigned int q_ppm, struct rt_hist_pct *out);

/* rt_hist_summarize - fill @out with count, overflow, bound, min, max, avg. */
void rt_hist_summarize(const struct rt_hist *h, struct rt_hist_summary *out);

/* Accessors for drawing and for results. */
unsigned int rt_hist_nbuckets(const struct rt_hist *h);
uint64_t rt_hist_bucket(const struct rt_hist *h, unsigned int i);	/* 0 when i is out of range */
uint64_t rt_hist_count(const struct rt_hist *h);
uint64_t rt_hist_overflow(const struct rt_hist *h);

/**
 * rt_hist_overflow_nbuckets - buckets of the overflow region
 *
 * Fixed at creation: from the bound to 10 s, plus the one beyond 10 s.
 */
unsigned int rt_hist_overflow_nbuckets(const struct rt_hist *h);

/**
 * rt_hist_overflow_bucket - read bucket @i of the overflow region
 * @out: its edges and count; the last bucket (beyond 10 s) ends at the
 *       maximum + 1 us, or at 10 s + 1 us while it is empty
 *
 * Buckets are in ascending order and adjoin: the first starts at the bound.
 * Returns 0 or -ENOENT (@i out of range).
 */
int rt_hist_overflow_bucket(const struct rt_hist *h, unsigned int i, struct rt_hist_range *out);

/**
 * rt_hist_overflow_recs - the kept overflow samples
 * @n: set to how many there are (at most max_overflow_recs)
 *
 * Returns a pointer into @h, valid until the next add, merge, reset or free.
 */
const struct rt_sample *rt_hist_overflow_recs(const struct rt_hist *h, size_t *n);

#endif
