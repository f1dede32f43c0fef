/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for the labs' options, read by their tables: the input's
 * first byte picks a ready lab of lab_table[], the rest is split at
 * newlines into its argv for lab_args_parse() (the table through
 * lab_opts_apply(), --seed, --json and --help, then params_check()). A
 * refusal must say why; a success must give values inside the documented
 * ranges, checked per lab below. The latency lab's --cpus check also runs
 * against a CPU set taken from the input, so that it is fuzzed apart from
 * this machine's CPUs. The grammars of numbers, durations and CPU lists
 * are fuzzed on their own by fuzz_parse.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "labs/lab.h"
#include "labs/lab_ftrace.h"
#include "labs/lab_latency.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_latency(const struct latency_params *p, const uint8_t *data, size_t size)
{
	cpu_set_t usable;
	char *why = NULL;

	/* The usable CPUs from the input's first bytes: the check is pure too. */
	CPU_ZERO(&usable);
	for (size_t k = 0; k < size && k < 8; k++)
		for (unsigned int b = 0; b < 8; b++)
			if (data[k] & (1u << b))
				CPU_SET(k * 8 + b, &usable);
	if (latency_params_check_cpus(p, &usable, &why) != 0 && !why)
		abort();
	free(why);
	if (p->nplans == 0 || p->nplans > LATENCY_MAX_SCENARIOS || p->threads == 0 ||
	    p->threads > LATENCY_MAX_THREADS || p->duration_ms == 0 ||
	    p->duration_ms > LATENCY_MAX_DURATION_MS || p->hist_max_us == 0 ||
	    p->interval_us == 0 || p->ncpus > LATENCY_MAX_CPUS)
		abort();
	for (unsigned int i = 0; i < p->nplans; i++) {
		const struct latency_plan *pl = &p->plan[i];
		unsigned int period = p->dl_period_us ? p->dl_period_us : p->interval_us;
		unsigned int deadline = p->dl_deadline_us ? p->dl_deadline_us : period;

		if (pl->policy == SCHED_DEADLINE) {
			/* No priority; a reservation the probe accepts. */
			if (pl->priority != 0 || p->interval_us < 50 || p->dl_runtime_us < 2 ||
			    p->dl_runtime_us > deadline || deadline > period)
				abort();
		} else if (pl->policy != 0 && (pl->priority < 1 || pl->priority > 99 ||
					       p->interval_us < 50)) {
			abort();
		}
	}
}

static void check_ftrace(const struct ftrace_params *p)
{
	if ((p->mode != FTRACE_MODE_EVENTS && p->mode != FTRACE_MODE_TRACER) ||
	    p->duration_ms == 0 || p->duration_ms > FTRACE_MAX_DURATION_MS ||
	    p->threshold_us > FTRACE_MAX_THRESHOLD_US)
		abort();
	if (p->tracer[0] && (!ftrace_is_latency_tracer(p->tracer) || p->mode != FTRACE_MODE_TRACER))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct lab_ops *ready[16], *lab;
	size_t nready = 0;
	char *buf, *argv[MAX_ARGS + 2], *p;
	struct lab_args a;
	char *cause = NULL;
	int argc = 0, ret;

	for (const struct lab_ops *const *l = lab_table; *l && nready < 16; l++)
		if ((*l)->state == LAB_STATE_READY)
			ready[nready++] = *l;
	if (size < 1 || nready == 0)
		return 0;
	lab = ready[data[0] % nready];
	buf = malloc(size);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	argv[argc++] = (char *)lab->name;
	for (p = buf; size > 1 && argc <= MAX_ARGS;) {
		char *nl = strchr(p, '\n');

		argv[argc++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	argv[argc] = NULL;

	ret = lab_args_parse(lab, argc, argv, &a, &cause);
	if (ret && !cause)
		abort();	/* every refusal says why */
	if (!ret && !a.help) {
		if (lab->params_size && !a.params)
			abort();
		if (a.json_path && (a.json_path < buf || a.json_path >= buf + size))
			abort();	/* borrowed from argv */
		if (lab == &lab_latency)
			check_latency(a.params, data, size);
		else if (lab == &lab_ftrace)
			check_ftrace(a.params);
	}
	free(cause);
	lab_args_fini(lab, &a);
	free(buf);
	return 0;
}
