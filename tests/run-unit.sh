#!/usr/bin/env bash
# Run cmocka unit test binaries with TAP output; LAB_SRC points them at the
# repository so fixtures are found from any working directory.
set -u
export LAB_SRC=${LAB_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
export CMOCKA_MESSAGE_OUTPUT=TAP
rc=0
for t in "$@"; do
	"$t" || rc=1
done
exit $rc
