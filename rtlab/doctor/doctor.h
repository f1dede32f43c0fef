/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * doctor: what this machine offers rtlab, measured, and where each lab can
 * run here.
 *
 * doctor_probe() fills a struct doctor_report with facts: the kernel and
 * its preemption model, the virtual machine we may be in, privileges,
 * tracefs and its tracers, RT throttling, CPUs, QEMU, a KVM guest that must
 * really run, network namespaces, and undo journals left by killed runs.
 * Nothing is assumed: a fact that could not be measured is "unknown" and
 * carries the reason. doctor_eval_lab() is a pure function from a report and
 * a lab descriptor to the lab's tier and the list of what is missing, so it
 * can be tested on hand-made reports. The renderers turn a report into the
 * "rtlab.doctor/1" JSON document (doc/doctor.md) or a checklist for people;
 * they write into a buffer and never print.
 */
#ifndef RTLAB_DOCTOR_DOCTOR_H
#define RTLAB_DOCTOR_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "core/rt_env.h"

struct rt_buf;
struct lab_ops;
struct rt_journal_stale;

#define DOCTOR_SCHEMA "rtlab.doctor/1"
/* Default bound on every child the doctor starts (KVM guest, ip, qemu). */
#define DOCTOR_TIMEOUT_MS 3000

/* A fact that may not have been measurable; "unknown" is null in JSON. */
enum doctor_tri {
	DOCTOR_UNKNOWN = -1,
	DOCTOR_NO = 0,
	DOCTOR_YES = 1,
};

/* The tracers the labs care about, in the order they are reported. */
enum doctor_tracer {
	DOCTOR_TRACER_IRQSOFF,
	DOCTOR_TRACER_PREEMPTOFF,
	DOCTOR_TRACER_PREEMPTIRQSOFF,
	DOCTOR_TRACER_WAKEUP,
	DOCTOR_TRACER_WAKEUP_RT,
	DOCTOR_TRACER_WAKEUP_DL,
	DOCTOR_TRACER_TIMERLAT,
	DOCTOR_TRACER_OSNOISE,
	DOCTOR_TRACER_HWLAT,
	DOCTOR_TRACER_FUNCTION,
	DOCTOR_TRACER_FUNCTION_GRAPH,
	DOCTOR_TRACER_COUNT
};

/* The name in available_tracers, e.g. "wakeup_rt". */
const char *doctor_tracer_name(enum doctor_tracer t);

/* The raw evidence for "inside a VM"; the verdict is env.in_vm/vm_type. */
struct doctor_vm {
	enum doctor_tri cpuid_hypervisor; /* CPUID.1:ECX bit 31; unknown off x86 */
	char *cpuid_vendor;		/* owned; leaf 0x40000000 signature, or NULL */
	char *dmi_sys_vendor;		/* owned; NULL when absent */
	char *dmi_product_name;		/* owned; NULL when absent */
	char *hypervisor_type;		/* owned; /sys/hypervisor/type, NULL when absent */
};

struct doctor_priv {
	uid_t euid;
	bool root;			/* euid 0 */
	bool cap_known;			/* CapEff could be read */
	uint64_t cap_eff;		/* effective capability mask */
	bool cap_sys_nice, cap_sys_admin, cap_net_admin;
	long long rtprio_soft, rtprio_hard; /* RLIMIT_RTPRIO; -1 = unlimited */
	enum doctor_tri sched_fifo;	/* a child could switch itself to SCHED_FIFO 1 */
	char *sched_fifo_error;		/* owned; why not (or why not tried) */
};

struct doctor_tracefs {
	char *mount;			/* owned; mount point, NULL when not mounted */
	bool mounted_by_doctor;		/* the doctor mounted it for this report */
	bool accessible;		/* its files could be read */
	bool writable;			/* its control files can be written by us */
	char *error;			/* owned; why it is absent or unusable, else NULL */
	char **tracers;			/* owned; available_tracers, NULL when unreadable */
	size_t ntracers;
	enum doctor_tri tracer[DOCTOR_TRACER_COUNT];
	enum doctor_tri sched_switch, sched_waking;
	enum doctor_tri hist;		/* hist triggers */
	enum doctor_tri instances;	/* an instance could be created and removed */
	char *instances_error;		/* owned; why not (or why not tried) */
};

/*
 * What keeps a runaway real-time task from starving the ordinary ones. Up
 * to 6.11, RT throttling: RT tasks get sched_rt_runtime_us of every
 * sched_rt_period_us, then wait for the period's end even when nothing else
 * waits. Since 6.12, the fair server: a per-CPU deadline server that runs
 * starved SCHED_OTHER tasks (50 ms per second by default), so RT tasks run
 * on when no ordinary task waits; sched_rt_runtime_us then only bounds
 * admission control (SCHED_DEADLINE, the fair servers included). A kernel
 * built with RT_GROUP_SCHED still throttles RT groups.
 */
enum doctor_rt_guard {
	DOCTOR_GUARD_UNKNOWN,
	DOCTOR_GUARD_THROTTLING,
	DOCTOR_GUARD_FAIR_SERVER,
};

struct doctor_sched {
	bool runtime_known, period_known;
	long long rt_runtime_us;	/* /proc/sys/kernel/sched_rt_runtime_us; -1 = no limit */
	long long rt_period_us;
	int kernel_major, kernel_minor;	/* from uname -r; 0 when unknown */
	enum doctor_rt_guard guard;
	bool guard_measured;		/* debugfs confirms it, not only the version */
	bool fair_server_dir;		/* debugfs sched/fair_server exists */
	unsigned int fair_server_cpus;	/* cpuN entries whose runtime and period were read */
	long long fair_runtime_ns;	/* the lowest CPU's; -1 unread */
	long long fair_period_ns;
	bool fair_server_uniform;	/* every CPU read has the same runtime and period */
	char *fair_server_error;	/* owned; why it could not be read, else NULL */
};

/*
 * Whether this kernel's preemption model can be switched while it runs
 * (debugfs sched/preempt on a PREEMPT_DYNAMIC kernel), as the latency
 * lab's --preempt would. The doctor reads, never writes: a write it
 * would have to undo is the lab's, through the journal.
 */
struct doctor_preempt {
	int stop;			/* enum rt_preempt_stop: where it stops; 0 readable */
	bool switchable;		/* readable, and the file is writable by us */
	char *current;			/* owned; the active model, NULL when unread */
	char *offered;			/* owned; the models listed, "none voluntary full lazy" */
	char *why;			/* owned; where and why it cannot be switched, else NULL */
};

struct doctor_cpus {
	unsigned int online;
	unsigned int allowed;		/* in our affinity mask (what nproc prints) */
	char *isolated;			/* owned; cpu list, "" for none, NULL when absent */
	char *nohz_full;		/* owned; likewise */
	bool dma_latency_present;	/* /dev/cpu_dma_latency */
	bool dma_latency_writable;
};

struct doctor_qemu {
	char *path;			/* owned; qemu-system-x86_64 in PATH, or NULL */
	char *version;			/* owned; e.g. "7.2.22", NULL if unknown */
	char *version_line;		/* owned; first line of --version */
	char *error;			/* owned; why it did not run, else NULL */
};

/*
 * KVM "works" only when a Linux kernel booted under it: nested hosts have run the test
 * guest (a few real-mode instructions) and then aborted QEMU or left a Linux guest silent.
 * The test guest comes first; the Linux guest is booted by the QEMU room
 * (rtlab/qemu/qemu_kvm.c), below the doctor, which asks it for its verdict.
 */
enum doctor_kvm_verdict {
	DOCTOR_KVM_NOT_PROBED,
	DOCTOR_KVM_WORKS,		/* a Linux guest booted under KVM */
	DOCTOR_KVM_ABSENT,
	DOCTOR_KVM_NO_PERMISSION,
	DOCTOR_KVM_HUNG,
	DOCTOR_KVM_FAILED,
	DOCTOR_KVM_NOT_PROVEN,		/* the test guest ran; no Linux guest was tried */
	DOCTOR_KVM_BOOT_FAILED,		/* the test guest ran; a Linux guest did not boot */
};

/*
 * "not-probed", "works", "absent", "no-permission", "hung", "failed", "not-proven",
 * "boot-failed"
 */
const char *doctor_kvm_verdict_name(enum doctor_kvm_verdict v);

/* A Linux guest booted under KVM, as the QEMU room reports it (qemu_kvm.h). */
struct doctor_kvm_boot {
	bool tried;			/* a verdict: measured now or earlier this boot */
	bool booted;			/* it reached rtlab's ready line */
	bool cached;			/* measured earlier in this host boot, read back */
	char *kernel;			/* owned; the image: "lab", "rt" or "stock", or NULL */
	char *release;			/* owned; the guest's uname -r, or NULL */
	char *cpu_model;		/* owned; the QEMU -cpu model that booted, or NULL */
	long boot_ms;			/* QEMU start to ready; -1 unknown */
	char *detail;			/* owned; why not tried, or how each model failed */
};

struct doctor_kvm {
	bool dev_present;		/* /dev/kvm exists */
	bool stand_in;			/* a stand-in file ($RTLAB_KVM_DEV, tests) */
	enum doctor_kvm_verdict verdict;
	enum doctor_kvm_verdict test_guest; /* the tiny test guest alone */
	int api_version;		/* KVM_GET_API_VERSION, -1 unknown */
	char *detail;			/* owned; the reason for a verdict other than works */
	struct doctor_kvm_boot linux_guest; /* when the test guest worked */
};

/* Free what @b owns and zero it (boot_ms -1). */
void doctor_kvm_boot_fini(struct doctor_kvm_boot *b);

struct doctor_net {
	char *ip_path;			/* owned; iproute2 `ip` in PATH, or NULL */
	enum doctor_tri netns;		/* a child could unshare(CLONE_NEWNET) */
	enum doctor_tri veth;		/* and create a veth pair inside it */
	char *error;			/* owned; why not (or why not tried) */
};

struct doctor_journals {
	char *dir;			/* owned; directory scanned, NULL when unknown */
	char *error;			/* owned; why the scan failed, else NULL */
	struct rt_journal_stale *stale;	/* owned; as found before any restore */
	size_t nstale;
	bool restore_attempted;		/* --restore was asked for */
	bool restore_ok;
	unsigned int restored;		/* journals replayed */
	char *restore_error;		/* owned */
};

enum doctor_tier {
	DOCTOR_TIER_HOST,
	DOCTOR_TIER_VM,
	DOCTOR_TIER_SIMULATION,
	DOCTOR_TIER_NONE,
};

/* "host", "vm", "simulation", "none" */
const char *doctor_tier_name(enum doctor_tier t);

/* "rt-prio", "trace-events", "lat-tracers", "qemu", "kvm", "netns", "preempt-rt" */
const char *doctor_need_name(unsigned int need);

struct doctor_missing {
	unsigned int need;		/* one LAB_NEED_* bit */
	bool required;			/* a need (blocks the host tier), not a want */
	char *what;			/* owned; what is missing, as measured */
	char *how;			/* owned; how to get it */
};

struct doctor_lab {
	const struct lab_ops *lab;	/* borrowed */
	enum doctor_tier tier;
	bool degraded;			/* host tier, but some wants are missing */
	char *reason;			/* owned; why this tier, one sentence */
	struct doctor_missing *missing;	/* owned; needs first, then wants */
	size_t nmissing;
};

struct doctor_opts {
	const char *root;		/* prefix for /proc, /sys, /dev, /boot; "" = live */
	const char *journal_dir;	/* NULL = rt_journal_default_dir() */
	bool active;			/* run the child probes (KVM, netns, qemu, SCHED_FIFO) */
	bool kvm_boot;			/* with active: may boot a Linux guest under KVM (up
					 * to 30 s, once per host boot); else only a verdict
					 * recorded earlier in this boot is reported */
	unsigned int active_needs;	/* with active: only the child probes that inform
					 * these LAB_NEED_* bits (default: all) */
	bool try_instance;		/* create and remove a tracefs instance (root) */
	bool mount_tracefs;		/* mount tracefs when absent (root) */
	bool scan_journals;
	bool restore;			/* replay stale journals first */
	unsigned int timeout_ms;	/* bound on each child */
};

struct doctor_report {
	struct rt_env env;		/* kernel, preemption, VM verdict, CPUs, root */
	struct doctor_vm vm;
	struct doctor_priv priv;
	struct doctor_tracefs tracefs;
	struct doctor_sched sched;
	struct doctor_preempt preempt;
	struct doctor_cpus cpus;
	struct doctor_qemu qemu;
	struct doctor_kvm kvm;
	struct doctor_net net;
	struct doctor_journals journals;
	struct doctor_lab *labs;	/* owned; one per lab_table entry */
	size_t nlabs;
	unsigned long duration_ms;	/* how long the probe took */
};

/* Options for the live system: everything measured, tracefs mounted if absent. */
void doctor_opts_init(struct doctor_opts *o);

/**
 * doctor_opts_quick - options for a front end about to run a lab
 * @o: filled (the caller's storage)
 * @lab: the lab to run, or NULL for all labs
 *
 * Measured facts without side effects (nothing mounted, no tracefs
 * instance, no journal scan) and, with @lab, only the child probes that
 * inform @lab's needs and wants: a latency run does not start a KVM guest
 * or qemu to learn its tier, and no run boots a Linux guest to prove KVM
 * (only a verdict kept earlier in this host boot counts).
 */
void doctor_opts_quick(struct doctor_opts *o, const struct lab_ops *lab);

/**
 * doctor_probe - measure the machine into @r and evaluate every lab
 * @r: the report; zeroed first. Release with doctor_report_fini().
 * @o: what to probe and where (see struct doctor_opts)
 * @cause: on failure, why
 *
 * Missing features are facts in the report, not failures. Every child is
 * bounded by @o->timeout_ms and killed by pid when late; nothing created
 * for a probe (tracefs instance, network namespace) outlives it. A failed
 * --restore is recorded in r->journals, not returned.
 *
 * Returns 0, or a negative errno when the report could not be built (memory).
 */
int doctor_probe(struct doctor_report *r, const struct doctor_opts *o, char **cause);

/* Free everything @r owns; @r is zeroed. NULL does nothing. */
void doctor_report_fini(struct doctor_report *r);

/**
 * doctor_eval_lab - decide where @lab can run given the facts in @r
 * @out: filled in; release with doctor_lab_fini()
 *
 * Pure: reads only @r and @lab. The tier is "simulation" for a sim_only
 * lab; else "host" when every need is met (each missing want is listed and
 * makes it degraded); else "simulation" when the lab has a simulated form,
 * "vm" when it runs live in the classroom VM, "none" otherwise. Each missing
 * need or want comes with what is missing and how to get it.
 *
 * Returns 0 or -ENOMEM.
 */
int doctor_eval_lab(const struct doctor_report *r, const struct lab_ops *lab,
		    struct doctor_lab *out);

/* Free what @l owns. */
void doctor_lab_fini(struct doctor_lab *l);

/**
 * doctor_eval_labs - evaluate every lab of the NULL-terminated @table into r->labs
 *
 * Replaces any previous evaluation. Returns 0 or -ENOMEM.
 */
int doctor_eval_labs(struct doctor_report *r, const struct lab_ops *const *table);

/**
 * doctor_render_json - append the "rtlab.doctor/1" document for @r to @out
 *
 * The document is described field by field in doc/doctor.md. Returns 0 or
 * -ENOMEM.
 */
int doctor_render_json(const struct doctor_report *r, struct rt_buf *out);

/**
 * doctor_render_text - append a checklist for people to @out
 *
 * Sections of "ok" / "--" (missing, not an error) / "!!" (needs attention)
 * lines, ending with the per-lab tier table. Returns 0 or -ENOMEM.
 */
int doctor_render_text(const struct doctor_report *r, struct rt_buf *out);

/*
 * doctor_schema - the JSON Schema (2020-12) of rtlab.doctor/1, made from
 * the keys doctor_keys.c declares. A new object, or NULL (ENOMEM).
 */
json_t *doctor_schema(void);

#endif
