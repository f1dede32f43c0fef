/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for the guest's command line of the hypervisor lab's live
 * part (hypervisor_serve_parse()): an accepted run is within the documented bounds
 * and formats back to a line that parses the same.
 */
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "labs/lab_hypervisor_stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1);
	struct hypervisor_serve_cmd c, back;
	char out[HV_SERVE_LINE_MAX + 8];
	char *cause = NULL;

	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	if (!hypervisor_serve_parse(line, &c, &cause) && !c.quit) {
		if (c.priority < 0 || c.priority > 99 || c.period_us < 100 || c.duration_s < 1 ||
		    c.duration_s > 3600 || c.load > 3 ||
		    (c.policy != SCHED_OTHER && c.policy != SCHED_FIFO && c.policy != SCHED_RR))
			abort();
		if (hypervisor_serve_format(&c, out, sizeof(out)) < 0)
			abort();
		out[strcspn(out, "\n")] = '\0';
		if (hypervisor_serve_parse(out, &back, NULL) || memcmp(&c, &back, sizeof(c)))
			abort();
	}
	free(cause);
	free(line);
	return 0;
}
