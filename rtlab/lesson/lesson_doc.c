/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lesson_doc: the model is the cmark tree plus side tables. Parsing walks
 * the tree once, fills the tables (headings, quizzes, links, problems) and
 * tags nodes through cmark's user data: a quiz code block carries its index
 * in doc->quizzes plus one (0 = malformed), a link its reference number. The
 * layout (lesson_layout.c) then walks the same tree with those tags; links
 * are classified and resolved in lesson_links.c.
 *
 * cmark sets no limit on nesting, so parsing first turns anything nested
 * deeper than LESSON_MAX_NESTING into plain text (prune_deep()); every walk
 * after that, recursive or not, stays shallow.
 */
#include "lesson_doc.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmark.h>

#include "core/rt_buf.h"
#include "core/rt_err.h"
#include "core/rt_file.h"
#include "lesson_doc-int.h"

/* ---- Small helpers ----------------------------------------------------- */

int lesson_grow(void *arrp, size_t *cap, size_t n, size_t elsz)
{
	void **arr = arrp;
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 8;
	p = realloc(*arr, ncap * elsz);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

char *lesson_strdup(const char *s)
{
	return strdup(s ? s : "");
}

/* ---- Document model ---------------------------------------------------- */

int lesson_problem_vpush(struct lesson_problem **probs, size_t *n, size_t *cap, const char *name,
			 unsigned int line, const char *fmt, va_list ap)
{
	struct rt_buf b = RT_BUF_INIT;
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* One report per line is enough ("<b>x</b>" is two HTML nodes). */
	if (*n && (*probs)[*n - 1].line == line && strstr((*probs)[*n - 1].msg, msg))
		return 0;
	if (lesson_grow(probs, cap, *n, sizeof(**probs)) ||
	    rt_buf_printf(&b, "%s:%u: %s", name, line, msg)) {
		rt_buf_fini(&b);
		return -ENOMEM;
	}
	(*probs)[*n].line = line;
	(*probs)[*n].msg = rt_buf_take(&b);
	if (!(*probs)[*n].msg)
		return -ENOMEM;
	(*n)++;
	return 0;
}

int lesson_problem_add(struct lesson_doc *doc, size_t *cap, unsigned int line, const char *fmt,
		       ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = lesson_problem_vpush(&doc->problems, &doc->nproblems, cap, doc->name, line, fmt, ap);
	va_end(ap);
	return ret;
}

/* A quiz problem already reads "name:line: message". */
static int add_problem_msg(struct parse_ctx *pc, unsigned int line, char *msg)
{
	struct lesson_doc *doc = pc->doc;

	if (lesson_grow(&doc->problems, &pc->cap_problems, doc->nproblems,
			sizeof(*doc->problems))) {
		free(msg);
		return -ENOMEM;
	}
	doc->problems[doc->nproblems].line = line;
	doc->problems[doc->nproblems].msg = msg;
	doc->nproblems++;
	return 0;
}

/*
 * Plain text of a subtree: markup dropped, breaks and the ends of blocks as
 * spaces. Walked with cmark's iterator, not recursion, since this is also
 * what a subtree nested too deep is turned into (see prune_deep()).
 */
int lesson_flatten(cmark_node *node, struct rt_buf *b)
{
	cmark_iter *it = cmark_iter_new(node);
	cmark_event_type ev;
	int ret = 0;

	if (!it)
		return -ENOMEM;
	while (!ret && (ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *c = cmark_iter_get_node(it);
		cmark_node_type type = cmark_node_get_type(c);

		if (c == node)
			continue;
		if (ev == CMARK_EVENT_EXIT) {
			/* A paragraph, heading or item inside ends: keep the words apart. */
			if (type < CMARK_NODE_FIRST_INLINE && b->len && rt_buf_str(b)[b->len - 1] != ' ')
				ret = rt_buf_puts(b, " ");
			continue;
		}
		switch (type) {
		case CMARK_NODE_TEXT:
		case CMARK_NODE_CODE:
		case CMARK_NODE_HTML_INLINE:
			ret = rt_buf_puts(b, cmark_node_get_literal(c));
			break;
		case CMARK_NODE_CODE_BLOCK:
		case CMARK_NODE_HTML_BLOCK:
			ret = rt_buf_puts(b, cmark_node_get_literal(c));
			if (!ret)
				ret = rt_buf_puts(b, " ");
			break;
		case CMARK_NODE_SOFTBREAK:
		case CMARK_NODE_LINEBREAK:
			ret = rt_buf_puts(b, " ");
			break;
		default:
			break;
		}
	}
	cmark_iter_free(it);
	return ret;
}

static size_t count_words(const char *s)
{
	size_t n = 0;
	bool in = false, wordy = false;

	for (;; s++) {
		unsigned char c = (unsigned char)*s;

		if (!c || isspace(c)) {
			if (in && wordy)
				n++;
			in = wordy = false;
			if (!c)
				break;
			continue;
		}
		in = true;
		if (isalnum(c) || c >= 0x80)
			wordy = true;
	}
	return n;
}

/* The source line (1-based) [start, end) without its line end. */
static void src_line(const struct parse_ctx *pc, unsigned int line, const char **s, size_t *n)
{
	size_t a, b;

	if (!line || line > pc->doc->nsrc_lines) {
		*s = "";
		*n = 0;
		return;
	}
	a = pc->line_off[line - 1];
	b = line < pc->doc->nsrc_lines ? pc->line_off[line] : pc->len;
	while (b > a && (pc->text[b - 1] == '\n' || pc->text[b - 1] == '\r'))
		b--;
	*s = pc->text + a;
	*n = b - a;
}

/* A table delimiter row: only '|', '-', ':' and spaces, with a '|' and a '-'. */
static bool is_table_row(const char *s, size_t n)
{
	bool bar = false, dash = false;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '|')
			bar = true;
		else if (s[i] == '-')
			dash = true;
		else if (s[i] != ':' && s[i] != ' ' && s[i] != '\t')
			return false;
	}
	return bar && dash;
}

unsigned int lesson_block_line(cmark_node *node)
{
	while (node && cmark_node_get_start_line(node) <= 0)
		node = cmark_node_parent(node);
	return node ? (unsigned int)cmark_node_get_start_line(node) : 1;
}

/* Links and inline HTML know their line; other inlines may not: use the block's. */
unsigned int lesson_inline_line(cmark_node *node)
{
	if (cmark_node_get_start_line(node) > 0)
		return (unsigned int)cmark_node_get_start_line(node);
	while (node && cmark_node_get_type(node) >= CMARK_NODE_FIRST_INLINE)
		node = cmark_node_parent(node);
	return lesson_block_line(node);
}

static int add_heading(struct parse_ctx *pc, cmark_node *node, unsigned int line)
{
	struct lesson_doc *doc = pc->doc;
	unsigned int level = (unsigned int)cmark_node_get_heading_level(node);
	struct rt_buf b = RT_BUF_INIT;
	const char *s;
	size_t n;
	int ret;

	ret = lesson_grow(&doc->toc, &pc->cap_toc, doc->ntoc, sizeof(*doc->toc));
	if (!ret)
		ret = lesson_flatten(node, &b);
	if (ret) {
		rt_buf_fini(&b);
		return -ENOMEM;
	}
	doc->toc[doc->ntoc].level = level;
	doc->toc[doc->ntoc].line = line;
	doc->toc[doc->ntoc].text = rt_buf_take(&b);
	if (!doc->toc[doc->ntoc].text)
		return -ENOMEM;
	doc->ntoc++;
	doc->words += count_words(doc->toc[doc->ntoc - 1].text);

	src_line(pc, line, &s, &n);
	while (n && *s == ' ') {
		s++;
		n--;
	}
	if (!n || *s != '#')
		return lesson_problem_add(doc, &pc->cap_problems, line,
					  "setext heading: write it as '%.*s text'", (int)level,
					  "######");
	if (level == 1 && line == 1 && !doc->title) {
		doc->title = strdup(doc->toc[doc->ntoc - 1].text);
		if (!doc->title)
			return -ENOMEM;
	} else if (level == 1) {
		return lesson_problem_add(doc, &pc->cap_problems, line, "only the title on the "
					  "first line may be a level-1 heading");
	}
	return 0;
}

static int add_quiz(struct parse_ctx *pc, cmark_node *node, unsigned int line)
{
	struct lesson_doc *doc = pc->doc;
	char *cause = NULL;
	struct quiz *q;
	int ret;

	if (cmark_node_get_type(cmark_node_parent(node)) != CMARK_NODE_DOCUMENT) {
		ret = lesson_problem_add(doc, &pc->cap_problems, line, "quiz block must be at the "
					 "top level, not in a list or quote");
		if (ret)
			return ret;
	}
	ret = quiz_parse_block(cmark_node_get_literal(node), line + 1, doc->name, &q, &cause);
	if (ret == -EINVAL)
		return add_problem_msg(pc, line, cause);
	free(cause);
	if (ret)
		return ret;
	for (size_t i = 0; i < doc->nquizzes; i++) {
		if (!strcmp(doc->quizzes[i]->id, q->id)) {
			ret = lesson_problem_add(doc, &pc->cap_problems, line,
						 "quiz id '%s' already used on line %u", q->id,
						 doc->quizzes[i]->line);
			quiz_free(q);
			return ret;
		}
	}
	ret = lesson_grow(&doc->quizzes, &pc->cap_quiz, doc->nquizzes, sizeof(*doc->quizzes));
	if (ret) {
		quiz_free(q);
		return ret;
	}
	doc->quizzes[doc->nquizzes++] = q;
	cmark_node_set_user_data(node, (void *)(uintptr_t)doc->nquizzes);
	return 0;
}

/* The first word of a code block's info string, in @buf. */
const char *lesson_info_word(cmark_node *node, char *buf, size_t size)
{
	const char *info = cmark_node_get_fence_info(node);
	size_t n = 0;

	if (!info)
		info = "";
	while (info[n] && !isspace((unsigned char)info[n]) && n + 1 < size) {
		buf[n] = info[n];
		n++;
	}
	buf[n] = '\0';
	return buf;
}

/* cmark 0.30 does not say whether a code block was fenced: look at the source. */
static bool is_fenced(const struct parse_ctx *pc, cmark_node *node, unsigned int line)
{
	int col = cmark_node_get_start_column(node);
	const char *s;
	size_t n, k;

	src_line(pc, line, &s, &n);
	k = col > 0 ? (size_t)col - 1 : 0;
	if (k > n)
		return false;
	while (k < n && (s[k] == ' ' || s[k] == '\t'))
		k++;
	return n - k >= 3 && (!strncmp(s + k, "```", 3) || !strncmp(s + k, "~~~", 3));
}

static int visit(struct parse_ctx *pc, cmark_node *node)
{
	struct lesson_doc *doc = pc->doc;
	unsigned int line = lesson_block_line(node);
	struct rt_buf b = RT_BUF_INIT;
	char info[32];
	int ret = 0;

	switch (cmark_node_get_type(node)) {
	case CMARK_NODE_HEADING:
		return add_heading(pc, node, line);
	case CMARK_NODE_PARAGRAPH:
		ret = lesson_flatten(node, &b);
		doc->words += count_words(rt_buf_str(&b));
		rt_buf_fini(&b);
		if (ret)
			return ret;
		for (unsigned int l = line; l <= (unsigned int)cmark_node_get_end_line(node); l++) {
			const char *s;
			size_t n;

			src_line(pc, l, &s, &n);
			if (is_table_row(s, n))
				return lesson_problem_add(doc, &pc->cap_problems, l,
							  "tables are not supported: use a list");
		}
		return 0;
	case CMARK_NODE_CODE_BLOCK:
		if (!is_fenced(pc, node, line))
			return lesson_problem_add(doc, &pc->cap_problems, line,
						  "indented code block: use a ``` fenced block");
		/* Tag fenced blocks so the layout knows where the code starts. */
		cmark_node_set_user_data(node, (void *)(uintptr_t)1);
		if (!strcmp(lesson_info_word(node, info, sizeof(info)), "quiz")) {
			cmark_node_set_user_data(node, NULL);
			ret = add_quiz(pc, node, line);
		}
		return ret;
	case CMARK_NODE_HTML_BLOCK:
		return lesson_problem_add(doc, &pc->cap_problems, line, "raw HTML is not allowed");
	case CMARK_NODE_HTML_INLINE:
		return lesson_problem_add(doc, &pc->cap_problems, lesson_inline_line(node),
					  "raw HTML is not allowed");
	case CMARK_NODE_IMAGE:
		ret = lesson_problem_add(doc, &pc->cap_problems, lesson_inline_line(node),
					 "images are not supported");
		return ret ? ret : lesson_link_add(pc, node);
	case CMARK_NODE_LINK:
		return lesson_link_add(pc, node);
	default:
		return 0;
	}
}

/* ---- Nesting ----------------------------------------------------------- */

/* The nodes cmark's iterator enters without a matching exit: they hold no children. */
static bool node_is_leaf(cmark_node *node)
{
	switch (cmark_node_get_type(node)) {
	case CMARK_NODE_HTML_BLOCK:
	case CMARK_NODE_THEMATIC_BREAK:
	case CMARK_NODE_CODE_BLOCK:
	case CMARK_NODE_TEXT:
	case CMARK_NODE_SOFTBREAK:
	case CMARK_NODE_LINEBREAK:
	case CMARK_NODE_CODE:
	case CMARK_NODE_HTML_INLINE:
		return true;
	default:
		return false;
	}
}

/* A paragraph or heading of plain text: already as flat as a cut would make it. */
static bool only_leaves(cmark_node *node)
{
	cmark_node_type type = cmark_node_get_type(node);

	if (type != CMARK_NODE_PARAGRAPH && type != CMARK_NODE_HEADING)
		return false;
	for (cmark_node *c = cmark_node_first_child(node); c; c = cmark_node_next(c))
		if (!node_is_leaf(c))
			return false;
	return true;
}

/*
 * Put the plain text of @node where @node was: a text node among inlines, a
 * paragraph among blocks. Returns the new node (@node is freed), or NULL.
 */
static cmark_node *flatten_node(cmark_node *node)
{
	bool inl = cmark_node_get_type(node) >= CMARK_NODE_FIRST_INLINE;
	struct rt_buf b = RT_BUF_INIT;
	cmark_node *text = NULL, *para = NULL, *repl;

	if (lesson_flatten(node, &b))
		goto out_fail;
	text = cmark_node_new(CMARK_NODE_TEXT);
	if (!text || !cmark_node_set_literal(text, rt_buf_str(&b)))
		goto out_fail;
	repl = text;
	if (!inl) {
		para = cmark_node_new(CMARK_NODE_PARAGRAPH);
		if (!para || !cmark_node_append_child(para, text))
			goto out_fail;
		text = NULL;
		repl = para;
	}
	if (!cmark_node_insert_before(node, repl))
		goto out_fail;
	cmark_node_free(node);
	rt_buf_fini(&b);
	return repl;

out_fail:
	if (text)
		cmark_node_free(text);
	if (para)
		cmark_node_free(para);
	rt_buf_fini(&b);
	return NULL;
}

/*
 * cmark parses any nesting without recursion (a 4 MiB line of '>' is a tree
 * two million block quotes deep: about 2 s and 250 MB, bounded by
 * LESSON_MAX_BYTES), but sets no limit on it. The layout walks the tree
 * recursively, so here, right after parsing, a container nested deeper than
 * LESSON_MAX_NESTING levels is replaced by its plain text (with a problem
 * that says so); everything after this sees a tree of bounded depth. An item
 * too deep takes its whole list with it, since a list holds only items; a
 * paragraph of plain text one level too deep is left as it is.
 */
static int prune_deep(struct parse_ctx *pc)
{
	cmark_node *root = pc->doc->root;
	cmark_iter *it = cmark_iter_new(root);
	unsigned int depth = 0;		/* containers entered, the document not counted */
	cmark_event_type ev;
	int ret = 0;

	if (!it)
		return -ENOMEM;
	while (!ret && (ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *node = cmark_iter_get_node(it), *cut = node, *repl;
		unsigned int line;

		if (node == root || node_is_leaf(node))
			continue;
		if (ev == CMARK_EVENT_EXIT) {
			depth--;
			continue;
		}
		if (++depth <= LESSON_MAX_NESTING || only_leaves(node))
			continue;
		/* Neither this node's exit nor (for an item) its list's will come. */
		depth--;
		if (cmark_node_get_type(node) == CMARK_NODE_ITEM) {
			cut = cmark_node_parent(node);
			depth--;
		}
		line = lesson_block_line(cut);
		repl = flatten_node(cut);
		if (!repl) {
			ret = -ENOMEM;
			break;
		}
		cmark_iter_reset(it, repl, node_is_leaf(repl) ? CMARK_EVENT_ENTER :
				 CMARK_EVENT_EXIT);
		ret = lesson_problem_add(pc->doc, &pc->cap_problems, line, "nesting deeper than %u "
					 "levels (block quotes, lists, emphasis, links); shown as "
					 "plain text", LESSON_MAX_NESTING);
	}
	cmark_iter_free(it);
	return ret;
}

static int index_lines(struct parse_ctx *pc)
{
	size_t cap = 0, n = 0;

	for (size_t i = 0; i <= pc->len; i++) {
		if (i == 0 || pc->text[i - 1] == '\n') {
			if (i == pc->len && i)
				break;
			if (lesson_grow(&pc->line_off, &cap, n, sizeof(*pc->line_off)))
				return -ENOMEM;
			pc->line_off[n++] = i;
		}
	}
	pc->doc->nsrc_lines = (unsigned int)n;
	return 0;
}

int lesson_doc_parse(const char *text, size_t len, const char *name, struct lesson_doc **out,
		     char **cause)
{
	struct parse_ctx pc = { 0 };
	struct lesson_doc *doc;
	cmark_iter *it = NULL;
	cmark_event_type ev;
	int ret = -ENOMEM;

	*out = NULL;
	doc = calloc(1, sizeof(*doc));
	if (!doc)
		goto out_err;
	pc.doc = doc;
	pc.text = text;
	pc.len = len;
	doc->name = lesson_strdup(name ? name : "lesson");
	if (!doc->name || index_lines(&pc))
		goto out_err;
	doc->root = cmark_parse_document(text, len, CMARK_OPT_SOURCEPOS | CMARK_OPT_VALIDATE_UTF8);
	if (!doc->root)
		goto out_err;
	ret = prune_deep(&pc);
	if (ret)
		goto out_err;
	ret = -ENOMEM;
	it = cmark_iter_new(doc->root);
	if (!it)
		goto out_err;
	ret = 0;
	while (!ret && (ev = cmark_iter_next(it)) != CMARK_EVENT_DONE)
		if (ev == CMARK_EVENT_ENTER)
			ret = visit(&pc, cmark_iter_get_node(it));
	if (ret)
		goto out_err;

	if (!doc->title) {
		ret = lesson_problem_add(doc, &pc.cap_problems, 1,
					 "the first line must be the title, '# Title'");
		if (ret)
			goto out_err;
		doc->title = strdup(doc->name);
		if (!doc->title) {
			ret = -ENOMEM;
			goto out_err;
		}
	}
	cmark_iter_free(it);
	free(pc.line_off);
	*out = doc;
	return 0;

out_err:
	cmark_iter_free(it);
	free(pc.line_off);
	lesson_doc_free(doc);
	return rt_err(cause, ret, "%s: out of memory while parsing", name ? name : "lesson");
}

int lesson_doc_read(const char *path, struct lesson_doc **out, char **cause)
{
	char *data = NULL;
	size_t len;
	int ret;

	*out = NULL;
	ret = rt_file_load(path, 0, LESSON_MAX_BYTES, &data, &len, cause);
	if (ret == -EFBIG && cause) {
		/* Say what the limit is for: a lesson, not any file rtlab reads. */
		free(*cause);
		*cause = NULL;
		return rt_err(cause, ret, "%s: is larger than %u bytes (%u MiB), the most a lesson "
			      "may have", path, LESSON_MAX_BYTES, LESSON_MAX_BYTES >> 20);
	}
	if (ret)
		return ret;
	ret = lesson_doc_parse(data, len, path, out, cause);
	free(data);
	return ret;
}

int lesson_doc_load(const char *path, struct lesson_doc **out, char **cause)
{
	char *dir = NULL, *slash;
	int ret;

	ret = lesson_doc_read(path, out, cause);
	if (ret)
		return ret;
	dir = strdup(path);
	if (!dir) {
		ret = -ENOMEM;
		goto out_doc;
	}
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	ret = lesson_doc_resolve(*out, slash ? dir : ".");
	if (ret)
		goto out_doc;
	free(dir);
	return 0;

out_doc:
	lesson_doc_free(*out);
	*out = NULL;
	free(dir);
	return rt_err(cause, ret, "%s: out of memory", path);
}

void lesson_doc_free(struct lesson_doc *doc)
{
	if (!doc)
		return;
	for (size_t i = 0; i < doc->ntoc; i++)
		free(doc->toc[i].text);
	for (size_t i = 0; i < doc->nquizzes; i++)
		quiz_free(doc->quizzes[i]);
	for (size_t i = 0; i < doc->nlinks; i++) {
		free(doc->links[i].url);
		free(doc->links[i].target);
		free(doc->links[i].text);
		free(doc->links[i].label);
	}
	for (size_t i = 0; i < doc->nproblems; i++)
		free(doc->problems[i].msg);
	free(doc->toc);
	free(doc->quizzes);
	free(doc->links);
	free(doc->problems);
	free(doc->title);
	free(doc->name);
	if (doc->root)
		cmark_node_free(doc->root);
	free(doc);
}

size_t lesson_doc_word_count(const struct lesson_doc *doc)
{
	return doc->words;
}

