/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the latency lab's kernel-side scenarios (lab_latency_kside):
 * the scenario table (the interrupt thread above and below the probe, the
 * two locks, the spinner), what a host without the rtlab_inject module is
 * told, a writer that asks a stand-in module file for sections and records
 * them, and the spinner's refusal to run with the RT throttle off and no
 * journal to switch it on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/rt_file.h"
#include "labs/lab.h"
#include "labs/lab_latency.h"
#include "labs/lab_latency_kside.h"

static void test_table(void **state)
{
	const struct latency_scenario *above = latency_scenario_find("irqthread-above");
	const struct latency_scenario *below = latency_scenario_find("irqthread-below");
	const struct latency_scenario *s;

	(void)state;
	assert_non_null(above);
	assert_non_null(below);
	assert_int_equal(above->kside, LATENCY_KSIDE_IRQ_THREAD);
	assert_int_equal(below->kside, LATENCY_KSIDE_IRQ_THREAD);
	assert_true(above->irq_priority > LATENCY_DEFAULT_PRIORITY);
	assert_true(below->irq_priority < LATENCY_DEFAULT_PRIORITY && below->irq_priority > 0);
	assert_int_equal(latency_scenario_find("hardirq")->kside, LATENCY_KSIDE_HARDIRQ);
	assert_int_equal(latency_scenario_find("lock-raw")->kside, LATENCY_KSIDE_LOCK_RAW);
	assert_int_equal(latency_scenario_find("lock-sleeping")->kside,
			 LATENCY_KSIDE_LOCK_SLEEPING);
	s = latency_scenario_find("fifo99-spinner");
	assert_true(s->spinner && s->kside == LATENCY_KSIDE_IRQ_THREAD && !s->irq_priority);
	assert_int_equal(latency_scenario_find("idle-fifo")->kside, LATENCY_KSIDE_NONE);
	assert_string_equal(latency_kside_file(LATENCY_KSIDE_LOCK_SLEEPING), "spinlock_us");
	assert_null(latency_kside_file(LATENCY_KSIDE_NONE));
	/* 8 a second stays below the module's 10. */
	assert_true(1000 / LATENCY_KSIDE_PERIOD_MS < 10 && 1000 / LATENCY_KSIDE_BURST_PERIOD_MS < 10);
}

/* A plan for scenario @name, as the option parser makes it. */
static void plan_of(const char *name, struct latency_plan *pl)
{
	struct latency_params p;
	char *argv[] = { "latency", "--scenario", (char *)name, NULL };
	char *cause = NULL;

	assert_int_equal(latency_params_parse(3, argv, &p, &cause), 0);
	*pl = p.plan[0];
}

static void mkfile(const char *root, const char *rel, const char *text)
{
	char path[PATH_MAX + 128];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	assert_int_equal(rt_file_write_atomic(path, text, strlen(text), 0600, NULL), 0);
}

static void mkroot(char *root, size_t size)
{
	char path[PATH_MAX + 128];

	snprintf(root, size, "/tmp/rtlab-kside-XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s" LATENCY_KSIDE_DIR, root);
	assert_int_equal(rt_mkdir_p(path, 0700), 0);
}

static void rmroot(const char *root)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

static void test_missing(void **state)
{
	struct latency_plan pl;
	char root[PATH_MAX], *cause = NULL;

	(void)state;
	plan_of("irqthread-above", &pl);
	assert_int_equal(latency_kside_check(&pl, "/nonexistent-root", &cause), -ENOTSUP);
	assert_non_null(strstr(cause, "irqthread-above needs the rtlab_inject kernel module"));
	assert_non_null(strstr(cause, "make kmod"));
	assert_non_null(strstr(cause, "rtlab vm run"));
	free(cause);
	cause = NULL;

	/* A module of before the interrupts: its directory, not the file. */
	mkroot(root, sizeof(root));
	mkfile(root, LATENCY_KSIDE_DIR "/irqsoff_us", "");
	assert_int_equal(latency_kside_check(&pl, root, &cause), -ENOTSUP);
	assert_non_null(strstr(cause, "older"));
	assert_non_null(strstr(cause, "irq_thread_us"));
	free(cause);
	cause = NULL;
	mkfile(root, LATENCY_KSIDE_DIR "/irq_thread_us", "");
	if (geteuid() == 0 || access(root, W_OK) == 0)
		assert_int_equal(latency_kside_check(&pl, root, &cause), 0);
	/* A scenario without a kernel side needs nothing. */
	plan_of("idle-fifo", &pl);
	assert_int_equal(latency_kside_check(&pl, "/nonexistent-root", &cause), 0);
	rmroot(root);
}

/* The writer asks for sections at 8 a second and the record counts them. */
static void test_writer(void **state)
{
	struct lab_ctx ctx = { 0 };
	struct latency_kside_run r;
	struct latency_plan pl;
	char root[PATH_MAX], *cause = NULL;
	json_t *o = json_object();

	(void)state;
	mkroot(root, sizeof(root));
	mkfile(root, LATENCY_KSIDE_DIR "/raw_spinlock_us", "");
	plan_of("lock-raw", &pl);
	assert_int_equal(latency_kside_start(&ctx, &r, &pl, root, &cause), 0);
	usleep(3 * LATENCY_KSIDE_PERIOD_MS * 1000 + 50000);
	latency_kside_stop(&r);
	latency_kside_stop(&r);		/* idempotent */
	assert_int_equal(latency_kside_record(o, &r), 0);
	assert_string_equal(json_string_value(json_object_get(o, "kside")), "raw_spinlock");
	assert_int_equal(json_integer_value(json_object_get(o, "inject_section_us")),
			 LATENCY_KSIDE_SECTION_US);
	assert_true(json_integer_value(json_object_get(o, "inject_sections_count")) >= 2);
	assert_null(json_object_get(o, "irq_thread_priority"));
	json_decref(o);
	rmroot(root);
}

/* Myth 7's spinner: the throttle off and no journal to switch it on is a refusal. */
static void test_spinner_guard(void **state)
{
	struct lab_ctx ctx = { 0 };
	struct latency_kside_run r;
	struct latency_plan pl;
	char root[PATH_MAX], *cause = NULL;

	(void)state;
	mkroot(root, sizeof(root));
	mkfile(root, LATENCY_KSIDE_DIR "/irq_thread_us", "");
	plan_of("fifo99-spinner", &pl);
	pl.kside = LATENCY_KSIDE_LOCK_RAW;	/* no interrupt thread in a fixture */
	mkfile(root, LATENCY_KSIDE_DIR "/raw_spinlock_us", "");
	{
		char path[PATH_MAX + 64];

		snprintf(path, sizeof(path), "%s/proc/sys/kernel", root);
		assert_int_equal(rt_mkdir_p(path, 0700), 0);
	}
	mkfile(root, "/proc/sys/kernel/sched_rt_runtime_us", "-1\n");
	assert_int_equal(latency_kside_start(&ctx, &r, &pl, root, &cause), -EPERM);
	assert_non_null(strstr(cause, "RT throttle is off"));
	assert_non_null(strstr(cause, "no undo journal"));
	assert_false(r.spinner_up);
	free(cause);
	latency_kside_stop(&r);
	rmroot(root);
}

/* The view "kernel-side": a row per kernel-side scenario, none for the others. */
static void test_view(void **state)
{
	json_t *scens = json_pack("[{s:s, s:f}, {s:s, s:s, s:i, s:i, s:i, s:f, s:f}, "
				  "{s:s, s:s, s:i, s:i, s:f}]",
				  "name", "idle-fifo", "max_us", 5.0,
				  "name", "irqthread-above", "kside", "irq_thread",
				  "inject_section_us", 2000, "inject_sections_count", 40,
				  "irq_thread_priority", 95, "irq_thread_delay_max_us", 3.0,
				  "max_us", 1120.5,
				  "name", "lock-raw", "kside", "raw_spinlock",
				  "inject_section_us", 2000, "inject_sections_count", 40,
				  "max_us", 1101.0);
	json_t *views = json_array(), *rows, *row;

	(void)state;
	assert_int_equal(latency_kside_view(scens, views), 0);
	assert_int_equal(json_array_size(views), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(views, 0), "name")),
			    "kernel-side");
	rows = json_object_get(json_array_get(views, 0), "rows");
	assert_int_equal(json_array_size(rows), 2);
	row = json_array_get(rows, 0);
	assert_string_equal(json_string_value(json_array_get(row, 0)), "irqthread-above");
	assert_int_equal(json_integer_value(json_array_get(row, 4)), 95);
	row = json_array_get(rows, 1);
	assert_true(json_is_null(json_array_get(row, 4)));	/* no interrupt thread */
	assert_true(json_real_value(json_array_get(row, 6)) > 1100);
	json_decref(views);
	/* Without a kernel-side scenario there is no view. */
	views = json_array();
	json_array_remove(scens, 2);
	json_array_remove(scens, 1);
	assert_int_equal(latency_kside_view(scens, views), 0);
	assert_int_equal(json_array_size(views), 0);
	json_decref(views);
	json_decref(scens);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_writer),
		cmocka_unit_test(test_spinner_guard),
		cmocka_unit_test(test_view),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
