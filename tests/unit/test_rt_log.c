/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for rt_log: sinks, levels, formatting, truncation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/rt_log.h"

struct capture {
	int calls;
	enum rt_log_level level;
	char msg[2048];
};

static void capture_sink(void *priv, enum rt_log_level level, const char *msg)
{
	struct capture *c = priv;

	c->calls++;
	c->level = level;
	strncpy(c->msg, msg, sizeof(c->msg) - 1);
}

static void test_sink_and_levels(void **state)
{
	struct capture c = { 0 };

	(void)state;
	rt_log_set_sink(capture_sink, &c);
	rt_log_set_level(RT_LOG_INFO);
	rt_log(RT_LOG_WARN, "tracer %s missing (%d)", "irqsoff", 3);
	assert_int_equal(c.calls, 1);
	assert_int_equal(c.level, RT_LOG_WARN);
	assert_string_equal(c.msg, "tracer irqsoff missing (3)");

	rt_log(RT_LOG_DEBUG, "hidden");
	assert_int_equal(c.calls, 1);
	rt_log_set_level(RT_LOG_DEBUG);
	assert_int_equal(rt_log_get_level(), RT_LOG_DEBUG);
	rt_log(RT_LOG_DEBUG, "shown");
	assert_int_equal(c.calls, 2);
	assert_string_equal(c.msg, "shown");

	rt_log_set_level(RT_LOG_ERR);
	rt_log(RT_LOG_WARN, "dropped");
	assert_int_equal(c.calls, 2);
	rt_log_set_level(RT_LOG_INFO);
	rt_log_set_sink(NULL, NULL);
}

static void test_long_message_truncated(void **state)
{
	struct capture c = { 0 };
	char big[4000];

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	rt_log_set_sink(capture_sink, &c);
	rt_log(RT_LOG_ERR, "%s", big);
	assert_int_equal(c.calls, 1);
	assert_int_equal(strlen(c.msg), 1023);
	rt_log_set_sink(NULL, NULL);
}

static void test_level_names(void **state)
{
	(void)state;
	assert_string_equal(rt_log_level_name(RT_LOG_ERR), "error");
	assert_string_equal(rt_log_level_name(RT_LOG_WARN), "warning");
	assert_string_equal(rt_log_level_name(RT_LOG_INFO), "info");
	assert_string_equal(rt_log_level_name(RT_LOG_DEBUG), "debug");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sink_and_levels),
		cmocka_unit_test(test_long_message_truncated),
		cmocka_unit_test(test_level_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
