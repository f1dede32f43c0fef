/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_result: a result is one jansson document, kept in the shape of
 * rtlab.result/2 by the setters below and checked as a whole by the
 * validator (rt_result_check.c) before every write and after every read.
 * Keeping the JSON as the only state means a result read from disk and one
 * built in memory behave the same, and the grader sees exactly the bytes
 * the learner's run wrote.
 *
 * This file is what a lab calls while it runs: rt_result_new(), the
 * setters and the rt_result_add_*() functions. Each setter refuses what the
 * validator would refuse, so a lab learns of a bad key when it sets it, not
 * when the document is written.
 */
#include "rt_result.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_env.h"
#include "rt_err.h"
#include "rt_hist.h"
#include "rt_result-int.h"
#include "rt_version.h"

#define EXACT_INT_LIMIT	9007199254740992.0	/* 2^53 */

/* A finite number as JSON: integral values within +-2^53 become integers. */
static json_t *num_new(double v)
{
	if (!isfinite(v)) {
		errno = EINVAL;
		return NULL;
	}
	if (v == floor(v) && fabs(v) <= EXACT_INT_LIMIT)
		return json_integer((json_int_t)v);
	if (fabs(v) > RT_RESULT_MAX_MAGNITUDE) {
		errno = EINVAL;
		return NULL;
	}
	return json_real(v);
}

/* ---- Time stamps ------------------------------------------------------- */

int rt_result_format_time(time_t when, char *buf, size_t size)
{
	struct tm tm;

	if (!gmtime_r(&when, &tm) || tm.tm_year + 1900 < 0 || tm.tm_year + 1900 > 9999)
		return -EINVAL;
	if (strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		return -EINVAL;
	return 0;
}

/* ---- Building ---------------------------------------------------------- */

static json_t *str_or_unknown(const char *s)
{
	return json_string(s ? s : "unknown");
}

static json_t *env_to_json(const struct rt_env *env)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	if (json_object_set_new(o, "kernel_release", str_or_unknown(env->kernel_release)) ||
	    json_object_set_new(o, "kernel_version", str_or_unknown(env->kernel_version)) ||
	    json_object_set_new(o, "machine", str_or_unknown(env->machine)) ||
	    json_object_set_new(o, "preempt_model", str_or_unknown(env->preempt_model)) ||
	    (env->preempt_source &&
	     json_object_set_new(o, "preempt_source", json_string(env->preempt_source))) ||
	    json_object_set_new(o, "realtime", json_boolean(env->realtime)) ||
	    json_object_set_new(o, "in_vm", json_boolean(env->in_vm)) ||
	    json_object_set_new(o, "vm_type", env->in_vm ? str_or_unknown(env->vm_type)
						       : json_null()) ||
	    json_object_set_new(o, "cpus", json_integer(env->cpus)) ||
	    json_object_set_new(o, "root", json_boolean(env->root)) ||
	    json_object_set_new(o, "time", json_string(env->virtual_time ? "virtual" : "real"))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

struct rt_result *rt_result_new(const char *lab, const char *tier, const struct rt_env *env)
{
	struct rt_result *res = NULL;
	json_t *doc = NULL, *e = NULL;

	if (!tier || !env || !rt_result_lab_name_valid(lab) ||
	    !rt_result_in_list(rt_result_tiers, tier)) {
		errno = EINVAL;
		return NULL;
	}
	e = env_to_json(env);
	doc = json_object();
	res = calloc(1, sizeof(*res));
	if (!e || !doc || !res)
		goto out_nomem;
	if (json_object_set_new(doc, "schema", json_string(RT_RESULT_SCHEMA)) ||
	    json_object_set_new(doc, "lab", json_string(lab)) ||
	    json_object_set_new(doc, "tier", json_string(tier)) ||
	    json_object_set_new(doc, "simulated",
				json_boolean(strcmp(tier, "simulation") == 0)) ||
	    json_object_set_new(doc, "created", json_string("1970-01-01T00:00:00Z")) ||
	    json_object_set_new(doc, "rtlab_version", json_string(RT_VERSION)) ||
	    json_object_set(doc, "env", e) ||
	    json_object_set_new(doc, "params", json_object()) ||
	    json_object_set_new(doc, "summary", json_object()) ||
	    json_object_set_new(doc, "histograms", json_array()) ||
	    json_object_set_new(doc, "answers", json_object()))
		goto out_nomem;
	json_decref(e);
	res->doc = doc;
	res->version = RT_RESULT_VERSION;
	if (rt_result_set_created(res, time(NULL))) {
		rt_result_free(res);
		errno = EINVAL;
		return NULL;
	}
	return res;

out_nomem:
	json_decref(e);
	json_decref(doc);
	free(res);
	errno = ENOMEM;
	return NULL;
}

void rt_result_free(struct rt_result *res)
{
	if (!res)
		return;
	json_decref(res->doc);
	free(res);
}

int rt_result_set_created(struct rt_result *res, time_t when)
{
	char buf[32];

	if (rt_result_format_time(when, buf, sizeof(buf)))
		return -EINVAL;
	return json_object_set_new(res->doc, "created", json_string(buf)) ? -ENOMEM : 0;
}

/* Get (creating if needed) the object @name of the document. */
static json_t *section(struct rt_result *res, const char *name)
{
	json_t *o = json_object_get(res->doc, name);

	if (json_is_object(o))
		return o;
	o = json_object();
	if (!o || json_object_set_new(res->doc, name, o))
		return NULL;
	return o;
}

/* Store @value (reference stolen) as @key of section @name. */
static int set_in(struct rt_result *res, const char *name, const char *key, json_t *value)
{
	json_t *o;

	if (!value)
		return errno == EINVAL ? -EINVAL : -ENOMEM;
	o = section(res, name);
	if (!o) {
		json_decref(value);
		return -ENOMEM;
	}
	return json_object_set_new(o, key, value) ? -ENOMEM : 0;
}

/* json_string() fails for invalid UTF-8 as well as for lack of memory. */
static json_t *text_new(const char *s, size_t max)
{
	json_t *v;

	if (!s || strlen(s) > max) {
		errno = EINVAL;
		return NULL;
	}
	errno = 0;
	v = json_string(s);
	if (!v && errno != ENOMEM)
		errno = EINVAL;
	return v;
}

int rt_result_set_param_str(struct rt_result *res, const char *key, const char *value)
{
	if (!rt_result_key_valid(key))
		return -EINVAL;
	return set_in(res, "params", key, text_new(value, RT_RESULT_MAX_TEXT_LEN));
}

int rt_result_set_param_num(struct rt_result *res, const char *key, double value)
{
	if (!rt_result_key_valid(key))
		return -EINVAL;
	return set_in(res, "params", key, num_new(value));
}

int rt_result_set_param_bool(struct rt_result *res, const char *key, bool value)
{
	if (!rt_result_key_valid(key))
		return -EINVAL;
	return set_in(res, "params", key, json_boolean(value));
}

int rt_result_set_param_json(struct rt_result *res, const char *key, json_t *value)
{
	struct rt_result_seg s = { NULL, "params", 0 };
	json_t *probe;
	int ret;

	if (!value)
		return -EINVAL;
	if (!rt_result_key_valid(key)) {
		json_decref(value);
		return -EINVAL;
	}
	/* Check the value the same way the validator will, in a throwaway object. */
	probe = json_object();
	if (!probe || json_object_set(probe, key, value)) {
		json_decref(probe);
		json_decref(value);
		return -ENOMEM;
	}
	ret = rt_result_check_params(NULL, &s, probe);
	json_decref(probe);
	if (ret) {
		json_decref(value);
		return ret;
	}
	return set_in(res, "params", key, value);
}

int rt_result_set_summary(struct rt_result *res, const char *key, double value)
{
	if (!rt_result_summary_key_valid(key) || !(fabs(value) <= RT_RESULT_MAX_MAGNITUDE))
		return -EINVAL;
	return set_in(res, "summary", key, num_new(value));
}

int rt_result_set_answer_str(struct rt_result *res, const char *id, const char *value)
{
	if (!rt_result_key_valid(id))
		return -EINVAL;
	return set_in(res, "answers", id, text_new(value, RT_RESULT_MAX_TEXT_LEN));
}

int rt_result_set_answer_num(struct rt_result *res, const char *id, double value)
{
	if (!rt_result_key_valid(id))
		return -EINVAL;
	return set_in(res, "answers", id, num_new(value));
}

int rt_result_add_note(struct rt_result *res, const char *note)
{
	json_t *notes = json_object_get(res->doc, "notes");
	json_t *v;

	if (!note || !*note)
		return -EINVAL;
	if (!json_is_array(notes)) {
		notes = json_array();
		if (!notes || json_object_set_new(res->doc, "notes", notes))
			return -ENOMEM;
	}
	if (json_array_size(notes) >= RT_RESULT_MAX_NOTES)
		return -E2BIG;
	v = text_new(note, RT_RESULT_MAX_NOTE_LEN);
	if (!v)
		return errno == EINVAL ? -EINVAL : -ENOMEM;
	return json_array_append_new(notes, v) ? -ENOMEM : 0;
}

json_t *rt_result_extra(struct rt_result *res)
{
	json_t *o = section(res, "extra");

	if (!o)
		errno = ENOMEM;
	return o;
}

const json_t *rt_result_extra_of(const struct rt_result *res)
{
	json_t *o = json_object_get(rt_result_json(res), "extra");

	return json_is_object(o) ? o : NULL;
}

bool rt_result_env_bool(const struct rt_result *res, const char *key)
{
	return json_is_true(json_object_get(json_object_get(rt_result_json(res), "env"), key));
}

const char *rt_result_env_str(const struct rt_result *res, const char *key)
{
	return json_string_value(json_object_get(json_object_get(rt_result_json(res), "env"),
						 key));
}

/* JSON array of @v; with @total, each and their sum must stay within 1e15 samples. */
static json_t *count_array(const uint64_t *v, size_t n, uint64_t *total)
{
	json_t *a = json_array();

	if (!a)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (total && v[i] <= (uint64_t)RT_RESULT_MAX_MAGNITUDE)
			*total += v[i];
		if (v[i] > INT64_MAX || (total && (v[i] > (uint64_t)RT_RESULT_MAX_MAGNITUDE ||
						   *total > (uint64_t)RT_RESULT_MAX_MAGNITUDE))) {
			json_decref(a);
			errno = EINVAL;
			return NULL;
		}
		if (json_array_append_new(a, json_integer((json_int_t)v[i]))) {
			json_decref(a);
			errno = ENOMEM;
			return NULL;
		}
	}
	return a;
}

/* The overflow buckets of @h follow the rules check_overflow_buckets() enforces. */
static bool ranges_valid(const struct rt_result_hist *h)
{
	double prev = h->first_bucket + (double)h->nbuckets * h->bucket_width;
	uint64_t sum = 0;

	for (size_t i = 0; i < h->n_overflow_buckets; i++) {
		const struct rt_result_range *r = &h->overflow_buckets[i];

		if (!(r->lower >= prev && r->upper > r->lower &&
		      r->upper <= RT_RESULT_MAX_MAGNITUDE) ||
		    r->count > (uint64_t)RT_RESULT_MAX_MAGNITUDE)
			return false;
		sum += r->count;
		if (sum > (uint64_t)RT_RESULT_MAX_MAGNITUDE)
			return false;
		prev = r->upper;
	}
	return sum == h->overflow_count || h->n_overflow_buckets == 0;
}

/* [[lower, upper, count], ...] of @r, or NULL with errno ENOMEM. */
static json_t *ranges_array(const struct rt_result_range *r, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++) {
		json_t *b = json_array();

		if (!b || json_array_append_new(a, b) ||
		    json_array_append_new(b, num_new(r[i].lower)) ||
		    json_array_append_new(b, num_new(r[i].upper)) ||
		    json_array_append_new(b, json_integer((json_int_t)r[i].count))) {
			json_decref(a);
			a = NULL;
		}
	}
	if (!a)
		errno = ENOMEM;
	return a;
}

int rt_result_add_histogram(struct rt_result *res, const struct rt_result_hist *h)
{
	json_t *hists = json_object_get(res->doc, "histograms");
	json_t *o = NULL, *counts = NULL, *cycles = NULL, *ranges = NULL;
	uint64_t total;
	int ret = -ENOMEM;

	if (!h || !rt_result_key_valid(h->name) || !h->unit ||
	    !rt_result_in_list(rt_result_units, h->unit) ||
	    !(h->bucket_width > 0 && h->bucket_width <= RT_RESULT_MAX_WIDTH) ||
	    !(fabs(h->first_bucket) <= RT_RESULT_MAX_FIRST) ||
	    h->nbuckets < 1 || h->nbuckets > RT_RESULT_MAX_BUCKETS || !h->counts ||
	    h->n_overflow_cycles > RT_RESULT_MAX_BUCKETS ||
	    (h->n_overflow_cycles && !h->overflow_cycles) ||
	    h->overflow_count > (uint64_t)RT_RESULT_MAX_MAGNITUDE ||
	    h->n_overflow_buckets > RT_RESULT_MAX_OVERFLOW_BUCKETS ||
	    (h->n_overflow_buckets && !h->overflow_buckets) ||
	    !ranges_valid(h))
		return -EINVAL;
	total = h->overflow_count;
	if (!json_is_array(hists))
		return -EINVAL;
	if (json_array_size(hists) >= RT_RESULT_MAX_HISTS)
		return -E2BIG;
	if (rt_result_hist_find(res, h->name, NULL) == 0)
		return -EEXIST;

	if (h->n_overflow_buckets) {
		ranges = ranges_array(h->overflow_buckets, h->n_overflow_buckets);
		if (!ranges)
			goto out_put;
	}
	counts = count_array(h->counts, h->nbuckets, &total);
	if (!counts) {
		ret = errno == EINVAL ? -EINVAL : -ENOMEM;
		goto out_put;
	}
	if (h->n_overflow_cycles) {
		cycles = count_array(h->overflow_cycles, h->n_overflow_cycles, NULL);
		if (!cycles) {
			ret = errno == EINVAL ? -EINVAL : -ENOMEM;
			goto out_put;
		}
	}
	o = json_object();
	if (!o || json_object_set_new(o, "name", json_string(h->name)) ||
	    json_object_set_new(o, "unit", json_string(h->unit)) ||
	    json_object_set_new(o, "bucket_width", num_new(h->bucket_width)) ||
	    json_object_set_new(o, "first_bucket", num_new(h->first_bucket)) ||
	    json_object_set(o, "counts", counts) ||
	    json_object_set_new(o, "overflow_count", json_integer((json_int_t)h->overflow_count)) ||
	    (ranges && json_object_set(o, "overflow_buckets", ranges)) ||
	    (cycles && json_object_set(o, "overflow_cycles", cycles)))
		goto out_put;
	if (json_array_append(hists, o))
		goto out_put;
	ret = 0;
out_put:
	json_decref(o);
	json_decref(ranges);
	json_decref(cycles);
	json_decref(counts);
	return ret;
}

int rt_result_add_rt_hist(struct rt_result *res, const char *name, const struct rt_hist *h)
{
	struct rt_result_range ranges[RT_HIST_MAX_LOG_BUCKETS];
	struct rt_hist_summary sum;
	struct rt_result_hist rh = {
		.name = name, .unit = "us", .bucket_width = 1, .first_bucket = 0,
	};
	const struct rt_sample *recs;
	uint64_t *counts, *cycles;
	size_t nrec;
	int ret = -ENOMEM;

	rt_hist_summarize(h, &sum);
	rh.nbuckets = rt_hist_nbuckets(h);
	counts = calloc(rh.nbuckets, sizeof(*counts));
	recs = rt_hist_overflow_recs(h, &nrec);
	cycles = calloc(nrec ? nrec : 1, sizeof(*cycles));
	if (!counts || !cycles)
		goto out;
	for (size_t i = 0; i < rh.nbuckets; i++)
		counts[i] = rt_hist_bucket(h, (unsigned int)i);
	for (size_t i = 0; i < nrec; i++)
		cycles[i] = recs[i].seq;
	for (unsigned int i = 0; i < rt_hist_overflow_nbuckets(h); i++) {
		struct rt_hist_range r;
		uint64_t cap = (uint64_t)(sum.max_ns < 0 ? 0 : sum.max_ns) / 1000 + 1;

		if (rt_hist_overflow_bucket(h, i, &r) || !r.count)
			continue;
		/* No sample reached the maximum + 1 us: the bucket holding it ends there. */
		if (cap > r.lower_us && cap < r.upper_us)
			r.upper_us = cap;
		ranges[rh.n_overflow_buckets++] = (struct rt_result_range){
			(double)r.lower_us, (double)r.upper_us, r.count };
	}
	rh.counts = counts;
	rh.overflow_count = rt_hist_overflow(h);
	rh.overflow_buckets = ranges;
	rh.overflow_cycles = cycles;
	rh.n_overflow_cycles = nrec;
	ret = rt_result_add_histogram(res, &rh);
out:
	free(counts);
	free(cycles);
	return ret;
}

int rt_result_put_percentiles(json_t *obj, const struct rt_hist *h)
{
	json_t *pcts = json_object();
	int ret = pcts ? 0 : -ENOMEM;

	for (unsigned int i = 0; !ret && i < RT_HIST_NSTD; i++) {
		struct rt_hist_pct pc;
		json_t *e;

		if (rt_hist_percentile(h, rt_hist_std_ppm[i], &pc))
			continue;	/* empty histogram */
		e = json_pack("{s:I, s:I, s:b, s:I}", "value_us", (json_int_t)pc.value_us,
			      "resolution_us", (json_int_t)pc.resolution_us,
			      "meaningful", pc.meaningful, "needed_count", (json_int_t)pc.needed);
		if (!e || json_object_set_new(pcts, rt_hist_std_name[i], e))
			ret = -ENOMEM;
		if (!ret && rt_hist_std_ppm[i] == RT_HIST_P99 &&
		    (json_object_set_new(obj, "p99_us", json_integer((json_int_t)pc.value_us)) ||
		     json_object_set_new(obj, "p99_resolution_us",
					 json_integer((json_int_t)pc.resolution_us))))
			ret = -ENOMEM;
	}
	if (!ret && json_object_set_new(obj, "percentiles", pcts))
		ret = -ENOMEM;
	else if (ret)
		json_decref(pcts);
	return ret;
}

int rt_result_add_view(struct rt_result *res, json_t *view, char **cause)
{
	json_t *views = json_object_get(res->doc, "views");
	struct rt_result_seg at = { NULL, "views", json_array_size(views) };
	struct rt_result_seg e = { &at, NULL, json_array_size(views) };
	const char *name;
	int ret;

	if (!view)
		return rt_err(cause, -EINVAL, "no view");
	ret = rt_result_check_view(cause, &e, view);
	if (ret)
		goto out_put;
	if (json_array_size(views) >= RT_RESULT_MAX_VIEWS) {
		ret = rt_err(cause, -E2BIG, "more than %u views", RT_RESULT_MAX_VIEWS);
		goto out_put;
	}
	name = json_string_value(json_object_get(view, "name"));
	for (size_t i = 0; i < json_array_size(views); i++)
		if (!strcmp(name, json_string_value(json_object_get(json_array_get(views, i),
								    "name")) ?: "")) {
			ret = rt_err(cause, -EINVAL, "a view called \"%s\" exists", name);
			goto out_put;
		}
	if (!json_is_array(views)) {
		views = json_array();
		if (!views || json_object_set_new(res->doc, "views", views)) {
			ret = -ENOMEM;
			goto out_put;
		}
	}
	return json_array_append_new(views, view) ? -ENOMEM : 0;
out_put:
	json_decref(view);
	return ret;
}

int rt_result_set_integrity(struct rt_result *res, const char *algorithm, const char *value)
{
	struct rt_result_seg at = { NULL, "integrity", 0 };
	json_t *o;

	if (!algorithm || !value)
		return -EINVAL;
	o = json_pack("{s:s, s:s}", "algorithm", algorithm, "value", value);
	if (!o)
		return -EINVAL;	/* not UTF-8, or out of memory */
	if (rt_result_check_integrity(NULL, &at, o)) {
		json_decref(o);
		return -EINVAL;
	}
	return json_object_set_new(res->doc, "integrity", o) ? -ENOMEM : 0;
}
