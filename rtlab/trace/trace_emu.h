/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_emu: is the worst section of a latency trace likely the emulator's?
 *
 * In the classroom VM under QEMU's TCG every instruction is emulated, and
 * the host can stop an emulated CPU for milliseconds at any instruction,
 * also while the guest has interrupts or preemption off. The latency
 * tracers then keep sections that started in code which is short on real
 * hardware, interrupt entry (irqentry_enter), the scheduler's switch path,
 * a tracepoint (__traceiter_sched_switch), the timer's programming, and
 * report hundreds of microseconds to milliseconds for them. The guest really
 * had interrupts off that long, so a real-time task on it really waited, but
 * the cost is the emulator's (or the host's), not that code's.
 *
 * trace_emu_judge() says so from two things: where the section's time went
 * (the trace) and where the trace was taken (enum trace_emu_env, which a
 * results document knows from env.in_vm and env.vm_type; a raw trace file
 * does not). The list of short code paths is what the emulator-made sections
 * of the captured hunt traces (tests/data/traces/hunt/, README) started in or
 * stalled in; a section in code that loops on purpose (the hunt's injector,
 * delay loops, console output) is never called the emulator's.
 */
#ifndef RTLAB_TRACE_TRACE_EMU_H
#define RTLAB_TRACE_TRACE_EMU_H

#include <stdbool.h>
#include <stdint.h>

#include "core/rt_buf.h"
#include "trace/trace_latency.h"

/* Where a trace was taken, as far as anyone knows. */
enum trace_emu_env {
	TRACE_EMU_UNKNOWN,	/* a raw trace file: nothing says */
	TRACE_EMU_HOST,		/* bare metal (env.in_vm false) */
	TRACE_EMU_HWVIRT,	/* a VM with hardware virtualisation (KVM and the like) */
	TRACE_EMU_TCG,		/* QEMU's TCG: every instruction emulated */
};

/* Sections shorter than this are not judged: nothing to explain. */
#define TRACE_EMU_MIN_US 50u

/* What trace_emu_judge() found. Strings are borrowed from the trace or static. */
struct trace_emu_verdict {
	bool likely;		/* the worst section is likely the emulator's (or host's) */
	bool wake;		/* a wake-up tracer's trace: @where is where it stalled */
	bool has_stack;		/* the trace has <stack trace> frames */
	const char *tracer;	/* the trace's tracer */
	const char *path;	/* static: the short code path, e.g. "interrupt entry and exit" */
	const char *where;	/* the function the section started in (or stalled in) */
	uint64_t latency_us;	/* the section's length */
	uint64_t stall_us;	/* the widest gap between two entries, 0 if none */
	const char *stall_after; /* the function before that gap, or NULL */
	unsigned int stall_line; /* its line */
};

/**
 * trace_emu_env_from_vm - the environment a results document's env block names
 * @in_vm: env.in_vm
 * @vm_type: env.vm_type ("QEMU TCG", "KVM", ...; NULL when unknown)
 */
enum trace_emu_env trace_emu_env_from_vm(bool in_vm, const char *vm_type);

/* "under QEMU's TCG emulation", "in a VM (KVM)" ...: for sentences. Static. */
const char *trace_emu_env_words(enum trace_emu_env env);

/**
 * trace_emu_short_path - which short code path @function belongs to
 *
 * Returns a static description ("interrupt entry and exit", "a tracepoint,
 * where tracers hook in", ...), or NULL for a function on no such path.
 */
const char *trace_emu_short_path(const char *function);

/**
 * trace_emu_judge - is @t's worst section likely the emulator's?
 * @t: a parsed latency trace (irqsoff, preemptoff, preemptirqsoff, wakeup*)
 * @env: where it was taken
 * @out: filled (the caller's storage)
 *
 * likely is set when the section lasted at least TRACE_EMU_MIN_US, it
 * started (off-tracers) or stalled (wake-up tracers) in one of the short
 * code paths, no entry of it ran code that loops on purpose, and @env is
 * not bare metal. For TRACE_EMU_UNKNOWN the verdict is conditional: the
 * sentence says "if this trace was taken under emulation".
 */
void trace_emu_judge(const struct trace_latency *t, enum trace_emu_env env,
		     struct trace_emu_verdict *out);

/**
 * trace_emu_sentence - the verdict in words, one paragraph ending in '\n'
 * @long_form: true for the viewer's header and `trace explain` (what it
 *             means and what to do), false for a table cell (one sentence)
 *
 * Appends nothing when !v->likely. Returns 0 or -ENOMEM.
 */
int trace_emu_sentence(const struct trace_emu_verdict *v, enum trace_emu_env env,
		       bool long_form, struct rt_buf *out);

#endif
