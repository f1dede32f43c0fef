/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latency_trace.c: the worst section of a latency tracer's trace. Your first
 * part of the ftrace lab's exercise (labs/ftrace/README.md, "Exercise").
 *
 * ftrace_exercise.h says what lt_parse() must find; lesson 06 ("Reading a
 * latency trace") explains the header and the entry lines. Then run
 * `rtlab grade ftrace` (or `rtlab grade ftrace --work DIR`): each check that
 * fails says what it expected and gives a hint.
 */
#include "ftrace_exercise.h"

#include <errno.h>
#include <string.h>

int lt_parse(const char *text, size_t len, struct lt_worst *out)
{
	if (!text || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	/*
	 * TODO: go through the text line by line (it is not NUL-terminated:
	 * stop at text + len). From the '#' lines take the tracer, the
	 * latency and where the section started and ended; from the entry
	 * lines their time stamps, to find the widest gap and its cause.
	 */
	(void)len;
	return -ENOSYS;
}
