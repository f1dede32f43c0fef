/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_fcse_live: the FCSE lab on the FCSE kernel (lab_fcse_live.h). Per mode: one boot of
 * the ARM image with fcse=MODE, rtlab-fcse-work's ring and fork limit inside, the model over
 * the same ring beside it, one scenario "live-<workload>-<mode>" in the document.
 *
 * Where the two differ by design (the document's notes say it too): the kernel gives a PID
 * to every user address space, init, the shell and rtlab-fcse-work's parent included, the
 * model only to the workload's processes; so the kernel's PIDs are the model's shifted by
 * those, and with more than 95 processes the kernel refuses that many more forks. The ring
 * has no RT task: the model's RT task runs as an ordinary member, so no latency is set
 * beside the kernel's counts.
 */
#include "lab_fcse_live.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/rt_err.h"
#include "core/rt_env.h"
#include "core/rt_json.h"
#include "core/rt_log.h"
#include "core/rt_result.h"
#include "core/rt_sink.h"
#include "core/rt_which.h"
#include "lab.h"
#include "qemu/qemu_machine.h"
#include "qemu/qemu_run.h"
#include "sim/sim.h"

#define FL_BOOT_EXIT_MS 300000u		/* the command's bound once the guest is ready */
#define FL_LIMIT_MAX 128u		/* forks of the limit part: past 95 */
#define FL_CHUNK (1u << 20)

const char *const fcse_work_key_names[FCSE_WK_NKEYS] = {
	"pid_register", "pid_mm", "pids_total", "pids_in_use", "switches", "flushes",
	"flushes_avoided", "forks_refused", "mappings_refused", "relocations",
};

/* ---- The parser ------------------------------------------------------------------------ */

void fcse_work_out_fini(struct fcse_work_out *out)
{
	free(out->procs);
	memset(out, 0, sizeof(*out));
}

static int wk_find(const char *name)
{
	for (int k = 0; k < FCSE_WK_NKEYS; k++)
		if (!strcmp(name, fcse_work_key_names[k]))
			return k;
	return -1;
}

/* "123" or "-1" into @v; anything else is not a number. */
static int parse_ll(const char *s, long long *v)
{
	char *end;

	if (!*s)
		return -1;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return errno || *end ? -1 : 0;
}

static int parse_uint(const char *s, unsigned int max, unsigned int *v)
{
	long long x;

	if (parse_ll(s, &x) || x < 0 || x > max)
		return -1;
	*v = (unsigned int)x;
	return 0;
}

static void copy_word(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%.*s", (int)(size - 1), src);
}

/* One snapshot key: "base.switches=12" with @prefix "base". 1: done, 0: not this, -1: bad. */
static int parse_snap(const char *key, const char *val, const char *prefix,
		      struct fcse_work_snap *s)
{
	size_t n = strlen(prefix);
	int k;

	if (strncmp(key, prefix, n) || key[n] != '.')
		return 0;
	k = wk_find(key + n + 1);
	if (k < 0)
		return 1;	/* a key of a newer kernel: ignored */
	if (parse_ll(val, &s->v[k]))
		return -1;
	s->have |= 1u << k;
	return 1;
}

/* "proc.I.FIELD=V" */
static int parse_proc(struct fcse_work_out *o, const char *key, const char *val)
{
	struct fcse_work_proc *p;
	unsigned int i;
	char *end;

	errno = 0;
	i = (unsigned int)strtoul(key + 5, &end, 10);
	if (errno || end == key + 5 || *end != '.' || i >= o->nprocs)
		return -1;
	p = &o->procs[i];
	end++;
	if (!strcmp(end, "kind"))
		copy_word(p->kind, sizeof(p->kind), val);
	else if (!strcmp(end, "stage"))
		copy_word(p->stage, sizeof(p->stage), val);
	else if (!strcmp(end, "errno"))
		copy_word(p->err, sizeof(p->err), val);
	else if (!strcmp(end, "fcse_pid"))
		return parse_ll(val, &p->fcse_pid);
	return 0;
}

enum { PART_NONE, PART_RING, PART_LIMIT };

static int parse_line(struct fcse_work_out *o, int *part, bool *ended, char *line)
{
	char *val = strchr(line, '=');
	const char *key = line;
	int r;

	if (!val)
		return *line ? -1 : 0;
	*val++ = '\0';
	if (!strcmp(key, "command")) {
		*part = !strcmp(val, "ring") ? PART_RING : !strcmp(val, "limit") ? PART_LIMIT : -1;
		if (*part < 0)
			return -1;
		if (*part == PART_RING)
			o->have_ring = true;
		else
			o->have_limit = true;
		*ended = false;
		return 0;
	}
	if (*part == PART_NONE)
		return strcmp(key, "version") ? -1 : 0;
	if (!strcmp(key, "status")) {
		bool ok = !strcmp(val, "ok");

		if (!ok && strcmp(val, "error"))
			return -1;
		if (*part == PART_RING)
			o->ring_ok = ok;
		else
			o->limit_ok = ok;
		*ended = true;
		return 0;
	}
	if (!strcmp(key, "error")) {
		if (!o->error[0])
			copy_word(o->error, sizeof(o->error), val);
		return 0;
	}
	if (!strcmp(key, "fcse_mode"))
		copy_word(o->mode, sizeof(o->mode), val);
	else if (!strcmp(key, "fcse_missing"))
		copy_word(o->missing, sizeof(o->missing), val);
	else if (!strcmp(key, "sched") && *part == PART_RING)
		copy_word(o->sched, sizeof(o->sched), val);
	else if (!strcmp(key, "workload"))
		copy_word(o->workload, sizeof(o->workload), val);
	else if (!strcmp(key, "procs")) {
		if (o->procs || parse_uint(val, FCSE_WORK_PROCS_MAX, &o->nprocs))
			return -1;
		o->procs = calloc(o->nprocs ? o->nprocs : 1, sizeof(*o->procs));
		if (!o->procs)
			return -ENOMEM;
		for (unsigned int i = 0; i < o->nprocs; i++)
			o->procs[i].fcse_pid = -1;
	} else if (!strncmp(key, "proc.", 5)) {
		return parse_proc(o, key, val);
	} else if (!strcmp(key, "ring")) {
		return parse_uint(val, FCSE_WORK_PROCS_MAX, &o->ring);
	} else if (!strcmp(key, "warmup")) {
		return parse_uint(val, FCSE_WORK_PROCS_MAX, &o->warmup);
	} else if (!strcmp(key, "switches")) {
		return parse_uint(val, 100000000, &o->switches);
	} else if (!strcmp(key, "limit.max")) {
		return parse_uint(val, FCSE_WORK_PROCS_MAX, &o->limit_max);
	} else if (!strcmp(key, "limit.forked")) {
		return parse_uint(val, FCSE_WORK_PROCS_MAX, &o->limit_forked);
	} else if (!strcmp(key, "limit.errno")) {
		copy_word(o->limit_errno, sizeof(o->limit_errno), val);
	} else {
		static const char *const rp[] = { "base", "before", "after", "delta" };
		struct fcse_work_snap *rs[] = { &o->base, &o->before, &o->after, &o->delta };

		if (*part == PART_LIMIT) {
			r = parse_snap(key, val, "base", &o->limit_base);
			if (!r)
				r = parse_snap(key, val, "at", &o->limit_at);
			return r < 0 ? -1 : 0;
		}
		for (int i = 0; i < 4; i++) {
			r = parse_snap(key, val, rp[i], rs[i]);
			if (r)
				return r < 0 ? -1 : 0;
		}
	}
	return 0;
}

int fcse_work_parse(const char *text, struct fcse_work_out *out, char **cause)
{
	const char *p = text;
	unsigned int lineno = 0;
	bool ended = true;
	int part = PART_NONE, ret = 0;

	memset(out, 0, sizeof(*out));
	while (*p && !ret) {
		size_t n = strcspn(p, "\n");
		char *line = strndup(p, n);

		lineno++;
		if (!line)
			return -ENOMEM;
		ret = parse_line(out, &part, &ended, line);
		if (ret == -1)
			ret = rt_err(cause, -EPROTO, "rtlab-fcse-work's line %u is not what it "
				     "writes: '%.60s'", lineno, p);
		free(line);
		p += n + (p[n] == '\n');
	}
	if (ret)
		return ret;
	if (!out->have_ring && !out->have_limit)
		return rt_err(cause, -EPROTO, "no output of rtlab-fcse-work (no command= line)");
	if (!ended)
		return rt_err(cause, -EPROTO, "rtlab-fcse-work's output was cut off (no status= "
			      "line at its end)");
	if (out->ring_ok && (!out->before.have || !out->after.have))
		return rt_err(cause, -EPROTO, "rtlab-fcse-work's ring part says ok without "
			      "/proc/fcse's numbers before and after");
	return 0;
}

/* ---- The model over the same ring ------------------------------------------------------ */

static int model_run(const struct sim_fcse_scenario *sc, uint32_t ticks, uint64_t seed,
		     struct sim **out, char **cause)
{
	struct sim_fcse_scenario s = *sc;
	int ret;

	s.ticks = ticks;
	ret = sim_new(&sim_fcse_model, &s, seed, out, cause);
	if (!ret)
		ret = sim_run_chunked(*out, SIM_STEPS_ALL, FL_CHUNK, NULL, NULL, NULL);
	return ret;
}

int fcse_live_model(const char *workload, unsigned int processes, enum sim_fcse_mode mode,
		    unsigned int switches, uint64_t seed, struct fcse_live_model *m, char **cause)
{
	struct sim_fcse_proc kinds[SIM_FCSE_KINDS_MAX];
	struct sim_fcse_scenario sc;
	struct sim *warm = NULL, *all = NULL;
	const uint64_t *a, *b;
	uint32_t ring = 0;
	int ret;

	memset(m, 0, sizeof(*m));
	if (sim_fcse_workload(workload, mode, &sc))
		return rt_err(cause, -EINVAL, "no workload called '%s'", workload);
	memcpy(kinds, sc.procs, sc.nprocs * sizeof(*kinds));
	for (uint32_t k = 0; k < sc.nprocs; k++)
		kinds[k].flags &= ~SIM_FCSE_RT;	/* the ring has no RT task */
	if (processes && sc.nprocs > 1)
		kinds[1].count = processes;
	sc.procs = kinds;
	/* The fork decisions are made at setup: a run of one tick shows who runs. */
	ret = model_run(&sc, 1, seed, &warm, cause);
	if (ret)
		goto out;
	m->nprocs = sim_fcse_nprocs(sim_state(warm));
	for (uint32_t i = 0; i < m->nprocs && i < FCSE_WORK_PROCS_MAX; i++) {
		struct sim_fcse_proc_info pi;

		sim_fcse_proc_get(sim_state(warm), i, &pi);
		m->pid[i] = pi.refused ? -1 : (int)pi.pid;
		ring += !pi.refused;
	}
	sim_free(warm);
	warm = NULL;
	if (ring < 2) {
		ret = rt_err(cause, -EINVAL, "the model runs %u of the processes: no ring", ring);
		goto out;
	}
	/*
	 * The kernel's warm-up round starts with the token at the first process, already
	 * running, and ends with it there again: ring switches. The model's first switch comes
	 * from no process, so its warm-up is one switch longer and ends at the first process
	 * too; the switches measured then pair one for one (best-effort's flushes depend on
	 * which pairs they are).
	 */
	ret = model_run(&sc, ring + 1, seed, &warm, cause) ?:
	      model_run(&sc, ring + 1 + switches, seed, &all, cause);
	if (ret)
		goto out;
	a = sim_counters(warm)->v;
	b = sim_counters(all)->v;
	m->switches = b[SIM_FCSE_C_SWITCHES] - a[SIM_FCSE_C_SWITCHES];
	m->flushes = b[SIM_FCSE_C_FLUSHES] - a[SIM_FCSE_C_FLUSHES];
	m->switch_sum_ns = b[SIM_FCSE_C_SWITCH_SUM] - a[SIM_FCSE_C_SWITCH_SUM];
	m->refused_fork = b[SIM_FCSE_C_REFUSED_FORK];
	m->refused_mmap = b[SIM_FCSE_C_REFUSED_MMAP];
	m->relocations = b[SIM_FCSE_C_RELOCATIONS];
	m->processes = b[SIM_FCSE_C_PROCESSES];
out:
	sim_free(warm);
	sim_free(all);
	return ret;
}

/* ---- The boots ------------------------------------------------------------------------- */

/*
 * What --live needs before it boots anything: the emulator, as the runner will start it
 * (from PATH), and the image.
 */
static int live_check(char **image_dir, char **cause)
{
	const struct qemu_machine *mach = qemu_kernel_machine(QEMU_KERNEL_FCSE);
	char *qemu = rt_which_in(mach->qemu, NULL), *vmlinuz = NULL;
	int ret = 0;

	*image_dir = qemu_image_dir();
	if (!qemu) {
		ret = rt_err(cause, -ENOENT, "--live boots the ARM FCSE kernel under %s, which is "
			     "not installed or not in PATH (Debian: apt-get install "
			     "qemu-system-arm); without --live the lab runs the simulator",
			     mach->qemu);
		goto out;
	}
	if (!*image_dir || asprintf(&vmlinuz, "%s/fcse/vmlinuz", *image_dir) < 0) {
		ret = rt_err(cause, -ENOMEM, "out of memory");
		goto out;
	}
	if (access(vmlinuz, R_OK))
		ret = rt_err(cause, -ENOENT, "--live needs the ARM image (the fcse kernel), and "
			     "%s is missing: build it with `make vm-arm` in rtlab's source tree "
			     "(or `rtlab vm build fcse`), or set RTLAB_VM_DIR; without --live the "
			     "lab runs the simulator", vmlinuz);
out:
	free(qemu);
	free(vmlinuz);
	return ret;
}

/* One boot with fcse=MODE running @cmd; its output into *@text, the release into @rel. */
static int live_boot(struct lab_ctx *ctx, const char *image_dir, enum sim_fcse_mode mode,
		     const char *cmd, char **text, char *rel, size_t relsize, char **cause)
{
	char append[48];
	struct qemu_run_opts o = {
		.kernel = QEMU_KERNEL_FCSE, .accel = QEMU_ACCEL_AUTO, .time = QEMU_TIME_AUTO,
		.image_dir = image_dir, .state_image = "", .run = cmd, .append = append,
		.die_with_parent = true, .stop = ctx->stop,
	};
	struct qemu_ready ready = { 0 };
	struct qemu_session *s;
	const char *con;
	size_t len;
	char *notice = NULL;
	int ret, qstatus, cstatus;

	*text = NULL;
	snprintf(append, sizeof(append), "fcse=%s", sim_fcse_mode_names[mode]);
	s = qemu_session_start(&o, &notice, cause);
	free(notice);
	if (!s)
		return errno ? -errno : -EIO;
	ret = qemu_session_wait_ready(s, &ready, cause);
	if (!ret) {
		copy_word(rel, relsize, ready.release ? ready.release : "unknown");
		ret = qemu_session_wait_exit(s, FL_BOOT_EXIT_MS, &qstatus, cause);
	}
	if (!ret) {
		con = qemu_session_console(s, &len);
		ret = qemu_console_extract(con, len, qemu_session_nonce(s), text, &cstatus);
		if (ret)
			ret = rt_err(cause, ret, "the fcse kernel (fcse=%s) stopped without "
				     "rtlab-fcse-work's output (%s)", sim_fcse_mode_names[mode],
				     qemu_session_brief(s) ?: "no reason given");
	}
	qemu_ready_fini(&ready);
	qemu_session_free(s);
	return ret;
}

/* ---- The document ---------------------------------------------------------------------- */

static void publish(struct fcse_live *live, enum sim_fcse_mode mode, const char *state,
		    const struct fcse_work_out *w, const struct fcse_live_model *m)
{
	struct fcse_live_kmode *k;

	if (!live)
		return;
	pthread_mutex_lock(&live->lock);
	live->kernel = true;
	live->mode = (int)mode;
	k = &live->km[mode];
	copy_word(k->state, sizeof(k->state), state);
	if (w && m) {
		k->done = true;
		k->k_switches = w->delta.v[FCSE_WK_SWITCHES];
		k->k_flushes = w->delta.v[FCSE_WK_FLUSHES];
		k->k_avoided = w->delta.v[FCSE_WK_FLUSHES_AVOIDED];
		k->m_switches = m->switches;
		k->m_flushes = m->flushes;
		k->m_refused_fork = (uint32_t)m->refused_fork;
		k->m_refused_mmap = (uint32_t)m->refused_mmap;
		k->k_refused_fork = k->k_refused_mmap = 0;
		k->nprocs = w->nprocs < FCSE_LIVE_PIDS ? w->nprocs : FCSE_LIVE_PIDS;
		for (unsigned int i = 0; i < w->nprocs; i++) {
			k->k_refused_fork += !strcmp(w->procs[i].stage, "fork");
			k->k_refused_mmap += !strcmp(w->procs[i].stage, "mmap");
			if (i < FCSE_LIVE_PIDS) {
				k->k_pid[i] = strcmp(w->procs[i].stage, "ok") ? -1 :
					      (int16_t)w->procs[i].fcse_pid;
				k->m_pid[i] = (int16_t)m->pid[i];
			}
		}
		k->limit_forked = w->limit_forked;
		k->limit_in_use = w->limit_at.have & (1u << FCSE_WK_PIDS_IN_USE) ?
				  (int)w->limit_at.v[FCSE_WK_PIDS_IN_USE] : -1;
		copy_word(k->limit_errno, sizeof(k->limit_errno), w->limit_errno);
	}
	pthread_mutex_unlock(&live->lock);
}

static bool has(const struct fcse_work_snap *s, enum fcse_work_key k)
{
	return s->have & (1u << k);
}

/* Set @key to @v when the kernel gave it (@ok). */
static int set_opt(json_t *o, const char *key, bool ok, long long v)
{
	return ok ? json_object_set_new(o, key, json_integer(v)) : 0;
}

/* The scenario of one mode: the kernel's counts beside the model's. */
static json_t *live_scenario(const char *wl, enum sim_fcse_mode mode, const char *release,
			     const struct fcse_work_out *w, const struct fcse_live_model *m)
{
	const struct fcse_work_snap *d = &w->delta, *bs = &w->base, *af = &w->after;
	json_t *o, *kp = json_array(), *mp = json_array();
	unsigned int rf = 0, rm = 0, ran = 0;
	char name[64];
	int err;

	snprintf(name, sizeof(name), "live-%s-%s", wl, sim_fcse_mode_names[mode]);
	for (unsigned int i = 0; kp && i < w->nprocs; i++) {
		bool ok = !strcmp(w->procs[i].stage, "ok");

		rf += !strcmp(w->procs[i].stage, "fork");
		rm += !strcmp(w->procs[i].stage, "mmap");
		ran += ok;
		json_array_append_new(kp, json_integer(ok ? w->procs[i].fcse_pid : -1));
	}
	for (uint32_t i = 0; mp && i < m->nprocs && i < FCSE_WORK_PROCS_MAX; i++)
		json_array_append_new(mp, json_integer(m->pid[i]));
	o = kp && mp ? json_pack("{s:s, s:s, s:s, s:s, s:b, s:b, s:s, s:s, s:s, s:O, s:O}",
				 "name", name,
				 "summary", "the FCSE kernel's counters beside the model's, same "
				 "processes, same switches", "mode", sim_fcse_mode_names[mode],
				 "workload", wl, "interrupted", false, "live", true,
				 "kernel_release", release, "kernel_sched", w->sched,
				 "kernel_lacks", w->missing, "kernel_pids", kp, "model_pids", mp)
		     : NULL;
	json_decref(kp);
	json_decref(mp);
	if (!o)
		return NULL;
	err = json_object_set_new(o, "switches_count", json_integer((json_int_t)m->switches)) ||
	      json_object_set_new(o, "flushes_count", json_integer((json_int_t)m->flushes)) ||
	      json_object_set_new(o, "model_flushes_avoided_count",
				  json_integer((json_int_t)(m->switches - m->flushes))) ||
	      json_object_set_new(o, "refused_fork_count", json_integer((json_int_t)m->refused_fork)) ||
	      json_object_set_new(o, "refused_mmap_count", json_integer((json_int_t)m->refused_mmap)) ||
	      json_object_set_new(o, "relocations_count", json_integer((json_int_t)m->relocations)) ||
	      json_object_set_new(o, "processes_count", json_integer((json_int_t)m->processes)) ||
	      json_object_set_new(o, "switch_avg_us", json_real(m->switches ?
				  (double)m->switch_sum_ns / (double)m->switches / 1000.0 : 0)) ||
	      json_object_set_new(o, "kernel_processes_count", json_integer(ran)) ||
	      json_object_set_new(o, "kernel_refused_fork_count", json_integer(rf)) ||
	      json_object_set_new(o, "kernel_refused_mmap_count", json_integer(rm)) ||
	      set_opt(o, "kernel_switches_count", has(d, FCSE_WK_SWITCHES), d->v[FCSE_WK_SWITCHES]) ||
	      set_opt(o, "kernel_flushes_count", has(d, FCSE_WK_FLUSHES), d->v[FCSE_WK_FLUSHES]) ||
	      set_opt(o, "kernel_flushes_avoided_count", has(d, FCSE_WK_FLUSHES_AVOIDED),
		      d->v[FCSE_WK_FLUSHES_AVOIDED]) ||
	      set_opt(o, "kernel_pids_total_count", has(bs, FCSE_WK_PIDS_TOTAL),
		      bs->v[FCSE_WK_PIDS_TOTAL]) ||
	      set_opt(o, "kernel_base_pids_in_use_count", has(bs, FCSE_WK_PIDS_IN_USE),
		      bs->v[FCSE_WK_PIDS_IN_USE]) ||
	      set_opt(o, "kernel_pids_in_use_count", has(&w->before, FCSE_WK_PIDS_IN_USE),
		      w->before.v[FCSE_WK_PIDS_IN_USE]) ||
	      set_opt(o, "kernel_forks_refused_count", has(bs, FCSE_WK_FORKS_REFUSED) &&
		      has(af, FCSE_WK_FORKS_REFUSED),
		      af->v[FCSE_WK_FORKS_REFUSED] - bs->v[FCSE_WK_FORKS_REFUSED]) ||
	      set_opt(o, "kernel_mappings_refused_count", has(bs, FCSE_WK_MAPPINGS_REFUSED) &&
		      has(af, FCSE_WK_MAPPINGS_REFUSED),
		      af->v[FCSE_WK_MAPPINGS_REFUSED] - bs->v[FCSE_WK_MAPPINGS_REFUSED]) ||
	      set_opt(o, "kernel_relocations_count", has(bs, FCSE_WK_RELOCATIONS) &&
		      has(af, FCSE_WK_RELOCATIONS),
		      af->v[FCSE_WK_RELOCATIONS] - bs->v[FCSE_WK_RELOCATIONS]) ||
	      json_object_set_new(o, "flushes_agree", json_boolean(has(d, FCSE_WK_FLUSHES) &&
				  has(d, FCSE_WK_SWITCHES) &&
				  (uint64_t)d->v[FCSE_WK_SWITCHES] == m->switches &&
				  (uint64_t)d->v[FCSE_WK_FLUSHES] == m->flushes));
	if (!err && w->have_limit)
		err = json_object_set_new(o, "kernel_limit_forked_count",
					  json_integer(w->limit_forked)) ||
		      json_object_set_new(o, "kernel_limit_errno", json_string(w->limit_errno)) ||
		      set_opt(o, "kernel_limit_pids_in_use_count",
			      has(&w->limit_at, FCSE_WK_PIDS_IN_USE),
			      w->limit_at.v[FCSE_WK_PIDS_IN_USE]) ||
		      set_opt(o, "kernel_limit_base_pids_in_use_count",
			      has(&w->limit_base, FCSE_WK_PIDS_IN_USE),
			      w->limit_base.v[FCSE_WK_PIDS_IN_USE]);
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The environment of the document: the guest's, not this host's. */
static void guest_env(struct rt_env *e, const struct rt_env *host, char *release)
{
	memset(e, 0, sizeof(*e));
	e->kernel_release = release;
	e->kernel_version = (char *)"unknown";
	e->machine = (char *)"armv5tejl";
	e->preempt_model = (char *)"none";
	e->in_vm = true;
	e->vm_type = (char *)"QEMU TCG (versatilepb, ARM926EJ-S)";
	e->classroom_vm = true;
	e->virtual_time = true;
	e->cpus = 1;
	e->root = true;
	(void)host;
}

static int live_notes(struct rt_result *res, const struct fcse_params *p, bool lacks)
{
	int ret;

	ret = rt_result_add_note(res, "LIVE: the counts are the FCSE kernel's (/proc/fcse, read "
				 "inside the ARM image under QEMU) for a ring of the workload's "
				 "processes passing a token through pipes, one CPU, SCHED_FIFO, "
				 "one switch per pass after a warm-up round; the model's (the "
				 "simulator's) are for the same processes and switches") ?:
	      rt_result_add_note(res, "TIMES ARE THE MODEL'S: QEMU models no cache, so no "
				 "figure of time here is the kernel's (switch_avg_us is the "
				 "simulator's cost model)") ?:
	      rt_result_add_note(res, "the kernel gives a PID to every user address space "
				 "(init, the shell and rtlab-fcse-work's parent too, and an exec "
				 "holds two for a moment), the model only to the workload's "
				 "processes: the lowest free PID a process gets differs, and past "
				 "95 processes the kernel refuses as many more forks as it has "
				 "other address spaces (kernel_base_pids_in_use_count)") ?:
	      rt_result_add_note(res, "the ring has no RT task: the model's runs as an ordinary "
				 "member, so the document has no latency");
	if (!ret && lacks)
		ret = rt_result_add_note(res, "this kernel lacks some of /proc/fcse's keys "
					 "(kernel_lacks): its counters are left out where it has "
					 "none, and a kernel without PIDs (patch 0001) flushes at every "
					 "switch in every mode");
	if (!ret && (p->modes & (1u << SIM_FCSE_MODE_BEST_EFFORT)))
		ret = rt_result_add_note(res, "best-effort: the model's rules (sim/sim_fcse.c) "
					 "follow the patch series' (kernel-patches/arm-fcse/README.md): "
					 "a flush after a process that touched shared writable memory, to "
					 "or from one above 32 MB (moved to PID 0: a relocation), to a PID "
					 "another process used last");
	return ret;
}

static int live_params(struct rt_result *res, const struct fcse_params *p, const char *wl)
{
	json_t *modes = json_array();

	for (int m = 0; modes && m < SIM_FCSE_NMODES; m++)
		if (p->modes & (1u << m))
			json_array_append_new(modes, json_string(sim_fcse_mode_names[m]));
	if (!modes)
		return -ENOMEM;
	return rt_result_set_param_json(res, "modes", modes) ?:
	       rt_result_set_param_str(res, "workload", wl) ?:
	       rt_result_set_param_str(res, "cpu", "arm926") ?:
	       rt_result_set_param_num(res, "ticks", 0) ?:
	       rt_result_set_param_bool(res, "live", true) ?:
	       rt_result_set_param_str(res, "kernel", "fcse") ?:
	       rt_result_set_param_num(res, "switches", p->switches) ?:
	       rt_result_set_param_num(res, "processes", p->processes);
}

/* summary <prefix>_<name> = scenario @s's @key, when it has one (a kernel may lack it). */
static int set_summary_of(struct rt_result *res, const json_t *s, const char *prefix,
			  const char *name, const char *key)
{
	char k[96];

	if (!json_is_number(json_object_get(s, key)))
		return 0;
	snprintf(k, sizeof(k), "%s_%s", prefix, name);
	return rt_result_set_summary(res, k, rt_json_num(s, key));
}

int lab_fcse_live_run(struct lab_ctx *ctx, const struct rt_sink *sink,
		      const struct fcse_params *p, struct lab_result *out)
{
	const char *wl = sim_fcse_workloads[p->workload];
	struct fcse_live *live = ctx->live;
	struct rt_result *res = NULL;
	json_t *scens = json_array();
	char *image_dir = NULL, *cmd = NULL, release[96] = "unknown", procs[32] = "";
	struct rt_env env;
	bool lacks = false;
	char *cause = NULL;
	int ret, done = 0, total = 0;

	memset(out, 0, sizeof(*out));
	for (int m = 0; m < SIM_FCSE_NMODES; m++)
		total += !!(p->modes & (1u << m));
	ret = scens ? live_check(&image_dir, &cause) : -ENOMEM;
	if (ret)
		goto out;
	if (p->processes)
		snprintf(procs, sizeof(procs), " --processes %u", p->processes);
	if (asprintf(&cmd, "rtlab-fcse-work --switches %u%s %s; rtlab-fcse-work --max %u limit",
		     p->switches, procs, wl, FL_LIMIT_MAX) < 0) {
		ret = -ENOMEM;
		goto out;
	}
	for (int m = 0; m < SIM_FCSE_NMODES && !ret; m++) {
		struct fcse_live_model model;
		struct fcse_work_out w = { 0 };
		char *text = NULL, what[96];
		json_t *o;

		if (!(p->modes & (1u << m)))
			continue;
		if (lab_ctx_stopped(ctx)) {
			out->interrupted = true;
			break;
		}
		snprintf(what, sizeof(what), "booting the FCSE kernel with fcse=%s",
			 sim_fcse_mode_names[m]);
		rt_sink_progress(sink, (unsigned int)(100 * done / total), what);
		publish(live, (enum sim_fcse_mode)m, "booting", NULL, NULL);
		ret = live_boot(ctx, image_dir, (enum sim_fcse_mode)m, cmd, &text, release,
				sizeof(release), &cause);
		if (ret == -EINTR) {
			out->interrupted = true;
			ret = 0;
			break;
		}
		ret = ret ?: fcse_work_parse(text, &w, &cause);
		if (!ret && !w.ring_ok)
			ret = rt_err(&cause, -EIO, "rtlab-fcse-work failed in fcse=%s: %s",
				     sim_fcse_mode_names[m], w.error[0] ? w.error : "no reason");
		ret = ret ?: fcse_live_model(wl, p->processes, (enum sim_fcse_mode)m, p->switches,
					     ctx->seed, &model, &cause);
		if (!ret) {
			lacks = lacks || w.missing[0];
			o = live_scenario(wl, (enum sim_fcse_mode)m, release, &w, &model);
			ret = o ? json_array_append_new(scens, o) : -ENOMEM;
			publish(live, (enum sim_fcse_mode)m, "done", &w, &model);
		}
		fcse_work_out_fini(&w);
		free(text);
		done++;
	}
	if (ret)
		goto out;
	guest_env(&env, ctx->env, release);
	res = rt_result_new("fcse", "vm", &env);
	if (!res) {
		ret = -ENOMEM;
		goto out;
	}
	ret = lab_seed_record(res, ctx->seed) ?: live_params(res, p, wl) ?:
	      live_notes(res, p, lacks);
	for (size_t i = 0; !ret && i < json_array_size(scens); i++) {
		json_t *s = json_array_get(scens, i);
		const char *mode = json_string_value(json_object_get(s, "mode"));
		int mi = sim_fcse_mode_find(mode ? mode : "");
		static const char *const prefix[SIM_FCSE_NMODES] = {
			"flush", "guaranteed", "best_effort"
		};

		if (mi < 0)
			continue;
		ret = set_summary_of(res, s, prefix[mi], "model_flushes_count", "flushes_count") ?:
		      set_summary_of(res, s, prefix[mi], "kernel_flushes_count",
				     "kernel_flushes_count") ?:
		      set_summary_of(res, s, prefix[mi], "kernel_flushes_avoided_count",
				     "kernel_flushes_avoided_count");
	}
out:
	free(image_dir);
	free(cmd);
	return lab_result_finish(out, res, scens, ret, cause, "fcse",
				 "interrupted: the modes not booted are left out");
}

/* ---- Views ----------------------------------------------------------------------------- */

bool fcse_live_doc(const struct rt_result *res)
{
	bool live = false;

	return rt_result_param_bool(res, "live", &live) == 0 && live;
}

/* A scenario's @key as a cell: its number, or null when the kernel lacks it. */
static json_t *cell(const json_t *s, const char *key)
{
	const json_t *v = json_object_get(s, key);

	return json_is_number(v) ? json_real(json_number_value(v)) : json_null();
}

/* A scenario's PID array as "4 5 6 -", the first 32 of them. */
static json_t *pid_cell(const json_t *s, const char *key)
{
	char buf[192];
	size_t len = 0, i;
	json_t *v;

	buf[0] = '\0';
	json_array_foreach(json_object_get(s, key), i, v) {
		long long p = json_integer_value(v);

		if (i == 32) {
			snprintf(buf + len, sizeof(buf) - len, " ... (%zu)",
				 json_array_size(json_object_get(s, key)));
			break;
		}
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, p < 0 ? "%s-" : "%s%lld",
					len ? " " : "", p);
		if (len >= sizeof(buf))
			break;
	}
	return json_string(buf);
}

#define LIVE_NCOLS(c) (sizeof(c) / sizeof((c)[0]))

/* A view of @ncols columns ({name, title} pairs, title NULL: the name), or NULL. */
static json_t *live_view(const char *name, const char *title, const char *const (*cols)[2],
			 size_t ncols)
{
	json_t *v = rt_result_view_new(name, title);

	for (size_t c = 0; v && c < ncols; c++) {
		if (rt_result_view_add_column(v, cols[c][0], cols[c][1], NULL)) {
			json_decref(v);
			return NULL;
		}
	}
	return v;
}

int fcse_live_views(const struct rt_result *res, json_t *views)
{
	static const char *const live_cols[][2] = {
		{ "mode", NULL }, { "counted_by", "by" }, { "switches", NULL },
		{ "flushes", NULL }, { "avoided", NULL }, { "fork", "EAGAIN" },
		{ "mmap", "ENOMEM" }, { "agree", NULL },
	};
	static const char *const limit_cols[][2] = {
		{ "mode", NULL }, { "forked", "children forked" }, { "errno", "fork's errno" },
		{ "in_use", "PIDs in use then" }, { "base", "in use before" },
	};
	static const char *const pid_cols[][2] = {
		{ "mode", NULL }, { "kernel", "kernel's PIDs" }, { "model", "model's PIDs" },
	};
	json_t *live = live_view("live", "LIVE: the FCSE kernel's counts beside the model's, "
				 "same processes and switches (times are the model's: QEMU "
				 "models no cache)", live_cols, LIVE_NCOLS(live_cols));
	json_t *limit = live_view("limit", "LIVE: fork until the kernel refuses (every user "
				  "address space holds a PID: init, the shell and the parent too)",
				  limit_cols, LIVE_NCOLS(limit_cols));
	json_t *pids = live_view("pids", "LIVE: the FCSE PID of each process in fork order "
				 "(- refused); the kernel's PIDs also go to init, the shell and "
				 "the parent", pid_cols, LIVE_NCOLS(pid_cols));
	int ret = live && limit && pids ? 0 : -ENOMEM;
	json_t *s;
	size_t i;

	json_array_foreach(rt_result_scenarios(res), i, s) {
		const char *name = json_string_value(json_object_get(s, "mode")) ?: "";
		const char *agree = json_is_true(json_object_get(s, "flushes_agree")) ? "yes" : "no";

		if (ret)
			break;
		/* Two rows a mode, the kernel's then the model's, to fit 80 columns. */
		ret = rt_result_view_add_row(live, json_pack("[s, s, o, o, o, o, o, s]", name,
				"kernel", cell(s, "kernel_switches_count"),
				cell(s, "kernel_flushes_count"),
				cell(s, "kernel_flushes_avoided_count"),
				cell(s, "kernel_refused_fork_count"),
				cell(s, "kernel_refused_mmap_count"), agree)) ?:
		      rt_result_view_add_row(live, json_pack("[s, s, o, o, o, o, o, s]", "",
				"model", cell(s, "switches_count"), cell(s, "flushes_count"),
				cell(s, "model_flushes_avoided_count"), cell(s, "refused_fork_count"),
				cell(s, "refused_mmap_count"), "")) ?:
		      rt_result_view_add_row(limit, json_pack("[s, o, s, o, o]", name,
				cell(s, "kernel_limit_forked_count"),
				json_string_value(json_object_get(s, "kernel_limit_errno")) ?: "-",
				cell(s, "kernel_limit_pids_in_use_count"),
				cell(s, "kernel_limit_base_pids_in_use_count"))) ?:
		      rt_result_view_add_row(pids, json_pack("[s, o, o]", name,
				pid_cell(s, "kernel_pids"), pid_cell(s, "model_pids")));
	}
	if (!ret && (json_array_append(views, live) || json_array_append(views, limit) ||
		     json_array_append(views, pids)))
		ret = -ENOMEM;
	json_decref(live);
	json_decref(limit);
	json_decref(pids);
	return ret;
}
