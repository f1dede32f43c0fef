/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_trace_latency: trace_latency_parse() on arbitrary bytes. Whatever it
 * accepts must be internally consistent: every entry has a comm, a known
 * delay mark and text; stack ranges lie inside the stack array; problems
 * are bounded and named. Anything else is a bug, so it aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_latency.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace_latency *t = NULL;
	char *cause = NULL;
	int ret;

	ret = trace_latency_parse((const char *)data, size, "fuzz", &t, &cause);
	if (ret) {
		if (t || !cause || strncmp(cause, "fuzz:", 5) != 0)
			abort();
		free(cause);
		return 0;
	}
	if (!t || t->nproblems > TRACE_LAT_MAX_PROBLEMS || t->nproblems > t->nproblems_total)
		abort();
	for (size_t i = 0; i < t->nentries; i++) {
		const struct trace_lat_entry *e = &t->entries[i];

		if (!e->comm || !e->text || e->pid < 0 || e->cpu < 0)
			abort();
		if (trace_lat_mark_min_us(e->mark) == UINT64_MAX)
			abort();
		if ((e->kind == TRACE_LAT_FUNC) != (e->function && e->caller))
			abort();
		if (e->stack_first + e->stack_count > t->nstack)
			abort();
		if (strlen(e->flags.raw) >= sizeof(e->flags.raw))
			abort();
		(void)trace_lat_ctx_name(e->flags.ctx);
	}
	for (size_t i = 0; i < t->nstack; i++)
		if (!t->stack[i])
			abort();
	for (size_t i = 0; i < t->nproblems; i++)
		if (strncmp(t->problems[i].what, "fuzz:", 5) != 0)
			abort();
	trace_latency_free(t);
	free(cause);
	return 0;
}
