/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_result_check: the validator. Every document is checked as a whole
 * before it is written and after it is read, each schema version against
 * its own field lists: /2 is /1 plus optional fields (overflow_buckets in a
 * histogram, views, integrity), and a /1 document with a /2 field is
 * refused as it always was.
 *
 * The validator never builds path strings while it walks (a histogram can
 * have a million buckets); it keeps a chain of path segments on the stack
 * and renders "histograms[2].counts[5]" only when it reports an error.
 *
 * Which labs exist is not core's to know: the caller says so in struct
 * rt_result_opts. Without a list, a lab name is only checked for its
 * syntax.
 */
#include "rt_result.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_buf.h"
#include "rt_err.h"
#include "rt_result-int.h"

bool rt_result_in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (strcmp(*list, s) == 0)
			return true;
	return false;
}

/* Comma-separated list for messages, e.g. "host, vm, simulation". */
static void join_list(char *dst, size_t size, const char *const *list)
{
	size_t used = 0;

	dst[0] = '\0';
	for (; *list && used < size; list++) {
		int n = snprintf(dst + used, size - used, "%s%s", used ? ", " : "", *list);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

/* ---- Names and numbers ------------------------------------------------- */

/* Parameter, answer and histogram names: 1..RT_RESULT_MAX_KEY of [A-Za-z0-9_.-]. */
bool rt_result_key_valid(const char *key)
{
	size_t n = 0;

	if (!key)
		return false;
	for (const char *p = key; *p; p++, n++) {
		char c = *p;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-'))
			return false;
	}
	return n >= 1 && n <= RT_RESULT_MAX_KEY;
}

/* Summary keys: [a-z][a-z0-9_]* ending in "_<unit>", at most RT_RESULT_MAX_KEY bytes. */
bool rt_result_summary_key_valid(const char *key)
{
	const char *us;
	size_t n;

	if (!key || !(key[0] >= 'a' && key[0] <= 'z'))
		return false;
	n = strlen(key);
	if (n > RT_RESULT_MAX_KEY)
		return false;
	for (const char *p = key; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	us = strrchr(key, '_');
	return us && us > key && rt_result_in_list(rt_result_units, us + 1);
}

/* ---- Time stamps ------------------------------------------------------- */

static int digits(const char *s, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

bool rt_result_time_valid(const char *s)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int year, mon, day, hour, min, sec;
	const char *p;

	if (!s || strlen(s) < 20)
		return false;
	year = digits(s, 4);
	mon = digits(s + 5, 2);
	day = digits(s + 8, 2);
	hour = digits(s + 11, 2);
	min = digits(s + 14, 2);
	sec = digits(s + 17, 2);
	if (s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':')
		return false;
	if (year < 0 || mon < 1 || mon > 12 || day < 1 || day > mdays[mon - 1] || hour < 0 ||
	    hour > 23 || min < 0 || min > 59 || sec < 0 || sec > 60)
		return false;
	if (mon == 2 && day == 29 && !(year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)))
		return false;
	p = s + 19;
	if (*p == '.') {
		if (p[1] < '0' || p[1] > '9')
			return false;
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	}
	return p[0] == 'Z' && p[1] == '\0';
}

/* ---- Validator --------------------------------------------------------- */

static bool plain_key(const char *k)
{
	if (!*k || strlen(k) > RT_RESULT_MAX_KEY)
		return false;
	for (; *k; k++)
		if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') ||
		      (*k >= '0' && *k <= '9') || *k == '_' || *k == '-'))
			return false;
	return true;
}

/* @s in double quotes, control characters escaped, cut after 40 bytes. */
static void quote_into(struct rt_buf *b, const char *s)
{
	size_t n = 0;

	rt_buf_puts(b, "\"");
	for (; *s && n < 40; s++, n++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			rt_buf_printf(b, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			rt_buf_printf(b, "\\u%04x", c);
		else
			rt_buf_append(b, s, 1);
	}
	rt_buf_puts(b, *s ? "...\"" : "\"");
}

static void path_into(struct rt_buf *b, const struct rt_result_seg *at)
{
	if (!at)
		return;
	path_into(b, at->up);
	if (!at->key) {
		rt_buf_printf(b, "[%zu]", at->idx);
	} else if (plain_key(at->key)) {
		rt_buf_printf(b, "%s%s", at->up ? "." : "", at->key);
	} else {
		rt_buf_puts(b, "[");
		quote_into(b, at->key);
		rt_buf_puts(b, "]");
	}
}

/* Report "PATH: message" and return -EINVAL. */
__attribute__((format(printf, 3, 4)))
static int bad(char **cause, const struct rt_result_seg *at, const char *fmt, ...)
{
	struct rt_buf b = RT_BUF_INIT;
	va_list ap;
	char *msg = NULL;

	if (!cause || *cause)
		return -EINVAL;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (at)
		path_into(&b, at);
	else
		rt_buf_puts(&b, "document");
	rt_err(cause, -EINVAL, "%s: %s", rt_buf_str(&b), msg ? msg : "invalid");
	free(msg);
	rt_buf_fini(&b);
	return -EINVAL;
}

/* A quoted copy of @s for a message; the caller frees it. */
static char *quoted(const char *s)
{
	struct rt_buf b = RT_BUF_INIT;

	quote_into(&b, s);
	return rt_buf_take(&b);
}

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a real number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	case JSON_NULL:
		return "null";
	}
	return "unknown";
}

static int want_type(char **cause, const struct rt_result_seg *at, const json_t *v, json_type t,
		     const char *what)
{
	if (json_typeof(v) == t || (t == JSON_TRUE && json_is_boolean(v)))
		return 0;
	return bad(cause, at, "must be %s (got %s)", what, type_name(v));
}

/*
 * @v for a message: the shortest of 15 to 17 significant digits that reads
 * back as @v (so a value just out of range does not print as the limit),
 * without the "+" and leading zeros of the exponent: "1e308", "-1e300",
 * "0.5", "1000000001".
 */
static const char *num_text(double v, char buf[32])
{
	char *e;

	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, 32, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	e = strchr(buf, 'e');
	if (e) {
		char *d = e + 1, *src;

		if (*d == '+')
			memmove(d, d + 1, strlen(d));
		else if (*d == '-')
			d++;
		for (src = d; *src == '0' && src[1]; src++)
			;
		memmove(d, src, strlen(src) + 1);
	}
	return buf;
}

/* Refuse @x outside [lo, hi]; @range is the rule as the message states it. */
static int check_range(char **cause, const struct rt_result_seg *at, double x, double lo, double hi,
		       const char *range)
{
	char t[32];

	if (x >= lo && x <= hi)
		return 0;
	return bad(cause, at, "%s is out of range (%s)", num_text(x, t), range);
}

static int check_finite(char **cause, const struct rt_result_seg *at, const json_t *v)
{
	if (!json_is_number(v))
		return bad(cause, at, "must be a number (got %s)", type_name(v));
	if (!isfinite(json_number_value(v)))
		return bad(cause, at, "must be a finite number");
	return 0;
}

/*
 * A number: finite, and a real within +-RT_RESULT_MAX_MAGNITUDE (integers
 * already fit 64 bits: jansson refuses bigger ones), so that a reader can
 * print it in 16 digits and turn it into an integer without overflow.
 */
static int check_number(char **cause, const struct rt_result_seg *at, const json_t *v)
{
	int ret = check_finite(cause, at, v);

	if (ret)
		return ret;
	if (json_is_real(v))
		return check_range(cause, at, json_real_value(v), -RT_RESULT_MAX_MAGNITUDE,
				   RT_RESULT_MAX_MAGNITUDE, "magnitude at most 1e15");
	return 0;
}

static int check_count(char **cause, const struct rt_result_seg *at, const json_t *v)
{
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return bad(cause, at, "must be a non-negative integer");
	return 0;
}

/* A number of samples: an integer in 0 .. RT_RESULT_MAX_MAGNITUDE. */
static int check_samples(char **cause, const struct rt_result_seg *at, const json_t *v)
{
	int ret = check_count(cause, at, v);

	if (!ret)
		ret = check_range(cause, at, (double)json_integer_value(v), 0,
				  RT_RESULT_MAX_MAGNITUDE, "0 <= count <= 1e15");
	return ret;
}

static int check_string(char **cause, const struct rt_result_seg *at, const json_t *v, size_t max,
			bool nonempty)
{
	size_t n;

	if (!json_is_string(v))
		return bad(cause, at, "must be a string (got %s)", type_name(v));
	n = json_string_length(v);
	if (nonempty && n == 0)
		return bad(cause, at, "must not be empty");
	if (n > max)
		return bad(cause, at, "longer than %zu bytes", max);
	if (strlen(json_string_value(v)) != n)
		return bad(cause, at, "must not contain NUL characters");
	return 0;
}

static int check_oneof(char **cause, const struct rt_result_seg *at, const json_t *v,
		       const char *const *list)
{
	char known[128];
	char *q;
	int ret;

	ret = check_string(cause, at, v, 64, false);
	if (ret)
		return ret;
	if (rt_result_in_list(list, json_string_value(v)))
		return 0;
	join_list(known, sizeof(known), list);
	q = quoted(json_string_value(v));
	ret = bad(cause, at, "must be one of %s (got %s)", known, q ? q : "?");
	free(q);
	return ret;
}

/*
 * Refuse keys of @obj that table @t does not declare in @version of the
 * document ("typos must not pass silently").
 */
static int check_known_keys(char **cause, const struct rt_result_seg *at, const json_t *obj,
			    const struct rt_keys *t, unsigned int version)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)obj, key, v) {
		struct rt_result_seg s = { at, key, 0 };

		if (!rt_keys_known(t, key, version))
			return bad(cause, &s, "unknown field");
	}
	return 0;
}

/* Fetch required field @key of @obj or report it missing. */
static int need(char **cause, const struct rt_result_seg *at, const json_t *obj, const char *key,
		json_t **out)
{
	struct rt_result_seg s = { at, key, 0 };

	*out = json_object_get(obj, key);
	if (!*out)
		return bad(cause, &s, "missing");
	return 0;
}

/*
 * env, key by key from its table: presence, type and words; then the two
 * rules the table cannot say (vm_type against in_vm, the range of cpus).
 */
static int check_env(char **cause, const struct rt_result_seg *at, const json_t *env)
{
	const json_t *in_vm = json_object_get(env, "in_vm");
	int ret;

	ret = want_type(cause, at, env, JSON_OBJECT, "an object");
	if (!ret)
		ret = check_known_keys(cause, at, env, &rt_result_env_keys, 0);
	for (const struct rt_key *k = rt_result_env_keys.keys; !ret && k->key; k++) {
		struct rt_result_seg s = { at, k->key, 0 };
		json_t *v;

		if (!json_object_get(env, k->key) && !k->required)
			continue;
		ret = need(cause, at, env, k->key, &v);
		if (ret)
			break;
		if (k->values)
			ret = check_oneof(cause, &s, v, k->values);
		else if (k->type & RT_T_NULL)	/* vm_type */
			ret = json_is_true(in_vm) ? check_string(cause, &s, v, 1024, true) :
			      json_is_null(v) ? 0 : bad(cause, &s, "must be null when in_vm is false");
		else if (k->type == RT_T_STRING)
			ret = check_string(cause, &s, v, 1024, false);
		else if (k->type == RT_T_BOOL)
			ret = want_type(cause, &s, v, JSON_TRUE, "true or false");
		else if (k->type == RT_T_INTEGER)
			ret = check_count(cause, &s, v);
		if (!ret && k->min < k->max)
			ret = check_range(cause, &s, json_number_value(v), k->min, k->max,
					  "at most 65536");
	}
	return ret;
}

static int check_scalar(char **cause, const struct rt_result_seg *at, const json_t *v)
{
	if (json_is_string(v))
		return check_string(cause, at, v, RT_RESULT_MAX_TEXT_LEN, false);
	if (json_is_number(v))
		return check_number(cause, at, v);
	if (json_is_boolean(v))
		return 0;
	return bad(cause, at, "must be a string, number or boolean (got %s)", type_name(v));
}

int rt_result_check_params(char **cause, const struct rt_result_seg *at, const json_t *params)
{
	const char *key;
	json_t *v;
	int ret;

	ret = want_type(cause, at, params, JSON_OBJECT, "an object");
	if (ret)
		return ret;
	json_object_foreach((json_t *)params, key, v) {
		struct rt_result_seg s = { at, key, 0 };

		if (!rt_result_key_valid(key))
			return bad(cause, &s, "name must be 1..%u characters of A-Z a-z 0-9 _ . -",
				   RT_RESULT_MAX_KEY);
		if (!json_is_array(v)) {
			ret = check_scalar(cause, &s, v);
			if (ret)
				return ret;
			continue;
		}
		if (json_array_size(v) > RT_RESULT_MAX_ARRAY_PARAM)
			return bad(cause, &s, "more than %u elements", RT_RESULT_MAX_ARRAY_PARAM);
		for (size_t i = 0; i < json_array_size(v); i++) {
			struct rt_result_seg e = { &s, NULL, i };

			ret = check_scalar(cause, &e, json_array_get(v, i));
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int check_summary(char **cause, const struct rt_result_seg *at, const json_t *summary)
{
	char known[128];
	const char *key;
	json_t *v;
	int ret;

	ret = want_type(cause, at, summary, JSON_OBJECT, "an object");
	if (ret)
		return ret;
	json_object_foreach((json_t *)summary, key, v) {
		struct rt_result_seg s = { at, key, 0 };

		if (!rt_result_summary_key_valid(key)) {
			join_list(known, sizeof(known), rt_result_units);
			return bad(cause, &s, "name must be [a-z][a-z0-9_]* (at most %u bytes) "
				   "ending in _UNIT, UNIT one of %s", RT_RESULT_MAX_KEY, known);
		}
		ret = check_finite(cause, &s, v);
		if (!ret)
			ret = check_range(cause, &s, json_number_value(v), -RT_RESULT_MAX_MAGNITUDE,
					  RT_RESULT_MAX_MAGNITUDE, "magnitude at most 1e15");
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * An array of non-negative integers: bucket counts (with @total: each
 * within 0 .. RT_RESULT_MAX_MAGNITUDE, their sum added to *@total) or, with
 * @total NULL, cycle numbers.
 */
static int check_count_array(char **cause, const struct rt_result_seg *at, const json_t *v,
			     bool nonempty, uint64_t *total)
{
	size_t n;
	int ret;

	ret = want_type(cause, at, v, JSON_ARRAY, "an array");
	if (ret)
		return ret;
	n = json_array_size(v);
	if (nonempty && n == 0)
		return bad(cause, at, "must have at least one bucket");
	if (n > RT_RESULT_MAX_BUCKETS)
		return bad(cause, at, "more than %u elements", RT_RESULT_MAX_BUCKETS);
	for (size_t i = 0; i < n; i++) {
		struct rt_result_seg e = { at, NULL, i };

		if (total) {
			ret = check_samples(cause, &e, json_array_get(v, i));
			/* Both terms are at most 1e15 here, so the sum cannot wrap. */
			if (!ret && *total <= (uint64_t)RT_RESULT_MAX_MAGNITUDE)
				*total += (uint64_t)json_integer_value(json_array_get(v, i));
		} else {
			ret = check_count(cause, &e, json_array_get(v, i));
		}
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * overflow_buckets: [[lower, upper, count], ...], ascending and apart, from
 * @end (where the linear buckets end) on, counts adding up to @overflow.
 */
static int check_overflow_buckets(char **cause, const struct rt_result_seg *at, const json_t *a,
				  double end, uint64_t overflow)
{
	double prev = end;
	uint64_t sum = 0;
	char t1[32], t2[32];
	int ret;

	ret = want_type(cause, at, a, JSON_ARRAY, "an array");
	if (ret)
		return ret;
	if (json_array_size(a) > RT_RESULT_MAX_OVERFLOW_BUCKETS)
		return bad(cause, at, "more than %u buckets", RT_RESULT_MAX_OVERFLOW_BUCKETS);
	for (size_t i = 0; i < json_array_size(a); i++) {
		struct rt_result_seg e = { at, NULL, i };
		struct rt_result_seg e0 = { &e, NULL, 0 }, e1 = { &e, NULL, 1 };
		struct rt_result_seg e2 = { &e, NULL, 2 };
		json_t *b = json_array_get(a, i);
		double lo, hi;

		ret = want_type(cause, &e, b, JSON_ARRAY, "an array [lower, upper, count]");
		if (!ret && json_array_size(b) != 3)
			ret = bad(cause, &e, "must be [lower, upper, count] (got %zu elements)",
				  json_array_size(b));
		if (!ret)
			ret = check_finite(cause, &e0, json_array_get(b, 0));
		if (!ret)
			ret = check_finite(cause, &e1, json_array_get(b, 1));
		if (!ret)
			ret = check_samples(cause, &e2, json_array_get(b, 2));
		if (ret)
			return ret;
		lo = json_number_value(json_array_get(b, 0));
		hi = json_number_value(json_array_get(b, 1));
		ret = check_range(cause, &e1, hi, -RT_RESULT_MAX_MAGNITUDE, RT_RESULT_MAX_MAGNITUDE,
				  "magnitude at most 1e15");
		if (ret)
			return ret;
		if (!(hi > lo))
			return bad(cause, &e, "must end after it starts (%s .. %s)",
				   num_text(lo, t1), num_text(hi, t2));
		if (lo < prev)
			return bad(cause, &e, "starts at %s, below %s where the %s ends",
				   num_text(lo, t1), num_text(prev, t2),
				   i ? "bucket before it" : "last of the counts");
		prev = hi;
		sum += (uint64_t)json_integer_value(json_array_get(b, 2));
		if (sum > (uint64_t)RT_RESULT_MAX_MAGNITUDE)
			break;	/* cannot equal overflow_count: said below */
	}
	if (sum != overflow)
		return bad(cause, at, "the counts add up to %llu, not overflow_count (%llu)",
			   (unsigned long long)sum, (unsigned long long)overflow);
	return 0;
}

static int check_hist(char **cause, const struct rt_result_seg *at, const json_t *h,
		      unsigned int version)
{
	uint64_t total = 0;
	json_t *v;
	int ret;

	ret = want_type(cause, at, h, JSON_OBJECT, "an object");
	if (!ret)
		ret = check_known_keys(cause, at, h, &rt_result_hist_keys, version);
	if (ret)
		return ret;
	{
		struct rt_result_seg s = { at, "name", 0 };

		ret = need(cause, at, h, "name", &v);
		if (!ret)
			ret = check_string(cause, &s, v, RT_RESULT_MAX_KEY, true);
		if (!ret && !rt_result_key_valid(json_string_value(v)))
			ret = bad(cause, &s, "must be 1..%u characters of A-Z a-z 0-9 _ . -",
				  RT_RESULT_MAX_KEY);
		if (ret)
			return ret;
	}
	{
		struct rt_result_seg s = { at, "unit", 0 };

		ret = need(cause, at, h, "unit", &v);
		if (!ret)
			ret = check_oneof(cause, &s, v, rt_result_units);
		if (ret)
			return ret;
	}
	{
		struct rt_result_seg s = { at, "bucket_width", 0 };

		ret = need(cause, at, h, "bucket_width", &v);
		if (!ret)
			ret = check_finite(cause, &s, v);
		if (!ret && !(json_number_value(v) > 0))
			ret = bad(cause, &s, "must be greater than 0");
		if (!ret)
			ret = check_range(cause, &s, json_number_value(v), 0, RT_RESULT_MAX_WIDTH,
					  "0 < width <= 1e6");
		if (ret)
			return ret;
	}
	{
		struct rt_result_seg s = { at, "first_bucket", 0 };

		ret = need(cause, at, h, "first_bucket", &v);
		if (!ret)
			ret = check_finite(cause, &s, v);
		if (!ret)
			ret = check_range(cause, &s, json_number_value(v), -RT_RESULT_MAX_FIRST,
					  RT_RESULT_MAX_FIRST, "-1e9 <= first <= 1e9");
		if (ret)
			return ret;
	}
	{
		struct rt_result_seg s = { at, "counts", 0 };

		ret = need(cause, at, h, "counts", &v);
		if (!ret)
			ret = check_count_array(cause, &s, v, true, &total);
		if (ret)
			return ret;
	}
	{
		struct rt_result_seg s = { at, "overflow_count", 0 };

		ret = need(cause, at, h, "overflow_count", &v);
		if (!ret)
			ret = check_samples(cause, &s, v);
		if (ret)
			return ret;
		total += (uint64_t)json_integer_value(v);
		if (total > (uint64_t)RT_RESULT_MAX_MAGNITUDE)
			return bad(cause, at, "counts and overflow_count add up to more than 1e15 "
				   "samples");
	}
	v = json_object_get(h, "overflow_buckets");
	if (v) {
		struct rt_result_seg s = { at, "overflow_buckets", 0 };
		double end = json_number_value(json_object_get(h, "first_bucket")) +
			     (double)json_array_size(json_object_get(h, "counts")) *
			     json_number_value(json_object_get(h, "bucket_width"));

		ret = check_overflow_buckets(cause, &s, v, end, (uint64_t)json_integer_value(
						     json_object_get(h, "overflow_count")));
		if (ret)
			return ret;
	}
	v = json_object_get(h, "overflow_cycles");
	if (v) {
		struct rt_result_seg s = { at, "overflow_cycles", 0 };

		ret = check_count_array(cause, &s, v, false, NULL);
		if (ret)
			return ret;
	}
	return 0;
}

static int check_hists(char **cause, const struct rt_result_seg *at, const json_t *hists,
		       unsigned int version)
{
	size_t n;
	int ret;

	ret = want_type(cause, at, hists, JSON_ARRAY, "an array");
	if (ret)
		return ret;
	n = json_array_size(hists);
	if (n > RT_RESULT_MAX_HISTS)
		return bad(cause, at, "more than %u histograms", RT_RESULT_MAX_HISTS);
	for (size_t i = 0; i < n; i++) {
		struct rt_result_seg e = { at, NULL, i };
		const char *name;

		ret = check_hist(cause, &e, json_array_get(hists, i), version);
		if (ret)
			return ret;
		name = json_string_value(json_object_get(json_array_get(hists, i), "name"));
		for (size_t j = 0; j < i; j++) {
			struct rt_result_seg s = { &e, "name", 0 };
			json_t *o = json_array_get(hists, j);

			if (strcmp(name, json_string_value(json_object_get(o, "name"))) == 0)
				return bad(cause, &s, "duplicate name \"%s\" (also histograms[%zu])",
					   name, j);
		}
	}
	return 0;
}

static int check_answers(char **cause, const struct rt_result_seg *at, const json_t *answers)
{
	const char *key;
	json_t *v;
	int ret;

	ret = want_type(cause, at, answers, JSON_OBJECT, "an object");
	if (ret)
		return ret;
	json_object_foreach((json_t *)answers, key, v) {
		struct rt_result_seg s = { at, key, 0 };

		if (!rt_result_key_valid(key))
			return bad(cause, &s, "question id must be 1..%u characters of "
				   "A-Z a-z 0-9 _ . -", RT_RESULT_MAX_KEY);
		if (json_is_string(v))
			ret = check_string(cause, &s, v, RT_RESULT_MAX_TEXT_LEN, false);
		else if (json_is_number(v))
			ret = check_number(cause, &s, v);
		else
			ret = bad(cause, &s, "must be a string or a number (got %s)",
				  type_name(v));
		if (ret)
			return ret;
	}
	return 0;
}

static int check_notes(char **cause, const struct rt_result_seg *at, const json_t *notes)
{
	int ret;

	ret = want_type(cause, at, notes, JSON_ARRAY, "an array");
	if (ret)
		return ret;
	if (json_array_size(notes) > RT_RESULT_MAX_NOTES)
		return bad(cause, at, "more than %u notes", RT_RESULT_MAX_NOTES);
	for (size_t i = 0; i < json_array_size(notes); i++) {
		struct rt_result_seg e = { at, NULL, i };

		ret = check_string(cause, &e, json_array_get(notes, i), RT_RESULT_MAX_NOTE_LEN,
				   true);
		if (ret)
			return ret;
	}
	return 0;
}

static int check_depth(char **cause, const struct rt_result_seg *at, const json_t *v,
		       unsigned int depth)
{
	const char *key;
	json_t *child;
	int ret;

	if (json_is_number(v))
		return check_number(cause, at, v);
	if (!json_is_object(v) && !json_is_array(v))
		return 0;
	if (depth > RT_RESULT_MAX_DEPTH)
		return bad(cause, at, "nested deeper than %u levels", RT_RESULT_MAX_DEPTH);
	if (json_is_array(v)) {
		for (size_t i = 0; i < json_array_size(v); i++) {
			struct rt_result_seg e = { at, NULL, i };

			ret = check_depth(cause, &e, json_array_get(v, i), depth + 1);
			if (ret)
				return ret;
		}
		return 0;
	}
	json_object_foreach((json_t *)v, key, child) {
		struct rt_result_seg s = { at, key, 0 };

		ret = check_depth(cause, &s, child, depth + 1);
		if (ret)
			return ret;
	}
	return 0;
}

/* A name field (of a view or a column): 1..RT_RESULT_MAX_KEY of [A-Za-z0-9_.-]. */
static int check_name(char **cause, const struct rt_result_seg *at, const json_t *obj)
{
	struct rt_result_seg s = { at, "name", 0 };
	json_t *v;
	int ret;

	ret = need(cause, at, obj, "name", &v);
	if (!ret)
		ret = check_string(cause, &s, v, RT_RESULT_MAX_KEY, true);
	if (!ret && !rt_result_key_valid(json_string_value(v)))
		ret = bad(cause, &s, "must be 1..%u characters of A-Z a-z 0-9 _ . -",
			  RT_RESULT_MAX_KEY);
	return ret;
}

/* Does an element of @a before index @i have the "name" of element @i? */
static bool name_taken(const json_t *a, size_t i)
{
	const char *name = json_string_value(json_object_get(json_array_get(a, i), "name"));

	for (size_t j = 0; name && j < i; j++)
		if (strcmp(name, json_string_value(json_object_get(json_array_get(a, j),
								   "name"))) == 0)
			return true;
	return false;
}

static int check_column(char **cause, const struct rt_result_seg *at, const json_t *c)
{
	json_t *v;
	int ret;

	ret = want_type(cause, at, c, JSON_OBJECT, "an object");
	if (!ret)
		ret = check_known_keys(cause, at, c, &rt_result_column_keys, 0);
	if (!ret)
		ret = check_name(cause, at, c);
	if (ret)
		return ret;
	v = json_object_get(c, "title");
	if (v) {
		struct rt_result_seg s = { at, "title", 0 };

		ret = check_string(cause, &s, v, 128, true);
		if (ret)
			return ret;
	}
	v = json_object_get(c, "unit");
	if (v) {
		struct rt_result_seg s = { at, "unit", 0 };

		ret = check_oneof(cause, &s, v, rt_result_units);
	}
	return ret;
}

/*
 * A view: a table a lab describes its outcome with (issue: labs own their
 * views). {"name", "title", "columns": [...], "rows": [[cell...]...]}; a
 * cell is a string, a number, a boolean or null (no value).
 */
int rt_result_check_view(char **cause, const struct rt_result_seg *at, const json_t *view)
{
	struct rt_result_seg s_title = { at, "title", 0 }, s_cols = { at, "columns", 0 };
	struct rt_result_seg s_rows = { at, "rows", 0 };
	json_t *v, *cols, *rows;
	size_t ncols;
	int ret;

	ret = want_type(cause, at, view, JSON_OBJECT, "an object");
	if (!ret)
		ret = check_known_keys(cause, at, view, &rt_result_view_keys, 0);
	if (!ret)
		ret = check_name(cause, at, view);
	if (!ret)
		ret = need(cause, at, view, "title", &v);
	if (!ret)
		ret = check_string(cause, &s_title, v, 256, true);
	if (!ret)
		ret = need(cause, at, view, "columns", &cols);
	if (!ret)
		ret = want_type(cause, &s_cols, cols, JSON_ARRAY, "an array");
	if (ret)
		return ret;
	ncols = json_array_size(cols);
	if (ncols < 1 || ncols > RT_RESULT_MAX_COLUMNS)
		return bad(cause, &s_cols, "must have 1 to %u columns", RT_RESULT_MAX_COLUMNS);
	for (size_t i = 0; i < ncols; i++) {
		struct rt_result_seg e = { &s_cols, NULL, i }, n = { &e, "name", 0 };

		ret = check_column(cause, &e, json_array_get(cols, i));
		if (ret)
			return ret;
		if (name_taken(cols, i))
			return bad(cause, &n, "duplicate column name");
	}
	ret = need(cause, at, view, "rows", &rows);
	if (!ret)
		ret = want_type(cause, &s_rows, rows, JSON_ARRAY, "an array");
	if (!ret && json_array_size(rows) > RT_RESULT_MAX_ROWS)
		ret = bad(cause, &s_rows, "more than %u rows", RT_RESULT_MAX_ROWS);
	for (size_t r = 0; !ret && r < json_array_size(rows); r++) {
		struct rt_result_seg e = { &s_rows, NULL, r };
		json_t *row = json_array_get(rows, r);

		ret = want_type(cause, &e, row, JSON_ARRAY, "an array of cells");
		if (!ret && json_array_size(row) != ncols)
			ret = bad(cause, &e, "has %zu cells for %zu columns", json_array_size(row),
				  ncols);
		for (size_t c = 0; !ret && c < ncols; c++) {
			struct rt_result_seg ce = { &e, NULL, c };
			json_t *cell = json_array_get(row, c);

			if (json_is_null(cell) || json_is_boolean(cell))
				continue;
			if (json_is_string(cell))
				ret = check_string(cause, &ce, cell, RT_RESULT_MAX_CELL, false);
			else if (json_is_number(cell))
				ret = check_number(cause, &ce, cell);
			else
				ret = bad(cause, &ce, "must be a string, number, boolean or null "
					  "(got %s)", type_name(cell));
		}
	}
	return ret;
}

static int check_views(char **cause, const struct rt_result_seg *at, const json_t *views)
{
	int ret;

	ret = want_type(cause, at, views, JSON_ARRAY, "an array");
	if (ret)
		return ret;
	if (json_array_size(views) > RT_RESULT_MAX_VIEWS)
		return bad(cause, at, "more than %u views", RT_RESULT_MAX_VIEWS);
	for (size_t i = 0; i < json_array_size(views); i++) {
		struct rt_result_seg e = { at, NULL, i }, n = { &e, "name", 0 };

		ret = rt_result_check_view(cause, &e, json_array_get(views, i));
		if (ret)
			return ret;
		if (name_taken(views, i))
			return bad(cause, &n, "duplicate view name");
	}
	return 0;
}

/* @s has @min..@max characters, each in @set. */
static bool chars_in(const char *s, size_t min, size_t max, const char *set)
{
	size_t n = strlen(s);

	return n >= min && n <= max && strspn(s, set) == n;
}

/*
 * integrity: {"algorithm", "value"}: a digest of rt_result_canonical_text().
 * Only the shape is checked here; verifying is the grader's business.
 */
int rt_result_check_integrity(char **cause, const struct rt_result_seg *at, const json_t *o)
{
	struct rt_result_seg s_alg = { at, "algorithm", 0 }, s_val = { at, "value", 0 };
	const char *alg, *val;
	json_t *v;
	int ret;

	ret = want_type(cause, at, o, JSON_OBJECT, "an object");
	if (!ret)
		ret = check_known_keys(cause, at, o, &rt_result_integrity_keys, 0);
	if (!ret)
		ret = need(cause, at, o, "algorithm", &v);
	if (!ret)
		ret = check_string(cause, &s_alg, v, 32, true);
	if (ret)
		return ret;
	alg = json_string_value(v);
	if (!chars_in(alg, 1, 32, "abcdefghijklmnopqrstuvwxyz0123456789-"))
		return bad(cause, &s_alg, "must be 1..32 characters of a-z 0-9 -");
	ret = need(cause, at, o, "value", &v);
	if (!ret)
		ret = check_string(cause, &s_val, v, 128, true);
	if (ret)
		return ret;
	val = json_string_value(v);
	if (!chars_in(val, 16, 128, "0123456789abcdef"))
		return bad(cause, &s_val, "must be 16..128 lower-case hex digits");
	if (strcmp(alg, "sha256") == 0 && strlen(val) != 64)
		return bad(cause, &s_val, "a sha256 digest has 64 hex digits (got %zu)",
			   strlen(val));
	return 0;
}

unsigned int rt_result_schema_version(const char *schema)
{
	if (!schema)
		return 0;
	if (strcmp(schema, RT_RESULT_SCHEMA) == 0)
		return RT_RESULT_VERSION;
	if (strcmp(schema, RT_RESULT_SCHEMA_V1) == 0)
		return 1;
	return 0;
}

/* The schema's version (1 or 2) in *@version, or an error. */
static int check_schema(char **cause, const json_t *doc, unsigned int *version)
{
	static const char prefix[] = "rtlab.result/";
	struct rt_result_seg s = { NULL, "schema", 0 };
	const char *schema;
	json_t *v;
	char *q;
	int ret;

	ret = need(cause, NULL, doc, "schema", &v);
	if (!ret)
		ret = check_string(cause, &s, v, 64, false);
	if (ret)
		return ret;
	schema = json_string_value(v);
	*version = rt_result_schema_version(schema);
	if (*version)
		return 0;
	q = quoted(schema);
	if (strncmp(schema, prefix, sizeof(prefix) - 1) == 0)
		ret = bad(cause, &s, "unsupported version %s (this rtlab reads %s and %s)",
			  q ? q : "?", RT_RESULT_SCHEMA, RT_RESULT_SCHEMA_V1);
	else
		ret = bad(cause, &s, "not an rtlab result: expected %s (got %s)", RT_RESULT_SCHEMA,
			  q ? q : "?");
	free(q);
	return ret;
}

bool rt_result_lab_name_valid(const char *lab)
{
	size_t n = 0;

	if (!lab || !(lab[0] >= 'a' && lab[0] <= 'z'))
		return false;
	for (const char *p = lab; *p; p++, n++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
			return false;
	return n <= RT_RESULT_MAX_KEY;
}

/*
 * A lab in @opts' list; without a list, any name of a lab's syntax (which
 * labs exist is not core's to know, see struct rt_result_opts).
 */
static int check_lab(char **cause, const struct rt_result_seg *at, const json_t *v,
		     const struct rt_result_opts *opts)
{
	char known[256];
	char *q;
	int ret;

	ret = check_string(cause, at, v, 64, true);
	if (ret)
		return ret;
	if (!opts || !opts->labs) {
		if (rt_result_lab_name_valid(json_string_value(v)))
			return 0;
		return bad(cause, at, "a lab name must be [a-z][a-z0-9-]* (at most %u bytes)",
			   RT_RESULT_MAX_KEY);
	}
	if (rt_result_in_list(opts->labs, json_string_value(v)))
		return 0;
	join_list(known, sizeof(known), opts->labs);
	q = quoted(json_string_value(v));
	ret = bad(cause, at, "unknown lab %s (known: %s)", q ? q : "?", known);
	free(q);
	return ret;
}

int rt_result_validate(const json_t *doc, const struct rt_result_opts *opts, char **cause)
{
	struct rt_result_seg s_lab = { NULL, "lab", 0 }, s_tier = { NULL, "tier", 0 };
	struct rt_result_seg s_sim = { NULL, "simulated", 0 }, s_created = { NULL, "created", 0 };
	struct rt_result_seg s_ver = { NULL, "rtlab_version", 0 }, s_env = { NULL, "env", 0 };
	struct rt_result_seg s_params = { NULL, "params", 0 }, s_summary = { NULL, "summary", 0 };
	struct rt_result_seg s_hists = { NULL, "histograms", 0 };
	struct rt_result_seg s_answers = { NULL, "answers", 0 };
	struct rt_result_seg s_notes = { NULL, "notes", 0 }, s_extra = { NULL, "extra", 0 };
	struct rt_result_seg s_views = { NULL, "views", 0 }, s_integrity = { NULL, "integrity", 0 };
	unsigned int version = 0;
	json_t *v;
	bool sim;
	int ret;

	if (!doc)
		return bad(cause, NULL, "missing");
	if (!json_is_object(doc))
		return bad(cause, NULL, "must be a JSON object (got %s)", type_name(doc));
	ret = check_schema(cause, doc, &version);
	if (!ret)
		ret = check_known_keys(cause, NULL, doc, &rt_result_top_keys, version);
	if (ret)
		return ret;

	ret = need(cause, NULL, doc, "lab", &v);
	if (!ret)
		ret = check_lab(cause, &s_lab, v, opts);
	if (!ret)
		ret = need(cause, NULL, doc, "tier", &v);
	if (!ret)
		ret = check_oneof(cause, &s_tier, v, rt_result_tiers);
	if (ret)
		return ret;
	sim = strcmp(json_string_value(v), "simulation") == 0;
	ret = need(cause, NULL, doc, "simulated", &v);
	if (!ret)
		ret = want_type(cause, &s_sim, v, JSON_TRUE, "true or false");
	if (!ret && json_is_true(v) != sim)
		ret = bad(cause, &s_sim, "must be %s when tier is \"%s\"", sim ? "true" : "false",
			  json_string_value(json_object_get(doc, "tier")));
	if (ret)
		return ret;

	ret = need(cause, NULL, doc, "created", &v);
	if (!ret)
		ret = check_string(cause, &s_created, v, 64, true);
	if (!ret && !rt_result_time_valid(json_string_value(v)))
		ret = bad(cause, &s_created, "must be an RFC 3339 UTC time like "
			  "\"2025-01-31T17:04:05Z\"");
	if (!ret)
		ret = need(cause, NULL, doc, "rtlab_version", &v);
	if (!ret)
		ret = check_string(cause, &s_ver, v, 64, true);
	if (!ret)
		ret = need(cause, NULL, doc, "env", &v);
	if (!ret)
		ret = check_env(cause, &s_env, v);
	if (!ret)
		ret = need(cause, NULL, doc, "params", &v);
	if (!ret)
		ret = rt_result_check_params(cause, &s_params, v);
	if (!ret)
		ret = need(cause, NULL, doc, "summary", &v);
	if (!ret)
		ret = check_summary(cause, &s_summary, v);
	if (!ret)
		ret = need(cause, NULL, doc, "histograms", &v);
	if (!ret)
		ret = check_hists(cause, &s_hists, v, version);
	if (!ret)
		ret = need(cause, NULL, doc, "answers", &v);
	if (!ret)
		ret = check_answers(cause, &s_answers, v);
	if (ret)
		return ret;

	v = json_object_get(doc, "notes");
	if (v) {
		ret = check_notes(cause, &s_notes, v);
		if (ret)
			return ret;
	}
	v = json_object_get(doc, "views");
	if (v) {
		ret = check_views(cause, &s_views, v);
		if (ret)
			return ret;
	}
	v = json_object_get(doc, "extra");
	if (v) {
		ret = want_type(cause, &s_extra, v, JSON_OBJECT, "an object");
		if (!ret)
			ret = check_depth(cause, &s_extra, v, 1);
		if (ret)
			return ret;
	}
	v = json_object_get(doc, "integrity");
	if (v)
		return rt_result_check_integrity(cause, &s_integrity, v);
	return 0;
}
