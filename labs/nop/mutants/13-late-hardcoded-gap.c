/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mutant: lateness against a hard-coded 6 us (the lesson's gap_max) instead of gap_max_ns */
/* replaces: nop_monitor.c */
/* caught-by: no-false-positive */
/*
 * nop_monitor.c: the reference monitor of the nop exercise (for teachers).
 * The rules of our model, in the order that keeps them from blaming a
 * correct node: silence blames the node whose turn it was; a bad CRC
 * blames it too (the id inside a corrupted frame cannot be trusted); a
 * non-member's join frame is a rejoin; a frame from another node than the
 * expected one is a second node with the previous sender's id (when it
 * is that id again) or a babbler; a start past the gap is late.
 */
#include "nop_monitor.h"

void nop_monitor(const struct nop_obs *o, struct nop_verdict *v)
{
	if (!o->frame) {
		if (o->expected != NOP_NONE) {
			v->fault = NOP_FAULT_SILENT;
			v->node = o->expected;
		}
		return;
	}
	if (!o->crc_ok) {
		v->fault = NOP_FAULT_CORRUPT;
		v->node = o->expected;
		return;
	}
	if (o->type == NOP_JOIN && !o->member)
		return;
	if (o->src != o->expected) {
		v->fault = o->src == o->prev_src ? NOP_FAULT_DUP : NOP_FAULT_BABBLE;
		v->node = o->src;
		return;
	}
	if (o->start_ns > o->turn_start_ns + 6000) {
		v->fault = NOP_FAULT_LATE;
		v->node = o->src;
	}
}
