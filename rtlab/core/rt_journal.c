/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_journal: the live undo journal of this process (see rt_journal.h for
 * the contract and doc/journal.md for the file format and the rules).
 *
 * The journal lives twice: as a list of entries in memory, prepared so that
 * a signal handler can replay it with plain syscalls, and as a small text
 * file rewritten in full before every change, so a killed process leaves a
 * complete record behind. The handler never takes a lock, never allocates
 * and never logs; everything it needs (canonical paths, old bytes, the
 * journal directory's descriptor and the file's name) was prepared when the
 * entry was made.
 *
 * The other pieces: rt_journal_kinds.c holds the kind table (what each kind
 * of entry may name and how it is undone), rt_journal_text.c the file
 * format, rt_journal_dir.c the trusted directory and recovery.
 *
 * Failed changes: a file, scheduling or affinity entry whose change failed
 * stays in the journal (restoring a value that was never changed is
 * harmless). A tracefs instance or network namespace entry whose creation
 * failed is dropped, because undoing it would remove something that is not
 * ours. A change whose entry the kind table would reject is refused before
 * anything is written: a journal must never hold a change it cannot undo.
 *
 * After a replay the journal file is removed even if some undo steps failed
 * (each failure is logged): retrying on every start would not make a step
 * that cannot succeed succeed, and would repeat the warning forever.
 */
#include "rt_journal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "rt_buf.h"
#include "rt_err.h"
#include "rt_file.h"
#include "rt_journal-int.h"
#include "rt_log.h"

#define JR_NETNS_DIR "/run/netns"

/* Values of struct rt_journal.replay_state. */
enum {
	JR_IDLE,
	JR_RUNNING,
	JR_DONE,
};

struct rt_journal {
	struct rt_journal_doc doc;	/* owned; doc.newest is read by the signal handler */
	char *dir;			/* owned; the journal directory */
	char *path;			/* owned; "<dir>/<pid>.journal", for messages */
	char name[32];			/* "<pid>.journal" */
	int dfd;			/* owned; the verified directory */
	pid_t owner;			/* the opener; a forked child must not replay */
	unsigned int refs;
	bool on_disk;			/* the file has been written */
	pthread_mutex_t lock;		/* serialises changes; never taken by the handler */
	int replay_state;		/* JR_*, atomic */
	pid_t replayer;			/* tid replaying, atomic */
	void *altstack;			/* owned; installed when the thread had none */
};

static const int jr_signals[] = {
	SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
};
#define JR_NSIGNALS (sizeof(jr_signals) / sizeof(jr_signals[0]))

static struct rt_journal *jr_current;		/* atomic; the open journal of this process */
static pthread_mutex_t jr_open_lock = PTHREAD_MUTEX_INITIALIZER;
static bool jr_atexit_done;
static struct sigaction jr_prev[JR_NSIGNALS];	/* dispositions before rt_journal_open */
static bool jr_installed[JR_NSIGNALS];

/* ---- Async-signal-safe helpers ------------------------------------------- */

static pid_t jr_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* Replay every live entry, newest first. Async-signal-safe. */
static void jr_replay_quiet(struct rt_journal_doc *doc)
{
	struct rt_journal_entry *e;

	for (e = __atomic_load_n(&doc->newest, __ATOMIC_ACQUIRE); e; e = e->older)
		if (!__atomic_load_n(&e->dropped, __ATOMIC_ACQUIRE))
			rt_journal_entry_replay(e);
}

/* ---- Signal handling ------------------------------------------------------ */

static int jr_signal_index(int sig)
{
	for (size_t i = 0; i < JR_NSIGNALS; i++)
		if (jr_signals[i] == sig)
			return (int)i;
	return -1;
}

/* True for the signals that ask a process to stop, as opposed to faults. */
static bool jr_is_request(int sig)
{
	return sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT;
}

/* The handler the application had installed for @idx before the journal, if any. */
static bool jr_has_app_handler(int idx)
{
	const struct sigaction *prev;

	if (idx < 0 || !jr_installed[idx])
		return false;
	prev = &jr_prev[idx];
	if (prev->sa_flags & SA_SIGINFO)
		return prev->sa_sigaction != NULL;
	return prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN;
}

/*
 * A stop request (SIGINT, SIGTERM, SIGHUP, SIGQUIT) that the application
 * handles itself (the UI leaving its loop, a lab ending its run) is passed
 * to that handler and nothing else happens here: the application goes on
 * to exit normally, and the atexit hook or rt_journal_close() replays. The
 * host is not restored under a lab that is still running.
 *
 * Otherwise (no handler of its own, or a fault such as SIGSEGV): replay
 * (once per process, whichever thread gets there first), call the previous
 * handler if there was one, and die by the signal's default action so the
 * exit status tells the truth.
 */
static void jr_handler(int sig, siginfo_t *si, void *uc)
{
	struct rt_journal *j = __atomic_load_n(&jr_current, __ATOMIC_ACQUIRE);
	int saved_errno = errno, idx = jr_signal_index(sig);
	struct sigaction dfl;

	if (jr_is_request(sig) && jr_has_app_handler(idx) && j && j->owner == getpid()) {
		const struct sigaction *prev = &jr_prev[idx];

		if (prev->sa_flags & SA_SIGINFO)
			prev->sa_sigaction(sig, si, uc);
		else
			prev->sa_handler(sig);
		errno = saved_errno;
		return;
	}

	if (j && j->owner == getpid()) {
		int expect = JR_IDLE;
		pid_t self = jr_gettid();

		if (__atomic_compare_exchange_n(&j->replay_state, &expect, JR_RUNNING, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&j->replayer, self, __ATOMIC_RELEASE);
			jr_replay_quiet(&j->doc);
			if (j->on_disk)
				unlinkat(j->dfd, j->name, 0);
			__atomic_store_n(&j->replay_state, JR_DONE, __ATOMIC_RELEASE);
		} else if (__atomic_load_n(&j->replayer, __ATOMIC_ACQUIRE) != self) {
			/* Another thread is replaying: let it finish before we die. */
			struct timespec ms = { 0, 1000000 };

			while (__atomic_load_n(&j->replay_state, __ATOMIC_ACQUIRE) == JR_RUNNING)
				nanosleep(&ms, NULL);
		}
		/* else: a fault inside our own replay; do not wait for ourselves. */
	}

	if (idx >= 0 && jr_installed[idx]) {
		const struct sigaction *prev = &jr_prev[idx];

		if (prev->sa_flags & SA_SIGINFO) {
			if (prev->sa_sigaction)
				prev->sa_sigaction(sig, si, uc);
		} else if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
			prev->sa_handler(sig);
		}
	}
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	/* Pending until the handler returns and the signal is unblocked. */
	raise(sig);
	errno = saved_errno;
}

static int jr_install_handlers(char **cause)
{
	struct sigaction sa;
	size_t i;
	int err;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = jr_handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	/* No re-entry on this thread: every journal signal waits during replay. */
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < JR_NSIGNALS; i++)
		sigaddset(&sa.sa_mask, jr_signals[i]);

	for (i = 0; i < JR_NSIGNALS; i++) {
		int sig = jr_signals[i];

		if (sigaction(sig, NULL, &jr_prev[i]) < 0)
			goto out_fail;
		/* A terminal signal someone chose to ignore (nohup) stays ignored. */
		if (jr_prev[i].sa_handler == SIG_IGN && !(jr_prev[i].sa_flags & SA_SIGINFO) &&
		    (sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT))
			continue;
		if (sigaction(sig, &sa, NULL) < 0)
			goto out_fail;
		jr_installed[i] = true;
	}
	return 0;

out_fail:
	err = -errno;
	for (i = 0; i < JR_NSIGNALS; i++) {
		if (jr_installed[i])
			sigaction(jr_signals[i], &jr_prev[i], NULL);
		jr_installed[i] = false;
	}
	return rt_err(cause, err, "cannot install signal handler: %s", strerror(-err));
}

static void jr_uninstall_handlers(void)
{
	for (size_t i = 0; i < JR_NSIGNALS; i++) {
		if (jr_installed[i])
			sigaction(jr_signals[i], &jr_prev[i], NULL);
		jr_installed[i] = false;
	}
}

/* A fault from stack overflow can only be handled on an alternate stack. */
static void jr_altstack_init(struct rt_journal *j)
{
	stack_t old, ss;

	if (sigaltstack(NULL, &old) < 0 || !(old.ss_flags & SS_DISABLE))
		return;
	ss.ss_size = 64 * 1024;
	ss.ss_sp = malloc(ss.ss_size);
	ss.ss_flags = 0;
	if (!ss.ss_sp)
		return;
	if (sigaltstack(&ss, NULL) < 0) {
		free(ss.ss_sp);
		return;
	}
	j->altstack = ss.ss_sp;
}

static void jr_altstack_fini(struct rt_journal *j)
{
	stack_t cur, off;

	if (!j->altstack)
		return;
	/* Only the thread that installed it may take it down. */
	if (sigaltstack(NULL, &cur) == 0 && cur.ss_sp == j->altstack &&
	    !(cur.ss_flags & SS_ONSTACK)) {
		memset(&off, 0, sizeof(off));
		off.ss_flags = SS_DISABLE;
		if (sigaltstack(&off, NULL) == 0)
			free(j->altstack);
	}
	j->altstack = NULL;
}

/* ---- Recording ------------------------------------------------------------ */

static void jr_unlink_unpublished(struct rt_journal_doc *doc, struct rt_journal_entry *e)
{
	if (e->older)
		e->older->newer = NULL;
	else
		doc->oldest = NULL;
}

/* Rewrite the journal file from the in-memory list. Called with j->lock held. */
static int jr_sync(struct rt_journal *j, char **cause)
{
	struct rt_buf b = RT_BUF_INIT;
	int ret = rt_journal_format(&j->doc, &b);

	if (ret) {
		rt_err(cause, ret, "%s: out of memory", j->path);
		goto out_free;
	}
	ret = rt_journal_dir_write(j->dfd, j->dir, j->name, b.data ? b.data : "", b.len, cause);
	if (!ret)
		j->on_disk = true;
out_free:
	rt_buf_fini(&b);
	return ret;
}

/*
 * Make @e durable, then visible to the signal handler. On failure @e is
 * freed and nothing changes. Called with j->lock held.
 */
static int jr_record(struct rt_journal *j, struct rt_journal_entry *e, char **cause)
{
	int ret;

	rt_journal_doc_link(&j->doc, e);
	ret = jr_sync(j, cause);
	if (ret) {
		jr_unlink_unpublished(&j->doc, e);
		rt_journal_entry_free(e);
		return ret;
	}
	rt_journal_doc_publish(&j->doc, e);
	return 0;
}

/* The change of @e failed and was never made: forget it. Called with j->lock held. */
static void jr_drop(struct rt_journal *j, struct rt_journal_entry *e)
{
	char *cause = NULL;

	__atomic_store_n(&e->dropped, true, __ATOMIC_RELEASE);
	j->doc.n--;
	if (jr_sync(j, &cause))
		rt_log(RT_LOG_WARN, "journal: cannot drop a failed change from %s: %s", j->path,
		       cause ? cause : "unknown error");
	free(cause);
}


/* ---- Open and close --------------------------------------------------------- */

size_t rt_journal_count(const struct rt_journal *j)
{
	return j ? j->doc.n : 0;
}

static void jr_free(struct rt_journal *j)
{
	rt_journal_doc_fini(&j->doc);
	pthread_mutex_destroy(&j->lock);
	if (j->dfd >= 0)
		close(j->dfd);
	free(j->dir);
	free(j->path);
	free(j);
}

/*
 * Replay (unless a handler already did), remove the file, restore the
 * previous signal handlers and free @j. Called with jr_open_lock held.
 */
static int jr_finish(struct rt_journal *j)
{
	sigset_t block, old;
	int expect = JR_IDLE, ret = 0;

	/* A signal arriving now is handled after the replay, by the previous handler. */
	sigemptyset(&block);
	for (size_t i = 0; i < JR_NSIGNALS; i++)
		if (jr_signals[i] != SIGSEGV && jr_signals[i] != SIGBUS &&
		    jr_signals[i] != SIGFPE && jr_signals[i] != SIGILL)
			sigaddset(&block, jr_signals[i]);
	pthread_sigmask(SIG_BLOCK, &block, &old);

	pthread_mutex_lock(&j->lock);
	if (__atomic_compare_exchange_n(&j->replay_state, &expect, JR_RUNNING, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&j->replayer, jr_gettid(), __ATOMIC_RELEASE);
		ret = rt_journal_replay_logged(&j->doc, j->path, NULL);
		if (j->on_disk) {
			if (unlinkat(j->dfd, j->name, 0) < 0 && errno != ENOENT) {
				rt_log(RT_LOG_WARN, "journal: cannot remove %s: %s", j->path,
				       strerror(errno));
				if (!ret)
					ret = -errno;
			} else {
				fsync(j->dfd);
			}
		}
		__atomic_store_n(&j->replay_state, JR_DONE, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&j->lock);

	__atomic_store_n(&jr_current, NULL, __ATOMIC_RELEASE);
	jr_uninstall_handlers();
	jr_altstack_fini(j);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	jr_free(j);
	return ret;
}

/* A child forked from the journalling process inherits a copy: let it go, untouched. */
static void jr_forget_inherited(struct rt_journal *j)
{
	__atomic_store_n(&jr_current, NULL, __ATOMIC_RELEASE);
	jr_uninstall_handlers();
	jr_altstack_fini(j);
	rt_journal_doc_fini(&j->doc);
	if (j->dfd >= 0)
		close(j->dfd);	/* the child's copy */
	free(j->dir);
	free(j->path);
	free(j);
}

static void jr_atexit(void)
{
	struct rt_journal *j;

	/* exit() called while the lock is held (from a handler?): the file stays for recovery. */
	if (pthread_mutex_trylock(&jr_open_lock))
		return;
	j = __atomic_load_n(&jr_current, __ATOMIC_ACQUIRE);
	if (j && j->owner == getpid())
		jr_finish(j);
	pthread_mutex_unlock(&jr_open_lock);
}

struct rt_journal *rt_journal_open(const char *dir, char **cause)
{
	struct rt_journal *j = NULL;
	int ret;

	pthread_mutex_lock(&jr_open_lock);
	j = __atomic_load_n(&jr_current, __ATOMIC_ACQUIRE);
	if (j && j->owner != getpid()) {
		jr_forget_inherited(j);
		j = NULL;
	}
	if (j) {
		j->refs++;
		goto out_unlock;
	}

	j = calloc(1, sizeof(*j));
	if (!j) {
		ret = rt_err(cause, -ENOMEM, "out of memory");
		goto out_fail;
	}
	pthread_mutex_init(&j->lock, NULL);
	j->dfd = -1;
	j->owner = getpid();
	j->refs = 1;
	j->doc.pid = j->owner;
	j->dir = dir ? strdup(dir) : rt_journal_default_dir();
	if (!j->dir) {
		ret = rt_err(cause, errno ? -errno : -ENOMEM,
			     "cannot find the journal directory: %s", strerror(errno));
		goto out_fail;
	}
	/* Created if missing, and trusted only if it is ours alone (rt_journal_dir.c). */
	j->dfd = rt_journal_dir_open(j->dir, true, cause);
	if (j->dfd < 0) {
		ret = j->dfd;
		if (ret == -ENOENT)
			rt_err(cause, ret, "journal directory %s: %s", j->dir, strerror(-ret));
		goto out_fail;
	}
	snprintf(j->name, sizeof(j->name), "%d%s", (int)j->owner, RT_JOURNAL_SUFFIX);
	if (asprintf(&j->path, "%s/%s", j->dir, j->name) < 0) {
		j->path = NULL;
		ret = rt_err(cause, -ENOMEM, "out of memory");
		goto out_fail;
	}
	ret = rt_journal_boot_id(j->doc.boot_id, cause);
	if (ret)
		goto out_fail;
	ret = rt_journal_proc_start(j->owner, &j->doc.start);
	if (ret) {
		rt_err(cause, ret, "cannot read the start time of process %d: %s", (int)j->owner,
		       strerror(-ret));
		goto out_fail;
	}
	/* A journal with our own name exists before we wrote one: a dead namesake's. */
	ret = rt_journal_dir_settle_namesake(j->dfd, j->dir, j->name, j->doc.boot_id, cause);
	if (ret)
		goto out_fail;
	ret = jr_install_handlers(cause);
	if (ret)
		goto out_fail;
	jr_altstack_init(j);
	if (!jr_atexit_done) {
		if (atexit(jr_atexit)) {
			jr_uninstall_handlers();
			jr_altstack_fini(j);
			ret = rt_err(cause, -ENOMEM, "cannot register the exit hook");
			goto out_fail;
		}
		jr_atexit_done = true;
	}
	__atomic_store_n(&jr_current, j, __ATOMIC_RELEASE);
	goto out_unlock;

out_fail:
	if (j)
		jr_free(j);
	j = NULL;
	errno = -ret;
out_unlock:
	pthread_mutex_unlock(&jr_open_lock);
	return j;
}

int rt_journal_close(struct rt_journal *j)
{
	int ret = 0;

	if (!j)
		return 0;
	pthread_mutex_lock(&jr_open_lock);
	if (j != __atomic_load_n(&jr_current, __ATOMIC_ACQUIRE)) {
		ret = -EBADF;	/* closed already */
	} else if (j->owner != getpid()) {
		/* Inherited across fork: not ours to replay. */
		jr_forget_inherited(j);
		ret = -EBADF;
	} else if (--j->refs == 0) {
		ret = jr_finish(j);
	}
	pthread_mutex_unlock(&jr_open_lock);
	return ret;
}

/* Add tracefs's own explanation to a failed write under tracefs. */
static int jr_write_error(const char *path, int err, char **cause)
{
	struct tracefs_instance *inst = NULL;
	char *why = NULL, *name = NULL;
	const char *at;
	struct statfs sf;

	if (statfs(path, &sf) == 0 && sf.f_type == TRACEFS_MAGIC) {
		at = strstr(path, "/instances/");
		if (at) {
			char *tdir = strndup(path, (size_t)(at - path));

			at += strlen("/instances/");
			name = strndup(at, strcspn(at, "/"));
			if (tdir && name)
				inst = tracefs_instance_alloc(tdir, name);
			free(tdir);
			if (inst)
				why = tracefs_error_last(inst);
		} else {
			why = tracefs_error_last(NULL);
		}
	}
	if (why && *why)
		rt_err(cause, err, "cannot write %s: %s (tracefs: %s)", path, strerror(-err),
		       why);
	else
		rt_err(cause, err, "cannot write %s: %s", path, strerror(-err));
	free(why);
	free(name);
	tracefs_instance_free(inst);
	return err;
}

static int jr_check_open(const struct rt_journal *j, char **cause)
{
	if (!j)
		return rt_err(cause, -EINVAL, "no journal");
	if (j->owner != getpid())
		return rt_err(cause, -EBADF, "the journal belongs to process %d", (int)j->owner);
	return 0;
}

/*
 * Journal @path's undo value, then write @value. The undo value is the
 * file's current contents, or @undo (@undo_len bytes) when given; the file
 * is read either way, so a knob replay could not open is refused first.
 */
static int jr_write_knob(struct rt_journal *j, const char *path, const char *undo,
			 size_t undo_len, const char *value, size_t len, char **cause)
{
	struct rt_journal_entry *e = NULL;
	const char *why = NULL;
	char *abs = NULL;
	int ret;

	ret = jr_check_open(j, cause);
	if (ret)
		return ret;
	if (!path || (!value && len))
		return rt_err(cause, -EINVAL, "no path or value");
	/* The handler may run after a chdir(); resolve now. */
	abs = realpath(path, NULL);
	if (!abs)
		return rt_err(cause, -errno, "%s: %s", path, strerror(errno));
	e = calloc(1, sizeof(*e));
	if (!e) {
		ret = rt_err(cause, -ENOMEM, "out of memory");
		goto out_free;
	}
	e->kind = RT_JOURNAL_FILE;
	/* Refused here if replay would refuse it: never record what cannot be undone. */
	ret = rt_journal_knob_read(abs, &e->old, &e->old_len, &why);
	if (ret) {
		if (why)
			rt_err(cause, ret, "%s: the journal may not change it: %s", abs, why);
		else
			rt_err(cause, ret, "cannot read the current value of %s: %s", abs,
			       strerror(-ret));
		goto out_free;
	}
	if (undo) {
		char *copy = malloc(undo_len + 1);

		if (!copy) {
			ret = rt_err(cause, -ENOMEM, "out of memory");
			goto out_free;
		}
		memcpy(copy, undo, undo_len);
		copy[undo_len] = '\0';
		free(e->old);
		e->old = copy;
		e->old_len = undo_len;
	}
	e->path = abs;
	abs = NULL;

	pthread_mutex_lock(&j->lock);
	ret = jr_record(j, e, cause);
	e = NULL;	/* owned by the journal, or freed by jr_record */
	if (!ret) {
		ret = rt_journal_knob_write(j->doc.newest->path, value, len, &why);
		if (ret && why)
			rt_err(cause, ret, "%s: the journal may not change it: %s",
			       j->doc.newest->path, why);
		else if (ret)
			jr_write_error(j->doc.newest->path, ret, cause);
	}
	pthread_mutex_unlock(&j->lock);

out_free:
	rt_journal_entry_free(e);
	free(abs);
	return ret;
}

int rt_journal_write_file(struct rt_journal *j, const char *path, const char *value,
			  size_t len, char **cause)
{
	return jr_write_knob(j, path, NULL, 0, value, len, cause);
}

int rt_journal_write_knob(struct rt_journal *j, const char *path, const char *undo,
			  size_t undo_len, const char *value, size_t len, char **cause)
{
	if (!undo && undo_len)
		return rt_err(cause, -EINVAL, "no undo value");
	return jr_write_knob(j, path, undo ? undo : "", undo_len, value, len, cause);
}

static bool jr_policy_is_rt(int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

static pid_t jr_resolve_tid(pid_t tid)
{
	return tid ? tid : jr_gettid();
}

static int jr_thread_entry(pid_t tid, enum rt_journal_kind kind, struct rt_journal_entry **out,
			   char **cause)
{
	struct rt_journal_entry *e = calloc(1, sizeof(*e));
	int ret;

	if (!e)
		return rt_err(cause, -ENOMEM, "out of memory");
	e->kind = kind;
	e->tid = tid;
	ret = rt_journal_proc_start(tid, &e->tid_start);
	if (ret) {
		free(e);
		if (ret == -ENOENT)
			ret = -ESRCH;
		return rt_err(cause, ret, "thread %d: cannot read its start time: %s", (int)tid,
			      strerror(-ret));
	}
	*out = e;
	return 0;
}

int rt_journal_set_sched(struct rt_journal *j, pid_t tid, int policy, int prio, char **cause)
{
	struct rt_journal_entry *e = NULL;
	struct sched_param sp;
	int ret, old;

	ret = jr_check_open(j, cause);
	if (ret)
		return ret;
	if (tid < 0 || !rt_journal_policy_name(policy))
		return rt_err(cause, -EINVAL, "bad thread id %d or policy %d", (int)tid, policy);
	if (jr_policy_is_rt(policy) ? prio < 1 || prio > 99 : prio != 0)
		return rt_err(cause, -EINVAL, "priority %d does not fit policy %s", prio,
			      rt_journal_policy_name(policy));
	tid = jr_resolve_tid(tid);
	ret = jr_thread_entry(tid, RT_JOURNAL_SCHED, &e, cause);
	if (ret)
		return ret;
	old = sched_getscheduler(tid);
	if (old < 0 || sched_getparam(tid, &sp) < 0) {
		ret = rt_err(cause, -errno, "thread %d: cannot read its scheduling policy: %s",
			     (int)tid, strerror(errno));
		goto out_free;
	}
	e->reset_on_fork = old & SCHED_RESET_ON_FORK;
	e->policy = old & ~SCHED_RESET_ON_FORK;
	e->prio = sp.sched_priority;
	if (!rt_journal_policy_name(e->policy)) {
		/* SCHED_DEADLINE needs sched_setattr to restore; we never set it. */
		ret = rt_err(cause, -ENOTSUP, "thread %d: its policy %d cannot be journalled",
			     (int)tid, e->policy);
		goto out_free;
	}

	pthread_mutex_lock(&j->lock);
	ret = jr_record(j, e, cause);
	e = NULL;
	if (!ret) {
		memset(&sp, 0, sizeof(sp));
		sp.sched_priority = prio;
		if (sched_setscheduler(tid, policy, &sp) < 0)
			ret = rt_err(cause, -errno,
				     "thread %d: cannot set policy %s priority %d: %s", (int)tid,
				     rt_journal_policy_name(policy), prio, strerror(errno));
	}
	pthread_mutex_unlock(&j->lock);

out_free:
	rt_journal_entry_free(e);
	return ret;
}

int rt_journal_set_affinity(struct rt_journal *j, pid_t tid, const cpu_set_t *set,
			    char **cause)
{
	struct rt_journal_entry *e = NULL;
	int ret;

	ret = jr_check_open(j, cause);
	if (ret)
		return ret;
	if (tid < 0 || !set || CPU_COUNT(set) == 0)
		return rt_err(cause, -EINVAL, "bad thread id %d or empty CPU set", (int)tid);
	tid = jr_resolve_tid(tid);
	ret = jr_thread_entry(tid, RT_JOURNAL_AFFINITY, &e, cause);
	if (ret)
		return ret;
	if (sched_getaffinity(tid, sizeof(e->cpus), &e->cpus) < 0) {
		ret = rt_err(cause, -errno, "thread %d: cannot read its CPU affinity: %s",
			     (int)tid, strerror(errno));
		goto out_free;
	}

	pthread_mutex_lock(&j->lock);
	ret = jr_record(j, e, cause);
	e = NULL;
	if (!ret && sched_setaffinity(tid, sizeof(*set), set) < 0)
		ret = rt_err(cause, -errno, "thread %d: cannot set its CPU affinity: %s",
			     (int)tid, strerror(errno));
	pthread_mutex_unlock(&j->lock);

out_free:
	rt_journal_entry_free(e);
	return ret;
}

/* A single path component we are willing to create: no '/', not "." or "..". */
static int jr_check_name(const char *name, const char *what, char **cause)
{
	if (!name || !*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..") ||
	    strlen(name) > NAME_MAX)
		return rt_err(cause, -EINVAL, "bad %s name '%s'", what, name ? name : "(null)");
	return 0;
}

/*
 * A new entry of @kind for the object at "@dir/@name" that we are about to
 * create; -EEXIST when something is already there (it is not ours to undo).
 */
static int jr_new_object_entry(enum rt_journal_kind kind, const char *dir, const char *name,
			       const char *what, struct rt_journal_entry **out, char **cause)
{
	struct rt_journal_entry *e = calloc(1, sizeof(*e));
	const char *why;
	int ret;

	*out = NULL;
	if (!e)
		return rt_err(cause, -ENOMEM, "out of memory");
	e->kind = kind;
	if (asprintf(&e->path, "%s/%s", dir, name) < 0) {
		e->path = NULL;
		ret = rt_err(cause, -ENOMEM, "out of memory");
		goto out_free;
	}
	why = rt_journal_entry_check(e);
	if (why) {
		ret = rt_err(cause, -EPERM, "%s %s: the journal may not undo it: %s", what,
			     e->path, why);
		goto out_free;
	}
	if (access(e->path, F_OK) == 0) {
		ret = rt_err(cause, -EEXIST, "%s %s already exists", what, e->path);
		goto out_free;
	}
	*out = e;
	return 0;

out_free:
	rt_journal_entry_free(e);
	return ret;
}

int rt_journal_create_instance(struct rt_journal *j, const char *name, char **cause)
{
	struct rt_journal_entry *e = NULL;
	const char *tdir;
	int ret;

	ret = jr_check_open(j, cause);
	if (!ret)
		ret = jr_check_name(name, "tracefs instance", cause);
	if (ret)
		return ret;
	tdir = tracefs_tracing_dir();
	if (!tdir)
		return rt_err(cause, -ENODEV, "tracefs is not mounted and could not be mounted");
	{
		char *idir = NULL;

		if (asprintf(&idir, "%s/instances", tdir) < 0)
			return rt_err(cause, -ENOMEM, "out of memory");
		ret = jr_new_object_entry(RT_JOURNAL_INSTANCE, idir, name, "tracefs instance", &e,
					  cause);
		free(idir);
		if (ret)
			return ret;
	}

	pthread_mutex_lock(&j->lock);
	ret = jr_record(j, e, cause);
	if (!ret && mkdir(e->path, 0750) < 0) {
		ret = rt_err(cause, -errno, "cannot create tracefs instance %s: %s", e->path,
			     strerror(errno));
		jr_drop(j, e);
	}
	pthread_mutex_unlock(&j->lock);
	return ret;
}

/* Like `ip netns add`: /run/netns is a shared mount so later mounts propagate. */
static int jr_netns_dir(char **cause)
{
	int ret = rt_mkdir_p(JR_NETNS_DIR, 0755);

	if (ret)
		return rt_err(cause, ret, "cannot create %s: %s", JR_NETNS_DIR, strerror(-ret));
	if (mount("", JR_NETNS_DIR, "none", MS_SHARED | MS_REC, NULL) == 0)
		return 0;
	if (errno != EINVAL)
		return rt_err(cause, -errno, "cannot make %s a shared mount: %s", JR_NETNS_DIR,
			      strerror(errno));
	/* Not a mount point yet: bind it onto itself first. */
	if (mount(JR_NETNS_DIR, JR_NETNS_DIR, "none", MS_BIND | MS_REC, NULL) < 0 ||
	    mount("", JR_NETNS_DIR, "none", MS_SHARED | MS_REC, NULL) < 0)
		return rt_err(cause, -errno, "cannot make %s a shared mount: %s", JR_NETNS_DIR,
			      strerror(errno));
	return 0;
}

struct jr_netns_job {
	const char *path;
	int err;
};

/*
 * Runs on a thread of its own: unshare() moves only the calling thread into
 * the new namespace, and the thread ends right after the bind mount, which
 * keeps the namespace alive.
 */
static void *jr_netns_thread(void *arg)
{
	struct jr_netns_job *job = arg;
	char self[64];

	snprintf(self, sizeof(self), "/proc/self/task/%d/ns/net", (int)jr_gettid());
	if (unshare(CLONE_NEWNET) < 0 || mount(self, job->path, "none", MS_BIND, NULL) < 0)
		job->err = errno;
	return NULL;
}

int rt_journal_create_netns(struct rt_journal *j, const char *name, char **cause)
{
	struct rt_journal_entry *e = NULL;
	struct jr_netns_job job = { 0 };
	pthread_t th;
	int ret, fd;

	ret = jr_check_open(j, cause);
	if (!ret)
		ret = jr_check_name(name, "network namespace", cause);
	if (!ret)
		ret = jr_netns_dir(cause);
	if (ret)
		return ret;
	ret = jr_new_object_entry(RT_JOURNAL_NETNS, JR_NETNS_DIR, name, "network namespace", &e,
				  cause);
	if (ret)
		return ret;

	pthread_mutex_lock(&j->lock);
	ret = jr_record(j, e, cause);
	if (ret) {
		e = NULL;
		goto out_unlock;
	}
	job.path = e->path;
	fd = open(e->path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	if (fd < 0) {
		ret = rt_err(cause, -errno, "cannot create %s: %s", e->path, strerror(errno));
		goto out_drop;
	}
	close(fd);
	ret = -pthread_create(&th, NULL, jr_netns_thread, &job);
	if (!ret)
		ret = -pthread_join(th, NULL);
	if (!ret)
		ret = -job.err;
	if (ret) {
		rt_err(cause, ret, "cannot create network namespace %s: %s", e->path,
		       strerror(-ret));
		umount2(e->path, MNT_DETACH);
		unlink(e->path);
		goto out_drop;
	}
	e = NULL;
	goto out_unlock;

out_drop:
	jr_drop(j, e);
	e = NULL;
out_unlock:
	pthread_mutex_unlock(&j->lock);
	return ret;
}
