/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_lesson_index: the title reader of the lesson index (front matter,
 * fenced blocks, the first "# " heading, UTF-8 checks) on arbitrary bytes.
 * Every lesson file in a data dir passes through it when the menu opens.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lesson/lesson_index.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	char *title = NULL, *problem = NULL;
	int ret;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	ret = lesson_index_title_of("01-fuzz.md", text, size, &title, &problem);
	/* Exactly one of title and problem comes back, as documented. */
	if ((ret == 0) != (title != NULL))
		abort();
	if (ret == -EINVAL && !problem)
		abort();
	free(title);
	free(problem);
	free(text);
	return 0;
}
