/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qemu_run: starting, watching and stopping QEMU for the classroom VM (see qemu_run.h).
 *
 * The console log is read incrementally into memory (the last QEMU_CONSOLE_KEEP bytes are
 * kept), which is what the ready check, the run-marker extraction and the error messages
 * look at. QEMU's own standard error goes to a file in the temporary directory and is
 * quoted when QEMU fails to start. The session keeps its own copy of the command it
 * started QEMU with, so a failed KVM boot can be started again under TCG.
 */
#include "qemu_run.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "core/rt_buf.h"
#include "core/rt_child.h"
#include "core/rt_err.h"
#include "core/rt_file.h"
#include "core/rt_paths.h"
#include "core/rt_task.h"
#include "core/rt_time.h"
#include "qemu/qemu_kvm.h"
#include "qemu/qemu_kvm_guest.h"
#include "qemu/qemu_qmp.h"

#define QEMU_CONSOLE_KEEP (8u << 20)
#define QEMU_TAIL_LINES 25
#define QEMU_STATE_IMAGE_BYTES (64ll << 20)
#define QEMU_POLL_MS 50
#define QEMU_SCRATCH_BYTES (64ll << 20)
#define QEMU_QUIT_WAIT_MS 3000		/* after QMP quit, and after SIGTERM */

#define QEMU_BRIEF_LINE 200

struct qemu_session {
	struct rt_child *qemu_child;	/* owned; NULL once reaped */
	int exit_status;
	enum qemu_accel accel;
	bool auto_kvm;			/* KVM chosen automatically: may fall back to TCG */
	bool time_auto_virtual;		/* and would then run in virtual time */
	enum qemu_kernel kernel;
	unsigned int boot_timeout_ms;
	unsigned int user_boot_timeout_ms; /* 0 = by accelerator */
	unsigned int silence_ms;	/* fail when the console printed nothing by then; 0 = no */
	struct qemu_config cfg;		/* QEMU's command; its strings are owned below */
	char *kernel_path, *initrd_path, *dtb_path, *state_path; /* owned; dtb_path or NULL */
	char *qemu, *cpu, *run, *term, *append, *share; /* owned; NULL when not given */
	char *brief;			/* owned; why the last wait failed, one line */
	const volatile sig_atomic_t *stop; /* borrowed */
	char *tmpdir;			/* owned; removed by qemu_session_free() */
	char *log_path, *qmp_path, *err_path; /* owned; inside tmpdir */
	char *probe_path;		/* owned; inside tmpdir, or NULL */
	char *scratch_path;		/* owned; inside tmpdir, or NULL */
	char *scratch_serial;		/* owned; with scratch_path */
	bool die_with_parent;
	int log_fd;
	int state_fd, state_ro_fd;	/* owned; the state disk open for QEMU (read-write,
					 * read-only), or -1 */
	struct rt_buf console;		/* what the console printed (its tail) */
	uint64_t t0_ms;
	long ready_ms;
	struct qemu_qmp *qmp;		/* owned; NULL until first use */
	char *nonce;			/* owned; run markers nonce, NULL without a run */
};

char *qemu_image_dir(void)
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

int qemu_share_check(const char *dir, char **resolved, char **cause)
{
	struct stat st;
	char *real;
	int ret;

	*resolved = NULL;
	real = realpath(dir, NULL);
	if (!real)
		return rt_err(cause, -errno, "cannot share %s: %s", dir, strerror(errno));
	if (stat(real, &st) < 0 || !S_ISDIR(st.st_mode)) {
		ret = rt_err(cause, -ENOTDIR, "cannot share %s: not a directory", dir);
		goto out_free;
	}
	/* ENODATA: the attribute is missing, so the file system has them. */
	if (lgetxattr(real, "user.virtfs.uid", NULL, 0) < 0 &&
	    (errno == ENOTSUP || errno == EOPNOTSUPP)) {
		ret = rt_err(cause, -EOPNOTSUPP, "cannot share %s: its file system keeps no user "
			     "extended attributes, where the share stores the owners and modes "
			     "the guest sets (put the directory on ext4, xfs or btrfs)", dir);
		goto out_free;
	}
	*resolved = real;
	return 0;

out_free:
	free(real);
	return ret;
}

/* The TCG fallback's sentence, shared by every reason. */
#define QEMU_TCG_COST "so the VM runs under TCG emulation: it boots slower and its latencies " \
	"are larger and noisier"
#define QEMU_TCG_VIRTUAL "so the VM runs under TCG emulation in virtual time (one vCPU): it " \
	"boots slower, and its clock counts its instructions, so its latencies show the " \
	"kernel's code paths, not this machine's (doc/vm.md)"

/* The board of @o: the one it names, else its kernel's. */
static const struct qemu_machine *qemu_run_machine(const struct qemu_run_opts *o)
{
	return o->machine ? o->machine : qemu_kernel_machine(o->kernel);
}

bool qemu_run_time_virtual(const struct qemu_run_opts *o, enum qemu_accel accel)
{
	return accel == QEMU_ACCEL_TCG &&
	       (o->time == QEMU_TIME_VIRTUAL || (o->time == QEMU_TIME_AUTO && o->smp <= 1));
}

int qemu_accel_resolve(const struct qemu_run_opts *o, enum qemu_accel *got, char **cpu, char **why)
{
	struct qemu_kvm_probe_opts po = { 0 };
	struct qemu_kvm_verdict v = { 0 };
	struct qemu_kvm_guest k;
	const char *what;
	char *dev = NULL;
	int ret = 0;

	*why = NULL;
	*cpu = NULL;
	if (!qemu_run_machine(o)->cpu_kvm && o->accel != QEMU_ACCEL_TCG) {
		/* A board of another architecture: KVM never applies, AUTO says nothing. */
		*got = QEMU_ACCEL_TCG;
		return o->accel == QEMU_ACCEL_KVM ?
		       rt_err(why, -ENODEV, "the %s machine runs under TCG only",
			      qemu_run_machine(o)->name) : 0;
	}
	if (o->time == QEMU_TIME_VIRTUAL && o->accel == QEMU_ACCEL_KVM)
		return rt_err(why, -EINVAL, "virtual time needs TCG: KVM runs the guest on the "
			      "host's clock (--time virtual with --accel tcg or auto)");
	if (o->time == QEMU_TIME_VIRTUAL && o->smp > 1)
		return rt_err(why, -EINVAL, "virtual time runs one vCPU: single-threaded TCG "
			      "runs vCPUs in turn, so a second one would wait a whole slice "
			      "(--time virtual without --smp, or --time real --smp %u)", o->smp);
	if (o->accel == QEMU_ACCEL_TCG || o->accel_fixed || o->time == QEMU_TIME_VIRTUAL) {
		*got = o->accel == QEMU_ACCEL_KVM ? QEMU_ACCEL_KVM : QEMU_ACCEL_TCG;
		if (*got == QEMU_ACCEL_KVM && o->cpu) {
			*cpu = strdup(o->cpu);
			if (!*cpu)
				return -ENOMEM;
		}
		return 0;
	}
	memset(&k, 0, sizeof(k));
	dev = qemu_kvm_dev_path("");
	if (!dev)
		return -ENOMEM;
	ret = qemu_kvm_guest_run(&k, dev, true, QEMU_KVM_GUEST_TIMEOUT_MS);
	if (ret < 0)
		goto out_fini;
	if (k.verdict != QEMU_KVM_GUEST_WORKS) {
		if (o->accel == QEMU_ACCEL_KVM)
			ret = rt_err(why, -ENODEV, "KVM does not work here (%s: %s)",
				     qemu_kvm_guest_verdict_name(k.verdict),
				     k.detail ? k.detail : "no detail");
		else if (rt_err(why, 0, "KVM does not work here (%s%s%s), %s",
				qemu_kvm_guest_verdict_name(k.verdict), k.detail ? ": " : "",
				k.detail ? k.detail : "", qemu_run_time_virtual(o, QEMU_ACCEL_TCG) ?
				QEMU_TCG_VIRTUAL : QEMU_TCG_COST) == 0 && !*why)
			ret = -ENOMEM;
		*got = QEMU_ACCEL_TCG;
		goto out_fini;
	}

	po.image_dir = o->image_dir;
	po.qemu = o->qemu;
	po.may_boot = true;
	po.stop = o->stop;
	ret = qemu_kvm_probe(&po, &v);
	if (ret < 0)
		goto out_fini;
	if (v.state == QEMU_KVM_BOOTED) {
		*got = QEMU_ACCEL_KVM;
		*cpu = strdup(v.cpu ? v.cpu : "host");
		ret = *cpu ? 0 : -ENOMEM;
		goto out_fini;
	}
	if (o->stop && *o->stop) {
		ret = rt_err(why, -EINTR, "interrupted while trying a Linux guest under KVM");
		goto out_fini;
	}
	*got = QEMU_ACCEL_TCG;
	what = v.state == QEMU_KVM_FAILED ? "cannot boot a Linux guest" : "is not proven";
	if (o->accel == QEMU_ACCEL_KVM)
		ret = rt_err(why, -ENODEV, "KVM %s here: %s", what,
			     v.detail ? v.detail : "no detail");
	else if (rt_err(why, 0, "KVM %s here (%s), %s", what, v.detail ? v.detail : "no detail",
			qemu_run_time_virtual(o, QEMU_ACCEL_TCG) ? QEMU_TCG_VIRTUAL :
			QEMU_TCG_COST) == 0 && !*why)
		ret = -ENOMEM;
out_fini:
	qemu_kvm_verdict_fini(&v);
	qemu_kvm_guest_fini(&k);
	free(dev);
	return ret;
}

/*
 * A sparse raw disk for /state; the guest formats it on first boot. The
 * default one lives in the state directory, so no link is followed there
 * (rt_file.h); a FIFO or a device is never taken for a disk.
 */
static int qemu_state_image(const char *path, bool in_state_dir, int *fdp, int *ro_fdp,
			  char **cause)
{
	char self[64];
	struct stat st;
	int fd, ret = 0;

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
	/* Held by this open file, which QEMU shares: released when both closed it. */
	else if (flock(fd, LOCK_EX | LOCK_NB) < 0)
		ret = errno == EWOULDBLOCK ?
		      rt_err(cause, -EBUSY, "the VM state disk %s is in use by a VM that still "
			     "runs (stop it first: Ctrl-A x, or poweroff in its shell)", path) :
		      rt_err(cause, -errno, "cannot lock the VM state disk %s: %s", path,
			     strerror(errno));
	else if (st.st_size == 0 && ftruncate(fd, QEMU_STATE_IMAGE_BYTES) < 0)
		ret = rt_err(cause, -errno, "cannot size the VM state disk %s: %s", path,
			     strerror(errno));
	if (ret < 0) {
		close(fd);
		return ret;
	}
	/*
	 * QEMU opens a disk read-only before it opens it for writing, and takes from the fd set
	 * only a descriptor of the matching mode: reopen the same open file (not the path)
	 * read-only for it.
	 */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	*ro_fdp = open(self, O_RDONLY | O_CLOEXEC);
	if (*ro_fdp < 0) {
		ret = rt_err(cause, -errno, "cannot reopen the VM state disk %s read-only: %s",
			     path, strerror(errno));
		close(fd);
		return ret;
	}
	*fdp = fd;
	return 0;
}

/* Read what the console printed since last time. */
static void qemu_pump_console(struct qemu_session *s)
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
		if (s->console.len > QEMU_CONSOLE_KEEP) {
			/* Keep the newer half; the console may carry NUL bytes, so copy by length. */
			struct rt_buf keep = RT_BUF_INIT;
			size_t drop = s->console.len - QEMU_CONSOLE_KEEP / 2;

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

/* Has QEMU exited (within @ms)? Reaps it. */
static bool qemu_reaped_within(struct qemu_session *s, unsigned int ms)
{
	struct rt_child_result res;

	if (!s->qemu_child)
		return true;
	if (rt_child_wait(s->qemu_child, ms, &res) == -ETIMEDOUT)
		return false;
	s->exit_status = res.end == RT_CHILD_SIGNALED ? 128 + res.code : res.code;
	rt_child_result_fini(&res);
	rt_child_free(s->qemu_child);
	s->qemu_child = NULL;
	return true;
}

static bool qemu_reaped(struct qemu_session *s)
{
	return qemu_reaped_within(s, 0);
}

static size_t qemu_min(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* Append up to @n bytes of @text to @b as one line: control bytes become '?'. */
static int qemu_brief_put(struct rt_buf *b, const char *text, size_t n)
{
	int ret = 0;

	for (size_t i = 0; i < n && text[i] && !ret; i++) {
		unsigned char ch = (unsigned char)text[i];

		ret = rt_buf_append(b, ch < 0x20 || ch == 0x7f ? "?" : (const char *)&text[i], 1);
	}
	return ret;
}

/* One line from @what, the console's last line (or its silence) and QEMU's first two. */
static void qemu_set_brief(struct qemu_session *s, const char *what, const char *tail,
			 const char *qerr)
{
	struct rt_buf b = RT_BUF_INIT;
	const char *last = NULL, *p;
	int ret, lines = 0;

	ret = rt_buf_puts(&b, what);
	/* The tail's last non-empty line: the one before its final newline. */
	for (p = tail; p && *p; p += strcspn(p, "\n") + !!p[strcspn(p, "\n")])
		if (strcspn(p, "\n") > 0)
			last = p;
	if (!last) {
		if (!strstr(what, "silent"))
			ret |= rt_buf_puts(&b, ", the console stayed silent");
	} else {
		ret |= rt_buf_puts(&b, ", last console line: ");
		ret |= qemu_brief_put(&b, last, qemu_min(strcspn(last, "\n"), QEMU_BRIEF_LINE));
	}
	for (p = qerr; p && *p && lines < 2; p += strcspn(p, "\n") + !!p[strcspn(p, "\n")]) {
		size_t n = strcspn(p, "\n");

		if (!n)
			continue;
		ret |= rt_buf_puts(&b, lines++ ? " / " : ", QEMU said: ");
		ret |= qemu_brief_put(&b, p, qemu_min(n, QEMU_BRIEF_LINE));
	}
	free(s->brief);
	s->brief = ret ? NULL : rt_buf_take(&b);
	rt_buf_fini(&b);
}

/* The console's last lines and QEMU's complaints, appended to @msg. */
static int qemu_fail(struct qemu_session *s, char **cause, int err, const char *what)
{
	char *tail, *qerr = NULL;
	size_t qlen = 0;

	qemu_pump_console(s);
	tail = qemu_console_tail(rt_buf_str(&s->console), s->console.len, QEMU_TAIL_LINES);
	if (rt_file_read(s->err_path, 64 * 1024, &qerr, &qlen) < 0)
		qerr = NULL;
	qemu_set_brief(s, what, tail, qerr);
	rt_err(cause, err, "%s\n--- last console lines ---\n%s%s%s", what,
	       tail && *tail ? tail : "(the console printed nothing)\n",
	       qerr && *qerr ? "--- qemu said ---\n" : "", qerr && *qerr ? qerr : "");
	free(tail);
	free(qerr);
	return err;
}

/* Start QEMU with s->cfg; the console log starts empty. */
static int qemu_session_spawn(struct qemu_session *s, bool interactive, char **cause)
{
	/*
	 * QEMU stays in our process group: an interactive one reads the terminal, and
	 * Ctrl-C reaches a headless one with us. Its stderr goes to a file; it gets the
	 * state disk as descriptors (-add-fd), not by its name.
	 */
	int keep[2];
	struct rt_child_opts co = {
		.err = RT_CHILD_FILE, .err_path = s->err_path, .flags = RT_CHILD_SAME_PGRP,
		.keep_fds = keep,
	};
	char **argv;
	int err = 0;

	if (!interactive)
		co.in = co.out = RT_CHILD_NULL;
	if (s->die_with_parent)
		co.flags |= RT_CHILD_DIE_WITH_PARENT;
	if (s->cfg.state_fd > STDERR_FILENO)
		keep[co.nkeep++] = s->cfg.state_fd;
	if (s->cfg.state_ro_fd > STDERR_FILENO)
		keep[co.nkeep++] = s->cfg.state_ro_fd;
	argv = qemu_cmdline_new(&s->cfg, cause);
	if (!argv)
		return -errno;
	co.argv = argv;
	s->t0_ms = rt_time_now_ms();
	s->ready_ms = -1;
	s->qemu_child = rt_child_start(&co, cause);
	if (!s->qemu_child)
		err = -errno;
	qemu_argv_free(argv);
	return err;
}

/* A copy of @src in *@dst, or NULL for NULL. Returns 0 or -ENOMEM. */
static int qemu_dup(char **dst, const char *src)
{
	*dst = src ? strdup(src) : NULL;
	return src && !*dst ? -ENOMEM : 0;
}

struct qemu_session *qemu_session_start(const struct qemu_run_opts *o, char **notice, char **cause)
{
	const struct qemu_machine *m = qemu_run_machine(o);
	struct qemu_session *s = NULL;
	char *dir = NULL, *tmpl = NULL;
	char nonce[17] = "";
	const char *tmp = getenv("TMPDIR");
	int err;

	*notice = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		goto out_nomem;
	s->log_fd = -1;
	s->state_fd = -1;
	s->state_ro_fd = -1;
	s->ready_ms = -1;
	s->stop = o->stop;
	s->kernel = o->kernel;
	s->user_boot_timeout_ms = o->boot_timeout_ms;
	rt_buf_init(&s->console);

	if (o->append) {
		err = qemu_append_check(o->append, cause);
		if (err < 0)
			goto out_fail;
	}
	dir = o->image_dir ? strdup(o->image_dir) : qemu_image_dir();
	if (!dir)
		goto out_nomem;
	if (asprintf(&s->kernel_path, "%s/%s/vmlinuz", dir, qemu_kernel_name(o->kernel)) < 0 ||
	    asprintf(&s->initrd_path, "%s/%s/initrd.img", dir, qemu_kernel_name(o->kernel)) < 0) {
		s->kernel_path = s->initrd_path = NULL;
		goto out_nomem;
	}
	if (m->needs_dtb && asprintf(&s->dtb_path, "%s/%s/%s.dtb", dir, qemu_kernel_name(o->kernel),
				     m->name) < 0) {
		s->dtb_path = NULL;
		goto out_nomem;
	}
	if (access(s->kernel_path, R_OK) < 0 || access(s->initrd_path, R_OK) < 0 ||
	    (s->dtb_path && access(s->dtb_path, R_OK) < 0)) {
		err = rt_err(cause, -ENOENT, "no %s image in %s/%s (build it with `make vm` in "
			     "the source tree or `rtlab vm build`)", qemu_kernel_name(o->kernel),
			     dir, qemu_kernel_name(o->kernel));
		goto out_fail;
	}

	err = qemu_accel_resolve(o, &s->accel, &s->cpu, notice);
	if (err < 0) {
		rt_err(cause, err, "%s", *notice ? *notice : "cannot choose an accelerator");
		free(*notice);
		*notice = NULL;
		goto out_fail;
	}
	s->auto_kvm = o->accel == QEMU_ACCEL_AUTO && !o->accel_fixed && s->accel == QEMU_ACCEL_KVM;
	s->time_auto_virtual = qemu_run_time_virtual(o, QEMU_ACCEL_TCG);
	s->boot_timeout_ms = o->boot_timeout_ms ? o->boot_timeout_ms :
			     s->accel == QEMU_ACCEL_KVM ? QEMU_BOOT_TIMEOUT_KVM_MS :
							QEMU_BOOT_TIMEOUT_TCG_MS;
	/* A KVM guest that says nothing for this long will not boot: fall back sooner. */
	s->silence_ms = o->silence_timeout_ms ? o->silence_timeout_ms :
			s->auto_kvm ? QEMU_SILENCE_KVM_MS : 0;

	if (!o->state_image) {
		s->state_path = rt_paths_state_file(QEMU_STATE_IMAGE_FILE);
		if (!s->state_path) {
			err = rt_err(cause, -errno, "no state directory for the VM's state disk");
			goto out_fail;
		}
	} else if (*o->state_image) {
		s->state_path = strdup(o->state_image);
		if (!s->state_path)
			goto out_nomem;
	}
	if (s->state_path) {
		err = qemu_state_image(s->state_path, !o->state_image, &s->state_fd,
				     &s->state_ro_fd, cause);
		if (err < 0)
			goto out_fail;
	}

	if (asprintf(&tmpl, "%s/rtlab-vm-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0) {
		tmpl = NULL;
		goto out_nomem;
	}
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
	if (o->probe_port && asprintf(&s->probe_path, "%s/probe.sock", s->tmpdir) < 0) {
		s->probe_path = NULL;
		goto out_nomem;
	}
	if (o->scratch_serial) {
		int fd;

		if (asprintf(&s->scratch_path, "%s/scratch.img", s->tmpdir) < 0) {
			s->scratch_path = NULL;
			goto out_nomem;
		}
		fd = open(s->scratch_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 || ftruncate(fd, QEMU_SCRATCH_BYTES) < 0) {
			err = rt_err(cause, -errno, "cannot create the scratch disk %s: %s",
				     s->scratch_path, strerror(errno));
			if (fd >= 0)
				close(fd);
			goto out_fail;
		}
		close(fd);
	}
	s->die_with_parent = o->die_with_parent;

	if (o->run) {
		/* The nonce only has to be unguessable by the program inside. */
		unsigned long long v = (unsigned long long)rt_time_now_ms() * 6364136223846793005ull ^
				       ((unsigned long long)getpid() << 32) ^ (uintptr_t)s;
		int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
				v ^= 0x9e3779b97f4a7c15ull;
			close(fd);
		}
		snprintf(nonce, sizeof(nonce), "%016llx", v);
		s->nonce = strdup(nonce);
		if (!s->nonce)
			goto out_nomem;
	}
	if (qemu_dup(&s->qemu, o->qemu) || qemu_dup(&s->run, o->run) || qemu_dup(&s->term, o->term) ||
	    qemu_dup(&s->append, o->append) ||
	    qemu_dup(&s->scratch_serial, o->scratch_serial))
		goto out_nomem;
	if (o->share_dir) {
		err = qemu_share_check(o->share_dir, &s->share, cause);
		if (err < 0)
			goto out_fail;
	}

	s->cfg.qemu = s->qemu;
	s->cfg.kernel_path = s->kernel_path;
	s->cfg.machine = m;
	s->cfg.initrd_path = s->initrd_path;
	s->cfg.dtb_path = s->dtb_path;
	s->cfg.state_image = s->state_path;
	s->cfg.state_fd = s->state_fd;
	s->cfg.state_ro_fd = s->state_ro_fd;
	s->cfg.console_log = s->log_path;
	s->cfg.qmp_socket = s->qmp_path;
	s->cfg.probe_socket = s->probe_path;
	s->cfg.scratch_image = s->scratch_path;
	s->cfg.scratch_serial = s->scratch_serial;
	s->cfg.accel = s->accel;
	s->cfg.cpu = s->cpu;
	s->cfg.virtual_time = qemu_run_time_virtual(o, s->accel);
	s->cfg.smp = s->cfg.virtual_time ? 1 : o->smp ? o->smp : m->default_smp;
	s->cfg.mem_mb = o->mem_mb ? o->mem_mb : m->default_mem_mb;
	s->cfg.interactive = o->interactive;
	s->cfg.shell = o->shell;
	s->cfg.run = s->run;
	s->cfg.nonce = s->nonce;
	s->cfg.term = s->term;
	s->cfg.cols = o->cols;
	s->cfg.rows = o->rows;
	s->cfg.append = s->append;
	s->cfg.share_dir = s->share;
	s->cfg.utf8 = o->utf8;
	err = qemu_session_spawn(s, o->interactive, cause);
	if (err < 0)
		goto out_fail;
	free(dir);
	return s;

out_nomem:
	err = rt_err(cause, -ENOMEM, "out of memory");
out_fail:
	free(dir);
	free(tmpl);
	qemu_session_free(s);
	errno = -err;
	return NULL;
}

/*
 * A wait's budget. In virtual time the guest moves only while QEMU runs on a host CPU,
 * and by a fixed amount of its own time per instruction: on a loaded machine the same
 * boot or command takes longer in wall time, by as much as QEMU is kept off the CPUs
 * (33 times, seen at load 14 on two cores). So a virtual-time budget is counted in the
 * CPU time QEMU got, and load changes how long a wait takes, never whether it times
 * out; QEMU_LOAD_STRETCH times the budget in wall time ends it all the same (a QEMU
 * that no longer runs). Other guests' budgets are wall time, as their clocks are.
 */
#define QEMU_LOAD_STRETCH 16

struct qemu_budget {
	uint64_t t0_ms;			/* wall time at the start */
	unsigned long long cpu0_ms;	/* QEMU's CPU time then */
	unsigned int ms;
	bool cpu;			/* counted in QEMU's CPU time */
};

static unsigned long long qemu_cpu_ms(const struct qemu_session *s, bool *ok)
{
	unsigned long long ms = 0;

	*ok = s->qemu_child && rt_task_process_cpu_ms(rt_child_pid(s->qemu_child), &ms,
						       NULL) == 0;
	return ms;
}

static void qemu_budget_start(const struct qemu_session *s, struct qemu_budget *b,
			      uint64_t t0_ms, bool from_start, unsigned int ms)
{
	bool ok;

	b->t0_ms = t0_ms;
	b->ms = ms;
	b->cpu = s->cfg.virtual_time;
	b->cpu0_ms = from_start ? 0 : qemu_cpu_ms(s, &ok);
}

/*
 * Has @b run out? If so and QEMU got less CPU than wall time, @note says how much
 * (", with 120 s of CPU in 310 s: the machine is loaded"), else it is "".
 */
static bool qemu_budget_over(const struct qemu_session *s, const struct qemu_budget *b,
			     char *note, size_t size)
{
	uint64_t wall = rt_time_now_ms() - b->t0_ms;
	unsigned long long cpu = 0;
	bool ok = false, over;

	*note = '\0';
	if (b->cpu)
		cpu = qemu_cpu_ms(s, &ok);
	cpu = ok && cpu >= b->cpu0_ms ? cpu - b->cpu0_ms : wall;
	over = (cpu < wall ? cpu : wall) >= b->ms ||
	       wall >= (uint64_t)b->ms * QEMU_LOAD_STRETCH;
	if (over && b->cpu && ok && cpu + 1000 < wall)
		snprintf(note, size, ", with %.0f s of CPU in %.0f s: the machine is loaded",
			 cpu / 1000.0, wall / 1000.0);
	return over;
}

/* Has the front end asked us to give up waiting? */
static bool qemu_should_stop(struct qemu_session *s)
{
	return s->stop && *s->stop;
}

int qemu_session_wait_ready(struct qemu_session *s, struct qemu_ready *r, char **cause)
{
	struct qemu_budget b;
	char what[240], load[96];
	int ret;

	memset(r, 0, sizeof(*r));
	qemu_budget_start(s, &b, s->t0_ms, true, s->boot_timeout_ms);
	for (;;) {
		qemu_pump_console(s);
		ret = qemu_console_ready(rt_buf_str(&s->console), s->console.len, r);
		if (ret < 0)
			return ret;
		if (ret == 1) {
			if (s->ready_ms < 0)
				s->ready_ms = (long)(rt_time_now_ms() - s->t0_ms);
			return 0;
		}
		if (qemu_reaped(s)) {
			snprintf(what, sizeof(what), "QEMU exited (status %d) before the VM was "
				 "ready", s->exit_status);
			return qemu_fail(s, cause, -ECHILD, what);
		}
		if (qemu_should_stop(s))
			return qemu_fail(s, cause, -EINTR, "interrupted while the VM was booting");
		if (s->silence_ms && s->console.len == 0 &&
		    rt_time_now_ms() >= s->t0_ms + s->silence_ms && s->silence_ms < s->boot_timeout_ms) {
			snprintf(what, sizeof(what), "the console stayed silent for %.1f s (%s)",
				 s->silence_ms / 1000.0, qemu_accel_name(s->accel));
			return qemu_fail(s, cause, -ETIMEDOUT, what);
		}
		if (qemu_budget_over(s, &b, load, sizeof(load))) {
			if (s->boot_timeout_ms % 1000)
				snprintf(what, sizeof(what), "the VM did not reach rtlab within "
					 "%.1f s (%s%s)", s->boot_timeout_ms / 1000.0,
					 qemu_accel_name(s->accel), load);
			else
				snprintf(what, sizeof(what), "the VM did not reach rtlab within "
					 "%u s (%s%s)", s->boot_timeout_ms / 1000,
					 qemu_accel_name(s->accel), load);
			return qemu_fail(s, cause, -ETIMEDOUT, what);
		}
		rt_time_sleep_ms(QEMU_POLL_MS, s->stop);
	}
}

static void qemu_session_stop(struct qemu_session *s);

int qemu_session_fallback(struct qemu_session *s, int err, char **notice, char **cause)
{
	int ret;

	*notice = NULL;
	if (!s->auto_kvm || s->accel != QEMU_ACCEL_KVM || (err != -ECHILD && err != -ETIMEDOUT))
		return err;
	if (rt_err(notice, 0, "KVM did not boot the %s kernel with -cpu %s (%s); starting it "
		   "again under TCG emulation%s", qemu_kernel_name(s->kernel),
		   s->cpu ? s->cpu : "host", s->brief ? s->brief : "no detail",
		   s->time_auto_virtual ? " in virtual time (one vCPU): its clock counts its "
		   "instructions (doc/vm.md)" : ": it boots slower and its latencies are larger "
		   "and noisier") == 0 && !*notice)
		return -ENOMEM;
	qemu_session_stop(s);
	qemu_qmp_free(s->qmp);
	s->qmp = NULL;
	if (s->log_fd >= 0)
		close(s->log_fd);
	s->log_fd = -1;
	unlink(s->log_path);
	unlink(s->qmp_path);
	rt_buf_fini(&s->console);
	rt_buf_init(&s->console);
	s->accel = QEMU_ACCEL_TCG;
	s->auto_kvm = false;
	free(s->cpu);
	s->cpu = NULL;
	s->cfg.accel = QEMU_ACCEL_TCG;
	s->cfg.cpu = NULL;
	if (s->time_auto_virtual) {
		s->cfg.virtual_time = true;
		s->cfg.smp = 1;
	}
	s->silence_ms = 0;
	s->boot_timeout_ms = s->user_boot_timeout_ms ? s->user_boot_timeout_ms :
						       QEMU_BOOT_TIMEOUT_TCG_MS;
	ret = qemu_session_spawn(s, s->cfg.interactive, cause);
	if (ret < 0) {
		free(*notice);
		*notice = NULL;
	}
	return ret;
}

const char *qemu_session_brief(const struct qemu_session *s)
{
	return s->brief;
}

int qemu_session_wait_exit(struct qemu_session *s, unsigned int timeout_ms, int *status,
			 char **cause)
{
	struct qemu_budget b;
	char what[200], load[96];

	qemu_budget_start(s, &b, rt_time_now_ms(), false, timeout_ms);
	for (;;) {
		qemu_pump_console(s);
		if (qemu_reaped(s)) {
			qemu_pump_console(s);
			*status = s->exit_status;
			return 0;
		}
		if (qemu_should_stop(s))
			return rt_err(cause, -EINTR, "interrupted");
		if (timeout_ms && qemu_budget_over(s, &b, load, sizeof(load))) {
			snprintf(what, sizeof(what), "the VM was still running after %u s%s",
				 timeout_ms / 1000, load);
			return qemu_fail(s, cause, -ETIMEDOUT, what);
		}
		rt_time_sleep_ms(QEMU_POLL_MS, s->stop);
	}
}

long qemu_session_ready_ms(const struct qemu_session *s)
{
	return s->ready_ms;
}

enum qemu_accel qemu_session_accel(const struct qemu_session *s)
{
	return s->accel;
}

bool qemu_session_virtual_time(const struct qemu_session *s)
{
	return s->cfg.virtual_time;
}

const char *qemu_session_cpu(const struct qemu_session *s)
{
	const struct qemu_machine *m = s->cfg.machine;
	const char *cpu = s->cfg.cpu ? s->cfg.cpu :
			  s->accel == QEMU_ACCEL_KVM ? m->cpu_kvm : m->cpu_tcg;

	return cpu ? cpu : "the board's";
}

const char *qemu_session_probe_path(const struct qemu_session *s)
{
	return s->probe_path;
}

int qemu_session_pid(const struct qemu_session *s)
{
	return s->qemu_child ? rt_child_pid(s->qemu_child) : -1;
}

const char *qemu_session_nonce(const struct qemu_session *s)
{
	return s->nonce;
}

struct qemu_qmp *qemu_session_qmp(struct qemu_session *s, char **cause)
{
	if (!s->qmp)
		s->qmp = qemu_qmp_connect(s->qmp_path, 3000, cause);
	return s->qmp;
}

const char *qemu_session_console(struct qemu_session *s, size_t *len)
{
	qemu_pump_console(s);
	*len = s->console.len;
	return rt_buf_str(&s->console);
}

/* Ask nicely (QMP quit), then SIGTERM, then SIGKILL; always by QEMU's pid. */
static void qemu_session_stop(struct qemu_session *s)
{
	struct qemu_qmp *q;

	if (qemu_reaped(s))
		return;
	/* No socket yet: QEMU is not listening (a fake, or one stuck before its monitor). */
	q = s->qmp ? s->qmp : access(s->qmp_path, F_OK) == 0 ?
	    qemu_qmp_connect(s->qmp_path, 500, NULL) : NULL;
	if (q) {
		qemu_qmp_execute(q, "quit", NULL, NULL, NULL);
		if (q != s->qmp)
			qemu_qmp_free(q);
		if (qemu_reaped_within(s, QEMU_QUIT_WAIT_MS))
			return;
	}
	rt_child_stop(s->qemu_child, SIGTERM, QEMU_QUIT_WAIT_MS, NULL);
	if (!qemu_reaped(s)) {
		/* Stuck in the kernel: left behind, never waited for without bound. */
		rt_child_free(s->qemu_child);
		s->qemu_child = NULL;
		s->exit_status = 128 + SIGKILL;
	}
}

void qemu_session_free(struct qemu_session *s)
{
	if (!s)
		return;
	qemu_session_stop(s);
	qemu_qmp_free(s->qmp);
	if (s->log_fd >= 0)
		close(s->log_fd);
	if (s->tmpdir) {
		/* Only files we created live there; the socket and logs go first. */
		if (s->qmp_path)
			unlink(s->qmp_path);
		if (s->probe_path)
			unlink(s->probe_path);
		if (s->scratch_path)
			unlink(s->scratch_path);
		if (s->log_path)
			unlink(s->log_path);
		if (s->err_path)
			unlink(s->err_path);
		rmdir(s->tmpdir);
	}
	free(s->tmpdir);
	free(s->log_path);
	free(s->qmp_path);
	free(s->probe_path);
	free(s->scratch_path);
	free(s->scratch_serial);
	free(s->err_path);
	free(s->nonce);
	free(s->kernel_path);
	free(s->initrd_path);
	free(s->dtb_path);
	free(s->state_path);
	if (s->state_fd >= 0)
		close(s->state_fd);
	if (s->state_ro_fd >= 0)
		close(s->state_ro_fd);
	free(s->qemu);
	free(s->cpu);
	free(s->run);
	free(s->term);
	free(s->append);
	free(s->share);
	free(s->brief);
	rt_buf_fini(&s->console);
	free(s);
}
