/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lesson_predict: one pass over the lesson index, loading each lesson's
 * quizzes (lesson_quizzes) and copying the predict questions about the lab
 * into an array that no longer needs the lessons.
 */
#include "lesson_predict.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_err.h"
#include "lesson/lesson_index.h"
#include "lesson/lesson_progress.h"
#include "lesson/lesson_quizzes.h"
#include "lesson/quiz.h"
#include "lesson_doc-int.h"

static void predict_q_fini(struct lesson_predict_q *p)
{
	free(p->id);
	free(p->scenario);
	free(p->metric);
	free(p->unit);
	free(p->prompt);
	free(p->when);
}

void lesson_predict_list_free(struct lesson_predict_q *q, size_t n)
{
	for (size_t i = 0; q && i < n; i++)
		predict_q_fini(&q[i]);
	free(q);
}

static int predict_q_fill(struct lesson_predict_q *p, unsigned int number, const struct quiz *q)
{
	memset(p, 0, sizeof(*p));
	lesson_progress_id(number, p->lesson);
	p->id = lesson_strdup(q->id);
	p->scenario = lesson_strdup(q->scenario);
	p->metric = lesson_strdup(q->metric);
	p->unit = lesson_strdup(q->unit);
	p->prompt = lesson_strdup(q->question);
	p->when = q->when ? lesson_strdup(q->when) : NULL;
	if (!p->id || !p->scenario || !p->metric || !p->unit || !p->prompt ||
	    (q->when && !p->when)) {
		predict_q_fini(p);
		return -ENOMEM;
	}
	return 0;
}

static int collect(const struct lesson_index *idx, const char *lab, struct lesson_predict_q **out,
		   size_t *n)
{
	size_t cap = 0;
	int ret = 0;

	for (size_t e = 0; e < idx->count && !ret; e++) {
		const struct lesson_entry *le = &idx->entries[e];
		struct lesson_quizzes qs;

		if (le->glossary || !le->number || le->problem)
			continue;
		ret = lesson_quizzes_load(le->path, &qs, NULL);
		if (ret) {
			/* A lesson that went away or broke since the index: skip it. */
			ret = ret == -ENOMEM ? ret : 0;
			continue;
		}
		for (size_t i = 0; i < qs.count && !ret; i++) {
			const struct quiz *q = qs.quizzes[i];

			if (q->kind != QUIZ_PREDICT || !q->lab || strcmp(q->lab, lab))
				continue;
			ret = lesson_grow(out, &cap, *n, sizeof(**out));
			if (!ret)
				ret = predict_q_fill(&(*out)[*n], le->number, q);
			if (!ret)
				(*n)++;
		}
		lesson_quizzes_fini(&qs);
	}
	return ret;
}

static int predict_from(struct lesson_index *idx, const char *lab, struct lesson_predict_q **out,
			size_t *n, char **cause)
{
	int ret;

	*out = NULL;
	*n = 0;
	if (!idx)
		return errno ? -errno : -EIO;
	if (!lab) {
		lesson_index_free(idx);
		return rt_err(cause, -EINVAL, "no lab named for the predict questions");
	}
	ret = collect(idx, lab, out, n);
	lesson_index_free(idx);
	if (ret) {
		lesson_predict_list_free(*out, *n);
		*out = NULL;
		*n = 0;
		return rt_err(cause, ret, "out of memory while listing the predict questions");
	}
	return 0;
}

int lesson_predict_list(const char *lab, struct lesson_predict_q **out, size_t *n, char **cause)
{
	return predict_from(lesson_index_load(cause), lab, out, n, cause);
}

int lesson_predict_scan(const char *dir, const char *lab, struct lesson_predict_q **out,
			size_t *n, char **cause)
{
	return predict_from(lesson_index_scan(dir, cause), lab, out, n, cause);
}
