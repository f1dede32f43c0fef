/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_log: the rt_log sink while curses owns the terminal. A message written
 * to stderr then would be drawn over the menu and scroll it, so instead the
 * last message is kept for the status line, and every message is appended to
 * the file named by $RTLAB_LOG when that is set.
 */
#ifndef RTLAB_UI_UI_LOG_H
#define RTLAB_UI_UI_LOG_H

#include <stdbool.h>
#include <stddef.h>

#include "core/rt_log.h"

/**
 * ui_log_start - route rt_log() to the status line (and $RTLAB_LOG)
 *
 * Returns 0, or a negative errno when $RTLAB_LOG cannot be opened; the
 * status-line sink is installed either way and the failure is logged there.
 */
int ui_log_start(void);

/* Give rt_log() back to stderr and close the log file. */
void ui_log_stop(void);

/**
 * ui_log_last - copy the last message into @buf (@size bytes)
 * @level: its level (may be NULL)
 *
 * Returns false when nothing was logged since ui_log_start() or the last
 * ui_log_clear().
 */
bool ui_log_last(char *buf, size_t size, enum rt_log_level *level);

/* Forget the last message (the status line goes blank). */
void ui_log_clear(void);

/* Counts every message, so a screen can tell that it must redraw. */
unsigned long ui_log_serial(void);

#endif
