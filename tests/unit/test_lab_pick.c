/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for lab_pick: which results document `rtlab grade LAB` and
 * `rtlab handin LAB` take. The cookie handout ends on a run of one scenario:
 * the newest document that holds what the grade needs is taken, not the
 * newest; when none does, the newest, naming what it lacks. Documents of
 * another lab, links in the folder and files that do not parse are passed
 * over; the document the learner named is followed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/rt_env.h"
#include "core/rt_result.h"
#include "labs/lab.h"

static char dir[] = "/tmp/rtlab-pick.XXXXXX";

/* Writes a document of @lab created at @when holding @names (NULL-terminated) into @path. */
static void write_doc(const char *path, const char *lab, time_t when, const char *const *names)
{
	static const struct rt_env env = { 0 };
	struct rt_result *res = rt_result_new(lab, "simulation", &env);
	json_t *scens = json_array();

	assert_non_null(res);
	for (; *names; names++)
		assert_int_equal(json_array_append_new(scens, json_pack("{s:s}", "name", *names)),
				 0);
	assert_int_equal(rt_result_set_scenarios(res, scens), 0);
	json_decref(scens);
	assert_int_equal(rt_result_set_created(res, when), 0);
	assert_int_equal(rt_result_write(res, path, NULL), 0);
	rt_result_free(res);
}

static char *in_dir(const char *name)
{
	char *p;

	assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
	return p;
}

static const char *const full[] = {
	"uni-directional", "ticket", "greedy", "replay-broken", "replay-uni", "priority-inherit",
	NULL,
};
static const char *const ticket_only[] = { "priority-ticket", NULL };

static int setup(void **state)
{
	(void)state;
	memcpy(dir + sizeof(dir) - 7, "XXXXXX", 6);
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char *cmd;

	(void)state;
	if (asprintf(&cmd, "rm -rf '%s'", dir) > 0) {
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", dir);
		free(cmd);
	}
	return 0;
}

/* The handout's last step ran one scenario: the full run before it is graded. */
static void test_newest_whole_wins(void **state)
{
	char *older = in_dir("cookie-1.json"), *newer = in_dir("cookie-2.json");
	struct lab_pick p;

	(void)state;
	write_doc(older, "cookie", 1000000000, full);
	write_doc(newer, "cookie", 1000000100, ticket_only);
	assert_int_equal(lab_pick_graded(lab_find("cookie"), dir,
					 (const char *const[]){ newer, NULL }, &p), 0);
	assert_string_equal(p.path, older);
	assert_true(p.whole);
	assert_non_null(strstr(p.why, "1 newer one(s) lack some"));
	assert_non_null(strstr(p.why, "uni-directional"));	/* what the newest lacks */
	lab_pick_fini(&p);
	assert_null(p.path);

	/* A newer full run is taken over both. */
	free(older);
	older = in_dir("cookie-3.json");
	write_doc(older, "cookie", 1000000200, full);
	assert_int_equal(lab_pick_graded(lab_find("cookie"), dir, NULL, &p), 0);
	assert_string_equal(p.path, older);
	assert_non_null(strstr(p.why, "the newest cookie document, and it holds everything"));
	lab_pick_fini(&p);
	unlink(older);
	free(older);
	free(newer);
}

/* None whole: the newest, and the sentence names what it lacks. */
static void test_none_whole_names_what_lacks(void **state)
{
	char *a = in_dir("nop-1.json"), *b = in_dir("nop-2.json");
	static const char *const nop_only[] = { "nop", NULL };
	static const char *const tdma_only[] = { "tdma", NULL };
	struct lab_pick p;

	(void)state;
	write_doc(a, "nop", 1000000000, tdma_only);
	write_doc(b, "nop", 1000000050, nop_only);
	assert_int_equal(lab_pick_graded(lab_find("nop"), dir, NULL, &p), 0);
	assert_string_equal(p.path, b);
	assert_false(p.whole);
	assert_non_null(strstr(p.why, "none of the 2 nop document(s)"));
	assert_non_null(strstr(p.why, "lacks tdma"));
	lab_pick_fini(&p);
	unlink(a);
	unlink(b);
	free(a);
	free(b);
}

/* Another lab's document, a link, a broken file: passed over; a named file is followed. */
static void test_passed_over_and_named(void **state)
{
	char *other = in_dir("fcse-9.json"), *link = in_dir("fcse-link.json");
	char *broken = in_dir("fcse-broken.json"), *named = NULL, *target = NULL;
	static const char *const fcse_modes[] = { "mixed-flush", NULL };
	struct lab_pick p;
	FILE *f;

	(void)state;
	write_doc(other, "latency", 1000000300, fcse_modes);	/* named fcse-*, of latency */
	f = fopen(broken, "w");
	assert_non_null(f);
	fputs("{\"schema\": ", f);
	fclose(f);
	assert_true(asprintf(&target, "%s-outside.json", dir) > 0);
	write_doc(target, "fcse", 1000000400, fcse_modes);
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(lab_pick_graded(lab_find("fcse"), dir, NULL, &p), 0);
	assert_null(p.path);			/* the link is not followed, the rest is not fcse */
	assert_null(p.why);
	/* The learner's own --json FILE, recorded in progress, is followed even as a link. */
	assert_true(asprintf(&named, "%s-named.json", dir) > 0);
	assert_int_equal(symlink(target, named), 0);
	assert_int_equal(lab_pick_graded(lab_find("fcse"), dir,
					 (const char *const[]){ named, NULL }, &p), 0);
	assert_string_equal(p.path, named);
	assert_false(p.whole);			/* one mode of three */
	assert_non_null(strstr(p.why, "the guaranteed mode"));
	lab_pick_fini(&p);
	unlink(named);
	unlink(target);
	free(named);
	free(target);
	free(other);
	free(link);
	free(broken);
}

/* No results folder yet: nothing to grade, not an error. */
static void test_no_folder(void **state)
{
	struct lab_pick p;

	(void)state;
	assert_int_equal(lab_pick_graded(lab_find("latency"), "/nonexistent/rtlab", NULL, &p), 0);
	assert_null(p.path);
	assert_int_equal(lab_pick_graded(lab_find("latency"), NULL, NULL, &p), 0);
	assert_null(p.path);
}

/* Every lab says what its grade needs, and a document with nothing lacks something. */
static void test_every_lab_declares_needs(void **state)
{
	static const struct rt_env env = { 0 };

	(void)state;
	for (const struct lab_ops *const *l = lab_table; *l; l++) {
		char *path = in_dir("empty.json");
		struct rt_result *res;
		struct lab_pick p;

		if ((*l)->state != LAB_STATE_READY || !(*l)->grade) {
			free(path);
			continue;
		}
		assert_non_null((*l)->grade_lacks);
		res = rt_result_new((*l)->name, "simulation", &env);
		assert_non_null(res);
		assert_int_equal(rt_result_write(res, path, NULL), 0);
		assert_int_equal(lab_pick_graded(*l, NULL, (const char *const[]){ path, NULL },
						 &p), 0);
		assert_non_null(p.path);
		assert_false(p.whole);
		lab_pick_fini(&p);
		unlink(path);
		free(path);
		rt_result_free(res);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_newest_whole_wins),
		cmocka_unit_test(test_none_whole_names_what_lacks),
		cmocka_unit_test(test_passed_over_and_named),
		cmocka_unit_test(test_no_folder),
		cmocka_unit_test(test_every_lab_declares_needs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
