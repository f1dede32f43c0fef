/*
 * rt_journal: the undo journal (see rt_journal.h for the contract and
 * doc/journal.md for the file format).
 *
 * The journal lives twice: as a list of entries in memory, prepared so that
 * a signal handler can replay it with plain syscalls, and as a small text
 * file rewritten in full (rt_file_write_atomic) before every change, so a
 * killed process leaves a complete record behind. The handler never takes a
 * lock, never allocates and never logs; everything it needs (absolute paths,
 * old bytes, the journal's own path) was computed when the entry was made.
 *
 * Failed changes: a file, scheduling or affinity entry whose change failed
 * stays in the journal (restoring a value that was never changed is
 * harmless). A tracefs instance or network namespace entry whose creation
 * failed is dropped, because undoing it would remove something that is not
 * ours.
 *
 * After a replay the journal file is removed even if some undo steps failed
 * (each failure is logged): retrying on every start would not make a step
 * that cannot succeed succeed, and would repeat the warning forever.
 */
#include "rt_journal.h"

#include <ctype.h>
#include <dirent.h>
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
#include <sys/file.h>
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
#include "rt_paths.h"

#define JR_NETNS_DIR "/run/netns"
#define JR_SUFFIX ".journal"

/* Values of struct rt_journal.replay_state. */
enum {
	JR_IDLE,
	JR_RUNNING,
	JR_DONE,
};

struct rt_journal {
	struct rt_journal_doc doc;	/* owned; doc.newest is read by the signal handler */
	char *path;			/* owned; "<dir>/<pid>.journal" */
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

static int jr_write_value(const char *path, const char *value, size_t len)
{
	int fd, ret;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	ret = rt_write_all(fd, value, len);
	if (close(fd) < 0 && !ret && errno != EINTR)
		ret = -errno;
	return ret;
}

/* Is @tid still the thread that was journalled? 0 yes, else an outcome. */
static int jr_same_thread(const struct rt_journal_entry *e)
{
	unsigned long long now;
	int ret = rt_journal_proc_start(e->tid, &now);

	if (ret == -ENOENT || ret == -ESRCH)
		return RT_JOURNAL_GONE;
	if (ret == 0 && now != e->tid_start)
		return RT_JOURNAL_RECYCLED;
	/* An unreadable stat file: try anyway, the syscall will tell. */
	return 0;
}

void rt_journal_entry_replay(struct rt_journal_entry *e)
{
	struct sched_param sp;
	int ret = 0, who;

	switch (e->kind) {
	case RT_JOURNAL_FILE:
		ret = jr_write_value(e->path, e->old, e->old_len);
		break;
	case RT_JOURNAL_SCHED:
	case RT_JOURNAL_AFFINITY:
		who = jr_same_thread(e);
		if (who) {
			e->outcome = who;
			e->err = 0;
			return;
		}
		if (e->kind == RT_JOURNAL_SCHED) {
			int policy = e->policy | (e->reset_on_fork ? SCHED_RESET_ON_FORK : 0);

			memset(&sp, 0, sizeof(sp));
			sp.sched_priority = e->prio;
			if (sched_setscheduler(e->tid, policy, &sp) < 0)
				ret = -errno;
		} else if (sched_setaffinity(e->tid, sizeof(e->cpus), &e->cpus) < 0) {
			ret = -errno;
		}
		if (ret == -ESRCH) {
			e->outcome = RT_JOURNAL_GONE;
			e->err = 0;
			return;
		}
		break;
	case RT_JOURNAL_INSTANCE:
		if (rmdir(e->path) < 0 && errno != ENOENT)
			ret = -errno;
		break;
	case RT_JOURNAL_NETNS:
		/* Not mounted (crash before the bind mount) is fine: just unlink. */
		if (umount2(e->path, MNT_DETACH) < 0 && errno != EINVAL && errno != ENOENT)
			ret = -errno;
		if (unlink(e->path) < 0 && errno != ENOENT && !ret)
			ret = -errno;
		break;
	}
	e->outcome = ret ? RT_JOURNAL_FAILED : RT_JOURNAL_RESTORED;
	e->err = -ret;
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
				unlink(j->path);
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

/* ---- Entries and docs ----------------------------------------------------- */

static void jr_entry_free(struct rt_journal_entry *e)
{
	if (!e)
		return;
	free(e->path);
	free(e->old);
	free(e);
}

void rt_journal_doc_fini(struct rt_journal_doc *doc)
{
	struct rt_journal_entry *e = doc->newest;

	while (e) {
		struct rt_journal_entry *older = e->older;

		jr_entry_free(e);
		e = older;
	}
	doc->newest = NULL;
	doc->oldest = NULL;
	doc->n = 0;
}

/* Link @e as the newest entry, except for publishing it through doc->newest. */
static void jr_link(struct rt_journal_doc *doc, struct rt_journal_entry *e)
{
	e->older = doc->newest;
	e->newer = NULL;
	if (doc->newest)
		doc->newest->newer = e;
	else
		doc->oldest = e;
}

static void jr_unlink_unpublished(struct rt_journal_doc *doc, struct rt_journal_entry *e)
{
	if (e->older)
		e->older->newer = NULL;
	else
		doc->oldest = NULL;
}

static void jr_publish(struct rt_journal_doc *doc, struct rt_journal_entry *e)
{
	__atomic_store_n(&doc->newest, e, __ATOMIC_RELEASE);
	doc->n++;
}

static const char *const jr_policy_names[] = {
	[SCHED_OTHER] = "other",
	[SCHED_FIFO] = "fifo",
	[SCHED_RR] = "rr",
	[SCHED_BATCH] = "batch",
	[SCHED_IDLE] = "idle",
};
#define JR_NPOLICIES (int)(sizeof(jr_policy_names) / sizeof(jr_policy_names[0]))

static const char *jr_policy_name(int policy)
{
	if (policy >= 0 && policy < JR_NPOLICIES && jr_policy_names[policy])
		return jr_policy_names[policy];
	return NULL;
}

static bool jr_policy_is_rt(int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

/* ---- Format --------------------------------------------------------------- */

/* Bytes outside printable ASCII, the quote and the backslash become \xHH. */
static int jr_put_quoted(struct rt_buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	int ret = rt_buf_puts(b, "\"");

	for (size_t i = 0; i < len && !ret; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			ret = rt_buf_append(b, s + i, 1);
		} else {
			char esc[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };

			ret = rt_buf_append(b, esc, 4);
		}
	}
	return ret ? ret : rt_buf_puts(b, "\"");
}

/* "0-3,6" */
static int jr_put_cpus(struct rt_buf *b, const cpu_set_t *set)
{
	bool first = true;
	int ret = 0;

	for (int c = 0; c < CPU_SETSIZE && !ret; c++) {
		int last = c;

		if (!CPU_ISSET(c, set))
			continue;
		while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
			last++;
		if (last == c)
			ret = rt_buf_printf(b, "%s%d", first ? "" : ",", c);
		else
			ret = rt_buf_printf(b, "%s%d-%d", first ? "" : ",", c, last);
		first = false;
		c = last;
	}
	return ret;
}

static int jr_format_entry(struct rt_buf *b, const struct rt_journal_entry *e)
{
	int ret = 0;

	switch (e->kind) {
	case RT_JOURNAL_FILE:
		ret = rt_buf_puts(b, "file ");
		if (!ret)
			ret = jr_put_quoted(b, e->path, strlen(e->path));
		if (!ret)
			ret = rt_buf_puts(b, " ");
		if (!ret)
			ret = jr_put_quoted(b, e->old, e->old_len);
		break;
	case RT_JOURNAL_SCHED:
		ret = rt_buf_printf(b, "sched %d %llu %s %d%s", (int)e->tid, e->tid_start,
				    jr_policy_name(e->policy), e->prio,
				    e->reset_on_fork ? " reset-on-fork" : "");
		break;
	case RT_JOURNAL_AFFINITY:
		ret = rt_buf_printf(b, "affinity %d %llu ", (int)e->tid, e->tid_start);
		if (!ret)
			ret = jr_put_cpus(b, &e->cpus);
		break;
	case RT_JOURNAL_INSTANCE:
	case RT_JOURNAL_NETNS:
		ret = rt_buf_puts(b, e->kind == RT_JOURNAL_INSTANCE ? "instance " : "netns ");
		if (!ret)
			ret = jr_put_quoted(b, e->path, strlen(e->path));
		break;
	}
	return ret ? ret : rt_buf_puts(b, "\n");
}

int rt_journal_format(const struct rt_journal_doc *doc, struct rt_buf *out)
{
	const struct rt_journal_entry *e;
	int ret;

	ret = rt_buf_printf(out, "%s\nboot %s\npid %d %llu\n", RT_JOURNAL_MAGIC, doc->boot_id,
			    (int)doc->pid, doc->start);
	for (e = doc->oldest; e && !ret; e = e->newer)
		if (!e->dropped)
			ret = jr_format_entry(out, e);
	return ret;
}

/* ---- Parse ---------------------------------------------------------------- */

/* A cursor over one line (without its newline). */
struct jr_cursor {
	const char *p;
	const char *end;
};

static bool jr_at_end(const struct jr_cursor *c)
{
	return c->p == c->end;
}

static int jr_space(struct jr_cursor *c, char **cause, const char *what)
{
	if (jr_at_end(c) || *c->p != ' ')
		return rt_err(cause, -EINVAL, "expected %s", what);
	c->p++;
	return 0;
}

/* A run of non-space characters. */
static int jr_word(struct jr_cursor *c, const char **w, size_t *n, char **cause,
		   const char *what)
{
	const char *s = c->p;

	while (c->p < c->end && *c->p != ' ')
		c->p++;
	if (c->p == s)
		return rt_err(cause, -EINVAL, "expected %s", what);
	*w = s;
	*n = (size_t)(c->p - s);
	return 0;
}

static bool jr_word_is(const char *w, size_t n, const char *lit)
{
	return strlen(lit) == n && !memcmp(w, lit, n);
}

static int jr_number(struct jr_cursor *c, unsigned long long max, unsigned long long *v,
		     char **cause, const char *what)
{
	unsigned long long x = 0;
	const char *s = c->p;

	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		unsigned int d = (unsigned int)(*c->p - '0');

		if (x > (max - d) / 10)
			return rt_err(cause, -EINVAL, "%s out of range", what);
		x = x * 10 + d;
		c->p++;
	}
	if (c->p == s)
		return rt_err(cause, -EINVAL, "expected %s", what);
	if (c->p - s > 1 && *s == '0')
		return rt_err(cause, -EINVAL, "%s has a leading zero", what);
	*v = x;
	return 0;
}

static int jr_hexval(char h)
{
	if (h >= '0' && h <= '9')
		return h - '0';
	if (h >= 'a' && h <= 'f')
		return h - 'a' + 10;
	if (h >= 'A' && h <= 'F')
		return h - 'A' + 10;
	return -1;
}

/* A quoted string; the result is NUL-terminated and owned by the caller. */
static int jr_quoted(struct jr_cursor *c, size_t max, char **out, size_t *outlen,
		     char **cause, const char *what)
{
	struct rt_buf b = RT_BUF_INIT;
	int ret;

	if (jr_at_end(c) || *c->p != '"')
		return rt_err(cause, -EINVAL, "expected %s in double quotes", what);
	c->p++;
	for (;;) {
		unsigned char ch;

		if (jr_at_end(c)) {
			ret = rt_err(cause, -EINVAL, "unterminated %s", what);
			goto out_fail;
		}
		ch = (unsigned char)*c->p;
		if (ch == '"') {
			c->p++;
			break;
		}
		if (ch == '\\') {
			int hi, lo;
			char byte;

			if (c->end - c->p < 4 || c->p[1] != 'x' ||
			    (hi = jr_hexval(c->p[2])) < 0 || (lo = jr_hexval(c->p[3])) < 0) {
				ret = rt_err(cause, -EINVAL, "bad escape in %s (only \\xHH)", what);
				goto out_fail;
			}
			byte = (char)(hi << 4 | lo);
			ret = rt_buf_append(&b, &byte, 1);
			c->p += 4;
		} else if (ch < 0x20 || ch >= 0x7f) {
			ret = rt_err(cause, -EINVAL, "raw byte 0x%02x in %s (must be escaped)", ch,
				     what);
			goto out_fail;
		} else {
			ret = rt_buf_append(&b, c->p, 1);
			c->p++;
		}
		if (ret) {
			rt_err(cause, ret, "out of memory");
			goto out_fail;
		}
		if (b.len > max) {
			ret = rt_err(cause, -EINVAL, "%s longer than %zu bytes", what, max);
			goto out_fail;
		}
	}
	*outlen = b.len;
	*out = rt_buf_take(&b);
	if (!*out)
		return rt_err(cause, -ENOMEM, "out of memory");
	return 0;

out_fail:
	rt_buf_fini(&b);
	return ret;
}

/* An absolute path without NUL bytes. */
static int jr_path(struct jr_cursor *c, char **out, char **cause)
{
	size_t len;
	int ret = jr_quoted(c, PATH_MAX - 1, out, &len, cause, "path");

	if (ret)
		return ret;
	if (len == 0 || (*out)[0] != '/' || strlen(*out) != len) {
		free(*out);
		*out = NULL;
		return rt_err(cause, -EINVAL, "path must be absolute and free of NUL bytes");
	}
	return 0;
}

static int jr_cpus(struct jr_cursor *c, cpu_set_t *set, char **cause)
{
	CPU_ZERO(set);
	for (;;) {
		unsigned long long a, b;
		int ret = jr_number(c, CPU_SETSIZE - 1, &a, cause, "CPU number");

		if (ret)
			return ret;
		b = a;
		if (!jr_at_end(c) && *c->p == '-') {
			c->p++;
			ret = jr_number(c, CPU_SETSIZE - 1, &b, cause, "CPU number");
			if (ret)
				return ret;
			if (b < a)
				return rt_err(cause, -EINVAL, "CPU range %llu-%llu is reversed",
					      a, b);
		}
		for (unsigned long long k = a; k <= b; k++)
			CPU_SET((int)k, set);
		if (jr_at_end(c) || *c->p != ',')
			return 0;
		c->p++;
	}
}

static int jr_thread(struct jr_cursor *c, struct rt_journal_entry *e, char **cause)
{
	unsigned long long v;
	int ret;

	ret = jr_space(c, cause, "thread id");
	if (!ret)
		ret = jr_number(c, INT_MAX, &v, cause, "thread id");
	if (ret)
		return ret;
	if (v == 0)
		return rt_err(cause, -EINVAL, "thread id 0");
	e->tid = (pid_t)v;
	ret = jr_space(c, cause, "thread start time");
	if (!ret)
		ret = jr_number(c, ULLONG_MAX, &e->tid_start, cause, "thread start time");
	return ret;
}

static int jr_parse_sched(struct jr_cursor *c, struct rt_journal_entry *e, char **cause)
{
	unsigned long long prio;
	const char *w = NULL;
	size_t n = 0;
	int ret, p;

	ret = jr_thread(c, e, cause);
	if (!ret)
		ret = jr_space(c, cause, "policy");
	if (!ret)
		ret = jr_word(c, &w, &n, cause, "policy");
	if (ret)
		return ret;
	e->policy = -1;
	for (p = 0; p < JR_NPOLICIES; p++)
		if (jr_policy_names[p] && jr_word_is(w, n, jr_policy_names[p]))
			e->policy = p;
	if (e->policy < 0)
		return rt_err(cause, -EINVAL, "unknown policy '%.*s'", (int)(n > 20 ? 20 : n), w);
	ret = jr_space(c, cause, "priority");
	if (!ret)
		ret = jr_number(c, 99, &prio, cause, "priority");
	if (ret)
		return ret;
	e->prio = (int)prio;
	if (jr_policy_is_rt(e->policy) ? prio < 1 : prio != 0)
		return rt_err(cause, -EINVAL, "priority %llu does not fit policy %s", prio,
			      jr_policy_names[e->policy]);
	if (!jr_at_end(c)) {
		ret = jr_space(c, cause, "end of line");
		if (!ret)
			ret = jr_word(c, &w, &n, cause, "flag");
		if (ret)
			return ret;
		if (!jr_word_is(w, n, "reset-on-fork"))
			return rt_err(cause, -EINVAL, "unknown flag");
		e->reset_on_fork = true;
	}
	return 0;
}

static int jr_parse_entry(struct jr_cursor *c, struct rt_journal_entry *e, char **cause)
{
	const char *w = NULL;
	size_t n = 0;
	int ret;

	ret = jr_word(c, &w, &n, cause, "entry kind");
	if (ret)
		return ret;
	if (jr_word_is(w, n, "file")) {
		e->kind = RT_JOURNAL_FILE;
		ret = jr_space(c, cause, "path");
		if (!ret)
			ret = jr_path(c, &e->path, cause);
		if (!ret)
			ret = jr_space(c, cause, "old value");
		if (!ret)
			ret = jr_quoted(c, RT_JOURNAL_MAX_VALUE, &e->old, &e->old_len, cause,
					"old value");
	} else if (jr_word_is(w, n, "sched")) {
		e->kind = RT_JOURNAL_SCHED;
		ret = jr_parse_sched(c, e, cause);
	} else if (jr_word_is(w, n, "affinity")) {
		e->kind = RT_JOURNAL_AFFINITY;
		ret = jr_thread(c, e, cause);
		if (!ret)
			ret = jr_space(c, cause, "CPU list");
		if (!ret)
			ret = jr_cpus(c, &e->cpus, cause);
	} else if (jr_word_is(w, n, "instance") || jr_word_is(w, n, "netns")) {
		e->kind = *w == 'i' ? RT_JOURNAL_INSTANCE : RT_JOURNAL_NETNS;
		ret = jr_space(c, cause, "path");
		if (!ret)
			ret = jr_path(c, &e->path, cause);
	} else {
		return rt_err(cause, -EINVAL, "unknown entry kind '%.*s'", (int)(n > 20 ? 20 : n),
			      w);
	}
	if (!ret && !jr_at_end(c))
		ret = rt_err(cause, -EINVAL, "unexpected text at end of line");
	return ret;
}

static int jr_parse_header(struct jr_cursor *c, size_t lineno, struct rt_journal_doc *doc,
			   char **cause)
{
	unsigned long long v;
	const char *w = NULL;
	size_t n = 0;
	int ret;

	if (lineno == 1) {
		size_t len = (size_t)(c->end - c->p);

		if (len != strlen(RT_JOURNAL_MAGIC) || memcmp(c->p, RT_JOURNAL_MAGIC, len))
			return rt_err(cause, -EINVAL, "not an rtlab journal (expected \"%s\")",
				      RT_JOURNAL_MAGIC);
		return 0;
	}
	if (lineno == 2) {
		ret = jr_word(c, &w, &n, cause, "\"boot\"");
		if (!ret && !jr_word_is(w, n, "boot"))
			ret = rt_err(cause, -EINVAL, "expected \"boot\"");
		if (!ret)
			ret = jr_space(c, cause, "boot id");
		if (!ret)
			ret = jr_word(c, &w, &n, cause, "boot id");
		if (ret)
			return ret;
		if (n > RT_JOURNAL_BOOT_ID_MAX)
			return rt_err(cause, -EINVAL, "boot id too long");
		for (size_t i = 0; i < n; i++)
			if (!isxdigit((unsigned char)w[i]) && w[i] != '-')
				return rt_err(cause, -EINVAL, "bad character in boot id");
		memcpy(doc->boot_id, w, n);
		doc->boot_id[n] = '\0';
	} else {
		ret = jr_word(c, &w, &n, cause, "\"pid\"");
		if (!ret && !jr_word_is(w, n, "pid"))
			ret = rt_err(cause, -EINVAL, "expected \"pid\"");
		if (!ret)
			ret = jr_space(c, cause, "pid");
		if (!ret)
			ret = jr_number(c, INT_MAX, &v, cause, "pid");
		if (!ret && v == 0)
			ret = rt_err(cause, -EINVAL, "pid 0");
		if (ret)
			return ret;
		doc->pid = (pid_t)v;
		ret = jr_space(c, cause, "start time");
		if (!ret)
			ret = jr_number(c, ULLONG_MAX, &doc->start, cause, "start time");
		if (ret)
			return ret;
	}
	if (!jr_at_end(c))
		return rt_err(cause, -EINVAL, "unexpected text at end of line");
	return 0;
}

int rt_journal_parse(const char *data, size_t len, struct rt_journal_doc *doc, size_t *line,
		     char **cause)
{
	const char *p = data, *end = data + len;
	size_t lineno = 0;
	int ret = 0;

	memset(doc, 0, sizeof(*doc));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct jr_cursor c;

		lineno++;
		if (!nl) {
			ret = rt_err(cause, -EINVAL,
				     "last line is not terminated (truncated file?)");
			goto out_fail;
		}
		c.p = p;
		c.end = nl;
		if (lineno <= 3) {
			ret = jr_parse_header(&c, lineno, doc, cause);
		} else {
			struct rt_journal_entry *e = calloc(1, sizeof(*e));

			if (!e) {
				ret = rt_err(cause, -ENOMEM, "out of memory");
				goto out_fail;
			}
			ret = jr_parse_entry(&c, e, cause);
			if (ret) {
				jr_entry_free(e);
				goto out_fail;
			}
			jr_link(doc, e);
			jr_publish(doc, e);
		}
		if (ret)
			goto out_fail;
		p = nl + 1;
	}
	if (lineno < 3) {
		lineno++;
		ret = rt_err(cause, -EINVAL, "%s missing", lineno == 1 ? "magic line" :
			     lineno == 2 ? "boot line" : "pid line");
		goto out_fail;
	}
	return 0;

out_fail:
	rt_journal_doc_fini(doc);
	memset(doc, 0, sizeof(*doc));
	if (line)
		*line = lineno;
	return ret;
}

/* ---- Journal file --------------------------------------------------------- */

static int jr_read_boot_id(char *out, char **cause)
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

/* Rewrite the journal file from the in-memory list. Called with j->lock held. */
static int jr_sync(struct rt_journal *j, char **cause)
{
	struct rt_buf b = RT_BUF_INIT;
	int ret = rt_journal_format(&j->doc, &b);

	if (ret) {
		rt_err(cause, ret, "%s: out of memory", j->path);
		goto out_free;
	}
	ret = rt_file_write_atomic(j->path, b.data ? b.data : "", b.len, 0600, cause);
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

	jr_link(&j->doc, e);
	ret = jr_sync(j, cause);
	if (ret) {
		jr_unlink_unpublished(&j->doc, e);
		jr_entry_free(e);
		return ret;
	}
	jr_publish(&j->doc, e);
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

static void jr_describe(const struct rt_journal_entry *e, char *buf, size_t size)
{
	switch (e->kind) {
	case RT_JOURNAL_FILE:
		snprintf(buf, size, "the value of %s", e->path);
		break;
	case RT_JOURNAL_SCHED:
		snprintf(buf, size, "the scheduling policy of thread %d", (int)e->tid);
		break;
	case RT_JOURNAL_AFFINITY:
		snprintf(buf, size, "the CPU affinity of thread %d", (int)e->tid);
		break;
	case RT_JOURNAL_INSTANCE:
		snprintf(buf, size, "tracefs instance %s", e->path);
		break;
	case RT_JOURNAL_NETNS:
		snprintf(buf, size, "network namespace %s", e->path);
		break;
	}
}

/*
 * Replay @doc newest first, logging what went wrong. Returns the first
 * error; @undone (may be NULL) counts the entries actually restored.
 */
static int jr_replay_logged(struct rt_journal_doc *doc, const char *name, size_t *undone)
{
	struct rt_journal_entry *e;
	char what[PATH_MAX + 64];
	size_t ok = 0;
	int ret = 0;

	for (e = doc->newest; e; e = e->older) {
		if (e->dropped)
			continue;
		rt_journal_entry_replay(e);
		jr_describe(e, what, sizeof(what));
		switch (e->outcome) {
		case RT_JOURNAL_FAILED:
			rt_log(RT_LOG_WARN, "journal %s: cannot restore %s: %s", name, what,
			       strerror(e->err));
			if (!ret)
				ret = -e->err;
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

/* ---- Stale journals ------------------------------------------------------- */

enum jr_state {
	JR_LIVE,
	JR_DEAD,
	JR_OTHER_BOOT,
	JR_CORRUPT,
};

/* What one journal file found in the directory is. */
struct jr_found {
	enum jr_state state;
	struct rt_journal_doc doc;	/* owned; parsed unless corrupt */
	size_t line;			/* corrupt: the line at fault (0: the file itself) */
	char *why;			/* owned; corrupt: the reason */
};

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
	return strcmp(p, JR_SUFFIX) ? 0 : (pid_t)v;
}

static void jr_found_fini(struct jr_found *f)
{
	rt_journal_doc_fini(&f->doc);
	free(f->why);
	f->why = NULL;
}

static int jr_examine(const char *path, pid_t name_pid, const char *boot, struct jr_found *f)
{
	char *data = NULL;
	size_t len = 0;
	int ret;

	memset(f, 0, sizeof(*f));
	ret = rt_file_read(path, RT_JOURNAL_MAX_FILE, &data, &len);
	if (ret == -ENOENT)
		return ret;
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		f->state = JR_CORRUPT;
		if (asprintf(&f->why, "cannot read it: %s", strerror(-ret)) < 0)
			f->why = NULL;
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

/*
 * Act on one journal that is not live: replay it, discard it (other boot)
 * or move it aside (corrupt). Returns 1 if it was replayed, 0 if not, or a
 * negative errno for a failure to act on the file itself.
 */
static int jr_settle(const char *path, struct jr_found *f)
{
	char *aside = NULL;
	size_t undone = 0;
	int ret = 0;

	switch (f->state) {
	case JR_LIVE:
		break;
	case JR_CORRUPT:
		if (asprintf(&aside, "%s.corrupt", path) < 0)
			return -ENOMEM;
		if (rename(path, aside) < 0) {
			ret = -errno;
			rt_log(RT_LOG_WARN, "journal %s: line %zu: %s; cannot move it aside: %s",
			       path, f->line, f->why ? f->why : "unreadable", strerror(errno));
		} else {
			rt_log(RT_LOG_WARN, "journal %s: line %zu: %s; not replayed, moved aside "
			       "as %s", path, f->line, f->why ? f->why : "unreadable", aside);
		}
		free(aside);
		break;
	case JR_OTHER_BOOT:
		if (unlink(path) < 0 && errno != ENOENT)
			ret = -errno;
		rt_log(RT_LOG_INFO, "journal %s was written before the last reboot (pid %d), which "
		       "already undid its %zu change(s); %s", path, (int)f->doc.pid, f->doc.n,
		       ret ? "cannot remove it" : "removed without replay");
		break;
	case JR_DEAD:
		jr_replay_logged(&f->doc, path, &undone);
		if (unlink(path) < 0 && errno != ENOENT)
			ret = -errno;
		else
			rt_fsync_parent(path);
		rt_log(RT_LOG_INFO, "journal %s: restored %zu of %zu change(s) left by process %d, "
		       "which did not exit cleanly", path, undone, f->doc.n, (int)f->doc.pid);
		ret = ret ? ret : 1;
		break;
	}
	return ret;
}

static int jr_journal_filter(const struct dirent *d)
{
	return jr_name_pid(d->d_name) != 0;
}

/* "<pid>.journal.tmp.<writer>.<n>" left by a write that was killed */
static void jr_remove_dead_temps(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		const char *t = strstr(de->d_name, JR_SUFFIX ".tmp.");
		char *path = NULL;
		long writer;

		if (!t || t == de->d_name)
			continue;
		writer = strtol(t + strlen(JR_SUFFIX ".tmp."), NULL, 10);
		if (writer <= 0 || kill((pid_t)writer, 0) == 0 || errno != ESRCH)
			continue;
		if (asprintf(&path, "%s/%s", dir, de->d_name) < 0)
			break;
		if (unlink(path) == 0)
			rt_log(RT_LOG_DEBUG, "journal: removed leftover temporary file %s", path);
		free(path);
	}
	closedir(d);
}

/* ---- Export ---------------------------------------------------------------- */

char *rt_journal_default_dir(void)
{
	const char *env = getenv("RTLAB_JOURNAL_DIR");
	char *state, *dir = NULL;

	if (env && *env) {
		dir = strdup(env);
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

static char *jr_dir_or_default(const char *dir, char **cause)
{
	char *d = dir ? strdup(dir) : rt_journal_default_dir();

	if (!d)
		rt_err(cause, -errno, "cannot find the journal directory: %s", strerror(errno));
	return d;
}

/*
 * The journal files in @dir (NULL: the default) and this boot's id, shared
 * by scan and recover. Returns 0 with *@names of *@count entries, 1 when the
 * directory does not exist (nothing to do), or a negative errno. *@d is set
 * whenever it could be allocated, for the caller to free.
 */
static int jr_list(const char *dir, char *boot, char **d, struct dirent ***names, int *count,
		   char **cause)
{
	int ret;

	*names = NULL;
	*count = 0;
	*d = jr_dir_or_default(dir, cause);
	if (!*d)
		return -errno;
	ret = jr_read_boot_id(boot, cause);
	if (ret)
		return ret;
	*count = scandir(*d, names, jr_journal_filter, alphasort);
	if (*count < 0) {
		*count = 0;
		*names = NULL;
		if (errno == ENOENT)
			return 1;
		return rt_err(cause, -errno, "cannot list %s: %s", *d, strerror(errno));
	}
	return 0;
}

int rt_journal_scan(const char *dir, struct rt_journal_stale **out, size_t *n, char **cause)
{
	struct rt_journal_stale *v = NULL;
	struct dirent **names = NULL;
	char boot[RT_JOURNAL_BOOT_ID_MAX + 1];
	char *d = NULL;
	int ret, count = 0;
	size_t used = 0;

	*out = NULL;
	*n = 0;
	ret = jr_list(dir, boot, &d, &names, &count, cause);
	if (ret) {
		if (ret > 0)
			ret = 0;	/* no journal directory: nothing to do */
		goto out_free;
	}
	v = calloc((size_t)count + 1, sizeof(*v));
	if (!v) {
		ret = rt_err(cause, -ENOMEM, "out of memory");
		goto out_free;
	}
	for (int i = 0; i < count; i++) {
		struct rt_journal_stale *s = &v[used];
		struct jr_found f;
		char *path = NULL;

		if (asprintf(&path, "%s/%s", d, names[i]->d_name) < 0) {
			ret = rt_err(cause, -ENOMEM, "out of memory");
			goto out_free;
		}
		ret = jr_examine(path, jr_name_pid(names[i]->d_name), boot, &f);
		if (ret == -ENOENT) {	/* removed meanwhile */
			free(path);
			ret = 0;
			continue;
		}
		if (ret) {
			free(path);
			rt_err(cause, ret, "%s/%s: out of memory", d, names[i]->d_name);
			goto out_free;
		}
		if (f.state == JR_LIVE) {
			free(path);
		} else {
			s->path = path;
			s->pid = jr_name_pid(names[i]->d_name);
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
	for (int i = 0; i < count; i++)
		free(names[i]);
	free(names);
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

int rt_journal_recover(const char *dir, unsigned int *restored, char **cause)
{
	char boot[RT_JOURNAL_BOOT_ID_MAX + 1];
	struct dirent **names = NULL;
	char *d = NULL, *lockpath = NULL;
	int ret, count = 0, lockfd = -1;
	unsigned int done = 0;

	if (restored)
		*restored = 0;
	ret = jr_list(dir, boot, &d, &names, &count, cause);
	if (ret) {
		if (ret > 0)
			ret = 0;	/* no journal directory: nothing to do */
		goto out_free;
	}
	/* Two rtlab processes starting together must not replay the same journal twice. */
	if (asprintf(&lockpath, "%s/.recover.lock", d) < 0) {
		lockpath = NULL;
		ret = rt_err(cause, -ENOMEM, "out of memory");
		goto out_free;
	}
	lockfd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lockfd < 0 || flock(lockfd, LOCK_EX) < 0) {
		ret = rt_err(cause, -errno, "%s: cannot lock: %s", lockpath, strerror(errno));
		goto out_free;
	}
	for (int i = 0; i < count; i++) {
		struct jr_found f;
		char *path = NULL;
		int r;

		if (asprintf(&path, "%s/%s", d, names[i]->d_name) < 0) {
			ret = rt_err(cause, -ENOMEM, "out of memory");
			goto out_free;
		}
		r = jr_examine(path, jr_name_pid(names[i]->d_name), boot, &f);
		if (r == 0) {
			r = jr_settle(path, &f);
			if (r == 1)
				done++;
			else if (r < 0 && !ret)
				ret = rt_err(cause, r, "%s: %s", path, strerror(-r));
			jr_found_fini(&f);
		} else if (r != -ENOENT && !ret) {
			ret = rt_err(cause, r, "%s: %s", path, strerror(-r));
		}
		free(path);
	}
	jr_remove_dead_temps(d);

out_free:
	if (lockfd >= 0)
		close(lockfd);	/* releases the lock */
	for (int i = 0; i < count; i++)
		free(names[i]);
	free(names);
	free(lockpath);
	free(d);
	if (restored)
		*restored = done;
	return ret;
}

size_t rt_journal_count(const struct rt_journal *j)
{
	return j ? j->doc.n : 0;
}

static void jr_free(struct rt_journal *j)
{
	rt_journal_doc_fini(&j->doc);
	pthread_mutex_destroy(&j->lock);
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
		ret = jr_replay_logged(&j->doc, j->path, NULL);
		if (j->on_disk) {
			if (unlink(j->path) < 0 && errno != ENOENT) {
				rt_log(RT_LOG_WARN, "journal: cannot remove %s: %s", j->path,
				       strerror(errno));
				if (!ret)
					ret = -errno;
			} else {
				rt_fsync_parent(j->path);
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

/* A journal with our own file name exists before we wrote one: a dead namesake's. */
static void jr_recover_namesake(const char *path, const char *boot)
{
	struct jr_found f;

	if (access(path, F_OK) < 0)
		return;
	if (jr_examine(path, getpid(), boot, &f))
		return;
	/* Our pid, yet not our journal: whatever the start time says, it is not live. */
	if (f.state == JR_LIVE)
		f.state = JR_DEAD;
	jr_settle(path, &f);
	jr_found_fini(&f);
}

struct rt_journal *rt_journal_open(const char *dir, char **cause)
{
	struct rt_journal *j = NULL;
	char *d = NULL;
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
	j->owner = getpid();
	j->refs = 1;
	j->doc.pid = j->owner;
	d = jr_dir_or_default(dir, cause);
	if (!d) {
		ret = -errno;
		goto out_fail;
	}
	ret = rt_mkdir_p(d, 0700);
	if (ret) {
		rt_err(cause, ret, "cannot create journal directory %s: %s", d, strerror(-ret));
		goto out_fail;
	}
	if (asprintf(&j->path, "%s/%d%s", d, (int)j->owner, JR_SUFFIX) < 0) {
		j->path = NULL;
		ret = rt_err(cause, -ENOMEM, "out of memory");
		goto out_fail;
	}
	ret = jr_read_boot_id(j->doc.boot_id, cause);
	if (ret)
		goto out_fail;
	ret = rt_journal_proc_start(j->owner, &j->doc.start);
	if (ret) {
		rt_err(cause, ret, "cannot read the start time of process %d: %s", (int)j->owner,
		       strerror(-ret));
		goto out_fail;
	}
	jr_recover_namesake(j->path, j->doc.boot_id);
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
	free(d);
	goto out_unlock;

out_fail:
	if (j)
		jr_free(j);
	j = NULL;
	free(d);
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

int rt_journal_write_file(struct rt_journal *j, const char *path, const char *value,
			  size_t len, char **cause)
{
	struct rt_journal_entry *e = NULL;
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
	ret = rt_file_read(abs, RT_JOURNAL_MAX_VALUE, &e->old, &e->old_len);
	if (ret) {
		rt_err(cause, ret, "cannot read the current value of %s: %s", abs,
		       strerror(-ret));
		goto out_free;
	}
	e->path = abs;
	abs = NULL;

	pthread_mutex_lock(&j->lock);
	ret = jr_record(j, e, cause);
	e = NULL;	/* owned by the journal, or freed by jr_record */
	if (!ret) {
		ret = jr_write_value(j->doc.newest->path, value, len);
		if (ret)
			jr_write_error(j->doc.newest->path, ret, cause);
	}
	pthread_mutex_unlock(&j->lock);

out_free:
	jr_entry_free(e);
	free(abs);
	return ret;
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
	if (tid < 0 || !jr_policy_name(policy))
		return rt_err(cause, -EINVAL, "bad thread id %d or policy %d", (int)tid, policy);
	if (jr_policy_is_rt(policy) ? prio < 1 || prio > 99 : prio != 0)
		return rt_err(cause, -EINVAL, "priority %d does not fit policy %s", prio,
			      jr_policy_name(policy));
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
	if (!jr_policy_name(e->policy)) {
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
				     jr_policy_name(policy), prio, strerror(errno));
	}
	pthread_mutex_unlock(&j->lock);

out_free:
	jr_entry_free(e);
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
	jr_entry_free(e);
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
	if (access(e->path, F_OK) == 0) {
		ret = rt_err(cause, -EEXIST, "%s %s already exists", what, e->path);
		goto out_free;
	}
	*out = e;
	return 0;

out_free:
	jr_entry_free(e);
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
