#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every C file of the project is formatted as .clang-format says.
# Usage: check-format.sh CLANG_FORMAT SOURCE_ROOT
set -eu
clang_format=$1
cd "$2"
files=$(find lib daemon ctl examples tests bench shared -name '*.[ch]' 2>/dev/null | sort)
n=0
bad=0
for f in $files; do
	n=$((n + 1))
	if ! "$clang_format" --dry-run -Werror "$f" >/dev/null 2>&1; then
		echo "not formatted: $f (run: clang-format -i $f)"
		bad=$((bad + 1))
	fi
done
echo "$((n - bad)) passed, $bad failed, 0 skipped"
[ "$bad" = 0 ]
