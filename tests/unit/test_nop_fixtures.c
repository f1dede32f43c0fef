/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fixtures of the nop exercise (labs/nop/checks/data/KIND.obs) are what
 * the model (sim/sim_nop.c) shows a monitor on lesson 09's bus with 1 us
 * of jitter, one fault injected at 1 ms: every bus event as the line the
 * exercise's subject reads, a header naming the fault, its node, when it
 * was injected and the detection bound. This test builds them again from
 * the model with its reference monitor and fails when a file differs, so
 * the exercise judges learners by what the lab simulates. To write them
 * after a change of the model: NOP_FIXTURES_WRITE=1 build/tests/test_nop_fixtures
 * from the source tree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "sim/sim.h"
#include "sim/sim_nop.h"

#define DIR "labs/nop/checks/data/"

static int id(uint32_t n)
{
	return n == SIM_NOP_NONE ? -1 : (int)n;
}

/* The hook: the reference monitor's verdict, and the event as a line. */
static void record(void *priv, const struct sim_nop_obs *o, struct sim_nop_verdict *v)
{
	struct rt_buf *b = priv;

	sim_nop_monitor_ref(NULL, o, v);
	assert_int_equal(rt_buf_printf(b, "%llu %llu %d %d %d %d %d %d %u %llu %llu %llu %llu\n",
				       (unsigned long long)o->now_ns,
				       (unsigned long long)o->turn_start_ns, id(o->expected),
				       id(o->prev_src), o->frame, o->crc_ok, o->member, id(o->src),
				       o->type, (unsigned long long)o->start_ns,
				       (unsigned long long)o->end_ns,
				       (unsigned long long)o->gap_max_ns,
				       (unsigned long long)o->timeout_ns), 0);
}

static void fixture(const char *name, const struct sim_nop_fault *f, uint32_t nf)
{
	struct sim_nop_scenario sc;
	struct rt_buf b = { 0 };
	struct sim *s = NULL;
	char *cause = NULL, path[128], *old = NULL;
	FILE *fp;
	long len = -1;
	uint64_t v;

	sim_nop_lesson(&sc, SIM_NOP_PROTO_NOP);
	sc.jitter_bits = 8;
	sc.duration_ns = 3000000;
	sc.faults = f;
	sc.nfaults = nf;
	sc.monitor = record;
	sc.monitor_priv = &b;
	assert_int_equal(rt_buf_printf(&b, "# fault %s %u %llu %llu\n", sim_nop_fault_names[f[0].kind],
				       f[0].node, (unsigned long long)f[0].time_ns,
				       (unsigned long long)sim_nop_bound_ns(&sc)), 0);
	if (sim_new(&sim_nop_model, &sc, 16, &s, &cause))
		fail_msg("%s: %s", name, cause);
	sim_run(s, SIM_STEPS_ALL, NULL);
	assert_int_equal(sim_counters_get(sim_counters(s), "faults_detected_count", &v), 0);
	assert_int_equal(v, nf - (nf > 1));	/* a repair is not a fault */
	assert_int_equal(sim_counters_get(sim_counters(s), "false_positives_count", &v), 0);
	assert_int_equal(v, 0);
	sim_free(s);

	snprintf(path, sizeof(path), DIR "%s.obs", name);
	if (getenv("NOP_FIXTURES_WRITE")) {
		fp = fopen(path, "w");
		assert_non_null(fp);
		fwrite(b.data, 1, b.len, fp);
		assert_int_equal(fclose(fp), 0);
	}
	fp = fopen(path, "r");
	if (!fp)
		fail_msg("%s: %s is missing (run from the source tree)", name, path);
	old = malloc(b.len + 2);
	assert_non_null(old);
	len = (long)fread(old, 1, b.len + 1, fp);
	fclose(fp);
	if (len != (long)b.len || memcmp(old, b.data, b.len))
		fail_msg("%s differs from what the model shows now: write the fixtures again "
			 "(NOP_FIXTURES_WRITE=1) and check the exercise", path);
	free(old);
	rt_buf_fini(&b);
}

static void test_fixtures(void **state)
{
	static const struct { const char *name; struct sim_nop_fault f[2]; uint32_t n; } fx[] = {
		{ "crash", { { 1000000, SIM_NOP_F_CRASH, 1 } }, 1 },
		{ "babble", { { 1000000, SIM_NOP_F_BABBLE, 2 } }, 1 },
		{ "skip", { { 1000000, SIM_NOP_F_SKIP, 3 } }, 1 },
		{ "corrupt", { { 1000000, SIM_NOP_F_CORRUPT, 0 } }, 1 },
		{ "late", { { 1000000, SIM_NOP_F_LATE, 2 } }, 1 },
		{ "dup", { { 1000000, SIM_NOP_F_DUP, 1 } }, 1 },
		{ "rejoin", { { 1000000, SIM_NOP_F_CRASH, 3 }, { 1500000, SIM_NOP_F_REPAIR, 3 } }, 2 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(fx) / sizeof(fx[0]); i++)
		fixture(fx[i].name, fx[i].f, fx[i].n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
