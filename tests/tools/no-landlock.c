/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * no-landlock: run a command on a kernel that seems to have no Landlock.
 * A seccomp filter (inherited by everything the command starts) makes the
 * three Landlock system calls fail with ENOSYS, as on a kernel built
 * without it: the stand-in for a machine whose grader cannot fence files.
 *
 * Usage: no-landlock COMMAND [ARG...]
 */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static const char *const calls[] = { "landlock_create_ruleset", "landlock_add_rule",
					     "landlock_restrict_self" };
	scmp_filter_ctx ctx;
	int ret = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: no-landlock COMMAND [ARG...]\n");
		return 2;
	}
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return 1;
	for (size_t i = 0; !ret && i < sizeof(calls) / sizeof(calls[0]); i++) {
		int nr = seccomp_syscall_resolve_name(calls[i]);

		if (nr != __NR_SCMP_ERROR)
			ret = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
	}
	if (!ret)
		ret = seccomp_load(ctx);
	seccomp_release(ctx);
	if (ret) {
		fprintf(stderr, "no-landlock: cannot load the filter: %s\n", strerror(-ret));
		return 1;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "no-landlock: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
