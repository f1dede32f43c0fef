/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_bench: simulated steps per second of every model a lab names and
 * each of its presets, on the counters-only path (events == NULL) and on
 * the events path (a 4096-event ring, cleared between chunks as a lab that
 * drains it would). `make bench-sim` runs it; `make bench` too.
 *
 * Each figure is the best of --reps measurements of --seconds of CPU time
 * each, since on a shared machine the best run is the one least disturbed
 * by others (caches, frequency). Only the model's run() calls are timed, in
 * chunks of 1 Mi steps; a model
 * that reaches its end is set up again (not timed) and continued. The
 * process is single-threaded, so this is the rate on one core.
 *
 * Usage: sim_bench [--seconds S] [--reps N] [--model NAME]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "labs/lab.h"
#include "sim/sim.h"

#define CHUNK (1u << 20)
#define RING 4096u

/*
 * The thread's CPU time, not the wall clock: on a loaded machine the wall
 * clock also counts the time other processes had the core.
 */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * Steps per second for one preset over about @seconds of model time.
 * *events_per_step is set from the events path. Returns a negative errno
 * on a failure to set up the model.
 */
static int measure(const struct sim_model_ops *m, const struct sim_preset *p, bool with_ev,
		   double seconds, double *rate, double *events_per_step)
{
	struct sim_events ev, *evp = NULL;
	struct sim *s = NULL;
	uint64_t steps = 0, pushed = 0, seed = 1;
	double busy = 0;
	char *cause = NULL;
	int ret;

	if (with_ev) {
		ret = sim_events_init(&ev, RING);
		if (ret)
			return ret;
		evp = &ev;
	}
	while (busy < seconds) {
		double t0;
		uint64_t n;

		if (!s) {
			ret = sim_new(m, p->scenario, seed++, &s, &cause);
			if (ret) {
				fprintf(stderr, "sim_bench: %s/%s: %s\n", m->name, p->name,
					cause ? cause : strerror(-ret));
				free(cause);
				goto out;
			}
		}
		t0 = now_s();
		n = sim_run(s, CHUNK, evp);
		busy += now_s() - t0;
		steps += n;
		if (evp) {
			pushed += ev.pushed;
			sim_events_clear(&ev);
		}
		if (sim_done(s)) {
			sim_free(s);
			s = NULL;
		}
	}
	*rate = busy > 0 ? (double)steps / busy : 0;
	if (with_ev)
		*events_per_step = steps ? (double)pushed / (double)steps : 0;
	ret = 0;
out:
	sim_free(s);
	if (with_ev)
		sim_events_fini(&ev);
	return ret;
}

static void usage(void)
{
	fprintf(stderr, "usage: sim_bench [--seconds S] [--reps N] [--model NAME]\n");
}

int main(int argc, char **argv)
{
	const struct sim_model_ops *m;
	const char *only = NULL;
	double seconds = 0.5;
	int reps = 3;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
			seconds = strtod(argv[++i], NULL);
		} else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			reps = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--model") && i + 1 < argc) {
			only = argv[++i];
		} else {
			usage();
			return 2;
		}
	}
	if (!(seconds > 0 && seconds <= 600) || reps < 1 || reps > 100) {
		usage();
		return 2;
	}
	if (only && !lab_model_find(only)) {
		fprintf(stderr, "sim_bench: no model %s\n", only);
		return 2;
	}

	printf("sim_bench: simulated steps per CPU second, best of %d x %.2f s, one core\n", reps,
	       seconds);
	printf("%-10s %-12s %-8s %16s %16s %8s %12s\n", "model", "preset", "step",
	       "counters-only", "with events", "ratio", "events/step");
	for (size_t i = 0; (m = lab_model_next(&i)) != NULL;) {
		if (only && strcmp(only, m->name))
			continue;
		for (unsigned int k = 0; k < m->npresets; k++) {
			const struct sim_preset *p = &m->presets[k];
			double fast = 0, slow = 0, per = 0;

			for (int r = 0; r < reps; r++) {
				double a, b;

				if (measure(m, p, false, seconds, &a, NULL) ||
				    measure(m, p, true, seconds, &b, &per))
					return 1;
				fast = a > fast ? a : fast;
				slow = b > slow ? b : slow;
			}
			printf("%-10s %-12s %-8s %14.1f M %14.1f M %7.2fx %12.2f\n", m->name,
			       p->name, m->step_unit, fast / 1e6, slow / 1e6,
			       slow > 0 ? fast / slow : 0, per);
		}
	}
	return 0;
}
