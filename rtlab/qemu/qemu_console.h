/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qemu_console: reading what the classroom VM printed on its serial console.
 *
 * The VM's init (vm/init) announces itself with one line
 *   rtlab-vm: ready kernel=<name> release=<uname -r> uptime_s=<seconds>; <state note>
 * and, in headless mode, frames the standard output of the command it was given between
 *   <<<rtlab-run-begin NONCE>>>
 *   <<<rtlab-run-end NONCE status=N>>>
 * where NONCE is a random word the host put on the kernel command line, so nothing the
 * command prints can fake a marker. The serial line turns "\n" into "\r\n" and the kernel
 * may interleave its own messages; these parsers cope with both. They are pure functions
 * over a byte buffer (which need not be NUL-terminated), so they are unit-tested and fuzzed.
 */
#ifndef RTLAB_QEMU_QEMU_CONSOLE_H
#define RTLAB_QEMU_QEMU_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>

#define QEMU_CONSOLE_READY "rtlab-vm: ready "
#define QEMU_CONSOLE_BEGIN "<<<rtlab-run-begin "
#define QEMU_CONSOLE_END "<<<rtlab-run-end "
#define QEMU_CONSOLE_STDERR "rtlab-vm: stderr: "

struct qemu_ready {
	char *kernel;		/* owned; "stock", "rt", "lab" as init says */
	char *release;		/* owned; the guest's uname -r */
	double uptime_s;	/* guest uptime when it became ready; -1 when absent */
};

/**
 * qemu_console_ready - find the ready line in console text
 * @text: console bytes; @len: their count
 * @r: filled in when found; release with qemu_ready_fini()
 *
 * Only a complete line (ending in a newline) counts, so a line read half-written is
 * found on the next read.
 *
 * Returns 1 when found, 0 when not (yet), -ENOMEM.
 */
int qemu_console_ready(const char *text, size_t len, struct qemu_ready *r);

/* Free what @r owns and zero it. */
void qemu_ready_fini(struct qemu_ready *r);

/**
 * qemu_console_extract - the command output framed by the run markers for @nonce
 * @out: on success, the output with "\r\n" turned into "\n", NUL-terminated; caller frees
 * @status: on success, the command's exit status from the end marker
 *
 * Only markers that start a line and carry exactly @nonce count. Returns 0; -ENOENT when
 * no begin marker is there; -ENODATA when it began but did not end (the VM died or the
 * console was cut); -EPROTO when the end marker's status is malformed; -ENOMEM.
 */
int qemu_console_extract(const char *text, size_t len, const char *nonce, char **out,
		       int *status);

/**
 * qemu_console_stderr - what the headless command wrote to its standard error
 *
 * The VM's init prints each such line as "rtlab-vm: stderr: LINE" before the run markers.
 * Returns those lines without the prefix, each ending in "\n" (an empty string when there
 * are none), NUL-terminated, for the caller to free; or NULL with errno set.
 */
char *qemu_console_stderr(const char *text, size_t len);

/**
 * qemu_console_tail - the last @nlines lines of console text, for error messages
 *
 * Carriage returns are dropped and other control bytes (escape sequences of a
 * full-screen program) become '?', so the result is safe to print. Returns a
 * NUL-terminated string the caller frees, or NULL with errno set.
 */
char *qemu_console_tail(const char *text, size_t len, unsigned int nlines);

#endif
