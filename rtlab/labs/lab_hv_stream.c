/*
 * lab_hv_stream: the probe's results as rt_hvstream frames (see the header).
 *
 * Seconds are those of the probe's own timeline (sample n of a thread with
 * period P belongs to second n * P / 1 s), not of the consumer's clock, so a
 * guest whose consumer was held up still reports each second's samples in
 * the right second: a SUMMARY goes out when the first sample of a later
 * second arrives, and the last (partial) one at the end.
 */
#include "lab_hv_stream.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "core/rt_env.h"
#include "core/rt_err.h"
#include "core/rt_file.h"
#include "core/rt_hvstream.h"
#include "core/rt_probe.h"
#include "core/rt_sink.h"

struct hv_acc {
	const struct hv_stream_opts *o;
	uint32_t *hist;
	uint64_t overflows;		/* of the whole run */
	struct rt_hvstream_summary sec;	/* the second being filled */
	uint64_t sum_ns, sec_overflows;
	uint32_t seq;
	uint64_t samples;
	struct hv_stream_sent *sent;
	int err;			/* the first write error */
};

static int put(struct hv_acc *a, const uint8_t *buf, int len)
{
	if (len < 0)
		return a->err ? a->err : (a->err = len);
	if (!a->err && rt_write_all(a->o->fd, buf, (size_t)len))
		a->err = -EPIPE;
	if (!a->err)
		a->sent->frames++;
	a->seq++;
	return a->err;
}

static void flush_second(struct hv_acc *a)
{
	uint8_t buf[RT_HVSTREAM_FRAME_MAX];

	if (!a->sec.samples)
		return;
	a->sec.avg_ns = a->sum_ns / a->sec.samples;
	a->sec.overflows = a->sec_overflows;
	put(a, buf, rt_hvstream_encode_summary(a->seq, &a->sec, buf, sizeof(buf)));
	a->sent->seconds++;
	memset(&a->sec, 0, sizeof(a->sec));
	a->sum_ns = a->sec_overflows = 0;
}

static void on_sample(void *priv, const struct rt_sample *s)
{
	struct hv_acc *a = priv;
	uint64_t second = s->seq * a->o->period_us / 1000000u;
	uint64_t ns = s->latency_ns < 0 ? 0 : (uint64_t)s->latency_ns;
	uint64_t b = ns / 1000u / a->o->bucket_us;

	if (second != a->sec.second && a->sec.samples)
		flush_second(a);
	a->sec.second = (uint32_t)second;
	if (!a->sec.samples || ns < a->sec.min_ns)
		a->sec.min_ns = ns;
	if (ns > a->sec.max_ns)
		a->sec.max_ns = ns;
	a->sec.samples++;
	a->sum_ns += ns;
	a->samples++;
	if (b < a->o->nbuckets) {
		a->hist[b]++;
	} else {
		a->overflows++;
		a->sec_overflows++;
	}
}

/* HELLO: this kernel, its preemption model, the probe's policy. */
static int hello(struct hv_acc *a)
{
	static const char *const names[] = { [SCHED_OTHER] = "SCHED_OTHER",
					     [SCHED_FIFO] = "SCHED_FIFO",
					     [SCHED_RR] = "SCHED_RR" };
	struct rt_hvstream_hello h = { .priority = (uint8_t)a->o->priority,
				       .period_us = a->o->period_us,
				       .nbuckets = a->o->nbuckets,
				       .bucket_us = a->o->bucket_us };
	uint8_t buf[RT_HVSTREAM_FRAME_MAX];
	struct rt_env env = { 0 };
	struct utsname u;

	if (!uname(&u))
		snprintf(h.kernel, sizeof(h.kernel), "%.64s", u.release);
	if (!rt_env_probe(&env) && env.preempt_model)
		snprintf(h.preempt, sizeof(h.preempt), "%.64s", env.preempt_model);
	rt_env_fini(&env);
	snprintf(h.policy, sizeof(h.policy), "%s",
		 a->o->policy >= 0 && a->o->policy <= SCHED_RR ? names[a->o->policy] : "?");
	return put(a, buf, rt_hvstream_encode_hello(a->seq, &h, buf, sizeof(buf)));
}

static void bye(struct hv_acc *a, uint32_t reason)
{
	struct rt_hvstream_bye b = { a->samples, reason };
	uint8_t buf[RT_HVSTREAM_FRAME_MAX];

	put(a, buf, rt_hvstream_encode_bye(a->seq, &b, buf, sizeof(buf)));
}

int hv_stream_run(const struct hv_stream_opts *o, struct hv_stream_sent *sent, char **cause)
{
	struct hv_acc a = { .o = o, .sent = sent };
	struct rt_sink sink = { .sample = on_sample, .priv = &a };
	struct rt_probe_config cfg;
	struct rt_probe *p = NULL;
	uint8_t buf[RT_HVSTREAM_FRAME_MAX];
	int ret;

	memset(sent, 0, sizeof(*sent));
	if (o->period_us < 100 || o->duration_s < 1 || o->duration_s > 3600 || !o->bucket_us ||
	    !o->nbuckets || o->nbuckets > 100000)
		return rt_err(cause, -EINVAL, "the stream's period (>= 100 us), duration "
			      "(1 .. 3600 s) or histogram (1 .. 100000 buckets) is out of range");
	a.hist = calloc(o->nbuckets, sizeof(*a.hist));
	if (!a.hist)
		return -ENOMEM;
	ret = hello(&a);
	if (ret) {
		rt_err(cause, ret, "the stream's reader went away: %s", strerror(-ret));
		goto out;
	}
	rt_probe_config_init(&cfg);
	cfg.policy = o->policy;
	cfg.priority = o->priority;
	cfg.interval_us = o->period_us;
	cfg.duration_ms = o->duration_s * 1000u;
	cfg.mlock = o->mlock;
	ret = rt_probe_start(&cfg, &p, cause);
	if (ret) {
		bye(&a, RT_HVSTREAM_BYE_ERROR);
		goto out;
	}
	while (!rt_probe_finished(p) && !(o->stop && *o->stop) && !a.err) {
		struct timespec ts = { 0, 20 * 1000000L };

		rt_probe_poll(p, NULL, &sink);
		nanosleep(&ts, NULL);
	}
	rt_probe_stop(p);
	while (rt_probe_poll(p, NULL, &sink) > 0)
		;
	flush_second(&a);
	for (uint32_t first = 0; first < o->nbuckets && !a.err; first += RT_HVSTREAM_HIST_MAX) {
		uint32_t n = o->nbuckets - first < RT_HVSTREAM_HIST_MAX ?
			     o->nbuckets - first : RT_HVSTREAM_HIST_MAX;

		put(&a, buf, rt_hvstream_encode_hist(a.seq, first, a.hist + first, n, buf,
						     sizeof(buf)));
	}
	bye(&a, o->stop && *o->stop ? RT_HVSTREAM_BYE_STOPPED : RT_HVSTREAM_BYE_DONE);
	sent->samples = a.samples;
	ret = a.err;
	if (ret)
		rt_err(cause, ret, "the stream's reader went away: %s", strerror(-ret));
out:
	if (p)
		rt_probe_free(p);
	free(a.hist);
	return ret;
}
