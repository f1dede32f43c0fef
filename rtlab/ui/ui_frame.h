/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_frame: the bordered box that the details pane and the help overlay are
 * drawn in, so both look the same, and the pieces every full-screen panel
 * (the lab screens) draws: a coloured bar, text in a role, the key footer.
 */
#ifndef RTLAB_UI_UI_FRAME_H
#define RTLAB_UI_UI_FRAME_H

#include <stddef.h>

#include <curses.h>

#include "ui_theme.h"

/**
 * ui_frame_draw - clear a @h x @w box at (@y, @x) and draw its border
 * @title: shown in the top edge (UTF-8, cut to fit); may be NULL
 *
 * The interior, (@y + 1, @x + 1) to (@y + @h - 2, @x + @w - 2), is blank
 * afterwards. Boxes smaller than 3x3 are not drawn.
 */
void ui_frame_draw(WINDOW *win, int y, int x, int h, int w, const char *title);

/* Blank the @h x @w area at (@y, @x): overlays hide the screen they cover. */
void ui_frame_clear(WINDOW *win, int y, int x, int h, int w);

/*
 * Draw "more above"/"more below" marks on the right edge of a frame whose
 * content is scrolled.
 */
void ui_frame_scroll_marks(WINDOW *win, int y, int x, int h, int w, int above, int below);

/* Paint row @y from @x over @cols columns in @role (a title or selection bar). */
void ui_frame_bar(WINDOW *win, int y, int x, int cols, enum ui_role role);

/*
 * Draw UTF-8 @s at (@y, @x) in @role, at most @cols columns (cut with an
 * ellipsis). Returns the columns drawn; nothing when @cols <= 0.
 */
int ui_frame_put(WINDOW *win, int y, int x, const char *s, int cols, enum ui_role role);

/*
 * ui_frame_footer - the key hints of a panel on row @y
 * @keys: @n strings, pairs of key and what it does ("q", "back", ...); borrowed
 *
 * Keys are drawn highlighted, the pairs left to right until @cols runs out.
 */
void ui_frame_footer(WINDOW *win, int y, int x, int cols, const char *const *keys, size_t n);

#endif
