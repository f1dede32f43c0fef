/*
 * rt_result: a result is one jansson document, kept in the shape of
 * rtlab.result/2 by the setters and checked as a whole by the validator
 * before every write and after every read. Keeping the JSON as the only
 * state means a result read from disk and one built in memory behave the
 * same, and the grader sees exactly the bytes the learner's run wrote.
 *
 * Versions: /2 is /1 plus optional fields (overflow_buckets in a histogram,
 * views, integrity). The validator checks each version against its own
 * field lists, and a /1 document read from disk is converted by renaming
 * its schema; nothing else about it needs to change.
 *
 * The validator never builds path strings while it walks (a histogram can
 * have a million buckets); it keeps a chain of path segments on the stack
 * and renders "histograms[2].counts[5]" only when it reports an error.
 *
 * Output is rendered by our own small printer rather than json_dumps(), so
 * that the key order is fixed (schema order at the top, sorted elsewhere),
 * arrays of numbers wrap into a few lines instead of one line per bucket,
 * and reals use the shortest text that reads back to the same double.
 */
#include "rt_result.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "labs/lab.h"
#include "rt_buf.h"
#include "rt_env.h"
#include "rt_err.h"
#include "rt_hist.h"
#include "rt_json.h"
#include "rt_file.h"
#include "rt_version.h"

struct rt_result {
	json_t *doc;		/* owned */
	unsigned int version;	/* read as: 1 (converted) or 2 */
};

#define MAX_NOTES	1000u
#define MAX_NOTE_LEN	4096u
#define MAX_TEXT_LEN	65536u	/* string answers and parameters */
#define MAX_ARRAY_PARAM	RT_RESULT_MAX_BUCKETS
#define EXACT_INT_LIMIT	9007199254740992.0	/* 2^53 */

static const char *const tiers[] = { "host", "vm", "simulation", NULL };
static const char *const units[] = { "us", "ns", "ms", "s", "count", "pct", "ratio", "hz",
				     "bytes", NULL };
static const char *const preempt_models[] = { "none", "voluntary", "full", "lazy", "rt",
					      "unknown", NULL };

/*
 * Top-level and nested fields in the order they are written; the /1 lists
 * are the fields rtlab.result/1 knew, so a /1 document with a /2 field is
 * refused as it always was.
 */
static const char *const top_order[] = { "schema", "lab", "tier", "simulated", "created",
					 "rtlab_version", "env", "params", "summary",
					 "histograms", "answers", "notes", "views", "extra",
					 "integrity", NULL };
static const char *const top_v1[] = { "schema", "lab", "tier", "simulated", "created",
				      "rtlab_version", "env", "params", "summary", "histograms",
				      "answers", "notes", "extra", NULL };
static const char *const env_order[] = { "kernel_release", "kernel_version", "machine",
					 "preempt_model", "preempt_source", "realtime", "in_vm",
					 "vm_type", "cpus", "root", NULL };
static const char *const hist_order[] = { "name", "unit", "bucket_width", "first_bucket",
					  "counts", "overflow_count", "overflow_buckets",
					  "overflow_cycles", NULL };
static const char *const hist_v1[] = { "name", "unit", "bucket_width", "first_bucket",
				       "counts", "overflow_count", "overflow_cycles", NULL };
static const char *const view_order[] = { "name", "title", "columns", "rows", NULL };
static const char *const column_order[] = { "name", "title", "unit", NULL };
static const char *const integrity_order[] = { "algorithm", "value", NULL };

static bool in_list(const char *const *list, const char *s)
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
static bool key_valid(const char *key)
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
static bool summary_key_valid(const char *key)
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
	return us && us > key && in_list(units, us + 1);
}

/* A finite number as JSON: integral values within +-2^53 become integers. */
static json_t *num_new(double v)
{
	if (!isfinite(v)) {
		errno = EINVAL;
		return NULL;
	}
	if (v == floor(v) && fabs(v) <= EXACT_INT_LIMIT)
		return json_integer((json_int_t)v);
	if (fabs(v) > RT_RESULT_MAX_MAGNITUDE) {
		errno = EINVAL;
		return NULL;
	}
	return json_real(v);
}

/* ---- Time stamps ------------------------------------------------------- */

int rt_result_format_time(time_t when, char *buf, size_t size)
{
	struct tm tm;

	if (!gmtime_r(&when, &tm) || tm.tm_year + 1900 < 0 || tm.tm_year + 1900 > 9999)
		return -EINVAL;
	if (strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		return -EINVAL;
	return 0;
}

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

/* One step of a JSON path; the chain lives on the validator's stack. */
struct vseg {
	const struct vseg *up;
	const char *key;	/* NULL for an array index */
	size_t idx;
};

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

static void path_into(struct rt_buf *b, const struct vseg *at)
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
static int bad(char **cause, const struct vseg *at, const char *fmt, ...)
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

static int want_type(char **cause, const struct vseg *at, const json_t *v, json_type t,
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
static int check_range(char **cause, const struct vseg *at, double x, double lo, double hi,
		       const char *range)
{
	char t[32];

	if (x >= lo && x <= hi)
		return 0;
	return bad(cause, at, "%s is out of range (%s)", num_text(x, t), range);
}

static int check_finite(char **cause, const struct vseg *at, const json_t *v)
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
static int check_number(char **cause, const struct vseg *at, const json_t *v)
{
	int ret = check_finite(cause, at, v);

	if (ret)
		return ret;
	if (json_is_real(v))
		return check_range(cause, at, json_real_value(v), -RT_RESULT_MAX_MAGNITUDE,
				   RT_RESULT_MAX_MAGNITUDE, "magnitude at most 1e15");
	return 0;
}

static int check_count(char **cause, const struct vseg *at, const json_t *v)
{
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return bad(cause, at, "must be a non-negative integer");
	return 0;
}

/* A number of samples: an integer in 0 .. RT_RESULT_MAX_MAGNITUDE. */
static int check_samples(char **cause, const struct vseg *at, const json_t *v)
{
	int ret = check_count(cause, at, v);

	if (!ret)
		ret = check_range(cause, at, (double)json_integer_value(v), 0,
				  RT_RESULT_MAX_MAGNITUDE, "0 <= count <= 1e15");
	return ret;
}

static int check_string(char **cause, const struct vseg *at, const json_t *v, size_t max,
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

static int check_oneof(char **cause, const struct vseg *at, const json_t *v,
		       const char *const *list)
{
	char known[128];
	char *q;
	int ret;

	ret = check_string(cause, at, v, 64, false);
	if (ret)
		return ret;
	if (in_list(list, json_string_value(v)))
		return 0;
	join_list(known, sizeof(known), list);
	q = quoted(json_string_value(v));
	ret = bad(cause, at, "must be one of %s (got %s)", known, q ? q : "?");
	free(q);
	return ret;
}

/* Refuse keys of @obj that are not in @allowed ("typos must not pass silently"). */
static int check_known_keys(char **cause, const struct vseg *at, const json_t *obj,
			    const char *const *allowed)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)obj, key, v) {
		struct vseg s = { at, key, 0 };

		if (!in_list(allowed, key))
			return bad(cause, &s, "unknown field");
	}
	return 0;
}

/* Fetch required field @key of @obj or report it missing. */
static int need(char **cause, const struct vseg *at, const json_t *obj, const char *key,
		json_t **out)
{
	struct vseg s = { at, key, 0 };

	*out = json_object_get(obj, key);
	if (!*out)
		return bad(cause, &s, "missing");
	return 0;
}

static int check_env(char **cause, const struct vseg *at, const json_t *env)
{
	static const char *const strings[] = { "kernel_release", "kernel_version", "machine",
					       NULL };
	static const char *const bools[] = { "realtime", "in_vm", "root", NULL };
	json_t *v, *in_vm;
	int ret;

	ret = want_type(cause, at, env, JSON_OBJECT, "an object");
	if (ret)
		return ret;
	ret = check_known_keys(cause, at, env, env_order);
	if (ret)
		return ret;
	for (const char *const *k = strings; *k; k++) {
		struct vseg s = { at, *k, 0 };

		ret = need(cause, at, env, *k, &v);
		if (!ret)
			ret = check_string(cause, &s, v, 1024, false);
		if (ret)
			return ret;
	}
	{
		struct vseg s = { at, "preempt_model", 0 };

		ret = need(cause, at, env, "preempt_model", &v);
		if (!ret)
			ret = check_oneof(cause, &s, v, preempt_models);
		if (ret)
			return ret;
	}
	v = json_object_get(env, "preempt_source");
	if (v) {
		struct vseg s = { at, "preempt_source", 0 };

		ret = check_string(cause, &s, v, 1024, false);
		if (ret)
			return ret;
	}
	for (const char *const *k = bools; *k; k++) {
		struct vseg s = { at, *k, 0 };

		ret = need(cause, at, env, *k, &v);
		if (!ret)
			ret = want_type(cause, &s, v, JSON_TRUE, "true or false");
		if (ret)
			return ret;
	}
	in_vm = json_object_get(env, "in_vm");
	{
		struct vseg s = { at, "vm_type", 0 };

		ret = need(cause, at, env, "vm_type", &v);
		if (ret)
			return ret;
		if (json_is_true(in_vm))
			ret = check_string(cause, &s, v, 1024, true);
		else if (!json_is_null(v))
			ret = bad(cause, &s, "must be null when in_vm is false");
		if (ret)
			return ret;
	}
	{
		struct vseg s = { at, "cpus", 0 };

		ret = need(cause, at, env, "cpus", &v);
		if (!ret)
			ret = check_count(cause, &s, v);
		if (!ret)
			ret = check_range(cause, &s, (double)json_integer_value(v), 0,
					  RT_RESULT_MAX_CPUS, "at most 65536");
		if (ret)
			return ret;
	}
	return 0;
}

static int check_scalar(char **cause, const struct vseg *at, const json_t *v)
{
	if (json_is_string(v))
		return check_string(cause, at, v, MAX_TEXT_LEN, false);
	if (json_is_number(v))
		return check_number(cause, at, v);
	if (json_is_boolean(v))
		return 0;
	return bad(cause, at, "must be a string, number or boolean (got %s)", type_name(v));
}

static int check_params(char **cause, const struct vseg *at, const json_t *params)
{
	const char *key;
	json_t *v;
	int ret;

	ret = want_type(cause, at, params, JSON_OBJECT, "an object");
	if (ret)
		return ret;
	json_object_foreach((json_t *)params, key, v) {
		struct vseg s = { at, key, 0 };

		if (!key_valid(key))
			return bad(cause, &s, "name must be 1..%u characters of A-Z a-z 0-9 _ . -",
				   RT_RESULT_MAX_KEY);
		if (!json_is_array(v)) {
			ret = check_scalar(cause, &s, v);
			if (ret)
				return ret;
			continue;
		}
		if (json_array_size(v) > MAX_ARRAY_PARAM)
			return bad(cause, &s, "more than %u elements", MAX_ARRAY_PARAM);
		for (size_t i = 0; i < json_array_size(v); i++) {
			struct vseg e = { &s, NULL, i };

			ret = check_scalar(cause, &e, json_array_get(v, i));
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int check_summary(char **cause, const struct vseg *at, const json_t *summary)
{
	char known[128];
	const char *key;
	json_t *v;
	int ret;

	ret = want_type(cause, at, summary, JSON_OBJECT, "an object");
	if (ret)
		return ret;
	json_object_foreach((json_t *)summary, key, v) {
		struct vseg s = { at, key, 0 };

		if (!summary_key_valid(key)) {
			join_list(known, sizeof(known), units);
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
static int check_count_array(char **cause, const struct vseg *at, const json_t *v,
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
		struct vseg e = { at, NULL, i };

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
static int check_overflow_buckets(char **cause, const struct vseg *at, const json_t *a,
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
		struct vseg e = { at, NULL, i };
		struct vseg e0 = { &e, NULL, 0 }, e1 = { &e, NULL, 1 }, e2 = { &e, NULL, 2 };
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

static int check_hist(char **cause, const struct vseg *at, const json_t *h, unsigned int version)
{
	uint64_t total = 0;
	json_t *v;
	int ret;

	ret = want_type(cause, at, h, JSON_OBJECT, "an object");
	if (!ret)
		ret = check_known_keys(cause, at, h, version == 1 ? hist_v1 : hist_order);
	if (ret)
		return ret;
	{
		struct vseg s = { at, "name", 0 };

		ret = need(cause, at, h, "name", &v);
		if (!ret)
			ret = check_string(cause, &s, v, RT_RESULT_MAX_KEY, true);
		if (!ret && !key_valid(json_string_value(v)))
			ret = bad(cause, &s, "must be 1..%u characters of A-Z a-z 0-9 _ . -",
				  RT_RESULT_MAX_KEY);
		if (ret)
			return ret;
	}
	{
		struct vseg s = { at, "unit", 0 };

		ret = need(cause, at, h, "unit", &v);
		if (!ret)
			ret = check_oneof(cause, &s, v, units);
		if (ret)
			return ret;
	}
	{
		struct vseg s = { at, "bucket_width", 0 };

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
		struct vseg s = { at, "first_bucket", 0 };

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
		struct vseg s = { at, "counts", 0 };

		ret = need(cause, at, h, "counts", &v);
		if (!ret)
			ret = check_count_array(cause, &s, v, true, &total);
		if (ret)
			return ret;
	}
	{
		struct vseg s = { at, "overflow_count", 0 };

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
		struct vseg s = { at, "overflow_buckets", 0 };
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
		struct vseg s = { at, "overflow_cycles", 0 };

		ret = check_count_array(cause, &s, v, false, NULL);
		if (ret)
			return ret;
	}
	return 0;
}

static int check_hists(char **cause, const struct vseg *at, const json_t *hists,
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
		struct vseg e = { at, NULL, i };
		const char *name;

		ret = check_hist(cause, &e, json_array_get(hists, i), version);
		if (ret)
			return ret;
		name = json_string_value(json_object_get(json_array_get(hists, i), "name"));
		for (size_t j = 0; j < i; j++) {
			struct vseg s = { &e, "name", 0 };
			json_t *o = json_array_get(hists, j);

			if (strcmp(name, json_string_value(json_object_get(o, "name"))) == 0)
				return bad(cause, &s, "duplicate name \"%s\" (also histograms[%zu])",
					   name, j);
		}
	}
	return 0;
}

static int check_answers(char **cause, const struct vseg *at, const json_t *answers)
{
	const char *key;
	json_t *v;
	int ret;

	ret = want_type(cause, at, answers, JSON_OBJECT, "an object");
	if (ret)
		return ret;
	json_object_foreach((json_t *)answers, key, v) {
		struct vseg s = { at, key, 0 };

		if (!key_valid(key))
			return bad(cause, &s, "question id must be 1..%u characters of "
				   "A-Z a-z 0-9 _ . -", RT_RESULT_MAX_KEY);
		if (json_is_string(v))
			ret = check_string(cause, &s, v, MAX_TEXT_LEN, false);
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

static int check_notes(char **cause, const struct vseg *at, const json_t *notes)
{
	int ret;

	ret = want_type(cause, at, notes, JSON_ARRAY, "an array");
	if (ret)
		return ret;
	if (json_array_size(notes) > MAX_NOTES)
		return bad(cause, at, "more than %u notes", MAX_NOTES);
	for (size_t i = 0; i < json_array_size(notes); i++) {
		struct vseg e = { at, NULL, i };

		ret = check_string(cause, &e, json_array_get(notes, i), MAX_NOTE_LEN, true);
		if (ret)
			return ret;
	}
	return 0;
}

static int check_depth(char **cause, const struct vseg *at, const json_t *v, unsigned int depth)
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
			struct vseg e = { at, NULL, i };

			ret = check_depth(cause, &e, json_array_get(v, i), depth + 1);
			if (ret)
				return ret;
		}
		return 0;
	}
	json_object_foreach((json_t *)v, key, child) {
		struct vseg s = { at, key, 0 };

		ret = check_depth(cause, &s, child, depth + 1);
		if (ret)
			return ret;
	}
	return 0;
}

/* A name field (of a view or a column): 1..RT_RESULT_MAX_KEY of [A-Za-z0-9_.-]. */
static int check_name(char **cause, const struct vseg *at, const json_t *obj)
{
	struct vseg s = { at, "name", 0 };
	json_t *v;
	int ret;

	ret = need(cause, at, obj, "name", &v);
	if (!ret)
		ret = check_string(cause, &s, v, RT_RESULT_MAX_KEY, true);
	if (!ret && !key_valid(json_string_value(v)))
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

static int check_column(char **cause, const struct vseg *at, const json_t *c)
{
	json_t *v;
	int ret;

	ret = want_type(cause, at, c, JSON_OBJECT, "an object");
	if (!ret)
		ret = check_known_keys(cause, at, c, column_order);
	if (!ret)
		ret = check_name(cause, at, c);
	if (ret)
		return ret;
	v = json_object_get(c, "title");
	if (v) {
		struct vseg s = { at, "title", 0 };

		ret = check_string(cause, &s, v, 128, true);
		if (ret)
			return ret;
	}
	v = json_object_get(c, "unit");
	if (v) {
		struct vseg s = { at, "unit", 0 };

		ret = check_oneof(cause, &s, v, units);
	}
	return ret;
}

/*
 * A view: a table a lab describes its outcome with (issue: labs own their
 * views). {"name", "title", "columns": [...], "rows": [[cell...]...]}; a
 * cell is a string, a number, a boolean or null (no value).
 */
static int check_view(char **cause, const struct vseg *at, const json_t *view)
{
	struct vseg s_title = { at, "title", 0 }, s_cols = { at, "columns", 0 };
	struct vseg s_rows = { at, "rows", 0 };
	json_t *v, *cols, *rows;
	size_t ncols;
	int ret;

	ret = want_type(cause, at, view, JSON_OBJECT, "an object");
	if (!ret)
		ret = check_known_keys(cause, at, view, view_order);
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
		struct vseg e = { &s_cols, NULL, i }, n = { &e, "name", 0 };

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
		struct vseg e = { &s_rows, NULL, r };
		json_t *row = json_array_get(rows, r);

		ret = want_type(cause, &e, row, JSON_ARRAY, "an array of cells");
		if (!ret && json_array_size(row) != ncols)
			ret = bad(cause, &e, "has %zu cells for %zu columns", json_array_size(row),
				  ncols);
		for (size_t c = 0; !ret && c < ncols; c++) {
			struct vseg ce = { &e, NULL, c };
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

static int check_views(char **cause, const struct vseg *at, const json_t *views)
{
	int ret;

	ret = want_type(cause, at, views, JSON_ARRAY, "an array");
	if (ret)
		return ret;
	if (json_array_size(views) > RT_RESULT_MAX_VIEWS)
		return bad(cause, at, "more than %u views", RT_RESULT_MAX_VIEWS);
	for (size_t i = 0; i < json_array_size(views); i++) {
		struct vseg e = { at, NULL, i }, n = { &e, "name", 0 };

		ret = check_view(cause, &e, json_array_get(views, i));
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
static int check_integrity(char **cause, const struct vseg *at, const json_t *o)
{
	struct vseg s_alg = { at, "algorithm", 0 }, s_val = { at, "value", 0 };
	const char *alg, *val;
	json_t *v;
	int ret;

	ret = want_type(cause, at, o, JSON_OBJECT, "an object");
	if (!ret)
		ret = check_known_keys(cause, at, o, integrity_order);
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
	struct vseg s = { NULL, "schema", 0 };
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

static int check_lab(char **cause, const struct vseg *at, const json_t *v)
{
	char known[256];
	size_t used = 0;
	char *q;
	int ret;

	ret = check_string(cause, at, v, 64, true);
	if (ret)
		return ret;
	if (lab_find(json_string_value(v)))
		return 0;
	known[0] = '\0';
	for (const struct lab_ops *const *l = lab_table; *l && used < sizeof(known); l++) {
		int n = snprintf(known + used, sizeof(known) - used, "%s%s", used ? ", " : "",
				 (*l)->name);

		if (n < 0)
			break;
		used += (size_t)n;
	}
	q = quoted(json_string_value(v));
	ret = bad(cause, at, "unknown lab %s (known: %s)", q ? q : "?", known);
	free(q);
	return ret;
}

int rt_result_validate(const json_t *doc, char **cause)
{
	struct vseg s_lab = { NULL, "lab", 0 }, s_tier = { NULL, "tier", 0 };
	struct vseg s_sim = { NULL, "simulated", 0 }, s_created = { NULL, "created", 0 };
	struct vseg s_ver = { NULL, "rtlab_version", 0 }, s_env = { NULL, "env", 0 };
	struct vseg s_params = { NULL, "params", 0 }, s_summary = { NULL, "summary", 0 };
	struct vseg s_hists = { NULL, "histograms", 0 }, s_answers = { NULL, "answers", 0 };
	struct vseg s_notes = { NULL, "notes", 0 }, s_extra = { NULL, "extra", 0 };
	struct vseg s_views = { NULL, "views", 0 }, s_integrity = { NULL, "integrity", 0 };
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
		ret = check_known_keys(cause, NULL, doc, version == 1 ? top_v1 : top_order);
	if (ret)
		return ret;

	ret = need(cause, NULL, doc, "lab", &v);
	if (!ret)
		ret = check_lab(cause, &s_lab, v);
	if (!ret)
		ret = need(cause, NULL, doc, "tier", &v);
	if (!ret)
		ret = check_oneof(cause, &s_tier, v, tiers);
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
		ret = check_params(cause, &s_params, v);
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
		return check_integrity(cause, &s_integrity, v);
	return 0;
}

/* ---- Building ---------------------------------------------------------- */

static json_t *str_or_unknown(const char *s)
{
	return json_string(s ? s : "unknown");
}

static json_t *env_to_json(const struct rt_env *env)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	if (json_object_set_new(o, "kernel_release", str_or_unknown(env->kernel_release)) ||
	    json_object_set_new(o, "kernel_version", str_or_unknown(env->kernel_version)) ||
	    json_object_set_new(o, "machine", str_or_unknown(env->machine)) ||
	    json_object_set_new(o, "preempt_model", str_or_unknown(env->preempt_model)) ||
	    (env->preempt_source &&
	     json_object_set_new(o, "preempt_source", json_string(env->preempt_source))) ||
	    json_object_set_new(o, "realtime", json_boolean(env->realtime)) ||
	    json_object_set_new(o, "in_vm", json_boolean(env->in_vm)) ||
	    json_object_set_new(o, "vm_type", env->in_vm ? str_or_unknown(env->vm_type)
						       : json_null()) ||
	    json_object_set_new(o, "cpus", json_integer(env->cpus)) ||
	    json_object_set_new(o, "root", json_boolean(env->root))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

struct rt_result *rt_result_new(const char *lab, const char *tier, const struct rt_env *env)
{
	struct rt_result *res = NULL;
	json_t *doc = NULL, *e = NULL;

	if (!lab || !tier || !env || !lab_find(lab) || !in_list(tiers, tier)) {
		errno = EINVAL;
		return NULL;
	}
	e = env_to_json(env);
	doc = json_object();
	res = calloc(1, sizeof(*res));
	if (!e || !doc || !res)
		goto out_nomem;
	if (json_object_set_new(doc, "schema", json_string(RT_RESULT_SCHEMA)) ||
	    json_object_set_new(doc, "lab", json_string(lab)) ||
	    json_object_set_new(doc, "tier", json_string(tier)) ||
	    json_object_set_new(doc, "simulated",
				json_boolean(strcmp(tier, "simulation") == 0)) ||
	    json_object_set_new(doc, "created", json_string("1970-01-01T00:00:00Z")) ||
	    json_object_set_new(doc, "rtlab_version", json_string(RT_VERSION)) ||
	    json_object_set(doc, "env", e) ||
	    json_object_set_new(doc, "params", json_object()) ||
	    json_object_set_new(doc, "summary", json_object()) ||
	    json_object_set_new(doc, "histograms", json_array()) ||
	    json_object_set_new(doc, "answers", json_object()))
		goto out_nomem;
	json_decref(e);
	res->doc = doc;
	res->version = RT_RESULT_VERSION;
	if (rt_result_set_created(res, time(NULL))) {
		rt_result_free(res);
		errno = EINVAL;
		return NULL;
	}
	return res;

out_nomem:
	json_decref(e);
	json_decref(doc);
	free(res);
	errno = ENOMEM;
	return NULL;
}

void rt_result_free(struct rt_result *res)
{
	if (!res)
		return;
	json_decref(res->doc);
	free(res);
}

int rt_result_set_created(struct rt_result *res, time_t when)
{
	char buf[32];

	if (rt_result_format_time(when, buf, sizeof(buf)))
		return -EINVAL;
	return json_object_set_new(res->doc, "created", json_string(buf)) ? -ENOMEM : 0;
}

/* Get (creating if needed) the object @name of the document. */
static json_t *section(struct rt_result *res, const char *name)
{
	json_t *o = json_object_get(res->doc, name);

	if (json_is_object(o))
		return o;
	o = json_object();
	if (!o || json_object_set_new(res->doc, name, o))
		return NULL;
	return o;
}

/* Store @value (reference stolen) as @key of section @name. */
static int set_in(struct rt_result *res, const char *name, const char *key, json_t *value)
{
	json_t *o;

	if (!value)
		return errno == EINVAL ? -EINVAL : -ENOMEM;
	o = section(res, name);
	if (!o) {
		json_decref(value);
		return -ENOMEM;
	}
	return json_object_set_new(o, key, value) ? -ENOMEM : 0;
}

/* json_string() fails for invalid UTF-8 as well as for lack of memory. */
static json_t *text_new(const char *s, size_t max)
{
	json_t *v;

	if (!s || strlen(s) > max) {
		errno = EINVAL;
		return NULL;
	}
	errno = 0;
	v = json_string(s);
	if (!v && errno != ENOMEM)
		errno = EINVAL;
	return v;
}

int rt_result_set_param_str(struct rt_result *res, const char *key, const char *value)
{
	if (!key_valid(key))
		return -EINVAL;
	return set_in(res, "params", key, text_new(value, MAX_TEXT_LEN));
}

int rt_result_set_param_num(struct rt_result *res, const char *key, double value)
{
	if (!key_valid(key))
		return -EINVAL;
	return set_in(res, "params", key, num_new(value));
}

int rt_result_set_param_bool(struct rt_result *res, const char *key, bool value)
{
	if (!key_valid(key))
		return -EINVAL;
	return set_in(res, "params", key, json_boolean(value));
}

int rt_result_set_param_json(struct rt_result *res, const char *key, json_t *value)
{
	struct vseg s = { NULL, "params", 0 };
	json_t *probe;
	int ret;

	if (!value)
		return -EINVAL;
	if (!key_valid(key)) {
		json_decref(value);
		return -EINVAL;
	}
	/* Check the value the same way the validator will, in a throwaway object. */
	probe = json_object();
	if (!probe || json_object_set(probe, key, value)) {
		json_decref(probe);
		json_decref(value);
		return -ENOMEM;
	}
	ret = check_params(NULL, &s, probe);
	json_decref(probe);
	if (ret) {
		json_decref(value);
		return ret;
	}
	return set_in(res, "params", key, value);
}

int rt_result_set_summary(struct rt_result *res, const char *key, double value)
{
	if (!summary_key_valid(key) || !(fabs(value) <= RT_RESULT_MAX_MAGNITUDE))
		return -EINVAL;
	return set_in(res, "summary", key, num_new(value));
}

int rt_result_set_answer_str(struct rt_result *res, const char *id, const char *value)
{
	if (!key_valid(id))
		return -EINVAL;
	return set_in(res, "answers", id, text_new(value, MAX_TEXT_LEN));
}

int rt_result_set_answer_num(struct rt_result *res, const char *id, double value)
{
	if (!key_valid(id))
		return -EINVAL;
	return set_in(res, "answers", id, num_new(value));
}

int rt_result_add_note(struct rt_result *res, const char *note)
{
	json_t *notes = json_object_get(res->doc, "notes");
	json_t *v;

	if (!note || !*note)
		return -EINVAL;
	if (!json_is_array(notes)) {
		notes = json_array();
		if (!notes || json_object_set_new(res->doc, "notes", notes))
			return -ENOMEM;
	}
	if (json_array_size(notes) >= MAX_NOTES)
		return -E2BIG;
	v = text_new(note, MAX_NOTE_LEN);
	if (!v)
		return errno == EINVAL ? -EINVAL : -ENOMEM;
	return json_array_append_new(notes, v) ? -ENOMEM : 0;
}

json_t *rt_result_extra(struct rt_result *res)
{
	json_t *o = section(res, "extra");

	if (!o)
		errno = ENOMEM;
	return o;
}

/* JSON array of @v; with @total, each and their sum must stay within 1e15 samples. */
static json_t *count_array(const uint64_t *v, size_t n, uint64_t *total)
{
	json_t *a = json_array();

	if (!a)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (total && v[i] <= (uint64_t)RT_RESULT_MAX_MAGNITUDE)
			*total += v[i];
		if (v[i] > INT64_MAX || (total && (v[i] > (uint64_t)RT_RESULT_MAX_MAGNITUDE ||
						   *total > (uint64_t)RT_RESULT_MAX_MAGNITUDE))) {
			json_decref(a);
			errno = EINVAL;
			return NULL;
		}
		if (json_array_append_new(a, json_integer((json_int_t)v[i]))) {
			json_decref(a);
			errno = ENOMEM;
			return NULL;
		}
	}
	return a;
}

/* The overflow buckets of @h follow the rules check_overflow_buckets() enforces. */
static bool ranges_valid(const struct rt_result_hist *h)
{
	double prev = h->first_bucket + (double)h->nbuckets * h->bucket_width;
	uint64_t sum = 0;

	for (size_t i = 0; i < h->n_overflow_buckets; i++) {
		const struct rt_result_range *r = &h->overflow_buckets[i];

		if (!(r->lower >= prev && r->upper > r->lower &&
		      r->upper <= RT_RESULT_MAX_MAGNITUDE) ||
		    r->count > (uint64_t)RT_RESULT_MAX_MAGNITUDE)
			return false;
		sum += r->count;
		if (sum > (uint64_t)RT_RESULT_MAX_MAGNITUDE)
			return false;
		prev = r->upper;
	}
	return sum == h->overflow_count || h->n_overflow_buckets == 0;
}

/* [[lower, upper, count], ...] of @r, or NULL with errno ENOMEM. */
static json_t *ranges_array(const struct rt_result_range *r, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++) {
		json_t *b = json_array();

		if (!b || json_array_append_new(a, b) ||
		    json_array_append_new(b, num_new(r[i].lower)) ||
		    json_array_append_new(b, num_new(r[i].upper)) ||
		    json_array_append_new(b, json_integer((json_int_t)r[i].count))) {
			json_decref(a);
			a = NULL;
		}
	}
	if (!a)
		errno = ENOMEM;
	return a;
}

int rt_result_add_histogram(struct rt_result *res, const struct rt_result_hist *h)
{
	json_t *hists = json_object_get(res->doc, "histograms");
	json_t *o = NULL, *counts = NULL, *cycles = NULL, *ranges = NULL;
	uint64_t total;
	int ret = -ENOMEM;

	if (!h || !key_valid(h->name) || !h->unit || !in_list(units, h->unit) ||
	    !(h->bucket_width > 0 && h->bucket_width <= RT_RESULT_MAX_WIDTH) ||
	    !(fabs(h->first_bucket) <= RT_RESULT_MAX_FIRST) ||
	    h->nbuckets < 1 || h->nbuckets > RT_RESULT_MAX_BUCKETS || !h->counts ||
	    h->n_overflow_cycles > RT_RESULT_MAX_BUCKETS ||
	    (h->n_overflow_cycles && !h->overflow_cycles) ||
	    h->overflow_count > (uint64_t)RT_RESULT_MAX_MAGNITUDE ||
	    h->n_overflow_buckets > RT_RESULT_MAX_OVERFLOW_BUCKETS ||
	    (h->n_overflow_buckets && !h->overflow_buckets) ||
	    !ranges_valid(h))
		return -EINVAL;
	total = h->overflow_count;
	if (!json_is_array(hists))
		return -EINVAL;
	if (json_array_size(hists) >= RT_RESULT_MAX_HISTS)
		return -E2BIG;
	if (rt_result_hist_find(res, h->name, NULL) == 0)
		return -EEXIST;

	if (h->n_overflow_buckets) {
		ranges = ranges_array(h->overflow_buckets, h->n_overflow_buckets);
		if (!ranges)
			goto out_put;
	}
	counts = count_array(h->counts, h->nbuckets, &total);
	if (!counts) {
		ret = errno == EINVAL ? -EINVAL : -ENOMEM;
		goto out_put;
	}
	if (h->n_overflow_cycles) {
		cycles = count_array(h->overflow_cycles, h->n_overflow_cycles, NULL);
		if (!cycles) {
			ret = errno == EINVAL ? -EINVAL : -ENOMEM;
			goto out_put;
		}
	}
	o = json_object();
	if (!o || json_object_set_new(o, "name", json_string(h->name)) ||
	    json_object_set_new(o, "unit", json_string(h->unit)) ||
	    json_object_set_new(o, "bucket_width", num_new(h->bucket_width)) ||
	    json_object_set_new(o, "first_bucket", num_new(h->first_bucket)) ||
	    json_object_set(o, "counts", counts) ||
	    json_object_set_new(o, "overflow_count", json_integer((json_int_t)h->overflow_count)) ||
	    (ranges && json_object_set(o, "overflow_buckets", ranges)) ||
	    (cycles && json_object_set(o, "overflow_cycles", cycles)))
		goto out_put;
	if (json_array_append(hists, o))
		goto out_put;
	ret = 0;
out_put:
	json_decref(o);
	json_decref(ranges);
	json_decref(cycles);
	json_decref(counts);
	return ret;
}

int rt_result_add_rt_hist(struct rt_result *res, const char *name, const struct rt_hist *h)
{
	struct rt_result_range ranges[RT_HIST_MAX_LOG_BUCKETS];
	struct rt_hist_summary sum;
	struct rt_result_hist rh = {
		.name = name, .unit = "us", .bucket_width = 1, .first_bucket = 0,
	};
	const struct rt_sample *recs;
	uint64_t *counts, *cycles;
	size_t nrec;
	int ret = -ENOMEM;

	rt_hist_summarize(h, &sum);
	rh.nbuckets = rt_hist_nbuckets(h);
	counts = calloc(rh.nbuckets, sizeof(*counts));
	recs = rt_hist_overflow_recs(h, &nrec);
	cycles = calloc(nrec ? nrec : 1, sizeof(*cycles));
	if (!counts || !cycles)
		goto out;
	for (size_t i = 0; i < rh.nbuckets; i++)
		counts[i] = rt_hist_bucket(h, (unsigned int)i);
	for (size_t i = 0; i < nrec; i++)
		cycles[i] = recs[i].seq;
	for (unsigned int i = 0; i < rt_hist_overflow_nbuckets(h); i++) {
		struct rt_hist_range r;
		uint64_t cap = (uint64_t)(sum.max_ns < 0 ? 0 : sum.max_ns) / 1000 + 1;

		if (rt_hist_overflow_bucket(h, i, &r) || !r.count)
			continue;
		/* No sample reached the maximum + 1 us: the bucket holding it ends there. */
		if (cap > r.lower_us && cap < r.upper_us)
			r.upper_us = cap;
		ranges[rh.n_overflow_buckets++] = (struct rt_result_range){
			(double)r.lower_us, (double)r.upper_us, r.count };
	}
	rh.counts = counts;
	rh.overflow_count = rt_hist_overflow(h);
	rh.overflow_buckets = ranges;
	rh.overflow_cycles = cycles;
	rh.n_overflow_cycles = nrec;
	ret = rt_result_add_histogram(res, &rh);
out:
	free(counts);
	free(cycles);
	return ret;
}

int rt_result_add_view(struct rt_result *res, json_t *view, char **cause)
{
	json_t *views = json_object_get(res->doc, "views");
	struct vseg at = { NULL, "views", json_array_size(views) };
	struct vseg e = { &at, NULL, json_array_size(views) };
	const char *name;
	int ret;

	if (!view)
		return rt_err(cause, -EINVAL, "no view");
	ret = check_view(cause, &e, view);
	if (ret)
		goto out_put;
	if (json_array_size(views) >= RT_RESULT_MAX_VIEWS) {
		ret = rt_err(cause, -E2BIG, "more than %u views", RT_RESULT_MAX_VIEWS);
		goto out_put;
	}
	name = json_string_value(json_object_get(view, "name"));
	for (size_t i = 0; i < json_array_size(views); i++)
		if (!strcmp(name, json_string_value(json_object_get(json_array_get(views, i),
								    "name")) ?: "")) {
			ret = rt_err(cause, -EINVAL, "a view called \"%s\" exists", name);
			goto out_put;
		}
	if (!json_is_array(views)) {
		views = json_array();
		if (!views || json_object_set_new(res->doc, "views", views)) {
			ret = -ENOMEM;
			goto out_put;
		}
	}
	return json_array_append_new(views, view) ? -ENOMEM : 0;
out_put:
	json_decref(view);
	return ret;
}

int rt_result_set_integrity(struct rt_result *res, const char *algorithm, const char *value)
{
	struct vseg at = { NULL, "integrity", 0 };
	json_t *o;

	if (!algorithm || !value)
		return -EINVAL;
	o = json_pack("{s:s, s:s}", "algorithm", algorithm, "value", value);
	if (!o)
		return -EINVAL;	/* not UTF-8, or out of memory */
	if (check_integrity(NULL, &at, o)) {
		json_decref(o);
		return -EINVAL;
	}
	return json_object_set_new(res->doc, "integrity", o) ? -ENOMEM : 0;
}

/* ---- Writing ----------------------------------------------------------- */

/* Output text plus the first error met, so the printer need not check every append. */
struct emit {
	struct rt_buf buf;
	int err;
};

static void out(struct emit *e, const char *s, size_t len)
{
	if (!e->err)
		e->err = rt_buf_append(&e->buf, s, len);
}

static void outs(struct emit *e, const char *s)
{
	out(e, s, strlen(s));
}

static void emit_string(struct emit *e, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const char *run = s;

	outs(e, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char esc[8];

		if (c >= 0x20 && c != '"' && c != '\\' && c != 0x7f)
			continue;
		out(e, run, (size_t)(s - run));
		run = s + 1;
		switch (c) {
		case '"':
		case '\\':
			esc[0] = '\\';
			esc[1] = (char)c;
			out(e, esc, 2);
			break;
		case '\n':
			outs(e, "\\n");
			break;
		case '\t':
			outs(e, "\\t");
			break;
		default:
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			out(e, esc, 6);
		}
	}
	out(e, run, (size_t)(s - run));
	outs(e, "\"");
}

/*
 * The shortest of 15, 16 or 17 significant digits that reads back to the
 * same double; jansson does the formatting so the decimal point does not
 * depend on the locale the UI set.
 */
static void emit_real(struct emit *e, const json_t *v)
{
	double d = json_real_value(v);
	char *text = NULL;

	for (int prec = 15; prec <= 17; prec++) {
		json_t *back;

		free(text);
		text = json_dumps(v, JSON_ENCODE_ANY | JSON_REAL_PRECISION(prec));
		if (!text) {
			e->err = -ENOMEM;
			return;
		}
		back = json_loads(text, JSON_DECODE_ANY, NULL);
		if (back && json_is_real(back) && json_real_value(back) == d) {
			json_decref(back);
			break;
		}
		json_decref(back);
	}
	outs(e, text);
	free(text);
}

static void emit_scalar(struct emit *e, const json_t *v)
{
	char num[32];

	switch (json_typeof(v)) {
	case JSON_STRING:
		emit_string(e, json_string_value(v));
		break;
	case JSON_INTEGER:
		snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		outs(e, num);
		break;
	case JSON_REAL:
		emit_real(e, v);
		break;
	case JSON_TRUE:
		outs(e, "true");
		break;
	case JSON_FALSE:
		outs(e, "false");
		break;
	default:
		outs(e, "null");
	}
}

static void indent(struct emit *e, unsigned int n)
{
	static const char spaces[] = "                                ";

	while (n) {
		unsigned int k = n < sizeof(spaces) - 1 ? n : (unsigned int)sizeof(spaces) - 1;

		out(e, spaces, k);
		n -= k;
	}
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void emit_value(struct emit *e, const json_t *v, unsigned int ind,
		       const char *const *order, const char *const *item_order);

/* Members of @o: those named in @order first, in that order, then the rest sorted. */
static void emit_object(struct emit *e, const json_t *o, unsigned int ind,
			const char *const *order)
{
	size_t n = json_object_size(o), k = 0, first;
	const char **keys;
	const char *key;
	json_t *v;

	if (n == 0) {
		outs(e, "{}");
		return;
	}
	keys = malloc(n * sizeof(*keys));
	if (!keys) {
		e->err = -ENOMEM;
		return;
	}
	if (order)
		for (const char *const *p = order; *p; p++)
			if (json_object_get(o, *p))
				keys[k++] = *p;
	first = k;
	json_object_foreach((json_t *)o, key, v)
		if (!order || !in_list(order, key))
			keys[k++] = key;
	qsort(keys + first, k - first, sizeof(*keys), by_string);

	outs(e, "{\n");
	for (size_t i = 0; i < k && !e->err; i++) {
		const char *const *child = NULL, *const *items = NULL;

		if (order == top_order && strcmp(keys[i], "env") == 0)
			child = env_order;
		if (order == top_order && strcmp(keys[i], "histograms") == 0)
			items = hist_order;
		if (order == top_order && strcmp(keys[i], "views") == 0)
			items = view_order;
		if (order == view_order && strcmp(keys[i], "columns") == 0)
			items = column_order;
		if (order == top_order && strcmp(keys[i], "integrity") == 0)
			child = integrity_order;
		indent(e, ind + 2);
		emit_string(e, keys[i]);
		outs(e, ": ");
		emit_value(e, json_object_get(o, keys[i]), ind + 2, child, items);
		outs(e, i + 1 < k ? ",\n" : "\n");
	}
	indent(e, ind);
	outs(e, "}");
	free(keys);
}

/* Arrays of scalars fill lines up to about 100 columns; others get a line per element. */
static void emit_array(struct emit *e, const json_t *a, unsigned int ind,
		       const char *const *item_order)
{
	struct emit item = { RT_BUF_INIT, 0 };
	size_t n = json_array_size(a), col, start;
	bool scalars = true;

	if (n == 0) {
		outs(e, "[]");
		return;
	}
	for (size_t i = 0; i < n && scalars; i++)
		scalars = !json_is_object(json_array_get(a, i)) &&
			  !json_is_array(json_array_get(a, i));
	if (!scalars) {
		outs(e, "[\n");
		for (size_t i = 0; i < n && !e->err; i++) {
			indent(e, ind + 2);
			emit_value(e, json_array_get(a, i), ind + 2, item_order, NULL);
			outs(e, i + 1 < n ? ",\n" : "\n");
		}
		indent(e, ind);
		outs(e, "]");
		return;
	}

	/* Try one line first; if it gets long, start again and wrap. */
	start = e->buf.len;
	outs(e, "[");
	for (size_t i = 0; i < n && !e->err; i++) {
		if (i)
			outs(e, ", ");
		emit_scalar(e, json_array_get(a, i));
	}
	outs(e, "]");
	if (e->err || e->buf.len - start + ind < 80)
		return;
	e->buf.len = start;
	e->buf.data[start] = '\0';
	outs(e, "[\n");
	indent(e, ind + 2);
	col = ind + 2;
	for (size_t i = 0; i < n && !e->err; i++) {
		rt_buf_reset(&item.buf);
		emit_scalar(&item, json_array_get(a, i));
		if (item.err)
			e->err = item.err;
		if (i && col + item.buf.len + 2 > 100) {
			outs(e, ",\n");
			indent(e, ind + 2);
			col = ind + 2;
		} else if (i) {
			outs(e, ", ");
			col += 2;
		}
		out(e, rt_buf_str(&item.buf), item.buf.len);
		col += item.buf.len;
	}
	outs(e, "\n");
	indent(e, ind);
	outs(e, "]");
	rt_buf_fini(&item.buf);
}

static void emit_value(struct emit *e, const json_t *v, unsigned int ind,
		       const char *const *order, const char *const *item_order)
{
	if (json_is_object(v))
		emit_object(e, v, ind, order);
	else if (json_is_array(v))
		emit_array(e, v, ind, item_order);
	else
		emit_scalar(e, v);
}

char *rt_result_to_string(const struct rt_result *res, char **cause)
{
	struct emit e = { RT_BUF_INIT, 0 };
	int ret;

	ret = rt_result_validate(res->doc, cause);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	emit_object(&e, res->doc, 0, top_order);
	outs(&e, "\n");
	if (e.err) {
		rt_buf_fini(&e.buf);
		rt_err(cause, -ENOMEM, "out of memory while rendering the result");
		errno = ENOMEM;
		return NULL;
	}
	return rt_buf_take(&e.buf);
}

char *rt_result_canonical_text(const struct rt_result *res, char **cause)
{
	struct rt_result bare = { json_copy(res->doc), RT_RESULT_VERSION };
	char *text;
	int err;

	if (!bare.doc) {
		rt_err(cause, -ENOMEM, "out of memory while rendering the result");
		errno = ENOMEM;
		return NULL;
	}
	json_object_del(bare.doc, "integrity");	/* a shallow copy: res keeps its own */
	text = rt_result_to_string(&bare, cause);
	err = errno;
	json_decref(bare.doc);
	errno = err;
	return text;
}

int rt_result_write(const struct rt_result *res, const char *path, char **cause)
{
	char *text, *why = NULL;
	int ret;

	text = rt_result_to_string(res, &why);
	if (!text) {
		ret = -errno;
		rt_err(cause, ret, "%s: not written: %s", path, why ? why : strerror(-ret));
		free(why);
		return ret;
	}
	ret = rt_file_write_atomic(path, text, strlen(text), 0644, cause);
	free(text);
	return ret;
}

/* ---- Reading ----------------------------------------------------------- */

/*
 * An upper bound of the number of values in @text: every value but the
 * first follows a comma or opens a container. Counting before parsing stops
 * a file of "[0,0,0,..." from costing fifty bytes of heap per input byte.
 */
static size_t count_values(const char *text, size_t len)
{
	bool in_str = false;
	size_t n = 1;

	for (size_t i = 0; i < len; i++) {
		char c = text[i];

		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = false;
		} else if (c == '"') {
			in_str = true;
		} else if (c == ',' || c == '[' || c == '{') {
			n++;
		}
	}
	return n;
}

int rt_result_parse(const char *text, size_t len, const char *name, struct rt_result **out,
		    char **cause)
{
	struct rt_result *res;
	char *why = NULL;
	json_t *doc;
	int ret;

	*out = NULL;
	if (!name)
		name = "(result)";
	if (len > RT_RESULT_MAX_FILE)
		return rt_err(cause, -EFBIG, "%s: %zu bytes is more than the %u MiB a result may have",
			      name, len, RT_RESULT_MAX_FILE >> 20);
	if (count_values(text, len) > RT_RESULT_MAX_VALUES)
		return rt_err(cause, -EFBIG, "%s: more than %u values in one result", name,
			      RT_RESULT_MAX_VALUES);
	ret = rt_json_load(text, len, name, &doc, cause);
	if (ret)
		return ret;
	ret = rt_result_validate(doc, &why);
	if (ret) {
		rt_err(cause, ret, "%s: %s", name, why ? why : "invalid result");
		free(why);
		json_decref(doc);
		return ret;
	}
	res = calloc(1, sizeof(*res));
	if (!res) {
		json_decref(doc);
		return rt_err(cause, -ENOMEM, "%s: out of memory", name);
	}
	res->doc = doc;
	res->version = rt_result_schema_version(json_string_value(json_object_get(doc,
										      "schema")));
	/* A /1 document is a /2 document without /2's fields: renaming converts it. */
	if (res->version == 1 &&
	    json_object_set_new(doc, "schema", json_string(RT_RESULT_SCHEMA))) {
		rt_result_free(res);
		return rt_err(cause, -ENOMEM, "%s: out of memory", name);
	}
	*out = res;
	return 0;
}

unsigned int rt_result_version(const struct rt_result *res)
{
	return res->version;
}

int rt_result_read(const char *path, struct rt_result **out, char **cause)
{
	char *text = NULL, *why = NULL;
	size_t len = 0;
	int ret;

	*out = NULL;
	ret = rt_file_load(path, 0, RT_RESULT_MAX_FILE, &text, &len, &why);
	if (ret == -EFBIG)
		rt_err(cause, ret, "%s: larger than the %u MiB a result may have", path,
		       RT_RESULT_MAX_FILE >> 20);
	else if (ret)
		rt_err(cause, ret, "%s", why ? why : strerror(-ret));
	free(why);
	if (ret)
		return ret;
	ret = rt_result_parse(text, len, path, out, cause);
	free(text);
	return ret;
}

/* ---- Getters ----------------------------------------------------------- */

static const char *top_string(const struct rt_result *res, const char *key)
{
	return json_string_value(json_object_get(res->doc, key));
}

const char *rt_result_lab(const struct rt_result *res)
{
	return top_string(res, "lab");
}

const char *rt_result_tier(const struct rt_result *res)
{
	return top_string(res, "tier");
}

bool rt_result_simulated(const struct rt_result *res)
{
	return json_is_true(json_object_get(res->doc, "simulated"));
}

const char *rt_result_created(const struct rt_result *res)
{
	return top_string(res, "created");
}

json_t *rt_result_json(const struct rt_result *res)
{
	return res->doc;
}

static json_t *member(const struct rt_result *res, const char *sect, const char *key)
{
	return key ? json_object_get(json_object_get(res->doc, sect), key) : NULL;
}

static int get_num(const struct rt_result *res, const char *sect, const char *key, double *out)
{
	json_t *v = member(res, sect, key);

	if (!v)
		return -ENOENT;
	if (!json_is_number(v))
		return -EINVAL;
	*out = json_number_value(v);
	return 0;
}

static int get_str(const struct rt_result *res, const char *sect, const char *key,
		   const char **out)
{
	json_t *v = member(res, sect, key);

	if (!v)
		return -ENOENT;
	if (!json_is_string(v))
		return -EINVAL;
	*out = json_string_value(v);
	return 0;
}

int rt_result_summary_get(const struct rt_result *res, const char *key, double *out)
{
	return get_num(res, "summary", key, out);
}

int rt_result_param_num(const struct rt_result *res, const char *key, double *out)
{
	return get_num(res, "params", key, out);
}

int rt_result_param_str(const struct rt_result *res, const char *key, const char **out)
{
	return get_str(res, "params", key, out);
}

int rt_result_param_bool(const struct rt_result *res, const char *key, bool *out)
{
	json_t *v = member(res, "params", key);

	if (!v)
		return -ENOENT;
	if (!json_is_boolean(v))
		return -EINVAL;
	*out = json_is_true(v);
	return 0;
}

int rt_result_answer_num(const struct rt_result *res, const char *id, double *out)
{
	return get_num(res, "answers", id, out);
}

int rt_result_answer_str(const struct rt_result *res, const char *id, const char **out)
{
	return get_str(res, "answers", id, out);
}

size_t rt_result_hist_count(const struct rt_result *res)
{
	return json_array_size(json_object_get(res->doc, "histograms"));
}

int rt_result_hist_find(const struct rt_result *res, const char *name, size_t *i)
{
	json_t *hists = json_object_get(res->doc, "histograms");

	for (size_t k = 0; name && k < json_array_size(hists); k++) {
		const char *n = json_string_value(json_object_get(json_array_get(hists, k),
								  "name"));

		if (n && strcmp(n, name) == 0) {
			if (i)
				*i = k;
			return 0;
		}
	}
	return -ENOENT;
}

/* Copy an array of non-negative integers; NULL with *n = 0 for an empty or absent one. */
static int counts_out(const json_t *a, uint64_t **out, size_t *n)
{
	size_t len = json_array_size(a);
	uint64_t *v;

	*out = NULL;
	*n = 0;
	if (!len)
		return 0;
	v = malloc(len * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		json_int_t x = json_integer_value(json_array_get(a, i));

		v[i] = x > 0 ? (uint64_t)x : 0;
	}
	*out = v;
	*n = len;
	return 0;
}

/* Copy overflow_buckets; NULL with *n = 0 for an empty or absent one. */
static int ranges_out(const json_t *a, struct rt_result_range **out, size_t *n)
{
	size_t len = json_array_size(a);
	struct rt_result_range *r;

	*out = NULL;
	*n = 0;
	if (!len)
		return 0;
	r = malloc(len * sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		json_t *b = json_array_get(a, i);
		json_int_t c = json_integer_value(json_array_get(b, 2));

		r[i].lower = json_number_value(json_array_get(b, 0));
		r[i].upper = json_number_value(json_array_get(b, 1));
		r[i].count = c > 0 ? (uint64_t)c : 0;
	}
	*out = r;
	*n = len;
	return 0;
}

int rt_result_hist_get(const struct rt_result *res, size_t i, struct rt_result_hist *h)
{
	json_t *o = json_array_get(json_object_get(res->doc, "histograms"), i);
	uint64_t *counts = NULL, *cycles = NULL;
	struct rt_result_range *ranges = NULL;
	size_t nc = 0, ny = 0, nr = 0;
	json_int_t over;

	memset(h, 0, sizeof(*h));
	if (!json_is_object(o))
		return -ENOENT;
	/* A document changed behind the validator's back must not crash a reader. */
	if (!json_is_string(json_object_get(o, "name")) ||
	    !json_is_string(json_object_get(o, "unit")) ||
	    !json_is_array(json_object_get(o, "counts")))
		return -EINVAL;
	if (counts_out(json_object_get(o, "counts"), &counts, &nc) ||
	    counts_out(json_object_get(o, "overflow_cycles"), &cycles, &ny) ||
	    ranges_out(json_object_get(o, "overflow_buckets"), &ranges, &nr)) {
		free(counts);
		free(cycles);
		return -ENOMEM;
	}
	h->name = json_string_value(json_object_get(o, "name"));
	h->unit = json_string_value(json_object_get(o, "unit"));
	h->bucket_width = json_number_value(json_object_get(o, "bucket_width"));
	h->first_bucket = json_number_value(json_object_get(o, "first_bucket"));
	h->counts = counts;
	h->nbuckets = nc;
	over = json_integer_value(json_object_get(o, "overflow_count"));
	h->overflow_count = over > 0 ? (uint64_t)over : 0;
	h->overflow_cycles = cycles;
	h->n_overflow_cycles = ny;
	h->overflow_buckets = ranges;
	h->n_overflow_buckets = nr;
	return 0;
}

void rt_result_hist_fini(struct rt_result_hist *h)
{
	if (!h)
		return;
	/* rt_result_hist_get() allocated both arrays; the const is for callers. */
	free((void *)h->counts);
	free((void *)h->overflow_cycles);
	free((void *)h->overflow_buckets);
	memset(h, 0, sizeof(*h));
}

int rt_result_hist_percentile(const struct rt_result_hist *h, unsigned int q_ppm, double *value,
			      double *resolution)
{
	uint64_t total = h->overflow_count, want, cum = 0;

	*value = 0;
	*resolution = 0;
	if (q_ppm == 0 || q_ppm >= 1000000)
		return -EINVAL;
	for (size_t i = 0; i < h->nbuckets; i++)
		total += h->counts[i];
	if (!total)
		return -ENODATA;
	/* As rt_hist_percentile(): at least ceil(total * q) samples below the edge. */
	want = total / 1000000 * q_ppm + ((total % 1000000) * q_ppm + 999999) / 1000000;
	for (size_t i = 0; i < h->nbuckets; i++) {
		cum += h->counts[i];
		if (cum >= want) {
			*value = h->first_bucket + (double)(i + 1) * h->bucket_width;
			*resolution = h->bucket_width;
			return 0;
		}
	}
	for (size_t i = 0; i < h->n_overflow_buckets; i++) {
		cum += h->overflow_buckets[i].count;
		if (cum >= want) {
			*value = h->overflow_buckets[i].upper;
			*resolution = h->overflow_buckets[i].upper - h->overflow_buckets[i].lower;
			return 0;
		}
	}
	*value = h->first_bucket + (double)h->nbuckets * h->bucket_width;
	return -ERANGE;
}
