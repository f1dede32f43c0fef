/*
 * check_toy: the checks of the toy exercise, one cmocka test per check of
 * exercise.json. Each runs the subject through the harness and judges only
 * what it printed and how it ended.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtlab_check.h"

/* Run "subject CMD" on @input (a fixture path, or NULL and @data) and expect one line. */
static void run_expect(const char *cmd, const char *input, const char *data,
		       const char *want)
{
	const char *argv[] = { cmd, NULL };
	struct rtlab_run r = { 0 };
	struct rtlab_run_opts o = { .argv = argv, .stdin_path = input, .stdin_data = data,
				    .stdin_len = data ? strlen(data) : 0 };

	if (rtlab_run_subject(&o, &r))
		rtlab_fail("the subject could not be run: %s", r.reason);
	if (!rtlab_run_ok(&r)) {
		rtlab_check_reason("the subject did not finish normally: %s", r.reason);
		rtlab_run_fini(&r);
		fail();
	}
	if (strcmp(r.out, want)) {
		rtlab_check_reason("expected \"%.*s\", the subject printed \"%.*s\"",
				   (int)strcspn(want, "\n"), want, (int)strcspn(r.out, "\n"),
				   r.out);
		rtlab_run_fini(&r);
		fail();
	}
	rtlab_run_fini(&r);
}

static void sum(void **state)
{
	(void)state;
	run_expect("sum", rtlab_check_data("five.txt"), NULL, "sum 48\n");
}

static void sum_empty(void **state)
{
	(void)state;
	run_expect("sum", NULL, "", "sum 0\n");
}

static void max(void **state)
{
	(void)state;
	run_expect("max", rtlab_check_data("five.txt"), NULL, "max 40\n");
	run_expect("max", NULL, "-5 -3 -9", "max -3\n");
}

static void max_empty(void **state)
{
	(void)state;
	run_expect("max", NULL, "", "max error -22\n");
}

static void lock(void **state)
{
	const char *argv[] = { "lock", NULL };
	struct rtlab_run_opts o = { .argv = argv, .memlock_kb = 1024 * 1024 };
	struct rtlab_run r = { 0 };
	long kb;

	(void)state;
	if (rtlab_run_subject(&o, &r))
		rtlab_fail("the subject could not be run: %s", r.reason);
	kb = r.vmlck_kb;
	if (!rtlab_run_ok(&r) || strcmp(r.out, "lock 0\n")) {
		rtlab_check_reason("expected \"lock 0\" and a normal exit; got \"%.*s\", %s",
				   (int)strcspn(r.out, "\n"), r.out, r.reason);
		rtlab_run_fini(&r);
		fail();
	}
	rtlab_run_fini(&r);
	if (kb <= 0)
		rtlab_fail("toy_lock() returned 0 but the kernel reports VmLck %ld kB", kb);
}

static void sum_large(void **state)
{
	size_t n = 200000, len = 0;
	char *in = malloc(n * 3 + 1);
	char want[64];

	(void)state;
	assert_non_null(in);
	for (size_t i = 0; i < n; i++) {
		memcpy(in + len, "-1\n", 3);
		len += 3;
	}
	in[len] = '\0';
	snprintf(want, sizeof(want), "sum %ld\n", -(long)n);
	run_expect("sum", NULL, in, want);
	free(in);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(sum),
		cmocka_unit_test(sum_empty),
		cmocka_unit_test(max),
		cmocka_unit_test(max_empty),
		cmocka_unit_test(lock),
		cmocka_unit_test(sum_large),
	};

	return rtlab_check_main("toy", tests, sizeof(tests) / sizeof(tests[0]));
}
