/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fcse_pid.h: the FCSE lab's exercise, what you implement in fcse_pid.c.
 * This header is the checks' own copy: yours is not used.
 *
 * 1. The FCSE translation. The FCSE PID register holds a PID from 0 to
 *    127 in bits 31:25. A virtual address (VA) below 32 MB is relocated
 *    into that PID's 32 MB slot: the modified virtual address (MVA) is
 *    VA + PID x 32 MB. Any other VA is its own MVA. PID 0 is the flat
 *    mapping.
 *
 * 2. The PID allocator of guaranteed mode. User space is task_size bytes
 *    (0xBF000000 with the usual 3G/1G split), so task_size / 32 MB PIDs
 *    exist (95; none, not even PID 0, below 32 MB). fork() asks for a
 *    PID: hand out the lowest free PID from 1 up, and PID 0 only when
 *    every other one is taken (in best-effort mode PID 0 is where large
 *    processes go, so it is kept for last). When none is free, fork()
 *    fails: return -EAGAIN. exit() frees the PID, which the next fork()
 *    may get again. A new fcse_pids_init() starts with every PID free.
 */
#ifndef FCSE_PID_H
#define FCSE_PID_H

#include <stdint.h>

#define FCSE_PID_SHIFT 25
#define FCSE_SLOTS 128

struct fcse_pids {
	unsigned int nr;		/* PIDs that exist: task_size / 32 MB */
	unsigned char used[FCSE_SLOTS];	/* used[pid] != 0: taken */
};

/* fcse_mva - the MVA of @va under FCSE PID @pid (0..127) */
uint32_t fcse_mva(uint32_t va, unsigned int pid);

/* fcse_pids_init - no PID taken; task_size / 32 MB of them (at most 128) */
void fcse_pids_init(struct fcse_pids *p, uint32_t task_size);

/* fcse_pid_alloc - a free PID (lowest from 1, then 0), or -EAGAIN */
int fcse_pid_alloc(struct fcse_pids *p);

/* fcse_pid_free - @pid is free again */
void fcse_pid_free(struct fcse_pids *p, unsigned int pid);

#endif
