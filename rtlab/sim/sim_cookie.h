/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_cookie: the cookie table's replay as a model (doc/sim.md). The plate
 * operations of a protocol (labs/cookie/checks/cookie.h) are the steps; a
 * scheduler picks, step by step, which diner does its next operation:
 * a given schedule ("0101") or one drawn from the seed. The stepper is
 * labs/cookie/checks/cookie_step.h, the very code the exercise's grader
 * runs on the learner's cookie.c, so the lab's replay and the grade agree.
 *
 * rtlab's own protocols for the replay are here too: broken (take then
 * put, nothing else: two diners interleaved lose and duplicate cookies)
 * and uni-directional (the plate passed round in seat order), written
 * against the same plate operations; the real-thread lab runs the same
 * two functions (labs/lab_cookie_threads.c).
 */
#ifndef RTLAB_SIM_SIM_COOKIE_H
#define RTLAB_SIM_SIM_COOKIE_H

#include <stddef.h>
#include <stdint.h>

#include "sim.h"
#include "../../labs/cookie/checks/cookie_step.h"

/* Most steps a model instance runs (its tally holds a cookie per step). */
#define SIM_COOKIE_STEPS_MAX 1000000u

enum sim_cookie_proto {
	SIM_COOKIE_BROKEN,	/* take, put: no exclusion at all */
	SIM_COOKIE_UNI,		/* wait for the plate, take, put, pass to the next seat */
	SIM_COOKIE_NPROTOS
};

/* "broken", "uni-directional" */
const char *sim_cookie_proto_name(enum sim_cookie_proto p);
/* The protocol's plate functions, for the stepper or real threads. */
const struct cookie_proto *sim_cookie_proto(enum sim_cookie_proto p);

struct sim_cookie_scenario {
	enum sim_cookie_proto proto;
	unsigned int seats;		/* 2 .. COOKIE_STEP_SEATS_MAX */
	uint64_t steps;			/* the horizon, 1 .. SIM_COOKIE_STEPS_MAX; with a
					 * schedule, its length */
	const uint8_t *schedule;	/* seats to step, borrowed; NULL: drawn from the seed */
};

/* Counters, in this order. */
enum sim_cookie_counter {
	SIM_COOKIE_C_STEPS,		/* steps_count */
	SIM_COOKIE_C_PRODUCED,		/* produced_count (the first cookie included) */
	SIM_COOKIE_C_CONSUMED,		/* consumed_count */
	SIM_COOKIE_C_LOST,		/* lost_count */
	SIM_COOKIE_C_DUPLICATED,	/* duplicated_count */
	SIM_COOKIE_C_PASSES,		/* passes_count */
	SIM_COOKIE_C_IDLE,		/* idle_count: turns without a plate operation */
	SIM_COOKIE_NCOUNTERS
};

/* Events: one per step, type = enum cookie_op, who = the seat, a = its value. */

extern const struct sim_model_ops sim_cookie_model;

/* sim_cookie_table - the stepper inside a model's state (between runs) */
const struct cookie_step *sim_cookie_table(const void *state);

/**
 * sim_cookie_find_bad - the shortest schedule on which @proto loses or duplicates
 * @seats: 2 .. COOKIE_STEP_SEATS_MAX
 * @max_len: longest schedule tried (1..24)
 * @what: lost, duplicated or either
 * @out: at least @max_len bytes; @n gets the length
 *
 * Returns 1 (found), 0 (every schedule up to @max_len is right) or a
 * negative errno.
 */
int sim_cookie_find_bad(enum sim_cookie_proto proto, unsigned int seats, unsigned int max_len,
			enum cookie_bad what, uint8_t *out, size_t *n);

#endif
