/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_save: saving a run's results document (lab_save_*: one place for the
 * CLI and the TUI, so that no front end can lose a measurement or replace
 * another run's document), and recording the run in the progress file.
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
	bool named;
};

static int lab_progress_apply(struct rt_progress *p, void *priv)
{
	const struct lab_progress_args *a = priv;
	int ret = rt_progress_lab_set(p, a->lab, a->status, a->result);

	/* The results folder is scanned; a place the learner named is found only here. */
	if (!ret && a->named)
		ret = rt_progress_lab_add_document(p, a->lab, a->result);
	return ret;
}

int lab_record_progress(const char *lab, const char *status, const char *result, bool named)
{
	struct lab_progress_args a = { lab, status, result, named };
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
