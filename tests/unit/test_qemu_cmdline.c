/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the QEMU and kernel command lines of the classroom VM. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "qemu/qemu_cmdline.h"

static void base(struct qemu_config *c)
{
	memset(c, 0, sizeof(*c));
	c->kernel_path = "/img/lab/vmlinuz";
	c->initrd_path = "/img/lab/initrd.img";
	c->console_log = "/tmp/x/console.log";
	c->qmp_socket = "/tmp/x/qmp.sock";
	c->accel = QEMU_ACCEL_TCG;
	c->smp = 2;
	c->mem_mb = 1024;
}

/* The value after option @opt, or NULL. */
static const char *arg_after(char **argv, const char *opt)
{
	for (char **a = argv; *a; a++)
		if (!strcmp(*a, opt))
			return a[1];
	return NULL;
}

static int count(char **argv, const char *opt)
{
	int n = 0;

	for (char **a = argv; *a; a++)
		n += !strcmp(*a, opt);
	return n;
}

static void test_names(void **state)
{
	enum qemu_kernel k;
	enum qemu_accel a;

	(void)state;
	assert_int_equal(qemu_kernel_parse("rt", &k), 0);
	assert_int_equal(k, QEMU_KERNEL_RT);
	assert_int_equal(qemu_kernel_parse("RT", &k), -EINVAL);
	assert_string_equal(qemu_kernel_name(QEMU_KERNEL_LAB), "lab");
	assert_int_equal(qemu_kernel_parse("fcse", &k), 0);
	assert_int_equal(k, QEMU_KERNEL_FCSE);
	assert_string_equal(qemu_kernel_name(QEMU_KERNEL_FCSE), "fcse");
	assert_null(qemu_kernel_name(QEMU_KERNEL_COUNT));
	/* Each kernel's board: only fcse is ARM. */
	assert_ptr_equal(qemu_kernel_machine(QEMU_KERNEL_FCSE), &qemu_machine_versatilepb);
	assert_ptr_equal(qemu_kernel_machine(QEMU_KERNEL_LAB), &qemu_machine_pc);
	assert_ptr_equal(qemu_kernel_machine(QEMU_KERNEL_STOCK), &qemu_machine_pc);
	assert_int_equal(qemu_accel_parse("kvm", &a), 0);
	assert_int_equal(a, QEMU_ACCEL_KVM);
	assert_int_equal(qemu_accel_parse("xen", &a), -EINVAL);
	assert_string_equal(qemu_accel_name(QEMU_ACCEL_AUTO), "auto");
}

static void test_headless_tcg(void **state)
{
	struct qemu_config c;
	char **argv;

	(void)state;
	base(&c);
	c.run = "rtlab doctor --json";
	c.nonce = "abc123";
	argv = qemu_cmdline_new(&c, NULL);
	assert_non_null(argv);
	assert_string_equal(argv[0], "qemu-system-x86_64");
	assert_string_equal(arg_after(argv, "-machine"), "pc");
	assert_string_equal(arg_after(argv, "-accel"), "tcg,thread=multi");
	assert_string_equal(arg_after(argv, "-cpu"), "max");
	assert_string_equal(arg_after(argv, "-smp"), "2");
	assert_string_equal(arg_after(argv, "-m"), "1024");
	assert_string_equal(arg_after(argv, "-kernel"), "/img/lab/vmlinuz");
	assert_string_equal(arg_after(argv, "-initrd"), "/img/lab/initrd.img");
	assert_string_equal(arg_after(argv, "-chardev"), "file,id=con,path=/tmp/x/console.log");
	assert_string_equal(arg_after(argv, "-serial"), "chardev:con");
	assert_null(arg_after(argv, "-mon"));
	assert_string_equal(arg_after(argv, "-qmp"), "unix:/tmp/x/qmp.sock,server=on,wait=off");
	assert_null(arg_after(argv, "-drive"));
	assert_int_equal(count(argv, "-no-reboot"), 1);
	assert_int_equal(count(argv, "-nodefaults"), 1);
	assert_string_equal(arg_after(argv, "-append"),
			    "console=ttyS0,115200 panic=-1 loglevel=4 "
			    "rtlab.nonce=abc123 rtlab.run=\"rtlab doctor --json\"");
	qemu_argv_free(argv);
}

/* Virtual time: single-threaded TCG counting instructions, one vCPU, and the guest told. */
static void test_virtual_time(void **state)
{
	struct qemu_config c;
	char **argv;
	char *cause = NULL;

	(void)state;
	base(&c);
	c.virtual_time = true;
	c.smp = 1;
	argv = qemu_cmdline_new(&c, NULL);
	assert_non_null(argv);
	assert_string_equal(arg_after(argv, "-accel"), "tcg,thread=single");
	assert_string_equal(arg_after(argv, "-icount"), "shift=0,sleep=off,align=off");
	assert_string_equal(arg_after(argv, "-smp"), "1");
	assert_non_null(strstr(arg_after(argv, "-append"), " rtlab.time=virtual"));
	qemu_argv_free(argv);

	c.smp = 2;
	assert_null(qemu_cmdline_new(&c, &cause));
	assert_non_null(strstr(cause, "one vCPU"));
	free(cause);
	cause = NULL;
	c.smp = 1;
	c.accel = QEMU_ACCEL_KVM;
	assert_null(qemu_cmdline_new(&c, &cause));
	assert_non_null(strstr(cause, "needs TCG"));
	free(cause);

	/* Real time never counts instructions. */
	base(&c);
	argv = qemu_cmdline_new(&c, NULL);
	assert_null(arg_after(argv, "-icount"));
	assert_null(strstr(arg_after(argv, "-append"), "rtlab.time"));
	qemu_argv_free(argv);
}

static void test_time_names(void **state)
{
	enum qemu_time t;

	(void)state;
	assert_int_equal(qemu_time_parse("virtual", &t), 0);
	assert_int_equal(t, QEMU_TIME_VIRTUAL);
	assert_int_equal(qemu_time_parse("auto", &t), 0);
	assert_int_equal(t, QEMU_TIME_AUTO);
	assert_int_equal(qemu_time_parse("wall", &t), -EINVAL);
	assert_string_equal(qemu_time_name(QEMU_TIME_REAL), "real");
	assert_null(qemu_time_name((enum qemu_time)7));
}

static void test_interactive_kvm_with_state(void **state)
{
	struct qemu_config c;
	char **argv;

	(void)state;
	base(&c);
	c.accel = QEMU_ACCEL_KVM;
	c.interactive = true;
	c.shell = true;
	c.qemu = "/opt/qemu";
	c.state_image = "/home/a,b/state.img";
	c.term = "xterm-256color";
	c.cols = 120;
	c.rows = 40;
	argv = qemu_cmdline_new(&c, NULL);
	assert_non_null(argv);
	assert_string_equal(argv[0], "/opt/qemu");
	assert_string_equal(arg_after(argv, "-machine"), "pc");
	assert_string_equal(arg_after(argv, "-accel"), "kvm");
	assert_string_equal(arg_after(argv, "-cpu"), "host");
	assert_string_equal(arg_after(argv, "-chardev"),
			    "stdio,id=con,mux=on,signal=off,logfile=/tmp/x/console.log");
	assert_string_equal(arg_after(argv, "-mon"), "chardev=con,mode=readline");
	/* A comma in a path is doubled for QEMU's option parser. */
	assert_string_equal(arg_after(argv, "-drive"),
			    "file=/home/a,,b/state.img,if=virtio,format=raw,cache=writeback");
	assert_string_equal(arg_after(argv, "-append"),
			    "console=ttyS0,115200 panic=-1 loglevel=4 rtlab.term=xterm-256color "
			    "rtlab.cols=120 rtlab.rows=40 rtlab.shell=1");
	qemu_argv_free(argv);
}

/*
 * With the state disk already open, QEMU gets the descriptor, never the path: a link swapped
 * in after rtlab checked the file cannot redirect a root QEMU to another disk.
 */
static void test_state_disk_by_descriptor(void **state)
{
	struct qemu_config c;
	char **argv;

	(void)state;
	base(&c);
	c.state_image = "/home/u/.local/state/rtlab/vm-state.img";
	c.state_fd = 7;
	c.state_ro_fd = 8;
	argv = qemu_cmdline_new(&c, NULL);
	assert_non_null(argv);
	assert_string_equal(arg_after(argv, "-add-fd"), "fd=7,set=1,opaque=rtlab-state");
	/* The read-only descriptor joins the same set (QEMU opens read-only first). */
	assert_int_equal(count(argv, "-add-fd"), 2);
	assert_string_equal(arg_after(argv, "fd=7,set=1,opaque=rtlab-state"), "-add-fd");
	for (size_t i = 0; argv[i]; i++)
		if (!strcmp(argv[i], "fd=7,set=1,opaque=rtlab-state"))
			assert_string_equal(argv[i + 2], "fd=8,set=1,opaque=rtlab-state-ro");
	assert_string_equal(arg_after(argv, "-drive"),
			    "file=/dev/fdset/1,if=virtio,format=raw,cache=writeback");
	for (size_t i = 0; argv[i]; i++)
		assert_null(strstr(argv[i], "vm-state.img"));
	qemu_argv_free(argv);
}

static void test_refused(void **state)
{
	struct qemu_config c;
	char *cause = NULL;
	char big[3000];

	(void)state;
	base(&c);
	c.accel = QEMU_ACCEL_AUTO;
	assert_null(qemu_cmdline_new(&c, &cause));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(cause, "resolved"));
	free(cause);
	cause = NULL;

	base(&c);
	c.smp = 0;
	assert_null(qemu_cmdline_new(&c, NULL));
	base(&c);
	c.mem_mb = 64;
	assert_null(qemu_cmdline_new(&c, NULL));
	base(&c);
	c.kernel_path = NULL;
	assert_null(qemu_cmdline_new(&c, NULL));

	base(&c);
	c.run = "echo \"hi\"";
	c.nonce = "n";
	assert_null(qemu_cmdline_new(&c, &cause));
	assert_non_null(strstr(cause, "double quote"));
	free(cause);
	cause = NULL;

	c.run = "true";
	c.nonce = "bad nonce";
	assert_null(qemu_append_new(&c, NULL));
	c.nonce = NULL;
	assert_null(qemu_append_new(&c, NULL));

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	c.run = big;
	c.nonce = "n";
	assert_null(qemu_append_new(&c, &cause));
	assert_non_null(strstr(cause, "at most"));
	free(cause);
}

static void test_bad_term_is_dropped(void **state)
{
	struct qemu_config c;
	char *s;

	(void)state;
	base(&c);
	c.term = "xterm rtlab.shell=1";
	s = qemu_append_new(&c, NULL);
	assert_non_null(s);
	assert_null(strstr(s, "rtlab.term"));
	assert_null(strstr(s, "rtlab.shell"));
	free(s);
}

/* --append: the learner's parameters after rtlab's console, before the rtlab.* words. */
static void test_user_append(void **state)
{
	struct qemu_config c;
	char **argv;

	(void)state;
	base(&c);
	c.append = "isolcpus=1 nohz_full=1";
	c.run = "cat /sys/devices/system/cpu/isolated";
	c.nonce = "n1";
	argv = qemu_cmdline_new(&c, NULL);
	assert_non_null(argv);
	assert_string_equal(arg_after(argv, "-append"),
			    "console=ttyS0,115200 panic=-1 loglevel=4 isolcpus=1 nohz_full=1 "
			    "rtlab.nonce=n1 rtlab.run=\"cat /sys/devices/system/cpu/isolated\"");
	qemu_argv_free(argv);
}

static void test_user_append_refused(void **state)
{
	static const char *const bad[] = {
		"isolcpus=1\nnohz_full=1", "a\tb", "quiet\x1b[2J", "x=\"y\"", "caf\xc3\xa9",
		"rtlab.shell=1", "quiet console=tty0", "init=/bin/sh", "rdinit=/x",
	};
	struct qemu_config c;
	char *cause = NULL;
	char big[QEMU_USER_APPEND_MAX + 2];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(qemu_append_check(bad[i], &cause), -EINVAL);
		assert_non_null(cause);
		free(cause);
		cause = NULL;
		base(&c);
		c.append = bad[i];
		assert_null(qemu_cmdline_new(&c, NULL));
		assert_int_equal(errno, EINVAL);
	}
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(qemu_append_check(big, &cause), -EINVAL);
	assert_non_null(strstr(cause, "at most 512"));
	free(cause);
	big[QEMU_USER_APPEND_MAX] = '\0';
	assert_int_equal(qemu_append_check(big, NULL), 0);
	assert_int_equal(qemu_append_check("", NULL), 0);
	assert_int_equal(qemu_append_check("isolcpus=1 nohz_full=1 rcu_nocbs=1", NULL), 0);
	/* "consoleblank=" is not "console=". */
	assert_int_equal(qemu_append_check("consoleblank=0", NULL), 0);
}

/* The KVM probe's CPU models reach -cpu as they are; a stray character is refused. */
static void test_cpu_model(void **state)
{
	struct qemu_config c;
	char **argv;

	(void)state;
	base(&c);
	c.accel = QEMU_ACCEL_KVM;
	c.cpu = "host,-arch-capabilities,-pdcm,pmu=off";
	argv = qemu_cmdline_new(&c, NULL);
	assert_non_null(argv);
	assert_string_equal(arg_after(argv, "-cpu"), "host,-arch-capabilities,-pdcm,pmu=off");
	qemu_argv_free(argv);
	c.cpu = "host -S";
	assert_null(qemu_cmdline_new(&c, NULL));
	c.cpu = "";
	assert_null(qemu_cmdline_new(&c, NULL));
}

/* --share: a 9p device with the fixed tag, mapped-xattr, commas doubled; the guest told. */
static void test_share_and_utf8(void **state)
{
	struct qemu_config c;
	char **argv, *cause = NULL;
	const char *app;

	(void)state;
	base(&c);
	argv = qemu_cmdline_new(&c, &cause);
	assert_non_null(argv);
	assert_int_equal(count(argv, "-fsdev"), 0);
	app = arg_after(argv, "-append");
	assert_null(strstr(app, "rtlab.share"));
	assert_null(strstr(app, "rtlab.utf8"));
	qemu_argv_free(argv);

	c.share_dir = "/home/me/work,v2";
	c.utf8 = true;
	argv = qemu_cmdline_new(&c, &cause);
	assert_non_null(argv);
	assert_string_equal(arg_after(argv, "-fsdev"), "local,id=rtlabshare,path=/home/me/work,,v2,"
			    "security_model=mapped-xattr,multidevs=remap");
	assert_string_equal(arg_after(argv, "-device"),
			    "virtio-9p-pci,fsdev=rtlabshare,mount_tag=" QEMU_SHARE_TAG);
	app = arg_after(argv, "-append");
	assert_non_null(strstr(app, " rtlab.utf8=1"));
	assert_non_null(strstr(app, " rtlab.share=1"));
	qemu_argv_free(argv);

	c.share_dir = "work";
	assert_null(qemu_cmdline_new(&c, &cause));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(cause, "absolute"));
	free(cause);
}

static bool has_arg(char **argv, const char *want)
{
	for (size_t i = 0; argv[i]; i++)
		if (!strcmp(argv[i], want))
			return true;
	return false;
}

/* The probe's virtio-serial port: named, on our socket, a comma in its path escaped. */
static void test_probe_port(void **state)
{
	struct qemu_config c;
	char **argv;

	(void)state;
	base(&c);
	argv = qemu_cmdline_new(&c, NULL);
	assert_non_null(argv);
	assert_false(has_arg(argv, "virtio-serial-pci,id=vser0"));
	qemu_argv_free(argv);
	c.probe_socket = "/tmp/rtlab,probe.sock";
	argv = qemu_cmdline_new(&c, NULL);
	assert_non_null(argv);
	assert_true(has_arg(argv, "virtio-serial-pci,id=vser0"));
	assert_true(has_arg(argv, "socket,id=probe,path=/tmp/rtlab,,probe.sock,server=on,wait=off"));
	assert_true(has_arg(argv, "virtserialport,bus=vser0.0,chardev=probe,name=rtlab.probe"));
	assert_false(has_arg(argv, "iothread,id=io0"));
	qemu_argv_free(argv);
	/* The hypervisor lab's scratch disk, on an I/O thread of its own, found by its serial. */
	c.scratch_image = "/tmp/a,b/scratch.img";
	assert_null(qemu_cmdline_new(&c, NULL));
	assert_int_equal(errno, EINVAL);
	c.scratch_serial = "a,b";
	assert_null(qemu_cmdline_new(&c, NULL));
	c.scratch_serial = "rtlab-scratch";
	argv = qemu_cmdline_new(&c, NULL);
	assert_non_null(argv);
	assert_true(has_arg(argv, "iothread,id=io0"));
	assert_true(has_arg(argv, "file=/tmp/a,,b/scratch.img,if=none,id=scratch,format=raw,"
			    "cache=writeback"));
	assert_true(has_arg(argv, "virtio-blk-pci,drive=scratch,iothread=io0,"
			    "serial=rtlab-scratch"));
	qemu_argv_free(argv);
}

/* The argument after the @n-th (0-based) occurrence of @opt, or NULL. */
static const char *nth_after(char **argv, const char *opt, int n)
{
	for (char **a = argv; *a; a++)
		if (!strcmp(*a, opt) && n-- == 0)
			return a[1];
	return NULL;
}

/*
 * The ARM board from its table entry: its emulator, TCG alone, its own CPU, one core,
 * its device tree, the console on the first PL011, the state disk on SCSI and the
 * probe's channel on the second PL011; what it lacks is refused.
 */
static void test_versatilepb(void **state)
{
	struct qemu_config c;
	char **argv, *cause = NULL, big[1100];

	(void)state;
	assert_ptr_equal(qemu_machine_find("versatilepb"), &qemu_machine_versatilepb);
	assert_ptr_equal(qemu_machine_find("pc"), &qemu_machine_pc);
	assert_null(qemu_machine_find("virt"));
	base(&c);
	c.machine = &qemu_machine_versatilepb;
	c.smp = 1;
	c.mem_mb = 256;
	assert_null(qemu_cmdline_new(&c, &cause));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(cause, "the versatilepb machine needs a device tree");
	free(cause);
	cause = NULL;

	c.dtb_path = "/img/fcse/versatilepb.dtb";
	c.state_image = "/tmp/state.img";
	c.probe_socket = "/tmp/x/probe.sock";
	argv = qemu_cmdline_new(&c, NULL);
	assert_non_null(argv);
	assert_string_equal(argv[0], "qemu-system-arm");
	assert_string_equal(arg_after(argv, "-machine"), "versatilepb");
	assert_string_equal(arg_after(argv, "-accel"), "tcg");
	assert_string_equal(arg_after(argv, "-cpu"), "arm926");
	assert_string_equal(arg_after(argv, "-smp"), "1");
	assert_string_equal(arg_after(argv, "-m"), "256");
	assert_string_equal(arg_after(argv, "-dtb"), "/img/fcse/versatilepb.dtb");
	assert_string_equal(nth_after(argv, "-serial", 0), "chardev:con");
	assert_string_equal(nth_after(argv, "-serial", 1), "chardev:probe");
	assert_string_equal(nth_after(argv, "-chardev", 1),
			    "socket,id=probe,path=/tmp/x/probe.sock,server=on,wait=off");
	assert_false(has_arg(argv, "virtio-serial-pci,id=vser0"));
	assert_string_equal(arg_after(argv, "-drive"),
			    "file=/tmp/state.img,if=scsi,format=raw,cache=writeback");
	assert_string_equal(arg_after(argv, "-append"), "console=ttyAMA0,115200 panic=-1 loglevel=4");
	qemu_argv_free(argv);

	/* Under KVM, with two cores, more memory, a scratch disk or a share: refused. */
	c.accel = QEMU_ACCEL_KVM;
	assert_null(qemu_cmdline_new(&c, &cause));
	assert_string_equal(cause, "the versatilepb machine runs under TCG only");
	free(cause);
	cause = NULL;
	c.accel = QEMU_ACCEL_TCG;
	c.smp = 2;
	assert_null(qemu_cmdline_new(&c, &cause));
	assert_string_equal(cause, "--smp must be 1..1 and --mem 128..256 (MiB)");
	free(cause);
	cause = NULL;
	c.smp = 1;
	c.mem_mb = 512;
	assert_null(qemu_cmdline_new(&c, NULL));
	c.mem_mb = 256;
	c.scratch_image = "/tmp/x/scratch.img";
	c.scratch_serial = "rtlab-scratch";
	assert_null(qemu_cmdline_new(&c, NULL));
	c.scratch_image = NULL;
	c.share_dir = "/home/u/work";
	assert_null(qemu_cmdline_new(&c, NULL));
	c.share_dir = NULL;

	/* ARM keeps 1024 bytes of kernel command line: a run command that fits x86 does not. */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	c.run = big;
	c.nonce = "abc123";
	assert_null(qemu_cmdline_new(&c, &cause));
	assert_non_null(strstr(cause, "at most 1000 fit"));
	free(cause);
	c.machine = NULL;
	c.smp = 2;
	c.dtb_path = NULL;
	argv = qemu_cmdline_new(&c, NULL);
	assert_non_null(argv);
	qemu_argv_free(argv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_headless_tcg),
		cmocka_unit_test(test_virtual_time),
		cmocka_unit_test(test_time_names),
		cmocka_unit_test(test_probe_port),
		cmocka_unit_test(test_interactive_kvm_with_state),
		cmocka_unit_test(test_state_disk_by_descriptor),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_bad_term_is_dropped),
		cmocka_unit_test(test_user_append),
		cmocka_unit_test(test_user_append_refused),
		cmocka_unit_test(test_cpu_model),
		cmocka_unit_test(test_share_and_utf8),
		cmocka_unit_test(test_versatilepb),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
