/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_hvstream: encoding and incremental decoding of the guest probe's
 * stream (the format is in rt_hvstream.h).
 *
 * The decoder works on one buffer with a window [start, end). It first
 * looks for the magic, dropping what lies before it; then it checks the
 * header as soon as the header is there, so a corrupt version, type or
 * length is refused without waiting for bytes that may never come; only
 * then does it wait for the whole frame and check the CRC. A candidate
 * refused before its CRC proved its length gives up only its magic, so a
 * real frame hiding behind a corrupt length is still found; the magic has
 * no prefix that is also its suffix, so no other magic can start inside
 * those four bytes. A frame whose CRC is right but whose payload makes no
 * sense came from the sender as it is, so it is dropped whole.
 */
#include "rt_hvstream.h"

#include <errno.h>
#include <string.h>

static const uint8_t magic[4] = { 'R', 'T', 'H', 'V' };

/* ---- CRC-32 ------------------------------------------------------------ */

/*
 * The reflected polynomial 0xEDB88320 applied four bits at a time: a
 * 16-entry table instead of 256, which is plenty for a few frames a second.
 */
static const uint32_t crc_nib[16] = {
	0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac, 0x76dc4190, 0x6b6b51f4,
	0x4db26158, 0x5005713c, 0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
	0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
};

uint32_t rt_hvstream_crc32(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint32_t c = 0xffffffffu;

	while (n--) {
		c ^= *b++;
		c = (c >> 4) ^ crc_nib[c & 15];
		c = (c >> 4) ^ crc_nib[c & 15];
	}
	return ~c;
}

/* ---- Little-endian fields ---------------------------------------------- */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* ---- Encoding ---------------------------------------------------------- */

static int printable(uint8_t c)
{
	return c >= 0x20 && c <= 0x7e;
}

/*
 * The length of string @s, or -1 when it is too long or holds a byte the
 * decoder would refuse. The arrays are RT_HVSTREAM_STR_MAX + 1 bytes, so
 * looking one past the longest allowed string stays inside them even when
 * the caller forgot the NUL.
 */
static int str_len(const char *s)
{
	size_t n = strnlen(s, RT_HVSTREAM_STR_MAX + 1);

	if (n > RT_HVSTREAM_STR_MAX)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!printable((uint8_t)s[i]))
			return -1;
	return (int)n;
}

/* Writes the header of a frame with @plen payload bytes, once they are known to fit. */
static int frame_open(uint8_t *buf, size_t size, uint8_t type, uint32_t seq, size_t plen)
{
	if (plen > RT_HVSTREAM_PAYLOAD_MAX)
		return -EINVAL;
	if (size < RT_HVSTREAM_HDR_BYTES + plen + RT_HVSTREAM_CRC_BYTES)
		return -ENOSPC;
	memcpy(buf, magic, sizeof(magic));
	buf[4] = RT_HVSTREAM_VERSION;
	buf[5] = type;
	put16(buf + 6, (uint16_t)plen);
	put32(buf + 8, seq);
	return 0;
}

/* Seals the frame whose payload is written: the CRC after it; returns the frame's length. */
static int frame_close(uint8_t *buf, size_t plen)
{
	size_t body = RT_HVSTREAM_HDR_BYTES + plen;

	put32(buf + body, rt_hvstream_crc32(buf + sizeof(magic), body - sizeof(magic)));
	return (int)(body + RT_HVSTREAM_CRC_BYTES);
}

static uint8_t *put_str(uint8_t *p, const char *s, int n)
{
	*p++ = (uint8_t)n;
	memcpy(p, s, (size_t)n);
	return p + n;
}

int rt_hvstream_encode_hello(uint32_t seq, const struct rt_hvstream_hello *h, uint8_t *buf,
			     size_t size)
{
	int lk = str_len(h->kernel), lm = str_len(h->preempt), lp = str_len(h->policy);
	size_t plen;
	uint8_t *p;
	int ret;

	if (lk < 0 || lm < 0 || lp < 0 || h->priority > RT_HVSTREAM_PRIO_MAX ||
	    !h->period_us || !h->bucket_us)
		return -EINVAL;
	plen = 3 + (size_t)lk + (size_t)lm + (size_t)lp + 1 + 12;
	ret = frame_open(buf, size, RT_HVSTREAM_HELLO, seq, plen);
	if (ret)
		return ret;
	p = buf + RT_HVSTREAM_HDR_BYTES;
	p = put_str(p, h->kernel, lk);
	p = put_str(p, h->preempt, lm);
	p = put_str(p, h->policy, lp);
	*p++ = h->priority;
	put32(p, h->period_us);
	put32(p + 4, h->nbuckets);
	put32(p + 8, h->bucket_us);
	return frame_close(buf, plen);
}

int rt_hvstream_encode_summary(uint32_t seq, const struct rt_hvstream_summary *s, uint8_t *buf,
			       size_t size)
{
	int ret = frame_open(buf, size, RT_HVSTREAM_SUMMARY, seq, RT_HVSTREAM_SUMMARY_BYTES);
	uint8_t *p = buf + RT_HVSTREAM_HDR_BYTES;

	if (ret)
		return ret;
	put32(p, s->second);
	put64(p + 4, s->samples);
	put64(p + 12, s->min_ns);
	put64(p + 20, s->avg_ns);
	put64(p + 28, s->max_ns);
	put64(p + 36, s->overflows);
	return frame_close(buf, RT_HVSTREAM_SUMMARY_BYTES);
}

int rt_hvstream_encode_bye(uint32_t seq, const struct rt_hvstream_bye *b, uint8_t *buf,
			   size_t size)
{
	int ret = frame_open(buf, size, RT_HVSTREAM_BYE, seq, RT_HVSTREAM_BYE_BYTES);
	uint8_t *p = buf + RT_HVSTREAM_HDR_BYTES;

	if (ret)
		return ret;
	put64(p, b->samples);
	put32(p + 8, b->reason);
	return frame_close(buf, RT_HVSTREAM_BYE_BYTES);
}

/* Whether buckets @first .. @first + @n - 1 exist: 1 .. HIST_MAX of them, below 2^32. */
static int hist_span_ok(uint32_t first, size_t n)
{
	return n >= 1 && n <= RT_HVSTREAM_HIST_MAX && (uint64_t)first + n <= (uint64_t)1 << 32;
}

int rt_hvstream_encode_hist(uint32_t seq, uint32_t first, const uint32_t *counts, size_t n,
			    uint8_t *buf, size_t size)
{
	size_t plen;
	uint8_t *p;
	int ret;

	if (!hist_span_ok(first, n) || !counts)
		return -EINVAL;
	plen = 6 + 4 * n;
	ret = frame_open(buf, size, RT_HVSTREAM_HIST, seq, plen);
	if (ret)
		return ret;
	p = buf + RT_HVSTREAM_HDR_BYTES;
	put32(p, first);
	put16(p + 4, (uint16_t)n);
	for (size_t i = 0; i < n; i++)
		put32(p + 6 + 4 * i, counts[i]);
	return frame_close(buf, plen);
}

int rt_hvstream_encode(const struct rt_hvstream_frame *f, uint8_t *buf, size_t size)
{
	switch (f->type) {
	case RT_HVSTREAM_HELLO:
		return rt_hvstream_encode_hello(f->seq, &f->u.hello, buf, size);
	case RT_HVSTREAM_SUMMARY:
		return rt_hvstream_encode_summary(f->seq, &f->u.summary, buf, size);
	case RT_HVSTREAM_HIST:
		return rt_hvstream_encode_hist(f->seq, f->u.hist.first, f->u.hist.counts,
					       f->u.hist.count, buf, size);
	case RT_HVSTREAM_BYE:
		return rt_hvstream_encode_bye(f->seq, &f->u.bye, buf, size);
	}
	return -EINVAL;
}

/* ---- Payloads ---------------------------------------------------------- */

/*
 * A reader over one payload. Every read checks what is left first; a short
 * read marks the reader bad and yields zeros, so a parser can read all its
 * fields and look once at the end.
 */
struct rd {
	const uint8_t *p;
	size_t left;
	int bad;
};

static const uint8_t *rd_take(struct rd *r, size_t n)
{
	const uint8_t *p = r->p;

	if (r->bad || r->left < n) {
		r->bad = 1;
		return NULL;
	}
	r->p += n;
	r->left -= n;
	return p;
}

static uint8_t rd8(struct rd *r)
{
	const uint8_t *p = rd_take(r, 1);

	return p ? *p : 0;
}

static uint16_t rd16(struct rd *r)
{
	const uint8_t *p = rd_take(r, 2);

	return p ? get16(p) : 0;
}

static uint32_t rd32(struct rd *r)
{
	const uint8_t *p = rd_take(r, 4);

	return p ? get32(p) : 0;
}

static uint64_t rd64(struct rd *r)
{
	const uint8_t *p = rd_take(r, 8);

	return p ? get64(p) : 0;
}

/* A length-prefixed string into @dst (RT_HVSTREAM_STR_MAX + 1 bytes), NUL added by us. */
static void rd_str(struct rd *r, char *dst)
{
	size_t n = rd8(r);
	const uint8_t *s;

	dst[0] = '\0';
	if (n > RT_HVSTREAM_STR_MAX) {
		r->bad = 1;
		return;
	}
	s = rd_take(r, n);
	if (!s)
		return;
	for (size_t i = 0; i < n; i++) {
		if (!printable(s[i])) {
			r->bad = 1;
			return;
		}
	}
	memcpy(dst, s, n);
	dst[n] = '\0';
}

static void parse_hello(struct rd *r, struct rt_hvstream_hello *h)
{
	rd_str(r, h->kernel);
	rd_str(r, h->preempt);
	rd_str(r, h->policy);
	h->priority = rd8(r);
	h->period_us = rd32(r);
	h->nbuckets = rd32(r);
	h->bucket_us = rd32(r);
	if (h->priority > RT_HVSTREAM_PRIO_MAX || !h->period_us || !h->bucket_us)
		r->bad = 1;
}

static void parse_summary(struct rd *r, struct rt_hvstream_summary *s)
{
	s->second = rd32(r);
	s->samples = rd64(r);
	s->min_ns = rd64(r);
	s->avg_ns = rd64(r);
	s->max_ns = rd64(r);
	s->overflows = rd64(r);
}

static void parse_hist(struct rd *r, struct rt_hvstream_hist *h)
{
	h->first = rd32(r);
	h->count = rd16(r);
	/* The count must match the bytes left before any bucket is read. */
	if (r->bad || !hist_span_ok(h->first, h->count) || r->left != 4 * (size_t)h->count) {
		r->bad = 1;
		return;
	}
	for (size_t i = 0; i < h->count; i++)
		h->counts[i] = rd32(r);
}

static void parse_bye(struct rd *r, struct rt_hvstream_bye *b)
{
	b->samples = rd64(r);
	b->reason = rd32(r);
}

/* Fills @f from a payload whose CRC matched; 0, or -1 when it is not a payload of its type. */
static int parse_payload(uint8_t type, const uint8_t *p, size_t len, struct rt_hvstream_frame *f)
{
	struct rd r = { .p = p, .left = len, .bad = 0 };

	f->type = type;
	switch (type) {
	case RT_HVSTREAM_HELLO:
		parse_hello(&r, &f->u.hello);
		break;
	case RT_HVSTREAM_SUMMARY:
		parse_summary(&r, &f->u.summary);
		break;
	case RT_HVSTREAM_HIST:
		parse_hist(&r, &f->u.hist);
		break;
	case RT_HVSTREAM_BYE:
		parse_bye(&r, &f->u.bye);
		break;
	default:
		return -1;
	}
	/* Bytes left over mean the sender and we disagree on the layout. */
	return r.bad || r.left ? -1 : 0;
}

/* ---- Decoding ---------------------------------------------------------- */

void rt_hvstream_dec_init(struct rt_hvstream_dec *d)
{
	memset(d, 0, sizeof(*d));
}

size_t rt_hvstream_buffered(const struct rt_hvstream_dec *d)
{
	return d->end - d->start;
}

size_t rt_hvstream_feed(struct rt_hvstream_dec *d, const void *data, size_t len)
{
	size_t held = d->end - d->start, room;

	/* Move what is held to the front only when the new bytes would not fit after it. */
	if (d->start && len > sizeof(d->buf) - d->end) {
		memmove(d->buf, d->buf + d->start, held);
		d->start = 0;
		d->end = held;
	}
	room = sizeof(d->buf) - d->end;
	if (len > room)
		len = room;
	if (len)
		memcpy(d->buf + d->end, data, len);
	d->end += len;
	d->stats.bytes_in += len;
	return len;
}

static void drop(struct rt_hvstream_dec *d, size_t n)
{
	d->start += n;
	d->stats.skipped += n;
	if (d->start == d->end)
		d->start = d->end = 0;
}

/*
 * Moves the window to the next magic and returns 1, or drops everything but
 * a tail that may be the first bytes of a magic still arriving and returns 0.
 */
static int find_magic(struct rt_hvstream_dec *d)
{
	const uint8_t *p = d->buf + d->start;
	size_t avail = d->end - d->start, keep;
	const uint8_t *m = memmem(p, avail, magic, sizeof(magic));

	if (m) {
		drop(d, (size_t)(m - p));
		return 1;
	}
	keep = avail < sizeof(magic) - 1 ? avail : sizeof(magic) - 1;
	while (keep && memcmp(p + avail - keep, magic, keep))
		keep--;
	drop(d, avail - keep);
	return 0;
}

static int known_type(uint8_t t)
{
	return t >= RT_HVSTREAM_HELLO && t <= RT_HVSTREAM_BYE;
}

static void note_seq(struct rt_hvstream_dec *d, uint32_t seq)
{
	if (d->have_seq && seq != d->next_seq) {
		uint32_t ahead = seq - d->next_seq;

		d->stats.seq_gaps++;
		/* Half the number space ahead is "frames lost"; the rest is going back. */
		if (ahead < 0x80000000u)
			d->stats.seq_lost += ahead;
	}
	d->have_seq = 1;
	d->next_seq = seq + 1;
}

int rt_hvstream_next(struct rt_hvstream_dec *d, struct rt_hvstream_frame *out)
{
	for (;;) {
		const uint8_t *p;
		size_t plen, total;
		uint32_t crc;

		if (!find_magic(d))
			return 0;
		p = d->buf + d->start;
		if (d->end - d->start < RT_HVSTREAM_HDR_BYTES)
			return 0;
		if (p[4] != RT_HVSTREAM_VERSION) {
			d->stats.bad_version++;
			drop(d, sizeof(magic));
			continue;
		}
		if (!known_type(p[5])) {
			d->stats.bad_type++;
			drop(d, sizeof(magic));
			continue;
		}
		plen = get16(p + 6);
		if (plen > RT_HVSTREAM_PAYLOAD_MAX) {
			d->stats.bad_length++;
			drop(d, sizeof(magic));
			continue;
		}
		total = RT_HVSTREAM_HDR_BYTES + plen + RT_HVSTREAM_CRC_BYTES;
		if (d->end - d->start < total)
			return 0;
		crc = rt_hvstream_crc32(p + sizeof(magic), RT_HVSTREAM_HDR_BYTES - sizeof(magic) + plen);
		if (crc != get32(p + RT_HVSTREAM_HDR_BYTES + plen)) {
			d->stats.bad_crc++;
			drop(d, sizeof(magic));
			continue;
		}
		if (parse_payload(p[5], p + RT_HVSTREAM_HDR_BYTES, plen, out)) {
			/* Its number is not taken, so the frames after it show it missing. */
			d->stats.bad_payload++;
			drop(d, total);
			continue;
		}
		out->seq = get32(p + 8);
		note_seq(d, out->seq);
		d->stats.frames++;
		d->stats.frame_bytes += total;
		d->start += total;
		if (d->start == d->end)
			d->start = d->end = 0;
		return 1;
	}
}
