/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_lab_ftrace: the live screen of the ftrace lab.
 *
 * It follows the latency lab's screen (ui_lab_latency.c) and shares its run
 * lifecycle (ui_lab_run.c): the UI thread only draws and takes keys; Enter on the setup panel starts one worker
 * thread that calls lab_ftrace.run() with options the lab parses itself
 * (ftrace_params_parse(), the same parser as `rtlab lab run ftrace`), so
 * the screen and the CLI cannot run different experiments. The run keeps a
 * struct ftrace_live current; the screen copies it with
 * ftrace_live_snapshot() ten times a second. The worker blocks the stop
 * signals, so SIGINT and friends reach the UI loop, and q sets the run's
 * stop flag the way Ctrl-C does in the CLI: the probe, the hunt's injector
 * and the tracers stop, the tracefs instances are removed, the journal is
 * replayed, and what was measured is saved as an interrupted document.
 *
 * What the setup panel says about the machine comes from the doctor's
 * report, which the CLI uses too (tier, tracefs, root: whether the lab can
 * run live, and what to do when it cannot), read by the lab: which latency
 * tracers the kernel offers, and for a missing one the kernel option and
 * the bundled kernel that has it (ftrace_offer_fill()); which causes a hunt
 * can plant (ftrace_hunt_causes()). The screen never reads tracefs itself.
 * Choosing an unavailable tracer asks the lab's own check_capabilities(),
 * so the refusal on the status line is the engine's sentence, word for
 * word. The summary reads the run's document through the lab's typed
 * accessors (ftrace_doc_read()).
 *
 * A finished run is saved at once to the default results path and recorded
 * in the progress file, as the CLI does without --json. The diagnosis form
 * stores its three answers with lab_answer_set() (what `rtlab lab answer
 * ftrace` does), writes them into this run's document, saves it again and
 * shows lab_ftrace.grade() of that document: the pure function `rtlab grade
 * FILE` runs on the same file.
 *
 * The hunt's seed is random unless the learner types one; a random seed is
 * never drawn, not even inside the grade's sentences, since knowing it is
 * knowing the answer. The document on disk holds it, as the CLI's does
 * (the handout's honour system).
 */
#include "ui_lab_ftrace.h"
#include "ui_lab_screen.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/rt_env.h"
#include "core/rt_err.h"
#include "core/rt_file.h"
#include "core/rt_log.h"
#include "core/rt_result.h"
#include "labs/lab_ftrace_doc.h"
#include "trace/trace_ctl.h"
#include "ui_frame.h"
#include "ui_log.h"
#include "ui_text.h"
#include "ui_theme.h"
#include "ui_trace_view.h"

#define KEY_ESC 27
#define KEY_TAB '\t'
#define LABEL_COLS 17
#define MAX_DOC_BYTES (64u << 20)

/* Durations and thresholds the +/- keys step through. */
static const unsigned int durations_s[] = { 1, 2, 3, 5, 10, 15, 20, 30, 60, 120, 300, 600 };
static const unsigned int thresholds_us[] = { 0, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000,
					      10000 };

enum setup_row {
	ROW_MODE,
	ROW_TRACER,
	ROW_THRESHOLD,
	ROW_FUNCTION_TRACE,
	ROW_HUNT,
	ROW_SEED,
	ROW_DURATION,
};

/* @v moved one step along @steps (ascending) in direction @dir. */
static unsigned int step(const unsigned int *steps, size_t n, unsigned int v, int dir)
{
	size_t i = 0;

	while (i < n && steps[i] < v)
		i++;
	if (dir > 0) {
		if (i < n && steps[i] == v)
			i++;
		return steps[i < n ? i : n - 1];
	}
	return steps[i > 0 ? i - 1 : 0];
}

/* ---- Setup model ----------------------------------------------------------------- */

static unsigned int nrows(const struct ui_lab_ftrace *s)
{
	return s->offer.ntracers + 6;
}

/* Which setting row @cursor is; *tracer gets the tracer's index on a tracer row. */
static enum setup_row row_of(const struct ui_lab_ftrace *s, unsigned int cursor, int *tracer)
{
	*tracer = -1;
	if (cursor == 0)
		return ROW_MODE;
	if (cursor <= s->offer.ntracers) {
		*tracer = (int)cursor - 1;
		return ROW_TRACER;
	}
	return (enum setup_row)(cursor - s->offer.ntracers - 1 + ROW_THRESHOLD);
}

static bool can_run_live(const struct ui_lab_ftrace *s)
{
	return s->have_doctor && s->dlab && s->dlab->tier == DOCTOR_TIER_HOST;
}

/*
 * The latency tracers tracer mode can run, with presence from the doctor's
 * reading of available_tracers and, for each, the kernel option and the
 * bundled kernels that have it. Without tracefs the names are still listed,
 * marked unknown.
 */
static void load_tracers(struct ui_lab_ftrace *s)
{
	const struct doctor_tracefs *tf = &s->doctor.tracefs;
	bool known = s->have_doctor && tf->accessible;

	ftrace_offer_fill(&s->offer, known, known ? tf->tracers : NULL,
			  known ? tf->ntracers : 0);
}

/* The causes the grader accepts are exactly what the lab can plant. */
static void collect_kinds(struct ui_lab_ftrace *s)
{
	size_t n = ftrace_hunt_causes(s->kinds, UI_FTRACE_MAX_KINDS);

	s->nkinds = (unsigned int)(n < UI_FTRACE_MAX_KINDS ? n : UI_FTRACE_MAX_KINDS);
}

static void start_run(void *owner);
static void run_ended(void *owner, int ret);

static const struct ui_lab_run_ops run_ops = {
	.start = start_run,
	.ended = run_ended,
	.stopping = "stopping: the probe, the injector and the tracing end, the instances are "
		    "removed",
};

int ui_lab_ftrace_init(struct ui_lab_ftrace *s, const struct lab_ops *lab)
{
	struct ftrace_params defaults;

	memset(s, 0, sizeof(*s));
	ui_lab_run_init(&s->run, lab, &run_ops, s);
	s->tracer = -1;
	ftrace_params_init(&defaults);
	s->mode = defaults.mode;
	s->threshold_us = defaults.threshold_us;
	s->function_trace = defaults.function_trace;
	s->hunt = defaults.hunt;
	s->duration_ms = defaults.duration_ms;

	s->have_doctor = ui_lab_run_probe(lab, &s->doctor, &s->dlab);
	load_tracers(s);
	collect_kinds(s);
	if (ftrace_live_init(&s->live) == 0)
		s->live_ok = true;
	return s->live_ok ? 0 : -ENOMEM;
}

/*
 * The settings as the lab's own options, parsed by the lab: @mode and
 * @tracer (NULL: the first latency tracer present) may differ from the
 * panel's, to ask the lab about a choice before it is made.
 */
static int build_params(const struct ui_lab_ftrace *s, enum ftrace_mode mode, const char *tracer,
			struct ftrace_params *p, uint64_t *seed, bool *seed_given, char **cause)
{
	char thr[16], dur[24];
	char *argv[16];
	int argc = 0;

	snprintf(thr, sizeof(thr), "%u", s->threshold_us);
	snprintf(dur, sizeof(dur), "%ums", s->duration_ms);
	argv[argc++] = (char *)s->run.lab->name;
	argv[argc++] = (char *)"--mode";
	argv[argc++] = (char *)(mode == FTRACE_MODE_TRACER ? "tracer" : "events");
	if (mode == FTRACE_MODE_TRACER && tracer) {
		argv[argc++] = (char *)"--tracer";
		argv[argc++] = (char *)tracer;
	}
	argv[argc++] = (char *)"--threshold";
	argv[argc++] = thr;
	if (!s->function_trace)
		argv[argc++] = (char *)"--no-function-trace";
	if (s->hunt) {
		argv[argc++] = (char *)"--hunt";
		if (s->seed[0]) {
			argv[argc++] = (char *)"--seed";
			argv[argc++] = (char *)s->seed;
		}
	}
	argv[argc++] = (char *)"--duration";
	argv[argc++] = dur;
	argv[argc] = NULL;
	return ftrace_params_parse(argc, argv, p, seed, seed_given, cause);
}

/* The lab's own verdict on tracer mode with @tracer (NULL: any): 0, or its refusal. */
static int ask_lab(struct ui_lab_ftrace *s, const char *tracer, char **cause)
{
	struct ftrace_params p;
	struct lab_ctx ctx;
	uint64_t seed = 0;
	bool given;
	int ret;

	ret = build_params(s, FTRACE_MODE_TRACER, tracer, &p, &seed, &given, cause);
	if (ret)
		return ret;
	memset(&ctx, 0, sizeof(ctx));
	ctx.env = s->have_doctor ? &s->doctor.env : NULL;
	ctx.params = &p;
	return s->run.lab->check_capabilities ? s->run.lab->check_capabilities(&ctx, cause) : 0;
}

/* Choose tracer @i (tracer mode), or say the lab's reason why it cannot be. */
static void choose_tracer(struct ui_lab_ftrace *s, int i)
{
	char *cause = NULL;
	int ret = ask_lab(s, s->offer.tracers[i].name, &cause);

	if (ret) {
		ui_lab_run_say(&s->run, true, "%s", cause ? cause : strerror(-ret));
		free(cause);
		return;
	}
	s->tracer = i;
	s->mode = FTRACE_MODE_TRACER;
	ui_lab_run_say(&s->run, false, "tracer mode with %s", s->offer.tracers[i].name);
}

static void toggle_mode(struct ui_lab_ftrace *s)
{
	if (s->mode == FTRACE_MODE_TRACER) {
		s->mode = FTRACE_MODE_EVENTS;
		ui_lab_run_say(&s->run, false, "event mode: sched_waking and sched_switch only, "
			       "on any kernel");
		return;
	}
	if (s->tracer < 0)
		s->tracer = ftrace_offer_first(&s->offer);
	if (s->tracer < 0) {
		char *cause = NULL;
		int ret = ask_lab(s, NULL, &cause);

		ui_lab_run_say(&s->run, true, "%s", cause ? cause : ret ? strerror(-ret) :
			       "no latency tracer is in this kernel");
		free(cause);
		return;
	}
	choose_tracer(s, s->tracer);
}

/* ---- Running --------------------------------------------------------------------- */

/* Forget what the summary showed of the last run. */
static void clear_summary(struct ui_lab_ftrace *s)
{
	ui_trace_view_free(s->viewer);
	s->viewer = NULL;
	memset(&s->form, 0, sizeof(s->form));
	grade_report_fini(&s->grade);
	s->graded = false;
}

static void start_run(void *owner)
{
	struct ui_lab_ftrace *s = owner;
	char *cause = NULL;
	uint64_t seed;
	int ret;

	if (!can_run_live(s)) {
		ui_lab_run_say(&s->run, true, "the lab cannot run live here: %s",
			       s->dlab && s->dlab->reason ? s->dlab->reason :
			       "the machine could not be probed");
		return;
	}
	/* A typed seed is the learner's (shown); otherwise a random one, kept hidden. */
	seed = lab_seed_from_clock();
	ret = build_params(s, s->mode, s->mode == FTRACE_MODE_TRACER && s->tracer >= 0 ?
			   s->offer.tracers[s->tracer].name : NULL, &s->params, &seed,
			   &s->seed_typed, &cause);
	if (ret) {
		ui_lab_run_say(&s->run, true, "%s", cause ? cause : "bad settings");
		free(cause);
		return;
	}
	clear_summary(s);
	if (ui_lab_run_prepare(&s->run, &s->doctor, s->dlab, &s->params, &s->live, seed))
		return;
	/* A fresh model: nothing of the last run may show. */
	ftrace_live_fini(&s->live);
	s->live_ok = ftrace_live_init(&s->live) == 0;
	if (!s->live_ok) {
		ui_lab_run_say(&s->run, true, "out of memory");
		return;
	}
	memset(&s->snap, 0, sizeof(s->snap));

	/* The lab writes tracefs, so unlike the latency lab it refuses to run without one. */
	if (ui_lab_run_start(&s->run, true) == 0)
		ui_lab_run_say(&s->run, false, "the lab runs on threads of its own; this screen "
			       "only draws");
}

/* The worker has been joined; ui_lab_run saves the document after this. */
static void run_ended(void *owner, int ret)
{
	struct ui_lab_ftrace *s = owner;
	char msg[200];
	enum rt_log_level level;

	if (s->live_ok)
		ftrace_live_snapshot(&s->live, &s->snap);
	if (!ret)
		return;
	/* The lab logged why; that sentence is more use here than an errno. */
	if (ui_log_last(msg, sizeof(msg), &level) && level <= RT_LOG_WARN)
		ui_lab_run_say(&s->run, true, "the run failed: %s", msg);
	else
		ui_lab_run_say(&s->run, true, "the run failed (%s)", strerror(-ret));
}

static const struct ui_help_line ftrace_help[] = {
	{ NULL, "Ftrace lab: setup" },
	{ "Up, k / Down, j", "move between the settings" },
	{ "Space, Left / Right", "change it; on a tracer row: choose it" },
	{ "+ / -", "threshold or duration up / down" },
	{ "0-9, Backspace", "type the hunt's seed (empty: random)" },
	{ "Enter, r", "start the run" },
	{ NULL, "Ftrace lab: while measuring" },
	{ "q, Esc", "stop the run, save what was measured, back" },
	{ NULL, "Ftrace lab: summary" },
	{ "v", "read this run's trace in the viewer" },
	{ "d", "diagnose the hunt: cause, function, tracer" },
	{ "Tab, Up/Down; Enter", "diagnosis: next field; store and grade" },
	{ "r, Enter / q, Esc", "new run / back to the menu" },
	{ NULL, NULL },
};


const struct ui_help_line *ui_lab_ftrace_help(const struct ui_lab_ftrace *s)
{
	return s->viewer ? ui_help_lines(UI_HELP_TRACE) : ftrace_help;
}

void ui_lab_ftrace_fini(struct ui_lab_ftrace *s)
{
	/* First: a run still on is stopped, and saved, while what it uses is here. */
	ui_lab_run_fini(&s->run);
	clear_summary(s);
	if (s->live_ok)
		ftrace_live_fini(&s->live);
	if (s->have_doctor)
		doctor_report_fini(&s->doctor);
	memset(s, 0, sizeof(*s));
}

/* ---- The summary's actions: viewer, diagnosis, grade ------------------------------ */

/* The run's document read through the lab (empty when there is none). */
static void read_doc(const struct ui_lab_ftrace *s, struct ftrace_doc *d)
{
	ftrace_doc_read(ui_lab_run_result(&s->run), d);
}

/* The viewer on the saved document's text (extra.tracer.trace_text in tracer mode). */
static void open_viewer(struct ui_lab_ftrace *s)
{
	char *text = NULL, *cause = NULL;
	const char *name = "this run";
	size_t len = 0;

	if (s->run.saved_path && rt_file_read(s->run.saved_path, MAX_DOC_BYTES, &text, &len) == 0) {
		name = strrchr(s->run.saved_path, '/') ? strrchr(s->run.saved_path, '/') + 1 :
		       s->run.saved_path;
	} else {
		text = rt_result_to_string(ui_lab_run_result(&s->run), &cause);
		if (!text) {
			ui_lab_run_say(&s->run, true, "no document to read: %s",
				       cause ? cause : "out of memory");
			free(cause);
			return;
		}
		len = strlen(text);
	}
	s->viewer = ui_trace_view_new(text, len, name, &cause);
	if (!s->viewer)
		ui_lab_run_say(&s->run, true, "%s", cause ? cause : strerror(errno));
	else
		s->run.message[0] = '\0';
	free(cause);
	free(text);
}

/* The tracer names of the form: "events", then the latency tracers. */
static unsigned int form_ntracers(const struct ui_lab_ftrace *s)
{
	return 1 + s->offer.ntracers;
}

static const char *form_tracer(const struct ui_lab_ftrace *s, unsigned int i)
{
	return i == 0 || i > s->offer.ntracers ? "events" : s->offer.tracers[i - 1].name;
}

/* Open the form, filled with the answers stored so far (else the run's injector's first cause). */
static void open_form(struct ui_lab_ftrace *s)
{
	struct ftrace_doc d;
	char *prev = NULL;
	int inj;

	read_doc(s, &d);
	inj = ftrace_injector_from_name(d.hunt.injector);
	if (!d.hunt.present) {
		ui_lab_run_say(&s->run, true, "this run planted no cause: turn Hunt on in the "
			       "setup (r), run it, then diagnose");
		return;
	}
	memset(&s->form, 0, sizeof(s->form));
	for (unsigned int i = 0; i < s->nkinds; i++)
		if ((int)s->kinds[i].injector == inj) {
			s->form.kind = i;
			break;
		}
	if (lab_answer_get(NULL, s->run.lab->name, "cause", &prev, NULL) == 0 && prev)
		for (unsigned int i = 0; i < s->nkinds; i++)
			if (!strcmp(s->kinds[i].kind, prev))
				s->form.kind = i;
	free(prev);
	prev = NULL;
	if (lab_answer_get(NULL, s->run.lab->name, "function", &prev, NULL) == 0 && prev)
		snprintf(s->form.function, sizeof(s->form.function), "%s", prev);
	free(prev);
	prev = NULL;
	if (lab_answer_get(NULL, s->run.lab->name, "tracer", &prev, NULL) == 0 && prev)
		for (unsigned int i = 0; i < form_ntracers(s); i++)
			if (!strcmp(form_tracer(s, i), prev))
				s->form.tracer = i;
	free(prev);
	s->form.field = UI_FTRACE_FIELD_CAUSE;
	s->form.open = true;
	s->run.message[0] = '\0';
}

/*
 * Store the answers as `rtlab lab answer ftrace ID TEXT` does, put them in
 * this run's document (as the next run would copy them), save it again and
 * grade it with the lab's grade.
 */
static void submit_form(struct ui_lab_ftrace *s)
{
	const char *ids[] = { "cause", "function", "tracer" };
	const char *vals[3];
	char *cause = NULL;
	int ret = 0;

	vals[0] = s->kinds[s->form.kind].kind;
	vals[1] = s->form.function;
	vals[2] = form_tracer(s, s->form.tracer);
	if (!s->form.function[0]) {
		ui_lab_run_say(&s->run, true, "type the function the cause runs in first");
		s->form.field = UI_FTRACE_FIELD_FUNCTION;
		return;
	}
	for (size_t i = 0; i < 3 && !ret; i++) {
		ret = lab_answer_set(NULL, s->run.lab->name, ids[i], vals[i], &cause);
		if (!ret && rt_result_set_answer_str(ui_lab_run_result(&s->run), ids[i], vals[i]))
			ret = rt_err(&cause, -ENOMEM, "out of memory");
	}
	if (ret) {
		ui_lab_run_say(&s->run, true, "answers not stored: %s",
			       cause ? cause : strerror(-ret));
		free(cause);
		return;
	}
	s->form.open = false;
	grade_report_fini(&s->grade);
	ret = s->run.lab->grade(&s->run.session.res, &s->grade);
	s->graded = ret == 0;
	if (ret) {
		ui_lab_run_say(&s->run, true, "the document could not be graded (%s)",
			       strerror(-ret));
		return;
	}
	if (s->run.saved_path && ui_lab_run_save(&s->run, false) == 0)
		ui_lab_run_say(&s->run, false, "answers stored in your progress and in %s; "
			       "graded below", s->run.saved_path);
}

/* ---- Keys -------------------------------------------------------------------------- */

static void seed_key(struct ui_lab_ftrace *s, int key)
{
	size_t n = strlen(s->seed);

	if (key >= '0' && key <= '9') {
		if (n + 1 >= sizeof(s->seed)) {
			ui_lab_run_say(&s->run, true, "a seed has at most %zu digits",
				       sizeof(s->seed) - 1);
			return;
		}
		s->seed[n] = (char)key;
		s->seed[n + 1] = '\0';
		if (!s->hunt) {
			s->hunt = true;
			ui_lab_run_say(&s->run, false, "a seed is for the hunt: Hunt is on");
		}
		return;
	}
	if (n)
		s->seed[n - 1] = '\0';
}

static void setup_key(struct ui_lab_ftrace *s, int key)
{
	int tracer;
	enum setup_row row = row_of(s, s->cursor, &tracer);
	int dir = key == '-' || key == KEY_LEFT ? -1 : 1;

	switch (key) {
	case KEY_DOWN:
	case 'j':
		if (s->cursor + 1 < nrows(s))
			s->cursor++;
		return;
	case KEY_UP:
	case 'k':
		if (s->cursor > 0)
			s->cursor--;
		return;
	case KEY_HOME:
	case 'g':
		s->cursor = 0;
		return;
	case KEY_END:
	case 'G':
		s->cursor = nrows(s) - 1;
		return;
	default:
		break;
	}
	if (row == ROW_SEED && ((key >= '0' && key <= '9') || key == KEY_BACKSPACE ||
				key == 127 || key == 8)) {
		seed_key(s, key);
		return;
	}
	if (key != ' ' && key != KEY_LEFT && key != KEY_RIGHT && key != '+' && key != '=' &&
	    key != '-')
		return;
	switch (row) {
	case ROW_MODE:
		toggle_mode(s);
		break;
	case ROW_TRACER:
		choose_tracer(s, tracer);
		break;
	case ROW_THRESHOLD:
		s->threshold_us = step(thresholds_us, sizeof(thresholds_us) /
				       sizeof(thresholds_us[0]), s->threshold_us,
				       key == ' ' ? 1 : dir);
		break;
	case ROW_FUNCTION_TRACE:
		s->function_trace = !s->function_trace;
		break;
	case ROW_HUNT:
		s->hunt = !s->hunt;
		break;
	case ROW_SEED:
		if (key == ' ') {
			s->seed[0] = '\0';
			ui_lab_run_say(&s->run, false, "seed: random, and kept hidden after the "
				       "run");
		}
		break;
	case ROW_DURATION:
		s->duration_ms = 1000u * step(durations_s, sizeof(durations_s) /
					      sizeof(durations_s[0]), s->duration_ms / 1000u,
					      key == ' ' ? 1 : dir);
		break;
	}
}

static enum ui_lab_action form_key(struct ui_lab_ftrace *s, int key)
{
	struct ui_ftrace_form *f = &s->form;
	size_t n = strlen(f->function);

	switch (key) {
	case KEY_ESC:
		f->open = false;
		ui_lab_run_say(&s->run, false, "diagnosis not stored");
		return UI_LAB_NONE;
	case '\n':
	case '\r':
	case KEY_ENTER:
		submit_form(s);
		return UI_LAB_NONE;
	case KEY_TAB:
	case KEY_DOWN:
		f->field = (enum ui_ftrace_field)((f->field + 1) % UI_FTRACE_NFIELDS);
		return UI_LAB_NONE;
	case KEY_BTAB:
	case KEY_UP:
		f->field = (enum ui_ftrace_field)((f->field + UI_FTRACE_NFIELDS - 1) %
						  UI_FTRACE_NFIELDS);
		return UI_LAB_NONE;
	default:
		break;
	}
	if (f->field == UI_FTRACE_FIELD_FUNCTION) {
		if (key == KEY_BACKSPACE || key == 127 || key == 8) {
			if (n)
				f->function[n - 1] = '\0';
		} else if (key >= 0x20 && key < 0x7f && n + 1 < sizeof(f->function)) {
			f->function[n] = (char)key;
			f->function[n + 1] = '\0';
		}
		return UI_LAB_NONE;
	}
	if (key == '?')
		return UI_LAB_HELP;
	if (key == KEY_LEFT || key == KEY_RIGHT || key == ' ' || key == 'h' || key == 'l') {
		int d = key == KEY_LEFT || key == 'h' ? -1 : 1;

		if (f->field == UI_FTRACE_FIELD_CAUSE && s->nkinds)
			f->kind = (f->kind + s->nkinds + (unsigned int)d) % s->nkinds;
		else if (f->field == UI_FTRACE_FIELD_TRACER)
			f->tracer = (f->tracer + form_ntracers(s) + (unsigned int)d) %
				    form_ntracers(s);
	}
	return UI_LAB_NONE;
}

static enum ui_lab_action viewer_key(struct ui_lab_ftrace *s, int key)
{
	switch (ui_trace_view_key(s->viewer, key)) {
	case UI_TRACE_VIEW_CLOSE:
		ui_trace_view_free(s->viewer);
		s->viewer = NULL;
		break;
	case UI_TRACE_VIEW_HELP:
		return UI_LAB_HELP;
	case UI_TRACE_VIEW_NONE:
		break;
	}
	return UI_LAB_NONE;
}

enum ui_lab_action ui_lab_ftrace_key(struct ui_lab_ftrace *s, int key)
{
	enum ui_lab_action act;

	/* The viewer and the form over the summary take every key. */
	if (s->run.state == UI_LAB_DONE && s->viewer)
		return viewer_key(s, key);
	if (s->run.state == UI_LAB_DONE && s->form.open)
		return form_key(s, key);
	/* Seen; what this key does may say something new. */
	if (s->run.state == UI_LAB_SETUP)
		s->run.message[0] = '\0';
	if (ui_lab_run_key(&s->run, key, &act))
		return act;
	if (s->run.state == UI_LAB_SETUP)
		setup_key(s, key);
	else if (s->run.state == UI_LAB_DONE && key == 'v')
		open_viewer(s);
	else if (s->run.state == UI_LAB_DONE && key == 'd')
		open_form(s);
	return UI_LAB_NONE;
}

/* ---- Drawing helpers ---------------------------------------------------------------- */

/*
 * The message on row @y, or on up to three rows ending there when it is
 * longer than a line (a refusal names the kernel option and where to get
 * it): those rows are cleared first, covering the panel's last lines.
 */
static void status_line(struct ui_lab_ftrace *s, WINDOW *win, int y, int x, int cols)
{
	enum ui_role role = s->run.message_warn ? UI_ROLE_WARN : UI_ROLE_DIM;
	size_t off = 0, next, len[3];
	int n = 0;

	if (!s->run.message[0])
		return;
	while (n < 3 && s->run.message[off]) {
		len[n] = ui_text_wrap(s->run.message + off, cols - 2, &next);
		n++;
		if (!next)
			break;
		off += next;
	}
	off = 0;
	for (int i = 0; i < n; i++) {
		int row = y - n + 1 + i;

		mvwhline(win, row, x, ' ', cols);
		wattron(win, ui_theme_attr(role));
		/* The last row takes the rest, which ends in an ellipsis if it is longer. */
		if (i == n - 1)
			ui_text_put(win, row, x + 1, s->run.message + off, cols - 2);
		else
			ui_text_putn(win, row, x + 1, s->run.message + off, len[i], cols - 2);
		wattroff(win, ui_theme_attr(role));
		ui_text_wrap(s->run.message + off, cols - 2, &next);
		off += next;
	}
}

/* @text wrapped at @cols from row *row, at most @max rows and never at or past @bottom. */
static void put_wrapped(WINDOW *win, int *row, int bottom, int x, int cols, const char *text,
			int max, enum ui_role role)
{
	size_t off = 0, next, len;

	for (int n = 0; n < max && text[off] && *row < bottom; n++) {
		len = ui_text_wrap(text + off, cols, &next);
		wattron(win, ui_theme_attr(role));
		ui_text_putn(win, *row, x, text + off, len, cols);
		wattroff(win, ui_theme_attr(role));
		(*row)++;
		if (!next)
			break;
		off += next;
	}
}

/* A label in the settings column and its value beside it. */
static void put_setting(WINDOW *win, int row, int x, int cols, bool sel, const char *label,
			const char *value, enum ui_role role)
{
	if (sel)
		ui_frame_bar(win, row, x, cols, UI_ROLE_SELECTED);
	ui_frame_put(win, row, x + 1, sel ? ui_text_glyph("\xe2\x96\xb8", ">") : " ", 1,
		     sel ? UI_ROLE_SELECTED : UI_ROLE_NORMAL);
	ui_frame_put(win, row, x + 3, label, LABEL_COLS - 2,
		     sel ? UI_ROLE_SELECTED : UI_ROLE_LABEL);
	ui_frame_put(win, row, x + 1 + LABEL_COLS, value, cols - LABEL_COLS - 2,
		     sel ? UI_ROLE_SELECTED : role);
}

/* ---- Setup panel ------------------------------------------------------------------- */

static int draw_machine(struct ui_lab_ftrace *s, WINDOW *win, int row, int bottom, int x,
			int cols)
{
	const struct doctor_tracefs *tf = &s->doctor.tracefs;
	const struct rt_env *e = &s->doctor.env;
	char line[512];

	if (!s->have_doctor) {
		ui_frame_put(win, row++, x + 1, "This machine could not be probed (see rtlab "
			     "doctor)", cols - 2, UI_ROLE_WARN);
		return row;
	}
	snprintf(line, sizeof(line), "This machine: kernel %s, preemption %s; %s",
		 e->kernel_release ? e->kernel_release : "?",
		 e->preempt_model ? e->preempt_model : "unknown",
		 s->doctor.priv.root ? "running as root" : "not root");
	ui_frame_put(win, row++, x + 1, line, cols - 2, s->doctor.priv.root ? UI_ROLE_NORMAL :
		     UI_ROLE_WARN);
	if (tf->mount)
		snprintf(line, sizeof(line), "tracefs: mounted at %s, %s", tf->mount,
			 tf->writable ? "writable" : tf->accessible ? "readable but not writable "
			 "by us" : "not readable by us");
	else
		snprintf(line, sizeof(line), "tracefs: not mounted%s%s", tf->error ? ": " : "",
			 tf->error ? tf->error : "");
	ui_frame_put(win, row++, x + 1, line, cols - 2, tf->mount && tf->writable ?
		     UI_ROLE_NORMAL : UI_ROLE_WARN);
	if (can_run_live(s)) {
		snprintf(line, sizeof(line), "Live: %s", s->dlab->reason ? s->dlab->reason :
			 "runs live here");
		ui_frame_put(win, row++, x + 1, line, cols - 2, s->dlab->degraded ? UI_ROLE_DIM :
			     UI_ROLE_READY);
		return row;
	}
	snprintf(line, sizeof(line), "Cannot run live here: %s", s->dlab && s->dlab->reason ?
		 s->dlab->reason : "the doctor found no tier");
	put_wrapped(win, &row, bottom, x + 1, cols - 2, line, 2, UI_ROLE_WARN);
	for (size_t i = 0; s->dlab && i < s->dlab->nmissing && row < bottom; i++) {
		const struct doctor_missing *m = &s->dlab->missing[i];

		if (!m->required)
			continue;
		snprintf(line, sizeof(line), "missing: %s. Fix: %s", m->what ? m->what : "?",
			 m->how ? m->how : "see rtlab doctor");
		put_wrapped(win, &row, bottom, x + 3, cols - 4, line, 2, UI_ROLE_WARN);
	}
	return row;
}

static void draw_setup(struct ui_lab_ftrace *s, WINDOW *win, int y, int x, int h, int cols)
{
	static const char *const keys[] = {
		"j/k", "move", "Space", "change", "+/-", "step", "Enter", "run", "?", "help",
		"q", "back",
	};
	bool tracer_mode = s->mode == FTRACE_MODE_TRACER;
	int row = y, bottom = y + h - 2;
	char line[512], value[384];

	ui_frame_bar(win, row, x, cols, UI_ROLE_TITLE);
	ui_frame_put(win, row, x + 1, "Ftrace lab: choose the settings, then Enter to run",
		     cols - 2, UI_ROLE_TITLE);
	row += 2;
	row = draw_machine(s, win, row, bottom - 4, x, cols);
	row++;
	for (unsigned int c = 0; c < nrows(s) && row < bottom; c++, row++) {
		int t;
		enum setup_row r = row_of(s, c, &t);
		bool sel = c == s->cursor;
		enum ui_role role = UI_ROLE_NORMAL;
		const char *label = "";

		switch (r) {
		case ROW_MODE:
			label = "Mode";
			snprintf(value, sizeof(value), "%s", tracer_mode ?
				 "tracer: a latency tracer too, and its trace" :
				 "events: sched_waking -> sched_switch, on any kernel");
			break;
		case ROW_TRACER: {
			const struct trace_tracer_info *ti = &s->offer.tracers[t];
			bool chosen = tracer_mode && s->tracer == t;

			label = t == 0 ? "Tracer" : "";
			if (ti->present)
				snprintf(value, sizeof(value), "(%s) %-15s here",
					 chosen ? "*" : " ", ti->name);
			else if (!s->offer.known)	/* the tracefs line above says why */
				snprintf(value, sizeof(value), "( ) %-15s unknown: %s [in %s]",
					 ti->name, ti->config,
					 trace_ctl_bundled_str(ti->bundled));
			else
				snprintf(value, sizeof(value), "( ) %-15s missing: %s [in %s]",
					 ti->name, ti->config,
					 trace_ctl_bundled_str(ti->bundled));
			role = !ti->present ? UI_ROLE_DIM : chosen ? UI_ROLE_READY : UI_ROLE_NORMAL;
			break;
		}
		case ROW_THRESHOLD:
			label = "Threshold";
			snprintf(value, sizeof(value), "%u us%s%s", s->threshold_us,
				 s->threshold_us ? "" : " (keep the worst case only)",
				 tracer_mode ? "" : "  [tracer mode only]");
			role = tracer_mode ? UI_ROLE_NORMAL : UI_ROLE_DIM;
			break;
		case ROW_FUNCTION_TRACE:
			label = "Function trace";
			snprintf(value, sizeof(value), "%s%s", s->function_trace ? "on" : "off",
				 tracer_mode ? "" : "  [tracer mode only]");
			role = tracer_mode ? UI_ROLE_NORMAL : UI_ROLE_DIM;
			break;
		case ROW_HUNT:
			label = "Hunt";
			snprintf(value, sizeof(value), "%s", s->hunt ?
				 "on: rtlab plants a hidden cause for you to find" : "off");
			break;
		case ROW_SEED:
			label = "Seed";
			if (s->seed[0])
				snprintf(value, sizeof(value), "%s (typed; Space: random)",
					 s->seed);
			else
				snprintf(value, sizeof(value), "random, kept hidden (type "
					 "digits for your teacher's)");
			role = s->hunt ? UI_ROLE_NORMAL : UI_ROLE_DIM;
			break;
		case ROW_DURATION:
			label = "Duration";
			snprintf(value, sizeof(value), "%u s", s->duration_ms / 1000u);
			break;
		}
		put_setting(win, row, x, cols, sel, label, value, role);
	}
	row++;
	if (row < bottom) {
		snprintf(line, sizeof(line), "The run saves its document and records it in your "
			 "progress; the summary has the trace viewer (v) and the diagnosis (d).");
		put_wrapped(win, &row, bottom, x + 1, cols - 2, line, 2, UI_ROLE_DIM);
	}
	status_line(s, win, y + h - 2, x, cols);
	ui_frame_footer(win, y + h - 1, x, cols, keys, sizeof(keys) / sizeof(keys[0]));
}

/* ---- Live run ---------------------------------------------------------------------- */

static void draw_meter(WINDOW *win, int y, int x, int width, unsigned int pct)
{
	const char *full = ui_text_glyph("\xe2\x96\x88", "#");
	const char *empty = ui_text_glyph("\xc2\xb7", ".");
	int fill = (int)((long)width * (pct > 100 ? 100 : pct) / 100);

	wmove(win, y, x);
	wattron(win, ui_theme_attr(UI_ROLE_READY));
	for (int c = 0; c < fill; c++)
		waddstr(win, full);
	wattroff(win, ui_theme_attr(UI_ROLE_READY));
	wattron(win, ui_theme_attr(UI_ROLE_DIM));
	for (int c = fill; c < width; c++)
		waddstr(win, empty);
	wattroff(win, ui_theme_attr(UI_ROLE_DIM));
}

static void draw_running(struct ui_lab_ftrace *s, WINDOW *win, int y, int x, int h, int cols)
{
	static const char *const keys[] = { "q", "stop", "?", "help" };
	const struct ftrace_live_snap *sn = &s->snap;
	const char *phase;
	char line[512];
	int row = y, bottom = y + h - 2, bw = cols - 30;

	if (s->live_ok)
		ftrace_live_snapshot(&s->live, &s->snap);
	phase = s->run.state == UI_LAB_STOPPING ? "stopping" :
		sn->phase == FTRACE_LIVE_MEASURING ? "measuring" :
		sn->phase == FTRACE_LIVE_RECORDING ? "reading the traces" : "setting up";
	ui_frame_bar(win, row, x, cols, UI_ROLE_TITLE);
	snprintf(line, sizeof(line), "Ftrace lab: %s (%s mode%s%s)", phase,
		 s->params.mode == FTRACE_MODE_TRACER ? "tracer" : "event",
		 sn->tracer[0] ? ", " : "", sn->tracer);
	ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_TITLE);
	row++;
	if (bw < 10)
		bw = 10;
	draw_meter(win, row, x + 1, bw, sn->pct);
	snprintf(line, sizeof(line), " %3u%%  %.1f s of %.1f s", sn->pct, sn->elapsed_s,
		 s->params.duration_ms / 1000.0);
	ui_frame_put(win, row++, x + 1 + bw, line, cols - bw - 2, UI_ROLE_NORMAL);
	row++;
	snprintf(line, sizeof(line), "%-8s %12s %12s", "", "wake-ups", "max us");
	ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_LABEL);
	snprintf(line, sizeof(line), "%-8s %12llu %12.1f", "probe",
		 (unsigned long long)sn->probe_count, sn->probe_max_us);
	ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_NORMAL);
	snprintf(line, sizeof(line), "%-8s %12llu %12.1f   %llu lost", "events",
		 (unsigned long long)sn->events_matched, sn->events_max_us,
		 (unsigned long long)sn->lost_events);
	ui_frame_put(win, row++, x + 1, line, cols - 2, sn->lost_events ? UI_ROLE_WARN :
		     UI_ROLE_NORMAL);
	row++;
	put_wrapped(win, &row, bottom, x + 1, cols - 2, "probe: how late the thread's "
		    "clock_nanosleep() returned. events: from sched_waking to the sched_switch "
		    "that gave it the CPU, read from a private tracefs instance. The events' "
		    "span lies inside the probe's.", 4, UI_ROLE_DIM);
	if (sn->tracer[0] && row < bottom) {
		snprintf(line, sizeof(line), "The %s tracer runs too; its trace is read at the "
			 "end (v on the summary shows it).", sn->tracer);
		put_wrapped(win, &row, bottom, x + 1, cols - 2, line, 2, UI_ROLE_DIM);
	}
	if (sn->hunt && row < bottom)
		put_wrapped(win, &row, bottom, x + 1, cols - 2, "Hunt: a cause is planted on the "
			    "probe's CPU. Watch the tails grow; which kind is it?", 2,
			    UI_ROLE_SECTION);
	status_line(s, win, y + h - 2, x, cols);
	ui_frame_footer(win, y + h - 1, x, cols, keys, sizeof(keys) / sizeof(keys[0]));
}

/* ---- Summary ------------------------------------------------------------------------ */

/* @in with every @seed replaced by "(hidden)" into @out: a random seed never shows. */
static void redact(const char *in, const char *seed, char *out, size_t size)
{
	size_t n = 0, sl = seed ? strlen(seed) : 0;

	while (*in && n + 1 < size) {
		if (sl && !strncmp(in, seed, sl)) {
			n += (size_t)snprintf(out + n, size - n, "(hidden)");
			if (n >= size)
				n = size - 1;
			in += sl;
			continue;
		}
		out[n++] = *in++;
	}
	out[n] = '\0';
}

static void draw_form(struct ui_lab_ftrace *s, WINDOW *win, int y, int x, int h, int cols)
{
	const struct ui_ftrace_form *f = &s->form;
	int bw = cols - 4 < 76 ? cols - 4 : 76, bh = 10, by, bx, r;
	const struct ftrace_hunt_cause *k = s->nkinds ? &s->kinds[f->kind] : NULL;
	char line[256];

	if (bh > h)
		bh = h;
	by = y + (h - bh) / 2;
	bx = x + (cols - bw) / 2;
	/* Whole rows: half-covered lines beside the box would read as garbage. */
	ui_frame_clear(win, by, x, bh, cols);
	ui_frame_draw(win, by, bx, bh, bw, "Diagnosis of the hunt");
	r = by + 2;
	snprintf(line, sizeof(line), "< %s >   %s", k ? k->kind : "?", k ?
		 (k->injector == FTRACE_INJ_MODULE ? "kernel module" : "user-space hog") : "");
	put_setting(win, r++, bx + 1, bw - 2, f->field == UI_FTRACE_FIELD_CAUSE, "Cause", line,
		    UI_ROLE_NORMAL);
	snprintf(line, sizeof(line), "%s%s", f->function,
		 f->field == UI_FTRACE_FIELD_FUNCTION ? "_" : "");
	put_setting(win, r++, bx + 1, bw - 2, f->field == UI_FTRACE_FIELD_FUNCTION, "Function",
		    f->function[0] || f->field == UI_FTRACE_FIELD_FUNCTION ? line :
		    "(type the function it runs in)", UI_ROLE_NORMAL);
	snprintf(line, sizeof(line), "< %s >", form_tracer(s, f->tracer));
	put_setting(win, r++, bx + 1, bw - 2, f->field == UI_FTRACE_FIELD_TRACER, "Tracer", line,
		    UI_ROLE_NORMAL);
	r++;
	ui_frame_put(win, r++, bx + 2, "Left/Right: choose. Tab: next field. Enter: store the "
		     "answers and grade.", bw - 4, UI_ROLE_DIM);
	ui_frame_put(win, r, bx + 2, "Esc: cancel. The tracer is the one that showed it "
		     "(events: event mode).", bw - 4, UI_ROLE_DIM);
}

static int draw_grade(struct ui_lab_ftrace *s, WINDOW *win, int row, int bottom, int x, int cols,
		      const char *seed)
{
	char line[600], detail[512];

	snprintf(line, sizeof(line), "Grade: %s, %zu of %zu checks passed (%.0f %%)",
		 grade_report_passed(&s->grade) ? "passed" : "not passed", s->grade.npassed,
		 s->grade.nchecks, s->grade.score);
	if (row < bottom)
		ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_SECTION);
	for (size_t i = 0; i < s->grade.nchecks && row < bottom; i++) {
		const struct grade_check *c = &s->grade.checks[i];

		redact(c->detail ? c->detail : "", s->seed_typed ? NULL : seed, detail,
		       sizeof(detail));
		snprintf(line, sizeof(line), "[%s] %-9s %s", c->passed ? "pass" : "FAIL", c->name,
			 detail);
		ui_frame_put(win, row++, x + 2, line, cols - 3, c->passed ? UI_ROLE_READY :
			     UI_ROLE_WARN);
	}
	return row;
}

static void draw_done(struct ui_lab_ftrace *s, WINDOW *win, int y, int x, int h, int cols)
{
	static const char *const keys[] = {
		"v", "trace", "d", "diagnose", "r", "new run", "?", "help", "q", "back",
	};
	static const char *const form_keys[] = {
		"Left/Right", "choose", "Tab", "next field", "Enter", "store and grade",
		"Esc", "cancel",
	};
	const struct rt_result *res = ui_lab_run_result(&s->run);
	struct ftrace_doc d;
	const struct ftrace_doc_probe *pr = &d.probe;
	const struct ftrace_doc_events *ev = &d.events;
	const struct ftrace_doc_tracer *tr = &d.tracer;
	const struct ftrace_doc_hunt *hunt = &d.hunt;
	int row = y, bottom = y + h - 2;
	char line[600];

	read_doc(s, &d);
	ui_frame_bar(win, row, x, cols, UI_ROLE_TITLE);
	snprintf(line, sizeof(line), "Ftrace lab: %s (%s mode%s)", ui_lab_run_interrupted(&s->run) ?
		 "stopped early, partial results" : "done",
		 d.mode == FTRACE_MODE_TRACER ? "tracer" : "event",
		 hunt->present ? ", hunt" : "");
	ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_TITLE);
	row++;
	snprintf(line, sizeof(line), "%-8s %10s %9s %9s %10s", "", "wake-ups", "p50 us", "p99 us",
		 "max us");
	ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_LABEL);
	snprintf(line, sizeof(line), "%-8s %10lld %9.0f %9.0f %10.2f  (%s)", "probe",
		 (long long)pr->d.count, pr->d.p50_us, pr->d.p99_us, pr->d.max_us, pr->policy);
	ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_NORMAL);
	snprintf(line, sizeof(line), "%-8s %10lld %9.0f %9.0f %10.2f  (matched; %lld lost)",
		 "events", (long long)ev->d.count, ev->d.p50_us, ev->d.p99_us, ev->d.max_us,
		 (long long)ev->lost);
	ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_NORMAL);
	snprintf(line, sizeof(line), "Agreement: %s", d.agreement.verdict);
	put_wrapped(win, &row, bottom, x + 1, cols - 2, line, 2, UI_ROLE_NORMAL);
	if (tr->present && tr->have_latency)
		snprintf(line, sizeof(line), "Tracer %s: worst latency %lld us (threshold %lld us, "
			 "%s); v shows its trace", tr->name, (long long)tr->latency_us,
			 (long long)tr->threshold_us, tr->top_level ? "top level" :
			 "in an instance");
	else if (tr->present)
		snprintf(line, sizeof(line), "Tracer %s: no latency parsed from its trace (see "
			 "the notes); v shows the raw trace", tr->name);
	else
		snprintf(line, sizeof(line), "Tracer: none (event mode)");
	if (row < bottom)
		ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_NORMAL);
	if (hunt->present && row < bottom) {
		if (s->seed_typed)
			snprintf(line, sizeof(line), "Hunt: seed %s, %s injector, %lld sections "
				 "planted. d: diagnose", hunt->seed, hunt->injector,
				 (long long)hunt->planted);
		else
			snprintf(line, sizeof(line), "Hunt: random seed (hidden), %s injector, "
				 "%lld sections planted. d: diagnose", hunt->injector,
				 (long long)hunt->planted);
		ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_SECTION);
	}
	if (row < bottom) {
		snprintf(line, sizeof(line), "Results document: %s", s->run.saved_path ?
			 s->run.saved_path : "not saved");
		ui_frame_put(win, row++, x + 1, line, cols - 2, s->run.saved_path ? UI_ROLE_NORMAL :
			     UI_ROLE_WARN);
	}
	row++;
	if (s->graded)
		row = draw_grade(s, win, row, bottom, x, cols, hunt->seed);
	for (size_t i = 0; res && i < rt_result_note_count(res) && row < bottom; i++) {
		snprintf(line, sizeof(line), "note: %s", rt_result_note(res, i) ?: "");
		ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_DIM);
	}
	if (s->form.open)
		draw_form(s, win, y + 1, x, h - 3, cols);
	status_line(s, win, y + h - 2, x, cols);
	if (s->form.open)
		ui_frame_footer(win, y + h - 1, x, cols, form_keys, sizeof(form_keys) /
				sizeof(form_keys[0]));
	else
		ui_frame_footer(win, y + h - 1, x, cols, keys, sizeof(keys) / sizeof(keys[0]));
}

void ui_lab_ftrace_draw(struct ui_lab_ftrace *s, WINDOW *win, int y, int x, int h, int cols)
{
	switch (s->run.state) {
	case UI_LAB_SETUP:
		draw_setup(s, win, y, x, h, cols);
		break;
	case UI_LAB_RUNNING:
	case UI_LAB_STOPPING:
		draw_running(s, win, y, x, h, cols);
		break;
	case UI_LAB_DONE:
		if (s->viewer) {
			ui_trace_view_draw(s->viewer, win, y, x, h, cols);
			break;
		}
		draw_done(s, win, y, x, h, cols);
		break;
	}
}

/* ---- The screen's entry in ui_lab_screens[] --------------------------------------- */

UI_LAB_SCREEN(ftrace, struct ui_lab_ftrace);
