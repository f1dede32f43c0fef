/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lesson_links: the links of a lesson. While the document is parsed, each
 * link is sorted by its destination (rtlab:lab/<name>, rtlab:lesson/NN,
 * rtlab:glossary#term, http(s), anything else), given a reference number
 * (equal destinations share one) and a label for the references list.
 * Lab names are checked at once (lesson_labs_find()); lessons and glossary
 * terms need the lessons directory, so lesson_doc_resolve() looks them up
 * afterwards.
 */
#include "lesson_doc.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmark.h>

#include "core/rt_buf.h"
#include "core/rt_file.h"
#include "lesson/lesson_labs.h"
#include "lesson_doc-int.h"

/* ---- Classifying links ------------------------------------------------- */

static char *link_label(const struct lesson_link *l, const char *title)
{
	struct rt_buf b = RT_BUF_INIT;
	int ret = 0;

	switch (l->kind) {
	case LESSON_LINK_LAB:
		if (!l->resolved)
			ret = rt_buf_printf(&b, "lab %s (unknown)", l->target);
		else
			ret = rt_buf_printf(&b, "%s lab%s", l->target,
					    l->planned ? " (coming)" : "");
		break;
	case LESSON_LINK_LESSON:
		if (l->resolved && title)
			ret = rt_buf_printf(&b, "lesson %s: %s", l->target, title);
		else
			ret = rt_buf_printf(&b, "lesson %s%s", l->target,
					    l->resolved ? "" : " (coming)");
		break;
	case LESSON_LINK_GLOSSARY:
		ret = rt_buf_printf(&b, "glossary: %s%s", title ? title : l->target,
				    l->resolved ? "" : " (not in the glossary)");
		break;
	case LESSON_LINK_URL:
		ret = rt_buf_puts(&b, l->url);
		break;
	case LESSON_LINK_BAD:
		ret = rt_buf_printf(&b, "%s (not a supported link)", l->url);
		break;
	}
	if (ret) {
		rt_buf_fini(&b);
		return NULL;
	}
	return rt_buf_take(&b);
}

static bool all_digits(const char *s, size_t n)
{
	if (strlen(s) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

int lesson_link_add(struct parse_ctx *pc, cmark_node *node)
{
	struct lesson_doc *doc = pc->doc;
	const char *url = cmark_node_get_url(node);
	unsigned int line = lesson_inline_line(node);
	struct rt_buf text = RT_BUF_INIT;
	struct lesson_link *l;
	const char *rest;
	int ret;

	if (!url)
		url = "";
	ret = lesson_grow(&doc->links, &pc->cap_links, doc->nlinks, sizeof(*doc->links));
	if (ret)
		return ret;
	l = &doc->links[doc->nlinks];
	memset(l, 0, sizeof(*l));
	l->line = line;
	l->url = lesson_strdup(url);
	ret = lesson_flatten(node, &text);
	l->text = rt_buf_take(&text);
	if (ret || !l->url || !l->text)
		goto out_nomem;
	doc->nlinks++;

	if (!strncmp(url, "rtlab:lab/", 10)) {
		int known;

		rest = url + 10;
		l->kind = LESSON_LINK_LAB;
		known = lesson_labs_find(rest, &l->planned);
		l->resolved = known == 0;
		if (known == -ENOENT)
			ret = lesson_problem_add(doc, &pc->cap_problems, line,
						 "unknown lab '%s' in link", rest);
		else if (known)
			ret = lesson_problem_add(doc, &pc->cap_problems, line,
						 "lab '%s' in link not checked: no list of labs "
						 "was given (lesson_labs_set())", rest);
	} else if (!strncmp(url, "rtlab:lesson/", 13)) {
		rest = url + 13;
		l->kind = LESSON_LINK_LESSON;
		if (!all_digits(rest, 2)) {
			l->kind = LESSON_LINK_BAD;
			ret = lesson_problem_add(doc, &pc->cap_problems, line,
						 "lesson link '%s' must be rtlab:lesson/NN (two "
						 "digits)", url);
		}
	} else if (!strncmp(url, "rtlab:glossary#", 15) && url[15]) {
		rest = url + 15;
		l->kind = LESSON_LINK_GLOSSARY;
	} else if (!strncmp(url, "rtlab:", 6)) {
		rest = url;
		l->kind = LESSON_LINK_BAD;
		ret = lesson_problem_add(doc, &pc->cap_problems, line, "unknown rtlab: link '%s' "
					 "(lab/<name>, lesson/NN or glossary#term)", url);
	} else if ((!strncmp(url, "https://", 8) && url[8]) ||
		   (!strncmp(url, "http://", 7) && url[7])) {
		rest = url;
		l->kind = LESSON_LINK_URL;
		l->resolved = true;
	} else {
		rest = url;
		l->kind = LESSON_LINK_BAD;
		ret = lesson_problem_add(doc, &pc->cap_problems, line, "link '%s' is neither an "
					 "rtlab: link nor an http(s) URL", url);
	}
	if (ret)
		return ret;
	l->target = lesson_strdup(rest);
	l->label = link_label(l, NULL);
	if (!l->target || !l->label)
		return -ENOMEM;

	/* Equal destinations share one reference number. */
	for (size_t i = 0; i + 1 < doc->nlinks; i++) {
		if (!strcmp(doc->links[i].url, url)) {
			l->number = doc->links[i].number;
			break;
		}
	}
	if (!l->number)
		l->number = ++doc->nrefs;
	cmark_node_set_user_data(node, (void *)(uintptr_t)l->number);
	return 0;

out_nomem:
	free(l->url);
	free(l->text);
	l->url = l->text = NULL;
	return -ENOMEM;
}

/* ---- Resolving links --------------------------------------------------- */

/* Anchor of a heading or link target (FORMAT.md): "Wake-up latency" -> "wake-up-latency". */
static char *anchor_of(const char *s)
{
	size_t n = strlen(s);
	char *a = malloc(n + 1);
	size_t k = 0;
	bool dash = false;

	if (!a)
		return NULL;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x80 && isalnum(c)) {
			if (dash && k)
				a[k++] = '-';
			a[k++] = (char)tolower(c);
			dash = false;
		} else {
			dash = true;
		}
	}
	a[k] = '\0';
	return a;
}

struct known_lesson {
	unsigned int number;
	char *title;
};

static void free_lessons(struct known_lesson *kl, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(kl[i].title);
	free(kl);
}

static char *first_line_title(const char *path)
{
	char buf[512], *nl;
	int fd = rt_file_open_read(path, 0, 0, NULL);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	if (strncmp(buf, "# ", 2) || !buf[2])
		return NULL;
	return strdup(buf + 2);
}

static int scan_lessons(const char *dir, struct known_lesson **out, size_t *count)
{
	struct known_lesson *kl = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	*out = NULL;
	*count = 0;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		const char *nm = de->d_name;
		size_t l = strlen(nm);
		char *path;

		if (l < 7 || !isdigit((unsigned char)nm[0]) || !isdigit((unsigned char)nm[1]) ||
		    nm[2] != '-' || strcmp(nm + l - 3, ".md"))
			continue;
		if (lesson_grow(&kl, &cap, n, sizeof(*kl)) ||
		    asprintf(&path, "%s/%s", dir, nm) < 0) {
			closedir(d);
			free_lessons(kl, n);
			return -ENOMEM;
		}
		kl[n].number = (unsigned int)((nm[0] - '0') * 10 + (nm[1] - '0'));
		kl[n].title = first_line_title(path);
		free(path);
		n++;
	}
	closedir(d);
	*out = kl;
	*count = n;
	return 0;
}

/* Anchors of the "## " headings of <dir>/glossary.md, with their texts. */
static int scan_glossary(const char *dir, char ***anchors, char ***texts, size_t *count)
{
	size_t n = 0, cap = 0, cap2 = 0;
	char *path = NULL, *data = NULL;
	cmark_node *root = NULL;
	char **a = NULL, **t = NULL;
	size_t len;
	int ret = 0;

	*anchors = *texts = NULL;
	*count = 0;
	if (asprintf(&path, "%s/glossary.md", dir) < 0)
		return -ENOMEM;
	if (rt_file_read(path, LESSON_MAX_BYTES, &data, &len))
		goto out;
	root = cmark_parse_document(data, len, CMARK_OPT_DEFAULT);
	if (!root) {
		ret = -ENOMEM;
		goto out;
	}
	for (cmark_node *c = cmark_node_first_child(root); c; c = cmark_node_next(c)) {
		struct rt_buf b = RT_BUF_INIT;

		if (cmark_node_get_type(c) != CMARK_NODE_HEADING ||
		    cmark_node_get_heading_level(c) != 2)
			continue;
		if (lesson_grow(&a, &cap, n, sizeof(*a)) || lesson_grow(&t, &cap2, n, sizeof(*t)) ||
		    lesson_flatten(c, &b)) {
			rt_buf_fini(&b);
			ret = -ENOMEM;
			goto out;
		}
		t[n] = rt_buf_take(&b);
		a[n] = t[n] ? anchor_of(t[n]) : NULL;
		if (!a[n]) {
			free(t[n]);
			ret = -ENOMEM;
			goto out;
		}
		n++;
	}
out:
	if (ret) {
		for (size_t i = 0; i < n; i++) {
			free(a[i]);
			free(t[i]);
		}
		free(a);
		free(t);
	} else {
		*anchors = a;
		*texts = t;
		*count = n;
	}
	if (root)
		cmark_node_free(root);
	free(data);
	free(path);
	return ret;
}

int lesson_doc_resolve(struct lesson_doc *doc, const char *dir)
{
	struct known_lesson *kl = NULL;
	char **anchors = NULL, **texts = NULL;
	size_t nkl = 0, ngl = 0, cap = doc->nproblems;
	bool need_lessons = false, need_glossary = false;
	int ret = 0;

	for (size_t i = 0; i < doc->nlinks; i++) {
		need_lessons |= doc->links[i].kind == LESSON_LINK_LESSON;
		need_glossary |= doc->links[i].kind == LESSON_LINK_GLOSSARY;
	}
	if (need_lessons)
		ret = scan_lessons(dir, &kl, &nkl);
	if (!ret && need_glossary)
		ret = scan_glossary(dir, &anchors, &texts, &ngl);
	if (ret)
		goto out;

	for (size_t i = 0; i < doc->nlinks && !ret; i++) {
		struct lesson_link *l = &doc->links[i];
		const char *title = NULL;
		char *want, *label;

		if (l->kind == LESSON_LINK_LESSON) {
			unsigned int num = (unsigned int)atoi(l->target);

			for (size_t k = 0; k < nkl; k++) {
				if (kl[k].number == num) {
					l->resolved = true;
					title = kl[k].title;
				}
			}
			if (!l->resolved)
				ret = lesson_problem_add(doc, &cap, l->line,
							 "no lesson %s for link '%s'", l->target,
							 l->url);
		} else if (l->kind == LESSON_LINK_GLOSSARY) {
			want = anchor_of(l->target);
			if (!want) {
				ret = -ENOMEM;
				break;
			}
			for (size_t k = 0; k < ngl; k++) {
				if (*want && !strcmp(anchors[k], want)) {
					l->resolved = true;
					title = texts[k];
				}
			}
			free(want);
			if (!l->resolved)
				ret = lesson_problem_add(doc, &cap, l->line, "glossary term '%s' "
							 "not found in glossary.md", l->target);
		} else {
			continue;
		}
		label = link_label(l, title);
		if (!label) {
			ret = -ENOMEM;
			break;
		}
		free(l->label);
		l->label = label;
	}
out:
	free_lessons(kl, nkl);
	for (size_t i = 0; i < ngl; i++) {
		free(anchors[i]);
		free(texts[i]);
	}
	free(anchors);
	free(texts);
	return ret;
}

unsigned int lesson_doc_anchor_line(const struct lesson_doc *doc, const char *anchor)
{
	char *want = anchor ? anchor_of(anchor) : NULL;
	unsigned int line = 0;

	for (size_t i = 0; want && *want && i < doc->ntoc && !line; i++) {
		char *a = anchor_of(doc->toc[i].text);

		if (a && !strcmp(a, want))
			line = doc->toc[i].line;
		free(a);
	}
	free(want);
	return line;
}
