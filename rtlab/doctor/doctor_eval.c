/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * doctor_eval: from measured facts to a tier per lab. Pure: it reads a
 * report and a lab descriptor and nothing else, so the tests build reports
 * by hand. Each unmet need or want gets two sentences: what is missing, as
 * measured, and how to get it. Hints name only things that exist today:
 * Debian packages, kernel options, `rtlab doctor`, and the README for the
 * classroom VM.
 */
#include "doctor.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "doctor_int.h"
#include "labs/lab.h"

#define HINT_VM "the classroom VM's lab kernel has them (see the README)"

struct gap {
	char *what;
	char *how;
};

static int gap_set(struct gap *g, const char *what, const char *how)
{
	int ret = doctor_dup_str(&g->what, what);

	return ret ? ret : doctor_dup_str(&g->how, how);
}

/* How to get tracefs usable, depending on who we are. */
static const char *tracefs_how(const struct doctor_report *r)
{
	const struct doctor_tracefs *t = &r->tracefs;

	if (!t->mount && (r->priv.root || r->priv.cap_sys_admin))
		return "mount it: `mount -t tracefs nodev /sys/kernel/tracing` "
		       "(the kernel needs CONFIG_TRACING)";
	if (!t->mount)
		return "run with sudo (`rtlab doctor` mounts tracefs when it is absent), or "
		       "`sudo mount -t tracefs nodev /sys/kernel/tracing`";
	return "run with sudo: tracefs is readable and writable only by root";
}

static int check_rt_prio(const struct doctor_report *r, struct gap *g)
{
	const struct doctor_priv *p = &r->priv;
	bool allowed = p->root || p->cap_sys_nice || p->rtprio_soft != 0;
	char *what = NULL;
	int ret;

	if (r->sched.runtime_known && r->sched.rt_runtime_us == 0)
		return gap_set(g, "RT throttling gives real-time tasks no CPU time "
			       "(sched_rt_runtime_us = 0)",
			       "as root: `sysctl kernel.sched_rt_runtime_us=950000`");
	if (p->sched_fifo == DOCTOR_YES)
		return 0;
	if (!allowed)
		return gap_set(g, "not root and no CAP_SYS_NICE (and RLIMIT_RTPRIO is 0)",
			       "run with sudo, or `setcap cap_sys_nice+ep rtlab`");
	if (p->sched_fifo != DOCTOR_NO)
		return 0;
	if (doctor_set_str(&what, "SCHED_FIFO was refused although allowed (%s)",
			   p->sched_fifo_error ? p->sched_fifo_error : "no reason given"))
		return -ENOMEM;
	ret = gap_set(g, what, "real-time group scheduling may leave this cgroup no RT "
		      "runtime: give it some (cpu.rt_runtime_us), or run outside that cgroup");
	free(what);
	return ret;
}

static int check_trace_events(const struct doctor_report *r, struct gap *g)
{
	const struct doctor_tracefs *t = &r->tracefs;
	char *what = NULL;
	int ret;

	if (!t->mount || !t->accessible)
		return gap_set(g, t->error ? t->error : "tracefs is not usable", tracefs_how(r));
	if (!t->writable) {
		if (doctor_set_str(&what, "tracefs at %s is read-only for this user", t->mount))
			return -ENOMEM;
		ret = gap_set(g, what, tracefs_how(r));
		free(what);
		return ret;
	}
	if (t->sched_switch == DOCTOR_YES && t->sched_waking == DOCTOR_YES)
		return 0;
	if (t->sched_switch != DOCTOR_YES && t->sched_waking != DOCTOR_YES)
		ret = doctor_set_str(&what, "the trace events sched/sched_switch and "
				     "sched/sched_waking are missing");
	else
		ret = doctor_set_str(&what, "the trace event %s is missing",
				     t->sched_switch != DOCTOR_YES ? "sched/sched_switch" :
								     "sched/sched_waking");
	if (ret)
		return ret;
	ret = gap_set(g, what, "this kernel was built without scheduler trace events; " HINT_VM);
	free(what);
	return ret;
}

static int check_lat_tracers(const struct doctor_report *r, struct gap *g)
{
	static const struct {
		enum doctor_tracer tracer;
		const char *config;
	} lat[] = {
		{ DOCTOR_TRACER_IRQSOFF, "CONFIG_IRQSOFF_TRACER" },
		{ DOCTOR_TRACER_PREEMPTOFF, "CONFIG_PREEMPT_TRACER" },
		{ DOCTOR_TRACER_WAKEUP_RT, "CONFIG_SCHED_TRACER" },
	};
	const struct doctor_tracefs *t = &r->tracefs;
	struct rt_buf what = RT_BUF_INIT, how = RT_BUF_INIT;
	int ret = 0, nmissing = 0;

	if (!t->accessible) {
		if (doctor_set_str(&g->what, "the latency tracers could not be checked: %s",
				   t->error ? t->error : "tracefs is not usable"))
			return -ENOMEM;
		return doctor_dup_str(&g->how, tracefs_how(r));
	}
	for (size_t i = 0; i < sizeof(lat) / sizeof(lat[0]); i++) {
		if (t->tracer[lat[i].tracer] == DOCTOR_YES)
			continue;
		ret |= rt_buf_puts(&what, nmissing ? "/" : "no ");
		ret |= rt_buf_puts(&what, doctor_tracer_name(lat[i].tracer));
		ret |= rt_buf_puts(&how, nmissing ? "/" : "this kernel lacks ");
		ret |= rt_buf_puts(&how, lat[i].config);
		nmissing++;
	}
	if (nmissing) {
		ret |= rt_buf_puts(&what, nmissing > 1 ? " tracers" : " tracer");
		ret |= rt_buf_puts(&how, "; " HINT_VM);
		if (!ret)
			ret = gap_set(g, rt_buf_str(&what), rt_buf_str(&how));
	}
	rt_buf_fini(&what);
	rt_buf_fini(&how);
	return ret ? -ENOMEM : 0;
}

static int check_qemu(const struct doctor_report *r, struct gap *g)
{
	const struct doctor_qemu *q = &r->qemu;

	if (!q->path)
		return gap_set(g, "qemu-system-x86_64 not found",
			       "apt-get install qemu-system-x86");
	if (!q->error)
		return 0;
	if (doctor_set_str(&g->what, "qemu-system-x86_64 (%s) does not run: %s", q->path,
			   q->error))
		return -ENOMEM;
	return doctor_dup_str(&g->how, "reinstall it: apt-get install --reinstall "
			      "qemu-system-x86");
}

static int check_kvm(const struct doctor_report *r, struct gap *g)
{
	const struct doctor_kvm *k = &r->kvm;
	const char *detail = k->detail ? k->detail : "no reason given";

	switch (k->verdict) {
	case DOCTOR_KVM_WORKS:
		return 0;
	case DOCTOR_KVM_ABSENT:
		return gap_set(g, "/dev/kvm absent",
			       "guests run under TCG emulation; enable virtualisation "
			       "(kvm_intel/kvm_amd, nested=1 on a VM host)");
	case DOCTOR_KVM_NO_PERMISSION:
		if (doctor_set_str(&g->what, "no permission to use /dev/kvm (%s)", detail))
			return -ENOMEM;
		return doctor_dup_str(&g->how, "add the user to the kvm group "
				      "(`adduser $USER kvm`), or run with sudo");
	case DOCTOR_KVM_HUNG:
		if (doctor_set_str(&g->what, "a KVM test guest hung: %s", detail))
			return -ENOMEM;
		return doctor_dup_str(&g->how, "guests run under TCG emulation; nested KVM "
				      "on this VM host is broken (check nested=1 and the "
				      "host's kernel)");
	case DOCTOR_KVM_FAILED:
		if (doctor_set_str(&g->what, "a KVM test guest failed: %s", detail))
			return -ENOMEM;
		return doctor_dup_str(&g->how, "guests run under TCG emulation; see `dmesg` "
				      "for kvm errors");
	case DOCTOR_KVM_NOT_PROVEN:
		if (doctor_set_str(&g->what, "KVM not proven: %s", detail))
			return -ENOMEM;
		return doctor_dup_str(&g->how, "build the VM images (make vm), then run "
				      "`rtlab doctor`: it boots a Linux guest under KVM once per "
				      "boot; until then guests run under TCG emulation");
	case DOCTOR_KVM_BOOT_FAILED:
		if (doctor_set_str(&g->what, "KVM cannot boot a Linux guest: %s", detail))
			return -ENOMEM;
		return doctor_dup_str(&g->how, "guests run under TCG emulation; nested KVM on "
				      "this VM host aborts QEMU or hangs a real kernel (check "
				      "nested=1 and the host's kernel and QEMU)");
	case DOCTOR_KVM_NOT_PROBED:
		break;
	}
	return gap_set(g, "KVM was not probed", "run `rtlab doctor`: it starts a tiny test guest "
		       "and boots a Linux guest under KVM");
}

static int check_netns(const struct doctor_report *r, struct gap *g)
{
	const struct doctor_net *n = &r->net;
	const char *err = n->error ? n->error : "no reason given";
	bool admin = r->priv.root || (r->priv.cap_sys_admin && r->priv.cap_net_admin);

	if (n->netns == DOCTOR_NO) {
		if (doctor_set_str(&g->what, "cannot create a network namespace: %s", err))
			return -ENOMEM;
		return doctor_dup_str(&g->how, admin ?
				      "this kernel may lack CONFIG_NET_NS; the classroom VM "
				      "has it (see the README)" :
				      "run with sudo (it needs CAP_SYS_ADMIN and CAP_NET_ADMIN)");
	}
	if (!n->ip_path)
		return gap_set(g, "iproute2's `ip` not found", "apt-get install iproute2");
	if (n->veth == DOCTOR_NO) {
		if (doctor_set_str(&g->what, "cannot create a veth pair in a network "
				   "namespace: %s", err))
			return -ENOMEM;
		return doctor_dup_str(&g->how, "this kernel may lack CONFIG_VETH "
				      "(`modprobe veth`); the classroom VM has it "
				      "(see the README)");
	}
	if (n->netns == DOCTOR_YES && n->veth == DOCTOR_YES)
		return 0;
	if (doctor_set_str(&g->what, "network namespaces were not probed: %s", err))
		return -ENOMEM;
	return doctor_dup_str(&g->how, "run `rtlab doctor` as root");
}

static int check_preempt_rt(const struct doctor_report *r, struct gap *g)
{
	const struct rt_env *e = &r->env;

	if (e->realtime)
		return 0;
	if (doctor_set_str(&g->what, "the running kernel is not PREEMPT_RT (preemption model "
			   "%s, from %s)", e->preempt_model ? e->preempt_model : "unknown",
			   e->preempt_source ? e->preempt_source : "nowhere"))
		return -ENOMEM;
	return doctor_dup_str(&g->how, "boot a PREEMPT_RT kernel (Debian: apt-get install "
			      "linux-image-rt-amd64), or use the classroom VM (see the README)");
}

/* Fill @g when @need is not met. */
static int check_need(const struct doctor_report *r, unsigned int need, struct gap *g)
{
	switch (need) {
	case LAB_NEED_RT_PRIO:
		return check_rt_prio(r, g);
	case LAB_NEED_TRACE_EVENTS:
		return check_trace_events(r, g);
	case LAB_NEED_LAT_TRACERS:
		return check_lat_tracers(r, g);
	case LAB_NEED_QEMU:
		return check_qemu(r, g);
	case LAB_NEED_KVM:
		return check_kvm(r, g);
	case LAB_NEED_NETNS:
		return check_netns(r, g);
	case LAB_NEED_PREEMPT_RT:
		return check_preempt_rt(r, g);
	}
	return gap_set(g, "an unknown requirement", "update rtlab");
}

/* Append the names of @l's missing items with @required to @b, "a, b". */
static int list_names(struct rt_buf *b, const struct doctor_lab *l, bool required)
{
	int ret = 0, n = 0;

	for (size_t i = 0; i < l->nmissing; i++) {
		if (l->missing[i].required != required)
			continue;
		ret |= rt_buf_puts(b, n++ ? ", " : "");
		ret |= rt_buf_puts(b, doctor_need_name(l->missing[i].need));
	}
	return ret ? -ENOMEM : 0;
}

static int set_reason(struct doctor_lab *out, const struct doctor_report *r,
		      const struct lab_ops *lab)
{
	struct rt_buf b = RT_BUF_INIT;
	int ret = 0;

	switch (out->tier) {
	case DOCTOR_TIER_HOST:
		if (!out->degraded) {
			ret = rt_buf_puts(&b, "runs live here with everything it uses");
			break;
		}
		ret = rt_buf_puts(&b, "runs live here, degraded: without ");
		ret = ret ? ret : list_names(&b, out, false);
		break;
	case DOCTOR_TIER_SIMULATION:
		if (lab->sim_only) {
			ret = rt_buf_puts(&b, "simulation only: the hardware this lab is about "
					  "is absent here, so it runs as a model");
			break;
		}
		ret = rt_buf_puts(&b, "its live form needs ");
		ret = ret ? ret : list_names(&b, out, true);
		ret = ret ? ret : rt_buf_puts(&b, ", missing here; it runs as a simulation");
		break;
	case DOCTOR_TIER_VM:
		ret = rt_buf_puts(&b, "its live form needs ");
		ret = ret ? ret : list_names(&b, out, true);
		ret = ret ? ret : rt_buf_puts(&b, ", missing here; it runs live in the "
					      "classroom VM (see the README)");
		if (!ret && !r->qemu.path)
			ret = rt_buf_puts(&b, ", which needs qemu-system-x86_64 "
					  "(apt-get install qemu-system-x86)");
		break;
	case DOCTOR_TIER_NONE:
		ret = rt_buf_puts(&b, "it needs ");
		ret = ret ? ret : list_names(&b, out, true);
		ret = ret ? ret : rt_buf_puts(&b, ", missing here, and has no simulated form");
		break;
	}
	if (!ret && !(out->reason = rt_buf_take(&b)))
		ret = -ENOMEM;
	rt_buf_fini(&b);
	return ret ? -ENOMEM : 0;
}

/* Check every bit of @mask; append the unmet ones to @out as @required. */
static int add_missing(struct doctor_lab *out, const struct doctor_report *r,
		       unsigned int mask, bool required, bool *any)
{
	for (unsigned int bit = 0; bit < LAB_NEED_COUNT; bit++) {
		unsigned int need = 1u << bit;
		struct gap g = { NULL, NULL };
		struct doctor_missing *m;
		int ret;

		if (!(mask & need))
			continue;
		ret = check_need(r, need, &g);
		if (!ret && !g.what)
			continue;
		if (!ret) {
			m = realloc(out->missing, (out->nmissing + 1) * sizeof(*m));
			ret = m ? 0 : -ENOMEM;
		}
		if (ret) {
			free(g.what);
			free(g.how);
			return ret;
		}
		out->missing = m;
		m[out->nmissing++] = (struct doctor_missing){
			.need = need, .required = required, .what = g.what, .how = g.how,
		};
		*any = true;
	}
	return 0;
}

int doctor_eval_lab(const struct doctor_report *r, const struct lab_ops *lab,
		    struct doctor_lab *out)
{
	bool needs_missing = false, wants_missing = false;
	int ret;

	memset(out, 0, sizeof(*out));
	out->lab = lab;
	ret = add_missing(out, r, lab->needs, true, &needs_missing);
	if (!ret)
		ret = add_missing(out, r, lab->wants & ~lab->needs, false, &wants_missing);
	if (ret)
		goto out_fail;

	if (lab->sim_only)
		out->tier = DOCTOR_TIER_SIMULATION;
	else if (!needs_missing)
		out->tier = DOCTOR_TIER_HOST;
	else if (lab->sim)
		out->tier = DOCTOR_TIER_SIMULATION;
	else if (lab->vm_live)
		out->tier = DOCTOR_TIER_VM;
	else
		out->tier = DOCTOR_TIER_NONE;
	out->degraded = out->tier == DOCTOR_TIER_HOST && wants_missing;
	ret = set_reason(out, r, lab);
	if (ret)
		goto out_fail;
	return 0;

out_fail:
	doctor_lab_fini(out);
	return ret;
}

void doctor_lab_fini(struct doctor_lab *l)
{
	for (size_t i = 0; i < l->nmissing; i++) {
		free(l->missing[i].what);
		free(l->missing[i].how);
	}
	free(l->missing);
	free(l->reason);
	memset(l, 0, sizeof(*l));
}

int doctor_eval_labs(struct doctor_report *r, const struct lab_ops *const *table)
{
	struct doctor_lab *labs;
	size_t n = 0;

	while (table[n])
		n++;
	labs = calloc(n ? n : 1, sizeof(*labs));
	if (!labs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		int ret = doctor_eval_lab(r, table[i], &labs[i]);

		if (ret) {
			while (i--)
				doctor_lab_fini(&labs[i]);
			free(labs);
			return ret;
		}
	}
	for (size_t i = 0; i < r->nlabs; i++)
		doctor_lab_fini(&r->labs[i]);
	free(r->labs);
	r->labs = labs;
	r->nlabs = n;
	return 0;
}
