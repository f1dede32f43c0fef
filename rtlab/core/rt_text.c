/*
 * rt_text: the UTF-8 is checked by hand (not with mbrtowc) so that the
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

/* Decode a valid multi-byte sequence at @u; returns its length, or 0 when invalid. */
static size_t utf8_decode(const unsigned char *u, size_t n, unsigned int *cp)
{
	unsigned int c = u[0];
	size_t len;

	if (c < 0xc2 || c > 0xf4)
		return 0;
	len = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	if (len > n)
		return 0;
	c &= len == 2 ? 0x1f : len == 3 ? 0x0f : 0x07;
	for (size_t k = 1; k < len; k++) {
		if ((u[k] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (u[k] & 0x3fu);
	}
	if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

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
	len = utf8_decode(u, n, cp);
	if (!len) {
		snprintf(esc, RT_TEXT_ESC_MAX, "\\x%02x", c);
		return 1;
	}
	if (*cp <= 0x9f || is_bidi_control(*cp))
		snprintf(esc, RT_TEXT_ESC_MAX, "\\u%04x", *cp);
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
