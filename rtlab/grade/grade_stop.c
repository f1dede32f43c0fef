/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grade_stop: ending what a stopped grader started (see the header).
 *
 * The table is written by the (single-threaded) grader between forks and
 * read by the handler; entries are published with a volatile sig_atomic_t
 * flag last, so the handler never reads a half-written one.
 */
#include "grade_stop.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STOP_GRACE_NS 300000000L	/* between SIGTERM and SIGKILL */

struct stop_entry {
	pid_t pgid;
	uid_t uid;
	volatile sig_atomic_t used;
};

static struct stop_entry table[GRADE_STOP_MAX];
static volatile sig_atomic_t stopping;

/*
 * As root, kill every process of @uid: the box uid's leftovers, wherever
 * they went. True when there was one to kill.
 */
static bool kill_uid(uid_t uid)
{
	int status = 0;
	pid_t p;

	if (uid == (uid_t)-1 || uid == 0 || geteuid() != 0)
		return false;
	p = fork();
	if (p == 0) {
		if (!setresgid(uid, uid, uid) && !setresuid(uid, uid, uid))
			_exit(kill(-1, SIGKILL) == 0 ? 0 : 1);
		_exit(1);
	}
	if (p > 0)
		while (waitpid(p, &status, 0) < 0 && errno == EINTR)
			;
	return p > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

void grade_stop_kill_uid(uid_t uid)
{
	struct timespec pause = { 0, 20000000 };

	/* Until none is left (2 s at most): a SIGKILLed process may still be leaving. */
	for (int i = 0; i < 100 && kill_uid(uid); i++)
		nanosleep(&pause, NULL);
}

static void on_stop(int sig)
{
	struct timespec grace = { 0, STOP_GRACE_NS };
	int saved = errno;
	bool any = false;

	stopping = 1;
	for (size_t i = 0; i < GRADE_STOP_MAX; i++)
		if (table[i].used) {
			kill(-table[i].pgid, SIGTERM);
			any = true;
		}
	if (any)
		nanosleep(&grace, NULL);
	for (size_t i = 0; i < GRADE_STOP_MAX; i++)
		if (table[i].used) {
			kill(-table[i].pgid, SIGKILL);
			kill(table[i].pgid, SIGKILL);
			kill_uid(table[i].uid);
		}
	signal(sig, SIG_DFL);
	errno = saved;
	raise(sig);
}

void grade_stop_install(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigfillset(&sa.sa_mask);	/* one stop at a time */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

void grade_stop_reset(void)
{
	for (size_t i = 0; i < GRADE_STOP_MAX; i++)
		table[i].used = 0;
}

int grade_stop_add(pid_t pgid, uid_t uid)
{
	for (int i = 0; i < GRADE_STOP_MAX; i++)
		if (!table[i].used) {
			table[i].pgid = pgid;
			table[i].uid = uid;
			table[i].used = 1;
			return i;
		}
	return -1;
}

void grade_stop_del(int slot)
{
	if (slot >= 0 && slot < GRADE_STOP_MAX)
		table[slot].used = 0;
}

bool grade_stop_requested(void)
{
	return stopping;
}
