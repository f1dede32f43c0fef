/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_fcse_work: the parser of rtlab-fcse-work's output (labs/lab_fcse_live.c) on arbitrary
 * bytes, as the FCSE lab's --live reads it from the guest's console. What it accepts must
 * be consistent: processes within the bound, a part ending in ok with both readings.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "labs/lab_fcse_live.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fcse_work_out w;
	char *text, *cause = NULL;

	if (size > 1 << 16)
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (fcse_work_parse(text, &w, &cause) == 0) {
		if (w.nprocs > FCSE_WORK_PROCS_MAX || (w.nprocs && !w.procs) ||
		    (w.ring_ok && (!w.before.have || !w.after.have)))
			abort();
		for (unsigned int i = 0; i < w.nprocs; i++)
			if (strlen(w.procs[i].kind) >= sizeof(w.procs[i].kind))
				abort();
	}
	fcse_work_out_fini(&w);
	free(cause);
	free(text);
	return 0;
}
