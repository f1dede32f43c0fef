/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slides: a teacher's deck (slides/FORMAT.md) as a list of slides.
 *
 * A deck is one CommonMark file: the slides are separated by lines that
 * hold exactly "---" (a thematic break), each slide opens with its heading
 * ("# Title" for the first, "## Title" for the others), a line "Notes:"
 * starts the speaker notes, and a fenced block with the info string "plot"
 * names a results document whose histograms the HTML export draws. The
 * parser splits the file into slides, keeps each slide's Markdown (body and
 * notes apart) and collects every problem as "name:line: message", the way
 * lesson_doc does; the whole file also goes through lesson_doc_parse(), so
 * the CommonMark subset of lessons/FORMAT.md holds for decks too. This
 * module never prints, never touches a terminal and never reads a results
 * document (layer 1: the export and the presenter above it do).
 */
#ifndef RTLAB_LESSON_SLIDES_H
#define RTLAB_LESSON_SLIDES_H

#include <stdbool.h>
#include <stddef.h>

#include "lesson/lesson_doc.h"

struct rt_buf;
struct rt_result;
struct rt_result_opts;

#define SLIDES_MAX_BYTES (1u << 20)	/* a deck file is at most 1 MiB */
#define SLIDES_MAX_SLIDES 200		/* more is a problem, and is not kept */
#define SLIDES_BODY_COLS 76		/* the presenter's text width at 80 columns */
#define SLIDES_BODY_ROWS 16		/* and its text rows at 24 lines */
#define SLIDES_PLOT_ROWS 4		/* rows the presenter gives a plot */

struct slides_plot {
	char *results;		/* owned; the path as written, "class:" removed */
	bool in_class;		/* results is inside the class folder (--class DIR) */
	char *sample;		/* owned; deck-relative fallback without --class, or NULL */
	char *caption;		/* owned; or NULL */
	unsigned int line;	/* source line of the ```plot fence */
};

struct slide {
	char *title;		/* owned; the heading's text as written (inline Markdown) */
	unsigned int level;	/* 1 for the title slide, 2 for the others */
	unsigned int line;	/* source line of the heading */
	char *body;		/* owned; Markdown between heading and notes, no plot block */
	unsigned int body_line;	/* source line where body starts */
	char *notes;		/* owned; Markdown after "Notes:", or NULL */
	unsigned int notes_line;
	struct slides_plot *plot;	/* owned; or NULL */
};

struct slides_deck {
	char *name;			/* owned; the path or name given, used in messages */
	char *dir;			/* owned; the deck's folder ("." for a bare name) */
	char *title;			/* owned; the first slide's title, or the name */
	char *course, *teacher, *date, *licence;	/* owned; the title slide's
							 * ```deck block, each or NULL */
	struct slide *slides;		/* owned */
	size_t nslides;
	struct lesson_problem *problems; /* owned; in line order */
	size_t nproblems;
};

/**
 * slides_deck_parse - split a deck into slides and check it
 * @text: the Markdown source (need not be NUL-terminated)
 * @name: the deck's path, used in messages and to find its folder
 * @out: on success, the deck; free it with slides_deck_free()
 * @cause: on failure, why (caller frees)
 *
 * Problems in the deck do not make parsing fail: they are collected in
 * @out->problems and every slide that could be found is kept. rtlab: links
 * to lessons and glossary terms are not resolved here (slides_deck_load()
 * does it). Returns 0 or -ENOMEM.
 */
int slides_deck_parse(const char *text, size_t len, const char *name, struct slides_deck **out,
		      char **cause);

/**
 * slides_deck_load - read @path, parse it and check what lies around it
 *
 * On top of slides_deck_parse(): rtlab:lesson/NN and rtlab:glossary#term
 * links are resolved in the lessons folder beside the deck's folder
 * (DECKDIR/../lessons), and every deck-relative results document a plot
 * names (its results: without "class:", and its sample:) must exist.
 * Returns 0, a negative errno from reading (with @cause), -EFBIG for a file
 * larger than SLIDES_MAX_BYTES, or -ENOMEM.
 */
int slides_deck_load(const char *path, struct slides_deck **out, char **cause);

/* Releases @deck. slides_deck_free(NULL) does nothing. */
void slides_deck_free(struct slides_deck *deck);

/**
 * slides_plot_path - the file a plot draws
 * @class_dir: the class folder given on the command line, or NULL
 * @path: on success, a new string: class_dir/results for a "class:" plot
 *        when @class_dir is given, else the deck-relative results or sample
 *
 * Returns 0, -ENOENT when a "class:" plot has no @class_dir and no sample,
 * or -ENOMEM.
 */
int slides_plot_path(const struct slides_deck *deck, const struct slides_plot *plot,
		     const char *class_dir, char **path);

/**
 * slides_plot_read - read and validate the results document a plot draws
 * @class_dir: the class folder given on the command line, or NULL
 * @opts: the labs that exist (rt_result_parse())
 * @res: on success, the document; free with rt_result_free()
 * @shown: always set (NULL only on -ENOMEM): the document as the deck names it,
 *         "class:NAME" or the deck-relative name, for a page or a screen that
 *         may be read on another machine: never an absolute host path
 * @cause: on failure, why, naming @shown
 *
 * The file is opened inside its folder (@class_dir for a "class:" plot, else
 * the deck's) by rt_file_load_beneath(): a name that is absolute or climbs
 * with "..", or a symbolic link on the way, is refused, so a deck cannot make
 * the export read a file outside the folder. Returns 0, -ENOENT for a "class:"
 * plot without @class_dir and without a sample, or a negative errno.
 */
int slides_plot_read(const struct slides_deck *deck, const struct slides_plot *plot,
		     const char *class_dir, const struct rt_result_opts *opts,
		     struct rt_result **res, char **shown, char **cause);

/**
 * slides_markdown_html - render deck Markdown (a body or notes) as HTML
 *
 * cmark's safe HTML: raw HTML is dropped and dangerous link schemes are
 * emptied. Appends to @out. Returns 0 or -ENOMEM.
 */
int slides_markdown_html(const char *md, struct rt_buf *out);

/**
 * slides_dir_scan - the decks in folder @dir, sorted by name
 * @paths: on success, "DIR/NN-slug.md" for each file whose name starts with
 *         two digits and a hyphen and ends in ".md"; free with
 *         slides_paths_free()
 *
 * Returns 0 or a negative errno (with @cause) when @dir cannot be read.
 */
int slides_dir_scan(const char *dir, char ***paths, size_t *n, char **cause);

/* Releases what slides_dir_scan() gave. */
void slides_paths_free(char **paths, size_t n);

/**
 * slides_dir_find - the deck of @dir that @arg names
 * @arg: "3", "03", the slug ("kinds-of-latency") or the file name
 *
 * Returns the index into @paths, or -1.
 */
long slides_dir_find(char *const *paths, size_t n, const char *arg);

/**
 * slides_lint_file - check one deck against slides/FORMAT.md
 * @errors: each problem appended as "path:line: message\n", in line order
 *
 * Also checks the file name (NN-slug.md) and that each slide fits the
 * presenter at 80x24 (SLIDES_BODY_ROWS rows of SLIDES_BODY_COLS columns)
 * and that no line holds a stale phrase (lesson_stale_phrases[]).
 * Returns the number of problems, or a negative errno when the file cannot
 * be read (a line saying so is appended).
 */
int slides_lint_file(const char *path, struct rt_buf *errors);

/**
 * slides_deck_rows - rows slide @i needs in the presenter at @cols columns
 *
 * Its body laid out by lesson_doc_layout(), plus SLIDES_PLOT_ROWS when it has
 * a plot. Returns the count, or 0 when memory ran out.
 */
size_t slides_deck_rows(const struct slides_deck *deck, size_t i, unsigned int cols);

#endif
