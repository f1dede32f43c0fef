/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * doctor: runs the probes in an order that keeps the picture true. Stale
 * journals are handled first, because a run killed mid-lab may have left a
 * tracer or a knob changed that --restore puts back before we look at it.
 * Privileges come before tracefs, since whether we may mount it or create an
 * instance depends on them. The labs are evaluated last, from the facts
 * alone.
 */
#include "doctor.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_child.h"
#include "core/rt_err.h"
#include "core/rt_journal.h"
#include "core/rt_time.h"
#include "doctor_int.h"
#include "doctor_parse.h"
#include "doctor_probe.h"
#include "labs/lab.h"
#include "qemu/qemu_kvm_guest.h"

/* ---- Helpers shared by the doctor's files (doctor_int.h) ----------------- */

int doctor_set_str(char **dst, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

int doctor_dup_str(char **dst, const char *src)
{
	free(*dst);
	*dst = NULL;
	if (!src)
		return 0;
	*dst = strdup(src);
	return *dst ? 0 : -ENOMEM;
}

int doctor_describe_child(char **dst, const char *what, const struct rt_child_result *res,
			  unsigned int timeout_ms)
{
	char *line = doctor_first_line(res->out);
	int ret;

	if (!line)
		return -ENOMEM;
	switch (res->end) {
	case RT_CHILD_TIMEOUT:
		ret = doctor_set_str(dst, "%s did not finish within %u ms%s", what, timeout_ms,
				     res->unreaped ? " and could not be killed" : "");
		break;
	case RT_CHILD_SIGNALED:
		ret = doctor_set_str(dst, "%s was killed by signal %d", what, res->code);
		break;
	default:
		ret = doctor_set_str(dst, "%s exited with status %d%s%s", what, res->code,
				     *line ? ": " : "", line);
		break;
	}
	free(line);
	return ret;
}

/* ---- Names ---------------------------------------------------------------- */

const char *doctor_kvm_verdict_name(enum doctor_kvm_verdict v)
{
	switch (v) {
	case DOCTOR_KVM_NOT_PROBED:
		return "not-probed";
	case DOCTOR_KVM_WORKS:
		return "works";
	case DOCTOR_KVM_ABSENT:
		return "absent";
	case DOCTOR_KVM_NO_PERMISSION:
		return "no-permission";
	case DOCTOR_KVM_HUNG:
		return "hung";
	case DOCTOR_KVM_FAILED:
		return "failed";
	case DOCTOR_KVM_NOT_PROVEN:
		return "not-proven";
	case DOCTOR_KVM_BOOT_FAILED:
		return "boot-failed";
	}
	return "?";
}

const char *doctor_tier_name(enum doctor_tier t)
{
	switch (t) {
	case DOCTOR_TIER_HOST:
		return "host";
	case DOCTOR_TIER_VM:
		return "vm";
	case DOCTOR_TIER_SIMULATION:
		return "simulation";
	case DOCTOR_TIER_NONE:
		return "none";
	}
	return "?";
}

const char *doctor_need_name(unsigned int need)
{
	switch (need) {
	case LAB_NEED_RT_PRIO:
		return "rt-prio";
	case LAB_NEED_TRACE_EVENTS:
		return "trace-events";
	case LAB_NEED_LAT_TRACERS:
		return "lat-tracers";
	case LAB_NEED_QEMU:
		return "qemu";
	case LAB_NEED_KVM:
		return "kvm";
	case LAB_NEED_NETNS:
		return "netns";
	case LAB_NEED_PREEMPT_RT:
		return "preempt-rt";
	}
	return "?";
}

/* ---- Journals ------------------------------------------------------------- */

int doctor_probe_journals(struct doctor_journals *j, const char *dir, bool restore)
{
	char *cause = NULL;
	int ret;

	memset(j, 0, sizeof(*j));
	j->dir = dir ? strdup(dir) : rt_journal_default_dir();
	if (!j->dir) {
		if (errno == ENOMEM && dir)
			return -ENOMEM;
		ret = doctor_set_str(&j->error, "no journal directory: %s", strerror(errno));
		if (ret)
			return ret;
	} else {
		ret = rt_journal_scan(j->dir, &j->stale, &j->nstale, &cause);
		if (ret < 0) {
			j->stale = NULL;
			j->nstale = 0;
			ret = doctor_set_str(&j->error, "%s", cause ? cause : strerror(-ret));
			free(cause);
			cause = NULL;
			if (ret)
				return ret;
		}
	}
	if (!restore)
		return 0;
	j->restore_attempted = true;
	ret = rt_journal_recover(j->dir, &j->restored, &cause);
	j->restore_ok = ret == 0;
	if (ret < 0)
		ret = doctor_set_str(&j->restore_error, "%s", cause ? cause : strerror(-ret));
	free(cause);
	return ret;
}

void doctor_journals_fini(struct doctor_journals *j)
{
	free(j->dir);
	free(j->error);
	rt_journal_stale_free(j->stale, j->nstale);
	free(j->restore_error);
	memset(j, 0, sizeof(*j));
}

/* ---- The whole report ----------------------------------------------------- */

void doctor_opts_init(struct doctor_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->root = "";
	o->active = true;
	o->active_needs = ~0u;
	o->kvm_boot = true;
	o->try_instance = true;
	o->mount_tracefs = true;
	o->scan_journals = true;
	o->timeout_ms = DOCTOR_TIMEOUT_MS;
}

void doctor_opts_quick(struct doctor_opts *o, const struct lab_ops *lab)
{
	doctor_opts_init(o);
	if (lab)
		o->active_needs = lab->needs | lab->wants;
	o->kvm_boot = false;
	o->try_instance = false;
	o->mount_tracefs = false;
	o->scan_journals = false;
}

/* Whether the child probe that informs @needs runs (a skipped one reads "not tried"). */
static bool child_for(const struct doctor_opts *o, unsigned int needs)
{
	return o->active && (o->active_needs & needs);
}

int doctor_probe(struct doctor_report *r, const struct doctor_opts *o, char **cause)
{
	const char *root = o->root ? o->root : "";
	unsigned int timeout = o->timeout_ms ? o->timeout_ms : DOCTOR_TIMEOUT_MS;
	bool live = !*root;
	uint64_t start = rt_time_now_ms();
	char *kvm_dev = NULL;
	const char *step;
	int ret;

	memset(r, 0, sizeof(*r));

	step = "journals";
	if (o->scan_journals)
		ret = doctor_probe_journals(&r->journals, o->journal_dir, o->restore);
	else
		ret = doctor_set_str(&r->journals.error, "not scanned");
	if (ret)
		goto out_fail;
	/* The kernel facts are always the running kernel's (uname). */
	step = "kernel";
	ret = rt_env_probe(&r->env);
	if (ret)
		goto out_fail;
	step = "vm";
	ret = doctor_probe_vm(&r->vm, root, live);
	if (ret)
		goto out_fail;
	step = "privileges";
	ret = doctor_probe_priv(&r->priv, root, child_for(o, LAB_NEED_RT_PRIO), timeout);
	if (ret)
		goto out_fail;
	step = "tracefs";
	ret = doctor_probe_tracefs(&r->tracefs, root, r->priv.root || r->priv.cap_sys_admin,
				   o->mount_tracefs && live, o->try_instance);
	if (ret)
		goto out_fail;
	step = "sched";
	ret = doctor_probe_sched(&r->sched, root, r->env.kernel_release);
	if (ret)
		goto out_fail;
	step = "preempt";
	ret = doctor_probe_preempt(&r->preempt, root, r->env.preempt_dynamic);
	if (ret)
		goto out_fail;
	step = "cpus";
	ret = doctor_probe_cpus(&r->cpus, root);
	if (ret)
		goto out_fail;
	step = "qemu";
	ret = doctor_probe_qemu(&r->qemu, child_for(o, LAB_NEED_QEMU | LAB_NEED_KVM), timeout);
	if (ret)
		goto out_fail;
	step = "kvm";
	kvm_dev = qemu_kvm_dev_path(root);
	if (!kvm_dev) {
		ret = -ENOMEM;
		goto out_fail;
	}
	ret = doctor_probe_kvm(&r->kvm, kvm_dev, child_for(o, LAB_NEED_KVM), timeout);
	if (!ret)
		ret = doctor_kvm_prove(&r->kvm, o->kvm_boot && live);
	if (ret)
		goto out_fail;
	step = "netns";
	ret = doctor_probe_net(&r->net, child_for(o, LAB_NEED_NETNS), timeout);
	if (ret)
		goto out_fail;
	step = "labs";
	ret = doctor_eval_labs(r, lab_table);
	if (ret)
		goto out_fail;
	r->duration_ms = rt_time_now_ms() - start;
	free(kvm_dev);
	return 0;

out_fail:
	free(kvm_dev);
	doctor_report_fini(r);
	return rt_err(cause, ret, "doctor: probing %s: %s", step, strerror(-ret));
}

void doctor_report_fini(struct doctor_report *r)
{
	if (!r)
		return;
	rt_env_fini(&r->env);
	doctor_vm_fini(&r->vm);
	doctor_priv_fini(&r->priv);
	doctor_tracefs_fini(&r->tracefs);
	doctor_sched_fini(&r->sched);
	doctor_preempt_fini(&r->preempt);
	doctor_cpus_fini(&r->cpus);
	doctor_qemu_fini(&r->qemu);
	doctor_kvm_fini(&r->kvm);
	doctor_net_fini(&r->net);
	doctor_journals_fini(&r->journals);
	for (size_t i = 0; i < r->nlabs; i++)
		doctor_lab_fini(&r->labs[i]);
	free(r->labs);
	memset(r, 0, sizeof(*r));
}
