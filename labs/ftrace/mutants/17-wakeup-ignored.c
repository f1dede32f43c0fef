/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mutant: only sched_waking starts a wake-up: a trace with sched_wakeup only has none */
/* replaces: wake_match.c */
/* caught-by: wake-both-events */
/*
 * wake_match.c: wake-ups from scheduler events, the reference solution
 * (teachers only). ftrace_exercise.h says what wm_match() must find; the
 * ftrace lab's handout compares it with the probe's view.
 */
#include "ftrace_exercise.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

int wm_match(const struct wm_event *ev, size_t n, int pid, struct wm_wakeup *out, size_t max,
	     struct wm_counts *counts)
{
	unsigned long long wake_ns = 0;
	bool started = false;

	if (!counts || pid <= 0 || (!ev && n) || (!out && max))
		return -EINVAL;
	memset(counts, 0, sizeof(*counts));
	for (size_t i = 0; i < n; i++) {
		const struct wm_event *e = &ev[i];

		switch (e->kind) {
		case WM_WAKING:
			/* The first one starts the wake-up; later ones are the same. */
			if (e->pid == pid && !started) {
				started = true;
				wake_ns = e->ts_ns;
			}
			break;
		case WM_SWITCH:
			/* Leaving the CPU: a waking before this found it running. */
			if (e->prev_pid == pid)
				started = false;
			if (e->pid != pid)
				break;
			if (!started) {
				counts->unmatched_switches++;	/* preempted, not asleep */
				break;
			}
			if (counts->matched < max) {
				out[counts->matched].wake_ns = wake_ns;
				out[counts->matched].run_ns = e->ts_ns;
				out[counts->matched].latency_ns =
					(long long)(e->ts_ns - wake_ns);
			}
			counts->matched++;
			started = false;
			break;
		}
	}
	counts->pending = started;
	return 0;
}
