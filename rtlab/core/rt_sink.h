/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_sink: how the engine reports to a front end.
 *
 * A lab run never draws and never prints. It hands samples, progress and its
 * final status to a sink, which `rtlab lab run` turns into progress lines on
 * stderr (run_opts.sink). The TUI passes none: it draws the lab's live model
 * (lab_ctx.live), a snapshot the lab keeps current, which a screen can read
 * at its own pace. Every callback may be NULL. Callbacks run on the non-RT
 * side (the consumer of the sample ring), never on a measuring thread.
 */
#ifndef RTLAB_CORE_RT_SINK_H
#define RTLAB_CORE_RT_SINK_H

#include <stdint.h>

struct rt_sample {
	unsigned int thread;	/* index of the measuring thread */
	uint64_t seq;		/* cycle number within that thread */
	int64_t latency_ns;	/* wake time minus planned time */
};

struct rt_sink {
	void (*sample)(void *priv, const struct rt_sample *s);
	void (*progress)(void *priv, unsigned int pct, const char *what);
	void (*done)(void *priv, int status);
	void *priv;
};

static inline void rt_sink_sample(const struct rt_sink *sink, const struct rt_sample *s)
{
	if (sink && sink->sample)
		sink->sample(sink->priv, s);
}

static inline void rt_sink_progress(const struct rt_sink *sink, unsigned int pct,
				    const char *what)
{
	if (sink && sink->progress)
		sink->progress(sink->priv, pct, what);
}

static inline void rt_sink_done(const struct rt_sink *sink, int status)
{
	if (sink && sink->done)
		sink->done(sink->priv, status);
}

#endif
