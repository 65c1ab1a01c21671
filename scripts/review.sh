#!/usr/bin/env bash
# `make review`: the main job, as far as the lab goes today: both kernels,
# the image, and the default topology up and down on each kernel.
set -euo pipefail
cd "$(dirname "$0")/.."
export LAB_SRC=$PWD
scripts/start-libvirtd.sh
./lab build all
./lab image
for k in baseline patched; do
	./lab down >/dev/null 2>&1 || true
	./lab up -t "${LAB_TOPOLOGY:-default}" --kernel "$k"
	./lab status
	./lab down
done
