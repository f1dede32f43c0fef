/*
 * ui_text: the UTF-8 is decoded here by hand rather than with mbrtowc, so
 * that the same bytes lay out the same way in any locale: glibc's wchar_t is
 * always a Unicode code point, and wcwidth() answers -1 for anything the
 * locale cannot show, which we then draw as '?'. Drawing goes through the
 * wide-character curses calls of ncursesw.
 */
#include "ui_text.h"

#include <langinfo.h>
#include <string.h>
#include <wchar.h>

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

/*
 * Decode one character at @s (@n bytes left). Returns the bytes it takes
 * (at least 1) and sets *wc to what to draw and *w to its width. Invalid
 * bytes count as one '?' each.
 */
static size_t decode(const char *s, size_t n, wchar_t *wc, int *w)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = 1, k;
	unsigned int c = u[0];

	if (c >= 0xc2 && c <= 0xf4) {
		len = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
		c &= len == 2 ? 0x1f : len == 3 ? 0x0f : 0x07;
		if (len > n)
			goto bad;
		for (k = 1; k < len; k++) {
			if ((u[k] & 0xc0) != 0x80)
				goto bad;
			c = (c << 6) | (u[k] & 0x3f);
		}
		if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff)) ||
		    (c >= 0xd800 && c <= 0xdfff))
			goto bad;
	} else if (c >= 0x80) {
		goto bad;
	}
	*wc = (wchar_t)c;
	*w = c < 0x80 ? (c >= 0x20 && c != 0x7f ? 1 : -1) : wcwidth(*wc);
	if (*w < 0)
		goto bad_width;
	return len;
bad:
	len = 1;
bad_width:
	*wc = L'?';
	*w = 1;
	return len;
}

int ui_text_width(const char *s)
{
	size_t n = strlen(s);
	int total = 0, w;
	wchar_t wc;

	for (size_t i = 0; i < n;) {
		i += decode(s + i, n - i, &wc, &w);
		total += w;
	}
	return total;
}

size_t ui_text_fit(const char *s, size_t len, int cols, int *width)
{
	size_t i = 0;
	int used = 0;

	while (i < len && s[i]) {
		wchar_t wc;
		int w;
		size_t k = decode(s + i, len - i, &wc, &w);

		if (used + w > cols)
			break;
		used += w;
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
	while (i < len && nb < sizeof(buf) / sizeof(buf[0]) - 2) {
		wchar_t wc;
		int w;
		size_t k = decode(s + i, len - i, &wc, &w);

		if (used + w > total)
			break;
		buf[nb++] = wc;
		used += w;
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
			wchar_t wc;
			int w;

			end = decode(s, n, &wc, &w);
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
