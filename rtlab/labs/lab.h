/*
 * lab: how a lab plugs into rtlab.
 *
 * Each lab is one `const struct lab_ops` in rtlab/labs/lab_<name>.c (or, for a
 * lab whose engine has not landed yet, a descriptor in registry.c) plus one
 * line in lab_table[]. The descriptor says what the lab needs from the
 * machine to run live; `rtlab doctor` measures the machine and decides the
 * tier per lab from these needs, so no lab decides its tier by assumption.
 */
#ifndef RTLAB_LABS_LAB_H
#define RTLAB_LABS_LAB_H

#include <stdbool.h>

struct rt_buf;
struct lab_ctx;
struct lab_result;
struct grade_report;
struct rt_sink;

/* What a lab may need from the host. Measured by rtlab doctor. */
enum lab_need {
	LAB_NEED_RT_PRIO = 1u << 0,	/* SCHED_FIFO/RR: root or CAP_SYS_NICE, RT runtime > 0 */
	LAB_NEED_TRACE_EVENTS = 1u << 1, /* tracefs mounted and writable, sched_waking/sched_switch */
	LAB_NEED_LAT_TRACERS = 1u << 2,	/* irqsoff, preemptoff, wakeup_rt in available_tracers */
	LAB_NEED_QEMU = 1u << 3,	/* qemu-system-x86_64 runs */
	LAB_NEED_KVM = 1u << 4,		/* a KVM guest actually runs (probed) */
	LAB_NEED_NETNS = 1u << 5,	/* CAP_NET_ADMIN and network namespaces work */
	LAB_NEED_PREEMPT_RT = 1u << 6,	/* the running kernel is PREEMPT_RT */
};
#define LAB_NEED_COUNT 7

enum lab_state {
	LAB_STATE_PLANNED,	/* described, engine not written yet */
	LAB_STATE_READY,	/* run() works */
};

struct lab_ops {
	const char *name;	/* stable id for CLI and JSON, e.g. "latency" */
	const char *title;	/* one line for menus */
	const char *summary;	/* one or two sentences for menus and doctor */
	int lesson;		/* number of the lesson that teaches it, 0 if none */
	enum lab_state state;
	unsigned int issue;	/* tracker issue that builds it, while planned */
	unsigned int needs;	/* LAB_NEED_* required for the host tier */
	unsigned int wants;	/* LAB_NEED_* that make the host tier better; missing ones degrade it */
	bool vm_live;		/* runs live inside the classroom VM */
	bool sim;		/* has a simulated form */
	bool sim_only;		/* the hardware it is about is absent everywhere (ARMv5) */
	int (*describe)(struct rt_buf *md);
	int (*check_capabilities)(struct lab_ctx *ctx, char **cause);
	int (*run)(struct lab_ctx *ctx, const struct rt_sink *sink, struct lab_result *res);
	int (*grade)(const struct lab_result *res, struct grade_report *rep);
};

/* NULL-terminated, in teaching order. */
extern const struct lab_ops *const lab_table[];

/* The lab called @name, or NULL. */
const struct lab_ops *lab_find(const char *name);

/* "planned" or "ready" */
const char *lab_state_name(enum lab_state state);

#endif
