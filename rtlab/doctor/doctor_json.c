/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * doctor_json: the "rtlab.doctor/1" document. doc/doctor.md describes every
 * field; a change here that renames or retypes a field needs a new schema
 * version there. Types are strict: booleans are booleans, numbers are
 * numbers, and a fact that could not be measured (or a file that is
 * absent) is null, never "" or -1 in disguise (RLIMIT_RTPRIO's -1 for
 * "unlimited" is documented as such).
 */
#include "doctor.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_journal.h"
#include "core/rt_preempt.h"
#include "core/rt_json.h"
#include "core/rt_version.h"
#include "labs/lab.h"

/* Every setter records a failure in *err instead of returning it. */
static void put(json_t *obj, const char *key, json_t *value, int *err)
{
	if (!value || json_object_set_new(obj, key, value) < 0)
		*err = -ENOMEM;
}

static void push(json_t *arr, json_t *value, int *err)
{
	if (!value || json_array_append_new(arr, value) < 0)
		*err = -ENOMEM;
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *tri(enum doctor_tri t)
{
	return t == DOCTOR_UNKNOWN ? json_null() : json_boolean(t == DOCTOR_YES);
}

static json_t *int_or_null(bool known, long long v)
{
	return known ? json_integer(v) : json_null();
}

static json_t *kernel_json(const struct doctor_report *r, int *err)
{
	const struct rt_env *e = &r->env;
	json_t *o = json_object();

	if (!o)
		goto out_nomem;
	put(o, "release", str_or_null(e->kernel_release), err);
	put(o, "version", str_or_null(e->kernel_version), err);
	put(o, "machine", str_or_null(e->machine), err);
	put(o, "preempt_model", str_or_null(e->preempt_model), err);
	put(o, "preempt_source", str_or_null(e->preempt_source), err);
	put(o, "preempt_dynamic", json_boolean(e->preempt_dynamic), err);
	put(o, "realtime", json_boolean(e->realtime), err);
	put(o, "sys_kernel_realtime", json_boolean(e->sys_kernel_realtime), err);
	return o;
out_nomem:
	*err = -ENOMEM;
	return NULL;
}

static json_t *vm_json(const struct doctor_report *r, int *err)
{
	const struct doctor_vm *v = &r->vm;
	json_t *o = json_object();

	if (!o)
		goto out_nomem;
	put(o, "in_vm", json_boolean(r->env.in_vm), err);
	put(o, "type", str_or_null(r->env.vm_type), err);
	put(o, "time", json_string(r->env.virtual_time ? "virtual" : "real"), err);
	put(o, "cpuid_hypervisor", tri(v->cpuid_hypervisor), err);
	put(o, "cpuid_vendor", str_or_null(v->cpuid_vendor), err);
	put(o, "dmi_sys_vendor", str_or_null(v->dmi_sys_vendor), err);
	put(o, "dmi_product_name", str_or_null(v->dmi_product_name), err);
	put(o, "hypervisor_type", str_or_null(v->hypervisor_type), err);
	return o;
out_nomem:
	*err = -ENOMEM;
	return NULL;
}

static json_t *priv_json(const struct doctor_report *r, int *err)
{
	const struct doctor_priv *p = &r->priv;
	json_t *o = json_object(), *caps = json_object(), *rl = json_object();
	char hex[17];

	if (!o || !caps || !rl) {
		json_decref(o);
		json_decref(caps);
		json_decref(rl);
		*err = -ENOMEM;
		return NULL;
	}
	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)p->cap_eff);
	put(o, "root", json_boolean(p->root), err);
	put(o, "euid", json_integer((json_int_t)p->euid), err);
	put(o, "cap_eff", p->cap_known ? json_string(hex) : json_null(), err);
	put(caps, "sys_nice", p->cap_known ? json_boolean(p->cap_sys_nice) : json_null(), err);
	put(caps, "sys_admin", p->cap_known ? json_boolean(p->cap_sys_admin) : json_null(), err);
	put(caps, "net_admin", p->cap_known ? json_boolean(p->cap_net_admin) : json_null(), err);
	put(o, "capabilities", caps, err);
	put(rl, "soft", json_integer(p->rtprio_soft), err);
	put(rl, "hard", json_integer(p->rtprio_hard), err);
	put(o, "rlimit_rtprio", rl, err);
	put(o, "sched_fifo", tri(p->sched_fifo), err);
	put(o, "sched_fifo_error", str_or_null(p->sched_fifo_error), err);
	return o;
}

static json_t *tracefs_json(const struct doctor_report *r, int *err)
{
	const struct doctor_tracefs *t = &r->tracefs;
	json_t *o = json_object(), *lat = json_object(), *ev = json_object();
	json_t *list = t->tracers || t->accessible ? json_array() : json_null();

	if (!o || !lat || !ev || !list) {
		json_decref(o);
		json_decref(lat);
		json_decref(ev);
		json_decref(list);
		*err = -ENOMEM;
		return NULL;
	}
	put(o, "mount", str_or_null(t->mount), err);
	put(o, "mounted_by_doctor", json_boolean(t->mounted_by_doctor), err);
	put(o, "accessible", json_boolean(t->accessible), err);
	put(o, "writable", json_boolean(t->writable), err);
	put(o, "error", str_or_null(t->error), err);
	for (size_t i = 0; json_is_array(list) && i < t->ntracers; i++)
		push(list, json_string(t->tracers[i]), err);
	put(o, "available_tracers", list, err);
	for (int i = 0; i < DOCTOR_TRACER_COUNT; i++)
		put(lat, doctor_tracer_name(i), tri(t->tracer[i]), err);
	put(o, "tracers", lat, err);
	put(ev, "sched_switch", tri(t->sched_switch), err);
	put(ev, "sched_waking", tri(t->sched_waking), err);
	put(o, "events", ev, err);
	put(o, "hist_triggers", tri(t->hist), err);
	put(o, "instances", tri(t->instances), err);
	put(o, "instances_error", str_or_null(t->instances_error), err);
	return o;
}

/* debugfs sched/fair_server as read; null when the kernel has none. */
static json_t *fair_server_json(const struct doctor_sched *s, int *err)
{
	json_t *o;
	bool read = s->fair_server_cpus > 0;

	if (s->guard != DOCTOR_GUARD_FAIR_SERVER)
		return json_null();
	o = json_object();
	if (!o) {
		*err = -ENOMEM;
		return NULL;
	}
	put(o, "debugfs", json_boolean(s->fair_server_dir), err);
	put(o, "cpus", json_integer(s->fair_server_cpus), err);
	put(o, "runtime_ns", int_or_null(read, s->fair_runtime_ns), err);
	put(o, "period_ns", int_or_null(read, s->fair_period_ns), err);
	put(o, "uniform", read ? json_boolean(s->fair_server_uniform) : json_null(), err);
	put(o, "error", str_or_null(s->fair_server_error), err);
	return o;
}

static json_t *sched_json(const struct doctor_report *r, int *err)
{
	json_t *o = json_object();

	if (!o) {
		*err = -ENOMEM;
		return NULL;
	}
	put(o, "rt_runtime_us", int_or_null(r->sched.runtime_known, r->sched.rt_runtime_us), err);
	put(o, "rt_period_us", int_or_null(r->sched.period_known, r->sched.rt_period_us), err);
	put(o, "mechanism", r->sched.guard == DOCTOR_GUARD_THROTTLING ? json_string("throttling") :
	    r->sched.guard == DOCTOR_GUARD_FAIR_SERVER ? json_string("fair-server") : json_null(),
	    err);
	put(o, "mechanism_source", r->sched.guard == DOCTOR_GUARD_UNKNOWN ? json_null() :
	    json_string(r->sched.guard_measured ? "debugfs" : "kernel-version"), err);
	put(o, "fair_server", fair_server_json(&r->sched, err), err);
	return o;
}

static json_t *preempt_json(const struct doctor_report *r, int *err)
{
	const struct doctor_preempt *p = &r->preempt;
	json_t *o = json_object();

	if (!o) {
		*err = -ENOMEM;
		return NULL;
	}
	put(o, "file", json_string(RT_PREEMPT_FILE), err);
	put(o, "switchable", json_boolean(p->switchable), err);
	put(o, "stop", json_string(rt_preempt_stop_name((enum rt_preempt_stop)p->stop)), err);
	put(o, "current", str_or_null(p->current), err);
	put(o, "offered", str_or_null(p->offered), err);
	put(o, "why", str_or_null(p->why), err);
	return o;
}

static json_t *cpus_json(const struct doctor_report *r, int *err)
{
	const struct doctor_cpus *c = &r->cpus;
	json_t *o = json_object(), *dma = json_object();

	if (!o || !dma) {
		json_decref(o);
		json_decref(dma);
		*err = -ENOMEM;
		return NULL;
	}
	put(o, "online", json_integer(c->online), err);
	put(o, "allowed", json_integer(c->allowed), err);
	put(o, "isolated", str_or_null(c->isolated), err);
	put(o, "nohz_full", str_or_null(c->nohz_full), err);
	put(dma, "present", json_boolean(c->dma_latency_present), err);
	put(dma, "writable", json_boolean(c->dma_latency_writable), err);
	put(o, "cpu_dma_latency", dma, err);
	return o;
}

static json_t *qemu_json(const struct doctor_report *r, int *err)
{
	const struct doctor_qemu *q = &r->qemu;
	json_t *o = json_object();

	if (!o) {
		*err = -ENOMEM;
		return NULL;
	}
	put(o, "found", json_boolean(q->path), err);
	put(o, "path", str_or_null(q->path), err);
	put(o, "version", str_or_null(q->version), err);
	put(o, "version_line", str_or_null(q->version_line), err);
	put(o, "error", str_or_null(q->error), err);
	return o;
}

static json_t *kvm_json(const struct doctor_report *r, int *err)
{
	const struct doctor_kvm *k = &r->kvm;
	const struct doctor_kvm_boot *b = &k->linux_guest;
	json_t *o = json_object(), *g;

	if (!o) {
		*err = -ENOMEM;
		return NULL;
	}
	put(o, "dev_present", json_boolean(k->dev_present), err);
	put(o, "stand_in", json_boolean(k->stand_in), err);
	put(o, "verdict", json_string(doctor_kvm_verdict_name(k->verdict)), err);
	put(o, "test_guest", json_string(doctor_kvm_verdict_name(k->test_guest)), err);
	put(o, "api_version", int_or_null(k->api_version >= 0, k->api_version), err);
	put(o, "detail", str_or_null(k->detail), err);
	if (k->test_guest != DOCTOR_KVM_WORKS) {
		put(o, "linux_guest", json_null(), err);
		return o;
	}
	g = json_object();
	if (!g) {
		*err = -ENOMEM;
		return o;
	}
	put(g, "tried", json_boolean(b->tried), err);
	put(g, "booted", json_boolean(b->booted), err);
	put(g, "cached", json_boolean(b->cached), err);
	put(g, "kernel", str_or_null(b->kernel), err);
	put(g, "release", str_or_null(b->release), err);
	put(g, "cpu_model", str_or_null(b->cpu_model), err);
	put(g, "boot_ms", int_or_null(b->boot_ms >= 0, b->boot_ms), err);
	put(g, "detail", str_or_null(b->detail), err);
	put(o, "linux_guest", g, err);
	return o;
}

static json_t *net_json(const struct doctor_report *r, int *err)
{
	const struct doctor_net *n = &r->net;
	json_t *o = json_object();

	if (!o) {
		*err = -ENOMEM;
		return NULL;
	}
	put(o, "ip_found", json_boolean(n->ip_path), err);
	put(o, "ip_path", str_or_null(n->ip_path), err);
	put(o, "netns", tri(n->netns), err);
	put(o, "veth", tri(n->veth), err);
	put(o, "error", str_or_null(n->error), err);
	return o;
}

static json_t *journals_json(const struct doctor_report *r, int *err)
{
	const struct doctor_journals *j = &r->journals;
	json_t *o = json_object(), *stale = json_array(), *rest;

	if (!o || !stale) {
		json_decref(o);
		json_decref(stale);
		*err = -ENOMEM;
		return NULL;
	}
	put(o, "dir", str_or_null(j->dir), err);
	put(o, "error", str_or_null(j->error), err);
	for (size_t i = 0; i < j->nstale; i++) {
		const struct rt_journal_stale *s = &j->stale[i];
		json_t *e = json_object();

		if (!e) {
			*err = -ENOMEM;
			break;
		}
		put(e, "path", str_or_null(s->path), err);
		put(e, "pid", json_integer(s->pid), err);
		put(e, "entries", json_integer((json_int_t)s->entries), err);
		put(e, "other_boot", json_boolean(s->other_boot), err);
		put(e, "corrupt", json_boolean(s->corrupt), err);
		push(stale, e, err);
	}
	put(o, "stale", stale, err);
	if (!j->restore_attempted) {
		put(o, "restore", json_null(), err);
		return o;
	}
	rest = json_object();
	if (!rest) {
		*err = -ENOMEM;
		return o;
	}
	put(rest, "ok", json_boolean(j->restore_ok), err);
	put(rest, "restored", json_integer(j->restored), err);
	put(rest, "error", str_or_null(j->restore_error), err);
	put(o, "restore", rest, err);
	return o;
}

static json_t *labs_json(const struct doctor_report *r, int *err)
{
	json_t *arr = json_array();

	if (!arr) {
		*err = -ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < r->nlabs; i++) {
		const struct doctor_lab *l = &r->labs[i];
		json_t *o = json_object(), *missing = json_array();

		if (!o || !missing) {
			json_decref(o);
			json_decref(missing);
			*err = -ENOMEM;
			break;
		}
		put(o, "name", json_string(l->lab->name), err);
		put(o, "title", json_string(l->lab->title), err);
		put(o, "state", json_string(lab_state_name(l->lab->state)), err);
		put(o, "issue", int_or_null(l->lab->state == LAB_STATE_PLANNED && l->lab->issue,
					    l->lab->issue), err);
		put(o, "tier", json_string(doctor_tier_name(l->tier)), err);
		put(o, "degraded", json_boolean(l->degraded), err);
		put(o, "reason", str_or_null(l->reason), err);
		for (size_t m = 0; m < l->nmissing; m++) {
			json_t *e = json_object();

			if (!e) {
				*err = -ENOMEM;
				break;
			}
			put(e, "need", json_string(doctor_need_name(l->missing[m].need)), err);
			put(e, "required", json_boolean(l->missing[m].required), err);
			put(e, "what", str_or_null(l->missing[m].what), err);
			put(e, "how", str_or_null(l->missing[m].how), err);
			push(missing, e, err);
		}
		put(o, "missing", missing, err);
		push(arr, o, err);
	}
	return arr;
}

int doctor_render_json(const struct doctor_report *r, struct rt_buf *out)
{
	json_t *doc = json_object();
	int err = 0;

	if (!doc)
		return -ENOMEM;
	put(doc, "schema", json_string(DOCTOR_SCHEMA), &err);
	put(doc, "rtlab_version", json_string(RT_VERSION), &err);
	put(doc, "duration_ms", json_integer((json_int_t)r->duration_ms), &err);
	put(doc, "kernel", kernel_json(r, &err), &err);
	put(doc, "vm", vm_json(r, &err), &err);
	put(doc, "privileges", priv_json(r, &err), &err);
	put(doc, "tracefs", tracefs_json(r, &err), &err);
	put(doc, "rt_throttling", sched_json(r, &err), &err);
	put(doc, "preempt_switch", preempt_json(r, &err), &err);
	put(doc, "cpus", cpus_json(r, &err), &err);
	put(doc, "qemu", qemu_json(r, &err), &err);
	put(doc, "kvm", kvm_json(r, &err), &err);
	put(doc, "netns", net_json(r, &err), &err);
	put(doc, "journals", journals_json(r, &err), &err);
	put(doc, "labs", labs_json(r, &err), &err);
	/* Members in the order put above, as doc/doctor.md lists them. */
	if (!err)
		err = rt_json_write(out, doc, NULL);
	if (!err)
		err = rt_buf_puts(out, "\n");
	json_decref(doc);
	return err;
}
