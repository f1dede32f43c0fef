#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slides_tui.t: the deck presenter end to end at 80x24, on the shipped
# introduction: rtlab runs in a detached pane of a private tmux server, keys
# go in with send-keys and the screen comes back with capture-pane (polled,
# never a fixed sleep). The bar's slide number and clock, the large heading,
# next and back, a slide number typed and g, the plot box, the notes on and
# off, first and last, q with exit 0; then every slide of two decks drawn at
# 80x24 without a "more" mark. TAP output for prove. Needs RTLAB and SRCDIR.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tmux.bash" slides

# start NAME DECK: present DECK in a new 80x24 session.
start() {
	cat >"$tmp/$1.sh" <<-EOF
	trap : INT
	env TERM=xterm-256color RTLAB_DATADIR="$SRCDIR" "$RTLAB" slides $2 2>"$tmp/$1.err"
	echo "exit=\$?" >"$tmp/$1.status"
	EOF
	tm new-session -d -s "$1" -x 80 -y 24 "sh $tmp/$1.sh" \; set-option -g remain-on-exit on
}

# count NAME: the number of slides the bar gives.
count() { screen "$1" | sed -n '1s|.* slide [0-9]*/\([0-9]*\) .*|\1|p'; }

start s 00
check "the presenter opens on slide 1" wait_match s "slide 1/[0-9]+ "
total=$(count s)
check "the bar counts the introduction's $total slides" [ "${total:-0}" -ge 10 ]
check "the bar shows the deck's title" row_has s 1 "Real-time Linux, by measuring it"
check "the bar shows the elapsed time" wait_match s "slide 1/$total  00:0[0-9]"
check "the title is drawn large (spaced capitals)" wait_for s "R E A L - T I M E"
check "the footer lists the keys" row_has s 24 "notes"
tm send-keys -t s Space
check "space goes to slide 2" wait_for s "slide 2/$total"
check "slide 2's heading, large" wait_for s "T H E   Q U E S T I O N   O F   T H E   C O U R S E"
check "slide 2's body" wait_for s "We will not argue about it"
tm send-keys -t s b
check "b goes back to slide 1" wait_for s "slide 1/$total"
tm send-keys -t s 9
check "a typed number shows in the bar" wait_for s "go to 9_"
tm send-keys -t s g
check "9 g goes to slide 9" wait_for s "slide 9/$total"
check "the plot slide shows its box with the caption" wait_for s "Wake-ups of a 1 ms periodic"
check "the box names the sample" wait_for s "results/latency-sample.json (a sample"
check "the box gives the sample's figures" wait_match s "latency, samples [0-9]+, p99 [0-9.]+ us, max"
tm send-keys -t s n
check "n shows the speaker notes" wait_for s "Speaker notes"
check "the notes' text" wait_for s "This is the plot every latency run produces"
tm send-keys -t s n
check "n again hides them" wait_gone s "Speaker notes"
tm send-keys -t s G
check "G goes to the last slide" wait_for s "slide $total/$total"
tm send-keys -t s Right
check "past the last slide it stays there" wait_for s "slide $total/$total"
tm send-keys -t s Home
check "Home goes to the first slide" wait_for s "slide 1/$total"
tm send-keys -t s q
check "q quits with exit 0" wait_status s 0

# Every slide of every deck fits 80x24: walk each deck, no "more" mark.
fits() {
	local deck=$1 name=$2 n i
	start "$name" "$deck"
	wait_match "$name" "slide 1/[0-9]+ " >/dev/null || return 1
	n=$(count "$name")
	for i in $(seq 1 "$n"); do
		wait_for "$name" "slide $i/$n" >/dev/null || return 1
		if on_screen "$name" "more: down arrow"; then
			echo "# $deck: slide $i does not fit 80x24"
			return 1
		fi
		tm send-keys -t "$name" Space
	done
	tm send-keys -t "$name" q
	wait_status "$name" 0
}
# Walking a deck costs a screen capture per slide: two decks here, those with
# a plot and the widest code blocks; `make check` lints every deck for the
# same rule (slides_deck_rows(), the layout drawn here).
k=0
for deck in "$SRCDIR"/slides/03-*.md "$SRCDIR"/slides/06-*.md; do
	k=$((k + 1))
	check "every slide of $(basename "$deck") fits 80x24" fits "$deck" "d$k"
done

tap_done
