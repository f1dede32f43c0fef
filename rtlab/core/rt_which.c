/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_which: a $PATH walk with access(X_OK), the same test a shell makes.
 * A directory with an executable bit is not a program, so it is passed over.
 */
#include "rt_which.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int which_is_program(const char *path)
{
	struct stat st;

	return access(path, X_OK) == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

char *rt_which_in(const char *prog, const char *dirs)
{
	char *paths, *save = NULL, *found = NULL;

	if (!prog || !*prog) {
		errno = ENOENT;
		return NULL;
	}
	if (strchr(prog, '/')) {
		if (which_is_program(prog))
			return strdup(prog);
		errno = ENOENT;
		return NULL;
	}
	if (!dirs) {
		dirs = getenv("PATH");
		if (!dirs || !*dirs)
			dirs = RT_WHICH_UNSET_PATH;
	}
	paths = strdup(dirs);
	if (!paths)
		return NULL;
	for (char *dir = strtok_r(paths, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		char *cand = NULL;

		if (dir[0] != '/')
			continue;	/* a relative entry would depend on the cwd */
		if (asprintf(&cand, "%s/%s", dir, prog) < 0) {
			free(paths);
			errno = ENOMEM;
			return NULL;
		}
		if (which_is_program(cand)) {
			found = cand;
			break;
		}
		free(cand);
	}
	free(paths);
	if (!found)
		errno = ENOENT;
	return found;
}

char *rt_which(const char *prog)
{
	const char *env = getenv("PATH");
	char *dirs = NULL, *found;

	if (asprintf(&dirs, "%s:%s", env ? env : "", RT_WHICH_DEFAULT_PATH) < 0) {
		errno = ENOMEM;
		return NULL;
	}
	found = rt_which_in(prog, dirs);
	free(dirs);
	return found;
}
