/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_fcse_trace: memory-access traces for the FCSE model, read from
 * memory (the lab reads or maps the file; nothing here does I/O).
 *
 * Three formats:
 *
 *  - Dinero's "din": one access a line, "LABEL ADDRESS": label 0 a data
 *    read, 1 a data write, 2 an instruction fetch, 3 and 4 (escape, flush)
 *    skipped; the address in hex, "0x" optional. An access is taken as 4
 *    bytes. Blank lines and lines starting with '#' are skipped.
 *  - valgrind lackey's --trace-mem=yes output: "I  ADDR,SIZE" (fetch),
 *    " L ADDR,SIZE" (load), " S ..." (store), " M ..." (modify: one write
 *    access, as cachegrind counts it). Valgrind's own lines ("==PID==",
 *    "--PID--") are skipped.
 *  - our binary format, "rtfcse01": 8 bytes of magic, the number of
 *    records as a little-endian u64, then that many little-endian u32
 *    records (sim_fcse.h: line address, straddle bit, kind). 4 bytes an
 *    access, ready to use in place when mapped on a little-endian host.
 *
 * The text readers place a trace into a 32-bit address space: each 1 MB
 * region of the original addresses (a 64-bit program's stack near
 * 0x1ffefff000, say) is given a region of its own in the order first
 * touched, from 0 up: the first 32 below 32 MB, the next ones from
 * 0x40000000 up (where a process is "large" for FCSE). Offsets within a
 * region are kept, so set indexes, line offsets and pages are those of
 * the original addresses and distinct lines stay distinct: an LRU cache
 * sees the same hits and misses as with the original addresses (the one
 * exception, an access straddling two regions, is counted on the next
 * region of ours).
 */
#ifndef RTLAB_SIM_SIM_FCSE_TRACE_H
#define RTLAB_SIM_SIM_FCSE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIM_FCSE_TRACE_MAGIC "rtfcse01"
#define SIM_FCSE_TRACE_HDR 16u		/* magic + count */
#define SIM_FCSE_TRACE_MAX_REGIONS 3104u	/* 32 low + 3072 from 1 GB up */

enum sim_fcse_trace_fmt {
	SIM_FCSE_TRACE_BIN,
	SIM_FCSE_TRACE_DIN,
	SIM_FCSE_TRACE_LACKEY,
	SIM_FCSE_TRACE_NFMT
};
extern const char *const sim_fcse_trace_fmt_names[SIM_FCSE_TRACE_NFMT];	/* "binary"... */

struct sim_fcse_trace {
	const uint32_t *rec;	/* the records: in @owned, or in the caller's buffer */
	uint32_t *owned;	/* what sim_fcse_trace_fini() frees, or NULL */
	uint64_t n;		/* records */
	uint64_t lines;		/* text: lines read; binary: 0 */
	uint64_t skipped;	/* text lines that were not accesses */
	uint32_t regions;	/* text: 1 MB regions placed */
	bool high;		/* a record at or above 32 MB: a large process */
};

/**
 * sim_fcse_trace_detect - which format @buf holds
 *
 * The binary magic, else the first line that is not blank, a comment or
 * valgrind's: lackey's "I  " or " L/S/M " with a comma, else din. Returns
 * the format, or -EINVAL (empty, or nothing recognisable).
 */
int sim_fcse_trace_detect(const char *buf, size_t len);

/**
 * sim_fcse_trace_parse - read a trace of format @fmt from @buf
 * @out: filled; release with sim_fcse_trace_fini() (also after a failure)
 * @cause: why not, with the line number for text
 *
 * A binary trace on a little-endian host, 4-byte aligned, is used in
 * place: out->rec points into @buf, which must then outlive @out.
 * Returns 0, -EINVAL (malformed, no access at all, too many regions) or
 * -ENOMEM.
 */
int sim_fcse_trace_parse(const char *buf, size_t len, int fmt, struct sim_fcse_trace *out,
			 char **cause);

void sim_fcse_trace_fini(struct sim_fcse_trace *t);

/* sim_fcse_trace_header - the 16 bytes that start a binary trace of @n records */
void sim_fcse_trace_header(uint8_t out[SIM_FCSE_TRACE_HDR], uint64_t n);

/* sim_fcse_trace_put - record @r in little-endian order at @out (4 bytes) */
static inline void sim_fcse_trace_put(uint8_t *out, uint32_t r)
{
	out[0] = (uint8_t)r;
	out[1] = (uint8_t)(r >> 8);
	out[2] = (uint8_t)(r >> 16);
	out[3] = (uint8_t)(r >> 24);
}

#endif /* RTLAB_SIM_SIM_FCSE_TRACE_H */
