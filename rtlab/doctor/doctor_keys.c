/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * doctor_keys: the keys of rtlab.doctor/1 declared once (doc/doctor.md says
 * them in sentences), and the JSON Schema `rtlab schema rtlab.doctor/1`
 * prints from them. doctor_json.c writes each section in this order. A
 * fact that could not be measured is null, so most keys allow null.
 */
#include "doctor.h"

#include "core/rt_keys.h"

#define S	RT_T_STRING
#define SN	(RT_T_STRING | RT_T_NULL)
#define B	RT_T_BOOL
#define BN	(RT_T_BOOL | RT_T_NULL)
#define I	RT_T_INTEGER
#define IN	(RT_T_INTEGER | RT_T_NULL)
#define ON	(RT_T_OBJECT | RT_T_NULL)

static const char *const models[] = { "none", "voluntary", "full", "lazy", "rt", "unknown",
				      NULL };
static const char *const times[] = { "real", "virtual", NULL };
static const char *const verdicts[] = { "works", "not-proven", "boot-failed", "absent",
					"no-permission", "hung", "failed", "not-probed", NULL };
static const char *const stops[] = { "ok", "not-dynamic", "no-debugfs", "no-file",
				     "read-refused", "unreadable", "write-refused", NULL };
static const char *const tiers[] = { "host", "vm", "simulation", "none", NULL };
static const char *const states[] = { "planned", "ready", NULL };
static const char *const needs[] = { "rt-prio", "trace-events", "lat-tracers", "qemu", "kvm",
				     "netns", "preempt-rt", NULL };

static const struct rt_key kernel_keys[] = {
	RT_KEY("release", SN, NULL, "`uname -r`", true),
	RT_KEY("version", SN, NULL, "`uname -v`", true),
	RT_KEY("machine", SN, NULL, "`uname -m`", true),
	RT_KEY("preempt_model", S, NULL, "the preemption model", true, .values = models),
	RT_KEY("preempt_source", SN, NULL, "where the model came from", true),
	RT_KEY("preempt_dynamic", B, NULL, "a PREEMPT_DYNAMIC kernel", true),
	RT_KEY("realtime", B, NULL, "a PREEMPT_RT kernel", true),
	RT_KEY("sys_kernel_realtime", B, NULL, "`/sys/kernel/realtime` exists", true),
	RT_KEY_END,
};
static const struct rt_keys kernel_table = { .keys = kernel_keys };

static const struct rt_key vm_keys[] = {
	RT_KEY("in_vm", B, NULL, "rtlab runs inside a virtual machine", true),
	RT_KEY("type", SN, NULL, "e.g. `KVM`, `QEMU TCG`; null when `in_vm` is false", true),
	RT_KEY("time", S, NULL, "`virtual` in the classroom VM booted in virtual time", true,
	       .values = times),
	RT_KEY("cpuid_hypervisor", BN, NULL, "CPUID leaf 1, ECX bit 31; null off x86", true),
	RT_KEY("cpuid_vendor", SN, NULL, "the signature of CPUID leaf 0x40000000", true),
	RT_KEY("dmi_sys_vendor", SN, NULL, "`/sys/class/dmi/id/sys_vendor`", true),
	RT_KEY("dmi_product_name", SN, NULL, "`/sys/class/dmi/id/product_name`", true),
	RT_KEY("hypervisor_type", SN, NULL, "`/sys/hypervisor/type` (Xen)", true),
	RT_KEY_END,
};
static const struct rt_keys vm_table = { .keys = vm_keys };

static const struct rt_key caps_keys[] = {
	RT_KEY("sys_nice", BN, NULL, "CAP_SYS_NICE is effective", true),
	RT_KEY("sys_admin", BN, NULL, "CAP_SYS_ADMIN is effective", true),
	RT_KEY("net_admin", BN, NULL, "CAP_NET_ADMIN is effective", true),
	RT_KEY_END,
};
static const struct rt_keys caps_table = { .keys = caps_keys };
static const struct rt_key rlimit_keys[] = {
	RT_KEY("soft", I, NULL, "RLIMIT_RTPRIO's soft limit; -1: unlimited", true),
	RT_KEY("hard", I, NULL, "its hard limit; -1: unlimited", true),
	RT_KEY_END,
};
static const struct rt_keys rlimit_table = { .keys = rlimit_keys };
static const struct rt_key priv_keys[] = {
	RT_KEY("root", B, NULL, "effective uid 0", true),
	RT_KEY("euid", I, NULL, "effective uid", true),
	RT_KEY("cap_eff", SN, NULL, "`CapEff` of `/proc/self/status`", true),
	RT_KEY("capabilities", RT_T_OBJECT, NULL, "the capabilities that matter", true,
	       .of = &caps_table),
	RT_KEY("rlimit_rtprio", RT_T_OBJECT, NULL, "RLIMIT_RTPRIO", true, .of = &rlimit_table),
	RT_KEY("sched_fifo", BN, NULL, "a child could switch itself to SCHED_FIFO 1", true),
	RT_KEY("sched_fifo_error", SN, NULL, "why not (or `not tried`)", true),
	RT_KEY_END,
};
static const struct rt_keys priv_table = { .keys = priv_keys };

static const struct rt_key tracer_value = RT_KEY(NULL, BN, NULL,
						 "the tracer is available; null: unreadable", false);
static const struct rt_key no_keys[] = { RT_KEY_END };
static const struct rt_keys tracers_table = { .keys = no_keys, .others = &tracer_value };
static const struct rt_key events_keys[] = {
	RT_KEY("sched_switch", BN, NULL, "`events/sched/sched_switch` exists", true),
	RT_KEY("sched_waking", BN, NULL, "`events/sched/sched_waking` exists", true),
	RT_KEY_END,
};
static const struct rt_keys events_table = { .keys = events_keys };
static const struct rt_key tracefs_keys[] = {
	RT_KEY("mount", SN, NULL, "where tracefs is mounted", true),
	RT_KEY("mounted_by_doctor", B, NULL, "the doctor mounted it during this run", true),
	RT_KEY("accessible", B, NULL, "its files could be read", true),
	RT_KEY("writable", B, NULL, "`current_tracer` is writable by this user", true),
	RT_KEY("error", SN, NULL, "why tracefs is absent or unusable", true),
	RT_KEY("available_tracers", RT_T_ARRAY | RT_T_NULL, NULL,
	       "the full `available_tracers` list; null when unreadable", true,
	       .items = RT_T_STRING),
	RT_KEY("tracers", RT_T_OBJECT, NULL, "each latency tracer rtlab uses: available or not",
	       true, .of = &tracers_table),
	RT_KEY("events", RT_T_OBJECT, NULL, "the scheduler events", true, .of = &events_table),
	RT_KEY("hist_triggers", BN, NULL, "hist triggers are offered", true),
	RT_KEY("instances", BN, NULL, "a private instance could be created and removed", true),
	RT_KEY("instances_error", SN, NULL, "why not", true),
	RT_KEY_END,
};
static const struct rt_keys tracefs_table = { .keys = tracefs_keys };

static const struct rt_key fair_keys[] = {
	RT_KEY("debugfs", B, NULL, "the directory exists", true),
	RT_KEY("cpus", I, "count", "CPUs whose values were read", true),
	RT_KEY("runtime_ns", IN, "ns", "the lowest CPU's runtime", true),
	RT_KEY("period_ns", IN, "ns", "the lowest CPU's period", true),
	RT_KEY("uniform", BN, NULL, "every CPU read has the same", true),
	RT_KEY("error", SN, NULL, "why they could not be read", true),
	RT_KEY_END,
};
static const struct rt_keys fair_table = { .keys = fair_keys };
static const struct rt_key throttling_keys[] = {
	RT_KEY("rt_runtime_us", IN, "us", "`sched_rt_runtime_us`; -1: no bound", true),
	RT_KEY("rt_period_us", IN, "us", "`sched_rt_period_us`", true),
	RT_KEY("mechanism", SN, NULL, "`throttling` (before 6.12) or `fair-server`", true),
	RT_KEY("mechanism_source", SN, NULL, "`debugfs` or `kernel-version`", true),
	RT_KEY("fair_server", ON, NULL, "the fair server's settings; null with RT throttling",
	       true, .of = &fair_table),
	RT_KEY_END,
};
static const struct rt_keys throttling_table = { .keys = throttling_keys };

static const struct rt_key switch_keys[] = {
	RT_KEY("file", S, NULL, "`/sys/kernel/debug/sched/preempt`", true),
	RT_KEY("switchable", B, NULL, "`--preempt` can switch the model here", true),
	RT_KEY("stop", S, NULL, "where the check stopped", true, .values = stops),
	RT_KEY("current", SN, NULL, "the active model", true),
	RT_KEY("offered", SN, NULL, "the models the file lists", true),
	RT_KEY("why", SN, NULL, "why the model cannot be switched; null when it can", true),
	RT_KEY_END,
};
static const struct rt_keys switch_table = { .keys = switch_keys };

static const struct rt_key dma_keys[] = {
	RT_KEY("present", B, NULL, "`/dev/cpu_dma_latency` exists", true),
	RT_KEY("writable", B, NULL, "and we may write it", true),
	RT_KEY_END,
};
static const struct rt_keys dma_table = { .keys = dma_keys };
static const struct rt_key cpus_keys[] = {
	RT_KEY("online", I, "count", "online CPUs", true),
	RT_KEY("allowed", I, "count", "CPUs in our affinity mask", true),
	RT_KEY("isolated", SN, NULL, "`/sys/devices/system/cpu/isolated`", true),
	RT_KEY("nohz_full", SN, NULL, "`/sys/devices/system/cpu/nohz_full`", true),
	RT_KEY("cpu_dma_latency", RT_T_OBJECT, NULL, "`/dev/cpu_dma_latency`", true,
	       .of = &dma_table),
	RT_KEY_END,
};
static const struct rt_keys cpus_table = { .keys = cpus_keys };

static const struct rt_key qemu_keys[] = {
	RT_KEY("found", B, NULL, "`qemu-system-x86_64` was found", true),
	RT_KEY("path", SN, NULL, "where", true),
	RT_KEY("version", SN, NULL, "e.g. `7.2.22`", true),
	RT_KEY("version_line", SN, NULL, "the first line `--version` printed", true),
	RT_KEY("error", SN, NULL, "why it did not run", true),
	RT_KEY_END,
};
static const struct rt_keys qemu_table = { .keys = qemu_keys };

static const struct rt_key guest_keys[] = {
	RT_KEY("tried", B, NULL, "a Linux guest was booted", true),
	RT_KEY("booted", B, NULL, "it reached rtlab's ready line", true),
	RT_KEY("cached", B, NULL, "the verdict was kept from earlier in this host boot", true),
	RT_KEY("kernel", SN, NULL, "the image booted", true),
	RT_KEY("release", SN, NULL, "its `uname -r`", true),
	RT_KEY("cpu_model", SN, NULL, "the QEMU `-cpu` model that booted", true),
	RT_KEY("boot_ms", IN, "ms", "QEMU start to the ready line", true),
	RT_KEY("detail", SN, NULL, "why nothing was tried, or how each CPU model failed", true),
	RT_KEY_END,
};
static const struct rt_keys guest_table = { .keys = guest_keys };
static const struct rt_key kvm_keys[] = {
	RT_KEY("dev_present", B, NULL, "`/dev/kvm` exists", true),
	RT_KEY("stand_in", B, NULL, "the device was a stand-in named by `RTLAB_KVM_DEV`", true),
	RT_KEY("verdict", S, NULL, "`works` only when a Linux guest booted under KVM", true,
	       .values = verdicts),
	RT_KEY("test_guest", S, NULL, "the tiny test guest's own verdict", true,
	       .values = verdicts),
	RT_KEY("api_version", IN, NULL, "`KVM_GET_API_VERSION`", true),
	RT_KEY("detail", SN, NULL, "the reason for any verdict other than `works`", true),
	RT_KEY("linux_guest", ON, NULL, "null unless the test guest ran", true,
	       .of = &guest_table),
	RT_KEY_END,
};
static const struct rt_keys kvm_table = { .keys = kvm_keys };

static const struct rt_key netns_keys[] = {
	RT_KEY("ip_found", B, NULL, "iproute2's `ip` was found", true),
	RT_KEY("ip_path", SN, NULL, "where", true),
	RT_KEY("netns", BN, NULL, "a child could `unshare(CLONE_NEWNET)`", true),
	RT_KEY("veth", BN, NULL, "and create a veth pair in it", true),
	RT_KEY("error", SN, NULL, "why not", true),
	RT_KEY_END,
};
static const struct rt_keys netns_table = { .keys = netns_keys };

static const struct rt_key stale_keys[] = {
	RT_KEY("path", S, NULL, "the file", true),
	RT_KEY("pid", I, NULL, "the process that wrote it", true),
	RT_KEY("entries", I, "count", "how many changes it would undo", true),
	RT_KEY("other_boot", B, NULL, "written before the last reboot: discarded", true),
	RT_KEY("corrupt", B, NULL, "ours but not a journal: set aside", true),
	RT_KEY_END,
};
static const struct rt_keys stale_table = { .keys = stale_keys };
static const struct rt_key restore_keys[] = {
	RT_KEY("ok", B, NULL, "the replay succeeded and no journal was left alone", true),
	RT_KEY("restored", I, "count", "journals replayed", true),
	RT_KEY("error", SN, NULL, "why it failed", true),
	RT_KEY_END,
};
static const struct rt_keys restore_table = { .keys = restore_keys };
static const struct rt_key journals_keys[] = {
	RT_KEY("dir", SN, NULL, "the journal directory", true),
	RT_KEY("error", SN, NULL, "why it could not be scanned", true),
	RT_KEY("stale", RT_T_ARRAY, NULL, "journals of processes that are gone", true,
	       .of = &stale_table),
	RT_KEY("restore", ON, NULL, "null without `--restore`", true, .of = &restore_table),
	RT_KEY_END,
};
static const struct rt_keys journals_table = { .keys = journals_keys };

static const struct rt_key missing_keys[] = {
	RT_KEY("need", S, NULL, "what the lab needs or wants", true, .values = needs),
	RT_KEY("required", B, NULL, "a need (it decides the tier), not a want", true),
	RT_KEY("what", S, NULL, "what is missing, as measured", true),
	RT_KEY("how", S, NULL, "how to get it", true),
	RT_KEY_END,
};
static const struct rt_keys missing_table = { .keys = missing_keys };
static const struct rt_key lab_keys[] = {
	RT_KEY("name", S, NULL, "the lab's stable id", true),
	RT_KEY("title", S, NULL, "one line for menus", true),
	RT_KEY("state", S, NULL, "`ready`, or `planned`", true, .values = states),
	RT_KEY("issue", IN, NULL, "the issue that builds a planned lab", true),
	RT_KEY("tier", S, NULL, "where it can run here", true, .values = tiers),
	RT_KEY("degraded", B, NULL, "host tier, but something it would use is missing", true),
	RT_KEY("reason", S, NULL, "why this tier, in one sentence", true),
	RT_KEY("missing", RT_T_ARRAY, NULL, "what is missing: needs first, then wants", true,
	       .of = &missing_table),
	RT_KEY_END,
};
static const struct rt_keys lab_table = { .keys = lab_keys };

static const struct rt_key top_keys[] = {
	RT_KEY("schema", S, NULL, "`rtlab.doctor/1`", true),
	RT_KEY("rtlab_version", S, NULL, "the rtlab release", true),
	RT_KEY("duration_ms", RT_T_NUMBER, "ms", "how long the measurements took", true),
	RT_KEY("kernel", RT_T_OBJECT, NULL, "the running kernel", true, .of = &kernel_table),
	RT_KEY("vm", RT_T_OBJECT, NULL, "whether rtlab runs inside a virtual machine", true,
	       .of = &vm_table),
	RT_KEY("privileges", RT_T_OBJECT, NULL, "root, capabilities, RT priority limits", true,
	       .of = &priv_table),
	RT_KEY("tracefs", RT_T_OBJECT, NULL, "tracefs, its tracers and events", true,
	       .of = &tracefs_table),
	RT_KEY("rt_throttling", RT_T_OBJECT, NULL, "what stops a runaway real-time task", true,
	       .of = &throttling_table),
	RT_KEY("preempt_switch", RT_T_OBJECT, NULL,
	       "whether the preemption model can be switched while the kernel runs", true,
	       .of = &switch_table),
	RT_KEY("cpus", RT_T_OBJECT, NULL, "CPU count, isolation, `/dev/cpu_dma_latency`", true,
	       .of = &cpus_table),
	RT_KEY("qemu", RT_T_OBJECT, NULL, "`qemu-system-x86_64`", true, .of = &qemu_table),
	RT_KEY("kvm", RT_T_OBJECT, NULL, "the KVM test guest and the Linux guest", true,
	       .of = &kvm_table),
	RT_KEY("netns", RT_T_OBJECT, NULL, "network namespaces and veth", true,
	       .of = &netns_table),
	RT_KEY("journals", RT_T_OBJECT, NULL, "undo journals left by killed runs", true,
	       .of = &journals_table),
	RT_KEY("labs", RT_T_ARRAY, NULL, "one object per lab, in teaching order", true,
	       .of = &lab_table),
	RT_KEY_END,
};
static const struct rt_keys top_table = { .keys = top_keys };

json_t *doctor_schema(void)
{
	return rt_keys_document(DOCTOR_SCHEMA, "rtlab doctor's report", &top_table, 0);
}
