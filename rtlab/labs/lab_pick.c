/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_pick: which of a learner's results documents `rtlab grade LAB` and
 * `rtlab handin LAB` take. "The latest" was wrong whenever a handout's last
 * step ran one scenario on its own (the cookie handout ends on
 * priority-ticket): the grade then failed checks about scenarios run
 * earlier. The rule: the newest document of the lab that holds everything
 * its grade needs (lab_ops.grade_lacks), else the newest, saying what it
 * lacks.
 */
#include "lab.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "core/rt_buf.h"
#include "core/rt_paths.h"
#include "core/rt_progress.h"
#include "core/rt_result.h"

/* One document of the lab, kept while the newest is looked for. */
struct pick_doc {
	char *path;
	char *created;
	char *lacks;		/* "a, b" or NULL */
	size_t nlacks;
	time_t mtime;
	dev_t dev;		/* the file, so one reached by two names counts once */
	ino_t ino;
};

struct pick_set {
	struct pick_doc *v;
	size_t n, cap;
};

int lab_lacks_scenarios(const struct rt_result *res, const char *const *names,
			struct rt_buf *missing)
{
	int n = 0;

	for (; names && *names; names++) {
		if (rt_result_scenario(res, *names))
			continue;
		if (rt_buf_printf(missing, ", %s", *names))
			return -ENOMEM;
		n++;
	}
	return n;
}

/*
 * Reads @path as a document of @lab into @set; anything else is passed over.
 * A link is followed only when @follow (the document the learner named).
 */
static int pick_add(const struct lab_ops *lab, struct pick_set *set, const char *path,
		    bool follow)
{
	struct rt_result_opts opts = { .labs = lab_names() };
	struct rt_result *res = NULL;
	struct pick_doc d = { 0 };
	struct rt_buf miss;
	struct stat st;
	int n = 0, ret = 0;

	if ((follow ? stat(path, &st) : lstat(path, &st)) || !S_ISREG(st.st_mode))
		return 0;
	for (size_t i = 0; i < set->n; i++)
		if (set->v[i].dev == st.st_dev && set->v[i].ino == st.st_ino)
			return 0;
	if (rt_result_read(path, &opts, &res, NULL))
		return 0;	/* not a document this rtlab reads: not the one to grade */
	if (strcmp(rt_result_lab(res), lab->name)) {
		rt_result_free(res);
		return 0;
	}
	rt_buf_init(&miss);
	if (lab->grade_lacks)
		n = lab->grade_lacks(res, &miss);
	d.path = strdup(path);
	d.created = strdup(rt_result_created(res) ?: "");
	d.mtime = st.st_mtime;
	d.dev = st.st_dev;
	d.ino = st.st_ino;
	if (n > 0) {
		d.nlacks = (size_t)n;
		d.lacks = strdup(rt_buf_str(&miss) + 2);
	}
	rt_buf_fini(&miss);
	rt_result_free(res);
	if (n < 0 || !d.path || !d.created || (n > 0 && !d.lacks)) {
		ret = -ENOMEM;
	} else if (set->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 16;
		struct pick_doc *v = realloc(set->v, cap * sizeof(*v));

		if (!v) {
			ret = -ENOMEM;
		} else {
			set->v = v;
			set->cap = cap;
		}
	}
	if (ret) {
		free(d.path);
		free(d.created);
		free(d.lacks);
		return ret;
	}
	set->v[set->n++] = d;
	return 0;
}

/* Newest first: the document's own time, then the file's, then the name (a stable order). */
static int pick_cmp(const void *a, const void *b)
{
	const struct pick_doc *x = a, *y = b;
	int c = strcmp(y->created, x->created);

	if (c)
		return c;
	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? 1 : -1;
	return strcmp(y->path, x->path);
}

static int pick_scan(const struct lab_ops *lab, const char *dir, struct pick_set *set)
{
	size_t plen = strlen(lab->name);
	struct dirent *e;
	DIR *d;
	int ret = 0;

	if (!dir || !(d = opendir(dir)))
		return 0;	/* no results folder yet: no document */
	while (!ret && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char *path;

		/* The lab's own documents are named after it; --json FILE ones come via @named. */
		if (len < 6 || strcmp(e->d_name + len - 5, ".json") ||
		    strncmp(e->d_name, lab->name, plen))
			continue;
		if (asprintf(&path, "%s/%s", dir, e->d_name) < 0) {
			ret = -ENOMEM;
			break;
		}
		ret = pick_add(lab, set, path, false);
		free(path);
	}
	closedir(d);
	return ret;
}

static void pick_set_fini(struct pick_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		free(set->v[i].path);
		free(set->v[i].created);
		free(set->v[i].lacks);
	}
	free(set->v);
}

static int pick_explain(const struct lab_ops *lab, const struct pick_set *set, size_t chosen,
			struct lab_pick *out)
{
	const struct pick_doc *c = &set->v[chosen], *newest = &set->v[0];
	int r;

	out->whole = !c->nlacks;
	if (!lab->grade_lacks)
		r = asprintf(&out->why, "%s: the newest %s document (of %zu)", c->path, lab->name,
			     set->n);
	else if (!out->whole)
		r = asprintf(&out->why, "%s: none of the %zu %s document(s) holds everything the "
			     "grade needs; this, the newest, lacks %s (run `rtlab lab run %s` "
			     "with them)", c->path, set->n, lab->name, c->lacks, lab->name);
	else if (chosen == 0)
		r = asprintf(&out->why, "%s: the newest %s document, and it holds everything the "
			     "grade needs", c->path, lab->name);
	else
		r = asprintf(&out->why, "%s: the newest %s document that holds everything the "
			     "grade needs; %zu newer one(s) lack some (the newest, %s, lacks %s)",
			     c->path, lab->name, chosen, newest->path, newest->lacks);
	if (r < 0) {
		out->why = NULL;
		return -ENOMEM;
	}
	out->path = strdup(c->path);
	return out->path ? 0 : -ENOMEM;
}

int lab_pick_graded(const struct lab_ops *lab, const char *dir, const char *const *named,
		    struct lab_pick *out)
{
	struct pick_set set = { 0 };
	size_t chosen = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = pick_scan(lab, dir, &set);
	for (; !ret && named && *named; named++)
		ret = pick_add(lab, &set, *named, true);
	if (!ret && set.n) {
		qsort(set.v, set.n, sizeof(set.v[0]), pick_cmp);
		while (chosen < set.n && set.v[chosen].nlacks)
			chosen++;
		ret = pick_explain(lab, &set, chosen < set.n ? chosen : 0, out);
	}
	pick_set_fini(&set);
	if (ret)
		lab_pick_fini(out);
	return ret;
}

int lab_pick_learner(const struct lab_ops *lab, struct lab_pick *out)
{
	struct rt_progress *p = NULL;
	struct rt_progress_lab pl;
	char *state = rt_paths_state_dir(), *dir = NULL;
	const char *named[RT_PROGRESS_MAX_DOCS + 2] = { NULL };
	size_t n = 0;
	int ret;

	if (state && asprintf(&dir, "%s/results", state) < 0)
		dir = NULL;
	/* A progress file that cannot be read names no document: the folder still does. */
	if (!rt_progress_load(NULL, &p, NULL) && !rt_progress_lab_get(p, lab->name, &pl)) {
		if (pl.result)
			named[n++] = pl.result;
		for (size_t i = 0; i < pl.ndocuments; i++)
			named[n++] = pl.documents[i];
	}
	ret = lab_pick_graded(lab, dir, named, out);
	rt_progress_free(p);
	free(dir);
	free(state);
	return ret;
}

void lab_pick_fini(struct lab_pick *p)
{
	free(p->path);
	free(p->why);
	memset(p, 0, sizeof(*p));
}
