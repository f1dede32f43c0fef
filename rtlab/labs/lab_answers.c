/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_answers: the learner's written answers to a handout's questions.
 *
 * They live in the progress file next to the lab's status, as
 * labs.<lab>.answers.<id> = { "text": ..., "time": ... }. The progress
 * schema keeps fields it does not know, so older readers leave them alone;
 * a run copies them into its results document, which is what the grade
 * reads, so grading stays a pure function of that document.
 */
#include "lab.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/rt_err.h"
#include "core/rt_progress.h"
#include "core/rt_result.h"

struct answer_change {
	const char *lab;
	const char *qid;
	const char *text;
};

static int answer_apply(struct rt_progress *p, void *priv)
{
	const struct answer_change *c = priv;

	return rt_progress_lab_answer_set(p, c->lab, c->qid, c->text);
}

int lab_answer_set(const char *path, const char *lab, const char *qid, const char *text,
		   char **cause)
{
	struct answer_change c = { .lab = lab, .qid = qid, .text = text };
	int ret;

	if (!lab_find(lab))
		return rt_err(cause, -EINVAL, "no lab called \"%s\"", lab);
	if (!*qid || strlen(qid) > RT_PROGRESS_MAX_ID)
		return rt_err(cause, -EINVAL, "a question id is 1..%u bytes", RT_PROGRESS_MAX_ID);
	if (strlen(text) > RT_PROGRESS_MAX_TEXT)
		return rt_err(cause, -EINVAL, "an answer is at most %u bytes (this one has %zu)",
			      RT_PROGRESS_MAX_TEXT, strlen(text));
	ret = rt_progress_update(path, answer_apply, &c, cause);
	if (ret)
		return rt_err(cause, ret, "could not save the answer: %s", strerror(-ret));
	return 0;
}

const char *lab_answer_text(const struct rt_progress *p, const char *lab, const char *qid)
{
	return rt_progress_lab_answer(p, lab, qid);
}

int lab_answer_get(const char *path, const char *lab, const char *qid, char **out,
		   char **cause)
{
	struct rt_progress *p = NULL;
	const char *text;
	int ret;

	*out = NULL;
	ret = rt_progress_load(path, &p, cause);
	if (ret)
		return ret;
	text = lab_answer_text(p, lab, qid);
	if (!text) {
		ret = -ENOENT;
	} else {
		*out = strdup(text);
		ret = *out ? 0 : rt_err(cause, -ENOMEM, "out of memory");
	}
	rt_progress_free(p);
	return ret;
}
