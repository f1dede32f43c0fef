/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_main: owns the terminal. It checks that there is a usable one before
 * curses touches it, routes rt_log away from stderr while the menu is up,
 * and runs the key loop that hands keys to the screen on top: the help
 * overlay, else the lesson reader, else a lab screen, else a details pane, else the menu.
 * Everything is redrawn from the models after each key, so a resize needs no special code
 * beyond re-reading the size. While a lab measures, the loop wakes ten times a second to
 * redraw its live model (the lab runs on threads of its own, so drawing never holds it up).
 *
 * `rtlab trace view` runs the trace viewer alone through the same terminal
 * setup (term_open/term_close) and the same too-small and help handling.
 *
 * q in the menu asks before it quits once the session has something a quit
 * would end or lose: a lab run in this session (its document is saved when
 * the lab screen closes, but the learner who pressed q twice to go "back"
 * lost the session twice), a run that is still on, or a run whose document
 * could not be saved. y quits; any other key stays. A fresh session with
 * nothing done quits at once, as before.
 *
 * The terminal is restored on every way out: a quit, SIGINT, SIGTERM or
 * SIGHUP. The signal handlers only set a flag; the loop polls for keys with
 * a timeout, so it notices the flag within a fraction of a second and leaves
 * through the same endwin() path as a normal quit.
 */
#include "ui.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curses.h>

#include "core/rt_env.h"
#include "core/rt_log.h"
#include "core/rt_version.h"
#include "labs/lab.h"
#include "lesson/lesson_index.h"
#include "trace/trace_explain.h"
#include "ui_details.h"
#include "ui_help.h"
#include "ui_lab_screen.h"
#include "ui_log.h"
#include "ui_menu.h"
#include "ui_reader.h"
#include "ui_slides.h"
#include "ui_text.h"
#include "ui_theme.h"
#include "ui_trace_view.h"

/* Last: it defines macros such as "lines" that clash with field names. */
#include <term.h>

#define UI_MIN_COLS 80
#define UI_MIN_LINES 24
#define UI_POLL_MS 200
#define UI_LIVE_POLL_MS 100	/* 10 Hz while a lab measures */
#define KEY_CTRL(c) ((c) & 0x1f)

static volatile sig_atomic_t ui_stop_signal;

static void ui_on_signal(int sig)
{
	ui_stop_signal = sig;
}

struct ui_app {
	struct ui_menu menu;
	struct ui_details details;
	struct ui_reader reader;
	const struct ui_lab_screen_ops *lab_ops;	/* the open lab screen's, or NULL */
	void *lab_screen;			/* owned: its state, while open */
	bool details_open;
	bool reader_open;
	bool help_open;
	bool ran_lab;				/* a lab screen ran a lab this session */
	bool lost_result;			/* ...and a run's document was not saved */
	bool confirm_quit;			/* q in the menu: asking y/n */
	bool quit;
};

static const int ui_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define UI_NSIGNALS (sizeof(ui_signals) / sizeof(ui_signals[0]))

/*
 * Installed before newterm(): ncurses then leaves SIGINT and SIGTERM to us
 * instead of adding its own handlers. No SA_RESTART, so a blocked read ends.
 */
static void signals_install(struct sigaction *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = ui_on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < UI_NSIGNALS; i++)
		sigaction(ui_signals[i], &sa, &old[i]);
}

static void signals_restore(const struct sigaction *old)
{
	for (size_t i = 0; i < UI_NSIGNALS; i++)
		sigaction(ui_signals[i], &old[i], NULL);
}

/* Why this terminal cannot show the menu, or NULL when it looks usable. */
static const char *terminal_problem(char *buf, size_t size)
{
	const char *term = getenv("TERM");

	if (!isatty(STDIN_FILENO))
		return "standard input is not a terminal";
	if (!isatty(STDOUT_FILENO))
		return "standard output is not a terminal";
	if (!term || !*term)
		return "TERM is not set, so the terminal type is unknown";
	if (strcmp(term, "dumb") == 0) {
		snprintf(buf, size, "TERM=%s cannot move the cursor, so it cannot draw the menu",
			 term);
		return buf;
	}
	return NULL;
}

/*
 * Home and End have several encodings, and the terminfo entry of TERM often
 * lists only one: tmux, screen and the Linux console send ESC [1~ and ESC [4~
 * even where TERM says xterm (ESC OH). Teach curses the usual ones it does
 * not know yet, so the keys work wherever the learner's TERM is a bit off.
 */
static void define_home_end(void)
{
	static const struct {
		const char *seq;
		int key;
	} extra[] = {
		{ "\033[1~", KEY_HOME }, { "\033[7~", KEY_HOME }, { "\033[H", KEY_HOME },
		{ "\033OH", KEY_HOME }, { "\033[4~", KEY_END }, { "\033[8~", KEY_END },
		{ "\033[F", KEY_END }, { "\033OF", KEY_END },
	};

	for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++)
		if (key_defined(extra[i].seq) == 0)
			define_key(extra[i].seq, extra[i].key);
}

/* @what: "the menu", "the trace viewer"; @hint: what works without a terminal. */
static void refuse(const char *what, const char *why, const char *hint)
{
	rt_log(RT_LOG_ERR, "cannot open %s: %s", what, why);
	rt_log(RT_LOG_INFO, "%s", hint);
}

/* ---- Drawing -------------------------------------------------------------- */

static void draw_too_small(void)
{
	char line[96];
	int y = LINES / 2 - 1;

	snprintf(line, sizeof(line), "terminal too small: need %dx%d, have %dx%d", UI_MIN_COLS,
		 UI_MIN_LINES, COLS, LINES);
	if (y < 0)
		y = 0;
	attron(ui_theme_attr(UI_ROLE_WARN));
	ui_text_put(stdscr, y, COLS > (int)strlen(line) ? (COLS - (int)strlen(line)) / 2 : 0, line,
		    COLS);
	attroff(ui_theme_attr(UI_ROLE_WARN));
	snprintf(line, sizeof(line), "enlarge the window, or press q to quit");
	if (y + 2 < LINES)
		ui_text_put(stdscr, y + 2,
			    COLS > (int)strlen(line) ? (COLS - (int)strlen(line)) / 2 : 0, line,
			    COLS);
}

static void draw_bar(int y, enum ui_role role)
{
	attron(ui_theme_attr(role));
	mvhline(y, 0, ' ', COLS);
	attroff(ui_theme_attr(role));
}

static void draw_title(const struct ui_menu *m)
{
	char right[64];
	int rw;

	draw_bar(0, UI_ROLE_TITLE);
	static int virtual_time = -1;

	if (virtual_time < 0)
		virtual_time = rt_env_virtual_time();
	/* A virtual-time guest says so on every screen: its figures are not this machine's. */
	snprintf(right, sizeof(right), "%s%s%zu lessons %s %zu labs ",
		 virtual_time ? "VIRTUAL TIME " : "",
		 virtual_time ? ui_text_glyph("\xc2\xb7 ", "- ") : "", ui_menu_lesson_count(m),
		 ui_text_glyph("\xc2\xb7", "-"), ui_menu_lab_count(m));
	rw = ui_text_width(right);
	attron(ui_theme_attr(UI_ROLE_TITLE));
	ui_text_put(stdscr, 0, 1, "rtlab " RT_VERSION ": learn real-time Linux by measuring it",
		    COLS - rw - 3);
	ui_text_put(stdscr, 0, COLS - rw, right, rw);
	attroff(ui_theme_attr(UI_ROLE_TITLE));
}

/* The footer: pairs of key and action, keys highlighted. */
static void draw_footer(const struct ui_app *app)
{
	static const char *const menu_keys[] = {
		"\xe2\x86\x91\xe2\x86\x93", "^v", "move", "Enter", NULL, "open",
		"i", NULL, "details", "?", NULL, "help", "q", NULL, "quit",
	};
	static const char *const details_keys[] = {
		"\xe2\x86\x91\xe2\x86\x93", "^v", "scroll", "Esc", NULL, "close",
		"?", NULL, "help", "q", NULL, "close",
	};
	static const char *const help_keys[] = {
		"any key", NULL, "close this help",
	};
	const char *const *keys = app->help_open ? help_keys :
				  app->details_open ? details_keys : menu_keys;
	size_t n = app->help_open ? 3 : app->details_open ? 12 : 15;
	int x = 1;

	for (size_t i = 0; i + 2 < n + 1 && x < COLS - 2; i += 3) {
		const char *k = keys[i + 1] ? ui_text_glyph(keys[i], keys[i + 1]) : keys[i];

		attron(ui_theme_attr(UI_ROLE_KEY));
		mvaddch(LINES - 1, x, ' ');
		x += 1 + ui_text_put(stdscr, LINES - 1, x + 1, k, COLS - x - 2);
		addch(' ');
		x++;
		attroff(ui_theme_attr(UI_ROLE_KEY));
		attron(ui_theme_attr(UI_ROLE_FOOTER));
		x += 1 + ui_text_put(stdscr, LINES - 1, x + 1, keys[i + 2], COLS - x - 2);
		attroff(ui_theme_attr(UI_ROLE_FOOTER));
		x += 2;
	}
}

/* The status line: the last log message, else a hint about the selection. */
static void draw_status(const struct ui_app *app)
{
	const struct ui_row *row = ui_menu_selected(&app->menu);
	enum rt_log_level level;
	char msg[512];
	const char *hint = NULL;

	if (app->confirm_quit) {
		attron(ui_theme_attr(UI_ROLE_WARN));
		ui_text_put(stdscr, LINES - 2, 1, app->lost_result ?
			    "Quit rtlab? A run's results were NOT saved (see the log). "
			    "y quits, any other key stays" :
			    "Quit rtlab? You ran a lab (its results are saved). "
			    "y quits, any other key stays", COLS - 2);
		attroff(ui_theme_attr(UI_ROLE_WARN));
		return;
	}
	if (ui_log_last(msg, sizeof(msg), &level)) {
		attron(ui_theme_attr(level <= RT_LOG_WARN ? UI_ROLE_WARN : UI_ROLE_DIM));
		mvaddstr(LINES - 2, 1, level <= RT_LOG_WARN ? rt_log_level_name(level) : "");
		if (level <= RT_LOG_WARN)
			addstr(": ");
		ui_text_put(stdscr, LINES - 2, getcurx(stdscr), msg, COLS - getcurx(stdscr) - 1);
		attroff(ui_theme_attr(level <= RT_LOG_WARN ? UI_ROLE_WARN : UI_ROLE_DIM));
		return;
	}
	if (app->details_open || app->help_open || !row)
		return;
	if (row->kind == UI_ROW_LAB)
		hint = row->lab->summary;
	else if (row->kind == UI_ROW_LESSON)
		hint = row->lesson->problem ? "this lesson file has a problem: Enter shows it" :
		       row->lesson->path;
	if (hint) {
		attron(ui_theme_attr(UI_ROLE_DIM));
		ui_text_put(stdscr, LINES - 2, 1, hint, COLS - 2);
		attroff(ui_theme_attr(UI_ROLE_DIM));
	}
}

/* The run of the open lab screen, which ui_lab_run ticks the same way for every lab. */
static struct ui_lab_run *lab_run(struct ui_app *app)
{
	return app->lab_ops->run(app->lab_screen);
}

/* The open lab screen, and the help over it, which the screen chooses. */
static void lab_draw(struct ui_app *app)
{
	app->lab_ops->draw(app->lab_screen, stdscr, 0, 0, LINES, COLS);
	if (app->help_open)
		ui_help_draw_lines(stdscr, app->lab_ops->help(app->lab_screen), 1, 0, LINES - 2,
				   COLS);
}

static void draw(struct ui_app *app)
{
	erase();
	if (COLS < UI_MIN_COLS || LINES < UI_MIN_LINES) {
		draw_too_small();
		refresh();
		return;
	}
	if (app->reader_open) {
		ui_reader_draw(&app->reader, stdscr, 0, 0, LINES, COLS);
		if (app->help_open)
			ui_help_draw(stdscr, ui_reader_help_topic(&app->reader), 1, 0, LINES - 2,
				     COLS);
		refresh();
		return;
	}
	if (app->lab_ops) {
		lab_draw(app);
		refresh();
		return;
	}
	draw_title(&app->menu);
	ui_menu_draw(&app->menu, stdscr, 2, 0, LINES - 4, COLS);
	draw_status(app);
	draw_footer(app);
	/* Overlays cover the list area, between the title bar and the status line. */
	if (app->details_open)
		ui_details_draw(&app->details, stdscr, 1, 0, LINES - 3, COLS);
	if (app->help_open)
		ui_help_draw(stdscr, UI_HELP_MENU, 1, 0, LINES - 3, COLS);
	refresh();
}

/* ---- Keys ----------------------------------------------------------------- */

/* Stops a run that is still on: load and probe end, the journal is replayed. */
static void close_lab(struct ui_app *app)
{
	if (app->lab_ops) {
		const struct ui_lab_run *r = lab_run(app);

		/* A run still on is stopped and saved by fini; a finished one says. */
		if (ui_lab_run_busy(r) || ui_lab_run_result(r))
			app->ran_lab = true;
		if (!ui_lab_run_busy(r) && ui_lab_run_result(r) && !r->saved_path)
			app->lost_result = true;
		app->lab_ops->fini(app->lab_screen);
	}
	free(app->lab_screen);
	app->lab_screen = NULL;
	app->lab_ops = NULL;
}

static void open_lab(struct ui_app *app, const struct ui_lab_screen_ops *ops,
		     const struct lab_ops *lab)
{
	int ret = -ENOMEM;

	app->lab_screen = calloc(1, ops->size);
	if (app->lab_screen) {
		app->lab_ops = ops;
		ret = ops->init(app->lab_screen, lab);
	}
	if (ret < 0) {
		close_lab(app);
		rt_log(RT_LOG_ERR, "cannot open the lab: %s", strerror(-ret));
	}
}

/*
 * Enter on a lesson opens the reader, on a lab with a live screen that
 * screen; on another lab, and 'i' on anything, the details.
 */
static void open_row(struct ui_app *app, bool info)
{
	const struct ui_row *row = ui_menu_selected(&app->menu);
	int ret;

	if (!row)
		return;
	if (row->kind == UI_ROW_LAB && !info && ui_lab_screen_find(row->lab)) {
		open_lab(app, ui_lab_screen_find(row->lab), row->lab);
		return;
	}
	if (row->kind == UI_ROW_LESSON && !info) {
		ret = ui_reader_open(&app->reader, app->menu.lessons,
				     (size_t)(row->lesson - app->menu.lessons->entries));
		if (ret < 0) {
			ui_reader_fini(&app->reader);
			rt_log(RT_LOG_ERR, "cannot open the lesson: %s", strerror(-ret));
			return;
		}
		app->reader_open = true;
		return;
	}
	if (row->kind == UI_ROW_LESSON)
		ret = ui_details_init_lesson(&app->details, row->lesson);
	else if (row->kind == UI_ROW_LAB)
		ret = ui_details_init_lab(&app->details, row->lab, app->menu.lessons);
	else
		return;
	if (ret < 0) {
		rt_log(RT_LOG_ERR, "cannot show the details: %s", strerror(-ret));
		return;
	}
	app->details_open = true;
}

static void handle_key(struct ui_app *app, int key)
{
	if (key == KEY_CTRL('l')) {
		clearok(curscr, TRUE);
		return;
	}
	if (COLS < UI_MIN_COLS || LINES < UI_MIN_LINES) {
		/* Only quitting makes sense on a screen that shows nothing. */
		if (key == 'q')
			app->quit = true;
		return;
	}
	if (app->confirm_quit) {
		app->confirm_quit = false;
		app->quit = key == 'y' || key == 'Y';
		return;
	}
	if (app->help_open) {
		if (ui_help_key(key))
			app->help_open = false;
		return;
	}
	if (app->reader_open) {
		switch (ui_reader_key(&app->reader, key)) {
		case UI_READER_CLOSE:
			ui_reader_fini(&app->reader);
			app->reader_open = false;
			ui_menu_refresh(&app->menu);
			break;
		case UI_READER_HELP:
			app->help_open = true;
			break;
		case UI_READER_NONE:
			break;
		}
		return;
	}
	if (app->lab_ops) {
		switch (app->lab_ops->key(app->lab_screen, key)) {
		case UI_LAB_CLOSE:
			close_lab(app);
			ui_menu_refresh(&app->menu);
			break;
		case UI_LAB_HELP:
			app->help_open = true;
			break;
		case UI_LAB_NONE:
			break;
		}
		return;
	}
	if (app->details_open) {
		switch (ui_details_key(&app->details, key)) {
		case UI_DETAILS_CLOSE:
			ui_details_fini(&app->details);
			app->details_open = false;
			break;
		case UI_DETAILS_HELP:
			app->help_open = true;
			break;
		case UI_DETAILS_NONE:
			break;
		}
		return;
	}
	switch (ui_menu_key(&app->menu, key)) {
	case UI_MENU_OPEN:
		open_row(app, false);
		break;
	case UI_MENU_INFO:
		open_row(app, true);
		break;
	case UI_MENU_HELP:
		app->help_open = true;
		break;
	case UI_MENU_QUIT:
		if (app->ran_lab || app->lost_result)
			app->confirm_quit = true;
		else
			app->quit = true;
		break;
	case UI_MENU_NONE:
		break;
	}
}

static void run_loop(struct ui_app *app)
{
	while (!app->quit && !ui_stop_signal) {
		int key;

		/* Also while the window is too small: a run goes on and ends there too. */
		if (app->lab_ops && ui_lab_run_tick(lab_run(app)) == UI_LAB_CLOSE) {
			close_lab(app);
			ui_menu_refresh(&app->menu);
		}
		timeout(app->lab_ops && ui_lab_run_busy(lab_run(app)) ? UI_LIVE_POLL_MS :
			UI_POLL_MS);
		draw(app);
		key = getch();
		if (key == ERR || key == KEY_RESIZE)
			continue;	/* a timeout, a signal, or a new size: just redraw */
		/*
		 * The status message was on screen when the key came, so it has
		 * been seen; whatever this key logs replaces it.
		 */
		ui_log_clear();
		handle_key(app, key);
	}
}

/* ---- Entry ---------------------------------------------------------------- */

static int app_init(struct ui_app *app)
{
	struct lesson_index *idx;
	char *cause = NULL;
	int ret;

	memset(app, 0, sizeof(*app));
	idx = lesson_index_load(&cause);
	if (!idx)
		rt_log(RT_LOG_WARN, "%s", cause ? cause : "cannot list the lessons");
	for (size_t i = 0; idx && i < idx->count; i++)
		if (idx->entries[i].problem)
			rt_log(RT_LOG_WARN, "lesson %s", idx->entries[i].problem);
	ret = ui_menu_init(&app->menu, idx, cause);
	free(cause);
	return ret;
}

static void app_fini(struct ui_app *app)
{
	/* Saves the reading position, also when a signal ended the loop. */
	if (app->reader_open)
		ui_reader_fini(&app->reader);
	if (app->lab_ops)
		close_lab(app);
	if (app->details_open)
		ui_details_fini(&app->details);
	ui_menu_fini(&app->menu);
}

/* The terminal while a screen owns it: what term_open() set up and term_close() undoes. */
struct ui_term {
	struct sigaction old[UI_NSIGNALS];
	SCREEN *screen;
};

/*
 * Check the terminal, take over signals, start curses and route rt_log to
 * the status line. Returns 0, or 1 after logging why the terminal cannot be
 * used (nothing is left changed then).
 */
static int term_open(struct ui_term *t, const char *what, const char *hint)
{
	char why[160];
	const char *problem;

	problem = terminal_problem(why, sizeof(why));
	if (problem) {
		refuse(what, problem, hint);
		return 1;
	}
	ui_text_init();
	ui_stop_signal = 0;
	signals_install(t->old);
	t->screen = newterm(NULL, stdout, stdin);
	if (!t->screen) {
		snprintf(why, sizeof(why), "TERM=%s is not a terminal type this system knows",
			 getenv("TERM"));
		refuse(what, why, hint);
		signals_restore(t->old);
		return 1;
	}
	if (!cursor_address) {
		endwin();
		delscreen(t->screen);
		snprintf(why, sizeof(why), "TERM=%s cannot move the cursor", getenv("TERM"));
		refuse(what, why, hint);
		signals_restore(t->old);
		return 1;
	}

	/* From here on stderr would scribble over the screen. */
	ui_log_start();
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	define_home_end();
	set_escdelay(25);
	curs_set(0);
	timeout(UI_POLL_MS);
	ui_theme_init();
	return 0;
}

/* Give the terminal back. Returns @status, or 128 + the signal that ended the loop. */
static int term_close(struct ui_term *t, int status)
{
	curs_set(1);
	endwin();
	delscreen(t->screen);
	ui_log_stop();
	if (ui_stop_signal)
		status = 128 + ui_stop_signal;
	signals_restore(t->old);
	return status;
}

int ui_main(void)
{
	struct ui_term term;
	struct ui_app app;
	int status = 0;

	if (term_open(&term, "the menu",
		      "run 'rtlab --help' for the commands that work without a terminal"))
		return 1;
	if (app_init(&app) < 0) {
		status = 1;	/* reported below, once stderr is ours again */
	} else {
		run_loop(&app);
		app_fini(&app);
	}
	status = term_close(&term, status);
	if (status == 1)
		rt_log(RT_LOG_ERR, "cannot build the menu: out of memory");
	return status;
}

/* ---- The trace viewer alone (rtlab trace view) ----------------------------- */

int ui_view_trace(const char *path)
{
	struct ui_trace_view *v = NULL;
	struct ui_term term;
	char *text = NULL, *cause = NULL;
	bool help = false, quit = false;
	size_t len = 0;
	int status = 1;

	/* Everything that can be wrong with the file is said before the screen changes. */
	if (trace_explain_read_file(path, &text, &len, &cause) == 0)
		v = ui_trace_view_new(text, len, path, &cause);
	free(text);
	if (!v) {
		rt_log(RT_LOG_ERR, "%s", cause ? cause : strerror(errno));
		goto out;
	}
	if (term_open(&term, "the trace viewer",
		      "'rtlab trace explain FILE' prints the same explanation without a terminal"))
		goto out;
	while (!quit && !ui_stop_signal) {
		int key;

		erase();
		if (COLS < UI_MIN_COLS || LINES < UI_MIN_LINES) {
			draw_too_small();
		} else {
			ui_trace_view_draw(v, stdscr, 0, 0, LINES, COLS);
			if (help)
				ui_help_draw(stdscr, UI_HELP_TRACE, 1, 0, LINES - 2, COLS);
		}
		refresh();
		key = getch();
		if (key == ERR || key == KEY_RESIZE)
			continue;
		ui_log_clear();
		if (key == KEY_CTRL('l'))
			clearok(curscr, TRUE);
		else if (COLS < UI_MIN_COLS || LINES < UI_MIN_LINES)
			quit = key == 'q';
		else if (help)
			help = !ui_help_key(key);
		else
			switch (ui_trace_view_key(v, key)) {
			case UI_TRACE_VIEW_CLOSE:
				quit = true;
				break;
			case UI_TRACE_VIEW_HELP:
				help = true;
				break;
			case UI_TRACE_VIEW_NONE:
				break;
			}
	}
	status = term_close(&term, 0);
out:
	ui_trace_view_free(v);
	free(cause);
	return status;
}

/* ---- The deck presenter (rtlab slides) ------------------------------------- */

int ui_view_slides(const struct slides_deck *deck, const char *class_dir)
{
	struct ui_slides *p;
	struct ui_term term;
	bool quit = false;
	int status;

	p = ui_slides_new(deck, class_dir);
	if (!p) {
		rt_log(RT_LOG_ERR, "cannot present the deck: out of memory");
		return 1;
	}
	if (term_open(&term, "the presenter",
		      "'rtlab slides export DECK --out DIR' makes an HTML deck for a browser")) {
		ui_slides_free(p);
		return 1;
	}
	while (!quit && !ui_stop_signal) {
		int key;

		erase();
		if (COLS < UI_MIN_COLS || LINES < UI_MIN_LINES)
			draw_too_small();
		else
			ui_slides_draw(p, stdscr, LINES, COLS);
		refresh();
		key = getch();
		if (key == ERR || key == KEY_RESIZE)
			continue;	/* the clock ticks on the timeout */
		ui_log_clear();
		if (key == KEY_CTRL('l'))
			clearok(curscr, TRUE);
		else if (COLS < UI_MIN_COLS || LINES < UI_MIN_LINES)
			quit = key == 'q';
		else
			quit = ui_slides_key(p, key);
	}
	status = term_close(&term, 0);
	ui_slides_free(p);
	return status;
}
