/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qemu_kvm_guest: does /dev/kvm run a guest at all?
 *
 * A tiny guest of a few real-mode instructions, run on the KVM device in a child process
 * that is killed by pid when it does not finish in time. It is the first of the two
 * proofs KVM must give before rtlab uses it (the second is a Linux guest booted under it,
 * qemu_kvm.h). The doctor reports it (doctor_probe_kvm()); the runner asks it before it
 * chooses KVM (qemu_accel_resolve()).
 */
#ifndef RTLAB_QEMU_QEMU_KVM_GUEST_H
#define RTLAB_QEMU_QEMU_KVM_GUEST_H

#include <stdbool.h>

/* The test guest's bound when the caller has none of its own. */
#define QEMU_KVM_GUEST_TIMEOUT_MS 3000

enum qemu_kvm_guest_verdict {
	QEMU_KVM_GUEST_NOT_PROBED,	/* present, but @active was false */
	QEMU_KVM_GUEST_WORKS,		/* the guest wrote the right byte and halted */
	QEMU_KVM_GUEST_ABSENT,
	QEMU_KVM_GUEST_NO_PERMISSION,
	QEMU_KVM_GUEST_HUNG,
	QEMU_KVM_GUEST_FAILED,
};

struct qemu_kvm_guest {
	bool dev_present;		/* the device exists */
	bool stand_in;			/* a stand-in file ($RTLAB_KVM_DEV, tests) */
	enum qemu_kvm_guest_verdict verdict;
	int api_version;		/* KVM_GET_API_VERSION, -1 unknown */
	char *detail;			/* owned; the reason for a verdict other than works */
};

/* "not-probed", "works", "absent", "no-permission", "hung", "failed"; NULL out of range. */
const char *qemu_kvm_guest_verdict_name(enum qemu_kvm_guest_verdict v);

/**
 * qemu_kvm_guest_run - run the test guest on @dev
 * @dev: the KVM device, normally qemu_kvm_dev_path("")
 * @active: false only looks whether @dev exists (NOT_PROBED when it does)
 * @timeout_ms: the child is killed after this long (HUNG)
 *
 * Fills @k (release with qemu_kvm_guest_fini()); a guest that does not run is a verdict,
 * not an error. Returns 0 or -ENOMEM.
 */
int qemu_kvm_guest_run(struct qemu_kvm_guest *k, const char *dev, bool active,
		       unsigned int timeout_ms);

/* Free what @k owns and zero it (api_version -1). */
void qemu_kvm_guest_fini(struct qemu_kvm_guest *k);

/**
 * qemu_kvm_dev_path - the KVM device below @root
 *
 * "<root>/dev/kvm"; on the live system (@root "") $RTLAB_KVM_DEV when set, so tests can
 * act out a host with KVM (a regular file there is a stand-in, see qemu_kvm_guest.c),
 * since QEMU itself is replaced by a stand-in in those tests too. Caller frees; NULL
 * when out of memory.
 */
char *qemu_kvm_dev_path(const char *root);

#endif
