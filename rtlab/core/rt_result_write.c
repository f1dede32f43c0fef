/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_result_write: a results document as text, thin over rt_json. The
 * layout below is the schema's field order (top level, env, each
 * histogram, each view and its columns, integrity); every other object's
 * keys are sorted and arrays of numbers fill lines, so the same content
 * always gives the same bytes and files diff well. What the bytes are is
 * pinned by tests/data/json/result-golden.json and the example documents
 * in tests/data/results.
 *
 * What rtlab saves is sealed (rt_result_to_string_sealed(), rt_result_write()):
 * its "integrity" is the SHA-256 of its canonical text, so that the grader
 * can tell a document rtlab wrote from one edited afterwards.
 */
#include "rt_result.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rt_buf.h"
#include "rt_file.h"
#include "rt_err.h"
#include "rt_json.h"
#include "rt_result-int.h"
#include "rt_sha256.h"

static const struct rt_json_layout env_layout = { .keys = &rt_result_env_keys };
static const struct rt_json_layout hist_layout = { .keys = &rt_result_hist_keys };
static const struct rt_json_layout hists_layout = { .items = &hist_layout };
static const struct rt_json_layout column_layout = { .keys = &rt_result_column_keys };
static const struct rt_json_layout columns_layout = { .items = &column_layout };
static const struct rt_json_member view_members[] = {
	{ "columns", &columns_layout },
	{ NULL, NULL },
};
static const struct rt_json_layout view_layout = {
	.keys = &rt_result_view_keys, .members = view_members,
};
static const struct rt_json_layout views_layout = { .items = &view_layout };
static const struct rt_json_layout integrity_layout = { .keys = &rt_result_integrity_keys };
static const struct rt_json_member top_members[] = {
	{ "env", &env_layout },
	{ "histograms", &hists_layout },
	{ "views", &views_layout },
	{ "integrity", &integrity_layout },
	{ NULL, NULL },
};
static const struct rt_json_layout top_layout = {
	.keys = &rt_result_top_keys, .members = top_members,
};
static const struct rt_json_style result_style = {
	.layout = &top_layout, .flags = RT_JSON_SORT | RT_JSON_PACK,
};

char *rt_result_to_string(const struct rt_result *res, char **cause)
{
	struct rt_buf b = RT_BUF_INIT;
	int ret;

	ret = rt_result_validate(res->doc, NULL, cause);
	if (!ret)
		ret = rt_json_write(&b, res->doc, &result_style);
	if (!ret)
		ret = rt_buf_puts(&b, "\n");
	if (ret) {
		rt_buf_fini(&b);
		if (ret == -ENOMEM)
			rt_err(cause, ret, "out of memory while rendering the result");
		else
			rt_err(cause, -EINVAL, "cannot render the result: %s", strerror(-ret));
		errno = ret == -ENOMEM ? ENOMEM : EINVAL;
		return NULL;
	}
	return rt_buf_take(&b);
}

char *rt_result_canonical_text(const struct rt_result *res, char **cause)
{
	struct rt_result bare = { json_copy(res->doc), RT_RESULT_VERSION };
	char *text;
	int err;

	if (!bare.doc) {
		rt_err(cause, -ENOMEM, "out of memory while rendering the result");
		errno = ENOMEM;
		return NULL;
	}
	json_object_del(bare.doc, "integrity");	/* a shallow copy: res keeps its own */
	text = rt_result_to_string(&bare, cause);
	err = errno;
	json_decref(bare.doc);
	errno = err;
	return text;
}

/* @res with "integrity" set to the digest of its canonical text: a new document. */
static json_t *sealed_doc(const struct rt_result *res, char **cause)
{
	char hex[RT_SHA256_HEX], *canon = rt_result_canonical_text(res, cause);
	json_t *doc;

	if (!canon)
		return NULL;
	rt_sha256_hex(canon, strlen(canon), hex);
	free(canon);
	doc = json_copy(res->doc);
	if (!doc || json_object_set_new(doc, "integrity", json_pack("{s:s, s:s}", "algorithm",
								     "sha256", "value", hex))) {
		json_decref(doc);
		rt_err(cause, -ENOMEM, "out of memory while sealing the result");
		errno = ENOMEM;
		return NULL;
	}
	return doc;
}

char *rt_result_to_string_sealed(const struct rt_result *res, char **cause)
{
	struct rt_result sealed = { NULL, RT_RESULT_VERSION };
	char *text;
	int err;

	if (rt_result_version(res) != RT_RESULT_VERSION)
		return rt_result_to_string(res, cause);
	sealed.doc = sealed_doc(res, cause);
	if (!sealed.doc)
		return NULL;
	text = rt_result_to_string(&sealed, cause);
	err = errno;
	json_decref(sealed.doc);
	errno = err;
	return text;
}

int rt_result_write(const struct rt_result *res, const char *path, char **cause)
{
	char *text, *why = NULL;
	int ret;

	text = rt_result_to_string_sealed(res, &why);
	if (!text) {
		ret = -errno;
		rt_err(cause, ret, "%s: not written: %s", path, why ? why : strerror(-ret));
		free(why);
		return ret;
	}
	ret = rt_file_write_atomic(path, text, strlen(text), 0644, cause);
	free(text);
	return ret;
}
