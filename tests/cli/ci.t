#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ci.t: `rtlab ci github|gitlab`, `make deps-grade` and the Containerfile.
# The generated workflow passes action-validator (GitHub's workflow schema;
# from `make deps`, skipped with the reason without it), its steps and
# points are the manifests', and the .gitlab-ci.yml has GitLab's structure
# (jobs with image, script, artifacts: reports: junit). Then, as a runner
# would: a template repository made by `rtlab ci ... --vendor` with the
# latency lab's reference is cloned, and the commands of each generated job
# run there in order (scripts/ci-run-steps): the reference earns every point
# (exit 0) and a mutant from labs/latency/mutants does not (exit 1). The
# Containerfile's commands run with the same script, into a folder of the
# test's. deps.sh grade picks its names from stand-in os-release files.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tap.bash"
export RTLAB_DATADIR=$SRCDIR
unset MAKEFLAGS MFLAGS MAKELEVEL
validator=${ACTION_VALIDATOR:-$SRCDIR/build/node/node_modules/.bin/action-validator}
cd "$tmp" || exit 1

# ---- usage ----------------------------------------------------------------------------------
run ci --help
check "--help exits 0 with the usage line" \
	bash -c "[ $rc -eq 0 ] && grep -q '^usage: rtlab ci github|gitlab' '$tmp/out'"
run --help
check "rtlab --help lists ci" grep -q '^  ci ' "$tmp/out"
run ci
check "no CI named: exit 2" [ "$rc" -eq 2 ]
run ci jenkins --vendor
check "an unknown CI: exit 2, named" \
	bash -c "[ $rc -eq 2 ] && grep -q \"no CI called 'jenkins'\" '$tmp/err'"
run ci github latency --out "$tmp/none"
check "neither --vendor nor --from: exit 2, says both ways, writes nothing" \
	bash -c "[ $rc -eq 2 ] && grep -q -- '--vendor' '$tmp/err' && grep -q -- '--from URL' '$tmp/err' && [ ! -e '$tmp/none' ]"
run ci github latency --vendor --from https://example.org/r.git --out "$tmp/none"
check "both --vendor and --from: exit 2" [ "$rc" -eq 2 ]
run ci github latency --from "https://x/r.git; rm -rf ~" --out "$tmp/none"
check "a URL a shell would read: exit 2" \
	bash -c "[ $rc -eq 2 ] && grep -q 'characters a shell' '$tmp/err' && [ ! -e '$tmp/none' ]"
run ci github no-such-lab --from https://example.org/r.git
check "an unknown lab: exit 2" [ "$rc" -eq 2 ]
run ci github latency latency --from https://example.org/r.git --out "$tmp/none"
check "a lab named twice: exit 2" [ "$rc" -eq 2 ]

# ---- every lab, --from ----------------------------------------------------------------------
url=https://git.example.edu/teacher/rtlab.git
run ci github --from "$url" --out "$tmp/all"
wf=$tmp/all/.github/workflows/classroom.yml
check "ci github writes .github/workflows/classroom.yml" bash -c "[ $rc -eq 0 ] && [ -s '$wf' ]"
if [ -x "$validator" ]; then
	"$validator" "$wf" >"$tmp/err" 2>&1
	check "action-validator accepts the workflow" [ $? -eq 0 ]
	sed 's/^    runs-on:/    runs_on:/' "$wf" >"$tmp/broken.yml"
	"$validator" "$tmp/broken.yml" >/dev/null 2>&1
	check "and refuses it with a key misspelt (the validator can fail)" [ $? -ne 0 ]
else
	skip "action-validator: not installed at $validator (make deps installs it with npm)"
	skip "action-validator on a broken workflow: not installed"
fi
python3 - "$wf" "$SRCDIR" >"$tmp/err" 2>&1 <<'EOF'
import glob, json, sys, yaml
wf = yaml.safe_load(open(sys.argv[1]))
want = {}
for f in sorted(glob.glob(sys.argv[2] + "/labs/*/checks/exercise.json")):
    m = json.load(open(f))
    for c in m["checks"]:
        want[m["lab"] + "-" + c["id"]] = c["points"]
steps = wf["jobs"]["run-autograding-tests"]["steps"]
got = {s["id"]: s["with"]["max-score"] for s in steps
       if s.get("uses", "").startswith("classroom-resources/autograding-command-grader@")}
assert got == want, (got, want)
rep = steps[-1]
assert rep["uses"].startswith("classroom-resources/autograding-grading-reporter@")
assert sorted(rep["with"]["runners"].split(",")) == sorted(want), rep["with"]["runners"]
assert sorted(rep["env"]) == sorted(k.upper() + "_RESULTS" for k in want)
build = next(s for s in steps if s.get("name") == "Build rtlab")["run"]
assert "git clone --depth 1 https://git.example.edu/teacher/rtlab.git .rtlab" in build
print(len(got), sum(got.values()))
EOF
check "one grader step per check of every manifest, max-score its points, all reported" \
	[ $? -eq 0 ]
check "the --from URL is cloned; no placeholder host" \
	bash -c "! grep -q 'example.org' '$wf'"
run ci github --from "$url" --out "$tmp/all"
check "an existing file is not overwritten: exit 1" \
	bash -c "[ $rc -eq 1 ] && grep -q 'not overwritten' '$tmp/err'"
run ci github --from "$url" --out "$tmp/all" --force
check "--force replaces it" [ "$rc" -eq 0 ]

run ci gitlab latency ftrace --from "$url" --out "$tmp/gl2"
python3 - "$tmp/gl2/.gitlab-ci.yml" >"$tmp/err" 2>&1 <<'EOF'
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
assert sorted(doc) == ["grade-ftrace", "grade-latency"], sorted(doc)
for lab in ("latency", "ftrace"):
    job = doc["grade-" + lab]
    assert job["image"] == "debian:12"
    assert all(isinstance(l, str) for l in job["script"])
    assert job["script"][-1].endswith(
        "grade %s --work %s --format junit > rtlab-%s.xml" % (lab, lab, lab)), job["script"]
    assert job["artifacts"]["when"] == "always"
    assert job["artifacts"]["reports"]["junit"] == "rtlab-%s.xml" % lab
EOF
shape=$?
check "ci gitlab: YAML with one job per lab, debian:12, the JUnit report uploaded" \
	bash -c "[ $rc -eq 0 ] && [ $shape -eq 0 ]"

# ---- deps-grade's names -----------------------------------------------------------------------
printf 'ID=debian\nVERSION_ID="12"\n' >"$tmp/osr-debian"
printf 'NAME="Ubuntu"\nID=ubuntu\nID_LIKE=debian\nVERSION_ID="24.04"\n' >"$tmp/osr-ubuntu"
printf 'ID=linuxmint\nID_LIKE="ubuntu debian"\n' >"$tmp/osr-mint"
printf 'ID=fedora\n' >"$tmp/osr-fedora"
for os in debian ubuntu mint; do
	RTLAB_OS_RELEASE=$tmp/osr-$os sh "$SRCDIR/scripts/deps.sh" grade --list >"$tmp/out" 2>"$tmp/err"
	check "deps.sh grade on $os: the compiler, libraries, cmocka, libseccomp; no QEMU or browser" \
		bash -c "[ $? -eq 0 ] && grep -qw gcc '$tmp/out' && grep -qw libcmocka-dev '$tmp/out' &&
			grep -qw libseccomp-dev '$tmp/out' && ! grep -qE 'qemu|chromium|arm-none' '$tmp/out'"
done
RTLAB_OS_RELEASE=$tmp/osr-fedora sh "$SRCDIR/scripts/deps.sh" grade --list >"$tmp/out" 2>"$tmp/err"
check "on another distribution: exit 1, names what to install" \
	bash -c "[ $? -eq 1 ] && grep -q 'neither Debian nor Ubuntu' '$tmp/err' && grep -q cmocka '$tmp/err'"
make -C "$SRCDIR" --no-print-directory -n deps-grade >"$tmp/out" 2>&1
check "make deps-grade runs deps.sh grade" grep -q 'scripts/deps.sh grade' "$tmp/out"

# ---- as the runner sees it ------------------------------------------------------------------
# GitHub's runner is not root and uses sudo; here a stand-in sudo runs the
# command as we are. Without root the checks that need mlock would be skipped.
if [ "$(id -u)" -ne 0 ]; then
	for t in "GitHub job: the reference" "GitHub job: a mutant" "GitLab job: the reference" \
		"GitLab job: a mutant" "Containerfile"; do
		skip "$t: needs root (the runner grades as root)"
	done
	tap_done
fi
mkdir -p "$tmp/bin"
printf '#!/bin/sh\nexec "$@"\n' >"$tmp/bin/sudo"
chmod +x "$tmp/bin/sudo"
export PATH=$tmp/bin:$PATH
# The runner's rtlab finds its data in .rtlab by itself.
steps() { env -u RTLAB_DATADIR "$SRCDIR/scripts/ci-run-steps" "$@"; }

tpl=$tmp/template
run ci github latency --vendor --out "$tpl"
check "ci github --vendor copies rtlab into .rtlab; of references only what rtlab compiles; no mutants" \
	bash -c "[ $rc -eq 0 ] && [ -f '$tpl/.rtlab/rtlab/main.c' ] && [ -f '$tpl/.rtlab/labs/latency/checks/exercise.json' ] &&
		[ \"\$(find '$tpl/.rtlab/labs' -path '*/reference/*' -o -name mutants)\" = '$tpl/.rtlab/labs/hypervisor/reference/hv_boost.c' ]"
run ci github latency --vendor --out "$tpl" --force
check "a second --vendor into the same folder: exit 1, .rtlab named" \
	bash -c "[ $rc -eq 1 ] && grep -q '.rtlab exists' '$tmp/err'"
run ci gitlab latency --vendor --out "$tmp/gltpl"
cp "$tmp/gltpl/.gitlab-ci.yml" "$tpl/"
cp "$SRCDIR/labs/latency/reference/probe_loop.c" "$tpl/"
git -C "$tpl" init -q && git -C "$tpl" add -A &&
	git -C "$tpl" -c user.name=t -c user.email=t@t commit -qm template
git clone -q "$tpl" "$tmp/clone"
# The jobs build rtlab in .rtlab as the runner would. The tree's own objects seed that
# build, made newer than the copied sources, so the test spends seconds there rather than
# the minutes of a cold build (which `make check` itself does).
if [ -d "$(dirname "$RTLAB")/obj" ]; then
	mkdir -p "$tmp/clone/.rtlab/build"
	cp -a "$(dirname "$RTLAB")/obj" "$(dirname "$RTLAB")/gen" "$tmp/clone/.rtlab/build/"
	find "$tmp/clone/.rtlab/build" -type f -exec touch {} +
fi
cd "$tmp/clone" || exit 1

start=$SECONDS
steps .github/workflows/classroom.yml >"$tmp/gh.out" 2>&1
rc=$?
cp "$tmp/gh.out" "$tmp/err"
check "GitHub job on the reference: exit 0, every point (16/16)" \
	bash -c "[ $rc -eq 0 ] && grep -q '^ci-run-steps: points 16/16$' '$tmp/gh.out'"
echo "# the GitHub job (rtlab built in .rtlab) took $((SECONDS - start)) s"
steps .gitlab-ci.yml >"$tmp/err" 2>&1
rc=$?
check "GitLab job on the reference: exit 0, a JUnit report with no failure" \
	bash -c "[ $rc -eq 0 ] && grep -q '<testsuite' rtlab-latency.xml && ! grep -q '<failure' rtlab-latency.xml"

mutant=$SRCDIR/labs/latency/mutants/01-relative-sleep.c
sed '2,3d' "$mutant" >probe_loop.c
steps .github/workflows/classroom.yml >"$tmp/err" 2>&1
rc=$?
check "GitHub job on a mutant: exit 1, absolute-sleep earns nothing" \
	bash -c "[ $rc -eq 1 ] && grep -q 'latency/absolute-sleep: FAIL (0/3)' '$tmp/err'"
steps .gitlab-ci.yml >"$tmp/err" 2>&1
rc=$?
check "GitLab job on a mutant: exit 1, the report names the failure" \
	bash -c "[ $rc -eq 1 ] && grep -q '<failure' rtlab-latency.xml"

# The Containerfile's commands, with its build context the built copy and
# its folders (ARG) in the test's.
cd "$tmp/clone/.rtlab" || exit 1
SRC=$tmp/image/opt/rtlab BINDIR=$tmp/image/bin steps "$SRCDIR/Containerfile" >"$tmp/err" 2>&1
rc=$?
cp "$SRCDIR/labs/latency/reference/probe_loop.c" "$tmp/ref.c" 2>/dev/null
mkdir -p "$tmp/refwork" && cp "$tmp/ref.c" "$tmp/refwork/probe_loop.c"
check "Containerfile: its commands build rtlab, link it on PATH, leave no reference" \
	bash -c "[ $rc -eq 0 ] && [ -x '$tmp/image/bin/rtlab' ] &&
		[ -z \"\$(find '$tmp/image/opt/rtlab/labs' -name reference -o -name mutants)\" ] &&
		env -u RTLAB_DATADIR '$tmp/image/bin/rtlab' grade latency --work '$tmp/refwork' >/dev/null"

tap_done
