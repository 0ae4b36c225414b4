#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# meson test "vm-taint": fsn-selftest's taint check can fail. On
# FSN_VM_KERNEL (a throwaway VM: the kernel stays tainted until it powers
# off), one case with --taint-after-case, which adds W to
# /proc/sys/kernel/tainted after the case as a WARN() would: the case must
# fail, saying the kernel became tainted during it, and the run exit 1.
# Skips (77) as check-vm.sh does.
# Usage: check-vm-taint.sh FSN_SELFTEST(static)
set -u
here=$(dirname "$0")

# shellcheck source=tests/vm/lib.sh
. "$here/lib.sh"

vm_require

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$here/run-on-kernel" "$kernel" --selftest "$1" ${FSN_VM_MODULES:+--modules "$FSN_VM_MODULES"} \
	-- --fs tmpfs --filter fp01_unwatched_dir_silent --taint-after-case >"$tmp/tap" 2>"$tmp/log"
rc=$?
cat "$tmp/tap"
[ "$rc" = 1 ] || fail "exit status $rc, expected 1 (a failed case): $(tail -n 20 "$tmp/log")"
grep -q '^not ok 1 tmpfs:fp01_unwatched_dir_silent' "$tmp/tap" || fail "the case did not fail"
grep -q 'the kernel became tainted during the case (W: a kernel warning' "$tmp/tap" ||
	fail "the failure does not say the kernel became tainted"
echo "PASS: a case during which the kernel became tainted (W) failed"
echo "1 passed, 0 failed, 0 skipped"
