/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cookie.h: the cookie table's plate operations, the API the learner's
 * protocol (cookie.c) is written against. Trusted: the grader's copy wins.
 *
 * The plate always holds one cookie, numbered by its serial (0: none). A
 * diner's turn is made of plate operations only:
 *
 *   plate_take()  eat the cookie on the plate (it returns its serial; the
 *                 plate is not emptied: the eaten cookie is still there
 *                 until someone puts a new one over it);
 *   plate_put()   bake a fresh cookie and put it on the plate, over what
 *                 was there (a cookie nobody ate is lost);
 *   plate_here()  has the plate been passed to this seat? (takes it out
 *                 of the seat's inbox: true once per pass);
 *   plate_pass()  hand the plate to another seat's inbox.
 *
 * Whoever runs the diners provides the operations: real threads (each an
 * atomic load, store or a wait-free SPSC ring) or the replay stepper
 * (cookie_step.h), which runs one operation of one diner per step in an
 * order it chooses. So a protocol is correct only if no interleaving of
 * these operations eats a cookie twice or loses one.
 */
#ifndef COOKIE_H
#define COOKIE_H

#include <stdbool.h>
#include <stdint.h>

struct cookie_table;

/* The driver's implementation of the plate operations. */
struct cookie_table_ops {
	uint64_t (*take)(struct cookie_table *t, unsigned int seat);
	void (*put)(struct cookie_table *t, unsigned int seat);
	bool (*here)(struct cookie_table *t, unsigned int seat);
	void (*pass)(struct cookie_table *t, unsigned int seat, unsigned int to);
};

/* The start of every driver's table. */
struct cookie_table {
	const struct cookie_table_ops *ops;
	unsigned int seats;	/* diners at the table, numbered 0 .. seats - 1 */
};

static inline uint64_t plate_take(struct cookie_table *t, unsigned int seat)
{
	return t->ops->take(t, seat);
}

static inline void plate_put(struct cookie_table *t, unsigned int seat)
{
	t->ops->put(t, seat);
}

static inline bool plate_here(struct cookie_table *t, unsigned int seat)
{
	return t->ops->here(t, seat);
}

static inline void plate_pass(struct cookie_table *t, unsigned int seat, unsigned int to)
{
	t->ops->pass(t, seat, to);
}

static inline unsigned int table_seats(const struct cookie_table *t)
{
	return t->seats;
}

/*
 * What the learner writes (cookie.c):
 *
 * protocol_start - called once before the diners sit down (e.g. to give
 *	the plate to a first seat with plate_pass())
 * diner_turn - one turn of the diner at @seat; called again and again
 *	from that diner's thread. Returns the cookies eaten (0 or 1). It must
 *	not wait: a diner whose turn it is not returns 0 and is called again.
 */
void protocol_start(struct cookie_table *t);
int diner_turn(struct cookie_table *t, unsigned int seat);

#endif
