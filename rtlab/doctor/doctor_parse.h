/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * doctor_parse: pure parsers for the text the doctor reads from procfs,
 * sysfs, tracefs and child programs. They take the text, not a path, so the
 * unit tests and a fuzz target can feed them anything.
 */
#ifndef RTLAB_DOCTOR_DOCTOR_PARSE_H
#define RTLAB_DOCTOR_DOCTOR_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * doctor_parse_mount - find where a filesystem of type @fstype is mounted
 * @mounts: the text of /proc/mounts (or /proc/self/mounts)
 * @prefer: a mount point to return if it is among several, or NULL
 *
 * Mount points are unescaped (\040 is a space). Returns the first match (or
 * @prefer when it matches), a string the caller frees; NULL with errno
 * ENOENT when there is none, ENOMEM on allocation failure.
 */
char *doctor_parse_mount(const char *mounts, const char *fstype, const char *prefer);

/**
 * doctor_parse_status_hex - read a hexadecimal field such as "CapEff:"
 * @status: the text of /proc/<pid>/status
 * @field: the field name with its colon, e.g. "CapEff:"
 *
 * Returns 0 and sets @out, or -ENOENT when the field is absent, -EINVAL
 * when its value is not hexadecimal.
 */
int doctor_parse_status_hex(const char *status, const char *field, uint64_t *out);

/**
 * doctor_parse_words - split @text at blanks and newlines
 * @out: on success, an array of strings; free with doctor_words_free()
 * @n: on success, its length (0 for blank text; *out is then NULL)
 *
 * Returns 0 or -ENOMEM.
 */
int doctor_parse_words(const char *text, char ***out, size_t *n);
void doctor_words_free(char **w, size_t n);

/* True when @word is one of the @n strings of @w. */
bool doctor_words_has(char *const *w, size_t n, const char *word);

/*
 * True when an event's trigger file lists "hist" among its available
 * triggers ("# Available triggers:" followed by the names).
 */
bool doctor_parse_trigger_has_hist(const char *trigger);

/**
 * doctor_parse_ll - parse one decimal integer, surrounding blanks allowed
 *
 * Returns 0 and sets @out, or -EINVAL.
 */
int doctor_parse_ll(const char *text, long long *out);

/**
 * doctor_parse_qemu_version - the version number in qemu's --version output
 *
 * "QEMU emulator version 7.2.22 (Debian ...)" gives "7.2.22". Returns a
 * string the caller frees, or NULL (errno EINVAL when there is none).
 */
char *doctor_parse_qemu_version(const char *out);

/* The first line of @text without its newline; the caller frees. NULL on ENOMEM. */
char *doctor_first_line(const char *text);

#endif
