/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * doctor_kvm: whether KVM works here, in the doctor's terms. Two proofs, both the
 * QEMU room's: a tiny test guest on /dev/kvm (qemu_kvm_guest.h; /dev/kvm existing
 * proves little, nested KVM has accepted every ioctl and then hung in KVM_RUN), and
 * then a Linux guest booted under KVM (qemu_kvm.h: nested hosts have run the test
 * guest and then aborted QEMU on a real one, "failed to set MSR 0x10a", or left a
 * Linux guest silent). The doctor runs the first, asks the second for its verdict
 * (kept for this host boot, or a boot when allowed) and reports both.
 */
#include "doctor_probe.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "doctor_int.h"
#include "qemu/qemu_kvm.h"
#include "qemu/qemu_kvm_guest.h"

int doctor_probe_kvm(struct doctor_kvm *k, const char *dev, bool active,
		     unsigned int timeout_ms)
{
	/* The same verdicts, in the same order: the doctor's enum extends the guest's. */
	static const enum doctor_kvm_verdict verdicts[] = {
		[QEMU_KVM_GUEST_NOT_PROBED] = DOCTOR_KVM_NOT_PROBED,
		[QEMU_KVM_GUEST_WORKS] = DOCTOR_KVM_WORKS,
		[QEMU_KVM_GUEST_ABSENT] = DOCTOR_KVM_ABSENT,
		[QEMU_KVM_GUEST_NO_PERMISSION] = DOCTOR_KVM_NO_PERMISSION,
		[QEMU_KVM_GUEST_HUNG] = DOCTOR_KVM_HUNG,
		[QEMU_KVM_GUEST_FAILED] = DOCTOR_KVM_FAILED,
	};
	struct qemu_kvm_guest g;
	int ret;

	memset(k, 0, sizeof(*k));
	k->linux_guest.boot_ms = -1;
	ret = qemu_kvm_guest_run(&g, dev, active, timeout_ms);
	k->dev_present = g.dev_present;
	k->stand_in = g.stand_in;
	k->verdict = verdicts[g.verdict];
	k->api_version = g.api_version;
	k->detail = g.detail;	/* moves over */
	g.detail = NULL;
	qemu_kvm_guest_fini(&g);
	return ret;
}

int doctor_kvm_take(struct doctor_kvm *k, struct qemu_kvm_verdict *v)
{
	struct doctor_kvm_boot *b = &k->linux_guest;

	doctor_kvm_boot_fini(b);
	b->tried = v->state != QEMU_KVM_UNTRIED;
	b->booted = v->state == QEMU_KVM_BOOTED;
	b->cached = v->cached;
	b->boot_ms = v->boot_ms;
	/* The strings move over. */
	b->kernel = v->kernel;
	b->release = v->release;
	b->cpu_model = v->cpu;
	b->detail = v->detail;
	v->kernel = v->release = v->cpu = v->detail = NULL;
	qemu_kvm_verdict_fini(v);

	if (!b->tried) {
		k->verdict = DOCTOR_KVM_NOT_PROVEN;
		return doctor_set_str(&k->detail, "%s", b->detail ? b->detail :
				      "a Linux guest has not been tried (make vm)");
	}
	if (!b->booted) {
		k->verdict = DOCTOR_KVM_BOOT_FAILED;
		return doctor_set_str(&k->detail, "%s", b->detail ? b->detail :
				      "a Linux guest did not boot under KVM");
	}
	k->verdict = DOCTOR_KVM_WORKS;
	free(k->detail);
	k->detail = NULL;
	return 0;
}

int doctor_kvm_prove(struct doctor_kvm *k, bool may_boot)
{
	struct qemu_kvm_probe_opts o = { .may_boot = may_boot };
	struct qemu_kvm_verdict v;
	int ret;

	k->test_guest = k->verdict;
	if (k->verdict != DOCTOR_KVM_WORKS)
		return 0;
	ret = qemu_kvm_probe(&o, &v);
	if (ret)
		return ret;
	return doctor_kvm_take(k, &v);
}

void doctor_kvm_boot_fini(struct doctor_kvm_boot *b)
{
	free(b->kernel);
	free(b->release);
	free(b->cpu_model);
	free(b->detail);
	memset(b, 0, sizeof(*b));
	b->boot_ms = -1;
}

void doctor_kvm_fini(struct doctor_kvm *k)
{
	free(k->detail);
	doctor_kvm_boot_fini(&k->linux_guest);
	memset(k, 0, sizeof(*k));
}
