/*
 * ui_help: the overlay that lists every key, opened with '?' from any
 * screen. Its key table is the one place where keys are documented, so the
 * footer hints and this list cannot disagree for long.
 */
#ifndef RTLAB_UI_UI_HELP_H
#define RTLAB_UI_UI_HELP_H

#include <stdbool.h>

#include <curses.h>

/* Draw the overlay centred in the @h x @cols area at (@y, @x). */
void ui_help_draw(WINDOW *win, int y, int x, int h, int cols);

/* True when @key closes the help (any real key does; a resize does not). */
bool ui_help_key(int key);

#endif
