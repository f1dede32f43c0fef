/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the Linux-guest proof of KVM (qemu_kvm.c) and what the runner does with its
 * verdict (qemu_accel_resolve(), qemu_session_fallback()), without KVM or QEMU: a stand-in
 * KVM device ($RTLAB_KVM_DEV, a file holding the test guest's report) and a fake "qemu"
 * script that answers --version, logs the -cpu it was given and, under KVM, dies of
 * SIGABRT with QEMU's MSR message for -cpu host and hangs silently for the other models
 * unless FAKE_KVM=max-boots lets -cpu max come up; under TCG it always comes up.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qemu/qemu_kvm.h"
#include "qemu/qemu_run.h"
#include "qemu_fixture.h"

/*
 * The probe's cap here. A fake QEMU that comes up must print within the
 * silence (a sixth of the cap) however loaded the machine, and one that
 * hangs costs that long: 2 s is both. No test judges how long a probe
 * took; what each model got is in the detail.
 */
#define CAP_MS 12000
/* A bound against a hang only. */
#define HANG_S 60

static const char fake_qemu[] =
	"#!/bin/sh\n"
	"if [ \"$1\" = --version ]; then echo 'QEMU emulator version 9.9.9 (fake)'; exit 0; fi\n"
	"kvm=0 cpu= prev=\n"
	"for a; do\n"
	"  case \"$prev\" in\n"
	"  -machine) case \"$a\" in *accel=kvm*) kvm=1;; esac;;\n"
	"  -accel) case \"$a\" in kvm|kvm,*) kvm=1;; esac;;\n"
	"  -cpu) cpu=$a;;\n"
	"  esac\n"
	"  case \"$a\" in file,id=con,path=*) log=${a#file,id=con,path=};; esac\n"
	"  prev=$a\n"
	"done\n"
	"echo \"$kvm $cpu\" >> \"$FAKE_LOG\"\n"
	"up() { echo 'rtlab-vm: ready kernel=lab release=6.12-fake uptime_s=0.50; x' >> \"$log\";"
	" exec sleep 30; }\n"
	"[ $kvm = 0 ] && up\n"
	"case \"$FAKE_KVM:$cpu\" in\n"
	"*:host) echo 'qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69' >&2;"
	" ulimit -c 0; kill -ABRT $$; exit 134;;\n"
	"max-boots:max) up;;\n"
	"esac\n"
	"exec sleep 30\n";

struct fx {
	char dir[64];
	char qemu[128], images[128], log[128], cache[128], kvm[128];
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char p[256];

	if (!f)
		return -1;
	strcpy(f->dir, "/tmp/rtlab-test-vm-kvm-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->qemu, sizeof(f->qemu), "%s/qemu", f->dir);
	snprintf(f->images, sizeof(f->images), "%s/images", f->dir);
	snprintf(f->log, sizeof(f->log), "%s/qemu.log", f->dir);
	snprintf(f->cache, sizeof(f->cache), "%s/state/rtlab/kvm-verdict", f->dir);
	snprintf(f->kvm, sizeof(f->kvm), "%s/kvm", f->dir);
	qemu_fx_put(f->qemu, fake_qemu, 0755);
	qemu_fx_put(f->log, "", 0644);
	qemu_fx_put(f->kvm, "A 12\nW\n", 0644);
	snprintf(p, sizeof(p), "%s/state", f->dir);
	if (mkdir(f->images, 0755) < 0 || mkdir(p, 0700) < 0)
		return -1;
	setenv("XDG_STATE_HOME", p, 1);
	snprintf(p, sizeof(p), "%s/state/rtlab", f->dir);
	if (mkdir(p, 0700) < 0)
		return -1;
	snprintf(p, sizeof(p), "%s/tmp", f->dir);
	if (mkdir(p, 0700) < 0)
		return -1;
	setenv("TMPDIR", p, 1);
	setenv("FAKE_LOG", f->log, 1);
	setenv("RTLAB_KVM_DEV", f->kvm, 1);
	unsetenv("FAKE_KVM");
	unsetenv("RTLAB_KVM_PROBE_TIMEOUT");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	if (qemu_fx_remove(f->dir) < 0)
		return -1;
	unsetenv("RTLAB_KVM_DEV");
	unsetenv("XDG_STATE_HOME");
	free(f);
	return 0;
}

/* Give the fixture a lab image (any bytes: the fake does not read it). */
static void add_image(struct fx *f)
{
	qemu_fx_image(f->images, "lab");
}

/* The fake's log: one "KVM CPU" line per start. */
static char *starts(struct fx *f)
{
	FILE *fp = fopen(f->log, "r");
	char *s = calloc(1, 4096);

	assert_non_null(fp);
	assert_non_null(s);
	assert_true(fread(s, 1, 4095, fp) < 4095);
	fclose(fp);
	return s;
}

static char *boot_id(void)
{
	FILE *fp = fopen("/proc/sys/kernel/random/boot_id", "r");
	char buf[128] = "";

	assert_non_null(fp);
	assert_non_null(fgets(buf, sizeof(buf), fp));
	fclose(fp);
	buf[strcspn(buf, "\n")] = '\0';
	return strdup(buf);
}

/* Keep a verdict for this boot and the fake's version, as an earlier probe would. */
static void keep(struct fx *f, enum qemu_kvm_state st, const char *cpu)
{
	struct qemu_kvm_verdict v = { 0 };

	v.state = st;
	v.boot_id = boot_id();
	v.qemu_version = strdup("QEMU emulator version 9.9.9 (fake)");
	v.kernel = strdup("lab");
	v.cpu = cpu ? strdup(cpu) : NULL;
	v.boot_ms = 700;
	v.detail = st == QEMU_KVM_FAILED ? strdup("-cpu host: kept reason") : NULL;
	assert_int_equal(qemu_kvm_verdict_save(f->cache, &v, NULL), 0);
	qemu_kvm_verdict_fini(&v);
}

/* ---- Models, shares, cap -------------------------------------------------------- */

static void test_models_in_order(void **state)
{
	(void)state;
	assert_string_equal(qemu_kvm_model(0), "host");
	assert_non_null(strstr(qemu_kvm_model(1), "host,"));
	assert_non_null(strstr(qemu_kvm_model(1), "-arch-capabilities"));
	assert_non_null(strstr(qemu_kvm_model(1), "pmu=off"));
	assert_string_equal(qemu_kvm_model(2), "max");
	assert_null(qemu_kvm_model(QEMU_KVM_NMODELS));
}

static void test_shares_under_one_cap(void **state)
{
	(void)state;
	/* Even shares with the models still to try, each at most two thirds of the cap. */
	assert_int_equal(qemu_kvm_share_ms(0, 30000, 30000), 10000);
	assert_int_equal(qemu_kvm_share_ms(1, 29940, 30000), 14970);
	assert_int_equal(qemu_kvm_share_ms(2, 24900, 30000), 20000);
	assert_int_equal(qemu_kvm_share_ms(2, 14970, 30000), 14970);
	assert_int_equal(qemu_kvm_share_ms(2, 0, 30000), 0);
	assert_int_equal(qemu_kvm_share_ms(1, -5, 30000), 0);
	assert_int_equal(qemu_kvm_share_ms(QEMU_KVM_NMODELS, 30000, 30000), 0);
	/* A guest that prints nothing for a sixth of the cap has failed. */
	assert_int_equal(qemu_kvm_silence_ms(30000), 5000);
	assert_int_equal(qemu_kvm_silence_ms(120000), 20000);

	unsetenv("RTLAB_KVM_PROBE_TIMEOUT");
	assert_int_equal(qemu_kvm_cap_ms(), QEMU_KVM_PROBE_CAP_MS);
	setenv("RTLAB_KVM_PROBE_TIMEOUT", "4", 1);
	assert_int_equal(qemu_kvm_cap_ms(), 4000);
	setenv("RTLAB_KVM_PROBE_TIMEOUT", "0", 1);
	assert_int_equal(qemu_kvm_cap_ms(), QEMU_KVM_PROBE_CAP_MS);
	setenv("RTLAB_KVM_PROBE_TIMEOUT", "601", 1);
	assert_int_equal(qemu_kvm_cap_ms(), QEMU_KVM_PROBE_CAP_MS);
	setenv("RTLAB_KVM_PROBE_TIMEOUT", "3s", 1);
	assert_int_equal(qemu_kvm_cap_ms(), QEMU_KVM_PROBE_CAP_MS);
	unsetenv("RTLAB_KVM_PROBE_TIMEOUT");
}

/* ---- The verdict file ------------------------------------------------------------ */

static void test_verdict_round_trip(void **state)
{
	struct fx *f = *state;
	struct qemu_kvm_verdict v = { 0 }, r;

	v.state = QEMU_KVM_FAILED;
	v.boot_id = strdup("b-1");
	v.qemu_version = strdup("QEMU 7.2");
	v.kernel = strdup("lab");
	v.boot_ms = -1;
	v.detail = strdup("-cpu host: died\nsecond line\x1b[2J");
	assert_int_equal(qemu_kvm_verdict_save(f->cache, &v, NULL), 0);
	assert_int_equal(qemu_kvm_verdict_load(f->cache, "b-1", "QEMU 7.2", &r), 0);
	assert_int_equal(r.state, QEMU_KVM_FAILED);
	assert_true(r.cached);
	assert_string_equal(r.kernel, "lab");
	assert_null(r.cpu);
	assert_int_equal(r.boot_ms, -1);
	/* Kept on one line, control bytes turned into spaces. */
	assert_string_equal(r.detail, "-cpu host: died second line [2J");
	qemu_kvm_verdict_fini(&r);

	/* Another boot, or another QEMU: stale. */
	assert_int_equal(qemu_kvm_verdict_load(f->cache, "b-2", "QEMU 7.2", &r), -ESTALE);
	assert_int_equal(qemu_kvm_verdict_load(f->cache, "b-1", "QEMU 8.0", &r), -ESTALE);

	qemu_kvm_verdict_fini(&v);
	v.state = QEMU_KVM_BOOTED;
	v.boot_id = strdup("b-1");
	v.qemu_version = strdup("QEMU 7.2");
	v.cpu = strdup("host,-arch-capabilities");
	v.release = strdup("6.12.1-rtlab");
	v.boot_ms = 812;
	assert_int_equal(qemu_kvm_verdict_save(f->cache, &v, NULL), 0);
	assert_int_equal(qemu_kvm_verdict_load(f->cache, "b-1", "QEMU 7.2", &r), 0);
	assert_int_equal(r.state, QEMU_KVM_BOOTED);
	assert_string_equal(r.cpu, "host,-arch-capabilities");
	assert_string_equal(r.release, "6.12.1-rtlab");
	assert_int_equal(r.boot_ms, 812);
	qemu_kvm_verdict_fini(&r);

	/* Nothing measured, nothing kept. */
	qemu_kvm_verdict_fini(&v);
	v.state = QEMU_KVM_UNTRIED;
	v.boot_id = strdup("b-1");
	v.qemu_version = strdup("QEMU 7.2");
	assert_int_equal(qemu_kvm_verdict_save(f->cache, &v, NULL), -EINVAL);
	qemu_kvm_verdict_fini(&v);
}

static void test_verdict_file_refused(void **state)
{
	struct fx *f = *state;
	struct qemu_kvm_verdict r;
	char other[200];

	assert_int_equal(qemu_kvm_verdict_load(f->cache, "b", "q", &r), -ENOENT);

	qemu_fx_put(f->cache, "boot_id=b\nqemu=q\nstate=failed\n", 0600);
	assert_int_equal(qemu_kvm_verdict_load(f->cache, "b", "q", &r), -EINVAL);
	qemu_fx_put(f->cache, QEMU_KVM_VERDICT_SCHEMA "\nboot_id=b\nqemu=q\nstate=booted\n", 0600);
	assert_int_equal(qemu_kvm_verdict_load(f->cache, "b", "q", &r), -EINVAL); /* no cpu */
	qemu_fx_put(f->cache, QEMU_KVM_VERDICT_SCHEMA "\nboot_id=b\nqemu=q\nstate=maybe\n", 0600);
	assert_int_equal(qemu_kvm_verdict_load(f->cache, "b", "q", &r), -EINVAL);
	qemu_fx_put(f->cache, QEMU_KVM_VERDICT_SCHEMA "\nboot_id=b\nqemu=q\nstate=failed\nnew_key=1\n",
	    0600);
	assert_int_equal(qemu_kvm_verdict_load(f->cache, "b", "q", &r), 0);
	qemu_kvm_verdict_fini(&r);

	/* A symbolic link is not followed. */
	snprintf(other, sizeof(other), "%s/elsewhere", f->dir);
	assert_int_equal(rename(f->cache, other), 0);
	assert_int_equal(symlink(other, f->cache), 0);
	assert_int_equal(qemu_kvm_verdict_load(f->cache, "b", "q", &r), -EINVAL);
	assert_int_equal(unlink(f->cache), 0);

	/* A FIFO is refused, not waited on (no writer will come: a wait would be a hang). */
	assert_int_equal(mkfifo(f->cache, 0600), 0);
	alarm(HANG_S);
	assert_int_equal(qemu_kvm_verdict_load(f->cache, "b", "q", &r), -EINVAL);
	alarm(0);
	assert_int_equal(unlink(f->cache), 0);

	/* Too big to be ours. */
	{
		char *big = malloc(20000);

		assert_non_null(big);
		memset(big, 'x', 19999);
		big[19999] = '\0';
		memcpy(big, QEMU_KVM_VERDICT_SCHEMA "\n", strlen(QEMU_KVM_VERDICT_SCHEMA) + 1);
		qemu_fx_put(f->cache, big, 0600);
		free(big);
		assert_int_equal(qemu_kvm_verdict_load(f->cache, "b", "q", &r), -EINVAL);
	}
}

/* ---- The probe -------------------------------------------------------------------- */

static void probe_opts(struct fx *f, struct qemu_kvm_probe_opts *o, unsigned int cap_ms)
{
	memset(o, 0, sizeof(*o));
	o->image_dir = f->images;
	o->qemu = f->qemu;
	o->cache = f->cache;
	o->cap_ms = cap_ms;
	o->may_boot = true;
}

static void test_probe_tries_models_in_order_and_keeps_it(void **state)
{
	struct fx *f = *state;
	struct qemu_kvm_probe_opts o;
	struct qemu_kvm_verdict v;
	char *log;

	add_image(f);
	setenv("FAKE_KVM", "max-boots", 1);
	probe_opts(f, &o, CAP_MS);
	assert_int_equal(qemu_kvm_probe(&o, &v), 0);
	assert_int_equal(v.state, QEMU_KVM_BOOTED);
	assert_false(v.cached);
	assert_string_equal(v.cpu, "max");
	assert_string_equal(v.kernel, "lab");
	assert_string_equal(v.release, "6.12-fake");
	assert_true(v.boot_ms >= 0);
	qemu_kvm_verdict_fini(&v);
	/* host aborted at once, the next model hung for its share, max came up. */
	log = starts(f);
	assert_string_equal(log, "1 host\n1 host,-arch-capabilities,-pdcm,pmu=off,-vmx,-svm,"
			    "-waitpkg\n1 max\n");
	free(log);

	/* The second time costs nothing: the kept verdict, no QEMU started. */
	assert_int_equal(qemu_kvm_probe(&o, &v), 0);
	assert_int_equal(v.state, QEMU_KVM_BOOTED);
	assert_true(v.cached);
	assert_string_equal(v.cpu, "max");
	qemu_kvm_verdict_fini(&v);
	o.may_boot = false;
	assert_int_equal(qemu_kvm_probe(&o, &v), 0);
	assert_true(v.cached);
	qemu_kvm_verdict_fini(&v);
	log = starts(f);
	assert_int_equal(strlen(log), strlen("1 host\n1 host,-arch-capabilities,-pdcm,pmu=off,"
					     "-vmx,-svm,-waitpkg\n1 max\n"));
	free(log);
}

static void test_probe_fails_within_cap(void **state)
{
	struct fx *f = *state;
	struct qemu_kvm_probe_opts o;
	struct qemu_kvm_verdict v, r;
	char *id;

	add_image(f);
	probe_opts(f, &o, CAP_MS);
	assert_int_equal(qemu_kvm_probe(&o, &v), 0);
	assert_int_equal(v.state, QEMU_KVM_FAILED);
	assert_null(v.cpu);
	assert_non_null(strstr(v.detail, "-cpu host: QEMU exited (status 134) before the VM "
				       "was ready, the console stayed silent, QEMU said: "
				       "qemu-system-x86_64: error: failed to set MSR 0x10a"));
	assert_non_null(strstr(v.detail, "; -cpu host,-arch-capabilities"));
	/* Each hanging model was given up after the silence, a sixth of the cap. */
	assert_non_null(strstr(v.detail, "; -cpu max: the console stayed silent for 2.0 s (kvm)"));
	qemu_kvm_verdict_fini(&v);

	/* Kept for this boot and this QEMU. */
	id = boot_id();
	assert_int_equal(qemu_kvm_verdict_load(f->cache, id, "QEMU emulator version 9.9.9 (fake)",
					     &r), 0);
	assert_int_equal(r.state, QEMU_KVM_FAILED);
	assert_non_null(strstr(r.detail, "failed to set MSR 0x10a"));
	qemu_kvm_verdict_fini(&r);
	free(id);
}

static void test_probe_untried(void **state)
{
	struct fx *f = *state;
	struct qemu_kvm_probe_opts o;
	struct qemu_kvm_verdict v;
	char *log;

	/* No image yet: not tried, and nothing kept. */
	probe_opts(f, &o, 1000);
	assert_int_equal(qemu_kvm_probe(&o, &v), 0);
	assert_int_equal(v.state, QEMU_KVM_UNTRIED);
	assert_non_null(strstr(v.detail, "a Linux guest has not been tried (make vm)"));
	qemu_kvm_verdict_fini(&v);
	assert_int_equal(access(f->cache, F_OK), -1);

	/* An image, but only a kept verdict may be used: nothing is started. */
	add_image(f);
	o.may_boot = false;
	assert_int_equal(qemu_kvm_probe(&o, &v), 0);
	assert_int_equal(v.state, QEMU_KVM_UNTRIED);
	assert_non_null(strstr(v.detail, "not been tried in this boot yet"));
	qemu_kvm_verdict_fini(&v);
	log = starts(f);
	assert_string_equal(log, "");
	free(log);

	/* A QEMU that does not run is no verdict on KVM. */
	o.may_boot = true;
	o.qemu = "/nonexistent/qemu";
	assert_int_equal(qemu_kvm_probe(&o, &v), 0);
	assert_int_equal(v.state, QEMU_KVM_UNTRIED);
	assert_non_null(strstr(v.detail, "/nonexistent/qemu"));
	qemu_kvm_verdict_fini(&v);
	assert_int_equal(access(f->cache, F_OK), -1);
}

/* ---- What the runner does with it ------------------------------------------------- */

static void run_opts(struct fx *f, struct qemu_run_opts *o, enum qemu_accel accel)
{
	memset(o, 0, sizeof(*o));
	o->kernel = QEMU_KERNEL_LAB;
	o->accel = accel;
	o->image_dir = f->images;
	o->state_image = "";
	o->qemu = f->qemu;
	o->run = "true";
	o->boot_timeout_ms = 5000;
}

static void test_auto_falls_back_at_run_time(void **state)
{
	struct fx *f = *state;
	struct qemu_run_opts o;
	struct qemu_session *s;
	struct qemu_ready r;
	char *notice = NULL, *cause = NULL;
	int err;

	add_image(f);
	/* An earlier probe said -cpu host boots; now QEMU aborts under it. */
	keep(f, QEMU_KVM_BOOTED, "host");
	run_opts(f, &o, QEMU_ACCEL_AUTO);
	s = qemu_session_start(&o, &notice, &cause);
	assert_non_null(s);
	assert_null(notice);
	assert_int_equal(qemu_session_accel(s), QEMU_ACCEL_KVM);
	assert_string_equal(qemu_session_cpu(s), "host");
	err = qemu_session_wait_ready(s, &r, &cause);
	assert_int_equal(err, -ECHILD);
	free(cause);
	cause = NULL;
	assert_int_equal(qemu_session_fallback(s, err, &notice, &cause), 0);
	assert_non_null(notice);
	assert_non_null(strstr(notice, "KVM did not boot the lab kernel with -cpu host (QEMU "
					"exited (status 134)"));
	assert_non_null(strstr(notice, "failed to set MSR 0x10a to 0x69"));
	assert_non_null(strstr(notice, "starting it again under TCG"));
	assert_null(strchr(notice, '\n'));
	free(notice);
	notice = NULL;
	assert_int_equal(qemu_session_accel(s), QEMU_ACCEL_TCG);
	assert_int_equal(qemu_session_wait_ready(s, &r, &cause), 0);
	assert_string_equal(r.release, "6.12-fake");
	qemu_ready_fini(&r);
	/* Once under TCG there is nothing to fall back to. */
	assert_int_equal(qemu_session_fallback(s, -ETIMEDOUT, &notice, &cause), -ETIMEDOUT);
	assert_null(notice);
	qemu_session_free(s);
}

/* A KVM guest that prints nothing is given up before the boot timeout, then TCG. */
static void test_auto_falls_back_on_silence(void **state)
{
	struct fx *f = *state;
	struct qemu_run_opts o;
	struct qemu_session *s;
	struct qemu_ready r;
	char *notice = NULL, *cause = NULL;
	int err;

	add_image(f);
	keep(f, QEMU_KVM_BOOTED, "host,-arch-capabilities");
	run_opts(f, &o, QEMU_ACCEL_AUTO);
	o.boot_timeout_ms = 60000;
	o.silence_timeout_ms = CAP_MS / 6;
	s = qemu_session_start(&o, &notice, &cause);
	assert_non_null(s);
	err = qemu_session_wait_ready(s, &r, &cause);
	/* Given up on the silence, not at the boot timeout: the cause says which. */
	assert_int_equal(err, -ETIMEDOUT);
	assert_non_null(strstr(cause, "the console stayed silent for 2.0 s (kvm)"));
	free(cause);
	cause = NULL;
	assert_int_equal(qemu_session_fallback(s, err, &notice, &cause), 0);
	assert_non_null(strstr(notice, "with -cpu host,-arch-capabilities (the console stayed "
					"silent for 2.0 s (kvm)); starting it again under TCG"));
	free(notice);
	/* Under TCG the silence rule is off: the boot timeout alone counts. */
	assert_int_equal(qemu_session_wait_ready(s, &r, &cause), 0);
	qemu_ready_fini(&r);
	qemu_session_free(s);
}

static void test_kvm_asked_is_not_replaced(void **state)
{
	struct fx *f = *state;
	struct qemu_run_opts o;
	struct qemu_session *s;
	struct qemu_ready r;
	char *notice = NULL, *cause = NULL, *log;
	int err;

	add_image(f);
	keep(f, QEMU_KVM_BOOTED, "host");
	run_opts(f, &o, QEMU_ACCEL_KVM);
	s = qemu_session_start(&o, &notice, &cause);
	assert_non_null(s);
	err = qemu_session_wait_ready(s, &r, &cause);
	assert_int_equal(err, -ECHILD);
	free(cause);
	cause = NULL;
	assert_int_equal(qemu_session_fallback(s, err, &notice, &cause), -ECHILD);
	assert_null(notice);
	qemu_session_free(s);

	/* A kept "cannot boot" refuses --accel kvm with the reason, starting nothing. */
	keep(f, QEMU_KVM_FAILED, NULL);
	assert_int_equal(truncate(f->log, 0), 0);
	s = qemu_session_start(&o, &notice, &cause);
	assert_null(s);
	assert_int_equal(errno, ENODEV);
	assert_non_null(strstr(cause, "KVM cannot boot a Linux guest here: -cpu host: kept "
				      "reason"));
	free(cause);
	cause = NULL;
	log = starts(f);
	assert_string_equal(log, "");
	free(log);

	/* ...and sends auto to TCG with a one-line notice. */
	run_opts(f, &o, QEMU_ACCEL_AUTO);
	s = qemu_session_start(&o, &notice, &cause);
	assert_non_null(s);
	assert_int_equal(qemu_session_accel(s), QEMU_ACCEL_TCG);
	assert_non_null(notice);
	assert_non_null(strstr(notice, "KVM cannot boot a Linux guest here (-cpu host: kept "
					"reason), so the VM runs under TCG"));
	assert_null(strchr(notice, '\n'));
	free(notice);
	notice = NULL;
	qemu_session_free(s);
}

static void test_resolve_uses_the_model_that_booted(void **state)
{
	struct fx *f = *state;
	struct qemu_run_opts o;
	enum qemu_accel got;
	char *cpu = NULL, *why = NULL;

	add_image(f);
	keep(f, QEMU_KVM_BOOTED, "host,-arch-capabilities");
	run_opts(f, &o, QEMU_ACCEL_AUTO);
	assert_int_equal(qemu_accel_resolve(&o, &got, &cpu, &why), 0);
	assert_int_equal(got, QEMU_ACCEL_KVM);
	assert_string_equal(cpu, "host,-arch-capabilities");
	assert_null(why);
	free(cpu);

	/* Without a working test guest the Linux guest is never tried. */
	setenv("RTLAB_KVM_DEV", "/nonexistent/kvm", 1);
	assert_int_equal(qemu_accel_resolve(&o, &got, &cpu, &why), 0);
	assert_int_equal(got, QEMU_ACCEL_TCG);
	assert_null(cpu);
	assert_non_null(strstr(why, "KVM does not work here (absent"));
	free(why);
	o.accel = QEMU_ACCEL_KVM;
	assert_int_equal(qemu_accel_resolve(&o, &got, &cpu, &why), -ENODEV);
	free(why);
}

/* A board of another architecture never runs under KVM, even where KVM boots Linux. */
static void test_resolve_foreign_machine(void **state)
{
	struct fx *f = *state;
	struct qemu_run_opts o;
	enum qemu_accel got;
	char *cpu = NULL, *why = NULL;

	add_image(f);
	keep(f, QEMU_KVM_BOOTED, "host");
	run_opts(f, &o, QEMU_ACCEL_AUTO);
	o.machine = &qemu_machine_versatilepb;
	assert_int_equal(qemu_accel_resolve(&o, &got, &cpu, &why), 0);
	assert_int_equal(got, QEMU_ACCEL_TCG);
	assert_null(cpu);
	assert_null(why);
	o.accel = QEMU_ACCEL_KVM;
	assert_int_equal(qemu_accel_resolve(&o, &got, &cpu, &why), -ENODEV);
	assert_string_equal(why, "the versatilepb machine runs under TCG only");
	free(why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_models_in_order),
		cmocka_unit_test(test_shares_under_one_cap),
		cmocka_unit_test_setup_teardown(test_verdict_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verdict_file_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_tries_models_in_order_and_keeps_it,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_fails_within_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_untried, setup, teardown),
		cmocka_unit_test_setup_teardown(test_auto_falls_back_at_run_time, setup, teardown),
		cmocka_unit_test_setup_teardown(test_auto_falls_back_on_silence, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kvm_asked_is_not_replaced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resolve_uses_the_model_that_booted, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_resolve_foreign_machine, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
