/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim: the contract between a simulator ("model") and the lab that drives it.
 *
 * A model is a pure function of its inputs: a scenario (a plain struct of
 * the model's own), a 64-bit seed and a number of steps go in; counters,
 * latency histograms and, when asked for, events come out. Same inputs,
 * same outputs, on every machine. A model never does I/O, never reads a
 * clock, keeps no mutable global or static data, never calls rand(), and
 * allocates only in init() (sized from the scenario), never while it runs.
 * Its only randomness is struct sim_rng (sim_rng.h) seeded from the seed.
 * doc/sim.md explains the rules and how to add a model.
 *
 * The pieces:
 *
 *   struct sim_model_ops   what a model provides: its tables (counters,
 *                          event types, histograms, named scenarios) and
 *                          check/init/run/hist/fini.
 *   struct sim             one running instance: the state, its counters,
 *                          the steps done. Labs use this, never the ops'
 *                          functions directly.
 *   struct sim_counters    a fixed array of named u64 (sums and maxima) the
 *                          model adds to; names are results-document
 *                          summary keys ending in their unit, so a lab can
 *                          turn them into extra.scenarios figures without
 *                          knowing the model (sim_counters_to_json()).
 *   struct sim_events      a preallocated ring of events for the live view
 *                          and for tests. When full, a push OVERWRITES THE
 *                          OLDEST event and counts it as lost: a live view
 *                          wants the latest events, and every event carries
 *                          a sequence number, so a reader sees the gap.
 *   sim_run_chunked()      runs a model in chunks of steps and calls the
 *                          lab back between chunks (progress, stop flag,
 *                          snapshots for a UI), since the model itself has
 *                          no clock and cannot be interrupted.
 *
 * Speed: run() is called once per chunk, not per step. Passing events ==
 * NULL selects the model's counters-only path, whose loop touches no event
 * and calls through no function pointer per step; that is what lets the
 * FCSE model reach its 150 million accesses per second. Events cost a
 * store of 40 bytes each and are meant for views and tests.
 *
 * Threads: nothing here locks. A struct sim and the ring it fills belong
 * to one thread (the lab's worker); the lab copies what a UI should see in
 * its poll callback, between chunks, where the model is at rest.
 */
#ifndef RTLAB_SIM_SIM_H
#define RTLAB_SIM_SIM_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rt_hist;

/* Most counters a model may declare. */
#define SIM_MAX_COUNTERS 64u
/* Most latency histograms a model may declare. */
#define SIM_MAX_HISTS 8u
/* Most event types a model may declare. */
#define SIM_MAX_EVENT_TYPES 64u
/* Largest event ring: 1 Mi events, 40 MiB. */
#define SIM_EVENTS_MAX (1u << 20)
/* "As many steps as the model has": run until it reaches its end. */
#define SIM_STEPS_ALL UINT64_MAX

/* ---- Counters ------------------------------------------------------------ */

enum sim_counter_kind {
	SIM_COUNTER_SUM,	/* starts at 0, only grows: merged by adding */
	SIM_COUNTER_MAX,	/* starts at 0, the largest value seen: merged by max */
};

struct sim_counter_desc {
	const char *name;	/* a summary key: [a-z][a-z0-9_]*, ends in its unit ("misses_count") */
	enum sim_counter_kind kind;
	const char *help;	/* one line for people */
};

struct sim_counters {
	const struct sim_counter_desc *desc;	/* borrowed: the model's table */
	unsigned int n;				/* entries of desc and v in use */
	uint64_t v[SIM_MAX_COUNTERS];		/* indexed like desc */
};

/* sim_counter_max - raise counter @i of @c to @value if that is larger */
static inline void sim_counter_max(struct sim_counters *c, unsigned int i, uint64_t value)
{
	if (value > c->v[i])
		c->v[i] = value;
}

/**
 * sim_counters_init - zeroed counters for a model
 * @c: the caller's storage
 * @desc: the model's counter table (borrowed; must outlive @c)
 * @n: its length, at most SIM_MAX_COUNTERS (more are cut off)
 */
void sim_counters_init(struct sim_counters *c, const struct sim_counter_desc *desc,
		       unsigned int n);

/**
 * sim_counters_get - the value of counter @name
 * @out: set on success
 *
 * Returns 0 or -ENOENT.
 */
int sim_counters_get(const struct sim_counters *c, const char *name, uint64_t *out);

/**
 * sim_counters_merge - add @src to @dst as one longer run would have
 *
 * Sums are added, maxima take the larger value: merging the counters of
 * several seeds gives the totals and the worst case over all of them.
 * Returns 0, or -EINVAL when the two belong to different tables.
 */
int sim_counters_merge(struct sim_counters *dst, const struct sim_counters *src);

/* sim_counters_equal - same table and same values */
bool sim_counters_equal(const struct sim_counters *a, const struct sim_counters *b);

/**
 * sim_counters_to_json - set every counter in @obj, by name, as an integer
 * @obj: a JSON object, e.g. one element of extra.scenarios (borrowed)
 *
 * Values above 2^53 are stored as integers too (jansson keeps 64 bits).
 * Returns 0, -EINVAL (@obj not an object) or -ENOMEM.
 */
int sim_counters_to_json(const struct sim_counters *c, json_t *obj);

/* ---- Events ---------------------------------------------------------------- */

struct sim_event {
	uint64_t seq;	/* pushes before this one since init/clear: a gap means lost events */
	uint64_t time;	/* simulated time, in the model's time_unit */
	uint32_t type;	/* index into the model's event table */
	uint32_t who;	/* the task, node, process or diner; the table says which */
	uint64_t a;	/* two arguments, named in the table */
	uint64_t b;
};

struct sim_event_desc {
	const char *name;	/* "release" */
	const char *who;	/* what @who numbers ("task"), or NULL when unused */
	const char *a;		/* name of @a with its unit ("delay_ns"), or NULL when unused */
	const char *b;		/* likewise for @b */
};

struct sim_events {
	struct sim_event *buf;	/* owned: cap entries */
	size_t cap;
	size_t head;		/* index of the oldest event kept */
	size_t count;		/* events kept, at most cap */
	uint64_t pushed;	/* events pushed since init or clear */
	uint64_t lost;		/* of those, overwritten before anyone popped them */
};

/**
 * sim_events_init - allocate a ring of @capacity events
 * @ev: the caller's storage
 * @capacity: 1 .. SIM_EVENTS_MAX
 *
 * The ring never grows: when it is full, a push overwrites the oldest event
 * and counts it in @ev->lost. Returns 0, -EINVAL or -ENOMEM. Release the
 * storage with sim_events_fini().
 */
int sim_events_init(struct sim_events *ev, size_t capacity);

/* sim_events_fini - free the ring's storage; a zeroed or finished @ev is fine */
void sim_events_fini(struct sim_events *ev);

/* sim_events_clear - drop every event and reset pushed and lost; keeps the storage */
void sim_events_clear(struct sim_events *ev);

/**
 * sim_events_push - record one event (for models, inside run())
 *
 * O(1), no allocation. A full ring loses its oldest event.
 */
static inline void sim_events_push(struct sim_events *ev, uint64_t time, uint32_t type,
				   uint32_t who, uint64_t a, uint64_t b)
{
	struct sim_event *e;
	size_t i;

	if (ev->count == ev->cap) {
		ev->head = ev->head + 1 == ev->cap ? 0 : ev->head + 1;
		ev->count--;
		ev->lost++;
	}
	i = ev->head + ev->count;
	if (i >= ev->cap)
		i -= ev->cap;
	e = &ev->buf[i];
	e->seq = ev->pushed++;
	e->time = time;
	e->type = type;
	e->who = who;
	e->a = a;
	e->b = b;
	ev->count++;
}

/**
 * sim_events_pop - take the oldest event kept
 * @out: filled when there is one
 *
 * Returns true when an event was taken, false when the ring is empty.
 */
bool sim_events_pop(struct sim_events *ev, struct sim_event *out);

/**
 * sim_events_peek - the @i-th oldest event kept, without taking it
 *
 * Returns a pointer into the ring, valid until the next push, pop or clear,
 * or NULL when @i >= the number kept.
 */
const struct sim_event *sim_events_peek(const struct sim_events *ev, size_t i);

/* ---- Models ---------------------------------------------------------------- */

/* A named scenario: what --scenario NAME and extra.scenarios[].name refer to. */
struct sim_preset {
	const char *name;	/* [a-z0-9-], 1..32 characters, unique in the model */
	const char *summary;	/* one line for menus and --help */
	const void *scenario;	/* the model's scenario struct (borrowed, static) */
};

/**
 * struct sim_model_ops - what a model provides
 *
 * Every table and function is required, except @events/@nevents (a model
 * may have no events), @hists/@nhists/@hist (no histograms) and
 * @presets/@npresets. sim_model_check() checks the tables.
 *
 * @check: validate a scenario; on refusal return -EINVAL (or -ERANGE) with
 *	the reason in @cause. Pure and cheap: labs call it while parsing
 *	options, and init() may assume it passed.
 * @init: set up @state (state_size zeroed bytes, aligned as by malloc()) for a
 *	checked @scenario and @seed. The scenario struct is borrowed for the
 *	call only, so copy it; what it points to (a trace in memory, a
 *	learner's policy function) may stay borrowed: the lab keeps that
 *	alive and unchanged until sim_free(). This is the only place that may
 *	allocate. On failure, release what it took and return a negative
 *	errno (with @cause); fini() is then not called.
 * @run: advance by at most @steps steps, add to @c (the counters of this
 *	model's table, which persist across calls) and, when @ev is not
 *	NULL, push events. Returns the steps done: fewer than @steps only
 *	when the model reached its end (its scenario's horizon), after which
 *	it returns 0. Running a then b steps must give exactly the same state,
 *	counters and events as running a + b steps at once, and the counters
 *	must not depend on whether @ev is NULL. No allocation, no I/O.
 * @hist: latency histogram @i (< nhists) of @state, for reading between runs.
 * @fini: release what init() took; the state's bytes are freed by the caller.
 */
struct sim_model_ops {
	const char *name;		/* [a-z0-9-], e.g. "fcse": a lab's model id */
	const char *title;		/* one line for people */
	const char *step_unit;		/* what one step is: "job", "access", "frame" */
	const char *time_unit;		/* unit of sim_event.time: "ns", "cycles" */
	size_t state_size;		/* bytes of the model's state struct */
	size_t scenario_size;		/* bytes of the model's scenario struct */
	const struct sim_counter_desc *counters;
	unsigned int ncounters;		/* 1 .. SIM_MAX_COUNTERS */
	const struct sim_event_desc *events;
	unsigned int nevents;		/* 0 .. SIM_MAX_EVENT_TYPES */
	const char *const *hists;	/* names of the histograms, like histogram names in results */
	unsigned int nhists;		/* 0 .. SIM_MAX_HISTS */
	const struct sim_preset *presets;
	unsigned int npresets;
	int (*check)(const void *scenario, char **cause);
	int (*init)(void *state, const void *scenario, uint64_t seed, char **cause);
	uint64_t (*run)(void *state, uint64_t steps, struct sim_counters *c,
			struct sim_events *ev);
	const struct rt_hist *(*hist)(const void *state, unsigned int i);
	void (*fini)(void *state);
};

/**
 * sim_model_check - check a model's tables
 *
 * Names and units well formed and unique, sizes within the limits, the
 * required functions present, and every preset accepted by check().
 * Returns 0 or -EINVAL with @cause. The unit test runs it on every model
 * a lab names.
 */
int sim_model_check(const struct sim_model_ops *m, char **cause);

/* sim_preset_find - the preset named @name, or NULL */
const struct sim_preset *sim_preset_find(const struct sim_model_ops *m, const char *name);

/**
 * sim_event_format - describe @e in one line, e.g. "t=2000000 release task=0 job=2"
 *
 * Arguments the model's table leaves unnamed are left out. Returns the
 * length snprintf() would give, or -EINVAL for an unknown event type.
 */
int sim_event_format(const struct sim_model_ops *m, const struct sim_event *e, char *buf,
		     size_t size);

/*
 * There is no table of models here: a lab names the model it runs
 * (lab_ops.model), and the unit test and the benchmark find every model
 * through the labs (lab_model_next() in labs/lab.h).
 */

/* ---- Running a model ------------------------------------------------------ */

struct sim;

/**
 * sim_new - check a scenario and set up a model instance
 * @m: the model
 * @scenario: its scenario struct (borrowed for the call)
 * @seed: the seed; record it in the results document
 * @out: the instance on success; release it with sim_free()
 * @cause: on failure, why (for a refused scenario, the model's reason)
 *
 * Returns 0, -EINVAL (a scenario the model refuses), -ENOMEM, or what the
 * model's init() returned.
 */
int sim_new(const struct sim_model_ops *m, const void *scenario, uint64_t seed,
	    struct sim **out, char **cause);

/* sim_free - fini() the model and free everything; NULL does nothing */
void sim_free(struct sim *s);

/**
 * sim_run - run up to @steps steps in one call of the model
 * @ev: where events go, or NULL for the counters-only fast path
 *
 * Returns the steps done; fewer than @steps when the model reached its end
 * (sim_done() is then true and later calls return 0).
 */
uint64_t sim_run(struct sim *s, uint64_t steps, struct sim_events *ev);

/**
 * sim_run_chunked - run @steps steps in chunks, calling @poll between them
 * @steps: steps to run, or SIM_STEPS_ALL to run until the model's end
 * @chunk: steps per call of the model (0: 1 << 20). A few milliseconds of
 *	work per chunk keeps a stop key responsive; since chunked and whole
 *	runs give the same results, the size changes nothing else
 * @ev: where events go, or NULL
 * @poll: called after every chunk, the last one included, with @priv and
 *	@s (read counters, histograms and the state; drain @ev; publish
 *	progress); it returns 0 to go on, anything else to stop. May be NULL.
 *
 * Returns 0 when the steps are done or the model has ended, or the nonzero
 * value of @poll that stopped it. The steps done are in sim_steps().
 * A model with no end and @steps == SIM_STEPS_ALL runs until @poll stops it.
 */
int sim_run_chunked(struct sim *s, uint64_t steps, uint64_t chunk, struct sim_events *ev,
		    int (*poll)(void *priv, struct sim *s), void *priv);

const struct sim_model_ops *sim_model(const struct sim *s);
uint64_t sim_seed(const struct sim *s);
/* sim_steps - steps done since sim_new() */
uint64_t sim_steps(const struct sim *s);
/* sim_done - the model has reached its end */
bool sim_done(const struct sim *s);
/* sim_counters - the counters so far (borrowed; copy the struct to keep a snapshot) */
const struct sim_counters *sim_counters(const struct sim *s);
/* sim_hist - latency histogram @i so far, or NULL when @i >= nhists */
const struct rt_hist *sim_hist(const struct sim *s, unsigned int i);
/*
 * sim_state - the model's state, for its own const accessors (a UI's cache
 * map, a table of slots), between runs only.
 */
const void *sim_state(const struct sim *s);

#endif /* RTLAB_SIM_SIM_H */
