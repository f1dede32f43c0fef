/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rtlab-fcse-work: the FCSE lab's workloads (sim/sim_fcse.c: mixed, small, thrash, many) as
 * real processes on the ARM image's FCSE kernel, and a fixed schedule over them, so that
 * what the kernel counts in /proc/fcse can be set beside what the model counts for the same
 * processes and the same switches (`rtlab lab run fcse --live`, tests/vm/fcse_live.t).
 *
 * Built static with the cross compiler by vm/build.sh into the fcse image as
 * /usr/bin/rtlab-fcse-work; it builds for the host too, where --proc names a fixture in
 * /proc/fcse's format (tests/cli/fcse_live.t).
 *
 *   rtlab-fcse-work [--proc PATH] [--switches N] [--processes N] WORKLOAD
 *   rtlab-fcse-work [--proc PATH] [--max N] limit
 *
 * WORKLOAD forks the workload's processes, in the model's fork order and shapes:
 *   rt     1, 6 KB of data it walks      small  2 KB of data (small: 4, mixed: 3, many: 120)
 *   shm    1 (mixed), 2 KB of MAP_SHARED|MAP_ANONYMOUS memory it writes: dirty and shared
 *   big    1 (mixed), 8 KB mapped with MAP_FIXED at 0x40000000, above 32 MB: guaranteed
 *          mode refuses it with ENOMEM, and the process then ends (the model runs it no more)
 *   hog    4 (thrash), 48 KB of data read at random offsets
 * (--processes N sets the count of the kind after rt, as the lab's --processes does). A fork
 * that fails is a refusal too. The processes that started then pass a token through pipes in
 * fork order, a ring, on one CPU: every process and the parent run SCHED_FIFO at one priority,
 * so a woken process never preempts the one that woke it, and each pass of the token is
 * exactly one switch between two address spaces (the writer blocks in its next read). Each
 * walks its data once per pass. One round (a pass per process) warms up; then the token's
 * holder reads /proc/fcse, the token makes N more passes, and the holder then reads it again.
 *
 * `limit` forks children that wait, until fork() fails or --max of them run, and reads
 * /proc/fcse at that point; then it ends them all.
 *
 * Output: one "key=value" line each, in this order (the host parses them by key:
 * labs/lab_fcse_live.c):
 *   version=1                     this format
 *   command=ring|limit
 *   proc_path=PATH                the file read as /proc/fcse
 *   fcse_mode=flush|...|none      its mode line ("none" without the file)
 *   fcse_missing=K,K              the contract's keys (fcse-contract: mode ... relocations)
 *                                 it lacks, comma-separated; empty when it has them all
 *   sched=fifo|other              the ring's policy ("other": SCHED_FIFO was refused, the
 *                                 number of switches is then not exact)
 *   base.KEY=V                    every number of /proc/fcse, read by this program before
 *                                 it forked anything
 * ring:
 *   workload=NAME  procs=N        the workload and its processes
 *   proc.I.kind=KIND              process I (0..N-1, fork order): its kind,
 *   proc.I.stage=ok|fork|mmap     where it was refused ("ok": it ran the ring),
 *   proc.I.errno=NAME             the refusal's errno (EAGAIN, ENOMEM...), "0" when none,
 *   proc.I.fcse_pid=P             pid_mm of /proc/fcse as the process read it (-1: unknown)
 *   ring=K  warmup=K  switches=N  the processes in the ring, the warm-up's passes, the
 *                                 passes measured
 *   before.KEY=V  after.KEY=V     /proc/fcse's numbers around the measured passes,
 *   delta.KEY=V                   and their differences
 * limit:
 *   limit.max=M  limit.forked=N   the bound and the children that ran
 *   limit.errno=NAME|0            fork()'s errno when it failed, "0" when --max came first
 *   at.KEY=V                      /proc/fcse's numbers right after the failing fork
 * both, last:
 *   status=ok|error  [error=TEXT] 
 * Exits 0 with status=ok, else 1 (a usage error: 2, message on stderr).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* /proc/fcse's keys after mode, in the contract's order. */
static const char *const fw_keys[] = {
	"pid_register", "pid_mm", "pids_total", "pids_in_use", "switches", "flushes",
	"flushes_avoided", "forks_refused", "mappings_refused", "relocations",
};
#define FW_NKEYS (sizeof(fw_keys) / sizeof(fw_keys[0]))
#define FW_BIG_ADDR 0x40000000UL
#define FW_MAX_PROCS 512
#define FW_TIMEOUT_S 120

struct fw_snap {
	long long v[FW_NKEYS];
	unsigned int have;		/* bit per key found */
	char mode[32];			/* "none" without the file */
};

struct fw_kind {
	const char *name;
	unsigned int data;		/* bytes */
	int flags;
};
#define FW_SHARED 1
#define FW_BIG 2
#define FW_RANDOM 4

static const struct fw_kind fw_rt = { "rt", 6 << 10, 0 };
static const struct fw_kind fw_small = { "small", 2 << 10, 0 };
static const struct fw_kind fw_shm = { "shm", 2 << 10, FW_SHARED };
static const struct fw_kind fw_big = { "big", 8 << 10, FW_BIG };
static const struct fw_kind fw_hog = { "hog", 48 << 10, FW_RANDOM };

/* The model's workloads (sim/sim_fcse.c's wl_*): kinds and counts in fork order. */
static const struct fw_workload {
	const char *name;
	const struct fw_kind *kind[4];
	unsigned int count[4];
} fw_workloads[] = {
	{ "mixed", { &fw_rt, &fw_small, &fw_shm, &fw_big }, { 1, 3, 1, 1 } },
	{ "small", { &fw_rt, &fw_small }, { 1, 4 } },
	{ "thrash", { &fw_rt, &fw_hog }, { 1, 4 } },
	{ "many", { &fw_rt, &fw_small }, { 1, 120 } },
};

static const char *fw_proc = "/proc/fcse";

/* What a child tells the parent, one write each (atomic: smaller than PIPE_BUF). */
enum { FW_MSG_READY, FW_MSG_REFUSED, FW_MSG_BEFORE, FW_MSG_AFTER, FW_MSG_DONE };
struct fw_msg {
	int type, idx, err;
	long long fcse_pid;
	struct fw_snap snap;
};

/* What the parent and the ring pass through a member's control pipe. */
enum { FW_CTL_NEXT, FW_CTL_TOKEN, FW_CTL_STOP };
struct fw_ctl {
	uint32_t type, arg;		/* NEXT: the next member; TOKEN: the pass number */
	uint32_t warm, n;		/* NEXT: the passes of the warm-up, and measured */
};

static void fw_read_snap(struct fw_snap *s)
{
	char line[128], key[64];
	long long v;
	FILE *f = fopen(fw_proc, "r");

	memset(s, 0, sizeof(*s));
	snprintf(s->mode, sizeof(s->mode), "none");
	while (f && fgets(line, sizeof(line), f)) {
		char val[32];

		if (sscanf(line, "%63s %31s", key, val) != 2)
			continue;
		if (!strcmp(key, "mode")) {
			snprintf(s->mode, sizeof(s->mode), "%s", val);
			continue;
		}
		if (sscanf(val, "%lld", &v) != 1)
			continue;
		for (unsigned int k = 0; k < FW_NKEYS; k++) {
			if (!strcmp(key, fw_keys[k])) {
				s->v[k] = v;
				s->have |= 1u << k;
			}
		}
	}
	if (f)
		fclose(f);
}

static long long fw_pid_mm(void)
{
	struct fw_snap s;

	fw_read_snap(&s);
	return s.have & (1u << 1) ? s.v[1] : -1;
}

static void fw_print_snap(const char *prefix, const struct fw_snap *s)
{
	for (unsigned int k = 0; k < FW_NKEYS; k++)
		if (s->have & (1u << k))
			printf("%s.%s=%lld\n", prefix, fw_keys[k], s->v[k]);
}

static const char *fw_errname(int err)
{
	switch (err) {
	case 0: return "0";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EPERM: return "EPERM";
	case EINVAL: return "EINVAL";
	case EEXIST: return "EEXIST";
	default: return "EOTHER";
	}
}

/* The header every command prints: the file, its mode, what it lacks, base.*. */
static void fw_header(const char *command, const struct fw_snap *base, const char *sched)
{
	const char *sep = "";

	printf("version=1\ncommand=%s\nproc_path=%s\nfcse_mode=%s\nfcse_missing=", command,
	       fw_proc, base->mode);
	if (!strcmp(base->mode, "none")) {
		printf("mode");
		sep = ",";
	}
	for (unsigned int k = 0; k < FW_NKEYS; k++) {
		if (base->have & (1u << k))
			continue;
		printf("%s%s", sep, fw_keys[k]);
		sep = ",";
	}
	printf("\nsched=%s\n", sched);
	fw_print_snap("base", base);
}

static int fw_status(int ok, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		printf("status=ok\n");
	} else {
		printf("status=error\nerror=");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
	}
	return fflush(stdout) == 0 && ok ? 0 : 1;
}

/* All of @len bytes written (@out) or read, through EINTR; 0, or -1 on an error or EOF. */
static int fw_io_all(int fd, void *buf, size_t len, int out)
{
	char *p = buf;

	while (len) {
		ssize_t n = out ? write(fd, p, len) : read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int fw_write_all(int fd, const void *buf, size_t len)
{
	return fw_io_all(fd, (void *)buf, len, 1);
}

static int fw_read_all(int fd, void *buf, size_t len)
{
	return fw_io_all(fd, buf, len, 0);
}

/* ---- The ring ---------------------------------------------------------------------- */

struct fw_member {
	const struct fw_kind *kind;
	volatile unsigned char *data;
	unsigned int seed;
};

/* One walk over the member's data: a write every third line, as the model's 30 %. */
static void fw_walk(struct fw_member *m)
{
	unsigned int n = m->kind->data / 32;

	for (unsigned int i = 0; i < n; i++) {
		unsigned int off = i * 32;

		if (m->kind->flags & FW_RANDOM) {
			m->seed = m->seed * 1103515245u + 12345u;
			off = (m->seed >> 8) % m->kind->data;
		}
		if (i % 3 == 0 || (m->kind->flags & FW_SHARED))
			m->data[off]++;
		else
			(void)m->data[off];
	}
}

/* A member's setup: its data, where its kind puts it. Returns 0 or an errno. */
static int fw_member_setup(struct fw_member *m, unsigned int idx)
{
	void *p;

	m->seed = idx + 1;
	if (m->kind->flags & FW_BIG)
		p = mmap((void *)FW_BIG_ADDR, m->kind->data, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	else if (m->kind->flags & FW_SHARED)
		p = mmap(NULL, m->kind->data, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	else
		p = mmap(NULL, m->kind->data, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return errno;
	m->data = (volatile unsigned char *)p;
	fw_walk(m);
	return 0;
}

/*
 * A member of the ring: @ctl[idx] is its control pipe, every other's write end is open.
 * The parent's NEXT names the next member and the passes of the warm-up and measured,
 * which the token counts.
 */
static void fw_member(const struct fw_kind *kind, unsigned int idx, int (*ctl)[2], int res)
{
	uint32_t warm = 0, n = 0;
	struct fw_member m = { .kind = kind };
	struct fw_msg msg = { .idx = (int)idx };
	struct fw_snap before, after;
	struct fw_ctl c;
	int next = -1, err, have_before = 0, have_after = 0;

	err = fw_member_setup(&m, idx);
	msg.fcse_pid = fw_pid_mm();
	msg.type = err ? FW_MSG_REFUSED : FW_MSG_READY;
	msg.err = err;
	if (fw_write_all(res, &msg, sizeof(msg)) || err)
		_exit(err ? 0 : 1);
	for (;;) {
		if (fw_read_all(ctl[idx][0], &c, sizeof(c)))
			_exit(1);
		if (c.type == FW_CTL_NEXT) {
			next = (int)c.arg;
			warm = c.warm;
			n = c.n;
			continue;
		}
		if (c.type == FW_CTL_STOP || next < 0)
			break;
		/* A token: pass c.arg arrived here. */
		if (c.arg == warm) {
			fw_read_snap(&before);
			have_before = 1;
		}
		if (c.arg == warm + n) {
			fw_read_snap(&after);
			have_after = 1;
			c.type = FW_CTL_STOP;
		} else {
			fw_walk(&m);
			c.arg++;
		}
		if (fw_write_all(ctl[next][1], &c, sizeof(c)))
			_exit(1);
		if (c.type == FW_CTL_STOP)
			break;
	}
	/* Pass the stop on (the one who started it gets it back and ends here). */
	if (c.type == FW_CTL_STOP && !have_after)
		fw_write_all(ctl[next][1], &c, sizeof(c));
	if (have_before) {
		msg.type = FW_MSG_BEFORE;
		msg.snap = before;
		fw_write_all(res, &msg, sizeof(msg));
	}
	if (have_after) {
		msg.type = FW_MSG_AFTER;
		msg.snap = after;
		fw_write_all(res, &msg, sizeof(msg));
	}
	msg.type = FW_MSG_DONE;
	fw_write_all(res, &msg, sizeof(msg));
	_exit(0);
}

static volatile sig_atomic_t fw_alarm;

static void fw_on_alarm(int sig)
{
	(void)sig;
	fw_alarm = 1;
}

/* Run SCHED_FIFO at one priority (inherited by the children): "fifo" or "other". */
static const char *fw_fifo(void)
{
	struct sched_param sp = { .sched_priority = 10 };
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_setaffinity(0, sizeof(one), &one);
	return sched_setscheduler(0, SCHED_FIFO, &sp) == 0 ? "fifo" : "other";
}

struct fw_proc {
	const struct fw_kind *kind;
	pid_t pid;
	const char *stage;
	int err;
	long long fcse_pid;
};

static int fw_ring(const struct fw_workload *w, unsigned int processes, uint32_t n)
{
	static struct fw_proc procs[FW_MAX_PROCS];
	static int ctl[FW_MAX_PROCS][2];
	struct sigaction sa = { .sa_handler = fw_on_alarm };
	struct fw_snap base, before = { 0 }, after = { 0 };
	struct fw_msg msg;
	unsigned int np = 0, started = 0, reported = 0, ring = 0, done = 0;
	int res[2], first = -1, last = -1, got_before = 0, got_after = 0, ok = 0;
	const char *sched, *why = "";

	fw_read_snap(&base);
	for (unsigned int k = 0; k < 4 && w->kind[k]; k++) {
		unsigned int c = k == 1 && processes ? processes : w->count[k];

		for (unsigned int j = 0; j < c && np < FW_MAX_PROCS; j++)
			procs[np++] = (struct fw_proc){ .kind = w->kind[k], .stage = "ok",
							.fcse_pid = -1 };
	}
	if (pipe(res) < 0)
		return fw_status(0, "pipe: %s", strerror(errno));
	for (unsigned int i = 0; i < np; i++)
		if (pipe(ctl[i]) < 0)
			return fw_status(0, "pipe: %s", strerror(errno));
	sched = fw_fifo();
	fflush(stdout);
	for (unsigned int i = 0; i < np; i++) {
		procs[i].pid = fork();
		if (procs[i].pid == 0) {
			close(res[0]);
			fw_member(procs[i].kind, i, ctl, res[1]);
		}
		if (procs[i].pid < 0) {
			procs[i].stage = "fork";
			procs[i].err = errno;
			continue;
		}
		started++;
	}
	close(res[1]);
	sigaction(SIGALRM, &sa, NULL);
	alarm(FW_TIMEOUT_S);
	/* Every child says whether it is ready or refused. */
	while (reported < started && !fw_read_all(res[0], &msg, sizeof(msg))) {
		struct fw_proc *p = &procs[msg.idx];

		reported++;
		p->fcse_pid = msg.fcse_pid;
		if (msg.type == FW_MSG_REFUSED) {
			p->stage = "mmap";
			p->err = msg.err;
		}
	}
	if (reported < started) {
		why = fw_alarm ? "timed out waiting for the processes to start" :
				 "a process ended before saying it was ready";
		goto out;
	}
	/* The ring: the processes that run, in fork order; the token starts at the first. */
	for (unsigned int i = 0; i < np; i++)
		ring += !strcmp(procs[i].stage, "ok");
	for (unsigned int i = 0; i < np; i++) {
		struct fw_ctl c = { FW_CTL_NEXT, 0, ring, n };

		if (strcmp(procs[i].stage, "ok"))
			continue;
		if (first < 0)
			first = (int)i;
		if (last >= 0) {
			c.arg = i;
			fw_write_all(ctl[last][1], &c, sizeof(c));
		}
		last = (int)i;
	}
	if (ring < 2) {
		why = "fewer than two processes to pass the token between";
		goto out;
	}
	{
		struct fw_ctl c = { FW_CTL_NEXT, (uint32_t)first, ring, n };
		struct fw_ctl t = { FW_CTL_TOKEN, 0, 0, 0 };

		fw_write_all(ctl[last][1], &c, sizeof(c));
		fw_write_all(ctl[first][1], &t, sizeof(t));
	}
	while (done < ring && !fw_read_all(res[0], &msg, sizeof(msg))) {
		if (msg.type == FW_MSG_BEFORE) {
			before = msg.snap;
			got_before = 1;
		} else if (msg.type == FW_MSG_AFTER) {
			after = msg.snap;
			got_after = 1;
		} else if (msg.type == FW_MSG_DONE) {
			done++;
		}
	}
	ok = done == ring && got_before && got_after;
	if (!ok)
		why = fw_alarm ? "timed out in the ring" : "the ring ended early";
out:
	alarm(0);
	for (unsigned int i = 0; i < np; i++)
		if (procs[i].pid > 0 && !ok)
			kill(procs[i].pid, SIGKILL);
	for (unsigned int i = 0; i < np; i++)
		if (procs[i].pid > 0)
			waitpid(procs[i].pid, NULL, 0);
	fw_header("ring", &base, sched);
	printf("workload=%s\nprocs=%u\n", w->name, np);
	for (unsigned int i = 0; i < np; i++)
		printf("proc.%u.kind=%s\nproc.%u.stage=%s\nproc.%u.errno=%s\nproc.%u.fcse_pid=%lld\n",
		       i, procs[i].kind->name, i, procs[i].stage, i, fw_errname(procs[i].err), i,
		       procs[i].fcse_pid);
	printf("ring=%u\nwarmup=%u\nswitches=%u\n", ring, ring, n);
	if (ok) {
		struct fw_snap d = after;

		fw_print_snap("before", &before);
		fw_print_snap("after", &after);
		d.have &= before.have;
		for (unsigned int k = 0; k < FW_NKEYS; k++)
			d.v[k] -= before.v[k];
		fw_print_snap("delta", &d);
	}
	return fw_status(ok, "%s", why);
}

/* ---- The fork limit ---------------------------------------------------------------- */

static int fw_limit(unsigned int max)
{
	static pid_t kids[FW_MAX_PROCS];
	struct fw_snap base, at;
	unsigned int n = 0;
	int hold[2], err = 0;

	fw_read_snap(&base);
	if (pipe(hold) < 0)
		return fw_status(0, "pipe: %s", strerror(errno));
	fflush(stdout);
	while (n < max) {
		pid_t pid = fork();
		char c;

		if (pid == 0) {
			close(hold[1]);
			while (read(hold[0], &c, 1) < 0 && errno == EINTR)
				;
			_exit(0);
		}
		if (pid < 0) {
			err = errno;
			break;
		}
		kids[n++] = pid;
	}
	fw_read_snap(&at);
	close(hold[1]);
	for (unsigned int i = 0; i < n; i++)
		waitpid(kids[i], NULL, 0);
	fw_header("limit", &base, "other");
	printf("limit.max=%u\nlimit.forked=%u\nlimit.errno=%s\n", max, n, fw_errname(err));
	fw_print_snap("at", &at);
	return fw_status(1, "");
}

static int fw_usage(void)
{
	fprintf(stderr, "usage: rtlab-fcse-work [--proc PATH] [--switches N] [--processes N] "
		"mixed|small|thrash|many\n"
		"       rtlab-fcse-work [--proc PATH] [--max N] limit\n");
	return 2;
}

static int fw_uint(const char *s, unsigned long lo, unsigned long hi, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno || *end || !*s || *out < lo || *out > hi ? -1 : 0;
}

int main(int argc, char **argv)
{
	unsigned long n = 1000, procs = 0, max = 200;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i += 2) {
		const char *o = argv[i];

		if (i + 1 >= argc)
			return fw_usage();
		if (!strcmp(o, "--proc"))
			fw_proc = argv[i + 1];
		else if (!strcmp(o, "--switches") ? fw_uint(argv[i + 1], 1, 1000000, &n) :
			 !strcmp(o, "--processes") ? fw_uint(argv[i + 1], 1, 500, &procs) :
			 !strcmp(o, "--max") ? fw_uint(argv[i + 1], 1, FW_MAX_PROCS, &max) : 1)
			return fw_usage();
	}
	if (i != argc - 1)
		return fw_usage();
	if (!strcmp(argv[i], "limit"))
		return fw_limit((unsigned int)max);
	for (size_t w = 0; w < sizeof(fw_workloads) / sizeof(fw_workloads[0]); w++)
		if (!strcmp(argv[i], fw_workloads[w].name))
			return fw_ring(&fw_workloads[w], (unsigned int)procs, (uint32_t)n);
	return fw_usage();
}
