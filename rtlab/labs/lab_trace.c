/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_trace: a kernel trace for the trace viewer and `rtlab trace explain`,
 * from a raw trace file or from a lab's results document. The document is
 * validated first, as `rtlab lab report` does; then the lab that wrote it
 * says where its trace is (lab_ops.trace), so nothing here knows any lab's
 * schema. The document's env says where the trace was taken (bare metal, a
 * VM, QEMU's TCG), which the explanation needs to judge a section that is
 * likely the emulator's (trace_emu).
 */
#include "lab.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_err.h"
#include "core/rt_result.h"
#include "trace/trace_explain.h"

/* "the a and b labs": the labs that keep a trace, for a message. */
static void trace_labs(struct rt_buf *b)
{
	size_t n = 0;

	for (const struct lab_ops *const *l = lab_table; *l; l++)
		if ((*l)->trace)
			rt_buf_printf(b, "%s%s", n++ ? " and " : "", (*l)->name);
	if (!n)
		rt_buf_puts(b, "no");
}

enum trace_emu_env lab_trace_env(const struct rt_result *res)
{
	return trace_emu_env_from_vm(rt_result_env_bool(res, "in_vm"),
				     rt_result_env_str(res, "vm_type"));
}

int lab_trace_load(const char *text, size_t len, const char *name,
		   struct trace_explain **out, char **cause)
{
	struct trace_explain_src src = { .text = text, .len = len, .name = name };
	struct rt_result_opts ro = { .labs = lab_names() };
	struct rt_result *res = NULL;
	const struct lab_ops *lab;
	size_t i = 0;
	int ret = 0;

	*out = NULL;
	if (!name)
		name = src.name = "trace";
	while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' ||
			   text[i] == '\r'))
		i++;
	if (i < len && text[i] == '{') {
		ret = rt_result_parse(text, len, name, &ro, &res, cause);
		if (ret)
			goto out;
		lab = lab_find(rt_result_lab(res));
		if (lab && lab->trace) {
			ret = lab->trace(res, name, &src, cause);
			src.env = lab_trace_env(res);
		} else {
			struct rt_buf b = RT_BUF_INIT;

			trace_labs(&b);
			ret = rt_err(cause, -EINVAL, "%s: results of the %s lab, which records no "
				     "kernel trace; the %s %s", name, rt_result_lab(res),
				     rt_buf_str(&b), strchr(rt_buf_str(&b), ' ') ? "labs do" :
				     "lab does");
			rt_buf_fini(&b);
		}
		if (ret)
			goto out;
	}
	ret = trace_explain_load_src(&src, out, cause);
out:
	rt_result_free(res);
	return ret;
}
