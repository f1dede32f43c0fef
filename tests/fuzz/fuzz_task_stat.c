/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for rt_task_stat_parse(): any bytes, never read past them;
 * an accepted line's priority is within 0..99. And for
 * rt_task_schedstat_parse() on the same bytes as a string.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_task.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size ? size : 1);	/* exactly size bytes: ASan sees an overread */
	struct rt_task_sched s;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	unsigned long long exec_ns, wait_ns;
	char *str = malloc(size + 1);

	if (!rt_task_stat_parse(copy, size, &s) && s.rt_priority > 99)
		abort();
	free(copy);
	if (!str)
		return 0;
	memcpy(str, data, size);
	str[size] = '\0';
	rt_task_schedstat_parse(str, &exec_ns, &wait_ns);
	free(str);
	return 0;
}
