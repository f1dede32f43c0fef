/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli: the command table and the shared usage/help printing. Adding a
 * command means one cli_<name>.c and one line in cli_table[].
 */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_text.h"

const struct cli_cmd *const cli_table[] = {
	&cli_cmd_doctor,
	&cli_cmd_vm,
	&cli_cmd_lesson,
	&cli_cmd_slides,
	&cli_cmd_quiz,
	&cli_cmd_progress,
	&cli_cmd_lab,
	&cli_cmd_grade,
	&cli_cmd_handin,
	&cli_cmd_ci,
	&cli_cmd_trace,
	&cli_cmd_schema,
	NULL,
};

const struct cli_cmd *cli_find(const char *name)
{
	for (const struct cli_cmd *const *c = cli_table; *c; c++)
		if (strcmp((*c)->name, name) == 0)
			return *c;
	return NULL;
}

void cli_cmd_help(const struct cli_cmd *cmd, FILE *out)
{
	fprintf(out, "usage: rtlab %s %s\n\n%s\n", cmd->name, cmd->usage, cmd->summary);
	if (cmd->help && *cmd->help)
		fprintf(out, "\n%s", cmd->help);
}

static int text_vprintf(FILE *out, const char *fmt, va_list ap)
{
	struct rt_buf b = RT_BUF_INIT;
	int ret = rt_text_vprintf(&b, fmt, ap);

	if (!ret && fwrite(rt_buf_str(&b), 1, b.len, out) != b.len)
		ret = -EIO;
	rt_buf_fini(&b);
	return ret;
}

int cli_text_printf(FILE *out, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = text_vprintf(out, fmt, ap);
	va_end(ap);
	return ret;
}

int cli_text_put(FILE *out, const char *text)
{
	return rt_text_fputs(text, RT_TEXT_KEEP_NL, out);
}

int cli_usage_error(const struct cli_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rtlab %s: ", cmd->name);
	va_start(ap, fmt);
	/* The message quotes the arguments, which may hold anything. */
	text_vprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: rtlab %s %s\n", cmd->name, cmd->usage);
	return CLI_EXIT_USAGE;
}

void cli_help(FILE *out)
{
	fputs("usage: rtlab [--help | --version]\n"
	      "       rtlab COMMAND [OPTIONS]\n"
	      "\n"
	      "Learn real-time Linux by measuring it. With no command, rtlab opens the\n"
	      "interactive lessons and labs in the terminal.\n"
	      "\n"
	      "Commands:\n", out);
	for (const struct cli_cmd *const *c = cli_table; *c; c++)
		fprintf(out, "  %-10s %s\n", (*c)->name, (*c)->summary);
	fputs("\n"
	      "Options:\n"
	      "  -h, --help     show this help and exit\n"
	      "  -V, --version  show the version and exit\n"
	      "\n"
	      "Run 'rtlab COMMAND --help' for a command's options. See rtlab(1).\n", out);
}
