/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * subject.c: the untrusted driver of the nop exercise. Linked with the
 * learner's nop_monitor.c, it reads one bus event a line on stdin,
 *
 *   NOW TURN_START EXPECTED PREV_SRC FRAME CRC_OK MEMBER SRC TYPE START END GAP_MAX TIMEOUT
 *
 * (ids -1 for none, flags 0 or 1), calls nop_monitor() and prints a line
 * "LINE FAULT NODE" for each of the first 100 verdicts that are not
 * NOP_FAULT_NONE (LINE counts from 1), then "end LINES". check_nop.c
 * judges; nothing here decides a verdict.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "nop_monitor.h"

int main(void)
{
	char line[512];
	unsigned long n = 0, said = 0;

	while (fgets(line, sizeof(line), stdin)) {
		struct nop_obs o;
		struct nop_verdict v = { NOP_FAULT_NONE, NOP_NONE };
		int frame, crc, member;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		memset(&o, 0, sizeof(o));
		if (sscanf(line, "%" SCNu64 " %" SCNu64 " %d %d %d %d %d %d %d %" SCNu64 " %" SCNu64
			   " %" SCNu64 " %" SCNu64, &o.now_ns, &o.turn_start_ns, &o.expected,
			   &o.prev_src, &frame, &crc, &member, &o.src, &o.type, &o.start_ns,
			   &o.end_ns, &o.gap_max_ns, &o.timeout_ns) != 13) {
			printf("bad %lu\n", n + 1);
			return 1;
		}
		o.frame = frame;
		o.crc_ok = crc;
		o.member = member;
		n++;
		nop_monitor(&o, &v);
		if (v.fault != NOP_FAULT_NONE && said++ < 100)
			printf("%lu %d %d\n", n, v.fault, v.node);
	}
	printf("end %lu\n", n);
	return 0;
}
