/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_ci: GitHub Classroom and GitLab CI files generated from the
 * exercises' manifests, and the copy of rtlab a template repository
 * carries (grade_ci.h).
 *
 * The commands in the files are the ones a teacher would type on a fresh
 * runner: install what grading needs (scripts/deps.sh grade, which picks
 * the package names of the runner's distribution), build rtlab in .rtlab/,
 * grade. The binary built there finds its data in .rtlab/ by itself (a
 * binary in a source tree uses that tree), so nothing is installed.
 */
#include "grade_ci.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/rt_file.h"
#include "core/rt_version.h"
#include "grade/grade_exercise.h"

#define GH_CHECKOUT "actions/checkout@v4"
#define GH_UPLOAD "actions/upload-artifact@v4"
#define GH_GRADER "classroom-resources/autograding-command-grader@v1"
#define GH_REPORTER "classroom-resources/autograding-grading-reporter@v1"
#define GH_RUNNER "ubuntu-24.04"	/* deps.sh knows its package names */
#define GL_IMAGE "debian:12"

const char *grade_ci_path(enum grade_ci_kind kind)
{
	return kind == GRADE_CI_GITHUB ? ".github/workflows/classroom.yml" : ".gitlab-ci.yml";
}

bool grade_ci_url_ok(const char *url)
{
	if (!url || !*url || *url == '-')
		return false;
	for (const char *p = url; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "@:/._~+%=-", *p))
			return false;
	return true;
}

/* The folder the learner's code of @lab is in, relative to the repository. */
static const char *work_dir(const struct grade_ci_opts *o, const char *lab)
{
	return o->nlabs == 1 ? "." : lab;
}

/*
 * One command line for the runner: after @lead, as it is in a block
 * scalar (@lead ends in spaces: GitHub's `run: |`), else as a YAML
 * single-quoted scalar (a list item of GitLab's `script:`), where only the
 * quote itself needs doubling.
 */
static int put_cmd(struct rt_buf *b, const char *lead, const char *cmd)
{
	bool block = lead[strlen(lead) - 2] != '-';
	int ret = rt_buf_puts(b, lead);

	if (!ret && block)
		ret = rt_buf_puts(b, cmd);
	if (!ret && !block)
		ret = rt_buf_puts(b, "'");
	for (const char *p = cmd; !ret && !block && *p; p++)
		ret = *p == '\'' ? rt_buf_puts(b, "''") : rt_buf_append(b, p, 1);
	if (!ret && !block)
		ret = rt_buf_puts(b, "'");
	return ret ? ret : rt_buf_puts(b, "\n");
}

/*
 * The commands that get rtlab onto the runner and build it, each after
 * @lead (put_cmd()). @root is "sudo " on GitHub's runner (not root), ""
 * in GitLab's container (root).
 */
static int put_build(struct rt_buf *b, const struct grade_ci_opts *o, const char *lead,
		     const char *root)
{
	char *cmd = NULL;
	int ret = 0;

	if (o->from && o->kind == GRADE_CI_GITLAB)
		ret = put_cmd(b, lead, "command -v git >/dev/null || { apt-get update -qq && "
			      "apt-get install -y -qq --no-install-recommends git "
			      "ca-certificates; }");
	if (!ret && o->from) {
		ret = asprintf(&cmd, "git clone --depth 1 %s " GRADE_CI_RTLAB_DIR, o->from) < 0 ?
			-ENOMEM : put_cmd(b, lead, cmd);
		free(cmd);
	}
	if (!ret) {
		ret = asprintf(&cmd, "%ssh " GRADE_CI_RTLAB_DIR "/scripts/deps.sh grade", root) < 0 ?
			-ENOMEM : put_cmd(b, lead, cmd);
		free(cmd);
	}
	if (!ret)
		ret = put_cmd(b, lead, "make -C " GRADE_CI_RTLAB_DIR " -j\"$(nproc)\" build/rtlab");
	return ret;
}

static int put_header(struct rt_buf *b, const struct grade_ci_opts *o)
{
	const char *kind = o->kind == GRADE_CI_GITHUB ? "github" : "gitlab";
	int ret;

	ret = rt_buf_printf(b, "# %s, written by `rtlab ci %s", grade_ci_path(o->kind), kind);
	for (size_t i = 0; !ret && i < o->nlabs; i++)
		ret = rt_buf_printf(b, " %s", o->labs[i]);
	if (!ret)
		ret = rt_buf_printf(b, "%s%s` (rtlab %s).\n", o->from ? " --from " : "",
				    o->from ? o->from : "", RT_VERSION);
	if (!ret)
		ret = rt_buf_printf(b,
			"# rtlab is built on the runner from %s;\n"
			"# each push is graded with `rtlab grade LAB --work DIR` (doc/grading.md).\n"
			"# Generate it again rather than editing it.\n",
			o->from ? "a clone of the URL above" :
			"the copy in " GRADE_CI_RTLAB_DIR "/ (`--vendor` put it there)");
	return ret;
}

static int github_lab(struct rt_buf *b, const struct grade_ci_opts *o,
		      const struct grade_manifest *m, const char *lab, struct rt_buf *env,
		      struct rt_buf *runners)
{
	int ret;

	ret = rt_buf_printf(b,
		"      - name: Grade %s\n"
		"        run: |\n"
		"          sudo " GRADE_CI_RTLAB_DIR "/build/rtlab grade %s --work %s --json"
		" > rtlab-%s.json || true\n", lab, lab, work_dir(o, lab), lab);
	for (size_t i = 0; !ret && i < m->nchecks; i++) {
		const struct grade_mcheck *c = &m->checks[i];

		ret = rt_buf_printf(b,
			"      - name: %s/%s\n"
			"        id: %s-%s\n"
			"        uses: " GH_GRADER "\n"
			"        with:\n"
			"          test-name: %s/%s\n"
			"          command: 'jq -e --arg id %s ''.checks[] | select(.id == $id) |"
			" .status == \"pass\"'' rtlab-%s.json'\n"
			"          timeout: 1\n"
			"          max-score: %u\n",
			lab, c->id, lab, c->id, lab, c->id, c->id, lab, c->points);
		if (!ret)
			ret = rt_buf_printf(env, "          ");
		/* The reporter reads RUNNER_RESULTS with the runner's id upper-cased. */
		for (const char *p = lab; !ret && *p; p++)
			ret = rt_buf_printf(env, "%c", *p >= 'a' && *p <= 'z' ? *p - 32 : *p);
		ret = ret ? ret : rt_buf_puts(env, "-");
		for (const char *p = c->id; !ret && *p; p++)
			ret = rt_buf_printf(env, "%c", *p >= 'a' && *p <= 'z' ? *p - 32 : *p);
		if (!ret)
			ret = rt_buf_printf(env, "_RESULTS: \"${{ steps.%s-%s.outputs.result }}\"\n",
					    lab, c->id);
		if (!ret)
			ret = rt_buf_printf(runners, "%s%s-%s", runners->len ? "," : "", lab, c->id);
	}
	return ret;
}

static int github(struct rt_buf *b, const struct grade_ci_opts *o,
		  const struct grade_exercise *ex)
{
	struct rt_buf env = RT_BUF_INIT, runners = RT_BUF_INIT;
	int ret;

	ret = rt_buf_puts(b,
		"name: Autograding Tests\n"
		"'on': [push, workflow_dispatch, repository_dispatch]\n"
		"permissions:\n"
		"  checks: write\n"
		"  actions: read\n"
		"  contents: read\n"
		"jobs:\n"
		"  run-autograding-tests:\n"
		"    runs-on: " GH_RUNNER "\n"
		"    if: github.actor != 'github-classroom[bot]'\n"
		"    timeout-minutes: 60\n"
		"    steps:\n"
		"      - name: Check out\n"
		"        uses: " GH_CHECKOUT "\n"
		"      - name: Build rtlab\n"
		"        run: |\n");
	if (!ret)
		ret = put_build(b, o, "          ", "sudo ");
	for (size_t i = 0; !ret && i < o->nlabs; i++)
		ret = github_lab(b, o, &ex[i].m, o->labs[i], &env, &runners);
	if (!ret)
		ret = rt_buf_printf(b,
			"      - name: Keep the grades\n"
			"        if: always()\n"
			"        uses: " GH_UPLOAD "\n"
			"        with:\n"
			"          name: rtlab-grades\n"
			"          path: rtlab-*.json\n"
			"      - name: Autograding Reporter\n"
			"        uses: " GH_REPORTER "\n"
			"        env:\n"
			"%s"
			"        with:\n"
			"          runners: %s\n", rt_buf_str(&env), rt_buf_str(&runners));
	rt_buf_fini(&env);
	rt_buf_fini(&runners);
	return ret;
}

/*
 * One job per lab, so that a failing lab neither hides the others nor
 * keeps their reports from being uploaded.
 */
static int gitlab(struct rt_buf *b, const struct grade_ci_opts *o)
{
	char *cmd = NULL;
	int ret = 0;

	for (size_t i = 0; !ret && i < o->nlabs; i++) {
		const char *lab = o->labs[i];

		ret = rt_buf_printf(b,
			"%sgrade-%s:\n"
			"  image: " GL_IMAGE "\n"
			"  script:\n", i ? "\n" : "", lab);
		if (!ret)
			ret = put_build(b, o, "    - ", "");
		if (!ret)
			ret = asprintf(&cmd, GRADE_CI_RTLAB_DIR "/build/rtlab grade %s --work %s "
				       "--format junit > rtlab-%s.xml", lab, work_dir(o, lab),
				       lab) < 0 ? -ENOMEM : put_cmd(b, "    - ", cmd);
		free(cmd);
		cmd = NULL;
		if (!ret)
			ret = rt_buf_printf(b,
				"  artifacts:\n"
				"    when: always\n"
				"    paths:\n"
				"      - rtlab-%s.xml\n"
				"    reports:\n"
				"      junit: rtlab-%s.xml\n", lab, lab);
	}
	return ret;
}

int grade_ci_yaml(const struct grade_ci_opts *o, struct rt_buf *out, char **cause)
{
	struct grade_exercise *ex;
	size_t opened = 0;
	int ret = 0;

	*cause = NULL;
	if (o->from && !grade_ci_url_ok(o->from)) {
		if (asprintf(cause, "the URL '%s' has characters a shell or YAML would read "
			     "(use letters, digits and @:/._~+%%=-)", o->from) < 0)
			*cause = NULL;
		return -EINVAL;
	}
	ex = calloc(o->nlabs ? o->nlabs : 1, sizeof(*ex));
	if (!ex)
		return -ENOMEM;
	for (; !ret && opened < o->nlabs; opened++)
		ret = grade_exercise_find(&ex[opened], o->labs[opened], cause);
	if (ret && ret != -ENOMEM)
		ret = -ENOENT;
	if (!ret)
		ret = put_header(out, o);
	if (!ret)
		ret = o->kind == GRADE_CI_GITHUB ? github(out, o, ex) : gitlab(out, o);
	for (size_t i = 0; i < opened; i++)
		grade_exercise_fini(&ex[i]);
	free(ex);
	return ret;
}

/* ---- the vendored copy ---------------------------------------------------- */

static int say(char **cause, int err, const char *what, const char *path)
{
	free(*cause);
	if (asprintf(cause, "%s %s: %s", what, path, strerror(err)) < 0)
		*cause = NULL;
	return -err;
}

static int copy_file(int sdir, int ddir, const char *name, const char *path, char **cause)
{
	char buf[65536];
	struct stat st;
	ssize_t n;
	int in, outfd, ret = 0;

	in = openat(sdir, name, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return say(cause, errno, "cannot open", path);
	if (fstat(in, &st) < 0) {
		ret = say(cause, errno, "cannot read", path);
		close(in);
		return ret;
	}
	outfd = openat(ddir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		       st.st_mode & 0111 ? 0755 : 0644);
	if (outfd < 0) {
		ret = say(cause, errno, "cannot create the copy of", path);
		close(in);
		return ret;
	}
	while (!ret && (n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0)
			ret = errno == EINTR ? 0 : say(cause, errno, "cannot read", path);
		else if (rt_write_all(outfd, buf, (size_t)n))
			ret = say(cause, EIO, "cannot write the copy of", path);
	}
	if (close(outfd) && !ret)
		ret = say(cause, errno, "cannot write the copy of", path);
	close(in);
	return ret;
}

/*
 * Copy the entry @name of @sdir into @ddir: a file, or a folder with all
 * it holds. Hidden entries are left out, and in labs/<lab>/ the reference
 * solution and the mutants. Links are copied as what they point to (the
 * tree's own, e.g. the hypervisor checks' headers).
 */
static int copy_entry(int sdir, int ddir, const char *name, const char *path, int depth,
		      bool in_labs, char **cause)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int s, t, ret = 0;

	if (fstatat(sdir, name, &st, 0) < 0)
		return say(cause, errno, "cannot read", path);
	if (!S_ISDIR(st.st_mode))
		return S_ISREG(st.st_mode) ? copy_file(sdir, ddir, name, path, cause) : 0;
	if (mkdirat(ddir, name, 0755) < 0)
		return say(cause, errno, "cannot create the copy of", path);
	s = openat(sdir, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s < 0)
		return say(cause, errno, "cannot open", path);
	t = openat(ddir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	d = t < 0 ? NULL : fdopendir(s);
	if (!d) {
		ret = say(cause, errno, "cannot open", path);
		close(s);
		if (t >= 0)
			close(t);
		return ret;
	}
	while (!ret && (de = readdir(d))) {
		char *sub;

		if (de->d_name[0] == '.')
			continue;
		if (in_labs && depth == 1 && (!strcmp(de->d_name, "reference") ||
					      !strcmp(de->d_name, "mutants")))
			continue;
		if (asprintf(&sub, "%s/%s", path, de->d_name) < 0)
			return closedir(d), close(t), -ENOMEM;
		ret = copy_entry(dirfd(d), t, de->d_name, sub, depth + 1, in_labs, cause);
		free(sub);
	}
	closedir(d);
	close(t);
	return ret;
}

/*
 * Copy the file @rel (folder/name) of @sdir into @ddir, making its folder
 * (the last level of it: the others are copied already).
 */
static int copy_single(int sdir, int ddir, const char *rel, char **cause)
{
	char folder[128];
	const char *name = strrchr(rel, '/') + 1;
	int s, t, ret;

	snprintf(folder, sizeof(folder), "%.*s", (int)(name - 1 - rel), rel);
	if (mkdirat(ddir, folder, 0755) < 0 && errno != EEXIST)
		return say(cause, errno, "cannot create the copy of", folder);
	s = openat(sdir, folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t = openat(ddir, folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	ret = s < 0 || t < 0 ? say(cause, errno, "cannot open", folder) :
		copy_file(s, t, name, rel, cause);
	if (s >= 0)
		close(s);
	if (t >= 0)
		close(t);
	return ret;
}

int grade_ci_vendor(const char *src, const char *dest, char **cause)
{
	static const char *const take[] = {
		"Makefile", "config.mk", "LICENSE", "LICENSES", "rtlab", "lessons", "labs",
	};
	/*
	 * Single files: the install script, and the one reference solution
	 * rtlab's own build compiles (the hypervisor model's policy,
	 * rtlab/sim/sim_hypervisor_policy.c), without which .rtlab would not build.
	 */
	static const char *const single[] = {
		"scripts/deps.sh", "labs/hypervisor/reference/hv_boost.c",
	};
	char *path = NULL;
	struct stat st;
	int sdir, ddir, sub, ret = 0;

	*cause = NULL;
	sdir = open(src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sdir < 0)
		return say(cause, errno, "cannot open rtlab's source tree", src);
	if (fstatat(sdir, "rtlab/main.c", &st, 0) < 0 || fstatat(sdir, "Makefile", &st, 0) < 0 ||
	    fstatat(sdir, "scripts/deps.sh", &st, 0) < 0) {
		close(sdir);
		if (asprintf(cause, "%s is not rtlab's source tree (no rtlab/main.c, Makefile "
			     "and scripts/deps.sh): --vendor copies the tree this rtlab was "
			     "built in, or the one RTLAB_DATADIR names", src) < 0)
			*cause = NULL;
		return -ENOENT;
	}
	if (rt_mkdir_p(dest, 0755) < 0 ||
	    (ddir = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		ret = say(cause, errno, "cannot open", dest);
		close(sdir);
		return ret;
	}
	if (asprintf(&path, "%s/" GRADE_CI_RTLAB_DIR, dest) < 0) {
		ret = -ENOMEM;
		goto out;
	}
	if (mkdirat(ddir, GRADE_CI_RTLAB_DIR, 0755) < 0) {
		ret = errno == EEXIST ? -EEXIST : say(cause, errno, "cannot create", path);
		if (ret == -EEXIST && asprintf(cause, "%s exists: remove it to vendor rtlab "
					       "again", path) < 0)
			*cause = NULL;
		goto out;
	}
	sub = openat(ddir, GRADE_CI_RTLAB_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0) {
		ret = say(cause, errno, "cannot open", path);
		goto out;
	}
	for (size_t i = 0; !ret && i < sizeof(take) / sizeof(take[0]); i++)
		ret = copy_entry(sdir, sub, take[i], take[i], 0, !strcmp(take[i], "labs"), cause);
	for (size_t i = 0; !ret && i < sizeof(single) / sizeof(single[0]); i++)
		ret = copy_single(sdir, sub, single[i], cause);
	close(sub);
out:
	free(path);
	close(ddir);
	close(sdir);
	return ret;
}
