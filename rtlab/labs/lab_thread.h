/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_thread: what the labs that run their own SCHED_FIFO threads on one
 * CPU share (the cookie lab's priority protocols, the task-set lab).
 */
#ifndef RTLAB_LABS_LAB_THREAD_H
#define RTLAB_LABS_LAB_THREAD_H

struct rt_journal;

/**
 * lab_thread_fifo - pin the calling thread to @cpu and raise it to SCHED_FIFO @prio
 * @journal: the run's undo journal, which puts the thread back if rtlab dies
 *           before the thread lowers itself; NULL: set directly
 *
 * Returns 0 or a negative errno.
 */
int lab_thread_fifo(struct rt_journal *journal, int cpu, int prio);

#endif
