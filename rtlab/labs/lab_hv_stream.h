/*
 * lab_hv_stream: the guest's side of the hypervisor lab's live part. The
 * latency probe (core/rt_probe) runs one measuring thread at the policy and
 * priority the lab chose for the guest, and its results leave through a
 * file descriptor (the virtio-serial port rtlab.probe in the guest, a pipe
 * in the tests) as rt_hvstream frames: HELLO first, one SUMMARY per second
 * of the probe's timeline, the histogram in HIST frames and BYE at the end.
 */
#ifndef RTLAB_LABS_LAB_HV_STREAM_H
#define RTLAB_LABS_LAB_HV_STREAM_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

struct hv_stream_opts {
	int fd;				/* where the frames go (blocking writes) */
	int policy;			/* SCHED_OTHER, SCHED_FIFO or SCHED_RR */
	int priority;			/* 1..99 for FIFO/RR, else 0 */
	unsigned int period_us;		/* the probe's interval, >= 100 */
	unsigned int duration_s;	/* 1 .. 3600 */
	unsigned int bucket_us;		/* histogram bucket width, >= 1 */
	unsigned int nbuckets;		/* 1 .. 100000; later samples count as overflows */
	bool mlock;			/* lock memory (as root in the guest) */
	volatile sig_atomic_t *stop;	/* set by a signal handler: BYE with "stopped" */
};

/* What was sent, for the caller's message. */
struct hv_stream_sent {
	uint64_t samples, frames, seconds;
};

/**
 * hv_stream_run - measure and stream until the duration has passed or *stop
 *
 * Returns 0; a negative errno with @cause when the probe could not start
 * (a BYE with reason "error" is still sent, so the host knows) or a write
 * failed (the host went away).
 */
int hv_stream_run(const struct hv_stream_opts *o, struct hv_stream_sent *sent, char **cause);

#endif
