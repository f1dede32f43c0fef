/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_result_view: a results document read for people, for the renderers
 * (report/, the TUI, the CLI text): a document's sections as key/value
 * pairs, its views (rtlab.result/2's tables: title, columns, rows of
 * cells) and any value as text. The keys they read are the ones
 * rt_result_keys.c declares, so no renderer spells them.
 */
#include "rt_result.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rt_result-int.h"

static const char *const part_keys[] = {
	[RT_RESULT_SUMMARY] = "summary",
	[RT_RESULT_ENV] = "env",
	[RT_RESULT_PARAMS] = "params",
	[RT_RESULT_ANSWERS] = "answers",
};

int rt_result_foreach(const struct rt_result *res, enum rt_result_part part,
		      int (*fn)(const char *key, const json_t *value, void *priv), void *priv)
{
	const char *key;
	json_t *v;
	int ret;

	if ((unsigned int)part > RT_RESULT_ANSWERS)
		return -EINVAL;
	json_object_foreach(json_object_get(res->doc, part_keys[part]), key, v) {
		ret = fn(key, v, priv);
		if (ret)
			return ret;
	}
	return 0;
}

const char *rt_result_rtlab_version(const struct rt_result *res)
{
	return json_string_value(json_object_get(res->doc, "rtlab_version"));
}

char *rt_result_value_text(const json_t *v)
{
	if (json_is_string(v))
		return strdup(json_string_value(v));
	return json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(10));
}

const char *rt_result_value_str(const json_t *v)
{
	return json_string_value(v);
}

size_t rt_result_views_count(const json_t *views)
{
	return json_array_size(views);
}

const json_t *rt_result_views_at(const json_t *views, size_t i)
{
	return json_array_get(views, i);
}

const char *rt_result_view_title(const json_t *view)
{
	return json_string_value(json_object_get(view, "title"));
}

size_t rt_result_view_ncolumns(const json_t *view)
{
	return json_array_size(json_object_get(view, "columns"));
}

void rt_result_view_column(const json_t *view, size_t c, struct rt_result_column *out)
{
	const json_t *col = json_array_get(json_object_get(view, "columns"), c);

	out->name = json_string_value(json_object_get(col, "name"));
	out->title = json_string_value(json_object_get(col, "title"));
	out->unit = json_string_value(json_object_get(col, "unit"));
}

size_t rt_result_view_nrows(const json_t *view)
{
	return json_array_size(json_object_get(view, "rows"));
}

size_t rt_result_view_row_cells(const json_t *view, size_t r)
{
	return json_array_size(json_array_get(json_object_get(view, "rows"), r));
}

const json_t *rt_result_view_cell(const json_t *view, size_t r, size_t c)
{
	return json_array_get(json_array_get(json_object_get(view, "rows"), r), c);
}
