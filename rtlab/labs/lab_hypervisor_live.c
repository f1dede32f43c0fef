/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_hypervisor_live: the hypervisor lab's live part (see the header).
 *
 * The run, in order: refuse what cannot work (not root, no journal); note
 * the host's RT throttling file; boot the guest (KVM where a Linux guest
 * boots under it, else multi-threaded TCG) with QMP, the probe's port and
 * the scratch disk on an I/O thread; find QEMU's threads; then for each
 * scenario set the knobs, start the host load, send the guest its command
 * and read its stream until BYE, watching for starvation; put the knobs
 * back; stop the load. The document gets one scenario object per scenario
 * (figures, knobs as read back, the watchdog's verdict) and one histogram.
 */
#include "lab_hypervisor_live.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/rt_env.h"
#include "core/rt_err.h"
#include "core/rt_file.h"
#include "core/rt_hist.h"
#include "core/rt_hvstream.h"
#include "core/rt_journal.h"
#include "core/rt_load.h"
#include "core/rt_log.h"
#include "core/rt_probe.h"
#include "core/rt_result.h"
#include "core/rt_sink.h"
#include "core/rt_task.h"
#include "core/rt_time.h"
#include "labs/lab.h"
#include "labs/lab_hypervisor_stream.h"
#include "qemu/qemu_qmp.h"
#include "qemu/qemu_run.h"

#define HVL_MAX_VCPUS 8u
#define HVL_POLL_MS 100
#define HVL_FIRST_HELLO_MS 120000u	/* boot to the guest's first answer */
#define HVL_RUN_SLACK_MS 60000u		/* past a run's seconds, before giving up on it */
#define HVL_HIST_US 10000u		/* the document's linear region: 10 ms */
#define HVL_GUEST_BUCKETS 100000u	/* what the guest's 1 us histogram may hold */
#define HVL_GUEST_PRIO 80
#define HVL_WATCH_PRIO 99		/* the watchdog's thread: above every vCPU */
#define HVL_PROBE_PERIOD_US 1000u
/*
 * The most samples one SUMMARY frame may count: a frame stands for one second of the
 * probe, which takes one sample a period; twice that leaves room for a guest clock that
 * catches up after a stall.
 */
#define HVL_SECOND_MAX (2u * 1000000u / HVL_PROBE_PERIOD_US)
#define HVL_HALT_POLL "/sys/module/kvm/parameters/halt_poll_ns"
#define HVL_RT_RUNTIME "/proc/sys/kernel/sched_rt_runtime_us"
#define HVL_FAIR_SERVER_DIR "/sys/kernel/debug/sched/fair_server"
#define HVL_FAIR_SERVER HVL_FAIR_SERVER_DIR "/cpu0/runtime"

struct hvl {
	struct lab_ctx *ctx;
	const struct rt_sink *sink;
	const struct hypervisor_params *p;
	struct hypervisor_live *live;			/* ctx->live or NULL */
	struct qemu_session *vm;
	int sock;				/* the probe's port, -1 */
	struct rt_hvstream_dec dec;
	pid_t qemu;
	int vcpu[HVL_MAX_VCPUS];
	size_t nvcpu;
	int iot;				/* the scratch disk's I/O thread, or -1 */
	cpu_set_t all;				/* QEMU's CPUs at start */
	int last_cpu;
	enum qemu_accel accel;
	struct rt_result *res;
	json_t *scens;
	char guest_kernel[RT_HVSTREAM_STR_MAX + 1], guest_preempt[RT_HVSTREAM_STR_MAX + 1];
	bool stopped;
	unsigned int index;			/* scenarios done, for the progress */
	unsigned int total;			/* scenarios in the run */
	const char *name;			/* the scenario running */
	uint64_t overflows;			/* guest samples past its histogram, all runs */
	unsigned int swept;			/* QEMU threads the restore found raised */
	bool guest_ran;				/* a guest run has finished: boot bound over */
	bool raised;				/* this thread at HVL_WATCH_PRIO */
	int own_policy, own_prio;		/* and what it was before */
};

/* What one run of the guest's probe gave. */
struct hvl_run {
	bool hello, bye, error;
	bool bad_summary;			/* a SUMMARY counted more than a second holds */
	uint32_t bye_reason;
	uint64_t samples, sum_ns, min_ns, max_ns, overflows, seconds;
	uint32_t nbuckets;
	uint32_t *counts;			/* the guest's 1 us buckets */
	struct rt_hist *hist;
	uint64_t silent_ms;			/* the longest gap between frames */
	/* The watchdog. */
	bool fired;
	uint64_t fired_after_ms;
	char fired_why[160];
	uint64_t wait_max_ms;			/* the main loop's worst wait in a window */
	uint64_t wall_ms;			/* from the command to BYE, or the probe's run */
	bool restored;				/* the threads read back in the fair class after */
	struct rt_hvstream_stats before;	/* the decoder's counters at the start */
	struct rt_hvstream_stats after;
};

static const char *policy_name(int policy)
{
	return policy == SCHED_FIFO ? "FIFO" : policy == SCHED_RR ? "RR" :
	       policy == SCHED_OTHER ? "OTHER" : "other";
}

static void sched_words(char *buf, size_t size, int policy, int prio)
{
	if (policy == SCHED_OTHER)
		snprintf(buf, size, "OTHER");
	else
		snprintf(buf, size, "%s %d", policy_name(policy), prio);
}

/* ---- The host's RT throttling and KVM's halt polling ------------------------------ */

static char *read_knob(const char *path)
{
	char *text = NULL;
	size_t len;

	if (rt_file_read(path, 4096, &text, &len) < 0)
		return NULL;
	text[strcspn(text, "\n")] = '\0';
	return text;
}

/*
 * Which file bounds FIFO threads here: on 6.12 and later the fair server
 * (debugfs sched/fair_server/cpuN/runtime, ns per period) has replaced the
 * RT class's own sched_rt_runtime_us budget; record the one in force, and
 * its value where the kernel lets us read it.
 */
static int record_throttle(struct hvl *h)
{
	char *rt = read_knob(HVL_RT_RUNTIME);
	int ret = 0;

	if (access(HVL_FAIR_SERVER_DIR, F_OK) == 0) {
		char *fs;
		char why[96];

		errno = 0;
		fs = read_knob(HVL_FAIR_SERVER);
		snprintf(why, sizeof(why), "unreadable here (%s)",
			 errno ? strerror(errno) : "empty");
		ret = rt_result_set_param_str(h->res, "throttle_file", HVL_FAIR_SERVER) ?:
		      rt_result_set_param_str(h->res, "throttle_value", fs ? fs : why) ?:
		      rt_result_add_note(h->res, "RT throttling on this kernel is the fair "
					 "server's (debugfs sched/fair_server/cpuN/runtime, 50 ms "
					 "of every second by default): fair threads, QEMU's main "
					 "loop among them, get that much beside a FIFO vCPU");
		free(fs);
	} else if (rt) {
		ret = rt_result_set_param_str(h->res, "throttle_file", HVL_RT_RUNTIME) ?:
		      rt_result_set_param_str(h->res, "throttle_value", rt);
		if (!ret && !strcmp(rt, "-1"))
			ret = rt_result_add_note(h->res, "RT throttling is off here "
						 "(sched_rt_runtime_us = -1): only rtlab's "
						 "watchdog bounds a starving FIFO vCPU");
	} else {
		ret = rt_result_set_param_str(h->res, "throttle_file", "none found");
	}
	if (!ret && rt)
		ret = rt_result_set_param_str(h->res, "sched_rt_runtime_us", rt);
	free(rt);
	return ret;
}

/*
 * --fair-share-ms: what fair threads keep of every second beside FIFO ones,
 * written to the file in force (every CPU's fair server, or the RT class's
 * own budget), through the journal, and recorded once set.
 */
static int fair_share(struct hvl *h, char **cause)
{
	unsigned int ms = h->p->fair_share_ms;
	char val[32], path[96];
	int ret = 0;

	if (!h->p->fair_share_set)
		return 0;
	if (access(HVL_FAIR_SERVER_DIR, F_OK) == 0) {
		snprintf(val, sizeof(val), "%llu", (unsigned long long)ms * 1000000ull);
		for (int c = 0; !ret && c < CPU_SETSIZE; c++) {
			snprintf(path, sizeof(path), HVL_FAIR_SERVER_DIR "/cpu%d/runtime", c);
			if (access(path, F_OK) == 0)
				ret = rt_journal_write_file(h->ctx->journal, path, val, strlen(val),
							    cause);
		}
	} else {
		/* -1: no RT throttling at all. */
		if (ms)
			snprintf(val, sizeof(val), "%u", (1000u - ms) * 1000u);
		else
			snprintf(val, sizeof(val), "-1");
		ret = rt_journal_write_file(h->ctx->journal, HVL_RT_RUNTIME, val, strlen(val),
					    cause);
	}
	if (ret)
		return ret;
	return rt_result_set_param_num(h->res, "fair_share_ms", ms);
}

static int halt_poll(struct hvl *h, char **cause)
{
	char *cur = read_knob(HVL_HALT_POLL);
	char val[32];
	int ret = 0;

	if (h->accel != QEMU_ACCEL_KVM) {
		free(cur);
		if (h->p->halt_poll_set)
			return rt_result_add_note(h->res, "--halt-poll-ns left alone: the guest "
						  "runs under TCG, where KVM does not poll");
		return 0;
	}
	if (cur)
		ret = rt_result_set_param_str(h->res, "halt_poll_ns_before", cur);
	free(cur);
	if (ret || !h->p->halt_poll_set)
		return ret;
	snprintf(val, sizeof(val), "%u", h->p->halt_poll_ns);
	ret = rt_journal_write_file(h->ctx->journal, HVL_HALT_POLL, val, strlen(val), cause);
	return ret ?: rt_result_set_param_num(h->res, "halt_poll_ns", h->p->halt_poll_ns);
}

/* ---- QEMU's threads ----------------------------------------------------------------- */

static int find_threads(struct hvl *h, char **cause)
{
	struct qemu_qmp *q = qemu_session_qmp(h->vm, cause);
	char *ids[4] = { NULL };
	int tids[4];
	size_t n = 0;
	int ret;

	if (!q)
		return -errno;
	ret = qemu_qmp_vcpu_threads(q, h->vcpu, HVL_MAX_VCPUS, &h->nvcpu, cause);
	if (ret)
		return ret;
	ret = qemu_qmp_iothreads(q, ids, tids, 4, &n, cause);
	if (ret)
		return ret;
	h->iot = -1;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(ids[i], QEMU_IOTHREAD_ID))
			h->iot = tids[i];
		free(ids[i]);
	}
	if (h->iot < 0)
		return rt_err(cause, -ENOENT, "QEMU has no I/O thread %s (query-iothreads)",
			      QEMU_IOTHREAD_ID);
	h->qemu = qemu_session_pid(h->vm);
	if (sched_getaffinity(h->qemu, sizeof(h->all), &h->all) < 0)
		return rt_err(cause, -errno, "QEMU's CPUs: %s", strerror(errno));
	h->last_cpu = -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &h->all))
			h->last_cpu = c;
	return 0;
}

/* One thread to @policy/@prio on @cpus, through the journal; then read back. */
/* The vCPU's priority in @s: its own, or --vcpu-prio; 0 in the fair class. */
static int vcpu_prio(const struct hvl *h, const struct hypervisor_live_scenario *s)
{
	if (!s || s->vcpu_policy == SCHED_OTHER)
		return 0;
	return s->vcpu_prio ? s->vcpu_prio : (int)h->p->vcpu_prio;
}

/* QEMU's main loop and I/O thread's priority in @s: its own, or one above the vCPU. */
static int io_prio(const struct hvl *h, const struct hypervisor_live_scenario *s)
{
	if (!s || s->io_policy == SCHED_OTHER)
		return 0;
	return s->io_above ? vcpu_prio(h, s) + 1 : s->io_prio;
}

static int set_thread(struct hvl *h, pid_t tid, int policy, int prio, const cpu_set_t *cpus,
		      bool *verified, char **cause)
{
	struct rt_task_sched ts;
	cpu_set_t got;
	int ret;

	/* Pinned before it is raised, lowered before it is let go: never FIFO and loose. */
	if (policy == SCHED_OTHER)
		ret = rt_journal_set_sched(h->ctx->journal, tid, policy, prio, cause) ?:
		      rt_journal_set_affinity(h->ctx->journal, tid, cpus, cause);
	else
		ret = rt_journal_set_affinity(h->ctx->journal, tid, cpus, cause) ?:
		      rt_journal_set_sched(h->ctx->journal, tid, policy, prio, cause);
	if (ret)
		return ret;
	if (policy != SCHED_OTHER) {
		/* Threads it starts (QEMU's I/O pool workers) begin in the fair class. */
		struct sched_param sp = { .sched_priority = prio };

		sched_setscheduler(tid, policy | SCHED_RESET_ON_FORK, &sp);
	}
	ret = rt_task_sched_read(h->qemu, tid, &ts, cause);
	if (ret)
		return ret;
	if (ts.policy != policy || (int)ts.rt_priority != prio ||
	    sched_getaffinity(tid, sizeof(got), &got) < 0 || !CPU_EQUAL(&got, cpus))
		*verified = false;
	return 0;
}

/*
 * Any other thread of QEMU's not in the fair class (an I/O pool worker
 * started before its parent was reset) goes there too, on all CPUs,
 * directly: it dies with QEMU, so the journal need not know it. Returns how
 * many.
 */
static unsigned int sweep(struct hvl *h)
{
	char path[64];
	unsigned int n = 0;
	DIR *d;
	struct dirent *e;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)h->qemu);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);
		struct rt_task_sched ts;
		struct sched_param sp = { 0 };

		if (tid <= 0 || rt_task_sched_read(h->qemu, tid, &ts, NULL) ||
		    ts.policy == SCHED_OTHER)
			continue;
		sched_setscheduler(tid, SCHED_OTHER, &sp);
		sched_setaffinity(tid, sizeof(h->all), &h->all);
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

/* Every QEMU thread the scenario names, set and checked; @s NULL: the fair class, all CPUs. */
static int set_knobs(struct hvl *h, const struct hypervisor_live_scenario *s, bool *verified,
		     char **cause)
{
	int vpol = s ? s->vcpu_policy : SCHED_OTHER;
	int vprio = vcpu_prio(h, s);
	int iopol = s ? s->io_policy : SCHED_OTHER;
	int ioprio = io_prio(h, s);
	cpu_set_t one;
	const cpu_set_t *cpus = &h->all;
	int ret = 0;

	*verified = true;
	CPU_ZERO(&one);
	CPU_SET(h->last_cpu, &one);
	if (s && s->pin)
		cpus = &one;
	/*
	 * A raised vCPU goes last, a lowered one first: there is never a moment
	 * with the vCPU at FIFO beside helpers lower than the scenario asks.
	 */
	if (vpol == SCHED_OTHER)
		for (size_t i = 0; !ret && i < h->nvcpu; i++)
			ret = set_thread(h, h->vcpu[i], vpol, vprio, cpus, verified, cause);
	ret = ret ?: set_thread(h, h->qemu, iopol, ioprio, cpus, verified, cause) ?:
	      set_thread(h, h->iot, iopol, ioprio, cpus, verified, cause);
	if (vpol != SCHED_OTHER)
		for (size_t i = 0; !ret && i < h->nvcpu; i++)
			ret = set_thread(h, h->vcpu[i], vpol, vprio, cpus, verified, cause);
	if (!s)
		h->swept += sweep(h);
	return ret;
}

/* The watchdog's way back: the vCPUs to the fair class at once (the journal still holds
 * the state from before the run). */
static void unraise_vcpus(struct hvl *h)
{
	struct sched_param sp = { 0 };

	for (size_t i = 0; i < h->nvcpu; i++)
		sched_setscheduler(h->vcpu[i], SCHED_OTHER, &sp);
}

/* ---- The guest's stream ------------------------------------------------------------- */

/* @len bytes to the guest's port; never SIGPIPE when QEMU has gone. 0 or -EPIPE. */
static int send_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EPIPE;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int connect_probe(struct hvl *h, char **cause)
{
	const char *path = qemu_session_probe_path(h->vm);
	int fd;

	if (!path)
		return rt_err(cause, -EINVAL, "no probe port on this VM");
	fd = qemu_socket_connect(path, 10000, h->ctx->stop, cause);
	if (fd < 0)
		return fd;
	h->sock = fd;
	return 0;
}

/* One line of progress per second of the guest's probe. */
static void say_second(struct hvl *h, const struct rt_hvstream_summary *s)
{
	unsigned int secs = h->p->duration_ms / 1000;
	unsigned int done = s->second + 1 < secs ? s->second + 1 : secs;
	char what[160];

	snprintf(what, sizeof(what), "%s: second %u of %u: %llu samples, avg %llu us, max %llu us",
		 h->name, done, secs, (unsigned long long)s->samples,
		 (unsigned long long)(s->avg_ns / 1000), (unsigned long long)(s->max_ns / 1000));
	rt_sink_progress(h->sink, (h->index * 100 + done * 100 / secs) / h->total, what);
}

static void take_frame(struct hvl_run *r, const struct rt_hvstream_frame *f, struct hvl *h)
{
	switch (f->type) {
	case RT_HVSTREAM_HELLO:
		r->hello = true;
		r->error = !strcmp(f->u.hello.policy, "none");
		r->nbuckets = f->u.hello.nbuckets;
		if (f->u.hello.bucket_us != 1 || r->nbuckets > HVL_GUEST_BUCKETS) {
			r->error = true;
			r->nbuckets = 0;
		}
		free(r->counts);
		r->counts = calloc(r->nbuckets ? r->nbuckets : 1, sizeof(*r->counts));
		if (!r->counts)
			r->error = true;
		snprintf(h->guest_kernel, sizeof(h->guest_kernel), "%s", f->u.hello.kernel);
		snprintf(h->guest_preempt, sizeof(h->guest_preempt), "%s", f->u.hello.preempt);
		break;
	case RT_HVSTREAM_SUMMARY: {
		const struct rt_hvstream_summary *s = &f->u.summary;

		if (!s->samples)
			break;
		/* Bounded by what the frame stands for, so a hostile count cannot loop below. */
		if (s->samples > HVL_SECOND_MAX || s->overflows > s->samples) {
			r->bad_summary = true;
			break;
		}
		if (!r->samples || s->min_ns < r->min_ns)
			r->min_ns = s->min_ns;
		if (s->max_ns > r->max_ns)
			r->max_ns = s->max_ns;
		r->samples += s->samples;
		r->sum_ns += s->avg_ns * s->samples;
		r->overflows += s->overflows;
		h->overflows += s->overflows;
		r->seconds++;
		/* Samples past the guest's buckets are known only by their second's worst. */
		for (uint64_t k = 0; k < s->overflows && r->hist; k++)
			rt_hist_add(r->hist, &(struct rt_sample){ .latency_ns = (int64_t)s->max_ns });
		say_second(h, s);
		if (h->live) {
			__atomic_store_n(&h->live->time_us, (uint64_t)(s->second + 1) * 1000000u,
					 __ATOMIC_RELAXED);
			__atomic_store_n(&h->live->jobs, r->samples, __ATOMIC_RELAXED);
			__atomic_store_n(&h->live->resp_max_us, r->max_ns / 1000, __ATOMIC_RELAXED);
			__atomic_store_n(&h->live->last_max_us, s->max_ns / 1000, __ATOMIC_RELAXED);
			__atomic_store_n(&h->live->avg_us, r->sum_ns / r->samples / 1000,
					 __ATOMIC_RELAXED);
		}
		break;
	}
	case RT_HVSTREAM_HIST:
		for (uint32_t i = 0; r->counts && i < f->u.hist.count; i++)
			if (f->u.hist.first + i < r->nbuckets)
				r->counts[f->u.hist.first + i] += f->u.hist.counts[i];
		break;
	case RT_HVSTREAM_BYE:
		r->bye = true;
		r->bye_reason = f->u.bye.reason;
		if (f->u.bye.reason == RT_HVSTREAM_BYE_ERROR)
			r->error = true;
		break;
	}
}

/* The watchdog, every poll: QEMU's main loop's run-queue wait over the last window. */
struct hvl_watch {
	uint64_t t_ms[HV_WATCH_WINDOW_MS / HVL_POLL_MS + 1];
	unsigned long long wait_ns[HV_WATCH_WINDOW_MS / HVL_POLL_MS + 1];
	unsigned int n, head;
};

static void watch(struct hvl *h, struct hvl_run *r, struct hvl_watch *w, bool act, uint64_t now,
		  uint64_t t0, uint64_t last_frame)
{
	const unsigned int cap = sizeof(w->t_ms) / sizeof(w->t_ms[0]);
	unsigned long long exec_ns, wait_ns;
	unsigned int oldest;

	if (rt_task_schedstat_read(h->qemu, h->qemu, &exec_ns, &wait_ns, NULL))
		return;
	w->t_ms[w->head] = now;
	w->wait_ns[w->head] = wait_ns;
	w->head = (w->head + 1) % cap;
	if (w->n < cap)
		w->n++;
	oldest = (w->head + cap - w->n) % cap;
	if (w->n > 1 && now - w->t_ms[oldest] >= HV_WATCH_WINDOW_MS - HVL_POLL_MS) {
		uint64_t waited = (wait_ns - w->wait_ns[oldest]) / 1000000u;
		uint64_t span = now - w->t_ms[oldest];

		if (waited > r->wait_max_ms)
			r->wait_max_ms = waited;
		if (h->live)
			__atomic_store_n(&h->live->host_wait_max_us, r->wait_max_ms * 1000,
					 __ATOMIC_RELAXED);
		if (act && !r->fired && waited * 100 >= span * HV_WATCH_WAIT_PCT) {
			r->fired = true;
			snprintf(r->fired_why, sizeof(r->fired_why), "QEMU's main loop waited "
				 "%" PRIu64 " ms of %" PRIu64 " ms for its CPU", waited, span);
		}
	}
	if (act && !r->fired && r->hello && now - last_frame >= HV_WATCH_SILENCE_MS) {
		r->fired = true;
		snprintf(r->fired_why, sizeof(r->fired_why), "the guest's stream was silent "
			 "for %" PRIu64 " ms", now - last_frame);
	}
	if (r->fired && !r->fired_after_ms) {
		r->fired_after_ms = now - t0 ? now - t0 : 1;
		unraise_vcpus(h);
		if (h->live) {
			__atomic_store_n(&h->live->starved, 1, __ATOMIC_RELAXED);
			snprintf(h->live->knobs, sizeof(h->live->knobs), "WATCHDOG: %.70s; vCPU back "
				 "to SCHED_OTHER", r->fired_why);
		}
	}
}

/* Send the guest @cmd and read its run until BYE; @watchdog for a FIFO vCPU. */
static int guest_run(struct hvl *h, const struct hypervisor_serve_cmd *cmd, bool watchdog,
		     struct hvl_run *r, char **cause)
{
	char line[HV_SERVE_LINE_MAX];
	uint64_t t0 = rt_time_now_ms(), last = t0;
	uint64_t bound = (uint64_t)cmd->duration_s * 1000 +
			 (h->guest_ran ? HVL_RUN_SLACK_MS : HVL_FIRST_HELLO_MS);
	struct hvl_watch w = { .n = 0 };
	int n = hypervisor_serve_format(cmd, line, sizeof(line));

	r->before = h->dec.stats;
	if (n < 0 || send_all(h->sock, line, (size_t)n))
		return rt_err(cause, -EPIPE, "the guest's port closed");
	while (!r->bye) {
		struct pollfd pfd = { .fd = h->sock, .events = POLLIN };
		struct rt_hvstream_frame f;
		uint8_t buf[4096];
		uint64_t now;
		int pr = poll(&pfd, 1, HVL_POLL_MS);

		if (lab_ctx_stopped(h->ctx)) {
			h->stopped = true;
			return 0;
		}
		now = rt_time_now_ms();
		if (pr > 0) {
			ssize_t got = read(h->sock, buf, sizeof(buf));

			if (got <= 0)
				return rt_err(cause, -EPIPE, "the guest's port closed (QEMU: %s)",
					      qemu_session_brief(h->vm) ?: "running");
			for (size_t off = 0; off < (size_t)got;) {
				off += rt_hvstream_feed(&h->dec, buf + off, (size_t)got - off);
				while (rt_hvstream_next(&h->dec, &f) == 1) {
					if (r->hello && now - last > r->silent_ms)
						r->silent_ms = now - last;
					last = now;
					take_frame(r, &f, h);
				}
			}
		}
		watch(h, r, &w, watchdog, now, t0, last);
		if (now - t0 > bound) {
			size_t len;
			const char *con = qemu_session_console(h->vm, &len);
			const char *tail = con + len;

			/* The console's last lines say what the guest was doing. */
			for (int nl = 0; tail > con && nl < 6; )
				if (*--tail == '\n')
					nl++;
			return rt_err(cause, -ETIMEDOUT, "the guest did not finish its %u s run in "
				      "%" PRIu64 " s; its console ends:\n%s", cmd->duration_s,
				      bound / 1000, tail);
		}
	}
	r->wall_ms = rt_time_now_ms() - t0;
	r->after = h->dec.stats;
	h->guest_ran = true;
	if (r->bad_summary)
		return rt_err(cause, -EPROTO, "the guest's stream counted more samples in one "
			      "second than the probe takes (at most %u): it is not the probe's",
			      HVL_SECOND_MAX);
	if (r->error)
		return rt_err(cause, -EIO, "the guest could not run the probe (policy %s, prio "
			      "%d, load %u): see the console", policy_name(cmd->policy),
			      cmd->priority, cmd->load);
	return 0;
}

/* ---- The probe on the host ------------------------------------------------------- */

struct host_acc {
	struct hvl_run *r;
	uint64_t second, sec_samples;
};

static void host_sample(void *priv, const struct rt_sample *s)
{
	struct host_acc *a = priv;
	struct hvl_run *r = a->r;
	uint64_t ns = s->latency_ns < 0 ? 0 : (uint64_t)s->latency_ns;

	rt_hist_add(r->hist, s);
	if (!r->samples || ns < r->min_ns)
		r->min_ns = ns;
	if (ns > r->max_ns)
		r->max_ns = ns;
	r->samples++;
	r->sum_ns += ns;
}

static int host_run(struct hvl *h, unsigned int seconds, struct hvl_run *r, char **cause)
{
	struct host_acc a = { .r = r };
	struct rt_sink sink = { .sample = host_sample, .priv = &a };
	struct rt_probe_config cfg;
	struct rt_probe *pr = NULL;
	int ret;

	rt_probe_config_init(&cfg);
	cfg.policy = SCHED_FIFO;
	cfg.priority = HVL_GUEST_PRIO;
	cfg.interval_us = HVL_PROBE_PERIOD_US;
	cfg.duration_ms = seconds * 1000u;
	ret = rt_probe_start(&cfg, &pr, cause);
	if (ret)
		return ret;
	while (!rt_probe_finished(pr)) {
		struct timespec ts = { 0, 50 * 1000000L };

		if (lab_ctx_stopped(h->ctx)) {
			h->stopped = true;
			break;
		}
		rt_probe_poll(pr, NULL, &sink);
		if (h->live) {
			__atomic_store_n(&h->live->jobs, r->samples, __ATOMIC_RELAXED);
			__atomic_store_n(&h->live->resp_max_us, r->max_ns / 1000, __ATOMIC_RELAXED);
			__atomic_store_n(&h->live->time_us, r->samples * HVL_PROBE_PERIOD_US,
					 __ATOMIC_RELAXED);
		}
		nanosleep(&ts, NULL);
	}
	rt_probe_stop(pr);
	while (rt_probe_poll(pr, NULL, &sink) > 0)
		;
	rt_probe_free(pr);
	r->seconds = seconds;
	r->wall_ms = (uint64_t)seconds * 1000;
	return 0;
}

/* ---- One scenario ---------------------------------------------------------------- */

/* A scenario that cannot run here: its object says why. */
static int unavailable(struct hvl *h, const struct hypervisor_live_scenario *s, const char *why)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:b, s:s}", "name", s->name, "summary",
			      s->summary, "kind", "live", "available", 0, "why", why);
	char note[400];

	if (!o || json_array_append_new(h->scens, o))
		return -ENOMEM;
	snprintf(note, sizeof(note), "%s: not measured: %s", s->name, why);
	return rt_result_add_note(h->res, note);
}

static int finish_scenario(struct hvl *h, const struct hypervisor_live_scenario *s,
			   struct hvl_run *r, bool verified)
{
	char vcpu[64], io[64], probe[32], hname[64], key[96], base[48];
	struct rt_hist_pct pct = { 0 };
	double avg = r->samples ? (double)r->sum_ns / (double)r->samples / 1000.0 : 0;
	json_t *o;
	int ret;

	/* The guest's buckets, never more samples than its summaries counted. */
	for (uint64_t i = 0, left = r->samples; r->counts && i < r->nbuckets && left; i++)
		for (uint32_t k = 0; k < r->counts[i] && left; k++, left--)
			rt_hist_add(r->hist, &(struct rt_sample){
				.latency_ns = (int64_t)i * 1000 + 500 });
	rt_hist_percentile(r->hist, RT_HIST_P99, &pct);
	if (s->on_host) {
		snprintf(vcpu, sizeof(vcpu), "-");
		snprintf(io, sizeof(io), "-");
		snprintf(probe, sizeof(probe), "host FIFO %d", HVL_GUEST_PRIO);
	} else {
		sched_words(vcpu, sizeof(vcpu), s->vcpu_policy, vcpu_prio(h, s));
		sched_words(io, sizeof(io), s->io_policy, io_prio(h, s));
		sched_words(probe, sizeof(probe), s->guest_policy, s->guest_prio);
	}
	o = json_pack("{s:s, s:s, s:s, s:b, s:I, s:f, s:f, s:f, s:f, s:I, s:I, s:b, s:s, s:s, "
		      "s:s, s:s, s:b, s:b, s:b, s:b}",
		      "name", s->name, "summary", s->summary, "kind", "live", "available", 1,
		      "samples_count", (json_int_t)r->samples, "min_us", (double)r->min_ns / 1e3,
		      "avg_us", avg, "p99_us", (double)pct.value_us, "max_us",
		      (double)r->max_ns / 1e3, "seconds_count", (json_int_t)r->seconds,
		      "overflows_count", (json_int_t)r->overflows, "host_load", s->host_load,
		      "vcpu", vcpu, "qemu_threads", io, "guest_probe", probe, "guest_load",
		      hypervisor_load_name(s->guest_load), "verified", verified, "watchdog", s->watchdog,
		      "interrupted", h->stopped, "restored", s->on_host || r->restored);
	if (!o)
		return -ENOMEM;
	if (s->pin && json_object_set_new(o, "pinned_cpu", json_integer(h->last_cpu)))
		goto out_nomem;
#define DELTA(f) (json_int_t)(r->after.f - r->before.f)
	if (json_object_set_new(o, "wall_ms", json_integer((json_int_t)r->wall_ms)) ||
	    (!s->on_host &&
	     json_object_set_new(o, "stream", json_pack("{s:I, s:I, s:I, s:I}", "frames",
				 DELTA(frames), "bad_frames", DELTA(bad_crc) + DELTA(bad_version) +
				 DELTA(bad_type) + DELTA(bad_length) + DELTA(bad_payload),
				 "seq_gaps", DELTA(seq_gaps), "bytes_skipped", DELTA(skipped)))))
		goto out_nomem;
#undef DELTA
	if (!s->on_host &&
	    (json_object_set_new(o, "stream_silent_max_ms", json_integer((json_int_t)r->silent_ms)) ||
	     json_object_set_new(o, "main_loop_wait_max_ms",
				 json_integer((json_int_t)r->wait_max_ms)) ||
	     json_object_set_new(o, "watchdog_fired", json_boolean(r->fired))))
		goto out_nomem;
	if (r->fired && (json_object_set_new(o, "watchdog_after_ms",
					      json_integer((json_int_t)r->fired_after_ms)) ||
			 json_object_set_new(o, "watchdog_why", json_string(r->fired_why))))
		goto out_nomem;
	if (json_array_append_new(h->scens, o))
		return -ENOMEM;
	snprintf(hname, sizeof(hname), "%s.latency", s->name);
	snprintf(base, sizeof(base), "%s", s->name);
	for (char *c = base; *c; c++)
		if (*c == '-')
			*c = '_';
	ret = rt_result_add_rt_hist(h->res, hname, r->hist);
	snprintf(key, sizeof(key), "%s_max_us", base);
	ret = ret ?: rt_result_set_summary(h->res, key, (double)r->max_ns / 1e3);
	snprintf(key, sizeof(key), "%s_avg_us", base);
	ret = ret ?: rt_result_set_summary(h->res, key, avg);
	snprintf(key, sizeof(key), "%s_p99_us", base);
	return ret ?: rt_result_set_summary(h->res, key, (double)pct.value_us);

out_nomem:
	json_decref(o);
	return -ENOMEM;
}

static void say(struct hvl *h, const struct hypervisor_live_scenario *s)
{
	char what[160];

	h->name = s->name;
	snprintf(what, sizeof(what), "%s (%u of %u): %s", s->name, h->index + 1, h->total,
		 s->summary);
	rt_sink_progress(h->sink, h->index * 100 / h->total, what);
	if (h->live) {
		struct hypervisor_live *l = h->live;

		snprintf(l->scenario, sizeof(l->scenario), "%s", s->name);
		l->index = h->index + 1;
		l->total = h->total;
		__atomic_store_n(&l->time_us, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&l->jobs, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&l->resp_max_us, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&l->last_max_us, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&l->avg_us, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&l->host_wait_max_us, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&l->starved, 0, __ATOMIC_RELAXED);
	}
}

static int boot(struct hvl *h, char **cause);

/*
 * The thread that reads the guest and runs the watchdog goes above any vCPU
 * (--vcpu-prio is at most 98): a FIFO vCPU must never starve its own
 * watchdog, even on one CPU or with RT throttling off. Through the journal;
 * put back at the end of the run.
 */
static int raise_self(struct hvl *h, char **cause)
{
	struct sched_param sp;

	h->own_policy = sched_getscheduler(0);
	if (h->own_policy < 0 || sched_getparam(0, &sp) < 0)
		return rt_err(cause, -errno, "this thread's scheduling: %s", strerror(errno));
	h->own_prio = sp.sched_priority;
	h->raised = true;
	return rt_journal_set_sched(h->ctx->journal, 0, SCHED_FIFO, HVL_WATCH_PRIO, cause);
}

/* The guest, booted at the first scenario that needs it (the host's own runs first). */
static int guest_up(struct hvl *h, char **cause)
{
	int ret;

	if (h->vm)
		return 0;
	if (h->live) {
		snprintf(h->live->scenario, sizeof(h->live->scenario), "(booting)");
		snprintf(h->live->knobs, sizeof(h->live->knobs), "booting the classroom VM (one "
			 "vCPU) as the guest");
		__atomic_store_n(&h->live->time_us, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&h->live->jobs, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&h->live->resp_max_us, 0, __ATOMIC_RELAXED);
	}
	ret = boot(h, cause) ?: find_threads(h, cause) ?: connect_probe(h, cause) ?:
	      halt_poll(h, cause) ?: raise_self(h, cause);
	if (!ret && h->live)
		snprintf(h->live->accel, sizeof(h->live->accel), "%s",
			 h->accel == QEMU_ACCEL_KVM ? "KVM" : "TCG (emulated CPU)");
	return ret;
}

static int run_scenario(struct hvl *h, const struct hypervisor_live_scenario *s, char **cause)
{
	struct hvl_run r = { 0 };
	struct rt_load *load = NULL;
	unsigned int seconds = h->p->duration_ms / 1000;
	bool verified = true;
	int ret;

	if (s->model_only || (s->needs_preempt_rt && !h->ctx->env->realtime)) {
		h->index++;
		return unavailable(h, s, s->model_only ? s->model_only :
				   "the host kernel is not PREEMPT_RT: boot the host on Debian's "
				   "linux-image-rt-amd64 and run it again");
	}
	if (!s->on_host) {
		ret = guest_up(h, cause);
		/* Stopped while the guest booted: what was measured so far is kept. */
		if (lab_ctx_stopped(h->ctx)) {
			free(*cause);
			*cause = NULL;
			h->stopped = true;
			return 0;
		}
		if (ret)
			return ret;
	}
	say(h, s);
	r.hist = rt_hist_new(HVL_HIST_US, 0);
	if (!r.hist)
		return -ENOMEM;
	if (h->live && !s->on_host) {
		char v[24], q[24];

		sched_words(v, sizeof(v), s->vcpu_policy, vcpu_prio(h, s));
		sched_words(q, sizeof(q), s->io_policy, io_prio(h, s));
		snprintf(h->live->knobs, sizeof(h->live->knobs), "vCPU %s, QEMU threads %s%s, "
			 "host load %s, guest %s", v, q, s->pin ? ", pinned" : "",
			 s->host_load ? "on" : "off", hypervisor_load_name(s->guest_load));
	} else if (h->live) {
		snprintf(h->live->knobs, sizeof(h->live->knobs), "the probe on the host, host "
			 "load %s", s->host_load ? "on" : "off");
	}
	ret = s->on_host ? 0 : set_knobs(h, s, &verified, cause);
	if (!ret && s->host_load) {
		load = rt_load_start("cpu", seconds + HVL_RUN_SLACK_MS / 1000 + 30, cause);
		if (!load)
			ret = -errno;
	}
	if (ret) {
		/* Nothing ran; the knobs are put back below all the same. */
	} else if (s->on_host) {
		ret = host_run(h, seconds, &r, cause);
	} else {
		struct hypervisor_serve_cmd cmd = { .policy = s->guest_policy, .priority = s->guest_prio,
					    .period_us = HVL_PROBE_PERIOD_US,
					    .duration_s = seconds, .load = s->guest_load };

		ret = guest_run(h, &cmd, s->vcpu_policy != SCHED_OTHER, &r, cause);
	}
	rt_load_free(load);
	if (!s->on_host) {
		bool back;
		int r2 = set_knobs(h, NULL, &back, ret ? NULL : cause);

		ret = ret ?: r2;
		r.restored = back;
	}
	if (!ret && !h->stopped)
		ret = finish_scenario(h, s, &r, verified);
	h->index++;
	rt_hist_free(r.hist);
	free(r.counts);
	return ret;
}

/* ---- The run ------------------------------------------------------------------------ */

static int boot(struct hvl *h, char **cause)
{
	static const enum qemu_kernel kernels[] = { QEMU_KERNEL_RT, QEMU_KERNEL_LAB, QEMU_KERNEL_STOCK };
	static const enum qemu_accel accels[] = { QEMU_ACCEL_AUTO, QEMU_ACCEL_KVM, QEMU_ACCEL_TCG };
	struct qemu_run_opts o = {
		/* Real time: host contention is what this part measures; virtual hides it. */
		.kernel = kernels[h->p->kernel], .accel = accels[h->p->accel], .smp = 1,
		.time = QEMU_TIME_REAL,
		.state_image = "", .run = "rtlab vm stream --serve", .probe_port = true,
		.scratch_serial = HV_SCRATCH_SERIAL, .die_with_parent = true, .stop = h->ctx->stop,
	};
	struct qemu_ready ready = { 0 };
	char *notice = NULL;
	int ret;

	rt_sink_progress(h->sink, 0, "booting the classroom VM (one vCPU) as the guest");
	h->vm = qemu_session_start(&o, &notice, cause);
	if (!h->vm)
		return -errno;
	if (notice)
		rt_result_add_note(h->res, notice);
	free(notice);
	notice = NULL;
	ret = qemu_session_wait_ready(h->vm, &ready, cause);
	if (ret) {
		int r2 = qemu_session_fallback(h->vm, ret, &notice, NULL);

		if (r2 == 0) {
			free(*cause);
			*cause = NULL;
			if (notice)
				rt_result_add_note(h->res, notice);
			free(notice);
			ret = qemu_session_wait_ready(h->vm, &ready, cause);
		}
	}
	qemu_ready_fini(&ready);
	if (ret)
		return ret;
	h->accel = qemu_session_accel(h->vm);
	return 0;
}

static int record_start(struct hvl *h)
{
	static const char *const kernels[] = { "rt", "lab", "stock" };

	return lab_seed_record(h->res, h->ctx->seed) ?:
	       rt_result_set_param_str(h->res, "mode", "live") ?:
	       rt_result_set_param_str(h->res, "kernel", kernels[h->p->kernel]) ?:
	       rt_result_set_param_num(h->res, "duration_ms", h->p->duration_ms) ?:
	       rt_result_set_param_num(h->res, "vcpu_prio", h->p->vcpu_prio) ?:
	       rt_result_set_param_num(h->res, "guest_prio", HVL_GUEST_PRIO) ?:
	       rt_result_set_param_num(h->res, "period_us", HVL_PROBE_PERIOD_US) ?:
	       rt_result_set_param_num(h->res, "smp", 1) ?:
	       record_throttle(h);
}

/* What the document says of the guest, QEMU and how to read the figures. */
static int record_guest(struct hvl *h)
{
	bool tcg = h->accel != QEMU_ACCEL_KVM;
	json_t *g = json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:i}", "kernel", h->guest_kernel,
			      "preempt", h->guest_preempt, "accel", tcg ? "tcg" : "kvm",
			      "cpu", qemu_session_cpu(h->vm) ?: "", "qemu_pid", (int)h->qemu,
			      "main_loop_tid", (int)h->qemu, "iothread_tid", h->iot);
	json_t *v = json_array();
	int ret;

	for (size_t i = 0; g && v && i < h->nvcpu; i++)
		if (json_array_append_new(v, json_integer(h->vcpu[i])))
			goto out_nomem;
	if (!g || !v)
		goto out_nomem;
	if (json_object_set_new(g, "vcpu_tids", v)) {
		v = NULL;	/* released by jansson */
		goto out_nomem;
	}
	v = NULL;
	ret = json_object_set_new(rt_result_extra(h->res), "guest", g) ? -ENOMEM : 0;
	g = NULL;
	ret = ret ?: rt_result_set_param_str(h->res, "accel", tcg ? "tcg" : "kvm");
	if (!ret && tcg)
		ret = rt_result_add_note(h->res, "TCG: the guest's CPU is emulated (multi-threaded "
					 "TCG, one host thread per vCPU, so thread priorities "
					 "still matter): compare the scenarios with each other, "
					 "not with bare metal; its timers fire in QEMU's main "
					 "loop, which therefore carries every wake-up");
	return ret ?: rt_result_add_note(h->res, "Kiszka's own figures (doc/references.md 3) were not "
					 "found: these are this machine's");

out_nomem:
	json_decref(g);
	json_decref(v);
	return -ENOMEM;
}

/* Under KVM the lesson's ordering is a fact to check: guest-load worse than vcpu-fifo. */
static int record_ordering(struct hvl *h)
{
	json_t *load = NULL, *fifo = NULL, *s;
	char note[200];
	size_t i;

	json_array_foreach(h->scens, i, s) {
		const char *n = json_string_value(json_object_get(s, "name"));

		if (!json_is_true(json_object_get(s, "available")))
			continue;
		if (!strcmp(n, "guest-load"))
			load = s;
		else if (!strcmp(n, "vcpu-fifo"))
			fifo = s;
	}
	if (!load || !fifo || h->accel != QEMU_ACCEL_KVM)
		return 0;
	double a = json_number_value(json_object_get(load, "max_us"));
	double b = json_number_value(json_object_get(fifo, "max_us"));

	snprintf(note, sizeof(note), "KVM ordering: guest-load max %.0f us %s vcpu-fifo max "
		 "%.0f us%s", a, a > b ? ">" : "<=", b, a > b ? " (as the lesson expects)" :
		 " (NOT as the lesson expects)");
	return rt_result_set_param_bool(h->res, "kvm_ordering_holds", a > b) ?:
	       rt_result_add_note(h->res, note);
}

int lab_hypervisor_live_run(struct lab_ctx *ctx, const struct rt_sink *sink,
			    const struct hypervisor_params *p, struct rt_result **res,
			    bool *interrupted, char **cause)
{
	struct hvl h = { .ctx = ctx, .sink = sink, .p = p, .sock = -1, .iot = -1,
			 .total = p->nscen ? p->nscen : hypervisor_live_nscenarios };
	int ret;

	*res = NULL;
	*interrupted = false;
	if (!ctx->env || !ctx->env->root)
		return rt_err(cause, -EPERM, "--live sets the scheduling of QEMU's threads: run "
			      "it as root (sudo rtlab lab run hypervisor --live), or run the "
			      "model (--model)");
	if (!ctx->journal)
		return rt_err(cause, -EPERM, "--live needs the undo journal to put QEMU's "
			      "threads back, and this run has none");
	h.live = ctx->live;
	if (h.live)
		h.live->is_live = true;
	rt_hvstream_dec_init(&h.dec);
	h.res = rt_result_new("hypervisor", ctx->env->classroom_vm ? "vm" : "host", ctx->env);
	h.scens = json_array();
	if (!h.res || !h.scens) {
		ret = -ENOMEM;
		goto out;
	}
	ret = record_start(&h) ?: fair_share(&h, cause);
	for (unsigned int k = 0; !ret && !h.stopped && k < h.total; k++)
		ret = run_scenario(&h, &hypervisor_live_scenarios[p->nscen ? p->scen[k] : k], cause);
	if (!ret && h.vm)
		ret = record_guest(&h);
	if (!ret && h.overflows)
		ret = rt_result_add_note(h.res, "a guest sample above 100 ms (its probe's "
					 "histogram) is counted in the document's histogram at its "
					 "second's maximum, which the stream carries exactly");
	ret = ret ?: record_ordering(&h) ?: rt_result_set_scenarios(h.res, h.scens);
	if (!ret && h.stopped)
		ret = rt_result_add_note(h.res, "interrupted: the scenario running then is left "
					 "out");
	if (!ret) {
		*res = h.res;
		h.res = NULL;
		*interrupted = h.stopped;
	}
out:
	if (h.sock >= 0) {
		struct hypervisor_serve_cmd quit = { .quit = true };
		char line[16];
		int n = hypervisor_serve_format(&quit, line, sizeof(line));

		if (n > 0 && send_all(h.sock, line, (size_t)n))
			rt_log(RT_LOG_DEBUG, "hypervisor: the guest's port is closed");
		close(h.sock);
	}
	qemu_session_free(h.vm);
	if (h.raised) {
		struct sched_param sp = { .sched_priority = h.own_prio };

		sched_setscheduler(0, h.own_policy, &sp);
	}
	json_decref(h.scens);
	rt_result_free(h.res);
	return ret;
}
