/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_lesson: a whole lesson through the parser, the layout at a width
 * taken from the input, the plain text rendering, search and the source-line
 * lookup. Every laid-out line must fit the width; a line that does not is a
 * bug, reported by abort().
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "lesson/lesson_doc.h"
#include "../unit/lesson_labs_fixture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lesson_layout *lay = NULL;
	struct lesson_doc *doc = NULL;
	struct rt_buf b = RT_BUF_INIT;
	unsigned int width, col;
	char *cause = NULL;
	size_t line;

	fixture_lesson_labs_init();

	if (size < 2 || size > 1 << 16)
		return 0;
	width = LESSON_LAYOUT_MIN_WIDTH + (data[0] | (data[1] & 1) << 8) % 180;
	if (lesson_doc_parse((const char *)data + 2, size - 2, "fuzz.md", &doc, &cause)) {
		free(cause);
		return 0;
	}
	if (lesson_doc_layout(doc, width, &lay) == 0) {
		for (size_t i = 0; i < lay->nlines; i++) {
			const struct lesson_line *l = &lay->lines[i];
			unsigned int sum = 0;

			for (size_t k = 0; k < l->nspans; k++)
				sum += l->spans[k].cols;
			if (l->cols > width || sum != l->cols ||
			    (i && l->src_line < lay->lines[i - 1].src_line))
				abort();
		}
		lesson_layout_to_text(lay, &b);
		if (lay->nlines) {
			unsigned int src = lay->lines[lay->nlines / 2].src_line;
			size_t at = lesson_layout_find_source_line(lay, src);

			if (lay->lines[at].src_line != src)
				abort();
			lesson_layout_search(lay, "e", lay->nlines / 2, 1, &line, &col);
			lesson_layout_search(lay, "the", 0, -1, &line, &col);
		}
		lesson_layout_free(lay);
	}
	rt_buf_fini(&b);
	lesson_doc_free(doc);
	return 0;
}
