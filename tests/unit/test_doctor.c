/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the doctor: the parsers on fixture text, the file probes
 * on fixture trees, the KVM, netns and tracefs probes on the live system
 * (skipped with a reason where the feature or root is missing), the tier
 * evaluation on hand-made reports, and both renderers. The child runner
 * the probes use is rt_child's (test_rt_child).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <jansson.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/rt_buf.h"
#include "core/rt_file.h"
#include "core/rt_journal.h"
#include "core/rt_preempt.h"
#include "doctor/doctor.h"
#include "doctor/doctor_parse.h"
#include "doctor/doctor_probe.h"
#include "labs/lab.h"
#include "labs/lab_latency.h"
#include "qemu/qemu_kvm.h"
#include "qemu/qemu_kvm_guest.h"

/* ---- Fixture trees -------------------------------------------------------- */

struct tree {
	char root[64];
};

static void tree_put(struct tree *t, const char *path, const char *text)
{
	char full[512], dir[512];

	snprintf(full, sizeof(full), "%s%s", t->root, path);
	snprintf(dir, sizeof(dir), "%s", full);
	*strrchr(dir, '/') = '\0';
	assert_int_equal(rt_mkdir_p(dir, 0755), 0);
	assert_int_equal(rt_file_write_atomic(full, text, strlen(text), 0644, NULL), 0);
}

static void tree_mkdir(struct tree *t, const char *path)
{
	char full[512];

	snprintf(full, sizeof(full), "%s%s", t->root, path);
	assert_int_equal(rt_mkdir_p(full, 0755), 0);
}

static int tree_setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	snprintf(t->root, sizeof(t->root), "/tmp/test_doctor.XXXXXX");
	assert_non_null(mkdtemp(t->root));
	*state = t;
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int tree_teardown(void **state)
{
	struct tree *t = *state;

	nftw(t->root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(t);
	return 0;
}

/* Count entries of @dir whose name starts with @prefix. */
static int count_prefixed(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
			n++;
	closedir(d);
	return n;
}

/* ---- Parsers -------------------------------------------------------------- */

static const char mounts_text[] =
	"proc /proc proc rw,relatime 0 0\n"
	"sysfs /sys sysfs rw,relatime 0 0\n"
	"debugfs /sys/kernel/debug debugfs rw,relatime 0 0\n"
	"tracefs /sys/kernel/debug/tracing tracefs rw,relatime 0 0\n"
	"nodev /sys/kernel/tracing tracefs rw,relatime 0 0\n"
	"tmpfs /mnt/with\\040space tmpfs rw 0 0\n";

static void test_parse_mount(void **state)
{
	char *mp;

	(void)state;
	mp = doctor_parse_mount(mounts_text, "tracefs", "/sys/kernel/tracing");
	assert_string_equal(mp, "/sys/kernel/tracing");
	free(mp);
	mp = doctor_parse_mount(mounts_text, "tracefs", NULL);
	assert_string_equal(mp, "/sys/kernel/debug/tracing");
	free(mp);
	mp = doctor_parse_mount(mounts_text, "tracefs", "/elsewhere");
	assert_string_equal(mp, "/sys/kernel/debug/tracing");
	free(mp);
	mp = doctor_parse_mount(mounts_text, "tmpfs", NULL);
	assert_string_equal(mp, "/mnt/with space");
	free(mp);
	errno = 0;
	assert_null(doctor_parse_mount("proc /proc proc rw 0 0\n", "tracefs", NULL));
	assert_int_equal(errno, ENOENT);
	assert_null(doctor_parse_mount("", "tracefs", NULL));
	assert_null(doctor_parse_mount("tracefs\n\n  \nx y\n", "tracefs", NULL));
	/* a truncated escape is kept as it is */
	mp = doctor_parse_mount("n /a\\04 tracefs rw 0 0", "tracefs", NULL);
	assert_string_equal(mp, "/a\\04");
	free(mp);
}

static void test_parse_capeff(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(doctor_parse_status_hex("Name:\tx\nCapInh:\t0000000000000000\n"
						 "CapEff:\t000001fffeffffff\nCapBnd:\t1\n",
						 "CapEff:", &v), 0);
	assert_true(v == 0x000001fffeffffffULL);
	assert_true(v >> 23 & 1);	/* CAP_SYS_NICE */
	assert_int_equal(doctor_parse_status_hex("CapEff:\t0000000000800000", "CapEff:", &v), 0);
	assert_true(v == 1u << 23);
	assert_int_equal(doctor_parse_status_hex("CapPrm:\t1\n", "CapEff:", &v), -ENOENT);
	assert_int_equal(doctor_parse_status_hex("CapEff:\tzz\n", "CapEff:", &v), -EINVAL);
	assert_int_equal(doctor_parse_status_hex("CapEff:\t12345678901234567\n", "CapEff:", &v),
			 -EINVAL);
	assert_int_equal(doctor_parse_status_hex("CapEff:\t12x\n", "CapEff:", &v), -EINVAL);
	assert_int_equal(doctor_parse_status_hex("", "CapEff:", &v), -ENOENT);
}

static void test_parse_tracers(void **state)
{
	char **w = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(doctor_parse_words("timerlat osnoise hwlat blk function_graph wakeup_dl "
					    "wakeup_rt wakeup function nop\n", &w, &n), 0);
	assert_int_equal(n, 10);
	assert_true(doctor_words_has(w, n, "wakeup_rt"));
	assert_true(doctor_words_has(w, n, "wakeup"));
	assert_true(doctor_words_has(w, n, "nop"));
	assert_false(doctor_words_has(w, n, "irqsoff"));
	assert_false(doctor_words_has(w, n, "wake"));
	doctor_words_free(w, n);
	assert_int_equal(doctor_parse_words(" \n\t", &w, &n), 0);
	assert_int_equal(n, 0);
	assert_false(doctor_words_has(w, n, "nop"));
	doctor_words_free(w, n);
}

static void test_parse_trigger(void **state)
{
	(void)state;
	assert_true(doctor_parse_trigger_has_hist(
		"# Available triggers:\n# traceon traceoff snapshot stacktrace enable_event "
		"disable_event enable_hist disable_hist hist\n"));
	assert_false(doctor_parse_trigger_has_hist(
		"# Available triggers:\n# traceon traceoff stacktrace enable_event "
		"disable_event\n"));
	assert_false(doctor_parse_trigger_has_hist(
		"# Available triggers:\n# traceon enable_hist disable_hist\n"));
	assert_true(doctor_parse_trigger_has_hist("# Available triggers: traceon hist\n"));
	assert_false(doctor_parse_trigger_has_hist("hist\n"));
	assert_false(doctor_parse_trigger_has_hist(""));
	assert_false(doctor_parse_trigger_has_hist("# Available triggers:"));
}

static void test_parse_numbers_and_qemu(void **state)
{
	long long v = 0;
	char *s;

	(void)state;
	assert_int_equal(doctor_parse_ll("950000\n", &v), 0);
	assert_int_equal(v, 950000);
	assert_int_equal(doctor_parse_ll(" -1", &v), 0);
	assert_int_equal(v, -1);
	assert_int_equal(doctor_parse_ll("12 apples", &v), -EINVAL);
	assert_int_equal(doctor_parse_ll("", &v), -EINVAL);
	assert_int_equal(doctor_parse_ll("99999999999999999999999", &v), -EINVAL);

	s = doctor_parse_qemu_version("QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7)\n"
				      "Copyright (c) 2003-2022 Fabrice Bellard\n");
	assert_string_equal(s, "7.2.22");
	free(s);
	s = doctor_parse_qemu_version("QEMU emulator version 9.0.0\n");
	assert_string_equal(s, "9.0.0");
	free(s);
	assert_null(doctor_parse_qemu_version("qemu: unknown option\n"));
	assert_null(doctor_parse_qemu_version("version x"));
	s = doctor_first_line("one\ntwo");
	assert_string_equal(s, "one");
	free(s);
}

/* ---- File probes on fixture trees ---------------------------------------- */

static void put_tracefs(struct tree *t, const char *tracers, bool hist_file, bool hist_trigger)
{
	tree_put(t, "/proc/mounts", mounts_text);
	tree_put(t, "/sys/kernel/tracing/available_tracers", tracers);
	tree_put(t, "/sys/kernel/tracing/current_tracer", "nop\n");
	tree_put(t, "/sys/kernel/tracing/events/sched/sched_switch/trigger",
		 hist_trigger ? "# Available triggers:\n# traceon traceoff hist\n" :
				"# Available triggers:\n# traceon traceoff\n");
	if (hist_file)
		tree_put(t, "/sys/kernel/tracing/events/sched/sched_switch/hist", "");
	tree_mkdir(t, "/sys/kernel/tracing/instances");
}

static void test_tracefs_tree_full(void **state)
{
	struct tree *t = *state;
	struct doctor_tracefs tf;
	char inst[128];

	put_tracefs(t, "timerlat wakeup_rt irqsoff preemptoff function nop\n", false, true);
	assert_int_equal(doctor_probe_tracefs(&tf, t->root, true, false, true), 0);
	assert_string_equal(tf.mount, "/sys/kernel/tracing");
	assert_false(tf.mounted_by_doctor);
	assert_true(tf.accessible);
	assert_true(tf.writable);
	assert_null(tf.error);
	assert_int_equal(tf.ntracers, 6);
	assert_int_equal(tf.tracer[DOCTOR_TRACER_IRQSOFF], DOCTOR_YES);
	assert_int_equal(tf.tracer[DOCTOR_TRACER_PREEMPTOFF], DOCTOR_YES);
	assert_int_equal(tf.tracer[DOCTOR_TRACER_WAKEUP_RT], DOCTOR_YES);
	assert_int_equal(tf.tracer[DOCTOR_TRACER_WAKEUP], DOCTOR_NO);
	assert_int_equal(tf.tracer[DOCTOR_TRACER_HWLAT], DOCTOR_NO);
	assert_int_equal(tf.sched_switch, DOCTOR_YES);
	assert_int_equal(tf.sched_waking, DOCTOR_NO);
	assert_int_equal(tf.hist, DOCTOR_YES);	/* from the trigger file */
	assert_int_equal(tf.instances, DOCTOR_YES);
	assert_null(tf.instances_error);
	snprintf(inst, sizeof(inst), "%s/sys/kernel/tracing/instances", t->root);
	assert_int_equal(count_prefixed(inst, "rtlab-doctor-"), 0);
	doctor_tracefs_fini(&tf);
}

static void test_tracefs_tree_hist_file_and_none(void **state)
{
	struct tree *t = *state;
	struct doctor_tracefs tf;
	char hist[256];

	put_tracefs(t, "blk function nop\n", true, false);
	assert_int_equal(doctor_probe_tracefs(&tf, t->root, false, false, true), 0);
	assert_int_equal(tf.hist, DOCTOR_YES);	/* a hist file counts */
	assert_int_equal(tf.tracer[DOCTOR_TRACER_FUNCTION], DOCTOR_YES);
	assert_int_equal(tf.tracer[DOCTOR_TRACER_IRQSOFF], DOCTOR_NO);
	/* not privileged: no instance is tried, and the report says why */
	assert_int_equal(tf.instances, DOCTOR_UNKNOWN);
	assert_non_null(strstr(tf.instances_error, "root"));
	doctor_tracefs_fini(&tf);

	tree_put(t, "/sys/kernel/tracing/events/sched/sched_switch/trigger",
		 "# Available triggers:\n# traceon traceoff\n");
	snprintf(hist, sizeof(hist), "%s/sys/kernel/tracing/events/sched/sched_switch/hist",
		 t->root);
	assert_int_equal(remove(hist), 0);
	assert_int_equal(doctor_probe_tracefs(&tf, t->root, false, false, false), 0);
	assert_int_equal(tf.hist, DOCTOR_NO);
	assert_string_equal(tf.instances_error, "not tried");
	doctor_tracefs_fini(&tf);
}

static void test_tracefs_tree_not_mounted(void **state)
{
	struct tree *t = *state;
	struct doctor_tracefs tf;

	tree_put(t, "/proc/mounts", "proc /proc proc rw 0 0\n");
	assert_int_equal(doctor_probe_tracefs(&tf, t->root, false, true, true), 0);
	assert_null(tf.mount);
	assert_false(tf.accessible);
	assert_non_null(strstr(tf.error, "needs root"));
	assert_null(tf.tracers);
	assert_int_equal(tf.tracer[DOCTOR_TRACER_IRQSOFF], DOCTOR_UNKNOWN);
	assert_int_equal(tf.hist, DOCTOR_UNKNOWN);
	assert_int_equal(tf.instances, DOCTOR_UNKNOWN);
	doctor_tracefs_fini(&tf);

	assert_int_equal(doctor_probe_tracefs(&tf, t->root, true, false, true), 0);
	assert_string_equal(tf.error, "tracefs is not mounted");
	doctor_tracefs_fini(&tf);
}

static void test_priv_sched_cpus_vm_tree(void **state)
{
	struct tree *t = *state;
	struct doctor_priv p;
	struct doctor_sched s;
	struct doctor_cpus c;
	struct doctor_vm vm;

	tree_put(t, "/proc/self/status", "Name:\trtlab\nCapEff:\t0000000000801000\n");
	tree_put(t, "/proc/sys/kernel/sched_rt_runtime_us", "-1\n");
	tree_put(t, "/proc/sys/kernel/sched_rt_period_us", "1000000\n");
	tree_put(t, "/sys/devices/system/cpu/isolated", "2-3\n");
	tree_put(t, "/sys/class/dmi/id/sys_vendor", "QEMU\n");

	assert_int_equal(doctor_probe_priv(&p, t->root, false, 1000), 0);
	assert_true(p.cap_known);
	assert_true(p.cap_sys_nice);	/* bit 23 */
	assert_true(p.cap_net_admin);	/* bit 12 */
	assert_false(p.cap_sys_admin);
	assert_int_equal(p.sched_fifo, DOCTOR_UNKNOWN);
	assert_string_equal(p.sched_fifo_error, "not tried");
	doctor_priv_fini(&p);

	assert_int_equal(doctor_probe_sched(&s, t->root, "6.1.0-57-rt-amd64"), 0);
	assert_true(s.runtime_known && s.period_known);
	assert_int_equal(s.rt_runtime_us, -1);
	assert_int_equal(s.rt_period_us, 1000000);
	doctor_sched_fini(&s);

	assert_int_equal(doctor_probe_cpus(&c, t->root), 0);
	assert_string_equal(c.isolated, "2-3");
	assert_null(c.nohz_full);
	assert_false(c.dma_latency_present);
	assert_false(c.dma_latency_writable);
	assert_int_equal(c.online, (unsigned int)sysconf(_SC_NPROCESSORS_ONLN));
	doctor_cpus_fini(&c);

	assert_int_equal(doctor_probe_vm(&vm, t->root, false), 0);
	assert_int_equal(vm.cpuid_hypervisor, DOCTOR_UNKNOWN);
	assert_string_equal(vm.dmi_sys_vendor, "QEMU");
	assert_null(vm.dmi_product_name);
	assert_null(vm.hypervisor_type);
	doctor_vm_fini(&vm);

	/* an empty tree: nothing readable, nothing invented */
	tree_teardown(state);
	tree_setup(state);
	t = *state;
	assert_int_equal(doctor_probe_priv(&p, t->root, false, 1000), 0);
	assert_false(p.cap_known);
	doctor_priv_fini(&p);
	assert_int_equal(doctor_probe_sched(&s, t->root, NULL), 0);
	assert_false(s.runtime_known);
	assert_int_equal(s.guard, DOCTOR_GUARD_UNKNOWN);
	doctor_sched_fini(&s);
	assert_int_equal(doctor_probe_cpus(&c, t->root), 0);
	assert_null(c.isolated);
	doctor_cpus_fini(&c);
}

static void test_kernel_version(void **state)
{
	int major, minor;

	(void)state;
	assert_int_equal(doctor_kernel_version("6.12.48-rtlab", &major, &minor), 0);
	assert_true(major == 6 && minor == 12);
	assert_int_equal(doctor_kernel_version("6.1.0-57-rt-amd64", &major, &minor), 0);
	assert_true(major == 6 && minor == 1);
	assert_int_equal(doctor_kernel_version("7.0", &major, &minor), 0);
	assert_true(major == 7 && minor == 0);
	assert_int_equal(doctor_kernel_version("6", &major, &minor), -EINVAL);
	assert_true(major == 0 && minor == 0);
	assert_int_equal(doctor_kernel_version("v6.12", &major, &minor), -EINVAL);
	assert_int_equal(doctor_kernel_version("6.x", &major, &minor), -EINVAL);
	assert_int_equal(doctor_kernel_version(NULL, &major, &minor), -EINVAL);
}

#define FS "/sys/kernel/debug/sched/fair_server"

/* What bounds RT tasks: debugfs when it is there, else the kernel version. */
static void test_sched_fair_server_tree(void **state)
{
	struct tree *t = *state;
	struct doctor_sched s;

	tree_put(t, "/proc/sys/kernel/sched_rt_runtime_us", "950000\n");
	tree_put(t, "/proc/sys/kernel/sched_rt_period_us", "1000000\n");

	/* No debugfs: the version decides, and says it was inferred. */
	assert_int_equal(doctor_probe_sched(&s, t->root, "6.1.0-57-amd64"), 0);
	assert_int_equal(s.guard, DOCTOR_GUARD_THROTTLING);
	assert_false(s.guard_measured);
	assert_false(s.fair_server_dir);
	assert_null(s.fair_server_error);
	doctor_sched_fini(&s);
	assert_int_equal(doctor_probe_sched(&s, t->root, "6.18.44-fc"), 0);
	assert_int_equal(s.guard, DOCTOR_GUARD_FAIR_SERVER);
	assert_false(s.guard_measured);
	assert_true(s.kernel_major == 6 && s.kernel_minor == 18);
	doctor_sched_fini(&s);
	assert_int_equal(doctor_probe_sched(&s, t->root, "6.11.9"), 0);
	assert_int_equal(s.guard, DOCTOR_GUARD_THROTTLING);
	doctor_sched_fini(&s);
	assert_int_equal(doctor_probe_sched(&s, t->root, "custom"), 0);
	assert_int_equal(s.guard, DOCTOR_GUARD_UNKNOWN);
	doctor_sched_fini(&s);

	/* An older kernel's debugfs sched without fair_server confirms throttling. */
	tree_mkdir(t, "/sys/kernel/debug/sched");
	assert_int_equal(doctor_probe_sched(&s, t->root, "6.1.0-57-amd64"), 0);
	assert_int_equal(s.guard, DOCTOR_GUARD_THROTTLING);
	assert_true(s.guard_measured);
	doctor_sched_fini(&s);

	/* The directory without readable values (a stand-in for EPERM: no files). */
	tree_mkdir(t, FS "/cpu0");
	assert_int_equal(doctor_probe_sched(&s, t->root, "custom"), 0);
	assert_int_equal(s.guard, DOCTOR_GUARD_FAIR_SERVER);
	assert_true(s.guard_measured && s.fair_server_dir);
	assert_int_equal(s.fair_server_cpus, 0);
	assert_int_equal(s.fair_runtime_ns, -1);
	assert_non_null(strstr(s.fair_server_error, FS "/cpu0/runtime: "));
	doctor_sched_fini(&s);

	/* Two CPUs with the defaults; debugfs wins over an old version string. */
	tree_put(t, FS "/cpu0/runtime", "50000000\n");
	tree_put(t, FS "/cpu0/period", "1000000000\n");
	tree_put(t, FS "/cpu1/runtime", "50000000\n");
	tree_put(t, FS "/cpu1/period", "1000000000\n");
	tree_put(t, FS "/notacpu", "x\n");
	assert_int_equal(doctor_probe_sched(&s, t->root, "6.1.0"), 0);
	assert_int_equal(s.guard, DOCTOR_GUARD_FAIR_SERVER);
	assert_true(s.guard_measured);
	assert_int_equal(s.fair_server_cpus, 2);
	assert_int_equal(s.fair_runtime_ns, 50000000);
	assert_int_equal(s.fair_period_ns, 1000000000);
	assert_true(s.fair_server_uniform);
	assert_null(s.fair_server_error);
	doctor_sched_fini(&s);

	/* CPUs that differ: the lowest CPU's values, and not uniform. */
	tree_put(t, FS "/cpu10/runtime", "0\n");
	tree_put(t, FS "/cpu10/period", "1000000000\n");
	assert_int_equal(doctor_probe_sched(&s, t->root, "6.12.48"), 0);
	assert_int_equal(s.fair_server_cpus, 3);
	assert_int_equal(s.fair_runtime_ns, 50000000);
	assert_false(s.fair_server_uniform);
	doctor_sched_fini(&s);
}

/*
 * doctor_opts_quick() for one lab runs only that lab's child probes: a
 * latency run tries SCHED_FIFO but no network namespace and no qemu.
 */
static void test_quick_opts_probe_only_the_labs_needs(void **state)
{
	struct doctor_opts o;
	struct doctor_report r;

	(void)state;
	doctor_opts_quick(&o, &lab_latency);
	assert_true(o.active);
	assert_false(o.try_instance || o.mount_tracefs || o.scan_journals);
	assert_true(o.active_needs & LAB_NEED_RT_PRIO);
	assert_false(o.active_needs & (LAB_NEED_NETNS | LAB_NEED_QEMU | LAB_NEED_KVM));
	assert_int_equal(doctor_probe(&r, &o, NULL), 0);
	assert_int_not_equal(r.priv.sched_fifo, DOCTOR_UNKNOWN);	/* tried */
	assert_int_equal(r.net.netns, DOCTOR_UNKNOWN);
	assert_string_equal(r.net.error, "not tried");
	assert_null(r.qemu.version_line);
	assert_true(r.kvm.verdict == DOCTOR_KVM_ABSENT || r.kvm.verdict == DOCTOR_KVM_NOT_PROBED);
	doctor_report_fini(&r);

	/* NULL: every lab, every child probe */
	doctor_opts_quick(&o, NULL);
	assert_int_equal(o.active_needs, ~0u);
	assert_int_equal(doctor_probe(&r, &o, NULL), 0);
	assert_int_not_equal(r.net.netns, DOCTOR_UNKNOWN);
	if (r.qemu.path)
		assert_true(r.qemu.version_line || r.qemu.error);
	doctor_report_fini(&r);
}

/* ---- KVM ------------------------------------------------------------------ */

static void test_kvm_absent_and_not_kvm(void **state)
{
	struct doctor_kvm k;

	(void)state;
	assert_int_equal(doctor_probe_kvm(&k, "/nonexistent/kvm", true, 3000), 0);
	assert_int_equal(k.verdict, DOCTOR_KVM_ABSENT);
	assert_false(k.dev_present);
	assert_string_equal(doctor_kvm_verdict_name(k.verdict), "absent");
	doctor_kvm_fini(&k);

	/* a device that opens but is not KVM: the child must say why it failed */
	assert_int_equal(doctor_probe_kvm(&k, "/dev/null", true, 3000), 0);
	assert_true(k.dev_present);
	assert_int_equal(k.verdict, DOCTOR_KVM_FAILED);
	assert_non_null(strstr(k.detail, "API version"));
	doctor_kvm_fini(&k);

	assert_int_equal(doctor_probe_kvm(&k, "/dev/null", false, 3000), 0);
	assert_int_equal(k.verdict, DOCTOR_KVM_NOT_PROBED);
	doctor_kvm_fini(&k);
}

static void test_kvm_no_permission(void **state)
{
	struct tree *t = *state;
	char dev[128];
	pid_t pid;
	int status;

	if (geteuid() != 0)
		skip();	/* needs root to drop to another user */
	snprintf(dev, sizeof(dev), "%s/kvm", t->root);
	tree_put(t, "/kvm", "");
	assert_int_equal(chmod(dev, 0600), 0);
	assert_int_equal(chmod(t->root, 0755), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct doctor_kvm k;

		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(10);
		if (doctor_probe_kvm(&k, dev, true, 3000) < 0)
			_exit(11);
		_exit(k.verdict == DOCTOR_KVM_NO_PERMISSION ? 0 : 12);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* A Linux guest's verdict as the QEMU room's probe reports it. */
static struct qemu_kvm_verdict fake_verdict(bool tried, bool booted)
{
	struct qemu_kvm_verdict v = { .boot_ms = 640 };

	v.state = !tried ? QEMU_KVM_UNTRIED : booted ? QEMU_KVM_BOOTED : QEMU_KVM_FAILED;
	v.cpu = strdup("host,-arch-capabilities");
	v.kernel = strdup("lab");
	v.detail = booted ? NULL : strdup(tried ? "-cpu host: QEMU exited (status 134)" :
					  "a Linux guest has not been tried (make vm)");
	return v;
}

/*
 * A stand-in device (a regular file with the test guest's report) passes the test guest;
 * KVM then works only when the Linux guest booted.
 */
static void test_kvm_stand_in_and_linux_guest(void **state)
{
	struct tree *t = *state;
	struct qemu_kvm_verdict v;
	struct doctor_kvm k;
	char dev[128], *path;

	snprintf(dev, sizeof(dev), "%s/kvm", t->root);
	tree_put(t, "/kvm", "A 12\nW\n");
	assert_int_equal(doctor_probe_kvm(&k, dev, true, 3000), 0);
	assert_int_equal(k.verdict, DOCTOR_KVM_WORKS);
	assert_true(k.stand_in);
	assert_int_equal(k.api_version, 12);

	/* No Linux guest tried (no image yet): not proven. */
	v = fake_verdict(false, false);
	k.test_guest = k.verdict;
	assert_int_equal(doctor_kvm_take(&k, &v), 0);
	assert_null(v.detail);
	assert_int_equal(k.verdict, DOCTOR_KVM_NOT_PROVEN);
	assert_int_equal(k.test_guest, DOCTOR_KVM_WORKS);
	assert_false(k.linux_guest.tried);
	assert_string_equal(k.detail, "a Linux guest has not been tried (make vm)");
	assert_string_equal(doctor_kvm_verdict_name(k.verdict), "not-proven");
	doctor_kvm_fini(&k);

	assert_int_equal(doctor_probe_kvm(&k, dev, true, 3000), 0);
	v = fake_verdict(true, true);
	assert_int_equal(doctor_kvm_take(&k, &v), 0);
	assert_int_equal(k.verdict, DOCTOR_KVM_WORKS);
	assert_null(k.detail);
	assert_true(k.linux_guest.booted);
	assert_int_equal(k.linux_guest.boot_ms, 640);
	assert_string_equal(k.linux_guest.cpu_model, "host,-arch-capabilities");
	assert_string_equal(k.linux_guest.kernel, "lab");
	doctor_kvm_fini(&k);

	assert_int_equal(doctor_probe_kvm(&k, dev, true, 3000), 0);
	v = fake_verdict(true, false);
	assert_int_equal(doctor_kvm_take(&k, &v), 0);
	assert_int_equal(k.verdict, DOCTOR_KVM_BOOT_FAILED);
	assert_string_equal(doctor_kvm_verdict_name(k.verdict), "boot-failed");
	assert_string_equal(k.detail, "-cpu host: QEMU exited (status 134)");
	doctor_kvm_fini(&k);

	/* A test guest that does not work never gets as far as a Linux guest. */
	assert_int_equal(doctor_probe_kvm(&k, "/nonexistent/kvm", true, 3000), 0);
	assert_int_equal(doctor_kvm_prove(&k, true), 0);
	assert_int_equal(k.verdict, DOCTOR_KVM_ABSENT);
	assert_int_equal(k.test_guest, DOCTOR_KVM_ABSENT);
	assert_false(k.linux_guest.tried);
	assert_int_equal(k.linux_guest.boot_ms, -1);
	doctor_kvm_fini(&k);

	/* $RTLAB_KVM_DEV names the device on the live system only. */
	setenv("RTLAB_KVM_DEV", dev, 1);
	path = qemu_kvm_dev_path("");
	assert_string_equal(path, dev);
	free(path);
	path = qemu_kvm_dev_path("/fixture");
	assert_string_equal(path, "/fixture/dev/kvm");
	free(path);
	unsetenv("RTLAB_KVM_DEV");
	path = qemu_kvm_dev_path("");
	assert_string_equal(path, "/dev/kvm");
	free(path);
}

static void test_kvm_live(void **state)
{
	struct doctor_kvm k;

	(void)state;
	if (access("/dev/kvm", F_OK) < 0)
		skip();	/* no /dev/kvm on this machine: the absent case is tested above */
	/* How long it takes is the machine's; a probe past its 3 s is "hung", with a detail. */
	assert_int_equal(doctor_probe_kvm(&k, "/dev/kvm", true, 3000), 0);
	assert_true(k.verdict == DOCTOR_KVM_WORKS || k.detail != NULL);
	if (k.verdict == DOCTOR_KVM_WORKS)
		assert_int_equal(k.api_version, 12);
	doctor_kvm_fini(&k);
}

/* ---- Network namespaces and tracefs on the live system -------------------- */

static void test_net_live(void **state)
{
	struct doctor_priv p;
	struct doctor_net n;
	bool admin;

	(void)state;
	assert_int_equal(doctor_probe_priv(&p, "", false, 1000), 0);
	admin = p.cap_sys_admin && p.cap_net_admin;
	doctor_priv_fini(&p);
	assert_int_equal(doctor_probe_net(&n, true, 3000), 0);
	if (n.netns == DOCTOR_NO && admin && !strstr(n.error, "not permitted"))
		fail_msg("CAP_SYS_ADMIN but no network namespace: %s", n.error);
	if (n.netns == DOCTOR_YES && n.ip_path)
		assert_int_equal(n.veth, DOCTOR_YES);
	if (!admin)
		assert_int_not_equal(n.netns, DOCTOR_YES);
	if (n.netns != DOCTOR_YES)
		assert_non_null(n.error);
	/* the veth pair lived only in the child's namespace */
	assert_int_equal(if_nametoindex("rtlab-dr0"), 0);
	doctor_net_fini(&n);

	assert_int_equal(doctor_probe_net(&n, false, 3000), 0);
	assert_int_equal(n.netns, DOCTOR_UNKNOWN);
	doctor_net_fini(&n);
}

static void test_tracefs_live_instance(void **state)
{
	struct doctor_tracefs tf;
	char inst[300];

	(void)state;
	if (geteuid() != 0)
		skip();	/* instances need root */
	assert_int_equal(doctor_probe_tracefs(&tf, "", true, false, true), 0);
	if (!tf.mount || !tf.writable) {
		doctor_tracefs_fini(&tf);
		skip();	/* tracefs not mounted or read-only here; the mount test covers mounting */
	}
	assert_true(tf.accessible);
	assert_non_null(tf.tracers);
	assert_int_equal(tf.tracer[DOCTOR_TRACER_FUNCTION] == DOCTOR_YES,
			 doctor_words_has(tf.tracers, tf.ntracers, "function"));
	assert_int_equal(tf.instances, DOCTOR_YES);
	assert_null(tf.instances_error);
	snprintf(inst, sizeof(inst), "%s/instances", tf.mount);
	assert_int_equal(count_prefixed(inst, "rtlab-doctor-"), 0);
	doctor_tracefs_fini(&tf);
}

/* In a private mount namespace: unmount tracefs and let the probe mount it. */
static int mount_child(void)
{
	struct doctor_tracefs tf;
	int code;

	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return 20;
	/*
	 * tracefs can be mounted twice: at /sys/kernel/tracing and, once debugfs is mounted,
	 * automatically at /sys/kernel/debug/tracing. Remove both (debugfs with its automount)
	 * in this private namespace, or the doctor finds the second one and mounts nothing.
	 */
	while (umount2("/sys/kernel/tracing", MNT_DETACH) == 0)
		;
	while (umount2("/sys/kernel/debug", MNT_DETACH) == 0)
		;
	if (doctor_probe_tracefs(&tf, "", true, true, false) < 0)
		return 21;
	code = tf.mounted_by_doctor && tf.accessible &&
	       strcmp(tf.mount, "/sys/kernel/tracing") == 0 ? 0 : 22;
	doctor_tracefs_fini(&tf);
	return code;
}

static void test_tracefs_mounts_when_absent(void **state)
{
	pid_t pid;
	int status;

	(void)state;
	if (geteuid() != 0 || access("/sys/kernel/tracing", F_OK) < 0)
		skip();	/* needs root and a kernel with tracing */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(mount_child());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 20)
		skip();	/* no private mount namespace allowed here (container) */
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* ---- Tier evaluation on hand-made reports --------------------------------- */

static struct rt_journal_stale stale_one = {
	.path = (char *)"/tmp/j/4242.journal", .pid = 4242, .entries = 3,
};

/* A machine that offers everything. */
static void good_report(struct doctor_report *r)
{
	static char *tracers[] = { "irqsoff", "preemptoff", "wakeup_rt", "function", "nop" };

	memset(r, 0, sizeof(*r));
	r->env.kernel_release = (char *)"6.12.0-rt";
	r->env.kernel_version = (char *)"#1 SMP PREEMPT_RT";
	r->env.machine = (char *)"x86_64";
	r->env.preempt_model = (char *)"rt";
	r->env.preempt_source = (char *)"uname -v";
	r->env.realtime = true;
	r->env.cpus = 2;
	r->env.root = true;
	r->vm.cpuid_hypervisor = DOCTOR_NO;
	r->priv.root = true;
	r->priv.cap_known = true;
	r->priv.cap_sys_nice = r->priv.cap_sys_admin = r->priv.cap_net_admin = true;
	r->priv.sched_fifo = DOCTOR_YES;
	r->tracefs.mount = (char *)"/sys/kernel/tracing";
	r->tracefs.accessible = r->tracefs.writable = true;
	r->tracefs.tracers = tracers;
	r->tracefs.ntracers = 5;
	for (int i = 0; i < DOCTOR_TRACER_COUNT; i++)
		r->tracefs.tracer[i] = DOCTOR_YES;
	r->tracefs.sched_switch = r->tracefs.sched_waking = DOCTOR_YES;
	r->tracefs.hist = DOCTOR_YES;
	r->tracefs.instances = DOCTOR_YES;
	r->sched.runtime_known = r->sched.period_known = true;
	r->sched.rt_runtime_us = 950000;
	r->sched.rt_period_us = 1000000;
	r->cpus.online = r->cpus.allowed = 2;
	r->qemu.path = (char *)"/usr/bin/qemu-system-x86_64";
	r->qemu.version = (char *)"7.2.22";
	r->kvm.dev_present = true;
	r->kvm.verdict = r->kvm.test_guest = DOCTOR_KVM_WORKS;
	r->kvm.api_version = 12;
	r->kvm.linux_guest.tried = r->kvm.linux_guest.booted = true;
	r->kvm.linux_guest.kernel = (char *)"lab";
	r->kvm.linux_guest.release = (char *)"6.12.48-rtlab";
	r->kvm.linux_guest.cpu_model = (char *)"host";
	r->kvm.linux_guest.boot_ms = 812;
	r->net.ip_path = (char *)"/usr/sbin/ip";
	r->net.netns = r->net.veth = DOCTOR_YES;
	r->journals.dir = (char *)"/tmp/j";
}

/* Evaluate the lab called @name against @r. */
static void eval(const struct doctor_report *r, const char *name, struct doctor_lab *out)
{
	const struct lab_ops *lab = lab_find(name);

	assert_non_null(lab);
	assert_int_equal(doctor_eval_lab(r, lab, out), 0);
	assert_non_null(out->reason);
}

/* The missing item for @need, or NULL. */
static const struct doctor_missing *missing(const struct doctor_lab *l, unsigned int need)
{
	for (size_t i = 0; i < l->nmissing; i++)
		if (l->missing[i].need == need)
			return &l->missing[i];
	return NULL;
}

static void test_eval_everything_here(void **state)
{
	struct doctor_report r;

	(void)state;
	good_report(&r);
	for (const struct lab_ops *const *lab = lab_table; *lab; lab++) {
		struct doctor_lab l;

		assert_int_equal(doctor_eval_lab(&r, *lab, &l), 0);
		assert_int_equal(l.nmissing, 0);
		assert_false(l.degraded);
		assert_int_equal(l.tier, (*lab)->sim_only ? DOCTOR_TIER_SIMULATION :
							  DOCTOR_TIER_HOST);
		doctor_lab_fini(&l);
	}
}

static void test_eval_ftrace_without_lat_tracers(void **state)
{
	struct doctor_report r;
	struct doctor_lab l;
	const struct doctor_missing *m;

	(void)state;
	good_report(&r);
	r.tracefs.tracer[DOCTOR_TRACER_IRQSOFF] = DOCTOR_NO;
	r.tracefs.tracer[DOCTOR_TRACER_PREEMPTOFF] = DOCTOR_NO;
	eval(&r, "ftrace", &l);
	assert_int_equal(l.tier, DOCTOR_TIER_HOST);
	assert_true(l.degraded);
	m = missing(&l, LAB_NEED_LAT_TRACERS);
	assert_non_null(m);
	assert_false(m->required);
	assert_non_null(strstr(m->what, "irqsoff/preemptoff"));
	assert_null(strstr(m->what, "wakeup_rt"));	/* that one is present */
	assert_non_null(strstr(m->how, "CONFIG_IRQSOFF_TRACER/CONFIG_PREEMPT_TRACER"));
	assert_non_null(strstr(m->how, "classroom VM"));
	assert_non_null(strstr(l.reason, "lat-tracers"));
	doctor_lab_fini(&l);
}

static void test_eval_not_root(void **state)
{
	struct doctor_report r;
	struct doctor_lab l;
	const struct doctor_missing *m;

	(void)state;
	good_report(&r);
	r.env.root = r.priv.root = false;
	r.priv.cap_sys_nice = r.priv.cap_sys_admin = r.priv.cap_net_admin = false;
	r.priv.sched_fifo = DOCTOR_NO;
	r.priv.sched_fifo_error = (char *)"sched_setscheduler: Operation not permitted";

	eval(&r, "latency", &l);	/* RT priority is only a want: degraded host */
	assert_int_equal(l.tier, DOCTOR_TIER_HOST);
	assert_true(l.degraded);
	m = missing(&l, LAB_NEED_RT_PRIO);
	assert_non_null(m);
	assert_non_null(strstr(m->what, "not root and no CAP_SYS_NICE"));
	assert_non_null(strstr(m->how, "sudo"));
	assert_non_null(strstr(m->how, "setcap cap_sys_nice+ep rtlab"));
	doctor_lab_fini(&l);

	eval(&r, "hypervisor", &l);	/* RT priority is a need there */
	assert_int_equal(l.tier, DOCTOR_TIER_SIMULATION);
	assert_true(missing(&l, LAB_NEED_RT_PRIO)->required);
	doctor_lab_fini(&l);

	/* RLIMIT_RTPRIO alone is enough to be allowed */
	r.priv.rtprio_soft = 50;
	r.priv.sched_fifo = DOCTOR_YES;
	eval(&r, "latency", &l);
	assert_null(missing(&l, LAB_NEED_RT_PRIO));
	doctor_lab_fini(&l);
}

static void test_eval_no_qemu(void **state)
{
	struct doctor_report r;
	struct doctor_lab l;
	const struct doctor_missing *m;

	(void)state;
	good_report(&r);
	r.qemu.path = NULL;
	r.qemu.version = NULL;
	eval(&r, "hypervisor", &l);
	assert_int_equal(l.tier, DOCTOR_TIER_SIMULATION);
	m = missing(&l, LAB_NEED_QEMU);
	assert_non_null(m);
	assert_true(m->required);
	assert_non_null(strstr(m->what, "qemu-system-x86_64 not found"));
	assert_string_equal(m->how, "apt-get install qemu-system-x86");
	doctor_lab_fini(&l);

	/* found but broken */
	good_report(&r);
	r.qemu.error = (char *)"qemu-system-x86_64 --version exited with status 1";
	eval(&r, "hypervisor", &l);
	assert_int_equal(l.tier, DOCTOR_TIER_SIMULATION);
	assert_non_null(strstr(missing(&l, LAB_NEED_QEMU)->what, "does not run"));
	doctor_lab_fini(&l);
}

static void test_eval_kvm_verdicts(void **state)
{
	static const struct {
		enum doctor_kvm_verdict v;
		const char *what, *how;
	} cases[] = {
		{ DOCTOR_KVM_ABSENT, "/dev/kvm absent", "nested=1" },
		{ DOCTOR_KVM_NO_PERMISSION, "no permission", "kvm group" },
		{ DOCTOR_KVM_HUNG, "hung", "TCG" },
		{ DOCTOR_KVM_FAILED, "failed", "TCG" },
		{ DOCTOR_KVM_NOT_PROBED, "not probed", "rtlab doctor" },
		{ DOCTOR_KVM_NOT_PROVEN, "KVM not proven: why", "make vm" },
		{ DOCTOR_KVM_BOOT_FAILED, "cannot boot a Linux guest: why", "TCG" },
	};
	struct doctor_report r;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct doctor_lab l;
		const struct doctor_missing *m;

		good_report(&r);
		r.kvm.verdict = cases[i].v;
		r.kvm.detail = (char *)"why";
		eval(&r, "hypervisor", &l);
		assert_int_equal(l.tier, DOCTOR_TIER_HOST);	/* KVM is a want */
		assert_true(l.degraded);
		m = missing(&l, LAB_NEED_KVM);
		assert_non_null(m);
		assert_false(m->required);
		assert_non_null(strstr(m->what, cases[i].what));
		assert_non_null(strstr(m->how, cases[i].how));
		doctor_lab_fini(&l);
	}
}

static void test_eval_fcse_always_simulation(void **state)
{
	struct doctor_report r, empty;
	struct doctor_lab l;

	(void)state;
	good_report(&r);
	eval(&r, "fcse", &l);
	assert_int_equal(l.tier, DOCTOR_TIER_SIMULATION);
	assert_non_null(strstr(l.reason, "hardware"));
	doctor_lab_fini(&l);

	memset(&empty, 0, sizeof(empty));	/* a machine that offers nothing */
	empty.tracefs.error = (char *)"tracefs is not mounted";
	eval(&empty, "fcse", &l);
	assert_int_equal(l.tier, DOCTOR_TIER_SIMULATION);
	doctor_lab_fini(&l);
}

static void test_eval_netns(void **state)
{
	struct doctor_report r;
	struct doctor_lab l;
	const struct doctor_missing *m;

	(void)state;
	good_report(&r);
	r.priv.root = false;
	r.priv.cap_sys_admin = r.priv.cap_net_admin = false;
	r.net.netns = DOCTOR_NO;
	r.net.veth = DOCTOR_UNKNOWN;
	r.net.error = (char *)"unshare(CLONE_NEWNET): Operation not permitted";
	eval(&r, "nop", &l);
	assert_int_equal(l.tier, DOCTOR_TIER_SIMULATION);
	m = missing(&l, LAB_NEED_NETNS);
	assert_non_null(strstr(m->what, "Operation not permitted"));
	assert_non_null(strstr(m->how, "sudo"));
	doctor_lab_fini(&l);

	good_report(&r);
	r.net.ip_path = NULL;
	r.net.veth = DOCTOR_UNKNOWN;
	eval(&r, "nop", &l);
	assert_int_equal(l.tier, DOCTOR_TIER_SIMULATION);
	assert_string_equal(missing(&l, LAB_NEED_NETNS)->how, "apt-get install iproute2");
	doctor_lab_fini(&l);
}

static void test_eval_ftrace_vm_tier(void **state)
{
	struct doctor_report r;
	struct doctor_lab l;
	const struct doctor_missing *m;

	(void)state;
	good_report(&r);
	r.priv.root = r.priv.cap_sys_admin = false;
	r.tracefs.mount = NULL;
	r.tracefs.accessible = r.tracefs.writable = false;
	r.tracefs.error = (char *)"tracefs is not mounted, and mounting it needs root";
	r.qemu.path = NULL;
	eval(&r, "ftrace", &l);
	assert_int_equal(l.tier, DOCTOR_TIER_VM);	/* no simulated form, runs in the VM */
	m = missing(&l, LAB_NEED_TRACE_EVENTS);
	assert_true(m->required);
	assert_non_null(strstr(m->what, "needs root"));
	assert_non_null(strstr(m->how, "sudo"));
	assert_non_null(strstr(l.reason, "classroom VM"));
	assert_non_null(strstr(l.reason, "apt-get install qemu-system-x86"));
	doctor_lab_fini(&l);

	/* mounted but without the sched events */
	good_report(&r);
	r.tracefs.sched_waking = DOCTOR_NO;
	eval(&r, "ftrace", &l);
	assert_int_equal(l.tier, DOCTOR_TIER_VM);
	assert_non_null(strstr(missing(&l, LAB_NEED_TRACE_EVENTS)->what, "sched_waking"));
	doctor_lab_fini(&l);
}

static void test_eval_throttling_and_none_tier(void **state)
{
	static const struct lab_ops bare = {
		.name = "bare", .title = "needs RT, nothing else", .needs = LAB_NEED_RT_PRIO,
	};
	struct doctor_report r;
	struct doctor_lab l;

	(void)state;
	good_report(&r);
	r.sched.rt_runtime_us = 0;
	assert_int_equal(doctor_eval_lab(&r, &bare, &l), 0);
	assert_int_equal(l.tier, DOCTOR_TIER_NONE);
	assert_non_null(strstr(l.missing[0].what, "sched_rt_runtime_us = 0"));
	assert_non_null(strstr(l.missing[0].how, "sysctl"));
	doctor_lab_fini(&l);

	good_report(&r);
	r.priv.sched_fifo = DOCTOR_NO;
	r.priv.sched_fifo_error = (char *)"sched_setscheduler: Operation not permitted";
	assert_int_equal(doctor_eval_lab(&r, &bare, &l), 0);	/* root, yet refused */
	assert_int_equal(l.tier, DOCTOR_TIER_NONE);
	assert_non_null(strstr(l.missing[0].what, "refused"));
	assert_non_null(strstr(l.missing[0].how, "cgroup"));
	doctor_lab_fini(&l);

	good_report(&r);
	r.env.realtime = false;
	r.env.preempt_model = (char *)"voluntary";
	r.env.preempt_source = (char *)"/boot/config";
	eval(&r, "latency", &l);
	assert_true(l.degraded);
	assert_non_null(strstr(missing(&l, LAB_NEED_PREEMPT_RT)->what, "voluntary"));
	assert_non_null(strstr(missing(&l, LAB_NEED_PREEMPT_RT)->how, "linux-image-rt-amd64"));
	doctor_lab_fini(&l);
}

/* No hint may send a learner to an rtlab subcommand that does not exist yet. */
static void assert_only_doctor(const char *s)
{
	for (const char *p = s; (p = strstr(p, "rtlab ")); p++)
		assert_true(strncmp(p, "rtlab doctor", 12) == 0);
}

static void test_eval_hints_name_only_doctor(void **state)
{
	struct doctor_report r;

	(void)state;
	memset(&r, 0, sizeof(r));	/* nothing measured at all */
	r.kvm.verdict = DOCTOR_KVM_NOT_PROBED;
	r.net.netns = r.net.veth = DOCTOR_UNKNOWN;
	r.priv.sched_fifo = DOCTOR_UNKNOWN;
	assert_int_equal(doctor_eval_labs(&r, lab_table), 0);
	assert_true(r.nlabs >= 6);
	for (size_t i = 0; i < r.nlabs; i++) {
		assert_only_doctor(r.labs[i].reason);
		for (size_t m = 0; m < r.labs[i].nmissing; m++) {
			assert_non_null(r.labs[i].missing[m].what);
			assert_non_null(r.labs[i].missing[m].how);
			assert_only_doctor(r.labs[i].missing[m].what);
			assert_only_doctor(r.labs[i].missing[m].how);
		}
		doctor_lab_fini(&r.labs[i]);
	}
	free(r.labs);
}

/* ---- Renderers ------------------------------------------------------------ */

static void test_render_json(void **state)
{
	struct rt_buf b = RT_BUF_INIT;
	struct doctor_report r;
	json_error_t jerr;
	json_t *doc, *labs;

	(void)state;
	good_report(&r);
	r.tracefs.hist = DOCTOR_UNKNOWN;
	r.kvm.api_version = -1;
	r.kvm.verdict = r.kvm.test_guest = DOCTOR_KVM_ABSENT;
	r.journals.stale = &stale_one;
	r.journals.nstale = 1;
	assert_int_equal(doctor_eval_labs(&r, lab_table), 0);
	assert_int_equal(doctor_render_json(&r, &b), 0);

	doc = json_loads(rt_buf_str(&b), 0, &jerr);
	if (!doc)
		fail_msg("invalid JSON: %s", jerr.text);
	assert_string_equal(json_string_value(json_object_get(doc, "schema")), "rtlab.doctor/1");
	assert_true(json_is_string(json_object_get(doc, "rtlab_version")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "kernel"),
							      "release")), "6.12.0-rt");
	assert_true(json_is_true(json_object_get(json_object_get(doc, "kernel"), "realtime")));
	assert_true(json_is_integer(json_object_get(json_object_get(doc, "cpus"), "online")));
	assert_true(json_is_null(json_object_get(json_object_get(doc, "cpus"), "isolated")));
	assert_true(json_is_null(json_object_get(json_object_get(doc, "tracefs"),
						 "hist_triggers")));
	assert_true(json_is_true(json_object_get(json_object_get(json_object_get(doc, "tracefs"),
								 "tracers"), "irqsoff")));
	assert_int_equal(json_array_size(json_object_get(json_object_get(doc, "tracefs"),
							 "available_tracers")), 5);
	assert_true(json_is_null(json_object_get(json_object_get(doc, "kvm"), "api_version")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "kvm"),
							      "verdict")), "absent");
	assert_true(json_is_null(json_object_get(json_object_get(doc, "kvm"), "linux_guest")));
	assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(
		json_object_get(doc, "journals"), "stale"), 0), "pid")), 4242);
	assert_true(json_is_null(json_object_get(json_object_get(doc, "journals"), "restore")));
	labs = json_object_get(doc, "labs");
	assert_int_equal(json_array_size(labs), r.nlabs);
	for (size_t i = 0; i < json_array_size(labs); i++) {
		json_t *l = json_array_get(labs, i);

		assert_string_equal(json_string_value(json_object_get(l, "name")),
				    lab_table[i]->name);
		assert_true(json_is_string(json_object_get(l, "tier")));
		assert_true(json_is_boolean(json_object_get(l, "degraded")));
		assert_true(json_is_array(json_object_get(l, "missing")));
	}
	json_decref(doc);

	/* The test guest ran; the Linux guest's verdict is its own object. */
	rt_buf_reset(&b);
	r.kvm.test_guest = DOCTOR_KVM_WORKS;
	r.kvm.verdict = DOCTOR_KVM_BOOT_FAILED;
	r.kvm.linux_guest.booted = false;
	r.kvm.linux_guest.release = NULL;
	r.kvm.linux_guest.detail = (char *)"-cpu host: QEMU exited (status 134)";
	assert_int_equal(doctor_render_json(&r, &b), 0);
	doc = json_loads(rt_buf_str(&b), 0, &jerr);
	if (!doc)
		fail_msg("invalid JSON: %s", jerr.text);
	labs = json_object_get(doc, "kvm");
	assert_string_equal(json_string_value(json_object_get(labs, "verdict")), "boot-failed");
	assert_string_equal(json_string_value(json_object_get(labs, "test_guest")), "works");
	assert_true(json_is_false(json_object_get(labs, "stand_in")));
	labs = json_object_get(labs, "linux_guest");
	assert_true(json_is_true(json_object_get(labs, "tried")));
	assert_true(json_is_false(json_object_get(labs, "booted")));
	assert_true(json_is_false(json_object_get(labs, "cached")));
	assert_string_equal(json_string_value(json_object_get(labs, "kernel")), "lab");
	assert_true(json_is_null(json_object_get(labs, "release")));
	assert_string_equal(json_string_value(json_object_get(labs, "cpu_model")), "host");
	assert_int_equal(json_integer_value(json_object_get(labs, "boot_ms")), 812);
	assert_string_equal(json_string_value(json_object_get(labs, "detail")),
			    "-cpu host: QEMU exited (status 134)");
	json_decref(doc);
	rt_buf_fini(&b);
	for (size_t i = 0; i < r.nlabs; i++)
		doctor_lab_fini(&r.labs[i]);
	free(r.labs);
}

static void test_render_text(void **state)
{
	/* Every registered lab and a planned one: the registry may have none left. */
	static const struct lab_ops someday = {
		.name = "someday", .title = "A lab still to come", .summary = "Planned.",
		.lesson = 1, .state = LAB_STATE_PLANNED, .issue = 99, .sim = true,
	};
	const struct lab_ops *table[64];
	struct rt_buf b = RT_BUF_INIT;
	struct doctor_report r;
	const char *s;
	size_t n = 0;

	(void)state;
	for (const struct lab_ops *const *lab = lab_table; *lab && n < 62; lab++)
		table[n++] = *lab;
	table[n++] = &someday;
	table[n] = NULL;
	good_report(&r);
	r.journals.stale = &stale_one;
	r.journals.nstale = 1;
	assert_int_equal(doctor_eval_labs(&r, table), 0);
	assert_int_equal(doctor_render_text(&r, &b), 0);
	s = rt_buf_str(&b);
	for (const struct lab_ops *const *lab = lab_table; *lab; lab++)
		assert_non_null(strstr(s, (*lab)->name));
	assert_non_null(strstr(s, "\n  !!  1 journal left by killed runs"));
	assert_non_null(strstr(s, "rtlab doctor --restore"));
	assert_non_null(strstr(s, "/tmp/j/4242.journal: pid 4242, 3 changes"));
	assert_non_null(strstr(s, "\n  ok  KVM works: a Linux guest (lab kernel 6.12.48-rtlab) "
			       "booted to rtlab in 812 ms with -cpu host (API 12)\n"));
	assert_non_null(strstr(s, "planned"));

	/* A test guest that runs is not enough. */
	rt_buf_reset(&b);
	r.kvm.verdict = DOCTOR_KVM_NOT_PROVEN;
	r.kvm.detail = (char *)"a Linux guest has not been tried (make vm)";
	assert_int_equal(doctor_render_text(&r, &b), 0);
	s = rt_buf_str(&b);
	assert_null(strstr(s, "KVM works"));
	assert_non_null(strstr(s, "\n  --  KVM: not proven; a Linux guest has not been tried "
			       "(make vm) (the test guest ran, API 12)\n"));
	rt_buf_reset(&b);
	r.kvm.verdict = DOCTOR_KVM_BOOT_FAILED;
	r.kvm.linux_guest.booted = false;
	r.kvm.linux_guest.detail = (char *)"-cpu host: QEMU exited (status 134)";
	assert_int_equal(doctor_render_text(&r, &b), 0);
	s = rt_buf_str(&b);
	assert_non_null(strstr(s, "\n  !!  KVM cannot boot Linux here, so guests run under "
			       "TCG: -cpu host: QEMU exited (status 134)\n"));
	r.kvm.verdict = DOCTOR_KVM_WORKS;
	r.kvm.linux_guest.booted = true;
	r.kvm.linux_guest.detail = NULL;
	r.kvm.detail = NULL;

	/* after a successful restore the hint is gone and the count is reported */
	rt_buf_reset(&b);
	r.journals.restore_attempted = r.journals.restore_ok = true;
	r.journals.restored = 1;
	assert_int_equal(doctor_render_text(&r, &b), 0);
	s = rt_buf_str(&b);
	assert_null(strstr(s, "run `rtlab doctor --restore`"));
	assert_non_null(strstr(s, "1 journal replayed"));
	rt_buf_fini(&b);
	for (size_t i = 0; i < r.nlabs; i++)
		doctor_lab_fini(&r.labs[i]);
	free(r.labs);
}

/* doctor --json of @r, parsed; the test fails on invalid JSON. */
static json_t *rendered_json(const struct doctor_report *r, struct rt_buf *b)
{
	json_error_t jerr;
	json_t *doc;

	rt_buf_reset(b);
	assert_int_equal(doctor_render_json(r, b), 0);
	doc = json_loads(rt_buf_str(b), 0, &jerr);
	if (!doc)
		fail_msg("invalid JSON: %s", jerr.text);
	return doc;
}

/*
 * The preemption model's switch on fixture trees: switchable where debugfs
 * is mounted and sched/preempt names the active model (as root); each
 * other case stops where it stops, with the reason, rendered in both forms.
 */
static void test_preempt_tree(void **state)
{
	struct tree *t = *state;
	struct doctor_preempt p;
	struct doctor_report r;
	struct rt_buf b = RT_BUF_INIT;
	json_t *doc, *o;

	tree_put(t, "/proc/mounts", mounts_text);
	tree_put(t, "/sys/kernel/debug/sched/preempt", "none (voluntary) full lazy\n");
	assert_int_equal(doctor_probe_preempt(&p, t->root, true), 0);
	assert_int_equal(p.stop, RT_PREEMPT_OK);
	assert_string_equal(p.current, "voluntary");
	assert_string_equal(p.offered, "none voluntary full lazy");
	assert_int_equal(p.switchable, geteuid() == 0);
	good_report(&r);
	r.preempt = p;
	doc = rendered_json(&r, &b);
	o = json_object_get(doc, "preempt_switch");
	assert_int_equal(json_is_true(json_object_get(o, "switchable")), geteuid() == 0);
	assert_string_equal(json_string_value(json_object_get(o, "current")), "voluntary");
	json_decref(doc);
	doctor_preempt_fini(&p);

	/* Not PREEMPT_DYNAMIC: a fixed model. */
	assert_int_equal(doctor_probe_preempt(&p, t->root, false), 0);
	assert_false(p.switchable);
	assert_int_equal(p.stop, RT_PREEMPT_NOT_DYNAMIC);
	assert_non_null(strstr(p.why, "not PREEMPT_DYNAMIC"));
	good_report(&r);
	r.preempt = p;
	assert_int_equal(doctor_render_text(&r, &b), 0);
	assert_non_null(strstr(rt_buf_str(&b), "not switchable at run time (not-dynamic)"));
	doc = rendered_json(&r, &b);
	o = json_object_get(doc, "preempt_switch");
	assert_string_equal(json_string_value(json_object_get(o, "stop")), "not-dynamic");
	assert_true(json_is_null(json_object_get(o, "current")));
	json_decref(doc);
	doctor_preempt_fini(&p);

	/* debugfs not mounted. */
	tree_put(t, "/proc/mounts", "proc /proc proc rw 0 0\n");
	assert_int_equal(doctor_probe_preempt(&p, t->root, true), 0);
	assert_int_equal(p.stop, RT_PREEMPT_NO_DEBUGFS);
	assert_non_null(strstr(p.why, "mount -t debugfs"));
	doctor_preempt_fini(&p);
	rt_buf_fini(&b);
}

/* The section on what bounds RT tasks says what the running kernel does. */
static void test_render_rt_guard(void **state)
{
	struct rt_buf b = RT_BUF_INIT;
	struct doctor_report r;
	json_t *doc, *o;
	const char *s;

	(void)state;
	good_report(&r);
	r.sched.kernel_major = 6;
	r.sched.kernel_minor = 1;
	r.sched.guard = DOCTOR_GUARD_THROTTLING;
	assert_int_equal(doctor_render_text(&r, &b), 0);
	s = rt_buf_str(&b);
	assert_non_null(strstr(s, "\n  ok  RT throttling (kernel 6.1, before 6.12; inferred from "
			       "the version): real-time tasks may use 950000 us of every "
			       "1000000 us (95%), then wait"));
	assert_null(strstr(s, "fair server"));
	assert_int_equal(doctor_render_json(&r, &b), 0);

	/* 6.12 and later, read from debugfs. */
	rt_buf_reset(&b);
	r.sched.kernel_minor = 18;
	r.sched.guard = DOCTOR_GUARD_FAIR_SERVER;
	r.sched.guard_measured = r.sched.fair_server_dir = true;
	r.sched.fair_server_cpus = 2;
	r.sched.fair_runtime_ns = 50000000;
	r.sched.fair_period_ns = 1000000000;
	r.sched.fair_server_uniform = true;
	assert_int_equal(doctor_render_text(&r, &b), 0);
	s = rt_buf_str(&b);
	assert_null(strstr(s, "RT tasks may use"));
	assert_non_null(strstr(s, "\n  ok  fair server (kernel 6.18, since 6.12): each CPU runs "
			       "waiting SCHED_OTHER tasks for 50000 us of every 1000000 us (5%; "
			       "debugfs sched/fair_server, the same on every CPU)\n"));
	assert_non_null(strstr(s, "real-time tasks are not throttled while no SCHED_OTHER task "
			       "waits"));
	assert_non_null(strstr(s, "sched_rt_runtime_us 950000 of sched_rt_period_us 1000000 "
			       "(95%) now only bounds admission control"));
	doc = rendered_json(&r, &b);
	o = json_object_get(doc, "rt_throttling");
	assert_string_equal(json_string_value(json_object_get(o, "mechanism")), "fair-server");
	assert_string_equal(json_string_value(json_object_get(o, "mechanism_source")), "debugfs");
	assert_int_equal(json_integer_value(json_object_get(o, "rt_runtime_us")), 950000);
	o = json_object_get(o, "fair_server");
	assert_int_equal(json_integer_value(json_object_get(o, "runtime_ns")), 50000000);
	assert_int_equal(json_integer_value(json_object_get(o, "period_ns")), 1000000000);
	assert_int_equal(json_integer_value(json_object_get(o, "cpus")), 2);
	assert_true(json_is_true(json_object_get(o, "uniform")));
	assert_true(json_is_null(json_object_get(o, "error")));
	json_decref(doc);

	/* Switched off on a CPU: that needs attention. */
	rt_buf_reset(&b);
	r.sched.fair_runtime_ns = 0;
	assert_int_equal(doctor_render_text(&r, &b), 0);
	assert_non_null(strstr(rt_buf_str(&b), "\n  !!  fair server off"));

	/* Present but unreadable, and inferred from the version. */
	rt_buf_reset(&b);
	r.sched.fair_server_cpus = 0;
	r.sched.fair_runtime_ns = r.sched.fair_period_ns = -1;
	r.sched.fair_server_error = (char *)FS "/cpu0/runtime: Operation not permitted";
	assert_int_equal(doctor_render_text(&r, &b), 0);
	assert_non_null(strstr(rt_buf_str(&b), "debugfs sched/fair_server is there but "
			       "unreadable: " FS "/cpu0/runtime: Operation not permitted): by "
			       "default each CPU runs waiting SCHED_OTHER tasks for 50000 us"));
	rt_buf_reset(&b);
	r.sched.guard_measured = r.sched.fair_server_dir = false;
	r.sched.fair_server_error = NULL;
	assert_int_equal(doctor_render_text(&r, &b), 0);
	assert_non_null(strstr(rt_buf_str(&b), "inferred from the version, debugfs "
			       "sched/fair_server not found"));
	doc = rendered_json(&r, &b);
	o = json_object_get(doc, "rt_throttling");
	assert_string_equal(json_string_value(json_object_get(o, "mechanism_source")),
			    "kernel-version");
	assert_true(json_is_null(json_object_get(json_object_get(o, "fair_server"),
						 "runtime_ns")));
	json_decref(doc);

	/* No version, no debugfs: say what is not known. */
	rt_buf_reset(&b);
	r.sched.guard = DOCTOR_GUARD_UNKNOWN;
	r.sched.kernel_major = r.sched.kernel_minor = 0;
	assert_int_equal(doctor_render_text(&r, &b), 0);
	assert_non_null(strstr(rt_buf_str(&b), "the kernel version is unknown"));
	doc = rendered_json(&r, &b);
	o = json_object_get(doc, "rt_throttling");
	assert_true(json_is_null(json_object_get(o, "mechanism")));
	assert_true(json_is_null(json_object_get(o, "fair_server")));
	json_decref(doc);
	rt_buf_fini(&b);
}

/* ---- The whole probe ------------------------------------------------------ */

static void test_probe_live(void **state)
{
	struct tree *t = *state;
	struct doctor_report r;
	struct doctor_opts o;
	struct utsname u;
	char *cause = NULL;

	/* No clock: every child of the probe has rt_child's deadline, tested in test_rt_child. */
	doctor_opts_init(&o);
	o.journal_dir = t->root;
	o.mount_tracefs = false;
	assert_int_equal(doctor_probe(&r, &o, &cause), 0);
	assert_null(cause);
	assert_int_equal(uname(&u), 0);
	assert_string_equal(r.env.kernel_release, u.release);
	assert_int_equal(r.cpus.online, (unsigned int)sysconf(_SC_NPROCESSORS_ONLN));
	assert_int_equal(r.priv.root, geteuid() == 0);
	assert_string_equal(r.journals.dir, t->root);
	assert_null(r.journals.error);
	assert_int_equal(r.journals.nstale, 0);
	assert_int_not_equal(r.kvm.verdict, DOCTOR_KVM_NOT_PROBED);
	assert_int_equal(r.kvm.dev_present, access("/dev/kvm", F_OK) == 0);
	assert_true(r.nlabs > 0);
	doctor_report_fini(&r);
	doctor_report_fini(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_mount),
		cmocka_unit_test_setup_teardown(test_preempt_tree, tree_setup, tree_teardown),
		cmocka_unit_test(test_parse_capeff),
		cmocka_unit_test(test_parse_tracers),
		cmocka_unit_test(test_parse_trigger),
		cmocka_unit_test(test_parse_numbers_and_qemu),
		cmocka_unit_test_setup_teardown(test_tracefs_tree_full, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_tracefs_tree_hist_file_and_none, tree_setup,
						tree_teardown),
		cmocka_unit_test_setup_teardown(test_tracefs_tree_not_mounted, tree_setup,
						tree_teardown),
		cmocka_unit_test_setup_teardown(test_priv_sched_cpus_vm_tree, tree_setup,
						tree_teardown),
		cmocka_unit_test(test_kernel_version),
		cmocka_unit_test_setup_teardown(test_sched_fair_server_tree, tree_setup,
						tree_teardown),
		cmocka_unit_test(test_quick_opts_probe_only_the_labs_needs),
		cmocka_unit_test(test_kvm_absent_and_not_kvm),
		cmocka_unit_test_setup_teardown(test_kvm_no_permission, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_kvm_stand_in_and_linux_guest, tree_setup,
						tree_teardown),
		cmocka_unit_test(test_kvm_live),
		cmocka_unit_test(test_net_live),
		cmocka_unit_test(test_tracefs_live_instance),
		cmocka_unit_test(test_tracefs_mounts_when_absent),
		cmocka_unit_test(test_eval_everything_here),
		cmocka_unit_test(test_eval_ftrace_without_lat_tracers),
		cmocka_unit_test(test_eval_not_root),
		cmocka_unit_test(test_eval_no_qemu),
		cmocka_unit_test(test_eval_kvm_verdicts),
		cmocka_unit_test(test_eval_fcse_always_simulation),
		cmocka_unit_test(test_eval_netns),
		cmocka_unit_test(test_eval_ftrace_vm_tier),
		cmocka_unit_test(test_eval_throttling_and_none_tier),
		cmocka_unit_test(test_eval_hints_name_only_doctor),
		cmocka_unit_test(test_render_json),
		cmocka_unit_test(test_render_text),
		cmocka_unit_test(test_render_rt_guard),
		cmocka_unit_test_setup_teardown(test_probe_live, tree_setup, tree_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
