/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli_progress: `rtlab progress [--json]` shows what the learner has done,
 * lesson by lesson: read or not, where the reader stopped, the quiz answered
 * and right out of its questions, the predictions waiting for their lab, and
 * the labs run. `rtlab progress reset LESSON` forgets one lesson.
 *
 * The report is built from two sources: the installed lessons (for titles
 * and the number of questions) and the progress file (for everything the
 * learner did). Progress for a lesson or a question that is no longer
 * installed is still shown, marked as such, rather than hidden.
 */
#include "cli.h"
#include "cli_lesson.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/rt_buf.h"
#include "core/rt_file.h"
#include "core/rt_json.h"
#include "core/rt_keys.h"
#include "core/rt_log.h"
#include "core/rt_progress.h"
#include "lesson/lesson_index.h"
#include "lesson/lesson_progress.h"
#include "lesson/lesson_quizzes.h"
#include "lesson/quiz.h"

struct report {
	const struct rt_progress *p;	/* borrowed; NULL when unavailable */
	json_t *lessons;		/* owned; JSON mode */
	struct rt_buf text;		/* text mode */
	bool json;
};

static const char *prediction_status(const struct rt_progress *p, const struct quiz *q)
{
	struct rt_progress_lab lab;

	if (!q || !q->lab)
		return "question no longer in the lesson";
	if (rt_progress_lab_get(p, q->lab, &lab))
		return "lab not run yet";
	return "lab run; compare there";
}

/* One lesson's recorded answers or predictions into a JSON array, through the typed getters. */
struct entries {
	const struct rt_progress *p;
	const char *id;
	const struct lesson_quizzes *qs;
	json_t *out;		/* the JSON array, or NULL */
	struct rt_buf *text;	/* the text report, or NULL */
};

static int answer_entry(const char *qid, void *priv)
{
	struct entries *x = priv;
	struct rt_progress_quiz rq;

	if (rt_progress_quiz_get(x->p, x->id, qid, &rq))
		return 0;
	return json_array_append_new(x->out, json_pack(
		"{s:s, s:s?, s:f, s:i, s:s?, s:b}", "question", qid,
		"answer", rq.answer, "score", rq.score, "attempts", (int)rq.attempts,
		"time", rq.time, "in_lesson", lesson_quizzes_find(x->qs, qid) != NULL))
	       ? -ENOMEM : 0;
}

static int prediction_entry(const char *qid, void *priv)
{
	struct entries *x = priv;
	const struct quiz *q = lesson_quizzes_find(x->qs, qid);
	struct rt_progress_prediction pr;

	if (rt_progress_prediction_get(x->p, x->id, qid, &pr))
		return 0;
	return json_array_append_new(x->out, json_pack(
		"{s:s, s:f, s:s?, s:s?, s:s?, s:s?, s:s?, s:s?, s:n, s:s}", "question", qid,
		"value", pr.value, "unit", pr.unit, "time", pr.time,
		"lab", q ? q->lab : NULL, "metric", q ? q->metric : NULL,
		"scenario", q ? q->scenario : NULL, "when", q ? q->when : NULL, "measured",
		"status", prediction_status(x->p, q))) ? -ENOMEM : 0;
}

static int prediction_line(const char *qid, void *priv)
{
	struct entries *x = priv;
	const struct quiz *q = lesson_quizzes_find(x->qs, qid);
	struct rt_progress_prediction pr;
	int ret;

	if (rt_progress_prediction_get(x->p, x->id, qid, &pr))
		return 0;
	ret = rt_buf_printf(x->text, "    prediction %s: %.10g %s", qid, pr.value,
			    pr.unit ? pr.unit : "");
	if (!ret && q && q->lab)
		ret = rt_buf_printf(x->text, " (%s lab, %s, %s%s%s)", q->lab,
				    q->scenario ? q->scenario : "-", q->metric ? q->metric : "-",
				    q->when ? ", when " : "", q->when ? q->when : "");
	return ret ?: rt_buf_printf(x->text, ": %s\n", prediction_status(x->p, q));
}

/* @qs: the lesson's questions, NULL when it is not installed or could not be read. */
static int lesson_report(struct report *r, const char *id, const struct lesson_entry *e,
			 const struct lesson_quizzes *qs)
{
	const struct rt_progress *p = r->p;
	unsigned int questions = 0, scored = 0, answered = 0, right = 0;
	bool read = p && rt_progress_lesson_read(p, id);
	unsigned long pos = p ? rt_progress_lesson_position(p, id) : 0;
	int ret = 0;

	if (qs) {
		questions = (unsigned int)qs->count;
		scored = qs->graded;
	}
	for (size_t i = 0; qs && i < qs->count; i++) {
		const struct quiz *q = qs->quizzes[i];
		struct rt_progress_quiz rq;
		bool have = p && !rt_progress_quiz_get(p, id, q->id, &rq);

		answered += have;
		right += have && q->kind != QUIZ_PREDICT && rq.score >= 1;
	}
	if (!qs)
		answered = p ? (unsigned int)rt_progress_quiz_count(p, id, NULL) : 0;

	if (r->json) {
		json_t *o, *ja = json_array(), *jp = json_array();
		struct entries ea = { p, id, qs, ja, NULL }, ep = { p, id, qs, jp, NULL };

		if (!ja || !jp || (p && (rt_progress_foreach_quiz(p, id, answer_entry, &ea) ||
					 rt_progress_foreach_prediction(p, id, prediction_entry,
									&ep)))) {
			json_decref(ja);
			json_decref(jp);
			return -ENOMEM;
		}
		o = json_pack("{s:s, s:i, s:s?, s:b, s:b, s:I, s:{s:i, s:i, s:i, s:i}, s:o, s:o}",
			      "id", id, "number", e ? (int)e->number : atoi(id),
			      "title", e ? e->title : NULL, "installed", e != NULL,
			      "read", read, "position", (json_int_t)pos,
			      "quiz", "questions", (int)questions, "scored", (int)scored,
			      "answered", (int)answered, "right", (int)right,
			      "answers", ja, "predictions", jp);
		if (!o || json_array_append_new(r->lessons, o))
			return -ENOMEM;
		return 0;
	}

	ret = rt_buf_printf(&r->text, "%s  %s\n", id,
			    e && e->title ? e->title : e ? e->slug : "(not installed)");
	if (!ret && !read && !pos && !answered && !(p && rt_progress_prediction_count(p, id)))
		ret = rt_buf_puts(&r->text, "    not started\n");
	else if (!ret)
		ret = rt_buf_printf(&r->text, "    read: %s, position: line %lu\n",
				    read ? "yes" : "no", pos);
	if (!ret && qs)
		ret = rt_buf_printf(&r->text, "    quiz: %u of %u answered, %u of %u right\n",
				    answered, questions, right, scored);
	else if (!ret && answered)
		ret = rt_buf_printf(&r->text, "    quiz: %u answered\n", answered);
	if (!ret && p) {
		struct entries et = { p, id, qs, NULL, &r->text };

		ret = rt_progress_foreach_prediction(p, id, prediction_line, &et);
	}
	return ret;
}

struct extra_ctx {
	struct report *r;
	const struct lesson_index *idx;
	int ret;
};

/* Progress of a lesson that is not installed (any more). */
static int extra_lesson(const char *lesson, void *priv)
{
	struct extra_ctx *x = priv;

	for (size_t i = 0; x->idx && i < x->idx->count; i++) {
		char id[3];

		if (x->idx->entries[i].glossary)
			continue;
		lesson_progress_id(x->idx->entries[i].number, id);
		if (!strcmp(id, lesson))
			return 0;
	}
	x->ret = lesson_report(x->r, lesson, NULL, NULL);
	return x->ret;
}

struct lab_entries {
	struct report *r;
	json_t *out;
	size_t n;
};

static int lab_entry(const char *name, void *priv)
{
	struct lab_entries *x = priv;
	struct rt_progress_lab lab;

	if (rt_progress_lab_get(x->r->p, name, &lab))
		return 0;
	x->n++;
	if (x->r->json)
		return json_array_append_new(x->out, json_pack(
			"{s:s, s:s?, s:s?, s:s?}", "lab", name, "status", lab.status,
			"result", lab.result, "time", lab.time)) ? -ENOMEM : 0;
	return rt_buf_printf(&x->r->text, "    %s: %s%s%s\n", name,
			     lab.status ? lab.status : "?",
			     lab.result ? ", " : "", lab.result ? lab.result : "");
}

static int labs_report(struct report *r, json_t **labs)
{
	struct lab_entries x = { r, NULL, 0 };
	int ret = 0;

	*labs = json_array();
	if (!*labs)
		return -ENOMEM;
	x.out = *labs;
	if (r->p)
		ret = rt_progress_foreach_lab(r->p, lab_entry, &x);
	if (!ret && !r->json && !x.n)
		ret = rt_buf_puts(&r->text, "    none run yet\n");
	return ret;
}

static int show_progress(bool json)
{
	struct report r = { .json = json, .text = RT_BUF_INIT };
	struct rt_progress *p = cli_progress_open();
	struct lesson_index *idx;
	struct extra_ctx x = { 0 };
	json_t *root = NULL, *labs = NULL;
	char *cause = NULL, *text = NULL;
	int ret = 0, status = CLI_EXIT_FAIL;

	idx = lesson_index_load(&cause);
	if (!idx) {
		/* Progress is still worth showing without the lessons. */
		rt_log(RT_LOG_WARN, "cannot list the lessons: %s", cause ? cause : strerror(errno));
		free(cause);
	}
	r.p = p;
	if (json) {
		r.lessons = json_array();
		if (!r.lessons)
			goto out_nomem;
	} else {
		ret = rt_buf_printf(&r.text, "Progress (%s)\n\n",
				    p ? rt_progress_path(p) : "not available");
	}
	for (size_t i = 0; idx && i < idx->count && !ret; i++) {
		const struct lesson_entry *e = &idx->entries[i];
		struct lesson_quizzes qs;
		bool have = false;
		char id[3];

		if (e->glossary)
			continue;
		if (!e->problem) {
			have = lesson_quizzes_load(e->path, &qs, &cause) == 0;
			if (!have)
				rt_log(RT_LOG_WARN, "%s", cause ? cause : e->path);
			free(cause);
			cause = NULL;
		}
		lesson_progress_id(e->number, id);
		ret = lesson_report(&r, id, e, have ? &qs : NULL);
		if (have)
			lesson_quizzes_fini(&qs);
	}
	if (!ret && p) {
		x.r = &r;
		x.idx = idx;
		rt_progress_foreach_lesson(p, extra_lesson, &x);
		ret = x.ret;
	}
	if (!ret && !json)
		ret = rt_buf_puts(&r.text, "\nLabs\n");
	if (!ret)
		ret = labs_report(&r, &labs);
	if (ret)
		goto out_nomem;
	if (json) {
		root = json_pack("{s:s, s:s?, s:O, s:O}", "schema", CLI_PROGRESS_SCHEMA,
				 "file", p ? rt_progress_path(p) : NULL, "lessons", r.lessons,
				 "labs", labs);
		text = root ? rt_json_dumps(root, NULL) : NULL;
		if (!text)
			goto out_nomem;
		printf("%s\n", text);
	} else {
		/* Names and paths from the progress file: escaped. */
		cli_text_put(stdout, rt_buf_str(&r.text));
	}
	if (fflush(stdout)) {
		rt_log(RT_LOG_ERR, "cannot write the progress: %s", strerror(errno));
		goto out;
	}
	/* Shown as if absent (the warning said why), but the file was not read. */
	status = p ? CLI_EXIT_OK : CLI_EXIT_FAIL;
	goto out;
out_nomem:
	rt_log(RT_LOG_ERR, "out of memory while building the progress report");
out:
	free(text);
	json_decref(root);
	json_decref(labs);
	json_decref(r.lessons);
	rt_buf_fini(&r.text);
	lesson_index_free(idx);
	rt_progress_free(p);
	return status;
}

/* ---- reset ------------------------------------------------------------- */

static bool confirm(const char *id, const char *title)
{
	struct rt_buf line = RT_BUF_INIT;
	size_t budget = 4096;	/* one short answer; never more, whatever stdin is */
	bool yes;

	fprintf(stderr, "Forget all progress of lesson %s%s%s%s (read, position, quiz answers, "
		"predictions)? [y/N] ", id, title ? " (" : "", title ? title : "",
		title ? ")" : "");
	fflush(stderr);
	yes = rt_file_getline(stdin, &line, 16, &budget) > 0 &&
	      (!strcmp(line.data, "y") || !strcmp(line.data, "Y") || !strcmp(line.data, "yes"));
	rt_buf_fini(&line);
	return yes;
}

static int reset_lesson(const struct cli_cmd *cmd, const char *arg, bool yes)
{
	const struct lesson_entry *e = NULL;
	struct lesson_index *idx;
	char id[3], *cause = NULL;
	const char *title = NULL;
	int ret, status = CLI_EXIT_FAIL;

	idx = lesson_index_load(&cause);
	if (!idx) {
		rt_log(RT_LOG_WARN, "cannot list the lessons: %s", cause ? cause : strerror(errno));
		free(cause);
		cause = NULL;
	}
	e = cli_lesson_find(idx, arg);
	if (e && e->glossary) {
		rt_log(RT_LOG_ERR, "the glossary has no progress to reset");
		goto out;
	}
	if (e) {
		lesson_progress_id(e->number, id);
		title = e->title;
	} else if (strlen(arg) <= 2 && arg[0] >= '0' && arg[0] <= '9' &&
		   (!arg[1] || (arg[1] >= '0' && arg[1] <= '9')) && atoi(arg) > 0) {
		/* A lesson no longer installed may still have progress. */
		lesson_progress_id((unsigned int)atoi(arg), id);
	} else {
		rt_log(RT_LOG_ERR, "no lesson '%s' ('rtlab lesson list' shows the lessons)", arg);
		goto out;
	}
	if (!yes && !isatty(STDIN_FILENO)) {
		status = cli_usage_error(cmd, "not asking for confirmation without a terminal; "
					 "add --yes to reset lesson %s", id);
		goto out;
	}
	if (!yes && !confirm(id, title)) {
		fprintf(stderr, "Nothing changed.\n");
		goto out;
	}
	ret = lesson_progress_reset(NULL, id, &cause);
	if (ret) {
		rt_log(RT_LOG_ERR, "%s", cause ? cause : strerror(-ret));
		goto out;
	}
	printf("Forgot the progress of lesson %s%s%s%s.\n", id, title ? " (" : "",
	       title ? title : "", title ? ")" : "");
	status = fflush(stdout) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
out:
	free(cause);
	lesson_index_free(idx);
	return status;
}

static int progress_main(const struct cli_cmd *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "yes", no_argument, NULL, 'y' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false, yes = false;
	int c;

	setlocale(LC_NUMERIC, "C");
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":hy", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'y':
			yes = true;
			break;
		case 'h':
			cli_cmd_help(cmd, stdout);
			return CLI_EXIT_OK;
		default:
			return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind == argc) {
		if (yes)
			return cli_usage_error(cmd, "--yes is for 'progress reset'");
		return show_progress(json);
	}
	if (strcmp(argv[optind], "reset"))
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	if (json)
		return cli_usage_error(cmd, "--json is not for 'progress reset'");
	if (optind + 1 >= argc)
		return cli_usage_error(cmd, "reset which lesson? (a number, like 3, or a slug)");
	if (optind + 2 < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 2]);
	return reset_lesson(cmd, argv[optind + 1], yes);
}

const struct cli_cmd cli_cmd_progress = {
	.name = "progress",
	.usage = "[--json] | reset LESSON [--yes]",
	.summary = "show the learner's progress, or forget one lesson",
	.help = "Without a subcommand, shows per lesson whether it was read and where the\n"
		"reader stopped, how many quiz questions were answered and how many right,\n"
		"the predictions saved with the lab, scenario and metric they wait for, and\n"
		"the labs run. Progress of lessons or questions that are no longer installed\n"
		"is shown too. A corrupt progress file is moved aside with a warning.\n"
		"\n"
		"  reset LESSON  forget everything about one lesson (3, 03 or the slug):\n"
		"                read flag, position, quiz answers and predictions. Asks\n"
		"                for confirmation on a terminal; needs --yes otherwise.\n"
		"\n"
		"Options:\n"
		"  --json        print the rtlab.progress-report/1 JSON (doc/cli-json.md)\n"
		"  -y, --yes     reset without asking\n"
		"  -h, --help    show this help\n"
		"\n"
		"Exit status: 0 on success; 1 when the progress file cannot be read (for\n"
		"example it is a FIFO, not a regular file: it is then shown as empty and\n"
		"left alone), the lesson is unknown, the reset was declined or failed; 2 on\n"
		"bad usage (also reset without a terminal and without --yes).\n",
	.main = progress_main,
};

/* ---- Declared keys -------------------------------------------------------- */

/* rtlab.progress-report/1 (doc/cli-json.md), for `rtlab schema`. */
#define SN (RT_T_STRING | RT_T_NULL)
static const struct rt_key pr_quiz_keys[] = {
	RT_KEY("questions", RT_T_INTEGER, "count", "quiz blocks in the installed lesson", true),
	RT_KEY("scored", RT_T_INTEGER, "count", "questions with a right answer", true),
	RT_KEY("answered", RT_T_INTEGER, "count", "questions with a saved answer", true),
	RT_KEY("right", RT_T_INTEGER, "count", "questions answered right", true),
	RT_KEY_END,
};
static const struct rt_keys pr_quiz_table = { .keys = pr_quiz_keys };
static const struct rt_key pr_answer_keys[] = {
	RT_KEY("question", RT_T_STRING, NULL, "the question id", true),
	RT_KEY("answer", SN, NULL, "the saved answer", true),
	RT_KEY("score", RT_T_NUMBER, NULL, "1 right, 0 wrong or a prediction", true),
	RT_KEY("attempts", RT_T_INTEGER, "count", "answers given", true),
	RT_KEY("time", SN, NULL, "RFC 3339 UTC time, or null", true),
	RT_KEY("in_lesson", RT_T_BOOL, NULL, "false for a question the lesson no longer has", true),
	RT_KEY_END,
};
static const struct rt_keys pr_answer_table = { .keys = pr_answer_keys };
static const struct rt_key pr_prediction_keys[] = {
	RT_KEY("question", RT_T_STRING, NULL, "the question id", true),
	RT_KEY("value", RT_T_NUMBER, NULL, "the prediction", true),
	RT_KEY("unit", SN, NULL, "its unit", true),
	RT_KEY("time", SN, NULL, "when it was saved", true),
	RT_KEY("lab", SN, NULL, "the question's lab; null when the question is gone", true),
	RT_KEY("metric", SN, NULL, "its figure", true),
	RT_KEY("scenario", SN, NULL, "its scenario", true),
	RT_KEY("when", SN, NULL, "the run it means; null: any run", true),
	RT_KEY("measured", RT_T_NUMBER | RT_T_NULL, NULL, "null until labs compare", true),
	RT_KEY("status", RT_T_STRING, NULL, "where the comparison stands", true),
	RT_KEY_END,
};
static const struct rt_keys pr_prediction_table = { .keys = pr_prediction_keys };
static const struct rt_key pr_lesson_keys[] = {
	RT_KEY("id", RT_T_STRING, NULL, "the lesson id", true),
	RT_KEY("number", RT_T_INTEGER | RT_T_NULL, NULL, "the lesson number", true),
	RT_KEY("title", SN, NULL, "its title; null when not installed", true),
	RT_KEY("installed", RT_T_BOOL, NULL, "the lesson file exists", true),
	RT_KEY("read", RT_T_BOOL, NULL, "the learner reached the end", true),
	RT_KEY("position", RT_T_INTEGER, NULL, "the line the reader reopens at", true),
	RT_KEY("quiz", RT_T_OBJECT, NULL, "the quiz's counts", true, .of = &pr_quiz_table),
	RT_KEY("answers", RT_T_ARRAY, NULL, "every saved answer", true, .of = &pr_answer_table),
	RT_KEY("predictions", RT_T_ARRAY, NULL, "every saved prediction", true,
	       .of = &pr_prediction_table),
	RT_KEY_END,
};
static const struct rt_keys pr_lesson_table = { .keys = pr_lesson_keys };
static const struct rt_key pr_lab_keys[] = {
	RT_KEY("lab", RT_T_STRING, NULL, "the lab", true),
	RT_KEY("status", RT_T_STRING, NULL, "its status", true),
	RT_KEY("result", SN, NULL, "the last results document, or null", true),
	RT_KEY("time", SN, NULL, "when", true),
	RT_KEY_END,
};
static const struct rt_keys pr_lab_table = { .keys = pr_lab_keys };
static const struct rt_key pr_keys[] = {
	RT_KEY("schema", RT_T_STRING, NULL, "`rtlab.progress-report/1`", true),
	RT_KEY("file", SN, NULL, "the progress file; null when it could not be opened", true),
	RT_KEY("lessons", RT_T_ARRAY, NULL, "installed lessons, then others with progress", true,
	       .of = &pr_lesson_table),
	RT_KEY("labs", RT_T_ARRAY, NULL, "labs with a record", true, .of = &pr_lab_table),
	RT_KEY_END,
};
static const struct rt_keys pr_table = { .keys = pr_keys };

json_t *cli_progress_schema(void)
{
	return rt_keys_document(CLI_PROGRESS_SCHEMA, "rtlab progress --json", &pr_table, 0);
}
