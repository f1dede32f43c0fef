/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_lab_ftrace_doc: the ftrace lab's document read through its typed
 * accessors, its named scenarios, its views and text, and the tracer's
 * trace taken out of a document, on the fixture documents of each mode in
 * tests/data/results: ftrace-events.json (event mode as the lab writes it
 * now, with extra.scenarios), ftrace-hunt.json (an event-mode hunt written
 * before scenarios existed) and ftrace-tracer.json (tracer mode with the
 * irqsoff trace of tests/data/traces and a cross-check that ran, likewise
 * older).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_result.h"
#include "labs/lab.h"
#include "labs/lab_ftrace.h"
#include "labs/lab_ftrace_doc.h"
#include "trace/trace_explain.h"

static struct rt_result *fixture(const char *name)
{
	const char *srcdir = getenv("SRCDIR");
	struct rt_result *res = NULL;
	char path[512], *cause = NULL;

	snprintf(path, sizeof(path), "%s/tests/data/results/%s", srcdir ? srcdir : ".", name);
	if (rt_result_read(path, NULL, &res, &cause))
		fail_msg("%s: %s", path, cause);
	return res;
}

/* The document's text, for tests that edit it as JSON. */
static char *fixture_text(const char *name)
{
	struct rt_result *res = fixture(name);
	char *text = rt_result_to_string(res, NULL);

	assert_non_null(text);
	rt_result_free(res);
	return text;
}

/* ---- Accessors ------------------------------------------------------------------------ */

static void test_read_events(void **state)
{
	struct rt_result *res = fixture("ftrace-events.json");
	struct ftrace_doc d;
	double v;

	(void)state;
	assert_int_equal(ftrace_doc_read(res, &d), 0);
	assert_int_equal(d.mode, FTRACE_MODE_EVENTS);
	assert_string_equal(d.scenario, "events");
	assert_false(d.interrupted);
	assert_true(d.measured_s > 1.9 && d.measured_s < 3);
	/* The same figures as the summary the lab wrote next to them. */
	assert_true(d.probe.d.present);
	assert_int_equal(rt_result_summary_get(res, "probe_samples_count", &v), 0);
	assert_int_equal(d.probe.d.count, (uint64_t)v);
	assert_int_equal(rt_result_summary_get(res, "probe_p99_us", &v), 0);
	assert_true(d.probe.d.p99_us == v);
	assert_string_equal(d.probe.policy, "fifo");
	assert_int_equal(d.probe.priority, FTRACE_PROBE_PRIO);
	assert_true(d.probe.tid > 0);
	assert_int_equal(rt_result_summary_get(res, "events_matched_count", &v), 0);
	assert_int_equal(d.events.d.count, (uint64_t)v);
	assert_int_equal(rt_result_summary_get(res, "events_max_us", &v), 0);
	assert_true(d.events.d.max_us == v);
	assert_non_null(strstr(d.events.instance, "rtlab-ftrace-"));
	assert_true(d.agreement.present);
	assert_true(!strncmp(d.agreement.verdict, "agree: ", 7));
	assert_true(d.agreement.p50.probe_us >= d.agreement.p50.events_us);
	/* Event mode: no tracer, no hunt; the cross-check says why each tool did not run. */
	assert_false(d.tracer.present);
	assert_false(d.hunt.present);
	assert_true(d.check.present);
	assert_false(d.check.skipped);
	assert_true(d.check.trace_cmd.present && !d.check.trace_cmd.ran);
	assert_non_null(strstr(d.check.trace_cmd.reason, "trace-cmd"));
	assert_true(d.check.rtla.present && !d.check.rtla.ran);
	assert_non_null(strstr(d.check.rtla.reason, "CONFIG_TIMERLAT_TRACER"));
	{
		struct ftrace_doc_line l;

		assert_int_equal(ftrace_doc_trace_line(res, 0, &l), -ENOENT);
	}
	rt_result_free(res);
}

static void test_read_hunt(void **state)
{
	struct rt_result *res = fixture("ftrace-hunt.json");
	struct ftrace_doc d;

	(void)state;
	assert_int_equal(ftrace_doc_read(res, &d), 0);
	/* Written before extra.scenarios: the scenario comes from the settings. */
	assert_string_equal(d.scenario, "events-hunt");
	assert_true(d.hunt.present);
	assert_string_equal(d.hunt.seed, "7");
	assert_string_equal(d.hunt.injector, "user");
	assert_true(d.hunt.planted > 0);
	assert_true(d.hunt.burst_us >= 500 && d.hunt.burst_us <= 2000);
	assert_int_equal(d.hunt.period_us, 50000);
	assert_true(d.check.present && d.check.skipped);
	assert_false(d.check.trace_cmd.present);
	assert_false(d.check.rtla.present);
	rt_result_free(res);
}

static void test_read_tracer(void **state)
{
	struct rt_result *res = fixture("ftrace-tracer.json");
	struct ftrace_doc d;
	struct ftrace_doc_line l;

	(void)state;
	assert_int_equal(ftrace_doc_read(res, &d), 0);
	assert_int_equal(d.mode, FTRACE_MODE_TRACER);
	assert_string_equal(d.scenario, "tracer-irqsoff");
	assert_true(d.tracer.present);
	assert_string_equal(d.tracer.name, "irqsoff");
	assert_false(d.tracer.top_level);
	assert_true(d.tracer.function_trace);
	assert_true(d.tracer.parsed && d.tracer.have_latency);
	assert_int_equal(d.tracer.latency_us, 512);
	assert_true(d.tracer.have_max_latency);
	assert_string_equal(d.tracer.started_at, "rtlab_inject_irqsoff");
	assert_int_equal(d.tracer.nlines, 6);
	assert_true(d.tracer.have_text);
	assert_false(d.tracer.text_truncated);

	assert_int_equal(ftrace_doc_trace_line(res, 1, &l), 0);
	assert_string_equal(l.comm, "sh");
	assert_int_equal(l.cpu, 1);
	assert_true(l.irqs_off);
	assert_false(l.need_resched);
	assert_string_equal(l.mark, "!");
	assert_string_equal(l.function, "rtlab_inject_busy_wait");
	assert_string_equal(l.caller, "rtlab_inject_irqsoff");
	assert_true(l.time_us == 1.0);
	assert_int_equal(ftrace_doc_trace_line(res, 6, &l), -ENOENT);

	assert_true(d.check.trace_cmd.ran);
	assert_int_equal(d.check.trace_cmd.count, 2011);
	assert_true(d.check.trace_cmd.p50_us == 5.0);
	assert_true(d.check.trace_cmd.count_ratio == 0.997);
	assert_true(d.check.rtla.ran);
	assert_int_equal(d.check.rtla.count, 2000);
	assert_true(d.check.rtla.avg_us == 7.4);
	assert_true(d.check.rtla.max_us == 190);
	assert_int_equal(d.check.rtla.duration_s, 2);
	rt_result_free(res);
}

/* Another lab's document reads as empty and says so; nothing here crashes on NULL. */
static void test_read_other(void **state)
{
	struct rt_result *res = fixture("latency-host.json");
	struct ftrace_doc d;
	struct ftrace_doc_line l;
	double v;

	(void)state;
	assert_int_equal(ftrace_doc_read(res, &d), -EINVAL);
	assert_string_equal(d.probe.policy, "");
	assert_string_equal(d.agreement.verdict, "");
	assert_string_equal(d.hunt.seed, "");
	assert_string_equal(d.scenario, "");
	assert_false(d.tracer.present);
	assert_int_equal(ftrace_doc_trace_line(res, 0, &l), -ENOENT);
	assert_int_equal(ftrace_doc_scenario_num(res, "events", "max_us", &v), -ENOENT);
	assert_int_equal(ftrace_doc_read(NULL, &d), -EINVAL);
	assert_string_equal(d.tracer.name, "");
	rt_result_free(res);
}

/* ---- Scenarios -------------------------------------------------------------------------- */

static bool slug(const char *s)
{
	if (!*s || *s == '-')
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '-')
			return false;
	return true;
}

static void test_scenario_table(void **state)
{
	static const char *const tracers[] = {
		"irqsoff", "preemptoff", "preemptirqsoff", "wakeup", "wakeup_rt", "wakeup_dl",
	};
	const struct ftrace_scenario *s;

	(void)state;
	/* Event mode with and without a hunt, and each latency tracer with and without. */
	assert_int_equal(ftrace_nscenarios, 2 + 2 * 6);
	for (size_t i = 0; i < ftrace_nscenarios; i++) {
		s = &ftrace_scenarios[i];
		/* A predict question's scenario is a slug (lessons/FORMAT.md). */
		assert_true(slug(s->name));
		assert_true(strlen(s->summary) > 20);
		assert_ptr_equal(ftrace_scenario_find(s->name), s);
		assert_ptr_equal(ftrace_scenario_of(s->mode, s->tracer, s->hunt), s);
		assert_int_equal(s->mode == FTRACE_MODE_TRACER, s->tracer != NULL);
		assert_int_equal(s->hunt, strstr(s->name, "-hunt") != NULL);
		for (size_t k = 0; k < i; k++)
			assert_string_not_equal(ftrace_scenarios[k].name, s->name);
	}
	for (size_t t = 0; t < 6; t++) {
		assert_true(ftrace_is_latency_tracer(tracers[t]));
		s = ftrace_scenario_of(FTRACE_MODE_TRACER, tracers[t], false);
		assert_non_null(s);
		assert_string_equal(s->tracer, tracers[t]);
	}
	assert_string_equal(ftrace_scenario_of(FTRACE_MODE_EVENTS, "irqsoff", false)->name,
			    "events");
	assert_string_equal(ftrace_scenario_of(FTRACE_MODE_EVENTS, NULL, true)->name,
			    "events-hunt");
	assert_string_equal(ftrace_scenario_of(FTRACE_MODE_TRACER, "wakeup_rt", true)->name,
			    "tracer-wakeup-rt-hunt");
	assert_null(ftrace_scenario_of(FTRACE_MODE_TRACER, "function", false));
	assert_null(ftrace_scenario_of(FTRACE_MODE_TRACER, NULL, false));
	assert_null(ftrace_scenario_find("tracer-wakeup_rt"));
	assert_null(ftrace_scenario_find(NULL));
}

/* extra.scenarios: the figures a prediction is compared with are the summary's. */
static void test_scenario_figures(void **state)
{
	struct rt_result *res = fixture("ftrace-events.json");
	json_t *summary = json_object_get(rt_result_json(res), "summary"), *v;
	const char *key;
	const char *scen = NULL;
	double got;

	(void)state;
	assert_int_equal(rt_result_param_str(res, "scenario", &scen), 0);
	assert_string_equal(scen, "events");
	json_object_foreach(summary, key, v) {
		assert_int_equal(ftrace_doc_scenario_num(res, "events", key, &got), 0);
		assert_true(got == json_number_value(v));
	}
	assert_int_equal(ftrace_doc_scenario_num(res, "events", "measured_s", &got), 0);
	assert_true(got > 1.9);
	assert_int_equal(ftrace_doc_scenario_num(res, "events", "summary", &got), -ENOENT);
	assert_int_equal(ftrace_doc_scenario_num(res, "events-hunt", "events_p99_us", &got),
			 -ENOENT);
	assert_int_equal(ftrace_doc_scenario_num(res, "events", "no_such_us", &got), -ENOENT);
	rt_result_free(res);

	/* Older documents have no extra.scenarios: nothing to compare with. */
	res = fixture("ftrace-hunt.json");
	assert_int_equal(ftrace_doc_scenario_num(res, "events-hunt", "events_p99_us", &got),
			 -ENOENT);
	rt_result_free(res);
}

/* ---- Views and text ------------------------------------------------------------------ */

static json_t *views_of(struct rt_result *res)
{
	json_t *views = json_array(), *v;
	char *cause = NULL;
	size_t i;

	assert_non_null(views);
	assert_int_equal(lab_ftrace.views(res, views, &cause), 0);
	assert_null(cause);
	/* Each is a valid view of rtlab.result/2: the validator takes it into the document. */
	json_array_foreach(views, i, v) {
		json_incref(v);
		if (rt_result_add_view(res, v, &cause))
			fail_msg("view %zu: %s", i, cause);
	}
	{
		char *text = rt_result_to_string(res, &cause);

		if (!text)
			fail_msg("document with views: %s", cause);
		free(text);
	}
	return views;
}

static json_t *view_named(json_t *views, const char *name)
{
	json_t *v;
	size_t i;

	json_array_foreach(views, i, v)
		if (!strcmp(json_string_value(json_object_get(v, "name")), name))
			return v;
	return NULL;
}

static json_t *cell(json_t *view, size_t row, size_t col)
{
	return json_array_get(json_array_get(json_object_get(view, "rows"), row), col);
}

static void assert_names(json_t *views, const char *const *names)
{
	size_t n = 0;

	for (; names[n]; n++)
		assert_string_equal(json_string_value(json_object_get(json_array_get(views, n),
								      "name")), names[n]);
	assert_int_equal(json_array_size(views), n);
}

static void test_views_events(void **state)
{
	static const char *const names[] = { "run", "wakeups", "agreement", "cross_check", NULL };
	struct rt_result *res = fixture("ftrace-events.json");
	struct ftrace_doc d;
	json_t *views, *w, *c;

	(void)state;
	assert_int_equal(ftrace_doc_read(res, &d), 0);
	views = views_of(res);
	assert_names(views, names);
	/* The run: its scenario first, then the agreement's verdict. */
	assert_string_equal(json_string_value(cell(view_named(views, "run"), 0, 1)), "events");
	assert_string_equal(json_string_value(cell(view_named(views, "run"), 5, 1)),
			    d.agreement.verdict);
	/* Wake-ups: the probe's row, then the events' with their unmatched and lost. */
	w = view_named(views, "wakeups");
	assert_int_equal(json_array_size(json_object_get(w, "rows")), 2);
	assert_int_equal(json_integer_value(cell(w, 0, 1)), d.probe.d.count);
	assert_true(json_number_value(cell(w, 0, 3)) == d.probe.d.p99_us);
	assert_true(json_is_null(cell(w, 0, 6)));
	assert_int_equal(json_integer_value(cell(w, 1, 1)), d.events.d.count);
	assert_int_equal(json_integer_value(cell(w, 1, 5)), d.events.unmatched_wakings);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
		json_object_get(w, "columns"), 4), "unit")), "us");
	/* The cross-check: two tools that did not run, each with its reason. */
	c = view_named(views, "cross_check");
	assert_int_equal(json_array_size(json_object_get(c, "rows")), 2);
	assert_true(json_is_false(cell(c, 0, 1)));
	assert_string_equal(json_string_value(cell(c, 0, 6)), d.check.trace_cmd.reason);
	assert_string_equal(json_string_value(cell(c, 1, 0)), "rtla timerlat");
	json_decref(views);
	rt_result_free(res);
}

static void test_views_hunt(void **state)
{
	static const char *const names[] = { "run", "wakeups", "agreement", "hunt", "cross_check",
					      NULL };
	struct rt_result *res = fixture("ftrace-hunt.json");
	json_t *views, *h, *truth;
	char *dump;

	(void)state;
	truth = json_object_get(json_object_get(json_object_get(rt_result_json(res), "extra"),
						"hunt"), "truth");
	assert_non_null(truth);
	views = views_of(res);
	assert_names(views, names);
	h = view_named(views, "hunt");
	assert_string_equal(json_string_value(cell(h, 0, 0)), "7");
	assert_string_equal(json_string_value(cell(h, 0, 1)), "user");
	assert_true(json_integer_value(cell(h, 0, 2)) > 0);
	/* The truth is nowhere in the views: the learner hunts for it. */
	dump = json_dumps(views, 0);
	assert_null(strstr(dump, json_string_value(json_object_get(truth, "function"))));
	assert_null(strstr(dump, "trace_hog_"));
	free(dump);
	/* Skipped cross-check: one row that says so. */
	assert_string_equal(json_string_value(cell(view_named(views, "cross_check"), 0, 6)),
			    "skipped: --no-cross-check");
	json_decref(views);
	rt_result_free(res);
}

static void test_views_tracer(void **state)
{
	static const char *const names[] = { "run", "wakeups", "agreement", "tracer", "trace",
					      "cross_check", NULL };
	struct rt_result *res = fixture("ftrace-tracer.json");
	json_t *views, *t, *c;

	(void)state;
	views = views_of(res);
	assert_names(views, names);
	assert_string_equal(json_string_value(cell(view_named(views, "run"), 0, 1)),
			    "tracer-irqsoff");
	t = view_named(views, "tracer");
	assert_string_equal(json_string_value(cell(t, 0, 0)), "irqsoff");
	assert_string_equal(json_string_value(cell(t, 0, 1)), "an instance");
	assert_true(json_number_value(cell(t, 0, 2)) == 512);
	assert_non_null(strstr(json_string_value(cell(t, 0, 8)), "began and ended"));
	t = view_named(views, "trace");
	assert_int_equal(json_array_size(json_object_get(t, "rows")), 6);
	assert_string_equal(json_string_value(cell(t, 1, 6)), "rtlab_inject_busy_wait");
	assert_string_equal(json_string_value(cell(t, 2, 3)), "irqs-off need-resched normal");
	c = view_named(views, "cross_check");
	assert_true(json_is_true(cell(c, 0, 1)));
	assert_int_equal(json_integer_value(cell(c, 0, 2)), 2011);
	assert_true(json_is_null(cell(c, 0, 4)));	/* trace-cmd has no average */
	assert_true(json_number_value(cell(c, 1, 4)) == 7.4);
	assert_true(json_is_null(cell(c, 1, 3)));	/* rtla has no median */
	json_decref(views);
	rt_result_free(res);
}

/* A long trace shows its first 20 entries and says how many the document keeps. */
/* Empty fields are explained, never left blank: a wakeup tracer, and no entries. */
static void test_views_tracer_reading(void **state)
{
	struct rt_result *res = fixture("ftrace-tracer.json");
	json_t *tr = json_object_get(json_object_get(rt_result_json(res), "extra"), "tracer");
	json_t *views, *t;

	(void)state;
	json_object_set_new(tr, "name", json_string("wakeup_rt"));
	json_object_set_new(tr, "started_at", json_string(""));
	json_object_set_new(tr, "ended_at", json_string(""));
	views = views_of(res);
	t = view_named(views, "tracer");
	assert_true(json_is_null(cell(t, 0, 5)));
	assert_non_null(strstr(json_string_value(cell(t, 0, 8)), "names no started/ended"));
	json_decref(views);
	rt_result_free(res);
	res = fixture("ftrace-tracer.json");
	tr = json_object_get(json_object_get(rt_result_json(res), "extra"), "tracer");
	json_object_set_new(tr, "entries_count", json_integer(0));
	json_object_set_new(tr, "threshold_us", json_integer(100));
	views = views_of(res);
	t = view_named(views, "tracer");
	assert_non_null(strstr(json_string_value(cell(t, 0, 8)), "no section crossed"));
	json_decref(views);
	rt_result_free(res);
}

static void test_views_long_trace(void **state)
{
	struct rt_result *res = fixture("ftrace-tracer.json");
	json_t *lines = json_object_get(json_object_get(json_object_get(rt_result_json(res),
		"extra"), "tracer"), "lines"), *views, *t;

	(void)state;
	/* 30 entries 1 us apart, but 8 ms between the 25th and the 26th. */
	while (json_array_size(lines) < 30)
		json_array_append_new(lines, json_deep_copy(json_array_get(lines, 0)));
	for (size_t i = 0; i < 30; i++)
		json_object_set_new(json_array_get(lines, i), "time_us",
				    json_real((double)i + (i >= 25 ? 8000 : 0)));
	views = views_of(res);
	t = view_named(views, "trace");
	assert_int_equal(json_array_size(json_object_get(t, "rows")), 20);
	/* The window holds the gap: entries 11-30, not the first 20. */
	assert_non_null(strstr(json_string_value(json_object_get(t, "title")),
			       "entries 11-30 of 30, around the widest gap (8001 us before entry 26)"));
	assert_true(json_number_value(json_array_get(json_array_get(json_object_get(t, "rows"),
								    19), 4)) == 8029);
	json_decref(views);
	rt_result_free(res);
}

static void test_views_refused(void **state)
{
	struct rt_result *res = fixture("latency-host.json");
	json_t *views = json_array();
	char *cause = NULL;

	(void)state;
	assert_int_equal(lab_ftrace.views(res, views, &cause), -EINVAL);
	assert_non_null(strstr(cause, "ftrace"));
	assert_int_equal(json_array_size(views), 0);
	free(cause);
	json_decref(views);
	rt_result_free(res);
}

/* ---- The tracer's trace for the viewer -------------------------------------------------- */

static void test_trace_from_document(void **state)
{
	struct trace_explain *x = NULL;
	char *cause = NULL, *doc = fixture_text("ftrace-tracer.json");
	json_t *j;

	(void)state;
	assert_int_equal(lab_trace_load(doc, strlen(doc), "r.json", &x, &cause), 0);
	assert_true(x->from_results);
	assert_false(x->truncated);
	assert_int_equal(x->nlines, 34);	/* the same lines as tests/data/traces/irqsoff.txt */
	assert_non_null(trace_explain_entry_at(x, 23));
	assert_string_equal(x->trace->tracer, "irqsoff");
	trace_explain_free(x);

	/* A cut trace says so. */
	j = json_loads(doc, 0, NULL);
	json_object_set_new(json_object_get(json_object_get(j, "extra"), "tracer"),
			    "trace_text_truncated", json_true());
	free(doc);
	doc = json_dumps(j, 0);
	json_decref(j);
	assert_int_equal(lab_trace_load(doc, strlen(doc), NULL, &x, &cause), 0);
	assert_true(x->truncated);
	assert_string_equal(x->name, "trace");
	trace_explain_free(x);
	free(doc);

	/* A raw trace goes straight through. */
	{
		static const char raw[] = "# tracer: nop\n#\n  <idle>-0 [000] d..1. 12.000001: "
					  "sched_switch: prev=a next=b\n";

		assert_int_equal(lab_trace_load(raw, sizeof(raw) - 1, "n.txt", &x,
							 &cause), 0);
		assert_false(x->from_results);
		trace_explain_free(x);
	}
}

static void test_trace_refusals(void **state)
{
	struct trace_explain *x = NULL;
	char *cause = NULL, *doc;

	(void)state;
	/* An event-mode document says why there is no trace and how to get one. */
	doc = fixture_text("ftrace-events.json");
	assert_int_equal(lab_trace_load(doc, strlen(doc), "e.json", &x, &cause),
			 -EINVAL);
	assert_null(x);
	assert_non_null(strstr(cause, "e.json: an event-mode run"));
	assert_non_null(strstr(cause, "rtlab lab run ftrace --mode tracer --json FILE"));
	assert_non_null(strstr(cause, "rtlab vm run --kernel lab"));
	free(cause);
	cause = NULL;
	free(doc);

	/* A tracer-mode document whose trace was not read. */
	{
		json_t *j;

		doc = fixture_text("ftrace-tracer.json");
		j = json_loads(doc, 0, NULL);
		free(doc);
		json_object_set_new(json_object_get(json_object_get(j, "extra"), "tracer"),
				    "trace_text", json_null());
		doc = json_dumps(j, 0);
		json_decref(j);
	}
	assert_int_equal(lab_trace_load(doc, strlen(doc), "t.json", &x, &cause),
			 -EINVAL);
	assert_non_null(strstr(cause, "t.json: the tracer's trace could not be read"));
	assert_non_null(strstr(cause, "is not text"));
	free(cause);
	cause = NULL;
	free(doc);

	/* Another lab's results, and JSON that is no results document. */
	doc = fixture_text("latency-host.json");
	assert_int_equal(lab_trace_load(doc, strlen(doc), "l.json", &x, &cause),
			 -EINVAL);
	assert_non_null(strstr(cause, "results of the latency lab"));
	free(cause);
	cause = NULL;
	free(doc);
	assert_int_equal(lab_trace_load(" {\"a\": 1}", 9, "a.json", &x, &cause),
			 -EINVAL);
	assert_non_null(strstr(cause, "a.json: schema"));
	free(cause);
	cause = NULL;
	/* The validator runs first, as for `lab report` and `grade`. */
	doc = strdup("{\"schema\": \"rtlab.result/1\", \"lab\": \"ftrace\", \"extra\": "
		     "{\"tracer\": {\"trace_text\": \"# tracer: irqsoff\\n\"}}}");
	assert_int_equal(lab_trace_load(doc, strlen(doc), "v.json", &x, &cause),
			 -EINVAL);
	assert_null(x);
	assert_non_null(strstr(cause, "v.json: "));
	assert_null(strstr(cause, "irqsoff"));
	free(cause);
	cause = NULL;
	free(doc);
	assert_int_equal(lab_trace_load("{oops", 5, "b.json", &x, &cause), -EINVAL);
	assert_non_null(strstr(cause, "b.json:1:"));
	free(cause);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_events),
		cmocka_unit_test(test_read_hunt),
		cmocka_unit_test(test_read_tracer),
		cmocka_unit_test(test_read_other),
		cmocka_unit_test(test_scenario_table),
		cmocka_unit_test(test_scenario_figures),
		cmocka_unit_test(test_views_events),
		cmocka_unit_test(test_views_hunt),
		cmocka_unit_test(test_views_tracer),
		cmocka_unit_test(test_views_long_trace),
		cmocka_unit_test(test_views_tracer_reading),
		cmocka_unit_test(test_views_refused),
		cmocka_unit_test(test_trace_from_document),
		cmocka_unit_test(test_trace_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
