/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_which: find a program the way a shell would, before rtlab runs it or
 * tells the learner it is missing.
 *
 * rt_which() searches $PATH first, then the usual system directories,
 * since a learner's $PATH often lacks the sbin directories that hold tools
 * such as ip(8) which anyone may run: it answers "is it installed?".
 * rt_which_in() searches only the directories it is given, or $PATH as
 * execvp() would: it answers "what would running this name start?".
 * Relative entries are skipped in both: what they find would depend on
 * the current directory.
 */
#ifndef RTLAB_CORE_RT_WHICH_H
#define RTLAB_CORE_RT_WHICH_H

/* rt_which() searches these after $PATH. */
#define RT_WHICH_DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
/* rt_which_in(prog, NULL) searches these when $PATH is unset or empty. */
#define RT_WHICH_UNSET_PATH "/usr/local/bin:/usr/bin:/bin"

/**
 * rt_which - the path of the executable @prog, in $PATH or the system directories
 * @prog: a program name, or a path (with a '/'), which is only checked
 *
 * Returns a path the caller frees, or NULL with errno set (ENOENT when
 * there is no such executable, ENOMEM).
 */
char *rt_which(const char *prog);

/**
 * rt_which_in - the path of the executable @prog in @dirs only
 * @dirs: colon-separated directories; NULL: $PATH (RT_WHICH_UNSET_PATH when
 *        it is unset or empty)
 *
 * Returns as rt_which().
 */
char *rt_which_in(const char *prog, const char *dirs);

#endif
