#!/bin/bash
# make-user-tree.sh DIR: a kernel git tree like a QA engineer's own, for CI's
# `lab build --tree` and `lab bisect` between commits: linux-source-6.1 with
# the review's patched series (support/, bugs/, fixes/) as one commit, then
# tests/series/regress as three commits (the second re-adds seed 010's bug).
# Fixed dates make the commit ids the same every time; a DIR that already
# has them is kept (a warm CI machine does not extract 1.1 GB again).
set -euo pipefail
dir=$1
here=$(cd "$(dirname "$0")/.." && pwd)
tarball=/usr/src/linux-source-6.1.tar.xz
export GIT_AUTHOR_DATE="2026-12-07T10:00:00+0000" GIT_COMMITTER_DATE="2026-12-07T10:00:00+0000"
git_() { git -c user.name=qa -c user.email=qa@localhost -C "$dir" "$@"; }

want=$(printf '%s\n' "pipe: say 'are restricted' in the quota comment" \
	"media: dvb-core: initialize the feeds list once, at open" \
	"panic: reword the oops backtrace comment" "linux-source-6.1 + the review's patched series")
if [ -d "$dir/.git" ] && [ "$(git_ log --format=%s 2>/dev/null)" = "$want" ] &&
	[ -z "$(git_ status --porcelain --untracked-files=no)" ]; then
	echo "kept: $dir"
	git_ log --oneline | cat
	exit 0
fi
rm -rf "$dir"
mkdir -p "$dir"
tar -xf "$tarball" --strip-components=1 -C "$dir"
for part in support bugs fixes; do
	while read -r p; do
		case $p in '' | '#'*) continue ;; esac
		patch -s -p1 -N -d "$dir" -i "$here/patches/2.6.32.9/$part/$p"
	done <"$here/patches/2.6.32.9/$part/series"
done
git_ init -q
# no automatic gc: it would go on packing in the background after this
# script and write the tree while CI checks that lab leaves it untouched
git_ config gc.auto 0
git_ add -A -f # Debian's .gitignore ignores the whole tree
git_ commit -q -m "linux-source-6.1 + the review's patched series"
git_ am -q "$here"/tests/series/regress/*.patch
git_ log --oneline | cat
