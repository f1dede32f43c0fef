/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_stop: a grader stopped by SIGINT, SIGTERM or SIGHUP ends every
 * process it started before it goes.
 *
 * A grade is a tree of processes in several sessions: the check program
 * (a session of its own), the runner it calls, each sandboxed run (F, its
 * init and the subject, again a session of their own), and in class mode a
 * job process per (student, lab). Each process that starts one of these
 * registers the child's process group here while it runs, and the box's
 * uid when the run drops to one. On one of the three signals the handler
 * sends SIGTERM to every registered group (a job or a runner passes the
 * stop on to what it started), waits a little, sends SIGKILL, kills what
 * is left under each box uid, and ends the process by the same signal.
 *
 * Everything the handler does is async-signal-safe: a fixed table, kill(),
 * fork() and setresuid(), nanosleep(), waitpid(), raise().
 */
#ifndef RTLAB_GRADE_GRADE_STOP_H
#define RTLAB_GRADE_GRADE_STOP_H

#include <stdbool.h>
#include <sys/types.h>

#define GRADE_STOP_MAX 64	/* groups registered at once in one process */

/* Install the handler for SIGINT, SIGTERM and SIGHUP (once per process). */
void grade_stop_install(void);

/* Forget what the parent registered: for a process just forked to be a job. */
void grade_stop_reset(void);

/*
 * grade_stop_kill_uid - as root, kill every process of box uid @uid until
 * none is left (at most 2 s): what a job killed from outside left running
 * in its boxes. Does nothing without root or for uid 0 or (uid_t)-1.
 */
void grade_stop_kill_uid(uid_t uid);

/**
 * grade_stop_add - end process group @pgid when this process is stopped
 * @uid: the box uid its runs use, killed wholesale (kill(-1) as that uid)
 *       when rtlab is root; (uid_t)-1 for none
 *
 * Returns a slot for grade_stop_del(), or -1 when the table is full (the
 * group is then not ended by a stop; the caller goes on).
 */
int grade_stop_add(pid_t pgid, uid_t uid);

/* grade_stop_del - the group of @slot has ended; -1 is ignored. */
void grade_stop_del(int slot);

/* True once a stop signal has arrived (for loops that should not start more work). */
bool grade_stop_requested(void);

#endif
