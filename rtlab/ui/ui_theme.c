/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_theme: colours are chosen to read on both dark and light terminals:
 * foregrounds only on the default background, except for the bars and the
 * selection, which bring their own background. Pair numbers equal role
 * numbers, so there is no table to keep in sync.
 */
#include "ui_theme.h"

#include <stdlib.h>

static attr_t theme[UI_ROLE_COUNT];

struct theme_colour {
	short fg, bg;
	attr_t extra;
};

static void theme_mono(void)
{
	theme[UI_ROLE_NORMAL] = A_NORMAL;
	theme[UI_ROLE_TITLE] = A_REVERSE | A_BOLD;
	theme[UI_ROLE_SECTION] = A_BOLD | A_UNDERLINE;
	theme[UI_ROLE_SELECTED] = A_REVERSE;
	theme[UI_ROLE_DIM] = A_DIM;
	theme[UI_ROLE_NUMBER] = A_BOLD;
	theme[UI_ROLE_PROBLEM] = A_BOLD;
	theme[UI_ROLE_COMING] = A_NORMAL;
	theme[UI_ROLE_READY] = A_BOLD;
	theme[UI_ROLE_KEY] = A_REVERSE;
	theme[UI_ROLE_FOOTER] = A_NORMAL;
	theme[UI_ROLE_BORDER] = A_NORMAL;
	theme[UI_ROLE_LABEL] = A_BOLD;
	theme[UI_ROLE_WARN] = A_BOLD;
	theme[UI_ROLE_H1] = A_BOLD | A_UNDERLINE;
	theme[UI_ROLE_H2] = A_BOLD | A_UNDERLINE;
	theme[UI_ROLE_H3] = A_BOLD;
	theme[UI_ROLE_CODE] = A_NORMAL;
	theme[UI_ROLE_LINK] = A_UNDERLINE;
	theme[UI_ROLE_QUOTE] = A_BOLD;
	theme[UI_ROLE_MATCH] = A_REVERSE;
	theme[UI_ROLE_QUIZ] = A_BOLD;
}

bool ui_theme_init(void)
{
	struct theme_colour c[UI_ROLE_COUNT] = {
		[UI_ROLE_NORMAL] = { -1, -1, A_NORMAL },
		[UI_ROLE_TITLE] = { COLOR_WHITE, COLOR_BLUE, A_BOLD },
		[UI_ROLE_SECTION] = { COLOR_CYAN, -1, A_BOLD },
		[UI_ROLE_SELECTED] = { COLOR_BLACK, COLOR_CYAN, A_NORMAL },
		[UI_ROLE_DIM] = { -1, -1, A_DIM },
		[UI_ROLE_NUMBER] = { COLOR_CYAN, -1, A_NORMAL },
		[UI_ROLE_PROBLEM] = { COLOR_RED, -1, A_BOLD },
		[UI_ROLE_COMING] = { COLOR_YELLOW, -1, A_NORMAL },
		[UI_ROLE_READY] = { COLOR_GREEN, -1, A_BOLD },
		[UI_ROLE_KEY] = { COLOR_BLACK, COLOR_CYAN, A_NORMAL },
		[UI_ROLE_FOOTER] = { -1, -1, A_NORMAL },
		[UI_ROLE_BORDER] = { COLOR_CYAN, -1, A_NORMAL },
		[UI_ROLE_LABEL] = { COLOR_CYAN, -1, A_BOLD },
		[UI_ROLE_WARN] = { COLOR_YELLOW, -1, A_BOLD },
		[UI_ROLE_H1] = { COLOR_YELLOW, -1, A_BOLD },
		[UI_ROLE_H2] = { COLOR_CYAN, -1, A_BOLD },
		[UI_ROLE_H3] = { COLOR_GREEN, -1, A_BOLD },
		[UI_ROLE_CODE] = { COLOR_GREEN, -1, A_NORMAL },
		[UI_ROLE_LINK] = { COLOR_MAGENTA, -1, A_UNDERLINE },
		[UI_ROLE_QUOTE] = { COLOR_BLUE, -1, A_BOLD },
		[UI_ROLE_MATCH] = { COLOR_BLACK, COLOR_YELLOW, A_NORMAL },
		[UI_ROLE_QUIZ] = { COLOR_MAGENTA, -1, A_BOLD },
	};

	theme_mono();
	if (getenv("NO_COLOR") || !has_colors() || start_color() == ERR)
		return false;
	if (use_default_colors() == ERR) {
		/* Without "default" colours, assume white on black for -1. */
		for (int r = 0; r < UI_ROLE_COUNT; r++) {
			if (c[r].fg < 0)
				c[r].fg = COLOR_WHITE;
			if (c[r].bg < 0)
				c[r].bg = COLOR_BLACK;
		}
	}
	for (int r = 1; r < UI_ROLE_COUNT && r < COLOR_PAIRS; r++) {
		if (init_pair((short)r, c[r].fg, c[r].bg) == ERR)
			continue;
		theme[r] = COLOR_PAIR(r) | c[r].extra;
	}
	return true;
}

attr_t ui_theme_attr(enum ui_role role)
{
	return role < UI_ROLE_COUNT ? theme[role] : A_NORMAL;
}
