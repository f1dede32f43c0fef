/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_text: text from files and people, made safe to show on a terminal.
 *
 * Notes, answers, parameters, seeds, lesson text and the function names in
 * a trace come from files anyone can edit. Written raw, an ESC sequence in
 * them moves the cursor, clears the screen, sets the window title or, on
 * some terminals, types an answer back. rt_text_char() is the one place that
 * decides what may reach a terminal as it is: printable ASCII and valid
 * UTF-8. Everything else is shown as a visible escape, so the reader sees
 * that it is there and what it is:
 *
 *   C0 controls and DEL      \x1b, \x07, \x7f; \n \t \r by name
 *   a byte that is not UTF-8 \x9b (a raw C1 byte), \xff
 *   C1 controls in UTF-8     \u009b (U+0080..U+009F)
 *   bidi overrides/isolates  \u202e (they reorder what is drawn)
 *
 * A backslash is left as it is: the escapes are for a person, not to be
 * parsed back. The CLI's text output, its log lines and the TUI's drawing
 * (ui_text) all go through here. JSON output does not need it: the JSON
 * writer escapes every control character itself.
 */
#ifndef RTLAB_CORE_RT_TEXT_H
#define RTLAB_CORE_RT_TEXT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "core/rt_buf.h"

/* Keep '\n' and '\t': multi-line text on a line-oriented output. */
#define RT_TEXT_KEEP_NL		0x1u
/* The longest escape, "\u009b", with its NUL. */
#define RT_TEXT_ESC_MAX		8

/**
 * rt_text_char - the next character of @s, and whether it must be escaped
 * @s: the text
 * @n: bytes left in it (at least 1)
 * @flags: 0 or RT_TEXT_KEEP_NL
 * @esc: gets the escape to show instead ("\x1b"), or "" when the character
 *       may be shown as it is
 * @cp: gets the code point (for a byte that is not UTF-8, the byte); may be NULL
 *
 * Returns the bytes the character takes (1 to 4; 1 for a byte that is not
 * valid UTF-8).
 */
size_t rt_text_char(const char *s, size_t n, unsigned int flags, char esc[RT_TEXT_ESC_MAX],
		    unsigned int *cp);

/**
 * rt_text_escape - append @len bytes of @s to @out, escaped as above
 * @flags: 0 for a field that must stay on one line (its newlines become
 *         "\n"), RT_TEXT_KEEP_NL for multi-line text
 *
 * Returns 0 or -ENOMEM.
 */
int rt_text_escape(struct rt_buf *out, const char *s, size_t len, unsigned int flags);

/**
 * rt_text_printf - append one formatted line to @out, every field escaped
 *
 * The newlines that @fmt itself starts and ends with are kept (so
 * "\nnote: %s\n" still leaves a blank line and ends the line); any other
 * newline, and every control character, is escaped: a field cannot start a
 * line of its own or reach the terminal raw. Returns 0 or -ENOMEM.
 */
int rt_text_printf(struct rt_buf *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* rt_text_printf() with a va_list. */
int rt_text_vprintf(struct rt_buf *out, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/**
 * rt_text_fwrite - write @len bytes of @s to @f, escaped as above
 * @flags: 0 or RT_TEXT_KEEP_NL
 *
 * Allocates nothing (usable in a log sink). Returns 0 or -EIO.
 */
int rt_text_fwrite(const char *s, size_t len, unsigned int flags, FILE *f);

/* rt_text_fwrite() of a C string. */
int rt_text_fputs(const char *s, unsigned int flags, FILE *f);

#endif
