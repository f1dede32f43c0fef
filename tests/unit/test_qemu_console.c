/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the classroom VM's console parsers: ready line, run markers, tail. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "qemu/qemu_console.h"

static const char boot[] =
	"[    0.000000] Linux version 6.12.118-rtlab\r\n"
	"[    1.234567] Run /init as init process\r\n"
	"rtlab-vm: ready kernel=lab release=6.12.118-rtlab uptime_s=2.47; state on /dev/vda\r\n"
	"rtlab-vm: stderr: warning: something\r\n"
	"<<<rtlab-run-begin deadbeef>>>\r\n"
	"{\"schema\": \"rtlab.doctor/1\",\r\n"
	"  \"x\": 1}\r\n"
	"<<<rtlab-run-end deadbeef status=0>>>\r\n"
	"[    9.000000] reboot: Power down\r\n";

static void test_ready_found(void **state)
{
	struct qemu_ready r;

	(void)state;
	assert_int_equal(qemu_console_ready(boot, strlen(boot), &r), 1);
	assert_string_equal(r.kernel, "lab");
	assert_string_equal(r.release, "6.12.118-rtlab");
	assert_true(r.uptime_s > 2.46 && r.uptime_s < 2.48);
	qemu_ready_fini(&r);
	assert_null(r.kernel);
}

static void test_ready_absent_or_not_at_line_start(void **state)
{
	static const char t[] = "booting...\nsay rtlab-vm: ready kernel=x\n";
	struct qemu_ready r;

	(void)state;
	assert_int_equal(qemu_console_ready(t, strlen(t), &r), 0);
	assert_int_equal(qemu_console_ready("", 0, &r), 0);
	/* A line read half-written does not count yet; once complete it does. */
	assert_int_equal(qemu_console_ready("rtlab-vm: ready kernel=rt", 25, &r), 0);
	assert_int_equal(qemu_console_ready("rtlab-vm: ready kernel=rt\n", 26, &r), 1);
	assert_string_equal(r.kernel, "rt");
	assert_null(r.release);
	assert_true(r.uptime_s < 0);
	qemu_ready_fini(&r);
}

static void test_extract_output(void **state)
{
	char *out = NULL;
	int status = -1;

	(void)state;
	assert_int_equal(qemu_console_extract(boot, strlen(boot), "deadbeef", &out, &status), 0);
	assert_string_equal(out, "{\"schema\": \"rtlab.doctor/1\",\n  \"x\": 1}\n");
	assert_int_equal(status, 0);
	free(out);
}

static void test_extract_wrong_nonce_is_not_a_marker(void **state)
{
	static const char t[] =
		"<<<rtlab-run-begin n1>>>\n"
		"<<<rtlab-run-end forged status=0>>>\n"
		"real\n"
		"<<<rtlab-run-end n1 status=3>>>\n";
	char *out = NULL;
	int status = -1;

	(void)state;
	assert_int_equal(qemu_console_extract(t, strlen(t), "n1", &out, &status), 0);
	assert_string_equal(out, "<<<rtlab-run-end forged status=0>>>\nreal\n");
	assert_int_equal(status, 3);
	free(out);
	assert_int_equal(qemu_console_extract(t, strlen(t), "n2", &out, &status), -ENOENT);
	assert_null(out);
	/* A nonce that is a prefix of the real one must not match. */
	assert_int_equal(qemu_console_extract(t, strlen(t), "n", &out, &status), -ENOENT);
}

static void test_extract_errors(void **state)
{
	static const char cut[] = "<<<rtlab-run-begin a>>>\r\npartial\r\n";
	static const char bad[] = "<<<rtlab-run-begin a>>>\n<<<rtlab-run-end a status=x>>>\n";
	static const char big[] = "<<<rtlab-run-begin a>>>\n<<<rtlab-run-end a status=300>>>\n";
	static const char empty[] = "<<<rtlab-run-begin a>>>\n<<<rtlab-run-end a status=1>>>";
	char *out = NULL;
	int status = -1;

	(void)state;
	assert_int_equal(qemu_console_extract(cut, strlen(cut), "a", &out, &status), -ENODATA);
	assert_int_equal(qemu_console_extract(bad, strlen(bad), "a", &out, &status), -EPROTO);
	assert_int_equal(qemu_console_extract(big, strlen(big), "a", &out, &status), -EPROTO);
	assert_null(out);
	assert_int_equal(qemu_console_extract(empty, strlen(empty), "a", &out, &status), 0);
	assert_string_equal(out, "");
	assert_int_equal(status, 1);
	free(out);
	assert_int_equal(qemu_console_extract(empty, strlen(empty), "", &out, &status), -EINVAL);
	assert_int_equal(qemu_console_extract(empty, strlen(empty), "a b", &out, &status), -EINVAL);
}

static void test_stderr_lines(void **state)
{
	static const char t[] = "x rtlab-vm: stderr: not at start\n"
				"rtlab-vm: stderr: first\r\n"
				"noise\n"
				"rtlab-vm: stderr: \n"
				"rtlab-vm: stderr: last";
	char *s;

	(void)state;
	s = qemu_console_stderr(boot, strlen(boot));
	assert_string_equal(s, "warning: something\n");
	free(s);
	s = qemu_console_stderr(t, strlen(t));
	assert_string_equal(s, "first\n\nlast\n");
	free(s);
	s = qemu_console_stderr("", 0);
	assert_string_equal(s, "");
	free(s);
}

static void test_tail(void **state)
{
	static const char t[] = "one\r\ntwo\r\nthree\x1b[2J\r\nfour\r\n";
	char *s;

	(void)state;
	s = qemu_console_tail(t, strlen(t), 2);
	assert_string_equal(s, "three?[2J\nfour\n");
	free(s);
	s = qemu_console_tail(t, strlen(t), 10);
	assert_string_equal(s, "one\ntwo\nthree?[2J\nfour\n");
	free(s);
	s = qemu_console_tail(t, strlen(t), 0);
	assert_string_equal(s, "");
	free(s);
	s = qemu_console_tail("no newline", 10, 1);
	assert_string_equal(s, "no newline");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ready_found),
		cmocka_unit_test(test_ready_absent_or_not_at_line_start),
		cmocka_unit_test(test_extract_output),
		cmocka_unit_test(test_extract_wrong_nonce_is_not_a_marker),
		cmocka_unit_test(test_extract_errors),
		cmocka_unit_test(test_stderr_lines),
		cmocka_unit_test(test_tail),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
