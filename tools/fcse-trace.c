/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fcse-trace: the FCSE lab's trace tool (built by make as build/fcse-trace).
 *
 *   fcse-trace convert IN OUT    a din or lackey text trace into our binary
 *                                format (sim/sim_fcse_trace.h); prints what it read
 *   fcse-trace info FILE         format, records, regions, fetches/reads/writes
 *   fcse-trace sim FILE [--icache BYTES,WAYS] [--dcache BYTES,WAYS]
 *                  [--repl lru|rr|random] [--write-allocate]
 *                                replay FILE once as a single process, no
 *                                switches, and print the counts cachegrind
 *                                prints (I refs, I1 misses, D refs, D1 misses)
 *                                for the validation against valgrind (default:
 *                                16384,4 both, lru, write-allocate off)
 *   fcse-trace mva PID VA [PID VA...]
 *                                the simulator's FCSE translation (sim_fcse_mva())
 *   fcse-trace bench [--seconds S] [FILE...]
 *                                accesses per CPU second: the model replaying
 *                                a trace already in memory, a binary trace read
 *                                from its file, and each text FILE's reader
 *
 * It does the I/O the model may not: files are read here and handed to the
 * pure readers and model as memory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/rt_file.h"
#include "labs/lab_fcse.h"
#include "sim/sim.h"
#include "sim/sim_fcse.h"
#include "sim/sim_fcse_trace.h"

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Read @path in whatever format it has (the lab's loader); complain on stderr. */
static int trace_load(const char *path, struct fcse_trace_file *f)
{
	char *cause = NULL;
	int ret = fcse_trace_file_load(path, f, &cause);

	if (ret)
		fprintf(stderr, "fcse-trace: %s\n", cause ? cause : strerror(-ret));
	free(cause);
	return ret;
}

/* Write @n records as a binary trace at @path (replaced atomically). */
static int write_bin(const char *path, const uint32_t *rec, uint64_t n)
{
	uint8_t *buf = malloc(SIM_FCSE_TRACE_HDR + n * 4);
	char *cause = NULL;
	int ret;

	if (!buf)
		return -ENOMEM;
	sim_fcse_trace_header(buf, n);
	for (uint64_t i = 0; i < n; i++)
		sim_fcse_trace_put(buf + SIM_FCSE_TRACE_HDR + 4 * i, rec[i]);
	ret = rt_file_write_atomic(path, buf, SIM_FCSE_TRACE_HDR + n * 4, 0644, &cause);
	if (ret)
		fprintf(stderr, "fcse-trace: %s\n", cause ? cause : strerror(-ret));
	free(cause);
	free(buf);
	return ret;
}

static void counts(const struct sim_fcse_trace *t, uint64_t k[3])
{
	k[0] = k[1] = k[2] = 0;
	for (uint64_t i = 0; i < t->n; i++)
		k[t->rec[i] & 3]++;
}

static int cmd_convert(int argc, char **argv)
{
	struct fcse_trace_file f;
	uint64_t k[3];
	double t0;
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: fcse-trace convert IN OUT\n");
		return 2;
	}
	t0 = cpu_s();
	ret = trace_load(argv[1], &f);
	if (ret)
		goto out;
	counts(&f.t, k);
	ret = write_bin(argv[2], f.t.rec, f.t.n);
	if (ret)
		goto out;
	printf("%s: %s, %llu lines (%llu skipped), %u regions of 1 MB%s\n", argv[1],
	       sim_fcse_trace_fmt_names[f.fmt], (unsigned long long)f.t.lines,
	       (unsigned long long)f.t.skipped, f.t.regions,
	       f.t.high ? ", some above 32 MB" : "");
	printf("%s: %llu records (%llu fetches, %llu reads, %llu writes), %llu bytes, %.2f s\n",
	       argv[2], (unsigned long long)f.t.n, (unsigned long long)k[0],
	       (unsigned long long)k[1], (unsigned long long)k[2],
	       (unsigned long long)(SIM_FCSE_TRACE_HDR + f.t.n * 4), cpu_s() - t0);
out:
	fcse_trace_file_fini(&f);
	return ret ? 1 : 0;
}

static int cmd_info(int argc, char **argv)
{
	struct fcse_trace_file f;
	uint64_t k[3];
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: fcse-trace info FILE\n");
		return 2;
	}
	ret = trace_load(argv[1], &f);
	if (!ret) {
		counts(&f.t, k);
		printf("format %s\nrecords %llu\nfetches %llu\nreads %llu\nwrites %llu\n"
		       "large %s\n", sim_fcse_trace_fmt_names[f.fmt], (unsigned long long)f.t.n,
		       (unsigned long long)k[0], (unsigned long long)k[1],
		       (unsigned long long)k[2], f.t.high ? "yes" : "no");
	}
	fcse_trace_file_fini(&f);
	return ret ? 1 : 0;
}

/* One process replaying @t once, no RT task, no switch after the first. */
static int single(const struct sim_fcse_trace *t, struct sim_fcse_scenario *sc,
		  struct sim_fcse_proc *p, struct sim **out)
{
	char *cause = NULL;
	int ret;

	if (!sc->icache.size_bytes && sim_fcse_workload("small", SIM_FCSE_MODE_FLUSH, sc))
		return -EINVAL;
	*p = (struct sim_fcse_proc){ .name = "trace", .count = 1, .trace = t->rec,
				     .trace_len = t->n, .trace_once = true };
	sc->mode = SIM_FCSE_MODE_FLUSH;
	sc->procs = p;
	sc->nprocs = 1;
	sc->ticks = 0;
	sc->tick_us = 100000;
	ret = sim_new(&sim_fcse_model, sc, 1, out, &cause);
	if (ret)
		fprintf(stderr, "fcse-trace: %s\n", cause ? cause : strerror(-ret));
	free(cause);
	return ret;
}

static int geom_arg(const char *s, struct sim_fcse_cache_geom *g)
{
	unsigned int size, ways;

	if (sscanf(s, "%u,%u", &size, &ways) != 2)
		return -EINVAL;
	g->size_bytes = size;
	g->ways = ways;
	return 0;
}

static uint64_t counter(const struct sim *s, const char *name)
{
	uint64_t v = 0;

	sim_counters_get(sim_counters(s), name, &v);
	return v;
}

static int cmd_sim(int argc, char **argv)
{
	struct sim_fcse_scenario sc;
	struct sim_fcse_proc p;
	struct fcse_trace_file f;
	struct sim *s = NULL;
	const char *path = NULL;
	int ret;

	sim_fcse_workload("small", SIM_FCSE_MODE_FLUSH, &sc);
	sc.repl = SIM_FCSE_REPL_LRU;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--icache") && i + 1 < argc) {
			ret = geom_arg(argv[++i], &sc.icache);
		} else if (!strcmp(argv[i], "--dcache") && i + 1 < argc) {
			ret = geom_arg(argv[++i], &sc.dcache);
		} else if (!strcmp(argv[i], "--repl") && i + 1 < argc) {
			ret = -EINVAL;
			for (int r = 0; r < SIM_FCSE_NREPL; r++)
				if (!strcmp(argv[i + 1], sim_fcse_repl_names[r])) {
					sc.repl = (enum sim_fcse_repl)r;
					ret = 0;
				}
			i++;
		} else if (!strcmp(argv[i], "--write-allocate")) {
			sc.write_allocate = true;
			ret = 0;
		} else if (!path && argv[i][0] != '-') {
			path = argv[i];
			ret = 0;
		} else {
			ret = -EINVAL;
		}
		if (ret) {
			fprintf(stderr, "usage: fcse-trace sim FILE [--icache BYTES,WAYS] "
				"[--dcache BYTES,WAYS] [--repl lru|rr|random] [--write-allocate]\n");
			return 2;
		}
	}
	if (!path) {
		fprintf(stderr, "fcse-trace sim: name a trace file\n");
		return 2;
	}
	ret = trace_load(path, &f);
	if (!ret)
		ret = single(&f.t, &sc, &p, &s);
	if (!ret) {
		sim_run(s, SIM_STEPS_ALL, NULL);
		printf("I refs %llu\nI1 misses %llu\nD refs %llu\nD1 misses %llu\n"
		       "straddles %llu\nfills %llu\n",
		       (unsigned long long)counter(s, "i_accesses_count"),
		       (unsigned long long)counter(s, "i_misses_count"),
		       (unsigned long long)counter(s, "d_accesses_count"),
		       (unsigned long long)counter(s, "d_misses_count"),
		       (unsigned long long)counter(s, "straddles_count"),
		       (unsigned long long)counter(s, "fills_count"));
	}
	sim_free(s);
	fcse_trace_file_fini(&f);
	return ret ? 1 : 0;
}

/* ---- bench ----------------------------------------------------------------------- */

/*
 * The trace of the benchmark, shaped like bench/fcse_randwalk.c, which
 * cachegrind runs beside it: a loop of 10 instructions (40 bytes) that
 * reads and writes a byte at a random place in 1 MB. 16 M accesses.
 */
static int bench_trace(struct sim_fcse_trace *t)
{
	uint64_t n = 16u << 20, x = 88172645463325252ull, i = 0;

	memset(t, 0, sizeof(*t));
	t->owned = malloc(n * 4);
	if (!t->owned)
		return -ENOMEM;
	while (i + 12 <= n) {
		uint32_t at;

		for (uint32_t k = 0; k < 10; k++)
			t->owned[i++] = sim_fcse_rec(0x8000 + 4 * k, 4, SIM_FCSE_FETCH);
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		at = 0x100000 + (uint32_t)(x & ((1u << 20) - 1));
		t->owned[i++] = sim_fcse_rec(at, 1, SIM_FCSE_READ);
		t->owned[i++] = sim_fcse_rec(at, 1, SIM_FCSE_WRITE);
	}
	t->rec = t->owned;
	t->n = i;
	return 0;
}

/* Accesses per CPU second replaying @t (already in memory) for about @seconds. */
static double bench_replay(const struct sim_fcse_trace *t, double seconds)
{
	uint64_t done = 0;
	double busy = 0;

	while (busy < seconds) {
		struct sim_fcse_scenario sc = { 0 };
		struct sim_fcse_proc p;
		struct sim *s = NULL;
		double t0;

		if (single(t, &sc, &p, &s))
			return 0;
		t0 = cpu_s();
		done += sim_run(s, SIM_STEPS_ALL, NULL);
		busy += cpu_s() - t0;
		sim_free(s);
	}
	return (double)done / busy;
}

static int cmd_bench(int argc, char **argv)
{
	struct sim_fcse_trace mem;
	double seconds = 1.0, rate, t0, tb;
	char tmpl[] = "/tmp/fcse-bench-XXXXXX";
	int fd, first = 1;

	if (argc > 2 && !strcmp(argv[1], "--seconds")) {
		seconds = atof(argv[2]);
		first = 3;
	}
	if (bench_trace(&mem))
		return 1;
	rate = bench_replay(&mem, seconds);
	printf("in memory:        %7.1f M accesses/s (the model's hot loop, one core)\n",
	       rate / 1e6);

	/* The same trace from a binary file: map, check, replay. */
	fd = mkstemp(tmpl);
	if (fd < 0)
		return 1;
	close(fd);
	if (write_bin(tmpl, mem.rec, mem.n))
		return 1;
	tb = 0;
	rate = 0;
	while (tb < seconds) {
		struct fcse_trace_file f;
		struct sim_fcse_scenario sc = { 0 };
		struct sim_fcse_proc p;
		struct sim *s = NULL;

		t0 = cpu_s();
		if (trace_load(tmpl, &f) || single(&f.t, &sc, &p, &s))
			return 1;
		rate += (double)sim_run(s, SIM_STEPS_ALL, NULL);
		sim_free(s);
		fcse_trace_file_fini(&f);
		tb += cpu_s() - t0;
	}
	unlink(tmpl);
	printf("binary file:      %7.1f M accesses/s (mmap, check, replay)\n", rate / tb / 1e6);

	for (int i = first; i < argc; i++) {
		struct fcse_trace_file f;

		t0 = cpu_s();
		if (trace_load(argv[i], &f))
			return 1;
		tb = cpu_s() - t0;
		printf("%-17s %7.1f M records/s (%s reader, %llu records, read and parsed)\n",
		       argv[i], (double)f.t.n / tb / 1e6, sim_fcse_trace_fmt_names[f.fmt],
		       (unsigned long long)f.t.n);
		fcse_trace_file_fini(&f);
	}
	sim_fcse_trace_fini(&mem);
	return 0;
}

/* The simulator's FCSE translation of each "PID VA" pair (decimal, hex). */
static int cmd_mva(int argc, char **argv)
{
	if (argc < 3 || argc % 2 == 0) {
		fprintf(stderr, "usage: fcse-trace mva PID VA [PID VA...]\n");
		return 2;
	}
	for (int i = 1; i + 1 < argc; i += 2) {
		unsigned long pid = strtoul(argv[i], NULL, 0), va = strtoul(argv[i + 1], NULL, 16);

		if (pid > 127 || va > UINT32_MAX) {
			fprintf(stderr, "fcse-trace mva: PID 0..127, VA below 4 GB\n");
			return 2;
		}
		printf("pid=%lu va=0x%08lx mva=0x%08x\n", pid, va,
		       sim_fcse_mva((uint32_t)va, (unsigned int)pid));
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "mva"))
		return cmd_mva(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "convert"))
		return cmd_convert(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "info"))
		return cmd_info(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "sim"))
		return cmd_sim(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "bench"))
		return cmd_bench(argc - 1, argv + 1);
	fprintf(stderr, "usage: fcse-trace convert IN OUT | info FILE | sim FILE [options] | "
		"mva PID VA... | bench [--seconds S] [FILE...]\n");
	return 2;
}
