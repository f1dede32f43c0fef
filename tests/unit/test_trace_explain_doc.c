/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_trace_explain_doc: a trace taken out of an ftrace results document
 * is judged with the document's env (lab_trace_env): under QEMU's TCG an
 * emulator-made section captured in the lab kernel is called so in the
 * viewer's header and in the tracer view's "what this says"; the same trace
 * from a bare-metal document, and a planted section under TCG, are not.
 * The documents are tests/data/results/ftrace-tracer.json with its env and
 * trace replaced by captured ones (tests/data/traces/hunt/).
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

#include "core/rt_buf.h"
#include "core/rt_file.h"
#include "core/rt_result.h"
#include "labs/lab.h"
#include "labs/lab_ftrace.h"
#include "trace/trace_explain.h"

static char *read_src(const char *rel, size_t *len)
{
	const char *srcdir = getenv("SRCDIR");
	char path[512], *text = NULL;

	snprintf(path, sizeof(path), "%s/tests/data/%s", srcdir ? srcdir : ".", rel);
	assert_int_equal(rt_file_read(path, 1 << 20, &text, len), 0);
	return text;
}

/* The tracer fixture document with @trace (under traces/hunt/) and the env given. */
static char *document(const char *trace, bool in_vm, const char *vm_type)
{
	size_t len;
	char *doc = read_src("results/ftrace-tracer.json", &len);
	char *text = read_src(trace, &len), *out;
	json_t *j = json_loads(doc, 0, NULL), *env;

	assert_non_null(j);
	env = json_object_get(j, "env");
	json_object_set_new(env, "in_vm", json_boolean(in_vm));
	json_object_set_new(env, "vm_type", vm_type ? json_string(vm_type) : json_null());
	json_object_set_new(json_object_get(json_object_get(j, "extra"), "tracer"), "trace_text",
			    json_stringn(text, len));
	/* No saved views: the report and the tests draw them from the document. */
	json_object_del(j, "views");
	out = json_dumps(j, 0);
	assert_non_null(out);
	json_decref(j);
	free(doc);
	free(text);
	return out;
}

static char *header(const char *doc, struct trace_explain **x)
{
	struct rt_buf b = RT_BUF_INIT;
	char *cause = NULL;

	if (lab_trace_load(doc, strlen(doc), "hunt.json", x, &cause))
		fail_msg("%s", cause);
	assert_int_equal(trace_explain_header(*x, &b), 0);
	return rt_buf_take(&b);
}

/* The tracer view's "what this says" of @doc, as a string the caller frees. */
static char *reading(const char *doc)
{
	struct rt_result *res = NULL;
	struct rt_result_opts ro = { .labs = lab_names() };
	json_t *views = json_array(), *v;
	char *cause = NULL, *s = NULL;
	size_t i;

	if (rt_result_parse(doc, strlen(doc), "hunt.json", &ro, &res, &cause))
		fail_msg("%s", cause);
	assert_int_equal(lab_ftrace.views(res, views, &cause), 0);
	json_array_foreach(views, i, v) {
		json_t *rows = json_object_get(v, "rows");

		if (strcmp(json_string_value(json_object_get(v, "name")), "tracer"))
			continue;
		s = strdup(json_string_value(json_array_get(json_array_get(rows, 0), 8)));
	}
	assert_non_null(s);
	json_decref(views);
	rt_result_free(res);
	return s;
}

static void test_tcg(void **state)
{
	char *doc = document("traces/hunt/irqsoff/irqsoff-th0-emulator.txt", true, "QEMU TCG");
	struct trace_explain *x = NULL;
	char *h = header(doc, &x), *r;
	struct rt_result *res = NULL;
	char *cause = NULL;

	(void)state;
	assert_int_equal(x->env, TRACE_EMU_TCG);
	assert_true(x->emu.likely);
	assert_non_null(strstr(h, "Likely the emulator's: this run was under QEMU's TCG"));
	free(h);
	trace_explain_free(x);
	r = reading(doc);
	assert_true(!strncmp(r, "likely the emulator's: it started in irqentry_enter", 51));
	assert_non_null(strstr(r, "rtlab trace explain FILE"));
	free(r);
	assert_int_equal(rt_result_parse(doc, strlen(doc), "d", NULL, &res, &cause), 0);
	assert_int_equal(lab_trace_env(res), TRACE_EMU_TCG);
	rt_result_free(res);
	free(doc);
}

/*
 * The document of @trace with the env given: whether its header and the tracer
 * view call the section the emulator's (@claim: the header's words, or NULL
 * for no claim at all), and the environment lab_trace_load() found.
 */
static void expect(const char *trace, bool in_vm, const char *vm_type,
		   enum trace_emu_env env, const char *claim)
{
	char *doc = document(trace, in_vm, vm_type);
	struct trace_explain *x = NULL;
	char *h = header(doc, &x), *r = reading(doc);

	assert_int_equal(x->env, env);
	assert_int_equal(x->emu.likely, claim != NULL);
	if (claim)
		assert_non_null(strstr(h, claim));
	else
		assert_null(strstr(h, "emulat"));
	assert_int_equal(strstr(r, "emulator's") != NULL, claim != NULL);
	free(h);
	free(r);
	trace_explain_free(x);
	free(doc);
}

static void test_elsewhere(void **state)
{
	(void)state;
	/* Bare metal: the same section is not called the emulator's. */
	expect("traces/hunt/irqsoff/irqsoff-th0-emulator.txt", false, NULL, TRACE_EMU_HOST,
	       NULL);
	/* KVM: possibly the host's. */
	expect("traces/hunt/irqsoff/irqsoff-th0-emulator.txt", true, "KVM", TRACE_EMU_HWVIRT,
	       "Possibly the host's");
	/* The planted section under TCG is a real cause. */
	expect("traces/hunt/irqsoff/irqsoff.txt", true, "QEMU TCG", TRACE_EMU_TCG, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tcg),
		cmocka_unit_test(test_elsewhere),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
