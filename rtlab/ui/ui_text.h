/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_text: UTF-8 strings on the terminal, measured in display columns.
 *
 * Every string the menu draws (lesson titles, lab summaries, our own labels
 * and glyphs) is UTF-8. These helpers measure and cut it by display width
 * (rt_utf8: wcwidth() of C.UTF-8 in any locale, the widths the lesson layout
 * uses too), never by bytes, so a wide or multibyte character is drawn whole
 * or not at all. In a locale that is not UTF-8 each non-ASCII character is
 * drawn as one '?' per column it takes, so the layout still holds. Control
 * characters (an ESC from a results file or a trace) and bytes that are not
 * UTF-8 are drawn as rt_text's escapes, "\x1b", one column per character.
 */
#ifndef RTLAB_UI_UI_TEXT_H
#define RTLAB_UI_UI_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include <curses.h>

/* Decide once, after setlocale(), whether the terminal takes UTF-8. */
void ui_text_init(void);

/* True when the locale is UTF-8, so glyphs such as arrows can be used. */
bool ui_text_utf8(void);

/* @utf8 in a UTF-8 locale, else @ascii. Both borrowed; returns one of them. */
const char *ui_text_glyph(const char *utf8, const char *ascii);

/* Display width of @s in columns. */
int ui_text_width(const char *s);

/*
 * Bytes of @s (at most @len) that fit in @cols columns; *width gets the
 * columns they take (may be NULL). Never ends inside a character.
 */
size_t ui_text_fit(const char *s, size_t len, int cols, int *width);

/**
 * ui_text_put - draw @s at (@y, @x) on @win, at most @cols columns wide
 *
 * A string that does not fit ends in an ellipsis. Returns the columns drawn.
 * Characters the terminal cannot show are drawn as '?', controls as "\x1b".
 */
int ui_text_put(WINDOW *win, int y, int x, const char *s, int cols);

/* Like ui_text_put() for the first @len bytes of @s. */
int ui_text_putn(WINDOW *win, int y, int x, const char *s, size_t len, int cols);

/**
 * ui_text_wrap - the next line of @s when wrapped at @cols columns
 * @next: set to the offset where the following line starts (blanks skipped)
 *
 * Breaks after the last blank that fits, or inside a word longer than a
 * line. Returns the byte length of the line without trailing blanks; a
 * '\n' in @s ends a line.
 */
size_t ui_text_wrap(const char *s, int cols, size_t *next);

#endif
