/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli_handin: `rtlab handin LAB [--out FILE] [--force] [--json]`, the
 * learner's side of handing in: one tar file holding the lab's code from
 * the working copy, the results document `rtlab grade LAB` would grade and
 * the progress file (quiz answers), with a manifest of sizes and SHA-256
 * digests (grade/grade_handin.h; doc/handin.md). The teacher's
 * `rtlab grade --class` reads a folder of them.
 *
 * What is missing is said, with the command that would make it, but does
 * not stop the hand-in: a partial hand-in still earns its parts. The exit
 * status says whether what the lab is graded on first is in: the code for
 * a lab with a coding exercise, else the results document.
 */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/rt_json.h"
#include "grade/grade_handin.h"
#include "labs/lab.h"

static int handin(const char *lab, const char *out, bool force, bool json)
{
	struct grade_handin h;
	struct stat st;
	char *cause = NULL, *def = NULL, *text = NULL;
	FILE *say = json ? stderr : stdout;
	json_t *m = NULL;
	bool complete;
	int ret, status = CLI_EXIT_FAIL;

	memset(&h, 0, sizeof(h));
	if (!out) {
		if (asprintf(&def, "rtlab-handin-%s.tar", lab) < 0) {
			def = NULL;
			goto out_nomem;
		}
		out = def;
	}
	if (!force && !lstat(out, &st)) {
		cli_text_printf(stderr, "rtlab handin: %s exists: not overwritten (--force "
				"replaces it)\n", out);
		goto out;
	}
	ret = grade_handin_collect(&h, lab, &cause);
	if (ret == -ENOMEM)
		goto out_nomem;
	if (ret) {
		cli_text_printf(stderr, "rtlab handin: %s\n", cause ? cause : strerror(-ret));
		goto out;
	}
	if (!h.nfiles) {
		for (size_t i = 0; i < h.nmissing; i++)
			cli_text_printf(stderr, "rtlab handin: %s\n", h.missing[i]);
		cli_text_printf(stderr, "rtlab handin: nothing to hand in for %s: no file "
				"written\n", lab);
		goto out;
	}
	ret = grade_handin_save(&h, out, force, &cause);
	if (ret == -EEXIST) {
		cli_text_printf(stderr, "rtlab handin: %s exists: not overwritten (--force "
				"replaces it)\n", out);
		goto out;
	} else if (ret) {
		cli_text_printf(stderr, "rtlab handin: %s\n", cause ? cause : strerror(-ret));
		goto out;
	}

	cli_text_printf(say, "Packed %s's hand-in in %s:\n", lab, out);
	for (size_t i = 0; i < h.nfiles; i++)
		cli_text_printf(say, "  %-28s %8zu bytes  from %s\n", h.files[i].path,
				h.files[i].size, h.files[i].from ? h.files[i].from : "-");
	if (h.results_why)
		cli_text_printf(say, "The results document: %s.\n", h.results_why);
	if (h.nmissing)
		fprintf(say, "Not in it:\n");
	for (size_t i = 0; i < h.nmissing; i++)
		cli_text_printf(say, "  %s\n", h.missing[i]);
	complete = h.exercise ? h.code : h.results;
	if (!h.exercise)
		cli_text_printf(say, "The %s lab has no coding exercise: its results document and "
				"quiz answers are what is graded.\n", lab);
	if (complete)
		cli_text_printf(say, "Give %s to your teacher as they ask (an upload, a "
				"shared folder); `tar tf %s` lists it.\n", out, out);
	else
		cli_text_printf(say, "The hand-in lacks the %s: it was written, but it will not "
				"earn those points.\n", h.exercise ? "code" : "results document");
	if (json) {
		m = grade_handin_manifest(&h);
		text = m ? rt_json_dumps(m, NULL) : NULL;
		if (!text)
			goto out_nomem;
		printf("%s\n", text);
	}
	if (fflush(stdout) || fflush(stderr))
		goto out;
	status = complete ? CLI_EXIT_OK : CLI_EXIT_FAIL;
	goto out;
out_nomem:
	fprintf(stderr, "rtlab handin: out of memory\n");
out:
	free(text);
	json_decref(m);
	free(cause);
	free(def);
	grade_handin_fini(&h);
	return status;
}

static int handin_main(const struct cli_cmd *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	bool force = false, json = false;
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":ho:f", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg)
				return cli_usage_error(cmd, "--out needs a file name");
			out = optarg;
			break;
		case 'f':
			force = true;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			cli_cmd_help(cmd, stdout);
			return CLI_EXIT_OK;
		case ':':
			return cli_usage_error(cmd, "'%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind == argc)
		return cli_usage_error(cmd, "hand in which lab? (see `rtlab lab list`)");
	if (optind + 1 < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
	if (!lab_find(argv[optind]))
		return cli_usage_error(cmd, "no lab called '%s' (see `rtlab lab list`)",
				       argv[optind]);
	return handin(argv[optind], out, force, json);
}

const struct cli_cmd cli_cmd_handin = {
	.name = "handin",
	.usage = "LAB [--out FILE] [--force] [--json]",
	.summary = "pack a lab's code, results and quiz answers into one file to hand in",
	.help = "Writes a tar file for the teacher's `rtlab grade --class`: a manifest\n"
		"(rtlab-handin.json: the lab, rtlab's version, the time, each file's size\n"
		"and SHA-256), the exercise's source files from the working copy (`rtlab lab\n"
		"start LAB` made it), LAB/results.json (the latest results document, the one\n"
		"`rtlab grade LAB` grades) and progress.json (your quiz answers). What is\n"
		"missing is listed with the command that makes it; the rest is still packed.\n"
		"A lab without a coding exercise hands in its results and quiz answers only.\n"
		"The format is in doc/handin.md.\n"
		"\n"
		"Options:\n"
		"  -o, --out FILE  write FILE (default: rtlab-handin-LAB.tar here)\n"
		"  -f, --force     replace FILE if it exists (never done otherwise)\n"
		"  --json          print the manifest (rtlab.handin/1) on stdout, the\n"
		"                  rest on stderr\n"
		"  -h, --help      show this help\n"
		"\n"
		"The file is written atomically (a temporary file, then renamed).\n"
		"\n"
		"Exit status: 0 when the file was written with the code (with the results\n"
		"document, for a lab without a coding exercise); 1 when it lacks it, holds\n"
		"nothing, exists already or cannot be written; 2 on bad usage (also an\n"
		"unknown lab).\n",
	.main = handin_main,
};
