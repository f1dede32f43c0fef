/*
 * test_lab_hv_stream: the guest's stream, read back on the host's side of a
 * pipe with the decoder: HELLO, a SUMMARY per second of the probe's
 * timeline, the histogram in HIST slices, BYE; every sample accounted for,
 * no sequence gap; a stop before the end says so; a reader that went away
 * is an error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/rt_hvstream.h"
#include "labs/lab_hv_stream.h"

struct got {
	struct rt_hvstream_hello hello;
	unsigned int hellos, summaries, hists, byes;
	uint64_t summary_samples, hist_samples, overflows, bye_samples;
	uint32_t bye_reason, last_second;
	struct rt_hvstream_stats stats;
};

static void decode(int fd, struct got *g)
{
	static struct rt_hvstream_dec d;
	static struct rt_hvstream_frame f;
	uint8_t buf[4096];
	ssize_t n;

	memset(g, 0, sizeof(*g));
	rt_hvstream_dec_init(&d);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		size_t off = 0;

		while (off < (size_t)n) {
			off += rt_hvstream_feed(&d, buf + off, (size_t)n - off);
			while (rt_hvstream_next(&d, &f) == 1) {
				switch (f.type) {
				case RT_HVSTREAM_HELLO:
					g->hello = f.u.hello;
					g->hellos++;
					break;
				case RT_HVSTREAM_SUMMARY:
					g->summaries++;
					g->summary_samples += f.u.summary.samples;
					g->overflows += f.u.summary.overflows;
					assert_true(f.u.summary.min_ns <= f.u.summary.avg_ns);
					assert_true(f.u.summary.avg_ns <= f.u.summary.max_ns);
					g->last_second = f.u.summary.second;
					break;
				case RT_HVSTREAM_HIST:
					g->hists++;
					for (unsigned int i = 0; i < f.u.hist.count; i++)
						g->hist_samples += f.u.hist.counts[i];
					break;
				case RT_HVSTREAM_BYE:
					g->byes++;
					g->bye_samples = f.u.bye.samples;
					g->bye_reason = f.u.bye.reason;
					break;
				}
			}
		}
	}
	g->stats = d.stats;
}

static void test_stream_two_seconds(void **state)
{
	struct hv_stream_opts o = { .policy = SCHED_OTHER, .period_us = 1000, .duration_s = 2,
				    .bucket_us = 10, .nbuckets = 2000 };
	struct hv_stream_sent sent;
	struct got g;
	char *cause = NULL;
	int p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
	o.fd = p[1];
	assert_int_equal(hv_stream_run(&o, &sent, &cause), 0);
	close(p[1]);
	decode(p[0], &g);
	close(p[0]);
	assert_int_equal(g.hellos, 1);
	assert_string_equal(g.hello.policy, "SCHED_OTHER");
	assert_int_equal(g.hello.period_us, 1000);
	assert_int_equal(g.hello.nbuckets, 2000);
	assert_true(g.hello.kernel[0] != '\0');
	/* 2 s of 1 ms periods: seconds 0 and 1 (a last partial one may follow) */
	assert_true(g.summaries >= 2 && g.summaries <= 3);
	assert_true(g.last_second >= 1 && g.last_second <= 2);
	assert_int_equal(g.hists, 2);	/* 2000 buckets: 1022 + 978 */
	assert_int_equal(g.byes, 1);
	assert_int_equal(g.bye_reason, RT_HVSTREAM_BYE_DONE);
	assert_true(g.bye_samples > 1000);
	assert_int_equal(g.summary_samples, g.bye_samples);
	assert_int_equal(g.hist_samples + g.overflows, g.bye_samples);
	assert_int_equal(sent.samples, g.bye_samples);
	assert_int_equal(sent.frames, g.stats.frames);
	assert_int_equal(g.stats.seq_gaps, 0);
	assert_int_equal(g.stats.skipped, 0);
}

static void test_stop_and_reader_gone(void **state)
{
	volatile sig_atomic_t stop = 1;
	struct hv_stream_opts o = { .policy = SCHED_OTHER, .period_us = 1000, .duration_s = 60,
				    .bucket_us = 10, .nbuckets = 100, .stop = &stop };
	struct hv_stream_sent sent;
	struct got g;
	char *cause = NULL;
	int p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	o.fd = p[1];
	assert_int_equal(hv_stream_run(&o, &sent, &cause), 0);
	close(p[1]);
	decode(p[0], &g);
	close(p[0]);
	assert_int_equal(g.byes, 1);
	assert_int_equal(g.bye_reason, RT_HVSTREAM_BYE_STOPPED);

	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(pipe(p), 0);
	close(p[0]);
	o.fd = p[1];
	assert_int_equal(hv_stream_run(&o, &sent, &cause), -EPIPE);
	assert_non_null(strstr(cause, "went away"));
	free(cause);
	cause = NULL;
	close(p[1]);

	o.period_us = 10;
	assert_int_equal(hv_stream_run(&o, &sent, &cause), -EINVAL);
	free(cause);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stream_two_seconds),
		cmocka_unit_test(test_stop_and_reader_gone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
