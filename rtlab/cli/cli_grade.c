/*
 * cli_grade: `rtlab grade FILE [--json]`. Reads and validates a results
 * document, finds its lab and runs that lab's grade, which looks only at
 * the document. Prints each check; exit 0 when every check passed, 1 when
 * one failed or the document could not be graded, 2 on bad usage.
 */
#include "cli.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_json.h"
#include "core/rt_result.h"
#include "labs/lab.h"

static int print_json(const char *file, const char *lab, const struct grade_report *rep)
{
	json_t *doc, *checks = json_array();
	char *text;

	for (size_t i = 0; checks && i < rep->nchecks; i++)
		if (json_array_append_new(checks, json_pack("{s:s, s:b, s:s}", "name",
			rep->checks[i].name, "passed", rep->checks[i].passed, "detail",
			rep->checks[i].detail))) {
			json_decref(checks);
			return -ENOMEM;
		}
	doc = json_pack("{s:s, s:s, s:b, s:f, s:o}", "file", file, "lab", lab, "passed",
			grade_report_passed(rep), "score", rep->score, "checks", checks);
	if (!doc)
		return -ENOMEM;
	text = rt_json_dumps(doc, NULL);
	json_decref(doc);
	if (!text)
		return -ENOMEM;
	printf("%s\n", text);
	free(text);
	return 0;
}

static int grade_main(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct grade_report rep = { 0 };
	struct lab_result lr = { 0 };
	const struct lab_ops *lab;
	const char *file = NULL;
	char *cause = NULL;
	bool json = false;
	int ret, status = CLI_EXIT_FAIL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			cli_cmd_help(cmd, stdout);
			return CLI_EXIT_OK;
		} else if (argv[i][0] == '-' || file)
			return cli_usage_error(cmd, "unexpected argument '%s'", argv[i]);
		else
			file = argv[i];
	}
	if (!file)
		return cli_usage_error(cmd, "which results document?");
	ret = rt_result_read(file, &(struct rt_result_opts){ lab_names() }, &lr.res, &cause);
	if (ret) {
		cli_text_printf(stderr, "rtlab grade: %s\n", cause ? cause : strerror(-ret));
		free(cause);
		return CLI_EXIT_FAIL;
	}
	lab = lab_find(rt_result_lab(lr.res));
	if (!lab || !lab->grade) {
		fprintf(stderr, "rtlab grade: the %s lab has no grader yet (it is %s)\n",
			rt_result_lab(lr.res), lab ? lab_state_name(lab->state) : "unknown");
		goto out;
	}
	ret = lab->grade(&lr, &rep);
	if (ret) {
		cli_text_printf(stderr, "rtlab grade: %s could not be graded (%s)\n", file,
				strerror(-ret));
		goto out;
	}
	if (json) {
		if (print_json(file, lab->name, &rep))
			goto out;
	} else {
		/* Details quote the document (answers, seeds): escaped, one line each. */
		cli_text_printf(stdout, "%s: lab %s, tier %s\n", file, lab->name,
				rt_result_tier(lr.res));
		for (size_t i = 0; i < rep.nchecks; i++)
			cli_text_printf(stdout, "  %s %-20s %s\n", rep.checks[i].passed ? "PASS" :
					"FAIL", rep.checks[i].name, rep.checks[i].detail);
		printf("score: %.0f%% (%zu of %zu checks passed)\n", rep.score, rep.npassed,
		       rep.nchecks);
	}
	status = grade_report_passed(&rep) ? CLI_EXIT_OK : CLI_EXIT_FAIL;
out:
	grade_report_fini(&rep);
	lab_result_fini(&lr);
	return status;
}

const struct cli_cmd cli_cmd_grade = {
	.name = "grade",
	.usage = "FILE [--json]",
	.summary = "grade a lab's results document",
	.help = "Validates FILE (an rtlab.result/2 or /1 document), finds its lab and runs the\n"
		"lab's checks, which look only at the document: nothing is measured again.\n"
		"Prints each check as PASS or FAIL with what to do about it, then the score.\n"
		"\n"
		"Options:\n"
		"  --json      print {file, lab, passed, score, checks: [{name, passed, detail}]}\n"
		"  -h, --help  show this help\n"
		"\n"
		"Exit status: 0 when every check passed; 1 when one failed or FILE could not\n"
		"be read, validated or graded; 2 on bad usage.\n",
	.main = grade_main,
};
