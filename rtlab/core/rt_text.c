/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_text: the UTF-8 is decoded by rt_utf8 (not with mbrtowc) so that the
 * answer does not depend on the locale: the same bytes are escaped the same
 * way for a UTF-8 terminal, a C locale and a test. Overlong forms,
 * surrogates and code points above U+10FFFF are not valid UTF-8.
 */
#include "rt_text.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_utf8.h"

/* Invisible characters that change what a terminal draws around them. */
static bool is_bidi_control(unsigned int cp)
{
	return (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

size_t rt_text_char(const char *s, size_t n, unsigned int flags, char esc[RT_TEXT_ESC_MAX],
		    unsigned int *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned int c = u[0], dummy;
	uint32_t u32;
	size_t len;

	if (!cp)
		cp = &dummy;
	*cp = c;
	esc[0] = '\0';
	if (c >= 0x20 && c < 0x7f)
		return 1;
	if (c < 0x80) {
		if ((c == '\n' || c == '\t') && (flags & RT_TEXT_KEEP_NL))
			return 1;
		if (c == '\n' || c == '\t' || c == '\r')
			snprintf(esc, RT_TEXT_ESC_MAX, "\\%c", c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
		else
			snprintf(esc, RT_TEXT_ESC_MAX, "\\x%02x", c);
		return 1;
	}
	len = rt_utf8_decode(s, n, &u32);
	if (u32 == RT_UTF8_INVALID) {
		snprintf(esc, RT_TEXT_ESC_MAX, "\\x%02x", c);
		return 1;
	}
	*cp = u32;
	/* Both ranges are below U+FFFF: the mask only tells the compiler so. */
	if (u32 <= 0x9f || is_bidi_control(u32))
		snprintf(esc, RT_TEXT_ESC_MAX, "\\u%04x", (unsigned int)(u32 & 0xffff));
	return len;
}

int rt_text_escape(struct rt_buf *out, const char *s, size_t len, unsigned int flags)
{
	size_t i = 0, plain = 0;
	char esc[RT_TEXT_ESC_MAX];

	while (i < len) {
		size_t k = rt_text_char(s + i, len - i, flags, esc, NULL);

		if (esc[0]) {
			if (rt_buf_append(out, s + plain, i - plain) || rt_buf_puts(out, esc))
				return -ENOMEM;
			plain = i + k;
		}
		i += k;
	}
	return rt_buf_append(out, s + plain, i - plain);
}

int rt_text_vprintf(struct rt_buf *out, const char *fmt, va_list ap)
{
	size_t lead = strspn(fmt, "\n"), trail = 0, flen = strlen(fmt), len;
	va_list aq;
	char *p;
	int ret, n;

	while (trail < flen - lead && fmt[flen - 1 - trail] == '\n')
		trail++;
	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		return -EINVAL;
	len = (size_t)n;
	p = malloc(len + 1);
	if (!p)
		return -ENOMEM;
	vsnprintf(p, len + 1, fmt, ap);
	/* The format's own edge newlines are the edges of the result. */
	ret = rt_buf_append(out, p, lead);
	ret = ret ? ret : rt_text_escape(out, p + lead, len - lead - trail, 0);
	ret = ret ? ret : rt_buf_append(out, p + len - trail, trail);
	free(p);
	return ret;
}

int rt_text_printf(struct rt_buf *out, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = rt_text_vprintf(out, fmt, ap);
	va_end(ap);
	return ret;
}

int rt_text_fwrite(const char *s, size_t len, unsigned int flags, FILE *f)
{
	size_t i = 0, plain = 0;
	char esc[RT_TEXT_ESC_MAX];

	while (i < len) {
		size_t k = rt_text_char(s + i, len - i, flags, esc, NULL);

		if (esc[0]) {
			if (fwrite(s + plain, 1, i - plain, f) != i - plain || fputs(esc, f) == EOF)
				return -EIO;
			plain = i + k;
		}
		i += k;
	}
	if (fwrite(s + plain, 1, i - plain, f) != i - plain)
		return -EIO;
	return 0;
}

int rt_text_fputs(const char *s, unsigned int flags, FILE *f)
{
	return rt_text_fwrite(s, strlen(s), flags, f);
}
