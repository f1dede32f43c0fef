#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Regenerate kernel-patches/lab/0001-misc-add-rtlab_inject-latency-injector.patch from
# kernel-patches/rtlab_inject/rtlab_inject.c, in `git format-patch` form, against a
# linux-source-6.12 tree. Run it after editing the module source; build-lab.sh refuses a
# patch whose driver differs from the module source, so the two cannot drift apart.
#
#   kernel-patches/scripts/mkpatch.sh /path/to/linux-source-6.12
set -euo pipefail

src=${1:?usage: mkpatch.sh LINUX_SOURCE_DIR}
here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/lab/0001-misc-add-rtlab_inject-latency-injector.patch
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

export GIT_AUTHOR_NAME=rtlab GIT_AUTHOR_EMAIL=rtlab@localhost
export GIT_COMMITTER_NAME=rtlab GIT_COMMITTER_EMAIL=rtlab@localhost
export GIT_AUTHOR_DATE='2025-01-01T00:00:00Z' GIT_COMMITTER_DATE='2025-01-01T00:00:00Z'

mkdir -p "$tmp/drivers/misc"
cp "$src/drivers/misc/Kconfig" "$src/drivers/misc/Makefile" "$tmp/drivers/misc/"
cd "$tmp"
git init -q
git add -A
git commit -q -m base

# The Kconfig entry goes just before the first sub-directory's Kconfig.
awk '
/^source "drivers\/misc\// && !done {
	print "config RTLAB_INJECT"
	print "\ttristate \"rtlab latency injector\""
	print "\tdepends on DEBUG_FS"
	print "\thelp"
	print "\t  Debugfs files under rtlab_inject/ that run one busy section of a"
	print "\t  requested length with interrupts off, with preemption off, in a"
	print "\t  tasklet, in a SCHED_FIFO kthread, in a threaded or a plain"
	print "\t  interrupt handler, or under a raw or a sleeping spinlock, so"
	print "\t  tracing and latency labs have a known cause of latency to find."
	print "\t  Sections are capped at 10 ms and at 10 requests per second. Only"
	print "\t  for teaching and testing kernels."
	print ""
	print "\t  If unsure, say N."
	print ""
	done = 1
}
{ print }' drivers/misc/Kconfig > Kconfig.new
mv Kconfig.new drivers/misc/Kconfig
printf 'obj-$(CONFIG_RTLAB_INJECT)\t+= rtlab_inject.o\n' >> drivers/misc/Makefile
cp "$here/rtlab_inject/rtlab_inject.c" drivers/misc/rtlab_inject.c
git add -A
git commit -q -F - <<'MSG'
misc: add rtlab_inject, a latency injector for tracing labs

Teaching the irqsoff, preemptoff and wakeup tracers needs a latency whose
cause is known. rtlab_inject adds debugfs files that run one busy section
of N microseconds with interrupts disabled, with preemption disabled, in a
tasklet, in a SCHED_FIFO kthread, in the thread of an interrupt requested
with request_threaded_irq() and IRQF_ONESHOT, in a handler requested
without a thread (force-threaded on PREEMPT_RT), or under a raw_spinlock_t
or a spinlock_t. The interrupts are raised from a hard-irq hrtimer on
descriptors of their own. Each section is a distinctly named noinline
function, so the tracers' "started at" lines point at it.

Sections are capped at 10 ms, run one at a time and are limited to 10
requests per second, so a lab cannot hang the machine.
MSG
git format-patch -q -1 --no-signature --zero-commit --stdout > "$out"
echo "wrote $out"
