/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_grade_sandbox: runs in a real box. Output, exit status, a signal,
 * the output cap, the wall-clock limit, stdin from a sealed memfd, a
 * stopped program's snapshot, the job folder read-only at run time, and,
 * where the kernel gives a mount namespace, a root of its own that hides
 * the rest of the machine. Each case also runs without namespaces, the
 * fallback, and some with namespaces but no PID namespace (the classroom
 * VM's lab kernel). The settings string for the runner round-trips.
 *
 * The fences are tested from inside: this binary copies itself into the
 * box and runs as the subject (--probe), trying each refused system call,
 * /dev/tty, rtlab's data folder, the grader's /proc/PID/fd and a signal to
 * the grader, and what must keep working (threads, fork, clocks, SCHED_FIFO
 * and mlock where granted). The test itself runs with a controlling
 * terminal (a pseudo-terminal it makes), so that a run that kept the
 * grader's terminal would show it. tests/cli/grade_sandbox_modes.t runs
 * this binary again as root without CAP_SYS_ADMIN and as an ordinary user.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "grade/grade_fence.h"
#include "grade/grade_sandbox.h"

struct fix {
	struct grade_sandbox sb;
	unsigned int ns;
};

static int setup(void **state, unsigned int ns)
{
	struct fix *f = calloc(1, sizeof(*f));
	struct grade_limits lim;

	grade_limits_default(&lim);
	lim.wall_s = 5;
	lim.output_kb = 4;
	if (!f || grade_sandbox_new(&f->sb, NULL, 7, &lim, ns, NULL))
		return -1;
	f->ns = ns;
	*state = f;
	return 0;
}

static int setup_ns(void **state)
{
	return setup(state, GRADE_NS_ALL);
}

static int setup_plain(void **state)
{
	return setup(state, 0);
}

/* As in the classroom VM's lab kernel: namespaces, but no PID namespace. */
static int setup_nopid(void **state)
{
	return setup(state, GRADE_NS_ALL & ~GRADE_NS_PID);
}

static int teardown(void **state)
{
	struct fix *f = *state;

	grade_sandbox_fini(&f->sb);
	free(f);
	return 0;
}

static void sh(struct fix *f, const char *script, int in_fd, struct grade_run_res *r)
{
	const char *argv[] = { "sh", "-c", script, NULL };
	struct grade_run_req req = { .argv = argv, .in_fd = in_fd, .lim = f->sb.lim };
	char *cause = NULL;

	if (grade_sandbox_run(&f->sb, &req, r, &cause))
		fail_msg("sandbox: %s", cause);
}

static void test_exit_and_output(void **state)
{
	struct grade_run_res r;

	sh(*state, "echo hi; echo oops >&2; exit 3", -1, &r);
	assert_string_equal(r.out, "hi\n");
	assert_string_equal(r.err, "oops\n");
	assert_int_equal(r.exit_code, 3);
	assert_int_equal(r.signal, 0);
	assert_string_equal(r.reason, "exited with 3");
	assert_false(r.timed_out || r.out_cut);
	grade_run_res_fini(&r);
}

static void test_signal(void **state)
{
	struct grade_run_res r;

	sh(*state, "kill -SEGV $$", -1, &r);
	assert_int_equal(r.signal, SIGSEGV);
	assert_int_equal(r.exit_code, -1);
	assert_string_equal(r.reason, "killed by SIGSEGV (Segmentation fault)");
	grade_run_res_fini(&r);
}

static void test_output_cap(void **state)
{
	struct grade_run_res r;

	sh(*state, "while :; do echo yyyyyyyyyyyyyyyyyyyyyyyy; done", -1, &r);
	assert_true(r.out_cut);
	assert_int_equal(r.out_len, 4096);
	assert_false(r.timed_out);	/* ended at the cap, long before the limit */
	assert_string_equal(r.reason, "wrote more than 4 KiB to stdout");
	grade_run_res_fini(&r);
}

static void test_timeout(void **state)
{
	struct fix *f = *state;
	const char *argv[] = { "sh", "-c", "sleep 60 & sleep 60", NULL };
	struct grade_run_req req = { .argv = argv, .in_fd = -1, .lim = f->sb.lim };
	struct grade_run_res r;

	req.lim.wall_s = 1;
	assert_int_equal(grade_sandbox_run(&f->sb, &req, &r, NULL), 0);
	if (!r.timed_out)	/* seen once on a loaded machine: say how it ended */
		fail_msg("not timed out: \"%s\" (exit %d, signal %d, %.2f s)", r.reason,
			 r.exit_code, r.signal, r.wall_s);
	assert_string_equal(r.reason, "timed out after 1 s (wall clock)");
	assert_true(r.wall_s < 30);	/* killed, the background sleep too, not waited for */
	grade_run_res_fini(&r);
}

static void test_stdin_memfd(void **state)
{
	struct grade_run_res r;
	int fd = memfd_create("t", MFD_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "abc\n", 4), 4);
	lseek(fd, 0, SEEK_SET);
	sh(*state, "cat", fd, &r);
	close(fd);
	assert_string_equal(r.out, "abc\n");
	grade_run_res_fini(&r);
}

static void test_stop_snapshot(void **state)
{
	struct grade_run_res r;

	sh(*state, "kill -STOP $$; echo continued", -1, &r);
	assert_int_equal(r.nstops, 1);
	assert_string_equal(r.out, "continued\n");
	assert_int_equal(r.exit_code, 0);
	assert_int_equal(r.policy, 0);		/* SCHED_OTHER */
	assert_true(r.vmlck_kb == 0);		/* nothing locked, as the kernel says */
	grade_run_res_fini(&r);
}

static void test_job_folder(void **state)
{
	struct fix *f = *state;
	struct grade_run_res r;
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/given.txt", f->sb.job);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("given\n", fp);
	fclose(fp);
	assert_int_equal(grade_sandbox_give(&f->sb, NULL), 0);
	sh(f, "cat given.txt; echo x > new.txt && echo wrote", -1, &r);
	assert_true(strncmp(r.out, "given\n", 6) == 0);
	if (grade_sandbox_ns(&f->sb) & GRADE_NS_MOUNT)
		assert_null(strstr(r.out, "wrote"));	/* read-only while the subject runs */
	grade_run_res_fini(&r);
}

static void test_own_root(void **state)
{
	struct fix *f = *state;
	struct grade_run_res r;
	char script[4096];

	if (!(grade_sandbox_ns(&f->sb) & GRADE_NS_MOUNT))
		skip();
	/* Tested by name: Landlock lets a run read no folder it was not given, / included. */
	snprintf(script, sizeof(script), "pwd; for d in tmp usr home; do test -d /$d && "
		 "echo \"HAVE-$d\"; done; test -e '%s' && echo BOX; "
		 "test -e /root/.bashrc && echo HOME; test -e /proc/1/status && echo PROC1",
		 f->sb.box);
	sh(f, script, -1, &r);
	assert_true(strncmp(r.out, "/job\n", 5) == 0);
	assert_null(strstr(r.out, "BOX"));
	assert_null(strstr(r.out, "HOME"));
	assert_null(strstr(r.out, "HAVE-home"));
	assert_non_null(strstr(r.out, "HAVE-tmp"));
	assert_non_null(strstr(r.out, "HAVE-usr"));
	/* Its own PID namespace's /proc, or none: never the host's processes. */
	if (grade_sandbox_ns(&f->sb) & GRADE_NS_PID)
		assert_non_null(strstr(r.out, "PROC1"));
	else
		assert_null(strstr(r.out, "PROC1"));
	grade_run_res_fini(&r);
}

static void test_missing_program(void **state)
{
	struct fix *f = *state;
	const char *argv[] = { "./nothing-here", NULL };
	struct grade_run_req req = { .argv = argv, .in_fd = -1, .lim = f->sb.lim };
	struct grade_run_res r;

	assert_int_equal(grade_sandbox_run(&f->sb, &req, &r, NULL), 0);
	assert_int_equal(r.exit_code, 127);
	assert_non_null(strstr(r.reason, "could not start ./nothing-here"));
	grade_run_res_fini(&r);
}

/* mlock is granted when the box can give what the exercise's checks ask for. */
static void test_can_mlock(void **state)
{
	struct fix *f = *state;

	f->sb.memlock_kb_max = 8192;
	f->sb.lim.memlock_kb = 8192;
	assert_true(grade_sandbox_can(&f->sb, GRADE_NEED_MLOCK));
	f->sb.lim.memlock_kb = 65536;
	assert_false(grade_sandbox_can(&f->sb, GRADE_NEED_MLOCK));
	f->sb.memlock_kb_max = 1024 * 1024;
	assert_true(grade_sandbox_can(&f->sb, GRADE_NEED_MLOCK));
	f->sb.memlock_kb_max = 0;
	assert_false(grade_sandbox_can(&f->sb, GRADE_NEED_MLOCK));
}

static void test_spec(void **state)
{
	struct fix *f = *state;
	struct grade_sandbox back;
	char *spec = grade_sandbox_spec(&f->sb), *cause = NULL;

	assert_non_null(spec);
	assert_int_equal(grade_sandbox_parse(spec, &back, NULL), 0);
	assert_string_equal(back.box, f->sb.box);
	assert_string_equal(back.job, f->sb.job);
	assert_int_equal(back.uid, f->sb.uid);
	assert_int_equal(back.ns, f->sb.ns);
	assert_int_equal(back.lim.output_kb, 4);
	assert_int_equal(back.memlock_kb_max, f->sb.memlock_kb_max);
	assert_true(back.keep);		/* the runner never removes the box */
	grade_sandbox_fini(&back);
	spec[strlen(spec) - 3] = 'x';
	assert_int_equal(grade_sandbox_parse(spec, &back, &cause), -EINVAL);
	assert_non_null(cause);
	free(cause);
	assert_int_equal(grade_sandbox_parse(NULL, &back, NULL), -EINVAL);
	assert_int_equal(grade_sandbox_parse("rtlab-sandbox/1\nbox=/x\n", &back, NULL), -EINVAL);
	free(spec);
}


/* ---- The probe: this binary as the subject ---------------------------------------- */

static void say(const char *name, long ret)
{
	printf("%s %d\n", name, ret < 0 ? errno : 0);
}

static void *thread_fn(void *arg)
{
	return arg;
}

/* argv: --probe GRADER_PID DATA_DIR */
static int probe(int argc, char **argv)
{
	struct clone_args ca = { .exit_signal = SIGCHLD };
	pid_t grader = argc > 2 ? (pid_t)atoi(argv[2]) : 1;
	struct sched_param sp = { .sched_priority = 1 };
	char path[64], buf[300] = "-1", line[256];
	static char page[4096];
	pthread_t t;
	long r;
	FILE *f;
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = open("/dev/tty", O_RDWR | O_NOCTTY);
	say("tty", fd);
	if (fd >= 0) {
		say("tiocsti", ioctl(fd, TIOCSTI, "#"));
		close(fd);
	}
	for (int i = 0; i < 3; i++)
		if (isatty(i))
			say("tiocsti-std", ioctl(i, TIOCSTI, "#"));
	say("unshare-user", unshare(CLONE_NEWUSER));
	say("unshare-mount", unshare(CLONE_NEWNS));
	say("unshare-net", unshare(CLONE_NEWNET));
	say("setns", setns(0, 0));
	r = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
	if (r == 0)
		_exit(0);
	if (r > 0)
		waitpid((pid_t)r, NULL, 0);
	say("clone-newuser", r);
	r = syscall(SYS_clone3, &ca, sizeof(ca));
	if (r == 0)
		_exit(0);
	if (r > 0)
		waitpid((pid_t)r, NULL, 0);
	say("clone3", r);
	say("mount", mount("none", "/tmp", "tmpfs", 0, NULL));
	say("bpf", syscall(SYS_bpf, 0, NULL, 0));
	say("keyctl", syscall(SYS_keyctl, 0, -3, 0));
	say("ptrace", syscall(SYS_ptrace, PTRACE_PEEKDATA, getpid(), 0, 0));
	say("perf-event-open", syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0));
	say("io-uring-setup", syscall(SYS_io_uring_setup, 1, page));
	say("userfaultfd", syscall(SYS_userfaultfd, 0));
	say("init-module", syscall(SYS_init_module, NULL, 0, ""));
	say("kexec-load", syscall(SYS_kexec_load, 0, 0, NULL, 0));
	say("process-vm-readv", syscall(SYS_process_vm_readv, getpid(), NULL, 0, NULL, 0, 0));
	/* What exercises need. */
	r = pthread_create(&t, NULL, thread_fn, NULL);
	if (!r)
		pthread_join(t, NULL);
	errno = (int)r;
	say("pthread", r ? -1 : 0);
	r = fork();
	if (r == 0)
		_exit(0);
	if (r > 0)
		waitpid((pid_t)r, NULL, 0);
	say("fork", r);
	say("clock", clock_gettime(CLOCK_MONOTONIC, &(struct timespec){ 0 }));
	say("fifo", sched_setscheduler(0, SCHED_FIFO, &sp));
	say("mlock", mlock(page, sizeof(page)));
	/* What is not its business. */
	say("data", argc > 3 ? open(argv[3], O_RDONLY | O_DIRECTORY) : -1);
	/* The attack: write "ok" lines into the grader's verdict pipe (its fd 1 here). */
	snprintf(path, sizeof(path), "/proc/%d/fd/1", (int)grader);
	say("grader-fd", open(path, O_WRONLY));
	say("grader-kill", kill(grader, 0));
	f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Seccomp:", 8))
			snprintf(buf, sizeof(buf), "%s", line + 8);
	if (f)
		fclose(f);
	printf("seccomp-mode %d\n", atoi(buf));
	/* No exit handlers: LeakSanitizer's ptrace at exit is one of the refused calls. */
	fflush(stdout);
	_exit(0);
}

/* The errno the probe printed for @name, or -1 when it printed none. */
static int probed(const char *out, const char *name)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "%s ", name);
	for (p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, strlen(key)))
			return atoi(p + strlen(key));
	return -1;
}

/* The probe's output in the box of @f, with FIFO 1 and 64 KiB of mlock where granted. */
static void run_probe(struct fix *f, const char *data, struct grade_run_res *r)
{
	char pid[16], dst[4096], *cause = NULL;
	const char *argv[] = { "./probe", "--probe", pid, data, NULL };
	struct grade_run_req req = { .argv = argv, .in_fd = -1, .lim = f->sb.lim };
	int in, out;
	ssize_t n;
	char buf[65536];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	snprintf(dst, sizeof(dst), "%s/probe", f->sb.job);
	in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	assert_true(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
	assert_int_equal(grade_sandbox_give(&f->sb, NULL), 0);
#ifdef __SANITIZE_ADDRESS__
	req.lim.mem_mb = 64u << 20;	/* ASan reserves terabytes of shadow address space */
#else
	req.lim.mem_mb = 4096;
#endif
	req.lim.nproc = 64;
	if (f->sb.rtprio_max)
		req.rtprio = 1;
	if (f->sb.memlock_kb_max >= 64)
		req.memlock_kb = 64;
	if (grade_sandbox_run(&f->sb, &req, r, &cause))
		fail_msg("sandbox: %s", cause);
	if (r->exit_code != 0)
		fail_msg("the probe ended: %s\n%s\n%s", r->reason, r->out, r->err);
}

/* A folder standing for rtlab's installed data, where the box would bind it. */
static const char *fake_data(void)
{
	static char dir[] = "/usr/local/share/rtlab";

	if (mkdir(dir, 0755) && errno != EEXIST)
		return NULL;
	return dir;
}

/* Every call the filter refuses is refused, in every mode; what exercises need works. */
static void test_fences(void **state)
{
	static const char *const eperm[] = { "unshare-user", "unshare-mount", "unshare-net",
		"setns", "clone-newuser", "mount", "bpf", "keyctl", "ptrace", "perf-event-open",
		"io-uring-setup", "userfaultfd", "init-module", "kexec-load",
		"process-vm-readv" };
	struct fix *f = *state;
	const char *data = fake_data();
	struct grade_run_res r;
	bool created = data && getuid() == 0;

	run_probe(f, data ? data : "/usr/local/share/rtlab", &r);
	if (!(r.fences & GRADE_FENCE_SECCOMP))
		skip();		/* a kernel without seccomp filters (said in the grade) */
	if (probed(r.out, "seccomp-mode") >= 0)	/* -1: no /proc (no PID namespace) */
		assert_int_equal(probed(r.out, "seccomp-mode"), 2);
	for (size_t i = 0; i < sizeof(eperm) / sizeof(eperm[0]); i++)
		if (probed(r.out, eperm[i]) != EPERM)
			fail_msg("%s: errno %d, not EPERM\n%s", eperm[i], probed(r.out, eperm[i]),
				 r.out);
	assert_int_equal(probed(r.out, "clone3"), ENOSYS);
	assert_int_equal(probed(r.out, "pthread"), 0);
	assert_int_equal(probed(r.out, "fork"), 0);
	assert_int_equal(probed(r.out, "clock"), 0);
	if (f->sb.rtprio_max)
		assert_int_equal(probed(r.out, "fifo"), 0);
	if (f->sb.memlock_kb_max >= 64)
		assert_int_equal(probed(r.out, "mlock"), 0);
	/* rtlab's data: hidden by the mount namespace's root or by Landlock. */
	if (data && ((r.ns & GRADE_NS_MOUNT) || (r.fences & GRADE_FENCE_LANDLOCK)))
		assert_int_not_equal(probed(r.out, "data"), 0);
	/* The grader: no descriptors to read, no signal to send. */
	if (grade_sandbox_isolated(&f->sb, r.ns, r.fences)) {
		assert_int_not_equal(probed(r.out, "grader-fd"), 0);
		if ((r.ns & GRADE_NS_PID) || f->sb.drop || (r.fences & GRADE_FENCE_SCOPE))
			assert_int_not_equal(probed(r.out, "grader-kill"), 0);
	}
	grade_run_res_fini(&r);
	if (created)
		rmdir(data);
}

/*
 * No run keeps the grader's terminal: /dev/tty finds none (ENXIO), and
 * nothing can be typed into one. This process gets a controlling terminal
 * first (a pseudo-terminal), so a run in our session would have it.
 */
static void test_no_tty(void **state)
{
	struct fix *f = *state;
	int master, slave, pfd[2], st;
	char name[64], out[8192] = "";
	ssize_t n, got = 0;
	pid_t p;

	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) || unlockpt(master) ||
	    ptsname_r(master, name, sizeof(name)))
		skip();
	assert_int_equal(pipe(pfd), 0);
	p = fork();
	assert_true(p >= 0);
	if (p == 0) {
		struct grade_run_res r;

		close(pfd[0]);
		if (setsid() < 0)
			_exit(2);
		slave = open(name, O_RDWR);	/* the first terminal opened: ours now */
		if (slave < 0 || ioctl(slave, TIOCSCTTY, 0) || open("/dev/tty", O_RDWR) < 0)
			_exit(3);
		run_probe(f, "/nonexistent", &r);
		if (write(pfd[1], r.out, r.out_len) < 0)
			_exit(4);
		_exit(0);
	}
	close(pfd[1]);
	while ((n = read(pfd[0], out + got, sizeof(out) - 1 - (size_t)got)) > 0)
		got += n;
	out[got] = '\0';
	close(pfd[0]);
	assert_int_equal(waitpid(p, &st, 0), p);
	close(master);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail_msg("the terminal's session ended with %d:\n%s", st, out);
	if (probed(out, "tty") != ENXIO)
		fail_msg("/dev/tty in the run: errno %d, not ENXIO\n%s", probed(out, "tty"), out);
	assert_int_equal(probed(out, "tiocsti"), -1);	/* it never had one to type into */
	assert_int_equal(probed(out, "tiocsti-std"), -1);
}

#define BOTH(t) cmocka_unit_test_setup_teardown(t, setup_ns, teardown), \
		cmocka_unit_test_setup_teardown(t, setup_plain, teardown)

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		BOTH(test_fences),
		BOTH(test_no_tty),
		cmocka_unit_test_setup_teardown(test_fences, setup_nopid, teardown),
		cmocka_unit_test_setup_teardown(test_no_tty, setup_nopid, teardown),
		BOTH(test_exit_and_output),
		BOTH(test_signal),
		BOTH(test_output_cap),
		BOTH(test_timeout),
		BOTH(test_stdin_memfd),
		BOTH(test_stop_snapshot),
		BOTH(test_job_folder),
		BOTH(test_missing_program),
		cmocka_unit_test_setup_teardown(test_own_root, setup_ns, teardown),
		cmocka_unit_test_setup_teardown(test_own_root, setup_nopid, teardown),
		cmocka_unit_test_setup_teardown(test_stop_snapshot, setup_nopid, teardown),
		cmocka_unit_test_setup_teardown(test_timeout, setup_nopid, teardown),
		cmocka_unit_test_setup_teardown(test_spec, setup_ns, teardown),
		cmocka_unit_test_setup_teardown(test_can_mlock, setup_plain, teardown),
	};

	if (argc > 1 && !strcmp(argv[1], "--probe"))
		return probe(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
