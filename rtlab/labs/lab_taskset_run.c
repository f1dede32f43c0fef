/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_taskset_run: the measuring side of the task-set lab (lab_taskset.h).
 *
 * Each task is a thread at SCHED_FIFO (rate-monotonic priority, the lowest
 * TASKSET_PRIO_LOWEST), pinned with the others to one CPU, raised through
 * the undo journal. All are released together at t0 (the critical instant
 * the analysis assumes), except for an offset a task may have, then every
 * period after, on absolute times of the monotonic clock, so a late job
 * never shifts the next release. A job works for TASKSET_BUSY_PCT % of its
 * C on the thread's CPU-time clock (CLOCK_THREAD_CPUTIME_ID), which counts
 * only the time the thread ran: being preempted does not end a job early
 * and a slower CPU does not shorten it. The remaining 3 % of C is the
 * allowance for what the kernel does for the job (the timer's wake-up, the
 * switches, the clock reads) that the analysis' C must cover too. A lock
 * user's job takes the lock first, spins its critical section inside it,
 * lets go and spins the rest.
 *
 * Response time = completion on the monotonic clock - the job's nominal
 * release; a response above the period is a missed deadline. Releases stop
 * at t0 + duration; the jobs released until then all finish (the set's
 * utilisation is at most TASKSET_UTIL_MAX, so they do). The threads go back
 * to SCHED_OTHER before they exit.
 */
#include "lab_taskset.h"

#include <ck_pr.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "core/rt_err.h"
#include "core/rt_time.h"
#include "lab_thread.h"

#define START_AHEAD_NS 20000000ull	/* t0 is this far after the threads are ready */

struct run;

struct task_thread {
	struct run *run;
	unsigned int i;
	pthread_t th;
	struct taskset_measured m;
};

struct run {
	const struct taskset_spec *s;
	const struct taskset_run_opts *o;
	int cpu;
	pthread_mutex_t lock;
	int ready, go, failed;
	uint64_t t0, end;
	struct task_thread task[TASKSET_MAX];
};

static uint64_t cpu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Spin until this thread has run @until on its CPU-time clock. */
static void spin_cpu_until(uint64_t until)
{
	while (cpu_now_ns() < until)
		ck_pr_stall();
}

static int become_rt(struct run *r, int prio)
{
	int ret = lab_thread_fifo(r->o->journal, r->cpu, prio);

	if (ret)
		__atomic_store_n(&r->failed, ret, __ATOMIC_RELAXED);
	return ret;
}

static bool stopped(const struct run *r)
{
	return (r->o->stop && *r->o->stop) || __atomic_load_n(&r->failed, __ATOMIC_RELAXED);
}

static void publish(struct run *r, unsigned int i, const struct taskset_measured *m)
{
	struct taskset_live *l = r->o->live;

	if (!l)
		return;
	__atomic_store_n(&l->jobs[i], m->jobs, __ATOMIC_RELAXED);
	__atomic_store_n(&l->misses[i], m->misses, __ATOMIC_RELAXED);
	__atomic_store_n(&l->resp_max_ns[i], m->resp_max_ns, __ATOMIC_RELAXED);
}

static void *task_main(void *arg)
{
	struct task_thread *tt = arg;
	struct run *r = tt->run;
	const struct taskset_task *t = &r->s->t[tt->i];
	uint64_t period = (uint64_t)t->period_us * 1000, release, start;
	uint64_t busy = (uint64_t)t->wcet_us * 10 * TASKSET_BUSY_PCT;
	uint64_t cs = (uint64_t)t->cs_us * 10 * TASKSET_BUSY_PCT;
	struct sched_param other = { .sched_priority = 0 };
	bool locks = r->s->lock != TASKSET_LOCK_NONE && t->cs_us;

	if (become_rt(r, taskset_prio(r->s->n, tt->i)) == 0)
		ck_pr_inc_int(&r->ready);
	while (!ck_pr_load_int(&r->go) && !stopped(r))
		rt_time_sleep_ns(200000, NULL);
	release = r->t0 + (uint64_t)((int64_t)t->offset_us * 1000);
	while (!stopped(r) && release < r->end) {
		uint64_t done, resp;

		rt_time_sleep_until_ns(release, NULL);
		start = cpu_now_ns();
		if (locks) {
			pthread_mutex_lock(&r->lock);
			spin_cpu_until(start + cs);
			pthread_mutex_unlock(&r->lock);
		}
		spin_cpu_until(start + busy);
		done = rt_time_now_ns();
		resp = done > release ? done - release : 0;
		tt->m.jobs++;
		tt->m.resp_sum_ns += resp;
		if (resp > tt->m.resp_max_ns)
			tt->m.resp_max_ns = resp;
		if (resp > period)
			tt->m.misses++;
		publish(r, tt->i, &tt->m);
		release += period;
	}
	sched_setscheduler(0, SCHED_OTHER, &other);
	return NULL;
}

int taskset_can(unsigned int n, char **cause)
{
	int top = taskset_prio(n ? n : 1, 0);
	struct sched_param sp = { .sched_priority = top }, old = { 0 }, zero = { 0 };
	int policy = sched_getscheduler(0);
	struct rlimit rl = { 0 };

	sched_getparam(0, &old);
	if (!sched_setscheduler(0, SCHED_FIFO, &sp)) {
		sched_setscheduler(0, policy, policy == SCHED_FIFO || policy == SCHED_RR ?
				   &old : &zero);
		return 0;
	}
	getrlimit(RLIMIT_RTPRIO, &rl);
	return rt_err(cause, -EPERM, "the task set runs as SCHED_FIFO threads at priorities "
		      "%d to %d, all pinned to one CPU, and this process may not use SCHED_FIFO "
		      "(sched_setscheduler: %s; RLIMIT_RTPRIO is %llu): run it as root, with "
		      "CAP_SYS_NICE, or after ulimit -r %d", TASKSET_PRIO_LOWEST, top,
		      strerror(errno), (unsigned long long)rl.rlim_cur, top);
}

static int init_lock(struct run *r, char **cause)
{
	pthread_mutexattr_t ma;
	int ret, ceiling = 0;

	for (unsigned int i = 0; i < r->s->n && !ceiling; i++)
		if (r->s->t[i].cs_us)
			ceiling = taskset_prio(r->s->n, i);
	pthread_mutexattr_init(&ma);
	switch (r->s->lock) {
	case TASKSET_LOCK_INHERIT:
		ret = pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
		break;
	case TASKSET_LOCK_CEILING:
		ret = pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_PROTECT) ?:
		      pthread_mutexattr_setprioceiling(&ma, ceiling);
		break;
	default:
		ret = pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_NONE);
		break;
	}
	if (!ret)
		ret = pthread_mutex_init(&r->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	return ret ? rt_err(cause, -ret, "the %s lock: %s", taskset_lock_names[r->s->lock],
			    strerror(ret)) : 0;
}

int taskset_run(const struct taskset_spec *s, const struct taskset_run_opts *o,
		struct taskset_measured *m, int *cpu, char **cause)
{
	struct run *r;
	unsigned int started = 0;
	int ret;

	ret = taskset_can(s->n, cause);
	if (ret)
		return ret;
	r = calloc(1, sizeof(*r));
	if (!r)
		return rt_err(cause, -ENOMEM, "out of memory");
	r->s = s;
	r->o = o;
	r->cpu = o->cpu >= 0 ? o->cpu : (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
	if (r->cpu < 0 || r->cpu >= CPU_SETSIZE)
		r->cpu = 0;
	*cpu = r->cpu;
	ret = init_lock(r, cause);
	if (ret) {
		free(r);
		return ret;
	}
	for (; started < s->n; started++) {
		r->task[started].run = r;
		r->task[started].i = started;
		ret = -pthread_create(&r->task[started].th, NULL, task_main, &r->task[started]);
		if (ret) {
			rt_err(cause, ret, "a task's thread: %s", strerror(-ret));
			__atomic_store_n(&r->failed, ret, __ATOMIC_RELAXED);
			break;
		}
	}
	while (ck_pr_load_int(&r->ready) < (int)started && !stopped(r))
		rt_time_sleep_ns(200000, NULL);
	r->t0 = rt_time_now_ns() + START_AHEAD_NS;
	r->end = r->t0 + o->duration_ns;
	ck_pr_fence_store();
	ck_pr_store_int(&r->go, 1);
	for (unsigned int i = 0; i < started; i++)
		pthread_join(r->task[i].th, NULL);
	if (!ret && r->failed)
		ret = rt_err(cause, r->failed, "a task could not get SCHED_FIFO on CPU %d: %s",
			     r->cpu, strerror(-r->failed));
	for (unsigned int i = 0; i < s->n; i++)
		m[i] = r->task[i].m;
	pthread_mutex_destroy(&r->lock);
	free(r);
	return ret;
}
