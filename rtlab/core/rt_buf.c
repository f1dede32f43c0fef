/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_buf: growth doubles the capacity, so appending n bytes costs amortised
 * O(n). Every operation leaves the buffer NUL-terminated once it holds data.
 */
#include "rt_buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rt_buf_init(struct rt_buf *b)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

void rt_buf_fini(struct rt_buf *b)
{
	free(b->data);
	rt_buf_init(b);
}

void rt_buf_reset(struct rt_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

static int buf_reserve(struct rt_buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (extra > (size_t)-1 - b->len - 1)
		return -ENOMEM;
	need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap > ((size_t)-1) / 2 ? need : cap * 2;
	p = realloc(b->data, cap);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

int rt_buf_append(struct rt_buf *b, const void *data, size_t len)
{
	int ret = buf_reserve(b, len);

	if (ret)
		return ret;
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
	return 0;
}

int rt_buf_puts(struct rt_buf *b, const char *s)
{
	return rt_buf_append(b, s, strlen(s));
}

int rt_buf_printf(struct rt_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n, ret;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	ret = buf_reserve(b, (size_t)n);
	if (ret)
		return ret;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

char *rt_buf_take(struct rt_buf *b)
{
	char *s = b->data;

	if (!s)
		s = strdup("");
	rt_buf_init(b);
	return s;
}

const char *rt_buf_str(const struct rt_buf *b)
{
	return b->data ? b->data : "";
}
