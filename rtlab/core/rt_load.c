/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_load: load generators as process trees with hard limits.
 *
 * Everything a leader or worker needs (names, paths, CPU list, stress-ng
 * arguments) is prepared by the caller before fork(). The caller may be
 * multithreaded (the probe runs threads), and after fork() a child of a
 * multithreaded process may only use async-signal-safe calls: so leaders
 * and workers use plain system calls, mmap instead of malloc, no stdio,
 * and leave with _exit() so the caller's atexit handlers never run twice.
 *
 * The caller keeps one list of running loads for its atexit hook; that
 * list is the only shared state and has its own mutex (never on an RT path).
 */
#include "rt_load.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt_child.h"
#include "rt_err.h"
#include "rt_log.h"
#include "rt_time.h"
#include "rt_which.h"

#define LOAD_MAX_CPUS 64
#define LOAD_MAX_WORKERS (2 * LOAD_MAX_CPUS)
#define LOAD_IO_CHUNK (256u * 1024u)
/*
 * A leader told to stop ends in milliseconds on an idle machine and may need
 * seconds on a loaded one, where it and its dying workers wait for a CPU.
 * The bounds below only catch a leader that cannot run at all (stopped, or
 * a worker stuck in the kernel): one that is merely slow must finish, since
 * killing it leaves its tree to init and makes stop report a failure.
 */
#define LOAD_STOP_WAIT_MS 30000	/* for a leader to finish before it is killed */
#define LOAD_REAP_WAIT_MS 20000	/* for a leader to reap its killed tree (< the above) */
#define LOAD_BACKSTOP_S 60	/* a leader still in its loop this long after its limit dies */
#define LOAD_NG_ARGS 16

extern char **environ;

enum load_kind {
	LOAD_CPU,
	LOAD_MEM,
	LOAD_IO,
	LOAD_MSG,
	LOAD_FORK,
	LOAD_FAULT,
	LOAD_NG_CPU,
	LOAD_NG_IO,
};

struct load_gen {
	const char *name;
	const char *help;
	enum load_kind kind;
};

static const struct load_gen load_gens[] = {
	{ "cpu", "a busy loop pinned to every CPU we may use", LOAD_CPU },
	{ "mem", "memcpy between two 32 MiB buffers, more than a last-level cache", LOAD_MEM },
	{ "io", "256 KiB writes with fsync to a file in a private temp dir", LOAD_IO },
	{ "msg", "hackbench-style ping-pong between process pairs over socketpairs", LOAD_MSG },
	{ "fork", "a fork storm of short-lived children, at most 16 alive", LOAD_FORK },
	{ "pagefault", "mmap, touch and munmap fresh anonymous memory (page faults)",
	  LOAD_FAULT },
	{ "stress-cpu", "stress-ng --cpu on every CPU (needs stress-ng)", LOAD_NG_CPU },
	{ "stress-io", "stress-ng --hdd in a private temp dir (needs stress-ng)", LOAD_NG_IO },
};

#define LOAD_NGENS (sizeof(load_gens) / sizeof(load_gens[0]))

/* One generator: prepared by the caller, copied into the leader by fork(). */
struct load_proc {
	const struct load_gen *gen;
	struct rt_child *leader;	/* owned; its pid is the group's; NULL once reaped */
	int lifeline;			/* caller's write end, -1 once closed */
	int lifeline_rd;		/* the leader's end; closed in the caller */
	unsigned int seconds;
	unsigned int ncpus;
	int cpus[LOAD_MAX_CPUS];
	char *dir;			/* owned: private temp dir, or NULL */
	char *file;			/* owned: the io generator's file */
	char *ng_path;			/* owned: stress-ng's path, or NULL */
	char *ng_argv[LOAD_NG_ARGS];	/* owned strings, NULL-terminated */
	bool killed;			/* its leader was killed, by us or its backstop */
};

struct rt_load {
	struct load_proc *procs;	/* owned, n entries */
	unsigned int n;
	bool stopped;
	struct rt_load *next;		/* in the atexit list */
};

static pthread_mutex_t load_list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_load *load_list;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static const char load_names[] = "cpu, mem, io, msg, fork, pagefault, stress-cpu, stress-io";

/* ---- Async-signal-safe helpers (leader and workers) ------------------------- */

/*
 * Remove @name in @dfd and, if it is a directory, everything below it
 * (bounded depth). Uses getdents64 rather than opendir, which allocates.
 * Repeats passes until a directory reads empty, since removing entries
 * while reading a directory may skip some.
 */
static void rm_tree_at(int dfd, const char *name, int depth)
{
	char buf[4096];
	bool again = true;
	int fd;

	if (unlinkat(dfd, name, 0) == 0 || errno == ENOENT)
		return;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	while (again) {
		ssize_t n, off;

		again = false;
		lseek(fd, 0, SEEK_SET);
		while ((n = getdents64(fd, buf, sizeof(buf))) > 0) {
			for (off = 0; off < n;) {
				struct dirent64 *d = (struct dirent64 *)(buf + off);

				off += d->d_reclen;
				if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
					continue;
				if (depth < 8) {
					rm_tree_at(fd, d->d_name, depth + 1);
					again = true;
				}
			}
		}
	}
	close(fd);
	unlinkat(dfd, name, AT_REMOVEDIR);
}

static void rm_tree(const char *path)
{
	rm_tree_at(AT_FDCWD, path, 0);
}

/* ---- Workers (run in a child of the leader) --------------------------------- */

static void *map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void work_cpu(const struct load_proc *lp, unsigned int i)
{
	volatile uint64_t x = i + 1;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(lp->cpus[i], &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (;;)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
}

static void work_mem(void)
{
	size_t half = RT_LOAD_MEM_BYTES / 2;
	char *a = map_anon(half), *b = map_anon(half);

	if (!a || !b)
		_exit(1);
	memset(a, 0x5a, half);
	for (;;) {
		memcpy(b, a, half);
		memcpy(a, b, half);
	}
}

static void work_io(const struct load_proc *lp)
{
	char *buf = map_anon(LOAD_IO_CHUNK);
	off_t off = 0;
	int fd;

	fd = open(lp->file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || !buf)
		_exit(1);
	memset(buf, 0xa5, LOAD_IO_CHUNK);
	for (;;) {
		if (pwrite(fd, buf, LOAD_IO_CHUNK, off) < 0)
			_exit(1);
		fsync(fd);
		off += LOAD_IO_CHUNK;
		if (off >= (off_t)RT_LOAD_IO_FILE_BYTES)
			off = 0;
	}
}

static void work_msg(int fd)
{
	char buf[128];

	memset(buf, 0, sizeof(buf));
	for (;;) {
		if (write(fd, buf, 100) <= 0)
			_exit(0);
		if (read(fd, buf, sizeof(buf)) <= 0)
			_exit(0);
	}
}

static void work_fork(void)
{
	pid_t me = getpid(), pid;
	unsigned int live = 0;

	for (;;) {
		while (live < RT_LOAD_FORK_LIVE) {
			pid = fork();
			if (pid == 0) {
				volatile char page[4096];

				prctl(PR_SET_PDEATHSIG, SIGKILL);
				if (getppid() != me)
					_exit(0);
				page[0] = 1;
				page[4095] = page[0];
				_exit(0);
			}
			if (pid < 0)
				break;
			live++;
		}
		if (live == 0) {
			rt_time_sleep_ms(1, NULL);	/* fork refused (pids limit): try again shortly */
			continue;
		}
		if (waitpid(-1, NULL, 0) > 0)
			live--;
	}
}

static void work_fault(void)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t i;

	if (page <= 0)
		page = 4096;
	for (;;) {
		char *p = map_anon(RT_LOAD_FAULT_BYTES);

		if (!p) {
			rt_time_sleep_ms(1, NULL);
			continue;
		}
		for (i = 0; i < RT_LOAD_FAULT_BYTES; i += (size_t)page)
			p[i] = 1;
		munmap(p, RT_LOAD_FAULT_BYTES);
	}
}

/* ---- The leader -------------------------------------------------------------- */

struct leader {
	pid_t workers[LOAD_MAX_WORKERS];
	unsigned int nworkers;
	bool exec_workers;		/* workers are stress-ng: end them with SIGTERM first */
};

/* Fork one worker running lp's generator; @arg is its index, @fd its socket. 0 or -1. */
static int spawn(struct leader *ld, const struct load_proc *lp, unsigned int arg, int fd)
{
	pid_t leader = getpid(), pid;

	if (ld->nworkers >= LOAD_MAX_WORKERS)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0) {
		ld->workers[ld->nworkers++] = pid;
		return 0;
	}
	/* Die with the leader; a leader gone before prctl() took effect is caught here. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != leader)
		_exit(0);
	alarm(lp->seconds + 2);
	switch (lp->gen->kind) {
	case LOAD_CPU:
		work_cpu(lp, arg);
		break;
	case LOAD_MEM:
		work_mem();
		break;
	case LOAD_IO:
		work_io(lp);
		break;
	case LOAD_MSG:
		work_msg(fd);
		break;
	case LOAD_FORK:
		work_fork();
		break;
	case LOAD_FAULT:
		work_fault();
		break;
	case LOAD_NG_CPU:
	case LOAD_NG_IO:
		execve(lp->ng_path, lp->ng_argv, environ);
		break;
	}
	_exit(127);
}

static void leader_spawn_all(struct leader *ld, const struct load_proc *lp)
{
	unsigned int i, pairs;

	switch (lp->gen->kind) {
	case LOAD_CPU:
		for (i = 0; i < lp->ncpus; i++)
			spawn(ld, lp, i, -1);
		break;
	case LOAD_MSG:
		pairs = 2 * lp->ncpus;
		if (pairs > RT_LOAD_MSG_MAX_PAIRS)
			pairs = RT_LOAD_MSG_MAX_PAIRS;
		for (i = 0; i < pairs; i++) {
			int sv[2];

			if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
				break;
			spawn(ld, lp, i, sv[0]);
			spawn(ld, lp, i, sv[1]);
			close(sv[0]);
			close(sv[1]);
		}
		break;
	case LOAD_NG_CPU:
	case LOAD_NG_IO:
		ld->exec_workers = true;
		spawn(ld, lp, 0, -1);
		break;
	default:
		spawn(ld, lp, 0, -1);
		break;
	}
}

/*
 * Reap whatever has ended without blocking. A reaped direct worker is
 * forgotten, since its pid may be reused from then on. Returns false once
 * there is no child left at all.
 */
static bool leader_reap_some(struct leader *ld)
{
	unsigned int i;
	pid_t r;

	for (;;) {
		r = waitpid(-1, NULL, WNOHANG);
		if (r == 0)
			return true;
		if (r < 0)
			return errno != ECHILD;
		for (i = 0; i < ld->nworkers; i++)
			if (ld->workers[i] == r)
				ld->workers[i] = 0;
	}
}

static void leader_signal_workers(const struct leader *ld, int sig)
{
	unsigned int i;

	/*
	 * A direct worker that we have not reaped keeps its pid (at worst as
	 * a zombie), so signalling it by pid cannot hit a stranger.
	 */
	for (i = 0; i < ld->nworkers; i++)
		if (ld->workers[i] > 0)
			kill(ld->workers[i], sig);
}

/* End the workers and reap the whole tree: as its subreaper, orphans come to us. */
static void leader_reap_all(struct leader *ld)
{
	uint64_t until;

	if (ld->exec_workers) {
		/* stress-ng stops its own stressors on SIGTERM; give it a second. */
		leader_signal_workers(ld, SIGTERM);
		until = rt_time_deadline_ms(1000);
		while (leader_reap_some(ld) && !rt_time_passed(until))
			rt_time_sleep_ms(5, NULL);
	}
	/* Grandchildren die with their parent (PR_SET_PDEATHSIG). */
	leader_signal_workers(ld, SIGKILL);
	until = rt_time_deadline_ms(LOAD_REAP_WAIT_MS);
	while (leader_reap_some(ld) && !rt_time_passed(until))
		rt_time_sleep_ms(2, NULL);
}

/*
 * The leader, in a process group of its own. rt_child has given it default
 * signal handlers (not the caller's undo journal!), an empty signal mask
 * and, of the caller's descriptors, only the lifeline.
 */
static int leader_main(void *arg)
{
	const struct load_proc *lp = arg;
	struct sched_param sp = { .sched_priority = 0 };
	struct leader ld;
	uint64_t deadline;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	/* Load never runs RT, even when started from an RT thread. */
	sched_setscheduler(0, SCHED_OTHER, &sp);
	/* The lifeline stays ours: stress-ng, which the workers exec, does not get it. */
	fcntl(lp->lifeline_rd, F_SETFD, FD_CLOEXEC);
	alarm(lp->seconds + LOAD_BACKSTOP_S);

	memset(&ld, 0, sizeof(ld));
	deadline = rt_time_deadline_ms(lp->seconds * 1000);
	leader_spawn_all(&ld, lp);

	for (;;) {
		struct pollfd pfd = { .fd = lp->lifeline_rd, .events = POLLIN };
		int left = rt_time_left_ms(deadline);
		int r;

		if (left <= 0)
			break;
		r = poll(&pfd, 1, left > 1000 ? 1000 : left);
		if (r > 0 || (r < 0 && errno != EINTR))
			break;	/* the caller closed its end (stop) or died */
		/* Reap workers that ended early, so they do not linger as zombies. */
		leader_reap_some(&ld);
	}
	/* Out of the loop: the reaping has its own bound, and a late alarm would orphan the tree. */
	alarm(0);
	leader_reap_all(&ld);
	if (lp->dir)
		rm_tree(lp->dir);
	return 0;
}

/* ---- Caller side ------------------------------------------------------------- */

static const struct load_gen *find_gen(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < LOAD_NGENS; i++)
		if (strlen(load_gens[i].name) == len && !strncmp(load_gens[i].name, name, len))
			return &load_gens[i];
	return NULL;
}

const char *rt_load_names(void)
{
	return load_names;
}

const char *rt_load_describe(const char *name)
{
	const struct load_gen *g = name ? find_gen(name, strlen(name)) : NULL;

	return g ? g->help : NULL;
}

static int make_tmpdir(struct load_proc *lp, char **cause)
{
	const char *base = getenv("TMPDIR");
	struct stat st;

	/* /var/tmp is on a disk where /tmp may be memory; a system without it has /tmp. */
	if (!base || !*base)
		base = stat("/var/tmp", &st) == 0 && S_ISDIR(st.st_mode) ? "/var/tmp" : "/tmp";
	if (asprintf(&lp->dir, "%s/rtlab-load-XXXXXX", base) < 0) {
		lp->dir = NULL;
		return rt_err(cause, -ENOMEM, "out of memory");
	}
	if (!mkdtemp(lp->dir)) {
		int err = errno;

		free(lp->dir);
		lp->dir = NULL;
		return rt_err(cause, -err, "cannot create a temp dir in %s: %s", base,
			      strerror(err));
	}
	if (asprintf(&lp->file, "%s/load.dat", lp->dir) < 0) {
		lp->file = NULL;
		return rt_err(cause, -ENOMEM, "out of memory");
	}
	return 0;
}

static int ng_args(struct load_proc *lp, char **cause)
{
	char *a[LOAD_NG_ARGS] = { 0 };
	unsigned int n = 0, i;
	int ret = 0;

	lp->ng_path = rt_which_in("stress-ng", NULL);
	if (!lp->ng_path)
		return rt_err(cause, -ENOENT,
			      "load \"%s\" needs stress-ng, which is not installed (Debian "
			      "package stress-ng); the built-in \"%s\" needs nothing",
			      lp->gen->name, lp->gen->kind == LOAD_NG_CPU ? "cpu" : "io");
	a[n++] = strdup("stress-ng");
	if (lp->gen->kind == LOAD_NG_CPU) {
		a[n++] = strdup("--cpu");
		if (asprintf(&a[n++], "%u", lp->ncpus) < 0)
			a[n - 1] = NULL;
	} else {
		ret = make_tmpdir(lp, cause);
		if (ret)
			goto out_free;
		a[n++] = strdup("--hdd");
		a[n++] = strdup("1");
		a[n++] = strdup("--hdd-bytes");
		a[n++] = strdup("32M");
		a[n++] = strdup("--temp-path");
		a[n++] = strdup(lp->dir);
	}
	a[n++] = strdup("--timeout");
	if (asprintf(&a[n++], "%us", lp->seconds) < 0)
		a[n - 1] = NULL;
	a[n++] = strdup("--quiet");
	for (i = 0; i < n; i++)
		if (!a[i]) {
			ret = rt_err(cause, -ENOMEM, "out of memory");
			goto out_free;
		}
	memcpy(lp->ng_argv, a, sizeof(a));
	return 0;

out_free:
	for (i = 0; i < n; i++)
		free(a[i]);
	return ret;
}

static void list_cpus(struct load_proc *lp)
{
	cpu_set_t set;
	int c;

	lp->ncpus = 0;
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (c = 0; c < CPU_SETSIZE && lp->ncpus < LOAD_MAX_CPUS; c++)
			if (CPU_ISSET(c, &set))
				lp->cpus[lp->ncpus++] = c;
	if (lp->ncpus == 0) {
		lp->cpus[0] = 0;
		lp->ncpus = 1;
	}
}

static int launch(struct load_proc *lp, char **cause)
{
	struct rt_child_opts o = { .fn = leader_main, .arg = lp, .keep_fds = &lp->lifeline_rd,
				   .nkeep = 1 };
	int fds[2], err = 0;

	if (pipe2(fds, O_CLOEXEC) != 0)
		return rt_err(cause, -errno, "pipe: %s", strerror(errno));
	lp->lifeline_rd = fds[0];
	lp->lifeline = fds[1];
	lp->leader = rt_child_start(&o, NULL);
	if (!lp->leader) {
		err = rt_err(cause, -errno, "fork for load \"%s\": %s", lp->gen->name,
			     strerror(errno));
		close(fds[1]);
		lp->lifeline = -1;
	}
	close(fds[0]);
	lp->lifeline_rd = -1;
	return err;
}

/*
 * Reap @lp's leader if it ends within @ms (0: only look); true once it is
 * gone. A leader that did not exit with 0 was killed (its backstop alarm).
 */
static bool leader_gone(struct load_proc *lp, unsigned int ms)
{
	struct rt_child_result res;
	int r = rt_child_wait(lp->leader, ms, &res);

	if (r == -ETIMEDOUT)
		return false;
	if (r == 0 && (res.end != RT_CHILD_EXITED || res.code != 0))
		lp->killed = true;
	rt_child_result_fini(&res);
	rt_child_free(lp->leader);
	lp->leader = NULL;
	return true;
}

/* Stop one generator; 0, or -ETIMEDOUT when its leader had to be killed. */
static int stop_proc(struct load_proc *lp)
{
	if (lp->lifeline >= 0) {
		close(lp->lifeline);
		lp->lifeline = -1;
	}
	if (lp->leader && !leader_gone(lp, LOAD_STOP_WAIT_MS)) {
		rt_child_stop(lp->leader, SIGKILL, 0, NULL);	/* the whole group */
		rt_child_free(lp->leader);
		lp->leader = NULL;
		lp->killed = true;
	}
	if (lp->dir)
		rm_tree(lp->dir);
	return lp->killed ? -ETIMEDOUT : 0;
}

static void load_atexit(void)
{
	struct rt_load *l;
	unsigned int i;

	pthread_mutex_lock(&load_list_lock);
	for (l = load_list; l; l = l->next)
		for (i = 0; i < l->n; i++)
			stop_proc(&l->procs[i]);
	pthread_mutex_unlock(&load_list_lock);
}

static void load_register_atexit(void)
{
	atexit(load_atexit);
}

static void list_add(struct rt_load *l)
{
	pthread_once(&load_once, load_register_atexit);
	pthread_mutex_lock(&load_list_lock);
	l->next = load_list;
	load_list = l;
	pthread_mutex_unlock(&load_list_lock);
}

static void list_del(struct rt_load *l)
{
	struct rt_load **pp;

	pthread_mutex_lock(&load_list_lock);
	for (pp = &load_list; *pp; pp = &(*pp)->next)
		if (*pp == l) {
			*pp = l->next;
			break;
		}
	pthread_mutex_unlock(&load_list_lock);
}

/* Parse @names into @l->procs; -EINVAL with a cause for bad names. */
static int parse_names(struct rt_load *l, const char *names, char **cause)
{
	const char *p = names, *end;
	unsigned int i;

	for (;;) {
		const struct load_gen *g;
		size_t len;

		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		g = find_gen(p, len);
		if (!g)
			return rt_err(cause, -EINVAL, "unknown load \"%.*s\"; valid loads: %s",
				      (int)len, p, load_names);
		for (i = 0; i < l->n; i++)
			if (l->procs[i].gen == g)
				return rt_err(cause, -EINVAL, "load \"%s\" is named twice",
					      g->name);
		l->procs[l->n].gen = g;
		l->procs[l->n].leader = NULL;
		l->procs[l->n].lifeline = -1;
		l->procs[l->n].lifeline_rd = -1;
		l->n++;
		if (!end)
			return 0;
		p = end + 1;
	}
}

static void free_proc(struct load_proc *lp)
{
	unsigned int i;

	free(lp->dir);
	free(lp->file);
	free(lp->ng_path);
	for (i = 0; i < LOAD_NG_ARGS; i++)
		free(lp->ng_argv[i]);
}

struct rt_load *rt_load_start(const char *names, unsigned int seconds_max, char **cause)
{
	struct rt_load *l = NULL;
	unsigned int i, count = 1;
	const char *c;
	int err;

	if (!names || !*names) {
		err = rt_err(cause, -EINVAL, "no load named; valid loads: %s", load_names);
		goto out_err;
	}
	if (seconds_max == 0 || seconds_max > RT_LOAD_MAX_SECONDS) {
		err = rt_err(cause, -EINVAL, "the load time limit must be 1..%u s, not %u",
			     RT_LOAD_MAX_SECONDS, seconds_max);
		goto out_err;
	}
	for (c = names; *c; c++)
		count += *c == ',';
	l = calloc(1, sizeof(*l));
	if (!l || !(l->procs = calloc(count, sizeof(*l->procs)))) {
		err = rt_err(cause, -ENOMEM, "out of memory");
		goto out_free;
	}
	err = parse_names(l, names, cause);
	if (err)
		goto out_free;

	/* Prepare everything before the first fork. */
	for (i = 0; i < l->n; i++) {
		struct load_proc *lp = &l->procs[i];

		lp->seconds = seconds_max;
		list_cpus(lp);
		if (lp->gen->kind == LOAD_IO)
			err = make_tmpdir(lp, cause);
		else if (lp->gen->kind == LOAD_NG_CPU || lp->gen->kind == LOAD_NG_IO)
			err = ng_args(lp, cause);
		if (err)
			goto out_free;
	}
	for (i = 0; i < l->n; i++) {
		err = launch(&l->procs[i], cause);
		if (err)
			goto out_free;
	}
	list_add(l);
	rt_log(RT_LOG_DEBUG, "load: started %s for at most %u s", names, seconds_max);
	return l;

out_free:
	if (l) {
		for (i = 0; l->procs && i < l->n; i++) {
			stop_proc(&l->procs[i]);
			free_proc(&l->procs[i]);
		}
		free(l->procs);
		free(l);
	}
out_err:
	errno = -err;
	return NULL;
}

int rt_load_stop(struct rt_load *l)
{
	unsigned int i;
	int ret = 0, r;

	if (l->stopped)
		return 0;
	/* Close every lifeline first, so all generators wind down together. */
	for (i = 0; i < l->n; i++)
		if (l->procs[i].lifeline >= 0) {
			close(l->procs[i].lifeline);
			l->procs[i].lifeline = -1;
		}
	for (i = 0; i < l->n; i++) {
		r = stop_proc(&l->procs[i]);
		if (r && !ret)
			ret = r;
	}
	l->stopped = true;
	return ret;
}

void rt_load_free(struct rt_load *l)
{
	unsigned int i;

	if (!l)
		return;
	list_del(l);
	rt_load_stop(l);
	for (i = 0; i < l->n; i++)
		free_proc(&l->procs[i]);
	free(l->procs);
	free(l);
}

unsigned int rt_load_count(const struct rt_load *l)
{
	return l->n;
}

const char *rt_load_name(const struct rt_load *l, unsigned int i)
{
	return i < l->n ? l->procs[i].gen->name : NULL;
}

pid_t rt_load_pid(const struct rt_load *l, unsigned int i)
{
	return i < l->n && l->procs[i].leader ? rt_child_pid(l->procs[i].leader) : 0;
}

const char *rt_load_dir(const struct rt_load *l, unsigned int i)
{
	return i < l->n ? l->procs[i].dir : NULL;
}

unsigned int rt_load_alive(struct rt_load *l)
{
	unsigned int i, alive = 0;

	for (i = 0; i < l->n; i++) {
		struct load_proc *lp = &l->procs[i];

		if (lp->leader && !leader_gone(lp, 0))
			alive++;
	}
	return alive;
}
