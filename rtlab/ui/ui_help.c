/*
 * ui_help: the list is grouped by where a key works. Any key closes the
 * overlay, so nobody gets stuck in it; a terminal resize does not count as
 * a key.
 */
#include "ui_help.h"

#include <stddef.h>

#include "ui_frame.h"
#include "ui_text.h"
#include "ui_theme.h"

struct help_line {
	const char *keys;	/* NULL for a group heading */
	const char *what;
};

static const struct help_line help_lines[] = {
	{ NULL, "In the menu" },
	{ "Up, k / Down, j", "move the selection" },
	{ "PgUp, ^B / PgDn, ^F", "move one page" },
	{ "Home, g / End, G", "first / last entry" },
	{ "Enter, Right, l", "open the details of the entry" },
	{ "q", "quit rtlab" },
	{ NULL, "In a details pane" },
	{ "Up, k / Down, j", "scroll a line" },
	{ "PgUp / PgDn, Space", "scroll a page" },
	{ "Home, g / End, G", "top / bottom" },
	{ "Esc, Left, h, q", "close the pane" },
	{ NULL, "Anywhere" },
	{ "?", "this help; any key closes it" },
	{ "Ctrl-L", "redraw the screen" },
	{ "Ctrl-C", "leave rtlab (the terminal is restored)" },
};

#define HELP_KEY_COLS 21

void ui_help_draw(WINDOW *win, int y, int x, int h, int cols)
{
	int n = (int)(sizeof(help_lines) / sizeof(help_lines[0]));
	int w = cols - 4 < 72 ? cols - 4 : 72;
	int bh = n + 4 < h ? n + 4 : h;
	int by = y + (h - bh) / 2, bx = x + (cols - w) / 2;
	int rows = bh - 4;

	if (w < 30 || bh < 5)
		return;
	ui_frame_clear(win, y, x, h, cols);
	ui_frame_draw(win, by, bx, bh, w, "Keys");
	for (int i = 0; i < n && i < rows; i++) {
		const struct help_line *l = &help_lines[i];
		int ly = by + 2 + i;

		if (!l->keys) {
			wattron(win, ui_theme_attr(UI_ROLE_SECTION));
			ui_text_put(win, ly, bx + 3, l->what, w - 6);
			wattroff(win, ui_theme_attr(UI_ROLE_SECTION));
			continue;
		}
		wattron(win, ui_theme_attr(UI_ROLE_LABEL));
		ui_text_put(win, ly, bx + 5, l->keys, HELP_KEY_COLS);
		wattroff(win, ui_theme_attr(UI_ROLE_LABEL));
		ui_text_put(win, ly, bx + 5 + HELP_KEY_COLS + 1, l->what, w - 9 - HELP_KEY_COLS);
	}
	ui_frame_scroll_marks(win, by, bx, bh, w, 0, n > rows);
}

bool ui_help_key(int key)
{
	return key != KEY_RESIZE && key != ERR;
}
