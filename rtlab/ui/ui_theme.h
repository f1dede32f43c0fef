/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_theme: what each part of the screen looks like. Screens ask for a role
 * (title bar, section heading, selected row...) and get curses attributes;
 * only this file knows whether colour is on. Colour is used when the
 * terminal has it and NO_COLOR is not set (https://no-color.org: any value
 * disables it); otherwise reverse video and bold carry the same meaning.
 */
#ifndef RTLAB_UI_UI_THEME_H
#define RTLAB_UI_UI_THEME_H

#include <stdbool.h>

#include <curses.h>

enum ui_role {
	UI_ROLE_NORMAL,
	UI_ROLE_TITLE,		/* the title bar */
	UI_ROLE_SECTION,	/* "Lessons", "Labs" */
	UI_ROLE_SELECTED,	/* the selected row */
	UI_ROLE_DIM,		/* notes, secondary text */
	UI_ROLE_NUMBER,		/* lesson numbers */
	UI_ROLE_PROBLEM,	/* a lesson file with a problem, errors */
	UI_ROLE_COMING,		/* planned labs */
	UI_ROLE_READY,		/* labs that run */
	UI_ROLE_KEY,		/* key names in the footer and help */
	UI_ROLE_FOOTER,		/* the footer line around the keys */
	UI_ROLE_BORDER,		/* pane frames */
	UI_ROLE_LABEL,		/* field names in the details pane */
	UI_ROLE_WARN,		/* a warning in the status line */
	UI_ROLE_H1,		/* lesson reader: the lesson title */
	UI_ROLE_H2,		/* lesson reader: section headings */
	UI_ROLE_H3,		/* lesson reader: sub-section headings */
	UI_ROLE_CODE,		/* lesson reader: inline code and code blocks */
	UI_ROLE_LINK,		/* lesson reader: link text and its [n] */
	UI_ROLE_QUOTE,		/* lesson reader: the bar of a block quote */
	UI_ROLE_MATCH,		/* lesson reader: a search match */
	UI_ROLE_QUIZ,		/* lesson reader: a quiz line */
	UI_ROLE_COUNT,
};

/**
 * ui_theme_init - choose colour or monochrome for the current screen
 *
 * Call after newterm(). Returns true when colour is in use.
 */
bool ui_theme_init(void);

/* The attributes (colour pair included) for @role. */
attr_t ui_theme_attr(enum ui_role role);

#endif
