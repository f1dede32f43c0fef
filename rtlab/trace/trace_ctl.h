/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_ctl: control of one ftrace tracer through libtracefs.
 *
 * It answers "which tracers does this kernel have, and where do I get the
 * missing ones" (the kernel option and the bundled kernel that has it), and
 * runs one tracer: select it, switch options/function-trace, set
 * tracing_thresh, reset and read tracing_max_latency, start, stop, read the
 * `trace` file.
 *
 * A tracer runs in a private instance "rtlab-<lab>-<pid>" when the kernel
 * lets instances use it (the instance's own available_tracers lists it);
 * otherwise, as for the latency tracers in many kernels, it runs at the top
 * level, and every top-level knob it writes goes through the undo journal
 * first. trace_ctl_destroy() puts the top-level knobs back itself; the
 * journal is the safety net for a killed run.
 *
 * Instances left by killed runs ("rtlab-...-<pid>" whose pid is dead) are
 * removed by trace_ctl_sweep_stale(), which trace_ctl_new() calls first.
 */
#ifndef RTLAB_TRACE_TRACE_CTL_H
#define RTLAB_TRACE_TRACE_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct rt_journal;
struct trace_ctl;

/* The kernels rtlab bundles (DESIGN.md, kernel-patches/). */
#define TRACE_KERNEL_STOCK	0x1u	/* Debian linux-image-amd64 */
#define TRACE_KERNEL_RT		0x2u	/* Debian linux-image-rt-amd64 */
#define TRACE_KERNEL_LAB	0x4u	/* rtlab's own 6.12 PREEMPT_RT build */

enum trace_tracer_kind {
	TRACE_TRACER_OFF,	/* irqsoff, preemptoff, preemptirqsoff */
	TRACE_TRACER_WAKEUP,	/* wakeup, wakeup_rt, wakeup_dl */
	TRACE_TRACER_MEASURE,	/* timerlat, osnoise, hwlat: make their own load */
	TRACE_TRACER_FUNCTION,	/* function, function_graph */
};

struct trace_tracer_info {
	const char *name;	/* static */
	enum trace_tracer_kind kind;
	bool latency_format;	/* `trace` has the latency header trace_latency parses */
	const char *config;	/* static; the kernel option(s) that provide it */
	unsigned int bundled;	/* TRACE_KERNEL_* bits: measured to have it */
	bool present;		/* filled by trace_ctl_probe_tracers() */
};

#define TRACE_CTL_NTRACERS 11

/**
 * trace_ctl_tracer_lookup - the static facts about a tracer of interest
 * Returns a pointer into a static table (present is false there), or NULL
 * for a tracer rtlab does not know.
 */
const struct trace_tracer_info *trace_ctl_tracer_lookup(const char *name);

/**
 * trace_ctl_bundled_str - "rt, lab" for TRACE_KERNEL_* bits, "none" for 0
 * Returns a static string.
 */
const char *trace_ctl_bundled_str(unsigned int bundled);

/**
 * trace_ctl_probe_tracers - which tracers of interest this kernel offers
 * @out: TRACE_CTL_NTRACERS entries, filled (the caller's storage)
 * @available: if not NULL, set to every name in available_tracers, a list
 *             the caller frees with tracefs_list_free()
 * @cause: on failure, why
 *
 * Returns 0, or a negative errno when tracefs is not mounted or readable.
 */
int trace_ctl_probe_tracers(struct trace_tracer_info out[TRACE_CTL_NTRACERS],
			    char ***available, char **cause);

/**
 * trace_ctl_sweep_stale - remove rtlab instances of dead processes
 * @removed: if not NULL, the number removed
 * @cause: on failure, why
 *
 * An instance named "rtlab-<pid>" or "rtlab-<anything>-<pid>" is removed
 * when no process <pid> exists. Ours and live ones are left alone.
 * Returns 0 or the first negative errno (the sweep goes on past errors).
 */
int trace_ctl_sweep_stale(unsigned int *removed, char **cause);

/* Flags for trace_ctl_new(). */
#define TRACE_CTL_TOP_LEVEL	0x1u	/* do not try an instance */
/*
 * Write options/function-trace 0 before selecting the tracer. Switching it
 * off afterwards patches every traced function's entry twice (on, then off);
 * under QEMU's TCG with more than one vCPU that patching has crashed the
 * classroom VM's kernel, so ask for it up front when it is to be off.
 */
#define TRACE_CTL_NO_FUNCTION_TRACE	0x2u

/**
 * trace_ctl_new - prepare to run @tracer
 * @j: the process's undo journal (borrowed; must stay open until destroy)
 * @lab: short name for the instance, "rtlab-<lab>-<pid>"; NULL gives "rtlab-<pid>"
 * @tracer: a name in available_tracers
 * @flags: TRACE_CTL_* bits
 * @cause: on failure, why
 *
 * Sweeps stale instances, creates the private instance through the journal
 * and keeps it if @tracer can run there; otherwise removes it again and
 * works at the top level. Selects @tracer (which clears its buffer) with
 * tracing off (and, with TRACE_CTL_NO_FUNCTION_TRACE, function tracing off
 * first). Returns the controller or NULL with errno set (ENOENT: the
 * tracer is not available; EBUSY: a top-level tracer other than nop is
 * already selected, i.e. someone else is tracing). Undo and release with
 * trace_ctl_destroy().
 */
struct trace_ctl *trace_ctl_new(struct rt_journal *j, const char *lab, const char *tracer,
				unsigned int flags, char **cause);

/* Is the controller working at the top level (not in an instance)? */
bool trace_ctl_is_top_level(const struct trace_ctl *c);

/* The instance name, or NULL at the top level. Valid until destroy. */
const char *trace_ctl_instance_name(const struct trace_ctl *c);

/* The selected tracer. Valid until destroy. */
const char *trace_ctl_tracer(const struct trace_ctl *c);

/* Each of these returns 0 or a negative errno with @cause set. */
int trace_ctl_set_function_trace(struct trace_ctl *c, bool on, char **cause);
int trace_ctl_set_thresh(struct trace_ctl *c, unsigned long long us, char **cause);
int trace_ctl_reset_max_latency(struct trace_ctl *c, char **cause);
int trace_ctl_max_latency(struct trace_ctl *c, unsigned long long *us, char **cause);
int trace_ctl_start(struct trace_ctl *c, char **cause);
/*
 * trace_ctl_stop - tracing off; for a latency tracer also tracing_thresh so
 * high that the kept trace and tracing_max_latency stay as they are (one in
 * an instance otherwise goes on replacing them). trace_ctl_destroy() puts
 * tracing_thresh back; trace_ctl_start() after a stop needs a new
 * trace_ctl_set_thresh().
 */
int trace_ctl_stop(struct trace_ctl *c, char **cause);

/**
 * trace_ctl_read_trace - the `trace` file as text
 * @len: if not NULL, its length
 *
 * Returns a string the caller frees, or NULL with errno set and @cause.
 */
char *trace_ctl_read_trace(struct trace_ctl *c, size_t *len, char **cause);

/**
 * trace_ctl_destroy - stop tracing and undo every change @c made to the host
 *
 * In an instance: tracing off, tracer nop, the instance removed. At the top
 * level: each knob written is set back to the value it had before, in
 * reverse order (the journal entries stay; replaying them later writes the
 * same values). @c stays allocated (release it with trace_ctl_free()), and
 * a second destroy does nothing, as with tracefs_instance_destroy() and
 * tracefs_instance_free(). NULL does nothing. Returns 0 or the first
 * negative errno.
 */
int trace_ctl_destroy(struct trace_ctl *c);

/*
 * trace_ctl_free - free @c; NULL does nothing. Changes not undone by
 * trace_ctl_destroy() stay on the host (the journal undoes them later), so
 * call that first.
 */
void trace_ctl_free(struct trace_ctl *c);

#endif
