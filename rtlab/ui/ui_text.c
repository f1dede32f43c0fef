/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_text: the UTF-8 is decoded by rt_text_char() rather than with mbrtowc,
 * so that a control character is drawn exactly as the CLI prints it
 * ("\x1b"), and every width comes from rt_utf8, as the lesson layout's
 * widths do, so the same bytes take the same columns in any locale and
 * the pager's highlights fall on their words. glibc's wchar_t is always a
 * Unicode code point; drawing goes through the wide-character curses calls
 * of ncursesw. In a locale that is not UTF-8 the terminal cannot show a
 * non-ASCII character, so it is drawn as as many '?' as it has columns.
 */
#include "ui_text.h"

#include <langinfo.h>
#include <string.h>
#include <wchar.h>

#include "core/rt_text.h"
#include "core/rt_utf8.h"

static bool text_utf8;

void ui_text_init(void)
{
	const char *cs = nl_langinfo(CODESET);

	text_utf8 = cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
}

bool ui_text_utf8(void)
{
	return text_utf8;
}

const char *ui_text_glyph(const char *utf8, const char *ascii)
{
	return text_utf8 ? utf8 : ascii;
}

/* One character as drawn: the character itself, its escape or '?'s (one cell per char). */
struct glyph {
	wchar_t wc[RT_TEXT_ESC_MAX];
	int n;		/* cells in wc */
	int w;		/* display columns */
};

/*
 * Decode one character at @s (@n bytes left). Returns the bytes it takes
 * (at least 1). A control character or a byte that is not UTF-8 is drawn
 * as rt_text's escape ("\x1b"), so it is visible and cannot reach the
 * terminal; one that rt_utf8 calls unprintable is drawn as '?', and one the
 * locale cannot show as '?' in each of its columns (none for a combining
 * mark).
 */
static size_t decode(const char *s, size_t n, struct glyph *g)
{
	char esc[RT_TEXT_ESC_MAX];
	unsigned int cp;
	size_t len = rt_text_char(s, n, 0, esc, &cp);

	if (esc[0]) {
		for (g->n = 0; esc[g->n]; g->n++)
			g->wc[g->n] = (wchar_t)esc[g->n];
		g->w = g->n;
		return len;
	}
	g->n = 1;
	g->wc[0] = (wchar_t)cp;
	g->w = rt_utf8_cp_width(cp);
	if (g->w < 0) {
		g->wc[0] = L'?';
		g->w = 1;
	} else if (cp >= 0x80 && !text_utf8) {
		g->n = g->w;
		for (int i = 0; i < g->n; i++)
			g->wc[i] = L'?';
	}
	return len;
}

int ui_text_width(const char *s)
{
	size_t n = strlen(s);
	struct glyph g;
	int total = 0;

	for (size_t i = 0; i < n;) {
		i += decode(s + i, n - i, &g);
		total += g.w;
	}
	return total;
}

size_t ui_text_fit(const char *s, size_t len, int cols, int *width)
{
	size_t i = 0;
	int used = 0;

	while (i < len && s[i]) {
		struct glyph g;
		size_t k = decode(s + i, len - i, &g);

		if (used + g.w > cols)
			break;
		used += g.w;
		i += k;
	}
	if (width)
		*width = used;
	return i;
}

int ui_text_putn(WINDOW *win, int y, int x, const char *s, size_t len, int cols)
{
	wchar_t buf[512];
	size_t nb = 0, i = 0;
	int used = 0, full, total;
	bool cut;

	if (cols <= 0)
		return 0;
	/* Measure first: a string that must be cut keeps a column for the ellipsis. */
	len = strnlen(s, len);
	ui_text_fit(s, len, 1 << 30, &full);
	cut = full > cols;
	total = cut ? cols - 1 : cols;
	while (i < len && nb + RT_TEXT_ESC_MAX < sizeof(buf) / sizeof(buf[0]) - 2) {
		struct glyph g;
		size_t k = decode(s + i, len - i, &g);

		if (used + g.w > total)
			break;
		for (int c = 0; c < g.n; c++)
			buf[nb++] = g.wc[c];
		used += g.w;
		i += k;
	}
	if (cut) {
		buf[nb++] = text_utf8 ? L'\x2026' : L'>';
		used++;
	}
	buf[nb] = L'\0';
	mvwaddnwstr(win, y, x, buf, (int)nb);
	return used;
}

int ui_text_put(WINDOW *win, int y, int x, const char *s, int cols)
{
	return ui_text_putn(win, y, x, s, strlen(s), cols);
}

size_t ui_text_wrap(const char *s, int cols, size_t *next)
{
	size_t n = strcspn(s, "\n"), fit, end = 0;

	if (cols < 1)
		cols = 1;
	fit = ui_text_fit(s, n, cols, NULL);
	if (fit == n) {
		end = n;
		*next = n + (s[n] == '\n');
	} else {
		/* Break at the last blank that fits, else inside the word. */
		for (size_t i = fit; i > 0 && !end; i--)
			if (s[i] == ' ')
				end = i;
		if (!end && fit)
			end = fit;
		if (!end) {
			/* Not even one character fits: take it anyway, or we never advance. */
			struct glyph g;

			end = decode(s, n, &g);
		}
		*next = end;
		while (s[*next] == ' ')
			(*next)++;
		if (s[*next] == '\n')
			(*next)++;
	}
	while (end > 0 && s[end - 1] == ' ')
		end--;
	return end;
}
