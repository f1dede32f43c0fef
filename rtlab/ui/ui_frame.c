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
