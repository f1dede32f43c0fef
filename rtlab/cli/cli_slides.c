/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli_slides: `rtlab slides [DECK] | list | lint | export`, the teacher's
 * decks (slides/FORMAT.md). Presenting hands a loaded deck to the terminal
 * presenter (ui_view_slides()); export writes one self-contained HTML page
 * per deck with report_slides_html(); lint prints each problem as
 * "file:line: message". A deck is named by number, slug, file name or path.
 * An export's --class folder of `rtlab handin` files is unpacked first, by the
 * grader's own safe reader, into a folder of its own that is removed after.
 */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/rt_buf.h"
#include "core/rt_file.h"
#include "core/rt_log.h"
#include "core/rt_paths.h"
#include "grade/grade_book.h"
#include "grade/grade_handin.h"
#include "grade/grade_sandbox.h"
#include "report/report.h"
#include "lesson/slides.h"
#include "ui/ui.h"

/* The installed decks' folder, "<data dir>/slides"; NULL after logging why. */
static char *slides_dir(void)
{
	char *data = rt_paths_data_dir(), *dir = NULL;

	if (!data) {
		rt_log(RT_LOG_ERR, "cannot find the rtlab data folder: %s", strerror(errno));
		return NULL;
	}
	if (asprintf(&dir, "%s/slides", data) < 0)
		dir = NULL;
	free(data);
	return dir;
}

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The path of the deck @arg names (a path with '/' or ".md" as is), or NULL after saying why. */
static char *deck_path(const char *arg)
{
	char **paths = NULL, *dir, *cause = NULL, *found = NULL;
	size_t n = 0;
	long i;

	if (strchr(arg, '/') || (strlen(arg) > 3 && !strcmp(arg + strlen(arg) - 3, ".md") &&
				 !access(arg, F_OK)))
		return strdup(arg);
	dir = slides_dir();
	if (!dir)
		return NULL;
	if (slides_dir_scan(dir, &paths, &n, &cause)) {
		cli_text_printf(stderr, "rtlab slides: %s\n", cause ? cause : dir);
	} else {
		i = slides_dir_find(paths, n, arg);
		if (i >= 0)
			found = strdup(paths[i]);
		else
			cli_text_printf(stderr, "rtlab slides: no deck '%s' in %s "
					"('rtlab slides list' shows them)\n", arg, dir);
	}
	slides_paths_free(paths, n);
	free(cause);
	free(dir);
	return found;
}

/* Load @path; print why it cannot be loaded. Problems are printed as warnings. */
static struct slides_deck *open_deck(const char *path, bool warn)
{
	struct slides_deck *d = NULL;
	char *cause = NULL;

	if (slides_deck_load(path, &d, &cause)) {
		cli_text_printf(stderr, "rtlab slides: %s\n", cause ? cause : path);
		free(cause);
		return NULL;
	}
	if (warn && d->nproblems)
		cli_text_printf(stderr, "rtlab slides: %zu problem%s in %s "
				"('rtlab slides lint %s' lists them)\n", d->nproblems,
				d->nproblems == 1 ? "" : "s", path, path);
	if (!d->nslides) {
		cli_text_printf(stderr, "rtlab slides: %s holds no slide\n", path);
		slides_deck_free(d);
		return NULL;
	}
	return d;
}

static int present(const char *arg, const char *class_dir)
{
	struct slides_deck *d;
	char *path;
	int status;

	path = deck_path(arg ? arg : "00");
	if (!path)
		return CLI_EXIT_FAIL;
	d = open_deck(path, true);
	free(path);
	if (!d)
		return CLI_EXIT_FAIL;
	status = ui_view_slides(d, class_dir);
	slides_deck_free(d);
	return status;
}

static int list(void)
{
	char **paths = NULL, *dir, *cause = NULL;
	size_t n = 0;
	int status = CLI_EXIT_OK;

	dir = slides_dir();
	if (!dir)
		return CLI_EXIT_FAIL;
	if (slides_dir_scan(dir, &paths, &n, &cause)) {
		cli_text_printf(stderr, "rtlab slides: %s\n", cause ? cause : dir);
		status = CLI_EXIT_FAIL;
	}
	for (size_t i = 0; i < n; i++) {
		struct slides_deck *d = open_deck(paths[i], false);
		const char *base = strrchr(paths[i], '/') + 1;

		if (!d) {
			status = CLI_EXIT_FAIL;
			continue;
		}
		cli_text_printf(stdout, "%.2s  %-30.*s %3zu slides  %s\n", base,
				(int)(strlen(base) - 6), base + 3, d->nslides, d->title);
		slides_deck_free(d);
	}
	slides_paths_free(paths, n);
	free(cause);
	free(dir);
	return status;
}

/* ---- lint ---------------------------------------------------------------- */

static void lint_one(const char *path, unsigned int *files, unsigned int *problems)
{
	struct rt_buf errors = RT_BUF_INIT;
	int n = slides_lint_file(path, &errors);

	(*files)++;
	cli_text_put(stdout, rt_buf_str(&errors));
	*problems += n < 0 ? 1 : (unsigned int)n;
	rt_buf_fini(&errors);
}

static int lint_dir(const char *dir, unsigned int *files, unsigned int *problems)
{
	char **paths = NULL, *cause = NULL;
	size_t n = 0;

	if (slides_dir_scan(dir, &paths, &n, &cause)) {
		cli_text_printf(stderr, "rtlab slides lint: %s\n", cause ? cause : dir);
		free(cause);
		return -1;
	}
	if (!n) {
		cli_text_printf(stderr, "rtlab slides lint: no decks (NN-slug.md) in %s\n", dir);
		(*problems)++;
	}
	for (size_t i = 0; i < n; i++)
		lint_one(paths[i], files, problems);
	slides_paths_free(paths, n);
	return 0;
}

static int lint(int argc, char **argv)
{
	unsigned int files = 0, problems = 0;
	bool failed = false;

	if (!argc) {
		char *dir = slides_dir();

		failed = !dir || lint_dir(dir, &files, &problems);
		free(dir);
	}
	for (int i = 0; i < argc; i++) {
		if (is_dir(argv[i]))
			failed |= lint_dir(argv[i], &files, &problems) != 0;
		else
			lint_one(argv[i], &files, &problems);
	}
	fflush(stdout);
	if (problems || failed) {
		rt_log(RT_LOG_ERR, "%u problem%s in %u deck%s", problems, problems == 1 ? "" : "s",
		       files, files == 1 ? "" : "s");
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}

/* ---- export -------------------------------------------------------------- */

/*
 * The title slide's lines from --course FILE: the course file class grading
 * reads (labs, weights, due dates) may also hold "title", "teacher", "date"
 * and "licence", each a string; other keys are not ours and are left alone.
 * Returns 0, or -1 after saying why.
 */
static int course_load(const char *path, json_t **root, struct report_slides_opts *o)
{
	struct grade_course_titles t;
	char *text = NULL, *cause = NULL;
	const char *bad = NULL;
	json_error_t err;
	size_t len = 0;

	if (rt_file_load(path, 0, 1u << 20, &text, &len, &cause)) {
		cli_text_printf(stderr, "rtlab slides: --course: %s\n", cause ? cause : path);
		free(cause);
		return -1;
	}
	*root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
	free(text);
	if (!json_is_object(*root)) {
		cli_text_printf(stderr, "rtlab slides: --course %s: %s\n", path,
				*root ? "not a JSON object" : err.text);
		return -1;
	}
	if (grade_course_titles(*root, &t, &bad)) {
		cli_text_printf(stderr, "rtlab slides: --course %s: \"%s\" is not a "
				"string\n", path, bad);
		return -1;
	}
	o->course = t.title;
	o->teacher = t.teacher;
	o->date = t.date;
	o->licence = t.licence;
	return 0;
}

static int export_one(const char *path, const char *out_dir,
		      const struct report_slides_opts *opts)
{
	struct report_slides_opts o = *opts;
	struct rt_buf warnings = RT_BUF_INIT;
	struct rt_buf page = RT_BUF_INIT, file = RT_BUF_INIT;
	struct slides_deck *d;
	const char *base = strrchr(path, '/');
	char *cause = NULL;
	size_t n;
	int ret;

	d = open_deck(path, true);
	if (!d)
		return -EINVAL;
	base = base ? base + 1 : path;
	n = strlen(base);
	if (n > 3 && !strcmp(base + n - 3, ".md"))
		n -= 3;
	o.warnings = &warnings;
	ret = report_slides_page(d, &o, &page);
	for (char *l = warnings.data, *e; l && l < warnings.data + warnings.len; l = e + 1) {
		e = strchr(l, '\n');
		*e = '\0';
		cli_text_printf(stderr, "rtlab slides export: warning: %s\n", l);
	}
	rt_buf_fini(&warnings);
	if (!ret)
		ret = rt_buf_printf(&file, "%s/%.*s.html", out_dir, (int)n, base);
	if (!ret)
		ret = rt_file_write_atomic(rt_buf_str(&file), page.data, page.len, 0644, &cause);
	if (ret)
		cli_text_printf(stderr, "rtlab slides export: %s\n",
				cause ? cause : strerror(-ret));
	else
		cli_text_printf(stdout, "%s\n", rt_buf_str(&file));
	free(cause);
	rt_buf_fini(&page);
	rt_buf_fini(&file);
	slides_deck_free(d);
	return ret;
}

static int export(const char *arg, bool all, const char *out_dir,
		  const struct report_slides_opts *o)
{
	char **paths = NULL, *dir = NULL, *cause = NULL, *path;
	size_t n = 0;
	int status = CLI_EXIT_OK;

	if (rt_mkdir_p(out_dir, 0755)) {
		cli_text_printf(stderr, "rtlab slides export: cannot create %s: %s\n", out_dir,
				strerror(errno));
		return CLI_EXIT_FAIL;
	}
	if (!all) {
		path = deck_path(arg);
		if (!path)
			return CLI_EXIT_FAIL;
		status = export_one(path, out_dir, o) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
		free(path);
		return status;
	}
	dir = arg ? strdup(arg) : slides_dir();
	if (!dir)
		return CLI_EXIT_FAIL;
	if (slides_dir_scan(dir, &paths, &n, &cause)) {
		cli_text_printf(stderr, "rtlab slides export: %s\n", cause ? cause : dir);
		status = CLI_EXIT_FAIL;
	}
	for (size_t i = 0; i < n; i++)
		if (export_one(paths[i], out_dir, o))
			status = CLI_EXIT_FAIL;
	slides_paths_free(paths, n);
	free(cause);
	free(dir);
	return status;
}

/* ---- Command ------------------------------------------------------------- */

/*
 * A class folder of `rtlab handin` files (DIR/<student>.tar, DIR/<student>/
 * *.tar) read as the grader reads it: unpacked into a new folder, *@handins
 * (the caller removes it), whose students have <lab>/results.json. A plain
 * class folder leaves *@handins NULL. What was refused is said on stderr.
 */
static int class_handins(const char *dir, char **handins)
{
	char *report = NULL, *cause = NULL;
	int ret;

	ret = grade_handin_class_dir(dir, handins, &report, &cause);
	if (report)
		cli_text_put(stderr, report);
	if (ret)
		cli_text_printf(stderr, "rtlab slides: %s\n", cause ? cause : strerror(-ret));
	free(report);
	free(cause);
	return ret;
}

static int slides_main(const struct cli_cmd *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "class", required_argument, NULL, 'c' },
		{ "out", required_argument, NULL, 'o' },
		{ "all", no_argument, NULL, 'a' },
		{ "names", no_argument, NULL, 'N' },
		{ "course", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sub = "present", *class_dir = NULL, *out_dir = NULL, *course = NULL;
	struct report_slides_opts o = { 0 };
	char *handins = NULL;
	bool all = false, names = false;
	json_t *root = NULL;
	int c, status;

	if (argc >= 2 && (!strcmp(argv[1], "list") || !strcmp(argv[1], "lint") ||
			  !strcmp(argv[1], "export"))) {
		sub = argv[1];
		argc--;
		argv++;
	}
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			class_dir = optarg;
			break;
		case 'o':
			out_dir = optarg;
			break;
		case 'a':
			all = true;
			break;
		case 'N':
			names = true;
			break;
		case 'C':
			course = optarg;
			break;
		case 'h':
			cli_cmd_help(cmd, stdout);
			return CLI_EXIT_OK;
		case ':':
			return cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (class_dir && !is_dir(class_dir))
		return cli_usage_error(cmd, "--class wants a folder, not '%s'", class_dir);
	if (strcmp(sub, "export") && (out_dir || all || names || course))
		return cli_usage_error(cmd, "--out, --all, --names and --course are for "
				       "'slides export'");
	if (names && !class_dir)
		return cli_usage_error(cmd, "--names is for the class's plots (--class DIR)");
	if (!strcmp(sub, "lint")) {
		if (class_dir)
			return cli_usage_error(cmd, "--class is not for 'slides lint'");
		return lint(argc - optind, argv + optind);
	}
	if (!strcmp(sub, "list")) {
		if (optind < argc || class_dir)
			return cli_usage_error(cmd, "'slides list' takes no argument");
		return list();
	}
	if (optind + 1 < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
	if (!strcmp(sub, "export")) {
		if (!out_dir)
			return cli_usage_error(cmd, "export: where to? (--out DIR)");
		if (!all && optind >= argc)
			return cli_usage_error(cmd, "export: which deck? (DECK or --all)");
	}
	if (class_dir && !strcmp(sub, "export") && class_handins(class_dir, &handins))
		return CLI_EXIT_FAIL;
	if (handins)
		class_dir = handins;
	if (!strcmp(sub, "export")) {
		o.class_dir = class_dir;
		o.names = names;
		if (course && course_load(course, &root, &o))
			status = CLI_EXIT_FAIL;
		else
			status = export(optind < argc ? argv[optind] : NULL, all, out_dir, &o);
		json_decref(root);
	} else {
		status = present(optind < argc ? argv[optind] : NULL, class_dir);
	}
	if (handins)
		grade_rm_rf(handins);
	free(handins);
	return status;
}

const struct cli_cmd cli_cmd_slides = {
	.name = "slides",
	.usage = "[DECK] [--class DIR] | list | lint [FILE|DIR...] | "
		 "export DECK|--all [DIR] --out DIR [--class DIR [--names]] [--course FILE]",
	.summary = "present the teacher's decks in the terminal, check them, export HTML",
	.help = "DECK is a number (3, 03), a slug (kinds-of-latency), a file name or a\n"
		"path; the installed decks are in the data folder's slides/ (deck 00 is the\n"
		"course introduction, NN the deck of lesson NN). slides/FORMAT.md is the format.\n"
		"\n"
		"Subcommands:\n"
		"  [DECK]        present DECK (default 00) full screen: space, right arrow or\n"
		"                Page Down next; b, left arrow or Page Up back; a number then\n"
		"                g or Enter goes to that slide; g/G first/last; n shows the\n"
		"                speaker notes; up/down scroll; q quits. The top bar shows\n"
		"                the slide number and the time since the start. Needs 80x24.\n"
		"  list          the installed decks with their number of slides and title\n"
		"  lint [FILE|DIR...]\n"
		"                check decks against slides/FORMAT.md (also: each slide fits\n"
		"                80x24, deck-relative results documents exist) and print each\n"
		"                problem as 'file:line: message'; default: the installed decks\n"
		"  export DECK|--all [DIR] --out DIR\n"
		"                write NN-slug.html into --out: one self-contained page per\n"
		"                deck (CSS and script inline, no network), keyboard navigation\n"
		"                as in the terminal, n for notes, s for a speaker view (a second\n"
		"                window: notes, current and next slide, timer), a print\n"
		"                stylesheet (landscape, one slide a page, no notes) for saving\n"
		"                a PDF; a slide's plot is drawn as SVG from its results\n"
		"                document. --all: every deck of DIR (default: the installed\n"
		"                decks)\n"
		"\n"
		"Options:\n"
		"  --class DIR   the class folder: a plot written 'results: class:NAME' draws\n"
		"                DIR/NAME if it exists, else every student's run of the plot's\n"
		"                lab, DIR/STUDENT/LAB/results.json (as 'grade --class' reads\n"
		"                it) or DIR/STUDENT/results.json: a strip per run per scenario,\n"
		"                the class median marked. A lab nobody ran draws the deck's\n"
		"                sample, noted on the slide and warned about. Never a file\n"
		"                outside DIR (no '..', no link followed); without --class the\n"
		"                deck's sample document is drawn. A folder of 'rtlab handin'\n"
		"                files (DIR/STUDENT.tar, DIR/STUDENT/*.tar) is unpacked and\n"
		"                checked as 'grade --class' does, and its runs drawn\n"
		"  --names       export --class: name the students on the class's plots\n"
		"                (anonymous by default)\n"
		"  --course FILE export: the course file of 'grade --class' (JSON); its\n"
		"                optional \"title\", \"teacher\", \"date\" and \"licence\" go on\n"
		"                every title slide (slides/FORMAT.md)\n"
		"  --out DIR     export: the folder to write into (created if missing)\n"
		"  --all         export: every deck\n"
		"  -h, --help    show this help\n"
		"\n"
		"Exit status: 0 on success (a plot drawn from the sample is a warning); 1\n"
		"when a deck is missing, cannot be written, the course file cannot be read\n"
		"or lint found problems; 2 on bad usage.\n",
	.main = slides_main,
};
