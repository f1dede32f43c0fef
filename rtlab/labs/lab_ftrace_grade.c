/*
 * lab_ftrace_grade: the ftrace lab's checks. A pure function of the results
 * document, so the unit tests grade hand-built documents and a teacher can
 * re-grade a learner's file.
 *
 * Checks, in order (labs/ftrace/README.md, "What is graded"):
 *   run        measured live (tier host or vm), at least
 *              FTRACE_GRADE_MIN_WAKEUPS probe wake-ups, and some wake-ups
 *              matched from the scheduler events;
 *   agreement  the probe-vs-events comparison is recorded (count ratio and
 *              the p50 difference);
 *   complete   the run was not interrupted;
 *   hunt       the run planted a cause (--hunt) and its recorded truth is
 *              intact: the same seed and injector give the same cause, and
 *              the checksum matches;
 *   cause, function, tracer
 *              the learner's answers (copied from the progress file by the
 *              run) match the truth: the kind, the function the section
 *              runs in, and one of the tracers that show it ("events" for
 *              event mode).
 * The truth sits in the learner's own file: this is an honour system for a
 * classroom, not an exam lock (the handout says so).
 */
#include "lab_ftrace.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_parse.h"
#include "core/rt_result.h"

#define NORM_MAX 96

/* Lower case, '-' and ' ' as '_', outer blanks and a trailing "()" dropped. */
static void norm(const char *in, char *out, size_t size)
{
	size_t n = 0, len;

	while (*in && isspace((unsigned char)*in))
		in++;
	for (; *in && n + 1 < size; in++) {
		char c = (char)tolower((unsigned char)*in);

		out[n++] = (c == '-' || c == ' ') ? '_' : c;
	}
	out[n] = '\0';
	while (n && (out[n - 1] == '_' || isspace((unsigned char)out[n - 1])))
		out[--n] = '\0';
	len = strlen(out);
	if (len >= 2 && !strcmp(out + len - 2, "()"))
		out[len - 2] = '\0';
	if (!strcmp(out, "event") || !strcmp(out, "event_mode") || !strcmp(out, "events_mode") ||
	    !strcmp(out, "sched_events"))
		strcpy(out, "events");
}

static const char *jstr(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/*
 * The truth of the document, checked: 0 with @kind, @function and @tracers set,
 * or -EINVAL with @why saying what is wrong.
 */
static int hunt_truth(json_t *doc, const char **kind, const char **function, json_t **tracers,
		      char *why, size_t size)
{
	json_t *hunt = json_object_get(json_object_get(doc, "extra"), "hunt");
	json_t *truth = json_object_get(hunt, "truth"), *t;
	struct ftrace_hunt_truth pick;
	const char *seed_s = jstr(hunt, "seed"), *inj_s = jstr(hunt, "injector");
	char sum[24];
	uint64_t seed = 0;
	int inj = ftrace_injector_from_name(inj_s);
	size_t i, n = 0;

	if (!json_is_true(json_object_get(json_object_get(doc, "params"), "hunt")) || !hunt) {
		snprintf(why, size, "this run planted no cause: run `rtlab lab run ftrace --hunt "
			 "--seed N` (the seed your teacher gave you)");
		return -EINVAL;
	}
	*kind = jstr(truth, "kind");
	*function = jstr(truth, "function");
	*tracers = json_object_get(truth, "tracers");
	if (rt_parse_u64("seed", seed_s, 0, UINT64_MAX, &seed, NULL) || inj < 0 || !*kind ||
	    !*function || !json_is_array(*tracers)) {
		snprintf(why, size, "extra.hunt is incomplete (seed, injector or truth missing): "
			 "run the hunt again");
		return -EINVAL;
	}
	ftrace_hunt_pick(seed, (enum ftrace_injector)inj, &pick);
	if (strcmp(pick.kind, *kind) || strcmp(pick.function, *function)) {
		snprintf(why, size, "extra.hunt.truth is not what seed %s plants: the document "
			 "was edited; run the hunt again", seed_s);
		return -EINVAL;
	}
	json_array_foreach(*tracers, i, t) {
		if (!pick.tracers[n] || !json_is_string(t) || strcmp(pick.tracers[n],
								      json_string_value(t)))
			break;
		n++;
	}
	ftrace_hunt_checksum(seed, &pick, sum, sizeof(sum));
	if (n != json_array_size(*tracers) || pick.tracers[n] ||
	    !jstr(hunt, "checksum") || strcmp(jstr(hunt, "checksum"), sum)) {
		snprintf(why, size, "extra.hunt's tracers or checksum do not match seed %s: the "
			 "document was edited; run the hunt again", seed_s);
		return -EINVAL;
	}
	return 0;
}

static int check_answer(struct grade_report *rep, json_t *answers, const char *id,
			bool have_truth, const char *truth, json_t *tracers)
{
	const char *a = jstr(answers, id);
	char na[NORM_MAX], nt[NORM_MAX];
	size_t i;
	json_t *t;

	if (!a || !*a)
		return grade_report_add(rep, id, false, "no %s given: `rtlab lab answer ftrace %s "
					"NAME`, then run the hunt again with the same seed", id, id);
	if (!have_truth)
		return grade_report_add(rep, id, false, "answer \"%s\" recorded, but there is no "
					"valid hunt to compare it with", a);
	norm(a, na, sizeof(na));
	if (tracers) {
		json_array_foreach(tracers, i, t) {
			norm(json_string_value(t), nt, sizeof(nt));
			if (!strcmp(na, nt))
				return grade_report_add(rep, id, true, "tracer \"%s\" does show this "
							"cause", a);
		}
		return grade_report_add(rep, id, false, "tracer \"%s\" is not one that shows "
					"this cause: which trace pointed at it?", a);
	}
	norm(truth, nt, sizeof(nt));
	if (!strcmp(na, nt))
		return grade_report_add(rep, id, true, "%s \"%s\" is right", id, a);
	return grade_report_add(rep, id, false, "%s \"%s\" is not what was planted: look at "
				"the trace again", id, a);
}

int ftrace_grade(const struct lab_result *res, struct grade_report *rep)
{
	json_t *doc = rt_result_json(res->res);
	json_t *extra = json_object_get(doc, "extra");
	json_t *events = json_object_get(extra, "events");
	json_t *agr = json_object_get(extra, "agreement");
	json_t *answers = json_object_get(doc, "answers"), *tracers = NULL;
	const char *tier = rt_result_tier(res->res), *kind = NULL, *function = NULL;
	json_int_t matched = json_integer_value(json_object_get(events, "matched_count"));
	json_int_t probe = json_integer_value(json_object_get(json_object_get(extra, "probe"),
							      "count"));
	bool live = tier && (!strcmp(tier, "host") || !strcmp(tier, "vm"));
	char why[256];
	bool truth_ok;
	int ret;

	if (!doc)
		return -EINVAL;
	if (!live)
		ret = grade_report_add(rep, "run", false, "the run was not measured live (tier "
				       "%s): run it on a host or in the classroom VM",
				       tier ? tier : "unknown");
	else if (probe < FTRACE_GRADE_MIN_WAKEUPS)
		ret = grade_report_add(rep, "run", false, "the probe woke %lld times, fewer than "
				       "%u: run longer (--duration)", (long long)probe,
				       FTRACE_GRADE_MIN_WAKEUPS);
	else if (matched < 1)
		ret = grade_report_add(rep, "run", false, "no wake-up was matched from the "
				       "scheduler events: were they recorded?");
	else
		ret = grade_report_add(rep, "run", true, "%lld probe wake-ups, %lld matched from "
				       "the scheduler events", (long long)probe, (long long)matched);
	if (ret)
		return ret;

	if (json_is_number(json_object_get(agr, "count_ratio")) &&
	    json_is_number(json_object_get(json_object_get(agr, "p50"), "diff_us")))
		ret = grade_report_add(rep, "agreement", true, "probe and events compared: "
				       "count ratio %.3f, p50 differs by %.1f us",
				       json_number_value(json_object_get(agr, "count_ratio")),
				       json_number_value(json_object_get(json_object_get(agr, "p50"),
									 "diff_us")));
	else
		ret = grade_report_add(rep, "agreement", false, "the document has no agreement "
				       "figure (extra.agreement): was the probe measured?");
	if (ret)
		return ret;

	if (json_is_false(json_object_get(extra, "interrupted")))
		ret = grade_report_add(rep, "complete", true, "the run went to its end");
	else
		ret = grade_report_add(rep, "complete", false, "the run was interrupted or its end "
				       "is not recorded: run it again");
	if (ret)
		return ret;

	truth_ok = hunt_truth(doc, &kind, &function, &tracers, why, sizeof(why)) == 0;
	ret = truth_ok ? grade_report_add(rep, "hunt", true, "a cause was planted (seed %s, %s "
					  "injector)",
					  jstr(json_object_get(extra, "hunt"), "seed"),
					  jstr(json_object_get(extra, "hunt"), "injector"))
		       : grade_report_add(rep, "hunt", false, "%s", why);
	ret = ret ? ret : check_answer(rep, answers, "cause", truth_ok, kind, NULL);
	ret = ret ? ret : check_answer(rep, answers, "function", truth_ok, function, NULL);
	ret = ret ? ret : check_answer(rep, answers, "tracer", truth_ok, NULL,
				       truth_ok ? tracers : NULL);
	return ret;
}
