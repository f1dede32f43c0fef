/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_fcse_trace: the I/O half of the FCSE lab's traces. The readers in
 * sim/sim_fcse_trace.c are pure; this maps a binary trace (used in place)
 * or reads a text one, and hands the bytes to them. tools/fcse-trace uses
 * the same loader.
 */
#include "lab_fcse.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/rt_err.h"
#include "core/rt_file.h"

/* The largest trace file read: 4 GiB is a billion binary records. */
#define FCSE_TRACE_FILE_MAX (4ull << 30)

static int map_file(int fd, const char *path, struct fcse_trace_file *f, char **cause)
{
	struct stat sb;

	if (fstat(fd, &sb) < 0)
		return rt_err(cause, -errno, "%s: %s", path, strerror(errno));
	if (!S_ISREG(sb.st_mode) || (uint64_t)sb.st_size > FCSE_TRACE_FILE_MAX)
		return rt_err(cause, -EINVAL, "%s: not a regular file of at most 4 GiB", path);
	f->data = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (f->data == MAP_FAILED) {
		f->data = NULL;
		return rt_err(cause, -errno, "%s: %s", path, strerror(errno));
	}
	f->len = (size_t)sb.st_size;
	f->mapped = true;
	return 0;
}

int fcse_trace_file_load(const char *path, struct fcse_trace_file *f, char **cause)
{
	char head[8];
	char *why = NULL;
	int fd, ret;

	memset(f, 0, sizeof(*f));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rt_err(cause, -errno, "%s: %s", path, strerror(errno));
	if (read(fd, head, sizeof(head)) == (ssize_t)sizeof(head) &&
	    !memcmp(head, SIM_FCSE_TRACE_MAGIC, sizeof(head))) {
		ret = map_file(fd, path, f, cause);
		close(fd);
		if (ret)
			return ret;
	} else {
		close(fd);
		ret = rt_file_read(path, FCSE_TRACE_FILE_MAX, &f->data, &f->len);
		if (ret)
			return rt_err(cause, ret, "%s: %s", path, strerror(-ret));
	}
	f->fmt = sim_fcse_trace_detect(f->data, f->len);
	if (f->fmt < 0)
		return rt_err(cause, -EINVAL, "%s: neither a din, a lackey nor a binary trace",
			      path);
	ret = sim_fcse_trace_parse(f->data, f->len, f->fmt, &f->t, &why);
	if (ret)
		rt_err(cause, ret, "%s: %s", path, why ? why : strerror(-ret));
	free(why);
	if (!ret && !f->mapped) {
		/* The text is parsed into records: it is no longer needed. */
		free(f->data);
		f->data = NULL;
		f->len = 0;
	}
	return ret;
}

void fcse_trace_file_fini(struct fcse_trace_file *f)
{
	sim_fcse_trace_fini(&f->t);
	if (f->mapped)
		munmap(f->data, f->len);
	else
		free(f->data);
	memset(f, 0, sizeof(*f));
}
