/* SPDX-License-Identifier: GPL-2.0-or-later */
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
 *              run) against the truth's kind and the table below: a function
 *              of the planted code that some tracer's output names, and a
 *              tracer whose output shows the cause.
 * A rejected answer says what kind of answer is accepted and where a trace
 * shows it, never the answer. The truth sits in the learner's own file:
 * this is an honour system for a classroom, not an exam lock (the handout
 * says so).
 */
#include "lab_ftrace_grade.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_json.h"
#include "core/rt_parse.h"
#include "core/rt_result.h"
#include "lab_ftrace.h"
#include "trace/trace_emu.h"
#include "trace/trace_explain.h"

#define NORM_MAX 96

/* ---- What each tracer shows of each cause ------------------------------------------ */

/*
 * The functions of each cause's planted code, as kernel-patches/rtlab_inject
 * and rtlab/trace/trace_hog.c define them and the lab kernel (6.12.118-rtlab,
 * -Os, CONFIG_UNWINDER_GUESS) compiles them. From its /proc/kallsyms and a
 * disassembly of its vmlinux: rtlab_inject_admit, _softirq and _fifo_spin are
 * inlined into rtlab_inject_write; rtlab_inject_fifo_spin_section is a tail
 * call (a jump to rtlab_inject_busy), so no stack ever holds it and only the
 * function tracer's entries name it; the others are real frames.
 * rtlab_inject_write is the injector's entry, on the stack of the sections
 * that run in the writer (irqsoff, preemptoff); for softirq and fifo_kthread
 * it only asks another context to run the section, so it is not their code.
 */
#define INJ(x) "rtlab_inject_" #x
static const char *const f_irq[] = { INJ(irqsoff_section), INJ(busy), INJ(write), NULL };
static const char *const f_irq_stack[] = { INJ(irqsoff_section), INJ(write), NULL };
static const char *const f_pre[] = { INJ(preemptoff_section), INJ(busy), INJ(write), NULL };
static const char *const f_soft[] = { INJ(softirq_section), INJ(busy), NULL };
static const char *const f_soft_stack[] = { INJ(softirq_section), NULL };
static const char *const f_fifo[] = { INJ(spin_thread), INJ(fifo_spin_section), INJ(busy),
				      NULL };
static const char *const f_fifo_stack[] = { INJ(spin_thread), INJ(busy), NULL };
static const char *const f_hog_spin[] = { "trace_hog_fifo_spin", NULL };
static const char *const f_hog_fault[] = { "trace_hog_fault_storm", NULL };
static const char *const f_hog_sys[] = { "trace_hog_syscall_burst", NULL };
static const char *const f_none[] = { NULL };
#undef INJ

#define W_HEADER "its header's \"started at\" and \"ended at\", with function trace its " \
		 "entries, and its <stack trace>"
#define W_STACK "the <stack trace> of a section that began inside the planted code (an " \
		"interrupt arriving there, or the scheduler), itself long under emulation"
#define W_FUNC "the function tracer's entries (by hand in tracefs; filter with " \
	       "set_ftrace_filter), the planted code's entries among them"
#define W_GRAPH "function_graph's durations (by hand in tracefs): the planted code's " \
		"functions last as long as the section"
#define W_EVENTS "the probe's wake-ups in event mode: sched_waking on time, sched_switch " \
		 "late by the section, so the events' tail grows; it names no function"
#define W_WAKE "the <stack trace> at the probe's wake-up, which shows where the timer's " \
	       "interrupt landed"
#define W_TASK "its header's task line, when the section it kept ran in the planted " \
	       "thread (no function)"
#define W_TOOLS "ps -eLo shows the extra thread, perf top -t LWP its hot function " \
		"(\"Hunting on a plain host\")"

/*
 * Each row is a (cause, tracer) whose output can show that cause on the lab
 * kernel, with the cause's functions it can name. Measured on 3 December
 * 2026 in the classroom VM (lab kernel, QEMU TCG, one vCPU, host load 3 to
 * 10): each cause planted with its seed (module: irqsoff 9, preemptoff 1,
 * softirq 8, fifo_kthread 0; the user-space hog, with the module hidden
 * under a tmpfs: fifo_spin 3, fault_storm 0, syscall_burst 1) by `rtlab lab
 * run ftrace --hunt` under irqsoff, preemptoff, preemptirqsoff, wakeup_rt
 * and wakeup, function trace off and on, threshold 250 and 0, up to three
 * runs each; each module section of 900 us once more under the off-tracers
 * directly in tracefs (threshold 0, the tracer on around the one write);
 * and the function and function_graph tracers filtered to rtlab_inject*.
 * The traces are in tests/data/traces/hunt/ (its README says which command
 * made each), and test_lab_ftrace_grade.c checks every rtlab_ name in them
 * against this table. What they showed:
 *  - the off-tracer of a section's own kind names it in its header (started
 *    at, ended at) and, with function trace, in its entries;
 *  - any tracer with a <stack trace> can name a section it interrupted: the
 *    irqsoff tracer an interrupt's section inside a preempt-off, softirq or
 *    FIFO-thread section, preemptoff the interrupt held back to the end of
 *    an irqs-off section, wakeup the probe's wake-up landing in an irqs-off
 *    or preempt-off section. wakeup_rt times the same wake-ups of the RT
 *    probe (kernel/trace/trace_sched_wakeup.c treats them alike), so it is
 *    accepted where wakeup was seen;
 *  - the header's task line of preemptoff and preemptirqsoff can be the
 *    FIFO kthread itself (rtlab_inject_sp), a section it ran starting or
 *    exiting: no function, but the cause's thread;
 *  - never the wake-up tracers behind a higher-priority thread: they time
 *    only a task of higher priority than the one running
 *    (trace_sched_wakeup.c), and the probe runs below the FIFO kthread and
 *    the hog; never the softirq in a latency tracer's header: on PREEMPT_RT
 *    the tasklet runs in ksoftirqd, below the probe, which preempts it;
 *  - the events: the probe's events tail grows with the user-space hog's
 *    causes (host, kernel 6.18: p99 177 us without a hunt, 978 to 1538 us
 *    with one); for the module's causes the TCG noise hid it, so those
 *    rows follow the source: a preempt-off section and a FIFO thread above
 *    the probe hold its switch after an on-time sched_waking, while an
 *    irqs-off section delays the waking itself and a softirq delays nothing.
 * The user-space hog's functions are in rtlab, not the kernel: no tracer
 * names them; ps and perf do (the row without a tracer).
 */
static const struct ftrace_hunt_sight hunt_sights[] = {
	{ "irqsoff", "irqsoff", f_irq, W_HEADER },
	{ "irqsoff", "preemptirqsoff", f_irq, W_HEADER },
	{ "irqsoff", "preemptoff", f_irq_stack, "the <stack trace> of the interrupt that the "
	  "section held back, which runs at its end" },
	{ "irqsoff", "wakeup", f_irq_stack, W_WAKE },
	{ "irqsoff", "wakeup_rt", f_irq_stack, W_WAKE },
	{ "irqsoff", "function", f_irq, W_FUNC },
	{ "irqsoff", "function_graph", f_irq, W_GRAPH },
	{ "preemptoff", "preemptoff", f_pre, W_HEADER },
	{ "preemptoff", "preemptirqsoff", f_pre, W_HEADER },
	{ "preemptoff", "irqsoff", f_pre, W_STACK },
	{ "preemptoff", "wakeup", f_pre, W_WAKE },
	{ "preemptoff", "wakeup_rt", f_pre, W_WAKE },
	{ "preemptoff", "events", f_none, W_EVENTS },
	{ "preemptoff", "function", f_pre, W_FUNC },
	{ "preemptoff", "function_graph", f_pre, W_GRAPH },
	{ "softirq", "irqsoff", f_soft_stack, W_STACK },
	{ "softirq", "function", f_soft, W_FUNC },
	{ "softirq", "function_graph", f_soft, W_GRAPH },
	{ "fifo_kthread", "irqsoff", f_fifo_stack, W_STACK },
	{ "fifo_kthread", "preemptirqsoff", f_fifo_stack, W_STACK },
	{ "fifo_kthread", "preemptoff", f_none, W_TASK },
	{ "fifo_kthread", "events", f_none, W_EVENTS },
	{ "fifo_kthread", "function", f_fifo, W_FUNC },
	{ "fifo_kthread", "function_graph", f_fifo, W_GRAPH },
	{ "fifo_spin", "events", f_none, W_EVENTS },
	{ "fifo_spin", NULL, f_hog_spin, W_TOOLS },
	{ "fault_storm", "events", f_none, W_EVENTS },
	{ "fault_storm", NULL, f_hog_fault, W_TOOLS },
	{ "syscall_burst", "events", f_none, W_EVENTS },
	{ "syscall_burst", NULL, f_hog_sys, W_TOOLS },
};

const struct ftrace_hunt_sight *ftrace_hunt_sights(size_t *n)
{
	*n = sizeof(hunt_sights) / sizeof(hunt_sights[0]);
	return hunt_sights;
}

/* The tracer answers rtlab knows, with what each one's output is about. */
static const char *const known_tracers[] = {
	"irqsoff", "preemptoff", "preemptirqsoff", "wakeup", "wakeup_rt", "wakeup_dl",
	"function", "function_graph", "events", NULL,
};

/* ---- Comparing answers ------------------------------------------------------------- */

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
	len = strlen(out);
	if (len > 7 && !strcmp(out + len - 7, "_tracer"))
		out[len - 7] = '\0';
}

/*
 * A function as a learner may copy it from a trace: " => f", "f+0x1c/0x40",
 * "f [rtlab_inject]", "<-f", "f()" all name f.
 */
static void norm_function(const char *in, char *out, size_t size)
{
	char word[NORM_MAX];
	size_t n = 0;

	while (*in && (isspace((unsigned char)*in) || *in == '=' || *in == '>' || *in == '<' ||
		       *in == '-'))
		in++;
	while (in[n] && n + 1 < sizeof(word) && !isspace((unsigned char)in[n]) && in[n] != '+' &&
	       in[n] != '[')
		n++;
	memcpy(word, in, n);
	word[n] = '\0';
	norm(word, out, size);
}

static bool in_list(const char *const *list, const char *normed)
{
	char nt[NORM_MAX];

	for (; list && *list; list++) {
		norm(*list, nt, sizeof(nt));
		if (!strcmp(nt, normed))
			return true;
	}
	return false;
}

bool ftrace_hunt_function_ok(const char *kind, const char *answer)
{
	char na[NORM_MAX];

	norm_function(answer, na, sizeof(na));
	for (size_t i = 0; kind && i < sizeof(hunt_sights) / sizeof(hunt_sights[0]); i++)
		if (!strcmp(hunt_sights[i].kind, kind) && in_list(hunt_sights[i].functions, na))
			return true;
	return false;
}

/* The row of @kind for the tracer answer @answer, or NULL. */
static const struct ftrace_hunt_sight *sight_of(const char *kind, const char *answer)
{
	char na[NORM_MAX];

	norm(answer, na, sizeof(na));
	for (size_t i = 0; kind && i < sizeof(hunt_sights) / sizeof(hunt_sights[0]); i++)
		if (!strcmp(hunt_sights[i].kind, kind) && hunt_sights[i].tracer &&
		    !strcmp(hunt_sights[i].tracer, na))
			return &hunt_sights[i];
	return NULL;
}

bool ftrace_hunt_tracer_ok(const char *kind, const char *answer)
{
	return sight_of(kind, answer) != NULL;
}

/*
 * The truth of the document, checked: 0 with @kind, @function and @tracers set,
 * or -EINVAL with @why saying what is wrong.
 */
static int hunt_truth(const struct rt_result *res, const char **kind, const char **function, json_t **tracers,
		      char *why, size_t size)
{
	json_t *hunt = json_object_get(rt_result_extra_of(res), "hunt");
	json_t *truth = json_object_get(hunt, "truth"), *t;
	struct ftrace_hunt_truth pick;
	const char *seed_s = rt_json_str(hunt, "seed"), *inj_s = rt_json_str(hunt, "injector");
	char sum[24];
	uint64_t seed = 0;
	int inj = ftrace_injector_from_name(inj_s);
	size_t i, n = 0;

	bool planted = false;

	if (rt_result_param_bool(res, "hunt", &planted) || !planted || !hunt) {
		snprintf(why, size, "this run planted no cause: run `rtlab lab run ftrace --hunt "
			 "--seed N` (the seed your teacher gave you)");
		return -EINVAL;
	}
	*kind = rt_json_str(truth, "kind");
	*function = rt_json_str(truth, "function");
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
	    !rt_json_str(hunt, "checksum") || strcmp(rt_json_str(hunt, "checksum"), sum)) {
		snprintf(why, size, "extra.hunt's tracers or checksum do not match seed %s: the "
			 "document was edited; run the hunt again", seed_s);
		return -EINVAL;
	}
	return 0;
}

/* The answer @id, or a failed check saying how to give one (returns NULL then). */
static const char *answer_of(struct grade_report *rep, const json_t *answers, const char *id,
			     bool have_truth, int *ret)
{
	const char *a = rt_json_str(answers, id);

	*ret = 0;
	if (!a || !*a) {
		*ret = grade_report_add(rep, id, false, "no %s given: `rtlab lab answer ftrace %s "
					"NAME`, then run the hunt again with the same seed", id, id);
		return NULL;
	}
	if (!have_truth) {
		*ret = grade_report_add(rep, id, false, "answer \"%s\" recorded, but there is no "
					"valid hunt to compare it with", a);
		return NULL;
	}
	return a;
}

static int check_cause(struct grade_report *rep, const json_t *answers, bool have_truth,
		       const char *kind)
{
	char na[NORM_MAX], nt[NORM_MAX];
	int ret;
	const char *a = answer_of(rep, answers, "cause", have_truth, &ret);

	if (!a)
		return ret;
	norm(a, na, sizeof(na));
	norm(kind, nt, sizeof(nt));
	if (!strcmp(na, nt))
		return grade_report_add(rep, "cause", true, "cause \"%s\" is right", a);
	return grade_report_add(rep, "cause", false, "cause \"%s\" is not what was planted: "
				"which kind of section holds the CPU the way your trace shows "
				"(interrupts off, preemption off, a softirq, a higher-priority "
				"thread, ...)?", a);
}

/* Why @na (normalised) is not a function of @kind's planted code; no answer in it. */
static void function_why(const char *kind, bool module, const char *a, const char *na,
			 char *buf, size_t size)
{
	size_t n = sizeof(hunt_sights) / sizeof(hunt_sights[0]);
	const char *path = trace_emu_short_path(na);
	bool inj = !strncmp(na, "rtlab_inject_", 13), hog = !strncmp(na, "trace_hog_", 10);

	if ((inj && !module) || (hog && module)) {
		snprintf(buf, size, "\"%s\" belongs to the other injector (%s), which this run "
			 "did not use", a, module ? "rtlab's user-space hog" :
			 "the rtlab_inject kernel module");
		return;
	}
	if (!strcmp(na, "rtlab_inject_write")) {
		snprintf(buf, size, "\"%s\" is the injector's entry point: for this cause it only "
			 "asks for the section, which then runs in code of its own, in another "
			 "context", a);
		return;
	}
	if (!strcmp(na, "rtlab_inject_spin")) {
		snprintf(buf, size, "\"%s\" is a task's name (its comm), not a function: which "
			 "function did that task run?", a);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (strcmp(hunt_sights[i].kind, kind) && in_list(hunt_sights[i].functions, na)) {
			snprintf(buf, size, "\"%s\" is planted code, but of another cause than "
				 "this run's", a);
			return;
		}
	}
	if (path)
		snprintf(buf, size, "\"%s\" is kernel code that sections pass through (%s), "
			 "short on real hardware: a long section there is not the planted "
			 "cause, and under emulation it is the emulator's (the trace viewer's "
			 "header says when)", a, path);
	else
		snprintf(buf, size, "\"%s\" is not a function of the planted code", a);
}

static int check_function(struct grade_report *rep, const json_t *answers, bool have_truth,
			  const char *kind, bool module)
{
	const struct ftrace_hunt_sight *mine;
	char na[NORM_MAX], why[320];
	int ret;
	const char *a = answer_of(rep, answers, "function", have_truth, &ret);

	if (!a)
		return ret;
	norm_function(a, na, sizeof(na));
	if (ftrace_hunt_function_ok(kind, a))
		return grade_report_add(rep, "function", true, "\"%s\" is a function of the "
					"planted code", a);
	function_why(kind, module, a, na, why, sizeof(why));
	if (!module)
		return grade_report_add(rep, "function", false, "%s. Accepted: the function of "
					"rtlab's hog thread that burns the time. No kernel tracer "
					"names a function of a user-space program: %s", why,
					W_TOOLS);
	/* Where the learner's own tracer names the planted code, say that. */
	mine = sight_of(kind, rt_json_str(answers, "tracer") ? rt_json_str(answers, "tracer") : "");
	return grade_report_add(rep, "function", false, "%s. Accepted: a function of the code "
				"that ran during the planted section, as a trace names it: %s; "
				"the innermost rtlab_ function there is enough", why,
				mine && mine->functions[0] ? mine->where :
				"the header's \"started at\", a function-trace entry, or a frame "
				"of a <stack trace>");
}

static int check_tracer(struct grade_report *rep, const json_t *answers, bool have_truth,
			const char *kind)
{
	const struct ftrace_hunt_sight *row;
	char na[NORM_MAX];
	const char *what;
	int ret;
	const char *a = answer_of(rep, answers, "tracer", have_truth, &ret);

	if (!a)
		return ret;
	row = sight_of(kind, a);
	if (row)
		return grade_report_add(rep, "tracer", true, "tracer \"%s\" does show this "
					"cause: %s", a, row->where);
	norm(a, na, sizeof(na));
	if (!in_list(known_tracers, na))
		return grade_report_add(rep, "tracer", false, "\"%s\" is no tracer rtlab knows: "
					"name the one whose output showed you the cause (irqsoff, "
					"preemptoff, preemptirqsoff, wakeup, wakeup_rt, wakeup_dl, "
					"function, function_graph, or events for event mode)", a);
	what = !strcmp(na, "events") ? "the probe's wake-ups from sched_waking to "
	       "sched_switch" : trace_explain_measures(na);
	return grade_report_add(rep, "tracer", false, "on the lab kernel, no output of the %s "
				"tracer (%s) showed this cause in the measured runs. Accepted: a "
				"tracer whose output names a function of the planted code (in its "
				"header, its entries or a <stack trace>), or events when the delay "
				"sat between sched_waking and sched_switch; labs/ftrace/README.md "
				"lists what each tracer can show", na, what ? what : "?");
}

int ftrace_grade_lacks(const struct rt_result *res, struct rt_buf *missing)
{
	const char *tier = rt_result_tier(res);
	bool hunt = false;
	int n = 0;

	if (!tier || (strcmp(tier, "host") && strcmp(tier, "vm"))) {
		if (rt_buf_puts(missing, ", a live run (host or classroom VM)"))
			return -ENOMEM;
		n++;
	}
	if (rt_result_param_bool(res, "hunt", &hunt) || !hunt) {
		if (rt_buf_puts(missing, ", a planted cause (--hunt)"))
			return -ENOMEM;
		n++;
	}
	return n;
}

int ftrace_grade(const struct lab_result *res, struct grade_report *rep)
{
	const json_t *extra = rt_result_extra_of(res->res);
	json_t *events = json_object_get(extra, "events");
	json_t *agr = json_object_get(extra, "agreement");
	const json_t *answers = rt_result_answers(res->res);
	json_t *tracers = NULL;
	const char *tier = rt_result_tier(res->res), *kind = NULL, *function = NULL;
	json_int_t matched = json_integer_value(json_object_get(events, "matched_count"));
	json_int_t probe = json_integer_value(json_object_get(json_object_get(extra, "probe"),
							      "count"));
	bool live = tier && (!strcmp(tier, "host") || !strcmp(tier, "vm"));
	char why[256];
	bool truth_ok, module;
	int ret;

	if (!res->res)
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

	truth_ok = hunt_truth(res->res, &kind, &function, &tracers, why, sizeof(why)) == 0;
	module = truth_ok && ftrace_injector_from_name(rt_json_str(json_object_get(extra, "hunt"),
							     "injector")) == FTRACE_INJ_MODULE;
	ret = truth_ok ? grade_report_add(rep, "hunt", true, "a cause was planted (seed %s, %s "
					  "injector)",
					  rt_json_str(json_object_get(extra, "hunt"), "seed"),
					  rt_json_str(json_object_get(extra, "hunt"), "injector"))
		       : grade_report_add(rep, "hunt", false, "%s", why);
	ret = ret ? ret : check_cause(rep, answers, truth_ok, kind);
	ret = ret ? ret : check_function(rep, answers, truth_ok, kind, module);
	ret = ret ? ret : check_tracer(rep, answers, truth_ok, kind);
	return ret;
}
