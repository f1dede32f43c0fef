/*
 * rt_hist: the latency histogram of one measuring thread (or of all of them,
 * after a merge).
 *
 * Buckets are 1 us wide: bucket i counts samples with i us <= latency <
 * (i + 1) us, for i in 0 .. nbuckets - 1, so the histogram covers latencies
 * below a bound of nbuckets us (cyclictest -h and the OSADL plots use the
 * same 1 us bins). A sample at or above the bound is an overflow: it is
 * counted, and the first few (a bounded array fixed at creation) are kept
 * with their thread and cycle number so a learner can find them in a trace.
 * A negative latency (possible with CLOCK_REALTIME when the clock is
 * stepped) is counted in bucket 0; min, max and the average always use the
 * exact nanosecond values.
 *
 * Percentiles come from the buckets, not from the raw samples: the
 * q-percentile is the smallest bucket upper edge (i + 1 us) such that at
 * least a fraction q of all samples are <= it. Every sample in bucket i is
 * below its upper edge, so the reported value is an upper bound on the true
 * quantile that is at most 1 us too high. Overflows count as samples above
 * the bound: a percentile that lands among them has no number, and is
 * reported as "> bound" through the above_bound flag.
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
	uint64_t value_us;	/* bucket upper edge; equals bound_us when above_bound */
	bool above_bound;	/* the percentile lies among the overflows: "> bound_us" */
	bool meaningful;	/* enough samples for this quantile, see rt_hist_needed() */
	uint64_t needed;	/* samples needed to be meaningful */
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
 * ceil(10 / (1 - q)): the estimate of the q-percentile is decided by the
 * samples beyond it, and with fewer than about ten of them it rests on a
 * handful of events: one more or one fewer outlier would move it a lot.
 * So p99 needs 1,000 samples and p99.99 needs 100,000.
 */
uint64_t rt_hist_needed(unsigned int q_ppm);

/**
 * rt_hist_percentile - a percentile from the buckets
 * @h: the histogram
 * @q_ppm: the quantile in parts per million, 1 .. RT_HIST_PPM - 1
 * @out: filled on success (the caller's storage)
 *
 * See the file comment for the definition. Returns 0, -EINVAL for a bad
 * @q_ppm, or -ENODATA when @h is empty (out->needed is still set).
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
 * rt_hist_overflow_recs - the kept overflow samples
 * @n: set to how many there are (at most max_overflow_recs)
 *
 * Returns a pointer into @h, valid until the next add, merge, reset or free.
 */
const struct rt_sample *rt_hist_overflow_recs(const struct rt_hist *h, size_t *n);

#endif
