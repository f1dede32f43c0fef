/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_utf8: the widths come from glibc's own table, so they match what a
 * UTF-8 terminal was built to show, but that table is reached only through
 * a locale. A C.UTF-8 locale object is made once (pthread_once) and put in
 * place for the calling thread around each wcwidth()/towlower() call with
 * uselocale(), which touches neither the process locale nor other threads.
 * Printable ASCII, by far the most common case, is answered without it.
 */
#include "rt_utf8.h"

#include <locale.h>
#include <pthread.h>
#include <wchar.h>
#include <wctype.h>

static pthread_once_t utf8_once = PTHREAD_ONCE_INIT;
static locale_t utf8_loc;

static void utf8_loc_init(void)
{
	utf8_loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

/* Freed at exit so that leak checkers see a clean heap. */
__attribute__((destructor)) static void utf8_loc_fini(void)
{
	if (utf8_loc)
		freelocale(utf8_loc);
	utf8_loc = (locale_t)0;
}

static locale_t utf8_loc_get(void)
{
	pthread_once(&utf8_once, utf8_loc_init);
	return utf8_loc;
}

size_t rt_utf8_decode(const char *s, size_t n, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t c;
	size_t len;

	*cp = RT_UTF8_INVALID;
	if (!n)
		return 0;
	c = u[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	/* 0x80..0xc1: a continuation byte or the start of an overlong pair. */
	if (c < 0xc2 || c > 0xf4)
		return 1;
	len = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	if (len > n)
		return 1;
	c &= len == 2 ? 0x1f : len == 3 ? 0x0f : 0x07;
	for (size_t k = 1; k < len; k++) {
		if ((u[k] & 0xc0) != 0x80)
			return 1;
		c = (c << 6) | (u[k] & 0x3fu);
	}
	if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 1;
	*cp = c;
	return len;
}

/* Invisible characters that change what a terminal draws around them. */
static bool is_bidi_control(uint32_t cp)
{
	return (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

int rt_utf8_cp_width(uint32_t cp)
{
	locale_t loc, old;
	int w;

	if (cp >= 0x20 && cp < 0x7f)
		return 1;
	if (cp < 0xa0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || is_bidi_control(cp))
		return -1;
	loc = utf8_loc_get();
	if (!loc)
		return -1;
	old = uselocale(loc);
	w = wcwidth((wchar_t)cp);
	uselocale(old);
	return w < 0 ? -1 : w > 2 ? 2 : w;
}

size_t rt_utf8_next(const char *s, size_t n, struct rt_utf8_char *c)
{
	int w;

	c->len = (unsigned int)rt_utf8_decode(s, n, &c->cp);
	if (!c->len)
		c->len = 1;	/* n == 0 is a caller's bug: never loop forever on it */
	w = rt_utf8_cp_width(c->cp);
	c->printable = w >= 0;
	c->cols = w >= 0 ? (unsigned int)w : 1;
	return c->len;
}

unsigned int rt_utf8_width(const char *s, size_t n)
{
	unsigned int total = 0;
	struct rt_utf8_char c;

	for (size_t i = 0; i < n; i += c.len) {
		rt_utf8_next(s + i, n - i, &c);
		total += c.cols;
	}
	return total;
}

size_t rt_utf8_clip(const char *s, size_t n, unsigned int cols, unsigned int *used)
{
	unsigned int u = 0;
	size_t i = 0;

	while (i < n) {
		struct rt_utf8_char c;

		rt_utf8_next(s + i, n - i, &c);
		if (u + c.cols > cols)
			break;
		u += c.cols;
		i += c.len;
	}
	if (used)
		*used = u;
	return i;
}

uint32_t rt_utf8_cp_lower(uint32_t cp)
{
	locale_t loc, old;
	wint_t lc;

	if (cp < 0x80)
		return cp >= 'A' && cp <= 'Z' ? cp - 'A' + 'a' : cp;
	if (cp > 0x10ffff)
		return cp;
	loc = utf8_loc_get();
	if (!loc)
		return cp;
	old = uselocale(loc);
	lc = towlower((wint_t)cp);
	uselocale(old);
	return (uint32_t)lc;
}
