/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_preempt: a PREEMPT_DYNAMIC kernel's preemption model, read and
 * switched at run time through debugfs sched/preempt.
 *
 * Such a kernel (uname -v says PREEMPT_DYNAMIC) is built with every model
 * and chooses one at boot (preempt=); as root it can switch between them
 * later by writing "none", "voluntary", "full" or "lazy" to
 * /sys/kernel/debug/sched/preempt, which reads back the models it offers
 * with the active one in parentheses: "none (voluntary) full lazy". That
 * makes the same kernel, on the same hardware, a live comparison of the
 * models. The switch goes through the undo journal, so every way a run
 * ends puts the old model back.
 *
 * Where it can fail, each in its own words (rt_preempt_read()): a kernel
 * without PREEMPT_DYNAMIC (the model is fixed at build time), debugfs not
 * mounted, no sched/preempt in it, a read or a write the kernel refuses
 * (kernel lockdown restricts debugfs even for root). Every path lies below
 * a root prefix ("" on the live system), so tests use a fixture tree.
 */
#ifndef RTLAB_CORE_RT_PREEMPT_H
#define RTLAB_CORE_RT_PREEMPT_H

#include <stdbool.h>

struct rt_journal;

#define RT_PREEMPT_DEBUGFS "/sys/kernel/debug"
#define RT_PREEMPT_FILE "/sys/kernel/debug/sched/preempt"
#define RT_PREEMPT_LOCKDOWN "/sys/kernel/security/lockdown"

/* Where a switch of the model is refused, in the order it is checked. */
enum rt_preempt_stop {
	RT_PREEMPT_OK,			/* the model was read (and, for a switch, written) */
	RT_PREEMPT_NOT_DYNAMIC,		/* the kernel is not PREEMPT_DYNAMIC */
	RT_PREEMPT_NO_DEBUGFS,		/* debugfs is not mounted at /sys/kernel/debug */
	RT_PREEMPT_NO_FILE,		/* no sched/preempt in debugfs */
	RT_PREEMPT_READ_REFUSED,	/* reading sched/preempt failed */
	RT_PREEMPT_UNREADABLE,		/* it was read, but names no active model */
	RT_PREEMPT_WRITE_REFUSED,	/* writing it failed */
};

/* "ok", "not-dynamic", "no-debugfs", "no-file", "read-refused", "unreadable", "write-refused" */
const char *rt_preempt_stop_name(enum rt_preempt_stop s);

/* What sched/preempt says, as far as it could be read. */
struct rt_preempt_state {
	enum rt_preempt_stop stop;	/* RT_PREEMPT_OK when @current is set */
	const char *current;		/* static: "none", "voluntary", "full", "lazy"; or NULL */
	unsigned int offered;		/* bit i: rt_preempt_models[i] is listed */
	int err;			/* the read's or write's -errno; 0 */
};

/* The models, NULL-terminated: "none", "voluntary", "full", "lazy". */
extern const char *const rt_preempt_models[];

/* The static name of model @s (rt_preempt_models[]), or NULL when it is none of them. */
const char *rt_preempt_model(const char *s);

/**
 * rt_preempt_parse - the active model in sched/preempt's text
 * @text: "none (voluntary) full lazy", a newline allowed
 * @offered: if not NULL, receives the listed models as bits of rt_preempt_models[]
 *
 * Returns the static name of the model in parentheses, or NULL. Pure.
 */
const char *rt_preempt_parse(const char *text, unsigned int *offered);

/**
 * rt_preempt_read - read the active model below @root
 * @root: "" for the live system, or a fixture tree holding proc/mounts and
 *        sys/kernel/debug/sched/preempt
 * @dynamic: the kernel is PREEMPT_DYNAMIC (rt_env.preempt_dynamic)
 * @st: filled (the caller's storage)
 * @cause: when it cannot be read, why and where, in words (caller frees)
 *
 * Returns 0 with st->current set, or a negative errno with st->stop saying
 * where it stopped: -ENOTSUP not PREEMPT_DYNAMIC, -ENOENT no debugfs or no
 * sched/preempt, the read's -errno (-EPERM under kernel lockdown), -EINVAL
 * for text naming no model; -ENOMEM.
 */
int rt_preempt_read(const char *root, bool dynamic, struct rt_preempt_state *st,
		    char **cause);

/**
 * rt_preempt_switch - switch to @model through the undo journal
 * @j: the journal; it records the model before the write, so that closing
 *     it, a stop signal, a crash or the next start after a kill writes
 *     that model back
 * @root, @dynamic, @st, @cause: as rt_preempt_read(); st->current is the
 *     model before the switch, also on a refused write
 * @model: "none", "voluntary", "full" or "lazy", one that sched/preempt offers
 *
 * Switching to the model already active writes nothing and journals
 * nothing. Returns 0; -EINVAL for a model the kernel does not offer; the
 * refusals of rt_preempt_read(); or the write's -errno (st->stop
 * RT_PREEMPT_WRITE_REFUSED) with @cause naming the file and what the
 * kernel said.
 */
int rt_preempt_switch(struct rt_journal *j, const char *root, bool dynamic, const char *model,
		      struct rt_preempt_state *st, char **cause);

/**
 * rt_preempt_put_back - write @model back after rt_preempt_switch()
 * @j: the journal the switch went through
 * @root: as rt_preempt_read()
 * @model: the model rt_preempt_switch() found in force
 *
 * Writes without reading first (a switch proved it can), through the
 * journal with @model as its undo too, so a crash meanwhile still ends
 * with @model. Returns 0 or a negative errno with @cause.
 */
int rt_preempt_put_back(struct rt_journal *j, const char *root, const char *model,
			char **cause);

#endif
