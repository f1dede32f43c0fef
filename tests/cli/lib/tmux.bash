# Shared by the tmux end-to-end tests (tests/cli/*.t): TAP counters, a
# private tmux server with its own temp dir and state, and polling helpers
# (bounded, never a fixed sleep). Source it with a short name for the socket:
#   . "$SRCDIR/tests/cli/lib/tmux.bash" reader
# It sets tmp, sock, tm and the EXIT trap, and exports a UTF-8 locale,
# XDG_STATE_HOME and RTLAB_JOURNAL_DIR under $tmp. A test reports its plan
# with tap_done at the end.

n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
check() { # check DESC CONDITION...
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}
not() { ! "$@"; }
tap_done() {
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

screen() { tm capture-pane -p -t "$1" 2>/dev/null; }

# wait_for NAME TEXT [TENTHS]: poll the screen for TEXT, by default up to 5 s.
wait_for() {
	for _ in $(seq "${3:-50}"); do
		screen "$1" | grep -qF -- "$2" && return 0
		sleep 0.1
	done
	echo "# waited in vain for '$2' on this screen:"
	screen "$1" | sed 's/^/#   |/'
	return 1
}

# wait_gone NAME TEXT: poll until TEXT has left the screen, up to 5 s.
wait_gone() {
	for _ in $(seq 50); do
		screen "$1" | grep -qF -- "$2" || return 0
		sleep 0.1
	done
	echo "# '$2' is still on the screen:"
	screen "$1" | sed 's/^/#   |/'
	return 1
}

# wait_status NAME WANT: wait up to 5 s for the exit status that the session's
# wrapper writes to $tmp/NAME.status ("exit=N"), then compare.
wait_status() {
	for _ in $(seq 50); do
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

# menu_open NAME TEXT: move the menu's selection (the row with the marker)
# to the row containing TEXT and press Enter.
menu_open() {
	for _ in $(seq 40); do
		screen "$1" | grep -F "$(printf '\xe2\x96\xb8')" | grep -qF -- "$2" && break
		tm send-keys -t "$1" j
		sleep 0.05
	done
	tm send-keys -t "$1" Enter
}
