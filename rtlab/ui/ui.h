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

#endif
