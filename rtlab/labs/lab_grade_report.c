/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_grade_report: a grade report built check by check (grade_report_*),
 * for every lab's grade() and the grader. A written answer is a check for
 * the teacher to read, never points for being there; a missing one fails
 * for no points.
 */
#include "lab_grade_report.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int grade_report_append(struct grade_report *rep, const struct grade_check *c)
{
	struct grade_check n = { .status = c->status, .max_points = c->max_points };
	struct grade_check *v;

	if (!c->name || !(c->max_points >= 0) || c->status > GRADE_REVIEW)
		return -EINVAL;
	n.name = strdup(c->name);
	n.detail = strdup(c->detail ? c->detail : "");
	n.hint = c->hint ? strdup(c->hint) : NULL;
	n.part = c->part ? strdup(c->part) : NULL;
	if (!n.name || !n.detail || (c->hint && !n.hint) || (c->part && !n.part))
		goto out_nomem;
	v = realloc(rep->checks, (rep->nchecks + 1) * sizeof(*v));
	if (!v)
		goto out_nomem;
	rep->checks = v;
	n.passed = n.status == GRADE_PASS;
	n.points = n.passed ? n.max_points : 0;
	v[rep->nchecks++] = n;
	if (n.status == GRADE_SKIP) {
		rep->nskipped++;
	} else if (n.status == GRADE_REVIEW) {
		rep->nreview++;
	} else {
		rep->npassed += n.passed;
		rep->points += n.points;
		rep->max_points += n.max_points;
	}
	rep->score = rep->max_points > 0 ? 100.0 * rep->points / rep->max_points : 0;
	return 0;

out_nomem:
	free(n.name);
	free(n.detail);
	free(n.hint);
	free(n.part);
	return -ENOMEM;
}

int grade_report_add(struct grade_report *rep, const char *name, bool passed,
		     const char *fmt, ...)
{
	char *d = NULL;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vasprintf(&d, fmt, ap);
	va_end(ap);
	if (ret < 0)
		return -ENOMEM;
	ret = grade_report_append(rep, &(struct grade_check){ .name = (char *)name,
		.status = passed ? GRADE_PASS : GRADE_FAIL, .max_points = 1, .detail = d });
	free(d);
	return ret;
}

void grade_report_fini(struct grade_report *rep)
{
	if (!rep)
		return;
	for (size_t i = 0; i < rep->nchecks; i++) {
		free(rep->checks[i].name);
		free(rep->checks[i].detail);
		free(rep->checks[i].hint);
		free(rep->checks[i].part);
	}
	free(rep->checks);
	memset(rep, 0, sizeof(*rep));
}

bool grade_report_passed(const struct grade_report *rep)
{
	size_t counted = rep->nchecks - rep->nskipped - rep->nreview;

	return counted > 0 && rep->npassed == counted;
}

int grade_report_review(struct grade_report *rep, const char *name, const char *answer,
			const char *lab)
{
	char *d = NULL;
	bool have;
	int ret;

	while (answer && (*answer == ' ' || *answer == '\t' || *answer == '\n'))
		answer++;
	have = answer && *answer;
	/* An answer is the teacher's to judge; a missing one is missing work. */
	if (have)
		ret = asprintf(&d, "to be reviewed by the teacher: \"%.300s%s\"", answer,
			       strlen(answer) > 300 ? "..." : "");
	else
		ret = asprintf(&d, "not answered (rtlab lab answer %s %s TEXT, then run the lab "
			       "again)", lab, name);
	if (ret < 0)
		return -ENOMEM;
	ret = grade_report_append(rep, &(struct grade_check){ .name = (char *)name,
		.status = have ? GRADE_REVIEW : GRADE_FAIL, .max_points = 0, .detail = d });
	free(d);
	return ret;
}
