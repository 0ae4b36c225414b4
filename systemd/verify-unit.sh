#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `systemd-analyze verify` on the service unit: it parses the unit as
# systemd would (offline: PID 1 need not be systemd) and complains about
# unknown keys, bad values and missing executables. Any complaint about the
# unit fails the test, not only those systemd-analyze counts as errors.
# Usage: verify-unit.sh UNIT_FILE     (exits 77 without systemd-analyze)
set -u
unit=$1
if ! command -v systemd-analyze >/dev/null 2>&1; then
	echo "SKIP: systemd-analyze not installed (apt-get install systemd)"
	exit 77
fi
name=$(basename "$unit")
out=$(systemd-analyze verify --man=no "$unit" 2>&1)
rc=$?
# Only lines about our unit count: a machine without systemd as PID 1 may
# print unrelated notes about its own units.
complaints=$(printf '%s\n' "$out" | grep -F -e "$name" -e "$unit" || true)
printf '%s\n' "$out"
if [ "$rc" -ne 0 ] || [ -n "$complaints" ]; then
	echo "FAIL: systemd-analyze verify $name (exit $rc)"
	exit 1
fi
echo "ok: systemd-analyze verify $name: no complaints"
exit 0
