/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_tap: reading a check program's TAP (see the header).
 */
#include "grade_tap.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_text.h"

#define REASON_TAG "# rtlab-reason: "

/* @len bytes of @s as printable UTF-8, at most GRADE_REASON_MAX bytes of it. */
static char *clean(const char *s, size_t len)
{
	struct rt_buf b;

	rt_buf_init(&b);
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
		len--;
	while (len && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	if (len > GRADE_REASON_MAX)
		len = GRADE_REASON_MAX;
	if (rt_text_escape(&b, s, len, 0) || rt_buf_puts(&b, "")) {
		rt_buf_fini(&b);
		return NULL;
	}
	return rt_buf_take(&b);
}

static bool name_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && !((*a == '_' || *a == '-') && (*b == '_' || *b == '-')))
			return false;
	return !*a && !*b;
}

const struct grade_verdict *grade_tap_find(const struct grade_tap *t, const char *id)
{
	for (size_t i = 0; i < t->n; i++)
		if (name_eq(t->v[i].name, id))
			return &t->v[i];
	return NULL;
}

/* Skip "N" and the blanks after it; NULL when there is no number. */
static const char *skip_number(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && *q >= '0' && *q <= '9')
		q++;
	if (q == p)
		return NULL;
	while (q < end && *q == ' ')
		q++;
	return q;
}

static int add(struct grade_tap *t, const char *name, size_t nlen, enum grade_status st,
	       char *reason)
{
	struct grade_verdict *v;
	char *n = clean(name, nlen);

	if (!n)
		goto out_nomem;
	if (!*n || grade_tap_find(t, n)) {
		free(n);
		free(reason);
		return 0;
	}
	v = realloc(t->v, (t->n + 1) * sizeof(*v));
	if (!v)
		goto out_nomem;
	t->v = v;
	v[t->n++] = (struct grade_verdict){ .name = n, .status = st,
					    .reason = reason ? reason : strdup("") };
	return v[t->n - 1].reason ? 0 : -ENOMEM;

out_nomem:
	free(n);
	free(reason);
	return -ENOMEM;
}

/* Append @len bytes to the reason of the verdict a "# ..." line follows. */
static int follow(struct grade_verdict *v, const char *s, size_t len)
{
	size_t have = strlen(v->reason);
	char *c, *r;

	if (have >= GRADE_REASON_MAX)
		return 0;
	c = clean(s, len);
	if (!c)
		return -ENOMEM;
	if (!*c) {
		free(c);
		return 0;
	}
	r = realloc(v->reason, have + strlen(c) + 3);
	if (!r) {
		free(c);
		return -ENOMEM;
	}
	if (have)
		strcat(r, "; ");
	strcat(r, c);
	v->reason = r;
	free(c);
	return 0;
}

int grade_tap_parse(const char *text, size_t len, struct grade_tap *t)
{
	const char *p = text, *end = text + len;
	char *pending = NULL;
	bool follow_ok = false;
	int ret = 0;

	memset(t, 0, sizeof(*t));
	t->plan = -1;
	while (p < end && !ret) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *q, *line = p;
		bool not;
		size_t n;

		if (!eol)
			eol = end;
		n = (size_t)(eol - p);
		p = eol < end ? eol + 1 : end;
		if (n >= strlen(REASON_TAG) && !memcmp(line, REASON_TAG, strlen(REASON_TAG))) {
			free(pending);
			pending = clean(line + strlen(REASON_TAG), n - strlen(REASON_TAG));
			ret = pending ? 0 : -ENOMEM;
			follow_ok = false;
			continue;
		}
		if (n >= 3 && !memcmp(line, "1..", 3)) {
			char buf[24];
			size_t k = n - 3 < sizeof(buf) - 1 ? n - 3 : sizeof(buf) - 1;

			memcpy(buf, line + 3, k);
			buf[k] = '\0';
			t->plan = strtol(buf, NULL, 10);
			continue;
		}
		if (n >= 2 && line[0] == '#') {
			/* cmocka's summary "# not ok - group" ends the attachments. */
			if ((n >= 5 && !memcmp(line, "# ok ", 5)) ||
			    (n >= 8 && !memcmp(line, "# not ok", 8)))
				follow_ok = false;
			else if (follow_ok && t->n)
				ret = follow(&t->v[t->n - 1], line + 1, n - 1);
			continue;
		}
		not = n >= 7 && !memcmp(line, "not ok ", 7);

		if (!not && !(n >= 3 && !memcmp(line, "ok ", 3)))
			continue;
		q = skip_number(line + (not ? 7 : 3), eol);
		if (!q)
			continue;
		if (eol - q >= 7 && !memcmp(q, "# SKIP ", 7)) {
			ret = add(t, q + 7, (size_t)(eol - q - 7), GRADE_SKIP, pending);
			follow_ok = false;
		} else if (eol - q >= 2 && !memcmp(q, "- ", 2)) {
			if (not) {
				ret = add(t, q + 2, (size_t)(eol - q - 2), GRADE_FAIL, pending);
				follow_ok = !pending;
			} else {
				free(pending);
				ret = add(t, q + 2, (size_t)(eol - q - 2), GRADE_PASS, NULL);
				follow_ok = false;
			}
		} else {
			free(pending);
		}
		pending = NULL;
	}
	free(pending);
	if (ret)
		grade_tap_fini(t);
	return ret;
}

void grade_tap_fini(struct grade_tap *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].name);
		free(t->v[i].reason);
	}
	free(t->v);
	memset(t, 0, sizeof(*t));
}
