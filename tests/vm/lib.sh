# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# Shared by the meson "vm" tests (sourced): the skip rule, what a VM run
# needs, and how a test ends (skip, fail). vm_require: skip (77) unless
# FSN_VM_KERNELS (IMAGE[:MODULES] ...) or FSN_VM_KERNEL names readable
# images and qemu and a static busybox are installed; $kernel is then the
# first image (or FSN_VM_KERNEL).

skip() {
	echo "SKIP: $*"
	echo "0 passed, 0 failed, 1 skipped"
	exit 77
}

# fail WHY: the test failed (one failure for the summary).
fail() {
	echo "FAIL: $*"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
}

vm_require() {
	kernel=${FSN_VM_KERNEL:-}
	for k in ${FSN_VM_KERNELS:-}; do
		[ -r "${k%%:*}" ] || skip "cannot read ${k%%:*} (FSN_VM_KERNELS)"
		[ -n "$kernel" ] || kernel=${k%%:*}
	done
	[ -n "$kernel" ] || skip "set FSN_VM_KERNEL=/path/to/bzImage (e.g. /boot/vmlinuz-...) or FSN_VM_KERNELS to run in a VM"
	[ -r "$kernel" ] || skip "cannot read FSN_VM_KERNEL=$kernel"
	command -v "${QEMU:-qemu-system-x86_64}" >/dev/null || skip "no ${QEMU:-qemu-system-x86_64} (qemu-system-x86)"
	bb=${BUSYBOX:-$(command -v busybox)}
	if [ -z "$bb" ] || ! ldd "$bb" 2>&1 | grep -qE 'not a dynamic executable|statically linked'; then
		skip "no static busybox (busybox-static)"
	fi
}
