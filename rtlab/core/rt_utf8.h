/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_utf8: UTF-8 characters and their width on a terminal, the same in any
 * locale.
 *
 * Lesson layout (lesson/), the ncurses screens (ui_text) and the pager's
 * search highlights (ui_reader) all measure text in display columns. They
 * must agree to the column, or a highlight lands beside its word and a
 * line the layout thought fits runs off the screen. So all of them measure
 * here: the UTF-8 is decoded by hand, and the width of a code point is what
 * wcwidth() says for it in the C.UTF-8 locale, asked through a private
 * locale object (uselocale), never the process locale. The answers are the
 * same when rtlab runs under LANG=C or POSIX as under a UTF-8 locale; what a
 * terminal in a non-UTF-8 locale can *draw* is the front end's business.
 *
 * A code point is "unprintable" (width -1) when wcwidth() says so
 * (controls, unassigned code points) and also for DEL, the C1 controls and
 * the bidi overrides and isolates (U+202A..U+202E, U+2066..U+2069), which
 * reorder what a terminal draws around them. Front ends draw an unprintable
 * character as one '?' (or as an escape, see rt_text), so in a string it
 * counts as one column. Should the C.UTF-8 locale be missing, only printable
 * ASCII is printable; every front end then sees that same answer.
 */
#ifndef RTLAB_CORE_RT_UTF8_H
#define RTLAB_CORE_RT_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The code point given for a byte that does not start a valid sequence. */
#define RT_UTF8_INVALID 0xffffffffu

/* One character of a string, as rt_utf8_next() found it. */
struct rt_utf8_char {
	uint32_t cp;		/* the code point; RT_UTF8_INVALID for a byte that is not UTF-8 */
	unsigned int len;	/* bytes it takes: 1 to 4 (1 for a byte that is not UTF-8) */
	unsigned int cols;	/* display columns: 0, 1 or 2; 1 when unprintable (one '?') */
	bool printable;		/* rt_utf8_cp_width() >= 0 */
};

/**
 * rt_utf8_decode - the code point at @s
 * @s: the text
 * @n: bytes left in it
 * @cp: gets the code point, or RT_UTF8_INVALID
 *
 * Strict UTF-8: overlong forms, surrogates, code points above U+10FFFF, a
 * stray continuation byte and a sequence cut short by @n are all invalid.
 * Returns the bytes taken: 1 to 4, and 1 for an invalid byte (so the next
 * call starts at the next byte), 0 only when @n is 0 (*cp RT_UTF8_INVALID).
 */
size_t rt_utf8_decode(const char *s, size_t n, uint32_t *cp);

/**
 * rt_utf8_cp_width - display columns of code point @cp, as wcwidth() in C.UTF-8
 *
 * Returns 0 (combining marks, zero-width characters), 1, 2 (East Asian wide
 * and fullwidth, most emoji) or -1 (unprintable, see above; also
 * RT_UTF8_INVALID and NUL). Does not depend on, or change, the caller's locale.
 */
int rt_utf8_cp_width(uint32_t cp);

/**
 * rt_utf8_next - decode and measure the character at @s
 * @n: bytes left in @s; at least 1
 * @c: gets the character (see struct rt_utf8_char)
 *
 * Returns @c->len.
 */
size_t rt_utf8_next(const char *s, size_t n, struct rt_utf8_char *c);

/**
 * rt_utf8_width - display columns of the bytes [@s, @s + @n)
 *
 * The sum of rt_utf8_next()'s cols: an unprintable character or a byte that
 * is not UTF-8 counts one column. A NUL byte is a character like any other.
 */
unsigned int rt_utf8_width(const char *s, size_t n);

/**
 * rt_utf8_clip - how much of [@s, @s + @n) fits in @cols columns
 * @used: gets the columns those bytes take (may be NULL)
 *
 * Never cuts inside a character; zero-width characters right after the
 * last one that fits (a combining accent) stay with it. Returns the bytes.
 */
size_t rt_utf8_clip(const char *s, size_t n, unsigned int cols, unsigned int *used);

/**
 * rt_utf8_cp_lower - @cp in lower case, as towlower() in C.UTF-8
 *
 * For case-blind search. RT_UTF8_INVALID and code points without a lower
 * case come back as they are.
 */
uint32_t rt_utf8_cp_lower(uint32_t cp);

#endif
