/*
 * fuzz_journal: the journal file parser reads files from disk that a crash,
 * a full disk or a person may have mangled. Whatever the bytes, parsing must
 * not crash, leak or read out of bounds; and whatever parses must survive a
 * round trip: formatting it and parsing that again gives the same text.
 * Nothing here touches the host (no replay).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_journal-int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	rt_buf_fini(&one);
	rt_buf_fini(&two);
	rt_journal_doc_fini(&again);
	rt_journal_doc_fini(&doc);
	return 0;
}
