/*
 * lab_nop_netns: the nop lab on a real medium, node processes in network
 * namespaces exchanging raw Ethernet frames. Not written yet: the run
 * refuses and points to the simulation.
 */
#include "lab_nop_int.h"

#include <errno.h>

#include "core/rt_log.h"

int nop_netns_run(struct lab_ctx *ctx, const struct rt_sink *sink, const struct nop_params *p,
		  struct lab_result *out)
{
	(void)ctx;
	(void)sink;
	(void)p;
	(void)out;
	rt_log(RT_LOG_ERR, "nop: --medium netns is not available in this version; run "
	       "--medium sim, the simulation");
	return -EOPNOTSUPP;
}
