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
#include <math.h>
#include <stdio.h>
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

const json_t *rt_result_saved_views(const struct rt_result *res)
{
	json_t *v = json_object_get(res->doc, "views");

	return json_array_size(v) ? v : NULL;
}

void rt_result_cell_text(const json_t *c, char *buf, size_t size)
{
	double d;

	if (json_is_string(c)) {
		snprintf(buf, size, "%s", json_string_value(c));
	} else if (json_is_integer(c)) {
		snprintf(buf, size, "%lld", (long long)json_integer_value(c));
	} else if (json_is_real(c)) {
		d = json_real_value(c);
		if (isfinite(d) && fabs(d) < 1e15 && d == floor(d))
			snprintf(buf, size, "%.0f", d);
		else
			snprintf(buf, size, "%.2f", d);
	} else if (json_is_boolean(c)) {
		snprintf(buf, size, "%s", json_is_true(c) ? "yes" : "no");
	} else {
		snprintf(buf, size, "-");
	}
}

json_t *rt_result_view_new(const char *name, const char *title)
{
	return json_pack("{s:s, s:s, s:[], s:[]}", "name", name, "title", title, "columns",
			 "rows");
}

int rt_result_view_add_column(json_t *view, const char *name, const char *title,
			      const char *unit)
{
	json_t *c = json_pack("{s:s}", "name", name);

	if (!c || (title && json_object_set_new(c, "title", json_string(title))) ||
	    (unit && json_object_set_new(c, "unit", json_string(unit))) ||
	    json_array_append_new(json_object_get(view, "columns"), c))
		return -ENOMEM;
	return 0;
}

int rt_result_view_add_row(json_t *view, json_t *row)
{
	json_t *rows = json_object_get(view, "rows");

	if (!row)
		return -ENOMEM;
	if (!json_is_array(rows)) {
		json_decref(row);
		return -EINVAL;
	}
	return json_array_append_new(rows, row) ? -ENOMEM : 0;
}
