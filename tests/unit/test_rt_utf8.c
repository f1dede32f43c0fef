/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for rt_utf8: strict decoding (overlong forms, surrogates,
 * stray continuation bytes, sequences cut short), widths of wide CJK,
 * emoji, combining marks, controls and bidi overrides, clipping that never
 * splits a character, case folding; all run with the process in the C
 * locale, where a plain wcwidth() would call every non-ASCII character
 * unprintable, and checked against wcwidth() in C.UTF-8 over every code
 * point.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <locale.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "core/rt_utf8.h"

#define S(lit) lit, sizeof(lit) - 1

static void test_decode_valid(void **state)
{
	static const struct {
		const char *s;
		size_t len;
		uint32_t cp;
	} cases[] = {
		{ "a", 1, 'a' },
		{ "\x7f", 1, 0x7f },
		{ "\xc2\x80", 2, 0x80 },
		{ "\xc3\xa9", 2, 0xe9 },		/* é */
		{ "\xe6\x97\xa5", 3, 0x65e5 },		/* 日 */
		{ "\xef\xbf\xbd", 3, 0xfffd },
		{ "\xf0\x9f\x98\x80", 4, 0x1f600 },	/* 😀 */
		{ "\xf4\x8f\xbf\xbf", 4, 0x10ffff },
	};
	uint32_t cp;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* Extra bytes after the character are not taken. */
		char buf[8];

		memcpy(buf, cases[i].s, cases[i].len);
		memcpy(buf + cases[i].len, "zz", 2);
		assert_int_equal(rt_utf8_decode(buf, cases[i].len + 2, &cp), cases[i].len);
		assert_int_equal(cp, cases[i].cp);
	}
	/* A NUL is a character. */
	assert_int_equal(rt_utf8_decode("\0x", 2, &cp), 1);
	assert_int_equal(cp, 0);
	assert_int_equal(rt_utf8_decode("x", 0, &cp), 0);
	assert_int_equal(cp, RT_UTF8_INVALID);
}

static void test_decode_invalid_and_truncated(void **state)
{
	static const char *const bad[] = {
		"\x80",			/* stray continuation */
		"\xbf",
		"\xc0\xaf",		/* overlong '/' */
		"\xc1\xbf",
		"\xe0\x80\xaf",		/* overlong, three bytes */
		"\xf0\x80\x80\xaf",	/* overlong, four bytes */
		"\xed\xa0\x80",		/* surrogate U+D800 */
		"\xed\xbf\xbf",		/* surrogate U+DFFF */
		"\xf4\x90\x80\x80",	/* U+110000 */
		"\xf5\x80\x80\x80",
		"\xfe",
		"\xff",
		"\xc3(",		/* continuation missing */
		"\xe6\x97(",
	};
	uint32_t cp;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cp = 0;
		assert_int_equal(rt_utf8_decode(bad[i], strlen(bad[i]), &cp), 1);
		assert_int_equal(cp, RT_UTF8_INVALID);
	}
	/* Cut short by the length, even with the rest in memory. */
	assert_int_equal(rt_utf8_decode("\xe6\x97\xa5", 2, &cp), 1);
	assert_int_equal(cp, RT_UTF8_INVALID);
	assert_int_equal(rt_utf8_decode("\xf0\x9f\x98\x80", 3, &cp), 1);
	assert_int_equal(cp, RT_UTF8_INVALID);
	assert_int_equal(rt_utf8_decode("\xc3\xa9", 1, &cp), 1);
	assert_int_equal(cp, RT_UTF8_INVALID);
	/* After a bad byte the decoder picks up at the next character. */
	assert_int_equal(rt_utf8_decode("\x97\xa5" "a", 3, &cp), 1);
	assert_int_equal(rt_utf8_decode("a", 1, &cp), 1);
	assert_int_equal(cp, 'a');
}

static void test_cp_width(void **state)
{
	(void)state;
	assert_int_equal(rt_utf8_cp_width('a'), 1);
	assert_int_equal(rt_utf8_cp_width(' '), 1);
	assert_int_equal(rt_utf8_cp_width(0xe9), 1);		/* é */
	assert_int_equal(rt_utf8_cp_width(0x65e5), 2);		/* 日 */
	assert_int_equal(rt_utf8_cp_width(0xac00), 2);		/* 가 */
	assert_int_equal(rt_utf8_cp_width(0xff21), 2);		/* fullwidth A */
	assert_int_equal(rt_utf8_cp_width(0x1f600), 2);	/* 😀 */
	assert_int_equal(rt_utf8_cp_width(0x301), 0);		/* combining acute */
	assert_int_equal(rt_utf8_cp_width(0x308), 0);		/* combining diaeresis */
	assert_int_equal(rt_utf8_cp_width(0x200b), 0);		/* zero width space */
	/* Unprintable: controls, DEL, C1, bidi, surrogates, out of range. */
	assert_int_equal(rt_utf8_cp_width(0), -1);
	assert_int_equal(rt_utf8_cp_width(0x1b), -1);
	assert_int_equal(rt_utf8_cp_width('\n'), -1);
	assert_int_equal(rt_utf8_cp_width(0x7f), -1);
	assert_int_equal(rt_utf8_cp_width(0x9b), -1);
	assert_int_equal(rt_utf8_cp_width(0x202e), -1);
	assert_int_equal(rt_utf8_cp_width(0x2066), -1);
	assert_int_equal(rt_utf8_cp_width(0xd800), -1);
	assert_int_equal(rt_utf8_cp_width(0x110000), -1);
	assert_int_equal(rt_utf8_cp_width(RT_UTF8_INVALID), -1);
}

static void test_next(void **state)
{
	struct rt_utf8_char c;

	(void)state;
	assert_int_equal(rt_utf8_next(S("\xe6\x97\xa5!"), &c), 3);
	assert_int_equal(c.cp, 0x65e5);
	assert_int_equal(c.cols, 2);
	assert_true(c.printable);
	assert_int_equal(rt_utf8_next(S("\xcc\x81"), &c), 2);
	assert_int_equal(c.cols, 0);
	assert_true(c.printable);
	assert_int_equal(rt_utf8_next(S("\x1b[0m"), &c), 1);
	assert_int_equal(c.cols, 1);
	assert_false(c.printable);
	assert_int_equal(rt_utf8_next(S("\xff"), &c), 1);
	assert_int_equal(c.cp, RT_UTF8_INVALID);
	assert_int_equal(c.cols, 1);
	assert_false(c.printable);
}

static void test_width(void **state)
{
	(void)state;
	assert_int_equal(rt_utf8_width(S("")), 0);
	assert_int_equal(rt_utf8_width(S("plain")), 5);
	assert_int_equal(rt_utf8_width(S("日本")), 4);
	assert_int_equal(rt_utf8_width(S("e\xcc\x81")), 1);
	assert_int_equal(rt_utf8_width(S("cafe\xcc\x81 nai\xcc\x88ve")), 10);
	assert_int_equal(rt_utf8_width(S("😀🎉")), 4);
	assert_int_equal(rt_utf8_width(S("a\x1b" "b")), 3);
	assert_int_equal(rt_utf8_width(S("\xff\xfe")), 2);
	/* A truncated sequence: each of its bytes is one '?'. */
	assert_int_equal(rt_utf8_width(S("\xe6\x97")), 2);
	assert_int_equal(rt_utf8_width("\xe6\x97\xa5", 2), 2);
	assert_int_equal(rt_utf8_width(S("a\0b")), 3);
}

static void test_clip(void **state)
{
	unsigned int used = 99;

	(void)state;
	/* A wide character that does not fit whole is left out. */
	assert_int_equal(rt_utf8_clip(S("日本語"), 3, &used), 3);
	assert_int_equal(used, 2);
	assert_int_equal(rt_utf8_clip(S("日本語"), 4, &used), 6);
	assert_int_equal(used, 4);
	assert_int_equal(rt_utf8_clip(S("日本語"), 1, &used), 0);
	assert_int_equal(used, 0);
	assert_int_equal(rt_utf8_clip(S("日本語"), 100, &used), 9);
	assert_int_equal(used, 6);
	/* The accent stays with its letter. */
	assert_int_equal(rt_utf8_clip(S("cafe\xcc\x81!"), 4, &used), 6);
	assert_int_equal(used, 4);
	assert_int_equal(rt_utf8_clip(S("abc"), 0, &used), 0);
	/* Bytes that are not UTF-8 take one column each. */
	assert_int_equal(rt_utf8_clip(S("\xff\xfe\xfd"), 2, &used), 2);
	assert_int_equal(used, 2);
	assert_int_equal(rt_utf8_clip(S("a😀"), 2, NULL), 1);
}

static void test_lower(void **state)
{
	(void)state;
	assert_int_equal(rt_utf8_cp_lower('A'), 'a');
	assert_int_equal(rt_utf8_cp_lower('z'), 'z');
	assert_int_equal(rt_utf8_cp_lower('@'), '@');
	assert_int_equal(rt_utf8_cp_lower(0xc9), 0xe9);		/* É */
	assert_int_equal(rt_utf8_cp_lower(0x3a9), 0x3c9);	/* Ω */
	assert_int_equal(rt_utf8_cp_lower(0x65e5), 0x65e5);
	assert_int_equal(rt_utf8_cp_lower(RT_UTF8_INVALID), RT_UTF8_INVALID);
}

/* What glibc's wcwidth() says in C.UTF-8, but for the code points rt_utf8 refuses on purpose. */
static void test_agrees_with_wcwidth(void **state)
{
	locale_t loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0), old;
	unsigned int wide = 0, zero = 0;

	(void)state;
	if (!loc)
		skip();
	for (uint32_t cp = 0xa0; cp <= 0x10ffff; cp++) {
		int want, got = rt_utf8_cp_width(cp);

		if ((cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x202a && cp <= 0x202e) ||
		    (cp >= 0x2066 && cp <= 0x2069)) {
			assert_int_equal(got, -1);
			continue;
		}
		old = uselocale(loc);
		want = wcwidth((wchar_t)cp);
		uselocale(old);
		if (got != want)
			fail_msg("U+%04X: %d, wcwidth() in C.UTF-8 says %d", cp, got, want);
		wide += got == 2;
		zero += got == 0;
	}
	freelocale(loc);
	/* The table was really used: thousands of wide and combining characters. */
	assert_true(wide > 50000);
	assert_true(zero > 1000);
}

/* Neither the process locale nor this thread's is changed by asking. */
static void test_locale_untouched(void **state)
{
	(void)state;
	rt_utf8_width(S("日本 cafe\xcc\x81"));
	rt_utf8_cp_lower(0xc9);
	assert_string_equal(setlocale(LC_CTYPE, NULL), "C");
	assert_true(uselocale((locale_t)0) == LC_GLOBAL_LOCALE);
	assert_int_equal(MB_CUR_MAX, 1);
}

/* Random bytes: the width is the sum of the characters, and a clip ends on a character. */
static void test_random_bytes(void **state)
{
	unsigned int seed = 12;

	(void)state;
	for (int round = 0; round < 2000; round++) {
		unsigned char in[48];
		size_t n = (size_t)(rand_r(&seed) % (int)sizeof(in)), i, cut;
		unsigned int sum = 0, cols = (unsigned int)(rand_r(&seed) % 40), used;

		for (size_t k = 0; k < n; k++)
			in[k] = (unsigned char)(rand_r(&seed) % 3 ? rand_r(&seed) : 0xe6);
		for (i = 0; i < n;) {
			struct rt_utf8_char c;

			i += rt_utf8_next((const char *)in + i, n - i, &c);
			assert_true(c.len >= 1 && c.len <= 4);
			assert_true(c.cols <= 2);
			sum += c.cols;
		}
		assert_int_equal(i, n);
		assert_int_equal(rt_utf8_width((const char *)in, n), sum);
		cut = rt_utf8_clip((const char *)in, n, cols, &used);
		assert_true(used <= cols);
		assert_int_equal(rt_utf8_width((const char *)in, cut), used);
		for (i = 0; i < cut;) {
			struct rt_utf8_char c;

			i += rt_utf8_next((const char *)in + i, n - i, &c);
		}
		assert_int_equal(i, cut);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_valid),
		cmocka_unit_test(test_decode_invalid_and_truncated),
		cmocka_unit_test(test_cp_width),
		cmocka_unit_test(test_next),
		cmocka_unit_test(test_width),
		cmocka_unit_test(test_clip),
		cmocka_unit_test(test_lower),
		cmocka_unit_test(test_agrees_with_wcwidth),
		cmocka_unit_test(test_locale_untouched),
		cmocka_unit_test(test_random_bytes),
	};

	/* The point of the module: the answers above hold in the C locale. */
	if (!setlocale(LC_ALL, "C"))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
