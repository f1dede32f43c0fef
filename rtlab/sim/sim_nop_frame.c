/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_nop_frame: encoding and decoding of our NOP frame (the format is in
 * sim_nop_frame.h). The CRC is computed four bits at a time from a
 * 16-entry constant table: small, no state, fast enough for a bus of a
 * few Mbit/s.
 */
#include "sim_nop_frame.h"

#include <errno.h>
#include <string.h>

#include "core/rt_err.h"
#include "sim_nop.h"

static const uint32_t crc_nibble[16] = {
	0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac, 0x76dc4190, 0x6b6b51f4,
	0x4db26158, 0x5005713c, 0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
	0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
};

uint32_t sim_nop_crc32(const uint8_t *p, size_t n)
{
	uint32_t crc = 0xffffffffu;

	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		crc = (crc >> 4) ^ crc_nibble[crc & 15];
		crc = (crc >> 4) ^ crc_nibble[crc & 15];
	}
	return ~crc;
}

int sim_nop_frame_encode(const struct sim_nop_frame *f, uint8_t *buf, size_t size)
{
	size_t total = SIM_NOP_HDR_BYTES + (size_t)f->len + SIM_NOP_CRC_BYTES;
	uint32_t crc;

	if (f->type >= SIM_NOP_NTYPES || f->src >= SIM_NOP_NODES_MAX ||
	    f->len > SIM_NOP_PAYLOAD_MAX || (f->len && !f->payload) ||
	    (f->announce != SIM_NOP_ANNOUNCE_NONE && f->announce >= SIM_NOP_NODES_MAX))
		return -EINVAL;
	if (size < total)
		return -ENOSPC;
	buf[0] = (uint8_t)(SIM_NOP_FRAME_VERSION << 4 | f->type);
	buf[1] = f->src;
	buf[2] = f->announce;
	buf[3] = f->seq;
	buf[4] = (uint8_t)(f->len >> 8);
	buf[5] = (uint8_t)f->len;
	if (f->len)
		memcpy(buf + SIM_NOP_HDR_BYTES, f->payload, f->len);
	crc = sim_nop_crc32(buf, SIM_NOP_HDR_BYTES + (size_t)f->len);
	buf[total - 4] = (uint8_t)(crc >> 24);
	buf[total - 3] = (uint8_t)(crc >> 16);
	buf[total - 2] = (uint8_t)(crc >> 8);
	buf[total - 1] = (uint8_t)crc;
	return (int)total;
}

int sim_nop_frame_decode(const uint8_t *buf, size_t len, struct sim_nop_frame *out,
			 char **cause)
{
	size_t plen, total;
	uint32_t crc, want;

	if (len < SIM_NOP_HDR_BYTES + SIM_NOP_CRC_BYTES)
		return rt_err(cause, -EINVAL, "a frame of %zu bytes is shorter than %u", len,
			      SIM_NOP_HDR_BYTES + SIM_NOP_CRC_BYTES);
	if (buf[0] >> 4 != SIM_NOP_FRAME_VERSION)
		return rt_err(cause, -EINVAL, "frame version %u, expected %u", buf[0] >> 4,
			      SIM_NOP_FRAME_VERSION);
	if ((buf[0] & 15) >= SIM_NOP_NTYPES)
		return rt_err(cause, -EINVAL, "unknown frame type %u", buf[0] & 15);
	if (buf[1] >= SIM_NOP_NODES_MAX)
		return rt_err(cause, -EINVAL, "source node %u is above %u", buf[1],
			      SIM_NOP_NODES_MAX - 1);
	plen = (size_t)buf[4] << 8 | buf[5];
	total = SIM_NOP_HDR_BYTES + plen + SIM_NOP_CRC_BYTES;
	if (plen > SIM_NOP_PAYLOAD_MAX || total > len)
		return rt_err(cause, -EINVAL, "payload length %zu runs past the %zu bytes", plen,
			      len);
	crc = sim_nop_crc32(buf, SIM_NOP_HDR_BYTES + plen);
	want = (uint32_t)buf[total - 4] << 24 | (uint32_t)buf[total - 3] << 16 |
	       (uint32_t)buf[total - 2] << 8 | buf[total - 1];
	if (crc != want)
		return rt_err(cause, -EBADMSG, "CRC %08x, the frame says %08x", crc, want);
	out->type = buf[0] & 15;
	out->src = buf[1];
	out->announce = buf[2];
	out->seq = buf[3];
	out->len = (uint16_t)plen;
	out->payload = buf + SIM_NOP_HDR_BYTES;
	return (int)total;
}
