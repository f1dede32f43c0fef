/*
 * Fuzz target for the latency lab's option parsers: the input is split at
 * newlines into an argv (after the lab name) for latency_params_parse(),
 * and every piece is also fed to the duration and CPU-list parsers; parsed
 * options go through the --cpus check against a CPU set taken from the
 * input. Any success must give values inside the documented ranges.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "labs/lab_latency.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *argv[MAX_ARGS + 2], *p;
	struct latency_params params;
	unsigned int cpus[16], ncpus, ms;
	char *cause = NULL;
	int argc = 0;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[argc++] = "latency";
	for (p = buf; argc <= MAX_ARGS; ) {
		char *nl = strchr(p, '\n');

		argv[argc++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	argv[argc] = NULL;

	for (int i = 1; i < argc; i++) {
		if (latency_parse_duration(argv[i], &ms) == 0 &&
		    (ms == 0 || ms > LATENCY_MAX_DURATION_MS))
			abort();
		if (latency_parse_cpus(argv[i], cpus, 16, &ncpus) == 0) {
			if (ncpus == 0 || ncpus > 16)
				abort();
			for (unsigned int k = 0; k < ncpus; k++)
				if (cpus[k] >= LATENCY_MAX_CPUS)
					abort();
		}
	}
	if (latency_params_parse(argc, argv, &params, &cause) == 0) {
		cpu_set_t usable;
		char *why = NULL;

		/* The usable CPUs from the input's first bytes: the check is pure too. */
		CPU_ZERO(&usable);
		for (size_t k = 0; k < size && k < 8; k++)
			for (unsigned int b = 0; b < 8; b++)
				if (data[k] & (1u << b))
					CPU_SET(k * 8 + b, &usable);
		if (latency_params_check_cpus(&params, &usable, &why) != 0 && !why)
			abort();
		free(why);
		if (params.nplans == 0 || params.nplans > LATENCY_MAX_SCENARIOS ||
		    params.threads == 0 || params.threads > LATENCY_MAX_THREADS ||
		    params.duration_ms == 0 || params.hist_max_us == 0 ||
		    params.interval_us == 0 || params.ncpus > LATENCY_MAX_CPUS)
			abort();
		for (unsigned int i = 0; i < params.nplans; i++)
			if (params.plan[i].policy != 0 && (params.plan[i].priority < 1 ||
							   params.plan[i].priority > 99))
				abort();
	} else if (!cause) {
		abort();	/* every refusal says why */
	}
	free(cause);
	free(buf);
	return 0;
}
