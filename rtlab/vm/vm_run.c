/*
 * vm_run: starting, watching and stopping QEMU for the classroom VM (see vm_run.h).
 *
 * The console log is read incrementally into memory (the last VM_CONSOLE_KEEP bytes are
 * kept), which is what the ready check, the run-marker extraction and the error messages
 * look at. QEMU's own standard error goes to a file in the temporary directory and is
 * quoted when QEMU fails to start.
 */
#include "vm_run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/rt_buf.h"
#include "core/rt_err.h"
#include "core/rt_file.h"
#include "core/rt_paths.h"
#include "doctor/doctor.h"
#include "doctor/doctor_probe.h"
#include "vm/vm_qmp.h"

#define VM_CONSOLE_KEEP (8u << 20)
#define VM_TAIL_LINES 25
#define VM_STATE_IMAGE_BYTES (64ll << 20)
#define VM_POLL_US 50000

struct vm_session {
	pid_t pid;			/* -1 once reaped */
	int exit_status;
	enum vm_accel accel;
	unsigned int boot_timeout_ms;
	const volatile sig_atomic_t *stop; /* borrowed */
	char *tmpdir;			/* owned; removed by vm_session_free() */
	char *log_path, *qmp_path, *err_path; /* owned; inside tmpdir */
	int log_fd;
	struct rt_buf console;		/* what the console printed (its tail) */
	long long t0_ms;
	long ready_ms;
	struct vm_qmp *qmp;		/* owned; NULL until first use */
	char *nonce;			/* owned; run markers nonce, NULL without a run */
};

static long long vm_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

char *vm_image_dir(void)
{
	const char *env = getenv("RTLAB_VM_DIR");
	const char *cache = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char exe[4096], *dir = NULL;
	ssize_t n;
	struct stat st;

	if (env && *env)
		return strdup(env);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			if (asprintf(&dir, "%s/vm/images", exe) < 0)
				return NULL;
			if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
				return dir;
			free(dir);
			dir = NULL;
		}
	}
	if (cache && *cache) {
		if (asprintf(&dir, "%s/rtlab/vm/images", cache) < 0)
			return NULL;
		return dir;
	}
	if (!home || !*home) {
		errno = ENOENT;
		return NULL;
	}
	if (asprintf(&dir, "%s/.cache/rtlab/vm/images", home) < 0)
		return NULL;
	return dir;
}

int vm_accel_resolve(enum vm_accel want, enum vm_accel *got, char **why)
{
	struct doctor_kvm k;
	int ret = 0;

	*why = NULL;
	if (want == VM_ACCEL_TCG) {
		*got = VM_ACCEL_TCG;
		return 0;
	}
	memset(&k, 0, sizeof(k));
	ret = doctor_probe_kvm(&k, "/dev/kvm", true, DOCTOR_TIMEOUT_MS);
	if (ret < 0)
		goto out_fini;
	if (k.verdict == DOCTOR_KVM_WORKS) {
		*got = VM_ACCEL_KVM;
		goto out_fini;
	}
	if (want == VM_ACCEL_KVM) {
		ret = rt_err(why, -ENODEV, "KVM does not work here (%s: %s)",
			     doctor_kvm_verdict_name(k.verdict), k.detail ? k.detail : "no detail");
		goto out_fini;
	}
	*got = VM_ACCEL_TCG;
	ret = rt_err(why, 0, "KVM does not work here (%s%s%s), so the VM runs under TCG "
		     "emulation: it boots slower and its latencies are larger and noisier",
		     doctor_kvm_verdict_name(k.verdict), k.detail ? ": " : "",
		     k.detail ? k.detail : "");
	if (!*why)
		ret = -ENOMEM;
out_fini:
	doctor_kvm_fini(&k);
	return ret;
}

/*
 * A sparse raw disk for /state; the guest formats it on first boot. The
 * default one lives in the state directory, so no link is followed there
 * (rt_file.h); a FIFO or a device is never taken for a disk.
 */
static int vm_state_image(const char *path, bool in_state_dir, char **cause)
{
	int fd, ret = 0;
	struct stat st;

	fd = open(path, O_RDWR | O_CREAT | O_NONBLOCK | O_CLOEXEC |
		  (in_state_dir ? O_NOFOLLOW : 0), 0600);
	if (fd < 0)
		return rt_err(cause, -errno, "cannot open the VM state disk %s: %s", path,
			      errno == ELOOP && in_state_dir ? "it is a symbolic link" :
			      strerror(errno));
	if (fstat(fd, &st) < 0)
		ret = rt_err(cause, -errno, "cannot open the VM state disk %s: %s", path,
			     strerror(errno));
	else if (!S_ISREG(st.st_mode))
		ret = rt_err(cause, -EINVAL, "the VM state disk %s is %s, not a regular file",
			     path, rt_file_kind(st.st_mode));
	else if (st.st_size == 0 && ftruncate(fd, VM_STATE_IMAGE_BYTES) < 0)
		ret = rt_err(cause, -errno, "cannot size the VM state disk %s: %s", path,
			     strerror(errno));
	close(fd);
	return ret;
}

/* Read what the console printed since last time. */
static void vm_pump_console(struct vm_session *s)
{
	char buf[16384];
	ssize_t n;

	if (s->log_fd < 0) {
		s->log_fd = open(s->log_path, O_RDONLY | O_CLOEXEC);
		if (s->log_fd < 0)
			return;
	}
	while ((n = read(s->log_fd, buf, sizeof(buf))) > 0) {
		if (rt_buf_append(&s->console, buf, (size_t)n) < 0)
			return;
		if (s->console.len > VM_CONSOLE_KEEP) {
			/* Keep the newer half; the console may carry NUL bytes, so copy by length. */
			struct rt_buf keep = RT_BUF_INIT;
			size_t drop = s->console.len - VM_CONSOLE_KEEP / 2;

			if (rt_buf_append(&keep, rt_buf_str(&s->console) + drop,
					  s->console.len - drop) < 0) {
				rt_buf_fini(&keep);
				return;
			}
			rt_buf_fini(&s->console);
			s->console = keep;
		}
	}
}

/* Has QEMU exited? Reaps it. */
static bool vm_reaped(struct vm_session *s)
{
	int st;
	pid_t r;

	if (s->pid < 0)
		return true;
	r = waitpid(s->pid, &st, WNOHANG);
	if (r != s->pid)
		return false;
	s->exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	s->pid = -1;
	return true;
}

/* The console's last lines and QEMU's complaints, appended to @msg. */
static int vm_fail(struct vm_session *s, char **cause, int err, const char *what)
{
	char *tail, *qerr = NULL;
	size_t qlen = 0;

	vm_pump_console(s);
	tail = vm_console_tail(rt_buf_str(&s->console), s->console.len, VM_TAIL_LINES);
	if (rt_file_read(s->err_path, 64 * 1024, &qerr, &qlen) < 0)
		qerr = NULL;
	rt_err(cause, err, "%s\n--- last console lines ---\n%s%s%s", what,
	       tail && *tail ? tail : "(the console printed nothing)\n",
	       qerr && *qerr ? "--- qemu said ---\n" : "", qerr && *qerr ? qerr : "");
	free(tail);
	free(qerr);
	return err;
}

struct vm_session *vm_session_start(const struct vm_run_opts *o, char **notice, char **cause)
{
	struct vm_config c = { 0 };
	struct vm_session *s = NULL;
	char *dir = NULL, *kernel = NULL, *initrd = NULL, *state = NULL, *tmpl = NULL;
	char nonce[17] = "";
	char **argv = NULL;
	const char *tmp = getenv("TMPDIR");
	int err;

	*notice = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		goto out_nomem;
	s->pid = -1;
	s->log_fd = -1;
	s->ready_ms = -1;
	s->stop = o->stop;
	rt_buf_init(&s->console);

	dir = o->image_dir ? strdup(o->image_dir) : vm_image_dir();
	if (!dir)
		goto out_nomem;
	if (asprintf(&kernel, "%s/%s/vmlinuz", dir, vm_kernel_name(o->kernel)) < 0 ||
	    asprintf(&initrd, "%s/%s/initrd.img", dir, vm_kernel_name(o->kernel)) < 0)
		goto out_nomem;
	if (access(kernel, R_OK) < 0 || access(initrd, R_OK) < 0) {
		err = rt_err(cause, -ENOENT, "no %s image in %s/%s (build it with `make vm` in "
			     "the source tree or `rtlab vm build`)", vm_kernel_name(o->kernel),
			     dir, vm_kernel_name(o->kernel));
		goto out_fail;
	}

	err = vm_accel_resolve(o->accel, &s->accel, notice);
	if (err < 0) {
		rt_err(cause, err, "%s", *notice ? *notice : "cannot choose an accelerator");
		free(*notice);
		*notice = NULL;
		goto out_fail;
	}
	s->boot_timeout_ms = o->boot_timeout_ms ? o->boot_timeout_ms :
			     s->accel == VM_ACCEL_KVM ? VM_BOOT_TIMEOUT_KVM_MS :
							VM_BOOT_TIMEOUT_TCG_MS;

	if (!o->state_image) {
		state = rt_paths_state_file("vm-state.img");
		if (!state) {
			err = rt_err(cause, -errno, "no state directory for the VM's state disk");
			goto out_fail;
		}
	} else if (*o->state_image) {
		state = strdup(o->state_image);
		if (!state)
			goto out_nomem;
	}
	if (state) {
		err = vm_state_image(state, !o->state_image, cause);
		if (err < 0)
			goto out_fail;
	}

	if (asprintf(&tmpl, "%s/rtlab-vm-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0)
		goto out_nomem;
	if (!mkdtemp(tmpl)) {
		err = rt_err(cause, -errno, "cannot create a temporary directory: %s",
			     strerror(errno));
		goto out_fail;
	}
	s->tmpdir = tmpl;
	tmpl = NULL;
	if (asprintf(&s->log_path, "%s/console.log", s->tmpdir) < 0 ||
	    asprintf(&s->qmp_path, "%s/qmp.sock", s->tmpdir) < 0 ||
	    asprintf(&s->err_path, "%s/qemu.err", s->tmpdir) < 0)
		goto out_nomem;

	if (o->run) {
		/* The nonce only has to be unguessable by the program inside. */
		unsigned long long v = (unsigned long long)vm_now_ms() * 6364136223846793005ull ^
				       ((unsigned long long)getpid() << 32) ^ (uintptr_t)s;
		int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
				v ^= 0x9e3779b97f4a7c15ull;
			close(fd);
		}
		snprintf(nonce, sizeof(nonce), "%016llx", v);
	}

	c.qemu = o->qemu;
	c.kernel_path = kernel;
	c.initrd_path = initrd;
	c.state_image = state;
	c.console_log = s->log_path;
	c.qmp_socket = s->qmp_path;
	c.accel = s->accel;
	c.smp = o->smp ? o->smp : 2;
	c.mem_mb = o->mem_mb ? o->mem_mb : 1024;
	c.interactive = o->interactive;
	c.shell = o->shell;
	c.run = o->run;
	c.nonce = o->run ? nonce : NULL;
	c.term = o->term;
	c.cols = o->cols;
	c.rows = o->rows;
	argv = vm_cmdline_new(&c, cause);
	if (!argv) {
		err = -errno;
		goto out_fail;
	}
	if (o->run) {
		s->nonce = strdup(nonce);
		if (!s->nonce)
			goto out_nomem;
	}

	s->t0_ms = vm_now_ms();
	s->pid = fork();
	if (s->pid < 0) {
		err = rt_err(cause, -errno, "fork: %s", strerror(errno));
		goto out_fail;
	}
	if (s->pid == 0) {
		int efd = open(s->err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (efd >= 0)
			dup2(efd, STDERR_FILENO);
		if (!o->interactive) {
			int nfd = open("/dev/null", O_RDWR);

			if (nfd >= 0) {
				dup2(nfd, STDIN_FILENO);
				dup2(nfd, STDOUT_FILENO);
			}
		}
		execvp(argv[0], argv);
		dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	vm_argv_free(argv);
	free(dir);
	free(kernel);
	free(initrd);
	free(state);
	return s;

out_nomem:
	err = rt_err(cause, -ENOMEM, "out of memory");
out_fail:
	vm_argv_free(argv);
	free(dir);
	free(kernel);
	free(initrd);
	free(state);
	free(tmpl);
	vm_session_free(s);
	errno = -err;
	return NULL;
}

/* Has the front end asked us to give up waiting? */
static bool vm_should_stop(struct vm_session *s)
{
	return s->stop && *s->stop;
}

int vm_session_wait_ready(struct vm_session *s, struct vm_ready *r, char **cause)
{
	long long deadline = s->t0_ms + s->boot_timeout_ms;
	char what[160];
	int ret;

	memset(r, 0, sizeof(*r));
	for (;;) {
		vm_pump_console(s);
		ret = vm_console_ready(rt_buf_str(&s->console), s->console.len, r);
		if (ret < 0)
			return ret;
		if (ret == 1) {
			if (s->ready_ms < 0)
				s->ready_ms = (long)(vm_now_ms() - s->t0_ms);
			return 0;
		}
		if (vm_reaped(s)) {
			snprintf(what, sizeof(what), "QEMU exited (status %d) before the VM was "
				 "ready", s->exit_status);
			return vm_fail(s, cause, -ECHILD, what);
		}
		if (vm_should_stop(s))
			return vm_fail(s, cause, -EINTR, "interrupted while the VM was booting");
		if (vm_now_ms() >= deadline) {
			snprintf(what, sizeof(what), "the VM did not reach rtlab within %u s "
				 "(%s)", s->boot_timeout_ms / 1000, vm_accel_name(s->accel));
			return vm_fail(s, cause, -ETIMEDOUT, what);
		}
		usleep(VM_POLL_US);
	}
}

int vm_session_wait_exit(struct vm_session *s, unsigned int timeout_ms, int *status,
			 char **cause)
{
	long long deadline = vm_now_ms() + timeout_ms;
	char what[120];

	for (;;) {
		vm_pump_console(s);
		if (vm_reaped(s)) {
			vm_pump_console(s);
			*status = s->exit_status;
			return 0;
		}
		if (vm_should_stop(s))
			return rt_err(cause, -EINTR, "interrupted");
		if (timeout_ms && vm_now_ms() >= deadline) {
			snprintf(what, sizeof(what), "the VM was still running after %u s",
				 timeout_ms / 1000);
			return vm_fail(s, cause, -ETIMEDOUT, what);
		}
		usleep(VM_POLL_US);
	}
}

long vm_session_ready_ms(const struct vm_session *s)
{
	return s->ready_ms;
}

enum vm_accel vm_session_accel(const struct vm_session *s)
{
	return s->accel;
}

int vm_session_pid(const struct vm_session *s)
{
	return s->pid;
}

const char *vm_session_nonce(const struct vm_session *s)
{
	return s->nonce;
}

struct vm_qmp *vm_session_qmp(struct vm_session *s, char **cause)
{
	if (!s->qmp)
		s->qmp = vm_qmp_connect(s->qmp_path, 3000, cause);
	return s->qmp;
}

const char *vm_session_console(struct vm_session *s, size_t *len)
{
	vm_pump_console(s);
	*len = s->console.len;
	return rt_buf_str(&s->console);
}

/* Wait up to @ms for QEMU to be reaped. */
static bool vm_reap_within(struct vm_session *s, unsigned int ms)
{
	long long deadline = vm_now_ms() + ms;

	while (!vm_reaped(s)) {
		if (vm_now_ms() >= deadline)
			return false;
		usleep(20000);
	}
	return true;
}

/* Ask nicely (QMP quit), then SIGTERM, then SIGKILL; always by QEMU's pid. */
static void vm_session_stop(struct vm_session *s)
{
	struct vm_qmp *q;

	if (vm_reaped(s))
		return;
	q = s->qmp ? s->qmp : vm_qmp_connect(s->qmp_path, 500, NULL);
	if (q) {
		vm_qmp_execute(q, "quit", NULL, NULL, NULL);
		if (q != s->qmp)
			vm_qmp_free(q);
		if (vm_reap_within(s, 3000))
			return;
	}
	kill(s->pid, SIGTERM);
	if (vm_reap_within(s, 3000))
		return;
	kill(s->pid, SIGKILL);
	vm_reap_within(s, 5000);
}

void vm_session_free(struct vm_session *s)
{
	if (!s)
		return;
	if (s->pid > 0)
		vm_session_stop(s);
	vm_qmp_free(s->qmp);
	if (s->log_fd >= 0)
		close(s->log_fd);
	if (s->tmpdir) {
		/* Only files we created live there; the socket and logs go first. */
		if (s->qmp_path)
			unlink(s->qmp_path);
		if (s->log_path)
			unlink(s->log_path);
		if (s->err_path)
			unlink(s->err_path);
		rmdir(s->tmpdir);
	}
	free(s->tmpdir);
	free(s->log_path);
	free(s->qmp_path);
	free(s->err_path);
	free(s->nonce);
	rt_buf_fini(&s->console);
	free(s);
}
