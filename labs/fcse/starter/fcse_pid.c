/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fcse_pid.c: your FCSE translation and guaranteed-mode PID allocator
 * (labs/fcse/README.md, "The exercise").
 *
 * fcse_pid.h says what each function must do. `rtlab lab start fcse`
 * copies this file alone to your work folder: the header stays with the
 * lab's checks, in labs/fcse/checks/ of rtlab's sources, or
 * PREFIX/share/rtlab/labs/fcse/checks/ once installed (PREFIX is
 * /usr/local by default); the grader compiles your file with that copy
 * and ignores one of your own. Replace the bodies marked TODO, then
 * run `rtlab grade fcse` (or `rtlab grade fcse --work DIR`): each check
 * that fails says what it expected and gives a hint.
 */
#include <errno.h>
#include <string.h>

#include "fcse_pid.h"

uint32_t fcse_mva(uint32_t va, unsigned int pid)
{
	/* TODO: relocate a VA below 32 MB into PID's slot; leave the others alone. */
	(void)pid;
	return va;
}

void fcse_pids_init(struct fcse_pids *p, uint32_t task_size)
{
	memset(p, 0, sizeof(*p));
	/* TODO: how many PIDs does a user space of task_size bytes have? */
	(void)task_size;
}

int fcse_pid_alloc(struct fcse_pids *p)
{
	/* TODO: the lowest free PID from 1 up, PID 0 last, -EAGAIN when none is left. */
	(void)p;
	return -ENOSYS;
}

void fcse_pid_free(struct fcse_pids *p, unsigned int pid)
{
	/* TODO: the PID can be handed out again. */
	(void)p;
	(void)pid;
}
