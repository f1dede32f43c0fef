/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vm_kvm: does KVM boot a Linux guest here?
 *
 * The doctor's test guest (doctor_kvm.c) proves that /dev/kvm runs a few real-mode
 * instructions. Nested hosts have passed it and then, with a real kernel, aborted QEMU
 * under -cpu host while it set the guest's MSRs ("failed to set MSR 0x10a to 0x69",
 * a kvm_buf_set_msrs assertion, status 134), or run a guest that never printed a line.
 * So rtlab trusts KVM only once a classroom VM image (lab, else rt, else stock) booted
 * under it to its ready line.
 *
 * vm_kvm_probe() tries the CPU models vm_kvm_model() lists, in order, each within its
 * share of one cap on the whole probe (vm_kvm_share_ms()) and given up after
 * vm_kvm_silence_ms() without a byte on the console, and keeps the verdict in the
 * state directory (file "kvm-verdict") with the host's boot id and QEMU's version line:
 * later calls in the same boot with the same QEMU read it back and start nothing. A
 * verdict that could not be reached (no image built yet, QEMU does not run, interrupted)
 * is not kept. `rtlab vm run/exec` then use the CPU model that booted.
 *
 * The doctor cannot call this (the VM code uses the doctor, not the other way round); the
 * binary registers vm_kvm_doctor_probe() with doctor_kvm_set_boot_probe().
 */
#ifndef RTLAB_VM_VM_KVM_H
#define RTLAB_VM_VM_KVM_H

#include <signal.h>
#include <stdbool.h>

struct doctor_kvm_boot;

/* The whole probe's cap; $RTLAB_KVM_PROBE_TIMEOUT (seconds, 1..600) overrides it. */
#define VM_KVM_PROBE_CAP_MS 30000
#define VM_KVM_NMODELS 3
#define VM_KVM_VERDICT_FILE "kvm-verdict"
#define VM_KVM_VERDICT_SCHEMA "rtlab.kvm-verdict/1"

/* The CPU model tried @i-th (0-based, < VM_KVM_NMODELS); NULL beyond. */
const char *vm_kvm_model(unsigned int i);

/**
 * vm_kvm_share_ms - how long the @i-th model may take when @left_ms of @cap_ms remain
 *
 * An even share with the models still to try (so a model that hangs cannot starve the
 * next), at most two thirds of the cap (20 s of the default 30: a working KVM boots the
 * lab image in about a second); 0 when nothing is left.
 */
unsigned int vm_kvm_share_ms(unsigned int i, long long left_ms, unsigned int cap_ms);

/**
 * vm_kvm_silence_ms - a model whose guest printed nothing this long has failed
 *
 * A sixth of @cap_ms (5 s of the default 30): under KVM the kernel prints within a
 * second, so the probe takes about 10 s on a host where every model stays silent. A
 * larger cap also waits longer for the first line (a stand-in that boots under TCG).
 */
unsigned int vm_kvm_silence_ms(unsigned int cap_ms);

/* The probe's cap: $RTLAB_KVM_PROBE_TIMEOUT seconds when valid, else VM_KVM_PROBE_CAP_MS. */
unsigned int vm_kvm_cap_ms(void);

enum vm_kvm_state {
	VM_KVM_UNTRIED,		/* no verdict: see detail */
	VM_KVM_BOOTED,		/* a Linux guest reached ready under KVM */
	VM_KVM_FAILED,		/* no CPU model booted one */
};

struct vm_kvm_verdict {
	enum vm_kvm_state state;
	bool cached;		/* read back from the state directory */
	char *cpu;		/* owned; BOOTED: the model that booted */
	char *kernel;		/* owned; the image tried: "lab", "rt" or "stock" */
	char *release;		/* owned; BOOTED: the guest's uname -r */
	long boot_ms;		/* BOOTED: QEMU start to ready; else -1 */
	char *detail;		/* owned; FAILED: each model's failure; UNTRIED: why */
	char *boot_id;		/* owned; the host boot the verdict holds for */
	char *qemu_version;	/* owned; the first line of qemu-system-x86_64 --version */
};

/* Free what @v owns and zero it (boot_ms -1). */
void vm_kvm_verdict_fini(struct vm_kvm_verdict *v);

/**
 * vm_kvm_verdict_load - read a kept verdict
 * @path: the verdict file
 * @boot_id, @qemu_version: what it must have been measured under
 * @v: filled on success (cached set); release with vm_kvm_verdict_fini()
 *
 * Only a regular file we own, opened without following a symbolic link and without
 * blocking, of at most 8 KiB, is read. Returns 0; -ENOENT when there is none; -ESTALE
 * when it holds for another boot or QEMU; -EINVAL when it is malformed or not a regular
 * file of ours; -ENOMEM.
 */
int vm_kvm_verdict_load(const char *path, const char *boot_id, const char *qemu_version,
			struct vm_kvm_verdict *v);

/**
 * vm_kvm_verdict_save - keep @v (BOOTED or FAILED, with boot_id and qemu_version) in @path
 *
 * Written whole or not at all (rt_file_write_atomic(), mode 0600). Returns 0 or a
 * negative errno with @cause.
 */
int vm_kvm_verdict_save(const char *path, const struct vm_kvm_verdict *v, char **cause);

struct vm_kvm_probe_opts {
	const char *image_dir;	/* borrowed; NULL = vm_image_dir() */
	const char *qemu;	/* borrowed; NULL = qemu-system-x86_64 from PATH */
	const char *cache;	/* borrowed; the verdict file, NULL = the state directory's,
				 * "" = keep none */
	unsigned int cap_ms;	/* 0 = vm_kvm_cap_ms() */
	bool may_boot;		/* false: only a kept verdict, nothing is started */
	const volatile sig_atomic_t *stop; /* borrowed; gives up when non-zero */
};

/**
 * vm_kvm_probe - the kept verdict, or boot a Linux guest under KVM to reach one
 * @v: filled; release with vm_kvm_verdict_fini()
 *
 * Does not look at /dev/kvm itself: call it once the doctor's test guest has run
 * (doctor_probe_kvm()). Every QEMU it starts is ended by pid before it returns. Returns
 * 0 (the verdict, UNTRIED included, is in @v) or -ENOMEM.
 */
int vm_kvm_probe(const struct vm_kvm_probe_opts *o, struct vm_kvm_verdict *v);

/**
 * vm_kvm_doctor_probe - vm_kvm_probe() in the doctor's terms (a doctor_kvm_boot_fn)
 *
 * Uses the default image directory, QEMU and verdict file.
 */
int vm_kvm_doctor_probe(bool may_boot, struct doctor_kvm_boot *out);

#endif
