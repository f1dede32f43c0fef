/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for rt_preempt: the parser of debugfs sched/preempt, each
 * place a switch can be refused, and a switch through the undo journal on
 * a fixture tree (proc/mounts and sys/kernel/debug/sched/preempt in a temp
 * dir, which rt_journal_test_allow() lets the journal write): the file
 * holds the new model, and closing the journal writes the old one back.
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
#include "core/rt_journal-int.h"
#include "core/rt_journal.h"
#include "core/rt_preempt.h"

struct fix {
	char root[PATH_MAX];		/* the fixture tree, canonical */
	char journal[PATH_MAX + 16];	/* the journal's directory */
	char knob[PATH_MAX + 64];	/* <root>/sys/kernel/debug/sched/preempt */
};

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static char *slurp(const char *path)
{
	char *data = NULL;
	size_t len = 0;

	assert_int_equal(rt_file_read(path, 4096, &data, &len), 0);
	return data;
}

/* A tree with debugfs mounted and a kernel offering every model, voluntary active. */
static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	char tmpl[] = "/tmp/test_rt_preempt.XXXXXX", path[PATH_MAX + 64];
	char *real;

	if (!f || !mkdtemp(tmpl))
		return -1;
	real = realpath(tmpl, NULL);
	snprintf(f->root, sizeof(f->root), "%s", real);
	free(real);
	snprintf(f->journal, sizeof(f->journal), "%s/journal", f->root);
	snprintf(path, sizeof(path), "%s/proc", f->root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proc/mounts", f->root);
	put(path, "sysfs /sys sysfs rw 0 0\nnodev /sys/kernel/debug debugfs rw,relatime 0 0\n");
	snprintf(path, sizeof(path), "%s/sys/kernel/debug/sched", f->root);
	assert_int_equal(rt_mkdir_p(path, 0755), 0);
	snprintf(f->knob, sizeof(f->knob), "%s%s", f->root, RT_PREEMPT_FILE);
	put(f->knob, "none (voluntary) full lazy\n");
	if (rt_journal_test_allow(f->root))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;
	char cmd[PATH_MAX + 16];

	rt_journal_test_allow(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->root);
	if (system(cmd))
		return -1;
	free(f);
	return 0;
}

static void test_parse(void **state)
{
	unsigned int offered = 0;

	(void)state;
	assert_string_equal(rt_preempt_parse("none (voluntary) full lazy\n", &offered),
			    "voluntary");
	assert_int_equal(offered, 0xf);
	assert_string_equal(rt_preempt_parse("none voluntary (full)", &offered), "full");
	assert_int_equal(offered, 0x7);
	/* A model newer than rtlab is listed but not ours to name. */
	assert_string_equal(rt_preempt_parse("none (lazy) full future", &offered), "lazy");
	assert_int_equal(offered, 0xd);
	assert_null(rt_preempt_parse("none voluntary full", NULL));
	assert_null(rt_preempt_parse("(none) (full)", NULL));
	assert_null(rt_preempt_parse("none (full", NULL));
	assert_null(rt_preempt_parse("none () full", NULL));
	assert_null(rt_preempt_parse("", NULL));
	assert_string_equal(rt_preempt_model("full"), "full");
	assert_null(rt_preempt_model("Full"));
	assert_null(rt_preempt_model(NULL));
	assert_string_equal(rt_preempt_stop_name(RT_PREEMPT_READ_REFUSED), "read-refused");
}

/* Each refusal stops where it is, and says so. */
static void test_refusals(void **state)
{
	struct fix *f = *state;
	struct rt_preempt_state st;
	char path[PATH_MAX + 64], *cause = NULL;

	assert_int_equal(rt_preempt_read(f->root, false, &st, &cause), -ENOTSUP);
	assert_int_equal(st.stop, RT_PREEMPT_NOT_DYNAMIC);
	assert_non_null(strstr(cause, "not PREEMPT_DYNAMIC"));
	free(cause);
	cause = NULL;

	assert_int_equal(rt_preempt_read(f->root, true, &st, &cause), 0);
	assert_int_equal(st.stop, RT_PREEMPT_OK);
	assert_string_equal(st.current, "voluntary");

	put(f->knob, "none voluntary full lazy\n");
	assert_int_equal(rt_preempt_read(f->root, true, &st, &cause), -EINVAL);
	assert_int_equal(st.stop, RT_PREEMPT_UNREADABLE);
	assert_non_null(strstr(cause, "no active model"));
	free(cause);
	cause = NULL;

	assert_int_equal(unlink(f->knob), 0);
	assert_int_equal(rt_preempt_read(f->root, true, &st, &cause), -ENOENT);
	assert_int_equal(st.stop, RT_PREEMPT_NO_FILE);
	assert_non_null(strstr(cause, RT_PREEMPT_FILE));
	free(cause);
	cause = NULL;

	snprintf(path, sizeof(path), "%s/proc/mounts", f->root);
	put(path, "sysfs /sys sysfs rw 0 0\nnodev /sys/kernel/tracing tracefs rw 0 0\n");
	assert_int_equal(rt_preempt_read(f->root, true, &st, &cause), -ENOENT);
	assert_int_equal(st.stop, RT_PREEMPT_NO_DEBUGFS);
	assert_non_null(strstr(cause, "mount -t debugfs"));
	free(cause);
}

/* The switch goes through the journal: its close writes the old model back. */
static void test_switch_and_replay(void **state)
{
	struct fix *f = *state;
	struct rt_preempt_state st;
	struct rt_journal *j;
	char *cause = NULL, *text;

	j = rt_journal_open(f->journal, &cause);
	assert_non_null(j);

	/* The model in force: nothing written, nothing journalled. */
	assert_int_equal(rt_preempt_switch(j, f->root, true, "voluntary", &st, &cause), 0);
	assert_int_equal(rt_journal_count(j), 0);

	/* A model the kernel does not list. */
	put(f->knob, "none (voluntary) full\n");
	assert_int_equal(rt_preempt_switch(j, f->root, true, "lazy", &st, &cause), -EINVAL);
	assert_non_null(strstr(cause, "does not offer"));
	free(cause);
	cause = NULL;
	assert_int_equal(rt_journal_count(j), 0);

	assert_int_equal(rt_preempt_switch(j, f->root, true, "full", &st, &cause), 0);
	assert_string_equal(st.current, "voluntary");
	assert_int_equal(rt_journal_count(j), 1);
	text = slurp(f->knob);
	assert_string_equal(text, "full");
	free(text);

	/* Closing (as exit, a stop signal or a crash would) puts the word back. */
	assert_int_equal(rt_journal_close(j), 0);
	text = slurp(f->knob);
	assert_string_equal(text, "voluntary");
	free(text);

	/* Put back by hand, then replayed: it stays the old model. */
	put(f->knob, "none (voluntary) full lazy\n");
	j = rt_journal_open(f->journal, &cause);
	assert_non_null(j);
	assert_int_equal(rt_preempt_switch(j, f->root, true, "none", &st, &cause), 0);
	assert_int_equal(rt_preempt_put_back(j, f->root, "voluntary", &cause), 0);
	assert_int_equal(rt_journal_close(j), 0);
	text = slurp(f->knob);
	assert_string_equal(text, "voluntary");
	free(text);
	assert_int_equal(rt_preempt_put_back(NULL, f->root, "bogus", &cause), -EINVAL);
	free(cause);
}

/* Outside the fixture the journal refuses a file it may not restore. */
static void test_journal_rules(void **state)
{
	struct fix *f = *state;
	struct rt_journal *j;
	char *cause = NULL;

	rt_journal_test_allow(NULL);
	j = rt_journal_open(f->journal, &cause);
	assert_non_null(j);
	assert_int_equal(rt_journal_write_knob(j, f->knob, "none", 4, "full", 4, &cause), -EPERM);
	assert_non_null(strstr(cause, "may not change it"));
	free(cause);
	assert_int_equal(rt_journal_count(j), 0);
	assert_int_equal(rt_journal_close(j), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_switch_and_replay, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_rules, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
