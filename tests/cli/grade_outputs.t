#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# grade_outputs.t: the files `rtlab grade --class --out` writes, read by the
# programs that will read them, with student folders named to attack each.
# A folder name is any bytes but '/' and NUL: a spreadsheet formula
# (=HYPERLINK, @SUM, +1, -2, one after a ';'), ESC and BEL, a C1 control, a
# bidi override, U+FFFE (XML 1.0 forbids it), a byte that is not UTF-8, a
# newline, a '#' that TAP would read as a TODO directive, and plain UTF-8.
#   gradebook.csv  python3's csv module: formulas start with "'" inside a
#                  quoted cell, no control character, valid UTF-8, numbers
#                  still numbers
#   junit.xml      xmllint against tests/data/junit/junit.xsd (the Jenkins
#                  and Ant JUnit structure)
#   grades.tap     TAP::Parser, as prove reads it: as many failures as
#                  grades.json counts, none of them TODO, one line per test
#   summary.txt    no control byte, the columns aligned
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

for t in python3 xmllint jq prove perl; do
	if ! command -v "$t" >/dev/null; then
		echo "1..0 # SKIP $t is not installed"
		exit 0
	fi
done
if ! perl -MTAP::Parser -e 1 2>/dev/null; then
	echo "1..0 # SKIP perl's TAP::Parser is missing"
	exit 0
fi

. "$SRCDIR/tests/cli/lib/tap.bash"
export RTLAB_DATADIR=$SRCDIR
export LC_ALL=C.UTF-8

class=$tmp/class
out=$tmp/graded	# not $tmp/out: run() writes stdout there
ref=$SRCDIR/labs/nop/reference/nop_monitor.c
starter=$SRCDIR/labs/nop/starter/nop_monitor.c

# hand_in NAME FILE: FILE as NAME's nop lab (NAME may hold any byte but '/').
hand_in() {
	mkdir -p "$class/$1/nop" && cp "$2" "$class/$1/nop/nop_monitor.c"
}
# A folder name cannot hold '/': the link's "//" is "\\" here.
hand_in '=HYPERLINK("http:\\x","y")' "$starter"
hand_in '@SUM(1+1)' "$starter"
hand_in '+1' "$ref"
hand_in '-2' "$starter"
hand_in 'a;=1+1' "$starter"
hand_in ' =1+2' "$starter"
hand_in $'bell\a esc\e[31m red' "$starter"
hand_in $'c1 \xc2\x9b bidi \xe2\x80\xae nonchar \xef\xbf\xbe' "$starter"
hand_in $'bad \xff\xfe utf8' "$starter"
hand_in $'new\nline' "$starter"
hand_in 'x # TODO' "$starter"
hand_in 'y \# TODO' "$starter"
hand_in 'Zoë, "the" student' "$ref"
hand_in 'Zoë' "$ref"
nstudents=14

run grade --class "$class" --lab nop --jobs 2 --out "$out"
check "the class is graded (exit 0: every job graded) and the files are written" \
	bash -c "[ $rc -eq 0 ] && cd '$out' &&
		ls gradebook.csv junit.xml grades.tap grades.json summary.txt >/dev/null"
check "every student has a grade, none an error" \
	[ "$(jq '[.grades[] | select(.error == null)] | length' "$out/grades.json")" -eq "$nstudents" ]

# ---- gradebook.csv --------------------------------------------------------------------
python3 - "$out/gradebook.csv" "$nstudents" >"$tmp/csv.tap" 2>&1 <<'EOF'
import csv, io, re, sys, unicodedata

path, nstudents = sys.argv[1], int(sys.argv[2])
raw = open(path, "rb").read()
n = 0

def check(desc, ok, why=""):
    global n
    n += 1
    print("%s - %s" % ("ok" if ok else "not ok", desc))
    if not ok and why:
        print("# " + why.replace("\n", " ")[:600])

try:
    text = raw.decode("utf-8", "strict")
    check("gradebook.csv is valid UTF-8", True)
except UnicodeDecodeError as e:
    text = raw.decode("utf-8", "replace")
    check("gradebook.csv is valid UTF-8", False, str(e))

def control(ch):
    return unicodedata.category(ch) == "Cc" or 0x202a <= ord(ch) <= 0x202e or \
        0x2066 <= ord(ch) <= 0x2069 or ch in "\ufffe\uffff"

body = text.replace("\r\n", "")
bad = sorted({"U+%04X" % ord(c) for c in body if control(c)})
check("no control character but the CRLF row ends", not bad, " ".join(bad))

rows = list(csv.reader(io.StringIO(text, newline="")))
check("a header and one row per student, ten cells each",
      len(rows) == nstudents + 1 and all(len(r) == 10 for r in rows),
      repr([len(r) for r in rows]))
check("the header is as documented", rows and rows[0] == ["student", "lab", "score_pct",
      "points", "max_points", "passed", "failed", "skipped", "build", "error"], repr(rows[:1]))

danger = tuple("=+-@\t\r")
bad = []
for r in rows[1:]:
    for k in (0, 1, 8, 9):
        cell = r[k] if k < len(r) else ""
        if cell.lstrip(" ").startswith(danger):
            bad.append(cell)
check("no text cell starts with = + - @ TAB or CR", not bad, repr(bad))

names = {r[0] for r in rows[1:] if r}
want = ["'=HYPERLINK(\"http:\\\\x\",\"y\")", "'@SUM(1+1)", "'+1", "'-2", "' =1+2",
        "a;=1+1", "x # TODO", "y \\# TODO", "Zoë, \"the\" student", "Zoë"]
missing = [w for w in want if w not in names]
check("formulas keep their text after a \"'\"; other names are as they were",
      not missing, "missing %r in %r" % (missing, sorted(names)))

# The quote must be inside a quoted cell, and ';' too (a ';' locale splits there).
lines = raw.split(b"\r\n")
unq = [l for l in lines if re.match(rb"^(?:'|[^\"][^,]*;)", l)]
check("the cells with a \"'\" or a ';' are quoted (RFC 4180)", not unq, repr(unq))

numeric = re.compile(r"^-?[0-9]+(\.[0-9]+)?$")
bad = [r for r in rows[1:] if not all(numeric.match(c) for c in r[2:8])]
check("score, points and counts are numbers", not bad, repr(bad))
unq = [l for l in lines[1:] if l and not re.search(rb",(?:-?[0-9.]+,){6}", l)]
check("... written unquoted, so a spreadsheet reads them as numbers", not unq, repr(unq))

zoe = [r for r in rows[1:] if r and r[0] == "Zoë"]
check("Zoë's reference earns every point of its code", zoe and zoe[0][3] == zoe[0][4] != "0",
      repr(zoe))
ctl = [r[0] for r in rows[1:] if r and r[0].startswith(("bell", "c1", "new"))]
check("a control character in a name is shown as U+FFFD",
      len(ctl) == 3 and all("\ufffd" in c for c in ctl), repr(ctl))
check("a name with bytes that are not UTF-8 has a row",
      any(r and r[0].startswith("bad ") for r in rows[1:]), repr(sorted(names)))
print("# checks %d" % n)
EOF
while IFS= read -r line; do
	case $line in
	"ok - "*) ok "csv: ${line#ok - }" ;;
	"not ok - "*) not_ok "csv: ${line#not ok - }" ;;
	"# checks "*) ;;
	"#"*) echo "$line" ;;
	*) not_ok "csv: python3 says: $line" ;;
	esac
done <"$tmp/csv.tap"
grep -q '^# checks ' "$tmp/csv.tap" || not_ok "csv: the python3 checks ran to the end"

# ---- junit.xml ------------------------------------------------------------------------
xmllint --noout "$out/junit.xml" 2>"$tmp/err"
check "junit.xml is well-formed XML (xmllint)" [ $? -eq 0 ]
xmllint --noout --schema "$SRCDIR/tests/data/junit/junit.xsd" "$out/junit.xml" 2>"$tmp/err"
check "junit.xml is valid against the JUnit schema (xmllint --schema)" [ $? -eq 0 ]
tests=$(jq '[.grades[] | .checks | length] | add' "$out/grades.json")
failed=$(jq '[.grades[] | .checks_failed] | add' "$out/grades.json")
xpath() { xmllint --xpath "$1" "$out/junit.xml" 2>/dev/null; }
check "... with a testcase per check" [ "$(xpath 'count(//testcase)')" = "$tests" ]
check "... a failure per failed check" [ "$(xpath 'count(//testcase/failure)')" = "$failed" ]
check "... and the suites' failures add up to the root's" \
	[ "$(xpath 'sum(//testsuite/@failures)')" = "$(xpath 'string(/testsuites/@failures)')" ]

# ---- grades.tap -----------------------------------------------------------------------
want=$(jq '[.grades[] | if .error != null or (.checks | length) == 0 then 1
	else .checks_failed end] | add' "$out/grades.json")
perl -MTAP::Parser -e '
	my $p = TAP::Parser->new({ source => $ARGV[0] });
	1 while $p->next;
	printf "tests %d plan %d failed %d todo %d errors %d\n", $p->tests_run,
		$p->tests_planned // -1, scalar($p->failed), scalar($p->todo),
		scalar($p->parse_errors);
' "$out/grades.tap" >"$tmp/tap.res" 2>"$tmp/err"
read -r _ t_run _ t_plan _ t_failed _ t_todo _ t_errors <"$tmp/tap.res"
check "TAP::Parser reads grades.tap without parse errors, all $tests tests planned" \
	[ "${t_errors:-1} ${t_run:-0} ${t_plan:-0}" = "0 $tests $tests" ]
check "no test is TODO (a '#' in a name is not a directive)" [ "${t_todo:-1}" -eq 0 ]
check "TAP::Parser counts as many failures as grades.json ($want)" \
	[ "${t_failed:--1}" -eq "$want" ]
tap_line='^(TAP version 13|1\.\.[0-9]+|(not )?ok [0-9]+ - .*|#.*)$'
check "a name with a newline stays on its test's line" \
	bash -c "! grep -avE '$tap_line' '$out/grades.tap' | grep -q ."
check "the '#' of a name is escaped as TAP 13 says" \
	bash -c "grep -aF 'x \\# TODO/nop/' '$out/grades.tap' | grep -q . &&
		grep -aF 'y \\\\\\# TODO/nop/' '$out/grades.tap' | grep -q ."
check "... and no control byte is in the file" \
	bash -c "! LC_ALL=C grep -aq \$'[\\x01-\\x09\\x0b-\\x1f\\x7f]' '$out/grades.tap'"
prove -e cat "$out/grades.tap" >"$tmp/prove.out" 2>&1
check "prove fails the run, counting $want failed tests" \
	grep -qE "Failed $want/$tests subtests" "$tmp/prove.out"

# ---- summary.txt ----------------------------------------------------------------------
check "summary.txt has no control byte" \
	bash -c "! LC_ALL=C grep -aq \$'[\\x01-\\x09\\x0b-\\x1f\\x7f]' '$out/summary.txt'"
python3 - "$out/summary.txt" "$nstudents" >"$tmp/err" 2>&1 <<'EOF'
import sys, unicodedata
text = open(sys.argv[1], "rb").read().decode("utf-8", "strict")
bad = [c for c in text if c != "\n" and unicodedata.category(c) == "Cc"]
lines = text.split("\n")[1:1 + int(sys.argv[2])]
cols = {line.find(" nop ") for line in lines}
print(bad, cols, lines)
sys.exit(0 if not bad and len(cols) == 1 else 1)
EOF
check "... is valid UTF-8 without C1 controls, the lab column aligned" [ $? -eq 0 ]

tap_done
