/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_err: allocation failure while building a message is not itself
 * reported; the caller still gets the errno, just without the text.
 */
#include "rt_err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int rt_err(char **cause, int err, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (!cause || *cause)
		return err;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	*cause = msg;
	return err;
}
