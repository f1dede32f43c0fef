/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_slides: the full-screen deck presenter of `rtlab slides`. It draws one
 * slide of a parsed deck (lesson/slides.h) at a time: a bar with the deck's
 * title, the slide number and the time since the talk started, the slide's
 * heading as a large banner, its body laid out by the lesson reader's
 * layout, a box for a plot (caption, file and summary figures: the picture
 * itself is the HTML export's), and the key footer. The speaker notes
 * replace the body while 'n' is on. ui_main.c owns the terminal.
 */
#ifndef RTLAB_UI_UI_SLIDES_H
#define RTLAB_UI_UI_SLIDES_H

#include <stdbool.h>

#include <curses.h>

struct slides_deck;
struct ui_slides;

/**
 * ui_slides_new - a presenter on @deck (borrowed: it must outlive the presenter)
 * @class_dir: where "class:" plots are read from, or NULL
 *
 * The clock starts now. Returns NULL when memory runs out.
 */
struct ui_slides *ui_slides_new(const struct slides_deck *deck, const char *class_dir);

/* Release @p. ui_slides_free(NULL) does nothing. */
void ui_slides_free(struct ui_slides *p);

/* Draw the whole @h x @cols screen at (0, 0). */
void ui_slides_draw(struct ui_slides *p, WINDOW *win, int h, int cols);

/* React to @key; returns true when the presenter should close. */
bool ui_slides_key(struct ui_slides *p, int key);

#endif
