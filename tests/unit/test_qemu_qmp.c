/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the QMP client: message classification, and whole conversations with a
 * fake QEMU on the other end of a socketpair (a thread that plays a script of lines).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "qemu/qemu_qmp.h"

static void test_parse_kinds(void **state)
{
	enum qemu_qmp_kind kind;
	json_t *m = NULL;
	char *cause = NULL;

	(void)state;
	assert_int_equal(qemu_qmp_parse("{\"QMP\": {\"version\": {}, \"capabilities\": []}}\n",
				      &m, &kind, NULL), 0);
	assert_int_equal(kind, QEMU_QMP_GREETING);
	json_decref(m);
	assert_int_equal(qemu_qmp_parse("{\"return\": {}}", &m, &kind, NULL), 0);
	assert_int_equal(kind, QEMU_QMP_RETURN);
	json_decref(m);
	assert_int_equal(qemu_qmp_parse("{\"error\": {\"class\": \"GenericError\", \"desc\": \"x\"}}",
				      &m, &kind, NULL), 0);
	assert_int_equal(kind, QEMU_QMP_ERROR);
	json_decref(m);
	assert_int_equal(qemu_qmp_parse("{\"event\": \"STOP\", \"timestamp\": {}}", &m, &kind,
				      NULL), 0);
	assert_int_equal(kind, QEMU_QMP_EVENT);
	json_decref(m);

	assert_int_equal(qemu_qmp_parse("not json", &m, &kind, &cause), -EPROTO);
	assert_null(m);
	assert_non_null(cause);
	free(cause);
	assert_int_equal(qemu_qmp_parse("[1]", &m, &kind, NULL), -EPROTO);
	assert_int_equal(qemu_qmp_parse("{\"foo\": 1}", &m, &kind, NULL), -EPROTO);
	assert_int_equal(qemu_qmp_parse("{\"error\": \"x\"}", &m, &kind, NULL), -EPROTO);
}

/* The fake QEMU: for each step, read one request line (when expect is set), check it
 * contains @expect, then write @reply (several lines allowed). */
struct step {
	const char *expect;
	const char *reply;
};

struct fake {
	int fd;
	const struct step *steps;
	size_t nsteps;
	int failed;		/* a request did not match */
	char last[512];		/* the last request */
};

static int read_line(int fd, char *buf, size_t cap)
{
	size_t n = 0;

	while (n + 1 < cap) {
		ssize_t r = read(fd, buf + n, 1);

		if (r <= 0)
			return -1;
		if (buf[n] == '\n')
			break;
		n++;
	}
	buf[n] = '\0';
	return 0;
}

static void *fake_main(void *arg)
{
	struct fake *f = arg;

	for (size_t i = 0; i < f->nsteps; i++) {
		if (f->steps[i].expect) {
			if (read_line(f->fd, f->last, sizeof(f->last)) < 0 ||
			    !strstr(f->last, f->steps[i].expect)) {
				f->failed = 1;
				break;
			}
		}
		if (f->steps[i].reply &&
		    write(f->fd, f->steps[i].reply, strlen(f->steps[i].reply)) < 0) {
			f->failed = 1;
			break;
		}
	}
	/* Hang up, as QEMU does when it quits. */
	close(f->fd);
	return NULL;
}

/* How long a greeting may take from a fake that sends one: a bound against a hang only. */
#define HANG_MS 60000

#define GREETING "{\"QMP\": {\"version\": {\"qemu\": {\"major\": 7}}, \"capabilities\": []}}\r\n"

static void start_fake(struct fake *f, pthread_t *t, int *client, const struct step *steps,
		       size_t n)
{
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	memset(f, 0, sizeof(*f));
	f->fd = sv[1];
	f->steps = steps;
	f->nsteps = n;
	*client = sv[0];
	assert_int_equal(pthread_create(t, NULL, fake_main, f), 0);
}

static void stop_fake(pthread_t t)
{
	pthread_join(t, NULL);
}

static void test_session_query_status(void **state)
{
	static const struct step steps[] = {
		{ NULL, GREETING },
		{ "\"execute\":\"qmp_capabilities\"", "{\"return\": {}}\n" },
		/* An event arrives before the answer, and the answer comes in two pieces. */
		{ "\"execute\":\"query-status\"",
		  "{\"event\": \"RESUME\", \"timestamp\": {\"seconds\": 1}}\n{\"return\": {\"sta" },
		{ NULL, "tus\": \"running\", \"running\": true}}\n" },
		{ "\"arguments\":{\"device\":\"x\"}",
		  "{\"error\": {\"class\": \"DeviceNotFound\", \"desc\": \"no x\"}}\n" },
	};
	struct fake f;
	pthread_t t;
	struct qemu_qmp *q;
	json_t *ret = NULL, *args;
	char *cause = NULL;
	int fd;

	(void)state;
	start_fake(&f, &t, &fd, steps, 5);
	q = qemu_qmp_open_fd(fd, HANG_MS, &cause);
	assert_non_null(q);
	assert_int_equal(qemu_qmp_execute(q, "query-status", NULL, &ret, &cause), 0);
	assert_string_equal(json_string_value(json_object_get(ret, "status")), "running");
	json_decref(ret);
	args = json_pack("{s:s}", "device", "x");
	assert_int_equal(qemu_qmp_execute(q, "eject", args, &ret, &cause), -EREMOTEIO);
	json_decref(args);
	assert_null(ret);
	assert_non_null(strstr(cause, "DeviceNotFound: no x"));
	free(cause);
	stop_fake(t);
	assert_int_equal(f.failed, 0);
	qemu_qmp_free(q);
}

static void test_session_errors(void **state)
{
	static const struct step no_greeting[] = {
		{ NULL, "{\"return\": {}}\n" },
	};
	static const struct step closes[] = {
		{ NULL, GREETING },
		{ "qmp_capabilities", "{\"return\": {}}\n" },
		{ "quit", NULL },
	};
	/* Greets, then never answers: the last step waits for a line that never comes. */
	static const struct step silent[] = {
		{ NULL, GREETING },
		{ "qmp_capabilities", NULL },
		{ "never sent", NULL },
	};
	struct fake f;
	pthread_t t;
	struct qemu_qmp *q;
	char *cause = NULL;
	int fd;

	(void)state;
	start_fake(&f, &t, &fd, no_greeting, 1);
	assert_null(qemu_qmp_open_fd(fd, HANG_MS, &cause));
	assert_int_equal(errno, EPROTO);
	assert_non_null(strstr(cause, "greeting"));
	free(cause);
	cause = NULL;
	stop_fake(t);

	start_fake(&f, &t, &fd, closes, 3);
	q = qemu_qmp_open_fd(fd, HANG_MS, NULL);
	assert_non_null(q);
	/* The fake hangs up after reading "quit". */
	assert_int_equal(qemu_qmp_execute(q, "quit", NULL, NULL, &cause), -EPIPE);
	stop_fake(t);
	free(cause);
	cause = NULL;
	qemu_qmp_free(q);

	start_fake(&f, &t, &fd, silent, 3);
	assert_null(qemu_qmp_open_fd(fd, 200, &cause));
	assert_int_equal(errno, ETIMEDOUT);
	free(cause);
	stop_fake(t);
}

static void test_connect_missing_socket(void **state)
{
	char *cause = NULL;

	(void)state;
	assert_null(qemu_qmp_connect("/nonexistent/rtlab-qmp.sock", 100, &cause));
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(cause, "cannot connect"));
	free(cause);
	cause = NULL;

	/* The shared connector: once (0 ms), or until a stop. */
	volatile sig_atomic_t stop = 1;

	assert_int_equal(qemu_socket_connect("/nonexistent/rtlab-probe.sock", 0, NULL, &cause),
			 -ENOENT);
	free(cause);
	cause = NULL;
	assert_int_equal(qemu_socket_connect("/nonexistent/rtlab-probe.sock", 60000, &stop, &cause),
			 -EINTR);
	assert_non_null(strstr(cause, "stopped"));
	free(cause);
}

/* The vCPUs' host threads: distinct under MTTCG, refused when shared, malformed. */
static void test_vcpu_threads(void **state)
{
	static const struct step steps[] = {
		{ NULL, GREETING },
		{ "qmp_capabilities", "{\"return\": {}}\n" },
		/* out of order, as a list may come: filled by cpu-index */
		{ "query-cpus-fast", "{\"return\": [{\"cpu-index\": 1, \"thread-id\": 4242, "
		  "\"target\": \"x86_64\"}, {\"cpu-index\": 0, \"thread-id\": 4241}]}\n" },
		{ "query-cpus-fast", "{\"return\": [{\"cpu-index\": 0, \"thread-id\": 77}, "
		  "{\"cpu-index\": 1, \"thread-id\": 77}]}\n" },
		{ "query-cpus-fast", "{\"return\": [{\"cpu-index\": 0}]}\n" },
		{ "query-cpus-fast", "{\"return\": [{\"cpu-index\": 0, \"thread-id\": 5}, "
		  "{\"cpu-index\": 0, \"thread-id\": 6}]}\n" },
		{ "query-iothreads", "{\"return\": []}\n" },
		{ "query-iothreads", "{\"return\": [{\"id\": \"io0\", \"thread-id\": 99, "
		  "\"poll-max-ns\": 32768}]}\n" },
		{ "query-iothreads", "{\"return\": [{\"id\": \"io0\"}]}\n" },
	};
	struct fake f;
	pthread_t t;
	struct qemu_qmp *q;
	char *cause = NULL, *ids[4];
	int fd, tids[4];
	size_t n = 9;

	(void)state;
	start_fake(&f, &t, &fd, steps, sizeof(steps) / sizeof(steps[0]));
	q = qemu_qmp_open_fd(fd, HANG_MS, &cause);
	assert_non_null(q);
	assert_int_equal(qemu_qmp_vcpu_threads(q, tids, 4, &n, &cause), 0);
	assert_int_equal(n, 2);
	assert_int_equal(tids[0], 4241);
	assert_int_equal(tids[1], 4242);
	assert_int_equal(qemu_qmp_vcpu_threads(q, tids, 4, &n, &cause), -ENOTUNIQ);
	assert_int_equal(n, 0);
	assert_non_null(strstr(cause, "thread=multi"));
	free(cause);
	cause = NULL;
	assert_int_equal(qemu_qmp_vcpu_threads(q, tids, 4, &n, &cause), -EPROTO);
	free(cause);
	cause = NULL;
	assert_int_equal(qemu_qmp_vcpu_threads(q, tids, 4, &n, &cause), -EPROTO);
	free(cause);
	cause = NULL;
	assert_int_equal(qemu_qmp_iothreads(q, ids, tids, 4, &n, &cause), 0);
	assert_int_equal(n, 0);
	assert_int_equal(qemu_qmp_iothreads(q, ids, tids, 4, &n, &cause), 0);
	assert_int_equal(n, 1);
	assert_string_equal(ids[0], "io0");
	assert_int_equal(tids[0], 99);
	free(ids[0]);
	assert_int_equal(qemu_qmp_iothreads(q, ids, tids, 4, &n, &cause), -EPROTO);
	assert_int_equal(n, 0);
	free(cause);
	stop_fake(t);
	assert_int_equal(f.failed, 0);
	qemu_qmp_free(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_kinds),
		cmocka_unit_test(test_session_query_status),
		cmocka_unit_test(test_session_errors),
		cmocka_unit_test(test_connect_missing_socket),
		cmocka_unit_test(test_vcpu_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
