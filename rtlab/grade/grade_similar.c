/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_similar: prints of hand-ins and the groups that share one (see the
 * header).
 *
 * The code print reads C loosely: it needs no parse, only tokens. Spaces
 * and comments go; a string or character literal stays as it is (a copied
 * message is a copy); a name that is not a keyword becomes "$"; every
 * other token (numbers, operators, keywords) stays, one per line of the
 * stream that is hashed.
 */
#include "grade_similar.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

static const char *const keywords[] = {
	"auto", "break", "case", "char", "const", "continue", "default", "do", "double",
	"else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
	"register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
	"switch", "typedef", "union", "unsigned", "void", "volatile", "while", "_Bool",
	"bool", "true", "false", "NULL",
};

static bool is_keyword(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (strlen(keywords[i]) == n && !memcmp(keywords[i], s, n))
			return true;
	return false;
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The end of the token at @i (not a space or a comment). */
static size_t token_end(const char *t, size_t len, size_t i)
{
	if (name_char(t[i])) {
		while (i < len && name_char(t[i]))
			i++;
		return i;
	}
	if (t[i] == '"' || t[i] == '\'') {
		char q = t[i++];

		while (i < len && t[i] != q && t[i] != '\n')
			i += t[i] == '\\' && i + 1 < len ? 2 : 1;
		return i < len ? i + 1 : len;
	}
	return i + 1;	/* one punctuation character a token: "->" is "-" ">" */
}

void grade_code_print(const char *t, size_t len, char out[RT_SHA256_HEX])
{
	static const char hex[] = "0123456789abcdef";
	struct rt_sha256 s;
	unsigned char d[32];
	size_t i = 0;

	rt_sha256_init(&s);
	while (i < len) {
		size_t end;

		if (isspace((unsigned char)t[i])) {
			i++;
			continue;
		}
		if (t[i] == '/' && i + 1 < len && t[i + 1] == '/') {
			while (i < len && t[i] != '\n')
				i++;
			continue;
		}
		if (t[i] == '/' && i + 1 < len && t[i + 1] == '*') {
			const char *e = memmem(t + i + 2, len - i - 2, "*/", 2);

			i = e ? (size_t)(e - t) + 2 : len;
			continue;
		}
		if (t[i] == '#') {	/* a preprocessor line: its words, not names */
			end = i;
			while (end < len && t[end] != '\n')
				end++;
			rt_sha256_update(&s, t + i, end - i);
			rt_sha256_update(&s, "\n", 1);
			i = end;
			continue;
		}
		end = token_end(t, len, i);
		if ((isalpha((unsigned char)t[i]) || t[i] == '_') && !is_keyword(t + i, end - i))
			rt_sha256_update(&s, "$", 1);
		else
			rt_sha256_update(&s, t + i, end - i);
		rt_sha256_update(&s, "\n", 1);
		i = end;
	}
	rt_sha256_final(&s, d);
	for (int k = 0; k < 32; k++) {
		out[2 * k] = hex[d[k] >> 4];
		out[2 * k + 1] = hex[d[k] & 15];
	}
	out[64] = '\0';
}

/* Add the groups of @grades sharing the string @key (two or more students) to @hints. */
static int group_by(const json_t *grades, const char *key, const char *kind, json_t *hints)
{
	size_t n = json_array_size(grades);
	const bool code = !strcmp(key, "code_print");	/* the starter is nobody's copy */

	for (size_t i = 0; i < n; i++) {
		const json_t *g = json_array_get(grades, i);
		const char *v = json_string_value(json_object_get(g, key));
		const char *lab = json_string_value(json_object_get(g, "lab"));
		json_t *students = NULL, *h;
		bool seen = false;

		if (!v || !lab || (code && json_is_true(json_object_get(g, "code_is_starter"))))
			continue;
		for (size_t j = 0; j < i && !seen; j++) {
			const json_t *o = json_array_get(grades, j);

			seen = json_equal(json_object_get(o, key), json_object_get(g, key)) &&
			       json_equal(json_object_get(o, "lab"), json_object_get(g, "lab")) &&
			       !(code && json_is_true(json_object_get(o, "code_is_starter")));
		}
		for (size_t j = i; j < n && !seen; j++) {
			const json_t *o = json_array_get(grades, j);

			if (!json_equal(json_object_get(o, key), json_object_get(g, key)) ||
			    !json_equal(json_object_get(o, "lab"), json_object_get(g, "lab")) ||
			    !json_is_string(json_object_get(o, "student")) ||
			    (code && json_is_true(json_object_get(o, "code_is_starter"))))
				continue;
			if (!students && !(students = json_array()))
				return -1;
			if (json_array_append(students, json_object_get(o, "student")))
				return -1;
		}
		if (!students)
			continue;
		if (json_array_size(students) < 2) {
			json_decref(students);
			continue;
		}
		h = json_pack("{s:s, s:s, s:o}", "kind", kind, "lab", lab, "students", students);
		if (!h || json_array_append_new(hints, h))
			return -1;
	}
	return 0;
}

json_t *grade_similar_hints(const json_t *grades)
{
	json_t *hints = json_array();

	if (hints && (group_by(grades, "results_sha256", "results", hints) ||
		      group_by(grades, "code_print", "code", hints))) {
		json_decref(hints);
		return NULL;
	}
	return hints;
}
