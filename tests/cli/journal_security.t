#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Journals rtlab must not trust (issue 10, section 2, and the journal FIFO of
# section 3). A journal is a list of things to write and remove as whoever
# replays it, so:
#   - as root, journals planted in a directory a user controls
#     (RTLAB_JOURNAL_DIR, XDG_STATE_HOME, HOME) are never replayed: root
#     keeps its journals in /run/rtlab and ignores those variables;
#   - even in /run/rtlab, an entry naming a path outside its kind's rules (a
#     canary file to write, a canary file to unlink, a canary directory to
#     remove) is refused, while allowed entries are replayed;
#   - a FIFO named like a journal hangs no command, and is left alone;
#   - as another user, a directory others can write is not trusted, and a
#     journal of root's found there is left alone, not renamed, and the
#     warning says it is root's.
# Root cases with /run/rtlab run in a private mount namespace whose
# /run/rtlab is an empty tmpfs, so journals of other rtlab processes on the
# machine are neither seen nor touched. Needs RTLAB and SRCDIR; root for most
# cases (skipped otherwise), setpriv for the other-user ones. About 5 s.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"
. "$SRCDIR/tests/cli/lib/journal.bash"

n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
check() { # check DESC CONDITION...
	local desc=$1
	shift
	if "$@"; then
		ok "$desc"
	else
		not_ok "$desc"
		sed 's/^/#   stderr: /' "$tmp/err" 2>/dev/null | head -n 12
	fi
}
not() { ! "$@"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"
export tmp RTLAB SRCDIR
unset RTLAB_JOURNAL_DIR XDG_STATE_HOME
root=false
[ "$(id -u)" = 0 ] && root=true

# The canaries: a file a "file" entry would write, a file a "netns" entry
# would unlink, a directory an "instance" entry would remove.
canaries() {
	rm -rf "$tmp/canary"
	mkdir -p "$tmp/canary/dir"
	printf 'canary\n' >"$tmp/canary/file"
	: >"$tmp/canary/ns"
}
canaries_intact() {
	[ "$(cat "$tmp/canary/file" 2>/dev/null)" = canary ] && [ -f "$tmp/canary/ns" ] &&
		[ -d "$tmp/canary/dir" ]
}
evil_entries=(
	"file \"$tmp/canary/file\" \"pwned\\x0a\""
	"netns \"$tmp/canary/ns\""
	"instance \"$tmp/canary/dir\""
)

# ---- root: journals in directories a user controls are never read -------------

if $root && command -v setpriv >/dev/null; then
	nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	# run_root ENV... : `rtlab lesson list` as root with that environment.
	run_root() {
		env -u RTLAB_JOURNAL_DIR -u XDG_STATE_HOME "$@" timeout 60 "$RTLAB" lesson list \
			>"$tmp/out" 2>"$tmp/err" </dev/null
	}

	canaries
	mkdir -m 0777 "$tmp/open"
	chmod 0777 "$tmp/open"
	pid=$(dead_pid)
	plant_journal "$tmp/open" "$pid" "${evil_entries[@]}"
	run_root RTLAB_JOURNAL_DIR="$tmp/open"
	check "as root, RTLAB_JOURNAL_DIR=<a 0777 dir>: its journal writes, unlinks, removes nothing" \
		canaries_intact
	check "and the planted journal is left where it was" test -f "$tmp/open/$pid.journal"

	canaries
	mkdir -m 0700 "$tmp/theirs"
	chown 65534:65534 "$tmp/theirs"
	pid=$(dead_pid)
	nobody bash -c "$(declare -f plant_journal); plant_journal '$tmp/theirs' $pid \"\$@\"" \
		bash "${evil_entries[@]}"
	run_root RTLAB_JOURNAL_DIR="$tmp/theirs"
	check "as root, RTLAB_JOURNAL_DIR=<nobody's dir>: nothing is touched" canaries_intact

	canaries
	mkdir -m 0700 "$tmp/rootdir"
	pid=$(dead_pid)
	plant_journal "$tmp/rootdir" "$pid" "${evil_entries[@]}"
	run_root RTLAB_JOURNAL_DIR="$tmp/rootdir"
	check "as root, RTLAB_JOURNAL_DIR is ignored even for a root-owned 0700 dir" \
		eval 'canaries_intact && test -f "$tmp/rootdir/$pid.journal"'

	# VAR=DIR JOURNALS: the state directory VAR names, and where its journals go.
	for case in "XDG_STATE_HOME=$tmp/xdg rtlab/journal" \
		    "HOME=$tmp/home .local/state/rtlab/journal"; do
		set -- $case
		var=${1%%=*}
		dir=${1#*=}
		canaries
		mkdir -p "$dir/$2"
		pid=$(dead_pid)
		plant_journal "$dir/$2" "$pid" "${evil_entries[@]}"
		chown -R 65534:65534 "$dir"
		run_root "$1"
		check "as root, $var=<nobody's dir>: nothing is touched" canaries_intact
		check "and the journal there is still there, not renamed" \
			test -f "$dir/$2/$pid.journal"
	done

	env RTLAB_JOURNAL_DIR="$tmp/open" XDG_STATE_HOME="$tmp/xdg" HOME="$tmp/home" \
		"$RTLAB" doctor --json >"$tmp/out" 2>"$tmp/err"
	check "as root, doctor reports /run/rtlab as the journal directory, whatever is set" \
		grep -q '"dir": *"/run/rtlab"' "$tmp/out"
else
	for t in "RTLAB_JOURNAL_DIR 0777" "planted journal left" "nobody's dir" \
		 "root-owned dir ignored" "XDG_STATE_HOME" "XDG journal left" "HOME" \
		 "HOME journal left" "doctor says /run/rtlab"; do
		skip "as root: $t (needs root and setpriv)"
	done
fi

# ---- root, in /run/rtlab (private mount namespace) ------------------------------

ns=false
if $root && unshare --mount --propagation private true 2>/dev/null; then
	ns=true
fi
# in_ns SCRIPT: run bash SCRIPT in a private mount namespace whose /run/rtlab is
# an empty root-owned tmpfs of mode 0700. The script's stdout/stderr are ours.
# RTLAB_JOURNAL_DIR points there too: root ignores it, but an rtlab that still
# honoured it would read the same journals, and so fail these checks.
in_ns() {
	mkdir -p -m 0700 /run/rtlab
	RTLAB_JOURNAL_DIR=/run/rtlab unshare --mount --propagation private bash -c '
		mount -t tmpfs -o mode=0700 rtlab-test /run/rtlab || exit 99
		. "$SRCDIR/tests/cli/lib/journal.bash"
		eval "$1"' bash "$1"
}

if $ns; then
	canaries
	in_ns '
		pid=$(dead_pid)
		plant_journal /run/rtlab "$pid" \
			"file \"$tmp/canary/file\" \"pwned\\x0a\"" \
			"file \"/sys/kernel/tracing/../../..$tmp/canary/file\" \"pwned\"" \
			"netns \"$tmp/canary/ns\"" "netns \"/run/netns/../..$tmp/canary/ns\"" \
			"instance \"$tmp/canary/dir\""
		timeout 60 "$RTLAB" lesson list >"$tmp/out" 2>"$tmp/err" </dev/null
		test -e /run/rtlab/$pid.journal && echo left >"$tmp/state"'
	check "in /run/rtlab, entries naming paths outside their kind are not acted on" \
		canaries_intact
	check "the journal was replayed (its refused entries skipped) and removed" \
		not test -e "$tmp/state"
	check "each refusal is reported with the path" \
		eval '[ "$(grep -c "refused to restore" "$tmp/err")" -eq 5 ] &&
		      grep -q "refused to restore the value of $tmp/canary/file: not a knob" "$tmp/err"'

	T=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
	if [ "$T" = /sys/kernel/tracing ] && [ -d "$T/instances" ]; then
		a=rtlab-jsec-a-$$
		b=rtlab-jsec-b-$$
		mkdir "$T/instances/$a" "$T/instances/$b"
		echo 0 >"$T/instances/$a/tracing_on"
		export T a b
		in_ns '
			plant_journal /run/rtlab "$(dead_pid)" "file \"$T/instances/$a/tracing_on\" \"1\\x0a\""
			plant_journal /run/rtlab "$(dead_pid)" "instance \"$T/instances/$b\""
			timeout 60 "$RTLAB" lesson list >"$tmp/out" 2>"$tmp/err" </dev/null'
		check "in /run/rtlab, an allowed tracefs knob is restored" \
			[ "$(cat "$T/instances/$a/tracing_on")" = 1 ]
		check "and an rtlab instance is removed" not test -d "$T/instances/$b"
		rmdir "$T/instances/$a" "$T/instances/$b" 2>/dev/null
	else
		skip "allowed tracefs knob restored (tracefs is not at /sys/kernel/tracing)"
		skip "rtlab instance removed (tracefs is not at /sys/kernel/tracing)"
	fi

	# A FIFO named like a journal: no command may block on it.
	for cmd in "lesson list" "grade" "doctor --restore" "lab list"; do
		in_ns "
			mkfifo /run/rtlab/\$(dead_pid).journal
			timeout 60 \"\$RTLAB\" $cmd >\"\$tmp/out\" 2>\"\$tmp/err\" </dev/null
			echo \$? >\"\$tmp/rc\"
			ls -l /run/rtlab | grep -c '^p' >\"\$tmp/fifos\""
		check "a FIFO journal in /run/rtlab does not hang \`rtlab $cmd\` (exit $(cat "$tmp/rc"))" \
			[ "$(cat "$tmp/rc")" != 124 ]
		check "\`rtlab $cmd\` leaves the FIFO alone and says what it is" \
			eval '[ "$(cat "$tmp/fifos")" = 1 ] && cat "$tmp/err" "$tmp/out" | grep -q "\.journal is a FIFO"'
	done
else
	for t in "refused entries untouched" "journal replayed" "refusals reported" \
		 "knob restored" "instance removed"; do
		skip "in /run/rtlab: $t (needs root and unshare)"
	done
	for cmd in "lesson list" "grade" "doctor --restore" "lab list"; do
		skip "FIFO journal vs rtlab $cmd (needs root and unshare)"
		skip "FIFO left alone by rtlab $cmd (needs root and unshare)"
	done
fi

# ---- another user ---------------------------------------------------------------

# as_user CMD...: as nobody when we are root, else as ourselves; HOME in $tmp.
if $root && command -v setpriv >/dev/null; then
	mkdir -p "$tmp/u"
	chown 65534:65534 "$tmp/u"
	install -m 0755 "$RTLAB" "$tmp/rtlab"
	as_user() {
		env -u RTLAB_JOURNAL_DIR -u XDG_STATE_HOME HOME="$tmp/u" RTLAB_DATADIR="$SRCDIR" \
			setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	}
	user_rtlab=$tmp/rtlab
elif ! $root; then
	mkdir -p "$tmp/u"
	as_user() { env -u RTLAB_JOURNAL_DIR -u XDG_STATE_HOME HOME="$tmp/u" "$@"; }
	user_rtlab=$RTLAB
fi

if $root && ! command -v setpriv >/dev/null; then
	for t in "FIFO" "FIFO left" "0777 dir" "root journal kept" "names root"; do
		skip "as another user: $t (needs setpriv)"
	done
else
	ujd=$tmp/u/.local/state/rtlab/journal
	as_user mkdir -p "$ujd"
	as_user bash -c "$(declare -f dead_pid); mkfifo '$ujd/'\$(dead_pid).journal"
	as_user timeout 60 "$user_rtlab" lesson list >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	check "as a user, a FIFO journal in its own directory does not hang (exit $rc)" \
		[ "$rc" != 124 ]
	check "and is left alone, with a warning naming it" \
		eval '[ "$(find "$ujd" -type p | wc -l)" = 1 ] && grep -q "\.journal is a FIFO" "$tmp/err"'
	rm -f "$ujd"/*.journal

	as_user mkdir -p -m 0700 "$tmp/u/open"
	as_user chmod 0777 "$tmp/u/open"
	pid=$(dead_pid)
	as_user bash -c "$(declare -f plant_journal); plant_journal '$tmp/u/open' $pid 'sched 1 1 other 0'"
	as_user env RTLAB_JOURNAL_DIR="$tmp/u/open" "$user_rtlab" lesson list >"$tmp/out" \
		2>"$tmp/err" </dev/null
	check "as a user, a journal directory others can write is skipped with a warning" \
		eval 'grep -q "journal directory $tmp/u/open is owned by .* with mode 0777: not trusted" "$tmp/err" &&
		      test -f "$tmp/u/open/$pid.journal"'

	if $root; then
		pid=$(dead_pid)
		plant_journal "$ujd" "$pid" "instance \"/sys/kernel/tracing/instances/rtlab-x-$pid\""
		chmod 0600 "$ujd/$pid.journal"
		as_user "$user_rtlab" lesson list >"$tmp/out" 2>"$tmp/err" </dev/null
		check "as a user, root's journal in its directory is not renamed" \
			eval 'test -f "$ujd/$pid.journal" && ! ls "$ujd" | grep -q corrupt'
		check "and the warning says it is root's and how to restore it" \
			eval 'grep -q "$pid.journal belongs to root (uid 0)" "$tmp/err" &&
			      grep -q "sudo rtlab doctor --restore" "$tmp/err"'
	else
		skip "as a user, root's journal not renamed (needs root to make one)"
		skip "the warning names root (needs root to make one)"
	fi
fi

echo "1..$n"
[ "$fails" -eq 0 ]
