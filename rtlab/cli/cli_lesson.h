/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli_lesson: helpers that `rtlab lesson`, `rtlab quiz` and `rtlab progress`
 * share: finding a lesson from what the user typed, choosing the text width,
 * rendering a snippet of inline Markdown (a quiz question or option) as
 * wrapped plain text, and loading the progress without failing the command.
 * Private to rtlab/cli; the definitions are in cli_lesson.c.
 */
#ifndef RTLAB_CLI_CLI_LESSON_H
#define RTLAB_CLI_CLI_LESSON_H

#include <stdbool.h>
#include <stdio.h>

struct lesson_entry;
struct lesson_index;
struct rt_buf;
struct rt_progress;

/* Narrowest text `lesson show --width` and the quiz accept. */
#define CLI_LESSON_MIN_WIDTH 20

/**
 * cli_lesson_find - the entry named by @arg: "3", "03", the slug
 * ("kinds-of-latency"), the file name with or without ".md", or "glossary"
 *
 * Returns a borrowed entry of @idx, or NULL.
 */
const struct lesson_entry *cli_lesson_find(const struct lesson_index *idx, const char *arg);

/**
 * cli_lesson_open - load the lesson index and find @arg in it
 * @idx: on success, the index (caller frees with lesson_index_free())
 * @entry: on success, the entry, borrowed from *@idx
 *
 * Prints why on stderr when it fails. Returns CLI_EXIT_OK or CLI_EXIT_FAIL.
 */
int cli_lesson_open(const char *arg, struct lesson_index **idx,
		    const struct lesson_entry **entry);

/* The terminal width of @f when it is a tty, else 80; clamped to [CLI_LESSON_MIN_WIDTH, 1024]. */
unsigned int cli_lesson_width(FILE *f);

/**
 * cli_lesson_snippet - inline Markdown @md as text wrapped to @width columns
 * @first: prefix of the first line (e.g. "  a) ")
 * @rest: prefix of the other lines, as wide as @first (e.g. "     ")
 *
 * Appends the lines to @out, each ending in "\n". @width counts the prefix.
 * Returns 0, -EINVAL (width too small for the prefix) or -ENOMEM.
 */
int cli_lesson_snippet(const char *md, unsigned int width, const char *first, const char *rest,
		       struct rt_buf *out);

/**
 * cli_progress_open - the learner's progress, for reading
 *
 * A corrupt file has been moved aside with a warning by rt_progress_load().
 * When the file cannot be read at all, a warning says so and NULL is
 * returned: commands show "no progress" rather than fail. Free the result
 * with rt_progress_free().
 */
struct rt_progress *cli_progress_open(void);

#endif
