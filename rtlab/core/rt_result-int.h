/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_result-int: what the four files of rt_result share and nobody else
 * may use. rt_result.c builds a document, rt_result_check.c validates one
 * (each schema version against its own field lists), rt_result_write.c
 * writes one through rt_json, rt_result_read.c reads one and answers the
 * getters.
 */
#ifndef RTLAB_CORE_RT_RESULT_INT_H
#define RTLAB_CORE_RT_RESULT_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "rt_keys.h"

struct rt_result {
	json_t *doc;		/* owned */
	unsigned int version;	/* read as: 1 (converted) or 2 */
};

#define RT_RESULT_MAX_NOTES	1000u
#define RT_RESULT_MAX_NOTE_LEN	4096u
#define RT_RESULT_MAX_TEXT_LEN	65536u	/* string answers and parameters */
#define RT_RESULT_MAX_ARRAY_PARAM RT_RESULT_MAX_BUCKETS

/*
 * The schema's word lists and key tables (rt_result_keys.c): the writer's
 * layout and the validator's known keys are made of them.
 */
extern const char *const rt_result_tiers[];
extern const char *const rt_result_units[];
extern const char *const rt_result_preempt_models[];
extern const char *const rt_result_times[];
extern const struct rt_keys rt_result_top_keys;
extern const struct rt_keys rt_result_env_keys;
extern const struct rt_keys rt_result_hist_keys;
extern const struct rt_keys rt_result_view_keys;
extern const struct rt_keys rt_result_column_keys;
extern const struct rt_keys rt_result_integrity_keys;
extern const struct rt_keys rt_result_scenario_keys;

/* True if NULL-terminated @list holds @s. */
bool rt_result_in_list(const char *const *list, const char *s);

/* Parameter, answer and histogram names: 1..RT_RESULT_MAX_KEY of [A-Za-z0-9_.-]. */
bool rt_result_key_valid(const char *key);

/* Summary keys: [a-z][a-z0-9_]* ending in "_<unit>", at most RT_RESULT_MAX_KEY bytes. */
bool rt_result_summary_key_valid(const char *key);

/* A lab name without a list to look it up in: 1..RT_RESULT_MAX_KEY of [a-z0-9-], a letter first. */
bool rt_result_lab_name_valid(const char *lab);

/*
 * One step of a JSON path; the validator keeps the chain on its stack and
 * renders "histograms[2].counts[5]" only when it reports an error.
 */
struct rt_result_seg {
	const struct rt_result_seg *up;
	const char *key;	/* NULL for an array index */
	size_t idx;
};

/*
 * Parts of the validator the setters reuse, so that a setter refuses what
 * the validator would. Each returns 0 or -EINVAL with "PATH: message" in
 * *@cause (@cause may be NULL).
 */
int rt_result_check_params(char **cause, const struct rt_result_seg *at, const json_t *params);
int rt_result_check_view(char **cause, const struct rt_result_seg *at, const json_t *view);
int rt_result_check_integrity(char **cause, const struct rt_result_seg *at, const json_t *o);

#endif
