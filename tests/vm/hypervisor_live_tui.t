#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# hypervisor_live_tui.t (vm-test): the hypervisor lab's live part on its screen at
# 80x24, as a learner meets it: the setup panel offers l; l starts the live
# run, which draws the guest probe's figures as they stream in (scenario,
# samples, worst latency, the knobs, TCG named); at the end the summary
# shows the measured scenarios and what each set, with the document saved.
# Needs: RTLAB, SRCDIR, RTLAB_VM_DIR (`make vm`), tmux, qemu-system-x86_64, root.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"
: "${RTLAB_VM_DIR:?set RTLAB_VM_DIR to the image directory (make vm)}"

command -v qemu-system-x86_64 >/dev/null || { echo "1..0 # skip no QEMU (make deps)"; exit 0; }
[ "$(id -u)" -eq 0 ] || { echo "1..0 # skip the live part changes QEMU's scheduling: root only"; exit 0; }
[ -r "$RTLAB_VM_DIR/rt/vmlinuz" ] || { echo "1..0 # skip no rt image in $RTLAB_VM_DIR (make vm)"; exit 0; }

. "$SRCDIR/tests/cli/lib/tmux.bash" hvlive
export RTLAB_DATADIR=$SRCDIR RTLAB_VM_DIR TMPDIR=$tmp

tui_start run 80x24
check "the menu opens" wait_for run "Labs"
tm send-keys -t run End
check "the menu lists the hypervisor lab" move_to run "Linux as a real-time hypervisor" k
tm send-keys -t run Enter
check "its screen offers the live part (l)" wait_for run "l runs the live part"
tm send-keys -t run l
check "l starts it: the host scenario first" wait_for run "Scenario host" 100
check "then the guest's figures stream in, under TCG or KVM, with the knobs" \
	wait_match run 'Scenario guest-idle .*(TCG|KVM)' 1800
check "the knobs of the scenario" wait_for run "vCPU OTHER, QEMU threads OTHER, host load off" 100
check "the probe's samples and worst latency, live" \
	wait_match run '^ +Guest +[1-9][0-9]* samples +avg +[0-9]+ us' 600
check "the whole run ends in the summary of what was measured" \
	wait_for run "Guest latency, measured" 3000
check "with the host row" wait_match run '^ +host +[0-9]+ '
check "and fifo-stall, where the watchdog stepped in" wait_match run '^ +fifo-stall +[0-9]+ .*watchdog'
check "the document is saved" wait_for run "Results document:"
f=$(ls "$tmp"/state/rtlab/results/hypervisor-*.json 2>/dev/null | head -1)
check "in the results folder, as a live document" \
	bash -c "[ -n '$f' ] && grep -q '\"mode\": *\"live\"' '$f'"
tm send-keys -t run q
check "q goes back to the menu" wait_for run "Labs"
check "no QEMU is left" bash -c "! pgrep -f '^qemu-system[^ ]* -name rtlab-run' >/dev/null"

tap_done
