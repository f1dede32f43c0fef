/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_trace_view: draws a struct trace_explain. Top to bottom: a title bar,
 * the header in words (trace_explain_header, wrapped, at most a third of the
 * area, half when it says the worst section is likely the emulator's, which
 * the status line then points at), a ruler naming the columns, the list of lines, a detail pane on
 * the selected line (trace_explain_entry, or the parser's problem), a
 * status line and the keys.
 *
 * The list has two views. Decoded (the default) shows the entry lines, the
 * stack lines and any line the parser could not read, without the header
 * comments; a gutter on the left gives each delay mark's gap, and the flags
 * in words go in a right-hand column when the area is wide enough, else on a
 * line under the selected row. Raw shows every line of the file as the
 * kernel wrote it. Both views select by file line, so the toggle keeps the
 * place. Long lines end in an ellipsis; Left and Right scroll sideways.
 */
#include "ui_trace_view.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_log.h"
#include "labs/lab.h"
#include "trace/trace_explain.h"
#include "ui_log.h"
#include "ui_text.h"
#include "ui_theme.h"

#define TV_KEY_ESC 27
#define TV_KEY_CTRL(c) ((c) & 0x1f)
#define TV_GUTTER 11		/* a blank, "> 1000 us" and a blank */
#define TV_FLAGS_MIN_COLS 120	/* from here the flags get their own column */
#define TV_HSTEP 8

enum tv_mode {
	TV_BROWSE,
	TV_SEARCH,		/* typing after '/' */
};

struct ui_trace_view {
	struct trace_explain *x;	/* owned */
	char *header;			/* owned: the header in words */
	unsigned int *rows;		/* owned: file lines of the decoded view */
	size_t nrows;
	bool raw;			/* every line of the file, as written */
	unsigned int sel_line;		/* selected file line (1-based) */
	size_t top;			/* first row drawn */
	int hoff;			/* columns scrolled to the right */
	int page;			/* list rows at the last draw */
	enum tv_mode mode;
	char input[128];
	size_t ninput;
	char *needle;			/* owned: the last search */
	char msg[200];
	enum ui_role msg_role;
	struct rt_buf words;		/* scratch for the words of one line */
};

/* ---- Rows ---- */

static size_t row_count(const struct ui_trace_view *v)
{
	return v->raw ? v->x->nlines : v->nrows;
}

static unsigned int row_line(const struct ui_trace_view *v, size_t row)
{
	return v->raw ? (unsigned int)row + 1 : v->rows[row];
}

/* The row showing @line, or the first row after it (the last row if none). */
static size_t row_of_line(const struct ui_trace_view *v, unsigned int line)
{
	size_t n = row_count(v), lo = 0, hi = n;

	if (!n)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (row_line(v, mid) < line)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n ? lo : n - 1;
}

static size_t sel_row(const struct ui_trace_view *v)
{
	return row_of_line(v, v->sel_line);
}

static void select_row(struct ui_trace_view *v, size_t row)
{
	size_t n = row_count(v);

	if (!n)
		return;
	if (row >= n)
		row = n - 1;
	v->sel_line = row_line(v, row);
}

static int build_rows(struct ui_trace_view *v)
{
	const struct trace_explain *x = v->x;

	v->rows = malloc((x->nlines ? x->nlines : 1) * sizeof(*v->rows));
	if (!v->rows)
		return -ENOMEM;
	for (unsigned int l = 1; l <= x->nlines; l++) {
		size_t len;
		const char *s = trace_explain_line(x, l, &len);
		size_t i = 0;

		while (i < len && s[i] == ' ')
			i++;
		if (i == len || s[0] == '#')
			continue;
		v->rows[v->nrows++] = l;
	}
	return 0;
}

/* ---- Life ---- */

struct ui_trace_view *ui_trace_view_new(const char *text, size_t len, const char *name,
					char **cause)
{
	struct ui_trace_view *v = calloc(1, sizeof(*v));
	struct rt_buf h = RT_BUF_INIT;
	int ret;

	if (!v) {
		errno = ENOMEM;
		return NULL;
	}
	ret = lab_trace_load(text, len, name, &v->x, cause);
	if (!ret)
		ret = trace_explain_header(v->x, &h);
	if (!ret) {
		v->header = rt_buf_take(&h);
		ret = v->header ? build_rows(v) : -ENOMEM;
	}
	rt_buf_fini(&h);
	if (ret) {
		ui_trace_view_free(v);
		errno = -ret;
		return NULL;
	}
	/* Start on the first entry: that is where reading begins. */
	v->sel_line = v->x->trace->nentries ? v->x->trace->entries[0].line :
		      v->nrows ? v->rows[0] : 1;
	v->msg_role = UI_ROLE_DIM;
	if (v->x->emu.likely) {
		snprintf(v->msg, sizeof(v->msg), "the worst section is likely %s: the header "
			 "says why, and why it still matters", v->x->env == TRACE_EMU_HWVIRT ?
			 "the host's" : "the emulator's");
		v->msg_role = UI_ROLE_WARN;
	} else if (v->x->nmarks) {
		snprintf(v->msg, sizeof(v->msg), "%zu delay mark%s: m jumps to the next, "
			 "w to the widest", v->x->nmarks, v->x->nmarks == 1 ? "" : "s");
	}
	return v;
}

void ui_trace_view_free(struct ui_trace_view *v)
{
	if (!v)
		return;
	trace_explain_free(v->x);
	free(v->header);
	free(v->rows);
	free(v->needle);
	rt_buf_fini(&v->words);
	free(v);
}

/* ---- Drawing ---- */

static void put_role(WINDOW *win, int y, int x, const char *s, int cols, enum ui_role role)
{
	if (cols <= 0)
		return;
	wattron(win, ui_theme_attr(role));
	ui_text_put(win, y, x, s, cols);
	wattroff(win, ui_theme_attr(role));
}

/* Draw @s (of @len bytes) from display column @hoff on, in at most @cols columns. */
static void put_scrolled(WINDOW *win, int y, int x, const char *s, size_t len, int hoff,
			 int cols)
{
	size_t skip = 0;

	if (cols <= 0)
		return;
	if (hoff > 0) {
		skip = ui_text_fit(s, len, hoff, NULL);
		if (cols > 1 && skip < len) {
			ui_text_put(win, y, x, "<", 1);
			x++;
			cols--;
		}
	}
	if (skip < len)
		ui_text_putn(win, y, x, s + skip, len - skip, cols);
}

static void draw_title(const struct ui_trace_view *v, WINDOW *win, int y, int x, int cols)
{
	const struct trace_latency *t = v->x->trace;
	const char *base = strrchr(v->x->name, '/');
	const char *dot = ui_text_glyph("\xc2\xb7", "-");
	char left[256], right[96], results[48];
	int rw;

	snprintf(results, sizeof(results), "%s results document", dot);

	wattron(win, ui_theme_attr(UI_ROLE_TITLE));
	mvwhline(win, y, x, ' ', cols);
	wattroff(win, ui_theme_attr(UI_ROLE_TITLE));

	/* The base name: the path is in every message, the title needs the room. */
	base = base && base[1] ? base + 1 : v->x->name;
	if (t->tracer && t->have_latency)
		snprintf(left, sizeof(left), "%s %s %s, %llu us%s%s", base, dot, t->tracer,
			 (unsigned long long)t->latency_us, v->x->from_results ? " " : "",
			 v->x->from_results ? results : "");
	else
		snprintf(left, sizeof(left), "%s%s%s", base, v->x->from_results ? " " : "",
			 v->x->from_results ? results : "");
	snprintf(right, sizeof(right), "%s  line %u/%zu ", v->raw ? "raw" : "decoded",
		 v->sel_line, v->x->nlines);
	rw = ui_text_width(right);
	if (rw > cols / 2)
		rw = 0;
	put_role(win, y, x + 1, left, cols - rw - 3, UI_ROLE_TITLE);
	if (rw)
		put_role(win, y, x + cols - rw, right, rw, UI_ROLE_TITLE);
}

/* Wrap the header; draw at most @max lines at @y. Returns the lines used. */
static int draw_header(const struct ui_trace_view *v, WINDOW *win, int y, int x, int cols,
		       int max, bool draw)
{
	const char *s = v->header;
	int used = 0;

	while (*s && used < max) {
		size_t next, n = ui_text_wrap(s, cols - 2, &next);
		bool last = used == max - 1 && s[next];

		if (draw) {
			if (last) {
				/* Cut: end the last line with an ellipsis. */
				char buf[512];

				snprintf(buf, sizeof(buf), "%.*s %s", (int)n, s,
					 ui_text_glyph("\xe2\x80\xa6", "..."));
				ui_text_put(win, y + used, x + 1, buf, cols - 2);
			} else {
				ui_text_putn(win, y + used, x + 1, s, n, cols - 2);
			}
		}
		used++;
		if (!next)
			break;
		s += next;
	}
	return used;
}

/* Lines the header needs at @cols, uncapped. */
static int header_lines(const struct ui_trace_view *v, int cols)
{
	return draw_header(v, NULL, 0, 0, cols, 1000, false);
}

static int flags_cols(int cols)
{
	int w;

	if (cols < TV_FLAGS_MIN_COLS)
		return 0;
	w = cols - TV_GUTTER - 3 - 58;
	return w > 56 ? 56 : w;
}

static void draw_ruler(const struct ui_trace_view *v, WINDOW *win, int y, int x, int cols)
{
	int fw = flags_cols(cols);

	wattron(win, ui_theme_attr(UI_ROLE_BORDER));
	mvwhline_set(win, y, x, WACS_HLINE, cols);
	wattroff(win, ui_theme_attr(UI_ROLE_BORDER));
	if (v->raw) {
		put_role(win, y, x + 2, " the file as the kernel wrote it (r: decoded) ", cols - 4,
			 UI_ROLE_SECTION);
		return;
	}
	put_role(win, y, x + 1, " gap ", TV_GUTTER - 1, UI_ROLE_SECTION);
	put_role(win, y, x + TV_GUTTER, " task-pid CPU+flags time mark: function <-caller ",
		 cols - TV_GUTTER - fw - 3, UI_ROLE_SECTION);
	if (fw)
		put_role(win, y, x + cols - fw - 1, " flags in words ", fw, UI_ROLE_SECTION);
}

/* Case-insensitive search for the needle in [s, s + len). */
static bool line_matches(const char *s, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	for (size_t i = 0; n && i + n <= len; i++) {
		size_t k = 0;

		while (k < n && tolower((unsigned char)s[i + k]) ==
				tolower((unsigned char)needle[k]))
			k++;
		if (k == n)
			return true;
	}
	return false;
}

/* How the list draws one row, and whether the selected one gets a flags line under it. */
static void draw_row(struct ui_trace_view *v, WINDOW *win, int y, int x, int cols, size_t row,
		     bool selected)
{
	unsigned int line = row_line(v, row);
	const struct trace_lat_entry *e = trace_explain_entry_at(v->x, line);
	const struct trace_lat_problem *p = e ? NULL : trace_explain_problem_at(v->x, line);
	enum ui_role role = UI_ROLE_NORMAL;
	int fw = v->raw ? 0 : flags_cols(cols), lx = x, lw = cols;
	size_t len = 0;
	const char *s = trace_explain_line(v->x, line, &len);
	char gap[24];

	if (!s)
		return;
	if (p)
		role = UI_ROLE_PROBLEM;
	else if (e && e->mark_min_us && e->mark_min_us != UINT64_MAX)
		role = UI_ROLE_WARN;
	else if (!e && !v->raw)
		role = UI_ROLE_DIM;	/* a stack frame */
	if (!v->raw) {
		while (len && *s == ' ') {
			s++;
			len--;
		}
		if (role == UI_ROLE_WARN)
			put_role(win, y, x + 1, trace_explain_gap(e->mark, gap, sizeof(gap)),
				 TV_GUTTER - 1, UI_ROLE_WARN);
		else if (p)
			put_role(win, y, x + 1, "unread", TV_GUTTER - 1, UI_ROLE_PROBLEM);
		lx = x + TV_GUTTER;
		lw = cols - TV_GUTTER - (fw ? fw + 3 : 1);
	} else {
		lx = x + 1;
		lw = cols - 2;
	}
	wattron(win, ui_theme_attr(selected ? UI_ROLE_SELECTED : role));
	if (selected)
		mvwhline(win, y, lx, ' ', lw);
	put_scrolled(win, y, lx, s, len, v->hoff, lw);
	wattroff(win, ui_theme_attr(selected ? UI_ROLE_SELECTED : role));
	if (fw && e && e->flags.raw[0]) {
		rt_buf_reset(&v->words);
		if (!trace_explain_flags(&e->flags, false, &v->words)) {
			put_role(win, y, x + cols - fw - 2, ui_text_glyph("\xe2\x94\x82", "|"), 1,
				 UI_ROLE_BORDER);
			put_role(win, y, x + cols - fw - 1, rt_buf_str(&v->words), fw,
				 role == UI_ROLE_WARN ? UI_ROLE_WARN : UI_ROLE_LABEL);
		}
	}
}

/* The flags in words under the selected row (narrow areas). */
static void draw_flags_line(struct ui_trace_view *v, WINDOW *win, int y, int x, int cols,
			    const struct trace_lat_entry *e)
{
	rt_buf_reset(&v->words);
	if (rt_buf_printf(&v->words, "%s flags: ", ui_text_glyph("\xe2\x86\xb3", "`-")) ||
	    trace_explain_flags(&e->flags, false, &v->words))
		return;
	put_role(win, y, x + TV_GUTTER + 1, rt_buf_str(&v->words), cols - TV_GUTTER - 2,
		 UI_ROLE_LABEL);
}

/* Keep the selection on screen in @rows list rows (one is taken by the flags line). */
static void scroll_to_sel(struct ui_trace_view *v, int rows, bool under)
{
	size_t sel = sel_row(v), n = row_count(v);
	size_t vis = rows > 0 ? (size_t)rows : 1;

	if (under && vis > 1)
		vis--;
	if (sel < v->top)
		v->top = sel;
	else if (sel >= v->top + vis)
		v->top = sel - vis + 1;
	if (n > vis && v->top > n - vis)
		v->top = n - vis;
	if (n <= vis)
		v->top = 0;
}

static int draw_list(struct ui_trace_view *v, WINDOW *win, int y, int x, int rows, int cols)
{
	size_t n = row_count(v), sel = sel_row(v);
	const struct trace_lat_entry *se = trace_explain_entry_at(v->x, v->sel_line);
	bool under = !v->raw && !flags_cols(cols) && se && se->flags.raw[0];
	int r = 0;

	scroll_to_sel(v, rows, under);
	for (size_t row = v->top; row < n && r < rows; row++) {
		draw_row(v, win, y + r, x, cols, row, row == sel);
		r++;
		if (row == sel && under && r < rows) {
			draw_flags_line(v, win, y + r, x, cols, se);
			r++;
		}
	}
	if (!n)
		put_role(win, y, x + 2, "no lines to show", cols - 4, UI_ROLE_DIM);
	if (v->top > 0)
		put_role(win, y, x + cols - 1, ui_text_glyph("\xe2\x96\xb2", "^"), 1, UI_ROLE_DIM);
	if (v->top + (size_t)rows - (under ? 1 : 0) < n)
		put_role(win, y + rows - 1, x + cols - 1, ui_text_glyph("\xe2\x96\xbc", "v"), 1,
			 UI_ROLE_DIM);
	return rows - (under ? 1 : 0);
}

/* The words for the selected line into v->words; returns the role to draw them in. */
static enum ui_role detail_words(struct ui_trace_view *v, int list_cols)
{
	unsigned int line = v->sel_line;
	const struct trace_lat_entry *e = trace_explain_entry_at(v->x, line);
	const struct trace_lat_problem *p;
	size_t len = 0;
	const char *s = trace_explain_line(v->x, line, &len);
	int ret = 0;

	rt_buf_reset(&v->words);
	if (!s)
		return UI_ROLE_DIM;
	while (len && *s == ' ') {
		s++;
		len--;
	}
	/* The whole line, when the list had to cut it. */
	if (v->hoff || ui_text_fit(s, len, list_cols, NULL) < len)
		ret = rt_buf_printf(&v->words, "%.*s\n", (int)len, s);
	if (ret)
		return UI_ROLE_DIM;
	if (e) {
		trace_explain_entry(v->x, e, &v->words);
		return UI_ROLE_NORMAL;
	}
	p = trace_explain_problem_at(v->x, line);
	if (p) {
		rt_buf_printf(&v->words, "the parser could not read this line: %s\n", p->what);
		return UI_ROLE_PROBLEM;
	}
	if (s[0] == '#')
		rt_buf_puts(&v->words, "a header or legend line: its meaning is explained at the "
			    "top (r: back to the decoded view)\n");
	else if (!strncmp(s, "=>", 2))
		rt_buf_puts(&v->words, "a frame of the stack trace above: the function that was "
			    "running, innermost first\n");
	else if (len)
		rt_buf_puts(&v->words, "not an entry\n");
	return UI_ROLE_DIM;
}

static void draw_detail(struct ui_trace_view *v, WINDOW *win, int y, int x, int rows, int cols,
			int list_cols)
{
	enum ui_role role;
	const char *s;
	char title[48];
	int used = 0;

	wattron(win, ui_theme_attr(UI_ROLE_BORDER));
	mvwhline_set(win, y, x, WACS_HLINE, cols);
	wattroff(win, ui_theme_attr(UI_ROLE_BORDER));
	snprintf(title, sizeof(title), " line %u ", v->sel_line);
	put_role(win, y, x + 2, title, cols - 4, UI_ROLE_SECTION);
	role = detail_words(v, list_cols);
	s = rt_buf_str(&v->words);
	while (*s && used < rows - 1) {
		size_t next, n = ui_text_wrap(s, cols - 4, &next);

		wattron(win, ui_theme_attr(role));
		ui_text_putn(win, y + 1 + used, x + 2, s, n, cols - 4);
		wattroff(win, ui_theme_attr(role));
		used++;
		if (!next)
			break;
		s += next;
	}
	if (*s && used == rows - 1 && rows > 1)
		put_role(win, y + rows - 1, x + cols - 1, ui_text_glyph("\xe2\x80\xa6", "+"), 1,
			 UI_ROLE_DIM);
}

static void draw_status(const struct ui_trace_view *v, WINDOW *win, int y, int x, int cols)
{
	enum rt_log_level level;
	enum ui_role role = UI_ROLE_DIM;
	char buf[256];
	const char *s = buf;

	buf[0] = '\0';
	if (v->mode == TV_SEARCH) {
		snprintf(buf, sizeof(buf), "/%s", v->input);
		role = UI_ROLE_NORMAL;
	} else if (v->msg[0]) {
		s = v->msg;
		role = v->msg_role;
	} else if (ui_log_last(buf, sizeof(buf), &level)) {
		role = level <= RT_LOG_WARN ? UI_ROLE_WARN : UI_ROLE_DIM;
	}
	put_role(win, y, x + 1, s, cols - 2, role);
	if (v->mode == TV_SEARCH) {
		int cx = x + 1 + ui_text_width(buf);

		if (cx < x + cols - 1)
			mvwchgat(win, y, cx, 1, A_REVERSE, 0, NULL);
	}
}

static void draw_footer(const struct ui_trace_view *v, WINDOW *win, int y, int x, int cols)
{
	static const char *const keys[] = {
		"\xe2\x86\x91\xe2\x86\x93", "^v", "move", "/", NULL, "search", "n", NULL, "next",
		"m", NULL, "delay mark", "r", NULL, "raw", "?", NULL, "help", "q", NULL, "close",
	};
	int cx = x + 1;

	for (size_t i = 0; i + 2 < sizeof(keys) / sizeof(keys[0]) && cx < x + cols - 2; i += 3) {
		const char *k = keys[i + 1] ? ui_text_glyph(keys[i], keys[i + 1]) : keys[i];
		const char *what = keys[i + 2];

		if (!strcmp(what, "raw") && v->raw)
			what = "decoded";
		wattron(win, ui_theme_attr(UI_ROLE_KEY));
		mvwaddch(win, y, cx, ' ');
		cx += 1 + ui_text_put(win, y, cx + 1, k, x + cols - cx - 2);
		if (cx < x + cols - 1)
			waddch(win, ' ');
		cx++;
		wattroff(win, ui_theme_attr(UI_ROLE_KEY));
		if (cx + 1 < x + cols - 1) {
			wattron(win, ui_theme_attr(UI_ROLE_FOOTER));
			cx += 1 + ui_text_put(win, y, cx + 1, what, x + cols - cx - 2);
			wattroff(win, ui_theme_attr(UI_ROLE_FOOTER));
		}
		cx += 2;
	}
}

void ui_trace_view_draw(struct ui_trace_view *v, WINDOW *win, int y, int x, int h, int cols)
{
	int hh, dh, lh, list_cols;

	if (h < 6 || cols < 20) {
		if (h > 0 && cols > 0)
			put_role(win, y, x, "the trace viewer needs more room", cols, UI_ROLE_WARN);
		return;
	}
	/* title, header, ruler, list, detail rule + text, status, footer */
	dh = h >= 24 ? 5 + (h - 24) / 4 : (h - 4) / 4;
	hh = header_lines(v, cols);
	if (hh > (v->x->emu.likely ? h / 2 - 2 : h / 3 - 2))
		hh = v->x->emu.likely ? h / 2 - 2 : h / 3 - 2;
	if (hh < 1)
		hh = h >= 12 ? 1 : 0;
	lh = h - 1 - hh - 1 - (dh ? dh + 1 : 0) - 2;
	if (lh < 1) {
		dh = 0;
		lh = h - 1 - hh - 1 - 2;
	}
	draw_title(v, win, y, x, cols);
	draw_header(v, win, y + 1, x, cols, hh, true);
	draw_ruler(v, win, y + 1 + hh, x, cols);
	list_cols = v->raw ? cols - 2 : cols - TV_GUTTER - (flags_cols(cols) ? flags_cols(cols) +
							      3 : 1);
	v->page = draw_list(v, win, y + 2 + hh, x, lh, cols);
	if (dh)
		draw_detail(v, win, y + 2 + hh + lh, x, dh + 1, cols, list_cols);
	draw_status(v, win, y + h - 2, x, cols);
	draw_footer(v, win, y + h - 1, x, cols);
}

/* ---- Keys ---- */

static void set_msg(struct ui_trace_view *v, enum ui_role role, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_msg(struct ui_trace_view *v, enum ui_role role, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->msg, sizeof(v->msg), fmt, ap);
	va_end(ap);
	v->msg_role = role;
}

static bool row_is_mark(const struct ui_trace_view *v, size_t row)
{
	const struct trace_lat_entry *e = trace_explain_entry_at(v->x, row_line(v, row));

	return e && e->mark_min_us && e->mark_min_us != UINT64_MAX;
}

static bool row_is_match(const struct ui_trace_view *v, size_t row)
{
	size_t len;
	const char *s = trace_explain_line(v->x, row_line(v, row), &len);

	return s && line_matches(s, len, v->needle);
}

/*
 * The next row from the selection in direction @dir that @pred accepts,
 * wrapping around. Returns false when none does; *wrapped says whether it
 * went past an end.
 */
static bool find_row(const struct ui_trace_view *v, int dir,
		     bool (*pred)(const struct ui_trace_view *, size_t), size_t *out, bool *wrapped)
{
	size_t n = row_count(v), cur = sel_row(v);

	*wrapped = false;
	for (size_t i = 1; i <= n; i++) {
		size_t r;

		if (dir > 0) {
			r = (cur + i) % n;
			if (r <= cur)
				*wrapped = true;
		} else {
			r = (cur + n - i % n) % n;
			if (r >= cur)
				*wrapped = true;
		}
		if (pred(v, r)) {
			*out = r;
			return true;
		}
	}
	return false;
}

static void describe_mark(struct ui_trace_view *v, bool wrapped)
{
	const struct trace_lat_entry *e = trace_explain_entry_at(v->x, v->sel_line);
	char gap[24];

	if (!e)
		return;
	set_msg(v, UI_ROLE_WARN, "%sdelay mark '%c' on line %u: the next entry came %s later",
		wrapped ? "(wrapped) " : "", e->mark, e->line,
		trace_explain_gap(e->mark, gap, sizeof(gap)));
}

static void jump_mark(struct ui_trace_view *v, int dir)
{
	bool wrapped;
	size_t r;

	if (!v->x->nmarks) {
		set_msg(v, UI_ROLE_DIM, "no delay marks: no gap between entries was above 10 us");
		return;
	}
	if (!find_row(v, dir, row_is_mark, &r, &wrapped))
		return;
	select_row(v, r);
	describe_mark(v, wrapped);
}

static void jump_widest(struct ui_trace_view *v)
{
	if (!v->x->nmarks) {
		set_msg(v, UI_ROLE_DIM, "no delay marks: no gap between entries was above 10 us");
		return;
	}
	select_row(v, row_of_line(v, v->x->trace->entries[v->x->worst_mark].line));
	describe_mark(v, false);
}

static void search(struct ui_trace_view *v, int dir)
{
	bool wrapped;
	size_t r;

	if (!v->needle || !*v->needle) {
		set_msg(v, UI_ROLE_DIM, "no search yet: press / and type a word");
		return;
	}
	if (!find_row(v, dir, row_is_match, &r, &wrapped)) {
		set_msg(v, UI_ROLE_WARN, "'%s' is not in the %s view", v->needle,
			v->raw ? "raw" : "decoded");
		return;
	}
	select_row(v, r);
	if (wrapped)
		set_msg(v, UI_ROLE_WARN, "search hit %s, continuing at %s: '%s' on line %u",
			dir > 0 ? "BOTTOM" : "TOP", dir > 0 ? "TOP" : "BOTTOM", v->needle,
			v->sel_line);
	else
		set_msg(v, UI_ROLE_DIM, "'%s' on line %u", v->needle, v->sel_line);
}

static bool is_backspace(int key)
{
	return key == KEY_BACKSPACE || key == 127 || key == 8;
}

static void input_key(struct ui_trace_view *v, int key)
{
	if (key == TV_KEY_ESC || (is_backspace(key) && !v->ninput)) {
		v->mode = TV_BROWSE;
		return;
	}
	if (is_backspace(key)) {
		while (v->ninput > 0 && ((unsigned char)v->input[--v->ninput] & 0xc0) == 0x80)
			;
		v->input[v->ninput] = '\0';
		return;
	}
	if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		char *n;

		v->mode = TV_BROWSE;
		if (!v->ninput)
			return;
		n = strdup(v->input);
		if (!n) {
			set_msg(v, UI_ROLE_WARN, "out of memory");
			return;
		}
		free(v->needle);
		v->needle = n;
		search(v, 1);
		return;
	}
	if (key < 0x20 || key > 0xff || key == 0x7f)
		return;
	if (v->ninput + 1 < sizeof(v->input)) {
		v->input[v->ninput++] = (char)key;
		v->input[v->ninput] = '\0';
	}
}

static void move_by(struct ui_trace_view *v, long d)
{
	long r = (long)sel_row(v) + d;

	if (r < 0)
		r = 0;
	select_row(v, (size_t)r);
}

enum ui_trace_view_action ui_trace_view_key(struct ui_trace_view *v, int key)
{
	long page = v->page > 2 ? v->page - 1 : 1;

	if (key == KEY_RESIZE || key == ERR)
		return UI_TRACE_VIEW_NONE;
	v->msg[0] = '\0';
	if (v->mode == TV_SEARCH) {
		input_key(v, key);
		return UI_TRACE_VIEW_NONE;
	}
	switch (key) {
	case KEY_DOWN:
	case 'j':
		move_by(v, 1);
		break;
	case KEY_UP:
	case 'k':
		move_by(v, -1);
		break;
	case KEY_NPAGE:
	case ' ':
	case TV_KEY_CTRL('f'):
		move_by(v, page);
		break;
	case KEY_PPAGE:
	case 'b':
	case TV_KEY_CTRL('b'):
		move_by(v, -page);
		break;
	case KEY_HOME:
	case 'g':
		select_row(v, 0);
		break;
	case KEY_END:
	case 'G':
		select_row(v, row_count(v) ? row_count(v) - 1 : 0);
		break;
	case KEY_RIGHT:
	case 'l':
		v->hoff += TV_HSTEP;
		break;
	case KEY_LEFT:
	case 'h':
		v->hoff = v->hoff > TV_HSTEP ? v->hoff - TV_HSTEP : 0;
		break;
	case '/':
		v->mode = TV_SEARCH;
		v->ninput = 0;
		v->input[0] = '\0';
		break;
	case 'n':
		search(v, 1);
		break;
	case 'N':
		search(v, -1);
		break;
	case 'm':
		jump_mark(v, 1);
		break;
	case 'M':
		jump_mark(v, -1);
		break;
	case 'w':
		jump_widest(v);
		break;
	case 'r':
		v->raw = !v->raw;
		/* The same line stays selected; in decoded view the nearest row after it. */
		select_row(v, row_of_line(v, v->sel_line));
		set_msg(v, UI_ROLE_DIM, v->raw ? "raw: every line as the kernel wrote it" :
			"decoded: entries with their flags in words");
		break;
	case '?':
		return UI_TRACE_VIEW_HELP;
	case 'q':
	case TV_KEY_ESC:
		return UI_TRACE_VIEW_CLOSE;
	default:
		break;
	}
	return UI_TRACE_VIEW_NONE;
}
