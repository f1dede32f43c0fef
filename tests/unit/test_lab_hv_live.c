/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_lab_hv_live: the pure part of the hypervisor lab's live run: its
 * scenario table as the lab resolves it (names, knobs that hold together).
 * The watchdog's schedstat reader is core/rt_task's (test_rt_task).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <sched.h>
#include <string.h>

#include "labs/lab_hv.h"

/* Lesson 07's names are there, and each scenario's knobs make sense together. */
static void test_live_table(void **state)
{
	static const char *const lesson[] = {
		"host", "guest-idle", "guest-load", "vcpu-fifo", "io-low", "rt-host", "pv-hint",
		"guest-prio-low", "guest-prio-high", "fifo-stall", "io-high", NULL,
	};

	(void)state;
	assert_int_equal(hv_live_nscenarios, 11);
	for (int i = 0; lesson[i]; i++) {
		bool found = false;

		for (unsigned int k = 0; k < hv_live_nscenarios; k++)
			found = found || !strcmp(hv_live_scenarios[k].name, lesson[i]);
		assert_true(found);
	}
	for (unsigned int k = 0; k < hv_live_nscenarios; k++) {
		const struct hv_live_scenario *s = &hv_live_scenarios[k];

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
