/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_hvstream: the guest probe's stream decoder on arbitrary bytes, fed
 * as a virtio-serial port might deliver them. The input's first byte says
 * how many chunk sizes follow (0 .. 7, its low three bits); the bytes after
 * those are the stream, fed in chunks of those sizes in turn (a size byte
 * of 0 means 9000, more than the decoder holds), or all at once when there
 * are none. A random change to a frame almost never keeps its CRC right, so
 * the payload checks behind it would stay out of reach: when bit 3 of the
 * first byte is set, every frame-shaped run of the stream (magic, version 1,
 * a length that fits) first gets the CRC it needs. Aborts when:
 *
 *   - a decoded frame is out of range, does not encode again to exactly the
 *     bytes of the stream it was read from, or those bytes decode alone to
 *     another frame;
 *   - a counter goes down, the window leaves the buffer, a byte fed is not
 *     accounted for (returned in a frame, dropped or held), or more than a
 *     frame's worth is held once the decoder asks for more bytes;
 *   - the sequence counters disagree with the numbers of the frames returned;
 *   - the same stream fed all at once ends with other counters or other
 *     bytes held.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_hvstream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_SIZES 7
#define BIG_CHUNK 9000u

static struct rt_hvstream_dec dec, dec_whole, dec_again;
static struct rt_hvstream_frame frame, frame_again;
static uint8_t enc_buf[RT_HVSTREAM_FRAME_MAX];

static int str_ok(const char *s)
{
	size_t n = strnlen(s, RT_HVSTREAM_STR_MAX + 1);

	if (n > RT_HVSTREAM_STR_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			return 0;
	return 1;
}

static int frame_ok(const struct rt_hvstream_frame *f)
{
	switch (f->type) {
	case RT_HVSTREAM_HELLO:
		return str_ok(f->u.hello.kernel) && str_ok(f->u.hello.preempt) &&
		       str_ok(f->u.hello.policy) && f->u.hello.priority <= RT_HVSTREAM_PRIO_MAX &&
		       f->u.hello.period_us && f->u.hello.bucket_us;
	case RT_HVSTREAM_SUMMARY:
	case RT_HVSTREAM_BYE:
		return 1;
	case RT_HVSTREAM_HIST:
		return f->u.hist.count >= 1 && f->u.hist.count <= RT_HVSTREAM_HIST_MAX &&
		       (uint64_t)f->u.hist.first + f->u.hist.count <= (uint64_t)1 << 32;
	}
	return 0;
}

static int frame_equal(const struct rt_hvstream_frame *a, const struct rt_hvstream_frame *b)
{
	const struct rt_hvstream_hello *x = &a->u.hello, *y = &b->u.hello;
	const struct rt_hvstream_summary *s = &a->u.summary, *t = &b->u.summary;

	if (a->type != b->type || a->seq != b->seq)
		return 0;
	switch (a->type) {
	case RT_HVSTREAM_HELLO:
		return !strcmp(x->kernel, y->kernel) && !strcmp(x->preempt, y->preempt) &&
		       !strcmp(x->policy, y->policy) && x->priority == y->priority &&
		       x->period_us == y->period_us && x->nbuckets == y->nbuckets &&
		       x->bucket_us == y->bucket_us;
	case RT_HVSTREAM_SUMMARY:
		return s->second == t->second && s->samples == t->samples &&
		       s->min_ns == t->min_ns && s->avg_ns == t->avg_ns && s->max_ns == t->max_ns &&
		       s->overflows == t->overflows;
	case RT_HVSTREAM_HIST:
		return a->u.hist.first == b->u.hist.first && a->u.hist.count == b->u.hist.count &&
		       !memcmp(a->u.hist.counts, b->u.hist.counts,
			       a->u.hist.count * sizeof(uint32_t));
	case RT_HVSTREAM_BYE:
		return a->u.bye.samples == b->u.bye.samples && a->u.bye.reason == b->u.bye.reason;
	}
	return 0;
}

#define NCOUNTERS (sizeof(struct rt_hvstream_stats) / sizeof(uint64_t))

static void check_grew(const struct rt_hvstream_stats *before, const struct rt_hvstream_stats *now)
{
	uint64_t a[NCOUNTERS], b[NCOUNTERS];

	memcpy(a, before, sizeof(a));
	memcpy(b, now, sizeof(b));
	for (size_t i = 0; i < NCOUNTERS; i++)
		if (b[i] < a[i])
			abort();
}

static void check_window(const struct rt_hvstream_dec *d)
{
	const struct rt_hvstream_stats *s = &d->stats;

	if (d->start > d->end || d->end > sizeof(d->buf) ||
	    rt_hvstream_buffered(d) != d->end - d->start ||
	    s->bytes_in != s->frame_bytes + s->skipped + rt_hvstream_buffered(d))
		abort();
}

/* The frame just returned: canonical, in range, and alone it decodes to itself. */
static void check_frame(const struct rt_hvstream_frame *f, const uint8_t *stream,
			const struct rt_hvstream_stats *before, const struct rt_hvstream_stats *now)
{
	uint64_t n = now->frame_bytes - before->frame_bytes;
	uint64_t end = now->frame_bytes + now->skipped;	/* stream bytes consumed so far */
	int len;

	if (!frame_ok(f) || now->frames != before->frames + 1 || n < RT_HVSTREAM_HDR_BYTES +
	    RT_HVSTREAM_CRC_BYTES || n > RT_HVSTREAM_FRAME_MAX)
		abort();
	len = rt_hvstream_encode(f, enc_buf, sizeof(enc_buf));
	if (len < 0 || (uint64_t)len != n || memcmp(enc_buf, stream + end - n, n))
		abort();
	rt_hvstream_dec_init(&dec_again);
	if (rt_hvstream_feed(&dec_again, enc_buf, (size_t)len) != (size_t)len ||
	    rt_hvstream_next(&dec_again, &frame_again) != 1 || !frame_equal(f, &frame_again) ||
	    rt_hvstream_next(&dec_again, &frame_again) != 0 || dec_again.stats.skipped ||
	    rt_hvstream_buffered(&dec_again))
		abort();
}

/* Our own count of sequence gaps, from the numbers of the frames returned. */
struct seq_check {
	int have;
	uint32_t next;
	uint64_t gaps, lost;
};

static void seq_note(struct seq_check *c, uint32_t seq)
{
	if (c->have && seq != c->next) {
		c->gaps++;
		if (seq - c->next < 0x80000000u)
			c->lost += seq - c->next;
	}
	c->have = 1;
	c->next = seq + 1;
}

/* Takes every frame the decoder holds, checking each; returns how many. */
static uint64_t drain(struct rt_hvstream_dec *d, const uint8_t *stream, struct seq_check *sc)
{
	struct rt_hvstream_stats before = d->stats;
	uint64_t n = 0;

	while (rt_hvstream_next(d, &frame) == 1) {
		check_grew(&before, &d->stats);
		check_window(d);
		check_frame(&frame, stream, &before, &d->stats);
		seq_note(sc, frame.seq);
		before = d->stats;
		n++;
	}
	check_grew(&before, &d->stats);
	check_window(d);
	/* Asking for more bytes with a whole frame held would be a frame lost. */
	if (rt_hvstream_buffered(d) >= RT_HVSTREAM_FRAME_MAX)
		abort();
	if (sc->gaps != d->stats.seq_gaps || sc->lost != d->stats.seq_lost)
		abort();
	return n;
}

/* Feeds @len bytes of @stream in chunks of @sizes in turn (all at once when @nsizes is 0). */
static uint64_t run(struct rt_hvstream_dec *d, const uint8_t *stream, size_t len,
		    const size_t *sizes, size_t nsizes)
{
	struct seq_check sc = { 0 };
	uint64_t frames = 0;
	size_t at = 0, turn = 0;

	rt_hvstream_dec_init(d);
	while (at < len) {
		size_t want = nsizes ? sizes[turn++ % nsizes] : len - at, k;
		struct rt_hvstream_stats before = d->stats;

		if (want > len - at)
			want = len - at;
		k = rt_hvstream_feed(d, stream + at, want);
		/* Once drained, room for the rest of the largest frame is promised. */
		if (k > want || k < (want < RT_HVSTREAM_DEC_BUF - RT_HVSTREAM_FRAME_MAX + 1 ?
				     want : RT_HVSTREAM_DEC_BUF - RT_HVSTREAM_FRAME_MAX + 1))
			abort();
		check_grew(&before, &d->stats);
		if (d->stats.bytes_in != before.bytes_in + k)
			abort();
		check_window(d);
		at += k;
		frames += drain(d, stream, &sc);
	}
	frames += drain(d, stream, &sc);
	if (d->stats.bytes_in != len || d->stats.frames != frames)
		abort();
	return frames;
}

/* Gives every candidate frame in @p the CRC its header and payload call for. */
static void seal(uint8_t *p, size_t len)
{
	for (size_t i = 0; i + RT_HVSTREAM_HDR_BYTES <= len; i++) {
		size_t plen, body;
		uint32_t crc;

		if (memcmp(p + i, RT_HVSTREAM_MAGIC, 4) || p[i + 4] != RT_HVSTREAM_VERSION)
			continue;
		plen = (size_t)p[i + 6] | (size_t)p[i + 7] << 8;
		body = RT_HVSTREAM_HDR_BYTES + plen;
		if (plen > RT_HVSTREAM_PAYLOAD_MAX || body + RT_HVSTREAM_CRC_BYTES > len - i)
			continue;
		crc = rt_hvstream_crc32(p + i + 4, body - 4);
		for (int k = 0; k < 4; k++)
			p[i + body + (size_t)k] = (uint8_t)(crc >> (8 * k));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t sizes[MAX_SIZES], nsizes, held;
	uint8_t *sealed = NULL;
	int want_seal;

	if (!size)
		return 0;
	nsizes = data[0] & 7;
	want_seal = data[0] & 8;
	if (nsizes > size - 1)
		nsizes = size - 1;
	for (size_t i = 0; i < nsizes; i++)
		sizes[i] = data[1 + i] ? data[1 + i] : BIG_CHUNK;
	data += 1 + nsizes;
	size -= 1 + nsizes;
	if (want_seal && size) {
		sealed = malloc(size);
		if (!sealed)
			return 0;
		memcpy(sealed, data, size);
		seal(sealed, size);
		data = sealed;
	}

	run(&dec, data, size, sizes, nsizes);
	/* How the bytes were cut must not change what comes out of them. */
	run(&dec_whole, data, size, NULL, 0);
	held = rt_hvstream_buffered(&dec);
	if (memcmp(&dec.stats, &dec_whole.stats, sizeof(dec.stats)) ||
	    held != rt_hvstream_buffered(&dec_whole) ||
	    memcmp(dec.buf + dec.start, dec_whole.buf + dec_whole.start, held))
		abort();
	free(sealed);
	return 0;
}
