/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_similar: hints for the teacher about hand-ins that look alike.
 *
 * Two prints of a student's lab travel in its grade (class mode,
 * grade_class.c): "results_sha256", the digest of the results document
 * handed in, and "code_print", the digest of the code's token stream with
 * whitespace and comments dropped and every name that is not a C keyword
 * replaced by one placeholder (so renaming variables or reformatting
 * leaves it the same). grade_similar_hints() groups the grades of a class
 * by either print. A group is a hint, never a verdict: two students may
 * share a results document by mistake, and short code has few forms.
 */
#ifndef RTLAB_GRADE_GRADE_SIMILAR_H
#define RTLAB_GRADE_GRADE_SIMILAR_H

#include <stddef.h>

#include <jansson.h>

#include "core/rt_sha256.h"

/**
 * grade_code_print - the normalised digest of C source text
 * @text, @len: the sources one after another
 * @out: 64 hex digits and a NUL
 */
void grade_code_print(const char *text, size_t len, char out[RT_SHA256_HEX]);

/**
 * grade_similar_hints - the groups of grades (of one lab, two students or
 * more) that share a results document or a code print; a grade whose
 * "code_is_starter" is true (the lab's starter unchanged) is left out
 * @grades: rtlab.grade/1 objects with "student"
 *
 * Returns a new array of {"kind": "results"|"code", "lab", "students":
 * [...]} (empty when none), or NULL on allocation failure.
 */
json_t *grade_similar_hints(const json_t *grades);

#endif
