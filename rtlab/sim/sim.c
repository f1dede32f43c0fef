/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim: the simulator contract's plumbing: counters, the event ring, the
 * check of a model's tables and the instance a lab drives (sim_new(),
 * sim_run(), sim_run_chunked()). The models are in their own files; this
 * file knows none of them.
 *
 * Like the models, this file does no I/O and reads no clock: the only
 * things it calls are the allocator (at set-up), string functions and
 * jansson (for sim_counters_to_json()).
 */
#include "sim.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_err.h"

struct sim {
	const struct sim_model_ops *model;	/* borrowed */
	uint64_t seed;
	uint64_t steps;		/* done since sim_new() */
	bool done;		/* the model reached its end */
	struct sim_counters counters;
	void *state;		/* owned: model->state_size bytes */
};

/* Default chunk of sim_run_chunked(): a few ms of the fastest models. */
#define SIM_CHUNK_DEFAULT (1u << 20)

/* ---- Counters ------------------------------------------------------------ */

void sim_counters_init(struct sim_counters *c, const struct sim_counter_desc *desc,
		       unsigned int n)
{
	memset(c, 0, sizeof(*c));
	c->desc = desc;
	c->n = n > SIM_MAX_COUNTERS ? SIM_MAX_COUNTERS : n;
}

int sim_counters_get(const struct sim_counters *c, const char *name, uint64_t *out)
{
	for (unsigned int i = 0; i < c->n; i++) {
		if (strcmp(c->desc[i].name, name) == 0) {
			*out = c->v[i];
			return 0;
		}
	}
	return -ENOENT;
}

int sim_counters_merge(struct sim_counters *dst, const struct sim_counters *src)
{
	if (dst->desc != src->desc || dst->n != src->n)
		return -EINVAL;
	for (unsigned int i = 0; i < dst->n; i++) {
		if (dst->desc[i].kind == SIM_COUNTER_MAX)
			sim_counter_max(dst, i, src->v[i]);
		else
			dst->v[i] += src->v[i];
	}
	return 0;
}

bool sim_counters_equal(const struct sim_counters *a, const struct sim_counters *b)
{
	return a->desc == b->desc && a->n == b->n &&
	       memcmp(a->v, b->v, a->n * sizeof(a->v[0])) == 0;
}

int sim_counters_to_json(const struct sim_counters *c, json_t *obj)
{
	if (!json_is_object(obj))
		return -EINVAL;
	for (unsigned int i = 0; i < c->n; i++) {
		/* json_int_t is long long: the top bit of a u64 cannot be kept. */
		json_int_t v = c->v[i] > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)c->v[i];

		if (json_object_set_new(obj, c->desc[i].name, json_integer(v)))
			return -ENOMEM;
	}
	return 0;
}

/* ---- Events ---------------------------------------------------------------- */

int sim_events_init(struct sim_events *ev, size_t capacity)
{
	memset(ev, 0, sizeof(*ev));
	if (capacity == 0 || capacity > SIM_EVENTS_MAX)
		return -EINVAL;
	ev->buf = calloc(capacity, sizeof(*ev->buf));
	if (!ev->buf)
		return -ENOMEM;
	ev->cap = capacity;
	return 0;
}

void sim_events_fini(struct sim_events *ev)
{
	free(ev->buf);
	memset(ev, 0, sizeof(*ev));
}

void sim_events_clear(struct sim_events *ev)
{
	ev->head = 0;
	ev->count = 0;
	ev->pushed = 0;
	ev->lost = 0;
}

bool sim_events_pop(struct sim_events *ev, struct sim_event *out)
{
	if (ev->count == 0)
		return false;
	*out = ev->buf[ev->head];
	ev->head = ev->head + 1 == ev->cap ? 0 : ev->head + 1;
	ev->count--;
	return true;
}

const struct sim_event *sim_events_peek(const struct sim_events *ev, size_t i)
{
	size_t k;

	if (i >= ev->count)
		return NULL;
	k = ev->head + i;
	if (k >= ev->cap)
		k -= ev->cap;
	return &ev->buf[k];
}

/* ---- Model tables ---------------------------------------------------------- */

static bool name_ok(const char *s, size_t max, const char *extra)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n > max || !(s[0] >= 'a' && s[0] <= 'z'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(s[i] >= 'a' && s[i] <= 'z') && !(s[i] >= '0' && s[i] <= '9') &&
		    !strchr(extra, s[i]))
			return false;
	return true;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && strcmp(s + n - k, suffix) == 0;
}

/*
 * Whether the name of entry @i of a table appears in an earlier entry: the
 * names are the "const char *" at offset @off of entries @stride bytes apart.
 */
static bool name_seen(const void *table, size_t stride, size_t off, unsigned int i)
{
	const char *base = table;
	const char *name = *(const char *const *)(base + i * stride + off);

	for (unsigned int k = 0; k < i; k++)
		if (strcmp(*(const char *const *)(base + k * stride + off), name) == 0)
			return true;
	return false;
}

/* The units of doc/results.md: a counter is a summary value. */
static bool counter_name_ok(const char *s)
{
	static const char *const units[] = {
		"_us", "_ns", "_ms", "_s", "_count", "_pct", "_ratio", "_hz", "_bytes",
	};

	if (!name_ok(s, 64, "_"))
		return false;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (ends_with(s, units[i]))
			return true;
	return false;
}

static int check_counters(const struct sim_model_ops *m, char **cause)
{
	if (!m->counters || m->ncounters == 0 || m->ncounters > SIM_MAX_COUNTERS)
		return rt_err(cause, -EINVAL, "model %s: 1 to %u counters, not %u", m->name,
			      SIM_MAX_COUNTERS, m->ncounters);
	for (unsigned int i = 0; i < m->ncounters; i++) {
		const struct sim_counter_desc *d = &m->counters[i];

		if (!counter_name_ok(d->name))
			return rt_err(cause, -EINVAL,
				      "model %s: counter %u: \"%s\" is not a summary key ending in its unit",
				      m->name, i, d->name ? d->name : "(null)");
		if (d->kind != SIM_COUNTER_SUM && d->kind != SIM_COUNTER_MAX)
			return rt_err(cause, -EINVAL, "model %s: counter %s: unknown kind",
				      m->name, d->name);
		if (!d->help || !*d->help)
			return rt_err(cause, -EINVAL, "model %s: counter %s has no help",
				      m->name, d->name);
		if (name_seen(m->counters, sizeof(*d), offsetof(struct sim_counter_desc, name), i))
			return rt_err(cause, -EINVAL, "model %s: counter %s twice", m->name,
				      d->name);
	}
	return 0;
}

static int check_events(const struct sim_model_ops *m, char **cause)
{
	if (m->nevents > SIM_MAX_EVENT_TYPES || (m->nevents && !m->events))
		return rt_err(cause, -EINVAL, "model %s: at most %u event types", m->name,
			      SIM_MAX_EVENT_TYPES);
	for (unsigned int i = 0; i < m->nevents; i++) {
		const struct sim_event_desc *d = &m->events[i];

		if (!name_ok(d->name, 32, "-_"))
			return rt_err(cause, -EINVAL, "model %s: event type %u has a bad name",
				      m->name, i);
		if ((d->who && !name_ok(d->who, 32, "_")) ||
		    (d->a && !name_ok(d->a, 32, "_")) || (d->b && !name_ok(d->b, 32, "_")))
			return rt_err(cause, -EINVAL,
				      "model %s: event %s: argument names are [a-z][a-z0-9_]*",
				      m->name, d->name);
		if (name_seen(m->events, sizeof(*d), offsetof(struct sim_event_desc, name), i))
			return rt_err(cause, -EINVAL, "model %s: event %s twice", m->name,
				      d->name);
	}
	return 0;
}

static int check_hists(const struct sim_model_ops *m, char **cause)
{
	if (m->nhists > SIM_MAX_HISTS || (m->nhists && (!m->hists || !m->hist)))
		return rt_err(cause, -EINVAL,
			      "model %s: at most %u histograms, with names and hist()",
			      m->name, SIM_MAX_HISTS);
	for (unsigned int i = 0; i < m->nhists; i++) {
		if (!name_ok(m->hists[i], 64, "_.-"))
			return rt_err(cause, -EINVAL, "model %s: histogram %u has a bad name",
				      m->name, i);
		if (name_seen(m->hists, sizeof(m->hists[0]), 0, i))
			return rt_err(cause, -EINVAL, "model %s: histogram %s twice", m->name,
				      m->hists[i]);
	}
	return 0;
}

static int check_presets(const struct sim_model_ops *m, char **cause)
{
	if (m->npresets && !m->presets)
		return rt_err(cause, -EINVAL, "model %s: presets missing", m->name);
	for (unsigned int i = 0; i < m->npresets; i++) {
		const struct sim_preset *p = &m->presets[i];
		char *why = NULL;
		int ret;

		if (!name_ok(p->name, 32, "-") || !p->summary || !*p->summary || !p->scenario)
			return rt_err(cause, -EINVAL,
				      "model %s: preset %u needs a [a-z0-9-] name, a summary and a scenario",
				      m->name, i);
		if (name_seen(m->presets, sizeof(*p), offsetof(struct sim_preset, name), i))
			return rt_err(cause, -EINVAL, "model %s: preset %s twice", m->name,
				      p->name);
		ret = m->check(p->scenario, &why);
		if (ret) {
			ret = rt_err(cause, -EINVAL, "model %s: preset %s is refused: %s",
				     m->name, p->name, why ? why : "no reason given");
			free(why);
			return ret;
		}
	}
	return 0;
}

int sim_model_check(const struct sim_model_ops *m, char **cause)
{
	int ret;

	if (!m || !name_ok(m->name, 32, "-"))
		return rt_err(cause, -EINVAL, "a model needs a [a-z0-9-] name");
	if (!m->title || !m->step_unit || !m->time_unit || !*m->step_unit || !*m->time_unit)
		return rt_err(cause, -EINVAL, "model %s: title, step and time units are required",
			      m->name);
	if (!m->check || !m->init || !m->run || !m->fini)
		return rt_err(cause, -EINVAL, "model %s: check, init, run and fini are required",
			      m->name);
	if (m->state_size == 0 || m->scenario_size == 0)
		return rt_err(cause, -EINVAL, "model %s: state and scenario sizes are required",
			      m->name);
	ret = check_counters(m, cause);
	ret = ret ? ret : check_events(m, cause);
	ret = ret ? ret : check_hists(m, cause);
	ret = ret ? ret : check_presets(m, cause);
	return ret;
}

const struct sim_preset *sim_preset_find(const struct sim_model_ops *m, const char *name)
{
	for (unsigned int i = 0; i < m->npresets; i++)
		if (strcmp(m->presets[i].name, name) == 0)
			return &m->presets[i];
	return NULL;
}

/* Append to @buf as snprintf() would, keeping the length it would have had. */
static void __attribute__((format(printf, 4, 5)))
fmt_add(char *buf, size_t size, int *len, const char *fmt, ...)
{
	size_t off = (size_t)*len < size ? (size_t)*len : size;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + off, size - off, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len += n;
}

int sim_event_format(const struct sim_model_ops *m, const struct sim_event *e, char *buf,
		     size_t size)
{
	const struct sim_event_desc *d;
	int len = 0;

	if (e->type >= m->nevents)
		return -EINVAL;
	d = &m->events[e->type];
	fmt_add(buf, size, &len, "t=%llu %s", (unsigned long long)e->time, d->name);
	if (d->who)
		fmt_add(buf, size, &len, " %s=%u", d->who, (unsigned int)e->who);
	if (d->a)
		fmt_add(buf, size, &len, " %s=%llu", d->a, (unsigned long long)e->a);
	if (d->b)
		fmt_add(buf, size, &len, " %s=%llu", d->b, (unsigned long long)e->b);
	return len;
}

/* ---- Instances --------------------------------------------------------------- */

int sim_new(const struct sim_model_ops *m, const void *scenario, uint64_t seed,
	    struct sim **out, char **cause)
{
	struct sim *s = NULL;
	char *why = NULL;
	int ret;

	*out = NULL;
	ret = m->check(scenario, &why);
	if (ret) {
		ret = rt_err(cause, ret < 0 ? ret : -EINVAL, "%s: %s", m->name,
			     why ? why : "scenario refused");
		goto out_why;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		ret = rt_err(cause, -ENOMEM, "%s: out of memory", m->name);
		goto out_why;
	}
	s->state = calloc(1, m->state_size);
	if (!s->state) {
		ret = rt_err(cause, -ENOMEM, "%s: out of memory for its state", m->name);
		goto out_sim;
	}
	s->model = m;
	s->seed = seed;
	sim_counters_init(&s->counters, m->counters, m->ncounters);
	ret = m->init(s->state, scenario, seed, &why);
	if (ret) {
		ret = rt_err(cause, ret, "%s: %s", m->name, why ? why : strerror(-ret));
		goto out_state;
	}
	*out = s;
	return 0;

out_state:
	free(s->state);
out_sim:
	free(s);
out_why:
	free(why);
	return ret;
}

void sim_free(struct sim *s)
{
	if (!s)
		return;
	s->model->fini(s->state);
	free(s->state);
	free(s);
}

uint64_t sim_run(struct sim *s, uint64_t steps, struct sim_events *ev)
{
	uint64_t done;

	if (s->done || steps == 0)
		return 0;
	done = s->model->run(s->state, steps, &s->counters, ev);
	if (done > steps)	/* a broken model; never count steps not asked for */
		done = steps;
	s->steps += done;
	if (done < steps)
		s->done = true;
	return done;
}

int sim_run_chunked(struct sim *s, uint64_t steps, uint64_t chunk, struct sim_events *ev,
		    int (*poll)(void *priv, struct sim *s), void *priv)
{
	uint64_t left = steps;

	if (chunk == 0)
		chunk = SIM_CHUNK_DEFAULT;
	while (left > 0 && !s->done) {
		uint64_t n = left < chunk ? left : chunk;
		int stop;

		n = sim_run(s, n, ev);
		if (steps != SIM_STEPS_ALL)
			left -= n;
		stop = poll ? poll(priv, s) : 0;
		if (stop)
			return stop;
	}
	return 0;
}

const struct sim_model_ops *sim_model(const struct sim *s)
{
	return s->model;
}

uint64_t sim_seed(const struct sim *s)
{
	return s->seed;
}

uint64_t sim_steps(const struct sim *s)
{
	return s->steps;
}

bool sim_done(const struct sim *s)
{
	return s->done;
}

const struct sim_counters *sim_counters(const struct sim *s)
{
	return &s->counters;
}

const struct rt_hist *sim_hist(const struct sim *s, unsigned int i)
{
	if (i >= s->model->nhists)
		return NULL;
	return s->model->hist(s->state, i);
}

const void *sim_state(const struct sim *s)
{
	return s->state;
}
