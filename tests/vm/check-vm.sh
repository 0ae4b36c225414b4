#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# meson test "vm": fsn-selftest on other kernels, through run-on-kernel.
# The kernels: FSN_VM_KERNELS, a blank-separated list of IMAGE[:MODULES]
# (what tests/vm/fetch-debian-kernel prints, joined by ':'), run one after
# the other; else FSN_VM_KERNEL with FSN_VM_MODULES (--modules; default:
# the image's /lib/modules). Skips (77) unless one is set and qemu and a
# static busybox are installed. FSN_VM_ARGS: fsn-selftest arguments (split
# on blanks). Prints each kernel's result, then the sum of all as
# "N passed, N failed, N skipped" (a VM failure counts as one failed) for
# tools/test-summary.
# Usage: check-vm.sh FSN_SELFTEST
set -u
set -f # FSN_VM_ARGS holds globs for --filter: never expanded here
here=$(dirname "$0")

# shellcheck source=tests/vm/lib.sh
. "$here/lib.sh"
vm_require

out=$(mktemp)
trap 'rm -f "$out" "$out.rc"' EXIT
passed=0 failed=0 skipped=0 status=77 results=""

# run_one IMAGE MODULES: the suite on one kernel; adds to the sums.
run_one() {
	echo "# === $1"
	# shellcheck disable=SC2086 # FSN_VM_ARGS is a blank-separated list
	{
		"$here/run-on-kernel" "$1" --selftest "$selftest" ${2:+--modules "$2"} \
			-- ${FSN_VM_ARGS:-}
		echo $? >"$out.rc"
	} | tee "$out"
	rc=$(cat "$out.rc")
	sum=$(sed -n 's/^# \([0-9]* passed, [0-9]* failed, [0-9]* skipped\)$/\1/p' "$out" | tail -n1)
	case $rc in
	0 | 1 | 77) [ -n "$sum" ] || sum="0 passed, 1 failed, 0 skipped" ;;
	*) sum="0 passed, 1 failed, 0 skipped (run-on-kernel exit status $rc)" ;;
	esac
	# shellcheck disable=SC2086 # split "N passed, N failed, N skipped"
	set -- $sum
	passed=$((passed + $1)) failed=$((failed + $3)) skipped=$((skipped + $5))
	if [ "$rc" != 0 ] && [ "$rc" != 77 ]; then
		status=1
	elif [ "$rc" = 0 ] && [ "$status" = 77 ]; then
		status=0
	fi
	results="$results# $(basename "$image"): $sum
"
}

selftest=$1
for k in ${FSN_VM_KERNELS:-$kernel${FSN_VM_MODULES:+:$FSN_VM_MODULES}}; do
	image=${k%%:*}
	mods=""
	[ "$image" = "$k" ] || mods=${k#*:}
	run_one "$image" "$mods"
done
printf '%s' "$results"
echo "$passed passed, $failed failed, $skipped skipped"
exit "$status"
