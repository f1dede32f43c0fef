/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_cookie_threads: the cookie protocols on real threads (lab_cookie.h).
 *
 * The plate's operations for threads (cookie.h of labs/cookie/checks): the
 * plate is one 64-bit word read and written with ck_pr loads and stores;
 * a put draws a fresh serial from a shared counter (ck_pr_faa_64), a take
 * tallies the serial it read (ck_pr_inc_16 on the cookie's tally entry);
 * each seat's inbox is a wait-free SPSC ck_ring filled only by the seat
 * before it. The broken and uni-directional protocols are the very
 * functions the replay steps (sim/sim_cookie.c); ticket and greedy put a
 * ck_spinlock around the broken protocol's take + put.
 *
 * The priority protocols (three SCHED_FIFO threads on one CPU and a
 * watchdog above them) are at the end of the file.
 */
#include "lab_cookie.h"

#include <ck_pr.h>
#include <ck_ring.h>
#include <ck_spinlock.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/rt_err.h"
#include "core/rt_hist.h"
#include "core/rt_journal.h"
#include "core/rt_sink.h"
#include "core/rt_time.h"
#include "sim/sim_cookie.h"

const char *const cookie_protocol_names[COOKIE_NPROTOCOLS + 1] = {
	[COOKIE_UNI] = "uni-directional",
	[COOKIE_TICKET] = "ticket",
	[COOKIE_GREEDY] = "greedy",
	[COOKIE_BROKEN] = "broken",
	[COOKIE_PRIO_INHERIT] = "priority-inherit",
	[COOKIE_PRIO_PLAIN] = "priority-plain",
	[COOKIE_PRIO_TICKET] = "priority-ticket",
	[COOKIE_PRIO_CEILING] = "priority-ceiling",
	[COOKIE_NPROTOCOLS] = NULL,
};

#define RING_SLOTS 4u		/* a seat's inbox: one plate in flight, a power of two */
#define SPINS_BEFORE_YIELD 256u	/* empty turns before a diner yields its CPU */
#define LIVE_EVERY_NS 50000000ull

double cookie_jain(const uint64_t *x, unsigned int n)
{
	double s = 0, s2 = 0;

	for (unsigned int i = 0; i < n; i++) {
		s += (double)x[i];
		s2 += (double)x[i] * (double)x[i];
	}
	return s2 > 0 ? s * s / ((double)n * s2) : 0.0;
}

/* ---- The plate for threads -------------------------------------------------------- */

/* The plate as it travels (uni-directional): when it was passed. */
struct plate_token {
	uint64_t passed_ns;
};

struct seat {
	ck_ring_t ring;			/* the inbox, filled by the seat before */
	ck_ring_buffer_t buf[RING_SLOTS];
	struct plate_token *token;	/* the plate, while this seat holds it */
	uint64_t eaten;
	uint64_t wait_max_ns;
	uint64_t handovers;
	struct rt_hist *hist;		/* this diner's hand-overs, us */
	uint64_t lat[COOKIE_LIVE_LAT];	/* the same in powers of two, for a live view */
	pthread_t thread;
	struct thr_table *tab;
	unsigned int index;
} __attribute__((aligned(64)));

struct thr_table {
	struct cookie_table t;		/* first: the protocols see this */
	uint64_t plate __attribute__((aligned(64)));
	uint64_t released_ns;		/* when the lock holder let go of the plate */
	uint64_t next_serial __attribute__((aligned(64)));
	int done __attribute__((aligned(64)));
	int go;
	ck_spinlock_ticket_t ticket __attribute__((aligned(64)));
	ck_spinlock_fas_t fas __attribute__((aligned(64)));
	uint16_t *tally;		/* times each serial was eaten */
	uint64_t cap;			/* serials 1 .. cap - 1 */
	enum cookie_protocol protocol;
	const struct cookie_proto *proto;
	struct plate_token token;
	struct seat *seats;
};

/* Count a hand-over of @d ns for the histogram and the live view. */
static void handover(struct seat *me, uint64_t d)
{
	unsigned int b = d < 64 ? 0 : (unsigned int)(63 - __builtin_clzll(d)) - 6;

	rt_hist_add(me->hist, &(struct rt_sample){ .thread = me->index, .latency_ns = (int64_t)d });
	__atomic_store_n(&me->lat[b < COOKIE_LIVE_LAT ? b : COOKIE_LIVE_LAT - 1],
			 me->lat[b < COOKIE_LIVE_LAT ? b : COOKIE_LIVE_LAT - 1] + 1,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&me->handovers, me->handovers + 1, __ATOMIC_RELAXED);
}

static uint64_t thr_take(struct cookie_table *t, unsigned int seat)
{
	struct thr_table *tab = (struct thr_table *)t;
	uint64_t s = ck_pr_load_64(&tab->plate);

	if (s && s < tab->cap) {
		ck_pr_inc_16(&tab->tally[s]);
		__atomic_store_n(&tab->seats[seat].eaten, tab->seats[seat].eaten + 1,
				 __ATOMIC_RELAXED);
	}
	return s;
}

static void thr_put(struct cookie_table *t, unsigned int seat)
{
	struct thr_table *tab = (struct thr_table *)t;
	uint64_t s = ck_pr_faa_64(&tab->next_serial, 1);

	(void)seat;
	if (s >= tab->cap) {
		/* The last cookie is baked: the plate stays empty, nobody eats twice. */
		ck_pr_store_64(&tab->plate, 0);
		ck_pr_store_int(&tab->done, 1);
		return;
	}
	ck_pr_store_64(&tab->plate, s);
}

static bool thr_here(struct cookie_table *t, unsigned int seat)
{
	struct thr_table *tab = (struct thr_table *)t;
	struct seat *me = &tab->seats[seat];
	struct plate_token *tok;
	uint64_t now, d;

	if (!ck_ring_dequeue_spsc(&me->ring, me->buf, &tok))
		return false;
	now = rt_time_now_ns();
	d = now > tok->passed_ns ? now - tok->passed_ns : 0;
	handover(me, d);
	if (d > me->wait_max_ns)
		me->wait_max_ns = d;
	__atomic_store_n(&me->token, tok, __ATOMIC_RELAXED);
	return true;
}

static void thr_pass(struct cookie_table *t, unsigned int seat, unsigned int to)
{
	struct thr_table *tab = (struct thr_table *)t;
	struct plate_token *tok = tab->seats[seat].token;

	if (to >= tab->t.seats)
		return;
	if (!tok)
		tok = &tab->token;	/* the start: the plate comes from the kitchen */
	__atomic_store_n(&tab->seats[seat].token, NULL, __ATOMIC_RELAXED);
	tok->passed_ns = rt_time_now_ns();
	/* One plate, one slot in use at most: the ring never fills. */
	ck_ring_enqueue_spsc(&tab->seats[to].ring, tab->seats[to].buf, tok);
}

static const struct cookie_table_ops thr_ops = {
	.take = thr_take,
	.put = thr_put,
	.here = thr_here,
	.pass = thr_pass,
};

/* A lock protocol's turn: the broken protocol's take + put inside the lock. */
static int locked_turn(struct thr_table *tab, struct seat *me)
{
	uint64_t t0 = rt_time_now_ns(), t1, rel, d;
	int ate;

	if (tab->protocol == COOKIE_TICKET)
		ck_spinlock_ticket_lock(&tab->ticket);
	else
		ck_spinlock_fas_lock(&tab->fas);
	t1 = rt_time_now_ns();
	rel = tab->released_ns;
	d = t1 > rel ? t1 - rel : 0;
	handover(me, d);
	if (t1 - t0 > me->wait_max_ns)
		me->wait_max_ns = t1 - t0;
	ate = tab->proto->turn(&tab->t, me->index);
	tab->released_ns = rt_time_now_ns();
	if (tab->protocol == COOKIE_TICKET)
		ck_spinlock_ticket_unlock(&tab->ticket);
	else
		ck_spinlock_fas_unlock(&tab->fas);
	return ate;
}

static void *diner_main(void *arg)
{
	struct seat *me = arg;
	struct thr_table *tab = me->tab;
	unsigned int idle = 0;

	while (!ck_pr_load_int(&tab->go))
		sched_yield();
	while (!ck_pr_load_int(&tab->done)) {
		int ate;

		if (tab->protocol == COOKIE_TICKET || tab->protocol == COOKIE_GREEDY)
			ate = locked_turn(tab, me);
		else if (tab->protocol == COOKIE_UNI) {
			/* Not our turn: come back; after a while, let the holder run. */
			uint64_t before = me->handovers;

			ate = tab->proto->turn(&tab->t, me->index);
			if (me->handovers == before) {
				if (++idle >= SPINS_BEFORE_YIELD) {
					idle = 0;
					sched_yield();
				} else {
					ck_pr_stall();
				}
			} else {
				idle = 0;
			}
		} else {
			ate = tab->proto->turn(&tab->t, me->index);
		}
		(void)ate;
	}
	return NULL;
}

static void live_publish(struct cookie_live *live, const struct thr_table *tab, uint64_t el)
{
	uint64_t produced = ck_pr_load_64((uint64_t *)&tab->next_serial) - 1;

	pthread_mutex_lock(&live->lock);
	live->protocol = tab->protocol;
	live->diners = tab->t.seats;
	live->holder = tab->t.seats;
	for (unsigned int i = 0; i < tab->t.seats && i < COOKIE_DINERS_MAX; i++) {
		live->eaten[i] = __atomic_load_n(&tab->seats[i].eaten, __ATOMIC_RELAXED);
		if (__atomic_load_n(&tab->seats[i].token, __ATOMIC_RELAXED))
			live->holder = i;
	}
	live->produced = produced < tab->cap ? produced : tab->cap - 1;
	memset(live->lat, 0, sizeof(live->lat));
	for (unsigned int i = 0; i < tab->t.seats; i++)
		for (unsigned int b = 0; b < COOKIE_LIVE_LAT; b++)
			live->lat[b] += __atomic_load_n(&tab->seats[i].lat[b], __ATOMIC_RELAXED);
	live->elapsed_ns = el;
	pthread_mutex_unlock(&live->lock);
}

/* After the join: who ate what, twice or never. */
static void tally(const struct thr_table *tab, struct cookie_table_result *r)
{
	uint64_t baked = tab->next_serial < tab->cap ? tab->next_serial : tab->cap;
	uint64_t last = tab->plate;

	/* Serials 1 .. baked - 1 were put on the plate (1 before anyone sat down). */
	r->produced = baked - 1;
	r->left = last && !tab->tally[last];
	for (uint64_t s = 1; s < baked; s++) {
		unsigned int n = tab->tally[s];

		r->consumed += n;
		if (n > 1)
			r->duplicated += n - 1;
		else if (!n && s != last)
			r->lost++;
	}
}

static void table_free(struct thr_table *tab)
{
	if (!tab)
		return;
	for (unsigned int i = 0; tab->seats && i < tab->t.seats; i++)
		rt_hist_free(tab->seats[i].hist);
	free(tab->seats);
	free(tab->tally);
	free(tab);
}

int cookie_table_run(const struct cookie_table_opts *o, struct cookie_table_result *r,
		     char **cause)
{
	struct thr_table *tab = NULL;
	unsigned int started = 0;
	uint64_t t0, deadline, next_live, now;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	if (o->protocol > COOKIE_BROKEN)
		return rt_err(cause, -EINVAL, "%s is not a protocol of the table",
			      cookie_protocol_names[o->protocol]);
	if (o->diners < 2 || o->diners > COOKIE_DINERS_MAX)
		return rt_err(cause, -EINVAL, "diners must be 2 to %u", COOKIE_DINERS_MAX);
	if (o->cookies < 2 || o->cookies > COOKIE_COOKIES_MAX)
		return rt_err(cause, -EINVAL, "cookies must be 2 to %llu",
			      (unsigned long long)COOKIE_COOKIES_MAX);
	tab = calloc(1, sizeof(*tab));
	if (!tab)
		return rt_err(cause, -ENOMEM, "out of memory");
	tab->cap = o->cookies + 1;
	tab->tally = calloc(tab->cap, sizeof(*tab->tally));
	tab->seats = aligned_alloc(64, sizeof(*tab->seats) * o->diners);
	r->handover = rt_hist_new(COOKIE_HIST_US, 0);
	if (!tab->tally || !tab->seats || !r->handover) {
		ret = rt_err(cause, -ENOMEM, "out of memory for %llu cookies",
			     (unsigned long long)o->cookies);
		goto out;
	}
	memset(tab->seats, 0, sizeof(*tab->seats) * o->diners);
	tab->t.ops = &thr_ops;
	tab->t.seats = o->diners;
	tab->protocol = o->protocol;
	tab->proto = sim_cookie_proto(o->protocol == COOKIE_UNI ? SIM_COOKIE_UNI :
				      SIM_COOKIE_BROKEN);
	tab->plate = 1;
	tab->next_serial = 2;
	ck_spinlock_ticket_init(&tab->ticket);
	ck_spinlock_fas_init(&tab->fas);
	for (unsigned int i = 0; i < o->diners; i++) {
		struct seat *s = &tab->seats[i];

		ck_ring_init(&s->ring, RING_SLOTS);
		s->tab = tab;
		s->index = i;
		s->hist = rt_hist_new(COOKIE_HIST_US, 0);
		if (!s->hist) {
			ret = rt_err(cause, -ENOMEM, "out of memory");
			goto out;
		}
	}
	if (o->protocol == COOKIE_UNI && tab->proto->start)
		tab->proto->start(&tab->t);
	tab->released_ns = rt_time_now_ns();
	for (; started < o->diners; started++) {
		ret = -pthread_create(&tab->seats[started].thread, NULL, diner_main,
				      &tab->seats[started]);
		if (ret) {
			rt_err(cause, ret, "diner %u: %s", started, strerror(-ret));
			ck_pr_store_int(&tab->done, 1);
			break;
		}
	}
	t0 = rt_time_now_ns();
	deadline = o->duration_ns ? t0 + o->duration_ns : UINT64_MAX;
	next_live = t0;
	ck_pr_store_int(&tab->go, 1);
	while (!ck_pr_load_int(&tab->done)) {
		now = rt_time_now_ns();
		if (now >= deadline || (o->stop && *o->stop))
			break;
		if (o->live && now >= next_live) {
			live_publish(o->live, tab, now - t0);
			next_live = now + LIVE_EVERY_NS;
		}
		rt_time_sleep_ns(2000000, NULL);
	}
	ck_pr_store_int(&tab->done, 1);
	for (unsigned int i = 0; i < started; i++)
		pthread_join(tab->seats[i].thread, NULL);
	now = rt_time_now_ns();
	if (ret)
		goto out;
	tally(tab, r);
	r->elapsed_s = (double)(now - t0) / 1e9;
	r->throughput_hz = r->elapsed_s > 0 ? (double)r->consumed / r->elapsed_s : 0;
	for (unsigned int i = 0; i < o->diners; i++) {
		r->eaten[i] = tab->seats[i].eaten;
		r->waits_max_ns[i] = tab->seats[i].wait_max_ns;
		r->handovers += tab->seats[i].handovers;
		rt_hist_merge(r->handover, tab->seats[i].hist);
	}
	r->fairness = cookie_jain(r->eaten, o->diners);
	if (o->live)
		live_publish(o->live, tab, now - t0);
out:
	table_free(tab);
	if (ret) {
		rt_hist_free(r->handover);
		r->handover = NULL;
	}
	return ret;
}

void cookie_table_result_fini(struct cookie_table_result *r)
{
	rt_hist_free(r->handover);
	memset(r, 0, sizeof(*r));
}
