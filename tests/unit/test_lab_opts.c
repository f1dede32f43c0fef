/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for lab_opts, the table-driven reader of a lab's options: a
 * scratch lab with one option of every kind (values stored where the table
 * says, last one wins, --no-X flags, short names, set() callbacks), the
 * table check refusing malformed tables, every option of the latency and
 * ftrace labs parsed through lab_args_parse() (and the same result as the
 * TUI's typed parsers), a bad value of each refused with a cause naming
 * the option, the rules across options, --seed/--json/--help for every
 * lab, the seed recorded in a document, and --help and the man section
 * printed from the tables.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_env.h"
#include "core/rt_load.h"
#include "core/rt_result.h"
#include "labs/lab.h"
#include "labs/lab_ftrace.h"
#include "labs/lab_latency.h"

#define MAX_ARGS 32

/* argv from a NULL-terminated list after @lab. */
static int make_argv(char **argv, const char *lab, va_list ap)
{
	int argc = 0;

	argv[argc++] = (char *)lab;
	for (char *a = va_arg(ap, char *); a && argc < MAX_ARGS - 1; a = va_arg(ap, char *))
		argv[argc++] = a;
	argv[argc] = NULL;
	return argc;
}

/* lab_args_parse() of @lab with the arguments after @cause; @a is the caller's to fini. */
static int parse(const struct lab_ops *lab, struct lab_args *a, char **cause, ...)
{
	char *argv[MAX_ARGS];
	va_list ap;
	int argc;

	va_start(ap, cause);
	argc = make_argv(argv, lab->name, ap);
	va_end(ap);
	return lab_args_parse(lab, argc, argv, a, cause);
}

/* The cause of a refused command line contains @part; it is freed. */
static void refused_with(const struct lab_ops *lab, const char *part, ...)
{
	struct lab_args a;
	char *argv[MAX_ARGS], *cause = NULL;
	va_list ap;
	int argc, ret;

	va_start(ap, part);
	argc = make_argv(argv, lab->name, ap);
	va_end(ap);
	ret = lab_args_parse(lab, argc, argv, &a, &cause);
	if (ret != -EINVAL || !cause || !strstr(cause, part))
		fail_msg("%s %s...: got %d, \"%s\", wanted a cause with \"%s\"", lab->name,
			 argc > 1 ? argv[1] : "", ret, cause ? cause : "(none)", part);
	free(cause);
	lab_args_fini(lab, &a);
}

/* ---- A scratch lab with every kind ------------------------------------------------ */

struct scratch {
	bool flag, on;
	unsigned int count;
	uint64_t big;
	unsigned int wait_us;
	unsigned int cpus[4], ncpus;
	int color;
	char label[8];
	double ratio;
	char list[64];
	unsigned int sets;
	bool checked;
};

static const char *const colors[] = { "red", "green", "blue", NULL };

static int scratch_add(void *params, const char *value, char **cause)
{
	struct scratch *s = params;

	if (!strcmp(value, "bad")) {
		*cause = strdup("--add: not that one");
		return -EINVAL;
	}
	strncat(s->list, value, sizeof(s->list) - strlen(s->list) - 1);
	s->sets++;
	return 0;
}

static void scratch_init(void *params)
{
	struct scratch *s = params;

	s->on = true;
	s->count = 3;
	s->color = -1;
}

static int scratch_check(void *params, char **cause)
{
	struct scratch *s = params;

	s->checked = true;
	if (s->flag && s->count == 0) {
		*cause = strdup("--flag needs --count above 0");
		return -EINVAL;
	}
	return 0;
}

#define AT(f) LAB_OPT_AT(struct scratch, f)

static const struct lab_option scratch_options[] = {
	{ .name = "flag", .short_name = 'f', .kind = LAB_OPT_FLAG, AT(flag), .help = "A flag." },
	{ .name = "no-on", .kind = LAB_OPT_FLAG, .off = true, AT(on), .help = "Off." },
	{ .name = "count", .short_name = 'c', .kind = LAB_OPT_UINT, AT(count), .max = 10,
	  .help = "A count.", .defval = "3" },
	{ .name = "big", .kind = LAB_OPT_U64, AT(big), .min = 5, .max = UINT64_MAX,
	  .help = "Big." },
	{ .name = "wait", .kind = LAB_OPT_DURATION, AT(wait_us), .min = 1000, .max = 2000000000,
	  .unit_ns = 1000, .help = "A wait." },
	{ .name = "cpus", .kind = LAB_OPT_CPUS, AT(cpus), .max = 16,
	  .count_offset = offsetof(struct scratch, ncpus), .help = "CPUs." },
	{ .name = "color", .kind = LAB_OPT_ENUM, .values = colors, AT(color),
	  .help = "A color." },
	{ .name = "label", .kind = LAB_OPT_STRING, AT(label), .help = "A label." },
	{ .name = "ratio", .kind = LAB_OPT_DECIMAL, AT(ratio), .dmin = 0, .dmax = 1,
	  .help = "A ratio." },
	{ .name = "add", .kind = LAB_OPT_STRING, .set = scratch_add, .help = "Add to a list." },
	{ .name = NULL },
};

static struct lab_ops scratch_lab = {
	.name = "scratch",
	.title = "A scratch lab",
	.state = LAB_STATE_READY,
	.options = scratch_options,
	.params_size = sizeof(struct scratch),
	.params_init = scratch_init,
	.params_check = scratch_check,
};

static void test_every_kind(void **state)
{
	struct lab_args a;
	struct scratch *s;
	char *cause = NULL;

	(void)state;
	assert_int_equal(parse(&scratch_lab, &a, &cause, NULL), 0);
	s = a.params;
	assert_true(s->on && !s->flag && s->count == 3 && s->color == -1 && s->checked);
	lab_args_fini(&scratch_lab, &a);
	assert_null(a.params);

	assert_int_equal(parse(&scratch_lab, &a, &cause, "-f", "--no-on", "-c", "9", "--count=4",
			       "--big", "18446744073709551615", "--wait", "1500us", "--cpus",
			       "3,0-1", "--color=blue", "--label", "seven77", "--ratio", "0.25",
			       "--add", "a", "--add=b", NULL), 0);
	assert_null(cause);
	s = a.params;
	assert_true(s->flag);
	assert_false(s->on);
	assert_int_equal(s->count, 4);	/* the last one wins */
	assert_true(s->big == UINT64_MAX);
	assert_int_equal(s->wait_us, 1500);
	assert_int_equal(s->ncpus, 3);
	assert_int_equal(s->cpus[0], 3);
	assert_int_equal(s->color, 2);
	assert_string_equal(s->label, "seven77");
	assert_true(s->ratio == 0.25);
	assert_string_equal(s->list, "ab");	/* set() sees every one */
	assert_int_equal(s->sets, 2);
	lab_args_fini(&scratch_lab, &a);
}

static void test_every_kind_refused(void **state)
{
	/* The cause wanted, then the arguments. */
	static const char *const cases[][5] = {
		{ "--count: \"x\" is not a whole number", "--count", "x" },
		{ "--count: 11 is out of range (0..10)", "-c", "11" },
		{ "--big: 4 is out of range", "--big", "4" },
		{ "--wait: 1500ns is not a whole number of microseconds", "--wait", "1500ns" },
		{ "--wait: 3s is out of range (1us to 2s)", "--wait", "3s" },
		{ "--cpus: more than 4 CPUs", "--cpus", "0-4" },
		{ "--cpus: CPU 16 is too high", "--cpus", "16" },
		{ "--color: expected red, green or blue, got \"pink\"", "--color", "pink" },
		{ "--label: at most 7 characters", "--label", "eight888" },
		{ "--ratio: 2 is out of range", "--ratio", "2" },
		{ "--add: not that one", "--add", "bad" },
		{ "--flag takes no value", "--flag=1" },
		{ "--count needs a value", "--count" },
		{ "unknown option \"--bogus\" (see `rtlab lab run scratch --help`)", "--bogus=3" },
		{ "unknown option \"-x\"", "-x" },
		{ "unexpected argument \"stray\"", "stray" },
		{ "unexpected argument \"-\"", "-" },
		{ "--flag needs --count above 0", "--flag", "--count", "0" },	/* params_check */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		refused_with(&scratch_lab, cases[i][0], cases[i][1], cases[i][2], cases[i][3],
			     cases[i][4], NULL);
}

static void test_table_check(void **state)
{
	/* Each a table of its own, of one option (dup: of two). */
	static const struct lab_option bad[] = {
		{ .name = "seed", .kind = LAB_OPT_U64, AT(big), .help = "reserved" },
		{ .name = "hat", .short_name = 'h', .kind = LAB_OPT_FLAG, AT(flag), .help = "-h" },
		{ .name = "n", .kind = LAB_OPT_U64, AT(count), .help = "wrong size" },
		{ .name = "Big", .kind = LAB_OPT_FLAG, AT(flag), .help = "upper case" },
		{ .name = "n", .kind = LAB_OPT_FLAG, AT(flag) },
		{ .name = "n", .kind = LAB_OPT_UINT, AT(count), .min = 5, .max = 4, .help = "range" },
		{ .name = "n", .kind = LAB_OPT_DURATION, AT(wait_us), .max = 10, .unit_ns = 7,
		  .help = "unit" },
		{ .name = "n", .kind = LAB_OPT_ENUM, AT(color), .help = "no words" },
		{ .name = "n", .kind = LAB_OPT_FLAG, AT(flag), .help = "two\nlines" },
		{ .name = "a", .kind = LAB_OPT_FLAG, AT(flag), .help = "dup" },
	};
	size_t nbad = sizeof(bad) / sizeof(bad[0]);
	struct lab_ops lab = scratch_lab;
	struct lab_args a;
	char *cause = NULL;

	(void)state;
	for (size_t i = 0; i < nbad; i++) {
		struct lab_option t[3] = { bad[i], bad[i], { .name = NULL } };

		if (i != nbad - 1)
			t[1].name = NULL;	/* only the last is given twice */
		lab.options = t;
		assert_int_equal(lab_opts_table_check(&lab, &cause), -EINVAL);
		assert_non_null(cause);
		assert_non_null(strstr(cause, "scratch: "));
		free(cause);
		cause = NULL;
		/* and the parser will not use it */
		assert_int_equal(parse(&lab, &a, &cause, NULL), -EINVAL);
		free(cause);
		cause = NULL;
		lab_args_fini(&lab, &a);
	}
	/* A field beyond the params block. */
	lab = scratch_lab;
	lab.params_size = offsetof(struct scratch, ratio);
	assert_int_equal(lab_opts_table_check(&lab, NULL), -EINVAL);

	for (const struct lab_ops *const *l = lab_table; *l; l++) {
		if (lab_opts_table_check(*l, &cause))
			fail_msg("%s", cause);
	}
}

#undef AT

/* ---- Every lab: --seed, --json, --help -------------------------------------------- */

static void test_common_options(void **state)
{
	struct lab_args a;
	char *cause = NULL;

	(void)state;
	for (const struct lab_ops *const *l = lab_table; *l; l++) {
		const struct lab_ops *lab = *l;

		assert_int_equal(parse(lab, &a, &cause, "--seed", "42", "--json", "out.json",
				       NULL), 0);
		assert_true(a.seed_given && a.seed == 42);
		assert_string_equal(a.json_path, "out.json");
		assert_false(a.help);
		assert_true(lab->params_size ? a.params != NULL : a.params == NULL);
		lab_args_fini(lab, &a);

		assert_int_equal(parse(lab, &a, &cause, "--seed=18446744073709551615",
				       "--json=x", NULL), 0);
		assert_true(a.seed == UINT64_MAX);
		assert_string_equal(a.json_path, "x");
		lab_args_fini(lab, &a);

		/* Not given: a seed all the same, from the clock. */
		assert_int_equal(parse(lab, &a, &cause, NULL), 0);
		assert_false(a.seed_given);
		assert_null(a.json_path);
		lab_args_fini(lab, &a);

		/* --help stops there: what follows is not read. */
		assert_int_equal(parse(lab, &a, &cause, "--help", "--bogus", NULL), 0);
		assert_true(a.help);
		lab_args_fini(lab, &a);
		assert_int_equal(parse(lab, &a, &cause, "-h", NULL), 0);
		assert_true(a.help);
		lab_args_fini(lab, &a);

		refused_with(lab, "--seed: \"x\" is not a whole number", "--seed", "x", NULL);
		refused_with(lab, "--seed: \"-1\" is not a whole number", "--seed", "-1", NULL);
		refused_with(lab, "--seed: 18446744073709551616 is out of range", "--seed",
			     "18446744073709551616", NULL);
		refused_with(lab, "--seed needs a value", "--seed", NULL);
		refused_with(lab, "--json needs a value", "--json", NULL);
		refused_with(lab, "--json: expected a file name", "--json=", NULL);
		refused_with(lab, "--help takes no value", "--help=1", NULL);
	}
	assert_null(cause);
}

static void test_seed_from_clock(void **state)
{
	uint64_t a = lab_seed_from_clock(), b = lab_seed_from_clock();

	(void)state;
	assert_true(a != b);	/* nanoseconds apart, and mixed */
}

static void test_seed_recorded(void **state)
{
	static const struct rt_env env = { 0 };
	struct rt_result *res = rt_result_new("latency", "host", &env);
	const char *s = NULL;

	(void)state;
	assert_non_null(res);
	assert_int_equal(lab_seed_record(res, UINT64_MAX), 0);
	assert_int_equal(rt_result_param_str(res, "seed", &s), 0);
	assert_string_equal(s, "18446744073709551615");
	assert_int_equal(lab_seed_record(res, 7), 0);
	assert_int_equal(rt_result_param_str(res, "seed", &s), 0);
	assert_string_equal(s, "7");
	rt_result_free(res);
}

/* ---- The latency lab ------------------------------------------------------------- */

static void test_latency_every_option(void **state)
{
	struct lab_args a;
	struct latency_params *p;
	char *cause = NULL;

	(void)state;
	assert_int_equal(parse(&lab_latency, &a, &cause, "--scenario", "idle-fifo",
			       "--scenario=load-fifo", "--duration", "2m", "--policy", "rr",
			       "--priority", "80", "--interval", "200", "--distance", "100",
			       "--threads", "2", "--cpus", "0", "--mlock", "--load", "cpu,msg",
			       "--hist-max", "500", "--dma-latency", "--spike", "40",
			       "--trace-marker", "60", "--seed", "9", NULL), 0);
	p = a.params;
	assert_int_equal(p->nplans, 2);
	assert_string_equal(p->plan[0].name, "idle-fifo");
	assert_string_equal(p->plan[1].name, "load-fifo");
	assert_int_equal(p->duration_ms, 120000);
	for (unsigned int i = 0; i < 2; i++) {
		assert_int_equal(p->plan[i].policy, SCHED_RR);
		assert_int_equal(p->plan[i].priority, 80);
		assert_true(p->plan[i].mlock && p->plan[i].pinned);
		assert_string_equal(p->plan[i].load, "cpu,msg");
	}
	assert_int_equal(p->interval_us, 200);
	assert_int_equal(p->distance_us, 100);
	assert_int_equal(p->threads, 2);
	assert_int_equal(p->ncpus, 1);
	assert_int_equal(p->cpus[0], 0);
	assert_int_equal(p->hist_max_us, 500);
	assert_true(p->dma_latency);
	assert_int_equal(p->spike_us, 40);
	assert_int_equal(p->trace_marker_us, 60);
	assert_false(p->custom);
	assert_true(a.seed == 9);
	lab_args_fini(&lab_latency, &a);

	/* The defaults, and the custom scenario the cyclictest-like options make. */
	assert_int_equal(parse(&lab_latency, &a, &cause, NULL), 0);
	p = a.params;
	assert_int_equal(p->nplans, 4);
	assert_int_equal(p->duration_ms, LATENCY_DEFAULT_DURATION_MS);
	lab_args_fini(&lab_latency, &a);
	assert_int_equal(parse(&lab_latency, &a, &cause, "--priority", "70", "--load", "none",
			       NULL), 0);
	p = a.params;
	assert_true(p->custom);
	assert_int_equal(p->nplans, 1);
	assert_int_equal(p->plan[0].policy, SCHED_FIFO);
	assert_int_equal(p->plan[0].priority, 70);
	assert_string_equal(p->plan[0].load, "");
	lab_args_fini(&lab_latency, &a);
	assert_null(cause);
}

/* lab_args_parse() and the TUI's latency_params_parse() read the same table. */
static void test_latency_one_way(void **state)
{
	static const char *const lines[][8] = {
		{ NULL },
		{ "--scenario", "load-fifo-mlock,idle-other", "--duration", "500ms", NULL },
		{ "--policy", "fifo", "--threads", "3", "--distance=0", "--mlock", NULL },
		{ "--load", "pagefault", "--hist-max", "100", "--spike", "5", NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		char *argv[10] = { "latency" };
		struct latency_params typed;
		struct lab_args a;
		int argc = 1;

		for (size_t k = 0; lines[i][k]; k++)
			argv[argc++] = (char *)lines[i][k];
		assert_int_equal(latency_params_parse(argc, argv, &typed, NULL), 0);
		assert_int_equal(lab_args_parse(&lab_latency, argc, argv, &a, NULL), 0);
		assert_memory_equal(a.params, &typed, sizeof(typed));
		lab_args_fini(&lab_latency, &a);
	}
}

static void test_latency_refused(void **state)
{
	(void)state;
	refused_with(&lab_latency, "--scenario: unknown scenario \"nope\"", "--scenario", "nope",
		     NULL);
	refused_with(&lab_latency, "--scenario: \"idle-other\" named twice", "--scenario",
		     "idle-other,idle-other", NULL);
	refused_with(&lab_latency, "--scenario: expected NAME[,NAME]", "--scenario", "a,", NULL);
	refused_with(&lab_latency, "--duration: expected a duration", "--duration", "ten",
		     NULL);
	refused_with(&lab_latency, "--duration: 2d is out of range (1ms to 1d)", "--duration",
		     "2d", NULL);
	refused_with(&lab_latency, "--duration: 1500us is not a whole number of milliseconds",
		     "--duration", "1500us", NULL);
	refused_with(&lab_latency, "--policy: expected other, fifo, rr or deadline", "--policy",
		     "edf", NULL);
	refused_with(&lab_latency, "--priority: 100 is out of range (1..99)", "--priority",
		     "100", NULL);
	refused_with(&lab_latency, "--interval: 0 is out of range", "--interval", "0", NULL);
	refused_with(&lab_latency, "--distance: \"-5\" is not a whole number", "--distance",
		     "-5", NULL);
	refused_with(&lab_latency, "--threads: 65 is out of range (1..64)", "--threads", "65",
		     NULL);
	refused_with(&lab_latency, "--cpus: expected a CPU list", "--cpus", "x", NULL);
	refused_with(&lab_latency, "--cpus: CPU 1024 is too high", "--cpus", "1024", NULL);
	refused_with(&lab_latency, "--cpus: CPU 1023 is not online here", "--cpus", "1023",
		     NULL);
	refused_with(&lab_latency, "--mlock takes no value", "--mlock=yes", NULL);
	refused_with(&lab_latency, "--load: unknown load \"bogus\"", "--load", "bogus", NULL);
	refused_with(&lab_latency, "--load: \"cpu\" named twice", "--load", "cpu,cpu", NULL);
	refused_with(&lab_latency, "--load: expected NAME[,NAME] or none", "--load", "", NULL);
	refused_with(&lab_latency, "--hist-max: 0 is out of range", "--hist-max", "0", NULL);
	refused_with(&lab_latency, "--dma-latency takes no value", "--dma-latency=1", NULL);
	refused_with(&lab_latency, "--spike: 0 is out of range", "--spike", "0", NULL);
	refused_with(&lab_latency, "--trace-marker: \"1ms\" is not a whole number",
		     "--trace-marker", "1ms", NULL);
	refused_with(&lab_latency, "unknown option \"--bogus\"", "--bogus", NULL);
	/* The rules across options. */
	refused_with(&lab_latency, "--priority needs --policy fifo or rr", "--policy", "other",
		     "--priority", "5", NULL);
	refused_with(&lab_latency, "below the 50 us minimum", "--policy", "fifo", "--interval",
		     "10", NULL);
	refused_with(&lab_latency, "below the 50 us minimum", "--scenario", "idle-fifo",
		     "--interval", "49", NULL);
	refused_with(&lab_latency, "must stay within 1 s", "--interval", "900000", "--threads",
		     "2", "--distance=200000", NULL);
}

/* ---- The ftrace lab --------------------------------------------------------------- */

static void test_ftrace_every_option(void **state)
{
	struct lab_args a;
	struct ftrace_params *p;
	char *cause = NULL;

	(void)state;
	assert_int_equal(parse(&lab_ftrace, &a, &cause, "--mode", "tracer", "--tracer",
			       "preemptoff", "--threshold", "250", "--no-function-trace", "--hunt",
			       "--duration", "2m", "--no-cross-check", "--no-busy", "--seed", "73",
			       NULL), 0);
	p = a.params;
	assert_int_equal(p->mode, FTRACE_MODE_TRACER);
	assert_string_equal(p->tracer, "preemptoff");
	assert_int_equal(p->threshold_us, 250);
	assert_false(p->function_trace);
	assert_true(p->hunt);
	assert_int_equal(p->duration_ms, 120000);
	assert_false(p->cross_check);
	assert_false(p->busy);
	/* Through lab_args_parse() the seed is the front end's (lab_ctx.seed). */
	assert_true(a.seed_given && a.seed == 73);
	lab_args_fini(&lab_ftrace, &a);

	/* --tracer alone means tracer mode; nothing means events. */
	assert_int_equal(parse(&lab_ftrace, &a, &cause, "--tracer=wakeup_dl", NULL), 0);
	p = a.params;
	assert_int_equal(p->mode, FTRACE_MODE_TRACER);
	assert_string_equal(p->tracer, "wakeup_dl");
	lab_args_fini(&lab_ftrace, &a);
	assert_int_equal(parse(&lab_ftrace, &a, &cause, NULL), 0);
	p = a.params;
	assert_int_equal(p->mode, FTRACE_MODE_EVENTS);
	assert_string_equal(p->tracer, "");
	assert_true(p->function_trace && p->cross_check && p->busy && !p->hunt);
	assert_int_equal(p->duration_ms, FTRACE_DEFAULT_DURATION_MS);
	lab_args_fini(&lab_ftrace, &a);

	/* --seed without --hunt is fine now: every lab takes it. */
	assert_int_equal(parse(&lab_ftrace, &a, &cause, "--seed", "5", NULL), 0);
	lab_args_fini(&lab_ftrace, &a);
	assert_null(cause);
}

static void test_ftrace_refused(void **state)
{
	(void)state;
	refused_with(&lab_ftrace, "--mode: expected events or tracer, got \"both\"", "--mode",
		     "both", NULL);
	refused_with(&lab_ftrace, "--tracer: expected irqsoff, preemptoff, preemptirqsoff, "
		     "wakeup, wakeup_rt or wakeup_dl, got \"function\"", "--tracer", "function",
		     NULL);
	refused_with(&lab_ftrace, "--threshold: 10000001 is out of range (0..10000000)",
		     "--threshold", "10000001", NULL);
	refused_with(&lab_ftrace, "--no-function-trace takes no value", "--no-function-trace=0",
		     NULL);
	refused_with(&lab_ftrace, "--hunt takes no value", "--hunt=1", NULL);
	refused_with(&lab_ftrace, "--duration: 11m is out of range (1ms to 10m)", "--duration",
		     "11m", NULL);
	refused_with(&lab_ftrace, "--duration: 0s is out of range", "--duration", "0s", NULL);
	refused_with(&lab_ftrace, "--no-cross-check takes no value", "--no-cross-check=x", NULL);
	refused_with(&lab_ftrace, "--no-busy takes no value", "--no-busy=0", NULL);
	refused_with(&lab_ftrace, "--tracer needs --mode tracer", "--mode", "events", "--tracer",
		     "irqsoff", NULL);
}

/* ---- --help and the man page ------------------------------------------------------ */

static const char *const test_mode_names[] = { "flush", "guaranteed", "best-effort", NULL };

/* lab_opts_names() refuses @value; @want is its message, or NULL for any. */
static void names_refused(const char *value, bool all, const char *want)
{
	uint32_t mask = 99;
	char *cause = NULL;

	assert_int_equal(lab_opts_names("--mode", "mode", value, test_mode_names, all, &mask,
					&cause), -EINVAL);
	assert_non_null(cause);
	if (want)
		assert_string_equal(cause, want);
	free(cause);
}

/* lab_opts_names: a list of names as a bit set, every refusal named. */
static void test_names(void **state)
{
	uint32_t mask = 99;
	char *cause = NULL;

	(void)state;
	assert_int_equal(lab_opts_names("--mode", "mode", "best-effort,flush", test_mode_names,
					true, &mask, &cause), 0);
	assert_int_equal(mask, 5);
	assert_int_equal(lab_opts_names("--mode", "mode", "all", test_mode_names, true, &mask,
					&cause), 0);
	assert_int_equal(mask, 7);
	assert_int_equal(lab_opts_names("--mode", "mode", "guaranteed,guaranteed",
					test_mode_names, false, &mask, &cause), 0);
	assert_int_equal(mask, 2);
	assert_null(cause);

	names_refused("all", false, "--mode: no mode called 'all' (flush, guaranteed or "
		      "best-effort)");
	names_refused("flush,fast", true, "--mode: no mode called 'fast' (flush, guaranteed, "
		      "best-effort or all)");
	names_refused("guarantee", true, NULL);	/* a prefix of a name is not the name */
	names_refused("flush,,guaranteed", true,
		      "--mode: an empty name in the list 'flush,,guaranteed'");
	names_refused("", true, "--mode: name at least one mode");
}

static void test_help(void **state)
{
	struct rt_buf b = RT_BUF_INIT;
	const char *text;

	(void)state;
	for (const struct lab_ops *const *l = lab_table; *l; l++) {
		rt_buf_reset(&b);
		assert_int_equal(lab_opts_help(*l, &b), 0);
		text = rt_buf_str(&b);
		assert_non_null(strstr(text, "usage: rtlab lab run "));
		assert_non_null(strstr(text, (*l)->name));
		assert_non_null(strstr(text, "  --seed N "));
		assert_non_null(strstr(text, "  --json FILE "));
		assert_non_null(strstr(text, "  -h, --help "));
		for (const struct lab_option *o = (*l)->options; o && o->name; o++) {
			char head[64];

			snprintf(head, sizeof(head), "  --%s", o->name);
			if (!strstr(text, head))
				fail_msg("%s --help has no %s", (*l)->name, head);
		}
		/* Every line fits 79 columns. */
		for (const char *p = text; *p;) {
			size_t len = strcspn(p, "\n");

			if (len > 79)
				fail_msg("%s --help: a line of %zu columns: %.*s", (*l)->name, len,
					 (int)len, p);
			p += len + (p[len] == '\n');
		}
	}
	rt_buf_reset(&b);
	assert_int_equal(lab_opts_help(&lab_latency, &b), 0);
	text = rt_buf_str(&b);
	/* a long head: own line */
	assert_non_null(strstr(text, "  --policy other|fifo|rr|deadline\n"));
	assert_non_null(strstr(text, "Default: 15s."));
	assert_non_null(strstr(text, "called custom"));	/* the note */
	rt_buf_fini(&b);
}

/* The prose lists in the tables name every scenario and every load generator. */
static void test_help_names_every_choice(void **state)
{
	const struct lab_option *scen = NULL, *load = NULL;
	char names[512], *save = NULL;

	(void)state;
	for (const struct lab_option *o = latency_options; o->name; o++) {
		if (!strcmp(o->name, "scenario"))
			scen = o;
		if (!strcmp(o->name, "load"))
			load = o;
	}
	assert_non_null(scen);
	assert_non_null(load);
	for (size_t i = 0; i < latency_nscenarios; i++) {
		char word[64];

		snprintf(word, sizeof(word), " %s", latency_scenarios[i].name);
		if (!strstr(scen->help, word))
			fail_msg("--scenario's help does not name %s", latency_scenarios[i].name);
	}
	snprintf(names, sizeof(names), "%s", rt_load_names());
	for (char *t = strtok_r(names, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
		if (!strstr(load->help, t))
			fail_msg("--load's help does not name %s", t);
}

static void test_man(void **state)
{
	struct rt_buf b = RT_BUF_INIT;
	const char *text;

	(void)state;
	assert_int_equal(lab_opts_man(&b), 0);
	text = rt_buf_str(&b);
	assert_int_equal(strncmp(text, ".SH LAB OPTIONS\n", 16), 0);
	assert_non_null(strstr(text, ".SS \"latency\"\n"));
	assert_non_null(strstr(text, ".SS \"ftrace\"\n"));
	assert_non_null(strstr(text, ".SS \"hypervisor\"\n"));
	assert_non_null(strstr(text, ".BI \"\\-\\-seed\" \" N\"\n"));
	assert_non_null(strstr(text, ".B \"\\-h, \\-\\-help\"\n"));
	assert_non_null(strstr(text, ".BI \"\\-\\-policy\" \" other|fifo|rr|deadline\"\n"));
	assert_non_null(strstr(text, ".B \"\\-\\-no\\-busy\"\n"));
	/* No bare hyphen or request-looking line outside the comments. */
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");

		if (strncmp(p, ".\\\"", 3) && memchr(p, '-', len)) {
			for (size_t i = 0; i < len; i++)
				if (p[i] == '-' && (i == 0 || p[i - 1] != '\\'))
					fail_msg("unescaped '-' in: %.*s", (int)len, p);
		}
		p += len + (p[len] == '\n');
	}
	rt_buf_fini(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_kind),
		cmocka_unit_test(test_every_kind_refused),
		cmocka_unit_test(test_table_check),
		cmocka_unit_test(test_common_options),
		cmocka_unit_test(test_seed_from_clock),
		cmocka_unit_test(test_seed_recorded),
		cmocka_unit_test(test_latency_every_option),
		cmocka_unit_test(test_latency_one_way),
		cmocka_unit_test(test_latency_refused),
		cmocka_unit_test(test_ftrace_every_option),
		cmocka_unit_test(test_ftrace_refused),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_help_names_every_choice),
		cmocka_unit_test(test_man),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
