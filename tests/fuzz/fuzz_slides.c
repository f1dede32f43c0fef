/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_slides: a whole deck through the parser, each slide's fit at a width
 * taken from the input, its plot's path and the HTML export (whose plots
 * point at files that do not exist, so only the notes path runs). A slide
 * must lie inside the file, in order, and every problem must name a line of
 * it; anything else is a bug, reported by abort().
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "report/report.h"
#include "lesson/slides.h"
#include "../unit/lesson_labs_fixture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct slides_deck *d = NULL;
	struct rt_buf b = RT_BUF_INIT;
	unsigned int width, lines = 1;
	char *cause = NULL;

	fixture_lesson_labs_init();

	if (size < 1 || size > 1 << 16)
		return 0;
	width = 12 + data[0] % 100;
	for (size_t i = 1; i < size; i++)
		lines += data[i] == '\n';
	if (slides_deck_parse((const char *)data + 1, size - 1, "/nonexistent/01-f.md", &d,
			      &cause)) {
		free(cause);
		return 0;
	}
	if (!d->nslides)
		abort();
	for (size_t i = 0; i < d->nslides; i++) {
		char *path = NULL;

		if (d->slides[i].line > lines || !d->slides[i].title || !d->slides[i].body ||
		    (i && d->slides[i].line <= d->slides[i - 1].line))
			abort();
		slides_deck_rows(d, i, width);
		if (d->slides[i].plot && d->slides[i].plot->results) {
			if (slides_plot_path(d, d->slides[i].plot, "/nonexistent", &path) == 0 &&
			    !path)
				abort();
			free(path);
		}
	}
	for (size_t i = 0; i < d->nproblems; i++)
		if (d->problems[i].line > lines || (i && d->problems[i].line < d->problems[i - 1].line))
			abort();
	report_slides_html(d, NULL, &b);
	rt_buf_fini(&b);
	slides_deck_free(d);
	return 0;
}
