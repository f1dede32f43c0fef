/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_example: the smallest useful model, written to show the simulator
 * contract (sim.h) to whoever writes the next one.
 *
 * One CPU runs a periodic real-time task at the highest priority and, in
 * the background, a low-priority activity that alternates between
 * preemptible stretches ("gaps") and non-preemptible sections of random
 * length, as a driver holding a spinlock with interrupts off would. The
 * task is released every period; if a section is running at that moment,
 * the task can only start when the section ends: that is its release delay.
 * If the previous job is still running, the task starts after it (backlog).
 * A job whose response time (finish - release) exceeds its relative deadline
 * is a miss.
 *
 * One step is one job. The background only makes progress while the task is
 * idle, and the lengths of its gaps and sections are drawn from the seed, so
 * a scenario and a seed fix every number. All times are integer
 * nanoseconds; the model ends after the scenario's number of jobs.
 */
#ifndef RTLAB_SIM_SIM_EXAMPLE_H
#define RTLAB_SIM_SIM_EXAMPLE_H

#include <stdint.h>

#include "sim.h"

/* Limits that check() enforces; they keep every time below 2^63 ns. */
#define SIM_EXAMPLE_PERIOD_MIN_NS 1000u			/* 1 us */
#define SIM_EXAMPLE_PERIOD_MAX_NS 1000000000u		/* 1 s */
#define SIM_EXAMPLE_GAP_MAX_NS 10000000000ull		/* 10 s */
#define SIM_EXAMPLE_MAX_SECTIONS_PER_PERIOD 1024u	/* bounds the work of one step */
#define SIM_EXAMPLE_HIST_MAX_US 100000u			/* 100 ms of 1 us buckets, 800 KB */
#define SIM_EXAMPLE_END_NS (1ull << 62)			/* last release at most this late */

struct sim_example_scenario {
	uint64_t period_ns;	/* release every period, from 0 */
	uint64_t deadline_ns;	/* relative deadline, 1 .. period */
	uint64_t exec_ns;	/* execution time of every job, 1 .. period */
	uint64_t section_min_ns;	/* non-preemptible section length, uniform in */
	uint64_t section_max_ns;	/*   [min, max], 1 <= min <= max <= period */
	uint64_t gap_min_ns;	/* background time between sections, uniform in */
	uint64_t gap_max_ns;	/*   [min, max], 1 <= min <= max <= 10 s */
	uint64_t jobs;		/* jobs to simulate (steps until the end); 0: until 2^62 ns */
	uint32_t hist_bound_us;	/* 1 us buckets of the histograms, 1 .. SIM_EXAMPLE_HIST_MAX_US */
};

/* Counters, in this order (indexes into sim_counters.v). */
enum sim_example_counter {
	SIM_EXAMPLE_RELEASES,	/* releases_count */
	SIM_EXAMPLE_MISSES,	/* misses_count */
	SIM_EXAMPLE_DELAYED,	/* delayed_count: started after their release */
	SIM_EXAMPLE_BLOCKED,	/* blocked_count: of those, by a section */
	SIM_EXAMPLE_SECTIONS,	/* sections_count: sections the background entered */
	SIM_EXAMPLE_DELAY_SUM,	/* delay_sum_ns */
	SIM_EXAMPLE_DELAY_MAX,	/* delay_max_ns */
	SIM_EXAMPLE_RESPONSE_MAX,	/* response_max_ns */
	SIM_EXAMPLE_NCOUNTERS
};

/* Event types (sim_event.type); who is always 0, the one task. */
enum sim_example_event {
	SIM_EXAMPLE_EV_RELEASE,	/* a = job */
	SIM_EXAMPLE_EV_START,	/* a = job, b = delay_ns */
	SIM_EXAMPLE_EV_FINISH,	/* a = job, b = response_ns */
	SIM_EXAMPLE_EV_MISS,	/* a = job, b = late_ns (response - deadline) */
	SIM_EXAMPLE_EV_SECTION,	/* a background section begins; a = length_ns */
	SIM_EXAMPLE_NEVENTS
};

/* Histograms (sim_hist()): release delay and response time. */
enum sim_example_hist {
	SIM_EXAMPLE_HIST_DELAY,
	SIM_EXAMPLE_HIST_RESPONSE,
	SIM_EXAMPLE_NHISTS
};

/*
 * The model. Its presets: "quiet" (rare short sections, no misses),
 * "busy" (frequent sections up to 300 us against a 400 us deadline: a few
 * misses) and "overloaded" (a long job and long sections: many misses).
 */
extern const struct sim_model_ops sim_example_model;

/**
 * sim_example_presets - the named scenarios
 * @n: set to their number
 *
 * The same table as sim_example_model.presets, typed: presets[i].scenario
 * points to a struct sim_example_scenario.
 */
const struct sim_preset *sim_example_presets(unsigned int *n);

#endif /* RTLAB_SIM_SIM_EXAMPLE_H */
