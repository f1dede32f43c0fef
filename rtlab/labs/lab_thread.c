/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_thread: a lab's measuring thread onto its CPU at SCHED_FIFO, through
 * the undo journal when the run has one (lab_thread.h).
 */
#include "lab_thread.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>

#include "core/rt_journal.h"

int lab_thread_fifo(struct rt_journal *journal, int cpu, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	cpu_set_t set;
	char *cause = NULL;
	int ret;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (journal) {
		ret = rt_journal_set_affinity(journal, 0, &set, &cause) ?:
		      rt_journal_set_sched(journal, 0, SCHED_FIFO, prio, &cause);
		free(cause);
		return ret;
	}
	ret = sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
	if (!ret && sched_setscheduler(0, SCHED_FIFO, &sp))
		ret = -errno;
	return ret;
}
