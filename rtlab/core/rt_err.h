/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_err: the "char **cause" convention. Functions that can fail for a reason
 * a person needs to read take a char **cause; on failure they allocate a
 * message there (the caller frees it) and return a negative errno.
 */
#ifndef RTLAB_CORE_RT_ERR_H
#define RTLAB_CORE_RT_ERR_H

/**
 * rt_err - record why something failed and return @err
 * @cause: where to store the message; may be NULL. An existing message is
 *         kept (the innermost reason wins) and the new one is dropped.
 * @err: a negative errno, returned unchanged
 * @fmt: printf-style message
 */
int rt_err(char **cause, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
