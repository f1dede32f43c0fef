/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_hypervisor_stream: the guest's side of the hypervisor lab's live part. The
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
#include <stddef.h>
#include <stdint.h>

struct hypervisor_stream_opts {
	int fd;				/* where the frames go (blocking writes) */
	int policy;			/* SCHED_OTHER, SCHED_FIFO or SCHED_RR */
	int priority;			/* 1..99 for FIFO/RR, else 0 */
	unsigned int period_us;		/* the probe's interval, >= 100 */
	unsigned int duration_s;	/* 1 .. 3600 */
	unsigned int bucket_us;		/* histogram bucket width, >= 1 */
	unsigned int nbuckets;		/* 1 .. 100000; later samples count as overflows */
	bool mlock;			/* lock memory (as root in the guest) */
	volatile sig_atomic_t *stop;	/* set by a signal handler: BYE with "stopped" */
	uint32_t seq;			/* the first frame's sequence number (0, or where
					 * the previous run of one stream left off) */
};

/* What was sent, for the caller's message. */
struct hypervisor_stream_sent {
	uint64_t samples, frames, seconds;
	uint32_t next_seq;		/* the number the next frame on this stream takes */
};

/**
 * hypervisor_stream_run - measure and stream until the duration has passed or *stop
 *
 * Returns 0; a negative errno with @cause when the probe could not start
 * (a BYE with reason "error" is still sent, so the host knows) or a write
 * failed (the host went away).
 */
int hypervisor_stream_run(const struct hypervisor_stream_opts *o,
			  struct hypervisor_stream_sent *sent, char **cause);

/*
 * Serving the host: `rtlab vm stream --serve` keeps the port open and runs
 * the probe once for every command line the host writes to it, with the
 * guest workload the command names, so one boot carries every scenario of
 * the lab and the host sets its own knobs between them. A command is one
 * line of ASCII words:
 *
 *   run policy=fifo|rr|other prio=N period=US duration=S load=none|batch|disk|batch+disk
 *   quit
 *
 * Each run answers with one whole stream (HELLO .. BYE), sequence numbers
 * going on from the run before. "batch" is a busy loop on every guest CPU
 * (the latency lab's cpu generator, SCHED_OTHER); "disk" writes 64 KiB
 * blocks with O_DIRECT and fdatasync to the scratch disk (the virtio-blk
 * device whose serial is HV_SCRATCH_SERIAL, served on the host by QEMU's
 * I/O thread), so the guest waits on I/O the host must serve.
 */
#define HV_SCRATCH_SERIAL "rtlab-scratch"
#define HV_LOAD_BATCH 1u
#define HV_LOAD_DISK 2u
#define HV_SERVE_LINE_MAX 256u
#define HV_SERVE_BUCKETS 100000u	/* 1 us each: 100 ms; later samples are overflows */

struct hypervisor_serve_cmd {
	bool quit;
	int policy, priority;
	unsigned int period_us, duration_s;
	unsigned int load;		/* HV_LOAD_* bits */
};

/**
 * hypervisor_serve_parse - one command line (without its newline)
 *
 * Returns 0, or -EINVAL with @cause naming the word that is wrong. Every
 * word of a run is needed once; prio is 0 for other and 1..99 otherwise.
 */
int hypervisor_serve_parse(const char *line, struct hypervisor_serve_cmd *cmd, char **cause);

/* hypervisor_serve_format - the line (with its newline) for @cmd into @buf of @size. */
int hypervisor_serve_format(const struct hypervisor_serve_cmd *cmd, char *buf, size_t size);

struct hypervisor_serve_opts {
	int fd;				/* the port, open for reading and writing */
	const char *disk;		/* the scratch disk's device, or NULL (a run asking
					 * for "disk" then ends with BYE error) */
	bool mlock;
	volatile sig_atomic_t *stop;
	unsigned int idle_s;		/* give up after this long without a command */
};

/**
 * hypervisor_stream_serve - answer the host's commands on @o->fd until "quit", end of
 * file, the idle bound or *stop
 * @runs: how many runs were streamed
 *
 * A command that does not parse is answered with a HELLO and a BYE error,
 * and serving goes on. Returns 0, -ETIMEDOUT (idle), or a negative errno
 * with @cause when the port failed.
 */
int hypervisor_stream_serve(const struct hypervisor_serve_opts *o, unsigned int *runs,
			    char **cause);

/* hypervisor_scratch_device - /dev/vdX of the disk whose serial is HV_SCRATCH_SERIAL, or NULL */
char *hypervisor_scratch_device(void);

/*
 * hypervisor_port_device - /dev/vportNpM of the virtio-serial port named @name (its
 * /sys/class/virtio-ports/.../name), or NULL with errno ENOENT; caller frees
 */
char *hypervisor_port_device(const char *name);

/* hypervisor_load_name - "none", "batch", "disk" or "batch+disk" for HV_LOAD_* bits */
const char *hypervisor_load_name(unsigned int load);

#endif
