/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_grade_manifest: grade_manifest_parse() on arbitrary bytes. What it
 * accepts must hold what the harness relies on (bare file names, 1..64
 * checks with unique ids, points 1..100, a hint each, limits in range, a
 * .c source) and be found again by id; anything else aborts. What it
 * refuses must leave the manifest zeroed with a cause.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grade/grade_manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_strv(const struct grade_strv *v)
{
	for (size_t i = 0; i < v->n; i++)
		if (!v->v[i])
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct grade_manifest m;
	char *cause = NULL;

	if (grade_manifest_parse((const char *)data, size, "fuzz", &m, &cause)) {
		if (!cause || m.lab || m.checks || m.nchecks)
			abort();
		free(cause);
		return 0;
	}
	if (cause || !m.lab || !m.title || !m.subject || !m.program || !m.sources.n)
		abort();
	if (!grade_file_name_ok(m.subject) || !grade_file_name_ok(m.program))
		abort();
	for (size_t i = 0; i < m.sources.n; i++)
		if (!grade_file_name_ok(m.sources.v[i]) || strchr(m.sources.v[i], '/'))
			abort();
	check_strv(&m.headers);
	check_strv(&m.cflags);
	check_strv(&m.ldflags);
	check_strv(&m.program_sources);
	check_strv(&m.program_ldflags);
	if (!m.nchecks || m.nchecks > GRADE_MAX_CHECKS)
		abort();
	if (!m.limits.wall_s || m.limits.wall_s > 600 || !m.limits.cpu_s || !m.limits.nproc ||
	    !m.limits.output_kb || m.limits.mem_mb < 16)
		abort();
	for (size_t i = 0; i < m.nchecks; i++) {
		const struct grade_mcheck *c = &m.checks[i];

		if (!c->id || !c->hint || c->points < 1 || c->points > 100 || c->needs > 7)
			abort();
		if (grade_manifest_check(&m, c->id) != c)
			abort();
	}
	if (grade_manifest_points(&m) < m.nchecks)
		abort();
	grade_manifest_fini(&m);
	return 0;
}
