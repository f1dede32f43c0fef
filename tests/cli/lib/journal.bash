# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the CLI tests that plant undo journals (journal_security.t,
# doctor.t, tui.t): a journal file "left by a killed run", and the facts it
# needs. Source it; it defines functions only.

# dead_pid: the pid of a process that has exited (and been reaped).
dead_pid() {
	sh -c 'exit 0' &
	local p=$!
	wait "$p"
	echo "$p"
}

# proc_start PID: the start time of PID (field 22 of /proc/PID/stat).
proc_start() {
	sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f20
}

# plant_journal DIR PID [ENTRY...]: DIR/PID.journal as a killed run with that
# pid would have left it (this boot, a start time no live process has).
plant_journal() {
	local dir=$1 pid=$2 e
	shift 2
	{
		echo 'rtlab-journal 1'
		echo "boot $(cat /proc/sys/kernel/random/boot_id)"
		echo "pid $pid 1"
		for e in "$@"; do
			echo "$e"
		done
	} >"$dir/$pid.journal"
}

# journal_dir: where rtlab keeps journals for the current user.
journal_dir() {
	if [ "$(id -u)" = 0 ]; then
		echo /run/rtlab
	else
		echo "${RTLAB_JOURNAL_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/rtlab/journal}"
	fi
}

# no_journal_of PID: rtlab process PID left no journal behind.
no_journal_of() {
	[ -n "$1" ] && ! test -e "$(journal_dir)/$1.journal"
}
