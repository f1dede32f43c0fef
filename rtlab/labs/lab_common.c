/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_common: the parts of the lab framework every lab shares: releasing a
 * result, building a grade report check by check, the learner's written
 * answers to a handout's questions, and saving a run's results document
 * (lab_save_*: one place for the CLI and the TUI, so that no front end can
 * lose a measurement or replace another run's document).
 *
 * Written answers live in the progress file next to the lab's status,
 * as labs.<lab>.answers.<id> = { "text": ..., "time": ... }. The progress
 * schema keeps fields it does not know, so older readers leave them alone;
 * a run copies them into its results document, which is what the grade
 * reads, so grading stays a pure function of that document.
 */
#include "lab.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

const char *lab_answer_text(const struct rt_progress *p, const char *lab, const char *qid)
{
	json_t *a = json_object_get(json_object_get(json_object_get(json_object_get(
		rt_progress_json(p), "labs"), lab), "answers"), qid);
	const char *text = json_string_value(json_object_get(a, "text"));

	return text && *text ? text : NULL;
}

int lab_answer_get(const char *path, const char *lab, const char *qid, char **out,
		   char **cause)
{
	struct rt_progress *p = NULL;
	const char *text;
	int ret;

	*out = NULL;
	ret = rt_progress_load(path, &p, cause);
	if (ret)
		return ret;
	text = lab_answer_text(p, lab, qid);
	if (!text) {
		ret = -ENOENT;
	} else {
		*out = strdup(text);
		ret = *out ? 0 : rt_err(cause, -ENOMEM, "out of memory");
	}
	rt_progress_free(p);
	return ret;
}

/* ---- Results path and progress ------------------------------------------ */

/* ---- Saving a run's results document -------------------------------------- */

/*
 * A temporary file is "<prefix>.tmp.<pid>.<n>": never a name a document
 * has, and unique per process; O_EXCL refuses a stale one left by a killed
 * run with the same pid, and the next counter value is tried.
 */
#define LAB_SAVE_TMP_TRIES 100
/* Same-second runs: "<lab>-<time>.json", then "-2" ... "-999". */
#define LAB_SAVE_MAX_SUFFIX 999

static int save_tmp_create(const char *prefix, mode_t mode, char **tmp)
{
	static atomic_uint counter;

	for (int i = 0; i < LAB_SAVE_TMP_TRIES; i++) {
		char *name;
		int fd;

		if (asprintf(&name, "%s.tmp.%ld.%u", prefix, (long)getpid(),
			     atomic_fetch_add(&counter, 1)) < 0)
			return -ENOMEM;
		fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0) {
			*tmp = name;
			return fd;
		}
		free(name);
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* Write all of @text to @fd, make it durable, close @fd (also on failure). */
static int save_fill(int fd, const char *text, size_t len, const char **step)
{
	int ret;

	*step = "write the document";
	ret = rt_write_all(fd, text, len);
	if (!ret && fsync(fd) < 0) {
		*step = "fsync the document";
		ret = -errno;
	}
	if (close(fd) < 0 && !ret) {
		*step = "close the document";
		ret = -errno;
	}
	return ret;
}

/* Name @tmp "<dir>/<prefix>-<UTC time>[-N].json", the first that is free. */
static int save_name_free(const char *tmp, const char *dir, const char *prefix, char **path)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	for (unsigned int n = 1; n <= LAB_SAVE_MAX_SUFFIX; n++) {
		char *p;
		int ret;

		if ((n == 1 ? asprintf(&p, "%s/%s-%s.json", dir, prefix, stamp) :
		     asprintf(&p, "%s/%s-%s-%u.json", dir, prefix, stamp, n)) < 0)
			return -ENOMEM;
		/* Never replaces: a run that took this name in the same second keeps it. */
		ret = rt_file_rename_noreplace(tmp, p);
		if (!ret) {
			*path = p;
			return 0;
		}
		free(p);
		if (ret != -EEXIST)
			return ret;
	}
	return -EEXIST;
}

/* "<state dir>/results", created. NULL with errno set and @why saying what failed. */
static char *save_results_dir(char **why)
{
	char *state = rt_paths_state_dir(), *dir = NULL;
	int ret;

	if (!state) {
		ret = -errno;
		rt_err(why, ret, "no state directory: %s", strerror(-ret));
		errno = -ret;
		return NULL;
	}
	if (asprintf(&dir, "%s/results", state) < 0) {
		dir = NULL;
		rt_err(why, -ENOMEM, "out of memory");
		errno = ENOMEM;
	} else if ((ret = rt_mkdir_p(dir, 0700)) != 0) {
		rt_err(why, ret, "%s: cannot make the results directory: %s", dir,
		       strerror(-ret));
		free(dir);
		dir = NULL;
		errno = -ret;
	}
	free(state);
	return dir;
}

/* A fallback: a new document in @dir under a free default name. 0 or -errno with @why. */
static int save_into(const char *dir, const char *prefix, mode_t mode, const char *text,
		     size_t len, char **path, char **why)
{
	const char *step = "create a file";
	char *base = NULL, *tmp = NULL;
	int fd, ret;

	if (asprintf(&base, "%s/%s", dir, prefix) < 0)
		return -ENOMEM;
	fd = save_tmp_create(base, mode, &tmp);
	free(base);
	ret = fd < 0 ? fd : save_fill(fd, text, len, &step);
	if (!ret) {
		step = "name the file";
		ret = save_name_free(tmp, dir, prefix, path);
	}
	if (ret) {
		if (tmp)
			unlink(tmp);
		rt_err(why, ret, "%s: cannot %s: %s", dir, step, strerror(-ret));
	} else {
		rt_fsync_parent(*path);
	}
	free(tmp);
	return ret;
}

int lab_save_open(struct lab_save *s, const char *lab, const char *target, char **cause)
{
	const char *where;
	struct stat st;
	char *prefix = NULL;
	int fd, ret;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->lab = lab;
	if (target) {
		if (!*target)
			return rt_err(cause, -EINVAL, "the results file name is empty");
		if (stat(target, &st) == 0 && !S_ISREG(st.st_mode))
			return rt_err(cause, -EINVAL, "%s: not a regular file, so the results "
				      "document cannot replace it", target);
		s->target = strdup(target);
		prefix = strdup(target);
	} else {
		s->dir = save_results_dir(cause);
		if (!s->dir)
			return -errno;
		if (asprintf(&prefix, "%s/%s", s->dir, lab) < 0)
			prefix = NULL;
	}
	if ((target && !s->target) || !prefix) {
		free(prefix);
		lab_save_fini(s);
		return rt_err(cause, -ENOMEM, "out of memory");
	}
	/* Temporary files of killed runs (SIGKILL) would stay for ever. */
	rt_file_sweep_temps(target ? target : s->dir, !target);
	fd = save_tmp_create(prefix, 0644, &s->tmp);
	free(prefix);
	if (fd < 0) {
		where = target ? target : s->dir;
		ret = rt_err(cause, fd, "%s: cannot write the results document there: %s",
			     where, strerror(-fd));
		lab_save_fini(s);
		return ret;
	}
	s->fd = fd;
	return 0;
}

/*
 * The document could not go where it was asked to: try the state
 * directory's results/ (unless that was the place that failed), then the
 * temporary directory, where only the owner may read it.
 */
static int save_fallback(struct lab_save *s, const char *text, size_t len, char **cause)
{
	char *dir = NULL, *prefix = NULL, *why_state = NULL, *why_tmp = NULL;
	const char *tmpdir = getenv("TMPDIR");
	int ret = -ENOMEM;

	if (s->target) {
		dir = save_results_dir(&why_state);
		if (dir && save_into(dir, s->lab, 0644, text, len, &s->path, &why_state) == 0)
			goto out_free;
	}
	if (!tmpdir || tmpdir[0] != '/')
		tmpdir = "/tmp";
	if (asprintf(&prefix, "rtlab-%s", s->lab) >= 0) {
		ret = save_into(tmpdir, prefix, 0600, text, len, &s->path, &why_tmp);
		if (!ret)
			goto out_free;
	} else {
		prefix = NULL;
	}
	rt_err(cause, ret, "the results document was not saved: %s; nor as a fallback: %s%s%s",
	       s->missed, why_state ? why_state : "", why_state ? "; " : "",
	       why_tmp ? why_tmp : "out of memory");
	free(s->missed);
	s->missed = NULL;
out_free:
	free(dir);
	free(prefix);
	free(why_state);
	free(why_tmp);
	return s->path ? 0 : ret;
}

int lab_save_commit(struct lab_save *s, const struct rt_result *res, char **cause)
{
	const char *step = "", *where = s->target ? s->target : s->dir;
	char *text, *why = NULL;
	int ret;

	if (!s->tmp)
		return rt_err(cause, -EBADF, "the results file was not opened");
	text = rt_result_to_string_sealed(res, &why);
	if (!text) {
		ret = -errno;
		rt_err(cause, ret, "the results document is not valid: %s",
		       why ? why : strerror(-ret));
		free(why);
		return ret;
	}
	ret = save_fill(s->fd, text, strlen(text), &step);
	s->fd = -1;
	if (!ret && s->target) {
		step = "rename the file into place";
		if (rename(s->tmp, s->target) < 0)
			ret = -errno;
		else if (!(s->path = strdup(s->target)))
			ret = -ENOMEM;
	} else if (!ret) {
		step = "name the file";
		ret = save_name_free(s->tmp, s->dir, s->lab, &s->path);
	}
	if (!ret) {
		rt_fsync_parent(s->path);
	} else {
		/* Late failure: the measurement must land somewhere, and the caller says where. */
		unlink(s->tmp);
		if (asprintf(&s->missed, "%s: cannot %s: %s", where, step, strerror(-ret)) < 0) {
			s->missed = NULL;
			ret = rt_err(cause, -ENOMEM, "out of memory");
		} else {
			ret = save_fallback(s, text, strlen(text), cause);
		}
	}
	free(s->tmp);
	s->tmp = NULL;
	free(text);
	return ret;
}

void lab_save_fini(struct lab_save *s)
{
	if (!s)
		return;
	if (s->tmp) {
		if (s->fd >= 0)
			close(s->fd);
		unlink(s->tmp);
	}
	free(s->tmp);
	free(s->target);
	free(s->dir);
	free(s->path);
	free(s->missed);
	memset(s, 0, sizeof(*s));
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
