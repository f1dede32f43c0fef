/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rtlab_check: the check program's side of the harness (rtlab_check.h).
 *
 * rtlab_run_subject() starts `$RTLAB_CHECK_RUNNER grade --run-subject`,
 * which reads the box's settings from RTLAB_CHECK_SANDBOX, runs the
 * subject in a fresh sandbox and hands back the subject's stdout on its
 * stdout, its stderr on its stderr and a record of how the run ended on
 * descriptor 3, one "key value" per line. The three go to temporary files
 * in the check program's private folder, read once the runner has ended. This file is compiled into
 * every check program by the harness; it uses only the C library, so a
 * check program can be linked statically for the classroom VM.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "rtlab_check.h"

#define READ_MAX (256u << 20)	/* the most kept of one stream, whatever the runner sends */

/*
 * Read what the runner wrote to the temporary file @fd into a new
 * NUL-terminated buffer; @cut when it was more than READ_MAX bytes.
 */
static char *slurp(int fd, size_t *len, bool *cut)
{
	off_t size = lseek(fd, 0, SEEK_END);
	size_t want, got = 0;
	char *buf;

	*len = 0;
	*cut = size > (off_t)READ_MAX;
	want = size < 0 ? 0 : *cut ? READ_MAX : (size_t)size;
	buf = malloc(want + 1);
	if (!buf || lseek(fd, 0, SEEK_SET) < 0) {
		free(buf);
		return NULL;
	}
	while (got < want) {
		ssize_t n = read(fd, buf + got, want - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	*len = got;
	return buf;
}

static void parse_record(char *rec, struct rtlab_run *r, char *error, size_t error_len)
{
	char *line, *save = NULL;

	for (line = strtok_r(rec, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *val = strchr(line, ' ');
		long v;

		if (!val)
			continue;
		*val++ = '\0';
		v = strtol(val, NULL, 10);
		if (!strcmp(line, "exit"))
			r->exit_code = (int)v;
		else if (!strcmp(line, "signal"))
			r->signal = (int)v;
		else if (!strcmp(line, "timed_out"))
			r->timed_out = v != 0;
		else if (!strcmp(line, "cpu_limit"))
			r->cpu_limit = v != 0;
		else if (!strcmp(line, "fsize_limit"))
			r->fsize_limit = v != 0;
		else if (!strcmp(line, "out_cut"))
			r->out_cut = v != 0;
		else if (!strcmp(line, "err_cut"))
			r->err_cut = v != 0;
		else if (!strcmp(line, "stops"))
			r->nstops = (unsigned int)v;
		else if (!strcmp(line, "vmlck_kb"))
			r->vmlck_kb = v;
		else if (!strcmp(line, "policy"))
			r->policy = (int)v;
		else if (!strcmp(line, "rtprio"))
			r->rtprio = (int)v;
		else if (!strcmp(line, "wall_ms"))
			r->wall_s = (double)v / 1000.0;
		else if (!strcmp(line, "reason"))
			snprintf(r->reason, sizeof(r->reason), "%s", val);
		else if (!strcmp(line, "error"))
			snprintf(error, error_len, "%s", val);
	}
}

static int write_stdin_file(const struct rtlab_run_opts *o, char *path, size_t len)
{
	size_t off = 0;
	int fd;

	snprintf(path, len, "stdin.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	while (off < o->stdin_len) {
		ssize_t w = write(fd, o->stdin_data + off, o->stdin_len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(fd);
			unlink(path);
			return -EIO;
		}
		off += (size_t)w;
	}
	close(fd);
	return 0;
}

int rtlab_run_subject(const struct rtlab_run_opts *o, struct rtlab_run *r)
{
	static const struct rtlab_run_opts none;
	const char *runner = getenv("RTLAB_CHECK_RUNNER");
	char tmp[32] = "", nums[3][24], error[256] = "", *rec = NULL;
	char names[3][32] = { "out.XXXXXX", "err.XXXXXX", "rec.XXXXXX" };
	int fds[3] = { -1, -1, -1 }, st = 0, ret = 0;
	const char *args[300];
	size_t n = 0, rec_len;
	bool cut;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->exit_code = -1;
	r->vmlck_kb = -1;
	r->policy = r->rtprio = -1;
	if (!o)
		o = &none;
	if (!runner || !*runner) {
		snprintf(r->reason, sizeof(r->reason), "RTLAB_CHECK_RUNNER is not set: run the "
			 "check program through rtlab grade");
		return -ENOENT;
	}
	args[n++] = runner;
	args[n++] = "grade";
	args[n++] = "--run-subject";
	if (o->stdin_data) {
		ret = write_stdin_file(o, tmp, sizeof(tmp));
		if (ret) {
			snprintf(r->reason, sizeof(r->reason), "cannot write the subject's stdin: %s",
				 strerror(-ret));
			return ret;
		}
		args[n++] = "--stdin";
		args[n++] = tmp;
	} else if (o->stdin_path) {
		args[n++] = "--stdin";
		args[n++] = o->stdin_path;
	}
	if (o->wall_s) {
		snprintf(nums[0], sizeof(nums[0]), "%u", o->wall_s);
		args[n++] = "--wall";
		args[n++] = nums[0];
	}
	if (o->rtprio) {
		snprintf(nums[1], sizeof(nums[1]), "%u", o->rtprio);
		args[n++] = "--rtprio";
		args[n++] = nums[1];
	}
	if (o->memlock_kb) {
		snprintf(nums[2], sizeof(nums[2]), "%u", o->memlock_kb);
		args[n++] = "--memlock";
		args[n++] = nums[2];
	}
	args[n++] = "--";
	for (size_t i = 0; o->argv && o->argv[i] && n < 299; i++)
		args[n++] = o->argv[i];
	args[n] = NULL;

	/* The runner caps what it passes on; files in our private folder take it whole. */
	for (int i = 0; i < 3; i++) {
		fds[i] = mkstemp(names[i]);
		if (fds[i] < 0) {
			ret = -errno;
			snprintf(r->reason, sizeof(r->reason), "cannot make a file: %s",
				 strerror(errno));
			goto out;
		}
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		snprintf(r->reason, sizeof(r->reason), "fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY);

		if (nul < 0 || dup2(nul, 0) < 0 || dup2(fds[0], 1) < 0 || dup2(fds[1], 2) < 0 ||
		    dup2(fds[2], 3) < 0)
			_exit(125);
		for (int fd = 4; fd < 1024; fd++)
			close(fd);
		execv(runner, (char *const *)args);
		_exit(126);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	r->out = slurp(fds[0], &r->out_len, &r->out_cut);
	r->err = slurp(fds[1], &r->err_len, &r->err_cut);
	rec = slurp(fds[2], &rec_len, &cut);
	if (!r->out || !r->err || !rec) {
		ret = -ENOMEM;
		snprintf(r->reason, sizeof(r->reason), "out of memory");
		goto out;
	}
	parse_record(rec, r, error, sizeof(error));
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		ret = -EIO;
		snprintf(r->reason, sizeof(r->reason), "the runner failed: %.200s", error[0] ? error :
			 WIFEXITED(st) ? "it exited with an error" : "it was killed");
	}
out:
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0) {
			close(fds[i]);
			unlink(names[i]);
		}
	free(rec);
	if (tmp[0])
		unlink(tmp);
	if (ret) {
		char reason[sizeof(r->reason)];

		memcpy(reason, r->reason, sizeof(reason));
		rtlab_run_fini(r);
		memcpy(r->reason, reason, sizeof(reason));
	}
	return ret;
}

bool rtlab_run_ok(const struct rtlab_run *r)
{
	return r->exit_code == 0 && !r->signal && !r->timed_out && !r->out_cut;
}

const char *rtlab_run_last(const struct rtlab_run *r, const char *needle)
{
	size_t n = strlen(needle);
	const char *last = NULL, *p = r->out, *end = r->out + r->out_len;

	while (p && n && p < end && (p = memmem(p, (size_t)(end - p), needle, n))) {
		last = p;
		p += n;
	}
	return last;
}

void rtlab_run_fini(struct rtlab_run *r)
{
	if (!r)
		return;
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
	r->exit_code = -1;
	r->vmlck_kb = -1;
	r->policy = r->rtprio = -1;
}

/* Whether @id is in the comma-separated @list. */
static bool in_list(const char *list, const char *id)
{
	size_t n = strlen(id);

	for (const char *p = list; p && *p; ) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len == n && !strncmp(p, id, n))
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

bool rtlab_check_can(const char *need)
{
	return in_list(getenv("RTLAB_CHECK_CAN"), need);
}

const char *rtlab_check_data(const char *name)
{
	static char path[4096];
	const char *dir = getenv("RTLAB_CHECK_DATA");

	snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : "data", name);
	return path;
}

void rtlab_check_reason(const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	if (!text)
		return;
	for (char *p = text; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	printf("# rtlab-reason: %s\n", text);
	fflush(stdout);
	free(text);
}

/* ---- Inputs from a seed ------------------------------------------------------------- */

uint64_t rtlab_check_seed(void)
{
	static uint64_t seed;
	static bool have;
	const char *s;
	char *end;

	if (have)
		return seed;
	have = true;
	s = getenv("RTLAB_CHECK_SEED");
	if (s && *s) {
		errno = 0;
		seed = strtoull(s, &end, 0);
		if (!errno && !*end)
			return seed;
	}
	if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
		seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	return seed;
}

struct rtlab_rng rtlab_rng_for(uint64_t salt)
{
	struct rtlab_rng g = { rtlab_check_seed() ^ (salt * 0x9e3779b97f4a7c15ull) };

	return g;
}

uint64_t rtlab_rng_next(struct rtlab_rng *g)
{
	uint64_t z = (g->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

struct rtlab_rng rtlab_rng_named(const char *what)
{
	struct rtlab_rng g = { UINT64_C(0xcbf29ce484222325) ^ rtlab_check_seed() };

	for (const char *p = what; *p; p++)	/* FNV-1a */
		g.s = (g.s ^ (unsigned char)*p) * UINT64_C(0x100000001b3);
	return g;
}

long long rtlab_rng_range(struct rtlab_rng *g, long long lo, long long hi)
{
	return lo + (long long)(rtlab_rng_next(g) % (uint64_t)(hi - lo + 1));
}

uint64_t rtlab_rng_below(struct rtlab_rng *g, uint64_t n)
{
	return n ? rtlab_rng_next(g) % n : 0;
}

void rtlab_check_seed_reason(const char *fmt, ...)
{
	unsigned long long seed = rtlab_check_seed();
	char text[480];		/* the harness keeps 600 bytes of a reason */
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	rtlab_check_reason("%s (inputs from seed %llu; RTLAB_CHECK_SEED=%llu gives the same)",
			   text, seed, seed);
}

int rtlab_check_main(const char *group, const struct CMUnitTest *tests, size_t n)
{
	const char *only = getenv("RTLAB_CHECK_ONLY");
	struct CMUnitTest *run = calloc(n ? n : 1, sizeof(*run));
	size_t m = 0;
	int ret;

	/* Nothing the subject runs as the same user may attach to us. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!run)
		return 1;
	for (size_t i = 0; i < n; i++) {
		char id[128];
		size_t k;

		for (k = 0; tests[i].name[k] && k < sizeof(id) - 1; k++)
			id[k] = tests[i].name[k] == '_' ? '-' : tests[i].name[k];
		id[k] = '\0';
		if (!only || in_list(only, id))
			run[m++] = tests[i];
	}
	cmocka_set_message_output(CM_OUTPUT_TAP);
	ret = m ? _cmocka_run_group_tests(group, run, m, NULL, NULL) : 0;
	free(run);
	return ret;
}
