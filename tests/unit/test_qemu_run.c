/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the VM runner without QEMU: a fake "qemu" shell script, written to a
 * temporary directory, finds the console log on its command line, prints what the test
 * asks for (FAKE_MODE) and sleeps or exits. That exercises image lookup, starting the
 * child, the ready wait and its timeout with the console's last lines, an early exit,
 * stopping by pid and the removal of the runner's temporary directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qemu/qemu_run.h"
#include "qemu_fixture.h"

static const char fake_qemu[] =
	"#!/bin/sh\n"
	"for a; do case \"$a\" in file,id=con,path=*) log=${a#file,id=con,path=};; esac; done\n"
	"echo \"SeaBIOS (fake)\" >> \"$log\"\n"
	"echo \"[    0.5] Run /init as init process\" >> \"$log\"\n"
	"case \"$FAKE_MODE\" in\n"
	"ready) echo 'rtlab-vm: ready kernel=lab release=6.12-fake uptime_s=0.50; x' >> \"$log\";;\n"
	"args) echo \"fake args: $*\" >> \"$log\"\n"
	"      echo 'rtlab-vm: ready kernel=fcse release=6.12-fake uptime_s=0.50; x' >> \"$log\";;\n"
	"die) echo 'fake qemu: cannot boot' >&2; exit 3;;\n"
	"esac\n"
	"exec sleep 30\n";

struct fx {
	char dir[64];		/* holds qemu, images/lab/{vmlinuz,initrd.img}, tmp/ */
	char qemu[128], images[128], tmp[128];
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	strcpy(f->dir, "/tmp/rtlab-test-vm-run-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->qemu, sizeof(f->qemu), "%s/qemu", f->dir);
	snprintf(f->images, sizeof(f->images), "%s/images", f->dir);
	snprintf(f->tmp, sizeof(f->tmp), "%s/tmp", f->dir);
	qemu_fx_put(f->qemu, fake_qemu, 0755);
	if (mkdir(f->images, 0755) < 0 || mkdir(f->tmp, 0700) < 0)
		return -1;
	qemu_fx_image(f->images, "lab");
	setenv("TMPDIR", f->tmp, 1);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	if (qemu_fx_remove(f->dir) < 0)
		return -1;
	unsetenv("FAKE_MODE");
	free(f);
	return 0;
}

static void opts(struct fx *f, struct qemu_run_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->kernel = QEMU_KERNEL_LAB;
	o->accel = QEMU_ACCEL_TCG;
	o->image_dir = f->images;
	o->state_image = "";
	o->qemu = f->qemu;
	o->run = "true";
	o->boot_timeout_ms = 5000;
}

/* Entries left in the runner's TMPDIR. */
static int leftovers(struct fx *f)
{
	DIR *d = opendir(f->tmp);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void test_ready_then_stop(void **state)
{
	struct fx *f = *state;
	struct qemu_run_opts o;
	struct qemu_session *s;
	struct qemu_ready r;
	char *notice = NULL, *cause = NULL;
	int pid;

	opts(f, &o);
	setenv("FAKE_MODE", "ready", 1);
	s = qemu_session_start(&o, &notice, &cause);
	assert_non_null(s);
	assert_null(notice);
	assert_int_equal(qemu_session_accel(s), QEMU_ACCEL_TCG);
	assert_non_null(qemu_session_nonce(s));
	assert_int_equal(strlen(qemu_session_nonce(s)), 16);
	assert_int_equal(qemu_session_wait_ready(s, &r, &cause), 0);
	assert_string_equal(r.kernel, "lab");
	assert_string_equal(r.release, "6.12-fake");
	assert_true(qemu_session_ready_ms(s) >= 0);
	qemu_ready_fini(&r);
	assert_int_equal(leftovers(f), 1);
	pid = qemu_session_pid(s);
	assert_true(pid > 0);
	/* The fake has no QMP socket: freeing falls back to SIGTERM by pid. */
	qemu_session_free(s);
	assert_int_equal(kill(pid, 0), -1);
	assert_int_equal(errno, ESRCH);
	assert_int_equal(leftovers(f), 0);
}

static void test_timeout_shows_console(void **state)
{
	struct fx *f = *state;
	struct qemu_run_opts o;
	struct qemu_session *s;
	struct qemu_ready r;
	char *notice = NULL, *cause = NULL;

	/*
	 * The boot timeout of opts(), in which the fake prints its console lines
	 * at once: on a loaded machine "at once" may take a while.
	 */
	opts(f, &o);
	setenv("FAKE_MODE", "hang", 1);
	s = qemu_session_start(&o, &notice, &cause);
	assert_non_null(s);
	assert_int_equal(qemu_session_wait_ready(s, &r, &cause), -ETIMEDOUT);
	assert_non_null(strstr(cause, "did not reach rtlab"));
	assert_non_null(strstr(cause, "--- last console lines ---\nSeaBIOS (fake)\n"));
	assert_non_null(strstr(cause, "Run /init as init process"));
	free(cause);
	qemu_session_free(s);
	assert_int_equal(leftovers(f), 0);
}

static void test_early_exit(void **state)
{
	struct fx *f = *state;
	struct qemu_run_opts o;
	struct qemu_session *s;
	struct qemu_ready r;
	char *notice = NULL, *cause = NULL;
	int status = -1;

	opts(f, &o);
	setenv("FAKE_MODE", "die", 1);
	s = qemu_session_start(&o, &notice, &cause);
	assert_non_null(s);
	assert_int_equal(qemu_session_wait_ready(s, &r, &cause), -ECHILD);
	assert_non_null(strstr(cause, "QEMU exited (status 3)"));
	assert_non_null(strstr(cause, "--- qemu said ---\nfake qemu: cannot boot"));
	free(cause);
	cause = NULL;
	assert_int_equal(qemu_session_wait_exit(s, 1000, &status, &cause), 0);
	assert_int_equal(status, 3);
	assert_int_equal(qemu_session_pid(s), -1);
	qemu_session_free(s);
	assert_int_equal(leftovers(f), 0);
}

static void test_stop_flag_and_missing_image(void **state)
{
	struct fx *f = *state;
	static volatile sig_atomic_t stop = 1;
	struct qemu_run_opts o;
	struct qemu_session *s;
	struct qemu_ready r;
	char *notice = NULL, *cause = NULL;

	opts(f, &o);
	o.stop = &stop;
	setenv("FAKE_MODE", "hang", 1);
	s = qemu_session_start(&o, &notice, &cause);
	assert_non_null(s);
	assert_int_equal(qemu_session_wait_ready(s, &r, &cause), -EINTR);
	free(cause);
	cause = NULL;
	qemu_session_free(s);

	opts(f, &o);
	o.kernel = QEMU_KERNEL_RT;
	assert_null(qemu_session_start(&o, &notice, &cause));
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(cause, "make vm"));
	free(cause);
	cause = NULL;

	/* A board that boots with a device tree needs <machine>.dtb beside the kernel. */
	opts(f, &o);
	o.machine = &qemu_machine_versatilepb;
	assert_null(qemu_session_start(&o, &notice, &cause));
	assert_int_equal(errno, ENOENT);
	free(cause);
	cause = NULL;

	/* A double quote cannot travel on the kernel command line. */
	opts(f, &o);
	o.run = "echo \"x\"";
	assert_null(qemu_session_start(&o, &notice, &cause));
	assert_int_equal(errno, EINVAL);
	free(cause);
	assert_int_equal(leftovers(f), 0);
}

/*
 * The fcse kernel boots on its own board without the caller naming it: versatilepb, whose
 * device tree must be beside the kernel as versatilepb.dtb, under TCG with -cpu arm926.
 */
static void test_fcse_kernel_board(void **state)
{
	struct fx *f = *state;
	struct qemu_run_opts o;
	struct qemu_session *s;
	struct qemu_ready r;
	char *notice = NULL, *cause = NULL, dtb[200];
	const char *con;
	size_t len;

	qemu_fx_image(f->images, "fcse");
	opts(f, &o);
	o.kernel = QEMU_KERNEL_FCSE;
	o.accel = QEMU_ACCEL_AUTO;
	o.time = QEMU_TIME_AUTO;
	assert_null(qemu_session_start(&o, &notice, &cause));
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(cause, "no fcse image"));
	free(cause);
	cause = NULL;

	snprintf(dtb, sizeof(dtb), "%s/fcse/versatilepb.dtb", f->images);
	qemu_fx_put(dtb, "dtb", 0644);
	setenv("FAKE_MODE", "args", 1);
	s = qemu_session_start(&o, &notice, &cause);
	assert_non_null(s);
	/* Another architecture's board: TCG without a word about KVM. */
	assert_null(notice);
	assert_int_equal(qemu_session_accel(s), QEMU_ACCEL_TCG);
	assert_string_equal(qemu_session_cpu(s), "arm926");
	assert_true(qemu_session_virtual_time(s));
	assert_int_equal(qemu_session_wait_ready(s, &r, &cause), 0);
	assert_string_equal(r.kernel, "fcse");
	qemu_ready_fini(&r);
	con = qemu_session_console(s, &len);
	assert_non_null(strstr(con, "-machine versatilepb "));
	assert_non_null(strstr(con, "-cpu arm926 "));
	assert_non_null(strstr(con, "-smp 1 -m 256 "));
	assert_non_null(strstr(con, "-dtb "));
	assert_non_null(strstr(con, "/fcse/versatilepb.dtb "));
	assert_non_null(strstr(con, "console=ttyAMA0,115200"));
	qemu_session_free(s);

	/* KVM asked for by name is refused with the reason. */
	opts(f, &o);
	o.kernel = QEMU_KERNEL_FCSE;
	o.accel = QEMU_ACCEL_KVM;
	assert_null(qemu_session_start(&o, &notice, &cause));
	assert_non_null(strstr(cause, "the versatilepb machine runs under TCG only"));
	free(cause);
	assert_int_equal(leftovers(f), 0);
}

/* A second VM on a state disk that a running one holds is refused; then it is free. */
static void test_state_disk_locked(void **state)
{
	struct fx *f = *state;
	struct qemu_run_opts o;
	struct qemu_session *s1, *s2;
	char img[160], *notice = NULL, *cause = NULL;
	struct stat st;

	opts(f, &o);
	snprintf(img, sizeof(img), "%s/state.img", f->dir);
	o.state_image = img;
	setenv("FAKE_MODE", "ready", 1);
	s1 = qemu_session_start(&o, &notice, &cause);
	assert_non_null(s1);
	assert_int_equal(stat(img, &st), 0);
	assert_true(st.st_size > 0);
	s2 = qemu_session_start(&o, &notice, &cause);
	assert_null(s2);
	assert_int_equal(errno, EBUSY);
	assert_non_null(strstr(cause, "is in use by a VM that still runs"));
	free(cause);
	cause = NULL;
	qemu_session_free(s1);
	s2 = qemu_session_start(&o, &notice, &cause);
	assert_non_null(s2);
	qemu_session_free(s2);
	assert_int_equal(leftovers(f), 0);
}

/* A share must be a directory; its path comes back absolute, links resolved. */
static void test_share_check(void **state)
{
	struct fx *f = *state;
	char sub[160], link[160], file[160], want[PATH_MAX], *real = NULL, *cause = NULL;

	snprintf(sub, sizeof(sub), "%s/work", f->dir);
	snprintf(link, sizeof(link), "%s/work-link", f->dir);
	snprintf(file, sizeof(file), "%s/work/file", f->dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(symlink(sub, link), 0);
	qemu_fx_put(file, "x", 0644);
	assert_non_null(realpath(sub, want));
	assert_int_equal(qemu_share_check(link, &real, &cause), 0);
	assert_string_equal(real, want);
	free(real);
	assert_int_equal(qemu_share_check(file, &real, &cause), -ENOTDIR);
	assert_null(real);
	assert_non_null(strstr(cause, "not a directory"));
	free(cause);
	cause = NULL;
	assert_int_equal(qemu_share_check("/nonexistent/rtlab-share", &real, &cause), -ENOENT);
	free(cause);
}

static void test_image_dir(void **state)
{
	char *d;

	(void)state;
	setenv("RTLAB_VM_DIR", "/somewhere/images", 1);
	d = qemu_image_dir();
	assert_string_equal(d, "/somewhere/images");
	free(d);
	unsetenv("RTLAB_VM_DIR");
	setenv("XDG_CACHE_HOME", "/xdg", 1);
	d = qemu_image_dir();
	assert_non_null(d);
	/* The test binary's directory has no vm/images, so the cache is next. */
	assert_string_equal(d, "/xdg/rtlab/vm/images");
	free(d);
	unsetenv("XDG_CACHE_HOME");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ready_then_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeout_shows_console, setup, teardown),
		cmocka_unit_test_setup_teardown(test_early_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_flag_and_missing_image, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fcse_kernel_board, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_disk_locked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_share_check, setup, teardown),
		cmocka_unit_test(test_image_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
