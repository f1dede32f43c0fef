/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_qemu_console: the classroom VM's console parsers on arbitrary bytes. The first byte
 * picks the tail length; the rest is console text (not NUL-terminated, as read from the
 * log). The ready line, the run markers for a fixed nonce, the stderr lines and the tail
 * are all parsed; what comes out must be NUL-terminated and no longer than the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qemu/qemu_console.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct qemu_ready r;
	char *text, *out = NULL, *tail;
	size_t len;
	int status;

	if (!size || size > 1 << 16)
		return 0;
	len = size - 1;
	/* An exact-size copy so reads past the end are caught. */
	text = malloc(len ? len : 1);
	if (!text)
		return 0;
	memcpy(text, data + 1, len);
	if (qemu_console_ready(text, len, &r) == 1)
		qemu_ready_fini(&r);
	if (qemu_console_extract(text, len, "f00d", &out, &status) == 0) {
		if (strlen(out) > len || status < 0 || status > 255)
			abort();
		free(out);
	}
	tail = qemu_console_stderr(text, len);
	if (tail && strlen(tail) > len + 1)
		abort();
	free(tail);
	tail = qemu_console_tail(text, len, data[0] % 40);
	if (tail && strlen(tail) > len)
		abort();
	free(tail);
	free(text);
	return 0;
}
