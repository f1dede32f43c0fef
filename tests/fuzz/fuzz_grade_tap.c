/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_grade_tap: grade_tap_parse() on arbitrary bytes: a check program's
 * output is trusted for its verdicts, but read as if it were not. Every
 * verdict must have a non-empty printable name found again by itself, a
 * known status and a reason of at most GRADE_REASON_MAX bytes (escaped),
 * with no two verdicts of one name; anything else aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grade/grade_tap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct grade_tap t;

	if (grade_tap_parse((const char *)data, size, &t))
		return 0;
	for (size_t i = 0; i < t.n; i++) {
		const struct grade_verdict *v = &t.v[i];

		if (!v->name || !*v->name || !v->reason || v->status > GRADE_SKIP)
			abort();
		if (grade_tap_find(&t, v->name) != v)
			abort();
		for (const char *p = v->name; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				abort();
		for (const char *p = v->reason; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				abort();
	}
	grade_tap_fini(&t);
	return 0;
}
