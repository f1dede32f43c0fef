/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_probe: cyclictest-style measuring threads feeding SPSC rings.
 *
 * Layout: one struct probe_thread per measuring thread, each aligned to a
 * cache line so that two threads' counters never share one. Counters a
 * measuring thread writes have that thread as their only writer; it
 * publishes them with ck_pr stores (drops with an atomic increment), and
 * the consumer reads them with ck_pr loads. The ring is the typed form of
 * ck_ring's SPSC queue (CK_RING_PROTOTYPE): the 24-byte sample is copied
 * into the slot, so there is no separately allocated sample whose lifetime
 * the two sides would have to agree on.
 *
 * Everything the loop touches is allocated and written once before the
 * thread starts; the loop itself calls only clock_gettime, clock_nanosleep,
 * ck_ring/ck_pr inlines and, above the marker threshold, one write(). The
 * one exception is asked for: with alloc_bytes, each cycle maps, writes
 * and unmaps fresh memory after its sample (fresh_memory()), which is what
 * the latency lab's -alloc scenarios measure.
 */
#include "rt_probe.h"

#include <ck_pr.h>
#include <ck_ring.h>
#include <errno.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt_err.h"
#include "rt_log.h"

CK_RING_PROTOTYPE(rt_sample, rt_sample)

#define NSEC_PER_SEC 1000000000ll
#define PROBE_STACK_SIZE (512u * 1024u)
/* How much of its stack a measuring thread touches before the loop. */
#define PROBE_PREFAULT_STACK (128u * 1024u)
#define PROBE_CACHELINE 64

struct probe_thread {
	/* Written by the measuring thread only. */
	uint64_t loops;
	uint64_t drops;
	uint64_t overruns;
	uint64_t spikes;
	uint64_t markers;
	uint64_t marker_errors;
	int64_t max_ns;
	uint64_t timer_slack_ns;
	int tid;
	int finished;
	int setup;			/* SCHED_DEADLINE: 0 pending, 1 set, -errno refused */
	struct rt_probe_alloc_stats alloc;	/* alloc_bytes: each field stored with ck_pr */
	char marker[128];		/* the thread's own line buffer */

	/* Written by the consumer only. */
	uint64_t samples;

	/* Set before the thread starts, then read only. */
	struct rt_probe *probe;		/* borrowed */
	unsigned int index;
	int64_t interval_ns;
	struct rt_sample *buf;		/* owned, ring_size slots */
	pthread_t th;
	bool created;

	struct ck_ring ring;		/* pads its producer and consumer ends itself */
} __attribute__((aligned(PROBE_CACHELINE)));

struct rt_probe {
	struct rt_probe_config cfg;	/* cfg.cpus points into cpus below */
	cpu_set_t *cpus;		/* owned copy, nthreads entries, or NULL */
	struct probe_thread *threads;	/* owned, nthreads entries */
	int stop;
	bool stopped;
	bool locked;			/* we called mlockall() */
};

/* ---- Small helpers -------------------------------------------------------- */

static int64_t ts_to_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * NSEC_PER_SEC + ts->tv_nsec;
}

static struct timespec ns_to_ts(int64_t ns)
{
	struct timespec ts = {
		.tv_sec = ns / NSEC_PER_SEC,
		.tv_nsec = ns % NSEC_PER_SEC,
	};

	return ts;
}

static const char *policy_name(int policy)
{
	switch (policy) {
	case SCHED_OTHER:
		return "SCHED_OTHER";
	case SCHED_FIFO:
		return "SCHED_FIFO";
	case SCHED_RR:
		return "SCHED_RR";
	case SCHED_DEADLINE:
		return "SCHED_DEADLINE";
	default:
		return "unknown policy";
	}
}

/*
 * struct sched_attr as the kernel's sched_setattr(2) takes it (its first,
 * 48-byte version); glibc before 2.41 has neither the call nor the type.
 */
struct probe_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
};

/* Thread @t's reservation: the period defaults to its interval, the deadline to the period. */
static void dl_params(const struct rt_probe_config *cfg, int64_t interval_ns, uint64_t *runtime,
		      uint64_t *deadline, uint64_t *period)
{
	*period = cfg->dl_period_ns ? cfg->dl_period_ns : (uint64_t)interval_ns;
	*deadline = cfg->dl_deadline_ns ? cfg->dl_deadline_ns : *period;
	*runtime = cfg->dl_runtime_ns;
}

/* Make the calling thread SCHED_DEADLINE; 0 or a negative errno. */
static int dl_set_self(const struct rt_probe_config *cfg, int64_t interval_ns)
{
	struct probe_sched_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sched_policy = SCHED_DEADLINE;
	dl_params(cfg, interval_ns, &a.sched_runtime, &a.sched_deadline, &a.sched_period);
	if (syscall(SYS_sched_setattr, 0, &a, 0) != 0)
		return -errno;
	return 0;
}

static bool rt_policy(int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

/* Append decimal @v at @p; returns the new end. No stdio in the loop. */
static char *put_u64(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_str(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	return p;
}

/* ---- The measuring thread -------------------------------------------------- */

/*
 * Touch a stack region so its pages are present before the first
 * measurement; with mlockall(MCL_FUTURE) they also stay present.
 */
static __attribute__((noinline)) void prefault_stack(void)
{
	volatile unsigned char buf[PROBE_PREFAULT_STACK];
	size_t i;

	for (i = 0; i < sizeof(buf); i += 4096)
		buf[i] = 0;
}

/*
 * One line to the trace marker, built by hand and written with one write():
 * "rtlab-probe T:<thread> C:<seq> latency <ns> ns > <threshold> ns".
 */
static void write_marker(struct probe_thread *t, uint64_t seq, int64_t lat)
{
	char *p = t->marker;
	ssize_t len, ret;

	p = put_str(p, "rtlab-probe T:");
	p = put_u64(p, t->index);
	p = put_str(p, " C:");
	p = put_u64(p, seq);
	p = put_str(p, " latency ");
	p = put_u64(p, (uint64_t)lat);
	p = put_str(p, " ns > ");
	p = put_u64(p, t->probe->cfg.trace_ns);
	p = put_str(p, " ns\n");
	len = p - t->marker;
	ret = write(t->probe->cfg.trace_fd, t->marker, (size_t)len);
	if (ret == len)
		ck_pr_store_64(&t->markers, t->markers + 1);
	else
		ck_pr_store_64(&t->marker_errors, t->marker_errors + 1);
}

/* Minor faults of the calling thread so far. */
static uint64_t thread_faults(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) == 0 ? (uint64_t)ru.ru_minflt : 0;
}

static int64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts_to_ns(&ts);
}

/*
 * One cycle's fresh memory: map @cfg->alloc_bytes, write a byte in every
 * page, unmap. The getrusage() calls lie outside the two timed spans, so
 * each span holds its own system call and faults only.
 */
static void fresh_memory(struct probe_thread *t, const struct rt_probe_config *cfg)
{
	struct rt_probe_alloc_stats *a = &t->alloc;
	uint64_t f0, f1, f2;
	int64_t c0, c1, c2, c3;
	long page = sysconf(_SC_PAGESIZE);
	volatile unsigned char *mem;
	void *m;

	f0 = thread_faults();
	c0 = clock_ns(cfg->clock);
	m = mmap(NULL, cfg->alloc_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	c1 = clock_ns(cfg->clock);
	if (m == MAP_FAILED) {
		ck_pr_store_64(&a->failed, a->failed + 1);
		return;
	}
	f1 = thread_faults();
	c2 = clock_ns(cfg->clock);
	mem = m;
	for (size_t off = 0; off < cfg->alloc_bytes; off += (size_t)(page > 0 ? page : 4096))
		mem[off] = 1;
	c3 = clock_ns(cfg->clock);
	f2 = thread_faults();
	munmap(m, cfg->alloc_bytes);

	ck_pr_store_64(&a->alloc_ns, a->alloc_ns + (uint64_t)(c1 - c0));
	if ((uint64_t)(c1 - c0) > a->alloc_max_ns)
		ck_pr_store_64(&a->alloc_max_ns, (uint64_t)(c1 - c0));
	ck_pr_store_64(&a->touch_ns, a->touch_ns + (uint64_t)(c3 - c2));
	if ((uint64_t)(c3 - c2) > a->touch_max_ns)
		ck_pr_store_64(&a->touch_max_ns, (uint64_t)(c3 - c2));
	ck_pr_store_64(&a->alloc_faults, a->alloc_faults + (f1 - f0));
	ck_pr_store_64(&a->touch_faults, a->touch_faults + (f2 - f1));
	ck_pr_store_64(&a->cycles, a->cycles + 1);
}

static void *probe_main(void *arg)
{
	struct probe_thread *t = arg;
	const struct rt_probe_config *cfg = &t->probe->cfg;
	struct rt_sample s = { .thread = t->index };
	int64_t now, next, end = INT64_MAX, lat, behind;
	struct timespec ts;
	uint64_t seq = 0;
	long slack;
	int err;

	ck_pr_store_int(&t->tid, (int)gettid());
	if (cfg->policy == SCHED_DEADLINE) {
		/* No pthread attribute for it: the thread sets itself, before any sample. */
		err = dl_set_self(cfg, t->interval_ns);
		ck_pr_store_int(&t->setup, err ? err : 1);
		if (err) {
			ck_pr_store_int(&t->finished, 1);
			return NULL;
		}
	}
	if (cfg->timer_slack_ns)
		(void)prctl(PR_SET_TIMERSLACK, (unsigned long)cfg->timer_slack_ns, 0, 0, 0);
	/* As the kernel has it now: a real-time thread may read 0 (6.7 and later). */
	slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	ck_pr_store_64(&t->timer_slack_ns, slack > 0 ? (uint64_t)slack : 0);
	if (cfg->mlock)
		prefault_stack();

	clock_gettime(cfg->clock, &ts);
	now = ts_to_ns(&ts);
	next = now + t->interval_ns;
	if (cfg->duration_ms)
		end = now + (int64_t)cfg->duration_ms * 1000000;

	while (!ck_pr_load_int(&t->probe->stop)) {
		if ((cfg->loops && seq >= cfg->loops) || next > end)
			break;
		ts = ns_to_ts(next);
		err = clock_nanosleep(cfg->clock, TIMER_ABSTIME, &ts, NULL);
		if (err == EINTR)
			continue;	/* a signal, not our wake-up: sleep again */
		if (err)
			break;
		clock_gettime(cfg->clock, &ts);
		now = ts_to_ns(&ts);
		lat = now - next;

		s.seq = seq;
		s.latency_ns = lat;
		if (!ck_ring_enqueue_spsc_rt_sample(&t->ring, t->buf, &s))
			ck_pr_inc_64(&t->drops);
		seq++;
		ck_pr_store_64(&t->loops, seq);
		if (seq == 1 || lat > t->max_ns)
			ck_pr_store_64((uint64_t *)&t->max_ns, (uint64_t)lat);
		if (cfg->spike_ns && lat > (int64_t)cfg->spike_ns)
			ck_pr_store_64(&t->spikes, t->spikes + 1);
		if (cfg->trace_ns && lat > (int64_t)cfg->trace_ns)
			write_marker(t, s.seq, lat);
		if (cfg->alloc_bytes)
			fresh_memory(t, cfg);

		/*
		 * More than one interval behind: the missed wake-ups are gone.
		 * Like cyclictest, move the plan forward in whole intervals,
		 * keeping the phase, to the first wake-up after now. Less than
		 * that behind, the next sleep returns at once and measures the
		 * lateness; either way each cycle uses up at least one
		 * interval of the plan, which is what keeps an RT loop from
		 * ever spinning.
		 */
		next += t->interval_ns;
		behind = now - next;
		if (behind > t->interval_ns) {
			ck_pr_store_64(&t->overruns, t->overruns + 1);
			next += (behind / t->interval_ns + 1) * t->interval_ns;
		}
	}
	ck_pr_store_int(&t->finished, 1);
	return NULL;
}

/* ---- Permission diagnosis -------------------------------------------------- */

static bool has_cap(unsigned int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data) != 0)
		return false;
	return data[cap / 32].effective & (1u << (cap % 32));
}

static void rlim_text(rlim_t v, char *buf, size_t len)
{
	if (v == RLIM_INFINITY)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
}

/* Say exactly what is missing when the kernel refused an RT policy. */
static int explain_rt_eperm(const struct rt_probe_config *cfg, char **cause)
{
	struct rlimit rl = { 0, 0 };
	char lim[32];

	getrlimit(RLIMIT_RTPRIO, &rl);
	rlim_text(rl.rlim_cur, lim, sizeof(lim));
	if (has_cap(CAP_SYS_NICE) || (rl.rlim_cur != RLIM_INFINITY &&
				      rl.rlim_cur >= (rlim_t)cfg->priority))
		return rt_err(cause, -EPERM,
			      "%s priority %d was refused although this process has %s; the "
			      "kernel's RT group scheduling probably gives this cgroup no RT "
			      "runtime (cpu.rt_runtime_us is 0)",
			      policy_name(cfg->policy), cfg->priority,
			      has_cap(CAP_SYS_NICE) ? "CAP_SYS_NICE" : "a sufficient RLIMIT_RTPRIO");
	return rt_err(cause, -EPERM,
		      "%s priority %d is not permitted: it needs root or CAP_SYS_NICE "
		      "(this process, uid %u, has neither), or RLIMIT_RTPRIO >= %d (it is %s). "
		      "Run as root, grant CAP_SYS_NICE (setcap cap_sys_nice+ep), or raise "
		      "rtprio in /etc/security/limits.conf; SCHED_OTHER works without any of them",
		      policy_name(cfg->policy), cfg->priority, (unsigned int)geteuid(),
		      cfg->priority, lim);
}

static int explain_mlock(int err, char **cause)
{
	struct rlimit rl = { 0, 0 };
	char lim[32];

	getrlimit(RLIMIT_MEMLOCK, &rl);
	rlim_text(rl.rlim_cur == RLIM_INFINITY ? rl.rlim_cur : rl.rlim_cur / 1024, lim,
		  sizeof(lim));
	return rt_err(cause, -err,
		      "mlockall failed (%s): locking all memory needs CAP_IPC_LOCK or an "
		      "RLIMIT_MEMLOCK larger than the process (it is %s KiB); run without "
		      "mlock to measure with page faults possible",
		      strerror(err), lim);
}

/* ---- Configuration ---------------------------------------------------------- */

void rt_probe_config_init(struct rt_probe_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->nthreads = 1;
	cfg->policy = SCHED_OTHER;
	cfg->interval_us = 1000;
	cfg->clock = CLOCK_MONOTONIC;
	cfg->trace_fd = -1;
}

static int check_config(const struct rt_probe_config *cfg, char **cause)
{
	unsigned long long longest;
	unsigned int ring = cfg->ring_size ? cfg->ring_size : RT_PROBE_DEFAULT_RING;

	if (cfg->nthreads == 0 || cfg->nthreads > RT_PROBE_MAX_THREADS)
		return rt_err(cause, -EINVAL, "thread count %u is outside 1..%u", cfg->nthreads,
			      RT_PROBE_MAX_THREADS);
	if (cfg->policy == SCHED_OTHER) {
		if (cfg->priority != 0)
			return rt_err(cause, -EINVAL, "SCHED_OTHER takes priority 0, not %d",
				      cfg->priority);
	} else if (rt_policy(cfg->policy)) {
		int lo = sched_get_priority_min(cfg->policy);
		int hi = sched_get_priority_max(cfg->policy);

		if (cfg->priority < lo || cfg->priority > hi)
			return rt_err(cause, -EINVAL, "%s priority %d is outside %d..%d",
				      policy_name(cfg->policy), cfg->priority, lo, hi);
	} else if (cfg->policy == SCHED_DEADLINE) {
		uint64_t period = cfg->dl_period_ns ? cfg->dl_period_ns :
				  (uint64_t)cfg->interval_us * 1000;
		uint64_t deadline = cfg->dl_deadline_ns ? cfg->dl_deadline_ns : period;

		if (cfg->priority != 0)
			return rt_err(cause, -EINVAL, "SCHED_DEADLINE takes priority 0, not %d",
				      cfg->priority);
		if (cfg->dl_runtime_ns < RT_PROBE_MIN_DL_RUNTIME_NS)
			return rt_err(cause, -EINVAL, "a SCHED_DEADLINE runtime of %llu ns is "
				      "below the kernel's minimum of %llu ns",
				      (unsigned long long)cfg->dl_runtime_ns,
				      RT_PROBE_MIN_DL_RUNTIME_NS);
		if (cfg->dl_runtime_ns > deadline || deadline > period)
			return rt_err(cause, -EINVAL, "SCHED_DEADLINE needs runtime <= deadline "
				      "<= period, not %llu, %llu and %llu ns (the period defaults "
				      "to the interval, the deadline to the period)",
				      (unsigned long long)cfg->dl_runtime_ns,
				      (unsigned long long)deadline, (unsigned long long)period);
	} else {
		return rt_err(cause, -EINVAL, "policy %d is not SCHED_OTHER, SCHED_FIFO, "
			      "SCHED_RR or SCHED_DEADLINE", cfg->policy);
	}
	if (cfg->interval_us == 0)
		return rt_err(cause, -EINVAL, "the interval must be at least 1 us");
	longest = cfg->interval_us + (unsigned long long)cfg->distance_us * (cfg->nthreads - 1);
	if (longest > RT_PROBE_MAX_INTERVAL_US)
		return rt_err(cause, -EINVAL,
			      "the longest thread interval, %llu us, is above %u us",
			      longest, RT_PROBE_MAX_INTERVAL_US);
	if ((rt_policy(cfg->policy) || cfg->policy == SCHED_DEADLINE) &&
	    cfg->interval_us < RT_PROBE_MIN_RT_INTERVAL_US &&
	    !cfg->allow_short_interval)
		return rt_err(cause, -EINVAL,
			      "an interval of %u us under %s could starve the machine; the "
			      "minimum is %u us unless short intervals are explicitly allowed",
			      cfg->interval_us, policy_name(cfg->policy),
			      RT_PROBE_MIN_RT_INTERVAL_US);
	if (cfg->clock != CLOCK_MONOTONIC && cfg->clock != CLOCK_REALTIME)
		return rt_err(cause, -EINVAL, "the clock must be CLOCK_MONOTONIC or CLOCK_REALTIME");
	if (ring < 4 || ring > RT_PROBE_MAX_RING || (ring & (ring - 1)))
		return rt_err(cause, -EINVAL, "ring size %u is not a power of two in 4..%u",
			      ring, RT_PROBE_MAX_RING);
	if (cfg->trace_ns && cfg->trace_fd < 0)
		return rt_err(cause, -EINVAL, "a trace-marker threshold needs a trace fd");
	if (cfg->timer_slack_ns > RT_PROBE_MAX_SLACK_NS)
		return rt_err(cause, -EINVAL, "a timer slack of %llu ns is above 1 s",
			      (unsigned long long)cfg->timer_slack_ns);
	if (cfg->spike_ns > INT64_MAX || cfg->trace_ns > INT64_MAX)
		return rt_err(cause, -EINVAL, "threshold too large");
	if (cfg->alloc_bytes > RT_PROBE_MAX_ALLOC_BYTES)
		return rt_err(cause, -EINVAL, "fresh memory of %zu bytes a cycle is above %u",
			      cfg->alloc_bytes, RT_PROBE_MAX_ALLOC_BYTES);
	return 0;
}

/* Say what the kernel's sched_setattr() refusal @err means for @cfg. */
static int explain_dl(const struct rt_probe_config *cfg, int64_t interval_ns, int err,
		      char **cause)
{
	uint64_t runtime, deadline, period;

	dl_params(cfg, interval_ns, &runtime, &deadline, &period);
	if (err == -EPERM)
		return rt_err(cause, -EPERM, "SCHED_DEADLINE was refused: it needs root or "
			      "CAP_SYS_NICE (RLIMIT_RTPRIO does not grant it; this process is uid "
			      "%u%s), and the thread's CPU affinity must cover its whole root "
			      "domain (pinning a deadline thread to one CPU is refused unless "
			      "that CPU is an exclusive cpuset of its own)", (unsigned int)geteuid(),
			      has_cap(CAP_SYS_NICE) ? " with CAP_SYS_NICE" : "");
	if (err == -EBUSY)
		return rt_err(cause, -EBUSY, "SCHED_DEADLINE admission control refused runtime "
			      "%llu us every %llu us for %u thread(s): the deadline tasks of a root "
			      "domain may reserve at most sched_rt_runtime_us/sched_rt_period_us "
			      "(95 %% by default) of each CPU, so ask for less runtime or fewer "
			      "threads", (unsigned long long)(runtime / 1000),
			      (unsigned long long)(period / 1000), cfg->nthreads);
	if (err == -EINVAL)
		return rt_err(cause, -EINVAL, "sched_setattr refused runtime %llu, deadline %llu "
			      "and period %llu ns as invalid (the kernel also bounds the period by "
			      "kernel.sched_deadline_period_min_us and _max_us)",
			      (unsigned long long)runtime, (unsigned long long)deadline,
			      (unsigned long long)period);
	return rt_err(cause, err, "sched_setattr(SCHED_DEADLINE): %s", strerror(-err));
}

/*
 * Wait until every SCHED_DEADLINE thread has set its policy (each does so
 * first thing, so this is short); a refusal fails the start. Bounded: a
 * thread that never ran within DL_SETUP_WAIT_MS is reported.
 */
#define DL_SETUP_WAIT_MS 10000u
static int dl_wait_setup(struct rt_probe *p, char **cause)
{
	for (unsigned int waited = 0;; waited++) {
		bool pending = false;

		for (unsigned int i = 0; i < p->cfg.nthreads; i++) {
			int st = ck_pr_load_int(&p->threads[i].setup);

			if (st < 0)
				return explain_dl(&p->cfg, p->threads[i].interval_ns, st, cause);
			if (st == 0)
				pending = true;
		}
		if (!pending)
			return 0;
		if (waited >= DL_SETUP_WAIT_MS)
			return rt_err(cause, -ETIMEDOUT, "the SCHED_DEADLINE threads did not start "
				      "within %u s", DL_SETUP_WAIT_MS / 1000);
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
	}
}

/* ---- Life cycle ------------------------------------------------------------ */

static int create_thread(struct rt_probe *p, struct probe_thread *t, char **cause)
{
	struct sched_param sp = { .sched_priority = p->cfg.priority };
	pthread_attr_t attr;
	char name[16];
	int err;

	err = pthread_attr_init(&attr);
	if (err)
		return rt_err(cause, -err, "pthread_attr_init: %s", strerror(err));
	/*
	 * Policy, priority and affinity go into the attributes, so the thread
	 * never runs unconfigured. These settings belong to a thread we create
	 * and that ends with the probe (or the process), so unlike changes to
	 * existing threads they need no entry in the undo journal.
	 */
	err = pthread_attr_setstacksize(&attr, PROBE_STACK_SIZE);
	if (!err)
		err = pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	/* SCHED_DEADLINE starts as SCHED_OTHER and sets itself (probe_main()). */
	if (!err)
		err = pthread_attr_setschedpolicy(&attr, p->cfg.policy == SCHED_DEADLINE ?
						  SCHED_OTHER : p->cfg.policy);
	if (!err)
		err = pthread_attr_setschedparam(&attr, &sp);
	if (!err && p->cpus && CPU_COUNT(&p->cpus[t->index]))
		err = pthread_attr_setaffinity_np(&attr, sizeof(cpu_set_t), &p->cpus[t->index]);
	if (err) {
		err = rt_err(cause, -err, "thread attributes: %s", strerror(err));
		goto out_attr;
	}

	err = pthread_create(&t->th, &attr, probe_main, t);
	if (err == EPERM) {
		err = explain_rt_eperm(&p->cfg, cause);
		goto out_attr;
	}
	if (err == EINVAL && p->cpus && CPU_COUNT(&p->cpus[t->index])) {
		err = rt_err(cause, -EINVAL, "thread %u: its CPU set holds no usable CPU",
			     t->index);
		goto out_attr;
	}
	if (err) {
		err = rt_err(cause, -err, "creating measuring thread %u: %s", t->index,
			     strerror(err));
		goto out_attr;
	}
	t->created = true;
	snprintf(name, sizeof(name), "rtlab-probe/%u", t->index);
	pthread_setname_np(t->th, name);
	err = 0;

out_attr:
	pthread_attr_destroy(&attr);
	return err;
}

int rt_probe_start(const struct rt_probe_config *cfg, struct rt_probe **probep, char **cause)
{
	struct rt_probe *p = NULL;
	unsigned int ring, i;
	int err;

	*probep = NULL;
	err = check_config(cfg, cause);
	if (err)
		return err;
	ring = cfg->ring_size ? cfg->ring_size : RT_PROBE_DEFAULT_RING;

	p = calloc(1, sizeof(*p));
	if (!p)
		return rt_err(cause, -ENOMEM, "out of memory");
	p->cfg = *cfg;
	p->cfg.ring_size = ring;
	p->cfg.cpus = NULL;
	if (cfg->cpus) {
		p->cpus = calloc(cfg->nthreads, sizeof(*p->cpus));
		if (!p->cpus)
			goto out_nomem;
		memcpy(p->cpus, cfg->cpus, cfg->nthreads * sizeof(*p->cpus));
		p->cfg.cpus = p->cpus;
	}
	p->threads = aligned_alloc(PROBE_CACHELINE, cfg->nthreads * sizeof(*p->threads));
	if (!p->threads)
		goto out_nomem;
	memset(p->threads, 0, cfg->nthreads * sizeof(*p->threads));
	for (i = 0; i < cfg->nthreads; i++) {
		struct probe_thread *t = &p->threads[i];

		t->probe = p;
		t->index = i;
		t->interval_ns = ((int64_t)cfg->interval_us + (int64_t)cfg->distance_us * i) * 1000;
		/* Written once here, so the ring's pages exist before the loop runs. */
		t->buf = calloc(ring, sizeof(*t->buf));
		if (!t->buf)
			goto out_nomem;
		memset(t->buf, 0, ring * sizeof(*t->buf));
		ck_ring_init(&t->ring, ring);
	}

	if (cfg->mlock) {
		if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0) {
			err = explain_mlock(errno, cause);
			goto out_free;
		}
		p->locked = true;
	}

	for (i = 0; i < cfg->nthreads; i++) {
		err = create_thread(p, &p->threads[i], cause);
		if (err)
			goto out_free;
	}
	if (cfg->policy == SCHED_DEADLINE) {
		err = dl_wait_setup(p, cause);
		if (err)
			goto out_free;
	}
	rt_log(RT_LOG_DEBUG, "probe: %u thread(s), %s prio %d, interval %u us", cfg->nthreads,
	       policy_name(cfg->policy), cfg->priority, cfg->interval_us);
	*probep = p;
	return 0;

out_nomem:
	err = rt_err(cause, -ENOMEM, "out of memory for %u measuring threads", cfg->nthreads);
out_free:
	rt_probe_free(p);
	return err;
}

int rt_probe_poll(struct rt_probe *p, struct rt_hist **hists, const struct rt_sink *sink)
{
	struct rt_sample s;
	unsigned int i, k;
	int n = 0;

	for (i = 0; i < p->cfg.nthreads; i++) {
		struct probe_thread *t = &p->threads[i];
		struct rt_hist *h = hists ? hists[i] : NULL;

		for (k = 0; k < p->cfg.ring_size; k++) {
			if (!ck_ring_dequeue_spsc_rt_sample(&t->ring, t->buf, &s))
				break;
			ck_pr_store_64(&t->samples, t->samples + 1);
			if (h)
				rt_hist_add(h, &s);
			rt_sink_sample(sink, &s);
			n++;
		}
	}
	return n;
}

bool rt_probe_finished(const struct rt_probe *p)
{
	unsigned int i;

	for (i = 0; i < p->cfg.nthreads; i++)
		if (!ck_pr_load_int(&p->threads[i].finished))
			return false;
	return true;
}

int rt_probe_stop(struct rt_probe *p)
{
	unsigned int i;

	if (p->stopped)
		return 0;
	ck_pr_store_int(&p->stop, 1);
	for (i = 0; i < p->cfg.nthreads; i++) {
		struct probe_thread *t = &p->threads[i];

		if (t->created)
			pthread_join(t->th, NULL);
		t->created = false;
	}
	p->stopped = true;
	return 0;
}

int rt_probe_stats(const struct rt_probe *p, unsigned int i, struct rt_probe_thread_stats *out)
{
	struct probe_thread *t;

	if (i >= p->cfg.nthreads)
		return -EINVAL;
	t = &p->threads[i];
	memset(out, 0, sizeof(*out));
	out->loops = ck_pr_load_64(&t->loops);
	out->samples = ck_pr_load_64(&t->samples);
	out->drops = ck_pr_load_64(&t->drops);
	out->overruns = ck_pr_load_64(&t->overruns);
	out->spikes = ck_pr_load_64(&t->spikes);
	out->markers = ck_pr_load_64(&t->markers);
	out->marker_errors = ck_pr_load_64(&t->marker_errors);
	out->max_ns = (int64_t)ck_pr_load_64((uint64_t *)&t->max_ns);
	out->interval_us = (unsigned int)(t->interval_ns / 1000);
	out->timer_slack_ns = ck_pr_load_64(&t->timer_slack_ns);
	out->tid = ck_pr_load_int(&t->tid);
	out->finished = ck_pr_load_int(&t->finished);
	out->alloc.cycles = ck_pr_load_64(&t->alloc.cycles);
	out->alloc.failed = ck_pr_load_64(&t->alloc.failed);
	out->alloc.alloc_ns = ck_pr_load_64(&t->alloc.alloc_ns);
	out->alloc.alloc_max_ns = ck_pr_load_64(&t->alloc.alloc_max_ns);
	out->alloc.touch_ns = ck_pr_load_64(&t->alloc.touch_ns);
	out->alloc.touch_max_ns = ck_pr_load_64(&t->alloc.touch_max_ns);
	out->alloc.alloc_faults = ck_pr_load_64(&t->alloc.alloc_faults);
	out->alloc.touch_faults = ck_pr_load_64(&t->alloc.touch_faults);
	return 0;
}

unsigned int rt_probe_nthreads(const struct rt_probe *p)
{
	return p->cfg.nthreads;
}

void rt_probe_free(struct rt_probe *p)
{
	unsigned int i;

	if (!p)
		return;
	if (p->threads) {
		rt_probe_stop(p);
		for (i = 0; i < p->cfg.nthreads; i++)
			free(p->threads[i].buf);
	}
	/*
	 * The lock is process-wide: undo it so a UI or a later non-mlock run
	 * is not left with all memory pinned.
	 */
	if (p->locked)
		munlockall();
	free(p->threads);
	free(p->cpus);
	free(p);
}
