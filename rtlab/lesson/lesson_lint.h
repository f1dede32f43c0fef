/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lesson_lint: check a lesson file against lessons/FORMAT.md and report every
 * problem as "path:line: message", one per line, the way compilers do, so an
 * editor can jump to each one. Used by `rtlab lesson lint` and by the tests
 * that keep the shipped lessons well formed.
 */
#ifndef RTLAB_LESSON_LESSON_LINT_H
#define RTLAB_LESSON_LESSON_LINT_H

struct rt_buf;

/**
 * lesson_lint_file - check one lesson (or lessons/glossary.md)
 * @path: the file; its directory is where linked lessons and glossary.md
 *        are looked up
 * @errors: each problem is appended as "path:line: message\n", in line order
 *
 * Checks: the file name is NN-slug.md (or glossary.md), the first line is
 * "# Title" and no other level-1 heading exists, every quiz block is well
 * formed and quiz ids are unique, every rtlab: link resolves (labs through
 * lesson_labs_find(), so only once the program gave lesson_labs_set() its
 * list; lessons among the sibling NN-*.md files; glossary terms among the
 * "## " headings of glossary.md), other links are http(s), there are
 * no tables, raw HTML, images, setext headings or indented code blocks,
 * nothing is nested deeper than LESSON_MAX_NESTING levels, and no line holds
 * a stale phrase (lesson_stale_phrases[], reported with its reason).
 *
 * Returns the number of problems (0 = clean), or a negative errno when the
 * file cannot be read or is larger than a lesson may be, or memory runs out
 * (a line saying so is appended: "path: cannot read: <reason>" or "path: is
 * larger than N bytes ..."); `rtlab lesson lint` counts that as a problem.
 */
int lesson_lint_file(const char *path, struct rt_buf *errors);

#endif
