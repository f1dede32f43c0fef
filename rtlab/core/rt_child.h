/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_child: every child process rtlab starts, run by one piece of code.
 *
 * Two forms share it. rt_child_run() starts a program (or a function in a
 * forked child), collects what it writes and waits for it with a deadline:
 * the doctor's probes, gzip, `qemu --version`. rt_child_start() returns a
 * handle for children that live while the caller does other work (QEMU,
 * trace-cmd record, load generators, the hog), which rt_child_wait(),
 * rt_child_signal() and rt_child_stop() then serve; rt_child_free() never
 * leaves one running.
 *
 * What every child gets:
 *   - its own process group (unless RT_CHILD_SAME_PGRP), so a signal from
 *     rt_child_signal() or rt_child_stop() reaches its own children too;
 *   - default signal handlers and an empty signal mask, whatever the
 *     starting thread had (a lab blocks SIGINT in its threads; the journal
 *     has handlers that are not the child's business);
 *   - descriptors 0, 1 and 2 as asked and, above them, only those listed
 *     in keep_fds: nothing else of the caller's leaks into it;
 *   - with RT_CHILD_DIE_WITH_PARENT, SIGKILL when the thread that started
 *     it ends (PR_SET_PDEATHSIG: the thread, not the process).
 * Between fork() and exec() the child makes only async-signal-safe calls,
 * since the caller may be multithreaded: everything (the program's path,
 * files, pipes) is prepared in the parent first. A program that cannot be
 * started is reported by rt_child_run() and rt_child_start() themselves,
 * as -errno with a cause, never as a child that exits 127.
 *
 * Output is read with poll() on both pipes at once, so a child that fills
 * one while we wait on the other cannot deadlock; each stream keeps at most
 * capture_max bytes and the rest is read and dropped. The child's end is
 * watched through a pidfd where the kernel has pidfd_open() (5.3), else by
 * waitid() in short steps. It is reaped only after the group has been
 * signalled, so a group id we signal is never a recycled one.
 *
 * Killing at a deadline (rt_child_run) or on request (rt_child_stop): the
 * given signal (SIGTERM) to the group, a grace period for the child to go,
 * then SIGKILL to the group, then at most RT_CHILD_REAP_MS more. A child
 * stuck in the kernel (KVM_RUN of a broken nested guest) may not die even
 * then: it is reported as unreaped, never waited for without bound.
 */
#ifndef RTLAB_CORE_RT_CHILD_H
#define RTLAB_CORE_RT_CHILD_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define RT_CHILD_CAPTURE_MAX (64u * 1024)	/* default bytes kept per captured stream */
#define RT_CHILD_GRACE_MS 200u		/* rt_child_run's deadline: SIGTERM, then SIGKILL */
#define RT_CHILD_REAP_MS 1000u		/* after SIGKILL, the most we wait for the child */
#define RT_CHILD_KEEP_MAX 8		/* entries of keep_fds */
#define RT_CHILD_FOREVER UINT_MAX	/* no time limit */

/* Flags of rt_child_opts. */
#define RT_CHILD_SAME_PGRP (1u << 0)	/* stay in the caller's process group (see below) */
#define RT_CHILD_DIE_WITH_PARENT (1u << 1) /* SIGKILL when the starting thread ends */
#define RT_CHILD_NEW_SESSION (1u << 2)	/* a session of its own: no controlling terminal */

/* Where one of the child's standard descriptors comes from. */
enum rt_child_io {
	RT_CHILD_INHERIT,	/* the caller's own (the default) */
	RT_CHILD_NULL,		/* /dev/null */
	RT_CHILD_CAPTURE,	/* stdout, stderr: a pipe read into rt_child_result */
	RT_CHILD_FD,		/* the caller's descriptor in_fd, out_fd or err_fd */
	RT_CHILD_FILE,		/* in_path (read), out_path or err_path (created or
				 * truncated, mode 0600), opened by the parent */
	RT_CHILD_TO_STDOUT,	/* stderr only: wherever stdout goes (2>&1) */
};

/**
 * struct rt_child_opts - what to start, and how
 * @argv: the program and its arguments, NULL-terminated; NULL with @fn
 * @path: the file to execute; NULL: argv[0], looked up in $PATH as execvp()
 *        does (rt_which_in()) when it has no '/'
 * @envp: the program's environment, NULL-terminated; NULL: the caller's
 * @fn: instead of a program, call @fn(@arg) in the forked child, which
 *      exits with its return value (& 0xff) through _exit(), so the
 *      caller's atexit handlers and stdio buffers are not run twice. @fn
 *      must keep to async-signal-safe calls when the caller has threads.
 * @in, @out, @err: the child's descriptors 0, 1 and 2
 * @in_fd, @out_fd, @err_fd: with RT_CHILD_FD; the caller keeps them
 * @in_path, @out_path, @err_path: with RT_CHILD_FILE
 * @capture_max: bytes kept per captured stream; 0: RT_CHILD_CAPTURE_MAX
 * @keep_fds: descriptors (>= 3) the child keeps under the same numbers,
 *            close-on-exec cleared (QEMU's -add-fd); at most
 *            RT_CHILD_KEEP_MAX
 * @nkeep: entries in @keep_fds
 * @flags: RT_CHILD_SAME_PGRP: for a child that must read the terminal
 *         (an interactive QEMU, a build script): a new group would be a
 *         background job and get SIGTTIN. Such a child is signalled by its
 *         pid alone, and Ctrl-C reaches it with the caller.
 *         RT_CHILD_DIE_WITH_PARENT: as above.
 *         RT_CHILD_NEW_SESSION: setsid() instead of a new group (which it
 *         also is): untrusted or semi-trusted code (the grader's check
 *         program) must not reach the caller's terminal, e.g. type into
 *         it with TIOCSTI. Not with RT_CHILD_SAME_PGRP.
 * @on_start: rt_child_run() only: called in the caller with the child's
 *            pid (its group) once it runs, e.g. to register it with a stop
 *            handler; @on_start_arg is passed on
 *
 * Zero is a sensible default for every field but @argv/@fn.
 */
struct rt_child_opts {
	char *const *argv;
	const char *path;
	char *const *envp;
	int (*fn)(void *arg);
	void *arg;
	enum rt_child_io in, out, err;
	int in_fd, out_fd, err_fd;
	const char *in_path, *out_path, *err_path;
	size_t capture_max;
	const int *keep_fds;
	unsigned int nkeep;
	unsigned int flags;
	void (*on_start)(void *arg, pid_t pid);
	void *on_start_arg;
};

enum rt_child_end {
	RT_CHILD_RUNNING,	/* not ended yet: rt_child_wait() ran out of time */
	RT_CHILD_EXITED,	/* code = exit status */
	RT_CHILD_SIGNALED,	/* code = the signal that ended it */
	RT_CHILD_TIMEOUT,	/* rt_child_run() killed it at the deadline; code = the
				 * signal that ended it, else 0 */
};

/**
 * struct rt_child_result - how a child ended and what it wrote
 * @end: see enum rt_child_end
 * @code: exit status or signal number
 * @unreaped: killed, but still not gone RT_CHILD_REAP_MS after SIGKILL
 *            (stuck in the kernel); it is left behind
 * @pid: the child's process id (and group id, unless RT_CHILD_SAME_PGRP)
 * @out, @err: owned; what the child wrote to a captured stdout (with
 *             stderr too for RT_CHILD_TO_STDOUT) and stderr, NUL-terminated
 *             (the bytes may hold NULs: use the lengths); "" when not
 *             captured; NULL only while @end is RT_CHILD_RUNNING
 * @out_len, @err_len: their lengths
 * @out_cut, @err_cut: the child wrote more than capture_max; the rest was
 *                     dropped
 *
 * Release with rt_child_result_fini().
 */
struct rt_child_result {
	enum rt_child_end end;
	int code;
	bool unreaped;
	pid_t pid;
	char *out, *err;
	size_t out_len, err_len;
	bool out_cut, err_cut;
};

struct rt_child;

/**
 * rt_child_run - start a child, collect its output, wait for it with a deadline
 * @o: what to start
 * @timeout_ms: the deadline for the whole run, from now; then the group is
 *              sent SIGTERM, RT_CHILD_GRACE_MS later SIGKILL. RT_CHILD_FOREVER:
 *              none (a build the learner watches and may interrupt)
 * @res: filled in when 0 is returned; release with rt_child_result_fini()
 * @cause: on failure, why (may be NULL)
 *
 * Returns 0 once the child has ended or was killed, whatever its end (see
 * @res->end), or a negative errno: -ENOENT and the like when the program
 * could not be started ("cannot run ...: No such file or directory"),
 * -EINVAL for bad options, -ENOMEM.
 */
int rt_child_run(const struct rt_child_opts *o, unsigned int timeout_ms,
		 struct rt_child_result *res, char **cause);

/**
 * rt_child_start - start a child and return at once
 * @o: what to start
 * @cause: on failure, why (may be NULL)
 *
 * Returns once the child runs the program (or @o->fn), so a program that
 * cannot be started fails here. Captured output is read only while the
 * caller waits (rt_child_wait()): a long-lived child that writes much
 * should write to a file or /dev/null instead. Returns the handle, or NULL
 * with errno set; end it with rt_child_stop() and/or rt_child_free().
 */
struct rt_child *rt_child_start(const struct rt_child_opts *o, char **cause);

/* The child's pid; it stays the same after the child has been reaped. */
pid_t rt_child_pid(const struct rt_child *c);

/**
 * rt_child_signal - send @sig to the child's process group
 *
 * The child alone with RT_CHILD_SAME_PGRP. Returns 0, -ESRCH once the
 * child has been reaped, or a negative errno from kill().
 */
int rt_child_signal(struct rt_child *c, int sig);

/**
 * rt_child_wait - wait for the child to end
 * @timeout_ms: the most to wait; 0 only looks; RT_CHILD_FOREVER
 * @res: if not NULL, filled in (release with rt_child_result_fini()): the
 *       end and the captured output when 0 is returned (the output only
 *       the first time), else just @res->end == RT_CHILD_RUNNING
 *
 * Reads captured output meanwhile. Returns 0 when the child has ended and
 * has been reaped (again 0, same end, on later calls), -ETIMEDOUT while it
 * runs, -ECHILD if someone else reaped it (SIGCHLD set to SIG_IGN).
 */
int rt_child_wait(struct rt_child *c, unsigned int timeout_ms, struct rt_child_result *res);

/**
 * rt_child_stop - end the child: @sig, a grace period, SIGKILL, reap
 * @sig: the first signal to the group (SIGTERM; SIGINT for trace-cmd);
 *       SIGKILL skips the grace period
 * @grace_ms: how long the child may take to end after @sig
 * @res: as for rt_child_wait()
 *
 * After the grace period the whole group gets SIGKILL, even when the child
 * itself ended in time (or before the call), so nothing it started
 * outlives it; with RT_CHILD_SAME_PGRP only a child still running is
 * signalled. Returns 0, or -ETIMEDOUT when the child is still not gone
 * RT_CHILD_REAP_MS after SIGKILL (@res->unreaped).
 */
int rt_child_stop(struct rt_child *c, int sig, unsigned int grace_ms,
		  struct rt_child_result *res);

/**
 * rt_child_free - release @c, killing the child's group first if it still runs
 *
 * A child that still runs gets SIGKILL (its group) and is reaped within
 * RT_CHILD_REAP_MS. NULL does nothing.
 */
void rt_child_free(struct rt_child *c);

/* Free what @res owns; fine on a zeroed or already finished result. */
void rt_child_result_fini(struct rt_child_result *res);

#endif
