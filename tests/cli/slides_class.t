#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slides_class.t: the decks drawn with a class's own runs. A class of 30
# runs the simulated fcse lab (a second or less each): 28 in the grading
# layout (class/<student>/fcse/results.json), 2 flat
# (class/<student>/results.json). `slides export --all --class` draws the
# fcse deck's plot slide from all 30, anonymous unless --names; the latency
# plot, which nobody ran, falls back to the sample with a note on the slide
# and a warning on stderr; no host path is on any page; --course FILE puts
# the course, teacher, date and licence on the title slides. A folder of
# `rtlab handin` files (one student's folder a link) draws its runs too.
# Then headless Chromium at 1280x800 renders the class plot slide: the DOM's
# measurements (written into it by a script added to a copy of the page)
# say every text of the plot is at least 18 px on the screen and the drawn
# plot covers at least 60 % of the slide; the screenshot, decoded, has the
# class's strips inside the plot's box. The speaker view (key s) opens a
# second window with the notes, the current and next slide and a timer,
# while the page keeps its slide; a print to PDF has one landscape page per
# slide. Chromium absent: those parts are skipped with the reason.
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"
. "$SRCDIR/tests/cli/lib/tap.bash"
export RTLAB_DATADIR=$SRCDIR
not_grep() { ! grep -q "$@"; }

start=$(date +%s)
cls=$tmp/class
for i in $(seq 1 30); do
	who=student$(printf %02d "$i")
	if [ "$i" -le 28 ]; then dir=$cls/$who/fcse; else dir=$cls/$who; fi
	mkdir -p "$dir"
	HOME=$tmp/home "$RTLAB" lab run fcse --seed "$i" --json "$dir/results.json" \
		>/dev/null 2>>"$tmp/runs.log" &
	[ $((i % 2)) -eq 0 ] && wait
done
wait
check "a class of 30 fcse runs" [ "$(find "$cls" -name results.json | wc -l)" -eq 30 ]
echo "# the class's runs: $(($(date +%s) - start)) s"

cat >"$tmp/course.json" <<'EOF'
{ "title": "Real-time Linux, spring term", "teacher": "Dr. Zoë Example",
  "date": "7 December 2026", "licence": "CC BY-SA 4.0", "labs": ["fcse"] }
EOF
run slides export --all --out "$tmp/html" --class "$cls" --course "$tmp/course.json"
page=$tmp/html/08-arm-fcse.html
check "export --all --class exits 0" [ "$rc" -eq 0 ]
slide() { sed -n "/ id=\"s$2\">/,/<\\/section>/p" "$1"; }
ps=$(grep -o '<section class="slide[^"]*has-plot[^"]*" id="s[0-9]*"' "$page" | head -1 | sed 's/.*id="s//; s/"//')
check "the fcse deck has a plot slide" [ -n "$ps" ]
check "its plot draws the class's 30 runs" \
	[ "$(slide "$page" "$ps" | grep -c '<g class="run">')" -eq 90 ]
check "it says so: 30 runs, anonymous" grep -qF '30 runs of lab fcse, anonymous' "$page"
check "and marks the class median of each scenario" \
	[ "$(slide "$page" "$ps" | grep -c 'class="median"')" -eq 3 ]
check "scenarios are named in words" grep -qF '>mixed workload, FCSE guaranteed<' "$page"
check "no student is named" not_grep -q student "$page"
check "no ISO time stamp on the slide" \
	bash -c "! sed -n '/ id=\"s$ps\">/,/<\\/section>/p' '$page' | grep -qE '[0-9]{4}-[0-9]{2}-[0-9]{2}T'"
check "no host path on any page" not_grep -rqF "$tmp" "$tmp/html"
check "the latency plot nobody ran shows the sample with a note" \
	grep -qF 'Sample, not your class' "$tmp/html/00-introduction.html"
check "and a warning on stderr names the lab" \
	grep -q 'warning: .*no student in the class folder ran lab latency' "$tmp/err"
check "the title slide carries the course file's lines" \
	grep -qF '<p class="teacher">Dr. Zoë Example</p>' "$page" && \
	grep -qF '<p class="licence">Licence: CC BY-SA 4.0</p>' "$page"

run slides export 8 --out "$tmp/named" --class "$cls" --names
check "--names names the runs" grep -qF '<title>student07</title>' "$tmp/named/08-arm-fcse.html"
run slides export 8 --out "$tmp/x" --names
check "--names without --class is a usage error" [ "$rc" -eq 2 ]
echo '{"title": 3}' >"$tmp/badcourse.json"
run slides export 8 --out "$tmp/x" --course "$tmp/badcourse.json"
check "a course file whose title is not a string exits 1 and says so" \
	[ "$rc" -eq 1 ] && grep -q '"title" is not a string' "$tmp/err"

# ---- A folder of hand-ins --------------------------------------------------
# What a teacher collects is `rtlab handin` files: DIR/<student>.tar, or
# DIR/<student>/*.tar as an LMS lays them out, and a student folder may be a
# link. The export unpacks them as the grader does and draws their runs.
hd=$tmp/handins
mkdir -p "$hd/ann" "$tmp/elsewhere/eve"
for who in ann bob eve; do
	st=$tmp/learner-$who
	XDG_STATE_HOME=$st HOME=$tmp/home "$RTLAB" lab run fcse --seed 7 >/dev/null 2>&1
	case $who in
	ann) dest=$hd/ann/fcse.tar ;;
	bob) dest=$hd/bob.tar ;;
	eve) dest=$tmp/elsewhere/eve/fcse.tar ;;
	esac
	XDG_STATE_HOME=$st HOME=$tmp/home "$RTLAB" handin fcse --out "$dest" >/dev/null 2>&1
done
ln -s "$tmp/elsewhere/eve" "$hd/eve"
check "three fcse hand-ins, one in a linked folder" \
	[ "$(find -L "$hd" -name '*.tar' | wc -l)" -eq 3 ]
left_before=$(ls -d "${TMPDIR:-/tmp}"/rtlab-handin.* 2>/dev/null | sort)
run slides export 8 --out "$tmp/fromtars" --class "$hd"
check "export --class on a folder of hand-ins exits 0" [ "$rc" -eq 0 ]
check "... and draws the three students' runs, not the sample" \
	grep -qF '3 runs of lab fcse, anonymous' "$tmp/fromtars/08-arm-fcse.html"
check "... with no host path on the page" not_grep -qF "$tmp" "$tmp/fromtars/08-arm-fcse.html"
check "... and leaves no unpacked folder behind" \
	[ "$(ls -d "${TMPDIR:-/tmp}"/rtlab-handin.* 2>/dev/null | sort)" = "$left_before" ]

# ---- Headless Chromium ------------------------------------------------------

chrome=$(command -v chromium || true)
if [ -z "$chrome" ]; then
	skip "Chromium is not installed (make deps installs Debian's chromium): no rendering"
	tap_done
fi
flags="--headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking
	--disable-component-update --disable-sync --disable-quic --hide-scrollbars
	--disable-popup-blocking --window-size=1280,800"
# The measurements: a page that holds the deck in a 1280x800 frame (the
# browser's own window loses some height to its frame) and, once the frame has
# loaded, measures its shown slide and writes the numbers into its own <body>,
# where --dump-dom finds them.
cat >"$tmp/html/measure.html" <<EOF
<!DOCTYPE html><html><body style="margin:0">
<iframe id="f" src="08-arm-fcse.html#$ps" width="1280" height="800" style="border:0"></iframe>
<script>
document.getElementById('f').onload = function () {
  var w = this.contentWindow, d = w.document, b = document.body;
  var sv = d.querySelector('section.current svg');
  var r = sv.getBoundingClientRect(), vb = sv.viewBox.baseVal;
  var k = Math.min(r.width / vb.width, r.height / vb.height);
  var pw = vb.width * k, ph = vb.height * k, x = r.left + (r.width - pw) / 2;
  var y = r.top + (r.height - ph) / 2, t = sv.querySelectorAll('text'), min = 1e9;
  for (var i = 0; i < t.length; i++)
    min = Math.min(min, parseFloat(w.getComputedStyle(t[i]).fontSize) * k);
  b.setAttribute('data-view', w.innerWidth + 'x' + w.innerHeight);
  b.setAttribute('data-slide', d.body.getAttribute('data-slide'));
  b.setAttribute('data-texts', String(t.length));
  b.setAttribute('data-min-font', min.toFixed(1));
  b.setAttribute('data-plot-share', (pw * ph / (w.innerWidth * w.innerHeight)).toFixed(3));
  b.setAttribute('data-plot-box', [x, y, pw, ph].map(Math.round).join(','));
  d.dispatchEvent(new w.KeyboardEvent('keydown', { key: 's' }));
  var s = w.rtlabSpeaker, sd = s ? s.document : null, got = [];
  if (sd) {
    if (sd.getElementById('cur').textContent.indexOf("lab's model") >= 0) got.push('current');
    if (sd.getElementById('next').querySelector('h2')) got.push('next');
    if (sd.getElementById('snotes').textContent.indexOf('simulation') >= 0) got.push('notes');
    if (/^[0-9]+:[0-9][0-9]$/.test(sd.getElementById('sclock').textContent)) got.push('timer');
  }
  b.setAttribute('data-speaker', got.join(' ') || 'none');
  b.setAttribute('data-after-s', d.querySelector('section.current').id);
};
</script></body></html>
EOF
start=$(date +%s)
# shellcheck disable=SC2086
timeout 60 "$chrome" $flags --allow-file-access-from-files --user-data-dir="$tmp/profile" \
	--dump-dom "file://$tmp/html/measure.html" >"$tmp/dom" 2>"$tmp/chrome.log"
# shellcheck disable=SC2086
timeout 60 "$chrome" $flags --user-data-dir="$tmp/profile-shot" --screenshot="$tmp/shot.png" \
	"file://$page#$ps" 2>>"$tmp/chrome.log" >/dev/null
body=$(grep -o '<body [^>]*>' "$tmp/dom")
echo "# $body"
attr() { sed -n "s/.* $1=\"\\([^\"]*\\)\".*/\\1/p" <<<"$body"; }
if [ -s "$tmp/shot.png" ] && [ -n "$(attr data-min-font)" ]; then
	ok "headless Chromium rendered the class plot slide at 1280x800"
	check "the DOM shows the plot slide at 1280x800" \
		[ "$(attr data-slide)" = "$ps" ] && [ "$(attr data-view)" = 1280x800 ]
	check "every text of the plot is at least 18 px ($(attr data-min-font) px, $(attr data-texts) texts)" \
		awk -v f="$(attr data-min-font)" 'BEGIN { exit !(f >= 18) }'
	check "the plot covers at least 60 % of the slide ($(attr data-plot-share))" \
		awk -v f="$(attr data-plot-share)" 'BEGIN { exit !(f >= 0.6) }'
	check "key s opens the speaker view: $(attr data-speaker)" \
		[ "$(attr data-speaker)" = "current next notes timer" ]
	check "and the page keeps its slide" [ "$(attr data-after-s)" = "s$ps" ]
	# The strips are drawn in #1f77b4: count such pixels inside the plot's box.
	check "the screenshot has the class's strips in the plot box" python3 - "$tmp/shot.png" "$(attr data-plot-box)" <<-'EOF'
	import os, sys
	sys.path.insert(0, os.environ['SRCDIR'] + '/tests/cli/lib')
	from png_rows import rows as decode
	x0, y0, w0, h0 = map(int, sys.argv[2].split(','))
	w, h, bpp, rows = decode(sys.argv[1])
	blue = outside = 0
	for y, line in enumerate(rows):
	    for x in range(0, w):
	        r, g, bl = line[x * bpp], line[x * bpp + 1], line[x * bpp + 2]
	        if abs(r - 0x1f) < 40 and abs(g - 0x77) < 40 and abs(bl - 0xb4) < 40:
	            if x0 <= x < x0 + w0 and y0 <= y < y0 + h0:
	                blue += 1
	            else:
	                outside += 1
	print('# strip pixels: %d inside the plot box, %d outside' % (blue, outside))
	sys.exit(0 if blue > 3000 and outside < blue / 20 else 1)
	EOF
else
	not_ok "headless Chromium rendered the class plot slide at 1280x800" \
		"$(tail -c 400 "$tmp/chrome.log" | tr '\n' ' ')"
fi

# Print: one landscape page per slide.
slides=$(grep -c '<section class="slide' "$page")
# shellcheck disable=SC2086
timeout 60 "$chrome" $flags --user-data-dir="$tmp/profile-pdf" --no-pdf-header-footer \
	--print-to-pdf="$tmp/deck.pdf" "file://$page" 2>"$tmp/chrome-pdf.log"
if [ -s "$tmp/deck.pdf" ]; then
	pages=$(grep -ac '/Type /Page$\|/Type /Page[^s]' "$tmp/deck.pdf")
	box=$(grep -ao '/MediaBox \[[^]]*\]' "$tmp/deck.pdf" | sort -u)
	echo "# PDF: $pages pages, $box"
	check "the print has one page per slide ($slides)" [ "$pages" -eq "$slides" ]
	# shellcheck disable=SC2016
	check "every page is landscape" \
		awk '{ gsub(/[^0-9. ]/, ""); split($0, v, " "); if (v[3] <= v[4]) exit 1 }' <<<"$box"
else
	not_ok "Chromium printed the deck to PDF" "$(tail -c 400 "$tmp/chrome-pdf.log" | tr '\n' ' ')"
fi
echo "# Chromium part: $(($(date +%s) - start)) s"
tap_done
