/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_preempt: every refusal says where it happened and what would lift
 * it, since "Operation not permitted" for root reading a 0644 file is a
 * riddle without the word "lockdown".
 */
#include "rt_preempt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_err.h"
#include "rt_file.h"
#include "rt_journal.h"

#define PREEMPT_READ_MAX 4096u

const char *const rt_preempt_models[] = { "none", "voluntary", "full", "lazy", NULL };

const char *rt_preempt_stop_name(enum rt_preempt_stop s)
{
	switch (s) {
	case RT_PREEMPT_OK:
		return "ok";
	case RT_PREEMPT_NOT_DYNAMIC:
		return "not-dynamic";
	case RT_PREEMPT_NO_DEBUGFS:
		return "no-debugfs";
	case RT_PREEMPT_NO_FILE:
		return "no-file";
	case RT_PREEMPT_READ_REFUSED:
		return "read-refused";
	case RT_PREEMPT_UNREADABLE:
		return "unreadable";
	case RT_PREEMPT_WRITE_REFUSED:
		return "write-refused";
	}
	return "unknown";
}

/* The model named by the @n bytes at @s, or -1. */
static int model_index(const char *s, size_t n)
{
	for (int i = 0; rt_preempt_models[i]; i++)
		if (strlen(rt_preempt_models[i]) == n && !strncmp(s, rt_preempt_models[i], n))
			return i;
	return -1;
}

const char *rt_preempt_model(const char *s)
{
	int i = s ? model_index(s, strlen(s)) : -1;

	return i < 0 ? NULL : rt_preempt_models[i];
}

const char *rt_preempt_parse(const char *text, unsigned int *offered)
{
	const char *p = text, *active = NULL;
	unsigned int mask = 0;

	while (p && *p) {
		const char *w;
		bool paren = false;
		size_t n;
		int i;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		if (*p == '(') {
			paren = true;
			p++;
		}
		w = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != ')' && *p != '(')
			p++;
		n = (size_t)(p - w);
		if (paren && *p != ')')
			return NULL;	/* "(full" without its ")" */
		if (*p == ')')
			p++;
		i = model_index(w, n);
		if (i < 0) {
			if (!n)
				return NULL;	/* a stray ")" or "(" */
			continue;		/* a model newer than us: not ours to name */
		}
		mask |= 1u << i;
		if (paren) {
			if (active)
				return NULL;	/* two active models */
			active = rt_preempt_models[i];
		}
	}
	if (offered)
		*offered = mask;
	return active;
}

/* Is debugfs mounted at /sys/kernel/debug, as @root's proc/mounts says? */
static int debugfs_mounted(const char *root, bool *yes)
{
	char *path = NULL, *text = NULL, *save = NULL, *line;
	size_t len = 0;
	int ret;

	*yes = false;
	if (asprintf(&path, "%s/proc/mounts", root) < 0)
		return -ENOMEM;
	ret = rt_file_read(path, 1u << 20, &text, &len);
	free(path);
	if (ret)
		return ret;
	for (line = strtok_r(text, "\n", &save); line && !*yes; line = strtok_r(NULL, "\n",
										   &save)) {
		char dev[256], dir[256], type[64];

		if (sscanf(line, "%255s %255s %63s", dev, dir, type) == 3 &&
		    !strcmp(dir, RT_PREEMPT_DEBUGFS) && !strcmp(type, "debugfs"))
			*yes = true;
	}
	free(text);
	return 0;
}

/*
 * Why the kernel refused root a file whose mode allows it: lockdown, with
 * what securityfs says about it when it can be read.
 */
static int explain_refusal(const char *root, const char *verb, int err, char **cause)
{
	char *path = NULL, *lock = NULL;
	size_t len = 0;
	int ret;

	if (geteuid() != 0)
		return rt_err(cause, err, "%s %s was refused (%s): debugfs is root's; run as root",
			      verb, RT_PREEMPT_FILE, strerror(-err));
	if (asprintf(&path, "%s%s", root, RT_PREEMPT_LOCKDOWN) < 0)
		return rt_err(cause, -ENOMEM, "out of memory");
	if (rt_file_read(path, 4096, &lock, &len) == 0)
		while (len && lock[len - 1] == '\n')
			lock[--len] = '\0';
	free(path);
	ret = rt_err(cause, err, "%s %s was refused to root (%s): its mode allows it, so the "
		     "kernel itself refuses, as it does for all of debugfs under kernel lockdown "
		     "(kernel_lockdown(7); the kernel log then says \"Lockdown: ... debugfs access "
		     "is restricted\"). %s%s%s The model can then be chosen only at boot, with "
		     "preempt=none|voluntary|full|lazy on the kernel command line", verb,
		     RT_PREEMPT_FILE, strerror(-err),
		     lock ? RT_PREEMPT_LOCKDOWN " reads \"" : "The lockdown state is not readable "
		     "here (securityfs, " RT_PREEMPT_LOCKDOWN ", is not mounted or absent).",
		     lock ? lock : "", lock ? "\"." : "");
	free(lock);
	return ret;
}

int rt_preempt_read(const char *root, bool dynamic, struct rt_preempt_state *st,
		    char **cause)
{
	char *path = NULL, *text = NULL;
	size_t len = 0;
	bool mounted;
	int ret;

	memset(st, 0, sizeof(*st));
	root = root ? root : "";
	if (!dynamic) {
		st->stop = RT_PREEMPT_NOT_DYNAMIC;
		return rt_err(cause, -ENOTSUP, "this kernel is not PREEMPT_DYNAMIC (uname -v does "
			      "not say so): its preemption model is fixed when it is built and "
			      "cannot be switched at run time; boot a kernel built with "
			      "CONFIG_PREEMPT_DYNAMIC (Debian's own kernels are, since 6.1)");
	}
	ret = debugfs_mounted(root, &mounted);
	if (ret == -ENOMEM)
		return rt_err(cause, ret, "out of memory");
	if (ret || !mounted) {
		st->stop = RT_PREEMPT_NO_DEBUGFS;
		st->err = -ENOENT;
		return rt_err(cause, -ENOENT, "debugfs is not mounted at %s%s%s: mount it with "
			      "`mount -t debugfs none %s` (as root)", RT_PREEMPT_DEBUGFS,
			      ret ? ", or /proc/mounts cannot be read: " : "",
			      ret ? strerror(-ret) : "", RT_PREEMPT_DEBUGFS);
	}
	if (asprintf(&path, "%s%s", root, RT_PREEMPT_FILE) < 0)
		return rt_err(cause, -ENOMEM, "out of memory");
	if (access(path, F_OK)) {
		free(path);
		st->stop = RT_PREEMPT_NO_FILE;
		st->err = -ENOENT;
		return rt_err(cause, -ENOENT, "debugfs has no %s although the kernel says "
			      "PREEMPT_DYNAMIC: the first such kernels (5.12) kept the switch in "
			      "/sys/kernel/debug/sched_preempt, which rtlab does not use",
			      RT_PREEMPT_FILE);
	}
	ret = rt_file_read(path, PREEMPT_READ_MAX, &text, &len);
	free(path);
	if (ret) {
		st->stop = RT_PREEMPT_READ_REFUSED;
		st->err = ret;
		if (ret == -EPERM || ret == -EACCES)
			return explain_refusal(root, "reading", ret, cause);
		return rt_err(cause, ret, "cannot read %s: %s", RT_PREEMPT_FILE, strerror(-ret));
	}
	st->current = rt_preempt_parse(text, &st->offered);
	if (!st->current) {
		st->stop = RT_PREEMPT_UNREADABLE;
		st->err = -EINVAL;
		ret = rt_err(cause, -EINVAL, "%s reads \"%.60s\", which names no active model in "
			     "parentheses", RT_PREEMPT_FILE, text);
		free(text);
		return ret;
	}
	free(text);
	return 0;
}

int rt_preempt_switch(struct rt_journal *j, const char *root, bool dynamic, const char *model,
		      struct rt_preempt_state *st, char **cause)
{
	const char *want = rt_preempt_model(model);
	char *path = NULL, *why = NULL;
	int i, ret;

	ret = rt_preempt_read(root, dynamic, st, cause);
	if (ret)
		return ret;
	i = want ? model_index(want, strlen(want)) : -1;
	if (i < 0 || !(st->offered & (1u << i)))
		return rt_err(cause, -EINVAL, "this kernel does not offer the preemption model "
			      "\"%s\" (%s offers:%s%s%s%s)", model ? model : "", RT_PREEMPT_FILE,
			      st->offered & 1 ? " none" : "", st->offered & 2 ? " voluntary" : "",
			      st->offered & 4 ? " full" : "", st->offered & 8 ? " lazy" : "");
	if (want == st->current)
		return 0;
	if (asprintf(&path, "%s%s", root ? root : "", RT_PREEMPT_FILE) < 0)
		return rt_err(cause, -ENOMEM, "out of memory");
	ret = rt_journal_write_knob(j, path, st->current, strlen(st->current), want,
				    strlen(want), &why);
	free(path);
	if (ret) {
		st->stop = RT_PREEMPT_WRITE_REFUSED;
		st->err = ret;
		ret = rt_err(cause, ret, "switching the preemption model from %s to %s was "
			     "refused: %s", st->current, want, why ? why : strerror(-ret));
		free(why);
		return ret;
	}
	free(why);
	return 0;
}

int rt_preempt_put_back(struct rt_journal *j, const char *root, const char *model,
			char **cause)
{
	const char *m = rt_preempt_model(model);
	char *path = NULL, *why = NULL;
	int ret;

	if (!m)
		return rt_err(cause, -EINVAL, "\"%s\" is not a preemption model",
			      model ? model : "");
	if (asprintf(&path, "%s%s", root ? root : "", RT_PREEMPT_FILE) < 0)
		return rt_err(cause, -ENOMEM, "out of memory");
	ret = rt_journal_write_knob(j, path, m, strlen(m), m, strlen(m), &why);
	free(path);
	if (ret)
		ret = rt_err(cause, ret, "switching the preemption model back to %s failed: %s", m,
			     why ? why : strerror(-ret));
	free(why);
	return ret;
}
