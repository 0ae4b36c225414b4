#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The journal catalog: every MESSAGE_ID daemon/log.h defines has exactly one
# entry in systemd/fsnotifyd.catalog and the catalog has no other; journalctl
# compiles it (--update-catalog into a scratch root) and lists each id with
# its subject.
#   check-catalog.sh LOG_H CATALOG
set -u
log_h=$1
catalog=$2
fail=0
pass=0

ids_h=$(sed -n 's/^#define FSND_MID_[A-Z_]* "\([0-9a-f]\{32\}\)"$/\1/p' "$log_h" | sort)
ids_c=$(sed -n 's/^-- \([0-9a-f]\{32\}\)$/\1/p' "$catalog" | sort)
n_h=$(printf '%s\n' "$ids_h" | grep -c .)
if [ "$n_h" -lt 14 ]; then
	echo "not ok - $log_h: $n_h MESSAGE_IDs found, expected at least 14 (a changed #define format?)"
	fail=$((fail + 1))
elif [ "$ids_h" = "$ids_c" ] && [ -z "$(printf '%s\n' "$ids_c" | uniq -d)" ]; then
	echo "ok - the $n_h MESSAGE_IDs of log.h each have one catalog entry, and no other"
	pass=$((pass + 1))
else
	echo "not ok - log.h and the catalog differ (< only in log.h, > only in the catalog):"
	printf '%s\n' "$ids_h" > "${TMPDIR:-/tmp}/catalog-h.$$"
	printf '%s\n' "$ids_c" | diff "${TMPDIR:-/tmp}/catalog-h.$$" - | grep '^[<>]'
	rm -f "${TMPDIR:-/tmp}/catalog-h.$$"
	fail=$((fail + 1))
fi

if command -v journalctl > /dev/null; then
	root=$(mktemp -d)
	mkdir -p "$root/usr/lib/systemd/catalog" "$root/var/lib/systemd/catalog"
	cp "$catalog" "$root/usr/lib/systemd/catalog/"
	if out=$(journalctl --root "$root" --update-catalog 2>&1) && [ -z "$out" ]; then
		listed=$(journalctl --root "$root" --list-catalog 2>&1)
		bad=""
		for id in $ids_c; do
			printf '%s\n' "$listed" | grep -q "^$id fsnotifyd" || bad="$bad $id"
		done
		if [ -z "$bad" ]; then
			echo "ok - journalctl --update-catalog compiles it; --list-catalog lists every id"
			pass=$((pass + 1))
		else
			echo "not ok - journalctl --list-catalog lacks:$bad"
			printf '%s\n' "$listed" | sed 's/^/#   /'
			fail=$((fail + 1))
		fi
	else
		echo "not ok - journalctl --update-catalog: $out"
		fail=$((fail + 1))
	fi
	rm -rf "$root"
else
	echo "not ok - journalctl not found (package systemd)"
	fail=$((fail + 1))
fi
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" = 0 ]
