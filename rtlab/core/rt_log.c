/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_log: formats a message once and hands it to the sink the front end
 * chose. The default sink writes "rtlab: warning: ..." lines to stderr. A
 * mutex keeps lines from two threads from interleaving; the RT hot path never
 * logs, so the lock never sits in a measurement.
 */
#include "rt_log.h"

#include <pthread.h>
#include <stdio.h>

#include "rt_text.h"

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static rt_log_fn log_fn;
static void *log_priv;
static enum rt_log_level log_max = RT_LOG_INFO;

const char *rt_log_level_name(enum rt_log_level level)
{
	switch (level) {
	case RT_LOG_ERR:
		return "error";
	case RT_LOG_WARN:
		return "warning";
	case RT_LOG_INFO:
		return "info";
	case RT_LOG_DEBUG:
		return "debug";
	}
	return "log";
}

/* Messages quote files and input (a trace line, a path): escaped, never raw. */
static void log_stderr(void *priv, enum rt_log_level level, const char *msg)
{
	(void)priv;
	if (level == RT_LOG_INFO)
		fputs("rtlab: ", stderr);
	else
		fprintf(stderr, "rtlab: %s: ", rt_log_level_name(level));
	rt_text_fputs(msg, RT_TEXT_KEEP_NL, stderr);
	fputc('\n', stderr);
}

void rt_log_set_sink(rt_log_fn fn, void *priv)
{
	pthread_mutex_lock(&log_lock);
	log_fn = fn;
	log_priv = priv;
	pthread_mutex_unlock(&log_lock);
}

void rt_log_set_level(enum rt_log_level max)
{
	log_max = max;
}

enum rt_log_level rt_log_get_level(void)
{
	return log_max;
}

void rt_logv(enum rt_log_level level, const char *fmt, va_list ap)
{
	char msg[1024];

	if (level > log_max)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	pthread_mutex_lock(&log_lock);
	if (log_fn)
		log_fn(log_priv, level, msg);
	else
		log_stderr(NULL, level, msg);
	pthread_mutex_unlock(&log_lock);
}

void rt_log(enum rt_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rt_logv(level, fmt, ap);
	va_end(ap);
}
