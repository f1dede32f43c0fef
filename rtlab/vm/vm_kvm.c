/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vm_kvm: the Linux-guest proof of KVM and its verdict file (see vm_kvm.h).
 *
 * The verdict file is a few "key=value" lines under a schema line; values are kept on
 * one line (control bytes become spaces). It lives in the learner's state directory, so
 * it is read only when it is a regular file of ours, without following a symbolic link
 * and without blocking on a FIFO; anything else is ignored and replaced by the next
 * measured verdict.
 */
#include "vm_kvm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/rt_buf.h"
#include "core/rt_child.h"
#include "core/rt_err.h"
#include "core/rt_file.h"
#include "core/rt_log.h"
#include "core/rt_parse.h"
#include "core/rt_paths.h"
#include "core/rt_time.h"
#include "doctor/doctor.h"
#include "doctor/doctor_parse.h"
#include "vm/vm_console.h"
#include "vm/vm_run.h"

#define VM_KVM_VERDICT_MAX 8192

/*
 * In order: the host CPU as it is (the fastest guest); the host CPU without the features
 * whose MSRs nested hosts have refused to take from QEMU, each seen to abort it with
 * "failed to set MSR": arch-capabilities (0x10a), pdcm (0x345 PERF_CAPABILITIES), the
 * PMU (0x38d, 0x38f and the counters), vmx (0x480-0x491, the nested VMX capabilities),
 * svm, waitpkg (0xe1 UMWAIT_CONTROL); and QEMU's "max" model.
 */
static const char *const vm_kvm_models[VM_KVM_NMODELS] = {
	"host",
	"host,-arch-capabilities,-pdcm,pmu=off,-vmx,-svm,-waitpkg",
	"max",
};

/* The images a probe may boot, best first. */
static const enum vm_kernel vm_kvm_kernels[] = { VM_KERNEL_LAB, VM_KERNEL_RT, VM_KERNEL_STOCK };

const char *vm_kvm_model(unsigned int i)
{
	return i < VM_KVM_NMODELS ? vm_kvm_models[i] : NULL;
}

unsigned int vm_kvm_share_ms(unsigned int i, long long left_ms, unsigned int cap_ms)
{
	long long share;

	if (i >= VM_KVM_NMODELS || left_ms <= 0)
		return 0;
	share = left_ms / (VM_KVM_NMODELS - i);
	if (share > (long long)cap_ms * 2 / 3)
		share = (long long)cap_ms * 2 / 3;
	return (unsigned int)share;
}

unsigned int vm_kvm_silence_ms(unsigned int cap_ms)
{
	return cap_ms / 6;
}

unsigned int vm_kvm_cap_ms(void)
{
	const char *env = getenv("RTLAB_KVM_PROBE_TIMEOUT");
	unsigned int v;

	if (!env || !*env || rt_parse_uint("RTLAB_KVM_PROBE_TIMEOUT", env, 1, 600, &v, NULL))
		return VM_KVM_PROBE_CAP_MS;
	return v * 1000;
}

void vm_kvm_verdict_fini(struct vm_kvm_verdict *v)
{
	free(v->cpu);
	free(v->kernel);
	free(v->release);
	free(v->detail);
	free(v->boot_id);
	free(v->qemu_version);
	memset(v, 0, sizeof(*v));
	v->boot_ms = -1;
}

/* ---- The verdict file --------------------------------------------------------- */

/* A copy of @n bytes of @s, or NULL (ENOMEM). */
static char *vm_kvm_strndup(const char *s, size_t n)
{
	char *d = strndup(s, n);

	if (!d)
		errno = ENOMEM;
	return d;
}

/* Read the file under the rules above into *@text. */
static int vm_kvm_read(const char *path, char **text)
{
	struct stat st;
	size_t used = 0;
	char *buf;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : -EINVAL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_size > VM_KVM_VERDICT_MAX) {
		close(fd);
		return -EINVAL;
	}
	buf = malloc(VM_KVM_VERDICT_MAX + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n = read(fd, buf + used, VM_KVM_VERDICT_MAX - used);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -EINVAL;
			break;
		}
		if (n == 0)
			break;
		used += (size_t)n;
		if (used == VM_KVM_VERDICT_MAX) {
			ret = -EINVAL;
			break;
		}
	}
	close(fd);
	if (ret < 0) {
		free(buf);
		return ret;
	}
	buf[used] = '\0';
	*text = buf;
	return 0;
}

int vm_kvm_verdict_load(const char *path, const char *boot_id, const char *qemu_version,
			struct vm_kvm_verdict *v)
{
	struct vm_kvm_verdict r = { 0 };
	char *text = NULL, *line, *next, *state = NULL;
	bool schema = false;
	int ret;

	memset(v, 0, sizeof(*v));
	v->boot_ms = -1;
	r.boot_ms = -1;
	ret = vm_kvm_read(path, &text);
	if (ret < 0)
		return ret;
	for (line = text; line && *line; line = next) {
		char *eq, **slot = NULL;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!schema) {
			if (strcmp(line, VM_KVM_VERDICT_SCHEMA) != 0)
				goto out_inval;
			schema = true;
			continue;
		}
		eq = strchr(line, '=');
		if (!eq)
			goto out_inval;
		*eq++ = '\0';
		if (!strcmp(line, "boot_id"))
			slot = &r.boot_id;
		else if (!strcmp(line, "qemu"))
			slot = &r.qemu_version;
		else if (!strcmp(line, "state"))
			slot = &state;
		else if (!strcmp(line, "cpu"))
			slot = &r.cpu;
		else if (!strcmp(line, "kernel"))
			slot = &r.kernel;
		else if (!strcmp(line, "release"))
			slot = &r.release;
		else if (!strcmp(line, "detail"))
			slot = &r.detail;
		else if (!strcmp(line, "boot_ms"))
			r.boot_ms = strtol(eq, NULL, 10);
		if (!slot)
			continue;	/* unknown keys belong to a later version */
		free(*slot);
		*slot = vm_kvm_strndup(eq, strlen(eq));
		if (!*slot) {
			ret = -ENOMEM;
			goto out;
		}
	}
	if (!schema || !r.boot_id || !r.qemu_version || !state)
		goto out_inval;
	if (!strcmp(state, "booted") && r.cpu)
		r.state = VM_KVM_BOOTED;
	else if (!strcmp(state, "failed"))
		r.state = VM_KVM_FAILED;
	else
		goto out_inval;
	if (strcmp(r.boot_id, boot_id) != 0 || strcmp(r.qemu_version, qemu_version) != 0) {
		ret = -ESTALE;
		goto out;
	}
	r.cached = true;
	*v = r;
	memset(&r, 0, sizeof(r));
	ret = 0;
	goto out;

out_inval:
	ret = -EINVAL;
out:
	vm_kvm_verdict_fini(&r);
	free(state);
	free(text);
	return ret;
}

/* "key=value\n" with the value kept on one line. */
static int vm_kvm_put(struct rt_buf *b, const char *key, const char *value)
{
	int ret;

	if (!value)
		return 0;
	ret = rt_buf_printf(b, "%s=", key);
	for (const char *p = value; *p && !ret; p++) {
		unsigned char ch = (unsigned char)*p;

		ret = rt_buf_append(b, ch < 0x20 || ch == 0x7f ? " " : p, 1);
	}
	return ret ? ret : rt_buf_puts(b, "\n");
}

int vm_kvm_verdict_save(const char *path, const struct vm_kvm_verdict *v, char **cause)
{
	struct rt_buf b = RT_BUF_INIT;
	int ret;

	if (v->state == VM_KVM_UNTRIED || !v->boot_id || !v->qemu_version)
		return rt_err(cause, -EINVAL, "only a measured verdict is kept");
	ret = rt_buf_puts(&b, VM_KVM_VERDICT_SCHEMA "\n");
	ret |= vm_kvm_put(&b, "boot_id", v->boot_id);
	ret |= vm_kvm_put(&b, "qemu", v->qemu_version);
	ret |= vm_kvm_put(&b, "state", v->state == VM_KVM_BOOTED ? "booted" : "failed");
	ret |= vm_kvm_put(&b, "kernel", v->kernel);
	ret |= vm_kvm_put(&b, "cpu", v->cpu);
	ret |= vm_kvm_put(&b, "release", v->release);
	if (v->boot_ms >= 0)
		ret |= rt_buf_printf(&b, "boot_ms=%ld\n", v->boot_ms);
	ret |= vm_kvm_put(&b, "detail", v->detail);
	if (ret) {
		rt_buf_fini(&b);
		return rt_err(cause, -ENOMEM, "out of memory");
	}
	ret = rt_file_write_atomic(path, rt_buf_str(&b), b.len, 0600, cause);
	rt_buf_fini(&b);
	return ret;
}

/* ---- The probe ---------------------------------------------------------------- */

/* No verdict, v->detail says why (it is NULL before). Evaluates to 0 or -ENOMEM. */
#define vm_kvm_untried(v, ...) \
	(rt_err(&(v)->detail, 0, __VA_ARGS__), (v)->state = VM_KVM_UNTRIED, \
	 (v)->detail ? 0 : -ENOMEM)

/* The host's boot id and QEMU's version line, the verdict's key; NULL when unknown. */
static int vm_kvm_key(const struct vm_kvm_probe_opts *o, struct vm_kvm_verdict *v)
{
	struct rt_child_opts co = { .in = RT_CHILD_NULL, .out = RT_CHILD_CAPTURE,
				    .err = RT_CHILD_TO_STDOUT };
	struct rt_child_result res;
	char *argv[3], *text = NULL;
	int ret;

	if (rt_file_read("/proc/sys/kernel/random/boot_id", 256, &text, NULL) == 0) {
		text[strcspn(text, "\n")] = '\0';
		if (*text)
			v->boot_id = text;
		else
			free(text);
	}
	argv[0] = (char *)(o->qemu ? o->qemu : "qemu-system-x86_64");
	argv[1] = "--version";
	argv[2] = NULL;
	co.argv = argv;
	ret = rt_child_run(&co, DOCTOR_TIMEOUT_MS, &res, NULL);
	if (ret < 0)
		return vm_kvm_untried(v, "%s could not be started: %s", argv[0], strerror(-ret));
	if (res.end == RT_CHILD_EXITED && res.code == 0) {
		v->qemu_version = doctor_first_line(res.out);
		ret = v->qemu_version ? 0 : -ENOMEM;
		if (!ret && !*v->qemu_version) {
			free(v->qemu_version);
			v->qemu_version = NULL;
			ret = vm_kvm_untried(v, "%s --version printed nothing", argv[0]);
		}
	} else {
		char *line = doctor_first_line(res.out);

		if (res.end == RT_CHILD_TIMEOUT)
			ret = line ? vm_kvm_untried(v, "%s --version failed (timed out after %u ms)"
						    "%s%s", argv[0], DOCTOR_TIMEOUT_MS,
						    *line ? ": " : "", line) : -ENOMEM;
		else
			ret = line ? vm_kvm_untried(v, "%s --version failed (%s %d)%s%s", argv[0],
						    res.end == RT_CHILD_EXITED ? "status" : "signal",
						    res.code, *line ? ": " : "", line) : -ENOMEM;
		free(line);
	}
	rt_child_result_fini(&res);
	return ret;
}

/* The first image of vm_kvm_kernels[] present in @dir, or -1. */
static int vm_kvm_image(const char *dir)
{
	for (size_t i = 0; i < sizeof(vm_kvm_kernels) / sizeof(vm_kvm_kernels[0]); i++) {
		char *k = NULL, *r = NULL;
		bool ok;

		if (asprintf(&k, "%s/%s/vmlinuz", dir, vm_kernel_name(vm_kvm_kernels[i])) < 0)
			return -1;
		if (asprintf(&r, "%s/%s/initrd.img", dir, vm_kernel_name(vm_kvm_kernels[i])) < 0) {
			free(k);
			return -1;
		}
		ok = access(k, R_OK) == 0 && access(r, R_OK) == 0;
		free(k);
		free(r);
		if (ok)
			return (int)vm_kvm_kernels[i];
	}
	return -1;
}

/*
 * Boot @kernel under each model in turn until one reaches ready. Returns 0 with v->state
 * BOOTED or FAILED, 1 when no verdict could be reached (v->detail says why), -ENOMEM.
 */
static int vm_kvm_boot(const struct vm_kvm_probe_opts *o, const char *dir,
		       enum vm_kernel kernel, unsigned int cap_ms, struct vm_kvm_verdict *v)
{
	struct rt_buf why = RT_BUF_INIT;
	uint64_t t0 = rt_time_now_ms();
	int ret = 0;

	v->kernel = strdup(vm_kernel_name(kernel));
	if (!v->kernel)
		return -ENOMEM;
	for (unsigned int i = 0; i < VM_KVM_NMODELS && !ret; i++) {
		unsigned int share = vm_kvm_share_ms(i, (long long)cap_ms -
						     (long long)(rt_time_now_ms() - t0), cap_ms);
		struct vm_run_opts ro = { 0 };
		struct vm_session *s;
		struct vm_ready r = { 0 };
		char *notice = NULL, *cause = NULL;
		int err;

		if (why.len)
			ret |= rt_buf_puts(&why, "; ");
		if (share < 100) {
			ret |= rt_buf_printf(&why, "-cpu %s: not tried (the probe's %u s were "
					     "used up)", vm_kvm_models[i], cap_ms / 1000);
			continue;
		}
		ro.kernel = kernel;
		ro.accel = VM_ACCEL_KVM;
		ro.accel_fixed = true;
		ro.cpu = vm_kvm_models[i];
		ro.image_dir = dir;
		ro.state_image = "";
		ro.qemu = o->qemu;
		ro.run = "true";
		ro.boot_timeout_ms = share;
		ro.silence_timeout_ms = vm_kvm_silence_ms(cap_ms);
		ro.stop = o->stop;
		s = vm_session_start(&ro, &notice, &cause);
		free(notice);
		if (!s) {
			err = errno;
			ret = err == ENOMEM ? -ENOMEM :
			      vm_kvm_untried(v, "a VM could not be started: %s",
					     cause ? cause : strerror(err));
			free(cause);
			if (!ret)
				ret = 1;
			break;
		}
		err = vm_session_wait_ready(s, &r, &cause);
		if (err == 0) {
			v->state = VM_KVM_BOOTED;
			v->cpu = strdup(vm_kvm_models[i]);
			v->release = r.release ? strdup(r.release) : NULL;
			v->boot_ms = vm_session_ready_ms(s);
			if (!v->cpu || (r.release && !v->release))
				ret = -ENOMEM;
		} else if (err == -EINTR) {
			ret = vm_kvm_untried(v, "interrupted");
			if (!ret)
				ret = 1;
		} else if (err == -ENOMEM) {
			ret = -ENOMEM;
		} else {
			ret |= rt_buf_printf(&why, "-cpu %s: %s", vm_kvm_models[i],
					     vm_session_brief(s) ? vm_session_brief(s) :
					     strerror(-err));
		}
		vm_ready_fini(&r);
		free(cause);
		vm_session_free(s);
		if (v->state == VM_KVM_BOOTED)
			break;
	}
	if (!ret && v->state != VM_KVM_BOOTED) {
		v->state = VM_KVM_FAILED;
		free(v->detail);
		v->detail = rt_buf_take(&why);
		if (!v->detail)
			ret = -ENOMEM;
	}
	rt_buf_fini(&why);
	return ret;
}

int vm_kvm_probe(const struct vm_kvm_probe_opts *o, struct vm_kvm_verdict *v)
{
	unsigned int cap = o->cap_ms ? o->cap_ms : vm_kvm_cap_ms();
	char *cache = NULL, *dir = NULL, *cause = NULL;
	int kernel, ret;

	memset(v, 0, sizeof(*v));
	v->boot_ms = -1;
	ret = vm_kvm_key(o, v);
	if (ret || !v->qemu_version)
		return ret;
	if (!o->cache) {
		cache = rt_paths_state_file(VM_KVM_VERDICT_FILE);
		if (!cache && errno == ENOMEM)
			return -ENOMEM;
	} else if (*o->cache) {
		cache = strdup(o->cache);
		if (!cache)
			return -ENOMEM;
	}
	if (cache && v->boot_id) {
		struct vm_kvm_verdict kept;

		ret = vm_kvm_verdict_load(cache, v->boot_id, v->qemu_version, &kept);
		if (ret == 0) {
			vm_kvm_verdict_fini(v);
			*v = kept;
			goto out;
		}
		if (ret == -ENOMEM)
			goto out;
		ret = 0;
	}

	dir = o->image_dir ? strdup(o->image_dir) : vm_image_dir();
	if (!dir) {
		ret = errno == ENOMEM ? -ENOMEM :
		      vm_kvm_untried(v, "a Linux guest has not been tried (make vm): no image "
				     "directory");
		goto out;
	}
	kernel = vm_kvm_image(dir);
	if (kernel < 0) {
		ret = vm_kvm_untried(v, "a Linux guest has not been tried (make vm): no VM image "
				     "in %s", dir);
		goto out;
	}
	if (!o->may_boot) {
		ret = vm_kvm_untried(v, "a Linux guest has not been tried in this boot yet "
				     "(`rtlab doctor` boots one, up to %u s)", cap / 1000);
		goto out;
	}
	rt_log(RT_LOG_INFO, "KVM: booting the %s image under KVM to see whether a Linux guest "
	       "runs here (up to %u s; the verdict is kept until the host reboots)",
	       vm_kernel_name(kernel), cap / 1000);
	ret = vm_kvm_boot(o, dir, kernel, cap, v);
	if (ret == 1) {
		ret = 0;
		goto out;
	}
	if (ret == 0 && cache && v->boot_id &&
	    vm_kvm_verdict_save(cache, v, &cause) < 0) {
		rt_log(RT_LOG_WARN, "KVM: the verdict could not be kept: %s",
		       cause ? cause : "unknown");
		free(cause);
	}
out:
	free(cache);
	free(dir);
	return ret;
}

int vm_kvm_doctor_probe(bool may_boot, struct doctor_kvm_boot *out)
{
	struct vm_kvm_probe_opts o = { .may_boot = may_boot };
	struct vm_kvm_verdict v;
	int ret;

	ret = vm_kvm_probe(&o, &v);
	if (ret < 0)
		return ret;
	out->tried = v.state != VM_KVM_UNTRIED;
	out->booted = v.state == VM_KVM_BOOTED;
	out->cached = v.cached;
	out->boot_ms = v.boot_ms;
	/* The strings move over. */
	out->kernel = v.kernel;
	out->release = v.release;
	out->cpu_model = v.cpu;
	out->detail = v.detail;
	v.kernel = v.release = v.cpu = v.detail = NULL;
	vm_kvm_verdict_fini(&v);
	return 0;
}
