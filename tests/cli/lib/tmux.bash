# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the tmux end-to-end tests (tests/cli/*.t): TAP counters, a
# private tmux server with its own temp dir and state, and polling helpers
# (bounded, never a fixed sleep). Source it with a short name for the socket:
#   . "$SRCDIR/tests/cli/lib/tmux.bash" reader
# It sets tmp, sock, tm and the EXIT trap, and exports a UTF-8 locale,
# XDG_STATE_HOME and RTLAB_JOURNAL_DIR under $tmp, and defines the helpers
# of lib/helpers.bash (can_switch, as_nobody). A test reports its plan with
# tap_done at the end, which fails it when a command was not found.
#
# How to wait: for something that only the awaited event puts on the screen
# (or in a file), never for text that may already be there from before the
# key was sent, and never by sleeping. The bounds below only catch a hang:
# none is shorter than HANG_TENTHS (60 s), whatever a test asks, because the
# machine running the suite may be loaded: load may make a test slower, never
# fail it. A wait that succeeds returns as soon as it sees its text.
HANG_TENTHS=600
# at_least_hang N: N, or HANG_TENTHS when N is less.
at_least_hang() { echo $(($1 > HANG_TENTHS ? $1 : HANG_TENTHS)); }

n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
check() { # check DESC CONDITION...
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}
not() { ! "$@"; }
tap_done() {
	helpers_missing_check
	echo "1..$n"
	[ "$fails" -eq 0 ]
}

if ! command -v tmux >/dev/null; then
	echo "1..0 # SKIP tmux is not installed (apt-get install tmux)"
	exit 0
fi

tmp=$(mktemp -d)
sock=rtlab-$1-$$
tm() { tmux -L "$sock" -f /dev/null "$@"; }
cleanup() {
	tm kill-server 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
# capture-pane prints UTF-8 only to a client in a UTF-8 locale.
export LC_ALL=C.UTF-8 LANG=C.UTF-8
export XDG_STATE_HOME=$tmp/state RTLAB_JOURNAL_DIR=$tmp/journal
. "${BASH_SOURCE[0]%/*}/helpers.bash"

screen() { tm capture-pane -p -t "$1" 2>/dev/null; }
# on_screen NAME TEXT: TEXT is on the screen now (a test for wait_until and press_until).
on_screen() { screen "$1" | grep -qF -- "$2"; }

# wait_grep F|E NAME PATTERN TENTHS: poll the screen until grep -F or -E finds PATTERN.
wait_grep() {
	for _ in $(seq "$(at_least_hang "$4")"); do
		screen "$2" | grep -q"$1" -- "$3" && return 0
		sleep 0.1
	done
	echo "# waited in vain for '$3' on this screen:"
	screen "$2" | sed 's/^/#   |/'
	return 1
}
# wait_for NAME TEXT [TENTHS]: poll the screen for TEXT, at least up to 60 s.
wait_for() { wait_grep F "$1" "$2" "${3:-0}"; }
# wait_match NAME ERE [TENTHS]: as wait_for, for a line matching the extended regex ERE.
wait_match() { wait_grep E "$1" "$2" "${3:-0}"; }

# wait_gone NAME TEXT: poll until TEXT has left the screen, up to 60 s.
wait_gone() {
	for _ in $(seq "$HANG_TENTHS"); do
		screen "$1" | grep -qF -- "$2" || return 0
		sleep 0.1
	done
	echo "# '$2' is still on the screen:"
	screen "$1" | sed 's/^/#   |/'
	return 1
}

# wait_until [-t TENTHS] CMD...: poll until CMD succeeds, at least up to 60 s;
# for what wait_for cannot say (a count, a file, a row of the screen).
wait_until() {
	local tenths=$HANG_TENTHS
	if [ "$1" = -t ]; then
		tenths=$(at_least_hang "$2")
		shift 2
	fi
	for _ in $(seq "$tenths"); do
		"$@" && return 0
		sleep 0.1
	done
	echo "# waited in vain for: $*"
	return 1
}

# wait_status NAME WANT: wait up to 60 s for the exit status that the session's
# wrapper writes to $tmp/NAME.status ("exit=N"), then compare.
wait_status() {
	for _ in $(seq "$HANG_TENTHS"); do
		[ -s "$tmp/$1.status" ] && break
		sleep 0.1
	done
	if [ "$(cat "$tmp/$1.status" 2>/dev/null)" = "exit=$2" ]; then
		return 0
	fi
	echo "# expected exit=$2, got '$(cat "$tmp/$1.status" 2>/dev/null)'; stderr:"
	sed 's/^/#   |/' "$tmp/$1.err" 2>/dev/null
	return 1
}

# tui_start NAME COLSxLINES: rtlab's menu in a new detached session; its
# stderr goes to $tmp/NAME.err and its exit status to $tmp/NAME.status.
tui_start() {
	local name=$1 size=$2
	cat >"$tmp/$name.sh" <<-EOS
	trap : INT
	env TERM=xterm-256color "$RTLAB" 2>"$tmp/$name.err"
	echo "exit=\$?" >"$tmp/$name.status"
	EOS
	tm new-session -d -s "$name" -x "${size%x*}" -y "${size#*x}" \
		"sh $tmp/$name.sh" \; set-option -g remain-on-exit on
}

# row_has NAME N TEXT: screen row N (1 = top) holds TEXT.
row_has() { screen "$1" | sed -n "$2p" | grep -qF -- "$3"; }
screen_changed() { [ "$(screen "$1")" != "$2" ]; }

# press_until NAME KEY CMD...: press KEY until CMD succeeds. After each press
# it waits for the screen to change, so CMD never judges a screen drawn before
# the key, and no key is sent ahead of the screen. Fails when a press changes
# nothing (the end of what KEY can reach).
press_until() {
	local name=$1 key=$2 before
	shift 2
	for _ in $(seq 60); do
		"$@" && return 0
		before=$(screen "$name")
		tm send-keys -t "$name" "$key"
		wait_until screen_changed "$name" "$before" >/dev/null || {
			echo "# '$key' changed nothing on the screen"
			return 1
		}
	done
	"$@"
}

# marked NAME: the screen row that carries the selection marker.
marked() { screen "$1" | grep -F -- "$(printf '\xe2\x96\xb8')" | head -n 1; }

# move_to NAME TEXT [KEY]: press KEY (default j) until the row with the
# selection marker holds TEXT. After each key it waits for the marker to
# leave the row it was on: a key sent on a screen that has not caught up
# yet would move the selection past TEXT. Fails at the end of the list.
move_to() {
	local name=$1 text=$2 key=${3:-j} row
	wait_until marked_nonempty "$name" || return 1
	for _ in $(seq 60); do
		row=$(marked "$name")
		printf '%s\n' "$row" | grep -qF -- "$text" && return 0
		tm send-keys -t "$name" "$key"
		wait_until marked_moved "$name" "$row" >/dev/null || {
			echo "# '$key' did not move the selection from: $row"
			return 1
		}
	done
	echo "# never reached a row with '$text'"
	return 1
}
marked_nonempty() { [ -n "$(marked "$1")" ]; }
marked_moved() { [ "$(marked "$1")" != "$2" ]; }

# menu_open NAME TEXT: move the menu's selection to the row containing TEXT
# and press Enter.
menu_open() {
	move_to "$1" "$2" && tm send-keys -t "$1" Enter
}
