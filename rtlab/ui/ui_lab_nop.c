/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_lab_nop: the nop lab's screen. The plain screen (ui_lab_plain.h) with
 * fault keys on the setup panel (each adds a fault of that kind to the
 * next run, a millisecond after the previous one, on the next node) and a
 * live picture while the run goes on, paced so that 100 ms of bus time
 * take about three seconds: a bus timeline (one row per node, who sent
 * when, silences and detections), the members, and the metrics so far
 * (utilisation, rounds, faults injected and detected, the worst detection
 * against its bound). The summary shows the lab's views. Simulated: the
 * screen says so.
 */
#include "ui_lab_plain.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "labs/lab_nop.h"
#include "ui_frame.h"

#define TIMELINE_US 600u	/* bus time across the timeline */

struct ui_lab_nop {
	struct ui_lab_plain plain;	/* first: the ops get this screen as a plain one */
	struct nop_live live;
	struct nop_params params;
};

static void reset_live(struct ui_lab_plain *p)
{
	struct ui_lab_nop *s = (struct ui_lab_nop *)p;

	pthread_mutex_lock(&s->live.lock);
	memset(s->live.counters, 0, sizeof(s->live.counters));
	s->live.nev = s->live.head = 0;
	s->live.protocol = -1;
	s->live.steps = 0;
	s->live.params = &s->params;
	s->live.pace = 30;
	pthread_mutex_unlock(&s->live.lock);
}

/* A copy of what the run published, taken under the lock. */
struct snap {
	struct sim_event ev[NOP_LIVE_EVENTS];
	unsigned int nev;
	uint64_t c[SIM_NOP_NCOUNTERS];
	uint64_t members;
	uint32_t nodes;
	int protocol;
};

static void take(struct ui_lab_nop *s, struct snap *n)
{
	pthread_mutex_lock(&s->live.lock);
	for (unsigned int i = 0; i < s->live.nev; i++)
		n->ev[i] = s->live.ev[(s->live.head + i) % NOP_LIVE_EVENTS];
	n->nev = s->live.nev;
	memcpy(n->c, s->live.counters, sizeof(n->c));
	n->members = s->live.members;
	n->nodes = s->live.nodes;
	n->protocol = s->live.protocol;
	pthread_mutex_unlock(&s->live.lock);
}

/* One row per node: '#' data, '.' empty or join, '!' bad, 'B' foreign, '-' silence, 'X' detected. */
static void draw_timeline(const struct snap *n, WINDOW *win, int y, int x, int rows, int width)
{
	static char line[SIM_NOP_NODES_MAX][256];
	uint64_t end = 0, from;
	unsigned int nodes = n->nodes < (unsigned int)rows ? n->nodes : (unsigned int)rows;
	char label[16];

	if (width > 200)
		width = 200;
	if (width < 10 || !nodes)
		return;
	for (unsigned int i = 0; i < n->nev; i++)
		if (n->ev[i].time > end)
			end = n->ev[i].time;
	from = end > TIMELINE_US * 1000ull ? end - TIMELINE_US * 1000ull : 0;
	for (unsigned int r = 0; r < nodes; r++) {
		memset(line[r], ' ', (size_t)width);
		line[r][width] = 0;
	}
	for (unsigned int i = 0; i < n->nev; i++) {
		const struct sim_event *e = &n->ev[i];
		uint64_t a = e->time, b = e->time + 1;
		char ch;

		if (e->who >= nodes || a < from)
			continue;
		switch (e->type) {
		case SIM_NOP_EV_FRAME:
			b = a + e->a;
			ch = (e->b & SIM_NOP_EVB_FOREIGN) ? 'B' : (e->b & SIM_NOP_EVB_BAD) ? '!' :
			     (e->b & 15) == SIM_NOP_T_DATA ? '#' : '.';
			break;
		case SIM_NOP_EV_SILENT:
			b = a + e->a;
			ch = '-';
			break;
		case SIM_NOP_EV_DETECT:
		case SIM_NOP_EV_FALSE:
			ch = 'X';
			break;
		default:
			continue;
		}
		for (uint64_t t = a; t < b; t += 1000) {
			uint64_t col = (t - from) * (uint64_t)width / (TIMELINE_US * 1000ull);

			if (col < (uint64_t)width)
				line[e->who][col] = ch;
		}
	}
	for (unsigned int r = 0; r < nodes; r++) {
		snprintf(label, sizeof(label), "%2u%c", r, (n->members >> r) & 1 ? ' ' : 'x');
		ui_frame_put(win, y + (int)r, x + 1, label, 4, (n->members >> r) & 1 ?
			     UI_ROLE_LABEL : UI_ROLE_WARN);
		ui_frame_put(win, y + (int)r, x + 5, line[r], width, UI_ROLE_NORMAL);
	}
}

static void draw_live(struct ui_lab_plain *p, WINDOW *win, int y, int x, int h, int cols)
{
	struct ui_lab_nop *s = (struct ui_lab_nop *)p;
	static struct snap n;
	const uint64_t *c;
	char line[256];

	take(s, &n);
	c = n.c;
	snprintf(line, sizeof(line), "%s, SIMULATED bus: utilisation %.1f %%  rounds %llu  "
		 "frames %llu", n.protocol == SIM_NOP_PROTO_TDMA ? "TDMA" : "NOP",
		 c[SIM_NOP_C_TIME] ? 100.0 * (double)c[SIM_NOP_C_DATA_TIME] /
		 (double)c[SIM_NOP_C_TIME] : 0.0, (unsigned long long)c[SIM_NOP_C_ROUNDS],
		 (unsigned long long)c[SIM_NOP_C_FRAMES]);
	ui_frame_put(win, y, x + 1, line, cols - 2, UI_ROLE_NORMAL);
	snprintf(line, sizeof(line), "faults %llu injected, %llu detected, %llu false; worst "
		 "%.1f us, bound %.1f us", (unsigned long long)c[SIM_NOP_C_INJECTED],
		 (unsigned long long)c[SIM_NOP_C_DETECTED],
		 (unsigned long long)c[SIM_NOP_C_FALSE_POS],
		 (double)c[SIM_NOP_C_DETECT_MAX] / 1000.0, (double)c[SIM_NOP_C_BOUND] / 1000.0);
	ui_frame_put(win, y + 1, x + 1, line, cols - 2, UI_ROLE_NORMAL);
	ui_frame_put(win, y + 2, x + 1, "bus, last 600 us: # data  . empty  - silent  ! bad  "
		     "B out of turn  X detected", cols - 2, UI_ROLE_DIM);
	if (h > 4)
		draw_timeline(&n, win, y + 3, x, h - 3, cols - 7);
}

static const struct { int key; unsigned int kind; } fault_keys[] = {
	{ 'k', SIM_NOP_F_CRASH }, { 'b', SIM_NOP_F_BABBLE }, { 's', SIM_NOP_F_SKIP },
	{ 'c', SIM_NOP_F_CORRUPT }, { 'l', SIM_NOP_F_LATE }, { 'd', SIM_NOP_F_DUP },
	{ 't', SIM_NOP_F_DRIFT },
};

static void nop_draw(void *screen, WINDOW *win, int y, int x, int h, int cols)
{
	struct ui_lab_nop *s = screen;
	char line[512];
	int len;

	ui_lab_plain_draw(screen, win, y, x, h, cols);
	if (s->plain.run.state != UI_LAB_SETUP || h < 12)
		return;
	len = snprintf(line, sizeof(line), "Faults of the next run:");
	for (unsigned int i = 0; i < s->params.nfaults && len < (int)sizeof(line) - 40; i++)
		len += snprintf(line + len, sizeof(line) - (size_t)len, " %s@%llums:%u",
				sim_nop_fault_names[s->params.faults[i].kind],
				(unsigned long long)(s->params.faults[i].time_ns / 1000000),
				s->params.faults[i].node);
	if (!s->params.nfaults)
		snprintf(line + len, sizeof(line) - (size_t)len, " none");
	ui_frame_put(win, y + h - 5, x + 1, line, cols - 2, UI_ROLE_NORMAL);
	ui_frame_put(win, y + h - 4, x + 1, "k kill  b babble  s skip  c corrupt  l late  d dup  "
		     "t drift (TDMA)  x clear", cols - 2, UI_ROLE_DIM);
}

static enum ui_lab_action nop_key(void *screen, int key)
{
	struct ui_lab_nop *s = screen;
	struct nop_params *p = &s->params;

	if (s->plain.run.state == UI_LAB_SETUP) {
		if (key == 'x') {
			p->nfaults = 0;
			return UI_LAB_NONE;
		}
		for (unsigned int i = 0; i < sizeof(fault_keys) / sizeof(fault_keys[0]); i++) {
			if (key != fault_keys[i].key || p->nfaults >= 9)
				continue;
			p->faults[p->nfaults] = (struct sim_nop_fault){
				(uint64_t)(p->nfaults + 1) * 10000000, fault_keys[i].kind,
				fault_keys[i].kind == SIM_NOP_F_DRIFT ? p->nodes - 1 :
				(p->nfaults + 1) % p->nodes };
			p->nfaults++;
			return UI_LAB_NONE;
		}
	}
	return ui_lab_plain_key(screen, key);
}

static const struct ui_help_line nop_help[] = {
	{ NULL, "The nop lab: NOP and TDMA on a simulated bus" },
	{ "k b s c l d t", "setup: add a crash, babbler, skipped turn, corrupted frame, late "
			   "frame, duplicated id or (TDMA) drifting clock to the next run" },
	{ "x", "setup: clear the faults (a run starts with crash@1ms:1, as on the command line)" },
	{ "Enter, r", "run it; on the summary: back to setup" },
	{ "q, Esc", "while running: stop it and save what was simulated; else back" },
	{ "arrows, PgUp/PgDn", "summary: scroll the tables" },
	{ NULL, NULL },
};

static const struct ui_help_line *nop_help_fn(void *screen)
{
	(void)screen;
	return nop_help;
}

static int nop_init(void *screen, const struct lab_ops *lab)
{
	struct ui_lab_nop *s = screen;

	pthread_mutex_init(&s->live.lock, NULL);
	s->live.lock_ready = true;
	nop_params_init(&s->params);	/* the CLI's defaults, its crash@1ms:1 too */
	s->plain.live = &s->live;
	s->plain.reset_live = reset_live;
	s->plain.draw_live = draw_live;
	return ui_lab_plain_init(screen, lab);
}

static void nop_fini(void *screen)
{
	struct ui_lab_nop *s = screen;

	ui_lab_plain_fini(screen);
	if (s->live.lock_ready)
		pthread_mutex_destroy(&s->live.lock);
	s->live.lock_ready = false;
}

const struct ui_lab_screen_ops ui_lab_nop_screen = {
	.lab = "nop",
	.size = sizeof(struct ui_lab_nop),
	.init = nop_init,
	.draw = nop_draw,
	.key = nop_key,
	.run = ui_lab_plain_run,
	.help = nop_help_fn,
	.fini = nop_fini,
};
