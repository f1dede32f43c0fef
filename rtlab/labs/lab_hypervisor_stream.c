/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_hypervisor_stream: the probe's results as rt_hvstream frames (see the header).
 *
 * Seconds are those of the probe's own timeline (sample n of a thread with
 * period P belongs to second n * P / 1 s), not of the consumer's clock, so a
 * guest whose consumer was held up still reports each second's samples in
 * the right second: a SUMMARY goes out when the first sample of a later
 * second arrives, and the last (partial) one at the end.
 */
#include "lab_hypervisor_stream.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/rt_env.h"
#include "core/rt_err.h"
#include "core/rt_file.h"
#include "core/rt_hvstream.h"
#include "core/rt_probe.h"
#include "core/rt_load.h"
#include "core/rt_parse.h"
#include "core/rt_sink.h"

struct hv_acc {
	const struct hypervisor_stream_opts *o;
	uint32_t *hist;
	uint64_t overflows;		/* of the whole run */
	struct rt_hvstream_summary sec;	/* the second being filled */
	uint64_t sum_ns, sec_overflows;
	uint32_t seq;
	uint64_t samples;
	struct hypervisor_stream_sent *sent;
	int err;			/* the first write error */
};

static int put(struct hv_acc *a, const uint8_t *buf, int len)
{
	if (len < 0)
		return a->err ? a->err : (a->err = len);
	if (!a->err && rt_write_all(a->o->fd, buf, (size_t)len))
		a->err = -EPIPE;
	if (!a->err)
		a->sent->frames++;
	a->seq++;
	a->sent->next_seq = a->seq;
	return a->err;
}

static void flush_second(struct hv_acc *a)
{
	uint8_t buf[RT_HVSTREAM_FRAME_MAX];

	if (!a->sec.samples)
		return;
	a->sec.avg_ns = a->sum_ns / a->sec.samples;
	a->sec.overflows = a->sec_overflows;
	put(a, buf, rt_hvstream_encode_summary(a->seq, &a->sec, buf, sizeof(buf)));
	a->sent->seconds++;
	memset(&a->sec, 0, sizeof(a->sec));
	a->sum_ns = a->sec_overflows = 0;
}

static void on_sample(void *priv, const struct rt_sample *s)
{
	struct hv_acc *a = priv;
	uint64_t second = s->seq * a->o->period_us / 1000000u;
	uint64_t ns = s->latency_ns < 0 ? 0 : (uint64_t)s->latency_ns;
	uint64_t b = ns / 1000u / a->o->bucket_us;

	if (second != a->sec.second && a->sec.samples)
		flush_second(a);
	a->sec.second = (uint32_t)second;
	if (!a->sec.samples || ns < a->sec.min_ns)
		a->sec.min_ns = ns;
	if (ns > a->sec.max_ns)
		a->sec.max_ns = ns;
	a->sec.samples++;
	a->sum_ns += ns;
	a->samples++;
	if (b < a->o->nbuckets) {
		a->hist[b]++;
	} else {
		a->overflows++;
		a->sec_overflows++;
	}
}

/* HELLO: this kernel, its preemption model, the probe's policy. */
static int hello(struct hv_acc *a)
{
	static const char *const names[] = { [SCHED_OTHER] = "SCHED_OTHER",
					     [SCHED_FIFO] = "SCHED_FIFO",
					     [SCHED_RR] = "SCHED_RR" };
	struct rt_hvstream_hello h = { .priority = (uint8_t)a->o->priority,
				       .period_us = a->o->period_us,
				       .nbuckets = a->o->nbuckets,
				       .bucket_us = a->o->bucket_us };
	uint8_t buf[RT_HVSTREAM_FRAME_MAX];
	struct rt_env env = { 0 };
	struct utsname u;

	if (!uname(&u))
		snprintf(h.kernel, sizeof(h.kernel), "%.64s", u.release);
	if (!rt_env_probe(&env) && env.preempt_model)
		snprintf(h.preempt, sizeof(h.preempt), "%.64s", env.preempt_model);
	rt_env_fini(&env);
	snprintf(h.policy, sizeof(h.policy), "%s",
		 a->o->policy >= 0 && a->o->policy <= SCHED_RR ? names[a->o->policy] : "?");
	return put(a, buf, rt_hvstream_encode_hello(a->seq, &h, buf, sizeof(buf)));
}

static void bye(struct hv_acc *a, uint32_t reason)
{
	struct rt_hvstream_bye b = { a->samples, reason };
	uint8_t buf[RT_HVSTREAM_FRAME_MAX];

	put(a, buf, rt_hvstream_encode_bye(a->seq, &b, buf, sizeof(buf)));
}

int hypervisor_stream_run(const struct hypervisor_stream_opts *o,
			  struct hypervisor_stream_sent *sent, char **cause)
{
	struct hv_acc a = { .o = o, .sent = sent, .seq = o->seq };
	struct rt_sink sink = { .sample = on_sample, .priv = &a };
	struct rt_probe_config cfg;
	struct rt_probe *p = NULL;
	uint8_t buf[RT_HVSTREAM_FRAME_MAX];
	int ret;

	memset(sent, 0, sizeof(*sent));
	sent->next_seq = o->seq;
	if (o->period_us < 100 || o->duration_s < 1 || o->duration_s > 3600 || !o->bucket_us ||
	    !o->nbuckets || o->nbuckets > 100000)
		return rt_err(cause, -EINVAL, "the stream's period (>= 100 us), duration "
			      "(1 .. 3600 s) or histogram (1 .. 100000 buckets) is out of range");
	a.hist = calloc(o->nbuckets, sizeof(*a.hist));
	if (!a.hist)
		return -ENOMEM;
	ret = hello(&a);
	if (ret) {
		rt_err(cause, ret, "the stream's reader went away: %s", strerror(-ret));
		goto out;
	}
	rt_probe_config_init(&cfg);
	cfg.policy = o->policy;
	cfg.priority = o->priority;
	cfg.interval_us = o->period_us;
	cfg.duration_ms = o->duration_s * 1000u;
	cfg.mlock = o->mlock;
	ret = rt_probe_start(&cfg, &p, cause);
	if (ret) {
		bye(&a, RT_HVSTREAM_BYE_ERROR);
		goto out;
	}
	while (!rt_probe_finished(p) && !(o->stop && *o->stop) && !a.err) {
		struct timespec ts = { 0, 20 * 1000000L };

		rt_probe_poll(p, NULL, &sink);
		nanosleep(&ts, NULL);
	}
	rt_probe_stop(p);
	while (rt_probe_poll(p, NULL, &sink) > 0)
		;
	flush_second(&a);
	for (uint32_t first = 0; first < o->nbuckets && !a.err; first += RT_HVSTREAM_HIST_MAX) {
		uint32_t n = o->nbuckets - first < RT_HVSTREAM_HIST_MAX ?
			     o->nbuckets - first : RT_HVSTREAM_HIST_MAX;

		put(&a, buf, rt_hvstream_encode_hist(a.seq, first, a.hist + first, n, buf,
						     sizeof(buf)));
	}
	bye(&a, o->stop && *o->stop ? RT_HVSTREAM_BYE_STOPPED : RT_HVSTREAM_BYE_DONE);
	sent->samples = a.samples;
	ret = a.err;
	if (ret)
		rt_err(cause, ret, "the stream's reader went away: %s", strerror(-ret));
out:
	if (p)
		rt_probe_free(p);
	free(a.hist);
	return ret;
}

/* ---- Serving the host's commands ------------------------------------------------- */

static const char *const serve_policies[] = {
	[SCHED_OTHER] = "other", [SCHED_FIFO] = "fifo", [SCHED_RR] = "rr",
};

static const char *const serve_loads[] = { "none", "batch", "disk", "batch+disk" };

int hypervisor_serve_parse(const char *line, struct hypervisor_serve_cmd *cmd, char **cause)
{
	char buf[HV_SERVE_LINE_MAX], *save = NULL, *w;
	unsigned int seen = 0;

	memset(cmd, 0, sizeof(*cmd));
	cmd->policy = -1;
	if (strlen(line) >= sizeof(buf))
		return rt_err(cause, -EINVAL, "a command longer than %u bytes", HV_SERVE_LINE_MAX);
	strcpy(buf, line);
	w = strtok_r(buf, " ", &save);
	if (w && !strcmp(w, "quit") && !strtok_r(NULL, " ", &save)) {
		cmd->quit = true;
		return 0;
	}
	if (!w || strcmp(w, "run"))
		return rt_err(cause, -EINVAL, "not a command: expected run or quit");
	while ((w = strtok_r(NULL, " ", &save))) {
		char *v = strchr(w, '=');
		unsigned int bit, u = 0;
		int bad = 0;

		if (!v)
			return rt_err(cause, -EINVAL, "\"%.32s\": expected KEY=VALUE", w);
		*v++ = '\0';
		if (!strcmp(w, "policy")) {
			bit = 1;
			for (int i = 0; i <= SCHED_RR; i++)
				if (serve_policies[i] && !strcmp(v, serve_policies[i]))
					cmd->policy = i;
			bad = cmd->policy < 0;
		} else if (!strcmp(w, "prio")) {
			bit = 2;
			bad = rt_parse_uint(w, v, 0, 99, &u, NULL);
			cmd->priority = (int)u;
		} else if (!strcmp(w, "period")) {
			bit = 4;
			bad = rt_parse_uint(w, v, 100, 1000000, &cmd->period_us, NULL);
		} else if (!strcmp(w, "duration")) {
			bit = 8;
			bad = rt_parse_uint(w, v, 1, 3600, &cmd->duration_s, NULL);
		} else if (!strcmp(w, "load")) {
			bit = 16;
			bad = 1;
			for (unsigned int i = 0; i < 4; i++)
				if (!strcmp(v, serve_loads[i])) {
					cmd->load = i;
					bad = 0;
				}
		} else {
			return rt_err(cause, -EINVAL, "unknown word \"%.32s\"", w);
		}
		if (bad || (seen & bit))
			return rt_err(cause, -EINVAL, "%s: \"%.32s\" %s", w, v,
				      bad ? "is not a valid value" : "given twice");
		seen |= bit;
	}
	if (seen != 31)
		return rt_err(cause, -EINVAL, "a run needs policy, prio, period, duration and load");
	if ((cmd->policy == SCHED_OTHER) != (cmd->priority == 0))
		return rt_err(cause, -EINVAL, "prio is 0 for other and 1..99 for fifo and rr");
	return 0;
}

int hypervisor_serve_format(const struct hypervisor_serve_cmd *cmd, char *buf, size_t size)
{
	int n;

	if (cmd->quit)
		n = snprintf(buf, size, "quit\n");
	else if (cmd->policy < 0 || cmd->policy > SCHED_RR || !serve_policies[cmd->policy] ||
		 cmd->load > 3)
		return -EINVAL;
	else
		n = snprintf(buf, size, "run policy=%s prio=%d period=%u duration=%u load=%s\n",
			     serve_policies[cmd->policy], cmd->priority, cmd->period_us,
			     cmd->duration_s, serve_loads[cmd->load]);
	return n < 0 || (size_t)n >= size ? -ENOSPC : n;
}

const char *hypervisor_load_name(unsigned int load)
{
	return serve_loads[load & 3u];
}

/* /dev/NAME of the entry NAME of @dir whose file @attr holds @want (one line), or NULL. */
static char *sysfs_device(const char *dir, const char *attr, const char *want)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *dev = NULL;

	while (d && !dev && (e = readdir(d))) {
		char path[PATH_MAX], got[128] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", dir, e->d_name, attr);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(got, sizeof(got), f))
			got[strcspn(got, "\n")] = '\0';
		fclose(f);
		if (!strcmp(got, want) && asprintf(&dev, "/dev/%s", e->d_name) < 0)
			dev = NULL;
	}
	if (d)
		closedir(d);
	if (!dev)
		errno = ENOENT;
	return dev;
}

char *hypervisor_scratch_device(void)
{
	return sysfs_device("/sys/block", "serial", HV_SCRATCH_SERIAL);
}

char *hypervisor_port_device(const char *name)
{
	return sysfs_device("/sys/class/virtio-ports", "name", name);
}

#define DISK_BLOCK (64u << 10)
#define DISK_SPAN (32u << 20)

/*
 * The disk workload: a child that writes DISK_BLOCK blocks round the first
 * DISK_SPAN bytes of @disk, each made durable before the next, until killed,
 * its parent dies or @bound_s passes. The disk is opened here, so one that
 * cannot be written with O_DIRECT refuses the run instead of leaving a run
 * that claims a workload it did not have; the writes are not waited for
 * (a host that starves QEMU's I/O thread is what some scenarios are about).
 */
static pid_t disk_start(const char *disk, unsigned int bound_s)
{
	int fd = open(disk, O_WRONLY | O_DIRECT | O_CLOEXEC);
	pid_t pid;

	if (fd < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		void *blk = NULL;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		alarm(bound_s);
		if (posix_memalign(&blk, 4096, DISK_BLOCK))
			_exit(1);
		memset(blk, 0x5a, DISK_BLOCK);
		for (off_t off = 0;; off = (off + DISK_BLOCK) % DISK_SPAN)
			if (pwrite(fd, blk, DISK_BLOCK, off) != (ssize_t)DISK_BLOCK || fdatasync(fd))
				_exit(2);
	}
	close(fd);
	return pid;
}

static void disk_stop(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* One line from @fd into @buf (without the newline); 0, -ETIMEDOUT, -EINTR, -EPIPE (EOF). */
static int read_line(const struct hypervisor_serve_opts *o, char *buf, size_t size)
{
	size_t n = 0;
	unsigned int waited_ms = 0;

	for (;;) {
		struct pollfd pfd = { .fd = o->fd, .events = POLLIN };
		char c;
		int r;

		if (o->stop && *o->stop)
			return -EINTR;
		r = poll(&pfd, 1, 200);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r <= 0) {
			waited_ms += 200;
			if (o->idle_s && waited_ms >= o->idle_s * 1000u)
				return -ETIMEDOUT;
			continue;
		}
		r = (int)read(o->fd, &c, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0) {
			/* The host is not connected (yet): wait as for a quiet line. */
			struct timespec ts = { 0, 200 * 1000000L };

			nanosleep(&ts, NULL);
			waited_ms += 200;
			if (o->idle_s && waited_ms >= o->idle_s * 1000u)
				return -ETIMEDOUT;
			continue;
		}
		if (c == '\n') {
			buf[n] = '\0';
			return 0;
		}
		if (n + 1 < size)
			buf[n++] = c;
	}
}

/* A run that cannot be made: HELLO and BYE "error" with no sample, so the host hears why. */
static int serve_refuse(int fd, uint32_t *seq)
{
	struct rt_hvstream_hello h = { .policy = "none", .period_us = 1, .nbuckets = 1,
				       .bucket_us = 1 };
	struct rt_hvstream_bye b = { 0, RT_HVSTREAM_BYE_ERROR };
	uint8_t buf[RT_HVSTREAM_FRAME_MAX];
	int n = rt_hvstream_encode_hello((*seq)++, &h, buf, sizeof(buf));

	if (n < 0 || rt_write_all(fd, buf, (size_t)n))
		return -EPIPE;
	n = rt_hvstream_encode_bye((*seq)++, &b, buf, sizeof(buf));
	return n < 0 || rt_write_all(fd, buf, (size_t)n) ? -EPIPE : 0;
}

int hypervisor_stream_serve(const struct hypervisor_serve_opts *o, unsigned int *runs,
			    char **cause)
{
	uint32_t seq = 0;
	int ret = 0;

	*runs = 0;
	for (;;) {
		struct hypervisor_stream_opts so = { .fd = o->fd, .bucket_us = 1,
					     .nbuckets = HV_SERVE_BUCKETS,
					     .mlock = o->mlock, .stop = o->stop };
		struct hypervisor_stream_sent sent;
		struct hypervisor_serve_cmd cmd;
		struct rt_load *batch = NULL;
		char line[HV_SERVE_LINE_MAX], *why = NULL;
		pid_t disk = -1;

		ret = read_line(o, line, sizeof(line));
		if (ret == -EINTR)
			return 0;
		if (ret)
			return ret == -ETIMEDOUT ? ret : rt_err(cause, ret, "the port: %s",
								 strerror(-ret));
		if (!*line)
			continue;
		so.seq = seq;
		if (hypervisor_serve_parse(line, &cmd, &why)) {
			/* A run with an impossible period answers HELLO + BYE error at once. */
			so.policy = SCHED_OTHER;
			so.period_us = 0;
			so.duration_s = 1;
		} else if (cmd.quit) {
			return 0;
		} else {
			so.policy = cmd.policy;
			so.priority = cmd.priority;
			so.period_us = cmd.period_us;
			so.duration_s = cmd.duration_s;
		}
		free(why);
		why = NULL;
		if (so.period_us && (cmd.load & HV_LOAD_BATCH))
			batch = rt_load_start("cpu", cmd.duration_s + 30, NULL);
		if (so.period_us && (cmd.load & HV_LOAD_DISK) && o->disk)
			disk = disk_start(o->disk, cmd.duration_s + 30);
		if (so.period_us && (((cmd.load & HV_LOAD_BATCH) && !batch) ||
				     ((cmd.load & HV_LOAD_DISK) && disk <= 0)))
			so.period_us = 0;	/* the workload asked for could not start */
		if (so.period_us) {
			ret = hypervisor_stream_run(&so, &sent, &why);
			seq = sent.next_seq;
		} else {
			ret = serve_refuse(o->fd, &seq);
		}
		disk_stop(disk);
		rt_load_free(batch);
		free(why);
		(*runs)++;
		if (ret == -EPIPE)
			return rt_err(cause, ret, "the host went away");
	}
}
