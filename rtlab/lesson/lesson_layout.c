/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lesson_layout: a lesson laid out into lines. Layout is a recursive walk
 * over the blocks with a stack of prefixes (quote bars, list markers with
 * their hanging indents). Each leaf block is turned into runs of styled
 * text, cut into words at spaces and filled greedily into lines of the room
 * left after the prefix. The prefix is cut when it would leave less than
 * LAYOUT_MIN_ROOM columns, so deep nesting in a narrow window degrades
 * instead of overflowing. Columns are counted by rt_utf8, as every front end
 * counts them.
 */
#include "lesson_doc.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmark.h>

#include "core/rt_buf.h"
#include "core/rt_utf8.h"
#include "lesson_doc-int.h"

#define LAYOUT_MIN_ROOM 8
#define LAYOUT_MAX_LEVELS 32

/* A piece of a line being filled: borrowed text with its style. */
struct piece {
	const char *s;
	size_t n;
	unsigned int cols;
	unsigned int style;
	unsigned int link;
};

/* Pieces in a row: the line being filled, or the word being gathered. */
struct pieces {
	struct piece *p;	/* owned */
	size_t n, cap;
	unsigned int cols;	/* of all of them */
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
	struct pieces line;	/* the line being filled */
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
	if (lesson_grow(&l->spans, cap, l->nspans, sizeof(*l->spans)))
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
		unsigned int cols;
		size_t cut;

		if (blank && lv->role != LESSON_SPAN_QUOTE_BAR)
			s = "";
		cut = rt_utf8_clip(s, strlen(s), left, &cols);
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

	if (lesson_grow(&lay->lines, &c->cap_lines, lay->nlines, sizeof(*lay->lines)))
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
	for (size_t i = 0; i < c->line.n && !ret; i++) {
		struct piece *p = &c->line.p[i];

		ret = line_add(l, &cap, p->s, p->n, p->cols, p->style, p->link,
			       LESSON_SPAN_TEXT);
	}
	c->line.n = 0;
	c->line.cols = 0;
	return ret;
}

/* Append a piece to @ps, merged into the last one when it continues it. */
static int pieces_add(struct pieces *ps, const char *s, size_t n, unsigned int cols,
		      unsigned int style, unsigned int link)
{
	struct piece *p;

	if (ps->n) {
		p = &ps->p[ps->n - 1];
		if (p->s + p->n == s && p->style == style && p->link == link) {
			p->n += n;
			p->cols += cols;
			ps->cols += cols;
			return 0;
		}
	}
	if (lesson_grow(&ps->p, &ps->cap, ps->n, sizeof(*ps->p)))
		return -ENOMEM;
	p = &ps->p[ps->n++];
	p->s = s;
	p->n = n;
	p->cols = cols;
	p->style = style;
	p->link = link;
	ps->cols += cols;
	return 0;
}

struct wrap {
	struct lay_ctx *c;
	enum lesson_line_kind kind;
	unsigned int heading;
	int quiz;
	unsigned int avail;
	struct pieces word;	/* the word being gathered */
};

/* Put the gathered word on the current line, a new line, or split it. */
static int flush_word(struct wrap *w)
{
	struct lay_ctx *c = w->c;
	int ret = 0;

	if (!w->word.n)
		return 0;
	if (c->line.n && c->line.cols + 1 + w->word.cols <= w->avail) {
		struct piece *last = &c->line.p[c->line.n - 1];
		unsigned int st = last->style & w->word.p[0].style;
		unsigned int lk = last->link == w->word.p[0].link ? last->link : 0;

		ret = pieces_add(&c->line, " ", 1, 1, st, lk);
	} else if (c->line.n) {
		ret = emit_pieces(c, w->kind, w->heading, w->quiz);
	}
	for (size_t i = 0; i < w->word.n && !ret; i++) {
		struct piece *p = &w->word.p[i];

		if (c->line.cols + p->cols <= w->avail) {
			ret = pieces_add(&c->line, p->s, p->n, p->cols, p->style, p->link);
			continue;
		}
		/* Too wide: split between characters. */
		for (size_t k = 0; k < p->n && !ret;) {
			struct rt_utf8_char ch;

			rt_utf8_next(p->s + k, p->n - k, &ch);
			if (c->line.cols + ch.cols > w->avail && c->line.n)
				ret = emit_pieces(c, w->kind, w->heading, w->quiz);
			if (!ret)
				ret = pieces_add(&c->line, p->s + k, ch.len, ch.cols, p->style, p->link);
			k += ch.len;
		}
	}
	w->word.n = 0;
	w->word.cols = 0;
	return ret;
}

/* Fill the runs of @in into lines of the room left by the prefix. */
static int wrap_runs(struct lay_ctx *c, const struct inl *in, enum lesson_line_kind kind,
		     unsigned int heading, int quiz)
{
	struct wrap w = { .c = c, .kind = kind, .heading = heading, .quiz = quiz };
	const char *text = rt_buf_str(&in->text);
	int ret = 0;

	w.avail = room(c);
	c->line.n = 0;
	c->line.cols = 0;
	for (size_t r = 0; r < in->nruns && !ret; r++) {
		const struct run *run = &in->runs[r];

		if (run->brk) {
			ret = flush_word(&w);
			if (!ret && c->line.n)
				ret = emit_pieces(c, kind, heading, quiz);
			continue;
		}
		for (size_t k = 0; k < run->n && !ret;) {
			const char *s = text + run->off + k;
			struct rt_utf8_char ch;

			if (*s == ' ') {
				ret = flush_word(&w);
				k++;
				continue;
			}
			rt_utf8_next(s, run->n - k, &ch);
			ret = pieces_add(&w.word, s, ch.len, ch.cols, run->style | c->style, run->link);
			k += ch.len;
		}
	}
	if (!ret)
		ret = flush_word(&w);
	if (!ret && c->line.n)
		ret = emit_pieces(c, kind, heading, quiz);
	free(w.word.p);
	return ret;
}

/* Append the character @ch at @s to @b, or '?' when it is unprintable. */
static int append_char(struct rt_buf *b, const char *s, const struct rt_utf8_char *ch)
{
	return ch->printable ? rt_buf_append(b, s, ch->len) : rt_buf_append(b, "?", 1);
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
		struct rt_utf8_char ch;

		if (spaces && (s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) {
			ret = rt_buf_append(b, " ", 1);
			i++;
			continue;
		}
		rt_utf8_next(s + i, n - i, &ch);
		ret = append_char(b, s + i, &ch);
		i += ch.len;
	}
	return ret;
}

static int inl_add(struct inl *in, const char *s, size_t n, unsigned int style,
		   unsigned int link, bool brk)
{
	struct run *r;
	size_t off = in->text.len;

	if (!brk && append_clean(&in->text, s, n, true))
		return -ENOMEM;
	if (lesson_grow(&in->runs, &in->cap, in->nruns, sizeof(*in->runs)))
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
	lv->cols = rt_utf8_width(lv->rest, strlen(lv->rest));
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
	unsigned int cols = rt_utf8_width(s, n), used = 0;
	size_t cap = 0, k;
	char pad[16];
	int ret;

	if (!l)
		return -ENOMEM;
	ret = add_prefix(c, l, &cap, false);
	if (!ret)
		ret = line_add(l, &cap, "│ ", strlen("│ "), 2, style, 0, LESSON_SPAN_FRAME);
	if (cols > inner) {
		k = rt_utf8_clip(s, n, inner - 1, &used);
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
	unsigned int lcols = label ? rt_utf8_width(label, strlen(label)) : 0;
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

		ret = lesson_grow(offs, &cap, n + 1, sizeof(**offs));
		if (ret)
			break;
		(*offs)[n++] = b->len;
		while (i < len && lit[i] != '\n' && !ret) {
			struct rt_utf8_char ch;

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
			rt_utf8_next(lit + i, len - i, &ch);
			ret = append_char(b, lit + i, &ch);
			col += ch.cols;
			i += ch.len;
		}
		i++;	/* the '\n' */
	}
	if (!ret)
		ret = lesson_grow(offs, &cap, n + 1, sizeof(**offs));
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
		unsigned int w = rt_utf8_width(b.data + offs[i], offs[i + 1] - offs[i]);

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

	c->line.n = 0;
	c->line.cols = 0;
	for (unsigned int i = 0; i < n && !ret; i++)
		ret = pieces_add(&c->line, "─", strlen("─"), 1, LESSON_STYLE_DIM | c->style, 0);
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
		ret = flush_gap(c, lesson_block_line(it));
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
			c->line.n = 0;
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
	unsigned int line = lesson_block_line(node), old;
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
		lesson_info_word(node, info, sizeof(info));
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
	ret = layout_blocks(&c, doc->root);
	if (!ret)
		ret = layout_references(&c);
	free(c.line.p);
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

