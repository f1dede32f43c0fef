/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_handin: a learner's hand-in of one lab as a tar file, and the
 * teacher's safe way back from a folder of such files to a class folder
 * (doc/handin.md is the contract).
 *
 * `rtlab handin LAB` packs, as a POSIX ustar archive written here (no tar
 * program, no library): rtlab-handin.json first (the manifest, schema
 * rtlab.handin/1: the lab, rtlab's version, when, and each file's path, size
 * and SHA-256), then <lab>/<source> for each source of the lab's exercise
 * found in the working copy, <lab>/results.json (the results document
 * `rtlab grade LAB` would grade) and progress.json (the learner's progress,
 * whose quiz answers the class grader scores). Every entry is a plain file,
 * mode 0644, uid and gid 0, its mtime the file's.
 *
 * The reader is fed what students upload, so it trusts nothing: the whole
 * archive is read into memory (it is small by rule) and checked before a
 * byte is written. It accepts exactly what the writer makes (plus a plain
 * <lab>/ folder entry and GNU tar's old magic) and refuses with a message
 * naming the file and the entry: absolute paths, '..', names the manifest
 * does not list, links, devices, FIFOs, other folders, pax and GNU
 * extension headers, a file over GRADE_HANDIN_FILE_MAX, more than
 * GRADE_HANDIN_TOTAL_MAX of files, more than GRADE_HANDIN_MAX_ENTRIES
 * entries, a missing or malformed manifest (unknown fields too), a header
 * checksum or SHA-256 that does not match, a lab that is not registered, a
 * truncated archive. Files are then created with O_CREAT|O_EXCL|O_NOFOLLOW
 * relative to a descriptor of the destination, so nothing is ever written
 * outside it, and a refused archive leaves nothing behind.
 *
 * Limits: names are ASCII and at most 100 bytes after the lab's folder
 * (a ustar name, or prefix and name); no archive needs more.
 */
#ifndef RTLAB_GRADE_GRADE_HANDIN_H
#define RTLAB_GRADE_GRADE_HANDIN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/rt_buf.h"
#include "core/rt_sha256.h"

#define GRADE_HANDIN_SCHEMA "rtlab.handin/1"
#define GRADE_HANDIN_MANIFEST "rtlab-handin.json"	/* the first entry */
#define GRADE_HANDIN_PROGRESS "progress.json"
#define GRADE_HANDIN_RESULTS "results.json"		/* in <lab>/ */
#define GRADE_HANDIN_FILE_MAX (1u << 20)		/* bytes of one file */
#define GRADE_HANDIN_TOTAL_MAX (8u << 20)		/* bytes of all files, manifest too */
#define GRADE_HANDIN_MAX_ENTRIES 64u			/* headers of one archive */
#define GRADE_HANDIN_MANIFEST_MAX (64u * 1024)		/* bytes of the manifest */
/* The largest archive read: the files, a header and padding each, the end. */
#define GRADE_HANDIN_TAR_MAX (GRADE_HANDIN_TOTAL_MAX + GRADE_HANDIN_MAX_ENTRIES * 1024u + \
			      64u * 1024)

/* One file of a hand-in. */
struct grade_handin_file {
	char *path;		/* owned; in the archive: "<lab>/<name>" or "progress.json" */
	char *from;		/* owned; where it was read, or NULL */
	char *data;		/* owned; its bytes */
	size_t size;
	long long mtime;	/* seconds since the epoch */
	char sha256[RT_SHA256_HEX];
};

/* A hand-in being made. Start from grade_handin_init(); release with grade_handin_fini(). */
struct grade_handin {
	char *lab;		/* owned */
	char *created;		/* owned; RFC 3339 UTC */
	char *work;		/* owned; the working copy read, or NULL */
	struct grade_handin_file *files;	/* owned, in archive order */
	size_t nfiles;
	char **missing;		/* owned; what could not be packed and why, one line each */
	size_t nmissing;
	char *results_why;	/* owned; which results document was packed and why, or NULL */
	bool exercise;		/* the lab has a coding exercise */
	bool code;		/* every source of that exercise is packed */
	bool results;		/* a results document is packed */
	bool progress;		/* the progress file is packed */
};

/**
 * grade_handin_init - an empty hand-in of lab @lab, created now
 * @h: the caller's storage
 *
 * Returns 0, -ENOENT when @lab is not a registered lab, or -ENOMEM.
 */
int grade_handin_init(struct grade_handin *h, const char *lab);

/**
 * grade_handin_add - add a file to @h (its bytes are copied)
 * @path: its path in the archive: "<lab>/<bare name>" or "progress.json"
 * @mtime: its modification time (seconds since the epoch)
 *
 * Returns 0, or -EINVAL (a path a hand-in cannot hold, a second file of that
 * path), -EFBIG (over GRADE_HANDIN_FILE_MAX, or the total over
 * GRADE_HANDIN_TOTAL_MAX), -E2BIG (too many files) or -ENOMEM, with @cause.
 */
int grade_handin_add(struct grade_handin *h, const char *path, const void *data, size_t len,
		     long long mtime, char **cause);

/**
 * grade_handin_collect - the learner's hand-in of @lab
 * @h: initialised here (release with grade_handin_fini(), also on failure)
 *
 * Reads the exercise's sources from the working copy (grade_work_dir(); a
 * link or anything but a regular file is not packed), the latest results
 * document recorded in the progress file (what `rtlab grade LAB` grades) and
 * the progress file itself. What is absent or cannot be packed becomes a
 * line of @h->missing, not a failure. Returns 0, -ENOENT (@lab is not a
 * registered lab) or another negative errno with @cause.
 */
int grade_handin_collect(struct grade_handin *h, const char *lab, char **cause);

/* grade_handin_manifest - @h's rtlab.handin/1 manifest; a new reference, or NULL (ENOMEM). */
json_t *grade_handin_manifest(const struct grade_handin *h);

/**
 * grade_handin_tar - @h as a ustar archive, appended to @out
 *
 * Returns 0, or -ENAMETOOLONG (a path ustar cannot hold) or -ENOMEM with @cause.
 */
int grade_handin_tar(const struct grade_handin *h, struct rt_buf *out, char **cause);

/**
 * grade_handin_save - write @h's archive to @path atomically
 * @replace: replace an existing file; false: -EEXIST when @path exists
 *
 * A temporary file next to @path, synced, then renamed: @path is never a
 * torn archive. Returns 0 or a negative errno with @cause naming the file.
 */
int grade_handin_save(const struct grade_handin *h, const char *path, bool replace,
		      char **cause);

/* grade_handin_fini - free what @h owns; @h is zeroed. NULL is fine. */
void grade_handin_fini(struct grade_handin *h);

/**
 * grade_handin_unpack - check a hand-in and unpack it into @dest_dir
 * @tar_path: the archive (a link to it is followed: the caller named it)
 * @dest_dir: an existing folder; gets <lab>/... and progress.json
 * @lab_out: on success, the hand-in's lab (caller frees); may be NULL
 * @cause: on refusal, "TAR: entry 'NAME': what is wrong: refused"
 *
 * All or nothing: the archive is checked whole before anything is written,
 * and what was written is removed again if writing fails. A file that
 * exists in @dest_dir already is never replaced (-EEXIST). Returns 0,
 * -EINVAL (refused), -EFBIG (too large), -ENOMEM, or what the file system
 * said.
 */
int grade_handin_unpack(const char *tar_path, const char *dest_dir, char **lab_out,
			char **cause);

/**
 * grade_handin_class_dir - a class folder made from a folder of hand-ins
 * @dir: the teacher's folder: DIR/<student>.tar, or DIR/<student>/ holding
 *       one or more *.tar (one per lab, as an LMS download lays them out)
 * @out_dir: a new folder $TMPDIR/rtlab-handin.PID.XXXXXX (mode 0700) laid out
 *           as class mode reads it, DIR/<student>/<lab>/... and
 *           DIR/<student>/progress.json; the caller removes it with
 *           grade_rm_rf() and frees the string. NULL when @dir holds no tar
 *           at all: @dir is a plain class folder, to be graded as it is.
 * @report: NULL, or lines (each ending in '\n') of what was refused or
 *          ignored: "alice.tar: entry '../x': a path outside the hand-in:
 *          refused" (caller frees)
 *
 * A refused archive costs its student that lab only (graded "not handed
 * in"); a student whose every archive was refused still has a folder. Of
 * two hand-ins of one lab by one student the newer (manifest "created") is
 * kept, and the newest progress file of a student's hand-ins. When @dir
 * holds any tar, plain student folders next to them are reported and left
 * out. Returns 0, or a negative errno with @cause when no class folder
 * could be made at all (@dir unreadable, no room in $TMPDIR).
 */
int grade_handin_class_dir(const char *dir, char **out_dir, char **report, char **cause);

/* The JSON Schema (2020-12) of rtlab.handin/1 from its declared keys; NULL: ENOMEM. */
json_t *grade_handin_schema(void);

#endif
