/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_journal_dir: where journals live, which directories are trusted, and
 * what happens to the journals found there (scan and recovery).
 *
 * A journal is a list of things to write and remove as whoever replays it,
 * so it is only ever read from a directory nobody else can write: as root
 * that is /run/rtlab, whatever the environment says (sudo may keep HOME,
 * XDG_STATE_HOME or RTLAB_JOURNAL_DIR of the user who called it); as
 * another user, the directory must be that user's own, writable by no one
 * else, and not a symlink. The directory is opened once (O_DIRECTORY |
 * O_NOFOLLOW), checked with fstat, and everything after that is relative to
 * that descriptor, so renaming paths under our feet changes nothing.
 *
 * A file in it is replayed only if it is a regular file owned by this user
 * that parses. Anything else named like a journal is left exactly as it is
 * and reported: a FIFO, device or symlink is never opened for reading (a
 * FIFO would block every rtlab command), another user's journal is never
 * read or renamed (say whose it is), and only a file we own and could read
 * but failed to parse is moved aside as "<name>.corrupt".
 */
#include "rt_journal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_err.h"
#include "rt_file.h"
#include "rt_journal-int.h"
#include "rt_log.h"
#include "rt_paths.h"

#define JR_LOCK_NAME ".recover.lock"

/* ---- Small helpers ---------------------------------------------------------- */

/* "root (uid 0)" or "uid 1234" into @buf. */
static const char *jr_owner_name(uid_t uid, char *buf, size_t size)
{
	struct passwd pw, *res = NULL;
	char tmp[1024];

	if (getpwuid_r(uid, &pw, tmp, sizeof(tmp), &res) == 0 && res)
		snprintf(buf, size, "%s (uid %u)", res->pw_name, (unsigned int)uid);
	else
		snprintf(buf, size, "uid %u", (unsigned int)uid);
	return buf;
}

static const char *jr_type_name(mode_t mode)
{
	static const struct {
		mode_t type;
		const char *name;
	} types[] = {
		{ S_IFIFO, "a FIFO" }, { S_IFLNK, "a symbolic link" },
		{ S_IFCHR, "a character device" }, { S_IFBLK, "a block device" },
		{ S_IFDIR, "a directory" }, { S_IFSOCK, "a socket" },
	};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if ((mode & S_IFMT) == types[i].type)
			return types[i].name;
	return "not a regular file";
}

int rt_journal_boot_id(char *out, char **cause)
{
	const char *src = "/proc/sys/kernel/random/boot_id";
	char *data = NULL;
	size_t len = 0;
	int ret = rt_file_read(src, 256, &data, &len);

	if (ret)
		return rt_err(cause, ret, "cannot read %s: %s", src, strerror(-ret));
	while (len && isspace((unsigned char)data[len - 1]))
		len--;
	ret = 0;
	if (len == 0 || len > RT_JOURNAL_BOOT_ID_MAX)
		ret = -EIO;
	for (size_t i = 0; i < len && !ret; i++)
		if (!isxdigit((unsigned char)data[i]) && data[i] != '-')
			ret = -EIO;
	if (ret) {
		rt_err(cause, ret, "%s: unexpected contents", src);
	} else {
		memcpy(out, data, len);
		out[len] = '\0';
	}
	free(data);
	return ret;
}

/* ---- The directory ---------------------------------------------------------- */

char *rt_journal_default_dir(void)
{
	const char *env = getenv("RTLAB_JOURNAL_DIR");
	char *state, *dir = NULL;

	/* Root's journals are root's: no variable of the caller may move them. */
	if (geteuid() == 0 || !env || !*env) {
		if (geteuid() == 0) {
			dir = strdup(RT_JOURNAL_ROOT_DIR);
			if (!dir)
				errno = ENOMEM;
			return dir;
		}
		state = rt_paths_state_dir();
		if (!state)
			return NULL;
		if (asprintf(&dir, "%s/journal", state) < 0) {
			dir = NULL;
			errno = ENOMEM;
		}
		free(state);
		return dir;
	}
	dir = strdup(env);
	if (!dir)
		errno = ENOMEM;
	return dir;
}

int rt_journal_dir_open(const char *dir, bool create, char **cause)
{
	char owner[64], me[64];
	struct stat st;
	int fd, dfd, ret;

	if (create) {
		/* /run/rtlab: one mkdir, never a chain of parents made on root's behalf. */
		if (!strcmp(dir, RT_JOURNAL_ROOT_DIR))
			ret = mkdir(dir, 0700) < 0 && errno != EEXIST ? -errno : 0;
		else
			ret = rt_mkdir_p(dir, 0700);
		if (ret && ret != -ENOTDIR)
			return rt_err(cause, ret, "cannot create journal directory %s: %s", dir,
				      strerror(-ret));
	}
	/* O_PATH first: whose it is matters before whether we may read it. */
	fd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode))
			return rt_err(cause, -EPERM, "journal directory %s is a symbolic link: not "
				      "trusted, so no journal there is replayed or written", dir);
		if (ret == -ENOENT)
			return ret;
		return rt_err(cause, ret, "journal directory %s: %s", dir, strerror(-ret));
	}
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		close(fd);
		return rt_err(cause, ret, "journal directory %s: %s", dir, strerror(-ret));
	}
	if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		return rt_err(cause, -EPERM, "journal directory %s is owned by %s with mode %04o: "
			      "not trusted (it must belong to %s and be writable by no one else), "
			      "so no journal there is replayed or written", dir,
			      jr_owner_name(st.st_uid, owner, sizeof(owner)),
			      (unsigned int)(st.st_mode & 07777),
			      jr_owner_name(geteuid(), me, sizeof(me)));
	}
	/* The same directory, now opened for reading (fsync and listing need it). */
	dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ret = dfd < 0 ? -errno : 0;
	close(fd);
	if (ret)
		return rt_err(cause, ret, "journal directory %s: %s", dir, strerror(-ret));
	return dfd;
}

int rt_journal_dir_write(int dfd, const char *dir, const char *name, const void *data,
			 size_t len, char **cause)
{
	static unsigned int counter;
	char tmp[NAME_MAX + 1];
	int fd, ret, n;

	n = snprintf(tmp, sizeof(tmp), "%s.tmp.%ld.%u", name, (long)getpid(),
		     __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED));
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return rt_err(cause, -ENAMETOOLONG, "%s/%s: name too long", dir, name);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return rt_err(cause, -errno, "%s/%s: cannot create temporary file: %s", dir, tmp,
			      strerror(errno));
	ret = rt_write_all(fd, data, len);
	if (ret) {
		rt_err(cause, ret, "%s/%s: write failed: %s", dir, tmp, strerror(-ret));
		goto out_unlink;
	}
	if (fsync(fd) < 0) {
		ret = rt_err(cause, -errno, "%s/%s: fsync failed: %s", dir, tmp, strerror(errno));
		goto out_unlink;
	}
	ret = close(fd);
	fd = -1;
	if (ret < 0) {
		ret = rt_err(cause, -errno, "%s/%s: close failed: %s", dir, tmp, strerror(errno));
		goto out_unlink;
	}
	if (renameat(dfd, tmp, dfd, name) < 0) {
		ret = rt_err(cause, -errno, "%s/%s: cannot rename into place: %s", dir, name,
			     strerror(errno));
		goto out_unlink;
	}
	/* The data is safe; a failed directory fsync only weakens durability. */
	fsync(dfd);
	return 0;

out_unlink:
	if (fd >= 0)
		close(fd);
	unlinkat(dfd, tmp, 0);
	return ret;
}

/* ---- Replay with logging ------------------------------------------------------ */

int rt_journal_replay_logged(struct rt_journal_doc *doc, const char *name, size_t *undone)
{
	struct rt_journal_entry *e;
	char what[PATH_MAX + 64];
	size_t ok = 0;
	int ret = 0;

	for (e = doc->newest; e; e = e->older) {
		if (e->dropped)
			continue;
		rt_journal_entry_replay(e);
		rt_journal_entry_describe(e, what, sizeof(what));
		switch (e->outcome) {
		case RT_JOURNAL_FAILED:
			rt_log(RT_LOG_WARN, "journal %s: cannot restore %s: %s", name, what,
			       strerror(e->err));
			if (!ret)
				ret = -e->err;
			break;
		case RT_JOURNAL_REJECTED:
			rt_log(RT_LOG_WARN, "journal %s: refused to restore %s: %s; entry skipped",
			       name, what, e->rejected);
			if (!ret)
				ret = -EPERM;
			break;
		case RT_JOURNAL_RECYCLED:
			rt_log(RT_LOG_INFO, "journal %s: thread %d is not the journalled thread "
			       "any more (its start time differs); left alone", name, (int)e->tid);
			break;
		case RT_JOURNAL_GONE:
			rt_log(RT_LOG_DEBUG, "journal %s: thread %d has exited; nothing to restore",
			       name, (int)e->tid);
			break;
		default:
			rt_log(RT_LOG_DEBUG, "journal %s: restored %s", name, what);
			ok++;
			break;
		}
	}
	if (undone)
		*undone = ok;
	return ret;
}

/* ---- One journal file ---------------------------------------------------------- */

enum jr_state {
	JR_LIVE,	/* its process runs: not ours to touch */
	JR_DEAD,	/* its process is gone: replay */
	JR_OTHER_BOOT,	/* written before the last reboot: remove without replay */
	JR_CORRUPT,	/* ours, read, but not a journal: move aside */
	JR_FOREIGN,	/* another user's: leave alone, say whose */
	JR_ODD,		/* not a regular file, or unreadable: leave alone, say what */
};

/* What one journal file found in the directory is. */
struct jr_found {
	enum jr_state state;
	struct rt_journal_doc doc;	/* owned; parsed for LIVE, DEAD and OTHER_BOOT */
	size_t line;			/* CORRUPT: the line at fault (0: the file itself) */
	char *why;			/* owned; CORRUPT and ODD: the reason */
	uid_t owner;			/* FOREIGN: whose it is */
};

static void jr_found_fini(struct jr_found *f)
{
	rt_journal_doc_fini(&f->doc);
	free(f->why);
	f->why = NULL;
}

static void jr_found_why(struct jr_found *f, enum jr_state state, const char *fmt, const char *a)
{
	f->state = state;
	if (asprintf(&f->why, fmt, a) < 0)
		f->why = NULL;
}

static bool jr_alive(pid_t pid, unsigned long long start)
{
	unsigned long long now;

	return rt_journal_proc_start(pid, &now) == 0 && now == start;
}

/* "<pid>.journal" with a positive pid; 0 if @name is anything else. */
static pid_t jr_name_pid(const char *name)
{
	unsigned long long v = 0;
	const char *p = name;

	if (*p < '1' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (unsigned long long)(*p++ - '0');
		if (v > INT_MAX)
			return 0;
	}
	return strcmp(p, RT_JOURNAL_SUFFIX) ? 0 : (pid_t)v;
}

int rt_journal_read_fd(int fd, size_t max, char **data, size_t *len)
{
	size_t cap = 256, used = 0;
	char *buf = malloc(cap), *p;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (used + 1 == cap) {
			if (cap > max + 1) {
				free(buf);
				return -EFBIG;
			}
			p = realloc(buf, cap * 2);
			if (!p) {
				free(buf);
				return -ENOMEM;
			}
			buf = p;
			cap *= 2;
		}
		n = read(fd, buf + used, cap - used - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			free(buf);
			return err;
		}
		if (n == 0)
			break;
		used += (size_t)n;
		if (used > max) {
			free(buf);
			return -EFBIG;
		}
	}
	buf[used] = '\0';
	*data = buf;
	*len = used;
	return 0;
}

/*
 * Look at @name in @dfd without acting on it. Returns 0 with @f filled,
 * -ENOENT if it vanished, or -ENOMEM.
 */
static int jr_examine(int dfd, const char *name, pid_t name_pid, const char *boot,
		      struct jr_found *f)
{
	struct stat st, st2;
	char *data = NULL;
	size_t len = 0;
	int fd, ret;

	memset(f, 0, sizeof(*f));
	/* What it is decides whether it may be opened at all: never a FIFO or a device. */
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return -ENOENT;
		jr_found_why(f, JR_ODD, "unreadable: %s", strerror(errno));
		return 0;
	}
	if (!S_ISREG(st.st_mode)) {
		jr_found_why(f, JR_ODD, "%s, not a regular file", jr_type_name(st.st_mode));
		return 0;
	}
	if (st.st_uid != geteuid()) {
		f->state = JR_FOREIGN;
		f->owner = st.st_uid;
		return 0;
	}
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return -ENOENT;
		jr_found_why(f, JR_ODD, "unreadable: %s", strerror(errno));
		return 0;
	}
	if (fstat(fd, &st2) < 0 || st2.st_dev != st.st_dev || st2.st_ino != st.st_ino ||
	    !S_ISREG(st2.st_mode) || st2.st_uid != geteuid()) {
		close(fd);
		jr_found_why(f, JR_ODD, "%s", "replaced while it was being opened");
		return 0;
	}
	ret = rt_journal_read_fd(fd, RT_JOURNAL_MAX_FILE, &data, &len);
	close(fd);
	if (ret == -ENOMEM)
		return ret;
	if (ret == -EFBIG) {
		jr_found_why(f, JR_CORRUPT, "larger than %s", "16 MiB");
		return 0;
	}
	if (ret) {
		jr_found_why(f, JR_ODD, "unreadable: %s", strerror(-ret));
		return 0;
	}
	ret = rt_journal_parse(data, len, &f->doc, &f->line, &f->why);
	free(data);
	if (ret == -ENOMEM) {
		jr_found_fini(f);
		return ret;
	}
	if (ret) {
		f->state = JR_CORRUPT;
		return 0;
	}
	if (f->doc.pid != name_pid) {
		f->state = JR_CORRUPT;
		f->line = 3;
		if (asprintf(&f->why, "pid %d does not match the file name", (int)f->doc.pid) < 0)
			f->why = NULL;
		rt_journal_doc_fini(&f->doc);
		return 0;
	}
	if (strcmp(f->doc.boot_id, boot))
		f->state = JR_OTHER_BOOT;
	else if (jr_alive(f->doc.pid, f->doc.start))
		f->state = JR_LIVE;
	else
		f->state = JR_DEAD;
	return 0;
}

/* Why a journal is left alone, for people. Returns a string the caller frees, or NULL. */
static char *jr_left_alone(const char *dir, const char *name, const struct jr_found *f)
{
	char owner[64], *s = NULL;
	int n;

	if (f->state == JR_FOREIGN)
		n = asprintf(&s, "journal %s/%s belongs to %s, not to this user: left alone (not "
			     "read, replayed or moved)%s", dir, name,
			     jr_owner_name(f->owner, owner, sizeof(owner)),
			     geteuid() != 0 ? "; journals of runs as root live in "
			     RT_JOURNAL_ROOT_DIR " and are restored by `sudo rtlab doctor "
			     "--restore`" : "");
	else
		n = asprintf(&s, "journal %s/%s is %s: left alone (not replayed or moved)", dir,
			     name, f->why ? f->why : "not a regular file");
	return n < 0 ? NULL : s;
}

/*
 * Act on one journal that is not live: replay it, discard it (other boot)
 * or move it aside (corrupt). Returns 1 if it was replayed, 0 if not, or a
 * negative errno for a failure to act on the file itself.
 */
static int jr_settle(int dfd, const char *dir, const char *name, struct jr_found *f)
{
	char aside[NAME_MAX + 1];
	size_t undone = 0;
	int ret = 0;

	switch (f->state) {
	case JR_LIVE:
	case JR_FOREIGN:
	case JR_ODD:
		break;
	case JR_CORRUPT:
		snprintf(aside, sizeof(aside), "%s.corrupt", name);
		if (renameat(dfd, name, dfd, aside) < 0) {
			ret = -errno;
			rt_log(RT_LOG_WARN, "journal %s/%s: line %zu: %s; cannot move it aside: %s",
			       dir, name, f->line, f->why ? f->why : "unreadable", strerror(errno));
		} else {
			fsync(dfd);
			rt_log(RT_LOG_WARN, "journal %s/%s: line %zu: %s; not replayed, moved aside "
			       "as %s/%s", dir, name, f->line, f->why ? f->why : "unreadable", dir,
			       aside);
		}
		break;
	case JR_OTHER_BOOT:
		if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
			ret = -errno;
		rt_log(RT_LOG_INFO, "journal %s/%s was written before the last reboot (pid %d), "
		       "which already undid its %zu change(s); %s", dir, name, (int)f->doc.pid,
		       f->doc.n, ret ? "cannot remove it" : "removed without replay");
		break;
	case JR_DEAD: {
		char label[PATH_MAX + NAME_MAX + 2];

		snprintf(label, sizeof(label), "%s/%s", dir, name);
		rt_journal_replay_logged(&f->doc, label, &undone);
		if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
			ret = -errno;
		else
			fsync(dfd);
		rt_log(RT_LOG_INFO, "journal %s: restored %zu of %zu change(s) left by process "
		       "%d, which did not exit cleanly", label, undone, f->doc.n, (int)f->doc.pid);
		ret = ret ? ret : 1;
		break;
	}
	}
	return ret;
}

int rt_journal_dir_settle_namesake(int dfd, const char *dir, const char *name,
				   const char *boot, char **cause)
{
	struct jr_found f;
	char owner[64];
	int ret = 0;

	if (jr_examine(dfd, name, getpid(), boot, &f))
		return 0;
	switch (f.state) {
	case JR_FOREIGN:
		/* Another user's record of changes: never ours to replace. */
		ret = rt_err(cause, -EEXIST, "journal %s/%s belongs to %s: left alone, so this "
			     "process cannot keep a journal there", dir, name,
			     jr_owner_name(f.owner, owner, sizeof(owner)));
		break;
	case JR_ODD:
		rt_log(RT_LOG_WARN, "journal %s/%s is %s: not read; this process's own journal "
		       "replaces it", dir, name, f.why ? f.why : "not a regular file");
		break;
	case JR_LIVE:
		/* Our pid, yet not our journal: whatever the start time says, it is not live. */
		f.state = JR_DEAD;
		/* fall through */
	default:
		jr_settle(dfd, dir, name, &f);
		break;
	}
	jr_found_fini(&f);
	return ret;
}

/* ---- The directory's journals -------------------------------------------------- */

static int jr_cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void jr_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* The names in @dfd that look like journals, sorted. */
static int jr_list_names(int dfd, char ***out, size_t *count)
{
	char **names = NULL, **p;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	*out = NULL;
	*count = 0;
	d = rt_file_dir_reopen(dfd);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!jr_name_pid(de->d_name))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			p = realloc(names, cap * sizeof(*names));
			if (!p)
				goto out_nomem;
			names = p;
		}
		names[n] = strdup(de->d_name);
		if (!names[n])
			goto out_nomem;
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), jr_cmp_names);
	*out = names;
	*count = n;
	return 0;

out_nomem:
	closedir(d);
	jr_names_free(names, n);
	return -ENOMEM;
}

/* "<pid>.journal.tmp.<writer>.<n>" left by a write that was killed */
static void jr_remove_dead_temps(int dfd, const char *dir)
{
	int n = rt_file_sweep_temps_at(dfd, NULL);

	if (n > 0)
		rt_log(RT_LOG_DEBUG, "journal: removed %d leftover temporary file%s in %s", n,
		       n == 1 ? "" : "s", dir);
}

static char *jr_dir_or_default(const char *dir, char **cause)
{
	char *d = dir ? strdup(dir) : rt_journal_default_dir();

	if (!d)
		rt_err(cause, -errno, "cannot find the journal directory: %s", strerror(errno));
	return d;
}

/*
 * Open the directory (NULL: the default), read this boot's id and list the
 * journal names, shared by scan and recover. Returns 0, 1 when the
 * directory does not exist (nothing to do), or a negative errno. *@d and
 * *@dfd are set whenever they could be, for the caller to release.
 */
static int jr_list(const char *dir, char *boot, char **d, int *dfd, char ***names,
		   size_t *count, char **cause)
{
	int ret;

	*names = NULL;
	*count = 0;
	*dfd = -1;
	*d = jr_dir_or_default(dir, cause);
	if (!*d)
		return -errno;
	ret = rt_journal_boot_id(boot, cause);
	if (ret)
		return ret;
	*dfd = rt_journal_dir_open(*d, false, cause);
	if (*dfd == -ENOENT) {
		*dfd = -1;
		return 1;
	}
	if (*dfd < 0) {
		ret = *dfd;
		*dfd = -1;
		return ret;
	}
	ret = jr_list_names(*dfd, names, count);
	if (ret)
		return rt_err(cause, ret, "cannot list %s: %s", *d, strerror(-ret));
	return 0;
}

int rt_journal_scan(const char *dir, struct rt_journal_stale **out, size_t *n, char **cause)
{
	struct rt_journal_stale *v = NULL;
	char boot[RT_JOURNAL_BOOT_ID_MAX + 1];
	char **names = NULL, *d = NULL;
	size_t count = 0, used = 0;
	int ret, dfd = -1;

	*out = NULL;
	*n = 0;
	ret = jr_list(dir, boot, &d, &dfd, &names, &count, cause);
	if (ret) {
		if (ret > 0)
			ret = 0;	/* no journal directory: nothing to do */
		goto out_free;
	}
	v = calloc(count + 1, sizeof(*v));
	if (!v) {
		ret = rt_err(cause, -ENOMEM, "out of memory");
		goto out_free;
	}
	for (size_t i = 0; i < count; i++) {
		struct rt_journal_stale *s = &v[used];
		struct jr_found f;
		char *why;

		ret = jr_examine(dfd, names[i], jr_name_pid(names[i]), boot, &f);
		if (ret == -ENOENT) {	/* removed meanwhile */
			ret = 0;
			continue;
		}
		if (ret) {
			rt_err(cause, ret, "%s/%s: out of memory", d, names[i]);
			goto out_free;
		}
		if (f.state == JR_FOREIGN || f.state == JR_ODD) {
			why = jr_left_alone(d, names[i], &f);
			rt_log(RT_LOG_WARN, "%s", why ? why : names[i]);
			free(why);
		} else if (f.state != JR_LIVE) {
			if (asprintf(&s->path, "%s/%s", d, names[i]) < 0) {
				s->path = NULL;
				jr_found_fini(&f);
				ret = rt_err(cause, -ENOMEM, "out of memory");
				goto out_free;
			}
			s->pid = jr_name_pid(names[i]);
			s->entries = f.doc.n;
			s->other_boot = f.state == JR_OTHER_BOOT;
			s->corrupt = f.state == JR_CORRUPT;
			used++;
		}
		jr_found_fini(&f);
	}
	*out = v;
	*n = used;
	v = NULL;
	used = 0;

out_free:
	rt_journal_stale_free(v, used);
	jr_names_free(names, count);
	if (dfd >= 0)
		close(dfd);
	free(d);
	return ret;
}

void rt_journal_stale_free(struct rt_journal_stale *v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

/* The lock file: a regular file of ours, never a FIFO or someone's symlink. */
static int jr_lock(int dfd, const char *d, char **cause)
{
	struct stat st;
	int fd;

	fd = openat(dfd, JR_LOCK_NAME, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
		    O_CLOEXEC, 0600);
	if (fd < 0)
		return rt_err(cause, -errno, "%s/%s: cannot open: %s", d, JR_LOCK_NAME,
			      strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		close(fd);
		return rt_err(cause, -EPERM, "%s/%s is not a regular file of this user: cannot "
			      "lock", d, JR_LOCK_NAME);
	}
	if (flock(fd, LOCK_EX) < 0) {
		int err = -errno;

		close(fd);
		return rt_err(cause, err, "%s/%s: cannot lock: %s", d, JR_LOCK_NAME,
			      strerror(-err));
	}
	return fd;
}

int rt_journal_recover(const char *dir, unsigned int *restored, char **cause)
{
	char boot[RT_JOURNAL_BOOT_ID_MAX + 1];
	char **names = NULL, *d = NULL, *alone = NULL;
	int ret, dfd = -1, lockfd = -1;
	size_t count = 0, nalone = 0;
	unsigned int done = 0;

	if (restored)
		*restored = 0;
	ret = jr_list(dir, boot, &d, &dfd, &names, &count, cause);
	if (ret) {
		if (ret > 0)
			ret = 0;	/* no journal directory: nothing to do */
		goto out_free;
	}
	/* Two rtlab processes starting together must not replay the same journal twice. */
	lockfd = jr_lock(dfd, d, cause);
	if (lockfd < 0) {
		ret = lockfd;
		goto out_free;
	}
	for (size_t i = 0; i < count; i++) {
		struct jr_found f;
		int r;

		r = jr_examine(dfd, names[i], jr_name_pid(names[i]), boot, &f);
		if (r == 0) {
			if (f.state == JR_FOREIGN || f.state == JR_ODD) {
				if (!nalone++)
					alone = jr_left_alone(d, names[i], &f);
			}
			r = jr_settle(dfd, d, names[i], &f);
			if (r == 1)
				done++;
			else if (r < 0 && !ret)
				ret = rt_err(cause, r, "%s/%s: %s", d, names[i], strerror(-r));
			jr_found_fini(&f);
		} else if (r != -ENOENT && !ret) {
			ret = rt_err(cause, r, "%s/%s: %s", d, names[i], strerror(-r));
		}
	}
	jr_remove_dead_temps(dfd, d);
	/* A journal left alone may hold changes nobody undid: not a clean recovery. */
	if (nalone && !ret) {
		if (nalone > 1)
			ret = rt_err(cause, -EPERM, "%s; and %zu more", alone ? alone : "?",
				     nalone - 1);
		else
			ret = rt_err(cause, -EPERM, "%s", alone ? alone : "?");
	}

out_free:
	if (lockfd >= 0)
		close(lockfd);	/* releases the lock */
	if (dfd >= 0)
		close(dfd);
	jr_names_free(names, count);
	free(alone);
	free(d);
	if (restored)
		*restored = done;
	return ret;
}
