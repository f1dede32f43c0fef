/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_load: bounded background load for latency experiments.
 *
 * Each named generator runs in its own process tree: rt_load_start() forks
 * a leader per generator, and the leader forks the workers that make the
 * load (busy loops, memcpy, fsync'd writes, socket ping-pong, a fork storm,
 * page faults, or stress-ng when it is installed). Processes rather than
 * threads, so that load can never hold a lock or corrupt memory the caller
 * needs, and so that stopping is a matter of pids.
 *
 * Bounds, in layers:
 *   - every generator stops by itself after seconds_max (the leader's
 *     deadline), and each worker has an alarm a little later in case the
 *     leader is stuck;
 *   - rt_load_stop() ends a generator and reaps it before returning; the
 *     leader is a child subreaper and reaps its whole tree first, so when
 *     rt_load_stop() returns no process of that generator is left;
 *   - the caller's normal exit (atexit) stops what is still running, and if
 *     the caller dies abruptly a lifeline pipe reaches end-of-file, which
 *     the leader takes as the order to stop; workers die with their parent
 *     (PR_SET_PDEATHSIG);
 *   - fork storms and message pairs have fixed process counts; memory and
 *     file sizes are fixed.
 * Load processes always run SCHED_OTHER, whatever the calling thread runs,
 * so they cannot starve the machine; the io generator writes only inside
 * a private temp dir under $TMPDIR (default /var/tmp), removed on stop.
 *
 * Start load before the latency probe: fork() shares pages copy-on-write,
 * and the caller's first write to each shared page afterwards faults.
 */
#ifndef RTLAB_CORE_RT_LOAD_H
#define RTLAB_CORE_RT_LOAD_H

#include <sys/types.h>

#define RT_LOAD_MAX_SECONDS 86400u
#define RT_LOAD_MEM_BYTES (64u << 20)	/* the mem generator's two buffers together */
#define RT_LOAD_IO_FILE_BYTES (32u << 20)
#define RT_LOAD_FORK_LIVE 16u		/* most live children of the fork storm */
#define RT_LOAD_MSG_MAX_PAIRS 8u
#define RT_LOAD_FAULT_BYTES (4u << 20)	/* mapped, touched and unmapped per round */

struct rt_load;

/**
 * rt_load_start - start the generators named in @names
 * @names: comma-separated, e.g. "cpu,io"; see rt_load_names()
 * @seconds_max: hard limit, 1 .. RT_LOAD_MAX_SECONDS; each generator ends by then
 * @cause: on failure, why (caller frees); for an unknown name it lists the valid ones
 *
 * Returns the running load, or NULL with errno set: EINVAL (unknown or
 * repeated name, bad limit), ENOENT (a stress-* generator without
 * stress-ng installed), or a system error. Nothing is left running on
 * failure. Release with rt_load_free().
 */
struct rt_load *rt_load_start(const char *names, unsigned int seconds_max, char **cause);

/**
 * rt_load_stop - end every generator of @l and remove its temp files
 *
 * Returns once every process of @l is gone. A loaded machine only makes
 * that take longer; a leader that cannot run at all (stopped) is killed by
 * process group after 30 s. Calling it again does nothing. Returns 0, or
 * -ETIMEDOUT if a leader had to be killed, by stop or by its own backstop
 * alarm (still running a minute past its time limit).
 */
int rt_load_stop(struct rt_load *l);

/* rt_load_free - stop @l if needed and release it; NULL does nothing. */
void rt_load_free(struct rt_load *l);

/* rt_load_names - the valid names, comma-separated, for help text and messages. */
const char *rt_load_names(void);

/* rt_load_describe - one line about generator @name, or NULL if there is none. */
const char *rt_load_describe(const char *name);

/* rt_load_count - how many generators @l started. */
unsigned int rt_load_count(const struct rt_load *l);

/* rt_load_name - the name of generator @i of @l, or NULL. */
const char *rt_load_name(const struct rt_load *l, unsigned int i);

/*
 * rt_load_pid - the leader pid of generator @i (also its process group id),
 * or 0 once it has been reaped.
 */
pid_t rt_load_pid(const struct rt_load *l, unsigned int i);

/* rt_load_dir - generator @i's private temp dir, or NULL if it has none. */
const char *rt_load_dir(const struct rt_load *l, unsigned int i);

/*
 * rt_load_alive - how many generators of @l are still running; reaps the
 * leaders that ended on their own (time limit).
 */
unsigned int rt_load_alive(struct rt_load *l);

#endif
