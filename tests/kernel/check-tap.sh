#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fsn-selftest --tap produces TAP that a TAP parser accepts: a version line,
# a plan matching the number of test lines, no parse errors.
# Usage: check-tap.sh FSN_SELFTEST [ARGS...]
set -u
selftest=$1
shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$selftest" --tap "$@" >"$out"
rc=$?
if [ $rc = 77 ]; then
	echo "SKIP: fsn-selftest skipped everything (not root?)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 77
fi
perl -MTAP::Parser -e '
	open(my $fh, "<", $ARGV[0]) or die "$ARGV[0]: $!";
	my $tap = do { local $/; <$fh> };
	my $p = TAP::Parser->new({ tap => $tap });
	while (my $r = $p->next) { }
	my @errors = $p->parse_errors;
	print "parse error: $_\n" for @errors;
	printf "TAP version %s, plan %s, %d tests, %d passed, %d failed, %d skipped\n",
		$p->version, $p->plan, $p->tests_run, scalar($p->passed) - scalar($p->skipped),
		scalar($p->failed), scalar($p->skipped);
	exit(@errors || !$p->is_good_plan || $p->version != 13 ? 1 : 0);
' "$out"
prc=$?
if [ $prc = 0 ] && [ $rc = 0 ]; then
	echo "1 passed, 0 failed, 0 skipped"
	exit 0
fi
echo "fsn-selftest exit status $rc, TAP check status $prc"
echo "0 passed, 1 failed, 0 skipped"
exit 1
