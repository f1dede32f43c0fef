/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_nop_frame: sim_nop_frame_decode() on arbitrary bytes, as the real
 * medium's nodes read whatever arrives with rtlab's EtherType. A frame
 * the decoder accepts must have fields in range and a payload inside the
 * buffer, and must encode again to exactly the bytes it came from; a
 * refusal must say why. Anything else aborts.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_nop.h"
#include "sim/sim_nop_frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t again[SIM_NOP_HDR_BYTES + SIM_NOP_PAYLOAD_MAX + SIM_NOP_CRC_BYTES];
	struct sim_nop_frame f;
	char *cause = NULL;
	int n = sim_nop_frame_decode(data, size, &f, &cause);

	if (n < 0) {
		if ((n != -EINVAL && n != -EBADMSG) || !cause || !*cause)
			abort();
		free(cause);
		return 0;
	}
	if (cause || (size_t)n > size || f.type >= SIM_NOP_NTYPES || f.src >= SIM_NOP_NODES_MAX ||
	    f.len > SIM_NOP_PAYLOAD_MAX || (size_t)n != SIM_NOP_HDR_BYTES + f.len + SIM_NOP_CRC_BYTES ||
	    f.payload != data + SIM_NOP_HDR_BYTES)
		abort();
	if (f.announce != SIM_NOP_ANNOUNCE_NONE && f.announce >= SIM_NOP_NODES_MAX)
		return 0;	/* decodable, but no node of ours would send it */
	if (sim_nop_frame_encode(&f, again, sizeof(again)) != n || memcmp(again, data, (size_t)n))
		abort();
	return 0;
}
