/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lesson_lint: the document model already collects every problem while it
 * parses and resolves links, so the linter adds only what concerns the file
 * as a file (its name, its stale phrases) and puts the messages in line order.
 */
#include "lesson_lint.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "lesson/lesson_doc.h"
#include "lesson_doc-int.h"
#include "lesson_stale.h"

bool lesson_file_name_ok(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (n < 7 || !isdigit((unsigned char)base[0]) || !isdigit((unsigned char)base[1]) ||
	    base[2] != '-' || strcmp(base + n - 3, ".md"))
		return false;
	for (size_t i = 3; i < n - 3; i++)
		if (!(islower((unsigned char)base[i]) || isdigit((unsigned char)base[i]) ||
		      base[i] == '-'))
			return false;
	return true;
}

/* A lesson is NN-slug.md; the glossary is glossary.md. */
static bool valid_name(const char *path)
{
	const char *base = strrchr(path, '/');

	return !strcmp(base ? base + 1 : path, "glossary.md") || lesson_file_name_ok(path);
}

int lesson_lint_file(const char *path, struct rt_buf *errors)
{
	struct lesson_doc *doc = NULL;
	char *cause = NULL;
	int ret, count = 0;

	ret = lesson_doc_load(path, &doc, &cause);
	if (ret) {
		rt_buf_printf(errors, "%s\n", cause ? cause : path);
		goto out;
	}
	if (!valid_name(path)) {
		count++;
		ret = rt_buf_printf(errors, "%s:1: file name must be NN-slug.md "
				    "(two digits, lower-case slug)\n", path);
		if (ret)
			goto out;
	}
	ret = lesson_stale_add(path, doc->name, LESSON_MAX_BYTES, &doc->problems, &doc->nproblems);
	if (ret)
		goto out;
	for (size_t i = 0; i < doc->nproblems && !ret; i++) {
		ret = rt_buf_printf(errors, "%s\n", doc->problems[i].msg);
		count++;
	}
out:
	free(cause);
	lesson_doc_free(doc);
	return ret ? ret : count;
}
