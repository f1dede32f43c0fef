/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_run_session: the one run lifecycle (rtlab/run/) with a lab of the
 * test's own: the order of its steps, what stops a run before it measures,
 * the stop flag a signal sets, the worker, and what the save adds to the
 * document (views, predictions from the real lessons, written answers).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/rt_file.h"
#include "core/rt_progress.h"
#include "core/rt_result.h"
#include "core/rt_time.h"
#include "labs/lab.h"
#include "run/run.h"

struct fixture {
	char dir[64];
	char json[128];
	char progress[128];
	struct doctor_report rep;
	struct doctor_lab dlab;
};

/* What the fake lab's run saw, and what it should do. */
static struct {
	int runs;
	bool raise_sigint;	/* raise SIGINT and stop when the flag is seen */
	bool saw_stop;
	uint64_t seed;
	bool had_journal;	/* the run got the session's undo journal */
	bool fail;
} fake;

static int fake_run(struct lab_ctx *ctx, const struct rt_sink *sink, struct lab_result *out)
{
	json_t *scens, *extra;

	(void)sink;
	fake.runs++;
	fake.seed = ctx->seed;
	fake.had_journal = ctx->journal != NULL;
	if (fake.fail)
		return -EIO;
	if (fake.raise_sigint) {
		raise(SIGINT);
		fake.saw_stop = lab_ctx_stopped(ctx);
		out->interrupted = fake.saw_stop;
	}
	out->res = rt_result_new("latency", ctx->tier, ctx->env);
	extra = rt_result_extra(out->res);
	scens = json_pack("[{s:s, s:f}]", "name", "load-other", "max_us", 321.0);
	json_object_set_new(extra, "scenarios", scens);
	return 0;
}

static int fake_views(const struct rt_result *res, json_t *views, char **cause)
{
	(void)res;
	(void)cause;
	return json_array_append_new(views, json_pack("{s:s, s:s, s:[{s:s}], s:[[i]]}", "name",
			"only", "title", "One table", "columns", "name", "n", "rows", 7));
}

static const char *const fake_questions[] = { "Q1", NULL };

static struct lab_ops fake_lab = {
	.name = "latency",
	.title = "A lab of the test's own",
	.state = LAB_STATE_READY,
	.run = fake_run,
	.views = fake_views,
	.questions = fake_questions,
};

static int set_progress(struct rt_progress *p, void *priv)
{
	(void)priv;
	return rt_progress_prediction_set(p, "03", "predict-load-other", 250, "us");
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	strcpy(f->dir, "/tmp/rtlab-test-run-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->json, sizeof(f->json), "%s/out.json", f->dir);
	snprintf(f->progress, sizeof(f->progress), "%s/progress.json", f->dir);
	setenv("XDG_STATE_HOME", f->dir, 1);
	setenv("RTLAB_JOURNAL_DIR", f->dir, 1);
	f->dlab.lab = &fake_lab;
	f->dlab.tier = DOCTOR_TIER_HOST;
	f->rep.labs = &f->dlab;
	f->rep.nlabs = 1;
	memset(&fake, 0, sizeof(fake));
	fake_lab.state = LAB_STATE_READY;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

static struct run_opts opts_of(struct fixture *f)
{
	struct run_opts o = {
		.lab = &fake_lab,
		.seed = 42,
		.json_path = f->json,
		.progress_path = f->progress,
		.doctor = &f->rep,
	};
	return o;
}

/* A planned lab is refused at the first step, before anything else. */
static void test_planned_refused(void **state)
{
	struct fixture *f = *state;
	struct run_opts o = opts_of(f);
	struct run_session s;
	char *cause = NULL;

	fake_lab.state = LAB_STATE_PLANNED;
	assert_int_equal(run_session_init(&s, &o, &cause), -ENOSYS);
	assert_int_equal(s.step, RUN_STEP_LAB);
	assert_non_null(strstr(cause, "planned"));
	free(cause);
	run_session_fini(&s);
	assert_int_equal(fake.runs, 0);
}

/* No tier here: refused with the doctor's reason, and nothing is created. */
static void test_no_tier(void **state)
{
	struct fixture *f = *state;
	struct run_opts o = opts_of(f);
	struct run_session s;
	char *cause = NULL;
	struct stat st;

	f->dlab.tier = DOCTOR_TIER_NONE;
	f->dlab.reason = (char *)"no widget here";
	assert_int_equal(run_session_init(&s, &o, &cause), -EOPNOTSUPP);
	assert_int_equal(s.step, RUN_STEP_DOCTOR);
	assert_non_null(strstr(cause, "no widget here"));
	free(cause);
	run_session_fini(&s);
	assert_int_not_equal(stat(f->json, &st), 0);
}

/* An unwritable place fails at init, before the lab measures. */
static void test_save_place_first(void **state)
{
	struct fixture *f = *state;
	struct run_opts o = opts_of(f);
	struct run_session s;
	char *cause = NULL;

	o.json_path = "/proc/version/nope.json";
	assert_int_not_equal(run_session_init(&s, &o, &cause), 0);
	assert_int_equal(s.step, RUN_STEP_SAVE);
	assert_non_null(cause);
	free(cause);
	run_session_fini(&s);
	assert_int_equal(fake.runs, 0);
}

static json_t *load(const char *path)
{
	json_error_t err;
	json_t *doc = json_load_file(path, 0, &err);

	assert_non_null(doc);
	return doc;
}

/* exec, then save: the document has the views, the prediction and its measurement. */
static void test_exec_and_save(void **state)
{
	struct fixture *f = *state;
	struct run_opts o = opts_of(f);
	struct run_session s;
	char *cause = NULL;
	json_t *doc, *preds, *p = NULL;
	size_t i;

	assert_int_equal(rt_progress_update(f->progress, set_progress, NULL, &cause), 0);
	assert_int_equal(lab_answer_set(f->progress, "latency", "Q1", "because", &cause), 0);
	assert_int_equal(run_session_init(&s, &o, &cause), 0);
	assert_int_equal(s.step, RUN_STEP_READY);
	assert_int_equal(run_session_exec(&s, &cause), 0);
	assert_int_equal(fake.seed, 42);
	assert_true(fake.had_journal);
	assert_int_equal(run_session_save(&s, false, &cause), 0);
	assert_string_equal(s.path, f->json);
	assert_null(s.missed);
	run_session_fini(&s);

	doc = load(f->json);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
		json_object_get(doc, "views"), 0), "name")), "only");
	preds = json_object_get(json_object_get(doc, "extra"), "predictions");
	json_array_foreach(preds, i, p)
		if (!strcmp(json_string_value(json_object_get(p, "id")), "predict-load-other"))
			break;
	assert_true(i < json_array_size(preds));
	assert_true(json_number_value(json_object_get(p, "predicted")) == 250);
	assert_true(json_number_value(json_object_get(p, "measured")) == 321);
	assert_true(json_number_value(json_object_get(json_object_get(doc, "answers"),
		"predict.03.predict-load-other")) == 250);
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "answers"),
		"Q1")), "because");
	json_decref(doc);
}

/* A SIGINT during exec sets the run's stop flag and is remembered; the process lives. */
static void test_exec_sigint_stops(void **state)
{
	struct fixture *f = *state;
	struct run_opts o = opts_of(f);
	struct run_session s;
	char *cause = NULL;

	fake.raise_sigint = true;
	assert_int_equal(run_session_init(&s, &o, &cause), 0);
	assert_int_equal(run_session_exec(&s, &cause), 0);
	assert_true(fake.saw_stop);
	assert_int_equal(s.stop_signal, SIGINT);
	assert_true(run_session_interrupted(&s));
	run_session_fini(&s);
}

/* A run that fails leaves no document, and save says so. */
static void test_failed_run(void **state)
{
	struct fixture *f = *state;
	struct run_opts o = opts_of(f);
	struct run_session s;
	char *cause = NULL;

	fake.fail = true;
	assert_int_equal(run_session_init(&s, &o, &cause), 0);
	assert_int_equal(run_session_exec(&s, &cause), -EIO);
	free(cause);
	cause = NULL;
	assert_int_equal(run_session_save(&s, false, &cause), -ENODATA);
	free(cause);
	run_session_fini(&s);
}

/* The worker form: start, poll until done, join, save. */
static void test_worker(void **state)
{
	struct fixture *f = *state;
	struct run_opts o = opts_of(f);
	struct run_session s;
	char *cause = NULL;
	uint64_t deadline;

	assert_int_equal(run_session_init(&s, &o, &cause), 0);
	assert_int_equal(run_session_start(&s, &cause), 0);
	assert_non_null(s.ctx.journal);
	/* A bound against a hang only: the run's thread may wait long for a CPU. */
	deadline = rt_time_deadline_ms(60000);
	while (!run_session_done(&s) && !rt_time_passed(deadline))
		rt_time_sleep_ms(1, NULL);
	assert_true(run_session_done(&s));
	assert_int_equal(run_session_join(&s), 0);
	assert_non_null(run_session_result(&s));
	assert_int_equal(run_session_save(&s, false, &cause), 0);
	/* A second save writes the same file again. */
	assert_int_equal(run_session_save(&s, false, &cause), 0);
	assert_string_equal(s.path, f->json);
	run_session_fini(&s);
	assert_int_equal(fake.runs, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_planned_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_tier, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_place_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_and_save, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_sigint_stops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_worker, setup, teardown),
	};

	rtlab_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
