/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_keys: a document's keys declared once, in a table (key, type, unit,
 * meaning, required), and what is made from such a table: the order the
 * writer puts them in (rt_json's layouts take a table), the validator's
 * list of known keys and, printed by `rtlab schema`, the JSON Schema
 * (draft 2020-12) published under doc/schema/ and the field tables of the
 * docs. The module that writes a document owns its tables; nobody else
 * spells its keys.
 *
 * A table describes structure: which keys, which JSON types, which words a
 * string may be, what each element of an array is. Rules that span
 * several keys ("vm_type is null when in_vm is false") stay in the
 * owner's validator; the schema says them in the meaning only.
 */
#ifndef RTLAB_CORE_RT_KEYS_H
#define RTLAB_CORE_RT_KEYS_H

#include <stdbool.h>

#include <jansson.h>

struct rt_buf;

/* JSON types a value may have, or'ed together; 0 means any value. */
#define RT_T_STRING	(1u << 0)
#define RT_T_INTEGER	(1u << 1)
#define RT_T_NUMBER	(1u << 2)	/* any number, integers included */
#define RT_T_BOOL	(1u << 3)
#define RT_T_NULL	(1u << 4)
#define RT_T_OBJECT	(1u << 5)
#define RT_T_ARRAY	(1u << 6)
#define RT_T_SCALAR	(RT_T_STRING | RT_T_NUMBER | RT_T_BOOL)

struct rt_keys;

struct rt_key {
	const char *key;		/* NULL ends a table */
	unsigned int type;		/* RT_T_*; 0: any JSON value */
	const char *unit;		/* a number's unit ("us", "count"), or NULL */
	const char *meaning;		/* one sentence for people, the docs' "meaning" */
	bool required;
	unsigned int since;		/* first version of the document with the key; 0: all */
	const char *const *values;	/* a string's (or an array's elements') words, NULL-terminated */
	const char *pattern;		/* a string's ECMA-262 regular expression, or NULL */
	const struct rt_keys *of;	/* an object's keys, or each element's of an array */
	unsigned int items;		/* an array's element types when not objects of @of */
	double min, max;		/* a number's range when min < max; else none */
};

/*
 * One entry: RT_KEY("p99_us", RT_T_NUMBER, "us", "the 99th percentile", true),
 * then any of .since, .values, .pattern, .of, .items, .min, .max.
 */
#define RT_KEY(k, t, u, m, req, ...)						\
	{ .key = (k), .type = (t), .unit = (u), .meaning = (m), .required = (req),	\
	  __VA_ARGS__ }
#define RT_KEY_END	{ .key = NULL }

/* An object: its keys, and what else it may hold. */
struct rt_keys {
	const struct rt_key *keys;	/* in the order they are written; a NULL key ends */
	/*
	 * Keys not in @keys: refused when @others is NULL (a misspelt key is an
	 * error), else each holds what @others says (its .key is unused) and,
	 * with @others_pattern, is named as that expression says.
	 */
	const struct rt_key *others;
	const char *others_pattern;
};

/* The entry for @key in @t, or NULL. */
const struct rt_key *rt_keys_find(const struct rt_keys *t, const char *key);

/*
 * Is @key one of @t's keys in version @version of the document (0: any)?
 * A key whose .since is newer is not.
 */
bool rt_keys_known(const struct rt_keys *t, const char *key, unsigned int version);

/* How many keys @t declares. */
unsigned int rt_keys_count(const struct rt_keys *t);

/**
 * rt_keys_schema - the JSON Schema (draft 2020-12) of an object described by @t
 * @version: the document's version whose keys are wanted (0: all)
 *
 * Returns a new object, or NULL with errno ENOMEM.
 */
json_t *rt_keys_schema(const struct rt_keys *t, unsigned int version);

/**
 * rt_keys_document - the whole JSON Schema of document @name
 * @name: the document's schema name, e.g. "rtlab.result/2"; its "schema"
 *        key must hold exactly that (@t must declare "schema")
 * @title: one line for people
 * @t: its top-level keys
 * @version: passed to rt_keys_schema()
 *
 * Returns a new object with "$schema", "$id", "title" first, or NULL
 * with errno ENOMEM.
 */
json_t *rt_keys_document(const char *name, const char *title, const struct rt_keys *t,
			 unsigned int version);

/**
 * rt_keys_markdown - @t as the docs' field table, "| field | type | meaning |"
 * @version: as for rt_keys_schema()
 * @out: appended to, the header first; a nested object's keys follow its
 *       line as "`key.sub`", an array's elements' as "`key[].sub`"
 *
 * Returns 0 or -ENOMEM.
 */
int rt_keys_markdown(const struct rt_keys *t, unsigned int version, struct rt_buf *out);

#endif
