/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_explain: a latency trace put into words, for a learner who has not
 * learnt the kernel's column legend yet. It is the one place that knows how
 * to say what a trace header means ("worst latency 512 us on CPU 1"), what a
 * flag block means ("irqs off, need-resched, hardirq, preempt depth 1") and
 * what a delay mark stands for ("! > 100 us"). The trace viewer
 * (ui_trace_view) draws these words and `rtlab trace explain` prints them, so
 * both always say the same thing.
 *
 * A struct trace_explain is a loaded trace: the text as the kernel wrote it
 * (split into lines, so a front end can show any line raw), the parsed model
 * from trace_latency, and where it came from. The input is the text of a
 * trace; when the caller took it out of a results document (the ftrace lab
 * keeps its tracer's trace there, and lab_ftrace_doc finds it), it says so
 * in struct trace_explain_src, and the header mentions a trace the document
 * cut. Nothing here reads results documents or prints; every function
 * appends to an rt_buf or returns a borrowed string.
 */
#ifndef RTLAB_TRACE_TRACE_EXPLAIN_H
#define RTLAB_TRACE_TRACE_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "core/rt_buf.h"
#include "trace/trace_emu.h"
#include "trace/trace_latency.h"

struct trace_explain {
	char *name;			/* owned: what messages call the input (a file name) */
	char *text;			/* owned: the text, NUL-terminated, controls as '?' */
	size_t len;
	size_t *line_start;		/* owned: offset in text of line 1, 2, ... */
	size_t nlines;
	struct trace_latency *trace;	/* owned: the parsed trace */
	bool from_results;		/* text came from a results document */
	bool truncated;			/* the results document says it cut the trace */
	size_t nmarks;			/* entries with a delay mark */
	size_t worst_mark;		/* entries[] index of the widest mark (nmarks > 0) */
	enum trace_emu_env env;		/* where the trace was taken */
	struct trace_emu_verdict emu;	/* is its worst section likely the emulator's? */
};

/* A trace to load, and where the caller found it. */
struct trace_explain_src {
	const char *text;		/* borrowed: the trace as the kernel wrote it */
	size_t len;			/* its length; text need not be NUL-terminated */
	const char *name;		/* what messages call it (a file name); NULL = "trace" */
	bool from_results;		/* taken out of a results document */
	bool truncated;			/* that document says it cut the trace */
	enum trace_emu_env env;		/* where it was taken (a document's env says;
					 * TRACE_EMU_UNKNOWN for a raw file) */
};

/**
 * trace_explain_load_src - load a trace
 * @src: the text and its origin; nothing of it is kept (the text is copied)
 * @out: on success the loaded trace; free it with trace_explain_free()
 * @cause: on failure, why, naming @src->name (the caller frees)
 *
 * Returns 0, -EINVAL when the text holds no trace trace_latency can read,
 * or -ENOMEM.
 */
int trace_explain_load_src(const struct trace_explain_src *src, struct trace_explain **out,
			   char **cause);

/**
 * trace_explain_load - load a raw trace file's text
 * @text: the text (need not be NUL-terminated)
 * @len: its length in bytes
 * @name: what to call the input in messages; NULL means "trace"
 * @out, @cause: as for trace_explain_load_src()
 *
 * trace_explain_load_src() with nothing said about the origin. A results
 * document is not a trace: the front ends hand what a learner names to
 * lab_trace_load() (labs/lab.h), which takes the trace
 * out of an ftrace lab document first.
 */
int trace_explain_load(const char *text, size_t len, const char *name,
		       struct trace_explain **out, char **cause);

/*
 * Files larger than this are refused: a trace that big is not for reading
 * (a latency tracer's snapshot is a few MiB at most). The loaded model takes
 * about 5.5 times the file (the text, its line index and one record per
 * entry), so loading stays under about 360 MB; `trace explain` writes its
 * output entry by entry and adds nothing that grows with the trace.
 */
#define TRACE_EXPLAIN_MAX_FILE (64u << 20)

/**
 * trace_explain_read_file - read the file a learner named, for trace_explain_load()
 * @path: the file
 * @text: on success a NUL-terminated copy (the caller frees)
 * @len: its length
 * @cause: on failure "PATH: why" (the caller frees)
 *
 * Returns 0 or a negative errno (-ENOENT, -EACCES, -EISDIR, -EFBIG, ...).
 */
int trace_explain_read_file(const char *path, char **text, size_t *len, char **cause);

/* trace_explain_free - release @x and everything it owns; NULL does nothing. */
void trace_explain_free(struct trace_explain *x);

/**
 * trace_explain_line - line @lineno (1-based) of the trace text
 * @len: set to its length without the newline
 *
 * Returns a pointer into x->text (borrowed, not NUL-terminated at the line
 * end), or NULL when there is no such line.
 */
const char *trace_explain_line(const struct trace_explain *x, unsigned int lineno, size_t *len);

/* The entry that line @lineno holds, or NULL (header, stack or unreadable line). */
const struct trace_lat_entry *trace_explain_entry_at(const struct trace_explain *x,
						     unsigned int lineno);

/* The parser's problem for line @lineno, or NULL. */
const struct trace_lat_problem *trace_explain_problem_at(const struct trace_explain *x,
							 unsigned int lineno);

/**
 * trace_explain_measures - what the latency of @tracer measures, in words
 *
 * Returns a static sentence fragment ("the longest time hard interrupts
 * stayed disabled on one CPU"), or NULL for a tracer rtlab does not know.
 */
const char *trace_explain_measures(const char *tracer);

/* "SCHED_OTHER", "SCHED_FIFO", ...; "policy N" is not returned: NULL when unknown. */
const char *trace_explain_policy(int policy);

/* True when @tracer is one of the wake-up tracers (the task is the one woken). */
bool trace_explain_is_wakeup(const char *tracer);

/**
 * trace_explain_gap - the gap a delay mark stands for, e.g. "> 100 us"
 * @buf: at least 16 bytes; gets "" for ' ' and for a character that is no mark
 *
 * Returns @buf.
 */
char *trace_explain_gap(char mark, char *buf, size_t size);

/**
 * trace_explain_header - the header of @x in words
 *
 * Appends one sentence per line, each ending in '\n': the tracer and what it
 * measures; the worst latency, its CPU and task; where the interval started
 * and ended (off-tracers); when the worst section is likely the emulator's
 * (trace_emu), what that means and what to do; entries shown of recorded, kernel, preemption
 * model and CPUs; the delay marks; whether the document cut the trace; and
 * how many lines could not be read (with the first). Lines whose facts the
 * trace lacks are left out. Returns 0 or -ENOMEM.
 */
int trace_explain_header(const struct trace_explain *x, struct rt_buf *out);

/**
 * trace_explain_flags - a flag block in words
 * @full: false for the short list of what is set ("irqs off, hardirq,
 *        preempt depth 1"; "irqs on, preemptible" when nothing is); true for
 *        every column with its state ("irqs on; no reschedule pending; ...")
 *
 * Appends without a newline. Returns 0 or -ENOMEM.
 */
int trace_explain_flags(const struct trace_lat_flags *f, bool full, struct rt_buf *out);

/* Time of @e: "+509 us" in a latency trace, "12.345678 s" in the normal format. */
int trace_explain_time(const struct trace_explain *x, const struct trace_lat_entry *e,
		       struct rt_buf *out);

/**
 * trace_explain_entry - one entry in words
 *
 * Appends one fact per line, each ending in '\n': who ran where and when
 * and what (function and caller, or a scheduler event in words), the
 * flags in full, the delay mark, and for a <stack trace> entry its frames,
 * innermost first ("  frame 1: ..."). Returns 0 or -ENOMEM.
 */
int trace_explain_entry(const struct trace_explain *x, const struct trace_lat_entry *e,
			struct rt_buf *out);

#endif
