/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_quiz: the screen is built as a list of rows (question lines, options,
 * the input field, the verdict, the explanation) and then drawn in a box;
 * when the rows do not fit, the box scrolls to keep the highlighted option,
 * or after answering the verdict and the explanation, on screen. Letters
 * name the options, so "b" in the progress file is the second option as
 * written in the lesson.
 */
#include "ui_quiz.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "labs/lab.h"
#include "lesson/lesson_doc.h"
#include "lesson/lesson_progress.h"
#include "ui_frame.h"
#include "ui_reader.h"
#include "ui_text.h"
#include "ui_theme.h"

#define QUIZ_KEY_ESC 27
#define QUIZ_MAX_ROWS 256
#define QUIZ_MAX_LETTERS 26

int ui_quiz_init(struct ui_quiz *z, const struct quiz *q, const char *lesson)
{
	memset(z, 0, sizeof(*z));
	z->q = q;
	snprintf(z->lesson, sizeof(z->lesson), "%s", lesson);
	if (q->kind == QUIZ_MULTI && q->noptions) {
		z->ticked = calloc(q->noptions, sizeof(*z->ticked));
		if (!z->ticked)
			return -ENOMEM;
	}
	return 0;
}

void ui_quiz_fini(struct ui_quiz *z)
{
	free(z->ticked);
	free(z->error);
	memset(z, 0, sizeof(*z));
}

/* ---- Answering ------------------------------------------------------------ */

static void set_error(struct ui_quiz *z, const char *fmt, const char *arg)
{
	free(z->error);
	if (asprintf(&z->error, fmt, arg) < 0)
		z->error = NULL;
}

/* Judge and record the answer; on a bad number the learner types again. */
static void submit(struct ui_quiz *z)
{
	unsigned int picks[QUIZ_MAX_LETTERS];
	struct quiz_answer ans;
	struct rt_buf text = RT_BUF_INIT;
	char *cause = NULL;
	int ret;

	memset(&ans, 0, sizeof(ans));
	switch (z->q->kind) {
	case QUIZ_SINGLE:
		ans.choice = z->chosen;
		ret = rt_buf_printf(&text, "%c", 'a' + (int)z->chosen);
		break;
	case QUIZ_MULTI:
		ret = 0;
		for (unsigned int i = 0; i < z->q->noptions && i < QUIZ_MAX_LETTERS && !ret; i++) {
			if (!z->ticked[i])
				continue;
			picks[ans.nchoices++] = i;
			ret = rt_buf_printf(&text, "%s%c", text.len ? "," : "", 'a' + (int)i);
		}
		ans.choices = picks;
		if (!ret && !ans.nchoices) {
			set_error(z, "%s", "tick at least one option with Space, then press Enter");
			goto out;
		}
		break;
	default:
		z->input[z->ninput] = '\0';
		ans.text = z->input;
		ret = rt_buf_puts(&text, z->input);
		break;
	}
	if (ret < 0) {
		set_error(z, "%s", "out of memory");
		goto out;
	}
	if (quiz_check_answer(z->q, &ans, &z->verdict) < 0) {
		set_error(z, "'%s' is not a plain number: type digits, '.' or '-', then Enter",
			  rt_buf_str(&text));
		goto out;
	}
	free(z->error);
	z->error = NULL;
	z->done = true;
	ret = lesson_progress_answer(NULL, z->lesson, z->q, rt_buf_str(&text), &z->verdict,
				     &cause);
	z->saved = ret == 0;
	if (ret < 0)
		set_error(z, "the answer could not be saved: %s", cause ? cause : strerror(-ret));
out:
	free(cause);
	rt_buf_fini(&text);
}

static bool is_backspace(int key)
{
	return key == KEY_BACKSPACE || key == 127 || key == 8;
}

enum ui_quiz_action ui_quiz_key(struct ui_quiz *z, int key)
{
	unsigned int n = (unsigned int)z->q->noptions;
	bool choice = z->q->kind == QUIZ_SINGLE || z->q->kind == QUIZ_MULTI;

	if (key == KEY_RESIZE || key == ERR)
		return UI_QUIZ_NONE;
	if (z->done)
		return UI_QUIZ_CLOSE;
	if (key == QUIZ_KEY_ESC)
		return UI_QUIZ_CLOSE;
	if (key == '?')
		return UI_QUIZ_HELP;
	if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		if (z->q->kind == QUIZ_SINGLE)
			z->chosen = z->cur;
		submit(z);
		return UI_QUIZ_NONE;
	}
	if (!choice) {
		if (is_backspace(key)) {
			if (z->ninput)
				z->ninput--;
		} else if (((key >= '0' && key <= '9') || key == '.' || key == '-') &&
			   z->ninput + 1 < sizeof(z->input)) {
			z->input[z->ninput++] = (char)key;
		}
		z->input[z->ninput] = '\0';
		return UI_QUIZ_NONE;
	}
	if (key >= 'a' && key < 'a' + (int)n && key < 'a' + QUIZ_MAX_LETTERS) {
		z->cur = (unsigned int)(key - 'a');
		if (z->q->kind == QUIZ_SINGLE) {
			z->chosen = z->cur;
			submit(z);
		} else {
			z->ticked[z->cur] = !z->ticked[z->cur];
		}
		return UI_QUIZ_NONE;
	}
	switch (key) {
	case KEY_DOWN:
	case 'j':
		if (z->cur + 1 < n)
			z->cur++;
		break;
	case KEY_UP:
	case 'k':
		if (z->cur > 0)
			z->cur--;
		break;
	case ' ':
		if (z->q->kind == QUIZ_MULTI && z->cur < n)
			z->ticked[z->cur] = !z->ticked[z->cur];
		break;
	case 'q':
		return UI_QUIZ_CLOSE;
	default:
		break;
	}
	return UI_QUIZ_NONE;
}

/* ---- Drawing -------------------------------------------------------------- */

struct qrow {
	const struct lesson_line *ln;	/* a laid-out line, or NULL for text */
	const char *text;		/* plain text (not NUL-terminated), if !ln */
	size_t len;
	enum ui_role role;		/* for text, and the prefix */
	int indent;
	const char *prefix;		/* drawn at indent - prefix width, may be NULL */
	bool sel;			/* the highlighted option */
};

struct qrows {
	struct qrow row[QUIZ_MAX_ROWS];
	int n;
	int width;			/* text columns */
};

static struct qrow *row_add(struct qrows *rs)
{
	struct qrow *r;

	if (rs->n >= QUIZ_MAX_ROWS)
		return NULL;
	r = &rs->row[rs->n++];
	memset(r, 0, sizeof(*r));
	r->role = UI_ROLE_NORMAL;
	return r;
}

/* Wrapped plain text, one row per line. */
static void rows_text(struct qrows *rs, const char *s, enum ui_role role, int indent)
{
	size_t off = 0, next;

	while (s[off]) {
		size_t len = ui_text_wrap(s + off, rs->width - indent, &next);
		struct qrow *r = row_add(rs);

		if (!r)
			return;
		r->text = s + off;
		r->len = len;
		r->role = role;
		r->indent = indent;
		if (!next)
			break;
		off += next;
	}
}

/*
 * The laid-out lines of @md up to the first blank line after some text (the
 * layout of one paragraph); plain wrapped text if the layout fails.
 * Returns the first row added, or -1.
 */
static int rows_md(struct qrows *rs, const char *md, int indent, struct lesson_doc **doc,
		   struct lesson_layout **lay)
{
	int first = rs->n;
	bool text = false;

	*doc = NULL;
	*lay = NULL;
	if (ui_reader_layout_inline(md, (unsigned int)(rs->width - indent), doc, lay) < 0) {
		rows_text(rs, md, UI_ROLE_NORMAL, indent);
		return first < rs->n ? first : -1;
	}
	for (size_t i = 0; i < (*lay)->nlines; i++) {
		const struct lesson_line *ln = &(*lay)->lines[i];
		struct qrow *r;

		if (ln->kind == LESSON_LINE_BLANK) {
			if (text)
				break;
			continue;
		}
		text = true;
		r = row_add(rs);
		if (!r)
			break;
		r->ln = ln;
		r->indent = indent;
	}
	return first < rs->n ? first : -1;
}

static void blank_row(struct qrows *rs)
{
	struct qrow *r = row_add(rs);

	if (r)
		r->text = "";
}

static const char *kind_title(enum quiz_kind k)
{
	switch (k) {
	case QUIZ_SINGLE:
		return "Quiz: choose one answer";
	case QUIZ_MULTI:
		return "Quiz: tick every right answer";
	case QUIZ_NUMERIC:
		return "Quiz: answer with a number";
	case QUIZ_PREDICT:
		return "Quiz: predict the measurement";
	}
	return "Quiz";
}

/* The verdict in words; @buf gets it. */
static enum ui_role verdict_text(const struct ui_quiz *z, char *buf, size_t size)
{
	const struct quiz *q = z->q;
	const char *yes = ui_text_glyph("\xe2\x9c\x93", "OK:"), *no = ui_text_glyph("\xe2\x9c\x97",
										    "X:");
	const struct lab_ops *lab;
	int right = -1;

	switch (q->kind) {
	case QUIZ_SINGLE:
		for (size_t i = 0; i < q->noptions && i < QUIZ_MAX_LETTERS; i++)
			if (q->options[i].right)
				right = (int)i;
		if (z->verdict.correct)
			snprintf(buf, size, "%s Right.", yes);
		else
			snprintf(buf, size, "%s Not quite: the right answer is %c.", no,
				 right >= 0 ? 'a' + right : '?');
		break;
	case QUIZ_MULTI:
		if (z->verdict.correct)
			snprintf(buf, size, "%s Right: exactly the right set.", yes);
		else
			snprintf(buf, size, "%s Not quite: %u right ticked, %u wrong ticked, "
				 "%u right missed (the right ones are marked).", no,
				 z->verdict.right_chosen, z->verdict.wrong_chosen,
				 z->verdict.right_missed);
		break;
	case QUIZ_NUMERIC:
		if (z->verdict.correct)
			snprintf(buf, size, "%s Right: %g %s.", yes, z->verdict.value, q->unit);
		else if (q->tolerance > 0)
			snprintf(buf, size, "%s Not quite: the answer is %g %s (give or take %g); "
				 "you said %g.", no, q->answer, q->unit, q->tolerance,
				 z->verdict.value);
		else
			snprintf(buf, size, "%s Not quite: the answer is %g %s; you said %g.", no,
				 q->answer, q->unit, z->verdict.value);
		break;
	case QUIZ_PREDICT:
		lab = q->lab ? lab_find(q->lab) : NULL;
		snprintf(buf, size, "Prediction saved: %g %s. You will see it against the "
			 "measurement in the %s lab (scenario %s).", z->verdict.value, q->unit,
			 lab ? lab->title : q->lab ? q->lab : "matching", q->scenario ?
			 q->scenario : "-");
		return UI_ROLE_SECTION;
	}
	return z->verdict.correct ? UI_ROLE_READY : UI_ROLE_PROBLEM;
}

static void draw_rows(const struct qrows *rs, WINDOW *win, int y, int x, int first, int rows)
{
	for (int i = 0; i < rows && first + i < rs->n; i++) {
		const struct qrow *r = &rs->row[first + i];
		int ry = y + i;

		if (r->sel) {
			wattron(win, ui_theme_attr(UI_ROLE_SELECTED));
			mvwhline(win, ry, x - 1, ' ', rs->width + 2);
			wattroff(win, ui_theme_attr(UI_ROLE_SELECTED));
		}
		if (r->prefix) {
			attr_t a = r->sel ? ui_theme_attr(UI_ROLE_SELECTED) : ui_theme_attr(r->role);

			wattron(win, a);
			ui_text_put(win, ry, x, r->prefix, r->indent);
			wattroff(win, a);
		}
		if (r->ln) {
			ui_reader_put_line(win, ry, x + r->indent, r->ln, NULL, 0);
			if (r->sel)
				mvwchgat(win, ry, x + r->indent, rs->width - r->indent,
					 ui_theme_attr(UI_ROLE_SELECTED) & ~A_COLOR,
					 (short)PAIR_NUMBER(ui_theme_attr(UI_ROLE_SELECTED)), NULL);
		} else if (r->text) {
			attr_t a = ui_theme_attr(r->role);

			wattron(win, a);
			ui_text_putn(win, ry, x + r->indent, r->text, r->len, rs->width - r->indent);
			wattroff(win, a);
		}
	}
}

void ui_quiz_draw(struct ui_quiz *z, WINDOW *win, int y, int x, int h, int cols)
{
	static struct qrows rs;
	const struct quiz *q = z->q;
	struct lesson_doc *docs[QUIZ_MAX_LETTERS + 2] = { NULL };
	struct lesson_layout *lays[QUIZ_MAX_LETTERS + 2] = { NULL };
	char prefixes[QUIZ_MAX_LETTERS][32];
	char field[96], verdict[512];
	int w = cols - 4 < 78 ? cols - 4 : 78;
	int bh, by, bx, rows, first = 0, sel_row = -1, verdict_row = -1;
	unsigned int nopt = q->noptions < QUIZ_MAX_LETTERS ? (unsigned int)q->noptions :
			    QUIZ_MAX_LETTERS;
	bool choice = q->kind == QUIZ_SINGLE || q->kind == QUIZ_MULTI;

	if (w < 40 || h < 8)
		return;
	rs.n = 0;
	rs.width = w - 6;
	rows_md(&rs, q->question, 0, &docs[0], &lays[0]);
	blank_row(&rs);
	for (unsigned int i = 0; choice && i < nopt; i++) {
		const struct quiz_option *o = &q->options[i];
		const char *mark = " ";
		bool picked = q->kind == QUIZ_SINGLE ? z->done && z->chosen == i : z->ticked[i];
		enum ui_role role = UI_ROLE_LABEL;
		int row;

		if (z->done && o->right) {
			mark = ui_text_glyph("\xe2\x9c\x93", "+");
			role = UI_ROLE_READY;
		} else if (z->done && picked) {
			mark = ui_text_glyph("\xe2\x9c\x97", "x");
			role = UI_ROLE_PROBLEM;
		}
		if (q->kind == QUIZ_MULTI)
			snprintf(prefixes[i], sizeof(prefixes[i]), "%s [%s] %c) ", mark,
				 picked ? "x" : " ", 'a' + (int)i);
		else
			snprintf(prefixes[i], sizeof(prefixes[i]), "%s %c) ", mark, 'a' + (int)i);
		row = rows_md(&rs, o->text, ui_text_width(prefixes[i]), &docs[i + 1],
			      &lays[i + 1]);
		if (row < 0)
			continue;
		rs.row[row].prefix = prefixes[i];
		rs.row[row].role = role;
		for (int k = row; !z->done && i == z->cur && k < rs.n; k++)
			rs.row[k].sel = true;
		if (!z->done && i == z->cur)
			sel_row = row;
	}
	if (!choice) {
		int pad = 12 - (int)z->ninput - (z->done ? 0 : 1);

		snprintf(field, sizeof(field), "Your %s: [%s%s%*s] %s",
			 q->kind == QUIZ_PREDICT ? "prediction" : "answer", z->input,
			 z->done ? "" : "_", pad > 0 ? pad : 0, "", q->unit ? q->unit : "");
		rows_text(&rs, field, UI_ROLE_LABEL, 0);
	}
	if (z->error) {
		blank_row(&rs);
		rows_text(&rs, z->error, UI_ROLE_WARN, 0);
	}
	blank_row(&rs);
	if (z->done) {
		enum ui_role role = verdict_text(z, verdict, sizeof(verdict));

		verdict_row = rs.n;
		rows_text(&rs, verdict, role, 0);
		blank_row(&rs);
		rows_md(&rs, q->explain, 0, &docs[QUIZ_MAX_LETTERS + 1],
			&lays[QUIZ_MAX_LETTERS + 1]);
		blank_row(&rs);
		rows_text(&rs, "Press any key to go back to the lesson.", UI_ROLE_DIM, 0);
	} else {
		rows_text(&rs, q->kind == QUIZ_SINGLE ?
			  "Letter, or arrows and Enter: answer.  Esc: not now." :
			  q->kind == QUIZ_MULTI ?
			  "Letter or Space: tick.  Enter: submit.  Esc: not now." :
			  "Type the number, Enter: submit.  Esc: not now.", UI_ROLE_DIM, 0);
	}

	bh = rs.n + 4 < h ? rs.n + 4 : h;
	by = y + (h - bh) / 2;
	bx = x + (cols - w) / 2;
	rows = bh - 4;
	if (rs.n > rows) {
		if (verdict_row >= 0)
			first = verdict_row < rs.n - rows ? verdict_row : rs.n - rows;
		else if (sel_row >= rows - 2)
			first = sel_row - rows + 3;
		if (first > rs.n - rows)
			first = rs.n - rows;
	}
	/* As ui_toc_draw(): no end of a reader line beside the border (lesson 08's 's'). */
	ui_frame_clear(win, by, x, bh, cols - 1);
	ui_frame_draw(win, by, bx, bh, w, kind_title(q->kind));
	draw_rows(&rs, win, by + 2, bx + 3, first, rows);
	ui_frame_scroll_marks(win, by, bx, bh, w, first > 0, first + rows < rs.n);
	for (size_t i = 0; i < QUIZ_MAX_LETTERS + 2; i++) {
		lesson_layout_free(lays[i]);
		lesson_doc_free(docs[i]);
	}
}
