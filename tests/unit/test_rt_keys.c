/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for rt_keys, the declared key tables: lookups and versions
 * (a key newer than the document's version is not known), the JSON Schema
 * made from a table (types, nullable words, required keys, closed and open
 * objects, arrays of objects and of words, ranges as integers), the whole
 * document's "$schema", "$id" and its "schema" const, and the docs' field
 * table; and that the writer orders an object by a table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_json.h"
#include "core/rt_keys.h"

static const char *const colours[] = { "red", "green", NULL };

static const struct rt_key item_keys[] = {
	RT_KEY("id", RT_T_STRING, NULL, "an id", true, .pattern = "^[a-z]+$"),
	RT_KEY_END,
};
static const struct rt_keys item_table = { .keys = item_keys };

static const struct rt_key any = RT_KEY(NULL, RT_T_NUMBER, "us", "a figure", false);

static const struct rt_key top_keys[] = {
	RT_KEY("schema", RT_T_STRING, NULL, "the name", true),
	RT_KEY("colour", RT_T_STRING | RT_T_NULL, NULL, "a colour or null", true,
	       .values = colours),
	RT_KEY("count", RT_T_INTEGER, "count", "how many", false, .min = 0, .max = 10),
	RT_KEY("items", RT_T_ARRAY, NULL, "the items", false, .of = &item_table),
	RT_KEY("tags", RT_T_ARRAY, NULL, "words", false, .items = RT_T_STRING,
	       .values = colours),
	RT_KEY("newer", RT_T_BOOL, NULL, "since version 2", false, .since = 2),
	RT_KEY_END,
};
static const struct rt_keys top = { .keys = top_keys };
static const struct rt_keys open_top = { .keys = top_keys, .others = &any,
					 .others_pattern = "^[a-z]+_us$" };

static json_t *path(json_t *o, const char *a, const char *b, const char *c)
{
	o = json_object_get(o, a);
	if (b)
		o = json_object_get(o, b);
	if (c)
		o = json_object_get(o, c);
	return o;
}

static void test_lookup(void **state)
{
	(void)state;
	assert_int_equal(rt_keys_count(&top), 6);
	assert_non_null(rt_keys_find(&top, "count"));
	assert_null(rt_keys_find(&top, "nope"));
	assert_true(rt_keys_known(&top, "newer", 2));
	assert_true(rt_keys_known(&top, "newer", 0));
	assert_false(rt_keys_known(&top, "newer", 1));
	assert_true(rt_keys_known(&top, "count", 1));
}

static void test_schema(void **state)
{
	json_t *s = rt_keys_schema(&top, 1), *v;

	(void)state;
	assert_non_null(s);
	assert_string_equal(json_string_value(json_object_get(s, "type")), "object");
	assert_true(json_is_false(json_object_get(s, "additionalProperties")));
	v = json_object_get(s, "required");
	assert_int_equal(json_array_size(v), 2);
	assert_string_equal(json_string_value(json_array_get(v, 1)), "colour");
	/* A word or null: both types, null among the words. */
	v = path(s, "properties", "colour", "type");
	assert_int_equal(json_array_size(v), 2);
	v = path(s, "properties", "colour", "enum");
	assert_int_equal(json_array_size(v), 3);
	assert_true(json_is_null(json_array_get(v, 2)));
	/* A range of counts stays integers; the unit is an annotation. */
	assert_true(json_is_integer(path(s, "properties", "count", "maximum")));
	assert_string_equal(json_string_value(path(s, "properties", "count", "x-unit")),
			    "count");
	/* An array of objects, an array of words. */
	v = path(s, "properties", "items", "items");
	assert_string_equal(json_string_value(path(v, "properties", "id", "pattern")),
			    "^[a-z]+$");
	assert_true(json_is_false(json_object_get(v, "additionalProperties")));
	v = path(s, "properties", "tags", "items");
	assert_int_equal(json_array_size(json_object_get(v, "enum")), 2);
	/* Version 1 has no "newer". */
	assert_null(path(s, "properties", "newer", NULL));
	json_decref(s);
	s = rt_keys_schema(&top, 2);
	assert_non_null(path(s, "properties", "newer", NULL));
	json_decref(s);
}

static void test_open(void **state)
{
	json_t *s = rt_keys_schema(&open_top, 0);

	(void)state;
	assert_non_null(s);
	assert_string_equal(json_string_value(path(s, "propertyNames", "pattern", NULL)),
			    "^[a-z]+_us$");
	assert_string_equal(json_string_value(path(s, "additionalProperties", "type", NULL)),
			    "number");
	json_decref(s);
}

static void test_document(void **state)
{
	json_t *d = rt_keys_document("test.doc/1", "a test", &top, 0);
	char *text;

	(void)state;
	assert_non_null(d);
	assert_string_equal(json_string_value(json_object_get(d, "$schema")),
			    "https://json-schema.org/draft/2020-12/schema");
	assert_string_equal(json_string_value(json_object_get(d, "$id")), "test.doc/1");
	assert_string_equal(json_string_value(path(d, "properties", "schema", "const")),
			    "test.doc/1");
	/* Member order is fixed, so a regenerated file diffs clean. */
	text = rt_json_dumps(d, NULL);
	assert_non_null(text);
	assert_true(strstr(text, "\"$schema\"") < strstr(text, "\"$id\""));
	assert_true(strstr(text, "\"$id\"") < strstr(text, "\"properties\""));
	free(text);
	json_decref(d);
}

static void test_markdown(void **state)
{
	struct rt_buf b = RT_BUF_INIT;

	(void)state;
	assert_int_equal(rt_keys_markdown(&top, 1, &b), 0);
	assert_non_null(strstr(rt_buf_str(&b), "| field | type | meaning |\n"));
	assert_non_null(strstr(rt_buf_str(&b),
				"| `colour` | string or null | a colour or null |\n"));
	assert_non_null(strstr(rt_buf_str(&b),
				"| `count` | integer (count) | optional; how many |\n"));
	assert_non_null(strstr(rt_buf_str(&b), "| `items[].id` | string | an id |\n"));
	assert_null(strstr(rt_buf_str(&b), "newer"));
	rt_buf_fini(&b);
}

static void test_writer_order(void **state)
{
	static const struct rt_json_layout layout = { .keys = &top };
	static const struct rt_json_style style = { .layout = &layout };
	json_t *o = json_pack("{s:i, s:s, s:s, s:i}", "zz", 1, "colour", "red", "schema", "x",
			      "count", 3);
	char *text = rt_json_dumps(o, &style);

	(void)state;
	assert_non_null(text);
	assert_true(strstr(text, "\"schema\"") < strstr(text, "\"colour\""));
	assert_true(strstr(text, "\"colour\"") < strstr(text, "\"count\""));
	assert_true(strstr(text, "\"count\"") < strstr(text, "\"zz\""));
	free(text);
	json_decref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_schema),
		cmocka_unit_test(test_open),
		cmocka_unit_test(test_document),
		cmocka_unit_test(test_markdown),
		cmocka_unit_test(test_writer_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
