/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_ftrace_opts: the pure parts of the ftrace lab: its option table,
 * what tracer mode can run given the tracers a probe found, the hunt's
 * seeded choice of a cause, the list of all causes and the check value,
 * and the reader of rtla timerlat hist's output used by the cross-check
 * (trace-cmd report is read by trace_wake_calc_feed_text() in
 * trace/trace_events.c). No I/O, clock or globals here, so the
 * unit tests drive every function with made-up input.
 *
 * The hunt's causes and the functions they run in come from the two
 * injectors' sources: kernel-patches/rtlab_inject/rtlab_inject.c (one
 * noinline function per section, one debugfs file per kind) and
 * rtlab/trace/trace_hog.c (one noinline function per hog kind). The
 * module's FIFO kthread runs at sched_set_fifo()'s priority (50), which is
 * why the probe runs below it (FTRACE_PROBE_PRIO).
 */
#include "lab_ftrace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_err.h"
#include "core/rt_parse.h"
#include "trace/trace_ctl.h"
#include "trace/trace_events.h"
#include "trace/trace_hog.h"

/* ---- Options ----------------------------------------------------------------------- */

static const char *const latency_tracers[] = {
	"irqsoff", "preemptoff", "preemptirqsoff", "wakeup", "wakeup_rt", "wakeup_dl", NULL,
};

bool ftrace_is_latency_tracer(const char *name)
{
	for (const char *const *t = latency_tracers; name && *t; t++)
		if (!strcmp(*t, name))
			return true;
	return false;
}

void ftrace_offer_fill(struct ftrace_offer *o, bool known, char *const *available,
		       size_t navailable)
{
	memset(o, 0, sizeof(*o));
	o->known = known;
	for (const char *const *t = latency_tracers; *t; t++) {
		const struct trace_tracer_info *ti = trace_ctl_tracer_lookup(*t);
		struct trace_tracer_info *e;

		if (!ti || o->ntracers >= FTRACE_NLAT_TRACERS)
			continue;
		e = &o->tracers[o->ntracers++];
		*e = *ti;
		e->present = false;
		for (size_t i = 0; known && available && i < navailable; i++)
			if (available[i] && !strcmp(available[i], *t))
				e->present = true;
	}
}

int ftrace_offer_first(const struct ftrace_offer *o)
{
	for (unsigned int i = 0; i < o->ntracers; i++)
		if (o->tracers[i].present)
			return (int)i;
	return -1;
}

void ftrace_params_init(struct ftrace_params *p)
{
	memset(p, 0, sizeof(*p));
	p->mode = FTRACE_MODE_EVENTS;
	p->function_trace = true;
	p->duration_ms = FTRACE_DEFAULT_DURATION_MS;
	p->cross_check = true;
	p->busy = true;
	p->opt_mode = -1;
	p->opt_tracer = -1;
}

/* --mode's words, in the order of enum ftrace_mode. */
static const char *const mode_words[] = { "events", "tracer", NULL };

#define MS RT_PARSE_NS_PER_MS
#define AT(field) LAB_OPT_AT(struct ftrace_params, field)

const struct lab_option ftrace_options[] = {
	{ .name = "mode", .kind = LAB_OPT_ENUM, .values = mode_words, AT(opt_mode),
	  .help = "events: the probe's wake-ups seen in the scheduler events (any kernel); "
		  "tracer: also a latency tracer.", .defval = "events, tracer with --tracer" },
	{ .name = "tracer", .kind = LAB_OPT_ENUM, .metavar = "NAME", .values = latency_tracers,
	  AT(opt_tracer), .help = "The latency tracer of tracer mode: irqsoff, preemptoff, "
		  "preemptirqsoff, wakeup, wakeup_rt or wakeup_dl; implies --mode tracer.",
	  .defval = "the first of them this kernel has" },
	{ .name = "threshold", .kind = LAB_OPT_UINT, .metavar = "US", AT(threshold_us),
	  .max = FTRACE_MAX_THRESHOLD_US, .help = "tracing_thresh in microseconds; 0 keeps "
		  "the worst case only.", .defval = "0" },
	{ .name = "no-function-trace", .kind = LAB_OPT_FLAG, .off = true, AT(function_trace),
	  .help = "Leave options/function-trace off in tracer mode." },
	{ .name = "hunt", .kind = LAB_OPT_FLAG, AT(hunt),
	  .help = "Plant a hidden cause chosen by the seed; diagnose it with `rtlab lab answer "
		  "ftrace cause|function|tracer NAME`, run the same hunt again (same --seed) and "
		  "grade the new document." },
	{ .name = "duration", .kind = LAB_OPT_DURATION, .metavar = "D", AT(duration_ms),
	  .min = MS, .max = FTRACE_MAX_DURATION_MS * MS, .unit_ns = MS,
	  .help = "How long the probe measures: 3s, 500ms, 2m or a number of seconds; at most "
		  "10m.", .defval = "5s" },
	{ .name = "no-cross-check", .kind = LAB_OPT_FLAG, .off = true, AT(cross_check),
	  .help = "Skip the cross-check with rtla and trace-cmd." },
	{ .name = "no-busy", .kind = LAB_OPT_FLAG, .off = true, AT(busy),
	  .help = "No nice-19 busy loop on the probe's CPU: the CPU may then be idle when "
		  "the probe's timer fires, and the probe pays for leaving the idle state." },
	{ .name = NULL },
};

#undef AT
#undef MS

const char ftrace_options_note[] = "See labs/ftrace/README.md and doc/ftrace.md.";

int ftrace_params_check(struct ftrace_params *p, char **cause)
{
	if (p->opt_tracer >= 0)
		snprintf(p->tracer, sizeof(p->tracer), "%s", latency_tracers[p->opt_tracer]);
	if (p->opt_mode >= 0)
		p->mode = p->opt_mode == FTRACE_MODE_TRACER ? FTRACE_MODE_TRACER :
							      FTRACE_MODE_EVENTS;
	else if (p->opt_tracer >= 0)
		p->mode = FTRACE_MODE_TRACER;
	if (p->opt_tracer >= 0 && p->mode == FTRACE_MODE_EVENTS)
		return rt_err(cause, -EINVAL, "--tracer needs --mode tracer");
	return 0;
}

int ftrace_params_parse(int argc, char **argv, struct ftrace_params *p, uint64_t *seed,
			bool *seed_given, char **cause)
{
	struct lab_args a;
	int ret;

	memset(&a, 0, sizeof(a));
	ftrace_params_init(p);
	ret = lab_opts_apply(ftrace_options, argc, argv, p, &a, cause);
	if (ret)
		return ret;
	if (a.help || a.json_path)
		return rt_err(cause, -EINVAL, "--help and --json are for `rtlab lab run ftrace`");
	*seed_given = a.seed_given;
	if (a.seed_given)
		*seed = a.seed;
	return ftrace_params_check(p, cause);
}

/* ---- The hunt ----------------------------------------------------------------------- */

static const char *const tr_irqsoff[] = { "irqsoff", "preemptirqsoff", NULL };
static const char *const tr_preemptoff[] = { "preemptoff", "preemptirqsoff", NULL };
static const char *const tr_sched[] = { "events", "wakeup_rt", "wakeup", NULL };

static const struct ftrace_hunt_truth module_causes[] = {
	{ FTRACE_INJ_MODULE, "irqsoff", "rtlab_inject_irqsoff_section", tr_irqsoff,
	  "irqsoff_us", -1, 0, 0 },
	{ FTRACE_INJ_MODULE, "preemptoff", "rtlab_inject_preemptoff_section", tr_preemptoff,
	  "preemptoff_us", -1, 0, 0 },
	/* A tasklet runs with bottom halves off, which counts as preemption off (not on RT). */
	{ FTRACE_INJ_MODULE, "softirq", "rtlab_inject_softirq_section", tr_preemptoff,
	  "softirq_us", -1, 0, 0 },
	{ FTRACE_INJ_MODULE, "fifo_kthread", "rtlab_inject_fifo_spin_section", tr_sched,
	  "fifo_spin_us", -1, 0, 0 },
};

static const struct ftrace_hunt_truth user_causes[] = {
	{ FTRACE_INJ_USER, "fifo_spin", "trace_hog_fifo_spin", tr_sched, NULL,
	  TRACE_HOG_FIFO_SPIN, 0, 0 },
	{ FTRACE_INJ_USER, "fault_storm", "trace_hog_fault_storm", tr_sched, NULL,
	  TRACE_HOG_FAULT_STORM, 0, 0 },
	{ FTRACE_INJ_USER, "syscall_burst", "trace_hog_syscall_burst", tr_sched, NULL,
	  TRACE_HOG_SYSCALL_BURST, 0, 0 },
};

/* splitmix64: a well-mixed 64-bit value from any seed, the same everywhere. */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

void ftrace_hunt_pick(uint64_t seed, enum ftrace_injector inj, struct ftrace_hunt_truth *out)
{
	uint64_t r = mix64(seed), r2 = mix64(r);

	if (inj == FTRACE_INJ_MODULE) {
		*out = module_causes[r % (sizeof(module_causes) / sizeof(module_causes[0]))];
		/* 300..1000 us, four a second: well inside the module's caps (10 ms, 10/s). */
		out->burst_us = 300 + 100 * (unsigned int)(r2 % 8);
		out->period_us = 250000;
	} else {
		*out = user_causes[r % (sizeof(user_causes) / sizeof(user_causes[0]))];
		/* 500..2000 us every 50 ms: at most a 4 % duty cycle. */
		out->burst_us = 500 + 500 * (unsigned int)(r2 % 4);
		out->period_us = 50000;
	}
}

static int cause_cmp(const void *a, const void *b)
{
	const struct ftrace_hunt_cause *x = a, *y = b;

	if (x->injector != y->injector)
		return x->injector == FTRACE_INJ_USER ? -1 : 1;
	return strcmp(x->kind, y->kind);
}

size_t ftrace_hunt_causes(struct ftrace_hunt_cause *out, size_t max)
{
	const struct ftrace_hunt_truth *tabs[] = { user_causes, module_causes };
	const size_t ns[] = { sizeof(user_causes) / sizeof(user_causes[0]),
			      sizeof(module_causes) / sizeof(module_causes[0]) };
	struct ftrace_hunt_cause all[sizeof(user_causes) / sizeof(user_causes[0]) +
				    sizeof(module_causes) / sizeof(module_causes[0])];
	size_t n = 0;

	for (size_t t = 0; t < 2; t++) {
		for (size_t i = 0; i < ns[t]; i++) {
			bool seen = false;

			for (size_t k = 0; k < n && !seen; k++)
				seen = !strcmp(all[k].kind, tabs[t][i].kind);
			if (seen)
				continue;
			all[n].kind = tabs[t][i].kind;
			all[n++].injector = tabs[t][i].injector;
		}
	}
	qsort(all, n, sizeof(all[0]), cause_cmp);
	if (out && max)
		memcpy(out, all, (n < max ? n : max) * sizeof(all[0]));
	return n;
}

const char *ftrace_injector_name(enum ftrace_injector inj)
{
	return inj == FTRACE_INJ_MODULE ? "module" : "user";
}

int ftrace_injector_from_name(const char *name)
{
	if (name && !strcmp(name, "module"))
		return FTRACE_INJ_MODULE;
	if (name && !strcmp(name, "user"))
		return FTRACE_INJ_USER;
	return -1;
}

static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static uint64_t fnv_str(uint64_t h, const char *s)
{
	h = fnv1a(h, s ? s : "", s ? strlen(s) : 0);
	return fnv1a(h, "|", 1);
}

void ftrace_hunt_checksum(uint64_t seed, const struct ftrace_hunt_truth *t, char *buf,
			  size_t size)
{
	uint64_t h = 0xcbf29ce484222325ull;
	char num[24];

	snprintf(num, sizeof(num), "%llu", (unsigned long long)seed);
	h = fnv_str(h, "rtlab-ftrace-hunt/1");
	h = fnv_str(h, num);
	h = fnv_str(h, ftrace_injector_name(t->injector));
	h = fnv_str(h, t->kind);
	h = fnv_str(h, t->function);
	for (const char *const *tr = t->tracers; tr && *tr; tr++)
		h = fnv_str(h, *tr);
	snprintf(buf, size, "%016llx", (unsigned long long)h);
}

/* ---- rtla timerlat hist ---------------------------------------------------------------- */

#define RTLA_MAX_COLS 512

/* Split @line into at most @max words (in place). */
static size_t split_words(char *line, char **w, size_t max)
{
	size_t n = 0;
	char *save = NULL;

	for (char *t = strtok_r(line, " \t", &save); t && n < max; t = strtok_r(NULL, " \t", &save))
		w[n++] = t;
	return n;
}

int ftrace_rtla_parse(const char *text, struct ftrace_rtla_stats *out)
{
	/* Per column: a row seen again (a second histogram) replaces, never adds. */
	bool thr[RTLA_MAX_COLS] = { false };
	bool has_cnt[RTLA_MAX_COLS] = { false }, has_avg[RTLA_MAX_COLS] = { false };
	bool has_max[RTLA_MAX_COLS] = { false };
	uint64_t cnt[RTLA_MAX_COLS] = { 0 }, max[RTLA_MAX_COLS] = { 0 };
	double avg[RTLA_MAX_COLS] = { 0 };
	bool have_hdr = false;
	char *copy, *save = NULL, *line, *w[RTLA_MAX_COLS];
	double wsum = 0;

	memset(out, 0, sizeof(*out));
	copy = strdup(text ? text : "");
	if (!copy)
		return -ENOMEM;
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t n = split_words(line, w, RTLA_MAX_COLS);

		if (n == 0)
			continue;
		if (!strcmp(w[0], "ALL:"))
			break;	/* the all-CPU summary repeats what we add up */
		if (!strcmp(w[0], "Index")) {
			memset(thr, 0, sizeof(thr));
			for (size_t i = 1; i < n; i++)
				thr[i] = !strncmp(w[i], "Thr-", 4);
			have_hdr = true;
			continue;
		}
		if (!have_hdr)
			continue;
		for (size_t i = 1; i < n; i++) {
			char *end;
			double v;

			if (!thr[i])
				continue;
			v = strtod(w[i], &end);
			/* "-" for no value; nothing rtla prints is negative, huge or not a number */
			if (*end || !(v >= 0 && v < 1e15))
				continue;
			if (!strcmp(w[0], "count:")) {
				cnt[i] = (uint64_t)v;
				has_cnt[i] = true;
			} else if (!strcmp(w[0], "avg:")) {
				avg[i] = v;
				has_avg[i] = true;
			} else if (!strcmp(w[0], "max:")) {
				max[i] = (uint64_t)v;
				has_max[i] = true;
			}
		}
	}
	free(copy);
	/* Only columns with all three figures count; an average above its maximum is no rtla output. */
	for (size_t i = 0; i < RTLA_MAX_COLS; i++) {
		if (!has_cnt[i] || !has_avg[i] || !has_max[i] || cnt[i] == 0)
			continue;
		if (avg[i] > (double)max[i] + 1) {
			memset(out, 0, sizeof(*out));
			return -EINVAL;
		}
		out->ncpus++;
		out->count += cnt[i];
		wsum += avg[i] * (double)cnt[i];
		if (max[i] > out->max_us)
			out->max_us = max[i];
	}
	if (out->count == 0) {
		memset(out, 0, sizeof(*out));
		return -EINVAL;
	}
	out->avg_us = wsum / (double)out->count;
	return 0;
}
