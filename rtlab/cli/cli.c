/*
 * cli: the command table and the shared usage/help printing. Adding a
 * command means one cli_<name>.c and one line in cli_table[].
 */
#include "cli.h"

#include <stdarg.h>
#include <string.h>

const struct cli_cmd *const cli_table[] = {
	&cli_cmd_doctor,
	&cli_cmd_vm,
	&cli_cmd_lesson,
	&cli_cmd_quiz,
	&cli_cmd_progress,
	&cli_cmd_lab,
	&cli_cmd_grade,
	&cli_cmd_trace,
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

int cli_usage_error(const struct cli_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rtlab %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
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
