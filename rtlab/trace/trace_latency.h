/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_latency: the text of tracefs's `trace` file after a latency tracer
 * (irqsoff, preemptoff, preemptirqsoff, wakeup, wakeup_rt, wakeup_dl) has
 * run, turned into a structure the trace viewer and the grader can use.
 *
 * The header gives the tracer, the worst latency, how many entries are shown
 * out of how many were recorded, the CPU, the preemption model, the number of
 * CPUs, the task that was running and (for the off-tracers) the functions
 * where the interval started and ended. Each entry line gives the task, the
 * CPU, a block of flag characters, a time relative to the start of the
 * interval, a delay mark for the gap to the next entry, and the function
 * with its caller (or, in wakeup traces, a scheduler line). A `<stack trace>`
 * entry is followed by " => function" lines.
 *
 * The flag columns differ between kernels: 4 after the CPU number before
 * 5.x, a 5th (migrate-disable) after, and PREEMPT_RT patch sets of the 4.x
 * and 5.x era had lazy columns as well. When the trace carries its column
 * legend ("=> irqs-off" ...), the legend decides what each column means;
 * without it the count of flag characters does. Lines in the normal (not
 * latency) format, "comm-pid [cpu] flags seconds: ...", are accepted too.
 *
 * The parser never trusts its input: anything it cannot read becomes a
 * "name:line: why" problem in the result and parsing goes on.
 */
#ifndef RTLAB_TRACE_TRACE_LATENCY_H
#define RTLAB_TRACE_TRACE_LATENCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Context column: where the CPU was when the entry was written. */
enum trace_lat_ctx {
	TRACE_LAT_CTX_UNKNOWN,		/* column absent or unreadable */
	TRACE_LAT_CTX_NORMAL,		/* '.' */
	TRACE_LAT_CTX_SOFTIRQ,		/* 's' */
	TRACE_LAT_CTX_HARDIRQ,		/* 'h' */
	TRACE_LAT_CTX_HARDIRQ_IN_SOFTIRQ,	/* 'H' */
	TRACE_LAT_CTX_NMI,		/* 'z' */
	TRACE_LAT_CTX_NMI_IN_HARDIRQ,	/* 'Z' */
};

/* The decoded flag block of one entry. */
struct trace_lat_flags {
	char raw[16];		/* the characters after the CPU number, NUL-terminated */
	bool known;		/* the block could be decoded */
	bool irqs_off;		/* 'd' or 'D' */
	bool bh_off;		/* 'D' or 'b' (newer kernels: bottom halves disabled) */
	bool irqs_unsupported;	/* 'X': the arch cannot tell */
	bool need_resched;	/* TIF_NEED_RESCHED: N, n, B, b */
	bool preempt_resched;	/* the preempt-count bit: N, p, B, L */
	bool lazy_resched;	/* lazy rescheduling: B, L, b, l, or an old lazy column */
	enum trace_lat_ctx ctx;
	int preempt_depth;	/* 0 for '.', 0..15 (hex digit); -1 when absent */
	int preempt_lazy_depth;	/* old RT kernels only; -1 when absent */
	int migrate_disable;	/* newer kernels' migrate-disable depth; -1 when absent */
};

enum trace_lat_kind {
	TRACE_LAT_FUNC,		/* "function <-caller" */
	TRACE_LAT_SCHED,	/* wakeup tracers' "prio:state ==> [cpu] pid: prio:state comm" */
	TRACE_LAT_STACK,	/* the "<stack trace>" marker */
	TRACE_LAT_TEXT,		/* anything else after the colon (trace_printk, events) */
};

struct trace_lat_entry {
	unsigned int line;	/* 1-based line in the input */
	char *comm;		/* owned */
	int pid;
	int cpu;
	struct trace_lat_flags flags;
	int64_t time_ns;	/* latency format: relative; normal format: absolute */
	char mark;		/* delay mark: '$', '@', '*', '#', '!', '+' or ' ' */
	uint64_t mark_min_us;	/* the gap to the next entry is above this (0 for ' ') */
	enum trace_lat_kind kind;
	char *function;		/* owned; TRACE_LAT_FUNC, else NULL */
	char *caller;		/* owned; TRACE_LAT_FUNC, else NULL */
	char *text;		/* owned; everything after the colon, trimmed */
	size_t stack_first;	/* TRACE_LAT_STACK: its " => " lines are */
	size_t stack_count;	/* stack[stack_first .. stack_first + stack_count - 1] */
};

/* A line the parser could not read; what says why. */
struct trace_lat_problem {
	unsigned int line;
	char *what;		/* owned: "name:line: why" */
};

struct trace_latency {
	char *tracer;		/* owned; from "# tracer:", NULL if absent */
	char *kernel;		/* owned; from "... latency trace v1.1.5 on X" */
	char *format_version;	/* owned; "1.1.5" */
	bool have_latency;	/* the "latency:" line was read */
	uint64_t latency_us;
	unsigned int shown;	/* "#shown/total" */
	unsigned int total;
	int cpu;		/* -1 if absent */
	char *preempt_model;	/* owned; "M:" value, e.g. "preempt_rt" */
	int nr_cpus;		/* "#P:"; -1 if absent */
	bool have_task;
	char *task_comm;	/* owned */
	int task_pid;
	int task_uid;
	int task_nice;
	int task_policy;	/* 0 SCHED_OTHER, 1 SCHED_FIFO, 2 SCHED_RR, 6 SCHED_DEADLINE */
	int task_rt_prio;
	char *started_at;	/* owned; NULL for wakeup tracers */
	char *ended_at;		/* owned */
	unsigned int ncolumns;	/* flag columns after the CPU, from the legend; 0 if none */
	bool has_migrate_column;

	struct trace_lat_entry *entries;	/* owned */
	size_t nentries;
	char **stack;		/* owned; every " => " line in order (innermost first per stack) */
	size_t nstack;
	struct trace_lat_problem *problems;	/* owned; at most TRACE_LAT_MAX_PROBLEMS kept */
	size_t nproblems;
	size_t nproblems_total;	/* all of them, including those not kept */
};

#define TRACE_LAT_MAX_PROBLEMS 100

/**
 * trace_latency_parse - read a latency trace
 * @text: the trace text (need not be NUL-terminated; NUL bytes end a line's content)
 * @len: its length in bytes
 * @name: what to call the input in problem messages (a file name); NULL means "trace"
 * @out: on success, the parsed trace; free it with trace_latency_free()
 * @cause: on failure, why
 *
 * Returns 0 when the text has a latency header or at least one entry (lines
 * that could not be read are in (*out)->problems), -EINVAL when nothing in
 * it looks like a trace (@cause names the input), -ENOMEM.
 */
int trace_latency_parse(const char *text, size_t len, const char *name,
			struct trace_latency **out, char **cause);

/* trace_latency_free - release @t and everything it owns; NULL does nothing. */
void trace_latency_free(struct trace_latency *t);

/**
 * trace_lat_decode_flags - decode a flag block without the CPU number
 * @raw: the characters, e.g. "d..1" or "dN.2." (at most 15 are read)
 * @len: how many
 * @cols: column meanings from a legend (TRACE_LAT_COL_*), or NULL to decide by @len
 * @ncols: entries in @cols
 * @out: filled (the caller's storage)
 *
 * Returns 0, or -EINVAL when a character is not valid for its column
 * (@out is still filled as far as it could be).
 */
enum trace_lat_col {
	TRACE_LAT_COL_IRQS,
	TRACE_LAT_COL_RESCHED,
	TRACE_LAT_COL_RESCHED_LAZY,
	TRACE_LAT_COL_CTX,
	TRACE_LAT_COL_PREEMPT,
	TRACE_LAT_COL_PREEMPT_LAZY,
	TRACE_LAT_COL_MIGRATE,
	TRACE_LAT_COL_OTHER,
};
#define TRACE_LAT_MAX_COLUMNS 12

int trace_lat_decode_flags(const char *raw, size_t len, const enum trace_lat_col *cols,
			   size_t ncols, struct trace_lat_flags *out);

/**
 * trace_lat_mark_min_us - the gap a delay mark stands for
 * @mark: '$', '@', '*', '#', '!', '+' or ' '
 *
 * Returns the lower bound of the gap in microseconds (the gap is strictly
 * greater), 0 for ' ', or UINT64_MAX for a character that is not a mark.
 */
uint64_t trace_lat_mark_min_us(char mark);

/* A short English name for @ctx ("hardirq", "softirq", ...). */
const char *trace_lat_ctx_name(enum trace_lat_ctx ctx);

#endif
