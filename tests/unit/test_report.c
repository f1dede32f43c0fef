/* SPDX-License-Identifier: GPL-2.0-or-later */
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
#include "core/rt_hist.h"
#include "core/rt_result.h"
#include "report/report.h"

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
		"# Thread 0 is idle-other\n"
		"# Thread 1 is load-fifo\n"
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
	assert_non_null(strstr(s, "<h2>Scenarios (all threads merged)</h2>"));
	rt_buf_fini(&b);
	rt_result_free(res);
}

/*
 * Percentiles in the HTML come from the histograms: above the 1 us buckets
 * with the resolution (rtlab.result/2), "beyond" the bound where a document
 * has no overflow buckets (/1). Views are tables with their units.
 */
static void test_html_percentiles_and_views(void **state)
{
	static const uint64_t c[4] = { 10, 80, 8, 1 };
	static const struct rt_result_range over[] = { { 2000, 2016, 0 }, { 2304, 2368, 1 } };
	struct rt_result *res = make_doc("host");
	struct rt_result_hist h = { .name = "tail", .unit = "us", .bucket_width = 1,
				    .first_bucket = 1996, .counts = c, .nbuckets = 4,
				    .overflow_count = 1, .overflow_buckets = over + 1,
				    .n_overflow_buckets = 1 };
	struct rt_buf b = RT_BUF_INIT;
	const char *s;

	(void)state;
	assert_int_equal(rt_result_add_histogram(res, &h), 0);
	assert_int_equal(rt_result_add_view(res, json_pack("{s:s, s:s, s:[{s:s}, {s:s, s:s}], "
		"s:[[s, i], [s, n], [s, s]]}", "name", "t", "title", "Worst <cases>", "columns", "name",
		"scenario", "name", "max", "unit", "us", "rows", "a&b", 12, "c", "d",
		"40 " RT_HIST_FEW_MARK), NULL), 0);
	assert_int_equal(report_html(res, &b), 0);
	s = rt_buf_str(&b);
	/* load-fifo: 5053 samples, the last 2 above 5 us in no bucket: p99.99 is beyond. */
	assert_non_null(strstr(s, "<tr><td>load-fifo</td><td>us</td><td>2</td><td>4</td>"
			       "<td>4</td><td>4</td><td>4</td><td>beyond 5</td></tr>"));
	/* tail: 100 samples, p99 in [1999, 2000), p99.9 in the [2304, 2368) bucket. */
	assert_non_null(strstr(s, "<tr><td>tail</td><td>us</td><td>1</td><td>1998</td>"
			       "<td>1998</td><td>2000</td><td>2368 (res. 64)</td>"
			       "<td>2368 (res. 64)</td></tr>"));
	assert_non_null(strstr(s, "<h2>Worst &lt;cases&gt;</h2>"));
	assert_non_null(strstr(s, "<th>scenario</th><th>max (us)</th>"));
	assert_non_null(strstr(s, "<tr><td>a&amp;b</td><td>12</td></tr>"));
	assert_non_null(strstr(s, "<tr><td>c</td><td>-</td></tr>"));
	/* A percentile on too few samples is styled weak, as the TUI dims it. */
	assert_non_null(strstr(s, "<tr><td>d</td><td class=\"weak\">40 (few samples)</td></tr>"));
	assert_non_null(strstr(s, ".weak{"));
	rt_buf_fini(&b);
	rt_result_free(res);
}

/* ---- Hostile documents: bounded work whatever the numbers say ---------------- */

/* The longest run of digits in @s: a 300-digit coordinate would show here. */
static size_t longest_digits(const char *s)
{
	size_t best = 0, run = 0;

	for (; *s; s++) {
		run = (*s >= '0' && *s <= '9') ? run + 1 : 0;
		if (run > best)
			best = run;
	}
	return best;
}

/* Points in the first polyline of @s. */
static size_t polyline_points(const char *s)
{
	const char *p = strstr(s, "<polyline"), *end;
	size_t n = 0;

	assert_non_null(p);
	p = strstr(p, "points=\"");
	assert_non_null(p);
	p += 8;
	end = strchr(p, '"');
	assert_non_null(end);
	for (; p < end; p++)
		n += *p == ',';
	return n;
}

/* All three writers on @res within a deadline, with bounded output. */
static void draw_bounded(const struct rt_result *res, const char *what)
{
	struct rt_buf b = RT_BUF_INIT;
	int ret;

	/* A writer that loops forever is killed by SIGALRM (60 s: slow under load is fine). */
	alarm(60);
	ret = report_svg(res, true, &b);
	if (ret != 0 && ret != -ENODATA)
		fail_msg("%s: report_svg returned %d", what, ret);
	if (b.len > 256 * 1024 || longest_digits(rt_buf_str(&b)) > 16 ||
	    !xml_balanced(rt_buf_str(&b)))
		fail_msg("%s: SVG of %zu bytes, a number of %zu digits", what, b.len,
			 longest_digits(rt_buf_str(&b)));
	rt_buf_reset(&b);
	assert_int_equal(report_html(res, &b), 0);
	if (b.len > 512 * 1024 || longest_digits(rt_buf_str(&b)) > 20)
		fail_msg("%s: HTML of %zu bytes, a number of %zu digits", what, b.len,
			 longest_digits(rt_buf_str(&b)));
	rt_buf_reset(&b);
	ret = report_cyclictest_hist(res, &b);
	if (ret != 0 && ret != -ENODATA)
		fail_msg("%s: report_cyclictest_hist returned %d", what, ret);
	alarm(0);
	rt_buf_fini(&b);
}

/*
 * Numbers the validator refuses, put into the document behind its back (as
 * rt_result_json() allows): the writers must still finish, small, with short
 * numbers. Before the bounds, the first one looped forever, growing memory.
 */
static void test_hostile_unvalidated(void **state)
{
	static const struct {
		const char *field, *value;
	} hostile[] = {
		{ "bucket_width", "1e308" },
		{ "first_bucket", "-1e300" },
		{ "first_bucket", "1e300" },
		{ "bucket_width", "1e-300" },
		{ "bucket_width", "-5" },
		{ "bucket_width", "0" },
		{ "name", "7" },
		{ "unit", "null" },
		{ "counts", "{}" },
		{ "overflow_count", "\"many\"" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		struct rt_result *res = make_doc("host");
		json_t *h = json_array_get(json_object_get(rt_result_json(res), "histograms"), 1);
		json_t *v = json_loads(hostile[i].value, JSON_DECODE_ANY, NULL);
		json_t *sc = json_array_get(json_object_get(rt_result_extra(res), "scenarios"), 0);
		char what[64];

		assert_non_null(v);
		assert_int_equal(json_object_set_new(h, hostile[i].field, v), 0);
		/* The per-scenario numbers are not range-checked (extra is free-form). */
		json_object_set_new(sc, "max_us", json_real(1e300));
		json_object_set_new(sc, "percentiles", json_pack("{s:{s:f}}", "p99", "value_us",
								 -1e300));
		snprintf(what, sizeof(what), "%s %s", hostile[i].field, hostile[i].value);
		draw_bounded(res, what);
		rt_result_free(res);
	}
}

/*
 * The extremes the validator lets through: the widest buckets, the lowest
 * first bucket, a million buckets. One point per half pixel at most.
 */
static void test_hostile_in_range(void **state)
{
	static uint64_t one[1] = { 1 };
	uint64_t *many = calloc(RT_RESULT_MAX_BUCKETS, sizeof(*many));
	struct rt_env env = { .cpus = 1 };
	struct rt_result *res = rt_result_new("latency", "host", &env);
	struct rt_result_hist h = { .name = "wide", .unit = "s", .bucket_width = 1e6,
				    .first_bucket = -1e9, .counts = many, .nbuckets = 1000 };
	struct rt_buf b = RT_BUF_INIT;

	(void)state;
	assert_non_null(many);
	for (size_t i = 0; i < RT_RESULT_MAX_BUCKETS; i++)
		many[i] = i % 7 + 1;
	assert_int_equal(rt_result_add_histogram(res, &h), 0);
	draw_bounded(res, "1000 buckets 1e6 s wide from -1e9 s");
	rt_result_free(res);

	res = rt_result_new("latency", "host", &env);
	h = (struct rt_result_hist){ .name = "many", .unit = "us", .bucket_width = 1,
				     .counts = many, .nbuckets = RT_RESULT_MAX_BUCKETS };
	assert_int_equal(rt_result_add_histogram(res, &h), 0);
	draw_bounded(res, "a million 1 us buckets");
	assert_int_equal(report_svg(res, true, &b), 0);
	assert_true(polyline_points(rt_buf_str(&b)) <= 2 * 800 + 1);

	/* cyclictest's layout prints rows times columns: refused past 4 million cells. */
	for (int c = 0; c < 4; c++) {
		char name[16];

		snprintf(name, sizeof(name), "one%d", c);
		h = (struct rt_result_hist){ .name = name, .unit = "us", .bucket_width = 1,
					     .counts = one, .nbuckets = 1 };
		assert_int_equal(rt_result_add_histogram(res, &h), 0);
	}
	rt_buf_reset(&b);
	assert_int_equal(report_cyclictest_hist(res, &b), -E2BIG);
	rt_buf_fini(&b);
	rt_result_free(res);
	free(many);
}

/* A document without views is given its lab's views, then the predictions view. */
static void test_views_from_lab(void **state)
{
	struct rt_result *res = make_doc("host");
	json_t *views = NULL, *preds;
	char *cause = NULL;

	(void)state;
	preds = json_pack("[{s:s, s:s, s:s, s:s, s:s, s:f, s:f}]", "lesson", "03", "id", "q",
			  "scenario", "load-fifo", "metric", "max_us", "unit", "us",
			  "predicted", 100.0, "measured", 812.0);
	json_object_set_new(rt_result_extra(res), "predictions", preds);
	assert_int_equal(report_views(res, NULL, &views, &cause), 0);
	assert_string_equal(json_string_value(json_object_get(json_array_get(views, 0), "name")),
			    "scenarios");
	assert_string_equal(json_string_value(json_object_get(json_array_get(views,
		json_array_size(views) - 1), "name")), "predictions");
	/* 812 against a guess of 100: more than twice it */
	assert_string_equal(json_string_value(json_array_get(json_array_get(json_object_get(
		json_array_get(views, json_array_size(views) - 1), "rows"), 0), 5)),
		"far above your guess");
	json_decref(views);
	rt_result_free(res);
}

/* The verdict of @pred against @meas in @unit, as the predictions view gives it. */
static char *verdict_of(const char *tier, const char *unit, double pred, double meas,
			char **title, char **column)
{
	struct rt_result *res = make_doc(tier);
	json_t *view = NULL;
	char *v;

	json_object_set_new(rt_result_extra(res), "predictions",
			    json_pack("[{s:s, s:s, s:s, s:s, s:s, s:f, s:f}]", "lesson", "10",
				      "id", "q", "scenario", "greedy", "metric", "m", "unit", unit,
				      "predicted", pred, "measured", meas));
	assert_int_equal(report_predictions_view(res, &view), 0);
	v = strdup(json_string_value(json_array_get(json_array_get(json_object_get(view,
		"rows"), 0), 5)));
	if (title)
		*title = strdup(json_string_value(json_object_get(view, "title")));
	if (column)
		*column = strdup(json_string_value(json_object_get(json_array_get(
			json_object_get(view, "columns"), 3), "name")));
	json_decref(view);
	rt_result_free(res);
	return v;
}

/*
 * A ratio in [1/n, 1] or a percentage has no room for a factor of two: 0.5
 * against 0.92 was "close". They get an absolute band (0.1, 10 points) and
 * the difference; times and counts keep the factor of two.
 */
static void test_prediction_verdict_units(void **state)
{
	static const struct {
		const char *unit;
		double pred, meas;
		const char *want;
	} cases[] = {
		{ "ratio", 0.50, 0.92, "0.42 above your guess" },
		{ "ratio", 0.25, 0.50, "0.25 above your guess" },
		{ "ratio", 0.90, 0.60, "0.30 below your guess" },
		{ "ratio", 0.85, 0.92, "close to your guess (0.07 above)" },
		{ "ratio", 0.92, 0.92, "exactly your guess" },
		{ "pct", 20, 45, "25 points above your guess" },
		{ "pct", 50, 42, "close to your guess (8 points below)" },
		{ "us", 300, 165, "close to your guess" },
		{ "us", 100, 812, "far above your guess" },
		{ "count", 10, 4, "far below your guess" },
	};
	char *title = NULL, *column = NULL, *v;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		v = verdict_of("host", cases[i].unit, cases[i].pred, cases[i].meas, NULL, NULL);
		if (strcmp(v, cases[i].want))
			fail_msg("%s %g against %g: \"%s\", not \"%s\"", cases[i].unit,
				 cases[i].pred, cases[i].meas, v, cases[i].want);
		free(v);
	}
	/* A simulated run is a model, not a measurement of this machine. */
	free(verdict_of("host", "us", 1, 1, &title, &column));
	assert_string_equal(title, "Your predictions (from the lessons) against the measurement");
	assert_string_equal(column, "measured");
	free(title);
	free(column);
	free(verdict_of("simulation", "us", 1, 1, &title, &column));
	assert_string_equal(title, "Your predictions (from the lessons) against the model");
	assert_string_equal(column, "simulated");
	free(title);
	free(column);
}

/* A document saved with views is drawn as saved; the text has titles, rows and notes. */
static void test_views_saved_and_text(void **state)
{
	struct rt_result *res = make_doc("host");
	struct rt_buf b = RT_BUF_INIT;
	json_t *views = NULL;
	char *cause = NULL;

	(void)state;
	assert_int_equal(rt_result_add_view(res, json_pack("{s:s, s:s, s:[{s:s}, {s:s, s:s}], "
		"s:[[s, f], [s, n]]}", "name", "mine", "title", "My table", "columns", "name",
		"what", "name", "value", "unit", "us", "rows", "first", 1.5, "second\x1b"),
		&cause), 0);
	assert_int_equal(report_views(res, NULL, &views, &cause), 0);
	assert_int_equal(json_array_size(views), 1);
	json_decref(views);
	assert_int_equal(report_text(res, &b), 0);
	assert_non_null(strstr(rt_buf_str(&b), "My table\n  what        value (us)\n"));
	assert_non_null(strstr(rt_buf_str(&b), "  first             1.50\n"));
	/* a control character is escaped (and counted as shown), a missing value is "-" */
	assert_non_null(strstr(rt_buf_str(&b), "  second\\x1b           -\n"));
	assert_non_null(strstr(rt_buf_str(&b), "note: a note with <markup>"));
	rt_buf_fini(&b);
	rt_result_free(res);
}

/* With several scenarios the merged summary comes after them, and says it is merged. */
static void test_html_summary_merged(void **state)
{
	struct rt_result *res = make_doc("host");
	struct rt_buf b = RT_BUF_INIT;
	const char *s, *scen, *sum;

	(void)state;
	json_array_append_new(rt_result_scenarios(res), json_pack("{s:s}", "name", "idle-other"));
	assert_int_equal(report_html(res, &b), 0);
	s = rt_buf_str(&b);
	assert_null(strstr(s, "<h2>Summary</h2>"));
	sum = strstr(s, "<h2>Summary of all 2 scenarios merged");
	scen = strstr(s, "<h2>Scenarios (all threads merged)</h2>");
	assert_non_null(sum);
	assert_non_null(scen);
	assert_true(scen < sum);
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
		cmocka_unit_test(test_html_percentiles_and_views),
		cmocka_unit_test(test_hostile_unvalidated),
		cmocka_unit_test(test_hostile_in_range),
		cmocka_unit_test(test_views_from_lab),
		cmocka_unit_test(test_prediction_verdict_units),
		cmocka_unit_test(test_html_summary_merged),
		cmocka_unit_test(test_views_saved_and_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
