/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * main: the rtlab binary. With no arguments it opens the ncurses UI;
 * otherwise it dispatches to a subcommand from the CLI table. Before either,
 * it replays undo journals left behind by rtlab processes that were killed,
 * so the host is back in the state the learner had before any lab ran.
 * rtlab_init() first tells the lower layers of the library what only the
 * upper ones know (run/run_init.c).
 */
#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/rt_journal.h"
#include "core/rt_log.h"
#include "core/rt_version.h"
#include "doctor/doctor.h"
#include "ui/ui.h"
#include "run/run.h"

static void recover_stale_journals(void)
{
	unsigned int restored = 0;
	char *cause = NULL;

	if (rt_journal_recover(NULL, &restored, &cause) < 0) {
		rt_log(RT_LOG_WARN, "could not check for journals left by killed runs: %s",
		       cause ? cause : "unknown error");
		free(cause);
	}
}

int main(int argc, char **argv)
{
	const struct cli_cmd *cmd;

	setlocale(LC_ALL, "");
	rtlab_init();
	if (getenv("RTLAB_DEBUG"))
		rt_log_set_level(RT_LOG_DEBUG);

	if (argc > 1 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
			cli_help(stdout);
			return CLI_EXIT_OK;
		}
		if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
			printf("rtlab %s\n", RT_VERSION);
			return CLI_EXIT_OK;
		}
		fprintf(stderr, "rtlab: unknown option '%s'\n"
			"usage: rtlab [--help | --version] [COMMAND [OPTIONS]]\n", argv[1]);
		return CLI_EXIT_USAGE;
	}

	if (argc == 1) {
		recover_stale_journals();
		return ui_main();
	}

	cmd = cli_find(argv[1]);
	if (!cmd) {
		fprintf(stderr, "rtlab: unknown command '%s'\n"
			"usage: rtlab [--help | --version] [COMMAND [OPTIONS]]\n"
			"Run 'rtlab --help' for the list of commands.\n", argv[1]);
		return CLI_EXIT_USAGE;
	}
	if (argc == 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
		cli_cmd_help(cmd, stdout);
		return CLI_EXIT_OK;
	}
	if (!cmd->own_journal)
		recover_stale_journals();
	return cmd->main(cmd, argc - 1, argv + 1);
}
