# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by lib/tap.bash and lib/tmux.bash (sourced by them, after they set
# tmp, n, fails and not_ok): helpers every kind of test may use, and a guard.
#
# The guard: a command that is not found (a helper a test calls but no
# library defines, a typo) makes the test fail. Without it "if can_switch"
# with can_switch undefined is false, and the checks it guards were skipped
# on every machine without a word. Bash runs command_not_found_handle in a
# subshell, so it notes the name in a file that tap_done reads. Probe for an
# optional program with "command -v", never by running it.

command_not_found_handle() {
	echo "${BASH_SOURCE[1]:-test}: line ${BASH_LINENO[0]}: $1: command not found" \
		>>"$tmp/.missing-commands"
	echo "bash: $1: command not found" >&2
	return 127
}
# helpers_missing_check: a failing test point for the commands not found so far.
helpers_missing_check() {
	[ -s "$tmp/.missing-commands" ] || return 0
	sort -u "$tmp/.missing-commands" | sed 's/^/# /'
	not_ok "every command the test ran exists"
	: >"$tmp/.missing-commands"
}

# can_switch: true when this test may run commands as another user (root, setpriv).
can_switch() { [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; }
# as_nobody CMD...: CMD as user nobody, with a home, state and journal of its
# own; "rtlab" as CMD runs a copy of $RTLAB that nobody can reach (a build
# tree under /root is not). $tmp is opened to others for it: mktemp made it 0700.
as_nobody() {
	chmod go+x "$tmp" && mkdir -p "$tmp/nobody" && chown 65534:65534 "$tmp/nobody" || return 1
	if [ "$1" = rtlab ]; then
		shift
		[ -x "$tmp/rtlab-copy" ] || install -m 0755 "$RTLAB" "$tmp/rtlab-copy" || return 1
		set -- "$tmp/rtlab-copy" "$@"
	fi
	env HOME="$tmp/nobody" XDG_STATE_HOME="$tmp/nobody/state" \
		RTLAB_JOURNAL_DIR="$tmp/nobody/j" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}
