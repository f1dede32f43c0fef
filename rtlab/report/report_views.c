/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report_views: a results document's views (rtlab.result/2 "views"), the
 * tables a lab describes its outcome with, and their plain-text form.
 *
 * A lab owns its schema: it alone knows what its "extra" means, so it
 * turns a document into views (lab_ops.views) and everything else draws
 * views without knowing the lab: `rtlab lab run` and `rtlab lab report`
 * print them as text tables here, the HTML report as HTML tables, the TUI
 * summary on screen. A document saved with views is drawn as saved; an
 * older one (rtlab.result/1, or /2 without views) is given its lab's views
 * now. The learner's predictions (extra.predictions, which the run session
 * adds for every lab) are one more view, the same for every lab.
 */
#include "report.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_err.h"
#include "core/rt_json.h"
#include "core/rt_result.h"
#include "core/rt_text.h"
#include "core/rt_utf8.h"
#include "labs/lab.h"

#define CELL_MAX 96		/* a text cell is cut here, with "..." */

/*
 * An absolute band for units with a small fixed range: a Jain index lies in
 * [1/n, 1], so within a factor of two every guess from 0.5 up is "close" to
 * every result. Other units (times, counts) are compared by a factor of two.
 */
static const struct {
	const char *unit;
	double band;		/* "close" within this much either way */
	const char *fmt;	/* the difference, printf format with one double */
} verdict_bands[] = {
	{ "ratio", 0.1, "%.2f" },
	{ "pct", 10, "%.0f points" },
};

/* How a measurement @m compares with the learner's guess @p (NAN: none), into @buf. */
static const char *verdict(double p, double m, const char *other_run, const char *unit,
			   char *buf, size_t size)
{
	if (other_run)
		return other_run;
	if (isnan(m))
		return "scenario not run";
	if (isnan(p))
		return "no prediction yet";
	for (size_t i = 0; i < sizeof(verdict_bands) / sizeof(verdict_bands[0]); i++) {
		const char *side = m >= p ? "above" : "below";
		char diff[32];

		if (strcmp(unit, verdict_bands[i].unit))
			continue;
		snprintf(diff, sizeof(diff), verdict_bands[i].fmt, fabs(m - p));
		if (strtod(diff, NULL) == 0)
			return "exactly your guess";
		if (fabs(m - p) <= verdict_bands[i].band * (1 + 1e-9))
			snprintf(buf, size, "close to your guess (%s %s)", diff, side);
		else
			snprintf(buf, size, "%s %s your guess", diff, side);
		return buf;
	}
	if (!(p > 0 && m > 0))
		return p == m ? "exactly your guess" : "";
	return m > p * 2 ? "far above your guess" : m * 2 < p ? "far below your guess" :
	       "close to your guess";
}

static json_t *number_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

int report_predictions_view(const struct rt_result *res, json_t **view)
{
	size_t n = rt_result_prediction_count(res);
	bool sim = rt_result_simulated(res);
	struct rt_result_prediction p;
	json_t *rows;
	char buf[96];

	*view = NULL;
	if (!n)
		return 0;
	rows = json_array();
	/* A simulated lab's figure is the model's, not a measurement of this machine. */
	*view = json_pack("{s:s, s:s, s:[{s:s}, {s:s}, {s:s}, {s:s}, {s:s}, {s:s}, {s:s}, {s:s}],"
			  " s:o}", "name", "predictions", "title",
			  sim ? "Your predictions (from the lessons) against the model" :
			  "Your predictions (from the lessons) against the measurement",
			  "columns", "name", "scenario", "name", "metric", "name", "predicted",
			  "name", sim ? "simulated" : "measured", "name", "unit", "name", "verdict", "name", "lesson",
			  "name", "question", "rows", rows);
	if (!*view)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		json_t *row;

		if (rt_result_prediction(res, i, &p))
			continue;
		row = json_pack("[s, s, o, o, s, s, s, s]", p.scenario, p.metric,
				number_or_null(p.predicted), number_or_null(p.measured), p.unit,
				verdict(p.predicted, p.measured, p.other_run, p.unit, buf,
					sizeof(buf)),
				p.lesson, p.id);
		if (!row || json_array_append_new(rows, row)) {
			json_decref(*view);
			*view = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

int report_views(const struct rt_result *res, const struct lab_ops *lab, json_t **out,
		 char **cause)
{
	const json_t *saved = rt_result_saved_views(res);
	json_t *views, *pv = NULL;
	int ret = 0;

	*out = NULL;
	if (saved) {
		*out = json_incref((json_t *)saved);
		return 0;
	}
	views = json_array();
	if (!views)
		return -ENOMEM;
	if (!lab)
		lab = lab_find(rt_result_lab(res));
	if (lab && lab->views)
		ret = lab->views(res, views, cause);
	if (!ret)
		ret = report_predictions_view(res, &pv);
	if (!ret && pv && json_array_append_new(views, pv))
		ret = -ENOMEM;
	if (ret) {
		json_decref(views);
		return ret;
	}
	*out = views;
	return 0;
}

/* ---- Plain text ------------------------------------------------------------------- */

/* @s escaped for a terminal and cut to CELL_MAX columns, into @b (reset first). */
static int cell_escaped(struct rt_buf *b, const char *s)
{
	rt_buf_reset(b);
	return rt_text_escape(b, s, strlen(s), 0);
}

static unsigned int cols_of(const struct rt_buf *b)
{
	unsigned int w = rt_utf8_width(rt_buf_str(b), b->len);

	return w < CELL_MAX ? w : CELL_MAX;
}

/* The column's heading: its title (else its name), with the unit in parentheses. */
static void heading(const json_t *view, size_t c, char *buf, size_t size)
{
	struct rt_result_column col;
	bool unit;

	rt_result_view_column(view, c, &col);
	unit = col.unit && *col.unit;
	snprintf(buf, size, "%s%s%s%s", col.title && *col.title ? col.title :
		 col.name ? col.name : "", unit ? " (" : "", unit ? col.unit : "", unit ? ")" : "");
}

/* The line being built, and where finished lines go. */
struct emit {
	struct rt_buf line;
	report_line_fn fn;
	void *priv;
};

static int emit_line(struct emit *e, enum report_line kind)
{
	int ret = e->fn(e->priv, kind, rt_buf_str(&e->line), e->line.len);

	rt_buf_reset(&e->line);
	return ret;
}

/* Pad to @width columns, left-aligned text or right-aligned numbers. */
static int put_cell(struct rt_buf *out, const struct rt_buf *cell, unsigned int width,
		    bool right, bool last)
{
	unsigned int w = cols_of(cell);
	int ret = 0;

	if (right)
		ret |= rt_buf_printf(out, "%*s", (int)(width - w), "");
	ret |= rt_buf_append(out, rt_buf_str(cell), cell->len);
	if (!right && !last)
		ret |= rt_buf_printf(out, "%*s", (int)(width - w), "");
	if (!last)
		ret |= rt_buf_puts(out, "  ");
	return ret;
}

static int view_lines(const json_t *view, struct emit *e)
{
	size_t nc = rt_result_view_ncolumns(view), nr = rt_result_view_nrows(view), r, c;
	unsigned int *width = calloc(nc ? nc : 1, sizeof(*width));
	bool *right = calloc(nc ? nc : 1, sizeof(*right));
	struct rt_buf cell = RT_BUF_INIT;
	char text[CELL_MAX * 4 + 8];
	int ret = 0;

	if (!width || !right) {
		ret = -ENOMEM;
		goto out;
	}
	for (c = 0; c < nc; c++) {
		heading(view, c, text, sizeof(text));
		ret |= cell_escaped(&cell, text);
		width[c] = cols_of(&cell);
		right[c] = true;
	}
	for (r = 0; r < nr; r++)
		for (c = 0; c < nc; c++) {
			const json_t *v = rt_result_view_cell(view, r, c);

			rt_result_cell_text(v, text, sizeof(text));
			ret |= cell_escaped(&cell, text);
			if (cols_of(&cell) > width[c])
				width[c] = cols_of(&cell);
			if (json_is_string(v) || json_is_boolean(v))
				right[c] = false;
		}
	ret |= cell_escaped(&e->line, rt_result_view_title(view) ?: "");
	ret = ret ? ret : emit_line(e, REPORT_LINE_TITLE);
	ret |= rt_buf_puts(&e->line, "  ");
	for (c = 0; c < nc; c++) {
		heading(view, c, text, sizeof(text));
		ret |= cell_escaped(&cell, text);
		ret |= put_cell(&e->line, &cell, width[c], right[c], c + 1 == nc);
	}
	ret = ret ? ret : emit_line(e, REPORT_LINE_HEADING);
	for (r = 0; r < nr && !ret; r++) {
		ret |= rt_buf_puts(&e->line, "  ");
		for (c = 0; c < nc; c++) {
			rt_result_cell_text(rt_result_view_cell(view, r, c), text, sizeof(text));
			ret |= cell_escaped(&cell, text);
			ret |= put_cell(&e->line, &cell, width[c], right[c], c + 1 == nc);
		}
		ret = ret ? ret : emit_line(e, REPORT_LINE_ROW);
	}
	ret = ret ? ret : emit_line(e, REPORT_LINE_BLANK);
out:
	rt_buf_fini(&cell);
	free(width);
	free(right);
	return ret ? (ret < 0 ? ret : -ENOMEM) : 0;
}

int report_lines(const struct rt_result *res, report_line_fn fn, void *priv)
{
	json_t *views = NULL;
	struct emit e = { .line = RT_BUF_INIT, .fn = fn, .priv = priv };
	char *cause = NULL;
	size_t i;
	int ret;

	ret = report_views(res, NULL, &views, &cause);
	if (ret) {
		ret = rt_text_printf(&e.line, "(the %s lab could not describe this document: %s)",
				     rt_result_lab(res), cause ? cause : strerror(-ret));
		ret = ret ? ret : emit_line(&e, REPORT_LINE_NOTE);
		free(cause);
	}
	for (i = 0; !ret && i < rt_result_views_count(views); i++)
		ret = view_lines(rt_result_views_at(views, i), &e);
	json_decref(views);
	for (i = 0; !ret && i < rt_result_note_count(res); i++) {
		ret = rt_text_printf(&e.line, "note: %s", rt_result_note(res, i) ?: "");
		ret = ret ? ret : emit_line(&e, REPORT_LINE_NOTE);
	}
	rt_buf_fini(&e.line);
	return ret ? (ret < 0 ? ret : -ENOMEM) : 0;
}

static int text_line(void *priv, enum report_line kind, const char *text, size_t len)
{
	struct rt_buf *out = priv;

	(void)kind;
	return rt_buf_append(out, text, len) | rt_buf_puts(out, "\n");
}

int report_text(const struct rt_result *res, struct rt_buf *out)
{
	return report_lines(res, text_line, out);
}
