/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_result_read: a results document from text or a file, through the
 * strict loader (rt_json_load) and the validator, and the getters that
 * answer from it. A /1 document is a /2 document without /2's fields, so
 * reading one converts it by renaming its schema; rt_result_version() still
 * says 1. rt_result_integrity_verify() checks a document's seal
 * (rt_result_to_string_sealed()) against its content.
 */
#include "rt_result.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rt_err.h"
#include "rt_file.h"
#include "rt_json.h"
#include "rt_result-int.h"
#include "rt_sha256.h"

/* ---- Reading ----------------------------------------------------------- */

/*
 * An upper bound of the number of values in @text: every value but the
 * first follows a comma or opens a container. Counting before parsing stops
 * a file of "[0,0,0,..." from costing fifty bytes of heap per input byte.
 */
static size_t count_values(const char *text, size_t len)
{
	bool in_str = false;
	size_t n = 1;

	for (size_t i = 0; i < len; i++) {
		char c = text[i];

		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = false;
		} else if (c == '"') {
			in_str = true;
		} else if (c == ',' || c == '[' || c == '{') {
			n++;
		}
	}
	return n;
}

int rt_result_parse(const char *text, size_t len, const char *name,
		    const struct rt_result_opts *opts, struct rt_result **out, char **cause)
{
	struct rt_result *res;
	char *why = NULL;
	json_t *doc;
	int ret;

	*out = NULL;
	if (!name)
		name = "(result)";
	if (len > RT_RESULT_MAX_FILE)
		return rt_err(cause, -EFBIG, "%s: %zu bytes is more than the %u MiB a result may have",
			      name, len, RT_RESULT_MAX_FILE >> 20);
	if (count_values(text, len) > RT_RESULT_MAX_VALUES)
		return rt_err(cause, -EFBIG, "%s: more than %u values in one result", name,
			      RT_RESULT_MAX_VALUES);
	ret = rt_json_load(text, len, name, &doc, cause);
	if (ret)
		return ret;
	ret = rt_result_validate(doc, opts, &why);
	if (ret) {
		rt_err(cause, ret, "%s: %s", name, why ? why : "invalid result");
		free(why);
		json_decref(doc);
		return ret;
	}
	res = calloc(1, sizeof(*res));
	if (!res) {
		json_decref(doc);
		return rt_err(cause, -ENOMEM, "%s: out of memory", name);
	}
	res->doc = doc;
	res->version = rt_result_schema_version(json_string_value(json_object_get(doc,
										      "schema")));
	/* A /1 document is a /2 document without /2's fields: renaming converts it. */
	if (res->version == 1 &&
	    json_object_set_new(doc, "schema", json_string(RT_RESULT_SCHEMA))) {
		rt_result_free(res);
		return rt_err(cause, -ENOMEM, "%s: out of memory", name);
	}
	*out = res;
	return 0;
}

int rt_result_integrity_verify(const struct rt_result *res, char **cause)
{
	json_t *in = json_object_get(res->doc, "integrity");
	const char *alg = json_string_value(json_object_get(in, "algorithm"));
	const char *val = json_string_value(json_object_get(in, "value"));
	char hex[RT_SHA256_HEX], *canon;

	if (!in || !alg || !val)
		return rt_err(cause, -ENODATA, "the document carries no checksum (written by an "
			      "older rtlab, or its \"integrity\" was removed)");
	if (strcmp(alg, "sha256"))
		return rt_err(cause, -ENOTSUP, "the document's checksum uses \"%s\", which this "
			      "rtlab does not know", alg);
	canon = rt_result_canonical_text(res, cause);
	if (!canon)
		return -errno;
	rt_sha256_hex(canon, strlen(canon), hex);
	free(canon);
	if (strcmp(hex, val))
		return rt_err(cause, -EBADMSG, "the document was changed after rtlab wrote it "
			      "(its checksum does not match its content)");
	return 0;
}

unsigned int rt_result_version(const struct rt_result *res)
{
	return res->version;
}

int rt_result_read(const char *path, const struct rt_result_opts *opts, struct rt_result **out,
		   char **cause)
{
	char *text = NULL, *why = NULL;
	size_t len = 0;
	int ret;

	*out = NULL;
	ret = rt_file_load(path, 0, RT_RESULT_MAX_FILE, &text, &len, &why);
	if (ret == -EFBIG)
		rt_err(cause, ret, "%s: larger than the %u MiB a result may have", path,
		       RT_RESULT_MAX_FILE >> 20);
	else if (ret)
		rt_err(cause, ret, "%s", why ? why : strerror(-ret));
	free(why);
	if (ret)
		return ret;
	ret = rt_result_parse(text, len, path, opts, out, cause);
	free(text);
	return ret;
}

/* ---- Getters ----------------------------------------------------------- */

static const char *top_string(const struct rt_result *res, const char *key)
{
	return json_string_value(json_object_get(res->doc, key));
}

const char *rt_result_lab(const struct rt_result *res)
{
	return top_string(res, "lab");
}

const char *rt_result_tier(const struct rt_result *res)
{
	return top_string(res, "tier");
}

bool rt_result_simulated(const struct rt_result *res)
{
	return json_is_true(json_object_get(res->doc, "simulated"));
}

const char *rt_result_created(const struct rt_result *res)
{
	return top_string(res, "created");
}

size_t rt_result_note_count(const struct rt_result *res)
{
	return json_array_size(json_object_get(res->doc, "notes"));
}

const char *rt_result_note(const struct rt_result *res, size_t i)
{
	return json_string_value(json_array_get(json_object_get(res->doc, "notes"), i));
}

json_t *rt_result_json(const struct rt_result *res)
{
	return res->doc;
}

static json_t *member(const struct rt_result *res, const char *sect, const char *key)
{
	return key ? json_object_get(json_object_get(res->doc, sect), key) : NULL;
}

static int get_num(const struct rt_result *res, const char *sect, const char *key, double *out)
{
	json_t *v = member(res, sect, key);

	if (!v)
		return -ENOENT;
	if (!json_is_number(v))
		return -EINVAL;
	*out = json_number_value(v);
	return 0;
}

static int get_str(const struct rt_result *res, const char *sect, const char *key,
		   const char **out)
{
	json_t *v = member(res, sect, key);

	if (!v)
		return -ENOENT;
	if (!json_is_string(v))
		return -EINVAL;
	*out = json_string_value(v);
	return 0;
}

int rt_result_summary_get(const struct rt_result *res, const char *key, double *out)
{
	return get_num(res, "summary", key, out);
}

int rt_result_param_num(const struct rt_result *res, const char *key, double *out)
{
	return get_num(res, "params", key, out);
}

int rt_result_param_str(const struct rt_result *res, const char *key, const char **out)
{
	return get_str(res, "params", key, out);
}

int rt_result_param_bool(const struct rt_result *res, const char *key, bool *out)
{
	json_t *v = member(res, "params", key);

	if (!v)
		return -ENOENT;
	if (!json_is_boolean(v))
		return -EINVAL;
	*out = json_is_true(v);
	return 0;
}

int rt_result_answer_num(const struct rt_result *res, const char *id, double *out)
{
	return get_num(res, "answers", id, out);
}

int rt_result_answer_str(const struct rt_result *res, const char *id, const char **out)
{
	return get_str(res, "answers", id, out);
}

const json_t *rt_result_answers(const struct rt_result *res)
{
	json_t *a = json_object_get(res->doc, "answers");

	return json_is_object(a) ? a : NULL;
}

const char *rt_result_answer_text(const struct rt_result *res, const char *id)
{
	const char *s = NULL;

	return get_str(res, "answers", id, &s) ? NULL : s;
}

size_t rt_result_hist_count(const struct rt_result *res)
{
	return json_array_size(json_object_get(res->doc, "histograms"));
}

int rt_result_hist_find(const struct rt_result *res, const char *name, size_t *i)
{
	json_t *hists = json_object_get(res->doc, "histograms");

	for (size_t k = 0; name && k < json_array_size(hists); k++) {
		const char *n = json_string_value(json_object_get(json_array_get(hists, k),
								  "name"));

		if (n && strcmp(n, name) == 0) {
			if (i)
				*i = k;
			return 0;
		}
	}
	return -ENOENT;
}

/* Copy an array of non-negative integers; NULL with *n = 0 for an empty or absent one. */
static int counts_out(const json_t *a, uint64_t **out, size_t *n)
{
	size_t len = json_array_size(a);
	uint64_t *v;

	*out = NULL;
	*n = 0;
	if (!len)
		return 0;
	v = malloc(len * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		json_int_t x = json_integer_value(json_array_get(a, i));

		v[i] = x > 0 ? (uint64_t)x : 0;
	}
	*out = v;
	*n = len;
	return 0;
}

/* Copy overflow_buckets; NULL with *n = 0 for an empty or absent one. */
static int ranges_out(const json_t *a, struct rt_result_range **out, size_t *n)
{
	size_t len = json_array_size(a);
	struct rt_result_range *r;

	*out = NULL;
	*n = 0;
	if (!len)
		return 0;
	r = malloc(len * sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		json_t *b = json_array_get(a, i);
		json_int_t c = json_integer_value(json_array_get(b, 2));

		r[i].lower = json_number_value(json_array_get(b, 0));
		r[i].upper = json_number_value(json_array_get(b, 1));
		r[i].count = c > 0 ? (uint64_t)c : 0;
	}
	*out = r;
	*n = len;
	return 0;
}

int rt_result_hist_get(const struct rt_result *res, size_t i, struct rt_result_hist *h)
{
	json_t *o = json_array_get(json_object_get(res->doc, "histograms"), i);
	uint64_t *counts = NULL, *cycles = NULL;
	struct rt_result_range *ranges = NULL;
	size_t nc = 0, ny = 0, nr = 0;
	json_int_t over;

	memset(h, 0, sizeof(*h));
	if (!json_is_object(o))
		return -ENOENT;
	/* A document changed behind the validator's back must not crash a reader. */
	if (!json_is_string(json_object_get(o, "name")) ||
	    !json_is_string(json_object_get(o, "unit")) ||
	    !json_is_array(json_object_get(o, "counts")))
		return -EINVAL;
	if (counts_out(json_object_get(o, "counts"), &counts, &nc) ||
	    counts_out(json_object_get(o, "overflow_cycles"), &cycles, &ny) ||
	    ranges_out(json_object_get(o, "overflow_buckets"), &ranges, &nr)) {
		free(counts);
		free(cycles);
		return -ENOMEM;
	}
	h->name = json_string_value(json_object_get(o, "name"));
	h->unit = json_string_value(json_object_get(o, "unit"));
	h->bucket_width = json_number_value(json_object_get(o, "bucket_width"));
	h->first_bucket = json_number_value(json_object_get(o, "first_bucket"));
	h->counts = counts;
	h->nbuckets = nc;
	over = json_integer_value(json_object_get(o, "overflow_count"));
	h->overflow_count = over > 0 ? (uint64_t)over : 0;
	h->overflow_cycles = cycles;
	h->n_overflow_cycles = ny;
	h->overflow_buckets = ranges;
	h->n_overflow_buckets = nr;
	return 0;
}

void rt_result_hist_fini(struct rt_result_hist *h)
{
	if (!h)
		return;
	/* rt_result_hist_get() allocated both arrays; the const is for callers. */
	free((void *)h->counts);
	free((void *)h->overflow_cycles);
	free((void *)h->overflow_buckets);
	memset(h, 0, sizeof(*h));
}

int rt_result_hist_percentile(const struct rt_result_hist *h, unsigned int q_ppm, double *value,
			      double *resolution)
{
	uint64_t total = h->overflow_count, want, cum = 0;

	*value = 0;
	*resolution = 0;
	if (q_ppm == 0 || q_ppm >= 1000000)
		return -EINVAL;
	for (size_t i = 0; i < h->nbuckets; i++)
		total += h->counts[i];
	if (!total)
		return -ENODATA;
	/* As rt_hist_percentile(): at least ceil(total * q) samples below the edge. */
	want = total / 1000000 * q_ppm + ((total % 1000000) * q_ppm + 999999) / 1000000;
	for (size_t i = 0; i < h->nbuckets; i++) {
		cum += h->counts[i];
		if (cum >= want) {
			*value = h->first_bucket + (double)(i + 1) * h->bucket_width;
			*resolution = h->bucket_width;
			return 0;
		}
	}
	for (size_t i = 0; i < h->n_overflow_buckets; i++) {
		cum += h->overflow_buckets[i].count;
		if (cum >= want) {
			*value = h->overflow_buckets[i].upper;
			*resolution = h->overflow_buckets[i].upper - h->overflow_buckets[i].lower;
			return 0;
		}
	}
	*value = h->first_bucket + (double)h->nbuckets * h->bucket_width;
	return -ERANGE;
}
