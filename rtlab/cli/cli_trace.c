/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli_trace: `rtlab trace view FILE` opens the trace viewer on a latency
 * trace (or an ftrace lab results document); `rtlab trace explain FILE
 * [--json]` prints what the viewer shows, without a terminal: the header in
 * words, then every entry with its line, its flags decoded and its delay
 * mark. All the words come from trace_explain, so the two agree.
 *
 * Lines the parser could not read do not stop the explanation: they are
 * listed (text: a "Problems" section, JSON: "problems") and warned about on
 * stderr, and the exit status stays 0. A file that holds no trace at all is
 * an error (1), named with its line where the parser gave one.
 */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <locale.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_json.h"
#include "core/rt_keys.h"
#include "core/rt_log.h"
#include "core/rt_text.h"
#include "labs/lab.h"
#include "trace/trace_explain.h"
#include "ui/ui.h"


static const char *kind_name(enum trace_lat_kind k)
{
	switch (k) {
	case TRACE_LAT_FUNC:
		return "function";
	case TRACE_LAT_SCHED:
		return "sched";
	case TRACE_LAT_STACK:
		return "stack";
	default:
		return "text";
	}
}

/* Append each line of @text (lines end in '\n') to @arr as a string. */
static void lines_to_json(const char *text, json_t *arr)
{
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text);

		json_array_append_new(arr, json_stringn(text, n));
		text += n + (nl ? 1 : 0);
	}
}

static json_t *int_or_null(int v)
{
	return v >= 0 ? json_integer(v) : json_null();
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *header_json(const struct trace_explain *x)
{
	const struct trace_latency *t = x->trace;
	json_t *h = json_object(), *task = json_null();

	if (t->have_task)
		task = json_pack("{s:o, s:i, s:i, s:i, s:i, s:o, s:i}",
				 "comm", str_or_null(t->task_comm), "pid", t->task_pid,
				 "uid", t->task_uid, "nice", t->task_nice,
				 "policy", t->task_policy,
				 "policy_name", str_or_null(trace_explain_policy(t->task_policy)),
				 "rt_prio", t->task_rt_prio);
	json_object_set_new(h, "tracer", str_or_null(t->tracer));
	json_object_set_new(h, "measures", str_or_null(trace_explain_measures(t->tracer)));
	json_object_set_new(h, "kernel", str_or_null(t->kernel));
	json_object_set_new(h, "format_version", str_or_null(t->format_version));
	json_object_set_new(h, "latency_us", t->have_latency ?
			    json_integer((json_int_t)t->latency_us) : json_null());
	json_object_set_new(h, "shown", t->have_latency ? json_integer(t->shown) : json_null());
	json_object_set_new(h, "total", t->have_latency ? json_integer(t->total) : json_null());
	json_object_set_new(h, "cpu", int_or_null(t->cpu));
	json_object_set_new(h, "preempt_model", str_or_null(t->preempt_model));
	json_object_set_new(h, "nr_cpus", int_or_null(t->nr_cpus));
	json_object_set_new(h, "task", task ? task : json_null());
	json_object_set_new(h, "started_at", str_or_null(t->started_at));
	json_object_set_new(h, "ended_at", str_or_null(t->ended_at));
	return h;
}

static json_t *flags_json(const struct trace_lat_flags *f)
{
	json_t *o = json_object();

	json_object_set_new(o, "raw", json_string(f->raw));
	json_object_set_new(o, "known", json_boolean(f->known));
	json_object_set_new(o, "irqs_off", json_boolean(f->irqs_off));
	json_object_set_new(o, "bh_off", json_boolean(f->bh_off));
	json_object_set_new(o, "irqs_unsupported", json_boolean(f->irqs_unsupported));
	json_object_set_new(o, "need_resched", json_boolean(f->need_resched));
	json_object_set_new(o, "preempt_resched", json_boolean(f->preempt_resched));
	json_object_set_new(o, "lazy_resched", json_boolean(f->lazy_resched));
	json_object_set_new(o, "context", f->ctx == TRACE_LAT_CTX_UNKNOWN ? json_null() :
			    json_string(trace_lat_ctx_name(f->ctx)));
	json_object_set_new(o, "preempt_depth", int_or_null(f->preempt_depth));
	json_object_set_new(o, "preempt_lazy_depth", int_or_null(f->preempt_lazy_depth));
	json_object_set_new(o, "migrate_disable", int_or_null(f->migrate_disable));
	return o;
}

/* One entry as JSON in *out; -ENOMEM from the word builders. */
static int entry_json(const struct trace_explain *x, const struct trace_lat_entry *e,
		      json_t **out)
{
	struct rt_buf words = RT_BUF_INIT, ftext = RT_BUF_INIT, time = RT_BUF_INIT;
	const char *raw;
	size_t rlen = 0;
	json_t *o, *ex;
	int ret;

	*out = NULL;
	ret = trace_explain_entry(x, e, &words);
	ret = ret ? ret : trace_explain_flags(&e->flags, false, &ftext);
	ret = ret ? ret : trace_explain_time(x, e, &time);
	if (ret)
		goto out;
	raw = trace_explain_line(x, e->line, &rlen);
	o = json_object();
	ex = json_array();
	lines_to_json(rt_buf_str(&words), ex);
	json_object_set_new(o, "line", json_integer(e->line));
	json_object_set_new(o, "raw", raw ? json_stringn(raw, rlen) : json_null());
	json_object_set_new(o, "comm", str_or_null(e->comm));
	json_object_set_new(o, "pid", json_integer(e->pid));
	json_object_set_new(o, "cpu", json_integer(e->cpu));
	json_object_set_new(o, "time_ns", json_integer((json_int_t)e->time_ns));
	json_object_set_new(o, "time", json_string(rt_buf_str(&time)));
	json_object_set_new(o, "flags", flags_json(&e->flags));
	json_object_set_new(o, "flags_text", json_string(rt_buf_str(&ftext)));
	if (e->mark_min_us && e->mark_min_us != UINT64_MAX) {
		json_object_set_new(o, "mark", json_stringn(&e->mark, 1));
		json_object_set_new(o, "gap_min_us", json_integer((json_int_t)e->mark_min_us));
	} else {
		json_object_set_new(o, "mark", json_null());
		json_object_set_new(o, "gap_min_us", json_null());
	}
	json_object_set_new(o, "kind", json_string(kind_name(e->kind)));
	json_object_set_new(o, "function", str_or_null(e->function));
	json_object_set_new(o, "caller", str_or_null(e->caller));
	json_object_set_new(o, "text", str_or_null(e->text));
	if (e->kind == TRACE_LAT_STACK) {
		json_t *st = json_array();

		for (size_t i = 0; i < e->stack_count; i++)
			json_array_append_new(st, json_string(x->trace->stack[e->stack_first + i]));
		json_object_set_new(o, "stack", st);
	}
	json_object_set_new(o, "explanation", ex);
	*out = o;
out:
	rt_buf_fini(&words);
	rt_buf_fini(&ftext);
	rt_buf_fini(&time);
	return ret;
}

/*
 * Write @v (the reference is taken) as JSON text whose lines after the first
 * are indented by @indent blanks: a value inside the document streamed
 * around it. A newline only appears between tokens, never in a string.
 */
static int put_json(FILE *out, json_t *v, int indent)
{
	char *s = v ? rt_json_dumps(v, NULL) : NULL;
	int ret = s ? 0 : -ENOMEM;

	json_decref(v);
	for (const char *p = s; p && *p && !ret; p++)
		if (fputc(*p, out) == EOF || (*p == '\n' && fprintf(out, "%*s", indent, "") < 0))
			ret = -EIO;
	free(s);
	return ret;
}

/* "  \"KEY\": VALUE" and the comma unless it is the last member. */
static int put_member(FILE *out, const char *key, json_t *v, bool last)
{
	int ret;

	if (fprintf(out, "  \"%s\": ", key) < 0) {
		json_decref(v);
		return -EIO;
	}
	ret = put_json(out, v, 2);
	if (!ret && fputs(last ? "\n" : ",\n", out) == EOF)
		ret = -EIO;
	return ret;
}

/*
 * The rtlab.trace-explain/1 document, written as it is built: one entry
 * at a time, so memory does not grow with the trace beyond its model.
 */
static const char *env_name(enum trace_emu_env env)
{
	switch (env) {
	case TRACE_EMU_TCG:
		return "tcg";
	case TRACE_EMU_HWVIRT:
		return "hwvirt";
	case TRACE_EMU_HOST:
		return "host";
	default:
		return "unknown";
	}
}

/* Is the worst section likely the emulator's (trace_emu)? */
static json_t *emulator_json(const struct trace_explain *x)
{
	const struct trace_emu_verdict *v = &x->emu;

	return json_pack("{s:s, s:b, s:o, s:o, s:o, s:o}", "environment", env_name(x->env),
			 "likely", v->likely, "where", str_or_null(v->likely ? v->where : NULL),
			 "path", str_or_null(v->likely ? v->path : NULL), "stall_us",
			 v->likely && v->stall_after ? json_integer((json_int_t)v->stall_us) :
			 json_null(), "stall_after", str_or_null(v->likely ? v->stall_after : NULL));
}

static int explain_json(const struct trace_explain *x, const char *header, FILE *out)
{
	const struct trace_latency *t = x->trace;
	json_t *ex = json_array(), *probs = json_array(), *e;
	int ret = 0;

	lines_to_json(header, ex);
	for (size_t i = 0; i < t->nproblems; i++)
		json_array_append_new(probs, json_string(t->problems[i].what));
	if (fputs("{\n", out) == EOF)
		ret = -EIO;
	ret = ret ? ret : put_member(out, "schema", json_string(CLI_TRACE_SCHEMA), false);
	ret = ret ? ret : put_member(out, "file", json_string(x->name), false);
	ret = ret ? ret : put_member(out, "source", json_string(x->from_results ? "results" :
								     "trace"), false);
	ret = ret ? ret : put_member(out, "truncated", json_boolean(x->truncated), false);
	ret = ret ? ret : put_member(out, "header", header_json(x), false);
	ret = ret ? ret : put_member(out, "explanation", json_incref(ex), false);
	ret = ret ? ret : put_member(out, "marks", json_pack(
		"{s:I, s:o}", "count", (json_int_t)x->nmarks, "widest_line",
		x->nmarks ? json_integer(t->entries[x->worst_mark].line) : json_null()), false);
	ret = ret ? ret : put_member(out, "emulator", emulator_json(x), false);
	if (!ret && fputs(t->nentries ? "  \"entries\": [\n" : "  \"entries\": []", out) == EOF)
		ret = -EIO;
	for (size_t i = 0; !ret && i < t->nentries; i++) {
		ret = entry_json(x, &t->entries[i], &e);
		if (!ret && fputs("    ", out) == EOF)
			ret = -EIO;
		ret = ret ? ret : put_json(out, e, 4);
		if (!ret && fputs(i + 1 < t->nentries ? ",\n" : "\n  ]", out) == EOF)
			ret = -EIO;
	}
	if (!ret && fputs(",\n", out) == EOF)
		ret = -EIO;
	ret = ret ? ret : put_member(out, "problems", json_incref(probs), false);
	ret = ret ? ret : put_member(out, "problems_total",
				     json_integer((json_int_t)t->nproblems_total), true);
	if (!ret && fputs("}\n", out) == EOF)
		ret = -EIO;
	json_decref(ex);
	json_decref(probs);
	return ret;
}

/* Every line of @text, each prefixed with @indent. */
static int put_indented(struct rt_buf *out, const char *text, const char *indent)
{
	int ret = 0;

	while (*text && !ret) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text);

		ret = rt_buf_puts(out, indent);
		ret = ret ? ret : rt_buf_append(out, text, n);
		ret = ret ? ret : rt_buf_puts(out, "\n");
		text += n + (nl ? 1 : 0);
	}
	return ret;
}

/* Write what @b holds, escaped for the terminal, and empty it. */
static int flush_text(struct rt_buf *b, FILE *out)
{
	int ret = rt_text_fwrite(rt_buf_str(b), b->len, RT_TEXT_KEEP_NL, out);

	rt_buf_reset(b);
	return ret;
}

/*
 * The text form, written entry by entry (memory stays that of the model).
 * Names from the trace (tasks, functions, text after the colon) may hold
 * anything: every line goes through rt_text, so no control reaches the
 * terminal raw. Fields cannot hold a newline: the parser split on them.
 */
static int explain_text(const struct trace_explain *x, const char *header, FILE *out)
{
	const struct trace_latency *t = x->trace;
	struct rt_buf b = RT_BUF_INIT, words = RT_BUF_INIT;
	int ret;

	ret = rt_buf_printf(&b, "%s%s\n\nHeader\n", x->name,
			    x->from_results ? " (the trace kept in this results document)" : "");
	ret = ret ? ret : put_indented(&b, header, "  ");
	ret = ret ? ret : rt_buf_printf(&b, "\nEntries (%zu)\n", t->nentries);
	for (size_t i = 0; !ret && i < t->nentries; i++) {
		const struct trace_lat_entry *e = &t->entries[i];
		size_t rlen = 0;
		const char *raw = trace_explain_line(x, e->line, &rlen);

		while (raw && rlen && *raw == ' ') {
			raw++;
			rlen--;
		}
		rt_buf_reset(&words);
		ret = rt_buf_printf(&b, "  line %u: %.*s\n", e->line, (int)rlen, raw ? raw : "");
		ret = ret ? ret : trace_explain_entry(x, e, &words);
		ret = ret ? ret : put_indented(&b, rt_buf_str(&words), "    ");
		if (!ret && b.len >= 64 * 1024)
			ret = flush_text(&b, out);
	}
	if (!ret && t->nproblems_total) {
		ret = rt_buf_printf(&b, "\nProblems (%zu)\n", t->nproblems_total);
		for (size_t i = 0; !ret && i < t->nproblems; i++)
			ret = rt_buf_printf(&b, "  %s\n", t->problems[i].what);
		if (!ret && t->nproblems < t->nproblems_total)
			ret = rt_buf_printf(&b, "  (%zu more not kept)\n",
					    t->nproblems_total - t->nproblems);
	}
	ret = ret ? ret : flush_text(&b, out);
	rt_buf_fini(&b);
	rt_buf_fini(&words);
	return ret;
}

static int trace_explain_cmd(const char *path, bool json)
{
	struct trace_explain *x = NULL;
	struct rt_buf header = RT_BUF_INIT;
	char *text = NULL, *cause = NULL;
	size_t len = 0;
	int ret, status = CLI_EXIT_FAIL;

	ret = trace_explain_read_file(path, &text, &len, &cause);
	if (!ret)
		ret = lab_trace_load(text, len, path, &x, &cause);
	/* The loaded trace has its own copy: the file's bytes are not needed any more. */
	free(text);
	text = NULL;
	if (ret) {
		rt_log(RT_LOG_ERR, "%s", cause ? cause : strerror(-ret));
		goto out;
	}
	ret = trace_explain_header(x, &header);
	if (!ret)
		ret = json ? explain_json(x, rt_buf_str(&header), stdout) :
		      explain_text(x, rt_buf_str(&header), stdout);
	if (!ret && fflush(stdout))
		ret = -EIO;
	if (ret) {
		rt_log(RT_LOG_ERR, "cannot explain %s: %s", path, strerror(-ret));
		goto out;
	}
	for (size_t i = 0; i < x->trace->nproblems; i++)
		rt_log(RT_LOG_WARN, "%s", x->trace->problems[i].what);
	status = CLI_EXIT_OK;
out:
	rt_buf_fini(&header);
	trace_explain_free(x);
	free(text);
	free(cause);
	return status;
}

static int trace_main(const struct cli_cmd *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false;
	const char *sub;
	int c;

	setlocale(LC_NUMERIC, "C");
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			cli_cmd_help(cmd, stdout);
			return CLI_EXIT_OK;
		default:
			return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind == argc)
		return cli_usage_error(cmd, "which subcommand? 'view FILE' or 'explain FILE'");
	sub = argv[optind];
	if (strcmp(sub, "view") && strcmp(sub, "explain"))
		return cli_usage_error(cmd, "unknown subcommand '%s'", sub);
	if (optind + 1 >= argc)
		return cli_usage_error(cmd, "%s which file? (a trace or an ftrace results "
				       "document)", sub);
	if (optind + 2 < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 2]);
	if (!strcmp(sub, "view")) {
		if (json)
			return cli_usage_error(cmd, "--json is for 'trace explain'");
		return ui_view_trace(argv[optind + 1]);
	}
	return trace_explain_cmd(argv[optind + 1], json);
}

const struct cli_cmd cli_cmd_trace = {
	.name = "trace",
	.usage = "view FILE | explain FILE [--json]",
	.summary = "read a latency trace: header, flag columns and delay marks in words",
	.help = "FILE is the `trace` file a latency tracer left in tracefs (irqsoff,\n"
		"preemptoff, preemptirqsoff, wakeup, wakeup_rt, wakeup_dl), or a results\n"
		"document of `rtlab lab run ftrace --mode tracer --json FILE`, which keeps\n"
		"the trace of that run.\n"
		"\n"
		"  view FILE     the interactive viewer: the header explained at the top,\n"
		"                one row per line with its flag columns decoded, delay\n"
		"                marks highlighted, search (/ n N), jumps between delay\n"
		"                marks (m M), raw or decoded (r); ? lists the keys\n"
		"  explain FILE  the same explanation as plain text: the header in words,\n"
		"                then every entry with its line, flags and delay mark\n"
		"\n"
		"Options:\n"
		"  --json        explain: print the rtlab.trace-explain/1 JSON\n"
		"                (doc/cli-json.md)\n"
		"  -h, --help    show this help\n"
		"\n"
		"Lines the parser cannot read are listed (and warned about on stderr) but\n"
		"do not fail the command. A results document is validated first, as by\n"
		"`lab report`. FILE must be a regular file of at most 64 MiB; the output\n"
		"is written entry by entry, and control characters in the trace's names\n"
		"are shown escaped (\\x1b) in the text.\n"
		"\n"
		"Exit status: 0 success; 1 the file cannot be read or holds no trace (or,\n"
		"for view, there is no usable terminal); 2 bad usage.\n",
	.main = trace_main,
};

/* ---- Declared keys -------------------------------------------------------- */

/* rtlab.trace-explain/1 (doc/cli-json.md), for `rtlab schema`. */
#define SN	(RT_T_STRING | RT_T_NULL)
#define IN	(RT_T_INTEGER | RT_T_NULL)
static const char *const te_sources[] = { "trace", "results", NULL };
static const char *const te_envs[] = { "tcg", "hwvirt", "host", "unknown", NULL };
static const char *const te_kinds[] = { "function", "sched", "stack", "text", NULL };
static const struct rt_key te_task_keys[] = {
	RT_KEY("comm", RT_T_STRING, NULL, "the task's name", true),
	RT_KEY("pid", RT_T_INTEGER, NULL, "its pid", true),
	RT_KEY("uid", RT_T_INTEGER, NULL, "its uid", true),
	RT_KEY("nice", RT_T_INTEGER, NULL, "its nice value", true),
	RT_KEY("policy", RT_T_INTEGER, NULL, "its policy as a number", true),
	RT_KEY("policy_name", SN, NULL, "`SCHED_FIFO` ...; null when unknown", true),
	RT_KEY("rt_prio", RT_T_INTEGER, NULL, "its real-time priority", true),
	RT_KEY_END,
};
static const struct rt_keys te_task_table = { .keys = te_task_keys };
static const struct rt_key te_header_keys[] = {
	RT_KEY("tracer", SN, NULL, "from `# tracer:`", true),
	RT_KEY("measures", SN, NULL, "what that tracer's latency measures", true),
	RT_KEY("kernel", SN, NULL, "from the `latency trace` line", true),
	RT_KEY("format_version", SN, NULL, "the trace format's version", true),
	RT_KEY("latency_us", IN, "us", "the worst latency", true),
	RT_KEY("shown", IN, "count", "entries shown", true),
	RT_KEY("total", IN, "count", "entries in all", true),
	RT_KEY("cpu", IN, NULL, "the CPU of the worst case", true),
	RT_KEY("preempt_model", SN, NULL, "the `M:` value", true),
	RT_KEY("nr_cpus", IN, "count", "the online CPUs", true),
	RT_KEY("task", RT_T_OBJECT | RT_T_NULL, NULL, "the `task:` line", true,
	       .of = &te_task_table),
	RT_KEY("started_at", SN, NULL, "the off-tracers' `started at` function", true),
	RT_KEY("ended_at", SN, NULL, "the off-tracers' `ended at` function", true),
	RT_KEY_END,
};
static const struct rt_keys te_header_table = { .keys = te_header_keys };
static const struct rt_key te_marks_keys[] = {
	RT_KEY("count", RT_T_INTEGER, "count", "entries with a delay mark", true),
	RT_KEY("widest_line", IN, NULL, "the line of the widest", true),
	RT_KEY_END,
};
static const struct rt_keys te_marks_table = { .keys = te_marks_keys };
static const struct rt_key te_emulator_keys[] = {
	RT_KEY("environment", RT_T_STRING, NULL, "where the trace was taken", true,
	       .values = te_envs),
	RT_KEY("likely", RT_T_BOOL, NULL, "the worst section is likely the emulator's", true),
	RT_KEY("where", SN, NULL, "that function, when `likely`", true),
	RT_KEY("path", SN, NULL, "the short path it belongs to", true),
	RT_KEY("stall_us", IN, "us", "one gap over half the section", true),
	RT_KEY("stall_after", SN, NULL, "the function before it", true),
	RT_KEY_END,
};
static const struct rt_keys te_emulator_table = { .keys = te_emulator_keys };
static const struct rt_key te_flags_keys[] = {
	RT_KEY("raw", RT_T_STRING, NULL, "the flag block without the CPU", true),
	RT_KEY("known", RT_T_BOOL, NULL, "every column understood", true),
	RT_KEY("irqs_off", RT_T_BOOL, NULL, "interrupts off", true),
	RT_KEY("bh_off", RT_T_BOOL, NULL, "bottom halves off", true),
	RT_KEY("irqs_unsupported", RT_T_BOOL, NULL, "the arch cannot tell", true),
	RT_KEY("need_resched", RT_T_BOOL, NULL, "need-resched set", true),
	RT_KEY("preempt_resched", RT_T_BOOL, NULL, "the preempt bit set", true),
	RT_KEY("lazy_resched", RT_T_BOOL, NULL, "lazy need-resched set", true),
	RT_KEY("context", SN, NULL, "`normal`, `hardirq`, `softirq`, `NMI` ...", true),
	RT_KEY("preempt_depth", IN, NULL, "the preemption depth", true),
	RT_KEY("preempt_lazy_depth", IN, NULL, "the lazy depth, where the trace has it", true),
	RT_KEY("migrate_disable", IN, NULL, "migrate-disable depth, where the trace has it", true),
	RT_KEY_END,
};
static const struct rt_keys te_flags_table = { .keys = te_flags_keys };
static const struct rt_key te_entry_keys[] = {
	RT_KEY("line", RT_T_INTEGER, NULL, "the 1-based line", true),
	RT_KEY("raw", RT_T_STRING, NULL, "the line as the kernel wrote it", true),
	RT_KEY("comm", RT_T_STRING, NULL, "who ran", true),
	RT_KEY("pid", RT_T_INTEGER, NULL, "its pid", true),
	RT_KEY("cpu", RT_T_INTEGER, NULL, "where", true),
	RT_KEY("time_ns", RT_T_INTEGER, "ns", "time since the start, or the timestamp", true),
	RT_KEY("time", RT_T_STRING, NULL, "the same in words (`+509 us`)", true),
	RT_KEY("flags", RT_T_OBJECT, NULL, "the flag block decoded", true,
	       .of = &te_flags_table),
	RT_KEY("flags_text", RT_T_STRING, NULL, "the short words for what is set", true),
	RT_KEY("mark", SN, NULL, "the delay mark", true),
	RT_KEY("gap_min_us", IN, "us", "the gap the mark stands for (strictly above)", true),
	RT_KEY("kind", RT_T_STRING, NULL, "the kind of entry", true, .values = te_kinds),
	RT_KEY("function", SN, NULL, "for `function` entries", true),
	RT_KEY("caller", SN, NULL, "for `function` entries", true),
	RT_KEY("text", RT_T_STRING, NULL, "everything after the colon", true),
	RT_KEY("stack", RT_T_ARRAY, NULL, "`stack` entries: the frames, innermost first", false,
	       .items = RT_T_STRING),
	RT_KEY("explanation", RT_T_ARRAY, NULL, "the entry in words", true,
	       .items = RT_T_STRING),
	RT_KEY_END,
};
static const struct rt_keys te_entry_table = { .keys = te_entry_keys };
static const struct rt_key te_keys[] = {
	RT_KEY("schema", RT_T_STRING, NULL, "`rtlab.trace-explain/1`", true),
	RT_KEY("file", RT_T_STRING, NULL, "the file as named on the command line", true),
	RT_KEY("source", RT_T_STRING, NULL, "a trace file, or a results document's trace", true,
	       .values = te_sources),
	RT_KEY("truncated", RT_T_BOOL, NULL, "the results document says it cut the trace", true),
	RT_KEY("header", RT_T_OBJECT, NULL, "the trace's header", true, .of = &te_header_table),
	RT_KEY("explanation", RT_T_ARRAY, NULL, "the header in sentences", true,
	       .items = RT_T_STRING),
	RT_KEY("marks", RT_T_OBJECT, NULL, "the delay marks", true, .of = &te_marks_table),
	RT_KEY("emulator", RT_T_OBJECT, NULL, "whether the worst section is the emulator's", true,
	       .of = &te_emulator_table),
	RT_KEY("entries", RT_T_ARRAY, NULL, "one object per entry, in file order", true,
	       .of = &te_entry_table),
	RT_KEY("problems", RT_T_ARRAY, NULL, "lines the parser could not read (at most 100)", true,
	       .items = RT_T_STRING),
	RT_KEY("problems_total", RT_T_INTEGER, "count", "all such lines", true),
	RT_KEY_END,
};
static const struct rt_keys te_table = { .keys = te_keys };

json_t *cli_trace_schema(void)
{
	return rt_keys_document(CLI_TRACE_SCHEMA, "rtlab trace explain --json", &te_table, 0);
}
