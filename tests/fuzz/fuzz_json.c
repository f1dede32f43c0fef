/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_json: rt_json_write(), the one JSON writer, on whatever jansson
 * parses. In every style (members as inserted or sorted, arrays packed or
 * not, with a layout or without), the text must parse back to a document
 * equal to the input, and writing that again must give the same bytes: the
 * writer neither loses nor changes a value (reals read back to the same
 * double, strings with every escape and NUL, keys in any order) and is a
 * fixed point. Anything else is a bug, so it aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FLAGS	(JSON_DECODE_ANY | JSON_ALLOW_NUL)

static const char *const top_order[] = { "schema", "b", "a", NULL };
static const char *const item_order[] = { "z", "name", NULL };
static const struct rt_json_layout item_layout = { .order = item_order };
static const struct rt_json_layout list_layout = { .items = &item_layout };
static const struct rt_json_member members[] = {
	{ "list", &list_layout }, { "a", &item_layout }, { NULL, NULL },
};
static const struct rt_json_layout layout = {
	.order = top_order, .members = members, .items = &item_layout,
};
static const struct rt_json_style styles[] = {
	{ NULL, 0 },
	{ NULL, RT_JSON_SORT },
	{ NULL, RT_JSON_PACK },
	{ &layout, RT_JSON_SORT | RT_JSON_PACK },
	{ &layout, 0 },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *doc = json_loadb((const char *)data, size, FLAGS, NULL);

	if (!doc)
		return 0;
	for (size_t i = 0; i < sizeof(styles) / sizeof(styles[0]); i++) {
		char *text = rt_json_dumps(doc, &styles[i]), *again;
		json_t *back;

		if (!text)
			abort();	/* valid UTF-8, finite, no deeper than jansson reads */
		back = json_loads(text, FLAGS, NULL);
		if (!back || !json_equal(doc, back))
			abort();
		again = rt_json_dumps(back, &styles[i]);
		if (!again || strcmp(text, again) != 0)
			abort();
		free(again);
		free(text);
		json_decref(back);
	}
	json_decref(doc);
	return 0;
}
