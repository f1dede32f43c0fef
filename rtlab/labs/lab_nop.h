/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_nop: the Node Order Protocol lab's parameters and live picture,
 * shared by the lab (labs/lab_nop.c) and its screen (ui/ui_lab_nop.c).
 */
#ifndef RTLAB_LABS_LAB_NOP_H
#define RTLAB_LABS_LAB_NOP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim/sim_nop.h"

enum nop_medium { NOP_MEDIUM_SIM, NOP_MEDIUM_NETNS };
enum nop_proto_sel { NOP_SEL_NOP, NOP_SEL_TDMA, NOP_SEL_BOTH };
/* Who injects skip, corrupt and late on the real medium: rtlab's order to the node, tc netem
 * on the node's veth, or both (each such fault twice, side by side). */
enum nop_inject { NOP_INJECT_RTLAB, NOP_INJECT_NETEM, NOP_INJECT_BOTH };

struct nop_params {
	int medium;			/* enum nop_medium */
	int protocol;			/* enum nop_proto_sel */
	unsigned int nodes;		/* 2 .. SIM_NOP_NODES_MAX */
	unsigned int load_pct;		/* 0: the lesson's frames, repeated; else random data */
	unsigned int jitter_us;		/* processing jitter on top of the 5 us gap (NOP) */
	unsigned int duration_ms;	/* bus time to simulate, or to run (netns) */
	struct sim_nop_fault faults[SIM_NOP_FAULTS_MAX];
	unsigned int nfaults;
	bool faults_given;		/* --fault given (else the default crash@1ms:1) */
	int inject;			/* enum nop_inject (netns only) */
};

/* nop_params_init - the defaults: both protocols, the lesson's 4 nodes, a crash at 1 ms */
void nop_params_init(struct nop_params *p);

/**
 * nop_fault_parse - one --fault value: KIND@TIME[:NODE] or "none"
 * @p: receives the fault (or loses every fault for "none")
 *
 * TIME is a number with ns, us, ms (the default) or s. NODE defaults to 1.
 * Returns 0 or -EINVAL with @cause.
 */
int nop_fault_parse(struct nop_params *p, const char *value, char **cause);

/**
 * nop_scenario - the model's scenario for @p and @protocol into @sc
 * @faults: storage for the faults that apply (a drift only to TDMA), sorted
 *
 * Returns 0.
 */
int nop_scenario(const struct nop_params *p, enum sim_nop_protocol protocol,
		 struct sim_nop_scenario *sc, struct sim_nop_fault *faults);

/* The last bus events, for a screen's timeline. */
#define NOP_LIVE_EVENTS 256u

/* What a screen draws while a run goes on: written by the run, read under @lock. */
struct nop_live {
	pthread_mutex_t lock;
	bool lock_ready;		/* the screen initialised @lock */
	int protocol;			/* simulating now, -1 before the first */
	uint32_t nodes;
	uint64_t members;
	uint64_t counters[SIM_NOP_NCOUNTERS];
	struct sim_event ev[NOP_LIVE_EVENTS];	/* a ring of the newest */
	unsigned int nev, head;		/* events kept, index of the oldest */
	uint64_t steps;
	/* Set by the screen before a run, read by the lab: */
	const struct nop_params *params;	/* the screen's settings when the run has none */
	unsigned int pace;		/* wall time per bus time (30: 100 ms take 3 s); 0 flat out */
};

#endif /* RTLAB_LABS_LAB_NOP_H */
