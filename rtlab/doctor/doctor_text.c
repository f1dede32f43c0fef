/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * doctor_text: the report as a checklist for people. Each line starts with
 * a marker: "ok" (present, works), "--" (absent or degraded: a fact, not an
 * error; the labs say what it costs them) or "!!" (needs attention: a stale
 * journal, a hung guest, something left behind). No colour, so it reads the
 * same in a log, a pipe or a terminal. Every line is built from the report;
 * nothing is measured here.
 */
#include "doctor.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_journal.h"
#include "core/rt_preempt.h"
#include "core/rt_version.h"
#include "labs/lab.h"

#define OK "ok"
#define NO "--"
#define BAD "!!"

/* The renderer appends and remembers the first failure, so the code reads top-down. */
struct out {
	struct rt_buf *b;
	int err;
};

static void __attribute__((format(printf, 3, 4))) line(struct out *o, const char *mark,
							const char *fmt, ...)
{
	struct rt_buf tmp = RT_BUF_INIT;
	va_list ap;
	int ret;

	if (o->err)
		return;
	va_start(ap, fmt);
	ret = rt_buf_printf(&tmp, "  %-2s  ", mark ? mark : "");
	if (!ret) {
		char *s = NULL;

		if (vasprintf(&s, fmt, ap) < 0)
			ret = -ENOMEM;
		else
			ret = rt_buf_puts(&tmp, s);
		free(s);
	}
	va_end(ap);
	if (!ret)
		ret = rt_buf_puts(&tmp, "\n");
	if (!ret)
		ret = rt_buf_puts(o->b, rt_buf_str(&tmp));
	rt_buf_fini(&tmp);
	o->err = ret;
}

static void heading(struct out *o, const char *title)
{
	if (!o->err)
		o->err = rt_buf_printf(o->b, "\n%s\n", title);
}

static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

static const char *or_absent(const char *s)
{
	return s ? s : "absent";
}

static void kernel_section(struct out *o, const struct doctor_report *r)
{
	const struct rt_env *e = &r->env;

	heading(o, "Kernel");
	line(o, OK, "Linux %s on %s: %s", e->kernel_release, e->machine, e->kernel_version);
	if (e->realtime)
		line(o, OK, "preemption model: rt (PREEMPT_RT, from %s)", e->preempt_source);
	else if (e->preempt_dynamic && !strcmp(e->preempt_source,
					       "/sys/kernel/debug/sched/preempt"))
		line(o, NO, "preemption model: PREEMPT_DYNAMIC, currently %s (from %s; write "
		     "that file or boot with preempt=full to change it); not PREEMPT_RT",
		     e->preempt_model, e->preempt_source);
	else if (e->preempt_dynamic)
		line(o, NO, "preemption model: PREEMPT_DYNAMIC, %s at boot (from %s; the live "
		     "choice is in /sys/kernel/debug/sched/preempt; boot with preempt=full to "
		     "change it); not PREEMPT_RT", e->preempt_model, e->preempt_source);
	else
		line(o, NO, "preemption model: %s (from %s); not PREEMPT_RT", e->preempt_model,
		     e->preempt_source);
	if (r->preempt.switchable)
		line(o, OK, "preemption model switchable at run time: %s, offering %s (the "
		     "latency lab's --preempt MODEL switches it for a run, and back)",
		     RT_PREEMPT_FILE, r->preempt.offered);
	else
		line(o, NO, "preemption model not switchable at run time (%s): %s",
		     rt_preempt_stop_name((enum rt_preempt_stop)r->preempt.stop),
		     r->preempt.why ? r->preempt.why : "unknown");
	line(o, e->sys_kernel_realtime ? OK : NO, "/sys/kernel/realtime: %s",
	     e->sys_kernel_realtime ? "present" :
				      "absent (only Debian's 6.1 RT kernel has it)");
}

static void vm_section(struct out *o, const struct doctor_report *r)
{
	const struct doctor_vm *v = &r->vm;
	const char *bit = v->cpuid_hypervisor == DOCTOR_YES ? "set" :
			  v->cpuid_hypervisor == DOCTOR_NO ? "clear" : "not available";

	heading(o, "Virtualisation");
	if (r->env.in_vm)
		line(o, NO, "inside a virtual machine: %s (latencies include the host's)",
		     r->env.vm_type ? r->env.vm_type : "unknown");
	else
		line(o, OK, "bare metal: no sign of a hypervisor");
	if (r->env.virtual_time)
		line(o, NULL, "virtual time: the clock counts this guest's instructions (one "
		     "vCPU): latencies show the kernel's code paths, not the host (doc/vm.md)");
	line(o, NULL, "CPUID hypervisor bit %s%s%s%s", bit, v->cpuid_vendor ? ", vendor \"" : "",
	     v->cpuid_vendor ? v->cpuid_vendor : "", v->cpuid_vendor ? "\"" : "");
	line(o, NULL, "DMI vendor %s, product %s; /sys/hypervisor/type %s",
	     or_absent(v->dmi_sys_vendor), or_absent(v->dmi_product_name),
	     or_absent(v->hypervisor_type));
}

static void priv_section(struct out *o, const struct doctor_report *r)
{
	const struct doctor_priv *p = &r->priv;

	heading(o, "Privileges");
	line(o, p->root ? OK : NO, "%s (euid %u)", p->root ? "root" : "not root",
	     (unsigned int)p->euid);
	if (p->cap_known)
		line(o, p->cap_sys_nice && p->cap_sys_admin && p->cap_net_admin ? OK : NO,
		     "CAP_SYS_NICE %s, CAP_SYS_ADMIN %s, CAP_NET_ADMIN %s (CapEff %016llx)",
		     yes_no(p->cap_sys_nice), yes_no(p->cap_sys_admin), yes_no(p->cap_net_admin),
		     (unsigned long long)p->cap_eff);
	else
		line(o, NO, "effective capabilities unknown (CapEff unreadable)");
	line(o, NULL, "RLIMIT_RTPRIO soft %lld, hard %lld (-1 = unlimited)", p->rtprio_soft,
	     p->rtprio_hard);
	if (p->sched_fifo == DOCTOR_YES)
		line(o, OK, "SCHED_FIFO: a test process switched to SCHED_FIFO priority 1");
	else if (p->sched_fifo == DOCTOR_NO)
		line(o, p->root || p->cap_sys_nice ? BAD : NO, "SCHED_FIFO refused: %s",
		     p->sched_fifo_error);
	else
		line(o, NO, "SCHED_FIFO: %s", p->sched_fifo_error);
}

static void tracefs_section(struct out *o, const struct doctor_report *r)
{
	const struct doctor_tracefs *t = &r->tracefs;
	struct rt_buf have = RT_BUF_INIT, lack = RT_BUF_INIT;

	heading(o, "Tracing (tracefs)");
	if (!t->mount) {
		line(o, NO, "%s", t->error ? t->error : "tracefs is not mounted");
		return;
	}
	line(o, OK, "mounted at %s%s", t->mount,
	     t->mounted_by_doctor ? " (the doctor mounted it just now)" : "");
	if (!t->accessible) {
		line(o, NO, "%s", t->error ? t->error : "not readable");
		return;
	}
	line(o, t->writable ? OK : NO, "%s", t->writable ? "writable" : "read-only for this user");
	if (!o->err) {
		struct rt_buf all = RT_BUF_INIT;

		for (size_t i = 0; i < t->ntracers && !o->err; i++)
			o->err = rt_buf_printf(&all, "%s%s", i ? " " : "", t->tracers[i]);
		line(o, NULL, "available_tracers: %s", t->ntracers ? rt_buf_str(&all) : "(none)");
		rt_buf_fini(&all);
	}
	for (int i = 0; i < DOCTOR_TRACER_COUNT && !o->err; i++) {
		struct rt_buf *b = t->tracer[i] == DOCTOR_YES ? &have : &lack;

		o->err = rt_buf_printf(b, "%s%s", b->len ? " " : "", doctor_tracer_name(i));
	}
	if (have.len)
		line(o, OK, "tracers present: %s", rt_buf_str(&have));
	if (lack.len)
		line(o, NO, "tracers absent: %s", rt_buf_str(&lack));
	rt_buf_fini(&have);
	rt_buf_fini(&lack);
	line(o, t->sched_switch == DOCTOR_YES ? OK : NO, "event sched/sched_switch: %s",
	     t->sched_switch == DOCTOR_YES ? "present" : "absent");
	line(o, t->sched_waking == DOCTOR_YES ? OK : NO, "event sched/sched_waking: %s",
	     t->sched_waking == DOCTOR_YES ? "present" : "absent");
	line(o, t->hist == DOCTOR_YES ? OK : NO, "hist triggers: %s",
	     t->hist == DOCTOR_YES ? "present" :
	     t->hist == DOCTOR_NO ? "absent (CONFIG_HIST_TRIGGERS)" : "unknown (no event found)");
	if (t->instances == DOCTOR_YES)
		line(o, t->instances_error ? BAD : OK, "instances: %s",
		     t->instances_error ? t->instances_error :
					  "one was created and removed again");
	else
		line(o, NO, "instances: %s", t->instances == DOCTOR_NO ?
		     t->instances_error : t->instances_error ? t->instances_error : "unknown");
}

/* "kernel 6.18" from the release, or "this kernel" when it has no version. */
static void kernel_name(const struct doctor_sched *s, char *buf, size_t size)
{
	if (s->kernel_major)
		snprintf(buf, size, "kernel %d.%d", s->kernel_major, s->kernel_minor);
	else
		snprintf(buf, size, "this kernel");
}

static long long percent(long long part, long long whole)
{
	return whole > 0 ? part * 100 / whole : 0;
}

/* Up to 6.11: RT tasks are stopped after their runtime in every period. */
static void throttling_lines(struct out *o, const struct doctor_sched *s, const char *kname)
{
	if (!s->runtime_known || !s->period_known)
		line(o, NO, "RT throttling (%s, before 6.12), but sched_rt_runtime_us / "
		     "sched_rt_period_us are unreadable", kname);
	else if (s->rt_runtime_us < 0)
		line(o, OK, "RT throttling is off (sched_rt_runtime_us -1, %s, before 6.12): a "
		     "runaway RT task can starve the machine", kname);
	else if (s->rt_runtime_us == 0)
		line(o, BAD, "sched_rt_runtime_us 0 (%s, RT throttling): real-time tasks get no "
		     "CPU time", kname);
	else
		line(o, OK, "RT throttling (%s, before 6.12; %s): real-time tasks may use %lld us "
		     "of every %lld us (%lld%%), then wait for the period to end even when no "
		     "other task waits", kname, s->guard_measured ? "no fair server in debugfs "
		     "sched" : "inferred from the version", s->rt_runtime_us, s->rt_period_us,
		     percent(s->rt_runtime_us, s->rt_period_us));
}

/* Since 6.12: a deadline server per CPU runs starved SCHED_OTHER tasks. */
static void fair_server_lines(struct out *o, const struct doctor_sched *s, const char *kname)
{
	if (s->fair_server_cpus && s->fair_runtime_ns == 0)
		line(o, BAD, "fair server off (runtime 0 in debugfs sched/fair_server, %s): "
		     "nothing stops a runaway RT task from starving SCHED_OTHER tasks", kname);
	else if (s->fair_server_cpus)
		line(o, OK, "fair server (%s, since 6.12): each CPU runs waiting SCHED_OTHER "
		     "tasks for %lld us of every %lld us (%lld%%; debugfs sched/fair_server, %s)",
		     kname, s->fair_runtime_ns / 1000, s->fair_period_ns / 1000,
		     percent(s->fair_runtime_ns, s->fair_period_ns),
		     s->fair_server_uniform ? "the same on every CPU" :
					      "CPU-specific: the lowest CPU's shown");
	else if (s->guard_measured)
		line(o, OK, "fair server (%s, since 6.12; debugfs sched/fair_server is there but "
		     "unreadable: %s): by default each CPU runs waiting SCHED_OTHER tasks for "
		     "50000 us of every 1000000 us", kname,
		     s->fair_server_error ? s->fair_server_error : "no CPU entries");
	else
		line(o, OK, "fair server (%s, since 6.12; inferred from the version, debugfs "
		     "sched/fair_server not found): by default each CPU runs waiting SCHED_OTHER "
		     "tasks for 50000 us of every 1000000 us", kname);
	line(o, OK, "real-time tasks are not throttled while no SCHED_OTHER task waits "
	     "(a kernel built with RT_GROUP_SCHED still throttles RT groups)");
	if (!s->runtime_known || !s->period_known)
		line(o, NO, "sched_rt_runtime_us / sched_rt_period_us unreadable");
	else if (s->rt_runtime_us < 0)
		line(o, OK, "sched_rt_runtime_us -1: admission control sets no bound");
	else
		line(o, OK, "sched_rt_runtime_us %lld of sched_rt_period_us %lld (%lld%%) now only "
		     "bounds admission control: what SCHED_DEADLINE tasks, the fair servers "
		     "included, may reserve", s->rt_runtime_us, s->rt_period_us,
		     percent(s->rt_runtime_us, s->rt_period_us));
}

static void sched_section(struct out *o, const struct doctor_report *r)
{
	const struct doctor_sched *s = &r->sched;
	char kname[32];

	heading(o, "What stops a runaway real-time task");
	kernel_name(s, kname, sizeof(kname));
	switch (s->guard) {
	case DOCTOR_GUARD_THROTTLING:
		throttling_lines(o, s, kname);
		break;
	case DOCTOR_GUARD_FAIR_SERVER:
		fair_server_lines(o, s, kname);
		break;
	default:
		if (!s->runtime_known || !s->period_known)
			line(o, NO, "sched_rt_runtime_us / sched_rt_period_us unreadable");
		else
			line(o, NO, "sched_rt_runtime_us %lld of sched_rt_period_us %lld; the "
			     "kernel version is unknown, so whether they throttle RT tasks (before 6.12) "
			     "or only bound admission control (the fair server, since 6.12) is "
			     "too", s->rt_runtime_us, s->rt_period_us);
		break;
	}
}

static void cpus_section(struct out *o, const struct doctor_report *r)
{
	const struct doctor_cpus *c = &r->cpus;

	heading(o, "CPUs");
	line(o, OK, "%u online, %u in our affinity mask", c->online, c->allowed);
	line(o, c->isolated && *c->isolated ? OK : NO, "isolated CPUs: %s",
	     !c->isolated ? "unknown (no isolated file)" : *c->isolated ? c->isolated : "none");
	line(o, c->nohz_full && *c->nohz_full ? OK : NO, "nohz_full CPUs: %s",
	     !c->nohz_full ? "absent (kernel without CONFIG_NO_HZ_FULL)" :
	     *c->nohz_full ? c->nohz_full : "none");
	line(o, c->dma_latency_writable ? OK : NO, "/dev/cpu_dma_latency: %s",
	     !c->dma_latency_present ? "absent" :
	     c->dma_latency_writable ? "present, writable" : "present, not writable");
}

static void virt_section(struct out *o, const struct doctor_report *r)
{
	const struct doctor_qemu *q = &r->qemu;
	const struct doctor_kvm *k = &r->kvm;
	const struct doctor_kvm_boot *b = &k->linux_guest;
	const char *stand_in = k->stand_in ? " [stand-in device: $RTLAB_KVM_DEV]" : "";

	heading(o, "QEMU and KVM");
	if (!q->path)
		line(o, NO, "qemu-system-x86_64 not found in PATH");
	else if (q->error)
		line(o, BAD, "qemu-system-x86_64 (%s) does not run: %s", q->path, q->error);
	else
		line(o, OK, "qemu-system-x86_64 %s (%s)", q->version ? q->version : "(not run)",
		     q->path);
	switch (k->verdict) {
	case DOCTOR_KVM_WORKS:
		line(o, OK, "KVM works: a Linux guest (%s kernel %s) booted to rtlab in %ld ms "
		     "with -cpu %s%s (API %d)%s", b->kernel ? b->kernel : "?",
		     b->release ? b->release : "?", b->boot_ms, b->cpu_model ? b->cpu_model : "?",
		     b->cached ? ", measured earlier in this boot" : "", k->api_version, stand_in);
		break;
	case DOCTOR_KVM_NOT_PROVEN:
		line(o, NO, "KVM: not proven; %s (the test guest ran, API %d)%s", k->detail,
		     k->api_version, stand_in);
		break;
	case DOCTOR_KVM_BOOT_FAILED:
		line(o, BAD, "KVM cannot boot Linux here, so guests run under TCG: %s%s",
		     b->detail ? b->detail : k->detail, stand_in);
		break;
	case DOCTOR_KVM_ABSENT:
		line(o, NO, "KVM absent: %s", k->detail);
		break;
	case DOCTOR_KVM_HUNG:
	case DOCTOR_KVM_FAILED:
		line(o, BAD, "KVM %s: %s", doctor_kvm_verdict_name(k->verdict), k->detail);
		break;
	default:
		line(o, NO, "KVM %s: %s", doctor_kvm_verdict_name(k->verdict), k->detail);
		break;
	}
}

static void net_section(struct out *o, const struct doctor_report *r)
{
	const struct doctor_net *n = &r->net;

	heading(o, "Network namespaces");
	line(o, n->ip_path ? OK : NO, "ip (iproute2): %s", n->ip_path ? n->ip_path : "not found");
	if (n->netns == DOCTOR_YES)
		line(o, OK, "a child created a network namespace of its own");
	else
		line(o, NO, "network namespace: %s", n->error ? n->error : "unknown");
	if (n->veth == DOCTOR_YES)
		line(o, OK, "and a veth pair inside it (the host's network was not touched)");
	else if (n->netns == DOCTOR_YES)
		line(o, NO, "veth pair: %s", n->error ? n->error : "not tried");
}

static void journal_section(struct out *o, const struct doctor_report *r)
{
	const struct doctor_journals *j = &r->journals;

	heading(o, "Undo journals");
	if (j->error) {
		line(o, NO, "journals not checked: %s", j->error);
	} else if (!j->nstale) {
		line(o, OK, "no journals left by killed runs (in %s)", j->dir);
	} else {
		line(o, j->restore_attempted && j->restore_ok ? OK : BAD,
		     "%zu journal%s left by killed runs in %s:", j->nstale,
		     j->nstale == 1 ? "" : "s", j->dir);
		for (size_t i = 0; i < j->nstale; i++) {
			const struct rt_journal_stale *s = &j->stale[i];

			line(o, NULL, "  %s: pid %d, %zu change%s%s%s", s->path, (int)s->pid,
			     s->entries, s->entries == 1 ? "" : "s",
			     s->other_boot ? ", from before the last reboot (discarded)" : "",
			     s->corrupt ? ", unreadable (set aside)" : "");
		}
		if (!j->restore_attempted)
			line(o, BAD, "run `rtlab doctor --restore` to undo their changes");
	}
	if (!j->restore_attempted)
		return;
	if (j->restore_ok)
		line(o, OK, "--restore: %u journal%s replayed, the host is back as it was",
		     j->restored, j->restored == 1 ? "" : "s");
	else
		line(o, BAD, "--restore failed: %s", j->restore_error ? j->restore_error :
		     "unknown error");
}

static void labs_section(struct out *o, const struct doctor_report *r)
{
	heading(o, "Labs (where each can run on this machine)");
	for (size_t i = 0; i < r->nlabs && !o->err; i++) {
		const struct doctor_lab *l = &r->labs[i];
		const char *mark = l->tier == DOCTOR_TIER_NONE ? BAD :
				   l->tier == DOCTOR_TIER_HOST && !l->degraded ? OK : NO;
		char state[48];

		if (l->lab->state == LAB_STATE_PLANNED && l->lab->issue)
			snprintf(state, sizeof(state), "planned, issue #%u", l->lab->issue);
		else
			snprintf(state, sizeof(state), "%s", lab_state_name(l->lab->state));
		line(o, mark, "%-11s %-17s %s", l->lab->name,
		     l->degraded ? "host (degraded)" : doctor_tier_name(l->tier), state);
		line(o, NULL, "    %s: %s", l->lab->title, l->reason);
		for (size_t m = 0; m < l->nmissing; m++) {
			line(o, NULL, "    %s %s: %s", l->missing[m].required ? "need" : "want",
			     doctor_need_name(l->missing[m].need), l->missing[m].what);
			line(o, NULL, "      how: %s", l->missing[m].how);
		}
	}
}

int doctor_render_text(const struct doctor_report *r, struct rt_buf *b)
{
	struct out o = { .b = b, .err = 0 };

	o.err = rt_buf_printf(b, "rtlab doctor %s: what this machine offers the labs "
			      "(measured in %lu ms)\n"
			      "Marks: ok = present, -- = absent or degraded, "
			      "!! = needs attention.\n"
			      "Tiers and the classroom VM are explained in the README.\n",
			      RT_VERSION, r->duration_ms);
	kernel_section(&o, r);
	vm_section(&o, r);
	priv_section(&o, r);
	tracefs_section(&o, r);
	sched_section(&o, r);
	cpus_section(&o, r);
	virt_section(&o, r);
	net_section(&o, r);
	journal_section(&o, r);
	labs_section(&o, r);
	return o.err;
}
