/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_parse: strict parsers for numbers, durations, CPU lists and decimals
 * as people type them. The digits are read by hand rather than with
 * strtoull()/strtod(): those skip blanks, take a sign on an unsigned value
 * ("-1" becomes 2^64-1), read hex and exponents, and strtod() follows the
 * locale's decimal point, which the TUI sets from the environment.
 */
#include "rt_parse.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rt_err.h"

#define Q RT_PARSE_QUOTE_MAX

static const char *name_of(const char *what)
{
	return what && *what ? what : "value";
}

/* Leading digits of @s as a number; -ERANGE when it does not fit, -EINVAL without digits. */
static int digits_u64(const char *s, size_t *len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; s[i] >= '0' && s[i] <= '9'; i++) {
		unsigned int d = (unsigned int)(s[i] - '0');

		if (v > (UINT64_MAX - d) / 10) {
			while (s[i] >= '0' && s[i] <= '9')
				i++;
			*len = i;
			return -ERANGE;
		}
		v = v * 10 + d;
	}
	*len = i;
	if (i == 0)
		return -EINVAL;
	*out = v;
	return 0;
}

int rt_parse_u64(const char *what, const char *s, uint64_t min, uint64_t max, uint64_t *out,
		 char **cause)
{
	uint64_t v = 0;
	size_t len = 0;
	int ret;

	if (!s || !*s)
		return rt_err(cause, -EINVAL, "%s: expected a whole number, got nothing",
			      name_of(what));
	ret = digits_u64(s, &len, &v);
	if (ret == -EINVAL || s[len])
		return rt_err(cause, -EINVAL, "%s: \"%.*s\" is not a whole number%s",
			      name_of(what), Q, s, s[0] == '-' ? " of 0 or more" : "");
	if (ret || v < min || v > max)
		return rt_err(cause, -EINVAL, "%s: %.*s is out of range (%llu..%llu)",
			      name_of(what), Q, s, (unsigned long long)min,
			      (unsigned long long)max);
	*out = v;
	return 0;
}

int rt_parse_uint(const char *what, const char *s, unsigned int min, unsigned int max,
		  unsigned int *out, char **cause)
{
	uint64_t v;
	int ret = rt_parse_u64(what, s, min, max, &v, cause);

	if (!ret)
		*out = (unsigned int)v;
	return ret;
}

int rt_parse_s64(const char *what, const char *s, int64_t min, int64_t max, int64_t *out,
		 char **cause)
{
	bool neg = s && s[0] == '-';
	uint64_t mag = 0;
	size_t len = 0;
	int64_t v;
	int ret;

	if (!s || !*s)
		return rt_err(cause, -EINVAL, "%s: expected a whole number, got nothing",
			      name_of(what));
	ret = digits_u64(s + neg, &len, &mag);
	if (ret == -EINVAL || s[neg + len])
		return rt_err(cause, -EINVAL, "%s: \"%.*s\" is not a whole number", name_of(what),
			      Q, s);
	if (ret || mag > (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
		goto out_range;
	v = neg ? (mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag) : (int64_t)mag;
	if (v < min || v > max)
		goto out_range;
	*out = v;
	return 0;
out_range:
	return rt_err(cause, -EINVAL, "%s: %.*s is out of range (%lld..%lld)", name_of(what), Q,
		      s, (long long)min, (long long)max);
}

int rt_parse_int(const char *what, const char *s, int min, int max, int *out, char **cause)
{
	int64_t v;
	int ret = rt_parse_s64(what, s, min, max, &v, cause);

	if (!ret)
		*out = (int)v;
	return ret;
}

/* ---- Durations ------------------------------------------------------------------ */

static const struct {
	const char *suffix;
	uint64_t ns;
} units[] = {
	/* Largest first: rt_parse_format_duration() picks the first exact one. */
	{ "d", 86400ull * RT_PARSE_NS_PER_S }, { "h", 3600ull * RT_PARSE_NS_PER_S },
	{ "m", 60ull * RT_PARSE_NS_PER_S }, { "s", RT_PARSE_NS_PER_S },
	{ "ms", RT_PARSE_NS_PER_MS }, { "us", RT_PARSE_NS_PER_US }, { "ns", 1 },
};

#define NUNITS (sizeof(units) / sizeof(units[0]))

void rt_parse_format_duration(uint64_t ns, char *buf, size_t size)
{
	size_t i;

	if (!size)
		return;
	for (i = 0; i < NUNITS - 1; i++)
		if (ns && ns % units[i].ns == 0)
			break;
	if (ns == 0)
		i = 3;	/* "0s" */
	snprintf(buf, size, "%llu%s", (unsigned long long)(ns / units[i].ns), units[i].suffix);
}

int rt_parse_duration(const char *what, const char *s, uint64_t bare_ns, uint64_t min_ns,
		      uint64_t max_ns, uint64_t *ns, char **cause)
{
	char lo[24], hi[24];
	uint64_t v = 0, unit = 0;
	size_t len = 0;
	int ret;

	rt_parse_format_duration(min_ns, lo, sizeof(lo));
	rt_parse_format_duration(max_ns, hi, sizeof(hi));
	ret = s ? digits_u64(s, &len, &v) : -EINVAL;
	if (ret != -EINVAL) {
		if (!s[len])
			unit = bare_ns;
		for (size_t i = 0; s[len] && i < NUNITS; i++)
			if (!strcmp(s + len, units[i].suffix))
				unit = units[i].ns;
	}
	if (!unit)
		return rt_err(cause, -EINVAL, "%s: expected a duration such as 10s, 500ms, 2m or "
			      "1h%s, from %s to %s, got \"%.*s\"", name_of(what),
			      bare_ns == RT_PARSE_NS_PER_S ? " (a bare number is seconds)" : "",
			      lo, hi, Q, s ? s : "");
	if (ret || v > UINT64_MAX / unit || v * unit < min_ns || v * unit > max_ns)
		return rt_err(cause, -EINVAL, "%s: %.*s is out of range (%s to %s)", name_of(what),
			      Q, s, lo, hi);
	*ns = v * unit;
	return 0;
}

/* ---- CPU lists ------------------------------------------------------------------- */

int rt_parse_cpus(const char *what, const char *s, unsigned int limit, unsigned int *cpus,
		  unsigned int cap, unsigned int *n, char **cause)
{
	uint64_t seen[RT_PARSE_CPUS_MAX / 64] = { 0 };
	const char *p = s;
	unsigned int count = 0;

	if (limit > RT_PARSE_CPUS_MAX)
		limit = RT_PARSE_CPUS_MAX;
	if (!s || !*s)
		goto out_syntax;
	for (;;) {
		uint64_t lo, hi;
		size_t len;
		int ret;

		ret = digits_u64(p, &len, &lo);
		if (ret == -EINVAL)
			goto out_syntax;
		if (ret || lo >= limit)
			return rt_err(cause, -EINVAL, "%s: CPU %.*s is too high (every CPU is below "
				      "%u)", name_of(what), (int)(len < Q ? len : Q), p, limit);
		p += len;
		hi = lo;
		if (*p == '-') {
			p++;
			ret = digits_u64(p, &len, &hi);
			if (ret == -EINVAL)
				goto out_syntax;
			if (ret || hi >= limit)
				return rt_err(cause, -EINVAL, "%s: CPU %.*s is too high (every CPU "
					      "is below %u)", name_of(what),
					      (int)(len < Q ? len : Q), p, limit);
			if (hi < lo)
				return rt_err(cause, -EINVAL, "%s: the range %llu-%llu goes down (write "
					      "%llu-%llu)", name_of(what), (unsigned long long)lo,
					      (unsigned long long)hi, (unsigned long long)hi,
					      (unsigned long long)lo);
			p += len;
		}
		for (uint64_t c = lo; c <= hi; c++) {
			if (seen[c / 64] & (1ull << (c % 64)))
				return rt_err(cause, -EINVAL, "%s: CPU %llu is named twice",
					      name_of(what), (unsigned long long)c);
			if (count >= cap)
				return rt_err(cause, -EINVAL, "%s: more than %u CPUs", name_of(what),
					      cap);
			seen[c / 64] |= 1ull << (c % 64);
			cpus[count++] = (unsigned int)c;
		}
		if (*p == '\0')
			break;
		if (*p != ',')
			goto out_syntax;
		p++;
	}
	*n = count;
	return 0;
out_syntax:
	return rt_err(cause, -EINVAL, "%s: expected a CPU list such as 1 or 0,2-3, got \"%.*s\"",
		      name_of(what), Q, s ? s : "");
}

/* ---- Decimals -------------------------------------------------------------------- */

#define DECIMAL_MAX_LEN 30
#define DECIMAL_MAX_DIGITS 18	/* each part still fits a uint64_t exactly */

int rt_parse_decimal(const char *what, const char *s, double min, double max, double *out,
		     char **cause)
{
	uint64_t ip = 0, fp = 0;
	size_t il = 0, fl = 0, at;
	double v, scale = 1;
	bool neg;

	if (!s || !*s || strlen(s) > DECIMAL_MAX_LEN)
		goto out_syntax;
	neg = s[0] == '-';
	at = neg;
	if (s[at] >= '0' && s[at] <= '9' && digits_u64(s + at, &il, &ip))
		goto out_syntax;
	at += il;
	if (s[at] == '.') {
		at++;
		if (s[at] >= '0' && s[at] <= '9' && digits_u64(s + at, &fl, &fp))
			goto out_syntax;
		at += fl;
	}
	if (s[at] || (il == 0 && fl == 0) || il > DECIMAL_MAX_DIGITS || fl > DECIMAL_MAX_DIGITS)
		goto out_syntax;
	for (size_t i = 0; i < fl; i++)
		scale *= 10;
	v = (double)ip + (double)fp / scale;
	if (neg)
		v = -v;
	if (!(v >= min && v <= max))
		return rt_err(cause, -EINVAL, "%s: %.*s is out of range (%g..%g)", name_of(what), Q,
			      s, min, max);
	*out = v;
	return 0;
out_syntax:
	return rt_err(cause, -EINVAL, "%s: \"%.*s\" is not a decimal number such as 0.5",
		      name_of(what), Q, s ? s : "");
}
