#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The public header compiles on its own as strict C99 (and C11), with every
# warning an error.  Usage: check-header.sh CC path/to/fsn.h
set -eu
cc=$1
header=$2
fail=0
for std in c99 c11; do
	if printf '#include "%s"\nint main(void) { return fsn_version() == 0; }\n' "$header" |
		"$cc" -std=$std -pedantic -Werror -Wall -Wextra -fsyntax-only -x c -; then
		echo "ok: fsn.h compiles alone with -std=$std -pedantic -Werror"
	else
		echo "FAIL: fsn.h does not compile alone with -std=$std -pedantic -Werror"
		fail=1
	fi
done
if [ $fail = 0 ]; then echo "2 passed, 0 failed, 0 skipped"; else echo "0 passed, 1 failed, 0 skipped"; fi
exit $fail
