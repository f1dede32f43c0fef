/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_file: whole-file reads and crash-safe writes.
 *
 * Every file rtlab writes that a person could lose work in (progress,
 * results, the undo journal) is written with rt_file_write_atomic(): a
 * temporary file in the same directory, fsync, rename over the target, fsync
 * of the directory. A reader therefore sees the old file or the new one,
 * never a torn mix, even when the process is killed or the power fails.
 *
 * Every file rtlab reads by name goes through rt_file_open_read() (or
 * rt_file_load() and rt_file_read(), which use it), so that no file can hang
 * or exhaust rtlab: the open is non-blocking (a FIFO or a device without a
 * writer would block open() forever), anything but a regular file is refused
 * with a message that says what it is ("is a FIFO, not a regular file"), and
 * the size is capped before a byte is read. Descriptors are close-on-exec.
 *
 * Symbolic links, the rule:
 *  - A path a person names (on the command line, in an environment variable,
 *    or a lesson in the lesson directory) is followed, as any reader does: a
 *    learner's `results.json -> run-3.json` is their choice.
 *  - A path rtlab makes up inside its state directory (progress.json and its
 *    lock) is opened with RT_FILE_NOFOLLOW. As root under `sudo -E` that
 *    directory may belong to another user, who must not be able to point
 *    rtlab at a file root would then read, create or lock.
 *  - Writes never write through a link: rt_file_write_atomic() creates its
 *    temporary file with O_EXCL|O_NOFOLLOW and renames it over the target,
 *    which replaces a link rather than following it; a target that is a FIFO,
 *    a device, a socket or a directory is refused, never replaced.
 */
#ifndef RTLAB_CORE_RT_FILE_H
#define RTLAB_CORE_RT_FILE_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/rt_buf.h"

/**
 * rt_file_write_atomic - replace @path with @len bytes of @data
 * @mode: permission bits of the new file (before umask)
 * @cause: on failure, a message naming the file and the step that failed
 *
 * Returns 0 or a negative errno (-EISDIR, -EINVAL when @path exists and is
 * not a regular file or a link). On failure @path is untouched and no
 * temporary file is left behind.
 */
int rt_file_write_atomic(const char *path, const void *data, size_t len, mode_t mode,
			 char **cause);

/**
 * rt_file_sweep_temps - remove temporary files left by writers that were killed
 * @path: with @any false, the target whose "<target>.tmp.<pid>.<n>" files go;
 *        with @any true, a directory where every "<name>.tmp.<pid>.<n>" goes
 * @any: see @path
 *
 * A run killed with SIGKILL cannot remove its temporary file. Only files of
 * writers that no longer exist (kill(pid, 0) says ESRCH) are removed, and only
 * regular files of the effective user: a live writer's file, our own (this
 * process is alive) and another user's are kept. rt_file_write_atomic() calls
 * it for its target. Returns how many were removed, or a negative errno.
 */
int rt_file_sweep_temps(const char *path, bool any);

/* rt_file_sweep_temps() in the directory open on @dfd; @base NULL: any name. */
int rt_file_sweep_temps_at(int dfd, const char *base);

/*
 * A directory stream on a duplicate of @dfd, rewound to the start, for a
 * readdir() that leaves @dfd open. Close it with closedir(). NULL with errno.
 */
DIR *rt_file_dir_reopen(int dfd);

/* Is @rel a path below a folder: not empty, not absolute, no ".." or empty component? */
bool rt_file_rel_below(const char *rel);

/* Flags of rt_file_open_read() and rt_file_load(). */
#define RT_FILE_NOFOLLOW	0x1u	/* refuse a symbolic link as the last component */
#define RT_FILE_CREATE		0x2u	/* create a missing file, empty, mode 0600 (a lock) */

/**
 * rt_file_open_read - open a file rtlab reads by name, never blocking on it
 * @path: the file
 * @flags: RT_FILE_NOFOLLOW (see the rule above), RT_FILE_CREATE, or 0
 * @max: refuse a file larger than this many bytes (-EFBIG); 0 means no cap
 * @cause: on failure "PATH: is a FIFO, not a regular file", "PATH: larger
 *         than 64 MiB", "PATH: No such file or directory" (may be NULL)
 *
 * Returns a blocking, close-on-exec descriptor the caller closes, or a
 * negative errno: -EISDIR for a directory, -EINVAL for another file that is
 * not regular (FIFO, socket, device), -ELOOP for a link under
 * RT_FILE_NOFOLLOW, -EFBIG, or what open() or fstat() said.
 */
int rt_file_open_read(const char *path, unsigned int flags, size_t max, char **cause);

/**
 * rt_file_kind - what a file of @mode is, for a message: "a FIFO",
 * "a directory", "a character device", ... or "a regular file".
 */
const char *rt_file_kind(mode_t mode);

/**
 * rt_file_load - read a whole file into memory through rt_file_open_read()
 * @flags: 0 or RT_FILE_NOFOLLOW
 * @max: refuse files larger than this many bytes (-EFBIG), also when the
 *       size is only found while reading (procfs, sysfs, tracefs say 0)
 * @data: on success, a NUL-terminated copy the caller frees
 * @len: on success, the number of bytes read (may be NULL)
 * @cause: on failure, "PATH: why" (may be NULL)
 *
 * Returns 0 or a negative errno as rt_file_open_read(), or from read().
 */
int rt_file_load(const char *path, unsigned int flags, size_t max, char **data, size_t *len,
		 char **cause);

/**
 * rt_file_open_beneath - open @rel inside folder @dir, never leaving it
 * @dir: the folder a person named (followed if it is a link)
 * @rel: a relative path below @dir: no leading '/', no ".." component
 * @max: as rt_file_open_read()
 * @cause: on failure "REL: why"; messages name @rel, never @dir, so a page
 *         made from them shows no host path
 *
 * For names a file chose (a deck's "results: class:NAME"): @rel is opened one
 * component at a time with O_NOFOLLOW, so neither ".." nor a symbolic link
 * anywhere in it leads out of @dir. Returns a descriptor as
 * rt_file_open_read() does, or -EINVAL for a @rel that climbs or is
 * absolute, -ELOOP for a link on the way, or another negative errno.
 */
int rt_file_open_beneath(const char *dir, const char *rel, size_t max, char **cause);

/* rt_file_load() through rt_file_open_beneath(). */
int rt_file_load_beneath(const char *dir, const char *rel, size_t max, char **data,
			 size_t *len, char **cause);

/**
 * rt_file_read - read a whole file into memory
 * @max: refuse files larger than this many bytes (-EFBIG)
 * @data: on success, a NUL-terminated copy the caller frees
 * @len: on success, the number of bytes read (may be NULL)
 *
 * rt_file_load() without flags or message: follows links, refuses what is
 * not a regular file. Works on procfs/sysfs/tracefs files whose stat size is
 * 0. Returns 0 or a negative errno.
 */
int rt_file_read(const char *path, size_t max, char **data, size_t *len);

/**
 * rt_file_getline - read one line of at most @max bytes from @f
 * @line: gets the line without its newline (or "\r\n"); reset first
 * @max: the longest line accepted
 * @budget: bytes the caller still lets its input take; every byte read,
 *          kept or dropped, is taken from it
 *
 * A longer line is read to its end and dropped, so the next call starts at
 * the next line; a line that has not ended when the budget is spent ends
 * the input. Memory stays within @max whatever the input is (/dev/zero).
 *
 * Returns the length of the line (>= 0), -ENODATA at the end of the input,
 * -E2BIG for a line longer than @max (skipped), -EFBIG when @budget ran out,
 * -EILSEQ for a line holding a NUL byte (skipped), -ENOMEM or -EIO.
 */
int rt_file_getline(FILE *f, struct rt_buf *line, size_t max, size_t *budget);

/* Create @path and missing parents with @mode. Returns 0 or a negative errno. */
int rt_mkdir_p(const char *path, mode_t mode);

/* Write all @len bytes to @fd, retrying on EINTR and short writes. 0 or -errno. */
int rt_write_all(int fd, const void *data, size_t len);

/* fsync the directory that holds @path. 0 or -errno. */
int rt_fsync_parent(const char *path);

/**
 * rt_file_rename_noreplace - rename @from to @to, never replacing @to
 *
 * renameat2(RENAME_NOREPLACE); on a filesystem without it (NFS, FUSE, older
 * ones) link() and unlink(), since link() never replaces either. Returns 0,
 * -EEXIST when @to exists, or another negative errno (@from is left as it
 * was).
 */
int rt_file_rename_noreplace(const char *from, const char *to);

#endif
