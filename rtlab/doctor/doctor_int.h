/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * doctor_int: helpers shared by the doctor's files, not part of its API.
 */
#ifndef RTLAB_DOCTOR_DOCTOR_INT_H
#define RTLAB_DOCTOR_DOCTOR_INT_H

struct rt_child_result;

/* Replace *@dst with a formatted string. Returns 0 or -ENOMEM. */
int doctor_set_str(char **dst, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Replace *@dst with a copy of @src (NULL allowed). Returns 0 or -ENOMEM. */
int doctor_dup_str(char **dst, const char *src);

/*
 * Set *@dst to how a child doing @what ended ("... did not finish within N
 * ms", "... exited with status N: first line of its output"). 0 or -ENOMEM.
 */
int doctor_describe_child(char **dst, const char *what, const struct rt_child_result *res,
			  unsigned int timeout_ms);

#endif
