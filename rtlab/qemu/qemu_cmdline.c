/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qemu_cmdline: building QEMU's and the guest kernel's command lines (see qemu_cmdline.h).
 * The kernel keeps at most 2048 bytes of command line on x86 (1024 on ARM) and cannot
 * quote a double quote, so a run command with '"' or one that does not fit the machine's
 * append_max is refused here rather than arriving cut in the guest.
 */
#include "qemu_cmdline.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/rt_buf.h"
#include "core/rt_err.h"

static const char *const qemu_kernel_names[QEMU_KERNEL_COUNT] = {
	[QEMU_KERNEL_STOCK] = "stock",
	[QEMU_KERNEL_RT] = "rt",
	[QEMU_KERNEL_LAB] = "lab",
	[QEMU_KERNEL_FCSE] = "fcse",
};

static const char *const qemu_accel_names[] = {
	[QEMU_ACCEL_AUTO] = "auto",
	[QEMU_ACCEL_KVM] = "kvm",
	[QEMU_ACCEL_TCG] = "tcg",
};

const char *qemu_kernel_name(enum qemu_kernel k)
{
	return (unsigned int)k < QEMU_KERNEL_COUNT ? qemu_kernel_names[k] : NULL;
}

const struct qemu_machine *qemu_kernel_machine(enum qemu_kernel k)
{
	return k == QEMU_KERNEL_FCSE ? &qemu_machine_versatilepb : &qemu_machine_pc;
}

int qemu_kernel_parse(const char *s, enum qemu_kernel *k)
{
	for (unsigned int i = 0; i < QEMU_KERNEL_COUNT; i++) {
		if (strcmp(s, qemu_kernel_names[i]) == 0) {
			*k = i;
			return 0;
		}
	}
	return -EINVAL;
}

static const char *const qemu_time_names[] = {
	[QEMU_TIME_REAL] = "real",
	[QEMU_TIME_AUTO] = "auto",
	[QEMU_TIME_VIRTUAL] = "virtual",
};

const char *qemu_time_name(enum qemu_time t)
{
	return (unsigned int)t <= QEMU_TIME_VIRTUAL ? qemu_time_names[t] : NULL;
}

int qemu_time_parse(const char *s, enum qemu_time *t)
{
	for (unsigned int i = 0; i <= QEMU_TIME_VIRTUAL; i++)
		if (strcmp(s, qemu_time_names[i]) == 0) {
			*t = (enum qemu_time)i;
			return 0;
		}
	return -EINVAL;
}

const char *qemu_accel_name(enum qemu_accel a)
{
	return (unsigned int)a <= QEMU_ACCEL_TCG ? qemu_accel_names[a] : NULL;
}

int qemu_accel_parse(const char *s, enum qemu_accel *a)
{
	for (unsigned int i = 0; i <= QEMU_ACCEL_TCG; i++) {
		if (strcmp(s, qemu_accel_names[i]) == 0) {
			*a = i;
			return 0;
		}
	}
	return -EINVAL;
}

/* Words the guest's init reads must stay one word: letters, digits, "-_.". */
static bool qemu_word_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' || *s == '.'))
			return false;
	return true;
}

/* A -cpu value: a model name and comma-separated features ("host,-arch-capabilities"). */
static bool qemu_cpu_ok(const char *s)
{
	if (!*s || *s == ',' || *s == '-')
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("-_.,=+", *s)))
			return false;
	return true;
}

int qemu_append_check(const char *s, char **cause)
{
	static const char *const reserved[] = { "rtlab.", "console=", "init=", "rdinit=" };
	size_t len = strlen(s);
	const char *w;

	if (len > QEMU_USER_APPEND_MAX)
		return rt_err(cause, -EINVAL, "--append is %zu bytes; at most %d are passed on",
			      len, QEMU_USER_APPEND_MAX);
	for (const char *p = s; *p; p++) {
		unsigned char ch = (unsigned char)*p;

		if (ch < 0x20 || ch > 0x7e)
			return rt_err(cause, -EINVAL, "--append must be printable ASCII on one "
				      "line (byte 0x%02x at offset %zu)", ch, (size_t)(p - s));
		if (ch == '"')
			return rt_err(cause, -EINVAL, "--append cannot carry a double quote (the "
				      "kernel command line cannot nest one in the run command)");
	}
	for (w = s; *w;) {
		size_t n;

		w += strspn(w, " ");
		n = strcspn(w, " ");
		for (size_t i = 0; n && i < sizeof(reserved) / sizeof(reserved[0]); i++)
			if (!strncmp(w, reserved[i], strlen(reserved[i])))
				return rt_err(cause, -EINVAL, "--append cannot set %.*s: "
					      "rtlab sets up the VM's console and init itself",
					      (int)n, w);
		w += n;
	}
	return 0;
}

static const struct qemu_machine *qemu_config_machine(const struct qemu_config *c)
{
	return c->machine ? c->machine : &qemu_machine_pc;
}

char *qemu_append_new(const struct qemu_config *c, char **cause)
{
	const struct qemu_machine *m = qemu_config_machine(c);
	struct rt_buf b = RT_BUF_INIT;
	char *s;
	int ret = 0;

	/*
	 * Boot messages stay on (a boot that hangs must leave something to show); the VM's
	 * init lowers the console log level before it prints the ready line or any output.
	 */
	ret |= rt_buf_printf(&b, "console=%s,115200 panic=-1 loglevel=4", m->console);
	if (c->append && *c->append) {
		if (qemu_append_check(c->append, cause) < 0)
			goto out_inval;
		ret |= rt_buf_printf(&b, " %s", c->append);
	}
	if (c->term && qemu_word_ok(c->term))
		ret |= rt_buf_printf(&b, " rtlab.term=%s", c->term);
	if (c->cols && c->rows)
		ret |= rt_buf_printf(&b, " rtlab.cols=%u rtlab.rows=%u", c->cols, c->rows);
	if (c->utf8)
		ret |= rt_buf_puts(&b, " rtlab.utf8=1");
	if (c->share_dir)
		ret |= rt_buf_puts(&b, " rtlab.share=1");
	if (c->shell)
		ret |= rt_buf_puts(&b, " rtlab.shell=1");
	if (c->virtual_time)
		ret |= rt_buf_puts(&b, " " QEMU_TIME_VIRTUAL_WORD);
	if (c->run) {
		if (!*c->run || strchr(c->run, '"') || strchr(c->run, '\n')) {
			rt_err(cause, -EINVAL, "the command to run must be non-empty and contain "
			       "no double quote or newline (the kernel command line cannot carry them)");
			goto out_inval;
		}
		if (!c->nonce || !qemu_word_ok(c->nonce)) {
			rt_err(cause, -EINVAL, "a run command needs a nonce of letters and digits");
			goto out_inval;
		}
		ret |= rt_buf_printf(&b, " rtlab.nonce=%s rtlab.run=\"%s\"", c->nonce, c->run);
	}
	if (ret < 0) {
		rt_buf_fini(&b);
		errno = ENOMEM;
		return NULL;
	}
	if (b.len > m->append_max) {
		rt_err(cause, -EINVAL, "the kernel command line would be %zu bytes; at most %u fit",
		       b.len, m->append_max);
		goto out_inval;
	}
	s = rt_buf_take(&b);
	if (!s)
		errno = ENOMEM;
	return s;

out_inval:
	rt_buf_fini(&b);
	errno = EINVAL;
	return NULL;
}

void qemu_argv_free(char **argv)
{
	if (!argv)
		return;
	for (char **a = argv; *a; a++)
		free(*a);
	free(argv);
}

struct qemu_argv {
	char **v;
	size_t n, cap;
	bool nomem;
};

static void qemu_argv_add(struct qemu_argv *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void qemu_argv_add(struct qemu_argv *a, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (a->nomem)
		return;
	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 32;
		char **v = realloc(a->v, cap * sizeof(*v));

		if (!v) {
			a->nomem = true;
			return;
		}
		a->v = v;
		a->cap = cap;
	}
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0) {
		a->nomem = true;
		s = NULL;
	}
	va_end(ap);
	if (!s)
		return;
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

/* QEMU's option syntax doubles a comma inside a value. */
static char *qemu_opt_escape(const char *s)
{
	struct rt_buf b = RT_BUF_INIT;

	for (; *s; s++)
		if (rt_buf_append(&b, s, 1) < 0 || (*s == ',' && rt_buf_append(&b, ",", 1) < 0)) {
			rt_buf_fini(&b);
			return NULL;
		}
	return rt_buf_take(&b);
}

/* Is @c complete, in range and within what its machine @m has? 0 or -EINVAL with @cause. */
static int qemu_config_check(const struct qemu_config *c, const struct qemu_machine *m,
			     char **cause)
{
	if (!c->kernel_path || !c->initrd_path || !c->console_log)
		return rt_err(cause, -EINVAL, "the VM needs a kernel, an initramfs and a console log");
	if (m->needs_dtb && !c->dtb_path)
		return rt_err(cause, -EINVAL, "the %s machine needs a device tree", m->name);
	if (c->accel != QEMU_ACCEL_KVM && c->accel != QEMU_ACCEL_TCG)
		return rt_err(cause, -EINVAL, "the accelerator must be resolved to kvm or tcg");
	if (c->accel == QEMU_ACCEL_KVM && !m->cpu_kvm)
		return rt_err(cause, -EINVAL, "the %s machine runs under TCG only", m->name);
	if (c->virtual_time && (c->accel != QEMU_ACCEL_TCG || c->smp != 1))
		return rt_err(cause, -EINVAL, "virtual time needs TCG and one vCPU (KVM runs the "
			      "guest on the host's clock; single-threaded TCG runs vCPUs in turn)");
	if (c->cpu && !qemu_cpu_ok(c->cpu))
		return rt_err(cause, -EINVAL, "the CPU model '%s' is not a QEMU -cpu value", c->cpu);
	if (c->scratch_image && (!c->scratch_serial || !qemu_word_ok(c->scratch_serial)))
		return rt_err(cause, -EINVAL, "the scratch disk needs a serial of letters and digits");
	if ((c->scratch_image || c->share_dir) && !m->virtio_pci)
		return rt_err(cause, -EINVAL, "the %s machine has no virtio for a %s", m->name,
			      c->scratch_image ? "scratch disk" : "shared directory");
	if (c->share_dir && c->share_dir[0] != '/')
		return rt_err(cause, -EINVAL, "the shared directory must be an absolute path");
	if (c->smp < 1 || c->smp > m->max_smp || c->mem_mb < 128 || c->mem_mb > m->max_mem_mb)
		return rt_err(cause, -EINVAL, "--smp must be 1..%u and --mem 128..%u (MiB)",
			      m->max_smp, m->max_mem_mb);
	return 0;
}

char **qemu_cmdline_new(const struct qemu_config *c, char **cause)
{
	const struct qemu_machine *m = qemu_config_machine(c);
	struct qemu_argv a = { 0 };
	char *append = NULL, *log = NULL, *state = NULL, *qmp = NULL, *share = NULL;
	char *probe = NULL, *scratch = NULL;
	const char *cpu;
	char **ret = NULL;

	if (qemu_config_check(c, m, cause) < 0) {
		errno = EINVAL;
		return NULL;
	}
	append = qemu_append_new(c, cause);
	if (!append)
		return NULL;
	log = qemu_opt_escape(c->console_log);
	state = c->state_image ? qemu_opt_escape(c->state_image) : NULL;
	qmp = c->qmp_socket ? qemu_opt_escape(c->qmp_socket) : NULL;
	probe = c->probe_socket ? qemu_opt_escape(c->probe_socket) : NULL;
	scratch = c->scratch_image ? qemu_opt_escape(c->scratch_image) : NULL;
	share = c->share_dir ? qemu_opt_escape(c->share_dir) : NULL;
	if (!log || (c->state_image && !state) || (c->qmp_socket && !qmp) ||
	    (c->probe_socket && !probe) || (c->scratch_image && !scratch) ||
	    (c->share_dir && !share))
		goto out_nomem;

	qemu_argv_add(&a, "%s", c->qemu ? c->qemu : m->qemu);
	qemu_argv_add(&a, "-name");
	qemu_argv_add(&a, "rtlab-%s,debug-threads=on", c->run ? "run" : "vm");
	qemu_argv_add(&a, "-nodefaults");
	qemu_argv_add(&a, "-no-user-config");
	qemu_argv_add(&a, "-machine");
	qemu_argv_add(&a, "%s", m->name);
	/*
	 * Under TCG, one host thread per vCPU (multi-threaded TCG), so that a vCPU's
	 * priority can be changed alone (the hypervisor lab; QEMU's default where the
	 * target allows it, said here so that it does not depend on the version).
	 */
	qemu_argv_add(&a, "-accel");
	qemu_argv_add(&a, "%s", c->accel == QEMU_ACCEL_KVM ? "kvm" :
		      c->virtual_time ? "tcg,thread=single" :
		      m->tcg_multi ? "tcg,thread=multi" : "tcg");
	if (c->virtual_time) {
		/* The guest's clock counts its instructions, 1 ns each; idle skips ahead. */
		qemu_argv_add(&a, "-icount");
		qemu_argv_add(&a, "shift=0,sleep=off,align=off");
	}
	cpu = c->cpu ? c->cpu : c->accel == QEMU_ACCEL_KVM ? m->cpu_kvm : m->cpu_tcg;
	if (cpu) {
		qemu_argv_add(&a, "-cpu");
		qemu_argv_add(&a, "%s", cpu);
	}
	qemu_argv_add(&a, "-smp");
	qemu_argv_add(&a, "%u", c->smp);
	qemu_argv_add(&a, "-m");
	qemu_argv_add(&a, "%u", c->mem_mb);
	qemu_argv_add(&a, "-display");
	qemu_argv_add(&a, "none");
	qemu_argv_add(&a, "-no-reboot");
	qemu_argv_add(&a, "-kernel");
	qemu_argv_add(&a, "%s", c->kernel_path);
	qemu_argv_add(&a, "-initrd");
	qemu_argv_add(&a, "%s", c->initrd_path);
	if (c->dtb_path) {
		qemu_argv_add(&a, "-dtb");
		qemu_argv_add(&a, "%s", c->dtb_path);
	}
	qemu_argv_add(&a, "-append");
	qemu_argv_add(&a, "%s", append);
	qemu_argv_add(&a, "-chardev");
	if (c->interactive)
		qemu_argv_add(&a, "stdio,id=con,mux=on,signal=off,logfile=%s", log);
	else
		qemu_argv_add(&a, "file,id=con,path=%s", log);
	qemu_argv_add(&a, "-serial");
	qemu_argv_add(&a, "chardev:con");
	if (c->interactive) {
		qemu_argv_add(&a, "-mon");
		qemu_argv_add(&a, "chardev=con,mode=readline");
	}
	if (qmp) {
		qemu_argv_add(&a, "-qmp");
		qemu_argv_add(&a, "unix:%s,server=on,wait=off", qmp);
	}
	if (probe && !m->virtio_pci) {
		/* The probe's stream on the board's second UART (the first is the console's). */
		qemu_argv_add(&a, "-chardev");
		qemu_argv_add(&a, "socket,id=probe,path=%s,server=on,wait=off", probe);
		qemu_argv_add(&a, "-serial");
		qemu_argv_add(&a, "chardev:probe");
	} else if (probe) {
		/* The probe's stream: a virtio-serial port, named, on a socket of ours. */
		qemu_argv_add(&a, "-device");
		qemu_argv_add(&a, "virtio-serial-pci,id=vser0");
		qemu_argv_add(&a, "-chardev");
		qemu_argv_add(&a, "socket,id=probe,path=%s,server=on,wait=off", probe);
		qemu_argv_add(&a, "-device");
		qemu_argv_add(&a, "virtserialport,bus=vser0.0,chardev=probe,name=%s", QEMU_PROBE_PORT);
	}
	if (scratch) {
		/* The scratch disk on an I/O thread of its own, so its requests are that thread's work. */
		qemu_argv_add(&a, "-object");
		qemu_argv_add(&a, "iothread,id=%s", QEMU_IOTHREAD_ID);
		qemu_argv_add(&a, "-drive");
		qemu_argv_add(&a, "file=%s,if=none,id=scratch,format=raw,cache=writeback", scratch);
		qemu_argv_add(&a, "-device");
		qemu_argv_add(&a, "virtio-blk-pci,drive=scratch,iothread=%s,serial=%s",
			    QEMU_IOTHREAD_ID, c->scratch_serial);
	}
	if (state && c->state_fd > STDERR_FILENO) {
		qemu_argv_add(&a, "-add-fd");
		qemu_argv_add(&a, "fd=%d,set=1,opaque=rtlab-state", c->state_fd);
		if (c->state_ro_fd > STDERR_FILENO) {
			qemu_argv_add(&a, "-add-fd");
			qemu_argv_add(&a, "fd=%d,set=1,opaque=rtlab-state-ro", c->state_ro_fd);
		}
		qemu_argv_add(&a, "-drive");
		qemu_argv_add(&a, "file=/dev/fdset/1,if=%s,format=raw,cache=writeback", m->disk_if);
	} else if (state) {
		qemu_argv_add(&a, "-drive");
		qemu_argv_add(&a, "file=%s,if=%s,format=raw,cache=writeback", state, m->disk_if);
	}
	if (share) {
		/* multidevs=remap: files of several host file systems keep distinct inodes. */
		qemu_argv_add(&a, "-fsdev");
		qemu_argv_add(&a, "local,id=rtlabshare,path=%s,security_model=mapped-xattr,"
			    "multidevs=remap", share);
		qemu_argv_add(&a, "-device");
		qemu_argv_add(&a, "virtio-9p-pci,fsdev=rtlabshare,mount_tag=%s", QEMU_SHARE_TAG);
	}
	if (a.nomem)
		goto out_nomem;
	ret = a.v;
	a.v = NULL;
	goto out_free;

out_nomem:
	errno = ENOMEM;
out_free:
	if (a.v) {
		for (size_t i = 0; i < a.n; i++)
			free(a.v[i]);
		free(a.v);
	}
	free(append);
	free(log);
	free(state);
	free(qmp);
	free(probe);
	free(scratch);
	free(share);
	return ret;
}
