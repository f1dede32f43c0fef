/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for rt_result: a built result survives write -> read
 * unchanged and renders to the same bytes; the setters refuse what the
 * schema refuses; every validator error names the exact JSON path of the
 * bad field; syntax errors carry line and column; oversized input is refused
 * before it can cost memory; rtlab.result/1 documents are still read (and
 * converted), /2's fields (overflow buckets, views, integrity) are checked,
 * and a document's histogram gives the same percentiles as the rt_hist it
 * was made from.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/rt_buf.h"
#include "core/rt_env.h"
#include "core/rt_file.h"
#include "core/rt_hist.h"
#include "core/rt_result.h"
#include "core/rt_version.h"

struct fixture {
	char dir[64];
	char path[128];
};

static struct rt_env test_env = {
	.kernel_release = "6.1.0-27-rt-amd64",
	.kernel_version = "#1 SMP PREEMPT_RT Debian 6.1.115-1 (2024-11-01)",
	.machine = "x86_64",
	.preempt_model = "rt",
	.preempt_source = "uname -v",
	.realtime = true,
	.sys_kernel_realtime = true,
	.in_vm = true,
	.vm_type = "KVM",
	.cpus = 2,
	.root = true,
};

/* What a front end passes (lab_names()): core itself knows no lab. */
static const char *const lab_list[] = { "latency", "ftrace", "hypervisor", "fcse", "nop",
					"cookie", NULL };
static const struct rt_result_opts known = { lab_list };

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	strcpy(f->dir, "/tmp/rtlab-test-result-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/result.json", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

/* A result using every part of the schema, with three histograms. */
static struct rt_result *full_result(void)
{
	static const uint64_t c0[] = { 0, 5, 120, 3000, 80, 7, 0, 1 };
	static const uint64_t c1[] = { 1, 2, 3 };
	static const uint64_t cycles[] = { 17, 4242 };
	static const struct rt_result_range over[] = { { 8, 9, 1 }, { 12, 16, 1 } };
	struct rt_result_hist h0 = {
		.name = "cpu0", .unit = "us", .bucket_width = 1, .first_bucket = 0,
		.counts = c0, .nbuckets = 8, .overflow_count = 2,
		.overflow_cycles = cycles, .n_overflow_cycles = 2,
		.overflow_buckets = over, .n_overflow_buckets = 2,
	};
	struct rt_result_hist h1 = {
		.name = "cpu1", .unit = "ns", .bucket_width = 0.5, .first_bucket = -1.25,
		.counts = c1, .nbuckets = 3,
	};
	struct rt_result_hist h2 = {
		.name = "all", .unit = "us", .bucket_width = 10, .first_bucket = 0,
		.counts = c0, .nbuckets = 8, .overflow_count = 0,
	};
	struct rt_result *res = rt_result_new("latency", "host", &test_env);
	json_t *extra, *threads;

	assert_non_null(res);
	assert_int_equal(rt_result_set_created(res, 1735689600), 0);	/* 2025-01-01 */
	assert_int_equal(rt_result_set_param_str(res, "load", "hackbench"), 0);
	assert_int_equal(rt_result_set_param_num(res, "interval_us", 1000), 0);
	assert_int_equal(rt_result_set_param_num(res, "duty", 0.1), 0);
	assert_int_equal(rt_result_set_param_bool(res, "mlock", true), 0);
	assert_int_equal(rt_result_set_param_json(res, "cpus", json_pack("[ii]", 0, 1)), 0);
	assert_int_equal(rt_result_set_summary(res, "p99_us", 12.3), 0);
	assert_int_equal(rt_result_set_summary(res, "max_us", 41), 0);
	assert_int_equal(rt_result_set_summary(res, "samples_count", 3215), 0);
	assert_int_equal(rt_result_set_summary(res, "miss_rate_pct", 0.0625), 0);
	assert_int_equal(rt_result_set_summary(res, "lost_count", 0), 0);
	assert_int_equal(rt_result_set_summary(res, "mean_ns", -3.5e-7), 0);
	assert_int_equal(rt_result_add_histogram(res, &h0), 0);
	assert_int_equal(rt_result_add_histogram(res, &h1), 0);
	assert_int_equal(rt_result_add_histogram(res, &h2), 0);
	assert_int_equal(rt_result_set_answer_str(res, "q1", "the timer \"softirq\"\n"), 0);
	assert_int_equal(rt_result_set_answer_num(res, "q2", 250), 0);
	assert_int_equal(rt_result_add_note(res, "measured as SCHED_OTHER: not root"), 0);
	extra = rt_result_extra(res);
	assert_non_null(extra);
	threads = json_pack("[{s:i,s:f},{s:i,s:f}]", "cpu", 0, "max_us", 41.5, "cpu", 1,
			    "max_us", 17.25);
	assert_non_null(threads);
	assert_int_equal(json_object_set_new(extra, "threads", threads), 0);
	assert_int_equal(rt_result_add_view(res, json_pack(
		"{s:s, s:s, s:[{s:s}, {s:s, s:s, s:s}, {s:s}], s:[[s, f, b], [s, n, b]]}",
		"name", "threads", "title", "Per thread",
		"columns", "name", "cpu", "name", "max", "title", "max latency", "unit", "us",
		"name", "pinned", "rows", "cpu0", 41.5, true, "cpu1", false), NULL), 0);
	assert_int_equal(rt_result_set_integrity(res, "sha256", "0123456789abcdef0123456789abcdef"
						 "0123456789abcdef0123456789abcdef"), 0);
	return res;
}

static void test_roundtrip(void **state)
{
	static const char head[] = "{\n  \"schema\": \"rtlab.result/2\",\n  \"lab\": \"latency\",\n"
		"  \"tier\": \"host\",\n  \"simulated\": false,\n"
		"  \"created\": \"2025-01-01T00:00:00Z\",\n";
	struct fixture *f = *state;
	struct rt_result *a = full_result(), *b = NULL;
	struct rt_result_hist h;
	char *cause = NULL, *sa, *sb, *file = NULL;
	const char *s;
	double d;
	bool flag;
	size_t i;

	assert_int_equal(rt_result_write(a, f->path, &cause), 0);
	assert_null(cause);
	assert_int_equal(rt_result_read(f->path, &known, &b, &cause), 0);
	assert_null(cause);
	/* Written sealed: the same document but for its integrity, which now matches. */
	assert_int_equal(rt_result_integrity_verify(b, NULL), 0);
	assert_int_equal(rt_result_integrity_verify(a, NULL), -EBADMSG);
	sa = rt_result_canonical_text(a, NULL);
	sb = rt_result_canonical_text(b, NULL);
	assert_string_equal(sa, sb);
	free(sa);
	free(sb);
	sa = rt_result_to_string_sealed(a, NULL);
	sb = rt_result_to_string(b, NULL);
	assert_non_null(sa);
	assert_non_null(sb);
	assert_string_equal(sa, sb);
	assert_int_equal(rt_file_read(f->path, 1 << 20, &file, NULL), 0);
	assert_string_equal(file, sa);

	/* Schema order at the top; shortest real text; one line for short arrays. */
	assert_true(strncmp(file, head, strlen(head)) == 0);
	assert_non_null(strstr(file, "\"p99_us\": 12.3,"));
	assert_non_null(strstr(file, "\"duty\": 0.1,"));
	assert_non_null(strstr(file, "\"counts\": [0, 5, 120, 3000, 80, 7, 0, 1],"));
	assert_non_null(strstr(file, "\"q1\": \"the timer \\\"softirq\\\"\\n\""));
	assert_non_null(strstr(file, "\"rtlab_version\": \"" RT_VERSION "\""));
	assert_non_null(strstr(file, "\"overflow_buckets\": [\n        [8, 9, 1],\n"
			       "        [12, 16, 1]\n      ],\n      \"overflow_cycles\""));
	assert_non_null(strstr(file, "\"views\": [\n    {\n      \"name\": \"threads\",\n"
			       "      \"title\": \"Per thread\",\n      \"columns\": ["));
	assert_non_null(strstr(file, "[\"cpu1\", null, false]"));
	/* integrity comes last, after extra */
	assert_true(strstr(file, "\"integrity\": {\n    \"algorithm\": \"sha256\",") >
		    strstr(file, "\"extra\""));
	assert_int_equal(rt_result_version(b), 2);

	assert_string_equal(rt_result_lab(b), "latency");
	assert_string_equal(rt_result_tier(b), "host");
	assert_false(rt_result_simulated(b));
	assert_string_equal(rt_result_created(b), "2025-01-01T00:00:00Z");
	assert_int_equal(rt_result_summary_get(b, "p99_us", &d), 0);
	assert_true(d == 12.3);
	assert_int_equal(rt_result_summary_get(b, "samples_count", &d), 0);
	assert_true(d == 3215);
	assert_int_equal(rt_result_summary_get(b, "mean_ns", &d), 0);
	assert_true(d == -3.5e-7);
	assert_int_equal(rt_result_summary_get(b, "p50_us", &d), -ENOENT);
	assert_int_equal(rt_result_param_str(b, "load", &s), 0);
	assert_string_equal(s, "hackbench");
	assert_int_equal(rt_result_param_num(b, "interval_us", &d), 0);
	assert_true(d == 1000);
	assert_int_equal(rt_result_param_bool(b, "mlock", &flag), 0);
	assert_true(flag);
	assert_int_equal(rt_result_param_num(b, "load", &d), -EINVAL);
	assert_int_equal(rt_result_answer_str(b, "q1", &s), 0);
	assert_string_equal(s, "the timer \"softirq\"\n");
	assert_int_equal(rt_result_answer_num(b, "q2", &d), 0);
	assert_true(d == 250);
	assert_int_equal(rt_result_answer_num(b, "q3", &d), -ENOENT);

	assert_int_equal(rt_result_hist_count(b), 3);
	assert_int_equal(rt_result_hist_find(b, "cpu1", &i), 0);
	assert_int_equal(i, 1);
	assert_int_equal(rt_result_hist_find(b, "cpu7", &i), -ENOENT);
	assert_int_equal(rt_result_hist_get(b, 0, &h), 0);
	assert_string_equal(h.name, "cpu0");
	assert_string_equal(h.unit, "us");
	assert_int_equal(h.nbuckets, 8);
	assert_int_equal(h.counts[3], 3000);
	assert_int_equal(h.overflow_count, 2);
	assert_int_equal(h.n_overflow_cycles, 2);
	assert_int_equal(h.overflow_cycles[1], 4242);
	assert_int_equal(h.n_overflow_buckets, 2);
	assert_true(h.overflow_buckets[1].lower == 12 && h.overflow_buckets[1].upper == 16);
	assert_int_equal(h.overflow_buckets[1].count, 1);
	rt_result_hist_fini(&h);
	assert_int_equal(rt_result_hist_get(b, 1, &h), 0);
	assert_true(h.bucket_width == 0.5 && h.first_bucket == -1.25);
	assert_null(h.overflow_cycles);
	rt_result_hist_fini(&h);
	assert_int_equal(rt_result_hist_get(b, 3, &h), -ENOENT);

	free(file);
	free(sa);
	free(sb);
	rt_result_free(a);
	rt_result_free(b);
}

/* The same content set in another order renders to the same bytes. */
/* The scenarios writer and the readers agree; a non-array is refused. */
static void test_set_scenarios(void **state)
{
	struct rt_result *res = rt_result_new("example", "simulation", &test_env);
	json_t *scens = json_pack("[{s:s, s:f}]", "name", "a", "max_us", 12.5);
	json_t *obj = json_object();

	(void)state;
	assert_non_null(res);
	assert_null(rt_result_scenarios(res));
	assert_int_equal(rt_result_set_scenarios(res, obj), -EINVAL);
	json_decref(obj);
	assert_int_equal(rt_result_set_scenarios(res, scens), 0);
	assert_ptr_equal(rt_result_scenarios(res), scens);	/* a reference, kept */
	assert_true(rt_result_scenario_num(res, "a", "max_us") == 12.5);
	assert_true(isnan(rt_result_scenario_num(res, "b", "max_us")));
	json_decref(scens);
	assert_non_null(rt_result_scenario(res, "a"));
	rt_result_free(res);
}

/* extra.predictions written and read back only through the typed functions. */
static void test_predictions(void **state)
{
	struct rt_result *res = rt_result_new("example", "simulation", &test_env);
	struct rt_result_prediction in = {
		.answer_key = "predict.03.p1", .lesson = "03", .id = "p1", .scenario = "a",
		.metric = "max_us", .unit = "us", .predicted = 40, .measured = NAN,
		.other_run = "not the run it means",
	}, out;
	char *err = NULL;

	(void)state;
	assert_non_null(res);
	assert_int_equal(rt_result_prediction_count(res), 0);
	assert_int_equal(rt_result_prediction(res, 0, &out), -ENOENT);
	assert_int_equal(rt_result_add_prediction(res, &in), 0);
	in.predicted = NAN;
	in.measured = 12.5;
	in.other_run = NULL;
	assert_int_equal(rt_result_add_prediction(res, &in), 0);
	assert_int_equal(rt_result_prediction_count(res), 2);
	assert_int_equal(rt_result_prediction(res, 0, &out), 0);
	assert_string_equal(out.answer_key, "predict.03.p1");
	assert_string_equal(out.scenario, "a");
	assert_string_equal(out.unit, "us");
	assert_true(out.predicted == 40);
	assert_true(isnan(out.measured));
	assert_string_equal(out.other_run, "not the run it means");
	assert_int_equal(rt_result_prediction(res, 1, &out), 0);
	assert_true(isnan(out.predicted));
	assert_true(out.measured == 12.5);
	assert_null(out.other_run);
	/* The declared keys: the document with both validates. */
	if (rt_result_validate(rt_result_json(res), NULL, &err))
		fail_msg("%s", err);
	/* A hostile entry that is not an object reads as absent; reset empties. */
	assert_int_equal(json_array_append_new(json_object_get(rt_result_extra(res),
						   "predictions"), json_integer(1)), 0);
	assert_int_equal(rt_result_prediction(res, 2, &out), -ENOENT);
	assert_int_equal(rt_result_reset_predictions(res), 0);
	assert_int_equal(rt_result_prediction_count(res), 0);
	rt_result_free(res);
}

static void test_stable_order(void **state)
{
	struct rt_result *a = rt_result_new("ftrace", "vm", &test_env);
	struct rt_result *b = rt_result_new("ftrace", "vm", &test_env);
	char *sa, *sb;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	rt_result_set_created(a, 0);
	rt_result_set_created(b, 0);
	assert_int_equal(rt_result_set_param_str(a, "tracer", "irqsoff"), 0);
	assert_int_equal(rt_result_set_param_num(a, "threshold_us", 50), 0);
	assert_int_equal(rt_result_set_summary(a, "max_us", 77), 0);
	assert_int_equal(rt_result_set_summary(a, "hits_count", 3), 0);
	assert_int_equal(rt_result_set_summary(b, "hits_count", 3), 0);
	assert_int_equal(rt_result_set_summary(b, "max_us", 77), 0);
	assert_int_equal(rt_result_set_param_num(b, "threshold_us", 50), 0);
	assert_int_equal(rt_result_set_param_str(b, "tracer", "irqsoff"), 0);
	sa = rt_result_to_string(a, NULL);
	sb = rt_result_to_string(b, NULL);
	assert_non_null(sa);
	assert_string_equal(sa, sb);
	assert_true(strstr(sa, "\"hits_count\"") < strstr(sa, "\"max_us\""));
	free(sa);
	free(sb);
	rt_result_free(a);
	rt_result_free(b);
}

static void test_simulated_follows_tier(void **state)
{
	struct rt_env bare = { 0 };
	struct rt_result *res;
	char *text;

	(void)state;
	res = rt_result_new("fcse", "simulation", &bare);
	assert_non_null(res);
	assert_true(rt_result_simulated(res));
	text = rt_result_to_string(res, NULL);
	assert_non_null(text);
	assert_non_null(strstr(text, "\"simulated\": true"));
	/* Unknown strings say so; not in a VM means vm_type null. */
	assert_non_null(strstr(text, "\"kernel_release\": \"unknown\""));
	assert_non_null(strstr(text, "\"vm_type\": null"));
	free(text);
	rt_result_free(res);

	res = rt_result_new("latency", "vm", &test_env);
	assert_non_null(res);
	assert_false(rt_result_simulated(res));
	rt_result_free(res);
}

static void test_setters_refuse(void **state)
{
	static const char *const bad_keys[] = { "p99", "p99_usec", "_us", "P99_us", "p99-us",
		"p99_us ", "", "us", "9p_us", "p99_US",
		"a_very_long_summary_key_that_goes_on_and_on_and_on_past_the_limit_us", NULL };
	static const uint64_t big[] = { 1, (uint64_t)INT64_MAX + 1 };
	struct rt_result_hist h = { .name = "h", .unit = "us", .bucket_width = 1,
				    .counts = big, .nbuckets = 1 };
	struct rt_result *res;
	char *cause = NULL;

	(void)state;
	errno = 0;
	assert_null(rt_result_new("Warp drive", "host", &test_env));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(rt_result_new(NULL, "host", &test_env));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(rt_result_new("latency", "cloud", &test_env));
	assert_int_equal(errno, EINVAL);
	assert_null(rt_result_new("latency", "host", NULL));

	res = rt_result_new("latency", "host", &test_env);
	assert_non_null(res);
	for (const char *const *k = bad_keys; *k; k++)
		assert_int_equal(rt_result_set_summary(res, *k, 1), -EINVAL);
	assert_int_equal(rt_result_set_summary(res, "max_s", 1), 0);
	assert_int_equal(rt_result_set_summary(res, "rate_hz", NAN), -EINVAL);
	assert_int_equal(rt_result_set_summary(res, "rate_hz", INFINITY), -EINVAL);
	assert_int_equal(rt_result_set_summary(res, "rate_hz", -INFINITY), -EINVAL);
	assert_int_equal(rt_result_set_param_num(res, "x", NAN), -EINVAL);
	assert_int_equal(rt_result_set_param_str(res, "bad key", "v"), -EINVAL);
	assert_int_equal(rt_result_set_param_str(res, "k", "\xff\xfe"), -EINVAL);
	assert_int_equal(rt_result_set_param_json(res, "nested", json_pack("{s:i}", "a", 1)),
			 -EINVAL);
	assert_int_equal(rt_result_set_param_json(res, "list", json_pack("[i[i]]", 1, 2)),
			 -EINVAL);
	assert_int_equal(rt_result_set_answer_num(res, "q1", INFINITY), -EINVAL);
	assert_int_equal(rt_result_set_answer_str(res, "", "x"), -EINVAL);
	assert_int_equal(rt_result_add_note(res, ""), -EINVAL);

	/* Histograms: bad width, unit, sizes, a count that does not fit JSON's integers. */
	assert_int_equal(rt_result_add_histogram(res, &h), 0);
	assert_int_equal(rt_result_add_histogram(res, &h), -EEXIST);
	h.name = "h2";
	h.nbuckets = 2;
	assert_int_equal(rt_result_add_histogram(res, &h), -EINVAL);
	h.nbuckets = 0;
	assert_int_equal(rt_result_add_histogram(res, &h), -EINVAL);
	h.nbuckets = 1;
	h.bucket_width = 0;
	assert_int_equal(rt_result_add_histogram(res, &h), -EINVAL);
	h.bucket_width = 1;
	h.first_bucket = NAN;
	assert_int_equal(rt_result_add_histogram(res, &h), -EINVAL);
	h.first_bucket = 0;
	h.unit = "furlong";
	assert_int_equal(rt_result_add_histogram(res, &h), -EINVAL);
	h.unit = "ns";
	h.name = "two words";
	assert_int_equal(rt_result_add_histogram(res, &h), -EINVAL);
	h.name = "h2";
	h.n_overflow_cycles = 3;
	assert_int_equal(rt_result_add_histogram(res, &h), -EINVAL);
	h.n_overflow_cycles = 0;
	/* Outside the documented ranges (doc/results.md, "Ranges"). */
	h.bucket_width = 1e308;
	assert_int_equal(rt_result_add_histogram(res, &h), -EINVAL);
	h.bucket_width = 1;
	h.first_bucket = -1e300;
	assert_int_equal(rt_result_add_histogram(res, &h), -EINVAL);
	h.first_bucket = 0;
	h.overflow_count = 1000000000000001ull;
	assert_int_equal(rt_result_add_histogram(res, &h), -EINVAL);
	h.overflow_count = 0;
	assert_int_equal(rt_result_add_histogram(res, &h), 0);
	assert_int_equal(rt_result_hist_count(res), 2);
	assert_int_equal(rt_result_set_summary(res, "p99_us", 1e300), -EINVAL);
	assert_int_equal(rt_result_set_summary(res, "samples_count", 2e15), -EINVAL);
	assert_int_equal(rt_result_set_param_num(res, "duty", 1e20), -EINVAL);
	assert_int_equal(rt_result_set_summary(res, "samples_count", 1e15), 0);

	/* Changing the document behind the setters' back: the writer still checks. */
	assert_int_equal(json_object_set_new(rt_result_json(res), "tier", json_string("cloud")),
			 0);
	assert_null(rt_result_to_string(res, &cause));
	assert_int_equal(errno, EINVAL);
	assert_non_null(cause);
	assert_string_equal(cause, "tier: must be one of host, vm, simulation (got \"cloud\")");
	free(cause);
	cause = NULL;
	assert_int_equal(rt_result_write(res, "/tmp/rtlab-never-written.json", &cause), -EINVAL);
	assert_non_null(strstr(cause, "tier: must be one of"));
	assert_int_equal(access("/tmp/rtlab-never-written.json", F_OK), -1);
	free(cause);
	rt_result_free(res);
	rt_result_free(NULL);
}

/* ---- The validator, one broken document at a time ------------------------ */

/* Set (or, with @value NULL, delete) the member at "a/b/0/c" of @doc. */
static void set_at(json_t *doc, const char *where, const char *value)
{
	char *copy = strdup(where), *save = NULL, *tok, *next;
	json_t *cur = doc, *v = NULL;

	assert_non_null(copy);
	if (value) {
		json_error_t err;

		v = json_loads(value, JSON_DECODE_ANY, &err);
		if (!v)
			fail_msg("bad test value %s: %s", value, err.text);
	}
	tok = strtok_r(copy, "/", &save);
	for (;;) {
		next = strtok_r(NULL, "/", &save);
		if (!next)
			break;
		cur = json_is_array(cur) ? json_array_get(cur, strtoul(tok, NULL, 10))
					 : json_object_get(cur, tok);
		assert_non_null(cur);
		tok = next;
	}
	if (json_is_array(cur)) {
		size_t i = strtoul(tok, NULL, 10);

		if (v)
			assert_int_equal(json_array_set_new(cur, i, v), 0);
		else
			assert_int_equal(json_array_remove(cur, i), 0);
	} else if (v) {
		assert_int_equal(json_object_set_new(cur, tok, v), 0);
	} else {
		assert_int_equal(json_object_del(cur, tok), 0);
	}
	free(copy);
}

struct broken {
	const char *where;	/* member to change, "a/b/0" */
	const char *value;	/* new JSON value, NULL to delete */
	const char *cause;	/* exact message, or its start when it ends in '*'; NULL: valid */
};

static const struct broken broken_docs[] = {
	{ "schema", NULL, "schema: missing" },
	{ "schema", "\"rtlab.result/3\"",
	  "schema: unsupported version \"rtlab.result/3\" (this rtlab reads rtlab.result/2 and "
	  "rtlab.result/1)" },
	{ "schema", "\"rtlab.progress/1\"",
	  "schema: not an rtlab result: expected rtlab.result/2 (got \"rtlab.progress/1\")" },
	{ "schema", "1", "schema: must be a string (got an integer)" },
	{ "sumary", "{}", "sumary: unknown field" },
	{ "lab", NULL, "lab: missing" },
	{ "lab", "\"warp\"", "lab: unknown lab \"warp\" (known: latency, *" },
	{ "tier", "\"cloud\"", "tier: must be one of host, vm, simulation (got \"cloud\")" },
	{ "simulated", "true", "simulated: must be false when tier is \"host\"" },
	{ "simulated", "\"no\"", "simulated: must be true or false (got a string)" },
	{ "created", "\"2025-13-01T00:00:00Z\"",
	  "created: must be an RFC 3339 UTC time like \"2025-01-31T17:04:05Z\"" },
	{ "created", "\"2025-01-01 10:00:00\"", "created: must be an RFC 3339*" },
	{ "created", "\"2025-01-01T10:00:00+02:00\"", "created: must be an RFC 3339*" },
	{ "rtlab_version", "\"\"", "rtlab_version: must not be empty" },
	{ "env/cpus", "-1", "env.cpus: must be a non-negative integer" },
	{ "env/preempt_model", "\"turbo\"",
	  "env.preempt_model: must be one of none, voluntary, full, lazy, rt, unknown "
	  "(got \"turbo\")" },
	{ "env/in_vm", "false", "env.vm_type: must be null when in_vm is false" },
	{ "env/hostname", "\"box\"", "env.hostname: unknown field" },
	{ "env/machine", NULL, "env.machine: missing" },
	{ "env/root", "1", "env.root: must be true or false (got an integer)" },
	{ "params/threads", "{}",
	  "params.threads: must be a string, number or boolean (got an object)" },
	{ "params/cpus", "[0, null]",
	  "params.cpus[1]: must be a string, number or boolean (got null)" },
	{ "params/bad key", "1", "params[\"bad key\"]: name must be 1..64 characters*" },
	{ "summary/p99_us", "\"fast\"", "summary.p99_us: must be a number (got a string)" },
	{ "summary/p99", "1", "summary.p99: name must be [a-z][a-z0-9_]* (at most 64 bytes) "
	  "ending in _UNIT, UNIT one of us, ns, ms, s, count, pct, ratio, hz, bytes" },
	{ "summary/max_usec", "1", "summary.max_usec: name must be*" },
	{ "summary/Max_us", "1", "summary.Max_us: name must be*" },
	{ "summary", "[]", "summary: must be an object (got an array)" },
	{ "histograms/2/counts/5", "-1",
	  "histograms[2].counts[5]: must be a non-negative integer" },
	{ "histograms/0/counts/1", "1.5",
	  "histograms[0].counts[1]: must be a non-negative integer" },
	{ "histograms/0/counts", "[]", "histograms[0].counts: must have at least one bucket" },
	{ "histograms/1/bucket_width", "0", "histograms[1].bucket_width: must be greater than 0" },
	/* Ranges: a hostile document must not make a reader draw forever. */
	{ "histograms/0/bucket_width", "1e308",
	  "histograms[0].bucket_width: 1e308 is out of range (0 < width <= 1e6)" },
	{ "histograms/1/bucket_width", "1000000.5",
	  "histograms[1].bucket_width: 1000000.5 is out of range (0 < width <= 1e6)" },
	{ "histograms/0/first_bucket", "-1e300",
	  "histograms[0].first_bucket: -1e300 is out of range (-1e9 <= first <= 1e9)" },
	{ "histograms/1/first_bucket", "1000000001",
	  "histograms[1].first_bucket: 1000000001 is out of range (-1e9 <= first <= 1e9)" },
	{ "histograms/0/counts/3", "10000000000000000",
	  "histograms[0].counts[3]: 1e16 is out of range (0 <= count <= 1e15)" },
	{ "histograms/0/overflow_count", "999999999999999",
	  "histograms[0]: counts and overflow_count add up to more than 1e15 samples" },
	{ "summary/p99_us", "1e300",
	  "summary.p99_us: 1e300 is out of range (magnitude at most 1e15)" },
	{ "summary/samples_count", "-2000000000000000",
	  "summary.samples_count: -2e15 is out of range (magnitude at most 1e15)" },
	{ "params/duty", "-1.5e20", "params.duty: -1.5e20 is out of range (magnitude at most 1e15)" },
	{ "answers/q2", "1e300", "answers.q2: 1e300 is out of range (magnitude at most 1e15)" },
	{ "extra/threads/1/max_us", "1e300",
	  "extra.threads[1].max_us: 1e300 is out of range (magnitude at most 1e15)" },
	{ "env/cpus", "70000", "env.cpus: 70000 is out of range (at most 65536)" },
	{ "histograms/1/unit", "\"furlong\"", "histograms[1].unit: must be one of us, *" },
	{ "histograms/1/colour", "\"red\"", "histograms[1].colour: unknown field" },
	{ "histograms/0/overflow_count", NULL, "histograms[0].overflow_count: missing" },
	{ "histograms/0/overflow_cycles/0", "\"x\"",
	  "histograms[0].overflow_cycles[0]: must be a non-negative integer" },
	{ "histograms/2/name", "\"cpu0\"",
	  "histograms[2].name: duplicate name \"cpu0\" (also histograms[0])" },
	{ "histograms/1", "7", "histograms[1]: must be an object (got an integer)" },
	{ "answers/q1", "true", "answers.q1: must be a string or a number (got a boolean)" },
	{ "answers", NULL, "answers: missing" },
	{ "notes/0", "\"\"", "notes[0]: must not be empty" },
	{ "notes", "\"x\"", "notes: must be an array (got a string)" },
	{ "extra", "[]", "extra: must be an object (got an array)" },
	/* rtlab.result/2: overflow buckets */
	{ "histograms/0/overflow_buckets/0", "[7, 9, 1]",
	  "histograms[0].overflow_buckets[0]: starts at 7, below 8 where the last of the counts "
	  "ends" },
	{ "histograms/0/overflow_buckets/1", "[8.5, 16, 1]",
	  "histograms[0].overflow_buckets[1]: starts at 8.5, below 9 where the bucket before it "
	  "ends" },
	{ "histograms/0/overflow_buckets/1", "[12, 12, 1]",
	  "histograms[0].overflow_buckets[1]: must end after it starts (12 .. 12)" },
	{ "histograms/0/overflow_buckets/1", "[12, 16, 5]",
	  "histograms[0].overflow_buckets: the counts add up to 6, not overflow_count (2)" },
	{ "histograms/0/overflow_buckets/1", "[12, 16]",
	  "histograms[0].overflow_buckets[1]: must be [lower, upper, count] (got 2 elements)" },
	{ "histograms/0/overflow_buckets/1/2", "-1",
	  "histograms[0].overflow_buckets[1][2]: must be a non-negative integer" },
	{ "histograms/0/overflow_buckets/1/1", "1e300",
	  "histograms[0].overflow_buckets[1][1]: 1e300 is out of range (magnitude at most 1e15)" },
	{ "histograms/0/overflow_buckets", "{}",
	  "histograms[0].overflow_buckets: must be an array (got an object)" },
	/* rtlab.result/2: views */
	{ "views/0/rows/1", "[\"cpu1\", 2]", "views[0].rows[1]: has 2 cells for 3 columns" },
	{ "views/0/rows/0/1", "{}",
	  "views[0].rows[0][1]: must be a string, number, boolean or null (got an object)" },
	{ "views/0/columns/1/unit", "\"parsec\"", "views[0].columns[1].unit: must be one of us, *" },
	{ "views/0/columns/1/name", "\"cpu\"", "views[0].columns[1].name: duplicate column name" },
	{ "views/0/columns", "[]", "views[0].columns: must have 1 to 64 columns" },
	{ "views/0/title", NULL, "views[0].title: missing" },
	{ "views/0/colour", "1", "views[0].colour: unknown field" },
	{ "views/0/name", "\"a b\"", "views[0].name: must be 1..64 characters*" },
	{ "views", "{}", "views: must be an array (got an object)" },
	/* rtlab.result/2: integrity */
	{ "integrity/algorithm", "\"SHA-256\"", "integrity.algorithm: must be 1..32 characters of "
	  "a-z 0-9 -" },
	{ "integrity/value", "\"abc\"", "integrity.value: must be 16..128 lower-case hex digits" },
	{ "integrity/value", "\"0123456789abcdef\"",
	  "integrity.value: a sha256 digest has 64 hex digits (got 16)" },
	{ "integrity/key", "\"k\"", "integrity.key: unknown field" },
	{ "integrity", NULL, NULL },
	{ "views", NULL, NULL },
	{ "histograms/0/overflow_buckets", NULL, NULL },
	/* rtlab.result/1 is read with its own fields only. */
	{ "schema", "\"rtlab.result/1\"", "views: unknown field" },
};

/* @cause matches @want exactly, or starts with it when @want ends in '*'. */
static void assert_cause(const char *cause, const char *want)
{
	size_t n = strlen(want);

	assert_non_null(cause);
	if (n && want[n - 1] == '*') {
		if (strncmp(cause, want, n - 1) != 0)
			fail_msg("cause \"%s\" does not start with \"%.*s\"", cause, (int)n - 1,
				 want);
	} else if (strcmp(cause, want) != 0) {
		fail_msg("cause \"%s\", wanted \"%s\"", cause, want);
	}
}

static void test_validator_names_path(void **state)
{
	struct rt_result *good = full_result();
	char *text = rt_result_to_string(good, NULL);

	(void)state;
	assert_non_null(text);
	assert_int_equal(rt_result_validate(rt_result_json(good), &known, NULL), 0);
	for (size_t i = 0; i < sizeof(broken_docs) / sizeof(broken_docs[0]); i++) {
		const struct broken *b = &broken_docs[i];
		json_t *doc = json_deep_copy(rt_result_json(good));
		struct rt_result *res = (void *)1;
		char *cause = NULL, *bad_text, *want = NULL;

		set_at(doc, b->where, b->value);
		if (!b->cause) {
			/* /2's fields are optional. */
			assert_int_equal(rt_result_validate(doc, &known, &cause), 0);
			json_decref(doc);
			continue;
		}
		assert_int_equal(rt_result_validate(doc, &known, &cause), -EINVAL);
		assert_cause(cause, b->cause);
		free(cause);
		cause = NULL;

		/* The parser reports the same, prefixed by the name. */
		bad_text = json_dumps(doc, JSON_INDENT(1));
		assert_non_null(bad_text);
		assert_int_equal(rt_result_parse(bad_text, strlen(bad_text), "t.json", &known, &res,
						 &cause), -EINVAL);
		assert_null(res);
		assert_true(asprintf(&want, "t.json: %s", b->cause) > 0);
		assert_cause(cause, want);
		free(want);
		free(cause);
		free(bad_text);
		json_decref(doc);
	}
	free(text);
	rt_result_free(good);
}

static void test_validator_whole_doc(void **state)
{
	struct rt_result *good = full_result();
	json_t *doc, *deep;
	char *cause = NULL;
	struct rt_buf want = RT_BUF_INIT;

	(void)state;
	assert_int_equal(rt_result_validate(NULL, &known, &cause), -EINVAL);
	free(cause);
	cause = NULL;
	doc = json_array();
	assert_int_equal(rt_result_validate(doc, &known, &cause), -EINVAL);
	assert_string_equal(cause, "document: must be a JSON object (got an array)");
	json_decref(doc);
	free(cause);
	cause = NULL;

	/* "extra" is free-form but bounded in depth. */
	doc = json_deep_copy(rt_result_json(good));
	deep = json_object_get(doc, "extra");
	rt_buf_puts(&want, "extra");
	for (unsigned int i = 0; i < RT_RESULT_MAX_DEPTH + 5; i++) {
		json_t *next = json_object();

		assert_int_equal(json_object_set_new(deep, "d", next), 0);
		deep = next;
		if (i < RT_RESULT_MAX_DEPTH)
			rt_buf_puts(&want, ".d");
	}
	rt_buf_printf(&want, ": nested deeper than %u levels", RT_RESULT_MAX_DEPTH);
	assert_int_equal(rt_result_validate(doc, &known, &cause), -EINVAL);
	assert_string_equal(cause, rt_buf_str(&want));
	free(cause);
	rt_buf_fini(&want);
	json_decref(doc);

	/* Free-form extra of ordinary depth, including nulls and arrays, passes. */
	doc = json_deep_copy(rt_result_json(good));
	set_at(doc, "extra/anything", "{\"a\": [null, {\"b\": [1, 2.5, \"x\"]}]}");
	assert_int_equal(rt_result_validate(doc, &known, NULL), 0);
	json_decref(doc);
	rt_result_free(good);
}

static void test_syntax_error_position(void **state)
{
	static const char text[] = "{\n  \"schema\": \"rtlab.result/1\",\n  \"lab\" \"latency\"\n}\n";
	static const char nan_text[] = "{\n  \"summary\": {\"p99_us\": NaN}\n}";
	static const char huge_text[] = "{\"summary\": {\"p99_us\": 1e999}}";
	static const char dup_text[] = "{\"lab\": \"latency\",\n\"lab\": \"nop\"}";
	struct rt_result *res = NULL;
	char *cause = NULL;

	(void)state;
	assert_int_equal(rt_result_parse(text, strlen(text), "r.json", &known, &res, &cause),
			 -EINVAL);
	assert_null(res);
	assert_cause(cause, "r.json:3:*");
	assert_non_null(strstr(cause, "':' expected"));
	free(cause);
	cause = NULL;

	assert_int_equal(rt_result_parse(nan_text, strlen(nan_text), "n.json", &known, &res,
					 &cause), -EINVAL);
	assert_cause(cause, "n.json:2:*");
	free(cause);
	cause = NULL;

	assert_int_equal(rt_result_parse(huge_text, strlen(huge_text), "h.json", &known, &res,
					 &cause), -EINVAL);
	assert_cause(cause, "h.json:1:*");
	assert_non_null(strstr(cause, "overflow"));
	free(cause);
	cause = NULL;

	assert_int_equal(rt_result_parse(dup_text, strlen(dup_text), "d.json", &known, &res,
					 &cause), -EINVAL);
	assert_cause(cause, "d.json:2:*");
	assert_non_null(strstr(cause, "duplicate"));
	free(cause);
	cause = NULL;

	assert_int_equal(rt_result_parse("", 0, "e.json", &known, &res, &cause), -EINVAL);
	assert_cause(cause, "e.json:*");
	free(cause);
	cause = NULL;

	assert_int_equal(rt_result_read("/nonexistent/rtlab/r.json", &known, &res, &cause),
			 -ENOENT);
	assert_cause(cause, "/nonexistent/rtlab/r.json: cannot read*");
	free(cause);
}

static void test_oversize(void **state)
{
	struct fixture *f = *state;
	struct rt_result *res = NULL, *good;
	struct rt_buf text = RT_BUF_INIT;
	char *cause = NULL;
	json_t *doc, *counts;
	int fd;

	/* A file over 64 MiB is refused by size. */
	fd = open(f->path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)RT_RESULT_MAX_FILE + 1), 0);
	close(fd);
	assert_int_equal(rt_result_read(f->path, &known, &res, &cause), -EFBIG);
	assert_null(res);
	assert_non_null(strstr(cause, "64 MiB"));
	free(cause);
	cause = NULL;

	/* Small but with too many values: refused before jansson allocates them. */
	rt_buf_puts(&text, "[");
	for (unsigned int i = 0; i < RT_RESULT_MAX_VALUES; i++)
		rt_buf_puts(&text, "0,");
	rt_buf_puts(&text, "0]");
	assert_true(text.len < RT_RESULT_MAX_FILE);
	assert_int_equal(rt_result_parse(text.data, text.len, "v.json", &known, &res, &cause),
			 -EFBIG);
	assert_string_equal(cause, "v.json: more than 4000000 values in one result");
	free(cause);
	cause = NULL;
	rt_buf_fini(&text);

	/* Commas and brackets inside strings are not values. */
	good = full_result();
	for (unsigned int i = 0; i <= RT_RESULT_MAX_VALUES / 2; i++)
		rt_buf_puts(&text, ",[");
	assert_int_equal(json_object_set_new(rt_result_extra(good), "blob",
					     json_string(text.data)), 0);
	rt_buf_fini(&text);
	text.data = rt_result_to_string(good, NULL);
	assert_non_null(text.data);
	assert_int_equal(rt_result_parse(text.data, strlen(text.data), "s.json", &known, &res,
					 NULL), 0);
	rt_result_free(res);
	rt_buf_fini(&text);

	/* A histogram over the bucket limit. */
	doc = json_deep_copy(rt_result_json(good));
	counts = json_array();
	for (unsigned int i = 0; i <= RT_RESULT_MAX_BUCKETS; i++)
		json_array_append_new(counts, json_integer(0));
	set_at(doc, "histograms/1/counts", "0");
	json_object_set_new(json_array_get(json_object_get(doc, "histograms"), 1), "counts",
			    counts);
	assert_int_equal(rt_result_validate(doc, &known, &cause), -EINVAL);
	assert_string_equal(cause, "histograms[1].counts: more than 1000000 elements");
	free(cause);
	json_decref(doc);
	rt_result_free(good);
}

/* @rel in the source tree ($SRCDIR, else "."), into @path; skips the test when it is absent. */
static void data_file(char *path, size_t size, const char *rel)
{
	const char *srcdir = getenv("SRCDIR");

	snprintf(path, size, "%s/%s", srcdir ? srcdir : ".", rel);
	if (access(path, R_OK) != 0) {
		print_message("%s not found: run from the source tree or set SRCDIR\n", path);
		skip();
	}
}

/*
 * The example documents in tests/data/results (also shown in doc/results.md)
 * are valid, and are exactly what the writer produces for their content.
 * The rtlab.result/1 one is read and converted: the writer gives the same
 * bytes with the new schema name.
 */
static void test_example_files(void **state)
{
	static const char *const names[] = { "latency-host.json", "fcse-simulation.json",
					     "latency-host-v1.json", NULL };
	(void)state;
	for (const char *const *n = names; *n; n++) {
		struct rt_result *res = NULL;
		char rel[128], path[512], *text = NULL, *again, *cause = NULL;

		snprintf(rel, sizeof(rel), "tests/data/results/%s", *n);
		data_file(path, sizeof(path), rel);
		if (rt_result_read(path, &known, &res, &cause))
			fail_msg("%s", cause);
		assert_int_equal(rt_file_read(path, 1 << 20, &text, NULL), 0);
		if (strstr(*n, "-v1")) {
			char *at = strstr(text, "\"rtlab.result/1\"");

			assert_non_null(at);
			at[14] = '2';	/* what a /2 writer says of the same content */
			assert_int_equal(rt_result_version(res), 1);
		} else {
			assert_int_equal(rt_result_version(res), 2);
		}
		again = rt_result_to_string(res, NULL);
		assert_non_null(again);
		assert_string_equal(again, text);
		free(again);
		free(text);
		rt_result_free(res);
	}
}

/*
 * A golden file: tests/data/json/result-input.json (one line, keys in no
 * particular order, every kind of escape, reals that need 15, 16 and 17
 * digits, a denormal, -0.0, nested and empty containers, long arrays) read
 * and written gives exactly result-golden.json, which the printer of
 * rtlab 0.1 (before rt_json) wrote. A change to the printer that moves a
 * byte fails here.
 */
static void test_printer_golden(void **state)
{
	char in[512], gold[512], *golden = NULL, *out, *cause = NULL;
	struct rt_result *res = NULL;

	(void)state;
	data_file(in, sizeof(in), "tests/data/json/result-input.json");
	data_file(gold, sizeof(gold), "tests/data/json/result-golden.json");
	if (rt_result_read(in, &known, &res, &cause))
		fail_msg("%s", cause);
	assert_int_equal(rt_file_read(gold, 1 << 20, &golden, NULL), 0);
	out = rt_result_to_string(res, NULL);
	assert_non_null(out);
	assert_string_equal(out, golden);
	free(out);
	free(golden);
	rt_result_free(res);
}

/*
 * Core knows no lab: the list comes from the caller. With it, a lab not in
 * it is refused; without it (the writer, rt_result_new(), a NULL opts),
 * only the name's syntax is checked.
 */
static void test_lab_list(void **state)
{
	static const char *const none[] = { NULL };
	const struct rt_result_opts empty = { none }, no_list = { NULL };
	struct rt_result *res = rt_result_new("warp-drive", "simulation", &test_env), *back = NULL;
	char *text, *cause = NULL;

	(void)state;
	assert_non_null(res);
	text = rt_result_to_string(res, &cause);
	if (!text)
		fail_msg("%s", cause);
	/* Refused with each list, accepted without one. */
	for (int i = 0; i < 4; i++) {
		static const char *const why[] = {
			"w.json: lab: unknown lab \"warp-drive\" (known: latency, ftrace, "
			"hypervisor, fcse, nop, cookie)",
			"w.json: lab: unknown lab \"warp-drive\" (known: )", NULL, NULL,
		};
		const struct rt_result_opts *opts[] = { &known, &empty, NULL, &no_list };
		int ret = rt_result_parse(text, strlen(text), "w.json", opts[i], &back, &cause);

		if (why[i]) {
			assert_int_equal(ret, -EINVAL);
			assert_string_equal(cause, why[i]);
		} else {
			assert_int_equal(ret, 0);
			assert_string_equal(rt_result_lab(back), "warp-drive");
		}
		rt_result_free(back);
		back = NULL;
		free(cause);
		cause = NULL;
	}
	free(text);

	/* Without a list, the syntax: [a-z][a-z0-9-]* (longer than 64 bytes is refused before). */
	for (const char *const *bad = (const char *const[]){ "\"Warp\"", "\"9lives\"",
		"\"warp_drive\"", "\"-x\"", "\"w\u00e9\"", "\"a b\"", NULL }; *bad; bad++) {
		json_t *doc = json_deep_copy(rt_result_json(res));

		set_at(doc, "lab", *bad);
		assert_int_equal(rt_result_validate(doc, NULL, &cause), -EINVAL);
		assert_string_equal(cause, "lab: a lab name must be [a-z][a-z0-9-]* (at most 64 "
				    "bytes)");
		free(cause);
		cause = NULL;
		json_decref(doc);
	}
	rt_result_free(res);
}

/* ---- rtlab.result/2: reading /1, views, integrity, overflow buckets ---------- */

/* An rtlab.result/1 document is read, converted, and written back as /2. */
static void test_v1_documents(void **state)
{
	struct rt_result *good = full_result(), *res = NULL;
	json_t *doc = json_deep_copy(rt_result_json(good));
	char *text, *cause = NULL, *out;

	(void)state;
	set_at(doc, "schema", "\"rtlab.result/1\"");
	set_at(doc, "views", NULL);
	set_at(doc, "integrity", NULL);
	set_at(doc, "histograms/0/overflow_buckets", NULL);
	text = json_dumps(doc, 0);
	assert_non_null(text);
	if (rt_result_parse(text, strlen(text), "old.json", &known, &res, &cause))
		fail_msg("%s", cause);
	assert_int_equal(rt_result_version(res), 1);
	assert_string_equal(json_string_value(json_object_get(rt_result_json(res), "schema")),
			    RT_RESULT_SCHEMA);
	out = rt_result_to_string(res, NULL);
	assert_non_null(out);
	assert_non_null(strstr(out, "\"schema\": \"rtlab.result/2\""));
	free(out);
	rt_result_free(res);
	free(text);

	/* A /1 document may not use what /2 added. */
	set_at(doc, "histograms/0/overflow_buckets", "[[8, 9, 1], [12, 16, 1]]");
	text = json_dumps(doc, 0);
	assert_int_equal(rt_result_parse(text, strlen(text), "old.json", &known, &res, &cause),
			 -EINVAL);
	assert_string_equal(cause, "old.json: histograms[0].overflow_buckets: unknown field");
	free(cause);
	free(text);
	json_decref(doc);
	rt_result_free(good);

	assert_int_equal(rt_result_schema_version("rtlab.result/2"), 2);
	assert_int_equal(rt_result_schema_version("rtlab.result/1"), 1);
	assert_int_equal(rt_result_schema_version("rtlab.result/3"), 0);
	assert_int_equal(rt_result_schema_version(NULL), 0);
}

static void test_views_and_integrity(void **state)
{
	struct rt_result *res = full_result();
	char *cause = NULL, *canon, *again, *full;
	const char *digest = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

	(void)state;
	/* A second view of the same name, a malformed one: refused with the reason. */
	assert_int_equal(rt_result_add_view(res, json_pack("{s:s, s:s, s:[{s:s}], s:[]}", "name",
		"threads", "title", "again", "columns", "name", "x", "rows"), &cause), -EINVAL);
	assert_string_equal(cause, "a view called \"threads\" exists");
	free(cause);
	cause = NULL;
	assert_int_equal(rt_result_add_view(res, json_pack("{s:s, s:s, s:[{s:s}], s:[[i, i]]}",
		"name", "v", "title", "V", "columns", "name", "x", "rows", 1, 2), &cause), -EINVAL);
	assert_string_equal(cause, "views[1].rows[0]: has 2 cells for 1 columns");
	free(cause);
	cause = NULL;
	assert_int_equal(rt_result_add_view(res, NULL, &cause), -EINVAL);
	free(cause);
	cause = NULL;
	for (unsigned int i = 1; i < RT_RESULT_MAX_VIEWS; i++) {
		char name[16];

		snprintf(name, sizeof(name), "v%u", i);
		assert_int_equal(rt_result_add_view(res, json_pack("{s:s, s:s, s:[{s:s}], s:[]}",
			"name", name, "title", "V", "columns", "name", "x", "rows"), NULL), 0);
	}
	assert_int_equal(rt_result_add_view(res, json_pack("{s:s, s:s, s:[{s:s}], s:[]}", "name",
		"one-more", "title", "V", "columns", "name", "x", "rows"), NULL), -E2BIG);

	/* A seal covers the content: any edit, or no seal at all, is found. */
	{
		struct rt_result *sealed = NULL;
		char *text = rt_result_to_string_sealed(res, NULL), *why = NULL;

		assert_non_null(text);
		assert_int_equal(rt_result_parse(text, strlen(text), "t", NULL, &sealed, NULL), 0);
		assert_int_equal(rt_result_integrity_verify(sealed, NULL), 0);
		assert_int_equal(rt_result_set_summary(sealed, "p99_us", 1), 0);
		assert_int_equal(rt_result_integrity_verify(sealed, &why), -EBADMSG);
		assert_non_null(strstr(why, "changed after rtlab wrote it"));
		free(why);
		json_object_del(rt_result_json(sealed), "integrity");
		assert_int_equal(rt_result_integrity_verify(sealed, NULL), -ENODATA);
		assert_int_equal(rt_result_set_integrity(sealed, "blake3-x", "0123456789abcdef"), 0);
		assert_int_equal(rt_result_integrity_verify(sealed, NULL), -ENOTSUP);
		rt_result_free(sealed);
		free(text);
	}

	assert_int_equal(rt_result_set_integrity(res, "sha256", "abc"), -EINVAL);
	assert_int_equal(rt_result_set_integrity(res, "Sha256", digest), -EINVAL);
	assert_int_equal(rt_result_set_integrity(res, NULL, digest), -EINVAL);
	assert_int_equal(rt_result_set_integrity(res, "blake3-x", "0123456789abcdef"), 0);

	/* The canonical text is the document without integrity, whatever integrity says. */
	canon = rt_result_canonical_text(res, NULL);
	assert_non_null(canon);
	assert_null(strstr(canon, "\"integrity\""));
	assert_int_equal(rt_result_set_integrity(res, "sha256", digest), 0);
	again = rt_result_canonical_text(res, NULL);
	assert_string_equal(again, canon);
	full = rt_result_to_string(res, NULL);
	assert_non_null(strstr(full, digest));
	/* ...and the document keeps its integrity: the copy was shallow, not the original. */
	assert_non_null(json_object_get(rt_result_json(res), "integrity"));
	json_object_del(rt_result_json(res), "integrity");
	free(again);
	again = rt_result_to_string(res, NULL);
	assert_string_equal(again, canon);
	free(again);
	free(full);
	free(canon);
	rt_result_free(res);
}

/*
 * A document's histogram gives the percentiles of the rt_hist it was made
 * from, overflow region included; without overflow buckets (a /1
 * document), a percentile among the overflows is "beyond" the bound.
 */
/*
 * rt_result_put_percentiles(): the layout the latency lab's scenarios have
 * and the HTML report reads, exactly; nothing for an empty histogram.
 */
static void test_put_percentiles(void **state)
{
	struct rt_hist *h = rt_hist_new(100, 4), *empty = rt_hist_new(100, 4);
	json_t *obj = json_object(), *none = json_object(), *p99;
	char *text;

	(void)state;
	assert_non_null(h);
	assert_non_null(empty);
	for (unsigned int i = 0; i < 1000; i++) {
		struct rt_sample smp = { .seq = i, .latency_ns = (int64_t)(i % 10) * 1000 + 500 };

		if (i == 999)
			smp.latency_ns = 250000;	/* one beyond the 1 us buckets */
		rt_hist_add(h, &smp);
	}
	assert_int_equal(rt_result_put_percentiles(obj, h), 0);
	text = json_dumps(obj, JSON_SORT_KEYS | JSON_COMPACT);
	assert_string_equal(text, "{\"p99_resolution_us\":1,\"p99_us\":10,\"percentiles\":{"
			    "\"p50\":{\"meaningful\":true,\"needed_count\":200,\"resolution_us\":1,"
			    "\"value_us\":5},"
			    "\"p90\":{\"meaningful\":true,\"needed_count\":1000,\"resolution_us\":1,"
			    "\"value_us\":9},"
			    "\"p99\":{\"meaningful\":false,\"needed_count\":10000,"
			    "\"resolution_us\":1,\"value_us\":10},"
			    "\"p99.9\":{\"meaningful\":false,\"needed_count\":100000,"
			    "\"resolution_us\":1,\"value_us\":10},"
			    "\"p99.99\":{\"meaningful\":false,\"needed_count\":1000000,"
			    "\"resolution_us\":3,\"value_us\":251}}}");	/* a log bucket */
	free(text);
	p99 = json_object_get(json_object_get(obj, "percentiles"), "p99");
	assert_true(json_equal(json_object_get(p99, "value_us"), json_object_get(obj, "p99_us")));

	assert_int_equal(rt_result_put_percentiles(none, empty), 0);
	assert_int_equal(json_object_size(none), 1);
	assert_int_equal(json_object_size(json_object_get(none, "percentiles")), 0);
	json_decref(obj);
	json_decref(none);
	rt_hist_free(h);
	rt_hist_free(empty);
}

static void test_hist_percentile(void **state)
{
	static const unsigned int qs[] = { 1, 500000, 900000, 990000, 995000, 999000, 999900,
					   999999 };
	struct rt_hist *h = rt_hist_new(2000, 16);
	struct rt_result *res = rt_result_new("latency", "host", &test_env);
	struct rt_result_hist rh;
	uint64_t x = 3;
	double v, r;

	(void)state;
	assert_non_null(h);
	for (unsigned int i = 0; i < 30000; i++) {
		struct rt_sample smp = { .seq = i };

		x = x * 6364136223846793005ull + 1442695040888963407ull;
		smp.latency_ns = (int64_t)((x >> 33) % 1500000);
		if (i % 50 == 0)	/* a tail up to 15 s */
			smp.latency_ns = (int64_t)((x >> 20) % 15000000) * 1000;
		rt_hist_add(h, &smp);
	}
	assert_int_equal(rt_result_add_rt_hist(res, "h", h), 0);
	assert_int_equal(rt_result_hist_get(res, 0, &rh), 0);
	assert_true(rh.n_overflow_buckets > 10);
	assert_int_equal(rh.n_overflow_cycles, 16);
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		struct rt_hist_pct p;

		assert_int_equal(rt_hist_percentile(h, qs[i], &p), 0);
		assert_int_equal(rt_result_hist_percentile(&rh, qs[i], &v, &r), 0);
		if (v != (double)p.value_us || r != (double)p.resolution_us)
			fail_msg("q %u: document %g (%g), rt_hist %llu (%llu)", qs[i], v, r,
				 (unsigned long long)p.value_us,
				 (unsigned long long)p.resolution_us);
	}
	/* As a /1 document has it: overflows without buckets. */
	rh.n_overflow_buckets = 0;
	assert_int_equal(rt_result_hist_percentile(&rh, 999000, &v, &r), -ERANGE);
	assert_true(v == 2000 && r == 0);
	assert_int_equal(rt_result_hist_percentile(&rh, 500000, &v, &r), 0);
	assert_int_equal(rt_result_hist_percentile(&rh, 0, &v, &r), -EINVAL);
	rt_result_hist_fini(&rh);

	/* Overflow buckets that break the rules are refused by the setter too. */
	{
		static const uint64_t c[] = { 1, 1 };
		struct rt_result_range bad[] = { { 1, 3, 1 }, { 4, 5, 1 } };
		struct rt_result_hist b = { .name = "b", .unit = "us", .bucket_width = 1,
					    .counts = c, .nbuckets = 2, .overflow_count = 2,
					    .overflow_buckets = bad, .n_overflow_buckets = 2 };

		assert_int_equal(rt_result_add_histogram(res, &b), -EINVAL);	/* below 2 */
		bad[0].lower = 2;
		bad[1].lower = 2.5;
		assert_int_equal(rt_result_add_histogram(res, &b), -EINVAL);	/* overlap */
		bad[1].lower = 3;
		b.overflow_count = 3;
		assert_int_equal(rt_result_add_histogram(res, &b), -EINVAL);	/* 2 != 3 */
		b.overflow_count = 2;
		b.overflow_buckets = NULL;
		assert_int_equal(rt_result_add_histogram(res, &b), -EINVAL);
		b.overflow_buckets = bad;
		assert_int_equal(rt_result_add_histogram(res, &b), 0);
	}
	rt_result_free(res);
	rt_hist_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip, setup, teardown),
		cmocka_unit_test(test_stable_order),
		cmocka_unit_test(test_simulated_follows_tier),
		cmocka_unit_test(test_setters_refuse),
		cmocka_unit_test(test_validator_names_path),
		cmocka_unit_test(test_validator_whole_doc),
		cmocka_unit_test(test_syntax_error_position),
		cmocka_unit_test_setup_teardown(test_oversize, setup, teardown),
		cmocka_unit_test(test_example_files),
		cmocka_unit_test(test_printer_golden),
		cmocka_unit_test(test_lab_list),
		cmocka_unit_test(test_v1_documents),
		cmocka_unit_test(test_views_and_integrity),
		cmocka_unit_test(test_hist_percentile),
		cmocka_unit_test(test_put_percentiles),
		cmocka_unit_test(test_set_scenarios),
		cmocka_unit_test(test_predictions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
