/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qemu_run: one run of the classroom VM in QEMU, from start to the end of the process.
 *
 * qemu_session_start() finds the images for the chosen kernel, resolves the accelerator
 * (KVM only when the test guest runs on /dev/kvm and a Linux guest booted under it, see
 * qemu_kvm.h; else TCG, with the reason kept for the front end to show), creates a private
 * temporary directory for the console log and the QMP socket, and starts QEMU as a
 * child. qemu_session_wait_ready() watches the console for the guest's ready line and fails
 * after a timeout with the console's last lines; when KVM was chosen automatically and
 * the boot failed that way, qemu_session_fallback() starts QEMU again under TCG.
 * qemu_session_free() stops QEMU if it still runs (QMP "quit", then SIGTERM, then SIGKILL,
 * always by its pid) and removes the temporary directory.
 *
 * Images live in <dir>/<kernel>/{vmlinuz,initrd.img} (and <machine>.dtb for a board that
 * boots with a device tree); qemu_image_dir() says where <dir> is. The board is the
 * caller's (qemu_machine.h), by default the kernel's (qemu_kernel_machine(): the x86 `pc`
 * of the classroom VM, the ARM `versatilepb` of the fcse kernel).
 * The state disk is locked (flock) for as long as QEMU has it, so a second VM, or
 * `rtlab vm pull`, on the same disk is refused while one runs.
 */
#ifndef RTLAB_QEMU_QEMU_RUN_H
#define RTLAB_QEMU_QEMU_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "qemu/qemu_cmdline.h"
#include "qemu/qemu_console.h"

struct qemu_qmp;

/* The learner's state disk in the state directory, mounted at /state in the guest. */
#define QEMU_STATE_IMAGE_FILE "vm-state.img"

/* Boot bounds: TCG boots a Debian kernel in about 6 s here; KVM in under 3 s. */
#define QEMU_BOOT_TIMEOUT_TCG_MS 120000
#define QEMU_BOOT_TIMEOUT_KVM_MS 30000
/*
 * Under KVM the kernel prints on the console within a second of QEMU's start; a guest that
 * stays silent this long is stuck (a nested host), and KVM chosen automatically gives up.
 */
#define QEMU_SILENCE_KVM_MS 10000

struct qemu_run_opts {
	const struct qemu_machine *machine; /* borrowed; the board, NULL = the kernel's
					     * (qemu_kernel_machine()) */
	enum qemu_kernel kernel;
	enum qemu_accel accel;		/* AUTO: KVM when proven (qemu_accel_resolve()) */
	bool accel_fixed;		/* use @accel (KVM or TCG) and @cpu as they are, with
					 * no KVM checks: the KVM probe's own boots */
	const char *cpu;		/* borrowed; with accel_fixed, the -cpu model */
	const char *append;		/* borrowed; kernel parameters (qemu_append_check()) */
	enum qemu_time time;		/* REAL (zero) or VIRTUAL; AUTO: virtual under TCG
					 * unless @smp is above 1 (qemu_run_time_virtual()) */
	unsigned int smp;		/* 0 = the machine's default_smp (2 on pc); 1 with
					 * virtual time */
	unsigned int mem_mb;		/* 0 = the machine's default_mem_mb (1024 on pc) */
	const char *image_dir;		/* borrowed; NULL = qemu_image_dir() */
	const char *state_image;	/* borrowed; NULL = <state dir>/QEMU_STATE_IMAGE_FILE,
					 * "" = none */
	const char *qemu;		/* borrowed; NULL = the machine's emulator from PATH */
	bool interactive;		/* console on the terminal */
	bool shell;
	const char *run;		/* borrowed; headless command, or NULL */
	const char *term;		/* borrowed; the terminal type to pass on */
	bool utf8;			/* the terminal takes UTF-8 (see qemu_config) */
	bool probe_port;		/* the guest gets the virtio-serial port QEMU_PROBE_PORT
					 * on a socket: qemu_session_probe_path() */
	const char *scratch_serial;	/* borrowed; a 64 MiB scratch disk in the session's
					 * folder with this serial, on QEMU's I/O thread
					 * QEMU_IOTHREAD_ID (the hypervisor lab's), or NULL */
	bool die_with_parent;		/* QEMU gets SIGKILL when the thread that started it
					 * ends (PR_SET_PDEATHSIG): nothing outlives rtlab */
	const char *share_dir;		/* borrowed; a host directory to share at
					 * QEMU_SHARE_GUEST_PATH (qemu_share_check()), or NULL */
	unsigned int cols, rows;
	unsigned int boot_timeout_ms;	/* 0 = by accelerator, see above */
	unsigned int silence_timeout_ms; /* fail when the console printed nothing by then;
					  * 0 = QEMU_SILENCE_KVM_MS for KVM chosen automatically,
					  * else only the boot timeout */
	const volatile sig_atomic_t *stop; /* borrowed; waits give up when it becomes non-zero */
};

struct qemu_session;

/**
 * qemu_image_dir - where the VM images are
 *
 * In order: $RTLAB_VM_DIR; "vm/images" next to a binary run from a build directory
 * (build/rtlab -> build/vm/images) when it exists; $XDG_CACHE_HOME/rtlab/vm/images
 * (default ~/.cache/rtlab/vm/images), where `rtlab vm build` puts them. Returns a string
 * the caller frees, or NULL with errno set.
 */
char *qemu_image_dir(void);

/**
 * qemu_share_check - may @dir be shared with the guest?
 * @resolved: on success its absolute path, links resolved; the caller frees it
 * @cause: why not, for the learner
 *
 * A directory whose file system keeps user extended attributes, which the share's
 * mapped-xattr security model stores the guest's owners and modes in (ext4, xfs, btrfs,
 * tmpfs since Linux 6.6). Read-only: nothing is written to @dir. Returns 0, -ENOTDIR,
 * -EOPNOTSUPP or what realpath() said.
 */
int qemu_share_check(const char *dir, char **resolved, char **cause);

/**
 * qemu_accel_resolve - decide between KVM and TCG for @o
 * @got: KVM or TCG
 * @cpu: with KVM, the -cpu model that booted a Linux guest (caller frees); else NULL
 * @why: on success, when the answer differs from a plain yes, a sentence for the
 *       learner (e.g. why TCG); the caller frees it. May be set to NULL.
 *
 * KVM needs the test guest to run (qemu_kvm_guest_run()) and then a Linux guest
 * to have booted under it (qemu_kvm_probe(): the verdict kept for this boot, or a boot of
 * up to qemu_kvm_cap_ms() now). AUTO falls back to TCG with @why naming the reason; asking
 * for KVM where it is not proven fails with -ENODEV and the reason in @why. -EINTR when
 * *o->stop became set meanwhile. Returns 0 or a negative errno.
 */
int qemu_accel_resolve(const struct qemu_run_opts *o, enum qemu_accel *got, char **cpu, char **why);

/**
 * qemu_session_start - start QEMU for @o
 * @notice: set to a sentence the front end should show (TCG fallback), or NULL; caller
 *          frees
 *
 * Returns the session (release with qemu_session_free()), or NULL with errno set and @cause.
 */
struct qemu_session *qemu_session_start(const struct qemu_run_opts *o, char **notice, char **cause);

/**
 * qemu_session_wait_ready - wait until the guest prints its ready line
 * @r: on success what the guest said; release with qemu_ready_fini()
 *
 * Returns 0; -ETIMEDOUT (no ready line within the boot timeout, or no console output at
 * all within the silence timeout), -ECHILD (QEMU exited) or -EINTR (*o->stop) with @cause
 * holding the console's last lines.
 */
int qemu_session_wait_ready(struct qemu_session *s, struct qemu_ready *r, char **cause);

/**
 * qemu_session_fallback - after a failed qemu_session_wait_ready(), go on under TCG
 * @err: what qemu_session_wait_ready() returned
 * @notice: on a restart, one line for the learner naming why KVM failed; caller frees
 *
 * Applies only when KVM was chosen automatically and the boot ended in -ECHILD (QEMU
 * exited) or -ETIMEDOUT (no ready line in time): QEMU is stopped and started again
 * under TCG with the same command, for a new qemu_session_wait_ready(). Returns 0 after
 * such a restart; @err unchanged when it does not apply; another negative errno with
 * @cause when the restart failed.
 */
int qemu_session_fallback(struct qemu_session *s, int err, char **notice, char **cause);

/* One line on why the last wait failed (QEMU's exit and complaint, the console's
 * last line or its silence), or NULL. Borrowed; valid until the next call on @s. */
const char *qemu_session_brief(const struct qemu_session *s);

/**
 * qemu_session_wait_exit - wait for QEMU to end by itself
 * @timeout_ms: 0 waits without bound (still honouring *o->stop)
 * @status: QEMU's exit status (128 + signal when killed)
 *
 * Returns 0, -ETIMEDOUT or -EINTR; QEMU keeps running on those (qemu_session_free() ends it).
 */
int qemu_session_wait_exit(struct qemu_session *s, unsigned int timeout_ms, int *status,
			 char **cause);

/* Milliseconds from QEMU's start to the ready line; -1 before it was seen. */
long qemu_session_ready_ms(const struct qemu_session *s);

/* The accelerator in use. */
enum qemu_accel qemu_session_accel(const struct qemu_session *s);

/* Does the guest run in virtual time (qemu_cmdline.h, enum qemu_time)? */
bool qemu_session_virtual_time(const struct qemu_session *s);

/* Would @o run in virtual time under the accelerator @accel? */
bool qemu_run_time_virtual(const struct qemu_run_opts *o, enum qemu_accel accel);

/* The -cpu model QEMU was given. Borrowed. */
const char *qemu_session_cpu(const struct qemu_session *s);

/* The nonce of the run markers (see qemu_console_extract()), or NULL without a run. */
const char *qemu_session_nonce(const struct qemu_session *s);

/* QEMU's pid, or -1 once it was reaped. */
int qemu_session_pid(const struct qemu_session *s);

/*
 * qemu_session_probe_path - the unix socket QEMU listens on for the guest's port
 * QEMU_PROBE_PORT (a reader connects to it and gets what the guest writes there), or
 * NULL without qemu_run_opts.probe_port
 */
const char *qemu_session_probe_path(const struct qemu_session *s);

/**
 * qemu_session_qmp - a QMP session with this VM (connected on first use)
 *
 * Borrowed: it belongs to the session. Returns NULL with errno set and @cause.
 */
struct qemu_qmp *qemu_session_qmp(struct qemu_session *s, char **cause);

/**
 * qemu_session_console - everything the console printed so far
 * @len: its length
 *
 * Borrowed; valid until the next call on @s. NUL-terminated.
 */
const char *qemu_session_console(struct qemu_session *s, size_t *len);

/* Stop QEMU if running, remove the temporary directory, free @s; NULL does nothing. */
void qemu_session_free(struct qemu_session *s);

#endif
