/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_latency_grade: the latency lab's checks. A pure function of the
 * results document (no clock, no files, no environment), so the unit tests
 * grade hand-built documents and a teacher can re-grade a learner's file.
 *
 * Checks, in order (labs/latency/README.md, "What is graded"):
 *   scenario-idle-other, scenario-load-other, scenario-load-fifo
 *       the scenario is in extra.scenarios with at least
 *       LATENCY_GRADE_MIN_SAMPLES samples (15 s at 1 ms gives 15,000);
 *   complete      the run was not interrupted;
 *   fifo-tail     measured live (tier host or vm), load-fifo really ran
 *                 as SCHED_FIFO/RR (no "rt_refused"), and its p99 is below
 *                 load-other's p99 (a p99 above the histogram bound counts
 *                 as larger than any value below it);
 *   predictions   every predict question of the lessons for this lab
 *                 (extra.predictions) about a scenario the document holds
 *                 has its answer in "answers"; when there is none such, at
 *                 least one "predict." answer;
 *   answers       every written question (Q1..Q5) has a non-empty answer.
 */
#include "lab_latency.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "core/rt_json.h"
#include "core/rt_result.h"

static int check_present(const struct rt_result *res, const char *name,
			 struct grade_report *rep)
{
	json_t *s = rt_result_scenario(res, name);
	char id[64];
	json_int_t n;

	snprintf(id, sizeof(id), "scenario-%s", name);
	if (!s)
		return grade_report_add(rep, id, false, "scenario %s is missing: run `rtlab lab "
					"run latency --scenario %s` (with the others)", name, name);
	n = json_integer_value(json_object_get(s, "samples_count"));
	if (n < LATENCY_GRADE_MIN_SAMPLES) {
		/* How long would have been enough: the first thread's interval, plus 5 % and 1 s. */
		json_int_t us = json_integer_value(json_object_get(json_array_get(
			json_object_get(s, "threads"), 0), "interval_us"));
		unsigned long long need_s = us > 0 && us <= 1000000 ?
			(unsigned long long)(LATENCY_GRADE_MIN_SAMPLES * (double)us * 1.05 / 1e6) + 2 :
			0;

		if (need_s)
			return grade_report_add(rep, id, false, "scenario %s has %lld samples, "
						"fewer than the %u needed for a p99 with some "
						"weight: at its %lld us interval, run it with "
						"--duration %llus or longer (start-up and drops cost "
						"a few)", name, (long long)n,
						LATENCY_GRADE_MIN_SAMPLES, (long long)us, need_s);
		return grade_report_add(rep, id, false, "scenario %s has %lld samples, fewer than "
					"the %u needed for a p99 with some weight: run it longer "
					"(--duration)", name, (long long)n, LATENCY_GRADE_MIN_SAMPLES);
	}
	return grade_report_add(rep, id, true, "scenario %s: %lld samples", name, (long long)n);
}

/* p99 as a comparable number: above the bound counts as bound + 1. */
static bool p99_of(json_t *s, double *out)
{
	json_t *v = json_object_get(s, "p99_us");

	if (!json_is_number(v))
		return false;
	*out = json_number_value(v);
	if (json_is_true(json_object_get(s, "p99_above_bound")))
		*out += 1;
	return true;
}

static int check_fifo_tail(const struct rt_result *res, struct grade_report *rep)
{
	static const char id[] = "fifo-tail";
	json_t *fifo = rt_result_scenario(res, "load-fifo");
	json_t *other = rt_result_scenario(res, "load-other");
	const char *tier = rt_result_tier(res), *pol;
	double pf, po;

	if (strcmp(tier, "host") && strcmp(tier, "vm"))
		return grade_report_add(rep, id, false, "the document's tier is %s: the comparison "
					"needs a live measurement (host or vm)", tier);
	if (!fifo)
		return grade_report_add(rep, id, false, "needs the load-fifo scenario");
	pol = json_string_value(json_object_get(fifo, "policy")) ?: "";
	if (json_is_string(json_object_get(fifo, "rt_refused")) ||
	    (strcmp(pol, "fifo") && strcmp(pol, "rr")))
		return grade_report_add(rep, id, false, "load-fifo was measured as SCHED_OTHER "
					"because the kernel refused SCHED_FIFO (%s); run as root or "
					"with CAP_SYS_NICE",
					json_string_value(json_object_get(fifo, "rt_refused")) ?:
					"no reason recorded");
	if (!other)
		return grade_report_add(rep, id, false, "needs load-other to compare with");
	if (!p99_of(fifo, &pf) || !p99_of(other, &po))
		return grade_report_add(rep, id, false, "a p99 is missing (no samples?)");
	if (pf >= po)
		return grade_report_add(rep, id, false, "load-fifo p99 (%s%.0f us) is not below "
					"load-other p99 (%s%.0f us): look for what else ran at RT "
					"priority, or whether the load really loaded the CPUs",
					pf > json_number_value(json_object_get(fifo, "p99_us")) ? ">" : "",
					json_number_value(json_object_get(fifo, "p99_us")),
					po > json_number_value(json_object_get(other, "p99_us")) ? ">" : "",
					json_number_value(json_object_get(other, "p99_us")));
	return grade_report_add(rep, id, true, "load-fifo p99 %.0f us is below load-other p99 "
				"%s%.0f us", json_number_value(json_object_get(fifo, "p99_us")),
				po > json_number_value(json_object_get(other, "p99_us")) ? ">" : "",
				json_number_value(json_object_get(other, "p99_us")));
}

static int count_predict_answer(const char *key, const json_t *v, void *priv)
{
	size_t *have = priv;

	*have += !strncmp(key, "predict.", 8) && json_is_number(v);
	return 0;
}

static int check_predictions(const struct rt_result *res, struct grade_report *rep)
{
	static const char id[] = "predictions";
	size_t have = 0, total = 0, n = rt_result_prediction_count(res);
	struct rt_result_prediction p;
	char missing[256] = "";
	double v;

	for (size_t i = 0; i < n; i++)
		if (!rt_result_prediction(res, i, &p) && rt_result_scenario(res, p.scenario))
			total++;
	if (total == 0) {
		rt_result_foreach(res, RT_RESULT_ANSWERS, count_predict_answer, &have);
		return grade_report_add(rep, id, have > 0, have ? "%zu prediction(s) recorded" :
					"no prediction recorded: answer the lessons' predict "
					"questions for this lab (lesson 03) before running",
					have);
	}
	total = 0;
	for (size_t i = 0; i < n; i++) {
		if (rt_result_prediction(res, i, &p) || !rt_result_scenario(res, p.scenario))
			continue;	/* about a scenario this run did not measure */
		total++;
		if (!rt_result_answer_num(res, p.answer_key, &v))
			have++;
		else if (strlen(missing) + strlen(p.answer_key) + 3 < sizeof(missing))
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
				 "%s%s", *missing ? ", " : "", p.answer_key);
	}
	if (have < total)
		return grade_report_add(rep, id, false, "%zu of %zu predictions recorded; missing: "
					"%s (answer them in the lessons, then run again)", have, total,
					missing);
	return grade_report_add(rep, id, true, "all %zu predictions recorded", total);
}

/* The written answers: each one for the teacher to read, none scored for being there. */
static int check_answers(const struct rt_result *res, struct grade_report *rep)
{
	int ret = 0;

	for (const char *const *q = latency_questions; !ret && *q; q++)
		ret = grade_report_review(rep, *q, rt_result_answer_text(res, *q), "latency");
	return ret;
}

/*
 * Lesson 16's kernel-side scenarios, graded only in a document that holds
 * some: each must have had the injector's sections (else it measured an
 * idle module), and each contrast needs both of its sides from one run.
 */
static int check_kside(const struct rt_result *res, struct grade_report *rep)
{
	static const char *const pairs[][2] = {
		{ "irqthread-above", "irqthread-below" }, { "lock-raw", "lock-sleeping" },
	};
	json_t *scens = rt_result_scenarios(res), *s;
	size_t i;
	int ret = 0;

	json_array_foreach(scens, i, s) {
		const char *name = rt_json_text(s, "name");
		double n = rt_json_num(s, "inject_sections_count");
		char id[80];

		if (!json_is_string(json_object_get(s, "kside")) || ret)
			continue;
		snprintf(id, sizeof(id), "kside-%s", name);
		ret = n > 0 ? grade_report_add(rep, id, true, "scenario %s: the injector ran %.0f "
					       "sections during it", name, n) :
		      grade_report_add(rep, id, false, "scenario %s: the injector ran no section "
				       "(%s), so it measured an idle module: run it where "
				       "rtlab_inject is loaded (the classroom VM's rt or lab kernel)",
				       name, *rt_json_text(s, "inject_error") ?
				       rt_json_text(s, "inject_error") : "refused or not loaded");
	}
	for (size_t p = 0; !ret && p < sizeof(pairs) / sizeof(pairs[0]); p++) {
		bool a = rt_result_scenario(res, pairs[p][0]), b = rt_result_scenario(res, pairs[p][1]);
		char id[80];

		if (!a && !b)
			continue;
		snprintf(id, sizeof(id), "kside-%s-and-%s", pairs[p][0], pairs[p][1]);
		if (a && b)
			ret = grade_report_add(rep, id, true, "%s and %s come from one run, so they "
					       "can be compared", pairs[p][0], pairs[p][1]);
		else
			ret = grade_report_add(rep, id, false, "only %s: run %s and %s in one run "
					       "(`--scenario %s,%s`) to compare them",
					       a ? pairs[p][0] : pairs[p][1], pairs[p][0],
					       pairs[p][1], pairs[p][0], pairs[p][1]);
	}
	return ret;
}

/* The scenarios every latency grade needs (lesson 03's three). */
static const char *const latency_required[] = { "idle-other", "load-other", "load-fifo", NULL };

int latency_grade_lacks(const struct rt_result *res, struct rt_buf *missing)
{
	return lab_lacks_scenarios(res, latency_required, missing);
}

int latency_grade(const struct lab_result *lr, struct grade_report *rep)
{
	bool intr = false;
	int ret = 0;

	if (!lr || !lr->res)
		return -EINVAL;
	if (strcmp(rt_result_lab(lr->res), "latency"))
		return -EINVAL;
	for (size_t i = 0; !ret && latency_required[i]; i++)
		ret = check_present(lr->res, latency_required[i], rep);
	if (!ret) {
		/* The lab's own key (lab_latency.c writes it beside params.interrupted). */
		intr = json_is_true(json_object_get(rt_result_extra_of(lr->res), "interrupted"));

		ret = grade_report_add(rep, "complete", !intr, intr ? "the run was interrupted: "
				       "run it to the end" : "the run ended normally");
	}
	if (!ret)
		ret = check_fifo_tail(lr->res, rep);
	if (!ret)
		ret = check_kside(lr->res, rep);
	if (!ret)
		ret = check_predictions(lr->res, rep);
	if (!ret)
		ret = check_answers(lr->res, rep);
	return ret;
}
