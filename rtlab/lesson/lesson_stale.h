/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lesson_stale: phrases that were true once and went stale ("when it lands"
 * about a lab that has landed, a citation of a file the repository does not
 * have). The lesson lint, the slides lint and the test over the handouts
 * (labs/NAME/README.md) all reject them, each with the reason, so the same
 * mistake cannot come back in one kind of text while it is fixed in another.
 */
#ifndef RTLAB_LESSON_LESSON_STALE_H
#define RTLAB_LESSON_LESSON_STALE_H

#include <stddef.h>

struct lesson_problem;
struct rt_buf;

/* One stale phrase (matched without regard to case) and why it is stale. */
struct lesson_stale {
	const char *phrase;
	const char *why;
};

/* The table, ended by an entry whose phrase is NULL. */
extern const struct lesson_stale lesson_stale_phrases[];

/**
 * lesson_stale_scan - report every stale phrase in a text
 * @name: the file name the messages start with
 * @text, @len: the text (need not end in a NUL)
 * @probs, @n, @cap: the array the problems are appended to, as
 *                   lesson_problem_vpush() does: "name:line: stale phrase
 *                   'PHRASE': WHY", in line order
 *
 * Returns the number of problems added, or -ENOMEM.
 */
int lesson_stale_scan(const char *name, const char *text, size_t len,
		      struct lesson_problem **probs, size_t *n, size_t *cap);

/**
 * lesson_stale_file - lesson_stale_scan() over a file of any name (a handout)
 * @errors: each problem is appended as "path:line: ...\n"
 *
 * Returns the number of problems, or a negative errno when the file cannot
 * be read (a line saying so is appended) or memory runs out.
 */
int lesson_stale_file(const char *path, struct rt_buf *errors);

/**
 * lesson_stale_add - lesson_stale_scan() over the file @path, onto an array
 * @max: the most the file may hold (the caller has read it once already)
 *
 * The problems are appended to *@probs (*@n of them, allocated exactly) as
 * "@name:line: ...", and the whole array is then put in line order with
 * lesson_problems_sort(). Returns 0, or a negative errno when the file
 * cannot be read or memory runs out.
 */
int lesson_stale_add(const char *path, const char *name, size_t max,
		     struct lesson_problem **probs, size_t *n);

/* Order @n problems by line, keeping the order of those on one line. */
void lesson_problems_sort(struct lesson_problem *probs, size_t n);

#endif
