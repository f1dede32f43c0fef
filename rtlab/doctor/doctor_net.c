/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * doctor_net: can we build the NOP lab's network without touching the
 * host's? A child unshares a fresh network namespace and runs
 * `ip link add rtlab-dr0 type veth peer name rtlab-dr1` inside it, then
 * checks both ends exist there. The namespace has no name and no bind
 * mount, so it and the veth pair vanish when the child exits, however it
 * exits. The host's own namespace is never entered or changed.
 *
 * The child reports on its standard output, one line each:
 *   n / N <reason>      the namespace could / could not be created
 *   v / V <reason>      the veth pair could / could not be created in it
 */
#include "doctor_probe.h"

#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/rt_child.h"
#include "core/rt_which.h"
#include "doctor_int.h"

struct net_child_arg {
	const char *ip;		/* path of ip(8), or NULL */
	unsigned int timeout_ms;	/* for the ip child inside ours */
};

static int net_child(void *argp)
{
	const struct net_child_arg *a = argp;
	char *argv[] = { (char *)a->ip, "link", "add", "rtlab-dr0", "type", "veth",
			 "peer", "name", "rtlab-dr1", NULL };
	struct rt_child_opts co = { .argv = argv, .in = RT_CHILD_NULL, .out = RT_CHILD_CAPTURE,
				    .err = RT_CHILD_TO_STDOUT };
	struct rt_child_result res;
	char *why = NULL;
	int ret;

	if (unshare(CLONE_NEWNET) < 0) {
		dprintf(1, "N unshare(CLONE_NEWNET): %s\n", strerror(errno));
		return 0;
	}
	dprintf(1, "n\n");
	if (!a->ip)
		return 0;
	ret = rt_child_run(&co, a->timeout_ms, &res, NULL);
	if (ret < 0) {
		dprintf(1, "V could not start ip: %s\n", strerror(-ret));
		return 0;
	}
	if (res.end == RT_CHILD_EXITED && res.code == 0 && if_nametoindex("rtlab-dr0") &&
	    if_nametoindex("rtlab-dr1")) {
		dprintf(1, "v\n");
	} else if (res.end == RT_CHILD_EXITED && res.code == 0) {
		dprintf(1, "V ip succeeded but the veth ends are not in the namespace\n");
	} else if (doctor_describe_child(&why, "ip link add ... type veth", &res,
					 a->timeout_ms) == 0) {
		dprintf(1, "V %s\n", why);
	}
	free(why);
	rt_child_result_fini(&res);
	return 0;
}

static int net_parse_report(struct doctor_net *n, const char *out)
{
	int ret = 0;

	for (const char *line = out; line && *line && !ret;) {
		size_t len = strcspn(line, "\n");
		const char *rest = len > 2 ? line + 2 : "";
		int rest_len = len > 2 ? (int)(len - 2) : 0;

		switch (line[0]) {
		case 'n':
			n->netns = DOCTOR_YES;
			break;
		case 'N':
			n->netns = DOCTOR_NO;
			ret = doctor_set_str(&n->error, "%.*s", rest_len, rest);
			break;
		case 'v':
			n->veth = DOCTOR_YES;
			break;
		case 'V':
			n->veth = DOCTOR_NO;
			ret = doctor_set_str(&n->error, "%.*s", rest_len, rest);
			break;
		}
		line = line[len] ? line + len + 1 : NULL;
	}
	return ret;
}

int doctor_probe_net(struct doctor_net *n, bool active, unsigned int timeout_ms)
{
	struct net_child_arg arg = { .timeout_ms = timeout_ms / 2 };
	struct rt_child_opts co = { .fn = net_child, .arg = &arg, .in = RT_CHILD_NULL,
				    .out = RT_CHILD_CAPTURE, .err = RT_CHILD_TO_STDOUT };
	struct rt_child_result res;
	int ret;

	memset(n, 0, sizeof(*n));
	n->netns = n->veth = DOCTOR_UNKNOWN;
	n->ip_path = rt_which("ip");
	if (!n->ip_path && errno == ENOMEM)
		return -ENOMEM;
	if (!active)
		return doctor_set_str(&n->error, "not tried");
	arg.ip = n->ip_path;
	ret = rt_child_run(&co, timeout_ms, &res, NULL);
	if (ret < 0)
		return doctor_set_str(&n->error, "could not start a child: %s", strerror(-ret));
	if (res.end == RT_CHILD_EXITED) {
		ret = net_parse_report(n, res.out);
		if (!ret && n->netns == DOCTOR_UNKNOWN)
			ret = doctor_set_str(&n->error, "the namespace test gave no answer");
	} else {
		ret = doctor_describe_child(&n->error, "the namespace test", &res, timeout_ms);
	}
	if (!ret && n->netns == DOCTOR_YES && !n->ip_path)
		ret = doctor_set_str(&n->error, "ip (iproute2) not found, so veth was not tried");
	rt_child_result_fini(&res);
	return ret;
}

void doctor_net_fini(struct doctor_net *n)
{
	free(n->ip_path);
	free(n->error);
	memset(n, 0, sizeof(*n));
}
