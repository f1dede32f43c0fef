/*
 * lab_latency_opts: the latency lab's scenario table and its option
 * parser. Pure (no I/O, no globals, no getopt state), so the unit tests and
 * the fuzz target call it directly with any argv.
 *
 * Rules, in the order they are applied:
 *   1. --scenario S (repeatable, or "a,b") picks named scenarios; without
 *      any, the default set is idle-other, load-other, idle-fifo, load-fifo
 *      (the four the lessons' predict questions name);
 *   2. without --scenario, any of --policy, --priority, --mlock, --load
 *      makes one scenario called "custom" instead (cyclictest-like:
 *      OTHER, idle, no mlock, then the options);
 *   3. the explicit options then override every chosen scenario: --policy
 *      (a bare --priority means fifo, as cyclictest -p), --priority,
 *      --mlock, --load, and --cpus (which pins every scenario's threads).
 */
#include "lab_latency.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_err.h"
#include "core/rt_load.h"

#define DEFAULT_LOAD "cpu,msg"

const struct latency_scenario latency_scenarios[] = {
	{ "idle-other", "SCHED_OTHER on an idle machine: the everyday baseline, timer slack "
	  "included", SCHED_OTHER, 0, false, false, NULL, false },
	{ "load-other", "SCHED_OTHER while CPU hogs and a message storm keep every CPU busy: "
	  "the probe shares the CPU fairly, and its tail shows it", SCHED_OTHER, 0, false,
	  false, DEFAULT_LOAD, false },
	{ "idle-fifo", "SCHED_FIFO priority 90 on an idle machine: no slack, no competition; "
	  "what is left is the kernel and the hardware", SCHED_FIFO, LATENCY_DEFAULT_PRIORITY,
	  false, false, NULL, false },
	{ "load-fifo", "SCHED_FIFO priority 90 under the same load as load-other: the load "
	  "can no longer hold the probe off the CPU", SCHED_FIFO, LATENCY_DEFAULT_PRIORITY,
	  false, false, DEFAULT_LOAD, false },
	{ "load-fifo-mlock", "load-fifo plus mlockall and a prefaulted stack: no page fault "
	  "can hit the measuring loop", SCHED_FIFO, LATENCY_DEFAULT_PRIORITY, true, false,
	  DEFAULT_LOAD, false },
	{ "load-fifo-mlock-pinned", "load-fifo-mlock with every measuring thread pinned to "
	  "one CPU (thread i on CPU i): no migrations, and rtlab's other threads kept off "
	  "those CPUs", SCHED_FIFO, LATENCY_DEFAULT_PRIORITY,
	  true, true, DEFAULT_LOAD, false },
	{ "load-fifo-rt", "load-fifo-mlock-pinned on a PREEMPT_RT kernel; refuses to run on "
	  "any other kernel", SCHED_FIFO, LATENCY_DEFAULT_PRIORITY, true, true, DEFAULT_LOAD,
	  true },
	{ "load-fifo-faults", "the deliberately bad one: SCHED_FIFO without mlockall while a "
	  "load maps, touches and unmaps memory (page-fault pressure) next to CPU hogs",
	  SCHED_FIFO, LATENCY_DEFAULT_PRIORITY, false, false, "pagefault,cpu", false },
};

const size_t latency_nscenarios = sizeof(latency_scenarios) / sizeof(latency_scenarios[0]);

static const char *const default_set[] = { "idle-other", "load-other", "idle-fifo",
					   "load-fifo" };

const struct latency_scenario *latency_scenario_find(const char *name)
{
	for (size_t i = 0; i < latency_nscenarios; i++)
		if (strcmp(latency_scenarios[i].name, name) == 0)
			return &latency_scenarios[i];
	return NULL;
}

const char *latency_policy_name(int policy)
{
	switch (policy) {
	case SCHED_FIFO:
		return "fifo";
	case SCHED_RR:
		return "rr";
	default:
		return "other";
	}
}

static void plan_from(struct latency_plan *pl, const struct latency_scenario *s)
{
	memset(pl, 0, sizeof(*pl));
	snprintf(pl->name, sizeof(pl->name), "%s", s->name);
	pl->policy = s->policy;
	pl->priority = s->priority;
	pl->mlock = s->mlock;
	pl->pinned = s->pinned;
	pl->needs_preempt_rt = s->needs_preempt_rt;
	snprintf(pl->load, sizeof(pl->load), "%s", s->load ? s->load : "");
}

void latency_params_init(struct latency_params *p)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < sizeof(default_set) / sizeof(default_set[0]); i++)
		plan_from(&p->plan[p->nplans++], latency_scenario_find(default_set[i]));
	p->duration_ms = LATENCY_DEFAULT_DURATION_MS;
	p->interval_us = LATENCY_DEFAULT_INTERVAL_US;
	p->distance_us = LATENCY_DEFAULT_DISTANCE_US;
	p->threads = 1;
	p->hist_max_us = LATENCY_DEFAULT_HIST_MAX_US;
}

/* ---- Small parsers ------------------------------------------------------------ */

/* Strict decimal: digits only, no sign, no spaces, at most @max. */
static int parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
	unsigned long long v = 0;

	if (!s || !*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		if (v > (max - (unsigned long long)(*s - '0')) / 10)
			return -EINVAL;
		v = v * 10 + (unsigned long long)(*s - '0');
	}
	*out = v;
	return 0;
}

int latency_parse_duration(const char *s, unsigned int *ms)
{
	static const struct {
		const char *suffix;
		unsigned long long ms;
	} units[] = {
		{ "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 }, { "d", 86400000 },
		{ "", 1000 },
	};
	char num[24];
	size_t len, i;

	if (!s)
		return -EINVAL;
	len = strspn(s, "0123456789");
	if (len == 0 || len >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, len);
	num[len] = '\0';
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		unsigned long long v;

		if (strcmp(s + len, units[i].suffix) != 0)
			continue;
		if (parse_uint(num, LATENCY_MAX_DURATION_MS, &v) || v == 0 ||
		    v > LATENCY_MAX_DURATION_MS / units[i].ms)
			return -EINVAL;
		*ms = (unsigned int)(v * units[i].ms);
		return 0;
	}
	return -EINVAL;
}

int latency_parse_cpus(const char *s, unsigned int *cpus, unsigned int max, unsigned int *n)
{
	const char *p = s;

	*n = 0;
	if (!s || !*s)
		return -EINVAL;
	for (;;) {
		unsigned long long lo, hi;
		char a[16], b[16];
		size_t la, lb = 0;

		la = strspn(p, "0123456789");
		if (la == 0 || la >= sizeof(a))
			return -EINVAL;
		memcpy(a, p, la);
		a[la] = '\0';
		p += la;
		if (parse_uint(a, LATENCY_MAX_CPUS - 1, &lo))
			return -EINVAL;
		hi = lo;
		if (*p == '-') {
			p++;
			lb = strspn(p, "0123456789");
			if (lb == 0 || lb >= sizeof(b))
				return -EINVAL;
			memcpy(b, p, lb);
			b[lb] = '\0';
			p += lb;
			if (parse_uint(b, LATENCY_MAX_CPUS - 1, &hi) || hi < lo)
				return -EINVAL;
		}
		for (unsigned long long c = lo; c <= hi; c++) {
			for (unsigned int k = 0; k < *n; k++)
				if (cpus[k] == c)
					return -EINVAL;
			if (*n >= max)
				return -EINVAL;
			cpus[(*n)++] = (unsigned int)c;
		}
		if (*p == '\0')
			return 0;
		if (*p != ',')
			return -EINVAL;
		p++;
	}
}

/* Every comma-separated name must be a known generator, each once; "none" is "". */
static int parse_load(const char *s, char *out, size_t size, char **cause)
{
	char buf[LATENCY_LOAD_MAX];
	char *save = NULL, *tok;
	size_t n = 0;
	const char *seen[16];

	if (strcmp(s, "none") == 0) {
		out[0] = '\0';
		return 0;
	}
	if (strlen(s) >= sizeof(buf) || strlen(s) >= size || !*s)
		return rt_err(cause, -EINVAL, "--load: expected NAME[,NAME] or none, at most %zu "
			      "characters", sizeof(buf) - 1);
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!rt_load_describe(tok))
			return rt_err(cause, -EINVAL, "--load: unknown load \"%.40s\" (known: %s, "
				      "or none)", tok, rt_load_names());
		for (size_t k = 0; k < n; k++)
			if (strcmp(seen[k], tok) == 0)
				return rt_err(cause, -EINVAL, "--load: \"%.40s\" named twice", tok);
		if (n >= sizeof(seen) / sizeof(seen[0]))
			return rt_err(cause, -EINVAL, "--load: too many loads");
		seen[n++] = tok;
	}
	if (n == 0 || s[0] == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
		return rt_err(cause, -EINVAL, "--load: empty name in \"%.60s\"", s);
	strcpy(out, s);
	return 0;
}

/* ---- CPU lists ----------------------------------------------------------------- */

void latency_format_cpus(const cpu_set_t *set, char *buf, size_t size)
{
	size_t len = 0;

	if (!size)
		return;
	buf[0] = '\0';
	for (unsigned int c = 0; c < CPU_SETSIZE && len + 1 < size; c++) {
		unsigned int e = c;
		int w;

		if (!CPU_ISSET(c, set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		w = e == c ? snprintf(buf + len, size - len, "%s%u", len ? "," : "", c) :
			     snprintf(buf + len, size - len, "%s%u-%u", len ? "," : "", c, e);
		if (w < 0 || (size_t)w >= size - len) {
			buf[len] = '\0';
			return;
		}
		len += (size_t)w;
		c = e;
	}
}

int latency_params_check_cpus(const struct latency_params *p, const cpu_set_t *usable,
			      char **cause)
{
	char bad[64], ok[64];
	cpu_set_t missing;

	CPU_ZERO(&missing);
	for (unsigned int i = 0; i < p->ncpus; i++)
		if (p->cpus[i] >= CPU_SETSIZE || !CPU_ISSET(p->cpus[i], usable))
			CPU_SET(p->cpus[i] < CPU_SETSIZE ? p->cpus[i] : CPU_SETSIZE - 1, &missing);
	if (!CPU_COUNT(&missing))
		return 0;
	latency_format_cpus(&missing, bad, sizeof(bad));
	latency_format_cpus(usable, ok, sizeof(ok));
	return rt_err(cause, -EINVAL, "--cpus: CPU%s %s %s not online here (the online CPUs are "
		      "%s)", CPU_COUNT(&missing) > 1 ? "s" : "", bad,
		      CPU_COUNT(&missing) > 1 ? "are" : "is", ok[0] ? ok : "none");
}

/* ---- The option parser ------------------------------------------------------- */

enum opt_id {
	OPT_SCENARIO, OPT_DURATION, OPT_POLICY, OPT_PRIORITY, OPT_INTERVAL, OPT_DISTANCE,
	OPT_THREADS, OPT_CPUS, OPT_MLOCK, OPT_LOAD, OPT_HIST_MAX, OPT_DMA, OPT_SPIKE,
	OPT_TRACE_MARKER,
};

static const struct {
	const char *name;
	enum opt_id id;
	bool arg;
} opts[] = {
	{ "scenario", OPT_SCENARIO, true }, { "duration", OPT_DURATION, true },
	{ "policy", OPT_POLICY, true }, { "priority", OPT_PRIORITY, true },
	{ "interval", OPT_INTERVAL, true }, { "distance", OPT_DISTANCE, true },
	{ "threads", OPT_THREADS, true }, { "cpus", OPT_CPUS, true },
	{ "mlock", OPT_MLOCK, false }, { "load", OPT_LOAD, true },
	{ "hist-max", OPT_HIST_MAX, true }, { "dma-latency", OPT_DMA, false },
	{ "spike", OPT_SPIKE, true }, { "trace-marker", OPT_TRACE_MARKER, true },
};

struct overrides {
	bool policy, priority, mlock, load;
	int policy_v;
	int priority_v;
	char load_v[LATENCY_LOAD_MAX];
};

static int add_scenarios(struct latency_params *p, const char *list, bool *first,
			 char **cause)
{
	char buf[256];
	char *save = NULL, *tok;

	if (strlen(list) >= sizeof(buf) || !*list || list[0] == ',' ||
	    list[strlen(list) - 1] == ',' || strstr(list, ",,"))
		return rt_err(cause, -EINVAL, "--scenario: expected NAME[,NAME], got \"%.60s\"",
			      list);
	strcpy(buf, list);
	if (*first) {
		p->nplans = 0;
		*first = false;
	}
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct latency_scenario *s = latency_scenario_find(tok);

		if (!s)
			return rt_err(cause, -EINVAL, "--scenario: unknown scenario \"%.40s\" (see "
				      "`rtlab lab run latency --help`)", tok);
		for (unsigned int k = 0; k < p->nplans; k++)
			if (strcmp(p->plan[k].name, tok) == 0)
				return rt_err(cause, -EINVAL, "--scenario: \"%s\" named twice", tok);
		if (p->nplans >= LATENCY_MAX_SCENARIOS)
			return rt_err(cause, -EINVAL, "at most %u scenarios per run",
				      LATENCY_MAX_SCENARIOS);
		plan_from(&p->plan[p->nplans++], s);
	}
	return 0;
}

static int num_opt(const char *name, const char *v, unsigned long long lo,
		   unsigned long long hi, unsigned int *out, char **cause)
{
	unsigned long long x;

	if (parse_uint(v, hi, &x) || x < lo)
		return rt_err(cause, -EINVAL, "--%s: expected a whole number in %llu..%llu, got "
			      "\"%.40s\"", name, lo, hi, v);
	*out = (unsigned int)x;
	return 0;
}

static int apply_one(struct latency_params *p, struct overrides *ov, enum opt_id id,
		     const char *name, const char *v, bool *first_scenario, char **cause)
{
	unsigned int u;
	int ret = 0;

	switch (id) {
	case OPT_SCENARIO:
		return add_scenarios(p, v, first_scenario, cause);
	case OPT_DURATION:
		if (latency_parse_duration(v, &p->duration_ms))
			return rt_err(cause, -EINVAL, "--duration: expected e.g. 10s, 2m, 500ms or "
				      "a number of seconds (at most 1d), got \"%.40s\"", v);
		return 0;
	case OPT_POLICY:
		ov->policy = true;
		if (!strcmp(v, "other"))
			ov->policy_v = SCHED_OTHER;
		else if (!strcmp(v, "fifo"))
			ov->policy_v = SCHED_FIFO;
		else if (!strcmp(v, "rr"))
			ov->policy_v = SCHED_RR;
		else
			return rt_err(cause, -EINVAL, "--policy: expected other, fifo or rr, got "
				      "\"%.40s\"", v);
		return 0;
	case OPT_PRIORITY:
		ret = num_opt(name, v, 1, 99, &u, cause);
		ov->priority = true;
		ov->priority_v = (int)u;
		return ret;
	case OPT_INTERVAL:
		return num_opt(name, v, 1, 1000000, &p->interval_us, cause);
	case OPT_DISTANCE:
		return num_opt(name, v, 0, 1000000, &p->distance_us, cause);
	case OPT_THREADS:
		return num_opt(name, v, 1, LATENCY_MAX_THREADS, &p->threads, cause);
	case OPT_CPUS:
		if (latency_parse_cpus(v, p->cpus, LATENCY_MAX_CPUS, &p->ncpus))
			return rt_err(cause, -EINVAL, "--cpus: expected a CPU list such as 1 or "
				      "0,2-3 (each CPU once, below %u), got \"%.40s\"",
				      LATENCY_MAX_CPUS, v);
		return 0;
	case OPT_MLOCK:
		ov->mlock = true;
		return 0;
	case OPT_LOAD:
		ov->load = true;
		return parse_load(v, ov->load_v, sizeof(ov->load_v), cause);
	case OPT_HIST_MAX:
		return num_opt(name, v, 1, LATENCY_MAX_HIST_US, &p->hist_max_us, cause);
	case OPT_DMA:
		p->dma_latency = true;
		return 0;
	case OPT_SPIKE:
		return num_opt(name, v, 1, 1000000, &p->spike_us, cause);
	case OPT_TRACE_MARKER:
		return num_opt(name, v, 1, 1000000, &p->trace_marker_us, cause);
	}
	return -EINVAL;
}

static int apply_overrides(struct latency_params *p, const struct overrides *ov,
			   bool scenarios_given, char **cause)
{
	if (!scenarios_given && (ov->policy || ov->priority || ov->mlock || ov->load)) {
		struct latency_plan *pl = &p->plan[0];

		memset(pl, 0, sizeof(*pl));
		snprintf(pl->name, sizeof(pl->name), "custom");
		pl->policy = SCHED_OTHER;
		p->nplans = 1;
		p->custom = true;
	}
	for (unsigned int i = 0; i < p->nplans; i++) {
		struct latency_plan *pl = &p->plan[i];

		if (ov->policy) {
			pl->policy = ov->policy_v;
			if (pl->policy == SCHED_OTHER)
				pl->priority = 0;
			else if (pl->priority == 0)
				pl->priority = LATENCY_DEFAULT_PRIORITY;
		} else if (ov->priority && pl->policy == SCHED_OTHER) {
			pl->policy = SCHED_FIFO;	/* cyclictest -p N means SCHED_FIFO */
		}
		if (ov->priority) {
			if (pl->policy == SCHED_OTHER)
				return rt_err(cause, -EINVAL, "--priority needs --policy fifo or rr "
					      "(SCHED_OTHER has no real-time priority)");
			pl->priority = ov->priority_v;
		}
		if (ov->mlock)
			pl->mlock = true;
		if (ov->load)
			snprintf(pl->load, sizeof(pl->load), "%s", ov->load_v);
		if (p->ncpus)
			pl->pinned = true;
		if (pl->policy != SCHED_OTHER && p->interval_us < 50)
			return rt_err(cause, -EINVAL, "--interval %u us is below the 50 us minimum "
				      "for a real-time policy (it could starve the machine)",
				      p->interval_us);
	}
	if ((unsigned long long)p->interval_us +
	    (unsigned long long)p->distance_us * (p->threads - 1) > 1000000)
		return rt_err(cause, -EINVAL, "the longest thread interval (--interval + "
			      "--distance x (threads - 1)) must stay within 1 s");
	return 0;
}

int latency_params_parse(int argc, char **argv, struct latency_params *p, char **cause)
{
	struct overrides ov;
	bool first_scenario = true;
	int i;

	latency_params_init(p);
	memset(&ov, 0, sizeof(ov));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *eq, *val = NULL;
		size_t nlen, k;
		int ret;

		if (!a || strncmp(a, "--", 2) != 0 || !a[2])
			return rt_err(cause, -EINVAL, "unexpected argument \"%.60s\"",
				      a ? a : "(null)");
		a += 2;
		eq = strchr(a, '=');
		nlen = eq ? (size_t)(eq - a) : strlen(a);
		for (k = 0; k < sizeof(opts) / sizeof(opts[0]); k++)
			if (strlen(opts[k].name) == nlen && !strncmp(opts[k].name, a, nlen))
				break;
		if (k == sizeof(opts) / sizeof(opts[0]))
			return rt_err(cause, -EINVAL, "unknown option \"--%.*s\"", (int)(nlen > 40 ?
				      40 : nlen), a);
		if (opts[k].arg) {
			if (eq)
				val = eq + 1;
			else if (i + 1 < argc && argv[i + 1])
				val = argv[++i];
			else
				return rt_err(cause, -EINVAL, "--%s needs a value", opts[k].name);
		} else if (eq) {
			return rt_err(cause, -EINVAL, "--%s takes no value", opts[k].name);
		}
		ret = apply_one(p, &ov, opts[k].id, opts[k].name, val, &first_scenario, cause);
		if (ret)
			return ret;
	}
	return apply_overrides(p, &ov, !first_scenario, cause);
}
