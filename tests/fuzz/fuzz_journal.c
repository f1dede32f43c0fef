/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_journal: the journal file parser reads files from disk that a crash,
 * a full disk or a person may have mangled. Whatever the bytes, parsing must
 * not crash, leak or read out of bounds; and whatever parses must survive a
 * round trip: formatting it and parsing that again gives the same text.
 * The kind table's verdicts must hold too: an entry the rules accept names
 * a canonical path (no ".", "..", "//") in one of the allowed places, and
 * the verdict is the same after the round trip. Nothing here touches the
 * host (no replay).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_journal-int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* What an accepted path entry may look like, whatever the rules' code says. */
static bool path_plausible(const struct rt_journal_entry *e)
{
	const char *p = e->path;

	if (e->kind == RT_JOURNAL_SCHED || e->kind == RT_JOURNAL_AFFINITY)
		return !p;
	if (!p || p[0] != '/' || strstr(p, "//") || strstr(p, "/./") || strstr(p, "/../"))
		return false;
	if (strlen(p) >= 2 && (!strcmp(p + strlen(p) - 2, "/.") ||
			       !strcmp(p + strlen(p) - 1, "/")))
		return false;
	if (strlen(p) >= 3 && !strcmp(p + strlen(p) - 3, "/.."))
		return false;
	switch (e->kind) {
	case RT_JOURNAL_FILE:
		return starts(p, "/sys/kernel/tracing/") || starts(p, "/sys/kernel/debug/tracing/") ||
		       starts(p, "/proc/sys/kernel/sched_rt_") ||
		       starts(p, "/sys/kernel/debug/sched/fair_server/cpu");
	case RT_JOURNAL_INSTANCE:
		return starts(p, "/sys/kernel/tracing/instances/rtlab") ||
		       starts(p, "/sys/kernel/debug/tracing/instances/rtlab");
	case RT_JOURNAL_NETNS:
		return starts(p, "/run/netns/") && !strchr(p + strlen("/run/netns/"), '/');
	default:
		return true;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rt_journal_doc doc, again;
	struct rt_buf one = RT_BUF_INIT, two = RT_BUF_INIT;
	char *cause = NULL;
	size_t line = 0;

	if (rt_journal_parse((const char *)data, size, &doc, &line, &cause)) {
		/* A rejected file always says where and why. */
		if (!cause || line == 0)
			abort();
		free(cause);
		return 0;
	}
	if (cause)
		abort();
	if (rt_journal_format(&doc, &one))
		abort();
	if (rt_journal_parse(one.data, one.len, &again, NULL, NULL))
		abort();
	if (again.n != doc.n || again.pid != doc.pid || again.start != doc.start ||
	    strcmp(again.boot_id, doc.boot_id))
		abort();
	if (rt_journal_format(&again, &two) || one.len != two.len ||
	    memcmp(one.data, two.data, one.len))
		abort();
	for (const struct rt_journal_entry *e = doc.oldest, *f = again.oldest; e || f;
	     e = e->newer, f = f->newer) {
		if (!e || !f || !e->rejected != !f->rejected)
			abort();
		if (!e->rejected && !path_plausible(e))
			abort();
	}
	rt_buf_fini(&one);
	rt_buf_fini(&two);
	rt_journal_doc_fini(&again);
	rt_journal_doc_fini(&doc);
	return 0;
}
