/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli_lesson: `rtlab lesson list|show|lint`, the lessons without a terminal
 * UI: for pipes, TERM=dumb, screen readers and scripts.
 *
 * `show` prints the same layout the pager draws (lesson_doc_layout), as plain
 * text from lesson_layout_to_text(), or on a capable tty with bold and
 * underline added through ANSI SGR. Quiz blocks are shown as their question
 * and lettered options; the right answers and explanations are left out, so
 * reading a lesson never gives the quiz away. Showing a lesson does not mark
 * it read: only the pager, which knows the learner reached the end, does.
 *
 * The helpers at the end (cli_lesson.h) are shared with cli_quiz.c and
 * cli_progress.c.
 */
#include "cli.h"
#include "cli_lesson.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/rt_buf.h"
#include "core/rt_json.h"
#include "core/rt_keys.h"
#include "core/rt_log.h"
#include "core/rt_parse.h"
#include "core/rt_progress.h"
#include "core/rt_utf8.h"
#include "lesson/lesson_doc.h"
#include "lesson/lesson_index.h"
#include "lesson/lesson_lint.h"
#include "lesson/lesson_progress.h"
#include "lesson/quiz.h"
#include "lesson/quiz_input.h"

/* ---- Shared helpers ---------------------------------------------------- */

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

const struct lesson_entry *cli_lesson_find(const struct lesson_index *idx, const char *arg)
{
	const char *base;
	size_t len;

	if (!idx || !arg || !*arg)
		return NULL;
	if (all_digits(arg)) {
		unsigned int n;

		/* "3" or "03" is a lesson number; "003" is none */
		if (strlen(arg) > 2 || rt_parse_uint(NULL, arg, 1, 99, &n, NULL))
			return NULL;
		return lesson_index_find(idx, n);
	}
	for (size_t i = 0; i < idx->count; i++) {
		const struct lesson_entry *e = &idx->entries[i];

		if (!strcmp(e->slug, arg))
			return e;
		/* "03-kinds-of-latency" or "03-kinds-of-latency.md" */
		base = strrchr(e->path, '/');
		base = base ? base + 1 : e->path;
		len = strlen(base);
		if (!strcmp(base, arg) ||
		    (len > 3 && strlen(arg) == len - 3 && !strncmp(base, arg, len - 3)))
			return e;
	}
	return NULL;
}

int cli_lesson_open(const char *arg, struct lesson_index **idx,
		    const struct lesson_entry **entry)
{
	char *cause = NULL;

	*idx = lesson_index_load(&cause);
	if (!*idx) {
		rt_log(RT_LOG_ERR, "cannot list the lessons: %s",
		       cause ? cause : strerror(errno));
		free(cause);
		return CLI_EXIT_FAIL;
	}
	*entry = cli_lesson_find(*idx, arg);
	if (!*entry) {
		rt_log(RT_LOG_ERR, "no lesson '%s' in %s ('rtlab lesson list' shows the lessons)",
		       arg, (*idx)->dir);
		lesson_index_free(*idx);
		*idx = NULL;
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}

unsigned int cli_lesson_width(FILE *f)
{
	struct winsize ws;
	unsigned int w = 80;

	if (isatty(fileno(f)) && ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col)
		w = ws.ws_col;
	if (w < CLI_LESSON_MIN_WIDTH)
		w = CLI_LESSON_MIN_WIDTH;
	if (w > LESSON_LAYOUT_MAX_WIDTH)
		w = LESSON_LAYOUT_MAX_WIDTH;
	return w;
}

int cli_lesson_snippet(const char *md, unsigned int width, const char *first, const char *rest,
		       struct rt_buf *out)
{
	unsigned int pw = rt_utf8_width(first, strlen(first));
	struct lesson_layout *lay = NULL;
	struct lesson_doc *doc = NULL;
	struct rt_buf text = RT_BUF_INIT;
	bool started = false;
	const char *p;
	int ret;

	if (width < pw + LESSON_LAYOUT_MIN_WIDTH)
		return -EINVAL;
	ret = lesson_doc_parse(md, strlen(md), "snippet", &doc, NULL);
	if (!ret)
		ret = lesson_doc_layout(doc, width - pw, &lay);
	if (!ret)
		ret = lesson_layout_to_text(lay, &text);
	if (ret)
		goto out;
	/* Prefix every line; drop the blank lines the layout puts around blocks. */
	for (p = rt_buf_str(&text); *p && !ret;) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);

		if (n) {
			ret = rt_buf_puts(out, started ? rest : first);
			if (!ret)
				ret = rt_buf_append(out, p, n);
			if (!ret)
				ret = rt_buf_puts(out, "\n");
			started = true;
		}
		p += n + (eol ? 1 : 0);
	}
out:
	rt_buf_fini(&text);
	lesson_layout_free(lay);
	lesson_doc_free(doc);
	return ret;
}

struct rt_progress *cli_progress_open(void)
{
	struct rt_progress *p = NULL;
	char *cause = NULL;

	if (rt_progress_load(NULL, &p, &cause)) {
		rt_log(RT_LOG_WARN, "progress is not available: %s",
		       cause ? cause : "unknown error");
		free(cause);
		return NULL;
	}
	return p;
}

/* ---- Quiz summary of one lesson ---------------------------------------- */

struct quiz_tally {
	unsigned int questions;		/* quiz blocks */
	unsigned int scored;		/* single, multi, numeric */
	unsigned int answered;		/* questions with a saved answer */
	unsigned int right;		/* scored questions whose last answer was right */
	unsigned int predicted;		/* predict questions with a saved prediction */
};

static void tally(const struct lesson_doc *doc, const struct rt_progress *p, const char *id,
		  struct quiz_tally *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; doc && i < doc->nquizzes; i++) {
		const struct quiz *q = doc->quizzes[i];
		struct rt_progress_prediction pr;
		struct rt_progress_quiz rq;
		bool have = p && !rt_progress_quiz_get(p, id, q->id, &rq);

		t->questions++;
		t->answered += have;
		if (q->kind == QUIZ_PREDICT) {
			t->predicted += p && !rt_progress_prediction_get(p, id, q->id, &pr);
		} else {
			t->scored++;
			t->right += have && rq.score >= 1;
		}
	}
}

/* ---- lesson list ------------------------------------------------------- */

/* The lesson's predict questions: what each waits for (lab, scenario, metric, unit). */
static json_t *predict_json(const struct lesson_doc *doc)
{
	json_t *a = json_array();

	for (size_t i = 0; a && doc && i < doc->nquizzes; i++) {
		const struct quiz *q = doc->quizzes[i];

		if (q->kind != QUIZ_PREDICT)
			continue;
		json_array_append_new(a, json_pack("{s:s?, s:s?, s:s?, s:s?, s:s?, s:s?}", "id",
						   q->id, "lab", q->lab, "scenario", q->scenario,
						   "metric", q->metric, "unit", q->unit, "when",
						   q->when));
	}
	return a;
}

static json_t *problems_json(const struct lesson_entry *e, const struct lesson_doc *doc)
{
	json_t *a = json_array();

	if (e->problem)
		json_array_append_new(a, json_string(e->problem));
	for (size_t i = 0; doc && i < doc->nproblems; i++)
		json_array_append_new(a, json_string(doc->problems[i].msg));
	return a;
}

static int list_one(const struct lesson_entry *e, const struct rt_progress *p, bool json,
		    json_t *arr, json_t **glossary, struct rt_buf *out)
{
	struct lesson_doc *doc = NULL;
	struct quiz_tally t;
	char id[3], *cause = NULL, quiz[32], pred[32];
	bool read;
	int ret;

	/* A file the index could not read or title has nothing more to show. */
	if (!e->problem && lesson_doc_load(e->path, &doc, &cause)) {
		rt_log(RT_LOG_WARN, "%s", cause ? cause : e->path);
		free(cause);
	}
	lesson_progress_id(e->number, id);
	tally(doc, p, id, &t);
	read = !e->glossary && p && rt_progress_lesson_read(p, id);
	if (json) {
		json_t *o = json_object();

		if (!e->glossary) {
			json_object_set_new(o, "number", json_integer(e->number));
			json_object_set_new(o, "id", json_string(id));
			json_object_set_new(o, "slug", json_string(e->slug));
		}
		json_object_set_new(o, "title", e->title ? json_string(e->title) : json_null());
		json_object_set_new(o, "path", json_string(e->path));
		if (!e->glossary) {
			json_object_set_new(o, "read", json_boolean(read));
			json_object_set_new(o, "position", json_integer(
				p ? (json_int_t)rt_progress_lesson_position(p, id) : 0));
			json_object_set_new(o, "quiz", json_pack(
				"{s:I, s:I, s:I, s:I, s:I}", "questions", (json_int_t)t.questions,
				"scored", (json_int_t)t.scored, "answered", (json_int_t)t.answered,
				"right", (json_int_t)t.right, "predictions",
				(json_int_t)t.predicted));
			json_object_set_new(o, "predict", predict_json(doc));
			json_object_set_new(o, "words", doc ? json_integer((json_int_t)doc->words) :
					    json_null());
		}
		json_object_set_new(o, "problems", problems_json(e, doc));
		if (e->glossary) {
			json_decref(*glossary);
			*glossary = o;
		} else {
			json_array_append_new(arr, o);
		}
		ret = 0;
		goto out;
	}

	snprintf(quiz, sizeof(quiz), "%u/%u", t.right, t.scored);
	if (t.questions > t.scored)
		snprintf(pred, sizeof(pred), "%u/%u", t.predicted, t.questions - t.scored);
	else
		snprintf(pred, sizeof(pred), "-");
	if (e->glossary)
		ret = rt_buf_printf(out, "%-3s %-5s %-5s %-5s %s\n", "--", "", "", "",
				    e->title ? e->title : e->slug);
	else
		ret = rt_buf_printf(out, "%-3s %-5s %-5s %-5s %s\n", id,
				    e->problem ? "" : read ? "yes" : "no",
				    e->problem ? "" : quiz, e->problem ? "" : pred,
				    e->title ? e->title : strrchr(e->path, '/') ?
				    strrchr(e->path, '/') + 1 : e->path);
	if (!ret && e->problem)
		ret = rt_buf_printf(out, "    problem: %s\n", e->problem);
	if (!ret && doc && doc->nproblems)
		ret = rt_buf_printf(out, "    %zu problem%s: rtlab lesson lint %s\n",
				    doc->nproblems, doc->nproblems == 1 ? "" : "s", e->path);
out:
	lesson_doc_free(doc);
	return ret;
}

static int lesson_list(const struct cli_cmd *cmd, bool json)
{
	struct rt_progress *p = NULL;
	struct lesson_index *idx;
	struct rt_buf out = RT_BUF_INIT;
	json_t *root = NULL, *arr = NULL, *glossary = NULL;
	char *cause = NULL, *text = NULL;
	int ret = 0, status = CLI_EXIT_OK;

	(void)cmd;
	idx = lesson_index_load(&cause);
	if (!idx) {
		rt_log(RT_LOG_ERR, "cannot list the lessons: %s", cause ? cause : strerror(errno));
		free(cause);
		return CLI_EXIT_FAIL;
	}
	p = cli_progress_open();
	if (json) {
		arr = json_array();
		glossary = json_null();
	} else {
		ret = rt_buf_printf(&out, "Lessons in %s\n\n%-3s %-5s %-5s %-5s %s\n", idx->dir,
				    "NN", "read", "quiz", "pred", "title");
	}
	for (size_t i = 0; i < idx->count && !ret; i++)
		ret = list_one(&idx->entries[i], p, json, arr, &glossary, &out);
	if (!ret && !json && !idx->count)
		ret = rt_buf_puts(&out, "(no lessons installed)\n");
	if (!ret && !json)
		ret = rt_buf_puts(&out, "\nquiz: right answers / questions with a right answer; "
				  "pred: predictions saved / asked\n");
	if (ret)
		goto out_nomem;
	if (json) {
		root = json_pack("{s:s, s:s, s:o, s:o}", "schema", CLI_LESSON_LIST_SCHEMA,
				 "dir", idx->dir, "lessons", arr, "glossary", glossary);
		arr = glossary = NULL;
		text = root ? rt_json_dumps(root, NULL) : NULL;
		if (!text)
			goto out_nomem;
		printf("%s\n", text);
	} else {
		cli_text_put(stdout, rt_buf_str(&out));
	}
	if (fflush(stdout)) {
		rt_log(RT_LOG_ERR, "cannot write the lesson list: %s", strerror(errno));
		status = CLI_EXIT_FAIL;
	}
	goto out;
out_nomem:
	rt_log(RT_LOG_ERR, "out of memory while listing the lessons");
	status = CLI_EXIT_FAIL;
out:
	free(text);
	json_decref(root);
	json_decref(arr);
	json_decref(glossary);
	rt_buf_fini(&out);
	rt_progress_free(p);
	lesson_index_free(idx);
	return status;
}

/* ---- lesson show ------------------------------------------------------- */

static bool utf8_locale(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
}

/* Bold and underline where they help; nothing fancier, for old terminals. */
static void sgr_of(unsigned int style, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	if (style & (LESSON_STYLE_BOLD | LESSON_STYLE_HEADING1 | LESSON_STYLE_HEADING2 |
		     LESSON_STYLE_HEADING3))
		n += (size_t)snprintf(buf + n, size - n, ";1");
	if (n < size && style & (LESSON_STYLE_EMPH | LESSON_STYLE_LINK | LESSON_STYLE_HEADING1))
		n += (size_t)snprintf(buf + n, size - n, ";4");
	if (n < size && style & LESSON_STYLE_DIM)
		snprintf(buf + n, size - n, ";2");
}

/*
 * The styled twin of lesson_layout_to_text(): the same text in the same
 * columns, with SGR around styled spans, and headings in bold instead of
 * underlined with '=' or '-'.
 */
static int emit_styled(const struct lesson_layout *lay, size_t from, size_t to,
		       struct rt_buf *out)
{
	bool utf8 = utf8_locale();
	int ret = 0;

	for (size_t i = from; i < to && !ret; i++) {
		const struct lesson_line *l = &lay->lines[i];
		size_t start = out->len, end = out->len;
		bool frame_seen = false;

		if (l->kind == LESSON_LINE_FRAME)
			continue;
		for (size_t k = 0; k < l->nspans && !ret; k++) {
			const struct lesson_span *sp = &l->spans[k];
			char sgr[16];

			if (sp->role == LESSON_SPAN_QUOTE_BAR) {
				ret = rt_buf_puts(out, utf8 ? sp->text : sp->cols > 1 ? "> " : ">");
			} else if (sp->role == LESSON_SPAN_FRAME) {
				if (!frame_seen)
					ret = rt_buf_puts(out, "    ");
				frame_seen = true;
			} else {
				sgr_of(sp->style, sgr, sizeof(sgr));
				if (*sgr)
					ret = rt_buf_printf(out, "\033[0%sm%s\033[0m", sgr,
							    sp->text);
				else
					ret = rt_buf_puts(out, sp->text);
			}
			/* Trailing blanks are trimmed, as in plain text. */
			if (!ret && out->len > start && out->data[out->len - 1] != ' ')
				end = out->len;
		}
		if (ret)
			break;
		out->len = end;
		if (out->data)
			out->data[end] = '\0';
		ret = rt_buf_puts(out, "\n");
	}
	return ret;
}

static int emit_lines(const struct lesson_layout *lay, size_t from, size_t to, bool styled,
		      struct rt_buf *out)
{
	struct lesson_layout view = *lay;

	if (from >= to)
		return 0;
	if (styled)
		return emit_styled(lay, from, to, out);
	view.lines = lay->lines + from;
	view.nlines = to - from;
	return lesson_layout_to_text(&view, out);
}

/* The options of @q, lettered, and what kind of answer it takes; never the answer. */
static int emit_quiz_body(const struct quiz *q, unsigned int width, struct rt_buf *out)
{
	char first[16], hint[160];
	int ret = 0;

	for (size_t i = 0; i < q->noptions && !ret; i++) {
		snprintf(first, sizeof(first), "    %c) ", quiz_input_letter(i));
		ret = cli_lesson_snippet(q->options[i].text, width, first, "       ", out);
	}
	switch (q->kind) {
	case QUIZ_SINGLE:
		snprintf(hint, sizeof(hint), "(one answer)");
		break;
	case QUIZ_MULTI:
		snprintf(hint, sizeof(hint), "(one or more answers)");
		break;
	case QUIZ_NUMERIC:
		snprintf(hint, sizeof(hint), "(a number, in %s)", q->unit ? q->unit : "units");
		break;
	case QUIZ_PREDICT:
		snprintf(hint, sizeof(hint), "(your prediction, in %s, for the %s lab)",
			 q->unit ? q->unit : "units", q->lab ? q->lab : "matching");
		break;
	}
	if (!ret)
		ret = cli_lesson_snippet(hint, width, "    ", "    ", out);
	return ret;
}

static int render_lesson(const struct lesson_doc *doc, const struct lesson_layout *lay,
			 const struct lesson_entry *e, bool styled, struct rt_buf *out)
{
	size_t from = 0;
	char foot[96];
	int ret = 0;

	for (size_t i = 0; i < lay->nlines && !ret; i++) {
		const struct lesson_line *l = &lay->lines[i];
		bool last_of_quiz;

		if (l->kind != LESSON_LINE_QUIZ || l->quiz < 0 || (size_t)l->quiz >= doc->nquizzes)
			continue;
		last_of_quiz = i + 1 == lay->nlines || lay->lines[i + 1].kind != LESSON_LINE_QUIZ ||
			       lay->lines[i + 1].quiz != l->quiz;
		if (!last_of_quiz)
			continue;
		ret = emit_lines(lay, from, i + 1, styled, out);
		if (!ret)
			ret = emit_quiz_body(doc->quizzes[l->quiz], lay->width, out);
		from = i + 1;
	}
	if (!ret)
		ret = emit_lines(lay, from, lay->nlines, styled, out);
	if (!ret && doc->nquizzes) {
		snprintf(foot, sizeof(foot), "Answer the quiz of this lesson with: rtlab quiz %u",
			 e->number);
		ret = rt_buf_puts(out, "\n");
		if (!ret)
			ret = cli_lesson_snippet(foot, lay->width, "", "", out);
	}
	return ret;
}

static bool want_style(bool plain)
{
	const char *term = getenv("TERM"), *nc = getenv("NO_COLOR");

	return !plain && isatty(STDOUT_FILENO) && term && *term && strcmp(term, "dumb") &&
	       !nc;
}

static int lesson_show(const char *arg, unsigned int width, bool plain)
{
	const struct lesson_entry *e = NULL;
	struct lesson_layout *lay = NULL;
	struct lesson_index *idx = NULL;
	struct lesson_doc *doc = NULL;
	struct rt_buf out = RT_BUF_INIT;
	char *cause = NULL;
	int ret, status;

	status = cli_lesson_open(arg, &idx, &e);
	if (status)
		return status;
	if (e->problem)
		rt_log(RT_LOG_WARN, "%s", e->problem);
	ret = lesson_doc_load(e->path, &doc, &cause);
	if (ret) {
		rt_log(RT_LOG_ERR, "%s", cause ? cause : strerror(-ret));
		status = CLI_EXIT_FAIL;
		goto out;
	}
	/* A broken block is shown as such; the rest of the lesson is still worth reading. */
	for (size_t i = 0; i < doc->nproblems; i++)
		rt_log(RT_LOG_WARN, "%s", doc->problems[i].msg);
	if (!width)
		width = cli_lesson_width(stdout);
	ret = lesson_doc_layout(doc, width, &lay);
	if (!ret)
		ret = render_lesson(doc, lay, e, want_style(plain), &out);
	if (ret) {
		rt_log(RT_LOG_ERR, "cannot lay out %s: %s", e->path, strerror(-ret));
		status = CLI_EXIT_FAIL;
		goto out;
	}
	fputs(rt_buf_str(&out), stdout);
	if (fflush(stdout)) {
		rt_log(RT_LOG_ERR, "cannot write the lesson: %s", strerror(errno));
		status = CLI_EXIT_FAIL;
	}
out:
	free(cause);
	rt_buf_fini(&out);
	lesson_layout_free(lay);
	lesson_doc_free(doc);
	lesson_index_free(idx);
	return status;
}

/* ---- lesson lint ------------------------------------------------------- */

struct lint_run {
	unsigned int files, bad_files, problems;
	bool failed;		/* a file could not be read */
};

static void lint_one(const char *path, struct lint_run *r)
{
	struct rt_buf errors = RT_BUF_INIT;
	int n = lesson_lint_file(path, &errors);

	r->files++;
	cli_text_put(stdout, rt_buf_str(&errors));
	if (n < 0) {
		/* A file that cannot be read or is too large is a problem too, said as such. */
		if (!errors.len)
			printf("%s: cannot check: %s\n", path, strerror(-n));
		r->failed = true;
		r->bad_files++;
		r->problems++;
	} else if (n > 0) {
		r->problems += (unsigned int)n;
		r->bad_files++;
	}
	rt_buf_fini(&errors);
}

static int lint_dir(const char *dir, struct lint_run *r)
{
	struct lesson_index *idx;
	char *cause = NULL;

	idx = dir ? lesson_index_scan(dir, &cause) : lesson_index_load(&cause);
	if (!idx) {
		rt_log(RT_LOG_ERR, "cannot list the lessons in %s: %s", dir ? dir : "the data dir",
		       cause ? cause : strerror(errno));
		free(cause);
		r->failed = true;
		return -1;
	}
	if (!idx->count) {
		rt_log(RT_LOG_ERR, "no lessons (NN-slug.md files) in %s", idx->dir);
		r->failed = true;
	}
	for (size_t i = 0; i < idx->count; i++)
		lint_one(idx->entries[i].path, r);
	lesson_index_free(idx);
	return 0;
}

static int lesson_lint(int argc, char **argv)
{
	struct lint_run r = { 0 };

	if (!argc)
		lint_dir(NULL, &r);
	for (int i = 0; i < argc; i++) {
		struct stat st;

		/* A directory is linted as a lessons folder; other names as files. */
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			lint_dir(argv[i], &r);
		else
			lint_one(argv[i], &r);
	}
	fflush(stdout);
	if (r.problems || r.failed) {
		rt_log(RT_LOG_ERR, "%u problem%s in %u of %u lesson file%s", r.problems,
		       r.problems == 1 ? "" : "s", r.bad_files, r.files, r.files == 1 ? "" : "s");
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}

/* ---- Command ----------------------------------------------------------- */

static int parse_width(const struct cli_cmd *cmd, const char *s, unsigned int *width)
{
	if (rt_parse_uint("--width", s, CLI_LESSON_MIN_WIDTH, LESSON_LAYOUT_MAX_WIDTH, width,
			  NULL))
		return cli_usage_error(cmd, "--width wants a number from %u to %u, not '%s'",
				       CLI_LESSON_MIN_WIDTH, LESSON_LAYOUT_MAX_WIDTH, s);
	return 0;
}

static int lesson_main(const struct cli_cmd *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "plain", no_argument, NULL, 'p' },
		{ "width", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false, plain = false, width_set = false;
	unsigned int width = 0;
	const char *sub;
	int c;

	if (argc < 2)
		return cli_usage_error(cmd, "which one: list, show or lint?");
	sub = argv[1];
	if (!strcmp(sub, "--help") || !strcmp(sub, "-h")) {
		cli_cmd_help(cmd, stdout);
		return CLI_EXIT_OK;
	}
	if (strcmp(sub, "list") && strcmp(sub, "show") && strcmp(sub, "lint"))
		return cli_usage_error(cmd, "unknown subcommand '%s'", sub);
	argc--;
	argv++;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'p':
			plain = true;
			break;
		case 'w':
			if (parse_width(cmd, optarg, &width))
				return CLI_EXIT_USAGE;
			width_set = true;
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
	if (json && strcmp(sub, "list"))
		return cli_usage_error(cmd, "--json is for 'lesson list'");
	if ((plain || width_set) && strcmp(sub, "show"))
		return cli_usage_error(cmd, "--plain and --width are for 'lesson show'");

	if (!strcmp(sub, "list")) {
		if (optind < argc)
			return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
		return lesson_list(cmd, json);
	}
	if (!strcmp(sub, "show")) {
		if (optind >= argc)
			return cli_usage_error(cmd, "which lesson? (a number, like 3, or a slug)");
		if (optind + 1 < argc)
			return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
		return lesson_show(argv[optind], width, plain);
	}
	return lesson_lint(argc - optind, argv + optind);
}

const struct cli_cmd cli_cmd_lesson = {
	.name = "lesson",
	.usage = "list [--json] | show LESSON [--plain] [--width W] | lint [FILE|DIR...]",
	.summary = "list, print or check the lessons without the terminal UI",
	.help = "Subcommands:\n"
		"  list          every lesson with its number, whether it was read, the quiz\n"
		"                score (right answers / questions that have a right answer),\n"
		"                the predictions saved, and the problems of broken files\n"
		"  show LESSON   print a lesson as text wrapped to the terminal width (80\n"
		"                when not a terminal), with its quiz questions and options but\n"
		"                not their answers; LESSON is 3, 03, the slug or 'glossary'.\n"
		"                Showing a lesson does not mark it read.\n"
		"  lint [FILE|DIR...]\n"
		"                check lessons against lessons/FORMAT.md and print each\n"
		"                problem as 'file:line: message'; a directory means its\n"
		"                NN-slug.md files and glossary.md; default: the installed\n"
		"                lessons\n"
		"\n"
		"Options:\n"
		"  --json        list: print the rtlab.lesson-list/1 JSON (doc/cli-json.md)\n"
		"  --plain       show: no bold or underline, even on a terminal (also when\n"
		"                NO_COLOR is set or TERM=dumb)\n"
		"  --width W     show: wrap at W columns (20 to 1024)\n"
		"  -h, --help    show this help\n"
		"\n"
		"Exit status: 0 on success; 1 when a lesson is missing or lint found\n"
		"problems; 2 on bad usage.\n",
	.main = lesson_main,
};

/* ---- Declared keys -------------------------------------------------------- */

/* rtlab.lesson-list/1 (doc/cli-json.md), for `rtlab schema`. */
static const struct rt_key ll_quiz_keys[] = {
	RT_KEY("questions", RT_T_INTEGER, "count", "quiz blocks in the lesson", true),
	RT_KEY("scored", RT_T_INTEGER, "count", "questions with a right answer", true),
	RT_KEY("answered", RT_T_INTEGER, "count", "questions with a saved answer", true),
	RT_KEY("right", RT_T_INTEGER, "count", "scored questions answered right", true),
	RT_KEY("predictions", RT_T_INTEGER, "count", "predict questions with a prediction", true),
	RT_KEY_END,
};
static const struct rt_keys ll_quiz_table = { .keys = ll_quiz_keys };
static const struct rt_key ll_predict_keys[] = {
	RT_KEY("id", RT_T_STRING | RT_T_NULL, NULL, "the question's id", true),
	RT_KEY("lab", RT_T_STRING | RT_T_NULL, NULL, "the lab it is compared on", true),
	RT_KEY("scenario", RT_T_STRING | RT_T_NULL, NULL, "the scenario", true),
	RT_KEY("metric", RT_T_STRING | RT_T_NULL, NULL, "the figure", true),
	RT_KEY("unit", RT_T_STRING | RT_T_NULL, NULL, "its unit", true),
	RT_KEY("when", RT_T_STRING | RT_T_NULL, NULL, "the run it means; null: any run", true),
	RT_KEY_END,
};
static const struct rt_keys ll_predict_table = { .keys = ll_predict_keys };
static const struct rt_key ll_lesson_keys[] = {
	RT_KEY("number", RT_T_INTEGER, NULL, "the lesson number", true),
	RT_KEY("id", RT_T_STRING, NULL, "its two-digit id", true),
	RT_KEY("slug", RT_T_STRING, NULL, "the file name between `NN-` and `.md`", true),
	RT_KEY("title", RT_T_STRING | RT_T_NULL, NULL, "the `# Title`", true),
	RT_KEY("path", RT_T_STRING, NULL, "the file", true),
	RT_KEY("read", RT_T_BOOL, NULL, "the learner reached the end in the reader", true),
	RT_KEY("position", RT_T_INTEGER, NULL, "the source line the reader reopens at", true),
	RT_KEY("quiz", RT_T_OBJECT, NULL, "the quiz's counts", true, .of = &ll_quiz_table),
	RT_KEY("predict", RT_T_ARRAY, NULL, "the lesson's predict questions", true,
	       .of = &ll_predict_table),
	RT_KEY("words", RT_T_INTEGER | RT_T_NULL, "count", "prose words", true),
	RT_KEY("problems", RT_T_ARRAY, NULL, "`file:line: message` for what is wrong", true,
	       .items = RT_T_STRING),
	RT_KEY_END,
};
static const struct rt_keys ll_lesson_table = { .keys = ll_lesson_keys };
static const struct rt_key ll_glossary_keys[] = {
	RT_KEY("title", RT_T_STRING | RT_T_NULL, NULL, "its title", true),
	RT_KEY("path", RT_T_STRING, NULL, "the file", true),
	RT_KEY("problems", RT_T_ARRAY, NULL, "what is wrong with it", true, .items = RT_T_STRING),
	RT_KEY_END,
};
static const struct rt_keys ll_glossary_table = { .keys = ll_glossary_keys };
static const struct rt_key ll_keys[] = {
	RT_KEY("schema", RT_T_STRING, NULL, "`rtlab.lesson-list/1`", true),
	RT_KEY("dir", RT_T_STRING, NULL, "the lessons folder that was listed", true),
	RT_KEY("lessons", RT_T_ARRAY, NULL, "one object per `NN-slug.md` file, by number", true,
	       .of = &ll_lesson_table),
	RT_KEY("glossary", RT_T_OBJECT | RT_T_NULL, NULL, "the glossary; null when there is none",
	       true, .of = &ll_glossary_table),
	RT_KEY_END,
};
static const struct rt_keys ll_table = { .keys = ll_keys };

json_t *cli_lesson_list_schema(void)
{
	return rt_keys_document(CLI_LESSON_LIST_SCHEMA, "rtlab lesson list --json", &ll_table, 0);
}
