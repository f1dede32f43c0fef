# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by exercise_latency.t and exercise_ftrace.t: grade the wrong
# solutions of one exercise and check that each loses exactly the checks it
# should. A wrong solution is tests/data/exercise-wrong/<lab>/NAME.patch: a
# unified diff against labs/<lab>/reference, after a description and a line
# "Loses: ID ID ..." naming the checks it must fail (none: it must pass).
# A check it should lose may be skipped instead when the grader cannot
# grant its needs here (mlock without CAP_SYS_RESOURCE, for one); every
# other check must pass. All of them are graded as one class (two jobs), so
# the test costs about as much as grading three or four folders.
# Source it after tap.bash; call wrong_solutions LAB [EXTRA_DIR...], where
# each EXTRA_DIR is a solution folder of your own with an "expect" file
# holding its Loses: line.

wrong_solutions() {
	local lab=$1 patch name dir want bad id status
	local ref=$SRCDIR/labs/$lab/reference class=$tmp/class-$lab
	shift
	rm -rf "$class" "$tmp/class-out"
	mkdir -p "$class"
	for patch in "$SRCDIR"/tests/data/exercise-wrong/"$lab"/*.patch; do
		name=$(basename "$patch" .patch)
		dir=$class/$name/$lab
		mkdir -p "$class/$name"
		cp -R "$ref" "$dir"
		sed -n 's/^Loses: */Loses: /p' "$patch" >"$class/$name/expect"
		if ! (cd "$dir" && patch -s -p1 <"$patch" >"$tmp/err" 2>&1); then
			not_ok "$lab/$name: the patch applies to the reference" "$(head -c 300 "$tmp/err")"
			rm -rf "$class/$name"
		fi
	done
	for dir in "$@"; do
		name=$(basename "$dir")
		mkdir -p "$class/$name"
		cp -R "$dir" "$class/$name/$lab"
		mv "$class/$name/$lab/expect" "$class/$name/expect"
	done
	run grade --class "$class" --lab "$lab" --jobs 2 --out "$tmp/class-out"
	check "$lab: the wrong solutions were graded as a class" [ -f "$tmp/class-out/grades.json" ]
	for dir in "$class"/*/; do
		name=$(basename "$dir")
		want=$(sed -n 's/^Loses: *//p' "$dir/expect")
		jq -r --arg s "$name" '.grades[] | select(.student == $s) |
			(.checks[] | select(.part == "code") | "\(.id) \(.status)"),
			"build \(.build.ok)"' "$tmp/class-out/grades.json" >"$tmp/statuses"
		bad=
		grep -qx 'build true' "$tmp/statuses" || bad=" (it did not build)"
		while read -r id status; do
			[ "$id" = build ] && continue
			case " $want " in
			*" $id "*) [ "$status" = fail ] || [ "$status" = skip ] ||
				bad="$bad $id:$status(should fail)" ;;
			*) [ "$status" = pass ] || [ "$status" = skip ] ||
				bad="$bad $id:$status(should pass)" ;;
			esac
		done <"$tmp/statuses"
		if [ -z "$bad" ] && grep -q ' ' "$tmp/statuses"; then
			ok "$lab/$name loses exactly: ${want:-nothing}"
		else
			not_ok "$lab/$name loses exactly: ${want:-nothing}" \
				"$(tr '\n' ' ' <"$tmp/statuses");$bad"
		fi
	done
}
