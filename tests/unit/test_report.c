/*
 * Unit tests for the report writers on a hand-built document: the SVG is
 * well formed (checked by a small tag-balance parser here, and by xmllint
 * when it is installed), log-scaled and labelled "SIMULATED" only for a
 * simulation; the cyclictest histogram has cyclictest's layout to the byte
 * on known counts; the HTML holds the SVG and refers to nothing outside.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/rt_buf.h"
#include "core/rt_env.h"
#include "core/rt_result.h"
#include "grade/report.h"

static struct rt_result *make_doc(const char *tier)
{
	struct rt_env env = { .kernel_release = "6.1.0", .kernel_version = "#1 <SMP>",
			      .machine = "x86_64", .preempt_model = "voluntary", .cpus = 2 };
	static const uint64_t a[5] = { 0, 10, 1000, 3, 0 }, b[5] = { 0, 0, 50, 5000, 1 };
	static const uint64_t cyc[2] = { 17, 99 };
	struct rt_result_hist h = { .name = "idle-other", .unit = "us", .bucket_width = 1,
				    .counts = a, .nbuckets = 5 };
	struct rt_result *res = rt_result_new("latency", tier, &env);
	json_t *scens;

	assert_non_null(res);
	assert_int_equal(rt_result_add_histogram(res, &h), 0);
	h.name = "load-fifo";
	h.counts = b;
	h.overflow_count = 2;
	h.overflow_cycles = cyc;
	h.n_overflow_cycles = 2;
	assert_int_equal(rt_result_add_histogram(res, &h), 0);
	scens = json_pack("[{s:s, s:f, s:f, s:f}]", "name", "load-fifo", "min_us", 2.4,
			  "avg_us", 3.2, "max_us", 812.0);
	json_object_set_new(rt_result_extra(res), "scenarios", scens);
	assert_int_equal(rt_result_add_note(res, "a note with <markup> & \"quotes\""), 0);
	assert_int_equal(rt_result_set_summary(res, "p99_us", 3), 0);
	return res;
}

/* Tiny well-formedness check: tags balance, attributes are quoted. */
static bool xml_balanced(const char *s)
{
	const char *stack[64];
	size_t depth = 0;

	while ((s = strchr(s, '<'))) {
		const char *end = strchr(s, '>');
		size_t len;

		if (!end)
			return false;
		if (s[1] == '?' || s[1] == '!') {
			s = end + 1;
			continue;
		}
		if (s[1] == '/') {
			if (!depth)
				return false;
			len = strcspn(stack[depth - 1], " />");
			if (strncmp(stack[depth - 1], s + 2, len) || s[2 + len] != '>')
				return false;
			depth--;
		} else if (end[-1] != '/') {
			if (depth == 64)
				return false;
			stack[depth++] = s + 1;
		}
		for (const char *q = s; q < end; q++)
			if (*q == '=' && q[1] != '"')
				return false;
		s = end + 1;
	}
	return depth == 0;
}

static void test_svg(void **state)
{
	struct rt_result *res = make_doc("host");
	struct rt_buf b = RT_BUF_INIT;
	const char *s;

	(void)state;
	assert_int_equal(report_svg(res, true, &b), 0);
	s = rt_buf_str(&b);
	assert_true(!strncmp(s, "<?xml", 5));
	assert_non_null(strstr(s, "xmlns=\"http://www.w3.org/2000/svg\""));
	assert_true(xml_balanced(s));
	assert_non_null(strstr(s, ">idle-other<"));
	assert_non_null(strstr(s, ">load-fifo (2 above 5 us)<"));
	assert_non_null(strstr(s, "log scale"));
	assert_non_null(strstr(s, ">1000<"));	/* a decade tick: counts reach 5000 */
	assert_non_null(strstr(s, ">latency (us)"));
	assert_null(strstr(s, "SIMULATED"));
	assert_int_equal(strstr(s, "<polyline") != NULL, 1);

	if (access("/usr/bin/xmllint", X_OK) == 0) {
		char path[] = "/tmp/test_report.XXXXXX", cmd[128];
		int fd = mkstemp(path);

		assert_true(fd >= 0);
		assert_int_equal(write(fd, s, b.len), (ssize_t)b.len);
		close(fd);
		snprintf(cmd, sizeof(cmd), "/usr/bin/xmllint --noout %s", path);
		assert_int_equal(system(cmd), 0);
		unlink(path);
	}
	rt_buf_fini(&b);
	rt_result_free(res);

	res = make_doc("simulation");
	assert_int_equal(report_svg(res, false, &b), 0);
	assert_non_null(strstr(rt_buf_str(&b), "SIMULATED"));
	assert_null(strstr(rt_buf_str(&b), "http"));
	assert_true(xml_balanced(rt_buf_str(&b)));
	rt_buf_fini(&b);
	rt_result_free(res);
}

static void test_no_histogram(void **state)
{
	struct rt_env env = { .cpus = 1 };
	struct rt_result *res = rt_result_new("latency", "host", &env);
	struct rt_buf b = RT_BUF_INIT;

	(void)state;
	assert_int_equal(report_svg(res, true, &b), -ENODATA);
	assert_int_equal(report_cyclictest_hist(res, &b), -ENODATA);
	assert_int_equal(report_html(res, &b), 0);
	assert_non_null(strstr(rt_buf_str(&b), "No histogram"));
	rt_buf_fini(&b);
	rt_result_free(res);
}

static void test_cyclictest_hist(void **state)
{
	static const char want[] =
		"# Columns: idle-other load-fifo\n"
		"# Histogram\n"
		"000000 000000\t000000\n"
		"000001 000010\t000000\n"
		"000002 001000\t000050\n"
		"000003 000003\t005000\n"
		"000004 000000\t000001\n"
		"# Total: 000001013 000005051\n"
		"# Min Latencies: 00001 00002\n"
		"# Avg Latencies: 00002 00003\n"
		"# Max Latencies: 00003 00812\n"
		"# Histogram Overflows: 00000 00002\n"
		"# Histogram Overflow at cycle number:\n"
		"# Thread 0:\n"
		"# Thread 1: 00017 00099\n";
	struct rt_result *res = make_doc("host");
	struct rt_buf b = RT_BUF_INIT;

	(void)state;
	assert_int_equal(report_cyclictest_hist(res, &b), 0);
	assert_string_equal(rt_buf_str(&b), want);
	rt_buf_fini(&b);
	rt_result_free(res);
}

static void test_html(void **state)
{
	struct rt_result *res = make_doc("host");
	struct rt_buf b = RT_BUF_INIT;
	const char *s;

	(void)state;
	assert_int_equal(report_html(res, &b), 0);
	s = rt_buf_str(&b);
	assert_true(!strncmp(s, "<!DOCTYPE html>", 15));
	assert_non_null(strstr(s, "<svg"));
	assert_non_null(strstr(s, "</svg>"));
	assert_non_null(strstr(s, "</html>"));
	/* Self-contained: nothing fetched from anywhere. */
	assert_null(strstr(s, "http"));
	assert_null(strstr(s, "src="));
	assert_null(strstr(s, "href="));
	assert_null(strstr(s, "<script"));
	assert_null(strstr(s, "@import"));
	/* Strings from the document are escaped. */
	assert_non_null(strstr(s, "a note with &lt;markup&gt; &amp; &quot;quotes&quot;"));
	assert_non_null(strstr(s, "#1 &lt;SMP&gt;"));
	assert_null(strstr(s, "<markup>"));
	assert_non_null(strstr(s, "<h2>Summary</h2>"));
	assert_non_null(strstr(s, "<h2>Scenarios</h2>"));
	rt_buf_fini(&b);
	rt_result_free(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_svg),
		cmocka_unit_test(test_no_histogram),
		cmocka_unit_test(test_cyclictest_hist),
		cmocka_unit_test(test_html),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
