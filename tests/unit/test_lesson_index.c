/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for lesson_index: a temp folder of fixture lessons checks the
 * order, titles, front matter, the files that must be ignored, and that bad
 * files are listed with a problem naming file:line instead of aborting.
 * Title parsing edge cases are tested on strings directly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lesson/lesson_index.h"

static char tmpdir[64];
static char lessons[128];

static void put(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", lessons, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
	(void)state;
	strcpy(tmpdir, "/tmp/rtlab-test-lessons-XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(lessons, sizeof(lessons), "%s/lessons", tmpdir);
	return mkdir(lessons, 0755);
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static const struct lesson_entry *entry(const struct lesson_index *idx, const char *slug)
{
	for (size_t i = 0; i < idx->count; i++)
		if (strcmp(idx->entries[i].slug, slug) == 0)
			return &idx->entries[i];
	fail_msg("no entry with slug '%s'", slug);
	return NULL;
}

static struct lesson_index *scan_ok(void)
{
	char *cause = NULL;
	struct lesson_index *idx = lesson_index_scan(lessons, &cause);

	assert_non_null(idx);
	assert_null(cause);
	assert_string_equal(idx->dir, lessons);
	return idx;
}

static void test_order_titles_and_paths(void **state)
{
	struct lesson_index *idx;
	char path[256];

	(void)state;
	put("10-ten.md", "# Lesson ten\n");
	put("02-scheduling.md", "Intro text before the title.\n\n# Scheduling policies\n\nBody.\n");
	put("01-intro.md", "# What real-time means\n## Not this one\n# Nor this one\n");
	put("glossary.md", "# Glossary\n");
	put("03-a_b-c.md", "# Slug with an underscore\n");

	idx = scan_ok();
	assert_int_equal(idx->count, 5);
	assert_int_equal(idx->entries[0].number, 1);
	assert_string_equal(idx->entries[0].slug, "intro");
	assert_string_equal(idx->entries[0].title, "What real-time means");
	assert_int_equal(idx->entries[1].number, 2);
	assert_string_equal(idx->entries[1].title, "Scheduling policies");
	assert_string_equal(idx->entries[2].slug, "a_b-c");
	assert_int_equal(idx->entries[3].number, 10);
	assert_string_equal(idx->entries[3].title, "Lesson ten");
	snprintf(path, sizeof(path), "%s/10-ten.md", lessons);
	assert_string_equal(idx->entries[3].path, path);
	for (size_t i = 0; i < 4; i++) {
		assert_false(idx->entries[i].glossary);
		assert_null(idx->entries[i].problem);
	}
	/* The glossary comes last, whatever its name sorts like. */
	assert_true(idx->entries[4].glossary);
	assert_string_equal(idx->entries[4].slug, "glossary");
	assert_string_equal(idx->entries[4].title, "Glossary");
	assert_int_equal(idx->entries[4].number, 0);

	assert_ptr_equal(lesson_index_find(idx, 2), &idx->entries[1]);
	assert_ptr_equal(lesson_index_find(idx, 10), &idx->entries[3]);
	assert_null(lesson_index_find(idx, 0));	/* not the glossary */
	assert_null(lesson_index_find(idx, 7));
	lesson_index_free(idx);
}

static void test_front_matter(void **state)
{
	struct lesson_index *idx;

	(void)state;
	put("01-fm.md", "---\ntitle: not this\n# not this either\n---\n\n# From the body\n");
	put("02-dots.md", "---\r\nkey: v\r\n...\r\n# CRLF and a dots terminator\r\n");
	put("03-late.md", "# Dashes later are a rule\n---\n");
	put("04-open.md", "---\ntitle: x\n\n# never closed\n");
	put("05-fm-only.md", "---\na: 1\nb: 2\n---\nno heading here\n");

	idx = scan_ok();
	assert_int_equal(idx->count, 5);
	assert_string_equal(entry(idx, "fm")->title, "From the body");
	assert_string_equal(entry(idx, "dots")->title, "CRLF and a dots terminator");
	assert_string_equal(entry(idx, "late")->title, "Dashes later are a rule");
	assert_null(entry(idx, "open")->title);
	assert_string_equal(entry(idx, "open")->problem,
			    "04-open.md:1: front matter opened with '---' is never closed");
	/* The search for a title starts after the front matter, on line 5. */
	assert_null(entry(idx, "fm-only")->title);
	assert_string_equal(entry(idx, "fm-only")->problem,
			    "05-fm-only.md:5: no '# Title' heading from this line to the end "
			    "(line 5)");
	lesson_index_free(idx);
}

static void test_ignored_files(void **state)
{
	struct lesson_index *idx;
	char path[256];

	(void)state;
	put("01-real.md", "# Real\n");
	put("README.md", "# Readme\n");
	put("notes.txt", "# Notes\n");
	put("1-short.md", "# One digit\n");
	put("001-long.md", "# Three digits\n");
	put("05-.md", "# Empty slug\n");
	put("05-x.md~", "# Editor backup\n");
	put(".06-hidden.md.swp", "x");
	put("07-has space.md", "# Space\n");
	put("08-quiz.quiz", "# Quiz file\n");
	put("ab-letters.md", "# Letters\n");
	put("Glossary.md", "# Case matters\n");
	snprintf(path, sizeof(path), "%s/images", lessons);
	assert_int_equal(mkdir(path, 0755), 0);

	idx = scan_ok();
	assert_int_equal(idx->count, 1);
	assert_string_equal(idx->entries[0].slug, "real");
	lesson_index_free(idx);
}

static void test_bad_files_are_listed(void **state)
{
	struct lesson_index *idx;
	char path[256];

	(void)state;
	put("01-ok.md", "# Fine\n");
	put("02-noheading.md", "Some text\n\n## Only a subsection\n#NotAHeading\n");
	put("03-latin1.md", "intro\n# Caf\xe9 au lait\n");
	put("04-empty.md", "");
	put("06-ctrl.md", "# Bell \a here\n");
	put("07-blank-title.md", "\n\n#   ##\n");
	snprintf(path, sizeof(path), "%s/05-gone.md", lessons);
	assert_int_equal(symlink("/nonexistent/rtlab/lesson.md", path), 0);
	snprintf(path, sizeof(path), "%s/08-dir.md", lessons);
	assert_int_equal(mkdir(path, 0755), 0);

	idx = scan_ok();
	assert_int_equal(idx->count, 8);
	assert_string_equal(entry(idx, "ok")->title, "Fine");
	assert_null(entry(idx, "ok")->problem);
	assert_string_equal(entry(idx, "noheading")->problem,
			    "02-noheading.md:1: no '# Title' heading from this line to the end "
			    "(line 4)");
	assert_string_equal(entry(idx, "latin1")->problem,
			    "03-latin1.md:2: the title is not valid UTF-8");
	assert_string_equal(entry(idx, "empty")->problem,
			    "04-empty.md:1: no '# Title' heading from this line to the end "
			    "(line 0)");
	assert_string_equal(entry(idx, "gone")->problem,
			    "05-gone.md: cannot read: No such file or directory");
	assert_string_equal(entry(idx, "ctrl")->problem,
			    "06-ctrl.md:1: the title contains control characters");
	assert_string_equal(entry(idx, "blank-title")->problem,
			    "07-blank-title.md:3: the '#' title heading is empty");
	assert_string_equal(entry(idx, "dir")->problem, "08-dir.md: not a regular file");
	for (size_t i = 1; i < idx->count; i++)
		assert_null(idx->entries[i].title);
	/* Still in number order, problems or not. */
	for (size_t i = 0; i < idx->count; i++)
		assert_int_equal(idx->entries[i].number, i + 1);
	lesson_index_free(idx);
}

static void test_duplicate_numbers(void **state)
{
	struct lesson_index *idx;

	(void)state;
	put("02-second.md", "# Second\n");
	put("02-again.md", "# Again\n");

	idx = scan_ok();
	assert_int_equal(idx->count, 2);
	assert_string_equal(idx->entries[0].slug, "again");
	assert_string_equal(idx->entries[0].title, "Again");
	assert_null(idx->entries[0].problem);
	assert_null(idx->entries[1].title);
	assert_string_equal(idx->entries[1].problem,
			    "02-second.md: lesson number 02 is also used by 02-again.md");
	assert_ptr_equal(lesson_index_find(idx, 2), &idx->entries[0]);
	lesson_index_free(idx);
}

static void test_missing_and_unreadable_folder(void **state)
{
	struct lesson_index *idx;
	char *cause = NULL;
	char path[256];

	(void)state;
	/* An empty folder and a missing one both mean "no lessons installed". */
	idx = scan_ok();
	assert_int_equal(idx->count, 0);
	lesson_index_free(idx);
	snprintf(path, sizeof(path), "%s/absent", tmpdir);
	idx = lesson_index_scan(path, &cause);
	assert_non_null(idx);
	assert_null(cause);
	assert_int_equal(idx->count, 0);
	assert_string_equal(idx->dir, path);
	lesson_index_free(idx);

	/* A file where the folder should be is an error with a reason. */
	put("01-x.md", "# X\n");
	snprintf(path, sizeof(path), "%s/01-x.md", lessons);
	errno = 0;
	idx = lesson_index_scan(path, &cause);
	assert_null(idx);
	assert_int_equal(errno, ENOTDIR);
	assert_non_null(cause);
	assert_non_null(strstr(cause, path));
	free(cause);
	lesson_index_free(NULL);
}

static void test_load_uses_data_dir(void **state)
{
	struct lesson_index *idx;
	char *cause = NULL;

	(void)state;
	put("04-data.md", "# From the data dir\n");
	setenv("RTLAB_DATADIR", tmpdir, 1);
	idx = lesson_index_load(&cause);
	unsetenv("RTLAB_DATADIR");
	assert_non_null(idx);
	assert_null(cause);
	assert_string_equal(idx->dir, lessons);
	assert_int_equal(idx->count, 1);
	assert_string_equal(idx->entries[0].title, "From the data dir");
	lesson_index_free(idx);
}

/* Parse @text as file "t.md"; returns the title or the problem (caller frees). */
static char *title(const char *text, int *ret)
{
	char *t = NULL, *problem = NULL;

	*ret = lesson_index_title_of("t.md", text, strlen(text), &t, &problem);
	if (*ret == 0) {
		assert_non_null(t);
		assert_null(problem);
		return t;
	}
	assert_null(t);
	assert_non_null(problem);
	return problem;
}

static void expect_title(const char *text, const char *want)
{
	int ret;
	char *got = title(text, &ret);

	if (ret != 0)
		fail_msg("no title in \"%s\": %s", text, got);
	assert_string_equal(got, want);
	free(got);
}

static void expect_problem(const char *text, const char *want)
{
	int ret;
	char *got = title(text, &ret);

	if (ret != -EINVAL)
		fail_msg("unexpected title \"%s\" from \"%s\"", got, text);
	assert_string_equal(got, want);
	free(got);
}

static void test_title_syntax(void **state)
{
	(void)state;
	expect_title("# Plain", "Plain");
	expect_title("#\tTabbed\ttitle  \t", "Tabbed title");
	expect_title("   # Three spaces of indent", "Three spaces of indent");
	expect_title("# Closed ###", "Closed");
	expect_title("# C# is not a closing sequence", "C# is not a closing sequence");
	expect_title("# Ends with C#", "Ends with C#");
	expect_title("# Latency \xe2\x80\x94 \xe5\xae\x9f\xe6\x99\x82\xe9\x96\x93",
		     "Latency \xe2\x80\x94 \xe5\xae\x9f\xe6\x99\x82\xe9\x96\x93");
	expect_title("\xef\xbb\xbf# After a BOM", "After a BOM");
	expect_title("\xef\xbb\xbf---\nx: 1\n---\n# BOM and front matter", "BOM and front matter");
	expect_title("## Section\n# Title after a section", "Title after a section");
	expect_title("    # indented code\n# Real", "Real");
	expect_title("#hashtag\n# Real", "Real");
	/* Code fences hide their contents, whatever the fence length or character. */
	expect_title("```sh\n# a shell comment\n```\n# After code", "After code");
	expect_title("~~~~\n# x\n~~~\n# still code\n~~~~\n# After tildes", "After tildes");
	expect_title("````\n```\n# x\n````\n# After nested", "After nested");
	expect_title("```\n# x\n``` not a close\n```\n# After", "After");

	expect_problem("```\n# only in code\n", "t.md:1: no '# Title' heading from this line "
		       "to the end (line 2)");
	expect_problem("Title\n=====\n", "t.md:1: no '# Title' heading from this line to the "
		       "end (line 2)");
	expect_problem("#", "t.md:1: the '#' title heading is empty");
	expect_problem("# bad \xc0\xaf overlong", "t.md:1: the title is not valid UTF-8");
	expect_problem("# surrogate \xed\xa0\x80", "t.md:1: the title is not valid UTF-8");
	expect_problem("# cut \xe2\x80", "t.md:1: the title is not valid UTF-8");
	expect_problem("# escape \x1b[31m red", "t.md:1: the title contains control characters");
	expect_problem("# C1 \xc2\x9b control", "t.md:1: the title contains control characters");
}

static void test_title_with_nul_byte(void **state)
{
	static const char text[] = "# A\0B\n";
	char *t = NULL, *problem = NULL;

	(void)state;
	assert_int_equal(lesson_index_title_of("n.md", text, sizeof(text) - 1, &t, &problem),
			 -EINVAL);
	assert_null(t);
	assert_string_equal(problem, "n.md:1: the title contains control characters");
	free(problem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_order_titles_and_paths, setup, teardown),
		cmocka_unit_test_setup_teardown(test_front_matter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ignored_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_files_are_listed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_duplicate_numbers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_and_unreadable_folder, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_load_uses_data_dir, setup, teardown),
		cmocka_unit_test(test_title_syntax),
		cmocka_unit_test(test_title_with_nul_byte),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
