/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli_vm: `rtlab vm run|exec|pull|build`, the classroom VM from the command line.
 *
 *   run    boots one of the three kernels with the console on this terminal (rtlab starts
 *          inside; Ctrl-A x ends QEMU) and a QMP socket; the learner's progress lives on a
 *          small disk image in the state directory, so it survives a restart; --share DIR
 *          shows a host directory at /work inside;
 *   exec   boots headless, runs one shell command inside, prints its standard output and
 *          powers the VM off: `rtlab vm exec --kernel lab -- rtlab doctor --json`;
 *   pull   copies the VM's results documents and progress into the host's state
 *          (vm_pull.h), booting the VM to read its disk;
 *   build  builds the images for the three kernels (vm/build.sh from the data directory).
 *
 * Exit status: 0 success; 1 the VM or the command failed; 2 bad usage.
 */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <langinfo.h>
#include <stdarg.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <poll.h>
#include <pthread.h>
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include "core/rt_buf.h"
#include "core/rt_child.h"
#include "core/rt_json.h"
#include "core/rt_log.h"
#include "core/rt_parse.h"
#include "core/rt_time.h"
#include "core/rt_file.h"
#include "core/rt_paths.h"
#include "labs/lab_hypervisor_stream.h"
#include "qemu/qemu_console.h"
#include "qemu/qemu_qmp.h"
#include "qemu/qemu_run.h"
#include "vm/vm_pull.h"

static volatile sig_atomic_t vm_interrupted;

static void vm_on_signal(int sig)
{
	(void)sig;
	vm_interrupted = 1;
}

static void vm_catch_signals(void)
{
	struct sigaction sa = { .sa_handler = vm_on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* Options shared by run, exec and pull. */
struct vm_cli {
	struct qemu_run_opts o;
	const char *state;
	bool no_state;
	bool json;
	unsigned int timeout_s;
	const char *stream;	/* exec --stream: what the guest writes to its probe port */
};

enum vm_verb { VM_VERB_RUN, VM_VERB_EXEC, VM_VERB_PULL };

enum {
	OPT_KERNEL = 256, OPT_ACCEL, OPT_SMP, OPT_MEM, OPT_DIR, OPT_STATE, OPT_NO_STATE,
	OPT_TIMEOUT, OPT_BOOT_TIMEOUT, OPT_SHELL, OPT_APPEND, OPT_SHARE, OPT_JSON, OPT_STREAM,
	OPT_TIME,
};

static const struct option vm_longopts[] = {
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "accel", required_argument, NULL, OPT_ACCEL },
	{ "smp", required_argument, NULL, OPT_SMP },
	{ "mem", required_argument, NULL, OPT_MEM },
	{ "dir", required_argument, NULL, OPT_DIR },
	{ "state", required_argument, NULL, OPT_STATE },
	{ "no-state", no_argument, NULL, OPT_NO_STATE },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "boot-timeout", required_argument, NULL, OPT_BOOT_TIMEOUT },
	{ "shell", no_argument, NULL, OPT_SHELL },
	{ "append", required_argument, NULL, OPT_APPEND },
	{ "share", required_argument, NULL, OPT_SHARE },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "stream", required_argument, NULL, OPT_STREAM },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Does this terminal take UTF-8 (main() set the locale from the environment)? */
static bool vm_host_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
}

/* Returns -1 when parsing should go on, else an exit code. */
static int vm_parse(const struct cli_cmd *cmd, int argc, char **argv, struct vm_cli *v,
		    enum vm_verb verb)
{
	bool exec = verb == VM_VERB_EXEC, pull = verb == VM_VERB_PULL;
	unsigned int n;
	int c;

	memset(v, 0, sizeof(*v));
	v->o.kernel = exec ? QEMU_KERNEL_RT : QEMU_KERNEL_LAB;
	v->o.accel = QEMU_ACCEL_AUTO;
	v->o.time = QEMU_TIME_AUTO;
	v->o.stop = &vm_interrupted;
	v->o.utf8 = vm_host_utf8();
	v->timeout_s = pull ? 300 : 900;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:h", vm_longopts, NULL)) != -1) {
		switch (c) {
		case OPT_KERNEL:
			if (qemu_kernel_parse(optarg, &v->o.kernel) < 0)
				return cli_usage_error(cmd, "--kernel must be stock, rt, lab or fcse");
			break;
		case OPT_ACCEL:
			if (qemu_accel_parse(optarg, &v->o.accel) < 0)
				return cli_usage_error(cmd, "--accel must be auto, kvm or tcg");
			break;
		case OPT_TIME:
			if (pull)
				return cli_usage_error(cmd, "--time is for `vm run` and `vm exec`");
			if (qemu_time_parse(optarg, &v->o.time) < 0)
				return cli_usage_error(cmd, "--time must be auto, real or virtual");
			break;
		case OPT_SMP:
			if (rt_parse_uint("--smp", optarg, 1, 64, &v->o.smp, NULL) < 0)
				return cli_usage_error(cmd, "--smp must be 1..64");
			break;
		case OPT_MEM:
			if (rt_parse_uint("--mem", optarg, 128, 65536, &v->o.mem_mb, NULL) < 0)
				return cli_usage_error(cmd, "--mem must be 128..65536 (MiB)");
			break;
		case OPT_DIR:
			v->o.image_dir = optarg;
			break;
		case OPT_STATE:
			v->state = optarg;
			break;
		case OPT_NO_STATE:
			if (pull)
				return cli_usage_error(cmd, "pull reads the state disk: no --no-state");
			v->no_state = true;
			break;
		case OPT_TIMEOUT:
			if (verb == VM_VERB_RUN ||
			    rt_parse_uint("--timeout", optarg, 1, 86400, &v->timeout_s, NULL) < 0)
				return cli_usage_error(cmd, "--timeout takes 1..86400 seconds (exec "
						       "and pull)");
			break;
		case OPT_BOOT_TIMEOUT:
			if (rt_parse_uint("--boot-timeout", optarg, 1, 3600, &n, NULL) < 0)
				return cli_usage_error(cmd, "--boot-timeout must be 1..3600 seconds");
			v->o.boot_timeout_ms = n * 1000;
			break;
		case OPT_SHELL:
			if (verb != VM_VERB_RUN)
				return cli_usage_error(cmd, "--shell is for `vm run`");
			v->o.shell = true;
			break;
		case OPT_STREAM:
			if (!exec)
				return cli_usage_error(cmd, "--stream is for `vm exec`");
			v->stream = optarg;
			v->o.probe_port = true;
			break;
		case OPT_SHARE:
			if (pull)
				return cli_usage_error(cmd, "--share is for `vm run` and `vm exec`");
			v->o.share_dir = optarg;
			break;
		case OPT_JSON:
			if (!pull)
				return cli_usage_error(cmd, "--json is for `vm pull`");
			v->json = true;
			break;
		case OPT_APPEND: {
			char *why = NULL;

			if (qemu_append_check(optarg, &why) < 0) {
				c = cli_usage_error(cmd, "%s", why ? why : "bad --append");
				free(why);
				return c;
			}
			v->o.append = optarg;
			break;
		}
		case 'h':
			cli_cmd_help(cmd, stdout);
			return CLI_EXIT_OK;
		case ':':
			return cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (v->state && v->no_state)
		return cli_usage_error(cmd, "--state and --no-state exclude each other");
	if (v->o.time == QEMU_TIME_VIRTUAL && v->o.accel == QEMU_ACCEL_KVM)
		return cli_usage_error(cmd, "--time virtual needs TCG: KVM runs the guest on the "
				       "host's clock");
	if (v->o.time == QEMU_TIME_VIRTUAL && v->o.smp > 1)
		return cli_usage_error(cmd, "--time virtual runs one vCPU: no --smp %u",
				       v->o.smp);
	if (pull)
		v->o.time = QEMU_TIME_REAL;	/* a copy: nothing is measured */
	/* exec leaves the learner's state disk alone unless asked. */
	if (v->no_state || (exec && !v->state))
		v->o.state_image = "";
	else
		v->o.state_image = v->state;
	return -1;
}

static void vm_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "kvm", "tcg", or "tcg in virtual time" for the boot lines. */
static const char *vm_under(const struct qemu_session *s)
{
	if (qemu_session_virtual_time(s))
		return "tcg in virtual time (one vCPU)";
	return qemu_accel_name(qemu_session_accel(s));
}

static void vm_say(const char *fmt, ...)
{
	va_list ap;

	fputs("rtlab vm: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * Wait for the guest's ready line; when KVM was chosen automatically and the boot aborted
 * or stayed silent, say why in one line and boot again under TCG (qemu_session_fallback()).
 * @saved: the terminal to restore before saying anything, or NULL.
 */
static int vm_boot_wait(struct qemu_session *s, struct qemu_ready *ready,
			const struct termios *saved, char **cause)
{
	char *notice = NULL, *why = NULL;
	int ret;

	ret = qemu_session_wait_ready(s, ready, cause);
	if (ret == 0)
		return 0;
	ret = qemu_session_fallback(s, ret, &notice, &why);
	if (notice) {
		if (saved)
			tcsetattr(STDIN_FILENO, TCSANOW, saved);
		vm_say("notice: %s", notice);
		free(notice);
	}
	if (ret < 0) {
		if (why) {
			free(*cause);
			*cause = why;
		}
		return ret;
	}
	free(*cause);
	*cause = NULL;
	return qemu_session_wait_ready(s, ready, cause);
}

static int vm_run_main(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct qemu_session *s = NULL;
	struct qemu_ready ready = { 0 };
	struct vm_cli v;
	struct termios saved;
	struct winsize ws;
	bool tty = isatty(STDIN_FILENO);
	char *notice = NULL, *cause = NULL;
	int ret, status = CLI_EXIT_FAIL, qstatus;

	ret = vm_parse(cmd, argc, argv, &v, VM_VERB_RUN);
	if (ret >= 0)
		return ret;
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	v.o.interactive = true;
	v.o.term = getenv("TERM");
	if (tty && ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col && ws.ws_row) {
		v.o.cols = ws.ws_col;
		v.o.rows = ws.ws_row;
	}
	if (tty)
		tcgetattr(STDIN_FILENO, &saved);
	/* QEMU owns the raw terminal (no SIGINT from Ctrl-C); SIGTERM or SIGHUP end the VM. */
	vm_catch_signals();

	s = qemu_session_start(&v.o, &notice, &cause);
	if (notice)
		vm_say("notice: %s", notice);
	if (!s) {
		vm_say("%s", cause ? cause : strerror(errno));
		goto out;
	}
	vm_say("booting the %s kernel under %s (-cpu %s, QEMU pid %d); Ctrl-A x ends the VM, "
	       "Ctrl-A h lists the other keys", qemu_kernel_name(v.o.kernel),
	       vm_under(s), qemu_session_cpu(s), qemu_session_pid(s));
	if (v.o.share_dir)
		vm_say("%s is at " QEMU_SHARE_GUEST_PATH " in the VM", v.o.share_dir);
	ret = vm_boot_wait(s, &ready, tty ? &saved : NULL, &cause);
	if (ret < 0) {
		if (tty)
			tcsetattr(STDIN_FILENO, TCSANOW, &saved);
		vm_say("%s", cause);
		goto out;
	}
	ret = qemu_session_wait_exit(s, 0, &qstatus, &cause);
	if (tty)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	if (ret < 0) {
		vm_say("%s", cause);
		goto out;
	}
	vm_say("the VM stopped (boot to rtlab took %ld ms)", qemu_session_ready_ms(s));
	status = qstatus == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
out:
	qemu_ready_fini(&ready);
	qemu_session_free(s);
	if (tty)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	free(notice);
	free(cause);
	return status;
}

/*
 * Boot headless with v->o.run, wait for the VM to end, and give back the command's
 * standard output in @out (caller frees) and its exit status in @cstatus. Says on stderr
 * what went wrong and returns CLI_EXIT_FAIL; else CLI_EXIT_OK.
 */
/*
 * exec --stream: a thread that connects to the guest's probe port (QEMU's socket) and
 * copies what arrives into a file, reconnecting after a QEMU that ended (a fallback
 * boot starts another on the same path), until told to stop.
 */
struct stream_copy {
	const char *path;	/* the socket */
	int out;		/* the file */
	volatile int done;
	unsigned long long bytes;
};

static void *stream_copy_main(void *arg)
{
	struct stream_copy *c = arg;
	char buf[8192];

	while (!c->done) {
		int fd = qemu_socket_connect(c->path, 0, NULL, NULL);
		ssize_t n;

		if (fd < 0) {
			rt_time_sleep_ms(50, NULL);
			continue;
		}
		for (;;) {
			struct pollfd pf = { fd, POLLIN, 0 };

			if (poll(&pf, 1, 100) == 0) {
				if (c->done)
					break;
				continue;
			}
			n = read(fd, buf, sizeof(buf));
			if (n <= 0)
				break;
			if (rt_write_all(c->out, buf, (size_t)n))
				break;
			c->bytes += (unsigned long long)n;
		}
		close(fd);
	}
	return NULL;
}

static int vm_headless(struct vm_cli *v, char **out, int *cstatus)
{
	struct qemu_session *s = NULL;
	struct qemu_ready ready = { 0 };
	struct qemu_qmp *q;
	char qmp_status[32];
	const char *text;
	char *notice = NULL, *cause = NULL, *errs = NULL;
	size_t len;
	int ret, status = CLI_EXIT_FAIL, qstatus;
	struct stream_copy copy = { .out = -1 };
	pthread_t copier;
	bool copying = false;

	*out = NULL;
	vm_catch_signals();
	s = qemu_session_start(&v->o, &notice, &cause);
	if (notice)
		vm_say("notice: %s", notice);
	if (!s) {
		vm_say("%s", cause ? cause : strerror(errno));
		goto out;
	}
	if (v->stream) {
		copy.path = qemu_session_probe_path(s);
		copy.out = open(v->stream, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (copy.out < 0 || !copy.path) {
			vm_say("--stream %s: %s", v->stream, strerror(errno));
			goto out;
		}
		if (pthread_create(&copier, NULL, stream_copy_main, &copy)) {
			vm_say("--stream: cannot start its reader");
			goto out;
		}
		copying = true;
	}
	ret = vm_boot_wait(s, &ready, NULL, &cause);
	if (ret < 0) {
		vm_say("%s", cause);
		goto out;
	}
	q = qemu_session_qmp(s, &cause);
	if (q && qemu_qmp_status(q, qmp_status, sizeof(qmp_status), &cause) == 0) {
		vm_say("%s kernel %s ready after %ld ms under %s (-cpu %s, guest uptime %.2f s, "
		       "QMP status %s)", ready.kernel ? ready.kernel : "?",
		       ready.release ? ready.release : "?", qemu_session_ready_ms(s),
		       vm_under(s), qemu_session_cpu(s), ready.uptime_s,
		       qmp_status);
	} else {
		vm_say("ready after %ld ms, but QMP failed: %s", qemu_session_ready_ms(s),
		       cause ? cause : "unknown");
		goto out;
	}
	ret = qemu_session_wait_exit(s, v->timeout_s * 1000, &qstatus, &cause);
	if (ret < 0) {
		vm_say("%s", cause);
		goto out;
	}
	if (copying) {
		copy.done = 1;	/* QEMU ended: its socket gave the last bytes */
		pthread_join(copier, NULL);
		copying = false;
		vm_say("stream: %llu bytes from the guest's port %s to %s", copy.bytes,
		       QEMU_PROBE_PORT, v->stream);
	}
	text = qemu_session_console(s, &len);
	errs = qemu_console_stderr(text, len);
	if (errs && *errs)
		fputs(errs, stderr);
	ret = qemu_console_extract(text, len, qemu_session_nonce(s), out, cstatus);
	if (ret < 0) {
		char *tail = qemu_console_tail(text, len, 25);

		vm_say("%s; last console lines:\n%s", ret == -ENODATA ?
		       "the command's output was cut off (the VM stopped early)" :
		       "the VM stopped without running the command", tail ? tail : "");
		free(tail);
		goto out;
	}
	status = CLI_EXIT_OK;
out:
	if (copying) {
		copy.done = 1;
		pthread_join(copier, NULL);
	}
	if (copy.out >= 0)
		close(copy.out);
	qemu_ready_fini(&ready);
	qemu_session_free(s);
	free(errs);
	free(notice);
	free(cause);
	return status;
}

static int vm_exec_main(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct rt_buf line = RT_BUF_INIT;
	struct vm_cli v;
	char *out = NULL;
	int ret, status = CLI_EXIT_FAIL, cstatus;

	ret = vm_parse(cmd, argc, argv, &v, VM_VERB_EXEC);
	if (ret >= 0)
		return ret;
	if (optind >= argc)
		return cli_usage_error(cmd, "exec needs a command after --");
	for (int i = optind; i < argc; i++)
		if (rt_buf_printf(&line, "%s%s", i > optind ? " " : "", argv[i]) < 0)
			goto out;
	v.o.run = rt_buf_str(&line);
	if (vm_headless(&v, &out, &cstatus) != CLI_EXIT_OK)
		goto out;
	fputs(out, stdout);
	fflush(stdout);
	if (cstatus != 0) {
		vm_say("the command exited with status %d", cstatus);
		goto out;
	}
	status = CLI_EXIT_OK;
out:
	rt_buf_fini(&line);
	free(out);
	return status;
}

/* `rtlab vm pull --json`: rtlab.vm-pull/1 (doc/cli-json.md). */
static int vm_pull_print_json(const char *image, const struct vm_pull_report *r)
{
	json_t *items = json_array(), *changes = json_array(), *doc;
	char *text = NULL;
	int err = !items || !changes;

	for (size_t i = 0; !err && i < r->n; i++)
		err = json_array_append_new(items, json_pack("{s:s, s:s?, s:s, s:s?}",
			"guest", r->items[i].guest, "host", r->items[i].host,
			"action", vm_pull_action_name(r->items[i].action),
			"reason", r->items[i].reason));
	for (size_t i = 0; !err && i < r->nchanges; i++)
		err = json_array_append_new(changes, json_string(r->changes[i]));
	/* json_pack takes the arrays over, also when it fails. */
	doc = err ? NULL : json_pack("{s:s, s:s?, s:o, s:{s:b, s:s?, s:s?, s:o}}",
				     "schema", "rtlab.vm-pull/1", "state_image", image,
				     "results", items, "progress", "found", r->progress_found,
				     "path", r->progress_path, "kept", r->progress_kept,
				     "changes", changes);
	if (err) {
		json_decref(items);
		json_decref(changes);
	}
	if (doc)
		text = rt_json_dumps(doc, NULL);
	json_decref(doc);
	if (!text)
		return -ENOMEM;
	printf("%s\n", text);
	free(text);
	return 0;
}

/* The report for a person: names and notes come from the guest, so every field is escaped. */
static void vm_pull_print_text(const struct vm_pull_report *r)
{
	size_t kept = 0;

	if (!r->n)
		cli_text_printf(stdout, "results: the VM has no results documents\n");
	for (size_t i = 0; i < r->n; i++) {
		const struct vm_pull_item *it = &r->items[i];

		switch (it->action) {
		case VM_PULL_COPIED:
			cli_text_printf(stdout, "copied   %s -> %s\n", it->guest, it->host);
			break;
		case VM_PULL_SAME:
			cli_text_printf(stdout, "same     %s (already at %s)\n", it->guest, it->host);
			break;
		case VM_PULL_RENAMED:
			kept++;
			cli_text_printf(stdout, "renamed  %s -> %s (the host has another file of "
					"that name)\n", it->guest, it->host);
			break;
		case VM_PULL_SKIPPED:
			cli_text_printf(stdout, "skipped  %s: %s\n", it->guest, it->reason ? it->reason : "?");
			break;
		}
	}
	if (kept)
		cli_text_printf(stdout, "note: %zu document%s from the host's of the same name: "
				"both are kept, the VM's under a -vm name\n", kept,
				kept == 1 ? " differs" : "s differ");
	if (!r->progress_found)
		cli_text_printf(stdout, "progress: the VM has none\n");
	else if (r->progress_kept)
		cli_text_printf(stdout, "progress: the VM's could not be merged, kept as %s\n",
				r->progress_kept);
	else if (!r->nchanges)
		cli_text_printf(stdout, "progress: nothing new (%s)\n", r->progress_path);
	else
		cli_text_printf(stdout, "progress: merged into %s\n", r->progress_path);
	for (size_t i = 0; i < r->nchanges; i++)
		cli_text_printf(stdout, "  %s\n", r->changes[i]);
}

static int vm_pull_main(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct vm_pull_report r = { 0 };
	struct vm_cli v;
	struct stat st;
	char *image = NULL, *pulled = NULL, *out = NULL, *cause = NULL;
	int ret, status = CLI_EXIT_FAIL, cstatus;

	ret = vm_parse(cmd, argc, argv, &v, VM_VERB_PULL);
	if (ret >= 0)
		return ret;
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	image = v.state ? strdup(v.state) : rt_paths_state_file(QEMU_STATE_IMAGE_FILE);
	if (!image) {
		vm_say("no state directory: %s", strerror(errno));
		goto out;
	}
	if (stat(image, &st) < 0 || (S_ISREG(st.st_mode) && st.st_size == 0)) {
		if (stat(image, &st) < 0 && errno != ENOENT) {
			vm_say("%s: %s", image, strerror(errno));
			goto out;
		}
		vm_say("nothing to pull: no VM state disk at %s yet (`rtlab vm run` makes it)",
		       image);
		status = v.json && vm_pull_print_json(image, &r) < 0 ? CLI_EXIT_FAIL : CLI_EXIT_OK;
		goto out;
	}
	pulled = vm_pull_dir_new(&cause);
	if (!pulled) {
		vm_say("%s", cause);
		goto out;
	}
	v.o.state_image = image;
	v.o.share_dir = pulled;
	/* An image built before `vm pull` existed has no script: status 127 says so. */
	v.o.run = "if [ -r " VM_PULL_GUEST_SCRIPT " ]; then sh " VM_PULL_GUEST_SCRIPT " "
		  QEMU_SHARE_GUEST_PATH "; else exit 127; fi";
	vm_say("reading the VM's state disk %s through the %s kernel", image,
	       qemu_kernel_name(v.o.kernel));
	if (vm_headless(&v, &out, &cstatus) != CLI_EXIT_OK)
		goto out;
	if (cstatus != 0) {
		vm_say("the VM could not copy its files (status %d)%s%s%s", cstatus,
		       cstatus == 127 ? ": this image has no " VM_PULL_GUEST_SCRIPT
		       ", rebuild it (make vm, or rtlab vm build)" : "", *out ? ":\n" : "", out);
		goto out;
	}
	if (vm_pull_collect(pulled, NULL, &r, &cause) < 0) {
		vm_say("%s", cause ? cause : "cannot take in the VM's files");
		goto out;
	}
	if (!v.json)
		vm_pull_print_text(&r);
	else if (vm_pull_print_json(image, &r) < 0)
		goto out;
	status = CLI_EXIT_OK;
out:
	if (pulled && (ret = vm_pull_dir_remove(pulled)) < 0)
		vm_say("could not remove %s: %s", pulled, strerror(-ret));
	vm_pull_report_fini(&r);
	free(pulled);
	free(image);
	free(out);
	free(cause);
	return status;
}

/* The build script: vm/build.sh in the data directory (the source tree, or DATADIR). */
static int vm_build_main(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct rt_child_opts co = { .flags = RT_CHILD_SAME_PGRP };
	struct rt_child_result res;
	char *data = NULL, *script = NULL, *images = NULL, *cause = NULL, **av = NULL;
	char exe[PATH_MAX];
	ssize_t n;
	int status = CLI_EXIT_FAIL;

	for (int i = 1; i < argc; i++) {
		enum qemu_kernel k;

		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			cli_cmd_help(cmd, stdout);
			return CLI_EXIT_OK;
		}
		if (qemu_kernel_parse(argv[i], &k) < 0)
			return cli_usage_error(cmd, "build takes kernel names: stock, rt, lab, fcse");
	}
	data = rt_paths_data_dir();
	images = qemu_image_dir();
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (!data || !images || n <= 0) {
		vm_say("cannot find the data directory or the image directory");
		goto out;
	}
	exe[n] = '\0';
	if (asprintf(&script, "%s/vm/build.sh", data) < 0)
		goto out;
	if (access(script, X_OK) < 0) {
		vm_say("%s: %s", script, strerror(errno));
		goto out;
	}
	vm_say("building into %s (RTLAB_VM_DIR overrides)", images);
	av = calloc((size_t)argc + 4, sizeof(*av));
	if (!av)
		goto out;
	av[0] = script;
	av[1] = images;
	av[2] = exe;
	for (int i = 1; i < argc; i++)
		av[2 + i] = argv[i];
	/* On this terminal, in its foreground group: Ctrl-C ends the build with us. */
	co.argv = av;
	if (rt_child_run(&co, RT_CHILD_FOREVER, &res, &cause) == 0 && res.end == RT_CHILD_EXITED &&
	    res.code == 0)
		status = CLI_EXIT_OK;
	else
		vm_say("the build failed%s%s", cause ? ": " : "", cause ? cause : "");
	rt_child_result_fini(&res);
out:
	free(av);
	free(cause);
	free(data);
	free(script);
	free(images);
	return status;
}

/* ---- stream: the guest's side of the hypervisor lab ---------------------------------- */

static volatile sig_atomic_t stream_stop;

static void stream_on_signal(int sig)
{
	(void)sig;
	stream_stop = 1;
}

static int vm_stream_main(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct hypervisor_stream_opts o = { .fd = -1, .policy = SCHED_FIFO, .priority = 80,
				    .period_us = 1000, .duration_s = 10, .bucket_us = 1,
				    .nbuckets = 10000, .mlock = true, .stop = &stream_stop };
	const char *port = QEMU_PROBE_PORT, *out = NULL;
	struct hypervisor_stream_sent sent;
	char *dev = NULL, *cause = NULL;
	bool serve = false;
	int ret;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int bad = 0;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			cli_cmd_help(cmd, stdout);
			return CLI_EXIT_OK;
		}
		if (!strcmp(a, "--serve")) {
			serve = true;
			continue;
		}
		if (!v)
			return cli_usage_error(cmd, "stream: '%s' needs a value", a);
		i++;
		if (!strcmp(a, "--port")) {
			port = v;
		} else if (!strcmp(a, "--out")) {
			out = v;
		} else if (!strcmp(a, "--policy")) {
			o.policy = !strcmp(v, "fifo") ? SCHED_FIFO : !strcmp(v, "rr") ? SCHED_RR :
				   !strcmp(v, "other") ? SCHED_OTHER : -1;
			bad = o.policy < 0;
		} else if (!strcmp(a, "--prio")) {
			bad = rt_parse_int("--prio", v, 0, 99, &o.priority, &cause);
		} else if (!strcmp(a, "--period")) {
			bad = rt_parse_uint("--period", v, 100, 1000000, &o.period_us, &cause);
		} else if (!strcmp(a, "--duration")) {
			bad = rt_parse_uint("--duration", v, 1, 3600, &o.duration_s, &cause);
		} else {
			return cli_usage_error(cmd, "stream: unknown option '%s'", a);
		}
		if (bad) {
			ret = cli_usage_error(cmd, "stream: %s", cause ? cause : "bad --policy");
			free(cause);
			return ret;
		}
	}
	if (o.policy == SCHED_OTHER)
		o.priority = 0;
	else if (!o.priority)
		return cli_usage_error(cmd, "stream: --prio 1..99 for fifo and rr");
	if (serve && out)
		return cli_usage_error(cmd, "stream: --serve answers the host on the port, not "
				       "into a file (--out)");
	if (out) {
		o.fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		o.mlock = false;
	} else {
		dev = hypervisor_port_device(port);
		if (!dev) {
			vm_say("stream: no virtio-serial port named %s (/sys/class/virtio-ports): "
			       "this runs inside the classroom VM the hypervisor lab starts, or "
			       "with --out FILE", port);
			return CLI_EXIT_FAIL;
		}
		o.fd = open(dev, (serve ? O_RDWR : O_WRONLY) | O_CLOEXEC);
	}
	if (o.fd < 0) {
		vm_say("stream: %s: %s", out ? out : dev, strerror(errno));
		free(dev);
		return CLI_EXIT_FAIL;
	}
	signal(SIGINT, stream_on_signal);
	signal(SIGTERM, stream_on_signal);
	signal(SIGPIPE, SIG_IGN);
	if (serve) {
		char *disk = hypervisor_scratch_device();
		struct hypervisor_serve_opts so = { .fd = o.fd, .disk = disk, .mlock = true,
					    .stop = &stream_stop, .idle_s = 600 };
		unsigned int runs = 0;

		ret = hypervisor_stream_serve(&so, &runs, &cause);
		close(o.fd);
		if (ret)
			vm_say("stream: serving the host: %s", cause ? cause : strerror(-ret));
		else
			vm_say("stream: %u runs served on %s", runs, dev);
		free(disk);
		free(cause);
		free(dev);
		return ret ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	}
	ret = hypervisor_stream_run(&o, &sent, &cause);
	close(o.fd);
	if (ret)
		vm_say("stream: %s", cause ? cause : strerror(-ret));
	else
		vm_say("stream: %llu samples in %llu seconds, %llu frames to %s",
		       (unsigned long long)sent.samples, (unsigned long long)sent.seconds,
		       (unsigned long long)sent.frames, out ? out : dev);
	free(cause);
	free(dev);
	return ret ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

static int vm_main(const struct cli_cmd *cmd, int argc, char **argv)
{
	if (argc < 2)
		return cli_usage_error(cmd, "which one: run, exec, pull or build?");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		cli_cmd_help(cmd, stdout);
		return CLI_EXIT_OK;
	}
	if (!strcmp(argv[1], "run"))
		return vm_run_main(cmd, argc - 1, argv + 1);
	if (!strcmp(argv[1], "exec"))
		return vm_exec_main(cmd, argc - 1, argv + 1);
	if (!strcmp(argv[1], "pull"))
		return vm_pull_main(cmd, argc - 1, argv + 1);
	if (!strcmp(argv[1], "build"))
		return vm_build_main(cmd, argc - 1, argv + 1);
	if (!strcmp(argv[1], "stream"))
		return vm_stream_main(cmd, argc - 1, argv + 1);
	return cli_usage_error(cmd, "unknown subcommand '%s'", argv[1]);
}

const struct cli_cmd cli_cmd_vm = {
	.name = "vm",
	.usage = "run [--kernel stock|rt|lab|fcse] [--accel auto|kvm|tcg] [--time auto|real|virtual]\n"
		 "          [--smp N] [--mem MIB] [--shell] [--share DIR] [--append PARAMS]\n"
		 "   or: rtlab vm exec [--kernel K] [--accel A] [--time T] [--share DIR]\n"
		 "          [--append PARAMS] [--timeout S] [--stream FILE] -- COMMAND...\n"
		 "   or: rtlab vm pull [--kernel K] [--accel A] [--state FILE] [--json]\n"
		 "   or: rtlab vm build [stock|rt|lab|fcse]...\n"
		 "   or: rtlab vm stream [--port NAME | --out FILE] [--policy fifo|rr|other]\n"
		 "          [--prio N] [--period US] [--duration S]\n"
		 "   or: rtlab vm stream --serve [--port NAME]",
	.summary = "boot the classroom VM (stock, PREEMPT_RT or lab kernel) in QEMU",
	.help = "The workflow (doc/vm.md): `rtlab vm run --shell` gives a shell in the VM\n"
		"(poweroff ends it); the VM keeps its own progress and results on its disk,\n"
		"vm-state.img in the state directory, at /state/rtlab inside; after it stopped,\n"
		"`rtlab vm pull` copies them into the host's state; `--share DIR` shows a host\n"
		"directory at /work inside.\n"
		"\n"
		"run boots the classroom VM with its console on this terminal; rtlab starts\n"
		"inside, and quitting it leaves a shell. Ctrl-A x ends QEMU. The console gets\n"
		"this terminal's TERM (xterm-256color when the image has no description of it)\n"
		"and size, and C.UTF-8 when this locale is UTF-8. KVM is used only when the\n"
		"doctor's KVM test guest runs and a Linux guest booted under it (tried once per\n"
		"host boot, up to 30 s, with -cpu host, then host without the MSR features\n"
		"nested hosts refuse, then max; the model that booted is used); else TCG\n"
		"emulation, with a one-line notice naming the reason. With --accel auto, a KVM\n"
		"boot that aborts, prints nothing for 10 s or misses the boot timeout is started\n"
		"again under TCG with such a notice; --accel kvm fails with the reason instead.\n"
		"Under TCG the VM runs in virtual time unless more than one vCPU is asked for:\n"
		"its clock counts the instructions it executes (1 ns each), so what a lab\n"
		"measures in it is the kernel's own code paths, the same from run to run and\n"
		"whatever this machine's load, with one vCPU; not caches, SMIs or other CPUs.\n"
		"Every document measured there records env.time \"virtual\" and says so.\n"
		"--time real (with --smp 2 for the isolation lesson) gives the host's clock.\n"
		"A QMP socket is opened for the labs that drive the hypervisor. Progress is kept\n"
		"on a small disk image in the state directory, so it survives a restart; it is\n"
		"locked while a VM runs. A boot that does not reach rtlab within the boot\n"
		"timeout fails with the console's last lines.\n"
		"\n"
		"exec boots headless, runs COMMAND (joined by spaces, run by the guest's sh;\n"
		"no double quotes) inside, prints its standard output and powers off. Its\n"
		"exit status is 0 only when the command succeeded. It uses no state disk\n"
		"unless --state is given.\n"
		"\n"
		"pull boots the VM headless with its state disk to copy its results documents\n"
		"(/state/rtlab/results/*.json and /state/*.json) into the host's results\n"
		"folder and merge its progress into the host's, per lesson, question and lab,\n"
		"losing neither side. It never replaces a host file: a document the host has\n"
		"under the same name with other content is kept beside it as NAME-vm.json.\n"
		"\n"
		"build builds the images of the given kernels (default stock, rt and lab) into\n"
		"the image directory: Debian's stock and rt kernels are fetched with apt-get\n"
		"download; the lab kernel is compiled (about 4 minutes on 2 cores). fcse is\n"
		"the ARM image (QEMU's versatilepb board, an ARM926EJ-S): our 6.12 kernel\n"
		"cross-compiled with arm-linux-gnueabi-gcc, Debian's armel busybox and the\n"
		"static ARM probe rtlab-probe; `--kernel fcse` boots it under TCG with a\n"
		"shell (no rtlab inside), its channel on the second serial port, no --share.\n"
		"\n"
		"stream is the guest's side of the hypervisor lab's live part: inside the VM it\n"
		"runs the latency probe (default SCHED_FIFO 80, 1000 us, 10 s) and sends its\n"
		"results to the host over the virtio-serial port rtlab.probe, framed and\n"
		"checksummed (core/rt_hvstream.h): a summary per second, then the histogram\n"
		"(1 us buckets). --out FILE writes the same bytes to a file instead.\n"
		"--serve keeps the port open and runs the probe once per command the host\n"
		"writes to it (`rtlab lab run hypervisor --live` does, between its changes to\n"
		"QEMU's host threads), with the guest workload the command names: a busy loop\n"
		"(batch) and O_DIRECT writes to the scratch disk rtlab-scratch (disk).\n"
		"\n"
		"Options:\n"
		"  --kernel K          stock (Debian 6.1), rt (Debian 6.1 PREEMPT_RT), lab\n"
		"                      (6.12 PREEMPT_RT with the latency tracers) or fcse\n"
		"                      (6.12 on ARM versatilepb, TCG only, one CPU, at most\n"
		"                      256 MiB); run and pull: lab, exec: rt\n"
		"  --accel A           auto (default), kvm or tcg\n"
		"  --time T            run, exec: the guest's clock: auto (default: virtual\n"
		"                      under TCG unless --smp is above 1, real under KVM),\n"
		"                      real, or virtual (TCG, one vCPU)\n"
		"  --smp N             virtual CPUs (default 2; 1 in virtual time and on fcse)\n"
		"  --mem MIB           memory in MiB (default 1024; 256 on fcse)\n"
		"  --shell             run: start a shell instead of rtlab\n"
		"  --share DIR         run, exec: the host directory DIR at /work in the VM,\n"
		"                      read-write over virtio-9p (what the VM creates there is\n"
		"                      yours, mode 0600); shells and commands start there\n"
		"  --append PARAMS     add kernel parameters, e.g. 'isolcpus=1 nohz_full=1'\n"
		"                      (printable ASCII, at most 512 bytes, no double quote,\n"
		"                      no rtlab.*, console=, init= or rdinit=)\n"
		"  --dir DIR           image directory (default: $RTLAB_VM_DIR, the build\n"
		"                      tree's vm/images, or ~/.cache/rtlab/vm/images)\n"
		"  --state FILE        the state disk image (run and pull default: vm-state.img\n"
		"                      in the state directory)\n"
		"  --no-state          no state disk\n"
		"  --boot-timeout S    give up when rtlab is not up after S seconds (default\n"
		"                      120 under TCG, 30 under KVM)\n"
		"  --timeout S         exec, pull: give up after S seconds (default 900, 300)\n"
		"                      (in virtual time both count the CPU QEMU got, so load\n"
		"                      slows a VM down but does not time it out sooner)\n"
		"  --json              pull: print rtlab.vm-pull/1 (doc/cli-json.md)\n"
		"  --stream FILE       exec: give the guest the virtio-serial port rtlab.probe\n"
		"                      and write what it sends there (rtlab vm stream) to FILE\n"
		"  -h, --help          show this help\n"
		"\n"
		"Exit status: 0 success; 1 the VM or the command failed; 2 bad usage.\n",
	.main = vm_main,
};
