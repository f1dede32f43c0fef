/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_details: the field list is the whole model; the drawing code knows
 * nothing about lessons or labs. A field's value may hold several lines
 * ('\n'), each wrapped on its own, which is how the list of needs reads as
 * a list rather than a run-on sentence.
 */
#include "ui_details.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "labs/lab.h"
#include "lesson/lesson_index.h"
#include "ui_frame.h"
#include "ui_menu.h"
#include "ui_text.h"

/* What each LAB_NEED_* bit asks of the machine, in the learner's words. */
static const char *const need_words[LAB_NEED_COUNT] = {
	"real-time scheduling (SCHED_FIFO): root or CAP_SYS_NICE, and RT runtime left",
	"tracefs, writable, with the sched_waking and sched_switch events",
	"the kernel's latency tracers (irqsoff, preemptoff, wakeup_rt)",
	"QEMU (qemu-system-x86_64) to boot a guest",
	"working KVM acceleration (/dev/kvm that really runs a guest)",
	"network namespaces: root or CAP_NET_ADMIN",
	"a PREEMPT_RT kernel",
};

#define LABEL_COLS 13

char *ui_details_needs_words(unsigned int needs)
{
	struct rt_buf b = RT_BUF_INIT;
	const char *bullet = ui_text_glyph("\xe2\x80\xa2 ", "- ");

	for (int i = 0; i < LAB_NEED_COUNT; i++) {
		if (!(needs & (1u << i)))
			continue;
		if (rt_buf_printf(&b, "%s%s%s", b.len ? "\n" : "", bullet, need_words[i]) < 0) {
			rt_buf_fini(&b);
			return NULL;
		}
	}
	return rt_buf_take(&b);
}

static int field_add(struct ui_details *d, const char *label, enum ui_role role,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int field_add(struct ui_details *d, const char *label, enum ui_role role,
		     const char *fmt, ...)
{
	struct ui_field *n, *f;
	va_list ap;
	int ret;

	n = realloc(d->fields, (d->nfields + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	d->fields = n;
	f = &d->fields[d->nfields];
	f->role = role;
	f->label = strdup(label);
	va_start(ap, fmt);
	ret = vasprintf(&f->value, fmt, ap);
	va_end(ap);
	if (ret < 0 || !f->label) {
		free(f->label);
		if (ret >= 0)
			free(f->value);
		return -ENOMEM;
	}
	d->nfields++;
	return 0;
}

static int details_start(struct ui_details *d, const char *title)
{
	memset(d, 0, sizeof(*d));
	d->title = strdup(title);
	return d->title ? 0 : -ENOMEM;
}

int ui_details_init_lesson(struct ui_details *d, const struct lesson_entry *e)
{
	struct rt_buf labs = RT_BUF_INIT;
	int ret;

	ret = details_start(d, e->title ? e->title : e->glossary ? "Glossary" : e->slug);
	if (ret)
		goto out_fini;
	if (e->glossary)
		ret = field_add(d, "Entry", UI_ROLE_NORMAL, "the glossary of terms");
	else
		ret = field_add(d, "Lesson", UI_ROLE_NUMBER, "%02u", e->number);
	if (!ret)
		ret = field_add(d, "Title", UI_ROLE_NORMAL, "%s",
				e->title ? e->title : "(unknown: see the problem below)");
	if (!ret)
		ret = field_add(d, "File", UI_ROLE_NORMAL, "%s", e->path);
	if (!ret && e->problem)
		ret = field_add(d, "Problem", UI_ROLE_PROBLEM, "%s", e->problem);
	if (ret)
		goto out_fini;

	for (const struct lab_ops *const *l = lab_table; !e->glossary && *l; l++) {
		if ((*l)->lesson <= 0 || (unsigned int)(*l)->lesson != e->number)
			continue;
		if (rt_buf_printf(&labs, "%s%s (%s)", labs.len ? "\n" : "", (*l)->title,
				  ui_menu_lab_state(*l)) < 0) {
			ret = -ENOMEM;
			goto out_fini;
		}
	}
	if (labs.len)
		ret = field_add(d, "Labs", UI_ROLE_NORMAL, "%s", rt_buf_str(&labs));
	if (!ret)
		ret = field_add(d, "Reader", UI_ROLE_NORMAL, "Press Enter on the lesson in the "
				"menu to read it; the reader keeps your place.");
	if (ret)
		goto out_fini;
	rt_buf_fini(&labs);
	return 0;

out_fini:
	rt_buf_fini(&labs);
	ui_details_fini(d);
	return -ENOMEM;
}

int ui_details_init_lab(struct ui_details *d, const struct lab_ops *lab,
			const struct lesson_index *idx)
{
	const struct lesson_entry *lesson = NULL;
	char *needs = NULL, *wants = NULL;
	int ret;

	ret = details_start(d, lab->title);
	if (!ret)
		ret = field_add(d, "Name", UI_ROLE_NORMAL, "%s", lab->name);
	if (!ret)
		ret = field_add(d, "Summary", UI_ROLE_NORMAL, "%s", lab->summary);
	if (ret)
		goto out_fini;
	if (lab->state == LAB_STATE_READY)
		ret = field_add(d, "State", UI_ROLE_READY, "ready to run");
	else if (lab->issue)
		ret = field_add(d, "State", UI_ROLE_COMING,
				"coming: tracker issue #%u builds it\n"
				"described here, not runnable yet", lab->issue);
	else
		ret = field_add(d, "State", UI_ROLE_COMING,
				"coming: described here, not runnable yet");
	if (ret)
		goto out_fini;

	needs = ui_details_needs_words(lab->needs);
	wants = ui_details_needs_words(lab->wants);
	if (!needs || !wants)
		goto out_fini;
	if (lab->sim_only)
		ret = field_add(d, "Needs", UI_ROLE_NORMAL,
				"nothing from this machine: the hardware it is about is not "
				"around any more, so it only runs as a simulation");
	else if (*needs)
		ret = field_add(d, "Needs", UI_ROLE_NORMAL, "%s", needs);
	else
		ret = field_add(d, "Needs", UI_ROLE_NORMAL, "nothing special: any Linux machine");
	if (!ret && *wants)
		ret = field_add(d, "Better with", UI_ROLE_NORMAL, "%s", wants);
	if (!ret)
		ret = field_add(d, "Simulated", UI_ROLE_NORMAL, "%s",
				lab->sim_only ? "yes, and only simulated" :
				lab->sim ? "yes: a simulated form runs when the machine lacks "
					   "what the lab needs" :
				"no: it measures the real machine");
	if (!ret && lab->vm_live)
		ret = field_add(d, "Classroom VM", UI_ROLE_NORMAL,
				"runs live inside the classroom VM's PREEMPT_RT kernel");
	if (ret)
		goto out_fini;
	if (lab->lesson > 0) {
		lesson = lesson_index_find(idx, (unsigned int)lab->lesson);
		if (lesson && lesson->title)
			ret = field_add(d, "Lesson", UI_ROLE_NORMAL, "%02d %s", lab->lesson,
					lesson->title);
		else if (lesson)
			ret = field_add(d, "Lesson", UI_ROLE_PROBLEM,
					"%02d (its file has a problem: see the lesson)",
					lab->lesson);
		else
			ret = field_add(d, "Lesson", UI_ROLE_NORMAL, "%02d (not installed)",
					lab->lesson);
		if (ret)
			goto out_fini;
	}
	free(needs);
	free(wants);
	return 0;

out_fini:
	free(needs);
	free(wants);
	ui_details_fini(d);
	return -ENOMEM;
}

void ui_details_fini(struct ui_details *d)
{
	for (size_t i = 0; i < d->nfields; i++) {
		free(d->fields[i].label);
		free(d->fields[i].value);
	}
	free(d->fields);
	free(d->title);
	memset(d, 0, sizeof(*d));
}

/*
 * Lay out (and, when @draw, draw) the fields from content line @first on;
 * returns the number of content lines the fields take at this width.
 */
static int layout(const struct ui_details *d, WINDOW *win, int y, int x, int w, int first,
		  int page, bool gaps, bool draw)
{
	const char *bullet = ui_text_glyph("\xe2\x80\xa2 ", "- ");
	int line = 0, vw = w - LABEL_COLS - 1;

	for (size_t i = 0; i < d->nfields; i++) {
		const struct ui_field *f = &d->fields[i];
		const char *s = f->value;
		bool label_done = false, para = true;
		int hang = 0;

		if (i > 0 && gaps)
			line++;		/* a blank line between fields */
		do {
			size_t next = 0, len;
			int r = line - first;

			/* A bulleted line wraps under its text, not under the bullet. */
			if (para)
				hang = strncmp(s, bullet, strlen(bullet)) == 0 ?
				       ui_text_width(bullet) : 0;
			len = ui_text_wrap(s, para ? vw : vw - hang, &next);
			if (draw && r >= 0 && r < page) {
				if (!label_done) {
					wattron(win, ui_theme_attr(UI_ROLE_LABEL));
					ui_text_put(win, y + r, x, f->label, LABEL_COLS);
					wattroff(win, ui_theme_attr(UI_ROLE_LABEL));
				}
				wattron(win, ui_theme_attr(f->role));
				ui_text_putn(win, y + r, x + LABEL_COLS + 1 + (para ? 0 : hang), s,
					     len, para ? vw : vw - hang);
				wattroff(win, ui_theme_attr(f->role));
			}
			label_done = true;
			para = next > 0 && s[next - 1] == '\n';
			line++;
			s += next;
		} while (*s);
	}
	return line;
}

void ui_details_draw(struct ui_details *d, WINDOW *win, int y, int x, int h, int cols)
{
	int w = cols - 4 < 96 ? cols - 4 : 96, bh, bx, by, inner;
	bool gaps;

	if (w < 30 || h < 5)
		return;
	/*
	 * Frame, a blank line of padding above and below, two columns each
	 * side. Blank lines between fields only when everything still fits.
	 */
	gaps = layout(d, win, 0, 0, w - 6, 0, 0, true, false) + 4 <= h;
	d->nlines = layout(d, win, 0, 0, w - 6, 0, 0, gaps, false);
	bh = d->nlines + 4 < h ? d->nlines + 4 : h;
	inner = bh - 4;
	d->page = inner;
	if (d->scroll > d->nlines - inner)
		d->scroll = d->nlines - inner > 0 ? d->nlines - inner : 0;
	by = y + (h - bh) / 2;
	bx = x + (cols - w) / 2;
	ui_frame_clear(win, y, x, h, cols);
	ui_frame_draw(win, by, bx, bh, w, d->title);
	layout(d, win, by + 2, bx + 3, w - 6, d->scroll, inner, gaps, true);
	ui_frame_scroll_marks(win, by, bx, bh, w, d->scroll > 0, d->scroll + inner < d->nlines);
}

enum ui_details_action ui_details_key(struct ui_details *d, int key)
{
	int max = d->nlines - d->page > 0 ? d->nlines - d->page : 0;
	int page = d->page > 2 ? d->page - 1 : 1;

	switch (key) {
	case 27:	/* Esc */
	case KEY_LEFT:
	case 'h':
	case 'q':
		return UI_DETAILS_CLOSE;
	case '?':
		return UI_DETAILS_HELP;
	case KEY_DOWN:
	case 'j':
		d->scroll++;
		break;
	case KEY_UP:
	case 'k':
		d->scroll--;
		break;
	case KEY_NPAGE:
	case ' ':
		d->scroll += page;
		break;
	case KEY_PPAGE:
		d->scroll -= page;
		break;
	case KEY_HOME:
	case 'g':
		d->scroll = 0;
		break;
	case KEY_END:
	case 'G':
		d->scroll = max;
		break;
	default:
		break;
	}
	if (d->scroll > max)
		d->scroll = max;
	if (d->scroll < 0)
		d->scroll = 0;
	return UI_DETAILS_NONE;
}
