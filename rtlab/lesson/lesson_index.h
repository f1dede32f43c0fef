/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lesson_index: the table of contents of the lessons folder.
 *
 * Lessons are Markdown files named NN-slug.md (NN is two digits) in
 * "<data dir>/lessons"; their title is the first level-1 ATX heading
 * ("# Title"), after an optional front-matter block fenced by "---" lines.
 * A glossary.md in the same folder is listed as a special entry after the
 * lessons. The index never gives up on one bad file: a lesson that cannot be
 * read or has no usable title is listed with a problem string that names the
 * file and line, so the menu and the CLI can show the author what to fix.
 */
#ifndef RTLAB_LESSON_LESSON_INDEX_H
#define RTLAB_LESSON_LESSON_INDEX_H

#include <stdbool.h>
#include <stddef.h>

/* Lesson files larger than this are reported as a problem, not read. */
#define LESSON_INDEX_MAX_FILE (4u << 20)

struct lesson_entry {
	unsigned int number;	/* NN from the file name; 0 for the glossary */
	char *slug;		/* owned; "intro" for 01-intro.md, "glossary" for glossary.md */
	char *title;		/* owned; valid UTF-8 without control characters, or NULL */
	char *path;		/* owned; the file, "<dir>/<name>" */
	char *problem;		/* owned; NULL when fine, else "NAME:LINE: what is wrong" */
	bool glossary;		/* the glossary entry, always last */
};

struct lesson_index {
	char *dir;			/* owned; the folder that was scanned */
	struct lesson_entry *entries;	/* owned; by number, then slug; glossary last */
	size_t count;
};

/**
 * lesson_index_scan - list the lessons in the folder @dir
 * @dir: a lessons folder, e.g. "/usr/local/share/rtlab/lessons"
 * @cause: on failure, why the folder could not be listed (caller frees)
 *
 * A folder that does not exist gives an empty index, not an error: that is
 * "no lessons installed". Files whose names do not have the NN-slug.md shape
 * (README.md, quiz files, editor backups) are ignored.
 *
 * Returns the index, which the caller releases with lesson_index_free(), or
 * NULL with errno set (and @cause) when the folder exists but cannot be read.
 */
struct lesson_index *lesson_index_scan(const char *dir, char **cause);

/**
 * lesson_index_load - list the installed lessons, "<data dir>/lessons"
 * @cause: on failure, the reason (caller frees)
 *
 * The data dir comes from rt_paths_data_dir(). Same result as
 * lesson_index_scan(); release it with lesson_index_free().
 */
struct lesson_index *lesson_index_load(char **cause);

/* Free @idx and everything in it; NULL is fine. */
void lesson_index_free(struct lesson_index *idx);

/**
 * lesson_index_find - the lesson numbered @number, or NULL
 *
 * The entry is borrowed from @idx. When two files share a number (which is
 * reported as a problem on the second), the first one in order is returned.
 */
const struct lesson_entry *lesson_index_find(const struct lesson_index *idx,
					     unsigned int number);

/**
 * lesson_index_title_of - read the title of one Markdown file already in memory
 * @name: the file name used in problem strings, e.g. "03-latency.md"
 * @text: the file contents, NUL-terminated (@len bytes before the NUL)
 * @title: on success, the title (caller frees)
 * @problem: on failure, "NAME:LINE: what is wrong" (caller frees)
 *
 * Exposed for the fuzz target and the tests. Returns 0, -EINVAL when the file
 * has no usable title, or -ENOMEM.
 */
int lesson_index_title_of(const char *name, const char *text, size_t len, char **title,
			  char **problem);

#endif
