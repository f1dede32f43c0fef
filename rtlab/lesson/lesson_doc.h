/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lesson_doc: a lesson as a document model, and its layout into wrapped,
 * styled lines.
 *
 * A lesson is a CommonMark file (lessons/FORMAT.md) parsed with libcmark.
 * lesson_doc_parse() keeps the tree and extracts what the front ends need
 * without walking it themselves: the title, a table of contents, the quiz
 * blocks (parsed with quiz_parse_block()), the links (rtlab:lab/...,
 * rtlab:lesson/NN, rtlab:glossary#term, http(s) URLs) and every problem a
 * lesson author should fix, each as "name:line: message".
 *
 * lesson_doc_layout() turns the document into lines no wider than a given
 * number of display columns. Each line is a list of spans with style bits,
 * so the ncurses pager only maps styles to attributes and `--plain` only
 * concatenates text; neither wraps anything itself. lesson_layout_search()
 * and its companions find text in those lines. This module never prints and
 * never touches a terminal.
 *
 * The code is in four files: lesson_doc.c (parsing), lesson_links.c (links),
 * lesson_layout.c (layout) and lesson_search.c (search), which share
 * lesson_doc-int.h. Columns are counted by rt_utf8, as the front ends count
 * them, whatever the locale. Characters rt_utf8 calls unprintable (controls,
 * bidi overrides, invalid UTF-8) are drawn as '?', so a lesson can never send
 * escape sequences to a tty.
 */
#ifndef RTLAB_LESSON_LESSON_DOC_H
#define RTLAB_LESSON_LESSON_DOC_H

#include <stdbool.h>
#include <stddef.h>

#include "lesson/quiz.h"

struct rt_buf;
struct cmark_node;

/* ---- Document model ---------------------------------------------------- */

struct lesson_heading {
	unsigned int level;	/* 1..6 */
	char *text;		/* owned; inline markup flattened to plain text */
	unsigned int line;	/* source line */
};

enum lesson_link_kind {
	LESSON_LINK_LAB,	/* rtlab:lab/<name>: target is the lab name */
	LESSON_LINK_LESSON,	/* rtlab:lesson/NN: target is "NN" */
	LESSON_LINK_GLOSSARY,	/* rtlab:glossary#term: target is the anchor */
	LESSON_LINK_URL,	/* http:// or https:// */
	LESSON_LINK_BAD,	/* anything else; always a problem */
};

struct lesson_link {
	enum lesson_link_kind kind;
	char *url;		/* owned; the destination as written */
	char *target;		/* owned; see enum lesson_link_kind */
	char *text;		/* owned; the link text, flattened */
	char *label;		/* owned; what the references list shows after "[n] " */
	unsigned int line;	/* source line of the paragraph holding it */
	unsigned int number;	/* reference number, 1-based; equal URLs share one */
	bool resolved;		/* the target exists (URLs always) */
	bool planned;		/* a lab that exists but is LAB_STATE_PLANNED */
};

struct lesson_problem {
	unsigned int line;
	char *msg;		/* owned; "name:line: message" */
};

struct lesson_doc {
	char *name;			/* owned; used in messages */
	char *title;			/* owned; the "# Title" text, or the name if absent */
	struct lesson_heading *toc;	/* owned; every heading, in order */
	size_t ntoc;
	struct quiz **quizzes;		/* owned; well-formed quiz blocks, in order */
	size_t nquizzes;
	struct lesson_link *links;	/* owned; every link occurrence, in order */
	size_t nlinks;
	unsigned int nrefs;		/* distinct reference numbers */
	struct lesson_problem *problems; /* owned; in source order per check */
	size_t nproblems;
	size_t words;			/* prose words, outside fenced blocks */
	unsigned int nsrc_lines;	/* lines in the source */
	struct cmark_node *root;	/* owned; private to lesson_doc.c */
};

/*
 * Containers (block quotes, lists and their items, paragraphs, emphasis,
 * links) nested deeper than this are shown as plain text, and the lesson
 * gets the problem "nesting deeper than N levels". No lesson needs more;
 * the bound keeps every walk over the tree shallow.
 */
#define LESSON_MAX_NESTING 32

/**
 * lesson_doc_parse - build the document model of one lesson
 * @text: the Markdown source (need not be NUL-terminated)
 * @len: its length in bytes
 * @name: file name used in messages and as fallback title
 * @out: on success, the document; free it with lesson_doc_free()
 * @cause: on failure, why (caller frees)
 *
 * Problems in the lesson (a broken quiz block, raw HTML, a table, an unknown
 * lab, nesting deeper than LESSON_MAX_NESTING) do not make parsing fail: they are collected in @out->problems and the
 * rest of the lesson is kept, so a reader can still show it. Links to lessons
 * and glossary terms stay unresolved until lesson_doc_resolve().
 * Returns 0 or -ENOMEM.
 */
int lesson_doc_parse(const char *text, size_t len, const char *name, struct lesson_doc **out,
		     char **cause);

/**
 * lesson_doc_load - read @path and parse it, then resolve its links against
 * the directory @path is in (see lesson_doc_resolve())
 * @out: on success, the document (name = @path); free with lesson_doc_free()
 * @cause: on failure, why (caller frees)
 *
 * Returns 0 or a negative errno from reading the file, or -ENOMEM.
 */
int lesson_doc_load(const char *path, struct lesson_doc **out, char **cause);

/**
 * lesson_doc_resolve - look up lesson and glossary links in @dir
 * @dir: the lessons directory: lessons are its NN-*.md files, glossary terms
 *       are the "## " headings of its glossary.md (compared as anchors:
 *       lower-cased, runs of other characters than letters and digits
 *       turned into one '-')
 *
 * Marks each such link resolved or not, sets its label (a lesson's title
 * comes from the first line of its file) and adds a problem for each link
 * that does not resolve; call it once per document (lesson_doc_load() does).
 * Returns 0 or -ENOMEM; an unreadable directory or glossary just leaves the
 * links unresolved.
 */
int lesson_doc_resolve(struct lesson_doc *doc, const char *dir);

/* Releases @doc and everything it owns. lesson_doc_free(NULL) does nothing. */
void lesson_doc_free(struct lesson_doc *doc);

/* Prose words outside fenced and HTML blocks (headings, paragraphs, lists, quotes). */
size_t lesson_doc_word_count(const struct lesson_doc *doc);

/**
 * lesson_doc_anchor_line - where the heading with anchor @anchor starts
 * @anchor: as in rtlab:glossary#<anchor>; compared the way
 *          lesson_doc_resolve() compares glossary terms
 *
 * Looks at every heading of @doc, in order. Returns the source line of the
 * first that matches, or 0 when none does.
 */
unsigned int lesson_doc_anchor_line(const struct lesson_doc *doc, const char *anchor);

/* ---- Layout ------------------------------------------------------------ */

enum lesson_style {
	LESSON_STYLE_BOLD = 1u << 0,
	LESSON_STYLE_EMPH = 1u << 1,
	LESSON_STYLE_CODE = 1u << 2,	/* inline code span */
	LESSON_STYLE_HEADING1 = 1u << 3,
	LESSON_STYLE_HEADING2 = 1u << 4,
	LESSON_STYLE_HEADING3 = 1u << 5,	/* level 3 and deeper */
	LESSON_STYLE_LINK = 1u << 6,
	LESSON_STYLE_QUOTE = 1u << 7,	/* inside a block quote, and the quote bar */
	LESSON_STYLE_CODEBLOCK = 1u << 8,	/* fenced code, its box and diagrams */
	LESSON_STYLE_DIM = 1u << 9,	/* markers, rules, cut marks, references */
};

/* What a span is for; the plain text rendering treats the roles differently. */
enum lesson_span_role {
	LESSON_SPAN_TEXT,	/* content */
	LESSON_SPAN_INDENT,	/* list indent, bullet or number */
	LESSON_SPAN_QUOTE_BAR,	/* "│ " of a block quote; "> " in plain text */
	LESSON_SPAN_FRAME,	/* the box around a code block; dropped in plain text */
};

struct lesson_span {
	char *text;		/* owned; printable UTF-8 */
	unsigned int cols;	/* display columns of text */
	unsigned int style;	/* LESSON_STYLE_* bits */
	unsigned int link;	/* reference number, 0 if not part of a link */
	enum lesson_span_role role;
};

enum lesson_line_kind {
	LESSON_LINE_TEXT,	/* paragraph, list item, quote, reference */
	LESSON_LINE_BLANK,	/* between blocks (may hold quote bars) */
	LESSON_LINE_HEADING,	/* heading text; see lesson_line.heading */
	LESSON_LINE_CODE,	/* one line of a code block inside its box */
	LESSON_LINE_FRAME,	/* top or bottom edge of a code box */
	LESSON_LINE_RULE,	/* thematic break */
	LESSON_LINE_QUIZ,	/* "Quiz: <question>" placeholder; see lesson_line.quiz */
};

struct lesson_line {
	struct lesson_span *spans;	/* owned */
	size_t nspans;
	unsigned int cols;		/* display columns, never above the layout width */
	unsigned int src_line;		/* source line of the block it came from */
	enum lesson_line_kind kind;
	unsigned int heading;		/* heading level for LESSON_LINE_HEADING, else 0 */
	int quiz;			/* index into doc->quizzes for a quiz line, else -1 */
};

struct lesson_layout {
	unsigned int width;
	struct lesson_line *lines;	/* owned */
	size_t nlines;
	const struct lesson_doc *doc;	/* borrowed; must outlive the layout */
};

#define LESSON_LAYOUT_MIN_WIDTH 12
#define LESSON_LAYOUT_MAX_WIDTH 1024

/**
 * lesson_doc_layout - wrap @doc to @width display columns
 * @width: LESSON_LAYOUT_MIN_WIDTH to LESSON_LAYOUT_MAX_WIDTH
 * @out: on success, the layout; free with lesson_layout_free(). It borrows
 *       @doc, which must stay alive as long as the layout.
 *
 * Paragraphs wrap at spaces; a word wider than the room is split between two
 * characters. Code blocks are boxed and never wrapped: a line too long for
 * the box is cut and ends in "…". Links read "text[n]" and a "References"
 * list closes the layout. Returns 0, -EINVAL (width too small) or -ENOMEM.
 */
int lesson_doc_layout(const struct lesson_doc *doc, unsigned int width,
		      struct lesson_layout **out);

/* Releases @lay. lesson_layout_free(NULL) does nothing. */
void lesson_layout_free(struct lesson_layout *lay);

/**
 * lesson_layout_find_source_line - the display line to show for @src_line
 *
 * Returns the index of the first line whose block starts at or after
 * @src_line (the last line if there is none, 0 for an empty layout). Since
 * every width keeps the blocks in source order, the same source line maps to
 * the start of the same block at any width: a pager keeps its place across
 * a resize by remembering lines[top].src_line.
 */
size_t lesson_layout_find_source_line(const struct lesson_layout *lay, unsigned int src_line);

/**
 * lesson_layout_search - find @needle, ignoring case, one line at a time
 * @from: first line to look at
 * @dir: 1 searches forward, -1 backward; both wrap around the ends
 * @line: the matching line
 * @col: the display column where the match starts in that line
 *
 * Every line is looked at once, starting with @from itself, so a pager
 * passes top + 1 (or top - 1) to find the next match. Returns 0, -ENOENT
 * if no line matches, -EINVAL for an empty needle.
 */
int lesson_layout_search(const struct lesson_layout *lay, const char *needle, size_t from,
			 int dir, size_t *line, unsigned int *col);

/**
 * lesson_layout_line_matches - where @needle is in line @i, for highlighting
 * @cols: gets up to @max pairs [start, end) of display columns (2 * @max entries)
 *
 * Matches as lesson_layout_search() does, left to right, not overlapping.
 * Returns how many pairs were written: 0 also for an empty needle, one that
 * is not UTF-8, a line out of range or no memory.
 */
size_t lesson_layout_line_matches(const struct lesson_layout *lay, size_t i, const char *needle,
				  unsigned int *cols, size_t max);

/* How many lines of @lay hold @needle (0 for an empty or invalid needle). */
size_t lesson_layout_match_count(const struct lesson_layout *lay, const char *needle);

/* Appends the text of line @i, spans concatenated, to @out. 0 or -ENOMEM. */
int lesson_layout_line_text(const struct lesson_layout *lay, size_t i, struct rt_buf *out);

/**
 * lesson_layout_to_text - plain text for --plain and pipes
 *
 * No styles: headings are underlined with '=' (level 1) or '-' (others),
 * code blocks lose their box and are indented instead, quote bars become
 * "> ", links stay "text[n]" with the references list at the end. No line
 * is wider than the layout width. Returns 0 or -ENOMEM.
 */
int lesson_layout_to_text(const struct lesson_layout *lay, struct rt_buf *out);

#endif
