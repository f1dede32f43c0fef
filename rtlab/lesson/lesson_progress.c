/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lesson_progress: every change the lesson front ends make to the learner's
 * progress goes through rt_progress_update(), which takes the file lock,
 * reloads the file and saves it atomically. So each function here is one
 * small closure: a struct with the arguments and a callback that applies
 * them to the freshly loaded progress.
 *
 * Reads (lesson_progress_position) load without the lock: a save is an
 * atomic rename, so a reader sees either the old or the new file, never a
 * torn one. A reader that fails for any reason answers "unknown" (0), since
 * a broken progress file must not keep the learner from a lesson.
 */
#include "lesson/lesson_progress.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_err.h"
#include "core/rt_progress.h"
#include "lesson/quiz.h"

/* ---- Ids --------------------------------------------------------------- */

void lesson_progress_id(unsigned int number, char buf[static 3])
{
	/* Only two digits fit; larger numbers cannot name a lesson (FORMAT.md: 01-99). */
	number %= 100;
	buf[0] = (char)('0' + number / 10);
	buf[1] = (char)('0' + number % 10);
	buf[2] = '\0';
}

/* ---- Reading position -------------------------------------------------- */

struct mark_args {
	const char *id;
	unsigned long line;
	bool read;
};

static int mark_apply(struct rt_progress *p, void *priv)
{
	const struct mark_args *a = priv;
	int ret;

	ret = rt_progress_lesson_set_position(p, a->id, a->line);
	if (!ret && a->read)
		ret = rt_progress_lesson_set_read(p, a->id, true);
	return ret;
}

int lesson_progress_mark(const char *path, const char *id, unsigned long line, bool read,
			 char **cause)
{
	struct mark_args a = { .id = id, .line = line, .read = read };
	int ret;

	if (!id || !*id)
		return rt_err(cause, -EINVAL, "no lesson id");
	ret = rt_progress_update(path, mark_apply, &a, cause);
	if (ret)
		return rt_err(cause, ret, "cannot record the reading position of lesson %s: %s",
			      id, strerror(-ret));
	return 0;
}

unsigned long lesson_progress_position(const char *path, const char *id)
{
	struct rt_progress *p = NULL;
	unsigned long line;
	char *cause = NULL;

	if (!id || !*id)
		return 0;
	if (rt_progress_load(path, &p, &cause)) {
		free(cause);
		return 0;
	}
	line = rt_progress_lesson_position(p, id);
	rt_progress_free(p);
	return line;
}

/* ---- Quiz answers ------------------------------------------------------ */

struct answer_args {
	const char *id;
	const struct quiz *q;
	const char *text;
	const struct quiz_verdict *v;
};

static int answer_apply(struct rt_progress *p, void *priv)
{
	const struct answer_args *a = priv;
	double score;
	int ret;

	if (a->q->kind == QUIZ_PREDICT) {
		ret = rt_progress_prediction_set(p, a->id, a->q->id, a->v->value,
						 a->q->unit ? a->q->unit : "");
		if (ret)
			return ret;
		score = 0;
	} else {
		/* quiz_check_answer() sets correct for multi only on the exact set. */
		score = a->v->correct ? 1 : 0;
	}
	return rt_progress_quiz_record(p, a->id, a->q->id, a->text, score);
}

int lesson_progress_answer(const char *path, const char *id, const struct quiz *q,
			   const char *text, const struct quiz_verdict *v, char **cause)
{
	struct answer_args a = { .id = id, .q = q, .text = text, .v = v };
	char num[64];
	int ret;

	if (!id || !*id || !q || !q->id || !v)
		return rt_err(cause, -EINVAL, "incomplete quiz answer");
	if (!text) {
		/* Nothing typed to keep: record the number we judged, or nothing. */
		if (q->kind == QUIZ_NUMERIC || q->kind == QUIZ_PREDICT)
			snprintf(num, sizeof(num), "%.17g", v->value);
		else
			num[0] = '\0';
		a.text = num;
	}
	if (strlen(a.text) > RT_PROGRESS_MAX_TEXT)
		return rt_err(cause, -EINVAL, "the answer to %s is longer than %u bytes", q->id,
			      RT_PROGRESS_MAX_TEXT);
	ret = rt_progress_update(path, answer_apply, &a, cause);
	if (ret)
		return rt_err(cause, ret, "cannot record the answer to %s of lesson %s: %s",
			      q->id, id, strerror(-ret));
	return 0;
}

/* ---- Reset ------------------------------------------------------------- */

static int reset_apply(struct rt_progress *p, void *priv)
{
	return rt_progress_reset_lesson(p, priv);
}

int lesson_progress_reset(const char *path, const char *id, char **cause)
{
	int ret;

	if (!id || !*id)
		return rt_err(cause, -EINVAL, "no lesson id");
	ret = rt_progress_update(path, reset_apply, (void *)id, cause);
	if (ret)
		return rt_err(cause, ret, "cannot reset lesson %s: %s", id, strerror(-ret));
	return 0;
}
