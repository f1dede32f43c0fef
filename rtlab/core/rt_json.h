/*
 * rt_json: the one way rtlab reads a JSON document that a person may have
 * edited or broken (results, progress). Strict (duplicate keys rejected) and
 * with errors a person can act on: "name:LINE:COL: what jansson said".
 */
#ifndef RTLAB_CORE_RT_JSON_H
#define RTLAB_CORE_RT_JSON_H

#include <stddef.h>

#include <jansson.h>

/**
 * rt_json_load - parse @len bytes of @text as one JSON document
 * @name: the file name for messages
 * @out: on success, the document (the caller owns the reference)
 * @cause: on failure, "name:line:col: message" (or "name: message" when
 *         jansson gives no position)
 *
 * Returns 0, -EINVAL for bad JSON, or -ENOMEM.
 */
int rt_json_load(const char *text, size_t len, const char *name, json_t **out, char **cause);

#endif
