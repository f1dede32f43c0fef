/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_log: the one logging entry point of rtlab.
 *
 * The engine never prints. It calls rt_log(), and the front end decides where
 * the message goes: stderr for the CLI, a log pane or a file for the ncurses
 * UI (which owns the terminal). RT threads never call rt_log(); they bump
 * counters that the non-RT side reports.
 */
#ifndef RTLAB_CORE_RT_LOG_H
#define RTLAB_CORE_RT_LOG_H

#include <stdarg.h>

enum rt_log_level {
	RT_LOG_ERR,
	RT_LOG_WARN,
	RT_LOG_INFO,
	RT_LOG_DEBUG,
};

/* A sink receives one formatted message without a trailing newline. */
typedef void (*rt_log_fn)(void *priv, enum rt_log_level level, const char *msg);

/**
 * rt_log - log a message at @level through the current sink
 * @level: severity; messages above the current threshold are dropped
 * @fmt: printf-style format
 */
void rt_log(enum rt_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void rt_logv(enum rt_log_level level, const char *fmt, va_list ap);

/**
 * rt_log_set_sink - route messages to @fn (NULL restores the stderr sink)
 * @fn: the sink; called with the log lock held, so it must not call rt_log()
 * @priv: passed back to @fn
 */
void rt_log_set_sink(rt_log_fn fn, void *priv);

/* Messages with a level numerically above @max are dropped (default RT_LOG_INFO). */
void rt_log_set_level(enum rt_log_level max);
enum rt_log_level rt_log_get_level(void);

/* "error", "warning", "info", "debug" */
const char *rt_log_level_name(enum rt_log_level level);

#endif
