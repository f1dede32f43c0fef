/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_hypervisor_model: the core of the hypervisor lab's model (lesson 07), a host
 * scheduler carrying a real-time guest, in one self-contained header.
 *
 * Self-contained because two programs compile it: librtlab (sim_hypervisor.c wraps
 * it in the simulator contract of sim.h) and the hypervisor exercise's
 * subject, which the grading harness builds in a sandbox from the files of
 * labs/hypervisor/checks/ only (that folder links this header). So it
 * includes nothing of rtlab but sim_rng.h, allocates nothing, does no I/O
 * and reads no clock: the state is a plain struct, a step is one simulated
 * microsecond, and the same scenario and seed give the same run anywhere.
 *
 * What it models, one host CPU or two, every thread pinned to its CPU:
 *
 *  - host threads: the guest's vCPU threads, QEMU's I/O thread and host
 *    batch tasks. Each runs at a priority: 1..98 is SCHED_FIFO (the
 *    highest runnable one runs, preempting at once; equal ones do not
 *    preempt each other), 0 the fair class (slices of fair_slice_us, least
 *    virtual runtime first, after CFS: a thread that wakes from sleep is
 *    placed half a slice behind and preempts the running fair thread when
 *    it is wake_gran_us behind it). A FIFO thread that wakes while a batch
 *    task runs waits for the batch task's non-preemptible kernel section,
 *    a uniform draw up to np_max_us (a PREEMPT_RT host has small ones).
 *    Optional RT throttling: FIFO threads of a CPU get at most
 *    rt_runtime_us of every rt_window_us (the 95 % default, or 950 ms per
 *    second: the fair server's 50 ms are the rest).
 *  - the guest: vCPU 0 carries the guest's RT task, released every
 *    rt_period_us (a release while the last job still runs is dropped and
 *    counted as an overrun, as cyclictest loses a period): rt_work_us of
 *    work split around an optional critical section of the guest spinlock
 *    L (rt_lock_us) and, in one job of rt_io_every on average (drawn), a
 *    wait for an I/O request that the host's I/O thread serves in
 *    io_service_us of its own CPU time (the vCPU halts meanwhile). vCPU 1
 *    runs guest housekeeping in busy bursts (hk_busy_pct of the time) that
 *    take L for hk_lock_us every hk_lock_gap_us or so. L is a ticket lock:
 *    a waiter spins (burning its vCPU's host time: spin wasted) and is
 *    handed the lock at release, running or not. A guest only progresses
 *    while its vCPU thread runs on the host, so a vCPU preempted inside
 *    the section (lock-holder preemption) or while next in line
 *    (lock-waiter preemption) stalls the other vCPU's spinning.
 *    With guest_rt_low the RT task runs at a low guest priority: a guest
 *    batch task on vCPU 0 finishes its guest slice (guest_slice_us of vCPU
 *    time) before the RT job starts.
 *  - paravirtual hints: the guest publishes per vCPU "holds L" (lock),
 *    "has an RT job to run" (rt) and "waits for I/O" (io); hint_greedy
 *    makes vCPU 1 claim rt all the time (a guest that abuses the hint).
 *    With pv set, the host calls a boost policy (hv_policy_fn) every
 *    microsecond with what it sees; the policy returns each thread's
 *    priority. Its budget (budget_us of boosted run time per window_us) and
 *    the starvation bound (bound_us) are the scenario's; the policy must
 *    keep to them itself: the model only measures.
 *
 * Measured: the RT jobs' response times (release to end) and deadline
 * misses (response above rt_deadline_us), spin wasted, lock-holder and
 * lock-waiter preemptions, the I/O requests, and host starvation: the
 * longest time a host task (a batch task or the I/O thread) was ready and
 * did not get its CPU, and how many such waits exceeded bound_us.
 */
#ifndef RTLAB_SIM_SIM_HV_MODEL_H
#define RTLAB_SIM_SIM_HV_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "sim_rng.h"

#define HV_MAX_CPUS 2u
#define HV_MAX_VCPUS 2u
#define HV_MAX_HOST 4u		/* host batch tasks */
#define HV_MAX_THREADS (HV_MAX_VCPUS + 1u + HV_MAX_HOST)
#define HV_PRIO_MAX 98u		/* SCHED_FIFO 1..98; 0 is the fair class */

enum hv_kind {
	HV_VCPU,	/* a vCPU thread: threads 0 .. nvcpus-1 */
	HV_IO,		/* QEMU's I/O thread: thread nvcpus */
	HV_HOST,	/* a host batch task: the rest */
};

/* What a boost policy sees of one host thread. */
struct hv_policy_thread {
	uint8_t kind;		/* enum hv_kind */
	uint8_t cpu;		/* the CPU it is pinned to */
	uint8_t base_prio;	/* the administrator's setting: 0 fair, 1..98 SCHED_FIFO */
	uint8_t prio;		/* what it runs at now (the policy's last answer) */
	bool runnable;		/* wants its CPU */
	bool running;		/* has it */
	bool hint_lock;		/* vCPU: its guest holds the spinlock */
	bool hint_rt;		/* vCPU: its guest has an RT job to run */
	bool hint_io;		/* vCPU: its guest waits for an I/O request to complete */
	uint64_t ready_wait_us;	/* runnable and not running for this long (0 otherwise) */
	uint64_t boosted_us;	/* run above base_prio in the current window */
};

/* What a boost policy sees: the threads and the scenario's limits. */
struct hv_policy_view {
	uint64_t now_us;
	uint32_t window_us;	/* the budget's window */
	uint32_t budget_us;	/* boosted run time a thread may have per window */
	uint32_t bound_us;	/* no host task may wait longer than this */
	uint32_t nthreads;
	struct hv_policy_thread t[HV_MAX_THREADS];
};

/*
 * A boost policy: set prio[i] (0 fair, 1..98 FIFO) for each of the
 * view's threads. Return 0, or a negative errno to leave every thread at
 * its base priority this time.
 */
typedef int (*hv_policy_fn)(const struct hv_policy_view *v, uint8_t prio[HV_MAX_THREADS]);

struct hv_scenario {
	uint32_t ncpus;			/* 1 .. 2 */
	uint32_t nvcpus;		/* 1 .. 2: vCPU i runs on CPU i % ncpus */
	uint32_t nhost;			/* batch tasks 0 .. 4, on CPU i % ncpus */
	uint32_t vcpu_prio;		/* the vCPU threads' base priority */
	uint32_t io_prio;		/* the I/O thread's */
	uint32_t io_cpu;		/* its CPU, < ncpus */
	uint32_t rt_period_us;		/* the guest RT task: 100 .. 1000000 */
	uint32_t rt_work_us;		/* 1 .. period */
	uint32_t rt_deadline_us;	/* 1 .. 1000000 */
	uint32_t rt_lock_us;		/* its critical section on L, 0: none */
	uint32_t rt_io_every;		/* a job waits for I/O with chance 1/n, 0: never */
	uint32_t io_service_us;		/* the I/O thread's work per request, 1 .. 100000 */
	uint32_t hk_busy_pct;		/* vCPU 1's housekeeping: 0 .. 100 % busy */
	uint32_t hk_lock_us;		/* its critical sections, 0: none */
	uint32_t hk_lock_gap_us;	/* mean busy time between them, >= 1 */
	bool guest_rt_low;		/* the RT task below a guest batch task on vCPU 0 */
	uint32_t guest_slice_us;	/* that batch task's guest slice, >= 1 */
	uint32_t fair_slice_us;		/* the host's fair slice, 100 .. 100000 */
	uint32_t wake_gran_us;		/* a waking fair thread preempts after this, <= slice */
	uint32_t np_max_us;		/* batch tasks' non-preemptible sections, 0 .. 10000 */
	bool throttle;			/* RT throttling on the host */
	uint32_t rt_runtime_us;		/* FIFO time per rt_window_us per CPU */
	uint32_t rt_window_us;
	bool pv;			/* call the boost policy */
	bool hint_greedy;		/* vCPU 1 claims the rt hint all the time */
	uint32_t window_us;		/* the boost budget's window, >= 1000 */
	uint32_t budget_us;		/* boosted time per thread per window */
	uint32_t bound_us;		/* the host starvation bound, >= 1000 */
	uint64_t duration_us;		/* the horizon, >= 1000 */
};

/*
 * The common ground of the named scenarios (sim_hypervisor.c names them all): two
 * host CPUs, the vCPU threads pinned one per CPU, the I/O thread on CPU 1,
 * a guest RT task of 200 us every 1 ms with a 1 ms deadline, an I/O wait
 * in one job of four, a 3 ms fair slice, batch tasks' non-preemptible
 * sections up to 200 us, a boost budget of 500 ms per second and a 50 ms
 * starvation bound, two simulated seconds. A scenario names what it
 * changes after it (a later designated initialiser wins: GCC's
 * -Woverride-init has to be quiet around them).
 */
#define HV_SCENARIO_BASE \
	.ncpus = 2, .nvcpus = 2, .io_cpu = 1, .rt_period_us = 1000, .rt_work_us = 200, \
	.rt_deadline_us = 1000, .rt_lock_us = 20, .rt_io_every = 4, .io_service_us = 30, \
	.hk_busy_pct = 50, .hk_lock_us = 30, .hk_lock_gap_us = 300, .guest_slice_us = 4000, \
	.fair_slice_us = 3000, .wake_gran_us = 750, .np_max_us = 200, \
	.rt_runtime_us = 950000, .rt_window_us = 1000000, .window_us = 1000000, \
	.budget_us = 500000, .bound_us = 50000, .duration_us = 2000000

/*
 * The exercise's three scenarios, with the paravirtual hints on (pv): the
 * learner's boost policy must meet the RT deadlines and starve no host
 * task past the bound in each.
 *
 * lock-holder: vCPUs in the fair class beside a batch task per CPU; vCPU 1
 *	is always busy and holds the lock for 100 us every 200 us or so.
 * io-inversion: vCPUs SCHED_FIFO 10, vCPU 1 always busy on the CPU of the
 *	fair I/O thread and a batch task; the RT task waits for I/O in one
 *	job of two.
 * pv-load: two batch tasks per CPU; vCPU 1's guest claims the RT hint all
 *	the time (greedy).
 */
#define HV_SCENARIO_LOCK_HOLDER HV_SCENARIO_BASE, .nhost = 2, .hk_busy_pct = 100, \
	.hk_lock_us = 100, .hk_lock_gap_us = 200, .pv = true
#define HV_SCENARIO_IO_INVERSION HV_SCENARIO_BASE, .nhost = 2, .vcpu_prio = 10, \
	.hk_busy_pct = 100, .rt_io_every = 2, .pv = true
#define HV_SCENARIO_PV_LOAD HV_SCENARIO_BASE, .nhost = 4, .hint_greedy = true, .pv = true

/* The counts of a run so far. */
struct hv_counts {
	uint64_t time_us;
	uint64_t jobs;			/* RT jobs finished */
	uint64_t misses;		/* of those, later than the deadline */
	uint64_t response_sum_us;
	uint64_t response_max_us;
	uint64_t overruns;		/* releases dropped: the previous job still ran */
	uint64_t spin_us;		/* vCPU time spent spinning on L */
	uint64_t lhp;			/* vCPU threads preempted while their guest held L */
	uint64_t lwp;			/* vCPU threads preempted while spinning on L */
	uint64_t lock_grants_idle;	/* L handed to a waiter whose vCPU was not running */
	uint64_t io_requests;
	uint64_t io_wait_max_us;	/* request to completion, the longest */
	uint64_t host_wait_max_us;	/* the longest ready wait of a host task */
	uint64_t starved;		/* host waits longer than bound_us */
	uint64_t boosted_us;		/* thread time run above base priority */
	uint64_t throttled_us;		/* CPU time an RT throttle kept FIFO threads off */
	uint64_t vcpu_run_us;
	uint64_t host_run_us;		/* batch tasks' CPU time */
	uint64_t policy_errors;		/* policy calls that returned an error */
};

enum hv_rt_phase { HV_RT_IDLE, HV_RT_WORK_A, HV_RT_LOCK, HV_RT_CS, HV_RT_IO, HV_RT_WORK_B };
enum hv_hk_phase { HV_HK_RUN, HV_HK_LOCK, HV_HK_CS };

struct hv_thread {
	uint8_t kind, cpu, base_prio, prio;
	bool runnable, waiting;
	bool woke;		/* became runnable after sleeping: to be placed */
	bool in_fair;		/* was in the fair class at the last pick */
	uint64_t vrt;		/* virtual runtime: its time run in the fair class */
	uint64_t ready_since;	/* while waiting */
	uint64_t boosted_us;	/* in the current window */
};

struct hv_cpu {
	int cur;		/* thread running, -1: idle */
	int fair_cur;		/* the fair thread whose slice runs, -1: none yet */
	uint64_t min_vrt;	/* the fair class's clock: the vrt of the last one picked */
	uint32_t slice_used;	/* of that slice (FIFO threads' time does not count) */
	uint32_t np_left;	/* a batch task's non-preemptible section still to run */
	bool np_armed;
	uint64_t rt_used;	/* FIFO time in the throttle window */
	bool throttled;
};

struct hv_state {
	struct hv_scenario sc;
	struct sim_rng rng;
	hv_policy_fn policy;
	/* Called with every RT job's response time (may be NULL). */
	void (*on_response)(void *priv, uint64_t us);
	void *priv;
	uint64_t now;
	uint32_t nthreads;
	struct hv_thread t[HV_MAX_THREADS];
	struct hv_cpu cpu[HV_MAX_CPUS];
	/* The guest. */
	enum hv_rt_phase rt;
	uint32_t rt_left;
	uint64_t rt_release, rt_jobno;
	uint32_t gb_left;		/* guest batch slice left (guest_rt_low) */
	enum hv_hk_phase hk;
	bool hk_busy;
	uint32_t hk_left;		/* burst or idle time left */
	uint32_t hk_gap, hk_cs;
	int lock_owner, lock_waiter;	/* vCPU or -1 */
	uint32_t io_queue, io_left;
	uint64_t io_since;
	struct hv_counts c;
};

/* hv_scenario_check - 0, or a static string saying what is wrong with @sc */
static inline const char *hv_scenario_check(const struct hv_scenario *sc)
{
	if (sc->ncpus < 1 || sc->ncpus > HV_MAX_CPUS)
		return "ncpus must be 1 or 2";
	if (sc->nvcpus < 1 || sc->nvcpus > HV_MAX_VCPUS)
		return "nvcpus must be 1 or 2";
	if (sc->nhost > HV_MAX_HOST)
		return "at most 4 host batch tasks";
	if (sc->vcpu_prio > HV_PRIO_MAX || sc->io_prio > HV_PRIO_MAX)
		return "priorities are 0 (fair) or 1 .. 98 (SCHED_FIFO)";
	if (sc->io_cpu >= sc->ncpus)
		return "io_cpu must be one of the CPUs";
	if (sc->rt_period_us < 100 || sc->rt_period_us > 1000000 || sc->rt_work_us < 2 ||
	    sc->rt_work_us + sc->rt_lock_us > sc->rt_period_us)
		return "the RT task needs 100 us .. 1 s periods and work plus lock within one";
	if (sc->rt_deadline_us < 1 || sc->rt_deadline_us > 1000000)
		return "the deadline must be 1 us .. 1 s";
	if (sc->io_service_us < 1 || sc->io_service_us > 100000)
		return "io_service_us must be 1 .. 100000";
	if (sc->hk_busy_pct > 100 || sc->hk_lock_gap_us < 1 || sc->hk_lock_us > 100000)
		return "housekeeping: busy 0 .. 100 %, a lock gap of at least 1 us";
	if (sc->guest_slice_us < 1 || sc->guest_slice_us > 1000000)
		return "guest_slice_us must be 1 .. 1000000";
	if (sc->fair_slice_us < 100 || sc->fair_slice_us > 100000 ||
	    sc->wake_gran_us > sc->fair_slice_us)
		return "fair_slice_us must be 100 .. 100000, wake_gran_us at most that";
	if (sc->np_max_us > 10000)
		return "np_max_us must be at most 10000";
	if (sc->throttle && (sc->rt_window_us < 1000 || sc->rt_runtime_us > sc->rt_window_us))
		return "throttling: a window of at least 1 ms and a runtime within it";
	if (sc->window_us < 1000 || sc->budget_us > sc->window_us || sc->bound_us < 1000)
		return "the budget's window and the bound must be at least 1 ms";
	if (sc->duration_us < 1000 || sc->duration_us > 3600ull * 1000000)
		return "the duration must be 1 ms .. 1 hour";
	return 0;
}

/* hv_vcpu_runnable - whether vCPU @v's guest has something to run */
static inline bool hv_vcpu_runnable(const struct hv_state *s, unsigned int v)
{
	if (v == 0)
		return (s->rt != HV_RT_IDLE && s->rt != HV_RT_IO) || s->sc.guest_rt_low;
	return s->hk_busy || s->hk != HV_HK_RUN;
}

/**
 * hv_init - set up @s for a checked scenario @sc, @seed and @policy
 *
 * @policy may be NULL (no boosting even with pv). The thread layout:
 * vCPUs first, then the I/O thread, then the batch tasks.
 */
static inline void hv_init(struct hv_state *s, const struct hv_scenario *sc, uint64_t seed,
			   hv_policy_fn policy)
{
	memset(s, 0, sizeof(*s));
	s->sc = *sc;
	sim_rng_seed(&s->rng, seed);
	s->policy = policy;
	for (uint32_t i = 0; i < sc->nvcpus; i++)
		s->t[s->nthreads++] = (struct hv_thread){ .kind = HV_VCPU, .cpu = i % sc->ncpus,
			.base_prio = (uint8_t)sc->vcpu_prio };
	s->t[s->nthreads++] = (struct hv_thread){ .kind = HV_IO, .cpu = (uint8_t)sc->io_cpu,
		.base_prio = (uint8_t)sc->io_prio };
	for (uint32_t i = 0; i < sc->nhost; i++)
		s->t[s->nthreads++] = (struct hv_thread){ .kind = HV_HOST, .cpu = i % sc->ncpus };
	for (uint32_t i = 0; i < s->nthreads; i++)
		s->t[i].prio = s->t[i].base_prio;
	for (uint32_t c = 0; c < HV_MAX_CPUS; c++)
		s->cpu[c].cur = s->cpu[c].fair_cur = -1;
	s->lock_owner = s->lock_waiter = -1;
	s->hk_busy = sc->nvcpus > 1 && sc->hk_busy_pct > 0;
	s->hk_left = 1 + (uint32_t)sim_rng_below(&s->rng, 40u * sc->hk_busy_pct + 1);
	s->hk_gap = 1 + (uint32_t)sim_rng_below(&s->rng, 2ull * sc->hk_lock_gap_us);
	s->gb_left = sc->guest_slice_us;
}

static inline bool hv_running(const struct hv_state *s, unsigned int i)
{
	return s->cpu[s->t[i].cpu].cur == (int)i;
}

/* A host task's ready wait ended (it got its CPU, or the run ended). */
static inline void hv_wait_end(struct hv_state *s, unsigned int i)
{
	struct hv_thread *t = &s->t[i];
	uint64_t w;

	if (!t->waiting)
		return;
	t->waiting = false;
	if (t->kind == HV_VCPU)
		return;
	w = s->now - t->ready_since;
	if (w > s->c.host_wait_max_us)
		s->c.host_wait_max_us = w;
	if (w > s->sc.bound_us)
		s->c.starved++;
}

/* Release the spinlock held by vCPU @v: a waiter gets it at once, running or not. */
static inline void hv_lock_release(struct hv_state *s, int v)
{
	int w = s->lock_waiter;

	(void)v;
	s->lock_owner = -1;
	if (w < 0)
		return;
	s->lock_owner = w;
	s->lock_waiter = -1;
	if (!hv_running(s, (unsigned int)w))
		s->c.lock_grants_idle++;
	if (w == 0) {
		s->rt = HV_RT_CS;
		s->rt_left = s->sc.rt_lock_us;
	} else {
		s->hk = HV_HK_CS;
		s->hk_cs = s->sc.hk_lock_us;
	}
}

/* Try to take L for vCPU @v: true when it has it now. */
static inline bool hv_lock_try(struct hv_state *s, int v)
{
	if (s->lock_owner < 0) {
		s->lock_owner = v;
		return true;
	}
	if (s->lock_owner != v)
		s->lock_waiter = v;
	s->c.spin_us++;
	return false;
}

static inline void hv_rt_start(struct hv_state *s, uint64_t release)
{
	s->rt = HV_RT_WORK_A;
	s->rt_left = s->sc.rt_work_us / 2;
	s->rt_release = release;
}

static inline void hv_rt_after_lock(struct hv_state *s)
{
	if (s->sc.rt_io_every && sim_rng_below(&s->rng, s->sc.rt_io_every) == 0) {
		s->rt = HV_RT_IO;
		s->io_queue++;
		s->io_since = s->now;
		s->c.io_requests++;
	} else {
		s->rt = HV_RT_WORK_B;
		s->rt_left = s->sc.rt_work_us - s->sc.rt_work_us / 2;
	}
}

/* One microsecond of vCPU 0's guest: the RT task or the guest batch task. */
static inline void hv_guest_rt_step(struct hv_state *s)
{
	uint64_t resp;

	/*
	 * The guest batch task (guest_rt_low) runs its slice to the end before
	 * the guest scheduler looks at the RT task again; a new slice starts
	 * when the RT job blocks or ends.
	 */
	if (s->sc.guest_rt_low && s->gb_left) {
		s->gb_left--;
		return;
	}
	if (s->rt == HV_RT_IDLE || s->rt == HV_RT_IO) {
		if (s->sc.guest_rt_low)
			s->gb_left = s->sc.guest_slice_us - 1;
		return;
	}
	switch (s->rt) {
	case HV_RT_WORK_A:
		if (s->rt_left)
			s->rt_left--;
		if (!s->rt_left) {
			if (s->sc.rt_lock_us && s->sc.nvcpus > 1) {
				s->rt = HV_RT_LOCK;
			} else {
				hv_rt_after_lock(s);
			}
		}
		break;
	case HV_RT_LOCK:
		if (hv_lock_try(s, 0)) {
			s->rt = HV_RT_CS;
			s->rt_left = s->sc.rt_lock_us;
		}
		break;
	case HV_RT_CS:
		if (s->rt_left)
			s->rt_left--;
		if (!s->rt_left) {
			hv_lock_release(s, 0);
			hv_rt_after_lock(s);
		}
		break;
	case HV_RT_WORK_B:
		if (s->rt_left)
			s->rt_left--;
		if (s->rt_left)
			break;
		resp = s->now + 1 - s->rt_release;
		s->c.jobs++;
		s->c.response_sum_us += resp;
		if (resp > s->c.response_max_us)
			s->c.response_max_us = resp;
		if (resp > s->sc.rt_deadline_us)
			s->c.misses++;
		if (s->on_response)
			s->on_response(s->priv, resp);
		s->rt_jobno++;
		s->gb_left = s->sc.guest_slice_us;
		s->rt = HV_RT_IDLE;
		break;
	default:
		break;
	}
}

/* One microsecond of vCPU 1's guest: housekeeping with its lock sections. */
static inline void hv_guest_hk_step(struct hv_state *s)
{
	switch (s->hk) {
	case HV_HK_RUN:
		if (!s->hk_busy)
			return;
		if (s->hk_left)
			s->hk_left--;
		if (s->sc.hk_lock_us && !--s->hk_gap) {
			s->hk = HV_HK_LOCK;
			s->hk_gap = 1 + (uint32_t)sim_rng_below(&s->rng,
								2ull * s->sc.hk_lock_gap_us);
		}
		break;
	case HV_HK_LOCK:
		if (hv_lock_try(s, 1)) {
			s->hk = HV_HK_CS;
			s->hk_cs = s->sc.hk_lock_us;
		}
		break;
	case HV_HK_CS:
		if (s->hk_cs)
			s->hk_cs--;
		if (!s->hk_cs) {
			hv_lock_release(s, 1);
			s->hk = HV_HK_RUN;
		}
		break;
	}
}

/* Housekeeping's busy and idle bursts pass in guest wall time (idle halts). */
static inline void hv_hk_clock(struct hv_state *s)
{
	uint32_t pct = s->sc.hk_busy_pct;

	if (s->sc.nvcpus < 2 || pct == 0 || pct == 100 || s->hk != HV_HK_RUN)
		return;
	if (!s->hk_busy) {
		if (!--s->hk_left) {
			s->hk_busy = true;
			s->hk_left = 1 + (uint32_t)sim_rng_below(&s->rng, 40u * pct);
		}
	} else if (!s->hk_left) {
		s->hk_busy = false;
		s->hk_left = 1 + (uint32_t)sim_rng_below(&s->rng, 40u * (100 - pct));
	}
}

static inline void hv_policy_call(struct hv_state *s)
{
	struct hv_policy_view v;
	uint8_t prio[HV_MAX_THREADS];

	memset(&v, 0, sizeof(v));
	v.now_us = s->now;
	v.window_us = s->sc.window_us;
	v.budget_us = s->sc.budget_us;
	v.bound_us = s->sc.bound_us;
	v.nthreads = s->nthreads;
	for (uint32_t i = 0; i < s->nthreads; i++) {
		const struct hv_thread *t = &s->t[i];
		struct hv_policy_thread *p = &v.t[i];

		p->kind = t->kind;
		p->cpu = t->cpu;
		p->base_prio = t->base_prio;
		p->prio = t->prio;
		p->runnable = t->runnable;
		p->running = hv_running(s, i);
		p->ready_wait_us = t->waiting ? s->now - t->ready_since : 0;
		p->boosted_us = t->boosted_us;
		if (t->kind == HV_VCPU) {
			p->hint_lock = s->lock_owner == (int)i;
			p->hint_rt = i == 0 ? s->rt != HV_RT_IDLE && s->rt != HV_RT_IO :
				     s->sc.hint_greedy;
			p->hint_io = i == 0 && s->rt == HV_RT_IO;
		}
		prio[i] = t->base_prio;
	}
	if (s->policy(&v, prio) < 0) {
		s->c.policy_errors++;
		for (uint32_t i = 0; i < s->nthreads; i++)
			prio[i] = s->t[i].base_prio;
	}
	for (uint32_t i = 0; i < s->nthreads; i++)
		s->t[i].prio = prio[i] > HV_PRIO_MAX ? HV_PRIO_MAX : prio[i];
}

/* Whether thread @t takes part in CPU @cpu's fair round robin now. */
static inline bool hv_fair(const struct hv_thread *t, const struct hv_cpu *cpu)
{
	return !t->prio || cpu->throttled;	/* a throttled FIFO thread runs as a fair one */
}

/* The thread CPU @c should run now, by priority, fair round robin and throttling. */
static inline int hv_pick(struct hv_state *s, unsigned int c)
{
	struct hv_cpu *cpu = &s->cpu[c];
	int best = -1, cur = cpu->cur, f;
	uint32_t bp = 0;

	for (uint32_t i = 0; i < s->nthreads; i++) {
		const struct hv_thread *t = &s->t[i];

		if (t->cpu != c || !t->runnable || hv_fair(t, cpu))
			continue;
		if (best < 0 || t->prio > bp || (t->prio == bp && (int)i == cur)) {
			best = (int)i;
			bp = t->prio;
		}
	}
	if (best >= 0)
		return best;
	/*
	 * The fair class, after CFS: the thread with the least virtual runtime
	 * (time run in the class) gets a slice; a thread that joins the class
	 * starts at its clock, one that wakes from sleep half a slice before
	 * it, and preempts the running one when it is wake_gran_us behind.
	 */
	for (uint32_t i = 0; i < s->nthreads; i++) {
		struct hv_thread *t = &s->t[i];
		bool fair = t->cpu == c && t->runnable && hv_fair(t, cpu);

		if (fair && t->woke) {
			uint64_t bonus = s->sc.fair_slice_us / 2;
			uint64_t place = cpu->min_vrt > bonus ? cpu->min_vrt - bonus : 0;

			if (t->vrt < place)
				t->vrt = place;
		} else if (fair && !t->in_fair && t->vrt < cpu->min_vrt) {
			t->vrt = cpu->min_vrt;
		}
		if (t->cpu == c)
			t->in_fair = fair;
		if (fair) {
			t->woke = false;
			if (best < 0 || t->vrt < s->t[best].vrt)
				best = (int)i;
		}
	}
	if (best < 0)
		return -1;
	f = cpu->fair_cur;
	if (f >= 0 && f != best && s->t[f].runnable && hv_fair(&s->t[f], cpu) &&
	    cpu->slice_used < s->sc.fair_slice_us &&
	    s->t[best].vrt + s->sc.wake_gran_us >= s->t[f].vrt)
		return f;
	if (f != best)
		cpu->slice_used = 0;
	else if (cpu->slice_used >= s->sc.fair_slice_us)
		cpu->slice_used = 0;	/* alone or still the least: a new slice */
	cpu->fair_cur = best;
	if (s->t[best].vrt > cpu->min_vrt)
		cpu->min_vrt = s->t[best].vrt;
	return best;
}

static inline void hv_schedule(struct hv_state *s, unsigned int c)
{
	struct hv_cpu *cpu = &s->cpu[c];
	int cur = cpu->cur, best = hv_pick(s, c);

	if (best == cur)
		return;
	/* A batch task is preempted only after its non-preemptible section. */
	if (cur >= 0 && s->t[cur].runnable && s->t[cur].kind == HV_HOST && best >= 0 &&
	    s->t[best].prio > s->t[cur].prio && s->sc.np_max_us) {
		if (!cpu->np_armed) {
			cpu->np_armed = true;
			cpu->np_left = (uint32_t)sim_rng_below(&s->rng, s->sc.np_max_us + 1ull);
		}
		if (cpu->np_left) {
			cpu->np_left--;
			return;
		}
	}
	cpu->np_armed = false;
	if (cur >= 0 && s->t[cur].runnable) {
		s->t[cur].waiting = true;
		s->t[cur].ready_since = s->now;
		if (s->t[cur].kind == HV_VCPU) {
			if (s->lock_owner == cur)
				s->c.lhp++;
			else if (s->lock_waiter == cur)
				s->c.lwp++;
		}
	}
	cpu->cur = best;
	if (best >= 0)
		hv_wait_end(s, (unsigned int)best);
}

/* hv_step - advance @s by one microsecond */
static inline void hv_step(struct hv_state *s)
{
	const struct hv_scenario *sc = &s->sc;

	if (s->now % sc->rt_period_us == 0) {
		if (s->rt == HV_RT_IDLE)
			hv_rt_start(s, s->now);
		else
			s->c.overruns++;	/* like cyclictest: the period is lost */
	}
	hv_hk_clock(s);
	for (uint32_t i = 0; i < s->nthreads; i++) {
		struct hv_thread *t = &s->t[i];
		bool was = t->runnable;

		t->runnable = t->kind == HV_HOST ? true :
			      t->kind == HV_IO ? s->io_queue > 0 : hv_vcpu_runnable(s, i);
		if (!t->runnable)
			t->waiting = t->woke = false;
		else if (!was)
			t->woke = true;
	}
	if (sc->pv && s->policy)
		hv_policy_call(s);
	for (uint32_t c = 0; c < sc->ncpus; c++)
		hv_schedule(s, c);
	for (uint32_t i = 0; i < s->nthreads; i++) {
		struct hv_thread *t = &s->t[i];

		if (t->runnable && !hv_running(s, i) && !t->waiting) {
			t->waiting = true;
			t->ready_since = s->now;
		}
	}
	for (uint32_t c = 0; c < sc->ncpus; c++) {
		struct hv_cpu *cpu = &s->cpu[c];
		struct hv_thread *t;
		int cur = cpu->cur;

		if (cur < 0)
			continue;
		t = &s->t[cur];
		if (cur == cpu->fair_cur && hv_fair(t, cpu)) {
			cpu->slice_used++;
			t->vrt++;
		}
		if (t->prio) {
			cpu->rt_used++;
			if (sc->throttle && cpu->rt_used >= sc->rt_runtime_us)
				cpu->throttled = true;
		}
		if (t->prio > t->base_prio) {
			t->boosted_us++;
			s->c.boosted_us++;
		}
		switch (t->kind) {
		case HV_VCPU:
			s->c.vcpu_run_us++;
			if (cur == 0)
				hv_guest_rt_step(s);
			else
				hv_guest_hk_step(s);
			break;
		case HV_IO:
			if (!s->io_left)
				s->io_left = sc->io_service_us;
			if (!--s->io_left && s->io_queue) {
				s->io_queue--;
				if (s->rt == HV_RT_IO) {
					uint64_t w = s->now + 1 - s->io_since;

					if (w > s->c.io_wait_max_us)
						s->c.io_wait_max_us = w;
					s->rt = HV_RT_WORK_B;
					s->rt_left = sc->rt_work_us - sc->rt_work_us / 2;
				}
			}
			break;
		default:
			s->c.host_run_us++;
			break;
		}
	}
	s->now++;
	if (sc->throttle) {
		for (uint32_t c = 0; c < sc->ncpus; c++) {
			if (s->cpu[c].throttled)
				s->c.throttled_us++;
			if (s->now % sc->rt_window_us == 0) {
				s->cpu[c].rt_used = 0;
				s->cpu[c].throttled = false;
			}
		}
	}
	if (s->now % sc->window_us == 0)
		for (uint32_t i = 0; i < s->nthreads; i++)
			s->t[i].boosted_us = 0;
	s->c.time_us = s->now;
}

/* hv_finish - count the waits still going on at the end (call once, at the horizon) */
static inline void hv_finish(struct hv_state *s)
{
	for (uint32_t i = 0; i < s->nthreads; i++)
		hv_wait_end(s, i);
}

#endif /* RTLAB_SIM_SIM_HV_MODEL_H */
