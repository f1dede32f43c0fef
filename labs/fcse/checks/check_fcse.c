/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_fcse: the trusted checks of the FCSE exercise, one cmocka test per
 * check of exercise.json (the C name's '_' is the id's '-'). Each check
 * runs the subject (subject.c linked with the learner's fcse_pid.c)
 * through the grading harness's rtlab_run_subject(), writes its requests
 * on the subject's stdin and judges the answers here; the subject decides
 * nothing (doc/exercises.md of the harness). `rtlab grade fcse` runs it.
 *
 * Inputs a learner cannot have: this file is installed with rtlab, so a
 * learner may read it before writing fcse_pid.c, and fixed addresses or
 * alloc/free sequences could be answered from a table. Each run of the
 * program draws a seed (getrandom(), or RTLAB_CHECK_SEED=N to repeat a
 * run) and every check asks, beside the boundary cases it always keeps
 * (32 MB - 1, 32 MB, the 95th and 96th fork), about addresses, PIDs, task
 * sizes and alloc/free sequences drawn from it. The expected answers come
 * from the header's rule, computed here (model_mva(), struct model), so
 * only the rule passes. A failure names the seed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "rtlab_check.h"

#define MB32 UINT32_C(0x02000000)	/* one FCSE slot */
#define DEFAULT_TASK_SIZE UINT32_C(0xBF000000)	/* the subject's, until "init" */

/* ---- The seed ----------------------------------------------------------------------- */

static uint64_t seed;
static uint64_t rng;

/* The seed of this run: RTLAB_CHECK_SEED when it is a number, else a fresh one. */
static uint64_t pick_seed(void)
{
	const char *env = getenv("RTLAB_CHECK_SEED");
	struct timespec ts;
	uint64_t s;

	if (env && *env) {
		char *end;

		errno = 0;
		s = strtoull(env, &end, 0);
		if (!errno && !*end)
			return s;
		fprintf(stderr, "check_fcse: RTLAB_CHECK_SEED=%s is no number: a fresh seed\n",
			env);
	}
	if (getrandom(&s, sizeof(s), 0) == (ssize_t)sizeof(s))
		return s;
	/* No getrandom() (an old kernel): the clock still differs between runs. */
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec ^ (uint64_t)getpid() << 40;
}

/*
 * Each check draws from a stream of its own, so that a check run alone
 * (RTLAB_CHECK_ONLY) asks what it asks in a full run with the same seed.
 */
static void rng_start(unsigned int check)
{
	rng = seed ^ (UINT64_C(0xd1b54a32d192ed03) * (check + 1));
}

/* splitmix64: small, and the same numbers on every machine. */
static uint64_t rnd(void)
{
	uint64_t z = (rng += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* A number from @lo to @hi, both included. */
static uint32_t rnd_in(uint32_t lo, uint32_t hi)
{
	return lo + (uint32_t)(rnd() % ((uint64_t)hi - lo + 1));
}

/* ---- The rule, as the header states it ----------------------------------------------- */

static uint32_t model_mva(uint32_t va, unsigned int pid)
{
	return va < MB32 ? va + pid * MB32 : va;
}

/* The allocator: nr PIDs, the lowest free one from 1 up, PID 0 last. */
struct model {
	unsigned int nr;
	bool used[128];
};

static void model_init(struct model *m, uint32_t task_size)
{
	memset(m, 0, sizeof(*m));
	m->nr = task_size / MB32;
}

static int model_alloc(struct model *m)
{
	for (unsigned int i = 1; i <= m->nr; i++) {
		unsigned int pid = i % m->nr;	/* 1, 2 ... nr - 1, then 0 */

		if (!m->used[pid]) {
			m->used[pid] = true;
			return (int)pid;
		}
	}
	return -EAGAIN;
}

/* ---- A conversation with the subject ------------------------------------------------- */

/* The requests to send and the answers they must get, line for line. */
struct talk {
	FILE *req, *ans;
	char *req_s, *ans_s;
	size_t req_len, ans_len;
	struct model m;
	bool drawn;		/* some of the requests come from the seed */
};

static void talk_open(struct talk *t, bool drawn)
{
	memset(t, 0, sizeof(*t));
	t->drawn = drawn;
	t->req = open_memstream(&t->req_s, &t->req_len);
	t->ans = open_memstream(&t->ans_s, &t->ans_len);
	assert_non_null(t->req);
	assert_non_null(t->ans);
	model_init(&t->m, DEFAULT_TASK_SIZE);
}

static void ask_mva(struct talk *t, unsigned int pid, uint32_t va)
{
	fprintf(t->req, "mva %u %08x\n", pid, (unsigned int)va);
	fprintf(t->ans, "%08x\n", (unsigned int)model_mva(va, pid));
}

static void ask_init(struct talk *t, uint32_t task_size)
{
	fprintf(t->req, "init %08x\n", (unsigned int)task_size);
	fprintf(t->ans, "ok\n");
	model_init(&t->m, task_size);
}

static int ask_alloc(struct talk *t)
{
	int pid = model_alloc(&t->m);

	fprintf(t->req, "alloc\n");
	fprintf(t->ans, "%d\n", pid);
	return pid;
}

static void ask_free(struct talk *t, unsigned int pid)
{
	fprintf(t->req, "free %u\n", pid);
	fprintf(t->ans, "ok\n");
	t->m.used[pid] = false;
}

/* Line @n (from 1) of @s, and its length in @len. */
static const char *line_of(const char *s, unsigned int n, int *len)
{
	while (--n && (s = strchr(s, '\n')))
		s++;
	if (!s)
		s = "";
	*len = (int)strcspn(s, "\n");
	return s;
}

/*
 * The requests before line @n of @s, up to three, as ' after "a", "b", "c"':
 * an allocator's answer depends on what came before it.
 */
static void before(const char *s, unsigned int n, char *buf, size_t size)
{
	const char *l;
	size_t len = 0;
	int l_n;

	buf[0] = '\0';
	for (unsigned int i = n > 4 ? n - 3 : 1; i < n && len < size; i++) {
		l = line_of(s, i, &l_n);
		len += (size_t)snprintf(buf + len, size - len, "%s\"%.*s\"",
					len ? ", " : " after ", l_n, l);
	}
}

/* Send @t's requests: the subject's answers must be the model's, line for line. */
static void talk_expect(struct talk *t, const char *what)
{
	struct rtlab_run_opts o = { 0 };
	struct rtlab_run r = { 0 };
	const char *a, *b, *req, *got, *want;
	unsigned int line = 1;
	int req_n, got_n, want_n;
	char from[128] = "", after[128];

	assert_int_equal(fclose(t->req), 0);
	assert_int_equal(fclose(t->ans), 0);
	o.stdin_data = t->req_s;
	o.stdin_len = t->req_len;
	if (rtlab_run_subject(&o, &r)) {
		free(t->req_s);
		free(t->ans_s);
		rtlab_fail("the subject could not be run: %s", r.reason);
	}
	if (t->drawn)
		snprintf(from, sizeof(from), " (seed %llu: RTLAB_CHECK_SEED=%llu repeats these "
			 "requests)", (unsigned long long)seed, (unsigned long long)seed);
	if (!rtlab_run_ok(&r)) {
		rtlab_check_reason("%s: the subject did not finish normally: %s%s", what,
				   r.reason, from);
		goto fail;
	}
	if (!strcmp(r.out, t->ans_s)) {
		rtlab_run_fini(&r);
		free(t->req_s);
		free(t->ans_s);
		return;
	}
	for (a = r.out, b = t->ans_s; *a && *a == *b; a++, b++)
		if (*a == '\n')
			line++;
	req = line_of(t->req_s, line, &req_n);
	got = line_of(r.out, line, &got_n);
	want = line_of(t->ans_s, line, &want_n);
	before(t->req_s, line, after, sizeof(after));
	rtlab_check_reason("%s: to request %u, \"%.*s\"%s, expected \"%.*s\", the subject "
			   "printed \"%.*s\"%s", what, line, req_n, req, after, want_n, want,
			   got_n, got, from);
fail:
	rtlab_run_fini(&r);
	free(t->req_s);
	free(t->ans_s);
	fail();
}

/* ---- The checks ------------------------------------------------------------------------ */

static void mva_below_32mb(void **state)
{
	struct talk t;

	(void)state;
	rng_start(0);
	talk_open(&t, true);
	/* The last byte that moves, under the lowest, the highest and the 95th PID. */
	ask_mva(&t, 1, MB32 - 1);
	ask_mva(&t, 127, 0);
	ask_mva(&t, 94, MB32 - 1);
	/* Half of them in the upper 16 MB, where a boundary at 16 MB shows. */
	for (unsigned int i = 0; i < 24; i++)
		ask_mva(&t, rnd_in(1, 127), rnd_in(i & 1 ? MB32 / 2 : 0, MB32 - 1));
	talk_expect(&t, "VAs below 32 MB, PIDs 1 to 127");
}

static void mva_at_32mb(void **state)
{
	struct talk t;

	(void)state;
	rng_start(1);
	talk_open(&t, true);
	ask_mva(&t, 1, MB32);
	ask_mva(&t, rnd_in(2, 127), MB32);
	ask_mva(&t, 127, UINT32_MAX);
	/* Some just above the boundary, the rest anywhere above it. */
	for (unsigned int i = 0; i < 24; i++)
		ask_mva(&t, rnd_in(1, 127), i % 3 ? rnd_in(MB32, UINT32_MAX) :
			MB32 + rnd_in(0, 0xffff));
	talk_expect(&t, "VAs of 32 MB and above are left alone");
}

static void mva_pid0(void **state)
{
	struct talk t;

	(void)state;
	rng_start(2);
	talk_open(&t, true);
	ask_mva(&t, 0, MB32 - 1);
	ask_mva(&t, 0, MB32);
	for (unsigned int i = 0; i < 16; i++)
		ask_mva(&t, 0, i & 1 ? rnd_in(0, MB32 - 1) : rnd_in(0, UINT32_MAX));
	talk_expect(&t, "PID 0 is the flat mapping");
}

/*
 * The three checks of the 3G/1G split's boundary keep the inputs the
 * handout names: the answers follow from the header alone, and an
 * allocator that only counts forks fails free-reuse and task-size.
 */
static void allocs(unsigned int n, const char *what)
{
	struct talk t;

	talk_open(&t, false);
	for (unsigned int i = 0; i < n; i++)
		ask_alloc(&t);
	talk_expect(&t, what);
}

static void alloc_order(void **state)
{
	(void)state;
	allocs(94, "the first 94 forks get PIDs 1, 2 ... 94");
}

static void alloc_95th(void **state)
{
	(void)state;
	allocs(95, "the 95th fork gets PID 0, kept for last");
}

static void alloc_96th(void **state)
{
	(void)state;
	allocs(96, "the 96th fork fails with -EAGAIN (-11)");
}

/* A used PID drawn at random (PID 0 too), or -1 when none is used. */
static int rnd_used(const struct model *m)
{
	unsigned int n = 0, k;

	for (unsigned int pid = 0; pid < m->nr; pid++)
		n += m->used[pid];
	if (!n)
		return -1;
	k = rnd_in(0, n - 1);
	for (unsigned int pid = 0; pid < m->nr; pid++)
		if (m->used[pid] && !k--)
			return (int)pid;
	return -1;
}

static void free_reuse(void **state)
{
	unsigned int x, y, z, w;
	struct talk t;

	(void)state;
	rng_start(6);
	talk_open(&t, true);
	while (ask_alloc(&t) >= 0)
		;
	/*
	 * z < x < y: free x and y, fork (x), free z, fork: z, the lowest,
	 * not y, the next one up from the last PID handed out.
	 */
	z = rnd_in(1, 92);
	x = rnd_in(z + 1, 93);
	y = rnd_in(x + 1, 94);
	ask_free(&t, x);
	ask_free(&t, y);
	ask_alloc(&t);
	ask_free(&t, z);
	ask_alloc(&t);
	ask_alloc(&t);
	ask_alloc(&t);
	/*
	 * PID 0 freed, and w below the highest PID: 0 comes back only when no
	 * other PID is free, not as soon as the highest one is taken.
	 */
	w = rnd_in(1, 93);
	ask_free(&t, 0);
	ask_free(&t, w);
	ask_alloc(&t);
	ask_alloc(&t);
	ask_alloc(&t);
	/* Exits and forks at random... */
	for (unsigned int i = 0; i < 160; i++) {
		int pid = rnd() & 1 ? rnd_used(&t.m) : -1;

		if (pid >= 0)
			ask_free(&t, (unsigned int)pid);
		else
			ask_alloc(&t);
	}
	/* ...then forks until none is left: whatever is free comes back, 0 last. */
	while (ask_alloc(&t) >= 0)
		;
	talk_expect(&t, "freed PIDs are handed out again, lowest first, 0 last");
}

static void task_size(void **state)
{
	uint32_t size[3], s;
	unsigned int nr, k;
	char what[128];
	struct talk t;

	(void)state;
	rng_start(7);
	/*
	 * A split with a part-slot and not 95 PIDs, a user space below 32 MB
	 * (no PID at all, not even 0) and any split, in a random order, each
	 * initialised over the PIDs the one before handed out.
	 */
	nr = rnd_in(1, 126);
	size[0] = (nr < 95 ? nr : nr + 1) * MB32 + rnd_in(1, MB32 - 1);
	size[1] = rnd_in(0, MB32 - 1);
	size[2] = rnd_in(1, 127) * MB32 + rnd_in(0, MB32 - 1);
	for (unsigned int i = 2; i > 0; i--) {
		k = rnd_in(0, i);
		s = size[i];
		size[i] = size[k];
		size[k] = s;
	}
	talk_open(&t, true);
	for (unsigned int i = 0; i < 3; i++) {
		ask_init(&t, size[i]);
		while (ask_alloc(&t) >= 0)
			;
	}
	snprintf(what, sizeof(what), "task sizes 0x%08x, 0x%08x and 0x%08x (%u, %u and %u PIDs)",
		 (unsigned int)size[0], (unsigned int)size[1], (unsigned int)size[2],
		 (unsigned int)(size[0] / MB32), (unsigned int)(size[1] / MB32),
		 (unsigned int)(size[2] / MB32));
	talk_expect(&t, what);
}

/*
 * kernel-pids: the learner's allocator against the FCSE kernel's own, from a record
 * of vm/arm/fcse-pids.c run in guaranteed mode (checks/data/kernel-pids.txt: the VM
 * test tests/vm/fcse_pids.t, or a teacher, puts it there; without it the check is
 * skipped). The record lists the forks and exits of its children, the PID each got,
 * and the fork that was refused. At the refusal every PID was taken, by the children
 * still running and by the address spaces that held one before the pattern (init, the
 * shell, the program itself): those are the PIDs no running child holds. The subject
 * gets them first (allocated from 1 up, then the ones that were free in the guest
 * freed again), then the record's forks and exits; each fork must get the kernel's PID.
 */
#define KREC_MAX 256

struct krec {
	unsigned int nr, before, nops;
	int refused_errno;		/* 0: no refusal recorded */
	struct { bool fork; unsigned int child; int pid; } op[KREC_MAX];
};

/* Read the record at @path into @k; NULL, or why it cannot grade (into @why). */
static const char *krec_read(const char *path, struct krec *k, char *why, size_t size)
{
	char line[160], mode[32] = "", name[16];
	unsigned int c, n = 0, pid, at = 0;
	bool done = false, total = false, before = false;
	FILE *f = fopen(path, "r");
	int e;

	memset(k, 0, sizeof(*k));
	if (!f) {
		snprintf(why, size, "no record of the FCSE kernel's allocator (%s: %s): "
			 "rtlab-fcse-pids in the fcse image makes one (tests/vm/fcse_pids.t, "
			 "or see the handout)",
			 path, strerror(errno));
		return why;
	}
	while (fgets(line, sizeof(line), f) && !done) {
		if (sscanf(line, "mode=%31s", mode) == 1)
			continue;
		if (sscanf(line, "pids_total=%u", &n) == 1)
			total = true;
		else if (sscanf(line, "pids_in_use_before=%u", &k->before) == 1)
			before = true;
		else if ((sscanf(line, "fork=%u pid_mm=%u", &c, &pid) == 2 ||
			  sscanf(line, "exit=%u pid_mm=%u", &c, &pid) == 2) && k->nops < KREC_MAX) {
			k->op[k->nops].fork = line[0] == 'f';
			k->op[k->nops].child = c;
			k->op[k->nops++].pid = (int)pid;
		} else if (sscanf(line, "refused=%u errno=%d name=%15s", &at, &e, name) == 3)
			k->refused_errno = e;
		else if (!strncmp(line, "done=1", 6))
			done = true;
	}
	fclose(f);
	k->nr = n;
	if (strcmp(mode, "guaranteed"))
		snprintf(why, size, "the record at %s is of mode '%s', not guaranteed", path, mode);
	else if (!total || !before || !n || n > 128)
		snprintf(why, size, "the record at %s lacks pids_total or pids_in_use_before "
			 "(a kernel without the FCSE allocator?)", path);
	else if (!done || !k->refused_errno)
		snprintf(why, size, "the record at %s is %s", path,
			 done ? "without a refused fork" : "cut short (no done=1)");
	else
		return NULL;
	return why;
}

static void kernel_pids(void **state)
{
	bool held[128], alive[KREC_MAX + 1] = { false };
	unsigned int top = 0, nheld = 0, nforks = 0, nexits = 0;
	char why[512], what[200];
	struct krec *k = calloc(1, sizeof(*k));
	struct talk t;

	(void)state;
	assert_non_null(k);
	if (krec_read(rtlab_check_data("kernel-pids.txt"), k, why, sizeof(why))) {
		free(k);
		rtlab_check_reason("%s", why);
		skip();
	}
	/* Held before the pattern: every PID no child held at the refusal. */
	memset(held, true, sizeof(held));
	for (unsigned int i = 0; i < k->nops; i++)
		alive[k->op[i].child <= KREC_MAX ? k->op[i].child : 0] = k->op[i].fork;
	for (unsigned int i = 0; i < k->nops; i++)
		if (k->op[i].fork && alive[k->op[i].child] && (unsigned int)k->op[i].pid < k->nr)
			held[k->op[i].pid] = false;
	for (unsigned int pid = 0; pid < k->nr; pid++)
		if (held[pid]) {
			nheld++;
			top = pid;
		}
	if (nheld != k->before || held[0]) {
		snprintf(why, sizeof(why), "the record is not of a quiet guest: %u PIDs held by "
			 "others at the refusal, %u before the pattern%s", nheld, k->before,
			 held[0] ? ", PID 0 among them" : "");
		free(k);
		rtlab_check_reason("%s", why);
		skip();
	}
	talk_open(&t, false);
	ask_init(&t, k->nr * MB32);
	for (unsigned int pid = 1; pid <= top; pid++)
		ask_alloc(&t);
	for (unsigned int pid = 1; pid <= top; pid++)
		if (!held[pid])
			ask_free(&t, pid);
	for (unsigned int i = 0; i < k->nops; i++) {
		if (k->op[i].fork) {
			fprintf(t.req, "alloc\n");
			fprintf(t.ans, "%d\n", k->op[i].pid);
			nforks++;
		} else {
			fprintf(t.req, "free %d\n", k->op[i].pid);
			fprintf(t.ans, "ok\n");
			nexits++;
		}
	}
	fprintf(t.req, "alloc\n");
	fprintf(t.ans, "%d\n", -k->refused_errno);
	snprintf(what, sizeof(what), "as the FCSE kernel handed out PIDs (%u held before by "
		 "others, then %u forks and %u exits, the next fork refused)", nheld, nforks,
		 nexits);
	free(k);
	talk_expect(&t, what);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(mva_below_32mb),
		cmocka_unit_test(mva_at_32mb),
		cmocka_unit_test(mva_pid0),
		cmocka_unit_test(alloc_order),
		cmocka_unit_test(alloc_95th),
		cmocka_unit_test(alloc_96th),
		cmocka_unit_test(free_reuse),
		cmocka_unit_test(task_size),
		cmocka_unit_test(kernel_pids),
	};

	seed = pick_seed();
	return rtlab_check_main("fcse", tests, sizeof(tests) / sizeof(tests[0]));
}
