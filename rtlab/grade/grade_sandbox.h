/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_sandbox: running untrusted code (a learner's build, a subject) in
 * a child that cannot reach the grader, the reference, or anyone else.
 *
 * One job (a learner's submission of one exercise) gets a box: a private
 * folder holding job/ (the subject's sources and binary, the only project
 * folder the untrusted code sees) and root/ (the mount point of its own
 * file system). Each run in it, compiling or running the subject, is a
 * fresh child:
 *
 *   - new mount, PID, network (loopback only), IPC and UTS namespaces, and
 *     a new user namespace when rtlab is not root; whichever the kernel
 *     refuses is left out and the run says so (isolation);
 *   - with a mount namespace, a root of its own: /usr, /bin, /lib*, /etc
 *     read-only, /dev/{null,zero,full,random,urandom}, a /proc of its PID
 *     namespace (none without one), a private /tmp, and job/ as /job, its
 *     working directory: no home, no labs/, no reference/, no other
 *     student. On an initramfs root (the classroom VM), which pivot_root
 *     cannot leave, the new root is moved over it and chrooted into;
 *   - when rtlab is root, the box's own unprivileged uid and gid, no
 *     supplementary groups, no new privileges;
 *   - rlimits: CPU, address space, file size, processes, no core dump,
 *     RLIMIT_RTPRIO and RLIMIT_MEMLOCK only as granted (0 otherwise);
 *   - a wall-clock limit and an output cap, past which the whole run (every
 *     process it started) is killed;
 *   - an empty environment but PATH, HOME, TMPDIR and LC_ALL;
 *   - a session of its own, with no controlling terminal (nothing it does
 *     reaches the grader's terminal), stdin from /dev/null or a sealed
 *     memfd, and no descriptor of the grader's but its own pipes;
 *   - rtlab's data folders (the installed labs with their checks, data and
 *     references) hidden under an empty folder in its own root;
 *   - the fences of grade_fence.h, in every mode: a system-call filter and,
 *     where the kernel has Landlock, a file fence that also keeps it from
 *     /proc/PID of, ptrace of and signals to any process outside the run.
 *
 * The child that sets this up is the PID namespace's init: it starts the
 * program, reaps what the program leaves, reports the program's stops
 * (raise(SIGSTOP): VmLck, scheduling policy, RT priority, as the kernel
 * says) and its end with its CPU time, then exits, which kills everything
 * left in the namespace. Without a PID namespace, what the program leaves
 * is killed by its process group and, when the box has its own uid, by a
 * kill(-1) as that uid.
 *
 * A box's settings travel to `rtlab grade --run-subject` (the runner a check
 * program calls) as a string: grade_sandbox_spec() and grade_sandbox_parse().
 */
#ifndef RTLAB_GRADE_GRADE_SANDBOX_H
#define RTLAB_GRADE_GRADE_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "grade/grade_manifest.h"

/* Namespaces a run may get (grade_sandbox.ns); GRADE_NS_ALL tries them all. */
#define GRADE_NS_USER (1u << 0)
#define GRADE_NS_MOUNT (1u << 1)
#define GRADE_NS_PID (1u << 2)
#define GRADE_NS_NET (1u << 3)
#define GRADE_NS_IPC (1u << 4)
#define GRADE_NS_UTS (1u << 5)
#define GRADE_NS_ALL 0x3fu

#define GRADE_UID_BASE 2000000u		/* the first box uid when rtlab is root */
#define GRADE_ERR_MAX (64u * 1024)	/* stderr kept of a run */
#define GRADE_ENV_SANDBOX "RTLAB_CHECK_SANDBOX"

/* A job's box. Strings owned. */
struct grade_sandbox {
	char *box;		/* the private folder (0711 when it drops to a uid, else 0700) */
	char *job;		/* box/job: the untrusted code's folder, /job inside */
	char *root;		/* box/root: the mount point of its file system */
	char *tmp;		/* box/tmp: its TMPDIR when there is no mount namespace */
	bool drop;		/* run as uid/gid (rtlab is root) */
	uid_t uid;
	gid_t gid;
	unsigned int ns;	/* GRADE_NS_* to try */
	struct grade_limits lim;	/* of one run of the subject */
	unsigned int rtprio_max;	/* the most RLIMIT_RTPRIO a run may get; 0: none */
	unsigned int memlock_kb_max;	/* the most RLIMIT_MEMLOCK a run may get; 0: none */
	bool keep;		/* grade_sandbox_fini() leaves the box (debugging) */
};

/* One run in a box. */
struct grade_run_req {
	const char *const *argv;	/* argv[0]: a program in the job folder ("./subject") or
					 * a system one ("cc", looked up in /usr/bin:/bin) */
	int in_fd;			/* its stdin (read from; a memfd or file), or -1: empty */
	struct grade_limits lim;	/* the limits of this run */
	size_t err_max;			/* stderr kept; 0: GRADE_ERR_MAX */
	unsigned int rtprio;		/* RLIMIT_RTPRIO, at most the box's rtprio_max */
	unsigned int memlock_kb;	/* RLIMIT_MEMLOCK, at most the box's memlock_kb_max */
	bool job_writable;		/* /job writable (a build), else read-only */
};

/* How a run ended. */
struct grade_run_res {
	char *out, *err;		/* owned, NUL-terminated, capped */
	size_t out_len, err_len;
	bool out_cut, err_cut;		/* out_cut: the run was ended at the cap */
	int exit_code;			/* or -1 */
	int signal;			/* or 0 */
	bool timed_out, cpu_limit, fsize_limit;
	unsigned int nstops;
	long vmlck_kb;			/* at the last stop, else -1 */
	int policy, rtprio;		/* at the last stop, else -1 */
	double wall_s, cpu_s;
	unsigned int ns;		/* the namespaces it got */
	unsigned int fences;		/* GRADE_FENCE_* it got (grade/grade_fence.h) */
	char reason[256];		/* how it ended, for a person */
};

/**
 * grade_sandbox_new - make a job's box
 * @sb: the caller's storage; release with grade_sandbox_fini()
 * @tmpdir: where the box goes; NULL: $TMPDIR, else /tmp
 * @slot: which box uid when rtlab is root (GRADE_UID_BASE + 1 + @slot), so
 *        parallel jobs never share a uid (grade_slot_base())
 * @lim: the limits of a run of the subject
 * @ns: GRADE_NS_* to try (GRADE_NS_ALL; 0 for none)
 *
 * Grants RLIMIT_RTPRIO and RLIMIT_MEMLOCK up to what rtlab can give (root:
 * 99 and 1 GiB; else the current hard limits). Returns 0 or a negative
 * errno with @cause.
 */
int grade_sandbox_new(struct grade_sandbox *sb, const char *tmpdir, unsigned int slot,
		      const struct grade_limits *lim, unsigned int ns, char **cause);

/* grade_sandbox_fini - remove the box (unless keep) and free; zeroed. NULL and zeroed are fine. */
void grade_sandbox_fini(struct grade_sandbox *sb);

/**
 * grade_sandbox_give - hand the job folder's files to the box's uid
 *
 * After the harness has copied the files in: job/ and what it holds become
 * the box uid's (when it drops to one). Returns 0 or a negative errno.
 */
int grade_sandbox_give(const struct grade_sandbox *sb, char **cause);

/**
 * grade_sandbox_run - run one program in the box and wait for its end
 * @req: what to run
 * @res: filled when 0 is returned; release with grade_run_res_fini()
 *
 * Single-threaded callers only (it forks and the child sets up namespaces
 * before exec). Returns 0 once the program ended, however (see @res), or a
 * negative errno with @cause when the sandbox itself could not be made.
 */
int grade_sandbox_run(const struct grade_sandbox *sb, const struct grade_run_req *req,
		      struct grade_run_res *res, char **cause);

void grade_run_res_fini(struct grade_run_res *res);

/* The namespaces a run in @sb gets: what it asks for, as far as the kernel allows. */
unsigned int grade_sandbox_ns(const struct grade_sandbox *sb);

/* The namespaces of @ns as "user+mount+pid+net+ipc+uts", or "none". */
const char *grade_ns_name(unsigned int ns, char buf[64]);

/**
 * grade_sandbox_isolated - whether a run could reach the grader
 * @ns, @fences: what a run got (grade_run_res.ns and .fences)
 *
 * False when the run is the grader's own uid with neither a mount namespace
 * nor Landlock: it could open the grader's /proc/PID/fd, write its verdict
 * pipes and replace the class's check program. Such a grade is labelled
 * unisolated, and class mode refuses it unless told otherwise.
 */
bool grade_sandbox_isolated(const struct grade_sandbox *sb, unsigned int ns, unsigned int fences);

/* Whether a box asking for namespaces @ns would be isolated here (before making one). */
bool grade_sandbox_would_isolate(unsigned int ns);

/**
 * grade_sandbox_describe - what the box gives a run, for reports
 * @ns: the namespaces a run got (grade_run_res.ns)
 * @fences: the fences it got (grade_run_res.fences)
 *
 * "own uid 2000001; namespaces: mount+pid+...; fences: seccomp+landlock;
 * rlimits: ...", opening with "UNISOLATED ..." when grade_sandbox_isolated()
 * says no. Returns a string the caller frees, or NULL.
 */
char *grade_sandbox_describe(const struct grade_sandbox *sb, unsigned int ns, unsigned int fences);

/* grade_sandbox_spec - @sb as the string `rtlab grade --run-subject` reads. Caller frees. */
char *grade_sandbox_spec(const struct grade_sandbox *sb);

/**
 * grade_sandbox_parse - a box from grade_sandbox_spec()'s string
 * @sb: filled (keep is set: the runner never removes the box)
 *
 * Returns 0 or -EINVAL with @cause.
 */
int grade_sandbox_parse(const char *spec, struct grade_sandbox *sb, char **cause);

/* True when the grader can grant @need (GRADE_NEED_*) to a run of @sb. */
bool grade_sandbox_can(const struct grade_sandbox *sb, unsigned int need);

/**
 * grade_sweep_left - remove the boxes and class folders of killed graders
 * @tmpdir: where they are; NULL: $TMPDIR, else /tmp
 *
 * A grader names its folders rtlab-grade.PID.* and rtlab-class.PID.*; a
 * grader killed by SIGKILL (or the machine's end) cannot remove them. Those
 * of this uid whose PID no longer runs are removed. Returns how many.
 */
int grade_sweep_left(const char *tmpdir);

/* grade_rm_rf - remove @path and what it holds, never following a link. */
int grade_rm_rf(const char *path);

#endif
