/*
 * check_nop: the trusted checks of the nop exercise, one cmocka test per
 * check of exercise.json. Each runs the subject (subject.c linked with the
 * learner's nop_monitor.c) on a stream of bus events and judges its
 * verdicts here:
 *
 *  - one fault kind per fixture (data/KIND.obs: what the lab's model,
 *    sim/sim_nop.c, shows on lesson 09's bus with one fault injected at
 *    1 ms; tests/unit/test_nop_fixtures.c keeps them equal to the model).
 *    The faulty node must be named by a verdict no later than the
 *    detection bound after the injection, and no other node ever;
 *  - a node that crashed, was repaired and rejoined with a join frame
 *    must not be blamed for rejoining;
 *  - 10,000 fault-free rounds of 6 nodes with random frames and jitter,
 *    generated here: not one verdict.
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

#include "nop_monitor.h"
#include "rtlab_check.h"

#define MAX_EVENTS 4096

struct fixture {
	char kind[16];
	int node;
	uint64_t inject_ns, bound_ns;
	uint64_t now[MAX_EVENTS + 1];	/* per event line, from 1 */
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
		if (sscanf(line, "# fault %15s %d %" SCNu64 " %" SCNu64, fx->kind, &fx->node,
			   &fx->inject_ns, &fx->bound_ns) == 4)
			continue;
		if (line[0] == '#' || fx->n >= MAX_EVENTS)
			continue;
		fx->now[++fx->n] = strtoull(line, NULL, 10);
	}
	fclose(f);
	if (!fx->n || !fx->bound_ns)
		rtlab_fail("the fixture %s has no events or no header", path);
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
 * The fault of fixture @name must be found in time; no correct node may be
 * blamed. @after_ns: also refuse any verdict on the faulty node from then
 * on (it was repaired), or 0.
 */
static void judge(const char *name, uint64_t after_ns)
{
	static struct fixture fx;
	struct rtlab_run_opts o = { 0 };
	struct rtlab_run r = { 0 };
	const char *p;
	bool found = false;
	uint64_t when = 0;

	fixture_load(name, &fx);
	o.stdin_path = rtlab_check_data(name);
	run_subject(&o, &r);
	for (p = r.out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		unsigned long line;
		int fault, node;

		if (!strncmp(p, "end ", 4))
			break;
		if (sscanf(p, "%lu %d %d", &line, &fault, &node) != 3 || line < 1 || line > fx.n) {
			rtlab_check_reason("%s: the subject printed \"%.*s\"", name,
					   (int)strcspn(p, "\n"), p);
			rtlab_run_fini(&r);
			fail();
		}
		if (node != fx.node || fx.now[line] < fx.inject_ns) {
			rtlab_check_reason("%s: at t = %" PRIu64 " us your monitor blamed node %d "
					   "(%s), a correct node: a false positive (the fault was "
					   "on node %d from t = %" PRIu64 " us)", name,
					   fx.now[line] / 1000, node, fname(fault), fx.node,
					   fx.inject_ns / 1000);
			rtlab_run_fini(&r);
			fail();
		}
		if (after_ns && fx.now[line] >= after_ns) {
			rtlab_check_reason("%s: at t = %" PRIu64 " us your monitor blamed node %d "
					   "(%s) again, after it was repaired: a join frame from a "
					   "node that is not a member is how it rejoins", name,
					   fx.now[line] / 1000, node, fname(fault));
			rtlab_run_fini(&r);
			fail();
		}
		if (!found) {
			found = true;
			when = fx.now[line];
		}
	}
	rtlab_run_fini(&r);
	if (!found)
		rtlab_fail("%s: node %d failed at t = %" PRIu64 " us (%s) and your monitor never "
			   "said so", name, fx.node, fx.inject_ns / 1000, fx.kind);
	if (when - fx.inject_ns > fx.bound_ns)
		rtlab_fail("%s: found %" PRIu64 " us after the fault, the bound is %" PRIu64 " us",
			   name, (when - fx.inject_ns) / 1000, fx.bound_ns / 1000);
}

static void detect_crash(void **state)
{
	(void)state;
	judge("crash.obs", 0);
}

static void detect_skip(void **state)
{
	(void)state;
	judge("skip.obs", 0);
}

static void detect_babble(void **state)
{
	(void)state;
	judge("babble.obs", 0);
}

static void detect_corrupt(void **state)
{
	(void)state;
	judge("corrupt.obs", 0);
}

static void detect_late(void **state)
{
	(void)state;
	judge("late.obs", 0);
}

static void detect_dup(void **state)
{
	(void)state;
	judge("dup.obs", 0);
}

static void rejoin_not_a_fault(void **state)
{
	(void)state;
	judge("rejoin.obs", 1500000);	/* node 3 is repaired at 1.5 ms */
}

/* 10,000 rounds of 6 correct nodes: frames of 10 .. 100 us, gaps of 5 .. 7 us. */
static void no_false_positive(void **state)
{
	const unsigned int nodes = 6, rounds = 10000;
	const uint64_t gap = 5000, jitter = 2000, fmax = 100000;
	struct rtlab_run_opts o = { 0 };
	struct rtlab_run r = { 0 };
	size_t cap = (size_t)nodes * rounds * 96, len = 0;
	char *buf = malloc(cap);
	uint64_t t = 0, x = 88172645463325252ull;
	int prev = NOP_NONE;

	(void)state;
	assert_non_null(buf);
	for (unsigned int k = 0; k < rounds; k++) {
		for (unsigned int i = 0; i < nodes; i++) {
			uint64_t start, bytes;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			start = t + gap + x % (jitter + 1);
			bytes = 10 + (x >> 20) % 91;
			len += (size_t)snprintf(buf + len, cap - len,
						"%" PRIu64 " %" PRIu64 " %u %d 1 1 1 %u %d %" PRIu64
						" %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
						start + bytes * 1000, t, i, prev, i,
						bytes > 10 ? NOP_DATA : NOP_EMPTY, start,
						start + bytes * 1000, gap + jitter,
						fmax + gap + jitter);
			t = start + bytes * 1000;
			prev = (int)i;
		}
	}
	o.stdin_data = buf;
	o.stdin_len = len;
	run_subject(&o, &r);
	free(buf);
	if (strncmp(r.out, "end ", 4)) {
		unsigned long line = strtoul(r.out, NULL, 10);

		rtlab_check_reason("in %u fault-free rounds your monitor blamed a correct node "
				   "(first at event %lu, round %lu: \"%.*s\")", rounds, line,
				   line ? (line - 1) / nodes + 1 : 0, (int)strcspn(r.out, "\n"),
				   r.out);
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

	return rtlab_check_main("nop", tests, sizeof(tests) / sizeof(tests[0]));
}
