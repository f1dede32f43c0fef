#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Inside the classroom VM, for `rtlab vm pull` on the host: copy the learner's progress and
# results documents from the state disk into DIR, the host directory shared at /work.
#
#   sh /usr/lib/rtlab-vm/pull.sh DIR
#
# Copies /state/rtlab/progress.json to DIR/progress.json, every *.json file of
# /state/rtlab/results (where rtlab saves runs) to DIR/results/ and of /state itself
# (where a learner may have saved one with --json) to DIR/top/. Only regular files are
# copied, never a link. Prints "pull: FILE" for each file copied; exits 1 when /state is
# not mounted or a copy failed. The host takes the copies in (rtlab/vm/vm_pull.h).
dir=${1:?usage: pull.sh DIR}
grep -q ' /state ' /proc/mounts || { echo "pull: the state disk is not mounted at /state"; exit 1; }
mkdir -p "$dir/results" "$dir/top" || exit 1
status=0
copy() {	# copy SRC DEST
	[ -f "$1" ] && [ ! -L "$1" ] || return 0
	if cp "$1" "$2"; then echo "pull: $1"; else echo "pull: FAIL $1"; status=1; fi
}
copy /state/rtlab/progress.json "$dir/progress.json"
for f in /state/rtlab/results/*.json; do copy "$f" "$dir/results/${f##*/}"; done
for f in /state/*.json; do copy "$f" "$dir/top/${f##*/}"; done
sync
exit $status
