/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for rt_parse: the input is split at newlines and every line
 * goes through each parser. A success must give a value inside the range
 * asked for (a CPU list: each CPU below the limit, none twice, at most the
 * capacity), a refusal must say why, and a duration written back by
 * rt_parse_format_duration() must read back the same.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A refusal without a cause is a bug; a cause is freed. */
static void why(int ret, char *cause)
{
	if (ret && !cause)
		abort();
	if (!ret && cause)
		abort();
	free(cause);
}

static void one_line(const char *s)
{
	unsigned int cpus[16], n = 0, u = 0;
	uint64_t v = 0, ns = 0, back = 0;
	int64_t sv = 0;
	double d = 0;
	char *cause = NULL, buf[32];
	int ret;

	ret = rt_parse_u64("u64", s, 3, 1000000, &v, &cause);
	if (!ret && (v < 3 || v > 1000000))
		abort();
	why(ret, cause);
	cause = NULL;
	ret = rt_parse_uint("uint", s, 0, 99, &u, &cause);
	if (!ret && u > 99)
		abort();
	why(ret, cause);
	cause = NULL;
	ret = rt_parse_s64("s64", s, -5000, INT64_MAX, &sv, &cause);
	if (!ret && sv < -5000)
		abort();
	why(ret, cause);
	cause = NULL;
	ret = rt_parse_duration("duration", s, RT_PARSE_NS_PER_S, RT_PARSE_NS_PER_MS,
				86400ull * RT_PARSE_NS_PER_S, &ns, &cause);
	if (!ret) {
		if (ns < RT_PARSE_NS_PER_MS || ns > 86400ull * RT_PARSE_NS_PER_S)
			abort();
		rt_parse_format_duration(ns, buf, sizeof(buf));
		if (rt_parse_duration("again", buf, 0, 0, UINT64_MAX, &back, NULL) || back != ns)
			abort();
	}
	why(ret, cause);
	cause = NULL;
	ret = rt_parse_cpus("cpus", s, 64, cpus, 16, &n, &cause);
	if (!ret) {
		uint64_t seen = 0;

		if (n == 0 || n > 16)
			abort();
		for (unsigned int i = 0; i < n; i++) {
			if (cpus[i] >= 64 || (seen & (1ull << cpus[i])))
				abort();
			seen |= 1ull << cpus[i];
		}
	}
	why(ret, cause);
	cause = NULL;
	ret = rt_parse_decimal("decimal", s, -1e6, 1e6, &d, &cause);
	if (!ret && !(d >= -1e6 && d <= 1e6))
		abort();
	why(ret, cause);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *p;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (p = buf;;) {
		char *nl = strchr(p, '\n');

		if (nl)
			*nl = '\0';
		one_line(p);
		if (!nl)
			break;
		p = nl + 1;
	}
	free(buf);
	return 0;
}
