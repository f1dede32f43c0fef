/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_fence: the system-call filter and the Landlock file fence of a
 * sandboxed run (see the header for what each refuses and why).
 *
 * The filter is a deny list, not an allow list: the subjects are ordinary
 * C programs, compilers included, and an allow list that misses one call
 * glibc makes on some machine would fail an honest learner. What it denies
 * is what reaches kernel surface no exercise needs.
 *
 * Landlock's constants are defined here where Debian 12's kernel headers
 * are older than the running kernel: the ABI is stable, and the ruleset
 * only handles what the running kernel's ABI version knows.
 */
#include "grade_fence.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <sched.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- The system-call filter --------------------------------------------------------- */

/* Refused with EPERM: what no exercise needs and an attacker of the grader wants. */
static const char *const denied[] = {
	/* namespaces and mounts: a new user namespace makes its creator root in it */
	"unshare", "setns", "mount", "umount", "umount2", "pivot_root", "chroot", "move_mount",
	"open_tree", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
	/* other processes' memory and descriptors */
	"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
	/* kernel surface of its own */
	"bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter",
	"io_uring_register", "keyctl", "add_key", "request_key", "fanotify_init",
	"open_by_handle_at", "name_to_handle_at", "lookup_dcookie", "quotactl", "quotactl_fd",
	/* the machine itself */
	"init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
	"reboot", "swapon", "swapoff", "acct", "syslog", "settimeofday", "clock_settime",
	"clock_adjtime", "sethostname", "setdomainname", "vhangup", "iopl", "ioperm",
};

#define CLONE_NS_FLAGS (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | \
			CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP)

int grade_fence_seccomp(void)
{
	static const unsigned long ns_flags[] = { CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWPID,
						  CLONE_NEWNET, CLONE_NEWIPC, CLONE_NEWUTS,
						  CLONE_NEWCGROUP };
	scmp_filter_ctx ctx;
	int ret, nr;

	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return -ENOMEM;
	/* Other ABIs (i386 through int 0x80, x32) would bypass the rules: kill them. */
	ret = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	for (size_t i = 0; !ret && i < sizeof(denied) / sizeof(denied[0]); i++) {
		nr = seccomp_syscall_resolve_name(denied[i]);
		if (nr == __NR_SCMP_ERROR)
			continue;	/* not a call of this architecture */
		ret = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
	}
	/* clone: refused when it asks for any new namespace, flag by flag. */
	for (size_t i = 0; !ret && i < sizeof(ns_flags) / sizeof(ns_flags[0]); i++)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
				       SCMP_A0(SCMP_CMP_MASKED_EQ, ns_flags[i], ns_flags[i]));
	/* clone3's flags are in memory the filter cannot read: ENOSYS makes glibc use clone. */
	nr = seccomp_syscall_resolve_name("clone3");
	if (!ret && nr != __NR_SCMP_ERROR)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
	/* Typing into a terminal, should one still be reachable. */
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
				       SCMP_A1(SCMP_CMP_EQ, (scmp_datum_t)TIOCSTI));
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
				       SCMP_A1(SCMP_CMP_EQ, (scmp_datum_t)TIOCLINUX));
	if (!ret)
		ret = seccomp_load(ctx);
	seccomp_release(ctx);
	/* libseccomp returns -EINVAL (or -ECANCELED) when the kernel has no filter mode. */
	if (ret == -EINVAL || ret == -ECANCELED)
		return prctl(PR_GET_SECCOMP) < 0 && errno == EINVAL ? -ENOSYS : ret;
	return ret;
}

/* ---- The Landlock fence ---------------------------------------------------------------- */

#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#define LL_NET_BIND_TCP (1ULL << 0)
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LL_SCOPE_SIGNAL (1ULL << 1)

/* struct landlock_ruleset_attr as of ABI 6; older kernels read a prefix of it. */
struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

#define LL_READ (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | \
		 LANDLOCK_ACCESS_FS_READ_DIR)
#define LL_FILE_RW (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
		    LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)

/* Read and execute only: programs, libraries, headers, configuration. */
static const char *const ro_dirs[] = {
	"/usr/bin", "/usr/sbin", "/usr/lib", "/usr/lib32", "/usr/lib64", "/usr/libx32",
	"/usr/libexec", "/usr/include", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/etc", "/proc", "/sys/devices/system/cpu",
};

/* Devices a run may open; /dev/tty so that it fails as a terminal-less process would. */
static const char *const rw_files[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
};

static int ll_add(int rfd, const char *path, uint64_t access)
{
	struct landlock_path_beneath_attr pb = { .allowed_access = access };
	int ret = 0;

	pb.parent_fd = open(path, O_PATH | O_CLOEXEC);
	if (pb.parent_fd < 0)
		return errno == ENOENT || errno == ENOTDIR || errno == EACCES ? 0 : -errno;
	if (syscall(SYS_landlock_add_rule, rfd, LANDLOCK_RULE_PATH_BENEATH, &pb, 0))
		ret = -errno;
	close(pb.parent_fd);
	return ret;
}

int grade_fence_landlock(const struct grade_fence_paths *p, unsigned int *got)
{
	struct ll_ruleset_attr attr = { 0 };
	uint64_t file_rw, dir_rw;
	size_t attr_size = sizeof(attr.handled_access_fs);
	int abi, rfd, ret = 0;

	*got = 0;
	abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0,
			   LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1)
		return 0;	/* not built in, or disabled at boot */
	attr.handled_access_fs = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;
	if (abi >= 2)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	if (abi >= 4 && p->no_tcp) {
		attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
		attr_size = offsetof(struct ll_ruleset_attr, scoped);
	}
	if (abi >= 6) {
		attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL;
		attr_size = sizeof(attr);
	}
	file_rw = LL_FILE_RW & attr.handled_access_fs;
	/* Writable folders: everything but making device nodes. */
	dir_rw = attr.handled_access_fs &
		 ~(uint64_t)(LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK);
	rfd = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
	/* A kernel (or an emulator: valgrind) that names a version it then refuses: none. */
	if (rfd < 0)
		return errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP ? 0 : -errno;
	for (size_t i = 0; !ret && i < sizeof(ro_dirs) / sizeof(ro_dirs[0]); i++)
		ret = ll_add(rfd, ro_dirs[i], LL_READ);
	for (size_t i = 0; !ret && i < sizeof(rw_files) / sizeof(rw_files[0]); i++)
		ret = ll_add(rfd, rw_files[i], file_rw);
	if (!ret && p->job)
		ret = ll_add(rfd, p->job, p->job_readonly ? LL_READ : dir_rw);
	if (!ret && p->tmp)
		ret = ll_add(rfd, p->tmp, dir_rw);
	if (!ret && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		ret = -errno;
	if (!ret && syscall(SYS_landlock_restrict_self, rfd, 0))
		ret = -errno;
	close(rfd);
	if (!ret)
		*got = GRADE_FENCE_LANDLOCK | (abi >= 6 ? GRADE_FENCE_SCOPE : 0);
	return ret;
}

unsigned int grade_fence_probe(void)
{
	unsigned int got = 0;
	int abi;

	if (prctl(PR_GET_SECCOMP) >= 0 && seccomp_api_get() >= 1)
		got |= GRADE_FENCE_SECCOMP;
	abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0,
			   LANDLOCK_CREATE_RULESET_VERSION);
	if (abi >= 1)
		got |= GRADE_FENCE_LANDLOCK | (abi >= 6 ? GRADE_FENCE_SCOPE : 0);
	return got;
}

const char *grade_fence_name(unsigned int fences)
{
	static char buf[48];

	snprintf(buf, sizeof(buf), "%s%s%s%s",
		 fences & GRADE_FENCE_SECCOMP ? "seccomp" : "",
		 (fences & GRADE_FENCE_SECCOMP) && (fences & GRADE_FENCE_LANDLOCK) ? "+" : "",
		 fences & GRADE_FENCE_LANDLOCK ? "landlock" : "",
		 fences & GRADE_FENCE_SCOPE ? "(scoped)" : "");
	if (!buf[0])
		snprintf(buf, sizeof(buf), "none");
	return buf;
}
