/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for rt_env: the live probe must agree with uname(2) and
 * sysconf(3), and the preemption-model and VM decisions are checked on the
 * parsers and on fixture trees (rt_env.c is included to reach its static
 * helpers; the library's rt_env.o is then not linked).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/rt_env.c"
#include "core/rt_file.h"

/* ---- Fixture trees -------------------------------------------------------- */

struct tree {
	char root[64];
};

static void tree_put(struct tree *t, const char *path, const char *text)
{
	char full[512], dir[512];
	char *slash;

	snprintf(full, sizeof(full), "%s%s", t->root, path);
	snprintf(dir, sizeof(dir), "%s", full);
	slash = strrchr(dir, '/');
	*slash = '\0';
	assert_int_equal(rt_mkdir_p(dir, 0755), 0);
	assert_int_equal(rt_file_write_atomic(full, text, strlen(text), 0644, NULL), 0);
}

static int tree_setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	snprintf(t->root, sizeof(t->root), "/tmp/test_rt_env.XXXXXX");
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

static void fake_uts(struct utsname *u, const char *release, const char *version)
{
	memset(u, 0, sizeof(*u));
	snprintf(u->release, sizeof(u->release), "%s", release);
	snprintf(u->version, sizeof(u->version), "%s", version);
	snprintf(u->machine, sizeof(u->machine), "x86_64");
}

static void probe_tree(struct tree *t, const char *version, struct rt_env *env)
{
	struct utsname u;

	fake_uts(&u, "6.12.0-test", version);
	assert_int_equal(env_probe_at(env, t->root, &u, false), 0);
}

/* ---- The live probe ------------------------------------------------------- */

static void test_live_probe_matches_uname(void **state)
{
	struct rt_env env;
	struct utsname u;
	char *flag = NULL;
	bool rt;

	(void)state;
	assert_int_equal(uname(&u), 0);
	assert_int_equal(rt_env_probe(&env), 0);
	assert_string_equal(env.kernel_release, u.release);
	assert_string_equal(env.kernel_version, u.version);
	assert_string_equal(env.machine, u.machine);
	assert_int_equal(env.cpus, (unsigned int)sysconf(_SC_NPROCESSORS_ONLN));
	assert_int_equal(env.root, geteuid() == 0);

	/* realtime must agree with what uname -v and /sys/kernel/realtime say */
	rt = env_has_word(u.version, "PREEMPT_RT");
	if (rt_file_read("/sys/kernel/realtime", 64, &flag, NULL) == 0) {
		assert_true(env.sys_kernel_realtime);
		rt = rt || flag[0] == '1';
		free(flag);
	} else {
		assert_false(env.sys_kernel_realtime);
	}
	if (rt)
		assert_true(env.realtime);
	assert_int_equal(env.realtime, strcmp(env.preempt_model, "rt") == 0);
	assert_non_null(env.preempt_source);
	assert_true(strcmp(env.preempt_model, "none") == 0 ||
		    strcmp(env.preempt_model, "voluntary") == 0 ||
		    strcmp(env.preempt_model, "full") == 0 ||
		    strcmp(env.preempt_model, "lazy") == 0 ||
		    strcmp(env.preempt_model, "rt") == 0 ||
		    strcmp(env.preempt_model, "unknown") == 0);
	assert_true(env.in_vm ? env.vm_type != NULL : env.vm_type == NULL);

	rt_env_fini(&env);
	assert_null(env.kernel_release);
	rt_env_fini(&env);	/* twice is harmless */
}

/* ---- Parsers -------------------------------------------------------------- */

static void test_has_word(void **state)
{
	(void)state;
	assert_true(env_has_word("#1 SMP PREEMPT_RT Debian", "PREEMPT_RT"));
	assert_true(env_has_word("#1 SMP PREEMPT Tue", "PREEMPT"));
	assert_false(env_has_word("#1 SMP PREEMPT_DYNAMIC @0", "PREEMPT"));
	assert_false(env_has_word("#1 SMP PREEMPT_DYNAMIC @0", "PREEMPT_RT"));
	assert_true(env_has_word("#1 SMP PREEMPT_DYNAMIC @0", "PREEMPT_DYNAMIC"));
	assert_false(env_has_word("", "PREEMPT"));
	assert_true(env_has_word("PREEMPT", "PREEMPT"));
	assert_true(env_has_word("#1 SMP PREEMPT RT Fri", "PREEMPT RT"));
	assert_false(env_has_word("#1 SMP PREEMPT RTX", "PREEMPT RT"));
	assert_false(env_has_word("#1 SMP PREEMPT_DYNAMIC RT", "PREEMPT RT"));
}

static void test_sched_preempt_line(void **state)
{
	(void)state;
	assert_string_equal(env_parse_sched_preempt("none (voluntary) full lazy\n"), "voluntary");
	assert_string_equal(env_parse_sched_preempt("(none) voluntary full"), "none");
	assert_string_equal(env_parse_sched_preempt("none voluntary (full)"), "full");
	assert_string_equal(env_parse_sched_preempt("none voluntary full (lazy)"), "lazy");
	assert_null(env_parse_sched_preempt("none voluntary full"));
	assert_null(env_parse_sched_preempt("none (bogus) full"));
	assert_null(env_parse_sched_preempt("(full"));
	assert_null(env_parse_sched_preempt(""));
}

static void test_cmdline(void **state)
{
	(void)state;
	assert_string_equal(env_parse_cmdline("quiet preempt=full root=/dev/vda\n"), "full");
	assert_string_equal(env_parse_cmdline("preempt=none"), "none");
	assert_null(env_parse_cmdline("quiet -- preempt=full"));
	assert_null(env_parse_cmdline("preempt= quiet"));
	assert_null(env_parse_cmdline("preempt=sometimes"));
	assert_null(env_parse_cmdline("nopreempt=full"));
	assert_null(env_parse_cmdline(""));
}

static void test_config_excerpt(void **state)
{
	(void)state;
	assert_string_equal(env_parse_config("CONFIG_PREEMPT_BUILD=y\nCONFIG_PREEMPT_NONE=y\n"
					     "# CONFIG_PREEMPT_VOLUNTARY is not set\n"
					     "# CONFIG_PREEMPT is not set\n"
					     "CONFIG_PREEMPT_DYNAMIC=y\n"), "none");
	assert_string_equal(env_parse_config("CONFIG_PREEMPT_VOLUNTARY=y\n"), "voluntary");
	assert_string_equal(env_parse_config("CONFIG_PREEMPT=y\nCONFIG_PREEMPT_COUNT=y"), "full");
	assert_string_equal(env_parse_config("CONFIG_PREEMPT=y\nCONFIG_PREEMPT_RT=y\n"), "rt");
	assert_string_equal(env_parse_config("CONFIG_PREEMPT_LAZY=y\n"), "lazy");
	/* modules and prefixes do not count */
	assert_null(env_parse_config("CONFIG_PREEMPT=m\nCONFIG_PREEMPTION=y\n"
				     "CONFIG_PREEMPT_RCU=y\nCONFIG_PREEMPT_COUNT=y\n"));
	assert_null(env_parse_config("XCONFIG_PREEMPT=y"));
	assert_null(env_parse_config(""));
}

static void test_vm_names(void **state)
{
	(void)state;
	assert_string_equal(env_vm_from_cpuid_vendor("KVMKVMKVM"), "KVM");
	assert_string_equal(env_vm_from_cpuid_vendor("TCGTCGTCGTCG"), "QEMU TCG");
	assert_string_equal(env_vm_from_cpuid_vendor("Microsoft Hv"), "Hyper-V");
	assert_null(env_vm_from_cpuid_vendor("GenuineIntel"));
	assert_string_equal(env_vm_from_dmi("QEMU", "Standard PC (Q35 + ICH9, 2009)"), "QEMU");
	assert_string_equal(env_vm_from_dmi("innotek GmbH", "VirtualBox"), "VirtualBox");
	assert_string_equal(env_vm_from_dmi("Microsoft Corporation", "Virtual Machine"),
			    "Hyper-V");
	assert_null(env_vm_from_dmi("Dell Inc.", "PowerEdge R640"));
	assert_null(env_vm_from_dmi(NULL, NULL));
}

/* ---- Fixture trees -------------------------------------------------------- */

static void test_tree_rt_from_uname(void **state)
{
	struct rt_env env;

	probe_tree(*state, "#1 SMP PREEMPT_RT Debian 6.12", &env);
	assert_true(env.realtime);
	assert_string_equal(env.preempt_model, "rt");
	assert_string_equal(env.preempt_source, "uname -v");
	assert_false(env.sys_kernel_realtime);
	assert_false(env.classroom_vm);
	rt_env_fini(&env);
}

/* The classroom VM's image names its kernel in /etc/rtlab-vm/kernel. */
static void test_tree_classroom_vm(void **state)
{
	struct rt_env env;

	tree_put(*state, "/etc/rtlab-vm/kernel", "lab\n");
	probe_tree(*state, "#1 SMP PREEMPT_RT Debian 6.12", &env);
	assert_true(env.classroom_vm);
	rt_env_fini(&env);
}

/* The classroom VM in virtual time: the word on the kernel command line, before "--". */
static void test_tree_virtual_time(void **state)
{
	struct rt_env env;

	tree_put(*state, "/proc/cmdline", "console=ttyS0 rtlab.time=virtual rtlab.shell=1\n");
	probe_tree(*state, "#1 SMP PREEMPT_RT Debian 6.12", &env);
	assert_true(env.virtual_time);
	rt_env_fini(&env);
	tree_put(*state, "/proc/cmdline", "console=ttyS0 rtlab.time=virtually -- rtlab.time=virtual\n");
	probe_tree(*state, "#1 SMP PREEMPT_RT Debian 6.12", &env);
	assert_false(env.virtual_time);
	rt_env_fini(&env);
}

/* Older patch-set kernels: "PREEMPT RT" with a space, not taken for a plain PREEMPT. */
static void test_tree_rt_with_space(void **state)
{
	struct rt_env env;

	tree_put(*state, "/boot/config-6.12.0-test", "CONFIG_PREEMPT=y\n");
	probe_tree(*state, "#1 SMP PREEMPT RT Fri Mar 1 12:00:00 UTC 2019", &env);
	assert_true(env.realtime);
	assert_string_equal(env.preempt_model, "rt");
	assert_string_equal(env.preempt_source, "uname -v");
	rt_env_fini(&env);
	/* Only as words: "PREEMPT RTX" or "XPREEMPT RT" is no RT kernel. */
	probe_tree(*state, "#1 SMP PREEMPT RTX", &env);
	assert_false(env.realtime);
	assert_string_equal(env.preempt_model, "full");
	rt_env_fini(&env);
}

static void test_tree_debian_realtime_file(void **state)
{
	struct rt_env env;

	tree_put(*state, "/sys/kernel/realtime", "1\n");
	probe_tree(*state, "#1 SMP Debian 6.1", &env);
	assert_true(env.realtime);
	assert_true(env.sys_kernel_realtime);
	assert_string_equal(env.preempt_model, "rt");
	assert_string_equal(env.preempt_source, "/sys/kernel/realtime");
	rt_env_fini(&env);
}

static void test_tree_dynamic_debugfs_wins(void **state)
{
	struct rt_env env;

	tree_put(*state, "/sys/kernel/debug/sched/preempt", "none (voluntary) full\n");
	tree_put(*state, "/proc/cmdline", "quiet preempt=full\n");
	tree_put(*state, "/boot/config-6.12.0-test", "CONFIG_PREEMPT_NONE=y\n");
	probe_tree(*state, "#1 SMP PREEMPT_DYNAMIC", &env);
	assert_false(env.realtime);
	assert_string_equal(env.preempt_model, "voluntary");
	assert_string_equal(env.preempt_source, "/sys/kernel/debug/sched/preempt");
	assert_true(env.preempt_dynamic);
	rt_env_fini(&env);
}

static void test_tree_dynamic_cmdline(void **state)
{
	struct rt_env env;

	tree_put(*state, "/proc/cmdline", "quiet preempt=full\n");
	tree_put(*state, "/boot/config-6.12.0-test", "CONFIG_PREEMPT_NONE=y\n");
	probe_tree(*state, "#1 SMP PREEMPT_DYNAMIC", &env);
	assert_string_equal(env.preempt_model, "full");
	assert_string_equal(env.preempt_source, "/proc/cmdline preempt=");
	rt_env_fini(&env);
}

static void test_tree_config_file(void **state)
{
	struct rt_env env;

	tree_put(*state, "/boot/config-6.12.0-test", "CONFIG_PREEMPT_VOLUNTARY=y\n");
	probe_tree(*state, "#1 SMP PREEMPT_DYNAMIC", &env);
	assert_string_equal(env.preempt_model, "voluntary");
	assert_string_equal(env.preempt_source, "/boot/config");
	rt_env_fini(&env);
}

static void test_tree_config_gz(void **state)
{
	struct tree *t = *state;
	struct rt_env env;
	char cmd[256];

	tree_put(t, "/proc/config", "CONFIG_PREEMPT_NONE=y\nCONFIG_PREEMPT_DYNAMIC=y\n");
	snprintf(cmd, sizeof(cmd), "gzip -n '%s/proc/config'", t->root);
	if (system(cmd) != 0)
		skip();	/* no gzip: rt_env cannot read /proc/config.gz either */
	probe_tree(t, "#1 SMP PREEMPT_DYNAMIC", &env);
	assert_string_equal(env.preempt_model, "none");
	assert_string_equal(env.preempt_source, "/proc/config.gz");
	assert_true(env.preempt_dynamic);
	rt_env_fini(&env);
}

static void test_tree_uname_preempt(void **state)
{
	struct rt_env env;

	probe_tree(*state, "#1 SMP PREEMPT Tue Jan 1", &env);
	assert_string_equal(env.preempt_model, "full");
	assert_string_equal(env.preempt_source, "uname -v");
	assert_false(env.realtime);
	assert_false(env.preempt_dynamic);
	rt_env_fini(&env);
}

static void test_tree_unknown(void **state)
{
	struct rt_env env;

	probe_tree(*state, "#1 SMP Tue Jan 1", &env);
	assert_string_equal(env.preempt_model, "unknown");
	assert_false(env.realtime);
	assert_false(env.in_vm);
	assert_null(env.vm_type);
	rt_env_fini(&env);
}

static void test_tree_dmi_vm(void **state)
{
	struct rt_env env;

	tree_put(*state, "/sys/class/dmi/id/sys_vendor", "QEMU\n");
	tree_put(*state, "/sys/class/dmi/id/product_name", "Standard PC (i440FX + PIIX, 1996)\n");
	probe_tree(*state, "#1 SMP", &env);
	assert_true(env.in_vm);
	assert_string_equal(env.vm_type, "QEMU");
	rt_env_fini(&env);
}

static void test_tree_xen(void **state)
{
	struct rt_env env;

	tree_put(*state, "/sys/hypervisor/type", "xen\n");
	probe_tree(*state, "#1 SMP", &env);
	assert_true(env.in_vm);
	assert_string_equal(env.vm_type, "Xen");
	rt_env_fini(&env);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_probe_matches_uname),
		cmocka_unit_test(test_has_word),
		cmocka_unit_test(test_sched_preempt_line),
		cmocka_unit_test(test_cmdline),
		cmocka_unit_test(test_config_excerpt),
		cmocka_unit_test(test_vm_names),
		cmocka_unit_test_setup_teardown(test_tree_rt_from_uname, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_tree_classroom_vm, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_tree_virtual_time, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_tree_rt_with_space, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_tree_debian_realtime_file, tree_setup,
						tree_teardown),
		cmocka_unit_test_setup_teardown(test_tree_dynamic_debugfs_wins, tree_setup,
						tree_teardown),
		cmocka_unit_test_setup_teardown(test_tree_dynamic_cmdline, tree_setup,
						tree_teardown),
		cmocka_unit_test_setup_teardown(test_tree_config_file, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_tree_config_gz, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_tree_uname_preempt, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_tree_unknown, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_tree_dmi_vm, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_tree_xen, tree_setup, tree_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
