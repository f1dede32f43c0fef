/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lesson_index: scans the lessons folder and reads one title per file.
 *
 * Only enough Markdown is understood to find the title reliably: an optional
 * front-matter block at the very top, fenced code blocks (so a "# comment"
 * line in a shell example is not taken for a heading), and level-1 ATX
 * headings with their optional closing run of '#'. Full rendering is cmark's
 * job in the lesson reader; this file must stay cheap enough to run on every
 * start of the menu. Titles are checked to be UTF-8 without control
 * characters, because the menu prints them straight to the terminal.
 */
#include "lesson_index.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/rt_err.h"
#include "core/rt_file.h"
#include "core/rt_paths.h"
#include "core/rt_utf8.h"

#define GLOSSARY_NAME "glossary.md"

/* ---- Title parsing -------------------------------------------------------- */

struct line {
	const char *s;		/* borrowed; not NUL-terminated */
	size_t len;		/* without the '\n' and a trailing '\r' */
	unsigned int no;	/* 1-based */
};

struct line_iter {
	const char *p, *end;
	unsigned int no;
};

static int line_next(struct line_iter *it, struct line *l)
{
	const char *nl;

	if (it->p >= it->end)
		return 0;
	nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
	if (!nl)
		nl = it->end;
	l->s = it->p;
	l->len = (size_t)(nl - it->p);
	if (l->len && l->s[l->len - 1] == '\r')
		l->len--;
	l->no = ++it->no;
	it->p = nl < it->end ? nl + 1 : it->end;
	return 1;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* A line that is exactly @mark, ignoring trailing blanks. */
static bool line_is(const struct line *l, const char *mark)
{
	size_t n = strlen(mark), len = l->len;

	while (len > n && is_blank(l->s[len - 1]))
		len--;
	return len == n && memcmp(l->s, mark, n) == 0;
}

/* Up to three spaces of indentation are allowed before block markers. */
static size_t indent_of(const struct line *l)
{
	size_t i = 0;

	while (i < l->len && i < 4 && l->s[i] == ' ')
		i++;
	return i;
}

/*
 * If @l opens or closes a code fence, return its length and set *ch to its
 * character ('`' or '~'); 0 otherwise.
 */
static size_t fence_of(const struct line *l, char *ch)
{
	size_t i = indent_of(l), n = 0;

	if (i > 3 || i >= l->len || (l->s[i] != '`' && l->s[i] != '~'))
		return 0;
	*ch = l->s[i];
	while (i + n < l->len && l->s[i + n] == *ch)
		n++;
	return n >= 3 ? n : 0;
}

/*
 * If @l is a level-1 ATX heading, set [*start, *end) to its text without
 * the markers and surrounding blanks, and return true.
 */
static bool atx1_of(const struct line *l, size_t *start, size_t *end)
{
	size_t i = indent_of(l), e = l->len;

	if (i > 3 || i >= l->len || l->s[i] != '#')
		return false;
	i++;
	if (i < l->len && !is_blank(l->s[i]))
		return false;	/* "##" is level 2; "#word" is not a heading */
	while (i < e && is_blank(l->s[i]))
		i++;
	while (e > i && is_blank(l->s[e - 1]))
		e--;
	/* An optional closing run of '#', which must follow a blank. */
	if (e > i && l->s[e - 1] == '#') {
		size_t c = e;

		while (c > i && l->s[c - 1] == '#')
			c--;
		if (c == i || is_blank(l->s[c - 1])) {
			e = c;
			while (e > i && is_blank(l->s[e - 1]))
				e--;
		}
	}
	*start = i;
	*end = e;
	return true;
}

/* Check the title bytes; returns a static reason, or NULL when it is fine. */
static const char *title_flaw(const char *s, size_t n)
{
	bool ctrl = false;

	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t k = rt_utf8_decode(s + i, n - i, &cp);

		if (cp == RT_UTF8_INVALID)
			return "the title is not valid UTF-8";
		if ((cp < 0x20 && cp != '\t') || (cp >= 0x7f && cp < 0xa0))
			ctrl = true;
		i += k;
	}
	return ctrl ? "the title contains control characters" : NULL;
}

static int set_problem(char **problem, const char *name, unsigned int line, const char *what)
{
	if (asprintf(problem, "%s:%u: %s", name, line, what) < 0) {
		*problem = NULL;
		return -ENOMEM;
	}
	return -EINVAL;
}

int lesson_index_title_of(const char *name, const char *text, size_t len, char **title,
			  char **problem)
{
	struct line_iter it = { text, text + len, 0 };
	unsigned int from = 1;
	size_t fence = 0;
	char fence_ch = 0;
	struct line l;

	*title = NULL;
	*problem = NULL;
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		it.p += 3;	/* a byte-order mark some editors add */

	/* Front matter: only when the very first line is "---". */
	if (line_next(&it, &l)) {
		if (line_is(&l, "---")) {
			bool closed = false;

			while (line_next(&it, &l)) {
				if (line_is(&l, "---") || line_is(&l, "...")) {
					closed = true;
					break;
				}
			}
			if (!closed)
				return set_problem(problem, name, 1,
						   "front matter opened with '---' is never closed");
			from = l.no + 1;
		} else {
			it.p = l.s;	/* not front matter: read line 1 again */
			it.no = 0;
		}
	}

	while (line_next(&it, &l)) {
		size_t start, end, n;
		const char *flaw;
		char ch;

		n = fence_of(&l, &ch);
		if (fence) {
			/* A closing fence: same character, at least as long, nothing after. */
			if (n >= fence && ch == fence_ch) {
				size_t i = indent_of(&l) + n;

				while (i < l.len && is_blank(l.s[i]))
					i++;
				if (i == l.len)
					fence = 0;
			}
			continue;
		}
		if (n) {
			fence = n;
			fence_ch = ch;
			continue;
		}
		if (!atx1_of(&l, &start, &end))
			continue;
		if (start == end)
			return set_problem(problem, name, l.no, "the '#' title heading is empty");
		flaw = title_flaw(l.s + start, end - start);
		if (flaw)
			return set_problem(problem, name, l.no, flaw);
		*title = strndup(l.s + start, end - start);
		if (!*title)
			return -ENOMEM;
		for (char *t = *title; *t; t++)
			if (*t == '\t')
				*t = ' ';
		return 0;
	}
	if (asprintf(problem, "%s:%u: no '# Title' heading from this line to the end (line %u)",
		     name, from, it.no) < 0) {
		*problem = NULL;
		return -ENOMEM;
	}
	return -EINVAL;
}

/* ---- Folder scan ---------------------------------------------------------- */

/* NN-slug.md: two digits, a dash, a slug of [A-Za-z0-9_-], ".md". */
static bool parse_lesson_name(const char *name, unsigned int *number, size_t *slug_len)
{
	size_t len = strlen(name), i;

	if (len < 7 || !isdigit((unsigned char)name[0]) || !isdigit((unsigned char)name[1]) ||
	    name[2] != '-' || strcmp(name + len - 3, ".md") != 0)
		return false;
	for (i = 3; i < len - 3; i++) {
		unsigned char c = (unsigned char)name[i];

		if (!isascii(c) || (!isalnum(c) && c != '-' && c != '_'))
			return false;
	}
	*number = (unsigned int)((name[0] - '0') * 10 + (name[1] - '0'));
	*slug_len = len - 6;
	return true;
}

/* Fill e->title or e->problem from the file at e->path. Only -ENOMEM is fatal. */
static int read_entry(struct lesson_entry *e, const char *name)
{
	char *text = NULL;
	size_t len = 0;
	struct stat st;
	int ret;

	/* stat first: opening a FIFO that happens to be called 05-x.md would block. */
	if (stat(e->path, &st) < 0) {
		ret = asprintf(&e->problem, "%s: cannot read: %s", name, strerror(errno));
		goto out_problem;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = asprintf(&e->problem, "%s: not a regular file", name);
		goto out_problem;
	}
	if ((uintmax_t)st.st_size > LESSON_INDEX_MAX_FILE) {
		ret = asprintf(&e->problem, "%s: larger than %u MiB, not read", name,
			       LESSON_INDEX_MAX_FILE >> 20);
		goto out_problem;
	}
	ret = rt_file_read(e->path, LESSON_INDEX_MAX_FILE, &text, &len);
	if (ret == -ENOMEM)
		return ret;
	if (ret < 0) {
		ret = asprintf(&e->problem, "%s: cannot read: %s", name, strerror(-ret));
		goto out_problem;
	}
	ret = lesson_index_title_of(name, text, len, &e->title, &e->problem);
	free(text);
	return ret == -ENOMEM ? ret : 0;

out_problem:
	if (ret < 0) {
		e->problem = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct lesson_entry *x = a, *y = b;

	if (x->glossary != y->glossary)
		return x->glossary ? 1 : -1;
	if (x->number != y->number)
		return x->number < y->number ? -1 : 1;
	return strcmp(x->slug, y->slug);
}

static void entry_fini(struct lesson_entry *e)
{
	free(e->slug);
	free(e->title);
	free(e->path);
	free(e->problem);
}

/* Two files with one number: the menu could only open one of them. */
static int flag_duplicates(struct lesson_index *idx)
{
	for (size_t i = 1; i < idx->count; i++) {
		struct lesson_entry *prev = &idx->entries[i - 1], *e = &idx->entries[i];
		const char *base = strrchr(e->path, '/'), *pbase = strrchr(prev->path, '/');

		if (e->glossary || prev->glossary || e->number != prev->number || e->problem)
			continue;
		if (asprintf(&e->problem, "%s: lesson number %02u is also used by %s",
			     base ? base + 1 : e->path, e->number,
			     pbase ? pbase + 1 : prev->path) < 0) {
			e->problem = NULL;
			return -ENOMEM;
		}
		free(e->title);
		e->title = NULL;
	}
	return 0;
}

static int add_entry(struct lesson_index *idx, size_t *cap, const char *name,
		     unsigned int number, size_t slug_len, bool glossary)
{
	struct lesson_entry *e;

	if (idx->count == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		struct lesson_entry *n = realloc(idx->entries, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		idx->entries = n;
		*cap = ncap;
	}
	e = &idx->entries[idx->count];
	memset(e, 0, sizeof(*e));
	e->number = number;
	e->glossary = glossary;
	e->slug = glossary ? strdup("glossary") : strndup(name + 3, slug_len);
	if (!e->slug || asprintf(&e->path, "%s/%s", idx->dir, name) < 0) {
		free(e->slug);
		return -ENOMEM;
	}
	idx->count++;
	return read_entry(e, name);
}

struct lesson_index *lesson_index_scan(const char *dir, char **cause)
{
	struct lesson_index *idx;
	struct dirent *de;
	size_t cap = 0;
	DIR *d = NULL;
	int ret = 0;

	idx = calloc(1, sizeof(*idx));
	if (!idx || !(idx->dir = strdup(dir))) {
		ret = rt_err(cause, -ENOMEM, "out of memory");
		goto out_free;
	}
	d = opendir(dir);
	if (!d) {
		if (errno == ENOENT)
			return idx;	/* nothing installed: an empty index */
		ret = rt_err(cause, -errno, "cannot list lessons in %s: %s", dir, strerror(errno));
		goto out_free;
	}
	for (;;) {
		unsigned int number = 0;
		size_t slug_len = 0;

		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno) {
				ret = rt_err(cause, -errno, "cannot list lessons in %s: %s", dir,
					     strerror(errno));
				goto out_free;
			}
			break;
		}
		if (strcmp(de->d_name, GLOSSARY_NAME) == 0)
			ret = add_entry(idx, &cap, de->d_name, 0, 0, true);
		else if (parse_lesson_name(de->d_name, &number, &slug_len))
			ret = add_entry(idx, &cap, de->d_name, number, slug_len, false);
		if (ret < 0) {
			ret = rt_err(cause, ret, "out of memory while listing lessons");
			goto out_free;
		}
	}
	closedir(d);
	d = NULL;
	if (idx->count)
		qsort(idx->entries, idx->count, sizeof(*idx->entries), entry_cmp);
	if (flag_duplicates(idx) < 0) {
		ret = rt_err(cause, -ENOMEM, "out of memory while listing lessons");
		goto out_free;
	}
	return idx;

out_free:
	if (d)
		closedir(d);
	lesson_index_free(idx);
	errno = -ret;
	return NULL;
}

struct lesson_index *lesson_index_load(char **cause)
{
	struct lesson_index *idx;
	char *data, *dir = NULL;

	data = rt_paths_data_dir();
	if (!data) {
		int err = errno;

		rt_err(cause, -err, "cannot find the rtlab data folder: %s", strerror(err));
		errno = err;
		return NULL;
	}
	if (asprintf(&dir, "%s/lessons", data) < 0) {
		free(data);
		rt_err(cause, -ENOMEM, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	free(data);
	idx = lesson_index_scan(dir, cause);
	free(dir);
	return idx;
}

void lesson_index_free(struct lesson_index *idx)
{
	if (!idx)
		return;
	for (size_t i = 0; i < idx->count; i++)
		entry_fini(&idx->entries[i]);
	free(idx->entries);
	free(idx->dir);
	free(idx);
}

const struct lesson_entry *lesson_index_find(const struct lesson_index *idx,
					     unsigned int number)
{
	for (size_t i = 0; idx && i < idx->count; i++)
		if (!idx->entries[i].glossary && idx->entries[i].number == number)
			return &idx->entries[i];
	return NULL;
}
