/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_lab_latency: the live screen of the latency lab.
 *
 * Threads: the UI thread only draws and takes keys. Enter on the setup
 * panel starts one worker thread (ui_lab_run, shared with the other lab
 * screens) that calls lab_latency.run(), exactly what `rtlab lab run
 * latency` does: the run starts the load and the measuring threads, drains
 * their rings into histograms and keeps ctx.live current.
 * The UI reads that model with latency_live_snapshot(), a short copy under
 * the model's lock that the measuring threads never take, so however slow
 * the terminal is, the probe does not wait for it. The worker blocks the
 * stop signals, so SIGINT and friends reach the UI loop, which sets the
 * run's stop flag.
 *
 * Pause (p) freezes what is drawn; the run itself goes on, because a
 * scenario that stops and restarts its clock would no longer measure what
 * its duration says. Skip (s) ends the current scenario early through
 * latency_live_skip(); q stops the whole run the way Ctrl-C stops the CLI:
 * the load and the probe are stopped, the undo journal is replayed, and
 * what was measured is saved as an interrupted document.
 *
 * A finished run is saved at once to the default results path (as the CLI
 * does) and recorded in the progress file with rt_progress_lab_set(); w
 * writes it again (the same file) together with an HTML report beside it.
 */
#include "ui_lab_latency.h"
#include "ui_lab_screen.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/rt_buf.h"
#include "core/rt_file.h"
#include "core/rt_log.h"
#include "core/rt_paths.h"
#include "core/rt_progress.h"
#include "core/rt_result.h"
#include "report/report.h"
#include "lesson/lesson_predict.h"
#include "lesson/lesson_progress.h"
#include "ui_frame.h"
#include "ui_text.h"
#include "ui_theme.h"

#define KEY_ESC 27

/* Durations the +/- keys step through, in seconds. */
static const unsigned int durations_s[] = { 1, 2, 3, 5, 10, 15, 20, 30, 60, 120, 300, 600 };
#define NDURATIONS (sizeof(durations_s) / sizeof(durations_s[0]))

/* ---- Setup model ------------------------------------------------------------- */

static bool rt_kernel(const struct ui_lab_latency *s)
{
	return s->have_doctor && s->doctor.env.realtime;
}

static bool scenario_allowed(const struct ui_lab_latency *s, size_t i)
{
	return !latency_scenarios[i].needs_preempt_rt || rt_kernel(s);
}

/* Whether SCHED_FIFO will be granted, and a sentence saying why (static or @buf). */
static bool rt_permitted(const struct ui_lab_latency *s, char *buf, size_t size)
{
	const struct doctor_priv *pv = &s->doctor.priv;

	if (!s->have_doctor) {
		snprintf(buf, size, "unknown (the machine could not be probed)");
		return false;
	}
	if (pv->sched_fifo == DOCTOR_NO) {
		snprintf(buf, size, "SCHED_OTHER: real-time refused here (%s); FIFO scenarios "
			 "will be measured as SCHED_OTHER",
			 pv->sched_fifo_error ? pv->sched_fifo_error :
			 pv->root ? "root, but the kernel refused" : "not root, no CAP_SYS_NICE");
		return false;
	}
	if (pv->root || pv->cap_sys_nice || pv->sched_fifo == DOCTOR_YES) {
		snprintf(buf, size, "SCHED_FIFO permitted (%s)", pv->root ? "running as root" :
			 pv->cap_sys_nice ? "CAP_SYS_NICE" : "RLIMIT_RTPRIO");
		return true;
	}
	snprintf(buf, size, "SCHED_OTHER: not root and no CAP_SYS_NICE, so FIFO scenarios "
		 "will be measured as SCHED_OTHER");
	return false;
}

/* The predict questions of the lessons that name this lab, with the learner's answers. */
static void load_predictions(struct ui_lab_latency *s)
{
	struct lesson_predict_q *qs = NULL;
	struct rt_progress *prog = NULL;
	char *cause = NULL;
	size_t n = 0;

	if (lesson_predict_list(s->run.lab->name, &qs, &n, &cause) < 0)
		n = 0;
	free(cause);
	cause = NULL;
	if (rt_progress_load(NULL, &prog, &cause) < 0)
		prog = NULL;
	free(cause);
	for (size_t i = 0; i < n && s->npreds < UI_LAB_MAX_PREDICTIONS; i++) {
		struct ui_lab_prediction *p = &s->preds[s->npreds];
		struct rt_progress_prediction pr;

		/* A scenario this lab does not have: the lint reports it; nothing to show. */
		if (!qs[i].scenario || !latency_scenario_find(qs[i].scenario))
			continue;
		snprintf(p->lesson, sizeof(p->lesson), "%s", qs[i].lesson);
		snprintf(p->id, sizeof(p->id), "%s", qs[i].id);
		snprintf(p->scenario, sizeof(p->scenario), "%s", qs[i].scenario);
		snprintf(p->metric, sizeof(p->metric), "%s", qs[i].metric ? qs[i].metric : "");
		snprintf(p->unit, sizeof(p->unit), "%s", qs[i].unit ? qs[i].unit : "");
		p->have = prog && rt_progress_prediction_get(prog, p->lesson, qs[i].id, &pr) == 0;
		p->value = p->have ? pr.value : 0;
		s->npreds++;
	}
	rt_progress_free(prog);
	lesson_predict_list_free(qs, n);
}

static void start_run(void *owner);
static void run_ended(void *owner, int ret);

static const struct ui_lab_run_ops run_ops = {
	.start = start_run,
	.ended = run_ended,
	.stopping = "stopping: the load and the measuring threads are ending",
};

int ui_lab_latency_init(struct ui_lab_latency *s, const struct lab_ops *lab)
{
	struct latency_params defaults;

	memset(s, 0, sizeof(*s));
	ui_lab_run_init(&s->run, lab, &run_ops, s);
	latency_params_init(&defaults);
	s->duration_ms = defaults.duration_ms;
	for (unsigned int i = 0; i < defaults.nplans; i++)
		for (size_t k = 0; k < latency_nscenarios && k < LATENCY_MAX_SCENARIOS; k++)
			if (!strcmp(defaults.plan[i].name, latency_scenarios[k].name))
				s->chosen[k] = true;

	s->have_doctor = ui_lab_run_probe(lab, &s->doctor, &s->dlab);
	load_predictions(s);
	if (latency_live_init(&s->live) == 0)
		s->live_ok = true;
	return s->live_ok ? 0 : -ENOMEM;
}

/* ---- Running --------------------------------------------------------------------- */

/* The chosen scenarios as lab options, parsed by the lab itself. */
static int build_params(struct ui_lab_latency *s, char **cause)
{
	char names[LATENCY_MAX_SCENARIOS * LATENCY_NAME_MAX] = "", dur[32];
	char *argv[6];
	size_t used = 0;

	for (size_t i = 0; i < latency_nscenarios && i < LATENCY_MAX_SCENARIOS; i++) {
		if (!s->chosen[i])
			continue;
		used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
					 used ? "," : "", latency_scenarios[i].name);
	}
	if (!used) {
		*cause = strdup("no scenario is ticked: tick one with Space");
		return -EINVAL;
	}
	snprintf(dur, sizeof(dur), "%ums", s->duration_ms);
	argv[0] = (char *)s->run.lab->name;
	argv[1] = (char *)"--scenario";
	argv[2] = names;
	argv[3] = (char *)"--duration";
	argv[4] = dur;
	argv[5] = NULL;
	return latency_params_parse(5, argv, &s->params, cause);
}

static void start_run(void *owner)
{
	struct ui_lab_latency *s = owner;
	char *cause = NULL;
	size_t cap;
	int ret;

	if (!s->have_doctor || !s->dlab || s->dlab->tier == DOCTOR_TIER_NONE) {
		ui_lab_run_say(&s->run, true, "the lab cannot run here: %s",
			       s->dlab && s->dlab->reason ? s->dlab->reason :
			       "the machine could not be probed");
		return;
	}
	ret = build_params(s, &cause);
	if (ret) {
		ui_lab_run_say(&s->run, true, "%s", cause ? cause : "bad settings");
		free(cause);
		return;
	}
	if (ui_lab_run_prepare(&s->run, &s->doctor, s->dlab, &s->params, &s->live,
			       (uint64_t)time(NULL)))
		return;
	cap = s->params.hist_max_us + 16u;
	free(s->counts);
	s->counts = calloc(cap, sizeof(*s->counts));
	if (!s->counts) {
		ui_lab_run_say(&s->run, true, "out of memory for the plot");
		return;
	}
	/* A fresh model: nothing of the last run may show. */
	latency_live_fini(&s->live);
	s->live_ok = latency_live_init(&s->live) == 0;
	if (!s->live_ok) {
		ui_lab_run_say(&s->run, true, "out of memory");
		return;
	}
	memset(&s->snap, 0, sizeof(s->snap));
	s->snap.counts = s->counts;
	s->snap.cap = cap;
	memset(s->last_pct, 0, sizeof(s->last_pct));
	s->last_index = 0;
	s->paused = false;
	free(s->html_path);
	s->html_path = NULL;

	/* It changes nothing that outlives the process, so it runs without a journal too. */
	if (ui_lab_run_start(&s->run, false) == 0)
		ui_lab_run_say(&s->run, false, "measuring on the lab's own threads; this screen "
			       "only draws");
}

/* The worker has been joined; ui_lab_run saves the document after this. */
static void run_ended(void *owner, int ret)
{
	struct ui_lab_latency *s = owner;

	/* The last state of the model, so the summary's plot is complete. */
	if (s->live_ok)
		latency_live_snapshot(&s->live, &s->snap);
	if (ret)
		ui_lab_run_failed(&s->run, ret);
}

void ui_lab_latency_fini(struct ui_lab_latency *s)
{
	/* First: a run still on is stopped, and saved, while what it uses is here. */
	ui_lab_run_fini(&s->run);
	if (s->live_ok)
		latency_live_fini(&s->live);
	if (s->have_doctor)
		doctor_report_fini(&s->doctor);
	free(s->counts);
	free(s->html_path);
	ui_views_fini(&s->views);
	memset(s, 0, sizeof(*s));
}

/* ---- Keys -------------------------------------------------------------------------- */

static unsigned int duration_step(unsigned int ms, int dir)
{
	size_t i = 0;

	while (i < NDURATIONS && durations_s[i] * 1000u < ms)
		i++;
	if (dir > 0) {
		if (i < NDURATIONS && durations_s[i] * 1000u == ms)
			i++;
		return durations_s[i < NDURATIONS ? i : NDURATIONS - 1] * 1000u;
	}
	return durations_s[i > 0 ? i - 1 : 0] * 1000u;
}

static void setup_key(struct ui_lab_latency *s, int key)
{
	unsigned int n = (unsigned int)latency_nscenarios;

	switch (key) {
	case KEY_DOWN:
	case 'j':
		if (s->cursor + 1 < n)
			s->cursor++;
		break;
	case KEY_UP:
	case 'k':
		if (s->cursor > 0)
			s->cursor--;
		break;
	case KEY_HOME:
	case 'g':
		s->cursor = 0;
		break;
	case KEY_END:
	case 'G':
		s->cursor = n ? n - 1 : 0;
		break;
	case ' ':
	case 'x':
		if (!scenario_allowed(s, s->cursor)) {
			ui_lab_run_say(&s->run, true, "%s needs a PREEMPT_RT kernel, and this one "
				       "is not", latency_scenarios[s->cursor].name);
			break;
		}
		s->chosen[s->cursor] = !s->chosen[s->cursor];
		break;
	case 'a':
		for (unsigned int i = 0; i < n; i++)
			s->chosen[i] = scenario_allowed(s, i);
		break;
	case 'c':
		memset(s->chosen, 0, sizeof(s->chosen));
		break;
	case '+':
	case '=':
	case KEY_RIGHT:
		s->duration_ms = duration_step(s->duration_ms, +1);
		break;
	case '-':
	case KEY_LEFT:
		s->duration_ms = duration_step(s->duration_ms, -1);
		break;
	default:
		break;
	}
}

static void write_html(struct ui_lab_latency *s)
{
	struct rt_buf b = RT_BUF_INIT;
	char *path = NULL, *cause = NULL;
	size_t len = strlen(s->run.saved_path);
	int ret;

	if (len > 5 && !strcmp(s->run.saved_path + len - 5, ".json"))
		ret = asprintf(&path, "%.*s.html", (int)(len - 5), s->run.saved_path);
	else
		ret = asprintf(&path, "%s.html", s->run.saved_path);
	if (ret < 0)
		return;
	ret = report_html(ui_lab_run_result(&s->run), &b);
	if (!ret)
		ret = rt_file_write_atomic(path, rt_buf_str(&b), b.len, 0644, &cause);
	if (!ret) {
		free(s->html_path);
		s->html_path = path;
		path = NULL;
	} else {
		rt_log(RT_LOG_WARN, "latency: no HTML report: %s", cause ? cause : strerror(-ret));
	}
	free(cause);
	free(path);
	rt_buf_fini(&b);
}

static void running_key(struct ui_lab_latency *s, int key)
{
	switch (key) {
	case 'p':
	case ' ':
		s->paused = !s->paused;
		ui_lab_run_say(&s->run, false, "%s", s->paused ? "display paused; the measurement "
			       "goes on (p resumes)" : "display resumed");
		break;
	case 's':
		latency_live_skip(&s->live);
		ui_lab_run_say(&s->run, false, "ending %s early, going on with the next scenario",
			       s->snap.scenario[0] ? s->snap.scenario : "this scenario");
		break;
	case 'w':
		ui_lab_run_say(&s->run, false, "the results are saved when the run ends; q stops "
			       "it now and saves what was measured");
		break;
	default:
		break;
	}
}

/* w on the summary: the document again (the same file), and an HTML report beside it. */
static void save_again(struct ui_lab_latency *s)
{
	if (ui_lab_run_save(&s->run, true))
		return;
	write_html(s);
	ui_lab_run_say(&s->run, false, "saved to %s%s%s", s->run.saved_path,
		       s->html_path ? " and " : "", s->html_path ? s->html_path : "");
	rt_log(RT_LOG_INFO, "latency: results saved to %s", s->run.saved_path);
}

enum ui_lab_action ui_lab_latency_key(struct ui_lab_latency *s, int key)
{
	enum ui_lab_action act;

	if (ui_lab_run_key(&s->run, key, &act))
		return act;
	switch (s->run.state) {
	case UI_LAB_SETUP:
		setup_key(s, key);
		break;
	case UI_LAB_RUNNING:
		running_key(s, key);
		break;
	case UI_LAB_STOPPING:
		break;
	case UI_LAB_DONE:
		if (key == 'w')
			save_again(s);
		else
			ui_views_key(&s->views, key);
		break;
	}
	return UI_LAB_NONE;
}

/* ---- Drawing helpers --------------------------------------------------------------- */

static void status_line(struct ui_lab_latency *s, WINDOW *win, int y, int x, int cols)
{
	if (s->run.message[0])
		ui_frame_put(win, y, x + 1, s->run.message, cols - 2,
			     s->run.message_warn ? UI_ROLE_WARN : UI_ROLE_DIM);
}

static void fmt_us(char *buf, size_t size, double ns)
{
	snprintf(buf, size, "%.1f", ns / 1000.0);
}

/* ---- Setup panel ------------------------------------------------------------------- */

static const struct ui_lab_prediction *prediction_for(const struct ui_lab_latency *s,
						      const char *scenario, unsigned int *from)
{
	for (unsigned int i = *from; i < s->npreds; i++)
		if (!strcmp(s->preds[i].scenario, scenario)) {
			*from = i + 1;
			return &s->preds[i];
		}
	return NULL;
}

static void draw_setup(struct ui_lab_latency *s, WINDOW *win, int y, int x, int h, int cols)
{
	static const char *const keys[] = {
		"Space", "tick", "+/-", "duration", "Enter", "measure", "?", "help",
		"q", "back",
	};
	char line[512], why[256];
	unsigned int total = 0, probes = 0, shown = 0;
	int row = y, bottom = y + h - 2;
	bool permitted;

	ui_frame_bar(win, row, x, cols, UI_ROLE_TITLE);
	ui_frame_put(win, row, x + 1, "Latency lab: choose the scenarios, then Enter to measure",
		     cols - 2, UI_ROLE_TITLE);
	row += 2;
	if (s->have_doctor) {
		const struct rt_env *e = &s->doctor.env;

		snprintf(line, sizeof(line), "This machine: kernel %s, preemption %s%s%s",
			 e->kernel_release ? e->kernel_release : "?",
			 e->preempt_model ? e->preempt_model : "unknown",
			 e->in_vm ? ", inside a VM: " : ", not a VM",
			 e->in_vm && e->vm_type ? e->vm_type : "");
		ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_NORMAL);
		if (e->virtual_time)
			ui_frame_put(win, row++, x + 1, "VIRTUAL TIME: clock counts instructions; "
				     "figures are the kernel's", cols - 2, UI_ROLE_WARN);
	}
	permitted = rt_permitted(s, why, sizeof(why));
	ui_frame_put(win, row, x + 1, "Real-time: ", cols - 2, UI_ROLE_LABEL);
	ui_frame_put(win, row++, x + 12, why, cols - 13, permitted ? UI_ROLE_READY : UI_ROLE_WARN);
	row++;
	for (unsigned int i = 0; i < latency_nscenarios; i++) {
		total += s->chosen[i];
		probes += s->chosen[i] && !latency_scenarios[i].throughput;
	}
	{
		/*
		 * More scenarios than rows: a window that follows the cursor, with room
		 * left below it for the duration lines and a few predictions.
		 */
		unsigned int n = (unsigned int)latency_nscenarios;
		unsigned int avail = bottom - row > 11 ? (unsigned int)(bottom - row - 8) : 3;
		unsigned int first = s->cursor >= avail ? s->cursor - avail + 1 : 0;

		if (avail >= n)
			snprintf(line, sizeof(line), "Scenarios");
		else
			snprintf(line, sizeof(line), "Scenarios %u-%u of %u (Up/Down scroll)",
				 first + 1, first + avail < n ? first + avail : n, n);
		ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_SECTION);
		for (unsigned int i = first; i < n && i < first + avail && row < bottom; i++, row++) {
			const struct latency_scenario *sc = &latency_scenarios[i];
			bool sel = i == s->cursor, ok = scenario_allowed(s, i);
			enum ui_role role = sel ? UI_ROLE_SELECTED : ok ? UI_ROLE_NORMAL :
					    UI_ROLE_DIM;

			if (sel)
				ui_frame_bar(win, row, x, cols, UI_ROLE_SELECTED);
			snprintf(line, sizeof(line), "[%c] %-24s %s%s", s->chosen[i] ? 'x' : ' ',
				 sc->name, ok ? "" : "(needs PREEMPT_RT) ", sc->summary);
			ui_frame_put(win, row, x + 2, line, cols - 3, role);
		}
	}
	row++;
	snprintf(line, sizeof(line), "Duration per scenario: %u s (+/- to change); %u scenario%s, "
		 "about %u s in all", s->duration_ms / 1000, total, total == 1 ? "" : "s",
		 total * (s->duration_ms / 1000 + 1));
	if (row < bottom)
		ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_NORMAL);
	/*
	 * 10,000 wake-ups at 1 ms take 10 s, and start-up costs a few: below 12 s, say so
	 * when a chosen scenario has a probe (the throughput scenario counts operations).
	 */
	if (s->duration_ms < 12000 && probes && row < bottom)
		ui_frame_put(win, row++, x + 1, "  too short to grade: `rtlab grade` wants 10,000 "
			     "samples per scenario, 12 s or more at 1 ms", cols - 2, UI_ROLE_WARN);
	row++;
	if (row < bottom)
		ui_frame_put(win, row++, x + 1, "Your predictions for these scenarios", cols - 2,
			     UI_ROLE_SECTION);
	for (unsigned int i = 0; i < latency_nscenarios && row < bottom; i++) {
		const struct ui_lab_prediction *p;
		unsigned int from = 0;

		if (!s->chosen[i])
			continue;
		while (row < bottom &&
		       (p = prediction_for(s, latency_scenarios[i].name, &from)) != NULL) {
			if (p->have)
				snprintf(line, sizeof(line), "%-24s %s: you predicted %g %s "
					 "(lesson %s)", p->scenario, p->metric, p->value, p->unit,
					 p->lesson);
			else
				snprintf(line, sizeof(line), "%-24s %s: no prediction yet (lesson %s, "
					 "question %s)", p->scenario, p->metric, p->lesson, p->id);
			ui_frame_put(win, row++, x + 3, line, cols - 4,
				     p->have ? UI_ROLE_NORMAL : UI_ROLE_DIM);
			shown++;
		}
	}
	if (!shown && row < bottom)
		ui_frame_put(win, row++, x + 3,
			     "(no predict question of the lessons is about the ticked "
			     "scenarios)", cols - 4, UI_ROLE_DIM);
	status_line(s, win, y + h - 2, x, cols);
	ui_frame_footer(win, y + h - 1, x, cols, keys, sizeof(keys) / sizeof(keys[0]));
}

/* ---- Live run ------------------------------------------------------------------------ */

static const char *plan_policy_name(int policy)
{
	return policy == SCHED_FIFO ? "SCHED_FIFO" : policy == SCHED_RR ? "SCHED_RR" :
	       policy == SCHED_DEADLINE ? "SCHED_DEADLINE" : "SCHED_OTHER";
}

/* One progress bar per scenario, around the current one when they do not all fit. */
static int draw_progress(struct ui_lab_latency *s, WINDOW *win, int y, int x, int cols,
			 int maxrows)
{
	const struct latency_live_snap *sn = &s->snap;
	unsigned int n = s->params.nplans, first = 0, rows;
	const char *full = ui_text_glyph("\xe2\x96\x88", "#");
	const char *empty = ui_text_glyph("\xc2\xb7", ".");

	if (sn->index < LATENCY_MAX_SCENARIOS && (sn->running || sn->pct)) {
		for (unsigned int i = s->last_index; i < sn->index; i++)
			s->last_pct[i] = 100;	/* ended, maybe early: full */
		s->last_pct[sn->index] = sn->pct;
		s->last_index = sn->index;
	}
	rows = n < (unsigned int)maxrows ? n : (unsigned int)maxrows;
	if (sn->index >= rows)
		first = sn->index - rows + 1;
	for (unsigned int r = 0; r < rows; r++) {
		unsigned int i = first + r, pct = s->last_pct[i];
		int bw = cols - 2 - 26 - 16, fill;
		const char *state = i < sn->index || (i == sn->index && !sn->running && pct) ?
				    "done" : i == sn->index ? "measuring" : "waiting";
		char tail[32];

		if (bw < 10)
			bw = 10;
		fill = (int)((long)bw * pct / 100);
		ui_frame_put(win, y + (int)r, x + 1, s->params.plan[i].name, 24,
			     i == sn->index ? UI_ROLE_LABEL : UI_ROLE_NORMAL);
		wmove(win, y + (int)r, x + 26);
		wattron(win, ui_theme_attr(UI_ROLE_READY));
		for (int c = 0; c < fill; c++)
			waddstr(win, full);
		wattroff(win, ui_theme_attr(UI_ROLE_READY));
		wattron(win, ui_theme_attr(UI_ROLE_DIM));
		for (int c = fill; c < bw; c++)
			waddstr(win, empty);
		wattroff(win, ui_theme_attr(UI_ROLE_DIM));
		snprintf(tail, sizeof(tail), " %3u%% %s", pct, state);
		ui_frame_put(win, y + (int)r, x + 26 + bw, tail, cols - 27 - bw, UI_ROLE_NORMAL);
	}
	return (int)rows;
}

static int draw_table(struct ui_lab_latency *s, WINDOW *win, int y, int x, int cols, int maxrows)
{
	const struct latency_live_snap *sn = &s->snap;
	char line[256], cur[16], mn[16], avg[16], mx[16], p99[24];
	bool few = false;
	int row = 0;

	snprintf(line, sizeof(line), "%-7s %7s %9s %9s %9s %9s %8s %10s %7s", "thread", "tid",
		 "cur us", "min us", "avg us", "max us", "p99 us", "samples", "drops");
	ui_frame_put(win, y + row++, x + 1, line, cols - 2, UI_ROLE_LABEL);
	for (unsigned int t = 0; t < sn->nthreads && row < maxrows; t++, row++) {
		const struct latency_live_thread *lt = &sn->threads[t];

		if (lt->samples) {
			fmt_us(cur, sizeof(cur), (double)lt->cur_ns);
			fmt_us(mn, sizeof(mn), (double)lt->min_ns);
			fmt_us(avg, sizeof(avg), lt->avg_ns);
			fmt_us(mx, sizeof(mx), (double)lt->max_ns);
			latency_pct_text(p99, sizeof(p99), (double)lt->p99_us,
					 (double)lt->p99_resolution_us, false, true);
		} else {
			snprintf(cur, sizeof(cur), "-");
			snprintf(mn, sizeof(mn), "-");
			snprintf(avg, sizeof(avg), "-");
			snprintf(mx, sizeof(mx), "-");
			snprintf(p99, sizeof(p99), "-");
		}
		snprintf(line, sizeof(line), "T%-6u %7d %9s %9s %9s %9s %8s %10llu %7llu", t,
			 lt->tid, cur, mn, avg, mx, p99, (unsigned long long)lt->samples,
			 (unsigned long long)lt->drops);
		ui_frame_put(win, y + row, x + 1, line, cols - 2,
			     lt->drops ? UI_ROLE_WARN : UI_ROLE_NORMAL);
		/* A p99 with fewer than 100 samples beyond it is drawn grey (lesson 03). */
		if (lt->samples && !lt->p99_meaningful) {
			int off = snprintf(NULL, 0, "T%-6u %7d %9s %9s %9s %9s ", t, lt->tid, cur,
					   mn, avg, mx);

			snprintf(line, sizeof(line), "%8s", p99);
			if (off > 0 && off < cols - 2)
				ui_frame_put(win, y + row, x + 1 + off, line, cols - 2 - off,
					     UI_ROLE_DIM);
			few = true;
		}
	}
	if (few && row < maxrows)
		ui_frame_put(win, y + row++, x + 1, "grey p99: fewer than 100 samples beyond it "
			     "so far (10,000 in all), too few to quote", cols - 2, UI_ROLE_DIM);
	return row;
}

/* 1, 2, 5, 10, 20, 50 ... at or above @v. */
static unsigned int nice_ceil(unsigned int v)
{
	unsigned int m = 1;

	for (;;) {
		if (v <= m)
			return m;
		if (v <= 2 * m)
			return 2 * m;
		if (v <= 5 * m)
			return 5 * m;
		if (m > UINT_MAX / 20)
			return v;
		m *= 10;
	}
}

static void count_label(char *buf, size_t size, int decade)
{
	static const char *const names[] = { "1", "10", "100", "1k", "10k", "100k", "1M",
					     "10M", "100M", "1G" };

	snprintf(buf, size, "%s", decade >= 0 && decade < 10 ? names[decade] : "");
}

/*
 * The OSADL-style plot: x is latency in microseconds, linear from 0 to a
 * round number past the largest sample; y is the count on a log scale, so a
 * single late wake-up still shows as a one-row bar next to ten thousand
 * punctual ones.
 */
static void draw_plot(struct ui_lab_latency *s, WINDOW *win, int y, int x, int h, int cols)
{
	const struct latency_live_snap *sn = &s->snap;
	const char *block = ui_text_glyph("\xe2\x96\x88", "#");
	unsigned int nb = sn->nbuckets < sn->cap ? sn->nbuckets : (unsigned int)sn->cap;
	unsigned int last = 0, xmax, ncols;
	uint64_t maxc = 0;
	int lw = 5, ph = h - 3, decades;
	char title[160], lab[16];

	if (h < 6 || cols < 30)
		return;
	for (unsigned int i = 0; i < nb; i++)
		if (sn->counts[i]) {
			last = i;
			if (sn->counts[i] > maxc)
				maxc = sn->counts[i];
		}
	snprintf(title, sizeof(title), "Latency histogram, %s, all threads (x: us, linear; "
		 "y: count, log)", sn->scenario[0] ? sn->scenario : "waiting for samples");
	ui_frame_put(win, y, x + 1, title, cols - 2, UI_ROLE_SECTION);
	if (sn->overflow) {
		snprintf(title, sizeof(title), " +%llu above %u us",
			 (unsigned long long)sn->overflow, nb ? nb - 1 : 0);
		ui_frame_put(win, y, x + cols - 1 - ui_text_width(title), title,
			     ui_text_width(title), UI_ROLE_WARN);
	}
	ncols = (unsigned int)(cols - lw - 3);
	xmax = nice_ceil(last + 1 < 10 ? 10 : last + 1);
	if (xmax > nb && nb)
		xmax = nb;
	decades = maxc ? (int)ceil(log10((double)maxc + 0.5)) : 1;
	if (decades < 1)
		decades = 1;
	/* A label at the top of where a bar of 10^d would end, for each d. */
	for (int d = 0; d <= decades && d < 10; d++) {
		int ry = y + ph - (int)ceil((d + 1.0) / (decades + 1) * ph) + 1;

		count_label(lab, sizeof(lab), d);
		if (ry >= y + 1)
			ui_frame_put(win, ry, x + 1, lab, lw - 1, UI_ROLE_DIM);
	}
	wattron(win, ui_theme_attr(UI_ROLE_DIM));
	mvwvline_set(win, y + 1, x + lw, WACS_VLINE, ph);
	mvwhline_set(win, y + 1 + ph, x + lw, WACS_HLINE, (int)ncols + 1);
	mvwadd_wch(win, y + 1 + ph, x + lw, WACS_LLCORNER);
	wattroff(win, ui_theme_attr(UI_ROLE_DIM));
	for (unsigned int c = 0; c < ncols && nb; c++) {
		unsigned int lo = (unsigned int)((uint64_t)c * xmax / ncols);
		unsigned int hi = (unsigned int)((uint64_t)(c + 1) * xmax / ncols);
		uint64_t sum = 0;
		int rows;

		if (hi <= lo)
			hi = lo + 1;
		for (unsigned int b = lo; b < hi && b < nb; b++)
			sum += sn->counts[b];
		if (!sum)
			continue;
		/* A count of 1 gets one row; each power of ten adds ph / (decades + 1). */
		rows = (int)ceil((log10((double)sum) + 1.0) / (decades + 1) * ph);
		if (rows < 1)
			rows = 1;
		if (rows > ph)
			rows = ph;
		wattron(win, ui_theme_attr(UI_ROLE_READY));
		for (int r = 0; r < rows; r++)
			mvwaddstr(win, y + ph - r, x + lw + 1 + (int)c, block);
		wattroff(win, ui_theme_attr(UI_ROLE_READY));
	}
	/* x labels: 0, the middle and the end. */
	ui_frame_put(win, y + 2 + ph, x + lw, "0", 2, UI_ROLE_DIM);
	snprintf(lab, sizeof(lab), "%u", xmax / 2);
	ui_frame_put(win, y + 2 + ph, x + lw + 1 + (int)ncols / 2 - ui_text_width(lab) / 2, lab, 8,
		     UI_ROLE_DIM);
	snprintf(lab, sizeof(lab), "%u us", xmax);
	ui_frame_put(win, y + 2 + ph, x + lw + 1 + (int)ncols - ui_text_width(lab), lab, 12,
		     UI_ROLE_DIM);
}

static void draw_running(struct ui_lab_latency *s, WINDOW *win, int y, int x, int h, int cols)
{
	static const char *const keys[] = {
		"p", "pause", "s", "next scenario", "q", "stop", "?", "help",
	};
	const struct latency_live_snap *sn = &s->snap;
	char line[512];
	int row = y, bottom = y + h - 2, maxbars;
	const struct latency_plan *plan = NULL;
	const char *pol;

	if (!s->paused && s->live_ok)
		latency_live_snapshot(&s->live, &s->snap);
	pol = sn->policy ? sn->policy : "other";
	if (sn->index < s->params.nplans)
		plan = &s->params.plan[sn->index];
	ui_frame_bar(win, row, x, cols, UI_ROLE_TITLE);
	snprintf(line, sizeof(line), "Latency lab: %s %s (%u of %u), %s%s",
		 s->run.state == UI_LAB_STOPPING ? "stopping" : sn->running ? "measuring" :
		 "starting",
		 sn->scenario[0] ? sn->scenario : s->params.plan[0].name, sn->index + 1,
		 s->params.nplans, sn->scenario[0] ? plan_policy_name(
			 !strcmp(pol, "fifo") ? SCHED_FIFO : !strcmp(pol, "rr") ? SCHED_RR :
			 !strcmp(pol, "deadline") ? SCHED_DEADLINE : SCHED_OTHER) : "", s->paused ? "  [PAUSED: display frozen]" : "");
	ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_TITLE);
	/* The warning row: an RT policy asked for but refused. */
	if (plan && plan->policy != SCHED_OTHER && sn->scenario[0] && !strcmp(pol, "other")) {
		snprintf(line, sizeof(line), "SCHED_OTHER: real-time refused (%s); this scenario "
			 "is measured as SCHED_OTHER, and the document says so",
			 s->have_doctor && !s->doctor.priv.root ? "not root" :
			 "the kernel said no");
		ui_frame_put(win, row, x + 1, line, cols - 2, UI_ROLE_WARN);
	}
	row += 2;
	maxbars = h / 5 > 1 ? h / 5 : 1;
	row += draw_progress(s, win, row, x, cols, maxbars);
	row++;
	if (sn->throughput) {
		/* No probe, no histogram: what runs now, and where the figures will be. */
		ui_frame_put(win, row++, x + 1, sn->activity, cols - 2, UI_ROLE_NORMAL);
		ui_frame_put(win, row++, x + 1, "No latency is measured in this scenario: work "
			     "per second, shown in the throughput table at the end.", cols - 2,
			     UI_ROLE_DIM);
	} else {
		row += draw_table(s, win, row, x, cols, 2 + (h / 6 > 1 ? h / 6 : 1));
		row++;
		draw_plot(s, win, row, x, bottom - row, cols);
	}
	status_line(s, win, y + h - 2, x, cols);
	ui_frame_footer(win, y + h - 1, x, cols, keys, sizeof(keys) / sizeof(keys[0]));
}

/* ---- Summary --------------------------------------------------------------------------- */

static void draw_done(struct ui_lab_latency *s, WINDOW *win, int y, int x, int h, int cols)
{
	static const char *const keys[] = {
		"w", "save (+HTML)", "r", "new run", "arrows", "scroll", "?", "help", "q", "back",
	};
	const struct rt_result *res = ui_lab_run_result(&s->run);
	int row = y, bottom = y + h - 2, tail = s->html_path ? 3 : 2;
	char line[512];

	ui_frame_bar(win, row, x, cols, UI_ROLE_TITLE);
	snprintf(line, sizeof(line), "Latency lab: %s", ui_lab_run_interrupted(&s->run) ?
		 "stopped early, partial results" : "done");
	ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_TITLE);
	row++;
	/* The same tables `rtlab lab run` prints: the document's views. */
	if (s->views_of != res) {
		if (ui_views_load(&s->views, res))
			ui_lab_run_say(&s->run, true, "out of memory for the summary");
		s->views_of = res;
	}
	if (bottom - tail - row > 0)
		ui_views_draw(&s->views, win, row, x, bottom - tail - row, cols);
	row = bottom - tail;
	snprintf(line, sizeof(line), "Results document: %s", s->run.saved_path ?
		 s->run.saved_path : "not saved (press w)");
	ui_frame_put(win, row++, x + 1, line, cols - 2,
		     s->run.saved_path ? UI_ROLE_NORMAL : UI_ROLE_WARN);
	if (s->html_path) {
		snprintf(line, sizeof(line), "HTML report: %s", s->html_path);
		ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_NORMAL);
	}
	ui_frame_put(win, row++, x + 1, "Grade it with: rtlab grade FILE; pictures with: rtlab "
		     "lab report FILE --html F", cols - 2, UI_ROLE_DIM);
	status_line(s, win, y + h - 2, x, cols);
	ui_frame_footer(win, y + h - 1, x, cols, keys, sizeof(keys) / sizeof(keys[0]));
}

void ui_lab_latency_draw(struct ui_lab_latency *s, WINDOW *win, int y, int x, int h, int cols)
{
	if (s->run.state != UI_LAB_DONE)
		s->views_of = NULL;	/* the next summary is of another document */
	switch (s->run.state) {
	case UI_LAB_SETUP:
		draw_setup(s, win, y, x, h, cols);
		break;
	case UI_LAB_RUNNING:
	case UI_LAB_STOPPING:
		draw_running(s, win, y, x, h, cols);
		break;
	case UI_LAB_DONE:
		draw_done(s, win, y, x, h, cols);
		break;
	}
}

/* ---- The screen's entry in ui_lab_screens[] --------------------------------------- */

static const struct ui_help_line latency_help[] = {
	{ NULL, "Latency lab: setup" },
	{ "Up, k / Down, j", "move between the scenarios" },
	{ "Space / a / c", "tick or untick / tick all / clear all" },
	{ "+ / -", "longer / shorter duration per scenario" },
	{ "Enter, r", "start measuring the ticked scenarios" },
	{ NULL, "Latency lab: while measuring" },
	{ "p", "pause the display; measuring goes on" },
	{ "s", "end this scenario now, go on with the next" },
	{ "q, Esc", "stop the run, save what was measured, back" },
	{ NULL, "Latency lab: summary" },
	{ "arrows, PgUp/PgDn", "scroll the tables" },
	{ "w", "save again, plus an HTML report" },
	{ "r, Enter", "back to the setup for another run" },
	{ "q, Esc", "back to the menu" },
	{ NULL, NULL },
};

const struct ui_help_line *ui_lab_latency_help(const struct ui_lab_latency *s)
{
	(void)s;
	return latency_help;
}

UI_LAB_SCREEN(latency, struct ui_lab_latency);
