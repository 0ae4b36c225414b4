#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# meson test "vm": fsn-selftest on another kernel, through run-on-kernel.
# Skips (77) unless FSN_VM_KERNEL names a kernel image and qemu and a
# static busybox are installed. FSN_VM_MODULES: --modules (default: the
# image's /lib/modules); FSN_VM_ARGS: fsn-selftest arguments (split on
# blanks). Ends with the suite's "N passed, N failed, N skipped" (a VM
# failure counts as one failed) for tools/test-summary.
# Usage: check-vm.sh FSN_SELFTEST
set -u
set -f # FSN_VM_ARGS holds globs for --filter: never expanded here
here=$(dirname "$0")

# shellcheck source=tests/vm/lib.sh
. "$here/lib.sh"
vm_require

out=$(mktemp)
trap 'rm -f "$out" "$out.rc"' EXIT
# shellcheck disable=SC2086 # FSN_VM_ARGS is a blank-separated list
{
	"$here/run-on-kernel" "$kernel" --selftest "$1" ${FSN_VM_MODULES:+--modules "$FSN_VM_MODULES"} \
		-- ${FSN_VM_ARGS:-}
	echo $? >"$out.rc"
} | tee "$out"
rc=$(cat "$out.rc")
sum=$(sed -n 's/^# \([0-9]* passed, [0-9]* failed, [0-9]* skipped\)$/\1/p' "$out" | tail -n1)
case $rc in
0 | 1 | 77)
	[ -n "$sum" ] && echo "$sum"
	exit "$rc"
	;;
esac
echo "run-on-kernel exit status $rc"
echo "0 passed, 1 failed, 0 skipped"
exit 1
