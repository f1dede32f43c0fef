/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_handin: grade_handin_unpack() on arbitrary bytes, as a student's
 * upload. The bytes are written to a file and unpacked into an empty
 * folder, which is then removed. What it accepts must have a registered
 * lab and hold nothing but progress.json and <lab>/ with plain files of
 * bare names; what it refuses must leave the folder empty, with a cause;
 * and nothing may ever appear beside the folder. Anything else aborts.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/rt_file.h"
#include "grade/grade_handin.h"
#include "grade/grade_manifest.h"
#include "grade/grade_sandbox.h"
#include "labs/lab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char base[64], tar[128], dest[128];

static void cleanup(void)
{
	if (base[0])
		grade_rm_rf(base);
}

/* The names in @dir but "." and ".."; aborts on more than @max. */
static size_t list(const char *dir, char names[][256], size_t max)
{
	struct dirent *e;
	size_t n = 0;
	DIR *d = opendir(dir);

	if (!d)
		abort();
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (n >= max)
			abort();
		snprintf(names[n++], 256, "%s", e->d_name);
	}
	closedir(d);
	return n;
}

static bool is(const char *dir, const char *name, mode_t type)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !lstat(path, &st) && (st.st_mode & S_IFMT) == type;
}

/* Walk the headers as a reader would and write each one's right checksum. */
static void fix_checksums(uint8_t *d, size_t size)
{
	for (size_t off = 0, n = 0; size - off >= 512 && n < 100; n++) {
		unsigned int sum = 0;
		unsigned long long len = 0;
		char buf[8];

		for (size_t i = 0; i < 512; i++)
			sum += (i >= 148 && i < 156) ? ' ' : d[off + i];
		snprintf(buf, sizeof(buf), "%06o", sum & 0777777);
		memcpy(d + off + 148, buf, 7);
		d[off + 155] = ' ';
		for (size_t i = 124; i < 136 && d[off + i] >= '0' && d[off + i] <= '7'; i++)
			len = len * 8 + (d[off + i] - '0');
		if (len > size)
			break;
		off += 512 + (len + 511) / 512 * 512;
		if (off > size)
			break;
	}
}

static void one(const uint8_t *data, size_t size)
{
	static char names[GRADE_HANDIN_MAX_ENTRIES + 4][256];
	char *cause = NULL, *lab = NULL, labdir[512];
	size_t n;
	int ret, fd;

	if (!base[0]) {
		const char *t = getenv("TMPDIR");

		snprintf(base, sizeof(base), "%s/fuzz_handin.XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(base))
			abort();
		atexit(cleanup);
		snprintf(tar, sizeof(tar), "%s/in.tar", base);
		snprintf(dest, sizeof(dest), "%s/dest", base);
	}
	fd = open(tar, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || rt_write_all(fd, data, size) || close(fd) || mkdir(dest, 0700))
		abort();
	ret = grade_handin_unpack(tar, dest, &lab, &cause);
	n = list(dest, names, GRADE_HANDIN_MAX_ENTRIES + 4);
	if (ret) {
		if (!cause || lab || n)
			abort();
	} else {
		if (cause || !lab || !lab_find(lab) || n > 2)
			abort();
		for (size_t i = 0; i < n; i++) {
			if (!strcmp(names[i], GRADE_HANDIN_PROGRESS)) {
				if (!is(dest, names[i], S_IFREG))
					abort();
			} else if (strcmp(names[i], lab) || !is(dest, names[i], S_IFDIR)) {
				abort();
			}
		}
		snprintf(labdir, sizeof(labdir), "%s/%s", dest, lab);
		if (!access(labdir, F_OK)) {
			n = list(labdir, names, GRADE_HANDIN_MAX_ENTRIES);
			for (size_t i = 0; i < n; i++)
				if (!grade_file_name_ok(names[i]) || !is(labdir, names[i], S_IFREG))
					abort();
		}
	}
	if (list(base, names, 2) != 2)	/* in.tar and dest, nothing else */
		abort();
	free(cause);
	free(lab);
	if (grade_rm_rf(dest))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	one(data, size);
	if (size < 512 || !(copy = malloc(size)))
		return 0;
	memcpy(copy, data, size);
	fix_checksums(copy, size);
	one(copy, size);
	free(copy);
	return 0;
}
