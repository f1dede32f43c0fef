/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_buf: a growable, always NUL-terminated byte buffer for building text
 * (Markdown descriptions, messages, file contents) without fixed-size arrays.
 */
#ifndef RTLAB_CORE_RT_BUF_H
#define RTLAB_CORE_RT_BUF_H

#include <stddef.h>

struct rt_buf {
	char *data;	/* owned; NULL until the first append */
	size_t len;	/* bytes used, not counting the NUL */
	size_t cap;	/* bytes allocated */
};

#define RT_BUF_INIT { NULL, 0, 0 }

void rt_buf_init(struct rt_buf *b);
/* Frees the storage; the buffer is empty and reusable afterwards. */
void rt_buf_fini(struct rt_buf *b);
/* Empties the buffer but keeps its storage. */
void rt_buf_reset(struct rt_buf *b);

/* Each returns 0 or -ENOMEM; on failure the buffer is unchanged. */
int rt_buf_append(struct rt_buf *b, const void *data, size_t len);
int rt_buf_puts(struct rt_buf *b, const char *s);
int rt_buf_printf(struct rt_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * rt_buf_take - hand the contents to the caller
 *
 * Returns a NUL-terminated string the caller frees with free() (an empty
 * string if nothing was appended), or NULL on allocation failure. The buffer
 * is empty afterwards.
 */
char *rt_buf_take(struct rt_buf *b);

/* The contents as a C string; never NULL. Valid until the next change. */
const char *rt_buf_str(const struct rt_buf *b);

#endif
