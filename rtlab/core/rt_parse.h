/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_parse: the one parser for what people type on a command line or in a
 * setting: whole numbers with a range, durations with a unit, CPU lists and
 * decimals. Every lab option, `rtlab vm`'s numbers and the environment
 * knobs go through it, so "12x", "-1", " 5" and "99999999999999999999"
 * are refused the same way everywhere, with a cause that names the thing
 * being set: `--loops: "12x" is not a whole number`.
 *
 * The grammar is strict on purpose: decimal digits only (no sign on an
 * unsigned value, no blanks, no "0x", no exponent), so that a typo is an
 * error and never a surprising value. Pure: no I/O, no locale, no globals.
 */
#ifndef RTLAB_CORE_RT_PARSE_H
#define RTLAB_CORE_RT_PARSE_H

#include <stddef.h>
#include <stdint.h>

#define RT_PARSE_NS_PER_US 1000ull
#define RT_PARSE_NS_PER_MS 1000000ull
#define RT_PARSE_NS_PER_S 1000000000ull

/* The highest CPU number limit rt_parse_cpus() takes (its duplicate check is a bitmap). */
#define RT_PARSE_CPUS_MAX 8192u

/* Quoted values are cut to this many bytes in a cause. */
#define RT_PARSE_QUOTE_MAX 40

/*
 * Every function below takes @what, the name a person knows the value by
 * ("--interval", "RTLAB_KVM_PROBE_TIMEOUT"; NULL means "value"), and
 * @cause (may be NULL): on failure a message that starts with @what and
 * quotes the text, which the caller frees. They return 0, or -EINVAL with
 * *out unchanged.
 */

/**
 * rt_parse_u64 - a whole number in @min..@max
 * @s: decimal digits only; NULL or "" is refused
 */
int rt_parse_u64(const char *what, const char *s, uint64_t min, uint64_t max, uint64_t *out,
		 char **cause);

/* rt_parse_uint - rt_parse_u64() for an unsigned int. */
int rt_parse_uint(const char *what, const char *s, unsigned int min, unsigned int max,
		  unsigned int *out, char **cause);

/**
 * rt_parse_s64 - a whole number in @min..@max, an optional '-' first
 * @s: "-12", "0", "7"; "+7", "- 7" and "-" are refused
 */
int rt_parse_s64(const char *what, const char *s, int64_t min, int64_t max, int64_t *out,
		 char **cause);

/* rt_parse_int - rt_parse_s64() for an int. */
int rt_parse_int(const char *what, const char *s, int min, int max, int *out, char **cause);

/**
 * rt_parse_duration - a duration: a whole number and a unit
 * @s: "250ns", "50us", "500ms", "10s", "2m", "1h", "1d", or a bare number
 *     in @bare_ns units (0: a bare number is refused)
 * @min_ns, @max_ns: the range, in nanoseconds
 * @ns: the duration in nanoseconds
 *
 * A cause quotes the range in the largest unit that is exact ("1ms to 1d").
 */
int rt_parse_duration(const char *what, const char *s, uint64_t bare_ns, uint64_t min_ns,
		      uint64_t max_ns, uint64_t *ns, char **cause);

/**
 * rt_parse_format_duration - @ns in the largest unit that is exact
 * @buf: receives "15s", "10m", "500ms", "1500us", "0s"; at least 24 bytes
 *
 * What rt_parse_duration() reads back to the same value.
 */
void rt_parse_format_duration(uint64_t ns, char *buf, size_t size);

/**
 * rt_parse_cpus - a CPU list: "1", "0,2-3,5"
 * @limit: every CPU is below it (at most RT_PARSE_CPUS_MAX)
 * @cpus: receives the CPUs in the order written
 * @cap: capacity of @cpus; a longer list is refused
 * @n: how many were written (at least one on success)
 *
 * Ranges go from low to high, and a CPU may be named once only.
 */
int rt_parse_cpus(const char *what, const char *s, unsigned int limit, unsigned int *cpus,
		  unsigned int cap, unsigned int *n, char **cause);

/**
 * rt_parse_decimal - a decimal number in @min..@max
 * @s: "-1", "0.5", "12.25", ".5"; no exponent, "inf", "nan" or hex
 *
 * At most 30 characters, read with the C locale's decimal point.
 */
int rt_parse_decimal(const char *what, const char *s, double min, double max, double *out,
		     char **cause);

#endif
