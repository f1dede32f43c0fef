/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_hypervisor: the hypervisor lab's params (lab_hypervisor.c), shared with its screen
 * (ui/ui_lab_hypervisor.c) and its tests.
 */
#ifndef RTLAB_LABS_LAB_HV_H
#define RTLAB_LABS_LAB_HV_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/sim_hypervisor.h"

/* At most this many scenarios (the model's presets) per run. */
#define HV_MAX_SCENARIOS 16u

enum hypervisor_policy_choice { HV_POLICY_REFERENCE, HV_POLICY_NONE };

#define HV_NAME_MAX 32u

struct hypervisor_params {
	bool live;			/* --live: the QEMU guest */
	bool model;			/* --model: the model (the default) */
	unsigned int nscen;		/* 0: every scenario of the part */
	unsigned int scen[HV_MAX_SCENARIOS];	/* indices into sim_hypervisor_model.presets, or
						 * with --live into hypervisor_live_scenarios[] */
	char names[HV_MAX_SCENARIOS][HV_NAME_MAX + 1];	/* as given, resolved by params_check */
	unsigned int nnames;
	unsigned int duration_ms;	/* per scenario; 0: 2 s (model), 5 s (live) */
	int policy;			/* enum hypervisor_policy_choice, for the pv scenarios */
	int kernel;			/* --kernel, live: enum hypervisor_kernel_choice */
	int accel;			/* --accel, live: enum hypervisor_accel_choice */
	unsigned int halt_poll_ns;	/* --halt-poll-ns, live under KVM */
	bool halt_poll_set;
	unsigned int fair_share_ms;	/* --fair-share-ms: what fair threads keep of every
					 * second beside FIFO ones (RT throttling) */
	bool fair_share_set;
	unsigned int vcpu_prio;		/* the vCPU threads' FIFO priority in the live
					 * scenarios that raise them (10) */
};

enum hypervisor_kernel_choice { HV_KERNEL_RT, HV_KERNEL_LAB, HV_KERNEL_STOCK };
enum hypervisor_accel_choice { HV_ACCEL_AUTO, HV_ACCEL_KVM, HV_ACCEL_TCG };

/*
 * The live part's watchdog (lab_hypervisor_live.c): a window, the share of it
 * QEMU's main loop may wait runnable before the vCPU is put back, and the
 * longest silence of the guest's stream.
 */
#define HV_WATCH_WINDOW_MS 3000u
#define HV_WATCH_WAIT_PCT 90u
#define HV_WATCH_SILENCE_MS 3000u

/*
 * A scenario of the live part: what the host and the guest do. The host
 * threads are QEMU's: its vCPU threads, its main loop (the process's first
 * thread: timers, the virtio-serial and console back ends) and its I/O
 * thread (-object iothread, serving the scratch disk). Pinned: the vCPU
 * and those two threads all on the host's last CPU, so that they compete.
 */
struct hypervisor_live_scenario {
	const char *name;
	const char *summary;
	bool on_host;			/* the probe on the host, no guest */
	bool host_load;			/* the latency lab's cpu load on every host CPU */
	int vcpu_policy, vcpu_prio;	/* vcpu_prio 0 with FIFO: hypervisor_params.vcpu_prio */
	bool pin;
	int io_policy, io_prio;		/* QEMU's main loop and I/O thread */
	bool io_above;			/* FIFO one above the vCPU (io_prio unused) */
	int guest_policy, guest_prio;	/* the probe inside the guest */
	unsigned int guest_load;	/* HV_LOAD_* bits */
	bool watchdog;			/* expected to starve QEMU's threads: watched */
	bool needs_preempt_rt;		/* runs only on a PREEMPT_RT host */
	const char *model_only;		/* not live: why, and how to see it */
};

extern const struct hypervisor_live_scenario hypervisor_live_scenarios[];
extern const unsigned int hypervisor_live_nscenarios;

/*
 * What the lab keeps current for a screen between chunks of the model
 * (ctx->live): the scenario running and its counters so far. The numbers
 * are written with relaxed atomics, the name before the scenario starts.
 */
struct hypervisor_live {
	char scenario[33];
	unsigned int index, total;	/* the scenario's place in the run, from 1 */
	uint64_t time_us, jobs, misses, resp_max_us, host_wait_max_us, starved, boosted_us;
	uint32_t bound_us;
	/*
	 * The live part (is_live): time_us is the guest probe's seconds, jobs its
	 * samples, resp_max_us its worst latency so far, last_max_us that of its
	 * last second, host_wait_max_us QEMU's main loop's longest run-queue
	 * wait in a watchdog window, starved 1 once the watchdog fired. The
	 * strings are written before the scenario starts, and knobs once more
	 * when the watchdog fires: a screen may draw one torn line then (the
	 * last byte stays NUL, so never past it).
	 */
	bool is_live;
	uint64_t last_max_us, avg_us;
	char knobs[120];		/* e.g. "vCPU FIFO 10 on CPU 1, QEMU threads OTHER" */
	char accel[40];			/* "TCG (emulated CPU)" or "KVM" */
};

/* hypervisor_params_init - the defaults: the model, every scenario, 2 s each, the
 * reference policy */
void hypervisor_params_init(struct hypervisor_params *p);


#endif /* RTLAB_LABS_LAB_HV_H */
