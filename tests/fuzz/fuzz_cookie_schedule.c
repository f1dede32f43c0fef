/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for the cookie replay's schedule parser
 * (cookie_schedule_parse() in labs/cookie/checks/cookie_step.h) and the
 * stepper behind it. The first byte picks the seats (2..8); the rest is
 * the schedule's text. A refusal must come with a reason; an accepted
 * schedule names seats at the table only, and is replayed on the broken
 * and the uni-directional plate: the tally must add up on both (each
 * cookie put is eaten, lost or still on the plate), and the
 * uni-directional plate must never lose or duplicate one.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_cookie.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_replay(enum sim_cookie_proto p, unsigned int seats, const uint8_t *s, size_t n)
{
	struct cookie_step *st = malloc(sizeof(*st));
	uint64_t left;

	if (!st)
		return;
	if (cookie_step_init(st, sim_cookie_proto(p), seats, n + 2) ||
	    cookie_step_replay(st, s, n))
		abort();
	left = st->plate && !st->eaten[st->plate];
	if (st->produced + st->duplicated != st->consumed + st->lost + left)
		abort();
	if (st->steps != n)
		abort();
	if (p == SIM_COOKIE_UNI && cookie_step_bad(st))
		abort();
	cookie_step_fini(st);
	free(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t sched[COOKIE_SCHEDULE_MAX];
	char *text, why[128] = "";
	unsigned int seats;
	size_t n = 0;

	if (size < 1 || size > 8192)
		return 0;
	seats = 2 + data[0] % (COOKIE_STEP_SEATS_MAX - 1);
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0;
	if (cookie_schedule_parse(text, seats, sched, sizeof(sched), &n, why, sizeof(why))) {
		if (!why[0] || n)
			abort();
	} else {
		if (!n || n > sizeof(sched))
			abort();
		for (size_t i = 0; i < n; i++)
			if (sched[i] >= seats)
				abort();
		/* Replays cost a context switch a step: keep them short. */
		if (n <= 512) {
			check_replay(SIM_COOKIE_BROKEN, seats, sched, n);
			check_replay(SIM_COOKIE_UNI, seats, sched, n);
		}
	}
	free(text);
	return 0;
}
