#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slides.t: `rtlab slides list | lint | export` on the shipped decks: the
# list, a clean lint and a broken deck's file:line messages; every deck
# exported, each page well-formed (xmllint) and self-contained (nothing to
# fetch); a plot slide with the sample's SVG, or the class's with --class,
# which reads nothing outside the class folder (no '..', no absolute path,
# no link followed out) and shows no host path;
# usage errors. Then headless Chromium renders the introduction's first
# slide and its plot slide: the DOM says which slide is shown and its title,
# and each screenshot has the dark pixels of a heading at the top and is not
# blank; skipped with the reason when Chromium is absent. TAP for prove.
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"
. "$SRCDIR/tests/cli/lib/tap.bash"
export RTLAB_DATADIR=$SRCDIR
not() { ! "$@"; }
not_grep() { ! grep -q "$@"; }

run slides list
check "slides list exits 0" [ "$rc" -eq 0 ]
check "slides list shows the introduction" grep -q '^00  introduction .* slides  Real-time Linux, by measuring it$' "$tmp/out"
check "slides list shows lesson 3's deck" grep -q '^03  kinds-of-latency ' "$tmp/out"

run slides lint
check "the shipped decks lint clean" [ "$rc" -eq 0 ] && [ ! -s "$tmp/out" ]

mkdir -p "$tmp/bad"
printf '# Bad\ntext\n---\n\n## One\n\n```plot\nresults: nowhere.json\n```\n' >"$tmp/bad/01-bad.md"
run slides lint "$tmp/bad"
check "a broken deck fails lint with exit 1" [ "$rc" -eq 1 ]
check "lint says file:line for the separator" grep -qF "$tmp/bad/01-bad.md:3: a blank line must come before '---'" "$tmp/out"
check "lint says file:line for the missing results document" grep -qF "$tmp/bad/01-bad.md:7: results document 'nowhere.json' not found" "$tmp/out"

run slides export --all --out "$tmp/html"
check "export --all exits 0" [ "$rc" -eq 0 ]
decks=$(ls "$SRCDIR"/slides/[0-9][0-9]-*.md | wc -l)
check "one page per deck ($decks)" [ "$(ls "$tmp/html"/*.html | wc -l)" -eq "$decks" ]
wellformed() {
	local f
	for f in "$tmp/html"/*.html; do
		xmllint --noout "$f" || return 1
	done
}
if command -v xmllint >/dev/null 2>&1; then
	check "every page is well-formed (xmllint)" wellformed
else
	skip "xmllint is not installed (make deps installs libxml2-utils)"
fi
page=$tmp/html/00-introduction.html
check "no page refers to anything outside itself" \
	not_grep -E '(src|href)="(https?:|//)|<link |@import|url\(' "$tmp/html"/*.html
check "the pages carry their script and print stylesheet" \
	grep -q '@media print' "$page" && grep -q "addEventListener('keydown'" "$page"
check "the introduction's plot slide holds the sample's SVG" \
	bash -c "sed -n '/id=\"s9\"/,/<\\/section>/p' '$page' | grep -q '<svg'"
check "the caption names the sample" grep -qF '(results/latency-sample.json, a sample)' "$page"

mkdir -p "$tmp/class"
cp "$SRCDIR/tests/data/results/latency-host.json" "$tmp/class/latency.json"
run slides export 0 --class "$tmp/class" --out "$tmp/cls"
check "export DECK --class exits 0" [ "$rc" -eq 0 ]
check "with --class the plot is the class's document" \
	grep -qF '(class:latency.json)' "$tmp/cls/00-introduction.html"
run slides export 0 --out "$tmp/none" --class "$tmp/bad"
check "a class folder without the lab's runs draws the sample, not a failure" \
	[ "$rc" -eq 0 ] && grep -q 'class="sample-note">Sample, not your class' "$tmp/none/00-introduction.html"
check "and warns on stderr" grep -q "warning: .*slide 9: no student in the class folder ran lab latency" "$tmp/err"

# The class folder confines what a deck names: no '..', no absolute path, no
# link out of it; the page names the documents as the deck does, never a host path.
mkdir -p "$tmp/outside" "$tmp/cl2/sub" "$tmp/esc"
cp "$SRCDIR/tests/data/results/latency-host.json" "$tmp/outside/secret.json"
echo "topsecret words of the host" >"$tmp/outside/word.json"
ln -s "$tmp/outside/secret.json" "$tmp/cl2/link.json"
ln -s "$tmp/outside" "$tmp/cl2/away"
ln -s "$tmp/outside/word.json" "$tmp/cl2/sub/word.json"
cp "$SRCDIR/tests/data/results/latency-host.json" "$tmp/cl2/sub/ok.json"
{
	printf '# Escape\n\n'
	for r in ../outside/secret.json link.json away/secret.json sub/word.json \
		"$tmp/outside/secret.json" ../outside/word.json sub/ok.json; do
		printf -- '---\n\n## Plot\n\n```plot\nresults: class:%s\n```\n\n' "$r"
	done
} >"$tmp/esc/01-escape.md"
run slides export "$tmp/esc/01-escape.md" --class "$tmp/cl2" --out "$tmp/escout"
esc=$tmp/escout/01-escape.html
check "export --class with names that leave the folder still exits 0" [ "$rc" -eq 0 ]
check "only the document inside the folder is drawn (1 SVG)" \
	[ "$(grep -c '<svg' "$esc" 2>/dev/null)" = 1 ]
check "and it is the one below the folder" grep -qF '(class:sub/ok.json)' "$esc"
check "the others are notes: 6" [ "$(grep -c 'class="plot-missing"' "$esc")" = 6 ]
check "nothing of a file outside is shown (its first word)" not_grep -q topsecret "$esc"
check "no host path is on the page" not_grep -qF "$tmp/" "$esc"
check "a link is named for what it is" grep -qF 'class:link.json: a symbolic link' "$esc"

run slides export 0
check "export without --out is a usage error" [ "$rc" -eq 2 ]
run slides export --out "$tmp/x"
check "export without a deck is a usage error" [ "$rc" -eq 2 ]
run slides export 99 --out "$tmp/x"
check "an unknown deck exits 1 and says so" [ "$rc" -eq 1 ] && grep -q "no deck '99'" "$tmp/err"
run slides --class /nonexistent
check "--class wants a folder" [ "$rc" -eq 2 ]

# ---- Headless Chromium ------------------------------------------------------

chrome=$(command -v chromium || true)
if [ -z "$chrome" ]; then
	skip "Chromium is not installed (make deps installs Debian's chromium): no browser rendering"
	tap_done
fi
# shot N: slide N of the introduction as DOM ($tmp/domN) and screenshot
# ($tmp/shotN.png), both from one run of the browser.
shot() {
	local flags="--headless --no-sandbox --disable-gpu --no-first-run
		--disable-background-networking --disable-component-update --disable-sync
		--disable-quic --hide-scrollbars --window-size=800,450"
	# shellcheck disable=SC2086
	timeout 60 "$chrome" $flags --user-data-dir="$tmp/profile-$1" --dump-dom \
		--screenshot="$tmp/shot$1.png" "file://$page#$1" >"$tmp/dom$1" \
		2>"$tmp/chrome-$1.log" && [ -s "$tmp/shot$1.png" ]
}
# png_check FILE FROM TO: decode the PNG (python3's zlib) and demand dark
# pixels in the band of rows FROM% to TO% of the height, where the heading
# is, and many non-white pixels above TO% (tests/cli/lib/png_rows.py decodes it).
png_check() {
	python3 - "$@" <<-'EOF'
	import os, sys
	sys.path.insert(0, os.environ['SRCDIR'] + '/tests/cli/lib')
	from png_rows import rows as decode
	w, h, bpp, rows = decode(sys.argv[1])
	rows = rows[:h * int(sys.argv[3]) // 100]
	def dark(y):
	    r = rows[y]
	    return sum(1 for x in range(0, w * bpp, bpp) if r[x] + r[x + 1] + r[x + 2] < 300)
	top = sum(dark(y) for y in range(h * int(sys.argv[2]) // 100, h * int(sys.argv[3]) // 100))
	ink = sum(1 for r in rows[::2] for x in range(0, w * bpp, bpp * 2) if r[x] + r[x + 1] + r[x + 2] < 720)
	print('# %s: %d dark pixels at the top, %d sampled non-white' % (sys.argv[1], top, ink))
	sys.exit(0 if top > 300 and ink > 300 else 1)
	EOF
}
start=$(date +%s)
if shot 1 && shot 9; then
	ok "headless Chromium rendered slides 1 and 9"
	check "slide 1: the DOM shows slide 1 with the deck's title" \
		grep -qF '<body data-slide="1" data-title="Real-time Linux, by measuring it"' "$tmp/dom1"
	check "slide 1 is the one shown" grep -q '<section class="slide title current" id="s1">' "$tmp/dom1"
	check "slide 9: the DOM shows the plot slide with its title" \
		grep -qF '<body data-slide="9" data-title="What a measurement looks like"' "$tmp/dom9"
	check "slide 9 is shown and holds the plot" \
		bash -c "sed -n '/class=\"slide has-plot current\" id=\"s9\"/,/<\\/section>/p' '$tmp/dom9' | grep -q '<svg'"
	if command -v python3 >/dev/null 2>&1; then
		check "screenshot of slide 1: a heading at the top, not blank" png_check "$tmp/shot1.png" 25 50
		check "screenshot of slide 9: a heading at the top, not blank" png_check "$tmp/shot9.png" 3 18
		check "the two screenshots differ" not cmp -s "$tmp/shot1.png" "$tmp/shot9.png"
	else
		skip "python3 is absent: the screenshots are not decoded"
	fi
else
	not_ok "headless Chromium rendered slides 1 and 9" "$(tail -c 400 "$tmp"/chrome-*.log | tr '\n' ' ')"
fi
echo "# Chromium part: $(($(date +%s) - start)) s"
tap_done
