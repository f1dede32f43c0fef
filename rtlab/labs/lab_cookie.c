/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_cookie: the cookie-protocol lab (lesson 10, labs/cookie/README.md).
 * Diners share a plate of cookies by a protocol, on real threads with
 * Concurrency Kit (lab_cookie_threads.c, lab_cookie_prio.c), and the
 * replay (sim/sim_cookie.c) finds, by itself, the shortest interleavings
 * on which the broken protocol loses a cookie and eats one twice, and
 * replays them against the uni-directional plate.
 *
 * A run without --protocol runs the four table protocols one after the
 * other (uni-directional, ticket, greedy, broken), then the four priority
 * protocols when SCHED_FIFO is allowed (a note says what is missing
 * otherwise); --protocol runs one. Each protocol run is a named scenario
 * of extra.scenarios, named like the protocol, with its figures; the two
 * replays are the scenarios replay-broken and replay-uni. The summary
 * holds the figures of the first protocol run under plain keys
 * (produced_count, consumed_count, lost_count, duplicated_count,
 * fairness_jain_ratio, throughput_hz, and wait_max_us for a priority
 * protocol) and every protocol's under its prefix (greedy_throughput_hz).
 */
#include "lab.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_err.h"
#include "core/rt_hist.h"
#include "core/rt_json.h"
#include "core/rt_log.h"
#include "core/rt_result.h"
#include "core/rt_sink.h"
#include "core/rt_keys.h"
#include "lab_cookie.h"
#include "sim/sim_cookie.h"

#define COOKIE_DINERS_DEFAULT 4u
#define COOKIE_DURATION_MS_DEFAULT 1000u
#define COOKIE_COOKIES_DEFAULT 10000000ull
#define PRIO_WATCHDOG_NS 200000000ull	/* the ticket spinner's rescue after 200 ms */
#define PRIO_HOLD_NS 300000ull
#define PRIO_BURST_NS 8000000ull
#define REPLAY_MAX_LEN 10u

/* ---- Options ------------------------------------------------------------------------ */

static void params_default(void *params)
{
	struct cookie_params *p = params;

	memset(p, 0, sizeof(*p));
	p->protocol = COOKIE_UNI;
	p->diners = COOKIE_DINERS_DEFAULT;
	p->duration_ms = COOKIE_DURATION_MS_DEFAULT;
	p->cookies = COOKIE_COOKIES_DEFAULT;
}

static int set_protocol(void *params, const char *value, char **cause)
{
	struct cookie_params *p = params;

	for (int i = 0; i < COOKIE_NPROTOCOLS; i++) {
		if (!strcmp(value, cookie_protocol_names[i])) {
			p->protocol = i;
			p->protocol_given = true;
			return 0;
		}
	}
	return rt_err(cause, -EINVAL, "--protocol: no protocol called '%s' (uni-directional, "
		      "ticket, greedy, broken, priority-inherit, priority-plain, "
		      "priority-ticket or priority-ceiling)", value);
}

#define P(f) LAB_OPT_AT(struct cookie_params, f)
static const struct lab_option cookie_options[] = {
	{ .name = "protocol", .kind = LAB_OPT_STRING, .set = set_protocol,
	  .metavar = "NAME",
	  .help = "Run this protocol only: uni-directional, ticket, greedy, broken, "
		  "priority-inherit, priority-plain, priority-ticket or priority-ceiling (default: the four "
		  "table protocols, then the four priority ones when SCHED_FIFO is allowed). uni-directional passes "
		  "the plate round in seat order through a wait-free SPSC ring; ticket and "
		  "greedy lock the plate with ck_spinlock_ticket and ck_spinlock_fas; broken "
		  "locks nothing; the priority protocols put a low holder, a medium hog and a "
		  "high waiter at SCHED_FIFO on one CPU around a PI mutex, a plain mutex, "
		  "the ticket lock or a priority-ceiling mutex (root)." },
	{ .name = "diners", .kind = LAB_OPT_UINT, .metavar = "N", P(diners), .min = 2,
	  .max = COOKIE_DINERS_MAX,
	  .help = "Diners at the table (threads); fairness needs at least 4.", .defval = "4" },
	{ .name = "duration", .kind = LAB_OPT_DURATION, .metavar = "D", P(duration_ms),
	  .min = 10000000ull, .max = 600000000000ull, .unit_ns = 1000000,
	  .help = "How long each protocol runs (10ms .. 10m).", .defval = "1s" },
	{ .name = "cookies", .kind = LAB_OPT_U64, .metavar = "N", P(cookies), .min = 2,
	  .max = COOKIE_COOKIES_MAX,
	  .help = "Stop a table protocol after this many cookies are baked, if its time is "
		  "not up first (2 bytes of tally a cookie).", .defval = "10000000" },
	{ .name = NULL },
};
#undef P

static int cookie_check_caps(struct lab_ctx *ctx, char **cause)
{
	const struct cookie_params *p = ctx->params;

	if (p && p->protocol_given && cookie_protocol_is_prio(p->protocol))
		return cookie_prio_can(cause);
	return 0;
}

/* ---- Figures ------------------------------------------------------------------------ */

static double pct_us(const struct rt_hist *h, unsigned int ppm)
{
	struct rt_hist_pct pct;

	return h && rt_hist_percentile(h, ppm, &pct) == 0 ? pct.value_us : 0.0;
}

static const char *const protocol_summaries[COOKIE_NPROTOCOLS] = {
	"the plate passed round in seat order through a wait-free SPSC ring",
	"ck_spinlock_ticket around the plate: first come, first served",
	"ck_spinlock_fas around the plate: whoever grabs first, again and again",
	"no exclusion: take and put race, cookies are lost and eaten twice",
	"low holder, medium hog, high waiter at SCHED_FIFO on one CPU, a PI mutex",
	"the same with a plain mutex: the hog holds the high waiter up",
	"the same with the ticket lock: the high waiter spins until the watchdog",
	"the same with a PTHREAD_PRIO_PROTECT mutex, ceiling = the high waiter's priority",
};

static json_t *table_scenario(enum cookie_protocol proto, const struct cookie_table_result *r,
			      unsigned int diners)
{
	json_t *o = json_pack("{s:s, s:s}", "name", cookie_protocol_names[proto], "summary",
			      protocol_summaries[proto]);
	json_t *eaten = json_array();
	uint64_t wmax = 0;

	if (!o || !eaten)
		goto fail;
	for (unsigned int i = 0; i < diners; i++) {
		if (json_array_append_new(eaten, json_integer((json_int_t)r->eaten[i])))
			goto fail;
		if (r->waits_max_ns[i] > wmax)
			wmax = r->waits_max_ns[i];
	}
	if (json_object_set_new(o, "diners_count", json_integer(diners)) ||
	    json_object_set_new(o, "produced_count", json_integer((json_int_t)r->produced)) ||
	    json_object_set_new(o, "consumed_count", json_integer((json_int_t)r->consumed)) ||
	    json_object_set_new(o, "lost_count", json_integer((json_int_t)r->lost)) ||
	    json_object_set_new(o, "duplicated_count", json_integer((json_int_t)r->duplicated)) ||
	    json_object_set_new(o, "left_count", json_integer((json_int_t)r->left)) ||
	    json_object_set_new(o, "handovers_count", json_integer((json_int_t)r->handovers)) ||
	    json_object_set_new(o, "fairness_jain_ratio", json_real(r->fairness)) ||
	    json_object_set_new(o, "throughput_hz", json_real(r->throughput_hz)) ||
	    json_object_set_new(o, "elapsed_s", json_real(r->elapsed_s)) ||
	    json_object_set_new(o, "handover_p50_us", json_real(pct_us(r->handover, 500000))) ||
	    json_object_set_new(o, "handover_p99_us", json_real(pct_us(r->handover, 990000))) ||
	    json_object_set_new(o, "wait_max_us", json_real((double)wmax / 1000.0)) ||
	    json_object_set_new(o, "eaten", eaten))
		goto fail_o;
	return o;
fail:
	json_decref(eaten);
fail_o:
	json_decref(o);
	return NULL;
}

static json_t *prio_scenario(enum cookie_protocol proto, const struct cookie_prio_result *r)
{
	return json_pack("{s:s, s:s, s:I, s:f, s:f, s:f, s:I, s:I, s:b, s:f, s:f, s:I}",
			 "name", cookie_protocol_names[proto], "summary", protocol_summaries[proto],
			 "high_waits_count", (json_int_t)r->high_waits,
			 "wait_max_us", (double)r->wait_max_ns / 1000.0,
			 "wait_avg_us", r->high_waits ? (double)r->wait_sum_ns / 1000.0 /
							 (double)r->high_waits : 0.0,
			 "wait_p99_us", pct_us(r->wait, 990000),
			 "hog_bursts_count", (json_int_t)r->hog_bursts,
			 "low_holds_count", (json_int_t)r->low_holds,
			 "watchdog", r->watchdog_fired,
			 "watchdog_after_ms", (double)r->watchdog_after_ns / 1e6,
			 "elapsed_s", r->elapsed_s, "cpu_count", (json_int_t)r->cpu);
}

/* The replays: the shortest losing schedule of the broken plate, then the same on the uni one. */
static int replay_scenarios(json_t *scens, unsigned int seats)
{
	uint8_t sched[REPLAY_MAX_LEN];
	char text[REPLAY_MAX_LEN + 1];
	size_t n = 0;
	int ret;

	seats = seats > COOKIE_STEP_SEATS_MAX ? COOKIE_STEP_SEATS_MAX : seats;
	ret = sim_cookie_find_bad(SIM_COOKIE_BROKEN, 2, REPLAY_MAX_LEN, COOKIE_BAD_LOST, sched, &n);
	if (ret < 0)
		return ret;
	if (ret == 0)
		return -EPROTO;	/* the broken plate must lose one */
	for (size_t i = 0; i < n; i++)
		text[i] = (char)('0' + sched[i]);
	text[n] = 0;
	for (int p = SIM_COOKIE_BROKEN; p <= SIM_COOKIE_UNI; p++) {
		struct sim_cookie_scenario sc = { .proto = p, .seats = 2, .steps = n,
						  .schedule = sched };
		struct sim *s = NULL;
		char *cause = NULL;
		const struct cookie_step *st;
		json_t *o;

		ret = sim_new(&sim_cookie_model, &sc, 0, &s, &cause);
		free(cause);
		if (ret)
			return ret;
		sim_run(s, SIM_STEPS_ALL, NULL);
		st = sim_cookie_table(sim_state(s));
		o = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I}",
			      "name", p == SIM_COOKIE_BROKEN ? "replay-broken" : "replay-uni",
			      "summary", p == SIM_COOKIE_BROKEN ?
			      "the shortest schedule on which the broken plate loses a cookie "
			      "(found by the exhaustive search)" :
			      "the same schedule against the uni-directional plate",
			      "protocol", sim_cookie_proto_name(p), "schedule", text,
			      "steps_count", (json_int_t)st->steps,
			      "produced_count", (json_int_t)st->produced,
			      "consumed_count", (json_int_t)st->consumed,
			      "lost_count", (json_int_t)st->lost,
			      "duplicated_count", (json_int_t)st->duplicated);
		sim_free(s);
		if (!o || json_array_append_new(scens, o))
			return -ENOMEM;
	}
	return 0;
}

/* The first protocol's figures under plain keys, every one's under its prefix. */
static int set_summary(struct rt_result *res, json_t *scens)
{
	static const char *const keys[] = {
		"produced_count", "consumed_count", "lost_count", "duplicated_count",
		"fairness_jain_ratio", "throughput_hz", "handover_p99_us", "wait_max_us",
		"wait_avg_us", NULL,
	};
	bool first = true;
	json_t *s;
	size_t i;
	int ret = 0;

	json_array_foreach(scens, i, s) {
		const char *name = json_string_value(json_object_get(s, "name"));
		char prefix[32], key[96];

		if (!name || !strncmp(name, "replay-", 7))
			continue;
		snprintf(prefix, sizeof(prefix), "%s", name);
		for (char *c = prefix; *c; c++)
			if (*c == '-')
				*c = '_';
		for (int k = 0; !ret && keys[k]; k++) {
			json_t *v = json_object_get(s, keys[k]);

			if (!json_is_number(v))
				continue;
			if (first)
				ret = rt_result_set_summary(res, keys[k], json_number_value(v));
			snprintf(key, sizeof(key), "%s_%s", prefix, keys[k]);
			ret = ret ?: rt_result_set_summary(res, key, json_number_value(v));
		}
		first = false;
	}
	return ret;
}

/* ---- The run ------------------------------------------------------------------------- */

static int cookie_run(struct lab_ctx *ctx, const struct rt_sink *sink, struct lab_result *out)
{
	struct cookie_params defaults;
	const struct cookie_params *p = ctx->params;
	json_t *scens = json_array();
	struct rt_result *res = NULL;
	char *cause = NULL, what[96];
	bool prio_ok = true;
	int ret, first, last, nruns, done = 0;

	memset(out, 0, sizeof(*out));
	if (!p) {
		params_default(&defaults);
		p = &defaults;
	}
	first = p->protocol_given ? p->protocol : COOKIE_UNI;
	last = p->protocol_given ? p->protocol : COOKIE_NPROTOCOLS - 1;
	if (!p->protocol_given && cookie_prio_can(&cause)) {
		prio_ok = false;
		last = COOKIE_BROKEN;
	}
	nruns = last - first + 1;
	res = rt_result_new("cookie", ctx->tier ? ctx->tier : "host", ctx->env);
	if (!scens || !res) {
		ret = -ENOMEM;
		goto out;
	}
	ret = lab_seed_record(res, ctx->seed) ?:
	      rt_result_set_param_str(res, "protocol", p->protocol_given ?
				      cookie_protocol_names[p->protocol] : "all") ?:
	      rt_result_set_param_num(res, "diners", p->diners) ?:
	      rt_result_set_param_num(res, "duration_ms", p->duration_ms) ?:
	      rt_result_set_param_num(res, "cookies", (double)p->cookies);
	if (!ret && !prio_ok)
		ret = rt_result_add_note(res, "the priority protocols were not run: ") ?:
		      rt_result_add_note(res, cause);
	for (int proto = first; !ret && proto <= last && !lab_ctx_stopped(ctx); proto++) {
		char hname[64];
		json_t *o;

		snprintf(what, sizeof(what), "%s: %u ms", cookie_protocol_names[proto],
			 p->duration_ms);
		rt_sink_progress(sink, (unsigned int)(done * 100 / nruns), what);
		if (!cookie_protocol_is_prio(proto)) {
			struct cookie_table_opts o2 = {
				.protocol = proto, .diners = p->diners, .cookies = p->cookies,
				.duration_ns = (uint64_t)p->duration_ms * 1000000ull,
				.stop = ctx->stop, .live = ctx->live,
			};
			struct cookie_table_result r;

			ret = cookie_table_run(&o2, &r, &cause);
			if (ret)
				break;
			o = table_scenario(proto, &r, p->diners);
			snprintf(hname, sizeof(hname), "%s.handover", cookie_protocol_names[proto]);
			ret = o ? rt_result_add_rt_hist(res, hname, r.handover) : -ENOMEM;
			cookie_table_result_fini(&r);
		} else {
			struct cookie_prio_opts o2 = {
				.protocol = proto, .cpu = -1, .watchdog_ns = PRIO_WATCHDOG_NS,
				.hold_ns = PRIO_HOLD_NS, .burst_ns = PRIO_BURST_NS,
				.duration_ns = (uint64_t)p->duration_ms * 1000000ull,
				.journal = ctx->journal, .stop = ctx->stop, .live = ctx->live,
			};
			struct cookie_prio_result r;

			ret = cookie_prio_run(&o2, &r, &cause);
			if (ret)
				break;
			o = prio_scenario(proto, &r);
			snprintf(hname, sizeof(hname), "%s.wait", cookie_protocol_names[proto]);
			ret = o ? rt_result_add_rt_hist(res, hname, r.wait) : -ENOMEM;
			if (!ret && r.watchdog_fired)
				ret = rt_result_add_note(res, "priority-ticket: the high diner spun "
							 "behind the preempted holder until the "
							 "watchdog put every diner back to "
							 "SCHED_OTHER; without it, it would spin "
							 "for ever");
			cookie_prio_result_fini(&r);
		}
		if (!ret && json_array_append_new(scens, o))
			ret = -ENOMEM;
		done++;
	}
	if (ret)
		goto out;
	/*
	 * A stop during the last protocol ends it early too (its run returns
	 * at the flag), so "every protocol ran" is not "not interrupted".
	 */
	out->interrupted = done < nruns || lab_ctx_stopped(ctx);
	ret = replay_scenarios(scens, p->diners) ?: set_summary(res, scens);
out:
	return lab_result_finish(out, res, scens, ret, cause, "cookie",
				 "interrupted: the protocols run until then are kept");
}

/* ---- Views, grade, scenarios ----------------------------------------------------------- */

static int cookie_views(const struct rt_result *res, json_t *views, char **cause)
{
	json_t *rows = json_array(), *prows = json_array(), *rrows = json_array(), *s;
	size_t i;

	(void)cause;
	if (!rows || !prows || !rrows)
		goto nomem;
	json_array_foreach(rt_result_scenarios(res), i, s) {
		const char *name = json_string_value(json_object_get(s, "name")) ?: "";
		json_t *row;

		if (!strncmp(name, "replay-", 7))
			row = json_pack("[s, s, f, f]", name,
					json_string_value(json_object_get(s, "schedule")) ?: "",
					rt_json_num(s, "lost_count"), rt_json_num(s, "duplicated_count"));
		else if (json_object_get(s, "high_waits_count"))
			row = json_pack("[s, f, f, f, f, s]", name, rt_json_num(s, "high_waits_count"),
					rt_json_num(s, "wait_avg_us"), rt_json_num(s, "wait_max_us"),
					rt_json_num(s, "hog_bursts_count"),
					json_is_true(json_object_get(s, "watchdog")) ? "fired" : "-");
		else
			row = json_pack("[s, f, f, f, f, f, f, f]", name, rt_json_num(s, "produced_count"),
					rt_json_num(s, "consumed_count"), rt_json_num(s, "lost_count"),
					rt_json_num(s, "duplicated_count"), rt_json_num(s, "fairness_jain_ratio"),
					rt_json_num(s, "throughput_hz"), rt_json_num(s, "handover_p99_us"));
		if (!row || json_array_append_new(!strncmp(name, "replay-", 7) ? rrows :
						  json_object_get(s, "high_waits_count") ? prows :
						  rows, row))
			goto nomem;
	}
	if (json_array_size(rows) && json_array_append_new(views, json_pack(
		"{s:s, s:s, s:[{s:s}, {s:s}, {s:s}, {s:s}, {s:s, s:s}, {s:s, s:s, s:s}, "
		"{s:s, s:s, s:s}, {s:s, s:s, s:s}], s:O}",
		"name", "protocols", "title", "Cookies per protocol (real threads)",
		"columns", "name", "protocol", "name", "produced", "name", "consumed",
		"name", "lost", "name", "duplicated", "title", "eaten twice",
		"name", "fairness", "title", "Jain fairness", "unit", "ratio",
		"name", "throughput", "title", "cookies/s", "unit", "hz",
		"name", "handover_p99", "title", "hand-over p99", "unit", "us", "rows", rows)))
		goto nomem;
	if (json_array_size(prows) && json_array_append_new(views, json_pack(
		"{s:s, s:s, s:[{s:s}, {s:s}, {s:s, s:s, s:s}, {s:s, s:s, s:s}, {s:s}, {s:s}], "
		"s:O}", "name", "priority", "title",
		"The high-priority diner's wait (SCHED_FIFO, one CPU)",
		"columns", "name", "protocol", "name", "waits", "name", "wait_avg", "title",
		"wait avg", "unit", "us", "name", "wait_max", "title", "wait max", "unit", "us",
		"name", "hog_bursts", "name", "watchdog", "rows", prows)))
		goto nomem;
	if (json_array_size(rrows) && json_array_append_new(views, json_pack(
		"{s:s, s:s, s:[{s:s}, {s:s}, {s:s}, {s:s, s:s}], s:O}", "name", "replay",
		"title", "Deterministic replay: the losing schedule found by the search",
		"columns", "name", "replay", "name", "schedule", "name", "lost",
		"name", "duplicated", "title", "eaten twice", "rows", rrows)))
		goto nomem;
	json_decref(rows);
	json_decref(prows);
	json_decref(rrows);
	return 0;
nomem:
	json_decref(rows);
	json_decref(prows);
	json_decref(rrows);
	return -ENOMEM;
}

static int add(struct grade_report *rep, const char *name, int status, const char *detail)
{
	struct grade_check c = { .name = (char *)name, .status = status, .max_points = 1,
				 .detail = (char *)detail };

	return grade_report_append(rep, &c);
}

/* The priority protocols need SCHED_FIFO: their check is skipped without them. */
static int cookie_grade_lacks(const struct rt_result *res, struct rt_buf *missing)
{
	static const char *const needs[] = {
		"uni-directional", "ticket", "greedy", "replay-broken", "replay-uni", NULL,
	};

	return lab_lacks_scenarios(res, needs, missing);
}

/*
 * What a finished run shows: the correct protocols lose and duplicate
 * nothing, the uni-directional plate is fair with at least 4 diners, the
 * broken one is caught by the replay, and (when run) inheritance bounds
 * the high diner's wait below the plain mutex's.
 */
static int cookie_grade(const struct lab_result *r, struct grade_report *rep)
{
	const struct rt_result *res = r->res;
	json_t *uni = rt_result_scenario(res, "uni-directional");
	json_t *pi = rt_result_scenario(res, "priority-inherit");
	json_t *plain = rt_result_scenario(res, "priority-plain");
	static const char *const correct[] = { "uni-directional", "ticket", "greedy" };
	bool any = false, exact = true;
	int ret;

	for (size_t i = 0; i < 3; i++) {
		json_t *s = rt_result_scenario(res, correct[i]);

		if (!s)
			continue;
		any = true;
		if (rt_json_num(s, "lost_count") || rt_json_num(s, "duplicated_count"))
			exact = false;
	}
	ret = add(rep, "correct-protocols-exact", !any ? GRADE_FAIL : exact ? GRADE_PASS :
		  GRADE_FAIL, "uni-directional, ticket and greedy lose and duplicate no cookie "
		  "(rtlab lab run cookie)");
	if (!ret)
		ret = add(rep, "uni-fair", uni && rt_json_num(uni, "diners_count") >= 4 &&
			  rt_json_num(uni, "fairness_jain_ratio") >= 0.99 ? GRADE_PASS : GRADE_FAIL,
			  "the uni-directional plate with at least 4 diners has a Jain fairness "
			  "of 0.99 or more");
	if (!ret)
		ret = add(rep, "replay-catches-broken",
			  rt_json_num(rt_result_scenario(res, "replay-broken"), "lost_count") > 0 &&
			  rt_json_num(rt_result_scenario(res, "replay-uni"), "lost_count") == 0 &&
			  rt_json_num(rt_result_scenario(res, "replay-uni"), "duplicated_count") == 0 ?
			  GRADE_PASS : GRADE_FAIL,
			  "the replay's schedule loses a cookie on the broken plate and none on "
			  "the uni-directional one");
	if (!ret)
		ret = add(rep, "inheritance-bounds-wait", !pi || !plain ? GRADE_SKIP :
			  rt_json_num(pi, "wait_max_us") < rt_json_num(plain, "wait_max_us") ? GRADE_PASS :
			  GRADE_FAIL, !pi || !plain ?
			  "not run: the priority protocols need SCHED_FIFO (run as root)" :
			  "with priority inheritance the high diner's longest wait is shorter "
			  "than with the plain mutex");
	return ret;
}

static bool cookie_scenario(size_t i, struct lab_scenario *out)
{
	if (i < COOKIE_NPROTOCOLS) {
		out->name = cookie_protocol_names[i];
		out->summary = protocol_summaries[i];
		return true;
	}
	if (i == COOKIE_NPROTOCOLS) {
		out->name = "replay-broken";
		out->summary = "the shortest schedule losing a cookie on the broken plate";
		return true;
	}
	if (i == COOKIE_NPROTOCOLS + 1) {
		out->name = "replay-uni";
		out->summary = "the same schedule against the uni-directional plate";
		return true;
	}
	return false;
}

/* ---- Declared keys ---------------------------------------------------------------- */

/*
 * Its document's own keys (lab_ops.params_keys, .scenario_keys; the replay
 * model's counters follow): a table protocol's figures, a priority
 * protocol's, and a replay's, each scenario holding its kind's.
 */
static const struct rt_key cookie_params_keys[] = {
	RT_RESULT_SEED_KEY,
	RT_KEY("protocol", RT_T_STRING, NULL, "the protocol asked for, or all", false),
	RT_KEY("diners", RT_T_INTEGER, "count", "diners at the table (threads)", false),
	RT_KEY("duration_ms", RT_T_INTEGER, "ms", "how long each protocol runs", false),
	RT_KEY("cookies", RT_T_INTEGER, "count", "cookies baked at most", false),
	RT_KEY_END,
};
static const struct rt_keys cookie_params_table = { .keys = cookie_params_keys };
static const struct rt_key cookie_scenario_keys[] = {
	RT_RESULT_SCENARIO_NAME_KEYS,
	RT_KEY("protocol", RT_T_STRING, NULL, "a replay: the protocol replayed", false),
	RT_KEY("schedule", RT_T_STRING, NULL, "a replay: the schedule replayed", false),
	RT_KEY("diners_count", RT_T_INTEGER, "count", "diners at the table", false),
	RT_KEY("left_count", RT_T_INTEGER, "count", "cookies left on the plate", false),
	RT_KEY("eaten", RT_T_ARRAY, "count", "each diner's share", false, .items = RT_T_INTEGER),
	RT_KEY("elapsed_s", RT_T_NUMBER, "s", "how long it ran", false),
	RT_KEY("fairness_jain_ratio", RT_T_NUMBER, "ratio", "Jain's fairness of the shares",
	       false),
	RT_KEY("throughput_hz", RT_T_NUMBER, "hz", "cookies eaten per second", false),
	RT_KEY("handovers_count", RT_T_INTEGER, "count", "the plate changed hands", false),
	RT_KEY("handover_p50_us", RT_T_NUMBER, "us", "median hand-over time", false),
	RT_KEY("handover_p99_us", RT_T_NUMBER, "us", "99th percentile hand-over time", false),
	RT_KEY("wait_max_us", RT_T_NUMBER, "us", "longest wait for the plate or the lock", false),
	RT_KEY("wait_avg_us", RT_T_NUMBER, "us", "the high task's mean wait", false),
	RT_KEY("wait_p99_us", RT_T_NUMBER, "us", "its 99th percentile wait", false),
	RT_KEY("cpu_count", RT_T_INTEGER, "count", "the CPU the priority protocols share",
	       false),
	RT_KEY("high_waits_count", RT_T_INTEGER, "count", "the high task's waits", false),
	RT_KEY("hog_bursts_count", RT_T_INTEGER, "count", "the medium hog's bursts", false),
	RT_KEY("low_holds_count", RT_T_INTEGER, "count", "the low holder's holds", false),
	RT_KEY("watchdog", RT_T_BOOL, NULL, "the watchdog ended the protocol", false),
	RT_KEY("watchdog_after_ms", RT_T_NUMBER, "ms", "when", false),
	RT_KEY_END,
};
static const struct rt_keys cookie_scenario_table = { .keys = cookie_scenario_keys };

const struct lab_ops lab_cookie = {
	.name = "cookie",
	.title = "Cookie protocols (an allegory)",
	.summary = "Share a plate of cookies between threads with Concurrency Kit: a plate "
		   "passed round, ticket and greedy locks, a racy one caught by replay, and "
		   "priority inversion with and without inheritance.",
	.lesson = 10,
	.state = LAB_STATE_READY,
	.wants = LAB_NEED_RT_PRIO,
	.sim = true,
	.check_capabilities = cookie_check_caps,
	.run = cookie_run,
	.views = cookie_views,
	.model = &sim_cookie_model,
	.grade = cookie_grade,
	.grade_lacks = cookie_grade_lacks,
	.scenario = cookie_scenario,
	.options = cookie_options,
	.options_note = "The table protocols run on real threads (not simulated): their "
			"throughput and hand-over times are this machine's, under its load. "
			"Lost and duplicated cookies are counted exactly by serial. The "
			"replay scenarios are deterministic (the seed changes nothing in "
			"them). The priority protocols need SCHED_FIFO (root or "
			"CAP_SYS_NICE) and use the last online CPU.",
	.params_size = sizeof(struct cookie_params),
	.params_init = params_default,
	.params_keys = &cookie_params_table,
	.scenario_keys = &cookie_scenario_table,
};
