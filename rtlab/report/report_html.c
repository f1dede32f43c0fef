/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report_html: one HTML page that needs nothing else: CSS and the SVG plot
 * are inline, and there is no script, font, image or link to fetch, so it
 * can be mailed, archived or opened offline years later. Every string from
 * the document is escaped, since a results file may come from anywhere.
 */
#include "report.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_hist.h"
#include "core/rt_result.h"
#include "core/rt_text.h"

/*
 * HTML-escape @s. Control characters (and bytes that are not UTF-8) become
 * rt_text's visible escapes ("\x1b"): HTML has no way to write most of them,
 * and a browser would show nothing or a box.
 */
static int esc(struct rt_buf *out, const char *s)
{
	char ctl[RT_TEXT_ESC_MAX];
	size_t n = s ? strlen(s) : 0, k;
	int ret = 0;

	for (; n && !ret; s += k, n -= k) {
		k = rt_text_char(s, n, RT_TEXT_KEEP_NL, ctl, NULL);
		if (ctl[0]) {
			ret = rt_buf_puts(out, ctl);
			continue;
		}
		if (k > 1) {
			ret = rt_buf_append(out, s, k);
			continue;
		}
		switch (*s) {
		case '&':
			ret = rt_buf_puts(out, "&amp;");
			break;
		case '<':
			ret = rt_buf_puts(out, "&lt;");
			break;
		case '>':
			ret = rt_buf_puts(out, "&gt;");
			break;
		case '"':
			ret = rt_buf_puts(out, "&quot;");
			break;
		case '\'':
			ret = rt_buf_puts(out, "&#39;");
			break;
		default:
			ret = rt_buf_append(out, s, 1);
		}
	}
	return ret;
}

int report_html_escape(struct rt_buf *out, const char *s)
{
	return esc(out, s);
}

/* A JSON scalar as text, escaped. */
static int value(struct rt_buf *out, const json_t *v)
{
	char *s;
	int ret;

	if (!v)
		return rt_buf_puts(out, "-");
	s = rt_result_value_text(v);
	if (!s)
		return -ENOMEM;
	ret = esc(out, s);
	free(s);
	return ret;
}

static int kv_row(const char *key, const json_t *v, void *priv)
{
	struct rt_buf *out = priv;
	int ret = rt_buf_puts(out, "<tr><th>");

	ret |= esc(out, key);
	ret |= rt_buf_puts(out, "</th><td>");
	ret |= value(out, v);
	return ret | rt_buf_puts(out, "</td></tr>\n");
}

static int kv_table(struct rt_buf *out, const char *title, const struct rt_result *res,
		    enum rt_result_part part)
{
	int ret = rt_buf_printf(out, "<h2>%s</h2>\n<table>\n", title);

	ret |= rt_result_foreach(res, part, kv_row, out);
	return ret | rt_buf_puts(out, "</table>\n");
}

static int hist_table(struct rt_buf *out, const struct rt_result *res)
{
	static const unsigned int q[] = { 500000, 900000, 990000, 999000, 999900 };
	static const char *const qn[] = { "p50", "p90", "p99", "p99.9", "p99.99" };
	size_t nh = rt_result_hist_count(res);
	int ret = 0;

	if (!nh)
		return 0;
	ret |= rt_buf_puts(out, "<h2>Percentiles</h2>\n<table>\n<tr><th>histogram</th>"
			   "<th>unit</th><th>overflows</th>");
	for (size_t k = 0; k < 5; k++)
		ret |= rt_buf_printf(out, "<th>%s</th>", qn[k]);
	ret |= rt_buf_puts(out, "</tr>\n");
	for (size_t i = 0; i < nh && !ret; i++) {
		struct rt_result_hist h;
		int e = rt_result_hist_get(res, i, &h);

		if (e == -ENOMEM)
			return e;
		if (e)
			continue;	/* not a histogram: a document nobody validated */
		ret |= rt_buf_puts(out, "<tr><td>");
		ret |= esc(out, h.name);
		ret |= rt_buf_puts(out, "</td><td>");
		ret |= esc(out, h.unit);
		ret |= rt_buf_printf(out, "</td><td>%llu</td>", (unsigned long long)h.overflow_count);
		for (size_t k = 0; k < 5; k++) {
			double v, r;
			int pe = rt_result_hist_percentile(&h, q[k], &v, &r);

			if (pe == -ERANGE)
				ret |= rt_buf_printf(out, "<td>beyond %g</td>", v);
			else if (pe)
				ret |= rt_buf_puts(out, "<td>-</td>");
			else if (r > h.bucket_width)
				ret |= rt_buf_printf(out, "<td>%g (res. %g)</td>", v, r);
			else
				ret |= rt_buf_printf(out, "<td>%g</td>", v);
		}
		ret |= rt_buf_puts(out, "</tr>\n");
		rt_result_hist_fini(&h);
	}
	return ret | rt_buf_puts(out, "</table>\n");
}

/* The lab's views (rtlab.result/2): one table each, columns titled with their unit. */
static int views(struct rt_buf *out, const json_t *list)
{
	int ret = 0;

	for (size_t i = 0; i < rt_result_views_count(list); i++) {
		const json_t *view = rt_result_views_at(list, i);

		ret |= rt_buf_puts(out, "<h2>");
		ret |= esc(out, rt_result_view_title(view));
		ret |= rt_buf_puts(out, "</h2>\n<table>\n<tr>");
		for (size_t k = 0; k < rt_result_view_ncolumns(view); k++) {
			struct rt_result_column col;

			rt_result_view_column(view, k, &col);
			ret |= rt_buf_puts(out, "<th>");
			ret |= esc(out, col.title ? col.title : col.name);
			if (col.unit) {
				ret |= rt_buf_puts(out, " (");
				ret |= esc(out, col.unit);
				ret |= rt_buf_puts(out, ")");
			}
			ret |= rt_buf_puts(out, "</th>");
		}
		ret |= rt_buf_puts(out, "</tr>\n");
		for (size_t k = 0; k < rt_result_view_nrows(view); k++) {
			ret |= rt_buf_puts(out, "<tr>");
			for (size_t c = 0; c < rt_result_view_row_cells(view, k); c++) {
				const json_t *cell = rt_result_view_cell(view, k, c);
				const char *text = rt_result_value_str(cell);
				/* A percentile on too few samples is drawn weak, as on screen. */
				bool few = text && strstr(text, RT_HIST_FEW_MARK);

				ret |= rt_buf_puts(out, few ? "<td class=\"weak\">" : "<td>");
				ret |= json_is_null(cell) ? rt_buf_puts(out, "-") : value(out, cell);
				ret |= rt_buf_puts(out, "</td>");
			}
			ret |= rt_buf_puts(out, "</tr>\n");
		}
		ret |= rt_buf_puts(out, "</table>\n");
	}
	return ret;
}

int report_html(const struct rt_result *res, struct rt_buf *out)
{
	json_t *list = NULL;
	char *cause = NULL;
	size_t nscen;
	int ret = 0, r;

	ret |= rt_buf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
			   "<meta charset=\"utf-8\">\n<title>rtlab ");
	ret |= esc(out, rt_result_lab(res));
	ret |= rt_buf_puts(out, " report</title>\n<style>\n"
			   "body{font-family:sans-serif;margin:2em;max-width:70em}\n"
			   "table{border-collapse:collapse;margin-bottom:1em}\n"
			   "th,td{border:1px solid #bbb;padding:2px 8px;text-align:left}\n"
			   "th{background:#eee}\n.weak{color:#999;font-style:italic}\n"
			   ".sim{color:#d62728;font-weight:bold}\n.small{font-size:90%}\n"
			   "</style>\n</head>\n<body>\n<h1>rtlab: ");
	ret |= esc(out, rt_result_lab(res));
	ret |= rt_buf_puts(out, " lab</h1>\n<p>Tier <b>");
	ret |= esc(out, rt_result_tier(res));
	ret |= rt_buf_puts(out, "</b>, created ");
	ret |= esc(out, rt_result_created(res));
	ret |= rt_buf_puts(out, ", rtlab ");
	ret |= esc(out, rt_result_rtlab_version(res));
	ret |= rt_buf_puts(out, ".</p>\n");
	if (rt_result_simulated(res))
		ret |= rt_buf_puts(out, "<p class=\"sim\">SIMULATED: these numbers come from a "
				   "model, not from this machine.</p>\n");
	if (rt_result_note_count(res)) {
		ret |= rt_buf_puts(out, "<h2>Notes</h2>\n<ul>\n");
		for (size_t i = 0; i < rt_result_note_count(res); i++) {
			ret |= rt_buf_puts(out, "<li>");
			ret |= esc(out, rt_result_note(res, i));
			ret |= rt_buf_puts(out, "</li>\n");
		}
		ret |= rt_buf_puts(out, "</ul>\n");
	}
	ret |= rt_buf_puts(out, "<h2>Latency plot</h2>\n");
	r = report_svg(res, false, out);
	if (r == -ENODATA)
		ret |= rt_buf_puts(out, "<p>No histogram in this document.</p>\n");
	else
		ret |= r;
	nscen = rt_result_scenario_count(res);
	/* One scenario: its summary first. Several: the per-scenario tables first. */
	if (nscen <= 1)
		ret |= kv_table(out, "Summary", res, RT_RESULT_SUMMARY);
	ret |= hist_table(out, res);
	r = report_views(res, NULL, &list, &cause);
	if (r == -ENOMEM) {
		ret |= r;
	} else if (r) {
		ret |= rt_buf_puts(out, "<p>The lab could not describe this document: ");
		ret |= esc(out, cause);
		ret |= rt_buf_puts(out, "</p>\n");
	}
	free(cause);
	ret |= views(out, list);
	json_decref(list);
	if (nscen > 1) {
		char title[160];

		/* A merged average or p99 mixes scenarios that were run to be compared. */
		snprintf(title, sizeof(title), "Summary of all %zu scenarios merged (compare "
			 "them in the tables above, not here)", nscen);
		ret |= kv_table(out, title, res, RT_RESULT_SUMMARY);
	}
	ret |= kv_table(out, "Environment", res, RT_RESULT_ENV);
	ret |= kv_table(out, "Parameters", res, RT_RESULT_PARAMS);
	ret |= kv_table(out, "Answers", res, RT_RESULT_ANSWERS);
	ret |= rt_buf_puts(out, "</body>\n</html>\n");
	return ret ? -ENOMEM : 0;
}
