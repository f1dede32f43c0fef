/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mutant: 95 PIDs whatever the task size: the limit given is ignored */
/* replaces: fcse_pid.c */
/* caught-by: task-size */
/*
 * fcse_pid.c: the reference solution of the FCSE lab's exercise (teachers
 * only; see ../checks/fcse_pid.h for the task). ../mutants/ holds copies
 * of it with one mistake each that the checks must catch
 * (scripts/grade-mutants).
 */
#include <errno.h>
#include <string.h>

#include "fcse_pid.h"

#define SLOT (UINT32_C(1) << FCSE_PID_SHIFT)

uint32_t fcse_mva(uint32_t va, unsigned int pid)
{
	/* Below 32 MB, bits 31:25 are zero: adding PID x 32 MB is an OR. */
	return va < SLOT ? va | (uint32_t)(pid & (FCSE_SLOTS - 1)) << FCSE_PID_SHIFT : va;
}

void fcse_pids_init(struct fcse_pids *p, uint32_t task_size)
{
	memset(p, 0, sizeof(*p));
	p->nr = 95;	/* 0xBF000000 / 32 MB */
	if (p->nr > FCSE_SLOTS)
		p->nr = FCSE_SLOTS;
}

int fcse_pid_alloc(struct fcse_pids *p)
{
	for (unsigned int pid = 1; pid < p->nr; pid++) {
		if (!p->used[pid]) {
			p->used[pid] = 1;
			return (int)pid;
		}
	}
	if (p->nr && !p->used[0]) {
		p->used[0] = 1;
		return 0;
	}
	return -EAGAIN;
}

void fcse_pid_free(struct fcse_pids *p, unsigned int pid)
{
	if (pid < FCSE_SLOTS)
		p->used[pid] = 0;
}
