/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mutant: passes the plate before putting the new cookie: the next diner eats the old one again */
/* replaces: cookie.c */
/* caught-by: search-none */
/*
 * cookie.c: the uni-directional protocol (the reference of the cookie
 * exercise). Seat 0 holds the plate first; whoever has it eats the cookie
 * on it, puts a new one and passes the plate to the next seat, so only
 * one diner ever touches the plate and each waits at most for the
 * others' turns: (seats - 1) hand-overs.
 */
#include "cookie.h"

void protocol_start(struct cookie_table *t)
{
	plate_pass(t, 0, 0);
}

int diner_turn(struct cookie_table *t, unsigned int seat)
{
	uint64_t c;

	if (!plate_here(t, seat))
		return 0;
	c = plate_take(t, seat);
	plate_pass(t, seat, (seat + 1) % table_seats(t));
	plate_put(t, seat);
	return c != 0;
}
