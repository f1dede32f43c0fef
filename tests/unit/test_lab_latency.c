/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the latency lab: the scenario table (every scenario the
 * lessons name exists and is documented), the option parser (defaults,
 * scenarios, overrides, every kind of error; the number, duration and CPU
 * list grammars are test_rt_parse's), the grade on hand-built
 * documents (each check seen passing and failing, a throughput scenario
 * ignored), the framework helpers (grade_report, written answers in a temp
 * progress file), short real runs through lab_ops (one complete, one
 * stopped before it started, the slack-free scenario's slack, the
 * throughput scenario's document, views and live line), and the mark on a
 * percentile resting on too few samples.
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
#include <sys/prctl.h>
#include <unistd.h>

#include "core/rt_buf.h"
#include "core/rt_env.h"
#include "core/rt_file.h"
#include "core/rt_hist.h"
#include "core/rt_journal-int.h"
#include "core/rt_journal.h"
#include "core/rt_preempt.h"
#include "core/rt_parse.h"
#include "core/rt_result.h"
#include "labs/lab_latency_work.h"
#include "labs/lab.h"
#include "labs/lab_latency.h"
#include "lesson_labs_fixture.h"

/* ---- Scenario table ---------------------------------------------------------- */

static void test_scenarios(void **state)
{
	static const char *const named_by_lessons[] = { "idle-other", "load-other", "idle-fifo",
							"load-fifo", "load-fifo-rt", "load-deadline" };
	static const char *const required[] = { "load-fifo-mlock", "load-fifo-mlock-pinned",
						"load-fifo-faults" };
	const struct latency_scenario *s;
	size_t nrt = 0;

	(void)state;
	for (size_t i = 0; i < 6; i++)
		assert_non_null(latency_scenario_find(named_by_lessons[i]));
	for (size_t i = 0; i < 3; i++)
		assert_non_null(latency_scenario_find(required[i]));
	assert_null(latency_scenario_find("Load-fifo"));
	for (size_t i = 0; i < latency_nscenarios; i++) {
		s = &latency_scenarios[i];
		assert_true(strlen(s->summary) > 20);
		assert_true(strlen(s->name) < LATENCY_NAME_MAX);
		if (s->policy == SCHED_OTHER || s->policy == SCHED_DEADLINE)
			assert_int_equal(s->priority, 0);
		else
			assert_true(s->priority >= 1 && s->priority <= 99);
		assert_true(!strncmp(s->name, "load-", 5) == (s->load != NULL));
		nrt += s->needs_preempt_rt;
	}
	assert_int_equal(nrt, 1);
	s = latency_scenario_find("load-fifo-rt");
	assert_true(s->needs_preempt_rt && s->mlock && s->pinned && s->policy == SCHED_FIFO);
	s = latency_scenario_find("load-fifo-faults");
	assert_false(s->mlock);
	assert_non_null(strstr(s->load, "pagefault"));
	assert_true(latency_scenario_find("load-fifo-mlock")->mlock);
	assert_false(latency_scenario_find("load-fifo")->mlock);
	assert_true(latency_scenario_find("load-fifo-mlock-pinned")->pinned);
	/* The mlockall demonstration: the same fresh memory, without and with the lock. */
	s = latency_scenario_find("load-fifo-alloc");
	assert_true(s->alloc_kib == LATENCY_ALLOC_KIB && !s->mlock && s->policy == SCHED_FIFO);
	s = latency_scenario_find("load-fifo-alloc-mlock");
	assert_true(s->alloc_kib == LATENCY_ALLOC_KIB && s->mlock && s->policy == SCHED_FIFO);
	assert_int_equal(latency_scenario_find("load-fifo-mlock")->alloc_kib, 0);

	/* The slack-free twins: SCHED_OTHER at 1 ns, otherwise their sibling. */
	for (size_t i = 0; i < 2; i++) {
		const struct latency_scenario *twin = latency_scenario_find(
			i ? "load-other-noslack" : "idle-other-noslack");
		const struct latency_scenario *sib = latency_scenario_find(
			i ? "load-other" : "idle-other");

		assert_non_null(twin);
		assert_int_equal(twin->timer_slack_ns, 1);
		assert_int_equal(sib->timer_slack_ns, 0);
		assert_int_equal(twin->policy, SCHED_OTHER);
		assert_true((twin->load == NULL) == (sib->load == NULL));
		assert_false(twin->throughput);
	}
	/* One throughput scenario, and it measures no latency. */
	for (size_t i = 0, n = 0; i < latency_nscenarios; i++) {
		n += latency_scenarios[i].throughput;
		if (i + 1 == latency_nscenarios)
			assert_int_equal(n, 1);
	}
	s = latency_scenario_find("throughput");
	assert_true(s->throughput && s->policy == SCHED_OTHER && !s->load && !s->pinned);
}

/* ---- Parsers ------------------------------------------------------------------ */

/* --cpus against the online CPUs: checked at parse time, the set passed in. */
static void test_cpus_usable(void **state)
{
	struct latency_params p;
	cpu_set_t two, one;
	char *cause = NULL, list[64];

	(void)state;
	CPU_ZERO(&two);
	CPU_SET(0, &two);
	CPU_SET(1, &two);
	CPU_ZERO(&one);
	CPU_SET(1, &one);
	latency_params_init(&p);
	assert_int_equal(latency_params_check_cpus(&p, &one, &cause), 0);	/* no --cpus */

	p.ncpus = 1;
	p.cpus[0] = 5;
	assert_int_equal(latency_params_check_cpus(&p, &two, &cause), -EINVAL);
	assert_string_equal(cause, "--cpus: CPU 5 is not online here (the online CPUs are 0-1)");
	free(cause);
	cause = NULL;

	assert_int_equal(rt_parse_cpus("--cpus", "0-1023", LATENCY_MAX_CPUS, p.cpus,
				       LATENCY_MAX_CPUS, &p.ncpus, NULL), 0);
	assert_int_equal(latency_params_check_cpus(&p, &two, &cause), -EINVAL);
	assert_string_equal(cause, "--cpus: CPUs 2-1023 are not online here (the online CPUs "
			    "are 0-1)");
	free(cause);
	cause = NULL;

	assert_int_equal(rt_parse_cpus("--cpus", "1,0", LATENCY_MAX_CPUS, p.cpus,
				       LATENCY_MAX_CPUS, &p.ncpus, NULL), 0);
	assert_int_equal(latency_params_check_cpus(&p, &two, &cause), 0);
	assert_int_equal(latency_params_check_cpus(&p, &one, &cause), -EINVAL);
	assert_string_equal(cause, "--cpus: CPU 0 is not online here (the online CPUs are 1)");
	free(cause);

	latency_format_cpus(&two, list, sizeof(list));
	assert_string_equal(list, "0-1");
	CPU_SET(3, &two);
	CPU_SET(7, &two);
	CPU_SET(8, &two);
	latency_format_cpus(&two, list, sizeof(list));
	assert_string_equal(list, "0-1,3,7-8");
	latency_format_cpus(&two, list, 6);	/* cut at a whole entry */
	assert_string_equal(list, "0-1,3");
}

static int parse(struct latency_params *p, char **cause, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;

	argv[argc++] = "latency";
	va_start(ap, cause);
	for (char *a = va_arg(ap, char *); a && argc < 31; a = va_arg(ap, char *))
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	return latency_params_parse(argc, argv, p, cause);
}

static void test_params_defaults_and_scenarios(void **state)
{
	struct latency_params p;
	char *cause = NULL;

	(void)state;
	assert_int_equal(parse(&p, &cause, NULL), 0);
	assert_int_equal(p.nplans, 4);
	assert_string_equal(p.plan[0].name, "idle-other");
	assert_string_equal(p.plan[3].name, "load-fifo");
	assert_int_equal(p.duration_ms, LATENCY_DEFAULT_DURATION_MS);
	assert_int_equal(p.interval_us, 1000);
	assert_int_equal(p.threads, 1);
	assert_false(p.custom);

	assert_int_equal(parse(&p, &cause, "--scenario", "load-fifo-rt", "--scenario=idle-other,"
			       "load-other", "--duration", "3s", NULL), 0);
	assert_int_equal(p.nplans, 3);
	assert_string_equal(p.plan[0].name, "load-fifo-rt");
	assert_true(p.plan[0].needs_preempt_rt);
	assert_int_equal(p.duration_ms, 3000);
}

static void test_params_custom_and_overrides(void **state)
{
	struct latency_params p;
	char *cause = NULL;

	(void)state;
	/* The bench's command line: one custom scenario. */
	assert_int_equal(parse(&p, &cause, "--policy", "fifo", "--priority", "90", "--interval",
			       "1000", "--threads", "1", "--cpus", "1", "--mlock", "--load", "cpu",
			       "--duration", "20s", "--hist-max", "1000", NULL), 0);
	assert_true(p.custom);
	assert_int_equal(p.nplans, 1);
	assert_string_equal(p.plan[0].name, "custom");
	assert_int_equal(p.plan[0].policy, SCHED_FIFO);
	assert_int_equal(p.plan[0].priority, 90);
	assert_true(p.plan[0].mlock);
	assert_true(p.plan[0].pinned);
	assert_string_equal(p.plan[0].load, "cpu");
	assert_int_equal(p.ncpus, 1);
	assert_int_equal(p.cpus[0], 1);
	assert_int_equal(p.hist_max_us, 1000);

	/* --alloc alone makes a custom scenario; with --scenario it overrides each one. */
	assert_int_equal(parse(&p, &cause, "--alloc", "128", NULL), 0);
	assert_true(p.custom);
	assert_int_equal(p.plan[0].alloc_kib, 128);
	assert_int_equal(parse(&p, &cause, "--scenario", "idle-fifo,load-fifo-alloc", "--alloc",
			       "32", NULL), 0);
	assert_int_equal(p.plan[0].alloc_kib, 32);
	assert_int_equal(p.plan[1].alloc_kib, 32);
	assert_int_equal(parse(&p, &cause, "--scenario", "load-fifo-alloc", NULL), 0);
	assert_int_equal(p.plan[0].alloc_kib, LATENCY_ALLOC_KIB);

	/* A bare --priority means fifo, as cyclictest -p. */
	assert_int_equal(parse(&p, &cause, "--priority", "80", NULL), 0);
	assert_int_equal(p.plan[0].policy, SCHED_FIFO);
	assert_int_equal(p.plan[0].priority, 80);

	/* Overrides apply to every chosen scenario. */
	assert_int_equal(parse(&p, &cause, "--scenario", "idle-other,load-fifo", "--policy", "rr",
			       "--load", "none", "--dma-latency", "--spike", "50",
			       "--trace-marker=100", "--distance", "0", NULL), 0);
	assert_false(p.custom);
	for (unsigned int i = 0; i < 2; i++) {
		assert_int_equal(p.plan[i].policy, SCHED_RR);
		assert_int_equal(p.plan[i].priority, LATENCY_DEFAULT_PRIORITY);
		assert_string_equal(p.plan[i].load, "");
	}
	assert_true(p.dma_latency);
	assert_int_equal(p.spike_us, 50);
	assert_int_equal(p.trace_marker_us, 100);
	assert_int_equal(p.distance_us, 0);

	assert_int_equal(parse(&p, &cause, "--scenario", "load-fifo", "--policy", "other", NULL),
			 0);
	assert_int_equal(p.plan[0].policy, SCHED_OTHER);
	assert_int_equal(p.plan[0].priority, 0);

	/* --timer-slack alone describes one custom scenario, SCHED_OTHER at that slack. */
	assert_int_equal(parse(&p, &cause, "--timer-slack", "1", NULL), 0);
	assert_true(p.custom);
	assert_int_equal(p.plan[0].policy, SCHED_OTHER);
	assert_int_equal(p.plan[0].timer_slack_ns, 1);
	assert_int_equal(p.repeats, LATENCY_DEFAULT_REPEATS);

	/* The probe's options leave throughput alone; --repeats is its own. */
	assert_int_equal(parse(&p, &cause, "--scenario", "idle-other,throughput", "--policy",
			       "fifo", "--load", "cpu", "--mlock", "--timer-slack", "5000",
			       "--repeats", "3", "--duration", "2s", NULL), 0);
	assert_int_equal(p.nplans, 2);
	assert_int_equal(p.plan[0].policy, SCHED_FIFO);
	assert_int_equal(p.plan[0].timer_slack_ns, 5000);
	assert_string_equal(p.plan[0].load, "cpu");
	assert_true(p.plan[1].throughput);
	assert_int_equal(p.plan[1].policy, SCHED_OTHER);
	assert_int_equal(p.plan[1].timer_slack_ns, 0);
	assert_string_equal(p.plan[1].load, "");
	assert_false(p.plan[1].mlock);
	assert_int_equal(p.repeats, 3);
}

static void test_params_errors(void **state)
{
	static const char *const bad[][4] = {
		{ "--bogus" }, { "stray" }, { "--scenario", "nope" },
		{ "--scenario", "idle-other,idle-other" }, { "--duration", "ten" },
		{ "--policy", "deadline", "--priority", "5" }, { "--priority", "0" }, { "--priority", "100" },
		{ "--policy", "other", "--priority", "5" }, { "--interval", "0" },
		{ "--policy", "fifo", "--interval", "10" }, { "--threads", "0" },
		{ "--threads", "65" }, { "--cpus", "x" }, { "--load", "bogus" },
		{ "--load", "cpu,cpu" }, { "--load", "cpu,,io" }, { "--hist-max", "0" },
		{ "--mlock=yes" }, { "--duration" }, { "--interval", "900000", "--threads", "2" },
		{ "--" }, { "--spike", "-1" }, { "--scenario", "," }, { "--scenario", "idle-other," },
		{ "--timer-slack", "0" }, { "--timer-slack", "1000000001" }, { "--repeats", "0" },
		{ "--repeats", "101" }, { "--dl-runtime", "300" },
		{ "--policy", "deadline", "--dl-runtime", "1500" },
		{ "--scenario", "load-deadline", "--dl-deadline", "2000" },
		{ "--policy", "deadline", "--dl-runtime", "1" },
		{ "--scenario", "idle-deadline", "--dl-period", "100" },
	};
	struct latency_params p;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[6] = { "latency" }, *cause = NULL;
		int argc = 1;

		for (size_t k = 0; k < 4 && bad[i][k]; k++)
			argv[argc++] = (char *)bad[i][k];
		if (i == 20)
			argv[argc++] = "--distance=200000";
		assert_int_equal(latency_params_parse(argc, argv, &p, &cause), -EINVAL);
		assert_non_null(cause);
		free(cause);
	}
}

/* SCHED_DEADLINE: the scenarios, --policy deadline and its reservation; spikes_pct's share. */
static void test_params_deadline(void **state)
{
	struct latency_params p;
	char *cause = NULL;

	(void)state;
	assert_int_equal(parse(&p, &cause, "--scenario", "idle-deadline,load-deadline", NULL), 0);
	assert_int_equal(p.nplans, 2);
	assert_int_equal(p.plan[0].policy, SCHED_DEADLINE);
	assert_int_equal(p.plan[0].priority, 0);
	assert_string_equal(p.plan[0].load, "");
	assert_int_equal(p.plan[1].policy, SCHED_DEADLINE);
	assert_string_equal(p.plan[1].load, "cpu,msg");
	assert_int_equal(p.dl_runtime_us, LATENCY_DEFAULT_DL_RUNTIME_US);
	assert_int_equal(p.dl_deadline_us, 0);
	assert_int_equal(p.dl_period_us, 0);
	assert_string_equal(latency_policy_name(SCHED_DEADLINE), "deadline");

	assert_int_equal(parse(&p, &cause, "--policy", "deadline", "--dl-runtime", "100",
			       "--dl-deadline", "500", "--dl-period", "2000", NULL), 0);
	assert_true(p.custom);
	assert_int_equal(p.plan[0].policy, SCHED_DEADLINE);
	assert_int_equal(p.dl_runtime_us, 100);
	assert_int_equal(p.dl_deadline_us, 500);
	assert_int_equal(p.dl_period_us, 2000);

	/* A FIFO scenario turned deadline loses its priority. */
	assert_int_equal(parse(&p, &cause, "--scenario", "load-fifo", "--policy", "deadline",
			       NULL), 0);
	assert_int_equal(p.plan[0].policy, SCHED_DEADLINE);
	assert_int_equal(p.plan[0].priority, 0);

	assert_int_equal(parse(&p, &cause, "--scenario", "load-deadline", "--dl-runtime", "1500",
			       NULL), -EINVAL);
	assert_non_null(strstr(cause, "--dl-runtime <= --dl-deadline <= --dl-period"));
	free(cause);
	cause = NULL;

	assert_true(latency_share_pct(0, 0) == 0);
	assert_true(latency_share_pct(5, 5) == 100);
	assert_true(latency_share_pct(1, 3) == 33.333);
	assert_true(latency_share_pct(2, 3) == 66.667);
	assert_true(latency_share_pct(1, 200000) == 0.001);
}

/* A throughput run shorter than 100 ms per workload run is refused, naming the way out. */
static void test_params_throughput_duration(void **state)
{
	struct latency_params p;
	char *cause = NULL;

	(void)state;
	assert_int_equal(parse(&p, &cause, "--scenario", "throughput", "--duration", "1s", NULL),
			 -EINVAL);
	assert_non_null(strstr(cause, "each of its 20 runs would last 50 ms"));
	assert_non_null(strstr(cause, "--duration 2s or more"));
	free(cause);
	cause = NULL;
	assert_int_equal(parse(&p, &cause, "--scenario", "throughput", "--duration", "1s",
			       "--repeats", "2", NULL), 0);
	/* A day in four runs is too long for one run. */
	assert_int_equal(parse(&p, &cause, "--scenario", "throughput", "--duration", "1d",
			       "--repeats", "1", NULL), -EINVAL);
	assert_non_null(strstr(cause, "more --repeats"));
	free(cause);
	cause = NULL;
	/* The rule is the throughput scenario's: a latency scenario may be short. */
	assert_int_equal(parse(&p, &cause, "--scenario", "idle-other", "--duration", "100ms",
			       NULL), 0);
}

/* ---- Grading on hand-built documents ----------------------------------------- */

struct docspec {
	const char *tier;
	uint64_t samples;		/* per scenario */
	bool skip_load_fifo;
	bool rt_refused;
	double fifo_p99, other_p99;
	bool other_above;
	bool interrupted;
	bool predictions;		/* answers for the listed predictions */
	bool answers;
};

static struct rt_result *make_doc(const struct docspec *d)
{
	static const char *const names[] = { "idle-other", "load-other", "load-fifo" };
	struct rt_env env = { .kernel_release = "6.1.0", .kernel_version = "#1 SMP",
			      .machine = "x86_64", .preempt_model = "voluntary",
			      .preempt_source = "test", .cpus = 2, .root = true };
	struct rt_result *res = rt_result_new("latency", d->tier, &env);
	json_t *extra, *scens = json_array(), *preds = json_array();

	assert_non_null(res);
	for (size_t i = 0; i < 3; i++) {
		bool fifo = i == 2;
		double p99 = fifo ? d->fifo_p99 : d->other_p99;

		if (fifo && d->skip_load_fifo)
			continue;
		assert_int_equal(json_array_append_new(scens, json_pack(
			"{s:s, s:s, s:s, s:I, s:f, s:b, s:o, s:[{s:i}]}", "name", names[i],
			"policy_requested", fifo ? "fifo" : "other", "policy",
			fifo && !d->rt_refused ? "fifo" : "other",
			"samples_count", (json_int_t)d->samples, "p99_us", p99, "p99_above_bound",
			!fifo && d->other_above, "rt_refused", fifo && d->rt_refused ?
			json_string("not root") : json_null(), "threads", "interval_us", 1000)),
			0);
	}
	assert_int_equal(json_array_append_new(preds, json_pack("{s:s, s:s}", "answer_key",
		"predict.03.predict-fifo-p99", "scenario", "load-fifo")), 0);
	assert_int_equal(json_array_append_new(preds, json_pack("{s:s, s:s}", "answer_key",
		"predict.05.predict-rt-p99-pinned", "scenario", "load-fifo-rt")), 0);
	extra = rt_result_extra(res);
	json_object_set_new(extra, "scenarios", scens);
	json_object_set_new(extra, "predictions", preds);
	json_object_set_new(extra, "interrupted", json_boolean(d->interrupted));
	if (d->predictions)
		assert_int_equal(rt_result_set_answer_num(res, "predict.03.predict-fifo-p99", 20), 0);
	if (d->answers)
		for (const char *const *q = latency_questions; *q; q++)
			assert_int_equal(rt_result_set_answer_str(res, *q, "because"), 0);
	return res;
}

static const struct docspec good = {
	.tier = "host", .samples = 15000, .fifo_p99 = 20, .other_p99 = 300,
	.predictions = true, .answers = true,
};

/* Grade @d, return whether check @name passed (fails the test if it is absent). */
static bool check_result(const struct docspec *d, const char *name, bool *all)
{
	struct lab_result lr = { .res = make_doc(d) };
	struct grade_report rep = { 0 };
	bool found = false, passed = false;

	assert_int_equal(lab_latency.grade(&lr, &rep), 0);
	for (size_t i = 0; i < rep.nchecks; i++) {
		assert_non_null(rep.checks[i].detail);
		if (!strcmp(rep.checks[i].name, name)) {
			found = true;
			passed = rep.checks[i].passed;
		}
	}
	assert_true(found);
	if (all)
		*all = grade_report_passed(&rep);
	grade_report_fini(&rep);
	lab_result_fini(&lr);
	return passed;
}

/* Too few samples: the check says which --duration would have been enough. */
static void test_grade_samples_say_duration(void **state)
{
	struct docspec d = good;
	struct lab_result lr;
	struct grade_report rep = { 0 };
	bool said = false;

	(void)state;
	d.samples = 9849;		/* a 10 s scenario at 1 ms: start-up and drops */
	lr.res = make_doc(&d);
	lr.interrupted = false;
	assert_int_equal(lab_latency.grade(&lr, &rep), 0);
	for (size_t i = 0; i < rep.nchecks; i++)
		if (!strcmp(rep.checks[i].name, "scenario-idle-other")) {
			assert_false(rep.checks[i].passed);
			said = strstr(rep.checks[i].detail, "--duration 12s or longer") != NULL;
		}
	assert_true(said);
	grade_report_fini(&rep);
	lab_result_fini(&lr);
}

/* The status of check @name in @rep: 1 passed, 0 failed, -1 absent. */
static int check_in(const struct grade_report *rep, const char *name)
{
	for (size_t i = 0; i < rep->nchecks; i++)
		if (!strcmp(rep->checks[i].name, name))
			return rep->checks[i].passed;
	return -1;
}

/* Lesson 16's scenarios: graded only when present, an idle module and a lone side fail. */
static void test_grade_kside(void **state)
{
	struct lab_result lr = { .res = make_doc(&good) };
	struct grade_report rep = { 0 };
	json_t *scens;

	(void)state;
	assert_int_equal(lab_latency.grade(&lr, &rep), 0);
	for (size_t i = 0; i < rep.nchecks; i++)
		assert_null(strstr(rep.checks[i].name, "kside"));	/* none without them */
	grade_report_fini(&rep);
	scens = rt_result_scenarios(lr.res);
	assert_int_equal(json_array_append_new(scens, json_pack("{s:s, s:s, s:i}", "name",
		"irqthread-above", "kside", "irq_thread", "inject_sections_count", 50)), 0);
	assert_int_equal(json_array_append_new(scens, json_pack("{s:s, s:s, s:i, s:s}", "name",
		"lock-raw", "kside", "raw_lock", "inject_sections_count", 0, "inject_error",
		"No such file or directory")), 0);
	assert_int_equal(lab_latency.grade(&lr, &rep), 0);
	assert_int_equal(check_in(&rep, "kside-irqthread-above"), 1);
	assert_int_equal(check_in(&rep, "kside-lock-raw"), 0);
	assert_int_equal(check_in(&rep, "kside-irqthread-above-and-irqthread-below"), 0);
	assert_int_equal(check_in(&rep, "kside-lock-raw-and-lock-sleeping"), 0);
	assert_false(grade_report_passed(&rep));
	grade_report_fini(&rep);
	assert_int_equal(json_array_append_new(scens, json_pack("{s:s, s:s, s:i}", "name",
		"irqthread-below", "kside", "irq_thread", "inject_sections_count", 50)), 0);
	assert_int_equal(lab_latency.grade(&lr, &rep), 0);
	assert_int_equal(check_in(&rep, "kside-irqthread-above-and-irqthread-below"), 1);
	grade_report_fini(&rep);
	lab_result_fini(&lr);
}

static size_t nquestions(void)
{
	size_t n = 0;

	while (latency_questions[n])
		n++;
	return n;
}

static void test_grade_all_pass(void **state)
{
	struct lab_result lr = { .res = make_doc(&good) };
	struct grade_report rep = { 0 };
	char *text;

	(void)state;
	/* The document must itself be valid. */
	text = rt_result_to_string(lr.res, NULL);
	assert_non_null(text);
	free(text);
	assert_int_equal(latency_grade(&lr, &rep), 0);
	assert_int_equal(rep.nchecks, 6 + nquestions());
	assert_int_equal(rep.nreview, nquestions());	/* the written answers: read, not scored */
	assert_true(grade_report_passed(&rep));
	assert_true(rep.score == 100.0);
	grade_report_fini(&rep);
	lab_result_fini(&lr);
}

static void test_grade_each_fails(void **state)
{
	struct docspec d;
	bool all;

	(void)state;
	d = good;
	d.samples = LATENCY_GRADE_MIN_SAMPLES - 1;
	assert_false(check_result(&d, "scenario-idle-other", &all));
	assert_false(all);
	d = good;
	d.samples = LATENCY_GRADE_MIN_SAMPLES;
	assert_true(check_result(&d, "scenario-load-other", &all));
	assert_true(all);
	d = good;
	d.skip_load_fifo = true;
	assert_false(check_result(&d, "scenario-load-fifo", NULL));
	assert_false(check_result(&d, "fifo-tail", NULL));
	/* Its prediction is about a scenario not in the document: no longer required. */
	d.predictions = false;
	assert_false(check_result(&d, "predictions", NULL));	/* none at all */

	d = good;
	d.interrupted = true;
	assert_false(check_result(&d, "complete", NULL));
	d = good;
	d.rt_refused = true;
	assert_false(check_result(&d, "fifo-tail", NULL));
	d = good;
	d.fifo_p99 = 300;
	assert_false(check_result(&d, "fifo-tail", NULL));	/* equal is not below */
	d = good;
	d.fifo_p99 = 2000;
	d.other_p99 = 2000;
	d.other_above = true;				/* "> 2000" beats 2000 */
	assert_true(check_result(&d, "fifo-tail", NULL));
	d = good;
	d.tier = "simulation";
	assert_false(check_result(&d, "fifo-tail", NULL));
	d = good;
	d.tier = "vm";
	assert_true(check_result(&d, "fifo-tail", NULL));
	d = good;
	d.predictions = false;
	assert_false(check_result(&d, "predictions", NULL));
	/* Written answers earn nothing for being there and cost no points when missing, but a
	 * lab with a question unanswered is not passed yet. */
	d = good;
	assert_true(check_result(&d, "scenario-idle-other", &all));
	assert_true(all);
	d.answers = false;
	assert_true(check_result(&d, "scenario-idle-other", &all));
	assert_false(all);
}

/* "x" and "." are not answers: a written answer is the teacher's to read, never points. */
static void test_grade_answers_for_review(void **state)
{
	struct docspec d = good;
	struct lab_result lr;
	struct grade_report rep = { 0 }, none = { 0 };

	(void)state;
	lr.res = make_doc(&d);
	lr.interrupted = false;
	assert_int_equal(rt_result_set_answer_str(lr.res, "Q1", "x"), 0);
	assert_int_equal(rt_result_set_answer_str(lr.res, "Q2", "."), 0);
	assert_int_equal(latency_grade(&lr, &rep), 0);
	lab_result_fini(&lr);
	d.answers = false;
	lr.res = make_doc(&d);
	assert_int_equal(latency_grade(&lr, &none), 0);
	lab_result_fini(&lr);
	assert_true(rep.points == none.points && rep.max_points == none.max_points);
	for (size_t i = 0; i < rep.nchecks; i++) {
		if (strcmp(rep.checks[i].name, "Q1"))
			continue;
		assert_int_equal(rep.checks[i].status, GRADE_REVIEW);
		assert_true(rep.checks[i].max_points == 0);
		assert_non_null(strstr(rep.checks[i].detail, "to be reviewed by the teacher: \"x\""));
	}
	for (size_t i = 0; i < none.nchecks; i++)
		if (!strcmp(none.checks[i].name, "Q1")) {
			/* Nothing to read: a missing answer fails, still for no points. */
			assert_int_equal(none.checks[i].status, GRADE_FAIL);
			assert_true(none.checks[i].max_points == 0);
			assert_non_null(strstr(none.checks[i].detail, "not answered"));
		}
	grade_report_fini(&rep);
	grade_report_fini(&none);
}

/* The grade's sample rule is lesson 03's: 100 samples beyond the p99. */
static void test_grade_rule_is_the_hist_rule(void **state)
{
	(void)state;
	assert_int_equal(LATENCY_GRADE_MIN_SAMPLES, rt_hist_needed(RT_HIST_P99));
}

/* A throughput scenario beside the graded ones changes no check. */
static void test_grade_ignores_throughput(void **state)
{
	struct lab_result lr = { .res = make_doc(&good) };
	struct grade_report rep = { 0 };

	(void)state;
	assert_int_equal(json_array_append_new(json_object_get(rt_result_extra(lr.res),
							       "scenarios"),
		json_pack("{s:s, s:s, s:s, s:f}", "name", "throughput", "kind", "throughput",
			  "summary", "work per second", "msg_per_s", 1234.5)), 0);
	assert_int_equal(latency_grade(&lr, &rep), 0);
	assert_int_equal(rep.nchecks, 6 + nquestions());
	assert_true(grade_report_passed(&rep));
	grade_report_fini(&rep);
	lab_result_fini(&lr);
}

static void test_grade_other_lab(void **state)
{
	struct rt_env env = { .cpus = 1 };
	struct lab_result lr = { .res = rt_result_new("fcse", "simulation", &env) };
	struct grade_report rep = { 0 };

	(void)state;
	assert_non_null(lr.res);
	assert_int_equal(latency_grade(&lr, &rep), -EINVAL);
	assert_int_equal(rep.nchecks, 0);
	lab_result_fini(&lr);
	assert_int_equal(latency_grade(NULL, &rep), -EINVAL);
}

/* ---- Framework helpers --------------------------------------------------------- */

static void test_grade_report(void **state)
{
	struct grade_report rep = { 0 };

	(void)state;
	assert_false(grade_report_passed(&rep));
	assert_int_equal(grade_report_add(&rep, "a", true, "fine %d", 1), 0);
	assert_int_equal(grade_report_add(&rep, "b", false, "not %s", "fine"), 0);
	assert_int_equal(rep.nchecks, 2);
	assert_int_equal(rep.npassed, 1);
	assert_true(rep.score == 50.0);
	assert_string_equal(rep.checks[1].detail, "not fine");
	assert_false(grade_report_passed(&rep));
	grade_report_fini(&rep);
	assert_int_equal(rep.nchecks, 0);
	grade_report_fini(NULL);
}

static void test_answers(void **state)
{
	char dir[] = "/tmp/test_lab_latency.XXXXXX", path[64], *text = NULL, *cause = NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/progress.json", dir);
	assert_int_equal(lab_answer_get(path, "latency", "Q1", &text, &cause), -ENOENT);
	assert_int_equal(lab_answer_set(path, "latency", "Q1", "the slack", &cause), 0);
	assert_int_equal(lab_answer_set(path, "latency", "Q2", "mlock", &cause), 0);
	assert_int_equal(lab_answer_get(path, "latency", "Q1", &text, &cause), 0);
	assert_string_equal(text, "the slack");
	free(text);
	assert_int_equal(lab_answer_set(path, "latency", "Q1", "", &cause), 0);	/* remove */
	assert_int_equal(lab_answer_get(path, "latency", "Q1", &text, &cause), -ENOENT);
	assert_int_equal(lab_answer_get(path, "latency", "Q2", &text, &cause), 0);
	free(text);
	assert_int_equal(lab_answer_set(path, "no-such-lab", "Q1", "x", &cause), -EINVAL);
	free(cause);
	unlink(path);
	snprintf(path, sizeof(path), "%s/progress.json.lock", dir);
	unlink(path);
	rmdir(dir);
}

/* ---- Short real runs -------------------------------------------------------------- */

static void test_run_short(void **state)
{
	char dir[] = "/tmp/test_lab_latency.XXXXXX", path[64];
	struct latency_params p;
	struct latency_live live;
	struct latency_live_snap snap = { 0 };
	uint64_t counts[100];
	struct rt_env env;
	struct lab_ctx ctx = { .tier = "host", .env = &env, .params = &p };
	struct lab_result res;
	volatile sig_atomic_t stop = 0;
	char *cause = NULL;
	json_t *sc;
	double n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/progress.json", dir);
	ctx.progress_path = path;
	ctx.stop = &stop;
	assert_int_equal(rt_env_probe(&env), 0);
	assert_int_equal(latency_live_init(&live), 0);
	ctx.live = &live;
	assert_int_equal(parse(&p, &cause, "--scenario", "idle-other", "--duration", "300ms",
			       "--threads", "2", "--hist-max", "100", NULL), 0);
	assert_int_equal(lab_latency.check_capabilities(&ctx, &cause), 0);
	assert_int_equal(lab_latency.run(&ctx, NULL, &res), 0);
	assert_non_null(res.res);
	assert_false(res.interrupted);
	free(rt_result_to_string(res.res, NULL));
	assert_int_equal(rt_result_summary_get(res.res, "samples_count", &n), 0);
	/*
	 * Two threads, 300 periods each: never more than 600 samples (the probe's promise).
	 * How many fewer depends on the machine's load (a wake-up that overruns periods is
	 * one sample), so below that only "each thread measured" is certain.
	 */
	assert_true(n >= 2 && n <= 600);
	assert_int_equal(rt_result_hist_count(res.res), 1);
	sc = json_array_get(json_object_get(rt_result_extra(res.res), "scenarios"), 0);
	assert_string_equal(json_string_value(json_object_get(sc, "name")), "idle-other");
	assert_int_equal(json_array_size(json_object_get(sc, "threads")), 2);
	snap.counts = counts;
	snap.cap = 100;
	latency_live_snapshot(&live, &snap);
	assert_string_equal(snap.scenario, "idle-other");
	assert_int_equal(snap.nthreads, 2);
	assert_false(snap.running);
	assert_int_equal(snap.nbuckets, 100);
	assert_true(snap.threads[0].samples + snap.threads[1].samples == (uint64_t)n);
	lab_result_fini(&res);

	/* Stopped before it began: a document that says so, with no scenario. */
	stop = 1;
	assert_int_equal(lab_latency.run(&ctx, NULL, &res), 0);
	assert_true(res.interrupted);
	assert_int_equal(rt_result_hist_count(res.res), 0);
	lab_result_fini(&res);

	/* load-fifo-rt on a kernel that is not PREEMPT_RT is refused with the remedy. */
	env.realtime = false;
	assert_int_equal(parse(&p, &cause, "--scenario", "load-fifo-rt", NULL), 0);
	assert_int_equal(lab_latency.check_capabilities(&ctx, &cause), -ENOTSUP);
	assert_non_null(strstr(cause, "linux-image-rt-amd64"));
	free(cause);
	cause = NULL;
	assert_int_equal(lab_latency.run(&ctx, NULL, &res), -ENOTSUP);

	latency_live_fini(&live);
	rt_env_fini(&env);
	unlink(path);
	rmdir(dir);
}

/* The view called @name in @views, or NULL. */
static json_t *view_named(json_t *views, const char *name)
{
	json_t *v;
	size_t i;

	json_array_foreach(views, i, v)
		if (!strcmp(json_string_value(json_object_get(v, "name")) ?: "", name))
			return v;
	return NULL;
}

/* The slack-free scenario really runs at 1 ns, the plain one at what it inherits. */
static void test_run_noslack(void **state)
{
	struct latency_params p;
	struct rt_env env;
	struct lab_ctx ctx = { .tier = "host", .env = &env, .params = &p };
	struct lab_result res;
	char *cause = NULL;
	json_t *scens, *sc;
	long inherited = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);

	(void)state;
	assert_true(inherited > 1);
	assert_int_equal(rt_env_probe(&env), 0);
	assert_int_equal(parse(&p, &cause, "--scenario", "idle-other-noslack,idle-other",
			       "--duration", "100ms", NULL), 0);
	assert_int_equal(lab_latency.run(&ctx, NULL, &res), 0);
	scens = json_object_get(rt_result_extra(res.res), "scenarios");
	sc = json_array_get(scens, 0);
	assert_string_equal(json_string_value(json_object_get(sc, "name")), "idle-other-noslack");
	assert_int_equal(json_integer_value(json_object_get(sc, "timer_slack_requested_ns")), 1);
	assert_int_equal(json_integer_value(json_object_get(sc, "timer_slack_ns")), 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(sc,
		"threads"), 0), "timer_slack_ns")), 1);
	sc = json_array_get(scens, 1);
	assert_true(json_is_null(json_object_get(sc, "timer_slack_requested_ns")));
	assert_int_equal(json_integer_value(json_object_get(sc, "timer_slack_ns")), inherited);
	lab_result_fini(&res);
	rt_env_fini(&env);
}

/* Throughput: every workload counted, its own view, no latency tables, a live line. */
static void test_run_throughput(void **state)
{
	struct latency_params p;
	struct latency_live live;
	struct latency_live_snap snap = { 0 };
	struct rt_env env;
	struct lab_ctx ctx = { .tier = "host", .env = &env, .params = &p };
	struct lab_result res;
	char *cause = NULL, *text;
	json_t *sc, *w, *views = json_array(), *v;
	size_t i;

	(void)state;
	assert_int_equal(rt_env_probe(&env), 0);
	assert_int_equal(latency_live_init(&live), 0);
	ctx.live = &live;
	assert_int_equal(parse(&p, &cause, "--scenario", "throughput", "--duration", "800ms",
			       "--repeats", "2", NULL), 0);
	assert_int_equal(lab_latency.run(&ctx, NULL, &res), 0);
	assert_false(res.interrupted);
	text = rt_result_to_string(res.res, NULL);	/* valid */
	assert_non_null(text);
	free(text);
	assert_int_equal(rt_result_hist_count(res.res), 0);
	sc = json_array_get(json_object_get(rt_result_extra(res.res), "scenarios"), 0);
	assert_string_equal(json_string_value(json_object_get(sc, "kind")), "throughput");
	assert_int_equal(json_integer_value(json_object_get(sc, "repeats")), 2);
	assert_int_equal(json_integer_value(json_object_get(sc, "run_ms")), 100);
	assert_int_equal(json_array_size(json_object_get(sc, "workloads")), LATENCY_WORK_NKINDS);
	json_array_foreach(json_object_get(sc, "workloads"), i, w) {
		char key[32];

		assert_int_equal(json_integer_value(json_object_get(w, "runs_count")), 2);
		assert_int_equal(json_array_size(json_object_get(w, "ops_per_s")), 2);
		assert_true(json_number_value(json_object_get(w, "median_per_s")) > 0);
		assert_true(json_number_value(json_object_get(w, "min_per_s")) <=
			    json_number_value(json_object_get(w, "max_per_s")));
		snprintf(key, sizeof(key), "%s_per_s", json_string_value(json_object_get(w,
											"name")));
		assert_true(json_equal(json_object_get(sc, key), json_object_get(w,
										 "median_per_s")));
	}
	assert_true(rt_result_scenario_num(res.res, "throughput", "msg_per_s") > 0);

	assert_int_equal(lab_latency.views(res.res, views, &cause), 0);
	assert_null(view_named(views, "scenarios"));
	v = view_named(views, "throughput");
	assert_non_null(v);
	assert_int_equal(json_array_size(json_object_get(v, "rows")), LATENCY_WORK_NKINDS);
	assert_string_equal(json_string_value(json_array_get(json_array_get(json_object_get(v,
		"rows"), 0), 1)), "msg");
	json_array_foreach(views, i, v)
		assert_int_equal(rt_result_add_view(res.res, json_incref(v), &cause), 0);
	json_decref(views);

	latency_live_snapshot(&live, &snap);
	assert_true(snap.throughput);
	assert_false(snap.running);
	assert_int_equal(snap.nthreads, 0);
	assert_non_null(strstr(snap.activity, "throughput: done"));
	lab_result_fini(&res);
	latency_live_fini(&live);
	rt_env_fini(&env);
}

/*
 * Fresh memory every cycle: where the page faults go, without and with
 * mlockall, recorded per scenario and shown in the view "fresh-memory".
 */
static void test_run_alloc(void **state)
{
	struct latency_params p;
	struct rt_env env;
	struct lab_ctx ctx = { .tier = "host", .env = &env, .params = &p };
	struct lab_result res;
	char *cause = NULL, *text;
	json_t *plain, *locked, *views = json_array(), *v;

	(void)state;
	assert_int_equal(rt_env_probe(&env), 0);
	assert_int_equal(parse(&p, &cause, "--scenario", "load-fifo-alloc,load-fifo-alloc-mlock",
			       "--load", "none", "--alloc", "64", "--duration", "200ms", NULL), 0);
	assert_int_equal(lab_latency.run(&ctx, NULL, &res), 0);
	text = rt_result_to_string(res.res, NULL);	/* valid */
	assert_non_null(text);
	free(text);
	plain = rt_result_scenario(res.res, "load-fifo-alloc");
	locked = rt_result_scenario(res.res, "load-fifo-alloc-mlock");
	assert_non_null(plain);
	assert_non_null(locked);
	assert_int_equal(json_integer_value(json_object_get(plain, "alloc_bytes")), 65536);
	assert_true(json_integer_value(json_object_get(plain, "alloc_cycles_count")) > 0);
	/* 16 pages, each written for the first time: 16 faults in the touch, none in mmap. */
	assert_true(rt_result_scenario_num(res.res, "load-fifo-alloc",
					   "touch_faults_avg_count") >= 16);
	assert_true(rt_result_scenario_num(res.res, "load-fifo-alloc",
					   "alloc_faults_avg_count") < 1);
#ifdef __SANITIZE_ADDRESS__
	locked = NULL;		/* ASan's mlockall() does nothing */
#endif
	if (json_is_true(json_object_get(locked, "mlock"))) {
		/* MCL_FUTURE: mmap populates, the touch finds every page present. */
		assert_true(rt_result_scenario_num(res.res, "load-fifo-alloc-mlock",
						   "alloc_faults_avg_count") >= 16);
		assert_true(rt_result_scenario_num(res.res, "load-fifo-alloc-mlock",
						   "touch_faults_avg_count") == 0);
	}
	assert_int_equal(lab_latency.views(res.res, views, &cause), 0);
	v = view_named(views, "fresh-memory");
	assert_non_null(v);
	assert_int_equal(json_array_size(json_object_get(v, "rows")), 2);
	json_decref(views);
	lab_result_fini(&res);

	/* Without allocating scenarios there is no such view. */
	views = json_array();
	assert_int_equal(parse(&p, &cause, "--scenario", "idle-other", "--duration", "50ms",
			       NULL), 0);
	assert_int_equal(lab_latency.run(&ctx, NULL, &res), 0);
	assert_int_equal(lab_latency.views(res.res, views, &cause), 0);
	assert_null(view_named(views, "fresh-memory"));
	assert_null(json_object_get(rt_result_scenario(res.res, "idle-other"), "alloc_bytes"));
	json_decref(views);
	lab_result_fini(&res);
	rt_env_fini(&env);
}

static void put_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/*
 * --preempt on a fixture tree: refused with the reason where the kernel
 * cannot switch; otherwise switched through the journal for the
 * scenarios, recorded in params and env, and put back after them.
 */
static void test_run_preempt(void **state)
{
	char tmpl[] = "/tmp/test_lab_latency_preempt.XXXXXX";
	char root[PATH_MAX], path[PATH_MAX + 64], knob[PATH_MAX + 64], jdir[PATH_MAX + 16];
	struct latency_params p;
	struct rt_env env;
	struct lab_ctx ctx = { .tier = "host", .env = &env, .params = &p };
	struct lab_result res;
	struct rt_journal *j;
	char *cause = NULL, *text = NULL, *real;
	size_t len = 0;
	json_t *doc;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	real = realpath(tmpl, NULL);
	snprintf(root, sizeof(root), "%s", real);
	free(real);
	snprintf(path, sizeof(path), "%s/proc", root);
	assert_int_equal(rt_mkdir_p(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/proc/mounts", root);
	put_text(path, "nodev /sys/kernel/debug debugfs rw 0 0\n");
	snprintf(path, sizeof(path), "%s/sys/kernel/debug/sched", root);
	assert_int_equal(rt_mkdir_p(path, 0755), 0);
	snprintf(knob, sizeof(knob), "%s%s", root, RT_PREEMPT_FILE);
	put_text(knob, "none (voluntary) full lazy\n");
	snprintf(jdir, sizeof(jdir), "%s/journal", root);
	assert_int_equal(rt_journal_test_allow(root), 0);
	assert_int_equal(rt_env_probe(&env), 0);

	assert_int_equal(parse(&p, &cause, "--scenario", "idle-other", "--duration", "50ms",
			       "--preempt", "full", NULL), 0);
	assert_int_equal(p.preempt, 2);
	p.sys_root = root;

	/* Not PREEMPT_DYNAMIC: refused before anything runs, with the reason. */
	env.preempt_dynamic = false;
	assert_int_equal(lab_latency.check_capabilities(&ctx, &cause), -ENOTSUP);
	assert_non_null(strstr(cause, "--preempt full"));
	assert_non_null(strstr(cause, "not PREEMPT_DYNAMIC"));
	free(cause);
	cause = NULL;
	env.preempt_dynamic = true;
	assert_int_equal(lab_latency.check_capabilities(&ctx, &cause), 0);

	/* No journal, no switch. */
	assert_int_equal(lab_latency.run(&ctx, NULL, &res), -EPERM);
	text = NULL;
	assert_int_equal(rt_file_read(knob, 4096, &text, &len), 0);
	assert_non_null(strstr(text, "(voluntary)"));
	free(text);

	j = rt_journal_open(jdir, &cause);
	assert_non_null(j);
	ctx.journal = j;
	assert_int_equal(lab_latency.run(&ctx, NULL, &res), 0);
	doc = rt_result_json(res.res);
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "env"),
							      "preempt_model")), "full");
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "params"),
							      "preempt_model")), "full");
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "params"),
							      "preempt_model_before")),
			    "voluntary");
	text = rt_result_to_string(res.res, NULL);	/* valid */
	assert_non_null(text);
	free(text);
	text = NULL;
	assert_int_equal(rt_file_read(knob, 4096, &text, &len), 0);
	assert_string_equal(text, "voluntary");		/* put back after the scenarios */
	free(text);
	lab_result_fini(&res);
	assert_int_equal(rt_journal_close(j), 0);

	rt_journal_test_allow(NULL);
	rt_env_fini(&env);
	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	assert_int_equal(system(path), 0);
}

/* A percentile on too few samples is marked in the views (lesson 03's rule). */
static void test_views_few_samples(void **state)
{
	static const char *const sc = "{\"name\": \"idle-fifo\", \"samples_count\": 5000, "
		"\"percentiles\": {\"p90\": {\"value_us\": 9, \"meaningful\": true}, "
		"\"p99\": {\"value_us\": 12, \"resolution_us\": 1, \"meaningful\": false}}}";
	struct rt_env env = { .cpus = 1 };
	struct rt_result *res = rt_result_new("latency", "host", &env);
	json_t *views = json_array(), *row;
	char *cause = NULL;

	(void)state;
	json_object_set_new(rt_result_extra(res), "scenarios", json_pack("[o]",
						json_loads(sc, 0, NULL)));
	assert_int_equal(lab_latency.views(res, views, &cause), 0);
	row = json_array_get(json_object_get(view_named(views, "percentiles"), "rows"), 0);
	assert_string_equal(json_string_value(json_array_get(row, 2)), "9");
	assert_string_equal(json_string_value(json_array_get(row, 3)), "12 " RT_HIST_FEW_MARK);
	json_decref(views);
	rt_result_free(res);
}

/* ---- Percentiles as text -------------------------------------------------------- */

static void test_pct_text(void **state)
{
	static const char *const v1 = "{\"name\": \"load-other\", \"p99_us\": 2000, "
		"\"p99_above_bound\": true, \"threads\": [{\"index\": 0, \"p99_us\": 2000, "
		"\"p99_above_bound\": true}]}";
	static const char *const v2 = "{\"name\": \"load-other\", \"p99_us\": 2368, "
		"\"p99_resolution_us\": 64, \"threads\": [{\"index\": 0, \"p99_us\": 12, "
		"\"p99_resolution_us\": 1}]}";
	struct rt_env env = { .cpus = 1 };
	char buf[64];

	(void)state;
	latency_pct_text(buf, sizeof(buf), 12, 1, false, false);
	assert_string_equal(buf, "12 us");
	latency_pct_text(buf, sizeof(buf), 2368, 64, false, false);
	assert_string_equal(buf, "2368 us (resolution 64 us)");
	latency_pct_text(buf, sizeof(buf), 2368, 64, false, true);
	assert_string_equal(buf, "2368+-64");
	latency_pct_text(buf, sizeof(buf), 2000, 1, true, false);
	assert_string_equal(buf, "beyond 2000 us");
	latency_pct_text(buf, sizeof(buf), 2000, 1, true, true);
	assert_string_equal(buf, ">2000");
	latency_pct_text(buf, sizeof(buf), 1e300, -1e300, false, false);
	assert_string_equal(buf, "1000000000000000 us");

	/* The views: rtlab.result/2 states the resolution, /1 says "beyond" (">"). */
	for (int k = 0; k < 2; k++) {
		struct rt_result *res = rt_result_new("latency", "host", &env);
		json_t *sc = json_loads(k ? v2 : v1, 0, NULL), *views = json_array();
		json_t *srow, *trow;
		char *cause = NULL;

		assert_non_null(res);
		assert_non_null(sc);
		json_object_set_new(rt_result_extra(res), "scenarios", json_pack("[o]", sc));
		assert_int_equal(lab_latency.views(res, views, &cause), 0);
		/* scenarios: p99 is the 7th column; threads: the 11th */
		srow = json_array_get(json_object_get(json_array_get(views, 0), "rows"), 0);
		trow = json_array_get(json_object_get(json_array_get(views, 2), "rows"), 0);
		assert_string_equal(json_string_value(json_array_get(srow, 6)),
				    k ? "2368+-64" : ">2000");
		assert_string_equal(json_string_value(json_array_get(trow, 10)), k ? "12" : ">2000");
		for (size_t v = 0; v < json_array_size(views); v++)
			assert_int_equal(rt_result_add_view(res, json_incref(json_array_get(views, v)),
							    &cause), 0);
		json_decref(views);
		rt_result_free(res);
	}
}

static void test_registry(void **state)
{
	struct lab_scenario sc;

	(void)state;
	assert_ptr_equal(lab_find("latency"), &lab_latency);
	assert_int_equal(lab_latency.state, LAB_STATE_READY);
	assert_non_null(lab_latency.run);
	assert_non_null(lab_latency.grade);
	assert_non_null(lab_latency.views);
	assert_true(lab_latency.scenario(0, &sc));
	assert_string_equal(sc.name, "idle-other");
	assert_false(lab_latency.scenario(latency_nscenarios, &sc));
	assert_string_equal(lab_latency.questions[0], "Q1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scenarios),
		cmocka_unit_test(test_cpus_usable),
		cmocka_unit_test(test_params_defaults_and_scenarios),
		cmocka_unit_test(test_params_custom_and_overrides),
		cmocka_unit_test(test_params_errors),
		cmocka_unit_test(test_params_deadline),
		cmocka_unit_test(test_params_throughput_duration),
		cmocka_unit_test(test_grade_all_pass),
		cmocka_unit_test(test_grade_samples_say_duration),
		cmocka_unit_test(test_grade_each_fails),
		cmocka_unit_test(test_grade_kside),
		cmocka_unit_test(test_grade_answers_for_review),
		cmocka_unit_test(test_grade_rule_is_the_hist_rule),
		cmocka_unit_test(test_grade_ignores_throughput),
		cmocka_unit_test(test_grade_other_lab),
		cmocka_unit_test(test_grade_report),
		cmocka_unit_test(test_answers),
		cmocka_unit_test(test_run_short),
		cmocka_unit_test(test_run_noslack),
		cmocka_unit_test(test_run_throughput),
		cmocka_unit_test(test_run_alloc),
		cmocka_unit_test(test_run_preempt),
		cmocka_unit_test(test_views_few_samples),
		cmocka_unit_test(test_pct_text),
		cmocka_unit_test(test_registry),
	};

	fixture_lesson_labs_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
