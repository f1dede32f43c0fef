/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * doctor_probe: the probes that read files (VM evidence, privileges,
 * tracefs, RT throttling, CPUs) and the QEMU check. The KVM guest and the
 * network namespace have files of their own.
 *
 * A probe never fails because a feature is missing: it records NO or
 * UNKNOWN with a reason, and returns an error only when memory ran out.
 * The one change it may make to the host is mounting tracefs where it is
 * absent (as DESIGN.md says rtlab does); the report says when that happened.
 * The tracefs instance it creates to test instances goes through the undo
 * journal and is removed at once.
 */
#include "doctor_probe.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <tracefs.h>

#include "core/rt_child.h"
#include "core/rt_file.h"
#include "core/rt_journal.h"
#include "core/rt_log.h"
#include "core/rt_preempt.h"
#include "core/rt_which.h"
#include "doctor_int.h"
#include "doctor_parse.h"

/* Capability numbers from <linux/capability.h>, without needing libcap. */
#define DOCTOR_CAP_NET_ADMIN 12
#define DOCTOR_CAP_SYS_ADMIN 21
#define DOCTOR_CAP_SYS_NICE 23

#define DOCTOR_READ_MAX (1u << 20)

/* ---- Helpers -------------------------------------------------------------- */

char *doctor_read(const char *root, const char *path)
{
	char *full = NULL, *data = NULL;
	size_t len = 0;
	int ret;

	if (asprintf(&full, "%s%s", root ? root : "", path) < 0) {
		errno = ENOMEM;
		return NULL;
	}
	ret = rt_file_read(full, DOCTOR_READ_MAX, &data, &len);
	free(full);
	if (ret < 0) {
		errno = -ret;
		return NULL;
	}
	while (len && (data[len - 1] == '\n' || data[len - 1] == ' ' || data[len - 1] == '\t'))
		data[--len] = '\0';
	return data;
}

bool doctor_exists(const char *root, const char *path)
{
	char *full = NULL;
	bool ok;

	if (asprintf(&full, "%s%s", root ? root : "", path) < 0)
		return false;
	ok = access(full, F_OK) == 0;
	free(full);
	return ok;
}

/* ---- VM evidence ---------------------------------------------------------- */

int doctor_probe_vm(struct doctor_vm *vm, const char *root, bool use_cpuid)
{
	memset(vm, 0, sizeof(*vm));
	vm->cpuid_hypervisor = DOCTOR_UNKNOWN;
#if defined(__x86_64__) || defined(__i386__)
	if (use_cpuid) {
		unsigned int eax, ebx, ecx, edx;

		vm->cpuid_hypervisor = DOCTOR_NO;
		if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 31))) {
			char sig[13];

			vm->cpuid_hypervisor = DOCTOR_YES;
			__cpuid(0x40000000, eax, ebx, ecx, edx);
			memcpy(sig, &ebx, 4);
			memcpy(sig + 4, &ecx, 4);
			memcpy(sig + 8, &edx, 4);
			sig[12] = '\0';
			if (sig[0] && !(vm->cpuid_vendor = strdup(sig)))
				return -ENOMEM;
		}
	}
#else
	(void)use_cpuid;
#endif
	/* Absent files are the normal case (no DMI on Firecracker, no Xen). */
	vm->dmi_sys_vendor = doctor_read(root, "/sys/class/dmi/id/sys_vendor");
	vm->dmi_product_name = doctor_read(root, "/sys/class/dmi/id/product_name");
	vm->hypervisor_type = doctor_read(root, "/sys/hypervisor/type");
	return 0;
}

void doctor_vm_fini(struct doctor_vm *vm)
{
	free(vm->cpuid_vendor);
	free(vm->dmi_sys_vendor);
	free(vm->dmi_product_name);
	free(vm->hypervisor_type);
	memset(vm, 0, sizeof(*vm));
}

/* ---- Privileges ----------------------------------------------------------- */

/* Child: become SCHED_FIFO 1 and exit at once; say why not. */
static int try_sched_fifo(void *arg)
{
	struct sched_param sp = { .sched_priority = 1 };
	const char *msg;

	(void)arg;
	if (sched_setscheduler(0, SCHED_FIFO, &sp) == 0)
		return 0;
	msg = strerror(errno);
	if (write(1, msg, strlen(msg)) < 0)
		return 2;
	return 1;
}

static long long rlim_value(rlim_t v)
{
	return v == RLIM_INFINITY ? -1 : (long long)v;
}

int doctor_probe_priv(struct doctor_priv *p, const char *root, bool active,
		      unsigned int timeout_ms)
{
	struct rt_child_opts co = { .fn = try_sched_fifo, .in = RT_CHILD_NULL,
				    .out = RT_CHILD_CAPTURE, .err = RT_CHILD_TO_STDOUT };
	struct rt_child_result res;
	struct rlimit rl;
	char *status;
	int ret = 0;

	memset(p, 0, sizeof(*p));
	p->euid = geteuid();
	p->root = p->euid == 0;

	status = doctor_read(root, "/proc/self/status");
	if (status && doctor_parse_status_hex(status, "CapEff:", &p->cap_eff) == 0) {
		p->cap_known = true;
		p->cap_sys_nice = p->cap_eff >> DOCTOR_CAP_SYS_NICE & 1;
		p->cap_sys_admin = p->cap_eff >> DOCTOR_CAP_SYS_ADMIN & 1;
		p->cap_net_admin = p->cap_eff >> DOCTOR_CAP_NET_ADMIN & 1;
	}
	free(status);

	p->rtprio_soft = p->rtprio_hard = 0;
	if (getrlimit(RLIMIT_RTPRIO, &rl) == 0) {
		p->rtprio_soft = rlim_value(rl.rlim_cur);
		p->rtprio_hard = rlim_value(rl.rlim_max);
	}

	p->sched_fifo = DOCTOR_UNKNOWN;
	if (!active)
		return doctor_set_str(&p->sched_fifo_error, "not tried");
	ret = rt_child_run(&co, timeout_ms, &res, NULL);
	if (ret < 0)
		return doctor_set_str(&p->sched_fifo_error, "could not start a child: %s",
				      strerror(-ret));
	if (res.end == RT_CHILD_EXITED && res.code == 0) {
		p->sched_fifo = DOCTOR_YES;
	} else {
		p->sched_fifo = DOCTOR_NO;
		if (res.end == RT_CHILD_EXITED && res.code == 1)
			ret = doctor_set_str(&p->sched_fifo_error, "sched_setscheduler: %s",
					     res.out);
		else
			ret = doctor_describe_child(&p->sched_fifo_error, "the SCHED_FIFO test",
						    &res, timeout_ms);
	}
	rt_child_result_fini(&res);
	return ret;
}

void doctor_priv_fini(struct doctor_priv *p)
{
	free(p->sched_fifo_error);
	memset(p, 0, sizeof(*p));
}

/* ---- tracefs -------------------------------------------------------------- */

static const char *const tracer_names[DOCTOR_TRACER_COUNT] = {
	[DOCTOR_TRACER_IRQSOFF] = "irqsoff",
	[DOCTOR_TRACER_PREEMPTOFF] = "preemptoff",
	[DOCTOR_TRACER_PREEMPTIRQSOFF] = "preemptirqsoff",
	[DOCTOR_TRACER_WAKEUP] = "wakeup",
	[DOCTOR_TRACER_WAKEUP_RT] = "wakeup_rt",
	[DOCTOR_TRACER_WAKEUP_DL] = "wakeup_dl",
	[DOCTOR_TRACER_TIMERLAT] = "timerlat",
	[DOCTOR_TRACER_OSNOISE] = "osnoise",
	[DOCTOR_TRACER_HWLAT] = "hwlat",
	[DOCTOR_TRACER_FUNCTION] = "function",
	[DOCTOR_TRACER_FUNCTION_GRAPH] = "function_graph",
};

const char *doctor_tracer_name(enum doctor_tracer t)
{
	return (unsigned int)t < DOCTOR_TRACER_COUNT ? tracer_names[t] : "?";
}

/* Does the event dir "<dir>/events/<event>" offer hist triggers? UNKNOWN if no such event. */
static enum doctor_tri event_hist(const char *dir, const char *event)
{
	char *path = NULL, *trigger;
	enum doctor_tri ans = DOCTOR_UNKNOWN;

	if (asprintf(&path, "%s/events/%s", dir, event) < 0)
		return DOCTOR_UNKNOWN;
	if (!doctor_exists(path, "/trigger") && !doctor_exists(path, "/hist"))
		goto out;
	if (doctor_exists(path, "/hist")) {
		ans = DOCTOR_YES;
		goto out;
	}
	trigger = doctor_read(path, "/trigger");
	if (trigger)
		ans = doctor_parse_trigger_has_hist(trigger) ? DOCTOR_YES : DOCTOR_NO;
	free(trigger);
out:
	free(path);
	return ans;
}

/* hist triggers, asked of the sched events or else of the first event found. */
static enum doctor_tri probe_hist(const char *dir)
{
	enum doctor_tri ans = event_hist(dir, "sched/sched_switch");
	char *events = NULL;
	DIR *sys_dir;
	struct dirent *sys;

	if (ans == DOCTOR_UNKNOWN)
		ans = event_hist(dir, "sched/sched_waking");
	if (ans != DOCTOR_UNKNOWN || asprintf(&events, "%s/events", dir) < 0)
		return ans;
	sys_dir = opendir(events);
	while (sys_dir && ans == DOCTOR_UNKNOWN && (sys = readdir(sys_dir))) {
		char *sub = NULL;
		DIR *ev_dir;
		struct dirent *ev;

		if (sys->d_name[0] == '.' || asprintf(&sub, "%s/%s", events, sys->d_name) < 0)
			continue;
		ev_dir = opendir(sub);
		while (ev_dir && ans == DOCTOR_UNKNOWN && (ev = readdir(ev_dir))) {
			char *name = NULL;

			if (ev->d_name[0] == '.' ||
			    asprintf(&name, "%s/%s", sys->d_name, ev->d_name) < 0)
				continue;
			ans = event_hist(dir, name);
			free(name);
		}
		if (ev_dir)
			closedir(ev_dir);
		free(sub);
	}
	if (sys_dir)
		closedir(sys_dir);
	free(events);
	return ans;
}

/*
 * Create and remove instances/rtlab-doctor-<pid>; nothing may be left behind.
 * On the real tracefs the instance is made through the undo journal, so a
 * doctor killed between the two steps leaves a journal that the next start
 * replays. A fixture tree (unit tests) is not the host and is used directly.
 */
static int probe_instance_journalled(struct doctor_tracefs *t, const char *name)
{
	struct rt_journal *j;
	char *cause = NULL;
	int ret = 0, rc;

	j = rt_journal_open(NULL, &cause);
	if (!j) {
		t->instances = DOCTOR_UNKNOWN;
		ret = doctor_set_str(&t->instances_error, "not tried: no undo journal: %s",
				     cause ? cause : strerror(errno));
		goto out_free;
	}
	rc = rt_journal_create_instance(j, name, &cause);
	if (rc == 0) {
		t->instances = DOCTOR_YES;
	} else {
		t->instances = DOCTOR_NO;
		ret = doctor_set_str(&t->instances_error, "%s", cause ? cause : strerror(-rc));
	}
	rc = rt_journal_close(j);
	if (rc < 0) {
		rt_log(RT_LOG_ERR, "doctor: could not remove the tracefs instance %s: %s", name,
		       strerror(-rc));
		if (!ret)
			ret = doctor_set_str(&t->instances_error,
					     "created %s but could not remove it: %s", name,
					     strerror(-rc));
	}
out_free:
	free(cause);
	return ret;
}

static bool is_real_tracefs(const char *dir)
{
	const char *real = tracefs_tracing_dir();
	char *a, *b;
	bool same;

	if (!real)
		return false;
	a = realpath(dir, NULL);
	b = realpath(real, NULL);
	same = a && b && strcmp(a, b) == 0;
	free(a);
	free(b);
	return same;
}

static int probe_instance(struct doctor_tracefs *t, const char *dir)
{
	char name[64];
	char *path = NULL;
	int rc, ret = 0;

	snprintf(name, sizeof(name), "rtlab-doctor-%d", (int)getpid());
	if (is_real_tracefs(dir))
		return probe_instance_journalled(t, name);
	if (asprintf(&path, "%s/instances/%s", dir, name) < 0)
		return -ENOMEM;
	rc = mkdir(path, 0750);
	if (rc < 0) {
		t->instances = DOCTOR_NO;
		ret = doctor_set_str(&t->instances_error, "mkdir %s: %s", path, strerror(errno));
		goto out_free;
	}
	t->instances = DOCTOR_YES;
	if (rmdir(path) < 0)
		ret = doctor_set_str(&t->instances_error,
				     "created %s but could not remove it: %s", path,
				     strerror(errno));
out_free:
	free(path);
	return ret;
}

/* Find, or mount, tracefs; sets t->mount or t->error. */
static int find_tracefs(struct doctor_tracefs *t, const char *root, bool privileged,
			bool may_mount)
{
	static const char def[] = "/sys/kernel/tracing";
	char *mounts = doctor_read(root, "/proc/mounts");
	char *target = NULL;
	int ret = 0;

	if (!mounts)
		return doctor_set_str(&t->error, "cannot read /proc/mounts: %s", strerror(errno));
	t->mount = doctor_parse_mount(mounts, "tracefs", def);
	free(mounts);
	if (t->mount)
		return 0;
	if (errno == ENOMEM)
		return -ENOMEM;
	if (!may_mount)
		return doctor_set_str(&t->error, "tracefs is not mounted");
	if (!privileged)
		return doctor_set_str(&t->error,
				      "tracefs is not mounted, and mounting it needs root");
	if (asprintf(&target, "%s%s", root, def) < 0)
		return -ENOMEM;
	if (mount("nodev", target, "tracefs", 0, NULL) == 0) {
		rt_log(RT_LOG_INFO, "doctor: mounted tracefs at %s", target);
		t->mounted_by_doctor = true;
		ret = doctor_dup_str(&t->mount, def);
	} else {
		ret = doctor_set_str(&t->error,
				     "tracefs is not mounted, and mounting it at %s failed: %s",
				     def, strerror(errno));
	}
	free(target);
	return ret;
}

int doctor_probe_tracefs(struct doctor_tracefs *t, const char *root, bool privileged,
			 bool may_mount, bool try_instance)
{
	char *dir = NULL, *text = NULL, *path = NULL;
	int ret;

	memset(t, 0, sizeof(*t));
	for (int i = 0; i < DOCTOR_TRACER_COUNT; i++)
		t->tracer[i] = DOCTOR_UNKNOWN;
	t->sched_switch = t->sched_waking = t->hist = t->instances = DOCTOR_UNKNOWN;

	ret = find_tracefs(t, root, privileged, may_mount);
	if (ret || !t->mount)
		goto out_instances;
	if (asprintf(&dir, "%s%s", root, t->mount) < 0) {
		ret = -ENOMEM;
		goto out;
	}
	text = doctor_read(dir, "/available_tracers");
	if (!text) {
		ret = doctor_set_str(&t->error, "cannot read %s/available_tracers: %s", t->mount,
				     strerror(errno));
		goto out_instances;
	}
	t->accessible = true;
	ret = doctor_parse_words(text, &t->tracers, &t->ntracers);
	if (ret)
		goto out;
	for (int i = 0; i < DOCTOR_TRACER_COUNT; i++)
		t->tracer[i] = doctor_words_has(t->tracers, t->ntracers, tracer_names[i]) ?
			       DOCTOR_YES : DOCTOR_NO;
	t->sched_switch = doctor_exists(dir, "/events/sched/sched_switch") ? DOCTOR_YES :
										DOCTOR_NO;
	t->sched_waking = doctor_exists(dir, "/events/sched/sched_waking") ? DOCTOR_YES :
										DOCTOR_NO;
	t->hist = probe_hist(dir);
	if (asprintf(&path, "%s/current_tracer", dir) < 0) {
		ret = -ENOMEM;
		goto out;
	}
	t->writable = access(path, W_OK) == 0;

out_instances:
	if (ret)
		goto out;
	if (!try_instance)
		ret = doctor_set_str(&t->instances_error, "not tried");
	else if (!t->accessible)
		ret = doctor_set_str(&t->instances_error, "tracefs is not usable");
	else if (!privileged)
		ret = doctor_set_str(&t->instances_error, "creating an instance needs root");
	else if (!t->writable)
		ret = doctor_set_str(&t->instances_error, "tracefs is not writable");
	else
		ret = probe_instance(t, dir);
out:
	free(path);
	free(text);
	free(dir);
	return ret;
}

void doctor_tracefs_fini(struct doctor_tracefs *t)
{
	free(t->mount);
	free(t->error);
	doctor_words_free(t->tracers, t->ntracers);
	free(t->instances_error);
	memset(t, 0, sizeof(*t));
}

/* ---- The preemption model's switch ---------------------------------------- */

int doctor_probe_preempt(struct doctor_preempt *p, const char *root, bool dynamic)
{
	struct rt_preempt_state st;
	char *why = NULL, *path = NULL;
	int ret;

	memset(p, 0, sizeof(*p));
	ret = rt_preempt_read(root, dynamic, &st, &why);
	p->stop = (int)st.stop;
	if (ret == -ENOMEM)
		goto out;
	if (ret) {
		p->why = why;
		return 0;
	}
	free(why);
	why = NULL;
	if (!(p->current = strdup(st.current)))
		goto out_nomem;
	if (asprintf(&p->offered, "%s%s%s%s", st.offered & 1 ? "none " : "",
		     st.offered & 2 ? "voluntary " : "", st.offered & 4 ? "full " : "",
		     st.offered & 8 ? "lazy " : "") < 0) {
		p->offered = NULL;
		goto out_nomem;
	}
	if (*p->offered)
		p->offered[strlen(p->offered) - 1] = '\0';
	if (asprintf(&path, "%s%s", root, RT_PREEMPT_FILE) < 0)
		goto out_nomem;
	p->switchable = access(path, W_OK) == 0;
	if (!p->switchable) {
		p->stop = RT_PREEMPT_WRITE_REFUSED;
		ret = doctor_set_str(&p->why, "%s can be read but not written by this user (%s): "
				     "switching the model needs root", RT_PREEMPT_FILE,
				     strerror(errno));
	}
	free(path);
	return ret;

out_nomem:
	ret = -ENOMEM;
out:
	free(why);
	free(path);
	doctor_preempt_fini(p);
	return ret;
}

void doctor_preempt_fini(struct doctor_preempt *p)
{
	free(p->current);
	free(p->offered);
	free(p->why);
	memset(p, 0, sizeof(*p));
}

/* ---- RT throttling and CPUs ---------------------------------------------- */

static bool read_ll(const char *root, const char *path, long long *out)
{
	char *text = doctor_read(root, path);
	bool ok = text && doctor_parse_ll(text, out) == 0;

	free(text);
	return ok;
}

int doctor_kernel_version(const char *release, int *major, int *minor)
{
	char *end;
	long a, b;

	*major = *minor = 0;
	if (!release || release[0] < '0' || release[0] > '9')
		return -EINVAL;
	a = strtol(release, &end, 10);
	if (*end != '.' || end[1] < '0' || end[1] > '9')
		return -EINVAL;
	b = strtol(end + 1, &end, 10);
	if (a > 1000 || b > 1000)
		return -EINVAL;
	*major = (int)a;
	*minor = (int)b;
	return 0;
}

#define FAIR_SERVER_DIR "/sys/kernel/debug/sched/fair_server"

/*
 * One value of debugfs sched/fair_server/@cpu/@file. The first failure is
 * kept in s->fair_server_error (*ret is -ENOMEM when even that failed).
 */
static bool read_fair_value(struct doctor_sched *s, const char *root, const char *cpu,
			    const char *file, long long *out, int *ret)
{
	char path[sizeof(FAIR_SERVER_DIR) + 256 + 16];

	snprintf(path, sizeof(path), FAIR_SERVER_DIR "/%s/%s", cpu, file);
	if (read_ll(root, path, out))
		return true;
	if (!s->fair_server_error)
		*ret = doctor_set_str(&s->fair_server_error, "%s: %s", path, strerror(errno));
	return false;
}

/*
 * The fair servers' parameters, one cpuN directory per CPU. The lowest CPU's
 * are kept; the others are only compared with them.
 */
static int read_fair_server(struct doctor_sched *s, const char *root)
{
	unsigned int lowest = UINT_MAX;
	struct dirent *de;
	char *dir = NULL;
	DIR *d;
	int ret = 0;

	s->fair_runtime_ns = s->fair_period_ns = -1;
	if (asprintf(&dir, "%s" FAIR_SERVER_DIR, root ? root : "") < 0)
		return -ENOMEM;
	d = opendir(dir);
	free(dir);
	if (!d)
		return errno == ENOENT || errno == ENOTDIR ? 0 :
		       doctor_set_str(&s->fair_server_error, "%s: %s", FAIR_SERVER_DIR,
				      strerror(errno));
	s->fair_server_dir = true;
	s->fair_server_uniform = true;
	while (!ret && (de = readdir(d))) {
		long long rt = 0, per = 0;
		unsigned int cpu;
		char *end;

		if (strncmp(de->d_name, "cpu", 3) || de->d_name[3] < '0' || de->d_name[3] > '9')
			continue;
		cpu = (unsigned int)strtoul(de->d_name + 3, &end, 10);
		if (*end)
			continue;
		if (!read_fair_value(s, root, de->d_name, "runtime", &rt, &ret) ||
		    !read_fair_value(s, root, de->d_name, "period", &per, &ret))
			continue;
		if (s->fair_server_cpus && (rt != s->fair_runtime_ns || per != s->fair_period_ns))
			s->fair_server_uniform = false;
		if (cpu < lowest) {
			lowest = cpu;
			s->fair_runtime_ns = rt;
			s->fair_period_ns = per;
		}
		s->fair_server_cpus++;
	}
	closedir(d);
	return ret;
}

int doctor_probe_sched(struct doctor_sched *s, const char *root, const char *release)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->runtime_known = read_ll(root, "/proc/sys/kernel/sched_rt_runtime_us",
				   &s->rt_runtime_us);
	s->period_known = read_ll(root, "/proc/sys/kernel/sched_rt_period_us",
				  &s->rt_period_us);
	doctor_kernel_version(release, &s->kernel_major, &s->kernel_minor);
	ret = read_fair_server(s, root);
	if (ret)
		return ret;
	if (s->fair_server_dir) {
		s->guard = DOCTOR_GUARD_FAIR_SERVER;
		s->guard_measured = true;
	} else if (s->kernel_major) {
		bool fair = s->kernel_major > 6 || (s->kernel_major == 6 && s->kernel_minor >= 12);

		s->guard = fair ? DOCTOR_GUARD_FAIR_SERVER : DOCTOR_GUARD_THROTTLING;
		/* An older kernel's debugfs sched without fair_server confirms it. */
		s->guard_measured = !fair && doctor_exists(root, "/sys/kernel/debug/sched");
	}
	return 0;
}

void doctor_sched_fini(struct doctor_sched *s)
{
	free(s->fair_server_error);
	memset(s, 0, sizeof(*s));
}

int doctor_probe_cpus(struct doctor_cpus *c, const char *root)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;
	char *dev = NULL;

	memset(c, 0, sizeof(*c));
	c->online = online > 0 ? (unsigned int)online : 0;
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		c->allowed = (unsigned int)CPU_COUNT(&set);
	/* An absent file stays NULL (reported as null); an empty one means none. */
	c->isolated = doctor_read(root, "/sys/devices/system/cpu/isolated");
	if (!c->isolated && errno == ENOMEM)
		return -ENOMEM;
	c->nohz_full = doctor_read(root, "/sys/devices/system/cpu/nohz_full");
	if (!c->nohz_full && errno == ENOMEM)
		return -ENOMEM;
	if (asprintf(&dev, "%s/dev/cpu_dma_latency", root) < 0)
		return -ENOMEM;
	c->dma_latency_present = access(dev, F_OK) == 0;
	/* access(), not open(): opening it would already add a latency request. */
	c->dma_latency_writable = c->dma_latency_present && access(dev, W_OK) == 0;
	free(dev);
	return 0;
}

void doctor_cpus_fini(struct doctor_cpus *c)
{
	free(c->isolated);
	free(c->nohz_full);
	memset(c, 0, sizeof(*c));
}

/* ---- QEMU ----------------------------------------------------------------- */

int doctor_probe_qemu(struct doctor_qemu *q, bool active, unsigned int timeout_ms)
{
	struct rt_child_opts co = { .in = RT_CHILD_NULL, .out = RT_CHILD_CAPTURE,
				    .err = RT_CHILD_TO_STDOUT };
	struct rt_child_result res;
	char *argv[3];
	int ret;

	memset(q, 0, sizeof(*q));
	q->path = rt_which("qemu-system-x86_64");
	if (!q->path)
		return errno == ENOMEM ? -ENOMEM : 0;
	if (!active)
		return 0;
	argv[0] = q->path;
	argv[1] = "--version";
	argv[2] = NULL;
	co.argv = argv;
	ret = rt_child_run(&co, timeout_ms, &res, NULL);
	if (ret < 0)
		return doctor_set_str(&q->error, "could not start it: %s", strerror(-ret));
	if (res.end == RT_CHILD_EXITED && res.code == 0) {
		q->version_line = doctor_first_line(res.out);
		q->version = doctor_parse_qemu_version(res.out);
		ret = q->version_line ? 0 : -ENOMEM;
		if (!ret && !q->version)
			ret = doctor_set_str(&q->error,
					     "no version number in its --version output");
	} else {
		ret = doctor_describe_child(&q->error, "qemu-system-x86_64 --version", &res,
					    timeout_ms);
	}
	rt_child_result_fini(&res);
	return ret;
}

void doctor_qemu_fini(struct doctor_qemu *q)
{
	free(q->path);
	free(q->version);
	free(q->version_line);
	free(q->error);
	memset(q, 0, sizeof(*q));
}
