/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_lab_screen: how a lab's live screen plugs into the TUI. A screen is
 * one file, rtlab/ui/ui_lab_<name>.c, that defines a
 * `const struct ui_lab_screen_ops ui_lab_<name>_screen`, plus one line in
 * ui_lab_screens[] (ui_lab_screens.c). The menu opens the screen of a lab
 * it finds there by the lab's name; a ready lab without a screen of its
 * own gets the plain one (ui_lab_plain.c): run with the lab's defaults,
 * then its views.
 *
 * The screen's state is allocated by the caller (@size bytes, zeroed) and
 * handed to every op as @screen. Each screen embeds a struct ui_lab_run,
 * which the caller ticks every loop turn through run().
 */
#ifndef RTLAB_UI_UI_LAB_SCREEN_H
#define RTLAB_UI_UI_LAB_SCREEN_H

#include <stddef.h>

#include <curses.h>

#include "ui_help.h"
#include "ui_lab_run.h"

struct lab_ops;

struct ui_lab_screen_ops {
	const char *lab;	/* the lab's name, as in lab_table[] */
	size_t size;		/* bytes of the screen's state */
	/* Set up the screen (zeroed storage) for @lab; 0 or a negative errno. */
	int (*init)(void *screen, const struct lab_ops *lab);
	void (*draw)(void *screen, WINDOW *win, int y, int x, int h, int cols);
	enum ui_lab_action (*key)(void *screen, int key);
	/* The screen's run, which the caller ticks (ui_lab_run_tick()). */
	struct ui_lab_run *(*run)(void *screen);
	/* The keys to list in the help overlay now; it may depend on the screen's state. */
	const struct ui_help_line *(*help)(void *screen);
	/* Stop a run still on and free; the caller frees the storage afterwards. */
	void (*fini)(void *screen);
};

/*
 * UI_LAB_SCREEN(name, type) - define ui_lab_<name>_screen for a screen file
 * that has, for its state @type (which embeds its struct ui_lab_run as
 * .run), the typed functions ui_lab_<name>_init, _draw, _key, _help and
 * _fini; this adds the untyped entry points the table calls.
 */
#define UI_LAB_SCREEN(name, type)						\
static int name##_screen_init(void *p, const struct lab_ops *lab)		\
{ return ui_lab_##name##_init(p, lab); }					\
static void name##_screen_draw(void *p, WINDOW *win, int y, int x, int h, int cols) \
{ ui_lab_##name##_draw(p, win, y, x, h, cols); }				\
static enum ui_lab_action name##_screen_key(void *p, int key)			\
{ return ui_lab_##name##_key(p, key); }					\
static struct ui_lab_run *name##_screen_run(void *p)				\
{ return &((type *)p)->run; }							\
static const struct ui_help_line *name##_screen_help(void *p)			\
{ return ui_lab_##name##_help(p); }						\
static void name##_screen_fini(void *p)						\
{ ui_lab_##name##_fini(p); }							\
const struct ui_lab_screen_ops ui_lab_##name##_screen = {			\
	.lab = #name, .size = sizeof(type), .init = name##_screen_init,		\
	.draw = name##_screen_draw, .key = name##_screen_key,			\
	.run = name##_screen_run, .help = name##_screen_help,			\
	.fini = name##_screen_fini,						\
}

/* NULL-terminated: the labs with a screen of their own. */
extern const struct ui_lab_screen_ops *const ui_lab_screens[];

/* The plain screen, for a ready lab without one of its own. */
extern const struct ui_lab_screen_ops ui_lab_plain_screen;

/* The screen of @lab: its own, the plain one for a ready lab, or NULL (a planned lab). */
const struct ui_lab_screen_ops *ui_lab_screen_find(const struct lab_ops *lab);

#endif
