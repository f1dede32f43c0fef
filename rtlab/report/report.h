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
struct rt_result_opts;
struct slides_deck;

/* Multiplier from @unit ("ns", "us", "ms", "s") to microseconds, 0 for another unit. */
double report_unit_us(const char *unit);

/**
 * report_svg - append an SVG plot of @res's histograms to @out
 * @standalone: true for an .svg file (XML declaration and namespace),
 *              false for inline use in HTML (no namespace URL)
 *
 * Histograms whose unit is not a time unit are left out. Returns 0,
 * -ENODATA when there is no histogram to draw, or -ENOMEM.
 */
int report_svg(const struct rt_result *res, bool standalone, struct rt_buf *out);

/*
 * report_svg_slide - report_svg() for a slide: text 20 units high in the
 * 900-unit-wide picture, no time stamp in its title, and the legend names
 * each histogram by its scenario's words (report_scenario_words()).
 */
int report_svg_slide(const struct rt_result *res, struct rt_buf *out);

/*
 * report_scenario_words - histogram @hist of lab @lab named in words: the
 * head of its scenario's summary (up to a colon) when the lab lists the
 * scenario ("mixed-flush.latency" is scenario mixed-flush), else the name
 * with its hyphens as spaces. Appended HTML-escaped. 0 or -ENOMEM.
 */
int report_scenario_words(struct rt_buf *out, const char *lab, const char *hist);

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

/* The options of report_slides_page(). */
struct report_slides_opts {
	const char *class_dir;	/* borrowed; the class folder (--class), or NULL */
	bool names;		/* class plots name the students (--names) */
	const char *course;	/* borrowed; the course's name for the title slide, or NULL */
	const char *teacher;	/* borrowed; or NULL */
	const char *date;	/* borrowed; or NULL */
	const char *licence;	/* borrowed; or NULL */
	struct rt_buf *warnings;	/* each warning appended as one line, or NULL */
};

/**
 * report_slides_page - report_slides_html() with class plots and a course
 *
 * A "class:" plot whose file is not in the class folder draws the class's
 * runs of the plot's lab (report_class_read(); the lab is the sample
 * document's, else the file's name without ".json"); when no student ran
 * it, the deck's sample is drawn with a note "sample, not your class" and
 * a line is appended to @o->warnings. Returns 0 or -ENOMEM.
 */
int report_slides_page(const struct slides_deck *deck, const struct report_slides_opts *o,
		       struct rt_buf *out);

/* ---- A class's runs (report_class.c) ------------------------------------ */

struct report_class_run {
	char *who;			/* owned; the student's folder name */
	struct rt_result *res;		/* owned */
};

struct report_class {
	char *lab;			/* owned */
	struct report_class_run *runs;	/* owned; sorted by student */
	size_t n;
	size_t links;		/* links met (student folder or document), not followed */
	size_t unreadable;	/* results documents that do not validate */
};

/**
 * report_class_read - every student's results document of @lab in @dir
 *
 * Reads DIR/<student>/<lab>/results.json, or DIR/<student>/results.json
 * when its lab is @lab, each opened below @dir with no symbolic link
 * followed. Finding none is not an error (@cls->n is 0). Returns 0, or a
 * negative errno with @cause when @dir cannot be read or memory runs out.
 * Release @cls with report_class_fini().
 */
int report_class_read(const char *dir, const char *lab, const struct rt_result_opts *opts,
		      struct report_class *cls, char **cause);

void report_class_fini(struct report_class *cls);

/**
 * report_class_svg - the class's runs as one inline SVG picture
 * @names: label each run with its student (a tooltip, and text when there
 *         is room); otherwise the runs are anonymous
 *
 * Returns 0, -ENODATA when no run has a latency histogram, or -ENOMEM.
 */
int report_class_svg(const struct report_class *cls, bool names, struct rt_buf *out);

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
