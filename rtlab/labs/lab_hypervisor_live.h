/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_hypervisor_live: the hypervisor lab's live part (lab_hypervisor.h, lesson 07).
 *
 * One boot of the classroom VM with one vCPU carries every scenario: the
 * guest runs `rtlab vm stream --serve`, which waits on the virtio-serial
 * port rtlab.probe for a command, runs the latency probe and its workload
 * for the scenario's seconds and streams the results back (rt_hvstream).
 * Between commands the host sets the policy, priority and CPUs of QEMU's
 * threads: the vCPU thread (QMP query-cpus-fast), the main loop (the
 * process's first thread: under TCG it also fires the guest's timers) and
 * the I/O thread of the scratch disk (query-iothreads), each change through
 * the undo journal and read back from /proc. A watchdog puts the vCPU back
 * in the fair class when QEMU's main loop has waited for its CPU most of the
 * last few seconds, or the stream has been silent as long (HV_WATCH_* in
 * lab_hypervisor.h, which the lab's screen shows too). QEMU gets
 * SIGKILL when the thread that started it ends (PR_SET_PDEATHSIG), so
 * nothing of it outlives rtlab, and the journal forgets threads that died.
 */
#ifndef RTLAB_LABS_LAB_HV_LIVE_H
#define RTLAB_LABS_LAB_HV_LIVE_H

#include <stdbool.h>

#include "lab_hypervisor.h"

struct lab_ctx;
struct rt_result;
struct rt_sink;

/*
 * lab_hypervisor_live_run - the whole live run (hypervisor_params.live) into *@res
 *
 * Boots the guest through the QEMU room (qemu/qemu_run.h), runs the scenarios asked
 * and builds the document; sets *@interrupted when ctx->stop ended it early. Returns 0,
 * or a negative errno with @cause.
 */
int lab_hypervisor_live_run(struct lab_ctx *ctx, const struct rt_sink *sink,
			    const struct hypervisor_params *p, struct rt_result **res,
			    bool *interrupted, char **cause);

#endif
