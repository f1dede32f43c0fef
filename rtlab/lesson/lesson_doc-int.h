/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lesson_doc-int: what the four files of the document model share and no
 * one else may use. lesson_doc.c parses (blocks, headings, quizzes,
 * nesting), lesson_links.c classifies and resolves links, lesson_layout.c
 * wraps the tree into lines and lesson_search.c finds text in those lines;
 * the declarations of lesson_doc.h are their public face.
 */
#ifndef RTLAB_LESSON_LESSON_DOC_INT_H
#define RTLAB_LESSON_LESSON_DOC_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <cmark.h>

#include "lesson/lesson_doc.h"

struct rt_buf;

/* The most a lesson (or the glossary) may have. */
#define LESSON_MAX_BYTES (4u << 20)

/* The state of one lesson_doc_parse() call. */
struct parse_ctx {
	struct lesson_doc *doc;
	const char *text;
	size_t len;
	size_t *line_off;	/* owned; start offset of each source line */
	size_t cap_toc, cap_quiz, cap_links, cap_problems;
};

/*
 * lesson_doc_load() without lesson_doc_resolve(): for callers that want the
 * quizzes, not the links (a lesson's links are looked up in its whole
 * directory). Same errors as lesson_doc_load().
 */
int lesson_doc_read(const char *path, struct lesson_doc **out, char **cause);

/* Make room for element @n of the array *@arrp (capacity *@cap). 0 or -ENOMEM. */
int lesson_grow(void *arrp, size_t *cap, size_t n, size_t elsz);

/* strdup() that takes NULL as "". */
char *lesson_strdup(const char *s);

/*
 * Add "name:line: <fmt>" to @doc->problems (capacity *@cap); a message
 * already given for the same line is not repeated. 0 or -ENOMEM.
 */
int lesson_problem_add(struct lesson_doc *doc, size_t *cap, unsigned int line, const char *fmt,
		       ...) __attribute__((format(printf, 4, 5)));

/*
 * lesson_problem_add() on any array of problems: *@probs holds *@n of them
 * in room for *@cap; messages start with "@name:@line: ". Decks use it too.
 */
int lesson_problem_vpush(struct lesson_problem **probs, size_t *n, size_t *cap, const char *name,
			 unsigned int line, const char *fmt, va_list ap)
	__attribute__((format(printf, 6, 0)));

/* The base name of @path is NN-slug.md: two digits, '-', [a-z0-9-]+, ".md". */
bool lesson_file_name_ok(const char *path);

/* Plain text of the subtree under @node (markup dropped) appended to @b. 0 or -ENOMEM. */
int lesson_flatten(cmark_node *node, struct rt_buf *b);

/* Source line of the block @node is or is in (1 if none is known). */
unsigned int lesson_block_line(cmark_node *node);

/* Source line of an inline node: its own, or its block's. */
unsigned int lesson_inline_line(cmark_node *node);

/* The first word of a code block's info string ("quiz", "c"), in @buf. */
const char *lesson_info_word(cmark_node *node, char *buf, size_t size);

/*
 * Record the link or image @node in @pc->doc->links: its kind, target and
 * label, a problem when it cannot be right, and its reference number, also
 * set as the node's user data for the layout. 0 or -ENOMEM.
 */
int lesson_link_add(struct parse_ctx *pc, cmark_node *node);

#endif
