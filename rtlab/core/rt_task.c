/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_task: a thread's scheduling from /proc (see the header).
 */
#include "rt_task.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_err.h"

/* The number at @p (digits, optionally '-'), up to a space or the end; -EINVAL else. */
static int field_num(const char *p, const char *end, long long *v)
{
	long long x = 0;
	bool neg = false, any = false;

	if (p < end && *p == '-') {
		neg = true;
		p++;
	}
	for (; p < end && *p != ' ' && *p != '\n'; p++) {
		if (*p < '0' || *p > '9' || x > 1000000000000ll)
			return -EINVAL;
		x = x * 10 + (*p - '0');
		any = true;
	}
	if (!any)
		return -EINVAL;
	*v = neg ? -x : x;
	return 0;
}

int rt_task_stat_parse(const char *text, size_t len, struct rt_task_sched *out)
{
	const char *end = text + len, *p = NULL;
	long long v;
	int field = 2;	/* the comm, which ends at the last ')' */

	for (const char *q = text; q < end; q++)
		if (*q == ')')
			p = q;
	if (!p || p + 2 >= end || p[1] != ' ')
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	p += 2;	/* field 3: the state */
	out->state = *p;
	for (field = 3; p < end && field < 41; ) {
		while (p < end && *p != ' ')
			p++;
		if (p >= end)
			return -EINVAL;
		p++;
		field++;
		if (field != 14 && field != 15 && field != 39 && field != 40 && field != 41)
			continue;
		if (field_num(p, end, &v))
			return -EINVAL;
		if (field == 14 || field == 15)
			*(field == 14 ? &out->utime : &out->stime) = v < 0 ? 0 : (unsigned long long)v;
		else if (field == 39)
			out->processor = (int)v;
		else if (field == 40)
			out->rt_priority = v < 0 || v > 99 ? 0 : (unsigned int)v;
		else
			out->policy = (int)v;
	}
	return field == 41 ? 0 : -EINVAL;
}

/* /proc/@pid/task/@tid/@name into @buf (NUL-terminated); its length, or a negative errno. */
static ssize_t task_file(pid_t pid, pid_t tid, const char *name, char *buf, size_t size,
			 char *path, size_t path_size, char **cause)
{
	ssize_t n;
	int fd;

	if (tid > 0)
		snprintf(path, path_size, "/proc/%d/task/%d/%s", (int)pid, (int)tid, name);
	else	/* the whole process */
		snprintf(path, path_size, "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rt_err(cause, -errno, "%s: %s", path, strerror(errno));
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return rt_err(cause, -errno, "%s: %s", path, strerror(errno));
	buf[n] = '\0';
	return n;
}

int rt_task_sched_read(pid_t pid, pid_t tid, struct rt_task_sched *out, char **cause)
{
	char path[64], buf[1024];
	ssize_t n = task_file(pid, tid, "stat", buf, sizeof(buf), path, sizeof(path), cause);

	if (n < 0)
		return (int)n;
	if (rt_task_stat_parse(buf, (size_t)n, out))
		return rt_err(cause, -EINVAL, "%s: not a stat line", path);
	return 0;
}

int rt_task_process_cpu_ms(pid_t pid, unsigned long long *ms, char **cause)
{
	struct rt_task_sched t;
	long hz = sysconf(_SC_CLK_TCK);
	int ret = rt_task_sched_read(pid, 0, &t, cause);

	if (ret)
		return ret;
	*ms = (t.utime + t.stime) * 1000ull / (unsigned long long)(hz > 0 ? hz : 100);
	return 0;
}

int rt_task_schedstat_parse(const char *text, unsigned long long *exec_ns,
			    unsigned long long *wait_ns)
{
	char *end;

	errno = 0;
	*exec_ns = strtoull(text, &end, 10);
	if (end == text || *end != ' ' || errno)
		return -EINVAL;
	text = end + 1;
	*wait_ns = strtoull(text, &end, 10);
	if (end == text || (*end != ' ' && *end != '\n' && *end) || errno)
		return -EINVAL;
	return 0;
}

int rt_task_schedstat_read(pid_t pid, pid_t tid, unsigned long long *exec_ns,
			   unsigned long long *wait_ns, char **cause)
{
	char path[64], buf[128];
	ssize_t n = task_file(pid, tid, "schedstat", buf, sizeof(buf), path, sizeof(path), cause);

	if (n < 0)
		return (int)n;
	if (rt_task_schedstat_parse(buf, exec_ns, wait_ns))
		return rt_err(cause, -EINVAL, "%s: not a schedstat line", path);
	return 0;
}
