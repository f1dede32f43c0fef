/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_journal_text: the journal file format (doc/journal.md), read and
 * written. The header (magic, boot id, pid) is handled here; each entry
 * line starts with its kind's keyword and the rest of the line belongs to
 * that kind's row of the table (rt_journal_kinds.c), which uses the field
 * readers and writers below.
 *
 * The parser trusts nothing: every field is bounded, numbers have no sign or
 * leading zeros, strings escape every byte outside printable ASCII. It never
 * touches the host; an entry that names something its kind may not touch is
 * kept with ->rejected set, so that replay skips it and says so.
 */
#include "rt_journal-int.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "rt_buf.h"
#include "rt_err.h"

/* ---- Entries and docs ----------------------------------------------------- */

void rt_journal_entry_free(struct rt_journal_entry *e)
{
	if (!e)
		return;
	free(e->path);
	free(e->old);
	free(e);
}

void rt_journal_doc_fini(struct rt_journal_doc *doc)
{
	struct rt_journal_entry *e = doc->newest;

	while (e) {
		struct rt_journal_entry *older = e->older;

		rt_journal_entry_free(e);
		e = older;
	}
	doc->newest = NULL;
	doc->oldest = NULL;
	doc->n = 0;
}

void rt_journal_doc_link(struct rt_journal_doc *doc, struct rt_journal_entry *e)
{
	e->older = doc->newest;
	e->newer = NULL;
	if (doc->newest)
		doc->newest->newer = e;
	else
		doc->oldest = e;
}

void rt_journal_doc_publish(struct rt_journal_doc *doc, struct rt_journal_entry *e)
{
	__atomic_store_n(&doc->newest, e, __ATOMIC_RELEASE);
	doc->n++;
}

/* ---- Writers --------------------------------------------------------------- */

/* Bytes outside printable ASCII, the quote and the backslash become \xHH. */
int rt_journal_text_put_quoted(struct rt_buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	int ret = rt_buf_puts(b, " \"");

	for (size_t i = 0; i < len && !ret; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			ret = rt_buf_append(b, s + i, 1);
		} else {
			char esc[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };

			ret = rt_buf_append(b, esc, 4);
		}
	}
	return ret ? ret : rt_buf_puts(b, "\"");
}

int rt_journal_text_put_cpus(struct rt_buf *b, const cpu_set_t *set)
{
	bool first = true;
	int ret = rt_buf_puts(b, " ");

	for (int c = 0; c < CPU_SETSIZE && !ret; c++) {
		int last = c;

		if (!CPU_ISSET(c, set))
			continue;
		while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
			last++;
		if (last == c)
			ret = rt_buf_printf(b, "%s%d", first ? "" : ",", c);
		else
			ret = rt_buf_printf(b, "%s%d-%d", first ? "" : ",", c, last);
		first = false;
		c = last;
	}
	return ret;
}

int rt_journal_format(const struct rt_journal_doc *doc, struct rt_buf *out)
{
	const struct rt_journal_entry *e;
	int ret;

	ret = rt_buf_printf(out, "%s\nboot %s\npid %d %llu\n", RT_JOURNAL_MAGIC, doc->boot_id,
			    (int)doc->pid, doc->start);
	for (e = doc->oldest; e && !ret; e = e->newer) {
		const struct rt_journal_kind_ops *k = &rt_journal_kinds[e->kind];

		if (e->dropped)
			continue;
		ret = rt_buf_puts(out, k->keyword);
		if (!ret)
			ret = k->format(out, e);
		if (!ret)
			ret = rt_buf_puts(out, "\n");
	}
	return ret;
}

/* ---- Readers --------------------------------------------------------------- */

static bool jr_at_end(const struct rt_journal_cursor *c)
{
	return c->p == c->end;
}

int rt_journal_text_space(struct rt_journal_cursor *c, char **cause, const char *what)
{
	if (jr_at_end(c) || *c->p != ' ')
		return rt_err(cause, -EINVAL, "expected %s", what);
	c->p++;
	return 0;
}

/* A run of non-space characters. */
int rt_journal_text_word(struct rt_journal_cursor *c, const char **w, size_t *n, char **cause,
			 const char *what)
{
	const char *s = c->p;

	while (c->p < c->end && *c->p != ' ')
		c->p++;
	if (c->p == s)
		return rt_err(cause, -EINVAL, "expected %s", what);
	*w = s;
	*n = (size_t)(c->p - s);
	return 0;
}

bool rt_journal_text_word_is(const char *w, size_t n, const char *lit)
{
	return strlen(lit) == n && !memcmp(w, lit, n);
}

int rt_journal_text_number(struct rt_journal_cursor *c, unsigned long long max,
			   unsigned long long *v, char **cause, const char *what)
{
	unsigned long long x = 0;
	const char *s = c->p;

	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		unsigned int d = (unsigned int)(*c->p - '0');

		if (x > (max - d) / 10)
			return rt_err(cause, -EINVAL, "%s out of range", what);
		x = x * 10 + d;
		c->p++;
	}
	if (c->p == s)
		return rt_err(cause, -EINVAL, "expected %s", what);
	if (c->p - s > 1 && *s == '0')
		return rt_err(cause, -EINVAL, "%s has a leading zero", what);
	*v = x;
	return 0;
}

static int jr_hexval(char h)
{
	if (h >= '0' && h <= '9')
		return h - '0';
	if (h >= 'a' && h <= 'f')
		return h - 'a' + 10;
	if (h >= 'A' && h <= 'F')
		return h - 'A' + 10;
	return -1;
}

int rt_journal_text_quoted(struct rt_journal_cursor *c, size_t max, char **out,
			   size_t *outlen, char **cause, const char *what)
{
	struct rt_buf b = RT_BUF_INIT;
	int ret;

	if (jr_at_end(c) || *c->p != '"')
		return rt_err(cause, -EINVAL, "expected %s in double quotes", what);
	c->p++;
	for (;;) {
		unsigned char ch;

		if (jr_at_end(c)) {
			ret = rt_err(cause, -EINVAL, "unterminated %s", what);
			goto out_fail;
		}
		ch = (unsigned char)*c->p;
		if (ch == '"') {
			c->p++;
			break;
		}
		if (ch == '\\') {
			int hi, lo;
			char byte;

			if (c->end - c->p < 4 || c->p[1] != 'x' ||
			    (hi = jr_hexval(c->p[2])) < 0 || (lo = jr_hexval(c->p[3])) < 0) {
				ret = rt_err(cause, -EINVAL, "bad escape in %s (only \\xHH)", what);
				goto out_fail;
			}
			byte = (char)(hi << 4 | lo);
			ret = rt_buf_append(&b, &byte, 1);
			c->p += 4;
		} else if (ch < 0x20 || ch >= 0x7f) {
			ret = rt_err(cause, -EINVAL, "raw byte 0x%02x in %s (must be escaped)", ch,
				     what);
			goto out_fail;
		} else {
			ret = rt_buf_append(&b, c->p, 1);
			c->p++;
		}
		if (ret) {
			rt_err(cause, ret, "out of memory");
			goto out_fail;
		}
		if (b.len > max) {
			ret = rt_err(cause, -EINVAL, "%s longer than %zu bytes", what, max);
			goto out_fail;
		}
	}
	*outlen = b.len;
	*out = rt_buf_take(&b);
	if (!*out)
		return rt_err(cause, -ENOMEM, "out of memory");
	return 0;

out_fail:
	rt_buf_fini(&b);
	return ret;
}

int rt_journal_text_path(struct rt_journal_cursor *c, char **out, char **cause)
{
	size_t len;
	int ret = rt_journal_text_quoted(c, PATH_MAX - 1, out, &len, cause, "path");

	if (ret)
		return ret;
	if (len == 0 || (*out)[0] != '/' || strlen(*out) != len) {
		free(*out);
		*out = NULL;
		return rt_err(cause, -EINVAL, "path must be absolute and free of NUL bytes");
	}
	return 0;
}

int rt_journal_text_cpus(struct rt_journal_cursor *c, cpu_set_t *set, char **cause)
{
	CPU_ZERO(set);
	for (;;) {
		unsigned long long a, b;
		int ret = rt_journal_text_number(c, CPU_SETSIZE - 1, &a, cause, "CPU number");

		if (ret)
			return ret;
		b = a;
		if (!jr_at_end(c) && *c->p == '-') {
			c->p++;
			ret = rt_journal_text_number(c, CPU_SETSIZE - 1, &b, cause, "CPU number");
			if (ret)
				return ret;
			if (b < a)
				return rt_err(cause, -EINVAL, "CPU range %llu-%llu is reversed",
					      a, b);
		}
		for (unsigned long long k = a; k <= b; k++)
			CPU_SET((int)k, set);
		if (jr_at_end(c) || *c->p != ',')
			return 0;
		c->p++;
	}
}

/* ---- Parse ---------------------------------------------------------------- */

static int jr_parse_entry(struct rt_journal_cursor *c, struct rt_journal_entry *e, char **cause)
{
	const struct rt_journal_kind_ops *k;
	const char *w = NULL;
	size_t n = 0;
	int ret;

	ret = rt_journal_text_word(c, &w, &n, cause, "entry kind");
	if (ret)
		return ret;
	k = rt_journal_kind_find(w, n);
	if (!k)
		return rt_err(cause, -EINVAL, "unknown entry kind '%.*s'", (int)(n > 20 ? 20 : n),
			      w);
	e->kind = (enum rt_journal_kind)(k - rt_journal_kinds);
	ret = k->parse(c, e, cause);
	if (!ret && !jr_at_end(c))
		ret = rt_err(cause, -EINVAL, "unexpected text at end of line");
	if (!ret)
		e->rejected = k->check(e);
	return ret;
}

static int jr_parse_header(struct rt_journal_cursor *c, size_t lineno,
			   struct rt_journal_doc *doc, char **cause)
{
	unsigned long long v;
	const char *w = NULL;
	size_t n = 0;
	int ret;

	if (lineno == 1) {
		size_t len = (size_t)(c->end - c->p);

		if (len != strlen(RT_JOURNAL_MAGIC) || memcmp(c->p, RT_JOURNAL_MAGIC, len))
			return rt_err(cause, -EINVAL, "not an rtlab journal (expected \"%s\")",
				      RT_JOURNAL_MAGIC);
		return 0;
	}
	if (lineno == 2) {
		ret = rt_journal_text_word(c, &w, &n, cause, "\"boot\"");
		if (!ret && !rt_journal_text_word_is(w, n, "boot"))
			ret = rt_err(cause, -EINVAL, "expected \"boot\"");
		if (!ret)
			ret = rt_journal_text_space(c, cause, "boot id");
		if (!ret)
			ret = rt_journal_text_word(c, &w, &n, cause, "boot id");
		if (ret)
			return ret;
		if (n > RT_JOURNAL_BOOT_ID_MAX)
			return rt_err(cause, -EINVAL, "boot id too long");
		for (size_t i = 0; i < n; i++)
			if (!isxdigit((unsigned char)w[i]) && w[i] != '-')
				return rt_err(cause, -EINVAL, "bad character in boot id");
		memcpy(doc->boot_id, w, n);
		doc->boot_id[n] = '\0';
	} else {
		ret = rt_journal_text_word(c, &w, &n, cause, "\"pid\"");
		if (!ret && !rt_journal_text_word_is(w, n, "pid"))
			ret = rt_err(cause, -EINVAL, "expected \"pid\"");
		if (!ret)
			ret = rt_journal_text_space(c, cause, "pid");
		if (!ret)
			ret = rt_journal_text_number(c, INT_MAX, &v, cause, "pid");
		if (!ret && v == 0)
			ret = rt_err(cause, -EINVAL, "pid 0");
		if (ret)
			return ret;
		doc->pid = (pid_t)v;
		ret = rt_journal_text_space(c, cause, "start time");
		if (!ret)
			ret = rt_journal_text_number(c, ULLONG_MAX, &doc->start, cause,
						     "start time");
		if (ret)
			return ret;
	}
	if (!jr_at_end(c))
		return rt_err(cause, -EINVAL, "unexpected text at end of line");
	return 0;
}

int rt_journal_parse(const char *data, size_t len, struct rt_journal_doc *doc, size_t *line,
		     char **cause)
{
	const char *p = data, *end = data + len;
	size_t lineno = 0;
	int ret = 0;

	memset(doc, 0, sizeof(*doc));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct rt_journal_cursor c;

		lineno++;
		if (!nl) {
			ret = rt_err(cause, -EINVAL,
				     "last line is not terminated (truncated file?)");
			goto out_fail;
		}
		c.p = p;
		c.end = nl;
		if (lineno <= 3) {
			ret = jr_parse_header(&c, lineno, doc, cause);
		} else {
			struct rt_journal_entry *e = calloc(1, sizeof(*e));

			if (!e) {
				ret = rt_err(cause, -ENOMEM, "out of memory");
				goto out_fail;
			}
			ret = jr_parse_entry(&c, e, cause);
			if (ret) {
				rt_journal_entry_free(e);
				goto out_fail;
			}
			rt_journal_doc_link(doc, e);
			rt_journal_doc_publish(doc, e);
		}
		if (ret)
			goto out_fail;
		p = nl + 1;
	}
	if (lineno < 3) {
		lineno++;
		ret = rt_err(cause, -EINVAL, "%s missing", lineno == 1 ? "magic line" :
			     lineno == 2 ? "boot line" : "pid line");
		goto out_fail;
	}
	return 0;

out_fail:
	rt_journal_doc_fini(doc);
	memset(doc, 0, sizeof(*doc));
	if (line)
		*line = lineno;
	return ret;
}
