/*
 * ui_frame: the bordered box that the details pane and the help overlay are
 * drawn in, so both look the same.
 */
#ifndef RTLAB_UI_UI_FRAME_H
#define RTLAB_UI_UI_FRAME_H

#include <curses.h>

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

#endif
