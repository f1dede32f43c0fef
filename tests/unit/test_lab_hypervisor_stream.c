/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_lab_hypervisor_stream: the guest's stream, read back on the host's side of a
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
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/rt_hvstream.h"
#include "labs/lab_hypervisor_stream.h"

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
	struct hypervisor_stream_opts o = { .policy = SCHED_OTHER, .period_us = 1000, .duration_s = 2,
				    .bucket_us = 10, .nbuckets = 2000 };
	struct hypervisor_stream_sent sent;
	struct got g;
	char *cause = NULL;
	int p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
	o.fd = p[1];
	assert_int_equal(hypervisor_stream_run(&o, &sent, &cause), 0);
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
	struct hypervisor_stream_opts o = { .policy = SCHED_OTHER, .period_us = 1000, .duration_s = 60,
				    .bucket_us = 10, .nbuckets = 100, .stop = &stop };
	struct hypervisor_stream_sent sent;
	struct got g;
	char *cause = NULL;
	int p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	o.fd = p[1];
	assert_int_equal(hypervisor_stream_run(&o, &sent, &cause), 0);
	close(p[1]);
	decode(p[0], &g);
	close(p[0]);
	assert_int_equal(g.byes, 1);
	assert_int_equal(g.bye_reason, RT_HVSTREAM_BYE_STOPPED);

	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(pipe(p), 0);
	close(p[0]);
	o.fd = p[1];
	assert_int_equal(hypervisor_stream_run(&o, &sent, &cause), -EPIPE);
	assert_non_null(strstr(cause, "went away"));
	free(cause);
	cause = NULL;
	close(p[1]);

	o.period_us = 10;
	assert_int_equal(hypervisor_stream_run(&o, &sent, &cause), -EINVAL);
	free(cause);
}

static void test_serve_parse(void **state)
{
	static const char *const bad[] = {
		"", "run", "walk policy=fifo", "quit now",
		"run policy=fifo prio=80 period=1000 duration=5",			/* no load */
		"run policy=fifo prio=0 period=1000 duration=5 load=none",		/* prio 0 */
		"run policy=other prio=3 period=1000 duration=5 load=none",	/* prio for other */
		"run policy=idle prio=0 period=1000 duration=5 load=none",
		"run policy=fifo prio=80 period=99 duration=5 load=none",
		"run policy=fifo prio=80 period=1000 duration=0 load=none",
		"run policy=fifo prio=80 period=1000 duration=5 load=cpu",
		"run policy=fifo prio=80 prio=80 period=1000 duration=5 load=none",
		"run policy=fifo prio=80 period=1000 duration=5 load=none speed=2",
		"run policy=fifo prio=80 period=1000 duration=5 load",
		NULL,
	};
	struct hypervisor_serve_cmd c, back;
	char line[HV_SERVE_LINE_MAX], *cause = NULL;

	(void)state;
	assert_int_equal(hypervisor_serve_parse("run policy=fifo prio=80 period=1000 duration=5 "
					"load=batch+disk", &c, &cause), 0);
	assert_int_equal(c.policy, SCHED_FIFO);
	assert_int_equal(c.priority, 80);
	assert_int_equal(c.period_us, 1000);
	assert_int_equal(c.duration_s, 5);
	assert_int_equal(c.load, HV_LOAD_BATCH | HV_LOAD_DISK);
	assert_int_equal(hypervisor_serve_format(&c, line, sizeof(line)) > 0, 1);
	line[strcspn(line, "\n")] = '\0';
	assert_int_equal(hypervisor_serve_parse(line, &back, &cause), 0);
	assert_memory_equal(&c, &back, sizeof(c));
	assert_int_equal(hypervisor_serve_parse("quit", &c, &cause), 0);
	assert_true(c.quit);
	assert_int_equal(hypervisor_serve_format(&c, line, 4), -ENOSPC);
	for (int i = 0; bad[i]; i++) {
		assert_int_equal(hypervisor_serve_parse(bad[i], &c, &cause), -EINVAL);
		assert_non_null(cause);
		free(cause);
		cause = NULL;
	}
}

struct serve_reader {
	int fd;
	struct got g;
	unsigned int byes_error;
};

/* The host's side: count frames until the serving side closes. */
static void *serve_read(void *arg)
{
	struct serve_reader *r = arg;

	decode(r->fd, &r->g);
	return NULL;
}

/*
 * Three commands on one socket: a run, one that does not parse and one
 * that asks for the disk where there is none, then quit: three HELLO ..
 * BYE answers (done, error, error) with sequence numbers running on.
 */
static void test_serve(void **state)
{
	const char cmds[] = "run policy=other prio=0 period=1000 duration=1 load=none\n"
			    "run policy=fifo prio=0 period=1000 duration=1 load=none\n"
			    "run policy=other prio=0 period=1000 duration=1 load=disk\n"
			    "quit\n";
	/* A disk that cannot be opened: the workload's handshake fails, the run is refused. */
	struct hypervisor_serve_opts o = { .idle_s = 20, .disk = "/nonexistent/rtlab-scratch" };
	struct serve_reader r = { 0 };
	unsigned int runs = 0;
	char *cause = NULL;
	pthread_t th;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(write(sv[0], cmds, sizeof(cmds) - 1), (ssize_t)sizeof(cmds) - 1);
	shutdown(sv[0], SHUT_WR);
	r.fd = sv[0];
	assert_int_equal(pthread_create(&th, NULL, serve_read, &r), 0);
	o.fd = sv[1];
	assert_int_equal(hypervisor_stream_serve(&o, &runs, &cause), 0);
	close(sv[1]);
	pthread_join(th, NULL);
	close(sv[0]);
	assert_int_equal(runs, 3);
	assert_int_equal(r.g.hellos, 3);
	assert_int_equal(r.g.byes, 3);
	assert_int_equal(r.g.bye_reason, RT_HVSTREAM_BYE_ERROR);	/* the last one */
	assert_true(r.g.summary_samples > 500);
	assert_int_equal(r.g.hists, (HV_SERVE_BUCKETS + RT_HVSTREAM_HIST_MAX - 1) /
				    RT_HVSTREAM_HIST_MAX);
	assert_int_equal(r.g.stats.seq_gaps, 0);
	assert_int_equal(r.g.stats.skipped, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_serve_parse),
		cmocka_unit_test(test_serve),
		cmocka_unit_test(test_stream_two_seconds),
		cmocka_unit_test(test_stop_and_reader_gone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
