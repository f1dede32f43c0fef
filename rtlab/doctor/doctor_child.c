/*
 * doctor_child: one fork-and-wait routine serves both programs and
 * functions. The parent never blocks without a deadline: the pipe is polled
 * with the time left, and the child is reaped with WNOHANG in short sleeps,
 * because a child stuck inside an ioctl (KVM_RUN of a broken nested guest)
 * may stay unkillable for a while and must not take the doctor with it.
 */
#include "doctor_child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHILD_OUTPUT_MAX (64u * 1024)
/* After SIGKILL, how long we wait for the child to go. */
#define CHILD_REAP_MS 1000
/* Searched after $PATH: sbin holds tools (ip) that users may run too. */
#define CHILD_DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Runs in the child: never returns. */
static void child_start(int out_fd, int (*fn)(void *), void *arg, char *const argv[])
{
	int null_fd;

	setpgid(0, 0);
	signal(SIGPIPE, SIG_DFL);
	null_fd = open("/dev/null", O_RDONLY);
	if (null_fd >= 0 && null_fd != 0) {
		dup2(null_fd, 0);
		close(null_fd);
	}
	dup2(out_fd, 1);
	dup2(out_fd, 2);
	if (argv) {
		const char *msg;

		execvp(argv[0], argv);
		msg = strerror(errno);
		if (write(2, argv[0], strlen(argv[0])) < 0 || write(2, ": ", 2) < 0 ||
		    write(2, msg, strlen(msg)) < 0 || write(2, "\n", 1) < 0)
			_exit(127);
		_exit(127);
	}
	_exit(fn(arg) & 0xff);
}

/* Append what can be read now to @out (dropping what exceeds the cap). */
static int drain(int fd, char *out, size_t *len)
{
	char chunk[4096];
	ssize_t n = read(fd, chunk, sizeof(chunk));

	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : 0;
	if (n == 0)
		return 0;
	if (*len < CHILD_OUTPUT_MAX) {
		size_t keep = (size_t)n;

		if (keep > CHILD_OUTPUT_MAX - *len)
			keep = CHILD_OUTPUT_MAX - *len;
		memcpy(out + *len, chunk, keep);
		*len += keep;
	}
	return 1;
}

/* Reap @pid before @deadline; true when it is gone, with its status. */
static bool reap_until(pid_t pid, long long deadline, int *status)
{
	for (;;) {
		pid_t got = waitpid(pid, status, WNOHANG);

		if (got == pid)
			return true;
		if (got < 0 && errno != EINTR)
			return true;	/* not our child any more: nothing to wait for */
		if (now_ms() >= deadline)
			return false;
		sleep_ms(5);
	}
}

static int child_run(int (*fn)(void *), void *arg, char *const argv[], unsigned int timeout_ms,
		     struct doctor_child_result *res)
{
	long long deadline = now_ms() + timeout_ms;
	int pipefd[2], status = 0, ret = 0;
	bool open_pipe = true;
	size_t len = 0;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	res->output = malloc(CHILD_OUTPUT_MAX + 1);
	if (!res->output)
		return -ENOMEM;
	res->output[0] = '\0';
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		ret = -errno;
		goto out_free;
	}
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(pipefd[0]);
		close(pipefd[1]);
		goto out_free;
	}
	if (pid == 0)
		child_start(pipefd[1], fn, arg, argv);
	/* Also here, so the group exists whichever of the two runs first. */
	setpgid(pid, pid);
	close(pipefd[1]);
	res->pid = pid;

	while (open_pipe) {
		struct pollfd pfd = { .fd = pipefd[0], .events = POLLIN };
		long long left = deadline - now_ms();
		int n;

		if (left <= 0)
			break;
		n = poll(&pfd, 1, (int)left);
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0)
			open_pipe = drain(pipefd[0], res->output, &len) > 0;
	}
	close(pipefd[0]);
	res->output[len] = '\0';

	if (reap_until(pid, deadline, &status)) {
		res->end = WIFSIGNALED(status) ? DOCTOR_CHILD_SIGNALED : DOCTOR_CHILD_EXITED;
		res->code = WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status);
		return 0;
	}
	/* Late: kill its group (ours alone, created above), then the child itself. */
	res->end = DOCTOR_CHILD_TIMEOUT;
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	res->unreaped = !reap_until(pid, now_ms() + CHILD_REAP_MS, &status);
	return 0;

out_free:
	free(res->output);
	res->output = NULL;
	return ret;
}

int doctor_child_exec(char *const argv[], unsigned int timeout_ms,
		      struct doctor_child_result *res)
{
	return child_run(NULL, NULL, argv, timeout_ms, res);
}

int doctor_child_call(int (*fn)(void *arg), void *arg, unsigned int timeout_ms,
		      struct doctor_child_result *res)
{
	return child_run(fn, arg, NULL, timeout_ms, res);
}

void doctor_child_result_fini(struct doctor_child_result *res)
{
	free(res->output);
	res->output = NULL;
}

char *doctor_which(const char *prog)
{
	const char *env = getenv("PATH");
	char *paths = NULL, *save = NULL, *found = NULL;

	if (strchr(prog, '/')) {
		if (access(prog, X_OK) == 0)
			return strdup(prog);
		errno = ENOENT;
		return NULL;
	}
	if (asprintf(&paths, "%s:%s", env ? env : "", CHILD_DEFAULT_PATH) < 0)
		return NULL;
	for (char *dir = strtok_r(paths, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		char *cand = NULL;

		if (dir[0] != '/')
			continue;	/* a relative PATH entry would depend on the cwd */
		if (asprintf(&cand, "%s/%s", dir, prog) < 0)
			break;
		if (access(cand, X_OK) == 0) {
			found = cand;
			break;
		}
		free(cand);
	}
	free(paths);
	if (!found)
		errno = ENOENT;
	return found;
}
