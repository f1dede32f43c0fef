/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_progress_merge: one progress document merged into another, keeping
 * both sides' entries (rt_progress.h says the rules). It is the progress
 * document's owner that knows its keys, so the classroom VM's pull
 * (vm/vm_pull.c) hands it the two documents and two callbacks: where a
 * guest's result path now is on the host, and where the notes go.
 */
#include "rt_progress.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_buf.h"
#include "rt_text.h"

static int merge_note(const struct rt_progress_merge_ops *ops, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* One note, its arguments escaped for a terminal (they are the guest's ids). */
static int merge_note(const struct rt_progress_merge_ops *ops, const char *fmt, ...)
{
	struct rt_buf b = RT_BUF_INIT;
	va_list ap;
	char *s;
	int ret;

	va_start(ap, fmt);
	ret = rt_text_vprintf(&b, fmt, ap);
	va_end(ap);
	s = ret ? NULL : rt_buf_take(&b);
	rt_buf_fini(&b);
	if (!s)
		return -ENOMEM;
	return ops->note(ops->priv, s);
}

/* RFC 3339 UTC times compare as strings; a missing time is older than any. */
static int vm_time_cmp(const json_t *a, const json_t *b)
{
	const char *ta = json_string_value(json_object_get(a, "time"));
	const char *tb = json_string_value(json_object_get(b, "time"));

	if (!ta || !tb)
		return !!ta - !!tb;
	return strcmp(ta, tb);
}

/*
 * A copy of the guest's lab entry @g, its result rewritten to the host's copy.
 * A result this pull did not take in (a path on the host such as /etc/shadow,
 * or a document that was skipped) is dropped: only what was pulled may be named,
 * or the guest would choose what `rtlab grade` reads on the host.
 */
static json_t *merge_lab_copy(const json_t *g, const struct rt_progress_merge_ops *ops)
{
	json_t *c = json_deep_copy(g);
	const char *to = ops->result_path(ops->priv, json_string_value(json_object_get(g, "result")));

	if (!c)
		return NULL;
	if (to ? json_object_set_new(c, "result", json_string(to)) :
	    json_object_get(c, "result") && json_object_del(c, "result")) {
		json_decref(c);
		return NULL;
	}
	return c;
}

/* Members of @g that @h lacks are copied into @h. 0 or -ENOMEM. */
static int merge_add_missing(json_t *h, const json_t *g)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)g, key, v)
		if (!json_object_get(h, key) && json_object_set_new(h, key, json_deep_copy(v)))
			return -ENOMEM;
	return 0;
}

/*
 * Timed entries (quiz answers, predictions, labs) of one object: the later one wins.
 * @what names them in the notes ("lesson 03: question q1"), @lab rewrites result paths.
 */
static int merge_timed(json_t *h, const json_t *g, const char *what, bool quiz,
			       bool lab, const struct rt_progress_merge_ops *ops)
{
	const char *key;
	json_t *gv;

	json_object_foreach((json_t *)g, key, gv) {
		json_t *hv = json_object_get(h, key), *c;
		json_int_t ha, ga;

		if (!json_is_object(gv))
			continue;
		if (hv && (!json_is_object(hv) || vm_time_cmp(gv, hv) <= 0)) {
			if (hv && json_is_object(hv) && !json_equal(hv, gv) && vm_time_cmp(gv, hv) < 0 &&
			    merge_note(ops, "%s %s: kept the host's (newer than the VM's)", what, key))
				return -ENOMEM;
			if (quiz && json_is_object(hv)) {
				ha = json_integer_value(json_object_get(hv, "attempts"));
				ga = json_integer_value(json_object_get(gv, "attempts"));
				if (ga > ha && json_object_set_new(hv, "attempts", json_integer(ga)))
					return -ENOMEM;
			}
			continue;
		}
		c = lab ? merge_lab_copy(gv, ops) : json_deep_copy(gv);
		if (!c)
			return -ENOMEM;
		if (quiz && hv) {
			ha = json_integer_value(json_object_get(hv, "attempts"));
			ga = json_integer_value(json_object_get(gv, "attempts"));
			if (ha > ga && json_object_set_new(c, "attempts", json_integer(ha))) {
				json_decref(c);
				return -ENOMEM;
			}
		}
		if (merge_note(ops, "%s %s: %s", what, key, hv ? "the VM's (newer than the host's)" :
				 "from the VM")) {
			json_decref(c);
			return -ENOMEM;
		}
		if (json_object_set_new(h, key, c))
			return -ENOMEM;
	}
	return 0;
}

/* Get @key of @parent as an object, creating an empty one. NULL: not an object, or ENOMEM. */
static json_t *merge_obj(json_t *parent, const char *key)
{
	json_t *o = json_object_get(parent, key);

	if (o)
		return json_is_object(o) ? o : NULL;
	o = json_object();
	if (!o || json_object_set_new(parent, key, o))
		return NULL;
	return o;
}

static int merge_lesson(json_t *h, const json_t *g, const char *id,
				const struct rt_progress_merge_ops *ops)
{
	json_t *gr = json_object_get(g, "read"), *gp = json_object_get(g, "position");
	json_t *hp = json_object_get(h, "position");
	char what[RT_PROGRESS_MAX_ID + 32];
	int ret;

	if (json_is_true(gr) && !json_is_true(json_object_get(h, "read"))) {
		if (json_object_set_new(h, "read", json_true()) ||
		    merge_note(ops, "lesson %s: read (in the VM)", id))
			return -ENOMEM;
	}
	if (json_is_integer(gp) && (!json_is_integer(hp) ||
				    json_integer_value(gp) > json_integer_value(hp))) {
		if (json_object_set_new(h, "position", json_integer(json_integer_value(gp))) ||
		    merge_note(ops, "lesson %s: reading position %lld (the VM's, further on)", id,
				 (long long)json_integer_value(gp)))
			return -ENOMEM;
	}
	for (int i = 0; i < 2; i++) {
		const char *k = i ? "predictions" : "quiz";
		json_t *gs = json_object_get(g, k), *hs;

		if (!json_is_object(gs))
			continue;
		hs = merge_obj(h, k);
		if (!hs)
			continue;
		snprintf(what, sizeof(what), "lesson %s: %s", id, i ? "prediction" : "question");
		ret = merge_timed(hs, gs, what, !i, false, ops);
		if (ret)
			return ret;
	}
	return merge_add_missing(h, g);
}

int rt_progress_merge(json_t *host, const json_t *guest, const struct rt_progress_merge_ops *ops)
{
	json_t *gl = json_object_get(guest, "lessons"), *hl, *glabs, *hlabs, *v;
	const char *key;
	int ret;

	if (json_is_object(gl) && (hl = merge_obj(host, "lessons"))) {
		json_object_foreach(gl, key, v) {
			json_t *hv = json_object_get(hl, key);

			if (!json_is_object(v))
				continue;
			if (!hv) {
				if (json_object_set_new(hl, key, json_deep_copy(v)) ||
				    merge_note(ops, "lesson %s: from the VM", key))
					return -ENOMEM;
				continue;
			}
			if (!json_is_object(hv))
				continue;
			ret = merge_lesson(hv, v, key, ops);
			if (ret)
				return ret;
		}
	}
	glabs = json_object_get(guest, "labs");
	if (json_is_object(glabs) && (hlabs = merge_obj(host, "labs"))) {
		ret = merge_timed(hlabs, glabs, "lab", false, true, ops);
		if (ret)
			return ret;
	}
	json_object_foreach((json_t *)guest, key, v)
		if (strcmp(key, "updated") && !json_object_get(host, key) &&
		    json_object_set_new(host, key, json_deep_copy(v)))
			return -ENOMEM;
	return 0;
}
