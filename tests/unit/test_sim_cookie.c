/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the cookie table's replay (labs/cookie/checks/cookie_step.h
 * through rtlab/sim/sim_cookie.c): the schedule parser; hand-stepped
 * interleavings of the broken protocol that lose and duplicate a cookie,
 * the same schedules on the uni-directional one holding; the search
 * finding the shortest bad schedules of the broken protocol and none of
 * the uni-directional one, deterministically; the model's counters
 * against the stepper's; a protocol that never touches the plate not
 * hanging the stepper.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"
#include "sim/sim_cookie.h"

static size_t parse(const char *text, unsigned int seats, uint8_t *out)
{
	char why[128];
	size_t n;

	assert_int_equal(cookie_schedule_parse(text, seats, out, 64, &n, why, sizeof(why)), 0);
	return n;
}

static void test_parse(void **state)
{
	uint8_t s[64];
	char why[128];
	size_t n;

	(void)state;
	assert_int_equal(parse("0101", 2, s), 4);
	assert_memory_equal(s, "\0\1\0\1", 4);
	assert_int_equal(parse(" 0, 1 - 1*3 0", 2, s), 6);
	assert_memory_equal(s, "\0\1\1\1\1\0", 6);
	assert_int_equal(cookie_schedule_parse("012", 2, s, 64, &n, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "seat 2"));
	assert_int_equal(cookie_schedule_parse("0x", 2, s, 64, &n, why, sizeof(why)), -EINVAL);
	assert_int_equal(cookie_schedule_parse("", 2, s, 64, &n, why, sizeof(why)), -EINVAL);
	assert_int_equal(cookie_schedule_parse("0*", 2, s, 64, &n, why, sizeof(why)), -EINVAL);
	assert_int_equal(cookie_schedule_parse("0*0", 2, s, 64, &n, why, sizeof(why)), -EINVAL);
	assert_int_equal(cookie_schedule_parse("0*1000", 2, s, 64, &n, why, sizeof(why)), -EINVAL);
	assert_int_equal(cookie_schedule_parse("0*65", 2, s, 64, &n, why, sizeof(why)), -EINVAL);
	assert_int_equal(parse("1*64", 2, s), 64);
}

static void replay(enum sim_cookie_proto p, const char *text, struct cookie_step *st)
{
	uint8_t s[64];
	size_t n = parse(text, 2, s);

	assert_int_equal(cookie_step_init(st, sim_cookie_proto(p), 2, 100), 0);
	assert_int_equal(cookie_step_replay(st, s, n), 0);
}

/* A takes 1, B takes 1 (twice eaten), A puts 2, B puts 3 over it (2 lost). */
static void test_broken_by_hand(void **state)
{
	struct cookie_step st;

	(void)state;
	replay(SIM_COOKIE_BROKEN, "0101", &st);
	assert_int_equal(st.duplicated, 1);
	assert_int_equal(st.lost, 1);
	assert_int_equal(st.produced, 3);
	assert_int_equal(st.consumed, 2);
	assert_int_equal(st.plate, 3);
	cookie_step_fini(&st);
	/* One after the other, nothing goes wrong. */
	replay(SIM_COOKIE_BROKEN, "00110011", &st);
	assert_false(cookie_step_bad(&st));
	assert_int_equal(st.consumed, 4);
	assert_int_equal(st.eaten_by[0], 2);
	assert_int_equal(st.eaten_by[1], 2);
	cookie_step_fini(&st);
}

/* The same schedules on the uni-directional plate: only the holder moves. */
static void test_uni_holds(void **state)
{
	static const char *const scheds[] = { "0101", "0101010101", "1*5 0*5 1*5", "0011001100" };
	struct cookie_step st;

	(void)state;
	for (size_t i = 0; i < sizeof(scheds) / sizeof(scheds[0]); i++) {
		replay(SIM_COOKIE_UNI, scheds[i], &st);
		assert_false(cookie_step_bad(&st));
		cookie_step_fini(&st);
	}
	/* Seat 0: here, take, put, pass; seat 1 then: here, take, put, pass. */
	replay(SIM_COOKIE_UNI, "0000 1111 0", &st);
	assert_int_equal(st.eaten_by[0], 1);
	assert_int_equal(st.eaten_by[1], 1);
	assert_int_equal(st.passes, 2);
	assert_int_equal(st.last_op, COOKIE_OP_HERE);
	assert_int_equal(st.last_value, 1);
	cookie_step_fini(&st);
}

static void test_search(void **state)
{
	uint8_t s[24];
	size_t n;

	(void)state;
	assert_int_equal(sim_cookie_find_bad(SIM_COOKIE_BROKEN, 2, 8, COOKIE_BAD_DUP, s, &n), 1);
	assert_int_equal(n, 2);
	assert_memory_equal(s, "\0\1", 2);
	assert_int_equal(sim_cookie_find_bad(SIM_COOKIE_BROKEN, 2, 8, COOKIE_BAD_LOST, s, &n), 1);
	assert_int_equal(n, 4);
	assert_memory_equal(s, "\0\1\0\1", 4);
	assert_int_equal(sim_cookie_find_bad(SIM_COOKIE_BROKEN, 3, 6, COOKIE_BAD_LOST, s, &n), 1);
	assert_int_equal(n, 4);
	/* Every schedule of up to 12 steps of two diners, 14 of three: none goes wrong. */
	assert_int_equal(sim_cookie_find_bad(SIM_COOKIE_UNI, 2, 12, COOKIE_BAD_ANY, s, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(sim_cookie_find_bad(SIM_COOKIE_UNI, 3, 8, COOKIE_BAD_ANY, s, &n), 0);
	assert_int_equal(sim_cookie_find_bad(SIM_COOKIE_UNI, 2, 25, COOKIE_BAD_ANY, s, &n),
			 -EINVAL);
}

static int idle_turn(struct cookie_table *t, unsigned int seat)
{
	(void)t;
	(void)seat;
	return 0;
}

static void test_idle(void **state)
{
	const struct cookie_proto p = { .turn = idle_turn };
	struct cookie_step st;

	(void)state;
	assert_int_equal(cookie_step_init(&st, &p, 2, 10), 0);
	assert_int_equal(cookie_step_one(&st, 1), COOKIE_OP_IDLE);
	assert_int_equal(cookie_step_one(&st, 0), COOKIE_OP_IDLE);
	assert_int_equal(cookie_step_one(&st, 2), -EINVAL);
	assert_int_equal(st.steps, 2);
	cookie_step_fini(&st);
	assert_int_equal(cookie_step_init(&st, &p, 9, 10), -EINVAL);
	cookie_step_fini(&st);
}

static int greedy_put(struct cookie_table *t, unsigned int seat)
{
	plate_put(t, seat);
	return 0;
}

/* The tally is full: the stepper says so instead of writing past it. */
static void test_full(void **state)
{
	const struct cookie_proto p = { .turn = greedy_put };
	struct cookie_step st;
	int op = 0, i;

	(void)state;
	assert_int_equal(cookie_step_init(&st, &p, 2, 4), 0);
	for (i = 0; i < 10 && op >= 0; i++)
		op = cookie_step_one(&st, 0);
	assert_int_equal(op, -ENOSPC);
	assert_true(st.baked < 4);
	assert_int_equal(cookie_step_one(&st, 1), -ENOSPC);
	cookie_step_fini(&st);
}

/* The model counts what the stepper counts, with a schedule and drawn from a seed. */
static void test_model(void **state)
{
	uint8_t sched[4] = { 0, 1, 0, 1 };
	struct sim_cookie_scenario sc = { .proto = SIM_COOKIE_BROKEN, .seats = 2, .steps = 4,
					  .schedule = sched };
	struct sim_events ev;
	struct sim *s;
	char *cause = NULL;
	uint64_t v;

	(void)state;
	assert_int_equal(sim_events_init(&ev, 16), 0);
	assert_int_equal(sim_new(&sim_cookie_model, &sc, 1, &s, &cause), 0);
	assert_int_equal(sim_run(s, 10, &ev), 4);
	assert_true(sim_done(s));
	assert_int_equal(sim_counters_get(sim_counters(s), "lost_count", &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(sim_counters_get(sim_counters(s), "duplicated_count", &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(sim_counters_get(sim_counters(s), "produced_count", &v), 0);
	assert_int_equal(v, 3);
	assert_int_equal(ev.count, 4);
	assert_int_equal(sim_events_peek(&ev, 1)->type, COOKIE_OP_TAKE);
	assert_int_equal(sim_events_peek(&ev, 1)->who, 1);
	assert_int_equal(sim_events_peek(&ev, 1)->a, 1);
	assert_int_equal(sim_events_peek(&ev, 3)->type, COOKIE_OP_PUT);
	assert_int_equal(sim_events_peek(&ev, 3)->a, 3);
	assert_int_equal(sim_cookie_table(sim_state(s))->lost, 1);
	sim_free(s);

	sched[1] = 2;
	assert_int_equal(sim_new(&sim_cookie_model, &sc, 1, &s, &cause), -EINVAL);
	assert_non_null(strstr(cause, "seat 2"));
	free(cause);
	cause = NULL;

	/* Random interleavings of the uni-directional plate: many passes, nothing lost. */
	sc = (struct sim_cookie_scenario){ .proto = SIM_COOKIE_UNI, .seats = 4, .steps = 20000 };
	assert_int_equal(sim_new(&sim_cookie_model, &sc, 7, &s, &cause), 0);
	assert_int_equal(sim_run(s, SIM_STEPS_ALL, NULL), 20000);
	assert_int_equal(sim_counters_get(sim_counters(s), "lost_count", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(sim_counters_get(sim_counters(s), "duplicated_count", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(sim_counters_get(sim_counters(s), "passes_count", &v), 0);
	assert_true(v > 100);
	sim_free(s);
	sim_events_fini(&ev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_broken_by_hand),
		cmocka_unit_test(test_uni_holds),
		cmocka_unit_test(test_search),
		cmocka_unit_test(test_idle),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
