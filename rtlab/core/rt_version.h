/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rt_version: the release number; the Makefile's VERSION must match. */
#ifndef RTLAB_CORE_RT_VERSION_H
#define RTLAB_CORE_RT_VERSION_H

#define RT_VERSION "0.1.0"

#endif
