/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui: the ncurses front end, a thin layer over the engine. Everything here
 * only draws models built by the library and forwards keys.
 */
#ifndef RTLAB_UI_UI_H
#define RTLAB_UI_UI_H

/**
 * ui_main - run the interactive application until the learner quits
 *
 * Returns a process exit status: 0 on a normal quit, 1 if the terminal could
 * not be used (the reason is logged), or 128 + the signal number when SIGINT,
 * SIGTERM or SIGHUP ended it. The terminal is restored in every case.
 */
int ui_main(void);

/**
 * ui_view_trace - run the interactive trace viewer alone on one file
 * @path: a raw `trace` file or an ftrace lab results document
 *
 * `rtlab trace view FILE`. Same terminal checks, signal handling and exit
 * statuses as ui_main(); a file that cannot be read or holds no trace is
 * reported on stderr (naming the file) before the screen is touched, and
 * gives 1.
 */
int ui_view_trace(const char *path);

struct slides_deck;

/**
 * ui_view_slides - present @deck full screen until the teacher quits
 * @class_dir: the folder "class:" plots are read from, or NULL
 *
 * `rtlab slides [DECK]`. Same terminal checks, signal handling and exit
 * statuses as ui_main(); the caller has loaded the deck and said what is
 * wrong with it before the screen changes.
 */
int ui_view_slides(const struct slides_deck *deck, const char *class_dir);

#endif
