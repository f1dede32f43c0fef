/*
 * check_fcse: the trusted checks of the FCSE exercise, one cmocka test per
 * check of exercise.json (the C name's '_' is the id's '-'). Each check
 * runs the subject (subject.c linked with the learner's fcse_pid.c)
 * through the grading harness's rtlab_run_subject(), writes its requests
 * on the subject's stdin and judges the answers here; the subject decides
 * nothing (doc/exercises.md of the harness).
 *
 * Until the harness is on main, `make exercise-fcse` links this program
 * with tests/fcse/rtlab_check_standin.c instead of labs/common/rtlab_check.c:
 * a stand-in with the same interface that starts the subject named by
 * RTLAB_CHECK_SUBJECT itself (no sandbox), for the reference and the starter.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtlab_check.h"

/* The subject's answers to @script must be @want, line for line. */
static void expect(const char *what, const char *script, const char *want)
{
	struct rtlab_run_opts o = { .stdin_data = script, .stdin_len = strlen(script) };
	struct rtlab_run r = { 0 };
	const char *a, *b, *la, *lb;
	unsigned int line = 1;

	if (rtlab_run_subject(&o, &r))
		rtlab_fail("the subject could not be run: %s", r.reason);
	if (!rtlab_run_ok(&r)) {
		rtlab_check_reason("%s: the subject did not finish normally: %s", what, r.reason);
		rtlab_run_fini(&r);
		fail();
	}
	if (!strcmp(r.out, want)) {
		rtlab_run_fini(&r);
		return;
	}
	for (a = la = r.out, b = lb = want; *a && *a == *b; a++, b++) {
		if (*a == '\n') {
			line++;
			la = a + 1;
			lb = b + 1;
		}
	}
	rtlab_check_reason("%s: answer %u: expected \"%.*s\", the subject printed \"%.*s\"",
			   what, line, (int)strcspn(lb, "\n"), lb, (int)strcspn(la, "\n"), la);
	rtlab_run_fini(&r);
	fail();
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

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(mva_below_32mb),
		cmocka_unit_test(mva_at_32mb),
		cmocka_unit_test(mva_pid0),
		cmocka_unit_test(alloc_order),
		cmocka_unit_test(alloc_95th),
		cmocka_unit_test(alloc_96th),
		cmocka_unit_test(free_reuse),
		cmocka_unit_test(task_size),
	};

	return rtlab_check_main("fcse", tests, sizeof(tests) / sizeof(tests[0]));
}
