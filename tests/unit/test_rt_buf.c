/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for rt_buf: growth, formatting, take semantics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"

static void test_empty(void **state)
{
	struct rt_buf b = RT_BUF_INIT;
	char *s;

	(void)state;
	assert_string_equal(rt_buf_str(&b), "");
	s = rt_buf_take(&b);
	assert_non_null(s);
	assert_string_equal(s, "");
	free(s);
	rt_buf_fini(&b);
}

static void test_append_grows(void **state)
{
	struct rt_buf b;
	char expect[10001];

	(void)state;
	rt_buf_init(&b);
	for (int i = 0; i < 10000; i++) {
		assert_int_equal(rt_buf_append(&b, "abcdefghij" + i % 10, 1), 0);
		expect[i] = (char)('a' + i % 10);
	}
	expect[10000] = '\0';
	assert_int_equal(b.len, 10000);
	assert_true(b.cap > b.len);
	assert_string_equal(rt_buf_str(&b), expect);
	rt_buf_fini(&b);
	assert_null(b.data);
	assert_int_equal(b.len, 0);
}

static void test_printf_and_reset(void **state)
{
	struct rt_buf b = RT_BUF_INIT;
	char *s;

	(void)state;
	assert_int_equal(rt_buf_printf(&b, "%d-%s", 42, "x"), 0);
	assert_int_equal(rt_buf_puts(&b, "|"), 0);
	assert_int_equal(rt_buf_printf(&b, "%0200d", 7), 0);
	assert_int_equal(b.len, 5 + 200);
	assert_memory_equal(rt_buf_str(&b), "42-x|000", 8);
	rt_buf_reset(&b);
	assert_string_equal(rt_buf_str(&b), "");
	assert_int_equal(rt_buf_puts(&b, "again"), 0);
	s = rt_buf_take(&b);
	assert_string_equal(s, "again");
	assert_null(b.data);
	free(s);
}

static void test_binary_append(void **state)
{
	struct rt_buf b = RT_BUF_INIT;
	const char bin[] = { 'a', 0, 'b', (char)0xff };

	(void)state;
	assert_int_equal(rt_buf_append(&b, bin, sizeof(bin)), 0);
	assert_int_equal(b.len, 4);
	assert_memory_equal(b.data, bin, 4);
	assert_int_equal(b.data[4], 0);
	assert_int_equal(rt_buf_append(&b, NULL, 0), 0);
	assert_int_equal(b.len, 4);
	rt_buf_fini(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_append_grows),
		cmocka_unit_test(test_printf_and_reset),
		cmocka_unit_test(test_binary_append),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
