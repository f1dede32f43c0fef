/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_slides: the deck presenter's model and drawing. A slide's body and its
 * notes are parsed and laid out with the lesson reader's layout when the
 * slide or the width changes, so wrapping, styles and the '?' for
 * unprintable characters are exactly the reader's. A plot's figures are read
 * once per slide from its results document; a document that cannot be read
 * says why in the plot box.
 */
#include "ui_slides.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_result.h"
#include "core/rt_time.h"
#include "labs/lab.h"
#include "lesson/lesson_doc.h"
#include "lesson/slides.h"
#include "ui_frame.h"
#include "ui_reader.h"
#include "ui_text.h"
#include "ui_theme.h"

#define TOP 6		/* first body row: bar, blank, three banner rows, blank */
#define BANNER 2	/* first banner row */

struct ui_slides {
	const struct slides_deck *deck;
	const char *class_dir;
	size_t cur;
	uint64_t t0_ms;
	bool notes;
	size_t scroll;			/* first body (or notes) line shown */
	char typed[8];			/* a slide number being typed */
	/* The current slide's layout: rebuilt when cur, notes or width change. */
	struct lesson_doc *doc;
	struct lesson_layout *lay;
	size_t lay_slide;
	bool lay_notes;
	unsigned int lay_width;
	char *plot_info[2];		/* file line, figures line */
	size_t plot_slide;
};

struct ui_slides *ui_slides_new(const struct slides_deck *deck, const char *class_dir)
{
	struct ui_slides *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->deck = deck;
	p->class_dir = class_dir;
	p->t0_ms = rt_time_now_ms();
	p->lay_slide = p->plot_slide = (size_t)-1;
	return p;
}

static void drop_layout(struct ui_slides *p)
{
	lesson_layout_free(p->lay);
	lesson_doc_free(p->doc);
	p->lay = NULL;
	p->doc = NULL;
	p->lay_slide = (size_t)-1;
}

static void drop_plot(struct ui_slides *p)
{
	free(p->plot_info[0]);
	free(p->plot_info[1]);
	p->plot_info[0] = p->plot_info[1] = NULL;
	p->plot_slide = (size_t)-1;
}

void ui_slides_free(struct ui_slides *p)
{
	if (!p)
		return;
	drop_layout(p);
	drop_plot(p);
	free(p);
}

/* Lay out the current slide's body or notes at @width; NULL layout on failure. */
static void ensure_layout(struct ui_slides *p, unsigned int width)
{
	const struct slide *s = &p->deck->slides[p->cur];
	const char *md = p->notes ? (s->notes ? s->notes : "*No notes for this slide.*\n") :
		s->body;
	char *cause = NULL;

	if (p->lay && p->lay_slide == p->cur && p->lay_notes == p->notes && p->lay_width == width)
		return;
	drop_layout(p);
	if (lesson_doc_parse(md, strlen(md), p->deck->name, &p->doc, &cause) == 0 &&
	    lesson_doc_layout(p->doc, width, &p->lay) == 0) {
		p->lay_slide = p->cur;
		p->lay_notes = p->notes;
		p->lay_width = width;
	}
	free(cause);
}

/* The file and figures lines of the current slide's plot. */
static void ensure_plot(struct ui_slides *p)
{
	const struct slides_plot *pl = p->deck->slides[p->cur].plot;
	struct rt_result *res = NULL;
	struct rt_buf a = RT_BUF_INIT, b = RT_BUF_INIT;
	char *shown = NULL, *cause = NULL;
	static const char *const keys[] = { "samples_count", "p99_us", "max_us" };
	int ret;
	static const char *const names[] = { "samples", "p99", "max" };

	if (!pl || p->plot_slide == p->cur)
		return;
	drop_plot(p);
	p->plot_slide = p->cur;
	ret = slides_plot_read(p->deck, pl, p->class_dir, &(struct rt_result_opts){ lab_names() },
			       &res, &shown, &cause);
	if (ret == -ENOENT && pl->in_class && !p->class_dir && !pl->sample) {
		rt_buf_printf(&a, "class:%s (no --class DIR given)", pl->results);
		rt_buf_puts(&b, "rtlab slides --class DIR shows the class's figures");
	} else if (shown) {
		if (pl->in_class && p->class_dir)
			rt_buf_printf(&a, "class:%s in %s", pl->results, p->class_dir);
		else if (pl->in_class)
			rt_buf_printf(&a, "%s (a sample: --class DIR shows the class's)", pl->sample);
		else
			rt_buf_puts(&a, pl->results);
		if (ret) {
			rt_buf_printf(&b, "cannot draw it: %s", cause ? cause : "unreadable");
		} else {
			rt_buf_printf(&b, "%s%s", rt_result_lab(res),
				      rt_result_simulated(res) ? " (SIMULATED)" : "");
			for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
				double v;

				if (rt_result_summary_get(res, keys[i], &v) == 0)
					rt_buf_printf(&b, ", %s %g%s", names[i], v, i ? " us" : "");
			}
		}
	}
	p->plot_info[0] = rt_buf_take(&a);
	p->plot_info[1] = rt_buf_take(&b);
	rt_result_free(res);
	free(shown);
	free(cause);
}

/* The heading without Markdown's code and emphasis marks. */
static void plain_title(const char *md, char *buf, size_t size)
{
	size_t n = 0;

	for (; *md && n + 1 < size; md++)
		if (*md != '`' && *md != '*')
			buf[n++] = *md;
	buf[n] = '\0';
}

static bool ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return false;
	return true;
}

/* Three rows of title colour with the heading in the middle, spaced out when it fits. */
static void draw_banner(struct ui_slides *p, WINDOW *win, int y, int cols)
{
	const struct slide *s = &p->deck->slides[p->cur];
	char title[256], wide[512];
	const char *show = title;
	int w;

	plain_title(s->title, title, sizeof(title));
	if (ascii(title) && 2 * (int)strlen(title) - 1 <= cols - 4) {
		size_t n = 0;

		for (const char *c = title; *c; c++) {
			wide[n++] = (char)toupper((unsigned char)*c);
			if (c[1])
				wide[n++] = ' ';
		}
		wide[n] = '\0';
		show = wide;
	}
	for (int r = 0; r < 3; r++)
		ui_frame_bar(win, y + r, 0, cols, UI_ROLE_TITLE);
	w = ui_text_width(show);
	if (w > cols - 4)
		w = cols - 4;
	ui_frame_put(win, y + 1, (cols - w) / 2, show, cols - 4, UI_ROLE_TITLE);
}

void ui_slides_draw(struct ui_slides *p, WINDOW *win, int h, int cols)
{
	const struct slides_deck *d = p->deck;
	const struct slide *s = &d->slides[p->cur];
	static const char *const keys[] = { "space", "next", "b", "back", "NN g", "go to",
					    "n", "notes", "q", "quit" };
	uint64_t secs = (rt_time_now_ms() - p->t0_ms) / 1000;
	int rows = h - TOP - 2, row = TOP, width = cols - 4;
	char right[64];
	size_t first, shown = 0, total;

	/* The bar: deck title, slide N/M, a number being typed, elapsed mm:ss. */
	ui_frame_bar(win, 0, 0, cols, UI_ROLE_TITLE);
	snprintf(right, sizeof(right), "%s%s%s slide %zu/%zu  %02u:%02u ",
		 p->typed[0] ? "go to " : "", p->typed, p->typed[0] ? "_ " : "", p->cur + 1,
		 d->nslides, (unsigned int)(secs / 60 % 1000), (unsigned int)(secs % 60));
	ui_frame_put(win, 0, 1, d->title, cols - (int)strlen(right) - 2, UI_ROLE_TITLE);
	ui_frame_put(win, 0, cols - (int)strlen(right), right, (int)strlen(right), UI_ROLE_TITLE);

	draw_banner(p, win, s->level == 1 && !p->notes ? h / 2 - 4 : BANNER, cols);
	if (s->level == 1 && !p->notes)
		row = h / 2;

	ensure_layout(p, (unsigned int)width);
	if (p->notes)
		ui_frame_put(win, row - 1, 2, "Speaker notes", width, UI_ROLE_DIM);
	total = p->lay ? p->lay->nlines : 0;
	while (total && p->lay->lines[total - 1].kind == LESSON_LINE_BLANK)
		total--;
	if (p->scroll >= total)
		p->scroll = total ? total - 1 : 0;
	first = p->scroll;
	for (size_t l = first; l < total && row < h - 2; l++, row++, shown++)
		ui_reader_put_line(win, row, 2, &p->lay->lines[l], NULL, 0);
	if (first || first + shown < total)
		ui_frame_put(win, h - 2, cols - 18, first + shown < total ? "more: down arrow" :
			     "top: up arrow", 17, UI_ROLE_DIM);

	if (s->plot && !p->notes && row + SLIDES_PLOT_ROWS <= h - 1 && rows > 0) {
		ensure_plot(p);
		row += row > TOP ? 1 : 0;
		ui_frame_draw(win, row, 2, 4, width, s->plot->caption ? s->plot->caption : "plot");
		ui_frame_put(win, row + 1, 4, p->plot_info[0] ? p->plot_info[0] : "", width - 4,
			     UI_ROLE_NORMAL);
		ui_frame_put(win, row + 2, 4, p->plot_info[1] ? p->plot_info[1] : "", width - 4,
			     UI_ROLE_DIM);
	}
	ui_frame_footer(win, h - 1, 0, cols, keys, sizeof(keys) / sizeof(keys[0]));
}

static void go(struct ui_slides *p, long k)
{
	long last = (long)p->deck->nslides - 1;

	if (k < 0)
		k = 0;
	if (k > last)
		k = last;
	if ((size_t)k != p->cur) {
		p->cur = (size_t)k;
		p->scroll = 0;
	}
}

bool ui_slides_key(struct ui_slides *p, int key)
{
	size_t n = strlen(p->typed);

	if (key >= '0' && key <= '9') {
		if (n + 1 < sizeof(p->typed) && n < 3) {
			p->typed[n] = (char)key;
			p->typed[n + 1] = '\0';
		}
		return false;
	}
	if (n && (key == 'g' || key == '\n' || key == '\r' || key == KEY_ENTER)) {
		go(p, atol(p->typed) - 1);
		p->typed[0] = '\0';
		return false;
	}
	p->typed[0] = '\0';
	switch (key) {
	case 'q':
		return true;
	case ' ':
	case KEY_RIGHT:
	case KEY_NPAGE:
	case 'l':
	case '\n':
	case '\r':
	case KEY_ENTER:
		go(p, (long)p->cur + 1);
		break;
	case 'b':
	case KEY_LEFT:
	case KEY_PPAGE:
	case KEY_BACKSPACE:
	case 127:
	case 'h':
		go(p, (long)p->cur - 1);
		break;
	case 'g':
	case KEY_HOME:
		go(p, 0);
		break;
	case 'G':
	case KEY_END:
		go(p, (long)p->deck->nslides - 1);
		break;
	case 'n':
		p->notes = !p->notes;
		p->scroll = 0;
		break;
	case KEY_DOWN:
	case 'j':
		p->scroll++;
		break;
	case KEY_UP:
	case 'k':
		if (p->scroll)
			p->scroll--;
		break;
	default:
		break;
	}
	return false;
}
