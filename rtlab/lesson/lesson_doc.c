/*
 * lesson_doc: the model is the cmark tree plus side tables. Parsing walks
 * the tree once, fills the tables (headings, quizzes, links, problems) and
 * tags nodes through cmark's user data: a quiz code block carries its index
 * in doc->quizzes plus one (0 = malformed), a link its reference number. The
 * layout then walks the same tree with those tags.
 *
 * cmark sets no limit on nesting, so parsing first turns anything nested
 * deeper than LESSON_MAX_NESTING into plain text (prune_deep()); every walk
 * after that, recursive or not, stays shallow.
 *
 * Layout is a recursive walk over the blocks with a stack of prefixes (quote
 * bars, list markers with their hanging indents). Each leaf block is turned
 * into runs of styled text, cut into words at spaces and filled greedily
 * into lines of the room left after the prefix. The prefix is cut when it
 * would leave less than LAYOUT_MIN_ROOM columns, so deep nesting in a narrow
 * window degrades instead of overflowing.
 */
#include "lesson_doc.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <locale.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>
#include <wctype.h>

#include <cmark.h>

#include "core/rt_buf.h"
#include "core/rt_err.h"
#include "core/rt_file.h"
#include "labs/lab.h"

#define LESSON_MAX_BYTES (4u << 20)
#define LAYOUT_MIN_ROOM 8
#define LAYOUT_MAX_LEVELS 32

/* ---- Small helpers ----------------------------------------------------- */

static int grow(void *arrp, size_t *cap, size_t n, size_t elsz)
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

static char *xstrdup(const char *s)
{
	return strdup(s ? s : "");
}

/* ---- Characters and columns -------------------------------------------- */

static pthread_once_t utf8_once = PTHREAD_ONCE_INIT;
static locale_t utf8_loc;

static void utf8_init(void)
{
	utf8_loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

/* Freed at exit so that leak checkers see a clean heap. */
__attribute__((destructor)) static void utf8_fini(void)
{
	if (utf8_loc)
		freelocale(utf8_loc);
	utf8_loc = (locale_t)0;
}

/* Switch this thread to the UTF-8 locale; returns what to restore. */
static locale_t u8_begin(void)
{
	pthread_once(&utf8_once, utf8_init);
	if (!utf8_loc)
		return (locale_t)0;
	return uselocale(utf8_loc);
}

static void u8_end(locale_t old)
{
	if (old)
		uselocale(old);
}

/*
 * Look at the character at @s (@n bytes left). Returns its length in bytes
 * (at least 1), its columns in *cols, and whether it is printable. An
 * unprintable character (a control, a byte that is not valid UTF-8) is to be
 * drawn as one '?'. Must run between u8_begin() and u8_end().
 */
static size_t char_peek(const char *s, size_t n, unsigned int *cols, bool *ok, wchar_t *wcp)
{
	mbstate_t st;
	wchar_t wc;
	size_t r;
	int w;

	*ok = false;
	*cols = 1;
	*wcp = L'?';
	if (!utf8_loc) {
		if ((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f) {
			*ok = true;
			*wcp = (wchar_t)*s;
		}
		return 1;
	}
	memset(&st, 0, sizeof(st));
	r = mbrtowc(&wc, s, n, &st);
	if (r == 0 || r == (size_t)-1 || r == (size_t)-2)
		return 1;
	w = wcwidth(wc);
	if (w < 0)
		return r;
	*ok = true;
	*cols = (unsigned int)w;
	*wcp = wc;
	return r;
}

/*
 * Append [s, s+n) to @b with every unprintable character replaced by '?'.
 * With @spaces, tabs and line ends become spaces first (prose).
 */
static int append_clean(struct rt_buf *b, const char *s, size_t n, bool spaces)
{
	size_t i = 0;
	int ret = 0;

	while (i < n && !ret) {
		unsigned int cols;
		wchar_t wc;
		bool ok;
		size_t k;

		if (spaces && (s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) {
			ret = rt_buf_append(b, " ", 1);
			i++;
			continue;
		}
		k = char_peek(s + i, n - i, &cols, &ok, &wc);
		ret = ok ? rt_buf_append(b, s + i, k) : rt_buf_append(b, "?", 1);
		i += k;
	}
	return ret;
}

static unsigned int cols_of(const char *s, size_t n)
{
	unsigned int total = 0;
	size_t i = 0;

	while (i < n) {
		unsigned int cols;
		wchar_t wc;
		bool ok;

		i += char_peek(s + i, n - i, &cols, &ok, &wc);
		total += cols;
	}
	return total;
}

unsigned int lesson_text_cols(const char *s, size_t len)
{
	locale_t old = u8_begin();
	unsigned int c = cols_of(s, len);

	u8_end(old);
	return c;
}

/* ---- Document model ---------------------------------------------------- */

struct parse_ctx {
	struct lesson_doc *doc;
	const char *text;
	size_t len;
	size_t *line_off;	/* owned; start offset of each source line */
	size_t cap_toc, cap_quiz, cap_links, cap_problems;
};

static int add_problem(struct lesson_doc *doc, size_t *cap, unsigned int line, const char *fmt,
		       ...) __attribute__((format(printf, 4, 5)));

static int add_problem(struct lesson_doc *doc, size_t *cap, unsigned int line, const char *fmt,
		       ...)
{
	struct rt_buf b = RT_BUF_INIT;
	va_list ap;
	char msg[512];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* One report per line is enough ("<b>x</b>" is two HTML nodes). */
	if (doc->nproblems && doc->problems[doc->nproblems - 1].line == line &&
	    strstr(doc->problems[doc->nproblems - 1].msg, msg))
		return 0;
	if (grow(&doc->problems, cap, doc->nproblems, sizeof(*doc->problems)) ||
	    rt_buf_printf(&b, "%s:%u: %s", doc->name, line, msg)) {
		rt_buf_fini(&b);
		return -ENOMEM;
	}
	doc->problems[doc->nproblems].line = line;
	doc->problems[doc->nproblems].msg = rt_buf_take(&b);
	if (!doc->problems[doc->nproblems].msg)
		return -ENOMEM;
	doc->nproblems++;
	return 0;
}

/* A quiz problem already reads "name:line: message". */
static int add_problem_msg(struct parse_ctx *pc, unsigned int line, char *msg)
{
	struct lesson_doc *doc = pc->doc;

	if (grow(&doc->problems, &pc->cap_problems, doc->nproblems, sizeof(*doc->problems))) {
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
static int flatten(cmark_node *node, struct rt_buf *b)
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

static unsigned int block_line(cmark_node *node)
{
	while (node && cmark_node_get_start_line(node) <= 0)
		node = cmark_node_parent(node);
	return node ? (unsigned int)cmark_node_get_start_line(node) : 1;
}

/* Links and inline HTML know their line; other inlines may not: use the block's. */
static unsigned int inline_line(cmark_node *node)
{
	if (cmark_node_get_start_line(node) > 0)
		return (unsigned int)cmark_node_get_start_line(node);
	while (node && cmark_node_get_type(node) >= CMARK_NODE_FIRST_INLINE)
		node = cmark_node_parent(node);
	return block_line(node);
}

static char *link_label(const struct lesson_link *l, const char *title)
{
	struct rt_buf b = RT_BUF_INIT;
	int ret = 0;

	switch (l->kind) {
	case LESSON_LINK_LAB:
		if (!l->resolved)
			ret = rt_buf_printf(&b, "lab %s (unknown)", l->target);
		else
			ret = rt_buf_printf(&b, "%s lab%s", l->target,
					    l->planned ? " (coming)" : "");
		break;
	case LESSON_LINK_LESSON:
		if (l->resolved && title)
			ret = rt_buf_printf(&b, "lesson %s: %s", l->target, title);
		else
			ret = rt_buf_printf(&b, "lesson %s%s", l->target,
					    l->resolved ? "" : " (coming)");
		break;
	case LESSON_LINK_GLOSSARY:
		ret = rt_buf_printf(&b, "glossary: %s%s", title ? title : l->target,
				    l->resolved ? "" : " (not in the glossary)");
		break;
	case LESSON_LINK_URL:
		ret = rt_buf_puts(&b, l->url);
		break;
	case LESSON_LINK_BAD:
		ret = rt_buf_printf(&b, "%s (not a supported link)", l->url);
		break;
	}
	if (ret) {
		rt_buf_fini(&b);
		return NULL;
	}
	return rt_buf_take(&b);
}

static bool all_digits(const char *s, size_t n)
{
	if (strlen(s) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

static int add_link(struct parse_ctx *pc, cmark_node *node)
{
	struct lesson_doc *doc = pc->doc;
	const char *url = cmark_node_get_url(node);
	unsigned int line = inline_line(node);
	struct rt_buf text = RT_BUF_INIT;
	struct lesson_link *l;
	const char *rest;
	int ret;

	if (!url)
		url = "";
	ret = grow(&doc->links, &pc->cap_links, doc->nlinks, sizeof(*doc->links));
	if (ret)
		return ret;
	l = &doc->links[doc->nlinks];
	memset(l, 0, sizeof(*l));
	l->line = line;
	l->url = xstrdup(url);
	ret = flatten(node, &text);
	l->text = rt_buf_take(&text);
	if (ret || !l->url || !l->text)
		goto out_nomem;
	doc->nlinks++;

	if (!strncmp(url, "rtlab:lab/", 10)) {
		const struct lab_ops *lab;

		rest = url + 10;
		l->kind = LESSON_LINK_LAB;
		lab = lab_find(rest);
		l->resolved = lab != NULL;
		l->planned = lab && lab->state == LAB_STATE_PLANNED;
		if (!lab)
			ret = add_problem(doc, &pc->cap_problems, line, "unknown lab '%s' in link",
					  rest);
	} else if (!strncmp(url, "rtlab:lesson/", 13)) {
		rest = url + 13;
		l->kind = LESSON_LINK_LESSON;
		if (!all_digits(rest, 2)) {
			l->kind = LESSON_LINK_BAD;
			ret = add_problem(doc, &pc->cap_problems, line,
					  "lesson link '%s' must be rtlab:lesson/NN (two digits)", url);
		}
	} else if (!strncmp(url, "rtlab:glossary#", 15) && url[15]) {
		rest = url + 15;
		l->kind = LESSON_LINK_GLOSSARY;
	} else if (!strncmp(url, "rtlab:", 6)) {
		rest = url;
		l->kind = LESSON_LINK_BAD;
		ret = add_problem(doc, &pc->cap_problems, line,
				  "unknown rtlab: link '%s' (lab/<name>, lesson/NN or glossary#term)",
				  url);
	} else if ((!strncmp(url, "https://", 8) && url[8]) ||
		   (!strncmp(url, "http://", 7) && url[7])) {
		rest = url;
		l->kind = LESSON_LINK_URL;
		l->resolved = true;
	} else {
		rest = url;
		l->kind = LESSON_LINK_BAD;
		ret = add_problem(doc, &pc->cap_problems, line,
				  "link '%s' is neither an rtlab: link nor an http(s) URL", url);
	}
	if (ret)
		return ret;
	l->target = xstrdup(rest);
	l->label = link_label(l, NULL);
	if (!l->target || !l->label)
		return -ENOMEM;

	/* Equal destinations share one reference number. */
	for (size_t i = 0; i + 1 < doc->nlinks; i++) {
		if (!strcmp(doc->links[i].url, url)) {
			l->number = doc->links[i].number;
			break;
		}
	}
	if (!l->number)
		l->number = ++doc->nrefs;
	cmark_node_set_user_data(node, (void *)(uintptr_t)l->number);
	return 0;

out_nomem:
	free(l->url);
	free(l->text);
	l->url = l->text = NULL;
	return -ENOMEM;
}

static int add_heading(struct parse_ctx *pc, cmark_node *node, unsigned int line)
{
	struct lesson_doc *doc = pc->doc;
	unsigned int level = (unsigned int)cmark_node_get_heading_level(node);
	struct rt_buf b = RT_BUF_INIT;
	const char *s;
	size_t n;
	int ret;

	ret = grow(&doc->toc, &pc->cap_toc, doc->ntoc, sizeof(*doc->toc));
	if (!ret)
		ret = flatten(node, &b);
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
		return add_problem(doc, &pc->cap_problems, line,
				   "setext heading: write it as '%.*s text'", (int)level, "######");
	if (level == 1 && line == 1 && !doc->title) {
		doc->title = strdup(doc->toc[doc->ntoc - 1].text);
		if (!doc->title)
			return -ENOMEM;
	} else if (level == 1) {
		return add_problem(doc, &pc->cap_problems, line,
				   "only the title on the first line may be a level-1 heading");
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
		ret = add_problem(doc, &pc->cap_problems, line,
				  "quiz block must be at the top level, not in a list or quote");
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
			ret = add_problem(doc, &pc->cap_problems, line,
					  "quiz id '%s' already used on line %u", q->id,
					  doc->quizzes[i]->line);
			quiz_free(q);
			return ret;
		}
	}
	ret = grow(&doc->quizzes, &pc->cap_quiz, doc->nquizzes, sizeof(*doc->quizzes));
	if (ret) {
		quiz_free(q);
		return ret;
	}
	doc->quizzes[doc->nquizzes++] = q;
	cmark_node_set_user_data(node, (void *)(uintptr_t)doc->nquizzes);
	return 0;
}

/* The first word of a code block's info string, in @buf. */
static const char *info_word(cmark_node *node, char *buf, size_t size)
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
	unsigned int line = block_line(node);
	struct rt_buf b = RT_BUF_INIT;
	char info[32];
	int ret = 0;

	switch (cmark_node_get_type(node)) {
	case CMARK_NODE_HEADING:
		return add_heading(pc, node, line);
	case CMARK_NODE_PARAGRAPH:
		ret = flatten(node, &b);
		doc->words += count_words(rt_buf_str(&b));
		rt_buf_fini(&b);
		if (ret)
			return ret;
		for (unsigned int l = line; l <= (unsigned int)cmark_node_get_end_line(node); l++) {
			const char *s;
			size_t n;

			src_line(pc, l, &s, &n);
			if (is_table_row(s, n))
				return add_problem(doc, &pc->cap_problems, l,
						   "tables are not supported: use a list");
		}
		return 0;
	case CMARK_NODE_CODE_BLOCK:
		if (!is_fenced(pc, node, line))
			return add_problem(doc, &pc->cap_problems, line,
					   "indented code block: use a ``` fenced block");
		/* Tag fenced blocks so the layout knows where the code starts. */
		cmark_node_set_user_data(node, (void *)(uintptr_t)1);
		if (!strcmp(info_word(node, info, sizeof(info)), "quiz")) {
			cmark_node_set_user_data(node, NULL);
			ret = add_quiz(pc, node, line);
		}
		return ret;
	case CMARK_NODE_HTML_BLOCK:
		return add_problem(doc, &pc->cap_problems, line, "raw HTML is not allowed");
	case CMARK_NODE_HTML_INLINE:
		return add_problem(doc, &pc->cap_problems, inline_line(node),
				   "raw HTML is not allowed");
	case CMARK_NODE_IMAGE:
		ret = add_problem(doc, &pc->cap_problems, inline_line(node),
				  "images are not supported");
		return ret ? ret : add_link(pc, node);
	case CMARK_NODE_LINK:
		return add_link(pc, node);
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

	if (flatten(node, &b))
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
		line = block_line(cut);
		repl = flatten_node(cut);
		if (!repl) {
			ret = -ENOMEM;
			break;
		}
		cmark_iter_reset(it, repl, node_is_leaf(repl) ? CMARK_EVENT_ENTER :
				 CMARK_EVENT_EXIT);
		ret = add_problem(pc->doc, &pc->cap_problems, line, "nesting deeper than %u "
				  "levels (block quotes, lists, emphasis, links); shown as plain text",
				  LESSON_MAX_NESTING);
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
			if (grow(&pc->line_off, &cap, n, sizeof(*pc->line_off)))
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
	doc->name = xstrdup(name ? name : "lesson");
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
		ret = add_problem(doc, &pc.cap_problems, 1,
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

/* ---- Resolving links --------------------------------------------------- */

/* Anchor of a heading or link target (FORMAT.md): "Wake-up latency" -> "wake-up-latency". */
static char *anchor_of(const char *s)
{
	size_t n = strlen(s);
	char *a = malloc(n + 1);
	size_t k = 0;
	bool dash = false;

	if (!a)
		return NULL;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x80 && isalnum(c)) {
			if (dash && k)
				a[k++] = '-';
			a[k++] = (char)tolower(c);
			dash = false;
		} else {
			dash = true;
		}
	}
	a[k] = '\0';
	return a;
}

struct known_lesson {
	unsigned int number;
	char *title;
};

static void free_lessons(struct known_lesson *kl, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(kl[i].title);
	free(kl);
}

static char *first_line_title(const char *path)
{
	char buf[512], *nl;
	int fd = rt_file_open_read(path, 0, 0, NULL);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	if (strncmp(buf, "# ", 2) || !buf[2])
		return NULL;
	return strdup(buf + 2);
}

static int scan_lessons(const char *dir, struct known_lesson **out, size_t *count)
{
	struct known_lesson *kl = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	*out = NULL;
	*count = 0;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		const char *nm = de->d_name;
		size_t l = strlen(nm);
		char *path;

		if (l < 7 || !isdigit((unsigned char)nm[0]) || !isdigit((unsigned char)nm[1]) ||
		    nm[2] != '-' || strcmp(nm + l - 3, ".md"))
			continue;
		if (grow(&kl, &cap, n, sizeof(*kl)) || asprintf(&path, "%s/%s", dir, nm) < 0) {
			closedir(d);
			free_lessons(kl, n);
			return -ENOMEM;
		}
		kl[n].number = (unsigned int)((nm[0] - '0') * 10 + (nm[1] - '0'));
		kl[n].title = first_line_title(path);
		free(path);
		n++;
	}
	closedir(d);
	*out = kl;
	*count = n;
	return 0;
}

/* Anchors of the "## " headings of <dir>/glossary.md, with their texts. */
static int scan_glossary(const char *dir, char ***anchors, char ***texts, size_t *count)
{
	size_t n = 0, cap = 0, cap2 = 0;
	char *path = NULL, *data = NULL;
	cmark_node *root = NULL;
	char **a = NULL, **t = NULL;
	size_t len;
	int ret = 0;

	*anchors = *texts = NULL;
	*count = 0;
	if (asprintf(&path, "%s/glossary.md", dir) < 0)
		return -ENOMEM;
	if (rt_file_read(path, LESSON_MAX_BYTES, &data, &len))
		goto out;
	root = cmark_parse_document(data, len, CMARK_OPT_DEFAULT);
	if (!root) {
		ret = -ENOMEM;
		goto out;
	}
	for (cmark_node *c = cmark_node_first_child(root); c; c = cmark_node_next(c)) {
		struct rt_buf b = RT_BUF_INIT;

		if (cmark_node_get_type(c) != CMARK_NODE_HEADING ||
		    cmark_node_get_heading_level(c) != 2)
			continue;
		if (grow(&a, &cap, n, sizeof(*a)) || grow(&t, &cap2, n, sizeof(*t)) ||
		    flatten(c, &b)) {
			rt_buf_fini(&b);
			ret = -ENOMEM;
			goto out;
		}
		t[n] = rt_buf_take(&b);
		a[n] = t[n] ? anchor_of(t[n]) : NULL;
		if (!a[n]) {
			free(t[n]);
			ret = -ENOMEM;
			goto out;
		}
		n++;
	}
out:
	if (ret) {
		for (size_t i = 0; i < n; i++) {
			free(a[i]);
			free(t[i]);
		}
		free(a);
		free(t);
	} else {
		*anchors = a;
		*texts = t;
		*count = n;
	}
	if (root)
		cmark_node_free(root);
	free(data);
	free(path);
	return ret;
}

int lesson_doc_resolve(struct lesson_doc *doc, const char *dir)
{
	struct known_lesson *kl = NULL;
	char **anchors = NULL, **texts = NULL;
	size_t nkl = 0, ngl = 0, cap = doc->nproblems;
	bool need_lessons = false, need_glossary = false;
	int ret = 0;

	for (size_t i = 0; i < doc->nlinks; i++) {
		need_lessons |= doc->links[i].kind == LESSON_LINK_LESSON;
		need_glossary |= doc->links[i].kind == LESSON_LINK_GLOSSARY;
	}
	if (need_lessons)
		ret = scan_lessons(dir, &kl, &nkl);
	if (!ret && need_glossary)
		ret = scan_glossary(dir, &anchors, &texts, &ngl);
	if (ret)
		goto out;

	for (size_t i = 0; i < doc->nlinks && !ret; i++) {
		struct lesson_link *l = &doc->links[i];
		const char *title = NULL;
		char *want, *label;

		if (l->kind == LESSON_LINK_LESSON) {
			unsigned int num = (unsigned int)atoi(l->target);

			for (size_t k = 0; k < nkl; k++) {
				if (kl[k].number == num) {
					l->resolved = true;
					title = kl[k].title;
				}
			}
			if (!l->resolved)
				ret = add_problem(doc, &cap, l->line, "no lesson %s for link '%s'",
						  l->target, l->url);
		} else if (l->kind == LESSON_LINK_GLOSSARY) {
			want = anchor_of(l->target);
			if (!want) {
				ret = -ENOMEM;
				break;
			}
			for (size_t k = 0; k < ngl; k++) {
				if (*want && !strcmp(anchors[k], want)) {
					l->resolved = true;
					title = texts[k];
				}
			}
			free(want);
			if (!l->resolved)
				ret = add_problem(doc, &cap, l->line,
						  "glossary term '%s' not found in glossary.md",
						  l->target);
		} else {
			continue;
		}
		label = link_label(l, title);
		if (!label) {
			ret = -ENOMEM;
			break;
		}
		free(l->label);
		l->label = label;
	}
out:
	free_lessons(kl, nkl);
	for (size_t i = 0; i < ngl; i++) {
		free(anchors[i]);
		free(texts[i]);
	}
	free(anchors);
	free(texts);
	return ret;
}

int lesson_doc_load(const char *path, struct lesson_doc **out, char **cause)
{
	char *data = NULL, *dir = NULL, *slash;
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
	if (ret)
		goto out_free;
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
	free(data);
	return 0;

out_doc:
	lesson_doc_free(*out);
	*out = NULL;
	rt_err(cause, ret, "%s: out of memory", path);
out_free:
	free(dir);
	free(data);
	return ret;
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

/* ---- Layout ------------------------------------------------------------ */

/* A piece of a line being filled: borrowed text with its style. */
struct piece {
	const char *s;
	size_t n;
	unsigned int cols;
	unsigned int style;
	unsigned int link;
};

/* Styled text of one leaf block, before wrapping. */
struct run {
	size_t off, n;		/* into inl.text */
	unsigned int style;
	unsigned int link;
	bool brk;		/* a hard line break; off/n unused */
};

struct inl {
	struct rt_buf text;
	struct run *runs;
	size_t nruns, cap;
	unsigned int depth;	/* gather() calls on the stack */
};

struct level {
	char first[48];		/* on the first line of the item */
	char rest[48];		/* on the lines after it */
	unsigned int cols;	/* both have this many columns */
	enum lesson_span_role role;
	unsigned int style;
	bool used;		/* first line emitted */
};

struct lay_ctx {
	struct lesson_layout *lay;
	const struct lesson_doc *doc;
	unsigned int width;
	size_t cap_lines;
	struct level lv[LAYOUT_MAX_LEVELS];
	unsigned int nlv;
	unsigned int list_depth;
	unsigned int depth;	/* layout_blocks() calls on the stack */
	unsigned int style;	/* or-ed into content (QUOTE) */
	unsigned int src;	/* source line of the block being laid out */
	bool gap;		/* a blank line is due before the next block */
	struct piece *pcs;	/* the line being filled */
	size_t npcs, cap_pcs;
	unsigned int pcols;
};

static void line_fini(struct lesson_line *l)
{
	for (size_t i = 0; i < l->nspans; i++)
		free(l->spans[i].text);
	free(l->spans);
}

void lesson_layout_free(struct lesson_layout *lay)
{
	if (!lay)
		return;
	for (size_t i = 0; i < lay->nlines; i++)
		line_fini(&lay->lines[i]);
	free(lay->lines);
	free(lay);
}

/* Append a span to @l, merging with the last one when they look the same. */
static int line_add(struct lesson_line *l, size_t *cap, const char *s, size_t n,
		    unsigned int cols, unsigned int style, unsigned int link,
		    enum lesson_span_role role)
{
	struct lesson_span *sp;
	char *t;

	if (!n)
		return 0;
	if (l->nspans) {
		sp = &l->spans[l->nspans - 1];
		if (sp->style == style && sp->link == link && sp->role == role) {
			size_t old = strlen(sp->text);

			t = realloc(sp->text, old + n + 1);
			if (!t)
				return -ENOMEM;
			memcpy(t + old, s, n);
			t[old + n] = '\0';
			sp->text = t;
			sp->cols += cols;
			l->cols += cols;
			return 0;
		}
	}
	if (grow(&l->spans, cap, l->nspans, sizeof(*l->spans)))
		return -ENOMEM;
	t = malloc(n + 1);
	if (!t)
		return -ENOMEM;
	memcpy(t, s, n);
	t[n] = '\0';
	sp = &l->spans[l->nspans++];
	sp->text = t;
	sp->cols = cols;
	sp->style = style;
	sp->link = link;
	sp->role = role;
	l->cols += cols;
	return 0;
}

/* Columns the prefix may take: the rest is kept for content. */
static unsigned int prefix_max(const struct lay_ctx *c)
{
	return c->width - LAYOUT_MIN_ROOM;
}

static unsigned int prefix_cols(const struct lay_ctx *c)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < c->nlv; i++)
		n += c->lv[i].cols;
	return n < prefix_max(c) ? n : prefix_max(c);
}

/* Room for content after the prefix. */
static unsigned int room(const struct lay_ctx *c)
{
	return c->width - prefix_cols(c);
}

/* Add the prefix to @l, cut at prefix_max() columns. */
static int add_prefix(struct lay_ctx *c, struct lesson_line *l, size_t *cap, bool blank)
{
	unsigned int left = prefix_max(c);
	int ret = 0;

	for (unsigned int i = 0; i < c->nlv && !ret; i++) {
		struct level *lv = &c->lv[i];
		const char *s = (lv->used || blank) ? lv->rest : lv->first;
		size_t n = strlen(s), k = 0, cut = 0;
		unsigned int cols = 0;

		if (blank && lv->role != LESSON_SPAN_QUOTE_BAR)
			s = "";
		n = strlen(s);
		while (k < n) {
			unsigned int w;
			wchar_t wc;
			bool ok;
			size_t step = char_peek(s + k, n - k, &w, &ok, &wc);

			if (cols + w > left)
				break;
			cols += w;
			k += step;
			cut = k;
		}
		ret = line_add(l, cap, s, cut, cols, lv->style, 0, lv->role);
		left -= cols;
		if (!blank)
			lv->used = true;
	}
	return ret;
}

static struct lesson_line *new_line(struct lay_ctx *c, enum lesson_line_kind kind)
{
	struct lesson_layout *lay = c->lay;
	struct lesson_line *l;

	if (grow(&lay->lines, &c->cap_lines, lay->nlines, sizeof(*lay->lines)))
		return NULL;
	l = &lay->lines[lay->nlines++];
	memset(l, 0, sizeof(*l));
	l->kind = kind;
	l->src_line = c->src;
	l->quiz = -1;
	return l;
}

/* Trailing blanks of a blank line's prefix ("│ " -> "│"). */
static void trim_line(struct lesson_line *l)
{
	while (l->nspans) {
		struct lesson_span *sp = &l->spans[l->nspans - 1];
		size_t n = strlen(sp->text);

		while (n && sp->text[n - 1] == ' ') {
			sp->text[--n] = '\0';
			sp->cols--;
			l->cols--;
		}
		if (n)
			break;
		free(sp->text);
		l->nspans--;
	}
}

static int emit_blank(struct lay_ctx *c)
{
	struct lesson_line *l = new_line(c, LESSON_LINE_BLANK);
	size_t cap = 0;
	int ret;

	if (!l)
		return -ENOMEM;
	ret = add_prefix(c, l, &cap, true);
	trim_line(l);
	return ret;
}

/* Before a block: the blank line that separates it from the previous one. */
static int flush_gap(struct lay_ctx *c, unsigned int src)
{
	int ret = 0;

	/* The blank line belongs to the block above, so src_line finds the block. */
	if (c->gap && c->lay->nlines)
		ret = emit_blank(c);
	c->gap = false;
	c->src = src > c->src ? src : c->src;
	return ret;
}

/* Emit the pieces gathered so far as one line. */
static int emit_pieces(struct lay_ctx *c, enum lesson_line_kind kind, unsigned int heading,
		       int quiz)
{
	struct lesson_line *l = new_line(c, kind);
	size_t cap = 0;
	int ret;

	if (!l)
		return -ENOMEM;
	l->heading = heading;
	l->quiz = quiz;
	ret = add_prefix(c, l, &cap, false);
	for (size_t i = 0; i < c->npcs && !ret; i++) {
		struct piece *p = &c->pcs[i];

		ret = line_add(l, &cap, p->s, p->n, p->cols, p->style, p->link,
			       LESSON_SPAN_TEXT);
	}
	c->npcs = 0;
	c->pcols = 0;
	return ret;
}

static int push_piece(struct lay_ctx *c, const char *s, size_t n, unsigned int cols,
		      unsigned int style, unsigned int link)
{
	struct piece *p;

	if (c->npcs) {
		p = &c->pcs[c->npcs - 1];
		if (p->s + p->n == s && p->style == style && p->link == link) {
			p->n += n;
			p->cols += cols;
			c->pcols += cols;
			return 0;
		}
	}
	if (grow(&c->pcs, &c->cap_pcs, c->npcs, sizeof(*c->pcs)))
		return -ENOMEM;
	p = &c->pcs[c->npcs++];
	p->s = s;
	p->n = n;
	p->cols = cols;
	p->style = style;
	p->link = link;
	c->pcols += cols;
	return 0;
}

struct wrap {
	struct lay_ctx *c;
	enum lesson_line_kind kind;
	unsigned int heading;
	int quiz;
	unsigned int avail;
	struct piece *word;	/* the word being gathered */
	size_t nword, cap_word;
	unsigned int wcols;
};

/* Put the gathered word on the current line, a new line, or split it. */
static int flush_word(struct wrap *w)
{
	struct lay_ctx *c = w->c;
	int ret = 0;

	if (!w->nword)
		return 0;
	if (c->npcs && c->pcols + 1 + w->wcols <= w->avail) {
		struct piece *last = &c->pcs[c->npcs - 1];
		unsigned int st = last->style & w->word[0].style;
		unsigned int lk = last->link == w->word[0].link ? last->link : 0;

		ret = push_piece(c, " ", 1, 1, st, lk);
	} else if (c->npcs) {
		ret = emit_pieces(c, w->kind, w->heading, w->quiz);
	}
	for (size_t i = 0; i < w->nword && !ret; i++) {
		struct piece *p = &w->word[i];

		if (c->pcols + p->cols <= w->avail) {
			ret = push_piece(c, p->s, p->n, p->cols, p->style, p->link);
			continue;
		}
		/* Too wide: split between characters. */
		for (size_t k = 0; k < p->n && !ret;) {
			unsigned int cols;
			wchar_t wc;
			bool ok;
			size_t step = char_peek(p->s + k, p->n - k, &cols, &ok, &wc);

			if (c->pcols + cols > w->avail && c->npcs)
				ret = emit_pieces(c, w->kind, w->heading, w->quiz);
			if (!ret)
				ret = push_piece(c, p->s + k, step, cols, p->style, p->link);
			k += step;
		}
	}
	w->nword = 0;
	w->wcols = 0;
	return ret;
}

static int word_add(struct wrap *w, const char *s, size_t n, unsigned int cols,
		    unsigned int style, unsigned int link)
{
	struct piece *p;

	if (w->nword) {
		p = &w->word[w->nword - 1];
		if (p->s + p->n == s && p->style == style && p->link == link) {
			p->n += n;
			p->cols += cols;
			w->wcols += cols;
			return 0;
		}
	}
	if (grow(&w->word, &w->cap_word, w->nword, sizeof(*w->word)))
		return -ENOMEM;
	p = &w->word[w->nword++];
	p->s = s;
	p->n = n;
	p->cols = cols;
	p->style = style;
	p->link = link;
	w->wcols += cols;
	return 0;
}

/* Fill the runs of @in into lines of the room left by the prefix. */
static int wrap_runs(struct lay_ctx *c, const struct inl *in, enum lesson_line_kind kind,
		     unsigned int heading, int quiz)
{
	struct wrap w = { .c = c, .kind = kind, .heading = heading, .quiz = quiz };
	const char *text = rt_buf_str(&in->text);
	int ret = 0;

	w.avail = room(c);
	c->npcs = 0;
	c->pcols = 0;
	for (size_t r = 0; r < in->nruns && !ret; r++) {
		const struct run *run = &in->runs[r];

		if (run->brk) {
			ret = flush_word(&w);
			if (!ret && c->npcs)
				ret = emit_pieces(c, kind, heading, quiz);
			continue;
		}
		for (size_t k = 0; k < run->n && !ret;) {
			const char *s = text + run->off + k;
			unsigned int cols;
			wchar_t wc;
			bool ok;
			size_t step;

			if (*s == ' ') {
				ret = flush_word(&w);
				k++;
				continue;
			}
			step = char_peek(s, run->n - k, &cols, &ok, &wc);
			ret = word_add(&w, s, step, cols, run->style | c->style, run->link);
			k += step;
		}
	}
	if (!ret)
		ret = flush_word(&w);
	if (!ret && c->npcs)
		ret = emit_pieces(c, kind, heading, quiz);
	free(w.word);
	return ret;
}

static int inl_add(struct inl *in, const char *s, size_t n, unsigned int style,
		   unsigned int link, bool brk)
{
	struct run *r;
	size_t off = in->text.len;

	if (!brk && append_clean(&in->text, s, n, true))
		return -ENOMEM;
	if (grow(&in->runs, &in->cap, in->nruns, sizeof(*in->runs)))
		return -ENOMEM;
	r = &in->runs[in->nruns++];
	r->off = off;
	r->n = in->text.len - off;
	r->style = style;
	r->link = link;
	r->brk = brk;
	return 0;
}

static void inl_fini(struct inl *in)
{
	rt_buf_fini(&in->text);
	free(in->runs);
}

/* Styled runs of an inline subtree; as deep as the tree, which parsing bounded. */
static int gather(struct inl *in, cmark_node *node, unsigned int style, unsigned int link)
{
	int ret = 0;

	if (++in->depth > LESSON_MAX_NESTING + 1) {
		in->depth--;
		return -ELOOP;
	}
	for (cmark_node *c = cmark_node_first_child(node); c && !ret; c = cmark_node_next(c)) {
		const char *lit = cmark_node_get_literal(c);
		char ref[24];
		unsigned int num;

		switch (cmark_node_get_type(c)) {
		case CMARK_NODE_TEXT:
		case CMARK_NODE_HTML_INLINE:
			ret = inl_add(in, lit, strlen(lit), style, link, false);
			break;
		case CMARK_NODE_CODE:
			ret = inl_add(in, lit, strlen(lit), style | LESSON_STYLE_CODE, link, false);
			break;
		case CMARK_NODE_SOFTBREAK:
			ret = inl_add(in, " ", 1, style, link, false);
			break;
		case CMARK_NODE_LINEBREAK:
			ret = inl_add(in, NULL, 0, style, link, true);
			break;
		case CMARK_NODE_EMPH:
			ret = gather(in, c, style | LESSON_STYLE_EMPH, link);
			break;
		case CMARK_NODE_STRONG:
			ret = gather(in, c, style | LESSON_STYLE_BOLD, link);
			break;
		case CMARK_NODE_LINK:
		case CMARK_NODE_IMAGE:
			num = (unsigned int)(uintptr_t)cmark_node_get_user_data(c);
			ret = gather(in, c, style | LESSON_STYLE_LINK, num);
			if (!ret && num) {
				snprintf(ref, sizeof(ref), "[%u]", num);
				ret = inl_add(in, ref, strlen(ref),
					      (style | LESSON_STYLE_LINK | LESSON_STYLE_DIM), num,
					      false);
			}
			break;
		default:
			ret = gather(in, c, style, link);
		}
	}
	in->depth--;
	return ret;
}

static int layout_inline(struct lay_ctx *c, cmark_node *node, unsigned int style,
			 enum lesson_line_kind kind, unsigned int heading)
{
	struct inl in = { RT_BUF_INIT, NULL, 0, 0, 0 };
	int ret = gather(&in, node, style, 0);

	if (!ret)
		ret = wrap_runs(c, &in, kind, heading, -1);
	inl_fini(&in);
	return ret;
}

static int push_level(struct lay_ctx *c, const char *first, const char *rest,
		      enum lesson_span_role role, unsigned int style)
{
	struct level *lv;

	if (c->nlv == LAYOUT_MAX_LEVELS)
		return 1;	/* too deep: content keeps the current indent */
	lv = &c->lv[c->nlv++];
	snprintf(lv->first, sizeof(lv->first), "%s", first);
	snprintf(lv->rest, sizeof(lv->rest), "%s", rest);
	lv->cols = cols_of(lv->rest, strlen(lv->rest));
	lv->role = role;
	lv->style = style;
	lv->used = false;
	return 0;
}

static void pop_level(struct lay_ctx *c, int pushed)
{
	if (pushed == 0)
		c->nlv--;
}

static int layout_blocks(struct lay_ctx *c, cmark_node *parent);
static int layout_block(struct lay_ctx *c, cmark_node *node);

/* One code line of the box: "│ " + text (cut with "…") + padding + " │". */
static int code_line(struct lay_ctx *c, const char *s, size_t n, unsigned int inner,
		     unsigned int style)
{
	struct lesson_line *l = new_line(c, LESSON_LINE_CODE);
	unsigned int cols = cols_of(s, n), used = 0;
	size_t cap = 0, k = 0;
	char pad[16];
	int ret;

	if (!l)
		return -ENOMEM;
	ret = add_prefix(c, l, &cap, false);
	if (!ret)
		ret = line_add(l, &cap, "│ ", strlen("│ "), 2, style, 0, LESSON_SPAN_FRAME);
	if (cols > inner) {
		while (k < n) {
			unsigned int w;
			wchar_t wc;
			bool ok;
			size_t step = char_peek(s + k, n - k, &w, &ok, &wc);

			if (used + w > inner - 1)
				break;
			used += w;
			k += step;
		}
		if (!ret)
			ret = line_add(l, &cap, s, k, used, style, 0, LESSON_SPAN_TEXT);
		if (!ret)
			ret = line_add(l, &cap, "…", strlen("…"), 1, style | LESSON_STYLE_DIM, 0,
				       LESSON_SPAN_TEXT);
		used++;
	} else {
		if (!ret)
			ret = line_add(l, &cap, s, n, cols, style, 0, LESSON_SPAN_TEXT);
		used = cols;
	}
	/* Padding and the right edge, one frame span. */
	while (!ret && used < inner) {
		unsigned int k2 = inner - used < sizeof(pad) - 1 ? inner - used : sizeof(pad) - 1;

		memset(pad, ' ', k2);
		ret = line_add(l, &cap, pad, k2, k2, style, 0, LESSON_SPAN_FRAME);
		used += k2;
	}
	if (!ret)
		ret = line_add(l, &cap, " │", strlen(" │"), 2, style, 0, LESSON_SPAN_FRAME);
	return ret;
}

static int frame_line(struct lay_ctx *c, const char *left, const char *right,
		      const char *label, unsigned int inner, unsigned int style)
{
	struct lesson_line *l = new_line(c, LESSON_LINE_FRAME);
	unsigned int lcols = label ? cols_of(label, strlen(label)) : 0;
	unsigned int dashes = inner + 2;
	size_t cap = 0;
	int ret;

	if (!l)
		return -ENOMEM;
	ret = add_prefix(c, l, &cap, false);
	if (!ret)
		ret = line_add(l, &cap, left, strlen(left), 1, style, 0, LESSON_SPAN_FRAME);
	if (label && *label && lcols + 3 <= dashes) {
		if (!ret)
			ret = line_add(l, &cap, "─ ", strlen("─ "), 2, style, 0, LESSON_SPAN_FRAME);
		if (!ret)
			ret = line_add(l, &cap, label, strlen(label), lcols, style, 0,
				       LESSON_SPAN_FRAME);
		if (!ret)
			ret = line_add(l, &cap, " ", 1, 1, style, 0, LESSON_SPAN_FRAME);
		dashes -= lcols + 3;
	}
	for (unsigned int i = 0; i < dashes && !ret; i++)
		ret = line_add(l, &cap, "─", strlen("─"), 1, style, 0, LESSON_SPAN_FRAME);
	if (!ret)
		ret = line_add(l, &cap, right, strlen(right), 1, style, 0, LESSON_SPAN_FRAME);
	return ret;
}

/* Lines of a code block, tabs expanded to 8 columns, unprintables as '?'. */
static int code_lines(const char *lit, struct rt_buf *b, size_t **offs, size_t *nlines)
{
	size_t cap = 0, n = 0, i = 0, len = strlen(lit);
	int ret = 0;

	*offs = NULL;
	while (i < len && !ret) {
		unsigned int col = 0;

		ret = grow(offs, &cap, n + 1, sizeof(**offs));
		if (ret)
			break;
		(*offs)[n++] = b->len;
		while (i < len && lit[i] != '\n' && !ret) {
			unsigned int w;
			wchar_t wc;
			bool ok;
			size_t step;

			if (lit[i] == '\t') {
				do {
					ret = rt_buf_append(b, " ", 1);
				} while (!ret && ++col % 8);
				i++;
				continue;
			}
			if (lit[i] == '\r' && (i + 1 == len || lit[i + 1] == '\n')) {
				i++;
				continue;
			}
			step = char_peek(lit + i, len - i, &w, &ok, &wc);
			ret = ok ? rt_buf_append(b, lit + i, step) : rt_buf_append(b, "?", 1);
			col += w;
			i += step;
		}
		i++;	/* the '\n' */
	}
	if (!ret)
		ret = grow(offs, &cap, n + 1, sizeof(**offs));
	if (!ret)
		(*offs)[n] = b->len;
	*nlines = n;
	return ret;
}

static int layout_code(struct lay_ctx *c, cmark_node *node, const char *label)
{
	bool fenced = cmark_node_get_user_data(node) != NULL;
	const char *lit = cmark_node_get_literal(node);
	unsigned int style = LESSON_STYLE_CODEBLOCK | c->style, inner, maxc = 1;
	unsigned int first = (unsigned int)cmark_node_get_start_line(node);
	unsigned int last = (unsigned int)cmark_node_get_end_line(node);
	struct rt_buf b = RT_BUF_INIT;
	size_t *offs = NULL, n = 0;
	int ret;

	ret = code_lines(lit ? lit : "", &b, &offs, &n);
	if (ret)
		goto out;
	for (size_t i = 0; i < n; i++) {
		unsigned int w = cols_of(b.data + offs[i], offs[i + 1] - offs[i]);

		maxc = w > maxc ? w : maxc;
	}
	inner = room(c) - 4;
	inner = maxc < inner ? maxc : inner;

	ret = frame_line(c, "┌", "┐", label, inner, style);
	for (size_t i = 0; i < n && !ret; i++) {
		unsigned int src = first + (fenced ? 1 : 0) + (unsigned int)i;

		c->src = src > c->src ? src : c->src;
		ret = code_line(c, b.data + offs[i], offs[i + 1] - offs[i], inner, style);
	}
	c->src = last > c->src ? last : c->src;
	if (!ret)
		ret = frame_line(c, "└", "┘", NULL, inner, style);
out:
	free(offs);
	rt_buf_fini(&b);
	return ret;
}

static int layout_quiz(struct lay_ctx *c, cmark_node *node)
{
	unsigned int idx = (unsigned int)(uintptr_t)cmark_node_get_user_data(node);
	struct inl in = { RT_BUF_INIT, NULL, 0, 0, 0 };
	cmark_node *qdoc = NULL, *para;
	int ret;

	ret = inl_add(&in, "Quiz: ", 6, LESSON_STYLE_BOLD, 0, false);
	if (ret)
		goto out;
	if (!idx) {
		const char *msg = "this quiz block is malformed (see rtlab lesson lint)";

		ret = inl_add(&in, msg, strlen(msg), LESSON_STYLE_DIM, 0, false);
		if (!ret)
			ret = wrap_runs(c, &in, LESSON_LINE_TEXT, 0, -1);
		goto out;
	}
	qdoc = cmark_parse_document(c->doc->quizzes[idx - 1]->question,
				    strlen(c->doc->quizzes[idx - 1]->question),
				    CMARK_OPT_VALIDATE_UTF8);
	if (!qdoc) {
		ret = -ENOMEM;
		goto out;
	}
	for (para = cmark_node_first_child(qdoc); para && !ret; para = cmark_node_next(para)) {
		if (cmark_node_get_type(para) == CMARK_NODE_PARAGRAPH ||
		    cmark_node_get_type(para) == CMARK_NODE_HEADING)
			ret = gather(&in, para, 0, 0);
		else if (cmark_node_first_child(para))
			ret = gather(&in, para, 0, 0);
		if (!ret)
			ret = inl_add(&in, " ", 1, 0, 0, false);
	}
	if (!ret)
		ret = wrap_runs(c, &in, LESSON_LINE_QUIZ, 0, (int)idx - 1);
out:
	if (qdoc)
		cmark_node_free(qdoc);
	inl_fini(&in);
	return ret;
}

static int layout_html(struct lay_ctx *c, cmark_node *node)
{
	const char *lit = cmark_node_get_literal(node);
	struct inl in = { RT_BUF_INIT, NULL, 0, 0, 0 };
	int ret = 0;

	for (const char *p = lit ? lit : ""; *p && !ret;) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);

		ret = inl_add(&in, p, n, 0, 0, false);
		if (!ret)
			ret = inl_add(&in, NULL, 0, 0, 0, true);
		p += n + (eol ? 1 : 0);
	}
	if (!ret)
		ret = wrap_runs(c, &in, LESSON_LINE_TEXT, 0, -1);
	inl_fini(&in);
	return ret;
}

static int layout_rule(struct lay_ctx *c)
{
	unsigned int n = room(c);
	int ret = 0;

	c->npcs = 0;
	c->pcols = 0;
	for (unsigned int i = 0; i < n && !ret; i++)
		ret = push_piece(c, "─", strlen("─"), 1, LESSON_STYLE_DIM | c->style, 0);
	return ret ? ret : emit_pieces(c, LESSON_LINE_RULE, 0, -1);
}

static unsigned int heading_style(unsigned int level)
{
	if (level == 1)
		return LESSON_STYLE_HEADING1;
	if (level == 2)
		return LESSON_STYLE_HEADING2;
	return LESSON_STYLE_HEADING3;
}

static unsigned int digits(unsigned long v)
{
	unsigned int d = 1;

	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

static int layout_list(struct lay_ctx *c, cmark_node *node)
{
	static const char *const bullets[] = { "• ", "◦ ", "▪ " };
	bool tight = cmark_node_get_list_tight(node);
	bool ordered = cmark_node_get_list_type(node) == CMARK_ORDERED_LIST;
	char paren = cmark_node_get_list_delim(node) == CMARK_PAREN_DELIM ? ')' : '.';
	unsigned long num = (unsigned long)cmark_node_get_list_start(node), count = 0;
	unsigned int width;
	bool first_item = true;
	int ret = 0;

	for (cmark_node *it = cmark_node_first_child(node); it; it = cmark_node_next(it))
		count++;
	width = digits(num + (count ? count - 1 : 0));
	for (cmark_node *it = cmark_node_first_child(node); it && !ret; it = cmark_node_next(it)) {
		char first[48], rest[48];
		int pushed;

		if (!first_item && tight)
			c->gap = false;
		first_item = false;
		ret = flush_gap(c, block_line(it));
		if (ret)
			break;
		if (ordered) {
			snprintf(first, sizeof(first), "%*lu%c ", (int)width, num++, paren);
			snprintf(rest, sizeof(rest), "%*s", (int)width + 2, "");
		} else {
			snprintf(first, sizeof(first), "%s", bullets[c->list_depth % 3]);
			snprintf(rest, sizeof(rest), "  ");
		}
		pushed = push_level(c, first, rest, LESSON_SPAN_INDENT, LESSON_STYLE_DIM | c->style);
		c->list_depth++;
		c->gap = false;
		if (!cmark_node_first_child(it)) {
			c->npcs = 0;
			ret = emit_pieces(c, LESSON_LINE_TEXT, 0, -1);
		}
		for (cmark_node *ch = cmark_node_first_child(it); ch && !ret;
		     ch = cmark_node_next(ch)) {
			if (tight && ch != cmark_node_first_child(it))
				c->gap = false;
			ret = layout_blocks(c, ch);
		}
		c->list_depth--;
		pop_level(c, pushed);
		c->gap = true;
	}
	return ret;
}

/*
 * Lay out @node (a block) and, for containers, what it holds. The recursion
 * is bounded: lesson_doc_parse() flattened whatever was nested deeper than
 * LESSON_MAX_NESTING, and the guard below holds even if it had not.
 */
static int layout_blocks(struct lay_ctx *c, cmark_node *node)
{
	int ret;

	if (c->depth > LESSON_MAX_NESTING + 1)
		return -ELOOP;
	c->depth++;
	ret = layout_block(c, node);
	c->depth--;
	return ret;
}

static int layout_block(struct lay_ctx *c, cmark_node *node)
{
	unsigned int line = block_line(node), old;
	char info[32];
	int ret = 0, pushed;

	switch (cmark_node_get_type(node)) {
	case CMARK_NODE_DOCUMENT:
		for (cmark_node *ch = cmark_node_first_child(node); ch && !ret;
		     ch = cmark_node_next(ch))
			ret = layout_blocks(c, ch);
		return ret;
	case CMARK_NODE_PARAGRAPH:
		ret = flush_gap(c, line);
		if (!ret)
			ret = layout_inline(c, node, 0, LESSON_LINE_TEXT, 0);
		break;
	case CMARK_NODE_HEADING: {
		unsigned int level = (unsigned int)cmark_node_get_heading_level(node);

		ret = flush_gap(c, line);
		if (!ret)
			ret = layout_inline(c, node, heading_style(level), LESSON_LINE_HEADING,
					    level);
		break;
	}
	case CMARK_NODE_CODE_BLOCK:
		ret = flush_gap(c, line);
		info_word(node, info, sizeof(info));
		if (!ret && !strcmp(info, "quiz"))
			ret = layout_quiz(c, node);
		else if (!ret)
			ret = layout_code(c, node, strcmp(info, "text") ? info : NULL);
		break;
	case CMARK_NODE_HTML_BLOCK:
		ret = flush_gap(c, line);
		if (!ret)
			ret = layout_html(c, node);
		break;
	case CMARK_NODE_THEMATIC_BREAK:
		ret = flush_gap(c, line);
		if (!ret)
			ret = layout_rule(c);
		break;
	case CMARK_NODE_BLOCK_QUOTE:
		ret = flush_gap(c, line);
		if (ret)
			break;
		pushed = push_level(c, "│ ", "│ ", LESSON_SPAN_QUOTE_BAR,
				    LESSON_STYLE_QUOTE | LESSON_STYLE_DIM);
		old = c->style;
		c->style |= LESSON_STYLE_QUOTE;
		c->gap = false;
		for (cmark_node *ch = cmark_node_first_child(node); ch && !ret;
		     ch = cmark_node_next(ch))
			ret = layout_blocks(c, ch);
		c->style = old;
		pop_level(c, pushed);
		break;
	case CMARK_NODE_LIST:
		ret = flush_gap(c, line);
		if (!ret)
			ret = layout_list(c, node);
		break;
	default:
		for (cmark_node *ch = cmark_node_first_child(node); ch && !ret;
		     ch = cmark_node_next(ch))
			ret = layout_blocks(c, ch);
		return ret;
	}
	c->gap = true;
	return ret;
}

static int layout_references(struct lay_ctx *c)
{
	const struct lesson_doc *doc = c->doc;
	struct inl in = { RT_BUF_INIT, NULL, 0, 0, 0 };
	int ret;

	if (!doc->nrefs)
		return 0;
	c->gap = true;
	ret = flush_gap(c, doc->nsrc_lines + 1);
	if (!ret)
		ret = inl_add(&in, "References", 10, LESSON_STYLE_HEADING2, 0, false);
	if (!ret)
		ret = wrap_runs(c, &in, LESSON_LINE_HEADING, 2, -1);
	inl_fini(&in);
	for (unsigned int n = 1; n <= doc->nrefs && !ret; n++) {
		const struct lesson_link *l = NULL;
		char first[24], rest[24];
		int pushed;

		for (size_t i = 0; i < doc->nlinks && !l; i++)
			if (doc->links[i].number == n)
				l = &doc->links[i];
		if (!l)
			continue;
		snprintf(first, sizeof(first), "[%u] ", n);
		snprintf(rest, sizeof(rest), "%*s", (int)strlen(first), "");
		pushed = push_level(c, first, rest, LESSON_SPAN_INDENT, LESSON_STYLE_DIM);
		memset(&in, 0, sizeof(in));
		ret = inl_add(&in, l->label, strlen(l->label), 0, n, false);
		if (!ret)
			ret = wrap_runs(c, &in, LESSON_LINE_TEXT, 0, -1);
		inl_fini(&in);
		pop_level(c, pushed);
	}
	return ret;
}

int lesson_doc_layout(const struct lesson_doc *doc, unsigned int width,
		      struct lesson_layout **out)
{
	struct lay_ctx c = { 0 };
	locale_t old;
	int ret;

	*out = NULL;
	if (!doc || width < LESSON_LAYOUT_MIN_WIDTH || width > LESSON_LAYOUT_MAX_WIDTH)
		return -EINVAL;
	c.lay = calloc(1, sizeof(*c.lay));
	if (!c.lay)
		return -ENOMEM;
	c.lay->width = width;
	c.lay->doc = doc;
	c.doc = doc;
	c.width = width;
	c.src = 1;
	old = u8_begin();
	ret = layout_blocks(&c, doc->root);
	if (!ret)
		ret = layout_references(&c);
	u8_end(old);
	free(c.pcs);
	if (ret) {
		lesson_layout_free(c.lay);
		return ret;
	}
	*out = c.lay;
	return 0;
}

size_t lesson_layout_find_source_line(const struct lesson_layout *lay, unsigned int src_line)
{
	for (size_t i = 0; i < lay->nlines; i++)
		if (lay->lines[i].src_line >= src_line)
			return i;
	return lay->nlines ? lay->nlines - 1 : 0;
}

int lesson_layout_line_text(const struct lesson_layout *lay, size_t i, struct rt_buf *out)
{
	const struct lesson_line *l = &lay->lines[i];
	int ret = 0;

	for (size_t k = 0; k < l->nspans && !ret; k++)
		ret = rt_buf_puts(out, l->spans[k].text);
	return ret;
}

/* @s as lower-case wide characters; NULL on invalid UTF-8 or no memory. */
static wchar_t *wide_lower(const char *s, size_t *n)
{
	size_t len = strlen(s), k = 0;
	wchar_t *w = malloc((len + 1) * sizeof(*w));
	mbstate_t st;

	if (!w)
		return NULL;
	memset(&st, 0, sizeof(st));
	while (*s) {
		size_t r = mbrtowc(&w[k], s, len, &st);

		if (r == 0 || r == (size_t)-1 || r == (size_t)-2) {
			free(w);
			return NULL;
		}
		w[k] = (wchar_t)towlower((wint_t)w[k]);
		k++;
		s += r;
		len -= r;
	}
	w[k] = 0;
	*n = k;
	return w;
}

static int search_line(const struct lesson_layout *lay, size_t i, const wchar_t *needle,
		       size_t nn, unsigned int *col)
{
	struct rt_buf b = RT_BUF_INIT;
	wchar_t *hay = NULL;
	size_t nh = 0;
	int found = -ENOENT;

	if (lesson_layout_line_text(lay, i, &b)) {
		found = -ENOMEM;
		goto out;
	}
	hay = wide_lower(rt_buf_str(&b), &nh);
	if (!hay)
		goto out;
	for (size_t k = 0; k + nn <= nh; k++) {
		size_t m = 0;

		while (m < nn && hay[k + m] == needle[m])
			m++;
		if (m < nn)
			continue;
		*col = 0;
		for (size_t j = 0; j < k; j++) {
			int w = wcwidth(hay[j]);

			*col += w > 0 ? (unsigned int)w : 0;
		}
		found = 0;
		break;
	}
out:
	free(hay);
	rt_buf_fini(&b);
	return found;
}

int lesson_layout_search(const struct lesson_layout *lay, const char *needle, size_t from,
			 int dir, size_t *line, unsigned int *col)
{
	wchar_t *wn = NULL;
	size_t nn = 0, n = lay->nlines;
	locale_t old;
	int ret = -ENOENT;

	if (!needle || !*needle)
		return -EINVAL;
	if (!n)
		return -ENOENT;
	old = u8_begin();
	wn = wide_lower(needle, &nn);
	if (!wn) {
		ret = -EINVAL;
		goto out;
	}
	if (from >= n)
		from = dir < 0 ? n - 1 : 0;
	for (size_t step = 0; step < n; step++) {
		size_t i = dir < 0 ? (from + n - step) % n : (from + step) % n;

		ret = search_line(lay, i, wn, nn, col);
		if (ret != -ENOENT) {
			if (!ret)
				*line = i;
			break;
		}
	}
out:
	u8_end(old);
	free(wn);
	return ret;
}

int lesson_layout_to_text(const struct lesson_layout *lay, struct rt_buf *out)
{
	unsigned int ul = 0;
	int ret = 0;

	for (size_t i = 0; i < lay->nlines && !ret; i++) {
		const struct lesson_line *l = &lay->lines[i];
		const struct lesson_line *next = i + 1 < lay->nlines ? &lay->lines[i + 1] : NULL;
		size_t start = out->len;
		bool frame_seen = false;

		if (l->kind == LESSON_LINE_FRAME)
			continue;
		for (size_t k = 0; k < l->nspans && !ret; k++) {
			const struct lesson_span *sp = &l->spans[k];

			if (sp->role == LESSON_SPAN_QUOTE_BAR)
				ret = rt_buf_puts(out, sp->cols > 1 ? "> " : ">");
			else if (sp->role == LESSON_SPAN_FRAME && !frame_seen)
				ret = rt_buf_puts(out, "    ");
			else if (sp->role != LESSON_SPAN_FRAME)
				ret = rt_buf_puts(out, sp->text);
			frame_seen |= sp->role == LESSON_SPAN_FRAME;
		}
		while (out->len > start && out->data[out->len - 1] == ' ')
			out->data[--out->len] = '\0';
		if (!ret)
			ret = rt_buf_puts(out, "\n");
		if (l->kind != LESSON_LINE_HEADING)
			continue;
		ul = l->cols > ul ? l->cols : ul;
		if (next && next->kind == LESSON_LINE_HEADING && next->src_line == l->src_line)
			continue;
		for (unsigned int k = 0; k < ul && !ret; k++)
			ret = rt_buf_puts(out, l->heading == 1 ? "=" : "-");
		if (!ret)
			ret = rt_buf_puts(out, "\n");
		ul = 0;
	}
	return ret;
}
