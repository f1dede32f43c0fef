/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * quiz: the block parser works in two passes. The first pass reads the body
 * line by line and only checks each line on its own (syntax, known key, no
 * duplicate, value well formed); the second pass checks the block as a whole
 * (required keys, keys and options that the kind allows). Keys may come in
 * any order, so the kind is only known after the first pass. The first
 * problem found is reported; a lesson author fixes one thing at a time.
 */
#include "quiz.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_err.h"
#include "lesson/lesson_labs.h"

enum quiz_key {
	KEY_ID,
	KEY_KIND,
	KEY_QUESTION,
	KEY_EXPLAIN,
	KEY_ANSWER,
	KEY_TOLERANCE,
	KEY_UNIT,
	KEY_LAB,
	KEY_METRIC,
	KEY_SCENARIO,
	KEY_WHEN,
	KEY_COUNT,
};

static const char *const key_names[KEY_COUNT] = {
	[KEY_ID] = "id",
	[KEY_KIND] = "kind",
	[KEY_QUESTION] = "question",
	[KEY_EXPLAIN] = "explain",
	[KEY_ANSWER] = "answer",
	[KEY_TOLERANCE] = "tolerance",
	[KEY_UNIT] = "unit",
	[KEY_LAB] = "lab",
	[KEY_METRIC] = "metric",
	[KEY_SCENARIO] = "scenario",
	[KEY_WHEN] = "when",
};

static const char *const kind_names[] = {
	[QUIZ_SINGLE] = "single",
	[QUIZ_MULTI] = "multi",
	[QUIZ_NUMERIC] = "numeric",
	[QUIZ_PREDICT] = "predict",
};

/* Which keys each kind requires (R) or allows (O); the others are errors for that kind. */
#define R 2
#define O 1
static const unsigned char key_rule[4][KEY_COUNT] = {
	[QUIZ_SINGLE] = { R, R, R, R, 0, 0, 0, 0, 0, 0, 0 },
	[QUIZ_MULTI] = { R, R, R, R, 0, 0, 0, 0, 0, 0, 0 },
	[QUIZ_NUMERIC] = { R, R, R, R, R, R, R, 0, 0, 0, 0 },
	[QUIZ_PREDICT] = { R, R, R, R, 0, 0, R, R, R, R, O },
};
#undef O
#undef R

/* Units a results summary key may end in (DESIGN.md: p99_us, lost_count...). */
static const char *const metric_units[] = {
	"ns", "us", "ms", "s", "pct", "ratio", "count", "hz", "bytes", NULL,
};

struct quiz_parse {
	const char *name;
	unsigned int fence_line;
	struct quiz *q;
	char *val[KEY_COUNT];		/* owned until moved into q */
	unsigned int key_line[KEY_COUNT];	/* 0 = absent */
	size_t cap_options;
	char **cause;
};

const char *quiz_kind_name(enum quiz_kind kind)
{
	if ((unsigned int)kind >= sizeof(kind_names) / sizeof(kind_names[0]))
		return "?";
	return kind_names[kind];
}

void quiz_free(struct quiz *q)
{
	if (!q)
		return;
	for (size_t i = 0; i < q->noptions; i++)
		free(q->options[i].text);
	free(q->options);
	free(q->id);
	free(q->question);
	free(q->explain);
	free(q->unit);
	free(q->lab);
	free(q->metric);
	free(q->scenario);
	free(q->when);
	free(q);
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

int quiz_parse_number(const char *text, double *value)
{
	const char *p = text, *start, *end;
	unsigned int digits = 0;
	char *stop;
	double v;

	while (is_space(*p))
		p++;
	start = p;
	if (*p == '+' || *p == '-')
		p++;
	while (*p >= '0' && *p <= '9') {
		p++;
		digits++;
	}
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9') {
			p++;
			digits++;
		}
	}
	end = p;
	while (is_space(*p))
		p++;
	if (!digits || *p)
		return -EINVAL;
	errno = 0;
	v = strtod(start, &stop);
	if (stop != end || !isfinite(v))
		return -EINVAL;
	*value = v;
	return 0;
}

static int perr(struct quiz_parse *st, unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr(struct quiz_parse *st, unsigned int line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return rt_err(st->cause, -EINVAL, "%s:%u: %s", st->name, line, msg);
}

/* A copy of [s, s+n) with white space trimmed at both ends, or NULL. */
static char *dup_trim(const char *s, size_t n)
{
	char *d;

	while (n && is_space(*s)) {
		s++;
		n--;
	}
	while (n && is_space(s[n - 1]))
		n--;
	d = malloc(n + 1);
	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

static bool valid_slug(const char *s, bool letter_first)
{
	if (!*s || (letter_first && !(*s >= 'a' && *s <= 'z')))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
			return false;
	return true;
}

int quiz_when_next(const char **p, struct quiz_when_cond *c)
{
	const char *s = *p, *dot, *eq, *end;
	size_t n;

	while (is_space(*s))
		s++;
	if (!*s) {
		*p = s;
		return 0;
	}
	*p = s;
	end = strchr(s, ',');
	if (!end)
		end = s + strlen(s);
	dot = memchr(s, '.', (size_t)(end - s));
	eq = memchr(s, '=', (size_t)(end - s));
	if (!dot || !eq || dot > eq)
		return -EINVAL;
	n = (size_t)(dot - s);
	if (!((n == 6 && !strncmp(s, "params", 6)) || (n == 3 && !strncmp(s, "env", 3)) ||
	      (n == 8 && !strncmp(s, "scenario", 8))))
		return -EINVAL;
	memcpy(c->section, s, n);
	c->section[n] = '\0';
	n = (size_t)(eq - dot - 1);
	if (!n || n >= sizeof(c->key))
		return -EINVAL;
	for (const char *k = dot + 1; k < eq; k++)
		if (!((*k >= 'a' && *k <= 'z') || (*k >= '0' && *k <= '9') || *k == '_'))
			return -EINVAL;
	memcpy(c->key, dot + 1, n);
	c->key[n] = '\0';
	for (s = eq + 1; s < end && is_space(*s); s++)
		;
	n = (size_t)(end - s);
	while (n && is_space(s[n - 1]))
		n--;
	if (!n || n >= sizeof(c->value))
		return -EINVAL;
	memcpy(c->value, s, n);
	c->value[n] = '\0';
	*p = *end ? end + 1 : end;
	return 1;
}

/* The unit suffix of a metric key ("p99_us" -> "us"), or NULL. */
static const char *metric_unit(const char *metric)
{
	const char *us = strrchr(metric, '_');

	if (!us || us == metric)
		return NULL;
	for (const char *c = metric; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
			return NULL;
	for (unsigned int i = 0; metric_units[i]; i++)
		if (!strcmp(us + 1, metric_units[i]))
			return us + 1;
	return NULL;
}

static int add_option(struct quiz_parse *st, const char *text, size_t n, bool right,
		      unsigned int line)
{
	struct quiz *q = st->q;
	struct quiz_option *o;

	if (q->noptions == st->cap_options) {
		size_t cap = st->cap_options ? st->cap_options * 2 : 4;

		o = realloc(q->options, cap * sizeof(*o));
		if (!o)
			return -ENOMEM;
		q->options = o;
		st->cap_options = cap;
	}
	o = &q->options[q->noptions];
	o->text = dup_trim(text, n);
	if (!o->text)
		return -ENOMEM;
	o->right = right;
	o->line = line;
	q->noptions++;
	if (!*o->text)
		return perr(st, line, "option has no text");
	return 0;
}

static int parse_option(struct quiz_parse *st, const char *s, size_t n, unsigned int line)
{
	/* s starts with '-' and has no leading white space. */
	if (n < 5 || s[1] != ' ' || s[2] != '[' || s[4] != ']' ||
	    (s[3] != ' ' && s[3] != 'x' && s[3] != 'X') || (n > 5 && s[5] != ' '))
		return perr(st, line, "malformed option: write '- [ ] text' or '- [x] text'");
	return add_option(st, s + 5, n - 5, s[3] != ' ', line);
}

static int parse_field(struct quiz_parse *st, const char *s, size_t n, unsigned int line)
{
	size_t k = 0;
	char key[16];
	int idx = -1;
	char *v;

	while (k < n && ((s[k] >= 'a' && s[k] <= 'z') || s[k] == '_'))
		k++;
	if (!k || k >= n || s[k] != ':')
		return perr(st, line, "expected 'key: value' or an option '- [ ] text'");
	if (k >= sizeof(key))
		k = sizeof(key) - 1;	/* long keys are unknown anyway */
	memcpy(key, s, k);
	key[k] = '\0';
	for (int i = 0; i < KEY_COUNT; i++)
		if (!strcmp(key, key_names[i]))
			idx = i;
	if (idx < 0)
		return perr(st, line, "unknown key '%s'", key);
	if (st->key_line[idx])
		return perr(st, line, "duplicate key '%s' (first on line %u)", key,
			    st->key_line[idx]);
	v = dup_trim(s + k + 1, n - k - 1);
	if (!v)
		return -ENOMEM;
	st->val[idx] = v;
	st->key_line[idx] = line;
	if (!*v)
		return perr(st, line, "key '%s' has no value", key);

	switch (idx) {
	case KEY_ID:
		if (!valid_slug(v, true))
			return perr(st, line, "id '%s' must be lower-case letters, digits and "
				    "hyphens, starting with a letter", v);
		break;
	case KEY_KIND:
		for (unsigned int i = 0; i < 4; i++)
			if (!strcmp(v, kind_names[i]))
				return 0;
		return perr(st, line, "unknown kind '%s' (single, multi, numeric or predict)",
			    v);
	case KEY_ANSWER:
		if (quiz_parse_number(v, &st->q->answer))
			return perr(st, line, "answer '%s' is not a decimal number", v);
		break;
	case KEY_TOLERANCE:
		if (quiz_parse_number(v, &st->q->tolerance))
			return perr(st, line, "tolerance '%s' is not a decimal number", v);
		if (st->q->tolerance < 0)
			return perr(st, line, "tolerance '%s' is negative", v);
		break;
	case KEY_LAB:
		switch (lesson_labs_find(v, NULL)) {
		case 0:
			break;
		case -ENOENT:
			return perr(st, line, "unknown lab '%s'", v);
		default:
			return perr(st, line, "lab '%s' not checked: no list of labs was given "
				    "(lesson_labs_set())", v);
		}
		break;
	case KEY_METRIC:
		if (!metric_unit(v))
			return perr(st, line, "metric '%s' must be a summary key ending in a unit "
				    "(_us, _ms, _pct, _count...)", v);
		break;
	case KEY_SCENARIO:
		if (!valid_slug(v, false))
			return perr(st, line, "scenario '%s' must be lower-case letters, digits "
				    "and hyphens", v);
		break;
	case KEY_WHEN: {
		struct quiz_when_cond c;
		const char *w = v;
		int r;

		while ((r = quiz_when_next(&w, &c)) > 0)
			;
		if (r < 0)
			return perr(st, line, "when: '%s' is not params.KEY=VALUE, env.KEY=VALUE or "
				    "scenario.KEY=VALUE (conditions separated by commas)", w);
		break;
	}
	}
	return 0;
}

static int parse_lines(struct quiz_parse *st, const char *body, unsigned int first_line)
{
	unsigned int line = first_line;
	const char *p = body;

	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		const char *s = p;
		int ret = 0;

		while (n && is_space(*s)) {
			s++;
			n--;
		}
		while (n && is_space(s[n - 1]))
			n--;
		if (n && s[0] == '-')
			ret = parse_option(st, s, n, line);
		else if (n)
			ret = parse_field(st, s, n, line);
		if (ret)
			return ret;
		if (!eol)
			break;
		p = eol + 1;
		line++;
	}
	return 0;
}

static int check_block(struct quiz_parse *st)
{
	struct quiz *q = st->q;
	unsigned int nright = 0;

	for (int i = KEY_ID; i <= KEY_EXPLAIN; i++)
		if (!st->key_line[i])
			return perr(st, st->fence_line, "missing key '%s'", key_names[i]);
	for (unsigned int i = 0; i < 4; i++)
		if (!strcmp(st->val[KEY_KIND], kind_names[i]))
			q->kind = (enum quiz_kind)i;

	for (int i = 0; i < KEY_COUNT; i++) {
		unsigned char rule = key_rule[q->kind][i];

		if (st->key_line[i] && !rule)
			return perr(st, st->key_line[i], "key '%s' does not apply to kind %s",
				    key_names[i], kind_names[q->kind]);
		if (!st->key_line[i] && rule == 2)
			return perr(st, st->fence_line, "missing key '%s'", key_names[i]);
	}

	for (size_t i = 0; i < q->noptions; i++)
		nright += q->options[i].right;
	switch (q->kind) {
	case QUIZ_SINGLE:
	case QUIZ_MULTI:
		if (q->noptions < 2)
			return perr(st, q->noptions ? q->options[0].line : st->fence_line,
				    "%s question needs at least two options",
				    kind_names[q->kind]);
		if (q->kind == QUIZ_SINGLE && nright != 1)
			return perr(st, q->options[0].line,
				    "single question needs exactly one [x] option, has %u", nright);
		if (q->kind == QUIZ_MULTI && !nright)
			return perr(st, q->options[0].line,
				    "multi question needs at least one [x] option");
		break;
	case QUIZ_NUMERIC:
	case QUIZ_PREDICT:
		if (q->noptions)
			return perr(st, q->options[0].line, "options do not apply to kind %s",
				    kind_names[q->kind]);
		break;
	}
	if (q->kind == QUIZ_PREDICT && strcmp(metric_unit(st->val[KEY_METRIC]), st->val[KEY_UNIT]))
		return perr(st, st->key_line[KEY_UNIT],
			    "unit '%s' must match the unit suffix of the metric", st->val[KEY_UNIT]);
	return 0;
}

int quiz_parse_block(const char *body, unsigned int first_line, const char *name,
		     struct quiz **out, char **cause)
{
	struct quiz_parse st = { 0 };
	int ret;

	*out = NULL;
	if (!name)
		name = "quiz";
	if (!first_line)
		first_line = 1;
	st.name = name;
	st.cause = cause;
	st.fence_line = first_line > 1 ? first_line - 1 : 1;
	st.q = calloc(1, sizeof(*st.q));
	if (!st.q) {
		ret = -ENOMEM;
		goto out_err;
	}
	st.q->line = st.fence_line;

	ret = parse_lines(&st, body, first_line);
	if (ret)
		goto out_err;
	ret = check_block(&st);
	if (ret)
		goto out_err;

	/* Move the values into the quiz; the ones a kind does not use are NULL. */
	st.q->id = st.val[KEY_ID];
	st.q->question = st.val[KEY_QUESTION];
	st.q->explain = st.val[KEY_EXPLAIN];
	st.q->unit = st.val[KEY_UNIT];
	st.q->lab = st.val[KEY_LAB];
	st.q->metric = st.val[KEY_METRIC];
	st.q->scenario = st.val[KEY_SCENARIO];
	st.q->when = st.val[KEY_WHEN];
	st.val[KEY_ID] = st.val[KEY_QUESTION] = st.val[KEY_EXPLAIN] = NULL;
	st.val[KEY_UNIT] = st.val[KEY_LAB] = st.val[KEY_METRIC] = st.val[KEY_SCENARIO] = NULL;
	st.val[KEY_WHEN] = NULL;
	for (int i = 0; i < KEY_COUNT; i++)
		free(st.val[i]);
	*out = st.q;
	return 0;

out_err:
	if (ret == -ENOMEM)
		rt_err(cause, ret, "%s: out of memory parsing a quiz block", name);
	for (int i = 0; i < KEY_COUNT; i++)
		free(st.val[i]);
	quiz_free(st.q);
	return ret;
}

/* ---- Answers ---------------------------------------------------------- */

static int check_choices(const struct quiz *q, const struct quiz_answer *a,
			 struct quiz_verdict *v)
{
	bool *ticked;
	int ret = 0;

	ticked = calloc(q->noptions ? q->noptions : 1, sizeof(*ticked));
	if (!ticked)
		return -ENOMEM;
	if (q->kind == QUIZ_SINGLE) {
		if (a->choice >= q->noptions) {
			ret = -EINVAL;
			goto out_free;
		}
		ticked[a->choice] = true;
	} else {
		if (a->nchoices && !a->choices) {
			ret = -EINVAL;
			goto out_free;
		}
		for (size_t i = 0; i < a->nchoices; i++) {
			if (a->choices[i] >= q->noptions) {
				ret = -EINVAL;
				goto out_free;
			}
			ticked[a->choices[i]] = true;
		}
	}
	for (size_t i = 0; i < q->noptions; i++) {
		if (ticked[i] && q->options[i].right)
			v->right_chosen++;
		else if (ticked[i])
			v->wrong_chosen++;
		else if (q->options[i].right)
			v->right_missed++;
	}
	v->correct = !v->wrong_chosen && !v->right_missed;
out_free:
	free(ticked);
	return ret;
}

int quiz_check_answer(const struct quiz *q, const struct quiz_answer *answer,
		      struct quiz_verdict *verdict)
{
	struct quiz_verdict v = { 0 };
	int ret;

	if (!q || !answer || !verdict)
		return -EINVAL;
	switch (q->kind) {
	case QUIZ_SINGLE:
	case QUIZ_MULTI:
		ret = check_choices(q, answer, &v);
		break;
	case QUIZ_NUMERIC:
	case QUIZ_PREDICT:
		if (!answer->text)
			return -EINVAL;
		ret = quiz_parse_number(answer->text, &v.value);
		if (ret)
			break;
		if (q->kind == QUIZ_PREDICT)
			v.correct = true;
		else
			v.correct = fabs(v.value - q->answer) <=
				    q->tolerance + 1e-9 * fmax(1.0, fabs(q->answer));
		break;
	default:
		ret = -EINVAL;
	}
	if (!ret)
		*verdict = v;
	return ret;
}
