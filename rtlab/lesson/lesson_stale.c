/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lesson_stale: the table of stale phrases and the scan shared by the lesson
 * lint, the slides lint and the handouts' test. A plain case-insensitive
 * substring per phrase: the phrases are chosen so that none is ever right
 * ("planned" alone is, for a planned wake-up time, so only the ways the
 * texts said a lab was planned are listed).
 */
#include "lesson_stale.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/rt_buf.h"
#include "core/rt_file.h"
#include "lesson/lesson_doc.h"
#include "lesson_doc-int.h"

#define READY "every lab in `rtlab lab list` is ready: say what the lab shows"
#define HISTORY "the course's own history, which a learner never saw: say what is true " \
	"now and leave the change to the commit log"

const struct lesson_stale lesson_stale_phrases[] = {
	{ "when it lands", READY },
	{ "lab is planned", READY },
	{ "be planned", READY },
	{ "still planned", READY },
	{ "as planned", READY },
	{ "\"planned\"", READY },
	{ "papers.md", "there is no papers.md: cite doc/references.md and its section" },
	{ "(in ../checks)", "`rtlab lab start` copies the headers beside the starter: "
			    "name the file without a folder" },
	{ "correction the course made", HISTORY },
	{ "the model used to", HISTORY },
	{ "cp -r labs/", "an installed rtlab has no labs/ folder in the current directory: "
			 "`rtlab lab start LAB` copies the starter" },
	{ NULL, NULL },
};

/* Does @phrase occur in the @n bytes at @s, whatever the case? */
static bool has_phrase(const char *s, size_t n, const char *phrase)
{
	size_t k = strlen(phrase);

	for (size_t i = 0; i + k <= n; i++)
		if (!strncasecmp(s + i, phrase, k))
			return true;
	return false;
}

static int push(struct lesson_problem **probs, size_t *n, size_t *cap, const char *name,
		unsigned int line, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = lesson_problem_vpush(probs, n, cap, name, line, fmt, ap);
	va_end(ap);
	return ret;
}

int lesson_stale_scan(const char *name, const char *text, size_t len,
		      struct lesson_problem **probs, size_t *n, size_t *cap)
{
	unsigned int line = 1;
	int count = 0;

	for (size_t at = 0; at < len; line++) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - text) : len;

		for (const struct lesson_stale *s = lesson_stale_phrases; s->phrase; s++) {
			if (!has_phrase(text + at, end - at, s->phrase))
				continue;
			if (push(probs, n, cap, name, line, "stale phrase '%s': %s", s->phrase,
				 s->why))
				return -ENOMEM;
			count++;
		}
		at = end + 1;
	}
	return count;
}

int lesson_stale_file(const char *path, struct rt_buf *errors)
{
	struct lesson_problem *probs = NULL;
	size_t n = 0, cap = 0, len = 0;
	char *text = NULL;
	int ret;

	ret = rt_file_read(path, LESSON_MAX_BYTES, &text, &len);
	if (ret) {
		rt_buf_printf(errors, "%s: cannot read: %s\n", path, strerror(-ret));
		return ret;
	}
	ret = lesson_stale_scan(path, text, len, &probs, &n, &cap);
	for (size_t i = 0; i < n; i++) {
		if (ret >= 0 && rt_buf_printf(errors, "%s\n", probs[i].msg))
			ret = -ENOMEM;
		free(probs[i].msg);
	}
	free(probs);
	free(text);
	return ret;
}

int lesson_stale_add(const char *path, const char *name, size_t max,
		     struct lesson_problem **probs, size_t *n)
{
	size_t len = 0, cap = *n;
	char *text = NULL;
	int ret;

	ret = rt_file_read(path, max, &text, &len);
	if (!ret)
		ret = lesson_stale_scan(name, text, len, probs, n, &cap);
	free(text);
	lesson_problems_sort(*probs, *n);
	return ret < 0 ? ret : 0;
}

void lesson_problems_sort(struct lesson_problem *probs, size_t n)
{
	/* Insertion sort: stable, and a file has few problems. */
	for (size_t i = 1; i < n; i++) {
		struct lesson_problem p = probs[i];
		size_t k = i;

		for (; k && probs[k - 1].line > p.line; k--)
			probs[k] = probs[k - 1];
		probs[k] = p;
	}
}
