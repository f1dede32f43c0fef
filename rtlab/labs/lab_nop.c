/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_nop: the Node Order Protocol lab (lesson 09). Nodes share one bus
 * and take turns by a fixed order (NOP) or by static time slots (TDMA);
 * faults are injected at given times (--fault KIND@TIME[:NODE]) and the
 * monitor's detections are held against the worst-case bound computed
 * from the configuration. The same workload and faults run under both
 * protocols, side by side: utilisation, throughput, the wait between a
 * node's turns and its jitter, detection latencies.
 *
 * --medium sim (the default) runs the model of sim/sim_nop.c: a
 * simulation everywhere, labelled so in the document, its views and
 * notes. --medium netns runs the same protocol between processes in
 * network namespaces (lab_nop_netns.c), root only.
 *
 * Named scenarios: "nop" and "tdma", each with every counter of the model
 * and the lab's figures (utilisation_pct, detection_max_us...). The
 * summary holds the first protocol's figures under plain names and, when
 * both ran, TDMA's under "tdma_". Which parts are the paper's and which
 * are our model: labs/nop/README.md.
 */
#include "lab.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/rt_err.h"
#include "core/rt_hist.h"
#include "core/rt_json.h"
#include "core/rt_log.h"
#include "core/rt_result.h"
#include "core/rt_sink.h"
#include "core/rt_keys.h"
#include "lab_nop.h"
#include "lab_nop_int.h"
#include "sim/sim.h"

#define CHUNK_STEPS 20000u	/* frames between two looks at the stop flag */
#define NOP_DURATION_MS 100u
#define NOP_BIT_NS 125u	/* 8 Mbit/s: the lab's bus, sim_nop_lesson()'s */
#define NOP_MAX_FAULT_ROWS 500u	/* rows of the faults view */

static const char *const medium_words[] = { "sim", "netns", NULL };
static const char *const proto_words[] = { "nop", "tdma", "both", NULL };
static const char *const inject_words[] = { "rtlab", "netem", "both", NULL };
/* The lesson's frames, in us (bytes at 8 Mbit/s); 0 is "nothing to send". */
static const uint16_t lesson_frames[4] = { 30, 100, 0, 45 };

/* ---- Options -------------------------------------------------------------------- */

void nop_params_init(struct nop_params *p)
{
	memset(p, 0, sizeof(*p));
	p->medium = NOP_MEDIUM_SIM;
	p->protocol = NOP_SEL_BOTH;
	p->nodes = 4;
	p->duration_ms = NOP_DURATION_MS;
	p->faults[0] = (struct sim_nop_fault){ 1000000, SIM_NOP_F_CRASH, 1 };
	p->nfaults = 1;
}

static void params_default(void *params)
{
	nop_params_init(params);
}

/* "1ms", "250us", "2.5ms", "2s", "5000ns", "3" (ms) into ns. */
static int parse_time(const char *s, uint64_t *ns)
{
	char *end;
	double d, mul;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	d = strtod(s, &end);
	if (errno || end == s)
		return -EINVAL;
	if (!strcmp(end, "ns"))
		mul = 1;
	else if (!strcmp(end, "us"))
		mul = 1e3;
	else if (!strcmp(end, "ms") || !*end)
		mul = 1e6;
	else if (!strcmp(end, "s"))
		mul = 1e9;
	else
		return -EINVAL;
	d *= mul;
	if (!(d >= 0) || d > (double)SIM_NOP_DURATION_MAX)
		return -EINVAL;
	*ns = (uint64_t)(d + 0.5);
	return 0;
}

int nop_fault_parse(struct nop_params *p, const char *value, char **cause)
{
	char buf[64], *at, *colon;
	unsigned long node = 1;
	uint64_t t;
	int kind;

	if (!p->faults_given) {
		p->faults_given = true;
		p->nfaults = 0;		/* the first --fault replaces the default */
	}
	if (!strcmp(value, "none")) {
		p->nfaults = 0;
		return 0;
	}
	if (strlen(value) >= sizeof(buf))
		return rt_err(cause, -EINVAL, "--fault: '%s' is too long", value);
	strcpy(buf, value);
	at = strchr(buf, '@');
	if (!at)
		return rt_err(cause, -EINVAL, "--fault: '%s' is not KIND@TIME[:NODE] (e.g. "
			      "crash@2ms:1)", value);
	*at++ = 0;
	colon = strchr(at, ':');
	if (colon) {
		char *end;

		*colon++ = 0;
		errno = 0;
		node = strtoul(colon, &end, 10);
		if (end == colon || *end || errno || node >= SIM_NOP_NODES_MAX)
			return rt_err(cause, -EINVAL, "--fault: node '%s' is not 0 .. %u", colon,
				      SIM_NOP_NODES_MAX - 1);
	}
	kind = sim_nop_fault_find(buf);
	if (kind < 0)
		return rt_err(cause, -EINVAL, "--fault: no fault called '%s' (crash, babble, "
			      "skip, corrupt, late, dup, drift or repair)", buf);
	if (parse_time(at, &t))
		return rt_err(cause, -EINVAL, "--fault: '%s' is not a time (e.g. 2ms, 500us)", at);
	if (p->nfaults >= SIM_NOP_FAULTS_MAX)
		return rt_err(cause, -EINVAL, "--fault: at most %u faults", SIM_NOP_FAULTS_MAX);
	p->faults[p->nfaults++] = (struct sim_nop_fault){ t, (uint32_t)kind, (uint32_t)node };
	return 0;
}

static int set_fault(void *params, const char *value, char **cause)
{
	return nop_fault_parse(params, value, cause);
}

static int fault_cmp(const void *a, const void *b)
{
	const struct sim_nop_fault *x = a, *y = b;

	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

int nop_scenario(const struct nop_params *p, enum sim_nop_protocol protocol,
		 struct sim_nop_scenario *sc, struct sim_nop_fault *faults)
{
	uint32_t n = 0;

	sim_nop_lesson(sc, protocol);
	sc->nodes = p->nodes;
	for (uint32_t i = 0; i < p->nodes; i++)
		sc->frame_bytes[i] = lesson_frames[i % 4];
	if (p->load_pct) {
		sc->load_pct = p->load_pct;
		sc->data_min = 20;
	}
	if (protocol == SIM_NOP_PROTO_NOP) {
		sc->jitter_bits = p->jitter_us * 1000 / sc->bit_ns;
		if (sc->late_bits <= sc->jitter_bits)
			sc->late_bits = sc->jitter_bits + 400;
	}
	sc->duration_ns = (uint64_t)p->duration_ms * 1000000;
	for (unsigned int i = 0; i < p->nfaults; i++)
		if (protocol == SIM_NOP_PROTO_TDMA || p->faults[i].kind != SIM_NOP_F_DRIFT)
			faults[n++] = p->faults[i];
	/* A stable order: equal times keep the order they were given in. */
	for (uint32_t i = 1; i < n; i++)
		for (uint32_t j = i; j > 0 && fault_cmp(&faults[j - 1], &faults[j]) > 0; j--) {
			struct sim_nop_fault t = faults[j];

			faults[j] = faults[j - 1];
			faults[j - 1] = t;
		}
	sc->faults = n ? faults : NULL;
	sc->nfaults = n;
	return 0;
}

static int params_check(void *params, char **cause)
{
	struct nop_params *p = params;
	struct sim_nop_fault faults[SIM_NOP_FAULTS_MAX];
	struct sim_nop_scenario sc;
	int ret;

	for (unsigned int i = 0; i < p->nfaults; i++)
		if (p->faults[i].node >= p->nodes)
			return rt_err(cause, -EINVAL, "--fault %s: node %u, but --nodes %u numbers "
				      "them 0 .. %u", sim_nop_fault_names[p->faults[i].kind],
				      p->faults[i].node, p->nodes, p->nodes - 1);
	if (p->medium == NOP_MEDIUM_NETNS) {
		for (unsigned int i = 0; i < p->nfaults; i++)
			if (p->faults[i].kind == SIM_NOP_F_REPAIR ||
			    p->faults[i].kind == SIM_NOP_F_DRIFT)
				return rt_err(cause, -EINVAL, "--fault %s: not on the real medium "
					      "(a crash there kills the node's process; TDMA runs "
					      "in the simulation only)",
					      sim_nop_fault_names[p->faults[i].kind]);
		if (p->inject != NOP_INJECT_RTLAB && p->protocol == NOP_SEL_TDMA)
			return rt_err(cause, -EINVAL, "--inject %s: the real medium runs NOP only",
				      inject_words[p->inject]);
		if (p->nodes > 16 || p->load_pct || p->jitter_us)
			return rt_err(cause, -EINVAL, "--medium netns: at most 16 nodes, the "
				      "lesson's frames, and the machine's own jitter (no --load, "
				      "--jitter)");
	}
	if (p->medium != NOP_MEDIUM_NETNS && p->inject != NOP_INJECT_RTLAB)
		return rt_err(cause, -EINVAL, "--inject %s: tc netem acts on the real medium's "
			      "veths; add --medium netns (root, a kernel with sch_netem)",
			      inject_words[p->inject]);
	if (p->protocol == NOP_SEL_NOP)
		for (unsigned int i = 0; i < p->nfaults; i++)
			if (p->faults[i].kind == SIM_NOP_F_DRIFT)
				return rt_err(cause, -EINVAL, "--fault drift: NOP keeps no clock "
					      "that could drift; use --protocol tdma or both");
	for (int proto = 0; proto < SIM_NOP_NPROTOS; proto++) {
		if (p->protocol != NOP_SEL_BOTH && p->protocol != proto)
			continue;
		nop_scenario(p, proto, &sc, faults);
		ret = sim_nop_model.check(&sc, cause);
		if (ret)
			return ret;
	}
	return 0;
}

static const struct lab_option nop_options[] = {
	{ .name = "medium", .kind = LAB_OPT_ENUM, .values = medium_words,
	  LAB_OPT_AT(struct nop_params, medium),
	  .help = "Where the bus is: sim, the model (bit-time accurate, seeded, a simulation), "
		  "or netns, node processes in network namespaces of their own exchanging raw "
		  "Ethernet frames (root only).", .defval = "sim" },
	{ .name = "protocol", .kind = LAB_OPT_ENUM, .values = proto_words,
	  LAB_OPT_AT(struct nop_params, protocol),
	  .help = "Run NOP, TDMA or both side by side with the same workload and faults.",
	  .defval = "both" },
	{ .name = "nodes", .kind = LAB_OPT_UINT, .min = 2, .max = SIM_NOP_NODES_MAX,
	  LAB_OPT_AT(struct nop_params, nodes),
	  .help = "Nodes on the bus. They send the lesson's frames (30, 100, nothing, 45 us) "
		  "in turn, repeated past the fourth.", .defval = "4" },
	{ .name = "load", .kind = LAB_OPT_UINT, .min = 0, .max = 100, .metavar = "PCT",
	  LAB_OPT_AT(struct nop_params, load_pct),
	  .help = "Instead of the lesson's frames, each node has data in PCT percent of its "
		  "turns, 20 to 100 us of it, drawn from the seed; 0 keeps the lesson's frames.",
	  .defval = "0" },
	{ .name = "jitter", .kind = LAB_OPT_UINT, .min = 0, .max = 1000, .metavar = "US",
	  LAB_OPT_AT(struct nop_params, jitter_us),
	  .help = "NOP: processing jitter of up to US microseconds on top of the 5 us gap; the "
		  "timeout grows by as much.", .defval = "0" },
	{ .name = "duration", .kind = LAB_OPT_DURATION, .min = 1000000,
	  .max = 3600ull * 1000000000ull, .unit_ns = 1000000,
	  LAB_OPT_AT(struct nop_params, duration_ms),
	  .help = "Bus time to simulate (sim) or to run (netns).", .defval = "100ms" },
	{ .name = "fault", .kind = LAB_OPT_STRING, .metavar = "KIND@TIME[:NODE]",
	  .set = set_fault,
	  .help = "Inject a fault at TIME (ns, us, ms or s; a bare number is ms) on NODE "
		  "(default 1): crash, babble, skip, corrupt, late, dup, drift (TDMA only) or "
		  "repair (the node recovers and rejoins). Repeat for more; \"none\" for a "
		  "fault-free bus.", .defval = "crash@1ms:1" },
	{ .name = "inject", .kind = LAB_OPT_ENUM, .values = inject_words,
	  LAB_OPT_AT(struct nop_params, inject),
	  .help = "netns: who injects skip, corrupt and late faults: rtlab (an order to the "
		  "node), netem (tc netem loss, corrupt or delay on the node's veth, for as "
		  "long as the fault is undetected; needs sch_netem, as in the classroom VM) "
		  "or both (each such fault twice: rtlab's at its time, netem's twin after the "
		  "detection bound, side by side in the results).", .defval = "rtlab" },
	{ .name = NULL },
};

/* ---- The simulated run --------------------------------------------------------------- */

struct nop_poll {
	struct lab_ctx *ctx;
	const struct rt_sink *sink;
	struct sim_events *ev;
	json_t *faults;		/* rows of the faults table */
	const char *proto;
	uint64_t duration_ns;
	bool stopped;
	struct timespec t0;	/* wall clock at the start, for a paced run */
	uint32_t injected[SIM_NOP_NODES_MAX];	/* the kind last injected into each node */
};

/*
 * A monitor sees the bus, not the fault: some kinds look like others. Why,
 * for the faults table's note beside a detection of another kind.
 */
static const struct {
	uint32_t injected, seen;
	const char *why;
} nop_lookalikes[] = {
	{ SIM_NOP_F_SKIP, SIM_NOP_F_CRASH, "a silent turn looks the same as a crash's first one" },
	{ SIM_NOP_F_BABBLE, SIM_NOP_F_DUP, "a frame out of turn under a member's id looks like "
					   "a second node claiming it" },
	{ SIM_NOP_F_DUP, SIM_NOP_F_CORRUPT, "TDMA: two senders in one slot collide, a bad CRC" },
	{ SIM_NOP_F_DRIFT, SIM_NOP_F_LATE, "TDMA: a drifting clock shows as a frame outside its "
					   "window" },
};

/* The faults table's note for event @e: what was injected, or why nothing was. */
static char *fault_note(struct nop_poll *p, const struct sim_event *e)
{
	uint32_t kind = (uint32_t)(e->a & 0xff), inj;
	const char *why = "the monitor sees the bus, not the fault";
	char *s = NULL;
	int r = 0;

	if (e->type == SIM_NOP_EV_LOST) {
		r = asprintf(&s, "node %u %s at %.1f us", e->who,
			     e->a & SIM_NOP_EVA_CRASHED ? "had crashed" : "was excluded",
			     (double)e->b / 1000.0);
	} else if (e->type == SIM_NOP_EV_DETECT && e->who < SIM_NOP_NODES_MAX) {
		inj = p->injected[e->who];
		if (inj == kind || inj == SIM_NOP_F_NONE || inj >= SIM_NOP_NKINDS)
			return strdup("");
		for (size_t i = 0; i < sizeof(nop_lookalikes) / sizeof(nop_lookalikes[0]); i++)
			if (nop_lookalikes[i].injected == inj && nop_lookalikes[i].seen == kind)
				why = nop_lookalikes[i].why;
		r = asprintf(&s, "injected as %s: %s", sim_nop_fault_names[inj], why);
	} else {
		return strdup("");
	}
	return r < 0 ? NULL : s;
}

static void live_event(struct nop_live *live, const struct sim_event *e)
{
	unsigned int i;

	if (live->nev < NOP_LIVE_EVENTS) {
		i = (live->head + live->nev++) % NOP_LIVE_EVENTS;
	} else {
		i = live->head;
		live->head = (live->head + 1) % NOP_LIVE_EVENTS;
	}
	live->ev[i] = *e;
}

/* A fault event into the faults table: inject, detect, false positive, repair, not injected. */
static int fault_row(struct nop_poll *p, const struct sim_event *e)
{
	const char *what = e->type == SIM_NOP_EV_INJECT ? "injected" :
			   e->type == SIM_NOP_EV_DETECT ? "detected" :
			   e->type == SIM_NOP_EV_REPAIR ? "repaired" :
			   e->type == SIM_NOP_EV_LOST ? "not injected" : "false positive";
	uint32_t kind = e->type == SIM_NOP_EV_REPAIR ? SIM_NOP_F_REPAIR :
			(e->a & 0xff) < SIM_NOP_NKINDS ? (uint32_t)(e->a & 0xff) : 0;
	char *note;
	int ret;

	if (e->type == SIM_NOP_EV_INJECT && e->who < SIM_NOP_NODES_MAX)
		p->injected[e->who] = kind;
	if (json_array_size(p->faults) >= NOP_MAX_FAULT_ROWS)
		return 0;
	note = fault_note(p, e);
	if (!note)
		return -ENOMEM;
	ret = json_array_append_new(p->faults, json_pack("[s, f, i, s, s, f, s]", p->proto,
				    (double)e->time / 1000.0, (int)e->who, what,
				    sim_nop_fault_names[kind],
				    e->type == SIM_NOP_EV_DETECT ? (double)e->b / 1000.0 : 0.0,
				    note)) ? -ENOMEM : 0;
	free(note);
	return ret;
}

static int nop_poll_fn(void *priv, struct sim *s)
{
	struct nop_poll *p = priv;
	struct nop_live *live = p->ctx->live;
	struct sim_event e;
	char what[96];
	uint64_t pct;
	bool locked = live && live->lock_ready && !pthread_mutex_lock(&live->lock);

	while (sim_events_pop(p->ev, &e)) {
		if ((e.type == SIM_NOP_EV_INJECT || e.type == SIM_NOP_EV_DETECT ||
		     e.type == SIM_NOP_EV_FALSE || e.type == SIM_NOP_EV_REPAIR ||
		     e.type == SIM_NOP_EV_LOST) && fault_row(p, &e))
			break;
		if (live)
			live_event(live, &e);
	}
	if (live) {
		const struct sim_counters *c = sim_counters(s);

		memcpy(live->counters, c->v, sizeof(live->counters));
		live->members = sim_nop_members(sim_state(s));
		live->steps = sim_steps(s);
	}
	if (locked)
		pthread_mutex_unlock(&live->lock);
	if (live && live->pace) {
		/* A screen watches: let bus time pass at 1/pace of the wall clock. */
		uint64_t want = sim_counters(s)->v[SIM_NOP_C_TIME] * live->pace;
		struct timespec ts = { p->t0.tv_sec + (time_t)(want / 1000000000u),
				       p->t0.tv_nsec + (long)(want % 1000000000u) };

		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	snprintf(what, sizeof(what), "%s: %llu frames", p->proto,
		 (unsigned long long)sim_steps(s));
	pct = sim_counters(s)->v[SIM_NOP_C_TIME] * 100 / (p->duration_ns ? p->duration_ns : 1);
	rt_sink_progress(p->sink, pct > 100 ? 100 : (unsigned int)pct, what);
	if (lab_ctx_stopped(p->ctx)) {
		p->stopped = true;
		return 1;
	}
	return 0;
}

/* The lab's figures from the counters, into @o (an extra.scenarios element or the summary). */
int nop_figures(json_t *o, const struct sim_counters *c)
{
	const uint64_t *v = c->v;
	double t = (double)v[SIM_NOP_C_TIME];
	double det = (double)v[SIM_NOP_C_DETECTED];

	return (json_object_set_new(o, "utilisation_pct",
				    json_real(t > 0 ? 100.0 * (double)v[SIM_NOP_C_DATA_TIME] / t : 0)) ||
		json_object_set_new(o, "bus_busy_pct",
				    json_real(t > 0 ? 100.0 * (double)v[SIM_NOP_C_BUSY_TIME] / t : 0)) ||
		json_object_set_new(o, "goodput_pct",
				    json_real(t > 0 ? 100.0 * (double)v[SIM_NOP_C_DATA_BYTES] * 8 *
						      NOP_BIT_NS / t : 0)) ||
		json_object_set_new(o, "detection_max_us",
				    json_real((double)v[SIM_NOP_C_DETECT_MAX] / 1000.0)) ||
		json_object_set_new(o, "detection_avg_us",
				    json_real(det > 0 ? (double)v[SIM_NOP_C_DETECT_SUM] / det / 1000.0
						      : 0)) ||
		json_object_set_new(o, "detection_bound_us",
				    json_real((double)v[SIM_NOP_C_BOUND] / 1000.0)) ||
		json_object_set_new(o, "timeout_us",
				    json_real((double)v[SIM_NOP_C_TIMEOUT] / 1000.0)) ||
		json_object_set_new(o, "round_max_us",
				    json_real((double)v[SIM_NOP_C_ROUND_MAX] / 1000.0)) ||
		json_object_set_new(o, "access_max_us",
				    json_real((double)v[SIM_NOP_C_ACCESS_MAX] / 1000.0)) ||
		json_object_set_new(o, "access_jitter_max_us",
				    json_real((double)v[SIM_NOP_C_JITTER_MAX] / 1000.0)) ||
		json_object_set_new(o, "agreement_max_us",
				    json_real((double)v[SIM_NOP_C_AGREE_MAX] / 1000.0))) ? -ENOMEM : 0;
}

/*
 * A drift asked of both protocols is TDMA's alone (nop_scenario() gives NOP
 * none): NOP's part of the table says so, as for any fault that could not
 * happen, rather than leave the learner to count the rows.
 */
static int drift_rows(const struct nop_params *p, json_t *faults)
{
	for (unsigned int i = 0; i < p->nfaults; i++) {
		if (p->faults[i].kind != SIM_NOP_F_DRIFT ||
		    json_array_size(faults) >= NOP_MAX_FAULT_ROWS)
			continue;
		if (json_array_append_new(faults, json_pack("[s, f, i, s, s, f, s]",
				sim_nop_protocol_names[SIM_NOP_PROTO_NOP],
				(double)p->faults[i].time_ns / 1000.0, (int)p->faults[i].node,
				"not injected", sim_nop_fault_names[SIM_NOP_F_DRIFT], 0.0,
				"NOP keeps no clock that could drift: TDMA only")))
			return -ENOMEM;
	}
	return 0;
}

static int run_sim(struct lab_ctx *ctx, const struct rt_sink *sink, const struct nop_params *p,
		   enum sim_nop_protocol proto, struct rt_result *res, json_t *scens,
		   json_t *faults, bool *stopped, char **cause)
{
	struct sim_nop_fault fl[SIM_NOP_FAULTS_MAX];
	struct sim_nop_scenario sc;
	struct nop_poll poll = { ctx, sink, NULL, faults, sim_nop_protocol_names[proto], 0,
				 false, { 0, 0 }, { 0 } };
	struct nop_live *live = ctx->live;
	struct sim_events ev;
	struct sim *s = NULL;
	char hname[64];
	json_t *o;
	int ret;

	nop_scenario(p, proto, &sc, fl);
	poll.duration_ns = sc.duration_ns;
	ret = sim_events_init(&ev, 1u << 16);
	if (ret)
		return rt_err(cause, ret, "no memory for the event ring");
	poll.ev = &ev;
	if (live && live->lock_ready && !pthread_mutex_lock(&live->lock)) {
		live->protocol = (int)proto;
		live->nodes = sc.nodes;
		live->nev = live->head = 0;
		pthread_mutex_unlock(&live->lock);
	}
	ret = sim_new(&sim_nop_model, &sc, ctx->seed, &s, cause);
	if (ret)
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &poll.t0);
	ret = sim_run_chunked(s, SIM_STEPS_ALL, live && live->pace ? 50 : CHUNK_STEPS, &ev,
			      nop_poll_fn, &poll);
	if (ret && !poll.stopped)
		goto out;
	ret = proto == SIM_NOP_PROTO_NOP ? drift_rows(p, faults) : 0;
	if (ret)
		goto out;
	*stopped = poll.stopped;
	o = json_pack("{s:s, s:s, s:b}", "name", poll.proto, "summary",
		      proto == SIM_NOP_PROTO_NOP ? "the Node Order Protocol: turns in a fixed "
		      "order, each after its predecessor's frame" : "TDMA: static slots of the "
		      "longest frame plus a guard band", "interrupted", poll.stopped);
	ret = o ? sim_counters_to_json(sim_counters(s), o) : -ENOMEM;
	if (!ret)
		ret = nop_figures(o, sim_counters(s));
	if (!ret && json_array_append(scens, o))
		ret = -ENOMEM;
	json_decref(o);
	for (unsigned int h = 0; !ret && h < SIM_NOP_NHISTS; h++) {
		snprintf(hname, sizeof(hname), "%s.%s", poll.proto, sim_nop_model.hists[h]);
		ret = rt_result_add_rt_hist(res, hname, sim_hist(s, h));
	}
out:
	sim_free(s);
	sim_events_fini(&ev);
	return ret;
}

/* The summary: the first protocol's figures plainly, TDMA's under "tdma_" when both ran. */
static const char *const summary_keys[] = {
	"faults_injected_count", "faults_detected_count", "false_positives_count",
	"detection_max_us", "detection_bound_us", "utilisation_pct", "goodput_pct",
	"round_max_us", "access_max_us", "access_jitter_max_us", "frames_count", NULL,
};

static int put_summary(struct rt_result *res, json_t *scens)
{
	char key[96];
	int ret = 0;

	for (size_t i = 0; !ret && i < json_array_size(scens); i++) {
		json_t *s = json_array_get(scens, i);

		for (size_t k = 0; !ret && summary_keys[k]; k++) {
			snprintf(key, sizeof(key), "%s%s", i ? "tdma_" : "", summary_keys[k]);
			ret = rt_result_set_summary(res, key,
					json_number_value(json_object_get(s, summary_keys[k])));
		}
	}
	return ret;
}

static int record_params(struct rt_result *res, const struct nop_params *p)
{
	json_t *fl = json_array();
	char buf[96];
	int ret;

	if (!fl)
		return -ENOMEM;
	for (unsigned int i = 0; i < p->nfaults; i++) {
		snprintf(buf, sizeof(buf), "%s@%lluns:%u", sim_nop_fault_names[p->faults[i].kind],
			 (unsigned long long)p->faults[i].time_ns, p->faults[i].node);
		if (json_array_append_new(fl, json_string(buf))) {
			json_decref(fl);
			return -ENOMEM;
		}
	}
	ret = rt_result_set_param_str(res, "medium", medium_words[p->medium]) ?:
	      rt_result_set_param_str(res, "protocol", proto_words[p->protocol]) ?:
	      rt_result_set_param_num(res, "nodes", p->nodes) ?:
	      rt_result_set_param_num(res, "load_pct", p->load_pct) ?:
	      rt_result_set_param_num(res, "jitter_us", p->jitter_us) ?:
	      rt_result_set_param_num(res, "duration_ms", p->duration_ms) ?:
	      rt_result_set_param_num(res, "bit_rate_mbps", 8) ?:
	      rt_result_set_param_num(res, "gap_us", 5);
	/* rt_result_set_param_json() takes @fl's reference, also on failure. */
	if (!ret)
		return rt_result_set_param_json(res, "faults", fl);
	json_decref(fl);
	return ret;
}

static int nop_run(struct lab_ctx *ctx, const struct rt_sink *sink, struct lab_result *out)
{
	struct nop_params defaults;
	const struct nop_params *p = ctx->params;
	struct rt_result *res = NULL;
	json_t *scens = json_array(), *faults = json_array(), *extra;
	char *cause = NULL;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (!p && ctx->live)
		p = ((struct nop_live *)ctx->live)->params;
	if (!p) {
		nop_params_init(&defaults);
		p = &defaults;
	}
	if (p->medium == NOP_MEDIUM_NETNS) {
		ret = nop_netns_run(ctx, sink, p, out);
		goto out;
	}
	res = rt_result_new("nop", "simulation", ctx->env);
	if (!res || !scens || !faults) {
		ret = -ENOMEM;
		goto out;
	}
	ret = lab_seed_record(res, ctx->seed) ?: record_params(res, p);
	for (int proto = 0; !ret && proto < SIM_NOP_NPROTOS; proto++) {
		if (p->protocol != NOP_SEL_BOTH && p->protocol != proto)
			continue;
		if (out->interrupted)
			break;
		ret = run_sim(ctx, sink, p, proto, res, scens, faults, &out->interrupted, &cause);
	}
	if (ret) {
		rt_log(RT_LOG_ERR, "nop: %s", cause ? cause : strerror(-ret));
		goto out;
	}
	ret = put_summary(res, scens) ?:
	      rt_result_add_note(res, "SIMULATED: a model of a bus of 8 Mbit/s shared by the "
				 "Node Order Protocol and by TDMA, not a measurement of this "
				 "machine; the frame format, gap, timeout and bound are our model, "
				 "not the paper's (labs/nop/README.md)");
	if (!ret && out->interrupted)
		ret = rt_result_add_note(res, "interrupted: the document holds the bus time "
					 "simulated until then");
	if (!ret)
		ret = rt_result_set_scenarios(res, scens);
	extra = ret ? NULL : rt_result_extra(res);
	if (!ret && (!extra || json_object_set(extra, "faults", faults)))
		ret = -ENOMEM;
	if (!ret) {
		out->res = res;
		res = NULL;
	}
out:
	free(cause);
	json_decref(scens);
	json_decref(faults);
	rt_result_free(res);
	return ret;
}

/* ---- Views and grade -------------------------------------------------------------- */

static int nop_views(const struct rt_result *res, json_t *views, char **cause)
{
	json_t *rows = json_array(), *s, *fl;
	const char *tier = rt_result_tier(res);
	bool sim = tier && !strcmp(tier, "simulation");
	size_t i;

	(void)cause;
	if (!rows)
		return -ENOMEM;
	json_array_foreach(rt_result_scenarios(res), i, s) {
		if (json_array_append_new(rows, json_pack("[s, o, o, o, o, o, o, o, o, o]",
				json_string_value(json_object_get(s, "name")) ?: "",
				rt_json_num_cell(s, "utilisation_pct"), rt_json_num_cell(s, "goodput_pct"),
				rt_json_num_cell(s, "round_max_us"), rt_json_num_cell(s, "access_jitter_max_us"),
				rt_json_num_cell(s, "faults_injected_count"), rt_json_num_cell(s, "faults_detected_count"),
				rt_json_num_cell(s, "false_positives_count"), rt_json_num_cell(s, "detection_max_us"),
				rt_json_num_cell(s, "detection_bound_us")))) {
			json_decref(rows);
			return -ENOMEM;
		}
	}
	if (json_array_append_new(views, json_pack(
		"{s:s, s:s, s:[{s:s}, {s:s, s:s, s:s}, {s:s, s:s, s:s}, {s:s, s:s, s:s}, "
		"{s:s, s:s, s:s}, {s:s}, {s:s}, {s:s, s:s}, {s:s, s:s, s:s}, {s:s, s:s, s:s}], "
		"s:o}", "name", "protocols", "title",
		sim ? "NOP and TDMA side by side (simulated bus, not this machine)" :
		      "NOP and TDMA side by side (node processes in network namespaces)",
		"columns", "name", "protocol",
		"name", "utilisation", "title", "utilisation", "unit", "pct",
		"name", "goodput", "title", "payload share", "unit", "pct",
		"name", "round_max", "title", "longest round", "unit", "us",
		"name", "jitter", "title", "access jitter", "unit", "us",
		"name", "injected", "name", "detected",
		"name", "false_pos", "title", "false positives",
		"name", "detect_max", "title", "worst detection", "unit", "us",
		"name", "bound", "title", "bound", "unit", "us", "rows", rows)))
		return -ENOMEM;
	fl = json_object_get(rt_result_extra((struct rt_result *)res), "faults");
	if (!json_is_array(fl) || !json_array_size(fl))
		return 0;
	return json_array_append_new(views, json_pack(
		"{s:s, s:s, s:[{s:s}, {s:s, s:s}, {s:s}, {s:s}, {s:s}, {s:s, s:s, s:s}, {s:s}], "
		"s:O}", "name", "faults", "title", "Faults injected and detected",
		"columns", "name", "protocol", "name", "time", "unit", "us", "name", "node",
		"name", "event", "name", "kind", "name", "latency", "title", "latency", "unit", "us",
		"name", "note", "rows", fl)) ? -ENOMEM : 0;
}

/* The comparison needs both protocols: the simulated run (a netns run has NOP only). */
static int nop_grade_lacks(const struct rt_result *res, struct rt_buf *missing)
{
	static const char *const needs[] = { "nop", "tdma", NULL };

	return lab_lacks_scenarios(res, needs, missing);
}

/* Every fault detected, within its bound, no false positive; NOP no worse than TDMA. */
static int nop_grade(const struct lab_result *r, struct grade_report *rep)
{
	json_t *s;
	size_t i;
	int ret = 0;

	json_array_foreach(rt_result_scenarios(r->res), i, s) {
		const char *name = json_string_value(json_object_get(s, "name")) ?: "?";
		double inj = rt_json_num(s, "faults_injected_count");
		double det = rt_json_num(s, "faults_detected_count");
		double fp = rt_json_num(s, "false_positives_count"), max = rt_json_num(s, "detection_max_us");
		double bound = rt_json_num(s, "detection_bound_us");
		char id[64];

		snprintf(id, sizeof(id), "%s-all-detected", name);
		ret = grade_report_add(rep, id, det >= inj, "%s: %g of %g injected faults "
				       "detected", name, det, inj);
		snprintf(id, sizeof(id), "%s-within-bound", name);
		if (!ret)
			ret = grade_report_add(rep, id, max <= bound, "%s: the worst detection took "
					       "%.1f us, the bound is %.1f us", name, max, bound);
		snprintf(id, sizeof(id), "%s-no-false-positive", name);
		if (!ret)
			ret = grade_report_add(rep, id, fp == 0, "%s: %g verdicts against correct "
					       "nodes", name, fp);
		if (ret)
			return ret;
	}
	if (json_array_size(rt_result_scenarios(r->res)) == 2) {
		double a = rt_result_scenario_num(r->res, "nop", "utilisation_pct");
		double b = rt_result_scenario_num(r->res, "tdma", "utilisation_pct");

		ret = grade_report_add(rep, "nop-uses-the-bus-better", a >= b,
				       "utilisation: NOP %.1f %%, TDMA %.1f %%", a, b);
	}
	return ret;
}

static bool nop_scenario_fn(size_t i, struct lab_scenario *out)
{
	static const struct lab_scenario s[] = {
		{ "nop", "the Node Order Protocol: turns in a fixed order, each after its "
			 "predecessor's frame" },
		{ "tdma", "TDMA: static slots of the longest frame plus a guard band" },
	};

	if (i >= sizeof(s) / sizeof(s[0]))
		return false;
	*out = s[i];
	return true;
}

/* ---- The descriptor --------------------------------------------------------------- */

static const char *const nop_questions[] = { "why-timeout", "tdma-or-nop", NULL };

/* ---- Declared keys ---------------------------------------------------------------- */

/*
 * Its document's own keys (lab_ops.params_keys, .scenario_keys; the model's
 * counters follow). A run on the namespaces' veth medium may add figures of
 * its own, so a scenario may hold others.
 */
static const struct rt_key nop_params_keys[] = {
	RT_RESULT_SEED_KEY,
	RT_KEY("medium", RT_T_STRING, NULL, "the bus: simulated, or veth in namespaces", true),
	RT_KEY("protocol", RT_T_STRING, NULL, "the protocols run", true),
	RT_KEY("nodes", RT_T_INTEGER, "count", "nodes on the bus", true),
	RT_KEY("load_pct", RT_T_INTEGER, "pct", "offered load", true),
	RT_KEY("jitter_us", RT_T_INTEGER, "us", "the nodes' clock jitter", true),
	RT_KEY("duration_ms", RT_T_INTEGER, "ms", "bus time simulated", true),
	RT_KEY("bit_rate_mbps", RT_T_INTEGER, NULL, "the bus's bit rate in Mbit/s", true),
	RT_KEY("gap_us", RT_T_INTEGER, "us", "the gap between frames", true),
	RT_KEY("faults", RT_T_ARRAY, NULL, "the faults injected (--fault)", true,
	       .items = RT_T_STRING),
	RT_KEY_END,
};
static const struct rt_keys nop_params_table = { .keys = nop_params_keys };
static const struct rt_key nop_any = RT_KEY(NULL, 0, NULL, "a figure of the medium", false);
static const struct rt_key nop_scenario_keys[] = {
	RT_RESULT_SCENARIO_NAME_KEYS,
	RT_KEY("interrupted", RT_T_BOOL, NULL, "the run was stopped before the scenario's end",
	       true),
	RT_KEY("utilisation_pct", RT_T_NUMBER, "pct", "bus time carrying payload", true),
	RT_KEY("bus_busy_pct", RT_T_NUMBER, "pct", "bus time carrying any frame", true),
	RT_KEY("goodput_pct", RT_T_NUMBER, "pct", "payload delivered of payload offered", true),
	RT_KEY("detection_max_us", RT_T_NUMBER, "us", "slowest fault detection", true),
	RT_KEY("detection_avg_us", RT_T_NUMBER, "us", "mean fault detection", true),
	RT_KEY("detection_bound_us", RT_T_NUMBER, "us", "the protocol's detection bound", true),
	RT_KEY("timeout_us", RT_T_NUMBER, "us", "the silence that excludes a node", true),
	RT_KEY("round_max_us", RT_T_NUMBER, "us", "longest round", true),
	RT_KEY("access_max_us", RT_T_NUMBER, "us", "longest wait for the bus", true),
	RT_KEY("access_jitter_max_us", RT_T_NUMBER, "us", "largest jitter of bus access", true),
	RT_KEY("agreement_max_us", RT_T_NUMBER, "us", "longest until all nodes agree", true),
	RT_KEY_END,
};
static const struct rt_keys nop_scenario_table = { .keys = nop_scenario_keys,
						   .others = &nop_any };

const struct lab_ops lab_nop = {
	.name = "nop",
	.title = "Node Order Protocol vs TDMA",
	.summary = "Nodes on a shared medium take turns by a fixed order; inject faults "
		   "and compare with TDMA.",
	.lesson = 9,
	.state = LAB_STATE_READY,
	.needs = LAB_NEED_NETNS,
	.sim = true,
	.run = nop_run,
	.views = nop_views,
	.model = &sim_nop_model,
	.grade = nop_grade,
	.grade_lacks = nop_grade_lacks,
	.scenario = nop_scenario_fn,
	.options = nop_options,
	.options_note = "The default bus is lesson 09's worked example: 4 nodes at 8 Mbit/s "
			"(a byte a microsecond) sending 30, 100, nothing and 45 us with 5 us "
			"gaps, TDMA slots of 100 + 20 us, and one crash of node 1 at 1 ms. "
			"--medium sim is a simulation: the same seed gives the same document.",
	.params_size = sizeof(struct nop_params),
	.params_init = params_default,
	.params_check = params_check,
	.questions = nop_questions,
	.params_keys = &nop_params_table,
	.scenario_keys = &nop_scenario_table,
};
