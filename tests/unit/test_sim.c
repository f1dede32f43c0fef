/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the simulator contract (rtlab/sim/): the generator's golden
 * values, counters, the event ring, the run driver, the checks on every
 * model a lab names (same results whatever the chunking and whether
 * events are collected) and the example model's golden counters by seed.
 *
 * The golden numbers of sim_rng were computed by an independent Python
 * implementation of splitmix64 and xoshiro256** (splitmix64(0)'s first
 * output, 0xe220a8397b1dcdaf, is the published one). The example model's
 * golden counters pin its behaviour: if a change to the model moves them,
 * the change is a change of results, and the new numbers must be explained
 * in the commit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_hist.h"
#include "labs/lab.h"
#include "sim/sim.h"
#include "sim/sim_example.h"
#include "sim/sim_rng.h"

/* ---- Helpers ---------------------------------------------------------------- */

static struct sim *new_sim(const struct sim_model_ops *m, const void *scenario, uint64_t seed)
{
	struct sim *s = NULL;
	char *cause = NULL;
	int ret = sim_new(m, scenario, seed, &s, &cause);

	if (ret)
		fail_msg("sim_new(%s): %d %s", m->name, ret, cause ? cause : "");
	assert_null(cause);
	return s;
}

/* Same histogram contents: summary and every bucket. */
static void assert_hist_equal(const struct rt_hist *a, const struct rt_hist *b)
{
	struct rt_hist_summary x, y;

	rt_hist_summarize(a, &x);
	rt_hist_summarize(b, &y);
	assert_int_equal(x.count, y.count);
	assert_int_equal(x.overflow, y.overflow);
	assert_int_equal(x.min_ns, y.min_ns);
	assert_int_equal(x.max_ns, y.max_ns);
	assert_int_equal(rt_hist_nbuckets(a), rt_hist_nbuckets(b));
	for (unsigned int i = 0; i < rt_hist_nbuckets(a); i++)
		assert_int_equal(rt_hist_bucket(a, i), rt_hist_bucket(b, i));
}

static void assert_sims_equal(const struct sim *a, const struct sim *b)
{
	const struct sim_counters *ca = sim_counters(a), *cb = sim_counters(b);

	assert_int_equal(sim_steps(a), sim_steps(b));
	assert_int_equal(sim_done(a), sim_done(b));
	for (unsigned int i = 0; i < ca->n; i++)
		if (ca->v[i] != cb->v[i])
			fail_msg("%s: counter %s: %llu vs %llu", sim_model(a)->name,
				 ca->desc[i].name, (unsigned long long)ca->v[i],
				 (unsigned long long)cb->v[i]);
	assert_true(sim_counters_equal(ca, cb));
	for (unsigned int i = 0; i < sim_model(a)->nhists; i++)
		assert_hist_equal(sim_hist(a, i), sim_hist(b, i));
}

/* ---- sim_rng ------------------------------------------------------------------- */

static void test_rng_golden(void **state)
{
	static const struct {
		uint64_t seed;
		uint64_t out[4];
	} gold[] = {
		{ 0, { 0x99ec5f36cb75f2b4, 0xbf6e1f784956452a, 0x1a5f849d4933e6e0,
		       0x6aa594f1262d2d2c } },
		{ 42, { 0x15780b2e0c2ec716, 0x6104d9866d113a7e, 0xae17533239e499a1,
			0xecb8ad4703b360a1 } },
		{ UINT64_MAX, { 0x8f5520d52a7ead08, 0xc476a018caa1802d, 0x81de31c0d260469e,
				0xbf658d7e065f3c2f } },
	};
	struct sim_rng r;
	uint64_t x = 0;

	(void)state;
	assert_int_equal(sim_splitmix64(&x), 0xe220a8397b1dcdaf);
	assert_int_equal(sim_splitmix64(&x), 0x6e789e6aa1b965f4);
	for (size_t i = 0; i < sizeof(gold) / sizeof(gold[0]); i++) {
		sim_rng_seed(&r, gold[i].seed);
		for (int k = 0; k < 4; k++)
			assert_int_equal(sim_rng_next(&r), gold[i].out[k]);
	}

	sim_rng_seed_stream(&r, 42, 0);
	assert_int_equal(sim_rng_next(&r), 0xd4e6e14508e4b399);
	assert_int_equal(sim_rng_next(&r), 0x3ffff6804807028c);
	sim_rng_seed_stream(&r, 42, 1);
	assert_int_equal(sim_rng_next(&r), 0x71f7f53104acb579);
	assert_int_equal(sim_rng_next(&r), 0xc8707b7b48b60a60);

	/* Lemire's method, also with a bound that rejects about half the draws. */
	sim_rng_seed(&r, 7);
	{
		static const uint64_t below10[] = { 7, 2, 8, 9, 9, 8 };

		for (int k = 0; k < 6; k++)
			assert_int_equal(sim_rng_below(&r, 10), below10[k]);
	}
	sim_rng_seed(&r, 7);
	assert_int_equal(sim_rng_below(&r, (1ull << 63) + 1), 6461677535414237997ull);
	assert_int_equal(sim_rng_below(&r, (1ull << 63) + 1), 7744196453246319819ull);
	assert_int_equal(sim_rng_below(&r, (1ull << 63) + 1), 9049029322324588832ull);
}

static void test_rng_ranges(void **state)
{
	struct sim_rng r, copy;
	unsigned int seen[5] = { 0 };
	double sum = 0;

	(void)state;
	sim_rng_seed(&r, 1);
	for (int i = 0; i < 10000; i++) {
		uint64_t v = sim_rng_range(&r, 10, 14);
		double u = sim_rng_unit(&r);

		assert_true(v >= 10 && v <= 14);
		seen[v - 10]++;
		assert_true(u >= 0.0 && u < 1.0);
		sum += u;
		assert_true(sim_rng_below(&r, 3) < 3);
		assert_false(sim_rng_chance(&r, 0));
		assert_true(sim_rng_chance(&r, 1000000));
	}
	for (int i = 0; i < 5; i++)	/* about 2000 each */
		assert_true(seen[i] > 1700 && seen[i] < 2300);
	assert_true(sum / 10000 > 0.47 && sum / 10000 < 0.53);

	/* Degenerate bounds draw nothing. */
	copy = r;
	assert_int_equal(sim_rng_below(&r, 0), 0);
	assert_int_equal(sim_rng_range(&r, 5, 5), 5);
	assert_int_equal(sim_rng_range(&r, 9, 3), 9);
	assert_memory_equal(&r, &copy, sizeof(r));
	/* The full range is one draw. */
	(void)sim_rng_range(&r, 0, UINT64_MAX);
	(void)sim_rng_next(&copy);
	assert_memory_equal(&r, &copy, sizeof(r));
}

static void test_rng_streams_differ(void **state)
{
	struct sim_rng a, b, c;

	(void)state;
	sim_rng_seed_stream(&a, 5, 0);
	sim_rng_seed_stream(&b, 5, 1);
	sim_rng_seed(&c, 5);
	assert_memory_not_equal(&a, &b, sizeof(a));
	assert_memory_not_equal(&a, &c, sizeof(a));
	sim_rng_seed_stream(&c, 5, 1);
	assert_memory_equal(&b, &c, sizeof(b));
}

/* ---- Counters ------------------------------------------------------------------ */

static const struct sim_counter_desc test_desc[] = {
	{ "things_count", SIM_COUNTER_SUM, "things" },
	{ "worst_ns", SIM_COUNTER_MAX, "worst" },
};

static void test_counters(void **state)
{
	struct sim_counters a, b, other;
	uint64_t v = 99;
	json_t *obj;

	(void)state;
	sim_counters_init(&a, test_desc, 2);
	sim_counters_init(&b, test_desc, 2);
	assert_int_equal(a.n, 2);
	assert_true(sim_counters_equal(&a, &b));
	a.v[0] = 3;
	sim_counter_max(&a, 1, 50);
	sim_counter_max(&a, 1, 20);
	assert_int_equal(a.v[1], 50);
	b.v[0] = 4;
	b.v[1] = 40;
	assert_false(sim_counters_equal(&a, &b));
	assert_int_equal(sim_counters_merge(&a, &b), 0);
	assert_int_equal(a.v[0], 7);	/* sums add */
	assert_int_equal(a.v[1], 50);	/* maxima take the larger */
	assert_int_equal(sim_counters_get(&a, "worst_ns", &v), 0);
	assert_int_equal(v, 50);
	assert_int_equal(sim_counters_get(&a, "nope_count", &v), -ENOENT);

	sim_counters_init(&other, test_desc, 1);
	assert_int_equal(sim_counters_merge(&a, &other), -EINVAL);
	assert_false(sim_counters_equal(&a, &other));
	sim_counters_init(&other, test_desc, 1000);
	assert_int_equal(other.n, SIM_MAX_COUNTERS);

	obj = json_object();
	assert_int_equal(sim_counters_to_json(&a, obj), 0);
	assert_int_equal(json_integer_value(json_object_get(obj, "things_count")), 7);
	assert_int_equal(json_integer_value(json_object_get(obj, "worst_ns")), 50);
	assert_int_equal(json_object_size(obj), 2);
	json_decref(obj);
	obj = json_array();
	assert_int_equal(sim_counters_to_json(&a, obj), -EINVAL);
	json_decref(obj);
}

/* ---- Event ring ---------------------------------------------------------------- */

static void test_events_ring(void **state)
{
	struct sim_events ev;
	struct sim_event e;

	(void)state;
	assert_int_equal(sim_events_init(&ev, 0), -EINVAL);
	assert_int_equal(sim_events_init(&ev, SIM_EVENTS_MAX + 1), -EINVAL);
	sim_events_fini(&ev);	/* a refused init leaves nothing to free */

	assert_int_equal(sim_events_init(&ev, 4), 0);
	assert_false(sim_events_pop(&ev, &e));
	assert_null(sim_events_peek(&ev, 0));
	for (uint64_t i = 0; i < 10; i++)
		sim_events_push(&ev, 100 + i, 1, 2, i, i * i);
	/* Overwrite-oldest: the last 4 are kept, the first 6 lost. */
	assert_int_equal(ev.count, 4);
	assert_int_equal(ev.pushed, 10);
	assert_int_equal(ev.lost, 6);
	assert_int_equal(sim_events_peek(&ev, 0)->seq, 6);
	assert_int_equal(sim_events_peek(&ev, 3)->seq, 9);
	assert_null(sim_events_peek(&ev, 4));
	for (uint64_t i = 6; i < 10; i++) {
		assert_true(sim_events_pop(&ev, &e));
		assert_int_equal(e.seq, i);
		assert_int_equal(e.time, 100 + i);
		assert_int_equal(e.type, 1);
		assert_int_equal(e.who, 2);
		assert_int_equal(e.a, i);
		assert_int_equal(e.b, i * i);
	}
	assert_false(sim_events_pop(&ev, &e));

	/* Popped events make room: nothing more is lost until the ring is full. */
	for (uint64_t i = 0; i < 4; i++)
		sim_events_push(&ev, i, 0, 0, 0, 0);
	assert_int_equal(ev.lost, 6);
	sim_events_push(&ev, 4, 0, 0, 0, 0);
	assert_int_equal(ev.lost, 7);
	assert_int_equal(sim_events_peek(&ev, 0)->seq, 11);

	sim_events_clear(&ev);
	assert_int_equal(ev.count, 0);
	assert_int_equal(ev.pushed, 0);
	assert_int_equal(ev.lost, 0);
	sim_events_push(&ev, 1, 0, 0, 0, 0);
	assert_int_equal(sim_events_peek(&ev, 0)->seq, 0);
	sim_events_fini(&ev);
	assert_null(ev.buf);
}

static void test_event_format(void **state)
{
	struct sim_event e = { .time = 2000000, .type = SIM_EXAMPLE_EV_START, .who = 0,
			       .a = 2, .b = 1500 };
	char buf[128], small[8];

	(void)state;
	assert_int_equal(sim_event_format(&sim_example_model, &e, buf, sizeof(buf)),
			 (int)strlen("t=2000000 start task=0 job=2 delay_ns=1500"));
	assert_string_equal(buf, "t=2000000 start task=0 job=2 delay_ns=1500");
	e.type = SIM_EXAMPLE_EV_SECTION;
	e.a = 7000;
	sim_event_format(&sim_example_model, &e, buf, sizeof(buf));
	assert_string_equal(buf, "t=2000000 section length_ns=7000");
	/* Truncated like snprintf: the full length is returned. */
	assert_int_equal(sim_event_format(&sim_example_model, &e, small, sizeof(small)),
			 (int)strlen("t=2000000 section length_ns=7000"));
	assert_string_equal(small, "t=20000");
	e.type = SIM_EXAMPLE_NEVENTS;
	assert_int_equal(sim_event_format(&sim_example_model, &e, buf, sizeof(buf)), -EINVAL);
}

/* ---- Model tables -------------------------------------------------------------- */

static void test_models_tables(void **state)
{
	const struct sim_model_ops *m;
	size_t n = 0, i = 0;

	(void)state;
	while ((m = lab_model_next(&i))) {
		char *cause = NULL;

		n++;
		if (sim_model_check(m, &cause))
			fail_msg("%s", cause);
		assert_ptr_equal(lab_model_find(m->name), m);
		for (unsigned int p = 0; p < m->npresets; p++)
			assert_ptr_equal(sim_preset_find(m, m->presets[p].name), &m->presets[p]);
	}
	assert_true(n >= 1);
	assert_null(lab_model_find("no-such-model"));
	assert_null(sim_preset_find(&sim_example_model, "no-such-preset"));
}

static void expect_model_refused(const struct sim_model_ops *m, const char *what)
{
	char *cause = NULL;

	assert_int_equal(sim_model_check(m, &cause), -EINVAL);
	assert_non_null(cause);
	if (!strstr(cause, what))
		fail_msg("cause \"%s\" does not mention \"%s\"", cause, what);
	free(cause);
}

static void test_models_check_refuses(void **state)
{
	static const struct sim_counter_desc no_unit[] = {
		{ "misses", SIM_COUNTER_SUM, "no unit" },
	};
	static const struct sim_counter_desc twice[] = {
		{ "a_count", SIM_COUNTER_SUM, "a" },
		{ "a_count", SIM_COUNTER_MAX, "a again" },
	};
	static const struct sim_event_desc bad_event[] = {
		{ "Release", NULL, NULL, NULL },
	};
	static const struct sim_example_scenario refused = { .period_ns = 1 };
	static const struct sim_preset bad_preset[] = {
		{ "broken", "refused by check", &refused },
	};
	struct sim_model_ops m;

	(void)state;
	m = sim_example_model;
	m.counters = no_unit;
	m.ncounters = 1;
	expect_model_refused(&m, "misses");
	m.counters = twice;
	m.ncounters = 2;
	expect_model_refused(&m, "a_count twice");
	m = sim_example_model;
	m.ncounters = 0;
	expect_model_refused(&m, "counters");
	m = sim_example_model;
	m.run = NULL;
	expect_model_refused(&m, "required");
	m = sim_example_model;
	m.events = bad_event;
	m.nevents = 1;
	expect_model_refused(&m, "event type 0");
	m = sim_example_model;
	m.nhists = SIM_MAX_HISTS + 1;
	expect_model_refused(&m, "histograms");
	m = sim_example_model;
	m.presets = bad_preset;
	m.npresets = 1;
	expect_model_refused(&m, "preset broken is refused: period_ns");
	m = sim_example_model;
	m.name = "Bad Name";
	expect_model_refused(&m, "name");
}

/* ---- The contract, on every model and preset --------------------------------------- */

/* Steps a contract test runs at most per preset, to keep the test short. */
#define CONTRACT_STEPS 50000u

/*
 * Counters-only in one call; with events, in uneven chunks, through a ring
 * small enough to overwrite; through sim_run_chunked(): all three must end
 * in the same place.
 */
static void test_contract_all_models(void **state)
{
	const struct sim_model_ops *m;
	size_t i = 0;

	(void)state;
	while ((m = lab_model_next(&i))) {
		for (unsigned int p = 0; p < m->npresets; p++) {
			const void *sc = m->presets[p].scenario;
			struct sim *fast = new_sim(m, sc, 3), *evs = new_sim(m, sc, 3);
			struct sim *chunked = new_sim(m, sc, 3), *other = new_sim(m, sc, 4);
			struct sim_events ev;
			struct sim_rng r;
			uint64_t n, left;

			assert_int_equal(sim_events_init(&ev, 64), 0);
			n = sim_run(fast, CONTRACT_STEPS, NULL);
			assert_true(n > 0 && n <= CONTRACT_STEPS);
			assert_int_equal(sim_steps(fast), n);

			sim_rng_seed(&r, p);
			for (left = n; left > 0; ) {
				uint64_t k = sim_rng_range(&r, 1, 5000);

				k = k < left ? k : left;
				assert_int_equal(sim_run(evs, k, &ev), k);
				left -= k;
			}
			if (m->nevents)
				assert_true(ev.pushed > 0);
			assert_int_equal(ev.pushed, ev.count + ev.lost);
			/* Reaching the end is part of the state: ask for one more. */
			if (sim_done(fast))
				assert_int_equal(sim_run(evs, 1, &ev), 0);
			assert_sims_equal(fast, evs);

			assert_int_equal(sim_run_chunked(chunked, n, 777, NULL, NULL, NULL), 0);
			if (sim_done(fast))
				assert_int_equal(sim_run(chunked, 1, NULL), 0);
			assert_sims_equal(fast, chunked);

			/* Another seed, another run (these presets are random enough). */
			sim_run(other, n, NULL);
			assert_false(sim_counters_equal(sim_counters(fast), sim_counters(other)));
			assert_int_equal(sim_seed(other), 4);

			sim_events_fini(&ev);
			sim_free(fast);
			sim_free(evs);
			sim_free(chunked);
			sim_free(other);
		}
	}
}

/* ---- Driver ----------------------------------------------------------------------- */

struct poll_log {
	unsigned int calls;
	unsigned int stop_at;	/* stop on this call (1-based); 0 never */
	uint64_t steps_seen[16];
};

static int poll_cb(void *priv, struct sim *s)
{
	struct poll_log *log = priv;

	if (log->calls < 16)
		log->steps_seen[log->calls] = sim_steps(s);
	log->calls++;
	return log->calls == log->stop_at ? 42 : 0;
}

static void test_run_chunked(void **state)
{
	struct sim_example_scenario sc = *(const struct sim_example_scenario *)
		sim_preset_find(&sim_example_model, "busy")->scenario;
	struct poll_log log = { 0 };
	struct sim *s;

	(void)state;
	/* Steps not a multiple of the chunk: the last chunk is short. */
	s = new_sim(&sim_example_model, &sc, 1);
	assert_int_equal(sim_run_chunked(s, 2500, 1000, NULL, poll_cb, &log), 0);
	assert_int_equal(log.calls, 3);
	assert_int_equal(log.steps_seen[0], 1000);
	assert_int_equal(log.steps_seen[1], 2000);
	assert_int_equal(log.steps_seen[2], 2500);
	assert_false(sim_done(s));
	sim_free(s);

	/* The poll's nonzero answer stops the run and is returned. */
	memset(&log, 0, sizeof(log));
	log.stop_at = 3;
	s = new_sim(&sim_example_model, &sc, 1);
	assert_int_equal(sim_run_chunked(s, SIM_STEPS_ALL, 100, NULL, poll_cb, &log), 42);
	assert_int_equal(log.calls, 3);
	assert_int_equal(sim_steps(s), 300);
	sim_free(s);

	/* SIM_STEPS_ALL runs to the model's end, whatever the chunk. */
	sc.jobs = 1234;
	memset(&log, 0, sizeof(log));
	s = new_sim(&sim_example_model, &sc, 1);
	assert_int_equal(sim_run_chunked(s, SIM_STEPS_ALL, 500, NULL, poll_cb, &log), 0);
	assert_int_equal(sim_steps(s), 1234);
	assert_true(sim_done(s));
	assert_int_equal(log.calls, 3);
	assert_int_equal(log.steps_seen[2], 1234);
	/* Chunk 0 is the default; an ended model runs no more. */
	assert_int_equal(sim_run_chunked(s, 10, 0, NULL, poll_cb, &log), 0);
	assert_int_equal(log.calls, 3);
	assert_int_equal(sim_run(s, 10, NULL), 0);
	sim_free(s);
	sim_free(NULL);
}

static void test_model_end(void **state)
{
	struct sim_example_scenario sc = *(const struct sim_example_scenario *)
		sim_preset_find(&sim_example_model, "quiet")->scenario;
	uint64_t v;
	struct sim *s;

	(void)state;
	sc.jobs = 10;
	s = new_sim(&sim_example_model, &sc, 9);
	assert_int_equal(sim_run(s, 4, NULL), 4);
	assert_false(sim_done(s));
	assert_int_equal(sim_run(s, 100, NULL), 6);
	assert_true(sim_done(s));
	assert_int_equal(sim_run(s, 100, NULL), 0);
	assert_int_equal(sim_steps(s), 10);
	assert_int_equal(sim_counters_get(sim_counters(s), "releases_count", &v), 0);
	assert_int_equal(v, 10);
	sim_free(s);
}

/* ---- The example model ------------------------------------------------------------- */

/* Golden counters of each preset, run to its end (100,000 jobs) with seed 1. */
static const struct {
	const char *preset;
	uint64_t v[SIM_EXAMPLE_NCOUNTERS];
} example_gold[] = {
	{ "quiet", { 100000, 0, 205, 205, 14923, 1340455, 19866, 119866 } },
	{ "busy", { 100000, 2443, 22745, 22745, 117543, 2263949887, 298941, 498941 } },
	{ "overloaded", { 100000, 31861, 80345, 48484, 53682, 21663421126, 796758, 1496758 } },
};

static void test_example_golden(void **state)
{
	unsigned int n;
	const struct sim_preset *presets = sim_example_presets(&n);

	(void)state;
	assert_int_equal(n, 3);
	assert_ptr_equal(presets, sim_example_model.presets);
	for (size_t i = 0; i < sizeof(example_gold) / sizeof(example_gold[0]); i++) {
		const struct sim_preset *p = sim_preset_find(&sim_example_model,
							     example_gold[i].preset);
		struct sim *s, *again;
		const struct sim_counters *c;
		struct rt_hist_summary hs;

		assert_non_null(p);
		s = new_sim(&sim_example_model, p->scenario, 1);
		assert_int_equal(sim_run_chunked(s, SIM_STEPS_ALL, 0, NULL, NULL, NULL), 0);
		assert_true(sim_done(s));
		c = sim_counters(s);
		for (unsigned int k = 0; k < SIM_EXAMPLE_NCOUNTERS; k++)
			if (c->v[k] != example_gold[i].v[k])
				fail_msg("%s seed 1: %s is %llu, golden %llu", p->name,
					 c->desc[k].name, (unsigned long long)c->v[k],
					 (unsigned long long)example_gold[i].v[k]);
		/* The histograms saw every job; their maxima are the counters'. */
		rt_hist_summarize(sim_hist(s, SIM_EXAMPLE_HIST_DELAY), &hs);
		assert_int_equal(hs.count, c->v[SIM_EXAMPLE_RELEASES]);
		assert_int_equal(hs.max_ns, c->v[SIM_EXAMPLE_DELAY_MAX]);
		rt_hist_summarize(sim_hist(s, SIM_EXAMPLE_HIST_RESPONSE), &hs);
		assert_int_equal(hs.count, c->v[SIM_EXAMPLE_RELEASES]);
		assert_int_equal(hs.max_ns, c->v[SIM_EXAMPLE_RESPONSE_MAX]);
		assert_null(sim_hist(s, SIM_EXAMPLE_NHISTS));

		/* Same seed, same everything. */
		again = new_sim(&sim_example_model, p->scenario, 1);
		sim_run(again, SIM_STEPS_ALL, NULL);
		assert_sims_equal(s, again);
		sim_free(again);
		sim_free(s);
	}
}

/* The story the presets tell, for any seed: quiet < busy < overloaded in misses. */
static void test_example_presets_order(void **state)
{
	(void)state;
	for (uint64_t seed = 10; seed < 13; seed++) {
		uint64_t misses[3];

		for (unsigned int p = 0; p < 3; p++) {
			struct sim *s = new_sim(&sim_example_model,
						sim_example_model.presets[p].scenario, seed);

			sim_run(s, 20000, NULL);
			misses[p] = sim_counters(s)->v[SIM_EXAMPLE_MISSES];
			sim_free(s);
		}
		assert_int_equal(misses[0], 0);
		assert_true(misses[1] > 0 && misses[1] < misses[2]);
	}
}

/* Every event agrees with the counters and with the other events of its job. */
static void test_example_events(void **state)
{
	const struct sim_example_scenario *sc = sim_preset_find(&sim_example_model,
								"overloaded")->scenario;
	struct sim *s = new_sim(&sim_example_model, sc, 5);
	uint64_t release = 0, start = 0, jobs = 0, misses = 0, sections = 0;
	struct sim_events ev;
	struct sim_event e;

	(void)state;
	assert_int_equal(sim_events_init(&ev, 100000), 0);
	assert_int_equal(sim_run(s, 5000, &ev), 5000);
	assert_int_equal(ev.lost, 0);
	while (sim_events_pop(&ev, &e)) {
		switch (e.type) {
		case SIM_EXAMPLE_EV_RELEASE:
			assert_int_equal(e.a, jobs);
			assert_int_equal(e.time, jobs * sc->period_ns);
			release = e.time;
			break;
		case SIM_EXAMPLE_EV_START:
			assert_int_equal(e.a, jobs);
			assert_int_equal(e.time - release, e.b);
			start = e.time;
			break;
		case SIM_EXAMPLE_EV_FINISH:
			assert_int_equal(e.a, jobs);
			assert_int_equal(e.time, start + sc->exec_ns);
			assert_int_equal(e.time - release, e.b);
			jobs++;
			break;
		case SIM_EXAMPLE_EV_MISS:
			assert_int_equal(e.a, jobs - 1);
			assert_int_equal(e.time - release, e.b + sc->deadline_ns);
			misses++;
			break;
		case SIM_EXAMPLE_EV_SECTION:
			assert_true(e.a >= sc->section_min_ns && e.a <= sc->section_max_ns);
			sections++;
			break;
		default:
			fail_msg("unknown event type %u", e.type);
		}
	}
	assert_int_equal(jobs, 5000);
	assert_int_equal(misses, sim_counters(s)->v[SIM_EXAMPLE_MISSES]);
	assert_int_equal(sections, sim_counters(s)->v[SIM_EXAMPLE_SECTIONS]);
	assert_true(misses > 0);
	sim_events_fini(&ev);
	sim_free(s);
}

/* A scenario with one field changed from "busy": the field by its place and size. */
struct bad_case {
	const char *field;
	size_t off, size;
	uint64_t value;
	int err;
	const char *cause;
};

#define FIELD(f) #f, offsetof(struct sim_example_scenario, f), \
	sizeof(((struct sim_example_scenario *)0)->f)

static void set_field(struct sim_example_scenario *sc, const struct bad_case *bad)
{
	uint32_t v32 = (uint32_t)bad->value;

	memcpy((char *)sc + bad->off, bad->size == sizeof(v32) ? (void *)&v32 :
	       (void *)&bad->value, bad->size);
}

static void test_example_invalid(void **state)
{
	static const struct bad_case bad[] = {
		{ FIELD(period_ns), 999, -EINVAL, "period_ns 999 is outside" },
		{ FIELD(period_ns), 1000000001, -EINVAL, "period_ns 1000000001 is outside" },
		{ FIELD(deadline_ns), 0, -EINVAL, "deadline_ns 0" },
		{ FIELD(deadline_ns), 1000001, -EINVAL, "deadline_ns 1000001" },
		{ FIELD(exec_ns), 0, -EINVAL, "exec_ns 0" },
		{ FIELD(exec_ns), 2000000, -EINVAL, "exec_ns 2000000" },
		{ FIELD(section_min_ns), 0, -EINVAL, "section_min_ns <= section_max_ns" },
		{ FIELD(section_min_ns), 300001, -EINVAL, "section_min_ns <= section_max_ns" },
		{ FIELD(section_max_ns), 1000001, -EINVAL, "section_max_ns <= period_ns" },
		{ FIELD(gap_min_ns), 0, -EINVAL, "gap_min_ns <= gap_max_ns" },
		{ FIELD(gap_max_ns), 10000000001ull, -EINVAL, "gap_max_ns <= 10000000000" },
		{ FIELD(jobs), (1ull << 62) / 1000000 + 1, -ERANGE, "past 2^62 ns" },
		{ FIELD(hist_bound_us), 0, -EINVAL, "hist_bound_us 0" },
		{ FIELD(hist_bound_us), SIM_EXAMPLE_HIST_MAX_US + 1, -EINVAL, "hist_bound_us 100001" },
	};
	const struct sim_example_scenario *busy = sim_preset_find(&sim_example_model,
								  "busy")->scenario;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sim_example_scenario sc = *busy;
		struct sim *s = (struct sim *)&sc;	/* must be reset to NULL */
		char *cause = NULL;

		set_field(&sc, &bad[i]);
		assert_int_equal(sim_example_model.check(&sc, NULL), bad[i].err);
		assert_int_equal(sim_new(&sim_example_model, &sc, 1, &s, &cause), bad[i].err);
		assert_null(s);
		assert_non_null(cause);
		if (!strstr(cause, bad[i].cause))
			fail_msg("%s=%llu: cause \"%s\" lacks \"%s\"", bad[i].field,
				 (unsigned long long)bad[i].value, cause, bad[i].cause);
		free(cause);
	}

	/* Too many sections per period: the work of one step is bounded. */
	{
		struct sim_example_scenario sc = *busy;
		char *cause = NULL;

		sc.section_min_ns = 1;
		sc.gap_min_ns = 1;
		assert_int_equal(sim_example_model.check(&sc, &cause), -ERANGE);
		assert_non_null(strstr(cause, "sections could fit in one period"));
		free(cause);
		sc.section_min_ns = 500;
		sc.gap_min_ns = 500;	/* 1000 per period: allowed */
		assert_int_equal(sim_example_model.check(&sc, NULL), 0);
	}
	/* The limits themselves are accepted. */
	{
		struct sim_example_scenario sc = *busy;

		sc.jobs = (1ull << 62) / sc.period_ns;
		sc.hist_bound_us = SIM_EXAMPLE_HIST_MAX_US;
		sc.deadline_ns = sc.period_ns;
		sc.exec_ns = sc.period_ns;
		assert_int_equal(sim_example_model.check(&sc, NULL), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rng_golden),
		cmocka_unit_test(test_rng_ranges),
		cmocka_unit_test(test_rng_streams_differ),
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_events_ring),
		cmocka_unit_test(test_event_format),
		cmocka_unit_test(test_models_tables),
		cmocka_unit_test(test_models_check_refuses),
		cmocka_unit_test(test_contract_all_models),
		cmocka_unit_test(test_run_chunked),
		cmocka_unit_test(test_model_end),
		cmocka_unit_test(test_example_golden),
		cmocka_unit_test(test_example_presets_order),
		cmocka_unit_test(test_example_events),
		cmocka_unit_test(test_example_invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
