/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli_quiz: `rtlab quiz LESSON [--question ID] [--json]`, a lesson's quiz on
 * plain stdin/stdout, so a learner without the terminal UI (or a script, or
 * a test) can answer it line by line.
 *
 * Each question is printed with lettered options and read as one line,
 * parsed by quiz_input_parse(). A line that cannot be accepted is explained
 * and asked again, three tries per question, then the question counts as
 * skipped. End of input stops the quiz cleanly: what was answered is already
 * saved, because every answer is recorded with lesson_progress_answer() as
 * soon as it is judged (a locked, atomic update of the progress file).
 *
 * With --json the conversation goes to stderr and stdout carries only the
 * rtlab.quiz-run/1 document (doc/cli-json.md), so `rtlab quiz 3 --json <
 * answers | jq` works.
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
#include "lesson/lesson_doc.h"
#include "lesson/lesson_index.h"
#include "lesson/lesson_lint.h"
#include "lesson/lesson_progress.h"
#include "lesson/quiz.h"
#include "lesson/quiz_input.h"

#define QUIZ_TRIES 3
/* Bytes of stdin one quiz reads at most: far more than any answers take. */
#define QUIZ_STDIN_BUDGET (1u << 20)
#define QUIZ_STR2(x) #x
#define QUIZ_STR(x) QUIZ_STR2(x)

enum q_status { Q_NOT_ASKED, Q_RIGHT, Q_WRONG, Q_SAVED, Q_SKIPPED };

static const char *const status_name[] = {
	[Q_NOT_ASKED] = "not-asked", [Q_RIGHT] = "right", [Q_WRONG] = "wrong",
	[Q_SAVED] = "saved", [Q_SKIPPED] = "skipped",
};

struct q_result {
	const struct quiz *q;	/* borrowed from the document */
	enum q_status status;
	char *answer;		/* owned; canonical text, NULL unless answered */
	double value;		/* numeric, predict */
	bool recorded;		/* saved in the progress file */
};

struct quiz_run {
	FILE *talk;		/* the conversation: stdout, or stderr with --json */
	unsigned int width;
	bool echo;		/* stdin is not a terminal: echo what was read */
	const char *lesson_id;	/* "03" */
	struct q_result *res;
	size_t nres;
	bool ended;		/* input ended before the last question */
	bool save_failed;
	struct rt_buf line;	/* owned; the line being read */
	size_t budget;		/* bytes of input still accepted */
};

static void say_md(struct quiz_run *r, const char *md, const char *first, const char *rest)
{
	struct rt_buf b = RT_BUF_INIT;

	if (cli_lesson_snippet(md, r->width, first, rest, &b) == 0)
		fputs(rt_buf_str(&b), r->talk);
	else
		cli_text_printf(r->talk, "%s%s\n", first, md);	/* out of memory: unwrapped */
	rt_buf_fini(&b);
}

static const char *kind_label(enum quiz_kind k)
{
	switch (k) {
	case QUIZ_SINGLE:
		return "one answer";
	case QUIZ_MULTI:
		return "one or more answers";
	case QUIZ_NUMERIC:
		return "a number";
	case QUIZ_PREDICT:
		return "a prediction";
	}
	return "?";
}

static void prompt(struct quiz_run *r, const struct quiz *q)
{
	char last = quiz_input_letter(q->noptions ? q->noptions - 1 : 0);

	switch (q->kind) {
	case QUIZ_SINGLE:
		fprintf(r->talk, "Your answer (one letter, a-%c): ", last);
		break;
	case QUIZ_MULTI:
		fprintf(r->talk, "Your answer (letters a-%c, e.g. a,c): ", last);
		break;
	case QUIZ_NUMERIC:
		cli_text_printf(r->talk, "Your answer (a number, in %s): ",
				q->unit ? q->unit : "units");
		break;
	case QUIZ_PREDICT:
		cli_text_printf(r->talk, "Your prediction, in %s: ", q->unit ? q->unit : "units");
		break;
	}
	fflush(r->talk);
}

/*
 * One line from stdin without its newline, in r->line. Returns 0, 1 for a
 * line that cannot be an answer (*why says why; it counts as a try), or -1
 * when the input ended or passed QUIZ_STDIN_BUDGET. A line is never kept
 * beyond QUIZ_INPUT_MAX_LINE bytes, so no input (/dev/zero) grows memory.
 */
static int read_line(struct quiz_run *r, const char **why)
{
	int n = rt_file_getline(stdin, &r->line, QUIZ_INPUT_MAX_LINE, &r->budget);

	*why = NULL;
	if (n == -E2BIG)
		*why = "that line is too long (" QUIZ_STR(QUIZ_INPUT_MAX_LINE) " characters at most)";
	else if (n == -EILSEQ)
		*why = "that line holds a NUL byte";
	else if (n == -EFBIG)
		fprintf(r->talk, "\nThe input passed %u MiB before the quiz ended; it is not "
			"read further.\n", QUIZ_STDIN_BUDGET >> 20);
	else if (n == -EIO)
		rt_log(RT_LOG_ERR, "cannot read the answers: %s", strerror(errno));
	if (n < 0 && !*why)
		return -1;
	if (r->echo) {
		/* Only printable ASCII is echoed: the input may hold anything. */
		for (size_t i = 0; i < r->line.len && i < 80; i++) {
			char c = r->line.data[i];

			fputc(c >= 0x20 && c < 0x7f ? c : '?', r->talk);
		}
		fputc('\n', r->talk);
	}
	return *why ? 1 : 0;
}

static void right_answer(struct quiz_run *r, const struct quiz *q)
{
	bool first = true;

	if (q->kind == QUIZ_NUMERIC) {
		cli_text_printf(r->talk, "The answer is %.10g %s", q->answer,
				q->unit ? q->unit : "");
		if (q->tolerance > 0)
			fprintf(r->talk, " (give or take %.10g)", q->tolerance);
		fputs(".\n", r->talk);
		return;
	}
	fputs(q->kind == QUIZ_MULTI ? "The right set is " : "The right answer is ", r->talk);
	for (size_t i = 0; i < q->noptions; i++) {
		if (!q->options[i].right)
			continue;
		fprintf(r->talk, "%s%c", first ? "" : ",", quiz_input_letter(i));
		first = false;
	}
	fputs(".\n", r->talk);
}

static void verdict_text(struct quiz_run *r, const struct quiz *q, const struct quiz_verdict *v)
{
	char saved[512];

	if (q->kind == QUIZ_PREDICT) {
		/* "its", not "the measured": several labs are models, not measurements. */
		snprintf(saved, sizeof(saved), "Saved: %.10g %s. The %s lab will show it next to "
			 "its `%s` (scenario `%s`).", v->value, q->unit ? q->unit : "",
			 q->lab ? q->lab : "matching", q->metric ? q->metric : "value",
			 q->scenario ? q->scenario : "-");
		say_md(r, saved, "", "");
	} else if (v->correct) {
		fputs("Right.\n", r->talk);
	} else {
		fputs("Wrong. ", r->talk);
		right_answer(r, q);
	}
	say_md(r, q->explain, "", "");
}

/* Ask @res->q; returns false when the input ended. */
static bool ask(struct quiz_run *r, struct q_result *res, size_t n, size_t total)
{
	const struct quiz *q = res->q;
	struct quiz_input in;
	struct quiz_verdict v;
	char head[96], opt[16], *cause = NULL;
	int ret;

	snprintf(head, sizeof(head), "Question %zu of %zu (%s, %s)", n, total, kind_label(q->kind),
		 q->id);
	cli_text_printf(r->talk, "\n%s\n", head);
	say_md(r, q->question, "", "");
	for (size_t i = 0; i < q->noptions && i < QUIZ_INPUT_MAX_OPTIONS; i++) {
		snprintf(opt, sizeof(opt), "  %c) ", quiz_input_letter(i));
		say_md(r, q->options[i].text, opt, "     ");
	}
	for (unsigned int tries = 1;; tries++) {
		const char *refused;
		char *why = NULL;

		prompt(r, q);
		ret = read_line(r, &refused);
		if (ret < 0) {
			fputs("\n", r->talk);
			return false;
		}
		if (ret) {
			ret = -EINVAL;
			why = strdup(refused);
		} else {
			ret = quiz_input_parse(q, rt_buf_str(&r->line), &in, &why);
		}
		if (!ret)
			ret = quiz_check_answer(q, &in.answer, &v);
		if (!ret) {
			free(why);
			break;
		}
		if (ret == -ENOTSUP || tries == QUIZ_TRIES) {
			cli_text_printf(r->talk, "Not accepted: %s.\n",
					why ? why : "this answer cannot be judged");
			fputs("Skipped.\n", r->talk);
			free(why);
			res->status = Q_SKIPPED;
			return true;
		}
		cli_text_printf(r->talk, "Not accepted: %s. Try again (%u of %u).\n",
				why ? why : "this answer cannot be judged", tries + 1, QUIZ_TRIES);
		free(why);
	}
	res->answer = strdup(in.text);
	res->value = v.value;
	res->status = q->kind == QUIZ_PREDICT ? Q_SAVED : v.correct ? Q_RIGHT : Q_WRONG;
	ret = lesson_progress_answer(NULL, r->lesson_id, q, in.text, &v, &cause);
	if (ret) {
		rt_log(RT_LOG_ERR, "the answer was not saved: %s",
		       cause ? cause : strerror(-ret));
		r->save_failed = true;
	} else {
		res->recorded = true;
	}
	free(cause);
	verdict_text(r, q, &v);
	return true;
}

struct tally {
	unsigned int right, scored, predictions, skipped, not_asked, answered;
};

static void count(const struct quiz_run *r, struct tally *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < r->nres; i++) {
		const struct q_result *x = &r->res[i];

		t->right += x->status == Q_RIGHT;
		t->scored += x->status == Q_RIGHT || x->status == Q_WRONG ||
			     (x->status == Q_SKIPPED && x->q->kind != QUIZ_PREDICT);
		t->predictions += x->status == Q_SAVED;
		t->skipped += x->status == Q_SKIPPED;
		t->not_asked += x->status == Q_NOT_ASKED;
		t->answered += x->status == Q_RIGHT || x->status == Q_WRONG ||
			       x->status == Q_SAVED;
	}
}

static void summary_text(const struct quiz_run *r)
{
	struct tally t;

	count(r, &t);
	/* A run of predictions only has nothing to be right about. */
	if (t.scored || !t.predictions)
		printf("\n%u/%u right%s", t.right, t.scored, t.predictions ? ", " : "");
	else
		printf("\n");
	if (t.predictions)
		printf("%u prediction%s saved", t.predictions, t.predictions == 1 ? "" : "s");
	if (t.skipped)
		printf(", %u skipped", t.skipped);
	if (t.not_asked)
		printf(", %u not asked (the input ended)", t.not_asked);
	printf("\n");
}

static int summary_json(const struct quiz_run *r, const struct lesson_entry *e)
{
	json_t *root, *qs = json_array();
	struct tally t;
	char *text;
	int ret = -ENOMEM;

	count(r, &t);
	for (size_t i = 0; qs && i < r->nres; i++) {
		const struct q_result *x = &r->res[i];
		json_t *o = json_pack("{s:s, s:s, s:s, s:b}", "id", x->q->id, "kind",
				      quiz_kind_name(x->q->kind), "status", status_name[x->status],
				      "recorded", x->recorded);

		if (o && x->answer)
			json_object_set_new(o, "answer", json_string(x->answer));
		if (o && x->answer && (x->q->kind == QUIZ_NUMERIC || x->q->kind == QUIZ_PREDICT)) {
			json_object_set_new(o, "value", json_real(x->value));
			json_object_set_new(o, "unit", json_string(x->q->unit ? x->q->unit : ""));
		}
		if (o && x->q->kind == QUIZ_PREDICT)
			json_object_set_new(o, "prediction", json_pack(
				"{s:s?, s:s?, s:s?}", "lab", x->q->lab, "metric", x->q->metric,
				"scenario", x->q->scenario));
		json_array_append_new(qs, o);
	}
	root = json_pack("{s:s, s:{s:i, s:s, s:s?, s:s}, s:b, s:o, s:{s:i, s:i, s:i, s:i, s:i, s:i}}",
			 "schema", CLI_QUIZ_SCHEMA,
			 "lesson", "number", (int)e->number, "id", r->lesson_id, "title", e->title,
			 "path", e->path,
			 "complete", !r->ended, "questions", qs,
			 "summary", "answered", (int)t.answered, "right", (int)t.right,
			 "scored", (int)t.scored, "predictions", (int)t.predictions,
			 "skipped", (int)t.skipped, "not_asked", (int)t.not_asked);
	text = root ? rt_json_dumps(root, NULL) : NULL;
	if (text) {
		printf("%s\n", text);
		ret = 0;
	}
	free(text);
	json_decref(root);
	return ret;
}

/* A lesson with lint problems is not quizzed: its questions may be wrong. */
static bool lesson_ok(const char *path)
{
	struct rt_buf errors = RT_BUF_INIT;
	int n = lesson_lint_file(path, &errors);

	if (n) {
		cli_text_put(stderr, rt_buf_str(&errors));
		rt_log(RT_LOG_ERR, "%s is broken (%s); fix it before taking its quiz", path,
		       n < 0 ? strerror(-n) : "see the problems above");
	}
	rt_buf_fini(&errors);
	return n == 0;
}

static int run_quiz(const char *arg, const char *only, bool json)
{
	const struct lesson_entry *e = NULL;
	struct lesson_index *idx = NULL;
	struct lesson_doc *doc = NULL;
	struct quiz_run r = { 0 };
	char id[3], *cause = NULL;
	int ret, status;

	status = cli_lesson_open(arg, &idx, &e);
	if (status)
		return status;
	status = CLI_EXIT_FAIL;
	if (e->glossary) {
		rt_log(RT_LOG_ERR, "the glossary has no quiz");
		goto out;
	}
	if (!lesson_ok(e->path))
		goto out;
	ret = lesson_doc_load(e->path, &doc, &cause);
	if (ret) {
		rt_log(RT_LOG_ERR, "%s", cause ? cause : strerror(-ret));
		goto out;
	}
	if (!doc->nquizzes) {
		rt_log(RT_LOG_ERR, "lesson %02u has no quiz questions", e->number);
		goto out;
	}
	r.res = calloc(doc->nquizzes, sizeof(*r.res));
	if (!r.res) {
		rt_log(RT_LOG_ERR, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < doc->nquizzes; i++) {
		if (only && strcmp(doc->quizzes[i]->id, only))
			continue;
		r.res[r.nres++].q = doc->quizzes[i];
	}
	if (!r.nres) {
		rt_log(RT_LOG_ERR, "lesson %02u has no question '%s'; its questions are:", e->number,
		       only);
		for (size_t i = 0; i < doc->nquizzes; i++)
			cli_text_printf(stderr, "  %s\n", doc->quizzes[i]->id);
		goto out;
	}

	lesson_progress_id(e->number, id);
	r.lesson_id = id;
	r.talk = json ? stderr : stdout;
	r.width = cli_lesson_width(r.talk);
	r.echo = !isatty(STDIN_FILENO);
	r.budget = QUIZ_STDIN_BUDGET;
	cli_text_printf(r.talk, "Quiz of lesson %02u: %s (%zu question%s)\n", e->number,
			e->title ? e->title : e->slug, r.nres, r.nres == 1 ? "" : "s");
	for (size_t i = 0; i < r.nres; i++) {
		if (!ask(&r, &r.res[i], i + 1, r.nres)) {
			r.ended = true;
			fputs("The input ended; the answers given so far are saved.\n", r.talk);
			break;
		}
	}
	fflush(r.talk);
	if (json) {
		if (summary_json(&r, e)) {
			rt_log(RT_LOG_ERR, "out of memory");
			goto out;
		}
	} else {
		summary_text(&r);
	}
	if (fflush(stdout)) {
		rt_log(RT_LOG_ERR, "cannot write the quiz: %s", strerror(errno));
		goto out;
	}
	status = r.save_failed ? CLI_EXIT_FAIL : CLI_EXIT_OK;
out:
	for (size_t i = 0; i < r.nres; i++)
		free(r.res[i].answer);
	free(r.res);
	rt_buf_fini(&r.line);
	free(cause);
	lesson_doc_free(doc);
	lesson_index_free(idx);
	return status;
}

static int quiz_main(const struct cli_cmd *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "question", required_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *only = NULL;
	bool json = false;
	int c;

	/* Numbers are typed and printed with a '.', whatever the locale. */
	setlocale(LC_NUMERIC, "C");
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'q':
			only = optarg;
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
	if (optind >= argc)
		return cli_usage_error(cmd, "which lesson? (a number, like 3, or a slug)");
	if (optind + 1 < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
	return run_quiz(argv[optind], only, json);
}

const struct cli_cmd cli_cmd_quiz = {
	.name = "quiz",
	.usage = "LESSON [--question ID] [--json]",
	.summary = "answer a lesson's quiz on plain stdin/stdout",
	.help = "Asks the quiz questions of LESSON (3, 03 or the slug) one by one and reads\n"
		"one line per answer: a letter for one answer ('b'), letters separated by\n"
		"commas or spaces for several ('a,c'), a number for a numeric question or a\n"
		"prediction (the unit is shown in the prompt). An answer that cannot be\n"
		"accepted is explained and asked again, three tries per question, then the\n"
		"question is skipped. Every answer is saved to the progress file at once, so\n"
		"when the input ends early what was answered is kept. Predictions are saved\n"
		"for the matching lab to compare with its measurement. A line is at most\n"
		"256 characters and the whole input at most 1 MiB; more ends the quiz.\n"
		"\n"
		"Options:\n"
		"  --question ID  ask only the question with this id\n"
		"  --json         talk on stderr and print the rtlab.quiz-run/1 JSON summary\n"
		"                 on stdout (doc/cli-json.md) instead of the score line\n"
		"  -h, --help     show this help\n"
		"\n"
		"Exit status: 0 when the quiz ran, even with wrong answers; 1 when the lesson\n"
		"is missing, broken (its lint messages are shown) or an answer could not be\n"
		"saved; 2 on bad usage.\n",
	.main = quiz_main,
};

/* ---- Declared keys -------------------------------------------------------- */

/* rtlab.quiz-run/1 (doc/cli-json.md), for `rtlab schema`. */
static const char *const qr_kinds[] = { "single", "multi", "numeric", "predict", NULL };
static const char *const qr_statuses[] = { "right", "wrong", "saved", "skipped", "not-asked",
					   NULL };
static const struct rt_key qr_lesson_keys[] = {
	RT_KEY("number", RT_T_INTEGER, NULL, "the lesson number", true),
	RT_KEY("id", RT_T_STRING, NULL, "its two-digit id", true),
	RT_KEY("title", RT_T_STRING | RT_T_NULL, NULL, "its title", true),
	RT_KEY("path", RT_T_STRING, NULL, "the file", true),
	RT_KEY_END,
};
static const struct rt_keys qr_lesson_table = { .keys = qr_lesson_keys };
static const struct rt_key qr_prediction_keys[] = {
	RT_KEY("lab", RT_T_STRING, NULL, "the lab the prediction waits for", false),
	RT_KEY("metric", RT_T_STRING, NULL, "its figure", false),
	RT_KEY("scenario", RT_T_STRING, NULL, "its scenario", false),
	RT_KEY_END,
};
static const struct rt_keys qr_prediction_table = { .keys = qr_prediction_keys };
static const struct rt_key qr_question_keys[] = {
	RT_KEY("id", RT_T_STRING, NULL, "the quiz id", true),
	RT_KEY("kind", RT_T_STRING, NULL, "the kind of question", true, .values = qr_kinds),
	RT_KEY("status", RT_T_STRING, NULL, "how it went", true, .values = qr_statuses),
	RT_KEY("recorded", RT_T_BOOL, NULL, "the answer is in the progress file", true),
	RT_KEY("answer", RT_T_STRING, NULL, "the answer in canonical form; only when answered",
	       false),
	RT_KEY("value", RT_T_NUMBER, NULL, "numeric and predict questions, when answered", false),
	RT_KEY("unit", RT_T_STRING, NULL, "its unit", false),
	RT_KEY("prediction", RT_T_OBJECT, NULL, "predict questions: what it is compared on",
	       false, .of = &qr_prediction_table),
	RT_KEY_END,
};
static const struct rt_keys qr_question_table = { .keys = qr_question_keys };
static const struct rt_key qr_summary_keys[] = {
	RT_KEY("answered", RT_T_INTEGER, "count", "questions answered", true),
	RT_KEY("right", RT_T_INTEGER, "count", "questions answered right", true),
	RT_KEY("scored", RT_T_INTEGER, "count", "questions that have a right answer", true),
	RT_KEY("predictions", RT_T_INTEGER, "count", "predictions saved", true),
	RT_KEY("skipped", RT_T_INTEGER, "count", "questions skipped", true),
	RT_KEY("not_asked", RT_T_INTEGER, "count", "questions the input ended before", true),
	RT_KEY_END,
};
static const struct rt_keys qr_summary_table = { .keys = qr_summary_keys };
static const struct rt_key qr_keys[] = {
	RT_KEY("schema", RT_T_STRING, NULL, "`rtlab.quiz-run/1`", true),
	RT_KEY("lesson", RT_T_OBJECT, NULL, "the lesson", true, .of = &qr_lesson_table),
	RT_KEY("complete", RT_T_BOOL, NULL, "false when the input ended early", true),
	RT_KEY("questions", RT_T_ARRAY, NULL, "the questions of this run, in order", true,
	       .of = &qr_question_table),
	RT_KEY("summary", RT_T_OBJECT, NULL, "the counts", true, .of = &qr_summary_table),
	RT_KEY_END,
};
static const struct rt_keys qr_table = { .keys = qr_keys };

json_t *cli_quiz_schema(void)
{
	return rt_keys_document(CLI_QUIZ_SCHEMA, "rtlab quiz --json", &qr_table, 0);
}
