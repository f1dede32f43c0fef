/*
 * rt_task: a thread's scheduling from /proc (see the header).
 */
#include "rt_task.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
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
		if (field != 39 && field != 40 && field != 41)
			continue;
		if (field_num(p, end, &v))
			return -EINVAL;
		if (field == 39)
			out->processor = (int)v;
		else if (field == 40)
			out->rt_priority = v < 0 || v > 99 ? 0 : (unsigned int)v;
		else
			out->policy = (int)v;
	}
	return field == 41 ? 0 : -EINVAL;
}

int rt_task_sched_read(pid_t pid, pid_t tid, struct rt_task_sched *out, char **cause)
{
	char path[64], buf[1024];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rt_err(cause, -errno, "%s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return rt_err(cause, -errno, "%s: %s", path, strerror(errno));
	if (rt_task_stat_parse(buf, (size_t)n, out))
		return rt_err(cause, -EINVAL, "%s: not a stat line", path);
	return 0;
}
