#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install the npm tools the tests use into a folder of the build, never
# system-wide: deps-node.sh DIR PACKAGE@VERSION... Quiet when each is there
# at its version. Without npm, or when npm fails (no network), it says what
# is missing and returns 0: the tests that need the tools then skip with
# that reason.
set -eu

dir=${1:?usage: deps-node.sh DIR PACKAGE@VERSION...}
shift
missing=""
for spec in "$@"; do
	name=${spec%@*}
	want=${spec##*@}
	have=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$dir/node_modules/$name/package.json" 2>/dev/null || true)
	[ "$have" = "$want" ] || missing="$missing $spec"
done
[ -z "$missing" ] && exit 0
if ! command -v npm >/dev/null 2>&1; then
	echo "make deps: npm not found, so$missing cannot be installed into $dir;" \
	     "the tests that use it will skip (install Debian's npm package)" >&2
	exit 0
fi
echo "make deps: installing into $dir:$missing"
mkdir -p "$dir"
# shellcheck disable=SC2086
if ! npm install --prefix "$dir" --no-audit --no-fund --silent $missing; then
	echo "make deps: npm could not install$missing (offline?); the tests that use it" \
	     "will skip" >&2
	exit 0
fi
echo "make deps: done"
