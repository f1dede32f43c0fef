/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_paths: the build-tree fallback lets `make run` and the tests use the
 * checked-out lessons without installing anything.
 */
#include "rt_paths.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_config.h"
#include "rt_file.h"

char *rt_paths_state_dir(void)
{
	const char *xdg = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	char *dir = NULL;
	int ret;

	if (xdg && xdg[0] == '/')
		ret = asprintf(&dir, "%s/rtlab", xdg);
	else if (home && *home)
		ret = asprintf(&dir, "%s/.local/state/rtlab", home);
	else {
		errno = ENOENT;
		return NULL;
	}
	if (ret < 0) {
		errno = ENOMEM;
		return NULL;
	}
	ret = rt_mkdir_p(dir, 0700);
	if (ret) {
		free(dir);
		errno = -ret;
		return NULL;
	}
	return dir;
}

char *rt_paths_state_file(const char *name)
{
	char *dir = rt_paths_state_dir();
	char *path = NULL;

	if (!dir)
		return NULL;
	if (asprintf(&path, "%s/%s", dir, name) < 0) {
		path = NULL;
		errno = ENOMEM;
	}
	free(dir);
	return path;
}

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * A binary inside a source tree (build/rtlab, build/san/tests/test_x, ...)
 * uses that tree's data. The marker is lessons/ next to rtlab/main.c, so an
 * installed binary never mistakes some other directory for a source tree.
 */
static char *source_tree_of_exe(void)
{
	char exe[PATH_MAX], probe[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	for (int up = 0; up < 4; up++) {
		struct stat st;

		slash = strrchr(exe, '/');
		if (!slash || slash == exe)
			return NULL;
		*slash = '\0';
		snprintf(probe, sizeof(probe), "%s/rtlab/main.c", exe);
		if (stat(probe, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		snprintf(probe, sizeof(probe), "%s/lessons", exe);
		if (is_dir(probe))
			return realpath(exe, NULL);
	}
	return NULL;
}

char *rt_paths_data_dir(void)
{
	const char *env = getenv("RTLAB_DATADIR");
	char *dir;

	if (env && *env)
		return strdup(env);
	dir = source_tree_of_exe();
	if (dir)
		return dir;
	return strdup(RTLAB_DATADIR);
}
