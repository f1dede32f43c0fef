/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_result: what every lab's run shares: ending it, releasing its
 * result and asking whether the run was told to stop.
 */
#include "lab.h"

#include <jansson.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_log.h"
#include "core/rt_result.h"

int lab_result_finish(struct lab_result *out, struct rt_result *res, json_t *scens,
		      int ret, char *cause, const char *lab, const char *stopped)
{
	if (!ret && res && out->interrupted)
		ret = rt_result_add_note(res, stopped);
	if (!ret && res)
		ret = rt_result_set_scenarios(res, scens);
	if (!ret && res) {
		out->res = res;
		res = NULL;
	}
	if (ret)
		rt_log(RT_LOG_ERR, "%s: %s", lab, cause ? cause : strerror(-ret));
	free(cause);
	json_decref(scens);
	rt_result_free(res);
	return ret;
}

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
