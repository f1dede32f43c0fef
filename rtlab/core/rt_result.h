/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_result: the results document "rtlab.result/2" that every lab run
 * produces, and the one thing the TUI, the CLI (--json), the grader, the HTML
 * report and the slides read. Nothing re-measures to draw a picture.
 *
 * A result is built with the setters below, written with rt_result_write()
 * (atomic, pretty printed, same bytes for the same content) and read back
 * with rt_result_read() or rt_result_parse(), which run the validator: a
 * document that is not exactly rtlab.result/2 (or the older rtlab.result/1,
 * converted on load) is refused with a message that names the offending
 * field as a JSON path, e.g.
 * "histograms[2].counts[5]: must be a non-negative integer".
 *
 * The schema is documented in doc/results.md. The limits below exist so that
 * a hostile file cannot make a reader exhaust memory.
 *
 * Which labs exist is the caller's to say (struct rt_result_opts): core
 * knows no lab. The code is in four files: rt_result.c (building),
 * rt_result_check.c (the validator), rt_result_write.c (the writer, over
 * rt_json) and rt_result_read.c (reading and the getters).
 */
#ifndef RTLAB_CORE_RT_RESULT_H
#define RTLAB_CORE_RT_RESULT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct rt_env;

#define RT_RESULT_SCHEMA	"rtlab.result/2"	/* what rtlab writes */
#define RT_RESULT_SCHEMA_V1	"rtlab.result/1"	/* still read, converted on load */
#define RT_RESULT_VERSION	2u
#define RT_RESULT_MAX_FILE	(64u << 20)	/* bytes of JSON text */
#define RT_RESULT_MAX_VALUES	4000000u	/* JSON values in one document */
#define RT_RESULT_MAX_BUCKETS	1000000u	/* per histogram; also overflow_cycles */
#define RT_RESULT_MAX_HISTS	256u
#define RT_RESULT_MAX_KEY	64u		/* bytes in a summary/param/answer key */
#define RT_RESULT_MAX_DEPTH	32u		/* nesting inside "extra" */
#define RT_RESULT_MAX_OVERFLOW_BUCKETS 4096u	/* per histogram */
#define RT_RESULT_MAX_VIEWS	32u
#define RT_RESULT_MAX_COLUMNS	64u		/* per view */
#define RT_RESULT_MAX_ROWS	10000u		/* per view */
#define RT_RESULT_MAX_CELL	1024u		/* bytes in a string cell of a view */

/*
 * Ranges of the numbers that readers draw, loop over or convert: a value
 * outside them is refused, so that no reader can be made to draw an infinite
 * axis or print a 300-digit coordinate. See doc/results.md, "Ranges".
 */
#define RT_RESULT_MAX_WIDTH	1e6	/* bucket_width, in the histogram's unit */
#define RT_RESULT_MAX_FIRST	1e9	/* |first_bucket|, in the histogram's unit */
#define RT_RESULT_MAX_MAGNITUDE	1e15	/* |summary value|, |real|, samples per histogram */
#define RT_RESULT_MAX_CPUS	65536u	/* env.cpus */

struct rt_result;

/* A bucket of the overflow region: [lower, upper) in the histogram's unit holds @count. */
struct rt_result_range {
	double lower;
	double upper;
	uint64_t count;
};

/*
 * A histogram: buckets of @bucket_width starting at @first_bucket (the lower
 * edge of counts[0]); samples beyond the last bucket are counted in
 * @overflow_count, spread over @overflow_buckets (rtlab.result/2: wider
 * buckets above the linear ones, ascending, only the occupied ones; none in
 * a /1 document), and @overflow_cycles may list the cycle numbers of some of
 * them so a learner can find them in a trace.
 */
struct rt_result_hist {
	const char *name;		/* e.g. "latency" or "cpu0" */
	const char *unit;		/* unit of the bucket edges: "us", "ns", ... */
	double bucket_width;		/* > 0 */
	double first_bucket;
	const uint64_t *counts;		/* nbuckets entries, each <= INT64_MAX */
	size_t nbuckets;		/* 1 .. RT_RESULT_MAX_BUCKETS */
	uint64_t overflow_count;
	const uint64_t *overflow_cycles;	/* may be NULL when n_overflow_cycles is 0 */
	size_t n_overflow_cycles;
	const struct rt_result_range *overflow_buckets;	/* NULL when n_overflow_buckets is 0 */
	size_t n_overflow_buckets;	/* 0 .. RT_RESULT_MAX_OVERFLOW_BUCKETS */
};

struct rt_hist;

/*
 * What a reader knows that the schema does not: the labs that exist. With
 * @labs, a document whose "lab" is not in the list is refused ("lab:
 * unknown lab "warp" (known: latency, ftrace, ...)"). Without (a NULL
 * struct or a NULL @labs), only the name's syntax is checked: 1 to
 * RT_RESULT_MAX_KEY bytes of [a-z0-9-], starting with a letter. Front ends
 * pass lab_names() from labs/lab.h; the writer and rt_result_new(), whose
 * lab name comes from the lab itself, check the syntax only.
 */
struct rt_result_opts {
	const char *const *labs;	/* borrowed; NULL-terminated names, or NULL */
};

/* ---- Building ---------------------------------------------------------- */

/**
 * rt_result_new - start an empty result for one run of @lab
 * @lab: the lab's name, [a-z][a-z0-9-]* (whether such a lab exists is for
 *       the reader to check, see struct rt_result_opts)
 * @tier: "host", "vm" or "simulation"; "simulated" is derived from it
 * @env: the system the run happened on (strings may be NULL: "unknown")
 *
 * "created" is set to now and "rtlab_version" to RT_VERSION. Returns the
 * result, or NULL with errno EINVAL (a lab name of the wrong syntax, an
 * unknown tier, NULL @env) or ENOMEM. Release it with rt_result_free().
 */
struct rt_result *rt_result_new(const char *lab, const char *tier, const struct rt_env *env);

/* Free @res and everything it owns. NULL does nothing. */
void rt_result_free(struct rt_result *res);

/* Override "created" (tests and replays want reproducible documents). 0 or -EINVAL. */
int rt_result_set_created(struct rt_result *res, time_t when);

/*
 * Parameters of the run. A key is 1..RT_RESULT_MAX_KEY bytes of [A-Za-z0-9_.-].
 * A number must be finite; an integral one within +-2^53 is stored as an
 * integer. rt_result_set_param_json() takes a reference to @value (also on
 * failure) and accepts a string, number, bool, or an array of those.
 * Setting a key again replaces it. Each returns 0, -EINVAL or -ENOMEM.
 */
int rt_result_set_param_str(struct rt_result *res, const char *key, const char *value);
int rt_result_set_param_num(struct rt_result *res, const char *key, double value);
int rt_result_set_param_bool(struct rt_result *res, const char *key, bool value);
int rt_result_set_param_json(struct rt_result *res, const char *key, json_t *value);

/**
 * rt_result_set_summary - set one named number of the summary
 * @key: lower-case [a-z][a-z0-9_]* ending in its unit: _us, _ns, _ms, _s,
 *       _count, _pct, _ratio, _hz or _bytes (e.g. "p99_us", "lost_count")
 * @value: finite; integral values are stored as integers
 *
 * Returns 0, -EINVAL (bad key or non-finite value) or -ENOMEM.
 */
int rt_result_set_summary(struct rt_result *res, const char *key, double value);

/**
 * rt_result_add_histogram - append a copy of @h
 *
 * Nothing of @h is kept. Returns 0, -EINVAL (bad name, unit, width, sizes, a
 * number out of the ranges of doc/results.md, overflow buckets that overlap,
 * start below the linear ones or do not add up to @overflow_count), -EEXIST
 * (a histogram with that name exists), -E2BIG (more than
 * RT_RESULT_MAX_HISTS) or -ENOMEM.
 */
int rt_result_add_histogram(struct rt_result *res, const struct rt_result_hist *h);

/**
 * rt_result_add_rt_hist - append latency histogram @h as histogram @name
 *
 * Its 1 us buckets, its overflow count, its occupied overflow buckets and
 * the cycle numbers of its kept overflow records, in us. Same returns as
 * rt_result_add_histogram().
 */
int rt_result_add_rt_hist(struct rt_result *res, const char *name, const struct rt_hist *h);

/**
 * rt_result_put_percentiles - the standard percentiles of latency histogram @h, into @obj
 * @obj: a JSON object of the lab's, e.g. a scenario or a thread in "extra"
 *
 * Sets "percentiles" to {"p50": {"value_us", "resolution_us", "meaningful",
 * "needed_count"}, "p90": ..., "p99.99": ...} (rt_hist_std_ppm[], as
 * rt_hist_percentile() gives them; an empty object for an empty histogram)
 * and p99 flat as "p99_us" and "p99_resolution_us", all integers. The one
 * place a percentile becomes JSON: a lab that reports a latency
 * distribution calls it, and the HTML report reads what it writes. Returns
 * 0 or -ENOMEM (@obj may then hold some of the members).
 */
int rt_result_put_percentiles(json_t *obj, const struct rt_hist *h);

/**
 * rt_result_add_view - append a table for people to read (rtlab.result/2)
 * @view: {"name", "title", "columns": [{"name", "title"?, "unit"?}...],
 *        "rows": [[cell...]...]}, see doc/results.md; the reference is
 *        taken, also on failure
 * @cause: on failure, what is wrong with @view
 *
 * Returns 0, -EINVAL (not that shape, or a view of that name exists),
 * -E2BIG (more than RT_RESULT_MAX_VIEWS) or -ENOMEM.
 */
int rt_result_add_view(struct rt_result *res, json_t *view, char **cause);

/**
 * rt_result_set_integrity - set the "integrity" object (rtlab.result/2)
 * @algorithm: 1..32 of [a-z0-9-], e.g. "sha256"
 * @value: the digest in lower-case hex, 16..128 digits (64 for sha256)
 *
 * The digest covers rt_result_canonical_text(); computing and checking it is
 * the grader's. Returns 0, -EINVAL or -ENOMEM.
 */
int rt_result_set_integrity(struct rt_result *res, const char *algorithm, const char *value);

/*
 * The learner's answers, by question id (same key rules as parameters).
 * Returns 0, -EINVAL or -ENOMEM.
 */
int rt_result_set_answer_str(struct rt_result *res, const char *id, const char *value);
int rt_result_set_answer_num(struct rt_result *res, const char *id, double value);

/* Append a note for the reader, e.g. "measured as SCHED_OTHER: not root". */
int rt_result_add_note(struct rt_result *res, const char *note);

/* The number of notes, and note @i (borrowed from @res; NULL past the last). */
size_t rt_result_note_count(const struct rt_result *res);
const char *rt_result_note(const struct rt_result *res, size_t i);

/**
 * rt_result_extra - the free-form "extra" object, created on first use
 *
 * Fill it with lab-specific detail (per-thread figures...). The object is
 * borrowed: it belongs to @res. Nesting deeper than RT_RESULT_MAX_DEPTH makes
 * rt_result_write() refuse the document. Returns NULL with errno ENOMEM.
 */
json_t *rt_result_extra(struct rt_result *res);

/*
 * The "extra" object of a document being read (a lab reading what it wrote),
 * borrowed, or NULL when it has none; never creates it.
 */
const json_t *rt_result_extra_of(const struct rt_result *res);

/* Boolean @key of "env" (false when absent), and string @key of "env" (NULL). */
bool rt_result_env_bool(const struct rt_result *res, const char *key);
const char *rt_result_env_str(const struct rt_result *res, const char *key);

/* ---- Writing ----------------------------------------------------------- */

/**
 * rt_result_to_string - validate @res and render it as JSON text
 * @cause: on failure, why (for example the field the validator refused)
 *
 * Written by rt_json_write(): indented by two spaces, top-level and
 * histogram fields in schema order and all other object keys sorted, arrays
 * of numbers filling lines, so equal results give equal bytes; a final
 * newline. The validator checks the lab name's syntax only (no lab list).
 * Returns a string the caller frees, or NULL with errno EINVAL or ENOMEM.
 */
char *rt_result_to_string(const struct rt_result *res, char **cause);

/**
 * rt_result_canonical_text - the bytes an "integrity" digest covers
 *
 * rt_result_to_string() of the document without its "integrity" member:
 * UTF-8, fixed key order, two-space indent, a final newline. Same returns.
 */
char *rt_result_canonical_text(const struct rt_result *res, char **cause);

/**
 * rt_result_to_string_sealed - rt_result_to_string() with the document sealed
 *
 * The text has "integrity" set to the SHA-256 of rt_result_canonical_text()
 * (whatever integrity @res held), so rt_result_integrity_verify() of what is
 * read back succeeds until someone edits the file. An rtlab.result/1
 * document (read and converted) is rendered as it is. Every saved document
 * goes through this. Same returns as rt_result_to_string().
 */
char *rt_result_to_string_sealed(const struct rt_result *res, char **cause);

/**
 * rt_result_write - validate @res and write it, sealed, to @path atomically
 *
 * The text of rt_result_to_string_sealed(), through rt_file_write_atomic():
 * readers see the old file or the new one.
 * Returns 0 or a negative errno with @cause set.
 */
int rt_result_write(const struct rt_result *res, const char *path, char **cause);

/* ---- Reading ----------------------------------------------------------- */

/**
 * rt_result_parse - parse and validate a results document
 * @text: JSON text (need not be NUL-terminated)
 * @len: bytes of @text, at most RT_RESULT_MAX_FILE
 * @name: how to call the text in messages (usually the file name)
 * @opts: the labs that exist, or NULL (see struct rt_result_opts)
 * @out: on success, the result; the caller frees it with rt_result_free()
 * @cause: on failure "NAME:LINE:COL: message" for a syntax error, or
 *         "NAME: PATH: message" for a document that is neither
 *         rtlab.result/2 nor rtlab.result/1
 *
 * An rtlab.result/1 document is converted on load: its schema becomes
 * rtlab.result/2 (every /1 document is a /2 document without the fields /2
 * added) and rt_result_version() says 1. Returns 0, -EINVAL, -EFBIG or
 * -ENOMEM.
 */
int rt_result_parse(const char *text, size_t len, const char *name,
		    const struct rt_result_opts *opts, struct rt_result **out, char **cause);

/* rt_result_parse() on the contents of @path. Also -errno from reading. */
int rt_result_read(const char *path, const struct rt_result_opts *opts, struct rt_result **out,
		   char **cause);

/**
 * rt_result_validate - check that @doc is exactly an rtlab.result/2 or /1 document
 * @opts: the labs that exist, or NULL (see struct rt_result_opts)
 * @cause: on failure "PATH: message", e.g. "summary.p99_us: must be a number"
 *
 * Each version is checked against its own fields: a /1 document with a
 * field /2 added is refused. Returns 0 or -EINVAL.
 */
int rt_result_validate(const json_t *doc, const struct rt_result_opts *opts, char **cause);

/* The version of schema name @schema that this rtlab reads (1 or 2), or 0. */
unsigned int rt_result_schema_version(const char *schema);

/* The version @res was read as: 1 for a converted rtlab.result/1 document, else 2. */
unsigned int rt_result_version(const struct rt_result *res);

/**
 * rt_result_integrity_verify - does @res still hold what rtlab sealed?
 * @cause: on failure, a sentence for the learner
 *
 * Recomputes the SHA-256 of rt_result_canonical_text() and compares it
 * with "integrity". Returns 0 when they match; -ENODATA when the document
 * carries none (an rtlab.result/1 document, one written before documents
 * were sealed, or one whose integrity was removed); -EBADMSG when they
 * differ (edited after rtlab wrote it); -ENOTSUP for an algorithm other
 * than sha256; -ENOMEM.
 */
int rt_result_integrity_verify(const struct rt_result *res, char **cause);

/* ---- Getters ----------------------------------------------------------- */

/* Strings are borrowed from @res and live until it changes or is freed. */
const char *rt_result_lab(const struct rt_result *res);
const char *rt_result_tier(const struct rt_result *res);
bool rt_result_simulated(const struct rt_result *res);
const char *rt_result_created(const struct rt_result *res);

/* The whole document, borrowed. Changing it directly bypasses the setters'
 * checks; rt_result_write() still validates. */
json_t *rt_result_json(const struct rt_result *res);

/* Each returns 0, -ENOENT (no such key) or -EINVAL (present, other type). */
int rt_result_summary_get(const struct rt_result *res, const char *key, double *out);
int rt_result_param_num(const struct rt_result *res, const char *key, double *out);
int rt_result_param_str(const struct rt_result *res, const char *key, const char **out);
int rt_result_param_bool(const struct rt_result *res, const char *key, bool *out);
int rt_result_answer_num(const struct rt_result *res, const char *id, double *out);
int rt_result_answer_str(const struct rt_result *res, const char *id, const char **out);
/* Answer @id if it is text, else NULL (a grade's "to read" line). */
const char *rt_result_answer_text(const struct rt_result *res, const char *id);
/* The "answers" object (question id -> answer), borrowed, or NULL. */
const json_t *rt_result_answers(const struct rt_result *res);

/* Number of histograms. */
size_t rt_result_hist_count(const struct rt_result *res);

/**
 * rt_result_hist_get - read histogram @i (0-based, in document order)
 * @h: filled in; name and unit are borrowed from @res, the three arrays are
 *     allocated and released with rt_result_hist_fini()
 *
 * Returns 0, -ENOENT (no such index), -EINVAL (a document changed behind
 * the validator's back: name, unit or counts of the wrong type) or -ENOMEM.
 */
int rt_result_hist_get(const struct rt_result *res, size_t i, struct rt_result_hist *h);

/* Index of the histogram called @name, or -ENOENT. */
int rt_result_hist_find(const struct rt_result *res, const char *name, size_t *i);

/* Free the arrays rt_result_hist_get() allocated; @h may be reused. */
void rt_result_hist_fini(struct rt_result_hist *h);

/**
 * rt_result_hist_percentile - a percentile from a document's histogram
 * @q_ppm: the quantile in parts per million, 1 .. 999999
 * @value: the upper edge of the bucket it lies in, in the histogram's unit
 *         (as rt_hist_percentile() defines it); with -ERANGE, the end of the
 *         linear buckets it lies beyond
 * @resolution: that bucket's width (0 with -ERANGE)
 *
 * Returns 0, -ENODATA (no samples), -EINVAL (bad @q_ppm) or -ERANGE: it
 * lies among overflows that have no buckets (an rtlab.result/1 document):
 * "beyond @value".
 */
int rt_result_hist_percentile(const struct rt_result_hist *h, unsigned int q_ppm, double *value,
			      double *resolution);

/* ---- Time stamps (shared with rt_progress) ----------------------------- */

/* Write @when as RFC 3339 UTC ("2025-01-31T17:04:05Z") into @buf (>= 21 bytes). 0 or -EINVAL. */
int rt_result_format_time(time_t when, char *buf, size_t size);

/* True if @s is an RFC 3339 UTC time stamp ("...Z", optional fraction). */
bool rt_result_time_valid(const char *s);

/* ---- Read for people (rt_result_view.c) -------------------------------- */

/*
 * What the renderers read, so that none of them spells a key: a section's
 * members, the views (a JSON array of rtlab.result/2 views, from the
 * document or from report_views()), their cells, any value as text. All
 * pointers are borrowed from the document or the array.
 */
enum rt_result_part { RT_RESULT_SUMMARY, RT_RESULT_ENV, RT_RESULT_PARAMS, RT_RESULT_ANSWERS };

/*
 * rt_result_foreach - call @fn for each member of section @part, in the
 * document's order; stops at and returns @fn's first non-zero value.
 */
int rt_result_foreach(const struct rt_result *res, enum rt_result_part part,
		      int (*fn)(const char *key, const json_t *value, void *priv), void *priv);

/* The rtlab release that wrote @res. */
const char *rt_result_rtlab_version(const struct rt_result *res);

/* @v (a scalar) as text: a string as it is, else compact JSON; free() it. NULL: ENOMEM. */
char *rt_result_value_text(const json_t *v);
/* @v if it is a string, else NULL. */
const char *rt_result_value_str(const json_t *v);

struct rt_result_column {
	const char *name;
	const char *title;	/* NULL: none (show the name) */
	const char *unit;	/* NULL: none */
};

/* The views saved in @res (borrowed), or NULL when it has none. */
const json_t *rt_result_saved_views(const struct rt_result *res);

size_t rt_result_views_count(const json_t *views);
const json_t *rt_result_views_at(const json_t *views, size_t i);
const char *rt_result_view_title(const json_t *view);
size_t rt_result_view_ncolumns(const json_t *view);
void rt_result_view_column(const json_t *view, size_t c, struct rt_result_column *out);
size_t rt_result_view_nrows(const json_t *view);
/* The cells row @r has (the validator makes it the number of columns). */
size_t rt_result_view_row_cells(const json_t *view, size_t r);
/* Cell (@r, @c): a string, a number, a boolean or null (NULL past the end). */
const json_t *rt_result_view_cell(const json_t *view, size_t r, size_t c);
/*
 * A cell as text into @buf for a plain-text table: a string as it is, a
 * whole number without decimals, another number with two, yes/no, and "-"
 * for null or nothing.
 */
void rt_result_cell_text(const json_t *cell, char *buf, size_t size);

/*
 * Building a view (a lab's views function): a new view with no columns and
 * no rows (NULL: ENOMEM), a column (@title, @unit may be NULL), a row of
 * one cell per column (@row's reference is taken; a NULL @row, from a
 * failed json_pack, gives -ENOMEM). 0, -ENOMEM or -EINVAL (not a view).
 */
json_t *rt_result_view_new(const char *name, const char *title);
int rt_result_view_add_column(json_t *view, const char *name, const char *title,
			      const char *unit);
int rt_result_view_add_row(json_t *view, json_t *row);

/* ---- Declared keys (rt_result_keys.c) ---------------------------------- */

struct rt_keys;

/*
 * A lab's own keys in its documents (lab_ops.keys): its params and the
 * keys of each of its extra.scenarios[] (name and summary included), or
 * NULL where the lab declares none.
 */
struct rt_result_lab_keys {
	const char *lab;
	const struct rt_keys *params;
	const struct rt_keys *scenario;
};

/* The two keys every scenario has, to begin a lab's scenario table with (rt_keys.h). */
#define RT_RESULT_SCENARIO_NAME_KEYS						\
	RT_KEY("name", RT_T_STRING, NULL, "the scenario's name", true,		\
	       .pattern = "^[a-z0-9-]+$"),						\
	RT_KEY("summary", RT_T_STRING, NULL, "one sentence for people", false)

/* The key every lab's params has (lab_seed_record()). */
#define RT_RESULT_SEED_KEY							\
	RT_KEY("seed", RT_T_STRING, NULL, "the run's seed in decimal digits (--seed)", false)

/**
 * rt_result_schema - the JSON Schema (2020-12) of rtlab.result/@version
 * @version: 1 or 2 (RT_RESULT_VERSION)
 * @labs: the labs' own keys, each added as an "if lab is X then" clause
 *
 * Returns a new object, or NULL with errno ENOMEM.
 */
json_t *rt_result_schema(unsigned int version, const struct rt_result_lab_keys *labs,
			 size_t nlabs);

/* ---- The learner's predictions (rt_result_predict.c) ------------------ */

/*
 * extra.predictions: one entry per predict question of the lessons about
 * the lab, written by the run session and read by the views and the grade.
 * Strings are borrowed from the document ("" where absent); a missing or
 * non-numeric figure reads as NAN.
 */
struct rt_result_prediction {
	const char *answer_key;	/* "predict.<lesson>.<id>", its key in "answers" */
	const char *lesson, *id;	/* the question */
	const char *scenario, *metric, *unit;	/* what it asks about */
	const char *other_run;	/* NULL, or why this run is not the one it means */
	double predicted;	/* the learner's guess; NAN: none yet */
	double measured;	/* NAN: not measured here */
};

/* Make extra.predictions empty (the run session's first step). 0 or -ENOMEM. */
int rt_result_reset_predictions(struct rt_result *res);

/* Append @p to extra.predictions. 0 or -ENOMEM. */
int rt_result_add_prediction(struct rt_result *res, const struct rt_result_prediction *p);

/* How many predictions @res holds, and prediction @i (-ENOENT past the last or not one). */
size_t rt_result_prediction_count(const struct rt_result *res);
int rt_result_prediction(const struct rt_result *res, size_t i,
			 struct rt_result_prediction *out);

/* ---- Scenarios (rt_result_scenario.c) --------------------------------- */

/*
 * Every lab names its scenarios and puts each one's figures in
 * extra.scenarios: an array of objects, each with a "name" and numbers
 * named like summary keys ("p99_us", "max_us"). Predict questions, the
 * reports and the grading harness read them through these, never by
 * walking "extra" themselves.
 */

/* The extra.scenarios object named @name, or NULL; borrowed from @res. */
json_t *rt_result_scenario(const struct rt_result *res, const char *name);

/* Number @key of scenario @name, or NAN when either is missing or not a number. */
double rt_result_scenario_num(const struct rt_result *res, const char *name, const char *key);

/* How many scenarios extra.scenarios holds (0 without it). */
size_t rt_result_scenario_count(const struct rt_result *res);

/* The extra.scenarios array (borrowed), or NULL when the lab recorded none. */
json_t *rt_result_scenarios(const struct rt_result *res);

/*
 * Put the array @scens (a new reference is taken; the caller keeps its own) in
 * extra.scenarios, replacing any there. Returns 0, -EINVAL (not an array) or -ENOMEM.
 */
int rt_result_set_scenarios(struct rt_result *res, json_t *scens);

#endif
