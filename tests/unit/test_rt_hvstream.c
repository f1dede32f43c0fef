/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_rt_hvstream: the guest probe's stream format. Each frame type goes
 * through the encoder and the decoder unchanged; the bytes of one frame are
 * pinned against a layout worked out by hand; and the decoder is fed what a
 * virtio-serial port can deliver: frames cut at every byte, several at once,
 * garbage around them, every single-bit error, a frame cut short at the end,
 * wrong versions, types and lengths, missing sequence numbers and HELLO
 * strings with bytes that are not printable. Counters are checked exactly,
 * so a frame dropped for the wrong reason fails.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "core/rt_hvstream.h"

#define MAXF 16

/* Decoded frames are large (a HIST holds 1022 counts): keep them out of the stack. */
static struct rt_hvstream_frame got[MAXF];
static struct rt_hvstream_dec dec;

/* ---- Helpers ----------------------------------------------------------- */

static struct rt_hvstream_frame make_hello(uint32_t seq)
{
	struct rt_hvstream_frame f = { .type = RT_HVSTREAM_HELLO, .seq = seq };

	strcpy(f.u.hello.kernel, "6.1.0-28-rt-amd64");
	strcpy(f.u.hello.preempt, "PREEMPT_RT");
	strcpy(f.u.hello.policy, "SCHED_FIFO");
	f.u.hello.priority = 95;
	f.u.hello.period_us = 1000;
	f.u.hello.nbuckets = 2500;
	f.u.hello.bucket_us = 1;
	return f;
}

static struct rt_hvstream_frame make_summary(uint32_t seq)
{
	struct rt_hvstream_frame f = { .type = RT_HVSTREAM_SUMMARY, .seq = seq };

	f.u.summary.second = 41;
	f.u.summary.samples = 1000;
	f.u.summary.min_ns = 2100;
	f.u.summary.avg_ns = 5400;
	f.u.summary.max_ns = 0x0123456789abull;	/* above 2^32: all eight bytes are used */
	f.u.summary.overflows = 3;
	return f;
}

static struct rt_hvstream_frame make_hist(uint32_t seq)
{
	struct rt_hvstream_frame f = { .type = RT_HVSTREAM_HIST, .seq = seq };

	f.u.hist.first = 100;
	f.u.hist.count = 3;
	f.u.hist.counts[0] = 7;
	f.u.hist.counts[1] = 0;
	f.u.hist.counts[2] = 0xfffffffeu;
	return f;
}

static struct rt_hvstream_frame make_bye(uint32_t seq)
{
	struct rt_hvstream_frame f = { .type = RT_HVSTREAM_BYE, .seq = seq };

	f.u.bye.samples = 60000;
	f.u.bye.reason = RT_HVSTREAM_BYE_STOPPED;
	return f;
}

static void assert_frame_equal(const struct rt_hvstream_frame *a,
			       const struct rt_hvstream_frame *b)
{
	assert_int_equal(a->type, b->type);
	assert_int_equal(a->seq, b->seq);
	switch (a->type) {
	case RT_HVSTREAM_HELLO:
		assert_string_equal(a->u.hello.kernel, b->u.hello.kernel);
		assert_string_equal(a->u.hello.preempt, b->u.hello.preempt);
		assert_string_equal(a->u.hello.policy, b->u.hello.policy);
		assert_int_equal(a->u.hello.priority, b->u.hello.priority);
		assert_int_equal(a->u.hello.period_us, b->u.hello.period_us);
		assert_int_equal(a->u.hello.nbuckets, b->u.hello.nbuckets);
		assert_int_equal(a->u.hello.bucket_us, b->u.hello.bucket_us);
		break;
	case RT_HVSTREAM_SUMMARY:
		assert_memory_equal(&a->u.summary, &b->u.summary, sizeof(a->u.summary));
		break;
	case RT_HVSTREAM_HIST:
		assert_int_equal(a->u.hist.first, b->u.hist.first);
		assert_int_equal(a->u.hist.count, b->u.hist.count);
		assert_memory_equal(a->u.hist.counts, b->u.hist.counts,
				    a->u.hist.count * sizeof(uint32_t));
		break;
	case RT_HVSTREAM_BYE:
		assert_int_equal(a->u.bye.samples, b->u.bye.samples);
		assert_int_equal(a->u.bye.reason, b->u.bye.reason);
		break;
	default:
		fail_msg("frame of unknown type %u", a->type);
	}
}

/* Encodes @f at @buf and returns its length, failing the test if it does not encode. */
static size_t enc(const struct rt_hvstream_frame *f, uint8_t *buf, size_t size)
{
	int n = rt_hvstream_encode(f, buf, size);

	assert_true(n > 0);
	return (size_t)n;
}

/*
 * Feeds @len bytes @step at a time, taking every frame after each feed;
 * returns how many frames came (at most MAXF, in got[]).
 */
static int collect(const uint8_t *data, size_t len, size_t step)
{
	int n = 0;

	while (len) {
		size_t k = rt_hvstream_feed(&dec, data, len < step ? len : step);

		data += k;
		len -= k;
		while (n < MAXF && rt_hvstream_next(&dec, &got[n]) == 1)
			n++;
	}
	while (n < MAXF && rt_hvstream_next(&dec, &got[n]) == 1)
		n++;
	return n;
}

/*
 * A frame written by hand: any version, type and length field, with a CRC
 * that matches, so the decoder's other checks are what refuses it.
 */
static size_t raw_frame(uint8_t *buf, uint8_t version, uint8_t type, uint16_t len_field,
			uint32_t seq, const uint8_t *payload, size_t plen)
{
	uint32_t crc;

	memcpy(buf, "RTHV", 4);
	buf[4] = version;
	buf[5] = type;
	buf[6] = (uint8_t)len_field;
	buf[7] = (uint8_t)(len_field >> 8);
	for (int i = 0; i < 4; i++)
		buf[8 + i] = (uint8_t)(seq >> (8 * i));
	if (plen)
		memcpy(buf + 12, payload, plen);
	crc = rt_hvstream_crc32(buf + 4, 8 + plen);
	for (int i = 0; i < 4; i++)
		buf[12 + plen + i] = (uint8_t)(crc >> (8 * i));
	return 16 + plen;
}

static uint64_t rejects(void)
{
	const struct rt_hvstream_stats *s = &dec.stats;

	return s->bad_version + s->bad_type + s->bad_length + s->bad_crc + s->bad_payload;
}

/* Every byte fed is in a returned frame, dropped, or still held. */
static void assert_accounted(void)
{
	assert_int_equal(dec.stats.bytes_in,
			 dec.stats.frame_bytes + dec.stats.skipped + rt_hvstream_buffered(&dec));
}

static int setup(void **state)
{
	(void)state;
	rt_hvstream_dec_init(&dec);
	memset(got, 0, sizeof(got));
	return 0;
}

/* ---- Format ------------------------------------------------------------ */

static void test_crc_check_value(void **state)
{
	(void)state;
	assert_int_equal(rt_hvstream_crc32("123456789", 9), 0xcbf43926u);
	assert_int_equal(rt_hvstream_crc32("", 0), 0);
}

static void test_bye_bytes(void **state)
{
	/* Worked out by hand (the CRC with zlib.crc32 over bytes 4 .. 23). */
	static const uint8_t want[] = {
		'R', 'T', 'H', 'V', 0x01, 0x04, 0x0c, 0x00,	/* magic, version, BYE, 12 */
		0x0d, 0x0c, 0x0b, 0x0a,				/* seq 0x0a0b0c0d */
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,	/* samples */
		0x02, 0x00, 0x00, 0x00,				/* reason: error */
		0x77, 0x60, 0x46, 0xa1,				/* CRC 0xa1466077 */
	};
	struct rt_hvstream_bye b = { .samples = 0x0102030405060708ull,
				     .reason = RT_HVSTREAM_BYE_ERROR };
	uint8_t buf[64];

	(void)state;
	assert_int_equal(rt_hvstream_encode_bye(0x0a0b0c0du, &b, buf, sizeof(buf)), sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
}

static void test_sizes(void **state)
{
	struct rt_hvstream_frame f = make_hello(0);
	uint8_t buf[RT_HVSTREAM_FRAME_MAX];

	(void)state;
	/* 12 + (1+17 + 1+10 + 1+10) + 1 + 12 + 4 */
	assert_int_equal(rt_hvstream_encode(&f, buf, sizeof(buf)), 69);
	f = make_summary(0);
	assert_int_equal(rt_hvstream_encode(&f, buf, sizeof(buf)), 12 + 44 + 4);
	f = make_hist(0);
	assert_int_equal(rt_hvstream_encode(&f, buf, sizeof(buf)), 12 + 6 + 12 + 4);
	f = make_bye(0);
	assert_int_equal(rt_hvstream_encode(&f, buf, sizeof(buf)), 12 + 12 + 4);
	assert_int_equal(RT_HVSTREAM_HIST_MAX, 1022);
	assert_int_equal(RT_HVSTREAM_FRAME_MAX, 4112);
}

static void test_encode_enospc(void **state)
{
	struct rt_hvstream_frame fs[4] = { make_hello(0), make_summary(1), make_hist(2),
					   make_bye(3) };
	uint8_t buf[RT_HVSTREAM_FRAME_MAX];

	(void)state;
	for (int i = 0; i < 4; i++) {
		int n = rt_hvstream_encode(&fs[i], buf, sizeof(buf));

		assert_true(n > 0);
		assert_int_equal(rt_hvstream_encode(&fs[i], buf, (size_t)n - 1), -ENOSPC);
		assert_int_equal(rt_hvstream_encode(&fs[i], buf, 0), -ENOSPC);
		assert_int_equal(rt_hvstream_encode(&fs[i], buf, (size_t)n), n);
	}
}

static void test_encode_einval(void **state)
{
	struct rt_hvstream_frame f;
	uint32_t counts[RT_HVSTREAM_HIST_MAX + 1] = { 0 };
	uint8_t buf[RT_HVSTREAM_FRAME_MAX + 8];

	(void)state;
	f = make_hello(0);
	f.type = 0;
	assert_int_equal(rt_hvstream_encode(&f, buf, sizeof(buf)), -EINVAL);
	f.type = 5;
	assert_int_equal(rt_hvstream_encode(&f, buf, sizeof(buf)), -EINVAL);

	f = make_hello(0);
	f.u.hello.priority = 100;
	assert_int_equal(rt_hvstream_encode(&f, buf, sizeof(buf)), -EINVAL);
	f = make_hello(0);
	f.u.hello.period_us = 0;
	assert_int_equal(rt_hvstream_encode(&f, buf, sizeof(buf)), -EINVAL);
	f = make_hello(0);
	f.u.hello.bucket_us = 0;
	assert_int_equal(rt_hvstream_encode(&f, buf, sizeof(buf)), -EINVAL);
	f = make_hello(0);
	f.u.hello.policy[3] = '\t';
	assert_int_equal(rt_hvstream_encode(&f, buf, sizeof(buf)), -EINVAL);
	f = make_hello(0);
	f.u.hello.preempt[0] = (char)0xc3;	/* UTF-8 is not ASCII */
	assert_int_equal(rt_hvstream_encode(&f, buf, sizeof(buf)), -EINVAL);
	/* 64 characters fit; 65 with no NUL do not (and are not read past). */
	f = make_hello(0);
	memset(f.u.hello.kernel, 'k', RT_HVSTREAM_STR_MAX);
	f.u.hello.kernel[RT_HVSTREAM_STR_MAX] = '\0';
	assert_int_equal(rt_hvstream_encode(&f, buf, sizeof(buf)), 69 - 17 + 64);
	memset(f.u.hello.kernel, 'k', sizeof(f.u.hello.kernel));
	assert_int_equal(rt_hvstream_encode(&f, buf, sizeof(buf)), -EINVAL);

	assert_int_equal(rt_hvstream_encode_hist(0, 0, counts, 0, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(rt_hvstream_encode_hist(0, 0, NULL, 1, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(rt_hvstream_encode_hist(0, 0, counts, RT_HVSTREAM_HIST_MAX + 1, buf,
						 sizeof(buf)), -EINVAL);
	assert_int_equal(rt_hvstream_encode_hist(0, 0, counts, RT_HVSTREAM_HIST_MAX, buf,
						 sizeof(buf)), 12 + 6 + 4 * 1022 + 4);
	/* The last bucket of a frame must be at most 2^32 - 1. */
	assert_int_equal(rt_hvstream_encode_hist(0, 0xfffffffeu, counts, 2, buf, sizeof(buf)),
			 12 + 6 + 8 + 4);
	assert_int_equal(rt_hvstream_encode_hist(0, 0xfffffffeu, counts, 3, buf, sizeof(buf)),
			 -EINVAL);
}

/* ---- Decoding whole frames ---------------------------------------------- */

static void test_round_trip_each_type(void **state)
{
	struct rt_hvstream_frame fs[4] = { make_hello(0), make_summary(1), make_hist(2),
					   make_bye(3) };
	uint8_t buf[RT_HVSTREAM_FRAME_MAX];

	(void)state;
	for (int i = 0; i < 4; i++) {
		size_t n = enc(&fs[i], buf, sizeof(buf));

		assert_int_equal(rt_hvstream_feed(&dec, buf, n), n);
		assert_int_equal(rt_hvstream_next(&dec, &got[i]), 1);
		assert_frame_equal(&got[i], &fs[i]);
		assert_int_equal(rt_hvstream_next(&dec, &got[MAXF - 1]), 0);
	}
	assert_int_equal(dec.stats.frames, 4);
	assert_int_equal(dec.stats.skipped, 0);
	assert_int_equal(rejects(), 0);
	assert_int_equal(dec.stats.seq_gaps, 0);
	assert_int_equal(rt_hvstream_buffered(&dec), 0);
	assert_accounted();
}

static void test_empty_strings_and_extremes(void **state)
{
	struct rt_hvstream_frame f = make_hello(0xffffffffu);
	uint8_t buf[RT_HVSTREAM_FRAME_MAX];
	size_t n;

	(void)state;
	f.u.hello.kernel[0] = f.u.hello.preempt[0] = f.u.hello.policy[0] = '\0';
	f.u.hello.priority = 0;
	f.u.hello.period_us = f.u.hello.nbuckets = f.u.hello.bucket_us = 0xffffffffu;
	n = enc(&f, buf, sizeof(buf));
	assert_int_equal(n, 12 + 3 + 1 + 12 + 4);
	assert_int_equal(collect(buf, n, n), 1);
	assert_frame_equal(&got[0], &f);
	/* Printable ASCII from space to tilde, both ends included. */
	f = make_hello(0);
	strcpy(f.u.hello.policy, " ~");
	n = enc(&f, buf, sizeof(buf));
	assert_int_equal(collect(buf, n, n), 1);
	assert_frame_equal(&got[0], &f);
}

static void test_hist_across_frames(void **state)
{
	static uint32_t whole[2500], back[2500];
	uint8_t buf[3 * RT_HVSTREAM_FRAME_MAX];
	size_t len = 0, seen = 0;
	uint32_t seq = 0;
	int n;

	(void)state;
	for (size_t i = 0; i < 2500; i++)
		whole[i] = (uint32_t)(i * 2654435761u);
	for (size_t at = 0; at < 2500; at += RT_HVSTREAM_HIST_MAX) {
		size_t k = 2500 - at < RT_HVSTREAM_HIST_MAX ? 2500 - at : RT_HVSTREAM_HIST_MAX;
		int w = rt_hvstream_encode_hist(seq++, (uint32_t)at, whole + at, k, buf + len,
						sizeof(buf) - len);

		assert_int_equal(w, 12 + 6 + 4 * k + 4);
		len += (size_t)w;
	}
	assert_int_equal(len, 3 * 22 + 4 * 2500);
	n = collect(buf, len, 1000);
	assert_int_equal(n, 3);
	for (int i = 0; i < n; i++) {
		assert_int_equal(got[i].type, RT_HVSTREAM_HIST);
		assert_int_equal(got[i].seq, i);
		assert_int_equal(got[i].u.hist.first, seen);
		memcpy(back + seen, got[i].u.hist.counts, got[i].u.hist.count * sizeof(uint32_t));
		seen += got[i].u.hist.count;
	}
	assert_int_equal(got[0].u.hist.count, 1022);
	assert_int_equal(got[2].u.hist.count, 456);
	assert_int_equal(seen, 2500);
	assert_memory_equal(back, whole, sizeof(whole));
	assert_int_equal(dec.stats.skipped, 0);
	assert_accounted();
}

/* ---- Decoding a byte stream -------------------------------------------- */

/* The four frames back to back; their end offsets in @ends. */
static size_t stream4(uint8_t *buf, size_t size, struct rt_hvstream_frame fs[4], size_t ends[4])
{
	size_t len = 0;

	fs[0] = make_hello(10);
	fs[1] = make_summary(11);
	fs[2] = make_hist(12);
	fs[3] = make_bye(13);
	for (int i = 0; i < 4; i++) {
		len += enc(&fs[i], buf + len, size - len);
		ends[i] = len;
	}
	return len;
}

static void test_one_byte_at_a_time(void **state)
{
	struct rt_hvstream_frame fs[4];
	uint8_t buf[1024];
	size_t ends[4], len = stream4(buf, sizeof(buf), fs, ends);
	int n = 0;

	(void)state;
	for (size_t i = 0; i < len; i++) {
		assert_int_equal(rt_hvstream_feed(&dec, buf + i, 1), 1);
		if (n < 4 && i + 1 == ends[n]) {
			/* A frame comes out with its last byte, not one byte sooner. */
			assert_int_equal(rt_hvstream_next(&dec, &got[n]), 1);
			assert_frame_equal(&got[n], &fs[n]);
			n++;
		}
		assert_int_equal(rt_hvstream_next(&dec, &got[MAXF - 1]), 0);
		assert_int_equal(rt_hvstream_buffered(&dec), i + 1 - (n ? ends[n - 1] : 0));
	}
	assert_int_equal(n, 4);
	assert_int_equal(dec.stats.frames, 4);
	assert_int_equal(dec.stats.skipped, 0);
	assert_int_equal(rejects(), 0);
	assert_accounted();
}

static void test_every_chunk_size(void **state)
{
	struct rt_hvstream_frame fs[4];
	uint8_t buf[1024];
	size_t ends[4], len = stream4(buf, sizeof(buf), fs, ends);

	for (size_t step = 1; step <= len; step++) {
		setup(state);
		assert_int_equal(collect(buf, len, step), 4);
		for (int i = 0; i < 4; i++)
			assert_frame_equal(&got[i], &fs[i]);
		assert_int_equal(dec.stats.skipped, 0);
		assert_int_equal(rt_hvstream_buffered(&dec), 0);
	}
}

static void test_two_frames_one_feed(void **state)
{
	struct rt_hvstream_frame a = make_summary(7), b = make_bye(8);
	uint8_t buf[256];
	size_t len = enc(&a, buf, sizeof(buf));

	(void)state;
	len += enc(&b, buf + len, sizeof(buf) - len);
	assert_int_equal(rt_hvstream_feed(&dec, buf, len), len);
	assert_int_equal(rt_hvstream_next(&dec, &got[0]), 1);
	assert_int_equal(rt_hvstream_next(&dec, &got[1]), 1);
	assert_int_equal(rt_hvstream_next(&dec, &got[2]), 0);
	assert_frame_equal(&got[0], &a);
	assert_frame_equal(&got[1], &b);
	assert_int_equal(dec.stats.frame_bytes, len);
	assert_int_equal(dec.stats.seq_gaps, 0);
}

static void test_garbage_around(void **state)
{
	/* Things a console prints, and pieces of a magic that come to nothing. */
	static const char before[] = "[    0.000000] Linux version 6.1\r\nRTH\x00RT";
	static const char between[] = "RRTTHHVV\xff\xfeRTHRTH";
	static const char after[] = "login: \x1b[0m RT";
	struct rt_hvstream_frame a = make_hello(0), b = make_hist(1);
	uint8_t buf[512];
	size_t len = 0, ga = sizeof(before) - 1, gb = sizeof(between) - 1, gc = sizeof(after) - 1;

	(void)state;
	memcpy(buf + len, before, ga);
	len += ga;
	len += enc(&a, buf + len, sizeof(buf) - len);
	memcpy(buf + len, between, gb);
	len += gb;
	len += enc(&b, buf + len, sizeof(buf) - len);
	memcpy(buf + len, after, gc);
	len += gc;

	for (size_t step = 1; step <= len; step++) {
		setup(state);
		assert_int_equal(collect(buf, len, step), 2);
		assert_frame_equal(&got[0], &a);
		assert_frame_equal(&got[1], &b);
		/* The trailing "RT" may be the start of a magic: held, not dropped. */
		assert_int_equal(rt_hvstream_buffered(&dec), 2);
		assert_int_equal(dec.stats.skipped, ga + gb + gc - 2);
		assert_int_equal(rejects(), 0);
		assert_accounted();
	}
}

static void test_truncated_at_end(void **state)
{
	struct rt_hvstream_frame f = make_summary(5);
	uint8_t buf[128];
	size_t len = enc(&f, buf, sizeof(buf));

	for (size_t cut = 0; cut < len; cut++) {
		setup(state);
		assert_int_equal(rt_hvstream_feed(&dec, buf, cut), cut);
		assert_int_equal(rt_hvstream_next(&dec, &got[0]), 0);
		assert_int_equal(rt_hvstream_next(&dec, &got[0]), 0);
		/* Nothing is dropped: the bytes so far are a frame's beginning. */
		assert_int_equal(rt_hvstream_buffered(&dec), cut);
		assert_int_equal(dec.stats.skipped, 0);
		assert_int_equal(dec.stats.frames, 0);
		assert_int_equal(rejects(), 0);
		/* The rest arrives: the frame is whole. */
		rt_hvstream_feed(&dec, buf + cut, len - cut);
		assert_int_equal(rt_hvstream_next(&dec, &got[0]), 1);
		assert_frame_equal(&got[0], &f);
	}
}

/*
 * Every single-bit error in a frame A followed by a good frame B: A is
 * dropped and counted under the reason its damaged header calls for, and B
 * still comes out. The zeros after B let a length made longer by the flip
 * run its course, as the rest of a stream would.
 */
static void flip_each_bit(const struct rt_hvstream_frame *a, void **state)
{
	static uint8_t buf[8192];
	struct rt_hvstream_frame b = make_bye(77);
	size_t la = enc(a, buf, sizeof(buf)), lb, zeros = RT_HVSTREAM_FRAME_MAX + 100;
	uint8_t good[RT_HVSTREAM_FRAME_MAX];

	lb = enc(&b, buf + la, sizeof(buf) - la);
	memset(buf + la + lb, 0, zeros);
	memcpy(good, buf, la);
	for (size_t bit = 0; bit < 8 * la; bit++) {
		size_t at = bit / 8;
		uint8_t v = good[at] ^ (uint8_t)(1u << (bit % 8));
		uint64_t want_version = 0, want_type = 0, want_length = 0, want_crc = 0;

		setup(state);
		memcpy(buf, good, la);
		buf[at] = v;
		if (at < 4) {
			/* No magic, no candidate: the bytes are garbage. */
		} else if (at == 4) {
			want_version = 1;
		} else if (at == 5) {
			if (v >= RT_HVSTREAM_HELLO && v <= RT_HVSTREAM_BYE)
				want_crc = 1;
			else
				want_type = 1;
		} else if (at == 6 || at == 7) {
			unsigned int len = (unsigned int)buf[6] | (unsigned int)buf[7] << 8;

			if (len > RT_HVSTREAM_PAYLOAD_MAX)
				want_length = 1;
			else
				want_crc = 1;
		} else {
			want_crc = 1;
		}
		assert_int_equal(collect(buf, la + lb + zeros, 4096), 1);
		assert_frame_equal(&got[0], &b);
		assert_int_equal(dec.stats.bad_version, want_version);
		assert_int_equal(dec.stats.bad_type, want_type);
		assert_int_equal(dec.stats.bad_length, want_length);
		assert_int_equal(dec.stats.bad_crc, want_crc);
		assert_int_equal(dec.stats.bad_payload, 0);
		assert_int_equal(dec.stats.skipped, la + zeros);
		assert_int_equal(rt_hvstream_buffered(&dec), 0);
		assert_accounted();
	}
}

static void test_bit_flips(void **state)
{
	struct rt_hvstream_frame f;

	f = make_hello(3);
	flip_each_bit(&f, state);
	f = make_summary(3);
	flip_each_bit(&f, state);
	f = make_hist(3);
	flip_each_bit(&f, state);
	f = make_bye(3);
	flip_each_bit(&f, state);
}

static void test_wrong_version(void **state)
{
	uint8_t buf[256], pl[12] = { 1 };
	struct rt_hvstream_frame b = make_bye(1);
	size_t la, len;

	(void)state;
	/* A well-formed BYE of version 0 and of version 2: the CRC is right, the version not. */
	la = raw_frame(buf, 0, RT_HVSTREAM_BYE, 12, 0, pl, sizeof(pl));
	len = la + raw_frame(buf + la, 2, RT_HVSTREAM_BYE, 12, 0, pl, sizeof(pl));
	len += enc(&b, buf + len, sizeof(buf) - len);
	assert_int_equal(collect(buf, len, len), 1);
	assert_frame_equal(&got[0], &b);
	assert_int_equal(dec.stats.bad_version, 2);
	assert_int_equal(rejects(), 2);
	assert_int_equal(dec.stats.skipped, 2 * la);
}

static void test_unknown_type(void **state)
{
	static const uint8_t types[] = { 0, 5, 0xff };
	uint8_t buf[256], pl[12] = { 0 };
	struct rt_hvstream_frame b = make_bye(1);
	size_t len = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(types); i++)
		len += raw_frame(buf + len, 1, types[i], 12, 0, pl, sizeof(pl));
	len += enc(&b, buf + len, sizeof(buf) - len);
	assert_int_equal(collect(buf, len, 1), 1);
	assert_frame_equal(&got[0], &b);
	assert_int_equal(dec.stats.bad_type, 3);
	assert_int_equal(rejects(), 3);
	assert_int_equal(dec.stats.skipped, 3 * 28);
}

static void test_oversized_length(void **state)
{
	uint8_t buf[256];
	struct rt_hvstream_frame b = make_summary(1);
	size_t len = 0;

	(void)state;
	/*
	 * Headers claiming 4097 and 65535 bytes, with nothing after them but a
	 * good frame: refused at once, not after waiting for 4 KiB that never come.
	 */
	len += raw_frame(buf + len, 1, RT_HVSTREAM_HIST, RT_HVSTREAM_PAYLOAD_MAX + 1, 0, NULL, 0);
	len += raw_frame(buf + len, 1, RT_HVSTREAM_HIST, 0xffff, 0, NULL, 0);
	len += enc(&b, buf + len, sizeof(buf) - len);
	assert_int_equal(collect(buf, len, len), 1);
	assert_frame_equal(&got[0], &b);
	assert_int_equal(dec.stats.bad_length, 2);
	assert_int_equal(rejects(), 2);
	assert_int_equal(dec.stats.skipped, 2 * 16);
	assert_int_equal(rt_hvstream_buffered(&dec), 0);
}

static void test_largest_frame_and_full_buffer(void **state)
{
	static uint32_t counts[RT_HVSTREAM_HIST_MAX];
	static uint8_t buf[3 * RT_HVSTREAM_FRAME_MAX];
	size_t one = 0, len = 0, k;
	int n;

	(void)state;
	for (size_t i = 0; i < RT_HVSTREAM_HIST_MAX; i++)
		counts[i] = (uint32_t)i;
	for (int i = 0; i < 3; i++) {
		n = rt_hvstream_encode_hist((uint32_t)i, (uint32_t)(i * RT_HVSTREAM_HIST_MAX),
					    counts, RT_HVSTREAM_HIST_MAX, buf + len,
					    sizeof(buf) - len);
		assert_int_equal(n, 4110);
		one = (size_t)n;
		len += one;
	}
	/*
	 * The buffer takes 8 KiB: one frame and most of the next. Each frame
	 * taken out makes room for at least the rest of the next one.
	 */
	k = rt_hvstream_feed(&dec, buf, len);
	assert_int_equal(k, RT_HVSTREAM_DEC_BUF);
	assert_int_equal(rt_hvstream_feed(&dec, buf + k, len - k), 0);
	assert_int_equal(rt_hvstream_next(&dec, &got[0]), 1);
	assert_int_equal(rt_hvstream_next(&dec, &got[1]), 0);
	assert_int_equal(rt_hvstream_buffered(&dec), RT_HVSTREAM_DEC_BUF - one);
	assert_int_equal(rt_hvstream_feed(&dec, buf + k, len - k), one);
	k += one;
	assert_int_equal(rt_hvstream_next(&dec, &got[1]), 1);
	assert_int_equal(rt_hvstream_next(&dec, &got[2]), 0);
	assert_int_equal(rt_hvstream_buffered(&dec), RT_HVSTREAM_DEC_BUF - one);
	assert_int_equal(rt_hvstream_feed(&dec, buf + k, len - k), len - k);
	assert_int_equal(len - k, 3 * one - RT_HVSTREAM_DEC_BUF - one);
	assert_int_equal(rt_hvstream_next(&dec, &got[2]), 1);
	assert_int_equal(rt_hvstream_next(&dec, &got[3]), 0);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(got[i].seq, i);
		assert_int_equal(got[i].u.hist.first, i * RT_HVSTREAM_HIST_MAX);
		assert_int_equal(got[i].u.hist.count, RT_HVSTREAM_HIST_MAX);
		assert_memory_equal(got[i].u.hist.counts, counts, sizeof(counts));
	}
	assert_int_equal(rt_hvstream_buffered(&dec), 0);
	assert_accounted();
}

static void test_seq_gaps(void **state)
{
	static const uint32_t seqs[] = { 0, 1, 2, 5, 6, 3, 4, 0xffffffffu, 0, 1 };
	uint8_t buf[1024];
	size_t len = 0;
	int n;

	(void)state;
	for (size_t i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++) {
		struct rt_hvstream_frame f = make_bye(seqs[i]);

		len += enc(&f, buf + len, sizeof(buf) - len);
	}
	n = collect(buf, len, 17);
	assert_int_equal(n, 10);
	for (int i = 0; i < n; i++)
		assert_int_equal(got[i].seq, seqs[i]);
	/*
	 * 2 -> 5 skips 3 and 4 (a gap, 2 lost); 6 -> 3 goes back (a gap, none
	 * lost); 4 -> 0xffffffff skips 0xfffffffa numbers, which is going back
	 * too, the long way round (a gap, none lost); 0xffffffff -> 0 wraps
	 * without a gap.
	 */
	assert_int_equal(dec.stats.seq_gaps, 3);
	assert_int_equal(dec.stats.seq_lost, 2);
	assert_int_equal(rejects(), 0);
}

/* A HELLO whose kernel string's byte @at (0 .. its length - 1) is @c, with a valid CRC. */
static size_t hello_with_byte(uint8_t *buf, size_t size, uint32_t seq, size_t at, uint8_t c)
{
	struct rt_hvstream_frame f = make_hello(seq);
	size_t len = enc(&f, buf, size);
	uint32_t crc;

	buf[12 + 1 + at] = c;
	crc = rt_hvstream_crc32(buf + 4, len - 8);
	for (int i = 0; i < 4; i++)
		buf[len - 4 + i] = (uint8_t)(crc >> (8 * i));
	return len;
}

static void test_hello_not_printable(void **state)
{
	static const uint8_t bad[] = { 0x00, 0x07, 0x0a, 0x1f, 0x7f, 0x80, 0xff };
	struct rt_hvstream_frame b = make_bye(1);
	uint8_t buf[512];

	for (size_t i = 0; i < sizeof(bad); i++) {
		size_t la, len;

		setup(state);
		la = hello_with_byte(buf, sizeof(buf), 0, 3, bad[i]);
		len = la + enc(&b, buf + la, sizeof(buf) - la);
		assert_int_equal(collect(buf, len, len), 1);
		assert_frame_equal(&got[0], &b);
		assert_int_equal(dec.stats.bad_payload, 1);
		assert_int_equal(rejects(), 1);
		/* A frame with a right CRC is dropped whole. */
		assert_int_equal(dec.stats.skipped, la);
	}
	/* The same with a printable byte is a good frame: the CRC was redone right. */
	setup(state);
	{
		size_t la = hello_with_byte(buf, sizeof(buf), 0, 3, '~');

		assert_int_equal(collect(buf, la, la), 1);
		assert_string_equal(got[0].u.hello.kernel,
				    "6.1~0-28-rt-amd64");
	}
}

static void test_bad_payloads(void **state)
{
	struct rt_hvstream_frame b = make_bye(9);
	uint8_t buf[1024], pl[200];
	size_t len = 0, dropped = 0, n;

	(void)state;
	memset(pl, 0, sizeof(pl));
	/* SUMMARY one byte short and one byte long; BYE empty. */
	dropped += raw_frame(buf + len, 1, RT_HVSTREAM_SUMMARY, 43, 0, pl, 43);
	dropped += raw_frame(buf + dropped, 1, RT_HVSTREAM_SUMMARY, 45, 1, pl, 45);
	dropped += raw_frame(buf + dropped, 1, RT_HVSTREAM_BYE, 0, 2, pl, 0);
	/* HIST: a count of 0; a count of 2 with one bucket; buckets past 2^32 - 1. */
	pl[4] = 0;
	dropped += raw_frame(buf + dropped, 1, RT_HVSTREAM_HIST, 6, 3, pl, 6);
	pl[4] = 2;
	dropped += raw_frame(buf + dropped, 1, RT_HVSTREAM_HIST, 10, 4, pl, 10);
	memset(pl, 0xff, 4);
	dropped += raw_frame(buf + dropped, 1, RT_HVSTREAM_HIST, 14, 5, pl, 14);
	/* HELLO: a string length past the payload; a string over 64; priority 100. */
	memset(pl, 0, sizeof(pl));
	pl[0] = 20;
	dropped += raw_frame(buf + dropped, 1, RT_HVSTREAM_HELLO, 10, 6, pl, 10);
	pl[0] = 65;
	memset(pl + 1, 'a', 65);
	dropped += raw_frame(buf + dropped, 1, RT_HVSTREAM_HELLO, 81, 7, pl, 81);
	memset(pl, 0, sizeof(pl));
	pl[3] = 100;
	pl[4] = pl[12] = 1;	/* period and bucket width of 1 */
	dropped += raw_frame(buf + dropped, 1, RT_HVSTREAM_HELLO, 16, 8, pl, 16);
	len = dropped;
	n = enc(&b, buf + len, sizeof(buf) - len);
	len += n;
	assert_int_equal(collect(buf, len, 5), 1);
	assert_frame_equal(&got[0], &b);
	assert_int_equal(dec.stats.bad_payload, 9);
	assert_int_equal(rejects(), 9);
	assert_int_equal(dec.stats.skipped, dropped);
	/* The same HELLO with priority 99 is good. */
	setup(state);
	pl[3] = 99;
	len = raw_frame(buf, 1, RT_HVSTREAM_HELLO, 16, 8, pl, 16);
	assert_int_equal(collect(buf, len, len), 1);
	assert_int_equal(got[0].u.hello.priority, 99);
	assert_int_equal(got[0].u.hello.period_us, 1);
	assert_int_equal(got[0].u.hello.bucket_us, 1);
	assert_string_equal(got[0].u.hello.kernel, "");
}

static void test_feed_nothing(void **state)
{
	(void)state;
	assert_int_equal(rt_hvstream_feed(&dec, NULL, 0), 0);
	assert_int_equal(rt_hvstream_next(&dec, &got[0]), 0);
	assert_int_equal(dec.stats.bytes_in, 0);
	assert_int_equal(rt_hvstream_buffered(&dec), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc_check_value),
		cmocka_unit_test(test_bye_bytes),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_encode_enospc),
		cmocka_unit_test(test_encode_einval),
		cmocka_unit_test_setup(test_round_trip_each_type, setup),
		cmocka_unit_test_setup(test_empty_strings_and_extremes, setup),
		cmocka_unit_test_setup(test_hist_across_frames, setup),
		cmocka_unit_test_setup(test_one_byte_at_a_time, setup),
		cmocka_unit_test_setup(test_every_chunk_size, setup),
		cmocka_unit_test_setup(test_two_frames_one_feed, setup),
		cmocka_unit_test_setup(test_garbage_around, setup),
		cmocka_unit_test_setup(test_truncated_at_end, setup),
		cmocka_unit_test_setup(test_bit_flips, setup),
		cmocka_unit_test_setup(test_wrong_version, setup),
		cmocka_unit_test_setup(test_unknown_type, setup),
		cmocka_unit_test_setup(test_oversized_length, setup),
		cmocka_unit_test_setup(test_largest_frame_and_full_buffer, setup),
		cmocka_unit_test_setup(test_seq_gaps, setup),
		cmocka_unit_test_setup(test_hello_not_printable, setup),
		cmocka_unit_test_setup(test_bad_payloads, setup),
		cmocka_unit_test_setup(test_feed_nothing, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
