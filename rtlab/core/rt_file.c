/*
 * rt_file: the temporary name carries the pid and a counter so that two
 * processes (or two threads) writing the same target never share a
 * temporary file; the last rename wins and every rename installs a complete
 * file.
 */
#include "rt_file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_err.h"

int rt_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int rt_fsync_parent(const char *path)
{
	char *copy = strdup(path);
	int fd, ret = 0;

	if (!copy)
		return -ENOMEM;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto out_free;
	}
	if (fsync(fd) < 0 && errno != EINVAL)
		ret = -errno;
	close(fd);
out_free:
	free(copy);
	return ret;
}

int rt_file_write_atomic(const char *path, const void *data, size_t len, mode_t mode,
			 char **cause)
{
	static atomic_uint counter;
	char *tmp = NULL;
	int fd = -1, ret;

	if (asprintf(&tmp, "%s.tmp.%ld.%u", path, (long)getpid(),
		     atomic_fetch_add(&counter, 1)) < 0)
		return rt_err(cause, -ENOMEM, "%s: out of memory", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0) {
		ret = rt_err(cause, -errno, "%s: cannot create temporary file: %s", tmp,
			     strerror(errno));
		goto out_free;
	}
	ret = rt_write_all(fd, data, len);
	if (ret) {
		rt_err(cause, ret, "%s: write failed: %s", tmp, strerror(-ret));
		goto out_unlink;
	}
	if (fsync(fd) < 0) {
		ret = rt_err(cause, -errno, "%s: fsync failed: %s", tmp, strerror(errno));
		goto out_unlink;
	}
	if (close(fd) < 0) {
		fd = -1;
		ret = rt_err(cause, -errno, "%s: close failed: %s", tmp, strerror(errno));
		goto out_unlink;
	}
	fd = -1;
	if (rename(tmp, path) < 0) {
		ret = rt_err(cause, -errno, "%s: cannot rename into place: %s", path,
			     strerror(errno));
		goto out_unlink;
	}
	/* The data is safe; a failed directory fsync only weakens durability. */
	rt_fsync_parent(path);
	free(tmp);
	return 0;

out_unlink:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
out_free:
	free(tmp);
	return ret;
}

int rt_file_read(const char *path, size_t max, char **data, size_t *len)
{
	size_t cap = 4096, used = 0;
	char *buf, *p;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(cap);
	if (!buf) {
		ret = -ENOMEM;
		goto out_close;
	}
	for (;;) {
		ssize_t n;

		if (used + 1 >= cap) {
			if (cap > max + 1) {
				ret = -EFBIG;
				goto out_free;
			}
			cap *= 2;
			p = realloc(buf, cap);
			if (!p) {
				ret = -ENOMEM;
				goto out_free;
			}
			buf = p;
		}
		n = read(fd, buf + used, cap - used - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			goto out_free;
		}
		if (n == 0)
			break;
		used += (size_t)n;
		if (used > max) {
			ret = -EFBIG;
			goto out_free;
		}
	}
	buf[used] = '\0';
	*data = buf;
	if (len)
		*len = used;
	close(fd);
	return 0;

out_free:
	free(buf);
out_close:
	close(fd);
	return ret;
}

int rt_mkdir_p(const char *path, mode_t mode)
{
	char *copy, *p;
	int ret = 0;

	if (!*path)
		return -EINVAL;
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	for (p = copy + 1; ; p++) {
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(copy, mode) < 0 && errno != EEXIST) {
			ret = -errno;
			break;
		}
		*p = c;
		if (!c)
			break;
	}
	if (!ret) {
		struct stat st;

		if (stat(path, &st) < 0)
			ret = -errno;
		else if (!S_ISDIR(st.st_mode))
			ret = -ENOTDIR;
	}
	free(copy);
	return ret;
}

int rt_file_rename_noreplace(const char *from, const char *to)
{
	int err;

	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
		return -errno;
	if (link(from, to) < 0)
		return -errno;
	if (unlink(from) == 0)
		return 0;
	err = errno;
	unlink(to);
	return -err;
}
