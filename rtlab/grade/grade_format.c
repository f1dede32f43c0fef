/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_format: the printed forms of grades (see the header).
 *
 * TAP: a plan, then "ok N - name" / "not ok N - name" with the reason and
 * hint as "# " lines after it, and "ok N - name # SKIP reason" for a
 * skipped check (TAP 13's directive, which prove counts as skipped). A grade
 * that could not be made at all is one "not ok" line with its error.
 *
 * A test's description is "student/lab/id", and a student is a folder
 * name: any bytes. In a description an unescaped '#' starts a directive, so
 * a student called "x # TODO" would turn each of their failures into a TODO
 * that prove passes. '\' and '#' are escaped with a backslash (TAP 13), and
 * the line goes through rt_text, so a newline or control character shows
 * as an escape and cannot start a line of its own.
 *
 * JUnit: <testsuites> with one <testsuite> per grade (name
 * "student/lab"), one <testcase> per check (classname the suite, name the
 * check id) holding <failure message="reason">hint</failure> or
 * <skipped message="reason"/>; an ungraded job is one testcase with an
 * <error>. The counts are attributes of each suite; the root has tests,
 * failures and errors only, as the Jenkins and Ant schema has it (Jenkins
 * refuses a "skipped" there; tests/data/junit/junit.xsd is that structure).
 *
 * CSV: a gradebook is opened in a spreadsheet, where a cell starting with
 * '=', '+', '-' or '@' is a formula (=HYPERLINK() leaks data, DDE runs
 * programs). Text cells are escaped as OWASP's CSV injection advice says;
 * see grade_format_csv_text(). Numeric cells stay unquoted numbers.
 */
#include "grade_format.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/rt_json.h"
#include "core/rt_text.h"
#include "core/rt_utf8.h"
#include "grade/grade_similar.h"

int grade_format_parse(const char *name, enum grade_format *out)
{
	static const char *const names[] = { "text", "tap", "junit", "json", "csv" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i])) {
			*out = (enum grade_format)i;
			return 0;
		}
	return -EINVAL;
}

/* "alice/toy" or "toy": the name of a grade in the forms that list many. */
static int grade_name(const json_t *g, struct rt_buf *out)
{
	const char *student = rt_json_str(g, "student"), *lab = rt_json_str(g, "lab");

	return rt_buf_printf(out, "%s%s%s", student ? student : "", student ? "/" : "",
			     lab ? lab : "unknown");
}

/* ---- Text ------------------------------------------------------------------------- */

static const char *label(const char *status)
{
	return !status ? "????" : !strcmp(status, "pass") ? "PASS" : !strcmp(status, "skip") ?
	       "SKIP" : !strcmp(status, "review") ? "READ" : "FAIL";
}

/*
 * ", id" into @out for each failed check worth no points: a written answer
 * that is missing (grade_report_review()), the only check that fails for no
 * points. Returns how many.
 */
static size_t unanswered_list(const json_t *checks, struct rt_buf *out)
{
	size_t i, n = 0;
	json_t *c;

	json_array_foreach(checks, i, c) {
		const char *status = rt_json_str(c, "status");

		if (!status || strcmp(status, "fail") || rt_json_num(c, "max_points") != 0)
			continue;
		if (rt_buf_printf(out, ", %s", rt_json_str(c, "id") ? rt_json_str(c, "id") : "?"))
			break;
		n++;
	}
	return n;
}

int grade_format_text(const json_t *g, bool verbose, struct rt_buf *out)
{
	const json_t *checks = json_object_get(g, "checks"), *build = json_object_get(g, "build");
	const char *lab = rt_json_str(g, "lab"), *err = rt_json_str(g, "error");
	const char *file = rt_json_str(g, "file");
	const char *work = rt_json_str(g, "work"), *title = rt_json_str(g, "title");
	size_t i, w = 8;
	json_t *c;
	int ret = 0;

	json_array_foreach(checks, i, c) {
		const char *id = rt_json_str(c, "id");

		if (id && strlen(id) > w)
			w = strlen(id) > 32 ? 32 : strlen(id);
	}
	if (rt_json_str(g, "student"))
		ret = rt_text_printf(out, "student %s\n", rt_json_str(g, "student"));
	if (!ret && title)
		ret = rt_text_printf(out, "%s: %s\n", lab ? lab : "?", title);
	if (!ret && work)
		ret = rt_text_printf(out, "code: %s\n", work);
	if (!ret && file)
		ret = rt_text_printf(out, "%s: lab %s, tier %s\n", file, lab ? lab : "?",
				     rt_json_str(g, "tier") ? rt_json_str(g, "tier") : "?");
	if (!ret && err)
		ret = rt_text_printf(out, "not graded: %s\n", err);
	if (!ret && build && !json_is_true(json_object_get(build, "ok")))
		ret = rt_text_printf(out, "the code does not compile:\n");
	if (!ret && build && (verbose || !json_is_true(json_object_get(build, "ok"))) &&
	    rt_json_str(build, "log") && *rt_json_str(build, "log"))
		ret = rt_text_escape(out, rt_json_str(build, "log"), strlen(rt_json_str(build, "log")),
				     RT_TEXT_KEEP_NL);
	json_array_foreach(checks, i, c) {
		const char *status = rt_json_str(c, "status"), *hint = rt_json_str(c, "hint");
		char pts[32];

		if (ret)
			break;
		if (status && (!strcmp(status, "skip") || !strcmp(status, "review")))
			snprintf(pts, sizeof(pts), "-/%g", rt_json_num(c, "max_points"));
		else
			snprintf(pts, sizeof(pts), "%g/%g", rt_json_num(c, "points"), rt_json_num(c, "max_points"));
		ret = rt_text_printf(out, "  %s %-*s %5s  %s\n", label(status), (int)w,
				     rt_json_str(c, "id") ? rt_json_str(c, "id") : "?", pts,
				     rt_json_str(c, "reason") ? rt_json_str(c, "reason") : "");
		if (!ret && hint)
			ret = rt_text_printf(out, "       %-*s        hint: %s\n", (int)w, "", hint);
	}
	if (!ret && !err && json_is_false(json_object_get(g, "handed_in")) &&
	    !json_object_get(g, "weights"))
		ret = rt_text_printf(out, "not handed in\n");
	else if (!ret && !err) {
		long long passed = json_integer_value(json_object_get(g, "checks_passed"));
		long long failed = json_integer_value(json_object_get(g, "checks_failed"));
		long long skipped = json_integer_value(json_object_get(g, "checks_skipped"));
		long long review = json_integer_value(json_object_get(g, "checks_review"));
		char skip[80] = "";

		if (skipped)
			snprintf(skip, sizeof(skip), ", %lld skipped", skipped);
		if (review)
			snprintf(skip + strlen(skip), sizeof(skip) - strlen(skip),
				 ", %lld for the teacher to read", review);
		struct rt_buf unanswered = RT_BUF_INIT;
		size_t nun = unanswered_list(checks, &unanswered);

		/* 100 % and exit 1 together read as success: say what is missing. */
		if (nun)
			ret = rt_text_printf(out, "score: %g%% of the points (%g of %g points; %lld "
					     "of %lld checks passed%s), but %zu question%s not "
					     "answered: %s\n", rt_json_num(g, "score_pct"), rt_json_num(g, "points"),
					     rt_json_num(g, "max_points"), passed, passed + failed, skip, nun,
					     nun == 1 ? "" : "s", rt_buf_str(&unanswered) + 2);
		else
			ret = rt_text_printf(out, "score: %g%% (%g of %g points; %lld of %lld checks "
					     "passed%s)\n", rt_json_num(g, "score_pct"), rt_json_num(g, "points"),
					     rt_json_num(g, "max_points"), passed, passed + failed, skip);
		rt_buf_fini(&unanswered);
	}
	if (!ret && !err && json_object_get(g, "weights")) {
		static const char *const names[] = { "code", "results", "quiz" };
		const json_t *parts = json_object_get(g, "parts");

		ret = rt_text_printf(out, "parts by weight:");
		for (int k = 0; !ret && k < 3; k++) {
			const json_t *p = json_object_get(parts, names[k]);
			long long wt = json_integer_value(json_object_get(json_object_get(g, "weights"),
									    names[k]));
			char what[48];

			if (!wt)
				continue;
			if (!p || json_is_true(json_object_get(p, "missing")))
				snprintf(what, sizeof(what), "missing (0%%)");
			else if (json_is_number(json_object_get(p, "score_pct")))
				snprintf(what, sizeof(what), "%g%%", rt_json_num(p, "score_pct"));
			else
				snprintf(what, sizeof(what), "not counted (skipped)");
			ret = rt_text_printf(out, " %s %s x %lld%%", names[k], what, wt);
		}
		if (!ret)
			ret = rt_text_printf(out, "\n");
		if (!ret && json_is_false(json_object_get(g, "handed_in")))
			ret = rt_text_printf(out, "not handed in: no code, results document or quiz "
					     "answer of this lab\n");
	}
	for (size_t k = 0; !ret && k < json_array_size(json_object_get(g, "notes")); k++)
		ret = rt_text_printf(out, "note: %s\n", json_string_value(json_array_get(
						json_object_get(g, "notes"), k)) ?: "");
	if (!ret && json_is_false(json_object_get(g, "isolated")))
		ret = rt_text_printf(out, "unisolated: the graded code ran as the grader's user "
				     "with no namespace or Landlock around it; a submission could "
				     "forge this grade\n");
	if (!ret && verbose && rt_json_str(g, "sandbox"))
		ret = rt_text_printf(out, "sandbox: %s\n", rt_json_str(g, "sandbox"));
	return ret;
}

/* ---- TAP ------------------------------------------------------------------------------ */

/* @s as part of a TAP description: '\' and '#' escaped with a backslash. */
static int tap_escape(struct rt_buf *out, const char *s)
{
	int ret = 0;

	for (; s && *s && !ret; s++)
		ret = *s == '\\' || *s == '#' ? rt_buf_printf(out, "\\%c", *s) :
		      rt_buf_append(out, s, 1);
	return ret;
}

static size_t count_tests(const json_t *grades)
{
	size_t n = 0, i;
	json_t *g;

	json_array_foreach(grades, i, g)
		n += rt_json_str(g, "error") || !json_array_size(json_object_get(g, "checks")) ? 1 :
		     json_array_size(json_object_get(g, "checks"));
	return n;
}

int grade_format_tap(const json_t *grades, struct rt_buf *out)
{
	struct rt_buf name, tname, tid;	/* tname, tid: escaped for TAP */
	size_t i, j, n = 0;
	json_t *g, *c;
	int ret;

	rt_buf_init(&name);
	rt_buf_init(&tname);
	rt_buf_init(&tid);
	ret = rt_buf_printf(out, "TAP version 13\n1..%zu\n", count_tests(grades));
	json_array_foreach(grades, i, g) {
		const json_t *checks = json_object_get(g, "checks");

		if (ret)
			break;
		rt_buf_reset(&name);
		rt_buf_reset(&tname);
		ret = grade_name(g, &name);
		if (!ret)
			ret = tap_escape(&tname, rt_buf_str(&name));
		if (!ret && (rt_json_str(g, "error") || !json_array_size(checks))) {
			ret = rt_text_printf(out, "not ok %zu - %s\n", ++n, rt_buf_str(&tname));
			if (!ret)
				ret = rt_text_printf(out, "# not graded: %s\n", rt_json_str(g, "error") ?
						     rt_json_str(g, "error") : "no checks");
			continue;
		}
		json_array_foreach(checks, j, c) {
			const char *status = rt_json_str(c, "status");

			if (ret)
				break;
			rt_buf_reset(&tid);
			ret = tap_escape(&tid, rt_json_str(c, "id") ? rt_json_str(c, "id") : "?");
			if (!ret && status && !strcmp(status, "skip"))
				ret = rt_text_printf(out, "ok %zu - %s/%s # SKIP %s\n", ++n,
						     rt_buf_str(&tname), rt_buf_str(&tid),
						     rt_json_str(c, "reason") ? rt_json_str(c, "reason") : "");
			else if (!ret && status && !strcmp(status, "review"))
				/* TAP's TODO: reported, never counted as a failure. */
				ret = rt_text_printf(out, "not ok %zu - %s/%s # TODO %s\n", ++n,
						     rt_buf_str(&tname), rt_buf_str(&tid),
						     rt_json_str(c, "reason") ? rt_json_str(c, "reason") : "");
			else if (!ret)
				ret = rt_text_printf(out, "%s %zu - %s/%s (%g/%g)\n", status &&
						     !strcmp(status, "pass") ? "ok" : "not ok", ++n,
						     rt_buf_str(&tname), rt_buf_str(&tid),
						     rt_json_num(c, "points"), rt_json_num(c, "max_points"));
			if (!ret && status && !strcmp(status, "fail"))
				ret = rt_text_printf(out, "# %s\n", rt_json_str(c, "reason") ? rt_json_str(c, "reason") : "");
			if (!ret && rt_json_str(c, "hint"))
				ret = rt_text_printf(out, "# hint: %s\n", rt_json_str(c, "hint"));
		}
		if (!ret)
			ret = rt_text_printf(out, "# %s: %g%% (%g of %g points)\n",
					     rt_buf_str(&name), rt_json_num(g, "score_pct"),
					     rt_json_num(g, "points"), rt_json_num(g, "max_points"));
	}
	rt_buf_fini(&tid);
	rt_buf_fini(&tname);
	rt_buf_fini(&name);
	return ret;
}

/* ---- JUnit ------------------------------------------------------------------------------ */

/*
 * @s escaped for an XML attribute or text: the five entities, newlines and
 * tabs as character references in attributes, and as U+FFFD what XML 1.0
 * forbids (the other C0 controls, U+FFFE, U+FFFF, bytes that are not UTF-8;
 * one of them and the file does not parse) and what rt_text would escape
 * (DEL, C1 controls, bidi overrides), which a report viewer would show raw.
 */
static int xml_escape(struct rt_buf *out, const char *s, bool attr)
{
	size_t len = s ? strlen(s) : 0;
	int ret = 0;

	for (size_t i = 0; i < len && !ret; ) {
		unsigned char ch = (unsigned char)s[i];
		char esc[RT_TEXT_ESC_MAX];
		unsigned int cp;
		size_t n = rt_text_char(s + i, len - i, RT_TEXT_KEEP_NL, esc, &cp);

		if (ch == '&')
			ret = rt_buf_puts(out, "&amp;");
		else if (ch == '<')
			ret = rt_buf_puts(out, "&lt;");
		else if (ch == '>')
			ret = rt_buf_puts(out, "&gt;");
		else if (ch == '"')
			ret = rt_buf_puts(out, "&quot;");
		else if (ch == '\'')
			ret = rt_buf_puts(out, "&apos;");
		else if (ch == '\n' || ch == '\t')
			ret = attr ? rt_buf_printf(out, "&#%u;", ch) : rt_buf_append(out, &s[i], 1);
		else if (esc[0] || cp == 0xfffe || cp == 0xffff)
			ret = rt_buf_puts(out, "\xef\xbf\xbd");
		else
			ret = rt_buf_append(out, &s[i], n);
		i += n;
	}
	return ret;
}

static int junit_suite(const json_t *g, struct rt_buf *out)
{
	const json_t *checks = json_object_get(g, "checks");
	struct rt_buf name;
	size_t j, failures = 0, skipped = 0;
	json_t *c;
	int ret;

	rt_buf_init(&name);
	ret = grade_name(g, &name);
	json_array_foreach(checks, j, c) {
		failures += rt_json_str(c, "status") && !strcmp(rt_json_str(c, "status"), "fail");
		skipped += rt_json_str(c, "status") && (!strcmp(rt_json_str(c, "status"), "skip") ||
						!strcmp(rt_json_str(c, "status"), "review"));
	}
	if (!ret)
		ret = rt_buf_puts(out, "  <testsuite name=\"");
	if (!ret)
		ret = xml_escape(out, rt_buf_str(&name), true);
	if (!ret && (rt_json_str(g, "error") || !json_array_size(checks))) {
		ret = rt_buf_printf(out, "\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" "
				    "time=\"%.3f\">\n    <testcase classname=\"", rt_json_num(g, "wall_s"));
		if (!ret)
			ret = xml_escape(out, rt_buf_str(&name), true);
		if (!ret)
			ret = rt_buf_puts(out, "\" name=\"grade\">\n      <error message=\"");
		if (!ret)
			ret = xml_escape(out, rt_json_str(g, "error") ? rt_json_str(g, "error") : "no checks", true);
		if (!ret)
			ret = rt_buf_puts(out, "\"/>\n    </testcase>\n  </testsuite>\n");
		rt_buf_fini(&name);
		return ret;
	}
	if (!ret)
		ret = rt_buf_printf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
				    "skipped=\"%zu\" time=\"%.3f\">\n", json_array_size(checks),
				    failures, skipped, rt_json_num(g, "wall_s"));
	json_array_foreach(checks, j, c) {
		const char *status = rt_json_str(c, "status");

		if (ret)
			break;
		ret = rt_buf_puts(out, "    <testcase classname=\"");
		if (!ret)
			ret = xml_escape(out, rt_buf_str(&name), true);
		if (!ret)
			ret = rt_buf_puts(out, "\" name=\"");
		if (!ret)
			ret = xml_escape(out, rt_json_str(c, "id"), true);
		if (!ret && status && !strcmp(status, "pass")) {
			ret = rt_buf_puts(out, "\"/>\n");
			continue;
		}
		bool skip = status && (!strcmp(status, "skip") || !strcmp(status, "review"));

		if (!ret)
			ret = rt_buf_puts(out, skip ? "\">\n      <skipped message=\"" :
					  "\">\n      <failure message=\"");
		if (!ret)
			ret = xml_escape(out, rt_json_str(c, "reason"), true);
		if (!ret && skip) {
			ret = rt_buf_puts(out, "\"/>\n    </testcase>\n");
			continue;
		}
		if (!ret)
			ret = rt_buf_printf(out, "\" type=\"%s\">", rt_json_str(c, "part") ?
					    rt_json_str(c, "part") : "check");
		if (!ret && rt_json_str(c, "hint"))
			ret = xml_escape(out, rt_json_str(c, "hint"), false);
		if (!ret)
			ret = rt_buf_puts(out, "</failure>\n    </testcase>\n");
	}
	if (!ret)
		ret = rt_buf_puts(out, "  </testsuite>\n");
	rt_buf_fini(&name);
	return ret;
}

int grade_format_junit(const json_t *grades, struct rt_buf *out)
{
	size_t i, tests = 0, failures = 0, errors = 0;
	json_t *g, *c;
	int ret;

	json_array_foreach(grades, i, g) {
		const json_t *checks = json_object_get(g, "checks");
		size_t j;

		if (rt_json_str(g, "error") || !json_array_size(checks)) {
			tests++;
			errors++;
			continue;
		}
		json_array_foreach(checks, j, c) {
			tests++;
			failures += rt_json_str(c, "status") && !strcmp(rt_json_str(c, "status"), "fail");
		}
	}
	/* No "skipped" on the root: only each testsuite has one (see the top). */
	ret = rt_buf_printf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "
			    "name=\"rtlab grade\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n",
			    tests, failures, errors);
	json_array_foreach(grades, i, g) {
		if (ret)
			break;
		ret = junit_suite(g, out);
	}
	if (!ret)
		ret = rt_buf_puts(out, "</testsuites>\n");
	return ret;
}

/* ---- CSV and the summary ------------------------------------------------------------------ */

/* A number of the gradebook: as printed, unquoted, so that it stays a number. */
static int csv_number(struct rt_buf *out, const char *s)
{
	int ret = rt_buf_puts(out, s);

	return ret ? ret : rt_buf_puts(out, ",");
}

/*
 * A text cell of the gradebook (a student's folder name, an error), made
 * safe as OWASP's CSV injection advice says:
 *   - a control character (C0 with TAB, CR and LF, DEL, C1), a bidi
 *     override or isolate, U+FFFE, U+FFFF and a byte that is not UTF-8
 *     become U+FFFD, so the cell is valid UTF-8 text and its row one line;
 *   - a cell whose first character after any spaces is '=', '+', '-', '@',
 *     TAB or CR starts with "'", so no spreadsheet reads it as a formula;
 *   - the cell is quoted (RFC 4180, '"' doubled) when it has that "'", or
 *     holds ',', '"' or ';' (where ';' separates cells, as in many locales,
 *     an unquoted ";=..." would start a cell of its own).
 * Anything else is written as it is, so "ann" stays ann.
 */
int grade_format_csv_text(struct rt_buf *out, const char *s, bool last)
{
	struct rt_buf cell = RT_BUF_INIT;
	size_t len = strlen(s), i = 0, lead = strspn(s, " ");
	bool formula = s[lead] && strchr("=+-@\t\r", s[lead]);
	int ret = 0;

	while (i < len && !ret) {
		char esc[RT_TEXT_ESC_MAX];
		unsigned int cp;
		size_t n = rt_text_char(s + i, len - i, 0, esc, &cp);

		if (esc[0] || cp == 0xfffe || cp == 0xffff)
			ret = rt_buf_puts(&cell, "\xef\xbf\xbd");
		else if (s[i] == '"')
			ret = rt_buf_puts(&cell, "\"\"");
		else
			ret = rt_buf_append(&cell, s + i, n);
		i += n;
	}
	if (!ret && (formula || strpbrk(rt_buf_str(&cell), ",\";")))
		ret = rt_buf_printf(out, "\"%s%s\"", formula ? "'" : "", rt_buf_str(&cell));
	else if (!ret)
		ret = rt_buf_puts(out, rt_buf_str(&cell));
	rt_buf_fini(&cell);
	return ret ? ret : rt_buf_puts(out, last ? "\r\n" : ",");
}

int grade_format_csv(const json_t *grades, struct rt_buf *out)
{
	size_t i;
	json_t *g;
	int ret;

	ret = rt_buf_puts(out, "student,lab,score_pct,points,max_points,passed,failed,skipped,"
			  "build,error\r\n");
	json_array_foreach(grades, i, g) {
		const json_t *build = json_object_get(g, "build");
		char nums[6][32];

		if (ret)
			break;
		/* Blank, not 0, where nothing was handed in (or nothing could be graded). */
		if (json_is_number(json_object_get(g, "score_pct")) && !rt_json_str(g, "error"))
			snprintf(nums[0], sizeof(nums[0]), "%g", rt_json_num(g, "score_pct"));
		else
			nums[0][0] = '\0';
		snprintf(nums[1], sizeof(nums[1]), "%g", rt_json_num(g, "points"));
		snprintf(nums[2], sizeof(nums[2]), "%g", rt_json_num(g, "max_points"));
		snprintf(nums[3], sizeof(nums[3]), "%lld",
			 (long long)json_integer_value(json_object_get(g, "checks_passed")));
		snprintf(nums[4], sizeof(nums[4]), "%lld",
			 (long long)json_integer_value(json_object_get(g, "checks_failed")));
		snprintf(nums[5], sizeof(nums[5]), "%lld",
			 (long long)json_integer_value(json_object_get(g, "checks_skipped")));
		ret = grade_format_csv_text(out, rt_json_str(g, "student") ? rt_json_str(g, "student") : "",
					    false);
		if (!ret)
			ret = grade_format_csv_text(out, rt_json_str(g, "lab") ? rt_json_str(g, "lab") : "", false);
		for (int k = 0; !ret && k < 6; k++)
			ret = csv_number(out, nums[k]);
		if (!ret)
			ret = grade_format_csv_text(out, !build ? "" :
						    json_is_true(json_object_get(build, "ok")) ?
						    "ok" : "failed", false);
		if (!ret)
			ret = grade_format_csv_text(out, rt_json_str(g, "error") ? rt_json_str(g, "error") :
						    json_is_false(json_object_get(g, "handed_in")) ?
						    "not handed in" : "", true);
	}
	return ret;
}

/* The summary's student column: the name escaped (rt_text), then spaces up to @w columns. */
static int summary_name(struct rt_buf *out, const json_t *g, size_t w)
{
	const char *s = rt_json_str(g, "student") ? rt_json_str(g, "student") : "-";
	size_t start = out->len, cols;
	int ret = rt_text_escape(out, s, strlen(s), 0);

	cols = rt_utf8_width(rt_buf_str(out) + start, out->len - start);
	while (!ret && cols++ < w)
		ret = rt_buf_puts(out, " ");
	return ret;
}

/* The columns the escaped @s takes on a terminal. */
static size_t name_width(const char *s)
{
	struct rt_buf b = RT_BUF_INIT;
	size_t w = 0;

	if (!rt_text_escape(&b, s, strlen(s), 0))
		w = rt_utf8_width(rt_buf_str(&b), b.len);
	rt_buf_fini(&b);
	return w;
}

/*
 * The hand-ins that look alike (grade_similar.h), one line a group: hints
 * for the teacher to look at, never a verdict.
 */
static int summary_hints(const json_t *grades, struct rt_buf *out)
{
	json_t *hints = grade_similar_hints(grades), *h, *s;
	size_t i, k;
	int ret = hints ? 0 : -ENOMEM;

	json_array_foreach(hints, i, h) {
		const bool code = !strcmp(rt_json_str(h, "kind"), "code");

		ret = rt_text_printf(out, "hint: %s ", rt_json_str(h, "lab"));
		json_array_foreach(json_object_get(h, "students"), k, s)
			if (!ret)
				ret = rt_text_printf(out, "%s%s", k ? ", " : "", json_string_value(s));
		if (!ret)
			ret = rt_text_printf(out, ": %s (a hint to look at, not a verdict)\n", code ?
					     "near-identical code (the same after whitespace, "
					     "comments and names)" : "the same results document "
					     "(the same checksum)");
		if (ret)
			break;
	}
	json_decref(hints);
	return ret;
}

int grade_format_summary(const json_t *grades, struct rt_buf *out)
{
	size_t i, w = 7, graded = 0, full = 0, broken = 0;
	double sum = 0;
	json_t *g;
	int ret;

	json_array_foreach(grades, i, g) {
		size_t nw = rt_json_str(g, "student") ? name_width(rt_json_str(g, "student")) : 0;

		if (nw > w)
			w = nw > 40 ? 40 : nw;
	}
	ret = rt_text_printf(out, "%-*s  %-12s %7s %9s  %s\n", (int)w, "student", "lab", "score",
			     "points", "checks (pass/fail/skip), note");
	json_array_foreach(grades, i, g) {
		const json_t *build = json_object_get(g, "build");
		char pts[32], missing[64];
		const char *pname;
		json_t *part;

		if (ret)
			break;
		ret = summary_name(out, g, w);
		if (ret)
			break;
		snprintf(pts, sizeof(pts), "%g/%g", rt_json_num(g, "points"), rt_json_num(g, "max_points"));
		if (rt_json_str(g, "error")) {
			broken++;
			ret = rt_text_printf(out, "  %-12s %7s %9s  not graded: %s\n",
					     rt_json_str(g, "lab") ? rt_json_str(g, "lab") : "-", "-", "-",
					     rt_json_str(g, "error"));
			continue;
		}
		if (json_is_false(json_object_get(g, "handed_in"))) {
			ret = rt_text_printf(out, "  %-12s %7s %9s  not handed in\n",
					     rt_json_str(g, "lab") ? rt_json_str(g, "lab") : "-", "-", "-");
			continue;
		}
		graded++;
		sum += rt_json_num(g, "score_pct");
		full += rt_json_num(g, "score_pct") >= 100;
		missing[0] = '\0';
		json_object_foreach((json_t *)json_object_get(g, "parts"), pname, part)
			if (json_is_true(json_object_get(part, "missing")))
				snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
					 "%s%s", missing[0] ? "+" : ", missing: ", pname);
		ret = rt_text_printf(out, "  %-12s %6g%% %9s  %lld/%lld/%lld%s%s\n",
				     rt_json_str(g, "lab") ? rt_json_str(g, "lab") : "-", rt_json_num(g, "score_pct"), pts,
				     (long long)json_integer_value(json_object_get(g, "checks_passed")),
				     (long long)json_integer_value(json_object_get(g, "checks_failed")),
				     (long long)json_integer_value(json_object_get(g, "checks_skipped")),
				     build && !json_is_true(json_object_get(build, "ok")) ?
				     ", does not compile" : "", missing);
		if (!ret && json_integer_value(json_object_get(g, "checks_review")))
			ret = rt_text_printf(out, "%*s  %lld written answer(s) to read\n", (int)w,
					     "", (long long)json_integer_value(json_object_get(
						     g, "checks_review")));
	}
	if (!ret)
		ret = rt_text_printf(out, "%zu graded, %zu at 100%%, %zu not graded; average %.1f%%\n",
				     graded, full, broken, graded ? sum / (double)graded : 0.0);
	/* The written answers: the teacher's to read, with no automatic points. */
	json_array_foreach(grades, i, g) {
		const json_t *c;
		size_t j;

		json_array_foreach(json_object_get(g, "checks"), j, c) {
			if (ret || !rt_json_str(c, "status") || strcmp(rt_json_str(c, "status"), "review"))
				continue;
			ret = rt_text_printf(out, "to read: %s/%s %s: %s\n",
					     rt_json_str(g, "student") ? rt_json_str(g, "student") : "-",
					     rt_json_str(g, "lab") ? rt_json_str(g, "lab") : "-",
					     rt_json_str(c, "id") ? rt_json_str(c, "id") : "?",
					     rt_json_str(c, "reason") ? rt_json_str(c, "reason") : "");
		}
	}
	return ret ? ret : summary_hints(grades, out);
}

json_t *grade_format_class_json(json_t *grades, const char *dir, unsigned int jobs,
				double wall_s)
{
	json_t *hints = grade_similar_hints(grades);

	return json_pack("{s:s, s:s, s:s?, s:I, s:f, s:o, s:o?}", "schema", "rtlab.grade/1",
			 "kind", "class", "dir", dir, "jobs", (json_int_t)jobs, "wall_s",
			 round(wall_s * 1000.0) / 1000.0, "grades", grades, "hints", hints);
}
