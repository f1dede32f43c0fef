/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_nop_frame: the NOP frame on the wire, our format (the paper's was
 * not found): a 6-byte header, the payload, a CRC-32 (IEEE 802.3's
 * polynomial, reflected, as zlib computes it) over header and payload,
 * big-endian. At the model's 8 Mbit/s a byte is a microsecond, so the
 * smallest frame, "nothing to send", takes 10 us.
 *
 *   0  version (high nibble, 1) | type (low nibble: 0 empty, 1 data, 2 join)
 *   1  source node id, 0 .. 63
 *   2  the node this frame announces as excluded, or 0xff
 *   3  the sender's turn counter, modulo 256
 *   4  payload length, big-endian, 0 .. SIM_NOP_PAYLOAD_MAX
 *   6  payload
 *   6+len  CRC-32, big-endian
 *
 * The real medium (--medium netns) carries these bytes as the payload of
 * an Ethernet frame of rtlab's EtherType; Ethernet pads short frames, so
 * the decoder accepts bytes after the CRC and ignores them. Pure: no I/O.
 */
#ifndef RTLAB_SIM_SIM_NOP_FRAME_H
#define RTLAB_SIM_SIM_NOP_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define SIM_NOP_FRAME_VERSION 1u
#define SIM_NOP_HDR_BYTES 6u
#define SIM_NOP_CRC_BYTES 4u
#define SIM_NOP_PAYLOAD_MAX 1490u	/* a frame of at most 1500 bytes */
#define SIM_NOP_ANNOUNCE_NONE 0xffu
/* The EtherType of the real medium: IEEE 802's "local experimental" 0x88B5. */
#define SIM_NOP_ETHERTYPE 0x88b5u

struct sim_nop_frame {
	uint8_t type;		/* enum sim_nop_frame_type */
	uint8_t src;		/* 0 .. 63 */
	uint8_t announce;	/* an excluded node, or SIM_NOP_ANNOUNCE_NONE */
	uint8_t seq;
	uint16_t len;		/* payload bytes */
	const uint8_t *payload;	/* len bytes; borrowed (decode: points into the buffer) */
};

/* sim_nop_crc32 - CRC-32 of @n bytes at @p (0xCBF43926 for "123456789") */
uint32_t sim_nop_crc32(const uint8_t *p, size_t n);

/**
 * sim_nop_frame_encode - the bytes of @f into @buf
 * @size: room in @buf
 *
 * Returns the frame's length (10 + f->len), -EINVAL for a field out of
 * range, -ENOSPC when @buf is too small.
 */
int sim_nop_frame_encode(const struct sim_nop_frame *f, uint8_t *buf, size_t size);

/**
 * sim_nop_frame_decode - read a frame from @len bytes at @buf
 * @out: filled on success; its payload points into @buf
 *
 * Returns the frame's length (bytes after it are padding), -EINVAL for a
 * malformed frame (too short, another version, unknown type, a source
 * above 63, a length past the buffer) or -EBADMSG for a CRC mismatch,
 * with @cause.
 */
int sim_nop_frame_decode(const uint8_t *buf, size_t len, struct sim_nop_frame *out,
			 char **cause);

#endif /* RTLAB_SIM_SIM_NOP_FRAME_H */
