/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_cookie_prio: the priority protocols of the cookie lab (lab_cookie.h).
 *
 * Three diners on one CPU at SCHED_FIFO: a low-priority holder (10) that
 * takes the plate often and keeps it for hold_ns, a medium-priority CPU
 * hog (20) that never touches the plate but runs bursts of burst_ns, and
 * a high-priority diner (30) that wants the plate every 2 ms and records
 * how long it waited. The plate's lock is a PTHREAD_PRIO_INHERIT mutex
 * (the holder is lifted to 30 while the high diner waits, so the hog
 * cannot hold it up: the wait stays near hold_ns), a plain mutex (the hog
 * runs while the holder waits under it: the high diner's wait grows to the
 * hog's burst), ck_spinlock_ticket (the high diner spins on the CPU the
 * preempted holder needs: it would spin for ever) or a PTHREAD_PRIO_PROTECT
 * mutex with its ceiling at 30 (the holder runs at 30 from the moment it
 * takes the plate, so the hog never preempts it inside: the wait stays
 * near hold_ns, and the hog is held up by each hold even when the high
 * diner does not want the plate).
 *
 * A watchdog at SCHED_FIFO 40 on the same CPU wakes every 10 ms; when the
 * high diner has waited longer than watchdog_ns it ends the run: it puts
 * every diner back to SCHED_OTHER, where the holder gets the CPU again,
 * lets go, and everyone sees the end. Each thread raises itself through
 * the undo journal (which puts it back if the process dies on the way)
 * and lowers itself to SCHED_OTHER before it exits, so no RT thread is
 * left behind.
 */
#include "lab_cookie.h"

#include <ck_pr.h>
#include <ck_spinlock.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/rt_err.h"
#include "core/rt_hist.h"
#include "core/rt_sink.h"
#include "core/rt_time.h"
#include "lab_thread.h"

#define PRIO_LOW 10
#define PRIO_HOG 20
#define PRIO_HIGH 30
#define PRIO_WATCHDOG 40
#define HIGH_PERIOD_NS 2000000ull
#define HOG_REST_NS 3000000ull
#define LOW_REST_NS 200000ull
#define WATCHDOG_TICK_NS 10000000ull
#define WAIT_HIST_US 50000u

enum { T_LOW, T_HOG, T_HIGH, T_WATCHDOG, T_COUNT };

struct prio_run {
	const struct cookie_prio_opts *o;
	pthread_mutex_t mutex;
	ck_spinlock_ticket_t ticket;
	int ready;			/* threads at their priority, waiting for go */
	int go;
	pid_t tid[T_COUNT];
	int done;			/* the diners stop */
	int quit;			/* the watchdog stops (the diners are joined) */
	int failed;			/* a thread could not get its priority: -errno */
	uint64_t waiting_since;		/* the high diner is waiting since, or 0 */
	uint64_t high_waits, wait_max, wait_sum, low_holds, hog_bursts;
	bool fired;
	uint64_t fired_after;
	struct rt_hist *wait;
};

static void spin_for(uint64_t ns)
{
	uint64_t end = rt_time_now_ns() + ns;

	while (rt_time_now_ns() < end)
		ck_pr_stall();
}

static void plate_lock(struct prio_run *p)
{
	if (p->o->protocol == COOKIE_PRIO_TICKET)
		ck_spinlock_ticket_lock(&p->ticket);
	else
		pthread_mutex_lock(&p->mutex);
}

static void plate_unlock(struct prio_run *p)
{
	if (p->o->protocol == COOKIE_PRIO_TICKET)
		ck_spinlock_ticket_unlock(&p->ticket);
	else
		pthread_mutex_unlock(&p->mutex);
}

/* The calling thread on the run's CPU at SCHED_FIFO @prio, through the journal. */
static int become_rt(struct prio_run *p, int who, int prio)
{
	int ret;

	p->tid[who] = (pid_t)syscall(SYS_gettid);
	ret = lab_thread_fifo(p->o->journal, p->o->cpu, prio);
	if (ret)
		__atomic_store_n(&p->failed, ret, __ATOMIC_RELAXED);
	return ret;
}

static void become_other(void)
{
	struct sched_param sp = { .sched_priority = 0 };

	sched_setscheduler(0, SCHED_OTHER, &sp);
}

/* Say we are ready and wait for the others (a short sleep: we may be RT already). */
static void wait_go(struct prio_run *p)
{
	ck_pr_inc_int(&p->ready);
	while (!ck_pr_load_int(&p->go))
		rt_time_sleep_ns(200000, NULL);
}

static bool done(struct prio_run *p)
{
	return ck_pr_load_int(&p->done) || __atomic_load_n(&p->failed, __ATOMIC_RELAXED);
}

static void *low_main(void *arg)
{
	struct prio_run *p = arg;

	become_rt(p, T_LOW, PRIO_LOW);
	wait_go(p);
	while (!done(p)) {
		plate_lock(p);
		spin_for(p->o->hold_ns);
		p->low_holds++;
		plate_unlock(p);
		rt_time_sleep_ns(LOW_REST_NS, NULL);
	}
	become_other();
	return NULL;
}

static void *hog_main(void *arg)
{
	struct prio_run *p = arg;

	become_rt(p, T_HOG, PRIO_HOG);
	wait_go(p);
	while (!done(p)) {
		rt_time_sleep_ns(HOG_REST_NS, NULL);
		spin_for(p->o->burst_ns);
		p->hog_bursts++;
	}
	become_other();
	return NULL;
}

static void *high_main(void *arg)
{
	struct prio_run *p = arg;
	uint64_t next;

	become_rt(p, T_HIGH, PRIO_HIGH);
	wait_go(p);
	next = rt_time_now_ns();
	while (!done(p)) {
		uint64_t t0, d;

		next += HIGH_PERIOD_NS;
		rt_time_sleep_until_ns(next, NULL);
		t0 = rt_time_now_ns();
		if (t0 > next + 100 * HIGH_PERIOD_NS)
			next = t0;	/* a long stall (the watchdog's rescue): no catching up */
		ck_pr_store_64(&p->waiting_since, t0);
		plate_lock(p);
		d = rt_time_now_ns() - t0;
		ck_pr_store_64(&p->waiting_since, 0);
		plate_unlock(p);
		rt_hist_add(p->wait, &(struct rt_sample){ .thread = T_HIGH,
							    .latency_ns = (int64_t)d });
		p->high_waits++;
		p->wait_sum += d;
		if (d > p->wait_max)
			p->wait_max = d;
	}
	become_other();
	return NULL;
}

/* Every diner back to SCHED_OTHER: the preempted holder gets the CPU again. */
static void rescue(struct prio_run *p)
{
	struct sched_param sp = { .sched_priority = 0 };

	for (int i = T_LOW; i <= T_HIGH; i++)
		if (p->tid[i])
			sched_setscheduler(p->tid[i], SCHED_OTHER, &sp);
}

static void *watchdog_main(void *arg)
{
	struct prio_run *p = arg;

	become_rt(p, T_WATCHDOG, PRIO_WATCHDOG);
	wait_go(p);
	while (!ck_pr_load_int(&p->quit)) {
		uint64_t since, now;

		rt_time_sleep_ns(WATCHDOG_TICK_NS, NULL);
		since = ck_pr_load_64(&p->waiting_since);
		now = rt_time_now_ns();
		if (!p->fired && since && now > since && now - since > p->o->watchdog_ns) {
			p->fired = true;
			p->fired_after = now - since;
			ck_pr_store_int(&p->done, 1);
			rescue(p);
		}
	}
	become_other();
	return NULL;
}

int cookie_prio_can(char **cause)
{
	struct sched_param sp = { .sched_priority = PRIO_WATCHDOG }, back = { 0 };
	struct rlimit rl = { 0 };
	int policy = sched_getscheduler(0);
	struct sched_param old = { 0 };

	sched_getparam(0, &old);
	if (!sched_setscheduler(0, SCHED_FIFO, &sp)) {
		sched_setscheduler(0, policy, policy == SCHED_FIFO || policy == SCHED_RR ?
				   &old : &back);
		return 0;
	}
	getrlimit(RLIMIT_RTPRIO, &rl);
	return rt_err(cause, -EPERM, "the priority protocols run four threads at SCHED_FIFO "
		      "10 to %d, which this process may not (%s; RLIMIT_RTPRIO is %llu): run "
		      "as root, or with CAP_SYS_NICE, or with ulimit -r %d", PRIO_WATCHDOG,
		      strerror(errno), (unsigned long long)rl.rlim_cur, PRIO_WATCHDOG);
}

static void live_publish(struct cookie_live *live, const struct prio_run *p, uint64_t el)
{
	pthread_mutex_lock(&live->lock);
	live->protocol = p->o->protocol;
	live->diners = 3;
	live->high_waits = p->high_waits;
	live->wait_max_ns = p->wait_max;
	live->hog_bursts = p->hog_bursts;
	live->watchdog = p->fired;
	live->elapsed_ns = el;
	pthread_mutex_unlock(&live->lock);
}

int cookie_prio_run(const struct cookie_prio_opts *opts, struct cookie_prio_result *r,
		    char **cause)
{
	static void *(*const mains[T_COUNT])(void *) = { low_main, hog_main, high_main,
							  watchdog_main };
	struct cookie_prio_opts o = *opts;
	struct prio_run *p;
	pthread_mutexattr_t ma;
	pthread_t th[T_COUNT];
	int started = 0, ret;
	uint64_t t0, now;

	memset(r, 0, sizeof(*r));
	if (!cookie_protocol_is_prio(o.protocol))
		return rt_err(cause, -EINVAL, "%s is not a priority protocol",
			      cookie_protocol_names[o.protocol]);
	ret = cookie_prio_can(cause);
	if (ret)
		return ret;
	if (o.cpu < 0)
		o.cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
	if (o.cpu < 0 || o.cpu >= CPU_SETSIZE)
		o.cpu = 0;
	p = calloc(1, sizeof(*p));
	r->wait = rt_hist_new(WAIT_HIST_US, 0);
	if (!p || !r->wait) {
		free(p);
		rt_hist_free(r->wait);
		r->wait = NULL;
		return rt_err(cause, -ENOMEM, "out of memory");
	}
	p->o = &o;
	p->wait = r->wait;
	pthread_mutexattr_init(&ma);
	if (o.protocol == COOKIE_PRIO_INHERIT)
		pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	if (o.protocol == COOKIE_PRIO_CEILING) {
		/* Whoever holds the plate runs at the high diner's priority at once. */
		pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_PROTECT);
		pthread_mutexattr_setprioceiling(&ma, PRIO_HIGH);
	}
	pthread_mutex_init(&p->mutex, &ma);
	pthread_mutexattr_destroy(&ma);
	ck_spinlock_ticket_init(&p->ticket);
	for (; started < T_COUNT; started++) {
		ret = -pthread_create(&th[started], NULL, mains[started], p);
		if (ret) {
			rt_err(cause, ret, "a diner's thread: %s", strerror(-ret));
			ck_pr_store_int(&p->done, 1);
			break;
		}
	}
	while (ck_pr_load_int(&p->ready) < started)
		rt_time_sleep_ns(200000, NULL);
	ck_pr_store_int(&p->go, 1);
	t0 = rt_time_now_ns();
	while (!ret && !done(p)) {
		now = rt_time_now_ns();
		if (now - t0 >= o.duration_ns || (o.stop && *o.stop))
			break;
		if (o.live)
			live_publish(o.live, p, now - t0);
		rt_time_sleep_ns(20000000, NULL);
	}
	ck_pr_store_int(&p->done, 1);
	for (int i = 0; i < started && i < T_WATCHDOG; i++)
		pthread_join(th[i], NULL);
	ck_pr_store_int(&p->quit, 1);
	if (started > T_WATCHDOG)
		pthread_join(th[T_WATCHDOG], NULL);
	now = rt_time_now_ns();
	if (!ret && p->failed)
		ret = rt_err(cause, p->failed, "a diner could not get SCHED_FIFO on CPU %d: %s",
			     o.cpu, strerror(-p->failed));
	r->high_waits = p->high_waits;
	r->wait_max_ns = p->wait_max;
	r->wait_sum_ns = p->wait_sum;
	r->low_holds = p->low_holds;
	r->hog_bursts = p->hog_bursts;
	r->watchdog_fired = p->fired;
	r->watchdog_after_ns = p->fired_after;
	r->elapsed_s = (double)(now - t0) / 1e9;
	r->cpu = o.cpu;
	if (o.live)
		live_publish(o.live, p, now - t0);
	pthread_mutex_destroy(&p->mutex);
	free(p);
	if (ret) {
		rt_hist_free(r->wait);
		r->wait = NULL;
	}
	return ret;
}

void cookie_prio_result_fini(struct cookie_prio_result *r)
{
	rt_hist_free(r->wait);
	memset(r, 0, sizeof(*r));
}
