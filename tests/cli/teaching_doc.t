#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# teaching_doc.t: every rtlab command doc/teaching.md shows is one rtlab
# accepts. Each command line of the guide's code blocks, and each `rtlab ...`
# code span of its prose, is run with --help added at the end: the command
# table, the subcommand and every option before --help are parsed as given
# (an unknown command or option, or an option's value missing or malformed,
# is exit 2), and nothing is done. The checker is checked too: a misspelt
# option and an unknown subcommand in the same form fail it. Then the few
# commands whose files the guide describes are run on a tiny class (the nop
# lab only, to be quick): hand-ins
# graded with a course file and --bom, one student re-graded, the outputs
# the guide's "Publishing" table names present, and the decks exported with
# the grading course file.
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"
. "$SRCDIR/tests/cli/lib/tap.bash"
export RTLAB_DATADIR=$SRCDIR
doc=$SRCDIR/doc/teaching.md

# The commands: lines starting "rtlab " inside ``` blocks, and `rtlab ...` spans
# outside them; a trailing "# comment" dropped.
python3 - "$doc" >"$tmp/cmds" <<'EOF'
import re, sys
inside = False
for line in open(sys.argv[1], encoding="utf-8"):
    if line.startswith("```"):
        inside = not inside
        continue
    if inside:
        if line.startswith("rtlab "):
            print(re.sub(r"\s+#.*$", "", line.rstrip("\n")).rstrip())
    else:
        for span in re.findall(r"`(rtlab [^`]*)`", line):
            print(span.strip())
EOF
ncmds=$(wc -l <"$tmp/cmds")
check "the guide shows at least 20 rtlab commands ($ncmds)" [ "$ncmds" -ge 20 ]

parses() {	# parses "rtlab ARGS": exit 0 with --help added
	local words
	read -ra words <<<"${1#rtlab }"
	"$RTLAB" "${words[@]}" --help >"$tmp/h.out" 2>"$tmp/h.err"
}
for wrong in 'rtlab grade --class subs --studnet ann' 'rtlab lab rn latency' \
	'rtlab grade --class subs --jobs' 'rtlab grade --class'; do
	if parses "$wrong"; then
		not_ok "the checker fails what rtlab refuses: $wrong"
	else
		ok "the checker fails what rtlab refuses: $wrong"
	fi
done
while IFS= read -r c; do
	# shellcheck disable=SC2016
	case $c in *'$'* | *'`'* | *'"'* | *"'"*) not_ok "$c: quoting the checker does not split"; continue ;; esac
	if parses "$c"; then
		ok "parses: $c"
	else
		not_ok "parses: $c" "$(head -c 300 "$tmp/h.err" | tr '\n' ' ')"
	fi
done <"$tmp/cmds"

# ---- The guide's class commands on a tiny class -------------------------------------------
# nop: simulated, no root needed. ann hands in the reference, bob the starter,
# eve nothing of nop; ann's folder is a link, as a teacher's collection may be.
subs=$tmp/submissions
mkdir -p "$subs" "$tmp/elsewhere/ann" "$subs/bob"
for who in ann bob; do
	st=$tmp/state-$who
	XDG_STATE_HOME=$st "$RTLAB" lab start nop >/dev/null 2>&1
	[ "$who" = ann ] && cp "$SRCDIR/labs/nop/reference/nop_monitor.c" "$st/rtlab/work/nop/"
	XDG_STATE_HOME=$st "$RTLAB" lab run nop --seed 1 >/dev/null 2>&1
done
XDG_STATE_HOME=$tmp/state-ann "$RTLAB" handin nop --out "$tmp/elsewhere/ann/nop.tar" >/dev/null 2>&1
XDG_STATE_HOME=$tmp/state-bob "$RTLAB" handin nop --out "$subs/bob/nop.tar" >/dev/null 2>&1
ln -s "$tmp/elsewhere/ann" "$subs/ann"
cat >"$tmp/course.json" <<'EOF'
{ "schema": "rtlab.course/1", "title": "Real-time Linux, a test",
  "labs": [ { "lab": "nop", "weight": 1, "due": "2026-01-01" },
            { "lab": "fcse", "weight": 1 } ] }
EOF
cd "$tmp" || exit 1
run grade --class submissions/ --lab nop --out grades/ --course course.json --bom --jobs 2
check "grade --class with a course file and --bom: exit 0" [ "$rc" -eq 0 ]
for f in gradebook.csv gradebook-lms.csv junit.xml grades.tap grades.json summary.txt \
	ann/feedback.txt ann/feedback.html bob/feedback.txt; do
	check "grades/$f is written, as the guide's table says" [ -s "grades/$f" ]
done
check "gradebook-lms.csv: a byte-order mark, student, a column per course lab, course_total" \
	[ "$(head -1 grades/gradebook-lms.csv | tr -d '\r')" = "$(printf '\357\273\277student,nop,fcse,course_total')" ]
check "ann (a linked folder) is graded 100 on nop's code" \
	[ "$(jq -r '.grades[] | select(.student == "ann" and .lab == "nop") | .parts.code.score_pct' grades/grades.json)" = 100 ]
cp grades/grades.json "$tmp/before.json"
cp "$SRCDIR/labs/nop/reference/nop_monitor.c" "$tmp/state-bob/rtlab/work/nop/"
sleep 1
XDG_STATE_HOME=$tmp/state-bob "$RTLAB" handin nop --out "$subs/bob/nop-late.tar" >/dev/null 2>&1
run grade --class submissions/ --lab nop --student bob --out grades/ --course course.json --bom
check "the re-grade of one student: exit 0" [ "$rc" -eq 0 ]
check "... bob's late hand-in counts" \
	[ "$(jq -r '.grades[] | select(.student == "bob" and .lab == "nop") | .parts.code.score_pct' grades/grades.json)" = 100 ]
check "... ann's grades did not move" \
	[ "$(jq -S '[.grades[] | select(.student == "ann")]' "$tmp/before.json")" = \
	  "$(jq -S '[.grades[] | select(.student == "ann")]' grades/grades.json)" ]
# The guide's one step from gradebook-lms.csv to Canvas's import layout, run as written.
python3 - "$doc" >"$tmp/canvas.sh" <<'EOF'
import sys
block, inside = [], False
for line in open(sys.argv[1], encoding="utf-8"):
    if line.startswith("```"):
        if inside and any("canvas-import.csv" in l for l in block):
            sys.stdout.write("".join(block))
            break
        inside, block = not inside, []
    elif inside:
        block.append(line)
EOF
check "the guide has the step to Canvas's layout" grep -q 'canvas-import.csv' "$tmp/canvas.sh"
bash "$tmp/canvas.sh" 2>"$tmp/err"
check "... it runs and writes Canvas's columns, the course's labs, no course_total" \
	[ "$(head -1 canvas-import.csv)" = "Student,SIS Login ID,Section,nop,fcse" ]
check "... a row per student: the login twice, the section blank, the scores as rtlab wrote them" \
	python3 - grades/gradebook-lms.csv canvas-import.csv <<'EOF'
import csv, sys
lms = list(csv.reader(open(sys.argv[1], encoding="utf-8-sig", newline="")))[1:]
can = list(csv.reader(open(sys.argv[2], encoding="utf-8", newline="")))[1:]
assert len(lms) == len(can) == 2, (lms, can)
for a, b in zip(lms, can):
    assert b == [a[0], a[0], ""] + a[1:-1], (a, b)
assert can[0][0] == "ann" and can[0][3] != "", can
EOF
run slides export --all --out decks/ --class submissions/ --course course.json
check "slides export with the class's hand-ins and the grading course file: exit 0" [ "$rc" -eq 0 ]
check "... the course's title is on the title slide" \
	grep -qF '<p class="course">Real-time Linux, a test' decks/09-node-order-protocol.html
tap_done
