/*
 * rt_which: find a program the way a shell would, before rtlab runs it or
 * tells the learner it is missing.
 *
 * $PATH is searched first, then the usual system directories, since a
 * learner's $PATH often lacks the sbin directories that hold tools such as
 * ip(8) which anyone may run. Relative entries in $PATH are skipped: what
 * they find would depend on the current directory.
 */
#ifndef RTLAB_CORE_RT_WHICH_H
#define RTLAB_CORE_RT_WHICH_H

/* Searched after $PATH. */
#define RT_WHICH_DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/**
 * rt_which - the path of the executable @prog
 * @prog: a program name, or a path (with a '/'), which is only checked
 *
 * Returns a path the caller frees, or NULL with errno set (ENOENT when
 * there is no such executable, ENOMEM).
 */
char *rt_which(const char *prog);

#endif
