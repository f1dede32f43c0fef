/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_fcse_trace: the trace readers of the FCSE model (see
 * sim_fcse_trace.h for the formats and the placement of text traces).
 * Pure: buffers in, records out, the allocator the only thing called.
 */
#include "sim_fcse_trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_err.h"
#include "sim_fcse.h"

const char *const sim_fcse_trace_fmt_names[SIM_FCSE_TRACE_NFMT] = {
	[SIM_FCSE_TRACE_BIN] = "binary",
	[SIM_FCSE_TRACE_DIN] = "din",
	[SIM_FCSE_TRACE_LACKEY] = "lackey",
};

#define REGION_SHIFT 20u
#define HASH_SIZE 8192u		/* > 2 x SIM_FCSE_TRACE_MAX_REGIONS, a power of two */
#define HASH_EMPTY UINT64_MAX

/* ---- Placing 64-bit addresses ------------------------------------------------- */

struct placer {
	uint64_t key[HASH_SIZE];	/* original region, or HASH_EMPTY */
	uint32_t base[HASH_SIZE];	/* its base in our address space */
	uint32_t n;
	uint64_t last_key;		/* a one-entry cache: most accesses stay in a region */
	uint32_t last_base;
};

static struct placer *placer_new(void)
{
	struct placer *p = malloc(sizeof(*p));

	if (!p)
		return NULL;
	memset(p->key, 0xff, sizeof(p->key));
	p->n = 0;
	p->last_key = HASH_EMPTY;
	p->last_base = 0;
	return p;
}

/* Our address of @addr, or false when the trace has too many regions. */
static bool place(struct placer *p, uint64_t addr, uint32_t *out)
{
	uint64_t key = addr >> REGION_SHIFT;
	uint32_t h;

	if (key == p->last_key) {
		*out = p->last_base | (uint32_t)(addr & ((1u << REGION_SHIFT) - 1));
		return true;
	}
	h = (uint32_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 51) & (HASH_SIZE - 1);
	while (p->key[h] != HASH_EMPTY && p->key[h] != key)
		h = (h + 1) & (HASH_SIZE - 1);
	if (p->key[h] == HASH_EMPTY) {
		uint32_t k = p->n;

		if (k >= SIM_FCSE_TRACE_MAX_REGIONS)
			return false;
		p->key[h] = key;
		p->base[h] = k < 32 ? k << REGION_SHIFT :
			     0x40000000u + ((k - 32) << REGION_SHIFT);
		p->n++;
	}
	p->last_key = key;
	p->last_base = p->base[h];
	*out = p->last_base | (uint32_t)(addr & ((1u << REGION_SHIFT) - 1));
	return true;
}

/* ---- Text ------------------------------------------------------------------------ */

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A hex number at *p (at most 16 digits); advances *p. */
static bool parse_hex(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int n = 0, d;

	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	while (s < end && (d = hexval(*s)) >= 0) {
		if (++n > 16)
			return false;
		v = v << 4 | (uint64_t)d;
		s++;
	}
	*p = s;
	*out = v;
	return n > 0;
}

static bool parse_dec(const char **p, const char *end, uint32_t *out)
{
	const char *s = *p;
	uint32_t v = 0;
	int n = 0;

	while (s < end && *s >= '0' && *s <= '9') {
		if (++n > 6)
			return false;
		v = v * 10 + (uint32_t)(*s - '0');
		s++;
	}
	*p = s;
	*out = v;
	return n > 0;
}

static const char *skip_blank(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t' || *s == '\r'))
		s++;
	return s;
}

/* A line valgrind wrote about itself, a comment, or a blank one. */
static bool line_ignored(const char *s, const char *end)
{
	s = skip_blank(s, end);
	if (s == end || *s == '#')
		return true;
	return end - s >= 2 && ((s[0] == '=' && s[1] == '=') || (s[0] == '-' && s[1] == '-'));
}

/* One lackey line into *kind, *addr, *size; false when it is not an access. */
static bool lackey_line(const char *s, const char *end, enum sim_fcse_kind *kind,
			uint64_t *addr, uint32_t *size)
{
	s = skip_blank(s, end);
	if (s == end)
		return false;
	switch (*s) {
	case 'I':
		*kind = SIM_FCSE_FETCH;
		break;
	case 'L':
		*kind = SIM_FCSE_READ;
		break;
	case 'S':
	case 'M':
		*kind = SIM_FCSE_WRITE;
		break;
	default:
		return false;
	}
	s = skip_blank(s + 1, end);
	if (!parse_hex(&s, end, addr) || s == end || *s++ != ',' || !parse_dec(&s, end, size) ||
	    !*size)
		return false;
	return skip_blank(s, end) == end;
}

/* One din line; *skip when its label is not an access (3, 4). */
static bool din_line(const char *s, const char *end, enum sim_fcse_kind *kind, uint64_t *addr,
		     bool *skip)
{
	s = skip_blank(s, end);
	if (s == end || s + 1 >= end || (s[1] != ' ' && s[1] != '\t'))
		return false;
	*skip = false;
	switch (*s) {
	case '0':
		*kind = SIM_FCSE_READ;
		break;
	case '1':
		*kind = SIM_FCSE_WRITE;
		break;
	case '2':
		*kind = SIM_FCSE_FETCH;
		break;
	case '3':
	case '4':
		*skip = true;
		return true;
	default:
		return false;
	}
	s = skip_blank(s + 1, end);
	if (!parse_hex(&s, end, addr))
		return false;
	/* Dinero lets more fields follow (a size in some variants): ignored. */
	return s == end || *s == ' ' || *s == '\t' || *s == '\r';
}

int sim_fcse_trace_detect(const char *buf, size_t len)
{
	const char *s = buf, *end = buf + len;

	if (len >= 8 && !memcmp(buf, SIM_FCSE_TRACE_MAGIC, 8))
		return SIM_FCSE_TRACE_BIN;
	while (s < end) {
		const char *eol = memchr(s, '\n', (size_t)(end - s));
		enum sim_fcse_kind kind;
		uint64_t addr;
		uint32_t size;
		bool skip;

		if (!eol)
			eol = end;
		if (!line_ignored(s, eol)) {
			if (lackey_line(s, eol, &kind, &addr, &size))
				return SIM_FCSE_TRACE_LACKEY;
			if (din_line(s, eol, &kind, &addr, &skip))
				return SIM_FCSE_TRACE_DIN;
			return -EINVAL;
		}
		s = eol + 1;
	}
	return -EINVAL;
}

static int parse_text(const char *buf, size_t len, int fmt, struct sim_fcse_trace *out,
		      char **cause)
{
	const char *s = buf, *end = buf + len;
	struct placer *pl = placer_new();
	uint64_t cap = 1024;
	int ret = 0;

	out->owned = malloc(cap * sizeof(*out->owned));
	if (!pl || !out->owned) {
		ret = rt_err(cause, -ENOMEM, "no memory for the trace");
		goto out;
	}
	while (s < end) {
		const char *eol = memchr(s, '\n', (size_t)(end - s));
		enum sim_fcse_kind kind = SIM_FCSE_READ;
		uint64_t addr = 0;
		uint32_t size = 4, va;
		bool ok, skip = false;

		if (!eol)
			eol = end;
		out->lines++;
		if (line_ignored(s, eol)) {
			out->skipped++;
			s = eol + 1;
			continue;
		}
		ok = fmt == SIM_FCSE_TRACE_LACKEY ? lackey_line(s, eol, &kind, &addr, &size) :
		     din_line(s, eol, &kind, &addr, &skip);
		if (!ok) {
			ret = rt_err(cause, -EINVAL, "line %llu: not a %s record",
				     (unsigned long long)out->lines, sim_fcse_trace_fmt_names[fmt]);
			goto out;
		}
		s = eol + 1;
		if (skip) {
			out->skipped++;
			continue;
		}
		if (!place(pl, addr, &va)) {
			ret = rt_err(cause, -EINVAL, "line %llu: more than %u regions of 1 MB",
				     (unsigned long long)out->lines, SIM_FCSE_TRACE_MAX_REGIONS);
			goto out;
		}
		/* A straddle is seen from the first byte: at most two lines. */
		if (size > SIM_FCSE_LINE_BYTES)
			size = SIM_FCSE_LINE_BYTES;
		if (out->n == cap) {
			uint32_t *more = realloc(out->owned, 2 * cap * sizeof(*more));

			if (!more) {
				ret = rt_err(cause, -ENOMEM, "no memory for %llu records",
					     (unsigned long long)(2 * cap));
				goto out;
			}
			out->owned = more;
			cap *= 2;
		}
		out->owned[out->n++] = sim_fcse_rec(va, size, kind);
		out->high |= va >= SIM_FCSE_SLOT_BYTES;
	}
	if (!out->n)
		ret = rt_err(cause, -EINVAL, "no access in %llu lines of %s",
			     (unsigned long long)out->lines, sim_fcse_trace_fmt_names[fmt]);
	out->regions = pl ? pl->n : 0;
	out->rec = out->owned;
out:
	free(pl);
	return ret;
}

/* ---- Binary ------------------------------------------------------------------- */

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void sim_fcse_trace_header(uint8_t out[SIM_FCSE_TRACE_HDR], uint64_t n)
{
	memcpy(out, SIM_FCSE_TRACE_MAGIC, 8);
	for (int i = 0; i < 8; i++)
		out[8 + i] = (uint8_t)(n >> (8 * i));
}

static bool rec_ok(uint32_t r)
{
	return (r & 3) != 3 && !(r & 0x18u);
}

static int parse_bin(const char *buf, size_t len, struct sim_fcse_trace *out, char **cause)
{
	const uint8_t *b = (const uint8_t *)buf;
	uint64_t n = 0;
	bool in_place;

	if (len < SIM_FCSE_TRACE_HDR || memcmp(buf, SIM_FCSE_TRACE_MAGIC, 8))
		return rt_err(cause, -EINVAL, "not a binary trace: no \"%s\" header",
			      SIM_FCSE_TRACE_MAGIC);
	for (int i = 0; i < 8; i++)
		n |= (uint64_t)b[8 + i] << (8 * i);
	if (!n || n > (len - SIM_FCSE_TRACE_HDR) / 4 || len - SIM_FCSE_TRACE_HDR != n * 4)
		return rt_err(cause, -EINVAL, "the header says %llu records, the file holds %zu "
			      "bytes of them", (unsigned long long)n, len - SIM_FCSE_TRACE_HDR);
	in_place = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&
		   !((uintptr_t)(b + SIM_FCSE_TRACE_HDR) % sizeof(uint32_t));
	if (in_place) {
		const uint32_t *r = (const uint32_t *)(const void *)(b + SIM_FCSE_TRACE_HDR);
		uint32_t bad = 0, hi = 0;

		/* Branch-free: the check runs at memory speed. */
		for (uint64_t i = 0; i < n; i++) {
			bad |= (r[i] & (r[i] << 1) & 2) | (r[i] & 0x18u);
			hi |= r[i] & ~(SIM_FCSE_SLOT_BYTES - 1);
		}
		if (bad)
			return rt_err(cause, -EINVAL, "a record has reserved bits set");
		out->rec = r;
		out->high = hi != 0;
	} else {
		out->owned = malloc(n * sizeof(*out->owned));
		if (!out->owned)
			return rt_err(cause, -ENOMEM, "no memory for %llu records",
				      (unsigned long long)n);
		for (uint64_t i = 0; i < n; i++) {
			uint32_t r = get32(b + SIM_FCSE_TRACE_HDR + 4 * i);

			if (!rec_ok(r))
				return rt_err(cause, -EINVAL, "record %llu has reserved bits set",
					      (unsigned long long)i);
			out->owned[i] = r;
			out->high |= r >= SIM_FCSE_SLOT_BYTES;
		}
		out->rec = out->owned;
	}
	out->n = n;
	return 0;
}

int sim_fcse_trace_parse(const char *buf, size_t len, int fmt, struct sim_fcse_trace *out,
			 char **cause)
{
	memset(out, 0, sizeof(*out));
	switch (fmt) {
	case SIM_FCSE_TRACE_BIN:
		return parse_bin(buf, len, out, cause);
	case SIM_FCSE_TRACE_DIN:
	case SIM_FCSE_TRACE_LACKEY:
		return parse_text(buf, len, fmt, out, cause);
	default:
		return rt_err(cause, -EINVAL, "unknown trace format %d", fmt);
	}
}

void sim_fcse_trace_fini(struct sim_fcse_trace *t)
{
	free(t->owned);
	memset(t, 0, sizeof(*t));
}
