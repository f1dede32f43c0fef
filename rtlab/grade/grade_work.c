/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_work: the learner's working copy of an exercise (see the header).
 * Only the manifest's sources are copied: the starter folder may hold
 * notes for teachers that are not the learner's to edit.
 */
#include "grade_work.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/rt_err.h"
#include "core/rt_file.h"
#include "core/rt_paths.h"
#include "core/rt_result.h"
#include "grade/grade_exercise.h"

char *grade_work_dir(const char *lab)
{
	char *state = rt_paths_state_dir(), *d = NULL;

	if (!state)
		return NULL;
	if (asprintf(&d, "%s/work/%s", state, lab) < 0)
		d = NULL;
	free(state);
	return d;
}

static int copy_starter(const struct grade_exercise *ex, const char *dst, char **cause)
{
	int ret = rt_mkdir_p(dst, 0700);

	if (ret)
		return rt_err(cause, ret, "%s: %s", dst, strerror(-ret));
	for (size_t i = 0; !ret && i < ex->m.sources.n; i++) {
		char *src = NULL, *to = NULL, *data = NULL;
		size_t len = 0;

		if (asprintf(&src, "%s/starter/%s", ex->dir, ex->m.sources.v[i]) < 0)
			src = NULL;
		if (asprintf(&to, "%s/%s", dst, ex->m.sources.v[i]) < 0)
			to = NULL;
		ret = src && to ? rt_file_load(src, 0, GRADE_SOURCE_MAX, &data, &len, cause) :
		      -ENOMEM;
		if (!ret)
			ret = rt_file_write_atomic(to, data, len, 0644, cause);
		free(data);
		free(src);
		free(to);
	}
	return ret;
}

int grade_work_start(const char *lab, char **path, bool *created, char **cause)
{
	struct grade_exercise ex;
	struct stat st;
	int ret;

	*path = NULL;
	*created = false;
	ret = grade_exercise_find(&ex, lab, cause);
	if (ret)
		return ret;
	*path = grade_work_dir(lab);
	if (!*path) {
		ret = rt_err(cause, -errno, "no state dir (set HOME or XDG_STATE_HOME)");
		goto out;
	}
	if (!lstat(*path, &st)) {
		if (!S_ISDIR(st.st_mode))
			ret = rt_err(cause, -EEXIST, "%s exists and is not a folder", *path);
		goto out;
	}
	ret = copy_starter(&ex, *path, cause);
	*created = !ret;
out:
	grade_exercise_fini(&ex);
	return ret;
}

int grade_work_reset(const char *lab, char **path, char **backup, char **cause)
{
	char stamp[32] = "";
	bool created;
	int ret;

	*backup = NULL;
	*path = grade_work_dir(lab);
	if (!*path)
		return rt_err(cause, -errno, "no state dir (set HOME or XDG_STATE_HOME)");
	if (!access(*path, F_OK)) {
		rt_result_format_time(time(NULL), stamp, sizeof(stamp));
		if (asprintf(backup, "%s.bak-%s", *path, stamp) < 0) {
			*backup = NULL;
			return -ENOMEM;
		}
		ret = rt_file_rename_noreplace(*path, *backup);
		if (ret)
			return rt_err(cause, ret, "cannot move %s aside to %s: %s", *path,
				      *backup, strerror(-ret));
	}
	free(*path);
	*path = NULL;
	ret = grade_work_start(lab, path, &created, cause);
	return ret;
}
