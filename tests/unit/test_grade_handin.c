/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_grade_handin: a hand-in goes from the writer to the reader intact,
 * and the reader refuses each kind of hostile archive, built here header by
 * header, naming the file and the entry, writing nothing (not in the
 * destination, never beside it). The class folder made from a folder of
 * hand-ins keeps the good ones, the newer of two, and reports the rest.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/rt_buf.h"
#include "core/rt_file.h"
#include "core/rt_sha256.h"
#include "grade/grade_handin.h"
#include "grade/grade_sandbox.h"

#define CODE "int nop_monitor(void) { return 0; }\n"
#define RESULTS "{\"schema\": \"rtlab.result/2\"}\n"
#define PROGRESS "{\"schema\": \"rtlab.progress/1\"}\n"

struct fix {
	char dir[64];		/* the test's folder */
	char tar[128];		/* dir/t.tar */
	char out[128];		/* dir/out: the destination */
	char canary[128];	/* dir/canary: must never change */
};

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	strcpy(f->dir, "/tmp/test_handin.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->tar, sizeof(f->tar), "%s/t.tar", f->dir);
	snprintf(f->out, sizeof(f->out), "%s/out", f->dir);
	snprintf(f->canary, sizeof(f->canary), "%s/canary", f->dir);
	if (mkdir(f->out, 0700) || rt_file_write_atomic(f->canary, "canary\n", 7, 0644, NULL))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;

	grade_rm_rf(f->dir);
	free(f);
	return 0;
}

/* ---- Building archives by hand ----------------------------------------------------------------- */

struct hdr {
	const char *name;
	char type;		/* '0' when 0 */
	size_t size;
	const char *link;
	const char *prefix;
	const char *magic;	/* 8 bytes; NULL: POSIX "ustar\0" "00" */
	bool bad_sum;
	bool base256;
};

static void put_hdr(struct rt_buf *b, const struct hdr *d)
{
	unsigned char h[512] = { 0 };
	unsigned int sum = 0;

	strncpy((char *)h, d->name, 100);
	sprintf((char *)h + 100, "%07o", 0644);
	sprintf((char *)h + 108, "%07o", 0);
	sprintf((char *)h + 116, "%07o", 0);
	sprintf((char *)h + 124, "%011zo", d->size);
	sprintf((char *)h + 136, "%011o", 1700000000);
	if (d->base256) {
		memset(h + 124, 0, 12);
		h[124] = 0x80;
		h[135] = (unsigned char)d->size;
	}
	h[156] = (unsigned char)(d->type ? d->type : '0');
	if (d->link)
		strncpy((char *)h + 157, d->link, 100);
	memcpy(h + 257, d->magic ? d->magic : "ustar\0" "00", 8);
	if (d->prefix)
		strncpy((char *)h + 345, d->prefix, 155);
	memset(h + 148, ' ', 8);
	for (int i = 0; i < 512; i++)
		sum += h[i];
	sprintf((char *)h + 148, "%06o", sum + (d->bad_sum ? 1 : 0));
	h[155] = ' ';
	assert_int_equal(rt_buf_append(b, h, 512), 0);
}

static void put_data(struct rt_buf *b, const void *data, size_t len)
{
	static const char zeros[512];

	assert_int_equal(rt_buf_append(b, data, len), 0);
	assert_int_equal(rt_buf_append(b, zeros, (512 - len % 512) % 512), 0);
}

static void put_file(struct rt_buf *b, const char *name, const void *data, size_t len)
{
	put_hdr(b, &(struct hdr){ .name = name, .size = len });
	put_data(b, data, len);
}

static void put_end(struct rt_buf *b)
{
	static const char zeros[1024];

	assert_int_equal(rt_buf_append(b, zeros, sizeof(zeros)), 0);
}

struct spec {
	const char *path;
	const char *data;
	size_t len;
};

/* A manifest of @n files; @extra: one more "key": value pair, or NULL. */
static char *manifest(const char *lab, const struct spec *s, size_t n, const char *extra)
{
	json_t *files = json_array(), *m;
	char *text, *out = NULL;

	for (size_t i = 0; i < n; i++) {
		char hex[RT_SHA256_HEX];

		rt_sha256_hex(s[i].data, s[i].len, hex);
		json_array_append_new(files, json_pack("{s:s, s:I, s:s}", "path", s[i].path,
						       "size", (json_int_t)s[i].len, "sha256", hex));
	}
	m = json_pack("{s:s, s:s, s:s, s:s, s:o}", "schema", "rtlab.handin/1", "lab", lab,
		      "rtlab_version", "0.1.0", "created", "2026-01-02T03:04:05Z", "files", files);
	text = json_dumps(m, JSON_COMPACT);
	json_decref(m);
	if (extra) {
		text[strlen(text) - 1] = '\0';	/* the closing brace */
		assert_true(asprintf(&out, "%s, %s}", text, extra) > 0);
		free(text);
		return out;
	}
	return text;
}

static void put_manifest(struct rt_buf *b, const char *lab, const struct spec *s, size_t n,
			 const char *extra)
{
	char *m = manifest(lab, s, n, extra);

	put_file(b, "rtlab-handin.json", m, strlen(m));
	free(m);
}

static const struct spec good[] = {
	{ "nop/nop_monitor.c", CODE, sizeof(CODE) - 1 },
	{ "nop/results.json", RESULTS, sizeof(RESULTS) - 1 },
	{ "progress.json", PROGRESS, sizeof(PROGRESS) - 1 },
};

/* The manifest and files of @good (every one when @n is 3). */
static void put_good(struct rt_buf *b, size_t n)
{
	put_manifest(b, "nop", good, 3, NULL);
	for (size_t i = 0; i < n; i++)
		put_file(b, good[i].path, good[i].data, good[i].len);
}

static void write_tar(const struct fix *f, const struct rt_buf *b)
{
	unlink(f->tar);
	assert_int_equal(rt_file_write_atomic(f->tar, b->data, b->len, 0644, NULL), 0);
}

static size_t entries(const char *dir)
{
	struct dirent *e;
	size_t n = 0;
	DIR *d = opendir(dir);

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static bool same_file(const char *path, const char *data)
{
	char *text = NULL;
	size_t len = 0;
	bool same;

	if (rt_file_read(path, 1u << 24, &text, &len))
		return false;
	same = len == strlen(data) && !memcmp(text, data, len);
	free(text);
	return same;
}

/* Unpacking @b must fail with @err, a cause holding the archive's name and @phrase, nothing written. */
static void refused(const struct fix *f, struct rt_buf *b, int err, const char *phrase)
{
	char *cause = NULL, *lab = NULL;

	write_tar(f, b);
	rt_buf_fini(b);
	assert_int_equal(grade_handin_unpack(f->tar, f->out, &lab, &cause), err);
	assert_null(lab);
	assert_non_null(cause);
	if (!strstr(cause, phrase) || !strstr(cause, "t.tar"))
		fail_msg("'%s' not in '%s'", phrase, cause);
	free(cause);
	assert_int_equal(entries(f->out), 0);
	assert_int_equal(entries(f->dir), 3);	/* t.tar, out, canary */
	assert_true(same_file(f->canary, "canary\n"));
}

/* ---- The round trip ---------------------------------------------------------------------------- */

static void test_round_trip(void **state)
{
	struct fix *f = *state;
	struct grade_handin h;
	char *cause = NULL, *lab = NULL, path[256];
	struct stat st;

	assert_int_equal(grade_handin_init(&h, "nop"), 0);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(grade_handin_add(&h, good[i].path, good[i].data, good[i].len,
						  1700000000 + (long long)i, &cause), 0);
	assert_int_equal(grade_handin_save(&h, f->tar, false, &cause), 0);
	assert_int_equal(grade_handin_save(&h, f->tar, false, &cause), -EEXIST);
	assert_non_null(strstr(cause, "t.tar"));
	free(cause);
	cause = NULL;
	assert_int_equal(grade_handin_save(&h, f->tar, true, &cause), 0);
	assert_int_equal(entries(f->dir), 3);	/* no temporary file left */
	grade_handin_fini(&h);
	grade_handin_fini(&h);

	assert_int_equal(grade_handin_unpack(f->tar, f->out, &lab, &cause), 0);
	assert_null(cause);
	assert_string_equal(lab, "nop");
	free(lab);
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", f->out, good[i].path);
		assert_true(same_file(path, good[i].data));
		assert_int_equal(lstat(path, &st), 0);
		assert_true(S_ISREG(st.st_mode));
		assert_int_equal(st.st_mtime, 1700000000 + (long long)i);
	}
	/* Again into the same folder: nothing is replaced, nothing removed. */
	assert_int_equal(grade_handin_unpack(f->tar, f->out, NULL, &cause), -EEXIST);
	free(cause);
	snprintf(path, sizeof(path), "%s/nop/nop_monitor.c", f->out);
	assert_true(same_file(path, CODE));
}

/* Other writers' ways the reader accepts: a folder entry, a prefix, GNU's magic, a signed sum. */
static void test_accepted_forms(void **state)
{
	struct fix *f = *state;
	struct rt_buf b = RT_BUF_INIT;
	char *cause = NULL, path[256];

	put_manifest(&b, "nop", good, 1, NULL);
	put_hdr(&b, &(struct hdr){ .name = "nop/", .type = '5' });
	put_hdr(&b, &(struct hdr){ .name = "nop_monitor.c", .prefix = "nop", .size = good[0].len,
				   .magic = "ustar  \0" });
	put_data(&b, good[0].data, good[0].len);
	put_end(&b);
	write_tar(f, &b);
	rt_buf_fini(&b);
	/* GNU's magic has no prefix field: its name is the bare one, not listed. */
	assert_int_equal(grade_handin_unpack(f->tar, f->out, NULL, &cause), -EINVAL);
	assert_non_null(strstr(cause, "'nop_monitor.c': not listed"));
	free(cause);
	cause = NULL;

	put_manifest(&b, "nop", good, 1, NULL);
	put_hdr(&b, &(struct hdr){ .name = "nop", .type = '5' });
	put_hdr(&b, &(struct hdr){ .name = "nop_monitor.c", .prefix = "nop", .size = good[0].len });
	put_data(&b, good[0].data, good[0].len);
	put_end(&b);
	assert_int_equal(rt_buf_append(&b, (char[10240]){ 0 }, 10240), 0);	/* record padding */
	write_tar(f, &b);
	rt_buf_fini(&b);
	assert_int_equal(grade_handin_unpack(f->tar, f->out, NULL, &cause), 0);
	snprintf(path, sizeof(path), "%s/nop/nop_monitor.c", f->out);
	assert_true(same_file(path, CODE));
}

static void test_add_refused(void **state)
{
	static const char *const bad[] = { "../x", "/etc/passwd", "nop/.hidden", "nop/a/b",
					   "other/x.c", "nop/", "nop", "nop/..", "x.c",
					   "rtlab-handin.json" };
	struct grade_handin h;
	char *cause = NULL, *big = calloc(1, GRADE_HANDIN_FILE_MAX + 1);

	(void)state;
	assert_int_equal(grade_handin_init(&h, "no-such-lab"), -ENOENT);
	assert_int_equal(grade_handin_init(&h, "nop"), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(grade_handin_add(&h, bad[i], "x", 1, 0, &cause), -EINVAL);
		free(cause);
		cause = NULL;
	}
	assert_int_equal(grade_handin_add(&h, "nop/a.c", big, GRADE_HANDIN_FILE_MAX + 1, 0,
					  &cause), -EFBIG);
	free(cause);
	cause = NULL;
	assert_int_equal(grade_handin_add(&h, "nop/a.c", "x", 1, 0, NULL), 0);
	assert_int_equal(grade_handin_add(&h, "nop/a.c", "y", 1, 0, &cause), -EINVAL);
	free(cause);
	free(big);
	grade_handin_fini(&h);
}

/* ---- Refusals ---------------------------------------------------------------------------------- */

static void test_absolute(void **state)
{
	struct rt_buf b = RT_BUF_INIT;

	put_good(&b, 1);
	put_file(&b, "/tmp/evil", "x", 1);
	put_end(&b);
	refused(*state, &b, -EINVAL, "entry '/tmp/evil': an absolute path: refused");
}

static void test_dotdot(void **state)
{
	struct rt_buf b = RT_BUF_INIT;

	put_good(&b, 1);
	put_file(&b, "../x", "x", 1);
	put_end(&b);
	refused(*state, &b, -EINVAL, "entry '../x': a path outside the hand-in: refused");
	put_good(&b, 1);
	put_file(&b, "nop/../../x", "x", 1);
	put_end(&b);
	refused(*state, &b, -EINVAL, "a path outside the hand-in");
	put_good(&b, 1);
	put_file(&b, "nop/..", "x", 1);
	put_end(&b);
	refused(*state, &b, -EINVAL, "a path outside the hand-in");
}

static void test_not_listed(void **state)
{
	struct rt_buf b = RT_BUF_INIT;

	put_manifest(&b, "nop", good, 1, NULL);
	put_file(&b, good[0].path, good[0].data, good[0].len);
	put_file(&b, "nop/evil.c", "x", 1);
	put_end(&b);
	refused(*state, &b, -EINVAL, "entry 'nop/evil.c': not listed in the manifest");
}

static void test_links(void **state)
{
	struct rt_buf b = RT_BUF_INIT;

	put_good(&b, 1);
	put_hdr(&b, &(struct hdr){ .name = "nop/results.json", .type = '2', .link = "/etc/shadow" });
	put_end(&b);
	refused(*state, &b, -EINVAL, "'nop/results.json': a symbolic link (to '/etc/shadow')");
	put_good(&b, 1);
	put_hdr(&b, &(struct hdr){ .name = "nop/results.json", .type = '1', .link = "x" });
	put_end(&b);
	refused(*state, &b, -EINVAL, "a hard link");
}

static void test_special_files(void **state)
{
	static const struct { char type; const char *what; } kinds[] = {
		{ '3', "a character device" }, { '4', "a block device" }, { '6', "a FIFO" },
		{ '7', "a contiguous file" }, { 'Q', "a vendor extension header" },
		{ 'z', "an entry of an unknown type" },
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct rt_buf b = RT_BUF_INIT;

		put_good(&b, 1);
		put_hdr(&b, &(struct hdr){ .name = "nop/results.json", .type = kinds[i].type });
		put_end(&b);
		refused(*state, &b, -EINVAL, kinds[i].what);
	}
}

static void test_folders(void **state)
{
	static const char *const names[] = { "nop/sub/", "other/", "/", "nop/x/" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct rt_buf b = RT_BUF_INIT;

		put_good(&b, 3);
		put_hdr(&b, &(struct hdr){ .name = names[i], .type = '5' });
		put_end(&b);
		refused(*state, &b, -EINVAL, i == 2 ? "an absolute path" : "a folder other than 'nop/'");
	}
}

static void test_extension_headers(void **state)
{
	static const struct { char type; const char *what; } kinds[] = {
		{ 'x', "a pax extended header" }, { 'g', "a pax global header" },
		{ 'L', "a GNU long-name header" }, { 'K', "a GNU long-link header" },
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct rt_buf b = RT_BUF_INIT;
		const char *pax = "30 path=nop/../../etc/passwd\n";

		put_good(&b, 0);
		put_hdr(&b, &(struct hdr){ .name = "././@PaxHeader", .type = kinds[i].type,
					   .size = strlen(pax) });
		put_data(&b, pax, strlen(pax));
		put_file(&b, good[0].path, good[0].data, good[0].len);
		put_end(&b);
		refused(*state, &b, -EINVAL, kinds[i].what);
	}
}

static void test_oversize(void **state)
{
	struct rt_buf b = RT_BUF_INIT;
	size_t n = GRADE_HANDIN_FILE_MAX + 1;
	char *big = calloc(1, n);
	struct spec s = { "nop/nop_monitor.c", big, n };

	put_manifest(&b, "nop", &s, 1, NULL);
	put_file(&b, s.path, big, n);
	put_end(&b);
	refused(*state, &b, -EINVAL, "the manifest's size of 'nop/nop_monitor.c' is not 0..1048576");
	s.len = n - 1;		/* the manifest within bounds, the entry not */
	put_manifest(&b, "nop", &s, 1, NULL);
	put_file(&b, s.path, big, n);
	put_end(&b);
	refused(*state, &b, -EINVAL, "entry 'nop/nop_monitor.c': 1048577 bytes, over the 1048576");
	/* A size in base-256, as GNU tar writes one over 8 GiB. */
	put_good(&b, 0);
	put_hdr(&b, &(struct hdr){ .name = good[0].path, .size = 5, .base256 = true });
	put_end(&b);
	refused(*state, &b, -EINVAL, "base-256");
	free(big);
}

static void test_total(void **state)
{
	struct rt_buf b = RT_BUF_INIT;
	char *big = calloc(1, GRADE_HANDIN_FILE_MAX), names[8][32];
	struct spec s[8];

	for (int i = 0; i < 8; i++) {
		snprintf(names[i], sizeof(names[i]), "nop/f%d.c", i);
		s[i] = (struct spec){ names[i], big, GRADE_HANDIN_FILE_MAX };
	}
	put_manifest(&b, "nop", s, 8, NULL);
	for (int i = 0; i < 8; i++)
		put_file(&b, s[i].path, big, GRADE_HANDIN_FILE_MAX);
	put_end(&b);
	refused(*state, &b, -EFBIG, "entry 'nop/f7.c': the files total over 8388608 bytes");
	free(big);

	/* Larger than any hand-in: refused before it is read. */
	big = calloc(1, GRADE_HANDIN_TAR_MAX + 1);
	assert_int_equal(rt_buf_append(&b, big, GRADE_HANDIN_TAR_MAX + 1), 0);
	refused(*state, &b, -EFBIG, "larger than any hand-in");
	free(big);
}

static void test_entries(void **state)
{
	struct rt_buf b = RT_BUF_INIT;
	struct spec s[GRADE_HANDIN_MAX_ENTRIES];
	char names[GRADE_HANDIN_MAX_ENTRIES][32];

	for (size_t i = 0; i < GRADE_HANDIN_MAX_ENTRIES; i++) {
		snprintf(names[i], sizeof(names[i]), "nop/f%zu.c", i);
		s[i] = (struct spec){ names[i], "", 0 };
	}
	put_manifest(&b, "nop", s, GRADE_HANDIN_MAX_ENTRIES - 1, NULL);
	for (size_t i = 0; i < GRADE_HANDIN_MAX_ENTRIES - 1; i++)
		put_file(&b, s[i].path, "", 0);
	put_hdr(&b, &(struct hdr){ .name = "nop/", .type = '5' });
	put_end(&b);
	refused(*state, &b, -EINVAL, "more than 64 entries");
	/* A manifest listing 64 files could never be met: refused as it is read. */
	put_manifest(&b, "nop", s, GRADE_HANDIN_MAX_ENTRIES, NULL);
	put_end(&b);
	refused(*state, &b, -EINVAL, "more than 63");
}

static void test_manifest(void **state)
{
	static const struct { const char *text; const char *phrase; } bad[] = {
		{ "not json", "the manifest is not JSON" },
		{ "[1, 2]", "not a JSON object" },
		{ "{\"schema\": \"rtlab.handin/2\", \"lab\": \"nop\"}", "schema is not" },
		{ "{\"schema\": \"rtlab.handin/1\", \"lab\": \"nop\", \"lab\": \"nop\"}",
		  "not JSON" },
		{ "{\"schema\": \"rtlab.handin/1\", \"lab\": \"nop\", \"rtlab_version\": \"1\", "
		  "\"created\": \"yesterday\", \"files\": []}", "created" },
		{ "{\"schema\": \"rtlab.handin/1\", \"lab\": \"nop\", \"rtlab_version\": \"1\", "
		  "\"created\": \"2026-01-02T03:04:05Z\", \"files\": [{\"path\": \"../x\", "
		  "\"size\": 1, \"sha256\": \"" "0000000000000000000000000000000000000000000000000000000000000000" "\"}]}",
		  "lists '../x', not a path" },
		{ "{\"schema\": \"rtlab.handin/1\", \"lab\": \"nop\", \"rtlab_version\": \"1\", "
		  "\"created\": \"2026-01-02T03:04:05Z\", \"files\": [{\"path\": \"nop/a.c\", "
		  "\"size\": 1, \"sha256\": \"ABC\"}]}", "64 lower-case hex" },
		{ "{\"schema\": \"rtlab.handin/1\", \"lab\": \"nop\", \"rtlab_version\": \"1\", "
		  "\"created\": \"2026-01-02T03:04:05Z\", \"files\": [{\"path\": \"nop/a.c\", "
		  "\"size\": -1, \"sha256\": \"" "0000000000000000000000000000000000000000000000000000000000000000" "\"}]}",
		  "size of 'nop/a.c'" },
		{ "{\"schema\": \"rtlab.handin/1\", \"lab\": \"nop\", \"rtlab_version\": \"1\", "
		  "\"created\": \"2026-01-02T03:04:05Z\", \"files\": [{\"path\": \"nop/a.c\", "
		  "\"size\": 0, \"mode\": 511, \"sha256\": \"" "0000000000000000000000000000000000000000000000000000000000000000" "\"}]}",
		  "files[0] is not {path, size, sha256}" },
	};
	struct rt_buf b = RT_BUF_INIT;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		put_file(&b, "rtlab-handin.json", bad[i].text, strlen(bad[i].text));
		put_end(&b);
		refused(*state, &b, -EINVAL, bad[i].phrase);
	}
	/* Unknown fields are refused by name. */
	put_manifest(&b, "nop", good, 3, "\"grade\": 100");
	put_end(&b);
	refused(*state, &b, -EINVAL, "an unknown field 'grade'");
	/* A lab this rtlab does not have. */
	put_manifest(&b, "nosuchlab", good, 0, NULL);
	put_end(&b);
	refused(*state, &b, -EINVAL, "the manifest's lab 'nosuchlab' is not a lab of this rtlab");
	/* Two entries for one listed path. */
	put_manifest(&b, "nop", good, 2, NULL);
	put_file(&b, good[0].path, good[0].data, good[0].len);
	put_file(&b, good[0].path, good[0].data, good[0].len);
	put_end(&b);
	refused(*state, &b, -EINVAL, "in the archive twice");
}

static void test_no_manifest(void **state)
{
	struct rt_buf b = RT_BUF_INIT;

	put_file(&b, good[0].path, good[0].data, good[0].len);
	put_end(&b);
	refused(*state, &b, -EINVAL, "no manifest: the first entry is 'nop/nop_monitor.c'");
	put_end(&b);
	refused(*state, &b, -EINVAL, "no manifest: an empty archive");
	/* The manifest after a file is not the manifest. */
	put_file(&b, good[0].path, good[0].data, good[0].len);
	put_manifest(&b, "nop", good, 1, NULL);
	put_end(&b);
	refused(*state, &b, -EINVAL, "no manifest");
}

static void test_checksum(void **state)
{
	struct rt_buf b = RT_BUF_INIT;

	put_good(&b, 0);
	put_hdr(&b, &(struct hdr){ .name = good[0].path, .size = good[0].len, .bad_sum = true });
	put_data(&b, good[0].data, good[0].len);
	put_end(&b);
	refused(*state, &b, -EINVAL, "entry 'nop/nop_monitor.c': its header checksum does not match");
	/* Not a ustar header at all (a V7 one). */
	put_good(&b, 0);
	put_hdr(&b, &(struct hdr){ .name = good[0].path, .size = good[0].len,
				   .magic = "\0\0\0\0\0\0\0\0" });
	put_end(&b);
	refused(*state, &b, -EINVAL, "not a ustar header");
}

static void test_sha256(void **state)
{
	struct rt_buf b = RT_BUF_INIT;
	char edited[] = CODE;

	edited[0] = 'I';
	put_good(&b, 0);
	put_file(&b, good[0].path, edited, strlen(edited));
	put_end(&b);
	refused(*state, &b, -EINVAL, "its SHA-256 does not match the manifest's");
	put_good(&b, 0);
	put_file(&b, good[0].path, CODE "x", strlen(CODE) + 1);
	put_end(&b);
	refused(*state, &b, -EINVAL, "bytes where the manifest says");
}

static void test_truncated(void **state)
{
	struct rt_buf b = RT_BUF_INIT;
	size_t cut;

	put_good(&b, 3);
	cut = b.len;
	put_end(&b);
	b.len = cut;		/* no end-of-archive block */
	refused(*state, &b, -EINVAL, "truncated: no end-of-archive block");
	put_good(&b, 3);
	b.len -= 300;		/* inside the progress file's data (one block of it) */
	refused(*state, &b, -EINVAL, "truncated");
	put_good(&b, 1);
	cut = b.len;
	put_file(&b, good[1].path, good[1].data, good[1].len);
	b.len = cut + 100;	/* inside a header */
	refused(*state, &b, -EINVAL, "it ends inside a header");
	put_good(&b, 2);	/* progress.json listed, never there */
	put_end(&b);
	refused(*state, &b, -EINVAL, "entry 'progress.json': listed in the manifest but not in "
		"the archive");
	put_good(&b, 3);
	put_end(&b);
	assert_int_equal(rt_buf_append(&b, "junk", 4), 0);
	refused(*state, &b, -EINVAL, "data after the end of the archive");
}

static void test_names(void **state)
{
	struct rt_buf b = RT_BUF_INIT;

	put_good(&b, 1);
	put_file(&b, "nop/caf\xc3\xa9.c", "x", 1);
	put_end(&b);
	refused(*state, &b, -EINVAL, "'nop/caf\\xc3\\xa9.c': a name that is not printable ASCII");
	put_good(&b, 1);
	put_file(&b, "nop/a\nb", "x", 1);
	put_end(&b);
	refused(*state, &b, -EINVAL, "a name that is not printable ASCII");
	put_good(&b, 1);
	put_hdr(&b, &(struct hdr){ .name = "x", .prefix = "/etc", .size = 1 });
	put_data(&b, "x", 1);
	put_end(&b);
	refused(*state, &b, -EINVAL, "'/etc/x': an absolute path");
	put_good(&b, 1);
	put_hdr(&b, &(struct hdr){ .name = "../x", .prefix = "nop", .size = 1 });
	put_data(&b, "x", 1);
	put_end(&b);
	refused(*state, &b, -EINVAL, "'nop/../x': a path outside the hand-in");
}

/* The destination's own links are never written through; a failure removes what was written. */
static void test_destination(void **state)
{
	struct fix *f = *state;
	struct rt_buf b = RT_BUF_INIT;
	char *cause = NULL, link[512], outside[256], path[512];

	put_good(&b, 3);
	put_end(&b);
	write_tar(f, &b);
	rt_buf_fini(&b);
	snprintf(outside, sizeof(outside), "%s/outside", f->dir);
	snprintf(link, sizeof(link), "%s/nop", f->out);
	assert_int_equal(mkdir(outside, 0700), 0);
	assert_int_equal(symlink(outside, link), 0);
	assert_true(grade_handin_unpack(f->tar, f->out, NULL, &cause) < 0);
	assert_non_null(strstr(cause, "out/nop"));
	free(cause);
	cause = NULL;
	assert_int_equal(entries(outside), 0);
	unlink(link);

	snprintf(link, sizeof(link), "%s/progress.json", f->out);
	snprintf(path, sizeof(path), "%s/victim", outside);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(grade_handin_unpack(f->tar, f->out, NULL, &cause), -EEXIST);
	free(cause);
	cause = NULL;
	assert_int_equal(access(path, F_OK), -1);	/* not created through the link */
	assert_int_equal(entries(f->out), 1);		/* the nop files were removed again */

	assert_int_equal(grade_handin_unpack(f->tar, "/nonexistent/dir", NULL, &cause), -ENOENT);
	free(cause);
}

/* ---- A folder of hand-ins ---------------------------------------------------------------------- */

static void save(const char *path, const char *created, const char *code)
{
	struct grade_handin h;

	assert_int_equal(grade_handin_init(&h, "nop"), 0);
	free(h.created);
	h.created = strdup(created);
	assert_int_equal(grade_handin_add(&h, "nop/nop_monitor.c", code, strlen(code), 0, NULL), 0);
	assert_int_equal(grade_handin_add(&h, "progress.json", created, strlen(created), 0, NULL),
			 0);
	assert_int_equal(grade_handin_save(&h, path, false, NULL), 0);
	grade_handin_fini(&h);
}

static void test_class_dir(void **state)
{
	struct fix *f = *state;
	struct rt_buf b = RT_BUF_INIT;
	char class[256], path[512], *out = NULL, *report = NULL, *cause = NULL;

	setenv("TMPDIR", f->dir, 1);
	snprintf(class, sizeof(class), "%s/class", f->dir);
	assert_int_equal(mkdir(class, 0700), 0);

	/* No tar: a plain class folder. */
	snprintf(path, sizeof(path), "%s/zed", class);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(grade_handin_class_dir(class, &out, &report, &cause), 0);
	assert_null(out);
	assert_null(report);

	snprintf(path, sizeof(path), "%s/alice.tar", class);
	save(path, "2026-01-01T00:00:00Z", "alice");
	snprintf(path, sizeof(path), "%s/bob", class);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/bob/new.tar", class);
	save(path, "2026-02-01T00:00:00Z", "bob new");
	snprintf(path, sizeof(path), "%s/bob/old.tar", class);
	save(path, "2026-01-01T00:00:00Z", "bob old");
	snprintf(path, sizeof(path), "%s/bob/notes.txt", class);
	assert_int_equal(rt_file_write_atomic(path, "x", 1, 0644, NULL), 0);
	put_good(&b, 1);
	put_file(&b, "../x", "x", 1);
	put_end(&b);
	snprintf(path, sizeof(path), "%s/carol.tar", class);
	assert_int_equal(rt_file_write_atomic(path, b.data, b.len, 0644, NULL), 0);
	rt_buf_fini(&b);
	snprintf(path, sizeof(path), "%s/dave", class);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/dave/x.tar", class);
	assert_int_equal(symlink("../alice.tar", path), 0);

	assert_int_equal(grade_handin_class_dir(class, &out, &report, &cause), 0);
	assert_null(cause);
	assert_non_null(out);
	assert_non_null(strstr(out, "/rtlab-handin."));
	assert_non_null(report);
	snprintf(path, sizeof(path), "%s/alice/nop/nop_monitor.c", out);
	assert_true(same_file(path, "alice"));
	snprintf(path, sizeof(path), "%s/alice/progress.json", out);
	assert_true(same_file(path, "2026-01-01T00:00:00Z"));
	snprintf(path, sizeof(path), "%s/bob/nop/nop_monitor.c", out);
	assert_true(same_file(path, "bob new"));
	snprintf(path, sizeof(path), "%s/bob/progress.json", out);
	assert_true(same_file(path, "2026-02-01T00:00:00Z"));
	assert_non_null(strstr(report, "bob/old.tar: an older hand-in of nop than bob/new.tar"));
	/* carol: refused, reported, her folder empty. */
	assert_non_null(strstr(report, "carol.tar: entry '../x': a path outside the hand-in: "
			       "refused\n"));
	snprintf(path, sizeof(path), "%s/carol", out);
	assert_int_equal(entries(path), 0);
	assert_non_null(strstr(report, "dave/x.tar: a symbolic link"));
	assert_non_null(strstr(report, "dave/: a plain folder"));
	assert_non_null(strstr(report, "zed/: a plain folder next to hand-in tars: ignored"));
	snprintf(path, sizeof(path), "%s/zed", out);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(entries(out), 3);	/* alice, bob, carol: no stage left */
	snprintf(path, sizeof(path), "%s/x", f->dir);
	assert_int_equal(access(path, F_OK), -1);	/* carol's ../x, nowhere */
	grade_rm_rf(out);
	free(out);
	free(report);
	unsetenv("TMPDIR");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_accepted_forms, setup, teardown),
		cmocka_unit_test_setup_teardown(test_add_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_absolute, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dotdot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_listed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_links, setup, teardown),
		cmocka_unit_test_setup_teardown(test_special_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folders, setup, teardown),
		cmocka_unit_test_setup_teardown(test_extension_headers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oversize, setup, teardown),
		cmocka_unit_test_setup_teardown(test_total, setup, teardown),
		cmocka_unit_test_setup_teardown(test_entries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_manifest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_manifest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checksum, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sha256, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_destination, setup, teardown),
		cmocka_unit_test_setup_teardown(test_class_dir, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
