/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for rt_parse: whole numbers (bounds, overflow, the strict
 * grammar: no sign, blank, hex or exponent), signed numbers down to
 * INT64_MIN, every duration unit and the ranges, the duration formatter
 * read back, CPU lists (ranges, order kept, duplicates, capacity, limit)
 * and decimals; every refusal has a cause that names the value.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_parse.h"

#define MS RT_PARSE_NS_PER_MS
#define S RT_PARSE_NS_PER_S

/*
 * A refusal whose cause starts with @what and contains @part; *@cause is
 * freed and reset. (The cause goes by address: an argument beside the call
 * that sets it could be read before the call.)
 */
static void refused(int ret, char **cause, const char *what, const char *part)
{
	assert_int_equal(ret, -EINVAL);
	assert_non_null(*cause);
	if (strncmp(*cause, what, strlen(what)) || (part && !strstr(*cause, part)))
		fail_msg("cause \"%s\": expected \"%s\" first and \"%s\" in it", *cause, what,
			 part ? part : "");
	free(*cause);
	*cause = NULL;
}

static void test_u64(void **state)
{
	uint64_t v = 42;
	char *cause = NULL;

	(void)state;
	assert_int_equal(rt_parse_u64("--n", "0", 0, 10, &v, &cause), 0);
	assert_int_equal(v, 0);
	assert_int_equal(rt_parse_u64("--n", "0010", 0, 10, &v, &cause), 0);
	assert_int_equal(v, 10);
	assert_int_equal(rt_parse_u64("--n", "18446744073709551615", 0, UINT64_MAX, &v, &cause),
			 0);
	assert_true(v == UINT64_MAX);
	assert_null(cause);

	v = 7;
	refused(rt_parse_u64("--loops", "12x", 0, 100, &v, &cause), &cause, "--loops",
		"\"12x\" is not a whole number");
	assert_int_equal(v, 7);		/* unchanged on failure */
	refused(rt_parse_u64("--n", "11", 0, 10, &v, &cause), &cause, "--n", "0..10");
	refused(rt_parse_u64("--n", "18446744073709551616", 0, UINT64_MAX, &v, &cause), &cause,
		"--n", "out of range");
	refused(rt_parse_u64("--n", "-1", 0, 10, &v, &cause), &cause, "--n", "0 or more");
	refused(rt_parse_u64(NULL, "", 0, 10, &v, &cause), &cause, "value", "nothing");
	for (const char *const *bad = (const char *const[]){ "+1", " 1", "1 ", "0x10", "1e3",
		"1.0", "١", "1,000", NULL }; *bad; bad++) {
		assert_int_equal(rt_parse_u64("--n", *bad, 0, UINT64_MAX, &v, NULL), -EINVAL);
		assert_int_equal(v, 7);
	}
	assert_int_equal(rt_parse_u64("--n", NULL, 0, 1, &v, NULL), -EINVAL);
}

static void test_uint_and_signed(void **state)
{
	unsigned int u = 0;
	int64_t s = 0;
	int i = 0;
	char *cause = NULL;

	(void)state;
	assert_int_equal(rt_parse_uint("--prio", "99", 1, 99, &u, NULL), 0);
	assert_int_equal(u, 99);
	refused(rt_parse_uint("--prio", "0", 1, 99, &u, &cause), &cause, "--prio: 0 is out",
		"(1..99)");
	assert_int_equal(rt_parse_uint("--n", "4294967296", 0, 4294967295u, &u, NULL), -EINVAL);

	assert_int_equal(rt_parse_s64("x", "-9223372036854775808", INT64_MIN, INT64_MAX, &s, NULL),
			 0);
	assert_true(s == INT64_MIN);
	assert_int_equal(rt_parse_s64("x", "9223372036854775807", INT64_MIN, INT64_MAX, &s, NULL),
			 0);
	assert_true(s == INT64_MAX);
	assert_int_equal(rt_parse_s64("x", "9223372036854775808", INT64_MIN, INT64_MAX, &s, NULL),
			 -EINVAL);
	assert_int_equal(rt_parse_s64("x", "-9223372036854775809", INT64_MIN, INT64_MAX, &s,
				      NULL), -EINVAL);
	assert_int_equal(rt_parse_int("x", "-1", -1, 5, &i, NULL), 0);
	assert_int_equal(i, -1);
	refused(rt_parse_int("--off", "-2", -1, 5, &i, &cause), &cause, "--off", "(-1..5)");
	for (const char *const *bad = (const char *const[]){ "-", "--1", "+1", "- 1", "", "1-",
		NULL }; *bad; bad++)
		assert_int_equal(rt_parse_int("x", *bad, -10, 10, &i, NULL), -EINVAL);
}

static void test_duration(void **state)
{
	static const struct {
		const char *s;
		uint64_t ns;
	} good[] = {
		{ "250ns", 250 }, { "50us", 50000 }, { "500ms", 500 * MS }, { "10s", 10 * S },
		{ "2m", 120 * S }, { "1h", 3600 * S }, { "1d", 86400 * S }, { "20", 20 * S },
		{ "007s", 7 * S },
	};
	uint64_t ns = 1;
	char *cause = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(rt_parse_duration("--d", good[i].s, S, 1, 86400 * S, &ns, NULL),
				 0);
		assert_true(ns == good[i].ns);
	}
	ns = 1;
	for (const char *const *bad = (const char *const[]){ "", "s", "0", "0s", "-1s", "1.5s",
		"10x", "10 s", "2d", "99999999999999999999", "1sm", " 1s", "1S", "1 ", NULL };
	     *bad; bad++) {
		assert_int_equal(rt_parse_duration("--d", *bad, S, MS, 86400 * S, &ns, NULL),
				 -EINVAL);
		assert_true(ns == 1);
	}
	assert_int_equal(rt_parse_duration("--d", NULL, S, MS, S, &ns, NULL), -EINVAL);
	/* A bare number only where the caller says what unit it is. */
	assert_int_equal(rt_parse_duration("--d", "5", 0, 1, S, &ns, NULL), -EINVAL);
	assert_int_equal(rt_parse_duration("--d", "5", MS, 1, S, &ns, NULL), 0);
	assert_true(ns == 5 * MS);

	refused(rt_parse_duration("--duration", "11m", S, MS, 600 * S, &ns, &cause), &cause,
		"--duration: 11m is out of range", "(1ms to 10m)");
	refused(rt_parse_duration("--duration", "ten", S, MS, 600 * S, &ns, &cause), &cause,
		"--duration: expected a duration", "a bare number is seconds");
	/* 2^64 ns overflows during the multiplication, not in the digits */
	assert_int_equal(rt_parse_duration("--d", "18446744074s", S, 0, UINT64_MAX, &ns, NULL),
			 -EINVAL);
}

static void test_format_duration(void **state)
{
	static const uint64_t values[] = { 0, 1, 999, 1000, 1500, 2 * MS, 1500 * MS, 15 * S,
		600 * S, 3600 * S, 86400 * S, 90000 * S, UINT64_MAX };
	static const char *const text[] = { "0s", "1ns", "999ns", "1us", "1500ns", "2ms",
		"1500ms", "15s", "10m", "1h", "1d", "25h", "18446744073709551615ns" };
	char buf[32];
	uint64_t back;

	(void)state;
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		rt_parse_format_duration(values[i], buf, sizeof(buf));
		assert_string_equal(buf, text[i]);
		assert_int_equal(rt_parse_duration("x", buf, 0, 0, UINT64_MAX, &back, NULL), 0);
		assert_true(back == values[i]);
	}
}

static void test_cpus(void **state)
{
	unsigned int c[8], n = 99;
	char *cause = NULL;

	(void)state;
	assert_int_equal(rt_parse_cpus("--cpus", "1", 1024, c, 8, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_int_equal(c[0], 1);
	assert_int_equal(rt_parse_cpus("--cpus", "3,0-2", 1024, c, 8, &n, NULL), 0);
	assert_int_equal(n, 4);
	assert_int_equal(c[0], 3);	/* the order written */
	assert_int_equal(c[3], 2);
	assert_int_equal(rt_parse_cpus("--cpus", "5-5", 1024, c, 8, &n, NULL), 0);
	assert_int_equal(n, 1);

	n = 99;
	for (const char *const *bad = (const char *const[]){ "", ",", "1,", ",1", "1,,2", "1-",
		"-1", "a", "1 ", " 1", "1-2-3", "1;2", "0x1", NULL }; *bad; bad++)
		refused(rt_parse_cpus("--cpus", *bad, 1024, c, 8, &n, &cause), &cause, "--cpus",
			"expected a CPU list");
	refused(rt_parse_cpus("--cpus", "0-8", 1024, c, 8, &n, &cause), &cause, "--cpus",
		"more than 8 CPUs");
	refused(rt_parse_cpus("--cpus", "0-2,2", 1024, c, 8, &n, &cause), &cause, "--cpus",
		"CPU 2 is named twice");
	refused(rt_parse_cpus("--cpus", "2-1", 1024, c, 8, &n, &cause), &cause, "--cpus",
		"goes down");
	refused(rt_parse_cpus("--cpus", "1024", 1024, c, 8, &n, &cause), &cause, "--cpus",
		"CPU 1024 is too high (every CPU is below 1024)");
	refused(rt_parse_cpus("--cpus", "0-99999999999999999999", 1024, c, 8, &n, &cause), &cause,
		"--cpus", "too high");
	assert_int_equal(n, 99);	/* unchanged on failure */
	assert_int_equal(rt_parse_cpus("--cpus", NULL, 4, c, 8, &n, NULL), -EINVAL);
}

static void test_cpus_large(void **state)
{
	static unsigned int c[RT_PARSE_CPUS_MAX];
	unsigned int n = 0;

	(void)state;
	assert_int_equal(rt_parse_cpus("x", "0-8191", RT_PARSE_CPUS_MAX, c, RT_PARSE_CPUS_MAX, &n,
				       NULL), 0);
	assert_int_equal(n, RT_PARSE_CPUS_MAX);
	assert_int_equal(c[8191], 8191);
	assert_int_equal(rt_parse_cpus("x", "8192", RT_PARSE_CPUS_MAX, c, RT_PARSE_CPUS_MAX, &n,
				       NULL), -EINVAL);
}

static void test_decimal(void **state)
{
	double v = 9;
	char *cause = NULL;

	(void)state;
	assert_int_equal(rt_parse_decimal("--r", "0.5", 0, 1, &v, NULL), 0);
	assert_true(v == 0.5);
	assert_int_equal(rt_parse_decimal("--r", ".25", 0, 1, &v, NULL), 0);
	assert_true(v == 0.25);
	assert_int_equal(rt_parse_decimal("--r", "-12.75", -20, 0, &v, NULL), 0);
	assert_true(v == -12.75);
	assert_int_equal(rt_parse_decimal("--r", "3.", 0, 5, &v, NULL), 0);
	assert_true(v == 3);
	v = 9;
	for (const char *const *bad = (const char *const[]){ "", ".", "-", "1e3", "inf", "nan",
		"0x1p3", "1,5", " 1", "1..2", "+1", "1234567890123456789", NULL }; *bad; bad++)
		refused(rt_parse_decimal("--ratio", *bad, -1e30, 1e30, &v, &cause), &cause,
			"--ratio", NULL);
	refused(rt_parse_decimal("--ratio", "1.5", 0, 1, &v, &cause), &cause, "--ratio",
		"out of range");
	assert_true(v == 9);
	/* The locale's decimal point does not matter. */
	if (setlocale(LC_NUMERIC, "de_DE.UTF-8") || setlocale(LC_NUMERIC, "fr_FR.UTF-8")) {
		assert_int_equal(rt_parse_decimal("--r", "0.5", 0, 1, &v, NULL), 0);
		assert_true(v == 0.5);
		setlocale(LC_NUMERIC, "C");
	}
}

static void test_long_input_is_cut(void **state)
{
	char big[200], *cause = NULL;
	uint64_t v;

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(rt_parse_u64("--n", big, 0, 1, &v, &cause), -EINVAL);
	assert_non_null(cause);
	assert_true(strlen(cause) < 40 + RT_PARSE_QUOTE_MAX);
	free(cause);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64),
		cmocka_unit_test(test_uint_and_signed),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_format_duration),
		cmocka_unit_test(test_cpus),
		cmocka_unit_test(test_cpus_large),
		cmocka_unit_test(test_decimal),
		cmocka_unit_test(test_long_input_is_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
