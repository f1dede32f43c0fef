/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vm_pull: bring the classroom VM's progress and results documents into the host's state.
 *
 * The VM keeps its own state on its disk image (<state dir>/vm-state.img, mounted at
 * /state in the guest: progress in /state/rtlab/progress.json, results documents in
 * /state/rtlab/results/). `rtlab vm pull` boots the VM with that disk and a private host
 * directory shared over virtio-9p, and the guest's vm/guest/pull.sh copies the files
 * there: the guest's own kernel reads its file system, the host never mounts or parses
 * it. Then vm_pull_collect() takes the copies in:
 *
 *   - a results document (a file whose "schema" is rtlab.result/N) goes into
 *     <state dir>/results under its name; when the host has another file of that name it
 *     is kept beside it as NAME-vm.json (NAME-vm-2.json...), and when the host already
 *     has the same bytes under one of those names nothing is written, so pulling twice
 *     changes nothing. Nothing on the host is ever replaced. Other files are skipped;
 *   - the progress is merged into the host's progress.json under its lock
 *     (rt_progress_update()), per lesson, question, prediction and lab, by the rules of
 *     vm_pull_merge_progress(); neither side's entries are dropped.
 */
#ifndef RTLAB_VM_VM_PULL_H
#define RTLAB_VM_VM_PULL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Where the guest keeps what `rtlab vm pull` copies (XDG_STATE_HOME=/state inside). */
#define VM_PULL_SCHEMA		"rtlab.vm-pull/1"	/* what `rtlab vm pull --json` prints */
#define VM_PULL_GUEST_STATE	"/state/rtlab"
/* The guest script that copies them into the share (vm/guest/pull.sh in the image). */
#define VM_PULL_GUEST_SCRIPT	"/usr/lib/rtlab-vm/pull.sh"

enum vm_pull_action {
	VM_PULL_COPIED,		/* new on the host, under its own name */
	VM_PULL_SAME,		/* the host has these bytes already */
	VM_PULL_RENAMED,	/* the host has another file of that name: kept beside it */
	VM_PULL_SKIPPED,	/* not taken: see the reason */
};

/* "copied", "same", "renamed", "skipped". */
const char *vm_pull_action_name(enum vm_pull_action a);

struct vm_pull_item {
	char *guest;			/* the file's path in the guest */
	char *host;			/* where it is on the host; NULL when skipped */
	enum vm_pull_action action;
	char *reason;			/* skipped: why; else NULL */
};

struct vm_pull_report {
	struct vm_pull_item *items;	/* results documents and other files, by name */
	size_t n;
	bool progress_found;		/* the VM had a progress file */
	char *progress_path;		/* the host's progress file (merged into), or NULL */
	char *progress_kept;		/* an unreadable guest progress kept here, or NULL */
	char **changes;			/* what the merge changed or kept, one line each */
	size_t nchanges;
};

void vm_pull_report_fini(struct vm_pull_report *r);

/**
 * vm_pull_place - put @len bytes of @text into @dir as @name, never replacing a file
 * @host: on success where the bytes are; the caller frees it
 * @act: VM_PULL_COPIED (written as @name), VM_PULL_SAME (@name or one of its -vm
 *       names already holds exactly these bytes: nothing written) or VM_PULL_RENAMED
 *       (written as NAME-vm.EXT, NAME-vm-2.EXT, ..., the first free one)
 *
 * Existing files are read without following links. Returns 0 or a negative errno with
 * @cause (-EEXIST when the 99 names are all taken by other contents).
 */
int vm_pull_place(const char *dir, const char *name, const char *text, size_t len,
		  char **host, enum vm_pull_action *act, char **cause);

/**
 * vm_pull_merge_progress - merge the guest's progress document into the host's
 * @host: the host's rtlab.progress/1 document, changed in place
 * @guest: the guest's, valid rtlab.progress/1
 * @r: its items map guest result paths to host ones (a lab's "result" is rewritten to
 *     where its document was pulled); the lines describing the merge are appended to
 *     r->changes
 *
 * The rules, each keeping both sides' entries:
 *   - a lesson, question, prediction, lab or unknown member only one side has is kept;
 *   - a lesson is read when either side read it; its position is the further one;
 *   - a question, prediction or lab both have: the entry with the later "time" wins
 *     whole (an entry with a time beats one without; on a tie the host's stays), and a
 *     question keeps the larger attempt count;
 *   - any other member both have keeps the host's value;
 *   - a lab taken from the guest names only a document this pull took in (its result is
 *     rewritten to the host's copy); a result naming anything else is dropped, so a guest
 *     cannot make a host file (/etc/shadow) the latest result `rtlab grade` reads.
 * The notes escape the guest's ids and names as rt_text does for a terminal.
 * Merging the same guest twice changes nothing the second time. Returns 0 or -ENOMEM.
 */
int vm_pull_merge_progress(json_t *host, const json_t *guest, struct vm_pull_report *r);

/**
 * vm_pull_collect - take in what the guest copied into @pulled
 * @pulled: the shared directory pull.sh wrote: progress.json, results/, top/ (the
 *          *.json files of /state itself)
 * @state_dir: the host's state directory; NULL = rt_paths_state_dir()
 *
 * Files are read without following links and at most RT_RESULT_MAX_FILE bytes each.
 * Fills @r. Returns 0, or a negative errno with @cause when the host's state cannot be
 * written (what was placed until then is in @r).
 */
int vm_pull_collect(const char *pulled, const char *state_dir, struct vm_pull_report *r,
		    char **cause);

/**
 * vm_pull_dir_new - a private directory for the guest to copy into
 *
 * "<state dir>/vm-pull-XXXXXX" when the state directory's file system takes the share
 * (qemu_share_check()), else under $TMPDIR. Returns its path (caller frees; remove it with
 * vm_pull_dir_remove()), or NULL with errno set and @cause.
 */
char *vm_pull_dir_new(char **cause);

/* Remove @dir and everything in it, never following a link. 0 or a negative errno. */
int vm_pull_dir_remove(const char *dir);

/*
 * vm_pull_schema - the JSON Schema (2020-12) of rtlab.vm-pull/1, made from
 * the keys vm_pull.c declares. A new object, or NULL (ENOMEM).
 */
json_t *vm_pull_schema(void);

#endif
