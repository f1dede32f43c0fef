/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_sha256: the SHA-256 digest (FIPS 180-4), for the checksum a results
 * document carries (doc/results.md, "integrity"). Small and dependency
 * free; not constant-time, which a checksum of public data does not need.
 */
#ifndef RTLAB_CORE_RT_SHA256_H
#define RTLAB_CORE_RT_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define RT_SHA256_HEX 65	/* bytes of the hex digest with its NUL */

struct rt_sha256 {
	uint32_t h[8];
	uint64_t len;		/* bytes hashed so far */
	unsigned char block[64];
	size_t used;		/* bytes in block */
};

void rt_sha256_init(struct rt_sha256 *s);
void rt_sha256_update(struct rt_sha256 *s, const void *data, size_t len);
/* The digest: 32 bytes into @out; @s must be initialised again before reuse. */
void rt_sha256_final(struct rt_sha256 *s, unsigned char out[32]);

/* The digest of @len bytes of @data as 64 lower-case hex digits and a NUL. */
void rt_sha256_hex(const void *data, size_t len, char out[RT_SHA256_HEX]);

#endif
