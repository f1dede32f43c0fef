/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_cookie: the cookie-protocol lab's engine on real threads (lesson 10,
 * labs/cookie/README.md). Diners share one plate of cookies through a
 * protocol:
 *
 *   uni-directional  the plate passed round in seat order through a
 *                    wait-free SPSC ck_ring into each seat's inbox
 *   ticket           ck_spinlock_ticket around take + put (first come,
 *                    first served)
 *   greedy           ck_spinlock_fas around take + put (whoever grabs)
 *   broken           take + put with nothing around them (racy)
 *
 * and the three priority protocols, which are a different experiment: a
 * low-priority holder, a medium-priority CPU hog and a high-priority
 * waiter at SCHED_FIFO, pinned to one CPU, sharing the plate through a
 * PTHREAD_PRIO_INHERIT mutex, a plain mutex, the ticket lock (which
 * spins for ever behind a preempted holder until the watchdog ends it) or a
 * PTHREAD_PRIO_PROTECT mutex whose ceiling is the high diner's priority.
 *
 * Counting is exact: every cookie has a serial, every take is tallied,
 * and after the diners are joined the tally says which cookies were eaten
 * twice and which never (doc: labs/cookie/README.md "What is counted").
 */
#ifndef RTLAB_LABS_LAB_COOKIE_H
#define RTLAB_LABS_LAB_COOKIE_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

struct rt_hist;
struct rt_journal;

#define COOKIE_DINERS_MAX 64u
#define COOKIE_COOKIES_MAX 100000000ull	/* the tally: 2 bytes a cookie */
#define COOKIE_HIST_US 2000u		/* hand-over histogram: 1 us buckets to 2 ms */
#define COOKIE_LIVE_LAT 16u		/* live hand-over buckets: [64 ns << i, 64 ns << (i + 1)) */

enum cookie_protocol {
	COOKIE_UNI,
	COOKIE_TICKET,
	COOKIE_GREEDY,
	COOKIE_BROKEN,
	COOKIE_PRIO_INHERIT,
	COOKIE_PRIO_PLAIN,
	COOKIE_PRIO_TICKET,
	COOKIE_PRIO_CEILING,
	COOKIE_NPROTOCOLS
};

/* "uni-directional", "ticket"...; NULL-terminated (an option's words). */
extern const char *const cookie_protocol_names[COOKIE_NPROTOCOLS + 1];

static inline bool cookie_protocol_is_prio(enum cookie_protocol p)
{
	return p >= COOKIE_PRIO_INHERIT;
}

/* What a screen sees while the table runs: copied by the engine, under @lock. */
struct cookie_live {
	pthread_mutex_t lock;
	int protocol;
	unsigned int diners;
	unsigned int holder;		/* seat holding the plate last seen, or diners */
	uint64_t eaten[COOKIE_DINERS_MAX];
	uint64_t produced;
	uint64_t elapsed_ns;
	uint64_t lat[COOKIE_LIVE_LAT];	/* hand-overs by time, the last bucket open */
	/* priority protocols */
	uint64_t high_waits, wait_max_ns, hog_bursts;
	bool watchdog;
};

struct cookie_table_opts {
	enum cookie_protocol protocol;	/* one of the four table protocols */
	unsigned int diners;		/* 2 .. COOKIE_DINERS_MAX */
	uint64_t cookies;		/* stop after this many are baked, 2 .. COOKIE_COOKIES_MAX */
	uint64_t duration_ns;		/* or after this long; 0: no time limit */
	const volatile sig_atomic_t *stop;	/* or when set; may be NULL */
	struct cookie_live *live;	/* published every ~50 ms; may be NULL */
};

struct cookie_table_result {
	uint64_t produced;		/* cookies put on the plate, the first included */
	uint64_t consumed;		/* takes that ate a cookie, duplicates included */
	uint64_t lost;			/* produced, never eaten, not the one left */
	uint64_t duplicated;		/* takes of a cookie already eaten */
	uint64_t left;			/* 1 when the plate's last cookie was not eaten */
	uint64_t eaten[COOKIE_DINERS_MAX];
	uint64_t waits_max_ns[COOKIE_DINERS_MAX];	/* longest wait for the plate per diner */
	uint64_t handovers;
	double elapsed_s;
	double throughput_hz;		/* consumed / elapsed */
	double fairness;		/* Jain's index of the diners' shares */
	struct rt_hist *handover;	/* owned: plate released -> next holder has it, us */
};

/**
 * cookie_table_run - diners share a plate by a protocol, on real threads
 * @o: the protocol (COOKIE_UNI .. COOKIE_BROKEN), diners, limits
 * @r: filled; release with cookie_table_result_fini()
 *
 * Returns 0, -EINVAL (a priority protocol, bad limits) or -ENOMEM /
 * another errno (threads) with @cause.
 */
int cookie_table_run(const struct cookie_table_opts *o, struct cookie_table_result *r,
		     char **cause);
void cookie_table_result_fini(struct cookie_table_result *r);

/* cookie_jain - Jain's fairness index of @n shares: (sum x)^2 / (n sum x^2), 0 when all are 0 */
double cookie_jain(const uint64_t *x, unsigned int n);

struct cookie_prio_opts {
	enum cookie_protocol protocol;	/* COOKIE_PRIO_INHERIT .. COOKIE_PRIO_CEILING */
	uint64_t duration_ns;		/* how long the three threads run */
	int cpu;			/* the CPU all of them share; -1: the last one online */
	uint64_t watchdog_ns;		/* the high waiter spun this long: end the run */
	uint64_t hold_ns;		/* the low holder's time with the plate */
	uint64_t burst_ns;		/* the hog's CPU burst */
	struct rt_journal *journal;	/* priority changes go through it; may be NULL */
	const volatile sig_atomic_t *stop;
	struct cookie_live *live;
};

struct cookie_prio_result {
	uint64_t high_waits;		/* times the high diner took the plate */
	uint64_t wait_max_ns;		/* its longest wait */
	uint64_t wait_sum_ns;
	uint64_t low_holds, hog_bursts;
	bool watchdog_fired;		/* the run was ended by the watchdog */
	uint64_t watchdog_after_ns;	/* how long the high diner had spun then */
	double elapsed_s;
	int cpu;
	struct rt_hist *wait;		/* owned: the high diner's waits, us */
};

/**
 * cookie_prio_can - can this process run the priority protocols?
 *
 * Returns 0 or -EPERM with a cause naming exactly what is missing
 * (SCHED_FIFO refused: root or CAP_SYS_NICE, RLIMIT_RTPRIO).
 */
int cookie_prio_can(char **cause);

/**
 * cookie_prio_run - low holder, medium hog, high waiter at SCHED_FIFO on one CPU
 *
 * Every thread is back at SCHED_OTHER and joined when this returns (the
 * journal restores them too if the process dies on the way). Returns 0,
 * -EPERM (no SCHED_FIFO, see cookie_prio_can()) or another errno with @cause.
 */
int cookie_prio_run(const struct cookie_prio_opts *o, struct cookie_prio_result *r,
		    char **cause);
void cookie_prio_result_fini(struct cookie_prio_result *r);

/* Params of `rtlab lab run cookie` (lab_cookie.c). */
struct cookie_params {
	int protocol;			/* enum cookie_protocol */
	bool protocol_given;		/* --protocol: run that one only */
	unsigned int diners;
	unsigned int duration_ms;
	uint64_t cookies;
};

#endif
