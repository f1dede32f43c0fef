#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The FCSE lab's screen, live form, at 80x24 (issue 34 item 3): l in the setup turns --live
# on; the run boots the FCSE kernel once per mode (here a stand-in qemu-system-arm,
# lib/fake-qemu-arm, printing fixtures of what rtlab-fcse-work prints on the kernel) and
# shows, per mode as it finishes, the kernel's switches, flushes done and avoided beside the
# model's, the refusals, the PIDs each gave and the fork limit, saying that the times are the
# model's; the summary is the document's live views.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tmux.bash" fcselive
export RTLAB_DATADIR=$SRCDIR

data=$SRCDIR/tests/data/fcse-live
mkdir -p "$tmp/bin" "$tmp/img/fcse" "$tmp/fx" "$tmp/qemu"
ln -s "$SRCDIR/tests/cli/lib/fake-qemu-arm" "$tmp/bin/qemu-system-arm"
for f in vmlinuz initrd.img versatilepb.dtb; do : >"$tmp/img/fcse/$f"; done
cp "$data"/*.out "$tmp/fx/"
# A boot of 4 s: the screen shows a mode done while the next one boots.
export PATH=$tmp/bin:$PATH RTLAB_VM_DIR=$tmp/img FAKE_FCSE_OUT=$tmp/fx FAKE_FCSE_DELAY=4 \
	TMPDIR=$tmp/qemu

tui_start live 80x24
check "the menu opens" wait_for live "Lessons"
menu_open live "ARM FCSE: VIVT caches under context switches"
check "the FCSE lab's setup says live is off" wait_for live "Live      off: the model alone"
tm send-keys -t live l
check "l turns the live form on" wait_for live "Live      on: the FCSE kernel in QEMU"
check "the title says kernel + model" wait_for live "LIVE kernel + model"
check "and what the run measures here" wait_for live "Here: the ARM kernel's counts (QEMU, one boot a"
tm send-keys -t live Enter
check "running: the kernel's columns beside the model's" \
	wait_for live "kernel: switches flushes avoided  model: flushes avoided"
check "flush done: 1000 switches, 1000 flushes, 0 avoided; model 1000, 0" \
	wait_match live '^ flush +1000 +1000 +0 +1000 +0 *$'
check "the next mode boots meanwhile" wait_match live '^ (guaranteed|best-effort) +booting'
check "guaranteed done: 0 flushes, 1000 avoided beside the model's" \
	wait_match live '^ guaranteed +1000 +0 +1000 +0 +1000 *$'
check "the refusals, kernel's and model's" \
	wait_for live "refused by the kernel 0 fork, 1 mmap; by the model 0 fork, 1 mmap"
check "the PIDs each gave" wait_for live "PIDs, kernel: 2 5 6 7 8 -"
check "... beside the model's" wait_for live "PIDs, model:  1 2 3 4 5 -"
check "the fork limit" wait_for live "Fork until refused: 93 forked, errno EAGAIN, 95 PIDs"
check "it says the times are the model's, the whole line in 80 columns" \
	wait_for live "Times: the model's (QEMU models no cache). Kernel PIDs: init, sh, parent too."
check "the summary: the document's live view" \
	wait_for live "LIVE: the FCSE kernel's counts beside the model's" 300
check "... its rows whole in 80 columns: guaranteed, the kernel's and the model's" \
	wait_match live '^ +guaranteed +kernel +1000 +0 +1000 +0 +1 +yes' &&
	wait_match live '^ +model +1000 +0 +1000 +0 +1( |$)'
check "... and the PIDs view" wait_match live '^ +guaranteed +2 5 6 7 8 - +1 2 3 4 5 -( |$)'
tm send-keys -t live q q q
tap_done
