/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_cookie: the cookie table's replay model and rtlab's two plate
 * protocols (sim_cookie.h). The stepper is labs/cookie/checks/cookie_step.h;
 * this file adds the scheduler (a given schedule, or a seat drawn from the
 * seed per step), the counters and the events the contract of doc/sim.md
 * asks for. A step is one plate operation of one diner; its cost is a
 * context switch between coroutines, which is why this model has no fast
 * path and a horizon of at most a million steps: it is for seeing and
 * searching interleavings, not for throughput.
 */
#include "sim_cookie.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_err.h"
#include "sim_rng.h"

/* ---- The protocols ----------------------------------------------------------- */

/* Broken: eat what is on the plate, put a new one. Nothing keeps two hands apart. */
static int broken_turn(struct cookie_table *t, unsigned int seat)
{
	uint64_t c = plate_take(t, seat);

	plate_put(t, seat);
	return c != 0;
}

static void uni_start(struct cookie_table *t)
{
	plate_pass(t, 0, 0);	/* seat 0 holds the plate first */
}

/* Uni-directional: only the holder touches the plate, then passes it on, one way. */
static int uni_turn(struct cookie_table *t, unsigned int seat)
{
	uint64_t c;

	if (!plate_here(t, seat))
		return 0;
	c = plate_take(t, seat);
	plate_put(t, seat);
	plate_pass(t, seat, (seat + 1) % table_seats(t));
	return c != 0;
}

static const struct cookie_proto protos[SIM_COOKIE_NPROTOS] = {
	[SIM_COOKIE_BROKEN] = { .start = NULL, .turn = broken_turn },
	[SIM_COOKIE_UNI] = { .start = uni_start, .turn = uni_turn },
};

const char *sim_cookie_proto_name(enum sim_cookie_proto p)
{
	return p == SIM_COOKIE_BROKEN ? "broken" : p == SIM_COOKIE_UNI ? "uni-directional" : "?";
}

const struct cookie_proto *sim_cookie_proto(enum sim_cookie_proto p)
{
	return (unsigned int)p < SIM_COOKIE_NPROTOS ? &protos[p] : NULL;
}

/* ---- The model ------------------------------------------------------------------ */

static const struct sim_counter_desc ck_counters[SIM_COOKIE_NCOUNTERS] = {
	{ "steps_count", SIM_COUNTER_SUM, "plate operations done (one a step)" },
	{ "produced_count", SIM_COUNTER_SUM, "cookies put on the plate, the first one included" },
	{ "consumed_count", SIM_COUNTER_SUM, "cookies eaten, a duplicate included" },
	{ "lost_count", SIM_COUNTER_SUM, "cookies put over by another before anyone ate them" },
	{ "duplicated_count", SIM_COUNTER_SUM, "takes of a cookie someone had already eaten" },
	{ "passes_count", SIM_COUNTER_SUM, "hand-overs of the plate" },
	{ "idle_count", SIM_COUNTER_SUM, "turns that touched no plate operation" },
};

static const struct sim_event_desc ck_events[COOKIE_OP_COUNT] = {
	[COOKIE_OP_IDLE] = { "idle", "seat", NULL, NULL },
	[COOKIE_OP_TAKE] = { "take", "seat", "cookie", NULL },
	[COOKIE_OP_PUT] = { "put", "seat", "cookie", NULL },
	[COOKIE_OP_HERE] = { "here", "seat", "got", NULL },
	[COOKIE_OP_PASS] = { "pass", "seat", "to", NULL },
};

static const struct sim_cookie_scenario ck_broken2 = {
	.proto = SIM_COOKIE_BROKEN, .seats = 2, .steps = 2000,
};
static const struct sim_cookie_scenario ck_broken4 = {
	.proto = SIM_COOKIE_BROKEN, .seats = 4, .steps = 2000,
};
static const struct sim_cookie_scenario ck_uni4 = {
	.proto = SIM_COOKIE_UNI, .seats = 4, .steps = 2000,
};

static const struct sim_preset ck_presets[] = {
	{ "replay-broken-2", "broken, 2 diners, random interleaving: cookies lost and eaten twice",
	  &ck_broken2 },
	{ "replay-broken-4", "broken, 4 diners, random interleaving", &ck_broken4 },
	{ "replay-uni-4", "uni-directional, 4 diners, random interleaving: nothing lost",
	  &ck_uni4 },
};

struct ck_state {
	struct cookie_step st;
	struct sim_cookie_scenario sc;
	struct sim_rng rng;
	uint64_t done;
};

static int ck_check(const void *scenario, char **cause)
{
	const struct sim_cookie_scenario *sc = scenario;

	if ((unsigned int)sc->proto >= SIM_COOKIE_NPROTOS)
		return rt_err(cause, -EINVAL, "no cookie protocol %d", (int)sc->proto);
	if (sc->seats < 2 || sc->seats > COOKIE_STEP_SEATS_MAX)
		return rt_err(cause, -EINVAL, "seats must be 2 to %u, not %u",
			      COOKIE_STEP_SEATS_MAX, sc->seats);
	if (sc->steps < 1 || sc->steps > SIM_COOKIE_STEPS_MAX)
		return rt_err(cause, -ERANGE, "steps must be 1 to %u", SIM_COOKIE_STEPS_MAX);
	for (uint64_t i = 0; sc->schedule && i < sc->steps; i++)
		if (sc->schedule[i] >= sc->seats)
			return rt_err(cause, -EINVAL, "step %llu of the schedule names seat %u of %u",
				      (unsigned long long)i, sc->schedule[i], sc->seats);
	return 0;
}

static int ck_init(void *state, const void *scenario, uint64_t seed, char **cause)
{
	struct ck_state *s = state;
	int ret;

	s->sc = *(const struct sim_cookie_scenario *)scenario;
	sim_rng_seed(&s->rng, seed);
	/* A put a step at most, plus the first cookie. */
	ret = cookie_step_init(&s->st, &protos[s->sc.proto], s->sc.seats, s->sc.steps + 2);
	if (ret) {
		cookie_step_fini(&s->st);
		return rt_err(cause, ret, "the replay's table: out of memory");
	}
	return 0;
}

static uint64_t ck_run(void *state, uint64_t steps, struct sim_counters *c, struct sim_events *ev)
{
	struct ck_state *s = state;
	struct cookie_step *st = &s->st;
	uint64_t n = 0;

	while (n < steps && s->done < s->sc.steps) {
		unsigned int seat = s->sc.schedule ? s->sc.schedule[s->done] :
				    (unsigned int)sim_rng_below(&s->rng, s->sc.seats);
		uint64_t p = st->produced, co = st->consumed, l = st->lost, d = st->duplicated;
		uint64_t pa = st->passes;
		int op = cookie_step_one(st, seat);

		if (op < 0)
			break;	/* cannot happen: the tally holds a cookie per step */
		if (!s->done)
			c->v[SIM_COOKIE_C_PRODUCED]++;	/* the first cookie, there before any step */
		s->done++;
		n++;
		c->v[SIM_COOKIE_C_STEPS]++;
		c->v[SIM_COOKIE_C_PRODUCED] += st->produced - p;
		c->v[SIM_COOKIE_C_CONSUMED] += st->consumed - co;
		c->v[SIM_COOKIE_C_LOST] += st->lost - l;
		c->v[SIM_COOKIE_C_DUPLICATED] += st->duplicated - d;
		c->v[SIM_COOKIE_C_PASSES] += st->passes - pa;
		if (op == COOKIE_OP_IDLE)
			c->v[SIM_COOKIE_C_IDLE]++;
		if (ev)
			sim_events_push(ev, s->done, (uint32_t)op, seat, st->last_value, 0);
	}
	return n;
}

static void ck_fini(void *state)
{
	cookie_step_fini(&((struct ck_state *)state)->st);
}

const struct cookie_step *sim_cookie_table(const void *state)
{
	return &((const struct ck_state *)state)->st;
}

int sim_cookie_find_bad(enum sim_cookie_proto proto, unsigned int seats, unsigned int max_len,
			enum cookie_bad what, uint8_t *out, size_t *n)
{
	struct cookie_step *st;
	int ret;

	*n = 0;
	if ((unsigned int)proto >= SIM_COOKIE_NPROTOS || max_len < 1 || max_len > 24)
		return -EINVAL;
	st = malloc(sizeof(*st));
	if (!st)
		return -ENOMEM;
	ret = cookie_step_init(st, &protos[proto], seats, max_len + 2);
	if (!ret)
		ret = cookie_step_search(st, max_len, what, out, n);
	cookie_step_fini(st);
	free(st);
	return ret;
}

const struct sim_model_ops sim_cookie_model = {
	.name = "cookie",
	.title = "cookie table replay: diners' plate operations in a chosen order",
	.step_unit = "plate operation",
	.time_unit = "step",
	.state_size = sizeof(struct ck_state),
	.scenario_size = sizeof(struct sim_cookie_scenario),
	.counters = ck_counters,
	.ncounters = SIM_COOKIE_NCOUNTERS,
	.events = ck_events,
	.nevents = COOKIE_OP_COUNT,
	.presets = ck_presets,
	.npresets = sizeof(ck_presets) / sizeof(ck_presets[0]),
	.check = ck_check,
	.init = ck_init,
	.run = ck_run,
	.fini = ck_fini,
};
