# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the tests that touch tracefs (ftrace.t, lab_ftrace_tui.t). Source it
# after setting T to the tracefs mount point.
#
# state: the top-level tracing state a lab must leave as it found it. Instances
# named after a live process (rtlab-<lab>-<pid>) belong to someone else and are
# ignored; every other instance is listed.
state() {
	local f d i p
	for f in current_tracer tracing_on set_event tracing_thresh; do
		echo "$f=$(cat "$T/$f" 2>/dev/null)"
	done
	for d in "$T"/instances/*/; do
		[ -d "$d" ] || continue
		i=$(basename "$d")
		p=${i##*-}
		case $p in *[!0-9]*|"") echo "instance $i"; continue ;; esac
		kill -0 "$p" 2>/dev/null || echo "instance $i"
	done
}
