/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_trace_view: the trace viewer of the ftrace lab. It shows one trace as
 * trace_latency parsed it, so that a learner can read what the kernel wrote
 * without a legend on paper:
 *
 *   - the header explained in words at the top: which tracer, the worst
 *     latency, the task that suffered it (policy, priority), where the
 *     interval started and ended, entries shown out of recorded, CPU count
 *     and preemption model, and what a "latency" means for that tracer;
 *   - one row per entry with the line as the kernel wrote it and, beside it,
 *     its flag columns decoded (irqs off, need-resched, hard/soft irq or NMI
 *     context, preempt depth, migrate-disable) in plain words;
 *   - delay marks highlighted, with the gap each stands for ("! > 100 us");
 *   - search (/ n N), jumps to the next and previous delay mark, and a
 *     toggle between the decoded view and the raw text.
 *
 * The input is either a raw `trace` file (what a latency tracer leaves in
 * tracefs, or sched events in the normal format) or a results document
 * (rtlab.result/2 or /1) of the ftrace lab, whose extra.tracer.trace_text
 * holds the trace of that run. The viewer only reads: it owns a parsed copy and
 * never touches tracefs.
 */
#ifndef RTLAB_UI_UI_TRACE_VIEW_H
#define RTLAB_UI_UI_TRACE_VIEW_H

#include <stddef.h>

#include <curses.h>

struct ui_trace_view;

enum ui_trace_view_action {
	UI_TRACE_VIEW_NONE,
	UI_TRACE_VIEW_CLOSE,	/* q or Esc: the owner closes the viewer */
	UI_TRACE_VIEW_HELP,	/* ?: the owner shows the help overlay (UI_HELP_TRACE) */
};

/**
 * ui_trace_view_new - a viewer on trace text
 * @text: the text of a trace file or of a results document (need not be
 *        NUL-terminated); the viewer keeps its own copy
 * @len: its length in bytes
 * @name: what to call it in the title bar and in messages (a file name)
 * @cause: on failure, why, naming @name (caller frees)
 *
 * Returns the viewer (free with ui_trace_view_free()), or NULL with errno
 * set: EINVAL when nothing in @text is a trace (a results document without
 * a trace says which run mode it came from and how to get one), ENOMEM.
 */
struct ui_trace_view *ui_trace_view_new(const char *text, size_t len, const char *name,
					char **cause);

/* ui_trace_view_free - release @v; NULL does nothing. */
void ui_trace_view_free(struct ui_trace_view *v);

/* Draw the viewer into the @h x @cols area of @win at (@y, @x). */
void ui_trace_view_draw(struct ui_trace_view *v, WINDOW *win, int y, int x, int h, int cols);

/* React to @key; see enum ui_trace_view_action. */
enum ui_trace_view_action ui_trace_view_key(struct ui_trace_view *v, int key);

#endif
