/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for trace_latency: the constructed fixtures in tests/data/traces
 * (one per latency tracer, in the flag layouts of several kernel eras) are
 * read field by field; every trace captured from the classroom VM's lab
 * (6.12) and rt (6.1) kernels parses without a problem, with its header as
 * the file says and picked lines' flags decoded column by column; flag
 * letters and delay marks are decoded one by one;
 * the normal (non-latency) line format is accepted; garbage, binary bytes,
 * truncated traces and floods of bad lines give problems with file:line and
 * never a crash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_file.h"
#include "trace/trace_latency.h"

static char *fixture_text(const char *name, size_t *len)
{
	const char *srcdir = getenv("SRCDIR");
	char path[512], *text = NULL;

	snprintf(path, sizeof(path), "%s/tests/data/traces/%s", srcdir ? srcdir : ".", name);
	assert_int_equal(rt_file_read(path, 1 << 20, &text, len), 0);
	return text;
}

static struct trace_latency *load(const char *name)
{
	struct trace_latency *t = NULL;
	char *text, *cause = NULL;
	size_t len;
	int ret;

	text = fixture_text(name, &len);
	ret = trace_latency_parse(text, len, name, &t, &cause);
	if (ret)
		print_message("%s\n", cause);
	assert_int_equal(ret, 0);
	for (size_t i = 0; i < t->nproblems; i++)
		print_message("problem: %s\n", t->problems[i].what);
	free(text);
	free(cause);
	return t;
}

static const struct trace_lat_entry *find_fn(const struct trace_latency *t, const char *fn,
					     size_t nth)
{
	for (size_t i = 0; i < t->nentries; i++)
		if (t->entries[i].function && !strcmp(t->entries[i].function, fn) && nth-- == 0)
			return &t->entries[i];
	fail_msg("no entry for %s", fn);
	return NULL;
}

static size_t count_kind(const struct trace_latency *t, enum trace_lat_kind k)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nentries; i++)
		n += t->entries[i].kind == k;
	return n;
}

static void test_irqsoff(void **state)
{
	struct trace_latency *t = load("irqsoff.txt");
	const struct trace_lat_entry *e;

	(void)state;
	assert_int_equal(t->nproblems_total, 0);
	assert_string_equal(t->tracer, "irqsoff");
	assert_string_equal(t->format_version, "1.1.5");
	assert_string_equal(t->kernel, "6.12.22-rtlab");
	assert_true(t->have_latency);
	assert_int_equal(t->latency_us, 512);
	assert_int_equal(t->shown, 6);
	assert_int_equal(t->total, 6);
	assert_int_equal(t->cpu, 1);
	assert_string_equal(t->preempt_model, "preempt_rt");
	assert_int_equal(t->nr_cpus, 2);
	assert_true(t->have_task);
	assert_string_equal(t->task_comm, "sh");
	assert_int_equal(t->task_pid, 142);
	assert_int_equal(t->task_policy, 0);
	assert_string_equal(t->started_at, "rtlab_inject_irqsoff");
	assert_string_equal(t->ended_at, "rtlab_inject_irqsoff");
	assert_int_equal(t->ncolumns, 5);
	assert_true(t->has_migrate_column);
	assert_int_equal(t->nentries, 6);

	e = &t->entries[1];
	assert_int_equal(e->line, 23);
	assert_string_equal(e->comm, "sh");
	assert_int_equal(e->pid, 142);
	assert_int_equal(e->cpu, 1);
	assert_int_equal(e->time_ns, 1000);
	assert_int_equal(e->mark, '!');
	assert_int_equal(e->mark_min_us, 100);
	assert_int_equal(e->kind, TRACE_LAT_FUNC);
	assert_string_equal(e->function, "rtlab_inject_busy_wait");
	assert_string_equal(e->caller, "rtlab_inject_irqsoff");
	assert_true(e->flags.known);
	assert_string_equal(e->flags.raw, "d....");
	assert_true(e->flags.irqs_off);
	assert_false(e->flags.need_resched);
	assert_int_equal(e->flags.ctx, TRACE_LAT_CTX_NORMAL);
	assert_int_equal(e->flags.preempt_depth, 0);
	assert_int_equal(e->flags.migrate_disable, 0);

	e = &t->entries[2];
	assert_int_equal(e->time_ns, 509000);
	assert_true(e->flags.need_resched && e->flags.preempt_resched);
	assert_int_equal(e->mark, ' ');

	e = &t->entries[5];
	assert_int_equal(e->kind, TRACE_LAT_STACK);
	assert_int_equal(e->stack_count, 7);
	assert_int_equal(t->nstack, 7);
	assert_string_equal(t->stack[e->stack_first], "rtlab_inject_irqsoff");
	assert_string_equal(t->stack[6], "entry_SYSCALL_64_after_hwframe");
	trace_latency_free(t);
}

static void test_preemptoff_no_legend(void **state)
{
	struct trace_latency *t = load("preemptoff.txt");
	const struct trace_lat_entry *e;

	(void)state;
	assert_int_equal(t->nproblems_total, 0);
	assert_string_equal(t->tracer, "preemptoff");
	assert_string_equal(t->kernel, "4.19.0-6-amd64");
	assert_int_equal(t->latency_us, 46);
	assert_string_equal(t->preempt_model, "desktop");
	assert_int_equal(t->nr_cpus, 4);
	assert_string_equal(t->task_comm, "kworker/0:1");
	assert_int_equal(t->task_pid, 58);
	assert_string_equal(t->started_at, "__do_softirq");
	assert_int_equal(t->ncolumns, 0);
	assert_false(t->has_migrate_column);
	assert_int_equal(t->nentries, 8);

	e = &t->entries[0];
	assert_string_equal(e->comm, "kworker/");	/* the kernel cuts comm to 8 */
	assert_int_equal(e->pid, 58);
	assert_int_equal(e->cpu, 0);
	assert_false(e->flags.irqs_off);
	assert_int_equal(e->flags.ctx, TRACE_LAT_CTX_SOFTIRQ);
	assert_int_equal(e->flags.preempt_depth, 1);
	assert_int_equal(e->flags.migrate_disable, -1);

	e = find_fn(t, "call_timer_fn", 0);
	assert_int_equal(e->mark, '+');
	assert_int_equal(e->mark_min_us, 10);
	assert_true(e->flags.irqs_off);

	e = find_fn(t, "irq_enter", 0);
	assert_int_equal(e->flags.ctx, TRACE_LAT_CTX_HARDIRQ);
	assert_int_equal(e->flags.preempt_depth, 3);
	assert_true(e->flags.need_resched);
	assert_int_equal(e->time_ns, 17000);
	assert_int_equal(t->nstack, 3);
	trace_latency_free(t);
}

static void test_preemptirqsoff_rt_lazy(void **state)
{
	struct trace_latency *t = load("preemptirqsoff.txt");
	const struct trace_lat_entry *e;

	(void)state;
	assert_int_equal(t->nproblems_total, 0);
	assert_string_equal(t->tracer, "preemptirqsoff");
	assert_int_equal(t->latency_us, 161);
	assert_int_equal(t->shown, 7);
	assert_int_equal(t->total, 152);
	assert_int_equal(t->cpu, 3);
	assert_string_equal(t->task_comm, "cyclictest");
	assert_int_equal(t->task_pid, 812);
	assert_int_equal(t->task_policy, 1);
	assert_int_equal(t->task_rt_prio, 95);
	assert_string_equal(t->started_at, "_raw_spin_lock_irqsave");
	assert_string_equal(t->ended_at, "_raw_spin_unlock_irqrestore");
	assert_int_equal(t->ncolumns, 7);
	assert_true(t->has_migrate_column);

	e = find_fn(t, "irq_enter", 0);
	assert_true(e->flags.known);
	assert_false(e->flags.lazy_resched);
	assert_int_equal(e->flags.ctx, TRACE_LAT_CTX_HARDIRQ);
	assert_int_equal(e->flags.preempt_depth, 2);
	assert_int_equal(e->flags.preempt_lazy_depth, 0);
	assert_int_equal(e->flags.migrate_disable, 1);

	e = find_fn(t, "__do_softirq", 0);
	assert_true(e->flags.lazy_resched);
	assert_int_equal(e->flags.ctx, TRACE_LAT_CTX_HARDIRQ_IN_SOFTIRQ);

	e = find_fn(t, "lock_hrtimer_base", 0);
	assert_int_equal(e->mark, '!');
	trace_latency_free(t);
}

static void test_wakeup_two_stacks(void **state)
{
	struct trace_latency *t = load("wakeup.txt");
	const struct trace_lat_entry *e;
	size_t stacks = 0;

	(void)state;
	assert_int_equal(t->nproblems_total, 0);
	assert_string_equal(t->tracer, "wakeup");
	assert_int_equal(t->latency_us, 83);
	assert_null(t->started_at);
	assert_null(t->ended_at);
	assert_string_equal(t->task_comm, "kworker/0:2");
	assert_int_equal(t->task_pid, 77);
	assert_int_equal(count_kind(t, TRACE_LAT_SCHED), 2);
	assert_int_equal(t->nstack, 8);
	for (size_t i = 0; i < t->nentries; i++) {
		e = &t->entries[i];
		if (e->kind != TRACE_LAT_STACK)
			continue;
		assert_int_equal(e->stack_count, stacks == 0 ? 5 : 3);
		assert_string_equal(t->stack[e->stack_first], stacks == 0 ? "__ftrace_trace_stack" :
				    "__schedule");
		stacks++;
	}
	assert_int_equal(stacks, 2);
	e = &t->entries[0];
	assert_string_equal(e->comm, "<idle>");
	assert_int_equal(e->pid, 0);
	assert_int_equal(e->kind, TRACE_LAT_SCHED);
	assert_int_equal(e->flags.ctx, TRACE_LAT_CTX_HARDIRQ);
	assert_int_equal(e->flags.preempt_depth, 5);
	assert_non_null(strstr(e->text, "77:120:R kworker/0:2"));
	e = find_fn(t, "schedule_idle", 0);
	assert_int_equal(e->mark, '!');
	trace_latency_free(t);
}

static void test_wakeup_rt(void **state)
{
	struct trace_latency *t = load("wakeup_rt.txt");
	const struct trace_lat_entry *e;

	(void)state;
	assert_int_equal(t->nproblems_total, 0);
	assert_string_equal(t->tracer, "wakeup_rt");
	assert_int_equal(t->latency_us, 29);
	assert_int_equal(t->task_policy, 1);
	assert_int_equal(t->task_rt_prio, 5);
	assert_int_equal(t->ncolumns, 4);
	assert_false(t->has_migrate_column);
	assert_int_equal(count_kind(t, TRACE_LAT_SCHED), 2);
	e = &t->entries[4];
	assert_int_equal(e->kind, TRACE_LAT_SCHED);
	assert_non_null(strstr(e->text, "==>"));
	assert_non_null(strstr(e->text, " 94:R sleep"));	/* 99 - rt_prio 5 */
	assert_int_equal(e->flags.migrate_disable, -1);
	assert_int_equal(e->flags.preempt_depth, 2);
	trace_latency_free(t);
}

static void test_wakeup_dl(void **state)
{
	struct trace_latency *t = load("wakeup_dl.txt");
	const struct trace_lat_entry *e;

	(void)state;
	assert_int_equal(t->nproblems_total, 0);
	assert_string_equal(t->tracer, "wakeup_dl");
	assert_string_equal(t->task_comm, "dl-worker");
	assert_int_equal(t->task_pid, 1501);
	assert_int_equal(t->task_uid, 1000);
	assert_int_equal(t->task_policy, 6);
	assert_int_equal(t->ncolumns, 0);
	e = &t->entries[1];
	assert_string_equal(e->comm, "rcuc/1");
	assert_int_equal(e->pid, 21);
	assert_string_equal(e->function, "task_woken_dl");
	assert_int_equal(e->flags.migrate_disable, 0);	/* five columns: decided by count */
	assert_int_equal(e->flags.preempt_depth, 4);
	trace_latency_free(t);
}

/* ---- Traces captured from the classroom VM's kernels (vm/guest/capture-traces.sh) ---- */

/* The header of each captured file, as its own text says (tests/data/traces/README.md). */
static const struct captured {
	const char *file;
	const char *tracer;
	const char *kernel;
	bool have_latency;
	uint64_t latency_us;
	unsigned int shown;		/* = total in every capture */
	const char *task;		/* NULL: no task line (timerlat) */
	int pid, policy;
	const char *started_at, *ended_at;	/* NULL for the wakeup tracers */
	unsigned int ncolumns;
	size_t nentries;
} captured[] = {
	{ "lab-6.12/irqsoff.txt", "irqsoff", "6.12.118-rtlab", true, 530, 4, "sh", 94, 0,
	  "rtlab_inject_irqsoff_section", "rtlab_inject_irqsoff_section", 5, 4 },
	{ "lab-6.12/irqsoff-ftrace.txt", "irqsoff", "6.12.118-rtlab", true, 872, 495, "sh", 94, 0,
	  "rtlab_inject_irqsoff_section", "rtlab_inject_irqsoff_section", 5, 495 },
	{ "lab-6.12/preemptoff.txt", "preemptoff", "6.12.118-rtlab", true, 529, 4, "sh", 94, 0,
	  "rtlab_inject_preemptoff_section", "preempt_count_sub", 5, 4 },
	{ "lab-6.12/preemptoff-ftrace.txt", "preemptoff", "6.12.118-rtlab", true, 534, 311, "sh",
	  94, 0, "rtlab_inject_preemptoff_section", "preempt_count_sub", 5, 311 },
	{ "lab-6.12/preemptirqsoff.txt", "preemptirqsoff", "6.12.118-rtlab", true, 520, 4, "sh",
	  94, 0, "rtlab_inject_irqsoff_section", "rtlab_inject_irqsoff_section", 5, 4 },
	{ "lab-6.12/preemptirqsoff-ftrace.txt", "preemptirqsoff", "6.12.118-rtlab", true, 512,
	  517, "sh", 94, 0, "rtlab_inject_irqsoff_section", "rtlab_inject_irqsoff_section", 5,
	  517 },
	{ "lab-6.12/wakeup.txt", "wakeup", "6.12.118-rtlab", true, 3314, 6, "rcuc/0", 19, 1,
	  NULL, NULL, 5, 6 },
	{ "lab-6.12/wakeup_rt.txt", "wakeup_rt", "6.12.118-rtlab", true, 969, 6, "rcuc/0", 19, 1,
	  NULL, NULL, 5, 6 },
	{ "lab-6.12/wakeup_dl.txt", "wakeup_dl", "6.12.118-rtlab", true, 10357, 6, "timerlat/0",
	  153, 6, NULL, NULL, 5, 6 },
	{ "lab-6.12/timerlat.txt", "timerlat", NULL, false, 0, 0, NULL, 0, 0, NULL, NULL, 7,
	  234 },
	{ "rt-6.1/wakeup.txt", "wakeup", "6.1.0-57-rt-amd64", true, 2470, 6, "rcuc/0", 19, 1,
	  NULL, NULL, 7, 6 },
	{ "rt-6.1/wakeup_rt.txt", "wakeup_rt", "6.1.0-57-rt-amd64", true, 4458, 6, "ktimers/0",
	  15, 1, NULL, NULL, 7, 6 },
	{ "rt-6.1/wakeup_dl.txt", "wakeup_dl", "6.1.0-57-rt-amd64", true, 16641, 6,
	  "timerlat/0", 206, 6, NULL, NULL, 7, 6 },
	{ "rt-6.1/timerlat.txt", "timerlat", NULL, false, 0, 0, NULL, 0, 0, NULL, NULL, 7, 196 },
};

static void assert_str_or_null(const char *got, const char *want)
{
	if (want)
		assert_string_equal(got, want);
	else
		assert_null(got);
}

static void test_captured_headers(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(captured) / sizeof(captured[0]); i++) {
		const struct captured *c = &captured[i];
		struct trace_latency *t;

		print_message("%s\n", c->file);
		t = load(c->file);
		assert_int_equal(t->nproblems_total, 0);
		assert_string_equal(t->tracer, c->tracer);
		assert_str_or_null(t->kernel, c->kernel);
		assert_int_equal(t->have_latency, c->have_latency);
		assert_int_equal(t->latency_us, c->latency_us);
		assert_int_equal(t->shown, c->shown);
		assert_int_equal(t->total, c->shown);
		if (c->have_latency) {
			assert_string_equal(t->format_version, "1.1.5");
			assert_int_equal(t->cpu, 0);
			assert_string_equal(t->preempt_model, "preempt_rt");
			assert_int_equal(t->nr_cpus, 1);	/* captured with --smp 1 */
		}
		assert_int_equal(t->have_task, c->task != NULL);
		if (c->task) {
			assert_string_equal(t->task_comm, c->task);
			assert_int_equal(t->task_pid, c->pid);
			assert_int_equal(t->task_policy, c->policy);
		}
		assert_str_or_null(t->started_at, c->started_at);
		assert_str_or_null(t->ended_at, c->ended_at);
		assert_int_equal(t->ncolumns, c->ncolumns);
		assert_true(t->has_migrate_column);
		assert_true(t->nentries > 0);
		assert_int_equal(t->nentries, c->nentries);
		for (size_t k = 0; k < t->nentries; k++)
			assert_true(t->entries[k].flags.known);
		trace_latency_free(t);
	}
}

/* Every .txt under the capture folders is in the table above. */
static void test_captured_all_listed(void **state)
{
	const char *dirs[] = { "lab-6.12", "rt-6.1" };
	const char *srcdir = getenv("SRCDIR");
	size_t seen = 0;

	(void)state;
	for (size_t d = 0; d < 2; d++) {
		char path[512];
		DIR *dir;
		struct dirent *de;

		snprintf(path, sizeof(path), "%s/tests/data/traces/%s", srcdir ? srcdir : ".",
			 dirs[d]);
		dir = opendir(path);
		assert_non_null(dir);
		while ((de = readdir(dir)) != NULL) {
			char rel[300];
			size_t len = strlen(de->d_name), i;

			if (len < 5 || strcmp(de->d_name + len - 4, ".txt"))
				continue;
			snprintf(rel, sizeof(rel), "%s/%s", dirs[d], de->d_name);
			for (i = 0; i < sizeof(captured) / sizeof(captured[0]); i++)
				if (!strcmp(captured[i].file, rel))
					break;
			if (i == sizeof(captured) / sizeof(captured[0]))
				fail_msg("%s is not in the captured[] table", rel);
			seen++;
		}
		closedir(dir);
	}
	assert_int_equal(seen, sizeof(captured) / sizeof(captured[0]));
}

/* The entry read from input line @line. */
static const struct trace_lat_entry *at_line(const struct trace_latency *t, unsigned int line)
{
	for (size_t i = 0; i < t->nentries; i++)
		if (t->entries[i].line == line)
			return &t->entries[i];
	fail_msg("no entry from line %u", line);
	return NULL;
}

/* Lines picked from the captures, flag column by flag column. */
static void test_captured_lines(void **state)
{
	struct trace_latency *t;
	const struct trace_lat_entry *e;

	(void)state;
	/* "      sh-94        0d....    1us!: rtlab_inject_irqsoff_section" */
	t = load("lab-6.12/irqsoff.txt");
	e = at_line(t, 22);
	assert_string_equal(e->flags.raw, "d....");
	assert_true(e->flags.irqs_off);
	assert_false(e->flags.bh_off);
	assert_false(e->flags.need_resched);
	assert_int_equal(e->flags.ctx, TRACE_LAT_CTX_NORMAL);
	assert_int_equal(e->flags.preempt_depth, 0);
	assert_int_equal(e->flags.migrate_disable, 0);
	assert_int_equal(e->mark, '!');
	assert_int_equal(e->time_ns, 1000);
	assert_non_null(strstr(e->text, "rtlab_inject_irqsoff_section"));
	/* "      sh-94        0d....  532us+: trace_hardirqs_on <-rtlab_inject_irqsoff_section" */
	e = at_line(t, 24);
	assert_int_equal(e->kind, TRACE_LAT_FUNC);
	assert_string_equal(e->function, "trace_hardirqs_on");
	assert_string_equal(e->caller, "rtlab_inject_irqsoff_section");
	assert_int_equal(e->mark, '+');
	assert_int_equal(e->time_ns, 532000);
	assert_int_equal(at_line(t, 25)->kind, TRACE_LAT_STACK);
	assert_int_equal(t->nstack, 12);
	trace_latency_free(t);

	/* "      sh-94        0...1.    1us!: rtlab_inject_preemptoff_section <-rtlab_..." */
	t = load("lab-6.12/preemptoff.txt");
	e = at_line(t, 22);
	assert_string_equal(e->flags.raw, "...1.");
	assert_false(e->flags.irqs_off);
	assert_int_equal(e->flags.preempt_depth, 1);
	assert_int_equal(e->flags.ctx, TRACE_LAT_CTX_NORMAL);
	assert_string_equal(e->function, "rtlab_inject_preemptoff_section");
	trace_latency_free(t);

	/* "      sh-94        0dNh4.   18us!:       94:120:R   + [000]      19: 98:R rcuc/0" */
	t = load("lab-6.12/wakeup.txt");
	e = at_line(t, 19);
	assert_string_equal(e->flags.raw, "dNh4.");
	assert_true(e->flags.irqs_off);
	assert_true(e->flags.need_resched);
	assert_true(e->flags.preempt_resched);
	assert_int_equal(e->flags.ctx, TRACE_LAT_CTX_HARDIRQ);
	assert_int_equal(e->flags.preempt_depth, 4);
	assert_int_equal(e->kind, TRACE_LAT_SCHED);
	assert_non_null(strstr(e->text, "rcuc/0"));
	assert_int_equal(count_kind(t, TRACE_LAT_SCHED), 2);
	trace_latency_free(t);

	/* 6.1 RT: seven columns with the lazy ones. "   sleep-185       0dn.h4..  249us#: ..." */
	t = load("rt-6.1/wakeup.txt");
	e = at_line(t, 21);
	assert_string_equal(e->comm, "sleep");
	assert_int_equal(e->pid, 185);
	assert_string_equal(e->flags.raw, "dn.h4..");
	assert_true(e->flags.irqs_off);
	assert_true(e->flags.need_resched);
	assert_false(e->flags.preempt_resched);	/* 'n': TIF only */
	assert_false(e->flags.lazy_resched);
	assert_int_equal(e->flags.ctx, TRACE_LAT_CTX_HARDIRQ);
	assert_int_equal(e->flags.preempt_depth, 4);
	assert_int_equal(e->flags.preempt_lazy_depth, 0);
	assert_int_equal(e->flags.migrate_disable, 0);
	assert_int_equal(e->mark, '#');
	assert_int_equal(e->kind, TRACE_LAT_SCHED);
	trace_latency_free(t);

	/* timerlat, normal format: "<...>-213 [000] d..h1..  9.541248: #1 context irq ..." */
	t = load("rt-6.1/timerlat.txt");
	e = at_line(t, 14);
	assert_int_equal(e->pid, 213);
	assert_int_equal(e->time_ns, 9541248000LL);
	assert_true(e->flags.irqs_off);
	assert_int_equal(e->flags.ctx, TRACE_LAT_CTX_HARDIRQ);
	assert_int_equal(e->flags.preempt_depth, 1);
	assert_int_equal(e->kind, TRACE_LAT_TEXT);
	assert_non_null(strstr(e->text, "context    irq timer_latency"));
	e = at_line(t, 15);
	assert_false(e->flags.irqs_off);
	assert_int_equal(e->flags.ctx, TRACE_LAT_CTX_NORMAL);
	assert_int_equal(e->flags.preempt_depth, 0);
	trace_latency_free(t);

	/*
	 * 6.12's timerlat header still draws the seven columns of the old RT patch
	 * set above five-character blocks: "<...>-158 [000] ....1  21.988282: ...".
	 * The count decides, so the 1 is the migrate-disable depth.
	 */
	t = load("lab-6.12/timerlat.txt");
	e = at_line(t, 15);
	assert_string_equal(e->flags.raw, "....1");
	assert_int_equal(e->flags.preempt_depth, 0);
	assert_int_equal(e->flags.migrate_disable, 1);
	e = at_line(t, 14);
	assert_string_equal(e->flags.raw, "d.h..");
	assert_true(e->flags.irqs_off);
	assert_int_equal(e->flags.ctx, TRACE_LAT_CTX_HARDIRQ);
	trace_latency_free(t);
}

static void test_decode_flags(void **state)
{
	struct trace_lat_flags f;
	static const struct {
		const char *raw;
		bool tif, pre, lazy;
	} resched[] = {
		{ "dN.1", true, true, false }, { "dn.1", true, false, false },
		{ "dp.1", false, true, false }, { "dB.1", true, true, true },
		{ "dL.1", false, true, true }, { "db.1", true, false, true },
		{ "dl.1", false, false, true }, { "d..1", false, false, false },
	};
	static const struct {
		char c;
		enum trace_lat_ctx ctx;
	} ctx[] = {
		{ '.', TRACE_LAT_CTX_NORMAL }, { 's', TRACE_LAT_CTX_SOFTIRQ },
		{ 'h', TRACE_LAT_CTX_HARDIRQ }, { 'H', TRACE_LAT_CTX_HARDIRQ_IN_SOFTIRQ },
		{ 'z', TRACE_LAT_CTX_NMI }, { 'Z', TRACE_LAT_CTX_NMI_IN_HARDIRQ },
	};
	char raw[5];

	(void)state;
	/* The quiz's "0dNh2" without its CPU digit. */
	assert_int_equal(trace_lat_decode_flags("dNh2", 4, NULL, 0, &f), 0);
	assert_true(f.irqs_off && f.need_resched && f.preempt_resched);
	assert_int_equal(f.ctx, TRACE_LAT_CTX_HARDIRQ);
	assert_int_equal(f.preempt_depth, 2);
	assert_string_equal(trace_lat_ctx_name(f.ctx), "hardirq");

	for (size_t i = 0; i < sizeof(resched) / sizeof(resched[0]); i++) {
		assert_int_equal(trace_lat_decode_flags(resched[i].raw, 4, NULL, 0, &f), 0);
		assert_int_equal(f.need_resched, resched[i].tif);
		assert_int_equal(f.preempt_resched, resched[i].pre);
		assert_int_equal(f.lazy_resched, resched[i].lazy);
	}
	for (size_t i = 0; i < sizeof(ctx) / sizeof(ctx[0]); i++) {
		snprintf(raw, sizeof(raw), "..%c.", ctx[i].c);
		assert_int_equal(trace_lat_decode_flags(raw, 4, NULL, 0, &f), 0);
		assert_int_equal(f.ctx, ctx[i].ctx);
		assert_int_equal(f.preempt_depth, 0);
	}
	assert_int_equal(trace_lat_decode_flags("D..f3", 5, NULL, 0, &f), 0);
	assert_true(f.irqs_off && f.bh_off);
	assert_int_equal(f.preempt_depth, 15);
	assert_int_equal(f.migrate_disable, 3);
	assert_int_equal(trace_lat_decode_flags("b...", 4, NULL, 0, &f), 0);
	assert_true(!f.irqs_off && f.bh_off);
	assert_int_equal(trace_lat_decode_flags("X...", 4, NULL, 0, &f), 0);
	assert_true(f.irqs_unsupported);
	/* Wrong letters and odd lengths are reported, not guessed silently. */
	assert_int_equal(trace_lat_decode_flags("?...", 4, NULL, 0, &f), -EINVAL);
	assert_false(f.known);
	assert_int_equal(trace_lat_decode_flags("..q.", 4, NULL, 0, &f), -EINVAL);
	assert_int_equal(trace_lat_decode_flags("d..1..", 6, NULL, 0, &f), -EINVAL);
	assert_true(f.irqs_off);
	assert_int_equal(trace_lat_decode_flags("d..g", 4, NULL, 0, &f), -EINVAL);
}

static void test_marks(void **state)
{
	(void)state;
	assert_int_equal(trace_lat_mark_min_us('$'), 1000000);
	assert_int_equal(trace_lat_mark_min_us('@'), 100000);
	assert_int_equal(trace_lat_mark_min_us('*'), 10000);
	assert_int_equal(trace_lat_mark_min_us('#'), 1000);
	assert_int_equal(trace_lat_mark_min_us('!'), 100);
	assert_int_equal(trace_lat_mark_min_us('+'), 10);
	assert_int_equal(trace_lat_mark_min_us(' '), 0);
	assert_true(trace_lat_mark_min_us('x') == UINT64_MAX);
}

static void test_every_mark_in_lines(void **state)
{
	static const char marks[] = "$@*#!+ ";
	struct trace_latency *t = NULL;
	struct rt_buf b = RT_BUF_INIT;

	(void)state;
	assert_int_equal(rt_buf_puts(&b, "# tracer: irqsoff\n"), 0);
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(rt_buf_printf(&b, "  foo bar-%zu    0d..1 %4zuus%c: f%zu <-g\n",
					       i, i * 3, marks[i], i), 0);
	assert_int_equal(trace_latency_parse(rt_buf_str(&b), b.len, "m", &t, NULL), 0);
	assert_int_equal(t->nproblems_total, 0);
	assert_int_equal(t->nentries, 7);
	for (size_t i = 0; i < 7; i++) {
		assert_int_equal(t->entries[i].mark, marks[i]);
		assert_string_equal(t->entries[i].comm, "foo bar");	/* comm with a space */
		assert_int_equal(t->entries[i].pid, (int)i);
		assert_int_equal(t->entries[i].time_ns, (int64_t)i * 3000);
	}
	trace_latency_free(t);
	rt_buf_fini(&b);
}

static void test_normal_format(void **state)
{
	static const char text[] =
		"# tracer: function\n"
		"           <...>-1234    [001] d..1.  5123.456789: my_func <-my_caller\n"
		"  kworker/u4:2-88      [000] ..... 12.000001: tick_sched_timer <-__hrtimer_run\n"
		"            bash-7     [003] 99.5: trace_printk text here\n";
	struct trace_latency *t = NULL;

	(void)state;
	assert_int_equal(trace_latency_parse(text, sizeof(text) - 1, "n", &t, NULL), 0);
	assert_int_equal(t->nproblems_total, 0);
	assert_int_equal(t->nentries, 3);
	assert_string_equal(t->entries[0].comm, "<...>");
	assert_int_equal(t->entries[0].pid, 1234);
	assert_int_equal(t->entries[0].cpu, 1);
	assert_int_equal(t->entries[0].time_ns, 5123456789000LL);
	assert_true(t->entries[0].flags.irqs_off);
	assert_int_equal(t->entries[0].flags.migrate_disable, 0);
	assert_string_equal(t->entries[0].function, "my_func");
	assert_string_equal(t->entries[1].comm, "kworker/u4:2");
	assert_int_equal(t->entries[1].time_ns, 12000001000LL);
	assert_int_equal(t->entries[2].kind, TRACE_LAT_TEXT);
	assert_int_equal(t->entries[2].time_ns, 99500000000LL);
	assert_false(t->entries[2].flags.known);
	trace_latency_free(t);
}

static void test_garbage(void **state)
{
	static const char junk[] = "hello world\nthis is not\x01\x02 a trace\n\0\0\xff\xfe";
	struct trace_latency *t = (struct trace_latency *)&t;	/* must be reset */
	char *cause = NULL;

	(void)state;
	assert_int_equal(trace_latency_parse(junk, sizeof(junk) - 1, "junk.txt", &t, &cause),
			 -EINVAL);
	assert_null(t);
	assert_non_null(strstr(cause, "junk.txt:1:"));
	free(cause);
	cause = NULL;
	assert_int_equal(trace_latency_parse("", 0, NULL, &t, &cause), -EINVAL);
	assert_non_null(strstr(cause, "trace:1:"));
	free(cause);
}

static void test_bad_lines_reported(void **state)
{
	static const char text[] =
		"# tracer: irqsoff\n"
		"# latency: 17 us, #3/9, CPU#0 | (M:server VP:0, KP:0, SP:0 HP:0 #P:8)\n"
		"#    | task: a-b-c-5 (uid:0 nice:-5 policy:2 rt_prio:7)\n"
		"   x-1   0d..1    0us : f <-g\n"
		"this line is nonsense\n"
		"   x-1   0d?.1    2us : h <-g\n"
		"   x-1   0d..1    3us\n"
		"# latency: lots\n"
		"   x-1   0d..1    4us+: i <-g\r\n";
	struct trace_latency *t = NULL;

	(void)state;
	assert_int_equal(trace_latency_parse(text, sizeof(text) - 1, "bad.txt", &t, NULL), 0);
	assert_string_equal(t->task_comm, "a-b-c");
	assert_int_equal(t->task_pid, 5);
	assert_int_equal(t->task_nice, -5);
	assert_int_equal(t->task_policy, 2);
	assert_int_equal(t->task_rt_prio, 7);
	assert_int_equal(t->shown, 3);
	assert_int_equal(t->total, 9);
	assert_int_equal(t->nr_cpus, 8);
	assert_int_equal(t->nentries, 3);	/* f, h (bad flags), i */
	assert_string_equal(t->entries[2].function, "i");
	assert_int_equal(t->entries[2].mark, '+');
	assert_false(t->entries[1].flags.known);
	assert_int_equal(t->nproblems, 4);
	assert_non_null(strstr(t->problems[0].what, "bad.txt:5:"));
	assert_non_null(strstr(t->problems[1].what, "bad.txt:6:"));
	assert_non_null(strstr(t->problems[2].what, "bad.txt:7:"));
	assert_non_null(strstr(t->problems[3].what, "bad.txt:8:"));
	trace_latency_free(t);
}

static void test_truncated_and_flood(void **state)
{
	struct trace_latency *t = NULL;
	struct rt_buf b = RT_BUF_INIT;
	char *all;
	size_t len;

	(void)state;
	/* Every prefix of a real-looking trace parses or is refused cleanly. */
	all = fixture_text("wakeup.txt", &len);
	for (size_t n = 0; n <= len; n += 7) {
		char *cause = NULL;
		int ret = trace_latency_parse(all, n, "cut", &t, &cause);

		assert_true(ret == 0 || ret == -EINVAL);
		assert_true(ret == 0 || n < 20);
		trace_latency_free(t);
		free(cause);
		t = NULL;
	}
	free(all);
	assert_int_equal(rt_buf_puts(&b, "# tracer: wakeup\n"), 0);
	for (int i = 0; i < 500; i++)
		assert_int_equal(rt_buf_puts(&b, "no entry here\n"), 0);
	assert_int_equal(trace_latency_parse(rt_buf_str(&b), b.len, "f", &t, NULL), 0);
	assert_int_equal(t->nproblems, TRACE_LAT_MAX_PROBLEMS);
	assert_int_equal(t->nproblems_total, 500);
	trace_latency_free(t);
	rt_buf_fini(&b);
	trace_latency_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_irqsoff),
		cmocka_unit_test(test_preemptoff_no_legend),
		cmocka_unit_test(test_preemptirqsoff_rt_lazy),
		cmocka_unit_test(test_wakeup_two_stacks),
		cmocka_unit_test(test_wakeup_rt),
		cmocka_unit_test(test_wakeup_dl),
		cmocka_unit_test(test_captured_headers),
		cmocka_unit_test(test_captured_all_listed),
		cmocka_unit_test(test_captured_lines),
		cmocka_unit_test(test_decode_flags),
		cmocka_unit_test(test_marks),
		cmocka_unit_test(test_every_mark_in_lines),
		cmocka_unit_test(test_normal_format),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_bad_lines_reported),
		cmocka_unit_test(test_truncated_and_flood),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
