/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_progress: the learner's progress, "rtlab.progress/1", kept in
 * "<state dir>/progress.json" ($XDG_STATE_HOME/rtlab, default
 * ~/.local/state/rtlab): which lessons were read and where the reader
 * stopped, quiz answers and scores, predictions made before a lab, and the
 * labs run with their last result.
 *
 * The file is the learner's work, so it is treated with care:
 *   - every save is atomic (rt_json_save(), over rt_file_write_atomic()),
 *     so a reader never sees a torn file;
 *   - rt_progress_update() serialises writers with an flock on
 *     "<path>.lock" and reloads under the lock, so two rtlab processes never
 *     lose each other's updates;
 *   - a truncated or corrupt file is never overwritten: it is renamed to
 *     "<path>.corrupt-<UTC time>", a warning names the file and the line
 *     (or field) that is wrong, and an empty progress is used instead.
 * Fields this version does not know are kept as they are on save.
 *
 * The schema is documented in doc/results.md.
 */
#ifndef RTLAB_CORE_RT_PROGRESS_H
#define RTLAB_CORE_RT_PROGRESS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define RT_PROGRESS_SCHEMA	"rtlab.progress/1"
#define RT_PROGRESS_FILE	"progress.json"
#define RT_PROGRESS_MAX_FILE	(16u << 20)	/* larger files are treated as corrupt */
#define RT_PROGRESS_MAX_ID	128u		/* bytes in a lesson, question or lab id */
#define RT_PROGRESS_MAX_TEXT	4096u		/* bytes in an answer, unit, status, path */
#define RT_PROGRESS_MAX_DOCS	20u		/* documents remembered per lab */

struct rt_progress;

/* One quiz question as last answered. Strings are borrowed from the progress. */
struct rt_progress_quiz {
	const char *answer;	/* what the learner chose or typed */
	double score;		/* points for the last attempt */
	unsigned int attempts;	/* times answered */
	const char *time;	/* RFC 3339 UTC of the last attempt, or NULL */
};

/* A prediction made before measuring, e.g. "p99 under load: 250 us". */
struct rt_progress_prediction {
	double value;
	const char *unit;	/* borrowed; e.g. "us", may be "" */
	const char *time;	/* borrowed; RFC 3339 UTC, or NULL */
};

/* The last run of a lab. */
struct rt_progress_lab {
	const char *status;	/* borrowed; e.g. "started", "done", "passed", "failed" */
	const char *result;	/* borrowed; path of the last results document, or NULL */
	const char *time;	/* borrowed; RFC 3339 UTC, or NULL */
	/* borrowed; documents written to a place the learner named, oldest first */
	const char *documents[RT_PROGRESS_MAX_DOCS];
	size_t ndocuments;
};

/* ---- Files ------------------------------------------------------------- */

/**
 * rt_progress_default_path - "<state dir>/progress.json", creating the state dir
 *
 * Returns a string the caller frees, or NULL with errno set (ENOENT when
 * neither XDG_STATE_HOME nor HOME is set).
 */
char *rt_progress_default_path(void);

/**
 * rt_progress_new - an empty progress that rt_progress_save() writes to @path
 * @path: the file; NULL means rt_progress_default_path()
 *
 * Returns the progress or NULL with errno set. Release with rt_progress_free().
 */
struct rt_progress *rt_progress_new(const char *path);

/**
 * rt_progress_load - read the progress file
 * @path: the file; NULL means rt_progress_default_path()
 * @out: on success, the progress (empty if the file does not exist or was
 *       corrupt); the caller frees it with rt_progress_free()
 * @cause: on failure, why
 *
 * A file that is not valid rtlab.progress/1 (bad JSON, wrong schema, wrong
 * types, larger than RT_PROGRESS_MAX_FILE) is renamed aside, under the lock,
 * to "<path>.corrupt-<UTC time>" with an rt_log() warning, and an empty
 * progress is returned with 0. Returns a negative errno only when the file
 * cannot be read at all (permissions, I/O) or cannot be moved aside; then
 * nothing is changed, so the learner's file is never silently overwritten.
 */
int rt_progress_load(const char *path, struct rt_progress **out, char **cause);

/**
 * rt_progress_parse - parse and check progress text, without touching files
 * @name: how to call the text in messages
 * @out: on success, the progress (not bound to a file: rt_progress_save()
 *       refuses it); the caller frees it with rt_progress_free()
 * @cause: on failure "NAME:LINE:COL: message" or "NAME: FIELD: message"
 *
 * Returns 0, -EINVAL, -EFBIG or -ENOMEM.
 */
int rt_progress_parse(const char *text, size_t len, const char *name,
		      struct rt_progress **out, char **cause);

/**
 * rt_progress_save - write @p to the file it was loaded from, atomically
 *
 * Sets "updated" to now. Concurrent writers should use rt_progress_update()
 * instead: a plain save is last-writer-wins. Returns 0 or a negative errno.
 */
int rt_progress_save(struct rt_progress *p, char **cause);

/**
 * rt_progress_update - change the progress file safely against other writers
 * @path: the file; NULL means rt_progress_default_path()
 * @fn: applies the change; returns 0 to save, or a negative errno to leave
 *      the file untouched (that value is returned)
 * @priv: passed to @fn
 *
 * Takes an exclusive flock on "<path>.lock" (the lock file is left in place:
 * removing it would let two writers lock different files), reloads the file,
 * calls @fn, saves, and unlocks. Returns 0 or a negative errno.
 */
int rt_progress_update(const char *path, int (*fn)(struct rt_progress *p, void *priv),
		       void *priv, char **cause);

/**
 * rt_progress_to_string - @p as JSON text; the caller frees it
 *
 * What rt_progress_save() writes: rt_json_write() with members in the order
 * they were read or set, two-space indentation, a final newline. Returns
 * NULL with errno ENOMEM (or EILSEQ for a string that is not UTF-8, which
 * jansson only lets in through its _nocheck functions).
 */
char *rt_progress_to_string(const struct rt_progress *p);

/* The file @p saves to (borrowed), or NULL. */
const char *rt_progress_path(const struct rt_progress *p);

/* The whole document, borrowed; for readers that want fields we have no getter for. */
json_t *rt_progress_json(const struct rt_progress *p);

/* Free @p. NULL does nothing. */
void rt_progress_free(struct rt_progress *p);

/* ---- Lessons ----------------------------------------------------------- */

/*
 * Ids (lesson, question, lab) are 1..RT_PROGRESS_MAX_ID bytes of UTF-8
 * without control characters. Setters return 0, -EINVAL or -ENOMEM; the
 * getters of a lesson never seen return false / 0 / -ENOENT.
 */
int rt_progress_lesson_set_read(struct rt_progress *p, const char *lesson, bool read);
bool rt_progress_lesson_read(const struct rt_progress *p, const char *lesson);

/* Reading position: the first line shown by the lesson pager. */
int rt_progress_lesson_set_position(struct rt_progress *p, const char *lesson,
				    unsigned long line);
unsigned long rt_progress_lesson_position(const struct rt_progress *p, const char *lesson);

/* Forget everything about @lesson (read flag, position, quiz, predictions). */
int rt_progress_reset_lesson(struct rt_progress *p, const char *lesson);

/* Calls @fn for each lesson with progress, in name order; stops at and returns non-zero. */
int rt_progress_foreach_lesson(const struct rt_progress *p,
			       int (*fn)(const char *lesson, void *priv), void *priv);

/*
 * @fn on each question of @lesson with a recorded answer (quiz) or
 * prediction, or on each lab with a recorded state, in the order they were
 * first recorded; stops
 * at @fn's first non-zero return, which is returned (-ENOMEM on failure).
 * The typed getters below read each one.
 */
int rt_progress_foreach_quiz(const struct rt_progress *p, const char *lesson,
			     int (*fn)(const char *qid, void *priv), void *priv);
int rt_progress_foreach_prediction(const struct rt_progress *p, const char *lesson,
				   int (*fn)(const char *qid, void *priv), void *priv);
int rt_progress_foreach_lab(const struct rt_progress *p,
			    int (*fn)(const char *lab, void *priv), void *priv);

/* ---- Quizzes and predictions ------------------------------------------- */

/**
 * rt_progress_quiz_record - record an answer to question @qid of @lesson
 * @answer: the answer as text (at most RT_PROGRESS_MAX_TEXT bytes)
 * @score: the points it earned (finite)
 *
 * Replaces the previous answer and score, counts one more attempt and sets
 * the time.
 */
int rt_progress_quiz_record(struct rt_progress *p, const char *lesson, const char *qid,
			    const char *answer, double score);

/* 0 with @out filled (strings borrowed until @p changes), or -ENOENT. */
int rt_progress_quiz_get(const struct rt_progress *p, const char *lesson, const char *qid,
			 struct rt_progress_quiz *out);

/* Number of questions answered in @lesson and the sum of their scores (@total may be NULL). */
size_t rt_progress_quiz_count(const struct rt_progress *p, const char *lesson, double *total);

/* Record a prediction for @qid of @lesson (value finite, unit at most 32 bytes). */
int rt_progress_prediction_set(struct rt_progress *p, const char *lesson, const char *qid,
			       double value, const char *unit);
int rt_progress_prediction_get(const struct rt_progress *p, const char *lesson,
			       const char *qid, struct rt_progress_prediction *out);
size_t rt_progress_prediction_count(const struct rt_progress *p, const char *lesson);

/* ---- Labs -------------------------------------------------------------- */

/**
 * rt_progress_lab_set - record the state of @lab
 * @status: short word, 1..32 bytes of [a-z-], e.g. "done"
 * @result: path of the results document, or NULL to keep the previous one
 */
int rt_progress_lab_set(struct rt_progress *p, const char *lab, const char *status,
			const char *result);
int rt_progress_lab_get(const struct rt_progress *p, const char *lab,
			struct rt_progress_lab *out);

/**
 * rt_progress_lab_add_document - remember a results document of @lab
 * @path: where it was written (at most RT_PROGRESS_MAX_TEXT bytes)
 *
 * For documents written where the learner said (`--json FILE`), which no
 * folder scan finds: `rtlab grade LAB` looks at each of them. @path moves to
 * the end of the list if it is there already; the list keeps the last
 * RT_PROGRESS_MAX_DOCS. Returns 0, -ENOENT (no rt_progress_lab_set() of
 * @lab yet), -EINVAL or -ENOMEM.
 */
int rt_progress_lab_add_document(struct rt_progress *p, const char *lab, const char *path);

/*
 * The learner's written answer to question @qid of @lab's handout
 * (labs.<lab>.answers.<qid> = {text, time}). _set() records @text with the
 * time now, or forgets the answer when @text is empty; a lab not yet
 * recorded is marked "started". Returns 0, -EINVAL (bad id, text over
 * RT_PROGRESS_MAX_TEXT or not UTF-8) or -ENOMEM. _get() returns the text,
 * borrowed, or NULL when there is none (or it is empty).
 */
int rt_progress_lab_answer_set(struct rt_progress *p, const char *lab, const char *qid,
			       const char *text);
const char *rt_progress_lab_answer(const struct rt_progress *p, const char *lab,
				   const char *qid);

/*
 * rt_progress_merge - merge progress document @guest into @host
 * @host: an rtlab.progress/1 document, changed in place
 * @guest: another, valid rtlab.progress/1 (the classroom VM's)
 * @ops: result_path() gives where a lab result the guest names now is on the
 *       host side (NULL: drop it); note() takes over one line describing a
 *       change (its ids escaped for a terminal) and returns 0 or -ENOMEM
 *
 * The rules, each keeping both sides' entries:
 *   - a lesson, question, prediction, lab or unknown member only one side has is kept;
 *   - a lesson is read when either side read it; its position is the further one;
 *   - a question, prediction or lab both have: the entry with the later "time" wins
 *     whole (an entry with a time beats one without; on a tie the host's stays), and a
 *     question keeps the larger attempt count;
 *   - any other member both have keeps the host's value;
 *   - a lab taken from the guest names only a result result_path() maps, so a guest
 *     cannot make a host file the latest result `rtlab grade` reads.
 * Merging the same guest twice changes nothing the second time. Returns 0 or -ENOMEM.
 */
struct rt_progress_merge_ops {
	const char *(*result_path)(void *priv, const char *guest_path);
	int (*note)(void *priv, char *line);
	void *priv;
};
int rt_progress_merge(json_t *host, const json_t *guest, const struct rt_progress_merge_ops *ops);

/*
 * rt_progress_schema - the JSON Schema (2020-12) of rtlab.progress/1, made
 * from the keys the checks walk. Returns a new object, or NULL (ENOMEM).
 */
json_t *rt_progress_schema(void);

#endif
