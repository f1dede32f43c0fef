/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli_ci: `rtlab ci github|gitlab [LAB...] [--out DIR] (--vendor | --from
 * URL) [--force]`, the CI files that grade a learner's repository on the
 * runners courses use (grade/grade_ci.h; doc/grading.md). rtlab has no
 * public home a runner could clone, so where the runner gets it is never
 * left to a placeholder: --vendor copies this rtlab's source into the
 * template repository, --from names a git URL, and one of them is required.
 */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/rt_buf.h"
#include "core/rt_file.h"
#include "core/rt_paths.h"
#include "grade/grade_ci.h"
#include "grade/grade_exercise.h"
#include "labs/lab.h"

/* The labs named on the command line, or every lab with an exercise. */
static int pick_labs(const struct cli_cmd *cmd, int argc, char **argv, const char ***labs,
		     size_t *n)
{
	const char *const *all = lab_names();
	size_t cap = 0;

	for (size_t i = 0; all[i]; i++)
		cap++;
	cap += (size_t)argc;
	*labs = calloc(cap + 1, sizeof(**labs));
	if (!*labs)
		return -ENOMEM;
	*n = 0;
	for (int i = 0; i < argc; i++) {
		if (!lab_find(argv[i]))
			return cli_usage_error(cmd, "no lab called '%s' (see `rtlab lab list`)",
					       argv[i]);
		if (!grade_exercise_exists(argv[i]))
			return cli_usage_error(cmd, "the %s lab has no coding exercise to grade "
					       "in CI", argv[i]);
		for (size_t j = 0; j < *n; j++)
			if (!strcmp((*labs)[j], argv[i]))
				return cli_usage_error(cmd, "'%s' is named twice", argv[i]);
		(*labs)[(*n)++] = argv[i];
	}
	for (size_t i = 0; !argc && all[i]; i++)
		if (grade_exercise_exists(all[i]))
			(*labs)[(*n)++] = all[i];
	if (!*n) {
		fprintf(stderr, "rtlab ci: no lab has a coding exercise here\n");
		return CLI_EXIT_FAIL;
	}
	return 0;
}

static int write_ci(const struct grade_ci_opts *o, const char *out, bool vendor, bool force)
{
	struct rt_buf yaml = RT_BUF_INIT;
	char *cause = NULL, *path = NULL, *data = NULL, *slash;
	struct stat st;
	int ret, status = CLI_EXIT_FAIL;

	ret = grade_ci_yaml(o, &yaml, &cause);
	if (ret == -ENOMEM)
		goto nomem;
	if (ret) {
		cli_text_printf(stderr, "rtlab ci: %s\n", cause ? cause : strerror(-ret));
		goto out;
	}
	if (asprintf(&path, "%s/%s", out, grade_ci_path(o->kind)) < 0) {
		path = NULL;
		goto nomem;
	}
	if (!force && !lstat(path, &st)) {
		cli_text_printf(stderr, "rtlab ci: %s exists: not overwritten (--force "
				"replaces it)\n", path);
		goto out;
	}
	if (vendor) {
		data = rt_paths_data_dir();
		if (!data)
			goto nomem;
		ret = grade_ci_vendor(data, out, &cause);
		if (ret == -ENOMEM)
			goto nomem;
		if (ret) {
			cli_text_printf(stderr, "rtlab ci: %s\n", cause ? cause : strerror(-ret));
			goto out;
		}
		cli_text_printf(stdout, "Copied rtlab's source from %s into %s/%s (without the "
				"labs' reference solutions and mutants, but for the hypervisor "
				"policy rtlab's own build compiles).\n", data, out,
				GRADE_CI_RTLAB_DIR);
	}
	slash = strrchr(path, '/');
	*slash = '\0';
	ret = rt_mkdir_p(path, 0755);
	*slash = '/';
	if (!ret)
		ret = rt_file_write_atomic(path, yaml.data, yaml.len, 0644, &cause);
	if (ret) {
		cli_text_printf(stderr, "rtlab ci: %s\n", cause ? cause : strerror(-ret));
		goto out;
	}
	cli_text_printf(stdout, "Wrote %s: grades", path);
	for (size_t i = 0; i < o->nlabs; i++)
		cli_text_printf(stdout, " %s", o->labs[i]);
	cli_text_printf(stdout, " from %s on every push.\n",
			o->nlabs == 1 ? "the repository's top" : "the folders named after the labs");
	status = fflush(stdout) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	goto out;
nomem:
	fprintf(stderr, "rtlab ci: out of memory\n");
out:
	free(data);
	free(path);
	free(cause);
	rt_buf_fini(&yaml);
	return status;
}

static int ci_main(const struct cli_cmd *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "vendor", no_argument, NULL, 'V' },
		{ "from", required_argument, NULL, 'F' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct grade_ci_opts o = { 0 };
	const char *out = ".", **labs = NULL;
	bool vendor = false, force = false;
	int c, ret;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":ho:f", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg)
				return cli_usage_error(cmd, "--out needs a folder");
			out = optarg;
			break;
		case 'V':
			vendor = true;
			break;
		case 'F':
			o.from = optarg;
			break;
		case 'f':
			force = true;
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
		return cli_usage_error(cmd, "which CI? github or gitlab");
	if (!strcmp(argv[optind], "github"))
		o.kind = GRADE_CI_GITHUB;
	else if (!strcmp(argv[optind], "gitlab"))
		o.kind = GRADE_CI_GITLAB;
	else
		return cli_usage_error(cmd, "no CI called '%s' (github or gitlab)", argv[optind]);
	if (vendor == !!o.from)
		return cli_usage_error(cmd, "say where the runner gets rtlab: --vendor (copy "
				       "this rtlab's source into the repository) or --from URL "
				       "(a git URL the runner can clone)%s",
				       vendor ? ", not both" : "");
	if (o.from && !grade_ci_url_ok(o.from))
		return cli_usage_error(cmd, "the URL '%s' has characters a shell or YAML would "
				       "read (use letters, digits and @:/._~+%%=-)", o.from);
	ret = pick_labs(cmd, argc - optind - 1, argv + optind + 1, &labs, &o.nlabs);
	if (ret == -ENOMEM) {
		fprintf(stderr, "rtlab ci: out of memory\n");
		ret = CLI_EXIT_FAIL;
	} else if (!ret) {
		o.labs = labs;
		ret = write_ci(&o, out, vendor, force);
	}
	free(labs);
	return ret;
}

const struct cli_cmd cli_cmd_ci = {
	.name = "ci",
	.usage = "github|gitlab [LAB...] (--vendor | --from URL) [--out DIR] [--force]",
	.summary = "write the CI file that grades learners' repositories on every push",
	.help = "github  writes DIR/.github/workflows/classroom.yml, a GitHub Classroom\n"
		"        workflow: one autograding step per check of each exercise's manifest\n"
		"        (labs/LAB/checks/exercise.json), worth the check's points, read from\n"
		"        one `rtlab grade LAB --work . --json` run (kept as an artifact).\n"
		"gitlab  writes DIR/.gitlab-ci.yml: one job per lab, debian:12, whose JUnit\n"
		"        report (`rtlab grade --format junit`) GitLab shows in the pipeline and\n"
		"        merge request (artifacts: reports: junit).\n"
		"\n"
		"The runner builds rtlab in .rtlab/ of the repository and installs only what\n"
		"grading needs (`scripts/deps.sh grade`, as `make deps-grade`). Without LAB,\n"
		"every lab with a coding exercise. With one lab its code is at the\n"
		"repository's top (the starter's files); with several, in LAB/ each.\n"
		"\n"
		"Options (one of --vendor and --from is required):\n"
		"  --vendor      copy this rtlab's source tree (the one it was built in, or\n"
		"                RTLAB_DATADIR) into DIR/.rtlab, without the labs' reference\n"
		"                solutions (but labs/hypervisor/reference/hv_boost.c, which\n"
		"                rtlab's build compiles) and mutants; DIR is the template\n"
		"                repository\n"
		"  --from URL    the runner clones rtlab from URL (git clone --depth 1)\n"
		"  -o, --out DIR write into DIR (default: here)\n"
		"  -f, --force   replace the CI file if it exists (never done otherwise)\n"
		"  -h, --help    show this help\n"
		"\n"
		"Exit status: 0 when the file was written; 1 when it could not be (it\n"
		"exists, .rtlab exists, no source tree to copy); 2 on bad usage (also an\n"
		"unknown lab or one without a coding exercise).\n",
	.main = ci_main,
};
