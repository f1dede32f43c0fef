/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_journal_kinds: the journal's kind table. One row per kind of change
 * (a knob's value, a thread's policy or CPU affinity, a tracefs instance, a
 * network namespace) with everything the journal needs to know about it:
 * its keyword and fields in the file, the paths or threads it may ever
 * name, how to undo it and how to say what it undoes.
 *
 * The path rules are the journal's defence against a file it did not write:
 * whatever a journal says, an entry can only write a tracefs file or one of
 * the few kernel knobs listed below, remove an rtlab tracefs instance, or
 * delete a network namespace file under /run/netns. A path must be
 * canonical (absolute, no ".", "..", "//" or trailing "/"); it is checked
 * when the file is parsed and again right before the undo, and the undo
 * walks it one component at a time with O_NOFOLLOW, so a symlink anywhere
 * on the way makes it refuse rather than follow. The file it finally opens
 * must be a regular file on the filesystem its path promises (tracefs,
 * procfs, debugfs), which a tmpfs or disk file placed there is not.
 *
 * Thread entries carry the thread's start time; the undo touches the thread
 * only if its start time is still the recorded one, and leaves it alone if
 * that cannot be checked.
 *
 * Everything a replay calls is async-signal-safe: the handler of a fatal
 * signal runs it.
 */
#include "rt_journal-int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "rt_buf.h"
#include "rt_err.h"
#include "rt_file.h"

#define JR_NETNS_DIR "/run/netns"
#define JR_FAIR_SERVER_DIR "/sys/kernel/debug/sched/fair_server"
/* A PREEMPT_DYNAMIC kernel's preemption model, switched at run time. */
#define JR_SCHED_PREEMPT "/sys/kernel/debug/sched/preempt"
#define JR_INSTANCE_PREFIX "rtlab"

/* Where tracefs may be mounted for the journal to touch it. */
static const char *const jr_tracefs_roots[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};
#define JR_NTRACEFS_ROOTS (sizeof(jr_tracefs_roots) / sizeof(jr_tracefs_roots[0]))

/* Where rtlab's tracefs instances are made, one per tracefs root. */
static const char *const jr_instance_dirs[] = {
	"/sys/kernel/tracing/instances",
	"/sys/kernel/debug/tracing/instances",
};
#define JR_NINSTANCE_DIRS (sizeof(jr_instance_dirs) / sizeof(jr_instance_dirs[0]))

/* The procfs knobs a lab may change (RT throttling). */
static const char *const jr_procsys_knobs[] = {
	"/proc/sys/kernel/sched_rt_runtime_us",
	"/proc/sys/kernel/sched_rt_period_us",
};
#define JR_NPROCSYS_KNOBS (sizeof(jr_procsys_knobs) / sizeof(jr_procsys_knobs[0]))

/* KVM's module parameter the hypervisor lab may change (sysfs). */
#define JR_KVM_HALT_POLL "/sys/module/kvm/parameters/halt_poll_ns"

/* Set by rt_journal_test_allow() in unit tests only. */
static char jr_test_root[PATH_MAX];

static const char jr_not_canonical[] =
	"the path is not canonical (relative, or with \".\", \"..\", \"//\" or a trailing \"/\")";

/* ---- Path rules (async-signal-safe) ---------------------------------------- */

/* Absolute, no empty, "." or ".." component, no trailing '/', short enough. */
static bool jr_canonical(const char *path)
{
	const char *p = path;

	if (!p || *p != '/')
		return false;
	while (*p == '/') {
		const char *s = ++p;
		size_t n;

		while (*p && *p != '/')
			p++;
		n = (size_t)(p - s);
		if (n == 0 || n > NAME_MAX)
			return false;
		if (s[0] == '.' && (n == 1 || (n == 2 && s[1] == '.')))
			return false;
	}
	return *p == '\0' && p - path < PATH_MAX;
}

/* What follows "@root/" in @path, or NULL if @path is not below @root. */
static const char *jr_below(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (strncmp(path, root, n) || path[n] != '/')
		return NULL;
	return path + n + 1;
}

/* What follows "<tracefs root>/" in @path, or NULL. */
static const char *jr_below_tracefs(const char *path)
{
	for (size_t i = 0; i < JR_NTRACEFS_ROOTS; i++) {
		const char *rest = jr_below(path, jr_tracefs_roots[i]);

		if (rest)
			return rest;
	}
	return NULL;
}

/* The name of canonical @path if it is a direct child of @dir, else NULL. */
static const char *jr_child_of(const char *path, const char *dir)
{
	const char *rest = jr_canonical(path) ? jr_below(path, dir) : NULL;

	return rest && !strchr(rest, '/') ? rest : NULL;
}

/* "cpu<N>/runtime" or "cpu<N>/period" */
static bool jr_fair_server_knob(const char *rest)
{
	const char *p = rest;

	if (strncmp(p, "cpu", 3))
		return false;
	p += 3;
	if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9'))
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	return !strcmp(p, "/runtime") || !strcmp(p, "/period");
}

/* The kinds of place a file entry may write, each on its own filesystem. */
enum jr_area {
	JR_AREA_NONE,
	JR_AREA_TRACEFS,
	JR_AREA_PROCSYS,
	JR_AREA_DEBUGFS_SCHED,
	JR_AREA_KVM_PARAM,
	JR_AREA_TEST,
};

static enum jr_area jr_file_area(const char *path)
{
	const char *rest;

	if (!jr_canonical(path))
		return JR_AREA_NONE;
	if (jr_below_tracefs(path))
		return JR_AREA_TRACEFS;
	for (size_t i = 0; i < JR_NPROCSYS_KNOBS; i++)
		if (!strcmp(path, jr_procsys_knobs[i]))
			return JR_AREA_PROCSYS;
	rest = jr_below(path, JR_FAIR_SERVER_DIR);
	if ((rest && jr_fair_server_knob(rest)) || !strcmp(path, JR_SCHED_PREEMPT))
		return JR_AREA_DEBUGFS_SCHED;
	if (!strcmp(path, JR_KVM_HALT_POLL))
		return JR_AREA_KVM_PARAM;
	if (jr_test_root[0] && jr_below(path, jr_test_root))
		return JR_AREA_TEST;
	return JR_AREA_NONE;
}

static bool jr_area_fs_ok(enum jr_area area, long type)
{
	switch (area) {
	case JR_AREA_TRACEFS:
		/* Before tracefs existed, tracing lived inside debugfs. */
		return type == TRACEFS_MAGIC || type == DEBUGFS_MAGIC;
	case JR_AREA_PROCSYS:
		return type == PROC_SUPER_MAGIC;
	case JR_AREA_DEBUGFS_SCHED:
		return type == DEBUGFS_MAGIC;
	case JR_AREA_KVM_PARAM:
		return type == SYSFS_MAGIC;
	case JR_AREA_TEST:
		return true;
	case JR_AREA_NONE:
		break;
	}
	return false;
}

/* Why a file entry may not name @path, or NULL if it may. */
static const char *jr_file_why(const char *path)
{
	if (!jr_canonical(path))
		return jr_not_canonical;
	if (jr_file_area(path) == JR_AREA_NONE)
		return "not a knob the journal may restore (only tracefs files, "
		       "sched_rt_runtime_us, sched_rt_period_us, debugfs sched/fair_server and "
		       "sched/preempt, and KVM's halt_poll_ns)";
	return NULL;
}

/*
 * The directory that holds canonical absolute @path, opened from "/" one
 * component at a time without following symlinks. Returns an O_PATH fd and
 * points *@base at the last component, or -ELOOP when a component is a
 * symlink, or another -errno.
 */
static int jr_walk_parent(const char *path, const char **base)
{
	char comp[NAME_MAX + 1];
	const char *p = path + 1, *slash;
	int dfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0)
		return -errno;
	while ((slash = strchr(p, '/'))) {
		size_t n = (size_t)(slash - p);
		struct stat st;
		int fd, err;

		if (n == 0 || n > NAME_MAX) {
			close(dfd);
			return -EINVAL;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		/* O_DIRECTORY so that an automount (debugfs's tracing) is crossed. */
		fd = openat(dfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			err = -errno;
			if (fstatat(dfd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
				err = -ELOOP;
			close(dfd);
			return err;
		}
		close(dfd);
		dfd = fd;
		p = slash + 1;
	}
	*base = p;
	return dfd;
}

/*
 * Open knob @path (a file entry's path) with @flags, refusing (-EPERM with
 * a static @why) what the rules forbid: a path outside the allowed places,
 * a symlink anywhere on the way, something other than a regular file, a
 * file on another filesystem than its path promises.
 */
static int jr_knob_open(const char *path, int flags, const char **why)
{
	enum jr_area area = jr_file_area(path);
	const char *base = NULL;
	struct stat st, st2;
	struct statfs sf;
	int dfd, fd, err;

	*why = NULL;
	if (area == JR_AREA_NONE) {
		*why = jr_file_why(path);
		return -EPERM;
	}
	dfd = jr_walk_parent(path, &base);
	if (dfd == -ELOOP) {
		*why = "its path goes through a symbolic link";
		return -EPERM;
	}
	if (dfd < 0)
		return dfd;
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		err = -errno;
		close(dfd);
		return err;
	}
	if (S_ISLNK(st.st_mode) || !S_ISREG(st.st_mode)) {
		*why = S_ISLNK(st.st_mode) ? "it is a symbolic link" : "it is not a regular file";
		close(dfd);
		return -EPERM;
	}
	fd = openat(dfd, base, flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	err = fd < 0 ? -errno : 0;
	close(dfd);
	if (fd < 0)
		return err;
	if (fstat(fd, &st2) < 0 || st2.st_dev != st.st_dev || st2.st_ino != st.st_ino ||
	    !S_ISREG(st2.st_mode)) {
		*why = "it changed while it was being opened";
		close(fd);
		return -EPERM;
	}
	if (fstatfs(fd, &sf) < 0 || !jr_area_fs_ok(area, (long)sf.f_type)) {
		*why = "it is not on the filesystem its path belongs to (tracefs, procfs, debugfs)";
		close(fd);
		return -EPERM;
	}
	return fd;
}

int rt_journal_knob_write(const char *path, const char *value, size_t len, const char **why)
{
	int fd = jr_knob_open(path, O_WRONLY | O_TRUNC, why), ret;

	if (fd < 0)
		return fd;
	ret = rt_write_all(fd, value, len);
	if (close(fd) < 0 && !ret && errno != EINTR)
		ret = -errno;
	return ret;
}

int rt_journal_knob_read(const char *path, char **data, size_t *len, const char **why)
{
	int fd = jr_knob_open(path, O_RDONLY, why), ret;

	if (fd < 0)
		return fd;
	ret = rt_journal_read_fd(fd, RT_JOURNAL_MAX_VALUE, data, len);
	close(fd);
	return ret;
}

int rt_journal_test_allow(const char *dir)
{
	if (!dir) {
		jr_test_root[0] = '\0';
		return 0;
	}
	if (!jr_canonical(dir) || strlen(dir) >= sizeof(jr_test_root))
		return -EINVAL;
	strcpy(jr_test_root, dir);
	return 0;
}

/* ---- Threads (async-signal-safe) ------------------------------------------- */

/* Decimal form of @v into @buf (at least 21 bytes); returns the end. */
static char *jr_utoa(char *buf, unsigned long long v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*buf++ = tmp[--n];
	*buf = '\0';
	return buf;
}

int rt_journal_proc_start(pid_t pid, unsigned long long *start)
{
	char path[48], buf[2048], *p, *end;
	unsigned long long v = 0;
	size_t used = 0;
	int fd, field;

	if (pid <= 0)
		return -EINVAL;
	memcpy(path, "/proc/", 6);
	p = jr_utoa(path + 6, (unsigned long long)pid);
	memcpy(p, "/stat", 6);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (used < sizeof(buf) - 1) {
		ssize_t n = read(fd, buf + used, sizeof(buf) - 1 - used);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			close(fd);
			return err;
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	close(fd);
	buf[used] = '\0';
	/* The command name (field 2) may hold spaces and ')': skip to the last ')'. */
	p = NULL;
	for (end = buf; end < buf + used; end++)
		if (*end == ')')
			p = end;
	if (!p)
		return -EIO;
	p++;
	/* After ")" come fields 3, 4, ... each preceded by one space. */
	for (field = 3; field <= 22; field++) {
		if (*p != ' ')
			return -EIO;
		p++;
		if (field == 22)
			break;
		while (*p && *p != ' ')
			p++;
	}
	if (*p < '0' || *p > '9')
		return -EIO;
	while (*p >= '0' && *p <= '9')
		v = v * 10 + (unsigned long long)(*p++ - '0');
	*start = v;
	return 0;
}

/*
 * Is @e->tid still the thread that was journalled? Returns 0 if it is, else
 * sets the outcome (gone, recycled, or failed when its start time cannot be
 * read: a thread we cannot identify is left alone) and returns 1.
 */
static int jr_thread_changed(struct rt_journal_entry *e)
{
	unsigned long long now;
	int ret = rt_journal_proc_start(e->tid, &now);

	e->err = 0;
	if (ret == -ENOENT || ret == -ESRCH) {
		e->outcome = RT_JOURNAL_GONE;
		return 1;
	}
	if (ret) {
		e->outcome = RT_JOURNAL_FAILED;
		e->err = -ret;
		return 1;
	}
	if (now != e->tid_start) {
		e->outcome = RT_JOURNAL_RECYCLED;
		return 1;
	}
	return 0;
}

static void jr_thread_done(struct rt_journal_entry *e, int ret)
{
	if (ret == -ESRCH) {
		e->outcome = RT_JOURNAL_GONE;
		e->err = 0;
		return;
	}
	e->outcome = ret ? RT_JOURNAL_FAILED : RT_JOURNAL_RESTORED;
	e->err = -ret;
}

/* "the CPU affinity of thread 42": the row's noun and the thread. */
static void jr_thread_describe(const struct rt_journal_entry *e, char *buf, size_t size)
{
	snprintf(buf, size, "%s %d", rt_journal_kinds[e->kind].noun, (int)e->tid);
}

static const char *jr_thread_check(const struct rt_journal_entry *e)
{
	return e->tid > 0 ? NULL : "no thread id";
}

static int jr_thread_parse(struct rt_journal_cursor *c, struct rt_journal_entry *e,
			   char **cause)
{
	unsigned long long v;
	int ret;

	ret = rt_journal_text_space(c, cause, "thread id");
	if (!ret)
		ret = rt_journal_text_number(c, INT_MAX, &v, cause, "thread id");
	if (ret)
		return ret;
	if (v == 0)
		return rt_err(cause, -EINVAL, "thread id 0");
	e->tid = (pid_t)v;
	ret = rt_journal_text_space(c, cause, "thread start time");
	if (!ret)
		ret = rt_journal_text_number(c, ULLONG_MAX, &e->tid_start, cause,
					     "thread start time");
	return ret;
}

/* ---- sched ----------------------------------------------------------------- */

static const char *const jr_policy_names[] = {
	[SCHED_OTHER] = "other",
	[SCHED_FIFO] = "fifo",
	[SCHED_RR] = "rr",
	[SCHED_BATCH] = "batch",
	[SCHED_IDLE] = "idle",
};
#define JR_NPOLICIES (int)(sizeof(jr_policy_names) / sizeof(jr_policy_names[0]))

const char *rt_journal_policy_name(int policy)
{
	if (policy >= 0 && policy < JR_NPOLICIES && jr_policy_names[policy])
		return jr_policy_names[policy];
	return NULL;
}

static bool jr_policy_is_rt(int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

static int jr_sched_parse(struct rt_journal_cursor *c, struct rt_journal_entry *e, char **cause)
{
	unsigned long long prio;
	const char *w = NULL;
	size_t n = 0;
	int ret, p;

	ret = jr_thread_parse(c, e, cause);
	if (!ret)
		ret = rt_journal_text_space(c, cause, "policy");
	if (!ret)
		ret = rt_journal_text_word(c, &w, &n, cause, "policy");
	if (ret)
		return ret;
	e->policy = -1;
	for (p = 0; p < JR_NPOLICIES; p++)
		if (jr_policy_names[p] && rt_journal_text_word_is(w, n, jr_policy_names[p]))
			e->policy = p;
	if (e->policy < 0)
		return rt_err(cause, -EINVAL, "unknown policy '%.*s'", (int)(n > 20 ? 20 : n), w);
	ret = rt_journal_text_space(c, cause, "priority");
	if (!ret)
		ret = rt_journal_text_number(c, 99, &prio, cause, "priority");
	if (ret)
		return ret;
	e->prio = (int)prio;
	if (jr_policy_is_rt(e->policy) ? prio < 1 : prio != 0)
		return rt_err(cause, -EINVAL, "priority %llu does not fit policy %s", prio,
			      jr_policy_names[e->policy]);
	if (c->p != c->end) {
		ret = rt_journal_text_space(c, cause, "end of line");
		if (!ret)
			ret = rt_journal_text_word(c, &w, &n, cause, "flag");
		if (ret)
			return ret;
		if (!rt_journal_text_word_is(w, n, "reset-on-fork"))
			return rt_err(cause, -EINVAL, "unknown flag");
		e->reset_on_fork = true;
	}
	return 0;
}

static int jr_sched_format(struct rt_buf *b, const struct rt_journal_entry *e)
{
	return rt_buf_printf(b, " %d %llu %s %d%s", (int)e->tid, e->tid_start,
			     rt_journal_policy_name(e->policy), e->prio,
			     e->reset_on_fork ? " reset-on-fork" : "");
}

static void jr_sched_replay(struct rt_journal_entry *e)
{
	int policy = e->policy | (e->reset_on_fork ? SCHED_RESET_ON_FORK : 0);
	struct sched_param sp;

	if (jr_thread_changed(e))
		return;
	memset(&sp, 0, sizeof(sp));
	sp.sched_priority = e->prio;
	jr_thread_done(e, sched_setscheduler(e->tid, policy, &sp) < 0 ? -errno : 0);
}

/* ---- affinity -------------------------------------------------------------- */

static int jr_affinity_parse(struct rt_journal_cursor *c, struct rt_journal_entry *e,
			     char **cause)
{
	int ret = jr_thread_parse(c, e, cause);

	if (!ret)
		ret = rt_journal_text_space(c, cause, "CPU list");
	if (!ret)
		ret = rt_journal_text_cpus(c, &e->cpus, cause);
	return ret;
}

static int jr_affinity_format(struct rt_buf *b, const struct rt_journal_entry *e)
{
	int ret = rt_buf_printf(b, " %d %llu", (int)e->tid, e->tid_start);

	return ret ? ret : rt_journal_text_put_cpus(b, &e->cpus);
}

static void jr_affinity_replay(struct rt_journal_entry *e)
{
	if (jr_thread_changed(e))
		return;
	jr_thread_done(e, sched_setaffinity(e->tid, sizeof(e->cpus), &e->cpus) < 0 ? -errno : 0);
}

/* ---- file ------------------------------------------------------------------ */

static int jr_path_parse(struct rt_journal_cursor *c, struct rt_journal_entry *e, char **cause)
{
	int ret = rt_journal_text_space(c, cause, "path");

	return ret ? ret : rt_journal_text_path(c, &e->path, cause);
}

static int jr_path_format(struct rt_buf *b, const struct rt_journal_entry *e)
{
	return rt_journal_text_put_quoted(b, e->path, strlen(e->path));
}

/* "tracefs instance /sys/...": the row's noun and the path. */
static void jr_path_describe(const struct rt_journal_entry *e, char *buf, size_t size)
{
	snprintf(buf, size, "%s %s", rt_journal_kinds[e->kind].noun, e->path);
}

static int jr_file_parse(struct rt_journal_cursor *c, struct rt_journal_entry *e, char **cause)
{
	int ret = jr_path_parse(c, e, cause);

	if (!ret)
		ret = rt_journal_text_space(c, cause, "old value");
	if (!ret)
		ret = rt_journal_text_quoted(c, RT_JOURNAL_MAX_VALUE, &e->old, &e->old_len, cause,
					     "old value");
	return ret;
}

static int jr_file_format(struct rt_buf *b, const struct rt_journal_entry *e)
{
	int ret = jr_path_format(b, e);

	return ret ? ret : rt_journal_text_put_quoted(b, e->old, e->old_len);
}

static const char *jr_file_check(const struct rt_journal_entry *e)
{
	return jr_file_why(e->path);
}

static void jr_file_replay(struct rt_journal_entry *e)
{
	const char *why = NULL;
	int ret = rt_journal_knob_write(e->path, e->old, e->old_len, &why);

	if (why) {
		e->outcome = RT_JOURNAL_REJECTED;
		e->rejected = why;
		e->err = 0;
		return;
	}
	e->outcome = ret ? RT_JOURNAL_FAILED : RT_JOURNAL_RESTORED;
	e->err = -ret;
}

/* ---- instance -------------------------------------------------------------- */

static const char *jr_instance_check(const struct rt_journal_entry *e)
{
	for (size_t i = 0; i < JR_NINSTANCE_DIRS; i++) {
		const char *name = jr_child_of(e->path, jr_instance_dirs[i]);

		if (name && !strncmp(name, JR_INSTANCE_PREFIX, strlen(JR_INSTANCE_PREFIX)))
			return NULL;
	}
	return "not an rtlab tracefs instance (<tracefs>/instances/rtlab*)";
}

/* Set a refusal from the replay itself (what the path turned out to be). */
static void jr_refuse(struct rt_journal_entry *e, const char *why)
{
	e->outcome = RT_JOURNAL_REJECTED;
	e->rejected = why;
	e->err = 0;
}

static void jr_object_done(struct rt_journal_entry *e, int ret)
{
	e->outcome = ret ? RT_JOURNAL_FAILED : RT_JOURNAL_RESTORED;
	e->err = -ret;
}

/*
 * The directory holding @e's object, walked without symlinks, for an undo
 * that removes the object. Returns its fd, or -1 with the outcome set: a
 * missing directory means nothing is left to remove, a symlink on the way
 * is refused.
 */
static int jr_object_parent(struct rt_journal_entry *e, const char **base)
{
	int dfd = jr_walk_parent(e->path, base);

	if (dfd == -ELOOP)
		jr_refuse(e, "its path goes through a symbolic link");
	else if (dfd < 0)
		jr_object_done(e, dfd == -ENOENT ? 0 : dfd);
	return dfd < 0 ? -1 : dfd;
}

static void jr_instance_replay(struct rt_journal_entry *e)
{
	const char *base = NULL;
	struct statfs sf;
	struct stat st;
	int dfd, ret = 0;

	const char *why = NULL;

	dfd = jr_object_parent(e, &base);
	if (dfd < 0)
		return;
	if (fstatfs(dfd, &sf) < 0 || (sf.f_type != TRACEFS_MAGIC && sf.f_type != DEBUGFS_MAGIC))
		why = "its parent is not a tracefs instances directory";
	else if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
		ret = errno == ENOENT ? 0 : -errno;
	else if (!S_ISDIR(st.st_mode))
		why = "it is not a directory";
	else if (unlinkat(dfd, base, AT_REMOVEDIR) < 0 && errno != ENOENT)
		ret = -errno;
	close(dfd);
	if (why)
		jr_refuse(e, why);
	else
		jr_object_done(e, ret);
}

/* ---- netns ----------------------------------------------------------------- */

static const char *jr_netns_check(const struct rt_journal_entry *e)
{
	if (!jr_child_of(e->path, JR_NETNS_DIR))
		return "not a network namespace file (" JR_NETNS_DIR "/NAME)";
	return NULL;
}

/*
 * `ip netns add` leaves an empty regular file with the namespace bind
 * mounted on it. Unmount that (only if it is a namespace), then unlink the
 * file (only if it is the empty file).
 */
static void jr_netns_replay(struct rt_journal_entry *e)
{
	const char *base = NULL;
	struct statfs sf;
	struct stat st;
	int dfd, fd, ret = 0;

	const char *why = NULL;

	dfd = jr_object_parent(e, &base);
	if (dfd < 0)
		return;
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		ret = errno == ENOENT ? 0 : -errno;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		why = S_ISLNK(st.st_mode) ? "it is a symbolic link" :
		      "it is not a network namespace file";
		goto out_close;
	}
	fd = openat(dfd, base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		if (fstatfs(fd, &sf) == 0 && sf.f_type == NSFS_MAGIC &&
		    umount2(e->path, MNT_DETACH | UMOUNT_NOFOLLOW) < 0 && errno != EINVAL &&
		    errno != ENOENT)
			ret = -errno;
		close(fd);
	}
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT && !ret)
			ret = -errno;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode) || st.st_size != 0) {
		why = "it is not the empty file `ip netns add` makes";
		goto out_close;
	}
	if (unlinkat(dfd, base, 0) < 0 && errno != ENOENT && !ret)
		ret = -errno;
out_close:
	close(dfd);
	if (why)
		jr_refuse(e, why);
	else
		jr_object_done(e, ret);
}

/* ---- The table ------------------------------------------------------------- */

static const char *const jr_file_allowed[] = {
	"/sys/kernel/tracing/FILE and /sys/kernel/debug/tracing/FILE (tracefs, instances included)",
	"/proc/sys/kernel/sched_rt_runtime_us",
	"/proc/sys/kernel/sched_rt_period_us",
	JR_FAIR_SERVER_DIR "/cpuN/runtime and /cpuN/period (debugfs)",
	JR_KVM_HALT_POLL,
	NULL,
};

static const char *const jr_thread_allowed[] = {
	"the thread TID only while its start time is still START",
	NULL,
};

static const char *const jr_instance_allowed[] = {
	"/sys/kernel/tracing/instances/rtlab* and /sys/kernel/debug/tracing/instances/rtlab*",
	NULL,
};

static const char *const jr_netns_allowed[] = {
	JR_NETNS_DIR "/NAME (NAME one path component), a namespace bind mount or an empty file",
	NULL,
};

const struct rt_journal_kind_ops rt_journal_kinds[RT_JOURNAL_NKINDS] = {
	[RT_JOURNAL_FILE] = {
		.keyword = "file", .noun = "the value of", .allowed = jr_file_allowed,
		.parse = jr_file_parse, .format = jr_file_format, .check = jr_file_check,
		.replay = jr_file_replay, .describe = jr_path_describe,
	},
	[RT_JOURNAL_SCHED] = {
		.keyword = "sched", .noun = "the scheduling policy of thread",
		.allowed = jr_thread_allowed,
		.parse = jr_sched_parse, .format = jr_sched_format, .check = jr_thread_check,
		.replay = jr_sched_replay, .describe = jr_thread_describe,
	},
	[RT_JOURNAL_AFFINITY] = {
		.keyword = "affinity", .noun = "the CPU affinity of thread",
		.allowed = jr_thread_allowed,
		.parse = jr_affinity_parse, .format = jr_affinity_format,
		.check = jr_thread_check, .replay = jr_affinity_replay,
		.describe = jr_thread_describe,
	},
	[RT_JOURNAL_INSTANCE] = {
		.keyword = "instance", .noun = "tracefs instance", .allowed = jr_instance_allowed,
		.parse = jr_path_parse, .format = jr_path_format, .check = jr_instance_check,
		.replay = jr_instance_replay, .describe = jr_path_describe,
	},
	[RT_JOURNAL_NETNS] = {
		.keyword = "netns", .noun = "network namespace", .allowed = jr_netns_allowed,
		.parse = jr_path_parse, .format = jr_path_format, .check = jr_netns_check,
		.replay = jr_netns_replay, .describe = jr_path_describe,
	},
};

const struct rt_journal_kind_ops *rt_journal_kind_find(const char *w, size_t n)
{
	for (size_t i = 0; i < RT_JOURNAL_NKINDS; i++)
		if (rt_journal_text_word_is(w, n, rt_journal_kinds[i].keyword))
			return &rt_journal_kinds[i];
	return NULL;
}

const char *rt_journal_entry_check(const struct rt_journal_entry *e)
{
	if ((unsigned int)e->kind >= RT_JOURNAL_NKINDS)
		return "unknown kind";
	return rt_journal_kinds[e->kind].check(e);
}

void rt_journal_entry_replay(struct rt_journal_entry *e)
{
	const char *why = rt_journal_entry_check(e);

	if (why) {
		jr_refuse(e, why);
		return;
	}
	e->rejected = NULL;
	rt_journal_kinds[e->kind].replay(e);
}

void rt_journal_entry_describe(const struct rt_journal_entry *e, char *buf, size_t size)
{
	if ((unsigned int)e->kind >= RT_JOURNAL_NKINDS)
		snprintf(buf, size, "an entry of unknown kind");
	else
		rt_journal_kinds[e->kind].describe(e, buf, size);
}
