/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_keys: the keys of rtlab.grade/1 declared once (doc/cli-json.md),
 * one grade (grade_outcome_json()) and the class document around many
 * (grade_format_class_json()), and the JSON Schema `rtlab schema
 * rtlab.grade/1` prints from them: a document of "kind": "class" has its
 * grades in "grades", any other is one grade and has every key a grade
 * always has. The typed reads at the end are how the front ends read a
 * grade, so that none spells its keys.
 */
#include "grade_outcome.h"

#include <errno.h>
#include <string.h>

#include "core/rt_keys.h"

static const char *const part_names[] = { "code", "results", "quiz", NULL };
static const char *const statuses[] = { "pass", "fail", "skip", "review", NULL };
static const char *const hint_kinds[] = { "results", "code", NULL };

static const struct rt_key part_keys[] = {
	RT_KEY("points", RT_T_NUMBER, NULL, "earned", true),
	RT_KEY("max_points", RT_T_NUMBER, NULL, "possible", true),
	RT_KEY("weight", RT_T_INTEGER, "pct", "the part's weight (a whole lab's grade)", false),
	RT_KEY("missing", RT_T_BOOL, NULL, "nothing of this part was handed in", false),
	RT_KEY("score_pct", RT_T_NUMBER | RT_T_NULL, "pct", "the part's score; null: nothing counted",
	       false),
	RT_KEY_END,
};
static const struct rt_keys part_table = { .keys = part_keys };
static const struct rt_key part_entry = RT_KEY(NULL, RT_T_OBJECT, NULL, "a part's points", false,
					       .of = &part_table);
static const struct rt_key no_keys[] = { RT_KEY_END };
static const struct rt_keys parts_table = { .keys = no_keys, .others = &part_entry,
					    .others_pattern = "^(code|results|quiz)$" };

static const struct rt_key check_keys[] = {
	RT_KEY("id", RT_T_STRING | RT_T_NULL, NULL, "the check's id", true),
	RT_KEY("name", RT_T_STRING | RT_T_NULL, NULL, "the same (as older versions printed it)",
	       true),
	RT_KEY("part", RT_T_STRING, NULL, "the part it belongs to", true, .values = part_names),
	RT_KEY("status", RT_T_STRING, NULL, "`review`: a written answer for the teacher", true,
	       .values = statuses),
	RT_KEY("passed", RT_T_BOOL, NULL, "status is `pass`", true),
	RT_KEY("points", RT_T_NUMBER, NULL, "earned", true),
	RT_KEY("max_points", RT_T_NUMBER, NULL, "its weight", true),
	RT_KEY("reason", RT_T_STRING | RT_T_NULL, NULL, "why, in a sentence", true),
	RT_KEY("detail", RT_T_STRING | RT_T_NULL, NULL, "the same (as older versions printed it)",
	       true),
	RT_KEY("hint", RT_T_STRING | RT_T_NULL, NULL, "what to look at; only for a failed check",
	       true),
	RT_KEY_END,
};
static const struct rt_keys check_table = { .keys = check_keys };

static const struct rt_key build_keys[] = {
	RT_KEY("ok", RT_T_BOOL, NULL, "the subject compiled", true),
	RT_KEY("log", RT_T_STRING | RT_T_NULL, NULL, "the compiler's messages, at most 16 KiB",
	       true),
	RT_KEY_END,
};
static const struct rt_keys build_table = { .keys = build_keys };

static const struct rt_key weight_keys[] = {
	RT_KEY("code", RT_T_INTEGER, "pct", "the code's share", true),
	RT_KEY("results", RT_T_INTEGER, "pct", "the results document's share", true),
	RT_KEY("quiz", RT_T_INTEGER, "pct", "the quiz's share", true),
	RT_KEY_END,
};
static const struct rt_keys weights_table = { .keys = weight_keys };

/* One grade's keys but "schema" (which a class's grades have too). */
#define GRADE_KEYS(required)								\
	RT_KEY("lab", RT_T_STRING | RT_T_NULL, NULL, "the lab", required),		\
	RT_KEY("title", RT_T_STRING | RT_T_NULL, NULL,					\
	       "the exercise's title when the code was graded", required),		\
	RT_KEY("student", RT_T_STRING | RT_T_NULL, NULL,				\
	       "the student's folder name (--class)", required),			\
	RT_KEY("work", RT_T_STRING | RT_T_NULL, NULL, "the folder whose code was graded",	\
	       required),								\
	RT_KEY("file", RT_T_STRING | RT_T_NULL, NULL, "the results document graded",	\
	       required),								\
	RT_KEY("tier", RT_T_STRING | RT_T_NULL, NULL, "its tier", required),		\
	RT_KEY("passed", RT_T_BOOL, NULL, "at least one check ran and none failed",	\
	       required),								\
	RT_KEY("score_pct", RT_T_NUMBER | RT_T_NULL, "pct",				\
	       "0..100, one decimal; null when nothing was handed in", required),	\
	RT_KEY("score", RT_T_NUMBER | RT_T_NULL, "pct", "the same (older name)", required), \
	RT_KEY("points", RT_T_NUMBER, NULL, "earned, over the checks not skipped", required), \
	RT_KEY("max_points", RT_T_NUMBER, NULL, "possible", required),			\
	RT_KEY("checks_passed", RT_T_INTEGER, "count", "checks passed", required),	\
	RT_KEY("checks_failed", RT_T_INTEGER, "count", "checks failed", required),	\
	RT_KEY("checks_skipped", RT_T_INTEGER, "count", "checks skipped", required),	\
	RT_KEY("checks_review", RT_T_INTEGER, "count", "checks left to the teacher",	\
	       required),								\
	RT_KEY("wall_s", RT_T_NUMBER, "s", "seconds the grading took", required),	\
	RT_KEY("parts", RT_T_OBJECT, NULL, "per part: points and max_points", required,	\
	       .of = &parts_table),							\
	RT_KEY("checks", RT_T_ARRAY, NULL, "every check in the order made", required,	\
	       .of = &check_table),							\
	RT_KEY("build", RT_T_OBJECT, NULL, "only when code was graded", false,		\
	       .of = &build_table),							\
	RT_KEY("sandbox", RT_T_STRING | RT_T_NULL, NULL,				\
	       "what the sandbox gave the runs (code graded)", false),			\
	RT_KEY("isolated", RT_T_BOOL, NULL,						\
	       "false: the runs were neither namespaced nor fenced (code graded)", false),	\
	RT_KEY("error", RT_T_STRING | RT_T_NULL, NULL, "only when nothing could be graded",	\
	       false),									\
	RT_KEY("weights", RT_T_OBJECT, NULL, "a whole lab's grade: each part's weight",	\
	       false, .of = &weights_table),						\
	RT_KEY("handed_in", RT_T_BOOL, NULL, "false when nothing was handed in", false),	\
	RT_KEY("results_sha256", RT_T_STRING, NULL,					\
	       "class mode: the SHA-256 of the results.json handed in", false,		\
	       .pattern = "^[0-9a-f]{64}$"),						\
	RT_KEY("code_print", RT_T_STRING, NULL, "class mode: the code's fingerprint",	\
	       false),									\
	RT_KEY("code_is_starter", RT_T_BOOL, NULL, "class mode: the code is the starter",	\
	       false),									\
	RT_KEY("notes", RT_T_ARRAY, NULL, "things for the teacher", false,		\
	       .items = RT_T_STRING)

static const struct rt_key grade_keys[] = {
	RT_KEY("schema", RT_T_STRING, NULL, "`rtlab.grade/1`", false),
	GRADE_KEYS(true),
	RT_KEY_END,
};
static const struct rt_keys grade_table = { .keys = grade_keys };

static const struct rt_key hint_keys[] = {
	RT_KEY("kind", RT_T_STRING, NULL, "what looks alike", true, .values = hint_kinds),
	RT_KEY("lab", RT_T_STRING, NULL, "the lab", true),
	RT_KEY("students", RT_T_ARRAY, NULL, "the students whose hand-ins look alike", true,
	       .items = RT_T_STRING),
	RT_KEY_END,
};
static const struct rt_keys hint_table = { .keys = hint_keys };

static const char *const kinds[] = { "class", NULL };
static const struct rt_key top_keys[] = {
	RT_KEY("schema", RT_T_STRING, NULL, "`rtlab.grade/1`", true),
	RT_KEY("kind", RT_T_STRING, NULL, "`class`: the document around a class's grades", false,
	       .values = kinds),
	RT_KEY("dir", RT_T_STRING | RT_T_NULL, NULL, "class: the class folder", false),
	RT_KEY("jobs", RT_T_INTEGER, "count", "class: jobs run at once", false),
	RT_KEY("grades", RT_T_ARRAY, NULL, "class: each student's grades", false,
	       .of = &grade_table),
	RT_KEY("hints", RT_T_ARRAY, NULL, "class: hand-ins that look alike", false,
	       .of = &hint_table),
	GRADE_KEYS(false),
	RT_KEY_END,
};
static const struct rt_keys top_table = { .keys = top_keys };

json_t *grade_schema(void)
{
	json_t *doc = rt_keys_document(GRADE_SCHEMA, "rtlab grade (one grade, or a class's)",
				       &top_table, 0);
	json_t *req = json_array();

	for (const struct rt_key *k = grade_keys + 1; req && k->key; k++)
		if (k->required && json_array_append_new(req, json_string(k->key)))
			goto fail;
	if (doc && req &&
	    !json_object_set_new(doc, "if", json_pack("{s:{s:{s:s}}, s:[s]}", "properties",
						     "kind", "const", "class", "required",
						     "kind")) &&
	    !json_object_set_new(doc, "then", json_pack("{s:[s]}", "required", "grades")) &&
	    !json_object_set_new(doc, "else", json_pack("{s:O}", "required", req))) {
		json_decref(req);
		return doc;
	}
fail:
	json_decref(req);
	json_decref(doc);
	errno = ENOMEM;
	return NULL;
}

/* ---- Typed reads ---------------------------------------------------------------- */

size_t grade_list_count(const json_t *grades)
{
	return json_array_size(grades);
}

const json_t *grade_list_at(const json_t *grades, size_t i)
{
	return json_array_get(grades, i);
}

const char *grade_student(const json_t *g)
{
	return json_string_value(json_object_get(g, "student"));
}

bool grade_failed_to_grade(const json_t *g)
{
	return json_object_get(g, "error") != NULL;
}

json_t *grade_class_grades(const json_t *doc)
{
	const char *kind = json_string_value(json_object_get(doc, "kind"));
	json_t *grades = json_object_get(doc, "grades");

	return kind && !strcmp(kind, "class") && json_is_array(grades) ? grades : NULL;
}
