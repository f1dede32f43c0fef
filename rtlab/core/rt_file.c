/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_file: the temporary name carries the pid and a counter so that two
 * processes (or two threads) writing the same target never share a
 * temporary file; the last rename wins and every rename installs a complete
 * file.
 *
 * Reads open with O_NONBLOCK so that open() itself cannot wait for a FIFO's
 * writer, check the type with fstat() on the descriptor (not stat() on the
 * name, which a rename could change in between), then clear O_NONBLOCK: a
 * regular file never blocks, and a caller that polls it gets plain reads.
 */
#include "rt_file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <signal.h>
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

const char *rt_file_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return "a regular file";
	case S_IFDIR:
		return "a directory";
	case S_IFIFO:
		return "a FIFO";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFSOCK:
		return "a socket";
	case S_IFLNK:
		return "a symbolic link";
	default:
		return "not a file rtlab knows";
	}
}

/* The errno for a file of @mode that is not regular: -EISDIR or -EINVAL. */
static int not_regular(mode_t mode)
{
	return S_ISDIR(mode) ? -EISDIR : -EINVAL;
}

/* "PATH: larger than 64 MiB, more than rtlab reads here" */
static int too_big(const char *path, size_t max, char **cause)
{
	if (max >= (1u << 20) && !(max & ((1u << 20) - 1)))
		return rt_err(cause, -EFBIG, "%s: larger than %zu MiB, more than rtlab reads here",
			      path, max >> 20);
	if (max >= 1024 && !(max & 1023))
		return rt_err(cause, -EFBIG, "%s: larger than %zu KiB, more than rtlab reads here",
			      path, max >> 10);
	return rt_err(cause, -EFBIG, "%s: larger than %zu bytes, more than rtlab reads here",
		      path, max);
}

/*
 * The checks after open(): a regular file, at most @max bytes, made blocking.
 * Returns @fd, or closes it and returns a negative errno with @cause.
 */
static int open_checked(int fd, const char *path, size_t max, char **cause)
{
	struct stat st;
	int ret;

	if (fstat(fd, &st) < 0) {
		ret = rt_err(cause, -errno, "%s: cannot read: %s", path, strerror(errno));
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = rt_err(cause, not_regular(st.st_mode), "%s: is %s, not a regular file", path,
			     rt_file_kind(st.st_mode));
		goto out_close;
	}
	if (max && st.st_size > 0 && (unsigned long long)st.st_size > max) {
		ret = too_big(path, max, cause);
		goto out_close;
	}
	ret = fcntl(fd, F_GETFL);
	if (ret < 0 || fcntl(fd, F_SETFL, ret & ~O_NONBLOCK) < 0) {
		ret = rt_err(cause, -errno, "%s: cannot read: %s", path, strerror(errno));
		goto out_close;
	}
	return fd;

out_close:
	close(fd);
	return ret;
}

int rt_file_open_read(const char *path, unsigned int flags, size_t max, char **cause)
{
	int oflags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
	struct stat st;
	int fd, ret;

	if (flags & RT_FILE_NOFOLLOW)
		oflags |= O_NOFOLLOW;
	if (flags & RT_FILE_CREATE)
		oflags |= O_CREAT;
	fd = open(path, oflags, 0600);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ELOOP && (flags & RT_FILE_NOFOLLOW))
			return rt_err(cause, ret, "%s: is a symbolic link, which rtlab does not "
				      "follow here", path);
		/* A socket cannot be opened; say what it is rather than ENXIO. */
		if (ret == -ENXIO && lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
			return rt_err(cause, not_regular(st.st_mode), "%s: is %s, not a regular "
				      "file", path, rt_file_kind(st.st_mode));
		return rt_err(cause, ret, "%s: cannot read: %s", path, strerror(-ret));
	}
	return open_checked(fd, path, max, cause);
}

bool rt_file_rel_below(const char *rel)
{
	const char *part = rel;

	if (!*rel || *rel == '/')
		return false;
	while (part) {
		const char *end = strchr(part, '/');
		size_t n = end ? (size_t)(end - part) : strlen(part);

		if (!n || (n == 2 && !memcmp(part, "..", 2)))
			return false;
		part = end ? end + 1 : NULL;
	}
	return true;
}

int rt_file_open_beneath(const char *dir, const char *rel, size_t max, char **cause)
{
	char *copy, *part, *next;
	int cur, fd, ret;

	if (!rt_file_rel_below(rel))
		return rt_err(cause, -EINVAL, "%s: not a relative path without '..' below the "
			      "folder", rel);
	copy = strdup(rel);
	if (!copy)
		return rt_err(cause, -ENOMEM, "%s: out of memory", rel);
	cur = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0) {
		ret = rt_err(cause, -errno, "%s: cannot open its folder: %s", rel, strerror(errno));
		goto out_free;
	}
	/* One component at a time, none a link: nothing leads out of @dir. */
	for (part = copy; (next = strchr(part, '/')); part = next + 1) {
		*next = '\0';
		fd = openat(cur, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(cur);
		if (fd < 0) {
			ret = -errno;
			goto out_err;
		}
		cur = fd;
	}
	fd = openat(cur, part, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	ret = fd < 0 ? -errno : 0;
	close(cur);
	if (!ret) {
		free(copy);
		return open_checked(fd, rel, max, cause);
	}
out_err:
	/* O_DIRECTORY|O_NOFOLLOW on a link to a folder says ENOTDIR; O_NOFOLLOW says ELOOP. */
	if (ret == -ELOOP || ret == -ENOTDIR)
		ret = rt_err(cause, -ELOOP, "%s: a symbolic link or a file where a folder is, "
			     "which rtlab does not follow out of the folder", rel);
	else
		ret = rt_err(cause, ret, "%s: cannot read: %s", rel, strerror(-ret));
out_free:
	free(copy);
	return ret;
}

/* Refuse to replace @path when it exists and is neither a regular file nor a link. */
static int check_target(const char *path, char **cause)
{
	struct stat st;

	if (lstat(path, &st) < 0 || S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
		return 0;
	return rt_err(cause, not_regular(st.st_mode), "%s: is %s, not a regular file; "
		      "not replaced", path, rt_file_kind(st.st_mode));
}

/* ---- Temporary files left by killed writers ------------------------------ */

/*
 * The writer's pid in @name when it is "<base>.tmp.<pid>.<n>" (any base when
 * @base is NULL), else 0. Digits only: "x.tmp.12.3.bak" is not ours.
 */
static long temp_writer(const char *name, const char *base)
{
	const char *t, *p;
	long pid = 0;

	if (base) {
		size_t n = strlen(base);

		if (strncmp(name, base, n) || strncmp(name + n, ".tmp.", 5))
			return 0;
		t = name + n;
	} else {
		t = strstr(name, ".tmp.");
		if (!t || t == name)
			return 0;
		/* The last ".tmp.": a base may hold the word itself. */
		for (p = strstr(t + 1, ".tmp."); p; p = strstr(p + 1, ".tmp."))
			t = p;
	}
	p = t + 5;
	if (*p < '1' || *p > '9')
		return 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (pid > (long)(1 << 30))
			return 0;
		pid = pid * 10 + (*p - '0');
	}
	if (*p++ != '.' || *p < '0' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	return *p ? 0 : pid;
}

DIR *rt_file_dir_reopen(int dfd)
{
	int fd = dup(dfd);
	DIR *d;

	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d) {
		int e = errno;

		close(fd);
		errno = e;
		return NULL;
	}
	rewinddir(d);
	return d;
}

int rt_file_sweep_temps_at(int dfd, const char *base)
{
	DIR *d = rt_file_dir_reopen(dfd);
	struct dirent *de;
	int removed = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		long pid = temp_writer(de->d_name, base);
		struct stat st;

		/*
		 * Only a writer that is gone for sure (ESRCH): a live one, or
		 * one we may not signal (another user's), keeps its file.
		 */
		if (!pid || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode) || st.st_uid != geteuid())
			continue;
		if (unlinkat(dfd, de->d_name, 0) == 0)
			removed++;
	}
	closedir(d);
	return removed;
}

int rt_file_sweep_temps(const char *path, bool any)
{
	char *copy = strdup(path), *copy2 = strdup(path);
	int dfd, ret;

	if (!copy || !copy2) {
		ret = -ENOMEM;
		goto out_free;
	}
	dfd = open(any ? path : dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		ret = -errno;
		goto out_free;
	}
	ret = rt_file_sweep_temps_at(dfd, any ? NULL : basename(copy2));
	close(dfd);
out_free:
	free(copy);
	free(copy2);
	return ret;
}

int rt_file_write_atomic(const char *path, const void *data, size_t len, mode_t mode,
			 char **cause)
{
	static atomic_uint counter;
	char *tmp = NULL;
	int fd = -1, ret;

	ret = check_target(path, cause);
	if (ret)
		return ret;
	/* What a killed run of any rtlab left for this target goes first. */
	rt_file_sweep_temps(path, false);
	if (asprintf(&tmp, "%s.tmp.%ld.%u", path, (long)getpid(),
		     atomic_fetch_add(&counter, 1)) < 0)
		return rt_err(cause, -ENOMEM, "%s: out of memory", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
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
	/* Checked again: the target may have been replaced while we wrote. */
	ret = check_target(path, cause);
	if (ret)
		goto out_unlink;
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

/* Read all of @fd (named @path in messages) and close it; rt_file_load() after the open. */
static int load_fd(int fd, const char *path, size_t max, char **data, size_t *len,
		   char **cause)
{
	size_t cap = 4096, used = 0;
	char *buf, *p;
	int ret = 0;

	if (fd < 0)
		return fd;
	buf = malloc(cap);
	if (!buf) {
		ret = rt_err(cause, -ENOMEM, "%s: out of memory", path);
		goto out_close;
	}
	for (;;) {
		ssize_t n;

		if (used + 1 >= cap) {
			if (cap > max + 1) {
				ret = -EFBIG;
				break;
			}
			cap *= 2;
			p = realloc(buf, cap);
			if (!p) {
				ret = rt_err(cause, -ENOMEM, "%s: out of memory", path);
				goto out_free;
			}
			buf = p;
		}
		n = read(fd, buf + used, cap - used - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = rt_err(cause, -errno, "%s: cannot read: %s", path, strerror(errno));
			goto out_free;
		}
		if (n == 0)
			break;
		used += (size_t)n;
		if (used > max) {
			ret = -EFBIG;
			break;
		}
	}
	if (ret == -EFBIG) {
		too_big(path, max, cause);
		goto out_free;
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

int rt_file_load(const char *path, unsigned int flags, size_t max, char **data, size_t *len,
		 char **cause)
{
	*data = NULL;
	if (len)
		*len = 0;
	return load_fd(rt_file_open_read(path, flags, max, cause), path, max, data, len, cause);
}

int rt_file_load_beneath(const char *dir, const char *rel, size_t max, char **data,
			 size_t *len, char **cause)
{
	*data = NULL;
	if (len)
		*len = 0;
	return load_fd(rt_file_open_beneath(dir, rel, max, cause), rel, max, data, len, cause);
}

int rt_file_read(const char *path, size_t max, char **data, size_t *len)
{
	return rt_file_load(path, 0, max, data, len, NULL);
}

int rt_file_getline(FILE *f, struct rt_buf *line, size_t max, size_t *budget)
{
	bool nul = false, over = false;
	int c;

	rt_buf_reset(line);
	for (;;) {
		if (!*budget)
			return -EFBIG;
		c = getc(f);
		if (c == EOF) {
			if (ferror(f))
				return -EIO;
			/* A last line without its newline still counts. */
			if (!line->len && !over && !nul)
				return -ENODATA;
			break;
		}
		(*budget)--;
		if (c == '\n')
			break;
		if (c == '\0')
			nul = true;
		if (over || nul)
			continue;
		if (line->len >= max) {
			over = true;
			continue;
		}
		if (rt_buf_append(line, &(char){ (char)c }, 1))
			return -ENOMEM;
	}
	if (over || nul) {
		rt_buf_reset(line);
		return over ? -E2BIG : -EILSEQ;
	}
	if (line->len && line->data[line->len - 1] == '\r')
		line->data[--line->len] = '\0';
	return (int)(line->len > INT_MAX ? INT_MAX : line->len);
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
