/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qemu_console: parsers for the classroom VM's console (see qemu_console.h). Everything works
 * line by line on a bounded buffer: a line is the bytes up to "\n" (or the end), with a
 * trailing "\r" ignored.
 */
#include "qemu_console.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"

struct qemu_line {
	const char *p;
	size_t len;	/* without "\r\n" */
};

/* Advance *@pos over one line of @text; returns false at the end. */
static bool qemu_next_line(const char *text, size_t len, size_t *pos, struct qemu_line *l)
{
	const char *nl;
	size_t rest;

	if (*pos >= len)
		return false;
	rest = len - *pos;
	l->p = text + *pos;
	nl = memchr(l->p, '\n', rest);
	l->len = nl ? (size_t)(nl - l->p) : rest;
	*pos += l->len + (nl ? 1 : 0);
	while (l->len && l->p[l->len - 1] == '\r')
		l->len--;
	return true;
}

static bool qemu_starts(const struct qemu_line *l, const char *prefix)
{
	size_t n = strlen(prefix);

	return l->len >= n && memcmp(l->p, prefix, n) == 0;
}

/* The value of "key=" in @l up to a space or ';', as a new string; NULL if absent. */
static char *qemu_field(const struct qemu_line *l, const char *key, bool *nomem)
{
	size_t k = strlen(key), i, j;

	for (i = 0; i + k <= l->len; i++) {
		if ((i == 0 || l->p[i - 1] == ' ') && memcmp(l->p + i, key, k) == 0) {
			for (j = i + k; j < l->len && l->p[j] != ' ' && l->p[j] != ';'; j++)
				;
			char *v = strndup(l->p + i + k, j - i - k);

			if (!v)
				*nomem = true;
			return v;
		}
	}
	return NULL;
}

int qemu_console_ready(const char *text, size_t len, struct qemu_ready *r)
{
	struct qemu_line l;
	size_t pos = 0;
	bool nomem = false;

	memset(r, 0, sizeof(*r));
	r->uptime_s = -1;
	while (qemu_next_line(text, len, &pos, &l)) {
		char *up, *end;

		/* Only a whole line counts: the log may be read while init is still writing it. */
		if (!qemu_starts(&l, QEMU_CONSOLE_READY) || pos > len || text[pos - 1] != '\n')
			continue;
		r->kernel = qemu_field(&l, "kernel=", &nomem);
		r->release = qemu_field(&l, "release=", &nomem);
		up = qemu_field(&l, "uptime_s=", &nomem);
		if (up) {
			double v = strtod(up, &end);

			if (end != up && *end == '\0' && v >= 0)
				r->uptime_s = v;
			free(up);
		}
		if (nomem) {
			qemu_ready_fini(r);
			return -ENOMEM;
		}
		return 1;
	}
	return 0;
}

void qemu_ready_fini(struct qemu_ready *r)
{
	if (!r)
		return;
	free(r->kernel);
	free(r->release);
	memset(r, 0, sizeof(*r));
	r->uptime_s = -1;
}

/* Is @l exactly "<prefix><nonce><suffix...>" with the nonce followed by @after? */
static bool qemu_marker(const struct qemu_line *l, const char *prefix, const char *nonce,
		      const char *after, const char **rest, size_t *restlen)
{
	size_t p = strlen(prefix), n = strlen(nonce), a = strlen(after);

	if (l->len < p + n + a || memcmp(l->p, prefix, p) != 0 ||
	    memcmp(l->p + p, nonce, n) != 0 || memcmp(l->p + p + n, after, a) != 0)
		return false;
	*rest = l->p + p + n + a;
	*restlen = l->len - p - n - a;
	return true;
}

/* "N>>>" with N a decimal in 0..255 (a shell's exit status). */
static int qemu_parse_status(const char *s, size_t len, int *status)
{
	int v = 0;
	size_t i;

	if (len < 4 || memcmp(s + len - 3, ">>>", 3) != 0)
		return -EPROTO;
	len -= 3;
	if (len == 0 || len > 3)
		return -EPROTO;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EPROTO;
		v = v * 10 + (s[i] - '0');
	}
	if (v > 255)
		return -EPROTO;
	*status = v;
	return 0;
}

int qemu_console_extract(const char *text, size_t len, const char *nonce, char **out,
		       int *status)
{
	struct rt_buf b = RT_BUF_INIT;
	struct qemu_line l;
	const char *rest;
	size_t pos = 0, restlen;
	bool begun = false;
	int ret;

	*out = NULL;
	if (!nonce || !*nonce || strchr(nonce, '>') || strchr(nonce, ' '))
		return -EINVAL;
	while (qemu_next_line(text, len, &pos, &l)) {
		if (!begun) {
			if (qemu_marker(&l, QEMU_CONSOLE_BEGIN, nonce, ">>>", &rest, &restlen) &&
			    restlen == 0) {
				begun = true;
				/* An empty output still gives a valid (empty) string. */
				if (rt_buf_puts(&b, "") < 0)
					goto out_nomem;
			}
			continue;
		}
		if (qemu_marker(&l, QEMU_CONSOLE_END, nonce, " status=", &rest, &restlen)) {
			ret = qemu_parse_status(rest, restlen, status);
			if (ret < 0)
				goto out_fail;
			*out = rt_buf_take(&b);
			if (!*out)
				goto out_nomem;
			return 0;
		}
		if (rt_buf_append(&b, l.p, l.len) < 0 || rt_buf_puts(&b, "\n") < 0)
			goto out_nomem;
	}
	ret = begun ? -ENODATA : -ENOENT;
	goto out_fail;

out_nomem:
	ret = -ENOMEM;
out_fail:
	rt_buf_fini(&b);
	return ret;
}

char *qemu_console_stderr(const char *text, size_t len)
{
	struct rt_buf b = RT_BUF_INIT;
	size_t pos = 0, n = strlen(QEMU_CONSOLE_STDERR);
	struct qemu_line l;
	char *s;

	while (qemu_next_line(text, len, &pos, &l)) {
		if (!qemu_starts(&l, QEMU_CONSOLE_STDERR))
			continue;
		if (rt_buf_append(&b, l.p + n, l.len - n) < 0 || rt_buf_puts(&b, "\n") < 0) {
			rt_buf_fini(&b);
			errno = ENOMEM;
			return NULL;
		}
	}
	s = rt_buf_take(&b);
	if (!s)
		errno = ENOMEM;
	return s;
}

char *qemu_console_tail(const char *text, size_t len, unsigned int nlines)
{
	struct rt_buf b = RT_BUF_INIT;
	size_t start = len, i;
	unsigned int seen = 0;
	char *s;

	/* Ignore a final newline, then walk back over @nlines line breaks. */
	if (start && text[start - 1] == '\n')
		start--;
	while (start > 0 && nlines > 0) {
		if (text[start - 1] == '\n' && ++seen == nlines)
			break;
		start--;
	}
	if (rt_buf_puts(&b, "") < 0)
		goto out_nomem;
	for (i = nlines ? start : len; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c == '\r')
			continue;
		if (c != '\n' && c != '\t' && (c < 0x20 || c == 0x7f))
			c = '?';
		if (rt_buf_append(&b, &c, 1) < 0)
			goto out_nomem;
	}
	s = rt_buf_take(&b);
	if (!s)
		goto out_nomem;
	return s;

out_nomem:
	rt_buf_fini(&b);
	errno = ENOMEM;
	return NULL;
}
