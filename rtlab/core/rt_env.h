/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_env: the facts about the running system that every results document
 * records and that the doctor reports first: kernel, preemption model,
 * whether we run inside a virtual machine, CPU count, privilege.
 *
 * Everything is measured (uname, /sys/kernel/realtime, debugfs
 * sched/preempt, the kernel config when readable, CPUID), never assumed.
 */
#ifndef RTLAB_CORE_RT_ENV_H
#define RTLAB_CORE_RT_ENV_H

#include <stdbool.h>

/* The kernel parameter `rtlab vm` boots a virtual-time guest with (qemu_cmdline.h). */
#define RT_ENV_VIRTUAL_TIME_WORD "rtlab.time=virtual"

struct rt_env {
	char *kernel_release;	/* owned; uname -r */
	char *kernel_version;	/* owned; uname -v, e.g. "#1 SMP PREEMPT_RT ..." */
	char *machine;		/* owned; uname -m */
	char *preempt_model;	/* owned; "none", "voluntary", "full", "lazy", "rt", or "unknown" */
	char *preempt_source;	/* owned; where preempt_model came from, e.g. "uname -v" */
	bool preempt_dynamic;	/* PREEMPT_DYNAMIC: the model is chosen at boot (preempt=) */
	bool realtime;		/* PREEMPT_RT kernel (uname -v says PREEMPT_RT or, in older
				 * patch-set kernels, PREEMPT RT; or /sys/kernel/realtime = 1) */
	bool sys_kernel_realtime; /* /sys/kernel/realtime exists (Debian's 6.1 RT kernel) */
	bool in_vm;		/* CPUID hypervisor bit or DMI says virtual */
	char *vm_type;		/* owned; e.g. "KVM", "QEMU TCG", "unknown", or NULL when !in_vm */
	bool classroom_vm;	/* rtlab's classroom VM image (its /etc/rtlab-vm/kernel) */
	bool virtual_time;	/* booted in virtual time: RT_ENV_VIRTUAL_TIME_WORD on the
				 * kernel command line (the guest's clock counts its
				 * instructions; `rtlab vm run --time`) */
	unsigned int cpus;	/* online CPUs */
	bool root;		/* effective uid 0 */
};

/**
 * rt_env_probe - measure the running system into @env
 *
 * Fields that cannot be measured are set to "unknown" (strings) or false.
 * Returns 0 or -ENOMEM. Release with rt_env_fini().
 */
int rt_env_probe(struct rt_env *env);

/* Is this a virtual-time guest (env.virtual_time), without the whole probe? */
bool rt_env_virtual_time(void);

/* Free the strings in @env; @env may then be probed again. */
void rt_env_fini(struct rt_env *env);

#endif
