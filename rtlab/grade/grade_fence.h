/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_fence: the two fences a sandboxed run puts up around itself just
 * before it executes untrusted code, whatever namespaces it got.
 *
 *   - a system-call filter (seccomp, through libseccomp) that refuses with
 *     EPERM what no exercise needs and an attacker wants: new namespaces
 *     (unshare, setns, clone with CLONE_NEW*), mounts, bpf, keyrings,
 *     ptrace and process_vm_*, perf_event_open, module loading, kexec,
 *     io_uring, userfaultfd, TIOCSTI/TIOCLINUX (typing into a terminal),
 *     clock setting and the like; clone3 fails with ENOSYS so that glibc
 *     falls back to clone, whose flags the filter can read. Threads,
 *     SCHED_FIFO (where the rlimit grants it), mlock and clocks stay.
 *   - a file and scope fence (Landlock, where the kernel has it): the
 *     system's program and library folders read-only, the job folder and
 *     the run's temporary folder writable, a few devices, and nothing else:
 *     no rtlab data folder (references, checks, their data), no home, no
 *     other student, even without a mount namespace. Landlock also keeps
 *     the run from ptracing (hence from /proc/PID/fd of) any process
 *     outside it, and, from ABI 6, from signalling one; TCP is refused
 *     where the run has no network namespace of its own.
 *
 * Both are applied in the run's own process after its ids and rlimits are
 * set and before execve(); both survive the exec and bind every child.
 */
#ifndef RTLAB_GRADE_GRADE_FENCE_H
#define RTLAB_GRADE_GRADE_FENCE_H

#include <stdbool.h>

/* Fences a run got (grade_run_res.fences). */
#define GRADE_FENCE_SECCOMP (1u << 0)	/* the system-call filter */
#define GRADE_FENCE_LANDLOCK (1u << 1)	/* the file fence */
#define GRADE_FENCE_SCOPE (1u << 2)	/* Landlock's signal and abstract-socket scope */

/* What grade_fence_landlock() lets a run reach. Paths as the run sees them. */
struct grade_fence_paths {
	const char *job;	/* read-write (NULL: none) */
	const char *tmp;	/* read-write */
	bool job_readonly;	/* the job folder only read and executed */
	bool no_tcp;		/* refuse TCP bind and connect (no network namespace) */
};

/**
 * grade_fence_seccomp - install the system-call filter in this process
 *
 * Sets no_new_privs. Returns 0, or a negative errno: -ENOSYS when the
 * kernel has no seccomp filter mode (the run goes on without it and says
 * so), -ENOMEM. Async-signal-unsafe only in libseccomp's allocations: call
 * it in a forked, single-threaded child.
 */
int grade_fence_seccomp(void);

/**
 * grade_fence_landlock - restrict this process's file access as @p says
 * @p: the writable folders and options
 * @got: GRADE_FENCE_LANDLOCK, with GRADE_FENCE_SCOPE when the kernel's
 *       ABI has scopes; 0 when it has no Landlock
 *
 * Returns 0 (with *@got 0 when Landlock is absent or disabled), or a
 * negative errno when the kernel has it but a rule could not be made.
 */
int grade_fence_landlock(const struct grade_fence_paths *p, unsigned int *got);

/*
 * grade_fence_probe - the fences a run here would get, without making one:
 * GRADE_FENCE_SECCOMP when the kernel has seccomp filters, Landlock's bits
 * when it has Landlock (for a prebuilt subject, which nothing built here).
 */
unsigned int grade_fence_probe(void);

/* "seccomp+landlock(scoped)" for @fences, or "none". Static buffer. */
const char *grade_fence_name(unsigned int fences);

#endif
