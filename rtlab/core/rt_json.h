/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_json: the one way rtlab reads and writes JSON documents (results,
 * progress, the doctor's report, every --json on stdout).
 *
 * Reading is strict (duplicate keys rejected) with errors a person can act
 * on: "name:LINE:COL: what jansson said".
 *
 * Writing is ours rather than json_dumps(), so that every document has the
 * same bytes for the same content whatever the locale and the jansson
 * version: two-space indentation, members in the order a layout gives (then
 * sorted, or in the object's own order), reals as the shortest of 15, 16 or
 * 17 significant digits that reads back to the same double, and strings
 * that must be valid UTF-8 with control characters escaped. Output goes
 * into an rt_buf, a malloc'd string, or a file written atomically.
 */
#ifndef RTLAB_CORE_RT_JSON_H
#define RTLAB_CORE_RT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

struct rt_buf;

/* ---- Reading ----------------------------------------------------------- */

/**
 * rt_json_load - parse @len bytes of @text as one JSON document
 * @name: the file name for messages
 * @out: on success, the document (the caller owns the reference)
 * @cause: on failure, "name:line:col: message" (or "name: message" when
 *         jansson gives no position)
 *
 * Returns 0, -EINVAL for bad JSON, or -ENOMEM.
 */
int rt_json_load(const char *text, size_t len, const char *name, json_t **out, char **cause);

/* ---- Members ----------------------------------------------------------- */

/*
 * Typed reads of member @key of object @o, for the module that owns the
 * document @o belongs to (its keys are declared there, rt_keys.h): the one
 * set of getters, instead of a private fig(), num() or jstr() per file.
 * None fails: a missing member, one of another type, or an @o that is not
 * an object (NULL included) gives the stated default.
 */

/* A string, or NULL. */
const char *rt_json_str(const json_t *o, const char *key);
/* A string, or "" (for a table cell). */
const char *rt_json_text(const json_t *o, const char *key);
/* A number, or 0 (as json_number_value() reads what is not one). */
double rt_json_num(const json_t *o, const char *key);
/* A number, or @fallback. */
double rt_json_num_or(const json_t *o, const char *key, double fallback);
/* A number whose magnitude is at most @limit, else 0. */
double rt_json_num_within(const json_t *o, const char *key, double limit);
/* A number limited to [-@limit, @limit] (0 when it is not one). */
double rt_json_num_clamp(const json_t *o, const char *key, double limit);
/* true only for the member true. */
bool rt_json_true(const json_t *o, const char *key);
/* A copy of a number member, or a new null: a view's cell for a figure. NULL: ENOMEM. */
json_t *rt_json_num_cell(const json_t *o, const char *key);

/* ---- Writing ----------------------------------------------------------- */

/* Deeper documents are refused (-ELOOP); jansson's parser stops at the same depth. */
#define RT_JSON_MAX_DEPTH	2048u
/* Bytes rt_json_format_real() needs, its NUL included. */
#define RT_JSON_REAL_MAX	32u

/* Members that no layout places come sorted by key (bytewise), not in the object's order. */
#define RT_JSON_SORT	(1u << 0)
/*
 * An array of scalars is written on one line when it fits in 80 columns,
 * else filling lines up to 100 columns, instead of one element per line.
 */
#define RT_JSON_PACK	(1u << 1)

struct rt_json_member;
struct rt_keys;

/*
 * Where the members of an object go, for documents whose key order is part
 * of their schema. A layout applies to the value it is given to: @order to
 * it when it is an object, @items to each element when it is an array.
 */
struct rt_json_layout {
	const char *const *order;		/* written first, in this order; NULL-terminated */
	const struct rt_keys *keys;		/* or (after @order) a key table's order */
	const struct rt_json_member *members;	/* some members' layouts; a NULL key ends */
	const struct rt_json_layout *items;	/* layout of each element of an array */
};

struct rt_json_member {
	const char *key;
	const struct rt_json_layout *layout;
};

/* How a document is written. A NULL style is { NULL, 0 }: json_dumps()'s JSON_INDENT(2) look. */
struct rt_json_style {
	const struct rt_json_layout *layout;	/* of the top value, or NULL */
	unsigned int flags;			/* RT_JSON_SORT, RT_JSON_PACK */
};

/**
 * rt_json_write - append @v as indented JSON text to @out
 * @v: any JSON value (an object or array for a document)
 * @style: the layout and flags, or NULL
 *
 * No newline follows the value. On failure @out is as it was. Returns 0,
 * -EINVAL (a real that is not finite, or a NULL @v), -EILSEQ (a string or
 * key that is not valid UTF-8), -ELOOP (nested deeper than
 * RT_JSON_MAX_DEPTH) or -ENOMEM.
 */
int rt_json_write(struct rt_buf *out, const json_t *v, const struct rt_json_style *style);

/**
 * rt_json_dumps - @v as a string, like json_dumps() but written by rt_json_write()
 *
 * No final newline. Returns a string the caller frees, or NULL with errno
 * set as rt_json_write() returns it.
 */
char *rt_json_dumps(const json_t *v, const struct rt_json_style *style);

/**
 * rt_json_save - write document @doc to @path atomically
 * @mode: permissions of a new file, e.g. 0644
 * @cause: on failure, "PATH: ..." saying why
 *
 * The text of rt_json_write() and a final newline, through
 * rt_file_write_atomic(): readers see the old file or the new one. Returns
 * 0 or a negative errno (rt_json_write()'s, or the file's).
 */
int rt_json_save(const char *path, const json_t *doc, const struct rt_json_style *style,
		 mode_t mode, char **cause);

/**
 * rt_json_format_real - @v as rtlab writes a JSON real
 * @buf: RT_JSON_REAL_MAX bytes
 *
 * The shortest of 15, 16 or 17 significant digits that reads back as @v,
 * in the C locale, with ".0" added when neither a point nor an exponent
 * shows (so it reads back as a real), and the exponent without "+" or
 * leading zeros: "0.1", "1.0", "-0.0", "1e-7", "1.7976931348623157e308".
 * Returns the length, -EINVAL for a NaN or an infinity, or -ENOMEM.
 */
int rt_json_format_real(double v, char *buf);

#endif
