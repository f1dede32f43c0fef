/*
 * report: pictures and tables made from a results document, never from a
 * new measurement. Each writer appends to an rt_buf and never prints, so
 * the CLI writes files and the tests inspect strings.
 *
 *   report_svg              an OSADL-style latency plot: x is latency in us
 *                           (linear), y is samples per bucket (log scale),
 *                           one line per histogram with a legend, axes with
 *                           ticks, and a "SIMULATED" label for a simulation;
 *   report_html             one self-contained page (inline CSS and SVG, no
 *                           external reference): env, params, summary,
 *                           percentiles of every histogram (with their
 *                           resolution), the lab's views, per-scenario
 *                           table, notes, answers, the plot;
 *   report_cyclictest_hist  the text histogram of `cyclictest -h`, one
 *                           column per histogram, for people who compare.
 *
 * They work on any rtlab.result/2 (or converted /1) document; the
 * per-scenario table and the min/avg/max lines use extra.scenarios when a
 * lab (latency) provides it.
 */
#ifndef RTLAB_GRADE_REPORT_H
#define RTLAB_GRADE_REPORT_H

#include <stdbool.h>

struct rt_buf;
struct rt_result;

/**
 * report_svg - append an SVG plot of @res's histograms to @out
 * @standalone: true for an .svg file (XML declaration and namespace),
 *              false for inline use in HTML (no namespace URL)
 *
 * Histograms whose unit is not a time unit are left out. Returns 0,
 * -ENODATA when there is no histogram to draw, or -ENOMEM.
 */
int report_svg(const struct rt_result *res, bool standalone, struct rt_buf *out);

/* report_html - append the self-contained HTML report. 0 or -ENOMEM. */
int report_html(const struct rt_result *res, struct rt_buf *out);

/**
 * report_cyclictest_hist - append the histograms in cyclictest's -h layout
 *
 * "# Histogram", then one line per 1 us bucket ("%06d" and one "%06lu"
 * column per histogram, the first after a space, the rest after tabs), then
 * "# Total:", "# Min Latencies:", "# Avg Latencies:", "# Max Latencies:",
 * "# Histogram Overflows:" and the overflow cycle numbers. Only histograms
 * of 1 us buckets starting at 0 qualify. Returns 0, -ENODATA (none
 * qualifies), -E2BIG (rows times columns above 4 million: more text than
 * anyone compares by eye) or -ENOMEM.
 */
int report_cyclictest_hist(const struct rt_result *res, struct rt_buf *out);

#endif
