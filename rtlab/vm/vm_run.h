/*
 * vm_run: one run of the classroom VM in QEMU, from start to the end of the process.
 *
 * vm_session_start() finds the images for the chosen kernel, resolves the accelerator
 * (KVM only when the doctor's test guest really runs, else TCG, with the reason kept for
 * the front end to show), creates a private temporary directory for the console log and
 * the QMP socket, and starts QEMU as a child. vm_session_wait_ready() watches the console
 * for the guest's ready line and fails after a timeout with the console's last lines.
 * vm_session_free() stops QEMU if it still runs (QMP "quit", then SIGTERM, then SIGKILL,
 * always by its pid) and removes the temporary directory.
 *
 * Images live in <dir>/<kernel>/{vmlinuz,initrd.img}; vm_image_dir() says where <dir> is.
 */
#ifndef RTLAB_VM_VM_RUN_H
#define RTLAB_VM_VM_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "vm/vm_cmdline.h"
#include "vm/vm_console.h"

struct vm_qmp;

/* Boot bounds: TCG boots a Debian kernel in about 6 s here; KVM in under 3 s. */
#define VM_BOOT_TIMEOUT_TCG_MS 120000
#define VM_BOOT_TIMEOUT_KVM_MS 30000

struct vm_run_opts {
	enum vm_kernel kernel;
	enum vm_accel accel;		/* AUTO asks the doctor's KVM probe */
	unsigned int smp;		/* 0 = 2 */
	unsigned int mem_mb;		/* 0 = 1024 */
	const char *image_dir;		/* borrowed; NULL = vm_image_dir() */
	const char *state_image;	/* borrowed; NULL = <state dir>/vm-state.img, "" = none */
	const char *qemu;		/* borrowed; NULL = qemu-system-x86_64 from PATH */
	bool interactive;		/* console on the terminal */
	bool shell;
	const char *run;		/* borrowed; headless command, or NULL */
	const char *term;		/* borrowed; the terminal type to pass on */
	unsigned int cols, rows;
	unsigned int boot_timeout_ms;	/* 0 = by accelerator, see above */
	const volatile sig_atomic_t *stop; /* borrowed; waits give up when it becomes non-zero */
};

struct vm_session;

/**
 * vm_image_dir - where the VM images are
 *
 * In order: $RTLAB_VM_DIR; "vm/images" next to a binary run from a build directory
 * (build/rtlab -> build/vm/images) when it exists; $XDG_CACHE_HOME/rtlab/vm/images
 * (default ~/.cache/rtlab/vm/images), where `rtlab vm build` puts them. Returns a string
 * the caller frees, or NULL with errno set.
 */
char *vm_image_dir(void);

/**
 * vm_accel_resolve - decide between KVM and TCG
 * @want: what was asked for
 * @got: KVM or TCG
 * @why: on success, when the answer differs from a plain yes, a sentence for the
 *       learner (e.g. why TCG); the caller frees it. May be set to NULL.
 *
 * AUTO picks KVM only when the doctor's KVM test guest works. Asking for KVM where it
 * does not work fails with -ENODEV and @why set. Returns 0 or a negative errno.
 */
int vm_accel_resolve(enum vm_accel want, enum vm_accel *got, char **why);

/**
 * vm_session_start - start QEMU for @o
 * @notice: set to a sentence the front end should show (TCG fallback), or NULL; caller
 *          frees
 *
 * Returns the session (release with vm_session_free()), or NULL with errno set and @cause.
 */
struct vm_session *vm_session_start(const struct vm_run_opts *o, char **notice, char **cause);

/**
 * vm_session_wait_ready - wait until the guest prints its ready line
 * @r: on success what the guest said; release with vm_ready_fini()
 *
 * Returns 0; -ETIMEDOUT, -ECHILD (QEMU exited) or -EINTR (*o->stop) with @cause holding
 * the console's last lines.
 */
int vm_session_wait_ready(struct vm_session *s, struct vm_ready *r, char **cause);

/**
 * vm_session_wait_exit - wait for QEMU to end by itself
 * @timeout_ms: 0 waits without bound (still honouring *o->stop)
 * @status: QEMU's exit status (128 + signal when killed)
 *
 * Returns 0, -ETIMEDOUT or -EINTR; QEMU keeps running on those (vm_session_free() ends it).
 */
int vm_session_wait_exit(struct vm_session *s, unsigned int timeout_ms, int *status,
			 char **cause);

/* Milliseconds from QEMU's start to the ready line; -1 before it was seen. */
long vm_session_ready_ms(const struct vm_session *s);

/* The accelerator in use. */
enum vm_accel vm_session_accel(const struct vm_session *s);

/* The nonce of the run markers (see vm_console_extract()), or NULL without a run. */
const char *vm_session_nonce(const struct vm_session *s);

/* QEMU's pid, or -1 once it was reaped. */
int vm_session_pid(const struct vm_session *s);

/**
 * vm_session_qmp - a QMP session with this VM (connected on first use)
 *
 * Borrowed: it belongs to the session. Returns NULL with errno set and @cause.
 */
struct vm_qmp *vm_session_qmp(struct vm_session *s, char **cause);

/**
 * vm_session_console - everything the console printed so far
 * @len: its length
 *
 * Borrowed; valid until the next call on @s. NUL-terminated.
 */
const char *vm_session_console(struct vm_session *s, size_t *len);

/* Stop QEMU if running, remove the temporary directory, free @s; NULL does nothing. */
void vm_session_free(struct vm_session *s);

#endif
