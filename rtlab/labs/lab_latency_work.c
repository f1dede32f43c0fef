/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_latency_work: the throughput workloads (lab_latency_work.h) and the
 * statistics of their repeats.
 *
 * Timing: a run's clock starts when every worker is ready (threads wait at
 * a gate until then, so creating them is not counted) and the operations
 * are counted at the deadline, while the workers still run; stopping and
 * joining them afterwards is not counted either. Counters have one writer
 * each and are read with atomic loads.
 *
 * The msg and pipe workers block in read() and write() only on descriptors
 * whose other end is alive, and the run closes those ends when it stops
 * them, so a worker never blocks for good.
 */
#include "lab_latency_work.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/rt_err.h"
#include "core/rt_time.h"

#define TPUT_CHECK_EVERY 16u		/* loop rounds between two looks at the clock */
#define TPUT_CPU_CHUNK 16384u		/* cpu: iterations between two looks */
#define TPUT_MSG_THREADS \
	(LATENCY_WORK_MSG_GROUPS * (LATENCY_WORK_MSG_SENDERS + LATENCY_WORK_MSG_RECEIVERS))

static const struct latency_work_info tput_info[LATENCY_WORK_NKINDS] = {
	[LATENCY_WORK_MSG] = { "msg", "messages", "hackbench-style: 2 groups of 5 sender and 5 "
			  "receiver threads, 100-byte messages through Unix stream sockets",
			  true },
	[LATENCY_WORK_PIPE] = { "pipe", "round trips", "two threads pass one byte back and forth "
			   "through two pipes: two wake-ups and two context switches each",
			   true },
	[LATENCY_WORK_FORK] = { "fork", "processes", "fork(), the child exits at once, the parent "
			   "waits for it", true },
	[LATENCY_WORK_CPU] = { "cpu", "iterations", "the control: integer arithmetic in user "
			  "space, no system call", false },
};

const struct latency_work_info *latency_work_info(unsigned int kind)
{
	return kind < LATENCY_WORK_NKINDS ? &tput_info[kind] : NULL;
}

int latency_work_find(const char *name)
{
	for (unsigned int k = 0; name && k < LATENCY_WORK_NKINDS; k++)
		if (!strcmp(tput_info[k].name, name))
			return (int)k;
	return -1;
}

static bool stop_set(const volatile sig_atomic_t *stop)
{
	return stop && *stop;
}

static void finish(struct latency_work_run *out, uint64_t ops, uint64_t t0, bool stopped)
{
	out->ops = ops;
	out->elapsed_s = (double)(rt_time_now_ns() - t0) / 1e9;
	out->ops_per_s = out->elapsed_s > 0 ? (double)ops / out->elapsed_s : 0;
	out->stopped = stopped;
}

/* ---- Worker threads and their gate ---------------------------------------------- */

struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool open;
	int quit;			/* atomic: workers leave their loops */
};

static void gate_init(struct gate *g)
{
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	g->open = false;
	g->quit = 0;
}

static void gate_fini(struct gate *g)
{
	pthread_cond_destroy(&g->cond);
	pthread_mutex_destroy(&g->lock);
}

static void gate_open(struct gate *g)
{
	pthread_mutex_lock(&g->lock);
	g->open = true;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

static void gate_wait(struct gate *g)
{
	pthread_mutex_lock(&g->lock);
	while (!g->open)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

static bool gate_quit(struct gate *g)
{
	return __atomic_load_n(&g->quit, __ATOMIC_RELAXED);
}

/* A worker thread with the stop signals blocked, so they reach the caller's threads. */
static int thread_start(pthread_t *th, void *(*fn)(void *), void *arg, char **cause)
{
	sigset_t block, old;
	int err;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	err = pthread_create(th, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err ? rt_err(cause, -err, "cannot start a worker thread: %s", strerror(err)) : 0;
}

/* write() all of @len bytes; false when the other end is gone. */
static bool write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		buf += n;
		len -= (size_t)n;
	}
	return true;
}

/* ---- msg ------------------------------------------------------------------------ */

struct msg_run {
	struct gate gate;
	int rfd[LATENCY_WORK_MSG_GROUPS * LATENCY_WORK_MSG_RECEIVERS];	/* receivers read here */
	int wfd[LATENCY_WORK_MSG_GROUPS * LATENCY_WORK_MSG_RECEIVERS];	/* senders write here */
	uint64_t bytes[LATENCY_WORK_MSG_GROUPS * LATENCY_WORK_MSG_RECEIVERS];
	pthread_t th[TPUT_MSG_THREADS];
	bool created[TPUT_MSG_THREADS];
};

struct msg_arg {
	struct msg_run *run;
	unsigned int index;		/* receiver index, or group for a sender */
};

static void *msg_receiver(void *arg)
{
	struct msg_arg *a = arg;
	struct msg_run *r = a->run;
	char buf[LATENCY_WORK_MSG_BYTES];

	gate_wait(&r->gate);
	for (;;) {
		ssize_t n = read(r->rfd[a->index], buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;		/* every sender's end is shut: done */
		__atomic_store_n(&r->bytes[a->index], r->bytes[a->index] + (uint64_t)n,
				 __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *msg_sender(void *arg)
{
	struct msg_arg *a = arg;
	struct msg_run *r = a->run;
	unsigned int first = a->index * LATENCY_WORK_MSG_RECEIVERS;
	char buf[LATENCY_WORK_MSG_BYTES];

	memset(buf, 'm', sizeof(buf));
	gate_wait(&r->gate);
	while (!gate_quit(&r->gate))
		for (unsigned int k = 0; k < LATENCY_WORK_MSG_RECEIVERS; k++)
			if (!write_all(r->wfd[first + k], buf, sizeof(buf)))
				return NULL;
	return NULL;
}

static int run_msg(unsigned int duration_ms, const volatile sig_atomic_t *stop,
		   struct latency_work_run *out, char **cause)
{
	const unsigned int nrecv = LATENCY_WORK_MSG_GROUPS * LATENCY_WORK_MSG_RECEIVERS;
	struct msg_arg args[TPUT_MSG_THREADS];
	struct msg_run *r;
	unsigned int t = 0, i;
	uint64_t t0, bytes = 0;
	bool stopped;
	int ret = 0;

	r = calloc(1, sizeof(*r));
	if (!r)
		return rt_err(cause, -ENOMEM, "out of memory");
	gate_init(&r->gate);
	for (i = 0; i < nrecv; i++)
		r->rfd[i] = r->wfd[i] = -1;
	for (i = 0; i < nrecv; i++) {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
			ret = rt_err(cause, -errno, "socketpair: %s", strerror(errno));
			goto out_stop;
		}
		r->rfd[i] = sv[0];
		r->wfd[i] = sv[1];
	}
	for (i = 0; i < nrecv && !ret; i++, t++) {
		args[t] = (struct msg_arg){ .run = r, .index = i };
		ret = thread_start(&r->th[t], msg_receiver, &args[t], cause);
		r->created[t] = !ret;
	}
	for (unsigned int g = 0; g < LATENCY_WORK_MSG_GROUPS && !ret; g++)
		for (i = 0; i < LATENCY_WORK_MSG_SENDERS && !ret; i++, t++) {
			args[t] = (struct msg_arg){ .run = r, .index = g };
			ret = thread_start(&r->th[t], msg_sender, &args[t], cause);
			r->created[t] = !ret;
		}
	if (ret)
		goto out_stop;

	t0 = rt_time_now_ns();
	gate_open(&r->gate);
	stopped = rt_time_sleep_until_ns(t0 + (uint64_t)duration_ms * RT_TIME_NS_PER_MS,
					 stop) == -EINTR;
	for (i = 0; i < nrecv; i++)
		bytes += __atomic_load_n(&r->bytes[i], __ATOMIC_RELAXED);
	finish(out, bytes / LATENCY_WORK_MSG_BYTES, t0, stopped);

out_stop:
	/* Senders first (receivers keep draining), then the receivers see end of file. */
	__atomic_store_n(&r->gate.quit, 1, __ATOMIC_RELAXED);
	gate_open(&r->gate);
	for (t = nrecv; t < TPUT_MSG_THREADS; t++)
		if (r->created[t])
			pthread_join(r->th[t], NULL);
	for (i = 0; i < nrecv; i++)
		if (r->wfd[i] >= 0)
			shutdown(r->wfd[i], SHUT_WR);
	for (t = 0; t < nrecv; t++)
		if (r->created[t])
			pthread_join(r->th[t], NULL);
	for (i = 0; i < nrecv; i++) {
		if (r->rfd[i] >= 0)
			close(r->rfd[i]);
		if (r->wfd[i] >= 0)
			close(r->wfd[i]);
	}
	gate_fini(&r->gate);
	free(r);
	return ret;
}

/* ---- pipe ------------------------------------------------------------------------ */

struct pipe_run {
	struct gate gate;
	int ping[2];			/* the caller writes [1], the echo thread reads [0] */
	int pong[2];			/* the echo thread writes [1], the caller reads [0] */
};

/* The other end: echo every byte until the caller closes its end. */
static void *pipe_echo(void *arg)
{
	struct pipe_run *r = arg;
	char c;

	gate_wait(&r->gate);
	for (;;) {
		ssize_t n = read(r->ping[0], &c, 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || !write_all(r->pong[1], &c, 1))
			break;
	}
	return NULL;
}

static int run_pipe(unsigned int duration_ms, const volatile sig_atomic_t *stop,
		    struct latency_work_run *out, char **cause)
{
	struct pipe_run r = { .ping = { -1, -1 }, .pong = { -1, -1 } };
	uint64_t t0, deadline, ops = 0;
	bool created = false, stopped = false;
	pthread_t th;
	int ret = 0;

	gate_init(&r.gate);
	if (pipe2(r.ping, O_CLOEXEC) || pipe2(r.pong, O_CLOEXEC)) {
		ret = rt_err(cause, -errno, "pipe: %s", strerror(errno));
		goto out;
	}
	ret = thread_start(&th, pipe_echo, &r, cause);
	if (ret)
		goto out;
	created = true;

	t0 = rt_time_now_ns();
	deadline = t0 + (uint64_t)duration_ms * RT_TIME_NS_PER_MS;
	gate_open(&r.gate);
	for (;;) {
		char c = 'p';
		ssize_t n;

		if (!write_all(r.ping[1], &c, 1)) {
			ret = rt_err(cause, -EPIPE, "pipe: the echo thread is gone");
			break;
		}
		do
			n = read(r.pong[0], &c, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1) {
			ret = rt_err(cause, -EPIPE, "pipe: the echo thread is gone");
			break;
		}
		ops++;
		if (ops % TPUT_CHECK_EVERY)
			continue;
		stopped = stop_set(stop);
		if (stopped || rt_time_passed(deadline))
			break;
	}
	if (!ret)
		finish(out, ops, t0, stopped);

out:
	gate_open(&r.gate);
	if (r.ping[1] >= 0)
		close(r.ping[1]);	/* the echo thread reads end of file */
	if (created)
		pthread_join(th, NULL);
	if (r.ping[0] >= 0)
		close(r.ping[0]);
	if (r.pong[0] >= 0)
		close(r.pong[0]);
	if (r.pong[1] >= 0)
		close(r.pong[1]);
	gate_fini(&r.gate);
	return ret;
}

/* ---- fork and cpu ---------------------------------------------------------------- */

static int run_fork(unsigned int duration_ms, const volatile sig_atomic_t *stop,
		    struct latency_work_run *out, char **cause)
{
	uint64_t t0 = rt_time_now_ns(), deadline = t0 + (uint64_t)duration_ms * RT_TIME_NS_PER_MS;
	uint64_t ops = 0;
	bool stopped = false;

	for (;;) {
		pid_t pid = fork();
		int status;

		if (pid == 0)
			_exit(0);	/* a child of a threaded process: nothing but _exit */
		if (pid < 0)
			return rt_err(cause, -errno, "fork: %s", strerror(errno));
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR)
				return rt_err(cause, -errno, "waitpid: %s", strerror(errno));
		ops++;
		stopped = stop_set(stop);
		if (stopped || rt_time_passed(deadline))
			break;
	}
	finish(out, ops, t0, stopped);
	return 0;
}

/* Kept where the compiler cannot drop the loop that computes it. */
static volatile uint64_t cpu_sink;

static int run_cpu(unsigned int duration_ms, const volatile sig_atomic_t *stop,
		   struct latency_work_run *out)
{
	uint64_t t0 = rt_time_now_ns(), deadline = t0 + (uint64_t)duration_ms * RT_TIME_NS_PER_MS;
	uint64_t x = 0x9e3779b97f4a7c15ull, ops = 0;
	bool stopped = false;

	for (;;) {
		for (unsigned int i = 0; i < TPUT_CPU_CHUNK; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		ops += TPUT_CPU_CHUNK;
		stopped = stop_set(stop);
		if (stopped || rt_time_passed(deadline))
			break;
	}
	cpu_sink = x;
	finish(out, ops, t0, stopped);
	return 0;
}

static int run_kind(unsigned int kind, unsigned int duration_ms,
		    const volatile sig_atomic_t *stop, struct latency_work_run *out, char **cause)
{
	switch (kind) {
	case LATENCY_WORK_MSG:
		return run_msg(duration_ms, stop, out, cause);
	case LATENCY_WORK_PIPE:
		return run_pipe(duration_ms, stop, out, cause);
	case LATENCY_WORK_FORK:
		return run_fork(duration_ms, stop, out, cause);
	default:
		return run_cpu(duration_ms, stop, out);
	}
}

int latency_work_run(unsigned int kind, unsigned int duration_ms, int cpu,
		const volatile sig_atomic_t *stop, struct latency_work_run *out, char **cause)
{
	cpu_set_t old, one;
	int ret;

	memset(out, 0, sizeof(*out));
	if (kind >= LATENCY_WORK_NKINDS)
		return rt_err(cause, -EINVAL, "no throughput workload %u", kind);
	if (duration_ms < LATENCY_WORK_MIN_MS || duration_ms > LATENCY_WORK_MAX_MS)
		return rt_err(cause, -EINVAL, "a throughput run lasts %u ms to %u ms, not %u ms",
			      LATENCY_WORK_MIN_MS, LATENCY_WORK_MAX_MS, duration_ms);
	if (cpu < 0)
		return run_kind(kind, duration_ms, stop, out, cause);
	/* The workers and children inherit the caller's mask: all on @cpu. */
	if (cpu >= CPU_SETSIZE)
		return rt_err(cause, -EINVAL, "CPU %d is beyond what a CPU set holds", cpu);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (pthread_getaffinity_np(pthread_self(), sizeof(old), &old))
		return rt_err(cause, -EIO, "cannot read this thread's CPU mask");
	ret = -pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
	if (ret)
		return rt_err(cause, ret, "cannot run on CPU %d: %s", cpu, strerror(-ret));
	ret = run_kind(kind, duration_ms, stop, out, cause);
	pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
	return ret;
}

/* ---- Statistics ------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void latency_work_stats(const double *v, size_t n, struct latency_work_stats *out)
{
	double sorted[64], *s = sorted, sum = 0, sq = 0;

	memset(out, 0, sizeof(*out));
	out->n = n;
	if (!n)
		return;
	if (n > sizeof(sorted) / sizeof(sorted[0])) {
		s = malloc(n * sizeof(*s));
		if (!s) {
			out->n = 0;
			return;
		}
	}
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	out->min = s[0];
	out->max = s[n - 1];
	out->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	for (size_t i = 0; i < n; i++)
		sum += s[i];
	out->mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += (s[i] - out->mean) * (s[i] - out->mean);
	if (n > 1 && out->mean != 0)
		out->cv_pct = sqrt(sq / (double)(n - 1)) / fabs(out->mean) * 100;
	if (out->median != 0)
		out->range_pct = (out->max - out->min) / fabs(out->median) * 100;
	if (s != sorted)
		free(s);
}
