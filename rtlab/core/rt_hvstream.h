/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_hvstream: the wire format by which a latency probe running headless
 * inside a QEMU guest streams its results to the host over a virtio-serial
 * port, for the hypervisor lab. The port is a plain byte stream: a frame may
 * arrive cut at any byte, several may arrive in one read, and whatever the
 * guest printed before the probe started (or a port reopened mid-frame)
 * leaves garbage between them. So every frame starts with a magic word to
 * find it again, carries its own length, and ends with a CRC.
 *
 * A frame, every multi-byte integer little-endian:
 *
 *   offset  size  field
 *        0     4  magic "RTHV"
 *        4     1  version, 1
 *        5     1  type: 1 HELLO, 2 SUMMARY, 3 HIST, 4 BYE
 *        6     2  payload length, 0 .. RT_HVSTREAM_PAYLOAD_MAX (4096)
 *        8     4  sequence number, one more than the previous frame's
 *       12   len  payload (below)
 *   12+len     4  CRC-32 (IEEE 802.3, as zlib computes it) of bytes 4 .. 12+len-1
 *
 * The CRC leaves the magic out: the magic is only a marker to search for,
 * and everything after it is what must arrive intact.
 *
 * Payloads (a string is one length byte, 0 .. RT_HVSTREAM_STR_MAX, then that
 * many printable ASCII bytes, 0x20 .. 0x7e, no NUL); a payload must have
 * exactly the length its type implies:
 *
 *   HELLO    kernel release (string), preemption model (string), policy
 *            name (string), priority (u8, 0 .. 99), period in us (u32, > 0),
 *            histogram buckets (u32), bucket width in us (u32, > 0)
 *   SUMMARY  second index (u32), samples (u64), min, avg, max latency in ns
 *            (u64 each), overflows (u64): 44 bytes, one per second
 *   HIST     first bucket index (u32), count (u16, 1 .. RT_HVSTREAM_HIST_MAX),
 *            then count bucket counts (u32 each); a histogram larger than
 *            one frame is sent as several, each saying where it starts
 *   BYE      total samples (u64), reason (u32, enum rt_hvstream_bye_reason)
 *
 * The decoder never fails on bad input: it drops what it cannot use, counts
 * why, and looks for the next magic. It keeps at most RT_HVSTREAM_DEC_BUF
 * bytes in the caller's struct and allocates nothing, so a host can run one
 * per guest for as long as it likes. Pure: no I/O.
 */
#ifndef RTLAB_CORE_RT_HVSTREAM_H
#define RTLAB_CORE_RT_HVSTREAM_H

#include <stddef.h>
#include <stdint.h>

#define RT_HVSTREAM_MAGIC "RTHV"
#define RT_HVSTREAM_VERSION 1u
#define RT_HVSTREAM_HDR_BYTES 12u
#define RT_HVSTREAM_CRC_BYTES 4u
#define RT_HVSTREAM_PAYLOAD_MAX 4096u
#define RT_HVSTREAM_FRAME_MAX \
	(RT_HVSTREAM_HDR_BYTES + RT_HVSTREAM_PAYLOAD_MAX + RT_HVSTREAM_CRC_BYTES)
#define RT_HVSTREAM_STR_MAX 64u		/* a kernel release is at most 64 characters */
#define RT_HVSTREAM_PRIO_MAX 99u
/* Bucket counts that fit in one HIST frame after its 6-byte head: 1022. */
#define RT_HVSTREAM_HIST_MAX ((RT_HVSTREAM_PAYLOAD_MAX - 6u) / 4u)
#define RT_HVSTREAM_SUMMARY_BYTES 44u
#define RT_HVSTREAM_BYE_BYTES 12u
/*
 * The decoder's buffer: a largest frame must fit whole before its CRC can be
 * checked; twice that, nearly, lets a read of a few KiB land while one waits.
 */
#define RT_HVSTREAM_DEC_BUF 8192u

enum rt_hvstream_type {
	RT_HVSTREAM_HELLO = 1,
	RT_HVSTREAM_SUMMARY = 2,
	RT_HVSTREAM_HIST = 3,
	RT_HVSTREAM_BYE = 4,
};

/* Why the probe stopped; the decoder passes any other value through unchanged. */
enum rt_hvstream_bye_reason {
	RT_HVSTREAM_BYE_DONE = 0,	/* ran its duration or loop count */
	RT_HVSTREAM_BYE_STOPPED = 1,	/* a signal asked it to stop */
	RT_HVSTREAM_BYE_ERROR = 2,	/* gave up, e.g. the policy could not be set */
};

struct rt_hvstream_hello {
	char kernel[RT_HVSTREAM_STR_MAX + 1];	/* uname -r */
	char preempt[RT_HVSTREAM_STR_MAX + 1];	/* e.g. "PREEMPT_RT", "PREEMPT_DYNAMIC (full)" */
	char policy[RT_HVSTREAM_STR_MAX + 1];	/* e.g. "SCHED_FIFO" */
	uint8_t priority;			/* 0 .. 99 */
	uint32_t period_us;			/* > 0 */
	uint32_t nbuckets;			/* the histogram's buckets, HIST frames to expect */
	uint32_t bucket_us;			/* > 0 */
};

struct rt_hvstream_summary {
	uint32_t second;	/* 0 for the first second of the run */
	uint64_t samples;	/* in this second */
	uint64_t min_ns;
	uint64_t avg_ns;
	uint64_t max_ns;
	uint64_t overflows;	/* samples beyond the histogram's last bucket */
};

struct rt_hvstream_hist {
	uint32_t first;		/* index of counts[0] in the whole histogram */
	uint16_t count;		/* 1 .. RT_HVSTREAM_HIST_MAX */
	uint32_t counts[RT_HVSTREAM_HIST_MAX];
};

struct rt_hvstream_bye {
	uint64_t samples;	/* of the whole run */
	uint32_t reason;	/* enum rt_hvstream_bye_reason */
};

struct rt_hvstream_frame {
	uint8_t type;		/* enum rt_hvstream_type */
	uint32_t seq;
	union {
		struct rt_hvstream_hello hello;
		struct rt_hvstream_summary summary;
		struct rt_hvstream_hist hist;
		struct rt_hvstream_bye bye;
	} u;
};

/*
 * What the decoder saw. Every counter only grows. Every byte fed ends up in
 * exactly one of three places: a returned frame (frame_bytes), dropped
 * (skipped) or still buffered, so bytes_in = frame_bytes + skipped + buffered.
 * A rejected frame counts once in its reason and its bytes in skipped.
 */
struct rt_hvstream_stats {
	uint64_t bytes_in;	/* accepted by rt_hvstream_feed() */
	uint64_t frames;	/* returned by rt_hvstream_next() */
	uint64_t frame_bytes;	/* their bytes, headers and CRCs included */
	uint64_t skipped;	/* bytes dropped: garbage, and rejected frames */
	uint64_t bad_version;	/* a magic followed by another version */
	uint64_t bad_type;	/* ... by an unknown type */
	uint64_t bad_length;	/* ... by a payload length over RT_HVSTREAM_PAYLOAD_MAX */
	uint64_t bad_crc;	/* a whole frame whose CRC does not match */
	uint64_t bad_payload;	/* right CRC, but the payload is not what its type says */
	uint64_t seq_gaps;	/* frames whose number was not the one expected */
	uint64_t seq_lost;	/* frames skipped over by those gaps that moved forward */
};

/*
 * The incremental decoder, in the caller's storage: rt_hvstream_dec_init()
 * it, then feed bytes and take frames. The fields are the decoder's; read
 * only stats.
 */
struct rt_hvstream_dec {
	uint8_t buf[RT_HVSTREAM_DEC_BUF];
	size_t start;		/* first byte not yet consumed */
	size_t end;		/* one past the last byte held */
	uint32_t next_seq;	/* the number the next frame should carry */
	int have_seq;		/* 0 until the first frame is returned */
	struct rt_hvstream_stats stats;
};

/* rt_hvstream_crc32 - CRC-32 (IEEE) of @n bytes at @p; 0xCBF43926 for "123456789" */
uint32_t rt_hvstream_crc32(const void *p, size_t n);

/**
 * rt_hvstream_encode - the bytes of frame @f into @buf
 * @size: room in @buf; RT_HVSTREAM_FRAME_MAX is always enough
 *
 * Returns the frame's length, -EINVAL when a field is outside what the
 * decoder accepts (an unknown type, a string too long or not printable
 * ASCII, a priority over 99, a zero period or bucket width, a HIST count of
 * 0 or over RT_HVSTREAM_HIST_MAX or running past bucket 2^32 - 1), or
 * -ENOSPC when @buf is too small (nothing useful is written then).
 */
int rt_hvstream_encode(const struct rt_hvstream_frame *f, uint8_t *buf, size_t size);

/* The same, one per type, without filling a whole struct rt_hvstream_frame. */
int rt_hvstream_encode_hello(uint32_t seq, const struct rt_hvstream_hello *h, uint8_t *buf,
			     size_t size);
int rt_hvstream_encode_summary(uint32_t seq, const struct rt_hvstream_summary *s, uint8_t *buf,
			       size_t size);
int rt_hvstream_encode_bye(uint32_t seq, const struct rt_hvstream_bye *b, uint8_t *buf,
			   size_t size);
/*
 * A HIST frame of buckets @first .. @first + @n - 1 from @counts (borrowed);
 * a larger histogram goes in slices of at most RT_HVSTREAM_HIST_MAX.
 */
int rt_hvstream_encode_hist(uint32_t seq, uint32_t first, const uint32_t *counts, size_t n,
			    uint8_t *buf, size_t size);

/* rt_hvstream_dec_init - an empty decoder with zero counters, expecting any number first */
void rt_hvstream_dec_init(struct rt_hvstream_dec *d);

/**
 * rt_hvstream_feed - append up to @len bytes at @data to the decoder
 *
 * Returns how many bytes it took: fewer than @len only when its buffer is
 * full, which can only happen while frames wait in it. Take them with
 * rt_hvstream_next() until it returns 0, then feed the rest: after that at
 * least RT_HVSTREAM_DEC_BUF - RT_HVSTREAM_FRAME_MAX + 1 bytes fit.
 */
size_t rt_hvstream_feed(struct rt_hvstream_dec *d, const void *data, size_t len);

/**
 * rt_hvstream_next - the next good frame, if the bytes fed so far hold one
 * @out: filled when 1 is returned; may be written over when 0 is
 *
 * Returns 1 with a frame, or 0 when more bytes are needed. Bad input never
 * makes it fail: it is dropped and counted in d->stats on the way.
 */
int rt_hvstream_next(struct rt_hvstream_dec *d, struct rt_hvstream_frame *out);

/* rt_hvstream_buffered - bytes fed but neither returned in a frame nor dropped yet */
size_t rt_hvstream_buffered(const struct rt_hvstream_dec *d);

#endif /* RTLAB_CORE_RT_HVSTREAM_H */
