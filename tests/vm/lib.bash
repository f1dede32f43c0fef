# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the vm-test files: what a file needs before it starts. Source it
# first; vm_needs prints TAP's "1..0 # skip REASON" and exits 0 when something
# is missing, so a machine without it skips the file rather than failing it.
#   vm_needs [--root] TOOL... -- KERNEL...
# TOOLs are commands that must be on PATH; KERNELs images that must be in
# RTLAB_VM_DIR (`make vm`); --root: the file changes the host's scheduling.
: "${RTLAB:?set RTLAB to the rtlab binary}"
: "${SRCDIR:?set SRCDIR to the source tree}"
: "${RTLAB_VM_DIR:?set RTLAB_VM_DIR to the image directory (make vm)}"

vm_needs() {
	local t
	if [ "${1:-}" = --root ]; then
		shift
		[ "$(id -u)" -eq 0 ] || { echo "1..0 # skip it changes QEMU's scheduling: root only"; exit 0; }
	fi
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		command -v "$1" >/dev/null || { echo "1..0 # skip $1 is not installed (make deps)"; exit 0; }
		shift
	done
	[ $# -gt 0 ] && shift
	for t in "$@"; do
		# The ARM image is built apart from the others (make vm-arm).
		[ -r "$RTLAB_VM_DIR/$t/vmlinuz" ] || {
			echo "1..0 # skip no $t image in $RTLAB_VM_DIR (make $([ "$t" = fcse ] &&
				echo vm-arm || echo vm))"
			exit 0
		}
	done
}
