/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the deck parser, the lint and the HTML export: a good deck
 * split into its slides (titles, bodies, notes, plots), each broken form
 * with its exact "name:line: message", separators inside code fences, the
 * fit at 80x24, plot paths (deck-relative, class:, sample), finding decks
 * by number and slug, the shipped decks linting clean, and an export whose
 * plot slide carries report_svg()'s SVG while a missing document becomes a
 * note.
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

#include "core/rt_buf.h"
#include "report/report.h"
#include "lesson/lesson_stale.h"
#include "lesson/slides.h"
#include "lesson_labs_fixture.h"

static const char *srcdir(void)
{
	const char *s = getenv("SRCDIR");

	return s && *s ? s : ".";
}

static struct slides_deck *parse(const char *text)
{
	struct slides_deck *d = NULL;
	char *cause = NULL;

	assert_int_equal(slides_deck_parse(text, strlen(text), "d/01-x.md", &d, &cause), 0);
	assert_null(cause);
	return d;
}

/* All problems, each followed by a newline. */
static char *problems(const struct slides_deck *d)
{
	struct rt_buf b = RT_BUF_INIT;

	for (size_t i = 0; i < d->nproblems; i++)
		assert_int_equal(rt_buf_printf(&b, "%s\n", d->problems[i].msg), 0);
	assert_int_equal(rt_buf_puts(&b, ""), 0);
	return rt_buf_take(&b);
}

static const char good[] =
	"# The deck\n"				/* 1 */
	"\n"
	"A subtitle.\n"
	"\n"
	"Notes:\n"				/* 5 */
	"Say *hello*.\n"
	"\n"
	"---\n"
	"\n"
	"## Second `slide`\n"			/* 10 */
	"\n"
	"- one\n"
	"\n"
	"```sh\n"
	"---\n"					/* 15: code, not a separator */
	"Notes:\n"				/* code, not notes */
	"```\n"
	"\n"
	"```plot\n"
	"results: class:latency.json\n"		/* 20 */
	"sample: results/sample.json\n"
	"caption: The class, loaded\n"
	"```\n"
	"\n"
	"---\n"					/* 25 */
	"## Third\n"
	"\n"
	"Body three.\n";

static void test_good_deck(void **state)
{
	struct slides_deck *d = parse(good);
	char *p, *path = NULL;

	(void)state;
	p = problems(d);
	assert_string_equal(p, "");
	free(p);
	assert_string_equal(d->title, "The deck");
	assert_string_equal(d->dir, "d");
	assert_int_equal(d->nslides, 3);
	assert_int_equal(d->slides[0].level, 1);
	assert_int_equal(d->slides[0].line, 1);
	assert_string_equal(d->slides[0].body, "\nA subtitle.\n\n");
	assert_string_equal(d->slides[0].notes, "Say *hello*.\n\n");
	assert_int_equal(d->slides[0].notes_line, 6);
	assert_string_equal(d->slides[1].title, "Second `slide`");
	assert_int_equal(d->slides[1].line, 10);
	assert_null(d->slides[1].notes);
	assert_non_null(strstr(d->slides[1].body, "---\nNotes:\n"));
	assert_null(strstr(d->slides[1].body, "plot"));
	assert_non_null(d->slides[1].plot);
	assert_true(d->slides[1].plot->in_class);
	assert_string_equal(d->slides[1].plot->results, "latency.json");
	assert_string_equal(d->slides[1].plot->sample, "results/sample.json");
	assert_string_equal(d->slides[1].plot->caption, "The class, loaded");
	assert_int_equal(d->slides[1].plot->line, 19);
	assert_string_equal(d->slides[2].title, "Third");
	assert_string_equal(d->slides[2].body, "\nBody three.\n");

	assert_int_equal(slides_plot_path(d, d->slides[1].plot, "/c", &path), 0);
	assert_string_equal(path, "/c/latency.json");
	free(path);
	assert_int_equal(slides_plot_path(d, d->slides[1].plot, NULL, &path), 0);
	assert_string_equal(path, "d/results/sample.json");
	free(path);
	free(d->slides[1].plot->sample);
	d->slides[1].plot->sample = NULL;
	assert_int_equal(slides_plot_path(d, d->slides[1].plot, NULL, &path), -ENOENT);
	assert_null(path);
	slides_deck_free(d);
}

static const struct {
	const char *text;
	const char *expect;
} bad[] = {
	{ "Intro\n", "d/01-x.md:1: the first line must be the title, '# Title'\n"
		     "d/01-x.md:1: the first slide opens with the deck's title, '# Title'\n" },
	{ "# T\n\n---\n\nText first\n", "d/01-x.md:5: a slide opens with its title, '## Title'\n" },
	{ "# T\nx\n---\n\n## A\n",
	  "d/01-x.md:2: setext heading: write it as '## text'\n"
	  "d/01-x.md:3: a blank line must come before '---' (else CommonMark reads the line "
	  "above as a heading)\n" },
	{ "# T\n\n---\n\n## A\n\n## B\n",
	  "d/01-x.md:7: one heading per slide: start a new slide with '---'\n" },
	{ "# T\n\n---\n\n## A\n\nNotes:\nx\n\nNotes:\n",
	  "d/01-x.md:10: a second 'Notes:' in one slide (first on line 7)\n" },
	{ "# T\n\n---\n\n## A\n\n```plot\ncaption: c\n```\n",
	  "d/01-x.md:7: a plot names its results document ('results: PATH')\n" },
	{ "# T\n\n---\n\n## A\n\n```plot\nresults: ../x.json\nsize: 3\nresults: y\n```\n",
	  "d/01-x.md:8: plot path '../x.json' must be relative, without '..'\n"
	  "d/01-x.md:9: unknown plot key 'size' (results, sample, caption)\n"
	  "d/01-x.md:10: plot key 'results' given twice\n" },
	{ "# T\n\n---\n\n## A\n\n```plot\nresults: /etc/x\nsample: s.json\n```\n",
	  "d/01-x.md:7: 'sample:' is for a 'results: class:NAME' plot\n"
	  "d/01-x.md:8: plot path '/etc/x' must be relative, without '..'\n" },
	{ "# T\n\n```plot\nresults: a\n```\n\n```plot\nresults: b\n```\n",
	  "d/01-x.md:7: one plot per slide\n" },
	{ "# T\n\nNotes:\n\n```plot\nresults: a\n```\n",
	  "d/01-x.md:5: a plot belongs in the slide, not its notes\n" },
	{ "# T\n\n```quiz\nid: a\n```\n",
	  "d/01-x.md:3: missing key 'kind'\n"
	  "d/01-x.md:3: quiz blocks belong in lessons, not decks\n" },
	{ "# T\n\n<b>x</b>\n", "d/01-x.md:3: raw HTML is not allowed\n" },
	{ "# T\n\n```deck\ncourse: A\nroom: 3\ncourse: B\nx\n```\n\n---\n\n## A\n\n```deck\n```\n",
	  "d/01-x.md:5: unknown deck key 'room' (course, teacher, date, licence)\n"
	  "d/01-x.md:6: deck key 'course' given twice\n"
	  "d/01-x.md:7: a deck line is 'key: value'\n"
	  "d/01-x.md:14: one deck block, in the title slide's body\n" },
	{ "# T\n\n---\n", "d/01-x.md:3: the deck ends with '---': the last slide is empty\n" },
	{ "# T\n\n```plot\nresults: a\n", "d/01-x.md:3: the plot block is not closed\n" },
	{ "# T\n\n---\n\n# U\n",
	  "d/01-x.md:5: only the title on the first line may be a level-1 heading\n"
	  "d/01-x.md:5: a slide opens with its title, '## Title'\n" },
};

static void test_bad_decks(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct slides_deck *d = parse(bad[i].text);
		char *p = problems(d);

		if (strcmp(p, bad[i].expect))
			fail_msg("case %zu:\n%s\nwant:\n%s", i, p, bad[i].expect);
		free(p);
		slides_deck_free(d);
	}
}

static void test_empty_and_binary(void **state)
{
	struct slides_deck *d;
	static const char junk[] = "# \x01\xff\n\n---\n\n---\n\n##\n";

	(void)state;
	d = parse("");
	assert_int_equal(d->nslides, 1);
	assert_true(d->nproblems > 0);
	slides_deck_free(d);
	d = parse(junk);
	assert_int_equal(d->nslides, 3);
	assert_true(d->nproblems > 0);
	slides_deck_free(d);
}

/* Write @text as @dir/@name. */
static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_lint_fit_and_files(void **state)
{
	char dir[] = "/tmp/test-slides-XXXXXX", path[600];
	struct rt_buf b = RT_BUF_INIT, deck = RT_BUF_INIT;
	char expect[1600];

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(rt_buf_puts(&deck, "# T\n\n---\n\n## Long\n\n"), 0);
	for (int i = 0; i < 17; i++)
		assert_int_equal(rt_buf_printf(&deck, "- item %d\n", i), 0);
	assert_int_equal(rt_buf_puts(&deck, "\n---\n\n## Plot\n\n```plot\n"
				     "results: results/none.json\n```\n"), 0);
	put(dir, "05-fit.md", rt_buf_str(&deck));
	snprintf(path, sizeof(path), "%s/05-fit.md", dir);
	assert_int_equal(slides_lint_file(path, &b), 2);
	snprintf(expect, sizeof(expect),
		 "%s:5: slide 2 needs 17 rows at 76 columns, more than the 16 an 80x24 screen "
		 "has: split it\n"
		 "%s:29: results document 'results/none.json' not found beside the deck\n",
		 path, path);
	assert_string_equal(rt_buf_str(&b), expect);
	rt_buf_reset(&b);

	put(dir, "Bad_Name.md", "# T\n");
	snprintf(path, sizeof(path), "%s/Bad_Name.md", dir);
	assert_int_equal(slides_lint_file(path, &b), 1);
	assert_non_null(strstr(rt_buf_str(&b), ":1: file name must be NN-slug.md"));
	rt_buf_reset(&b);
	unlink(path);

	snprintf(path, sizeof(path), "%s/07-missing.md", dir);
	assert_true(slides_lint_file(path, &b) < 0);
	assert_non_null(strstr(rt_buf_str(&b), "07-missing.md"));
	rt_buf_fini(&b);
	rt_buf_fini(&deck);

	snprintf(path, sizeof(path), "%s/05-fit.md", dir);
	unlink(path);
	rmdir(dir);
}

/* A stale phrase in a slide or its notes is a problem, in line order with the others. */
static void test_lint_stale(void **state)
{
	char dir[] = "/tmp/test-slides-XXXXXX", path[600], expect[1600];
	struct rt_buf b = RT_BUF_INIT;

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (const struct lesson_stale *s = lesson_stale_phrases; s->phrase; s++) {
		char deck[400];

		snprintf(deck, sizeof(deck), "# T\n\n---\n\nno title here\n\n---\n\n## S\n\n"
			 "- The lab %s.\n\nNotes:\nAt the planned time.\n", s->phrase);
		put(dir, "05-stale.md", deck);
		snprintf(path, sizeof(path), "%s/05-stale.md", dir);
		assert_int_equal(slides_lint_file(path, &b), 2);
		snprintf(expect, sizeof(expect),
			 "%s:5: a slide opens with its title, '## Title'\n"
			 "%s:11: stale phrase '%s': %s\n", path, path, s->phrase, s->why);
		assert_string_equal(rt_buf_str(&b), expect);
		rt_buf_reset(&b);
	}
	put(dir, "05-stale.md", "# T\n\n---\n\n## S\n\n- Wake at the planned time.\n");
	assert_int_equal(slides_lint_file(path, &b), 0);
	rt_buf_fini(&b);
	unlink(path);
	rmdir(dir);
}

static void test_find(void **state)
{
	char *paths[] = { "s/00-introduction.md", "s/03-kinds-of-latency.md" };

	(void)state;
	assert_int_equal(slides_dir_find(paths, 2, "0"), 0);
	assert_int_equal(slides_dir_find(paths, 2, "3"), 1);
	assert_int_equal(slides_dir_find(paths, 2, "03"), 1);
	assert_int_equal(slides_dir_find(paths, 2, "kinds-of-latency"), 1);
	assert_int_equal(slides_dir_find(paths, 2, "03-kinds-of-latency.md"), 1);
	assert_int_equal(slides_dir_find(paths, 2, "03-kinds-of-latency"), 1);
	assert_int_equal(slides_dir_find(paths, 2, "4"), -1);
	assert_int_equal(slides_dir_find(paths, 2, "kinds"), -1);
	assert_int_equal(slides_dir_find(paths, 2, ""), -1);
}

static void test_shipped_decks_lint_clean(void **state)
{
	char dir[512], **paths = NULL, *cause = NULL;
	size_t n = 0;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/slides", srcdir());
	assert_int_equal(slides_dir_scan(dir, &paths, &n, &cause), 0);
	assert_true(n >= 15);	/* the introduction and lessons 01-14 */
	for (size_t i = 0; i < n; i++) {
		struct rt_buf b = RT_BUF_INIT;
		int ret = slides_lint_file(paths[i], &b);

		if (ret)
			fail_msg("%s: %d problem(s):\n%s", paths[i], ret, rt_buf_str(&b));
		rt_buf_fini(&b);
	}
	slides_paths_free(paths, n);
}

/* A results document of lab latency at @dir/@rel (folders made). */
static void put_run(const char *dir, const char *rel)
{
	char cmd[1200];

	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname %s/%s)\" && cp %s/tests/data/results/"
		 "latency-host.json %s/%s", dir, rel, srcdir(), dir, rel);
	assert_int_equal(system(cmd), 0);
}

/*
 * A "class:" plot whose file is not in the class folder draws the class's
 * runs (grading layout and flat), anonymous unless names are asked for; a
 * lab nobody ran falls back to the sample with a note and a warning.
 */
static void test_export_class(const char *dir)
{
	char cls[600], path[600], cmd[4000];
	struct rt_buf b = RT_BUF_INIT, warn = RT_BUF_INIT;
	struct report_slides_opts o = { .warnings = &warn, .course = "RT 101",
					.licence = "CC-BY-SA-4.0" };
	struct slides_deck *d = NULL;
	char *cause = NULL;
	const char *h;

	snprintf(cls, sizeof(cls), "%s/class", dir);
	put_run(cls, "alice/latency/results.json");
	put_run(cls, "bob/latency/results.json");
	put_run(cls, "carol/results.json");	/* the flat layout */
	put_run(cls, "dave/fcse/results.json");	/* another lab's folder: not it */
	/* Links are not followed: a student folder that is one, a document that is one. */
	snprintf(cmd, sizeof(cmd), "ln -s %s/alice %s/eve && mkdir -p %s/fred/latency && "
		 "ln -s %s/alice/latency/results.json %s/fred/latency/results.json", cls, cls, cls,
		 cls, cls);
	assert_int_equal(system(cmd), 0);
	put(dir, "02-c.md", "# Class\n\n```deck\ncourse: From the deck\nteacher: Ann\n```\n\n"
	    "---\n\n## Ours\n\n```plot\nresults: class:latency.json\n"
	    "sample: run.json\n```\n\n---\n\n## Nobody\n\n```plot\nresults: class:fcse.json\n"
	    "sample: fcse.json\n```\n");
	snprintf(path, sizeof(path), "cp %s/slides/results/fcse-sample.json %s/fcse.json", srcdir(),
		 dir);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "%s/02-c.md", dir);
	assert_int_equal(slides_deck_load(path, &d, &cause), 0);
	o.class_dir = cls;
	assert_int_equal(report_slides_page(d, &o, &b), 0);
	h = rt_buf_str(&b);
	assert_non_null(strstr(h, "<p class=\"course\">RT 101</p>"));	/* --course wins */
	assert_null(strstr(h, "From the deck"));
	assert_non_null(strstr(h, "<p class=\"teacher\">Ann</p>"));	/* the deck's own */
	assert_null(strstr(h, "```"));
	assert_non_null(strstr(h, "<p class=\"licence\">Licence: CC-BY-SA-4.0</p>"));
	assert_non_null(strstr(h, "3 runs of lab latency, anonymous"));
	assert_non_null(strstr(h, "(class: 3 runs of lab latency)"));
	assert_non_null(strstr(h, "class median of the 99th percentiles"));
	assert_null(strstr(h, "alice"));
	assert_null(strstr(h, dir));	/* no host path */
	/* fcse: dave's document is lab latency, so nobody ran fcse. */
	assert_non_null(strstr(h, "<p class=\"sample-note\">Sample, not your class"));
	assert_non_null(strstr(rt_buf_str(&warn), "slide 3: no student in the class folder ran "
				"lab fcse (1 symbolic link in it not followed): drawing the "
				"deck's sample\n"));
	rt_buf_reset(&b);
	o.names = true;
	assert_int_equal(report_slides_page(d, &o, &b), 0);
	assert_non_null(strstr(rt_buf_str(&b), "<title>alice</title>"));
	assert_non_null(strstr(rt_buf_str(&b), "<title>carol</title>"));
	assert_null(strstr(rt_buf_str(&b), "<title>dave</title>"));
	rt_buf_fini(&b);
	rt_buf_fini(&warn);
	slides_deck_free(d);
}

static void test_export(void **state)
{
	char dir[] = "/tmp/test-slides-XXXXXX", src[700], path[600];
	struct slides_deck *d = NULL;
	struct rt_buf b = RT_BUF_INIT;
	char *cause = NULL;
	const char *h;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(src, sizeof(src), "cp %s/tests/data/results/latency-host.json %s/run.json",
		 srcdir(), dir);
	assert_int_equal(system(src), 0);
	put(dir, "01-e.md", "# Deck & co\n\n---\n\n## Plot\n\n```plot\nresults: run.json\n"
	    "caption: ours\n```\n\nNotes:\nsecret *note*\n\n---\n\n## Gone\n\n```plot\n"
	    "results: class:x.json\n```\n\n---\n\n## Broken\n\n```plot\nresults: 01-e.md\n"
	    "```\n");
	snprintf(path, sizeof(path), "%s/01-e.md", dir);
	assert_int_equal(slides_deck_load(path, &d, &cause), 0);
	assert_int_equal(d->nproblems, 0);
	assert_int_equal(report_slides_html(d, NULL, &b), 0);
	h = rt_buf_str(&b);
	assert_non_null(strstr(h, "<title>Deck &amp; co</title>"));
	assert_non_null(strstr(h, "<section class=\"slide title\" id=\"s1\">"));
	assert_non_null(strstr(h, "<section class=\"slide has-plot\" id=\"s2\">\n<h2>Plot</h2>"));
	assert_non_null(strstr(h, "<figure class=\"plot\">\n<svg"));
	assert_non_null(strstr(h, "<figcaption>ours"));
	assert_non_null(strstr(h, "<aside class=\"notes\">\n<p>secret <em>note</em></p>"));
	assert_non_null(strstr(h, "export with --class DIR to show it."));
	assert_non_null(strstr(h, "<p class=\"plot-missing\">No plot from "));
	assert_non_null(strstr(h, "@media print"));
	assert_null(strstr(h, "http"));	/* nothing to fetch */
	assert_null(strstr(strstr(h, "<svg"), "xmlns"));
	/* With a class folder, the class: plot is drawn from it. */
	rt_buf_reset(&b);
	snprintf(src, sizeof(src), "cp %s/run.json %s/x.json", dir, dir);
	assert_int_equal(system(src), 0);
	assert_int_equal(report_slides_html(d, dir, &b), 0);
	h = strstr(rt_buf_str(&b), "id=\"s3\"");
	assert_non_null(h);
	assert_true(strstr(h, "<svg") < strstr(h, "id=\"s4\""));
	rt_buf_fini(&b);
	slides_deck_free(d);
	test_export_class(dir);
	snprintf(src, sizeof(src), "rm -rf %s", dir);
	assert_int_equal(system(src), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_deck),
		cmocka_unit_test(test_bad_decks),
		cmocka_unit_test(test_empty_and_binary),
		cmocka_unit_test(test_lint_fit_and_files),
		cmocka_unit_test(test_lint_stale),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_shipped_decks_lint_clean),
		cmocka_unit_test(test_export),
	};

	fixture_lesson_labs_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
