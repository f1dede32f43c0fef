/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for rt_text: what may reach a terminal as it is (printable
 * ASCII, valid UTF-8) and how everything else is shown (C0 controls, DEL,
 * raw C1 bytes, C1 code points, bidi controls, bytes that are not UTF-8);
 * the one-line printf that keeps only its format's edge newlines; the
 * allocation-free writer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_text.h"

static char *escaped(const char *s, size_t len, unsigned int flags)
{
	struct rt_buf b = RT_BUF_INIT;

	assert_int_equal(rt_text_escape(&b, s, len, flags), 0);
	return rt_buf_take(&b);
}

#define assert_escapes(in, flags, want) do { \
	char *got_ = escaped(in, sizeof(in) - 1, flags); \
	assert_string_equal(got_, want); \
	free(got_); \
} while (0)

static void test_plain_text_unchanged(void **state)
{
	(void)state;
	assert_escapes("", 0, "");
	assert_escapes("p99 12 us, back\\slash ~", 0, "p99 12 us, back\\slash ~");
	/* Valid UTF-8 of 2, 3 and 4 bytes is kept. */
	assert_escapes("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 0,
		       "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	/* U+00A0 and U+203A, whose last byte looks like a C1 control, are fine. */
	assert_escapes("\xc2\xa0\xe2\x80\xba", 0, "\xc2\xa0\xe2\x80\xba");
}

static void test_controls_escaped(void **state)
{
	(void)state;
	/* Clear screen and set the window title. */
	assert_escapes("a\x1b[2Jb\x1b]0;title\x07", 0, "a\\x1b[2Jb\\x1b]0;title\\x07");
	assert_escapes("\x01\x7f", 0, "\\x01\\x7f");
	assert_escapes("x\ny\tz\r", 0, "x\\ny\\tz\\r");
	assert_escapes("x\ny\tz\r", RT_TEXT_KEEP_NL, "x\ny\tz\\r");
	/* NUL inside a counted string. */
	assert_escapes("a\0b", 0, "a\\x00b");
}

static void test_c1_and_invalid_utf8(void **state)
{
	(void)state;
	/* A raw CSI byte, and U+009B encoded: both are controls. */
	assert_escapes("\x9b" "31m", 0, "\\x9b31m");
	assert_escapes("\xc2\x9b" "31m", 0, "\\u009b31m");
	assert_escapes("\xc2\x85", 0, "\\u0085");
	/* Overlong, surrogate, above U+10FFFF, truncated, stray continuation. */
	assert_escapes("\xc0\x80", 0, "\\xc0\\x80");
	assert_escapes("\xed\xa0\x80", 0, "\\xed\\xa0\\x80");
	assert_escapes("\xf4\x90\x80\x80", 0, "\\xf4\\x90\\x80\\x80");
	assert_escapes("\xe2\x82", 0, "\\xe2\\x82");
	assert_escapes("\x80\xff", 0, "\\x80\\xff");
	/* Bidi override and isolate: they reorder what the terminal draws. */
	assert_escapes("a\xe2\x80\xae" "b\xe2\x81\xa6", 0, "a\\u202eb\\u2066");
}

static void test_char(void **state)
{
	char esc[RT_TEXT_ESC_MAX];
	unsigned int cp;

	(void)state;
	assert_int_equal(rt_text_char("\xe2\x82\xac", 3, 0, esc, &cp), 3);
	assert_string_equal(esc, "");
	assert_int_equal(cp, 0x20ac);
	/* Cut short by @n: not a character, one byte escaped. */
	assert_int_equal(rt_text_char("\xe2\x82\xac", 2, 0, esc, &cp), 1);
	assert_string_equal(esc, "\\xe2");
	assert_int_equal(rt_text_char("\x1b", 1, RT_TEXT_KEEP_NL, esc, NULL), 1);
	assert_string_equal(esc, "\\x1b");
}

static void test_printf_one_line(void **state)
{
	struct rt_buf b = RT_BUF_INIT;

	(void)state;
	/* The format's leading and trailing newlines stay; a field's do not. */
	assert_int_equal(rt_text_printf(&b, "\nnote: %s\n", "two\nFAKE line\x1b[2J"), 0);
	assert_string_equal(rt_buf_str(&b), "\nnote: two\\nFAKE line\\x1b[2J\n");
	rt_buf_reset(&b);
	assert_int_equal(rt_text_printf(&b, "%s: %d\n", "\nlead", 5), 0);
	assert_string_equal(rt_buf_str(&b), "\\nlead: 5\n");
	rt_buf_reset(&b);
	assert_int_equal(rt_text_printf(&b, "%s", ""), 0);
	assert_string_equal(rt_buf_str(&b), "");
	assert_int_equal(rt_text_printf(&b, "\n\n"), 0);
	assert_string_equal(rt_buf_str(&b), "\n\n");
	rt_buf_fini(&b);
}

static void test_fwrite(void **state)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	(void)state;
	assert_non_null(f);
	assert_int_equal(rt_text_fputs("a\x1b[1mb\n", RT_TEXT_KEEP_NL, f), 0);
	assert_int_equal(rt_text_fwrite("\x9b\n", 2, 0, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(out, "a\\x1b[1mb\n\\x9b\\n");
	free(out);
}

/*
 * Whatever the bytes, the result holds no control byte (but kept newlines
 * and tabs), no DEL, no byte that is not UTF-8 and no C1 code point.
 */
static void test_any_bytes_come_out_safe(void **state)
{
	unsigned int seed = 12345;

	(void)state;
	for (int round = 0; round < 2000; round++) {
		unsigned char in[64];
		size_t n = (size_t)(rand_r(&seed) % (int)sizeof(in));
		unsigned int flags = round & 1 ? RT_TEXT_KEEP_NL : 0;
		char *out;
		size_t i = 0, len;

		for (size_t k = 0; k < n; k++)
			in[k] = (unsigned char)rand_r(&seed);
		out = escaped((const char *)in, n, flags);
		len = strlen(out);
		while (i < len) {
			char esc[RT_TEXT_ESC_MAX];
			size_t k = rt_text_char(out + i, len - i, flags, esc, NULL);

			assert_string_equal(esc, "");
			i += k;
		}
		free(out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_text_unchanged),
		cmocka_unit_test(test_controls_escaped),
		cmocka_unit_test(test_c1_and_invalid_utf8),
		cmocka_unit_test(test_char),
		cmocka_unit_test(test_printf_one_line),
		cmocka_unit_test(test_fwrite),
		cmocka_unit_test(test_any_bytes_come_out_safe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
