/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_example: a periodic task delayed by non-preemptible sections (see
 * sim_example.h for what it models). Read it as a template: its parts are
 * the parts every model has, in the same order:
 *
 *   1. the tables: counters, event types, histograms, presets;
 *   2. check(): every rule on the scenario, each refusal with its reason;
 *   3. init()/fini(): copy the scenario, seed the generator, allocate
 *      everything the run will need (here two histograms);
 *   4. run(): one loop, written once as an always-inline function with a
 *      compile-time "with events" flag, so the compiler emits a
 *      counters-only copy in which no event code is left;
 *   5. the ops struct.
 *
 * Determinism across chunks: everything a step needs lives in the state,
 * and a step is never split, so run(a) then run(b) equals run(a + b).
 */
#include "sim_example.h"

#include <errno.h>
#include <stdbool.h>

#include "core/rt_err.h"
#include "core/rt_hist.h"
#include "sim_rng.h"

/* ---- Tables ---------------------------------------------------------------- */

static const struct sim_counter_desc ex_counters[SIM_EXAMPLE_NCOUNTERS] = {
	[SIM_EXAMPLE_RELEASES] = { "releases_count", SIM_COUNTER_SUM, "jobs released" },
	[SIM_EXAMPLE_MISSES] = { "misses_count", SIM_COUNTER_SUM,
				 "jobs that finished after their deadline" },
	[SIM_EXAMPLE_DELAYED] = { "delayed_count", SIM_COUNTER_SUM,
				  "jobs that started after their release" },
	[SIM_EXAMPLE_BLOCKED] = { "blocked_count", SIM_COUNTER_SUM,
				  "jobs released while a non-preemptible section ran" },
	[SIM_EXAMPLE_SECTIONS] = { "sections_count", SIM_COUNTER_SUM,
				   "non-preemptible sections the background entered" },
	[SIM_EXAMPLE_DELAY_SUM] = { "delay_sum_ns", SIM_COUNTER_SUM,
				    "release delays added up (divide by releases for the mean)" },
	[SIM_EXAMPLE_DELAY_MAX] = { "delay_max_ns", SIM_COUNTER_MAX, "longest release delay" },
	[SIM_EXAMPLE_RESPONSE_MAX] = { "response_max_ns", SIM_COUNTER_MAX,
				       "longest response time (release to finish)" },
};

static const struct sim_event_desc ex_events[SIM_EXAMPLE_NEVENTS] = {
	[SIM_EXAMPLE_EV_RELEASE] = { "release", "task", "job", NULL },
	[SIM_EXAMPLE_EV_START] = { "start", "task", "job", "delay_ns" },
	[SIM_EXAMPLE_EV_FINISH] = { "finish", "task", "job", "response_ns" },
	[SIM_EXAMPLE_EV_MISS] = { "miss", "task", "job", "late_ns" },
	[SIM_EXAMPLE_EV_SECTION] = { "section", NULL, "length_ns", NULL },
};

static const char *const ex_hists[SIM_EXAMPLE_NHISTS] = {
	[SIM_EXAMPLE_HIST_DELAY] = "delay",
	[SIM_EXAMPLE_HIST_RESPONSE] = "response",
};

static const struct sim_example_scenario ex_quiet = {
	.period_ns = 1000000, .deadline_ns = 1000000, .exec_ns = 100000,
	.section_min_ns = 1000, .section_max_ns = 20000,
	.gap_min_ns = 2000000, .gap_max_ns = 10000000,
	.jobs = 100000, .hist_bound_us = 1000,
};

static const struct sim_example_scenario ex_busy = {
	.period_ns = 1000000, .deadline_ns = 400000, .exec_ns = 200000,
	.section_min_ns = 10000, .section_max_ns = 300000,
	.gap_min_ns = 50000, .gap_max_ns = 1000000,
	.jobs = 100000, .hist_bound_us = 1000,
};

static const struct sim_example_scenario ex_overloaded = {
	.period_ns = 1000000, .deadline_ns = 1000000, .exec_ns = 700000,
	.section_min_ns = 100000, .section_max_ns = 800000,
	.gap_min_ns = 20000, .gap_max_ns = 200000,
	.jobs = 100000, .hist_bound_us = 2000,
};

static const struct sim_preset ex_presets[] = {
	{ "quiet", "rare sections of at most 20 us: every deadline is met", &ex_quiet },
	{ "busy", "sections up to 300 us against a 400 us deadline: a few misses", &ex_busy },
	{ "overloaded", "a 700 us job and sections up to 800 us: many misses, backlog",
	  &ex_overloaded },
};

const struct sim_preset *sim_example_presets(unsigned int *n)
{
	*n = sizeof(ex_presets) / sizeof(ex_presets[0]);
	return ex_presets;
}

/* ---- Scenario check ------------------------------------------------------------ */

static int ex_check(const void *scenario, char **cause)
{
	const struct sim_example_scenario *sc = scenario;

	if (sc->period_ns < SIM_EXAMPLE_PERIOD_MIN_NS || sc->period_ns > SIM_EXAMPLE_PERIOD_MAX_NS)
		return rt_err(cause, -EINVAL, "period_ns %llu is outside %u .. %u",
			      (unsigned long long)sc->period_ns, SIM_EXAMPLE_PERIOD_MIN_NS,
			      SIM_EXAMPLE_PERIOD_MAX_NS);
	if (sc->deadline_ns < 1 || sc->deadline_ns > sc->period_ns)
		return rt_err(cause, -EINVAL, "deadline_ns %llu is outside 1 .. period_ns",
			      (unsigned long long)sc->deadline_ns);
	if (sc->exec_ns < 1 || sc->exec_ns > sc->period_ns)
		return rt_err(cause, -EINVAL, "exec_ns %llu is outside 1 .. period_ns",
			      (unsigned long long)sc->exec_ns);
	if (sc->section_min_ns < 1 || sc->section_min_ns > sc->section_max_ns ||
	    sc->section_max_ns > sc->period_ns)
		return rt_err(cause, -EINVAL,
			      "sections need 1 <= section_min_ns <= section_max_ns <= period_ns");
	if (sc->gap_min_ns < 1 || sc->gap_min_ns > sc->gap_max_ns ||
	    sc->gap_max_ns > SIM_EXAMPLE_GAP_MAX_NS)
		return rt_err(cause, -EINVAL, "gaps need 1 <= gap_min_ns <= gap_max_ns <= %llu",
			      (unsigned long long)SIM_EXAMPLE_GAP_MAX_NS);
	/* Both minima are at most 10 s, so the sum cannot overflow. */
	if (sc->period_ns / (sc->section_min_ns + sc->gap_min_ns) >
	    SIM_EXAMPLE_MAX_SECTIONS_PER_PERIOD)
		return rt_err(cause, -ERANGE,
			      "more than %u sections could fit in one period: raise section_min_ns or gap_min_ns",
			      SIM_EXAMPLE_MAX_SECTIONS_PER_PERIOD);
	if (sc->jobs > SIM_EXAMPLE_END_NS / sc->period_ns)
		return rt_err(cause, -ERANGE, "jobs %llu would run past 2^62 ns",
			      (unsigned long long)sc->jobs);
	if (sc->hist_bound_us < 1 || sc->hist_bound_us > SIM_EXAMPLE_HIST_MAX_US)
		return rt_err(cause, -EINVAL, "hist_bound_us %u is outside 1 .. %u",
			      sc->hist_bound_us, SIM_EXAMPLE_HIST_MAX_US);
	return 0;
}

/* ---- State ------------------------------------------------------------------ */

struct ex_state {
	struct sim_example_scenario sc;	/* a copy: the scenario is borrowed */
	uint64_t end_job;		/* the model ends after this many jobs */
	struct sim_rng rng;
	uint64_t job;			/* the next job to release */
	uint64_t cpu_free;		/* the previous job's finish: the background runs from then */
	bool in_section;		/* the background's segment is a non-preemptible section */
	uint64_t seg_left;		/* CPU time left in that segment */
	struct rt_hist *hist[SIM_EXAMPLE_NHISTS];	/* owned */
};

static void ex_fini(void *state)
{
	struct ex_state *st = state;

	for (unsigned int i = 0; i < SIM_EXAMPLE_NHISTS; i++) {
		rt_hist_free(st->hist[i]);
		st->hist[i] = NULL;
	}
}

static int ex_init(void *state, const void *scenario, uint64_t seed, char **cause)
{
	struct ex_state *st = state;

	st->sc = *(const struct sim_example_scenario *)scenario;
	st->end_job = st->sc.jobs ? st->sc.jobs : SIM_EXAMPLE_END_NS / st->sc.period_ns;
	sim_rng_seed(&st->rng, seed);
	for (unsigned int i = 0; i < SIM_EXAMPLE_NHISTS; i++) {
		st->hist[i] = rt_hist_new(st->sc.hist_bound_us, 0);
		if (!st->hist[i]) {
			ex_fini(st);
			return rt_err(cause, -ENOMEM, "no memory for a %u us histogram",
				      st->sc.hist_bound_us);
		}
	}
	/* The background begins with a gap, so job 0 starts at once. */
	st->in_section = false;
	st->seg_left = sim_rng_range(&st->rng, st->sc.gap_min_ns, st->sc.gap_max_ns);
	return 0;
}

static const struct rt_hist *ex_hist(const void *state, unsigned int i)
{
	const struct ex_state *st = state;

	return st->hist[i];
}

/* ---- Run ---------------------------------------------------------------------- */

/*
 * One loop for both paths. With with_ev a compile-time constant, the
 * compiler drops every "if (with_ev)" from the counters-only copy.
 * Counters are kept in locals and stored once at the end: the model's
 * state and the counters are both u64 arrays to the compiler, which would
 * otherwise reload them after every store.
 */
static inline __attribute__((always_inline)) uint64_t
ex_loop(struct ex_state *st, uint64_t steps, struct sim_counters *c, struct sim_events *ev,
	const bool with_ev)
{
	const uint64_t period = st->sc.period_ns, exec = st->sc.exec_ns;
	const uint64_t deadline = st->sc.deadline_ns;
	uint64_t releases = c->v[SIM_EXAMPLE_RELEASES], misses = c->v[SIM_EXAMPLE_MISSES];
	uint64_t delayed = c->v[SIM_EXAMPLE_DELAYED], blocked = c->v[SIM_EXAMPLE_BLOCKED];
	uint64_t sections = c->v[SIM_EXAMPLE_SECTIONS];
	uint64_t delay_sum = c->v[SIM_EXAMPLE_DELAY_SUM], delay_max = c->v[SIM_EXAMPLE_DELAY_MAX];
	uint64_t resp_max = c->v[SIM_EXAMPLE_RESPONSE_MAX];
	uint64_t job = st->job, cpu_free = st->cpu_free, seg_left = st->seg_left;
	bool in_section = st->in_section;
	uint64_t done = 0;

	for (; done < steps && job < st->end_job; done++, job++) {
		uint64_t release = job * period, start = release, finish, delay, response;

		if (cpu_free < release) {
			/* The background has the CPU from cpu_free to the release. */
			uint64_t idle = release - cpu_free, t = cpu_free;

			while (seg_left < idle) {
				idle -= seg_left;
				t += seg_left;
				in_section = !in_section;
				if (in_section) {
					seg_left = sim_rng_range(&st->rng, st->sc.section_min_ns,
								 st->sc.section_max_ns);
					sections++;
					if (with_ev)
						sim_events_push(ev, t, SIM_EXAMPLE_EV_SECTION, 0,
								seg_left, 0);
				} else {
					seg_left = sim_rng_range(&st->rng, st->sc.gap_min_ns,
								 st->sc.gap_max_ns);
				}
			}
			seg_left -= idle;
			if (in_section && seg_left > 0) {
				/* Not preemptible: the task waits for the section's end. */
				start = release + seg_left;
				blocked++;
				in_section = false;
				seg_left = sim_rng_range(&st->rng, st->sc.gap_min_ns,
							 st->sc.gap_max_ns);
			}
		} else {
			start = cpu_free;	/* backlog: the previous job is still running */
		}

		finish = start + exec;
		delay = start - release;
		response = finish - release;
		cpu_free = finish;
		releases++;
		delayed += delay > 0;
		delay_sum += delay;
		if (delay > delay_max)
			delay_max = delay;
		if (response > resp_max)
			resp_max = response;
		rt_hist_add(st->hist[SIM_EXAMPLE_HIST_DELAY],
			    &(struct rt_sample){ .seq = job, .latency_ns = (int64_t)delay });
		rt_hist_add(st->hist[SIM_EXAMPLE_HIST_RESPONSE],
			    &(struct rt_sample){ .seq = job, .latency_ns = (int64_t)response });
		if (with_ev) {
			sim_events_push(ev, release, SIM_EXAMPLE_EV_RELEASE, 0, job, 0);
			sim_events_push(ev, start, SIM_EXAMPLE_EV_START, 0, job, delay);
			sim_events_push(ev, finish, SIM_EXAMPLE_EV_FINISH, 0, job, response);
		}
		if (response > deadline) {
			misses++;
			if (with_ev)
				sim_events_push(ev, finish, SIM_EXAMPLE_EV_MISS, 0, job,
						response - deadline);
		}
	}

	st->job = job;
	st->cpu_free = cpu_free;
	st->seg_left = seg_left;
	st->in_section = in_section;
	c->v[SIM_EXAMPLE_RELEASES] = releases;
	c->v[SIM_EXAMPLE_MISSES] = misses;
	c->v[SIM_EXAMPLE_DELAYED] = delayed;
	c->v[SIM_EXAMPLE_BLOCKED] = blocked;
	c->v[SIM_EXAMPLE_SECTIONS] = sections;
	c->v[SIM_EXAMPLE_DELAY_SUM] = delay_sum;
	c->v[SIM_EXAMPLE_DELAY_MAX] = delay_max;
	c->v[SIM_EXAMPLE_RESPONSE_MAX] = resp_max;
	return done;
}

static uint64_t ex_run(void *state, uint64_t steps, struct sim_counters *c,
		       struct sim_events *ev)
{
	if (ev)
		return ex_loop(state, steps, c, ev, true);
	return ex_loop(state, steps, c, NULL, false);
}

/* ---- The model ---------------------------------------------------------------- */

const struct sim_model_ops sim_example_model = {
	.name = "example",
	.title = "Periodic task delayed by non-preemptible sections",
	.step_unit = "job",
	.time_unit = "ns",
	.state_size = sizeof(struct ex_state),
	.scenario_size = sizeof(struct sim_example_scenario),
	.counters = ex_counters,
	.ncounters = SIM_EXAMPLE_NCOUNTERS,
	.events = ex_events,
	.nevents = SIM_EXAMPLE_NEVENTS,
	.hists = ex_hists,
	.nhists = SIM_EXAMPLE_NHISTS,
	.presets = ex_presets,
	.npresets = sizeof(ex_presets) / sizeof(ex_presets[0]),
	.check = ex_check,
	.init = ex_init,
	.run = ex_run,
	.hist = ex_hist,
	.fini = ex_fini,
};
