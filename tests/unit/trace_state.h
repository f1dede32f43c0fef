/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_state: the fixture shared by the tracefs tests (header only, so it
 * is not linked into every other test binary). Setup opens an undo journal
 * in a temp dir and snapshots the top-level tracing state: current_tracer,
 * tracing_on, set_event, tracing_thresh, tracing_max_latency and the list
 * of instances. Teardown closes the journal (which replays it) and asserts
 * the state is exactly what it was. Instances owned by other live processes
 * (other test binaries running at the same time) are left out of the
 * comparison; everything else must match byte for byte.
 */
#ifndef RTLAB_TESTS_TRACE_STATE_H
#define RTLAB_TESTS_TRACE_STATE_H

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "core/rt_buf.h"
#include "core/rt_file.h"
#include "core/rt_journal.h"

struct trace_state {
	bool live;		/* root and a writable tracefs: the real tests run */
	const char *why;	/* when not live */
	char jdir[64];
	struct rt_journal *j;
	char *snap;		/* the state before the test */
};

static const char *const trace_state_files[] = {
	"current_tracer", "tracing_on", "set_event", "tracing_thresh", "tracing_max_latency",
};

/* Is "<...>-<pid>" an instance of another live process? */
static bool trace_state_foreign(const char *name)
{
	const char *dash = strrchr(name, '-');
	long pid;
	char *end;

	if (!dash)
		return false;
	pid = strtol(dash + 1, &end, 10);
	if (*end || pid <= 0 || pid == getpid())
		return false;
	return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

static char *trace_state_snapshot(void)
{
	struct rt_buf b = RT_BUF_INIT;
	char *path, **names;

	for (size_t i = 0; i < sizeof(trace_state_files) / sizeof(trace_state_files[0]); i++) {
		char *v = NULL;

		path = tracefs_get_tracing_file(trace_state_files[i]);
		if (path && rt_file_read(path, 1 << 20, &v, NULL) == 0)
			rt_buf_printf(&b, "%s=%s\n", trace_state_files[i], v);
		else
			rt_buf_printf(&b, "%s unreadable\n", trace_state_files[i]);
		free(v);
		tracefs_put_tracing_file(path);
	}
	names = tracefs_instances(NULL);
	for (size_t i = 0; names && names[i]; i++)
		if (!trace_state_foreign(names[i]))
			rt_buf_printf(&b, "instance %s\n", names[i]);
	tracefs_list_free(names);
	return rt_buf_take(&b);
}

static int trace_state_setup(void **state)
{
	struct trace_state *ts = calloc(1, sizeof(*ts));
	char *inst;

	if (!ts)
		return -1;
	strcpy(ts->jdir, "/tmp/rtlab-test-trace-XXXXXX");
	if (!mkdtemp(ts->jdir))
		return -1;
	setenv("RTLAB_JOURNAL_DIR", ts->jdir, 1);
	if (geteuid() != 0) {
		ts->why = "needs root (tracefs instances and knobs)";
	} else if (!tracefs_tracing_dir()) {
		ts->why = "tracefs is not mounted";
	} else {
		inst = tracefs_get_tracing_file("instances");
		if (!inst || access(inst, W_OK) != 0)
			ts->why = "tracefs instances are not writable";
		tracefs_put_tracing_file(inst);
	}
	ts->live = !ts->why;
	if (ts->live) {
		ts->snap = trace_state_snapshot();
		ts->j = rt_journal_open(ts->jdir, NULL);
		if (!ts->snap || !ts->j)
			return -1;
	}
	*state = ts;
	return 0;
}

static int trace_state_teardown(void **state)
{
	struct trace_state *ts = *state;
	char *now, cmd[128];
	int ret = 0;

	if (ts->j && rt_journal_close(ts->j) != 0)
		ret = -1;
	if (ts->live) {
		now = trace_state_snapshot();
		if (!now || strcmp(now, ts->snap) != 0) {
			print_error("top-level tracing state changed:\n--- before\n%s--- after\n%s",
				    ts->snap, now ? now : "(unreadable)\n");
			ret = -1;
		}
		free(now);
	}
	free(ts->snap);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", ts->jdir);
	if (system(cmd) != 0)
		ret = -1;
	free(ts);
	return ret;
}

#endif
