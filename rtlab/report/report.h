/* SPDX-License-Identifier: GPL-2.0-or-later */
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
 *                           column per histogram, for people who compare;
 *   report_text             the views as plain-text tables, then the notes:
 *                           what `rtlab lab run` and `rtlab lab report` print.
 *
 * They work on any rtlab.result/2 (or converted /1) document. The tables
 * are the lab's views (report_views()): a document's saved views, or for
 * an older one the views its lab makes of it now; no report reads a lab's
 * "extra" except through the lab or rt_result_scenario().
 */
#ifndef RTLAB_GRADE_REPORT_H
#define RTLAB_GRADE_REPORT_H

#include <stdbool.h>
#include <stddef.h>

struct json_t;
struct lab_ops;
struct rt_buf;
struct rt_result;
struct slides_deck;

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

/*
 * report_html_escape - append @s escaped for HTML text or a quoted attribute
 * (& < > " '), control characters and bytes that are not UTF-8 as rt_text's
 * visible escapes. 0 or -ENOMEM.
 */
int report_html_escape(struct rt_buf *out, const char *s);

/**
 * report_slides_html - a deck (slides/FORMAT.md) as one self-contained page
 * @class_dir: the folder "class:" plots are read from, or NULL (their
 *             sample is drawn then, or a note says what is missing)
 *
 * One <section class="slide"> per slide, its notes in <aside class="notes">,
 * each plot as report_svg()'s inline SVG; CSS and the navigation script are
 * inline and nothing is fetched. A plot whose document cannot be read, is
 * not a results document or has no histogram becomes a note on the slide.
 * Returns 0 or -ENOMEM.
 */
int report_slides_html(const struct slides_deck *deck, const char *class_dir,
		       struct rt_buf *out);

/**
 * report_cyclictest_hist - append the histograms in cyclictest's -h layout
 *
 * "# Columns:" and one "# Thread N is NAME" line per column (cyclictest calls
 * its columns threads; readers skip '#' lines), "# Histogram", then one line per 1 us bucket ("%06d" and one "%06lu"
 * column per histogram, the first after a space, the rest after tabs), then
 * "# Total:", "# Min Latencies:", "# Avg Latencies:", "# Max Latencies:",
 * "# Histogram Overflows:" and the overflow cycle numbers. Only histograms
 * of 1 us buckets starting at 0 qualify. Returns 0, -ENODATA (none
 * qualifies), -E2BIG (rows times columns above 4 million: more text than
 * anyone compares by eye) or -ENOMEM.
 */
int report_cyclictest_hist(const struct rt_result *res, struct rt_buf *out);

/**
 * report_views - the tables that describe @res
 * @lab: the lab that made @res, or NULL to look up the one it names
 * @out: a new reference to an array of view objects (rtlab.result/2)
 * @cause: why the lab could not describe the document
 *
 * The document's own views when it was saved with some; otherwise its lab's
 * views of it (lab_ops.views) and the predictions view. An unknown lab or a
 * lab without views gives only the predictions view, or an empty array.
 * Returns 0, or a negative errno with @cause (@out is NULL then).
 */
int report_views(const struct rt_result *res, const struct lab_ops *lab, struct json_t **out,
		 char **cause);

/**
 * report_predictions_view - extra.predictions as the view "predictions"
 * @view: a new view object, or NULL when the document has no predictions
 *
 * Returns 0 or -ENOMEM.
 */
int report_predictions_view(const struct rt_result *res, struct json_t **view);

/* The kinds of line report_lines() gives, so a screen can style them. */
enum report_line {
	REPORT_LINE_TITLE,	/* a view's title */
	REPORT_LINE_HEADING,	/* its column headings */
	REPORT_LINE_ROW,	/* one row */
	REPORT_LINE_BLANK,	/* between views */
	REPORT_LINE_NOTE,	/* one of the document's notes */
};

/* Gets each line (escaped for a terminal, without its newline); non-zero stops. */
typedef int (*report_line_fn)(void *priv, enum report_line kind, const char *text, size_t len);

/**
 * report_lines - the views as aligned text tables, then the notes, a line at a time
 *
 * Returns 0, the first non-zero value of @fn, or -ENOMEM.
 */
int report_lines(const struct rt_result *res, report_line_fn fn, void *priv);

/* report_text - report_lines() into @out, each line ended by a newline. 0 or -ENOMEM. */
int report_text(const struct rt_result *res, struct rt_buf *out);

#endif
