/*
 * rt_file: whole-file reads and crash-safe writes.
 *
 * Every file rtlab writes that a person could lose work in (progress,
 * results, the undo journal) is written with rt_file_write_atomic(): a
 * temporary file in the same directory, fsync, rename over the target, fsync
 * of the directory. A reader therefore sees the old file or the new one,
 * never a torn mix, even when the process is killed or the power fails.
 */
#ifndef RTLAB_CORE_RT_FILE_H
#define RTLAB_CORE_RT_FILE_H

#include <stddef.h>
#include <sys/types.h>

/**
 * rt_file_write_atomic - replace @path with @len bytes of @data
 * @mode: permission bits of the new file (before umask)
 * @cause: on failure, a message naming the file and the step that failed
 *
 * Returns 0 or a negative errno. On failure @path is untouched and no
 * temporary file is left behind.
 */
int rt_file_write_atomic(const char *path, const void *data, size_t len, mode_t mode,
			 char **cause);

/**
 * rt_file_read - read a whole file into memory
 * @max: refuse files larger than this many bytes (-EFBIG)
 * @data: on success, a NUL-terminated copy the caller frees
 * @len: on success, the number of bytes read (may be NULL)
 *
 * Works on procfs/sysfs/tracefs files whose stat size is 0.
 * Returns 0 or a negative errno.
 */
int rt_file_read(const char *path, size_t max, char **data, size_t *len);

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
