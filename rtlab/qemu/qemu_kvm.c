/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qemu_kvm: the Linux-guest proof of KVM and its verdict file (see qemu_kvm.h).
 *
 * The verdict file is a few "key=value" lines under a schema line; values are kept on
 * one line (control bytes become spaces). It lives in the learner's state directory, so
 * it is read only when it is a regular file of ours, without following a symbolic link
 * and without blocking on a FIFO; anything else is ignored and replaced by the next
 * measured verdict.
 */
#include "qemu_kvm.h"

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
#include "core/rt_keys.h"
#include "core/rt_log.h"
#include "core/rt_parse.h"
#include "core/rt_paths.h"
#include "core/rt_time.h"
#include "qemu/qemu_console.h"
#include "qemu/qemu_run.h"

#define QEMU_KVM_VERDICT_MAX 8192
#define QEMU_KVM_VERSION_TIMEOUT_MS 3000	/* qemu-system-x86_64 --version */

/*
 * In order: the host CPU as it is (the fastest guest); the host CPU without the features
 * whose MSRs nested hosts have refused to take from QEMU, each seen to abort it with
 * "failed to set MSR": arch-capabilities (0x10a), pdcm (0x345 PERF_CAPABILITIES), the
 * PMU (0x38d, 0x38f and the counters), vmx (0x480-0x491, the nested VMX capabilities),
 * svm, waitpkg (0xe1 UMWAIT_CONTROL); and QEMU's "max" model.
 */
static const char *const qemu_kvm_models[QEMU_KVM_NMODELS] = {
	"host",
	"host,-arch-capabilities,-pdcm,pmu=off,-vmx,-svm,-waitpkg",
	"max",
};

/* The images a probe may boot, best first. */
static const enum qemu_kernel qemu_kvm_kernels[] = { QEMU_KERNEL_LAB, QEMU_KERNEL_RT, QEMU_KERNEL_STOCK };

const char *qemu_kvm_model(unsigned int i)
{
	return i < QEMU_KVM_NMODELS ? qemu_kvm_models[i] : NULL;
}

unsigned int qemu_kvm_share_ms(unsigned int i, long long left_ms, unsigned int cap_ms)
{
	long long share;

	if (i >= QEMU_KVM_NMODELS || left_ms <= 0)
		return 0;
	share = left_ms / (QEMU_KVM_NMODELS - i);
	if (share > (long long)cap_ms * 2 / 3)
		share = (long long)cap_ms * 2 / 3;
	return (unsigned int)share;
}

unsigned int qemu_kvm_silence_ms(unsigned int cap_ms)
{
	return cap_ms / 6;
}

unsigned int qemu_kvm_cap_ms(void)
{
	const char *env = getenv("RTLAB_KVM_PROBE_TIMEOUT");
	unsigned int v;

	if (!env || !*env || rt_parse_uint("RTLAB_KVM_PROBE_TIMEOUT", env, 1, 600, &v, NULL))
		return QEMU_KVM_PROBE_CAP_MS;
	return v * 1000;
}

void qemu_kvm_verdict_fini(struct qemu_kvm_verdict *v)
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
static char *qemu_kvm_strndup(const char *s, size_t n)
{
	char *d = strndup(s, n);

	if (!d)
		errno = ENOMEM;
	return d;
}

/* Read the file under the rules above into *@text. */
static int qemu_kvm_read(const char *path, char **text)
{
	struct stat st;
	size_t used = 0;
	char *buf;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : -EINVAL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_size > QEMU_KVM_VERDICT_MAX) {
		close(fd);
		return -EINVAL;
	}
	buf = malloc(QEMU_KVM_VERDICT_MAX + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n = read(fd, buf + used, QEMU_KVM_VERDICT_MAX - used);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -EINVAL;
			break;
		}
		if (n == 0)
			break;
		used += (size_t)n;
		if (used == QEMU_KVM_VERDICT_MAX) {
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

/*
 * The verdict file's keys, declared once: the reader below knows exactly these (it
 * skips others, a later version's), and `rtlab schema rtlab.kvm-verdict/1` publishes
 * them as the JSON object the file's lines make (the first line is the schema's name).
 */
static const char *const verdict_states[] = { "booted", "failed", NULL };
static const struct rt_key verdict_keys[] = {
	RT_KEY("schema", RT_T_STRING, NULL, "`rtlab.kvm-verdict/1`, the file's first line", true),
	RT_KEY("boot_id", RT_T_STRING, NULL, "the host boot it holds for "
	       "(/proc/sys/kernel/random/boot_id)", true),
	RT_KEY("qemu", RT_T_STRING, NULL, "the first line of `qemu-system-x86_64 --version`",
	       true),
	RT_KEY("state", RT_T_STRING, NULL, "whether a Linux guest booted under KVM", true,
	       .values = verdict_states),
	RT_KEY("kernel", RT_T_STRING, NULL, "the image tried: `lab`, `rt` or `stock`", false),
	RT_KEY("cpu", RT_T_STRING, NULL, "the CPU model that booted (required when booted)",
	       false),
	RT_KEY("release", RT_T_STRING, NULL, "the guest's `uname -r`", false),
	RT_KEY("boot_ms", RT_T_INTEGER, "ms", "QEMU's start to the guest's ready line", false,
	       .min = 0),
	RT_KEY("detail", RT_T_STRING, NULL, "each CPU model's failure, on one line", false),
	RT_KEY_END,
};
static const struct rt_keys verdict_table = { .keys = verdict_keys };

json_t *qemu_kvm_verdict_schema(void)
{
	return rt_keys_document(QEMU_KVM_VERDICT_SCHEMA, "the KVM verdict kept per host boot "
				"(one key=value line each)", &verdict_table, 0);
}

int qemu_kvm_verdict_load(const char *path, const char *boot_id, const char *qemu_version,
			struct qemu_kvm_verdict *v)
{
	struct qemu_kvm_verdict r = { 0 };
	char *text = NULL, *line, *next, *state = NULL;
	bool schema = false;
	int ret;

	memset(v, 0, sizeof(*v));
	v->boot_ms = -1;
	r.boot_ms = -1;
	ret = qemu_kvm_read(path, &text);
	if (ret < 0)
		return ret;
	for (line = text; line && *line; line = next) {
		char *eq, **slot = NULL;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!schema) {
			if (strcmp(line, QEMU_KVM_VERDICT_SCHEMA) != 0)
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
		*slot = qemu_kvm_strndup(eq, strlen(eq));
		if (!*slot) {
			ret = -ENOMEM;
			goto out;
		}
	}
	if (!schema || !r.boot_id || !r.qemu_version || !state)
		goto out_inval;
	if (!strcmp(state, "booted") && r.cpu)
		r.state = QEMU_KVM_BOOTED;
	else if (!strcmp(state, "failed"))
		r.state = QEMU_KVM_FAILED;
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
	qemu_kvm_verdict_fini(&r);
	free(state);
	free(text);
	return ret;
}

/* "key=value\n" with the value kept on one line. */
static int qemu_kvm_put(struct rt_buf *b, const char *key, const char *value)
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

int qemu_kvm_verdict_save(const char *path, const struct qemu_kvm_verdict *v, char **cause)
{
	struct rt_buf b = RT_BUF_INIT;
	int ret;

	if (v->state == QEMU_KVM_UNTRIED || !v->boot_id || !v->qemu_version)
		return rt_err(cause, -EINVAL, "only a measured verdict is kept");
	ret = rt_buf_puts(&b, QEMU_KVM_VERDICT_SCHEMA "\n");
	ret |= qemu_kvm_put(&b, "boot_id", v->boot_id);
	ret |= qemu_kvm_put(&b, "qemu", v->qemu_version);
	ret |= qemu_kvm_put(&b, "state", v->state == QEMU_KVM_BOOTED ? "booted" : "failed");
	ret |= qemu_kvm_put(&b, "kernel", v->kernel);
	ret |= qemu_kvm_put(&b, "cpu", v->cpu);
	ret |= qemu_kvm_put(&b, "release", v->release);
	if (v->boot_ms >= 0)
		ret |= rt_buf_printf(&b, "boot_ms=%ld\n", v->boot_ms);
	ret |= qemu_kvm_put(&b, "detail", v->detail);
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
#define qemu_kvm_untried(v, ...) \
	(rt_err(&(v)->detail, 0, __VA_ARGS__), (v)->state = QEMU_KVM_UNTRIED, \
	 (v)->detail ? 0 : -ENOMEM)

/* The first line of @text, as a new string; NULL when out of memory. */
static char *qemu_kvm_first_line(const char *text)
{
	return strndup(text, strcspn(text, "\n"));
}

/* The host's boot id and QEMU's version line, the verdict's key; NULL when unknown. */
static int qemu_kvm_key(const struct qemu_kvm_probe_opts *o, struct qemu_kvm_verdict *v)
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
	ret = rt_child_run(&co, QEMU_KVM_VERSION_TIMEOUT_MS, &res, NULL);
	if (ret < 0)
		return qemu_kvm_untried(v, "%s could not be started: %s", argv[0], strerror(-ret));
	if (res.end == RT_CHILD_EXITED && res.code == 0) {
		v->qemu_version = qemu_kvm_first_line(res.out);
		ret = v->qemu_version ? 0 : -ENOMEM;
		if (!ret && !*v->qemu_version) {
			free(v->qemu_version);
			v->qemu_version = NULL;
			ret = qemu_kvm_untried(v, "%s --version printed nothing", argv[0]);
		}
	} else {
		char *line = qemu_kvm_first_line(res.out);

		if (res.end == RT_CHILD_TIMEOUT)
			ret = line ? qemu_kvm_untried(v, "%s --version failed (timed out after %u ms)"
						    "%s%s", argv[0], QEMU_KVM_VERSION_TIMEOUT_MS,
						    *line ? ": " : "", line) : -ENOMEM;
		else
			ret = line ? qemu_kvm_untried(v, "%s --version failed (%s %d)%s%s", argv[0],
						    res.end == RT_CHILD_EXITED ? "status" : "signal",
						    res.code, *line ? ": " : "", line) : -ENOMEM;
		free(line);
	}
	rt_child_result_fini(&res);
	return ret;
}

/* The first image of qemu_kvm_kernels[] present in @dir, or -1. */
static int qemu_kvm_image(const char *dir)
{
	for (size_t i = 0; i < sizeof(qemu_kvm_kernels) / sizeof(qemu_kvm_kernels[0]); i++) {
		char *k = NULL, *r = NULL;
		bool ok;

		if (asprintf(&k, "%s/%s/vmlinuz", dir, qemu_kernel_name(qemu_kvm_kernels[i])) < 0)
			return -1;
		if (asprintf(&r, "%s/%s/initrd.img", dir, qemu_kernel_name(qemu_kvm_kernels[i])) < 0) {
			free(k);
			return -1;
		}
		ok = access(k, R_OK) == 0 && access(r, R_OK) == 0;
		free(k);
		free(r);
		if (ok)
			return (int)qemu_kvm_kernels[i];
	}
	return -1;
}

/*
 * Boot @kernel under each model in turn until one reaches ready. Returns 0 with v->state
 * BOOTED or FAILED, 1 when no verdict could be reached (v->detail says why), -ENOMEM.
 */
static int qemu_kvm_boot(const struct qemu_kvm_probe_opts *o, const char *dir,
		       enum qemu_kernel kernel, unsigned int cap_ms, struct qemu_kvm_verdict *v)
{
	struct rt_buf why = RT_BUF_INIT;
	uint64_t t0 = rt_time_now_ms();
	int ret = 0;

	v->kernel = strdup(qemu_kernel_name(kernel));
	if (!v->kernel)
		return -ENOMEM;
	for (unsigned int i = 0; i < QEMU_KVM_NMODELS && !ret; i++) {
		unsigned int share = qemu_kvm_share_ms(i, (long long)cap_ms -
						     (long long)(rt_time_now_ms() - t0), cap_ms);
		struct qemu_run_opts ro = { 0 };
		struct qemu_session *s;
		struct qemu_ready r = { 0 };
		char *notice = NULL, *cause = NULL;
		int err;

		if (why.len)
			ret |= rt_buf_puts(&why, "; ");
		if (share < 100) {
			ret |= rt_buf_printf(&why, "-cpu %s: not tried (the probe's %u s were "
					     "used up)", qemu_kvm_models[i], cap_ms / 1000);
			continue;
		}
		ro.kernel = kernel;
		ro.accel = QEMU_ACCEL_KVM;
		ro.accel_fixed = true;
		ro.cpu = qemu_kvm_models[i];
		ro.image_dir = dir;
		ro.state_image = "";
		ro.qemu = o->qemu;
		ro.run = "true";
		ro.boot_timeout_ms = share;
		ro.silence_timeout_ms = qemu_kvm_silence_ms(cap_ms);
		ro.stop = o->stop;
		s = qemu_session_start(&ro, &notice, &cause);
		free(notice);
		if (!s) {
			err = errno;
			ret = err == ENOMEM ? -ENOMEM :
			      qemu_kvm_untried(v, "a VM could not be started: %s",
					     cause ? cause : strerror(err));
			free(cause);
			if (!ret)
				ret = 1;
			break;
		}
		err = qemu_session_wait_ready(s, &r, &cause);
		if (err == 0) {
			v->state = QEMU_KVM_BOOTED;
			v->cpu = strdup(qemu_kvm_models[i]);
			v->release = r.release ? strdup(r.release) : NULL;
			v->boot_ms = qemu_session_ready_ms(s);
			if (!v->cpu || (r.release && !v->release))
				ret = -ENOMEM;
		} else if (err == -EINTR) {
			ret = qemu_kvm_untried(v, "interrupted");
			if (!ret)
				ret = 1;
		} else if (err == -ENOMEM) {
			ret = -ENOMEM;
		} else {
			ret |= rt_buf_printf(&why, "-cpu %s: %s", qemu_kvm_models[i],
					     qemu_session_brief(s) ? qemu_session_brief(s) :
					     strerror(-err));
		}
		qemu_ready_fini(&r);
		free(cause);
		qemu_session_free(s);
		if (v->state == QEMU_KVM_BOOTED)
			break;
	}
	if (!ret && v->state != QEMU_KVM_BOOTED) {
		v->state = QEMU_KVM_FAILED;
		free(v->detail);
		v->detail = rt_buf_take(&why);
		if (!v->detail)
			ret = -ENOMEM;
	}
	rt_buf_fini(&why);
	return ret;
}

int qemu_kvm_probe(const struct qemu_kvm_probe_opts *o, struct qemu_kvm_verdict *v)
{
	unsigned int cap = o->cap_ms ? o->cap_ms : qemu_kvm_cap_ms();
	char *cache = NULL, *dir = NULL, *cause = NULL;
	int kernel, ret;

	memset(v, 0, sizeof(*v));
	v->boot_ms = -1;
	ret = qemu_kvm_key(o, v);
	if (ret || !v->qemu_version)
		return ret;
	if (!o->cache) {
		cache = rt_paths_state_file(QEMU_KVM_VERDICT_FILE);
		if (!cache && errno == ENOMEM)
			return -ENOMEM;
	} else if (*o->cache) {
		cache = strdup(o->cache);
		if (!cache)
			return -ENOMEM;
	}
	if (cache && v->boot_id) {
		struct qemu_kvm_verdict kept;

		ret = qemu_kvm_verdict_load(cache, v->boot_id, v->qemu_version, &kept);
		if (ret == 0) {
			qemu_kvm_verdict_fini(v);
			*v = kept;
			goto out;
		}
		if (ret == -ENOMEM)
			goto out;
		ret = 0;
	}

	dir = o->image_dir ? strdup(o->image_dir) : qemu_image_dir();
	if (!dir) {
		ret = errno == ENOMEM ? -ENOMEM :
		      qemu_kvm_untried(v, "a Linux guest has not been tried (make vm): no image "
				     "directory");
		goto out;
	}
	kernel = qemu_kvm_image(dir);
	if (kernel < 0) {
		ret = qemu_kvm_untried(v, "a Linux guest has not been tried (make vm): no VM image "
				     "in %s", dir);
		goto out;
	}
	if (!o->may_boot) {
		ret = qemu_kvm_untried(v, "a Linux guest has not been tried in this boot yet "
				     "(`rtlab doctor` boots one, up to %u s)", cap / 1000);
		goto out;
	}
	rt_log(RT_LOG_INFO, "KVM: booting the %s image under KVM to see whether a Linux guest "
	       "runs here (up to %u s; the verdict is kept until the host reboots)",
	       qemu_kernel_name(kernel), cap / 1000);
	ret = qemu_kvm_boot(o, dir, kernel, cap, v);
	if (ret == 1) {
		ret = 0;
		goto out;
	}
	if (ret == 0 && cache && v->boot_id &&
	    qemu_kvm_verdict_save(cache, v, &cause) < 0) {
		rt_log(RT_LOG_WARN, "KVM: the verdict could not be kept: %s",
		       cause ? cause : "unknown");
		free(cause);
	}
out:
	free(cache);
	free(dir);
	return ret;
}
