/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slides: the deck parser and lint (slides/FORMAT.md). The split into
 * slides is a line scan that knows only fenced code blocks (a "---" or a
 * "Notes:" inside a fence is code); what CommonMark says about the rest of
 * the file comes from lesson_doc_parse() over the whole deck, whose
 * problems are copied with their line numbers. A slide's body and notes are
 * kept as Markdown so each front end renders them its own way: the
 * presenter with lesson_doc_layout(), the export with cmark's HTML.
 */
#include "slides.h"

#include <cmark.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/rt_buf.h"
#include "core/rt_err.h"
#include "core/rt_file.h"
#include "core/rt_result.h"
#include "lesson/lesson_doc.h"
#include "lesson_doc-int.h"
#include "lesson_stale.h"

struct parse {
	struct slides_deck *deck;
	size_t cap_problems, cap_slides;
	const char *text;
	size_t len;
	size_t *off;		/* start of each line, and where a last line would start */
	unsigned int nlines;
};

static int problem(struct parse *ps, unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int problem(struct parse *ps, unsigned int line, const char *fmt, ...)
{
	struct slides_deck *d = ps->deck;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = lesson_problem_vpush(&d->problems, &d->nproblems, &ps->cap_problems, d->name, line,
				   fmt, ap);
	va_end(ap);
	return ret;
}

/* Line @i (1-based) without its newline. */
static void line_at(const struct parse *ps, unsigned int i, const char **s, size_t *n)
{
	*s = ps->text + ps->off[i - 1];
	*n = ps->off[i] - ps->off[i - 1] - 1;
}

static bool line_is(const struct parse *ps, unsigned int i, const char *what)
{
	const char *s;
	size_t n;

	line_at(ps, i, &s, &n);
	return n == strlen(what) && !memcmp(s, what, n);
}

static bool line_blank(const struct parse *ps, unsigned int i)
{
	const char *s;
	size_t n;

	line_at(ps, i, &s, &n);
	for (size_t k = 0; k < n; k++)
		if (s[k] != ' ' && s[k] != '\t' && s[k] != '\r')
			return false;
	return true;
}

static int index_lines(struct parse *ps)
{
	size_t cap = 0;
	unsigned int n = 0;

	for (size_t i = 0; i <= ps->len; i++) {
		if (i == 0 || ps->text[i - 1] == '\n') {
			if (i == ps->len && i)
				break;	/* a final newline does not start a line */
			if (lesson_grow(&ps->off, &cap, n + 1, sizeof(*ps->off)))
				return -ENOMEM;
			ps->off[n++] = i;
		}
	}
	if (lesson_grow(&ps->off, &cap, n + 1, sizeof(*ps->off)))
		return -ENOMEM;
	/* Each line's length leaves out its newline; the last may have none. */
	ps->off[n] = ps->len && ps->text[ps->len - 1] == '\n' ? ps->len : ps->len + 1;
	ps->nlines = n;
	return 0;
}

/*
 * A fence opener: up to three spaces, then three or more backticks or
 * tildes. Sets @ch and @width. A closer is the same character, at least as
 * many, and nothing else on the line.
 */
static bool fence_open(const char *s, size_t n, char *ch, size_t *width)
{
	size_t i = 0, k;

	while (i < n && i < 3 && s[i] == ' ')
		i++;
	if (i >= n || (s[i] != '`' && s[i] != '~'))
		return false;
	for (k = i; k < n && s[k] == s[i]; k++)
		;
	if (k - i < 3)
		return false;
	*ch = s[i];
	*width = k - i;
	return true;
}

static bool fence_close(const char *s, size_t n, char ch, size_t width)
{
	size_t i = 0, k;

	while (i < n && i < 3 && s[i] == ' ')
		i++;
	for (k = i; k < n && s[k] == ch; k++)
		;
	if (k - i < width)
		return false;
	while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r'))
		k++;
	return k == n;
}

/* The info string of a fence opener, trimmed, into @buf. */
static void fence_info(const char *s, size_t n, char *buf, size_t size)
{
	size_t i = 0, e;

	while (i < n && (s[i] == ' ' || s[i] == '`' || s[i] == '~'))
		i++;
	e = n;
	while (e > i && isspace((unsigned char)s[e - 1]))
		e--;
	snprintf(buf, size, "%.*s", (int)(e - i), s + i);
}

/* Lines [@from, @to) joined, each with its newline; NULL when out of memory. */
static char *join_lines(const struct parse *ps, unsigned int from, unsigned int to)
{
	struct rt_buf b = RT_BUF_INIT;

	for (unsigned int i = from; i < to; i++) {
		const char *s;
		size_t n;

		line_at(ps, i, &s, &n);
		if (rt_buf_append(&b, s, n) || rt_buf_puts(&b, "\n")) {
			rt_buf_fini(&b);
			return NULL;
		}
	}
	if (!b.len && rt_buf_puts(&b, ""))
		return NULL;
	return rt_buf_take(&b);
}

static char *dup_n(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

/* A path a plot may name: relative, no "..", no empty part, printable ASCII. */
static bool plot_path_ok(const char *p)
{
	for (const char *c = p; *c; c++)
		if (*c <= ' ' || *c > '~' || *c == '\\')
			return false;
	return rt_file_rel_below(p);
}

/* Line @i as "key: value": the key and the value without trailing blanks. */
static bool key_value(const struct parse *ps, unsigned int i, const char **k, size_t *kn,
		      const char **v, size_t *vn)
{
	const char *colon;
	size_t n;

	line_at(ps, i, k, &n);
	colon = memchr(*k, ':', n);
	if (!colon || colon + 1 >= *k + n || colon[1] != ' ')
		return false;
	*kn = (size_t)(colon - *k);
	*v = colon + 2;
	*vn = n - *kn - 2;
	while (*vn && isspace((unsigned char)(*v)[*vn - 1]))
		(*vn)--;
	return true;
}

/* The keys of the title slide's ```deck block, lines (@open, @close). */
static int parse_meta(struct parse *ps, unsigned int open, unsigned int close)
{
	struct slides_deck *d = ps->deck;
	const char *const names[] = { "course", "teacher", "date", "licence" };
	char **fields[] = { &d->course, &d->teacher, &d->date, &d->licence };
	int ret = 0;

	for (unsigned int i = open + 1; i < close && !ret; i++) {
		const char *k, *v;
		size_t kn, vn, f;

		if (line_blank(ps, i))
			continue;
		if (!key_value(ps, i, &k, &kn, &v, &vn)) {
			ret = problem(ps, i, "a deck line is 'key: value'");
			continue;
		}
		for (f = 0; f < 4; f++)
			if (strlen(names[f]) == kn && !memcmp(k, names[f], kn))
				break;
		if (f == 4) {
			ret = problem(ps, i, "unknown deck key '%.*s' (course, teacher, date, "
				      "licence)", (int)(kn > 40 ? 40 : kn), k);
			continue;
		}
		if (*fields[f]) {
			ret = problem(ps, i, "deck key '%s' given twice", names[f]);
			continue;
		}
		*fields[f] = dup_n(v, vn);
		if (!*fields[f])
			return -ENOMEM;
	}
	return ret;
}

/* The keys of a ```plot block, lines (@open, @close). */
static int parse_plot(struct parse *ps, struct slide *sl, unsigned int open, unsigned int close)
{
	struct slides_plot *p;
	int ret = 0;

	if (sl->plot)
		return problem(ps, open, "one plot per slide");
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->line = open;
	sl->plot = p;
	for (unsigned int i = open + 1; i < close && !ret; i++) {
		const char *s, *v;
		char **field = NULL;
		size_t kn, vn;

		if (line_blank(ps, i))
			continue;
		if (!key_value(ps, i, &s, &kn, &v, &vn)) {
			ret = problem(ps, i, "a plot line is 'key: value'");
			continue;
		}
		if (kn == 7 && !memcmp(s, "results", 7))
			field = &p->results;
		else if (kn == 6 && !memcmp(s, "sample", 6))
			field = &p->sample;
		else if (kn == 7 && !memcmp(s, "caption", 7))
			field = &p->caption;
		if (!field) {
			ret = problem(ps, i, "unknown plot key '%.*s' (results, sample, caption)",
				      (int)(kn > 40 ? 40 : kn), s);
			continue;
		}
		if (*field) {
			ret = problem(ps, i, "plot key '%.*s' given twice", (int)kn, s);
			continue;
		}
		if (field == &p->results && vn >= 6 && !memcmp(v, "class:", 6)) {
			p->in_class = true;
			v += 6;
			vn -= 6;
		}
		*field = dup_n(v, vn);
		if (!*field)
			return -ENOMEM;
		if (field != &p->caption && !plot_path_ok(*field))
			ret = problem(ps, i, "plot path '%.*s' must be relative, without '..'",
				      (int)(vn > 60 ? 60 : vn), v);
	}
	if (ret)
		return ret;
	if (!p->results)
		return problem(ps, open, "a plot names its results document ('results: PATH')");
	if (p->sample && !p->in_class)
		return problem(ps, open, "'sample:' is for a 'results: class:NAME' plot");
	return 0;
}

/* The heading on line @i: level (0 if none) and its text. */
static unsigned int heading_of(const struct parse *ps, unsigned int i, const char **t, size_t *tn)
{
	const char *s;
	size_t n, k = 0;

	line_at(ps, i, &s, &n);
	while (k < n && s[k] == '#')
		k++;
	if (!k || k > 2 || k >= n || s[k] != ' ')
		return 0;
	*t = s + k + 1;
	*tn = n - k - 1;
	while (*tn && isspace((unsigned char)(*t)[*tn - 1]))
		(*tn)--;
	while (*tn && (*t)[*tn - 1] == '#')	/* a closing sequence */
		(*tn)--;
	while (*tn && isspace((unsigned char)(*t)[*tn - 1]))
		(*tn)--;
	return (unsigned int)k;
}

/* One slide, lines [@from, @to). */
static int parse_slide(struct parse *ps, unsigned int from, unsigned int to)
{
	struct slides_deck *d = ps->deck;
	unsigned int i = from, body_end, notes = 0, plot_open = 0, plot_close = 0;
	unsigned int meta_open = 0, meta_close = 0;
	struct slide *sl;
	const char *t = NULL;
	size_t tn = 0;
	unsigned int level;
	struct rt_buf body = RT_BUF_INIT;
	char ch = 0;
	size_t fw = 0;
	bool in_fence = false;
	int ret;

	while (i < to && line_blank(ps, i))
		i++;
	if (d->nslides >= SLIDES_MAX_SLIDES)
		return d->nslides == SLIDES_MAX_SLIDES ?
			problem(ps, from, "more than %u slides", SLIDES_MAX_SLIDES) : 0;
	if (lesson_grow(&d->slides, &ps->cap_slides, d->nslides, sizeof(*d->slides)))
		return -ENOMEM;
	sl = &d->slides[d->nslides++];
	memset(sl, 0, sizeof(*sl));
	sl->line = i < to ? i : from;
	level = i < to ? heading_of(ps, i, &t, &tn) : 0;
	if (d->nslides == 1 && level != 1) {
		ret = problem(ps, sl->line, "the first slide opens with the deck's title, '# Title'");
		if (ret)
			return ret;
	} else if (d->nslides > 1 && level != 2) {
		ret = problem(ps, sl->line, "a slide opens with its title, '## Title'");
		if (ret)
			return ret;
	}
	if (level && !tn) {
		ret = problem(ps, sl->line, "the slide's title is empty");
		if (ret)
			return ret;
	}
	sl->level = d->nslides == 1 ? 1 : 2;
	sl->title = level ? dup_n(t, tn) : strdup("(untitled)");
	if (!sl->title)
		return -ENOMEM;
	if (level)
		i++;
	sl->body_line = i;

	/* Find the notes and the plot block; everything else is body. */
	for (unsigned int k = i; k < to; k++) {
		const char *s;
		size_t n;

		line_at(ps, k, &s, &n);
		if (in_fence) {
			if (fence_close(s, n, ch, fw)) {
				in_fence = false;
				if (plot_open && !plot_close)
					plot_close = k;
				else if (meta_open && !meta_close)
					meta_close = k;
			}
			continue;
		}
		if (fence_open(s, n, &ch, &fw)) {
			char info[32];

			in_fence = true;
			fence_info(s, n, info, sizeof(info));
			if (!strcmp(info, "plot")) {
				if (notes) {
					ret = problem(ps, k, "a plot belongs in the slide, not its notes");
				} else if (plot_open) {
					ret = problem(ps, k, "one plot per slide");
				} else {
					plot_open = k;
					ret = 0;
				}
				if (ret)
					return ret;
			} else if (!strcmp(info, "deck")) {
				if (d->nslides != 1 || notes || meta_open)
					ret = problem(ps, k, "one deck block, in the title slide's "
						      "body");
				else
					meta_open = k;
				if (ret)
					return ret;
			} else if (!strcmp(info, "quiz")) {
				ret = problem(ps, k, "quiz blocks belong in lessons, not decks");
				if (ret)
					return ret;
			}
			continue;
		}
		if (line_is(ps, k, "Notes:")) {
			if (notes) {
				ret = problem(ps, k, "a second 'Notes:' in one slide (first on line %u)",
					      notes);
				if (ret)
					return ret;
				continue;
			}
			notes = k;
		} else if (level && heading_of(ps, k, &t, &tn) && !notes) {
			ret = problem(ps, k, "one heading per slide: start a new slide with '---'");
			if (ret)
				return ret;
		}
	}
	if (in_fence && plot_open && !plot_close) {
		ret = problem(ps, plot_open, "the plot block is not closed");
		if (ret)
			return ret;
		plot_close = to;
	}
	if (in_fence && meta_open && !meta_close) {
		ret = problem(ps, meta_open, "the deck block is not closed");
		if (ret)
			return ret;
		meta_close = to;
	}
	if (meta_open) {
		ret = parse_meta(ps, meta_open, meta_close);
		if (ret)
			return ret;
	}
	if (plot_open) {
		ret = parse_plot(ps, sl, plot_open, plot_close);
		if (ret)
			return ret;
	}
	body_end = notes ? notes : to;
	for (unsigned int k = i; k < body_end; k++) {
		const char *s;
		size_t n;

		if ((plot_open && k >= plot_open && k <= plot_close) ||
		    (meta_open && k >= meta_open && k <= meta_close))
			continue;
		line_at(ps, k, &s, &n);
		if (rt_buf_append(&body, s, n) || rt_buf_puts(&body, "\n")) {
			rt_buf_fini(&body);
			return -ENOMEM;
		}
	}
	if (!body.len && rt_buf_puts(&body, ""))
		return -ENOMEM;
	sl->body = rt_buf_take(&body);
	if (!sl->body)
		return -ENOMEM;
	if (notes) {
		sl->notes_line = notes + 1;
		sl->notes = join_lines(ps, notes + 1, to);
		if (!sl->notes)
			return -ENOMEM;
	}
	return 0;
}

/* Split at "---" lines outside fences. */
static int split(struct parse *ps)
{
	unsigned int start = 1;
	bool in_fence = false;
	char ch = 0;
	size_t fw = 0;
	int ret;

	for (unsigned int i = 1; i <= ps->nlines; i++) {
		const char *s;
		size_t n;

		line_at(ps, i, &s, &n);
		if (in_fence) {
			in_fence = !fence_close(s, n, ch, fw);
			continue;
		}
		if (fence_open(s, n, &ch, &fw)) {
			in_fence = true;
			continue;
		}
		if (!line_is(ps, i, "---"))
			continue;
		if (i > 1 && !line_blank(ps, i - 1)) {
			ret = problem(ps, i, "a blank line must come before '---' (else CommonMark "
				      "reads the line above as a heading)");
			if (ret)
				return ret;
		}
		ret = parse_slide(ps, start, i);
		if (ret)
			return ret;
		start = i + 1;
	}
	if (start <= ps->nlines || !ps->deck->nslides)
		return parse_slide(ps, start, ps->nlines + 1);
	return problem(ps, ps->nlines, "the deck ends with '---': the last slide is empty");
}

/* Sort problems by line, stable (insertion sort: a deck has few). */
static void sort_problems(struct slides_deck *d)
{
	for (size_t i = 1; i < d->nproblems; i++) {
		struct lesson_problem p = d->problems[i];
		size_t k = i;

		while (k && d->problems[k - 1].line > p.line) {
			d->problems[k] = d->problems[k - 1];
			k--;
		}
		d->problems[k] = p;
	}
}

/* Copy the CommonMark problems lesson_doc finds in the whole file. */
static int copy_doc_problems(struct parse *ps, const struct lesson_doc *doc)
{
	struct slides_deck *d = ps->deck;

	for (size_t i = 0; i < doc->nproblems; i++) {
		if (lesson_grow(&d->problems, &ps->cap_problems, d->nproblems, sizeof(*d->problems)))
			return -ENOMEM;
		d->problems[d->nproblems].line = doc->problems[i].line;
		d->problems[d->nproblems].msg = strdup(doc->problems[i].msg);
		if (!d->problems[d->nproblems].msg)
			return -ENOMEM;
		d->nproblems++;
	}
	return 0;
}

static char *dir_of(const char *name)
{
	const char *slash = strrchr(name, '/');

	if (!slash)
		return strdup(".");
	if (slash == name)
		return strdup("/");
	return dup_n(name, (size_t)(slash - name));
}

static int parse_with(const char *text, size_t len, const char *name, bool resolve,
		      struct slides_deck **out, char **cause)
{
	struct parse ps = { 0 };
	struct lesson_doc *doc = NULL;
	struct slides_deck *d;
	int ret = -ENOMEM;

	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		goto out;
	ps.deck = d;
	ps.text = text;
	ps.len = len;
	d->name = strdup(name ? name : "deck");
	d->dir = d->name ? dir_of(d->name) : NULL;
	if (!d->dir || index_lines(&ps))
		goto out;
	ret = lesson_doc_parse(text, len, d->name, &doc, cause);
	if (ret)
		goto out;
	if (resolve) {
		struct rt_buf lessons = RT_BUF_INIT;

		ret = rt_buf_printf(&lessons, "%s/../lessons", d->dir);
		if (!ret)
			ret = lesson_doc_resolve(doc, rt_buf_str(&lessons));
		rt_buf_fini(&lessons);
		if (ret)
			goto out;
	}
	ret = copy_doc_problems(&ps, doc);
	if (!ret)
		ret = split(&ps);
	if (ret)
		goto out;
	d->title = strdup(d->nslides && d->slides[0].level == 1 && doc->title ? doc->title :
			  d->name);
	if (!d->title) {
		ret = -ENOMEM;
		goto out;
	}
	sort_problems(d);
	*out = d;
	d = NULL;
out:
	lesson_doc_free(doc);
	free(ps.off);
	slides_deck_free(d);
	if (ret)
		return rt_err(cause, ret, "%s: out of memory while parsing", name ? name : "deck");
	return 0;
}

int slides_deck_parse(const char *text, size_t len, const char *name, struct slides_deck **out,
		      char **cause)
{
	return parse_with(text, len, name, false, out, cause);
}

/* A deck-relative file a plot names must be there. */
static int check_file(struct slides_deck *d, size_t *cap, unsigned int line, const char *rel)
{
	struct parse ps = { .deck = d, .cap_problems = *cap };
	struct rt_buf b = RT_BUF_INIT;
	int ret;

	ret = rt_buf_printf(&b, "%s/%s", d->dir, rel);
	if (!ret && access(rt_buf_str(&b), R_OK))
		ret = problem(&ps, line, "results document '%s' not found beside the deck", rel);
	*cap = ps.cap_problems;
	rt_buf_fini(&b);
	return ret;
}

int slides_deck_load(const char *path, struct slides_deck **out, char **cause)
{
	struct slides_deck *d = NULL;
	char *data = NULL;
	size_t len = 0, cap;
	int ret;

	*out = NULL;
	ret = rt_file_load(path, 0, SLIDES_MAX_BYTES, &data, &len, cause);
	if (ret == -EFBIG && cause) {
		free(*cause);
		*cause = NULL;
		return rt_err(cause, ret, "%s: is larger than %u bytes, the most a deck may be",
			      path, SLIDES_MAX_BYTES);
	}
	if (ret)
		return ret;
	ret = parse_with(data, len, path, true, &d, cause);
	free(data);
	if (ret)
		return ret;
	cap = d->nproblems;	/* the array holds exactly that many: grow from there */
	for (size_t i = 0; i < d->nslides && !ret; i++) {
		const struct slides_plot *p = d->slides[i].plot;

		if (!p || !p->results)
			continue;
		if (!p->in_class && plot_path_ok(p->results))
			ret = check_file(d, &cap, p->line, p->results);
		if (!ret && p->sample && plot_path_ok(p->sample))
			ret = check_file(d, &cap, p->line, p->sample);
	}
	if (ret) {
		slides_deck_free(d);
		return rt_err(cause, ret, "%s: out of memory while checking", path);
	}
	sort_problems(d);
	*out = d;
	return 0;
}

void slides_deck_free(struct slides_deck *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nslides; i++) {
		struct slide *s = &d->slides[i];

		free(s->title);
		free(s->body);
		free(s->notes);
		if (s->plot) {
			free(s->plot->results);
			free(s->plot->sample);
			free(s->plot->caption);
			free(s->plot);
		}
	}
	for (size_t i = 0; i < d->nproblems; i++)
		free(d->problems[i].msg);
	free(d->problems);
	free(d->slides);
	free(d->name);
	free(d->dir);
	free(d->title);
	free(d->course);
	free(d->teacher);
	free(d->date);
	free(d->licence);
	free(d);
}

int slides_plot_path(const struct slides_deck *deck, const struct slides_plot *plot,
		     const char *class_dir, char **path)
{
	struct rt_buf b = RT_BUF_INIT;
	int ret;

	*path = NULL;
	if (plot->in_class && class_dir)
		ret = rt_buf_printf(&b, "%s/%s", class_dir, plot->results);
	else if (plot->in_class && plot->sample)
		ret = rt_buf_printf(&b, "%s/%s", deck->dir, plot->sample);
	else if (plot->in_class)
		return -ENOENT;
	else
		ret = rt_buf_printf(&b, "%s/%s", deck->dir, plot->results);
	if (!ret)
		*path = rt_buf_take(&b);
	rt_buf_fini(&b);
	return ret ? ret : (*path ? 0 : -ENOMEM);
}

int slides_plot_read(const struct slides_deck *deck, const struct slides_plot *plot,
		     const char *class_dir, const struct rt_result_opts *opts,
		     struct rt_result **res, char **shown, char **cause)
{
	const char *dir = deck->dir, *name = plot->results;
	char *text = NULL;
	size_t len = 0;
	int ret;

	*res = NULL;
	*shown = NULL;
	if (plot->in_class && class_dir)
		dir = class_dir;
	else if (plot->in_class && plot->sample)
		name = plot->sample;
	/* A name that leaves the folder is not repeated: it may be a host path. */
	if (asprintf(shown, "%s%s", plot->in_class && class_dir ? "class:" : "",
		     plot_path_ok(name) ? name : "(a name outside the folder)") < 0) {
		*shown = NULL;
		return rt_err(cause, -ENOMEM, "out of memory");
	}
	if (plot->in_class && !class_dir && !plot->sample)
		return -ENOENT;
	/* A deck names the file: it stays in its folder, as the deck's name says it. */
	ret = rt_file_load_beneath(dir, name, RT_RESULT_MAX_FILE, &text, &len, NULL);
	if (ret == -EINVAL)
		return rt_err(cause, ret, "%s: not a path below the %s folder", *shown,
			      plot->in_class && class_dir ? "class" : "deck's");
	if (ret == -ELOOP)
		return rt_err(cause, ret, "%s: a symbolic link on the way, which rtlab does not "
			      "follow out of the folder", *shown);
	if (ret)
		return rt_err(cause, ret, "%s: cannot read it: %s", *shown,
			      ret == -EINVAL || ret == -EISDIR ? "not a regular file" :
			      strerror(-ret));
	ret = rt_result_parse(text, len, *shown, opts, res, cause);
	free(text);
	return ret;
}

int slides_markdown_html(const char *md, struct rt_buf *out)
{
	char *html = cmark_markdown_to_html(md, strlen(md), CMARK_OPT_DEFAULT);
	int ret;

	if (!html)
		return -ENOMEM;
	ret = rt_buf_puts(out, html);
	free(html);
	return ret;
}

size_t slides_deck_rows(const struct slides_deck *deck, size_t i, unsigned int cols)
{
	const struct slide *s = &deck->slides[i];
	struct lesson_layout *lay = NULL;
	struct lesson_doc *doc = NULL;
	char *cause = NULL;
	size_t rows = 0;

	if (lesson_doc_parse(s->body, strlen(s->body), deck->name, &doc, &cause) == 0 &&
	    lesson_doc_layout(doc, cols, &lay) == 0) {
		rows = lay->nlines;
		/* Blank lines at the ends are not drawn. */
		while (rows && lay->lines[rows - 1].kind == LESSON_LINE_BLANK)
			rows--;
		if (s->plot)
			rows += SLIDES_PLOT_ROWS;
		if (!rows)
			rows = 1;	/* 0 means no memory */
	}
	free(cause);
	lesson_layout_free(lay);
	lesson_doc_free(doc);
	return rows;
}

int slides_lint_file(const char *path, struct rt_buf *errors)
{
	struct slides_deck *d = NULL;
	char *cause = NULL;
	int ret, count = 0;
	size_t rows;

	ret = slides_deck_load(path, &d, &cause);
	if (ret) {
		rt_buf_printf(errors, "%s\n", cause ? cause : path);
		free(cause);
		return ret;
	}
	if (!lesson_file_name_ok(path)) {
		count++;
		ret = rt_buf_printf(errors, "%s:1: file name must be NN-slug.md "
				    "(two digits, lower-case slug)\n", path);
	}
	if (!ret)
		ret = lesson_stale_add(path, d->name, SLIDES_MAX_BYTES, &d->problems,
				       &d->nproblems);
	/* The deck's own problems, its stale phrases and the fit, in line order. */
	for (size_t i = 0, p = 0; !ret && (i < d->nslides || p < d->nproblems);) {
		if (p < d->nproblems && (i >= d->nslides || d->problems[p].line <= d->slides[i].line)) {
			ret = rt_buf_printf(errors, "%s\n", d->problems[p++].msg);
			count++;
			continue;
		}
		rows = slides_deck_rows(d, i, SLIDES_BODY_COLS);
		if (!rows) {
			ret = -ENOMEM;
			break;
		}
		if (rows > SLIDES_BODY_ROWS) {
			ret = rt_buf_printf(errors, "%s:%u: slide %zu needs %zu rows at %u columns, "
					    "more than the %u an 80x24 screen has: split it\n", path,
					    d->slides[i].line, i + 1, rows, SLIDES_BODY_COLS,
					    SLIDES_BODY_ROWS);
			count++;
		}
		i++;
	}
	slides_deck_free(d);
	return ret ? ret : count;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int slides_dir_scan(const char *dir, char ***paths, size_t *n, char **cause)
{
	struct dirent *e;
	size_t cap = 0;
	char **v = NULL;
	int ret = 0;
	DIR *d;

	*paths = NULL;
	*n = 0;
	d = opendir(dir);
	if (!d)
		return rt_err(cause, -errno, "%s: %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		struct rt_buf b = RT_BUF_INIT;

		if (len < 7 || !isdigit((unsigned char)e->d_name[0]) ||
		    !isdigit((unsigned char)e->d_name[1]) || e->d_name[2] != '-' ||
		    strcmp(e->d_name + len - 3, ".md"))
			continue;
		if (lesson_grow(&v, &cap, *n, sizeof(*v)) || rt_buf_printf(&b, "%s/%s", dir, e->d_name)) {
			rt_buf_fini(&b);
			ret = -ENOMEM;
			break;
		}
		v[*n] = rt_buf_take(&b);
		if (!v[*n]) {
			ret = -ENOMEM;
			break;
		}
		(*n)++;
	}
	closedir(d);
	if (ret) {
		slides_paths_free(v, *n);
		*n = 0;
		return rt_err(cause, ret, "out of memory");
	}
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_str);
	*paths = v;
	return 0;
}

void slides_paths_free(char **paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

long slides_dir_find(char *const *paths, size_t n, const char *arg)
{
	size_t alen = strlen(arg);
	bool digits = alen && alen <= 2;

	for (size_t k = 0; k < alen; k++)
		digits = digits && isdigit((unsigned char)arg[k]);
	for (size_t i = 0; i < n; i++) {
		const char *base = strrchr(paths[i], '/');
		size_t blen;

		base = base ? base + 1 : paths[i];
		blen = strlen(base);
		if (digits && atoi(arg) == atoi(base))
			return (long)i;
		if (!strcmp(base, arg) || (blen == alen + 3 && !strncmp(base, arg, alen)))
			return (long)i;
		if (blen - 6 == alen && !strncmp(base + 3, arg, alen))
			return (long)i;
	}
	return -1;
}
