/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_task: what the kernel says of one thread's scheduling, from
 * /proc/PID/task/TID/stat, so that a knob rtlab sets on another process's
 * thread (a QEMU vCPU's policy and priority) is verified from the kernel's
 * side, not taken from the system call's return; and how long it has waited
 * for a CPU, from .../schedstat (the hypervisor lab's starvation watchdog).
 */
#ifndef RTLAB_CORE_RT_TASK_H
#define RTLAB_CORE_RT_TASK_H

#include <stddef.h>
#include <sys/types.h>

/* One thread's scheduling as /proc shows it. */
struct rt_task_sched {
	char state;		/* R, S, D, ... */
	int policy;		/* SCHED_OTHER, SCHED_FIFO, ... (field 41) */
	unsigned int rt_priority;	/* 0, or 1..99 for the RT policies (field 40) */
	int processor;		/* the CPU it last ran on (field 39) */
	unsigned long long utime, stime;	/* clock ticks in user and kernel mode
						 * (fields 14, 15; a process's: all its threads') */
};

/**
 * rt_task_stat_parse - the scheduling fields of a stat line
 * @text: the contents of a /proc/.../stat file, @len bytes (need not end in NUL)
 *
 * The command name (field 2) may hold spaces and parentheses: fields are
 * counted after its last ')'. Returns 0, or -EINVAL for text that is not a
 * stat line with at least 41 fields.
 */
int rt_task_stat_parse(const char *text, size_t len, struct rt_task_sched *out);

/**
 * rt_task_sched_read - rt_task_stat_parse() of /proc/@pid/task/@tid/stat (of
 * /proc/@pid/stat, the whole process, when @tid is 0)
 *
 * Returns 0, -ENOENT with @cause when the thread is gone, or another
 * negative errno with @cause.
 */
int rt_task_sched_read(pid_t pid, pid_t tid, struct rt_task_sched *out, char **cause);

/**
 * rt_task_process_cpu_ms - the CPU time process @pid has used, all its threads
 * together (/proc/@pid/stat, user plus system), in milliseconds
 *
 * Returns 0, -ENOENT with @cause when it is gone, or another negative errno.
 */
int rt_task_process_cpu_ms(pid_t pid, unsigned long long *ms, char **cause);

/**
 * rt_task_schedstat_parse - a /proc/.../schedstat line "exec_ns wait_ns slices"
 * @exec_ns: the time the thread ran; @wait_ns: the time it waited runnable on a
 *           run queue (what a starved thread accumulates)
 *
 * @text ends in NUL. Returns 0, or -EINVAL.
 */
int rt_task_schedstat_parse(const char *text, unsigned long long *exec_ns,
			    unsigned long long *wait_ns);

/* rt_task_schedstat_read - rt_task_schedstat_parse() of /proc/@pid/task/@tid/schedstat */
int rt_task_schedstat_read(pid_t pid, pid_t tid, unsigned long long *exec_ns,
			   unsigned long long *wait_ns, char **cause);

#endif
