/*
 * check_fcse: the trusted checks of the FCSE exercise, one cmocka test per
 * check id of exercise.json. Usage: check_fcse SUBJECT, where SUBJECT is
 * subject.c linked with the learner's fcse_pid.c.
 *
 * The subject is never linked into this program: each check starts it,
 * writes its requests, reads its answers (at most 64 KB, within 10 s) and
 * judges them here. Until the grading harness runs subjects in its
 * sandbox, this program starts SUBJECT itself (fork and exec, no
 * privileges dropped): make exercise-fcse runs it on the reference (all
 * pass) and on the starter (some fail).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define OUT_MAX (64u << 10)
#define TIMEOUT_MS 10000

static const char *subject;

/* Run the subject on @script; its stdout into @out (NUL-terminated). */
static void converse(const char *script, char *out)
{
	int in[2], res[2], status;
	size_t len = 0;
	pid_t pid;

	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(res), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(res[1], 1);
		close(in[0]);
		close(in[1]);
		close(res[0]);
		close(res[1]);
		execl(subject, subject, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(res[1]);
	signal(SIGPIPE, SIG_IGN);
	if (write(in[1], script, strlen(script)) < 0)
		print_message("the subject did not read its requests\n");
	close(in[1]);
	for (;;) {
		struct pollfd p = { .fd = res[0], .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, TIMEOUT_MS) <= 0) {
			kill(pid, SIGKILL);
			print_message("the subject did not answer within %d ms\n", TIMEOUT_MS);
			break;
		}
		n = read(res[0], out + len, OUT_MAX - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == OUT_MAX - 1)
			break;
	}
	out[len] = 0;
	close(res[0]);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}

/* The subject's answers to @script must be @want, line for line. */
static void expect(const char *what, const char *script, const char *want)
{
	char *out = malloc(OUT_MAX);

	assert_non_null(out);
	converse(script, out);
	if (strcmp(out, want)) {
		const char *a = out, *b = want, *la = out, *lb = want;
		unsigned int line = 1;

		while (*a && *a == *b) {
			if (*a == '\n') {
				line++;
				la = a + 1;
				lb = b + 1;
			}
			a++;
			b++;
		}
		a = la;	/* whole lines */
		b = lb;
		print_message("%s: answer %u differs: got \"%.*s\", wanted \"%.*s\"\n", what, line,
			      (int)strcspn(a, "\n"), a,
			      (int)strcspn(b, "\n"), b);
		free(out);
		fail();
	}
	free(out);
}

static void mva_below_32mb(void **state)
{
	(void)state;
	expect("VA 32 MB - 1 and below, PIDs 1, 5, 94, 127",
	       "mva 1 01ffffff\nmva 5 00008000\nmva 94 01ffffff\nmva 127 00000000\n"
	       "mva 2 00100000\n",
	       "03ffffff\n0a008000\nbdffffff\nfe000000\n04100000\n");
}

static void mva_at_32mb(void **state)
{
	(void)state;
	expect("VA 32 MB and above are left alone",
	       "mva 1 02000000\nmva 94 02000000\nmva 5 40000000\nmva 127 ffffffff\n",
	       "02000000\n02000000\n40000000\nffffffff\n");
}

static void mva_pid0(void **state)
{
	(void)state;
	expect("PID 0 is the flat mapping", "mva 0 00008000\nmva 0 01ffffff\nmva 0 02000000\n",
	       "00008000\n01ffffff\n02000000\n");
}

/* @n "alloc" lines. */
static char *allocs(unsigned int n, const char *before, const char *after)
{
	size_t len = strlen(before) + strlen(after) + 6 * n + 1;
	char *s = malloc(len);

	assert_non_null(s);
	strcpy(s, before);
	for (unsigned int i = 0; i < n; i++)
		strcat(s, "alloc\n");
	strcat(s, after);
	return s;
}

static char *answers(unsigned int from, unsigned int to, const char *after)
{
	char *s = malloc(8 * (to - from + 1) + strlen(after) + 1);
	size_t len = 0;

	assert_non_null(s);
	for (unsigned int pid = from; pid <= to; pid++)
		len += (size_t)sprintf(s + len, "%u\n", pid);
	strcpy(s + len, after);
	return s;
}

static void alloc_order(void **state)
{
	char *script = allocs(94, "", ""), *want = answers(1, 94, "");

	(void)state;
	expect("the first 94 forks get PIDs 1, 2 ... 94", script, want);
	free(script);
	free(want);
}

static void alloc_95th(void **state)
{
	char *script = allocs(95, "", ""), *want = answers(1, 94, "0\n");

	(void)state;
	expect("the 95th fork gets PID 0, kept for last", script, want);
	free(script);
	free(want);
}

static void alloc_96th(void **state)
{
	char *script = allocs(96, "", ""), *want = answers(1, 94, "0\n-11\n");

	(void)state;
	expect("the 96th fork fails with -EAGAIN (-11)", script, want);
	free(script);
	free(want);
}

static void free_reuse(void **state)
{
	char *script = allocs(95, "", "free 37\nalloc\nalloc\nfree 0\nfree 5\nalloc\nalloc\nalloc\n");
	char *want = answers(1, 94, "0\nok\n37\n-11\nok\nok\n5\n0\n-11\n");

	(void)state;
	expect("a freed PID is handed out again, lowest first, 0 last", script, want);
	free(script);
	free(want);
}

static void task_size(void **state)
{
	char *script = allocs(64, "init 7f000000\n", ""), *want = answers(1, 62, "0\n-11\n");
	char *w = malloc(strlen(want) + 4);

	(void)state;
	assert_non_null(w);
	sprintf(w, "ok\n%s", want);
	expect("a 2G/2G split has 63 PIDs", script, w);
	free(script);
	free(want);
	free(w);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mva_below_32mb),
		cmocka_unit_test(mva_at_32mb),
		cmocka_unit_test(mva_pid0),
		cmocka_unit_test(alloc_order),
		cmocka_unit_test(alloc_95th),
		cmocka_unit_test(alloc_96th),
		cmocka_unit_test(free_reuse),
		cmocka_unit_test(task_size),
	};

	if (argc != 2 || access(argv[1], X_OK)) {
		fprintf(stderr, "usage: check_fcse SUBJECT (an executable)\n");
		return 2;
	}
	subject = argv[1];
	return cmocka_run_group_tests_name("fcse", tests, NULL, NULL);
}
