/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mutant: counts every line that is not a header line as an entry, stack lines included */
/* replaces: latency_trace.c */
/* caught-by: widest-gap */
/*
 * latency_trace.c: the worst section of a latency tracer's trace, the
 * reference solution (teachers only). ftrace_exercise.h says what lt_parse()
 * must find; lesson 06 ("Reading a latency trace") explains the format.
 */
#include "ftrace_exercise.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* One entry line, as far as the widest gap and its cause need it. */
struct entry {
	unsigned int line;
	long us;
	char func[LT_NAME_MAX];		/* "" when the text is no function call */
	char caller[LT_NAME_MAX];	/* "" when there is no " <-caller" */
};

/* Copy the name starting at @s (up to white space) into @dst, cut to fit. */
static void copy_name(char *dst, const char *s, const char *end)
{
	size_t n = 0;

	while (s < end && !isspace((unsigned char)*s) && n < LT_NAME_MAX - 1)
		dst[n++] = *s++;
	dst[n] = '\0';
}

/* The text after "key" in a header line, skipping blanks; NULL if absent. */
static const char *after(const char *line, const char *end, const char *key)
{
	size_t k = strlen(key);

	for (const char *p = line; p + k <= end; p++) {
		if (!memcmp(p, key, k)) {
			p += k;
			while (p < end && *p == ' ')
				p++;
			return p;
		}
	}
	return NULL;
}

/*
 * An entry line has "<digits>us<mark>:" somewhere: find the last such time
 * stamp's digits (the task name before it may hold digits and colons too).
 * On success *us is the time and *text points after ": ".
 */
static bool entry_parse(const char *line, const char *end, long *us, const char **text)
{
	for (const char *p = line; p + 4 <= end; p++) {
		const char *d = p;

		if (p[0] != 'u' || p[1] != 's' || p[3] != ':' || p == line ||
		    !isdigit((unsigned char)p[-1]))
			continue;
		while (d > line && isdigit((unsigned char)d[-1]))
			d--;
		if (d > line && !isspace((unsigned char)d[-1]))
			continue;	/* part of a word, not a time stamp */
		*us = strtol(d, NULL, 10);
		p += 4;
		if (p < end && *p == ' ')
			p++;
		*text = p;
		return true;
	}
	return false;
}

/* "f <-c": the function and its caller; nothing for other texts. */
static void entry_function(struct entry *e, const char *text, const char *end)
{
	const char *arrow;

	e->func[0] = e->caller[0] = '\0';
	if (text >= end || !(isalpha((unsigned char)*text) || *text == '_'))
		return;
	copy_name(e->func, text, end);
	arrow = after(text, end, " <-");
	if (arrow)
		copy_name(e->caller, arrow, end);
}

int lt_parse(const char *text, size_t len, struct lt_worst *out)
{
	struct entry prev = { 0 }, cur;
	const char *p = text, *end = text + len;
	bool have_latency = false, have_prev = false;
	unsigned int lineno = 0;

	if (!text || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *v, *etext;
		long us;

		lineno++;
		if (*p == '#') {
			if ((v = after(p, le, "# tracer:")))
				copy_name(out->tracer, v, le);
			else if ((v = after(p, le, "# latency:"))) {
				out->latency_us = strtol(v, NULL, 10);
				have_latency = true;
			} else if ((v = after(p, le, "=> started at:")))
				copy_name(out->started_at, v, le);
			else if ((v = after(p, le, "=> ended at:")))
				copy_name(out->ended_at, v, le);
		} else if (++out->entries && entry_parse(p, le, &us, &etext)) {
			cur.line = lineno;
			cur.us = us;
			entry_function(&cur, etext, le);
			if (have_prev && (!out->gap_line || cur.us - prev.us > out->gap_us)) {
				out->gap_line = prev.line;
				out->gap_us = cur.us - prev.us;
				if (!prev.func[0])
					out->cause[0] = '\0';
				else if (prev.caller[0] && !strcmp(prev.caller, cur.caller))
					strcpy(out->cause, prev.caller);
				else
					strcpy(out->cause, prev.func);
			}
			prev = cur;
			have_prev = true;
		}
		p = nl ? nl + 1 : end;
	}
	return have_latency ? 0 : -ENOENT;
}
