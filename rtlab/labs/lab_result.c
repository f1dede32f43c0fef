/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_result: what every lab's run shares: releasing its result and
 * asking whether the run was told to stop.
 */
#include "lab.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_result.h"

void lab_result_fini(struct lab_result *r)
{
	if (!r)
		return;
	rt_result_free(r->res);
	memset(r, 0, sizeof(*r));
}

bool lab_ctx_stopped(const struct lab_ctx *ctx)
{
	return ctx && ctx->stop && *ctx->stop;
}
