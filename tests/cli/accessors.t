#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 29, item 2's rule, proved on the objects rather than by grep (a
# #define'd key would slip past a grep): no object of the front ends (ui/,
# cli/) or of the renderers (report/) calls a jansson getter; documents are
# read through their owners' typed functions (core's rt_result_* and
# rt_progress_*, a lab's accessors, qemu_qmp_*). The list below is empty and
# only shrinks: an object that no longer needs its entry fails the test too.
set -u
: "${RTLAB:?}" "${SRCDIR:?}"
. "$SRCDIR/tests/cli/lib/tap.bash"

obj=$(dirname "$RTLAB")/obj/rtlab
getters=' json_(object_get|array_get|string_value|integer_value|real_value|number_value|boolean_value|object_size|array_size|object_iter|object_iter_next|object_iter_key|object_iter_value)$'
allowed=" "

found=
for o in "$obj"/ui/*.o "$obj"/cli/*.o "$obj"/report/*.o; do
	[ -f "$o" ] || continue
	if nm -u "$o" | grep -qE "$getters"; then
		found="$found ${o#"$obj"/}"
	fi
done
check "objects are there to read ($obj)" bash -c "ls '$obj'/ui/*.o '$obj'/cli/*.o >/dev/null"
bad=
for f in $found; do
	case "$allowed" in *" $f "*) ;; *) bad="$bad $f" ;; esac
done
check "no front-end or renderer object calls a jansson getter but the listed ones${bad:+ (also:$bad)}" \
	[ -z "$bad" ]
stale=
for a in $allowed; do
	case " $found " in *" $a "*) ;; *) stale="$stale $a" ;; esac
done
check "every listed object still needs its entry${stale:+ (remove:$stale)}" [ -z "$stale" ]
echo "# reading raw:$found"
tap_done
