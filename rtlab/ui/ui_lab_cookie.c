/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_lab_cookie: the cookie lab's screen. It is the plain screen
 * (ui_lab_plain.h) with a live picture of the table while the protocols
 * run: the seats in a row with the plate at its holder, a bar per diner's
 * cookies, Jain's fairness so far, a histogram of the hand-over times and,
 * for a priority protocol, the high diner's waits. Beside it, the replay
 * stepper ('i'): two diners on the broken or the uni-directional plate,
 * one plate operation per key, the shortest losing schedule found by the
 * search, and the same schedule replayed against the other protocol. The
 * stepper is labs/cookie/checks/cookie_step.h through sim/sim_cookie.h,
 * the code the exercise's grader runs.
 */
#include "ui_lab_plain.h"

#include <stdio.h>
#include <string.h>

#include "labs/lab_cookie.h"
#include "sim/sim_cookie.h"
#include "ui_frame.h"

#define REPLAY_MAX 64u

struct ui_lab_cookie {
	struct ui_lab_plain plain;	/* first: the ops get this screen as a plain one */
	struct cookie_live live;
	/* The replay stepper. */
	bool replay;			/* the stepper is on screen */
	enum sim_cookie_proto proto;
	uint8_t sched[REPLAY_MAX];
	size_t nsched;			/* the schedule */
	size_t at;			/* steps done of it */
	struct cookie_step st;
	bool st_ok;
	char log[8][64];		/* the last steps, newest last */
	unsigned int nlog;
};

static void reset_live(struct ui_lab_plain *p)
{
	struct ui_lab_cookie *s = (struct ui_lab_cookie *)p;

	pthread_mutex_lock(&s->live.lock);
	memset((char *)&s->live + sizeof(s->live.lock), 0, sizeof(s->live) - sizeof(s->live.lock));
	pthread_mutex_unlock(&s->live.lock);
}

static void draw_table(struct ui_lab_cookie *s, const struct cookie_live *l, WINDOW *win, int y,
		       int x, int h, int cols)
{
	unsigned int n = l->diners < 8 ? l->diners : 8;
	uint64_t most = 1, lat_most = 1;
	int bar = cols - 22, row = y;
	char line[200];

	(void)s;
	for (unsigned int i = 0; i < n; i++)
		most = l->eaten[i] > most ? l->eaten[i] : most;
	snprintf(line, sizeof(line), "%-16s %llu cookies baked, Jain fairness %.3f",
		 cookie_protocol_names[l->protocol], (unsigned long long)l->produced,
		 cookie_jain(l->eaten, l->diners));
	ui_frame_put(win, row++, x + 1, line, cols - 2, UI_ROLE_SECTION);
	for (unsigned int i = 0; i < n && row < y + h - 3; i++, row++) {
		int w = bar > 4 ? (int)((double)bar * (double)l->eaten[i] / (double)most) : 0;

		snprintf(line, sizeof(line), "%s seat %u", l->holder == i ? "(o)" : "   ", i);
		ui_frame_put(win, row, x + 1, line, 11, l->holder == i ? UI_ROLE_READY :
			     UI_ROLE_NORMAL);
		for (int k = 0; k < w && k < bar; k++)
			mvwaddch(win, row, x + 12 + k, '#');
		snprintf(line, sizeof(line), "%llu", (unsigned long long)l->eaten[i]);
		ui_frame_put(win, row, x + 13 + (w < bar ? w : bar), line, 9, UI_ROLE_NUMBER);
	}
	if (row >= y + h - 2)
		return;
	/* The hand-over times, powers of two from 64 ns. */
	for (unsigned int b = 0; b < COOKIE_LIVE_LAT; b++)
		lat_most = l->lat[b] > lat_most ? l->lat[b] : lat_most;
	{
		/* Bucket b is drawn at column 12 + 3 b: labels above buckets 0, 4, 8, 12, 15. */
		static const struct { int b; const char *t; } marks[] = {
			{ 0, "64ns" }, { 4, "1us" }, { 8, "16us" }, { 12, "256us" }, { 15, "2ms+" },
		};
		char axis[80];

		memset(axis, ' ', sizeof(axis));
		memcpy(axis, "hand-over", 9);
		for (size_t m = 0; m < sizeof(marks) / sizeof(marks[0]); m++)
			memcpy(axis + 11 + 3 * marks[m].b, marks[m].t, strlen(marks[m].t));
		axis[11 + 3 * 15 + 4] = 0;
		ui_frame_put(win, row++, x + 1, axis, cols - 2, UI_ROLE_DIM);
	}
	for (unsigned int b = 0; b < COOKIE_LIVE_LAT && 12 + 3 * (int)b < cols - 2; b++) {
		static const char *const levels = " .:-=+*#";
		unsigned int lv = l->lat[b] ? 1 + (unsigned int)(6 * l->lat[b] / lat_most) : 0;

		mvwaddch(win, row, x + 12 + 3 * (int)b, (chtype)levels[lv > 7 ? 7 : lv]);
		mvwaddch(win, row, x + 13 + 3 * (int)b, (chtype)levels[lv > 7 ? 7 : lv]);
	}
}

static void draw_live(struct ui_lab_plain *p, WINDOW *win, int y, int x, int h, int cols)
{
	struct ui_lab_cookie *s = (struct ui_lab_cookie *)p;
	struct cookie_live l;
	char line[200];

	pthread_mutex_lock(&s->live.lock);
	l = s->live;
	pthread_mutex_unlock(&s->live.lock);
	if (!l.diners) {
		ui_frame_put(win, y, x + 1, "setting the table...", cols - 2, UI_ROLE_DIM);
		return;
	}
	if (!cookie_protocol_is_prio(l.protocol)) {
		draw_table(s, &l, win, y, x, h, cols);
		return;
	}
	snprintf(line, sizeof(line), "%-16s low holder 10, hog 20, high diner 30 (SCHED_FIFO, "
		 "one CPU)", cookie_protocol_names[l.protocol]);
	ui_frame_put(win, y, x + 1, line, cols - 2, UI_ROLE_SECTION);
	snprintf(line, sizeof(line), "high diner's waits %llu, longest %.1f us, hog bursts %llu",
		 (unsigned long long)l.high_waits, (double)l.wait_max_ns / 1000.0,
		 (unsigned long long)l.hog_bursts);
	ui_frame_put(win, y + 1, x + 1, line, cols - 2, UI_ROLE_NORMAL);
	if (l.watchdog)
		ui_frame_put(win, y + 2, x + 1, "the watchdog ended the spinning: every diner back "
			     "to SCHED_OTHER", cols - 2, UI_ROLE_WARN);
}

/* ---- The replay stepper ------------------------------------------------------------ */

static void replay_restart(struct ui_lab_cookie *s)
{
	if (s->st_ok)
		cookie_step_fini(&s->st);
	s->st_ok = !cookie_step_init(&s->st, sim_cookie_proto(s->proto), 2, REPLAY_MAX + 2);
	s->at = 0;
	s->nlog = 0;
}

static void replay_step(struct ui_lab_cookie *s)
{
	int op;

	if (!s->st_ok || s->at >= s->nsched)
		return;
	op = cookie_step_one(&s->st, s->sched[s->at]);
	if (op < 0)
		return;
	if (s->nlog == 8) {
		memmove(s->log[0], s->log[1], sizeof(s->log[0]) * 7);
		s->nlog = 7;
	}
	snprintf(s->log[s->nlog++], sizeof(s->log[0]), "%2zu. diner %u %-4s -> %llu", s->at + 1,
		 s->sched[s->at], cookie_op_name(op), (unsigned long long)s->st.last_value);
	s->at++;
}

/* The shortest losing schedule of the broken plate, then a few alternating rounds. */
static void replay_find(struct ui_lab_cookie *s)
{
	size_t n = 0;

	if (sim_cookie_find_bad(SIM_COOKIE_BROKEN, 2, 10, COOKIE_BAD_LOST, s->sched, &n) <= 0)
		n = 0;
	s->nsched = n;
	replay_restart(s);
}

static void replay_open(struct ui_lab_cookie *s)
{
	s->replay = true;
	s->proto = SIM_COOKIE_BROKEN;
	replay_find(s);
}

static void draw_replay(struct ui_lab_cookie *s, WINDOW *win, int y, int x, int h, int cols)
{
	char line[200], sched[REPLAY_MAX + 1];
	int row = y + 1;

	ui_frame_bar(win, y, x, cols, UI_ROLE_TITLE);
	ui_frame_put(win, y, x + 1, "Cookie replay: two diners, one plate operation a step",
		     cols - 2, UI_ROLE_TITLE);
	for (size_t i = 0; i < s->nsched; i++)
		sched[i] = (char)('0' + s->sched[i]);
	sched[s->nsched] = 0;
	snprintf(line, sizeof(line), "protocol %s   schedule %s   step %zu of %zu",
		 sim_cookie_proto_name(s->proto), sched, s->at, s->nsched);
	ui_frame_put(win, ++row, x + 1, line, cols - 2, UI_ROLE_SECTION);
	snprintf(line, sizeof(line), "the plate holds cookie %llu; baked %llu, eaten %llu "
		 "(diner 0: %llu, diner 1: %llu)", (unsigned long long)s->st.plate,
		 (unsigned long long)s->st.produced, (unsigned long long)s->st.consumed,
		 (unsigned long long)s->st.eaten_by[0], (unsigned long long)s->st.eaten_by[1]);
	ui_frame_put(win, ++row, x + 1, line, cols - 2, UI_ROLE_NORMAL);
	snprintf(line, sizeof(line), "lost %llu   eaten twice %llu",
		 (unsigned long long)s->st.lost, (unsigned long long)s->st.duplicated);
	ui_frame_put(win, ++row, x + 1, line, cols - 2, cookie_step_bad(&s->st) ? UI_ROLE_WARN :
		     UI_ROLE_READY);
	row++;
	for (unsigned int i = 0; i < s->nlog && row < y + h - 2; i++)
		ui_frame_put(win, ++row, x + 3, s->log[i], cols - 4, UI_ROLE_NORMAL);
	ui_frame_put(win, y + h - 1, x + 1, "space step  b back  x broken/uni-directional  "
		     "f find  Esc leave", cols - 2, UI_ROLE_DIM);
}

static void cookie_draw(void *screen, WINDOW *win, int y, int x, int h, int cols)
{
	struct ui_lab_cookie *s = screen;

	if (s->replay) {
		draw_replay(s, win, y, x, h, cols);
		return;
	}
	ui_lab_plain_draw(screen, win, y, x, h, cols);
	if (s->plain.run.state == UI_LAB_SETUP && h > 12)
		ui_frame_put(win, y + h - 3, x + 1, "i opens the replay stepper: the broken plate "
			     "losing a cookie, one plate operation a key", cols - 2, UI_ROLE_DIM);
}

static enum ui_lab_action cookie_key(void *screen, int key)
{
	struct ui_lab_cookie *s = screen;

	if (!s->replay) {
		if (key == 'i' && s->plain.run.state != UI_LAB_RUNNING &&
		    s->plain.run.state != UI_LAB_STOPPING) {
			replay_open(s);
			return UI_LAB_NONE;
		}
		return ui_lab_plain_key(screen, key);
	}
	switch (key) {
	case ' ':
	case 's':
	case KEY_RIGHT:
		replay_step(s);
		break;
	case 'b':
	case KEY_LEFT: {
		size_t back = s->at ? s->at - 1 : 0;

		replay_restart(s);
		while (s->at < back)
			replay_step(s);
		break;
	}
	case 'x':
		s->proto = s->proto == SIM_COOKIE_BROKEN ? SIM_COOKIE_UNI : SIM_COOKIE_BROKEN;
		replay_restart(s);
		break;
	case 'f':
		replay_find(s);
		break;
	case 27:
	case 'q':
		s->replay = false;
		break;
	default:
		break;
	}
	return UI_LAB_NONE;
}

static const struct ui_help_line cookie_help[] = {
	{ NULL, "The cookie lab" },
	{ "Enter, r", "run the protocols (the four table ones, the priority ones as root)" },
	{ "i", "the replay stepper: a losing interleaving of the broken plate, step by step" },
	{ "space, b", "replay: one plate operation forward, one back" },
	{ "x", "replay: the same schedule on the broken or the uni-directional plate" },
	{ "f", "replay: find the shortest losing schedule again" },
	{ "q, Esc", "leave the replay; while running: stop; else back" },
	{ "arrows, PgUp/PgDn", "summary: scroll the tables" },
	{ NULL, NULL },
};

static const struct ui_help_line *cookie_help_lines(void *screen)
{
	(void)screen;
	return cookie_help;
}

static int cookie_init(void *screen, const struct lab_ops *lab)
{
	struct ui_lab_cookie *s = screen;

	pthread_mutex_init(&s->live.lock, NULL);
	s->plain.live = &s->live;
	s->plain.reset_live = reset_live;
	s->plain.draw_live = draw_live;
	return ui_lab_plain_init(screen, lab);
}

static void cookie_fini(void *screen)
{
	struct ui_lab_cookie *s = screen;

	if (s->st_ok)
		cookie_step_fini(&s->st);
	s->st_ok = false;
	ui_lab_plain_fini(screen);
	pthread_mutex_destroy(&s->live.lock);
}

const struct ui_lab_screen_ops ui_lab_cookie_screen = {
	.lab = "cookie",
	.size = sizeof(struct ui_lab_cookie),
	.init = cookie_init,
	.draw = cookie_draw,
	.key = cookie_key,
	.run = ui_lab_plain_run,
	.help = cookie_help_lines,
	.fini = cookie_fini,
};
