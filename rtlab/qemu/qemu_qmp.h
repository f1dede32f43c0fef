/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qemu_qmp: a small client for QEMU's machine protocol (QMP) on a unix socket.
 *
 * QMP sends one JSON object per line: a greeting {"QMP": ...} on connect, then for each
 * command we send {"execute": ..., "arguments": ...} a {"return": ...} or {"error":
 * {"class", "desc"}}, with asynchronous {"event": ...} objects in between, which this
 * client skips. A session starts with "qmp_capabilities". The hypervisor lab drives the
 * guest through it; the runner uses it to ask for the VM's status and to quit.
 * Every read is bounded by a timeout. The client works on any connected stream socket,
 * so tests drive it through a socketpair.
 */
#ifndef RTLAB_QEMU_QEMU_QMP_H
#define RTLAB_QEMU_QEMU_QMP_H

#include <jansson.h>
#include <signal.h>

enum qemu_qmp_kind {
	QEMU_QMP_GREETING,
	QEMU_QMP_RETURN,
	QEMU_QMP_ERROR,
	QEMU_QMP_EVENT,
};

struct qemu_qmp;

/**
 * qemu_qmp_parse - classify one QMP message
 * @line: one line of text (NUL-terminated, trailing newline allowed)
 * @msg: on success the parsed object; the caller releases it with json_decref()
 * @kind: on success what it is
 *
 * Returns 0, or -EPROTO with @cause for text that is not a QMP message.
 */
int qemu_qmp_parse(const char *line, json_t **msg, enum qemu_qmp_kind *kind, char **cause);

/**
 * qemu_qmp_open_fd - start a QMP session on a connected socket
 * @fd: the socket; the session owns it from now on, even on failure
 * @timeout_ms: bound on each wait for a message
 *
 * Reads the greeting and negotiates capabilities. Returns the session (free with
 * qemu_qmp_free()), or NULL with errno set and @cause.
 */
struct qemu_qmp *qemu_qmp_open_fd(int fd, unsigned int timeout_ms, char **cause);

/**
 * qemu_socket_connect - connect to QEMU's unix socket at @path (QMP, the probe's port)
 * @timeout_ms: QEMU creates its sockets a moment after it starts: a missing or
 *              refusing socket is tried again every 20 ms until this has passed
 *              (0: once)
 * @stop: gives up when it becomes non-zero; may be NULL
 *
 * Returns the connected descriptor (close-on-exec), or a negative errno with
 * @cause (-EINTR when stopped).
 */
int qemu_socket_connect(const char *path, unsigned int timeout_ms,
		      const volatile sig_atomic_t *stop, char **cause);

/**
 * qemu_qmp_connect - connect to QEMU's QMP socket at @path and start a session
 *
 * Retries the connection until @timeout_ms has passed (QEMU creates the socket a moment
 * after it starts). Returns the session or NULL with errno set and @cause.
 */
struct qemu_qmp *qemu_qmp_connect(const char *path, unsigned int timeout_ms, char **cause);

/**
 * qemu_qmp_execute - run command @cmd with @args (borrowed, may be NULL)
 * @ret: on success the "return" value, a new reference the caller releases; may be NULL
 *
 * Events that arrive first are skipped. Returns 0; -EREMOTEIO with @cause (QEMU's class
 * and description) when QEMU answered with an error; -ETIMEDOUT, -EPIPE or -EPROTO when
 * the conversation broke.
 */
int qemu_qmp_execute(struct qemu_qmp *q, const char *cmd, json_t *args, json_t **ret,
		   char **cause);

/**
 * qemu_qmp_status - the guest's run state from query-status ("running", "paused"...)
 * @status: where to write it (at most @size bytes, always terminated)
 *
 * Returns 0, -EPROTO with @cause when the answer has no status, or what
 * qemu_qmp_execute() returns.
 */
int qemu_qmp_status(struct qemu_qmp *q, char *status, size_t size, char **cause);

/**
 * qemu_qmp_vcpu_threads - the host thread of each vCPU, from query-cpus-fast
 * @tids: filled in vCPU order (cpu-index), @max entries at most
 * @n: how many vCPUs QEMU reported
 *
 * Under multi-threaded TCG and KVM each vCPU runs on a host thread of its own: the thread
 * ids must be distinct and positive, which this checks (single-threaded TCG gives every
 * vCPU the same thread, and then a vCPU's priority cannot be changed alone).
 * Returns 0; -EPROTO with @cause for an answer without a thread-id or cpu-index, or
 * with a cpu-index twice or past @max; -ENOTUNIQ with @cause when two vCPUs share a
 * thread; or what qemu_qmp_execute() returns.
 */
int qemu_qmp_vcpu_threads(struct qemu_qmp *q, int *tids, size_t max, size_t *n, char **cause);

/**
 * qemu_qmp_iothreads - the host threads of QEMU's I/O threads (-object iothread), from
 * query-iothreads
 * @ids, @tids: filled in QEMU's order, @max entries at most; each id is a new string the
 * caller frees
 *
 * Returns 0 (@n may be 0: no iothread objects), -EPROTO with @cause for a malformed
 * answer, or what qemu_qmp_execute() returns.
 */
int qemu_qmp_iothreads(struct qemu_qmp *q, char **ids, int *tids, size_t max, size_t *n,
		     char **cause);

/* Close the socket and free @q; NULL does nothing. */
void qemu_qmp_free(struct qemu_qmp *q);

#endif
