/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for `rtlab vm pull`'s host side (vm/vm_pull.h): the merge rules of two
 * progress documents, placing a results document without replacing anything, and taking
 * in a directory as the guest's pull.sh leaves it (a fixture tree stands in for the
 * guest; the real boot is in tests/vm/vm.t).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/rt_file.h"
#include "vm/vm_pull.h"
#include "qemu_fixture.h"

static json_t *doc(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);

	if (!j)
		fail_msg("bad fixture JSON: %s (line %d)", e.text, e.line);
	return j;
}

/* Does some change line contain @needle? */
static bool changed(const struct vm_pull_report *r, const char *needle)
{
	for (size_t i = 0; i < r->nchanges; i++)
		if (strstr(r->changes[i], needle))
			return true;
	return false;
}

#define Q(answer, score, attempts, time) \
	"{\"answer\": \"" answer "\", \"score\": " #score ", \"attempts\": " #attempts \
	", \"time\": \"" time "\"}"

static const char host_text[] =
	"{\"schema\": \"rtlab.progress/1\", \"lessons\": {"
	" \"01\": {\"read\": true, \"position\": 10},"
	" \"03\": {\"position\": 200, \"quiz\": {"
	"   \"q1\": " Q("a", 0, 3, "2025-01-01T10:00:00Z") ","
	"   \"q2\": " Q("b", 1, 1, "2025-01-03T10:00:00Z") ","
	"   \"q3\": " Q("c", 1, 1, "2025-01-02T10:00:00Z") "},"
	"  \"predictions\": {\"p1\": {\"value\": 100, \"unit\": \"us\", \"time\": \"2025-01-01T00:00:00Z\"}}}},"
	" \"labs\": {\"latency\": {\"status\": \"done\", \"result\": \"/home/me/l.json\","
	"   \"time\": \"2025-01-05T00:00:00Z\"},"
	"  \"ftrace\": {\"status\": \"done\", \"result\": \"/home/me/f-old.json\","
	"   \"time\": \"2025-01-01T00:00:00Z\"}},"
	" \"host_only\": 1, \"both\": \"host\", \"updated\": \"2025-01-05T00:00:00Z\"}";

static const char guest_text[] =
	"{\"schema\": \"rtlab.progress/1\", \"lessons\": {"
	" \"02\": {\"read\": true},"
	" \"03\": {\"read\": true, \"position\": 50, \"quiz\": {"
	"   \"q1\": " Q("d", 1, 1, "2025-01-04T10:00:00Z") ","
	"   \"q2\": " Q("e", 0, 7, "2025-01-02T10:00:00Z") ","
	"   \"q3\": {\"answer\": \"f\", \"score\": 0, \"attempts\": 1},"
	"   \"q4\": " Q("g", 1, 1, "2025-01-04T10:00:00Z") "},"
	"  \"predictions\": {\"p1\": {\"value\": 300, \"unit\": \"us\", \"time\": \"2025-01-04T00:00:00Z\"}}}},"
	" \"labs\": {\"latency\": {\"status\": \"done\", \"result\": \"/state/rtlab/results/l.json\","
	"   \"time\": \"2025-01-02T00:00:00Z\"},"
	"  \"ftrace\": {\"status\": \"passed\", \"result\": \"/state/rtlab/results/f.json\","
	"   \"time\": \"2025-01-04T00:00:00Z\"}},"
	" \"guest_only\": [1], \"both\": \"guest\", \"updated\": \"2025-01-06T00:00:00Z\"}";

static const char *sget(json_t *j, const char *path)
{
	json_t *v = j;
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k && v; k = strtok_r(NULL, ".", &save))
		v = json_object_get(v, k);
	return json_string_value(v);
}

static json_int_t iget(json_t *j, const char *path)
{
	json_t *v = j;
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k && v; k = strtok_r(NULL, ".", &save))
		v = json_object_get(v, k);
	assert_non_null(v);
	return json_integer_value(v);
}

static void test_merge_rules(void **state)
{
	struct vm_pull_report r = { 0 };
	json_t *h = doc(host_text), *g = doc(guest_text), *again;

	(void)state;
	/* The ftrace document was pulled: its entry points at the host's copy. */
	r.n = 1;
	r.items = calloc(1, sizeof(*r.items));
	assert_non_null(r.items);
	r.items[0].guest = strdup("/state/rtlab/results/f.json");
	r.items[0].host = strdup("/home/me/.local/state/rtlab/results/f.json");
	assert_int_equal(vm_pull_merge_progress(h, g, &r), 0);

	/* Lessons only one side has are kept. */
	assert_true(json_is_true(json_object_get(json_object_get(json_object_get(h, "lessons"),
								  "01"), "read")));
	assert_true(json_is_true(json_object_get(json_object_get(json_object_get(h, "lessons"),
								  "02"), "read")));
	assert_true(changed(&r, "lesson 02: from the VM"));
	/* Read on either side; the further position. */
	assert_true(json_is_true(json_object_get(json_object_get(json_object_get(h, "lessons"),
								  "03"), "read")));
	assert_int_equal(iget(h, "lessons.03.position"), 200);
	/* q1: the VM's is newer and wins whole, with the larger attempt count. */
	assert_string_equal(sget(h, "lessons.03.quiz.q1.answer"), "d");
	assert_int_equal(iget(h, "lessons.03.quiz.q1.attempts"), 3);
	assert_true(changed(&r, "question q1: the VM's (newer"));
	/* q2: the host's is newer and stays; the attempts still count the VM's. */
	assert_string_equal(sget(h, "lessons.03.quiz.q2.answer"), "b");
	assert_int_equal(iget(h, "lessons.03.quiz.q2.attempts"), 7);
	assert_true(changed(&r, "question q2: kept the host's"));
	/* q3: the VM's has no time, so the host's stays. */
	assert_string_equal(sget(h, "lessons.03.quiz.q3.answer"), "c");
	/* q4: only the VM answered it. */
	assert_string_equal(sget(h, "lessons.03.quiz.q4.answer"), "g");
	/* The newer prediction. */
	assert_int_equal(json_number_value(json_object_get(json_object_get(json_object_get(
		json_object_get(json_object_get(h, "lessons"), "03"), "predictions"), "p1"),
		"value")), 300);
	/* Labs: latency is newer on the host, ftrace in the VM (its path rewritten). */
	assert_string_equal(sget(h, "labs.latency.result"), "/home/me/l.json");
	assert_string_equal(sget(h, "labs.ftrace.status"), "passed");
	assert_string_equal(sget(h, "labs.ftrace.result"),
			    "/home/me/.local/state/rtlab/results/f.json");
	/* Unknown members: both kept, the host's value where both have one. */
	assert_int_equal(iget(h, "host_only"), 1);
	assert_true(json_is_array(json_object_get(h, "guest_only")));
	assert_string_equal(sget(h, "both"), "host");
	assert_string_equal(sget(h, "updated"), "2025-01-05T00:00:00Z");

	/* Merging the same guest again changes nothing. */
	again = json_deep_copy(h);
	assert_int_equal(vm_pull_merge_progress(h, g, &r), 0);
	assert_true(json_equal(again, h));
	json_decref(again);

	/* Nothing is lost the other way round either: the VM's view gains the host's. */
	json_decref(h);
	h = doc(host_text);
	assert_int_equal(vm_pull_merge_progress(g, h, &r), 0);
	assert_string_equal(sget(g, "lessons.03.quiz.q2.answer"), "b");
	assert_string_equal(sget(g, "lessons.03.quiz.q1.answer"), "d");
	assert_true(json_is_true(json_object_get(json_object_get(json_object_get(g, "lessons"),
								  "01"), "read")));
	json_decref(h);
	json_decref(g);
	vm_pull_report_fini(&r);
}

/*
 * A hostile guest: a lab's result naming a host file the pull did not take in is dropped
 * (else `rtlab grade` would read /etc/shadow as the latest result), and ids with a C1
 * control or a bidi override are escaped in the notes.
 */
static void test_merge_hostile(void **state)
{
	struct vm_pull_report r = { 0 };
	json_t *h = doc("{\"schema\": \"rtlab.progress/1\", \"lessons\": {\"09\": {}}}");
	json_t *g = doc("{\"schema\": \"rtlab.progress/1\", \"lessons\": {"
			" \"0\u202e8\": {\"read\": true}, \"09\": {\"quiz\": {"
			"  \"q\xc2\x9b" "1\": " Q("a", 1, 1, "2025-01-04T10:00:00Z") "}}},"
			" \"labs\": {\"latency\": {\"status\": \"done\", \"result\": \"/etc/shadow\","
			"   \"time\": \"2025-01-02T00:00:00Z\"},"
			"  \"ftrace\": {\"status\": \"done\", \"result\": \"/state/rtlab/results/f.json\","
			"   \"time\": \"2025-01-02T00:00:00Z\"},"
			"  \"lab\u202e\": {\"status\": \"done\", \"time\": \"2025-01-02T00:00:00Z\"}}}");

	(void)state;
	/* Nothing was pulled: no result may be named. */
	assert_int_equal(vm_pull_merge_progress(h, g, &r), 0);
	assert_string_equal(sget(h, "labs.latency.status"), "done");
	assert_null(json_object_get(json_object_get(json_object_get(h, "labs"), "latency"),
				    "result"));
	assert_null(json_object_get(json_object_get(json_object_get(h, "labs"), "ftrace"),
				    "result"));
	assert_true(changed(&r, "lesson 0\\u202e8: from the VM"));
	assert_true(changed(&r, "question q\\u009b1: from the VM"));
	assert_true(changed(&r, "lab lab\\u202e: from the VM"));
	for (size_t i = 0; i < r.nchanges; i++) {
		assert_null(strstr(r.changes[i], "\u202e"));
		assert_null(strstr(r.changes[i], "\xc2\x9b"));
	}
	json_decref(h);
	json_decref(g);
	vm_pull_report_fini(&r);
}

struct fx {
	char dir[64];
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	strcpy(f->dir, "/tmp/rtlab-test-vm-pull-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	if (qemu_fx_remove(f->dir) < 0)
		return -1;
	free(f);
	return 0;
}

static char *slurp(const char *path)
{
	char *t = NULL;

	assert_int_equal(rt_file_read(path, 1 << 20, &t, NULL), 0);
	return t;
}

static void test_place(void **state)
{
	struct fx *f = *state;
	enum vm_pull_action act;
	char *host = NULL, *t, p[160], other[160], link[160];

	/* New: under its own name. */
	assert_int_equal(vm_pull_place(f->dir, "run.json", "A", 1, &host, &act, NULL), 0);
	assert_int_equal(act, VM_PULL_COPIED);
	snprintf(p, sizeof(p), "%s/run.json", f->dir);
	assert_string_equal(host, p);
	free(host);
	/* The same bytes again: nothing written. */
	assert_int_equal(vm_pull_place(f->dir, "run.json", "A", 1, &host, &act, NULL), 0);
	assert_int_equal(act, VM_PULL_SAME);
	assert_string_equal(host, p);
	free(host);
	/* Other bytes under that name: kept beside it, the host's file untouched. */
	assert_int_equal(vm_pull_place(f->dir, "run.json", "BB", 2, &host, &act, NULL), 0);
	assert_int_equal(act, VM_PULL_RENAMED);
	snprintf(p, sizeof(p), "%s/run-vm.json", f->dir);
	assert_string_equal(host, p);
	free(host);
	t = slurp(p);
	assert_string_equal(t, "BB");
	free(t);
	snprintf(p, sizeof(p), "%s/run.json", f->dir);
	t = slurp(p);
	assert_string_equal(t, "A");
	free(t);
	/* Pulled again: found under its -vm name. */
	assert_int_equal(vm_pull_place(f->dir, "run.json", "BB", 2, &host, &act, NULL), 0);
	assert_int_equal(act, VM_PULL_SAME);
	assert_non_null(strstr(host, "/run-vm.json"));
	free(host);
	/* A third content: the next free name. */
	assert_int_equal(vm_pull_place(f->dir, "run.json", "CCC", 3, &host, &act, NULL), 0);
	assert_int_equal(act, VM_PULL_RENAMED);
	assert_non_null(strstr(host, "/run-vm-2.json"));
	free(host);

	/* A link under the name is neither followed nor replaced. */
	snprintf(other, sizeof(other), "%s/other", f->dir);
	snprintf(link, sizeof(link), "%s/x.json", f->dir);
	qemu_fx_put(other, "keep", 0644);
	assert_int_equal(symlink(other, link), 0);
	assert_int_equal(vm_pull_place(f->dir, "x.json", "keep", 4, &host, &act, NULL), 0);
	assert_int_equal(act, VM_PULL_RENAMED);
	assert_non_null(strstr(host, "/x-vm.json"));
	free(host);
	t = slurp(other);
	assert_string_equal(t, "keep");
	free(t);
	/* No temporary file is left. */
	snprintf(p, sizeof(p), "ls -A %s | grep -q '^\\.vm-pull'", f->dir);
	assert_int_not_equal(system(p), 0);
}

#define RESULT(lab) "{\"schema\": \"rtlab.result/2\", \"lab\": \"" lab "\"}\n"

static void test_collect(void **state)
{
	struct fx *f = *state;
	struct vm_pull_report r;
	char pulled[160], st[160], p[256], *t, *cause = NULL;
	json_t *prog;

	snprintf(pulled, sizeof(pulled), "%s/pulled", f->dir);
	snprintf(st, sizeof(st), "%s/state", f->dir);
	snprintf(p, sizeof(p), "%s/results", pulled);
	assert_int_equal(rt_mkdir_p(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/top", pulled);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/results", st);
	assert_int_equal(rt_mkdir_p(p, 0700), 0);

	snprintf(p, sizeof(p), "%s/results/ftrace-1.json", pulled);
	qemu_fx_put(p, RESULT("ftrace"), 0600);
	snprintf(p, sizeof(p), "%s/results/latency-1.json", pulled);
	qemu_fx_put(p, RESULT("latency"), 0600);
	snprintf(p, sizeof(p), "%s/results/notes.txt", pulled);
	qemu_fx_put(p, "hello", 0600);
	snprintf(p, sizeof(p), "%s/results/link.json", pulled);
	assert_int_equal(symlink("/etc/passwd", p), 0);
	snprintf(p, sizeof(p), "%s/top/doctor.json", pulled);
	qemu_fx_put(p, "{\"schema\": \"rtlab.doctor/1\"}", 0600);
	snprintf(p, sizeof(p), "%s/top/hunt.json", pulled);
	qemu_fx_put(p, RESULT("ftrace"), 0600);
	/* The host has its own latency-1.json. */
	snprintf(p, sizeof(p), "%s/results/latency-1.json", st);
	qemu_fx_put(p, "host's own", 0600);
	snprintf(p, sizeof(p), "%s/progress.json", pulled);
	qemu_fx_put(p, "{\"schema\": \"rtlab.progress/1\", \"labs\": {\"ftrace\": {\"status\": "
		  "\"done\", \"result\": \"/state/rtlab/results/ftrace-1.json\", \"time\": "
		  "\"2025-01-01T00:00:00Z\"}}}", 0600);

	assert_int_equal(vm_pull_collect(pulled, st, &r, &cause), 0);
	assert_int_equal(r.n, 6);
	/* By directory, then by name. */
	assert_string_equal(r.items[0].guest, "/state/rtlab/results/ftrace-1.json");
	assert_int_equal(r.items[0].action, VM_PULL_COPIED);
	assert_string_equal(r.items[1].guest, "/state/rtlab/results/latency-1.json");
	assert_int_equal(r.items[1].action, VM_PULL_RENAMED);
	assert_non_null(strstr(r.items[1].host, "/results/latency-1-vm.json"));
	assert_string_equal(r.items[2].guest, "/state/rtlab/results/link.json");
	assert_int_equal(r.items[2].action, VM_PULL_SKIPPED);
	assert_null(r.items[2].host);
	assert_string_equal(r.items[3].guest, "/state/rtlab/results/notes.txt");
	assert_int_equal(r.items[3].action, VM_PULL_SKIPPED);
	assert_string_equal(r.items[4].guest, "/state/doctor.json");
	assert_int_equal(r.items[4].action, VM_PULL_SKIPPED);
	assert_non_null(strstr(r.items[4].reason, "not a results document"));
	assert_string_equal(r.items[5].guest, "/state/hunt.json");
	assert_int_equal(r.items[5].action, VM_PULL_COPIED);
	snprintf(p, sizeof(p), "%s/results/latency-1.json", st);
	t = slurp(p);
	assert_string_equal(t, "host's own");
	free(t);

	/* Progress merged, the lab's result pointing at the host's copy. */
	assert_true(r.progress_found);
	assert_null(r.progress_kept);
	t = slurp(r.progress_path);
	prog = doc(t);
	free(t);
	snprintf(p, sizeof(p), "%s/results/ftrace-1.json", st);
	assert_string_equal(sget(prog, "labs.ftrace.result"), p);
	json_decref(prog);
	vm_pull_report_fini(&r);

	/* Twice: everything the same, the progress file not rewritten. */
	snprintf(p, sizeof(p), "%s/progress.json", st);
	t = slurp(p);
	assert_int_equal(vm_pull_collect(pulled, st, &r, &cause), 0);
	assert_int_equal(r.items[0].action, VM_PULL_SAME);
	assert_int_equal(r.items[1].action, VM_PULL_SAME);
	assert_int_equal(r.items[5].action, VM_PULL_SAME);
	assert_int_equal(r.nchanges, 0);
	{
		char *t2 = slurp(p);

		assert_string_equal(t, t2);
		free(t2);
	}
	free(t);
	vm_pull_report_fini(&r);

	/* A guest progress that is not valid is kept whole, not merged. */
	snprintf(p, sizeof(p), "%s/progress.json", pulled);
	qemu_fx_put(p, "{\"schema\": \"rtlab.progress/1\", \"lessons\": 3}", 0600);
	assert_int_equal(vm_pull_collect(pulled, st, &r, &cause), 0);
	assert_true(r.progress_found);
	assert_non_null(r.progress_kept);
	assert_non_null(strstr(r.progress_kept, "/progress-vm.json"));
	assert_true(changed(&r, "could not be merged"));
	vm_pull_report_fini(&r);
	free(cause);
}

static void test_dir_new_remove(void **state)
{
	struct fx *f = *state;
	char *d, p[PATH_MAX], *cause = NULL;
	struct stat st;

	setenv("XDG_STATE_HOME", f->dir, 1);
	d = vm_pull_dir_new(&cause);
	assert_non_null(d);
	assert_int_equal(strncmp(d, f->dir, strlen(f->dir)), 0);
	assert_int_equal(stat(d, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	snprintf(p, sizeof(p), "%s/results", d);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/results/a.json", d);
	qemu_fx_put(p, "x", 0600);
	snprintf(p, sizeof(p), "%s/outside", f->dir);
	qemu_fx_put(p, "stays", 0600);
	snprintf(p, sizeof(p), "%s/results/link", d);
	assert_int_equal(symlink(f->dir, p), 0);
	assert_int_equal(vm_pull_dir_remove(d), 0);
	assert_int_equal(stat(d, &st), -1);
	snprintf(p, sizeof(p), "%s/outside", f->dir);
	assert_int_equal(stat(p, &st), 0);
	free(d);
	unsetenv("XDG_STATE_HOME");
	assert_string_equal(vm_pull_action_name(VM_PULL_RENAMED), "renamed");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_rules),
		cmocka_unit_test(test_merge_hostile),
		cmocka_unit_test_setup_teardown(test_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_collect, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_new_remove, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
