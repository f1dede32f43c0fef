/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_journal-int: the journal's insides, shared by its pieces
 * (rt_journal.c: the live journal; rt_journal_text.c: the file format;
 * rt_journal_kinds.c: the kind table and its path rules; rt_journal_dir.c:
 * the trusted directory, scan and recovery), its unit test and its fuzz
 * target. Nothing else should include this header.
 *
 * A journal is a doubly linked list of entries. Replay walks it from the
 * newest entry through ->older; that walk may happen in a signal handler,
 * so an entry is linked in completely before it is published as the newest
 * one, and entries are never freed while the journal is open (a failed
 * change marks its entry dropped instead).
 *
 * Every kind of entry is one row of the kind table (rt_journal_kinds[]):
 * its keyword in the file, how it is parsed, formatted, checked against the
 * paths (or threads) it may ever name, replayed and described. An entry
 * that names something outside its row's rules is "rejected": it is parsed
 * and kept (so a file round-trips), reported, and never acted on. The check
 * runs when the file is parsed, when a change is recorded, and again right
 * before the undo acts.
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
/* File name suffix of a journal: "<pid>.journal". */
#define RT_JOURNAL_SUFFIX ".journal"

enum rt_journal_kind {
	RT_JOURNAL_FILE,
	RT_JOURNAL_SCHED,
	RT_JOURNAL_AFFINITY,
	RT_JOURNAL_INSTANCE,
	RT_JOURNAL_NETNS,
	RT_JOURNAL_NKINDS
};

/* What the last replay of an entry did. */
enum rt_journal_outcome {
	RT_JOURNAL_PENDING,	/* not replayed yet */
	RT_JOURNAL_RESTORED,	/* undone (or nothing was left to undo) */
	RT_JOURNAL_FAILED,	/* the undo failed; see err */
	RT_JOURNAL_GONE,	/* the thread has exited: nothing to restore */
	RT_JOURNAL_RECYCLED,	/* the tid now names another thread: left alone */
	RT_JOURNAL_REJECTED,	/* names something it may not touch: left alone; see rejected */
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
	const char *rejected;	/* static; why the entry may not be acted on, or NULL */
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

/* ---- The kind table (rt_journal_kinds.c) ---------------------------------- */

/* A cursor over one line of a journal file (without its newline). */
struct rt_journal_cursor {
	const char *p;
	const char *end;
};

/*
 * One row per kind. parse reads the fields after the keyword (the cursor is
 * on the space that follows it) and must consume the whole line; format
 * appends those fields (with their leading space, without the newline);
 * check returns NULL if the entry names only what this kind may touch, else
 * a static reason; replay undoes the entry, setting outcome and err (it is
 * called only after check passed, from a signal handler too, so it is
 * async-signal-safe and re-checks what it opens); describe says what the
 * entry restores, for messages ("<noun> <path or thread>"). allowed lists,
 * for people, what an entry of this kind may name.
 */
struct rt_journal_kind_ops {
	const char *keyword;
	const char *noun;		/* "the value of", for describe */
	const char *const *allowed;	/* NULL-terminated */
	int (*parse)(struct rt_journal_cursor *c, struct rt_journal_entry *e, char **cause);
	int (*format)(struct rt_buf *b, const struct rt_journal_entry *e);
	const char *(*check)(const struct rt_journal_entry *e);
	void (*replay)(struct rt_journal_entry *e);
	void (*describe)(const struct rt_journal_entry *e, char *buf, size_t size);
};

/* Indexed by enum rt_journal_kind. */
extern const struct rt_journal_kind_ops rt_journal_kinds[RT_JOURNAL_NKINDS];

/* The row whose keyword is the @n bytes at @w, or NULL. */
const struct rt_journal_kind_ops *rt_journal_kind_find(const char *w, size_t n);

/* Why @e may not be acted on (a static string), or NULL. Async-signal-safe. */
const char *rt_journal_entry_check(const struct rt_journal_entry *e);

/**
 * rt_journal_entry_replay - undo one entry, setting its outcome and err
 *
 * Checks the entry against its kind's rules first (a rejected entry is left
 * alone with outcome RT_JOURNAL_REJECTED). Async-signal-safe: only
 * open/openat/fstat/fstatfs/write/close, unlinkat, umount2,
 * sched_setscheduler, sched_setaffinity and reads of /proc/<tid>/stat.
 */
void rt_journal_entry_replay(struct rt_journal_entry *e);

/* "the value of /sys/...": what @e restores, for messages. */
void rt_journal_entry_describe(const struct rt_journal_entry *e, char *buf, size_t size);

/**
 * rt_journal_proc_start - start time of process or thread @pid
 *
 * Field 22 of /proc/<pid>/stat, in clock ticks since boot. Async-signal-safe.
 * Returns 0, -ENOENT/-ESRCH if there is no such task, or another -errno.
 */
int rt_journal_proc_start(pid_t pid, unsigned long long *start);

/* The policy name used in the file ("fifo"), or NULL if it cannot be journalled. */
const char *rt_journal_policy_name(int policy);

/**
 * rt_journal_knob_read - read the current value of knob @path for a file entry
 * @path: canonical absolute path; must be allowed for a file entry
 * @data: on success, a NUL-terminated copy the caller frees
 * @why: on a refusal, a static reason
 *
 * No symlink is followed anywhere on the way, the file must be a regular
 * file on the filesystem its path promises, and it is opened non-blocking.
 * Returns 0 or a negative errno (-EPERM when refused; see @why).
 */
int rt_journal_knob_read(const char *path, char **data, size_t *len, const char **why);

/* Write @len bytes to knob @path under the same rules. Async-signal-safe. */
int rt_journal_knob_write(const char *path, const char *value, size_t len, const char **why);

/**
 * rt_journal_test_allow - let file entries name regular files under @dir
 * @dir: a canonical absolute directory, or NULL to forbid it again
 *
 * For unit tests only, whose stand-in knobs (binary, empty, long values)
 * cannot be real kernel knobs. The rtlab binary never calls it, and no
 * environment variable sets it. Returns 0 or -EINVAL.
 */
int rt_journal_test_allow(const char *dir);

/* ---- The file format (rt_journal_text.c) ---------------------------------- */

/* Free every entry; the doc is empty afterwards. */
void rt_journal_doc_fini(struct rt_journal_doc *doc);
void rt_journal_entry_free(struct rt_journal_entry *e);

/* Link @e as the newest entry, except for publishing it through doc->newest. */
void rt_journal_doc_link(struct rt_journal_doc *doc, struct rt_journal_entry *e);
/* Make @e (linked with rt_journal_doc_link) the newest entry the handler sees. */
void rt_journal_doc_publish(struct rt_journal_doc *doc, struct rt_journal_entry *e);

/**
 * rt_journal_parse - parse the text of a journal file
 * @data: the bytes (need not be NUL-terminated)
 * @doc: filled on success; the caller releases it with rt_journal_doc_fini()
 * @line: on failure, the 1-based line at fault (may be NULL)
 * @cause: on failure, what is wrong with that line
 *
 * Never touches the host. Entries that name what their kind may not touch
 * are kept with ->rejected set. Returns 0, -EINVAL for malformed input, or
 * -ENOMEM. On failure @doc is left empty.
 */
int rt_journal_parse(const char *data, size_t len, struct rt_journal_doc *doc, size_t *line,
		     char **cause);

/**
 * rt_journal_format - append the file form of @doc to @out
 *
 * Dropped entries are left out. Returns 0 or -ENOMEM.
 */
int rt_journal_format(const struct rt_journal_doc *doc, struct rt_buf *out);

/* Field readers for the kinds' parse functions: 0 or -EINVAL with @cause. */
int rt_journal_text_space(struct rt_journal_cursor *c, char **cause, const char *what);
int rt_journal_text_word(struct rt_journal_cursor *c, const char **w, size_t *n, char **cause,
			 const char *what);
bool rt_journal_text_word_is(const char *w, size_t n, const char *lit);
int rt_journal_text_number(struct rt_journal_cursor *c, unsigned long long max,
			   unsigned long long *v, char **cause, const char *what);
/* A quoted string of at most @max bytes; NUL-terminated, owned by the caller. */
int rt_journal_text_quoted(struct rt_journal_cursor *c, size_t max, char **out,
			   size_t *outlen, char **cause, const char *what);
/* A quoted absolute path without NUL bytes. */
int rt_journal_text_path(struct rt_journal_cursor *c, char **out, char **cause);
int rt_journal_text_cpus(struct rt_journal_cursor *c, cpu_set_t *set, char **cause);
/* Writers: " \"...\"" with \xHH escapes, and "0-3,6". */
int rt_journal_text_put_quoted(struct rt_buf *b, const char *s, size_t len);
int rt_journal_text_put_cpus(struct rt_buf *b, const cpu_set_t *set);

/* ---- The directory (rt_journal_dir.c) ------------------------------------- */

/**
 * rt_journal_dir_open - open and verify a journal directory
 * @dir: its path
 * @create: create it (mode 0700) if missing
 * @cause: on failure, why (naming the directory, its owner and mode)
 *
 * The directory must be a real directory (not a symlink), owned by the
 * effective user, and writable by neither group nor others. Returns an
 * O_DIRECTORY fd, -ENOENT if it is missing and not to be created, -EPERM if
 * it is not trusted, or another negative errno.
 */
int rt_journal_dir_open(const char *dir, bool create, char **cause);

/**
 * rt_journal_dir_write - replace @name in directory @dfd with @len bytes of @data
 *
 * Temporary file "<name>.tmp.<pid>.<n>", fsync, renameat, fsync of the
 * directory. Returns 0 or a negative errno with @cause.
 */
int rt_journal_dir_write(int dfd, const char *dir, const char *name, const void *data,
			 size_t len, char **cause);

/*
 * Settle a journal that carries this process's own name before it wrote
 * one: a dead namesake's (the pid was recycled), replayed if it may be. A
 * file of ours that is not a journal (a FIFO) is left unread for ours to
 * replace; another user's file makes it fail with -EEXIST and @cause.
 */
int rt_journal_dir_settle_namesake(int dfd, const char *dir, const char *name,
				   const char *boot, char **cause);

/*
 * Read all of @fd, at most @max bytes (-EFBIG beyond), into a
 * NUL-terminated buffer the caller frees. Returns 0 or a negative errno.
 */
int rt_journal_read_fd(int fd, size_t max, char **data, size_t *len);

/* This boot's id (from /proc/sys/kernel/random/boot_id) into @out. */
int rt_journal_boot_id(char *out, char **cause);

/*
 * Replay @doc newest first, logging what went wrong under @name. Returns
 * the first error; @undone (may be NULL) counts the entries restored.
 */
int rt_journal_replay_logged(struct rt_journal_doc *doc, const char *name, size_t *undone);

#endif
