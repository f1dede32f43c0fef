/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_text: rt_text_escape() and rt_file_getline() on arbitrary bytes.
 * Whatever comes in, the escaped text must need no further escaping (no
 * control, DEL, C1 or invalid UTF-8 left, but kept newlines and tabs), and
 * the line reader must keep every line within its cap, take exactly the
 * bytes it read from its budget, and end; anything else aborts.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_file.h"
#include "core/rt_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_escape(const char *s, size_t size, unsigned int flags)
{
	struct rt_buf b = RT_BUF_INIT;
	char esc[RT_TEXT_ESC_MAX];

	if (rt_text_escape(&b, s, size, flags))
		abort();
	for (size_t i = 0; i < b.len;) {
		i += rt_text_char(b.data + i, b.len - i, flags, esc, NULL);
		if (esc[0])
			abort();
	}
	if (b.len < size || strlen(rt_buf_str(&b)) != b.len)
		abort();
	rt_buf_fini(&b);
}

static void check_lines(const char *s, size_t size)
{
	struct rt_buf line = RT_BUF_INIT;
	size_t budget = size / 2 + 1, before;
	FILE *in;
	int n;

	if (!size)
		return;
	in = fmemopen((void *)s, size, "r");
	if (!in)
		abort();
	for (unsigned int calls = 0;; calls++) {
		if (calls > size + 1)
			abort();	/* every call reads a byte or ends */
		before = budget;
		n = rt_file_getline(in, &line, 16, &budget);
		if (budget > before || line.len > 16)
			abort();
		if (n >= 0 && (size_t)n != line.len)
			abort();
		if (n == -ENODATA || n == -EFBIG)
			break;
		if (n < 0 && n != -E2BIG && n != -EILSEQ)
			abort();
	}
	fclose(in);
	rt_buf_fini(&line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_escape((const char *)data, size, 0);
	check_escape((const char *)data, size, RT_TEXT_KEEP_NL);
	check_lines((const char *)data, size);
	return 0;
}
