/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_journal: the undo journal. Every change rtlab makes to the host goes
 * through here.
 *
 * Before a change, the old state is appended to a journal file and made
 * durable (write, fsync, rename); then the change is made. The journal is
 * replayed in reverse order on normal exit (atexit), on SIGINT, SIGTERM,
 * SIGHUP, SIGQUIT and on fatal signals (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
 * SIGABRT), after which the signal's default action proceeds. A journal left
 * by a killed process (SIGKILL, power loss) is found and replayed by the next
 * rtlab start and by `rtlab doctor --restore`.
 *
 * Kinds of change:
 *   - a file value (tracefs, sysfs, procfs knob): old bytes restored verbatim;
 *   - a thread's scheduling policy and priority;
 *   - a thread's CPU affinity;
 *   - a created tracefs instance (undo: remove it);
 *   - a created network namespace (undo: delete it).
 *
 * Journals live in one directory (rt_journal_default_dir()), one file per
 * process, named "<pid>.journal". As root that directory is /run/rtlab and
 * nothing in the environment moves it; any directory is used only if it
 * belongs to the effective user and no one else can write it, and only
 * regular files of that user in it are read. Each entry may name only what
 * its kind allows (tracefs files and a few listed kernel knobs, rtlab
 * tracefs instances, /run/netns files); anything else is refused when
 * recorded and skipped, with a warning, when replayed.
 *
 * Each file records the boot id, so a journal from before a reboot (whose
 * changes the reboot already undid) is discarded with a notice rather than
 * replayed. Thread entries record the thread's start time, so a recycled
 * tid is never touched.
 *
 * Replay from a signal handler uses only async-signal-safe calls on state
 * prepared in advance.
 */
#ifndef RTLAB_CORE_RT_JOURNAL_H
#define RTLAB_CORE_RT_JOURNAL_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct rt_journal;

/* Root's journal directory: root-owned, mode 0700, emptied by a reboot. */
#define RT_JOURNAL_ROOT_DIR "/run/rtlab"

/**
 * rt_journal_default_dir - the directory journals live in
 *
 * As root (effective uid 0) always RT_JOURNAL_ROOT_DIR: RTLAB_JOURNAL_DIR,
 * XDG_STATE_HOME and HOME are ignored. Otherwise $RTLAB_JOURNAL_DIR if set
 * (tests use it), else "<state dir>/journal". Returns a string the caller
 * frees, or NULL with errno set.
 */
char *rt_journal_default_dir(void);

/**
 * rt_journal_open - start this process's journal in @dir
 * @dir: journal directory, created (mode 0700) if missing; NULL means the
 *       default. It must be a directory (not a symlink) of the effective
 *       user that neither group nor others can write, or the open fails
 *       with -EPERM and @cause says whose it is and its mode.
 * @cause: on failure, why
 *
 * The file is created on the first change, so a run that changes nothing
 * leaves nothing behind. Installs the signal handlers and an atexit hook
 * that replay the journal. One journal per process: a second open returns
 * the same object with its reference count raised.
 *
 * On a stop request (SIGINT, SIGTERM, SIGHUP, SIGQUIT) for which the
 * application had installed a handler of its own before this call, that
 * handler runs and nothing else: the application is trusted to wind down
 * and exit normally, and the atexit hook (or rt_journal_close) replays.
 * Otherwise, and always on a fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
 * SIGABRT), the handler replays, calls the previous handler (if any), then
 * lets the signal's default action end the process. A handler the
 * application installs after this call replaces the journal's; the atexit
 * hook still replays on a normal exit. A terminal signal that was ignored at open time (nohup) stays
 * ignored. A child forked from this process never replays its parent's
 * journal; if it opens a journal of its own, it gets a new one.
 *
 * Returns the journal or NULL with errno set. Release with rt_journal_close().
 */
struct rt_journal *rt_journal_open(const char *dir, char **cause);

/**
 * rt_journal_close - replay (restore) everything and drop the journal
 *
 * Only the last close of a shared journal restores anything. It restores
 * every recorded change in reverse order, removes the journal file and puts
 * back the signal handlers found at open. NULL does nothing. Returns 0, the
 * first negative errno met while restoring (restoring continues past errors,
 * each is logged), or -EBADF if @j is not this process's open journal.
 */
int rt_journal_close(struct rt_journal *j);

/**
 * rt_journal_write_file - journal the current contents of @path, then write @value
 * @len: bytes of @value
 *
 * @path must exist and be readable (its old value, at most 1 MiB, is kept in
 * memory and in the journal); it is resolved (realpath) at once, and the
 * resolved path must be a file entry may name: a tracefs file under
 * /sys/kernel/tracing or /sys/kernel/debug/tracing, sched_rt_runtime_us or
 * sched_rt_period_us under /proc/sys/kernel, a debugfs
 * sched/fair_server/cpuN/{runtime,period} or sched/preempt, or KVM's
 * /sys/module/kvm/parameters/halt_poll_ns; it is opened without following
 * symlinks, and must be a regular file on that filesystem (-EPERM if not).
 * Undo opens it the same way with O_TRUNC and writes the old bytes back
 * verbatim, so use it for knobs whose read form can be written back.
 *
 * Returns 0 or a negative errno; on failure @cause names the file and what
 * the kernel said (for tracefs files, also tracefs's error log). If the
 * write fails after the entry was journalled, the entry stays (replaying it
 * rewrites the old value, which is harmless).
 */
int rt_journal_write_file(struct rt_journal *j, const char *path, const char *value,
			  size_t len, char **cause);

/**
 * rt_journal_write_knob - journal @undo as @path's old value, then write @value
 * @undo: the bytes undo writes back (@undo_len of them)
 *
 * As rt_journal_write_file(), for a knob whose read form cannot be written
 * back: debugfs sched/preempt reads "none (voluntary) full lazy" and takes
 * one word, so its caller journals "voluntary". The file is still read
 * first, so a knob that replay could not open is refused before any change.
 */
int rt_journal_write_knob(struct rt_journal *j, const char *path, const char *undo,
			  size_t undo_len, const char *value, size_t len, char **cause);

/**
 * rt_journal_set_sched - journal @tid's policy and priority, then set them
 * @tid: thread id (0 means the calling thread)
 * @policy: SCHED_OTHER, SCHED_FIFO, SCHED_RR, SCHED_BATCH or SCHED_IDLE
 * @prio: sched_priority for FIFO/RR (1..99), else 0
 *
 * Undo runs only if @tid still names the same thread (same start time).
 * -ENOTSUP if the thread is now SCHED_DEADLINE (not restorable this way).
 * A failed change keeps its entry, as for rt_journal_write_file().
 */
int rt_journal_set_sched(struct rt_journal *j, pid_t tid, int policy, int prio, char **cause);

/**
 * rt_journal_set_affinity - journal @tid's CPU affinity, then set it to @set
 * @tid: thread id (0 means the calling thread)
 * @set: a non-empty CPU set of CPU_SETSIZE bits
 *
 * Undo runs only if @tid still names the same thread (same start time).
 */
int rt_journal_set_affinity(struct rt_journal *j, pid_t tid, const cpu_set_t *set,
			    char **cause);

/**
 * rt_journal_create_instance - journal, then create the tracefs instance @name
 *
 * The instance directory is made under the "instances" directory of
 * tracefs_tracing_dir(), which must be /sys/kernel/tracing or
 * /sys/kernel/debug/tracing, and @name must start with "rtlab" (-EPERM
 * otherwise). Undo removes it. Returns 0 or a negative errno
 * (-EEXIST if it already exists: a stale one should be removed first). If
 * the creation fails, its entry is dropped: undoing it would remove an
 * instance that is not ours.
 */
int rt_journal_create_instance(struct rt_journal *j, const char *name, char **cause);

/**
 * rt_journal_create_netns - journal, then create the network namespace @name
 *
 * Same effect as `ip netns add NAME`: a bind-mounted /run/netns/NAME, with
 * /run/netns made a shared mount as ip does. Undo (umount2 MNT_DETACH, then
 * unlink) deletes it. -EEXIST if it exists; a failed creation drops its
 * entry, as for rt_journal_create_instance().
 */
int rt_journal_create_netns(struct rt_journal *j, const char *name, char **cause);

/* Number of entries recorded so far (for tests and the UI). */
size_t rt_journal_count(const struct rt_journal *j);

/* A journal found in the directory that belongs to no live rtlab process. */
struct rt_journal_stale {
	char *path;		/* owned */
	pid_t pid;		/* process that wrote it */
	size_t entries;		/* changes it would undo */
	bool other_boot;	/* written before the last reboot: discarded, not replayed */
	bool corrupt;		/* ours, read, but not a journal: moved aside, not replayed */
};

/**
 * rt_journal_scan - list journals left behind, without touching them
 * @dir: journal directory; NULL means the default (a missing one is empty)
 * @out: on success, an array the caller frees with rt_journal_stale_free()
 * @n: on success, its length
 *
 * Files recovery would leave alone (another user's, not regular files) are
 * not listed; each is reported with a warning. Returns 0 or a negative
 * errno (-EPERM for an untrusted directory, as rt_journal_recover()).
 */
int rt_journal_scan(const char *dir, struct rt_journal_stale **out, size_t *n, char **cause);
void rt_journal_stale_free(struct rt_journal_stale *v, size_t n);

/**
 * rt_journal_recover - replay journals left behind by dead processes
 * @dir: journal directory; NULL means the default
 * @restored: if not NULL, set to the number of journals replayed
 * @cause: on failure, why
 *
 * Journals of live processes are left alone; journals from a previous boot
 * are removed without replay; journals of ours that do not parse are moved
 * aside as "<name>.corrupt". Anything else named like a journal (another
 * user's file, a FIFO, a device, a symlink, a file we cannot read) is left
 * exactly as it is: recovery goes on with the others, then returns -EPERM
 * with @cause naming the first such file and whose or what it is. An entry
 * that names what its kind may not touch is skipped with a warning. Each
 * action is logged with rt_log(). An untrusted directory (see
 * rt_journal_open()) is not read at all: -EPERM with @cause. A missing one
 * is empty. Returns 0 or a negative errno.
 */
int rt_journal_recover(const char *dir, unsigned int *restored, char **cause);

#endif
