/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qemu_kvm: does KVM boot a Linux guest here?
 *
 * The test guest (qemu_kvm_guest.h) proves that /dev/kvm runs a few real-mode
 * instructions. Nested hosts have passed it and then, with a real kernel, aborted QEMU
 * under -cpu host while it set the guest's MSRs ("failed to set MSR 0x10a to 0x69",
 * a kvm_buf_set_msrs assertion, status 134), or run a guest that never printed a line.
 * So rtlab trusts KVM only once a classroom VM image (lab, else rt, else stock) booted
 * under it to its ready line.
 *
 * qemu_kvm_probe() tries the CPU models qemu_kvm_model() lists, in order, each within its
 * share of one cap on the whole probe (qemu_kvm_share_ms()) and given up after
 * qemu_kvm_silence_ms() without a byte on the console, and keeps the verdict in the
 * state directory (file "kvm-verdict") with the host's boot id and QEMU's version line:
 * later calls in the same boot with the same QEMU read it back and start nothing. A
 * verdict that could not be reached (no image built yet, QEMU does not run, interrupted)
 * is not kept. `rtlab vm run/exec` then use the CPU model that booted.
 *
 * The doctor reports the verdict (doctor_kvm_prove()); the runner chooses KVM only on it
 * (qemu_accel_resolve()).
 */
#ifndef RTLAB_QEMU_QEMU_KVM_H
#define RTLAB_QEMU_QEMU_KVM_H

#include <signal.h>
#include <jansson.h>
#include <stdbool.h>

/* The whole probe's cap; $RTLAB_KVM_PROBE_TIMEOUT (seconds, 1..600) overrides it. */
#define QEMU_KVM_PROBE_CAP_MS 30000
#define QEMU_KVM_NMODELS 3
#define QEMU_KVM_VERDICT_FILE "kvm-verdict"
#define QEMU_KVM_VERDICT_SCHEMA "rtlab.kvm-verdict/1"

/* The CPU model tried @i-th (0-based, < QEMU_KVM_NMODELS); NULL beyond. */
const char *qemu_kvm_model(unsigned int i);

/**
 * qemu_kvm_share_ms - how long the @i-th model may take when @left_ms of @cap_ms remain
 *
 * An even share with the models still to try (so a model that hangs cannot starve the
 * next), at most two thirds of the cap (20 s of the default 30: a working KVM boots the
 * lab image in about a second); 0 when nothing is left.
 */
unsigned int qemu_kvm_share_ms(unsigned int i, long long left_ms, unsigned int cap_ms);

/**
 * qemu_kvm_silence_ms - a model whose guest printed nothing this long has failed
 *
 * A sixth of @cap_ms (5 s of the default 30): under KVM the kernel prints within a
 * second, so the probe takes about 10 s on a host where every model stays silent. A
 * larger cap also waits longer for the first line (a stand-in that boots under TCG).
 */
unsigned int qemu_kvm_silence_ms(unsigned int cap_ms);

/* The probe's cap: $RTLAB_KVM_PROBE_TIMEOUT seconds when valid, else QEMU_KVM_PROBE_CAP_MS. */
unsigned int qemu_kvm_cap_ms(void);

enum qemu_kvm_state {
	QEMU_KVM_UNTRIED,		/* no verdict: see detail */
	QEMU_KVM_BOOTED,		/* a Linux guest reached ready under KVM */
	QEMU_KVM_FAILED,		/* no CPU model booted one */
};

struct qemu_kvm_verdict {
	enum qemu_kvm_state state;
	bool cached;		/* read back from the state directory */
	char *cpu;		/* owned; BOOTED: the model that booted */
	char *kernel;		/* owned; the image tried: "lab", "rt" or "stock" */
	char *release;		/* owned; BOOTED: the guest's uname -r */
	long boot_ms;		/* BOOTED: QEMU start to ready; else -1 */
	char *detail;		/* owned; FAILED: each model's failure; UNTRIED: why */
	char *boot_id;		/* owned; the host boot the verdict holds for */
	char *qemu_version;	/* owned; the first line of qemu-system-x86_64 --version */
};

/*
 * The JSON Schema (2020-12) of the verdict file read as an object: its first line is
 * "schema", each other line key=value. A new object, or NULL (ENOMEM).
 */
json_t *qemu_kvm_verdict_schema(void);

/* Free what @v owns and zero it (boot_ms -1). */
void qemu_kvm_verdict_fini(struct qemu_kvm_verdict *v);

/**
 * qemu_kvm_verdict_load - read a kept verdict
 * @path: the verdict file
 * @boot_id, @qemu_version: what it must have been measured under
 * @v: filled on success (cached set); release with qemu_kvm_verdict_fini()
 *
 * Only a regular file we own, opened without following a symbolic link and without
 * blocking, of at most 8 KiB, is read. Returns 0; -ENOENT when there is none; -ESTALE
 * when it holds for another boot or QEMU; -EINVAL when it is malformed or not a regular
 * file of ours; -ENOMEM.
 */
int qemu_kvm_verdict_load(const char *path, const char *boot_id, const char *qemu_version,
			struct qemu_kvm_verdict *v);

/**
 * qemu_kvm_verdict_save - keep @v (BOOTED or FAILED, with boot_id and qemu_version) in @path
 *
 * Written whole or not at all (rt_file_write_atomic(), mode 0600). Returns 0 or a
 * negative errno with @cause.
 */
int qemu_kvm_verdict_save(const char *path, const struct qemu_kvm_verdict *v, char **cause);

struct qemu_kvm_probe_opts {
	const char *image_dir;	/* borrowed; NULL = qemu_image_dir() */
	const char *qemu;	/* borrowed; NULL = qemu-system-x86_64 from PATH */
	const char *cache;	/* borrowed; the verdict file, NULL = the state directory's,
				 * "" = keep none */
	unsigned int cap_ms;	/* 0 = qemu_kvm_cap_ms() */
	bool may_boot;		/* false: only a kept verdict, nothing is started */
	const volatile sig_atomic_t *stop; /* borrowed; gives up when non-zero */
};

/**
 * qemu_kvm_probe - the kept verdict, or boot a Linux guest under KVM to reach one
 * @v: filled; release with qemu_kvm_verdict_fini()
 *
 * Does not look at /dev/kvm itself: call it once the test guest has run on it
 * (qemu_kvm_guest_run()). Every QEMU it starts is ended by pid before it returns. Returns
 * 0 (the verdict, UNTRIED included, is in @v) or -ENOMEM.
 */
int qemu_kvm_probe(const struct qemu_kvm_probe_opts *o, struct qemu_kvm_verdict *v);

#endif
