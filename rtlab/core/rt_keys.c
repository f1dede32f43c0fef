/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_keys: key tables and what is made from them (rt_keys.h). The JSON
 * Schema is built as a jansson object in a fixed member order, so that
 * `make schemas` gives the same bytes every time and a stale file under
 * doc/schema/ shows as a diff.
 */
#include "rt_keys.h"

#include <errno.h>
#include <string.h>

#include "rt_buf.h"

static bool in_version(const struct rt_key *k, unsigned int version)
{
	return !version || !k->since || k->since <= version;
}

const struct rt_key *rt_keys_find(const struct rt_keys *t, const char *key)
{
	for (const struct rt_key *k = t ? t->keys : NULL; k && k->key; k++)
		if (strcmp(k->key, key) == 0)
			return k;
	return NULL;
}

bool rt_keys_known(const struct rt_keys *t, const char *key, unsigned int version)
{
	const struct rt_key *k = rt_keys_find(t, key);

	return k && in_version(k, version);
}

unsigned int rt_keys_count(const struct rt_keys *t)
{
	unsigned int n = 0;

	for (const struct rt_key *k = t ? t->keys : NULL; k && k->key; k++)
		n++;
	return n;
}

/* ---- JSON Schema ------------------------------------------------------- */

static const struct {
	unsigned int bit;
	const char *schema;	/* JSON Schema's name */
	const char *doc;	/* the docs' name */
} type_names[] = {
	{ RT_T_STRING, "string", "string" },
	{ RT_T_INTEGER, "integer", "integer" },
	{ RT_T_NUMBER, "number", "number" },
	{ RT_T_BOOL, "boolean", "bool" },
	{ RT_T_OBJECT, "object", "object" },
	{ RT_T_ARRAY, "array", "array" },
	{ RT_T_NULL, "null", "null" },
};

/* @type without INTEGER when NUMBER is there (a number includes integers). */
static unsigned int plain_type(unsigned int type)
{
	return type & RT_T_NUMBER ? type & ~RT_T_INTEGER : type;
}

/* Set "type" in @o from @type: one name, or an array of names; nothing for 0. */
static int put_type(json_t *o, unsigned int type)
{
	json_t *names = json_array();
	int ret = 0;

	type = plain_type(type);
	for (size_t i = 0; names && i < sizeof(type_names) / sizeof(type_names[0]); i++)
		if (type & type_names[i].bit)
			ret |= json_array_append_new(names, json_string(type_names[i].schema));
	if (!names || ret)
		goto fail;
	if (json_array_size(names) == 0) {
		json_decref(names);
		return 0;
	}
	if (json_array_size(names) == 1)
		ret = json_object_set(o, "type", json_array_get(names, 0));
	else
		ret = json_object_set(o, "type", names);
	json_decref(names);
	return ret ? -ENOMEM : 0;
fail:
	json_decref(names);
	return -ENOMEM;
}

static json_t *words(const char *const *list, bool with_null)
{
	json_t *a = json_array();

	for (; a && *list; list++)
		if (json_array_append_new(a, json_string(*list)))
			goto fail;
	if (a && with_null && json_array_append_new(a, json_null()))
		goto fail;
	return a;
fail:
	json_decref(a);
	return NULL;
}

/* An integer when @v is one (a range of counts reads "0", not "0.0"). */
static json_t *number(double v)
{
	if (v == (double)(json_int_t)v && v > -9.1e18 && v < 9.1e18)
		return json_integer((json_int_t)v);
	return json_real(v);
}

static int put_new(json_t *o, const char *key, json_t *v)
{
	return v && json_object_set_new(o, key, v) == 0 ? 0 : -ENOMEM;
}

static json_t *object_schema(const struct rt_keys *t, unsigned int version, json_t *o);

static json_t *key_schema(const struct rt_key *k, unsigned int version)
{
	json_t *o = json_object();
	int ret;

	if (!o)
		return NULL;
	ret = put_type(o, k->type);
	if (!ret && k->meaning)
		ret = put_new(o, "description", json_string(k->meaning));
	/* An annotation, which validators ignore: the unit a number is in. */
	if (!ret && k->unit)
		ret = put_new(o, "x-unit", json_string(k->unit));
	if (!ret && k->values && !(k->type & RT_T_ARRAY))
		ret = put_new(o, "enum", words(k->values, k->type & RT_T_NULL));
	if (!ret && k->pattern)
		ret = put_new(o, "pattern", json_string(k->pattern));
	if (!ret && k->min < k->max) {
		ret = put_new(o, "minimum", number(k->min));
		if (!ret)
			ret = put_new(o, "maximum", number(k->max));
	}
	if (!ret && (k->type & RT_T_OBJECT) && k->of && !object_schema(k->of, version, o))
		ret = -ENOMEM;
	if (!ret && (k->type & RT_T_ARRAY) && (k->of || k->items)) {
		json_t *items = json_object();

		if (items && k->of)
			items = object_schema(k->of, version, items);
		else if (items && put_type(items, k->items))
			ret = -ENOMEM;
		/* An array of words: .values are its elements'. */
		if (!ret && items && k->values)
			ret = put_new(items, "enum", words(k->values, false));
		if (!ret)
			ret = put_new(o, "items", items);
	}
	if (ret) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/*
 * Fill @o (a new reference, consumed) with @t's "type", "properties",
 * "required" and what other keys may be; returns @o, or NULL.
 */
static json_t *object_schema(const struct rt_keys *t, unsigned int version, json_t *o)
{
	json_t *props = json_object(), *req = json_array();
	int ret = o && props && req ? 0 : -ENOMEM;

	if (!ret && !json_object_get(o, "type"))
		ret = put_new(o, "type", json_string("object"));
	for (const struct rt_key *k = t->keys; !ret && k->key; k++) {
		if (!in_version(k, version))
			continue;
		ret = put_new(props, k->key, key_schema(k, version));
		if (!ret && k->required)
			ret = json_array_append_new(req, json_string(k->key)) ? -ENOMEM : 0;
	}
	if (!ret && json_object_size(props))
		ret = json_object_set(o, "properties", props) ? -ENOMEM : 0;
	if (!ret && json_array_size(req))
		ret = json_object_set(o, "required", req) ? -ENOMEM : 0;
	if (!ret && t->others && t->others_pattern)
		ret = put_new(o, "propertyNames",
			      json_pack("{s:s}", "pattern", t->others_pattern));
	if (!ret)
		ret = put_new(o, "additionalProperties",
			      t->others ? key_schema(t->others, version) : json_false());
	json_decref(props);
	json_decref(req);
	if (ret) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *rt_keys_schema(const struct rt_keys *t, unsigned int version)
{
	json_t *o = object_schema(t, version, json_object());

	if (!o)
		errno = ENOMEM;
	return o;
}

json_t *rt_keys_document(const char *name, const char *title, const struct rt_keys *t,
			 unsigned int version)
{
	json_t *o = json_pack("{s:s, s:s, s:s}", "$schema",
			      "https://json-schema.org/draft/2020-12/schema", "$id", name,
			      "title", title);
	json_t *schema;

	o = o ? object_schema(t, version, o) : NULL;
	schema = o ? json_object_get(json_object_get(o, "properties"), "schema") : NULL;
	if (schema && json_object_set_new(schema, "const", json_string(name)) == 0)
		return o;
	json_decref(o);
	errno = ENOMEM;
	return NULL;
}

/* ---- Field tables for the docs ----------------------------------------- */

static int type_text(const struct rt_key *k, struct rt_buf *out)
{
	unsigned int type = plain_type(k->type);
	bool first = true;
	int ret = 0;

	if (!type)
		return rt_buf_puts(out, "any");
	for (size_t i = 0; !ret && i < sizeof(type_names) / sizeof(type_names[0]); i++) {
		if (!(type & type_names[i].bit))
			continue;
		ret = rt_buf_printf(out, "%s%s", first ? "" : " or ", type_names[i].doc);
		first = false;
	}
	if (!ret && k->unit)
		ret = rt_buf_printf(out, " (%s)", k->unit);
	return ret;
}

static int rows(const struct rt_keys *t, unsigned int version, const char *prefix,
		struct rt_buf *out)
{
	int ret = 0;

	for (const struct rt_key *k = t->keys; !ret && k->key; k++) {
		struct rt_buf path = RT_BUF_INIT;

		if (!in_version(k, version))
			continue;
		ret = rt_buf_printf(&path, "%s%s", prefix, k->key);
		if (!ret)
			ret = rt_buf_printf(out, "| `%s` | ", rt_buf_str(&path));
		if (!ret)
			ret = type_text(k, out);
		if (!ret)
			ret = rt_buf_printf(out, " | %s%s |\n", k->required ? "" : "optional; ",
					    k->meaning ? k->meaning : "");
		if (!ret && k->of) {
			ret = rt_buf_puts(&path, k->type & RT_T_ARRAY ? "[]." : ".");
			if (!ret)
				ret = rows(k->of, version, rt_buf_str(&path), out);
		}
		rt_buf_fini(&path);
	}
	return ret;
}

int rt_keys_markdown(const struct rt_keys *t, unsigned int version, struct rt_buf *out)
{
	int ret = rt_buf_puts(out, "| field | type | meaning |\n| --- | --- | --- |\n");

	return ret ? ret : rows(t, version, "", out);
}
