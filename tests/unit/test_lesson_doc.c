/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the lesson document model and its layout: wrapping at
 * several widths with double-width and combining characters, code boxes,
 * lists, quotes, links and references, headings, resize anchoring, search
 * and the plain text rendering; and nesting 50,000 deep, which is shown
 * flattened with a problem instead of overflowing the stack.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <cmark.h>

#include "core/rt_buf.h"
#include "core/rt_utf8.h"
#include "lesson/lesson_doc.h"
#include "lesson_labs_fixture.h"

static const unsigned int widths[] = { 20, 40, 80, 132 };

/* Columns counted independently of the code under test. */
static unsigned int width_of(const char *s)
{
	size_t n = mbstowcs(NULL, s, 0);
	wchar_t *w;
	int cols;

	assert_true(n != (size_t)-1);	/* valid UTF-8: no sequence was split */
	w = calloc(n + 1, sizeof(*w));
	assert_non_null(w);
	mbstowcs(w, s, n + 1);
	cols = wcswidth(w, n);
	free(w);
	assert_true(cols >= 0);		/* printable only */
	return (unsigned int)cols;
}

static struct lesson_doc *parse(const char *md)
{
	struct lesson_doc *doc = NULL;
	char *cause = NULL;

	assert_int_equal(lesson_doc_parse(md, strlen(md), "t.md", &doc, &cause), 0);
	assert_null(cause);
	return doc;
}

static struct lesson_layout *layout(const struct lesson_doc *doc, unsigned int width)
{
	struct lesson_layout *lay = NULL;

	assert_int_equal(lesson_doc_layout(doc, width, &lay), 0);
	assert_non_null(lay);
	return lay;
}

static char *line_text(const struct lesson_layout *lay, size_t i)
{
	struct rt_buf b = RT_BUF_INIT;

	assert_int_equal(lesson_layout_line_text(lay, i, &b), 0);
	return rt_buf_take(&b);
}

static char *plain(const char *md, unsigned int width)
{
	struct lesson_doc *doc = parse(md);
	struct lesson_layout *lay = layout(doc, width);
	struct rt_buf b = RT_BUF_INIT;

	assert_int_equal(lesson_layout_to_text(lay, &b), 0);
	lesson_layout_free(lay);
	lesson_doc_free(doc);
	return rt_buf_take(&b);
}

/* Every line fits, and the recorded columns match the text. */
static void check_widths(const struct lesson_layout *lay)
{
	for (size_t i = 0; i < lay->nlines; i++) {
		const struct lesson_line *l = &lay->lines[i];
		char *t = line_text(lay, i);
		unsigned int sum = 0;

		for (size_t k = 0; k < l->nspans; k++) {
			assert_int_equal(width_of(l->spans[k].text), l->spans[k].cols);
			sum += l->spans[k].cols;
		}
		assert_int_equal(sum, l->cols);
		if (width_of(t) > lay->width)
			fail_msg("line %zu '%s' is %u columns, width %u", i, t, width_of(t),
				 lay->width);
		free(t);
	}
}

static const char wide_md[] =
	"# Wide text\n"
	"\n"
	"Latin words mixed with 日本語のテキスト and 中文字符串 plus emoji 😀🎉 and "
	"combining cafe\xcc\x81 nai\xcc\x88ve re\xcc\x81sume\xcc\x81 marks, a "
	"verylongwordthatcannotfitinanarrowcolumnatallxyz and a long CJK run "
	"漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字 then **bold words** and "
	"`inline code` and *emphasis that goes on* to the end.\n"
	"\n"
	"- item with 😀 emoji and 日本 text that wraps around more than once here\n"
	"  1. nested numbered item with more words to wrap around and around\n"
	"     > a quote in a list with 漢字 and text that wraps\n"
	"\n"
	"> quoted paragraph one with enough words to wrap at twenty columns\n"
	">\n"
	"> quoted paragraph two\n"
	"\n"
	"```c\n"
	"int main(void) { return printf(\"a line far longer than twenty columns\\n\"); }\n"
	"\tindented with a tab 漢字\n"
	"```\n";

static void test_widths_never_exceeded(void **state)
{
	struct lesson_doc *doc = parse(wide_md);

	(void)state;
	for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
		struct lesson_layout *lay = layout(doc, widths[w]);
		struct rt_buf b = RT_BUF_INIT;
		char *save, *line;

		assert_int_equal(lay->width, widths[w]);
		check_widths(lay);
		assert_int_equal(lesson_layout_to_text(lay, &b), 0);
		for (line = strtok_r(b.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			assert_true(width_of(line) <= widths[w]);
		rt_buf_fini(&b);
		lesson_layout_free(lay);
	}
	/* The narrowest width and deep nesting still fit. */
	{
		struct rt_buf md = RT_BUF_INIT;
		struct lesson_layout *lay;
		struct lesson_doc *deep;

		for (int i = 0; i < 40; i++)
			rt_buf_puts(&md, "> - ");
		rt_buf_puts(&md, "deep 漢字漢字漢字 text\n");
		deep = parse(rt_buf_str(&md));
		lay = layout(deep, LESSON_LAYOUT_MIN_WIDTH);
		check_widths(lay);
		assert_true(lay->nlines > 0);
		lesson_layout_free(lay);
		lesson_doc_free(deep);
		rt_buf_fini(&md);
	}
	lesson_doc_free(doc);
}

static void test_width_limits(void **state)
{
	struct lesson_doc *doc = parse("# T\n\ntext\n");
	struct lesson_layout *lay = (struct lesson_layout *)1;

	(void)state;
	assert_int_equal(lesson_doc_layout(doc, LESSON_LAYOUT_MIN_WIDTH - 1, &lay), -EINVAL);
	assert_null(lay);
	assert_int_equal(lesson_doc_layout(doc, LESSON_LAYOUT_MAX_WIDTH + 1, &lay), -EINVAL);
	lesson_layout_free(NULL);
	lesson_doc_free(doc);
	lesson_doc_free(NULL);
}

/* Words of the text spans of TEXT lines, in order. */
static char *content_words(const struct lesson_layout *lay)
{
	struct rt_buf b = RT_BUF_INIT;

	for (size_t i = 0; i < lay->nlines; i++) {
		const struct lesson_line *l = &lay->lines[i];

		if (l->kind != LESSON_LINE_TEXT)
			continue;
		for (size_t k = 0; k < l->nspans; k++)
			if (l->spans[k].role == LESSON_SPAN_TEXT)
				rt_buf_puts(&b, l->spans[k].text);
		rt_buf_puts(&b, " ");
	}
	return rt_buf_take(&b);
}

static void normalise_spaces(char *s)
{
	char *start = s, *d = s;
	bool sp = true;

	for (; *s; s++) {
		if (*s == ' ' || *s == '\n') {
			if (!sp)
				*d++ = ' ';
			sp = true;
		} else {
			*d++ = *s;
			sp = false;
		}
	}
	if (d > start && d[-1] == ' ')
		d--;
	*d = '\0';
}

static void test_words_not_lost(void **state)
{
	static const char words[] =
		"The quick brown fox jumps over the lazy dog while 日本語 and 中文 "
		"words mix with emoji 😀 and cafe\xcc\x81 combining marks; "
		"short a b c d e f g h i j k l m n o p q r s t u v w x y z words "
		"and punctuation, like this: (parentheses) [brackets] {braces}.";
	struct rt_buf md = RT_BUF_INIT;
	char *expect = strdup(words);

	(void)state;
	rt_buf_printf(&md, "%s\n\n- %s\n\n> %s\n", words, words, words);
	normalise_spaces(expect);
	for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
		struct lesson_doc *doc = parse(rt_buf_str(&md));
		struct lesson_layout *lay = layout(doc, widths[w]);
		char *got = content_words(lay);
		char *all;

		normalise_spaces(got);
		assert_int_equal(asprintf(&all, "%s %s %s", expect, expect, expect) > 0, 1);
		assert_string_equal(got, all);
		free(all);
		free(got);
		lesson_layout_free(lay);
		lesson_doc_free(doc);
	}
	free(expect);
	rt_buf_fini(&md);
}

static void test_long_word_split(void **state)
{
	struct lesson_doc *doc = parse("abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ\n\n"
				       "漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字\n");
	struct lesson_layout *lay = layout(doc, 20);
	struct rt_buf joined = RT_BUF_INIT;

	(void)state;
	check_widths(lay);
	/* The Latin word: 46 columns in lines of 20, 20 and 6. */
	for (size_t i = 0; i < 3; i++) {
		char *t = line_text(lay, i);

		assert_int_equal(width_of(t), i < 2 ? 20 : 6);
		rt_buf_puts(&joined, t);
		free(t);
	}
	assert_string_equal(rt_buf_str(&joined), "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ");
	rt_buf_reset(&joined);
	assert_int_equal(lay->lines[3].kind, LESSON_LINE_BLANK);
	/* The CJK word: 22 characters of 2 columns, 10 per line. */
	for (size_t i = 4; i < lay->nlines; i++) {
		char *t = line_text(lay, i);

		assert_int_equal(width_of(t), i < 6 ? 20 : 4);
		rt_buf_puts(&joined, t);
		free(t);
	}
	assert_int_equal(lay->nlines, 7);
	assert_string_equal(rt_buf_str(&joined), "漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字");
	rt_buf_fini(&joined);
	lesson_layout_free(lay);
	lesson_doc_free(doc);
}

static void test_code_box(void **state)
{
	static const char md[] =
		"```text\n"
		"+--+\n"
		"|  |   a diagram line that is much longer than the box can hold\n"
		"+--+\n"
		"```\n";
	struct lesson_doc *doc = parse(md);
	struct lesson_layout *lay = layout(doc, 30);
	char *t;

	(void)state;
	check_widths(lay);
	assert_int_equal(lay->nlines, 5);
	t = line_text(lay, 0);
	assert_string_equal(t, "┌────────────────────────────┐");
	free(t);
	assert_int_equal(lay->lines[0].kind, LESSON_LINE_FRAME);
	assert_int_equal(lay->lines[1].kind, LESSON_LINE_CODE);
	assert_int_equal(lay->lines[1].src_line, 2);
	assert_int_equal(lay->lines[3].src_line, 4);
	assert_int_equal(lay->lines[4].src_line, 5);
	t = line_text(lay, 1);
	assert_string_equal(t, "│ +--+                       │");
	free(t);
	t = line_text(lay, 2);	/* cut, not wrapped */
	assert_string_equal(t, "│ |  |   a diagram line tha… │");
	free(t);
	t = line_text(lay, 4);
	assert_string_equal(t, "└────────────────────────────┘");
	free(t);
	for (size_t k = 0; k < lay->lines[1].nspans; k++)
		assert_true(lay->lines[1].spans[k].style & LESSON_STYLE_CODEBLOCK);
	lesson_layout_free(lay);
	lesson_doc_free(doc);

	/* A narrow box sized to its content, with the language in the top edge. */
	t = plain("```c\nint x;\n```\n", 40);
	assert_string_equal(t, "    int x;\n");
	free(t);
	doc = parse("```c\nint x;\n```\n");
	lay = layout(doc, 40);
	t = line_text(lay, 0);
	assert_string_equal(t, "┌─ c ────┐");
	free(t);
	t = line_text(lay, 1);
	assert_string_equal(t, "│ int x; │");
	free(t);
	lesson_layout_free(lay);
	lesson_doc_free(doc);

	/* Plain text: no box, indented, long lines still cut, tabs expanded. */
	t = plain(md, 30);
	assert_string_equal(t, "    +--+\n"
			       "    |  |   a diagram line tha…\n"
			       "    +--+\n");
	free(t);
	t = plain("```\na\tb\n```\n", 30);
	assert_string_equal(t, "    a       b\n");
	free(t);
}

static void test_lists_and_quotes(void **state)
{
	static const char md[] =
		"- alpha beta gamma delta epsilon zeta\n"
		"  - one two three four five six seven\n"
		"- omega\n"
		"\n"
		"para\n"
		"\n"
		"9. nine nine nine nine nine nine\n"
		"10. ten\n"
		"\n"
		"> quoted text that wraps onto more lines\n"
		">\n"
		"> - in a quote\n";
	char *t = plain(md, 24);

	(void)state;
	assert_string_equal(t,
			    "• alpha beta gamma delta\n"
			    "  epsilon zeta\n"
			    "  ◦ one two three four\n"
			    "    five six seven\n"
			    "• omega\n"
			    "\n"
			    "para\n"
			    "\n"
			    " 9. nine nine nine nine\n"
			    "    nine nine\n"
			    "10. ten\n"
			    "\n"
			    "> quoted text that wraps\n"
			    "> onto more lines\n"
			    ">\n"
			    "> • in a quote\n");
	free(t);

	/* A loose list keeps blank lines between items; the pager sees quote bars. */
	{
		struct lesson_doc *doc = parse("- a\n\n- b\n\n> q\n>\n> r\n");
		struct lesson_layout *lay = layout(doc, 20);
		char *l;

		assert_int_equal(lay->nlines, 7);
		assert_int_equal(lay->lines[1].kind, LESSON_LINE_BLANK);
		l = line_text(lay, 4);
		assert_string_equal(l, "│ q");
		free(l);
		l = line_text(lay, 5);
		assert_string_equal(l, "│");
		free(l);
		assert_int_equal(lay->lines[4].spans[0].role, LESSON_SPAN_QUOTE_BAR);
		assert_true(lay->lines[4].spans[1].style & LESSON_STYLE_QUOTE);
		lesson_layout_free(lay);
		lesson_doc_free(doc);
	}
}

/* A link to a lab still to come: every lab of the course has landed, so say one is planned. */
static bool lookup_hypervisor_planned(const char *name, bool *planned)
{
	if (!strcmp(name, "hypervisor")) {
		*planned = true;
		return true;
	}
	return fixture_lab_lookup(name, planned);
}

static void test_links_and_references(void **state)
{
	static const char md[] =
		"# Links\n"
		"\n"
		"See the [hypervisor lab](rtlab:lab/hypervisor), [site](https://example.org/x),\n"
		"[lesson](rtlab:lesson/03), [term](rtlab:glossary#jitter) and\n"
		"[site again](https://example.org/x).\n";
	struct lesson_doc *doc;
	char *t;

	(void)state;
	lesson_labs_set(lookup_hypervisor_planned);
	doc = parse(md);
	assert_int_equal(doc->nlinks, 5);
	assert_int_equal(doc->nrefs, 4);
	assert_int_equal(doc->links[0].kind, LESSON_LINK_LAB);
	assert_string_equal(doc->links[0].target, "hypervisor");
	assert_true(doc->links[0].resolved);
	assert_true(doc->links[0].planned);
	assert_int_equal(doc->links[1].kind, LESSON_LINK_URL);
	assert_int_equal(doc->links[2].kind, LESSON_LINK_LESSON);
	assert_string_equal(doc->links[2].target, "03");
	assert_false(doc->links[2].resolved);
	assert_int_equal(doc->links[2].line, 4);
	assert_int_equal(doc->links[3].kind, LESSON_LINK_GLOSSARY);
	assert_string_equal(doc->links[3].text, "term");
	assert_int_equal(doc->links[4].number, 2);
	assert_int_equal(doc->nproblems, 0);
	lesson_doc_free(doc);

	t = plain(md, 60);
	assert_string_equal(t,
			    "Links\n"
			    "=====\n"
			    "\n"
			    "See the hypervisor lab[1], site[2], lesson[3], term[4] and\n"
			    "site again[2].\n"
			    "\n"
			    "References\n"
			    "----------\n"
			    "[1] hypervisor lab (coming)\n"
			    "[2] https://example.org/x\n"
			    "[3] lesson 03 (coming)\n"
			    "[4] glossary: jitter (not in the glossary)\n");
	free(t);

	/* Link spans carry the style and the reference number. */
	doc = parse(md);
	{
		struct lesson_layout *lay = layout(doc, 60);
		const struct lesson_line *l = &lay->lines[2];
		bool seen = false;

		for (size_t k = 0; k < l->nspans; k++) {
			if (!strcmp(l->spans[k].text, "hypervisor lab")) {
				assert_true(l->spans[k].style & LESSON_STYLE_LINK);
				assert_int_equal(l->spans[k].link, 1);
				seen = true;
			}
		}
		assert_true(seen);
		lesson_layout_free(lay);
	}
	lesson_doc_free(doc);
	fixture_lesson_labs_init();
}

static void test_headings_toc(void **state)
{
	static const char md[] =
		"# Title here\n\nIntro.\n\n## Section one\n\ntext\n\n### Sub *part*\n\n"
		"## Section two with a heading long enough to wrap\n";
	struct lesson_doc *doc = parse(md);
	struct lesson_layout *lay = layout(doc, 20);
	char *t;

	(void)state;
	assert_string_equal(doc->title, "Title here");
	assert_int_equal(doc->ntoc, 4);
	assert_int_equal(doc->toc[0].level, 1);
	assert_int_equal(doc->toc[1].level, 2);
	assert_int_equal(doc->toc[1].line, 5);
	assert_string_equal(doc->toc[2].text, "Sub part");
	assert_int_equal(doc->toc[2].level, 3);
	assert_int_equal(doc->toc[3].line, 11);
	assert_int_equal(lay->lines[0].kind, LESSON_LINE_HEADING);
	assert_int_equal(lay->lines[0].heading, 1);
	assert_true(lay->lines[0].spans[0].style & LESSON_STYLE_HEADING1);
	for (size_t i = 0; i < doc->ntoc; i++) {
		size_t at = lesson_layout_find_source_line(lay, doc->toc[i].line);

		assert_int_equal(lay->lines[at].kind, LESSON_LINE_HEADING);
		assert_int_equal(lay->lines[at].heading, doc->toc[i].level);
	}
	lesson_layout_free(lay);
	lesson_doc_free(doc);

	t = plain(md, 20);
	assert_string_equal(t, "Title here\n==========\n\nIntro.\n\nSection one\n-----------\n\n"
			       "text\n\nSub part\n--------\n\nSection two with a\n"
			       "heading long enough\nto wrap\n-------------------\n");
	free(t);

	/* No title: a problem, and the name stands in. */
	doc = parse("Just text.\n");
	assert_string_equal(doc->title, "t.md");
	assert_int_equal(doc->nproblems, 1);
	assert_string_equal(doc->problems[0].msg, "t.md:1: the first line must be the title, "
						  "'# Title'");
	lesson_doc_free(doc);
}

static void test_source_line_stable(void **state)
{
	struct lesson_doc *doc = parse(wide_md);
	struct lesson_layout *lays[4];

	(void)state;
	for (size_t w = 0; w < 4; w++)
		lays[w] = layout(doc, widths[w]);
	for (size_t w = 0; w < 4; w++) {
		for (size_t i = 0; i < lays[w]->nlines; i++) {
			unsigned int src = lays[w]->lines[i].src_line;

			if (i)	/* blocks stay in source order */
				assert_true(src >= lays[w]->lines[i - 1].src_line);
			for (size_t v = 0; v < 4; v++) {
				const struct lesson_layout *o = lays[v];
				size_t at = lesson_layout_find_source_line(o, src);

				assert_int_equal(o->lines[at].src_line, src);
				assert_true(at == 0 || o->lines[at - 1].src_line < src);
			}
		}
	}
	assert_int_equal(lesson_layout_find_source_line(lays[0], 100000), lays[0]->nlines - 1);
	assert_int_equal(lesson_layout_find_source_line(lays[0], 0), 0);
	for (size_t w = 0; w < 4; w++)
		lesson_layout_free(lays[w]);
	lesson_doc_free(doc);
}

static void test_search(void **state)
{
	static const char md[] =
		"# Search\n\nfirst Needle here\n\n漢字 needle after wide\n\nnothing\n\n"
		"L'ÉTÉ est là\n";
	struct lesson_doc *doc = parse(md);
	struct lesson_layout *lay = layout(doc, 40);
	unsigned int col = 99;
	size_t line = 99;

	(void)state;
	/* lines: 0 Search, 1 blank, 2 first, 3 blank, 4 漢字, 5 blank, 6 nothing, 7 blank, 8 été */
	assert_int_equal(lay->nlines, 9);
	assert_int_equal(lesson_layout_search(lay, "NEEDLE", 0, 1, &line, &col), 0);
	assert_int_equal(line, 2);
	assert_int_equal(col, 6);
	assert_int_equal(lesson_layout_search(lay, "needle", line + 1, 1, &line, &col), 0);
	assert_int_equal(line, 4);
	assert_int_equal(col, 5);	/* after two double-width characters and a space */
	/* Forward from the last line wraps to the top. */
	assert_int_equal(lesson_layout_search(lay, "needle", line + 1, 1, &line, &col), 0);
	assert_int_equal(line, 2);
	/* Backward, and wrapping past the top. */
	assert_int_equal(lesson_layout_search(lay, "needle", 8, -1, &line, &col), 0);
	assert_int_equal(line, 4);
	assert_int_equal(lesson_layout_search(lay, "needle", 1, -1, &line, &col), 0);
	assert_int_equal(line, 4);
	/* The start line itself counts. */
	assert_int_equal(lesson_layout_search(lay, "needle", 2, -1, &line, &col), 0);
	assert_int_equal(line, 2);
	/* Case folding beyond ASCII. */
	assert_int_equal(lesson_layout_search(lay, "l'été", 0, 1, &line, &col), 0);
	assert_int_equal(line, 8);
	assert_int_equal(col, 0);
	assert_int_equal(lesson_layout_search(lay, "absent", 3, 1, &line, &col), -ENOENT);
	assert_int_equal(lesson_layout_search(lay, "", 3, 1, &line, &col), -EINVAL);
	assert_int_equal(lesson_layout_search(lay, "\xff", 3, 1, &line, &col), -EINVAL);
	/* An out-of-range start is clamped. */
	assert_int_equal(lesson_layout_search(lay, "search", 1000, 1, &line, &col), 0);
	assert_int_equal(line, 0);
	lesson_layout_free(lay);
	lesson_doc_free(doc);
}

static void test_quiz_blocks(void **state)
{
	static const char md[] =
		"# Q\n"
		"\n"
		"```quiz\n"
		"id: a\n"
		"kind: single\n"
		"question: Pick **one** of these options please\n"
		"- [x] yes\n"
		"- [ ] no\n"
		"explain: e\n"
		"```\n"
		"\n"
		"```quiz\n"
		"id: b\n"
		"kind: single\n"
		"```\n";
	struct lesson_doc *doc = parse(md);
	struct lesson_layout *lay = layout(doc, 30);
	char *t;

	(void)state;
	assert_int_equal(doc->nquizzes, 1);
	assert_string_equal(doc->quizzes[0]->id, "a");
	assert_int_equal(doc->quizzes[0]->line, 3);
	assert_int_equal(doc->nproblems, 1);
	assert_string_equal(doc->problems[0].msg, "t.md:12: missing key 'question'");
	assert_int_equal(doc->problems[0].line, 12);
	t = line_text(lay, 2);
	assert_string_equal(t, "Quiz: Pick one of these");
	free(t);
	assert_int_equal(lay->lines[2].kind, LESSON_LINE_QUIZ);
	assert_int_equal(lay->lines[2].quiz, 0);
	assert_int_equal(lay->lines[3].quiz, 0);
	assert_int_equal(lay->lines[2].src_line, 3);
	assert_true(lay->lines[2].spans[0].style & LESSON_STYLE_BOLD);
	/* The broken block is shown as such, not as a quiz. */
	assert_int_equal(lay->lines[5].kind, LESSON_LINE_TEXT);
	assert_int_equal(lay->lines[5].quiz, -1);
	assert_int_equal(lay->lines[5].src_line, 12);
	lesson_layout_free(lay);
	lesson_doc_free(doc);
}

static void test_unprintable_and_html(void **state)
{
	char *t = plain("esc \x1b[31mred\x07 bell\n\n<div>\nraw\n</div>\n\n***\n", 20);
	struct lesson_doc *doc;

	(void)state;
	assert_string_equal(t, "esc ?[31mred? bell\n\n<div>\nraw\n</div>\n\n"
			       "────────────────────\n");
	free(t);
	doc = parse("# T\n\nbad \xff\xfe bytes\n");
	{
		struct lesson_layout *lay = layout(doc, 20);

		check_widths(lay);
		lesson_layout_free(lay);
	}
	lesson_doc_free(doc);
}

static void test_text_cols_and_words(void **state)
{
	struct lesson_doc *doc;

	(void)state;
	assert_int_equal(rt_utf8_width("日本", strlen("日本")), 4);
	assert_int_equal(rt_utf8_width("e\xcc\x81", 3), 1);
	assert_int_equal(rt_utf8_width("😀", strlen("😀")), 2);
	assert_int_equal(rt_utf8_width("\x1b", 1), 1);
	doc = parse("# Two words\n\nthree more words, and - a dash.\n\n```c\nnot counted\n```\n\n"
		    "- one\n\n> two\n");
	assert_int_equal(lesson_doc_word_count(doc), 2 + 6 + 2);
	lesson_doc_free(doc);
}

static void test_search_highlights(void **state)
{
	static const char md[] =
		"# Hi\n\nNeedle needle NEEDLE \xe6\xbc\xa2\xe5\xad\x97needle\n\nnone\n\n"
		"caf\xc3\xa9 CAF\xc3\x89\n";
	struct lesson_doc *doc = parse(md);
	struct lesson_layout *lay = layout(doc, 80);
	unsigned int cols[8];

	(void)state;
	/* lines: 0 Hi, 1 blank, 2 needles, 3 blank, 4 none, 5 blank, 6 café */
	assert_int_equal(lesson_layout_line_matches(lay, 2, "needle", cols, 4), 4);
	assert_int_equal(cols[0], 0);
	assert_int_equal(cols[1], 6);
	assert_int_equal(cols[2], 7);
	assert_int_equal(cols[4], 14);
	/* After two double-width characters. */
	assert_int_equal(cols[6], 25);
	assert_int_equal(cols[7], 31);
	assert_int_equal(lesson_layout_line_matches(lay, 2, "needle", cols, 2), 2);
	assert_int_equal(lesson_layout_line_matches(lay, 2, "\xe5\xad\x97n", cols, 4), 1);
	assert_int_equal(cols[0], 23);
	assert_int_equal(cols[1], 26);
	/* Case folding beyond ASCII: café and CAFÉ both match. */
	assert_int_equal(lesson_layout_line_matches(lay, 6, "CAF\xc3\xa9", cols, 4), 2);
	assert_int_equal(cols[2], 5);
	assert_int_equal(cols[3], 9);
	assert_int_equal(lesson_layout_line_matches(lay, 4, "needle", cols, 4), 0);
	assert_int_equal(lesson_layout_line_matches(lay, 2, "", cols, 4), 0);
	assert_int_equal(lesson_layout_line_matches(lay, 2, "\xff", cols, 4), 0);
	assert_int_equal(lesson_layout_line_matches(lay, 99, "needle", cols, 4), 0);
	assert_int_equal(lesson_layout_match_count(lay, "needle"), 1);
	assert_int_equal(lesson_layout_match_count(lay, "n"), 2);
	assert_int_equal(lesson_layout_match_count(lay, "absent"), 0);
	assert_int_equal(lesson_layout_match_count(lay, "\xff"), 0);
	lesson_layout_free(lay);
	lesson_doc_free(doc);
}

static void test_anchor_line(void **state)
{
	struct lesson_doc *doc = parse("# Glossary\n\n## Wake-up latency\n\ntext\n\n## Jitter\n");

	(void)state;
	assert_int_equal(lesson_doc_anchor_line(doc, "wake-up-latency"), 3);
	assert_int_equal(lesson_doc_anchor_line(doc, "jitter"), 7);
	/* Compared as anchors, as lesson_doc_resolve() compares them. */
	assert_int_equal(lesson_doc_anchor_line(doc, "Jitter"), 7);
	assert_int_equal(lesson_doc_anchor_line(doc, "glossary"), 1);
	assert_int_equal(lesson_doc_anchor_line(doc, "nope"), 0);
	assert_int_equal(lesson_doc_anchor_line(doc, ""), 0);
	assert_int_equal(lesson_doc_anchor_line(doc, "--"), 0);
	lesson_doc_free(doc);
}

/* The layout of wide and combining text is the same when the process runs in the C locale. */
static void test_same_in_c_locale(void **state)
{
	struct lesson_doc *doc = parse(wide_md);
	struct rt_buf a = RT_BUF_INIT, b = RT_BUF_INIT;
	struct lesson_layout *la = layout(doc, 30), *lb;
	size_t line;
	unsigned int col;

	(void)state;
	assert_int_equal(lesson_layout_to_text(la, &a), 0);
	assert_non_null(setlocale(LC_ALL, "C"));
	lb = layout(doc, 30);
	assert_int_equal(lesson_layout_to_text(lb, &b), 0);
	assert_int_equal(la->nlines, lb->nlines);
	for (size_t i = 0; i < la->nlines; i++)
		assert_int_equal(la->lines[i].cols, lb->lines[i].cols);
	assert_string_equal(rt_buf_str(&a), rt_buf_str(&b));
	/* Wide characters are kept, not turned into '?', and found by search. */
	assert_non_null(strstr(rt_buf_str(&b), "\xe6\x97\xa5\xe6\x9c\xac"));
	assert_int_equal(lesson_layout_search(lb, "\xe6\xbc\xa2\xe5\xad\x97 THEN", 0, 1, &line,
						      &col), 0);
	assert_int_equal(lesson_layout_search(lb, "CAFE\xcc\x81", 0, 1, &line, &col), 0);
	assert_non_null(setlocale(LC_ALL, "C.UTF-8"));
	lesson_layout_free(la);
	lesson_layout_free(lb);
	lesson_doc_free(doc);
	rt_buf_fini(&a);
	rt_buf_fini(&b);
}

/* "# Deep\n\n" + @n times @open + "x" + @n times @close + "\n" */
static char *deep_md(const char *open, const char *close, size_t n)
{
	struct rt_buf b = RT_BUF_INIT;

	assert_int_equal(rt_buf_puts(&b, "# Deep\n\n"), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(rt_buf_puts(&b, open), 0);
	assert_int_equal(rt_buf_puts(&b, "x"), 0);
	for (size_t i = 0; close && i < n; i++)
		assert_int_equal(rt_buf_puts(&b, close), 0);
	assert_int_equal(rt_buf_puts(&b, "\n"), 0);
	return rt_buf_take(&b);
}

/* Containers on the deepest path of the tree, the document not counted. */
static unsigned int tree_depth(const struct lesson_doc *doc)
{
	cmark_iter *it = cmark_iter_new(doc->root);
	unsigned int depth = 0, max = 0;
	cmark_event_type ev;

	assert_non_null(it);
	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *n = cmark_iter_get_node(it);

		if (n == doc->root || !cmark_node_first_child(n))
			continue;
		if (ev == CMARK_EVENT_ENTER && ++depth > max)
			max = depth;
		else if (ev == CMARK_EVENT_EXIT)
			depth--;
	}
	cmark_iter_free(it);
	return max;
}

static size_t count_problems(const struct lesson_doc *doc, const char *part)
{
	size_t n = 0;

	for (size_t i = 0; i < doc->nproblems; i++)
		if (strstr(doc->problems[i].msg, part))
			n++;
	return n;
}

static void test_deep_nesting(void **state)
{
	static const struct {
		const char *open, *close;
	} kinds[] = {
		{ ">", NULL },			/* block quotes */
		{ "- ", NULL },			/* bullet lists */
		{ "1. ", NULL },		/* ordered lists */
		{ "> - ", NULL },		/* both */
		{ "*", "*" },			/* emphasis and strong */
		{ "![", "](http://a)" },	/* images in images */
	};
	char want[96];

	(void)state;
	snprintf(want, sizeof(want), "t.md:3: nesting deeper than %u levels", LESSON_MAX_NESTING);
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		char *md = deep_md(kinds[k].open, kinds[k].close, 50000);
		struct lesson_doc *doc = parse(md);
		struct lesson_layout *lay;
		size_t line;
		unsigned int col;

		if (count_problems(doc, want) != 1)
			fail_msg("'%s' x 50000: %zu problems, none or several '%s'", kinds[k].open,
				 doc->nproblems, want);
		assert_true(tree_depth(doc) <= LESSON_MAX_NESTING + 1);
		lay = layout(doc, 40);
		check_widths(lay);
		/* The text at the bottom is still there, as plain text. */
		assert_int_equal(lesson_layout_search(lay, "x", 0, 1, &line, &col), 0);
		lesson_layout_free(lay);
		lesson_doc_free(doc);
		free(md);
	}

	/* Exactly as deep as allowed: no problem; one level more: the problem. */
	{
		char *ok = deep_md(">", NULL, LESSON_MAX_NESTING);
		char *over = deep_md(">", NULL, LESSON_MAX_NESTING + 1);
		struct lesson_doc *a = parse(ok), *b = parse(over);
		struct lesson_layout *lay = layout(a, 200);
		unsigned int col, bars = 0;
		size_t line;
		char *t;

		assert_int_equal(count_problems(a, "nesting"), 0);
		assert_int_equal(count_problems(b, want), 1);
		/* Every level still has its quote bar. */
		assert_int_equal(lesson_layout_search(lay, "x", 0, 1, &line, &col), 0);
		t = line_text(lay, line);
		for (const char *p = t; (p = strstr(p, "\xe2\x94\x82")); p += 3)
			bars++;
		assert_int_equal(bars, LESSON_MAX_NESTING);
		free(t);
		lesson_layout_free(lay);
		lesson_doc_free(a);
		lesson_doc_free(b);
		free(ok);
		free(over);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_widths_never_exceeded),
		cmocka_unit_test(test_width_limits),
		cmocka_unit_test(test_words_not_lost),
		cmocka_unit_test(test_long_word_split),
		cmocka_unit_test(test_code_box),
		cmocka_unit_test(test_lists_and_quotes),
		cmocka_unit_test(test_links_and_references),
		cmocka_unit_test(test_headings_toc),
		cmocka_unit_test(test_source_line_stable),
		cmocka_unit_test(test_search),
		cmocka_unit_test(test_quiz_blocks),
		cmocka_unit_test(test_unprintable_and_html),
		cmocka_unit_test(test_text_cols_and_words),
		cmocka_unit_test(test_search_highlights),
		cmocka_unit_test(test_anchor_line),
		cmocka_unit_test(test_same_in_c_locale),
		cmocka_unit_test(test_deep_nesting),
	};

	fixture_lesson_labs_init();
	if (!setlocale(LC_ALL, "C.UTF-8"))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
