/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_hog: a child process that plants bounded disturbances.
 *
 * The child and the parent share one page of counters (MAP_SHARED), written
 * by the child with atomic stores and read by the parent at any time, so
 * the lab can tell exactly when each planted event began. The event bodies
 * are noinline functions with distinct names; the loop around them sleeps
 * on absolute CLOCK_MONOTONIC deadlines so the rate limit holds even when
 * an event overruns a little.
 */
#include "trace_hog.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/rt_child.h"
#include "core/rt_err.h"
#include "core/rt_time.h"

#define HOG_STORM_BYTES (16u << 20)	/* fault storm region; re-faulted after MADV_DONTNEED */
#define HOG_STOP_GRACE_MS 500		/* after SIGTERM, before SIGKILL */
/*
 * For the child to set itself up: milliseconds on an idle machine, seconds
 * on a loaded one, where it waits for a CPU. A child that ends first is
 * seen at once; the bound only catches one that cannot run at all.
 */
#define HOG_START_WAIT_MS 60000

struct hog_shared {
	uint64_t events;
	uint64_t work;
	uint64_t busy_ns;
	uint64_t max_event_ns;
	uint64_t last_start_ns;
	int setup_err;
	int ready;
};

struct trace_hog {
	struct rt_child *child;	/* owned; NULL before the start */
	pid_t pid;
	struct trace_hog_params p;
	struct hog_shared *sh;	/* owned mapping */
};

/* ---- The events: one named function each ---- */

__attribute__((noinline)) static uint64_t trace_hog_fifo_spin(uint64_t end)
{
	uint64_t n = 0;

	while (rt_time_now_ns() < end)
		n++;
	return n;
}

__attribute__((noinline)) static uint64_t trace_hog_fault_storm(uint64_t end, char *region)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t n = 0;
	size_t off = 0;

	madvise(region, HOG_STORM_BYTES, MADV_DONTNEED);
	while (rt_time_now_ns() < end) {
		for (int i = 0; i < 16; i++) {
			if (off >= HOG_STORM_BYTES) {
				madvise(region, HOG_STORM_BYTES, MADV_DONTNEED);
				off = 0;
			}
			((volatile char *)region)[off] = (char)n;
			off += page;
			n++;
		}
	}
	return n;
}

__attribute__((noinline)) static uint64_t trace_hog_syscall_burst(uint64_t end)
{
	uint64_t n = 0;

	while (rt_time_now_ns() < end) {
		for (int i = 0; i < 16; i++)
			syscall(SYS_getppid);
		n += 16;
	}
	return n;
}

const char *trace_hog_function(enum trace_hog_kind kind)
{
	switch (kind) {
	case TRACE_HOG_FIFO_SPIN:
		return "trace_hog_fifo_spin";
	case TRACE_HOG_FAULT_STORM:
		return "trace_hog_fault_storm";
	case TRACE_HOG_SYSCALL_BURST:
		return "trace_hog_syscall_burst";
	}
	return "?";
}

/* ---- The child ---- */

static void hog_fail(struct hog_shared *sh, int err)
{
	__atomic_store_n(&sh->setup_err, err, __ATOMIC_RELEASE);
	_exit(1);
}

/* The child, which dies with us (RT_CHILD_DIE_WITH_PARENT); @arg: the hog as at the fork. */
static int hog_main(void *arg)
{
	const struct trace_hog *h = arg;
	const struct trace_hog_params *p = &h->p;
	struct hog_shared *sh = h->sh;
	struct sched_param sp = { .sched_priority = p->prio };
	char *region = NULL;
	uint64_t next;

	if (p->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(p->cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0)
			hog_fail(sh, -errno);
	}
	if (p->kind == TRACE_HOG_FAULT_STORM) {
		region = mmap(NULL, HOG_STORM_BYTES, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (region == MAP_FAILED)
			hog_fail(sh, -errno);
	}
	if (p->prio > 0 && sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
		hog_fail(sh, -errno);
	__atomic_store_n(&sh->ready, 1, __ATOMIC_RELEASE);

	next = rt_time_now_ns();
	for (unsigned int i = 0; !p->count || i < p->count; i++) {
		uint64_t t0, t1, w = 0, end;

		rt_time_sleep_until_ns(next, NULL);
		t0 = rt_time_now_ns();
		end = t0 + (uint64_t)p->burst_us * 1000u;
		__atomic_store_n(&sh->last_start_ns, t0, __ATOMIC_RELAXED);
		switch (p->kind) {
		case TRACE_HOG_FIFO_SPIN:
			w = trace_hog_fifo_spin(end);
			break;
		case TRACE_HOG_FAULT_STORM:
			w = trace_hog_fault_storm(end, region);
			break;
		case TRACE_HOG_SYSCALL_BURST:
			w = trace_hog_syscall_burst(end);
			break;
		}
		t1 = rt_time_now_ns();
		__atomic_fetch_add(&sh->work, w, __ATOMIC_RELAXED);
		__atomic_fetch_add(&sh->busy_ns, t1 - t0, __ATOMIC_RELAXED);
		if (t1 - t0 > __atomic_load_n(&sh->max_event_ns, __ATOMIC_RELAXED))
			__atomic_store_n(&sh->max_event_ns, t1 - t0, __ATOMIC_RELAXED);
		__atomic_fetch_add(&sh->events, 1, __ATOMIC_RELEASE);
		next += (uint64_t)p->period_us * 1000u;
		if (next < t1)
			next = t1 + (uint64_t)p->period_us * 1000u;	/* overran: no catch-up burst */
	}
	return 0;
}

/* ---- Export ---- */

struct trace_hog *trace_hog_start(const struct trace_hog_params *p, char **cause)
{
	struct rt_child_opts o = { .fn = hog_main, .flags = RT_CHILD_DIE_WITH_PARENT };
	struct trace_hog *h = NULL;
	uint64_t deadline;
	int ret;

	if (!p || p->kind > TRACE_HOG_SYSCALL_BURST || p->prio < 0 || p->prio > 98 ||
	    p->burst_us == 0 || (p->kind == TRACE_HOG_FIFO_SPIN && p->prio == 0) ||
	    p->cpu < -1 || p->cpu >= CPU_SETSIZE) {
		ret = rt_err(cause, -EINVAL, "bad hog parameters");
		goto out_err;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		ret = rt_err(cause, -ENOMEM, "out of memory");
		goto out_err;
	}
	h->p = *p;
	if (h->p.burst_us > TRACE_HOG_MAX_BURST_US)
		h->p.burst_us = TRACE_HOG_MAX_BURST_US;
	if (h->p.period_us < TRACE_HOG_MIN_PERIOD_US)
		h->p.period_us = TRACE_HOG_MIN_PERIOD_US;
	if (h->p.period_us < h->p.burst_us * 10)
		h->p.period_us = h->p.burst_us * 10;
	h->sh = mmap(NULL, sizeof(*h->sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		     -1, 0);
	if (h->sh == MAP_FAILED) {
		h->sh = NULL;
		ret = rt_err(cause, -errno, "cannot map the hog's counters: %s", strerror(errno));
		goto out_err;
	}
	o.arg = h;
	h->child = rt_child_start(&o, NULL);
	if (!h->child) {
		ret = rt_err(cause, -errno, "cannot fork the hog: %s", strerror(errno));
		goto out_err;
	}
	h->pid = rt_child_pid(h->child);

	/* Wait for the child to be set up, so a refused SCHED_FIFO fails here. */
	deadline = rt_time_deadline_ms(HOG_START_WAIT_MS);
	while (!__atomic_load_n(&h->sh->ready, __ATOMIC_ACQUIRE)) {
		int err = __atomic_load_n(&h->sh->setup_err, __ATOMIC_ACQUIRE);

		/* A millisecond's wait for the child's end between looks: one that died says so. */
		if (!err && rt_child_wait(h->child, 1, NULL) != -ETIMEDOUT &&
		    !__atomic_load_n(&h->sh->ready, __ATOMIC_ACQUIRE))
			err = __atomic_load_n(&h->sh->setup_err, __ATOMIC_ACQUIRE) ?: -ECHILD;
		if (err || rt_time_passed(deadline)) {
			ret = rt_err(cause, err ? err : -ETIMEDOUT, "the %s hog did not start: %s",
				     trace_hog_function(p->kind), strerror(err ? -err : ETIMEDOUT));
			goto out_err;
		}
	}
	return h;

out_err:
	trace_hog_stop(h, NULL);
	errno = -ret;
	return NULL;
}

pid_t trace_hog_pid(const struct trace_hog *h)
{
	return h->pid;
}

const struct trace_hog_params *trace_hog_params(const struct trace_hog *h)
{
	return &h->p;
}

void trace_hog_stats(const struct trace_hog *h, struct trace_hog_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->events = __atomic_load_n(&h->sh->events, __ATOMIC_ACQUIRE);
	out->work = __atomic_load_n(&h->sh->work, __ATOMIC_RELAXED);
	out->busy_ns = __atomic_load_n(&h->sh->busy_ns, __ATOMIC_RELAXED);
	out->max_event_ns = __atomic_load_n(&h->sh->max_event_ns, __ATOMIC_RELAXED);
	out->last_start_ns = __atomic_load_n(&h->sh->last_start_ns, __ATOMIC_RELAXED);
	out->setup_err = __atomic_load_n(&h->sh->setup_err, __ATOMIC_RELAXED);
}

int trace_hog_wait(struct trace_hog *h, unsigned int timeout_ms)
{
	uint64_t deadline = rt_time_deadline_ms(timeout_ms);

	for (;;) {
		if (h->p.count && __atomic_load_n(&h->sh->events, __ATOMIC_ACQUIRE) >= h->p.count)
			return 0;
		/* A millisecond's wait for the child's end, between looks at the counter. */
		if (rt_child_wait(h->child, 1, NULL) != -ETIMEDOUT)
			return 0;
		if (rt_time_passed(deadline))
			return -ETIMEDOUT;
	}
}

int trace_hog_stop(struct trace_hog *h, struct trace_hog_stats *final)
{
	int ret = 0;

	if (!h)
		return 0;
	if (h->child) {
		ret = rt_child_stop(h->child, SIGTERM, HOG_STOP_GRACE_MS, NULL);
		rt_child_free(h->child);
	}
	if (h->sh) {
		if (final)
			trace_hog_stats(h, final);
		munmap(h->sh, sizeof(*h->sh));
	}
	free(h);
	return ret;
}
