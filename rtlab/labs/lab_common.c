/*
 * lab_common: the parts of the lab framework every lab shares: releasing a
 * result, building a grade report check by check, and the learner's
 * written answers to a handout's questions.
 *
 * Written answers live in the progress file next to the lab's status,
 * as labs.<lab>.answers.<id> = { "text": ..., "time": ... }. The progress
 * schema keeps fields it does not know, so older readers leave them alone;
 * a run copies them into its results document, which is what the grade
 * reads, so grading stays a pure function of that document.
 */
#include "lab.h"

#include <errno.h>
#include <limits.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/rt_err.h"
#include "core/rt_file.h"
#include "core/rt_log.h"
#include "core/rt_paths.h"
#include "core/rt_progress.h"
#include "core/rt_result.h"

/* ---- Results and grades ---------------------------------------------------- */

void lab_result_fini(struct lab_result *r)
{
	if (!r)
		return;
	rt_result_free(r->res);
	memset(r, 0, sizeof(*r));
}

bool lab_ctx_stopped(const struct lab_ctx *ctx)
{
	return ctx && ctx->stop && *ctx->stop;
}

int grade_report_add(struct grade_report *rep, const char *name, bool passed,
		     const char *fmt, ...)
{
	struct grade_check *c;
	char *n = NULL, *d = NULL;
	va_list ap;
	int len;

	n = strdup(name);
	va_start(ap, fmt);
	len = vasprintf(&d, fmt, ap);
	va_end(ap);
	if (len < 0)
		d = NULL;
	if (!n || !d)
		goto out_nomem;
	c = realloc(rep->checks, (rep->nchecks + 1) * sizeof(*c));
	if (!c)
		goto out_nomem;
	rep->checks = c;
	c[rep->nchecks++] = (struct grade_check){ .name = n, .passed = passed, .detail = d };
	if (passed)
		rep->npassed++;
	rep->score = 100.0 * (double)rep->npassed / (double)rep->nchecks;
	return 0;

out_nomem:
	free(n);
	free(d);
	return -ENOMEM;
}

void grade_report_fini(struct grade_report *rep)
{
	if (!rep)
		return;
	for (size_t i = 0; i < rep->nchecks; i++) {
		free(rep->checks[i].name);
		free(rep->checks[i].detail);
	}
	free(rep->checks);
	memset(rep, 0, sizeof(*rep));
}

bool grade_report_passed(const struct grade_report *rep)
{
	return rep->nchecks > 0 && rep->npassed == rep->nchecks;
}

/* ---- Written answers ------------------------------------------------------- */

struct answer_change {
	const char *lab;
	const char *qid;
	const char *text;
};

static int answer_apply(struct rt_progress *p, void *priv)
{
	const struct answer_change *c = priv;
	json_t *doc = rt_progress_json(p), *labs, *lab, *answers, *a;
	char stamp[32];

	labs = json_object_get(doc, "labs");
	if (!labs) {
		labs = json_object();
		if (!labs || json_object_set_new(doc, "labs", labs))
			return -ENOMEM;
	}
	lab = json_object_get(labs, c->lab);
	if (!lab) {
		/* A lab entry needs a status; answering means the lab was started. */
		if (rt_progress_lab_set(p, c->lab, "started", NULL))
			return -ENOMEM;
		lab = json_object_get(labs, c->lab);
		if (!lab)
			return -ENOMEM;
	}
	answers = json_object_get(lab, "answers");
	if (answers && !json_is_object(answers))
		json_object_del(lab, "answers");
	answers = json_object_get(lab, "answers");
	if (!answers) {
		answers = json_object();
		if (!answers || json_object_set_new(lab, "answers", answers))
			return -ENOMEM;
	}
	if (!*c->text) {
		json_object_del(answers, c->qid);
		return 0;
	}
	if (rt_result_format_time(time(NULL), stamp, sizeof(stamp)))
		return -EINVAL;
	a = json_pack("{s:s, s:s}", "text", c->text, "time", stamp);
	if (!a || json_object_set_new(answers, c->qid, a))
		return -ENOMEM;
	return 0;
}

int lab_answer_set(const char *path, const char *lab, const char *qid, const char *text,
		   char **cause)
{
	struct answer_change c = { .lab = lab, .qid = qid, .text = text };
	int ret;

	if (!lab_find(lab))
		return rt_err(cause, -EINVAL, "no lab called \"%s\"", lab);
	if (!*qid || strlen(qid) > RT_PROGRESS_MAX_ID)
		return rt_err(cause, -EINVAL, "a question id is 1..%u bytes", RT_PROGRESS_MAX_ID);
	if (strlen(text) > RT_PROGRESS_MAX_TEXT)
		return rt_err(cause, -EINVAL, "an answer is at most %u bytes (this one has %zu)",
			      RT_PROGRESS_MAX_TEXT, strlen(text));
	ret = rt_progress_update(path, answer_apply, &c, cause);
	if (ret)
		return rt_err(cause, ret, "could not save the answer: %s", strerror(-ret));
	return 0;
}

int lab_answer_get(const char *path, const char *lab, const char *qid, char **out,
		   char **cause)
{
	struct rt_progress *p = NULL;
	json_t *a;
	const char *text;
	int ret;

	*out = NULL;
	ret = rt_progress_load(path, &p, cause);
	if (ret)
		return ret;
	a = json_object_get(json_object_get(json_object_get(json_object_get(
		rt_progress_json(p), "labs"), lab), "answers"), qid);
	text = json_string_value(json_object_get(a, "text"));
	if (!text || !*text) {
		ret = -ENOENT;
	} else {
		*out = strdup(text);
		ret = *out ? 0 : rt_err(cause, -ENOMEM, "out of memory");
	}
	rt_progress_free(p);
	return ret;
}

/* ---- Results path and progress ------------------------------------------ */

char *lab_result_default_path(const char *lab)
{
	char *dir = rt_paths_state_dir(), *sub = NULL, *path = NULL;
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int ret;

	if (!dir)
		return NULL;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	if (asprintf(&sub, "%s/results", dir) < 0) {
		sub = NULL;
		errno = ENOMEM;
		goto out_free;
	}
	ret = rt_mkdir_p(sub, 0700);
	if (ret) {
		errno = -ret;
		goto out_free;
	}
	if (asprintf(&path, "%s/%s-%s.json", sub, lab, stamp) < 0) {
		path = NULL;
		errno = ENOMEM;
	}
out_free:
	free(sub);
	free(dir);
	return path;
}

struct lab_progress_args {
	const char *lab;
	const char *status;
	const char *result;
};

static int lab_progress_apply(struct rt_progress *p, void *priv)
{
	const struct lab_progress_args *a = priv;

	return rt_progress_lab_set(p, a->lab, a->status, a->result);
}

int lab_record_progress(const char *lab, const char *status, const char *result)
{
	struct lab_progress_args a = { lab, status, result };
	char *cause = NULL, abs[PATH_MAX];
	int ret;

	if (!realpath(result, abs))
		snprintf(abs, sizeof(abs), "%s", result);
	a.result = abs;
	ret = rt_progress_update(NULL, lab_progress_apply, &a, &cause);
	if (ret)
		rt_log(RT_LOG_WARN, "the lab's status was not saved in the progress file: %s",
		       cause ? cause : strerror(-ret));
	free(cause);
	return ret;
}
