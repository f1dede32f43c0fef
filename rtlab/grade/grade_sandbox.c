/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_sandbox: the box a submission is built and run in (see the header
 * for what it gives and takes away).
 *
 * A run is three processes deep. The grader forks F, which unshares the
 * namespaces (and maps its own uid when it made a user namespace), then
 * forks I: the PID namespace's init, which builds the file system, starts
 * the program S and waits for it. F only waits for I, so that the grader's
 * direct child is in the grader's PID namespace and can be killed as one
 * process group; I reports to the grader through a pipe (fixed-size
 * messages, each written whole), S only writes to its stdout and stderr.
 *
 * Everything F, I and S need (paths, argv, envp, mount list) is prepared
 * before the fork. The grader is single-threaded when it calls this (class
 * mode runs one process per job), so the children may use the C library.
 */
#include "grade_sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/rt_err.h"
#include "core/rt_file.h"
#include "core/rt_paths.h"
#include "core/rt_which.h"
#include "grade/grade_fence.h"
#include "grade/grade_stop.h"

#define KILL_WAIT_MS 3000u	/* after SIGKILL, the most we wait for the run's end */
#define DRAIN_MS 300u		/* after the end, the most we read what is left in the pipes */
#define ERR_KILL_FACTOR 16	/* stderr beyond err_max * this ends the run */
#define MAX_ARGS 256

/* ---- Messages from the init (I) to the grader ------------------------------------ */

enum sb_step {
	STEP_UNSHARE, STEP_USERMAP, STEP_FORK, STEP_PRIVATE, STEP_ROOT, STEP_BIND, STEP_DEV,
	STEP_PROC, STEP_TMP, STEP_JOB, STEP_PIVOT, STEP_CHDIR, STEP_RLIMIT, STEP_IDS,
	STEP_FENCE, STEP_SESSION, STEP_HIDE, STEP_EXEC,
};

static const char *const step_names[] = {
	[STEP_UNSHARE] = "unshare", [STEP_USERMAP] = "map the user namespace's ids",
	[STEP_FORK] = "fork", [STEP_PRIVATE] = "make the mounts private",
	[STEP_ROOT] = "mount its root", [STEP_BIND] = "bind the system folders",
	[STEP_DEV] = "bind /dev", [STEP_PROC] = "mount /proc", [STEP_TMP] = "mount /tmp",
	[STEP_JOB] = "bind the job folder", [STEP_PIVOT] = "pivot_root",
	[STEP_CHDIR] = "enter the job folder", [STEP_RLIMIT] = "set the rlimits",
	[STEP_IDS] = "drop to the box's uid", [STEP_FENCE] = "put up the Landlock fence",
	[STEP_SESSION] = "leave the grader's session",
	[STEP_HIDE] = "hide rtlab's data folder", [STEP_EXEC] = "start the program",
};

struct sb_msg {
	char kind;		/* 'P' started, 'S' stopped, 'X' ended, 'E' setup failed,
				 * 'F' fenced (just before exec) */
	int a, b, c;		/* P: pid, ns. S: policy, prio. X: signaled, code. E: step, errno.
				 * F: GRADE_FENCE_* */
	long d;			/* S: VmLck kB. X: CPU ms */
};

/* ---- What the children need, prepared before the fork ---------------------------- */

#define NSYS 8
#define NDEV 6
#define NHIDE 4

struct sb_sys {
	char *dst;		/* root/<name> */
	char *src;		/* /<name> */
	char *link;		/* a symbolic link's target (merged /usr), or NULL: bind */
};

struct sb_child {
	const struct grade_sandbox *sb;
	const struct grade_run_req *req;
	unsigned int ns;
	int in_fd, out_fd, err_fd, st_fd;
	char *path;			/* the program to execute, as the run sees it */
	char *argv[MAX_ARGS + 1];	/* borrowed strings */
	char *envp[5];			/* owned */
	char *workdir;			/* the run's working directory */
	char *uid_map, *gid_map;
	char *tmp_opts;
	struct sb_sys sys[NSYS];
	size_t nsys;
	char *dev_dst[NDEV];
	char *hide[NHIDE];		/* rtlab's data folders under a bound one, in root/ */
	size_t nhide;
	char *proc_dst, *tmp_dst, *job_dst, *dev_dir;
};

static const char *const sys_dirs[NSYS] = { "usr", "bin", "sbin", "lib", "lib32", "lib64",
					    "libx32", "etc" };
/* /dev/tty too, so that a run opens it and finds no terminal (ENXIO), as it would outside. */
static const char *const dev_names[NDEV] = { "null", "zero", "full", "random", "urandom", "tty" };

/*
 * Where an installed rtlab keeps its data (labs with their checks, data/
 * and, with WITH_SOLUTIONS=1, references): hidden in the run's root even
 * though /usr is bound into it. The folder the running rtlab reads
 * (RTLAB_DATADIR, the install prefix or a source tree) is added to these.
 */
static const char *const data_dirs[] = { "/usr/local/share/rtlab", "/usr/share/rtlab" };

static char *path_join(const char *a, const char *b)
{
	char *s;

	return asprintf(&s, "%s/%s", a, b) < 0 ? NULL : s;
}

static void child_fini(struct sb_child *c)
{
	free(c->path);
	for (size_t i = 0; i < 4; i++)
		free(c->envp[i]);
	free(c->workdir);
	free(c->uid_map);
	free(c->gid_map);
	free(c->tmp_opts);
	for (size_t i = 0; i < c->nsys; i++) {
		free(c->sys[i].dst);
		free(c->sys[i].src);
		free(c->sys[i].link);
	}
	for (size_t i = 0; i < NDEV; i++)
		free(c->dev_dst[i]);
	for (size_t i = 0; i < c->nhide; i++)
		free(c->hide[i]);
	free(c->proc_dst);
	free(c->tmp_dst);
	free(c->job_dst);
	free(c->dev_dir);
}

/* True when @path is @dir or inside it. */
static bool path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

/* The data folders that exist and lie in a bound system folder: root/<path> to mask. */
static int hide_prepare(struct sb_child *c)
{
	const char *cand[NHIDE];
	char *own = rt_paths_data_dir(), real[PATH_MAX];
	size_t n = 0;
	int ret = 0;

	for (size_t i = 0; i < sizeof(data_dirs) / sizeof(data_dirs[0]); i++)
		cand[n++] = data_dirs[i];
	if (own)
		cand[n++] = own;
	for (size_t i = 0; !ret && i < n && c->nhide < NHIDE; i++) {
		bool bound = false, dup = false;

		if (!realpath(cand[i], real))
			continue;
		for (size_t k = 0; k < NSYS; k++) {
			char top[16];

			snprintf(top, sizeof(top), "/%s", sys_dirs[k]);
			bound |= path_under(real, top);
		}
		for (size_t k = 0; k < c->nhide; k++)
			dup |= !strcmp(c->hide[k] + strlen(c->sb->root), real);
		if (!bound || dup)
			continue;
		if (asprintf(&c->hide[c->nhide], "%s%s", c->sb->root, real) < 0)
			ret = -ENOMEM;
		else
			c->nhide++;
	}
	free(own);
	return ret;
}

static int child_prepare(struct sb_child *c, char **cause)
{
	const struct grade_sandbox *sb = c->sb;
	const char *prog = c->req->argv[0];
	bool mnt = c->ns & GRADE_NS_MOUNT;
	const char *home = mnt ? "/tmp" : sb->tmp;
	size_t n = 0;

	while (c->req->argv[n] && n < MAX_ARGS) {
		c->argv[n] = (char *)c->req->argv[n];
		n++;
	}
	if (!n || c->req->argv[n])
		return rt_err(cause, -EINVAL, "sandbox: no program, or more than %d arguments",
			      MAX_ARGS);
	if (strchr(prog, '/')) {
		/* In the job folder: "./subject". */
		if (asprintf(&c->path, "%s/%s", mnt ? "/job" : sb->job,
			     prog + (prog[0] == '.' && prog[1] == '/' ? 2 : 0)) < 0)
			c->path = NULL;
	} else {
		c->path = rt_which_in(prog, "/usr/bin:/bin");
		if (!c->path)
			return rt_err(cause, -ENOENT, "sandbox: %s is not installed in /usr/bin "
				      "or /bin", prog);
	}
	c->workdir = strdup(mnt ? "/job" : sb->job);
	if (asprintf(&c->envp[0], "PATH=/usr/bin:/bin") < 0 ||
	    asprintf(&c->envp[1], "HOME=%s", home) < 0 ||
	    asprintf(&c->envp[2], "TMPDIR=%s", home) < 0 ||
	    asprintf(&c->envp[3], "LC_ALL=C") < 0)
		return -ENOMEM;
	if (asprintf(&c->uid_map, "%u %u 1\n", (unsigned)geteuid(), (unsigned)geteuid()) < 0 ||
	    asprintf(&c->gid_map, "%u %u 1\n", (unsigned)getegid(), (unsigned)getegid()) < 0 ||
	    asprintf(&c->tmp_opts, "size=%um,mode=1777",
		     c->req->lim.fsize_mb * 4 > 1024 ? 1024 : c->req->lim.fsize_mb * 4 < 16 ? 16 :
		     c->req->lim.fsize_mb * 4) < 0)
		return -ENOMEM;
	if (!c->path || !c->workdir)
		return -ENOMEM;
	if (!mnt)
		return 0;
	for (size_t i = 0; i < NSYS; i++) {
		struct sb_sys *s = &c->sys[c->nsys];
		char target[PATH_MAX];
		struct stat st;
		ssize_t len;

		if (asprintf(&s->src, "/%s", sys_dirs[i]) < 0)
			return -ENOMEM;
		if (lstat(s->src, &st) || !(S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode))) {
			free(s->src);
			s->src = NULL;
			continue;
		}
		if (S_ISLNK(st.st_mode)) {
			len = readlink(s->src, target, sizeof(target) - 1);
			if (len <= 0) {
				free(s->src);
				s->src = NULL;
				continue;
			}
			target[len] = '\0';
			s->link = strdup(target);
		}
		s->dst = path_join(sb->root, sys_dirs[i]);
		c->nsys++;
		if (!s->dst || (S_ISLNK(st.st_mode) && !s->link))
			return -ENOMEM;
	}
	c->dev_dir = path_join(sb->root, "dev");
	for (size_t i = 0; i < NDEV; i++)
		if (asprintf(&c->dev_dst[i], "%s/dev/%s", sb->root, dev_names[i]) < 0)
			return -ENOMEM;
	if (hide_prepare(c))
		return -ENOMEM;
	c->proc_dst = path_join(sb->root, "proc");
	c->tmp_dst = path_join(sb->root, "tmp");
	c->job_dst = path_join(sb->root, "job");
	return c->dev_dir && c->proc_dst && c->tmp_dst && c->job_dst ? 0 : -ENOMEM;
}

/* ---- In the children --------------------------------------------------------------- */

static void send_msg(int fd, char kind, int a, int b, int c, long d)
{
	struct sb_msg m;
	ssize_t w;

	memset(&m, 0, sizeof(m));	/* no uninitialised padding goes down the pipe */
	m.kind = kind;
	m.a = a;
	m.b = b;
	m.c = c;
	m.d = d;

	do
		w = write(fd, &m, sizeof(m));
	while (w < 0 && errno == EINTR);
}

static __attribute__((noreturn)) void die_step(int fd, enum sb_step step)
{
	send_msg(fd, 'E', step, errno, 0, 0);
	_exit(126);
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* The flags a read-only remount of the mount at @path must keep (locked in a user namespace). */
static unsigned long kept_flags(const char *path)
{
	unsigned long f = 0;
	struct statvfs v;

	if (statvfs(path, &v))
		return 0;
	if (v.f_flag & ST_NOSUID)
		f |= MS_NOSUID;
	if (v.f_flag & ST_NODEV)
		f |= MS_NODEV;
	if (v.f_flag & ST_NOEXEC)
		f |= MS_NOEXEC;
	if (v.f_flag & ST_NOATIME)
		f |= MS_NOATIME;
	if (v.f_flag & ST_NODIRATIME)
		f |= MS_NODIRATIME;
	if (v.f_flag & ST_RELATIME)
		f |= MS_RELATIME;
	return f;
}

static int bind_ro(const char *src, const char *dst, bool rec)
{
	if (mount(src, dst, NULL, MS_BIND | (rec ? MS_REC : 0), NULL))
		return -1;
	return mount(NULL, dst, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID |
		     kept_flags(dst), NULL);
}

/* The run's own root: system folders read-only, /dev, /proc, /tmp, /job; then pivot_root. */
static void build_root(const struct sb_child *c)
{
	const struct grade_sandbox *sb = c->sb;
	int fd = c->st_fd;

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		die_step(fd, STEP_PRIVATE);
	if (mount("rtlab-sandbox", sb->root, "tmpfs", MS_NOSUID, "size=1m,mode=0755"))
		die_step(fd, STEP_ROOT);
	for (size_t i = 0; i < c->nsys; i++) {
		const struct sb_sys *s = &c->sys[i];

		if (s->link) {
			if (symlink(s->link, s->dst))
				die_step(fd, STEP_BIND);
		} else if (mkdir(s->dst, 0755) || bind_ro(s->src, s->dst, true)) {
			die_step(fd, STEP_BIND);
		}
	}
	if (mkdir(c->dev_dir, 0755))
		die_step(fd, STEP_DEV);
	for (size_t i = 0; i < NDEV; i++) {
		char src[32];
		int f;

		snprintf(src, sizeof(src), "/dev/%s", dev_names[i]);
		/* /dev/tty only where the machine has one (a container may not). */
		if (!strcmp(dev_names[i], "tty") && access(src, F_OK))
			continue;
		f = open(c->dev_dst[i], O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
		if (f < 0)
			die_step(fd, STEP_DEV);
		close(f);
		if (mount(src, c->dev_dst[i], NULL, MS_BIND, NULL))
			die_step(fd, STEP_DEV);
	}
	/* An empty, read-only folder over each of rtlab's data folders. */
	for (size_t i = 0; i < c->nhide; i++)
		if (mount("rtlab-hidden", c->hide[i], "tmpfs",
			  MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=0555"))
			die_step(fd, STEP_HIDE);
	/* Without a PID namespace, no /proc: the host's would show every process. */
	if (mkdir(c->proc_dst, 0555))
		die_step(fd, STEP_PROC);
	if ((c->ns & GRADE_NS_PID) &&
	    mount("proc", c->proc_dst, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		die_step(fd, STEP_PROC);
	if (mkdir(c->tmp_dst, 01777) ||
	    mount("tmpfs", c->tmp_dst, "tmpfs", MS_NOSUID | MS_NODEV, c->tmp_opts))
		die_step(fd, STEP_TMP);
	if (mkdir(c->job_dst, 0755) || mount(sb->job, c->job_dst, NULL, MS_BIND, NULL))
		die_step(fd, STEP_JOB);
	if (!c->req->job_writable &&
	    mount(NULL, c->job_dst, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID |
		  MS_NODEV | kept_flags(c->job_dst), NULL))
		die_step(fd, STEP_JOB);
	if (chdir(sb->root))
		die_step(fd, STEP_PIVOT);
	if (!syscall(SYS_pivot_root, ".", ".")) {
		if (umount2(".", MNT_DETACH))
			die_step(fd, STEP_PIVOT);
	} else if (errno == EINVAL) {
		/*
		 * The root is the initramfs (the classroom VM), which pivot_root
		 * cannot leave: move the new root over it and chroot, as
		 * switch_root does. The program runs without privileges, so it
		 * cannot climb out of the chroot.
		 */
		if (mount(".", "/", NULL, MS_MOVE, NULL) || chroot("."))
			die_step(fd, STEP_PIVOT);
	} else {
		die_step(fd, STEP_PIVOT);
	}
	if (chdir("/"))
		die_step(fd, STEP_PIVOT);
	/* Nothing may be added to the root itself. */
	mount(NULL, "/", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | kept_flags("/"), NULL);
}

/* Loopback up in a new network namespace; it is the only interface. */
static void loopback_up(void)
{
	struct ifreq ifr = { 0 };
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return;
	strcpy(ifr.ifr_name, "lo");
	if (!ioctl(s, SIOCGIFFLAGS, &ifr)) {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	close(s);
}

/* Set a limit, never above the hard limit we were given (only root may raise it). */
static void set_limit(int res, rlim_t soft, rlim_t hard, int fd)
{
	struct rlimit r = { soft, hard }, cur;

	if (!getrlimit(res, &cur) && cur.rlim_max != RLIM_INFINITY && r.rlim_max > cur.rlim_max &&
	    setrlimit(res, &r)) {
		if (r.rlim_max > cur.rlim_max)
			r.rlim_max = cur.rlim_max;
		if (r.rlim_cur > r.rlim_max)
			r.rlim_cur = r.rlim_max;
	}
	if (setrlimit(res, &r))
		die_step(fd, STEP_RLIMIT);
}

/*
 * S's fences, before its limits and ids: Landlock (files, ptrace and signals outside
 * the run) and the system-call filter. A kernel without either goes on
 * without it; the grader learns which it got ('F') and says so.
 */
static void fence(const struct sb_child *c, int fd)
{
	bool mnt = c->ns & GRADE_NS_MOUNT;
	struct grade_fence_paths p = {
		.job = mnt ? "/job" : c->sb->job, .tmp = mnt ? "/tmp" : c->sb->tmp,
		.job_readonly = !c->req->job_writable, .no_tcp = !(c->ns & GRADE_NS_NET),
	};
	unsigned int got = 0;
	int ret;

	if (grade_fence_landlock(&p, &got)) {
		errno = EPERM;
		die_step(fd, STEP_FENCE);
	}
	/*
	 * A filter the kernel will not load (none built in; an emulator such as
	 * valgrind) leaves the run without it: the grade's sandbox line says
	 * which fences it got.
	 */
	ret = grade_fence_seccomp();
	if (!ret)
		got |= GRADE_FENCE_SECCOMP;
	send_msg(fd, 'F', (int)got, 0, 0, 0);
}

/* S: limits, ids, exec. Never returns. */
static __attribute__((noreturn)) void run_program(const struct sb_child *c)
{
	const struct grade_run_req *req = c->req;
	const struct grade_limits *l = &req->lim;
	int fd = c->st_fd;

	/* First: libseccomp allocates, which the address-space limit may not allow. */
	fence(c, fd);
	set_limit(RLIMIT_CORE, 0, 0, fd);
	set_limit(RLIMIT_CPU, l->cpu_s, l->cpu_s + 1, fd);
	set_limit(RLIMIT_AS, (rlim_t)l->mem_mb << 20, (rlim_t)l->mem_mb << 20, fd);
	set_limit(RLIMIT_FSIZE, (rlim_t)l->fsize_mb << 20, (rlim_t)l->fsize_mb << 20, fd);
	set_limit(RLIMIT_NOFILE, 256, 256, fd);
	set_limit(RLIMIT_RTPRIO, req->rtprio, req->rtprio, fd);
	set_limit(RLIMIT_MEMLOCK, (rlim_t)req->memlock_kb << 10, (rlim_t)req->memlock_kb << 10,
		  fd);
	if (c->sb->drop) {
		if (setgroups(0, NULL) || setresgid(c->sb->gid, c->sb->gid, c->sb->gid) ||
		    setresuid(c->sb->uid, c->sb->uid, c->sb->uid))
			die_step(fd, STEP_IDS);
	}
	/* After the ids: RLIMIT_NPROC counts the processes of the uid it runs as. */
	set_limit(RLIMIT_NPROC, l->nproc, l->nproc, fd);
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	/* Cleared by the change of ids, so set after it. */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (chdir(c->workdir))
		die_step(fd, STEP_CHDIR);
	execve(c->path, c->argv, c->envp);
	die_step(fd, STEP_EXEC);
}

/* VmLck of <@procfd>/@pid/status in kB, or -1. */
static long read_vmlck(int procfd, pid_t pid)
{
	char path[64], buf[4096], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%d/status", (int)pid);
	fd = procfd >= 0 ? openat(procfd, path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strstr(buf, "\nVmLck:");
	return p ? strtol(p + 7, NULL, 10) : -1;
}

/* Kill what the program left, without a PID namespace to do it. */
static void kill_leftovers(const struct sb_child *c, pid_t pgrp)
{
	char path[64];
	int rounds = 0;
	pid_t p;

	kill(-pgrp, SIGKILL);
	if (c->sb->drop && geteuid() == 0) {
		p = fork();
		if (p == 0) {
			if (!setresgid(c->sb->gid, c->sb->gid, c->sb->gid) &&
			    !setresuid(c->sb->uid, c->sb->uid, c->sb->uid))
				kill(-1, SIGKILL);
			_exit(0);
		}
		if (p > 0)
			waitpid(p, NULL, 0);
	}
	/* Orphans came to us (a subreaper): kill each child until none is left. */
	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)syscall(SYS_gettid));
	while (rounds++ < 100) {
		char buf[4096], *s, *end;
		ssize_t n;
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			break;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			break;
		buf[n] = '\0';
		for (s = buf; (p = (pid_t)strtol(s, &end, 10)) > 0; s = end)
			kill(p, SIGKILL);
		while (waitpid(-1, NULL, WNOHANG | __WALL) > 0)
			;
		usleep(10000);
	}
	while (waitpid(-1, NULL, WNOHANG | __WALL) > 0)
		;
}

/* I: the init of the run. Never returns. */
static __attribute__((noreturn)) void run_init(const struct sb_child *c)
{
	bool pidns = c->ns & GRADE_NS_PID;
	int fd = c->st_fd, procfd;
	struct rusage ru;
	pid_t s, p;
	int st;

	/*
	 * Where the program's /proc/PID/status is read: without a PID
	 * namespace, the host's /proc, kept open across the new root (the
	 * program never sees it); with one, the run's own /proc.
	 */
	/* F is gone (killed, or its grader stopped): so is the run. */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	procfd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (c->ns & GRADE_NS_MOUNT)
		build_root(c);
	if (pidns && procfd >= 0) {
		close(procfd);
		procfd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	if (c->ns & GRADE_NS_NET)
		loopback_up();
	if (c->ns & GRADE_NS_UTS)
		sethostname("rtlab-sandbox", 13);
	if (!pidns)
		prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	s = fork();
	if (s < 0)
		die_step(fd, STEP_FORK);
	if (s == 0)
		run_program(c);
	send_msg(fd, 'P', s, (int)c->ns, 0, 0);
	for (;;) {
		p = wait4(-1, &st, WUNTRACED | __WALL, &ru);
		if (p < 0) {
			if (errno == EINTR)
				continue;
			_exit(0);
		}
		if (p != s)
			continue;
		if (WIFSTOPPED(st)) {
			struct sched_param sp = { 0 };
			int pol = sched_getscheduler(s);

			if (sched_getparam(s, &sp))
				sp.sched_priority = -1;
			send_msg(fd, 'S', pol < 0 ? -1 : pol & ~SCHED_RESET_ON_FORK,
				 sp.sched_priority, 0,
				 pidns && !(c->ns & GRADE_NS_MOUNT) ? -1 : read_vmlck(procfd, s));
			kill(s, SIGCONT);
			continue;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			long ms = ru.ru_utime.tv_sec * 1000L + ru.ru_utime.tv_usec / 1000 +
				  ru.ru_stime.tv_sec * 1000L + ru.ru_stime.tv_usec / 1000;

			send_msg(fd, 'X', WIFSIGNALED(st), WIFSIGNALED(st) ? WTERMSIG(st) :
				 WEXITSTATUS(st), 0, ms);
			if (!pidns)
				kill_leftovers(c, s);
			/* With a PID namespace, our end kills whatever is left in it. */
			_exit(0);
		}
	}
}

/* F: namespaces, then the init. Never returns. */
static __attribute__((noreturn)) void run_outer(const struct sb_child *c)
{
	static const int flag_of[] = { CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWNET,
				       CLONE_NEWIPC, CLONE_NEWUTS };
	int flags = 0, st;
	sigset_t all;
	pid_t i;

	/*
	 * A session of its own, without a controlling terminal: no run can
	 * type into the grader's (TIOCSTI) or get its signals. Only F sets its
	 * group (the grader's setpgid() would make F a group leader, which
	 * setsid() refuses).
	 */
	if (setsid() < 0) {
		send_msg(c->st_fd, 'E', STEP_SESSION, errno, 0, 0);
		_exit(126);
	}
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	for (int s = 1; s < NSIG; s++)
		signal(s, SIG_DFL);
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (dup2(c->in_fd, 0) < 0 || dup2(c->out_fd, 1) < 0 || dup2(c->err_fd, 2) < 0 ||
	    dup2(c->st_fd, 3) < 0)
		_exit(125);
	if (syscall(SYS_close_range, 4, ~0U, 0))
		for (int fd = 4; fd < 1024; fd++)
			close(fd);
	fcntl(3, F_SETFD, FD_CLOEXEC);
	((struct sb_child *)c)->st_fd = 3;
	for (size_t b = 0; b < sizeof(flag_of) / sizeof(flag_of[0]); b++)
		if (c->ns & (1u << b))
			flags |= flag_of[b];
	if (flags && unshare(flags))
		die_step(3, STEP_UNSHARE);
	/*
	 * The grader is undumpable (its /proc files are root's), which would
	 * keep us from writing our own maps: dumpable for as long as that takes.
	 */
	if (c->ns & GRADE_NS_USER) {
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
		if (write_file("/proc/self/setgroups", "deny") ||
		    write_file("/proc/self/uid_map", c->uid_map) ||
		    write_file("/proc/self/gid_map", c->gid_map))
			die_step(3, STEP_USERMAP);
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	}
	i = fork();
	if (i < 0)
		die_step(3, STEP_FORK);
	if (i == 0)
		run_init(c);
	for (int fd = 0; fd < 4; fd++)
		close(fd);
	while (waitpid(i, &st, 0) < 0 && errno == EINTR)
		;
	_exit(0);
}

/* ---- Which namespaces this kernel gives us ---------------------------------------- */

static int probe_flags(unsigned int ns)
{
	static const int flag_of[] = { CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWNET,
				       CLONE_NEWIPC, CLONE_NEWUTS };
	int flags = 0, st;
	pid_t p;

	for (size_t b = 0; b < sizeof(flag_of) / sizeof(flag_of[0]); b++)
		if (ns & (1u << b))
			flags |= flag_of[b];
	p = fork();
	if (p < 0)
		return -errno;
	if (p == 0)
		_exit(unshare(flags) ? 1 : 0);
	if (waitpid(p, &st, 0) < 0)
		return -errno;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EPERM;
}

/*
 * The namespaces of @want this kernel lets us make, probed once per process:
 * as root all but the user namespace; else the user namespace first, then
 * each other one inside it. (A mount namespace without a PID one gives a
 * root without /proc: the host's would show every process.)
 */
static unsigned int ns_available(unsigned int want)
{
	static int probed = -1;
	unsigned int base, got = 0;

	if (probed < 0) {
		base = geteuid() == 0 ? 0 : GRADE_NS_USER;
		if (base && probe_flags(base)) {
			probed = 0;
		} else {
			got = base;
			for (unsigned int b = GRADE_NS_MOUNT; b <= GRADE_NS_UTS; b <<= 1)
				if (!probe_flags(base | b))
					got |= b;
			if (got == GRADE_NS_USER)
				got = 0;
			probed = (int)got;
		}
	}
	got = (unsigned int)probed & want;
	if (got & GRADE_NS_USER && !(want & GRADE_NS_USER))
		got = 0;
	return got;
}

unsigned int grade_sandbox_ns(const struct grade_sandbox *sb)
{
	return ns_available(sb->ns);
}

const char *grade_ns_name(unsigned int ns, char buf[64])
{
	static const char *const names[] = { "user", "mount", "pid", "net", "ipc", "uts" };
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned int b = 0; b < 6; b++)
		if (ns & (1u << b))
			len += (size_t)snprintf(buf + len, 64 - len, "%s%s", len ? "+" : "",
						names[b]);
	if (!len)
		snprintf(buf, 64, "none");
	return buf;
}

/* ---- The grader's side of a run ---------------------------------------------------- */

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct sb_stream {
	int fd;
	char *buf;
	size_t len, cap, max, seen;
};

/* Read what is there; returns 1 at EOF (fd closed), 0 otherwise. */
static int stream_read(struct sb_stream *s)
{
	char tmp[65536];
	ssize_t n = read(s->fd, tmp, sizeof(tmp));
	size_t keep;

	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : 1;
	if (n == 0)
		return 1;
	s->seen += (size_t)n;
	keep = s->len < s->max ? s->max - s->len : 0;
	if (keep > (size_t)n)
		keep = (size_t)n;
	if (keep && s->len + keep + 1 > s->cap) {
		size_t cap = s->cap ? s->cap : 4096;
		char *b;

		while (cap < s->len + keep + 1)
			cap *= 2;
		b = realloc(s->buf, cap);
		if (!b)
			return 0;
		s->buf = b;
		s->cap = cap;
	}
	if (keep)
		memcpy(s->buf + s->len, tmp, keep);
	s->len += keep;
	return 0;
}

static char *stream_take(struct sb_stream *s)
{
	char *b = s->buf ? s->buf : malloc(1);

	if (b)
		b[s->len] = '\0';
	s->buf = NULL;
	return b;
}

static void kill_run(const struct grade_sandbox *sb, pid_t f, pid_t s, unsigned int ns)
{
	kill(-f, SIGKILL);
	kill(f, SIGKILL);	/* before its setsid(), F is in no group of its own */
	if (!(ns & GRADE_NS_PID) && s > 0)
		kill(-s, SIGKILL), kill(s, SIGKILL);
	if (!(ns & GRADE_NS_PID) && sb->drop && geteuid() == 0) {
		pid_t p = fork();

		if (p == 0) {
			if (!setresgid(sb->gid, sb->gid, sb->gid) &&
			    !setresuid(sb->uid, sb->uid, sb->uid))
				kill(-1, SIGKILL);
			_exit(0);
		}
		if (p > 0)
			waitpid(p, NULL, 0);
	}
}

static void describe_end(const struct grade_sandbox *sb, const struct grade_run_req *req,
			 struct grade_run_res *r)
{
	const struct grade_limits *l = &req->lim;

	(void)sb;
	if (r->timed_out)
		snprintf(r->reason, sizeof(r->reason), "timed out after %u s (wall clock)",
			 l->wall_s);
	else if (r->out_cut)
		snprintf(r->reason, sizeof(r->reason), "wrote more than %u KiB to stdout",
			 l->output_kb);
	else if (r->err_cut && r->signal == SIGKILL)
		snprintf(r->reason, sizeof(r->reason), "wrote more than %zu KiB to stderr",
			 (req->err_max ? req->err_max : GRADE_ERR_MAX) * ERR_KILL_FACTOR / 1024);
	else if (r->cpu_limit)
		snprintf(r->reason, sizeof(r->reason), "used more than %u s of CPU time",
			 l->cpu_s);
	else if (r->fsize_limit)
		snprintf(r->reason, sizeof(r->reason), "wrote a file larger than %u MiB",
			 l->fsize_mb);
	else if (r->signal)
		snprintf(r->reason, sizeof(r->reason), "killed by SIG%s (%s)",
			 sigabbrev_np(r->signal) ? sigabbrev_np(r->signal) : "?",
			 sigdescr_np(r->signal) ? sigdescr_np(r->signal) : "unknown signal");
	else if (r->exit_code >= 0 && !r->reason[0])
		snprintf(r->reason, sizeof(r->reason), "exited with %d", r->exit_code);
	else if (!r->reason[0])
		snprintf(r->reason, sizeof(r->reason), "ended without a status (killed)");
}

int grade_sandbox_run(const struct grade_sandbox *sb, const struct grade_run_req *req,
		      struct grade_run_res *r, char **cause)
{
	int out[2] = { -1, -1 }, err[2] = { -1, -1 }, st[2] = { -1, -1 };
	struct sb_stream so = { .fd = -1 }, se = { .fd = -1 };
	struct sb_child c = { .sb = sb, .req = req };
	bool out_eof = false, err_eof = false, st_eof = false, ended = false, killed = false;
	long long start, deadline, kill_at = 0, reaped_at = 0;
	struct sb_msg msgs[8];
	size_t msg_have = 0;
	pid_t f = -1, s = -1;
	int pidfd = -1, ret, nulfd = -1, setup_err = 0, setup_step = 0, stop_slot = -1;

	memset(r, 0, sizeof(*r));
	r->exit_code = -1;
	r->vmlck_kb = -1;
	r->policy = r->rtprio = -1;
	c.ns = ns_available(sb->ns);
	r->ns = c.ns;
	ret = child_prepare(&c, cause);
	if (ret)
		goto out;
	if (req->rtprio > sb->rtprio_max || req->memlock_kb > sb->memlock_kb_max) {
		ret = rt_err(cause, -EPERM, "sandbox: the run asks for more RLIMIT_RTPRIO or "
			     "RLIMIT_MEMLOCK than the grader can give");
		goto out;
	}
	if (req->in_fd < 0) {
		nulfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (nulfd < 0) {
			ret = rt_err(cause, -errno, "sandbox: /dev/null: %s", strerror(errno));
			goto out;
		}
	}
	if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) || pipe2(st, O_CLOEXEC)) {
		ret = rt_err(cause, -errno, "sandbox: pipe: %s", strerror(errno));
		goto out;
	}
	c.in_fd = req->in_fd >= 0 ? req->in_fd : nulfd;
	c.out_fd = out[1];
	c.err_fd = err[1];
	c.st_fd = st[1];
	/* What the run leaves behind without a PID namespace comes to us, to be killed. */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	fflush(NULL);
	start = now_ms();
	f = fork();
	if (f < 0) {
		ret = rt_err(cause, -errno, "sandbox: fork: %s", strerror(errno));
		goto out;
	}
	if (f == 0)
		run_outer(&c);
	stop_slot = grade_stop_add(f, sb->drop ? sb->uid : (uid_t)-1);
	close(out[1]);
	close(err[1]);
	close(st[1]);
	out[1] = err[1] = st[1] = -1;
	pidfd = (int)syscall(SYS_pidfd_open, f, 0);
	so = (struct sb_stream){ .fd = out[0], .max = (size_t)req->lim.output_kb * 1024 };
	se = (struct sb_stream){ .fd = err[0], .max = req->err_max ? req->err_max : GRADE_ERR_MAX };
	deadline = start + (long long)req->lim.wall_s * 1000;

	while (!(ended && out_eof && err_eof && st_eof)) {
		struct pollfd pf[4];
		long long now = now_ms(), wait;
		nfds_t n = 0;
		size_t k;
		int status;

		if (!ended && !killed && now >= deadline) {
			r->timed_out = true;
			kill_run(sb, f, s, c.ns);
			killed = true;
			kill_at = now;
		}
		if (!ended && killed && now - kill_at > KILL_WAIT_MS)
			break;		/* stuck in the kernel: leave it, never hang */
		if (ended && now - reaped_at > DRAIN_MS)
			break;		/* a leftover holds a pipe open: it was killed */
		if (!ended && waitpid(f, &status, WNOHANG) == f) {
			ended = true;
			reaped_at = now;
			if (!(c.ns & GRADE_NS_PID))
				kill_run(sb, f, s, c.ns);
		}
		if (ended && out_eof && err_eof && st_eof)
			break;		/* all read already: no drain wait */
		if (!out_eof)
			pf[n++] = (struct pollfd){ .fd = so.fd, .events = POLLIN };
		if (!err_eof)
			pf[n++] = (struct pollfd){ .fd = se.fd, .events = POLLIN };
		if (!st_eof)
			pf[n++] = (struct pollfd){ .fd = st[0], .events = POLLIN };
		if (!ended && pidfd >= 0)
			pf[n++] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
		wait = ended ? DRAIN_MS : killed ? 50 : deadline - now;
		if (pidfd < 0 && !ended && wait > 20)
			wait = 20;
		if (wait < 0)
			wait = 0;
		if (poll(pf, n, (int)wait) < 0 && errno != EINTR)
			break;
		for (nfds_t i = 0; i < n; i++) {
			if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (pf[i].fd == so.fd) {
				out_eof = stream_read(&so);
				if (so.seen > so.max && !r->out_cut) {
					r->out_cut = true;
					if (!killed && !ended) {
						kill_run(sb, f, s, c.ns);
						killed = true;
						kill_at = now_ms();
					}
				}
			} else if (pf[i].fd == se.fd) {
				err_eof = stream_read(&se);
				if (se.seen > se.max)
					r->err_cut = true;
				if (se.seen > se.max * ERR_KILL_FACTOR && !killed && !ended) {
					kill_run(sb, f, s, c.ns);
					killed = true;
					kill_at = now_ms();
				}
			} else if (pf[i].fd == st[0]) {
				ssize_t got = read(st[0], (char *)msgs + msg_have,
						   sizeof(msgs) - msg_have);

				if (got <= 0) {
					st_eof = got == 0 || (errno != EINTR && errno != EAGAIN);
					continue;
				}
				msg_have += (size_t)got;
				for (k = 0; k + sizeof(msgs[0]) <= msg_have; k += sizeof(msgs[0])) {
					const struct sb_msg *m = &msgs[k / sizeof(msgs[0])];

					if (m->kind == 'P') {
						s = m->a;
					} else if (m->kind == 'S') {
						r->nstops++;
						r->policy = m->a;
						r->rtprio = m->b;
						r->vmlck_kb = m->d;
					} else if (m->kind == 'X') {
						if (m->a)
							r->signal = m->b;
						else
							r->exit_code = m->b;
						r->cpu_s = (double)m->d / 1000.0;
					} else if (m->kind == 'F') {
						r->fences = (unsigned int)m->a;
					} else if (m->kind == 'E') {
						setup_step = m->a;
						setup_err = m->b;
					}
				}
				memmove(msgs, (char *)msgs + k, msg_have - k);
				msg_have -= k;
			}
		}
	}
	r->wall_s = (double)(now_ms() - start) / 1000.0;
	if (!ended) {
		kill_run(sb, f, s, c.ns);
		if (waitpid(f, NULL, WNOHANG) != f)
			snprintf(r->reason, sizeof(r->reason), "could not be killed (stuck in the "
				 "kernel)");
	}
	if (setup_err && setup_step != STEP_EXEC) {
		ret = rt_err(cause, -setup_err, "sandbox: %s: %s",
			     setup_step >= 0 && setup_step <= STEP_EXEC ? step_names[setup_step] :
			     "setting up", strerror(setup_err));
		goto out;
	}
	if (setup_err) {
		r->exit_code = 127;
		snprintf(r->reason, sizeof(r->reason), "could not start %s: %s", req->argv[0],
			 strerror(setup_err));
	}
	if (r->signal == SIGXCPU || (r->signal == SIGKILL && !r->timed_out && !r->out_cut &&
				     r->cpu_s + 0.05 >= req->lim.cpu_s))
		r->cpu_limit = true;
	if (r->signal == SIGXFSZ)
		r->fsize_limit = true;
	if ((r->timed_out || r->out_cut) && !r->signal && r->exit_code < 0)
		r->signal = SIGKILL;
	if (r->err_cut && killed && !r->timed_out && !r->out_cut && !r->signal &&
	    r->exit_code < 0)
		r->signal = SIGKILL;
	describe_end(sb, req, r);
	r->out_len = so.len;
	r->err_len = se.len;
	r->out = stream_take(&so);
	r->err = stream_take(&se);
	if (!r->out || !r->err) {
		ret = -ENOMEM;
		goto out;
	}
	ret = 0;
out:
	if (ret)
		grade_run_res_fini(r);
	free(so.buf);
	free(se.buf);
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (err[i] >= 0)
			close(err[i]);
		if (st[i] >= 0)
			close(st[i]);
	}
	if (pidfd >= 0)
		close(pidfd);
	if (nulfd >= 0)
		close(nulfd);
	grade_stop_del(stop_slot);
	child_fini(&c);
	return ret;
}

void grade_run_res_fini(struct grade_run_res *res)
{
	if (!res)
		return;
	free(res->out);
	free(res->err);
	memset(res, 0, sizeof(*res));
	res->exit_code = -1;
}

/* ---- Boxes --------------------------------------------------------------------------- */

static int rm_open_up(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (flag == FTW_D && (st->st_mode & 0700) != 0700)
		chmod(path, (st->st_mode & 07777) | 0700);
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

int grade_rm_rf(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlink(path) ? -errno : 0;
	/* A folder made 0000 by the untrusted code is opened up first (root needs not). */
	if (geteuid() != 0)
		nftw(path, rm_open_up, 16, FTW_PHYS | FTW_MOUNT);
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
	return access(path, F_OK) ? 0 : -ENOTEMPTY;
}

/* True when this process may raise hard rlimits (CAP_SYS_RESOURCE in CapEff). */
static bool can_raise_limits(void)
{
	char *text = NULL, *p;
	unsigned long long eff = 0;
	bool yes = false;

	if (geteuid() != 0 || rt_file_read("/proc/self/status", 1u << 16, &text, NULL))
		return false;
	p = strstr(text, "\nCapEff:");
	if (p && sscanf(p + 8, "%llx", &eff) == 1)
		yes = eff & (1ull << 24);	/* CAP_SYS_RESOURCE */
	free(text);
	return yes;
}

/*
 * What a run may get: root with CAP_SYS_RESOURCE may raise the hard limits
 * (99, 1 GiB); anyone else (a container's root too) passes on at most its
 * own hard limits.
 */
static void limits_grant(struct grade_sandbox *sb)
{
	struct rlimit r;

	if (can_raise_limits()) {
		sb->rtprio_max = 99;
		sb->memlock_kb_max = 1024 * 1024;
		return;
	}
	if (!getrlimit(RLIMIT_RTPRIO, &r))
		sb->rtprio_max = r.rlim_max == RLIM_INFINITY || r.rlim_max > 99 ? 99 :
				 (unsigned int)r.rlim_max;
	if (!getrlimit(RLIMIT_MEMLOCK, &r))
		sb->memlock_kb_max = r.rlim_max == RLIM_INFINITY || r.rlim_max >> 10 > 1024 * 1024 ?
				     1024 * 1024 : (unsigned int)(r.rlim_max >> 10);
}

bool grade_sandbox_can(const struct grade_sandbox *sb, unsigned int need)
{
	switch (need) {
	case GRADE_NEED_SCHED_FIFO:
		return sb->rtprio_max > 0;
	case GRADE_NEED_MLOCK:	/* as much as the exercise's checks ask for */
		return sb->memlock_kb_max >= sb->lim.memlock_kb;
	case GRADE_NEED_ROOT:
		return geteuid() == 0;
	}
	return false;
}

int grade_sandbox_new(struct grade_sandbox *sb, const char *tmpdir, unsigned int slot,
		      const struct grade_limits *lim, unsigned int ns, char **cause)
{
	char *tmpl = NULL;
	int ret;

	memset(sb, 0, sizeof(*sb));
	if (!tmpdir)
		tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	if (asprintf(&tmpl, "%s/rtlab-grade.%d.XXXXXX", tmpdir, (int)getpid()) < 0)
		return -ENOMEM;
	if (!mkdtemp(tmpl)) {
		ret = rt_err(cause, -errno, "%s: cannot make a folder: %s", tmpl,
			     strerror(errno));
		free(tmpl);
		return ret;
	}
	sb->box = tmpl;
	sb->lim = *lim;
	sb->ns = ns;
	sb->drop = geteuid() == 0;
	sb->uid = sb->drop ? GRADE_UID_BASE + 1 + slot : geteuid();
	sb->gid = sb->drop ? GRADE_UID_BASE + 1 + slot : getegid();
	limits_grant(sb);
	sb->job = path_join(sb->box, "job");
	sb->root = path_join(sb->box, "root");
	sb->tmp = path_join(sb->box, "tmp");
	if (!sb->job || !sb->root || !sb->tmp) {
		ret = -ENOMEM;
		goto out_fail;
	}
	if (mkdir(sb->job, 0700) || mkdir(sb->root, 0755) || mkdir(sb->tmp, 0700) ||
	    (sb->drop && (chmod(sb->box, 0711) || chown(sb->tmp, sb->uid, sb->gid) ||
			  chown(sb->job, sb->uid, sb->gid)))) {
		ret = rt_err(cause, -errno, "%s: cannot make the box: %s", sb->box,
			     strerror(errno));
		goto out_fail;
	}
	return 0;

out_fail:
	grade_sandbox_fini(sb);
	return ret;
}

/* The ids grade_sandbox_give() hands the job folder to (nftw has no private pointer). */
static uid_t give_uid;
static gid_t give_gid;

static int give_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return lchown(path, give_uid, give_gid) ? -1 : 0;
}

int grade_sandbox_give(const struct grade_sandbox *sb, char **cause)
{
	if (!sb->drop)
		return 0;
	give_uid = sb->uid;
	give_gid = sb->gid;
	if (nftw(sb->job, give_one, 16, FTW_PHYS | FTW_MOUNT))
		return rt_err(cause, -errno, "%s: cannot give it to uid %u: %s", sb->job,
			      (unsigned)sb->uid, strerror(errno));
	return 0;
}

void grade_sandbox_fini(struct grade_sandbox *sb)
{
	if (!sb)
		return;
	if (sb->box && !sb->keep)
		grade_rm_rf(sb->box);
	free(sb->box);
	free(sb->job);
	free(sb->root);
	free(sb->tmp);
	memset(sb, 0, sizeof(*sb));
}

bool grade_sandbox_would_isolate(unsigned int ns)
{
	return geteuid() == 0 || (ns_available(ns) & GRADE_NS_MOUNT) ||
	       (grade_fence_probe() & GRADE_FENCE_LANDLOCK);
}

bool grade_sandbox_isolated(const struct grade_sandbox *sb, unsigned int ns, unsigned int fences)
{
	return sb->drop || (ns & GRADE_NS_MOUNT) || (fences & GRADE_FENCE_LANDLOCK);
}

char *grade_sandbox_describe(const struct grade_sandbox *sb, unsigned int ns, unsigned int fences)
{
	const char *files;
	char nsb[64], who[48], *s;

	if (sb->drop)
		snprintf(who, sizeof(who), "own uid %u", (unsigned)sb->uid);
	else
		snprintf(who, sizeof(who), "the grader's uid");
	if (ns & GRADE_NS_MOUNT)
		files = " (own root: no home, rtlab data, labs or other students)";
	else if (fences & GRADE_FENCE_LANDLOCK)
		files = " (no own root; Landlock: only system folders, its job and tmp)";
	else
		files = " (no own root: it sees what the uid may read, rtlab's data too)";
	if (asprintf(&s, "%s%s; namespaces: %s%s; fences: %s; rlimits: %u s CPU, %u MiB memory, "
		     "%u MiB files, %u processes; %u s wall clock; %u KiB output",
		     grade_sandbox_isolated(sb, ns, fences) ? "" :
		     "UNISOLATED (a submission could forge this grade): ", who,
		     grade_ns_name(ns, nsb), files, grade_fence_name(fences), sb->lim.cpu_s,
		     sb->lim.mem_mb, sb->lim.fsize_mb, sb->lim.nproc, sb->lim.wall_s,
		     sb->lim.output_kb) < 0)
		return NULL;
	return s;
}

/* ---- Folders left by graders that were killed ------------------------------------------ */

/* "rtlab-grade.PID.XXXXXX", "rtlab-class.PID.XXXXXX" or "rtlab-handin.PID.XXXXXX": PID, else 0. */
static pid_t left_by(const char *name)
{
	const char *p = !strncmp(name, "rtlab-grade.", 12) ? name + 12 :
			!strncmp(name, "rtlab-class.", 12) ? name + 12 :
			!strncmp(name, "rtlab-handin.", 13) ? name + 13 : NULL;
	char *end;
	long pid;

	if (!p)
		return 0;
	pid = strtol(p, &end, 10);
	return end != p && *end == '.' && strlen(end) == 7 && pid > 0 && pid < INT_MAX ?
	       (pid_t)pid : 0;
}

int grade_sweep_left(const char *tmpdir)
{
	struct dirent *e;
	int removed = 0;
	DIR *d;

	if (!tmpdir)
		tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	d = opendir(tmpdir);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		pid_t pid = left_by(e->d_name);
		char *path;
		struct stat st;

		/* Only ours, and only when its grader is gone (a reused pid keeps it). */
		if (!pid || (kill(pid, 0) == 0 || errno != ESRCH) ||
		    asprintf(&path, "%s/%s", tmpdir, e->d_name) < 0)
			continue;
		if (!lstat(path, &st) && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
		    !grade_rm_rf(path))
			removed++;
		free(path);
	}
	closedir(d);
	return removed;
}

/* ---- The box as a string, for the runner ---------------------------------------------- */

char *grade_sandbox_spec(const struct grade_sandbox *sb)
{
	const struct grade_limits *l = &sb->lim;
	char *s;

	if (strchr(sb->box, '\n'))
		return NULL;
	if (asprintf(&s, "rtlab-sandbox/1\nbox=%s\ndrop=%d\nuid=%u\ngid=%u\nns=%u\nwall=%u\n"
		     "cpu=%u\nmem=%u\nfsize=%u\nnproc=%u\nout=%u\nrtprio=%u\nmemlock=%u\n",
		     sb->box, sb->drop, (unsigned)sb->uid, (unsigned)sb->gid, sb->ns, l->wall_s,
		     l->cpu_s, l->mem_mb, l->fsize_mb, l->nproc, l->output_kb, sb->rtprio_max,
		     sb->memlock_kb_max) < 0)
		return NULL;
	return s;
}

int grade_sandbox_parse(const char *spec, struct grade_sandbox *sb, char **cause)
{
	struct { const char *key; unsigned int *val; } nums[] = {
		{ "uid", &sb->uid }, { "gid", &sb->gid }, { "ns", &sb->ns },
		{ "wall", &sb->lim.wall_s }, { "cpu", &sb->lim.cpu_s },
		{ "mem", &sb->lim.mem_mb }, { "fsize", &sb->lim.fsize_mb },
		{ "nproc", &sb->lim.nproc }, { "out", &sb->lim.output_kb },
		{ "rtprio", &sb->rtprio_max }, { "memlock", &sb->memlock_kb_max },
	};
	unsigned int drop = 0, seen = 0;
	const char *p, *eol;

	memset(sb, 0, sizeof(*sb));
	sb->keep = true;
	if (!spec || strncmp(spec, "rtlab-sandbox/1\n", 16))
		return rt_err(cause, -EINVAL, "%s is not set by rtlab grade", GRADE_ENV_SANDBOX);
	for (p = spec + 16; *p; p = *eol ? eol + 1 : eol) {
		const char *eq = strchr(p, '=');
		char *end;
		unsigned long v;
		size_t klen;

		eol = strchr(p, '\n');
		if (!eol)
			eol = p + strlen(p);
		if (!eq || eq > eol)
			goto bad;
		klen = (size_t)(eq - p);
		if (klen == 3 && !strncmp(p, "box", 3)) {
			free(sb->box);
			sb->box = strndup(eq + 1, (size_t)(eol - eq - 1));
			if (!sb->box)
				return -ENOMEM;
			continue;
		}
		v = strtoul(eq + 1, &end, 10);
		if (end != eol)
			goto bad;
		if (klen == 4 && !strncmp(p, "drop", 4)) {
			drop = (unsigned int)v;
			continue;
		}
		for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
			if (strlen(nums[i].key) == klen && !strncmp(p, nums[i].key, klen)) {
				*nums[i].val = (unsigned int)v;
				seen |= 1u << i;
			}
	}
	if (!sb->box || sb->box[0] != '/' || seen != (1u << 11) - 1 || !sb->lim.wall_s)
		goto bad;
	sb->drop = drop && geteuid() == 0;
	sb->job = path_join(sb->box, "job");
	sb->root = path_join(sb->box, "root");
	sb->tmp = path_join(sb->box, "tmp");
	if (!sb->job || !sb->root || !sb->tmp) {
		grade_sandbox_fini(sb);
		return -ENOMEM;
	}
	return 0;
bad:
	free(sb->box);
	sb->box = NULL;
	return rt_err(cause, -EINVAL, "%s is malformed", GRADE_ENV_SANDBOX);
}
