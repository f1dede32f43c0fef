/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_latency_kside: the kernel-side scenarios (see the header). The
 * threads here are the lab's own: a writer that asks the module for one
 * section every LATENCY_KSIDE_PERIOD_MS (SCHED_OTHER, or SCHED_FIFO 99
 * beside the spinner, so its request lands inside a burst), and the
 * spinner, which gives the CPU up with sched_yield() every millisecond of
 * a burst: that lets the writer (same priority) in, and nothing below 99.
 */
#include "lab_latency_kside.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/rt_err.h"
#include "core/rt_journal.h"
#include "core/rt_json.h"
#include "core/rt_result.h"
#include "core/rt_log.h"
#include "lab_latency_int.h"

#define NS_PER_MS 1000000ll

static const char *const kside_files[] = {
	[LATENCY_KSIDE_NONE] = NULL,
	[LATENCY_KSIDE_IRQ_THREAD] = "irq_thread_us",
	[LATENCY_KSIDE_HARDIRQ] = "hardirq_us",
	[LATENCY_KSIDE_LOCK_RAW] = "raw_spinlock_us",
	[LATENCY_KSIDE_LOCK_SLEEPING] = "spinlock_us",
};

static const char *const kside_words[] = {
	[LATENCY_KSIDE_NONE] = "none",
	[LATENCY_KSIDE_IRQ_THREAD] = "irq_thread",
	[LATENCY_KSIDE_HARDIRQ] = "hardirq",
	[LATENCY_KSIDE_LOCK_RAW] = "raw_spinlock",
	[LATENCY_KSIDE_LOCK_SLEEPING] = "spinlock",
};

const char *latency_kside_file(enum latency_kside k)
{
	return (unsigned int)k < sizeof(kside_files) / sizeof(kside_files[0]) ? kside_files[k] :
	       NULL;
}

int latency_kside_check(const struct latency_plan *pl, const char *root, char **cause)
{
	const char *file = latency_kside_file(pl->kside);
	char dir[256], path[320];
	struct stat st;

	if (!file)
		return 0;
	snprintf(dir, sizeof(dir), "%s%s", root ? root : "", LATENCY_KSIDE_DIR);
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (access(path, W_OK) == 0)
		return 0;
	if (errno == EACCES || errno == EPERM)
		return rt_err(cause, -ENOTSUP, "scenario %s writes %s, which only root may: run "
			      "it as root (in the classroom VM rtlab is root)", pl->name, path);
	if (stat(dir, &st) == 0)
		return rt_err(cause, -ENOTSUP, "scenario %s needs %s, and the rtlab_inject loaded "
			      "here is older and lacks it: rebuild it from this rtlab "
			      "(`make kmod`), unload the old one (`rmmod rtlab_inject`) and load "
			      "the new one (`insmod build/kmod/host/rtlab_inject.ko`), or use the "
			      "classroom VM (`rtlab vm run --kernel rt`)", pl->name, path);
	return rt_err(cause, -ENOTSUP, "scenario %s needs the rtlab_inject kernel module (%s is "
		      "missing: the module is not loaded, or debugfs is not mounted at "
		      "/sys/kernel/debug). Every kernel of the classroom VM has it: "
		      "`rtlab vm run --kernel rt` (or lab, or stock). On a Debian host with "
		      "linux-headers-$(uname -r), `make kmod` builds it into build/kmod/host/ and "
		      "`insmod build/kmod/host/rtlab_inject.ko` (root) loads it "
		      "(kernel-patches/README.md); the other scenarios run without it",
		      pl->name, dir);
}

/* The value of line "@key N" of the module's stats, or -1. */
static long long stats_value(const char *path, const char *key)
{
	char buf[1024];
	size_t klen = strlen(key);
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	for (char *line = buf; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		if (!strncmp(line, key, klen) && line[klen] == ' ')
			return strtoll(line + klen + 1, NULL, 10);
	return -1;
}

/* The tid of the kernel thread irq/@irq-rtlab_inject (or its comm, cut to 15), or 0. */
static pid_t find_irq_thread(const char *root, long long irq)
{
	char want[48], path[320], comm[64];
	pid_t found = 0;
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/proc", root);
	d = opendir(path);
	if (!d)
		return 0;
	snprintf(want, sizeof(want), "irq/%lld-rtlab_inject", irq);
	while (!found && (de = readdir(d))) {
		ssize_t n;
		int fd;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/proc/%s/comm", root, de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, comm, sizeof(comm) - 1);
		close(fd);
		if (n <= 0)
			continue;
		comm[n] = '\0';
		comm[strcspn(comm, "\n")] = '\0';
		/* Older kernels cut every comm to 15 characters. */
		if (!strcmp(comm, want) || (strlen(comm) == 15 && !strncmp(comm, want, 15)))
			found = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	return found;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void sleep_until(int64_t t)
{
	struct timespec ts = { .tv_sec = t / 1000000000ll, .tv_nsec = t % 1000000000ll };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void *writer_main(void *arg)
{
	struct latency_kside_run *r = arg;
	unsigned int us = r->plan->spinner ? LATENCY_KSIDE_SPINNER_SECTION_US :
			  LATENCY_KSIDE_SECTION_US;
	bool irq = r->plan->kside == LATENCY_KSIDE_IRQ_THREAD;
	int64_t next = now_ns();
	char val[16];
	int len = snprintf(val, sizeof(val), "%u", us);

	while (!atomic_load(&r->stop)) {
		if (r->plan->spinner) {
			/* Raised by the spinner, inside its burst; the timeout sees the stop. */
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 1;
			if (sem_timedwait(&r->burst, &ts))
				continue;
		} else {
			next += LATENCY_KSIDE_PERIOD_MS * NS_PER_MS;
			sleep_until(next);
		}
		if (atomic_load(&r->stop))
			break;
		if (write(r->fd, val, (size_t)len) == len) {
			r->sections++;
		} else if (errno == EBUSY) {
			r->refused++;
			continue;
		} else {
			if (!r->write_errno)
				r->write_errno = errno;
			continue;
		}
		if (irq) {
			long long d = stats_value(r->stats_path, "irq_thread_delay_last_ns");

			if (d >= 0) {
				r->delays++;
				r->delay_sum_ns += (uint64_t)d;
				if ((uint64_t)d > r->delay_max_ns)
					r->delay_max_ns = (uint64_t)d;
			}
		}
	}
	return NULL;
}

static void *spinner_main(void *arg)
{
	struct latency_kside_run *r = arg;
	int64_t next = now_ns();

	while (!atomic_load(&r->stop)) {
		int64_t end = next + LATENCY_KSIDE_BURST_MS * NS_PER_MS, yield = now_ns() + NS_PER_MS;
		int64_t t;
		bool raised = false;

		while ((t = now_ns()) < end && !atomic_load(&r->stop))
			if (t >= yield) {
				/*
				 * After the first millisecond, ask the writer for an interrupt:
				 * it arrives inside the burst (a writer on a timer of its own
				 * would keep one phase in virtual time, and could miss every
				 * burst).
				 */
				if (!raised)
					sem_post(&r->burst);
				raised = true;
				sched_yield();	/* lets the writer (also 99) in, nothing lower */
				yield = t + NS_PER_MS;
			}
		next += LATENCY_KSIDE_BURST_PERIOD_MS * NS_PER_MS;
		sleep_until(next);
	}
	return NULL;
}

static int start_thread(pthread_t *t, void *(*fn)(void *), void *arg, int policy, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	pthread_attr_t a;
	int ret;

	pthread_attr_init(&a);
	if (policy != SCHED_OTHER) {
		pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&a, policy);
		pthread_attr_setschedparam(&a, &sp);
	}
	ret = pthread_create(t, &a, fn, arg);
	pthread_attr_destroy(&a);
	return -ret;
}

/* Read a knob's value into @buf (trimmed); 0 or a negative errno. */
static int knob_read(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/*
 * The spinner bursts for 20 ms of every 100, so it cannot hold the CPU on its own;
 * still, a bug could make it spin on, so the RT throttle (6.1) and the fair server
 * (6.12: SCHED_OTHER's 5 % beside real-time tasks) must be on. Each knob found off
 * is switched on through the journal and put back after the scenario.
 */
static int guard_machine(struct lab_ctx *ctx, struct latency_kside_run *r, const char *root,
			 char **cause)
{
	static const struct { const char *rel, *off, *on, *what; } knobs[2] = {
		{ "/proc/sys/kernel/sched_rt_runtime_us", "-1", "950000", "RT throttle" },
		{ "/sys/kernel/debug/sched/fair_server/cpu0/runtime", "0", "50000000",
		  "fair server" },
	};
	size_t used = 0;

	for (unsigned int i = 0; i < 2; i++) {
		char path[160], val[32];
		int ret;

		snprintf(path, sizeof(path), "%s%s", root, knobs[i].rel);
		if (knob_read(path, val, sizeof(val)))
			continue;	/* not in this kernel */
		if (strcmp(val, knobs[i].off)) {
			used += (size_t)snprintf(r->throttle + used, sizeof(r->throttle) - used,
						 "%s%s %s", used ? ", " : "", knobs[i].what, val);
			continue;
		}
		if (!ctx->journal)
			return rt_err(cause, -EPERM, "scenario %s: the %s is off (%s is %s) and "
				      "there is no undo journal to switch it on safely",
				      r->plan->name, knobs[i].what, path, val);
		ret = rt_journal_write_file(ctx->journal, path, knobs[i].on, strlen(knobs[i].on),
					    cause);
		if (ret)
			return ret;
		snprintf(r->throttle_path[i], sizeof(r->throttle_path[i]), "%s", path);
		snprintf(r->throttle_old[i], sizeof(r->throttle_old[i]), "%s", val);
		used += (size_t)snprintf(r->throttle + used, sizeof(r->throttle) - used,
					 "%s%s %s (was %s)", used ? ", " : "", knobs[i].what,
					 knobs[i].on, val);
	}
	return 0;
}

/* Find irq/N-rtlab_inject and, if the plan asks, set its priority through the journal. */
static int irq_thread_setup(struct lab_ctx *ctx, struct latency_kside_run *r, const char *root,
			    char **cause)
{
	long long irq = stats_value(r->stats_path, "irq");
	struct sched_param sp;

	r->irq_tid = irq > 0 ? find_irq_thread(root, irq) : 0;
	if (!r->irq_tid)
		return rt_err(cause, -ENOTSUP, "scenario %s: no thread irq/%lld-rtlab_inject "
			      "found in /proc (the module's interrupt is missing: see dmesg)",
			      r->plan->name, irq);
	r->irq_old_policy = sched_getscheduler(r->irq_tid);
	if (r->irq_old_policy < 0 || sched_getparam(r->irq_tid, &sp))
		return rt_err(cause, -errno, "scenario %s: cannot read the scheduling of "
			      "irq/%lld-rtlab_inject (tid %d): %s", r->plan->name, irq,
			      (int)r->irq_tid, strerror(errno));
	r->irq_old_priority = sp.sched_priority;
	r->irq_priority = sp.sched_priority;
	if (!r->plan->irq_priority || r->plan->irq_priority == sp.sched_priority)
		return 0;
	if (!ctx->journal)
		return rt_err(cause, -EPERM, "scenario %s: no undo journal, so the priority of "
			      "irq/%lld-rtlab_inject is not changed", r->plan->name, irq);
	if (rt_journal_set_sched(ctx->journal, r->irq_tid, SCHED_FIFO, r->plan->irq_priority,
				 cause))
		return -EPERM;
	r->irq_changed = true;
	r->irq_priority = r->plan->irq_priority;
	return 0;
}

int latency_kside_start(struct lab_ctx *ctx, struct latency_kside_run *r,
			const struct latency_plan *pl, const char *root, char **cause)
{
	const char *file = latency_kside_file(pl->kside);
	char path[320];
	int ret;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->irq_priority = -1;
	atomic_init(&r->stop, false);
	if (!file)
		return 0;
	sem_init(&r->burst, 0, 0);
	r->running = true;
	r->plan = pl;
	root = root ? root : "";
	ret = latency_kside_check(pl, root, cause);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s%s/%s", root, LATENCY_KSIDE_DIR, file);
	snprintf(r->stats_path, sizeof(r->stats_path), "%s%s/stats", root, LATENCY_KSIDE_DIR);
	r->fd = open(path, O_WRONLY | O_CLOEXEC);
	if (r->fd < 0)
		return rt_err(cause, -errno, "%s: %s", path, strerror(errno));
	if (pl->kside == LATENCY_KSIDE_IRQ_THREAD) {
		ret = irq_thread_setup(ctx, r, root, cause);
		if (ret)
			return ret;
	}
	if (pl->spinner) {
		ret = guard_machine(ctx, r, root, cause);
		if (ret)
			return ret;
		ret = start_thread(&r->spinner, spinner_main, r, SCHED_FIFO,
				   LATENCY_KSIDE_SPINNER_PRIORITY);
		if (ret)
			return rt_err(cause, ret, "scenario %s: cannot start the SCHED_FIFO 99 "
				      "spinner: %s", pl->name, strerror(-ret));
		r->spinner_up = true;
	}
	ret = start_thread(&r->writer, writer_main, r, pl->spinner ? SCHED_FIFO : SCHED_OTHER,
			   pl->spinner ? LATENCY_KSIDE_SPINNER_PRIORITY : 0);
	if (ret)
		return rt_err(cause, ret, "scenario %s: cannot start the injector's thread: %s",
			      pl->name, strerror(-ret));
	r->writer_up = true;
	return 0;
}

static void knob_put_back(const char *path, const char *old)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd < 0 || write(fd, old, strlen(old)) < 0)
		rt_log(RT_LOG_WARN, "%s: not put back to %s now (%s); the undo journal tries again "
		       "when rtlab ends", path, old, strerror(errno));
	if (fd >= 0)
		close(fd);
}

void latency_kside_stop(struct latency_kside_run *r)
{
	if (!r->running)
		return;		/* never started, or a plan without a kernel side */
	atomic_store(&r->stop, true);
	if (r->writer_up)
		pthread_join(r->writer, NULL);
	if (r->spinner_up)
		pthread_join(r->spinner, NULL);
	r->writer_up = r->spinner_up = false;
	if (r->irq_changed) {
		struct sched_param sp = { .sched_priority = r->irq_old_priority };

		/* The journal puts it back too, when rtlab ends; now is sooner. */
		if (sched_setscheduler(r->irq_tid, r->irq_old_policy, &sp))
			rt_log(RT_LOG_WARN, "irq thread %d: priority not put back now (%s); the undo "
			       "journal tries again when rtlab ends", (int)r->irq_tid,
			       strerror(errno));
		r->irq_changed = false;
	}
	for (unsigned int i = 0; i < 2; i++)
		if (r->throttle_path[i][0]) {
			knob_put_back(r->throttle_path[i], r->throttle_old[i]);
			r->throttle_path[i][0] = '\0';
		}
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	sem_destroy(&r->burst);
	r->running = false;
}

int latency_kside_record(json_t *o, const struct latency_kside_run *r)
{
	const struct latency_plan *pl = r->plan;
	int err = 0;

	if (!pl)
		return 0;
	err |= json_object_set_new(o, "kside", json_string(kside_words[pl->kside]));
	err |= json_object_set_new(o, "inject_section_us", json_integer(pl->spinner ?
				   LATENCY_KSIDE_SPINNER_SECTION_US : LATENCY_KSIDE_SECTION_US));
	err |= json_object_set_new(o, "inject_sections_count", json_integer((json_int_t)r->sections));
	err |= json_object_set_new(o, "inject_refused_count", json_integer((json_int_t)r->refused));
	if (r->write_errno)
		err |= json_object_set_new(o, "inject_error", json_string(strerror(r->write_errno)));
	/* Figures that were not measured are left out, not null: the keys are numbers. */
	if (pl->kside == LATENCY_KSIDE_IRQ_THREAD && r->irq_priority >= 0)
		err |= json_object_set_new(o, "irq_thread_priority", json_integer(r->irq_priority));
	if (pl->kside == LATENCY_KSIDE_IRQ_THREAD && r->delays) {
		err |= json_object_set_new(o, "irq_thread_delay_max_us",
					   json_real((double)r->delay_max_ns / 1000.0));
		err |= json_object_set_new(o, "irq_thread_delay_avg_us",
					   json_real((double)r->delay_sum_ns / 1000.0 /
						     (double)r->delays));
	}
	if (pl->spinner) {
		err |= json_object_set_new(o, "spinner_priority",
					   json_integer(LATENCY_KSIDE_SPINNER_PRIORITY));
		err |= json_object_set_new(o, "spinner_burst_ms", json_integer(LATENCY_KSIDE_BURST_MS));
		err |= json_object_set_new(o, "spinner_period_ms",
					   json_integer(LATENCY_KSIDE_BURST_PERIOD_MS));
		err |= json_object_set_new(o, "machine_guard", json_string(r->throttle));
	}
	return err ? -ENOMEM : 0;
}

static const struct latency_col kside_cols[] = {
	{ "scenario", "scenario", "" }, { "kside", "kernel side", "" },
	{ "section", "section", "us" }, { "sections", "sections", "" },
	{ "irq_prio", "irq thread prio", "" }, { "irq_wait_max", "irq thread wait max", "us" },
	{ "max", "probe max", "us" },
};

int latency_kside_view(json_t *scens, json_t *views)
{
	json_t *v = latency_view_new("kernel-side", "The kernel side: the probe beside the "
				     "injector's interrupt thread or lock (lesson 16)", kside_cols,
				     sizeof(kside_cols) / sizeof(kside_cols[0]));
	json_t *s;
	size_t i;
	int ret = 0;

	if (!v)
		return -ENOMEM;
	json_array_foreach(scens, i, s) {
		if (!json_is_string(json_object_get(s, "kside")))
			continue;
		ret |= rt_result_view_add_row(v, json_pack(
			"[s, s, o, o, o, o, o]", rt_json_text(s, "name"), rt_json_text(s, "kside"),
			rt_json_num_cell(s, "inject_section_us"),
			rt_json_num_cell(s, "inject_sections_count"),
			rt_json_num_cell(s, "irq_thread_priority"),
			rt_json_num_cell(s, "irq_thread_delay_max_us"), rt_json_num_cell(s, "max_us")));
	}
	if (!ret && rt_result_view_nrows(v))
		ret = json_array_append(views, v);
	json_decref(v);
	return ret ? -ENOMEM : 0;
}
