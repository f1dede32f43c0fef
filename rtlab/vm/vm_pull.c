/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vm_pull: taking the classroom VM's progress and results documents into the host's state
 * (see vm_pull.h). Everything here works on files the guest wrote, so names are checked
 * before they are used, no link is followed, sizes are capped, and nothing on the host is
 * replaced: results get a new name, progress is merged under its lock.
 */
#include "vm_pull.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/rt_buf.h"
#include "core/rt_err.h"
#include "core/rt_file.h"
#include "core/rt_keys.h"
#include "core/rt_paths.h"
#include "core/rt_progress.h"
#include "core/rt_result.h"
#include "core/rt_text.h"
#include "qemu/qemu_run.h"

#define VM_PULL_MAX_NAMES 99
#define VM_PULL_NAME_MAX 200

const char *vm_pull_action_name(enum vm_pull_action a)
{
	static const char *const names[] = {
		[VM_PULL_COPIED] = "copied",
		[VM_PULL_SAME] = "same",
		[VM_PULL_RENAMED] = "renamed",
		[VM_PULL_SKIPPED] = "skipped",
	};

	return (unsigned int)a <= VM_PULL_SKIPPED ? names[a] : "?";
}

/*
 * rtlab.vm-pull/1, what `rtlab vm pull --json` prints of a report
 * (doc/cli-json.md), declared once for `rtlab schema`.
 */
static const char *const action_names[] = { "copied", "same", "renamed", "skipped", NULL };
static const struct rt_key item_keys[] = {
	RT_KEY("guest", RT_T_STRING, NULL, "its path in the VM (non-ASCII shown as `?`)", true),
	RT_KEY("host", RT_T_STRING | RT_T_NULL, NULL, "where it is on the host; null: skipped",
	       true),
	RT_KEY("action", RT_T_STRING, NULL, "what was done with it", true,
	       .values = action_names),
	RT_KEY("reason", RT_T_STRING | RT_T_NULL, NULL, "why it was skipped", true),
	RT_KEY_END,
};
static const struct rt_keys item_table = { .keys = item_keys };
static const struct rt_key progress_keys[] = {
	RT_KEY("found", RT_T_BOOL, NULL, "the VM had a progress file", true),
	RT_KEY("path", RT_T_STRING | RT_T_NULL, NULL, "the host's progress file merged into",
	       true),
	RT_KEY("kept", RT_T_STRING | RT_T_NULL, NULL,
	       "a VM progress file that could not be read, kept whole here", true),
	RT_KEY("changes", RT_T_ARRAY, NULL, "what the merge took from the VM", true,
	       .items = RT_T_STRING),
	RT_KEY_END,
};
static const struct rt_keys progress_table = { .keys = progress_keys };
static const struct rt_key pull_keys[] = {
	RT_KEY("schema", RT_T_STRING, NULL, "`rtlab.vm-pull/1`", true),
	RT_KEY("state_image", RT_T_STRING | RT_T_NULL, NULL, "the disk image that was read", true),
	RT_KEY("results", RT_T_ARRAY, NULL, "each `*.json` file the VM had, by name", true,
	       .of = &item_table),
	RT_KEY("progress", RT_T_OBJECT, NULL, "the progress merge", true,
	       .of = &progress_table),
	RT_KEY_END,
};
static const struct rt_keys pull_table = { .keys = pull_keys };

json_t *vm_pull_schema(void)
{
	return rt_keys_document(VM_PULL_SCHEMA, "rtlab vm pull --json", &pull_table, 0);
}

void vm_pull_report_fini(struct vm_pull_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->items[i].guest);
		free(r->items[i].host);
		free(r->items[i].reason);
	}
	free(r->items);
	for (size_t i = 0; i < r->nchanges; i++)
		free(r->changes[i]);
	free(r->changes);
	free(r->progress_path);
	free(r->progress_kept);
	memset(r, 0, sizeof(*r));
}

/* Take over @line (escaped already) as one of r->changes. */
static int vm_pull_take_note(void *priv, char *line)
{
	struct vm_pull_report *r = priv;
	char **v = realloc(r->changes, (r->nchanges + 1) * sizeof(*v));

	if (!v) {
		free(line);
		return -ENOMEM;
	}
	r->changes = v;
	r->changes[r->nchanges++] = line;
	return 0;
}

static int vm_pull_note(struct vm_pull_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Append one line to r->changes. Its fields (lesson and question ids, lab names) are the
 * guest's, so they are escaped as all text for a terminal is (rt_text): a C1 control or a
 * bidi override in an id shows as "\u202e", never reaches a terminal raw. 0 or -ENOMEM.
 */
static int vm_pull_note(struct vm_pull_report *r, const char *fmt, ...)
{
	struct rt_buf b = RT_BUF_INIT;
	va_list ap;
	char *s;
	int ret;

	va_start(ap, fmt);
	ret = rt_text_vprintf(&b, fmt, ap);
	va_end(ap);
	s = ret ? NULL : rt_buf_take(&b);
	rt_buf_fini(&b);
	if (!s)
		return -ENOMEM;
	return vm_pull_take_note(r, s);
}

/* Append an item; takes nothing over (copies the strings). 0 or -ENOMEM. */
static int vm_pull_item_add(struct vm_pull_report *r, const char *guest, const char *host,
			    enum vm_pull_action act, const char *reason)
{
	struct vm_pull_item *v, *it;

	v = realloc(r->items, (r->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->items = v;
	it = &r->items[r->n];
	memset(it, 0, sizeof(*it));
	it->action = act;
	it->guest = strdup(guest);
	it->host = host ? strdup(host) : NULL;
	it->reason = reason ? strdup(reason) : NULL;
	if (!it->guest || (host && !it->host) || (reason && !it->reason)) {
		free(it->guest);
		free(it->host);
		free(it->reason);
		return -ENOMEM;
	}
	r->n++;
	return 0;
}

/* ---- Placing a file ------------------------------------------------------ */

/* Candidate @i for @name: 0 the name, 1 NAME-vm.EXT, i > 1 NAME-vm-i.EXT. */
static char *vm_pull_candidate(const char *dir, const char *name, unsigned int i)
{
	const char *dot = strrchr(name, '.');
	size_t base = dot && dot != name ? (size_t)(dot - name) : strlen(name);
	const char *ext = name + base;
	char *p;
	int ret;

	if (i == 0)
		ret = asprintf(&p, "%s/%s", dir, name);
	else if (i == 1)
		ret = asprintf(&p, "%s/%.*s-vm%s", dir, (int)base, name, ext);
	else
		ret = asprintf(&p, "%s/%.*s-vm-%u%s", dir, (int)base, name, i, ext);
	return ret < 0 ? NULL : p;
}

/* Does @path hold exactly @text? 1 yes, 0 no (another content or not a regular file),
 * -ENOENT missing, other negative errno when it cannot be read. */
static int vm_pull_same(const char *path, const char *text, size_t len)
{
	char *have = NULL;
	size_t hlen = 0;
	int ret;

	ret = rt_file_load(path, RT_FILE_NOFOLLOW, RT_RESULT_MAX_FILE, &have, &hlen, NULL);
	if (ret == -ENOENT)
		return ret;
	if (ret == -EFBIG || ret == -ELOOP || ret == -EINVAL || ret == -EISDIR)
		return 0;
	if (ret < 0)
		return ret;
	ret = hlen == len && memcmp(have, text, len) == 0;
	free(have);
	return ret;
}

/* A temporary file in @dir holding @text, fsynced. Its path in *@tmp. 0 or -errno. */
static int vm_pull_tmp(const char *dir, const char *text, size_t len, char **tmp)
{
	int fd, ret;

	if (asprintf(tmp, "%s/.vm-pull-XXXXXX", dir) < 0) {
		*tmp = NULL;
		return -ENOMEM;
	}
	fd = mkostemp(*tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		free(*tmp);
		*tmp = NULL;
		return ret;
	}
	ret = rt_write_all(fd, text, len);
	if (!ret && fchmod(fd, 0600) < 0)
		ret = -errno;
	if (!ret && fsync(fd) < 0)
		ret = -errno;
	close(fd);
	if (ret) {
		unlink(*tmp);
		free(*tmp);
		*tmp = NULL;
	}
	return ret;
}

int vm_pull_place(const char *dir, const char *name, const char *text, size_t len,
		  char **host, enum vm_pull_action *act, char **cause)
{
	char *tmp = NULL, *cand = NULL;
	int ret = 0;

	*host = NULL;
	for (unsigned int i = 0; i <= VM_PULL_MAX_NAMES; i++) {
		free(cand);
		cand = vm_pull_candidate(dir, name, i);
		if (!cand) {
			ret = -ENOMEM;
			goto out;
		}
		ret = vm_pull_same(cand, text, len);
		if (ret == 1) {
			*act = VM_PULL_SAME;
			goto found;
		}
		if (ret == 0)
			continue;
		if (ret != -ENOENT) {
			ret = rt_err(cause, ret, "%s: cannot read it: %s", cand, strerror(-ret));
			goto out;
		}
		if (!tmp) {
			ret = vm_pull_tmp(dir, text, len, &tmp);
			if (ret) {
				ret = rt_err(cause, ret, "%s: cannot write there: %s", dir,
					     strerror(-ret));
				goto out;
			}
		}
		ret = rt_file_rename_noreplace(tmp, cand);
		if (ret == -EEXIST) {
			/* Taken meanwhile: look at this name again. */
			i--;
			continue;
		}
		if (ret) {
			ret = rt_err(cause, ret, "%s: cannot write it: %s", cand, strerror(-ret));
			goto out;
		}
		free(tmp);
		tmp = NULL;
		rt_fsync_parent(cand);
		*act = i == 0 ? VM_PULL_COPIED : VM_PULL_RENAMED;
		goto found;
	}
	ret = rt_err(cause, -EEXIST, "%s/%s: that name and its %d -vm names hold other files",
		     dir, name, VM_PULL_MAX_NAMES);
	goto out;
found:
	*host = cand;
	cand = NULL;
	ret = 0;
out:
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	free(cand);
	return ret;
}

/* ---- Merging progress ---------------------------------------------------- */

/* The host path a guest path was pulled to, or NULL. */
static const char *vm_pull_mapped(const struct vm_pull_report *r, const char *guest)
{
	for (size_t i = 0; guest && i < r->n; i++)
		if (r->items[i].host && !strcmp(r->items[i].guest, guest))
			return r->items[i].host;
	return NULL;
}

static const char *vm_pull_result_path(void *priv, const char *guest)
{
	return vm_pull_mapped(priv, guest);
}

int vm_pull_merge_progress(json_t *host, const json_t *guest, struct vm_pull_report *r)
{
	const struct rt_progress_merge_ops ops = {
		.result_path = vm_pull_result_path, .note = vm_pull_take_note, .priv = r,
	};

	return rt_progress_merge(host, guest, &ops);
}

/* ---- Collecting what the guest copied ------------------------------------ */

/* A name the guest may give a pulled file: "x.json", printable ASCII, no dot first. */
static bool vm_pull_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (n < 6 || n > VM_PULL_NAME_MAX || name[0] == '.' || strcmp(name + n - 5, ".json"))
		return false;
	for (const char *p = name; *p; p++)
		if (*p < 0x20 || *p > 0x7e || *p == '/')
			return false;
	return true;
}

/* "@gdir/@name" for messages: bytes that are not printable ASCII become '?'. */
static char *vm_pull_guest_path(const char *gdir, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%.*s", gdir, VM_PULL_NAME_MAX, name) < 0)
		return NULL;
	for (char *c = p; *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			*c = '?';
	return p;
}

/* Is @text a results document? NULL yes, else why not (static). */
static const char *vm_pull_not_result(const char *text, size_t len)
{
	json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
	const char *schema = json_string_value(json_object_get(doc, "schema"));
	const char *why = NULL;

	if (!doc)
		why = "not JSON";
	else if (!schema || strncmp(schema, "rtlab.result/", 13))
		why = "not a results document (its schema is not rtlab.result)";
	json_decref(doc);
	return why;
}

/* Take in every *.json of @pulled/@sub, known in the guest as @gdir/NAME. */
static int vm_pull_take_dir(const char *pulled, const char *sub, const char *gdir,
			    const char *results, struct vm_pull_report *r, char **cause)
{
	struct dirent **ents = NULL;
	char *dir = NULL;
	int n, ret = 0;

	if (asprintf(&dir, "%s/%s", pulled, sub) < 0)
		return -ENOMEM;
	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0) {
		ret = errno == ENOENT ? 0 : rt_err(cause, -errno, "%s: %s", dir, strerror(errno));
		free(dir);
		return ret;
	}
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name, *why = NULL;
		char *src = NULL, *guest = NULL, *text = NULL, *host = NULL, *err = NULL;
		enum vm_pull_action act = VM_PULL_SKIPPED;
		size_t len = 0;

		if (!ret && strcmp(name, ".") && strcmp(name, "..")) {
			guest = vm_pull_guest_path(gdir, name);
			if (!guest || asprintf(&src, "%s/%s", dir, name) < 0) {
				src = NULL;
				ret = -ENOMEM;
				goto next;
			}
			if (!vm_pull_name_ok(name))
				why = "not a NAME.json file name";
			else if (rt_file_load(src, RT_FILE_NOFOLLOW, RT_RESULT_MAX_FILE, &text,
					      &len, &err) < 0)
				why = err ? err : "unreadable";
			else
				why = vm_pull_not_result(text, len);
			if (!why) {
				ret = vm_pull_place(results, name, text, len, &host, &act, cause);
				if (ret)
					goto next;
			}
			ret = vm_pull_item_add(r, guest, host, act, why);
		}
next:
		free(src);
		free(guest);
		free(text);
		free(host);
		free(err);
		free(ents[i]);
	}
	free(ents);
	free(dir);
	return ret;
}

struct vm_pull_merge_ctx {
	const json_t *guest;
	struct vm_pull_report *r;
};

static int vm_pull_merge_cb(struct rt_progress *p, void *priv)
{
	struct vm_pull_merge_ctx *m = priv;
	json_t *before = json_deep_copy(rt_progress_json(p));
	int ret;

	if (!before)
		return -ENOMEM;
	ret = vm_pull_merge_progress(rt_progress_json(p), m->guest, m->r);
	/* Nothing new: leave the file (and its "updated") as it is. */
	if (!ret && json_equal(before, rt_progress_json(p)))
		ret = -EALREADY;
	json_decref(before);
	return ret;
}

int vm_pull_collect(const char *pulled, const char *state_dir, struct vm_pull_report *r,
		    char **cause)
{
	struct vm_pull_merge_ctx m = { .r = r };
	struct rt_progress *gp = NULL;
	char *state = NULL, *results = NULL, *src = NULL, *text = NULL, *why = NULL;
	size_t len = 0;
	int ret;

	memset(r, 0, sizeof(*r));
	state = state_dir ? strdup(state_dir) : rt_paths_state_dir();
	if (!state)
		return rt_err(cause, -errno, "no state directory: %s", strerror(errno));
	if (asprintf(&results, "%s/results", state) < 0) {
		results = NULL;
		ret = -ENOMEM;
		goto out;
	}
	ret = rt_mkdir_p(results, 0700);
	if (ret) {
		ret = rt_err(cause, ret, "%s: cannot make the results directory: %s", results,
			     strerror(-ret));
		goto out;
	}
	ret = vm_pull_take_dir(pulled, "results", VM_PULL_GUEST_STATE "/results", results, r,
			       cause);
	if (!ret)
		ret = vm_pull_take_dir(pulled, "top", "/state", results, r, cause);
	if (ret)
		goto out;

	if (asprintf(&src, "%s/progress.json", pulled) < 0) {
		src = NULL;
		ret = -ENOMEM;
		goto out;
	}
	ret = rt_file_load(src, RT_FILE_NOFOLLOW, RT_PROGRESS_MAX_FILE, &text, &len, NULL);
	if (ret == -ENOENT) {
		ret = 0;
		goto out;
	}
	r->progress_found = true;
	if (asprintf(&r->progress_path, "%s/%s", state, RT_PROGRESS_FILE) < 0) {
		r->progress_path = NULL;
		ret = -ENOMEM;
		goto out;
	}
	if (!ret)
		ret = rt_progress_parse(text, len, VM_PULL_GUEST_STATE "/progress.json", &gp,
					&why);
	if (ret) {
		/* Unreadable or not valid: kept whole beside the host's, never merged. */
		enum vm_pull_action act;

		if (vm_pull_note(r, "the VM's progress could not be merged: %s",
				 why ? why : strerror(-ret)))
			ret = -ENOMEM;
		else if (text)
			ret = vm_pull_place(state, "progress-vm.json", text, len,
					    &r->progress_kept, &act, cause);
		else
			ret = 0;
		goto out;
	}
	m.guest = rt_progress_json(gp);
	ret = rt_progress_update(r->progress_path, vm_pull_merge_cb, &m, cause);
	if (ret == -EALREADY)
		ret = 0;
out:
	if (ret == -ENOMEM && cause && !*cause)
		rt_err(cause, ret, "out of memory");
	rt_progress_free(gp);
	free(state);
	free(results);
	free(src);
	free(text);
	free(why);
	return ret;
}

/* ---- The directory the guest copies into --------------------------------- */

char *vm_pull_dir_new(char **cause)
{
	const char *tmp = getenv("TMPDIR");
	char *state = rt_paths_state_dir(), *dir = NULL, *real = NULL;
	const char *bases[2] = { state, tmp && *tmp ? tmp : "/tmp" };
	int err = ENOENT;

	for (int i = 0; i < 2; i++) {
		if (!bases[i] || asprintf(&dir, "%s/vm-pull-XXXXXX", bases[i]) < 0) {
			dir = NULL;
			continue;
		}
		if (!mkdtemp(dir)) {
			err = errno;
			free(dir);
			dir = NULL;
			continue;
		}
		if (qemu_share_check(dir, &real, NULL) == 0) {
			free(real);
			break;
		}
		err = EOPNOTSUPP;
		rmdir(dir);
		free(dir);
		dir = NULL;
	}
	free(state);
	if (!dir) {
		rt_err(cause, -err, "no directory to share with the VM for the copy (the state "
		       "directory and $TMPDIR): %s", strerror(err));
		errno = err;
	}
	return dir;
}

static int vm_pull_rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	if (flag == FTW_DP)
		return rmdir(path) < 0 ? -1 : 0;
	return unlink(path) < 0 ? -1 : 0;
}

int vm_pull_dir_remove(const char *dir)
{
	if (nftw(dir, vm_pull_rm_one, 16, FTW_DEPTH | FTW_PHYS) < 0)
		return errno ? -errno : -EIO;
	return 0;
}
