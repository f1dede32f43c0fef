/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli_doctor: `rtlab doctor [--json] [--restore]`. The command owns stale
 * journals (main() leaves them alone for it): it lists them, and replays
 * them only when asked, so a learner sees what a killed run left behind
 * before anything is undone. Exit 0 when the report was produced, whatever
 * it found; 1 when the report could not be built or --restore failed; 2 on
 * bad usage.
 */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/rt_buf.h"
#include "core/rt_log.h"
#include "doctor/doctor.h"

static int doctor_main(const struct cli_cmd *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "restore", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct doctor_report report;
	struct doctor_opts opts;
	struct rt_buf out = RT_BUF_INIT;
	char *cause = NULL;
	bool json = false;
	int c, ret, status = CLI_EXIT_OK;

	doctor_opts_init(&opts);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'r':
			opts.restore = true;
			break;
		case 'h':
			cli_cmd_help(cmd, stdout);
			return CLI_EXIT_OK;
		default:
			return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);

	ret = doctor_probe(&report, &opts, &cause);
	if (ret < 0) {
		rt_log(RT_LOG_ERR, "%s", cause ? cause : "doctor: the report could not be built");
		free(cause);
		return CLI_EXIT_FAIL;
	}
	ret = json ? doctor_render_json(&report, &out) : doctor_render_text(&report, &out);
	if (ret < 0) {
		rt_log(RT_LOG_ERR, "doctor: out of memory while rendering the report");
		status = CLI_EXIT_FAIL;
		goto out_fini;
	}
	fputs(rt_buf_str(&out), stdout);
	if (fflush(stdout) != 0) {
		rt_log(RT_LOG_ERR, "doctor: could not write the report");
		status = CLI_EXIT_FAIL;
	}
	if (report.journals.restore_attempted && !report.journals.restore_ok) {
		rt_log(RT_LOG_ERR, "doctor --restore failed: %s",
		       report.journals.restore_error ? report.journals.restore_error : "unknown");
		status = CLI_EXIT_FAIL;
	}
out_fini:
	rt_buf_fini(&out);
	doctor_report_fini(&report);
	return status;
}

const struct cli_cmd cli_cmd_doctor = {
	.name = "doctor",
	.usage = "[--json] [--restore]",
	.summary = "measure what this machine offers and where each lab can run",
	.help = "Measures the kernel (release, preemption model, PREEMPT_RT), whether rtlab\n"
		"runs inside a VM, root and the capabilities that matter, tracefs and its\n"
		"tracers, what stops a runaway RT task (RT throttling before 6.12, the fair\n"
		"server since), CPUs, QEMU, KVM (a tiny test guest, then a Linux guest: KVM\n"
		"works only once a VM image booted under it; tried once per host boot, up to\n"
		"30 s, when `make vm` has built the images), network namespaces, and undo\n"
		"journals left by killed runs; then says for every lab whether it runs live\n"
		"on this host, in the classroom VM or as a simulation, and exactly what is\n"
		"missing and how to get it. Nothing is assumed: a fact that cannot be\n"
		"measured is reported as unknown, with the reason. As root it mounts tracefs\n"
		"at /sys/kernel/tracing when absent (and says so); probes that create a\n"
		"tracefs instance or a network namespace remove them again.\n"
		"\n"
		"Options:\n"
		"  --json      print the rtlab.doctor/1 JSON document (see doc/doctor.md)\n"
		"  --restore   replay the undo journals of killed runs first, putting back\n"
		"              what they changed, and report what was restored\n"
		"  -h, --help  show this help\n"
		"\n"
		"Exit status: 0 when the report was produced (even if features are missing),\n"
		"1 when it could not be, or --restore failed; 2 on bad usage.\n",
	.own_journal = true,
	.main = doctor_main,
};
