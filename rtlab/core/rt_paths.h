/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_paths: where rtlab keeps state and finds its data.
 *
 * State (progress, the undo journal) lives under $XDG_STATE_HOME/rtlab,
 * default ~/.local/state/rtlab; as root the undo journal lives in
 * /run/rtlab instead (rt_journal_default_dir()). Data (lessons, labs, slides) is found, in
 * order, in $RTLAB_DATADIR, next to a binary run from the build tree
 * (<exe>/../lessons), or in the install prefix compiled in as RTLAB_DATADIR.
 */
#ifndef RTLAB_CORE_RT_PATHS_H
#define RTLAB_CORE_RT_PATHS_H

/**
 * rt_paths_state_dir - the state directory, created if missing (mode 0700)
 *
 * Returns a string the caller frees, or NULL with errno set (ENOENT when
 * neither XDG_STATE_HOME nor HOME is set).
 */
char *rt_paths_state_dir(void);

/**
 * rt_paths_state_file - "<state dir>/<name>", creating the state directory
 *
 * Returns a string the caller frees, or NULL with errno set.
 */
char *rt_paths_state_file(const char *name);

/**
 * rt_paths_data_dir - the data directory (holds lessons/, labs/, slides/)
 *
 * Returns a string the caller frees, or NULL with errno set.
 */
char *rt_paths_data_dir(void);

#endif
