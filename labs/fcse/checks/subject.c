/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * subject.c: the untrusted driver of the FCSE exercise. Linked with the
 * learner's fcse_pid.c, it reads requests on stdin, one a line, and
 * answers each on stdout with one line:
 *
 *   mva PID VA       the MVA, 8 hex digits (PID decimal, VA hex)
 *   init TASK_SIZE   "ok" (TASK_SIZE hex); until then 0xBF000000
 *   alloc            the PID, or the negative errno
 *   free PID         "ok"
 *
 * check_fcse.c judges what it printed; nothing here decides a verdict.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fcse_pid.h"

int main(void)
{
	struct fcse_pids pids;
	char line[128];

	fcse_pids_init(&pids, 0xBF000000u);
	while (fgets(line, sizeof(line), stdin)) {
		unsigned long a, b;

		if (sscanf(line, "mva %lu %lx", &a, &b) == 2)
			printf("%08x\n", fcse_mva((uint32_t)b, (unsigned int)a));
		else if (sscanf(line, "init %lx", &a) == 1)
			fcse_pids_init(&pids, (uint32_t)a), puts("ok");
		else if (!strncmp(line, "alloc", 5))
			printf("%d\n", fcse_pid_alloc(&pids));
		else if (sscanf(line, "free %lu", &a) == 1)
			fcse_pid_free(&pids, (unsigned int)a), puts("ok");
		else
			puts("?");
		fflush(stdout);
	}
	return 0;
}
