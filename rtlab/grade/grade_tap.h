/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_tap: the verdicts in a check program's output.
 *
 * A check program (rtlab_check_main(), cmocka with CMOCKA_MESSAGE_OUTPUT=TAP)
 * prints one TAP line per check: "ok N - name", "not ok N - name" or
 * "not ok N # SKIP name". The reason of a failure is the last
 * "# rtlab-reason: TEXT" line printed before it (rtlab_fail()), else the
 * "# ..." lines cmocka prints after it (an assertion's message). Anything
 * else is ignored: the output is trusted for its verdicts only because the
 * subject cannot write to it, and parsed defensively all the same.
 */
#ifndef RTLAB_GRADE_GRADE_TAP_H
#define RTLAB_GRADE_GRADE_TAP_H

#include <stddef.h>

#include "labs/lab.h"

#define GRADE_REASON_MAX 600	/* bytes of a reason kept */

struct grade_verdict {
	char *name;		/* owned: the test's name, as printed */
	enum grade_status status;
	char *reason;		/* owned: printable UTF-8 (escaped), "" when none */
};

struct grade_tap {
	struct grade_verdict *v;	/* owned, in the order printed; one per name */
	size_t n;
	long plan;			/* "1..N", or -1 */
};

/**
 * grade_tap_parse - read the verdicts in @len bytes of @text
 * @t: filled (the caller's storage); release with grade_tap_fini()
 *
 * A name printed twice keeps its first verdict. Returns 0 or -ENOMEM.
 */
int grade_tap_parse(const char *text, size_t len, struct grade_tap *t);

void grade_tap_fini(struct grade_tap *t);

/* The verdict of check @id, matching a name whose '_' stands for '-', or NULL. */
const struct grade_verdict *grade_tap_find(const struct grade_tap *t, const char *id);

#endif
