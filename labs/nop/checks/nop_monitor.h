/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nop_monitor.h: the monitor you write for the nop exercise (trusted: the
 * grader's copy of this header is the one used).
 *
 * Every node on a NOP bus hears every frame, so every correct node sees
 * the same events and reaches the same verdict; one function stands for
 * all of them. It is called once per bus event: at the end of each frame
 * and at the end of a turn in which nobody started to send within the
 * timeout. It says whether a node has failed, and which.
 *
 * Our model (labs/nop/README.md, not the paper's specification): the
 * members take turns in the order of their ids; the turn of node
 * @expected began at @turn_start_ns, when the previous frame ended. A
 * correct node starts at most @gap_max_ns after that (the processing gap
 * plus its jitter). A node that is not a member any more may rejoin by a
 * join frame (type NOP_JOIN) in its old place: that is not a fault.
 */
#ifndef NOP_MONITOR_H
#define NOP_MONITOR_H

#include <stdbool.h>
#include <stdint.h>

#define NOP_NONE (-1)		/* "no node" */

enum nop_fault {
	NOP_FAULT_NONE,		/* nothing wrong */
	NOP_FAULT_SILENT,	/* the node whose turn it was stayed silent (crashed, skipped) */
	NOP_FAULT_BABBLE,	/* a node sent out of its turn */
	NOP_FAULT_CORRUPT,	/* a frame failed its CRC */
	NOP_FAULT_LATE,		/* the node started later than a correct node would */
	NOP_FAULT_DUP,		/* a second node sent with the id of the previous frame's sender */
};

enum nop_type { NOP_EMPTY, NOP_DATA, NOP_JOIN };

struct nop_obs {
	uint64_t now_ns;	/* the frame's end, or the end of the silent wait */
	uint64_t turn_start_ns;	/* when @expected's turn began (the previous frame's end) */
	int expected;		/* the member whose turn it is */
	int prev_src;		/* who sent the previous frame, or NOP_NONE (after silence) */
	bool frame;		/* a frame was heard; false: silence from turn_start to now */
	bool crc_ok;		/* the frame's CRC was right */
	bool member;		/* its sender is a member */
	int src;		/* its sender's id (the id in the frame) */
	int type;		/* enum nop_type */
	uint64_t start_ns, end_ns;	/* when it started and ended */
	uint64_t gap_max_ns;	/* the latest a correct node starts after turn_start */
	uint64_t timeout_ns;	/* T_to: how long the others wait in silence */
};

struct nop_verdict {
	int fault;		/* enum nop_fault */
	int node;		/* the node found faulty, or NOP_NONE */
};

/*
 * nop_monitor - judge one bus event
 * @o: what every correct node observed
 * @v: comes as { NOP_FAULT_NONE, NOP_NONE }; set both fields when a node failed
 *
 * Blame the node that failed, never a correct one: a verdict against a
 * correct node drops it from the bus (a false positive).
 */
void nop_monitor(const struct nop_obs *o, struct nop_verdict *v);

#endif /* NOP_MONITOR_H */
