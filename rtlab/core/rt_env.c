/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_env: measuring the kernel, the preemption model and the virtual machine
 * we run in.
 *
 * The preemption model is looked up in the order that gives the most direct
 * evidence first: a PREEMPT_RT kernel says so in uname -v ("PREEMPT_RT", or
 * "PREEMPT RT" in older patch-set kernels; Debian's 6.1 RT kernel also has
 * /sys/kernel/realtime); a PREEMPT_DYNAMIC kernel chooses
 * its model at boot, so the live choice in debugfs sched/preempt wins, then
 * a preempt= boot parameter, then the build default from the kernel config;
 * a plain "PREEMPT" in uname -v means full preemption. What was used is
 * recorded in preempt_source so a reader can judge the evidence.
 *
 * Every file is read below a root prefix ("" on the live system) so the unit
 * tests can run the same code on a fixture tree; CPUID is only asked on the
 * live system.
 */
#include "rt_env.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "rt_child.h"
#include "rt_file.h"

/* Large enough for any kernel config (Debian's is about 280 KiB). */
#define ENV_CONFIG_MAX (8u << 20)
/* Decompressing /proc/config.gz takes milliseconds; this only bounds a stuck gzip. */
#define ENV_GZIP_TIMEOUT_MS 3000

/* ---- Small parsers (static, reached by tests/unit/test_rt_env.c) -------- */

/* True when @word appears in @text as a whole blank-separated word. */
static bool env_has_word(const char *text, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = text; p && (p = strstr(p, word)); p += n) {
		bool start = p == text || p[-1] == ' ' || p[-1] == '\t';
		bool end = p[n] == '\0' || p[n] == ' ' || p[n] == '\t' || p[n] == '\n';

		if (start && end)
			return true;
	}
	return false;
}

/* The names the kernel uses for its models, as we report them. */
static const char *env_model_name(const char *s, size_t n)
{
	static const char *const models[] = { "none", "voluntary", "full", "lazy" };

	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		if (strlen(models[i]) == n && strncmp(s, models[i], n) == 0)
			return models[i];
	return NULL;
}

/*
 * debugfs sched/preempt lists the models with the active one in
 * parentheses: "none (voluntary) full lazy". Returns the active one, or NULL.
 */
static const char *env_parse_sched_preempt(const char *line)
{
	const char *open = strchr(line, '(');
	const char *close = open ? strchr(open, ')') : NULL;

	if (!close)
		return NULL;
	return env_model_name(open + 1, (size_t)(close - open - 1));
}

/*
 * The next word of the kernel command line at *@p, in the kernel's own part (before
 * "--"): its start, with its length in @n; NULL at the end. *@p moves past it.
 */
static const char *env_cmdline_next(const char **p, size_t *n)
{
	const char *w = *p + strspn(*p, " \t\n");

	*n = strcspn(w, " \t\n");
	*p = w + *n;
	if (!*n || (*n == 2 && strncmp(w, "--", 2) == 0))
		return NULL;
	return w;
}

/* A preempt=MODEL parameter on the kernel command line (before "--"). */
static const char *env_parse_cmdline(const char *cmdline)
{
	const char *p = cmdline, *w;
	size_t n;

	while ((w = env_cmdline_next(&p, &n)))
		if (n > 8 && strncmp(w, "preempt=", 8) == 0)
			return env_model_name(w + 8, n - 8);
	return NULL;
}

/* Does the kernel command line @cmdline hold the word @word (before "--")? */
static bool env_cmdline_has(const char *cmdline, const char *word)
{
	const char *p = cmdline, *w;
	size_t n;

	while ((w = env_cmdline_next(&p, &n)))
		if (n == strlen(word) && strncmp(w, word, n) == 0)
			return true;
	return false;
}

/* True when the config text has the line "NAME=y". */
static bool env_config_yes(const char *config, const char *name)
{
	size_t n = strlen(name);
	const char *p = config;

	while (p && *p) {
		if (strncmp(p, name, n) == 0 && p[n] == '=' && p[n + 1] == 'y' &&
		    (p[n + 2] == '\n' || p[n + 2] == '\0'))
			return true;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

/*
 * The model a kernel config selects. With PREEMPT_DYNAMIC this is the boot
 * default; PREEMPT_RT and LAZY are checked first because a config may carry
 * CONFIG_PREEMPT_BUILD or CONFIG_PREEMPTION alongside them.
 */
static const char *env_parse_config(const char *config)
{
	if (env_config_yes(config, "CONFIG_PREEMPT_RT"))
		return "rt";
	if (env_config_yes(config, "CONFIG_PREEMPT_LAZY"))
		return "lazy";
	if (env_config_yes(config, "CONFIG_PREEMPT"))
		return "full";
	if (env_config_yes(config, "CONFIG_PREEMPT_VOLUNTARY"))
		return "voluntary";
	if (env_config_yes(config, "CONFIG_PREEMPT_NONE"))
		return "none";
	return NULL;
}

/* Hypervisor vendor signatures of CPUID leaf 0x40000000. */
static const char *env_vm_from_cpuid_vendor(const char *vendor)
{
	static const struct {
		const char *sig, *name;
	} sigs[] = {
		{ "KVMKVMKVM", "KVM" },
		{ "TCGTCGTCGTCG", "QEMU TCG" },
		{ "Microsoft Hv", "Hyper-V" },
		{ "VMwareVMware", "VMware" },
		{ "XenVMMXenVMM", "Xen" },
		{ "VBoxVBoxVBox", "VirtualBox" },
		{ " lrpepyh  vr", "Parallels" },
		{ "prl hyperv  ", "Parallels" },
		{ "ACRNACRNACRN", "ACRN" },
		{ "bhyve bhyve ", "bhyve" },
		{ "QNXQVMBSQG", "QNX" },
	};

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (strcmp(vendor, sigs[i].sig) == 0)
			return sigs[i].name;
	return NULL;
}

/* A virtual machine recognised from DMI sys_vendor / product_name, or NULL. */
static const char *env_vm_from_dmi(const char *vendor, const char *product)
{
	static const struct {
		const char *needle, *name;
	} marks[] = {
		{ "QEMU", "QEMU" },
		{ "KVM", "KVM" },
		{ "VMware", "VMware" },
		{ "VirtualBox", "VirtualBox" },
		{ "innotek", "VirtualBox" },
		{ "Xen", "Xen" },
		{ "Virtual Machine", "Hyper-V" },
		{ "Parallels", "Parallels" },
		{ "Bochs", "Bochs" },
		{ "Google Compute Engine", "Google Compute Engine" },
		{ "Amazon EC2", "Amazon EC2" },
		{ "BHYVE", "bhyve" },
		{ "Cloud Hypervisor", "Cloud Hypervisor" },
	};
	const char *fields[] = { product, vendor };

	for (size_t f = 0; f < 2; f++) {
		if (!fields[f])
			continue;
		for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
			if (strstr(fields[f], marks[i].needle))
				return marks[i].name;
	}
	return NULL;
}

/* ---- Reading files below the root prefix -------------------------------- */

/* Read "<root><path>" and strip trailing newlines; NULL when unreadable. */
static char *env_read(const char *root, const char *path, size_t max)
{
	char *full = NULL, *data = NULL;
	size_t len;

	if (asprintf(&full, "%s%s", root, path) < 0)
		return NULL;
	if (rt_file_read(full, max, &data, &len) < 0)
		data = NULL;
	free(full);
	while (data && len && (data[len - 1] == '\n' || data[len - 1] == ' '))
		data[--len] = '\0';
	return data;
}

/*
 * Decompress a gzip file through gzip(1) in a child, so the library needs no
 * zlib. The child is killed if it does not finish in time.
 */
static char *env_gunzip(const char *path)
{
	char *argv[] = { "gzip", "-dc", (char *)path, NULL };
	struct rt_child_opts o = {
		.argv = argv, .in = RT_CHILD_NULL, .out = RT_CHILD_CAPTURE, .err = RT_CHILD_NULL,
		.capture_max = ENV_CONFIG_MAX,
	};
	struct rt_child_result res;
	char *out = NULL;

	if (access(path, R_OK) < 0 || rt_child_run(&o, ENV_GZIP_TIMEOUT_MS, &res, NULL) < 0)
		return NULL;
	if (res.end == RT_CHILD_EXITED && res.code == 0 && !res.out_cut) {
		out = res.out;
		res.out = NULL;
	}
	rt_child_result_fini(&res);
	return out;
}

/* The kernel config from /boot/config-<release>, else /proc/config.gz. */
static char *env_read_config(const char *root, const char *release, const char **source)
{
	char *path = NULL, *text;

	if (asprintf(&path, "/boot/config-%s", release) < 0)
		return NULL;
	text = env_read(root, path, ENV_CONFIG_MAX);
	free(path);
	if (text) {
		*source = "/boot/config";
		return text;
	}
	if (asprintf(&path, "%s/proc/config.gz", root) < 0)
		return NULL;
	text = env_gunzip(path);
	free(path);
	if (text)
		*source = "/proc/config.gz";
	return text;
}

/* ---- The probe ------------------------------------------------------------ */

/* Decide realtime, preempt_model and preempt_source. */
static int env_probe_preempt(struct rt_env *env, const char *root)
{
	const char *model = NULL, *source = NULL;
	char *text;

	text = env_read(root, "/sys/kernel/realtime", 64);
	env->sys_kernel_realtime = text != NULL;
	/* Older RT patch-set kernels wrote it with a space: "SMP PREEMPT RT". */
	if (env_has_word(env->kernel_version, "PREEMPT_RT") ||
	    env_has_word(env->kernel_version, "PREEMPT RT")) {
		model = "rt";
		source = "uname -v";
	} else if (text && strcmp(text, "1") == 0) {
		model = "rt";
		source = "/sys/kernel/realtime";
	}
	free(text);

	env->preempt_dynamic = env_has_word(env->kernel_version, "PREEMPT_DYNAMIC");
	if (!model && env->preempt_dynamic) {
		text = env_read(root, "/sys/kernel/debug/sched/preempt", 256);
		if (text && (model = env_parse_sched_preempt(text)))
			source = "/sys/kernel/debug/sched/preempt";
		free(text);
		if (!model) {
			text = env_read(root, "/proc/cmdline", 65536);
			if (text && (model = env_parse_cmdline(text)))
				source = "/proc/cmdline preempt=";
			free(text);
		}
	}
	if (!model) {
		const char *config_source = NULL;

		text = env_read_config(root, env->kernel_release, &config_source);
		if (text && (model = env_parse_config(text)))
			source = config_source;
		free(text);
	}
	if (!model && env_has_word(env->kernel_version, "PREEMPT")) {
		model = "full";
		source = "uname -v";
	}
	if (!model) {
		model = "unknown";
		source = "none";
	}
	env->realtime = strcmp(model, "rt") == 0;
	env->preempt_model = strdup(model);
	env->preempt_source = strdup(source);
	return env->preempt_model && env->preempt_source ? 0 : -ENOMEM;
}

/* The CPUID evidence: hypervisor bit and the vendor of leaf 0x40000000. */
static bool env_cpuid(char vendor[13])
{
	vendor[0] = '\0';
#if defined(__x86_64__) || defined(__i386__)
	unsigned int eax, ebx, ecx, edx;

	if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & (1u << 31)))
		return false;
	__cpuid(0x40000000, eax, ebx, ecx, edx);
	memcpy(vendor, &ebx, 4);
	memcpy(vendor + 4, &ecx, 4);
	memcpy(vendor + 8, &edx, 4);
	vendor[12] = '\0';
	return true;
#else
	return false;
#endif
}

/* Decide in_vm and vm_type from CPUID (when @use_cpuid), DMI and /sys/hypervisor. */
static int env_probe_vm(struct rt_env *env, const char *root, bool use_cpuid)
{
	char *dmi_vendor = env_read(root, "/sys/class/dmi/id/sys_vendor", 256);
	char *dmi_product = env_read(root, "/sys/class/dmi/id/product_name", 256);
	char *hv_type = env_read(root, "/sys/hypervisor/type", 64);
	const char *type = NULL;
	char vendor[13];
	bool cpuid_bit = use_cpuid && env_cpuid(vendor);
	int ret = 0;

	if (cpuid_bit)
		type = env_vm_from_cpuid_vendor(vendor);
	if (!type)
		type = env_vm_from_dmi(dmi_vendor, dmi_product);
	if (!type && hv_type && *hv_type)
		type = strcmp(hv_type, "xen") == 0 ? "Xen" : hv_type;
	env->in_vm = cpuid_bit || type;
	if (env->in_vm) {
		env->vm_type = strdup(type ? type : "unknown");
		if (!env->vm_type)
			ret = -ENOMEM;
	}
	free(dmi_vendor);
	free(dmi_product);
	free(hv_type);
	return ret;
}

/*
 * The whole probe below @root for the kernel described by @uts. Split from
 * rt_env_probe() so that tests can point it at a fixture tree.
 */
static int env_probe_at(struct rt_env *env, const char *root, const struct utsname *uts,
			bool use_cpuid)
{
	char *kernel;
	long cpus;
	int ret;

	memset(env, 0, sizeof(*env));
	env->kernel_release = strdup(uts->release);
	env->kernel_version = strdup(uts->version);
	env->machine = strdup(uts->machine);
	if (!env->kernel_release || !env->kernel_version || !env->machine) {
		ret = -ENOMEM;
		goto out_fail;
	}
	ret = env_probe_preempt(env, root);
	if (ret)
		goto out_fail;
	ret = env_probe_vm(env, root, use_cpuid);
	if (ret)
		goto out_fail;
	kernel = env_read(root, "/etc/rtlab-vm/kernel", 64);
	env->classroom_vm = kernel && *kernel;
	free(kernel);
	kernel = env_read(root, "/proc/cmdline", 65536);
	env->virtual_time = kernel && env_cmdline_has(kernel, RT_ENV_VIRTUAL_TIME_WORD);
	free(kernel);
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	env->cpus = cpus > 0 ? (unsigned int)cpus : 0;
	env->root = geteuid() == 0;
	return 0;

out_fail:
	rt_env_fini(env);
	return ret;
}

int rt_env_probe(struct rt_env *env)
{
	struct utsname uts;

	if (uname(&uts) < 0) {
		memset(&uts, 0, sizeof(uts));
		strcpy(uts.release, "unknown");
		strcpy(uts.version, "unknown");
		strcpy(uts.machine, "unknown");
	}
	return env_probe_at(env, "", &uts, true);
}

bool rt_env_virtual_time(void)
{
	char *cmdline = env_read("", "/proc/cmdline", 65536);
	bool yes = cmdline && env_cmdline_has(cmdline, RT_ENV_VIRTUAL_TIME_WORD);

	free(cmdline);
	return yes;
}

void rt_env_fini(struct rt_env *env)
{
	free(env->kernel_release);
	free(env->kernel_version);
	free(env->machine);
	free(env->preempt_model);
	free(env->preempt_source);
	free(env->vm_type);
	memset(env, 0, sizeof(*env));
}
