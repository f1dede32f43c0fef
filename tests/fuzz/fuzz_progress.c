/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_progress: rt_progress_parse() on arbitrary bytes. Whatever it
 * accepts must answer every getter, take new entries through the setters,
 * and still parse after rt_progress_to_string(); anything else aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_progress.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int visit(const char *lesson, void *priv)
{
	const struct rt_progress *p = priv;
	json_t *quiz, *preds, *v;
	const char *qid;

	rt_progress_lesson_read(p, lesson);
	rt_progress_lesson_position(p, lesson);
	rt_progress_quiz_count(p, lesson, NULL);
	rt_progress_prediction_count(p, lesson);
	quiz = json_object_get(json_object_get(json_object_get(rt_progress_json(p), "lessons"),
					       lesson), "quiz");
	json_object_foreach(quiz, qid, v) {
		struct rt_progress_quiz q;

		if (rt_progress_quiz_get(p, lesson, qid, &q) || !q.answer)
			abort();
	}
	preds = json_object_get(json_object_get(json_object_get(rt_progress_json(p), "lessons"),
						lesson), "predictions");
	json_object_foreach(preds, qid, v) {
		struct rt_progress_prediction pr;

		if (rt_progress_prediction_get(p, lesson, qid, &pr) || !pr.unit)
			abort();
	}
	return 0;
}

static void reparse(const struct rt_progress *p)
{
	struct rt_progress *again = NULL;
	char *text = rt_progress_to_string(p);

	if (!text)
		abort();
	if (rt_progress_parse(text, strlen(text), "again", &again, NULL))
		abort();
	if (!json_equal(rt_progress_json(p), rt_progress_json(again)))
		abort();
	rt_progress_free(again);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rt_progress *p = NULL;
	struct rt_progress_lab lab;
	char *cause = NULL;

	if (rt_progress_parse((const char *)data, size, "fuzz", &p, &cause)) {
		if (!cause || p)
			abort();
		free(cause);
		return 0;
	}
	if (rt_progress_foreach_lesson(p, visit, p))
		abort();
	rt_progress_lab_get(p, "latency", &lab);
	reparse(p);

	/* Setters on top of whatever was there keep the document valid. */
	if (rt_progress_lesson_set_position(p, "03-latency", 12) ||
	    rt_progress_quiz_record(p, "03-latency", "q1", "b", 1) ||
	    rt_progress_prediction_set(p, "03-latency", "p1", 2.5, "us") ||
	    rt_progress_lab_set(p, "latency", "done", "/tmp/x.json") ||
	    rt_progress_reset_lesson(p, "01-intro"))
		abort();
	if (rt_progress_lesson_position(p, "03-latency") != 12)
		abort();
	reparse(p);
	rt_progress_free(p);
	return 0;
}
