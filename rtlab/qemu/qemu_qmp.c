/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qemu_qmp: QMP over a unix socket (see qemu_qmp.h). Input is buffered and split at newlines;
 * a single message longer than QEMU_QMP_MAX_LINE is a protocol error, so a confused peer
 * cannot make us allocate without bound.
 */
#include "qemu_qmp.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/rt_buf.h"
#include "core/rt_err.h"
#include "core/rt_time.h"

#define QEMU_QMP_MAX_LINE (1024 * 1024)

struct qemu_qmp {
	int fd;
	unsigned int timeout_ms;
	struct rt_buf in;	/* bytes received and not yet consumed */
};

int qemu_qmp_parse(const char *line, json_t **msg, enum qemu_qmp_kind *kind, char **cause)
{
	json_error_t jerr;
	json_t *m;

	*msg = NULL;
	m = json_loads(line, JSON_REJECT_DUPLICATES, &jerr);
	if (!m)
		return rt_err(cause, -EPROTO, "QMP: not JSON: %s", jerr.text);
	if (!json_is_object(m)) {
		json_decref(m);
		return rt_err(cause, -EPROTO, "QMP: a message must be a JSON object");
	}
	if (json_object_get(m, "QMP")) {
		*kind = QEMU_QMP_GREETING;
	} else if (json_object_get(m, "return")) {
		*kind = QEMU_QMP_RETURN;
	} else if (json_is_object(json_object_get(m, "error"))) {
		*kind = QEMU_QMP_ERROR;
	} else if (json_is_string(json_object_get(m, "event"))) {
		*kind = QEMU_QMP_EVENT;
	} else {
		json_decref(m);
		return rt_err(cause, -EPROTO, "QMP: a message with neither QMP, return, error "
			      "nor event");
	}
	*msg = m;
	return 0;
}

/* Receive one line into a new string (without the newline). */
static int qemu_qmp_read_line(struct qemu_qmp *q, char **line, char **cause)
{
	uint64_t deadline = rt_time_deadline_ms(q->timeout_ms);
	char buf[4096];

	for (;;) {
		const char *s = rt_buf_str(&q->in);
		const char *nl = memchr(s, '\n', q->in.len);
		struct pollfd pfd = { .fd = q->fd, .events = POLLIN };
		ssize_t n;
		int left, pr;

		if (nl) {
			size_t len = (size_t)(nl - s);
			char *rest;

			*line = strndup(s, len);
			if (!*line)
				return -ENOMEM;
			rest = strdup(nl + 1);
			if (!rest) {
				free(*line);
				*line = NULL;
				return -ENOMEM;
			}
			rt_buf_reset(&q->in);
			if (rt_buf_puts(&q->in, rest) < 0) {
				free(rest);
				free(*line);
				*line = NULL;
				return -ENOMEM;
			}
			free(rest);
			return 0;
		}
		if (q->in.len > QEMU_QMP_MAX_LINE)
			return rt_err(cause, -EPROTO, "QMP: a message longer than %d bytes",
				      QEMU_QMP_MAX_LINE);
		left = rt_time_left_ms(deadline);
		if (left <= 0)
			return rt_err(cause, -ETIMEDOUT, "QMP: no answer within %u ms",
				      q->timeout_ms);
		pr = poll(&pfd, 1, left);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0)
			return rt_err(cause, -errno, "QMP: poll: %s", strerror(errno));
		if (pr == 0)
			continue;
		n = read(q->fd, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return rt_err(cause, -errno, "QMP: read: %s", strerror(errno));
		if (n == 0)
			return rt_err(cause, -EPIPE, "QMP: QEMU closed the connection");
		/* A NUL byte would hide the rest of the buffer from the string functions. */
		if (memchr(buf, '\0', (size_t)n))
			return rt_err(cause, -EPROTO, "QMP: a NUL byte in the stream");
		if (rt_buf_append(&q->in, buf, (size_t)n) < 0)
			return -ENOMEM;
	}
}

/* Send @text and a newline; MSG_NOSIGNAL so a dead QEMU gives EPIPE, not SIGPIPE. */
static int qemu_qmp_send(int fd, const char *text)
{
	size_t len = strlen(text), off = 0;

	while (off <= len) {
		const char *p = off < len ? text + off : "\n";
		size_t n = off < len ? len - off : 1;
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		off += (size_t)w;
	}
	return 0;
}

/* The next message that is not an event. */
static int qemu_qmp_next(struct qemu_qmp *q, json_t **msg, enum qemu_qmp_kind *kind, char **cause)
{
	for (;;) {
		char *line = NULL;
		int ret = qemu_qmp_read_line(q, &line, cause);

		if (ret < 0)
			return ret;
		ret = qemu_qmp_parse(line, msg, kind, cause);
		free(line);
		if (ret < 0)
			return ret;
		if (*kind != QEMU_QMP_EVENT)
			return 0;
		json_decref(*msg);
		*msg = NULL;
	}
}

int qemu_qmp_execute(struct qemu_qmp *q, const char *cmd, json_t *args, json_t **ret,
		   char **cause)
{
	enum qemu_qmp_kind kind;
	json_t *req, *msg = NULL;
	char *text = NULL;
	int err;

	if (ret)
		*ret = NULL;
	req = json_pack("{s:s}", "execute", cmd);
	if (!req)
		return -ENOMEM;
	if (args && json_object_set(req, "arguments", args) < 0) {
		err = -ENOMEM;
		goto out_req;
	}
	text = json_dumps(req, JSON_COMPACT);
	if (!text) {
		err = -ENOMEM;
		goto out_req;
	}
	err = qemu_qmp_send(q->fd, text);
	if (err < 0) {
		err = rt_err(cause, err, "QMP: could not send %s: %s", cmd, strerror(-err));
		goto out_text;
	}
	err = qemu_qmp_next(q, &msg, &kind, cause);
	if (err < 0)
		goto out_text;
	if (kind == QEMU_QMP_ERROR) {
		json_t *e = json_object_get(msg, "error");
		const char *cls = json_string_value(json_object_get(e, "class"));
		const char *desc = json_string_value(json_object_get(e, "desc"));

		err = rt_err(cause, -EREMOTEIO, "QMP: %s failed: %s: %s", cmd,
			     cls ? cls : "unknown error", desc ? desc : "no description");
		goto out_msg;
	}
	if (kind != QEMU_QMP_RETURN) {
		err = rt_err(cause, -EPROTO, "QMP: unexpected message in answer to %s", cmd);
		goto out_msg;
	}
	if (ret)
		*ret = json_incref(json_object_get(msg, "return"));
	err = 0;
out_msg:
	json_decref(msg);
out_text:
	free(text);
out_req:
	json_decref(req);
	return err;
}

struct qemu_qmp *qemu_qmp_open_fd(int fd, unsigned int timeout_ms, char **cause)
{
	struct qemu_qmp *q;
	enum qemu_qmp_kind kind;
	json_t *msg = NULL;
	int err;

	q = calloc(1, sizeof(*q));
	if (!q) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	q->fd = fd;
	q->timeout_ms = timeout_ms;
	rt_buf_init(&q->in);
	err = qemu_qmp_next(q, &msg, &kind, cause);
	if (err < 0)
		goto out_fail;
	json_decref(msg);
	if (kind != QEMU_QMP_GREETING) {
		err = rt_err(cause, -EPROTO, "QMP: the first message is not a greeting");
		goto out_fail;
	}
	err = qemu_qmp_execute(q, "qmp_capabilities", NULL, NULL, cause);
	if (err < 0)
		goto out_fail;
	return q;

out_fail:
	qemu_qmp_free(q);
	errno = -err;
	return NULL;
}

int qemu_socket_connect(const char *path, unsigned int timeout_ms,
		      const volatile sig_atomic_t *stop, char **cause)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	uint64_t deadline = rt_time_deadline_ms(timeout_ms);
	int fd, err;

	if (strlen(path) >= sizeof(addr.sun_path))
		return rt_err(cause, -ENAMETOOLONG, "socket path too long: %s", path);
	strcpy(addr.sun_path, path);
	for (;;) {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return rt_err(cause, -errno, "socket: %s", strerror(errno));
		if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0)
			return fd;
		err = errno;
		close(fd);
		if (stop && *stop)
			return rt_err(cause, -EINTR, "stopped while connecting to %s", path);
		if ((err != ENOENT && err != ECONNREFUSED) || rt_time_passed(deadline))
			return rt_err(cause, -err, "cannot connect to %s: %s", path, strerror(err));
		rt_time_sleep_ms(20, NULL);
	}
}

struct qemu_qmp *qemu_qmp_connect(const char *path, unsigned int timeout_ms, char **cause)
{
	int fd = qemu_socket_connect(path, timeout_ms, NULL, cause);

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	return qemu_qmp_open_fd(fd, timeout_ms, cause);
}

void qemu_qmp_free(struct qemu_qmp *q)
{
	if (!q)
		return;
	if (q->fd >= 0)
		close(q->fd);
	rt_buf_fini(&q->in);
	free(q);
}

int qemu_qmp_status(struct qemu_qmp *q, char *status, size_t size, char **cause)
{
	json_t *ret = NULL;
	const char *st;
	int r;

	r = qemu_qmp_execute(q, "query-status", NULL, &ret, cause);
	if (r)
		return r;
	st = json_string_value(json_object_get(ret, "status"));
	if (st)
		snprintf(status, size, "%s", st);
	else
		r = rt_err(cause, -EPROTO, "query-status: no status in the answer");
	json_decref(ret);
	return r;
}

int qemu_qmp_vcpu_threads(struct qemu_qmp *q, int *tids, size_t max, size_t *n, char **cause)
{
	json_t *ret = NULL, *cpu;
	size_t i;
	int err;

	*n = 0;
	err = qemu_qmp_execute(q, "query-cpus-fast", NULL, &ret, cause);
	if (err)
		return err;
	if (!json_is_array(ret) || !json_array_size(ret) || json_array_size(ret) > max) {
		err = rt_err(cause, -EPROTO, "query-cpus-fast: expected 1 to %zu vCPUs, got %s",
			     max, json_is_array(ret) ? "another number" : "no list");
		goto out;
	}
	for (i = 0; i < json_array_size(ret); i++)
		tids[i] = 0;
	json_array_foreach(ret, i, cpu) {
		json_t *idx = json_object_get(cpu, "cpu-index"), *tid = json_object_get(cpu,
											 "thread-id");
		json_int_t k = json_is_integer(idx) ? json_integer_value(idx) : -1;
		json_int_t t = json_is_integer(tid) ? json_integer_value(tid) : 0;

		if (k < 0 || (size_t)k >= json_array_size(ret) || t <= 0 || t > INT32_MAX ||
		    tids[k]) {
			err = rt_err(cause, -EPROTO, "query-cpus-fast: entry %zu has no usable "
				     "cpu-index and thread-id", i);
			goto out;
		}
		tids[k] = (int)t;
	}
	*n = json_array_size(ret);
	for (i = 0; i < *n; i++)
		for (size_t j = i + 1; j < *n; j++)
			if (tids[i] == tids[j]) {
				err = rt_err(cause, -ENOTUNIQ, "vCPUs %zu and %zu run on one host "
					     "thread (%d): QEMU is not running multi-threaded "
					     "(-accel tcg,thread=multi or kvm)", i, j, tids[i]);
				goto out;
			}
out:
	if (err)
		*n = 0;
	json_decref(ret);
	return err;
}

int qemu_qmp_iothreads(struct qemu_qmp *q, char **ids, int *tids, size_t max, size_t *n,
		     char **cause)
{
	json_t *ret = NULL, *it;
	size_t i;
	int err;

	*n = 0;
	err = qemu_qmp_execute(q, "query-iothreads", NULL, &ret, cause);
	if (err)
		return err;
	if (!json_is_array(ret) || json_array_size(ret) > max) {
		err = rt_err(cause, -EPROTO, "query-iothreads: expected at most %zu I/O threads",
			     max);
		goto out;
	}
	json_array_foreach(ret, i, it) {
		const char *id = json_string_value(json_object_get(it, "id"));
		json_t *tid = json_object_get(it, "thread-id");
		json_int_t t = json_is_integer(tid) ? json_integer_value(tid) : 0;

		if (!id || t <= 0 || t > INT32_MAX) {
			err = rt_err(cause, -EPROTO, "query-iothreads: entry %zu has no id and "
				     "thread-id", i);
			goto out;
		}
		ids[*n] = strdup(id);
		if (!ids[*n]) {
			err = -ENOMEM;
			goto out;
		}
		tids[(*n)++] = (int)t;
	}
out:
	if (err)
		while (*n)
			free(ids[--*n]);
	json_decref(ret);
	return err;
}
