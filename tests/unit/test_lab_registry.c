/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the lab registry: names unique and stable, lookup works. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <string.h>

#include "labs/lab.h"

static void test_names_unique_and_wellformed(void **state)
{
	size_t n = 0;

	(void)state;
	for (const struct lab_ops *const *a = lab_table; *a; a++, n++) {
		const struct lab_ops *l = *a;

		assert_non_null(l->name);
		assert_non_null(l->title);
		assert_non_null(l->summary);
		for (const char *c = l->name; *c; c++)
			assert_true(islower((unsigned char)*c) || isdigit((unsigned char)*c) ||
				    *c == '-');
		for (const struct lab_ops *const *b = a + 1; *b; b++)
			assert_string_not_equal(l->name, (*b)->name);
		assert_ptr_equal(lab_find(l->name), l);
		/* A planned lab names the issue that builds it and has no run(). */
		if (l->state == LAB_STATE_PLANNED)
			assert_null(l->run);
		else
			assert_non_null(l->run);
		/* Simulation-only labs must have a simulated form and need nothing. */
		if (l->sim_only) {
			assert_true(l->sim);
			assert_int_equal(l->needs, 0);
		}
		/* A model is run by a lab with a simulated form. */
		if (l->model)
			assert_true(l->sim);
		assert_true(l->needs < (1u << LAB_NEED_COUNT));
		assert_true(l->wants < (1u << LAB_NEED_COUNT));
	}
	/* No count of labs here: the set is the registry's (tests/cli/recipe.t adds one). */
	assert_true(n >= 1);
	for (n = 0; lab_names()[n]; n++)
		assert_ptr_equal(lab_find(lab_names()[n]), lab_table[n]);
	assert_null(lab_table[n]);
}

static void test_find(void **state)
{
	(void)state;
	assert_non_null(lab_find("latency"));
	assert_non_null(lab_find("fcse"));
	assert_null(lab_find("Latency"));
	assert_null(lab_find(""));
	assert_string_equal(lab_state_name(LAB_STATE_PLANNED), "planned");
	assert_string_equal(lab_state_name(LAB_STATE_READY), "ready");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_unique_and_wellformed),
		cmocka_unit_test(test_find),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
