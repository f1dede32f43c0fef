/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lesson_quizzes: the lesson is parsed as the reader parses it, then its
 * quiz array is taken out of the document before the rest is freed.
 */
#include "lesson_quizzes.h"

#include <stdlib.h>
#include <string.h>

#include "lesson/lesson_doc.h"
#include "lesson/quiz.h"
#include "lesson_doc-int.h"

int lesson_quizzes_load(const char *path, struct lesson_quizzes *out, char **cause)
{
	struct lesson_doc *doc = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = lesson_doc_read(path, &doc, cause);
	if (ret)
		return ret;
	out->quizzes = doc->quizzes;
	out->count = doc->nquizzes;
	doc->quizzes = NULL;
	doc->nquizzes = 0;
	lesson_doc_free(doc);
	for (size_t i = 0; i < out->count; i++) {
		if (out->quizzes[i]->kind == QUIZ_PREDICT)
			out->predict++;
		else
			out->graded++;
	}
	return 0;
}

void lesson_quizzes_fini(struct lesson_quizzes *qs)
{
	for (size_t i = 0; i < qs->count; i++)
		quiz_free(qs->quizzes[i]);
	free(qs->quizzes);
	memset(qs, 0, sizeof(*qs));
}

const struct quiz *lesson_quizzes_find(const struct lesson_quizzes *qs, const char *id)
{
	for (size_t i = 0; qs && i < qs->count; i++)
		if (!strcmp(qs->quizzes[i]->id, id))
			return qs->quizzes[i];
	return NULL;
}
