/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * doctor_probe: the individual probes behind doctor_probe(), one per
 * section of the report. Each reads its files below a root prefix ("" on
 * the live system), so tests can run it on a fixture tree, and each keeps
 * the reason for every fact it could not establish. Active probes (children
 * that run programs, unshare, or start a KVM guest) run only when asked.
 *
 * Every probe zeroes its struct first and returns 0, or -ENOMEM when it could
 * not record what it found. Free a section with its _fini(), or the whole
 * report with doctor_report_fini().
 */
#ifndef RTLAB_DOCTOR_DOCTOR_PROBE_H
#define RTLAB_DOCTOR_DOCTOR_PROBE_H

#include <stdbool.h>

#include "doctor.h"

/**
 * doctor_read - read "<root><path>", trailing newlines and blanks removed
 *
 * Returns a string the caller frees, or NULL with errno set (ENOENT,
 * EACCES, ...).
 */
char *doctor_read(const char *root, const char *path);

/* True when "<root><path>" exists. */
bool doctor_exists(const char *root, const char *path);

/* CPUID (only when @use_cpuid), DMI ids, /sys/hypervisor/type. */
int doctor_probe_vm(struct doctor_vm *vm, const char *root, bool use_cpuid);
void doctor_vm_fini(struct doctor_vm *vm);

/*
 * euid, CapEff from <root>/proc/self/status, RLIMIT_RTPRIO, and when
 * @active whether a child may switch itself to SCHED_FIFO priority 1.
 */
int doctor_probe_priv(struct doctor_priv *p, const char *root, bool active,
		      unsigned int timeout_ms);
void doctor_priv_fini(struct doctor_priv *p);

/*
 * tracefs: its mount point from <root>/proc/mounts, mounting it at
 * /sys/kernel/tracing when @may_mount and @privileged and it is absent; the
 * tracers, the sched events, hist triggers; and when @try_instance and
 * @privileged, whether instances/rtlab-doctor-<pid> can be created and
 * removed (it is always removed).
 */
int doctor_probe_tracefs(struct doctor_tracefs *t, const char *root, bool privileged,
			 bool may_mount, bool try_instance);
void doctor_tracefs_fini(struct doctor_tracefs *t);

/**
 * doctor_probe_sched - what bounds real-time tasks on this kernel
 * @root: prefix for every file ("" on the live system)
 * @release: uname -r, for the kernel version when debugfs cannot say
 *
 * sched_rt_runtime_us and sched_rt_period_us; the fair server's runtime
 * and period per CPU from debugfs sched/fair_server when it is there and
 * readable (its presence alone says the kernel has one). Without it, the
 * version decides: 6.12 and later have the fair server, older kernels RT
 * throttling; guard_measured says whether debugfs confirmed it (the
 * directory, or for an older kernel a debugfs sched without it). Returns 0
 * or -ENOMEM.
 */
int doctor_probe_sched(struct doctor_sched *s, const char *root, const char *release);
void doctor_sched_fini(struct doctor_sched *s);

/**
 * doctor_probe_preempt - can the preemption model be switched here?
 * @dynamic: the kernel is PREEMPT_DYNAMIC (env.preempt_dynamic)
 *
 * Reads debugfs sched/preempt below @root and checks that we may write
 * it, without writing. Returns 0 or -ENOMEM.
 */
int doctor_probe_preempt(struct doctor_preempt *p, const char *root, bool dynamic);
void doctor_preempt_fini(struct doctor_preempt *p);

/**
 * doctor_kernel_version - major and minor of a kernel release
 * @release: "6.12.48-rtlab", "6.1.0-57-rt-amd64"
 *
 * Returns 0, or -EINVAL (both set to 0) when it does not start with
 * "MAJOR.MINOR".
 */
int doctor_kernel_version(const char *release, int *major, int *minor);

/* Online and allowed CPUs, isolated, nohz_full, /dev/cpu_dma_latency. */
int doctor_probe_cpus(struct doctor_cpus *c, const char *root);
void doctor_cpus_fini(struct doctor_cpus *c);

/* qemu-system-x86_64 in PATH, and when @active its --version. */
int doctor_probe_qemu(struct doctor_qemu *q, bool active, unsigned int timeout_ms);
void doctor_qemu_fini(struct doctor_qemu *q);

/**
 * doctor_probe_kvm - does a KVM guest really run?
 * @dev: the KVM device, normally qemu_kvm_dev_path()
 * @active: start the test guest; otherwise only presence is checked
 * @timeout_ms: the guest's child is killed by pid after this ("hung")
 *
 * The test guest is a few bytes of real-mode code that add two numbers,
 * write the sum to an I/O port and halt; it "works" only when both exits
 * arrive with the right port and value (qemu_kvm_guest_run(), in the doctor's terms).
 */
int doctor_probe_kvm(struct doctor_kvm *k, const char *dev, bool active,
		     unsigned int timeout_ms);
void doctor_kvm_fini(struct doctor_kvm *k);

struct qemu_kvm_verdict;

/**
 * doctor_kvm_prove - after a working test guest, ask for the Linux guest's verdict
 * @may_boot: false reads only a verdict kept for this host boot (qemu_kvm_probe())
 *
 * Leaves any other test guest verdict alone. Sets k->test_guest, k->linux_guest and the
 * final k->verdict: works, not-proven (nothing tried, e.g. no image built yet) or
 * boot-failed, with k->detail (the Linux guest's: why not tried, or how it failed).
 * Returns 0 or -ENOMEM.
 */
int doctor_kvm_prove(struct doctor_kvm *k, bool may_boot);

/**
 * doctor_kvm_take - the Linux guest's verdict @v into @k (after a working test guest)
 *
 * What doctor_kvm_prove() does with the verdict it got; @v's strings move into
 * k->linux_guest and @v is released. Returns 0 or -ENOMEM.
 */
int doctor_kvm_take(struct doctor_kvm *k, struct qemu_kvm_verdict *v);

/*
 * Network namespaces: `ip` in PATH, and when @active whether a child can
 * unshare(CLONE_NEWNET) and create a veth pair inside that namespace. The
 * host's namespace is never touched; the namespace dies with the child.
 */
int doctor_probe_net(struct doctor_net *n, bool active, unsigned int timeout_ms);
void doctor_net_fini(struct doctor_net *n);

/*
 * Stale undo journals in @dir (NULL = the default directory), listed with
 * rt_journal_scan(); when @restore, replayed with rt_journal_recover().
 */
int doctor_probe_journals(struct doctor_journals *j, const char *dir, bool restore);
void doctor_journals_fini(struct doctor_journals *j);

#endif
