/*
 * rt_json: jansson reports the column where the offending token ends; we
 * pass its line and column through unchanged, so the message points at the
 * place an editor shows.
 */
#include "rt_json.h"

#include <errno.h>

#include "rt_err.h"

int rt_json_load(const char *text, size_t len, const char *name, json_t **out, char **cause)
{
	json_error_t err;
	json_t *doc;

	*out = NULL;
	doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
	if (!doc) {
		if (json_error_code(&err) == json_error_out_of_memory)
			return rt_err(cause, -ENOMEM, "%s: out of memory", name);
		if (err.line > 0)
			return rt_err(cause, -EINVAL, "%s:%d:%d: %s", name, err.line, err.column,
				      err.text);
		return rt_err(cause, -EINVAL, "%s: %s", name, err.text);
	}
	*out = doc;
	return 0;
}
