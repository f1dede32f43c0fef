/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qemu_cmdline: the QEMU command line and the kernel command line of a guest.
 *
 * Pure functions from a struct qemu_config to strings, so the exact command line is
 * unit-tested. The board is a qemu_machine (qemu_machine.h: the x86 `pc` of the classroom
 * VM unless another is named); it says which devices carry what is below. The console is
 * the first serial port (ttyS0 on `pc`, ttyAMA0 on `versatilepb`): on the terminal, multiplexed
 * with QEMU's monitor (Ctrl-A x quits, Ctrl-A c switches), and always copied to a log
 * file that the runner reads to see the boot reach rtlab. QMP listens on a unix socket.
 * The learner may add kernel parameters (`--append 'isolcpus=1 nohz_full=1'`); they go
 * after rtlab's console settings and before the rtlab.* words the VM's init reads.
 * A host directory can be shared with the guest over virtio-9p (mount tag QEMU_SHARE_TAG,
 * mounted by the guest's init at QEMU_SHARE_GUEST_PATH) with QEMU's mapped-xattr security
 * model: what the guest creates there is a plain file owned by the user who runs QEMU,
 * whatever owner, mode, device number or link target the guest asked for (those are kept
 * in extended attributes), so a guest cannot plant a set-uid file or a device node in a
 * host directory.
 */
#ifndef RTLAB_QEMU_QEMU_CMDLINE_H
#define RTLAB_QEMU_QEMU_CMDLINE_H

#include <stdbool.h>

#include "core/rt_env.h"
#include "qemu/qemu_machine.h"

/* The 9p mount tag of the shared directory, and where the guest's init mounts it. */
#define QEMU_SHARE_TAG		"rtlab"
#define QEMU_SHARE_GUEST_PATH	"/work"

enum qemu_kernel {
	QEMU_KERNEL_STOCK,	/* Debian linux-image-amd64 */
	QEMU_KERNEL_RT,		/* Debian linux-image-rt-amd64 (PREEMPT_RT) */
	QEMU_KERNEL_LAB,		/* our 6.12 PREEMPT_RT build with the latency tracers */
	QEMU_KERNEL_FCSE,	/* our 6.12 build for ARM versatilepb (ARM926EJ-S), the
				 * FCSE lab's: the only one on another board than pc */
	QEMU_KERNEL_COUNT
};

enum qemu_accel {
	QEMU_ACCEL_AUTO,	/* KVM when proven to work (qemu_accel_resolve()), else TCG */
	QEMU_ACCEL_KVM,
	QEMU_ACCEL_TCG,
};

/*
 * The guest's clock. Real: the host's, as on hardware; under TCG each vCPU is a host
 * thread (multi-threaded TCG) and the host's load and the emulator's stalls show in what
 * the guest measures. Virtual: QEMU's instruction counter drives the guest's clock
 * (`-icount shift=0,sleep=off,align=off`: one instruction is one nanosecond, an idle guest
 * skips to its next timer), so what the guest measures is its own code paths and nothing
 * of the host; TCG only, one vCPU (single-threaded TCG runs vCPUs in turn, so a second
 * one would wait a whole slice). The kernel command line then carries
 * QEMU_TIME_VIRTUAL_WORD, which the guest's rtlab records (env.time).
 */
enum qemu_time {
	QEMU_TIME_REAL,		/* zero: what a caller that says nothing gets */
	QEMU_TIME_AUTO,		/* virtual under TCG unless more than one vCPU is asked for */
	QEMU_TIME_VIRTUAL,
};

#define QEMU_TIME_VIRTUAL_WORD RT_ENV_VIRTUAL_TIME_WORD

/* "auto", "real", "virtual". */
const char *qemu_time_name(enum qemu_time t);
/* Returns 0, or -EINVAL for an unknown name. */
int qemu_time_parse(const char *s, enum qemu_time *t);

/* "stock", "rt", "lab", "fcse"; NULL out of range. */
const char *qemu_kernel_name(enum qemu_kernel k);
/* The board kernel @k boots on: versatilepb for fcse, else pc. */
const struct qemu_machine *qemu_kernel_machine(enum qemu_kernel k);
/* Returns 0, or -EINVAL for an unknown name. */
int qemu_kernel_parse(const char *s, enum qemu_kernel *k);
/* "auto", "kvm", "tcg". */
const char *qemu_accel_name(enum qemu_accel a);
int qemu_accel_parse(const char *s, enum qemu_accel *a);

/* The scratch disk's I/O thread's id. */
#define QEMU_IOTHREAD_ID "io0"

/* The guest's virtio-serial port for the probe's stream (its name in /sys/class/virtio-ports/vportNpM/name). */
#define QEMU_PROBE_PORT "rtlab.probe"

struct qemu_config {
	const struct qemu_machine *machine; /* borrowed; the board, NULL = qemu_machine_pc */
	const char *qemu;		/* borrowed; NULL = the machine's emulator */
	const char *kernel_path;	/* borrowed; vmlinuz */
	const char *initrd_path;	/* borrowed; initrd.img */
	const char *dtb_path;		/* borrowed; the device tree, needed by a machine
					 * with needs_dtb, else NULL */
	const char *state_image;	/* borrowed; raw disk for /state, NULL = none */
	int state_fd;			/* > 2: state_image already open O_RDWR, handed to
					 * QEMU with -add-fd so that QEMU never opens the
					 * path (a link swapped in after our checks would
					 * be followed); else QEMU opens state_image */
	int state_ro_fd;		/* > 2: the same file open read-only, in the same
					 * fd set (QEMU opens it read-only first) */
	const char *console_log;	/* borrowed; every console byte is copied here */
	const char *qmp_socket;		/* borrowed; unix socket path, NULL = no QMP */
	const char *probe_socket;	/* borrowed; a unix socket QEMU listens on for the
					 * guest's channel: the virtio-serial port
					 * QEMU_PROBE_PORT, or the machine's channel_tty (the
					 * hypervisor lab's stream), NULL = no channel */
	const char *scratch_image;	/* borrowed; a raw disk the guest sees as the virtio-blk
					 * device with serial @scratch_serial, served by QEMU's
					 * I/O thread io0 (-object iothread), NULL = none;
					 * only on a machine with virtio_pci */
	const char *scratch_serial;	/* borrowed; with @scratch_image, its serial (letters,
					 * digits, "-_."), by which the guest finds it */
	enum qemu_accel accel;		/* KVM or TCG: resolved, never AUTO */
	bool virtual_time;		/* QEMU_TIME_VIRTUAL: TCG and one vCPU only */
	const char *cpu;		/* borrowed; -cpu model, NULL = the machine's */
	unsigned int smp;		/* vCPUs, 1..the machine's max_smp */
	unsigned int mem_mb;		/* 128..the machine's max_mem_mb */
	bool interactive;		/* console on our stdin/stdout too */
	bool shell;			/* rtlab.shell=1 */
	const char *run;		/* borrowed; rtlab.run="..." or NULL */
	const char *nonce;		/* borrowed; rtlab.nonce, needed with @run */
	const char *term;		/* borrowed; rtlab.term, NULL = leave to the guest */
	unsigned int cols, rows;	/* the terminal's size, 0 = unknown */
	const char *append;		/* borrowed; the learner's kernel parameters, or NULL
					 * (checked with qemu_append_check()) */
	const char *share_dir;		/* borrowed; an absolute host directory shared
					 * read-write at QEMU_SHARE_GUEST_PATH, or NULL; only
					 * on a machine with virtio_pci */
	bool utf8;			/* the host's terminal takes UTF-8: rtlab.utf8=1, the
					 * guest then runs in the C.UTF-8 locale */
};

/* The longest --append rtlab passes on. */
#define QEMU_USER_APPEND_MAX 512

/**
 * qemu_append_check - may @s go on the guest's kernel command line?
 * @cause: why not, for the learner
 *
 * Printable ASCII only (no newline, tab or other control byte), at most
 * QEMU_USER_APPEND_MAX bytes, no double quote (the kernel cannot nest one inside the quoted
 * run command), and none of the words rtlab itself sets up the VM with: rtlab.*,
 * console=, init=, rdinit=. Returns 0 or -EINVAL.
 */
int qemu_append_check(const char *s, char **cause);

/**
 * qemu_append_new - the kernel command line for @c
 * @cause: why it was refused (a run command the kernel cannot carry)
 *
 * Returns a string the caller frees, or NULL with errno set (EINVAL with @cause).
 */
char *qemu_append_new(const struct qemu_config *c, char **cause);

/**
 * qemu_cmdline_new - QEMU's argv for @c, NULL-terminated
 * @cause: why @c was refused
 *
 * Returns an array the caller releases with qemu_argv_free(), or NULL with errno set
 * (EINVAL with @cause for an incomplete or out-of-range config).
 */
char **qemu_cmdline_new(const struct qemu_config *c, char **cause);

/* Free an argv from qemu_cmdline_new(); NULL does nothing. */
void qemu_argv_free(char **argv);

#endif
