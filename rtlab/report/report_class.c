/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report_class: a class's runs of one lab, for the plot slides of a deck
 * exported with --class DIR. The folder is read in the two layouts class
 * grading reads (doc/grading.md): DIR/<student>/<lab>/results.json, and the
 * flat DIR/<student>/results.json of one graded exercise (kept when its
 * "lab" is the one asked for). Every file is opened below DIR by
 * rt_file_load_beneath(): no "..", and no symbolic link is followed, not
 * even a student folder that is one, so nothing outside DIR is read and no
 * message names a host path.
 *
 * The picture is made to be read from the back of a lecture hall: one band
 * per scenario, named by the lab's scenario summary, and in each band one
 * thin strip per run from its median to its 99th percentile with a dot at
 * its maximum, sorted by the 99th percentile, on a logarithmic latency axis
 * shared by the bands; the class's median of the 99th percentiles is a bar
 * across the band with its value. Text is at least 20 units high in a
 * 1200-unit-wide picture that the deck draws about as wide as the screen.
 * Runs are anonymous unless names are asked for.
 */
#include "report.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_err.h"
#include "core/rt_file.h"
#include "core/rt_result.h"
#include "labs/lab.h"

#define CW 1200		/* the picture, in user units */
#define CH 640
#define CML 24		/* margins: left, right, top, bottom */
#define CMR 24
#define CMT 44
#define CMB 78
#define CFONT 22	/* every text: 22 units, 18 px or more at 1000 px wide */
#define MAX_BANDS 6	/* scenarios drawn; the rest are counted */
#define WORDS_MAX 40	/* characters of a scenario's words */

/* ---- Reading the class --------------------------------------------------- */

static int run_cmp(const void *a, const void *b)
{
	return strcmp(((const struct report_class_run *)a)->who,
		      ((const struct report_class_run *)b)->who);
}

/* Read DIR/@rel into @cls when it is a results document of @cls->lab. */
static int take(struct report_class *cls, const char *dir, const char *who, const char *rel,
		const struct rt_result_opts *opts, size_t *cap)
{
	struct rt_result *res = NULL;
	char *text = NULL, *cause = NULL, *shown = NULL;
	size_t len = 0;
	int ret;

	ret = rt_file_load_beneath(dir, rel, RT_RESULT_MAX_FILE, &text, &len, NULL);
	if (ret)
		return ret;
	if (asprintf(&shown, "class:%s", rel) < 0) {
		free(text);
		return -ENOMEM;
	}
	ret = rt_result_parse(text, len, shown, opts, &res, &cause);
	free(text);
	free(shown);
	free(cause);
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		cls->unreadable++;
		return 0;
	}
	if (strcmp(rt_result_lab(res), cls->lab)) {
		rt_result_free(res);
		return -ENOENT;
	}
	if (cls->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 32;
		struct report_class_run *r = realloc(cls->runs, ncap * sizeof(*r));

		if (!r) {
			rt_result_free(res);
			return -ENOMEM;
		}
		cls->runs = r;
		*cap = ncap;
	}
	cls->runs[cls->n].who = strdup(who);
	cls->runs[cls->n].res = res;
	if (!cls->runs[cls->n].who) {
		rt_result_free(res);
		return -ENOMEM;
	}
	cls->n++;
	return 0;
}

int report_class_read(const char *dir, const char *lab, const struct rt_result_opts *opts,
		      struct report_class *cls, char **cause)
{
	struct dirent *e;
	size_t cap = 0;
	DIR *d;
	int ret = 0;

	memset(cls, 0, sizeof(*cls));
	cls->lab = strdup(lab);
	if (!cls->lab)
		return rt_err(cause, -ENOMEM, "out of memory");
	d = opendir(dir);
	if (!d) {
		ret = -errno;
		report_class_fini(cls);
		return rt_err(cause, ret, "cannot read the class folder: %s", strerror(-ret));
	}
	while (!ret && (e = readdir(d))) {
		char *rel = NULL;

		if (e->d_name[0] == '.' || strchr(e->d_name, '\n'))
			continue;
		if (e->d_type == DT_LNK) {
			cls->links++;
			continue;
		}
		if (asprintf(&rel, "%s/%s/results.json", e->d_name, lab) < 0) {
			ret = -ENOMEM;
			break;
		}
		ret = take(cls, dir, e->d_name, rel, opts, &cap);
		free(rel);
		if (ret == -ENOENT || ret == -ENOTDIR) {
			if (asprintf(&rel, "%s/results.json", e->d_name) < 0) {
				ret = -ENOMEM;
				break;
			}
			ret = take(cls, dir, e->d_name, rel, opts, &cap);
			free(rel);
		}
		if (ret == -ELOOP)
			cls->links++;
		if (ret != -ENOMEM)
			ret = 0;
	}
	closedir(d);
	if (ret) {
		report_class_fini(cls);
		return rt_err(cause, ret, "out of memory");
	}
	if (cls->n > 1)
		qsort(cls->runs, cls->n, sizeof(*cls->runs), run_cmp);
	return 0;
}

void report_class_fini(struct report_class *cls)
{
	for (size_t i = 0; i < cls->n; i++) {
		free(cls->runs[i].who);
		rt_result_free(cls->runs[i].res);
	}
	free(cls->runs);
	free(cls->lab);
	memset(cls, 0, sizeof(*cls));
}

/* ---- Figures of one run -------------------------------------------------- */

struct strip {
	size_t run;		/* index into the class */
	double p50, p99, max;	/* us */
};

struct band {
	char *name;		/* owned; the histogram's name */
	struct strip *s;	/* owned */
	size_t n;
	double median_p99;
};

/* The median, 99th percentile and maximum of @h in us; false when it has no sample. */
static bool strip_of(const struct rt_result_hist *h, struct strip *s)
{
	double k = report_unit_us(h->unit), res, top = -1;

	if (k == 0 || !(h->bucket_width > 0))
		return false;
	if (rt_result_hist_percentile(h, 500000, &s->p50, &res) < 0 && !s->p50)
		return false;
	if (rt_result_hist_percentile(h, 990000, &s->p99, &res) < 0 && !s->p99)
		return false;
	for (size_t b = h->nbuckets; b-- > 0;)
		if (h->counts[b]) {
			top = h->first_bucket + (double)(b + 1) * h->bucket_width;
			break;
		}
	if (h->overflow_count || top < 0)
		top = h->first_bucket + (double)h->nbuckets * h->bucket_width;
	s->p50 *= k;
	s->p99 *= k;
	s->max = top * k;
	return isfinite(s->p50) && isfinite(s->p99) && isfinite(s->max);
}

static int strip_cmp(const void *a, const void *b)
{
	double x = ((const struct strip *)a)->p99, y = ((const struct strip *)b)->p99;

	return (x > y) - (x < y);
}

static void bands_free(struct band *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(b[i].name);
		free(b[i].s);
	}
	free(b);
}

/* The band of histogram @name, added when new; NULL when out of memory. */
static struct band *band_of(struct band **b, size_t *n, const char *name, size_t nruns)
{
	struct band *nb;

	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*b)[i].name, name))
			return &(*b)[i];
	nb = realloc(*b, (*n + 1) * sizeof(*nb));
	if (!nb)
		return NULL;
	*b = nb;
	nb = &nb[*n];
	memset(nb, 0, sizeof(*nb));
	nb->name = strdup(name);
	nb->s = calloc(nruns, sizeof(*nb->s));
	if (!nb->name || !nb->s) {
		free(nb->name);
		free(nb->s);
		return NULL;
	}
	(*n)++;
	return nb;
}

static int make_bands(const struct report_class *cls, struct band **out, size_t *nout)
{
	struct band *b = NULL;
	size_t n = 0;

	for (size_t r = 0; r < cls->n; r++) {
		const struct rt_result *res = cls->runs[r].res;

		for (size_t i = 0; i < rt_result_hist_count(res); i++) {
			struct rt_result_hist h;
			struct strip s = { .run = r };
			struct band *bd;
			bool ok;

			if (rt_result_hist_get(res, i, &h))
				continue;
			ok = h.unit && strip_of(&h, &s);
			bd = ok ? band_of(&b, &n, h.name, cls->n) : NULL;
			rt_result_hist_fini(&h);
			if (ok && !bd) {
				bands_free(b, n);
				return -ENOMEM;
			}
			if (bd)
				bd->s[bd->n++] = s;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct band *bd = &b[i];

		qsort(bd->s, bd->n, sizeof(*bd->s), strip_cmp);
		bd->median_p99 = bd->n % 2 ? bd->s[bd->n / 2].p99 :
			(bd->s[bd->n / 2 - 1].p99 + bd->s[bd->n / 2].p99) / 2;
	}
	*out = b;
	*nout = n;
	return n ? 0 : -ENODATA;
}

/* ---- Drawing ------------------------------------------------------------- */

/* @us as a person reads it: "850 us", "1.2 ms", "3 s". */
static void fmt_us(char *buf, size_t size, double us)
{
	if (us < 1000)
		snprintf(buf, size, "%.3g us", us);
	else if (us < 1e6)
		snprintf(buf, size, "%.3g ms", us / 1e3);
	else
		snprintf(buf, size, "%.3g s", us / 1e6);
}

int report_scenario_words(struct rt_buf *out, const char *lab, const char *hist)
{
	const struct lab_ops *ops = lab_find(lab);
	size_t n = strlen(hist);
	struct lab_scenario sc;
	const char *dot = strrchr(hist, '.');
	int ret = 0;

	if (dot && !strcmp(dot, ".latency"))
		n = (size_t)(dot - hist);	/* "mixed-flush.latency": scenario mixed-flush */
	for (size_t i = 0; ops && ops->scenario && ops->scenario(i, &sc); i++)
		if (strlen(sc.name) == n && !strncmp(sc.name, hist, n)) {
			/* "SCHED_OTHER on an idle machine: the everyday baseline": the head. */
			const char *colon = strchr(sc.summary, ':');
			size_t len = colon ? (size_t)(colon - sc.summary) : strlen(sc.summary);
			bool cut = len > WORDS_MAX;
			char *head;

			/* A legend line stays on the picture: cut at a space, and say so. */
			while (len > WORDS_MAX || (cut && len && sc.summary[len] != ' '))
				len--;
			head = strndup(sc.summary, len);
			ret = head ? report_html_escape(out, head) : -ENOMEM;
			ret |= cut ? rt_buf_puts(out, "\u2026") : 0;
			free(head);
			return ret;
		}
	for (size_t i = 0; i < n && !ret; i++) {
		char c = hist[i] == '-' || hist[i] == '_' || hist[i] == '.' ? ' ' : hist[i];
		char s[2] = { i ? c : (char)(c >= 'a' && c <= 'z' ? c - 32 : c), 0 };

		ret = report_html_escape(out, s);
	}
	return ret;
}

struct axis {
	double lo, hi;	/* log10 of us */
};

static double cx(const struct axis *a, double us)
{
	double l = log10(us > 0.01 ? us : 0.01), x;

	x = CML + (l - a->lo) / (a->hi - a->lo) * (CW - CML - CMR);
	return x < CML ? CML : x > CW - CMR ? CW - CMR : x;
}

/* Gridlines at 1, 2 and 5 times each power of ten in range (only 1 past three decades). */
static int draw_axis(struct rt_buf *out, const struct axis *a)
{
	static const double mult[] = { 1, 2, 5 };
	size_t nm = a->hi - a->lo > 3 ? 1 : 3;
	int ret = 0;

	for (int d = (int)floor(a->lo); d <= (int)ceil(a->hi) && d < 12; d++)
		for (size_t m = 0; m < nm; m++) {
			double v = mult[m] * pow(10, d), x = cx(a, v);
			const char *anchor = x < CML + 40 ? "start" :
					     x > CW - CMR - 40 ? "end" : "middle";
			char lab[24];

			if (log10(v) < a->lo || log10(v) > a->hi)
				continue;
			fmt_us(lab, sizeof(lab), v);
			ret |= rt_buf_printf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
					     "y2=\"%d\" stroke=\"#ccc\"/><text x=\"%.1f\" "
					     "y=\"%d\" text-anchor=\"%s\">%s</text>\n", x, CMT, x,
					     CH - CMB + 6, x, CH - CMB + 30, anchor, lab);
		}
	ret |= rt_buf_printf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">latency, log "
			     "scale: a line per run from median to 99th percentile, a dot at "
			     "the maximum</text>\n", CW / 2, CH - 14);
	return ret;
}

static int draw_band(struct rt_buf *out, const struct report_class *cls, const struct band *bd,
		     const struct axis *a, double top, double h, bool names)
{
	double lab_h = CFONT + 8, row = (h - lab_h - 6) / (double)bd->n, mx;
	double th = row * 0.6 < 2 ? 2 : row * 0.6 > 8 ? 8 : row * 0.6;
	char v[24];
	int ret;

	ret = rt_buf_printf(out, "<text class=\"band\" x=\"%d\" y=\"%.1f\" font-weight=\"bold\">",
			    CML, top + CFONT);
	ret |= report_scenario_words(out, cls->lab, bd->name);
	ret |= rt_buf_puts(out, "</text>\n");
	for (size_t i = 0; i < bd->n; i++) {
		const struct strip *s = &bd->s[i];
		double y = top + lab_h + (i + 0.5) * row;

		ret |= rt_buf_printf(out, "<g class=\"run\"><line x1=\"%.1f\" y1=\"%.1f\" "
				     "x2=\"%.1f\" y2=\"%.1f\" stroke=\"#1f77b4\" stroke-width=\"%.1f\" "
				     "stroke-linecap=\"round\"/><circle cx=\"%.1f\" cy=\"%.1f\" "
				     "r=\"%.1f\" fill=\"#d62728\"/>", cx(a, s->p50), y, cx(a, s->p99),
				     y, th, cx(a, s->max), y, th * 0.7 + 1.5);
		if (names) {
			ret |= rt_buf_puts(out, "<title>");
			ret |= report_html_escape(out, cls->runs[s->run].who);
			ret |= rt_buf_puts(out, "</title>");
			if (row >= CFONT) {
				ret |= rt_buf_printf(out, "<text x=\"%.1f\" y=\"%.1f\">",
						     cx(a, s->max) + 10, y + CFONT * 0.35);
				ret |= report_html_escape(out, cls->runs[s->run].who);
				ret |= rt_buf_puts(out, "</text>");
			}
		}
		ret |= rt_buf_puts(out, "</g>\n");
	}
	mx = cx(a, bd->median_p99);
	fmt_us(v, sizeof(v), bd->median_p99);
	ret |= rt_buf_printf(out, "<line class=\"median\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			     "y2=\"%.1f\" stroke=\"#111\" stroke-width=\"3\"/>\n<text x=\"%d\" "
			     "y=\"%.1f\" text-anchor=\"end\">class median of the 99th "
			     "percentiles: %s</text>\n", mx, top + lab_h - 4, mx, top + h - 4,
			     CW - CMR, top + CFONT, v);
	return ret;
}

int report_class_svg(const struct report_class *cls, bool names, struct rt_buf *out)
{
	struct band *b = NULL;
	struct axis a = { 99, -99 };
	size_t nb = 0, shown;
	bool sim = false;
	double bh;
	int ret;

	ret = make_bands(cls, &b, &nb);
	if (ret)
		return ret;
	for (size_t i = 0; i < cls->n; i++)
		sim |= rt_result_simulated(cls->runs[i].res);
	for (size_t i = 0; i < nb; i++)
		for (size_t k = 0; k < b[i].n; k++) {
			double lo = log10(b[i].s[k].p50 > 0.01 ? b[i].s[k].p50 : 0.01);
			double hi = log10(b[i].s[k].max > 0.01 ? b[i].s[k].max : 0.01);

			a.lo = lo < a.lo ? lo : a.lo;
			a.hi = hi > a.hi ? hi : a.hi;
		}
	/* A little room either side, and at least one decade. */
	a.lo -= 0.08;
	a.hi = a.hi + 0.08 > a.lo + 1 ? a.hi + 0.08 : a.lo + 1;
	shown = nb > MAX_BANDS ? MAX_BANDS : nb;
	bh = (double)(CH - CMT - CMB) / (double)shown;

	ret = rt_buf_printf(out, "<svg class=\"class-plot\" width=\"%d\" height=\"%d\" "
			    "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" "
			    "font-size=\"%d\">\n<title>", CW, CH, CW, CH, CFONT);
	ret |= rt_buf_printf(out, "Lab %s: %zu run%s of the class</title>\n", cls->lab, cls->n,
			     cls->n == 1 ? "" : "s");
	ret |= rt_buf_printf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
			     "fill=\"white\"/>\n", CW, CH);
	ret |= rt_buf_printf(out, "<text x=\"%d\" y=\"%d\">%zu run%s of lab %s%s%s</text>\n",
			     CML, CFONT + 6, cls->n, cls->n == 1 ? "" : "s", cls->lab,
			     names ? "" : ", anonymous", sim ? ", simulated" : "");
	if (sim)
		ret |= rt_buf_printf(out, "<text x=\"%d\" y=\"%d\" font-size=\"64\" "
				     "fill=\"#d62728\" fill-opacity=\"0.2\" text-anchor=\"middle\">"
				     "SIMULATED</text>\n", CW / 2, CH / 2);
	ret |= draw_axis(out, &a);
	for (size_t i = 0; i < shown; i++)
		ret |= draw_band(out, cls, &b[i], &a, CMT + i * bh, bh, names);
	if (nb > shown)
		ret |= rt_buf_printf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">and %zu "
				     "more scenarios</text>\n", CW - CMR, CFONT + 6, nb - shown);
	ret |= rt_buf_puts(out, "</svg>\n");
	bands_free(b, nb);
	return ret ? -ENOMEM : 0;
}
