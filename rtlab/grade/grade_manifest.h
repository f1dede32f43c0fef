/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_manifest: an exercise's checks/exercise.json (schema
 * rtlab.exercise/1, doc/exercises.md), read strictly.
 *
 * The manifest says which files the learner writes (sources), which
 * trusted files build the subject and the check program, the sandbox's
 * limits for one run of the subject, and the checks with their points,
 * hints and needs. Every file name is a bare name inside the exercise's
 * folders (no '/', no leading '.'), every flag one the compiler cannot use
 * to reach outside the job folder, and unknown fields are refused: a typo
 * must not silently drop a limit.
 */
#ifndef RTLAB_GRADE_GRADE_MANIFEST_H
#define RTLAB_GRADE_GRADE_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#define GRADE_EXERCISE_SCHEMA "rtlab.exercise/1"
#define GRADE_MAX_SOURCES 16	/* learner files */
#define GRADE_MAX_FILES 32	/* trusted files of one kind (headers, program sources) */
#define GRADE_MAX_FLAGS 32	/* entries of one flags list */
#define GRADE_MAX_CHECKS 64
#define GRADE_ID_MAX 48		/* characters of a check id */
#define GRADE_MANIFEST_MAX (256u * 1024)	/* bytes of exercise.json */

/* What a check may need that the grader grants or not (needs of a check). */
#define GRADE_NEED_SCHED_FIFO (1u << 0)
#define GRADE_NEED_MLOCK (1u << 1)
#define GRADE_NEED_ROOT (1u << 2)

/* The sandbox's limits for one run. */
struct grade_limits {
	unsigned int wall_s;	/* wall clock, seconds */
	unsigned int cpu_s;	/* CPU time, seconds (RLIMIT_CPU) */
	unsigned int mem_mb;	/* address space, MiB (RLIMIT_AS) */
	unsigned int fsize_mb;	/* largest file written, MiB (RLIMIT_FSIZE) */
	unsigned int nproc;	/* processes of its user (RLIMIT_NPROC) */
	unsigned int output_kb;	/* stdout kept; more ends the run */
	unsigned int memlock_kb;	/* RLIMIT_MEMLOCK a check that needs mlock asks for */
};

/* One check of the manifest. Strings owned. */
struct grade_mcheck {
	char *id;		/* [a-z0-9-], the cmocka test's name with '_' as '-' */
	char *title;		/* or NULL */
	char *hint;
	unsigned int points;	/* 1..100 */
	unsigned int needs;	/* GRADE_NEED_* */
	bool timing;
};

/* A string list of the manifest. */
struct grade_strv {
	char **v;		/* owned, each owned */
	size_t n;
};

struct grade_manifest {
	char *lab;
	char *title;
	struct grade_strv sources;
	struct grade_strv headers;
	char *subject;
	char *program;
	struct grade_strv program_sources;
	struct grade_strv cflags;
	struct grade_strv ldflags;
	struct grade_strv program_ldflags;
	struct grade_limits limits;
	struct grade_mcheck *checks;	/* owned */
	size_t nchecks;
	/*
	 * The share of a lab's grade, in percent, of each part (GRADE_PART_*):
	 * "weights" in the manifest, adding up to 100. Without one, the code
	 * alone (100, 0, 0): an exercise outside rtlab's labs.
	 */
	unsigned int weights[3];
	bool weights_given;
};

/* The parts of a lab's grade, in the order of grade_manifest.weights. */
enum grade_part { GRADE_PART_CODE, GRADE_PART_RESULTS, GRADE_PART_QUIZ };

/* "code", "results", "quiz" */
const char *grade_part_name(enum grade_part p);

/**
 * grade_manifest_parse - read an exercise manifest
 * @text, @len: the JSON text
 * @name: what messages call it (the file's path)
 * @m: filled on success (the caller's storage); release with grade_manifest_fini()
 * @cause: on failure, "NAME: field: what is wrong"
 *
 * Returns 0, -EINVAL or -ENOMEM. On failure @m is zeroed.
 */
int grade_manifest_parse(const char *text, size_t len, const char *name,
			 struct grade_manifest *m, char **cause);

/* grade_manifest_load - grade_manifest_parse() of the file @path (at most GRADE_MANIFEST_MAX). */
int grade_manifest_load(const char *path, struct grade_manifest *m, char **cause);

/* grade_manifest_fini - free what @m owns; @m is zeroed. NULL is fine. */
void grade_manifest_fini(struct grade_manifest *m);

/* The check called @id (an id, or a cmocka name with '_'), or NULL. */
const struct grade_mcheck *grade_manifest_check(const struct grade_manifest *m, const char *id);

/* The sum of the checks' points. */
unsigned int grade_manifest_points(const struct grade_manifest *m);

/* "sched_fifo", "mlock", "root" for one GRADE_NEED_* bit, else NULL. */
const char *grade_need_name(unsigned int need);

/* The default limits of doc/exercises.md. */
void grade_limits_default(struct grade_limits *l);

/* True when @name is a bare file name a manifest may name: [A-Za-z0-9_][A-Za-z0-9_.-]*. */
bool grade_file_name_ok(const char *name);

/*
 * grade_manifest_schema - the JSON Schema (2020-12) of rtlab.exercise/1,
 * made from the keys the reader declares. A new object, or NULL (ENOMEM).
 */
json_t *grade_manifest_schema(void);

#endif
