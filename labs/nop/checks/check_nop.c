/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_nop: the trusted checks of the nop exercise, one cmocka test per
 * check of exercise.json. Each runs the subject (subject.c linked with the
 * learner's nop_monitor.c) on a stream of bus events and judges its
 * verdicts here:
 *
 *  - one fault kind per fixture (data/KIND.obs: what the lab's model,
 *    sim/sim_nop.c, shows on lesson 09's bus with one fault injected at
 *    1 ms; tests/unit/test_nop_fixtures.c keeps them equal to the model).
 *    The faulty node must be named by a verdict of the fixture's kind no
 *    later than the detection bound after the injection, and no other
 *    node ever;
 *  - a node that crashed, was repaired and rejoined with a join frame
 *    must not be blamed for rejoining;
 *  - 10,000 fault-free rounds of 6 nodes with random frames and jitter,
 *    generated here: not one verdict.
 *
 * Inputs a learner cannot have. The checks and data/ are installed where
 * a learner can read them, so fixed inputs would let a table of answers
 * pass. Each grading run draws a seed (getrandom(); RTLAB_CHECK_SEED, in
 * decimal in the check program's environment, repeats a run), every
 * failure reason names it, and each check draws its inputs from it and
 * its own name (so a check run alone sees what it sees in a full run):
 *
 *  - a fixture's node ids are mapped, in order, onto ids drawn from
 *    0 .. 63; its times are stretched (x 1 .. 3: every duration, gap_max
 *    and timeout alike, so the rules give the same verdicts) and moved to
 *    a start in the first 10 s, after 3 .. 40 fault-free rounds on the
 *    same bus; the answer (the faulty node, the injection, the bound) is
 *    transformed alike. No line number, time or id of data/ survives;
 *  - the corrupted frame of the corrupt fixture carries the id of another
 *    member, drawn: a corrupted frame's id is as garbled as the rest of
 *    it, so a monitor that trusts it blames a correct node (the model
 *    spoils only the CRC);
 *  - the fault-free rounds' gap_max (above 6 us), longest frame, frames,
 *    starts and ids are drawn. One start in eight, in those rounds and in
 *    the fixtures' leading ones, is exactly gap_max after the turn began:
 *    a correct node may start that late, and a monitor that compares
 *    with >= instead of > blames it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "nop_monitor.h"
#include "rtlab_check.h"

#define MAX_EVENTS 4096		/* of a fixture */
#define MAX_ID 63		/* renumbered ids are 0 .. MAX_ID */

/* ---- The run's seed (labs/common/rtlab_check.h) ------------------------------------- */

/* The short names used below; a failure's reason names the seed. */
#define rng_for rtlab_rng_named
#define rng_below rtlab_rng_below
#define why rtlab_check_seed_reason

/* ---- Bus events ---------------------------------------------------------------------- */

/* One line of the subject's input: the fields of struct nop_obs. */
struct ev {
	uint64_t now, turn, start, end, gap_max, timeout;
	int expected, prev, src, frame, crc_ok, member, type;
};

/* The subject's stdin, and each event's time for the judge. */
struct stream {
	char *text;
	size_t len, cap;
	uint64_t *now;		/* per event line, from 1 */
	unsigned long n, cap_n;
};

static void stream_fini(struct stream *s)
{
	free(s->text);
	free(s->now);
	memset(s, 0, sizeof(*s));
}

static void emit(struct stream *s, const struct ev *e)
{
	if (s->cap - s->len < 256) {
		s->cap = s->cap ? 2 * s->cap : 1u << 16;
		s->text = realloc(s->text, s->cap);
		assert_non_null(s->text);
	}
	if (s->n + 2 > s->cap_n) {
		s->cap_n = s->cap_n ? 2 * s->cap_n : 1024;
		s->now = realloc(s->now, s->cap_n * sizeof(*s->now));
		assert_non_null(s->now);
	}
	s->now[++s->n] = e->now;
	s->len += (size_t)snprintf(s->text + s->len, s->cap - s->len,
				   "%" PRIu64 " %" PRIu64 " %d %d %d %d %d %d %d %" PRIu64
				   " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", e->now, e->turn,
				   e->expected, e->prev, e->frame, e->crc_ok, e->member, e->src,
				   e->type, e->start, e->end, e->gap_max, e->timeout);
}

/* A bus of correct nodes, for fault-free turns. */
struct bus {
	uint64_t t;		/* the end of the last frame: the next turn begins */
	uint64_t gap_max, timeout, byte_ns;
	uint64_t fmax;		/* the longest frame, in bytes */
	int prev;		/* the last sender */
};

/* One fault-free turn of node @id: it starts within gap_max and sends 10 .. fmax bytes. */
static void turn_ok(struct stream *s, struct bus *b, struct rtlab_rng *x, int id)
{
	uint64_t half = b->gap_max / 2, off, bytes;
	struct ev e = { 0 };

	/* One in eight exactly at gap_max: as late as a correct node may start. */
	off = rng_below(x, 8) ? half + rng_below(x, b->gap_max - half + 1) : b->gap_max;
	bytes = 10 + rng_below(x, b->fmax - 9);
	e.turn = b->t;
	e.start = b->t + off;
	e.end = e.now = e.start + bytes * b->byte_ns;
	e.expected = e.src = id;
	e.prev = b->prev;
	e.frame = e.crc_ok = e.member = 1;
	e.type = bytes > 10 ? NOP_DATA : NOP_EMPTY;
	e.gap_max = b->gap_max;
	e.timeout = b->timeout;
	emit(s, &e);
	b->t = e.end;
	b->prev = id;
}

/* @n distinct ids drawn from 0 .. MAX_ID, in increasing order (the bus's order). */
static void ids_draw(struct rtlab_rng *x, int *ids, int n)
{
	int pool[MAX_ID + 1];

	for (int i = 0; i <= MAX_ID; i++)
		pool[i] = i;
	for (int i = 0; i < n; i++) {
		int j = i + (int)rng_below(x, (uint64_t)(MAX_ID + 1 - i)), t = pool[i];

		pool[i] = pool[j];
		pool[j] = t;
	}
	for (int i = 0; i < n; i++) {
		int v = pool[i], j = i;

		for (; j > 0 && ids[j - 1] > v; j--)
			ids[j] = ids[j - 1];
		ids[j] = v;
	}
}

/* ---- Fixtures ------------------------------------------------------------------------ */

struct fixture {
	char kind[16];
	int node, nodes;	/* the faulty node; ids are 0 .. nodes - 1 */
	uint64_t inject_ns, bound_ns;
	struct ev ev[MAX_EVENTS];
	unsigned int n;
};

static void fixture_load(const char *name, struct fixture *fx)
{
	const char *path = rtlab_check_data(name);
	char line[512];
	FILE *f = fopen(path, "r");

	memset(fx, 0, sizeof(*fx));
	if (!f)
		rtlab_fail("the fixture %s is missing", path);
	while (fgets(line, sizeof(line), f)) {
		struct ev *e = &fx->ev[fx->n];

		if (sscanf(line, "# fault %15s %d %" SCNu64 " %" SCNu64, fx->kind, &fx->node,
			   &fx->inject_ns, &fx->bound_ns) == 4)
			continue;
		if (line[0] == '#' || fx->n >= MAX_EVENTS)
			continue;
		if (sscanf(line, "%" SCNu64 " %" SCNu64 " %d %d %d %d %d %d %d %" SCNu64 " %"
			   SCNu64 " %" SCNu64 " %" SCNu64, &e->now, &e->turn, &e->expected,
			   &e->prev, &e->frame, &e->crc_ok, &e->member, &e->src, &e->type,
			   &e->start, &e->end, &e->gap_max, &e->timeout) != 13 ||
		    e->expected > MAX_ID || e->prev > MAX_ID || e->src > MAX_ID) {
			fclose(f);
			rtlab_fail("the fixture %s has a bad line: %s", path, line);
		}
		if (e->expected >= fx->nodes)
			fx->nodes = e->expected + 1;
		if (e->src >= fx->nodes)
			fx->nodes = e->src + 1;
		fx->n++;
	}
	fclose(f);
	if (!fx->n || !fx->bound_ns || fx->node < 0 || fx->node >= fx->nodes || fx->nodes < 2)
		rtlab_fail("the fixture %s has no events or no header", path);
}

/* The verdict a fixture's fault must get. */
static int fixture_fault(const char *kind)
{
	static const struct { const char *kind; int fault; } map[] = {
		{ "crash", NOP_FAULT_SILENT }, { "skip", NOP_FAULT_SILENT },
		{ "babble", NOP_FAULT_BABBLE }, { "corrupt", NOP_FAULT_CORRUPT },
		{ "late", NOP_FAULT_LATE }, { "dup", NOP_FAULT_DUP },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(kind, map[i].kind))
			return map[i].fault;
	return NOP_FAULT_NONE;
}

/* A fixture as one run shows it (the file's header comment says how). */
struct trial {
	struct stream s;
	int node, fault;
	uint64_t inject_ns, bound_ns, after_ns;
	unsigned long first;	/* the fixture's first event line */
};

/*
 * Renumber, stretch and move fixture @fx after fault-free rounds, drawing
 * from @x; @after_ns (a time of the fixture, or 0) transformed into @tr.
 */
static void trial_make(const struct fixture *fx, struct rtlab_rng *x, uint64_t after_ns,
		       struct trial *tr)
{
	uint64_t k = 1 + rng_below(x, 3), shift;
	unsigned int rounds = 3 + (unsigned int)rng_below(x, 38);
	struct bus b = { 0 };
	int ids[MAX_ID + 1];

	memset(tr, 0, sizeof(*tr));
	ids_draw(x, ids, fx->nodes);
	b.t = 1 + rng_below(x, UINT64_C(10000000000));
	b.gap_max = fx->ev[0].gap_max * k;
	b.timeout = fx->ev[0].timeout * k;
	b.byte_ns = 1000 * k;			/* the lesson's bus: 8 Mbit/s */
	b.fmax = (b.timeout - b.gap_max) / b.byte_ns;
	b.prev = NOP_NONE;
	for (unsigned int r = 0; r < rounds; r++)
		for (int i = 0; i < fx->nodes; i++)
			turn_ok(&tr->s, &b, x, ids[i]);
	shift = b.t;				/* the fixture's time 0 */
	tr->first = tr->s.n + 1;
	for (unsigned int i = 0; i < fx->n; i++) {
		struct ev e = fx->ev[i];

		e.now = shift + e.now * k;
		e.turn = shift + e.turn * k;
		e.start = shift + e.start * k;
		e.end = shift + e.end * k;
		e.gap_max *= k;
		e.timeout *= k;
		if (e.frame && !e.crc_ok && e.expected >= 0) {
			/* A garbled id: another member's. */
			e.src = (e.expected + 1 + (int)rng_below(x, (uint64_t)fx->nodes - 1)) %
				fx->nodes;
			e.member = 1;
		}
		if (i == 0 && e.prev == NOP_NONE)
			e.prev = b.prev;	/* the leading rounds' last sender */
		else if (e.prev != NOP_NONE)
			e.prev = ids[e.prev];
		e.expected = e.expected == NOP_NONE ? NOP_NONE : ids[e.expected];
		e.src = e.src == NOP_NONE ? NOP_NONE : ids[e.src];
		emit(&tr->s, &e);
	}
	tr->node = ids[fx->node];
	tr->fault = fixture_fault(fx->kind);
	tr->inject_ns = shift + fx->inject_ns * k;
	tr->bound_ns = fx->bound_ns * k;
	tr->after_ns = after_ns ? shift + after_ns * k : 0;
}

/* Run the subject on @o; its verdicts come back in @r.out. */
static void run_subject(struct rtlab_run_opts *o, struct rtlab_run *r)
{
	if (rtlab_run_subject(o, r))
		rtlab_fail("the subject could not be run: %s", r->reason);
	if (!rtlab_run_ok(r)) {
		rtlab_check_reason("the subject did not finish normally: %s", r->reason);
		rtlab_run_fini(r);
		fail();
	}
}

static const char *const fault_names[] = { "none", "silent", "babble", "corrupt", "late", "dup" };

static const char *fname(int f)
{
	return f >= 0 && f <= NOP_FAULT_DUP ? fault_names[f] : "unknown";
}

/*
 * The fault of fixture @name must be found in time, as its kind; no correct
 * node may be blamed. @after_ns: also refuse any verdict on the faulty
 * node from then on (it was repaired), or 0. @check: the check's name,
 * which with the run's seed draws how the fixture is shown.
 */
static void judge(const char *check, const char *name, uint64_t after_ns)
{
	static struct fixture fx;
	static struct trial tr;
	struct rtlab_run_opts o = { 0 };
	struct rtlab_run r = { 0 };
	struct rtlab_rng x = rng_for(check);
	uint64_t when = 0, t;
	const char *p;
	bool found = false;

	fixture_load(name, &fx);
	trial_make(&fx, &x, after_ns, &tr);
	o.stdin_data = tr.s.text;
	o.stdin_len = tr.s.len;
	run_subject(&o, &r);
	for (p = r.out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		unsigned long line;
		int fault, node;

		if (!strncmp(p, "end ", 4))
			break;
		if (sscanf(p, "%lu %d %d", &line, &fault, &node) != 3 || line < 1 ||
		    line > tr.s.n) {
			why("%s: the subject printed \"%.*s\"", name, (int)strcspn(p, "\n"), p);
			goto out_fail;
		}
		t = tr.s.now[line];
		if (node != tr.node || t < tr.inject_ns) {
			why("%s: at t = %" PRIu64 " us your monitor blamed node %d (%s), a correct "
			    "node: a false positive (the fault was on node %d from t = %" PRIu64
			    " us)", name, t / 1000, node, fname(fault), tr.node,
			    tr.inject_ns / 1000);
			goto out_fail;
		}
		if (tr.after_ns && t >= tr.after_ns) {
			why("%s: at t = %" PRIu64 " us your monitor blamed node %d (%s) again, "
			    "after it was repaired: a join frame from a node that is not a member "
			    "is how it rejoins", name, t / 1000, node, fname(fault));
			goto out_fail;
		}
		if (fault != tr.fault && found) {
			why("%s: at t = %" PRIu64 " us your monitor blamed node %d again, now as "
			    "%s: it was found %s at t = %" PRIu64 " us and did nothing else wrong "
			    "(a join frame from a node that is not a member is how it rejoins)",
			    name, t / 1000, node, fname(fault), fname(tr.fault), when / 1000);
			goto out_fail;
		}
		if (fault != tr.fault) {
			why("%s: at t = %" PRIu64 " us your monitor found node %d but called its "
			    "fault %s; it was %s (%s injected at t = %" PRIu64 " us)", name,
			    t / 1000, node, fname(fault), fname(tr.fault), fx.kind,
			    tr.inject_ns / 1000);
			goto out_fail;
		}
		if (!found) {
			found = true;
			when = t;
		}
	}
	rtlab_run_fini(&r);
	if (!found) {
		why("%s: node %d failed at t = %" PRIu64 " us (%s) and your monitor never said "
		    "so", name, tr.node, tr.inject_ns / 1000, fx.kind);
		goto out_fail_ran;
	}
	if (when - tr.inject_ns > tr.bound_ns) {
		why("%s: found %" PRIu64 " us after the fault, the bound is %" PRIu64 " us", name,
		    (when - tr.inject_ns) / 1000, tr.bound_ns / 1000);
		goto out_fail_ran;
	}
	stream_fini(&tr.s);
	return;
out_fail:
	rtlab_run_fini(&r);
out_fail_ran:
	stream_fini(&tr.s);
	fail();
}

static void detect_crash(void **state)
{
	(void)state;
	judge("detect-crash", "crash.obs", 0);
}

static void detect_skip(void **state)
{
	(void)state;
	judge("detect-skip", "skip.obs", 0);
}

static void detect_babble(void **state)
{
	(void)state;
	judge("detect-babble", "babble.obs", 0);
}

static void detect_corrupt(void **state)
{
	(void)state;
	judge("detect-corrupt", "corrupt.obs", 0);
}

static void detect_late(void **state)
{
	(void)state;
	judge("detect-late", "late.obs", 0);
}

static void detect_dup(void **state)
{
	(void)state;
	judge("detect-dup", "dup.obs", 0);
}

static void rejoin_not_a_fault(void **state)
{
	(void)state;
	/* Node 3 is repaired at 1.5 ms of the fixture. */
	judge("rejoin-not-a-fault", "rejoin.obs", 1500000);
}

/*
 * 10,000 rounds of 6 correct nodes with ids, gap_max (6 to 12 us), longest
 * frame (60 to 150 bytes at 1 us) and frames drawn from the seed.
 */
static void no_false_positive(void **state)
{
	const unsigned int nodes = 6, rounds = 10000;
	struct rtlab_run_opts o = { 0 };
	struct rtlab_run r = { 0 };
	struct rtlab_rng x = rng_for("no-false-positive");
	struct stream s = { 0 };
	struct bus b = { 0 };
	int ids[6];

	(void)state;
	ids_draw(&x, ids, (int)nodes);
	b.t = rng_below(&x, UINT64_C(10000000000));
	b.gap_max = 6001 + rng_below(&x, 6000);
	b.fmax = 60 + rng_below(&x, 91);
	b.byte_ns = 1000;
	b.timeout = b.fmax * b.byte_ns + b.gap_max;
	b.prev = NOP_NONE;
	for (unsigned int k = 0; k < rounds; k++)
		for (unsigned int i = 0; i < nodes; i++)
			turn_ok(&s, &b, &x, ids[i]);
	o.stdin_data = s.text;
	o.stdin_len = s.len;
	run_subject(&o, &r);
	stream_fini(&s);
	if (strncmp(r.out, "end ", 4)) {
		unsigned long line = strtoul(r.out, NULL, 10);

		why("in %u fault-free rounds (gap_max %" PRIu64 " ns) your monitor blamed a "
		    "correct node (first at event %lu, round %lu: \"%.*s\")", rounds, b.gap_max,
		    line, line ? (line - 1) / nodes + 1 : 0, (int)strcspn(r.out, "\n"), r.out);
		rtlab_run_fini(&r);
		fail();
	}
	rtlab_run_fini(&r);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(detect_crash),
		cmocka_unit_test(detect_skip),
		cmocka_unit_test(detect_babble),
		cmocka_unit_test(detect_corrupt),
		cmocka_unit_test(detect_late),
		cmocka_unit_test(detect_dup),
		cmocka_unit_test(rejoin_not_a_fault),
		cmocka_unit_test(no_false_positive),
	};

	(void)rtlab_check_seed();
	return rtlab_check_main("nop", tests, sizeof(tests) / sizeof(tests[0]));
}
