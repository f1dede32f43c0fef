/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_ftrace_doc: the ftrace lab's readers of a results document on
 * arbitrary bytes, as `rtlab trace explain FILE`, `rtlab lab report FILE`
 * and the lab's screen meet them.
 *
 *   - lab_trace_load() takes a raw trace or a document: it loads
 *     (a trace) or refuses with a cause (no trace), nothing else;
 *   - a document that passes the validator is read with ftrace_doc_read():
 *     it is the ftrace lab's exactly when the read says so, and then every
 *     entry of its trace reads, its text renders, and every view that
 *     views() builds is one the validator accepts (a fresh document takes
 *     them all). Whatever "extra" holds (it has no fixed shape), the lab's
 *     tables stay inside the schema;
 *   - another lab's document is refused by the read and by views().
 *
 * Anything else is a bug, so it aborts.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/rt_buf.h"
#include "core/rt_env.h"
#include "core/rt_result.h"
#include "report/report.h"
#include "labs/lab.h"
#include "labs/lab_ftrace.h"
#include "labs/lab_ftrace_doc.h"
#include "trace/trace_explain.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every view must go into a document of the lab's own. */
static void check_views(json_t *views)
{
	static char release[] = "6.1.0", version[] = "#1", machine[] = "x86_64";
	static char model[] = "full", source[] = "fuzz";
	struct rt_env env = { .kernel_release = release, .kernel_version = version,
			      .machine = machine, .preempt_model = model,
			      .preempt_source = source, .cpus = 2 };
	struct rt_result *doc = rt_result_new("ftrace", "host", &env);
	json_t *v;
	size_t i;

	if (!doc)
		return;
	json_array_foreach(views, i, v) {
		char *cause = NULL;
		int ret;

		json_incref(v);
		ret = rt_result_add_view(doc, v, &cause);
		free(cause);
		if (ret == -EINVAL || ret == -E2BIG)
			abort();
	}
	rt_result_free(doc);
}

static void check_document(struct rt_result *res)
{
	const char *lab = rt_result_lab(res);
	bool ours = lab && !strcmp(lab, "ftrace");
	struct ftrace_doc d;
	struct ftrace_doc_line l;
	struct rt_buf b = RT_BUF_INIT;
	json_t *views = json_array();
	char *cause = NULL;
	size_t n = 0;
	double v;
	int ret;

	if ((ftrace_doc_read(res, &d) == 0) != ours)
		abort();
	/* The strings are never NULL, for a caller that prints them. */
	if (!d.scenario || !d.probe.policy || !d.agreement.verdict || !d.tracer.name ||
	    !d.hunt.seed || !d.check.trace_cmd.reason)
		abort();
	while (ftrace_doc_trace_line(res, n, &l) == 0) {
		if (!l.comm || !l.function || !l.caller || !l.mark)
			abort();
		n++;
	}
	if (n > d.tracer.nlines)
		abort();
	(void)ftrace_doc_scenario_num(res, d.scenario, "events_p99_us", &v);
	if (!views)
		return;
	ret = lab_ftrace.views(res, views, &cause);
	free(cause);
	if (ours && ret == 0)
		check_views(views);
	else if (!ours && ret != -EINVAL)
		abort();
	else if (ours && ret != -ENOMEM)
		abort();
	json_decref(views);
	if (ours) {
		ret = report_text(res, &b);	/* the views as the CLI prints them */
		if (ret && ret != -ENOMEM)
			abort();
	}
	rt_buf_fini(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace_explain *x = NULL;
	struct rt_result *res = NULL;
	char *cause = NULL;
	int ret;

	ret = lab_trace_load((const char *)data, size, "fuzz", &x, &cause);
	if ((ret == 0) != (x != NULL) || ret > 0 || (ret && !cause))
		abort();
	trace_explain_free(x);
	free(cause);
	cause = NULL;
	if (rt_result_parse((const char *)data, size, "fuzz", NULL, &res, &cause) == 0)
		check_document(res);
	rt_result_free(res);
	free(cause);
	return 0;
}
