/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_input: reading a fuzz input as little-endian numbers, for the targets
 * that build a scenario from it (fuzz_sim_*). Missing bytes read as zero, so
 * every input, however short, makes a whole scenario.
 */
#ifndef RTLAB_TESTS_FUZZ_INPUT_H
#define RTLAB_TESTS_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

struct reader {
	const uint8_t *p;
	size_t n;
};

/* The next @bytes bytes (at most 8) as a little-endian number. */
static inline uint64_t take(struct reader *r, unsigned int bytes)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < bytes; i++) {
		uint64_t b = 0;

		if (r->n) {
			b = *r->p++;
			r->n--;
		}
		v |= b << (8 * i);
	}
	return v;
}

#endif
