/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_rt_sha256: the digest against FIPS 180-4's examples, fed whole and
 * in pieces that cross block boundaries.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_sha256.h"

static void test_vectors(void **state)
{
	char hex[RT_SHA256_HEX];

	(void)state;
	rt_sha256_hex("", 0, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	rt_sha256_hex("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	rt_sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, hex);
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_million_a_in_pieces(void **state)
{
	static const char hexd[] = "0123456789abcdef";
	unsigned char d[32];
	char a[997], hex[65];
	struct rt_sha256 s;
	size_t left = 1000000;

	(void)state;
	memset(a, 'a', sizeof(a));
	rt_sha256_init(&s);
	while (left) {
		size_t n = left < sizeof(a) ? left : sizeof(a);

		rt_sha256_update(&s, a, n);
		left -= n;
	}
	rt_sha256_final(&s, d);
	for (int i = 0; i < 32; i++) {
		hex[2 * i] = hexd[d[i] >> 4];
		hex[2 * i + 1] = hexd[d[i] & 15];
	}
	hex[64] = '\0';
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void test_padding_edges(void **state)
{
	char buf[128], one[RT_SHA256_HEX], split[RT_SHA256_HEX];
	unsigned char d[32];
	struct rt_sha256 s;

	(void)state;
	memset(buf, 'x', sizeof(buf));
	/* 55, 56 and 64 bytes: the length fits, does not fit, fills the block. */
	for (size_t n = 54; n <= 66; n++) {
		rt_sha256_hex(buf, n, one);
		rt_sha256_init(&s);
		rt_sha256_update(&s, buf, 1);
		rt_sha256_update(&s, buf + 1, n - 1);
		rt_sha256_final(&s, d);
		for (int i = 0; i < 32; i++)
			snprintf(split + 2 * i, 3, "%02x", d[i]);
		assert_string_equal(one, split);
	}
	rt_sha256_hex(buf, 55, one);
	rt_sha256_hex(buf, 56, split);
	assert_string_not_equal(one, split);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_million_a_in_pieces),
		cmocka_unit_test(test_padding_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
