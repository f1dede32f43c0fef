/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_log: the sink runs with rt_log's lock held and may be called from any
 * thread, so it only copies the message under its own small lock; drawing
 * happens later in the UI loop. The log file is opened once, append-only,
 * and each message is one write() so that lines from two rtlab processes
 * sharing a file do not interleave.
 */
#include "ui_log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/rt_file.h"

static pthread_mutex_t last_lock = PTHREAD_MUTEX_INITIALIZER;
static char last_msg[512];
static enum rt_log_level last_level;
static bool have_last;
static unsigned long serial;
static int log_fd = -1;

static void ui_log_sink(void *priv, enum rt_log_level level, const char *msg)
{
	(void)priv;
	pthread_mutex_lock(&last_lock);
	snprintf(last_msg, sizeof(last_msg), "%s", msg);
	/* The status line is one row: keep only the first line of the message. */
	last_msg[strcspn(last_msg, "\n")] = '\0';
	last_level = level;
	have_last = true;
	serial++;
	pthread_mutex_unlock(&last_lock);

	if (log_fd >= 0) {
		char line[1200], stamp[32];
		struct tm tm;
		time_t now = time(NULL);
		int n;

		if (!localtime_r(&now, &tm) || !strftime(stamp, sizeof(stamp), "%F %T", &tm))
			snprintf(stamp, sizeof(stamp), "%lld", (long long)now);
		n = snprintf(line, sizeof(line), "%s rtlab[%d] %s: %s\n", stamp, (int)getpid(),
			     rt_log_level_name(level), msg);
		if (n > 0)
			(void)rt_write_all(log_fd, line,
					   (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
	}
}

int ui_log_start(void)
{
	const char *path = getenv("RTLAB_LOG");
	int ret = 0;

	ui_log_clear();
	if (path && *path) {
		/* O_NONBLOCK: a FIFO without a reader fails (ENXIO) instead of hanging. */
		log_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY |
			      O_NONBLOCK, 0600);
		if (log_fd < 0)
			ret = -errno;
		else
			fcntl(log_fd, F_SETFL, O_APPEND);
	}
	rt_log_set_sink(ui_log_sink, NULL);
	if (ret)
		rt_log(RT_LOG_WARN, "cannot open the log file %s named by RTLAB_LOG: %s", path,
		       strerror(-ret));
	return ret;
}

void ui_log_stop(void)
{
	rt_log_set_sink(NULL, NULL);
	if (log_fd >= 0)
		close(log_fd);
	log_fd = -1;
}

bool ui_log_last(char *buf, size_t size, enum rt_log_level *level)
{
	bool have;

	pthread_mutex_lock(&last_lock);
	have = have_last;
	if (have && size)
		snprintf(buf, size, "%s", last_msg);
	if (have && level)
		*level = last_level;
	pthread_mutex_unlock(&last_lock);
	return have;
}

void ui_log_clear(void)
{
	pthread_mutex_lock(&last_lock);
	have_last = false;
	last_msg[0] = '\0';
	serial++;
	pthread_mutex_unlock(&last_lock);
}

unsigned long ui_log_serial(void)
{
	unsigned long s;

	pthread_mutex_lock(&last_lock);
	s = serial;
	pthread_mutex_unlock(&last_lock);
	return s;
}
