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
#include <time.h>

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
#include "grade/report.h"
#include "labs/lab.h"

#define EXIT_INTERRUPTED 130
#define EXIT_HANGUP (128 + SIGHUP)

/* The signal that asked the run to stop, or 0. */
static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	stop_requested = sig;
}

/* A run stopped by a signal: 129 when the terminal closed, else 130 as for Ctrl-C. */
static int stopped_status(void)
{
	return stop_requested == SIGHUP ? EXIT_HANGUP : EXIT_INTERRUPTED;
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

static const struct doctor_lab *doctor_lab_of(const struct doctor_report *r,
					      const struct lab_ops *lab)
{
	for (size_t i = 0; i < r->nlabs; i++)
		if (r->labs[i].lab == lab)
			return &r->labs[i];
	return NULL;
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

static int lab_run(const struct cli_cmd *cmd, int argc, char **argv)
{
	const struct lab_ops *lab;
	struct doctor_report r;
	const struct doctor_lab *dl;
	struct lab_ctx ctx;
	struct lab_result res = { 0 };
	struct rt_journal *journal = NULL;
	struct rt_sink sink = { .progress = progress_line };
	struct sigaction sa, old_int, old_term, old_hup;
	struct rt_buf text = RT_BUF_INIT;
	struct lab_save save = { 0 };
	const char *json_path = NULL;
	char **largv = NULL, *cause = NULL;
	void *params = NULL;
	int largc = 0, ret, status = CLI_EXIT_FAIL;

	if (argc < 2)
		return cli_usage_error(cmd, "run: which lab? (see `rtlab lab list`)");
	lab = lab_find(argv[1]);
	if (!lab)
		return cli_usage_error(cmd, "run: no lab called '%s' (see `rtlab lab list`)",
				       argv[1]);
	largv = calloc((size_t)argc + 1, sizeof(*largv));
	if (!largv)
		return CLI_EXIT_FAIL;
	largv[largc++] = argv[1];
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			if (i + 1 >= argc) {
				free(largv);
				return cli_usage_error(cmd, "run: --json needs a file name");
			}
			json_path = argv[++i];
		} else if (!strncmp(argv[i], "--json=", 7)) {
			json_path = argv[i] + 7;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			free(largv);
			cli_cmd_help(cmd, stdout);
			return CLI_EXIT_OK;
		} else {
			largv[largc++] = argv[i];
		}
	}
	if (lab->state != LAB_STATE_READY || !lab->run) {
		fprintf(stderr, "rtlab lab run: the %s lab is planned and not available yet; "
			"`rtlab lab list` shows which labs run\n", lab->name);
		if (lab->issue)
			fprintf(stderr, "rtlab lab run: it is being built in issue #%u\n",
				lab->issue);
		free(largv);
		return CLI_EXIT_FAIL;
	}
	if (lab->parse_params) {
		ret = lab->parse_params(largc, largv, &params, &cause);
		if (ret) {
			status = cli_usage_error(cmd, "run %s: %s", lab->name,
						 cause ? cause : strerror(-ret));
			free(cause);
			free(largv);
			return status;
		}
	} else if (largc > 1) {
		free(largv);
		return cli_usage_error(cmd, "run %s: this lab takes no options", lab->name);
	}
	free(largv);

	if (quick_doctor(&r, lab))
		goto out_params;
	dl = doctor_lab_of(&r, lab);
	if (!dl || dl->tier == DOCTOR_TIER_NONE) {
		fprintf(stderr, "rtlab lab run: the %s lab cannot run here: %s\n", lab->name,
			dl && dl->reason ? dl->reason : "the doctor found no tier");
		goto out_doctor;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.tier = doctor_tier_name(dl->tier);
	ctx.degraded = dl->degraded;
	ctx.degraded_why = dl->degraded ? dl->reason : NULL;
	ctx.env = &r.env;
	ctx.params = params;
	ctx.stop = &stop_requested;
	ctx.seed = (uint64_t)time(NULL);

	ret = lab->check_capabilities ? lab->check_capabilities(&ctx, &cause) : 0;
	if (ret) {
		fprintf(stderr, "rtlab lab run: %s\n", cause ? cause : strerror(-ret));
		free(cause);
		goto out_doctor;
	}
	/* Before measuring: a place that cannot be written fails now, not after the run. */
	ret = lab_save_open(&save, lab->name, json_path, &cause);
	if (ret) {
		fprintf(stderr, "rtlab lab run: %s%s\n", cause ? cause : strerror(-ret),
			json_path ? "" : " (--json FILE saves the document elsewhere)");
		free(cause);
		goto out_doctor;
	}
	if (!r.env.root)
		fprintf(stderr, "rtlab lab run: warning: not root: real-time policies and "
			"mlockall are probably refused, and refused ones are measured as "
			"SCHED_OTHER (the results document says so)\n");

	/* Our handler first, so the journal passes stop requests on to it. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	journal = rt_journal_open(NULL, &cause);
	if (!journal) {
		rt_log(RT_LOG_WARN, "no undo journal (%s); this run changes nothing that "
		       "outlives it, so it goes on", cause ? cause : "unknown error");
		free(cause);
		cause = NULL;
	}
	ctx.journal = journal;

	ret = lab->run(&ctx, &sink, &res);
	if (ret || !res.res) {
		fprintf(stderr, "rtlab lab run: the %s lab failed (%s)\n", lab->name,
			strerror(ret < 0 ? -ret : EIO));
		goto out_journal;
	}
	ret = lab_save_commit(&save, res.res, &cause);
	if (ret) {
		fprintf(stderr, "rtlab lab run: %s\n", cause ? cause : strerror(-ret));
		free(cause);
		goto out_journal;
	}
	if (save.missed)
		fprintf(stderr, "rtlab lab run: %s\nrtlab lab run: results saved instead to "
			"%s%s\n", save.missed, save.path,
			res.interrupted ? " (interrupted: partial)" : "");
	else
		fprintf(stderr, "rtlab lab run: results written to %s%s\n", save.path,
			res.interrupted ? " (interrupted: partial)" : "");
	lab_record_progress(lab->name, res.interrupted ? "interrupted" : "done", save.path);
	if (lab->text && lab->text(&res, &text) == 0)
		cli_text_put(stdout, rt_buf_str(&text));
	fflush(stdout);
	status = res.interrupted ? stopped_status() : save.missed ? CLI_EXIT_FAIL : CLI_EXIT_OK;

out_journal:
	if (journal)
		rt_journal_close(journal);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	if (stop_requested && status == CLI_EXIT_FAIL && !save.missed)
		status = stopped_status();
out_doctor:
	lab_save_fini(&save);
	doctor_report_fini(&r);
out_params:
	if (params && lab->free_params)
		lab->free_params(params);
	lab_result_fini(&res);
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
		const struct lab_ops *lab = lab_find(rt_result_lab(res));
		struct lab_result lr = { .res = res };

		/* The lab's table holds the document's notes and names: escaped. */
		if (lab && lab->text && lab->text(&lr, &b) == 0)
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

static int lab_main(const struct cli_cmd *cmd, int argc, char **argv)
{
	if (argc < 2)
		return cli_usage_error(cmd, "expected list, run, report or answer");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
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
	return cli_usage_error(cmd, "unknown subcommand '%s'", argv[1]);
}

const struct cli_cmd cli_cmd_lab = {
	.name = "lab",
	.usage = "list [--json] | run LAB [OPTIONS] [--json FILE] | report FILE [--svg F] "
		 "[--html F] [--cyclictest-hist] | answer LAB [ID [TEXT]]",
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
		"\n"
		"Options of `run latency` (see labs/latency/README.md):\n"
		"  --scenario S       run scenario S (repeatable, or S1,S2); default: idle-other,\n"
		"                     load-other, idle-fifo, load-fifo. Scenarios: idle-other,\n"
		"                     load-other, idle-fifo, load-fifo, load-fifo-mlock,\n"
		"                     load-fifo-mlock-pinned, load-fifo-rt (PREEMPT_RT kernels\n"
		"                     only), load-fifo-faults (the deliberately bad one)\n"
		"  --duration D       per scenario: 10s, 2m, 500ms, 1h or seconds (default 15s)\n"
		"  --policy P         other, fifo or rr          --priority N   1..99 (fifo/rr)\n"
		"  --interval US      base interval (1000)       --distance US  per thread (500)\n"
		"  --threads N        measuring threads (1)      --cpus LIST    pin, e.g. 1 or 0,2-3\n"
		"                     (online CPUs only: checked before the run)\n"
		"  --mlock            mlockall and prefault      --load L[,L]|none  background load\n"
		"  --hist-max US      1 us buckets below (2000)  --spike US     count spikes above US\n"
		"  --dma-latency      hold /dev/cpu_dma_latency at 0 while measuring\n"
		"  --trace-marker US  write a tracefs trace_marker line above US\n"
		"Without --scenario, --policy/--priority/--mlock/--load describe one scenario\n"
		"called custom; with --scenario they override the scenarios' settings.\n"
		"Not root: real-time policies are measured as SCHED_OTHER, and the document\n"
		"and a warning say so.\n"
		"\n"
		"Options of `run ftrace` (see labs/ftrace/README.md):\n"
		"  --mode events|tracer  events: the probe's wake-ups from sched events (any\n"
		"                     kernel); tracer: also a latency tracer (default events)\n"
		"  --tracer NAME      irqsoff, preemptoff, preemptirqsoff, wakeup, wakeup_rt or\n"
		"                     wakeup_dl (implies --mode tracer)\n"
		"  --threshold US     tracing_thresh (0: keep the worst case)\n"
		"  --no-function-trace  leave options/function-trace off\n"
		"  --hunt [--seed N]  plant a hidden cause; diagnose it with `rtlab lab answer\n"
		"                     ftrace cause|function|tracer NAME`, run again, grade\n"
		"  --duration D       default 5s          --no-cross-check  skip rtla/trace-cmd\n"
		"  --no-busy          no nice-19 loop on the probe's CPU (wake-ups from idle\n"
		"                     may then go unmatched on some kernels)\n"
		"\n"
		"Exit status: 0 success; 1 the lab failed, is planned, cannot run here, or its\n"
		"document went to a fallback place; 2 bad usage; 130 interrupted (SIGINT,\n"
		"SIGTERM), 129 the terminal closed (SIGHUP): the document holds what was measured.\n",
	.main = lab_main,
};
