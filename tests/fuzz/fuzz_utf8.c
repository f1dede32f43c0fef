/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_utf8: rt_utf8 on arbitrary bytes. The first byte is a column budget
 * for rt_utf8_clip(); the rest is the text. Every character must take 1 to
 * 4 bytes and 0 to 2 columns, a valid one must encode back to exactly the
 * bytes it came from, the string's width must be the sum of its characters,
 * and a clip must end on a character boundary within its budget, with the
 * next character too wide to fit; anything else aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The shortest UTF-8 for @cp (which is valid), in @out; returns its length. */
static size_t encode(uint32_t cp, unsigned char out[4])
{
	if (cp < 0x80) {
		out[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (unsigned char)(0xc0 | cp >> 6);
		out[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (unsigned char)(0xe0 | cp >> 12);
		out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (unsigned char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (unsigned char)(0xf0 | cp >> 18);
	out[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (unsigned char)(0x80 | (cp & 0x3f));
	return 4;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data + 1;
	unsigned int sum = 0, budget, used;
	size_t n, i, cut;

	if (!size || size > 1 << 16)
		return 0;
	budget = data[0];
	n = size - 1;
	for (i = 0; i < n;) {
		struct rt_utf8_char c;
		unsigned char enc[4];

		rt_utf8_next(s + i, n - i, &c);
		if (c.len < 1 || c.len > 4 || c.len > n - i || c.cols > 2)
			abort();
		if (c.cp == RT_UTF8_INVALID) {
			if (c.len != 1 || c.printable)
				abort();
		} else if (encode(c.cp, enc) != c.len || memcmp(enc, s + i, c.len) ||
			   (c.printable && rt_utf8_cp_width(c.cp) != (int)c.cols) ||
			   rt_utf8_cp_lower(c.cp) > 0x10ffff) {
			abort();
		}
		sum += c.cols;
		i += c.len;
	}
	if (rt_utf8_width(s, n) != sum)
		abort();

	cut = rt_utf8_clip(s, n, budget, &used);
	if (cut > n || used > budget || rt_utf8_width(s, cut) != used)
		abort();
	for (i = 0; i < cut;) {
		struct rt_utf8_char c;

		i += rt_utf8_next(s + i, n - i, &c);
	}
	if (i != cut)
		abort();
	if (cut < n) {
		struct rt_utf8_char c;

		rt_utf8_next(s + cut, n - cut, &c);
		if (used + c.cols <= budget)
			abort();
	}
	return 0;
}
