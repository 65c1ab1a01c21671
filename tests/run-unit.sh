#!/usr/bin/env bash
# Run cmocka unit test binaries with TAP output; LAB_SRC points them at the
# repository so fixtures are found from any working directory.
set -u
export LAB_SRC=${LAB_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
export CMOCKA_MESSAGE_OUTPUT=TAP
# Unit tests never see the real cache: an empty LAB_HOME, as on a fresh CI
# machine, so a test cannot pass only because something was built before.
LAB_HOME=$(mktemp -d /tmp/lab-unit.XXXXXX)
export LAB_HOME LAB_INSTANCE=unit
trap 'rm -rf "$LAB_HOME"' EXIT
rc=0
for t in "$@"; do
	"$t" || rc=1
done
exit $rc
