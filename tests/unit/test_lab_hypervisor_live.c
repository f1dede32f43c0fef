/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_lab_hypervisor_live: the pure part of the hypervisor lab's live run: its
 * scenario table as the lab resolves it (names, knobs that hold together),
 * and how it takes the guest's frames (the file is included, as its frame
 * handling is static). The watchdog's schedstat reader is core/rt_task's
 * (test_rt_task).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "labs/lab_hypervisor.h"
#include "labs/lab_hypervisor_live.c"

/* Lesson 07's names are there, and each scenario's knobs make sense together. */
static void test_live_table(void **state)
{
	static const char *const lesson[] = {
		"host", "guest-idle", "guest-load", "vcpu-fifo", "io-low", "rt-host", "pv-hint",
		"guest-prio-low", "guest-prio-high", "fifo-stall", "io-high", NULL,
	};

	(void)state;
	assert_int_equal(hypervisor_live_nscenarios, 11);
	for (int i = 0; lesson[i]; i++) {
		bool found = false;

		for (unsigned int k = 0; k < hypervisor_live_nscenarios; k++)
			found = found || !strcmp(hypervisor_live_scenarios[k].name, lesson[i]);
		assert_true(found);
	}
	for (unsigned int k = 0; k < hypervisor_live_nscenarios; k++) {
		const struct hypervisor_live_scenario *s = &hypervisor_live_scenarios[k];

		/* An I/O thread above the host load sits below any vCPU priority allowed. */
		if (s->io_policy == SCHED_FIFO && !s->io_above)
			assert_true(s->io_prio > 0 && s->io_prio < 6 && s->vcpu_policy == SCHED_FIFO);
		if (s->io_above)
			assert_true(s->io_policy == SCHED_FIFO && s->vcpu_policy == SCHED_FIFO);
		/* Pinning is what makes the vCPU and QEMU's threads compete. */
		if (s->vcpu_policy == SCHED_FIFO)
			assert_true(s->pin);
		assert_true((s->guest_policy == SCHED_OTHER) == (s->guest_prio == 0));
		if (s->model_only || s->on_host)
			assert_int_equal(s->guest_load, 0);
	}
}

/* A scenario's run as guest_run() starts it, with a histogram for the overflows. */
static void frame_fixture(struct hvl *h, struct hvl_run *r, struct hypervisor_params *p)
{
	memset(h, 0, sizeof(*h));
	memset(r, 0, sizeof(*r));
	hypervisor_params_init(p);
	p->duration_ms = 5000;
	h->p = p;
	h->name = "guest-idle";
	h->total = 1;
	r->hist = rt_hist_new(HVL_HIST_US, 16);
	assert_non_null(r->hist);
}

static struct rt_hvstream_frame summary(uint32_t second, uint64_t samples, uint64_t overflows)
{
	struct rt_hvstream_frame f = { .type = RT_HVSTREAM_SUMMARY };

	f.u.summary = (struct rt_hvstream_summary){ .second = second, .samples = samples,
		.min_ns = 3000, .avg_ns = 9000, .max_ns = 20000000, .overflows = overflows };
	return f;
}

/*
 * A SUMMARY frame stands for one second of the probe: its samples beyond the guest's
 * buckets go into the histogram one by one, so a frame counting more than a second can
 * hold (a hostile guest's 2^64) is refused at once, not looped over for ever.
 */
static void test_summary_bounded(void **state)
{
	struct hypervisor_params p;
	struct rt_hvstream_frame f;
	struct hvl_run r;
	struct hvl h;

	(void)state;
	frame_fixture(&h, &r, &p);
	f = summary(0, 1000, 3);
	take_frame(&r, &f, &h);
	assert_false(r.bad_summary);
	assert_int_equal(r.samples, 1000);
	assert_int_equal(r.overflows, 3);
	assert_int_equal(rt_hist_count(r.hist), 3);

	alarm(10);	/* before the bound: a loop of 2^64 histogram adds, killed here */
	f = summary(1, UINT64_MAX, UINT64_MAX);
	take_frame(&r, &f, &h);
	alarm(0);
	assert_true(r.bad_summary);
	assert_int_equal(r.samples, 1000);
	assert_int_equal(r.seconds, 1);
	assert_int_equal(rt_hist_count(r.hist), 3);

	/* More overflows than samples is no second of the probe either. */
	r.bad_summary = false;
	f = summary(2, 10, 11);
	take_frame(&r, &f, &h);
	assert_true(r.bad_summary);
	assert_int_equal(r.samples, 1000);
	rt_hist_free(r.hist);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_table),
		cmocka_unit_test(test_summary_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
