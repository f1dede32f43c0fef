#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# handin.t: `rtlab handin LAB`, the learner's side, and a teacher's folder of
# hand-ins graded with `rtlab grade --class`. The nop lab (simulated, no root):
# the reference monitor in the working copy, a quick run, the tar's listing,
# manifest and digests; what is missing is said; nothing is ever overwritten
# without --force; a link in the working copy is not followed. Then a class:
# alice.tar, bob/ holding his tar (as an LMS lays it out), and hostile tars
# built with python3's tarfile (absolute path, .., symlink, hard link,
# device, oversize, no manifest, a file the manifest does not list, a wrong
# SHA-256): alice gets 100 % for the code, each hostile one is reported, and
# nothing is written outside (a canary beside the class stays as it was).
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tap.bash"
export RTLAB_DATADIR=$SRCDIR
work=$XDG_STATE_HOME/rtlab/work/nop
ref=$SRCDIR/labs/nop/reference/nop_monitor.c
cd "$tmp" || exit 1

# ---- usage ----------------------------------------------------------------------------------
run handin --help
check "--help exits 0 with the usage line" \
	bash -c "[ $rc -eq 0 ] && grep -q '^usage: rtlab handin LAB' '$tmp/out'"
run handin
check "no lab is a usage error (exit 2)" [ "$rc" -eq 2 ]
run handin no-such-lab
check "an unknown lab: exit 2, named" \
	bash -c "[ $rc -eq 2 ] && grep -q \"no lab called 'no-such-lab'\" '$tmp/err'"
run handin nop --bogus
check "an unknown option is a usage error" [ "$rc" -eq 2 ]
run handin nop extra
check "an extra argument is a usage error" [ "$rc" -eq 2 ]

# ---- the learner's side ---------------------------------------------------------------------
run handin nop --out "$tmp/none.tar"
check "nothing to hand in: exit 1, no file, says how to start" \
	bash -c "[ $rc -eq 1 ] && [ ! -e '$tmp/none.tar' ] && grep -q 'rtlab lab start nop' '$tmp/err'"

run lab start nop
cp "$ref" "$work/nop_monitor.c"
run handin nop --out "$tmp/code.tar"
check "the code alone: exit 0" [ "$rc" -eq 0 ]
check "... saying that the results document is missing and how to make it" \
	grep -q 'no results document yet: run `rtlab lab run nop` first' "$tmp/out"

run lab run nop --seed 1
check "a quick simulated run of the nop lab" [ "$rc" -eq 0 ]
run handin nop --out "$tmp/alice.tar"
check "code, results and progress: exit 0" [ "$rc" -eq 0 ]
check "... each packed file listed" \
	bash -c "grep -q 'nop/nop_monitor.c' '$tmp/out' && grep -q 'nop/results.json' '$tmp/out' &&
		 grep -q 'progress.json' '$tmp/out'"
check "tar tf lists the manifest first, then the code, results, progress" \
	[ "$(tar tf "$tmp/alice.tar" | tr '\n' ' ')" = \
	  "rtlab-handin.json nop/nop_monitor.c nop/results.json progress.json " ]
check "entries are mode 0644, owner 0/0" \
	bash -c "tar tvf '$tmp/alice.tar' | awk '{ if (\$1 != \"-rw-r--r--\" || \$2 != \"0/0\") bad = 1 } END { exit bad }'"
mkdir "$tmp/x" && tar xf "$tmp/alice.tar" -C "$tmp/x"
check "the manifest is rtlab.handin/1 for nop" \
	[ "$(jq -r '"\(.schema) \(.lab) \(.files | length)"' "$tmp/x/rtlab-handin.json")" = \
	  "rtlab.handin/1 nop 3" ]
check "... with each file's size and SHA-256" \
	bash -c "cd '$tmp/x' && jq -r '.files[] | \"\(.sha256)  \(.path)\"' rtlab-handin.json | sha256sum -c --quiet &&
		 [ \"\$(jq -r '.files[0].size' rtlab-handin.json)\" -eq \$(stat -c %s nop/nop_monitor.c) ]"
check "the code is the working copy's" cmp -s "$tmp/x/nop/nop_monitor.c" "$ref"

cp "$tmp/alice.tar" "$tmp/alice.keep"
run handin nop --out "$tmp/alice.tar"
check "an existing file is not overwritten (exit 1, says --force)" \
	bash -c "[ $rc -eq 1 ] && grep -q -- '--force' '$tmp/err' && cmp -s '$tmp/alice.tar' '$tmp/alice.keep'"
run handin nop --out "$tmp/alice.tar" --force --json
check "--force replaces it; --json prints the manifest" \
	bash -c "[ $rc -eq 0 ] && [ \"\$(jq -r .schema '$tmp/out')\" = rtlab.handin/1 ]"
check "... and leaves no temporary file" \
	bash -c "[ -z \"\$(ls -A '$tmp' | grep -E '\\.tmp')\" ]"
mkdir "$tmp/here"
(cd "$tmp/here" && "$RTLAB" handin nop >/dev/null 2>&1)
check "the default file is rtlab-handin-nop.tar here" [ -s "$tmp/here/rtlab-handin-nop.tar" ]

mv "$work/nop_monitor.c" "$tmp/mine.c"
ln -s /etc/passwd "$work/nop_monitor.c"
run handin nop --out "$tmp/linked.tar"
check "a link in the working copy is not followed: exit 1, said" \
	bash -c "[ $rc -eq 1 ] && grep -q 'symbolic link: not packed' '$tmp/out'"
check "... and the tar holds no code" bash -c "! tar tf '$tmp/linked.tar' | grep -q nop_monitor"
rm "$work/nop_monitor.c" && mv "$tmp/mine.c" "$work/nop_monitor.c"

run handin example --out "$tmp/example.tar"
check "a lab without an exercise, not run: its progress only, exit 1" \
	bash -c "[ $rc -eq 1 ] && [ \"\$(tar tf '$tmp/example.tar' | tr '\n' ' ')\" = 'rtlab-handin.json progress.json ' ]"
run lab run example --seed 1
run handin example --out "$tmp/example2.tar"
check "... run: its results and progress, exit 0" \
	bash -c "[ $rc -eq 0 ] && tar tf '$tmp/example2.tar' | grep -qx example/results.json"

# bob hands in the starter, unchanged.
cp "$SRCDIR/labs/nop/starter/nop_monitor.c" "$work/nop_monitor.c"
run handin nop --out "$tmp/bob.tar"
cp "$ref" "$work/nop_monitor.c"

# ---- a teacher's folder of hand-ins ---------------------------------------------------------
class=$tmp/class
mkdir -p "$class/bob"
cp "$tmp/alice.tar" "$class/alice.tar"
cp "$tmp/bob.tar" "$class/bob/nop-handin.tar"
echo canary > "$tmp/canary"
declare -A why=(
	[evil-abs]="entry '$tmp/pwned': an absolute path: refused"
	[evil-dotdot]="entry 'nop/../../pwned': a path outside the hand-in: refused"
	[evil-symlink]="entry 'nop/nop_monitor.c': a symbolic link (to '$tmp/canary'): refused"
	[evil-hardlink]="entry 'nop/nop_monitor.c': a hard link"
	[evil-device]="entry 'nop/nop_monitor.c': a character device: refused"
	[evil-oversize]="entry 'nop/nop_monitor.c': $(($(stat -c %s "$ref") + 1048576)) bytes, over the 1048576"
	[evil-nomanifest]="no manifest: the first entry is 'nop/nop_monitor.c'"
	[evil-otherfile]="entry 'nop/other.c': not listed in the manifest: refused"
	[evil-sha]="entry 'nop/nop_monitor.c': its SHA-256 does not match the manifest's"
)
hostile=$(printf '%s\n' "${!why[@]}" | sort)
if command -v python3 >/dev/null 2>&1; then
	python3 - "$class" "$tmp" "$ref" <<'EOF'
import hashlib, io, json, os, sys, tarfile
out, tmp, ref = sys.argv[1:4]
code = open(ref, "rb").read()
prog = b'{"schema": "rtlab.progress/1"}\n'

def manifest(files):
    return json.dumps({"schema": "rtlab.handin/1", "lab": "nop", "rtlab_version": "0.1.0",
                       "created": "2026-01-02T03:04:05Z",
                       "files": [{"path": p, "size": len(d),
                                  "sha256": hashlib.sha256(d).hexdigest()} for p, d in files]}).encode()

def reg(name, data):
    ti = tarfile.TarInfo(name)
    ti.size, ti.mode, ti.mtime = len(data), 0o644, 1700000000
    return ti, data

def special(name, kind, link=""):
    ti = tarfile.TarInfo(name)
    ti.type, ti.linkname, ti.mtime = kind, link, 1700000000
    return ti, None

def add(t, ti, data):
    t.addfile(ti, io.BytesIO(data) if data is not None else None)

def mk(name, entries, listed=None):
    listed = listed if listed is not None else [(t.name, d) for t, d in entries if d is not None]
    with tarfile.open(os.path.join(out, name + ".tar"), "w", format=tarfile.USTAR_FORMAT) as t:
        add(t, *reg("rtlab-handin.json", manifest(listed)))
        for ti, data in entries:
            add(t, ti, data)

good = [("nop/nop_monitor.c", code)]
mk("evil-abs", [reg(tmp + "/pwned", b"pwned")], listed=good)
mk("evil-dotdot", [reg("nop/../../pwned", b"pwned")], listed=good)
mk("evil-symlink", [special("nop/nop_monitor.c", tarfile.SYMTYPE, tmp + "/canary"),
                    reg("nop/nop_monitor.c", b"pwned")], listed=[("nop/nop_monitor.c", b"pwned")])
mk("evil-hardlink", [special("nop/nop_monitor.c", tarfile.LNKTYPE, tmp + "/canary")],
   listed=good)
mk("evil-device", [special("nop/nop_monitor.c", tarfile.CHRTYPE)], listed=good)
mk("evil-oversize", [reg("nop/nop_monitor.c", code + b" " * (1 << 20))], listed=good)
with tarfile.open(os.path.join(out, "evil-nomanifest.tar"), "w", format=tarfile.USTAR_FORMAT) as t:
    add(t, *reg("nop/nop_monitor.c", code))
mk("evil-otherfile", [reg("nop/nop_monitor.c", code), reg("nop/other.c", b"x")], listed=good)
mk("evil-sha", [reg("nop/nop_monitor.c", code[:-1] + b" ")], listed=good)
EOF
	check "python3 made the hostile tars" [ "$(ls "$class"/evil-*.tar | wc -l)" -eq 9 ]
else
	skip "no python3 to build the hostile tars"
	hostile=
fi

# Class mode reads a folder of hand-ins.
left_before=$(ls -d "${TMPDIR:-/tmp}"/rtlab-handin.* 2>/dev/null | sort)
run grade --class "$class" --lab nop --json
cp "$tmp/out" "$tmp/class.json"
cat "$tmp/out" "$tmp/err" > "$tmp/all"
check "the class is graded (exit 0 or 1, JSON)" \
	bash -c "[ $rc -le 1 ] && jq -e '.grades | length > 0' '$tmp/class.json' >/dev/null"
check "alice.tar: 100 % of the code" \
	[ "$(jq -r '.grades[] | select(.student == "alice" and .lab == "nop") | .parts.code.score_pct' "$tmp/class.json")" = 100 ]
check "... her results document joined her grade" \
	[ "$(jq -r '.grades[] | select(.student == "alice") | .parts.results.missing' "$tmp/class.json")" = false ]
check "bob/nop-handin.tar (the LMS folder layout): graded, the starter scores less" \
	bash -c "s=\$(jq -r '.grades[] | select(.student == \"bob\") | .parts.code.score_pct' '$tmp/class.json'); [ -n \"\$s\" ] && [ \"\$s\" != null ] && [ \"\$s\" != 100 ]"
for h in $hostile; do
	check "$h.tar is reported: ${why[$h]}" grep -qF "$h.tar: ${why[$h]}" "$tmp/all"
	check "... and $h gets no points for code" \
		bash -c "[ \"\$(jq -r '[.grades[] | select(.student == \"$h\") | .parts.code.points // 0] | add // 0' '$tmp/class.json')\" = 0 ]"
done
check "the canary beside the class is untouched" \
	bash -c "[ \"\$(cat '$tmp/canary')\" = canary ]"
check "nothing was written outside the class (no pwned file anywhere)" \
	bash -c "[ -z \"\$(find '$tmp' /tmp -maxdepth 3 -name pwned 2>/dev/null)\" ]"
check "no unpacked class folder is left in TMPDIR" \
	[ "$(ls -d "${TMPDIR:-/tmp}"/rtlab-handin.* 2>/dev/null | sort)" = "$left_before" ]

tap_done
