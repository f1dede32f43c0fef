/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_child: fork, set up, exec; watch, read, signal and reap (see rt_child.h).
 *
 * The parent prepares a plan (struct child_plan) before fork(): the path to
 * execute, every descriptor the child will use, the sorted list of those it
 * keeps. The child then only copies descriptors, closes the rest and execs,
 * all with async-signal-safe calls. A close-on-exec pipe tells the parent
 * how the start went: the child writes its errno there when a step or the
 * exec fails; end-of-file means the exec happened (or, for a function, that
 * the function is about to run). All signals are blocked around fork(), so
 * none of the caller's handlers runs in the child before it has reset them.
 *
 * The end of the child is seen without reaping it (a pidfd that polls
 * readable, or waitid(WNOWAIT)), because its pid is also its group's id:
 * until we reap it, no other group can take that number, and killing the
 * group is always safe.
 */
#include "rt_child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<sys/pidfd.h>)
#include <sys/pidfd.h>
#define CHILD_HAVE_PIDFD_OPEN 1
#endif
#endif

#include "rt_err.h"
#include "rt_time.h"
#include "rt_which.h"

extern char **environ;

/* Without a pidfd, how often we look whether the child has ended. */
#define CHILD_POLL_MS 5
/* One read from a capture pipe. */
#define CHILD_CHUNK 16384
/* After the child ended, the most reads we give to what its pipes still hold. */
#define CHILD_DRAIN_READS 256
/* Highest descriptor we close one by one when close_range() is missing. */
#define CHILD_FD_LIMIT 65536

enum { CHILD_OUT, CHILD_ERR };

/* One captured stream, read by the parent. */
struct child_cap {
	int fd;			/* read end, -1 when not captured or closed */
	char *buf;		/* owned; NUL-terminated */
	size_t len, size, max;
	bool cut;
};

struct rt_child {
	pid_t pid;
	int pidfd;		/* -1 without pidfd_open() */
	bool own_group;
	bool exited;		/* seen ending, not reaped yet */
	bool reaped;
	bool lost;		/* reaped by someone else */
	bool unreaped;		/* killed, but did not go */
	bool output_given;	/* the captured output went to a result */
	int status;		/* wait status, once reaped */
	struct child_cap cap[2];
};

/* Everything the child needs, made by the parent before fork(). */
struct child_plan {
	const char *path;
	char *const *argv;
	char *const *envp;
	int (*fn)(void *arg);
	void *arg;
	int src[3];		/* descriptor for 0, 1 and 2; -1 leaves it */
	bool err_to_out;
	int keep[RT_CHILD_KEEP_MAX];	/* the caller's keep_fds */
	unsigned int nkeep;
	int spared[RT_CHILD_KEEP_MAX + 1];	/* not closed: keep + report pipe, sorted */
	unsigned int nspared;
	int report;		/* write end of the start report pipe */
	int maxfd;		/* for closing one by one without close_range() */
	bool own_group, die_with_parent, new_session;
	pid_t parent;
};

/* ---- In the child: async-signal-safe only ----------------------------------- */

static void child_close_range(unsigned int lo, unsigned int hi, int maxfd)
{
	if (close_range(lo, hi, 0) == 0)
		return;
	for (unsigned int fd = lo; fd <= hi && fd <= (unsigned int)maxfd; fd++)
		close((int)fd);
}

static int child_setup_fds(const struct child_plan *p)
{
	int src[3] = { p->src[0], p->src[1], p->src[2] };
	unsigned int lo = 3;

	/* A source among 0..2 could be overwritten by an earlier dup2(): move it up. */
	for (int i = 0; i < 3; i++)
		if (src[i] >= 0 && src[i] < 3 && src[i] != i) {
			src[i] = fcntl(src[i], F_DUPFD_CLOEXEC, 3);
			if (src[i] < 0)
				return -1;
		}
	for (int i = 0; i < 3; i++) {
		if (src[i] < 0)
			continue;
		if (src[i] == i ? fcntl(i, F_SETFD, 0) < 0 : dup2(src[i], i) < 0)
			return -1;
	}
	if (p->err_to_out && dup2(1, 2) < 0)
		return -1;
	for (unsigned int i = 0; i < p->nkeep; i++)
		if (fcntl(p->keep[i], F_SETFD, 0) < 0)
			return -1;
	for (unsigned int i = 0; i < p->nspared; i++) {
		unsigned int fd = (unsigned int)p->spared[i];

		if (fd > lo)
			child_close_range(lo, fd - 1, p->maxfd);
		lo = fd + 1;
	}
	child_close_range(lo, ~0u, p->maxfd);
	return 0;
}

static __attribute__((noreturn)) void child_main(const struct child_plan *p)
{
	struct sigaction sa;
	sigset_t none;
	int err, ret;

	if (p->new_session) {
		if (setsid() < 0)
			_exit(127);
	} else if (p->own_group) {
		setpgid(0, 0);
	}
	if (p->die_with_parent &&
	    (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != p->parent))
		_exit(127);
	/* Signals are all blocked (see child_fork): reset the handlers, then unblock. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (int sig = 1; sig < NSIG; sig++)
		sigaction(sig, &sa, NULL);	/* fails harmlessly for KILL, STOP, libc's own */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	if (child_setup_fds(p) < 0)
		goto out_report;
	if (p->fn) {
		close(p->report);	/* set up: the parent may go on */
		_exit(p->fn(p->arg) & 0xff);
	}
	execve(p->path, p->argv, p->envp ? p->envp : environ);
out_report:
	err = errno;
	ret = (int)write(p->report, &err, sizeof(err));
	(void)ret;
	_exit(127);
}

/* ---- In the parent: the plan ---------------------------------------------------- */

/* Descriptors the parent opened for the child; closed once it has started. */
struct child_fds {
	int fd[8];
	unsigned int n;
};

static void child_fds_close(struct child_fds *f)
{
	for (unsigned int i = 0; i < f->n; i++)
		close(f->fd[i]);
	f->n = 0;
}

static int child_fds_add(struct child_fds *f, int fd)
{
	f->fd[f->n++] = fd;
	return fd;
}

static int child_open(struct child_fds *f, const char *path, int flags, char **cause)
{
	int fd;

	if (!path)
		return rt_err(cause, -EINVAL, "rt_child: a file redirection without a path");
	fd = open(path, flags | O_CLOEXEC, 0600);
	if (fd < 0)
		return rt_err(cause, -errno, "cannot open %s for a child process: %s", path,
			      strerror(errno));
	return child_fds_add(f, fd);
}

/* The source descriptor for child fd @i (-1: inherit), opening what is needed. */
static int child_source(struct rt_child *c, struct child_fds *f, int i, enum rt_child_io how,
			int fd, const char *path, size_t max, int *null_fd, char **cause)
{
	int pipefd[2];

	switch (how) {
	case RT_CHILD_INHERIT:
		return -1;
	case RT_CHILD_NULL:
		if (*null_fd < 0)
			*null_fd = child_open(f, "/dev/null", O_RDWR, cause);
		return *null_fd;
	case RT_CHILD_FD:
		if (fd < 0)
			return rt_err(cause, -EINVAL, "rt_child: a bad descriptor for fd %d", i);
		return fd;
	case RT_CHILD_FILE:
		return child_open(f, path, i == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC,
				  cause);
	case RT_CHILD_CAPTURE:
		if (i == 0)
			break;
		if (pipe2(pipefd, O_CLOEXEC) < 0)
			return rt_err(cause, -errno, "pipe: %s", strerror(errno));
		fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
		c->cap[i - 1].fd = pipefd[0];
		c->cap[i - 1].max = max;
		return child_fds_add(f, pipefd[1]);
	case RT_CHILD_TO_STDOUT:
		break;
	}
	return rt_err(cause, -EINVAL, "rt_child: fd %d cannot be redirected that way", i);
}

static void child_spare(struct child_plan *p, int fd)
{
	unsigned int i = p->nspared++;

	for (; i > 0 && p->spared[i - 1] > fd; i--)
		p->spared[i] = p->spared[i - 1];
	p->spared[i] = fd;
}

static int child_plan(struct rt_child *c, const struct rt_child_opts *o, struct child_plan *p,
		      struct child_fds *f, char **path, char **cause)
{
	size_t max = o->capture_max ? o->capture_max : RT_CHILD_CAPTURE_MAX;
	int null_fd = -1;
	struct rlimit rl;

	memset(p, 0, sizeof(*p));
	p->report = -1;
	if (!o->fn == !o->argv || (o->argv && !o->argv[0]) || o->nkeep > RT_CHILD_KEEP_MAX ||
	    (o->nkeep && !o->keep_fds) || o->in == RT_CHILD_TO_STDOUT ||
	    o->out == RT_CHILD_TO_STDOUT)
		return rt_err(cause, -EINVAL, "rt_child: bad options");
	for (unsigned int i = 0; i < o->nkeep; i++) {
		if (o->keep_fds[i] < 3 || fcntl(o->keep_fds[i], F_GETFD) < 0)
			return rt_err(cause, -EBADF, "rt_child: cannot keep descriptor %d",
				      o->keep_fds[i]);
		for (unsigned int k = 0; k < i; k++)
			if (o->keep_fds[k] == o->keep_fds[i])
				return rt_err(cause, -EINVAL, "rt_child: descriptor %d kept twice",
					      o->keep_fds[i]);
		p->keep[p->nkeep++] = o->keep_fds[i];
		child_spare(p, o->keep_fds[i]);
	}
	if (o->argv) {
		p->argv = o->argv;
		p->envp = o->envp;
		if (o->path || strchr(o->argv[0], '/')) {
			p->path = o->path ? o->path : o->argv[0];
		} else {
			/* Looked up here, as execvp() would: it is not async-signal-safe. */
			*path = rt_which_in(o->argv[0], NULL);
			if (!*path)
				return rt_err(cause, -errno, "cannot run %s: %s", o->argv[0],
					      strerror(errno));
			p->path = *path;
		}
	}
	p->fn = o->fn;
	p->arg = o->arg;

	p->src[0] = child_source(c, f, 0, o->in, o->in_fd, o->in_path, max, &null_fd, cause);
	if (p->src[0] < -1)
		return p->src[0];
	p->src[1] = child_source(c, f, 1, o->out, o->out_fd, o->out_path, max, &null_fd, cause);
	if (p->src[1] < -1)
		return p->src[1];
	if (o->err == RT_CHILD_TO_STDOUT) {
		p->src[2] = -1;
		p->err_to_out = true;
	} else {
		p->src[2] = child_source(c, f, 2, o->err, o->err_fd, o->err_path, max, &null_fd,
					 cause);
		if (p->src[2] < -1)
			return p->src[2];
	}
	p->own_group = !(o->flags & RT_CHILD_SAME_PGRP);
	p->die_with_parent = o->flags & RT_CHILD_DIE_WITH_PARENT;
	p->new_session = (o->flags & RT_CHILD_NEW_SESSION) && p->own_group;
	p->parent = getpid();
	p->maxfd = CHILD_FD_LIMIT;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < CHILD_FD_LIMIT)
		p->maxfd = (int)rl.rlim_cur;
	return 0;
}

/* ---- In the parent: start ------------------------------------------------------- */

static int child_pidfd(pid_t pid)
{
#ifdef CHILD_HAVE_PIDFD_OPEN
	return pidfd_open(pid, 0);
#elif defined(SYS_pidfd_open)
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

static void child_reap_blocking(pid_t pid)
{
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* Fork and wait for the start report; 0, or the child's errno negated. */
static int child_fork(struct rt_child *c, struct child_plan *p, char **cause)
{
	sigset_t all, old;
	int report[2], err = 0;
	ssize_t n;

	if (pipe2(report, O_CLOEXEC) < 0)
		return rt_err(cause, -errno, "pipe: %s", strerror(errno));
	p->report = report[1];
	child_spare(p, report[1]);

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	c->pid = fork();
	if (c->pid == 0)
		child_main(p);
	err = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(report[1]);
	if (c->pid < 0) {
		close(report[0]);
		return rt_err(cause, -err, "fork: %s", strerror(err));
	}
	/*
	 * Also here, so the group exists whichever of the two runs first; not
	 * for a new session, which setsid() makes (a group leader could not).
	 */
	if (p->own_group && !p->new_session)
		setpgid(c->pid, c->pid);
	c->own_group = p->own_group;
	c->pidfd = child_pidfd(c->pid);

	do
		n = read(report[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(report[0]);
	if (n == (ssize_t)sizeof(err)) {
		/* It exits at once: reap it, so no zombie is left. */
		child_reap_blocking(c->pid);
		c->reaped = true;
		return rt_err(cause, -err, "cannot run %s: %s",
			      p->argv ? p->argv[0] : "a function in a child process",
			      strerror(err));
	}
	return 0;
}

static void child_free_mem(struct rt_child *c)
{
	for (int i = 0; i < 2; i++) {
		if (c->cap[i].fd >= 0)
			close(c->cap[i].fd);
		free(c->cap[i].buf);
	}
	if (c->pidfd >= 0)
		close(c->pidfd);
	free(c);
}

struct rt_child *rt_child_start(const struct rt_child_opts *o, char **cause)
{
	struct child_fds fds = { .n = 0 };
	struct child_plan plan;
	struct rt_child *c;
	char *path = NULL;
	int ret;

	c = calloc(1, sizeof(*c));
	if (!c) {
		rt_err(cause, -ENOMEM, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	c->pid = -1;
	c->pidfd = -1;
	for (int i = 0; i < 2; i++) {
		c->cap[i].fd = -1;
		c->cap[i].buf = calloc(1, 1);
		c->cap[i].size = 1;
		if (!c->cap[i].buf) {
			ret = rt_err(cause, -ENOMEM, "out of memory");
			goto out_free;
		}
	}
	ret = child_plan(c, o, &plan, &fds, &path, cause);
	if (!ret)
		ret = child_fork(c, &plan, cause);
	child_fds_close(&fds);
	free(path);
	if (!ret)
		return c;
out_free:
	child_free_mem(c);
	errno = -ret;
	return NULL;
}

/* ---- In the parent: watch, read, reap ------------------------------------------- */

/* Read once from @cp: 1 when bytes came, 0 when none are there now, -1 at the end (closed). */
static int child_read(struct child_cap *cp)
{
	char chunk[CHILD_CHUNK];
	ssize_t n;
	size_t keep;

	do
		n = read(cp->fd, chunk, sizeof(chunk));
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return 0;
	if (n <= 0) {
		close(cp->fd);
		cp->fd = -1;
		return -1;
	}
	keep = cp->len < cp->max ? cp->max - cp->len : 0;
	if (keep > (size_t)n)
		keep = (size_t)n;
	if (cp->len + keep + 1 > cp->size) {
		size_t size = cp->size * 2;
		char *bigger;

		while (size < cp->len + keep + 1)
			size *= 2;
		if (size > cp->max + 1)
			size = cp->max + 1;
		bigger = realloc(cp->buf, size);
		if (!bigger) {
			keep = 0;	/* out of memory: drop, as past the cap */
		} else {
			cp->buf = bigger;
			cp->size = size;
		}
	}
	memcpy(cp->buf + cp->len, chunk, keep);
	cp->len += keep;
	cp->buf[cp->len] = '\0';
	if (keep < (size_t)n)
		cp->cut = true;
	return 1;
}

/* Has the child ended? Seen without reaping it. */
static bool child_ended(struct rt_child *c)
{
	siginfo_t si;

	if (c->exited || c->reaped)
		return true;
	for (;;) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0)
			break;
		if (errno == EINTR)
			continue;
		/* Not ours any more (SIGCHLD ignored, or reaped elsewhere). */
		c->lost = c->reaped = true;
		return true;
	}
	c->exited = si.si_pid == c->pid;
	return c->exited;
}

/*
 * Wait until the child ends or @deadline passes (never with @forever),
 * reading the pipes meanwhile. True when it has ended.
 */
static bool child_watch(struct rt_child *c, uint64_t deadline, bool forever)
{
	for (;;) {
		struct pollfd pfd[3];
		nfds_t n = 0;
		int ms;

		if (child_ended(c))
			return true;
		ms = forever ? -1 : rt_time_left_ms(deadline);
		if (ms == 0)
			return false;
		for (int i = 0; i < 2; i++)
			if (c->cap[i].fd >= 0)
				pfd[n++] = (struct pollfd){ .fd = c->cap[i].fd, .events = POLLIN };
		if (c->pidfd >= 0)
			pfd[n++] = (struct pollfd){ .fd = c->pidfd, .events = POLLIN };
		else if (ms < 0 || ms > CHILD_POLL_MS)
			ms = CHILD_POLL_MS;
		if (poll(pfd, n, ms) <= 0)
			continue;	/* time up, or a signal: look again */
		for (nfds_t i = 0; i < n; i++) {
			if (!pfd[i].revents || pfd[i].fd == c->pidfd)
				continue;
			for (int k = 0; k < 2; k++)
				if (c->cap[k].fd == pfd[i].fd) {
					child_read(&c->cap[k]);
					break;
				}
		}
	}
}

/*
 * Take what the pipes hold now and close them, even if something the child
 * started keeps them open: once the child has ended (or would not die),
 * nothing more is waited for.
 */
static void child_drain(struct rt_child *c)
{
	for (int i = 0; i < 2; i++) {
		for (int r = 0; c->cap[i].fd >= 0 && r < CHILD_DRAIN_READS; r++)
			if (child_read(&c->cap[i]) <= 0)
				break;
		if (c->cap[i].fd >= 0) {
			close(c->cap[i].fd);
			c->cap[i].fd = -1;
		}
	}
}

/* The child has ended: read the rest of its output and reap it. */
static void child_finish(struct rt_child *c)
{
	child_drain(c);
	if (!c->reaped) {
		int status = 0;

		while (waitpid(c->pid, &status, 0) < 0) {
			if (errno == EINTR)
				continue;
			c->lost = true;
			break;
		}
		c->status = status;
		c->reaped = true;
	}
}

/* How the child ended, and (once) its output; @output false: only that it runs. */
static void child_fill(struct rt_child *c, struct rt_child_result *res, bool output)
{
	memset(res, 0, sizeof(*res));
	res->pid = c->pid;
	res->unreaped = c->unreaped;
	if (!c->reaped || c->lost) {
		res->end = RT_CHILD_RUNNING;
	} else if (WIFSIGNALED(c->status)) {
		res->end = RT_CHILD_SIGNALED;
		res->code = WTERMSIG(c->status);
	} else {
		res->end = RT_CHILD_EXITED;
		res->code = WEXITSTATUS(c->status);
	}
	if (!output)
		return;
	if (!c->output_given) {
		res->out = c->cap[CHILD_OUT].buf;
		res->out_len = c->cap[CHILD_OUT].len;
		res->out_cut = c->cap[CHILD_OUT].cut;
		res->err = c->cap[CHILD_ERR].buf;
		res->err_len = c->cap[CHILD_ERR].len;
		res->err_cut = c->cap[CHILD_ERR].cut;
		c->cap[CHILD_OUT].buf = c->cap[CHILD_ERR].buf = NULL;
		c->output_given = true;
	} else {
		res->out = calloc(1, 1);
		res->err = calloc(1, 1);
	}
}

static int child_kill(struct rt_child *c, int sig)
{
	if (c->reaped)
		return -ESRCH;
	if (c->own_group && kill(-c->pid, sig) == 0)
		return 0;
	return kill(c->pid, sig) == 0 ? 0 : -errno;
}

pid_t rt_child_pid(const struct rt_child *c)
{
	return c->pid;
}

int rt_child_signal(struct rt_child *c, int sig)
{
	return child_kill(c, sig);
}

int rt_child_wait(struct rt_child *c, unsigned int timeout_ms, struct rt_child_result *res)
{
	bool forever = timeout_ms == RT_CHILD_FOREVER;

	if (!child_watch(c, forever ? 0 : rt_time_deadline_ms(timeout_ms), forever)) {
		if (res)
			child_fill(c, res, false);
		return -ETIMEDOUT;
	}
	child_finish(c);
	if (res)
		child_fill(c, res, true);
	return c->lost ? -ECHILD : 0;
}

int rt_child_stop(struct rt_child *c, int sig, unsigned int grace_ms,
		  struct rt_child_result *res)
{
	if (!c->reaped) {
		if (!child_ended(c) && sig != SIGKILL) {
			child_kill(c, sig);
			child_watch(c, rt_time_deadline_ms(grace_ms), false);
		}
		/* The child is not reaped yet: its group id is still ours to signal. */
		if (c->own_group || !child_ended(c))
			child_kill(c, SIGKILL);
		if (child_watch(c, rt_time_deadline_ms(RT_CHILD_REAP_MS), false)) {
			child_finish(c);
		} else {
			c->unreaped = true;
			child_drain(c);
		}
	}
	if (res)
		child_fill(c, res, true);
	return c->unreaped ? -ETIMEDOUT : 0;
}

void rt_child_free(struct rt_child *c)
{
	if (!c)
		return;
	if (!c->reaped && !c->unreaped)
		rt_child_stop(c, SIGKILL, 0, NULL);
	else if (!c->reaped && waitpid(c->pid, NULL, WNOHANG) == c->pid)
		c->reaped = true;	/* it went in the end */
	child_free_mem(c);
}

void rt_child_result_fini(struct rt_child_result *res)
{
	if (!res)
		return;
	free(res->out);
	free(res->err);
	res->out = res->err = NULL;
	res->out_len = res->err_len = 0;
}

int rt_child_run(const struct rt_child_opts *o, unsigned int timeout_ms,
		 struct rt_child_result *res, char **cause)
{
	bool forever = timeout_ms == RT_CHILD_FOREVER;
	uint64_t deadline = forever ? 0 : rt_time_deadline_ms(timeout_ms);
	struct rt_child *c;
	bool late;

	memset(res, 0, sizeof(*res));
	c = rt_child_start(o, cause);
	if (!c)
		return -errno;
	if (o->on_start)
		o->on_start(o->on_start_arg, c->pid);
	late = !child_watch(c, deadline, forever);
	if (late)
		rt_child_stop(c, SIGTERM, RT_CHILD_GRACE_MS, res);
	else
		rt_child_wait(c, 0, res);
	if (late) {
		res->end = RT_CHILD_TIMEOUT;
		if (!c->reaped || c->lost || !WIFSIGNALED(c->status))
			res->code = 0;
	}
	rt_child_free(c);
	return 0;
}
