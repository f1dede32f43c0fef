/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the lesson linter: fixture lessons in tests/data/lessons,
 * good and broken, each broken one with the exact "file:line: message" lines
 * it must produce; the shipped lessons, which must lint clean and hold
 * 800 to 1500 words of prose; nesting 50,000 deep, a file too large and one
 * that cannot be read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/rt_buf.h"
#include "lesson/lesson_doc.h"
#include "lesson/lesson_lint.h"
#include "lesson/lesson_stale.h"
#include "lesson_labs_fixture.h"

static const char *srcdir(void)
{
	const char *s = getenv("SRCDIR");

	return s && *s ? s : ".";
}

static char *fixture(const char *name)
{
	char *p;

	assert_true(asprintf(&p, "%s/tests/data/lessons/%s", srcdir(), name) > 0);
	return p;
}

/* Expected output: "$" stands for the fixture's path. */
static const struct {
	const char *name;
	int count;
	const char *expect;
} cases[] = {
	{ "01-good.md", 0, "" },
	{ "02-second.md", 0, "" },
	{ "glossary.md", 0, "" },
	{ "10-bad-title.md", 1, "$:1: the first line must be the title, '# Title'\n" },
	{ "11-bad-quiz.md", 5,
	  "$:11: unknown key 'anwser'\n"
	  "$:22: options do not apply to kind numeric\n"
	  "$:26: missing key 'explain'\n"
	  "$:43: quiz id 'q4' already used on line 34\n"
	  "$:54: quiz block must be at the top level, not in a list or quote\n" },
	{ "12-bad-links.md", 6,
	  "$:3: unknown lab 'nosuch' in link\n"
	  "$:3: no lesson 42 for link 'rtlab:lesson/42'\n"
	  "$:3: glossary term 'nope' not found in glossary.md\n"
	  "$:4: lesson link 'rtlab:lesson/7' must be rtlab:lesson/NN (two digits)\n"
	  "$:4: link 'mailto:someone@example.org' is neither an rtlab: link nor an http(s) URL\n"
	  "$:5: unknown rtlab: link 'rtlab:slides/3' (lab/<name>, lesson/NN or glossary#term)\n" },
	{ "13-html-table.md", 7,
	  "$:3: raw HTML is not allowed\n"
	  "$:5: raw HTML is not allowed\n"
	  "$:8: tables are not supported: use a list\n"
	  "$:11: indented code block: use a ``` fenced block\n"
	  "$:13: setext heading: write it as '## text'\n"
	  "$:16: only the title on the first line may be a level-1 heading\n"
	  "$:18: images are not supported\n" },
	{ "Bad_Name.md", 1, "$:1: file name must be NN-slug.md (two digits, lower-case slug)\n" },
};

static void test_fixtures(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rt_buf want = RT_BUF_INIT, got = RT_BUF_INIT;
		char *path = fixture(cases[i].name);

		for (const char *c = cases[i].expect; *c; c++) {
			if (*c == '$')
				rt_buf_puts(&want, path);
			else
				rt_buf_append(&want, c, 1);
		}
		print_message("%s\n", cases[i].name);
		assert_int_equal(lesson_lint_file(path, &got), cases[i].count);
		assert_string_equal(rt_buf_str(&got), rt_buf_str(&want));
		rt_buf_fini(&want);
		rt_buf_fini(&got);
		free(path);
	}
}

static void test_missing_file(void **state)
{
	struct rt_buf got = RT_BUF_INIT;
	char *path = fixture("99-nothing-here.md");

	(void)state;
	assert_int_equal(lesson_lint_file(path, &got), -ENOENT);
	assert_non_null(strstr(rt_buf_str(&got), "99-nothing-here.md"));
	rt_buf_fini(&got);
	free(path);
}

/* The good fixture resolves every kind of link against its directory. */
static void test_good_resolves(void **state)
{
	struct lesson_doc *doc = NULL;
	char *path = fixture("01-good.md"), *cause = NULL;

	(void)state;
	assert_int_equal(lesson_doc_load(path, &doc, &cause), 0);
	assert_string_equal(doc->title, "A good lesson");
	assert_int_equal(doc->nquizzes, 2);
	assert_int_equal(doc->nlinks, 7);
	for (size_t i = 0; i < doc->nlinks; i++)
		assert_true(doc->links[i].resolved);
	/* The latency lab is ready, so its link is not marked as coming. */
	assert_false(doc->links[0].planned);
	assert_string_equal(doc->links[0].label, "latency lab");
	assert_string_equal(doc->links[1].label, "lesson 02: The second lesson");
	assert_string_equal(doc->links[2].label, "glossary: Jitter");
	/* Anchors compare without case: "Wake-Up-Latency" is "## Wake-up latency". */
	assert_string_equal(doc->links[3].label, "glossary: Wake-up latency");
	assert_string_equal(doc->links[4].label, "https://commonmark.org/");
	assert_int_equal(doc->links[5].number, doc->links[4].number);
	assert_int_equal(doc->links[6].number, doc->links[1].number);
	assert_int_equal(doc->nrefs, 5);
	lesson_doc_free(doc);
	free(path);
}

/* The shipped lessons must stay well formed and of teaching length. */
static void test_shipped_lessons(void **state)
{
	struct dirent **names;
	char *dir;
	int n, lessons = 0;

	(void)state;
	assert_true(asprintf(&dir, "%s/lessons", srcdir()) > 0);
	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0) {
		free(dir);
		skip();
	}
	for (int i = 0; i < n; i++) {
		const char *nm = names[i]->d_name;
		size_t len = strlen(nm);

		if (len > 3 && !strcmp(nm + len - 3, ".md") && strcmp(nm, "FORMAT.md")) {
			struct rt_buf got = RT_BUF_INIT;
			struct lesson_doc *doc = NULL;
			char *path;

			assert_true(asprintf(&path, "%s/%s", dir, nm) > 0);
			print_message("%s\n", path);
			assert_int_equal(lesson_lint_file(path, &got), 0);
			assert_string_equal(rt_buf_str(&got), "");
			if (nm[0] >= '0' && nm[0] <= '9') {
				assert_int_equal(lesson_doc_load(path, &doc, NULL), 0);
				assert_in_range(lesson_doc_word_count(doc), 800, 1500);
				lesson_doc_free(doc);
				lessons++;
			}
			rt_buf_fini(&got);
			free(path);
		}
		free(names[i]);
	}
	free(names);
	free(dir);
	assert_true(lessons > 0);
}

/* A scratch lesson file <tmp dir>/@name; the caller removes it with unscratch(). */
static char *scratch(const char *name, const char *text, size_t len)
{
	char dir[] = "/tmp/rtlab-lint-XXXXXX", *path;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return path;
}

static void unscratch(char *path)
{
	char *copy = strdup(path);
	int a = unlink(path), b;

	assert_non_null(copy);
	b = rmdir(dirname(copy));
	free(copy);
	free(path);
	assert_int_equal(a, 0);
	assert_int_equal(b, 0);
}

/* 50,000 nested '>' or "- ": one problem at the line where it starts, no crash. */
static void test_deep_nesting(void **state)
{
	static const char *const opens[] = { ">", "- ", "> - " };

	(void)state;
	for (size_t k = 0; k < sizeof(opens) / sizeof(opens[0]); k++) {
		struct rt_buf md = RT_BUF_INIT, got = RT_BUF_INIT, want = RT_BUF_INIT;
		char *path;

		assert_int_equal(rt_buf_puts(&md, "# Deep\n\n"), 0);
		for (int i = 0; i < 50000; i++)
			assert_int_equal(rt_buf_puts(&md, opens[k]), 0);
		assert_int_equal(rt_buf_puts(&md, "x\n"), 0);
		path = scratch("01-deep.md", rt_buf_str(&md), md.len);
		assert_int_equal(rt_buf_printf(&want, "%s:3: nesting deeper than %u levels (block "
					       "quotes, lists, emphasis, links); shown as plain "
					       "text\n", path, LESSON_MAX_NESTING), 0);
		assert_int_equal(lesson_lint_file(path, &got), 1);
		assert_string_equal(rt_buf_str(&got), rt_buf_str(&want));
		unscratch(path);
		rt_buf_fini(&md);
		rt_buf_fini(&got);
		rt_buf_fini(&want);
	}
}

/* A file that cannot be read, or is too large, says so. */
static void test_unreadable_and_oversized(void **state)
{
	struct rt_buf got = RT_BUF_INIT, want = RT_BUF_INIT;
	size_t big = (4u << 20) + 1;
	char *text = malloc(big), *path;

	(void)state;
	assert_non_null(text);
	memset(text, 'a', big);
	memcpy(text, "# Big\n\n", 7);
	path = scratch("02-big.md", text, big);
	free(text);
	assert_int_equal(lesson_lint_file(path, &got), -EFBIG);
	assert_int_equal(rt_buf_printf(&want, "%s: is larger than 4194304 bytes (4 MiB), the most "
				       "a lesson may have\n", path), 0);
	assert_string_equal(rt_buf_str(&got), rt_buf_str(&want));
	unscratch(path);
	rt_buf_reset(&got);
	rt_buf_reset(&want);

	/* A directory given as a file (root reads anything, so no permission test here). */
	path = fixture("");
	assert_int_equal(lesson_lint_file(path, &got), -EISDIR);
	assert_int_equal(rt_buf_printf(&want, "%s: is a directory, not a regular file\n", path), 0);
	assert_string_equal(rt_buf_str(&got), rt_buf_str(&want));
	free(path);
	rt_buf_fini(&got);
	rt_buf_fini(&want);
}

/*
 * Every stale phrase is rejected, with its reason, on the line it is on,
 * whatever its case; a text that only comes close ("a planned wake-up
 * time", "the plate lands") passes. Lessons through the lint, any other
 * file (a handout) through lesson_stale_file().
 */
static void test_stale_phrases(void **state)
{
	static const char clean[] = "# Clean\n\nEach wake-up comes at its planned time; the plate\n"
				    "lands on the next seat. See doc/references.md 4.5.\n";
	struct rt_buf got = RT_BUF_INIT;
	char *path;

	(void)state;
	for (const struct lesson_stale *s = lesson_stale_phrases; s->phrase; s++) {
		struct rt_buf md = RT_BUF_INIT, want = RT_BUF_INIT;
		char upper[64];
		size_t k;

		for (k = 0; s->phrase[k] && k + 1 < sizeof(upper); k++)
			upper[k] = (char)toupper((unsigned char)s->phrase[k]);
		upper[k] = 0;
		assert_int_equal(rt_buf_printf(&md, "# Stale\n\nThe lab, %s, is fine.\n\n%s\n",
					       s->phrase, upper), 0);
		path = scratch("01-stale.md", rt_buf_str(&md), md.len);
		assert_int_equal(rt_buf_printf(&want, "%s:3: stale phrase '%s': %s\n"
					       "%s:5: stale phrase '%s': %s\n", path, s->phrase,
					       s->why, path, s->phrase, s->why), 0);
		print_message("%s\n", s->phrase);
		assert_int_equal(lesson_lint_file(path, &got), 2);
		assert_string_equal(rt_buf_str(&got), rt_buf_str(&want));
		rt_buf_reset(&got);
		assert_int_equal(lesson_stale_file(path, &got), 2);
		assert_string_equal(rt_buf_str(&got), rt_buf_str(&want));
		rt_buf_reset(&got);
		unscratch(path);
		rt_buf_fini(&md);
		rt_buf_fini(&want);
	}
	path = scratch("01-clean.md", clean, sizeof(clean) - 1);
	assert_int_equal(lesson_lint_file(path, &got), 0);
	assert_int_equal(lesson_stale_file(path, &got), 0);
	assert_string_equal(rt_buf_str(&got), "");
	unscratch(path);
	rt_buf_fini(&got);
}

/* The handouts (labs/NAME/README.md) hold no stale phrase either. */
static void test_shipped_handouts(void **state)
{
	struct dirent **names = NULL;
	char *dir;
	int n, handouts = 0;

	(void)state;
	assert_true(asprintf(&dir, "%s/labs", srcdir()) > 0);
	n = scandir(dir, &names, NULL, alphasort);
	assert_true(n > 0);
	for (int i = 0; i < n; i++) {
		struct rt_buf got = RT_BUF_INIT;
		char *path;

		assert_true(asprintf(&path, "%s/%s/README.md", dir, names[i]->d_name) > 0);
		if (names[i]->d_name[0] != '.' && access(path, R_OK) == 0) {
			int ret = lesson_stale_file(path, &got);

			if (ret)
				fail_msg("%s: %d stale phrase(s):\n%s", path, ret, rt_buf_str(&got));
			handouts++;
		}
		rt_buf_fini(&got);
		free(path);
		free(names[i]);
	}
	free(names);
	free(dir);
	assert_true(handouts >= 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_good_resolves),
		cmocka_unit_test(test_shipped_lessons),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_unreadable_and_oversized),
		cmocka_unit_test(test_stale_phrases),
		cmocka_unit_test(test_shipped_handouts),
	};

	fixture_lesson_labs_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
