/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_exercise: building and running an exercise's checks against a
 * learner's code (see the header, and doc/exercises.md for the contract).
 *
 * The order matters for what the learner can reach: the learner's files
 * are copied into the box first, the trusted headers and subject after
 * them (so a learner's "toy.h" or "subject.c" is overwritten, never used),
 * and only then is the box handed to its uid and compiled in the sandbox.
 * The check program is compiled from checks/ and labs/common/ alone, and
 * runs as the grader with a deadline; what it prints is all the grade
 * reads.
 */
#include "grade_exercise.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/rt_buf.h"
#include "core/rt_child.h"
#include "core/rt_err.h"
#include "core/rt_file.h"
#include "core/rt_paths.h"
#include "core/rt_text.h"
#include "core/rt_which.h"
#include "grade/grade_fence.h"
#include "grade/grade_stop.h"
#include "grade/grade_tap.h"

extern char **environ;

#define BUILD_WALL_S 120u
#define SUBJECT_OBJ "rtlab-subject.o"	/* the class's compiled subject, in the job folder */
#define PROGRAM_OUT_MAX (1u << 20)	/* bytes of a check program's output read */
#define PROGRAM_WALL_MAX_S 600u
#define DATA_FILE_MAX (64u << 20)
#define STDIN_MAX (64u << 20)

unsigned int grade_slot_base(void)
{
	return (unsigned int)(getpid() % 8000) * 256;
}

void grade_opts_init(struct grade_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->ns = GRADE_NS_ALL;
	o->timing_fd = -1;
	o->program_fd = -1;
	o->slot = grade_slot_base();
}

static char *join(const char *a, const char *b)
{
	char *s;

	return asprintf(&s, "%s/%s", a, b) < 0 ? NULL : s;
}

static bool is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- Opening ------------------------------------------------------------------------ */

/* labs/common: beside the exercise when it is in a labs/ folder, else in the data dir. */
static char *find_common(const char *dir)
{
	char *c = NULL, *h = NULL, *data;

	if (asprintf(&c, "%s/../common", dir) >= 0) {
		h = join(c, "rtlab_check.c");
		if (h && is_file(h)) {
			char *real = realpath(c, NULL);

			free(h);
			free(c);
			return real;
		}
		free(h);
		free(c);
	}
	data = rt_paths_data_dir();
	if (!data)
		return NULL;
	if (asprintf(&c, "%s/labs/common", data) < 0)
		c = NULL;
	free(data);
	return c;
}

int grade_exercise_open(struct grade_exercise *ex, const char *dir, char **cause)
{
	char *manifest = NULL, *bin = NULL;
	int ret;

	memset(ex, 0, sizeof(*ex));
	ex->dir = realpath(dir, NULL);
	if (!ex->dir)
		return rt_err(cause, -errno, "%s: %s", dir, strerror(errno));
	ex->checks = join(ex->dir, "checks");
	ex->data = join(ex->dir, "checks/data");
	manifest = join(ex->dir, "checks/exercise.json");
	bin = join(ex->dir, "bin/check");
	if (!ex->checks || !ex->data || !manifest || !bin) {
		ret = -ENOMEM;
		goto out;
	}
	if (!is_file(manifest)) {
		ret = rt_err(cause, -ENOENT, "%s has no exercise (no checks/exercise.json)", dir);
		goto out;
	}
	ret = grade_manifest_load(manifest, &ex->m, cause);
	if (ret)
		goto out;
	if (is_file(bin)) {
		ex->bin = join(ex->dir, "bin");
		ret = ex->bin ? 0 : -ENOMEM;
	} else {
		ex->common = find_common(ex->dir);
		ret = ex->common ? 0 : -ENOMEM;
	}
out:
	free(manifest);
	free(bin);
	if (ret)
		grade_exercise_fini(ex);
	return ret;
}

static char *lab_dir(const char *lab)
{
	char *data = rt_paths_data_dir(), *d = NULL;

	if (data && asprintf(&d, "%s/labs/%s", data, lab) < 0)
		d = NULL;
	free(data);
	return d;
}

int grade_exercise_find(struct grade_exercise *ex, const char *lab, char **cause)
{
	char *d = lab_dir(lab);
	int ret;

	memset(ex, 0, sizeof(*ex));
	if (!d)
		return rt_err(cause, -ENOMEM, "out of memory");
	ret = grade_exercise_open(ex, d, NULL);
	if (ret == -ENOENT)
		ret = rt_err(cause, ret, "the %s lab has no coding exercise (no %s/checks/"
			     "exercise.json)", lab, d);
	else if (ret)
		ret = grade_exercise_open(ex, d, cause);
	free(d);
	return ret;
}

bool grade_exercise_exists(const char *lab)
{
	char *d = lab_dir(lab), *m = d ? join(d, "checks/exercise.json") : NULL;
	bool yes = m && is_file(m);

	free(d);
	free(m);
	return yes;
}

void grade_exercise_fini(struct grade_exercise *ex)
{
	if (!ex)
		return;
	free(ex->dir);
	free(ex->checks);
	free(ex->data);
	free(ex->common);
	free(ex->bin);
	grade_manifest_fini(&ex->m);
	memset(ex, 0, sizeof(*ex));
}

static int need_file(const char *dir, const char *name, char **cause)
{
	char *p = join(dir, name);
	int ret = 0;

	if (!p)
		return -ENOMEM;
	if (!is_file(p))
		ret = rt_err(cause, -ENOENT, "%s: missing", p);
	free(p);
	return ret;
}

int grade_exercise_lint(const struct grade_exercise *ex, char **cause)
{
	const struct grade_manifest *m = &ex->m;
	const char *folders[] = { "starter", "reference" };
	int ret = 0;

	if (ex->bin)
		return 0;
	ret = need_file(ex->checks, m->subject, cause);
	if (!ret)
		ret = need_file(ex->checks, m->program, cause);
	for (size_t i = 0; !ret && i < m->headers.n; i++)
		ret = need_file(ex->checks, m->headers.v[i], cause);
	for (size_t i = 0; !ret && i < m->program_sources.n; i++)
		ret = need_file(ex->checks, m->program_sources.v[i], cause);
	for (size_t f = 0; !ret && f < 2; f++) {
		char *d = join(ex->dir, folders[f]);

		if (!d)
			return -ENOMEM;
		for (size_t i = 0; !ret && is_dir(d) && i < m->sources.n; i++)
			ret = need_file(d, m->sources.v[i], cause);
		free(d);
	}
	if (!ret && ex->common)
		ret = need_file(ex->common, "rtlab_check.c", cause);
	return ret;
}

/* ---- Files into the box ------------------------------------------------------------- */

/*
 * Copy @src to @dst (replaced), at most @max bytes, a regular file only; a
 * link is refused when @nofollow (a learner's file must not pull another
 * file in). Returns 0 or a negative errno with @cause.
 */
static int copy_file(const char *src, const char *dst, size_t max, bool nofollow, mode_t mode,
		     char **cause)
{
	char *data = NULL;
	size_t len = 0;
	int ret, fd;

	ret = rt_file_load(src, nofollow ? RT_FILE_NOFOLLOW : 0, max, &data, &len, cause);
	if (ret)
		return ret;
	unlink(dst);
	fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0) {
		ret = rt_err(cause, -errno, "%s: %s", dst, strerror(errno));
	} else {
		ret = rt_write_all(fd, data, len);
		if (close(fd) && !ret)
			ret = -errno;
		if (ret)
			rt_err(cause, ret, "%s: %s", dst, strerror(-ret));
	}
	free(data);
	return ret;
}

/* checks/data/ into @dst (regular files, folders two deep), for a prebuilt exercise. */
static int copy_data(const char *src, const char *dst, int depth, char **cause)
{
	struct dirent **names = NULL;
	int n, ret = 0;

	if (mkdir(dst, 0755) && errno != EEXIST)
		return rt_err(cause, -errno, "%s: %s", dst, strerror(errno));
	n = scandir(src, &names, NULL, alphasort);
	if (n < 0)
		return errno == ENOENT ? 0 : rt_err(cause, -errno, "%s: %s", src, strerror(errno));
	for (int i = 0; i < n; i++) {
		char *s = join(src, names[i]->d_name), *d = join(dst, names[i]->d_name);

		if (!s || !d)
			ret = -ENOMEM;
		else if (!ret && names[i]->d_name[0] != '.' && is_dir(s) && depth < 2)
			ret = copy_data(s, d, depth + 1, cause);
		else if (!ret && names[i]->d_name[0] != '.' && is_file(s))
			ret = copy_file(s, d, DATA_FILE_MAX, false, 0644, cause);
		free(s);
		free(d);
		free(names[i]);
	}
	free(names);
	return ret;
}

/* The learner's sources, then the trusted files over them. @log gets what was missing. */
static int fill_job(const struct grade_exercise *ex, const char *work,
		    const struct grade_sandbox *sb, struct rt_buf *log, char **cause)
{
	const struct grade_manifest *m = &ex->m;
	int ret = 0;

	for (size_t i = 0; !ret && i < m->sources.n; i++) {
		char *src = join(work, m->sources.v[i]), *dst = join(sb->job, m->sources.v[i]);
		char *why = NULL;

		if (!src || !dst)
			ret = -ENOMEM;
		else if (copy_file(src, dst, GRADE_SOURCE_MAX, true, 0644, &why))
			ret = rt_buf_printf(log, "%s: not taken: %s\n", m->sources.v[i],
					    why ? why : "cannot read it");
		free(why);
		free(src);
		free(dst);
	}
	for (size_t i = 0; !ret && i < m->headers.n + 1; i++) {
		const char *name = i < m->headers.n ? m->headers.v[i] : m->subject;
		char *src = join(ex->checks, name), *dst = join(sb->job, name);

		ret = src && dst ? copy_file(src, dst, GRADE_SOURCE_MAX, false, 0644, cause) :
		      -ENOMEM;
		free(src);
		free(dst);
	}
	return ret;
}

/* rt_child's on_start: a stop of the grader ends this child's session too. */
static void stop_track(void *arg, pid_t pid)
{
	*(int *)arg = grade_stop_add(pid, (uid_t)-1);
}

/* ---- Building --------------------------------------------------------------------- */

/* Compiler messages as printable text, at most GRADE_BUILD_LOG_MAX bytes of them. */
static char *clean_log(const char *s, size_t len)
{
	struct rt_buf b;

	rt_buf_init(&b);
	if (len > GRADE_BUILD_LOG_MAX)
		len = GRADE_BUILD_LOG_MAX;
	if (rt_text_escape(&b, s, len, RT_TEXT_KEEP_NL) || rt_buf_puts(&b, "")) {
		rt_buf_fini(&b);
		return NULL;
	}
	return rt_buf_take(&b);
}

/* The line of @log a learner should read first: the first error, else the first line. */
static void first_error(const char *log, char *out, size_t size)
{
	const char *p = strstr(log, "error:"), *start, *end;

	if (p) {
		for (start = p; start > log && start[-1] != '\n'; start--)
			;
	} else {
		for (start = log; *start == '\n'; start++)
			;
	}
	end = strchr(start, '\n');
	if (!end)
		end = start + strlen(start);
	snprintf(out, size, "%.*s", (int)(end - start > 200 ? 200 : end - start), start);
}

/*
 * Why a trusted compile failed, for its error: how the compiler ended when it
 * did not exit (killed from outside, out of time), else its first error.
 */
static void build_failure(const struct rt_child_result *res, char *out, size_t size)
{
	if (res->end == RT_CHILD_SIGNALED)
		snprintf(out, size, "the compiler was killed by signal %d", res->code);
	else if (res->end == RT_CHILD_TIMEOUT)
		snprintf(out, size, "the compiler ran out of its %u s", BUILD_WALL_S);
	else
		first_error(res->out ? res->out : "", out, size);
}

/*
 * The environment of a trusted compile writing @out: the caller's, but with
 * TMPDIR the folder of @out (a box the grader removes whole, so a compiler
 * killed from outside leaves nothing in the caller's TMPDIR) and messages in
 * the C locale (first_error() looks for "error:"). NULL: no memory. Release
 * with build_env_free().
 */
static char **build_env(const char *out)
{
	const char *slash = strrchr(out, '/');
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + 3, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (!strncmp(environ[i], "TMPDIR=", 7) || !strncmp(environ[i], "LC_ALL=", 7))
			continue;
		if (!(env[k++] = strdup(environ[i])))
			goto fail;
	}
	if (!(env[k++] = strdup("LC_ALL=C")))
		goto fail;
	if (asprintf(&env[k], "TMPDIR=%.*s", slash ? (int)(slash - out) : 1,
		     slash ? (slash == out ? "/" : out) : ".") < 0) {
		env[k] = NULL;
		goto fail;
	}
	return env;
fail:
	for (size_t i = 0; env[i]; i++)
		free(env[i]);
	free(env);
	return NULL;
}

static void build_env_free(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

/*
 * The compiler and its flags for the subject's sources, into @argv from @n on, with
 * @inc the include option of the folder holding the trusted headers: "-I." in the box,
 * checks/ for the class's object (grade_subject_obj_build()). Both builds use these, so
 * the object linked in a box is compiled as the box would compile it. Returns the new n.
 */
static size_t subject_cc(const struct grade_manifest *m, const char **argv, size_t n,
			 const char *inc)
{
	argv[n++] = "cc";
	argv[n++] = "-std=gnu11";
	argv[n++] = "-O2";
	argv[n++] = "-Wall";
	argv[n++] = "-fdiagnostics-color=never";
	argv[n++] = inc;
	for (size_t i = 0; i < m->cflags.n; i++)
		argv[n++] = m->cflags.v[i];
	return n;
}

/* Compile the subject in the sandbox; @ok says whether it did. */
static int build_subject(const struct grade_exercise *ex, const struct grade_sandbox *sb,
			 bool static_link, bool prebuilt_obj, bool *ok, struct rt_buf *log,
			 unsigned int *ns, unsigned int *fences, char **cause)
{
	const struct grade_manifest *m = &ex->m;
	const char *argv[GRADE_MAX_FLAGS * 2 + GRADE_MAX_SOURCES + 16];
	struct grade_run_req req = { .argv = argv, .in_fd = -1, .job_writable = true,
				     .err_max = GRADE_BUILD_LOG_MAX };
	struct grade_run_res res;
	size_t n = 0;
	char *clean;
	int ret;

	n = subject_cc(m, argv, n, "-I.");
	argv[n++] = "-o";
	argv[n++] = "subject";
	argv[n++] = prebuilt_obj ? SUBJECT_OBJ : m->subject;
	for (size_t i = 0; i < m->sources.n; i++) {
		size_t len = strlen(m->sources.v[i]);

		if (len > 2 && !strcmp(m->sources.v[i] + len - 2, ".c"))
			argv[n++] = m->sources.v[i];
	}
	for (size_t i = 0; i < m->ldflags.n; i++)
		argv[n++] = m->ldflags.v[i];
	if (static_link)
		argv[n++] = "-static";
	argv[n] = NULL;
	req.lim = (struct grade_limits){ .wall_s = BUILD_WALL_S, .cpu_s = BUILD_WALL_S,
					 .mem_mb = 4096, .fsize_mb = 256, .nproc = 64,
					 .output_kb = 64 };
	ret = grade_sandbox_run(sb, &req, &res, cause);
	if (ret)
		return ret;
	*ns = res.ns;
	*fences = res.fences;
	clean = clean_log(res.out_len ? res.out : res.err, res.out_len ? res.out_len :
			  res.err_len);
	ret = clean ? rt_buf_puts(log, clean) : -ENOMEM;
	if (!ret && res.out_len && res.err_len) {
		free(clean);
		clean = clean_log(res.err, res.err_len);
		ret = clean ? rt_buf_puts(log, clean) : -ENOMEM;
	}
	free(clean);
	*ok = !ret && res.exit_code == 0 && !res.signal;
	if (!ret && !*ok && res.exit_code != 1)
		ret = rt_buf_printf(log, "the compiler %s\n", res.reason);
	grade_run_res_fini(&res);
	return ret;
}

int grade_subject_obj_build(const struct grade_exercise *ex, const char *path, char **cause)
{
	const struct grade_manifest *m = &ex->m;
	const char *argv[GRADE_MAX_FLAGS + 16];
	char *inc = NULL, *src = NULL, **env = NULL;
	int stop_slot = -1;
	struct rt_child_opts co = { .argv = (char **)argv, .in = RT_CHILD_NULL, .out = RT_CHILD_CAPTURE,
				    .err = RT_CHILD_TO_STDOUT, .capture_max = 64 * 1024,
				    .flags = RT_CHILD_NEW_SESSION | RT_CHILD_DIE_WITH_PARENT,
				    .on_start = stop_track, .on_start_arg = &stop_slot };
	struct rt_child_result res = { 0 };
	size_t n = 0;
	int ret;

	if (ex->bin)
		return rt_err(cause, -EINVAL, "%s is prebuilt: it has no sources", ex->dir);
	src = join(ex->checks, m->subject);
	if (!src || asprintf(&inc, "-I%s", ex->checks) < 0) {
		inc = NULL;
		ret = -ENOMEM;
		goto out;
	}
	n = subject_cc(m, argv, n, inc);
	argv[n++] = "-c";
	argv[n++] = "-o";
	argv[n++] = path;
	argv[n++] = src;
	argv[n] = NULL;
	env = build_env(path);
	co.envp = env;
	ret = env ? rt_child_run(&co, BUILD_WALL_S * 1000, &res, cause) : -ENOMEM;
	grade_stop_del(stop_slot);
	stop_slot = -1;
	if (!ret && (res.end != RT_CHILD_EXITED || res.code)) {
		char first[256];

		build_failure(&res, first, sizeof(first));
		ret = rt_err(cause, -ENOEXEC, "the subject %s does not compile: %s", m->subject,
			     first);
	}
out:
	rt_child_result_fini(&res);
	build_env_free(env);
	free(inc);
	free(src);
	return ret;
}

int grade_program_build(const struct grade_exercise *ex, const char *path, bool portable,
			char **log, char **cause)
{
	const struct grade_manifest *m = &ex->m;
	char *argv[GRADE_MAX_FLAGS + GRADE_MAX_FILES + 24], *owned[GRADE_MAX_FILES + 8];
	int stop_slot = -1;
	struct rt_child_opts co = { .argv = argv, .in = RT_CHILD_NULL, .out = RT_CHILD_CAPTURE,
				    .err = RT_CHILD_TO_STDOUT, .capture_max = 256 * 1024,
				    .flags = RT_CHILD_NEW_SESSION | RT_CHILD_DIE_WITH_PARENT,
				    .on_start = stop_track, .on_start_arg = &stop_slot };
	struct rt_child_result res = { 0 };
	size_t n = 0, nowned = 0;
	char *inc_checks = NULL, *inc_common = NULL, **env;
	int ret;

	if (ex->bin)
		return rt_err(cause, -EINVAL, "%s is prebuilt: it has no sources", ex->dir);
	env = build_env(path);
	co.envp = env;
	if (!env || asprintf(&inc_checks, "-I%s", ex->checks) < 0 ||
	    asprintf(&inc_common, "-I%s", ex->common) < 0) {
		ret = -ENOMEM;
		goto out;
	}
	argv[n++] = "cc";
	argv[n++] = "-std=gnu11";
	argv[n++] = "-O2";
	argv[n++] = "-D_GNU_SOURCE";
	argv[n++] = "-fdiagnostics-color=never";
	argv[n++] = inc_checks;
	argv[n++] = inc_common;
	argv[n++] = "-o";
	argv[n++] = (char *)path;
	owned[nowned++] = argv[n++] = join(ex->checks, m->program);
	for (size_t i = 0; i < m->program_sources.n; i++)
		owned[nowned++] = argv[n++] = join(ex->checks, m->program_sources.v[i]);
	owned[nowned++] = argv[n++] = join(ex->common, "rtlab_check.c");
	argv[n++] = "-lcmocka";
	for (size_t i = 0; i < m->program_ldflags.n; i++)
		argv[n++] = m->program_ldflags.v[i];
	if (portable)
		argv[n++] = "-Wl,-rpath,$ORIGIN";
	argv[n] = NULL;
	for (size_t i = 0; i < nowned; i++)
		if (!owned[i]) {
			ret = -ENOMEM;
			goto out;
		}
	ret = rt_child_run(&co, BUILD_WALL_S * 1000, &res, cause);
	grade_stop_del(stop_slot);
	stop_slot = -1;
	if (ret)
		goto out;
	if (log)
		*log = clean_log(res.out, res.out_len);
	if (res.end != RT_CHILD_EXITED || res.code) {
		char first[256];

		build_failure(&res, first, sizeof(first));
		ret = rt_err(cause, -ENOEXEC, "the check program %s does not compile: %s",
			     m->program, first);
		goto out;
	}
	if (portable) {
		/* Debian ships no static cmocka: the library travels beside the program. */
		char *argv2[] = { "cc", "-print-file-name=libcmocka.so.0", NULL };
		struct rt_child_result r2 = { 0 };
		char *dir = strdup(path), *slash, *dst = NULL;

		co.argv = argv2;
		ret = dir ? rt_child_run(&co, 30000, &r2, cause) : -ENOMEM;
		grade_stop_del(stop_slot);
		stop_slot = -1;
		slash = dir ? strrchr(dir, '/') : NULL;
		if (!ret && slash) {
			*slash = '\0';
			r2.out[strcspn(r2.out, "\n")] = '\0';
			dst = join(dir, "libcmocka.so.0");
			ret = dst ? copy_file(r2.out, dst, 16u << 20, false, 0755, cause) : -ENOMEM;
		}
		rt_child_result_fini(&r2);
		free(dir);
		free(dst);
	}
out:
	for (size_t i = 0; i < nowned; i++)
		free(owned[i]);
	free(inc_checks);
	free(inc_common);
	build_env_free(env);
	rt_child_result_fini(&res);
	return ret;
}

/* ---- Running the check program -------------------------------------------------------- */

struct prog_exec {
	const char *path;
	int fd;			/* a sealed copy of path, executed instead; or -1 */
	char *const *argv;
	char *const *envp;
	const char *cwd;
};

/* In the forked child of rt_child_run(): the check program, with its own environment. */
static int exec_program(void *arg)
{
	const struct prog_exec *e = arg;

	if (chdir(e->cwd))
		return 126;
	if (e->fd >= 0) {
		fcntl(e->fd, F_SETFD, FD_CLOEXEC);	/* rt_child cleared it: not the program's */
		syscall(SYS_execveat, e->fd, "", e->argv, e->envp, AT_EMPTY_PATH);
		return 127;
	}
	execve(e->path, e->argv, e->envp);
	return 127;
}

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

int grade_program_seal(const char *path, char **cause)
{
	char buf[65536];
	int in, fd;
	ssize_t n;

	in = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (in < 0)
		return rt_err(cause, -errno, "%s: %s", path, strerror(errno));
	fd = memfd_create("rtlab-check", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
	if (fd < 0 && errno == EINVAL)	/* before 6.3, no MFD_EXEC: executable anyway */
		fd = memfd_create("rtlab-check", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		fd = rt_err(cause, -errno, "memfd_create: %s", strerror(errno));
		close(in);
		return fd;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (rt_write_all(fd, buf, (size_t)n)) {
			n = -1;
			break;
		}
	close(in);
	if (n < 0 || fchmod(fd, 0500) ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL)) {
		int err = errno ? errno : EIO;

		close(fd);
		return rt_err(cause, -err, "%s: cannot seal a copy: %s", path, strerror(err));
	}
	return fd;
}

/* The needs of @c the box cannot grant, as "sched_fifo, mlock", or "" (static buffer). */
static const char *missing_needs(const struct grade_sandbox *sb, const struct grade_mcheck *c)
{
	static char buf[64];

	buf[0] = '\0';
	for (unsigned int b = GRADE_NEED_SCHED_FIFO; b <= GRADE_NEED_ROOT; b <<= 1)
		if ((c->needs & b) && !grade_sandbox_can(sb, b))
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s",
				 buf[0] ? ", " : "", grade_need_name(b));
	return buf;
}

/*
 * One run of the check program for the checks in @only (comma-separated);
 * @tap gets its verdicts, @how how it ended when it did not exit 0 or 1.
 */
static int run_program(const struct grade_exercise *ex, const struct grade_sandbox *sb,
		       const struct grade_opts *o, const char *program, int prog_fd, const char *cwd,
		       const char *only, size_t nchecks, unsigned int wall_s, struct grade_tap *tap,
		       char *how, size_t how_len, char **cause)
{
	char *env[13] = { 0 }, *spec = grade_sandbox_spec(sb), can[64] = "";
	const char *seed = getenv("RTLAB_CHECK_SEED");
	char *argv[] = { "check", NULL };
	struct prog_exec pe = { .path = program, .fd = prog_fd, .argv = argv, .envp = env,
				.cwd = cwd };
	int stop_slot = -1;
	struct rt_child_opts co = { .fn = exec_program, .arg = &pe, .in = RT_CHILD_NULL,
				    .out = RT_CHILD_CAPTURE, .err = RT_CHILD_CAPTURE,
				    .capture_max = PROGRAM_OUT_MAX,
				    .flags = RT_CHILD_NEW_SESSION | RT_CHILD_DIE_WITH_PARENT,
				    .on_start = stop_track, .on_start_arg = &stop_slot,
				    .keep_fds = &prog_fd, .nkeep = prog_fd >= 0 };
	struct rt_child_result res = { 0 };
	unsigned long long wall = wall_s ? wall_s :
				  30 + (unsigned long long)nchecks * sb->lim.wall_s * 3;
	size_t n = 0;
	int ret;

	for (unsigned int b = GRADE_NEED_SCHED_FIFO; b <= GRADE_NEED_ROOT; b <<= 1)
		if (grade_sandbox_can(sb, b))
			snprintf(can + strlen(can), sizeof(can) - strlen(can), "%s%s",
				 can[0] ? "," : "", grade_need_name(b));
	if (!spec || asprintf(&env[n++], "RTLAB_CHECK_SANDBOX=%s", spec) < 0 ||
	    asprintf(&env[n++], "RTLAB_CHECK_RUNNER=%s", o->runner) < 0 ||
	    asprintf(&env[n++], "RTLAB_CHECK_DATA=%s", ex->data) < 0 ||
	    asprintf(&env[n++], "RTLAB_CHECK_ONLY=%s", only) < 0 ||
	    asprintf(&env[n++], "RTLAB_CHECK_CAN=%s", can) < 0 ||
	    asprintf(&env[n++], "CMOCKA_MESSAGE_OUTPUT=TAP") < 0 ||
	    asprintf(&env[n++], "PATH=/usr/bin:/bin") < 0 ||
	    asprintf(&env[n++], "HOME=%s", cwd) < 0 ||
	    asprintf(&env[n++], "TMPDIR=%s", cwd) < 0 ||
	    asprintf(&env[n++], "LC_ALL=C") < 0 ||
	    /* A teacher repeating a failure: the inputs of the seed its reason names. */
	    (seed && *seed && asprintf(&env[n++], "RTLAB_CHECK_SEED=%s", seed) < 0)) {
		ret = -ENOMEM;
		goto out;
	}
	if (wall > PROGRAM_WALL_MAX_S)
		wall = PROGRAM_WALL_MAX_S;
	ret = rt_child_run(&co, (unsigned int)wall * 1000, &res, cause);
	grade_stop_del(stop_slot);
	stop_slot = -1;
	if (ret)
		goto out;
	ret = grade_tap_parse(res.out, res.out_len, tap);
	if (ret)
		goto out;
	how[0] = '\0';
	if (res.end == RT_CHILD_TIMEOUT)
		snprintf(how, how_len, "the check program ran out of its %llu s", wall);
	else if (res.end == RT_CHILD_SIGNALED)
		snprintf(how, how_len, "the check program was killed by SIG%s",
			 sigabbrev_np(res.code) ? sigabbrev_np(res.code) : "?");
	else if (res.code == 126 || res.code == 127)
		snprintf(how, how_len, "the check program could not be started");
	else if (res.out_cut)
		snprintf(how, how_len, "the check program wrote too much");
out:
	rt_child_result_fini(&res);
	for (size_t i = 0; i < n; i++)
		free(env[i]);
	free(spec);
	return ret;
}

/*
 * Class mode: timing checks run alone. Everything else a job does that
 * takes a CPU for long (the build, the ordinary checks) holds the lock
 * shared; a timing pass holds it exclusively.
 */
static void timing_lock(const struct grade_opts *o, bool exclusive)
{
	if (o->timing_fd >= 0)
		while (flock(o->timing_fd, exclusive ? LOCK_EX : LOCK_SH) && errno == EINTR)
			;
}

static void timing_unlock(const struct grade_opts *o)
{
	if (o->timing_fd >= 0)
		flock(o->timing_fd, LOCK_UN);
}

/*
 * The wall-clock turn of a class's timing pass under the exclusive lock:
 * TIMING_TURN_S per timing check (at most its wall limit), plus the
 * program's start. A correct solution's timing run takes a fraction of it
 * on an idle machine. A pass past it (code that hangs only when timed, or
 * a machine loaded from outside) gives the lock up and is run again beside
 * the other jobs with its full limits: the class is not held up, and load
 * changes how long grading takes, not the verdict.
 */
#define TIMING_TURN_S 5u

static unsigned int timing_turn_s(const struct grade_sandbox *sb, size_t ntiming)
{
	unsigned int per = sb->lim.wall_s < TIMING_TURN_S ? sb->lim.wall_s : TIMING_TURN_S;

	return 2 + (unsigned int)ntiming * per;
}

/* Run the checks of one kind (timing or not) that are not skipped; verdicts into @tap. */
static int run_pass(const struct grade_exercise *ex, const struct grade_sandbox *sb,
		    const struct grade_opts *o, const char *program, int prog_fd,
		    const char *cwd, bool timing, const bool *skip, struct grade_tap *tap,
		    struct grade_outcome *out, char *how, size_t how_len, char **cause)
{
	const struct grade_manifest *m = &ex->m;
	bool turn = timing && o->timing_fd >= 0;
	struct rt_buf only;
	size_t n = 0;
	int ret = 0;

	memset(tap, 0, sizeof(*tap));
	how[0] = '\0';
	rt_buf_init(&only);
	for (size_t i = 0; !ret && i < m->nchecks; i++)
		if (!skip[i] && m->checks[i].timing == timing) {
			ret = rt_buf_printf(&only, "%s%s", n ? "," : "", m->checks[i].id);
			n++;
		}
	if (!ret && n) {
		timing_lock(o, timing);
		ret = run_program(ex, sb, o, program, prog_fd, cwd, rt_buf_str(&only), n,
				  turn ? timing_turn_s(sb, n) : 0, tap, how, how_len, cause);
		timing_unlock(o);
		if (!ret && turn && !strncmp(how, "the check program ran out", 25)) {
			grade_tap_fini(tap);
			memset(tap, 0, sizeof(*tap));
			ret = grade_outcome_note(out, "the timing checks ran past their %u s turn "
						 "under the class's timing lock: they were run "
						 "again beside the other jobs, without it",
						 timing_turn_s(sb, n));
			timing_lock(o, false);
			if (!ret)
				ret = run_program(ex, sb, o, program, prog_fd, cwd,
						  rt_buf_str(&only), n, 0, tap, how, how_len,
						  cause);
			timing_unlock(o);
		}
	}
	rt_buf_fini(&only);
	return ret;
}

/* ---- Grading ----------------------------------------------------------------------------- */

static int add_check(struct grade_outcome *out, const struct grade_mcheck *c,
		     enum grade_status st, const char *reason)
{
	return grade_report_append(&out->rep, &(struct grade_check){
		.name = c->id, .status = st, .max_points = c->points, .part = "code",
		.detail = (char *)reason, .hint = st == GRADE_FAIL ? c->hint : NULL });
}

/* The box, filled and built (or with the prebuilt subject); @built says whether it compiled. */
static int prepare_box(const struct grade_exercise *ex, const char *work,
		       const struct grade_opts *o, bool static_link, struct grade_sandbox *sb,
		       bool *built, struct rt_buf *log, unsigned int *ns, unsigned int *fences,
		       char **cause)
{
	int ret;

	ret = grade_sandbox_new(sb, o->tmpdir, o->slot, &ex->m.limits, o->ns, cause);
	if (ret)
		return ret;
	sb->keep = o->keep;
	if (ex->bin) {
		char *src = join(ex->bin, "subject"), *dst = join(sb->job, "subject");

		ret = src && dst ? copy_file(src, dst, 256u << 20, false, 0755, cause) : -ENOMEM;
		free(src);
		free(dst);
		if (!ret)
			ret = grade_sandbox_give(sb, cause);
		*built = !ret;
		*ns = grade_sandbox_ns(sb);
		*fences = grade_fence_probe();
		if (!ret)
			ret = rt_buf_puts(log, "prebuilt: nothing compiled here\n");
		return ret;
	}
	ret = fill_job(ex, work, sb, log, cause);
	if (!ret && o->subject_obj) {
		/* After the learner's files, like the trusted headers: theirs never wins. */
		char *dst = join(sb->job, SUBJECT_OBJ);

		ret = dst ? copy_file(o->subject_obj, dst, 256u << 20, false, 0644, cause) :
		      -ENOMEM;
		free(dst);
	}
	if (!ret)
		ret = grade_sandbox_give(sb, cause);
	if (!ret)
		ret = build_subject(ex, sb, static_link, o->subject_obj != NULL, built, log, ns,
				    fences, cause);
	return ret;
}

int grade_exercise_run(const struct grade_exercise *ex, const char *work,
		       const struct grade_opts *o, struct grade_outcome *out, char **cause)
{
	const struct grade_manifest *m = &ex->m;
	struct grade_sandbox sb = { 0 };
	struct grade_tap taps[2] = { 0 };
	char how[2][160] = { "", "" }, *program = NULL, *cwd = NULL, *plog = NULL;
	bool *skip = NULL, built = false;
	double start = now_s();
	unsigned int ns = 0, fences = 0;
	struct rt_buf log;
	int ret, prog_fd = -1;

	rt_buf_init(&log);
	if (!o->runner)
		return rt_err(cause, -EINVAL, "no runner: the rtlab binary is unknown");
	if (!out->lab && !(out->lab = strdup(m->lab)))
		return -ENOMEM;
	if (!out->title && !(out->title = strdup(m->title)))
		return -ENOMEM;
	if (work && !out->work && !(out->work = realpath(work, NULL)))
		return rt_err(cause, -errno, "%s: %s", work, strerror(errno));
	if (!work && !ex->bin)
		return rt_err(cause, -EINVAL, "which folder's code should be graded?");
	out->code = true;
	skip = calloc(m->nchecks, sizeof(*skip));
	if (!skip)
		return -ENOMEM;
	timing_lock(o, false);
	ret = prepare_box(ex, out->work, o, false, &sb, &built, &log, &ns, &fences, cause);
	timing_unlock(o);
	if (ret)
		goto out;
	out->build_ok = built;
	free(out->sandbox);
	out->sandbox = grade_sandbox_describe(&sb, ns, fences);
	out->unisolated = !grade_sandbox_isolated(&sb, ns, fences);
	cwd = join(sb.box, "check");
	if (!cwd || mkdir(cwd, 0700)) {
		ret = cwd ? rt_err(cause, -errno, "%s: %s", cwd, strerror(errno)) : -ENOMEM;
		goto out;
	}
	if (o->program) {
		program = strdup(o->program);
	} else if (ex->bin) {
		program = join(ex->bin, "check");
	} else if (built) {
		program = join(cwd, "check");
		if (program) {
			ret = grade_program_build(ex, program, false, &plog, cause);
			if (ret)
				goto out;
		}
	}
	if ((built || o->program || ex->bin) && !program) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < m->nchecks; i++)
		skip[i] = missing_needs(&sb, &m->checks[i])[0] != '\0';
	if (built) {
		if (!ex->bin && o->program_fd < 0) {
			prog_fd = grade_program_seal(program, cause);
			ret = prog_fd < 0 ? prog_fd : 0;
		}
		for (int pass = 0; !ret && pass < 2; pass++)
			ret = run_pass(ex, &sb, o, program,
				       o->program_fd >= 0 ? o->program_fd : prog_fd, cwd, pass == 1, skip,
				       &taps[pass], out, how[pass], sizeof(how[pass]), cause);
		if (ret)
			goto out;
	}
	for (size_t i = 0; !ret && i < m->nchecks; i++) {
		const struct grade_mcheck *c = &m->checks[i];
		const struct grade_verdict *v = built ? grade_tap_find(&taps[c->timing], c->id) :
						NULL;
		char reason[GRADE_REASON_MAX + 80];

		if (skip[i]) {
			snprintf(reason, sizeof(reason), "skipped: it needs %s, which this grader "
				 "cannot grant (that takes root with CAP_SYS_RESOURCE, or hard "
				 "limits RLIMIT_RTPRIO > 0 and RLIMIT_MEMLOCK >= %u KiB)",
				 missing_needs(&sb, c), m->limits.memlock_kb);
			ret = add_check(out, c, GRADE_SKIP, reason);
		} else if (!built) {
			char first[256];

			first_error(rt_buf_str(&log), first, sizeof(first));
			snprintf(reason, sizeof(reason), "the code does not compile: %s", first);
			ret = add_check(out, c, GRADE_FAIL, reason);
		} else if (!v) {
			snprintf(reason, sizeof(reason), "the check program did not report it%s%s",
				 how[c->timing][0] ? ": " : "", how[c->timing]);
			ret = add_check(out, c, GRADE_FAIL, reason);
		} else {
			ret = add_check(out, c, v->status, v->status == GRADE_PASS ? "passed" :
					v->reason[0] ? v->reason : v->status == GRADE_SKIP ?
					"skipped by the check program" : "failed");
		}
	}
	if (ret)
		goto out;
	free(out->build_log);
	out->build_log = rt_buf_take(&log);
	ret = out->build_log ? 0 : -ENOMEM;
out:
	out->wall_s += now_s() - start;
	grade_tap_fini(&taps[0]);
	grade_tap_fini(&taps[1]);
	if (prog_fd >= 0)
		close(prog_fd);
	grade_sandbox_fini(&sb);
	rt_buf_fini(&log);
	free(skip);
	free(program);
	free(plog);
	free(cwd);
	return ret;
}

int grade_exercise_build(const struct grade_exercise *ex, const char *work, const char *outdir,
			 const struct grade_opts *o, char **log, char **cause)
{
	struct grade_sandbox sb = { 0 };
	char *bin = NULL, *checks = NULL, *p = NULL, *q = NULL;
	bool built = false;
	unsigned int ns = 0, fences = 0;
	struct rt_buf b;
	int ret;

	rt_buf_init(&b);
	if (ex->bin)
		return rt_err(cause, -EINVAL, "%s is prebuilt already", ex->dir);
	ret = rt_mkdir_p(outdir, 0755);
	if (ret)
		return rt_err(cause, ret, "%s: %s", outdir, strerror(-ret));
	bin = join(outdir, "bin");
	checks = join(outdir, "checks");
	if (!bin || !checks) {
		ret = -ENOMEM;
		goto out;
	}
	if ((mkdir(bin, 0755) && errno != EEXIST) || (mkdir(checks, 0755) && errno != EEXIST)) {
		ret = rt_err(cause, -errno, "%s: %s", outdir, strerror(errno));
		goto out;
	}
	ret = prepare_box(ex, work, o, true, &sb, &built, &b, &ns, &fences, cause);
	if (ret)
		goto out;
	if (!built) {
		ret = -ENOEXEC;
		rt_err(cause, ret, "the code in %s does not compile", work);
		goto out;
	}
	p = join(sb.job, "subject");
	q = join(bin, "subject");
	ret = p && q ? copy_file(p, q, 256u << 20, true, 0755, cause) : -ENOMEM;
	free(p);
	free(q);
	p = q = NULL;
	if (!ret) {
		p = join(bin, "check");
		ret = p ? grade_program_build(ex, p, true, NULL, cause) : -ENOMEM;
	}
	if (!ret) {
		free(p);
		p = join(ex->checks, "exercise.json");
		q = join(checks, "exercise.json");
		ret = p && q ? copy_file(p, q, GRADE_MANIFEST_MAX, false, 0644, cause) : -ENOMEM;
	}
	if (!ret) {
		free(q);
		q = join(checks, "data");
		ret = q ? copy_data(ex->data, q, 0, cause) : -ENOMEM;
	}
out:
	if (log)
		*log = rt_buf_take(&b);
	rt_buf_fini(&b);
	grade_sandbox_fini(&sb);
	free(bin);
	free(checks);
	free(p);
	free(q);
	return ret;
}

/* ---- The runner --------------------------------------------------------------------------- */

/* @path's bytes in a sealed memfd: the subject can read its stdin but change nothing. */
static int stdin_memfd(const char *path, char **cause)
{
	char *data = NULL;
	size_t len = 0;
	int fd, ret;

	ret = rt_file_load(path, 0, STDIN_MAX, &data, &len, cause);
	if (ret)
		return ret;
	fd = memfd_create("rtlab-stdin", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		ret = rt_err(cause, -errno, "memfd_create: %s", strerror(errno));
		goto out;
	}
	ret = rt_write_all(fd, data, len);
	if (!ret && (fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK |
			   F_SEAL_SEAL) || lseek(fd, 0, SEEK_SET)))
		ret = -errno;
	if (ret) {
		rt_err(cause, ret, "the subject's stdin: %s", strerror(-ret));
		close(fd);
	}
out:
	free(data);
	return ret ? ret : fd;
}

/*
 * Strikes: code that has run out of its time twice is very likely to hang
 * on every run, and a class's grading should not pay the full limit for
 * each of them. The box keeps one byte per run that ran out of time (wall
 * clock or CPU) in box/strikes, which the runner, the grader's side,
 * writes; after STRIKES_MAX of them a run gets at most STRIKE_WALL_S, and
 * its reason says why.
 */
#define STRIKES_MAX 2u
#define STRIKE_WALL_S 2u

static unsigned int strikes_count(const struct grade_sandbox *sb)
{
	char *path = join(sb->box, "strikes");
	struct stat st;
	bool seen = path && !lstat(path, &st) && S_ISREG(st.st_mode);

	free(path);
	return seen ? (unsigned int)(st.st_size > 1000 ? 1000 : st.st_size) : 0;
}

static void strikes_add(const struct grade_sandbox *sb)
{
	char *path = join(sb->box, "strikes");
	int fd = path ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
			     0600) : -1;

	if (fd >= 0) {
		rt_write_all(fd, "x", 1);
		close(fd);
	}
	free(path);
}

int grade_subject_run(const struct grade_sandbox *sb, const char *stdin_path,
		      unsigned int wall_s, unsigned int rtprio, unsigned int memlock_kb,
		      const char *const *args, struct grade_run_res *res, char **cause)
{
	const char *argv[258];
	struct grade_run_req req = { .argv = argv, .in_fd = -1, .lim = sb->lim };
	unsigned int strikes, full_s = 0;
	size_t n = 0;
	int ret;

	argv[n++] = "./subject";
	for (size_t i = 0; args && args[i]; i++) {
		if (n == 256)
			return rt_err(cause, -E2BIG, "more than 255 arguments for the subject");
		argv[n++] = args[i];
	}
	argv[n] = NULL;
	if (wall_s) {
		req.lim.wall_s = wall_s > PROGRAM_WALL_MAX_S ? PROGRAM_WALL_MAX_S : wall_s;
		if (req.lim.cpu_s > req.lim.wall_s)
			req.lim.cpu_s = req.lim.wall_s;
	}
	strikes = strikes_count(sb);
	if (strikes >= STRIKES_MAX && req.lim.wall_s > STRIKE_WALL_S) {
		full_s = req.lim.wall_s;
		req.lim.wall_s = STRIKE_WALL_S;
		if (req.lim.cpu_s > STRIKE_WALL_S)
			req.lim.cpu_s = STRIKE_WALL_S;
	}
	req.rtprio = rtprio < sb->rtprio_max ? rtprio : sb->rtprio_max;
	req.memlock_kb = memlock_kb < sb->memlock_kb_max ? memlock_kb : sb->memlock_kb_max;
	if (stdin_path) {
		req.in_fd = stdin_memfd(stdin_path, cause);
		if (req.in_fd < 0)
			return req.in_fd;
	}
	ret = grade_sandbox_run(sb, &req, res, cause);
	if (req.in_fd >= 0)
		close(req.in_fd);
	if (!ret && (res->timed_out || res->cpu_limit)) {
		strikes_add(sb);
		if (full_s) {
			size_t len = strlen(res->reason);

			snprintf(res->reason + len, sizeof(res->reason) - len,
				 "; shortened from %u s, as this code had already run out of "
				 "time %u times: make it return and it gets the full time",
				 full_s, strikes);
		}
	}
	return ret;
}
