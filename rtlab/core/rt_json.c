/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_json: jansson parses, we write. jansson reports the column where the
 * offending token ends; we pass its line and column through unchanged, so
 * the message points at the place an editor shows.
 *
 * The writer is the printer rtlab's results documents have always had,
 * made general: a layout says which members come first (and the layouts of
 * their values), the flags say whether the other members are sorted and
 * whether arrays of numbers share lines. Its bytes are pinned by a golden
 * file (tests/data/json/result-golden.json), so a change here that moves
 * one is caught.
 *
 * Reals are formatted in the C locale whatever the UI set with setlocale(),
 * by uselocale() on a locale object of our own: the decimal point of a
 * document must not depend on the learner's language.
 */
#include "rt_json.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_buf.h"
#include "rt_keys.h"
#include "rt_err.h"
#include "rt_file.h"

/* Lines of packed arrays: one line when shorter than this... */
#define PACK_ONE_LINE	80u
/* ...else lines filled up to this many columns. */
#define PACK_WIDTH	100u

int rt_json_load(const char *text, size_t len, const char *name, json_t **out, char **cause)
{
	json_error_t err;
	json_t *doc;

	*out = NULL;
	doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
	if (!doc) {
		if (json_error_code(&err) == json_error_out_of_memory)
			return rt_err(cause, -ENOMEM, "%s: out of memory", name);
		if (err.line > 0)
			return rt_err(cause, -EINVAL, "%s:%d:%d: %s", name, err.line, err.column,
				      err.text);
		return rt_err(cause, -EINVAL, "%s: %s", name, err.text);
	}
	*out = doc;
	return 0;
}

/* ---- Numbers ----------------------------------------------------------- */

static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static locale_t c_locale;

static void c_locale_init(void)
{
	c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
}

/*
 * "%.*g" of @v, then as jansson writes a real: ".0" when it would read
 * back as an integer, no "+" and no leading zeros in the exponent.
 */
static int real_text(double v, int prec, char *buf)
{
	char *e;
	int n;

	n = snprintf(buf, RT_JSON_REAL_MAX - 2, "%.*g", prec, v);
	if (n < 0 || (size_t)n >= RT_JSON_REAL_MAX - 2)
		return -EINVAL;
	if (!strchr(buf, '.') && !strchr(buf, 'e')) {
		memcpy(buf + n, ".0", 3);
		n += 2;
	}
	e = strchr(buf, 'e');
	if (e) {
		char *d = e + 1, *src;

		if (*d == '+' || *d == '-') {
			if (*d == '+')
				memmove(d, d + 1, strlen(d));
			else
				d++;
		}
		for (src = d; *src == '0' && src[1]; src++)
			;
		memmove(d, src, strlen(src) + 1);
		n = (int)strlen(buf);
	}
	return n;
}

int rt_json_format_real(double v, char *buf)
{
	locale_t old;
	int n = -EINVAL;

	buf[0] = '\0';
	if (!isfinite(v))
		return -EINVAL;
	pthread_once(&c_locale_once, c_locale_init);
	if (!c_locale)
		return -ENOMEM;
	old = uselocale(c_locale);
	for (int prec = 15; prec <= 17; prec++) {
		n = real_text(v, prec, buf);
		if (n < 0 || strtod_l(buf, NULL, c_locale) == v)
			break;
	}
	uselocale(old);
	return n;
}

/* ---- Writer ------------------------------------------------------------ */

/* The text so far plus the first error met, so no append needs checking. */
struct jw {
	struct rt_buf *buf;
	unsigned int flags;
	int err;
};

static void out(struct jw *w, const char *s, size_t len)
{
	if (!w->err)
		w->err = rt_buf_append(w->buf, s, len);
}

static void outs(struct jw *w, const char *s)
{
	out(w, s, strlen(s));
}

static void indent(struct jw *w, unsigned int n)
{
	static const char spaces[] = "                                ";

	while (n) {
		unsigned int k = n < sizeof(spaces) - 1 ? n : (unsigned int)sizeof(spaces) - 1;

		out(w, spaces, k);
		n -= k;
	}
}

/*
 * Bytes of the UTF-8 sequence at @s (at most @left bytes), or 0 when it is
 * not one: overlong forms, surrogates and code points past U+10FFFF are
 * refused as RFC 3629 says.
 */
static size_t utf8_len(const unsigned char *s, size_t left)
{
	unsigned int cp, n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (left < n)
		return 0;
	for (unsigned int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/*
 * @len bytes of @s in quotes: '"' and '\' escaped, "\n" and "\t" as such,
 * every other control character and DEL as \u00XX, the rest as it is.
 */
static void write_string(struct jw *w, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s, *end = p + len, *run = p;

	outs(w, "\"");
	while (p < end) {
		unsigned char c = *p;
		char esc[8];
		size_t n;

		if (c >= 0x80) {
			n = utf8_len(p, (size_t)(end - p));
			if (!n) {
				if (!w->err)
					w->err = -EILSEQ;
				return;
			}
			p += n;
			continue;
		}
		if (c >= 0x20 && c != '"' && c != '\\' && c != 0x7f) {
			p++;
			continue;
		}
		out(w, (const char *)run, (size_t)(p - run));
		run = ++p;
		switch (c) {
		case '"':
		case '\\':
			esc[0] = '\\';
			esc[1] = (char)c;
			out(w, esc, 2);
			break;
		case '\n':
			outs(w, "\\n");
			break;
		case '\t':
			outs(w, "\\t");
			break;
		default:
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			out(w, esc, 6);
		}
	}
	out(w, (const char *)run, (size_t)(p - run));
	outs(w, "\"");
}

static void write_scalar(struct jw *w, const json_t *v)
{
	char num[RT_JSON_REAL_MAX];
	int n;

	switch (json_typeof(v)) {
	case JSON_STRING:
		write_string(w, json_string_value(v), json_string_length(v));
		break;
	case JSON_INTEGER:
		snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		outs(w, num);
		break;
	case JSON_REAL:
		n = rt_json_format_real(json_real_value(v), num);
		if (n >= 0)
			out(w, num, (size_t)n);
		else if (!w->err)
			w->err = n;
		break;
	case JSON_TRUE:
		outs(w, "true");
		break;
	case JSON_FALSE:
		outs(w, "false");
		break;
	default:
		outs(w, "null");
	}
}

static bool in_list(const char *const *list, const char *s)
{
	for (; list && *list; list++)
		if (strcmp(*list, s) == 0)
			return true;
	return false;
}

/* The layout of member @key's value under @l, or NULL. */
static const struct rt_json_layout *member_layout(const struct rt_json_layout *l,
						  const char *key)
{
	for (const struct rt_json_member *m = l ? l->members : NULL; m && m->key; m++)
		if (strcmp(m->key, key) == 0)
			return m->layout;
	return NULL;
}

struct key {
	const char *s;
	size_t len;	/* a key may hold a NUL (json_object_setn) */
};

static int by_key(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	int c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);

	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

static void write_value(struct jw *w, const json_t *v, unsigned int ind, unsigned int depth,
			const struct rt_json_layout *l);

/* Members of @o: those @l orders first, in that order, then the rest sorted or as they are. */
static void write_object(struct jw *w, const json_t *o, unsigned int ind, unsigned int depth,
			 const struct rt_json_layout *l)
{
	size_t n = json_object_size(o), k = 0, first, klen;
	struct key *keys;
	const char *key;
	json_t *v;

	if (n == 0) {
		outs(w, "{}");
		return;
	}
	keys = malloc(n * sizeof(*keys));
	if (!keys) {
		w->err = -ENOMEM;
		return;
	}
	for (const char *const *p = l ? l->order : NULL; p && *p; p++)
		if (json_object_get(o, *p))
			keys[k++] = (struct key){ *p, strlen(*p) };
	for (const struct rt_key *p = l && l->keys ? l->keys->keys : NULL; p && p->key; p++)
		if (k < n && json_object_get(o, p->key))
			keys[k++] = (struct key){ p->key, strlen(p->key) };
	first = k;
	json_object_keylen_foreach((json_t *)o, key, klen, v)
		if (k < n && !in_list(l ? l->order : NULL, key) &&
		    !(l && rt_keys_find(l->keys, key)))
			keys[k++] = (struct key){ key, klen };
	if (w->flags & RT_JSON_SORT)
		qsort(keys + first, k - first, sizeof(*keys), by_key);

	outs(w, "{\n");
	for (size_t i = 0; i < k && !w->err; i++) {
		indent(w, ind + 2);
		write_string(w, keys[i].s, keys[i].len);
		outs(w, ": ");
		write_value(w, json_object_getn(o, keys[i].s, keys[i].len), ind + 2, depth + 1,
			    member_layout(l, keys[i].s));
		outs(w, i + 1 < k ? ",\n" : "\n");
	}
	indent(w, ind);
	outs(w, "}");
	free(keys);
}

/* One line, or lines filled up to PACK_WIDTH columns when that is too long. */
static void write_packed(struct jw *w, const json_t *a, unsigned int ind)
{
	struct rt_buf item_buf = RT_BUF_INIT;
	struct jw item = { &item_buf, w->flags, 0 };
	size_t n = json_array_size(a), start = w->buf->len, col;

	outs(w, "[");
	for (size_t i = 0; i < n && !w->err; i++) {
		if (i)
			outs(w, ", ");
		write_scalar(w, json_array_get(a, i));
	}
	outs(w, "]");
	if (w->err || w->buf->len - start + ind < PACK_ONE_LINE)
		return;
	w->buf->len = start;
	w->buf->data[start] = '\0';
	outs(w, "[\n");
	indent(w, ind + 2);
	col = ind + 2;
	for (size_t i = 0; i < n && !w->err; i++) {
		rt_buf_reset(&item_buf);
		write_scalar(&item, json_array_get(a, i));
		if (item.err)
			w->err = item.err;
		if (i && col + item_buf.len + 2 > PACK_WIDTH) {
			outs(w, ",\n");
			indent(w, ind + 2);
			col = ind + 2;
		} else if (i) {
			outs(w, ", ");
			col += 2;
		}
		out(w, rt_buf_str(&item_buf), item_buf.len);
		col += item_buf.len;
	}
	outs(w, "\n");
	indent(w, ind);
	outs(w, "]");
	rt_buf_fini(&item_buf);
}

static void write_array(struct jw *w, const json_t *a, unsigned int ind, unsigned int depth,
			const struct rt_json_layout *l)
{
	size_t n = json_array_size(a);
	bool scalars = (w->flags & RT_JSON_PACK) != 0;

	if (n == 0) {
		outs(w, "[]");
		return;
	}
	for (size_t i = 0; i < n && scalars; i++)
		scalars = !json_is_object(json_array_get(a, i)) &&
			  !json_is_array(json_array_get(a, i));
	if (scalars) {
		write_packed(w, a, ind);
		return;
	}
	outs(w, "[\n");
	for (size_t i = 0; i < n && !w->err; i++) {
		indent(w, ind + 2);
		write_value(w, json_array_get(a, i), ind + 2, depth + 1, l ? l->items : NULL);
		outs(w, i + 1 < n ? ",\n" : "\n");
	}
	indent(w, ind);
	outs(w, "]");
}

static void write_value(struct jw *w, const json_t *v, unsigned int ind, unsigned int depth,
			const struct rt_json_layout *l)
{
	if (w->err)
		return;
	if (!v) {
		w->err = -EINVAL;
		return;
	}
	if ((json_is_object(v) || json_is_array(v)) && depth >= RT_JSON_MAX_DEPTH) {
		w->err = -ELOOP;
		return;
	}
	if (json_is_object(v))
		write_object(w, v, ind, depth, l);
	else if (json_is_array(v))
		write_array(w, v, ind, depth, l);
	else
		write_scalar(w, v);
}

int rt_json_write(struct rt_buf *buf, const json_t *v, const struct rt_json_style *style)
{
	struct jw w = { buf, style ? style->flags : 0, 0 };
	size_t start = buf->len;

	write_value(&w, v, 0, 0, style ? style->layout : NULL);
	if (w.err && buf->data) {
		buf->len = start;
		buf->data[start] = '\0';
	}
	return w.err;
}

char *rt_json_dumps(const json_t *v, const struct rt_json_style *style)
{
	struct rt_buf b = RT_BUF_INIT;
	char *text;
	int ret;

	ret = rt_json_write(&b, v, style);
	if (ret) {
		rt_buf_fini(&b);
		errno = -ret;
		return NULL;
	}
	text = rt_buf_take(&b);
	if (!text)
		errno = ENOMEM;
	return text;
}

static const char *write_error(int err)
{
	switch (err) {
	case -EILSEQ:
		return "a string is not valid UTF-8";
	case -ELOOP:
		return "nested too deep";
	case -EINVAL:
		return "a number is not finite";
	default:
		return strerror(-err);
	}
}

int rt_json_save(const char *path, const json_t *doc, const struct rt_json_style *style,
		 mode_t mode, char **cause)
{
	struct rt_buf b = RT_BUF_INIT;
	int ret;

	ret = rt_json_write(&b, doc, style);
	if (!ret)
		ret = rt_buf_puts(&b, "\n");
	if (ret)
		rt_err(cause, ret, "%s: not written: %s", path, write_error(ret));
	else
		ret = rt_file_write_atomic(path, b.data, b.len, mode, cause);
	rt_buf_fini(&b);
	return ret;
}

/* ---- Members ----------------------------------------------------------- */

const char *rt_json_str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

const char *rt_json_text(const json_t *o, const char *key)
{
	const char *s = rt_json_str(o, key);

	return s ? s : "";
}

double rt_json_num(const json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

double rt_json_num_or(const json_t *o, const char *key, double fallback)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : fallback;
}

double rt_json_num_within(const json_t *o, const char *key, double limit)
{
	double v = rt_json_num(o, key);

	return fabs(v) <= limit ? v : 0;
}

double rt_json_num_clamp(const json_t *o, const char *key, double limit)
{
	double v = rt_json_num(o, key);

	if (!(v > -limit))
		return v != v ? 0 : -limit;
	return v < limit ? v : limit;
}

bool rt_json_true(const json_t *o, const char *key)
{
	return json_is_true(json_object_get(o, key));
}

json_t *rt_json_num_cell(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_copy(v) : json_null();
}
