/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_frame: borders use the wide line-drawing characters of ncursesw, which
 * are Unicode box drawing in a UTF-8 locale (so they survive tmux
 * capture-pane and copy-paste) and fall back to the terminal's alternate
 * character set, or ASCII, elsewhere.
 */
#include "ui_frame.h"

#include "ui_text.h"
#include "ui_theme.h"

void ui_frame_clear(WINDOW *win, int y, int x, int h, int w)
{
	for (int r = y; r < y + h; r++)
		mvwhline(win, r, x, ' ', w);
}

void ui_frame_draw(WINDOW *win, int y, int x, int h, int w, const char *title)
{
	attr_t border = ui_theme_attr(UI_ROLE_BORDER);

	if (h < 3 || w < 3)
		return;
	ui_frame_clear(win, y, x, h, w);
	wattron(win, border);
	mvwadd_wch(win, y, x, WACS_ULCORNER);
	mvwhline_set(win, y, x + 1, WACS_HLINE, w - 2);
	mvwadd_wch(win, y, x + w - 1, WACS_URCORNER);
	mvwvline_set(win, y + 1, x, WACS_VLINE, h - 2);
	mvwvline_set(win, y + 1, x + w - 1, WACS_VLINE, h - 2);
	mvwadd_wch(win, y + h - 1, x, WACS_LLCORNER);
	mvwhline_set(win, y + h - 1, x + 1, WACS_HLINE, w - 2);
	mvwadd_wch(win, y + h - 1, x + w - 1, WACS_LRCORNER);
	wattroff(win, border);
	if (title && w > 8) {
		wattron(win, ui_theme_attr(UI_ROLE_SECTION));
		mvwaddch(win, y, x + 2, ' ');
		ui_text_put(win, y, x + 3, title, w - 8);
		waddch(win, ' ');
		wattroff(win, ui_theme_attr(UI_ROLE_SECTION));
	}
}

void ui_frame_scroll_marks(WINDOW *win, int y, int x, int h, int w, int above, int below)
{
	attr_t a = ui_theme_attr(UI_ROLE_BORDER) | A_BOLD;

	if (h < 3 || w < 3)
		return;
	wattron(win, a);
	if (above)
		ui_text_put(win, y, x + w - 3, ui_text_glyph("\xe2\x96\xb2", "^"), 1);
	if (below)
		ui_text_put(win, y + h - 1, x + w - 3, ui_text_glyph("\xe2\x96\xbc", "v"), 1);
	wattroff(win, a);
}

void ui_frame_bar(WINDOW *win, int y, int x, int cols, enum ui_role role)
{
	wattron(win, ui_theme_attr(role));
	mvwhline(win, y, x, ' ', cols);
	wattroff(win, ui_theme_attr(role));
}

int ui_frame_put(WINDOW *win, int y, int x, const char *s, int cols, enum ui_role role)
{
	int n;

	if (cols <= 0)
		return 0;
	wattron(win, ui_theme_attr(role));
	n = ui_text_put(win, y, x, s, cols);
	wattroff(win, ui_theme_attr(role));
	return n;
}

void ui_frame_footer(WINDOW *win, int y, int x, int cols, const char *const *keys, size_t n)
{
	int cx = x + 1;

	for (size_t i = 0; i + 1 < n && cx < x + cols - 2; i += 2) {
		wattron(win, ui_theme_attr(UI_ROLE_KEY));
		mvwaddch(win, y, cx, ' ');
		cx += 1 + ui_text_put(win, y, cx + 1, keys[i], x + cols - cx - 2);
		waddch(win, ' ');
		cx++;
		wattroff(win, ui_theme_attr(UI_ROLE_KEY));
		cx += 1 + ui_frame_put(win, y, cx + 1, keys[i + 1], x + cols - cx - 2,
				       UI_ROLE_FOOTER);
		cx += 2;
	}
}
