/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_ftrace_xc: the ftrace lab's cross-check parsers on arbitrary bytes.
 * The first byte picks the parser, the rest is its input (NUL-terminated
 * here, as both take a C string):
 *
 *   even: ftrace_rtla_parse(), `rtla timerlat hist` output. When it accepts
 *         the text, the figures must be sane: at least one Thr column, a
 *         count, and an average no more than the maximum (plus 1 us, as
 *         rtla rounds both).
 *   odd:  trace_wake_calc_feed_text(), `trace-cmd report` or `trace` lines, into a wake-up
 *         matcher watching every pid. It may not feed more events than
 *         there are lines, and the matcher's own accounting must hold:
 *         min <= max, and the recorded wake-ups are no more than matched.
 *
 * Anything else is a bug, so it aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "labs/lab_ftrace.h"
#include "trace/trace_events.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_rtla(const char *text)
{
	struct ftrace_rtla_stats st;

	memset(&st, 0xa5, sizeof(st));
	if (ftrace_rtla_parse(text, &st))
		return;
	if (st.ncpus == 0)
		abort();
	if (st.count == 0 || st.avg_us > (double)st.max_us + 1 + 1e-6)
		abort();
}

static void fuzz_tc(const char *text, size_t len)
{
	struct trace_wake_calc *c = trace_wake_calc_new(NULL, 0, 100);
	struct trace_wake_stats st;
	size_t lines = 1, fed, nrec = 0;

	if (!c)
		return;
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	fed = trace_wake_calc_feed_text(c, text);
	if (fed > lines)
		abort();
	trace_wake_calc_stats(c, &st);
	(void)trace_wake_calc_records(c, &nrec);
	if (nrec > st.matched || (st.matched && st.min_ns > st.max_ns))
		abort();
	trace_wake_calc_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (size == 0)
		return 0;
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	if (data[0] & 1)
		fuzz_tc(text, size - 1);
	else
		fuzz_rtla(text);
	free(text);
	return 0;
}
