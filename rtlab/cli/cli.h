/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli: the headless front end. One table of subcommands; each entry has its
 * own main() and its own --help text. Exit codes: 0 success, 1 the command
 * ran and failed (or found a problem), 2 usage error.
 */
#ifndef RTLAB_CLI_CLI_H
#define RTLAB_CLI_CLI_H

#include <stdbool.h>
#include <stdio.h>

#define CLI_EXIT_OK 0
#define CLI_EXIT_FAIL 1
#define CLI_EXIT_USAGE 2

struct cli_cmd {
	const char *name;
	const char *usage;	/* one line after "rtlab NAME ", e.g. "[--json] [--restore]" */
	const char *summary;	/* one line for `rtlab --help` */
	const char *help;	/* full text for `rtlab NAME --help`, after the usage line */
	bool own_journal;	/* handles stale journals itself (doctor); main() skips recovery */
	int (*main)(const struct cli_cmd *cmd, int argc, char **argv); /* argv[0] = name */
};

/* NULL-terminated; only commands that work are listed. */
extern const struct cli_cmd *const cli_table[];

const struct cli_cmd *cli_find(const char *name);

/* Print "usage: rtlab NAME USAGE" and the help text to @out. */
void cli_cmd_help(const struct cli_cmd *cmd, FILE *out);

/**
 * cli_usage_error - complain about bad usage of @cmd and return CLI_EXIT_USAGE
 *
 * Prints "rtlab NAME: <message>" and the usage line to stderr.
 */
int cli_usage_error(const struct cli_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * cli_text_printf - print one line to @out with every field escaped
 *
 * rt_text_printf() rules: for text whose fields come from files or people
 * (notes, answers, parameters, seeds, names in a trace), so that no control
 * character reaches the terminal raw and no field starts a line of its own.
 * Returns 0 or a negative errno.
 */
int cli_text_printf(FILE *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * cli_text_put - write multi-line text built from files to @out, controls
 * escaped but newlines and tabs kept (rt_text, RT_TEXT_KEEP_NL). 0 or -EIO.
 */
int cli_text_put(FILE *out, const char *text);

/* `rtlab --help` text. */
void cli_help(FILE *out);

/*
 * The documents the commands print, and their JSON Schemas made from the
 * keys each command's file declares (a new object, or NULL): `rtlab schema`.
 */
#define CLI_LESSON_LIST_SCHEMA	"rtlab.lesson-list/1"
#define CLI_QUIZ_SCHEMA		"rtlab.quiz-run/1"
#define CLI_PROGRESS_SCHEMA	"rtlab.progress-report/1"
#define CLI_TRACE_SCHEMA	"rtlab.trace-explain/1"
struct json_t *cli_lesson_list_schema(void);
struct json_t *cli_quiz_schema(void);
struct json_t *cli_progress_schema(void);
struct json_t *cli_trace_schema(void);

/* The command entry points, one per cli_<name>.c. */
extern const struct cli_cmd cli_cmd_doctor;
extern const struct cli_cmd cli_cmd_vm;
extern const struct cli_cmd cli_cmd_lesson;
extern const struct cli_cmd cli_cmd_slides;
extern const struct cli_cmd cli_cmd_quiz;
extern const struct cli_cmd cli_cmd_progress;
extern const struct cli_cmd cli_cmd_lab;
extern const struct cli_cmd cli_cmd_grade;
extern const struct cli_cmd cli_cmd_handin;
extern const struct cli_cmd cli_cmd_ci;
extern const struct cli_cmd cli_cmd_trace;
extern const struct cli_cmd cli_cmd_schema;

#endif
