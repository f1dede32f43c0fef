/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli_schema: `rtlab schema [NAME]` prints the JSON Schema (draft 2020-12)
 * of a document rtlab writes or reads, made from the key tables its owner
 * declares (rt_keys.h); `--list` names them with their files under
 * doc/schema/. `make schemas` writes doc/schema/ with it, and
 * tests/cli/schema.t fails when a file there is stale, so the published
 * schemas are the code's.
 */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_json.h"
#include "core/rt_keys.h"
#include "core/rt_progress.h"
#include "core/rt_result.h"
#include "doctor/doctor.h"
#include "grade/grade_book.h"
#include "grade/grade_handin.h"
#include "grade/grade_manifest.h"
#include "grade/grade_outcome.h"
#include "labs/lab.h"
#include "qemu/qemu_kvm.h"
#include "vm/vm_pull.h"

/* rtlab.result/@version with every lab's own params and scenario keys. */
static json_t *result_schema(unsigned int version)
{
	struct rt_result_lab_keys keys[64] = { { NULL, NULL, NULL } };
	size_t n = 0;
	json_t *doc;

	for (const struct lab_ops *const *l = lab_table; *l && n < 64; l++) {
		keys[n] = (struct rt_result_lab_keys){ (*l)->name, (*l)->params_keys,
						       lab_scenario_keys_new(*l) };
		if (keys[n].params || keys[n].scenario)
			n++;
	}
	doc = rt_result_schema(version, keys, n);
	for (size_t i = 0; i < n; i++)
		lab_scenario_keys_free(keys[i].scenario);
	return doc;
}

static json_t *result_v2(void)
{
	return result_schema(RT_RESULT_VERSION);
}

static json_t *result_v1(void)
{
	return result_schema(1);
}

static const struct {
	const char *name;	/* the document's "schema" */
	const char *file;	/* under doc/schema/ */
	json_t *(*make)(void);
} schemas[] = {
	{ RT_RESULT_SCHEMA, "rtlab.result-2.json", result_v2 },
	{ RT_RESULT_SCHEMA_V1, "rtlab.result-1.json", result_v1 },
	{ RT_PROGRESS_SCHEMA, "rtlab.progress-1.json", rt_progress_schema },
	{ DOCTOR_SCHEMA, "rtlab.doctor-1.json", doctor_schema },
	{ GRADE_SCHEMA, "rtlab.grade-1.json", grade_schema },
	{ GRADE_EXERCISE_SCHEMA, "rtlab.exercise-1.json", grade_manifest_schema },
	{ GRADE_COURSE_SCHEMA, "rtlab.course-1.json", grade_course_schema },
	{ GRADE_HANDIN_SCHEMA, "rtlab.handin-1.json", grade_handin_schema },
	{ CLI_LESSON_LIST_SCHEMA, "rtlab.lesson-list-1.json", cli_lesson_list_schema },
	{ CLI_QUIZ_SCHEMA, "rtlab.quiz-run-1.json", cli_quiz_schema },
	{ CLI_PROGRESS_SCHEMA, "rtlab.progress-report-1.json", cli_progress_schema },
	{ CLI_TRACE_SCHEMA, "rtlab.trace-explain-1.json", cli_trace_schema },
	{ VM_PULL_SCHEMA, "rtlab.vm-pull-1.json", vm_pull_schema },
	{ QEMU_KVM_VERDICT_SCHEMA, "rtlab.kvm-verdict-1.json", qemu_kvm_verdict_schema },
};

#define NSCHEMAS (sizeof(schemas) / sizeof(schemas[0]))

static int print_schema(size_t i)
{
	json_t *doc = schemas[i].make();
	char *text = doc ? rt_json_dumps(doc, NULL) : NULL;
	int ret = text ? 0 : -ENOMEM;

	if (text)
		printf("%s\n", text);
	free(text);
	json_decref(doc);
	return ret;
}

/*
 * `--markdown lab:LAB`: the field tables of @lab's own keys, for its
 * section of doc/results.md (scripts/schemas puts it there).
 */
static int print_lab_markdown(const struct lab_ops *lab)
{
	const struct rt_keys *scen = lab_scenario_keys_new(lab);
	struct rt_buf b = RT_BUF_INIT;
	int ret = 0;

	if (lab->params_keys) {
		ret = rt_buf_puts(&b, "`params`:\n\n");
		if (!ret)
			ret = rt_keys_markdown(lab->params_keys, 0, &b);
		if (!ret && lab->params_keys->others)
			ret = rt_buf_puts(&b, "\nOther params may be present (options of some "
					  "runs).\n");
	}
	if (!ret && scen) {
		ret = rt_buf_printf(&b, "%sEach of `extra.scenarios[]`%s:\n\n", b.len ? "\n" : "",
				    lab->model ? " (the model's counters last)" : "");
		if (!ret)
			ret = rt_keys_markdown(scen, 0, &b);
		if (!ret && scen->others)
			ret = rt_buf_puts(&b, "\nA scenario may hold other figures.\n");
	}
	if (!ret)
		fputs(rt_buf_str(&b), stdout);
	rt_buf_fini(&b);
	lab_scenario_keys_free(scen);
	return ret;
}

static int schema_main(const struct cli_cmd *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "list", no_argument, NULL, 'l' },
		{ "markdown", no_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool list = false, markdown = false;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+lmh", longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			list = true;
			break;
		case 'm':
			markdown = true;
			break;
		case 'h':
			cli_cmd_help(cmd, stdout);
			return CLI_EXIT_OK;
		default:
			return cli_usage_error(cmd, "unknown option");
		}
	}
	if (list || optind == argc) {
		if (optind != argc)
			return cli_usage_error(cmd, "--list takes no NAME");
		for (size_t i = 0; i < NSCHEMAS; i++)
			printf("%s\t%s\n", schemas[i].name, schemas[i].file);
		return CLI_EXIT_OK;
	}
	if (optind + 1 != argc)
		return cli_usage_error(cmd, "one NAME at a time");
	if (markdown) {
		const char *name = argv[optind];
		const struct lab_ops *lab = strncmp(name, "lab:", 4) ? NULL : lab_find(name + 4);

		if (!lab)
			return cli_usage_error(cmd, "--markdown takes lab:LAB (got \"%s\")", name);
		if (print_lab_markdown(lab)) {
			fprintf(stderr, "rtlab schema: out of memory\n");
			return CLI_EXIT_FAIL;
		}
		return CLI_EXIT_OK;
	}
	for (size_t i = 0; i < NSCHEMAS; i++) {
		if (strcmp(argv[optind], schemas[i].name) != 0)
			continue;
		if (print_schema(i)) {
			fprintf(stderr, "rtlab schema: out of memory\n");
			return CLI_EXIT_FAIL;
		}
		return CLI_EXIT_OK;
	}
	return cli_usage_error(cmd, "no document named \"%s\" (rtlab schema --list)",
			       argv[optind]);
}

const struct cli_cmd cli_cmd_schema = {
	.name = "schema",
	.usage = "[--list | NAME | --markdown lab:LAB]",
	.summary = "print the JSON Schema of a document rtlab writes or reads",
	.help = "Prints the JSON Schema (draft 2020-12) of document NAME, e.g. rtlab.result/2,\n"
		"made from the keys rtlab declares for it; doc/schema/ holds the same files.\n"
		"With --list, or no NAME: every document's name and its file there.\n"
		"With --markdown lab:LAB: the tables of LAB's own keys in its results\n"
		"documents (params, each scenario), as doc/results.md shows them.\n"
		"\n"
		"  -l, --list       list the documents\n"
		"  -m, --markdown   a lab's key tables in Markdown\n"
		"  -h, --help       show this help\n",
	.main = schema_main,
};
