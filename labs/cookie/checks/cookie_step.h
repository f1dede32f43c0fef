/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cookie_step.h: the replay stepper of the cookie table, header-only so that
 * the same code runs in the grader's subject (linked with the learner's
 * cookie.c) and in rtlab's simulator (rtlab/sim/sim_cookie.c, the lab's
 * replay view): one stepper, whoever asks.
 *
 * Each diner is a coroutine (ucontext) running diner_turn() again and
 * again. Every plate operation (cookie.h) first stops its diner; a step
 * resumes one diner of the scheduler's choice, which does the operation it
 * stopped at and runs on to its next one. So a schedule (a list of seats,
 * "0101") picks one interleaving of the diners' operations exactly, the
 * same on every machine, and the learner's own code is what runs. A turn
 * that does no plate operation at all still ends its step (an "idle" step),
 * so a protocol that never touches the plate cannot hang the stepper.
 *
 * The counting is exact and immediate, since one operation runs at a
 * time: a take of a cookie already eaten is a duplicate, a put over a
 * cookie nobody ate loses it.
 *
 * Nothing here does I/O, reads a clock or keeps static data; memory is
 * allocated in cookie_step_init() only (the stacks and the tally).
 */
#ifndef COOKIE_STEP_H
#define COOKIE_STEP_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "cookie.h"

#define COOKIE_STEP_SEATS_MAX 8u
#define COOKIE_STEP_STACK (64u * 1024u)
#define COOKIE_SCHEDULE_MAX 4096u	/* seats in a parsed schedule */

/* What one step did. */
enum cookie_op {
	COOKIE_OP_IDLE,		/* a turn without any plate operation */
	COOKIE_OP_TAKE,
	COOKIE_OP_PUT,
	COOKIE_OP_HERE,
	COOKIE_OP_PASS,
	COOKIE_OP_COUNT,
};

/* cookie_op_name - "take", "put"... for a step's operation */
static inline const char *cookie_op_name(int op)
{
	switch (op) {
	case COOKIE_OP_IDLE: return "idle";
	case COOKIE_OP_TAKE: return "take";
	case COOKIE_OP_PUT: return "put";
	case COOKIE_OP_HERE: return "here";
	case COOKIE_OP_PASS: return "pass";
	default: return "?";
	}
}

/* The protocol under replay: the learner's functions or rtlab's. */
struct cookie_proto {
	void (*start)(struct cookie_table *t);
	int (*turn)(struct cookie_table *t, unsigned int seat);
};

struct cookie_step {
	struct cookie_table t;		/* first: the diners see this */
	struct cookie_proto proto;
	unsigned int nseats;
	uint64_t max_cookies;		/* serials the tally holds */
	ucontext_t sched;
	ucontext_t diner[COOKIE_STEP_SEATS_MAX];
	char *stack[COOKIE_STEP_SEATS_MAX];
	uint8_t *eaten;			/* times serial i was eaten (saturates at 255) */
	unsigned int cur;		/* the seat running, or nseats outside a step */
	bool in_turn_op;		/* the current turn did an operation */
	uint8_t pending[COOKIE_STEP_SEATS_MAX];	/* the operation each diner stopped at */
	bool full;			/* the tally is full: the replay must stop */
	/* The plate and the inboxes. */
	uint64_t plate;			/* serial of the cookie on it */
	uint64_t baked;			/* serials handed out */
	uint32_t inbox[COOKIE_STEP_SEATS_MAX];
	/* The counts. */
	uint64_t steps, produced, consumed, lost, duplicated, passes;
	uint64_t misreported;		/* turns whose return was not the cookies they ate */
	uint64_t eaten_by[COOKIE_STEP_SEATS_MAX];
	/* The last step, for a viewer. */
	unsigned int last_seat;
	enum cookie_op last_op;
	uint64_t last_value;
};

/* Stop the running diner at @op; back in the scheduler until its next step. */
static inline void cookie_step_stop(struct cookie_step *st, enum cookie_op op)
{
	unsigned int seat = st->cur;

	st->in_turn_op = true;
	if (seat < st->nseats) {
		st->pending[seat] = (uint8_t)op;
		swapcontext(&st->diner[seat], &st->sched);
	}
}

static inline uint64_t cookie_step_take(struct cookie_table *t, unsigned int seat)
{
	struct cookie_step *st = (struct cookie_step *)t;
	uint64_t s;

	cookie_step_stop(st, COOKIE_OP_TAKE);
	s = st->plate;
	if (s) {
		if (st->eaten[s])
			st->duplicated++;
		if (st->eaten[s] < 255)
			st->eaten[s]++;
		st->consumed++;
		if (seat < COOKIE_STEP_SEATS_MAX)
			st->eaten_by[seat]++;
	}
	st->last_value = s;
	return s;
}

static inline void cookie_step_put(struct cookie_table *t, unsigned int seat)
{
	struct cookie_step *st = (struct cookie_step *)t;

	(void)seat;
	cookie_step_stop(st, COOKIE_OP_PUT);
	if (st->baked + 1 >= st->max_cookies) {
		st->full = true;
		st->last_value = 0;
		return;
	}
	if (st->plate && !st->eaten[st->plate])
		st->lost++;
	st->plate = ++st->baked;
	st->produced++;
	st->last_value = st->plate;
}

static inline bool cookie_step_here(struct cookie_table *t, unsigned int seat)
{
	struct cookie_step *st = (struct cookie_step *)t;
	bool here = false;

	cookie_step_stop(st, COOKIE_OP_HERE);
	if (seat < st->nseats && st->inbox[seat]) {
		st->inbox[seat]--;
		here = true;
	}
	st->last_value = here;
	return here;
}

static inline void cookie_step_pass(struct cookie_table *t, unsigned int seat, unsigned int to)
{
	struct cookie_step *st = (struct cookie_step *)t;

	(void)seat;
	cookie_step_stop(st, COOKIE_OP_PASS);
	if (to < st->nseats) {
		st->inbox[to]++;
		st->passes++;
	}
	st->last_value = to;
}

static const struct cookie_table_ops cookie_step_ops = {
	.take = cookie_step_take,
	.put = cookie_step_put,
	.here = cookie_step_here,
	.pass = cookie_step_pass,
};

/* A diner's coroutine: the pointer comes in two halves, as makecontext wants ints. */
static void cookie_step_diner(unsigned int hi, unsigned int lo, unsigned int seat)
{
	struct cookie_step *st = (struct cookie_step *)(((uintptr_t)hi << 16 << 16) | lo);

	for (;;) {
		uint64_t before = st->eaten_by[seat];
		int ret;

		st->in_turn_op = false;
		ret = st->proto.turn(&st->t, seat);
		if ((long long)ret != (long long)(st->eaten_by[seat] - before))
			st->misreported++;
		if (!st->in_turn_op)
			cookie_step_stop(st, COOKIE_OP_IDLE);
	}
}

/* Each diner to its first operation (none done), the plate at its start. */
static inline int cookie_step_reset(struct cookie_step *st)
{
	uintptr_t p = (uintptr_t)st;

	st->plate = 1;
	st->baked = 1;
	st->produced = 1;
	st->consumed = st->lost = st->duplicated = st->passes = st->steps = 0;
	st->misreported = 0;
	st->full = false;
	memset(st->eaten, 0, st->max_cookies);
	memset(st->inbox, 0, sizeof(st->inbox));
	memset(st->eaten_by, 0, sizeof(st->eaten_by));
	st->cur = st->nseats;
	st->last_seat = st->nseats;
	st->last_op = COOKIE_OP_IDLE;
	st->last_value = 0;
	/* The start runs outside any step: its operations take effect at once. */
	if (st->proto.start)
		st->proto.start(&st->t);
	st->passes = 0;
	for (unsigned int i = 0; i < st->nseats; i++) {
		if (getcontext(&st->diner[i]))
			return -errno;
		st->diner[i].uc_stack.ss_sp = st->stack[i];
		st->diner[i].uc_stack.ss_size = COOKIE_STEP_STACK;
		st->diner[i].uc_link = &st->sched;
		makecontext(&st->diner[i], (void (*)(void))cookie_step_diner, 3,
			    (unsigned int)(p >> 16 >> 16), (unsigned int)(p & 0xffffffffu), i);
		st->cur = i;
		swapcontext(&st->sched, &st->diner[i]);
		st->cur = st->nseats;
	}
	return 0;
}

static inline void cookie_step_fini(struct cookie_step *st)
{
	for (unsigned int i = 0; i < COOKIE_STEP_SEATS_MAX; i++) {
		free(st->stack[i]);
		st->stack[i] = NULL;
	}
	free(st->eaten);
	st->eaten = NULL;
}

/**
 * cookie_step_init - a table of @seats diners running @proto, ready to step
 * @max_cookies: cookies the tally can count (a replay longer than that
 *	stops baking: cookie_step_one() returns -ENOSPC)
 *
 * Returns 0, -EINVAL (seats outside 1 .. COOKIE_STEP_SEATS_MAX, no turn)
 * or -ENOMEM. Release with cookie_step_fini(), also after a failure.
 */
static inline int cookie_step_init(struct cookie_step *st, const struct cookie_proto *proto,
				   unsigned int seats, uint64_t max_cookies)
{
	memset(st, 0, sizeof(*st));
	if (!seats || seats > COOKIE_STEP_SEATS_MAX || !proto->turn || max_cookies < 2)
		return -EINVAL;
	st->t.ops = &cookie_step_ops;
	st->t.seats = seats;
	st->proto = *proto;
	st->nseats = seats;
	st->max_cookies = max_cookies;
	st->eaten = calloc(max_cookies, 1);
	if (!st->eaten)
		return -ENOMEM;
	for (unsigned int i = 0; i < seats; i++) {
		st->stack[i] = malloc(COOKIE_STEP_STACK);
		if (!st->stack[i])
			return -ENOMEM;
	}
	return cookie_step_reset(st);
}

/**
 * cookie_step_one - one step: the diner at @seat does its next plate operation
 *
 * Returns the operation done (enum cookie_op), -EINVAL for a seat not at
 * the table, or -ENOSPC once the tally is full.
 */
static inline int cookie_step_one(struct cookie_step *st, unsigned int seat)
{
	if (seat >= st->nseats)
		return -EINVAL;
	if (st->full)
		return -ENOSPC;
	st->cur = seat;
	st->last_op = (enum cookie_op)st->pending[seat];
	swapcontext(&st->sched, &st->diner[seat]);
	st->cur = st->nseats;
	st->last_seat = seat;
	st->steps++;
	return st->full ? -ENOSPC : (int)st->last_op;
}

/* cookie_step_bad - a cookie was lost or eaten twice so far */
static inline bool cookie_step_bad(const struct cookie_step *st)
{
	return st->lost || st->duplicated;
}

/**
 * cookie_schedule_parse - read a schedule: the seats to step, in order
 * @text: seat digits 0-7; spaces, commas and dashes between them are
 *	ignored; "D*K" steps seat D K times (K 1..999). "0101", "0 1 0 1",
 *	"0*3 1*3".
 * @seats: seats at the table: a larger seat number is refused
 * @out: receives the seats, up to @cap of them; @n gets how many
 * @why: on failure, a sentence (at most @whylen bytes)
 *
 * Returns 0, or -EINVAL (with @why) for an empty, malformed or too long
 * schedule.
 */
static inline int cookie_schedule_parse(const char *text, unsigned int seats, uint8_t *out,
					size_t cap, size_t *n, char *why, size_t whylen)
{
	size_t k = 0;
	const char *p = text;

	*n = 0;
	while (*p) {
		unsigned int seat, rep = 1;

		if (*p == ' ' || *p == ',' || *p == '-' || *p == '\t' || *p == '\n') {
			p++;
			continue;
		}
		if (*p < '0' || *p > '7') {
			snprintf(why, whylen, "'%c' at %zu is not a seat (0-7)", *p,
				 (size_t)(p - text));
			return -EINVAL;
		}
		seat = (unsigned int)(*p++ - '0');
		if (seat >= seats) {
			snprintf(why, whylen, "seat %u at %zu: the table has seats 0-%u", seat,
				 (size_t)(p - 1 - text), seats - 1);
			return -EINVAL;
		}
		if (*p == '*') {
			p++;
			if (*p < '0' || *p > '9') {
				snprintf(why, whylen, "'*' at %zu needs a count", (size_t)(p - 1 - text));
				return -EINVAL;
			}
			rep = 0;
			while (*p >= '0' && *p <= '9' && rep <= 999)
				rep = rep * 10 + (unsigned int)(*p++ - '0');
			if (rep < 1 || rep > 999) {
				snprintf(why, whylen, "a count must be 1 to 999");
				return -EINVAL;
			}
		}
		if (k + rep > cap) {
			snprintf(why, whylen, "the schedule is longer than %zu steps", cap);
			return -EINVAL;
		}
		while (rep--)
			out[k++] = (uint8_t)seat;
	}
	if (!k) {
		snprintf(why, whylen, "the schedule names no seat");
		return -EINVAL;
	}
	*n = k;
	return 0;
}

/**
 * cookie_step_replay - reset @st and run @sched (@n seats) from the start
 *
 * Returns 0, or what cookie_step_one() refused.
 */
static inline int cookie_step_replay(struct cookie_step *st, const uint8_t *sched, size_t n)
{
	int ret = cookie_step_reset(st);

	for (size_t i = 0; !ret && i < n; i++) {
		int op = cookie_step_one(st, sched[i]);

		if (op < 0)
			ret = op;
	}
	return ret;
}

/* What a search looks for. */
enum cookie_bad {
	COOKIE_BAD_ANY,		/* a lost or duplicated cookie */
	COOKIE_BAD_LOST,	/* a lost cookie */
	COOKIE_BAD_DUP,		/* a cookie eaten twice */
};

/**
 * cookie_step_search - the shortest schedule (first in seat order) that goes wrong
 * @max_len: longest schedule tried, at most 24; every schedule of each length
 *	up to it is replayed, shortest first (seats^len replays a length)
 * @what: what counts as wrong
 * @out: receives the schedule (at least @max_len entries); @n its length
 *
 * Deterministic: the same protocol gives the same answer everywhere.
 * Returns 1 when found, 0 when every schedule up to @max_len is right, or a
 * negative errno.
 */
static inline int cookie_step_search(struct cookie_step *st, unsigned int max_len,
				     enum cookie_bad what, uint8_t *out, size_t *n)
{
	uint8_t s[24];

	*n = 0;
	if (max_len > 24)
		return -EINVAL;
	for (unsigned int len = 1; len <= max_len; len++) {
		memset(s, 0, sizeof(s));
		for (;;) {
			int ret = cookie_step_replay(st, s, len);
			bool bad;

			if (ret && ret != -ENOSPC)
				return ret;
			bad = what == COOKIE_BAD_LOST ? st->lost :
			      what == COOKIE_BAD_DUP ? st->duplicated : cookie_step_bad(st);
			if (bad) {
				memcpy(out, s, len);
				*n = len;
				return 1;
			}
			/* The next schedule of this length, as a number in base nseats. */
			unsigned int i = len;

			while (i-- > 0) {
				if (++s[i] < st->nseats)
					break;
				s[i] = 0;
			}
			if (i == (unsigned int)-1)
				break;
		}
	}
	return 0;
}

#endif
