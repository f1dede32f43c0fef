/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for rt_json, the one JSON writer: the exact text of reals
 * (15 to 17 digits, ".0", short exponents, -0.0, the extremes) and of
 * integers; NaN and infinities refused; escapes of every control character
 * and DEL; invalid UTF-8 refused in strings and keys, with the buffer left
 * as it was; member order (a layout first, then sorted or as inserted);
 * packed and one-per-line arrays; the depth limit; the atomic save; the C
 * locale whatever setlocale() said; and that the default style looks like
 * json_dumps(JSON_INDENT(2)), so the documents on stdout kept their look;
 * and the member getters' defaults for what is missing or of another type.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/rt_buf.h"
#include "core/rt_file.h"
#include "core/rt_json.h"

/* @v written with @style (the reference is taken); the text, which the caller frees. */
static char *text_of(json_t *v, const struct rt_json_style *style)
{
	char *s;

	assert_non_null(v);
	s = rt_json_dumps(v, style);
	json_decref(v);
	assert_non_null(s);
	return s;
}

static void expect(json_t *v, const struct rt_json_style *style, const char *want)
{
	char *s = text_of(v, style);

	assert_string_equal(s, want);
	free(s);
}

static void expect_real(double d, const char *want)
{
	char buf[RT_JSON_REAL_MAX];

	assert_int_equal(rt_json_format_real(d, buf), (int)strlen(want));
	assert_string_equal(buf, want);
	expect(json_real(d), NULL, want);
}

/* ---- Numbers ------------------------------------------------------------ */

static void test_reals(void **state)
{
	char buf[RT_JSON_REAL_MAX];

	(void)state;
	expect_real(0.1, "0.1");			/* 15 digits suffice */
	expect_real(0.30000000000000004, "0.30000000000000004");	/* 17 needed */
	expect_real(1.0, "1.0");			/* stays a real */
	expect_real(-0.0, "-0.0");
	expect_real(0.0, "0.0");
	expect_real(1e-7, "1e-7");			/* no "-07" */
	expect_real(1e20, "1e20");			/* no "+" */
	expect_real(1e100, "1e100");
	expect_real(123456789.125, "123456789.125");
	expect_real(-2.5e-300, "-2.5e-300");
	expect_real(DBL_MAX, "1.7976931348623157e308");
	expect_real(-DBL_MAX, "-1.7976931348623157e308");
	expect_real(DBL_MIN, "2.2250738585072014e-308");
	expect_real(5e-324, "4.94065645841247e-324");	/* the smallest denormal */
	expect_real(1.0 / 3.0, "0.3333333333333333");

	assert_int_equal(rt_json_format_real(NAN, buf), -EINVAL);
	assert_int_equal(rt_json_format_real(INFINITY, buf), -EINVAL);
	assert_int_equal(rt_json_format_real(-INFINITY, buf), -EINVAL);
	assert_string_equal(buf, "");
}

/* Any finite double, as bits, reads back to itself. */
static void test_reals_read_back(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	char buf[RT_JSON_REAL_MAX];

	(void)state;
	for (int i = 0; i < 200000; i++) {
		double d;
		int n;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(&d, &x, sizeof(d));
		n = rt_json_format_real(d, buf);
		if (!isfinite(d)) {
			assert_int_equal(n, -EINVAL);
			continue;
		}
		assert_true(n > 0 && n < (int)RT_JSON_REAL_MAX);
		assert_true(strtod(buf, NULL) == d);
		assert_true(strchr(buf, '.') || strchr(buf, 'e'));
		assert_null(strchr(buf, '+'));
	}
}

static void test_integers(void **state)
{
	(void)state;
	expect(json_integer(0), NULL, "0");
	expect(json_integer(-1), NULL, "-1");
	expect(json_integer(9007199254740993), NULL, "9007199254740993");
	expect(json_integer(INT64_MAX), NULL, "9223372036854775807");
	expect(json_integer(INT64_MIN), NULL, "-9223372036854775808");
}

/* ---- Strings ------------------------------------------------------------ */

static void test_escapes(void **state)
{
	char all[40], *s;
	size_t n = 0;

	(void)state;
	expect(json_string("quote\" back\\ slash/ tab\t nl\n cr\r bs\b ff\f del\x7f end"), NULL,
	       "\"quote\\\" back\\\\ slash/ tab\\t nl\\n cr\\u000d bs\\u0008 ff\\u000c "
	       "del\\u007f end\"");
	expect(json_string("caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80"), NULL,
	       "\"caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80\"");	/* UTF-8 as it is */
	expect(json_stringn("a\0b", 3), NULL, "\"a\\u0000b\"");

	/* Every control character but \t and \n as \u00XX. */
	for (int c = 1; c < 0x20; c++)
		all[n++] = (char)c;
	all[n] = '\0';
	s = text_of(json_string(all), NULL);
	assert_string_equal(s, "\"\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\u0008\\t\\n"
			    "\\u000b\\u000c\\u000d\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014"
			    "\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e"
			    "\\u001f\"");
	free(s);
}

/* jansson refuses these; its _nocheck functions let them in, and rt_json refuses them. */
static void test_invalid_utf8(void **state)
{
	static const char *const bad[] = {
		"\xff", "\xc0\x80", "\xc1\xbf", "\xe0\x80\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80",
		"\xf5\x80\x80\x80", "\xe2\x82", "a\x80", "\xc3\x28", NULL,
	};
	struct rt_buf b = RT_BUF_INIT;
	json_t *o;

	(void)state;
	assert_int_equal(rt_buf_puts(&b, "kept"), 0);
	for (const char *const *p = bad; *p; p++) {
		json_t *a = json_pack("[s, o]", "ok", json_string_nocheck(*p));

		assert_non_null(a);
		assert_int_equal(rt_json_write(&b, a, NULL), -EILSEQ);
		assert_string_equal(rt_buf_str(&b), "kept");	/* as it was */
		json_decref(a);
		a = json_pack("[o]", json_string_nocheck(*p));
		errno = 0;
		assert_null(rt_json_dumps(a, NULL));
		assert_int_equal(errno, EILSEQ);
		json_decref(a);
	}
	o = json_object();
	assert_int_equal(json_object_set_new_nocheck(o, "bad\xff", json_true()), 0);
	assert_int_equal(rt_json_write(&b, o, NULL), -EILSEQ);
	assert_string_equal(rt_buf_str(&b), "kept");
	json_decref(o);
	rt_buf_fini(&b);
}

/* ---- Layout ------------------------------------------------------------- */

static json_t *sample(void)
{
	return json_pack("{s:i, s:i, s:{s:b, s:n, s:s}, s:[{s:i, s:i}, {s:i}], s:[], s:{}}",
			 "b", 1, "a", 2, "inner", "z", 1, "y", "x", "w", "list", "q", 1, "p", 2,
			 "r", 3, "empty", "none");
}

static void test_order(void **state)
{
	static const char *const top[] = { "list", "inner", NULL };
	static const char *const item[] = { "q", NULL };
	static const char *const inner[] = { "x", NULL };
	static const struct rt_json_layout item_layout = { .order = item };
	static const struct rt_json_layout list_layout = { .items = &item_layout };
	static const struct rt_json_layout inner_layout = { .order = inner };
	static const struct rt_json_member members[] = {
		{ "list", &list_layout }, { "inner", &inner_layout }, { NULL, NULL },
	};
	static const struct rt_json_layout layout = { .order = top, .members = members };
	const struct rt_json_style as_is = { NULL, 0 }, sorted = { NULL, RT_JSON_SORT };
	const struct rt_json_style placed = { &layout, RT_JSON_SORT };

	(void)state;
	/* The object's own order. */
	expect(sample(), &as_is,
	       "{\n  \"b\": 1,\n  \"a\": 2,\n  \"inner\": {\n    \"z\": true,\n    \"y\": null,\n"
	       "    \"x\": \"w\"\n  },\n  \"list\": [\n    {\n      \"q\": 1,\n      \"p\": 2\n"
	       "    },\n    {\n      \"r\": 3\n    }\n  ],\n  \"empty\": [],\n  \"none\": {}\n}");
	/* Sorted at every level. */
	expect(sample(), &sorted,
	       "{\n  \"a\": 2,\n  \"b\": 1,\n  \"empty\": [],\n  \"inner\": {\n    \"x\": \"w\",\n"
	       "    \"y\": null,\n    \"z\": true\n  },\n  \"list\": [\n    {\n      \"p\": 2,\n"
	       "      \"q\": 1\n    },\n    {\n      \"r\": 3\n    }\n  ],\n  \"none\": {}\n}");
	/* The layout's members first, its items' too, the rest sorted. */
	expect(sample(), &placed,
	       "{\n  \"list\": [\n    {\n      \"q\": 1,\n      \"p\": 2\n    },\n    {\n"
	       "      \"r\": 3\n    }\n  ],\n  \"inner\": {\n    \"x\": \"w\",\n    \"y\": null,\n"
	       "    \"z\": true\n  },\n  \"a\": 2,\n  \"b\": 1,\n  \"empty\": [],\n"
	       "  \"none\": {}\n}");
	/* A layout key the object lacks is skipped; scalars stand alone. */
	expect(json_pack("{s:i}", "a", 1), &placed, "{\n  \"a\": 1\n}");
	expect(json_null(), &placed, "null");
	expect(json_string("x"), NULL, "\"x\"");
	/* Keys sort bytewise, and may hold a NUL. */
	{
		json_t *o = json_pack("{s:i, s:i, s:i, s:i}", "b", 1, "B", 2, "\xc3\xa9", 3, "a",
				      4);

		assert_int_equal(json_object_setn_new(o, "a\0z", 3, json_integer(5)), 0);
		expect(o, &sorted, "{\n  \"B\": 2,\n  \"a\": 4,\n  \"a\\u0000z\": 5,\n  \"b\": 1,\n"
		       "  \"\xc3\xa9\": 3\n}");
	}
}

static void test_pack(void **state)
{
	static const char head[] = "{\n  \"counts\": [\n    1000000, 1000001, 1000002, 1000003, "
				   "1000004, 1000005, 1000006, 1000007, 1000008, 1000009,\n"
				   "    1000010, ";
	const struct rt_json_style pack = { NULL, RT_JSON_PACK };
	json_t *a = json_array();
	char *s, *line;
	size_t lines = 0;

	(void)state;
	expect(json_pack("{s:[i, f, s, b, n]}", "a", 1, 0.5, "x", 1), &pack,
	       "{\n  \"a\": [1, 0.5, \"x\", true, null]\n}");
	expect(json_pack("[i, i]", 1, 2), NULL, "[\n  1,\n  2\n]");
	/* An array that holds a container is one element a line. */
	expect(json_pack("[i, []]", 1), &pack, "[\n  1,\n  []\n]");
	/* Too long for 80 columns: lines filled up to 100. */
	for (int i = 0; i < 100; i++)
		assert_int_equal(json_array_append_new(a, json_integer(1000000 + i)), 0);
	s = text_of(json_pack("{s:o}", "counts", a), &pack);
	assert_true(strncmp(s, head, strlen(head)) == 0);
	for (char *save = NULL, *p = s; (line = strtok_r(p, "\n", &save)); p = NULL, lines++)
		assert_true(strlen(line) <= 100);
	assert_int_equal(lines, 2 + 10 + 2);	/* ten numbers a line */
	free(s);
}

static void test_depth(void **state)
{
	json_t *top = json_array(), *cur = top;
	struct rt_buf b = RT_BUF_INIT;

	(void)state;
	for (unsigned int i = 1; i < RT_JSON_MAX_DEPTH; i++) {
		json_t *next = json_array();

		assert_int_equal(json_array_append_new(cur, next), 0);
		cur = next;
	}
	assert_int_equal(rt_json_write(&b, top, NULL), 0);	/* RT_JSON_MAX_DEPTH levels */
	rt_buf_reset(&b);
	assert_int_equal(json_array_append_new(cur, json_array()), 0);
	assert_int_equal(rt_json_write(&b, top, NULL), -ELOOP);
	assert_int_equal(b.len, 0);
	assert_int_equal(rt_json_write(&b, NULL, NULL), -EINVAL);
	json_decref(top);
	rt_buf_fini(&b);
}

/* ---- Files, locale, compatibility ---------------------------------------- */

static void test_save(void **state)
{
	char dir[] = "/tmp/rtlab-test-json-XXXXXX", path[64], bad_path[64], *text = NULL;
	char *cause = NULL;
	struct stat st;
	json_t *doc;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/doc.json", dir);
	snprintf(bad_path, sizeof(bad_path), "%s/bad.json", dir);
	doc = json_pack("{s:s, s:f}", "schema", "x/1", "v", 2.5);
	assert_int_equal(rt_json_save(path, doc, NULL, 0600, &cause), 0);
	assert_int_equal(rt_file_read(path, 4096, &text, NULL), 0);
	assert_string_equal(text, "{\n  \"schema\": \"x/1\",\n  \"v\": 2.5\n}\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	free(text);

	/* Nothing is written when the text cannot be made. */
	assert_int_equal(json_object_set_new(doc, "s", json_string_nocheck("\xff")), 0);
	assert_int_equal(rt_json_save(bad_path, doc, NULL, 0600, &cause), -EILSEQ);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "bad.json: not written: a string is not valid UTF-8"));
	assert_int_equal(access(bad_path, F_OK), -1);
	free(cause);
	json_decref(doc);
	unlink(path);
	rmdir(dir);
}

/*
 * A locale whose decimal point is a comma changes nothing. No such locale
 * may be installed: one is compiled with localedef into a temporary
 * LOCPATH, and the test is skipped when that cannot be done.
 */
static void test_locale(void **state)
{
	char dir[] = "/tmp/rtlab-test-json-loc-XXXXXX", cmd[256], buf[RT_JSON_REAL_MAX];
	char *s;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "localedef -i de_DE -f UTF-8 %s/de_DE.UTF-8 >/dev/null 2>&1",
		 dir);
	if (system(cmd) == 0) {
		setenv("LOCPATH", dir, 1);
		if (!setlocale(LC_NUMERIC, "de_DE.UTF-8"))
			setlocale(LC_NUMERIC, "de_DE.utf8");
	}
	snprintf(buf, sizeof(buf), "%.1f", 0.5);
	if (strcmp(buf, "0,5") != 0) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		assert_int_equal(system(cmd), 0);
		print_message("no locale with a decimal comma could be made\n");
		skip();
	}
	s = text_of(json_pack("[f, f]", 0.5, 1e-7), NULL);
	assert_string_equal(s, "[\n  0.5,\n  1e-7\n]");
	free(s);
	assert_int_equal(rt_json_format_real(1234.5678, buf), 9);
	assert_string_equal(buf, "1234.5678");
	setlocale(LC_NUMERIC, "C");
	unsetenv("LOCPATH");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * Without reals or the escapes jansson writes otherwise (\r \b \f, DEL),
 * the default style is byte for byte json_dumps(JSON_INDENT(2)): swapping
 * the doctor's and the CLI's json_dumps() for rt_json kept their look.
 */
static void test_like_jansson(void **state)
{
	json_t *doc = json_pack("{s:s, s:[i, s, b, n, {s:[]}], s:{s:{}, s:[[i], [s]]}, s:s}",
				"schema", "rtlab.doctor/1", "list", 1, "two", 0, "k", "o",
				"a", "b", 2, "q\"\n\t\x01\xc3\xa9", "last", "/");
	char *ours, *theirs;

	(void)state;
	assert_non_null(doc);
	ours = rt_json_dumps(doc, NULL);
	theirs = json_dumps(doc, JSON_INDENT(2));
	assert_non_null(ours);
	assert_non_null(theirs);
	assert_string_equal(ours, theirs);
	free(ours);
	free(theirs);
	json_decref(doc);
}

/* ---- Reading ------------------------------------------------------------ */

static void test_load(void **state)
{
	json_t *doc = NULL;
	char *cause = NULL;

	(void)state;
	assert_int_equal(rt_json_load("{\"a\": 1}", 8, "t.json", &doc, &cause), 0);
	assert_int_equal(json_integer_value(json_object_get(doc, "a")), 1);
	json_decref(doc);
	assert_int_equal(rt_json_load("{\"a\": 1,\n\"a\": 2}", 16, "t.json", &doc, &cause),
			 -EINVAL);
	assert_null(doc);
	assert_true(strncmp(cause, "t.json:2:", 9) == 0);
	free(cause);
}

/* The getters: each type's value, and the stated default for anything else. */
static void test_members(void **state)
{
	json_t *o = json_pack("{s:s, s:i, s:f, s:b, s:n, s:f}", "s", "text", "i", 42, "r", 2.5,
			      "t", 1, "null", "big", 2e15);
	json_t *c, *n;

	(void)state;
	assert_non_null(o);
	assert_string_equal(rt_json_str(o, "s"), "text");
	assert_null(rt_json_str(o, "i"));
	assert_null(rt_json_str(o, "absent"));
	assert_null(rt_json_str(NULL, "s"));
	assert_string_equal(rt_json_text(o, "s"), "text");
	assert_string_equal(rt_json_text(o, "null"), "");
	assert_true(rt_json_num(o, "i") == 42);
	assert_true(rt_json_num(o, "r") == 2.5);
	assert_true(rt_json_num(o, "s") == 0);
	assert_true(rt_json_num_or(o, "absent", -1) == -1);
	assert_true(rt_json_num_or(o, "i", -1) == 42);
	assert_true(isnan(rt_json_num_or(o, "s", NAN)));
	assert_true(rt_json_num_within(o, "big", 1e15) == 0);
	assert_true(rt_json_num_within(o, "r", 1e15) == 2.5);
	assert_true(rt_json_num_clamp(o, "big", 1e15) == 1e15);
	assert_true(rt_json_num_clamp(o, "absent", 1e15) == 0);
	assert_true(rt_json_true(o, "t"));
	assert_false(rt_json_true(o, "i"));
	c = rt_json_num_cell(o, "r");
	n = rt_json_num_cell(o, "s");
	assert_true(json_is_real(c) && json_real_value(c) == 2.5);
	assert_true(json_is_null(n));
	json_decref(c);
	json_decref(n);
	json_decref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reals),
		cmocka_unit_test(test_reals_read_back),
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_pack),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_save),
		cmocka_unit_test(test_locale),
		cmocka_unit_test(test_like_jansson),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_members),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
