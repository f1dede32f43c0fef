/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_class: grading a class's folders in parallel jobs (see the header).
 *
 * The parent is a small scheduler: it builds each exercise's check program
 * once, then keeps at most `jobs` forked children, each grading one
 * (student, lab) into a JSON file of the class's private folder. A child
 * ends by _exit(), so nothing of the parent's state (stdio buffers, atexit)
 * runs twice; the parent reads the file when the child is reaped. Nothing
 * here is multithreaded, which grade_sandbox_run() requires.
 */
#include "grade_class.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/rt_err.h"
#include "core/rt_file.h"
#include "core/rt_buf.h"
#include "core/rt_json.h"
#include "grade/grade_sandbox.h"
#include "grade/grade_similar.h"
#include "grade/grade_stop.h"

struct class_job {
	const char *student;		/* borrowed from the student list */
	size_t ex;			/* index of the exercise */
	pid_t pid;			/* while it runs */
	unsigned int slot;
	long long started_ms;
	int stop_slot;			/* grade_stop's, while it runs */
	bool retried;			/* killed from outside once, and started again */
	int killed_by;			/* the signal of that first end */
	json_t *grade;			/* owned, once done */
};

struct class_ex {
	struct grade_exercise ex;
	char *program;			/* owned: its check program, built once */
	char *subject_obj;		/* owned: its subject source compiled once, or NULL */
	int program_fd;			/* owned: a sealed copy of program, or -1 */
	char *error;			/* owned: why it cannot be graded, or NULL */
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISDIR(st.st_mode);
}

static bool is_link(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISLNK(st.st_mode);
}

/*
 * A student of the class: a folder of DIR, or a symbolic link in DIR (as
 * teachers make when collecting), followed here and only here: inside a
 * student's folder no link is ever followed.
 */
static bool is_student(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && (S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode));
}

static int list_students(const char *dir, const char *only, char ***out, size_t *n,
			 char **cause)
{
	struct dirent **names = NULL;
	int count, ret = 0;

	*out = NULL;
	*n = 0;
	count = scandir(dir, &names, NULL, alphasort);
	if (count < 0)
		return rt_err(cause, -errno, "%s: %s", dir, strerror(errno));
	*out = calloc((size_t)count + 1, sizeof(**out));
	if (!*out)
		ret = -ENOMEM;
	for (int i = 0; i < count; i++) {
		char *p = NULL;

		if (!ret && names[i]->d_name[0] != '.' && *n < GRADE_CLASS_MAX_STUDENTS &&
		    (!only || !strcmp(only, names[i]->d_name)) &&
		    asprintf(&p, "%s/%s", dir, names[i]->d_name) >= 0) {
			if (is_student(p) && !((*out)[*n] = strdup(names[i]->d_name)))
				ret = -ENOMEM;
			else if ((*out)[*n])
				(*n)++;
		}
		free(p);
		free(names[i]);
	}
	free(names);
	if (!ret && !*n && only)
		ret = rt_err(cause, -ENOENT, "%s holds no student folder called '%s'", dir, only);
	else if (!ret && !*n)
		ret = rt_err(cause, -ENOENT, "%s holds no student folder", dir);
	return ret;
}

/* The folder of a student's code for @ex: <sdir>/<lab>, else <sdir> itself when alone. */
static char *work_of(const char *sdir, const struct grade_exercise *ex, bool alone)
{
	char *w = NULL;

	if (asprintf(&w, "%s/%s", sdir, ex->m.lab) < 0)
		return NULL;
	if (is_dir(w) || is_link(w) || !alone)
		return w;
	free(w);
	return strdup(sdir);
}

/* @student's own folder, a link to one followed (NULL, errno set, when it is neither). */
static char *student_dir(const char *dir, const char *student)
{
	char *p = NULL, *real;
	struct stat st;

	if (asprintf(&p, "%s/%s", dir, student) < 0)
		return NULL;
	real = !stat(p, &st) && S_ISDIR(st.st_mode) ? realpath(p, NULL) : NULL;
	if (!real && !errno)
		errno = ENOTDIR;
	free(p);
	return real;
}

/*
 * The results document of @work for @out, if handed in. A link is reported
 * and not followed: nothing outside a student's folder is ever opened on
 * its behalf (as root, a link to /root/secret would be read).
 */
static void add_results(struct grade_outcome *out, const char *work)
{
	char *doc = NULL, *cause = NULL;
	struct stat st;

	if (asprintf(&doc, "%s/results.json", work) < 0 || lstat(doc, &st)) {
		free(doc);
		return;
	}
	if (S_ISLNK(st.st_mode) || !S_ISREG(st.st_mode)) {
		grade_report_append(&out->rep, &(struct grade_check){ .name = "results",
			.status = GRADE_FAIL, .max_points = 1, .part = "results",
			.detail = S_ISLNK(st.st_mode) ? "results.json is a symbolic link: not "
				  "followed (hand in the file itself)" :
				  "results.json is not a regular file",
			.hint = "hand in the results document rtlab saved, unedited" });
	} else if (grade_outcome_add_document(out, doc, &cause)) {
		grade_report_append(&out->rep, &(struct grade_check){ .name = "results",
			.status = GRADE_FAIL, .max_points = 1, .part = "results",
			.detail = cause ? cause : "results.json could not be read",
			.hint = "hand in the results document rtlab saved, unedited" });
	}
	free(cause);
	free(doc);
}

/*
 * The quiz of the lab's lesson from <student>/progress.json, the learner's
 * own progress file, if handed in (never through a link); its answers are
 * scored again against the lesson's key.
 */
static void add_quiz(struct grade_outcome *out, const char *sdir)
{
	char *path = NULL, *cause = NULL;
	struct stat st;

	if (asprintf(&path, "%s/progress.json", sdir) < 0)
		return;
	if (!lstat(path, &st) && S_ISREG(st.st_mode) &&
	    grade_outcome_add_quiz(out, path, &cause))
		grade_outcome_note(out, "progress.json could not be read: %s",
				   cause ? cause : "invalid");
	else if (!lstat(path, &st) && !S_ISREG(st.st_mode))
		grade_outcome_note(out, "progress.json is %s: not read",
				   S_ISLNK(st.st_mode) ? "a symbolic link" : "not a regular file");
	free(cause);
	free(path);
}

/*
 * Look for @name below @dir (at most @depth folders down, no link
 * followed): its path relative to the student's lab folder into @found
 * ("src/latency_trace.c"). Returns whether it was found.
 */
static bool find_below(const char *dir, const char *rel, const char *name, int depth,
		       char *found, size_t size)
{
	struct dirent *e;
	bool hit = false;
	DIR *d;

	if (depth < 0 || !(d = opendir(dir)))
		return false;
	while (!hit && (e = readdir(d))) {
		char *p = NULL, *r = NULL;

		if (e->d_name[0] == '.')
			continue;
		if (asprintf(&p, "%s/%s", dir, e->d_name) >= 0 &&
		    asprintf(&r, "%s%s%s", rel, *rel ? "/" : "", e->d_name) >= 0) {
			if (is_dir(p) && !is_link(p))
				hit = find_below(p, r, name, depth - 1, found, size);
			else if (*rel && !strcmp(e->d_name, name) && !is_link(p))
				hit = snprintf(found, size, "%s", r) < (int)size;
		}
		free(p);
		free(r);
	}
	closedir(d);
	return hit;
}

/* Whether @work holds nothing at all (dot files aside). */
static bool folder_empty(const char *work)
{
	struct dirent *e;
	bool empty = true;
	DIR *d = opendir(work);

	while (d && empty && (e = readdir(d)))
		empty = e->d_name[0] == '.';
	if (d)
		closedir(d);
	return empty;
}

/*
 * Whether @work holds any of the exercise's sources. None: the code was not
 * handed in, said once, rather than a compiler error repeated on every
 * check: an empty folder is "nothing handed in"; a source in the wrong
 * place (a subfolder) is one failed check "sources" worth the code's
 * points; anything else, a note naming what was expected and what is
 * there.
 */
static bool has_sources(struct grade_outcome *out, const struct grade_exercise *ex,
			const char *student, const char *work, bool alone)
{
	const struct grade_manifest *m = &ex->m;
	char found[256] = "", where[512], *why = NULL;
	struct dirent *e;
	bool misplaced;
	DIR *d;

	for (size_t i = 0; i < m->sources.n; i++) {
		char *p = NULL;
		bool there;

		if (asprintf(&p, "%s/%s", work, m->sources.v[i]) < 0)
			return true;
		there = !access(p, F_OK);
		free(p);
		if (there)
			return true;
	}
	snprintf(where, sizeof(where), "%s/%s%s", student, alone && strcmp(work + strlen(work) -
		 strlen(m->lab), m->lab) ? "" : m->lab, alone && strcmp(work + strlen(work) -
		 strlen(m->lab), m->lab) ? "" : "/");
	if (folder_empty(work)) {
		out->absent = !out->weighted;
		grade_outcome_note(out, "nothing handed in: %s is empty", where);
		return false;
	}
	for (size_t i = 0; i < m->sources.n && !found[0]; i++)
		find_below(work, "", m->sources.v[i], 3, found, sizeof(found));
	misplaced = found[0];
	d = misplaced ? NULL : opendir(work);
	while (d && (e = readdir(d))) {
		size_t have = strlen(found), len = strlen(e->d_name);

		if (e->d_name[0] == '.' || have + len + 3 >= sizeof(found))
			continue;
		if (have) {
			memcpy(found + have, ", ", 2);
			have += 2;
		}
		memcpy(found + have, e->d_name, len + 1);
	}
	if (d)
		closedir(d);
	if (asprintf(&why, "expected %s in %s: not found (found: %s)", m->sources.v[0], where,
		     found) < 0)
		return false;
	/* A whole lab with no code at all: its code part is "missing", with this note. */
	if (out->weighted && !misplaced)
		grade_outcome_note(out, "%s", why);
	else
		grade_report_append(&out->rep, &(struct grade_check){ .name = "sources",
			.status = GRADE_FAIL, .max_points = grade_manifest_points(m),
			.part = "code", .detail = why,
			.hint = "hand in the exercise's files at the top of the lab's folder, "
				"as `rtlab lab start` lays them out" });
	free(why);
	return false;
}

/* The exercise's sources in @dir, one after another (regular files only), or NULL. */
static char *sources_text(const char *dir, const struct grade_manifest *m, size_t *len)
{
	struct rt_buf b = RT_BUF_INIT;
	char *text;

	for (size_t i = 0; i < m->sources.n; i++) {
		char *p = NULL, *data = NULL;
		size_t n = 0;
		struct stat st;

		if (asprintf(&p, "%s/%s", dir, m->sources.v[i]) >= 0 && !lstat(p, &st) &&
		    S_ISREG(st.st_mode) && !rt_file_read(p, 1u << 20, &data, &n))
			rt_buf_append(&b, data, n);
		free(data);
		free(p);
	}
	*len = b.len;
	text = b.len ? strdup(rt_buf_str(&b)) : NULL;
	rt_buf_fini(&b);
	return text;
}

/*
 * The prints of @out's hand-in in @work (grade_similar.h): the results
 * document's digest, the code's normalised one, and whether that code is
 * the lab's starter unchanged (in JSON, once made).
 */
static bool take_prints(struct grade_outcome *out, const struct grade_exercise *ex,
			const char *work)
{
	char hex[RT_SHA256_HEX], *doc = NULL, *data = NULL, *starter = NULL, *text;
	size_t n = 0;
	struct stat st;
	bool is_starter = false;

	if (asprintf(&doc, "%s/results.json", work) >= 0 && !lstat(doc, &st) &&
	    S_ISREG(st.st_mode) && !rt_file_read(doc, 64u << 20, &data, &n)) {
		rt_sha256_hex(data, n, hex);
		out->results_sha256 = strdup(hex);
	}
	free(data);
	free(doc);
	text = sources_text(work, &ex->m, &n);
	if (text) {
		grade_code_print(text, n, hex);
		out->code_print = strdup(hex);
		free(text);
		if (asprintf(&starter, "%s/starter", ex->dir) >= 0 &&
		    (text = sources_text(starter, &ex->m, &n))) {
			grade_code_print(text, n, hex);
			is_starter = !strcmp(hex, out->code_print);
			free(text);
		}
		free(starter);
	}
	return is_starter;
}

/* In the job's process: grade one (student, lab) and write its JSON to @out_path. */
static __attribute__((noreturn)) void job_main(const struct grade_class_opts *o,
					       const struct class_ex *cx, const char *student,
					       bool alone, unsigned int slot, const char *lock,
					       const char *tmpdir, const char *out_path)
{
	struct grade_outcome out = { 0 };
	struct grade_opts opts = o->base;
	char *sdir = student_dir(o->dir, student), *work = NULL, *cause = NULL;
	bool is_starter = false;
	json_t *j;
	int ret;

	setpgid(0, 0);
	opts.slot = o->base.slot + slot;	/* the run's base (its pid's) plus the job's */
	opts.program = cx->program;
	opts.program_fd = cx->program_fd;
	opts.subject_obj = cx->subject_obj;
	opts.tmpdir = tmpdir;
	opts.timing_fd = open(lock, O_RDWR | O_CLOEXEC);	/* its own open file: its own lock */
	out.student = strdup(student);
	if (sdir)
		work = work_of(sdir, &cx->ex, alone);
	if (cx->error) {
		out.error = strdup(cx->error);
	} else if (!sdir) {
		if (asprintf(&out.error, "%s is a link to nothing (or not a folder)", student) < 0)
			out.error = NULL;
	} else if (work && is_link(work)) {
		if (asprintf(&out.error, "%s/%s is a symbolic link: not followed (a link inside a "
			     "student's folder never is; hand in the folder itself)", student,
			     cx->ex.m.lab) < 0)
			out.error = NULL;
	} else if (!cx->ex.m.weights_given && (!work || !is_dir(work))) {
		/* Not handed in (a lab not due yet): no score, no failure of the run. */
		out.absent = true;
		grade_outcome_note(&out, "nothing handed in: no folder %s/%s/", student,
				   cx->ex.m.lab);
	} else {
		/* The whole lab: code, results and quiz by weight; a part not there counts 0. */
		if (cx->ex.m.weights_given) {
			out.lab = strdup(cx->ex.m.lab);
			grade_outcome_weigh(&out, cx->ex.m.weights);
		}
		if (work && is_dir(work))
			is_starter = take_prints(&out, &cx->ex, work);
		ret = work && is_dir(work) && has_sources(&out, &cx->ex, student, work, alone) ?
		      grade_exercise_run(&cx->ex, work, &opts, &out, &cause) : 0;
		if (ret && !out.error)
			out.error = strdup(cause ? cause : strerror(-ret));
		free(cause);
		cause = NULL;
		if (!ret && work && is_dir(work))
			add_results(&out, work);
		if (!ret && cx->ex.m.weights_given)
			add_quiz(&out, sdir);
	}
	if (!out.lab)
		out.lab = strdup(cx->ex.m.lab);
	j = grade_outcome_json(&out);
	if (j && is_starter)
		json_object_set_new(j, "code_is_starter", json_true());
	ret = j ? rt_json_save(out_path, j, NULL, 0600, NULL) : -ENOMEM;
	json_decref(j);
	grade_outcome_fini(&out);
	free(work);
	free(sdir);
	_exit(ret ? 1 : 0);
}

static json_t *job_error(const struct class_ex *cx, const char *student, const char *fmt,
			 int arg)
{
	char *why = NULL;
	json_t *j;

	if (asprintf(&why, fmt, arg) < 0)
		why = NULL;
	j = grade_outcome_json_error(cx->ex.m.lab, student, why ? why : "the job failed");
	free(why);
	return j;
}

/* The finished job's grade, from its file (or what went wrong). */
static json_t *job_collect(const struct class_ex *cx, struct class_job *jb, int status,
			   const char *path, bool overran)
{
	json_t *j = NULL;
	char *text = NULL;
	size_t len = 0;

	if (overran)
		return job_error(cx, jb->student, "the grading job took longer than %d s and "
				 "was killed", (int)GRADE_JOB_WALL_S);
	if (WIFSIGNALED(status))
		return job_error(cx, jb->student, "the grading job was killed by signal %d",
				 WTERMSIG(status));
	if (!rt_file_read(path, 64u << 20, &text, &len))
		rt_json_load(text, len, path, &j, NULL);
	free(text);
	unlink(path);
	if (j && jb->retried) {
		json_t *notes = json_object_get(j, "notes");
		char *note = NULL;

		if (!notes && !json_object_set_new(j, "notes", json_array()))
			notes = json_object_get(j, "notes");
		if (notes && asprintf(&note, "the first grading job was killed by signal %d from "
				      "outside (an out-of-memory kill, an operator): it was run "
				      "again", jb->killed_by) >= 0)
			json_array_append_new(notes, json_string(note));
		free(note);
	}
	return j ? j : job_error(cx, jb->student, "the grading job left no grade (exit %d)",
				 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static int open_exercises(const struct grade_class_opts *o, const char *box,
			  struct class_ex **out, size_t *n, char **cause)
{
	struct class_ex *v = NULL;
	size_t cap = 0;
	int ret = 0;

	*n = 0;
	for (size_t i = 0; !ret && (o->exercise ? i < 1 : lab_table[i] != NULL); i++) {
		const char *lab = o->exercise ? NULL : lab_table[i]->name;
		struct class_ex *c;
		char *log = NULL;

		if (!o->exercise && ((o->lab && strcmp(o->lab, lab)) ||
				     (!o->lab && !grade_exercise_exists(lab))))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 4;
			c = realloc(v, cap * sizeof(*v));
			if (!c) {
				ret = -ENOMEM;
				break;
			}
			v = c;
		}
		c = &v[*n];
		memset(c, 0, sizeof(*c));
		c->program_fd = -1;
		ret = o->exercise ? grade_exercise_open(&c->ex, o->exercise, cause) :
		      grade_exercise_find(&c->ex, lab, cause);
		if (ret)
			break;
		(*n)++;
		if (c->ex.bin) {
			/* One prebuilt subject for everyone would grade nobody's code. */
			ret = rt_err(cause, -EINVAL, "%s is a prebuilt exercise (one subject, built "
				     "from one learner's code): --class builds each student's code, "
				     "so give it the exercise's source folder (labs/<lab>) or --lab",
				     c->ex.dir);
			break;
		}
		if (asprintf(&c->program, "%s/check-%s", box, c->ex.m.lab) < 0) {
			c->program = NULL;
			ret = -ENOMEM;
			break;
		}
		ret = grade_program_build(&c->ex, c->program, false, &log, cause);
		free(log);
		log = NULL;
		/* Sealed before any job runs: no job's code can change another's judge. */
		if (!ret) {
			c->program_fd = grade_program_seal(c->program, cause);
			ret = c->program_fd < 0 ? c->program_fd : 0;
		}
		/* The trusted subject once for the class; each job links it with its learner's. */
		if (!ret && asprintf(&c->subject_obj, "%s/subject-%s.o", box, c->ex.m.lab) < 0)
			c->subject_obj = NULL;
		if (!ret && c->subject_obj && grade_subject_obj_build(&c->ex, c->subject_obj,
								      NULL)) {
			free(c->subject_obj);	/* then each box compiles it, as alone */
			c->subject_obj = NULL;
		}
	}
	if (!ret && !*n)
		ret = rt_err(cause, -ENOENT, o->lab ? "the %s lab has no coding exercise" :
			     "no lab has a coding exercise yet%s", o->lab ? o->lab : "");
	*out = v;
	return ret;
}

/* The job's own folder for its boxes: removed whole when it ends, however it ends. */
static int job_tmp(const char *box, size_t k, char *path, size_t size)
{
	return snprintf(path, size, "%s/job-%zu.tmp", box, k) >= (int)size ? -ENAMETOOLONG : 0;
}

static void job_clean(const char *box, size_t k)
{
	char path[4096];

	if (!job_tmp(box, k, path, sizeof(path)))
		grade_rm_rf(path);
}

/* Fork job @k (its slot set); 0, or -1 with its grade an error. */
static int job_start(const struct grade_class_opts *o, struct class_ex *exs, size_t nex,
		     const char *box, const char *lock, struct class_job *jobs, size_t k)
{
	struct class_job *jb = &jobs[k];
	char path[4096], tmp[4096];

	snprintf(path, sizeof(path), "%s/job-%zu.json", box, k);
	if (job_tmp(box, k, tmp, sizeof(tmp)) || (mkdir(tmp, 0711) && errno != EEXIST)) {
		jb->grade = job_error(&exs[jb->ex], jb->student, "cannot make the job's folder "
				      "(errno %d)", errno);
		return -1;
	}
	jb->started_ms = now_ms();
	jb->pid = fork();
	if (jb->pid == 0) {
		grade_stop_reset();	/* its own runs, not its siblings */
		job_main(o, &exs[jb->ex], jb->student, nex == 1, jb->slot, lock, tmp, path);
	}
	if (jb->pid < 0) {
		jb->grade = job_error(&exs[jb->ex], jb->student, "cannot fork a job (errno %d)",
				      errno);
		return -1;
	}
	setpgid(jb->pid, jb->pid);
	jb->stop_slot = grade_stop_add(jb->pid, (uid_t)-1);
	return 0;
}

int grade_class_run(const struct grade_class_opts *o, json_t **grades, double *wall_s,
		    char **cause)
{
	struct class_ex *exs = NULL;
	struct class_job *jobs = NULL;
	char **students = NULL, *box = NULL, *lock = NULL, *tmpl = NULL;
	const char *tmpdir = o->base.tmpdir;
	size_t nstudents = 0, nex = 0, njobs = 0, next = 0, running = 0, done = 0;
	unsigned int width = o->jobs ? o->jobs : 1;
	bool *slot_busy = NULL;
	long long start = now_ms();
	int ret, fd;

	*grades = NULL;
	if (!o->allow_unisolated && !grade_sandbox_would_isolate(o->base.ns))
		return rt_err(cause, -EPERM, "the sandbox cannot isolate the graded code here "
			      "(not root, no user namespaces%s, no Landlock): a submission could "
			      "forge its grade or another student's. Run as root, allow user "
			      "namespaces or use a kernel with Landlock; or pass "
			      "--allow-unisolated to grade anyway (each grade then says so)",
			      o->base.ns ? "" : " asked for");
	if (!tmpdir)
		tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	ret = list_students(o->dir, o->student, &students, &nstudents, cause);
	if (ret)
		goto out;
	if (asprintf(&tmpl, "%s/rtlab-class.%d.XXXXXX", tmpdir, (int)getpid()) < 0 ||
	    !(box = mkdtemp(tmpl))) {
		ret = tmpl ? rt_err(cause, -errno, "%s: %s", tmpl, strerror(errno)) : -ENOMEM;
		goto out;
	}
	tmpl = NULL;
	/* Box uids pass through it to their job's boxes (listing it stays ours). */
	if (geteuid() == 0 && chmod(box, 0711)) {
		ret = rt_err(cause, -errno, "%s: %s", box, strerror(errno));
		goto out;
	}
	ret = open_exercises(o, box, &exs, &nex, cause);
	if (ret)
		goto out;
	if (asprintf(&lock, "%s/timing.lock", box) < 0) {
		lock = NULL;
		ret = -ENOMEM;
		goto out;
	}
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		ret = rt_err(cause, -errno, "%s: %s", lock, strerror(errno));
		goto out;
	}
	close(fd);
	njobs = nstudents * nex;
	jobs = calloc(njobs, sizeof(*jobs));
	slot_busy = calloc(width, sizeof(*slot_busy));
	if (!jobs || !slot_busy) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t s = 0; s < nstudents; s++)
		for (size_t e = 0; e < nex; e++)
			jobs[s * nex + e] = (struct class_job){ .student = students[s], .ex = e,
								.pid = -1, .stop_slot = -1 };
	fflush(NULL);
	while (done < njobs) {
		int status;
		pid_t p;

		while (running < width && next < njobs) {
			unsigned int slot = 0;

			while (slot_busy[slot])
				slot++;
			jobs[next].slot = slot;
			if (job_start(o, exs, nex, box, lock, jobs, next)) {
				done++;
			} else {
				slot_busy[slot] = true;
				running++;
			}
			next++;
		}
		p = waitpid(-1, &status, WNOHANG);
		if (p <= 0) {
			for (size_t k = 0; k < next; k++) {
				struct class_job *jb = &jobs[k];

				if (jb->pid > 0 && !jb->grade &&
				    now_ms() - jb->started_ms > GRADE_JOB_WALL_S * 1000LL) {
					kill(-jb->pid, SIGKILL);
					kill(jb->pid, SIGKILL);
				}
			}
			if (p < 0 && errno == ECHILD)
				break;
			usleep(20000);
			continue;
		}
		for (size_t k = 0; k < next; k++) {
			struct class_job *jb = &jobs[k];
			bool overran = now_ms() - jb->started_ms > GRADE_JOB_WALL_S * 1000LL;
			char path[4096];

			if (jb->pid != p || jb->grade)
				continue;
			snprintf(path, sizeof(path), "%s/job-%zu.json", box, k);
			kill(-jb->pid, SIGKILL);	/* whatever the job left behind */
			/* Its boxes' runs are sessions of their own: end them by their uid. */
			grade_stop_kill_uid(GRADE_UID_BASE + 1 + o->base.slot + jb->slot);
			grade_stop_del(jb->stop_slot);
			job_clean(box, k);
			/*
			 * Killed by a signal we did not send (the OOM killer, an
			 * operator): not the student's doing. Once more, same slot.
			 */
			if (WIFSIGNALED(status) && !overran && !jb->retried) {
				jb->retried = true;
				jb->killed_by = WTERMSIG(status);
				if (!job_start(o, exs, nex, box, lock, jobs, k))
					break;
			}
			jb->grade = job_collect(&exs[jb->ex], jb, status, path, overran);
			slot_busy[jb->slot] = false;
			running--;
			done++;
			break;
		}
	}
	*grades = json_array();
	for (size_t k = 0; *grades && k < njobs; k++) {
		json_t *g = jobs[k].grade ? json_incref(jobs[k].grade) :
			    job_error(&exs[jobs[k].ex], jobs[k].student, "not graded (%d)", 0);

		if (!g || json_array_append_new(*grades, g)) {
			json_decref(*grades);
			*grades = NULL;
		}
	}
	ret = *grades ? 0 : -ENOMEM;
out:
	if (wall_s)
		*wall_s = (double)(now_ms() - start) / 1000.0;
	for (size_t k = 0; jobs && k < njobs; k++)
		json_decref(jobs[k].grade);
	free(jobs);
	free(slot_busy);
	for (size_t e = 0; e < nex; e++) {
		grade_exercise_fini(&exs[e].ex);
		free(exs[e].program);
		free(exs[e].subject_obj);
		if (exs[e].program_fd >= 0)
			close(exs[e].program_fd);
		free(exs[e].error);
	}
	free(exs);
	for (size_t s = 0; s < nstudents; s++)
		free(students[s]);
	free(students);
	if (box)
		grade_rm_rf(box);
	free(box);
	free(tmpl);
	free(lock);
	return ret;
}
