/*
 * rt_journal-int: the layout of a journal in memory and the parser of
 * journal files, shared by rt_journal.c, its unit test and its fuzz target.
 * Nothing outside those three should include this header.
 *
 * A journal is a doubly linked list of entries. Replay walks it from the
 * newest entry through ->older; that walk may happen in a signal handler,
 * so an entry is linked in completely before it is published as the newest
 * one, and entries are never freed while the journal is open (a failed
 * change marks its entry dropped instead).
 */
#ifndef RTLAB_CORE_RT_JOURNAL_INT_H
#define RTLAB_CORE_RT_JOURNAL_INT_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "rt_buf.h"

/* First line of every journal file; the number is the format version. */
#define RT_JOURNAL_MAGIC "rtlab-journal 1"
/* Longest boot id accepted (the kernel's is a 36-character UUID). */
#define RT_JOURNAL_BOOT_ID_MAX 64
/* Largest old value of one file entry (knobs are a few bytes). */
#define RT_JOURNAL_MAX_VALUE (1u << 20)
/* Largest journal file read back; anything bigger is treated as corrupt. */
#define RT_JOURNAL_MAX_FILE (16u << 20)

enum rt_journal_kind {
	RT_JOURNAL_FILE,
	RT_JOURNAL_SCHED,
	RT_JOURNAL_AFFINITY,
	RT_JOURNAL_INSTANCE,
	RT_JOURNAL_NETNS,
};

/* What the last replay of an entry did. */
enum rt_journal_outcome {
	RT_JOURNAL_PENDING,	/* not replayed yet */
	RT_JOURNAL_RESTORED,	/* undone (or nothing was left to undo) */
	RT_JOURNAL_FAILED,	/* the undo failed; see err */
	RT_JOURNAL_GONE,	/* the thread has exited: nothing to restore */
	RT_JOURNAL_RECYCLED,	/* the tid now names another thread: left alone */
};

struct rt_journal_entry {
	struct rt_journal_entry *older;	/* borrowed; next to replay */
	struct rt_journal_entry *newer;	/* borrowed */
	enum rt_journal_kind kind;
	char *path;		/* owned; FILE, INSTANCE (its directory), NETNS (its file) */
	char *old;		/* owned; FILE: the old bytes (NUL-terminated copy) */
	size_t old_len;
	pid_t tid;		/* SCHED, AFFINITY */
	unsigned long long tid_start;	/* field 22 of /proc/<tid>/stat when journalled */
	int policy;		/* SCHED: SCHED_OTHER, ... (without SCHED_RESET_ON_FORK) */
	bool reset_on_fork;	/* SCHED: the old policy carried SCHED_RESET_ON_FORK */
	int prio;		/* SCHED: old sched_priority */
	cpu_set_t cpus;		/* AFFINITY: old mask */
	bool dropped;		/* the change failed and was never made: skip */
	enum rt_journal_outcome outcome;
	int err;		/* positive errno when outcome is FAILED */
};

/* One journal: its header and its entries. */
struct rt_journal_doc {
	char boot_id[RT_JOURNAL_BOOT_ID_MAX + 1];
	pid_t pid;
	unsigned long long start;	/* field 22 of /proc/<pid>/stat */
	struct rt_journal_entry *newest;	/* owned (the whole list) */
	struct rt_journal_entry *oldest;	/* borrowed */
	size_t n;			/* entries not dropped */
};

/* Free every entry; the doc is empty afterwards. */
void rt_journal_doc_fini(struct rt_journal_doc *doc);

/**
 * rt_journal_parse - parse the text of a journal file
 * @data: the bytes (need not be NUL-terminated)
 * @doc: filled on success; the caller releases it with rt_journal_doc_fini()
 * @line: on failure, the 1-based line at fault (may be NULL)
 * @cause: on failure, what is wrong with that line
 *
 * Never touches the host. Returns 0, -EINVAL for malformed input, or -ENOMEM.
 * On failure @doc is left empty.
 */
int rt_journal_parse(const char *data, size_t len, struct rt_journal_doc *doc, size_t *line,
		     char **cause);

/**
 * rt_journal_format - append the file form of @doc to @out
 *
 * Dropped entries are left out. Returns 0 or -ENOMEM.
 */
int rt_journal_format(const struct rt_journal_doc *doc, struct rt_buf *out);

/**
 * rt_journal_entry_replay - undo one entry, setting its outcome and err
 *
 * Async-signal-safe: only open/write/close, rmdir, umount2, unlink,
 * sched_setscheduler, sched_setaffinity and reads of /proc/<tid>/stat.
 */
void rt_journal_entry_replay(struct rt_journal_entry *e);

/**
 * rt_journal_proc_start - start time of process or thread @pid
 *
 * Field 22 of /proc/<pid>/stat, in clock ticks since boot. Async-signal-safe.
 * Returns 0, -ENOENT/-ESRCH if there is no such task, or another -errno.
 */
int rt_journal_proc_start(pid_t pid, unsigned long long *start);

#endif
