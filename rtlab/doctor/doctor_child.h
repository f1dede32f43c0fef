/*
 * doctor_child: run a probe in a child process with a hard time limit.
 *
 * Probes that can hang (a nested KVM guest), that change process-wide state
 * (unshare, SCHED_FIFO) or that run other programs (ip, qemu) run in a child.
 * The child gets its own process group; its standard output and error go to
 * a pipe the parent reads. When the limit passes, the parent kills that
 * group by its id and reaps the child, waiting at most one more second (a
 * child stuck in the kernel may not die at once: it is then reported, never
 * waited for without bound).
 */
#ifndef RTLAB_DOCTOR_DOCTOR_CHILD_H
#define RTLAB_DOCTOR_DOCTOR_CHILD_H

#include <stdbool.h>
#include <sys/types.h>

enum doctor_child_end {
	DOCTOR_CHILD_EXITED,	/* code = exit status */
	DOCTOR_CHILD_SIGNALED,	/* code = signal number */
	DOCTOR_CHILD_TIMEOUT,	/* killed after the limit */
};

struct doctor_child_result {
	enum doctor_child_end end;
	int code;
	bool unreaped;		/* killed but not yet gone: stuck in the kernel */
	pid_t pid;
	char *output;		/* owned; what the child wrote (capped at 64 KiB), never NULL */
};

/**
 * doctor_child_exec - run @argv (argv[0] looked up in PATH) with a time limit
 * @timeout_ms: limit for the whole run
 * @res: filled in; release with doctor_child_result_fini()
 *
 * Standard input is /dev/null. A program that cannot be started exits 127
 * with the reason in its output. Returns 0 when the child was started
 * (whatever became of it), or a negative errno.
 */
int doctor_child_exec(char *const argv[], unsigned int timeout_ms,
		      struct doctor_child_result *res);

/**
 * doctor_child_call - run @fn(@arg) in a forked child with a time limit
 *
 * @fn runs with standard output and error on the pipe and reports by
 * writing to fd 1 (write(2), not stdio); its return value is the exit code.
 * The child ends with _exit(), so the parent's stdio buffers are not
 * flushed twice. Returns as doctor_child_exec().
 */
int doctor_child_call(int (*fn)(void *arg), void *arg, unsigned int timeout_ms,
		      struct doctor_child_result *res);

void doctor_child_result_fini(struct doctor_child_result *res);

/**
 * doctor_which - find @prog in $PATH (or the default path) like a shell
 *
 * Returns an executable's path the caller frees, or NULL (errno ENOENT).
 */
char *doctor_which(const char *prog);

#endif
