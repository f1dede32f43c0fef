#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Grading inside the classroom VM, which has no compiler (`make vm-test`): the host builds
# each exercise's subject and checks as static binaries (`rtlab grade --build-only`), the
# folder reaches the guest, and the guest's rtlab grades it with the prebuilt binaries in its
# sandbox, as root (so the checks that need mlock or SCHED_FIFO run rather than skip):
#   - the toy exercise's reference scores 100 with its mlock check passed (VmLck as the
#     guest kernel reports it), the starter less;
#   - every lab exercise's reference scores 100;
#   - the image holds no reference solution (built without WITH_SOLUTIONS=1).
# The folder reaches the guest as a learner's would: `rtlab vm exec --share DIR` mounts it at
# /work over virtio-9p (RTLAB_VM_GRADE_DIR overrides the guest path).
# Needs: RTLAB, SRCDIR, RTLAB_VM_DIR (`make vm`), jq, qemu-system-x86_64.
set -u

: "${RTLAB:?set RTLAB to the rtlab binary}"
: "${SRCDIR:?set SRCDIR to the source tree}"
: "${RTLAB_VM_DIR:?set RTLAB_VM_DIR to the image directory (make vm)}"

n=0
fails=0
ok() {	# ok STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi
}

for t in jq qemu-system-x86_64; do
	if ! command -v "$t" >/dev/null; then
		echo "1..0 # skip $t is not installed (make deps)"
		exit 0
	fi
done
if [ ! -r "$RTLAB_VM_DIR/lab/vmlinuz" ]; then
	echo "1..0 # skip no lab image in $RTLAB_VM_DIR (make vm)"
	exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp/qemu XDG_STATE_HOME=$tmp/state RTLAB_DATADIR=$SRCDIR
mkdir -p "$TMPDIR"
share=$tmp/share
mkdir -p "$share"

# ---- on the host: build every exercise, reference and starter ------------------------------
exercises=()
for m in "$SRCDIR"/tests/data/exercise/toy/checks/exercise.json "$SRCDIR"/labs/*/checks/exercise.json; do
	[ -f "$m" ] || continue
	ex=${m%/checks/exercise.json}
	name=$(jq -r .lab "$m")
	exercises+=("$name")
	for v in reference starter; do
		"$RTLAB" grade --exercise "$ex" --work "$ex/$v" --build-only "$share/$name-$v" \
			>"$tmp/build.out" 2>&1
		ok $? "host: $name $v built for the guest (--build-only)"
	done
done
file "$share/toy-reference/bin/subject" | grep -q 'statically linked'
ok $? "host: the subject is a static binary"

# ---- in the guest -------------------------------------------------------------------------
GRADE_GUEST=${RTLAB_VM_GRADE_DIR:-/work}
script="ls -d /usr/share/rtlab/labs/*/reference 2>/dev/null | sed 's/^/REF /'"
for name in "${exercises[@]}"; do
	for v in reference starter; do
		script="$script; echo BEGIN $name-$v; rtlab grade --exercise $GRADE_GUEST/$name-$v --json; echo END"
	done
done
start=$(date +%s)
"$RTLAB" vm exec --kernel lab --accel tcg --timeout 900 --share "$share" -- "$script" \
	>"$tmp/guest.out" 2>"$tmp/guest.err"
rc=$?
echo "# lab kernel: booted and graded ${#exercises[@]} exercise(s) twice in $(($(date +%s) - start)) s"
ok $rc "guest (lab kernel): rtlab grade ran (vm exec exit 0)"
[ "$rc" -eq 0 ] || sed 's/^/# /' "$tmp/guest.err" | tail -20

grade_of() { # grade_of NAME-VARIANT: the JSON the guest printed for it
	sed -n "/^BEGIN $1\$/,/^END\$/p" "$tmp/guest.out" | sed '1d;$d'
}
grade_of toy-reference > "$tmp/toy-ref.json"
jq -e '.score_pct == 100' "$tmp/toy-ref.json" >/dev/null
ok $? "guest: the toy reference scores 100 from prebuilt binaries"
[ "$(jq -r '.checks[] | select(.id == "lock") | .status' "$tmp/toy-ref.json")" = pass ]
ok $? "guest: as root the mlock check runs and passes (VmLck from the guest kernel)"
[ "$(jq -r '.build.log' "$tmp/toy-ref.json")" = "prebuilt: nothing compiled here" ]
ok $? "guest: nothing was compiled there"
echo "# guest sandbox: $(jq -r '.sandbox' "$tmp/toy-ref.json")"
jq -r '.sandbox' "$tmp/toy-ref.json" | grep -q 'fences: seccomp+landlock'
ok $? "guest: the lab kernel's sandbox has both fences, the system-call filter and Landlock"
grade_of toy-starter > "$tmp/toy-starter.json"
jq -e '.score_pct < 100' "$tmp/toy-starter.json" >/dev/null
ok $? "guest: the toy starter scores less"
for name in "${exercises[@]}"; do
	[ "$name" = toy ] && continue
	grade_of "$name-reference" > "$tmp/$name.json"
	jq -e '.score_pct == 100' "$tmp/$name.json" >/dev/null
	ok $? "guest: the $name reference scores 100"
	jq -r '.checks[] | select(.status != "pass") | "# \(.id): \(.status) \(.reason)"' "$tmp/$name.json"
	grade_of "$name-starter" > "$tmp/$name-starter.json"
	jq -e '.score_pct < 100' "$tmp/$name-starter.json" >/dev/null
	ok $? "guest: the $name starter scores less"
done
! grep -q '^REF ' "$tmp/guest.out"
ok $? "guest: the image holds no reference solution"

echo "1..$n"
exit $((fails > 0))
