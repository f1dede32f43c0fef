/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli_grade: `rtlab grade`, the grading harness's front end.
 *
 *   rtlab grade FILE                  a results document: the lab's checks of it
 *   rtlab grade LAB                   a registered lab: the learner's code (its
 *                                     working copy or --work DIR), results document
 *                                     and quiz, in the sandbox (rtlab/grade/)
 *   rtlab grade --exercise DIR        the same for an exercise folder not installed
 *   rtlab grade --class DIR           a teacher's class, in parallel jobs
 *   rtlab grade --run-subject ...     internal: the runner a check program calls
 *
 * The engine builds an rtlab.grade/1 object per grade; this file only
 * picks the form (text, TAP, JUnit, JSON, CSV) and the exit status: 0 when
 * nothing failed, 1 when a check failed or nothing could be graded, 2 on
 * bad usage.
 */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/rt_buf.h"
#include "core/rt_file.h"
#include "core/rt_json.h"
#include "core/rt_parse.h"
#include "core/rt_progress.h"
#include "core/rt_result.h"
#include "grade/grade_book.h"
#include "grade/grade_class.h"
#include "grade/grade_exercise.h"
#include "grade/grade_format.h"
#include "grade/grade_handin.h"
#include "grade/grade_outcome.h"
#include "grade/grade_sandbox.h"
#include "grade/grade_stop.h"
#include "grade/grade_work.h"
#include "labs/lab.h"

struct grade_args {
	const char *target;		/* FILE or LAB */
	const char *work, *result, *exercise, *class_dir, *lab, *out_dir, *build_only;
	const char *student, *course;
	enum grade_format format;
	unsigned int jobs;
	bool format_given, verbose, keep, no_quiz, lint, no_ns, allow_unisolated, bom;
};

/* ---- Printing ------------------------------------------------------------------------- */

/*
 * @grades in form @f into @b. @class_doc, for --class: the summary table
 * stands for the text form, and the JSON form is the class document.
 */
static int format_grades(json_t *grades, json_t *class_doc, enum grade_format f, bool verbose,
			 struct rt_buf *b)
{
	char *text = NULL;
	int ret = 0;

	switch (f) {
	case GRADE_FORMAT_TEXT:
		if (class_doc)
			return grade_format_summary(grades, b);
		for (size_t i = 0; !ret && i < grade_list_count(grades); i++)
			ret = grade_format_text(grade_list_at(grades, i), verbose, b);
		return ret;
	case GRADE_FORMAT_TAP:
		return grade_format_tap(grades, b);
	case GRADE_FORMAT_JUNIT:
		return grade_format_junit(grades, b);
	case GRADE_FORMAT_CSV:
		return grade_format_csv(grades, b);
	case GRADE_FORMAT_JSON:
		text = rt_json_dumps(class_doc ? class_doc : grade_list_count(grades) == 1 ?
				     grade_list_at(grades, 0) : grades, NULL);
		ret = text ? rt_buf_printf(b, "%s\n", text) : -ENOMEM;
		free(text);
		return ret;
	}
	return -EINVAL;
}

static int print_grades(json_t *grades, enum grade_format f, bool verbose)
{
	struct rt_buf b = RT_BUF_INIT;
	int ret = format_grades(grades, NULL, f, verbose, &b);

	if (!ret)
		fwrite(rt_buf_str(&b), 1, b.len, stdout);
	rt_buf_fini(&b);
	return ret;
}

static int print_one(const struct grade_outcome *o, const struct grade_args *a)
{
	json_t *g = grade_outcome_json(o), *arr = json_array();
	int ret;

	if (!g || !arr || json_array_append_new(arr, g)) {
		json_decref(arr);
		return -ENOMEM;
	}
	ret = print_grades(arr, a->format, a->verbose);
	json_decref(arr);
	return ret;
}

static int outcome_status(const struct grade_outcome *o)
{
	return !o->error && grade_report_passed(&o->rep) ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

/* ---- The runner (internal) -------------------------------------------------------------- */

static void record(FILE *f, const struct grade_run_res *r)
{
	fprintf(f, "exit %d\nsignal %d\ntimed_out %d\ncpu_limit %d\nfsize_limit %d\nout_cut %d\n"
		"err_cut %d\nstops %u\nvmlck_kb %ld\npolicy %d\nrtprio %d\nwall_ms %ld\n"
		"reason %s\n", r->exit_code, r->signal, r->timed_out, r->cpu_limit,
		r->fsize_limit, r->out_cut, r->err_cut, r->nstops, r->vmlck_kb, r->policy,
		r->rtprio, (long)(r->wall_s * 1000.0), r->reason);
}

static int run_subject_main(const struct cli_cmd *cmd, int argc, char **argv)
{
	const char *stdin_path = NULL;
	unsigned int wall = 0, rtprio = 0, memlock = 0;
	struct grade_sandbox sb = { 0 };
	struct grade_run_res res = { 0 };
	char *cause = NULL;
	FILE *rec = fdopen(3, "w");
	int i, ret;

	/*
	 * The check program that called us is gone: end the run we started
	 * (grade_stop's handler does) rather than live on under init.
	 */
	prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
	if (getppid() == 1)
		return CLI_EXIT_FAIL;

	for (i = 2; i < argc && strcmp(argv[i], "--"); i++) {
		unsigned int *num = !strcmp(argv[i], "--wall") ? &wall : !strcmp(argv[i], "--rtprio") ?
				    &rtprio : !strcmp(argv[i], "--memlock") ? &memlock : NULL;

		if (!strcmp(argv[i], "--stdin") && i + 1 < argc) {
			stdin_path = argv[++i];
		} else if (num && i + 1 < argc) {
			char *end;
			unsigned long v = strtoul(argv[++i], &end, 10);

			if (*end || v > 1u << 30)
				return cli_usage_error(cmd, "--run-subject: bad number '%s'", argv[i]);
			*num = (unsigned int)v;
		} else {
			return cli_usage_error(cmd, "--run-subject: unexpected '%s'", argv[i]);
		}
	}
	if (!rec)
		rec = stderr;
	ret = grade_sandbox_parse(getenv(GRADE_ENV_SANDBOX), &sb, &cause);
	if (!ret)
		ret = grade_subject_run(&sb, stdin_path, wall, rtprio, memlock,
					(const char *const *)(i < argc ? argv + i + 1 : argv + argc),
					&res, &cause);
	if (ret) {
		fprintf(rec, "error %s\n", cause ? cause : strerror(-ret));
		fclose(rec);
		free(cause);
		grade_sandbox_fini(&sb);
		return CLI_EXIT_FAIL;
	}
	rt_write_all(1, res.out, res.out_len);
	rt_write_all(2, res.err, res.err_len);
	record(rec, &res);
	fclose(rec);
	grade_run_res_fini(&res);
	grade_sandbox_fini(&sb);
	return CLI_EXIT_OK;
}

/* ---- Learner's forms ---------------------------------------------------------------------- */

static char *self_exe(void)
{
	return realpath("/proc/self/exe", NULL);
}

static int grade_file(const struct grade_args *a)
{
	struct grade_outcome o = { 0 };
	char *cause = NULL;
	int ret, status = CLI_EXIT_FAIL;

	ret = grade_outcome_add_document(&o, a->target, &cause);
	if (ret) {
		cli_text_printf(stderr, "rtlab grade: %s\n", cause ? cause : strerror(-ret));
		goto out;
	}
	if (print_one(&o, a))
		goto out;
	status = outcome_status(&o);
out:
	free(cause);
	grade_outcome_fini(&o);
	return status;
}

static int lint_exercise(const struct grade_exercise *ex)
{
	char *cause = NULL;
	int ret = grade_exercise_lint(ex, &cause);

	if (ret) {
		cli_text_printf(stderr, "rtlab grade: %s\n", cause ? cause : strerror(-ret));
		free(cause);
		return CLI_EXIT_FAIL;
	}
	cli_text_printf(stdout, "%s: %s, %zu checks, %u points: fine\n", ex->dir, ex->m.lab,
			ex->m.nchecks, grade_manifest_points(&ex->m));
	return CLI_EXIT_OK;
}

static int build_only(const struct grade_exercise *ex, const char *work,
		      const struct grade_opts *opts, const char *out)
{
	char *cause = NULL, *log = NULL;
	int ret = grade_exercise_build(ex, work, out, opts, &log, &cause);

	if (ret) {
		cli_text_printf(stderr, "rtlab grade: %s\n", cause ? cause : strerror(-ret));
		if (log && *log)
			cli_text_put(stderr, log);
	} else {
		cli_text_printf(stdout, "built %s's subject and checks into %s: grade them with "
				"`rtlab grade --exercise %s` (no compiler needed)\n", ex->m.lab,
				out, out);
	}
	free(cause);
	free(log);
	return ret ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

/*
 * The results document `rtlab grade LAB` grades (lab_pick_learner(): the
 * newest that holds what the grade needs), said on stderr with why; NULL
 * when the learner has none (caller frees).
 */
static char *graded_result(const char *lab)
{
	struct lab_pick pick;
	char *path;

	if (lab_pick_learner(lab_find(lab), &pick))
		return NULL;
	if (pick.why)
		cli_text_printf(stderr, "rtlab grade: results document %s\n", pick.why);
	path = pick.path;
	pick.path = NULL;
	lab_pick_fini(&pick);
	return path;
}

static int grade_lab(const struct cli_cmd *cmd, const struct grade_args *a)
{
	const char *lab = a->exercise ? NULL : a->target;
	struct grade_exercise ex = { 0 };
	struct grade_outcome o = { 0 };
	struct grade_opts opts;
	char *cause = NULL, *work = NULL, *result = NULL, *runner = self_exe();
	/* Only `rtlab grade LAB` joins the learner's latest results and quiz. */
	bool have_ex = false, from_state = !a->work && !a->exercise;
	int ret = 0, status = CLI_EXIT_FAIL;

	grade_opts_init(&opts);
	opts.runner = runner;
	opts.keep = a->keep;
	if (a->no_ns)
		opts.ns = 0;
	if (a->exercise) {
		ret = grade_exercise_open(&ex, a->exercise, &cause);
		have_ex = !ret;
	} else if (grade_exercise_exists(lab)) {
		ret = grade_exercise_find(&ex, lab, &cause);
		have_ex = !ret;
	}
	if (ret)
		goto out_err;
	if (a->lint) {
		status = have_ex ? lint_exercise(&ex) : cli_usage_error(cmd, "--lint needs an "
									 "exercise");
		goto out;
	}
	if (have_ex && !lab)
		lab = ex.m.lab;
	if (a->build_only) {
		if (!have_ex || (!a->work && !ex.bin)) {
			status = cli_usage_error(cmd, "--build-only needs an exercise and --work DIR");
			goto out;
		}
		status = build_only(&ex, a->work, &opts, a->build_only);
		goto out;
	}
	if (a->work) {
		work = strdup(a->work);
	} else if (have_ex && !ex.bin) {
		work = grade_work_dir(lab);
		if (work && access(work, F_OK)) {
			free(work);
			work = NULL;
		}
	}
	if (a->result)
		result = strdup(a->result);
	else if (from_state && lab_find(lab))
		result = graded_result(lab);
	if (!work && !result && !ex.bin && !(from_state && lab_find(lab))) {
		ret = -ENOENT;
		cause = strdup("nothing to grade");
		goto out_err;
	}
	if (have_ex && !work && !ex.bin)
		cli_text_printf(stderr, "rtlab grade: no working copy of %s's exercise (`rtlab lab "
				"start %s`, or --work DIR): the code is not graded\n", lab, lab);
	/* `rtlab grade LAB`: the whole lab, each part by the manifest's weight. */
	if (from_state && have_ex && ex.m.weights_given && lab_find(lab)) {
		unsigned int w[3];

		memcpy(w, ex.m.weights, sizeof(w));
		if (a->no_quiz)
			w[GRADE_PART_QUIZ] = 0;
		grade_outcome_weigh(&o, w);
	}
	if (have_ex && (work || ex.bin)) {
		ret = grade_exercise_run(&ex, work, &opts, &o, &cause);
		if (ret)
			goto out_err;
	}
	if (result) {
		ret = grade_outcome_add_document(&o, result, &cause);
		if (ret)
			goto out_err;
	}
	if (from_state && !a->no_quiz && lab_find(lab)) {
		if (!o.lab)
			o.lab = strdup(lab);
		ret = grade_outcome_add_quiz(&o, NULL, &cause);
		if (ret)
			goto out_err;
	}
	if (!o.rep.nchecks) {
		ret = -ENOENT;
		free(cause);
		if (asprintf(&cause, "nothing to grade for %s: %s", lab, have_ex ?
			     "start the exercise with `rtlab lab start LAB`, or give --work DIR" :
			     "run the lab (`rtlab lab run LAB`) or give --result FILE") < 0)
			cause = NULL;
		goto out_err;
	}
	if (print_one(&o, a))
		goto out;
	status = outcome_status(&o);
	goto out;

out_err:
	cli_text_printf(stderr, "rtlab grade: %s\n", cause ? cause : strerror(-ret));
out:
	free(cause);
	free(work);
	free(result);
	free(runner);
	grade_outcome_fini(&o);
	grade_exercise_fini(&ex);
	return status;
}

/* ---- The teacher's form --------------------------------------------------------------------- */

static int write_file(const char *dir, const char *name, const struct rt_buf *b)
{
	char *path = NULL, *cause = NULL;
	int ret;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return -ENOMEM;
	ret = rt_file_write_atomic(path, rt_buf_str(b), b->len, 0644, &cause);
	if (ret)
		cli_text_printf(stderr, "rtlab grade: %s\n", cause ? cause : strerror(-ret));
	free(cause);
	free(path);
	return ret;
}

/* @student's feedback.txt and feedback.html in OUT/<student>/. */
static int write_feedback(const char *dir, json_t *grades, const char *student)
{
	struct rt_buf b = RT_BUF_INIT;
	char *sdir = NULL;
	int ret;

	if (asprintf(&sdir, "%s/%s", dir, student) < 0)
		return -ENOMEM;
	ret = rt_mkdir_p(sdir, 0755);
	if (ret)
		cli_text_printf(stderr, "rtlab grade: %s: %s\n", sdir, strerror(-ret));
	if (!ret)
		ret = grade_book_feedback_text(grades, student, &b);
	if (!ret)
		ret = write_file(sdir, "feedback.txt", &b);
	rt_buf_reset(&b);
	if (!ret)
		ret = grade_book_feedback_html(grades, student, &b);
	if (!ret)
		ret = write_file(sdir, "feedback.html", &b);
	rt_buf_fini(&b);
	free(sdir);
	return ret;
}

/*
 * Every file of OUT from the class document @doc, each written atomically
 * (a temporary file, then renamed). grades.json goes first: it is what a
 * later `--student` re-grade starts from, and every other file is made
 * from it alone. Feedback is written for @only, or for every student.
 */
static int write_class(const char *dir, json_t *doc, const struct grade_course *course,
		       bool bom, const char *only)
{
	json_t *grades = grade_class_grades(doc);
	struct rt_buf b = RT_BUF_INIT;
	char *text, today[16];
	time_t now = time(NULL);
	struct tm tm;
	int ret = rt_mkdir_p(dir, 0755);

	if (ret) {
		cli_text_printf(stderr, "rtlab grade: %s: %s\n", dir, strerror(-ret));
		return ret;
	}
	strftime(today, sizeof(today), "%Y-%m-%d", gmtime_r(&now, &tm));
	text = rt_json_dumps(doc, NULL);
	ret = text ? rt_buf_printf(&b, "%s\n", text) : -ENOMEM;
	free(text);
	if (!ret)
		ret = write_file(dir, "grades.json", &b);
	rt_buf_reset(&b);
	if (!ret)
		ret = grade_format_csv(grades, &b);
	if (!ret)
		ret = write_file(dir, "gradebook.csv", &b);
	rt_buf_reset(&b);
	if (!ret)
		ret = grade_book_lms(grades, course, today, bom, &b);
	if (!ret)
		ret = write_file(dir, "gradebook-lms.csv", &b);
	rt_buf_reset(&b);
	if (!ret)
		ret = grade_format_junit(grades, &b);
	if (!ret)
		ret = write_file(dir, "junit.xml", &b);
	rt_buf_reset(&b);
	if (!ret)
		ret = grade_format_tap(grades, &b);
	if (!ret)
		ret = write_file(dir, "grades.tap", &b);
	rt_buf_reset(&b);
	if (!ret)
		ret = grade_format_summary(grades, &b);
	if (!ret)
		ret = write_file(dir, "summary.txt", &b);
	rt_buf_fini(&b);
	for (size_t i = 0; i < grade_list_count(grades); i++) {
		const char *s = grade_student(grade_list_at(grades, i)), *o;
		bool first = s && (!only || !strcmp(s, only));

		for (size_t k = 0; first && k < i; k++)
			first = !(o = grade_student(grade_list_at(grades, k))) || strcmp(o, s);
		if (!ret && first)
			ret = write_feedback(dir, grades, s);
	}
	return ret;
}

/*
 * --student with --out: the class document of the earlier run in OUT with
 * @student's grades replaced by @fresh (a new reference); @fresh itself
 * when OUT has none yet. NULL with a message when OUT's is unreadable.
 */
static json_t *merge_earlier(const char *out_dir, json_t *fresh, const char *student)
{
	char *path = NULL, *text = NULL, *cause = NULL;
	json_t *doc = NULL, *merged = NULL;
	size_t len = 0;
	int ret;

	if (asprintf(&path, "%s/grades.json", out_dir) < 0)
		return NULL;
	ret = rt_file_read(path, 256u << 20, &text, &len);
	if (ret == -ENOENT) {
		free(path);
		return json_incref(fresh);
	}
	if (!ret)
		ret = rt_json_load(text, len, path, &doc, &cause);
	if (!ret && !grade_class_grades(doc))
		ret = -EINVAL;
	if (!ret)
		merged = grade_book_merge(grade_class_grades(doc), fresh, student);
	if (ret)
		cli_text_printf(stderr, "rtlab grade: %s: %s: not a class's grades.json, so the "
				"other students' grades cannot be kept (move it away to start "
				"afresh)\n", path, cause ? cause : strerror(-ret));
	json_decref(doc);
	free(cause);
	free(text);
	free(path);
	return merged;
}

static int grade_class(const struct cli_cmd *cmd, const struct grade_args *a)
{
	struct grade_class_opts co = { .dir = a->class_dir, .lab = a->lab,
				       .exercise = a->exercise, .jobs = a->jobs,
				       .student = a->student,
				       .allow_unisolated = a->allow_unisolated };
	struct grade_course course, *cp = NULL;
	struct rt_buf b = RT_BUF_INIT;
	json_t *grades = NULL, *doc = NULL, *all = NULL;
	char *cause = NULL, *runner = self_exe(), *handins = NULL, *report = NULL;
	int ret, status = CLI_EXIT_FAIL;
	double wall = 0;

	if (a->lab && !lab_find(a->lab))
		return cli_usage_error(cmd, "--lab: no lab called '%s'", a->lab);
	if (a->student && (!*a->student || strchr(a->student, '/') || a->student[0] == '.'))
		return cli_usage_error(cmd, "--student takes a student's folder name");
	if (a->course) {
		ret = grade_course_load(a->course, &course, &cause);
		if (ret) {
			cli_text_printf(stderr, "rtlab grade: %s\n", cause ? cause : strerror(-ret));
			free(cause);
			free(runner);
			return CLI_EXIT_USAGE;
		}
		cp = &course;
	}
	/* A folder of `rtlab handin` files: unpacked (safely) into a class folder of our own. */
	ret = grade_handin_class_dir(a->class_dir, &handins, &report, &cause);
	if (report)
		cli_text_put(stderr, report);
	if (ret) {
		cli_text_printf(stderr, "rtlab grade: %s\n", cause ? cause : strerror(-ret));
		goto out;
	}
	if (handins)
		co.dir = handins;
	grade_opts_init(&co.base);
	co.base.runner = runner;
	co.base.keep = a->keep;
	if (a->no_ns)
		co.base.ns = 0;
	if (!co.jobs) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		co.jobs = n > 0 ? (unsigned int)n : 1;
	}
	ret = grade_class_run(&co, &grades, &wall, &cause);
	if (ret) {
		cli_text_printf(stderr, "rtlab grade: %s\n", cause ? cause : strerror(-ret));
		goto out;
	}
	/* A re-grade: the other students' grades are kept from OUT's grades.json. */
	all = a->student && a->out_dir ? merge_earlier(a->out_dir, grades, a->student) :
	      json_incref(grades);
	if (!all)
		goto out;
	doc = grade_format_class_json(json_incref(all), a->class_dir, co.jobs, wall);
	if (!doc)
		goto out;
	if (a->out_dir && write_class(a->out_dir, doc, cp, a->bom, a->student))
		goto out;
	ret = format_grades(grades, doc, a->format, a->verbose, &b);
	if (!ret && a->format == GRADE_FORMAT_TEXT)
		ret = rt_buf_printf(&b, "graded in %.1f s with %u jobs%s%s\n", wall, co.jobs,
				    a->out_dir ? "; files in " : "", a->out_dir ? a->out_dir : "");
	if (ret)
		goto out;
	fwrite(rt_buf_str(&b), 1, b.len, stdout);
	status = CLI_EXIT_OK;
	for (size_t i = 0; i < grade_list_count(grades); i++)
		if (grade_failed_to_grade(grade_list_at(grades, i)))
			status = CLI_EXIT_FAIL;
out:
	rt_buf_fini(&b);
	json_decref(doc);
	json_decref(all);
	json_decref(grades);
	if (handins)
		grade_rm_rf(handins);
	free(handins);
	free(report);
	free(cause);
	free(runner);
	return status;
}

/* ---- Arguments -------------------------------------------------------------------------- */

static int parse_args(const struct cli_cmd *cmd, int argc, char **argv, struct grade_args *a)
{
	static const struct { const char *name; size_t off; } vals[] = {
		{ "--work", offsetof(struct grade_args, work) },
		{ "--result", offsetof(struct grade_args, result) },
		{ "--exercise", offsetof(struct grade_args, exercise) },
		{ "--prebuilt", offsetof(struct grade_args, exercise) },
		{ "--class", offsetof(struct grade_args, class_dir) },
		{ "--lab", offsetof(struct grade_args, lab) },
		{ "--out", offsetof(struct grade_args, out_dir) },
		{ "--build-only", offsetof(struct grade_args, build_only) },
		{ "--student", offsetof(struct grade_args, student) },
		{ "--course", offsetof(struct grade_args, course) },
	};

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		bool done = false;

		for (size_t k = 0; k < sizeof(vals) / sizeof(vals[0]) && !done; k++) {
			if (strcmp(arg, vals[k].name))
				continue;
			if (i + 1 >= argc || !*argv[i + 1])
				return cli_usage_error(cmd, "%s needs a value", arg);
			*(const char **)((char *)a + vals[k].off) = argv[++i];
			done = true;
		}
		if (done)
			continue;
		if (!strcmp(arg, "--json")) {
			a->format = GRADE_FORMAT_JSON;
			a->format_given = true;
		} else if (!strcmp(arg, "--format")) {
			if (i + 1 >= argc || grade_format_parse(argv[i + 1], &a->format))
				return cli_usage_error(cmd, "--format takes text, tap, junit, json "
						       "or csv");
			a->format_given = true;
			i++;
		} else if (!strcmp(arg, "--jobs")) {
			char *end;
			unsigned long n = i + 1 < argc ? strtoul(argv[i + 1], &end, 10) : 0;

			if (i + 1 >= argc || *end || !n || n > 256)
				return cli_usage_error(cmd, "--jobs takes a number 1..256");
			a->jobs = (unsigned int)n;
			i++;
		} else if (!strcmp(arg, "--verbose") || !strcmp(arg, "-v")) {
			a->verbose = true;
		} else if (!strcmp(arg, "--keep")) {
			a->keep = true;
		} else if (!strcmp(arg, "--no-quiz")) {
			a->no_quiz = true;
		} else if (!strcmp(arg, "--lint")) {
			a->lint = true;
		} else if (!strcmp(arg, "--no-namespaces")) {
			a->no_ns = true;
		} else if (!strcmp(arg, "--allow-unisolated")) {
			a->allow_unisolated = true;
		} else if (!strcmp(arg, "--bom")) {
			a->bom = true;
		} else if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			cli_cmd_help(cmd, stdout);
			return -1;
		} else if (arg[0] == '-' || a->target) {
			return cli_usage_error(cmd, "unexpected argument '%s'", arg);
		} else {
			a->target = arg;
		}
	}
	return 0;
}

static int grade_main(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct grade_args a = { .format = GRADE_FORMAT_TEXT };
	int ret;

	/*
	 * Nothing a graded program runs as our uid may attach to us or read
	 * our descriptors (/proc/PID/fd); a stop ends every process we start.
	 */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	grade_stop_install();
	if (argc > 1 && !strcmp(argv[1], "--run-subject"))
		return run_subject_main(cmd, argc, argv);
	grade_sweep_left(NULL);
	ret = parse_args(cmd, argc, argv, &a);
	if (ret)
		return ret < 0 ? CLI_EXIT_OK : ret;
	if (a.class_dir) {
		if (a.target || a.work || a.result || a.build_only)
			return cli_usage_error(cmd, "--class takes --lab, --exercise, --student, "
					       "--jobs, --out, --course, --bom and --format only");
		if ((a.course || a.bom) && !a.out_dir)
			return cli_usage_error(cmd, "--course and --bom shape the files of --out");
		return grade_class(cmd, &a);
	}
	if (a.out_dir || a.jobs || a.lab || a.student || a.course || a.bom)
		return cli_usage_error(cmd, "--out, --jobs, --lab, --student, --course and --bom "
				       "go with --class");
	if (a.format == GRADE_FORMAT_CSV && !a.format_given)
		a.format = GRADE_FORMAT_TEXT;
	if (a.exercise) {
		if (a.target)
			return cli_usage_error(cmd, "give a lab or --exercise DIR, not both");
		return grade_lab(cmd, &a);
	}
	if (!a.target)
		return cli_usage_error(cmd, "which lab or results document?");
	if (lab_find(a.target))
		return grade_lab(cmd, &a);
	if (a.work || a.build_only || a.lint)
		return cli_usage_error(cmd, "no lab called '%s' (--work and --build-only need a "
				       "lab or --exercise DIR)", a.target);
	if (a.result || a.no_quiz)
		return cli_usage_error(cmd, "--result and --no-quiz need a lab");
	return grade_file(&a);
}

const struct cli_cmd cli_cmd_grade = {
	.name = "grade",
	.usage = "LAB [--work DIR] [--result FILE] [FORMAT] | FILE [FORMAT] | "
		 "--class DIR [--lab LAB] [--student NAME] [--jobs N] [--out DIR [--course FILE] "
		 "[--bom]] [FORMAT]",
	.summary = "grade a learner's code, results and quiz, or a whole class",
	.help = "The first word is a lab's name when a lab of that name exists (rtlab lab\n"
		"list); anything else is read as the path of a results document.\n"
		"\n"
		"rtlab grade FILE\n"
		"  Validates FILE (an rtlab.result/2 or /1 document), checks its checksum (a\n"
		"  document edited after rtlab wrote it fails), finds its lab and runs the lab's\n"
		"  checks, which look only at the document: nothing is measured again.\n"
		"\n"
		"rtlab grade LAB [--work DIR] [--result FILE] [--no-quiz]\n"
		"  Builds the learner's code of LAB's coding exercise (by default the working\n"
		"  copy `rtlab lab start LAB` made) against the lab's checks in a sandbox, runs\n"
		"  the checks, and joins the grade of a results document (FILE, or the lab's\n"
		"  newest that holds every scenario its checks need: stderr says which and\n"
		"  why) and of the lesson's quiz as last answered. Each check prints PASS,\n"
		"  FAIL or SKIP with its points, the reason and, when it failed, a hint; the\n"
		"  score gives partial credit by points. --work DIR alone grades the code in\n"
		"  DIR only (its sources, nothing else of DIR, are taken).\n"
		"  --exercise DIR     an exercise folder (holding checks/) instead of LAB\n"
		"  --build-only OUT   with --work: compile the subject (static) and the checks\n"
		"                     into OUT, for a machine without a compiler (the classroom\n"
		"                     VM); grade there with `rtlab grade --exercise OUT`\n"
		"  --lint             check the exercise's manifest and files\n"
		"\n"
		"rtlab grade --class DIR [--lab LAB | --exercise D] [--jobs N] [--out OUT]\n"
		"  Grades every student folder of DIR (DIR/<student>/<lab>/, or DIR/<student>/\n"
		"  itself for one exercise; a results.json there joins the grade) in N parallel\n"
		"  jobs (default: the number of CPUs), each with its own uid (as root) or user\n"
		"  namespace; timing checks run one at a time. Prints a summary table; --out\n"
		"  writes gradebook.csv, gradebook-lms.csv, junit.xml, grades.tap, grades.json,\n"
		"  summary.txt and OUT/<student>/feedback.txt and feedback.html. A lab a\n"
		"  student has not handed in is \"not handed in\": blank, out of the average,\n"
		"  and no failure of the run. Identical results documents and near-identical\n"
		"  code are listed as hints in the summary and grades.json.\n"
		"  --student NAME     grade only DIR/NAME and rewrite every file of OUT, the\n"
		"                     other students' grades kept from OUT/grades.json\n"
		"  --course FILE      the labs, weights and due dates of the course total in\n"
		"                     gradebook-lms.csv (rtlab.course/1, doc/grading.md);\n"
		"                     without it every lab graded weighs the same\n"
		"  --bom              start gradebook-lms.csv with UTF-8's byte-order mark\n"
		"  --allow-unisolated  grade even where the sandbox cannot isolate the code\n"
		"                     (not root, no user namespaces, no Landlock): refused\n"
		"                     otherwise, since a submission could forge grades\n"
		"\n"
		"Options:\n"
		"  --format F   text (default), tap, junit, json (rtlab.grade/1, doc/cli-json.md)\n"
		"               or csv (a gradebook)\n"
		"  --json       the same as --format json\n"
		"  -v, --verbose  the compiler's messages and what the sandbox gave the runs\n"
		"  --keep       keep the sandbox's folders (to debug an exercise)\n"
		"  --no-namespaces  run the code without namespaces (the file fence and the\n"
		"               system-call filter still apply where the kernel has them)\n"
		"  -h, --help   show this help\n"
		"\n"
		"The sandbox: the learner's code is compiled and run as its own process, in a\n"
		"session of its own with no terminal, with rlimits (CPU, memory, file size,\n"
		"processes), a wall-clock limit and an output cap, in new user/mount/PID/network\n"
		"namespaces where the kernel allows, as an unprivileged uid when rtlab is root,\n"
		"behind a system-call filter and (where the kernel has Landlock) a file fence; it\n"
		"sees neither rtlab's data (references, checks) nor other students' folders. A\n"
		"grade whose code could not be isolated says \"unisolated\". Checks that need\n"
		"SCHED_FIFO or mlock are skipped (not failed) when rtlab cannot grant them (not\n"
		"root). doc/grading.md has the details.\n"
		"\n"
		"Exit status: 0 when no check failed (--class: when every job was graded); 1 when\n"
		"one failed or nothing could be graded; 2 on bad usage.\n",
	.main = grade_main,
};
