/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lesson_search: case-blind search in the lines of a layout, for the pager's
 * '/' and its highlights. A line is the text of its spans; both it and the
 * needle are decoded by rt_utf8 and lower-cased as C.UTF-8 does, whatever
 * the learner's locale, and a match is reported in display columns.
 */
#include "lesson_doc.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_utf8.h"

/* Text made ready for matching: lower-cased code points and their columns. */
struct folded {
	uint32_t *cp;		/* owned; RT_UTF8_INVALID for a byte that is not UTF-8 */
	unsigned int *col;	/* owned; where cp[k] starts; col[n] is the width of it all */
	size_t n;
};

static void folded_fini(struct folded *f)
{
	free(f->cp);
	free(f->col);
	memset(f, 0, sizeof(*f));
}

static int fold(const char *s, struct folded *f)
{
	size_t len = strlen(s);
	unsigned int c = 0;

	f->n = 0;
	f->cp = malloc((len + 1) * sizeof(*f->cp));
	f->col = malloc((len + 1) * sizeof(*f->col));
	if (!f->cp || !f->col) {
		folded_fini(f);
		return -ENOMEM;
	}
	for (size_t i = 0; i < len;) {
		struct rt_utf8_char ch;

		i += rt_utf8_next(s + i, len - i, &ch);
		f->cp[f->n] = rt_utf8_cp_lower(ch.cp);
		f->col[f->n++] = c;
		c += ch.cols;
	}
	f->col[f->n] = c;
	return 0;
}

/* The needle: -EINVAL when it is empty or not UTF-8 (it could match nothing). */
static int fold_needle(const char *needle, struct folded *f)
{
	int ret;

	memset(f, 0, sizeof(*f));
	if (!needle || !*needle)
		return -EINVAL;
	ret = fold(needle, f);
	for (size_t k = 0; !ret && k < f->n; k++)
		if (f->cp[k] == RT_UTF8_INVALID)
			ret = -EINVAL;
	if (ret)
		folded_fini(f);
	return ret;
}

/*
 * The matches of @nd in line @i, left to right and not overlapping, as up
 * to @max [start, end) column pairs in @cols. Returns how many, or -ENOMEM.
 */
static int line_find(const struct lesson_layout *lay, size_t i, const struct folded *nd,
		     unsigned int *cols, size_t max)
{
	struct rt_buf b = RT_BUF_INIT;
	struct folded hay = { 0 };
	size_t found = 0;
	int ret;

	ret = lesson_layout_line_text(lay, i, &b);
	if (!ret)
		ret = fold(rt_buf_str(&b), &hay);
	for (size_t p = 0; !ret && found < max && p + nd->n <= hay.n;) {
		if (memcmp(hay.cp + p, nd->cp, nd->n * sizeof(*nd->cp))) {
			p++;
			continue;
		}
		cols[2 * found] = hay.col[p];
		cols[2 * found + 1] = hay.col[p + nd->n];
		found++;
		p += nd->n;
	}
	folded_fini(&hay);
	rt_buf_fini(&b);
	return ret ? ret : (int)found;
}

int lesson_layout_search(const struct lesson_layout *lay, const char *needle, size_t from,
			 int dir, size_t *line, unsigned int *col)
{
	size_t n = lay->nlines;
	struct folded nd;
	unsigned int at[2];
	int ret;

	ret = fold_needle(needle, &nd);
	if (ret)
		return ret;
	ret = -ENOENT;
	if (from >= n)
		from = dir < 0 ? n - 1 : 0;
	for (size_t step = 0; step < n; step++) {
		size_t i = dir < 0 ? (from + n - step) % n : (from + step) % n;
		int found = line_find(lay, i, &nd, at, 1);

		if (found < 0) {
			ret = found;
			break;
		}
		if (found) {
			*line = i;
			*col = at[0];
			ret = 0;
			break;
		}
	}
	folded_fini(&nd);
	return ret;
}

size_t lesson_layout_line_matches(const struct lesson_layout *lay, size_t i, const char *needle,
				  unsigned int *cols, size_t max)
{
	struct folded nd;
	int found;

	if (i >= lay->nlines || !max || fold_needle(needle, &nd))
		return 0;
	found = line_find(lay, i, &nd, cols, max);
	folded_fini(&nd);
	return found > 0 ? (size_t)found : 0;
}

size_t lesson_layout_match_count(const struct lesson_layout *lay, const char *needle)
{
	struct folded nd;
	unsigned int at[2];
	size_t count = 0;

	if (fold_needle(needle, &nd))
		return 0;
	for (size_t i = 0; i < lay->nlines; i++)
		count += line_find(lay, i, &nd, at, 1) > 0;
	folded_fini(&nd);
	return count;
}
