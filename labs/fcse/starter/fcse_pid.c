/*
 * fcse_pid.c: your FCSE translation and guaranteed-mode PID allocator.
 * Read fcse_pid.h (in ../checks) for what each function must do, then
 * replace the bodies marked TODO. `rtlab grade fcse --work DIR` (once the
 * grader is there) or `make exercise-fcse` checks them.
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
