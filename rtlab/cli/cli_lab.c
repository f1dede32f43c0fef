/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli_lab: `rtlab lab list|run|report|answer`, the headless front end of
 * the labs.
 *
 *   list    every lab with its state and where it runs here (the doctor's
 *           evaluation), and what is missing;
 *   run     one lab run: the doctor decides the tier, SIGINT/SIGTERM/SIGHUP
 *           set the stop flag the lab polls, progress goes to stderr, the
 *           final table to stdout, and the results document to --json FILE
 *           (or a time-stamped file in the state dir; lab_save_open() checks
 *           the place before the run measures). Exit 0, 1 when the run
 *           failed, the lab is only planned or the document had to go to a
 *           fallback place, 2 on bad usage, 130 when interrupted (SIGINT,
 *           SIGTERM), 129 when the terminal closed (SIGHUP); the document
 *           then holds what was measured;
 *   report  pictures and tables from a document, never a new measurement;
 *   answer  record the learner's written answers to a handout's questions.
 */
#include "cli.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_file.h"
#include "core/rt_journal.h"
#include "core/rt_json.h"
#include "core/rt_log.h"
#include "core/rt_paths.h"
#include "core/rt_progress.h"
#include "core/rt_result.h"
#include "core/rt_sink.h"
#include "doctor/doctor.h"
#include "grade/grade_exercise.h"
#include "grade/grade_work.h"
#include "report/report.h"
#include "labs/lab.h"
#include "run/run.h"

#define EXIT_INTERRUPTED 130
#define EXIT_HANGUP (128 + SIGHUP)

/* A run stopped by a signal: 129 when the terminal closed, else 130 as for Ctrl-C. */
static int stopped_status(int sig)
{
	return sig == SIGHUP ? EXIT_HANGUP : EXIT_INTERRUPTED;
}

/* The doctor's facts for `lab list` (@lab NULL) or `lab run` (doctor_opts_quick()). */
static int quick_doctor(struct doctor_report *r, const struct lab_ops *lab)
{
	struct doctor_opts o;
	char *cause = NULL;
	int ret;

	doctor_opts_quick(&o, lab);
	ret = doctor_probe(r, &o, &cause);
	if (ret) {
		rt_log(RT_LOG_ERR, "%s", cause ? cause : "doctor: the machine could not be probed");
		free(cause);
	}
	return ret;
}

/* ---- list ------------------------------------------------------------------------ */

static int list_json(const struct doctor_report *r)
{
	json_t *doc = json_object(), *labs = json_array();
	char *text;
	int ret = CLI_EXIT_FAIL;

	if (!doc || !labs || json_object_set_new(doc, "labs", labs)) {
		json_decref(labs);
		goto out;
	}
	for (size_t i = 0; i < r->nlabs; i++) {
		const struct doctor_lab *dl = &r->labs[i];
		json_t *o, *miss = json_array();

		for (size_t k = 0; miss && k < dl->nmissing; k++)
			json_array_append_new(miss, json_pack("{s:s, s:b, s:s, s:s}", "need",
				doctor_need_name(dl->missing[k].need), "required",
				dl->missing[k].required, "what", dl->missing[k].what, "how",
				dl->missing[k].how));
		o = json_pack("{s:s, s:s, s:s, s:i, s:s, s:b, s:b, s:s, s:o}", "name",
			      dl->lab->name, "title", dl->lab->title, "state",
			      lab_state_name(dl->lab->state), "lesson", dl->lab->lesson, "tier",
			      doctor_tier_name(dl->tier), "degraded", dl->degraded, "ok",
			      dl->lab->state == LAB_STATE_READY && dl->tier != DOCTOR_TIER_NONE,
			      "reason", dl->reason ? dl->reason : "", "missing", miss);
		if (!o || json_array_append_new(labs, o))
			goto out;
	}
	text = rt_json_dumps(doc, NULL);
	if (text) {
		printf("%s\n", text);
		free(text);
		ret = CLI_EXIT_OK;
	}
out:
	json_decref(doc);
	return ret;
}

static int lab_list(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct doctor_report r;
	bool json = false;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else
			return cli_usage_error(cmd, "list: unexpected argument '%s'", argv[i]);
	}
	if (quick_doctor(&r, NULL))
		return CLI_EXIT_FAIL;
	if (json) {
		ret = list_json(&r);
	} else {
		printf("%-11s %-8s %-17s %s\n", "LAB", "STATE", "TIER HERE", "TITLE");
		for (size_t i = 0; i < r.nlabs; i++) {
			const struct doctor_lab *dl = &r.labs[i];
			char tier[32];

			snprintf(tier, sizeof(tier), "%s%s", doctor_tier_name(dl->tier),
				 dl->degraded ? " (degraded)" : "");
			printf("%-11s %-8s %-17s %s", dl->lab->name, lab_state_name(dl->lab->state),
			       tier, dl->lab->title);
			if (dl->lab->state == LAB_STATE_PLANNED)
				dl->lab->issue ? printf(" [not available yet, issue #%u]",
							dl->lab->issue)
					       : printf(" [not available yet]");
			printf("\n");
			for (size_t k = 0; k < dl->nmissing; k++)
				printf("    %s %s: %s\n      how: %s\n",
				       dl->missing[k].required ? "needs" : "wants",
				       doctor_need_name(dl->missing[k].need), dl->missing[k].what,
				       dl->missing[k].how);
		}
		ret = CLI_EXIT_OK;
	}
	doctor_report_fini(&r);
	return ret;
}

/* ---- run ------------------------------------------------------------------------- */

static void progress_line(void *priv, unsigned int pct, const char *what)
{
	(void)priv;
	fprintf(stderr, "rtlab lab run: [%3u%%] %s\n", pct, what);
}

/* `rtlab lab run LAB --help`: the lab's options, from its table. */
static int lab_run_help(const struct lab_ops *lab)
{
	struct rt_buf b = RT_BUF_INIT;
	int ret = lab_opts_help(lab, &b);

	if (!ret)
		cli_text_put(stdout, rt_buf_str(&b));
	rt_buf_fini(&b);
	return ret ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

static int lab_run(const struct cli_cmd *cmd, int argc, char **argv)
{
	const struct lab_ops *lab;
	struct run_session s;
	struct run_opts o = { 0 };
	struct rt_sink sink = { .progress = progress_line };
	struct rt_buf text = RT_BUF_INIT;
	struct lab_args args;
	const char *json_path;
	char *cause = NULL;
	void *params;
	int ret, status = CLI_EXIT_FAIL;

	if (argc < 2)
		return cli_usage_error(cmd, "run: which lab? (see `rtlab lab list`)");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		cli_cmd_help(cmd, stdout);
		return CLI_EXIT_OK;
	}
	lab = lab_find(argv[1]);
	if (!lab)
		return cli_usage_error(cmd, "run: no lab called '%s' (see `rtlab lab list`)",
				       argv[1]);
	/* argv[1..] is the lab's name and its options: the lab's table reads them. */
	ret = lab_args_parse(lab, argc - 1, argv + 1, &args, &cause);
	if (!ret && args.help) {
		lab_args_fini(lab, &args);
		return lab_run_help(lab);
	}
	if (lab->state != LAB_STATE_READY || !lab->run) {
		fprintf(stderr, "rtlab lab run: the %s lab is planned and not available yet; "
			"`rtlab lab list` shows which labs run\n", lab->name);
		if (lab->issue)
			fprintf(stderr, "rtlab lab run: it is being built in issue #%u\n",
				lab->issue);
		free(cause);
		lab_args_fini(lab, &args);
		return CLI_EXIT_FAIL;
	}
	if (ret) {
		if (ret == -EINVAL)
			status = cli_usage_error(cmd, "run %s: %s", lab->name,
						 cause ? cause : strerror(-ret));
		else
			fprintf(stderr, "rtlab lab run: %s\n", cause ? cause : strerror(-ret));
		free(cause);
		lab_args_fini(lab, &args);
		return status;
	}
	params = args.params;
	json_path = args.json_path;

	o.lab = lab;
	o.params = params;
	o.seed = args.seed;	/* --seed N, else from the clock; the lab records it */
	o.json_path = json_path;
	o.sink = &sink;
	ret = run_session_init(&s, &o, &cause);
	if (ret) {
		fprintf(stderr, "rtlab lab run: %s%s\n", cause ? cause : strerror(-ret),
			s.step == RUN_STEP_SAVE && !json_path ?
			" (--json FILE saves the document elsewhere)" : "");
		free(cause);
		goto out;
	}
	if (!s.ctx.env->root)
		fprintf(stderr, "rtlab lab run: warning: not root: real-time policies and "
			"mlockall are probably refused, and refused ones are measured as "
			"SCHED_OTHER (the results document says so)\n");
	ret = run_session_exec(&s, &cause);
	if (!ret)
		ret = run_session_save(&s, true, &cause);
	if (ret) {
		fprintf(stderr, "rtlab lab run: %s\n", cause ? cause : strerror(-ret));
		free(cause);
		if (s.stop_signal)
			status = stopped_status(s.stop_signal);
		goto out;
	}
	if (s.missed)
		fprintf(stderr, "rtlab lab run: %s\nrtlab lab run: results saved instead to "
			"%s%s\n", s.missed, s.path,
			run_session_interrupted(&s) ? " (interrupted: partial)" : "");
	else
		fprintf(stderr, "rtlab lab run: results written to %s%s\n", s.path,
			run_session_interrupted(&s) ? " (interrupted: partial)" : "");
	if (report_text(run_session_result(&s), &text) == 0)
		cli_text_put(stdout, rt_buf_str(&text));
	fflush(stdout);
	status = run_session_interrupted(&s) ? stopped_status(s.stop_signal) :
		 s.missed ? CLI_EXIT_FAIL : CLI_EXIT_OK;
out:
	run_session_fini(&s);
	lab_args_fini(lab, &args);
	rt_buf_fini(&text);
	return status;
}

/* ---- report ------------------------------------------------------------------------- */

static int write_out(const char *path, const struct rt_buf *b)
{
	char *cause = NULL;
	int ret = rt_file_write_atomic(path, rt_buf_str(b), b->len, 0644, &cause);

	if (ret) {
		fprintf(stderr, "rtlab lab report: %s\n", cause ? cause : strerror(-ret));
		free(cause);
	}
	return ret;
}

static int lab_report(const struct cli_cmd *cmd, int argc, char **argv)
{
	const char *file = NULL, *svg = NULL, *html = NULL;
	bool hist = false;
	struct rt_result *res = NULL;
	struct rt_buf b = RT_BUF_INIT;
	char *cause = NULL;
	int ret, status = CLI_EXIT_FAIL;

	for (int i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "--svg") || !strcmp(argv[i], "--html")) && i + 1 < argc) {
			*(argv[i][2] == 's' ? &svg : &html) = argv[i + 1];
			i++;
		} else if (!strcmp(argv[i], "--cyclictest-hist")) {
			hist = true;
		} else if (argv[i][0] == '-' || file) {
			return cli_usage_error(cmd, "report: unexpected argument '%s'", argv[i]);
		} else {
			file = argv[i];
		}
	}
	if (!file)
		return cli_usage_error(cmd, "report: which results document?");
	ret = rt_result_read(file, &(struct rt_result_opts){ lab_names() }, &res, &cause);
	if (ret) {
		cli_text_printf(stderr, "rtlab lab report: %s\n", cause ? cause : strerror(-ret));
		free(cause);
		return CLI_EXIT_FAIL;
	}
	if (svg) {
		ret = report_svg(res, true, &b);
		if (ret == -ENODATA)
			fprintf(stderr, "rtlab lab report: %s has no histogram to plot\n", file);
		if (ret || write_out(svg, &b))
			goto out;
		rt_buf_reset(&b);
	}
	if (html) {
		if (report_html(res, &b) || write_out(html, &b))
			goto out;
		rt_buf_reset(&b);
	}
	if (hist) {
		ret = report_cyclictest_hist(res, &b);
		if (ret == -ENODATA)
			fprintf(stderr, "rtlab lab report: %s has no 1 us histogram\n", file);
		else if (ret == -E2BIG)
			fprintf(stderr, "rtlab lab report: %s: too many rows times histograms for "
				"the cyclictest layout\n", file);
		if (ret)
			goto out;
		cli_text_put(stdout, rt_buf_str(&b));
		rt_buf_reset(&b);
	}
	if (!svg && !html && !hist) {
		/* The tables hold the document's notes and names: escaped. */
		if (report_text(res, &b) == 0 && b.len)
			cli_text_put(stdout, rt_buf_str(&b));
		else
			cli_text_printf(stdout, "%s: lab %s, tier %s, created %s\n", file,
					rt_result_lab(res), rt_result_tier(res),
					rt_result_created(res));
	}
	status = CLI_EXIT_OK;
out:
	rt_buf_fini(&b);
	rt_result_free(res);
	return status;
}

/* ---- answer --------------------------------------------------------------------------- */

static int lab_answer(const struct cli_cmd *cmd, int argc, char **argv)
{
	const struct lab_ops *lab;
	char *cause = NULL, *text = NULL;
	const char *const *q;
	int ret;

	if (argc < 2 || argc > 4)
		return cli_usage_error(cmd, "answer: expected LAB [ID [TEXT]]");
	lab = lab_find(argv[1]);
	if (!lab)
		return cli_usage_error(cmd, "answer: no lab called '%s'", argv[1]);
	if (!lab->questions)
		return cli_usage_error(cmd, "answer: the %s lab has no written questions",
				       lab->name);
	if (argc >= 3) {
		for (q = lab->questions; *q && strcmp(*q, argv[2]); q++)
			;
		if (!*q)
			return cli_usage_error(cmd, "answer: the %s lab has no question '%s' "
					       "(see labs/%s/README.md)", lab->name, argv[2],
					       lab->name);
	}
	if (argc == 4) {
		ret = lab_answer_set(NULL, lab->name, argv[2], argv[3], &cause);
		if (ret) {
			cli_text_printf(stderr, "rtlab lab answer: %s\n",
					cause ? cause : strerror(-ret));
			free(cause);
			return CLI_EXIT_FAIL;
		}
		printf("%s %s: %s\n", lab->name, argv[2], *argv[3] ? "saved" : "removed");
		return CLI_EXIT_OK;
	}
	for (q = lab->questions; *q; q++) {
		if (argc == 3 && strcmp(*q, argv[2]))
			continue;
		ret = lab_answer_get(NULL, lab->name, *q, &text, &cause);
		if (ret && ret != -ENOENT) {
			cli_text_printf(stderr, "rtlab lab answer: %s\n",
					cause ? cause : strerror(-ret));
			free(cause);
			return CLI_EXIT_FAIL;
		}
		/* A written answer may span lines; its controls are escaped. */
		printf("%s: ", *q);
		cli_text_put(stdout, text ? text : "(no answer yet)");
		putchar('\n');
		free(text);
		text = NULL;
	}
	return CLI_EXIT_OK;
}

/*
 * `rtlab lab man-options`, not in the help: the LAB OPTIONS section of
 * rtlab(1), which `make man` puts into doc/rtlab.1 (tests/cli/lab_opts.t
 * checks the page is up to date).
 */
static int lab_man_options(void)
{
	struct rt_buf b = RT_BUF_INIT;
	int ret = lab_opts_man(&b);

	if (!ret)
		fputs(rt_buf_str(&b), stdout);
	rt_buf_fini(&b);
	return ret ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

static bool is_help(const char *arg)
{
	return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}

/*
 * --help or -h where an option may stand: anywhere after list or report,
 * first after answer (later words are an answer's text). `run` leaves it to
 * the lab's option table, which prints the lab's own options.
 */
static bool asks_help(int argc, char **argv)
{
	if (!strcmp(argv[1], "answer"))	/* in place of LAB or of ID, never of TEXT */
		return (argc > 2 && is_help(argv[2])) || (argc > 3 && is_help(argv[3]));
	if (strcmp(argv[1], "list") && strcmp(argv[1], "report"))
		return false;
	for (int i = 2; i < argc; i++)
		if (is_help(argv[i]))
			return true;
	return false;
}

/*
 * Where the headers the starter includes are: they stay with the lab's
 * checks, and a starter's "../checks" would be wrong from the work folder.
 */
static void say_headers(const char *lab)
{
	struct grade_exercise ex;

	if (grade_exercise_find(&ex, lab, NULL))
		return;
	if (ex.m.headers.n) {
		cli_text_printf(stdout, "the headers it includes (");
		for (size_t i = 0; i < ex.m.headers.n; i++)
			cli_text_printf(stdout, "%s%s", i ? ", " : "", ex.m.headers.v[i]);
		cli_text_printf(stdout, ") are in %s: read them there, the grader uses those\n",
				ex.checks);
	}
	grade_exercise_fini(&ex);
}

/* `rtlab lab start LAB` and `rtlab lab reset LAB`: the learner's working copy of an exercise. */
static int lab_work(const struct cli_cmd *cmd, int argc, char **argv, bool reset)
{
	char *path = NULL, *backup = NULL, *cause = NULL;
	bool created = false;
	int ret;

	if (argc != 2)
		return cli_usage_error(cmd, "%s: expected LAB", argv[0]);
	if (!lab_find(argv[1]))
		return cli_usage_error(cmd, "%s: no lab called '%s'", argv[0], argv[1]);
	ret = reset ? grade_work_reset(argv[1], &path, &backup, &cause) :
	      grade_work_start(argv[1], &path, &created, &cause);
	if (ret) {
		cli_text_printf(stderr, "rtlab lab %s: %s\n", argv[0],
				cause ? cause : strerror(-ret));
	} else if (reset) {
		if (backup)
			cli_text_printf(stdout, "your copy is now in %s\n", backup);
		cli_text_printf(stdout, "%s holds the starter files again\n", path);
	} else {
		cli_text_printf(stdout, created ? "started: edit the files in %s, then run "
				"`rtlab grade %s`\n" : "%s exists already (left as it is; `rtlab lab "
				"reset %s` starts afresh)\n", path, argv[1]);
	}
	if (!ret)
		say_headers(argv[1]);
	free(path);
	free(backup);
	free(cause);
	return ret ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

static int lab_main(const struct cli_cmd *cmd, int argc, char **argv)
{
	if (argc < 2)
		return cli_usage_error(cmd, "expected list, run, report, answer, start or reset");
	if (is_help(argv[1]) || asks_help(argc, argv)) {
		cli_cmd_help(cmd, stdout);
		return CLI_EXIT_OK;
	}
	if (!strcmp(argv[1], "list"))
		return lab_list(cmd, argc - 1, argv + 1);
	if (!strcmp(argv[1], "run"))
		return lab_run(cmd, argc - 1, argv + 1);
	if (!strcmp(argv[1], "report"))
		return lab_report(cmd, argc - 1, argv + 1);
	if (!strcmp(argv[1], "answer"))
		return lab_answer(cmd, argc - 1, argv + 1);
	if (!strcmp(argv[1], "start") || !strcmp(argv[1], "reset"))
		return lab_work(cmd, argc - 1, argv + 1, !strcmp(argv[1], "reset"));
	if (!strcmp(argv[1], "man-options") && argc == 2)
		return lab_man_options();
	return cli_usage_error(cmd, "unknown subcommand '%s'", argv[1]);
}

const struct cli_cmd cli_cmd_lab = {
	.name = "lab",
	.usage = "list [--json] | run LAB [OPTIONS] [--seed N] [--json FILE] | report FILE "
		 "[--svg F] [--html F] [--cyclictest-hist] | answer LAB [ID [TEXT]] | start LAB | "
		 "reset LAB",
	.summary = "list, run and report the labs",
	.help = "Subcommands:\n"
		"  list [--json]      every lab, its state, where it runs here and what is missing\n"
		"  run LAB [OPTIONS]  run a lab headless: progress on stderr, the final table on\n"
		"                     stdout, the results document in --json FILE (replaced if\n"
		"                     it exists; default: a time-stamped file under the state\n"
		"                     dir's results/, -2, -3... when that name is taken). A place\n"
		"                     that cannot be written fails before measuring; one that\n"
		"                     fails at the end sends the document to results/ or $TMPDIR\n"
		"                     and says where (exit 1)\n"
		"  report FILE        read a results document (never measures): --svg F writes\n"
		"                     the plot, --html F a self-contained report,\n"
		"                     --cyclictest-hist prints cyclictest's -h histogram layout;\n"
		"                     with none of them, prints the lab's table\n"
		"  answer LAB [ID [TEXT]]  record (or show) written answers to the handout's\n"
		"                     questions; the next run copies them into its document\n"
		"  start LAB          copy the starter files of LAB's coding exercise to your\n"
		"                     working copy, <state dir>/work/LAB (kept if it exists);\n"
		"                     edit them there and grade with `rtlab grade LAB`\n"
		"  reset LAB          move the working copy aside (LAB.bak-<time>) and start\n"
		"                     again from the starter files\n"
		"\n"
		"Each lab's options: `rtlab lab run LAB --help` (or rtlab(1), LAB OPTIONS).\n"
		"Every lab takes --seed N, the seed of its random choices, recorded in the\n"
		"results document as params.seed (default: one from the clock), so that a\n"
		"run can be repeated.\n"
		"\n"
		"Exit status: 0 success; 1 the lab failed, is planned, cannot run here, or its\n"
		"document went to a fallback place; 2 bad usage; 130 interrupted (SIGINT,\n"
		"SIGTERM), 129 the terminal closed (SIGHUP): the document holds what was measured.\n",
	.main = lab_main,
};
