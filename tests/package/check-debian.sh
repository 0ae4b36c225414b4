#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian packages as an operator gets them: build them from a copy of
# the source tree (dpkg-buildpackage -us -uc -b), lint them (lintian: no
# error, no warning that debian/*.lintian-overrides does not justify),
# install them (apt-get install ./*.deb), check what they installed (the
# default config passes --check-config, the unit verifies, logrotate
# accepts its snippet, tmpfiles made /var/log/fsnotifyd, a program builds
# against libfsn-dev, the test tools run), then purge them (the machine is
# left as it was, /var/log/fsnotifyd removed; the maintainer scripts work
# without systemd as PID 1).
#
# It installs packages on this machine, so it runs only with
# FSN_PACKAGE_TEST=1 (CI sets it; tools/install-deps --packages installs
# what it needs), and skips (77) otherwise.
#
#   check-debian.sh SOURCE_DIR WORK_DIR
set -uo pipefail

src=$1
work=$2
if [ "${FSN_PACKAGE_TEST:-}" != 1 ]; then
	echo "SKIP: set FSN_PACKAGE_TEST=1 to build, install and purge the Debian packages here"
	echo "0 passed, 0 failed, 1 skipped"
	exit 77
fi
if [ "$(id -u)" != 0 ]; then
	echo "not ok - installing the packages needs root"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi

pass=0
fail=0
n=0
ok() {
	n=$((n + 1))
	pass=$((pass + 1))
	echo "ok $n - $*"
}
notok() {
	n=$((n + 1))
	fail=$((fail + 1))
	echo "not ok $n - $*"
}
# check WHAT COMMAND...: ok when COMMAND succeeds; its output is shown
# when it fails
check() {
	local what=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$what"
	else
		notok "$what"
		printf '%s\n' "$out" | tail -n 40 | sed 's/^/#   /'
	fi
}
finish() {
	echo "$pass passed, $fail failed, 0 skipped"
	[ "$fail" = 0 ]
	exit $?
}

version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
pkgs="fsnotifyd libfsn0 libfsn-dev fsn-tools"
rm -rf "$work"
mkdir -p "$work/fsnotifyd-$version"
# the source tree without build directories and git metadata
tar -C "$src" --exclude='./build*' --exclude=./.git -cf - . | tar -C "$work/fsnotifyd-$version" -xf -

echo "# dpkg-buildpackage -us -uc -b (log: $work/build.log)"
if (cd "$work/fsnotifyd-$version" && dpkg-buildpackage -us -uc -b) > "$work/build.log" 2>&1; then
	ok "dpkg-buildpackage -us -uc -b"
else
	notok "dpkg-buildpackage -us -uc -b"
	grep -iE '(^|: )(error|warning):' "$work/build.log" | head -n 20 | sed 's/^/#   /'
	tail -n 30 "$work/build.log" | sed 's/^/#   /'
	finish
fi
changes=$(ls "$work"/fsnotifyd_"$version"_*.changes)
debs=()
for p in $pkgs; do
	f=$(ls "$work/${p}_${version}"_*.deb 2>/dev/null | head -n 1)
	if [ -n "$f" ]; then
		debs+=("$f")
	else
		notok "package $p was built"
	fi
done
[ "${#debs[@]}" = 4 ] && ok "4 binary packages: $pkgs"

# lintian: errors and warnings fail; the overrides in debian/ say why
# each remaining tag is right for this package. Informational tags are
# shown, not counted.
out=$(lintian --fail-on error,warning --display-info "$changes" 2>&1)
lrc=$?
printf '%s\n' "$out" | sed 's/^/#   lintian: /'
if [ $lrc = 0 ]; then
	ok "lintian: no error, no unjustified warning"
else
	notok "lintian: no error, no unjustified warning (exit $lrc)"
fi

# /var/log/fsnotifyd: made by the postinst (tmpfiles.d), removed by the
# purge; only checked strictly when it was not there before
logdir_before=no
[ -e /var/log/fsnotifyd ] && logdir_before=yes
check "apt-get install ./*.deb" env DEBIAN_FRONTEND=noninteractive \
	apt-get install -y -q --no-install-recommends "${debs[@]}"
check "fsnotifyd --check-config on the installed default" /usr/sbin/fsnotifyd --check-config
check "fsnotifyd --version is $version" sh -c "/usr/sbin/fsnotifyd --version | grep -qF '$version'"
unit=$(dpkg -L fsnotifyd | grep '/systemd/system/fsnotifyd.service$')
check "the unit is installed ($unit) and systemd-analyze verify accepts it" \
	systemd-analyze verify "$unit"
check "dpkg marks /etc/fsnotifyd/fsnotifyd.conf and the logrotate snippet as conffiles" \
	sh -c "dpkg-query -W -f='\${Conffiles}\n' fsnotifyd | grep -q ' /etc/fsnotifyd/fsnotifyd.conf ' &&
	       dpkg-query -W -f='\${Conffiles}\n' fsnotifyd | grep -q ' /etc/logrotate.d/fsnotifyd '"
check "logrotate accepts /etc/logrotate.d/fsnotifyd" \
	logrotate --debug --state "$work/logrotate.state" /etc/logrotate.d/fsnotifyd
check "/var/log/fsnotifyd exists, mode 750 (tmpfiles.d, run by the postinst; there before: $logdir_before)" \
	sh -c '[ "$(stat -c %a /var/log/fsnotifyd)" = 750 ]'
check "/var/lib/fsnotifyd (state_directory) exists, mode 700, root's (tmpfiles.d)" \
	sh -c '[ "$(stat -c %a:%U /var/lib/fsnotifyd)" = 700:root ]'
for m in fsnotifyd.8 fsnotifyd.conf.5 fsnotifyctl.1 libfsn.3 fsn-selftest.1 fsn-bench.1; do
	check "man page ${m} is installed" man -w "${m%.*}"
done
check "fsnotifyctl --help" /usr/bin/fsnotifyctl --help
check "fsn-selftest --list names cases" sh -c '/usr/bin/fsn-selftest --list | grep -q ig09_'
check "fsn-bench --help" /usr/bin/fsn-bench --help
runner=$(dpkg -L fsn-tools | grep '/fsnotifyd/vm/run-on-kernel$')
check "the VM runner is installed ($runner) with its init, and runs" \
	sh -c "[ -x '$runner' ] && [ -f '${runner%/*}/init' ] && '$runner' --help > /dev/null"
# a program against libfsn-dev: compiled with pkg-config, linked to the
# installed shared library, and it runs
if cc -Wall -Werror -o "$work/fsn-watch" "$src/examples/fsn-watch.c" \
	$(pkg-config --cflags --libs libfsn) > "$work/cc.log" 2>&1; then
	ok "examples/fsn-watch.c builds with pkg-config --cflags --libs libfsn"
	check "it links the installed libfsn.so.0" sh -c "ldd '$work/fsn-watch' | grep -Eq 'libfsn\.so\.0 => /(usr/)?lib/'"
	check "it runs (usage on stderr, exit 1)" sh -c "'$work/fsn-watch' 2>/dev/null; [ \$? = 1 ]"
else
	notok "examples/fsn-watch.c builds with pkg-config --cflags --libs libfsn"
	sed 's/^/#   /' "$work/cc.log"
fi

check "apt-get purge removes the packages" env DEBIAN_FRONTEND=noninteractive \
	apt-get purge -y -q $pkgs
check "the purge leaves no /etc/fsnotifyd, no /var/log/fsnotifyd, no /var/lib/fsnotifyd and no package" sh -c \
	"[ ! -e /etc/fsnotifyd ] && [ ! -e /var/log/fsnotifyd ] && [ ! -e /var/lib/fsnotifyd ] &&
	 ! dpkg-query -W -f='\${Status}\n' $pkgs 2>/dev/null | grep -q installed"
finish
