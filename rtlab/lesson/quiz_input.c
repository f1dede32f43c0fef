/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * quiz_input: the learner's typed line, parsed strictly. Being strict is
 * kind here: "ab" for a single-choice question or "3e2" for a number is
 * refused with the reason rather than guessed at, and the quiz asks again.
 * Reasons only quote what was typed when it is short printable ASCII, so a
 * pasted escape sequence is never echoed back to the terminal.
 */
#include "lesson/quiz_input.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/rt_err.h"

char quiz_input_letter(size_t i)
{
	return i < QUIZ_INPUT_MAX_OPTIONS ? (char)('a' + i) : '?';
}

/* White space around and between parts of an answer, as quiz_parse_number() skips it. */
static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* True when [@s, @s+@n) can be quoted back safely and briefly. */
static bool quotable(const char *s, size_t n)
{
	if (!n || n > 24)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x21 || s[i] > 0x7e || s[i] == '\'')
			return false;
	return true;
}

static int parse_choices(const struct quiz *q, const char *s, size_t len, struct quiz_input *in,
			 char **why)
{
	bool ticked[QUIZ_INPUT_MAX_OPTIONS] = { false };
	char last = quiz_input_letter(q->noptions - 1);
	bool single = q->kind == QUIZ_SINGLE;
	size_t n = 0, pos = 0;

	for (size_t i = 0; i < len; i++) {
		char c = lower(s[i]);

		if (is_blank(c) || (c == ',' && !single))
			continue;
		if (c < 'a' || c > 'z') {
			if (c > 0x20 && c < 0x7f && c != '\'')
				return rt_err(why, -EINVAL, "'%c' is not a letter from a to %c", c,
					      last);
			return rt_err(why, -EINVAL, "type only letters from a to %c%s", last,
				      single ? "" : ", separated by commas or spaces");
		}
		/* Letters must stand alone: "ab" is two answers run together. */
		if (i + 1 < len && ((s[i + 1] >= 'a' && s[i + 1] <= 'z') ||
				    (s[i + 1] >= 'A' && s[i + 1] <= 'Z')))
			return rt_err(why, -EINVAL, single ?
				      "type one letter only, a to %c" :
				      "separate the letters with commas or spaces (a to %c)", last);
		if ((size_t)(c - 'a') >= q->noptions)
			return rt_err(why, -EINVAL, "'%c' is not one of a to %c", c, last);
		if (single && n)
			return rt_err(why, -EINVAL, "choose one letter only, a to %c", last);
		if (!ticked[c - 'a'])
			n++;
		ticked[c - 'a'] = true;
	}
	if (!n)
		return rt_err(why, -EINVAL, single ? "type one letter, a to %c" :
			      "type one or more letters from a to %c, e.g. \"a, c\"", last);
	in->answer.nchoices = n;
	n = 0;
	for (size_t i = 0; i < q->noptions; i++) {
		if (!ticked[i])
			continue;
		in->choices[n++] = (unsigned int)i;
		in->text[pos++] = quiz_input_letter(i);
		if (n < in->answer.nchoices)
			in->text[pos++] = ',';
	}
	in->text[pos] = '\0';
	if (single)
		in->answer.choice = in->choices[0];
	else
		in->answer.choices = in->choices;
	return 0;
}

static int parse_number(const struct quiz *q, const char *s, size_t len, struct quiz_input *in,
			char **why)
{
	size_t ulen = q->unit ? strlen(q->unit) : 0;
	double v;

	/* "350 us" or "350us": drop the question's own unit. */
	if (ulen && len > ulen && !strncasecmp(s + len - ulen, q->unit, ulen)) {
		char before = s[len - ulen - 1];

		if (is_blank(before) || (before >= '0' && before <= '9') || before == '.') {
			len -= ulen;
			while (len && is_blank(s[len - 1]))
				len--;
		}
	}
	if (!len)
		return rt_err(why, -EINVAL, "type a number%s%s", ulen ? " in " : "",
			      ulen ? q->unit : "");
	memcpy(in->text, s, len);
	in->text[len] = '\0';
	if (quiz_parse_number(in->text, &v)) {
		if (quotable(s, len))
			return rt_err(why, -EINVAL,
				      "'%s' is not a plain number (like 42 or 0.5, no exponent)",
				      in->text);
		return rt_err(why, -EINVAL, "type a plain number, like 42 or 0.5");
	}
	in->answer.text = in->text;
	return 0;
}

int quiz_input_parse(const struct quiz *q, const char *line, struct quiz_input *in,
		     char **why)
{
	size_t len;

	if (!q || !line || !in)
		return -EINVAL;
	memset(in, 0, sizeof(*in));
	len = strlen(line);
	while (len && is_blank(line[len - 1]))
		len--;
	while (len && is_blank(*line)) {
		line++;
		len--;
	}
	if (len > QUIZ_INPUT_MAX_LINE)
		return rt_err(why, -EINVAL, "that line is too long (%d characters at most)",
			      QUIZ_INPUT_MAX_LINE);
	switch (q->kind) {
	case QUIZ_SINGLE:
	case QUIZ_MULTI:
		if (!q->noptions)
			return -EINVAL;
		if (q->noptions > QUIZ_INPUT_MAX_OPTIONS)
			return rt_err(why, -ENOTSUP,
				      "question %s has more than %d options to choose from",
				      q->id ? q->id : "?", QUIZ_INPUT_MAX_OPTIONS);
		return parse_choices(q, line, len, in, why);
	case QUIZ_NUMERIC:
	case QUIZ_PREDICT:
		return parse_number(q, line, len, in, why);
	}
	return -EINVAL;
}
