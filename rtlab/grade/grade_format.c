/*
 * grade_format: the printed forms of grades (see the header).
 *
 * TAP: a plan, then "ok N - name" / "not ok N - name" with the reason and
 * hint as "# " lines after it, and "ok N - name # SKIP reason" for a
 * skipped check (TAP 13's directive, which prove counts as skipped). A grade
 * that could not be made at all is one "not ok" line with its error.
 *
 * JUnit: <testsuites> with one <testsuite> per grade (name
 * "student/lab"), one <testcase> per check (classname the suite, name the
 * check id) holding <failure message="reason">hint</failure> or
 * <skipped message="reason"/>; an ungraded job is one testcase with an
 * <error>. The counts are attributes of each suite and of the root, as the
 * common readers (GitLab, Jenkins, the JUnit reporters GitHub Actions uses)
 * expect.
 */
#include "grade_format.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/rt_text.h"

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

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static double num(const json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

/* "alice/toy" or "toy": the name of a grade in the forms that list many. */
static int grade_name(const json_t *g, struct rt_buf *out)
{
	const char *student = str(g, "student"), *lab = str(g, "lab");

	return rt_buf_printf(out, "%s%s%s", student ? student : "", student ? "/" : "",
			     lab ? lab : "unknown");
}

/* ---- Text ------------------------------------------------------------------------- */

static const char *label(const char *status)
{
	return !status ? "????" : !strcmp(status, "pass") ? "PASS" : !strcmp(status, "skip") ?
	       "SKIP" : "FAIL";
}

int grade_format_text(const json_t *g, bool verbose, struct rt_buf *out)
{
	const json_t *checks = json_object_get(g, "checks"), *build = json_object_get(g, "build");
	const char *lab = str(g, "lab"), *err = str(g, "error"), *file = str(g, "file");
	const char *work = str(g, "work"), *title = str(g, "title");
	size_t i, w = 8;
	json_t *c;
	int ret = 0;

	json_array_foreach(checks, i, c) {
		const char *id = str(c, "id");

		if (id && strlen(id) > w)
			w = strlen(id) > 32 ? 32 : strlen(id);
	}
	if (str(g, "student"))
		ret = rt_text_printf(out, "student %s\n", str(g, "student"));
	if (!ret && title)
		ret = rt_text_printf(out, "%s: %s\n", lab ? lab : "?", title);
	if (!ret && work)
		ret = rt_text_printf(out, "code: %s\n", work);
	if (!ret && file)
		ret = rt_text_printf(out, "%s: lab %s, tier %s\n", file, lab ? lab : "?",
				     str(g, "tier") ? str(g, "tier") : "?");
	if (!ret && err)
		ret = rt_text_printf(out, "not graded: %s\n", err);
	if (!ret && build && !json_is_true(json_object_get(build, "ok")))
		ret = rt_text_printf(out, "the code does not compile:\n");
	if (!ret && build && (verbose || !json_is_true(json_object_get(build, "ok"))) &&
	    str(build, "log") && *str(build, "log"))
		ret = rt_text_escape(out, str(build, "log"), strlen(str(build, "log")),
				     RT_TEXT_KEEP_NL);
	json_array_foreach(checks, i, c) {
		const char *status = str(c, "status"), *hint = str(c, "hint");
		char pts[32];

		if (ret)
			break;
		if (status && !strcmp(status, "skip"))
			snprintf(pts, sizeof(pts), "-/%g", num(c, "max_points"));
		else
			snprintf(pts, sizeof(pts), "%g/%g", num(c, "points"), num(c, "max_points"));
		ret = rt_text_printf(out, "  %s %-*s %5s  %s\n", label(status), (int)w,
				     str(c, "id") ? str(c, "id") : "?", pts,
				     str(c, "reason") ? str(c, "reason") : "");
		if (!ret && hint)
			ret = rt_text_printf(out, "       %-*s        hint: %s\n", (int)w, "", hint);
	}
	if (!ret && !err) {
		long long passed = json_integer_value(json_object_get(g, "checks_passed"));
		long long failed = json_integer_value(json_object_get(g, "checks_failed"));
		long long skipped = json_integer_value(json_object_get(g, "checks_skipped"));
		char skip[40] = "";

		if (skipped)
			snprintf(skip, sizeof(skip), ", %lld skipped", skipped);
		ret = rt_text_printf(out, "score: %g%% (%g of %g points; %lld of %lld checks "
				     "passed%s)\n", num(g, "score_pct"), num(g, "points"),
				     num(g, "max_points"), passed, passed + failed, skip);
	}
	if (!ret && verbose && str(g, "sandbox"))
		ret = rt_text_printf(out, "sandbox: %s\n", str(g, "sandbox"));
	return ret;
}

/* ---- TAP ------------------------------------------------------------------------------ */

static size_t count_tests(const json_t *grades)
{
	size_t n = 0, i;
	json_t *g;

	json_array_foreach(grades, i, g)
		n += str(g, "error") || !json_array_size(json_object_get(g, "checks")) ? 1 :
		     json_array_size(json_object_get(g, "checks"));
	return n;
}

int grade_format_tap(const json_t *grades, struct rt_buf *out)
{
	struct rt_buf name;
	size_t i, j, n = 0;
	json_t *g, *c;
	int ret;

	rt_buf_init(&name);
	ret = rt_buf_printf(out, "TAP version 13\n1..%zu\n", count_tests(grades));
	json_array_foreach(grades, i, g) {
		const json_t *checks = json_object_get(g, "checks");

		if (ret)
			break;
		rt_buf_reset(&name);
		ret = grade_name(g, &name);
		if (!ret && (str(g, "error") || !json_array_size(checks))) {
			ret = rt_text_printf(out, "not ok %zu - %s\n", ++n, rt_buf_str(&name));
			if (!ret)
				ret = rt_text_printf(out, "# not graded: %s\n", str(g, "error") ?
						     str(g, "error") : "no checks");
			continue;
		}
		json_array_foreach(checks, j, c) {
			const char *status = str(c, "status");

			if (ret)
				break;
			if (status && !strcmp(status, "skip"))
				ret = rt_text_printf(out, "ok %zu - %s/%s # SKIP %s\n", ++n,
						     rt_buf_str(&name), str(c, "id"), str(c, "reason"));
			else
				ret = rt_text_printf(out, "%s %zu - %s/%s (%g/%g)\n", status &&
						     !strcmp(status, "pass") ? "ok" : "not ok", ++n,
						     rt_buf_str(&name), str(c, "id"),
						     num(c, "points"), num(c, "max_points"));
			if (!ret && status && !strcmp(status, "fail"))
				ret = rt_text_printf(out, "# %s\n", str(c, "reason"));
			if (!ret && str(c, "hint"))
				ret = rt_text_printf(out, "# hint: %s\n", str(c, "hint"));
		}
		if (!ret)
			ret = rt_text_printf(out, "# %s: %g%% (%g of %g points)\n",
					     rt_buf_str(&name), num(g, "score_pct"),
					     num(g, "points"), num(g, "max_points"));
	}
	rt_buf_fini(&name);
	return ret;
}

/* ---- JUnit ------------------------------------------------------------------------------ */

/*
 * @s escaped for an XML attribute or text: the five entities, newlines and
 * tabs as character references in attributes, and what XML 1.0 forbids
 * (C0 controls, U+FFFE/FFFF, bytes that are not UTF-8) as U+FFFD.
 */
static int xml_escape(struct rt_buf *out, const char *s, bool attr)
{
	int ret = 0;

	for (size_t i = 0; s && s[i] && !ret; ) {
		unsigned char ch = (unsigned char)s[i];
		char esc[RT_TEXT_ESC_MAX];
		unsigned int cp;
		size_t n = rt_text_char(s + i, strlen(s + i), RT_TEXT_KEEP_NL, esc, &cp);

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
		else if (ch < 0x20 || ch == 0x7f || (esc[0] && (cp < 0x80 || cp == 0xfffe ||
								 cp == 0xffff || n == 1)))
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
		failures += str(c, "status") && !strcmp(str(c, "status"), "fail");
		skipped += str(c, "status") && !strcmp(str(c, "status"), "skip");
	}
	if (!ret)
		ret = rt_buf_puts(out, "  <testsuite name=\"");
	if (!ret)
		ret = xml_escape(out, rt_buf_str(&name), true);
	if (!ret && (str(g, "error") || !json_array_size(checks))) {
		ret = rt_buf_printf(out, "\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" "
				    "time=\"%.3f\">\n    <testcase classname=\"", num(g, "wall_s"));
		if (!ret)
			ret = xml_escape(out, rt_buf_str(&name), true);
		if (!ret)
			ret = rt_buf_puts(out, "\" name=\"grade\">\n      <error message=\"");
		if (!ret)
			ret = xml_escape(out, str(g, "error") ? str(g, "error") : "no checks", true);
		if (!ret)
			ret = rt_buf_puts(out, "\"/>\n    </testcase>\n  </testsuite>\n");
		rt_buf_fini(&name);
		return ret;
	}
	if (!ret)
		ret = rt_buf_printf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
				    "skipped=\"%zu\" time=\"%.3f\">\n", json_array_size(checks),
				    failures, skipped, num(g, "wall_s"));
	json_array_foreach(checks, j, c) {
		const char *status = str(c, "status");

		if (ret)
			break;
		ret = rt_buf_puts(out, "    <testcase classname=\"");
		if (!ret)
			ret = xml_escape(out, rt_buf_str(&name), true);
		if (!ret)
			ret = rt_buf_puts(out, "\" name=\"");
		if (!ret)
			ret = xml_escape(out, str(c, "id"), true);
		if (!ret && status && !strcmp(status, "pass")) {
			ret = rt_buf_puts(out, "\"/>\n");
			continue;
		}
		if (!ret)
			ret = rt_buf_puts(out, status && !strcmp(status, "skip") ?
					  "\">\n      <skipped message=\"" :
					  "\">\n      <failure message=\"");
		if (!ret)
			ret = xml_escape(out, str(c, "reason"), true);
		if (!ret && status && !strcmp(status, "skip")) {
			ret = rt_buf_puts(out, "\"/>\n    </testcase>\n");
			continue;
		}
		if (!ret)
			ret = rt_buf_printf(out, "\" type=\"%s\">", str(c, "part") ?
					    str(c, "part") : "check");
		if (!ret && str(c, "hint"))
			ret = xml_escape(out, str(c, "hint"), false);
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
	size_t i, tests = 0, failures = 0, errors = 0, skipped = 0;
	json_t *g, *c;
	int ret;

	json_array_foreach(grades, i, g) {
		const json_t *checks = json_object_get(g, "checks");
		size_t j;

		if (str(g, "error") || !json_array_size(checks)) {
			tests++;
			errors++;
			continue;
		}
		json_array_foreach(checks, j, c) {
			tests++;
			failures += str(c, "status") && !strcmp(str(c, "status"), "fail");
			skipped += str(c, "status") && !strcmp(str(c, "status"), "skip");
		}
	}
	ret = rt_buf_printf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "
			    "name=\"rtlab grade\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
			    "skipped=\"%zu\">\n", tests, failures, errors, skipped);
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

static int csv_field(struct rt_buf *out, const char *s, bool last)
{
	int ret = 0;

	if (s && strpbrk(s, ",\"\r\n")) {
		ret = rt_buf_puts(out, "\"");
		for (; !ret && *s; s++)
			ret = *s == '"' ? rt_buf_puts(out, "\"\"") : rt_buf_append(out, s, 1);
		if (!ret)
			ret = rt_buf_puts(out, "\"");
	} else if (s) {
		ret = rt_buf_puts(out, s);
	}
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
		snprintf(nums[0], sizeof(nums[0]), "%g", num(g, "score_pct"));
		snprintf(nums[1], sizeof(nums[1]), "%g", num(g, "points"));
		snprintf(nums[2], sizeof(nums[2]), "%g", num(g, "max_points"));
		snprintf(nums[3], sizeof(nums[3]), "%lld",
			 (long long)json_integer_value(json_object_get(g, "checks_passed")));
		snprintf(nums[4], sizeof(nums[4]), "%lld",
			 (long long)json_integer_value(json_object_get(g, "checks_failed")));
		snprintf(nums[5], sizeof(nums[5]), "%lld",
			 (long long)json_integer_value(json_object_get(g, "checks_skipped")));
		ret = csv_field(out, str(g, "student") ? str(g, "student") : "", false);
		if (!ret)
			ret = csv_field(out, str(g, "lab") ? str(g, "lab") : "", false);
		for (int k = 0; !ret && k < 6; k++)
			ret = csv_field(out, nums[k], false);
		if (!ret)
			ret = csv_field(out, !build ? "" : json_is_true(json_object_get(build, "ok")) ?
					"ok" : "failed", false);
		if (!ret)
			ret = csv_field(out, str(g, "error") ? str(g, "error") : "", true);
	}
	return ret;
}

int grade_format_summary(const json_t *grades, struct rt_buf *out)
{
	size_t i, n = 0, w = 7, graded = 0, full = 0, broken = 0;
	double sum = 0;
	json_t *g;
	int ret;

	json_array_foreach(grades, i, g)
		if (str(g, "student") && strlen(str(g, "student")) > w)
			w = strlen(str(g, "student")) > 40 ? 40 : strlen(str(g, "student"));
	ret = rt_text_printf(out, "%-*s  %-12s %7s %9s  %s\n", (int)w, "student", "lab", "score",
			     "points", "checks (pass/fail/skip), note");
	json_array_foreach(grades, i, g) {
		const json_t *build = json_object_get(g, "build");
		char pts[32];

		if (ret)
			break;
		n++;
		snprintf(pts, sizeof(pts), "%g/%g", num(g, "points"), num(g, "max_points"));
		if (str(g, "error")) {
			broken++;
			ret = rt_text_printf(out, "%-*s  %-12s %7s %9s  not graded: %s\n", (int)w,
					     str(g, "student") ? str(g, "student") : "-",
					     str(g, "lab") ? str(g, "lab") : "-", "-", "-",
					     str(g, "error"));
			continue;
		}
		graded++;
		sum += num(g, "score_pct");
		full += num(g, "score_pct") >= 100;
		ret = rt_text_printf(out, "%-*s  %-12s %6g%% %9s  %lld/%lld/%lld%s\n", (int)w,
				     str(g, "student") ? str(g, "student") : "-",
				     str(g, "lab") ? str(g, "lab") : "-", num(g, "score_pct"), pts,
				     (long long)json_integer_value(json_object_get(g, "checks_passed")),
				     (long long)json_integer_value(json_object_get(g, "checks_failed")),
				     (long long)json_integer_value(json_object_get(g, "checks_skipped")),
				     build && !json_is_true(json_object_get(build, "ok")) ?
				     ", does not compile" : "");
	}
	if (!ret)
		ret = rt_text_printf(out, "%zu graded, %zu at 100%%, %zu not graded; average %.1f%%\n",
				     graded, full, broken, graded ? sum / (double)graded : 0.0);
	(void)n;
	return ret;
}

json_t *grade_format_class_json(json_t *grades, const char *dir, unsigned int jobs,
				double wall_s)
{
	return json_pack("{s:s, s:s, s:s?, s:I, s:f, s:o}", "schema", "rtlab.grade/1", "kind",
			 "class", "dir", dir, "jobs", (json_int_t)jobs, "wall_s",
			 round(wall_s * 1000.0) / 1000.0, "grades", grades);
}
