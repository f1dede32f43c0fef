/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_ci: the CI files that grade a learner's repository on the runners
 * courses use (doc/grading.md): a GitHub Classroom workflow with one
 * autograding step per check of each exercise's manifest (its points as
 * the step's score), and a GitLab CI file whose jobs upload the JUnit
 * report. Both build rtlab on the runner, from the copy a template
 * repository carries (grade_ci_vendor(): its folder .rtlab/) or from a git
 * URL the teacher names; nothing in them is a placeholder to edit.
 */
#ifndef RTLAB_GRADE_GRADE_CI_H
#define RTLAB_GRADE_GRADE_CI_H

#include <stdbool.h>
#include <stddef.h>

#include "core/rt_buf.h"

/* The folder of the repository where the runner finds or clones rtlab. */
#define GRADE_CI_RTLAB_DIR ".rtlab"

enum grade_ci_kind { GRADE_CI_GITHUB, GRADE_CI_GITLAB };

struct grade_ci_opts {
	enum grade_ci_kind kind;
	const char *const *labs;	/* labs with an exercise, at least one */
	size_t nlabs;
	const char *from;	/* a git URL to clone rtlab from, or NULL: the vendored copy */
};

/* Where the file goes in the repository: ".github/workflows/classroom.yml", ".gitlab-ci.yml". */
const char *grade_ci_path(enum grade_ci_kind kind);

/*
 * grade_ci_url_ok - true when @url can stand in the generated files as it
 * is: no space, quote or other character a shell or YAML would read.
 */
bool grade_ci_url_ok(const char *url);

/**
 * grade_ci_yaml - the CI file for @o, appended to @out
 *
 * Each lab's code is taken from the repository's top when one lab is
 * graded, from the folder LAB/ (the learner's working-copy layout) when
 * several are. Returns 0, -ENOENT with @cause (a lab without an exercise
 * or an unreadable manifest), -EINVAL (a URL grade_ci_url_ok() refuses) or
 * -ENOMEM.
 */
int grade_ci_yaml(const struct grade_ci_opts *o, struct rt_buf *out, char **cause);

/**
 * grade_ci_vendor - copy what building and grading need of rtlab's source
 * tree @src into @dest/.rtlab
 *
 * The Makefile, config.mk, the licences, rtlab/, lessons/, labs/ and
 * scripts/deps.sh; never a lab's mutants nor its reference solution (a
 * learner's repository holds the copy), but for the hypervisor policy that
 * rtlab's own build compiles. @dest/.rtlab must not exist.
 * Returns 0, -ENOENT with @cause when @src is not a source tree, -EEXIST, or
 * another negative errno with @cause.
 */
int grade_ci_vendor(const char *src, const char *dest, char **cause);

#endif
