/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_vm_pull: vm_pull_merge_progress() on two progress documents from arbitrary bytes,
 * the host's before the first NUL byte and the guest's after it (the guest's is what a
 * classroom VM wrote). When both parse as rtlab.progress/1, the merge must succeed, give a
 * document that still parses, keep every lesson, question, prediction and lab of both
 * sides, and change nothing when done a second time; no lab may name a result the host
 * did not name before (nothing was pulled here), and no note may carry a control
 * character or a bidi override raw; anything else aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_progress.h"
#include "vm/vm_pull.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every lab of @m names the result the host's @h named, or none. */
static void results_host_only(const json_t *m, const json_t *h)
{
	json_t *labs = json_object_get(m, "labs"), *v;
	const char *key;

	json_object_foreach(labs, key, v) {
		json_t *r = json_object_get(v, "result");

		if (r && !json_equal(r, json_object_get(json_object_get(json_object_get(h, "labs"),
									 key), "result")))
			abort();
	}
}

/* A note is escaped: no C0, DEL, C1 (raw or in UTF-8) or bidi control. */
static void escaped(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f || (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) ||
		    (*p == 0xe2 && p[1] == 0x80 && p[2] >= 0xaa && p[2] <= 0xae) ||
		    (*p == 0xe2 && p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9))
			abort();
}

/* Every key of @g's object at @a(.@b) is in @m's. */
static void keeps(const json_t *m, const json_t *g, const char *a, const char *b)
{
	json_t *go = json_object_get(g, a), *mo = json_object_get(m, a), *v;
	const char *key;

	json_object_foreach(go, key, v) {
		json_t *mv = json_object_get(mo, key);

		if (!mv)
			abort();
		if (b) {
			json_t *w;
			const char *k2;

			json_object_foreach(json_object_get(v, b), k2, w)
				if (!json_object_get(json_object_get(mv, b), k2))
					abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	struct rt_progress *h = NULL, *g = NULL, *again = NULL;
	struct vm_pull_report r = { 0 };
	json_t *m, *before, *gl, *v, *host;
	const char *id;
	char *text;

	if (!nul)
		return 0;
	if (rt_progress_parse((const char *)data, (size_t)(nul - data), "host", &h, NULL) ||
	    rt_progress_parse((const char *)nul + 1, size - (size_t)(nul - data) - 1, "guest",
			      &g, NULL))
		goto out;
	m = rt_progress_json(h);
	host = json_deep_copy(m);
	if (!host || vm_pull_merge_progress(m, rt_progress_json(g), &r))
		abort();
	results_host_only(m, host);
	json_decref(host);
	for (size_t i = 0; i < r.nchanges; i++)
		escaped(r.changes[i]);
	text = rt_progress_to_string(h);
	if (!text || rt_progress_parse(text, strlen(text), "merged", &again, NULL))
		abort();
	free(text);
	keeps(m, rt_progress_json(g), "labs", NULL);
	keeps(m, rt_progress_json(g), "lessons", NULL);
	gl = json_object_get(rt_progress_json(g), "lessons");
	json_object_foreach(gl, id, v) {
		json_t *ml = json_object_get(json_object_get(m, "lessons"), id);

		keeps(ml, v, "quiz", NULL);
		keeps(ml, v, "predictions", NULL);
	}
	before = json_deep_copy(m);
	if (!before || vm_pull_merge_progress(m, rt_progress_json(g), &r) || !json_equal(before, m))
		abort();
	json_decref(before);
out:
	vm_pull_report_fini(&r);
	rt_progress_free(h);
	rt_progress_free(g);
	rt_progress_free(again);
	return 0;
}
