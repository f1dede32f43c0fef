/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report_svg: the latency plot in the style OSADL publishes: 1 us buckets
 * on a linear x axis, the count of samples per bucket on a logarithmic y
 * axis (so a single sample far out in the tail stays visible), one line per
 * histogram, overlaid, with a legend. A bucket with no samples is drawn on
 * the x axis, below the "1" gridline, so the eye sees where the tail ends.
 *
 * Only histograms of a time unit are drawn, each scaled to microseconds.
 * The plot is cut at the last occupied bucket (plus a margin); overflows
 * beyond the histogram bound are named in the legend, not drawn.
 *
 * The work is bounded whatever the document holds, even one that never went
 * through the validator: the x axis is clipped to +-XLIM us, ticks and
 * decades are counted, not stepped until a bound is reached, every coordinate
 * is clamped into the picture before it is printed, and buckets that fall on
 * the same half pixel become one point (the highest count), so a polyline
 * has at most 2 * PW + 1 points however many buckets there are.
 */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_result.h"

#define W 900
#define H 500
#define ML 80	/* margins: left, right, top, bottom */
#define MR 20
#define MT 50
#define MB 60
#define PW (W - ML - MR)
#define PH (H - MT - MB)
#define XLIM 1e12	/* us: the widest x axis drawn (about 11 days) */
#define MAX_TICKS 24	/* x ticks; nice_step() aims at about 10 */
#define MAX_DECADES 20	/* y decades; a count below 2^64 has at most 20 */
#define MAX_LEGEND 16	/* histograms named in the legend; the rest are counted */

static const char *const colors[] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
				      "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22" };

double report_unit_us(const char *unit)
{
	if (!strcmp(unit, "us"))
		return 1;
	if (!strcmp(unit, "ns"))
		return 1e-3;
	if (!strcmp(unit, "ms"))
		return 1e3;
	if (!strcmp(unit, "s"))
		return 1e6;
	return 0;
}

/* @v limited to [@lo, @hi]; NaN becomes @lo. */
static double clampd(double v, double lo, double hi)
{
	if (!(v >= lo))
		return lo;
	return v > hi ? hi : v;
}

/*
 * A "nice" tick step (1, 2 or 5 times a power of ten) for about @n ticks over
 * @span, which is positive and finite.
 */
static double nice_step(double span, int n)
{
	double raw = span / n, p = pow(10, floor(log10(raw))), f = raw / p;
	double step = (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;

	return isfinite(step) && step > 0 ? step : span;
}

static double ypos(double count, double decades)
{
	if (count < 1)
		return MT + PH;
	return clampd(MT + PH - (log10(count) + 0.5) / (decades + 0.5) * PH, MT, MT + PH);
}

/* Picture x of @x us on an axis from @xmin spanning @span us. */
static double xpos(double x, double xmin, double span)
{
	return clampd(ML + (x - xmin) / span * PW, ML, ML + PW);
}

/* Lower edge of bucket @b of @h in us, or NAN when the document's numbers make none. */
static double edge_us(const struct rt_result_hist *h, double k, double b)
{
	double x = (h->first_bucket + b * h->bucket_width) * k;

	return isfinite(x) ? x : NAN;
}

/* One point of a polyline: buckets on the same half pixel merge. */
struct point {
	long slot;	/* half-pixel column, -1 for none yet */
	double px;
	double count;
};

static int point_flush(struct rt_buf *out, const struct point *p, double decades, bool *first)
{
	int ret;

	if (p->slot < 0)
		return 0;
	ret = rt_buf_printf(out, "%s%.1f,%.1f", *first ? "" : " ", p->px,
			    ypos(p->count, decades));
	*first = false;
	return ret;
}

/* The polyline of @h: one point per occupied half pixel, at most 2 * PW + 1. */
static int polyline(struct rt_buf *out, const struct rt_result_hist *h, double k, double xmin,
		    double xmax, double decades, const char *col)
{
	struct point p = { -1, 0, 0 };
	bool first = true;
	int ret;

	ret = rt_buf_printf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.2\" "
			    "points=\"", col);
	for (size_t b = 0; b < h->nbuckets; b++) {
		double x = edge_us(h, k, (double)b + 0.5), px;
		long slot;

		if (!(x >= xmin))
			continue;
		if (x > xmax)
			break;
		px = xpos(x, xmin, xmax - xmin);
		slot = lround((px - ML) * 2);
		if (slot == p.slot) {
			if ((double)h->counts[b] > p.count)
				p.count = (double)h->counts[b];
			continue;
		}
		ret |= point_flush(out, &p, decades, &first);
		p.slot = slot;
		p.px = px;
		p.count = (double)h->counts[b];
	}
	ret |= point_flush(out, &p, decades, &first);
	return ret | rt_buf_puts(out, "\"/>\n");
}

/* Text sizes and spacing: a report's, or a slide's to be read from the back of a hall. */
struct style {
	int fs, title_fs, line, legend_w, tick_dy, ytitle_x;
};

static const struct style report_style = { 12, 16, 16, 230, 18, 18 };
static const struct style slide_style = { 20, 22, 26, 640, 26, 20 };

static int draw(const struct rt_result *res, bool standalone, const struct style *st,
		struct rt_buf *out)
{
	size_t nh = rt_result_hist_count(res), n = 0;
	struct rt_result_hist *h = calloc(nh ? nh : 1, sizeof(*h));
	double xmin = 0, xmax = 0, cmax = 1, decades, step, span, x0;
	bool sim = rt_result_simulated(res);
	int ret = 0;

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < nh; i++) {
		double k;

		ret = rt_result_hist_get(res, i, &h[n]);
		if (ret == -ENOMEM)
			goto out;
		ret = 0;
		if (!h[n].unit)
			continue;	/* not a histogram: a document nobody validated */
		k = report_unit_us(h[n].unit);
		if (k == 0 || !(h[n].bucket_width > 0)) {
			rt_result_hist_fini(&h[n]);
			continue;
		}
		for (size_t b = 0; b < h[n].nbuckets; b++)
			if (h[n].counts[b]) {
				double lo = edge_us(&h[n], k, (double)b);
				double hi = edge_us(&h[n], k, (double)b + 1);

				if (lo < xmin)
					xmin = lo;
				if (hi > xmax)
					xmax = hi;
				if ((double)h[n].counts[b] > cmax)
					cmax = (double)h[n].counts[b];
			}
		n++;
	}
	if (n == 0) {
		ret = -ENODATA;
		goto out;
	}
	/* From 0 (or the lowest occupied edge) to the highest, plus 5 %, within +-XLIM. */
	xmin = floor(clampd(xmin, -XLIM, 0));
	xmax = clampd(xmax, 0, XLIM);
	if (xmax <= 0)
		xmax = 10;
	span = clampd(ceil((xmax - xmin) * 1.05), 1, 2 * XLIM);
	xmax = xmin + span;
	decades = clampd(ceil(log10(cmax)), 1, MAX_DECADES);

	if (standalone)
		ret |= rt_buf_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
				   "<svg xmlns=\"http://www.w3.org/2000/svg\"");
	else
		ret |= rt_buf_puts(out, "<svg");
	ret |= rt_buf_printf(out, " width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
			     "font-family=\"sans-serif\" font-size=\"%d\">\n", W, H, W, H, st->fs);
	ret |= rt_buf_printf(out, "<title>Latency histogram: lab %s, tier %s%s</title>\n",
			     rt_result_lab(res), rt_result_tier(res), sim ? " (simulated)" : "");
	ret |= rt_buf_printf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
			     "fill=\"white\"/>\n", W, H);
	if (st == &report_style)
		ret |= rt_buf_printf(out, "<text x=\"%d\" y=\"24\" font-size=\"16\">Latency "
				     "histogram, lab %s, tier %s, %s</text>\n", ML,
				     rt_result_lab(res), rt_result_tier(res), rt_result_created(res));
	else	/* no time stamp on a slide: the lab and where it ran */
		ret |= rt_buf_printf(out, "<text x=\"%d\" y=\"28\" font-size=\"%d\">Lab %s, "
				     "%s</text>\n", ML, st->title_fs, rt_result_lab(res),
				     sim ? "simulated" : !strcmp(rt_result_tier(res), "host") ?
				     "measured on a host" : "measured in a virtual machine");
	if (sim)
		ret |= rt_buf_printf(out, "<text x=\"%d\" y=\"%d\" font-size=\"40\" fill=\"#d62728\" "
				     "fill-opacity=\"0.35\" text-anchor=\"middle\">SIMULATED</text>\n",
				     ML + PW / 2, MT + PH / 2);

	/* Grid, ticks and labels: a counted loop, whatever the span. */
	step = nice_step(span, 10);
	x0 = ceil(xmin / step) * step;
	for (int t = 0; t <= MAX_TICKS; t++) {
		double x = x0 + t * step, px;

		if (x > xmax + step * 1e-9)
			break;
		if (fabs(x) < step * 1e-9)
			x = 0;	/* not "-1e-17" */
		px = xpos(x, xmin, span);
		ret |= rt_buf_printf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
				     "stroke=\"#ddd\"/><line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
				     "y2=\"%d\" stroke=\"black\"/><text x=\"%.1f\" y=\"%d\" "
				     "text-anchor=\"middle\">%g</text>\n", px, MT, px, MT + PH, px,
				     MT + PH, px, MT + PH + 5, px, MT + PH + st->tick_dy, x);
	}
	for (int d = 0; d <= (int)decades; d++) {
		double py = ypos(pow(10, d), decades);
		char lab[16];

		if (d < 4)
			snprintf(lab, sizeof(lab), "%d", (int)pow(10, d));
		else
			snprintf(lab, sizeof(lab), "1e%d", d);

		ret |= rt_buf_printf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
				     "stroke=\"#ddd\"/><line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
				     "y2=\"%.1f\" stroke=\"black\"/><text x=\"%d\" y=\"%.1f\" "
				     "text-anchor=\"end\">%s</text>\n", ML, py, ML + PW, py, ML - 5,
				     py, ML, py, ML - 8, py + st->fs / 3, lab);
	}
	ret |= rt_buf_printf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
			     "fill=\"none\" stroke=\"black\"/>\n", ML, MT, PW, PH);
	ret |= rt_buf_printf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">latency (us), "
			     "1 us buckets</text>\n", ML + PW / 2, H - 12);
	ret |= rt_buf_printf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
			     "transform=\"rotate(-90 %d %d)\">samples per bucket (log scale)"
			     "</text>\n", st->ytitle_x, MT + PH / 2, st->ytitle_x, MT + PH / 2);

	/* One polyline per histogram, then the legend (the first MAX_LEGEND). */
	for (size_t c = 0; c < n; c++) {
		double k = report_unit_us(h[c].unit);
		const char *col = colors[c % (sizeof(colors) / sizeof(colors[0]))];

		ret |= polyline(out, &h[c], k, xmin, xmax, decades, col);
		if (c >= MAX_LEGEND)
			continue;
		ret |= rt_buf_printf(out, "<line x1=\"%d\" y1=\"%zu\" x2=\"%d\" y2=\"%zu\" "
				     "stroke=\"%s\" stroke-width=\"3\"/><text x=\"%d\" y=\"%zu\">",
				     ML + PW - st->legend_w, MT + 15 + c * st->line,
				     ML + PW - st->legend_w + 25, MT + 15 + c * st->line, col,
				     ML + PW - st->legend_w + 30, MT + 15 + st->fs / 3 + c * st->line);
		if (st == &report_style)
			ret |= report_html_escape(out, h[c].name);
		else
			ret |= report_scenario_words(out, rt_result_lab(res), h[c].name);
		if (h[c].overflow_count)
			ret |= rt_buf_printf(out, " (%llu above %g us)",
					     (unsigned long long)h[c].overflow_count,
					     clampd(edge_us(&h[c], k, (double)h[c].nbuckets), -XLIM,
						    XLIM));
		ret |= rt_buf_puts(out, "</text>\n");
	}
	if (n > MAX_LEGEND)
		ret |= rt_buf_printf(out, "<text x=\"%d\" y=\"%d\">and %zu more</text>\n",
				     ML + PW - st->legend_w + 30,
				     MT + 15 + st->fs / 3 + MAX_LEGEND * st->line, n - MAX_LEGEND);
	ret |= rt_buf_puts(out, "</svg>\n");
	ret = ret ? -ENOMEM : 0;
out:
	for (size_t c = 0; c < n; c++)
		rt_result_hist_fini(&h[c]);
	free(h);
	return ret;
}

int report_svg(const struct rt_result *res, bool standalone, struct rt_buf *out)
{
	return draw(res, standalone, &report_style, out);
}

int report_svg_slide(const struct rt_result *res, struct rt_buf *out)
{
	return draw(res, false, &slide_style, out);
}
