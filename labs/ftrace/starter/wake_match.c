/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wake_match.c: wake-ups from scheduler events. Your second part of the
 * ftrace lab's exercise (labs/ftrace/README.md, "Exercise").
 *
 * ftrace_exercise.h says what wm_match() must find. The lab's event mode
 * measures the same thing on a live system: from sched_waking to the
 * sched_switch that gives the task a CPU.
 */
#include "ftrace_exercise.h"

#include <errno.h>
#include <string.h>

int wm_match(const struct wm_event *ev, size_t n, int pid, struct wm_wakeup *out, size_t max,
	     struct wm_counts *counts)
{
	if (!counts || pid <= 0 || (!ev && n) || (!out && max))
		return -EINVAL;
	memset(counts, 0, sizeof(*counts));
	/*
	 * TODO: walk the events in order and remember, for @pid, whether a
	 * wake-up has started and when; a switch to @pid ends it.
	 */
	return -ENOSYS;
}
